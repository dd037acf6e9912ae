/* SPDX-License-Identifier: ISC */
/*
 * psock - the ping-socket protocol engine: the table of sockets and their
 * identifiers, and the semantics of each call (bind, connect, send,
 * get/setsockopt, getsockname) as the Linux kernel's ping socket has them
 * (net/ipv4/ping.c, net/ipv4/datagram.c, net/ipv4/ip_sockglue.c).
 *
 * Pure code: everything it needs to know about the host (is this address
 * local? which source address does a route give?) comes through struct
 * ps_env, so the unit tests drive it with byte arrays and a fake host.
 * Every call returns 0 (or a length) on success and -errno on failure.
 *
 * One engine for every socket: what differs by family (IPv4, IPv6) or by
 * kind (a ping socket, the raw-socket emulation) is the socket's own
 * operations (psock_int.h), so a caller asks the socket, never its kind.
 */
#ifndef PS_PSOCK_H
#define PS_PSOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/addr.h"
#include "engine/icmp.h"

/* Address types, as the kernel's inet_addr_type() gives them (RTN_*). */
enum ps_addr_type {
	PS_RTN_UNICAST = 1,
	PS_RTN_LOCAL = 2,
	PS_RTN_BROADCAST = 3,
	PS_RTN_MULTICAST = 5,
};

/* How a route is looked up (ps_env.route's flags). */
enum ps_route_flags {
	PS_ROUTE_BROADCAST = 1,	/* SO_BROADCAST: a broadcast address may
				 * be the destination */
	PS_ROUTE_DONTROUTE = 2,	/* SO_DONTROUTE (IPv4's RTO_ONLINK): only
				 * a destination on a link of ours */
};

struct ps_env {
	/* enum ps_addr_type of addr, looked up on ifindex (0: any device). */
	int (*addr_type)(void *ctx, const struct ps_addr *addr,
			 uint32_t ifindex);
	/*
	 * Route a datagram to dst as a connect() would, with the
	 * PS_ROUTE_* flags: 0 and the source address in *src, or -errno
	 * (-ENETUNREACH, also for a destination off-link with
	 * PS_ROUTE_DONTROUTE; -EACCES for a broadcast without
	 * PS_ROUTE_BROADCAST, ...).  src is preset to the bound address.
	 */
	int (*route)(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		     unsigned flags, struct ps_addr *src);
	/* ifindex of a device name, or -ENODEV. */
	int (*dev_index)(void *ctx, const char *name);
	/* The device's name into buf (IFNAMSIZ), or -ENODEV. */
	int (*dev_name)(void *ctx, uint32_t ifindex, char *buf);
	/* ifindex of the device that has this local address, or 0. */
	int (*addr_dev)(void *ctx, const struct ps_addr *addr);
	/* The path MTU a connect()ed socket would see (IP_MTU), or -errno. */
	int (*route_mtu)(void *ctx, const struct ps_addr *dst, uint32_t ifindex);
	/*
	 * IPv6: is addr one of ours, as ipv6_chk_addr() asks: on ifindex
	 * (0: any device), or with strict false also a global address of
	 * another device.
	 */
	bool (*local6)(void *ctx, const struct ps_addr *addr, uint32_t ifindex,
		       bool strict);
	void *ctx;
	int default_ttl;	/* net.ipv4.ip_default_ttl */
	bool nonlocal_bind;	/* net.ipv4.ip_nonlocal_bind */
	int no_pmtu_disc;	/* net.ipv4.ip_no_pmtu_disc */
	int default_hoplimit;	/* net.ipv6.conf.all.hop_limit */
	bool nonlocal_bind6;	/* net.ipv6.ip_nonlocal_bind */
	bool flowlabel_state_ranges;	/* net.ipv6.flowlabel_state_ranges */
};

struct pstab;
/*
 * Sockets that may share one identifier (SO_REUSEADDR, one uid): a
 * reply or error that none of them asked for is looked for in each one's
 * requests, and anyone can send such packets, so their number is the
 * cost of a packet.  The kernel has no bound (it delivers to the first
 * socket bound there, asked or not): pingsockd(8), differences.
 */
#define PS_MAX_IDENT_SHARE 64

struct psock;

struct pstab *pstab_new(uint16_t rover_seed);
void pstab_free(struct pstab *tab);

/*
 * Create a socket for socket(domain, type, protocol): -EAFNOSUPPORT,
 * -ESOCKTNOSUPPORT or -EPROTONOSUPPORT for anything but a ping socket,
 * -ENOMEM; SOCK_RAW: the raw-socket emulation (engine/psraw.h) where the
 * table allows it, -EPERM otherwise.  The caller keeps *out until
 * pstab_close().  (psopen.c)
 */
int pstab_open(struct pstab *tab, int domain, int type, int protocol,
	       uint32_t uid, struct psock **out);
