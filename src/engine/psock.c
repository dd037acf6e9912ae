#include "engine/psock.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/reqlog.h"
#include "wire/wire.h"

#define NIDENT 65536

struct psock {
	struct psock *next;	/* in its identifier's chain, newest first */
	void *owner;
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
	struct ps_addr rcv_saddr;	/* replies must be sent to this */
	struct ps_addr saddr;		/* requests come from this */
	struct ps_addr daddr;
	uint16_t dport;
	uint32_t bound_dev;
	int uc_ttl;
	uint8_t tos;
	int mc_ttl;
	bool mc_loop;
	int pmtudisc;
	uint32_t cmsg;		/* WIRE_CM_* */
	int rcvbuf;
	int err;		/* pending error (sk_err) */
};

struct pstab {
	struct psock **chain[2];	/* by family, indexed by identifier */
	uint8_t foreign[2][NIDENT / 8];
	uint16_t rover[2];
	unsigned nsockets;
	unsigned nidents;
};

static int fam_idx(int family)
{
	return family == AF_INET6 ? 1 : 0;
}

struct pstab *pstab_new(uint16_t rover_seed)
{
	struct pstab *tab = calloc(1, sizeof(*tab));

	if (!tab)
		return NULL;
	for (int i = 0; i < 2; i++) {
		tab->chain[i] = calloc(NIDENT, sizeof(struct psock *));
		if (!tab->chain[i]) {
			pstab_free(tab);
			return NULL;
		}
		tab->rover[i] = rover_seed;
	}
	return tab;
}

void pstab_free(struct pstab *tab)
{
	if (!tab)
		return;
	for (int i = 0; i < 2; i++) {
		for (size_t id = 0; tab->chain[i] && id < NIDENT; id++) {
			struct psock *sk = tab->chain[i][id], *nx;

			for (; sk; sk = nx) {
				nx = sk->next;
				sk->hashed = false;
			}
		}
		free(tab->chain[i]);
	}
	free(tab);
}

int pstab_open(struct pstab *tab, int domain, int type, int protocol,
	       uint32_t uid, struct psock **out)
{
	struct psock *sk;
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (domain != AF_INET && domain != AF_INET6)
		return -EAFNOSUPPORT;
	if (base != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != (domain == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6))
		return -EPROTONOSUPPORT;
	sk = calloc(1, sizeof(*sk));
	if (!sk)
		return -ENOMEM;
	sk->log = reqlog_new();
	if (!sk->log) {
		free(sk);
		return -ENOMEM;
	}
	sk->family = domain;
	sk->uid = uid;
	sk->reuse = true;
	sk->uc_ttl = -1;
	sk->mc_ttl = 1;
	sk->mc_loop = true;
	sk->pmtudisc = IP_PMTUDISC_WANT;
	sk->rcv_saddr.family = sk->saddr.family = (uint8_t)domain;
	sk->daddr.family = (uint8_t)domain;
	tab->nsockets++;
	*out = sk;
	return 0;
}

static void unhash(struct pstab *tab, struct psock *sk)
{
	struct psock **p;

	if (!sk->hashed)
		return;
	p = &tab->chain[fam_idx(sk->family)][sk->ident];
	while (*p && *p != sk)
		p = &(*p)->next;
	if (*p)
		*p = sk->next;
	if (!tab->chain[fam_idx(sk->family)][sk->ident])
		tab->nidents--;
	sk->hashed = false;
	sk->next = NULL;
	sk->ident = 0;
}

void pstab_close(struct pstab *tab, struct psock *sk)
{
	if (!sk)
		return;
	unhash(tab, sk);
	reqlog_free(sk->log);
	tab->nsockets--;
	free(sk);
}

void pstab_set_foreign(struct pstab *tab, int family, const uint8_t *bitmap)
{
	uint8_t *dst = tab->foreign[fam_idx(family)];

	if (bitmap)
		memcpy(dst, bitmap, NIDENT / 8);
	else
		memset(dst, 0, NIDENT / 8);
}

unsigned pstab_sockets(const struct pstab *tab)
{
	return tab->nsockets;
}

unsigned pstab_idents(const struct pstab *tab)
{
	return tab->nidents;
}

static bool ident_free(const struct pstab *tab, int fi, uint16_t id)
{
	return !tab->chain[fi][id] &&
	       !(tab->foreign[fi][id / 8] & (1u << (id % 8)));
}

