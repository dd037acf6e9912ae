/* SPDX-License-Identifier: ISC */
/*
 * psock4 - the IPv4 halves of bind, connect and send, as the kernel's
 * IPv4 ping socket has them: ping_check_bind_addr(),
 * ip4_datagram_connect(), ping_v4_sendmsg() and ip_cmsg_send()
 * (net/ipv4/ping.c, net/ipv4/datagram.c, net/ipv4/ip_sockglue.c).  The
 * engine (psock.c) does what both families share.
 */
#include "engine/psock4.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/ipopt.h"
#include "engine/pscmsg.h"
#include "engine/psock_int.h"
#include "wire/wire.h"

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

/* ping_check_bind_addr(): an IPv4 address binds no device. */
static int check_bind(const struct psock *sk, const struct ps_env *env,
		      const uint8_t *sa, uint32_t len, struct ps_addr *addr,
		      uint16_t *ident, uint32_t *dev)
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

/* ip4_datagram_connect() */
static int connect4(struct psock *sk, const struct ps_env *env,
		    const uint8_t *sa, uint32_t len)
{
	struct ps_addr dst;
	uint16_t port;
	int err = sa_parse4(sa, len, false, &dst, &port);

	if (err)
		return err;
	/* RT_CONN_FLAGS(): SO_DONTROUTE connects on-link only. */
	return ps_connect_route(sk, env, &dst, port, sk->bound_dev,
				(sk->broadcast ? PS_ROUTE_BROADCAST : 0u) |
				(sk->dontroute ? PS_ROUTE_DONTROUTE : 0u));
}

/* ---- sending ---- */

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

static int ip_cmsg_cb(void *arg, const struct cmsghdr *h, const uint8_t *data)
{
	return sol_ip_cmsg(h, data, arg);
}

static int parse_ctl(const uint8_t *ctl, uint32_t len,
		     struct ps_sendinfo *info)
{
	return ps_cmsg_walk(ctl, len, SOL_IP, ip_cmsg_cb, info);
}


/*
 * ip_route_output_key_hash_rcu(): 0.0.0.0 is this host, the source the
 * route picks (the one given, the output device's, else 127.0.0.1), and
 * the request goes to it over loopback.  The raw socket's route does the
 * same with the request as it is; the policy, the reply's match and
 * local errors need the address reached.
 */
static int reach4(const struct ps_env *env, struct ps_sendinfo *info)
{
	struct ps_addr src = info->src;
	int err;

	if (!ps_addr_is_any(&info->dst))
		return 0;
	err = env->route(env->ctx, &info->dst, info->ifindex, 0, &src);
	if (err)
		return err;
	info->reach = src;
	return 0;
}

/* ping_v4_sendmsg(), past ping_common_sendmsg(). */
static int send4(struct psock *sk, const struct ps_env *env,
		 const uint8_t *name, uint32_t namelen, const uint8_t *ctl,
		 uint32_t ctllen, struct ps_sendinfo *info)
{
	int err = send_dest(sk, name, namelen, &info->dst);

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
	} else if (!info->ifindex) {
		info->ifindex = sk->uc_index;	/* IP_UNICAST_IF */
	}
	if (info->ttl == -2)
		info->ttl = -1;
	else if (info->ttl < 0)
		info->ttl = sk->uc_ttl;
	info->broadcast = sk->broadcast;
	info->mc_loop = sk->mc_loop;
	info->pmtudisc = sk->pmtudisc;
	return reach4(env, info);
}

/* Replies to a broadcast or multicast request come from anyone; only a
 * socket allowed to broadcast needs the route type asked. */
static bool any_source(const struct psock *sk, const struct ps_env *env,
		       const struct ps_sendinfo *info)
{
	return ps_addr_is_multicast(&info->dst) ||
	       (sk->broadcast &&
		env->addr_type(env->ctx, &info->dst, info->ifindex) ==
			PS_RTN_BROADCAST);
}

/* ---- the rest ---- */

static uint32_t getname4(const struct psock *sk, bool peer,
			 const struct ps_addr *a, uint16_t port, uint8_t *out)
{
	return ps_addr_to_sockaddr(a, port, out);
}

static bool recverr4(const struct psock *sk)
{
	return sk->recverr;
}

const struct ps_family_ops ps4_ops = {
	.family = AF_INET,
	.protocol = IPPROTO_ICMP,
	.unknown_level = -EOPNOTSUPP,
	.cmsg_foreign = WIRE_CM_PKTINFO6 | WIRE_CM_HOPLIMIT | WIRE_CM_TCLASS |
			WIRE_CM_FLOWINFO | WIRE_CM_SNDFLOW |
			WIRE_CM_PKTINFO2292 | WIRE_CM_HOPLIMIT2292 |
			WIRE_CM_ORIGDST6,
	.dontroute = true,
	.check_bind = check_bind,
	.datagram_connect = connect4,
	.prepare_send = send4,
	.any_source = any_source,
	.set_ident = icmp4_set_ident,
	.getname = getname4,
	.recverr = recverr4,
};
