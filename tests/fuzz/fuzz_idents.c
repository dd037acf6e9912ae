/* SPDX-License-Identifier: ISC */
/*
 * fuzz_idents - libFuzzer target for who holds which identifier: the
 * raw-socket emulation (engine/psraw.c: Echo-only SOCK_RAW sockets whose
 * sends bind the identifier written, up to PSRAW_MAX_IDENTS each),
 * PINGSOCK_IDENT=keep (the daemon's op_keepid(): ps_bind() of the any
 * address with the program's identifier) and plain ping sockets, of both
 * families and three uids, in one socket table.
 *
 * The input is a sequence of operations (see step()): open, bind, keepid,
 * connect, send (single, or a burst of identifiers), set/getsockopt,
 * getsockname, shutdown, close, a foreign identifier, the table's
 * raw_compat switch, and lookups of replies and errors, built from what
 * was sent or from the input.  A shadow of every socket's identifiers is
 * kept from what the engine answers, and after each step the engine's
 * promises are checked; a broken one aborts:
 *  - no identifier of a family is held by sockets of two uids, a foreign
 *    one is never bound, pstab_idents() counts what the sockets hold;
 *  - a raw socket holds at most PSRAW_MAX_IDENTS identifiers and loses
 *    none before close; it refuses anything but Echo with EPERM;
 *  - an accepted send carries an allowed type and code and the sender's
 *    identifier, with a correct checksum where the engine writes one
 *    (ICMPv4 ping sockets), the program's own bytes where it must keep
 *    them (raw), and a zero sum where the raw ICMPv6 socket computes it;
 *  - a reply or an error to a request just sent is found, and whatever a
 *    lookup finds is an open socket as the program has it (never the
 *    engine's extra one of a raw socket's further identifier), which
 *    sent a request with that identifier and sequence number (to that
 *    address, unless a group or broadcast), and answers the daemon's
 *    questions (ps_type(), ps_delivers(), ps_error_datagram(),
 *    ps_error_ignored(), ps_rx_iphdr(), ps_error_action()) as that
 *    socket;
 *  - IP_HDRINCL and IPV6_HDRINCL are never turned on.
 * A raw socket's further identifiers are not in the public API: they are
 * looked at with ps_sender() (engine/psock_int.h).
 *
 * The table is kept from input to input (a new one costs 2 ms), so an
 * automatically chosen identifier depends on the inputs before; every
 * input closes what it opened, and the table must then be empty.
 *
 * Seeds: tests/fuzz/corpus/fuzz_idents/ (tests/fuzz/gen_seeds.py).
 *   build/fuzz/fuzz_idents -max_total_time=60 NEW tests/fuzz/corpus/fuzz_idents
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"
#include "engine/psock_int.h"
#include "engine/psraw.h"
#include "wire/wire.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSLOT 6
#define NREC 4096		/* requests remembered per input */
#define NBUCKET 4096
#define SEND_BUDGET 300		/* sends per input, bursts included */
#define SA_MAX 40
#define RAW_FILTER 1		/* ICMP_FILTER, ICMP6_FILTER */

/* ---- the fake host ---- */

static const uint8_t addr4[][4] = {
	{ 127, 0, 0, 1 }, { 127, 0, 0, 2 }, { 10, 0, 0, 1 }, { 10, 0, 0, 7 },
	{ 10, 0, 0, 255 }, { 255, 255, 255, 255 }, { 224, 0, 0, 1 },
	{ 10, 99, 0, 1 }, { 0, 0, 0, 0 }, { 8, 8, 8, 8 },
};

static const uint8_t addr6[][16] = {
	{ 0 },
	{ [15] = 1 },
	{ 0xfd, [15] = 1 },
	{ 0xfd, [15] = 9 },
	{ 0xfe, 0x80, [15] = 1 },
	{ 0xfe, 0x80, [15] = 9 },
	{ 0xff, 0x02, [15] = 1 },
	{ 0xff, 0x05, [15] = 1 },
	{ [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0xde, 0xad, [15] = 1 },
	{ 0xff, 0x01, [15] = 1 },
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 5 },
};

#define N4 (sizeof(addr4) / sizeof(addr4[0]))
#define N6 (sizeof(addr6) / sizeof(addr6[0]))

static bool is6(const struct ps_addr *a, unsigned i)
{
	return memcmp(a->a, addr6[i], 16) == 0;
}

/* 127/8 and 10.0.0.1 local, 224/4 multicast, 10.0.0.255 and
 * 255.255.255.255 broadcast, everything else remote. */
static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	if (a->a[0] == 127 || memcmp(a->a, addr4[2], 4) == 0)
		return PS_RTN_LOCAL;
	if ((a->a[0] >> 4) == 0xe)
		return PS_RTN_MULTICAST;
	if (a->a[0] == 255 || memcmp(a->a, addr4[4], 4) == 0)
		return PS_RTN_BROADCAST;
	return PS_RTN_UNICAST;
}

/* 10.99/16 and 2001:db8:dead::/48 unreachable; sources 127.0.0.1 or
 * 10.0.0.1, ::1 or fd00::1. */
static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   unsigned flags, struct ps_addr *src)
{
	bool lo;

	(void)ifindex;
	if (dst->family == AF_INET6) {
		if (memcmp(dst->a, addr6[9], 6) == 0)
			return -ENETUNREACH;
		lo = is6(dst, 1);
		if (ps_addr_is_any(src)) {
			memset(src, 0, sizeof(*src));
			src->family = AF_INET6;
			memcpy(src->a, addr6[lo ? 1 : 2], 16);
		}
		return 0;
	}
	if (dst->a[0] == 10 && dst->a[1] == 99)
		return -ENETUNREACH;
	if (f_addr_type(ctx, dst, ifindex) == PS_RTN_BROADCAST && !(flags & PS_ROUTE_BROADCAST))
		return -EACCES;
	if (ps_addr_is_any(src))
		ps_addr_v4(src, htonl(dst->a[0] == 127 ? 0x7f000001u
						       : 0x0a000001u));
	return 0;
}

