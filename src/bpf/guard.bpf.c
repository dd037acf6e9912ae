/* SPDX-License-Identifier: ISC */
/*
 * guard.bpf - broker mode's per-packet policy, in the kernel.
 *
 * Attached to the cgroup pingsockd lives in, these programs see every
 * packet of every socket the daemon made, whoever holds the socket now
 * (a socket belongs to its creator's cgroup for life).  Ping sockets the
 * daemon handed out carry socket storage (struct guard_sock) that the
 * daemon set before the hand-out; a ping socket without it is refused
 * both ways, so nothing the daemon did not register can pass.  Every
 * other socket of the daemon (its raw sockets, its own UDP) passes.
 *
 *   egress:  destination deny/allow (LPM tries), max_request, min_interval
 *            per socket, rate per uid (token bucket); records the request
 *            for the reply check; counts.  A refusal fails the send: the
 *            hook offers EPERM (policy) and ENOBUFS (congestion) only.
 *   ingress: an Echo Reply reaches the socket only if it answers a request
 *            the socket sent (sequence, and the address it went to).
 *   release: the socket's counts, left for the daemon's close record.
 * After each packet the socket's counts are copied to the live map, by
 * cookie, for the daemon's table; each request is also recorded under
 * its identifier (idents), for the ICMP errors' check (guard_nf.bpf.c).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>

#include "bpf/guard_abi.h"

char LICENSE[] SEC("license") = "ISC";

#define PASS 1
#define DROP 0		/* the send fails with EPERM */
#define DROP_CN 2	/* the send fails with ENOBUFS */
#define SOCK_DGRAM 2
#define NSEC 1000000000ull
#define LOOPBACK_IFINDEX 1	/* lo, in every network namespace */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct guard_conf);
} conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, GUARD_NETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct guard_net4);
	__type(value, __u8);
} nets4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, GUARD_NETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct guard_net6);
	__type(value, __u8);
} nets6 SEC(".maps");

/* The local broadcast addresses (the daemon keeps them current). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u8);
} bcast4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct guard_sock);
} socks SEC(".maps");

#include "bpf/guard_maps.h"	/* users, idents: shared with guard_nf */

/* Close records, until the daemon's next scan takes them (a hash, not an
 * LRU: one user's churn must not evict another's). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GUARD_LIVE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct guard_closed);
} closed SEC(".maps");

/* Each live socket's counts, by cookie, for the daemon's table: a copy of
 * its storage's, published after each packet (the daemon has no
 * descriptor of the socket to read that with). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GUARD_LIVE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct guard_counts);
} live SEC(".maps");

/* One ICMP message as the programs read it. */
struct pkt {
	__u8 addr[16];	/* egress: the destination; ingress: the source */
	__u32 len;	/* bytes of ICMP message */
	__u16 seq;
	__u8 type;
	__u8 v6;
};

static __always_inline bool is_ping(const struct bpf_sock *sk)
{
	return sk->type == SOCK_DGRAM &&
	       (sk->protocol == IPPROTO_ICMP || sk->protocol == IPPROTO_ICMPV6);
}

/* The ping socket behind skb, or NULL for any other socket. */
static __always_inline struct bpf_sock *ping_sock(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return NULL;
	sk = bpf_sk_fullsock(sk);
	return sk && is_ping(sk) ? sk : NULL;
}

/* type, seq of the ICMP header at off. */
static __always_inline int read_icmp(struct __sk_buff *skb, __u32 off,
				     struct pkt *p)
{
	__u8 h[8];

	if (bpf_skb_load_bytes(skb, off, h, sizeof(h)))
		return -1;
	p->type = h[0];
	p->seq = (__u16)(h[6] << 8 | h[7]);
	p->len = skb->len - off;
	return 0;
}

