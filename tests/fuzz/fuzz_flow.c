/* SPDX-License-Identifier: ISC */
/*
 * fuzz_flow - libFuzzer target for IPv6 flow label leases
 * (IPV6_FLOWLABEL_MGR, engine/psflow.c through ps_flowlabel_opt() and
 * ps_setopt()) and their use: IPV6_FLOWINFO_SEND, connect() with a flow
 * label, sends with and without a name, getpeername(), on ping and
 * emulated raw sockets of three uids and two processes in one table
 * (and IPv4 sockets, which have no leases).
 *
 * The input is a sequence of operations (see step()): open, lease get /
 * put / renew (any fields, any length, either way in), many gets at
 * once, IPV6_FLOWINFO_SEND and IPV6_V6ONLY, connect, send, getpeername,
 * disconnect, close.  A shadow keeps the leases (label, share mode,
 * creator's uid and pid, linger and expiry) and which socket holds which
 * label how often; each request's result is what the kernel's
 * ipv6_flowlabel_opt() rules give on that state, and a lease lives as
 * long as a socket holds it and then lingers (fl_release(): until the
 * later of its expiry and its linger after the last release; a create
 * finds a lingering lease, a plain get does not).  The table's clock is
 * the input's: a lease request may move it on.  After each step, checks
 * that abort when they fail:
 *  - psflow_held() agrees with the shadow for every socket and every
 *    label the input touched; no socket holds more than 4096 labels
 *    (the daemon's bound: the kernel limits creating a lease, to 32 a
 *    socket, not joining one);
 *  - a label leased exclusively is held once, one leased per user only
 *    by that uid, one per process only by that pid; a label handed out
 *    for "any" was nobody's;
 *  - a connected socket's label (getpeername() with IPV6_FLOWINFO_SEND,
 *    and every send without a name) is 0 or one it holds; a send with a
 *    name carries that name's label only with IPV6_FLOWINFO_SEND;
 *  - closing a socket gives up its leases: a lease nobody holds is not
 *    found by a get without IPV6_FL_F_CREATE (ENOENT).
 *
 * The table is kept from input to input (a new one costs 2 ms): every
 * input closes what it opened, and no lease may be held then; the clock
 * moves on past every linger before the next input.
 *
 * Seeds: tests/fuzz/corpus/fuzz_flow/ (tests/fuzz/gen_seeds.py).
 *   build/fuzz/fuzz_flow -max_total_time=60 NEW tests/fuzz/corpus/fuzz_flow
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psflow.h"
#include "engine/psock.h"
#include "engine/psraw.h"
#include "wire/wire.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* <linux/in6.h> */
#define FLOWINFO_SEND 33	/* IPV6_FLOWINFO_SEND */
#define FLOWLABEL_MGR 32	/* IPV6_FLOWLABEL_MGR */
#define FLOWINFO_CMSG 11	/* IPV6_FLOWINFO */
enum { A_GET = 0, A_PUT = 1, A_RENEW = 2 };
enum { F_CREATE = 1, F_EXCL = 2, F_REFLECT = 4 };
enum { S_EXCL = 1, S_PROCESS = 2, S_USER = 3, S_ANY = 255 };
#define MAX_LINGER 150
#define MIN_LINGER 6
#define MAX_SIZE 4096		/* FL_MAX_SIZE */

#define NSLOT 6
#define PER_SOCK 32		/* FL_MAX_PER_SOCK: creating, not joining */
#define MAX_HELD 4096		/* PS_MAX_FLOWLABELS: the daemon's bound */
#define NSEEN 256
#define SA_MAX 40

struct fl_req {			/* struct in6_flowlabel_req */
	uint8_t dst[16];
	uint32_t label;
	uint8_t action, share;
	uint16_t flags, expires, linger;
	uint32_t pad;
};

static uint32_t label_mask(void)
{
	return htonl(0x000FFFFFu);
}

/* ---- the fake host: ::1 on lo (1), fd00::1 on eth0 (2), fe80::1 on
 * both; 2001:db8:dead::/48 unreachable ---- */

