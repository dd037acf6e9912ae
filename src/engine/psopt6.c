/* SPDX-License-Identifier: ISC */
/*
 * psopt6 - SOL_IPV6 options of an IPv6 ping socket, as the kernel's
 * do_ipv6_setsockopt()/do_ipv6_getsockopt() (net/ipv6/ipv6_sockglue.c)
 * parse and answer them.  An int option reads 0 when optlen is shorter
 * than an int, and each one then checks optlen itself.
 */
#include "engine/psopt6.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>

#include "engine/psflow.h"
#include "engine/psock_int.h"
#include "wire/in6ext.h"
#include "wire/wire.h"

/* <linux/in6.h> has these; glibc's <netinet/in.h> does not. */

static void set_flag(uint32_t *flags, uint32_t bit, bool on)
{
	if (on)
		*flags |= bit;
	else
		*flags &= ~bit;
}

static bool dev_ok(const struct ps_env *env, uint32_t ifindex)
{
	char name[IFNAMSIZ];

	return env->dev_name(env->ctx, ifindex, name) == 0;
}

/* The receive options: rxopt bits, each a plain boolean. */
static const struct {
	int name;
	uint32_t bit;
} rx6[] = {
	{ IPV6_RECVPKTINFO, WIRE_CM_PKTINFO6 },
	{ IPV6_RECVHOPLIMIT, WIRE_CM_HOPLIMIT },
	{ IPV6_RECVTCLASS, WIRE_CM_TCLASS },
	{ IPV6_FLOWINFO, WIRE_CM_FLOWINFO },
	{ IPV6_2292PKTINFO, WIRE_CM_PKTINFO2292 },
	{ IPV6_2292HOPLIMIT, WIRE_CM_HOPLIMIT2292 },
	{ IPV6_RECVORIGDSTADDR, WIRE_CM_ORIGDST6 },
};

/*
 * Receive options that change nothing for a ping socket: Echo Replies
 * carry no extension headers, and ping_recvmsg() never reports a path
 * MTU.  Kept, so that they read back as set.
 */
static const int quiet6[] = {
	IPV6_RECVPATHMTU, IPV6_RECVRTHDR, IPV6_RECVHOPOPTS, IPV6_RECVDSTOPTS,
	IPV6_2292HOPOPTS, IPV6_2292DSTOPTS, IPV6_2292RTHDR, IPV6_RECVFRAGSIZE,
	IPV6_ROUTER_ALERT_ISOLATE,
};

static int quiet_bit(int name, uint32_t *bit)
{
	for (size_t i = 0; i < sizeof(quiet6) / sizeof(quiet6[0]); i++) {
		if (quiet6[i] == name) {
			*bit = 1u << i;
			return 0;
		}
	}
	return -ENOPROTOOPT;
}

/* ipv6_sock_mc_join() / ipv6_sock_mc_drop(), the socket's own list. */
int ps6_mc_group(struct psock *sk, const struct ps_env *env, bool join,
		 const uint8_t group[16], uint32_t idx)
{
	if (group[0] != 0xff)
		return -EINVAL;
	for (unsigned i = 0; i < sk->nmc; i++) {
		if (memcmp(sk->mc[i].group, group, 16) != 0 ||
		    (idx && sk->mc[i].ifindex != idx))
			continue;
		if (join)
			return -EADDRINUSE;
		sk->mc[i] = sk->mc[--sk->nmc];
		return 0;
	}
	if (!join)
		return -EADDRNOTAVAIL;
	if (idx && !dev_ok(env, idx))
		return -ENODEV;
	if (sk->nmc >= PS_MAX_MEMBERSHIPS)
		return -ENOMEM;
	memcpy(sk->mc[sk->nmc].group, group, 16);
	sk->mc[sk->nmc++].ifindex = idx;
	return 0;
}

static int mc_join(struct psock *sk, const struct ps_env *env, bool join,
		   const uint8_t *val, uint32_t len)
{
	struct ipv6_mreq mr;

	if (len < sizeof(mr))
		return -EINVAL;
	memcpy(&mr, val, sizeof(mr));
	return ps6_mc_group(sk, env, join, mr.ipv6mr_multiaddr.s6_addr,
			    (uint32_t)mr.ipv6mr_interface);
}

static int rx_flag(int name, uint32_t *bit)
{
	for (size_t i = 0; i < sizeof(rx6) / sizeof(rx6[0]); i++) {
		if (rx6[i].name == name) {
			*bit = rx6[i].bit;
			return 0;
		}
	}
	return -ENOPROTOOPT;
}

