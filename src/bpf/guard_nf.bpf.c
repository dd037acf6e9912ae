/* SPDX-License-Identifier: ISC OR GPL-2.0-only */
/*
 * guard_nf.bpf - broker mode's check of ICMP errors, at netfilter's
 * LOCAL_IN hook of the daemon's network namespace.
 *
 * An ICMP error reaches a ping socket's error queue without passing the
 * socket's cgroup programs (guard.bpf.c), so this program looks at every
 * ICMP (ICMPv6) error the namespace receives: one that quotes an Echo
 * Request (or an Extended Echo Request) from an identifier a brokered
 * socket holds must quote a request that identifier really sent (its
 * sequence, to the address it went to), as the relay requires; anything
 * else about it is dropped before the kernel looks for the socket.
 * Errors for other identifiers, and every other packet, pass; so do errors
 * for an identifier its user chose (a bind to it): a raw-socket tool
 * (traceroute, mtr) picks its identifier itself, and a user must not be
 * able to aim the check at it.  An IPv6 packet whose extension headers
 * cannot be followed (more than EXT6_MAX) is dropped.
 *
 * Reading an skb from a netfilter program takes a kfunc, which the kernel
 * offers only to GPL-compatible programs: this file is offered under the
 * GPL as well as the ISC licence, and says "Dual BSD/GPL" to the kernel.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_helpers.h>

#include "bpf/guard_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NF_DROP 0
#define NF_ACCEPT 1
#define AF_INET_ 2
#define AF_INET6_ 10

#include "bpf/guard_maps.h"

struct sk_buff;
struct nf_hook_state;

/* The program's context (CO-RE: relocated to the running kernel's). */
struct bpf_nf_ctx {
	const struct nf_hook_state *state;
	struct sk_buff *skb;
} __attribute__((preserve_access_index));

extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;

/* Errors dropped, for the daemon's counters. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} nf_drops SEC(".maps");

/* What an error quotes: the request's identifier, sequence, destination. */
struct quoted {
	__u8 dst[16];
	__u16 ident, seq;
	bool probe;
};

#define EXT6_MAX 8	/* extension headers followed; more: unreadable */

/*
 * Steps over the IPv6 extension headers the kernel itself skips on the way
 * to the ICMPv6 header (ipv6_skip_exthdr()): hop-by-hop, routing,
 * destination options, AH, and a first fragment's header; a later
 * fragment ends the walk there, as in the kernel.  -1: more than
 * EXT6_MAX, or unreadable.
 */
static __always_inline int skip6(struct bpf_dynptr *d, __u32 *off, __u8 *nh)
{
	__u8 eh[4];

	for (int i = 0; i < EXT6_MAX + 1; i++) {
		if (*nh != 0 && *nh != 43 && *nh != 44 && *nh != 51 &&
		    *nh != 60)
			return 0;
		if (i == EXT6_MAX ||
		    bpf_dynptr_read(eh, sizeof(eh), d, *off & 0xffff, 0))
			return -1;
		if (*nh == 44 && ((eh[2] << 8 | eh[3]) & ~7))
			return 0;	/* not the first fragment */
		if (*nh == 44)
			*off += 8;
		else if (*nh == 51)
			*off += ((__u32)eh[1] + 2) * 4;
		else
			*off += ((__u32)eh[1] + 1) * 8;
		*nh = eh[0];
	}
	return -1;
}

/* The quoted Echo Request at off (the ICMP header after the quoted IP
 * header); 1 if there is one. */
static __always_inline int quoted_echo(struct bpf_dynptr *d, __u32 off,
				       bool v6, struct quoted *q)
{
	__u8 h[8];

	if (bpf_dynptr_read(h, sizeof(h), d, off & 0xffff, 0))
		return 0;
	if (v6 ? h[0] != 128 && h[0] != 160 : h[0] != 8 && h[0] != 42)
		return 0;
	q->probe = h[0] == 42 || h[0] == 160;
	q->ident = (__u16)(h[4] << 8 | h[5]);
	q->seq = (__u16)(h[6] << 8 | h[7]);
	return 1;
}