static const uint8_t addr6[][16] = {
	{ [15] = 1 },
	{ 0xfd, [15] = 9 },
	{ 0xfe, 0x80, [15] = 9 },
	{ 0xff, 0x02, [15] = 1 },
	{ [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 },
	{ 0 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0xde, 0xad, [15] = 1 },
	{ 0xfd, [15] = 1 },
};

#define N6 (sizeof(addr6) / sizeof(addr6[0]))

static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	return a->a[0] == 127 ? PS_RTN_LOCAL : PS_RTN_UNICAST;
}

static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   unsigned flags, struct ps_addr *src)
{
	(void)ctx;
	(void)ifindex;
	(void)flags;
	if (dst->family == AF_INET6 && memcmp(dst->a, addr6[6], 6) == 0)
		return -ENETUNREACH;
	if (ps_addr_is_any(src)) {
		if (dst->family == AF_INET) {
			ps_addr_v4(src, htonl(0x7f000001u));
			return 0;
		}
		memset(src, 0, sizeof(*src));
		src->family = AF_INET6;
		memcpy(src->a, addr6[memcmp(dst->a, addr6[0], 16) ? 7 : 0],
		       16);
	}
	return 0;
}

static int f_route_mtu(void *ctx, const struct ps_addr *dst, uint32_t ifindex)
{
	(void)ctx;
	(void)dst;
	return ifindex == 1 ? 65536 : 1500;
}

static bool f_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
		     bool strict)
{
	(void)ctx;
	(void)strict;
	if (memcmp(a->a, addr6[0], 16) == 0)
		return ifindex <= 1;
	if (memcmp(a->a, addr6[7], 16) == 0)
		return ifindex != 1;
	return a->a[0] == 0xfe && a->a[15] == 1 && ifindex;
}

/* flowlabel_state_ranges: off, or on while an op_setopt() says so. */
static struct ps_env env = {
	.addr_type = f_addr_type,
	.route = f_route,
	.dev_index = f_dev_index,
	.dev_name = f_dev_name,
	.route_mtu = f_route_mtu,
	.local6 = f_local6,
	.default_ttl = 64,
	.default_hoplimit = 64,
};

/* ---- sockets, leases and their shadow ---- */

static const uint32_t uids[] = { 1000, 2000, 3000, 1000 };
static const int32_t pids[] = { 500, 600 };

struct slot {
	struct psock *sk;	/* NULL: free */
	uint32_t uid;
	int32_t pid;
	int family;
	bool raw;
	uint32_t fl[MAX_HELD];	/* labels held, network order, repeated
				 * as often as linked */
	unsigned nfl;
};

struct lease {
	uint32_t label;
	uint8_t share;
	uint32_t uid;
	int32_t pid;
	unsigned users;		/* holders; 0: lingering */
	uint64_t linger, expires;	/* ms */
};

static struct pstab *tab;
static struct slot slots[NSLOT];
static struct lease leases[MAX_SIZE];
static unsigned nleases;
static uint32_t seen[NSEEN];	/* labels this input touched */
static unsigned nseen;
static uint32_t fresh;		/* the last label handed out for "any" */
static uint64_t now_ms;		/* the table's clock */

static uint64_t clock_ms(void *ctx)
{
	(void)ctx;
	return now_ms;
}

static unsigned count(const struct slot *s, uint32_t label)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nfl; i++)
		n += s->fl[i] == label;
	return n;
}

static unsigned holders(uint32_t label)
{
	unsigned n = 0;

	for (int i = 0; i < NSLOT; i++)
		n += slots[i].sk ? count(&slots[i], label) : 0;
	return n;
}

static struct lease *lease_of(uint32_t label)
{
	for (unsigned i = 0; i < nleases; i++)
		if (leases[i].label == label)
			return &leases[i];
	return NULL;
}

static void see(uint32_t label)
{
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i] == label)
			return;
	if (nseen < NSEEN)
		seen[nseen++] = label;
}

/* A label's lease and holders, as the engine and the shadow see them. */
static void check_label(uint32_t label)
{
	const struct lease *e = lease_of(label);
	unsigned n = holders(label);

	if (e ? e->users != n : n > 0)
		abort();	/* the shadow itself went wrong */
	for (int i = 0; i < NSLOT; i++) {
		const struct slot *s = &slots[i];

		if (!s->sk || s->family != AF_INET6)
			continue;
		if (psflow_held(s->sk, label) != (count(s, label) > 0))
			abort();
		if (count(s, label) && e->share == S_USER && s->uid != e->uid)
			abort();	/* a user's label, held by another */
		if (count(s, label) && e->share == S_PROCESS &&
		    s->pid != e->pid)
			abort();	/* a process's label, elsewhere */
	}
	if (e && e->share == S_EXCL && n > 1)
		abort();	/* exclusive, held twice */
}

