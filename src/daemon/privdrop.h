/*
 * privdrop - give up everything after start-up: supplementary groups,
 * the real/effective/saved ids, every capability (effective, permitted,
 * inheritable, ambient and the bounding set), then no_new_privs.  Each
 * step is checked; any failure stops start-up (fail closed).
 */
#ifndef PSD_PRIVDROP_H
#define PSD_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

struct drop_target {
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* user NULL: "pingsock" if that user exists, else "nobody". */
int privdrop_resolve(const char *user, struct drop_target *t, char *err,
		     size_t errlen);
int privdrop_apply(const struct drop_target *t, char *err, size_t errlen);

#endif
