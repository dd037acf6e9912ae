/* SPDX-License-Identifier: ISC */
/*
 * audit - what the daemon counts of each socket and says of it: one
 * record when it opens and one when it closes, with its identifier,
 * requests, replies, errors, drops and distinct destinations (pingsockd(8),
 * AUDIT); and what it counts per user (WIRE_USERS).
 *
 * The records of a user's sockets have a budget, a token bucket in its
 * uidtab entry: AUDIT_BURST sockets at once, then AUDIT_RATE a second,
 * both records of each.  Without it one user opening and closing
 * sockets in a loop had the daemon write 12,000 lines a second (1.7
 * MB/s): a full disk with --log-file, and journald (10,000 lines in 30
 * s a service) or rsyslog (200 in 5 s) dropping every other user's
 * records with the flood's.  Past the budget a socket's records are not
 * written; it is counted, with its counters at its close, and once a
 * second one line per user says what was held back:
 *
 *   event=suppressed uid=U records=N opened=O closed=C requests=...
 *
 * A socket's open and close are kept or held together (the budget is
 * taken at its open), so every written open has its close, and records =
 * opened + closed counts every record not written.  The figures: a ping
 * or a monitoring round opens one socket a target; 200 at once and 10 a
 * second for ever (400 and 20 records) are far past what anyone's use
 * opens, and 20 lines (about 4 kB) a second is what one flooding user
 * can write: 350 MB a day at most, and within journald's and rsyslog's
 * limits for many users at once (pingsockd.service says how many).
 */
#include "daemon/srv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "daemon/log.h"

#define AUDIT_RATE 10
#define AUDIT_BURST 200

static uint64_t addr_hash(const struct ps_addr *a)
{
	uint64_t h = 0xcbf29ce484222325u;	/* FNV-1a, then a mix */
	uint8_t b[1 + 16 + 4];

	b[0] = a->family;
	memcpy(b + 1, a->a, 16);
	memcpy(b + 17, &a->scope, 4);
	for (size_t i = 0; i < sizeof(b); i++)
		h = (h ^ b[i]) * 0x100000001b3u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h ? h : 1;
}

static bool destset_put(uint64_t *t, uint32_t cap, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (t[i] == h)
			return false;
		if (!t[i]) {
			t[i] = h;
			return true;
		}
	}
}

/* d's table twice the size, charged to u (DESTS_UID_MAX): false if it
 * cannot be. */
static bool destset_grow(struct destset *d, struct uident *u)
{
	uint32_t nc = d->cap ? d->cap * 2 : 8;
	uint32_t more = (nc - d->cap) * (uint32_t)sizeof(uint64_t);
	uint64_t *t;

	if (!u || u->dests + more > DESTS_UID_MAX ||
	    !(t = calloc(nc, sizeof(*t))))
		return false;
	for (uint32_t i = 0; i < d->cap; i++)
		if (d->h[i])
			destset_put(t, nc, d->h[i]);
	free(d->h);
	d->h = t;
	d->cap = nc;
	u->dests += more;
	return true;
}

static void destset_add(struct destset *d, const struct ps_addr *a,
			struct uident *u)
{
	uint64_t h = addr_hash(a);

	if (d->cap && !d->capped) {
		for (uint32_t i = (uint32_t)h & (d->cap - 1); d->h[i];
		     i = (i + 1) & (d->cap - 1))
			if (d->h[i] == h)
				return;
	}
	if (d->n >= WIRE_DEST_CAP ||
	    ((d->n + 1) * 2 > d->cap && !destset_grow(d, u))) {
		/* a new one past the cap, or no memory for it (its user's
		 * or the daemon's): say so, not lie */
		d->capped = true;
		return;
	}
	if (destset_put(d->h, d->cap, h))
		d->n++;
}

void audit_forget_dests(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);
	uint32_t bytes = ss->dests.cap * (uint32_t)sizeof(uint64_t);

	if (u)
		u->dests -= bytes < u->dests ? bytes : u->dests;
	free(ss->dests.h);
	ss->dests.h = NULL;
	ss->dests.cap = 0;
}

static const char *family_name(int family)
{
	return family == AF_INET6 ? "inet6" : "inet";
}

void audit_error(struct server *s, struct ssock *ss)
{
	ss->errors++;
	s->audit.errors++;
}

void audit_send_failed(struct server *s, struct ssock *ss, int err)
{
	if (err != -EAGAIN)
		audit_error(s, ss);
}

void audit_sent(struct server *s, struct ssock *ss, const struct ps_addr *dst)
{
	ss->sent++;
	destset_add(&ss->dests, dst, uidtab_get(s->uids, ss->uid, false));
}

/* May the records of a socket of u's be written now?  Takes from its
 * budget; no entry (no memory): written. */
static bool audit_budget(struct uident *u)
{
	uint64_t now = loop_now_ns();

	if (!u)
		return true;
	if (rate_wait(&u->audit.bucket, now, AUDIT_RATE, AUDIT_BURST))
		return false;
	rate_take(&u->audit.bucket, now, AUDIT_RATE, AUDIT_BURST);
	return true;
}

void audit_open(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);

	s->audit.opened++;
	if (!audit_budget(u)) {
		ss->audit_held = true;
		u->audit.opened++;
		return;
	}
	log_info("event=open socket=%u uid=%u pid=%d family=%s%s", ss->handle,
		 (unsigned)ss->uid, (int)ss->pid,
		 family_name(ssock_family(ss)),
		 ss->broker ? " mode=broker" :
		 ps_type(ss->ps) == SOCK_RAW ? " type=raw" : "");
}