static int set_pktinfo(struct psock *sk, const uint8_t *val, uint32_t len)
{
	struct in6_pktinfo pi;

	if (len < sizeof(pi))
		return -EINVAL;
	memcpy(&pi, val, sizeof(pi));
	if (sk->bound_dev && (uint32_t)pi.ipi6_ifindex != sk->bound_dev)
		return -EINVAL;
	sk->sticky_ifindex = (uint32_t)pi.ipi6_ifindex;
	memset(&sk->sticky_addr, 0, sizeof(sk->sticky_addr));
	sk->sticky_addr.family = AF_INET6;
	memcpy(sk->sticky_addr.a, &pi.ipi6_addr, 16);
	return 0;
}

static int set_if(struct psock *sk, const struct ps_env *env, int name,
		  int v, uint32_t len)
{
	if (name == IPV6_UNICAST_IF) {
		uint32_t idx;

		if (len != sizeof(int))
			return -EINVAL;
		idx = ntohl((uint32_t)v);
		if (idx && !dev_ok(env, idx))
			return -EADDRNOTAVAIL;
		if (idx && sk->bound_dev)
			return -EINVAL;
		sk->ucast_oif = idx;
		return 0;
	}
	if (len < sizeof(int))
		return -EINVAL;
	if (v) {
		if (!dev_ok(env, (uint32_t)v))
			return -ENODEV;
		if (sk->bound_dev && sk->bound_dev != (uint32_t)v)
			return -EINVAL;
	}
	sk->mc6_oif = (uint32_t)v;
	return 0;
}

/* The int options of set_int_opt(): any other name is ENOPROTOOPT
 * whatever its length (do_ipv6_setsockopt() finds no case for it). */
static const int ints6[] = {
	IPV6_UNICAST_HOPS, IPV6_MULTICAST_HOPS, IPV6_MULTICAST_LOOP,
	IPV6_TCLASS, IPV6_MTU_DISCOVER, IPV6_MTU, IPV6_RECVERR,
	IPV6_RECVERR_RFC4884, IPV6_V6ONLY, IPV6_FLOWINFO_SEND,
	IPV6_MULTICAST_ALL, IPV6_MINHOPCOUNT, IPV6_FREEBIND,
	IPV6_TRANSPARENT, IPV6_DONTFRAG, IPV6_AUTOFLOWLABEL,
};

static bool int6_known(int name)
{
	for (size_t i = 0; i < sizeof(ints6) / sizeof(ints6[0]); i++)
		if (ints6[i] == name)
			return true;
	return false;
}

/*
 * ip6_sock_set_addr_preferences(): at most one of PUBLIC, TMP and
 * PUBTMP_DEFAULT, of HOME and COA, of CGA and NONCGA.  Since Linux 6.7
 * each call replaces all three kept bits (TMP, PUBLIC, COA).
 */
static int set_srcprefs(struct psock *sk, int v)
{
	const unsigned pt = IPV6_PREFER_SRC_PUBLIC | IPV6_PREFER_SRC_TMP;
	const unsigned hc = IPV6_PREFER_SRC_HOME | IPV6_PREFER_SRC_COA;
	const unsigned cg = IPV6_PREFER_SRC_CGA | IPV6_PREFER_SRC_NONCGA;
	unsigned val = (unsigned)v, sel = val & (pt | IPV6_PREFER_SRC_PUBTMP_DEFAULT);

	if (sel && sel != IPV6_PREFER_SRC_PUBLIC && sel != IPV6_PREFER_SRC_TMP &&
	    sel != IPV6_PREFER_SRC_PUBTMP_DEFAULT)
		return -EINVAL;
	if ((val & hc) == hc || (val & cg) == cg)
		return -EINVAL;
	sk->srcprefs = (uint8_t)(val & (pt | IPV6_PREFER_SRC_COA));
	return 0;
}

/* What IPV6_ADDR_PREFERENCES reads back: one of each pair, the default
 * ones for what was never set. */
static int get_srcprefs(const struct psock *sk)
{
	int v = sk->srcprefs & IPV6_PREFER_SRC_TMP ? IPV6_PREFER_SRC_TMP
		: sk->srcprefs & IPV6_PREFER_SRC_PUBLIC
			? IPV6_PREFER_SRC_PUBLIC
			: IPV6_PREFER_SRC_PUBTMP_DEFAULT;

	return v | (sk->srcprefs & IPV6_PREFER_SRC_COA ? IPV6_PREFER_SRC_COA
						       : IPV6_PREFER_SRC_HOME);
}

