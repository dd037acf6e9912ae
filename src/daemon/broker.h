/*
 * broker - broker mode: pingsockd makes real kernel ping sockets and
 * hands them to its clients (SCM_RIGHTS), so that every call after
 * socket() is a plain kernel call, at the kernel's speed and with its
 * exact semantics.
 *
 * Only the daemon's own group may make such sockets (rangekeep.h), so a
 * client cannot make one without asking: the daemon checks its policy
 * (groups, max_sockets, relay_uids) and binds each socket before handing
 * it out, to an identifier the kernel picks, so that the client cannot
 * bind it again (EINVAL) to an identifier another user holds.  A client's
 * own bind() is a request (broker_rebind): a new socket bound as asked,
 * which the library puts on the same descriptor.
 *
 * What the kernel does not offer cannot be enforced here: no per-packet
 * rate limit, no destination policy, no request log.  Users that need
 * those are served by relay (relay_uids).
 */
#ifndef PSD_BROKER_H
#define PSD_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/policy.h"

struct pstab;

/* Which families broker mode serves; both false: relay only. */
struct broker_plan {
	bool v4, v6;
	gid_t gid;	/* the group kept after the drop */
};

/*
 * As root, before the privilege drop.  For mode relay, a plan of none.
 * For broker and auto: resolve broker_group (default user_gid), check
 * that no user has that group, that the kernel has ping sockets and that
 * the range is free to take (rangekeep_claim), claim it and check that
 * the group may now make the sockets.  broker fails with err filled;
 * auto falls back to relay with a log line saying why.
 */
int broker_setup(const struct policy *p, uid_t user_uid, gid_t user_gid,
		 const char *user_name, struct broker_plan *plan, char *err,
		 size_t errlen);

/*
 * A new kernel ping socket of this family, bound to an identifier the
 * kernel picks that no relay socket in tab uses.  *fd (close-on-exec) and
 * *ident on success; -errno otherwise.
 */
int broker_socket(int family, const struct pstab *tab, int *fd,
		  uint16_t *ident);

/*
 * bind() for a client's socket old (the one handed out): a new socket of
 * the same family with the options that decide what bind allows copied
 * from old (SO_REUSEADDR, the bound device, IP_FREEBIND), bound to sa.
 * The kernel's errno on failure.  *fd and *ident on success.
 */
int broker_rebind(int family, int old, const uint8_t *sa, uint32_t len,
		  int *fd, uint16_t *ident);

/* The identifier a bind() to sa asks for (0: any); -1 if sa has none. */
int broker_sa_ident(const uint8_t *sa, uint32_t len);

#endif
