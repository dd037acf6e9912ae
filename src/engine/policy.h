/*
 * policy - the daemon's configuration file, parsed from text.
 *
 *   # comment
 *   groups = LOW HIGH     gids allowed to open sockets, with the meaning of
 *                         net.ipv4.ping_group_range ("1 0": nobody);
 *                         default: every gid
 *   min_interval = MS     least time between two requests of one socket;
 *                         a send that comes sooner waits (EAGAIN with
 *                         MSG_DONTWAIT); default 0, no limit
 *   ident_keep = yes|no   whether PINGSOCK_IDENT=keep may bind a socket to
 *                         the identifier its program wrote; default yes
 *
 * A malformed file is refused as a whole with "FILE:LINE: reason", so a
 * reload with a bad file keeps the policy in force.
 */
#ifndef PS_POLICY_H
#define PS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct policy {
	uint32_t gid_low, gid_high;
	uint32_t min_interval_ms;	/* between two sends of one socket */
	bool ident_keep;		/* WIRE_KEEPID allowed */
};

void policy_default(struct policy *p);

/*
 * Parse text (len bytes, need not be NUL-terminated).  On error returns -1
 * and writes "name:line: reason" into err; *p is left untouched.
 */
int policy_parse(struct policy *p, const char *text, size_t len,
		 const char *name, char *err, size_t errlen);

/* The egid or any supplementary gid in range, as the kernel's ping_group_range. */
bool policy_gid_allowed(const struct policy *p, gid_t egid,
			const gid_t *groups, size_t ngroups);

#endif
