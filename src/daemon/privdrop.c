/* SPDX-License-Identifier: ISC */
#include "daemon/privdrop.h"
#include "daemon/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_USER "pingsock"
#define OVERFLOW_UID 65534	/* /proc/sys/kernel/overflowuid's default */

static uid_t overflow_uid(void)
{
	FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");
	unsigned long v = OVERFLOW_UID;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = OVERFLOW_UID;
		fclose(f);
	}
	return (uid_t)v;
}

/* Does any argument of the process's command line name a pingsockd, or
 * its name (comm: an exiting process has no command line left)? */
static bool is_pingsockd(const char *pid)
{
	char path[300], buf[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strncmp(buf, "pingsockd", 9) == 0)
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		const char *slash = strrchr(buf + i, '/');

		if (strncmp(slash ? slash + 1 : buf + i, "pingsockd", 9) == 0)
			return true;
	}
	return false;
}

/* The real or effective uid of process pid (a /proc entry name). */
static bool runs_as(const char *pid, uid_t uid)
{
	char path[300], line[256];
	unsigned long r, e;
	bool hit = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* A zombie holds nothing of the user's. */
		if (strncmp(line, "State:\tZ", 8) == 0 ||
		    strncmp(line, "State:\tX", 8) == 0)
			break;
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			hit = r == uid || e == uid;
			break;
		}
	}
	fclose(f);
	return hit;
}

