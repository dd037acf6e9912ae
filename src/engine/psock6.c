/* SPDX-License-Identifier: ISC */
/*
 * psock6 - the IPv6 halves of bind, connect and send, as the kernel's
 * IPv6 ping socket has them: ping_check_bind_addr(),
 * ip6_datagram_connect_v6_only(), ping_v6_sendmsg() and
 * ip6_datagram_send_ctl() (net/ipv4/ping.c, net/ipv6/ping.c,
 * net/ipv6/datagram.c): the IPv6 family's operations of the engine.
 * psock.c does what both families share.
 */
#include "engine/psock6.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "engine/icmp.h"
#include "engine/pscmsg.h"
#include "engine/psflow.h"
#include "engine/psock_int.h"
#include "engine/psopt6.h"
#include "wire/wire.h"

/* SIN6_LEN_RFC2133: a sockaddr_in6 without sin6_scope_id. */
#define SIN6_LEN_OLD 24
#define FLOWINFO_MASK htonl(0x0FFFFFFFu)
#define FLOWLABEL_MASK htonl(0x000FFFFFu)

/* The bits of ipv6_addr_type() that the checks use. */
enum {
	A6_ANY = 1, A6_UNICAST = 2, A6_MULTICAST = 4, A6_LOOPBACK = 8,
	A6_LINKLOCAL = 16, A6_MAPPED = 32,
};

static unsigned a6_type(const uint8_t *a)
{
	static const uint8_t zero[12];

	if (a[0] == 0xff) {
		unsigned scope = a[1] & 0x0f;

		if (scope == 1)		/* interface-local */
			return A6_MULTICAST | A6_LOOPBACK;
		return A6_MULTICAST | (scope == 2 ? A6_LINKLOCAL : 0);
	}
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return A6_UNICAST | A6_LINKLOCAL;
	if (memcmp(a, zero, 10) == 0 && a[10] == 0xff && a[11] == 0xff)
		return A6_MAPPED;
	if (memcmp(a, zero, 12) == 0) {
		static const uint8_t zero4[4];

		if (memcmp(a + 12, zero4, 4) == 0)
			return A6_ANY;
		if (a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] == 1)
			return A6_UNICAST | A6_LOOPBACK;
	}
	return A6_UNICAST;
}

/* __ipv6_addr_needs_scope_id() */
static bool needs_scope(unsigned t)
{
	return (t & A6_LINKLOCAL) ||
	       ((t & A6_MULTICAST) && (t & (A6_LOOPBACK | A6_LINKLOCAL)));
}

/* The scope id a (link-local) address shows, or takes, on ifindex. */
static uint32_t scope_of(const struct ps_addr *a, uint32_t ifindex)
{
	return ps_addr_needs_scope(a) ? ifindex : 0;
}

/* Copy a sockaddr_in6 of at least minlen bytes; the rest reads as 0. */
static int sa_parse6(const uint8_t *sa, uint32_t len, uint32_t minlen,
		     struct sockaddr_in6 *out)
{
	memset(out, 0, sizeof(*out));
	if (len < minlen)
		return -EINVAL;
	memcpy(out, sa, len < sizeof(*out) ? len : sizeof(*out));
	return out->sin6_family == AF_INET6 ? 0 : -EAFNOSUPPORT;
}

static void to_addr(const struct in6_addr *in, struct ps_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET6;
	memcpy(a->a, in, 16);
}

static bool dev_ok(const struct ps_env *env, uint32_t ifindex)
{
	char name[IFNAMSIZ];

	return env->dev_name(env->ctx, ifindex, name) == 0;
}

/* ping_check_bind_addr(): a scoped address binds its device. */
static int check_bind(const struct psock *sk, const struct ps_env *env,
		      const uint8_t *sa, uint32_t len, struct ps_addr *addr,
		      uint16_t *ident, uint32_t *scope_dev)
{
	struct sockaddr_in6 s6;
	uint32_t dev = 0;
	unsigned t;
	bool scoped, has;
	int err = sa_parse6(sa, len, sizeof(s6), &s6);

	if (err)
		return err;
	to_addr(&s6.sin6_addr, addr);
	*ident = ntohs(s6.sin6_port);
	t = a6_type(addr->a);
	scoped = needs_scope(t);
	if ((t != A6_ANY && !(t & A6_UNICAST)) || (scoped && !s6.sin6_scope_id))
		return -EINVAL;
	if (s6.sin6_scope_id) {
		if (!dev_ok(env, s6.sin6_scope_id))
			return -ENODEV;
		dev = s6.sin6_scope_id;
	}
	if (!dev && sk->bound_dev) {
		if (!dev_ok(env, sk->bound_dev))
			return -ENODEV;
		dev = sk->bound_dev;
	}
	has = t != A6_ANY && env->local6(env->ctx, addr, dev, scoped);
	if (!(sk->freebind || env->nonlocal_bind6 || has || t == A6_ANY))
		return -EADDRNOTAVAIL;
	*scope_dev = scoped ? s6.sin6_scope_id : sk->bound_dev;
	return 0;
}

