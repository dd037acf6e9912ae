/* SPDX-License-Identifier: ISC */
#include "engine/psflow.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "engine/psock_int.h"
#include "wire/in6ext.h"

#define FL_LABEL_MASK htonl(0x000FFFFFu)
/* IPV6_FLOWLABEL_STATELESS_FLAG: net.ipv6.flowlabel_state_ranges keeps
 * the labels with it for stateless use. */
#define FL_STATELESS htonl(0x00080000u)
#define FL_MIN_LINGER 6		/* seconds: what 0 (or less) asks for */
#define FL_MAX_LINGER 150	/* seconds, without CAP_NET_ADMIN */
#define FL_MAX_PER_SOCK 32
#define FL_MAX_SIZE 4096	/* labels, held or lingering */
/* A uid's leases made, held or lingering, at most: 16 sockets' worth.
 * The kernel has no such bound (its table is a namespace's, and so is
 * the daemon's); without it one user's 3,072 left every other user's
 * IPV6_FL_F_CREATE ENOBUFS, for up to 150 s after they were given up. */
#define FL_MAX_PER_UID 512

/*
 * A lease.  Like the kernel's, it outlives its last holder: released
 * (users 0) it lingers until expires, and while it lingers a get with
 * IPV6_FL_F_CREATE finds it (EEXIST with IPV6_FL_F_EXCL, EPERM for
 * another share mode, else it is taken up again), a get without does
 * not (ENOENT), and "any" never hands it out.
 */
struct flent {
	struct in6_addr dst;	/* the lease's destination, as created */
	uint32_t label;		/* network order */
	uint8_t share;
	uint32_t uid;
	int32_t pid;
	unsigned users;
	uint32_t linger_ms;	/* kept this long after the last release */
	uint64_t expires_ms;	/* and at least until then */
};

/* The leases, sorted by label: a lookup is a binary search, so that
 * closing a socket that joined thousands costs thousands of steps, not
 * millions. */
struct psflow {
	struct flent *v;
	size_t n, cap;
	uint32_t rng;		/* xorshift32 state, never 0 */
	uint64_t steps;		/* leases looked at, ever (psflow_steps()) */
};

uint64_t psflow_steps(const struct psflow *f)
{
	return f->steps;
}

struct psflow *psflow_new(uint32_t seed)
{
	struct psflow *f = calloc(1, sizeof(struct psflow));

	if (f)
		f->rng = seed ? seed : 0x9e3779b9u;
	return f;
}

void psflow_free(struct psflow *f)
{
	if (f)
		free(f->v);
	free(f);
}

/* Where label is, or would go, in f->v. */
static size_t place(struct psflow *f, uint32_t label)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		f->steps++;
		if (ntohl(f->v[mid].label) < ntohl(label))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct flent *lookup(struct psflow *f, uint32_t label)
{
	size_t i = place(f, label);

	return i < f->n && f->v[i].label == label ? &f->v[i] : NULL;
}

/* ip6_fl_gc(): a lease nobody holds goes once it has expired (the
 * order kept). */
static void expire(struct psflow *f, uint64_t now_ms)
{
	size_t out = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].users || now_ms < f->v[i].expires_ms)
			f->v[out++] = f->v[i];
	f->n = out;
}

/* fl_release(), n times: the last holder gone, the lease lingers from
 * now. */
static void release_n(struct flent *e, unsigned n, uint64_t now_ms)
{
	e->users -= n < e->users ? n : e->users;
	if (e->users == 0 && e->expires_ms < now_ms + e->linger_ms)
		e->expires_ms = now_ms + e->linger_ms;
}

static void release(struct flent *e, uint64_t now_ms)
{
	release_n(e, 1, now_ms);
}

static void drop_users(struct psflow *f, uint32_t label, unsigned n,
		       uint64_t now_ms)
{
	struct flent *e = lookup(f, label);

	if (e)
		release_n(e, n, now_ms);
}

