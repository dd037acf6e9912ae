/* SPDX-License-Identifier: ISC */
/*
 * bscan - what the kernel says of the broker's sockets: bsock_scan()
 * reads /proc/net/icmp and icmp6 (once a second, and soon after a
 * liveness pair hangs up, as often as SCANS_PER_S and SCAN_REST allow)
 * for the identifiers the kernel's ping sockets hold and which of the
 * records' sockets are gone, and frees the records that are done with,
 * a share at a time.
 */
#include "daemon/srv.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/broker.h"
#include "daemon/hostenv.h"
#include "daemon/log.h"

#define SCANS_PER_S 50		/* /proc scans clients can cause, a second */
#define SCANS_BURST 10
/*
 * A scan costs the more the more ping sockets the host has (4,000: about
 * 10 ms of processor time, most of it the kernel printing the lines).
 * After one that cost more than SCAN_CHEAP_NS, the scans clients cause
 * wait SCAN_REST times its cost: at most a tenth of the
 * daemon's time goes to them, whatever the host holds.  A cheaper one
 * leaves the next to SCANS_PER_S alone (at most 5 % of the time), so
 * that on a host of a few sockets a user's count follows its closes at
 * once.  (2,000 pings started at once close 2,000 IPv6 sockets, a
 * scan asked for each: at 50 a second they kept the daemon busy, and
 * some of the pings' socket() calls waited 10 s for an answer.)
 */
#define SCAN_REST 9
#define SCAN_CHEAP_NS 1000000u

/*
 * Reading /proc/net/icmp costs the more the more sockets the host has:
 * what clients can make the daemon read is bounded, SCANS_PER_S a second
 * (SCANS_BURST at once), beyond the one a second it reads anyway.
 */
static uint64_t scan_wait(const struct server *s, uint64_t now)
{
	uint64_t wait = rate_wait(&s->scans, now, SCANS_PER_S, SCANS_BURST);

	if (s->scan_rest_ns > now + wait)
		wait = s->scan_rest_ns - now;
	return wait;
}

bool bsock_scan_allowed(struct server *s, uint64_t now)
{
	if (scan_wait(s, now))
		return false;
	rate_take(&s->scans, now, SCANS_PER_S, SCANS_BURST);
	return true;
}

/* The processor time this thread has had: what a scan costs, not the
 * time others had the processor meanwhile (on a busy host). */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The work a scan does besides reading the kernel's lists: the guard's
 * maps pruned (at most once a second: a walk of a map costs about 0.3 ms
 * even empty, the kernel looking through every bucket) and the records
 * freed (REAP_MAX).  Not what SCAN_REST measures: on a host of a few
 * sockets it made every scan look dear (1.1 ms), and a user at
 * max_sockets who had just closed one was refused for 10 ms after each.
 */
static uint64_t house_ns;

static uint64_t house_start(void)
{
	return cpu_ns();
}

static void house_end(uint64_t t0)
{
	house_ns += cpu_ns() - t0;
}

static int ino_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The identifiers our records' kernel sockets hold, into the listing's
 * bitmap: a socket the read missed (below) still holds its own. */
static void records_into(const struct server *s, int family, uint8_t *bitmap)
{
	for (uint32_t i = 1; i < s->nslots; i++) {
		const struct ssock *d = s->slots[i].ss;

		for (int k = 0; d && d->broker && d->family == family && k < 2;
		     k++)
			if (d->k[k].ino)
				bitmap[d->k[k].ident / 8] |=
					(uint8_t)(1u << (d->k[k].ident % 8));
	}
}

/*
 * The guard's identifier entries that no socket holds go.  /proc/net/icmp
 * can miss a socket while others come and go during the read (it is read
 * by position), so an entry goes only if neither a record of ours holds
 * its identifier nor the kernel listed it (held: records_into()), in two
 * reads in a row.
 */
static void prune_idents(struct server *s, int family, const uint8_t *held)
{
	static uint8_t missed[2][65536 / 8], keep[65536 / 8];
	uint8_t *m = missed[family == AF_INET6];

	memcpy(keep, held, sizeof(keep));
	for (size_t i = 0; i < sizeof(keep); i++) {
		uint8_t gone = (uint8_t)~keep[i];

		keep[i] |= (uint8_t)~m[i];	/* missed once: kept once more */
		m[i] = gone;
	}
	guard_prune_idents(s->conf.guard, family, keep);
}

/* Read /proc/net/icmp and icmp6: the identifiers of the kernel's sockets
 * for relay's automatic binding, and which of ours still exist. */
