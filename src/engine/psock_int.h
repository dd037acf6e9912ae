/* SPDX-License-Identifier: ISC */
/*
 * psock_int - the engine's socket and the operations its variants plug
 * in, shared by the engine's modules.  Not for use outside src/engine.
 *
 * One engine (psock.c: the table, bind, connect, send, the questions of
 * delivery; psopt.c: the options) serves every socket; where sockets
 * differ, it calls the socket's operations, as the kernel's ping.c calls
 * pingv6_ops: those of its family (psock4.c, psock6.c) and those of its
 * kind (the ping socket's in psock.c, the raw-socket emulation's in
 * psraw.c).  pstab_open() (psopen.c) gives a new socket both.  The
 * variants call down into the engine; the engine never names them.
 */
#ifndef PS_PSOCK_INT_H
#define PS_PSOCK_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine/addr.h"
#include "engine/ipopt.h"
#include "engine/psock.h"
#include "engine/psoptip.h"
#include "engine/reqlog.h"

#define NIDENT 65536
/* Groups one IPv6 socket may join.  The kernel's limit is the socket's
 * option memory (net.core.optmem_max), ENOMEM past it; ours is a count. */
#define PS_MAX_MEMBERSHIPS 64
#define PS_MAX_MEMBERSHIPS4 20	/* net.ipv4.igmp_max_memberships' default */
/*
 * Leases one socket may hold, joins of shared ones included.  The kernel
 * limits only creating a lease (FL_MAX_PER_SOCK, in psflow.c), not
 * joining one; this bound keeps what a socket costs the daemon bounded,
 * far past any ordinary use: pingsockd(8), differences.
 */
#define PS_MAX_FLOWLABELS 4096

struct ps_family_ops;
struct ps_kind_ops;

/*
 * A socket.  A kind with state of its own allocates more (ps_kind_ops
 * size) and keeps it after this, which comes first.
 */
struct psock {
	struct psock *next;	/* in its identifier's chain, newest first */
	void *owner;
	const struct ps_family_ops *fam;
	const struct ps_kind_ops *kind;
	struct psock *parent;	/* a further identifier of another socket
				 * (psraw.c): the lookup answers with that */
	struct reqlog *log;
	uint32_t log_kib;	/* charged for it (pstab_set_mem_gate) */
	uint32_t uid;
	int family;
	uint16_t ident;		/* the kernel's inet_num; 0 = unbound */
	bool hashed;
	bool reuse;		/* SO_REUSEADDR, on from the start */
	bool addr_locked;	/* SOCK_BINDADDR_LOCK */
	bool port_locked;	/* SOCK_BINDPORT_LOCK */
	bool connected;
	bool broadcast;
	bool recverr;
	bool reuseport;
	bool dontroute;
	bool freebind;
	bool bind_no_port;
	bool rfc4884;
	bool rxq_ovfl;
	uint32_t shut;		/* WIRE_SHUT_* */
	struct ps_addr rcv_saddr;	/* replies must be sent to this */
	struct ps_addr saddr;		/* requests come from this */
	struct ps_addr daddr;
	uint16_t dport;
	uint32_t bound_dev;
	int uc_ttl;
	uint8_t tos;
	int mc_ttl;
	uint32_t mc_index;	/* IP_MULTICAST_IF */
	struct ps_addr mc_addr;
	bool mc_loop;
	uint32_t uc_index;	/* IP_UNICAST_IF: unicast requests' device */
	struct psoptip ipx;	/* the SOL_IP options kept only (psoptip.c) */
	int pmtudisc;
	uint32_t cmsg;		/* WIRE_CM_* */
	int rcvbuf;
	struct ipopt opts;	/* IP_OPTIONS */
	uint32_t tsflags;	/* SO_TIMESTAMPING */
	/* IPv6 (struct ipv6_pinfo) */
	int hop_limit;		/* IPV6_UNICAST_HOPS; -1: the route's */
	int mc_hops;		/* IPV6_MULTICAST_HOPS */
	bool mc6_loop;		/* IPV6_MULTICAST_LOOP */
	uint32_t mc6_oif;	/* IPV6_MULTICAST_IF */
	uint32_t ucast_oif;	/* IPV6_UNICAST_IF */
	uint8_t tclass;		/* IPV6_TCLASS */
	int pmtudisc6;		/* IPV6_MTU_DISCOVER */
	int frag_size;		/* IPV6_MTU (set) */
	bool recverr6;		/* IPV6_RECVERR */
	bool v6only;		/* IPV6_V6ONLY */
	bool sndflow;		/* IPV6_FLOWINFO_SEND */
	bool dontfrag;		/* IPV6_DONTFRAG */
	int autoflowlabel;	/* IPV6_AUTOFLOWLABEL; -1: not set */
	bool rfc4884_6;		/* IPV6_RECVERR_RFC4884 */
	bool mc6_all;		/* IPV6_MULTICAST_ALL */
	int min_hopcount;	/* IPV6_MINHOPCOUNT (ping_rcv() ignores it) */
	uint8_t srcprefs;	/* IPV6_ADDR_PREFERENCES: IPV6_PREFER_SRC_TMP,
				 * _PUBLIC, _COA as set (source selection
				 * by the route lookup ignores them here) */
	uint32_t flow_label;	/* of the connected peer, network order */
	uint32_t sticky_ifindex;	/* IPV6_PKTINFO (sticky) */
	struct ps_addr sticky_addr;
	uint32_t rxquiet;	/* receive options without effect on ping
				 * replies (extension headers, path MTU) */
	int cached_mtu;		/* of the connected route; 0: none */
	bool mtu_stale;		/* a PMTU change since it was cached */
	struct ps_mcast {
		uint8_t group[16];
		uint32_t ifindex;
	} mc[PS_MAX_MEMBERSHIPS];	/* IPV6_JOIN_GROUP */
	unsigned nmc;
	struct ps_mcast4 {
		uint32_t group, addr;	/* network order */
		uint32_t ifindex;
	} mc4[PS_MAX_MEMBERSHIPS4];	/* IP_ADD_MEMBERSHIP */
	unsigned nmc4;
	struct pstab *tab;	/* its table (the flow label leases) */
	int32_t pid;		/* of its creator (IPV6_FL_S_PROCESS) */
	/* Leased labels (network order), each with how many times the
	 * socket joined it; grown.  nfl counts the joins (the kernel's
	 * list has an entry for each), nfld the labels. */
	struct psfl_hold {
		uint32_t label;
		uint32_t n;
	} *fl;
	unsigned nfl, nfld, flcap;
};