static int f_addr_dev(void *ctx, const struct ps_addr *a)
{
	(void)ctx;
	if (a->a[0] == 127)
		return 1;
	return memcmp(a->a, addr4[2], 4) == 0 ? 2 : 0;
}

static int f_route_mtu(void *ctx, const struct ps_addr *dst, uint32_t ifindex)
{
	(void)ctx;
	(void)dst;
	return ifindex == 2 ? 1500 : 65536;
}

/* ::1 on lo, fd00::1 on eth0 (any device unless strict), fe80::1 on
 * both. */
static bool f_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
		     bool strict)
{
	(void)ctx;
	if (is6(a, 1))
		return ifindex == 0 || ifindex == 1;
	if (is6(a, 2))
		return ifindex == 2 || ifindex == 0 || !strict;
	return is6(a, 4) && ifindex != 0;
}

static const struct ps_env env = {
	.addr_type = f_addr_type,
	.route = f_route,
	.dev_index = f_dev_index,
	.dev_name = f_dev_name,
	.addr_dev = f_addr_dev,
	.route_mtu = f_route_mtu,
	.local6 = f_local6,
	.default_ttl = 64,
	.default_hoplimit = 64,
};

/* ---- the input (struct rd: fuzz_common.h) ---- */

static const uint16_t idents[] = {
	0, 1, 2, 3, 7, 100, 255, 256, 1000, 4242, 4243, 0x7fff, 0x8000,
	0xfffe, 0xffff, 4001,
};

static uint16_t ident_of(uint8_t b)
{
	return idents[b % (sizeof(idents) / sizeof(idents[0]))];
}

/* ---- the sockets and their shadow ---- */

static const uint32_t uids[] = { 1000, 2000, 3000, 1000 };

struct slot {
	struct psock *sk;	/* NULL: free */
	uint32_t uid;
	uint32_t gen;		/* of the socket in it, for the records */
	int family;
	bool raw;
	uint16_t held[PSRAW_MAX_IDENTS + 1];	/* raw: in order of claim */
	unsigned nheld;
	uint8_t bits[65536 / 8];	/* the same, as a bitmap */
};

static struct pstab *tab;
static struct slot slots[NSLOT];
static uint32_t gen;
static uint64_t now;
static unsigned sends;

/* Holders of each identifier per family, their uid, foreign ones. */
static uint16_t holders[2][65536];
static uint32_t holder_uid[2][65536];
static uint8_t foreign[2][65536];
static unsigned distinct;

static int fi(int family)
{
	return family == AF_INET6;
}

/* Does the engine say s holds ident (its own, or a raw extra one)? */
static bool holds(const struct slot *s, uint16_t ident)
{
	if (ident == 0)
		return false;
	if (!s->raw)
		return ps_ident(s->sk) == ident;
	return ps_ident(ps_sender(s->sk, ident)) == ident;
}

static bool shadow_holds(const struct slot *s, uint16_t ident)
{
	return s->bits[ident / 8] & (1u << (ident % 8));
}

/* s holds ident now: the same-uid rule and the foreign list allow it? */
static void hold_add(struct slot *s, uint16_t ident)
{
	int f = fi(s->family);

	if (ident == 0 || foreign[f][ident])
		abort();	/* a foreign identifier bound */
	if (holders[f][ident] && holder_uid[f][ident] != s->uid)
		abort();	/* two uids on one identifier */
	if (holders[f][ident]++ == 0) {
		holder_uid[f][ident] = s->uid;
		distinct++;
	}
	if (s->nheld >= (s->raw ? PSRAW_MAX_IDENTS : 1))
		abort();	/* over the cap */
	s->held[s->nheld++] = ident;
	s->bits[ident / 8] |= (uint8_t)(1u << (ident % 8));
}

static void hold_drop(struct slot *s, unsigned i)
{
	int f = fi(s->family);
	uint16_t ident = s->held[i];

	if (--holders[f][ident] == 0)
		distinct--;
	s->bits[ident / 8] &= (uint8_t)~(1u << (ident % 8));
	s->held[i] = s->held[--s->nheld];
}

/* Each holder per the shadow holds it per the engine, and the table
 * says it is used exactly when someone holds it. */
static void check_ident(int family, uint16_t ident)
{
	unsigned n = 0;

	for (int i = 0; i < NSLOT; i++) {
		const struct slot *s = &slots[i];

		if (!s->sk || s->family != family)
			continue;
		if (holds(s, ident) != shadow_holds(s, ident))
			abort();
		n += holds(s, ident);
	}
	if (n != holders[fi(family)][ident] ||
	    pstab_ident_used(tab, family, ident) != (n > 0))
		abort();
}

/* A ping socket's identifier as the engine has it now. */
static void sync_ping(struct slot *s)
{
	uint16_t cur = ps_ident(s->sk), old = s->nheld ? s->held[0] : 0;

	if (cur == old)
		return;
	if (old)
		hold_drop(s, 0);
	if (cur)
		hold_add(s, cur);
	if (old)
		check_ident(s->family, old);
}

/*
 * After anything that may bind: the shadow follows the engine (for a
 * raw socket, on the identifier written), and every socket's holding of
 * the identifiers concerned is checked, or in a burst only the table's.
 */