static __always_inline int parse4(struct __sk_buff *skb, struct pkt *p,
				  bool egress, __u32 *hl)
{
	struct {
		struct iphdr ip;
		__u8 icmp[8];
	} h;

	/* The header and the ICMP header at once when there are no options
	 * (one load, the usual packet). */
	if (bpf_skb_load_bytes(skb, 0, &h, sizeof(h)) &&
	    bpf_skb_load_bytes(skb, 0, &h.ip, sizeof(h.ip)))
		return -1;
	*hl = (__u32)h.ip.ihl * 4;
	if (*hl < sizeof(h.ip) || h.ip.protocol != IPPROTO_ICMP)
		return -1;
	__builtin_memset(p->addr, 0, sizeof(p->addr));
	__builtin_memcpy(p->addr, egress ? &h.ip.daddr : &h.ip.saddr, 4);
	p->v6 = 0;
	if (*hl != sizeof(h.ip) || skb->len < sizeof(h))
		return read_icmp(skb, *hl, p);
	p->type = h.icmp[0];
	p->seq = (__u16)(h.icmp[6] << 8 | h.icmp[7]);
	p->len = skb->len - *hl;
	return 0;
}

/* Hop-by-hop and destination options are stepped over; a routing
 * header (its addresses would escape the destination check) is not. */
static __always_inline int parse6(struct __sk_buff *skb, struct pkt *p,
				  bool egress)
{
	struct ipv6hdr ip;
	__u32 off = sizeof(ip);
	__u8 nh, eh[2];

	if (bpf_skb_load_bytes(skb, 0, &ip, sizeof(ip)))
		return -1;
	nh = ip.nexthdr;
	for (int i = 0; i < 4 && (nh == 0 || nh == 60); i++) {
		if (bpf_skb_load_bytes(skb, off, eh, sizeof(eh)))
			return -1;
		nh = eh[0];
		off += ((__u32)eh[1] + 1) * 8;
	}
	if (nh != IPPROTO_ICMPV6)
		return -1;
	__builtin_memcpy(p->addr, egress ? &ip.daddr : &ip.saddr, 16);
	p->v6 = 1;
	return read_icmp(skb, off & 0xffff, p);
}

static __always_inline bool net_allowed4(const struct guard_conf *c,
					 const __u8 *a)
{
	struct guard_net4 k = { .prefixlen = 32 };
	__u8 *v;

	__builtin_memcpy(k.addr, a, 4);
	v = bpf_map_lookup_elem(&nets4, &k);
	return v ? *v != GUARD_NET_DENY : !c->any_allow;
}

static __always_inline bool net_allowed6(const struct guard_conf *c,
					 const __u8 *a)
{
	struct guard_net6 k = { .prefixlen = 128 };
	__u8 *v;

	__builtin_memcpy(k.addr, a, 16);
	v = bpf_map_lookup_elem(&nets6, &k);
	return v ? *v != GUARD_NET_DENY : !c->any_allow;
}

/*
 * A strict or loose source route names the hops the request will visit
 * and, last, the destination the caller gave: every one must be allowed.
 */
struct optscan {
	__u8 o[64];	/* indexed & 63: the verifier's bound */
	__u32 olen, i, at, len;
	bool bad;
};

/* One option (bpf_loop's callback: verified once, not per turn). */
static long scan_opt(__u32 n, void *data)
{
	struct optscan *s = data;
	__u8 t = s->o[s->i & 63], l = s->o[(s->i + 1) & 63];

	if (s->i >= s->olen || t == 0)
		return 1;
	if (t == 1) {
		s->i++;
		return 0;
	}
	if (l < 2) {
		s->bad = true;
		return 1;
	}
	if (t == 131 || t == 137) {
		s->at = s->i;
		s->len = l;
	}
	s->i += l;
	return 0;
}

static __always_inline bool route_allowed4(struct __sk_buff *skb,
					   const struct guard_conf *c,
					   __u32 hl)
{
	struct optscan s = { .olen = hl - 20 };

	if (s.olen == 0)
		return true;
	if (s.olen > 40 || bpf_skb_load_bytes(skb, 20, s.o, s.olen & 63))
		return false;
	/* The kernel compiled these options (one route at most): find it. */
	bpf_loop(40, scan_opt, &s, 0);
	if (s.bad)
		return false;
	for (__u32 j = 3; j + 4 <= s.len && j < 40; j += 4) {
		__u8 a[4];

		for (int b = 0; b < 4; b++)
			a[b] = s.o[(s.at + j + b) & 63];
		if (!net_allowed4(c, a))
			return false;
	}
	return true;
}