/*
 * The kernel's ping_get_port().  Identifier 0 asks for one: the next free
 * one after the last handed out (a rover), never 0.  Sharing one is
 * allowed only when both sockets have SO_REUSEADDR, as in the kernel, and,
 * stricter than the kernel, only between sockets of the same uid.
 */
static int get_port(struct pstab *tab, struct psock *sk, uint16_t ident)
{
	int fi = fam_idx(sk->family);

	if (ident == 0) {
		uint16_t id = tab->rover[fi];
		long i;

		for (i = 0; i < NIDENT; i++) {
			id++;
			if (id == 0)
				id++;
			if (ident_free(tab, fi, id))
				break;
		}
		if (i == NIDENT)
			return -EADDRINUSE;
		tab->rover[fi] = ident = id;
	} else {
		for (struct psock *o = tab->chain[fi][ident]; o; o = o->next) {
			if (o->uid != sk->uid || !o->reuse || !sk->reuse)
				return -EADDRINUSE;
		}
	}
	if (!tab->chain[fi][ident])
		tab->nidents++;
	sk->ident = ident;
	sk->next = tab->chain[fi][ident];
	tab->chain[fi][ident] = sk;
	sk->hashed = true;
	return 0;
}

/* inet_autobind(): -EAGAIN when no identifier is left. */
static int autobind(struct pstab *tab, struct psock *sk)
{
	if (sk->ident)
		return 0;
	return get_port(tab, sk, 0) ? -EAGAIN : 0;
}

struct psock *pstab_lookup(struct pstab *tab, const struct icmp_pkt *pkt,
			   uint32_t ifindex)
{
	int fi = fam_idx(pkt->dst.family);
	const struct ps_addr *answered =
		pkt->kind == ICMP_K_ERROR ? &pkt->q_dst : &pkt->src;

	for (struct psock *sk = tab->chain[fi][pkt->ident]; sk; sk = sk->next) {
		if (!ps_addr_is_any(&sk->rcv_saddr) &&
		    !ps_addr_eq(&sk->rcv_saddr, &pkt->dst))
			continue;
		if (sk->bound_dev && sk->bound_dev != ifindex)
			continue;
		if (!reqlog_match(sk->log, pkt->seq, answered))
			continue;
		return sk;
	}
	return NULL;
}

/*
 * Parse an IPv4 socket address as the kernel does for this socket kind:
 * short -> EINVAL, other family -> EAFNOSUPPORT.  AF_UNSPEC with
 * INADDR_ANY passes where unspec_any allows it (bind).
 */
static int sa_parse4(const uint8_t *sa, uint32_t len, bool unspec_any,
		     struct ps_addr *addr, uint16_t *port)
{
	struct sockaddr_in sin;

	if (len < sizeof(sin))
		return -EINVAL;
	memcpy(&sin, sa, sizeof(sin));
	if (sin.sin_family != AF_INET &&
	    !(unspec_any && sin.sin_family == AF_UNSPEC &&
	      sin.sin_addr.s_addr == htonl(INADDR_ANY)))
		return -EAFNOSUPPORT;
	ps_addr_v4(addr, sin.sin_addr.s_addr);
	*port = ntohs(sin.sin_port);
	return 0;
}

/* ping_check_bind_addr() */
static int check_bind_addr(const struct psock *sk, const struct ps_env *env,
			   const uint8_t *sa, uint32_t len,
			   struct ps_addr *addr, uint16_t *ident)
{
	int err;

	if (sk->family != AF_INET)
		return -EAFNOSUPPORT;	/* IPv6: a later issue */
	err = sa_parse4(sa, len, true, addr, ident);
	if (err)
		return err;
	if (!ps_addr_is_any(addr) &&
	    env->addr_type(env->ctx, addr, sk->bound_dev) != PS_RTN_LOCAL)
		return -EADDRNOTAVAIL;
	return 0;
}

int ps_bind(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	    const uint8_t *sa, uint32_t len)
{
	struct ps_addr addr;
	uint16_t ident;
	int err = check_bind_addr(sk, env, sa, len, &addr, &ident);

	if (err)
		return err;
	if (sk->ident != 0)
		return -EINVAL;
	if (get_port(tab, sk, ident))
		return -EADDRINUSE;
	sk->rcv_saddr = sk->saddr = addr;
	sk->addr_locked = !ps_addr_is_any(&addr);
	sk->port_locked = ident != 0;
	sk->connected = false;
	memset(sk->daddr.a, 0, sizeof(sk->daddr.a));
	sk->dport = 0;
	return 0;
}

