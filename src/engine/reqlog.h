/* SPDX-License-Identifier: ISC */
/*
 * reqlog - the recent Echo Requests of one socket, so that a reply or an
 * error is delivered only if it answers a request the socket really sent
 * (design.md: stricter than the kernel, which trusts the identifier alone).
 *
 * Each entry keeps the request's sequence field as sent and whether it was
 * an RFC 8335 PROBE (Extended Echo Request), so that an Echo Reply does
 * not answer a PROBE, nor an Extended Echo Reply an Echo Request.
 *
 * Entries are kept in sending order in a ring, indexed by sequence number
 * and destination (a salted hash); the same request sent again replaces
 * the one before.  The ring grows while its oldest entry is younger than
 * REQLOG_KEEP_S, more than half of it is live and the caller allows it
 * (reqlog_may_grow(): the user's memory), so a fast sender with slow
 * replies loses nothing; otherwise it recycles the oldest, so memory
 * follows the rate of requests, not their total.
 */
#ifndef PS_REQLOG_H
#define PS_REQLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/addr.h"
#include "engine/icmp.h"

#define REQLOG_KEEP_S 120
#define REQLOG_MAX 65536

struct reqlog;

/* salt: of the buckets' hash, so that no one can choose requests that
 * share a chain (the daemon's is random); reqlog_new(): salt 0. */
struct reqlog *reqlog_new_salted(uint64_t salt);
struct reqlog *reqlog_new(void);
void reqlog_free(struct reqlog *log);
/*
 * Record a request: probe, an Extended Echo Request; seq, its 16-bit
 * sequence field as sent.  any_src: a reply may come from any address
 * (multicast, broadcast).  Returns 0 (out of memory to grow, the log
 * recycles its oldest request instead).
 */
int reqlog_add(struct reqlog *log, bool probe, uint16_t seq,
	       const struct ps_addr *dst, bool any_src, uint64_t now_s);
/* Forget every request (they went with an identifier given up). */
void reqlog_clear(struct reqlog *log);
/*
 * Did we send the request that seq names (as how says: an Echo Request
 * with this sequence field, a PROBE with this one, or a PROBE with this
 * sequence number, the field's high byte) to src, or to a group src may
 * answer for?
 */
bool reqlog_match(const struct reqlog *log, enum icmp_match how, uint16_t seq,
		  const struct ps_addr *src);
unsigned reqlog_count(const struct reqlog *log);
/*
 * What the next reqlog_add() at now_s would allocate beyond what the log
 * holds, if allowed to grow (0: it would not), so that the caller can
 * charge it to the socket's user first; reqlog_may_grow(log, false) makes
 * the adds recycle the oldest entry instead, until allowed again.
 * reqlog_bytes(): what the log holds beyond its first size.
 */
size_t reqlog_growth(const struct reqlog *log, uint64_t now_s);
void reqlog_may_grow(struct reqlog *log, bool may);
size_t reqlog_bytes(const struct reqlog *log);
/* The entries reqlog_match() looks at for this reply (for the tests: a
 * reply must not walk every request with its seq). */
unsigned reqlog_match_cost(const struct reqlog *log, enum icmp_match how,
			   uint16_t seq, const struct ps_addr *src);
/* Chain links followed, in all, to forget old entries (for the tests:
 * forgetting one must not cost a walk). */
uint64_t reqlog_steps(const struct reqlog *log);

#endif