static __always_inline bool dest_allowed(struct __sk_buff *skb,
					 const struct guard_conf *c,
					 const struct pkt *p, __u32 hl)
{
	if (p->v6)
		return net_allowed6(c, p->addr);
	return net_allowed4(c, p->addr) && route_allowed4(skb, c, hl);
}

static __always_inline bool same16(const __u8 *a, const __u8 *b)
{
	__u64 x[2], y[2];

	__builtin_memcpy(x, a, 16);
	__builtin_memcpy(y, b, 16);
	return x[0] == y[0] && x[1] == y[1];
}

/* May replies to a request sent to p's address come from any address (a
 * group, a broadcast address of this namespace, the unspecified)? */
static __always_inline bool any_source(const __u8 *addr, bool v6)
{
	__u32 a4;

	if (v6) {
		__u64 w0, w1;

		__builtin_memcpy(&w0, addr, 8);
		__builtin_memcpy(&w1, addr + 8, 8);
		return addr[0] == 0xff || (w0 == 0 && w1 == 0);
	}
	__builtin_memcpy(&a4, addr, 4);
	if ((addr[0] & 0xf0) == 0xe0 || a4 == 0 || a4 == 0xffffffff)
		return true;
	return bpf_map_lookup_elem(&bcast4, &a4) != NULL;
}

/* The user's entry (the daemon makes it; the programs only for a socket
 * an earlier daemon handed out).  NULL: the map is full. */
static __always_inline struct guard_user *user_of(__u32 uid)
{
	struct guard_user *u = bpf_map_lookup_elem(&users, &uid), fresh = {};

	if (u)
		return u;
	bpf_map_update_elem(&users, &uid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&users, &uid);
}

/* The user's bucket: may one more request go now? */
static __always_inline bool take_token(struct guard_user *u,
				       const struct guard_conf *c, __u64 now)
{
	__u64 cost = NSEC / c->rate, cap = cost * (c->burst ? c->burst : 1);
	bool ok;

	bpf_spin_lock(&u->lock);
	if (now > u->last_ns) {
		u->tokens_ns += now - u->last_ns;
		u->last_ns = now;
	}
	if (u->tokens_ns > cap)
		u->tokens_ns = cap;
	ok = u->tokens_ns >= cost;
	if (ok)
		u->tokens_ns -= cost;
	bpf_spin_unlock(&u->lock);
	return ok;
}

static __always_inline __u32 addr_hash(const struct pkt *p)
{
	__u32 w[4];

	__builtin_memcpy(w, p->addr, 16);
	return (w[0] ^ (w[1] * 0x9e3779b1u) ^ (w[2] * 0x85ebca6bu) ^
		(w[3] * 0xc2b2ae35u)) | 1;	/* never 0, a free slot */
}

static __always_inline __u32 slot_of(__u16 seq, bool probe)
{
	return (probe ? seq >> 8 : seq) % GUARD_RING;
}

/* A destination counted, once (GUARD_DESTS,
 * then capped).  1 if it is a new one. */
static __always_inline int count_dest(struct guard_sock *g, __u32 h)
{
	for (int i = 0; i < GUARD_DESTS; i++) {
		if (g->dests[i] == h)
			return 0;
		if (g->dests[i] == 0) {
			g->dests[i] = h;
			g->ndests++;
			return 1;
		}
	}
	g->capped = 1;
	return 0;
}

/* The socket's counts (the daemon's table and close record read them). */
static __always_inline struct guard_counts *counts_of(struct __sk_buff *skb)
{
	__u64 cookie = bpf_get_socket_cookie(skb);

	return bpf_map_lookup_elem(&live, &cookie);
}

static __always_inline int refuse(struct guard_counts *lc,
				  const struct guard_sock *g, int verdict)
{
	struct guard_user *u = bpf_map_lookup_elem(&users, &g->uid);

	if (lc)
		__sync_fetch_and_add(&lc->refused, 1);
	if (u)
		__sync_fetch_and_add(&u->refused, 1);
	return verdict;
}