/* __udp_disconnect(), which ping sockets use. */
static void disconnect(struct pstab *tab, struct psock *sk)
{
	sk->connected = false;
	memset(sk->daddr.a, 0, sizeof(sk->daddr.a));
	sk->dport = 0;
	sk->bound_dev = 0;
	if (!sk->addr_locked) {
		memset(sk->rcv_saddr.a, 0, sizeof(sk->rcv_saddr.a));
		memset(sk->saddr.a, 0, sizeof(sk->saddr.a));
	}
	if (!sk->port_locked)
		unhash(tab, sk);
}

/* inet_dgram_connect() then ip4_datagram_connect(). */
int ps_connect(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	       const uint8_t *sa, uint32_t len)
{
	struct ps_addr dst, src;
	uint16_t family, port;
	int err;

	if (len < sizeof(family))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	if (family == AF_UNSPEC) {
		disconnect(tab, sk);
		return 0;
	}
	if (autobind(tab, sk))
		return -EAGAIN;
	if (sk->family != AF_INET)
		return -EAFNOSUPPORT;
	err = sa_parse4(sa, len, false, &dst, &port);
	if (err)
		return err;
	src = sk->saddr;
	err = env->route(env->ctx, &dst, sk->bound_dev, sk->broadcast, &src);
	if (err)
		return err;
	if (ps_addr_is_any(&sk->saddr))
		sk->saddr = src;
	if (ps_addr_is_any(&sk->rcv_saddr))
		sk->rcv_saddr = src;
	sk->daddr = dst;
	sk->dport = port;
	sk->connected = true;
	return 0;
}

int ps_getname(const struct psock *sk, bool peer, uint8_t *out)
{
	if (peer) {
		if (!sk->connected || sk->dport == 0)
			return -ENOTCONN;
		return (int)ps_addr_to_sockaddr(&sk->daddr, sk->dport, out);
	}
	return (int)ps_addr_to_sockaddr(&sk->rcv_saddr, sk->ident, out);
}

int ps_shutdown(struct psock *sk, int how)
{
	/* inet_shutdown(): an unconnected socket is in TCP_CLOSE, which
	 * answers ENOTCONN. */
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	return sk->connected ? 0 : -ENOTCONN;
}

/* ---- options ---- */

static int get_int_val(const uint8_t *val, uint32_t len, int *out)
{
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(out, val, sizeof(int));
	return 0;
}

/* do_ip_setsockopt() reads an int, or one byte when optlen is shorter. */
static int ip_int_val(const uint8_t *val, uint32_t len)
{
	int v = 0;

	if (len >= sizeof(int))
		memcpy(&v, val, sizeof(int));
	else if (len >= 1)
		v = val[0];
	return v;
}

static void set_flag(uint32_t *flags, uint32_t bit, bool on)
{
	if (on)
		*flags |= bit;
	else
		*flags &= ~bit;
}

/* sock_set_timestamp(): SO_TIMESTAMPNS implies SO_TIMESTAMP. */
static void set_tstamp(struct psock *sk, int name, bool on)
{
	bool is_new = name == SO_TIMESTAMP_NEW || name == SO_TIMESTAMPNS_NEW;
	bool ns = name == SO_TIMESTAMPNS_OLD || name == SO_TIMESTAMPNS_NEW;

	if (!on) {
		sk->cmsg &= ~(WIRE_CM_TIMESTAMP | WIRE_CM_TIMESTAMPNS);
		return;
	}
	set_flag(&sk->cmsg, WIRE_CM_TSTAMP_NEW, is_new);
	set_flag(&sk->cmsg, WIRE_CM_TIMESTAMPNS, ns);
	sk->cmsg |= WIRE_CM_TIMESTAMP;
}

