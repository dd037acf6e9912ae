/* SPDX-License-Identifier: ISC */
/*
 * psmc - multicast group membership of a ping socket: IP_ADD_MEMBERSHIP
 * and IP_DROP_MEMBERSHIP, the protocol-independent MCAST_JOIN_GROUP and
 * MCAST_LEAVE_GROUP at SOL_IP and SOL_IPV6, the source filters
 * (IP_*_SOURCE*, MCAST_*SOURCE*, IP_MSFILTER, MCAST_MSFILTER).  Pure code.
 *
 * A ping socket never receives what is sent to a group (ping_rcv()
 * matches an Echo Reply by identifier only), so a membership changes
 * nothing it sees; the socket's list is kept, with the kernel's checks in
 * the kernel's order (lengths, family, group, device, the list), so that
 * joining, leaving and reading it answer as the kernel does.  The host
 * itself joins no group.  Source filters are checked the same way up to
 * the membership they need; one that would change a filter is refused
 * with EOPNOTSUPP (pingsockd(8), DIFFERENCES): there is no filter to
 * change, and a ping socket never sees its effect.
 */
#include "engine/psmc.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psock_int.h"
#include "engine/psopt6.h"

#define MSF_SIZE0 IP_MSFILTER_SIZE(0)
#define GF_SIZE0 GROUP_FILTER_SIZE(0)
/* Sources a filter may name: the defaults of net.ipv4.igmp_max_msf and
 * net.ipv6.mld_max_msf (more is ENOBUFS, before the size is checked). */
#define MAX_MSF4 10
#define MAX_MSF6 64

static bool mc4(uint32_t be)
{
	return (ntohl(be) & 0xf0000000u) == 0xe0000000u;
}

/* ip_mc_find_dev(): by index, else by local address, else by the route
 * to the group; 0 when there is no such device. */
static uint32_t find_dev4(const struct ps_env *env, uint32_t group,
			  uint32_t addr, uint32_t ifindex)
{
	char name[IF_NAMESIZE];
	struct ps_addr a, src;
	int d;

	if (ifindex)
		return env->dev_name(env->ctx, ifindex, name) == 0 ? ifindex
								   : 0;
	ps_addr_v4(&a, addr ? addr : group);
	if (!addr) {
		ps_addr_v4(&src, 0);
		if (env->route(env->ctx, &a, 0, 0, &src) != 0)
			return 0;
		a = src;
	}
	d = env->addr_dev(env->ctx, &a);
	return d > 0 ? (uint32_t)d : 0;
}

static struct ps_mcast4 *member4(struct psock *sk, uint32_t group,
				 uint32_t ifindex)
{
	for (unsigned i = 0; i < sk->nmc4; i++)
		if (sk->mc4[i].group == group && sk->mc4[i].ifindex == ifindex)
			return &sk->mc4[i];
	return NULL;
}

/* __ip_mc_join_group(). */
static int join4(struct psock *sk, const struct ps_env *env,
		 const struct ip_mreqn *m)
{
	uint32_t dev;

	if (!mc4(m->imr_multiaddr.s_addr))
		return -EINVAL;
	dev = find_dev4(env, m->imr_multiaddr.s_addr, m->imr_address.s_addr,
			(uint32_t)m->imr_ifindex);
	if (!dev)
		return -ENODEV;
	if (member4(sk, m->imr_multiaddr.s_addr, dev))
		return -EADDRINUSE;
	if (sk->nmc4 >= PS_MAX_MEMBERSHIPS4)
		return -ENOBUFS;
	sk->mc4[sk->nmc4].group = m->imr_multiaddr.s_addr;
	sk->mc4[sk->nmc4].addr = m->imr_address.s_addr;
	sk->mc4[sk->nmc4++].ifindex = dev;
	return 0;
}

/* ip_mc_leave_group(): by device if one is named or found, else by the
 * address the membership was made with. */
static int leave4(struct psock *sk, const struct ps_env *env,
		  const struct ip_mreqn *m)
{
	uint32_t dev = find_dev4(env, m->imr_multiaddr.s_addr,
				 m->imr_address.s_addr,
				 (uint32_t)m->imr_ifindex);

	if (!m->imr_ifindex && !m->imr_address.s_addr && !dev)
		return -ENODEV;
	for (unsigned i = 0; i < sk->nmc4; i++) {
		const struct ps_mcast4 *e = &sk->mc4[i];

		if (e->group != m->imr_multiaddr.s_addr ||
		    (dev && e->ifindex != dev) ||
		    (!dev && m->imr_address.s_addr &&
		     m->imr_address.s_addr != e->addr))
			continue;
		sk->mc4[i] = sk->mc4[--sk->nmc4];
		return 0;
	}
	return -EADDRNOTAVAIL;
}

/* IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP: an ip_mreq, or an ip_mreqn. */
static int mreq4(struct psock *sk, const struct ps_env *env, int name,
		 const uint8_t *val, uint32_t len)
{
	struct ip_mreqn m;

	if (len < sizeof(struct ip_mreq))
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	memcpy(&m, val, len >= sizeof(m) ? sizeof(m) : sizeof(struct ip_mreq));
	return name == IP_ADD_MEMBERSHIP ? join4(sk, env, &m)
					 : leave4(sk, env, &m);
}

/* ip_mc_source() up to its membership check; a filter it would change
 * is not kept (EOPNOTSUPP).  Without the membership a change is EINVAL
 * ("must have a prior join"), a read (get) EADDRNOTAVAIL. */
static int source4(struct psock *sk, const struct ps_env *env,
		   uint32_t group, uint32_t addr, uint32_t ifindex, bool get)
{
	uint32_t dev;

	if (!mc4(group))
		return -EINVAL;
	dev = find_dev4(env, group, addr, ifindex);
	if (!dev)
		return -ENODEV;
	if (member4(sk, group, dev))
		return -EOPNOTSUPP;
	return get ? -EADDRNOTAVAIL : -EINVAL;
}

/* IP_BLOCK_SOURCE and the rest of struct ip_mreq_source. */
static int mreq_source4(struct psock *sk, const struct ps_env *env,
			int name, const uint8_t *val, uint32_t len)
{
	struct ip_mreq_source s;

	if (len != sizeof(s))
		return -EINVAL;
	memcpy(&s, val, sizeof(s));
	if (name == IP_ADD_SOURCE_MEMBERSHIP && !mc4(s.imr_multiaddr.s_addr))
		return -EINVAL;
	return source4(sk, env, s.imr_multiaddr.s_addr, s.imr_interface.s_addr,
		       0, false);
}

/* The group (and source) of a group_req/group_source_req, of family;
 * -1 when a family is wrong. */