/* fl_release(): one less holder; the last one gone, it lingers. */
static void release(struct lease *e)
{
	if (--e->users == 0 && e->expires < now_ms + e->linger)
		e->expires = now_ms + e->linger;
}

static void drop_label(struct slot *s, unsigned i)
{
	uint32_t label = s->fl[i];

	s->fl[i] = s->fl[--s->nfl];
	release(lease_of(label));
}

/* ip6_fl_gc(): lingering leases past their time go (the engine looks
 * at each request). */
static void expire_leases(void)
{
	for (unsigned i = 0; i < nleases;) {
		if (leases[i].users == 0 && now_ms >= leases[i].expires)
			leases[i] = leases[--nleases];
		else
			i++;
	}
}

/* check_linger(): seconds into ms, 0 (refused) past MAX_LINGER. */
static uint64_t linger_ms(uint16_t sec)
{
	if (sec < MIN_LINGER)
		return MIN_LINGER * 1000u;
	return sec > MAX_LINGER ? 0 : sec * 1000u;
}

/* fl6_renew() on e. */
static void renew(struct lease *e, const struct fl_req *q)
{
	uint64_t l = linger_ms(q->linger), x = linger_ms(q->expires);

	if (e->linger < l)
		e->linger = l;
	if (x < e->linger)
		x = e->linger;
	if (e->expires < now_ms + x)
		e->expires = now_ms + x;
}

/* mem_check(), unprivileged, lingering leases counted. */
static bool no_room(const struct slot *s)
{
	long room = MAX_SIZE - (long)nleases;

	if (room > MAX_SIZE - PER_SOCK)
		return false;
	return room <= 0 || s->nfl >= PER_SOCK ||
	       (s->nfl > 0 && room < MAX_SIZE / 2) || room < MAX_SIZE / 4;
}

static struct slot *pick(uint8_t b)
{
	for (int i = 0; i < NSLOT; i++) {
		struct slot *s = &slots[(b + i) % NSLOT];

		if (s->sk)
			return s;
	}
	return NULL;
}

static bool sndflow(const struct slot *s)
{
	int v = -1;
	uint32_t len = sizeof(v);

	if (s->family != AF_INET6)
		return false;
	if (ps_getopt(s->sk, &env, SOL_IPV6, FLOWINFO_SEND, (uint8_t *)&v,
		      &len) != 0 || (v != 0 && v != 1))
		abort();
	return v;
}

/* A connected socket's label is one it holds (or none). */
static void check_peer(const struct slot *s)
{
	struct sockaddr_in6 s6;
	uint8_t out[SA_MAX];
	uint32_t label;

	if (s->family != AF_INET6 || ps_getname(s->sk, true, out) <= 0)
		return;
	memcpy(&s6, out, sizeof(s6));
	label = s6.sin6_flowinfo & label_mask();
	if (!sndflow(s) ? s6.sin6_flowinfo != 0
			: label && !count(s, label))
		abort();
}

/* ---- lease requests ---- */

static bool share_ok(uint8_t share)
{
	return share == S_EXCL || share == S_PROCESS || share == S_USER ||
	       share == S_ANY;
}

/* fl_get()'s sharing rule of the kernel: same mode, never exclusive,
 * the same process or user where the mode says so. */
static bool may_share(const struct lease *e, const struct slot *s,
		      uint8_t share)
{
	if (e->share == S_EXCL || e->share != share)
		return false;
	if (share == S_PROCESS && e->pid != s->pid)
		return false;
	return !(share == S_USER && e->uid != s->uid);
}

/* The lease e found, held or lingering: EEXIST, EPERM or taken. */
static int expect_join(const struct slot *s, const struct fl_req *q,
		       const struct lease *e)
{
	if (q->flags & F_EXCL)
		return -EEXIST;
	if (!may_share(e, s, q->share))
		return -EPERM;
	return s->nfl >= MAX_HELD ? -ENOBUFS : 0;
}