static int set_int_opt(struct psock *sk, int name, int v, uint32_t len)
{
	/* These two take a short optlen as 0 (do_ipv6_setsockopt() reads
	 * val as 0 and checks no length for them). */
	if (name == IPV6_DONTFRAG) {
		sk->dontfrag = v != 0;
		return 0;
	}
	if (name == IPV6_AUTOFLOWLABEL) {
		sk->autoflowlabel = v != 0;
		return 0;
	}
	if (len < sizeof(int))
		return -EINVAL;
	switch (name) {
	case IPV6_UNICAST_HOPS:
		if (v < -1 || v > 255)
			return -EINVAL;
		sk->hop_limit = v;
		return 0;
	case IPV6_MULTICAST_HOPS:
		if (v < -1 || v > 255)
			return -EINVAL;
		sk->mc_hops = v == -1 ? 1 : v;
		return 0;
	case IPV6_MULTICAST_LOOP:
		if (v != 0 && v != 1)
			return -EINVAL;
		sk->mc6_loop = v;
		return 0;
	case IPV6_TCLASS:
		if (v < -1 || v > 0xff)
			return -EINVAL;
		sk->tclass = (uint8_t)(v == -1 ? 0 : v);
		return 0;
	case IPV6_MTU_DISCOVER:
		if (v < IPV6_PMTUDISC_DONT || v > IPV6_PMTUDISC_OMIT)
			return -EINVAL;
		sk->pmtudisc6 = v;
		return 0;
	case IPV6_MTU:
		if (v && v < 1280)
			return -EINVAL;
		sk->frag_size = v;
		return 0;
	case IPV6_RECVERR:
		sk->recverr6 = v != 0;
		return 0;
	case IPV6_RECVERR_RFC4884:
		if (v < 0 || v > 1)
			return -EINVAL;
		sk->rfc4884_6 = v;
		return 0;
	case IPV6_V6ONLY:
		if (sk->ident)
			return -EINVAL;
		sk->v6only = v != 0;
		return 0;
	case IPV6_FLOWINFO_SEND:
		sk->sndflow = v != 0;
		set_flag(&sk->cmsg, WIRE_CM_SNDFLOW, v != 0);
		return 0;
	case IPV6_MULTICAST_ALL:
		sk->mc6_all = v != 0;
		return 0;
	case IPV6_MINHOPCOUNT:
		if (v < 0 || v > 255)
			return -EINVAL;
		sk->min_hopcount = v;
		return 0;
	case IPV6_FREEBIND:
		sk->freebind = v != 0;
		return 0;
	case IPV6_TRANSPARENT:
		return v ? -EPERM : 0;
	default:
		return -ENOPROTOOPT;
	}
}

int ps6_flowlabel(struct psock *sk, const struct ps_env *env,
		  const uint8_t *val, uint32_t len, uint32_t *label)
{
	return psflow_opt(pstab_flows(sk->tab), sk, val, len,
			  env->flowlabel_state_ranges, pstab_now_ms(sk->tab),
			  label);
}

int ps6_setopt(struct psock *sk, const struct ps_env *env, int level,
	       int name, const uint8_t *val, uint32_t len)
{
	uint32_t bit;
	int v = 0;

	if (level != SOL_IPV6)
		return PS_PASS;
	if (len >= sizeof(int))
		memcpy(&v, val, sizeof(int));
	if (name == IPV6_PKTINFO)
		return set_pktinfo(sk, val, len);
	if (name == IPV6_FLOWLABEL_MGR) {
		uint32_t label;

		return ps6_flowlabel(sk, env, val, len, &label);
	}
	if (name == IPV6_JOIN_GROUP || name == IPV6_LEAVE_GROUP)
		return mc_join(sk, env, name == IPV6_JOIN_GROUP, val, len);
	/* ipv6_sock_ac_join(): an anycast address needs CAP_NET_ADMIN, so
	 * none was joined to leave. */
	if (name == IPV6_JOIN_ANYCAST || name == IPV6_LEAVE_ANYCAST)
		return len < sizeof(struct ipv6_mreq) ? -EINVAL
		       : name == IPV6_JOIN_ANYCAST ? -EPERM : -ENOENT;
	/* ip6_ra_control(): raw sockets only, once an int is given. */
	if (name == IPV6_ROUTER_ALERT)
		return len < sizeof(int) ? -EINVAL : -ENOPROTOOPT;
	if (quiet_bit(name, &bit) == 0) {
		/* IPV6_RECVFRAGSIZE alone takes any length (as 0). */
		if (len < sizeof(int) && name != IPV6_RECVFRAGSIZE)
			return -EINVAL;
		set_flag(&sk->rxquiet, bit, v != 0);
		return 0;
	}
	if (name == IPV6_MULTICAST_IF || name == IPV6_UNICAST_IF)
		return set_if(sk, env, name, v, len);
	if (name == IPV6_ADDR_PREFERENCES)
		return len < sizeof(int) ? -EINVAL : set_srcprefs(sk, v);
	if (rx_flag(name, &bit) == 0) {
		if (len < sizeof(int))
			return -EINVAL;
		set_flag(&sk->cmsg, bit, v != 0);
		return 0;
	}
	return int6_known(name) ? set_int_opt(sk, name, v, len)
				: -ENOPROTOOPT;
}