/* The request, under its identifier: the replies and the ICMP errors
 * that answer it are checked against it (here and guard_nf.bpf.c). */
static __always_inline void record(const struct bpf_sock *sk,
				   const struct pkt *p, bool probe)
{
	struct guard_ident k = {
		.ident = (__u16)sk->src_port, .family = p->v6 ? 10 : 2,
	};
	struct guard_reqs *rq = bpf_map_lookup_elem(&idents, &k);
	struct guard_req *r;

	if (!rq)
		return;
	r = &rq->ring[slot_of(p->seq, probe)];
	bpf_spin_lock(&rq->lock);
	__builtin_memcpy(r->addr, p->addr, 16);
	r->seq = p->seq;
	r->flags = GUARD_REQ_USED | (probe ? GUARD_REQ_PROBE : 0);
	bpf_spin_unlock(&rq->lock);
}

/* min_interval and the socket's destinations: 0 to go,
 * -1 too early.  same: to the destination allowed last, under this
 * policy (counted already); *fresh: a destination not seen before. */
static __always_inline int pace(struct guard_sock *g,
				const struct guard_conf *c,
				const struct pkt *p, __u64 now, bool same,
				int *fresh)
{
	__u64 gap = (__u64)c->min_interval_ms * 1000000u;
	__u32 h = same ? 0 : addr_hash(p);
	int rc = 0;

	/* No lock: only egress writes these, and a socket's sends are
	 * serialised (lock_sock, under which the hook runs). */
	if (gap && g->last_ns && now - g->last_ns < gap) {
		rc = -1;
	} else {
		g->last_ns = now;
		if (!same) {
			*fresh = count_dest(g, h);
			__builtin_memcpy(g->last_dst, p->addr, 16);
			g->last_gen = c->gen;
		}
	}
	return rc;
}

SEC("cgroup_skb/egress")
int ps_egress(struct __sk_buff *skb)
{
	struct bpf_sock *sk = ping_sock(skb);
	struct guard_counts *lc;
	struct guard_user *u;
	struct guard_sock *g;
	struct guard_conf *c;
	struct pkt p = {};
	__u32 zero = 0, hl = 0;
	__u64 now;
	int rc, fresh = 0;
	bool same;

	if (!sk)
		return PASS;
	g = bpf_sk_storage_get(&socks, sk, 0, 0);
	c = bpf_map_lookup_elem(&conf, &zero);
	if (!g || !c || !c->ready)
		return DROP;
	lc = counts_of(skb);
	rc = sk->family == 10 ? parse6(skb, &p, true)
			      : parse4(skb, &p, true, &hl);
	if (rc || (p.type != 8 && p.type != 42 && p.type != 128 &&
		   p.type != 160))
		return refuse(lc, g, DROP);
	if (p.len > c->max_request)
		return refuse(lc, g, DROP);
	/* Read unlocked: a socket's sends are serialised (lock_sock), and
	 * the hook runs under that lock. */
	same = hl <= 20 && g->last_gen == c->gen && c->gen &&
	       same16(g->last_dst, p.addr);
	if (!same && (c->nets || hl > 20) && !dest_allowed(skb, c, &p, hl))
		return refuse(lc, g, DROP);
	/* The clock only for a rule that reads it (the defaults have none;
	 * a socket's last send then reads 0: the first one after a SIGHUP
	 * sets min_interval goes, as a new socket's would). */
	now = c->rate || c->min_interval_ms ? bpf_ktime_get_ns() : 0;
	if (pace(g, c, &p, now, same, &fresh))
		return refuse(lc, g, DROP_CN);
	u = user_of(g->uid);
	if (c->rate && (!u || !take_token(u, c, now)))
		return refuse(lc, g, DROP_CN);
	record(sk, &p, p.type == 42 || p.type == 160);
	if (u)
		__sync_fetch_and_add(&u->requests, 1);
	if (lc) {
		__sync_fetch_and_add(&lc->requests, 1);
		if (fresh)
			__sync_fetch_and_add(&lc->ndests, 1);
		if (g->capped)
			lc->capped = 1;
	}
	return PASS;
}