/* fl_create(): no lease for :: nor a v4-mapped destination. */
static bool bad_dst(const uint8_t *dst)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t any[16];

	return !memcmp(dst, any, 16) || !memcmp(dst, mapped, 12);
}

/* ipv6_flowlabel_get()'s answer on the shadow's state, in its order. */
static int expect_get(const struct slot *s, const struct fl_req *q)
{
	const struct lease *e = q->label ? lease_of(q->label) : NULL;

	if (q->flags & F_REFLECT)
		return -EPERM;
	if (q->label & ~label_mask())
		return -EINVAL;
	if (env.flowlabel_state_ranges && (q->label & htonl(0x80000)))
		return -ERANGE;
	/* fl_create(): the times, the destination, then the share mode */
	if (!linger_ms(q->linger) || !linger_ms(q->expires))
		return -EPERM;
	if (bad_dst(q->dst))
		return -EINVAL;
	if (!share_ok(q->share))
		return -EINVAL;
	if (e && e->users) {
		if (count(s, q->label) && (q->flags & F_EXCL))
			return -EEXIST;
		return expect_join(s, q, e);
	}
	if (!(q->flags & F_CREATE))
		return -ENOENT;	/* fl_lookup() skips a lingering lease */
	if (no_room(s) || s->nfl >= MAX_HELD)
		return -ENOBUFS;
	return e ? expect_join(s, q, e) : 0;
}

static int expect(const struct slot *s, const struct fl_req *q,
		  uint32_t len)
{
	if (s->family != AF_INET6)
		return -ENOPROTOOPT;
	if (len < sizeof(*q))
		return -EINVAL;
	switch (q->action) {
	case A_GET:
		return expect_get(s, q);
	case A_PUT:
		if (q->flags & F_REFLECT)
			return -ENOPROTOOPT;
		return count(s, q->label) ? 0 : -ESRCH;
	case A_RENEW:
		if (!count(s, q->label))
			return -ESRCH;
		return !linger_ms(q->linger) || !linger_ms(q->expires)
			       ? -EPERM : 0;
	default:
		return -EINVAL;
	}
}

/* The shadow after a request the engine granted. */
static void granted(struct slot *s, const struct fl_req *q, uint32_t got)
{
	struct lease mine = { 0 }, *e;

	if (q->action == A_PUT) {
		for (unsigned i = 0; i < s->nfl; i++)
			if (s->fl[i] == q->label) {
				drop_label(s, i);
				break;
			}
		return;
	}
	if (q->action == A_RENEW) {
		renew(lease_of(q->label), q);
		return;
	}
	if (q->action != A_GET)
		return;
	if (!got || (got & ~label_mask()) || (q->label && got != q->label))
		abort();	/* not the label asked for, or none */
	if (!q->label) {
		if (lease_of(got))
			abort();	/* "any" gave a label in use */
		fresh = got;
	}
	if (!lease_of(got)) {
		if (nleases == MAX_SIZE)
			abort();	/* past mem_check() */
		leases[nleases++] = (struct lease){ .label = got,
						    .share = q->share,
						    .uid = s->uid,
						    .pid = s->pid };
	}
	/* the request's own lease merged in (ipv6_flowlabel_get()) */
	e = lease_of(got);
	renew(&mine, q);
	e->users++;
	if (e->linger < mine.linger)
		e->linger = mine.linger;
	if (e->expires < mine.expires)
		e->expires = mine.expires;
	s->fl[s->nfl++] = got;
	see(got);
}

/* A get refused after it found a lingering lease released it again. */
static void refused(const struct fl_req *q, int rc)
{
	struct lease *e = q->label ? lease_of(q->label) : NULL;

	if (q->action == A_GET && e && !e->users &&
	    (rc == -EEXIST || rc == -EPERM) && (q->flags & F_CREATE) &&
	    !(q->flags & F_REFLECT) &&
	    linger_ms(q->linger) && linger_ms(q->expires) &&
	    share_ok(q->share)) {
		e->users++;
		release(e);
	}
}

/*
 * Ask, as the daemon does (ps_flowlabel_opt(), which tells the label
 * leased) or as a setsockopt() (where a label asked for is the one).
 */
