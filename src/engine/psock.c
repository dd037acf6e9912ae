#include "engine/psock.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psflow.h"
#include "engine/psraw.h"
#include "engine/psock_int.h"
#include "engine/reqlog.h"
#include "wire/wire.h"

struct pstab {
	struct psock **chain[2];	/* by family, indexed by identifier */
	struct psflow *flows;		/* IPv6 flow label leases */
	uint8_t foreign[2][NIDENT / 8];
	uint16_t rover[2];
	unsigned nsockets;
	unsigned nidents;
	bool raw_allowed;		/* the raw-socket emulation (psraw.c) */
	ps_ident_gate gate;		/* per-user identifiers (pstab_set_gate) */
	void *gate_ctx;
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
	tab->flows = psflow_new(0x01000193u * (rover_seed + 1u));
	if (!tab->flows) {
		free(tab);
		return NULL;
	}
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
	psflow_free(tab->flows);
	free(tab);
}

/* A socket with the kernel's defaults (inet_create(), ping_init_sock()). */
int ps_alloc(struct pstab *tab, int domain, uint32_t uid, struct psock **out)
{
	struct psock *sk = calloc(1, sizeof(*sk));

	if (!sk)
		return -ENOMEM;
	sk->log = reqlog_new();
	if (!sk->log) {
		free(sk);
		return -ENOMEM;
	}
	sk->family = domain;
	sk->tab = tab;
	sk->uid = uid;
	sk->reuse = true;
	sk->uc_ttl = -1;
	sk->mc_ttl = 1;
	sk->mc_loop = true;
	sk->pmtudisc = IP_PMTUDISC_WANT;
	sk->rcv_saddr.family = sk->saddr.family = (uint8_t)domain;
	sk->daddr.family = (uint8_t)domain;
	sk->mc_addr.family = (uint8_t)domain;
	if (domain == AF_INET6)
		ps6_init(sk);
	*out = sk;
	return 0;
}

int pstab_open(struct pstab *tab, int domain, int type, int protocol,
	       uint32_t uid, struct psock **out)
{
	int base = type & 0xf;	/* SOCK_TYPE_MASK */
	int err;

	/* __sys_socket(), __sock_create(), then inet_create()'s search of
	 * the protocols registered for the type. */
	if (type & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC) || base >= 11)
		return -EINVAL;
	if (domain != AF_INET && domain != AF_INET6)
		return -EAFNOSUPPORT;
	if (base == SOCK_RAW)	/* needs CAP_NET_RAW, or the emulation */
		err = psraw_open(tab, domain, protocol, uid, out);
	else if (base != SOCK_DGRAM && base != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	else if (base == SOCK_STREAM ||
		 protocol != (domain == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6))
		return -EPROTONOSUPPORT;
	else
		err = ps_alloc(tab, domain, uid, out);
	if (err)
		return err;
	tab->nsockets++;
	return 0;
}

void pstab_allow_raw(struct pstab *tab, bool allow)
{
	tab->raw_allowed = allow;
}

bool pstab_raw_allowed(const struct pstab *tab)
{
	return tab->raw_allowed;
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
	if (!tab->chain[fam_idx(sk->family)][sk->ident]) {
		tab->nidents--;
		if (tab->gate)
			tab->gate(tab->gate_ctx, sk->uid, -1);
	}
	sk->hashed = false;
	sk->next = NULL;
	sk->ident = 0;
}

void ps_release(struct pstab *tab, struct psock *sk)
{
	unhash(tab, sk);
	psflow_release_all(tab->flows, sk);
	reqlog_free(sk->log);
	free(sk);
}

void pstab_close(struct pstab *tab, struct psock *sk)
{
	if (!sk)
		return;
	if (sk->raw)
		psraw_close(tab, sk);
	ps_release(tab, sk);
	tab->nsockets--;
}

void pstab_set_foreign(struct pstab *tab, int family, const uint8_t *bitmap)
{
	uint8_t *dst = tab->foreign[fam_idx(family)];

	if (bitmap)
		memcpy(dst, bitmap, NIDENT / 8);
	else
		memset(dst, 0, NIDENT / 8);
}