static void sync(struct slot *s, uint16_t written, bool was, bool quick)
{
	uint16_t own = s->nheld ? s->held[0] : 0;

	if (!s->raw) {
		sync_ping(s);
	} else if (holds(s, written) != was) {
		if (was)
			abort();	/* a raw socket lost an identifier */
		hold_add(s, written);
	}
	if (s->raw && ps_ident(s->sk) != (s->nheld ? s->held[0] : 0))
		abort();	/* its own is the first it claimed */
	if (quick) {
		if (pstab_ident_used(tab, s->family, written) !=
		    (holders[fi(s->family)][written] > 0))
			abort();
		return;
	}
	if (s->nheld)
		check_ident(s->family, s->held[0]);
	if (own && own != written)
		check_ident(s->family, own);
	if (written)
		check_ident(s->family, written);
}

static void check_table(void)
{
	unsigned open = 0;

	for (int i = 0; i < NSLOT; i++)
		open += slots[i].sk != NULL;
	if (pstab_sockets(tab) != open || pstab_idents(tab) != distinct)
		abort();
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

/* ---- what was sent ---- */

struct rec {
	int32_t next;
	uint8_t slot;
	uint32_t gen;
	uint16_t ident, seq;
	struct ps_addr dst;
	bool any_src;
	bool probe;		/* an RFC 8335 Extended Echo Request */
};

static struct rec recs[NREC];
static int32_t bucket[NBUCKET];
static unsigned nrec;
static bool rec_full;

/* A PROBE's reply repeats only its sequence number, the high byte. */
static uint32_t seq_key(bool probe, uint16_t seq)
{
	return probe ? 0x10000u | (uint32_t)(seq >> 8) : seq;
}

static unsigned hash(unsigned slot, uint16_t ident, uint32_t key)
{
	return ((slot * 40503u) ^ (ident * 2654435761u) ^ key) % NBUCKET;
}

static void record(const struct slot *s, const struct ps_sendinfo *info)
{
	bool probe = icmp_is_probe(info->type);
	unsigned i = (unsigned)(s - slots),
		 h = hash(i, info->ident, seq_key(probe, info->seq));
	struct rec *r;

	if (nrec == NREC) {
		rec_full = true;
		return;
	}
	r = &recs[nrec];
	*r = (struct rec){ .next = bucket[h], .slot = (uint8_t)i,
			   .gen = s->gen, .ident = info->ident,
			   .seq = info->seq, .dst = info->reach,
			   .any_src = info->any_src, .probe = probe };
	bucket[h] = (int32_t)nrec++;
}

/* Is r the request that seq names, as how says (icmp.h)? */
static bool rec_answers(const struct rec *r, enum icmp_match how,
			uint16_t seq)
{
	if (r->probe != (how != ICMP_M_ECHO))
		return false;
	if (how == ICMP_M_PROBE_REPLY)
		return (r->seq >> 8) == (seq >> 8);
	return r->seq == seq;
}

/* Did s send ident/seq, of the kind how names, to answered (or to a
 * group or broadcast)? */
static bool was_sent(const struct slot *s, uint16_t ident,
		     enum icmp_match how, uint16_t seq,
		     const struct ps_addr *answered)
{
	unsigned i = (unsigned)(s - slots);
	uint32_t key = seq_key(how != ICMP_M_ECHO, seq);

	for (int32_t k = bucket[hash(i, ident, key)]; k >= 0;
	     k = recs[k].next) {
		const struct rec *r = &recs[k];

		if (r->slot == i && r->gen == s->gen && r->ident == ident &&
		    rec_answers(r, how, seq) &&
		    (r->any_src || ps_addr_eq(&r->dst, answered)))
			return true;
	}
	return false;
}

/* ---- lookups ---- */

/* The open socket a lookup found (never a raw socket's extra one). */
static struct slot *owner_of(struct psock *r)
{
	struct slot *s = ps_owner(r);

	if (s < slots || s >= slots + NSLOT || s->sk != r)
		abort();	/* not an open socket, or not the program's */
	return s;
}

static void check_found(const struct icmp_pkt *p, struct psock *r)
{
	struct slot *s = owner_of(r);
	const struct ps_addr *answered =
		p->kind == ICMP_K_ERROR ? &p->q_dst : &p->src;

	if (ps_uid(r) != s->uid || ps_family(r) != s->family ||
	    s->family != p->dst.family)
		abort();
	if (!shadow_holds(s, p->ident))
		abort();	/* its own, or (raw) one it claimed */
	/* The daemon treats what it found as the program's socket. */
	if ((ps_type(r) == SOCK_RAW) != s->raw ||
	    ps_delivers(r, p->type) != ps_delivers(s->sk, p->type) ||
	    ps_error_datagram(r, p->type) !=
		    ps_error_datagram(s->sk, p->type) ||
	    ps_rx_iphdr(r) != ps_rx_iphdr(s->sk) ||
	    ps_error_ignored(r, p->type) !=
		    ps_error_ignored(s->sk, p->type) ||
	    ps_error_action(r, false) != ps_error_action(s->sk, false) ||
	    ps_error_action(r, true) != ps_error_action(s->sk, true))
		abort();
	/* Only an answer to a request of this socket: identifier, kind
	 * and sequence number, and the address unless a group's. */
	if (!rec_full && !was_sent(s, p->ident, p->match, p->seq, answered))
		abort();
}

static struct psock *lookup(const struct icmp_pkt *p, uint32_t ifindex)
{
	struct psock *r = pstab_lookup(tab, p, ifindex);

	if (r)
		check_found(p, r);
	return r;
}

/* The address a socket receives on (its bound one, else any of ours). */
static void local_addr(const struct slot *s, struct ps_addr *a)
{
	uint8_t out[SA_MAX];
	struct sockaddr_in6 s6;
	struct sockaddr_in sin;

	memset(a, 0, sizeof(*a));
	if (ps_getname(s->sk, false, out) < 0)
		abort();
	if (s->family == AF_INET) {
		memcpy(&sin, out, sizeof(sin));
		ps_addr_v4(a, sin.sin_addr.s_addr ? sin.sin_addr.s_addr
						  : htonl(0x7f000001u));
		return;
	}
	memcpy(&s6, out, sizeof(s6));
	a->family = AF_INET6;
	memcpy(a->a, &s6.sin6_addr, 16);
	if (ps_addr_is_any(a))
		a->a[15] = 1;
}

static uint32_t bound_dev(const struct slot *s)
{
	int v = 0;
	uint32_t len = sizeof(v);

	if (ps_getopt(s->sk, &env, SOL_SOCKET, SO_BINDTOIFINDEX,
		      (uint8_t *)&v, &len) != 0 || len != sizeof(v))
		abort();
	return (uint32_t)v;
}

static uint8_t reply_type(uint8_t req)
{
	switch (req) {
	case 8: return 0;
	case 42: return 43;
	case 128: return 129;
	default: return 161;	/* 160 */
	}
}

/* A reply and an error answering what s just sent must reach it (or
 * another socket of its uid that sent the same). */
static void must_find(const struct slot *s, const struct ps_sendinfo *info,
		      uint8_t type)
{
	struct icmp_pkt p;
	uint32_t dev = bound_dev(s);

	bool probe = icmp_is_probe(type);

	memset(&p, 0, sizeof(p));
	p.kind = ICMP_K_REPLY;
	p.type = reply_type(type);
	p.src = info->reach;	/* where it went: 0.0.0.0 is this host */
	local_addr(s, &p.dst);
	p.ident = info->ident;
	/* A PROBE's reply has the interface state in the low byte. */
	p.match = probe ? ICMP_M_PROBE_REPLY : ICMP_M_ECHO;
	p.seq = probe ? (uint16_t)(info->seq ^ 0x5a) : info->seq;
	if (!lookup(&p, dev))
		abort();
	p.seq = info->seq;
	p.match = probe ? ICMP_M_PROBE : ICMP_M_ECHO;
	p.kind = ICMP_K_ERROR;
	p.type = s->family == AF_INET6 ? 1 : 3;
	p.code = 1;
	p.q_dst = info->reach;
	p.q_src = p.dst;
	if (!lookup(&p, dev))
		abort();
}

/* ---- socket addresses and control messages from the input ---- */

/* A sockaddr of the family: an address of the table, port and scope;
 * v picks a wrong family or length now and then. */
static uint32_t make_sa(uint8_t *sa, int family, uint8_t ai, uint16_t port,
			uint8_t v)
{
	static const uint32_t scopes[] = { 0, 1, 2, 9 };
	uint16_t fam;
	uint32_t len;

	memset(sa, 0, SA_MAX);
	if (family == AF_INET6) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

		s6.sin6_port = htons(port);
		memcpy(&s6.sin6_addr, addr6[ai % N6], 16);
		s6.sin6_scope_id = scopes[(v >> 3) & 3];
		memcpy(sa, &s6, sizeof(s6));
		len = sizeof(s6);
	} else {
		struct sockaddr_in sin = { .sin_family = AF_INET };

		sin.sin_port = htons(port);
		memcpy(&sin.sin_addr, addr4[ai % N4], 4);
		memcpy(sa, &sin, sizeof(sin));
		len = sizeof(sin);
	}
	fam = (v & 7) == 1 ? AF_UNSPEC : (uint16_t)(AF_INET + AF_INET6 - family);
	if ((v & 7) == 1 || (v & 7) == 2)
		memcpy(sa, &fam, sizeof(fam));	/* AF_UNSPEC, the other one */
	if ((v & 7) == 3)
		len -= 1;
	else if ((v & 7) == 4)
		len = family == AF_INET6 ? 24 : 2;
	else if ((v & 7) == 5)
		len += 4;
	else if ((v & 7) == 6)
		len = 8;
	return len;
}