static void request(struct slot *s, const struct fl_req *q, uint32_t len,
		    bool as_opt)
{
	uint8_t *b = malloc(len ? len : 1);
	uint32_t got = 0;
	int want, rc;

	if (!b)
		abort();
	expire_leases();
	want = expect(s, q, len);
	memset(b, 0, len);
	memcpy(b, q, len < sizeof(*q) ? len : sizeof(*q));
	if (q->action == A_GET && q->label == 0)
		as_opt = false;	/* only the daemon's way tells which */
	if (as_opt) {
		rc = ps_setopt(s->sk, &env, SOL_IPV6, FLOWLABEL_MGR, b, len);
		got = q->label;
	} else {
		rc = ps_flowlabel_opt(s->sk, &env, b, len, &got);
	}
	free(b);
	if (rc != want && !(want == 0 && rc == -ENOMEM))
		abort();	/* not what the kernel's rules answer */
	if (rc == 0)
		granted(s, q, got);
	else if (len >= sizeof(*q))
		refused(q, rc);
	see(q->label);
	check_label(q->label);
	if (rc == 0 && q->action == A_GET)
		check_label(got);
}

static uint32_t label_of(uint8_t b, const struct slot *s)
{
	static const uint32_t hosts[] = { 0, 1, 2, 0x12345, 0xfffff,
					  0x100000, 0x80000000u, 77 };

	if ((b & 0x18) == 0x18 && s && s->nfl)
		return s->fl[(b >> 5) % s->nfl];	/* one it holds */
	if ((b & 0x18) == 0x10 && fresh)
		return fresh;
	return htonl(hosts[b & 7]);
}

static const uint8_t shares[] = { S_ANY, S_EXCL, S_PROCESS, S_USER,
				  S_ANY, 0, 4, S_USER };
static const uint16_t times[] = { 0, 5, 150, 151, 0xffff, 60, 0, 1 };

/* A request of any action, label, share mode, flags and length. */
static void op_lease(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t a = u8(in), l = u8(in), sh = u8(in), f = u8(in), t = u8(in);
	uint32_t len = (a & 0x40) ? u8(in) % 48 : sizeof(struct fl_req);
	struct fl_req q;

	if (!s)
		return;
	if (a & 0x10)
		now_ms += (sh >> 3) * 500u;	/* time passes: 0 to 15.5 s */
	memset(&q, 0, sizeof(q));
	q.action = (a & 0x80) ? u8(in) : (uint8_t)((a & 0xf) % 3);
	q.label = label_of(l, s);
	q.share = shares[sh & 7];
	q.flags = (uint16_t)((f & 0x80) ? f << 8 | f : f & 7);
	q.expires = times[t & 7];
	q.linger = times[t >> 3 & 7];
	q.dst[15] = sh;		/* 0: ::, refused */
	if (t & 0x40)
		q.dst[10] = q.dst[11] = 0xff;	/* v4-mapped, refused */
	request(s, &q, len, a & 0x20);
}

/* Many leases for "any" at once: past a socket's 32. */
static void op_fill(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t b = u8(in);
	struct fl_req q;

	if (!s)
		return;
	memset(&q, 0, sizeof(q));
	q.action = A_GET;
	q.flags = F_CREATE;
	q.share = shares[b & 3];
	q.dst[15] = 1;
	for (unsigned i = 0; i < (b >> 2) + 1u; i++)
		request(s, &q, sizeof(q), false);
}

/* ---- the other calls ---- */

static void op_open(struct rd *in)
{
	uint8_t f = u8(in);
	int family = (f & 3) == 3 ? AF_INET : AF_INET6;
	bool raw = f & 4;
	struct psock *sk = NULL;
	struct slot *s = NULL;

	for (int i = 0; i < NSLOT && !s; i++)
		if (!slots[i].sk)
			s = &slots[i];
	if (!s)
		return;
	if (pstab_open(tab, family, raw ? SOCK_RAW : SOCK_DGRAM,
		       family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6,
		       uids[(f >> 3) & 3], &sk) != 0)
		abort();
	*s = (struct slot){ .sk = sk, .uid = uids[(f >> 3) & 3],
			    .pid = pids[(f >> 5) & 1], .family = family,
			    .raw = raw };
	ps_set_owner(sk, s);
	ps_set_pid(sk, s->pid);
}

