/* SPDX-License-Identifier: ISC */
/*
 * broker - broker mode: pingsockd makes real kernel ping sockets and
 * hands them to its clients (SCM_RIGHTS), so that every call after
 * socket() is a plain kernel call, at the kernel's speed and with its
 * exact semantics.
 *
 * Only the daemon's own group may make such sockets (rangekeep.h), so a
 * client cannot make one without asking: the daemon checks its policy
 * (groups, max_sockets, relay_uids) and binds each socket before handing
 * it out, to an identifier no other user holds, explicitly, so that the
 * client can neither unbind it nor bind it again (broker_bind()).  A
 * client's own bind() on a socket not used yet is a request: a new socket
 * bound as asked, which the library puts on the same descriptor.
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

/* What bind() looks at, as the client's socket has it. */
struct broker_bindopts {
	bool reuse;		/* SO_REUSEADDR (a ping socket's default) */
	/* May a chosen identifier be shared (reuse on for the bind)?  Only
	 * with the caller's own sockets: else the bind is made with reuse
	 * off, so that the kernel refuses an identifier any socket holds,
	 * whatever the daemon's records say (a socket the listing missed,
	 * one made outside the daemon). */
	bool share;
	bool freebind;		/* IP_FREEBIND, IPV6_FREEBIND */
	int ifindex;		/* SO_BINDTOIFINDEX, 0: none */
};

/* How an automatic identifier is chosen: the next of the rover's that
 * ident_ok() accepts (free of relay sockets and other users'). */
struct broker_pick {
	uint16_t *rover;
	bool (*ident_ok)(void *ctx, uint16_t ident);
	void *ctx;
};

/*
 * A new kernel ping socket of this family with the options o, bound to
 * sa: to the identifier sa names, or if it names 0 to one pick chooses
 * that the kernel also finds free (SO_REUSEADDR off for that bind).
 * Either way the port is given explicitly, which sets the kernel's bind
 * lock: the holder can neither unbind the socket (connect(AF_UNSPEC)
 * unhashes only a socket bound to port 0) nor bind it again (EINVAL), so
 * it keeps the identifier the daemon allowed for as long as it exists.
 * Afterwards SO_REUSEADDR is as o says.  *fd (close-on-exec) and *ident
 * on success; the kernel's -errno otherwise.
 */
int broker_bind(int family, const struct broker_bindopts *o,
		const uint8_t *sa, uint32_t len,
		const struct broker_pick *pick, int *fd, uint16_t *ident);

/* The identifier a bind() to sa asks for (0: any); -1 if sa has none. */
int broker_sa_ident(const uint8_t *sa, uint32_t len);

#endif