/* check_linger(): seconds asked for into ms; 0 past FL_MAX_LINGER. */
static uint32_t linger_of(uint16_t s)
{
	if (s < FL_MIN_LINGER)
		return FL_MIN_LINGER * 1000u;
	return s > FL_MAX_LINGER ? 0 : s * 1000u;
}

/* fl6_renew() on e: the longer linger, the later expiry. */
static int renew(struct flent *e, uint16_t linger, uint16_t expires,
		 uint64_t now_ms)
{
	uint32_t l = linger_of(linger), x = linger_of(expires);

	if (!l || !x)
		return -EPERM;
	if (e->linger_ms < l)
		e->linger_ms = l;
	if (x < e->linger_ms)
		x = e->linger_ms;
	if (e->expires_ms < now_ms + x)
		e->expires_ms = now_ms + x;
	return 0;
}

/* The socket's entry for label, or NULL. */
static struct psfl_hold *holding(const struct psock *sk, uint32_t label)
{
	for (unsigned i = 0; i < sk->nfld; i++)
		if (sk->fl[i].label == label)
			return &sk->fl[i];
	return NULL;
}

bool psflow_held(const struct psock *sk, uint32_t label)
{
	return holding(sk, label) != NULL;
}

/* fl_link(): the kernel's list has no bound; ours has
 * PS_MAX_FLOWLABELS joins, a bound on the work they cost. */
static int link_label(struct psock *sk, uint32_t label)
{
	struct psfl_hold *h;

	if (sk->nfl >= PS_MAX_FLOWLABELS)
		return -ENOBUFS;
	h = holding(sk, label);
	if (h) {
		h->n++;
		sk->nfl++;
		return 0;
	}
	if (sk->nfld == sk->flcap) {
		unsigned cap = sk->flcap ? 2 * sk->flcap : 4;
		struct psfl_hold *grown;

		if (cap > PS_MAX_FLOWLABELS)
			cap = PS_MAX_FLOWLABELS;
		grown = realloc(sk->fl, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		sk->fl = grown;
		sk->flcap = cap;
	}
	sk->fl[sk->nfld++] = (struct psfl_hold){ .label = label, .n = 1 };
	sk->nfl++;
	return 0;
}

/* A label nobody holds, for a request of label 0 (fl_intern() picks
 * one at random; any unused one will do, unguessable or not). */
static uint32_t fresh_label(struct psflow *f)
{
	for (;;) {
		uint32_t r;

		f->rng ^= f->rng << 13;
		f->rng ^= f->rng >> 17;
		f->rng ^= f->rng << 5;
		r = f->rng & FL_LABEL_MASK;
		if (r && !lookup(f, r))
			return r;
	}
}

/* fl_create(): a lease names a destination, never :: nor a v4-mapped
 * address (ipv6_addr_type() ANY, or MAPPED: ::ffff:0:0/96). */
static int check_dst(const struct in6_addr *dst)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const struct in6_addr any;

	if (memcmp(dst, &any, sizeof(any)) == 0 ||
	    memcmp(dst->s6_addr, mapped, sizeof(mapped)) == 0)
		return -EINVAL;
	return 0;
}

/* fl_create(): the share modes an unprivileged socket may ask for. */
static int check_share(uint8_t share)
{
	switch (share) {
	case IN6EXT_FL_S_EXCL:
	case IN6EXT_FL_S_PROCESS:
	case IN6EXT_FL_S_USER:
	case IN6EXT_FL_S_ANY:
		return 0;
	default:
		return -EINVAL;
	}
}

/* May sk share the existing lease e, asked with share mode share? */
static bool may_share(const struct flent *e, const struct psock *sk,
		      uint8_t share)
{
	if (e->share == IN6EXT_FL_S_EXCL || e->share != share)
		return false;
	if (share == IN6EXT_FL_S_PROCESS && e->pid != sk->pid)
		return false;
	return !(share == IN6EXT_FL_S_USER && e->uid != sk->uid);
}

/* mem_check(): lingering leases count; unprivileged, room runs out
 * well before FL_MAX_SIZE. */