static int sol_socket_set(struct psock *sk, int name, const uint8_t *val,
			  uint32_t len)
{
	int v, err = get_int_val(val, len, &v);

	if (err)
		return err;
	switch (name) {
	case SO_REUSEADDR:
		sk->reuse = v != 0;
		return 0;
	case SO_BROADCAST:
		sk->broadcast = v != 0;
		return 0;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMP_NEW:
	case SO_TIMESTAMPNS_NEW:
		set_tstamp(sk, name, v != 0);
		return 0;
	case SO_RCVBUF:
		sk->rcvbuf = v;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int sol_ip_set(struct psock *sk, int name, const uint8_t *val,
		      uint32_t len)
{
	int v = ip_int_val(val, len);

	switch (name) {
	case IP_PKTINFO:
		set_flag(&sk->cmsg, WIRE_CM_PKTINFO, v);
		return 0;
	case IP_RECVTTL:
		set_flag(&sk->cmsg, WIRE_CM_TTL, v);
		return 0;
	case IP_RECVTOS:
		set_flag(&sk->cmsg, WIRE_CM_TOS, v);
		return 0;
	case IP_RECVOPTS:
		set_flag(&sk->cmsg, WIRE_CM_RECVOPTS, v);
		return 0;
	case IP_RETOPTS:
		set_flag(&sk->cmsg, WIRE_CM_RETOPTS, v);
		return 0;
	case IP_RECVERR:
		sk->recverr = v != 0;
		return 0;
	case IP_TOS:
		sk->tos = (uint8_t)v;
		return 0;
	case IP_TTL:
		if (len < 1 || (v != -1 && (v < 1 || v > 255)))
			return -EINVAL;
		sk->uc_ttl = v;
		return 0;
	case IP_MTU_DISCOVER:
		if (v < IP_PMTUDISC_DONT || v > IP_PMTUDISC_OMIT)
			return -EINVAL;
		sk->pmtudisc = v;
		return 0;
	case IP_MULTICAST_TTL:
		if (len < 1)
			return -EINVAL;
		if (v == -1)
			v = 1;
		if (v < 0 || v > 255)
			return -EINVAL;
		sk->mc_ttl = v;
		return 0;
	case IP_MULTICAST_LOOP:
		if (len < 1)
			return -EINVAL;
		sk->mc_loop = v != 0;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

int ps_setopt(struct psock *sk, int level, int name, const uint8_t *val,
	      uint32_t len)
{
	if (level == SOL_SOCKET)
		return sol_socket_set(sk, name, val, len);
	if (level == SOL_IP && sk->family == AF_INET)
		return sol_ip_set(sk, name, val, len);
	return -ENOPROTOOPT;
}

static bool tstamp_get(const struct psock *sk, int name)
{
	bool ts = sk->cmsg & WIRE_CM_TIMESTAMP;
	bool ns = sk->cmsg & WIRE_CM_TIMESTAMPNS;
	bool is_new = sk->cmsg & WIRE_CM_TSTAMP_NEW;

	switch (name) {
	case SO_TIMESTAMP_OLD:
		return ts && !is_new && !ns;
	case SO_TIMESTAMP_NEW:
		return ts && is_new && !ns;
	case SO_TIMESTAMPNS_OLD:
		return ns && !is_new;
	default: /* SO_TIMESTAMPNS_NEW */
		return ns && is_new;
	}
}

static int sol_socket_get(struct psock *sk, int name, int *v)
{
	switch (name) {
	case SO_REUSEADDR:
		*v = sk->reuse;
		return 0;
	case SO_BROADCAST:
		*v = sk->broadcast;
		return 0;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMP_NEW:
	case SO_TIMESTAMPNS_NEW:
		*v = tstamp_get(sk, name);
		return 0;
	case SO_ERROR:
		*v = sk->err;
		sk->err = 0;
		return 0;
	case SO_TYPE:
		*v = SOCK_DGRAM;
		return 0;
	case SO_PROTOCOL:
		*v = sk->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		return 0;
	case SO_DOMAIN:
		*v = sk->family;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int sol_ip_get(const struct psock *sk, const struct ps_env *env,
		      int name, int *v)
{
	switch (name) {
	case IP_PKTINFO:
		*v = !!(sk->cmsg & WIRE_CM_PKTINFO);
		return 0;
	case IP_RECVTTL:
		*v = !!(sk->cmsg & WIRE_CM_TTL);
		return 0;
	case IP_RECVTOS:
		*v = !!(sk->cmsg & WIRE_CM_TOS);
		return 0;
	case IP_RECVOPTS:
		*v = !!(sk->cmsg & WIRE_CM_RECVOPTS);
		return 0;
	case IP_RETOPTS:
		*v = !!(sk->cmsg & WIRE_CM_RETOPTS);
		return 0;
	case IP_RECVERR:
		*v = sk->recverr;
		return 0;
	case IP_TOS:
		*v = sk->tos;
		return 0;
	case IP_TTL:
		*v = sk->uc_ttl >= 0 ? sk->uc_ttl : env->default_ttl;
		return 0;
	case IP_MTU_DISCOVER:
		*v = sk->pmtudisc;
		return 0;
	case IP_MULTICAST_TTL:
		*v = sk->mc_ttl;
		return 0;
	case IP_MULTICAST_LOOP:
		*v = sk->mc_loop;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

int ps_getopt(struct psock *sk, const struct ps_env *env, int level,
	      int name, uint8_t *val, uint32_t *len)
{
	int v, err;
	uint32_t n;

	if (level == SOL_SOCKET) {
		/* sk_getsockopt(): copies min(len, sizeof(int)) bytes. */
		err = sol_socket_get(sk, name, &v);
		if (err)
			return err;
		n = *len < sizeof(int) ? *len : sizeof(int);
		memcpy(val, &v, n);
		*len = n;
		return 0;
	}
	if (level != SOL_IP || sk->family != AF_INET)
		return -ENOPROTOOPT;
	err = sol_ip_get(sk, env, name, &v);
	if (err)
		return err;
	/* do_ip_getsockopt(): one byte when asked for less than an int. */
	if (*len < sizeof(int) && *len > 0 && v >= 0 && v <= 255) {
		val[0] = (uint8_t)v;
		*len = 1;
	} else {
		n = *len < sizeof(int) ? *len : sizeof(int);
		memcpy(val, &v, n);
		*len = n;
	}
	return 0;
}

/* ---- sending ---- */

/* ping_common_sendmsg(): length, flags and type, in the kernel's order. */
static int check_request(const struct psock *sk, int flags,
			 const uint8_t *msg, uint32_t len)
{
	if (len > WIRE_DATA_MAX)
		return -EMSGSIZE;
	if (len < ICMP_HDR_LEN)
		return -EINVAL;
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (!icmp_echo_type_ok(sk->family, msg[0], msg[1]))
		return -EINVAL;
	return 0;
}

static int send_dest(const struct psock *sk, const uint8_t *name,
		     uint32_t namelen, struct ps_addr *dst)
{
	uint16_t port;

	if (name)
		return sa_parse4(name, namelen, false, dst, &port);
	if (!sk->connected)
		return -EDESTADDRREQ;
	*dst = sk->daddr;
	return 0;
}

int ps_send_prepare(struct pstab *tab, struct psock *sk,
		    const struct ps_env *env, int flags, const uint8_t *name,
		    uint32_t namelen, const uint8_t *ctl, uint32_t ctllen,
		    uint8_t *msg, uint32_t len, struct ps_sendinfo *info)
{
	int err;

	memset(info, 0, sizeof(*info));
	/* inet_send_prepare() binds before the protocol looks at anything. */
	if (autobind(tab, sk))
		return -EAGAIN;
	err = check_request(sk, flags, msg, len);
	if (err)
		return err;
	if (sk->family != AF_INET)
		return -EAFNOSUPPORT;
	err = send_dest(sk, name, namelen, &info->dst);
	if (err)
		return err;
	if (ctllen)	/* per-packet options: a later issue */
		return -EINVAL;
	(void)ctl;
	if (sk->err) {
		err = -sk->err;
		sk->err = 0;
		return err;
	}
	info->src = sk->saddr;
	info->ifindex = sk->bound_dev;
	info->ttl = ps_addr_is_multicast(&info->dst) ? sk->mc_ttl : sk->uc_ttl;
	info->tos = sk->tos;
	info->broadcast = sk->broadcast;
	info->seq = (uint16_t)(msg[6] << 8 | msg[7]);
	icmp4_set_ident(msg, len, sk->ident);
	(void)env;
	return 0;
}

void ps_sent(struct psock *sk, const struct ps_sendinfo *info,
	     uint64_t now_s)
{
	bool any = ps_addr_is_multicast(&info->dst) || info->broadcast ||
		   ps_addr_is_any(&info->dst);

	reqlog_add(sk->log, info->seq, &info->dst, any, now_s);
}

uint32_t ps_cmsg_flags(const struct psock *sk) { return sk->cmsg; }
int ps_family(const struct psock *sk) { return sk->family; }
uint16_t ps_ident(const struct psock *sk) { return sk->ident; }
uint32_t ps_uid(const struct psock *sk) { return sk->uid; }
int ps_rcvbuf(const struct psock *sk) { return sk->rcvbuf; }
void ps_set_owner(struct psock *sk, void *owner) { sk->owner = owner; }
void *ps_owner(const struct psock *sk) { return sk->owner; }