/* The output interface of a flow to dst when nothing else names one. */
static uint32_t default_oif(const struct psock *sk, unsigned t)
{
	return (t & A6_MULTICAST) ? sk->mc6_oif : sk->ucast_oif;
}

/* ip6_datagram_connect_v6_only() */
static int ps6_connect(struct psock *sk, const struct ps_env *env,
		       const uint8_t *sa, uint32_t len)
{
	struct sockaddr_in6 s6;
	struct ps_addr dst;
	uint32_t label = 0, oif;
	uint16_t family;
	unsigned t;
	int err;

	/* ip6_datagram_connect_v6_only(): the family before the length. */
	memcpy(&family, sa, sizeof(family));
	if (family != AF_INET6)
		return -EAFNOSUPPORT;
	err = sa_parse6(sa, len, SIN6_LEN_OLD, &s6);
	if (err)
		return err;
	to_addr(&s6.sin6_addr, &dst);
	t = a6_type(dst.a);
	if (t == A6_ANY) {		/* "connect to self" */
		dst.a[15] = 1;
		t = a6_type(dst.a);
	}
	if (t & A6_MAPPED) {
		if (sk->v6only)
			return -ENETUNREACH;
		/* An IPv4 connect, on a socket that can never send to it. */
		sk->daddr = dst;
		sk->dport = ntohs(s6.sin6_port);
		sk->connected = true;
		return 0;
	}
	if (needs_scope(t)) {
		if (len >= sizeof(s6) && s6.sin6_scope_id) {
			if (sk->bound_dev && sk->bound_dev != s6.sin6_scope_id)
				return -EINVAL;
			sk->bound_dev = s6.sin6_scope_id;
		}
		if (!sk->bound_dev && (t & A6_MULTICAST))
			sk->bound_dev = sk->mc6_oif;
		if (!sk->bound_dev)
			return -EINVAL;
	}
	/* ip6_datagram_dst_update(): the flow label (one this socket
	 * leased), then the route. */
	if (sk->sndflow) {
		label = s6.sin6_flowinfo & FLOWINFO_MASK;
		if ((label & FLOWLABEL_MASK) &&
		    !psflow_held(sk, label & FLOWLABEL_MASK))
			return -EINVAL;
	}
	oif = sk->bound_dev ? sk->bound_dev
	      : sk->sticky_ifindex ? sk->sticky_ifindex
				   : default_oif(sk, t);
	dst.scope = scope_of(&dst, oif);
	/* ip6_datagram_connect() knows neither SO_BROADCAST nor
	 * SO_DONTROUTE. */
	err = ps_connect_route(sk, env, &dst, ntohs(s6.sin6_port), oif, 0);
	if (err)
		return err;
	sk->flow_label = label;
	/* The route it now caches, as IPV6_MTU reports it. */
	sk->cached_mtu = env->route_mtu(env->ctx, &dst, oif);
	if (sk->cached_mtu < 0)
		sk->cached_mtu = 0;
	sk->mtu_stale = false;
	return 0;
}