static int mem_check(const struct psflow *f, const struct psock *sk)
{
	long room = FL_MAX_SIZE - (long)f->n;

	if (room > FL_MAX_SIZE - FL_MAX_PER_SOCK)
		return 0;
	if (room <= 0 || sk->nfl >= FL_MAX_PER_SOCK ||
	    (sk->nfl > 0 && room < FL_MAX_SIZE / 2) || room < FL_MAX_SIZE / 4)
		return -ENOBUFS;
	return 0;
}

/* The leases uid made that the table still holds. */
static size_t uid_leases(struct psflow *f, uint32_t uid)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->v[i].uid == uid;
	f->steps += f->n;
	return n;
}

/*
 * The request's own lease joins e (held, or lingering and found again
 * by fl_intern()), in ipv6_flowlabel_get()'s order: EEXIST, EPERM,
 * else linked with the longer linger and the later expiry.  A refused
 * request releases e again (fl_release()), which for a lingering lease
 * starts its linger anew.
 */
static int join(struct flent *e, struct psock *sk,
		const struct in6ext_flreq *q, const struct flent *mine,
		uint64_t now_ms)
{
	int err = 0;

	e->users++;
	if (q->flags & IN6EXT_FL_F_EXCL)
		err = -EEXIST;
	else if (!may_share(e, sk, q->share))
		err = -EPERM;
	else
		err = link_label(sk, q->label);
	if (err) {
		release(e, now_ms);
		return err;
	}
	if (e->linger_ms < mine->linger_ms)
		e->linger_ms = mine->linger_ms;
	if (e->expires_ms < mine->expires_ms)
		e->expires_ms = mine->expires_ms;
	return 0;
}

/* A new lease of label (not leased yet), in its place; zeroed. */
static struct flent *new_entry(struct psflow *f, uint32_t label)
{
	size_t i;

	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct flent *grown = realloc(f->v, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		f->v = grown;
		f->cap = cap;
	}
	i = place(f, label);
	memmove(&f->v[i + 1], &f->v[i], (f->n - i) * sizeof(*f->v));
	f->n++;
	memset(&f->v[i], 0, sizeof(f->v[i]));
	f->v[i].label = label;
	return &f->v[i];
}

/* A lease that was never held, out again. */
static void undo_entry(struct psflow *f, struct flent *e)
{
	size_t i = (size_t)(e - f->v);

	memmove(&f->v[i], &f->v[i + 1], (f->n - i - 1) * sizeof(*f->v));
	f->n--;
}

static int fl_get(struct psflow *f, struct psock *sk,
		  const struct in6ext_flreq *q, bool state_ranges,
		  uint64_t now_ms, uint32_t *label)
{
	struct flent mine = { 0 }, *e;
	int err;

	if (q->flags & IN6EXT_FL_F_REFLECT)
		return -EPERM;	/* net.ipv6.flowlabel_consistency is on */
	if (q->label & ~FL_LABEL_MASK)
		return -EINVAL;
	if (state_ranges && (q->label & FL_STATELESS))
		return -ERANGE;
	/* fl_create(), for every get: the times, the destination, then the
	 * share mode, all before any lookup. */
	err = renew(&mine, q->linger, q->expires, now_ms);
	if (!err)
		err = check_dst(&q->dst);
	if (!err)
		err = check_share(q->share);
	if (err)
		return err;
	*label = q->label;
	e = q->label ? lookup(f, q->label) : NULL;
	if (e && e->users) {
		if (psflow_held(sk, q->label) && (q->flags & IN6EXT_FL_F_EXCL))
			return -EEXIST;
		return join(e, sk, q, &mine, now_ms);
	}
	if (!(q->flags & IN6EXT_FL_F_CREATE))
		return -ENOENT;	/* fl_lookup() skips a lingering lease */
	err = mem_check(f, sk);
	if (!err && sk->nfl >= PS_MAX_FLOWLABELS)
		err = -ENOBUFS;	/* before a lingering lease is touched */
	if (err)
		return err;
	if (e)
		return join(e, sk, q, &mine, now_ms);
	if (uid_leases(f, sk->uid) >= FL_MAX_PER_UID)
		return -ENOBUFS;
	mine.label = q->label ? q->label : fresh_label(f);
	e = new_entry(f, mine.label);
	if (!e)
		return -ENOMEM;
	*e = mine;
	e->share = q->share;
	e->dst = q->dst;
	e->uid = sk->uid;
	e->pid = sk->pid;
	e->users = 1;
	*label = e->label;
	err = link_label(sk, e->label);
	if (err)
		undo_entry(f, e);	/* never leased */
	return err;
}