static bool read_kernel(struct server *s, unsigned long **inos, size_t *n)
{
	static uint8_t bitmap[65536 / 8];
	struct hostenv_scan sc = { .bitmap = bitmap,
				   .owner = (uint32_t)s->conf.self_uid };
	uint64_t now = loop_now_ns();
	/* The guard's identifiers, against the list: once a second (a walk
	 * of its map), not at every scan a hang-up asks for. */
	bool ok = true, prune = s->conf.guard && now >= s->idents_pruned_ns;

	if (prune)
		s->idents_pruned_ns = now + 1000000000u;

	/* ours, and some made meanwhile (grown as needed: hostenv.h) */
	sc.cap = s->nbroker ? s->nbroker + 64 : 0;
	sc.inos = sc.cap ? calloc(sc.cap, sizeof(*sc.inos)) : NULL;
	if (!sc.inos)
		sc.cap = 0;	/* none wanted, or no memory: not complete */
	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET6 : AF_INET;

		if (hostenv_kernel_scan(s->conf.host, family, &sc) == 0) {
			records_into(s, family, bitmap);
			pstab_set_foreign(s->tab, family, bitmap);
			if (prune) {
				uint64_t t0 = house_start();

				prune_idents(s, family, bitmap);
				house_end(t0);
			}
		} else {
			ok = false;
		}
	}
	if (sc.overflow || (s->nbroker && !sc.inos))
		ok = false;	/* not all seen: none may be declared gone */
#ifdef PSD_TESTING
	/* The test build may read the listing blind to its own sockets
	 * (PINGSOCKD_TEST_SCAN_BLIND set), as the worst race with sockets
	 * closing around the reads would (broker.sh). */
	if (getenv("PINGSOCKD_TEST_SCAN_BLIND"))
		sc.n = 0;
#endif
	if (sc.inos)
		qsort(sc.inos, sc.n, sizeof(*sc.inos), ino_cmp);
	*inos = sc.inos;
	*n = sc.n;
	return ok;
}

/* Is the kernel socket still there? */
static bool ino_listed(unsigned long ino, const unsigned long *inos, size_t n)
{
	return bsearch(&ino, inos, n, sizeof(*inos), ino_cmp) != NULL;
}

/*
 * Broker sockets are counted for as long as they exist, whoever holds
 * them (a child, another process, a copy kept across a bind): the kernel
 * lists each of its ping sockets in /proc/net/icmp until the last copy is
 * closed.  A record goes when its sockets are gone and its liveness pair
 * hung up; only then is it closed in the audit.
 */
static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The cookies of the records' sockets, sorted, for cookie_known(). */
struct cookies {
	uint64_t *v;
	size_t n;
};

static bool cookie_known(void *ctx, uint64_t cookie)
{
	const struct cookies *c = ctx;

	return bsearch(&cookie, c->v, c->n, sizeof(*c->v), u64_cmp) != NULL;
}

/* Close records nobody will take (an earlier daemon's sockets) go; ours
 * stay for the scan that sees their socket gone.  O(n log n). */
static void prune_closed(struct server *s)
{
	struct cookies c = { calloc(2 * (size_t)s->nslots + 1, sizeof(uint64_t)),
			     0 };

	if (!c.v)
		return;
	for (uint32_t i = 1; i < s->nslots; i++) {
		const struct ssock *d = s->slots[i].ss;

		for (int k = 0; d && d->broker && k < 2; k++)
			if (d->k[k].cookie)
				c.v[c.n++] = d->k[k].cookie;
	}
	qsort(c.v, c.n, sizeof(*c.v), u64_cmp);
	guard_prune_closed(s->conf.guard, cookie_known, &c);
	free(c.v);
}

/*
 * Is kernel socket k of d gone?  Only when two complete reads in a row
 * did not list it: one read of /proc/net/icmp can miss a line while
 * sockets ahead of it close (it is read a page at a time, by position),
 * and another user can close sockets at will.  *again: read once more
 * (missed once).
 */
static bool ksock_gone(struct ksock *ks, const unsigned long *inos, size_t n,
		       bool *again)
{
	if (ino_listed(ks->ino, inos, n)) {
		ks->missed = 0;
		return false;
	}
	if (++ks->missed >= 2)
		return true;
	*again = true;
	return false;
}