/* An exact-size heap copy, so that ASan sees any over-read. */
static uint8_t *dup(const uint8_t *b, uint32_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	memcpy(p, b, len);
	return p;
}

static uint32_t add_cmsg(uint8_t *buf, uint32_t off, int level, int type,
			 const void *data, uint32_t len)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(len), .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(buf + off, &h, sizeof(h));
	memcpy(buf + off + CMSG_LEN(0), data, len);
	return off + (uint32_t)CMSG_SPACE(len);
}

/* Control messages of a send: none, one of each family's, or bytes. */
static uint32_t make_ctl(uint8_t *buf, uint8_t sel, struct rd *in)
{
	struct in_pktinfo pi = { .ipi_ifindex = 1 };
	struct in6_pktinfo pi6 = { .ipi6_ifindex = sel >> 4 };
	int v = (sel & 0x10) ? 300 : 7;
	uint32_t n;

	memcpy(&pi6.ipi6_addr, addr6[1], 16);
	pi.ipi_spec_dst.s_addr = htonl(0x7f000001u);
	switch (sel & 7) {
	case 1: return add_cmsg(buf, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	case 2: return add_cmsg(buf, 0, SOL_IP, IP_PKTINFO, &pi, sizeof(pi));
	case 3: return add_cmsg(buf, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	case 4:
		return add_cmsg(buf, 0, SOL_IPV6, IPV6_PKTINFO, &pi6,
				sizeof(pi6));
	case 5:
		n = u8(in) % 64;
		for (uint32_t i = 0; i < n; i++)
			buf[i] = u8(in);
		return n;
	default: return 0;
	}
}

/* ---- sending ---- */

struct sendreq {
	uint8_t type, code;
	uint16_t ident, seq;
	uint32_t len;
	bool bad_sum;
	int flags;
	uint8_t name[SA_MAX];
	uint32_t namelen;	/* WIRE_NO_NAME: none */
	uint8_t ctl[64];
	uint32_t ctllen;
};

static uint8_t big[WIRE_DATA_MAX + 1];
static uint8_t before[WIRE_DATA_MAX + 1];

/* The program's message: header, a pattern, an ICMPv4 sum (or not). */
static uint8_t *make_msg(const struct sendreq *q)
{
	uint8_t *m = q->len > 512 ? big : malloc(q->len ? q->len : 1);
	uint16_t sum;

	if (!m)
		abort();
	if (q->len > 512)
		return m;	/* refused before it is read */
	for (uint32_t i = 0; i < q->len; i++)
		m[i] = (uint8_t)(i * 7 + q->seq);
	if (q->len >= ICMP_HDR_LEN) {
		m[0] = q->type;
		m[1] = q->code;
		m[2] = m[3] = 0;
		m[4] = (uint8_t)(q->ident >> 8);
		m[5] = (uint8_t)q->ident;
		m[6] = (uint8_t)(q->seq >> 8);
		m[7] = (uint8_t)q->seq;
		sum = icmp_checksum(m, q->len) ^ (q->bad_sum ? 0x5a5a : 0);
		memcpy(m + 2, &sum, 2);
	}
	memcpy(before, m, q->len);
	return m;
}

/* An accepted send: what goes on the wire is a sane request of s. */
static void check_sent(const struct slot *s, const struct sendreq *q,
		       const uint8_t *m, const struct ps_sendinfo *info)
{
	uint16_t id = (uint16_t)(m[4] << 8 | m[5]);
	uint32_t len = q->len;

	if (len < ICMP_HDR_LEN || len > WIRE_DATA_MAX)
		abort();
	if (!icmp_echo_type_ok(s->family, m[0], m[1]) ||
	    memcmp(m, before, 2) != 0 || memcmp(m + 6, before + 6, len - 6))
		abort();
	if (info->ident != id || id == 0 || info->seq != icmp_echo_seq(m) ||
	    info->dst.family != s->family || !shadow_holds(s, id))
		abort();
	if (s->raw ? id != q->ident : id != ps_ident(s->sk))
		abort();
	if (s->family == AF_INET6) {
		/* never to ::, never to an IPv4-mapped address */
		if (m[2] || m[3] || is6(&info->dst, 0) ||
		    memcmp(info->dst.a, addr6[8], 12) == 0)
			abort();
	} else if (s->raw ? memcmp(m + 2, before + 2, 2) != 0
			  : icmp_checksum(m, len) != 0) {
		abort();
	}
}

/* What a raw socket's send must have answered before binding anything. */
static void check_raw_refusal(const struct slot *s, const struct sendreq *q,
			      int rc, bool was, unsigned nheld)
{
	bool echo = q->len >= ICMP_HDR_LEN &&
		    icmp_echo_type_ok(s->family, q->type, q->code);

	if (q->len <= WIRE_DATA_MAX && !(q->flags & MSG_OOB) && !echo &&
	    rc != -EPERM)
		abort();	/* Echo only */
	if (!was && (nheld == PSRAW_MAX_IDENTS || !echo || q->ident == 0) &&
	    (rc == 0 || shadow_holds(s, q->ident)))
		abort();	/* over the cap, or not an Echo, or 0 */
}

static void do_send(struct slot *s, const struct sendreq *q, bool quick)
{
	uint8_t *m = make_msg(q), *name = NULL, *ctl = dup(q->ctl, q->ctllen);
	bool was = s->raw && shadow_holds(s, q->ident);
	unsigned nheld = s->nheld;
	struct ps_sendinfo info;
	int rc;

	if (q->namelen != WIRE_NO_NAME)
		name = dup(q->name, q->namelen);
	rc = ps_send_prepare(tab, s->sk, &env, q->flags, name, q->namelen,
			     ctl, q->ctllen, m, q->len, &info);
	if (rc > 0)
		abort();
	sync(s, s->raw ? q->ident : 0, was, quick);
	if (s->raw)
		check_raw_refusal(s, q, rc, was, nheld);
	if (rc == 0) {
		check_sent(s, q, m, &info);
		ps_sent(s->sk, &info, now++);
		record(s, &info);
		if (!quick)
			must_find(s, &info, m[0]);
	}
	sends++;
	free(name);
	free(ctl);
	if (m != big)
		free(m);
}

static const uint8_t types4[] = { 8, 42, 0, 13, 8, 8, 128, 43 };
static const uint8_t types6[] = { 128, 160, 129, 1, 128, 128, 8, 161 };
static const uint32_t lens[] = { 8, 64, 7, 0, 16, 9, 300,
				 WIRE_DATA_MAX + 1 };

/* A request as the input says: type, code, identifier, sequence,
 * length, destination, control messages and flags. */
static void read_send(const struct slot *s, struct rd *in,
		      struct sendreq *q)
{
	uint8_t t = u8(in), d = u8(in), f = u8(in);

	memset(q, 0, sizeof(*q));
	q->type = (t & 0x80) ? u8(in)
		  : (s->family == AF_INET6 ? types6 : types4)[t & 7];
	q->code = (t & 0x40) ? u8(in) : 0;
	q->ident = ident_of(u8(in));
	q->seq = u16(in);
	q->len = lens[(t >> 3) & 7];
	q->bad_sum = f & 0x80;
	q->flags = (f & 0x40) ? MSG_OOB : (f & 0x20) ? MSG_DONTWAIT : 0;
	if (d & 0x80)
		q->namelen = WIRE_NO_NAME;
	else
		q->namelen = make_sa(q->name, s->family, d, 0,
				     (f & 8) ? u8(in) : 0);
	q->ctllen = make_ctl(q->ctl, f & 7 ? (uint8_t)((f & 7) | (d & 0x70))
					  : 0, in);
}

static void op_send(struct rd *in)
{
	struct slot *s = pick(u8(in));
	struct sendreq q;

	read_send(s ? s : &slots[0], in, &q);
	if (s && sends < SEND_BUDGET)
		do_send(s, &q, false);
}

/*
 * One request per identifier from base on: up to 32, or 260, past the
 * cap of a raw socket.  Only the last one is looked up.
 */
static void op_burst(struct rd *in)
{
	static const uint16_t bases[] = { 1000, 0xff80, 20000, 4000 };
	struct slot *s = pick(u8(in));
	uint8_t b = u8(in), c = u8(in);
	unsigned n = (c & 0xf0) == 0xf0 ? PSRAW_MAX_IDENTS + 4 : (c & 0x1f) + 1u;
	struct sendreq q;

	if (!s)
		return;
	memset(&q, 0, sizeof(q));
	q.type = s->family == AF_INET6 ? 128 : 8;
	q.len = ICMP_HDR_LEN;
	q.seq = b;
	q.namelen = make_sa(q.name, s->family, 1, 0, 0);
	for (unsigned i = 0; i < n && sends < SEND_BUDGET; i++) {
		q.ident = (uint16_t)(bases[b & 3] + i);
		do_send(s, &q, i + 1 < n && sends + 1 < SEND_BUDGET);
	}
}

/* ---- the other calls ---- */

static void op_open(struct rd *in)
{
	uint8_t f = u8(in);
	int family = (f & 1) ? AF_INET6 : AF_INET;
	int type = (f & 2) ? SOCK_RAW : SOCK_DGRAM;
	int proto = family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	struct psock *sk = NULL;
	struct slot *s = NULL;
	int rc;

	for (int i = 0; i < NSLOT && !s; i++)
		if (!slots[i].sk)
			s = &slots[i];
	if (!s)
		return;
	if (f & 0x40)
		proto = (f & 0x80) ? IPPROTO_UDP : (IPPROTO_ICMP + IPPROTO_ICMPV6 - proto);
	if (f & 0x20)
		type |= SOCK_NONBLOCK;
	rc = pstab_open(tab, family, type, proto, uids[(f >> 2) & 3], &sk);
	if (rc != 0) {
		if (sk || rc > 0)
			abort();
		return;
	}
	if ((f & 0x40) || (ps_type(sk) == SOCK_RAW) != ((f & 2) != 0) ||
	    ps_family(sk) != family || ps_ident(sk) != 0)
		abort();	/* another protocol accepted, or wrong kind */
	*s = (struct slot){ .sk = sk, .uid = uids[(f >> 2) & 3], .gen = ++gen,
			    .family = family, .raw = ps_type(sk) == SOCK_RAW };
	ps_set_owner(sk, s);
	ps_set_pid(sk, (int32_t)s->uid + (f >> 4 & 1));
}

static void op_bind(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t ai = u8(in), v = u8(in), sa[SA_MAX], *p;
	uint16_t ident = ident_of(u8(in)), old;
	uint32_t len;
	int rc;

	if (!s)
		return;
	len = make_sa(sa, s->family, ai, ident, v);
	p = dup(sa, len);
	old = ps_ident(s->sk);
	rc = ps_bind(tab, s->sk, &env, p, len);
	free(p);
	sync(s, 0, false, false);
	if (rc > 0 || (rc == 0 && old != 0 && !s->raw))
		abort();	/* a bound ping socket binds no more */
	if (rc == 0 && !s->raw && ident && ps_ident(s->sk) != ident)
		abort();
	if (s->raw && ps_ident(s->sk) != old)
		abort();	/* raw bind() binds an address only */
	check_ident(s->family, ident);
}

/* op_keepid(): bind (any, the identifier the program wrote). */
static void op_keepid(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint16_t ident = ident_of(u8(in)), old;
	struct ps_addr any;
	uint8_t sa[SA_MAX];
	socklen_t len;
	int rc, f;

	if (!s)
		return;
	memset(&any, 0, sizeof(any));
	any.family = (uint8_t)s->family;
	len = ps_addr_to_sockaddr(&any, ident, sa);
	old = ps_ident(s->sk);
	f = fi(s->family);
	rc = ps_bind(tab, s->sk, &env, sa, len);
	if (!s->raw && old == 0 && ident && holders[f][ident] &&
	    holder_uid[f][ident] != s->uid && rc == 0)
		abort();	/* another uid's identifier */
	sync(s, 0, false, false);
	if (rc == 0 && !s->raw && (old != 0 || (ident &&
					       ps_ident(s->sk) != ident)))
		abort();
	check_ident(s->family, ident);
}

static void op_connect(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t ai = u8(in), v = u8(in), sa[SA_MAX], *p;
	uint16_t port = ident_of(u8(in)), old;
	uint32_t len;
	int rc;

	if (!s)
		return;
	len = make_sa(sa, s->family, ai, port, v);
	p = dup(sa, len);
	old = ps_ident(s->sk);
	rc = ps_connect(tab, s->sk, &env, p, len);
	free(p);
	if (rc > 0 || (s->raw && ps_ident(s->sk) != old))
		abort();	/* a raw socket's connect binds nothing */
	sync(s, 0, false, false);
}

static const struct {
	int level, name;
} opts[] = {
	{ SOL_SOCKET, SO_REUSEADDR }, { SOL_SOCKET, SO_BINDTOIFINDEX },
	{ SOL_SOCKET, SO_BINDTODEVICE }, { SOL_SOCKET, SO_BROADCAST },
	{ SOL_SOCKET, SO_TYPE }, { SOL_IP, IP_RECVERR },
	{ SOL_IP, IP_HDRINCL }, { SOL_IP, IP_TTL },
	{ SOL_IP, IP_FREEBIND }, { SOL_IP, IP_MULTICAST_IF },
	{ SOL_RAW, RAW_FILTER }, { SOL_RAW, IPV6_CHECKSUM },
	{ SOL_RAW, IPV6_HDRINCL }, { SOL_IPV6, IPV6_RECVERR },
	{ SOL_IPV6, IPV6_V6ONLY }, { SOL_IPV6, IPV6_CHECKSUM },
	{ SOL_IPV6, IPV6_HDRINCL }, { SOL_IPV6, IPV6_UNICAST_IF },
	{ SOL_IPV6, IPV6_MULTICAST_IF }, { SOL_ICMPV6, RAW_FILTER },
	{ SOL_IPV6, IPV6_FREEBIND }, { SOL_IP, IP_OPTIONS },
};

#define NOPT (sizeof(opts) / sizeof(opts[0]))

/* An option's value: an int of a few, a device name, or bytes. */
static uint32_t make_val(uint8_t *val, uint8_t sel, struct rd *in)
{
	static const int ints[] = { 0, 1, -1, 2, 7, 255, 0x100, 0x1000000 };
	static const char *const devs[] = { "lo", "eth0", "", "nope" };
	uint32_t n;

	if (sel < 0x80) {
		memcpy(val, &ints[sel & 7], sizeof(int));
		return (sel & 0x40) ? (sel >> 3 & 3) : sizeof(int);
	}
	if (sel < 0xa0) {
		n = (uint32_t)strlen(devs[sel & 3]);
		memcpy(val, devs[sel & 3], n + 1);
		return (sel & 4) ? n + 1 : n;
	}
	n = u8(in) % 40;
	for (uint32_t i = 0; i < n; i++)
		val[i] = u8(in);
	return n;
}

/* Would the kernel read this IP_HDRINCL / IPV6_HDRINCL value as on? */
static bool hdrincl_on(int level, int name, const uint8_t *val,
		       uint32_t len)
{
	int v = 0;

	if (level == SOL_IP && name == IP_HDRINCL)
		return ps_ip_int_val(val, len) != 0;
	if ((level == SOL_IPV6 || level == SOL_RAW) && name == IPV6_HDRINCL &&
	    len >= sizeof(int))
		memcpy(&v, val, sizeof(v));
	return v != 0;
}

static void op_setopt(struct rd *in)
{
	struct slot *s = pick(u8(in));
	uint8_t o = u8(in), val[64], *p;
	int level = opts[o % NOPT].level, name = opts[o % NOPT].name;
	uint32_t len = make_val(val, u8(in), in);
	int rc;

	if (!s)
		return;
	if (o >= 0xf0) {	/* any level and name */
		level = u8(in);
		name = u8(in);
	}
	p = dup(val, len);
	rc = ps_setopt(s->sk, &env, level, name, p, len);
	free(p);
	if (rc > 0 || (rc == 0 && hdrincl_on(level, name, val, len)))
		abort();	/* a header of the program's own */
}

static void check_getopt(const struct slot *s, int level, int name,
			 const uint8_t *val, uint32_t len)
{
	int v;

	if (len < sizeof(int))
		return;
	memcpy(&v, val, sizeof(v));
	if (level == SOL_SOCKET && name == SO_TYPE &&
	    v != (s->raw ? SOCK_RAW : SOCK_DGRAM))
		abort();
	if ((name == IP_HDRINCL && level == SOL_IP && v != 0) ||
	    (name == IPV6_HDRINCL && level != SOL_SOCKET && level != SOL_IP &&
	     v != 0))
		abort();
	if (s->raw && s->family == AF_INET6 &&
	    (level == SOL_RAW || level == SOL_IPV6) &&
	    name == IPV6_CHECKSUM && v != 2 && v != -1)
		abort();
}

static void op_getopt(struct rd *in)
{
	static const uint32_t glens[] = { 4, 0, 1, 2, 8, 16, 64, 3 };
	struct slot *s = pick(u8(in));
	uint8_t o = u8(in), l = u8(in), *val;
	uint32_t want = glens[l & 7], len = want;
	int rc;

	if (!s)
		return;
	val = malloc(want ? want : 1);
	if (!val)
		abort();
	rc = ps_getopt(s->sk, &env, opts[o % NOPT].level, opts[o % NOPT].name,
		       val, &len);
	if (rc > 0 || (rc == 0 && len > want))
		abort();
	if (rc == 0)
		check_getopt(s, opts[o % NOPT].level, opts[o % NOPT].name, val,
			     len);
	free(val);
}

static void op_getname(struct rd *in)
{
	struct slot *s = pick(u8(in));
	bool peer = u8(in) & 1;
	uint8_t out[SA_MAX];
	uint16_t port;
	int rc;

	if (!s)
		return;
	rc = ps_getname(s->sk, peer, out);
	if (rc > (int)sizeof(struct sockaddr_in6) || (rc == 0 && !peer))
		abort();
	if (rc <= 0 || peer)
		return;
	memcpy(&port, out + 2, sizeof(port));	/* sin_port, sin6_port */
	if (ntohs(port) != (s->raw ? (s->family == AF_INET6 ? IPPROTO_ICMPV6
							    : IPPROTO_ICMP)
				   : ps_ident(s->sk)))
		abort();
}

static void op_shutdown(struct rd *in)
{
	struct slot *s = pick(u8(in));
	int how = (int)(u8(in) % 5) - 1;

	if (s && ps_shutdown(s->sk, how) > 0)
		abort();
}

static void close_slot(struct slot *s)
{
	uint16_t gone[PSRAW_MAX_IDENTS + 1];
	unsigned n = s->nheld;

	memcpy(gone, s->held, n * sizeof(gone[0]));
	pstab_close(tab, s->sk);
	s->sk = NULL;
	while (s->nheld)
		hold_drop(s, 0);
	for (unsigned i = 0; i < n; i++)
		check_ident(s->family, gone[i]);
}

static void op_close(struct rd *in)
{
	struct slot *s = pick(u8(in));

	if (s)
		close_slot(s);
}

/* A kernel ping socket (or a broker's) holds ident from now on. */
static void op_foreign(struct rd *in)
{
	uint8_t b = u8(in);
	int family = (b & 1) ? AF_INET6 : AF_INET;
	uint16_t ident = ident_of(b >> 1);

	pstab_add_foreign(tab, family, ident);
	foreign[fi(family)][ident] = 1;
}

/* ---- lookups from the input ---- */

static void fill_addr(struct ps_addr *a, int family, uint8_t i)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET6) {
		a->family = AF_INET6;
		memcpy(a->a, addr6[i % N6], 16);
	} else {
		ps_addr_v4(a, 0);
		memcpy(a->a, addr4[i % N4], 4);
	}
}