/*
 * Does the reply in p answer a request of the identifier's?  1: yes;
 * 2: the sequence matches but the reply comes from elsewhere (*dst: where
 * the request went, for a group's check); 0: no.
 */
static __always_inline int answers(struct guard_reqs *rq, const struct pkt *p,
				   bool probe, __u8 *dst)
{
	struct guard_req *r = &rq->ring[slot_of(p->seq, probe)];
	int rc = 0;

	bpf_spin_lock(&rq->lock);
	if ((r->flags & GUARD_REQ_USED) &&
	    !(r->flags & GUARD_REQ_PROBE) == !probe &&
	    (probe ? (r->seq >> 8) == (p->seq >> 8) : r->seq == p->seq)) {
		rc = same16(r->addr, p->addr) ? 1 : 2;
		__builtin_memcpy(dst, r->addr, 16);
	}
	bpf_spin_unlock(&rq->lock);
	return rc;
}

/* An Echo Reply or an Extended Echo Reply (ICMP or ICMPv6), not an
 * error. */
static __always_inline bool replies_type(__u8 type)
{
	return type == 0 || type == 43 || type == 129 || type == 161;
}

SEC("cgroup_skb/ingress")
int ps_ingress(struct __sk_buff *skb)
{
	struct bpf_sock *sk = ping_sock(skb);
	struct guard_ident k = {};
	struct guard_conf *c;
	__u32 zero = 0;
	struct guard_counts *lc;
	struct guard_reqs *rq;
	struct pkt p = {};
	__u8 dst[16] = {};
	__u32 hl = 0;
	bool probe, ok;
	int rc;

	if (!sk)
		return PASS;
	k.ident = (__u16)sk->src_port;
	k.family = sk->family == 10 ? 10 : 2;
	rq = bpf_map_lookup_elem(&idents, &k);
	if (!rq)
		return DROP;	/* not a socket the daemon handed out */
	rc = sk->family == 10 ? parse6(skb, &p, false)
			      : parse4(skb, &p, false, &hl);
	if (rc)
		return DROP;
	probe = p.type == 43 || p.type == 161;
	rc = answers(rq, &p, probe, dst);
	/* A reply on the loopback device comes from this host itself (only
	 * root could forge one there): to a group or broadcast request the
	 * host's own answer can come before egress has recorded the request
	 * (the looped-back copy is handled first). */
	ok = rc == 1 || (rc == 2 && any_source(dst, p.v6)) ||
	     skb->ingress_ifindex == LOOPBACK_IFINDEX;
	/* The deny list holds for who answers, as in relay mode: a
	 * broadcast or group the policy allows is answered by the hosts of
	 * a denied network too.  Dropped, not counted as forged. */
	c = bpf_map_lookup_elem(&conf, &zero);
	if (ok && c && c->nets && replies_type(p.type) &&
	    !(p.v6 ? net_allowed6(c, p.addr) : net_allowed4(c, p.addr)))
		return DROP;
	lc = counts_of(skb);
	if (lc)
		__sync_fetch_and_add(ok ? &lc->replies : &lc->forged, 1);
	return ok ? PASS : DROP;
}

SEC("cgroup/sock_release")
int ps_release(struct bpf_sock *sk)
{
	struct guard_closed rec = {};
	struct guard_counts *lc;
	struct guard_sock *g;
	__u64 cookie;

	if (!is_ping(sk))
		return 1;
	g = bpf_sk_storage_get(&socks, sk, 0, 0);
	if (!g)
		return 1;
	cookie = bpf_get_socket_cookie(sk);
	lc = bpf_map_lookup_elem(&live, &cookie);
	if (!lc)
		return 1;
	rec.uid = g->uid;
	rec.c = *lc;
	/* Full: the live entry stays, for the daemon to read instead. */
	if (bpf_map_update_elem(&closed, &cookie, &rec, BPF_ANY) == 0)
		bpf_map_delete_elem(&live, &cookie);
	return 1;
}