/* An IPv4 ICMP error quoting an Echo Request: 1, and q. */
static __always_inline int error4(struct bpf_dynptr *d, struct quoted *q)
{
	__u8 ip[24], t;
	__u32 off;

	/* The header and, without options, the ICMP type in one read (every
	 * packet of the namespace comes here).  Shorter than 24 bytes: no
	 * ICMP error, which quotes at least 28 more. */
	if (bpf_dynptr_read(ip, sizeof(ip), d, 0, 0) || ip[9] != IPPROTO_ICMP)
		return 0;
	off = (__u32)(ip[0] & 0xf) * 4;
	t = ip[20];
	if (off != 20 && bpf_dynptr_read(&t, 1, d, off, 0))
		return 0;
	if (t != 3 && t != 4 && t != 5 && t != 11 && t != 12)
		return 0;
	off += 8;
	if (bpf_dynptr_read(ip, sizeof(ip), d, off, 0) ||
	    ip[9] != IPPROTO_ICMP)
		return 0;
	__builtin_memset(q->dst, 0, sizeof(q->dst));
	__builtin_memcpy(q->dst, ip + 16, 4);
	return quoted_echo(d, off + (__u32)(ip[0] & 0xf) * 4, false, q);
}

/* An ICMPv6 error quoting an Echo Request: 1, and q; 0: none; -1: an
 * error whose headers cannot be followed (dropped: the kernel might). */
static __always_inline int error6(struct bpf_dynptr *d, struct quoted *q)
{
	__u8 ip[40], t[1], nh;
	__u32 off = 40;

	if (bpf_dynptr_read(ip, sizeof(ip), d, 0, 0))
		return 0;
	nh = ip[6];
	if (skip6(d, &off, &nh))
		return -1;
	if (nh != IPPROTO_ICMPV6 ||
	    bpf_dynptr_read(t, 1, d, off & 0xffff, 0) || t[0] < 1 || t[0] > 4)
		return 0;
	off += 8;
	if (bpf_dynptr_read(ip, sizeof(ip), d, off & 0xffff, 0))
		return 0;
	__builtin_memcpy(q->dst, ip + 24, 16);
	nh = ip[6];
	off += 40;
	if (skip6(d, &off, &nh))
		return -1;
	if (nh != IPPROTO_ICMPV6)
		return 0;
	return quoted_echo(d, off, true, q);
}

static __always_inline bool same16(const __u8 *a, const __u8 *b)
{
	__u64 x[2], y[2];

	__builtin_memcpy(x, a, 16);
	__builtin_memcpy(y, b, 16);
	return x[0] == y[0] && x[1] == y[1];
}

/* Did the identifier send the request q quotes? */
static __always_inline bool sent(struct guard_reqs *rq, const struct quoted *q)
{
	__u32 slot = (q->probe ? q->seq >> 8 : q->seq) % GUARD_RING;
	struct guard_req *r = &rq->ring[slot];
	bool ok;

	bpf_spin_lock(&rq->lock);
	ok = (r->flags & GUARD_REQ_USED) &&
	     !(r->flags & GUARD_REQ_PROBE) == !q->probe &&
	     (q->probe ? (r->seq >> 8) == (q->seq >> 8) : r->seq == q->seq) &&
	     same16(r->addr, q->dst);	/* a group's too: errors quote it */
	bpf_spin_unlock(&rq->lock);
	return ok;
}

static __always_inline int count_drop(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&nf_drops, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
	return NF_DROP;
}

static __always_inline int check(struct bpf_nf_ctx *ctx, bool v6)
{
	struct guard_ident k = { .family = v6 ? AF_INET6_ : AF_INET_ };
	struct bpf_dynptr d;
	struct guard_reqs *rq;
	struct guard_user *u;
	struct quoted q = {};
	int rc;

	if (bpf_dynptr_from_skb((struct __sk_buff *)ctx->skb, 0, &d))
		return NF_ACCEPT;
	rc = v6 ? error6(&d, &q) : error4(&d, &q);
	if (rc < 0)
		return count_drop();
	if (rc == 0)
		return NF_ACCEPT;
	k.ident = q.ident;
	rq = bpf_map_lookup_elem(&idents, &k);
	if (!rq || (rq->flags & GUARD_IDENT_CHOSEN) || sent(rq, &q))
		return NF_ACCEPT;
	u = bpf_map_lookup_elem(&users, &rq->uid);
	if (u)
		__sync_fetch_and_add(&u->forged, 1);
	return count_drop();
}

SEC("socket")	/* the loader makes it BPF_PROG_TYPE_NETFILTER */
int ps_nf_in4(struct bpf_nf_ctx *ctx)
{
	return check(ctx, false);
}

SEC("socket")
int ps_nf_in6(struct bpf_nf_ctx *ctx)
{
	return check(ctx, true);
}
