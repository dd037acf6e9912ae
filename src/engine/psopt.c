/* SPDX-License-Identifier: ISC */
/*
 * psopt - socket options of a ping socket, as the kernel's
 * sk_setsockopt()/sk_getsockopt() (net/core/sock.c) and
 * do_ip_setsockopt()/do_ip_getsockopt() (net/ipv4/ip_sockglue.c) treat
 * them: the same value parsing, limits, errno and optlen rules.
 *
 * The options that are about the descriptor itself (buffer sizes,
 * timeouts, and generic flags such as SO_KEEPALIVE) are applied by the
 * library to the data descriptor, where the kernel handles them; the rest
 * are here.  Callers are unprivileged: whatever needs CAP_NET_RAW or
 * CAP_NET_ADMIN fails as it would for them.
 *
 * The socket's kind is asked first (an emulated raw socket has options
 * of its own); then come SOL_SOCKET, the family's own level (psopt6.c)
 * and SOL_IP, which an IPv6 socket answers too (ipv6_setsockopt() hands
 * it to udp_prot, which calls ip_setsockopt()).
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psock.h"
#include "engine/ipopt.h"
#include "engine/psmc.h"
#include "engine/psock_int.h"
#include "wire/wire.h"

static int get_int_val(const uint8_t *val, uint32_t len, int *out)
{
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(out, val, sizeof(int));
	return 0;
}

/* do_ip_setsockopt() reads an int, or one byte when optlen is shorter. */
int ps_ip_int_val(const uint8_t *val, uint32_t len)
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

/* sock_set_timestamp(): SO_TIMESTAMPNS implies SO_TIMESTAMP; the last
 * one set decides the form. */
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

/*
 * sock_bindtoindex(): changing a binding once made needs CAP_NET_RAW,
 * which our callers do not have.
 */
static int bind_to_index(struct psock *sk, int ifindex)
{
	if (sk->bound_dev)
		return -EPERM;
	if (ifindex < 0)
		return -EINVAL;
	sk->bound_dev = (uint32_t)ifindex;
	return 0;
}

/* sock_setbindtodevice(): "" or optlen 0 unbinds. */
static int bind_to_device(struct psock *sk, const struct ps_env *env,
			  const uint8_t *val, uint32_t len)
{
	char name[IFNAMSIZ];
	int idx = 0;

	if (len > IFNAMSIZ - 1)
		len = IFNAMSIZ - 1;
	memset(name, 0, sizeof(name));
	memcpy(name, val, len);
	if (name[0]) {
		idx = env->dev_index(env->ctx, name);
		if (idx < 0)
			return -ENODEV;
	}
	return bind_to_index(sk, idx);
}

/* sock_set_timestamping(): an int, or a struct so_timestamping. */
static int set_timestamping(struct psock *sk, int name, const uint8_t *val,
			    uint32_t len)
{
	uint32_t flags;
	int32_t phc = 0;

	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&flags, val, sizeof(flags));
	if (len == 2 * sizeof(int))
		memcpy(&phc, val + sizeof(int), sizeof(phc));
	if (flags & ~WIRE_TS_MASK)
		return -EINVAL;
	if ((flags & WIRE_TS_OPT_ID_TCP) && !(flags & WIRE_TS_OPT_ID))
		return -EINVAL;
	if ((flags & WIRE_TS_OPT_STATS) && !(flags & WIRE_TS_OPT_TSONLY))
		return -EINVAL;
	if (flags & WIRE_TS_BIND_PHC)
		return -EOPNOTSUPP;	/* no PTP virtual clock to bind */
	sk->tsflags = flags;
	set_flag(&sk->cmsg, WIRE_CM_TSTAMPING_NEW,
		 name == SO_TIMESTAMPING_NEW);
	return 0;
}