/* An option hook's answer for an option it leaves to the next layer. */
#define PS_PASS 1


/*
 * What differs between IPv4 and IPv6 (psock4.c, psock6.c).  Every hook
 * is set unless it says otherwise.
 */
struct ps_family_ops {
	int family;		/* AF_INET, AF_INET6 */
	int protocol;		/* IPPROTO_ICMP, IPPROTO_ICMPV6 */
	/* getsockopt() at a level nobody knows: ip_getsockopt() says
	 * EOPNOTSUPP, ipv6_getsockopt() ENOPROTOOPT. */
	int unknown_level;
	/* The other family's receive options (WIRE_CM_*): they may be set
	 * but concern datagrams the socket never receives. */
	uint32_t cmsg_foreign;
	/* Do SO_DONTROUTE and MSG_DONTROUTE keep sends to on-link
	 * destinations?  IPv4: yes (RTO_ONLINK); the kernel's IPv6 ping
	 * socket ignores both. */
	bool dontroute;
	void (*init)(struct psock *sk);	/* NULL: nothing to add */
	/*
	 * ping_check_bind_addr(): the address and identifier a bind()
	 * names, and the device it binds (*dev comes as the bound one).
	 */
	int (*check_bind)(const struct psock *sk, const struct ps_env *env,
			  const uint8_t *sa, uint32_t len, struct ps_addr *addr,
			  uint16_t *ident, uint32_t *dev);
	/* The datagram connect(), once the socket has its identifier. */
	int (*datagram_connect)(struct psock *sk, const struct ps_env *env,
				const uint8_t *sa, uint32_t len);
	/*
	 * The family's part of a send, past the checks both share:
	 * destination, control messages, route, hop limit, into *info.
	 */
	int (*prepare_send)(struct psock *sk, const struct ps_env *env,
			    const uint8_t *name, uint32_t namelen,
			    const uint8_t *ctl, uint32_t ctllen,
			    struct ps_sendinfo *info);
	/* Do replies to this request come from anyone (a group, a
	 * broadcast)? */
	bool (*any_source)(const struct psock *sk, const struct ps_env *env,
			   const struct ps_sendinfo *info);
	/* The identifier into the message, and its checksum. */
	void (*set_ident)(uint8_t *msg, size_t len, uint16_t ident);
	/* getsockname()/getpeername(): a into out as the family shows it. */
	uint32_t (*getname)(const struct psock *sk, bool peer,
			    const struct ps_addr *a, uint16_t port, uint8_t *out);
	bool (*recverr)(const struct psock *sk);	/* IP(V6)_RECVERR */
	/* The family's own option level; PS_PASS for other levels.  NULL:
	 * none. */
	int (*setopt)(struct psock *sk, const struct ps_env *env, int level,
		      int name, const uint8_t *val, uint32_t len);
	int (*getopt)(const struct psock *sk, const struct ps_env *env,
		      int level, int name, uint8_t *val, uint32_t *len);
	/* IPV6_FLOWLABEL_MGR (ps_flowlabel_opt()); NULL: ENOPROTOOPT. */
	int (*flowlabel)(struct psock *sk, const struct ps_env *env,
			 const uint8_t *val, uint32_t len, uint32_t *label);
};

