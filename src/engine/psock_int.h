/*
 * psock_int - the engine's socket, shared by its modules (psock.c: table,
 * bind, connect, send; psopt.c: options).  Not for use outside src/engine.
 */
#ifndef PS_PSOCK_INT_H
#define PS_PSOCK_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine/addr.h"
#include "engine/ipopt.h"
#include "engine/psock.h"
#include "engine/reqlog.h"

#define NIDENT 65536
/* Groups one IPv6 socket may join.  The kernel's limit is the socket's
 * option memory (net.core.optmem_max), ENOMEM past it; ours is a count. */
#define PS_MAX_MEMBERSHIPS 64
/* Flow labels one socket may lease (FL_MAX_PER_SOCK). */
#define PS_MAX_FLOWLABELS 32

struct psraw;

struct psock {
	struct psock *next;	/* in its identifier's chain, newest first */
	void *owner;
	struct psraw *raw;	/* the raw-socket emulation's state (psraw.c);
				 * NULL: a ping socket */
	struct psock *parent;	/* an emulated raw socket's further
				 * identifier: that socket (psraw.c) */
	struct reqlog *log;
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
	struct pstab *tab;	/* its table (the flow label leases) */
	int32_t pid;		/* of its creator (IPV6_FL_S_PROCESS) */
	uint32_t fl[PS_MAX_FLOWLABELS];	/* leased labels, network order */
	unsigned nfl;
};

/* The daemon's flow label leases (psock.c owns them). */
struct psflow *pstab_flows(struct pstab *tab);

/* psock6.c: the IPv6 halves of bind, connect and send. */
int ps6_check_bind(const struct psock *sk, const struct ps_env *env,
		   const uint8_t *sa, uint32_t len, struct ps_addr *addr,
		   uint16_t *ident, uint32_t *scope_dev);
int ps6_connect(struct psock *sk, const struct ps_env *env,
		const uint8_t *sa, uint32_t len);
int ps6_send_prepare(const struct psock *sk, const struct ps_env *env,
		     const uint8_t *name, uint32_t namelen,
		     const uint8_t *ctl, uint32_t ctllen,
		     struct ps_sendinfo *info);
void ps6_init(struct psock *sk);
/* The scope id getsockname/getpeername show for a (link-local) address. */
uint32_t ps6_scope_of(const struct ps_addr *a, uint32_t ifindex);
/* __sock_cmsg_send() for SOL_SOCKET messages (psock.c). */
int ps_sol_socket_cmsg(const struct cmsghdr *h, const uint8_t *data);
/*
 * Walk a sender's control messages as for_each_cmsghdr() and CMSG_OK()
 * do: SOL_SOCKET ones checked here, those of level given to fn, others
 * skipped.  The first error ends the walk.
 */
int ps_cmsg_walk(const uint8_t *ctl, uint32_t len, int level,
		 int (*fn)(void *arg, const struct cmsghdr *h,
			   const uint8_t *data),
		 void *arg);

/* psock.c, for psraw.c: a socket without the socket() checks or the
 * table's count, its release, and the binding of an identifier (the
 * same-uid rule of bind()). */
int ps_alloc(struct pstab *tab, int domain, uint32_t uid, struct psock **out);
void ps_release(struct pstab *tab, struct psock *sk);
int ps_hash_ident(struct pstab *tab, struct psock *sk, uint16_t ident);
bool pstab_raw_allowed(const struct pstab *tab);
/* The ping socket's send (ps_send_prepare() of a ping socket). */
int ps_dgram_send_prepare(struct pstab *tab, struct psock *sk,
			  const struct ps_env *env, int flags,
			  const uint8_t *name, uint32_t namelen,
			  const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			  uint32_t len, struct ps_sendinfo *info);

/* psopt.c: an SOL_IP value as do_ip_setsockopt() reads it (an int, or
 * a byte when shorter). */
int ps_ip_int_val(const uint8_t *val, uint32_t len);

/* psraw.c: the calls of an emulated raw socket, where they differ. */
int psraw_open(struct pstab *tab, int domain, int protocol, uint32_t uid,
	       struct psock **out);
void psraw_close(struct pstab *tab, struct psock *sk);
int psraw_send_prepare(struct pstab *tab, struct psock *sk,
		       const struct ps_env *env, int flags,
		       const uint8_t *name, uint32_t namelen,
		       const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
		       uint32_t len, struct ps_sendinfo *info);
/* The socket whose identifier a sent request carries (its log). */
struct psock *psraw_sender(struct psock *sk, uint16_t ident);
int psraw_bind(struct psock *sk, const struct ps_env *env,
	       const uint8_t *sa, uint32_t len);
/* The "port" getsockname() shows: the protocol, as inet_create() sets. */
uint16_t psraw_port(const struct psock *sk);
/* Options of the raw socket itself; PSRAW_PASS: an option of the ping
 * socket underneath (psopt.c goes on with it). */
#define PSRAW_PASS 1
int psraw_setopt(struct psock *sk, int level, int name, const uint8_t *val,
		 uint32_t len);
int psraw_getopt(const struct psock *sk, int level, int name, uint8_t *val,
		 uint32_t *len);

#endif