void pstab_close(struct pstab *tab, struct psock *sk);
/*
 * The clock the table reads (monotonic, in ms) for what lasts a time of
 * its own: a released flow label lingers (engine/psflow.h).  Without
 * one, time stands still at 0 and nothing lingering ever expires.
 */
typedef uint64_t (*ps_clock)(void *ctx);
void pstab_set_clock(struct pstab *tab, ps_clock clock, void *ctx);
/* May pstab_open() create emulated raw sockets (policy raw_compat)? */
void pstab_allow_raw(struct pstab *tab, bool allow);

/*
 * Identifiers that something else uses (the kernel's own ping sockets in
 * /proc/net/icmp): bitmap of 65536 bits, byte i bit j = ident i*8+j.
 * Automatic binding avoids them.  NULL clears.
 */
void pstab_set_foreign(struct pstab *tab, int family, const uint8_t *bitmap);
/* One more identifier held outside (a broker socket), until the next
 * pstab_set_foreign. */
void pstab_add_foreign(struct pstab *tab, int family, uint16_t ident);
/*
 * Identifiers per user: the gate is asked before a socket of uid takes an
 * identifier no socket holds yet (delta 0: may it? false: refused, as a
 * full table would be: EADDRINUSE from bind(), EAGAIN from an automatic
 * binding), and told when the user takes one (delta 1) and when the last
 * socket lets go of one (delta -1).  NULL: no limit.
 */
typedef bool (*ps_ident_gate)(void *ctx, uint32_t uid, int delta);
void pstab_set_gate(struct pstab *tab, ps_ident_gate gate, void *ctx);
/*
 * Memory per user: the gate is asked before a socket's request log grows
 * (kib > 0: may uid hold kib KiB more? false: the log recycles its oldest
 * request instead), and told what is given back (kib < 0) when it did not
 * grow after all, or the socket goes.  NULL: no limit.
 */
typedef bool (*ps_mem_gate)(void *ctx, uint32_t uid, long kib);
void pstab_set_mem_gate(struct pstab *tab, ps_mem_gate gate, void *ctx);
/* A secret for the hash of the sockets' request logs made from now on
 * (reqlog_new_salted()): random, so that no user can pick requests that
 * share a chain.  0 (the default): none. */
void pstab_set_salt(struct pstab *tab, uint64_t salt);

/* Does a socket of the table hold ident? */
bool pstab_ident_used(const struct pstab *tab, int family, uint16_t ident);
/* Is ident held outside, as far as the table was told (set_foreign,
 * add_foreign)? */
bool pstab_ident_foreign(const struct pstab *tab, int family,
			 uint16_t ident);

unsigned pstab_sockets(const struct pstab *tab);
unsigned pstab_idents(const struct pstab *tab);

/*
 * The socket an incoming reply or error belongs to: identifier, bound
 * address and bound device as the kernel matches them (newest binding
 * first), and, stricter than the kernel, only a socket that sent the
 * request being answered.  ifindex is the incoming interface.
 */
struct psock *pstab_lookup(struct pstab *tab, const struct icmp_pkt *pkt,
			   uint32_t ifindex);

/* The calls.  sa/len are the caller's sockaddr bytes exactly as given. */
int ps_bind(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	    const uint8_t *sa, uint32_t len);
/* Where a connect() to the caller's sockaddr bytes goes, as the
 * destination policy must see it: the address, or for the unspecified
 * one this host's as the route picks it (the socket's source, its
 * device's, else 127.0.0.1; IPv6: ::1).  false if sa is no address of
 * the socket's family (the connect fails by itself). */
bool ps_connect_dest(const struct psock *sk, const struct ps_env *env,
		     const uint8_t *sa, uint32_t len, struct ps_addr *dst);
int ps_connect(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	       const uint8_t *sa, uint32_t len);
/* peer: getpeername.  Writes a sockaddr into out (>= 28 bytes). */
int ps_getname(const struct psock *sk, bool peer, uint8_t *out);
int ps_setopt(struct psock *sk, const struct ps_env *env, int level,
	      int name, const uint8_t *val, uint32_t len);
/* *len in: the caller's buffer size; out: bytes written. */
int ps_getopt(struct psock *sk, const struct ps_env *env, int level,
	      int name, uint8_t *val, uint32_t *len);
int ps_shutdown(struct psock *sk, int how);
/* WIRE_SHUT_* bits in force. */
uint32_t ps_shutdown_mask(const struct psock *sk);