static void op_setopt(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t b = u8(in);
	int name = (b & 1) ? IPV6_V6ONLY : FLOWINFO_SEND, v = (b >> 1) & 1;
	uint32_t len = (b & 4) ? 2 : sizeof(v);
	int rc;

	if (!s)
		return;
	rc = ps_setopt(s->sk, &env, SOL_IPV6, name, (uint8_t *)&v, len);
	if (s->family != AF_INET6 ? rc == 0 : rc > 0)
		abort();
	if (rc == 0 && name == FLOWINFO_SEND && sndflow(s) != (v != 0))
		abort();
	/* The daemon's net.ipv6.flowlabel_state_ranges, as if started
	 * with the other setting (the engine takes it per request). */
	if (b & 0x10)
		env.flowlabel_state_ranges = !env.flowlabel_state_ranges;
}

static uint32_t make_sa(uint8_t *sa, uint8_t ai, uint32_t flowinfo,
			uint8_t v)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	memcpy(&s6.sin6_addr, addr6[ai % N6], 16);
	s6.sin6_flowinfo = flowinfo;
	s6.sin6_scope_id = (v & 1) ? 1 + (v >> 1 & 1) : 0;
	s6.sin6_port = htons(v);
	memset(sa, 0, SA_MAX);
	memcpy(sa, &s6, sizeof(s6));
	if (v & 4)
		sa[0] = sa[1] = 0;	/* AF_UNSPEC */
	return (v & 8) ? 24 : sizeof(s6);
}

/* The flow info of a name: a label, and a traffic class now and then. */
static uint32_t flowinfo_of(uint8_t b, uint8_t c, const struct slot *s)
{
	uint32_t v = label_of(b, s);

	return (c & 0x80) ? v | htonl((uint32_t)(c & 0x7f) << 20) : v;
}

static void op_connect(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t ai = u8(in), l = u8(in), c = u8(in), v = u8(in), sa[SA_MAX];
	uint32_t len, label;
	uint8_t *p;
	int rc;

	if (!s)
		return;
	len = make_sa(sa, ai, flowinfo_of(l, c, s), v);
	label = flowinfo_of(l, c, s) & label_mask();
	p = malloc(len);
	if (!p)
		abort();
	memcpy(p, sa, len);
	rc = ps_connect(tab, s->sk, &env, p, len);
	free(p);
	/* IPV6_FLOWINFO_SEND: only a label it holds (an IPv4-mapped peer
	 * is an IPv4 connect, which looks at none). */
	if (rc == 0 && s->family == AF_INET6 && !(v & 4) && sndflow(s) &&
	    label && !count(s, label) && ai % N6 != 4)
		abort();
	if (rc > 0)
		abort();
	check_peer(s);
}

static uint32_t make_ctl(uint8_t *ctl, uint8_t b)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(sizeof(uint32_t)),
			     .cmsg_level = SOL_IPV6,
			     .cmsg_type = (b & 1) ? FLOWINFO_CMSG : IPV6_TCLASS };
	uint32_t v = (b & 1) ? htonl(0x12345) : 0x20;

	if (!(b & 2))
		return 0;
	memcpy(ctl, &h, sizeof(h));
	memcpy(ctl + CMSG_LEN(0), &v, sizeof(v));
	return (uint32_t)CMSG_SPACE(sizeof(v));
}

/* What a send's flow label may be. */
static void check_send_label(const struct slot *s, bool named,
			     uint32_t flowinfo, const struct ps_sendinfo *info)
{
	uint32_t want = named && sndflow(s) ? flowinfo & label_mask() : 0;

	if (info->flowlabel & ~label_mask())
		abort();
	if (named ? info->flowlabel != want
		  : info->flowlabel && !count(s, info->flowlabel))
		abort();	/* the peer's label, held */
}