static int cmsg_int6(const struct cmsghdr *h, const uint8_t *data, int lo,
		     int hi, int *v)
{
	if (h->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EINVAL;
	memcpy(v, data, sizeof(int));
	return *v < lo || *v > hi ? -EINVAL : 0;
}

struct ctl6 {
	uint32_t oif;
	int hlimit, tclass, dontfrag;
};

/*
 * IPV6_PKTINFO: its interface becomes the output one; its address is
 * checked (and then, in ping_v6_sendmsg(), not used: the source is the
 * socket's).
 */
static int cmsg_pktinfo(const struct psock *sk, const struct ps_env *env,
			const struct cmsghdr *h, const uint8_t *data,
			struct ctl6 *c)
{
	struct in6_pktinfo pi;
	struct ps_addr a;
	unsigned t;
	uint32_t idx;

	if (h->cmsg_len < CMSG_LEN(sizeof(pi)))
		return -EINVAL;
	memcpy(&pi, data, sizeof(pi));
	idx = (uint32_t)pi.ipi6_ifindex;
	if (idx) {
		if (c->oif && idx != c->oif &&
		    (sk->bound_dev != c->oif ||
		     (sk->bound_dev && sk->bound_dev != idx)))
			return -EINVAL;
		c->oif = idx;
	}
	to_addr(&pi.ipi6_addr, &a);
	t = a6_type(a.a);
	if (c->oif) {
		if (!dev_ok(env, c->oif))
			return -ENODEV;
	} else if (t & A6_LINKLOCAL) {
		return -EINVAL;
	}
	if (t != A6_ANY && !sk->freebind && !env->nonlocal_bind6 &&
	    !env->local6(env->ctx, &a, c->oif,
			 (t & (A6_LINKLOCAL | A6_LOOPBACK)) != 0))
		return -EINVAL;
	return 0;
}

/* IPV6_FLOWINFO: class and label of this packet.  (Accepted as by the
 * kernel; the daemon's raw socket cannot put a label it has not leased,
 * so the label is not sent: see pingsockd(8).) */
static int cmsg_flowinfo(const struct cmsghdr *h, const uint8_t *data)
{
	(void)data;
	return h->cmsg_len < CMSG_LEN(4) ? -EINVAL : 0;
}

/* Hop-by-hop and destination options: CAP_NET_RAW once well formed. */
static int cmsg_opthdr(const struct cmsghdr *h, const uint8_t *data)
{
	if (h->cmsg_len < CMSG_LEN(2) ||
	    h->cmsg_len < CMSG_LEN(((size_t)data[1] + 1) << 3))
		return -EINVAL;
	return -EPERM;
}

static int sol_ipv6_cmsg(const struct psock *sk, const struct ps_env *env,
			 const struct cmsghdr *h, const uint8_t *data,
			 struct ctl6 *c)
{
	switch (h->cmsg_type) {
	case IPV6_PKTINFO:
	case IPV6_2292PKTINFO:
		return cmsg_pktinfo(sk, env, h, data, c);
	case IPV6_FLOWINFO:
		return cmsg_flowinfo(h, data);
	case IPV6_HOPOPTS:
	case IPV6_DSTOPTS:
	case IPV6_RTHDRDSTOPTS:
	case IPV6_2292HOPOPTS:
	case IPV6_2292DSTOPTS:
		return cmsg_opthdr(h, data);
	case IPV6_HOPLIMIT:
	case IPV6_2292HOPLIMIT:
		return cmsg_int6(h, data, -1, 255, &c->hlimit);
	case IPV6_TCLASS:
		return cmsg_int6(h, data, -1, 255, &c->tclass);
	case IPV6_DONTFRAG:
		return cmsg_int6(h, data, 0, 1, &c->dontfrag);
	default:
		return -EINVAL;
	}
}

/* ip6_datagram_send_ctl(): SOL_SOCKET and SOL_IPV6; others skipped. */
struct ctl6_arg {
	const struct psock *sk;
	const struct ps_env *env;
	struct ctl6 *c;
};

static int ipv6_cmsg_cb(void *arg, const struct cmsghdr *h,
			const uint8_t *data)
{
	struct ctl6_arg *a = arg;

	return sol_ipv6_cmsg(a->sk, a->env, h, data, a->c);
}

static int parse_ctl6(const struct psock *sk, const struct ps_env *env,
		      const uint8_t *ctl, uint32_t len, struct ctl6 *c)
{
	struct ctl6_arg a = { sk, env, c };

	return ps_cmsg_walk(ctl, len, SOL_IPV6, ipv6_cmsg_cb, &a);
}

/* ping_v6_sendmsg(), past ping_common_sendmsg(). */
static int send6(struct psock *sk, const struct ps_env *env,
		 const uint8_t *name, uint32_t namelen, const uint8_t *ctl,
		 uint32_t ctllen, struct ps_sendinfo *info)
{
	struct ctl6 c = { .hlimit = -1, .tclass = sk->tclass,
			  .dontfrag = sk->dontfrag };
	struct sockaddr_in6 s6;
	struct ps_addr dst;
	uint32_t label = 0;
	unsigned t;
	int err;

	if (name) {
		err = sa_parse6(name, namelen, sizeof(s6), &s6);
		if (err)
			return err;
		to_addr(&s6.sin6_addr, &dst);
		if (sk->sndflow)
			label = s6.sin6_flowinfo & FLOWINFO_MASK;
		if (needs_scope(a6_type(dst.a)))
			c.oif = s6.sin6_scope_id;
	} else {
		if (!sk->connected)
			return -EDESTADDRREQ;
		dst = sk->daddr;
		label = sk->flow_label;
	}
	t = a6_type(dst.a);
	if (!c.oif)
		c.oif = sk->bound_dev;
	if (!c.oif)
		c.oif = sk->sticky_ifindex;
	if (!c.oif)
		c.oif = default_oif(sk, t);
	if ((needs_scope(t) && !c.oif) || (t & A6_MAPPED) ||
	    (c.oif && sk->bound_dev && c.oif != sk->bound_dev))
		return -EINVAL;
	err = parse_ctl6(sk, env, ctl, ctllen, &c);
	if (err)
		return err;
	/* ip6_sk_dst_lookup_flow(): no route to :: or through a device
	 * that does not exist. */
	if (t == A6_ANY || (c.oif && !dev_ok(env, c.oif)))
		return -ENETUNREACH;
	dst.scope = scope_of(&dst, c.oif);
	info->dst = dst;
	info->src = sk->saddr;
	info->ifindex = c.oif;
	/* ip6_sk_dst_hoplimit(): a group's hops, else the socket's, else
	 * (-1) the route's, which the raw socket finds the same way. */
	if (c.hlimit < 0)
		c.hlimit = (t & A6_MULTICAST) ? sk->mc_hops : sk->hop_limit;
	info->ttl = c.hlimit;
	info->mc_ttl = sk->mc_hops;
	/* A class of -1 in a control message is not "the default": it
	 * becomes all ones in the header (ip6_make_flowinfo()). */
	info->tos = c.tclass & 0xff;
	info->frag_size = sk->frag_size;
	info->flowlabel = label & FLOWLABEL_MASK;
	info->dontfrag = c.dontfrag;
	info->mc_loop = sk->mc6_loop;
	info->pmtudisc = sk->pmtudisc6;
	/* sk_dst_check(): a stale cached route is dropped by a send. */
	if (sk->mtu_stale)
		sk->cached_mtu = 0;
	return 0;
}

static bool any_source(const struct psock *sk, const struct ps_env *env,
		       const struct ps_sendinfo *info)
{
	return ps_addr_is_multicast(&info->dst);
}

/* ---- the rest ---- */

/* inet6_getname(): the bound device as scope of a link-local address;
 * the peer's flow label with IPV6_FLOWINFO_SEND. */
static uint32_t getname6(const struct psock *sk, bool peer,
			 const struct ps_addr *a, uint16_t port, uint8_t *out)
{
	struct ps_addr shown = *a;
	uint32_t n;

	shown.scope = scope_of(a, sk->bound_dev);
	n = ps_addr_to_sockaddr(&shown, port, out);
	if (peer && sk->sndflow)
		memcpy(out + offsetof(struct sockaddr_in6, sin6_flowinfo),
		       &sk->flow_label, sizeof(sk->flow_label));
	return n;
}

static bool recverr6(const struct psock *sk)
{
	return sk->recverr6;
}

static void init6(struct psock *sk)
{
	sk->hop_limit = -1;
	sk->mc_hops = 1;	/* IPV6_DEFAULT_MCASTHOPS */
	sk->mc6_loop = true;
	sk->pmtudisc6 = IPV6_PMTUDISC_WANT;
	sk->v6only = true;	/* as ping sockets are (measured) */
	sk->autoflowlabel = -1;
	sk->mc6_all = true;
}

const struct ps_family_ops ps6_ops = {
	.family = AF_INET6,
	.protocol = IPPROTO_ICMPV6,
	.unknown_level = -ENOPROTOOPT,
	.cmsg_foreign = WIRE_CM_TTL | WIRE_CM_TOS | WIRE_CM_PKTINFO |
			WIRE_CM_RECVOPTS | WIRE_CM_RETOPTS | WIRE_CM_ORIGDST,
	.init = init6,
	.check_bind = check_bind,
	.datagram_connect = ps6_connect,
	.prepare_send = send6,
	.any_source = any_source,
	.set_ident = icmp6_set_ident,
	.getname = getname6,
	.recverr = recverr6,
	.setopt = ps6_setopt,
	.getopt = ps6_getopt,
	.flowlabel = ps6_flowlabel,
};