/* What the daemon needs to put a request on the wire. */
struct ps_sendinfo {
	struct ps_addr dst;	/* as given: what the raw socket sends to */
	struct ps_addr reach;	/* the address it reaches: dst, but for IPv4's
				 * 0.0.0.0 this host's that the route picks
				 * (the policy, the reply's match and local
				 * errors see it) */
	struct ps_addr src;	/* family 0: let the route choose */
	uint32_t ifindex;	/* 0: any */
	int ttl;		/* per packet; -1: none given (IPv6: hop limit) */
	int mc_ttl;		/* for a group, when ttl is -1 */
	int tos;		/* IPv6: traffic class */
	uint32_t flowlabel;	/* IPv6, network order */
	uint8_t type, code;	/* of the request */
	int frag_size;		/* IPv6: IPV6_MTU, 0: the path's */
	bool dontfrag;		/* IPv6: IPV6_DONTFRAG */
	bool broadcast;		/* SO_BROADCAST */
	bool any_src;		/* a group or broadcast: any replier counts */
	bool mc_loop;		/* IP_MULTICAST_LOOP */
	bool dontroute;		/* IPv4: SO_DONTROUTE or MSG_DONTROUTE, so
				 * on-link destinations only */
	int pmtudisc;		/* IP_MTU_DISCOVER */
	uint16_t seq;
	uint16_t ident;		/* the identifier the request carries */
	uint8_t opts[40];	/* IP options for this request */
	uint8_t optlen;
};

/*
 * Check a send and rewrite the message in place (identifier, checksum),
 * binding the socket first if it is unbound, in the kernel's order of
 * checks.  name is NULL when the caller gave no address.  On 0 the daemon
 * sends msg as *info says, and calls ps_sent() if that succeeded.
 */
int ps_send_prepare(struct pstab *tab, struct psock *sk,
		    const struct ps_env *env, int flags, const uint8_t *name,
		    uint32_t namelen, const uint8_t *ctl, uint32_t ctllen,
		    uint8_t *msg, uint32_t len, struct ps_sendinfo *info);
void ps_sent(struct psock *sk, const struct ps_sendinfo *info,
	     uint64_t now_s);

/*
 * What ping_err() does with an ICMP error for this socket: nothing, set
 * the pending error only (a hard error on a connected socket), or also
 * queue a record on the error queue (IP_RECVERR).
 */
enum ps_err_action { PS_ERR_DROP, PS_ERR_SET, PS_ERR_QUEUE };
/*
 * A Packet Too Big (or Fragmentation Needed) for dst reached the host:
 * a route MTU changed, and the route the socket had cached for its
 * connected peer (IPV6_MTU reads it) is stale from the next send on.
 */
void ps_pmtu_changed(struct psock *sk, const struct ps_addr *dst);

enum ps_err_action ps_error_action(const struct psock *sk, bool hard);

/*
 * What reaches the socket, asked of it before anything is queued (an
 * emulated raw socket answers as a raw socket would, engine/psraw.h;
 * a ping socket: yes, no, no, no).
 *
 * Does a datagram of this ICMP type reach it (ICMP_FILTER, ICMP6_FILTER)?
 */
bool ps_delivers(const struct psock *sk, uint8_t type);
/* Does an ICMP error of this type also reach it as a datagram, whole? */
bool ps_error_datagram(const struct psock *sk, uint8_t type);
/*
 * Does it ignore an ICMP error of this type (neither the error queue nor
 * the pending error)?  raw_err() ignores Source Quench and Redirect,
 * which a ping socket reports.
 */
bool ps_error_ignored(const struct psock *sk, uint8_t type);
/* Do its IPv4 datagrams show the IP header (engine/rawhdr.h)? */
bool ps_rx_iphdr(const struct psock *sk);
/* Does a failed send queue a local error record (ip_local_error())? */
bool ps_local_errors(const struct psock *sk);
int ps_pmtudisc(const struct psock *sk);
uint32_t ps_tsflags(const struct psock *sk);

/* WIRE_CM_* flags: which ancillary data the receiver asked for. */
uint32_t ps_cmsg_flags(const struct psock *sk);
int ps_family(const struct psock *sk);
/* SOCK_DGRAM, or SOCK_RAW for the emulation: what SO_TYPE says. */
int ps_type(const struct psock *sk);
uint16_t ps_ident(const struct psock *sk);
uint32_t ps_uid(const struct psock *sk);
/* The receive buffer size the client asked for (SO_RCVBUF), 0 if not. */
int ps_rcvbuf(const struct psock *sk);
void ps_set_owner(struct psock *sk, void *owner);
void ps_set_pid(struct psock *sk, int32_t pid);
/*
 * setsockopt(SOL_IPV6, IPV6_FLOWLABEL_MGR): 0 or -errno; *label: the
 * label leased (network order), which the caller writes back into the
 * request when it asked for any.
 */
int ps_flowlabel_opt(struct psock *sk, const struct ps_env *env,
		     const uint8_t *val, uint32_t len, uint32_t *label);
void *ps_owner(const struct psock *sk);

#endif