static void op_send(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t ai = u8(in), l = u8(in), c = u8(in), v = u8(in);
	uint8_t sa[SA_MAX], ctl[64], msg[16] = { 128 };
	bool named = !(c & 1);
	uint32_t flowinfo, ctllen, len = 0;
	struct ps_sendinfo info;

	if (!s)
		return;
	flowinfo = flowinfo_of(l, c | 0x80, s);
	if (named)
		len = make_sa(sa, ai, flowinfo, v & ~4);
	ctllen = make_ctl(ctl, c >> 1);
	if (s->family == AF_INET)
		msg[0] = 8;
	msg[4] = 1;
	msg[5] = (uint8_t)(s - slots + 1);	/* a raw socket's own */
	msg[7] = v;
	if (ps_send_prepare(tab, s->sk, &env, 0, named ? sa : NULL, len, ctl,
			    ctllen, msg, sizeof(msg), &info) != 0)
		return;
	if (s->family == AF_INET6)
		check_send_label(s, named, flowinfo, &info);
	else if (info.flowlabel)
		abort();
}

static void op_getpeer(struct rd *in)
{
	struct slot *s = pick(u8(in));

	if (s)
		check_peer(s);
}

static void op_disconnect(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t sa[SA_MAX] = { 0 };

	if (s && ps_connect(tab, s->sk, &env, sa, sizeof(struct sockaddr_in6)))
		abort();	/* AF_UNSPEC always works */
}

/*
 * Close: its leases go with it.  A label nobody holds any more has no
 * lease: another socket's get without IPV6_FL_F_CREATE finds none.
 */
static void close_slot(struct slot *s)
{
	uint32_t gone[MAX_HELD];
	unsigned n = s->nfl;
	struct slot *o;

	memcpy(gone, s->fl, n * sizeof(gone[0]));
	pstab_close(tab, s->sk);
	while (s->nfl)
		drop_label(s, 0);	/* counted as a holder till the last */
	s->sk = NULL;
	o = pick(0);
	for (unsigned i = 0; i < n; i++) {
		struct fl_req q = { .dst[15] = 1, .label = gone[i],
				    .share = S_ANY };

		check_label(gone[i]);
		if (o && o->family == AF_INET6 && !holders(gone[i]))
			request(o, &q, sizeof(q), false);
	}
}

static void op_close(struct rd *in)
{
	struct slot *s = pick(u8(in));

	if (s)
		close_slot(s);
}

/* ---- the session ---- */

enum {
	OP_OPEN, OP_LEASE, OP_FILL, OP_SETOPT, OP_CONNECT, OP_SEND,
	OP_GETPEER, OP_DISCONNECT, OP_CLOSE, OP_END
};

static void step(struct rd *in)
{
	switch (u8(in) % OP_END) {
	case OP_OPEN: op_open(in); break;
	case OP_LEASE: op_lease(in); break;
	case OP_FILL: op_fill(in); break;
	case OP_SETOPT: op_setopt(in); break;
	case OP_CONNECT: op_connect(in); break;
	case OP_SEND: op_send(in); break;
	case OP_GETPEER: op_getpeer(in); break;
	case OP_DISCONNECT: op_disconnect(in); break;
	default: op_close(in); break;
	}
	for (int i = 0; i < NSLOT; i++)
		if (slots[i].sk && slots[i].nfl > MAX_HELD)
			abort();
}

/* Every label touched, once more for every socket; then close all. */
static void finish(void)
{
	unsigned open = 0;

	for (unsigned i = 0; i < nseen; i++)
		check_label(seen[i]);
	for (int i = 0; i < NSLOT; i++) {
		open += slots[i].sk != NULL;
		if (slots[i].sk)
			check_peer(&slots[i]);
	}
	if (pstab_sockets(tab) != open)
		abort();
	for (int i = 0; i < NSLOT; i++)
		if (slots[i].sk)
			close_slot(&slots[i]);
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0)
		abort();
	for (unsigned i = 0; i < nleases; i++)
		if (leases[i].users)
			abort();	/* held by no socket, yet not lingering */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd in = { data, size };

	if (!tab && !(tab = pstab_new(7000)))
		abort();
	pstab_set_clock(tab, clock_ms, NULL);
	now_ms += 1000u * (MAX_LINGER + 1);	/* what lingered has expired */
	pstab_allow_raw(tab, true);
	nseen = 0;
	fresh = 0;
	env.flowlabel_state_ranges = false;
	while (in.n)
		step(&in);
	finish();
	return 0;
}
