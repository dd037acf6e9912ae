/* SPDX-License-Identifier: ISC */
/*
 * psock - the engine (see psock.h and psock_int.h): the table of sockets
 * and their identifiers, and the calls as every socket makes them, with
 * the socket's family and kind operations where they differ.
 */
#include "engine/psock.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psflow.h"
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
	ps_mem_gate mem_gate;		/* per-user memory (pstab_set_mem_gate) */
	void *mem_ctx;
	uint64_t salt, logs;		/* request logs' (pstab_set_salt) */
	ps_clock clock;			/* ms, for flow label lingering */
	void *clock_ctx;
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
int ps_alloc(struct pstab *tab, const struct ps_family_ops *fam,
	     const struct ps_kind_ops *kind, uint32_t uid, struct psock **out)
{
	struct psock *sk = calloc(1, kind->size);
	int domain = fam->family;

	if (!sk)
		return -ENOMEM;
	sk->log = reqlog_new_salted(tab->salt ? tab->salt + 0x9e3779b97f4a7c15u *
							++tab->logs
					      : 0);
	if (!sk->log) {
		free(sk);
		return -ENOMEM;
	}
	sk->fam = fam;
	sk->kind = kind;
	sk->family = domain;
	sk->tab = tab;
	sk->uid = uid;
	sk->reuse = true;
	sk->uc_ttl = -1;
	sk->mc_ttl = 1;
	sk->mc_loop = true;
	sk->ipx.mc_all = domain == AF_INET;	/* inet_create() only */
	sk->pmtudisc = IP_PMTUDISC_WANT;
	sk->rcv_saddr.family = sk->saddr.family = (uint8_t)domain;
	sk->daddr.family = (uint8_t)domain;
	sk->mc_addr.family = (uint8_t)domain;
	if (fam->init)
		fam->init(sk);
	if (kind->init)
		kind->init(sk);
	*out = sk;
	return 0;
}

int ps_create(struct pstab *tab, const struct ps_family_ops *fam,
	      const struct ps_kind_ops *kind, uint32_t uid,
	      struct psock **out)
{
	int err = ps_alloc(tab, fam, kind, uid, out);

	if (!err)
		tab->nsockets++;
	return err;
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
	psflow_release_all(tab->flows, sk, pstab_now_ms(tab));
	if (sk->log_kib && tab->mem_gate)
		tab->mem_gate(tab->mem_ctx, sk->uid, -(long)sk->log_kib);
	reqlog_free(sk->log);
	free(sk);
}