static int sol_socket_set(struct psock *sk, const struct ps_env *env,
			  int name, const uint8_t *val, uint32_t len)
{
	int v, err;

	if (name == SO_BINDTODEVICE)
		return bind_to_device(sk, env, val, len);
	if (name == SO_TIMESTAMPING_OLD || name == SO_TIMESTAMPING_NEW)
		return set_timestamping(sk, name, val, len);
	err = get_int_val(val, len, &v);
	if (err)
		return err;
	switch (name) {
	case SO_REUSEADDR:
		sk->reuse = v != 0;
		return 0;
	case SO_REUSEPORT:
		sk->reuseport = v != 0;
		return 0;
	case SO_BROADCAST:
		sk->broadcast = v != 0;
		return 0;
	case SO_DONTROUTE:
		sk->dontroute = v != 0;
		return 0;
	case SO_RXQ_OVFL:
		sk->rxq_ovfl = v != 0;
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
	case SO_BINDTOIFINDEX:
		return bind_to_index(sk, v);
	case SO_DETACH_REUSEPORT_BPF:
		/* reuseport_detach_prog(): never a program to detach. */
		return sk->reuseport ? -ENOENT : -EINVAL;
	default:
		return -ENOPROTOOPT;
	}
}

static int ip_set_flags(struct psock *sk, int name, int v)
{
	static const struct { int name; uint32_t bit; } flags[] = {
		{ IP_PKTINFO, WIRE_CM_PKTINFO },
		{ IP_RECVTTL, WIRE_CM_TTL },
		{ IP_RECVTOS, WIRE_CM_TOS },
		{ IP_RECVOPTS, WIRE_CM_RECVOPTS },
		{ IP_RETOPTS, WIRE_CM_RETOPTS },
		{ IP_RECVORIGDSTADDR, WIRE_CM_ORIGDST },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (flags[i].name == name) {
			set_flag(&sk->cmsg, flags[i].bit, v != 0);
			return 0;
		}
	}
	return -ENOPROTOOPT;
}

/*
 * IP_MULTICAST_IF: a struct ip_mreqn, ip_mreq or in_addr, by index or by
 * one of our addresses; INADDR_ANY with no index clears it.
 */
static int set_mc_if(struct psock *sk, const struct ps_env *env,
		     const uint8_t *val, uint32_t len)
{
	struct ip_mreqn mreq;
	struct ps_addr a;
	char name[IFNAMSIZ];

	if (len < sizeof(struct in_addr))
		return -EINVAL;
	memset(&mreq, 0, sizeof(mreq));
	if (len >= sizeof(struct ip_mreqn))
		memcpy(&mreq, val, sizeof(mreq));
	else if (len >= sizeof(struct ip_mreq))
		memcpy(&mreq.imr_address, val + sizeof(struct in_addr),
		       sizeof(struct in_addr));
	else
		memcpy(&mreq.imr_address, val, sizeof(struct in_addr));
	ps_addr_v4(&a, mreq.imr_address.s_addr);
	if (!mreq.imr_ifindex) {
		if (ps_addr_is_any(&a)) {
			sk->mc_index = 0;
			sk->mc_addr = a;
			return 0;
		}
		mreq.imr_ifindex = env->addr_dev(env->ctx, &a);
		if (!mreq.imr_ifindex)
			return -EADDRNOTAVAIL;
	} else if (env->dev_name(env->ctx, (uint32_t)mreq.imr_ifindex, name)) {
		return -EADDRNOTAVAIL;
	}
	if (sk->bound_dev && (uint32_t)mreq.imr_ifindex != sk->bound_dev)
		return -EINVAL;
	sk->mc_index = (uint32_t)mreq.imr_ifindex;
	sk->mc_addr = a;
	return 0;
}