/* A held socket's close: its counters into its user's summary.  The
 * entry lives while the socket does (nsockets), and past it until the
 * summary is said (uidtab.h). */
static void audit_hold_close(const struct ssock *ss)
{
	struct uident *u = uidtab_get(ss->srv->uids, ss->uid, false);

	if (!u)
		return;
	u->audit.closed++;
	u->audit.requests += ss->sent;
	u->audit.replies += ss->replies;
	u->audit.errors += ss->errors;
	u->audit.drops += ss->drops;
}

static void audit_say_held(struct uident *u, void *ctx)
{
	struct uid_audit *a = &u->audit;

	(void)ctx;
	log_held(u);	/* its refusals and protocol errors (log.h) */
	if (!a->opened && !a->closed)
		return;
	log_info("event=suppressed uid=%u records=%llu opened=%u closed=%u "
		 "requests=%llu replies=%llu errors=%llu drops=%llu",
		 (unsigned)u->uid,
		 (unsigned long long)a->opened + a->closed, a->opened,
		 a->closed, (unsigned long long)a->requests,
		 (unsigned long long)a->replies,
		 (unsigned long long)a->errors, (unsigned long long)a->drops);
	/* The bucket stays: only what was said starts again. */
	a->opened = a->closed = 0;
	a->requests = a->replies = a->errors = a->drops = 0;
}

void audit_flush(struct server *s)
{
	uidtab_each(s->uids, audit_say_held, NULL);
	log_held(NULL);
}

void audit_close(const struct ssock *ss)
{
	char dests[16];

	if (ss->audit_held) {
		audit_hold_close(ss);
		return;
	}

	if (ss->broker && ss->srv->conf.guard) {
		/* The kernel carried its packets; the guard counted them. */
		snprintf(dests, sizeof(dests), ss->dests.capped ? "%u+" : "%u",
			 ss->dests.n);
		log_info("event=close socket=%u uid=%u pid=%d family=%s "
			 "ident=%u mode=broker destinations=%s requests=%llu "
			 "replies=%llu refused=%llu drops=%llu duration_ms=%llu",
			 ss->handle, (unsigned)ss->uid, (int)ss->pid,
			 family_name(ss->family), ss->k[0].ident, dests,
			 (unsigned long long)ss->sent,
			 (unsigned long long)ss->replies,
			 (unsigned long long)ss->errors,
			 (unsigned long long)ss->drops,
			 (unsigned long long)((loop_now_ns() - ss->opened_ns) /
					      1000000u));
		return;
	}
	if (ss->broker) {
		/* The kernel carried its packets: nothing was counted. */
		log_info("event=close socket=%u uid=%u pid=%d family=%s "
			 "ident=%u mode=broker duration_ms=%llu", ss->handle,
			 (unsigned)ss->uid, (int)ss->pid,
			 family_name(ss->family), ss->k[0].ident,
			 (unsigned long long)((loop_now_ns() - ss->opened_ns) /
					      1000000u));
		return;
	}

	snprintf(dests, sizeof(dests), ss->dests.capped ? "%u+" : "%u",
		 ss->dests.n);
	log_info("event=close socket=%u uid=%u pid=%d family=%s ident=%u "
		 "destinations=%s requests=%llu replies=%llu errors=%llu "
		 "drops=%llu duration_ms=%llu", ss->handle, (unsigned)ss->uid,
		 (int)ss->pid, family_name(ps_family(ss->ps)),
		 ps_ident(ss->ps), dests, (unsigned long long)ss->sent,
		 (unsigned long long)ss->replies,
		 (unsigned long long)ss->errors,
		 (unsigned long long)ss->drops,
		 (unsigned long long)((loop_now_ns() - ss->opened_ns) / 1000000u));
}

/*
 * What the daemon counts per uid, a page from the cursor (the least uid)
 * on: every uid it keeps state for, for root, the caller's own for anyone
 * else (as WIRE_TABLE).
 */
void audit_users(struct server *s, const struct client *c, uint32_t cursor,
		 struct reply *r)
{
	static uint8_t page[WIRE_RESP_BODY_MAX];
	static const struct uident *us[WIRE_USERS_PAGE];
	struct wire_users_hdr h = { .flags = c->uid == 0 ? WIRE_USERS_ALL : 0 };
	bool more = false;

	us[0] = uidtab_get(s->uids, c->uid, false);
	if (h.flags)
		h.count = (uint32_t)uidtab_page(s->uids, cursor, us,
						WIRE_USERS_PAGE, &more);
	else
		h.count = us[0] && us[0]->uid >= cursor;
	if (more)
		h.next = us[h.count - 1]->uid + 1;
	for (uint32_t i = 0; i < h.count; i++) {
		struct wire_user_entry e = { .uid = us[i]->uid,
					     .requests = us[i]->requests,
					     .refused = us[i]->refused };
		struct guard_tally t;

		/* Brokered sockets' sends, as the guard counted them. */
		if (s->conf.guard && guard_user(s->conf.guard, e.uid, &t)) {
			e.requests += t.requests;
			e.refused += t.refused;
		}

		memcpy(page + sizeof(h) + i * sizeof(e), &e, sizeof(e));
	}
	memcpy(page, &h, sizeof(h));
	r->ext = page;
	r->len = sizeof(h) + h.count * sizeof(struct wire_user_entry);
	r->result = 0;
}