/*
 * A reply, error or other message: from a request that was sent, with
 * some of it changed (the socket's identifier now, another sequence
 * number, another source), or made up.
 */
static void op_lookup(struct rd *in)
{
	static const uint8_t types[] = { 0, 43, 3, 11, 129, 161, 1, 2 };
	uint8_t k = u8(in), t = u8(in), a = u8(in);
	uint16_t ri = u16(in), seq = u16(in);
	struct icmp_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = (k & 3) == 3 ? ICMP_K_OTHER : (k & 1) ? ICMP_K_ERROR
						      : ICMP_K_REPLY;
	p.type = (t & 0x80) ? t : types[t & 7];
	/* What the reply or the error's quote claims to answer. */
	if (p.kind == ICMP_K_ERROR)
		p.match = (t & 0x40) ? ICMP_M_PROBE : ICMP_M_ECHO;
	else if (icmp_is_probe(p.type))
		p.match = ICMP_M_PROBE_REPLY;
	if (nrec && !(k & 4)) {
		const struct rec *r = &recs[ri % nrec];
		const struct slot *s = &slots[r->slot];

		p.ident = (k & 8) && s->sk ? ps_ident(s->sk) : r->ident;
		p.seq = (k & 16) ? seq : r->seq;
		p.src = r->dst;
		if (k & 32)
			fill_addr(&p.src, r->dst.family, a);
	} else {
		fill_addr(&p.src, (k & 8) ? AF_INET6 : AF_INET, a);
		p.ident = ident_of((uint8_t)ri);
		p.seq = seq;
	}
	fill_addr(&p.dst, p.src.family, a >> 4);
	p.q_dst = p.src;
	p.q_src = p.dst;
	if (p.kind == ICMP_K_ERROR)
		fill_addr(&p.src, p.src.family, (uint8_t)(a + 3));
	lookup(&p, k >> 6);
}