void pstab_add_foreign(struct pstab *tab, int family, uint16_t ident)
{
	tab->foreign[fam_idx(family)][ident / 8] |= (uint8_t)(1u << (ident % 8));
}

void pstab_set_gate(struct pstab *tab, ps_ident_gate gate, void *ctx)
{
	tab->gate = gate;
	tab->gate_ctx = ctx;
}

bool pstab_ident_used(const struct pstab *tab, int family, uint16_t ident)
{
	return tab->chain[fam_idx(family)][ident] != NULL;
}

struct psflow *pstab_flows(struct pstab *tab)
{
	return tab->flows;
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

	/* A new identifier for this user, if its share allows one. */
	if ((ident == 0 || !tab->chain[fi][ident]) && tab->gate &&
	    !tab->gate(tab->gate_ctx, sk->uid, 0))
		return -EADDRINUSE;
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
		/* A kernel ping socket holds it: replies would reach both. */
		if (tab->foreign[fi][ident / 8] & (1u << (ident % 8)))
			return -EADDRINUSE;
		for (struct psock *o = tab->chain[fi][ident]; o; o = o->next) {
			if (o->uid != sk->uid || !o->reuse || !sk->reuse)
				return -EADDRINUSE;
		}
	}
	if (!tab->chain[fi][ident]) {
		tab->nidents++;
		if (tab->gate)
			tab->gate(tab->gate_ctx, sk->uid, 1);
	}
	sk->ident = ident;
	sk->next = tab->chain[fi][ident];
	tab->chain[fi][ident] = sk;
	sk->hashed = true;
	return 0;
}

int ps_hash_ident(struct pstab *tab, struct psock *sk, uint16_t ident)
{
	return get_port(tab, sk, ident);
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
		/* A raw socket's further identifier answers for it. */
		return sk->parent ? sk->parent : sk;
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

	err = sa_parse4(sa, len, true, addr, ident);
	if (err)
		return err;
	if (ps_addr_is_any(addr))
		return 0;
	switch (env->addr_type(env->ctx, addr, sk->bound_dev)) {
	case PS_RTN_LOCAL:
		return 0;
	case PS_RTN_MULTICAST:
	case PS_RTN_BROADCAST:
		return -EADDRNOTAVAIL;
	default:	/* inet_can_nonlocal_bind() */
		return sk->freebind || env->nonlocal_bind ? 0 : -EADDRNOTAVAIL;
	}
}

int ps_bind(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	    const uint8_t *sa, uint32_t len)
{
	struct ps_addr addr;
	uint32_t old_dev = sk->bound_dev, dev = sk->bound_dev;
	uint16_t ident;
	int err;

	if (sk->raw)
		return psraw_bind(sk, env, sa, len);
	if (sk->family == AF_INET6)
		err = ps6_check_bind(sk, env, sa, len, &addr, &ident, &dev);
	else
		err = check_bind_addr(sk, env, sa, len, &addr, &ident);
	if (err)
		return err;
	/* ping_check_bind_addr() binds a scoped address's device at once,
	 * and ping_bind() puts the old one back only when the identifier
	 * is taken. */
	sk->bound_dev = dev;
	if (sk->ident != 0)
		return -EINVAL;
	if (get_port(tab, sk, ident)) {
		sk->bound_dev = old_dev;
		return -EADDRINUSE;
	}
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
	/* An identifier bound automatically goes, and with it what was
	 * sent with it: a reply must name the identifier of its request. */
	if (!sk->port_locked && sk->ident) {
		unhash(tab, sk);
		reqlog_clear(sk->log);
	}
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
	/* A raw socket has no identifier to bind: its sends name theirs. */
	if (!sk->raw && autobind(tab, sk))
		return -EAGAIN;
	if (sk->family == AF_INET6)
		return ps6_connect(sk, env, sa, len);
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
	struct ps_addr a = peer ? sk->daddr : sk->rcv_saddr;
	uint16_t port = peer ? sk->dport : sk->raw ? psraw_port(sk) : sk->ident;
	socklen_t n;

	if (peer && (!sk->connected || sk->dport == 0))
		return -ENOTCONN;
	if (sk->family != AF_INET6)
		return (int)ps_addr_to_sockaddr(&a, port, out);
	/* inet6_getname(): the bound device as scope of a link-local
	 * address; the peer's flow label with IPV6_FLOWINFO_SEND. */
	a.scope = ps6_scope_of(&a, sk->bound_dev);
	n = ps_addr_to_sockaddr(&a, port, out);
	if (peer && sk->sndflow)
		memcpy(out + offsetof(struct sockaddr_in6, sin6_flowinfo),
		       &sk->flow_label, sizeof(sk->flow_label));
	return (int)n;
}

