/* SPDX-License-Identifier: ISC */
/*
 * uidtab - what the daemon counts per user, and the rules that keep one
 * user from starving another:
 *
 *   conns      control connections (max_connections);
 *   sockets    open sockets: relayed ones, and the kernel sockets handed
 *              out in broker mode for as long as they exist (max_sockets);
 *   idents     identifiers held (max_idents): relayed and raw-compat
 *              sockets' (the engine's gate, pstab_set_gate()), broker
 *              sockets';
 *   fds        descriptors the daemon holds for the user's connections
 *              and sockets;
 *   reqlog     KiB of its sockets' request logs past their first size
 *              (the engine's memory gate, pstab_set_mem_gate());
 *   parked     bytes of sends waiting for their time (rate, min_interval);
 *   errq       bytes of records on the error queues of its sockets;
 *   bucket     the send rate's token bucket (rate, burst);
 *   audit      the budget of its sockets' audit records and what was
 *              held back of them since the last summary (audit.c);
 *   logq       the budget of each class of log lines about it, and
 *              what was held back (log.h: log_limited_uid()).
 *
 * Shares that run short for everyone (the daemon's descriptors, the
 * 65,535 identifiers) are rationed: once less than a 32nd is left (the
 * reserve: small, so that one user alone, 2,000 pings of the 2010 test,
 * still has nearly all), a user who holds at least the average of the
 * users holding any is refused, so the heaviest is refused and a light
 * one still served from the reserve; and so is one who holds as much as
 * an equal part of what is left, shared with the holders and one user
 * more, so that users who come one after another cannot take it all: a
 * user who holds none is served while any is left.
 * An entry lives while any of it is in use, a bucket is not full or a
 * count held back is not yet said: the budgets of a user's log records
 * must outlive its sockets and connections, or one who lets go of all
 * of them for a second had a full budget again.
 */
#ifndef PS_UIDTAB_H
#define PS_UIDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/rate.h"

/* Log lines of one class about one user: its budget, and how many were
 * not written since the last summary. */
struct uid_logq {
	struct rate_bucket bucket;
	uint32_t held;
};

#define UID_LOG_CLASSES 3	/* log.h: enum log_class, LOGC_END */

/* What the audit records of a user's sockets held back (audit.c): the
 * sockets whose records were not written, and their counters, until the
 * next summary says them. */
struct uid_audit {
	struct rate_bucket bucket;
	uint32_t opened, closed;
	uint64_t requests, replies, errors, drops;
};

struct uident {
	uid_t uid;
	unsigned conns;
	unsigned nsockets;
	unsigned nbroker;	/* of them, kernel sockets (broker mode) */
	unsigned idents;
	unsigned fds;
	unsigned reqlog_kib;
	uint32_t parked;	/* bytes */
	uint32_t errq;		/* bytes */
	uint32_t pairbuf;	/* data pairs' buffers past their base */
	unsigned pairs_full;	/* data pairs at the default base */
	uint32_t dests;		/* bytes of its sockets' audit destination
				 * sets (audit.c) */
	struct rate_bucket bucket;
	struct rate_bucket dials;	/* new connections (client.c) */
	/* Counted while the entry lives (WIRE_USERS): they keep nothing
	 * alive, so that what is exported stays bounded by what is held. */
	uint64_t requests;	/* echo requests sent */
	uint64_t refused;	/* connections, sockets, sends refused */
	struct uid_audit audit;
	struct uid_logq logq[UID_LOG_CLASSES];
	struct uident *next;
};

enum uid_share { UID_FDS, UID_IDENTS, UID_REQLOG, UID_SHARES };

#define UID_RESERVE(cap) ((cap) / 32 > 16 ? (cap) / 32 : 16)

struct uidtab;

struct uidtab *uidtab_new(void);
void uidtab_free(struct uidtab *t);
/* The entry of uid; with create, made if missing (NULL: no memory). */
struct uident *uidtab_get(struct uidtab *t, uid_t uid, bool create);
/* Forget the users with nothing left to remember at now. */
void uidtab_prune(struct uidtab *t, uint64_t now);
/* fn(e, ctx) for every entry (which fn must not remove). */
void uidtab_each(struct uidtab *t, void (*fn)(struct uident *e, void *ctx),
		 void *ctx);
/* Users with an entry, for the statistics. */
unsigned uidtab_count(const struct uidtab *t);
/*
 * The entries of the least uids from uid from on, at most max of them,
 * ascending, into out; *more: an entry past them exists.  The number put.
 */
size_t uidtab_page(const struct uidtab *t, uid_t from,
		   const struct uident **out, size_t max, bool *more);

/* Count n more (or fewer: negative) of a share for e, and in total. */
void uidtab_add(struct uidtab *t, struct uident *e, enum uid_share what,
		int n);
/* The total of a share over all users. */
unsigned uidtab_total(const struct uidtab *t, enum uid_share what);
/*
 * May e take want more of a share of which cap exist in all?  Not when
 * that would leave less than UID_RESERVE(cap) and e holds at least the
 * average of the users holding any of it, or as much as what is left
 * divided among them and one more.
 */
bool uidtab_may_take(const struct uidtab *t, const struct uident *e,
		     enum uid_share what, unsigned want, unsigned cap);

#endif
