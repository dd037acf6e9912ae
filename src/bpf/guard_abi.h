/* SPDX-License-Identifier: ISC */
/*
 * guard_abi - what the daemon (src/daemon/guard.c) and its BPF programs
 * (guard.bpf.c) share: the maps' keys and values.  Plain types only, so
 * that the same layout comes out of both compilers.
 */
#ifndef PS_GUARD_ABI_H
#define PS_GUARD_ABI_H

#include <linux/types.h>

#define GUARD_RING 64		/* requests a socket's replies are matched to */
#define GUARD_DESTS 16		/* distinct destinations counted, then "16+" */
#define GUARD_UIDS 65536	/* users with a rate bucket at once */
#define GUARD_LIVE 262144	/* brokered sockets open at once */
#define GUARD_NETS 1024		/* deny/allow lines, a family */

/* The policy's per-packet keys (the one entry of the conf map). */
struct guard_conf {
	__u32 rate;		/* requests a second, per uid; 0: none */
	__u32 burst;
	__u32 min_interval_ms;	/* between two requests of one socket */
	__u32 max_request;	/* bytes of ICMP message, header included */
	__u32 any_allow;	/* outside the allowed networks is denied */
	__u32 ready;		/* set once the daemon has written the rest */
	__u32 nets;		/* deny/allow lines: 0, no trie to look in */
	__u32 gen;		/* changed at each write: cached answers go */
};

/* LPM trie keys: prefix length in bits, then the address. */
struct guard_net4 {
	__u32 prefixlen;
	__u8 addr[4];
};

struct guard_net6 {
	__u32 prefixlen;
	__u8 addr[16];
};

/* The BPF side's spin lock; a plain word to the daemon (same layout). */
#ifdef __bpf__
#define GUARD_LOCK struct bpf_spin_lock
#else
#define GUARD_LOCK __u32
#endif

#define GUARD_NET_ALLOW 1
#define GUARD_NET_DENY 2

/* What the daemon and the audit record count for one socket. */
struct guard_counts {
	__u64 requests;		/* sent */
	__u64 replies;		/* delivered */
	__u64 refused;		/* sends the policy refused */
	__u64 forged;		/* replies to no request of the socket */
	__u32 ndests;		/* distinct destinations, up to GUARD_DESTS */
	__u32 capped;		/* more than GUARD_DESTS */
};

#define GUARD_REQ_USED 1
#define GUARD_REQ_PROBE 2	/* an Extended Echo Request (RFC 8335) */

/* One request sent, in the ring slot its sequence number picks. */
struct guard_req {
	__u8 addr[16];		/* destination (IPv4: the first 4 bytes) */
	__u16 seq;		/* the sequence field as sent (host order) */
	__u8 flags;
	__u8 pad;
};

/* Socket storage of a brokered socket, set by the daemon before it
 * hands the socket out.  Its counts are in the live map (by cookie), its
 * requests in the idents map (by identifier). */
struct guard_sock {
	__u32 uid;
	__u32 pad0;
	__u64 last_ns;		/* the last request's time, for min_interval */
	__u32 dests[GUARD_DESTS];	/* hashes of the destinations seen */
	__u32 ndests;
	__u32 capped;
	/* The last destination allowed, under the policy of conf.gen (a
	 * pinger sends to one: the trie and the list are not looked in). */
	__u8 last_dst[16];
	__u32 last_gen;		/* 0: none */
	__u32 pad;
};

/* An identifier a brokered socket holds, by family (AF_INET, AF_INET6):
 * the requests sent from it, for the netfilter program that checks the
 * ICMP errors quoting them (guard_nf.bpf.c). */
struct guard_ident {
	__u16 ident;
	__u8 family;
	__u8 pad;
};

#define GUARD_IDENT_CHOSEN 1	/* bound by its user's choice: unchecked */

struct guard_reqs {
	GUARD_LOCK lock;
	__u32 uid;
	__u32 flags;
	__u32 pad;
	struct guard_req ring[GUARD_RING];
};

/* A user's token bucket and totals. */
struct guard_user {
	GUARD_LOCK lock;
	__u32 pad;
	__u64 tokens_ns;	/* credit, in nanoseconds of rate */
	__u64 last_ns;
	__u64 requests, replies, refused, forged;
};

/* Left by the release program for the daemon's close record. */
struct guard_closed {
	__u32 uid;
	__u32 pad;
	struct guard_counts c;
};

#endif
