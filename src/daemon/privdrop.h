/* SPDX-License-Identifier: ISC */
/*
 * privdrop - give up everything after start-up: supplementary groups,
 * the real/effective/saved ids, every capability (effective, permitted,
 * inheritable, ambient and the bounding set), then no_new_privs.  Each
 * step is checked; any failure stops start-up (fail closed).
 */
#ifndef PSD_PRIVDROP_H
#define PSD_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct drop_target {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/*
 * The user to become: user, or "pingsock" if NULL (there is no fallback).
 * Unless allow_shared, a user that others share is refused: the overflow
 * user (nobody), one that owns its home directory, one that other
 * processes run as (pingsockd instances aside), one whose primary group
 * is not its own alone (privdrop_group_alone()).
 * Started without root (relay mode with CAP_NET_RAW alone), the user is
 * the one it runs as, and user, if given, must name it.
 */
int privdrop_resolve(const char *user, bool allow_shared,
		     struct drop_target *t, char *err, size_t errlen);

/*
 * gid is no one else's: not 0, no other account's primary group, no
 * other member, in nobody's /etc/subgid range (a user namespace could
 * map it).  what names it in the message.  0, or -1 with err filled.
 */
int privdrop_group_alone(gid_t gid, uid_t user_uid, const char *user_name,
			 const char *what, char *err, size_t errlen);
int privdrop_apply(const struct drop_target *t, char *err, size_t errlen);

/* Is capability cap (CAP_*) effective?  CAP_NET_RAW: a start without root
 * may serve relay mode; CAP_SYS_CHROOT: the sandbox may chroot. */
bool privdrop_has_cap(int cap);

#endif