static int gsr_addr(const struct sockaddr_storage *ss, int family, void *a)
{
	if (ss->ss_family != family)
		return -1;
	if (family == AF_INET)
		memcpy(a, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	else
		memcpy(a, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	return 0;
}

/* MCAST_JOIN_GROUP, MCAST_LEAVE_GROUP at level (of family). */
static int group_req(struct psock *sk, const struct ps_env *env, int family,
		     int name, const uint8_t *val, uint32_t len)
{
	struct group_req g;
	uint8_t a[16];
	bool join = name == MCAST_JOIN_GROUP;

	if (len < sizeof(g))
		return -EINVAL;
	memcpy(&g, val, sizeof(g));
	if (gsr_addr(&g.gr_group, family, a) != 0)
		return family == AF_INET ? -EINVAL : -EADDRNOTAVAIL;
	if (family == AF_INET6)
		return ps6_mc_group(sk, env, join, a, g.gr_interface);
	{
		struct ip_mreqn m = { .imr_ifindex = (int)g.gr_interface };

		memcpy(&m.imr_multiaddr, a, 4);
		return join ? join4(sk, env, &m) : leave4(sk, env, &m);
	}
}

/* ip6_mc_source() up to its membership check. */
static int source6(struct psock *sk, const struct ps_env *env,
		   const uint8_t group[16], uint32_t ifindex, bool get)
{
	char name[IF_NAMESIZE];

	if (group[0] != 0xff)
		return -EINVAL;
	if (ifindex && env->dev_name(env->ctx, ifindex, name) != 0)
		return -ENODEV;
	for (unsigned i = 0; i < sk->nmc; i++)
		if ((!ifindex || sk->mc[i].ifindex == ifindex) &&
		    memcmp(sk->mc[i].group, group, 16) == 0)
			return -EOPNOTSUPP;
	return get ? -EADDRNOTAVAIL : -EINVAL;
}

/* MCAST_BLOCK_SOURCE, _UNBLOCK_, _JOIN_SOURCE_GROUP, _LEAVE_. */
static int group_source(struct psock *sk, const struct ps_env *env,
			int family, int name, const uint8_t *val, uint32_t len)
{
	struct group_source_req g;
	uint8_t a[16], src[16];

	if (len != sizeof(g))
		return -EINVAL;
	memcpy(&g, val, sizeof(g));
	if (gsr_addr(&g.gsr_group, family, a) != 0 ||
	    gsr_addr(&g.gsr_source, family, src) != 0)
		return -EADDRNOTAVAIL;
	if (family == AF_INET6)
		return source6(sk, env, a, g.gsr_interface, false);
	{
		uint32_t grp;

		memcpy(&grp, a, 4);
		if (name == MCAST_JOIN_SOURCE_GROUP && !mc4(grp))
			return -EINVAL;
		return source4(sk, env, grp, 0, g.gsr_interface, false);
	}
}

/* IP_MSFILTER, MCAST_MSFILTER set: sizes, then the group's checks. */
static int msfilter_set(struct psock *sk, const struct ps_env *env,
			int family, int name, const uint8_t *val, uint32_t len)
{
	if (name == IP_MSFILTER) {
		struct ip_msfilter f;

		if (len < MSF_SIZE0)
			return -EINVAL;
		memcpy(&f, val, MSF_SIZE0);
		if (f.imsf_numsrc > MAX_MSF4)
			return -ENOBUFS;
		if (IP_MSFILTER_SIZE(f.imsf_numsrc) > len)
			return -EINVAL;
		return source4(sk, env, f.imsf_multiaddr.s_addr,
			       f.imsf_interface.s_addr, 0, false);
	}
	{
		struct group_filter f;
		uint8_t a[16];

		if (len < GF_SIZE0)
			return -EINVAL;
		memcpy(&f, val, GF_SIZE0);
		if (f.gf_numsrc > (family == AF_INET ? MAX_MSF4 : MAX_MSF6))
			return -ENOBUFS;
		if (GROUP_FILTER_SIZE(f.gf_numsrc) > len)
			return -EINVAL;
		if (gsr_addr(&f.gf_group, family, a) != 0)
			return -EADDRNOTAVAIL;
		if (family == AF_INET6)
			return source6(sk, env, a, f.gf_interface, false);
		{
			uint32_t grp;

			memcpy(&grp, a, 4);
			return source4(sk, env, grp, 0, f.gf_interface, false);
		}
	}
}

int ps_mc_setopt(struct psock *sk, const struct ps_env *env, int level,
		 int name, const uint8_t *val, uint32_t len)
{
	int family = level == SOL_IP ? AF_INET : AF_INET6;

	switch (name) {
	case MCAST_JOIN_GROUP:
	case MCAST_LEAVE_GROUP:
		return group_req(sk, env, family, name, val, len);
	case MCAST_BLOCK_SOURCE:
	case MCAST_UNBLOCK_SOURCE:
	case MCAST_JOIN_SOURCE_GROUP:
	case MCAST_LEAVE_SOURCE_GROUP:
		return group_source(sk, env, family, name, val, len);
	case MCAST_MSFILTER:
		return msfilter_set(sk, env, family, name, val, len);
	default:
		break;
	}
	if (level != SOL_IP)
		return PS_PASS;
	switch (name) {
	case IP_ADD_MEMBERSHIP:
	case IP_DROP_MEMBERSHIP:
		return mreq4(sk, env, name, val, len);
	case IP_BLOCK_SOURCE:
	case IP_UNBLOCK_SOURCE:
	case IP_ADD_SOURCE_MEMBERSHIP:
	case IP_DROP_SOURCE_MEMBERSHIP:
		return mreq_source4(sk, env, name, val, len);
	case IP_MSFILTER:
		return msfilter_set(sk, env, family, name, val, len);
	default:
		return PS_PASS;
	}
}

/* The filter of a group this socket is a member of: exclude nothing. */
static int msf_get4(struct psock *sk, const struct ps_env *env, uint8_t *val,
		    uint32_t *len)
{
	struct ip_msfilter f;
	int err;

	if (*len < MSF_SIZE0)
		return -EINVAL;
	memcpy(&f, val, MSF_SIZE0);
	err = source4(sk, env, f.imsf_multiaddr.s_addr,
		      f.imsf_interface.s_addr, 0, true);
	if (err != -EOPNOTSUPP)
		return err;
	f.imsf_fmode = MCAST_EXCLUDE;
	f.imsf_numsrc = 0;
	memcpy(val, &f, MSF_SIZE0);
	*len = MSF_SIZE0;
	return 0;
}

static int gf_get(struct psock *sk, const struct ps_env *env, int family,
		  uint8_t *val, uint32_t *len)
{
	struct group_filter f;
	uint8_t a[16];
	uint32_t grp;
	int err;

	if (*len < GF_SIZE0)
		return -EINVAL;
	memcpy(&f, val, GF_SIZE0);
	if (gsr_addr(&f.gf_group, family, a) != 0)
		return family == AF_INET ? -EINVAL : -EADDRNOTAVAIL;
	memcpy(&grp, a, 4);
	err = family == AF_INET6
		      ? source6(sk, env, a, f.gf_interface, true)
		      : source4(sk, env, grp, 0, f.gf_interface, true);
	if (err != -EOPNOTSUPP)
		return err;
	f.gf_fmode = MCAST_EXCLUDE;
	f.gf_numsrc = 0;
	memcpy(val, &f, GF_SIZE0);
	*len = GF_SIZE0;
	return 0;
}

int ps_mc_getopt(struct psock *sk, const struct ps_env *env, int level,
		 int name, uint8_t *val, uint32_t *len)
{
	if (name == MCAST_MSFILTER)
		return gf_get(sk, env, level == SOL_IP ? AF_INET : AF_INET6,
			      val, len);
	if (level == SOL_IP && name == IP_MSFILTER)
		return msf_get4(sk, env, val, len);
	return PS_PASS;
}