int ps_shutdown(struct psock *sk, int how)
{
	/* inet_shutdown(): an unconnected socket is in TCP_CLOSE, which
	 * answers ENOTCONN. */
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	/* The flags are set either way (the kernel's "hack to wake up other
	 * listeners"). */
	sk->shut |= (uint32_t)(how + 1);
	return sk->connected ? 0 : -ENOTCONN;
}

uint32_t ps_shutdown_mask(const struct psock *sk)
{
	return sk->shut;
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

static int cmsg_int(const struct cmsghdr *h, const uint8_t *data, int *v)
{
	if (h->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EINVAL;
	memcpy(v, data, sizeof(int));
	return 0;
}

/* __sock_cmsg_send(): what a SOL_SOCKET control message may be. */
int ps_sol_socket_cmsg(const struct cmsghdr *h, const uint8_t *data)
{
	uint32_t v;

	switch (h->cmsg_type) {
	case SO_MARK:
	case SO_PRIORITY:
		if (h->cmsg_len != CMSG_LEN(sizeof(uint32_t)))
			return -EINVAL;
		memcpy(&v, data, sizeof(v));
		/* Marks and priorities above 6 need CAP_NET_ADMIN. */
		return h->cmsg_type == SO_PRIORITY && v <= 6 ? 0 : -EPERM;
	case SO_TIMESTAMPING_OLD:
	case SO_TIMESTAMPING_NEW:
		return h->cmsg_len == CMSG_LEN(sizeof(uint32_t)) ? 0 : -EINVAL;
	case SCM_TXTIME:
		return h->cmsg_len == CMSG_LEN(sizeof(uint64_t)) ? 0 : -EINVAL;
	case SCM_RIGHTS:
	case SCM_CREDENTIALS:
		return 0;	/* accepted and ignored, as by inet sockets */
	default:
		return -EINVAL;
	}
}

/* ip_cmsg_send(): IP_PKTINFO, IP_TTL and IP_TOS per packet. */
static int sol_ip_cmsg(const struct cmsghdr *h, const uint8_t *data,
		       struct ps_sendinfo *info)
{
	struct in_pktinfo pi;
	int v;

	switch (h->cmsg_type) {
	case IP_PKTINFO:
		if (h->cmsg_len != CMSG_LEN(sizeof(pi)))
			return -EINVAL;
		memcpy(&pi, data, sizeof(pi));
		info->ifindex = (uint32_t)pi.ipi_ifindex;
		if (pi.ipi_spec_dst.s_addr)
			ps_addr_v4(&info->src, pi.ipi_spec_dst.s_addr);
		return 0;
	case IP_TTL:
		if (cmsg_int(h, data, &v) || v < 1 || v > 255)
			return -EINVAL;
		info->ttl = v;
		return 0;
	case IP_TOS:
		if (h->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&v, data, sizeof(int));
		else if (h->cmsg_len == CMSG_LEN(1))
			v = data[0];
		else
			return -EINVAL;
		if (v < 0 || v > 255)
			return -EINVAL;
		info->tos = v;
		return 0;
	case IP_RETOPTS: {
		struct ipopt o;
		size_t n = h->cmsg_len - CMSG_LEN(0);
		int err = ipopt_set(&o, data, n < IPOPT_MAX ? n : IPOPT_MAX);

		if (err)
			return err;
		memcpy(info->opts, o.b, o.len);
		info->optlen = (uint8_t)o.len;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/*
 * Walk the caller's control messages as for_each_cmsghdr() and CMSG_OK()
 * do; other levels than SOL_SOCKET and SOL_IP are skipped.
 */
int ps_cmsg_walk(const uint8_t *ctl, uint32_t len, int level,
		 int (*fn)(void *arg, const struct cmsghdr *h,
			   const uint8_t *data),
		 void *arg)
{
	size_t off = 0;

	while (len >= sizeof(struct cmsghdr) &&
	       off + sizeof(struct cmsghdr) <= len) {
		struct cmsghdr h;
		int err = 0;

		memcpy(&h, ctl + off, sizeof(h));
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > len - off)
			return -EINVAL;
		if (h.cmsg_level == SOL_SOCKET)
			err = ps_sol_socket_cmsg(&h, ctl + off + CMSG_LEN(0));
		else if (h.cmsg_level == level)
			err = fn(arg, &h, ctl + off + CMSG_LEN(0));
		if (err)
			return err;
		off += CMSG_ALIGN(h.cmsg_len);
	}
	return 0;
}

static int ip_cmsg_cb(void *arg, const struct cmsghdr *h, const uint8_t *data)
{
	return sol_ip_cmsg(h, data, arg);
}

static int parse_ctl(const uint8_t *ctl, uint32_t len,
		     struct ps_sendinfo *info)
{
	return ps_cmsg_walk(ctl, len, SOL_IP, ip_cmsg_cb, info);
}

/* The IPv6 send, past the checks both families share. */
static int send6_prepare(struct psock *sk, const struct ps_env *env,
			 const uint8_t *name, uint32_t namelen,
			 const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			 uint32_t len, struct ps_sendinfo *info)
{
	int err = ps6_send_prepare(sk, env, name, namelen, ctl, ctllen, info);

	if (err)
		return err;
	/* sk_dst_check(): a stale cached route is dropped by a send. */
	if (sk->mtu_stale)
		sk->cached_mtu = 0;
	if (sk->shut & WIRE_SHUT_WR)
		return -EPIPE;
	info->any_src = ps_addr_is_multicast(&info->dst);
	info->seq = icmp_echo_seq(msg);
	icmp6_set_ident(msg, len, sk->ident);
	return 0;
}

int ps_send_prepare(struct pstab *tab, struct psock *sk,
		    const struct ps_env *env, int flags, const uint8_t *name,
		    uint32_t namelen, const uint8_t *ctl, uint32_t ctllen,
		    uint8_t *msg, uint32_t len, struct ps_sendinfo *info)
{
	return (sk->raw ? psraw_send_prepare : ps_dgram_send_prepare)(
		tab, sk, env, flags, name, namelen, ctl, ctllen, msg, len, info);
}

int ps_dgram_send_prepare(struct pstab *tab, struct psock *sk,
			  const struct ps_env *env, int flags,
			  const uint8_t *name, uint32_t namelen,
			  const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			  uint32_t len, struct ps_sendinfo *info)
{
	int err;

	memset(info, 0, sizeof(*info));
	if (len >= 2) {
		info->type = msg[0];
		info->code = msg[1];
	}
	/* inet_send_prepare() binds before the protocol looks at anything. */
	if (autobind(tab, sk))
		return -EAGAIN;
	info->ident = sk->ident;
	err = check_request(sk, flags, msg, len);
	if (err)
		return err;
	if (sk->family == AF_INET6)
		return send6_prepare(sk, env, name, namelen, ctl, ctllen, msg,
				     len, info);
	err = send_dest(sk, name, namelen, &info->dst);
	if (err)
		return err;
	info->src = sk->saddr;
	info->ifindex = sk->bound_dev;
	info->ttl = -1;
	info->tos = sk->tos;
	memcpy(info->opts, sk->opts.b, sk->opts.len);
	info->optlen = (uint8_t)sk->opts.len;
	err = parse_ctl(ctl, ctllen, info);
	if (err)
		return err;
	if (ps_addr_is_multicast(&info->dst)) {
		/* ping_v4_sendmsg(): the socket's multicast interface and
		 * address unless the packet names its own. */
		if (!info->ifindex)
			info->ifindex = sk->mc_index;
		if (ps_addr_is_any(&info->src))
			info->src = sk->mc_addr;
		/* A group's TTL may be 0 (this host only), which no IP_TTL
		 * control message can say: it goes as the raw socket's
		 * IP_MULTICAST_TTL instead. */
		info->mc_ttl = sk->mc_ttl;
		if (info->ttl < 0)
			info->ttl = -2;
	}
	if (info->ttl == -2)
		info->ttl = -1;
	else if (info->ttl < 0)
		info->ttl = sk->uc_ttl;
	/* sock_alloc_send_skb(), once the route is known.  (The pending
	 * error, checked next there, lives in the socket's shared page: the
	 * daemon looks at it.) */
	if (sk->shut & WIRE_SHUT_WR)
		return -EPIPE;
	info->broadcast = sk->broadcast;
	info->mc_loop = sk->mc_loop;
	info->pmtudisc = sk->pmtudisc;
	/* Replies to a broadcast or multicast request come from anyone;
	 * only a socket allowed to broadcast needs the route type asked. */
	info->any_src = ps_addr_is_multicast(&info->dst) ||
			ps_addr_is_any(&info->dst) ||
			(sk->broadcast &&
			 env->addr_type(env->ctx, &info->dst, info->ifindex) ==
				 PS_RTN_BROADCAST);
	info->seq = icmp_echo_seq(msg);
	icmp4_set_ident(msg, len, sk->ident);
	return 0;
}

void ps_pmtu_changed(struct psock *sk, const struct ps_addr *dst)
{
	if (sk->connected && ps_addr_eq(&sk->daddr, dst))
		sk->mtu_stale = true;
}

void ps_sent(struct psock *sk, const struct ps_sendinfo *info,
	     uint64_t now_s)
{
	if (sk->raw)
		sk = psraw_sender(sk, info->ident);
	reqlog_add(sk->log, info->seq, &info->dst, info->any_src, now_s);
}

enum ps_err_action ps_error_action(const struct psock *sk, bool hard)
{
	if (sk->family == AF_INET6 ? sk->recverr6 : sk->recverr)
		return PS_ERR_QUEUE;
	return hard && sk->connected ? PS_ERR_SET : PS_ERR_DROP;
}

bool ps_local_errors(const struct psock *sk)
{
	return sk->family == AF_INET6 ? sk->recverr6 : sk->recverr;
}
int ps_pmtudisc(const struct psock *sk) { return sk->pmtudisc; }
uint32_t ps_tsflags(const struct psock *sk) { return sk->tsflags; }
/* The receive options that apply to this family's datagrams: IPv4's
 * may be set on an IPv6 socket (they reach ip_setsockopt()) but only
 * ever concern IPv4 packets, which it never receives. */
uint32_t ps_cmsg_flags(const struct psock *sk)
{
	uint32_t v4 = WIRE_CM_TTL | WIRE_CM_TOS | WIRE_CM_PKTINFO |
		      WIRE_CM_RECVOPTS | WIRE_CM_RETOPTS;
	uint32_t v6 = WIRE_CM_PKTINFO6 | WIRE_CM_HOPLIMIT | WIRE_CM_TCLASS |
		      WIRE_CM_FLOWINFO | WIRE_CM_SNDFLOW |
		      WIRE_CM_PKTINFO2292 | WIRE_CM_HOPLIMIT2292;

	return sk->cmsg & ~(sk->family == AF_INET6 ? v4 : v6);
}
int ps_family(const struct psock *sk) { return sk->family; }
uint16_t ps_ident(const struct psock *sk) { return sk->ident; }
uint32_t ps_uid(const struct psock *sk) { return sk->uid; }
int ps_rcvbuf(const struct psock *sk) { return sk->rcvbuf; }
void ps_set_owner(struct psock *sk, void *owner) { sk->owner = owner; }
void ps_set_pid(struct psock *sk, int32_t pid) { sk->pid = pid; }
void *ps_owner(const struct psock *sk) { return sk->owner; }