/*
 * What differs between a ping socket (ps_dgram_ops) and an emulated raw
 * one (psraw.c).  bind_addr and prepare_send are always set; a NULL hook
 * otherwise means: as a ping socket does.
 */
struct ps_kind_ops {
	int type;		/* SOCK_DGRAM, SOCK_RAW: what SO_TYPE says */
	size_t size;		/* of its socket: a struct psock, then its own */
	bool connect_binds;	/* connect() binds an identifier */
	void (*init)(struct psock *sk);
	/* Before the socket is released: what the kind holds. */
	void (*destroy)(struct pstab *tab, struct psock *sk);
	int (*bind_addr)(struct pstab *tab, struct psock *sk,
			 const struct ps_env *env, const uint8_t *sa,
			 uint32_t len);
	int (*prepare_send)(struct pstab *tab, struct psock *sk,
			    const struct ps_env *env, int flags,
			    const uint8_t *name, uint32_t namelen,
			    const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			    uint32_t len, struct ps_sendinfo *info);
	/* The socket whose log keeps a request sent with ident. */
	struct psock *(*sender)(struct psock *sk, uint16_t ident);
	/* The "port" getsockname() shows (a ping socket: its identifier). */
	uint16_t (*port)(const struct psock *sk);
	/* Options of the kind, asked first; PS_PASS: the socket's. */
	int (*setopt)(struct psock *sk, int level, int name,
		      const uint8_t *val, uint32_t len);
	int (*getopt)(const struct psock *sk, int level, int name,
		      uint8_t *val, uint32_t *len);
	/* The questions of delivery (psock.h: ps_delivers() and on). */
	bool (*delivers)(const struct psock *sk, uint8_t type);
	bool (*error_datagram)(const struct psock *sk, uint8_t type);
	bool (*error_ignored)(const struct psock *sk, uint8_t type);
	bool (*rx_iphdr)(const struct psock *sk);
};

/* psock.c: the ping socket's kind. */
extern const struct ps_kind_ops ps_dgram_ops;

/*
 * psock.c, for the variants: a socket with the defaults of its family
 * and kind, counted by the table (ps_create(), pstab_open()) or not (a
 * raw socket's further identifier); its release; the binding of an
 * identifier (bind()'s same-uid rule); the ping socket's send.
 */
int ps_create(struct pstab *tab, const struct ps_family_ops *fam,
	      const struct ps_kind_ops *kind, uint32_t uid,
	      struct psock **out);
int ps_alloc(struct pstab *tab, const struct ps_family_ops *fam,
	     const struct ps_kind_ops *kind, uint32_t uid,
	     struct psock **out);
void ps_release(struct pstab *tab, struct psock *sk);
int ps_hash_ident(struct pstab *tab, struct psock *sk, uint16_t ident);
/*
 * The route of a datagram connect() to dst through oif, for the families:
 * the socket takes the route's source where it has none, and dst as its
 * peer.
 */
int ps_connect_route(struct psock *sk, const struct ps_env *env,
		     const struct ps_addr *dst, uint16_t port, uint32_t oif,
		     unsigned route_flags);
bool pstab_raw_allowed(const struct pstab *tab);
int ps_dgram_send_prepare(struct pstab *tab, struct psock *sk,
			  const struct ps_env *env, int flags,
			  const uint8_t *name, uint32_t namelen,
			  const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			  uint32_t len, struct ps_sendinfo *info);
/* The daemon's flow label leases, and the table's clock (ms). */
struct psflow *pstab_flows(struct pstab *tab);
uint64_t pstab_now_ms(const struct pstab *tab);
/* The socket whose log keeps a request sent with ident (a raw socket's
 * further identifier has one of its own). */
struct psock *ps_sender(struct psock *sk, uint16_t ident);

/* psopt.c: an SOL_IP value as do_ip_setsockopt() reads it (an int, or
 * a byte when shorter). */
int ps_ip_int_val(const uint8_t *val, uint32_t len);

#endif