static int sol_ip_set(struct psock *sk, int name, const uint8_t *val,
		      uint32_t len)
{
	int v = ps_ip_int_val(val, len);

	switch (name) {
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
	case IP_FREEBIND:
		if (len < 1)
			return -EINVAL;
		sk->freebind = v != 0;
		return 0;
	case IP_TRANSPARENT:
		if (v)
			return -EPERM;	/* needs CAP_NET_RAW or CAP_NET_ADMIN */
		return len < 1 ? -EINVAL : 0;
	case IP_BIND_ADDRESS_NO_PORT:
		sk->bind_no_port = v != 0;
		return 0;
	case IP_RECVERR_RFC4884:
		if (v < 0 || v > 1)
			return -EINVAL;
		sk->rfc4884 = v != 0;
		return 0;
	case IP_HDRINCL:	/* raw sockets only */
	case IP_NODEFRAG:
	default:
		return ip_set_flags(sk, name, v);
	}
}

int ps_setopt(struct psock *sk, const struct ps_env *env, int level,
	      int name, const uint8_t *val, uint32_t len)
{
	int err = sk->kind->setopt ? sk->kind->setopt(sk, level, name, val, len)
				   : PS_PASS;

	if (err != PS_PASS)
		return err;
	if (level == SOL_SOCKET)
		return sol_socket_set(sk, env, name, val, len);
	if (level == SOL_IP || (level == SOL_IPV6 && sk->family == AF_INET6)) {
		err = ps_mc_setopt(sk, env, level, name, val, len);
		if (err != PS_PASS)
			return err;
	}
	err = sk->fam->setopt ? sk->fam->setopt(sk, env, level, name, val, len)
			      : PS_PASS;
	if (err != PS_PASS)
		return err;
	if (level == SOL_IP && name == IP_OPTIONS)
		return ipopt_set(&sk->opts, val, len);
	if (level == SOL_IP && name == IP_MULTICAST_IF)
		return set_mc_if(sk, env, val, len);
	if (level == SOL_IP) {
		err = ps_ip_kept_set(sk, env, name, val, len);
		return err != PS_PASS ? err : sol_ip_set(sk, name, val, len);
	}
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
		return ts && is_new;
	case SO_TIMESTAMPNS_OLD:
		return ns && !is_new;
	default: /* SO_TIMESTAMPNS_NEW */
		return ns && is_new;
	}
}