/* A process other than a pingsockd that runs as uid: its pid, or 0. */
static long other_process(uid_t uid)
{
	DIR *d = opendir("/proc");
	const struct dirent *de;
	long found = 0;

	while (d && !found && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    atol(de->d_name) == (long)getpid())
			continue;
		if (runs_as(de->d_name, uid) && !is_pingsockd(de->d_name))
			found = atol(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * A user that others share (nobody, a login or service account) could
 * stop, trace or impersonate the daemon, and a compromised daemon could
 * reach that user's files.
 */
static int user_is_shared(const struct passwd *pw, char *err, size_t errlen)
{
	struct stat st;
	long pid;

	if (pw->pw_uid == overflow_uid() || strcmp(pw->pw_name, "nobody") == 0) {
		snprintf(err, errlen, "--user %s: the overflow user is shared "
			 "by other programs", pw->pw_name);
		return -1;
	}
	if (pw->pw_dir && stat(pw->pw_dir, &st) == 0 &&
	    st.st_uid == pw->pw_uid) {
		snprintf(err, errlen, "--user %s: owns its home directory %s "
			 "(a login or service account)", pw->pw_name,
			 pw->pw_dir);
		return -1;
	}
	pid = other_process(pw->pw_uid);
	if (pid) {
		snprintf(err, errlen, "--user %s: process %ld runs as that user "
			 "too", pw->pw_name, pid);
		return -1;
	}
	return privdrop_group_alone(pw->pw_gid, pw->pw_uid, pw->pw_name,
				    "the daemon's group", err, errlen);
}

/* Started without root: the user it was started as, which --user, if
 * given, must name. */
static const struct passwd *self_user(const char *user, char *err,
				      size_t errlen)
{
	const struct passwd *pw = getpwuid(geteuid());

	if (!pw) {
		snprintf(err, errlen, "uid %u has no passwd entry",
			 (unsigned)geteuid());
		return NULL;
	}
	if (user && strcmp(user, pw->pw_name) != 0) {
		const struct passwd *want = getpwnam(user);

		if (!want || want->pw_uid != pw->pw_uid) {
			snprintf(err, errlen, "--user %s: started as %s "
				 "without root, the daemon stays %s", user,
				 pw->pw_name, pw->pw_name);
			return NULL;
		}
	}
	return pw;
}

static const struct passwd *named_user(const char *user, char *err,
				       size_t errlen)
{
	const struct passwd *pw = getpwnam(user ? user : DEFAULT_USER);

	if (!pw && !user)
		snprintf(err, errlen, "no user " DEFAULT_USER ": create it "
			 "(useradd --system --no-create-home --home-dir "
			 "/nonexistent --shell /usr/sbin/nologin " DEFAULT_USER
			 ") or name another with --user");
	else if (!pw)
		snprintf(err, errlen, "--user %s: no such user", user);
	return pw;
}

int privdrop_resolve(const char *user, bool allow_shared,
		     struct drop_target *t, char *err, size_t errlen)
{
	bool root = geteuid() == 0;
	const struct passwd *pw = root ? named_user(user, err, errlen)
				       : self_user(user, err, errlen);
	char why[400];

	if (!pw)
		return -1;
	if (pw->pw_uid == 0) {
		snprintf(err, errlen, "--user %s: refusing to run as uid 0",
			 pw->pw_name);
		return -1;
	}
	t->uid = pw->pw_uid;
	/* Without root, the group the service manager gave. */
	t->gid = root ? pw->pw_gid : getegid();
	snprintf(t->name, sizeof(t->name), "%s", pw->pw_name);
	if (user_is_shared(pw, why, sizeof(why)) == 0)
		return 0;
	if (!allow_shared) {
		snprintf(err, errlen, "%s; the daemon's user must be its own "
			 "(see pingsockd(8); --allow-shared-user overrides)",
			 why);
		return -1;
	}
	log_warn("warning: %s (--allow-shared-user)", why);
	return 0;
}

bool privdrop_has_cap(int cap)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (now)
		cap_get_flag(now, (cap_value_t)cap, CAP_EFFECTIVE, &v);
	cap_free(now);
	return v == CAP_SET;
}

/* In a user's range of subordinate group ids (/etc/subgid)? */
static int in_subgid(gid_t gid, char *who, size_t wholen)
{
	FILE *f = fopen("/etc/subgid", "re");
	char line[512];
	int hit = 0;

	while (f && !hit && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		unsigned long long start, count;

		if (!c2 || line[0] == '#')
			continue;
		*c1 = '\0';
		start = strtoull(c1 + 1, NULL, 10);
		count = strtoull(c2 + 1, NULL, 10);
		if (gid >= start && gid - start < count) {
			snprintf(who, wholen, "%.*s", (int)(wholen - 1), line);
			hit = 1;
		}
	}
	if (f)
		fclose(f);
	return hit;
}

static int group_members(const struct group *gr, const char *user_name,
			 const char *what, char *err, size_t errlen)
{
	for (char **m = gr ? gr->gr_mem : NULL; m && *m; m++) {
		if (strcmp(*m, user_name) != 0) {
			snprintf(err, errlen, "%s: user %s is a member of group "
				 "%s (gid %u); it must be the daemon's alone",
				 what, *m, gr->gr_name, (unsigned)gr->gr_gid);
			return -1;
		}
	}
	return 0;
}

int privdrop_group_alone(gid_t gid, uid_t user_uid, const char *user_name,
			 const char *what, char *err, size_t errlen)
{
	const struct passwd *pw;
	char who[256];
	int rc = 0;

	if (gid == 0) {
		snprintf(err, errlen, "%s may not be gid 0", what);
		return -1;
	}
	setpwent();
	while (rc == 0 && (pw = getpwent()) != NULL) {
		if (pw->pw_gid == gid && pw->pw_uid != user_uid) {
			snprintf(err, errlen, "%s: gid %u is the primary group "
				 "of user %s; it must be the daemon's alone",
				 what, (unsigned)gid, pw->pw_name);
			rc = -1;
		}
	}
	endpwent();
	if (rc == 0)
		rc = group_members(getgrgid(gid), user_name, what, err, errlen);
	if (rc == 0 && in_subgid(gid, who, sizeof(who))) {
		snprintf(err, errlen, "%s: gid %u is in the subordinate group "
			 "ids of %s (/etc/subgid): that user's namespaces could "
			 "have it", what, (unsigned)gid, who);
		rc = -1;
	}
	return rc;
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
/*
 * Started without root, the ids are already the daemon's and cannot be
 * changed: check them, and that no supplementary group but its own is
 * held (systemd's User= gives the user's groups).
 */
static int check_ids(const struct drop_target *t, char *err, size_t errlen)
{
	gid_t groups[64];
	int n = getgroups(64, groups);
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) || r != t->uid || e != t->uid ||
	    s != t->uid || getresgid(&rg, &eg, &sg) || rg != t->gid ||
	    eg != t->gid || sg != t->gid || n < 0) {
		snprintf(err, errlen, "started without root: the real, "
			 "effective and saved ids must all be %s's", t->name);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (groups[i] != t->gid) {
			snprintf(err, errlen, "started without root and in "
				 "group %u, which it cannot leave: start it "
				 "without supplementary groups",
				 (unsigned)groups[i]);
			return -1;
		}
	}
	return 0;
}

static int drop_ids(const struct drop_target *t, char *err, size_t errlen)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (geteuid() != 0)
		return check_ids(t, err, errlen);
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
	/* Emptying the bounding set needs CAP_SETPCAP, which a start
	 * without root lacks: its set stays as the service manager made it
	 * (CAP_NET_RAW alone, in the unit), out of reach once no_new_privs
	 * and the filter (no execve) are in force. */
	if ((geteuid() == 0 && drop_bounding(err, errlen)) ||
	    drop_ids(t, err, errlen) ||
	    drop_caps(err, errlen))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errlen, "setting no_new_privs: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}
