#include "daemon/privdrop.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

int privdrop_resolve(const char *user, struct drop_target *t, char *err,
		     size_t errlen)
{
	const struct passwd *pw;

	if (user) {
		pw = getpwnam(user);
	} else {
		pw = getpwnam("pingsock");
		if (!pw)
			pw = getpwnam("nobody");
		user = pw ? pw->pw_name : "pingsock or nobody";
	}
	if (!pw) {
		snprintf(err, errlen, "--user %s: no such user", user);
		return -1;
	}
	if (pw->pw_uid == 0) {
		snprintf(err, errlen, "--user %s: refusing to run as uid 0",
			 user);
		return -1;
	}
	t->uid = pw->pw_uid;
	t->gid = pw->pw_gid;
	snprintf(t->name, sizeof(t->name), "%s", pw->pw_name);
	return 0;
}

/* The bounding set needs CAP_SETPCAP, so it goes before the uid change. */
static int drop_bounding(char *err, size_t errlen)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		if (!CAP_IS_SUPPORTED(c))
			continue;
		if (cap_drop_bound(c) != 0) {
			snprintf(err, errlen, "dropping capability %d from the "
				 "bounding set: %s", (int)c, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int drop_ids(const struct drop_target *t, char *err, size_t errlen)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (prctl(PR_SET_KEEPCAPS, 0) != 0 || setgroups(0, NULL) != 0 ||
	    setresgid(t->gid, t->gid, t->gid) != 0 ||
	    setresuid(t->uid, t->uid, t->uid) != 0) {
		snprintf(err, errlen, "changing to user %s: %s", t->name,
			 strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) || r != t->uid || e != t->uid ||
	    s != t->uid || getresgid(&rg, &eg, &sg) || rg != t->gid ||
	    eg != t->gid || sg != t->gid || getgroups(0, NULL) != 0 ||
	    setuid(0) == 0) {
		snprintf(err, errlen, "ids did not change as asked");
		return -1;
	}
	return 0;
}

static int drop_caps(char *err, size_t errlen)
{
	cap_t none = cap_init(), now;
	int differ;

	if (!none || cap_set_proc(none) != 0 || cap_reset_ambient() != 0) {
		snprintf(err, errlen, "clearing capabilities: %s",
			 strerror(errno));
		cap_free(none);
		return -1;
	}
	now = cap_get_proc();
	differ = !now || cap_compare(now, none) != 0;
	cap_free(now);
	cap_free(none);
	if (differ) {
		snprintf(err, errlen, "capabilities still held after drop");
		return -1;
	}
	return 0;
}

int privdrop_apply(const struct drop_target *t, char *err, size_t errlen)
{
	if (drop_bounding(err, errlen) || drop_ids(t, err, errlen) ||
	    drop_caps(err, errlen))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errlen, "setting no_new_privs: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}