static int get_int_opt(const struct psock *sk, const struct ps_env *env,
		       int name, int *v)
{
	uint32_t bit;

	if (rx_flag(name, &bit) == 0) {
		*v = !!(sk->cmsg & bit);
		return 0;
	}
	if (quiet_bit(name, &bit) == 0) {
		*v = !!(sk->rxquiet & bit);
		return 0;
	}
	switch (name) {
	case IPV6_UNICAST_HOPS:
		*v = sk->hop_limit >= 0 ? sk->hop_limit : env->default_hoplimit;
		return 0;
	case IPV6_MULTICAST_HOPS: *v = sk->mc_hops; return 0;
	case IPV6_MULTICAST_LOOP: *v = sk->mc6_loop; return 0;
	case IPV6_MULTICAST_IF: *v = (int)sk->mc6_oif; return 0;
	case IPV6_UNICAST_IF: *v = (int)htonl(sk->ucast_oif); return 0;
	case IPV6_TCLASS: *v = sk->tclass; return 0;
	case IPV6_MTU_DISCOVER: *v = sk->pmtudisc6; return 0;
	case IPV6_RECVERR: *v = sk->recverr6; return 0;
	case IPV6_RECVERR_RFC4884: *v = sk->rfc4884_6; return 0;
	case IPV6_V6ONLY: *v = sk->v6only; return 0;
	case IPV6_FLOWINFO_SEND: *v = sk->sndflow; return 0;
	case IPV6_DONTFRAG: *v = sk->dontfrag; return 0;
	case IPV6_AUTOFLOWLABEL:
		*v = sk->autoflowlabel >= 0 ? sk->autoflowlabel : 1;
		return 0;
	case IPV6_FREEBIND: *v = sk->freebind; return 0;
	case IPV6_MULTICAST_ALL: *v = sk->mc6_all; return 0;
	case IPV6_MINHOPCOUNT: *v = sk->min_hopcount; return 0;
	case IPV6_TRANSPARENT:	/* never set: privileged, raw only */
	case IPV6_ROUTER_ALERT:
		*v = 0;
		return 0;
	case IPV6_ADDR_PREFERENCES: *v = get_srcprefs(sk); return 0;
	case IPV6_MTU:
		/* The MTU of the route cached at connect, until a send
		 * finds it stale. */
		if (!sk->connected || !sk->cached_mtu)
			return -ENOTCONN;
		*v = sk->cached_mtu;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

/* do_ipv6_getsockopt(IPV6_PATHMTU): the cached route's MTU, and no
 * address (ip6m_addr stays zero). */
static int get_pathmtu(const struct psock *sk, uint8_t *val, uint32_t *len)
{
	struct ip6_mtuinfo mi;

	if (*len < sizeof(mi))
		return -EINVAL;
	if (!sk->connected || !sk->cached_mtu)
		return -ENOTCONN;
	memset(&mi, 0, sizeof(mi));
	mi.ip6m_mtu = (uint32_t)sk->cached_mtu;
	memcpy(val, &mi, sizeof(mi));
	*len = sizeof(mi);
	return 0;
}

int ps6_getopt(const struct psock *sk, const struct ps_env *env, int level,
	       int name, uint8_t *val, uint32_t *len)
{
	uint32_t n;
	int v, err;

	if (level != SOL_IPV6)
		return PS_PASS;
	if (name == IPV6_FLOWLABEL_MGR)
		return psflow_query(pstab_flows(sk->tab), sk, val, len,
				    pstab_now_ms(sk->tab));
	if (name == IPV6_PATHMTU)
		return get_pathmtu(sk, val, len);
	err = get_int_opt(sk, env, name, &v);
	if (err)
		return err;
	n = *len < sizeof(int) ? *len : sizeof(int);
	memcpy(val, &v, n);
	*len = n;
	return 0;
}