/*
 * Missed in two reads, but the guard has not seen the socket's release:
 * it is open still, and a user closing sockets by the thousand around
 * both reads made the listing skip its line (rv13: another user's socket
 * lost its counts, its place in its user's limits and, a second later,
 * its identifier in the guard, which then dropped its replies).  Looked
 * for again.  Without the guard, or once its holder hung up, the two
 * reads decide.
 */
static bool release_unseen(struct server *s, struct ssock *d, int k)
{
	if (!s->conf.guard || !d->k[k].cookie || d->live_gone ||
	    !guard_alive(s->conf.guard, d->k[k].cookie))
		return false;
	d->k[k].missed = 0;
	return true;
}

/*
 * Records whose sockets are gone and whose holders hung up are freed
 * REAP_MAX at a time, a share a turn from where the last share stopped
 * (s->reap_from), others' work in between: each costs the guard's
 * bpf() calls, a close and an audit line (about 10 us), and 2,000 pings
 * that exit together would otherwise stall the loop for all of them in
 * one go (20,000: 0.2 s).
 */
#define REAP_MAX 256

static bool reapable(const struct ssock *d)
{
	return d && d->broker && d->live_gone && !d->k[0].ino && !d->k[1].ino;
}

/* Up to REAP_MAX records freed from s->reap_from on; true if it stopped
 * short of the last slot (the rest in a later turn). */
static bool reap_share(struct server *s)
{
	unsigned n = 0;
	uint32_t i = s->reap_from ? s->reap_from : 1;

	for (; i < s->nslots && n < REAP_MAX; i++) {
		struct ssock *d = s->slots[i].ss;

		if (reapable(d)) {
			bsock_free(s, d);
			n++;
		}
	}
	s->reap_from = i < s->nslots ? i : 1;
	return i < s->nslots;
}

/* One share a turn of the loop: a share done in this turn's events (a
 * scan a client caused) leaves the timer's to the next turn. */
void bsock_reap_timer(void *data)
{
	struct server *s = data;
	uint64_t turn = loop_turns(s->loop);
	bool more = true;

	if (s->reap_turn != turn) {
		s->reap_turn = turn;
		more = reap_share(s);
	}
	if (more)
		loop_at(s->loop, &s->reap_timer, loop_now_ns() + 1);
}

static bool scan_read(struct server *s)
{
	unsigned long *inos = NULL;
	size_t n = 0;
	bool complete = read_kernel(s, &inos, &n), again = false;
	uint32_t nreap = 0;
	uint64_t t0;

	loop_cancel(s->loop, &s->scan_timer);
	for (uint32_t i = 1; complete && i < s->nslots; i++) {
		struct ssock *d = s->slots[i].ss;

		if (!d || !d->broker)
			continue;
		for (int k = 0; k < 2; k++)
			if (d->k[k].ino && ksock_gone(&d->k[k], inos, n, &again) &&
			    !release_unseen(s, d, k))
				bsock_drop(s, d, k);
		nreap += reapable(d);
	}
	free(inos);
	t0 = house_start();
	/* A pass over the slots only when there is something to free. */
	if (nreap && !loop_pending(&s->reap_timer)) {
		s->reap_from = 1;
		bsock_reap_timer(s);
	}
	/* An earlier daemon's records: once a second, as the identifiers. */
	if (complete && s->conf.guard && loop_now_ns() >= s->closed_pruned_ns) {
		s->closed_pruned_ns = loop_now_ns() + 1000000000u;
		prune_closed(s);
	}
	house_end(t0);
	return again;
}

void bsock_scan(struct server *s)
{
	uint64_t h0 = house_ns, t0 = cpu_ns(), cost;
	bool again = scan_read(s);

	/* A socket missed once is looked for again at once (ksock_gone);
	 * one missed in that read too, soon. */
	if (again)
		again = scan_read(s);
	cost = cpu_ns() - t0;
	cost = cost > house_ns - h0 ? cost - (house_ns - h0) : 0;
	if (cost > SCAN_CHEAP_NS)
		s->scan_rest_ns = loop_now_ns() + SCAN_REST * cost;
	if (again)
		bsock_scan_soon(s);
}

void bsock_scan_timer(void *data)
{
	bsock_scan(data);
}

void bsock_scan_soon(struct server *s)
{
	uint64_t now = loop_now_ns(), wait;

	if (loop_pending(&s->scan_timer))
		return;
	wait = scan_wait(s, now);
	rate_take(&s->scans, now + wait, SCANS_PER_S, SCANS_BURST);
	loop_at(s->loop, &s->scan_timer, now + wait);
}