void pstab_close(struct pstab *tab, struct psock *sk)
{
	if (!sk)
		return;
	if (sk->kind->destroy)
		sk->kind->destroy(tab, sk);
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

void pstab_set_salt(struct pstab *tab, uint64_t salt)
{
	tab->salt = salt;
}

void pstab_set_mem_gate(struct pstab *tab, ps_mem_gate gate, void *ctx)
{
	tab->mem_gate = gate;
	tab->mem_ctx = ctx;
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

bool pstab_ident_foreign(const struct pstab *tab, int family,
			 uint16_t ident)
{
	return tab->foreign[fam_idx(family)][ident / 8] & (1u << (ident % 8));
}

struct psflow *pstab_flows(struct pstab *tab)
{
	return tab->flows;
}

void pstab_set_clock(struct pstab *tab, ps_clock clock, void *ctx)
{
	tab->clock = clock;
	tab->clock_ctx = ctx;
}

uint64_t pstab_now_ms(const struct pstab *tab)
{
	return tab->clock ? tab->clock(tab->clock_ctx) : 0;
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
 * stricter than the kernel, only between sockets of the same uid, and
 * PS_MAX_IDENT_SHARE of them at most.
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
		unsigned n = 0;

		for (struct psock *o = tab->chain[fi][ident]; o; o = o->next) {
			if (o->uid != sk->uid || !o->reuse || !sk->reuse ||
			    ++n >= PS_MAX_IDENT_SHARE)
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
		if (!reqlog_match(sk->log, pkt->match, pkt->seq, answered))
			continue;
		/* A further identifier of another socket (psraw.c)
		 * answers as that socket. */
		return sk->parent ? sk->parent : sk;
	}
	return NULL;
}

int ps_bind(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	    const uint8_t *sa, uint32_t len)
{
	return sk->kind->bind_addr(tab, sk, env, sa, len);
}

/* ping_bind() */
static int dgram_bind(struct pstab *tab, struct psock *sk,
		      const struct ps_env *env, const uint8_t *sa,
		      uint32_t len)
{
	struct ps_addr addr;
	uint32_t old_dev = sk->bound_dev, dev = sk->bound_dev;
	uint16_t ident;
	int err;

	err = sk->fam->check_bind(sk, env, sa, len, &addr, &ident, &dev);
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

int ps_connect_route(struct psock *sk, const struct ps_env *env,
		     const struct ps_addr *dst, uint16_t port, uint32_t oif,
		     unsigned route_flags)
{
	struct ps_addr src = sk->saddr;
	int err = env->route(env->ctx, dst, oif, route_flags, &src);

	if (err)
		return err;
	/* __ip4_datagram_connect() keeps the destination the route made of
	 * 0.0.0.0: this host, the source it picked (getpeername() shows
	 * it). */
	if (dst->family == AF_INET && ps_addr_is_any(dst))
		dst = &src;
	if (ps_addr_is_any(&sk->saddr))
		sk->saddr = src;
	if (ps_addr_is_any(&sk->rcv_saddr))
		sk->rcv_saddr = src;
	sk->daddr = *dst;
	sk->dport = port;
	sk->connected = true;
	return 0;
}

bool ps_connect_dest(const struct psock *sk, const struct ps_env *env,
		     const uint8_t *sa, uint32_t len, struct ps_addr *dst)
{
	int family = sk->family;
	struct ps_addr src = sk->saddr;
	uint16_t fam;

	memset(dst, 0, sizeof(*dst));
	if (len < sizeof(fam))
		return false;
	memcpy(&fam, sa, sizeof(fam));
	dst->family = (uint8_t)family;
	if (fam == AF_INET && family == AF_INET &&
	    len >= sizeof(struct sockaddr_in))
		memcpy(dst->a, sa + offsetof(struct sockaddr_in, sin_addr), 4);
	else if (fam == AF_INET6 && family == AF_INET6 && len >= 24)
		memcpy(dst->a, sa + offsetof(struct sockaddr_in6, sin6_addr),
		       16);
	else
		return false;
	if (family == AF_INET && ps_addr_is_any(dst) &&
	    env->route(env->ctx, dst, sk->bound_dev, 0, &src) == 0)
		*dst = src;
	else
		ps_addr_this_host(dst, &sk->saddr);
	return true;
}

/* inet_dgram_connect(), then the family's datagram connect. */
int ps_connect(struct pstab *tab, struct psock *sk, const struct ps_env *env,
	       const uint8_t *sa, uint32_t len)
{
	uint16_t family;

	if (len < sizeof(family))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	if (family == AF_UNSPEC) {
		disconnect(tab, sk);
		return 0;
	}
	if (sk->kind->connect_binds && autobind(tab, sk))
		return -EAGAIN;
	return sk->fam->datagram_connect(sk, env, sa, len);
}

int ps_getname(const struct psock *sk, bool peer, uint8_t *out)
{
	const struct ps_addr *a = peer ? &sk->daddr : &sk->rcv_saddr;
	uint16_t port = peer		   ? sk->dport
			: sk->kind->port ? sk->kind->port(sk)
					 : sk->ident;

	if (peer && (!sk->connected || sk->dport == 0))
		return -ENOTCONN;
	return (int)sk->fam->getname(sk, peer, a, port, out);
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

int ps_send_prepare(struct pstab *tab, struct psock *sk,
		    const struct ps_env *env, int flags, const uint8_t *name,
		    uint32_t namelen, const uint8_t *ctl, uint32_t ctllen,
		    uint8_t *msg, uint32_t len, struct ps_sendinfo *info)
{
	int err = sk->kind->prepare_send(tab, sk, env, flags, name, namelen,
					 ctl, ctllen, msg, len, info);

	if (!err && !info->reach.family)
		info->reach = info->dst;
	return err;
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
	err = sk->fam->prepare_send(sk, env, name, namelen, ctl, ctllen, info);
	if (err)
		return err;
	/* sock_alloc_send_skb(), once the route is known.  (The pending
	 * error, checked next there, is the daemon's: it looks at it.) */
	if (sk->shut & WIRE_SHUT_WR)
		return -EPIPE;
	info->any_src = sk->fam->any_source(sk, env, info);
	/* ping_v4_sendmsg(): SOCK_LOCALROUTE or MSG_DONTROUTE route with
	 * RTO_ONLINK, which the raw socket's send is asked for too. */
	info->dontroute = sk->fam->dontroute &&
			  (sk->dontroute || (flags & MSG_DONTROUTE));
	info->seq = icmp_echo_seq(msg);
	sk->fam->set_ident(msg, len, sk->ident);
	return 0;
}

void ps_pmtu_changed(struct psock *sk, const struct ps_addr *dst)
{
	if (sk->connected && ps_addr_eq(&sk->daddr, dst))
		sk->mtu_stale = true;
}

struct psock *ps_sender(struct psock *sk, uint16_t ident)
{
	return sk->kind->sender ? sk->kind->sender(sk, ident) : sk;
}

/*
 * Before the request log grows, its user's memory gate says whether it
 * may; if not, the log recycles its oldest request (one user's logs
 * could otherwise hold 3.5 MiB a socket: 65,536 requests in 120 s each).
 * What was charged and not used is given back.
 */
void ps_sent(struct psock *sk, const struct ps_sendinfo *info,
	     uint64_t now_s)
{
	struct pstab *tab;
	size_t more, before;
	long kib = 0;

	sk = ps_sender(sk, info->ident);
	tab = sk->tab;
	more = tab->mem_gate ? reqlog_growth(sk->log, now_s) : 0;
	if (more) {
		kib = (long)((more + 1023) / 1024);
		if (!tab->mem_gate(tab->mem_ctx, sk->uid, kib))
			kib = 0;
		reqlog_may_grow(sk->log, kib != 0);
	}
	before = reqlog_bytes(sk->log);
	reqlog_add(sk->log, icmp_is_probe(info->type), info->seq, &info->reach,
		   info->any_src, now_s);
	if (kib && reqlog_bytes(sk->log) == before)
		tab->mem_gate(tab->mem_ctx, sk->uid, -kib);	/* no memory */
	else if (kib)
		sk->log_kib += (uint32_t)kib;
}

/* ---- receiving ---- */

bool ps_delivers(const struct psock *sk, uint8_t type)
{
	return !sk->kind->delivers || sk->kind->delivers(sk, type);
}

bool ps_error_datagram(const struct psock *sk, uint8_t type)
{
	return sk->kind->error_datagram && sk->kind->error_datagram(sk, type);
}

bool ps_error_ignored(const struct psock *sk, uint8_t type)
{
	return sk->kind->error_ignored && sk->kind->error_ignored(sk, type);
}

bool ps_rx_iphdr(const struct psock *sk)
{
	return sk->kind->rx_iphdr && sk->kind->rx_iphdr(sk);
}

enum ps_err_action ps_error_action(const struct psock *sk, bool hard)
{
	if (sk->fam->recverr(sk))
		return PS_ERR_QUEUE;
	return hard && sk->connected ? PS_ERR_SET : PS_ERR_DROP;
}

bool ps_local_errors(const struct psock *sk)
{
	return sk->fam->recverr(sk);
}
int ps_pmtudisc(const struct psock *sk) { return sk->pmtudisc; }
uint32_t ps_tsflags(const struct psock *sk) { return sk->tsflags; }
/* The receive options that apply to this family's datagrams: IPv4's
 * may be set on an IPv6 socket (they reach ip_setsockopt()) but only
 * ever concern IPv4 packets, which it never receives. */
uint32_t ps_cmsg_flags(const struct psock *sk)
{
	return sk->cmsg & ~sk->fam->cmsg_foreign;
}
int ps_family(const struct psock *sk) { return sk->family; }
int ps_type(const struct psock *sk) { return sk->kind->type; }
uint16_t ps_ident(const struct psock *sk) { return sk->ident; }
uint32_t ps_uid(const struct psock *sk) { return sk->uid; }
int ps_rcvbuf(const struct psock *sk) { return sk->rcvbuf; }
void ps_set_owner(struct psock *sk, void *owner) { sk->owner = owner; }
void ps_set_pid(struct psock *sk, int32_t pid) { sk->pid = pid; }
void *ps_owner(const struct psock *sk) { return sk->owner; }

int ps_flowlabel_opt(struct psock *sk, const struct ps_env *env,
		     const uint8_t *val, uint32_t len, uint32_t *label)
{
	if (!sk->fam->flowlabel)
		return -ENOPROTOOPT;
	return sk->fam->flowlabel(sk, env, val, len, label);
}

const struct ps_kind_ops ps_dgram_ops = {
	.type = SOCK_DGRAM,
	.size = sizeof(struct psock),
	.connect_binds = true,
	.bind_addr = dgram_bind,
	.prepare_send = ps_dgram_send_prepare,
};