static int fl_put(struct psflow *f, struct psock *sk, uint32_t label,
		  uint64_t now_ms)
{
	struct psfl_hold *h = holding(sk, label);

	if (!h)
		return -ESRCH;
	if ((sk->flow_label & FL_LABEL_MASK) == label)
		sk->flow_label &= ~FL_LABEL_MASK;
	if (--h->n == 0)
		*h = sk->fl[--sk->nfld];
	sk->nfl--;
	drop_users(f, label, 1, now_ms);
	return 0;
}

int psflow_opt(struct psflow *f, struct psock *sk, const uint8_t *req,
	       uint32_t len, bool state_ranges, uint64_t now_ms,
	       uint32_t *label)
{
	struct in6ext_flreq q;
	struct flent *e;

	*label = 0;
	expire(f, now_ms);
	if (len < sizeof(q))
		return -EINVAL;
	memcpy(&q, req, sizeof(q));
	switch (q.action) {
	case IN6EXT_FL_A_GET:
		return fl_get(f, sk, &q, state_ranges, now_ms, label);
	case IN6EXT_FL_A_PUT:
		if (q.flags & IN6EXT_FL_F_REFLECT)
			return -ENOPROTOOPT;	/* not a TCP socket */
		return fl_put(f, sk, q.label, now_ms);
	case IN6EXT_FL_A_RENEW:
		e = psflow_held(sk, q.label) ? lookup(f, q.label) : NULL;
		return e ? renew(e, q.linger, q.expires, now_ms) : -ESRCH;
	default:
		return -EINVAL;
	}
}

void psflow_release_all(struct psflow *f, struct psock *sk, uint64_t now_ms)
{
	while (sk->nfld) {
		struct psfl_hold h = sk->fl[--sk->nfld];

		drop_users(f, h.label, h.n, now_ms);
	}
	sk->nfl = 0;
	free(sk->fl);
	sk->fl = NULL;
	sk->flcap = 0;
}

size_t psflow_count(const struct psflow *f)
{
	return f->n;
}

/*
 * getsockopt(IPV6_FLOWLABEL_MGR), ipv6_flowlabel_opt_get(): the lease of
 * the label the socket is connected with, if it holds one.  A ping
 * socket has no received flow label to report (IPV6_FL_F_REMOTE: 0) and
 * never reflects one.
 */
int psflow_query(struct psflow *f, const struct psock *sk, uint8_t *buf,
		 uint32_t *len, uint64_t now_ms)
{
	uint32_t want = sk->flow_label & FL_LABEL_MASK;
	struct in6ext_flreq q;
	const struct flent *e;
	uint16_t flags;

	if (*len < sizeof(q))
		return -EINVAL;
	memcpy(&q, buf, sizeof(q));
	if (q.action != IN6EXT_FL_A_GET)
		return -EINVAL;
	flags = q.flags;
	memset(&q, 0, sizeof(q));
	if (!(flags & IN6EXT_FL_F_REMOTE)) {
		e = want && psflow_held(sk, want) ? lookup(f, want) : NULL;
		if (!e)
			return -ENOENT;
		q.label = e->label;
		q.dst = e->dst;
		q.share = e->share;
		q.expires = (uint16_t)(e->expires_ms > now_ms
					       ? (e->expires_ms - now_ms) / 1000
					       : 0);
		q.linger = (uint16_t)(e->linger_ms / 1000);
	}
	memcpy(buf, &q, sizeof(q));
	*len = sizeof(q);
	return 0;
}