/* ---- the session ---- */

enum {
	OP_OPEN, OP_BIND, OP_KEEPID, OP_CONNECT, OP_SEND, OP_BURST,
	OP_SETOPT, OP_GETOPT, OP_LOOKUP, OP_SHUTDOWN, OP_CLOSE,
	OP_FOREIGN, OP_GETNAME, OP_RAWCOMPAT, OP_TIME, OP_END
};

static void step(struct rd *in)
{
	uint8_t op = u8(in) % OP_END;

	switch (op) {
	case OP_OPEN: op_open(in); break;
	case OP_BIND: op_bind(in); break;
	case OP_KEEPID: op_keepid(in); break;
	case OP_CONNECT: op_connect(in); break;
	case OP_SEND: op_send(in); break;
	case OP_BURST: op_burst(in); break;
	case OP_SETOPT: op_setopt(in); break;
	case OP_GETOPT: op_getopt(in); break;
	case OP_LOOKUP: op_lookup(in); break;
	case OP_SHUTDOWN: op_shutdown(in); break;
	case OP_CLOSE: op_close(in); break;
	case OP_FOREIGN: op_foreign(in); break;
	case OP_GETNAME: op_getname(in); break;
	case OP_RAWCOMPAT: pstab_allow_raw(tab, !(u8(in) & 1)); break;
	default: now += (uint64_t)u8(in) * 4; break;
	}
	check_table();
}

/* Every identifier of every socket, once more, then close them all. */
static void finish(void)
{
	for (int i = 0; i < NSLOT; i++) {
		struct slot *s = &slots[i];

		for (unsigned k = 0; s->sk && k < s->nheld; k++)
			if (!holds(s, s->held[k]))
				abort();
	}
	for (int i = 0; i < NSLOT; i++)
		if (slots[i].sk)
			close_slot(&slots[i]);
	check_table();
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0 || distinct)
		abort();
	pstab_set_foreign(tab, AF_INET, NULL);
	pstab_set_foreign(tab, AF_INET6, NULL);
	memset(foreign, 0, sizeof(foreign));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd in = { data, size };

	if (!tab && !(tab = pstab_new(4000)))
		abort();
	pstab_allow_raw(tab, true);
	memset(bucket, 0xff, sizeof(bucket));
	nrec = 0;
	rec_full = false;
	sends = 0;
	while (in.n)
		step(&in);
	finish();
	return 0;
}