static int sol_socket_get(struct psock *sk, int name, int *v)
{
	switch (name) {
	case SO_REUSEADDR: *v = sk->reuse; return 0;
	case SO_REUSEPORT: *v = sk->reuseport; return 0;
	case SO_BROADCAST: *v = sk->broadcast; return 0;
	case SO_DONTROUTE: *v = sk->dontroute; return 0;
	case SO_RXQ_OVFL: *v = sk->rxq_ovfl; return 0;
	case SO_BINDTOIFINDEX: *v = (int)sk->bound_dev; return 0;
	case SO_TYPE: *v = sk->kind->type; return 0;
	case SO_DOMAIN: *v = sk->family; return 0;
	case SO_PROTOCOL: *v = sk->fam->protocol; return 0;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMP_NEW:
	case SO_TIMESTAMPNS_NEW:
		*v = tstamp_get(sk, name);
		return 0;
	case SO_ERROR:
		/* The pending error is the daemon's (daemon/sstate.c),
		 * which answers this itself. */
		*v = 0;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static bool ip_flag_get(const struct psock *sk, int name, int *v)
{
	switch (name) {
	case IP_PKTINFO: *v = !!(sk->cmsg & WIRE_CM_PKTINFO); return true;
	case IP_RECVORIGDSTADDR:
		*v = !!(sk->cmsg & WIRE_CM_ORIGDST);
		return true;
	case IP_RECVTTL: *v = !!(sk->cmsg & WIRE_CM_TTL); return true;
	case IP_RECVTOS: *v = !!(sk->cmsg & WIRE_CM_TOS); return true;
	case IP_RECVOPTS: *v = !!(sk->cmsg & WIRE_CM_RECVOPTS); return true;
	case IP_RETOPTS: *v = !!(sk->cmsg & WIRE_CM_RETOPTS); return true;
	case IP_RECVERR: *v = sk->recverr; return true;
	case IP_FREEBIND: *v = sk->freebind; return true;
	case IP_BIND_ADDRESS_NO_PORT: *v = sk->bind_no_port; return true;
	case IP_RECVERR_RFC4884: *v = sk->rfc4884; return true;
	case IP_MULTICAST_LOOP: *v = sk->mc_loop; return true;
	case IP_HDRINCL:
	case IP_TRANSPARENT:
	case IP_NODEFRAG:
		*v = 0;
		return true;
	default:
		return false;
	}
}

static int sol_ip_get(const struct psock *sk, const struct ps_env *env,
		      int name, int *v)
{
	if (ip_flag_get(sk, name, v))
		return 0;
	if (ps_ip_kept_get(sk, name, v) == 0)
		return 0;
	switch (name) {
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
	case IP_MTU:
		if (!sk->connected)
			return -ENOTCONN;
		*v = env->route_mtu(env->ctx, &sk->daddr, sk->bound_dev);
		return *v < 0 ? *v : 0;
	default:
		return -ENOPROTOOPT;
	}
}

/* sock_getbindtodevice(): the name with its NUL, or nothing. */
static int get_device(const struct psock *sk, const struct ps_env *env,
		      uint8_t *val, uint32_t *len)
{
	char name[IFNAMSIZ];
	size_t n;

	/* sock_getbindtodevice(): an unbound socket answers nothing
	 * whatever the length; a bound one needs room for any name. */
	if (!sk->bound_dev) {
		*len = 0;
		return 0;
	}
	if (*len < IFNAMSIZ)
		return -EINVAL;
	if (env->dev_name(env->ctx, sk->bound_dev, name) < 0)
		return -ENODEV;
	n = strnlen(name, sizeof(name) - 1) + 1;
	memcpy(val, name, n);
	*len = (uint32_t)n;
	return 0;
}

int ps_getopt(struct psock *sk, const struct ps_env *env, int level,
	      int name, uint8_t *val, uint32_t *len)
{
	int v, err = sk->kind->getopt
			     ? sk->kind->getopt(sk, level, name, val, len)
			     : PS_PASS;
	uint32_t n;

	if (err != PS_PASS)
		return err;
	if (level == SOL_SOCKET) {
		if (name == SO_BINDTODEVICE)
			return get_device(sk, env, val, len);
		if (name == SO_TIMESTAMPING_OLD || name == SO_TIMESTAMPING_NEW) {
			int32_t ts[2] = { (int32_t)sk->tsflags, 0 };

			n = *len < sizeof(ts) ? *len : sizeof(ts);
			memcpy(val, ts, n);
			*len = n;
			return 0;
		}
		/* sk_getsockopt(): copies min(len, sizeof(int)) bytes. */
		err = sol_socket_get(sk, name, &v);
		if (err)
			return err;
		n = *len < sizeof(int) ? *len : sizeof(int);
		memcpy(val, &v, n);
		*len = n;
		return 0;
	}
	if (level == SOL_IP || (level == SOL_IPV6 && sk->family == AF_INET6)) {
		err = ps_mc_getopt(sk, env, level, name, val, len);
		if (err != PS_PASS)
			return err;
	}
	err = sk->fam->getopt ? sk->fam->getopt(sk, env, level, name, val, len)
			      : PS_PASS;
	if (err != PS_PASS)
		return err;
	/* ip_getsockopt() answers other levels with EOPNOTSUPP, while
	 * ip_setsockopt() says ENOPROTOOPT: an asymmetry of the kernel's
	 * (ipv6_getsockopt() says ENOPROTOOPT). */
	if (level != SOL_IP)
		return sk->fam->unknown_level;
	if (name == IP_MULTICAST_IF) {
		size_t alen = *len < 4 ? *len : 4;

		memcpy(val, sk->mc_addr.a, alen);
		*len = (uint32_t)alen;
		return 0;
	}
	if (name == IP_OPTIONS) {
		uint8_t b[IPOPT_MAX];
		size_t olen = ipopt_get(&sk->opts, b);

		if (olen > *len)
			olen = *len;
		memcpy(val, b, olen);
		*len = (uint32_t)olen;
		return 0;
	}
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
