/* SPDX-License-Identifier: ISC */
/*
 * test_psmc - multicast membership (src/engine/psmc.c), the SOL_IP
 * options kept and read back (psoptip.c), IPV6_ADDR_PREFERENCES and
 * getsockopt(IPV6_FLOWLABEL_MGR), against a fake host, with the kernel's
 * answers as the conformance cases mcast and optsweep measured them on
 * Linux 6.18.
 *
 * The fake host: devices 1 (lo, 127.0.0.1) and 2 (eth0, 10.0.0.1); the
 * route to any group leaves from 10.0.0.1, except 239.9.0.0/16: none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psflow.h"
#include "engine/psock.h"
#include "engine/psock_int.h"
#include "wire/in6ext.h"
#include "check.h"

#define HOST1 0x0a000001u	/* 10.0.0.1, on eth0 */

static int fake_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1 && ifindex != 2)
		return -ENODEV;
	strcpy(buf, ifindex == 1 ? "lo" : "eth0");
	return 0;
}

static int fake_addr_dev(void *ctx, const struct ps_addr *a)
{
	uint32_t v = ntohl(ps_addr_get_v4(a));

	(void)ctx;
	return v == HOST1 ? 2 : (v >> 24) == 127 ? 1 : 0;
}

static int fake_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		      unsigned flags, struct ps_addr *src)
{
	(void)ctx;
	(void)ifindex;
	(void)flags;
	if ((ntohl(ps_addr_get_v4(dst)) >> 16) == 0xef09)
		return -ENETUNREACH;
	ps_addr_v4(src, htonl(HOST1));
	return 0;
}

static const struct ps_env env = {
	.route = fake_route,
	.dev_name = fake_dev_name,
	.addr_dev = fake_addr_dev,
};

static struct psock *open_sock(struct pstab *tab, int family)
{
	struct psock *sk = NULL;

	CHECK_EQ(pstab_open(tab, family, SOCK_DGRAM,
			    family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6,
			    1000, &sk), 0);
	return sk;
}

static int set(struct psock *sk, int level, int name, const void *v,
	       uint32_t len)
{
	return ps_setopt(sk, &env, level, name, v, len);
}

static int setint(struct psock *sk, int level, int name, int v)
{
	return set(sk, level, name, &v, sizeof(v));
}

static int getint(struct psock *sk, int level, int name)
{
	int v = -12345;
	uint32_t len = sizeof(v);
	int rc = ps_getopt(sk, &env, level, name, (uint8_t *)&v, &len);

	return rc ? rc * 1000 : v;
}

/* IP_ADD_MEMBERSHIP / IP_DROP_MEMBERSHIP with an ip_mreqn. */
static int mreqn(struct psock *sk, int name, const char *group,
		 uint32_t addr, int ifindex)
{
	struct ip_mreqn m = { .imr_ifindex = ifindex };

	inet_pton(AF_INET, group, &m.imr_multiaddr);
	m.imr_address.s_addr = htonl(addr);
	return set(sk, SOL_IP, name, &m, sizeof(m));
}

static void ipv4_join_and_leave(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET);
	uint8_t shortv[4] = { 0 };

	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.3", 0, 2), 0);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.3", 0, 2), -EADDRINUSE);
	/* By address: the device that has it, the same membership. */
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.3", HOST1, 0),
		 -EADDRINUSE);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.3", 0, 1), 0);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "10.1.2.3", 0, 2), -EINVAL);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.4", 0, 9), -ENODEV);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "239.9.1.1", 0, 0), -ENODEV);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.5", 0, 0), 0);
	CHECK_EQ(set(sk, SOL_IP, IP_ADD_MEMBERSHIP, shortv, 4), -EINVAL);
	CHECK_EQ(mreqn(sk, IP_DROP_MEMBERSHIP, "224.1.2.3", 0, 2), 0);
	CHECK_EQ(mreqn(sk, IP_DROP_MEMBERSHIP, "224.1.2.3", 0, 2),
		 -EADDRNOTAVAIL);
	CHECK_EQ(mreqn(sk, IP_DROP_MEMBERSHIP, "224.1.2.3", 0, 1), 0);
	CHECK_EQ(mreqn(sk, IP_DROP_MEMBERSHIP, "224.1.2.5", HOST1, 0), 0);
	CHECK_EQ(mreqn(sk, IP_DROP_MEMBERSHIP, "239.9.1.1", 0, 0), -ENODEV);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void ipv4_membership_limit(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET);
	char g[32];

	for (int i = 1; i <= 20; i++) {
		snprintf(g, sizeof(g), "224.2.0.%d", i);
		CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, g, 0, 2), 0);
	}
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.2.0.21", 0, 2), -ENOBUFS);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void group_req_both_levels(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *s4 = open_sock(tab, AF_INET);
	struct psock *s6 = open_sock(tab, AF_INET6);
	struct group_req g = { .gr_interface = 2 };
	struct sockaddr_in *in = (struct sockaddr_in *)&g.gr_group;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&g.gr_group;

	in->sin_family = AF_INET;
	inet_pton(AF_INET, "224.1.2.7", &in->sin_addr);
	CHECK_EQ(set(s4, SOL_IP, MCAST_JOIN_GROUP, &g, sizeof(g)), 0);
	CHECK_EQ(set(s4, SOL_IP, MCAST_JOIN_GROUP, &g, sizeof(g)),
		 -EADDRINUSE);
	CHECK_EQ(set(s4, SOL_IP, MCAST_JOIN_GROUP, &g, sizeof(g) - 1),
		 -EINVAL);
	CHECK_EQ(set(s6, SOL_IPV6, MCAST_JOIN_GROUP, &g, sizeof(g)),
		 -EADDRNOTAVAIL);
	CHECK_EQ(set(s4, SOL_IP, MCAST_LEAVE_GROUP, &g, sizeof(g)), 0);
	CHECK_EQ(set(s4, SOL_IP, MCAST_LEAVE_GROUP, &g, sizeof(g)),
		 -EADDRNOTAVAIL);
	memset(&g.gr_group, 0, sizeof(g.gr_group));
	in6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "ff02::1:3", &in6->sin6_addr);
	CHECK_EQ(set(s4, SOL_IP, MCAST_JOIN_GROUP, &g, sizeof(g)), -EINVAL);
	CHECK_EQ(set(s6, SOL_IPV6, MCAST_JOIN_GROUP, &g, sizeof(g)), 0);
	CHECK_EQ(set(s6, SOL_IPV6, MCAST_JOIN_GROUP, &g, sizeof(g)),
		 -EADDRINUSE);
	/* One list: IPV6_JOIN_GROUP's. */
	CHECK_EQ(s6->nmc, 1);
	CHECK_EQ(set(s6, SOL_IPV6, MCAST_LEAVE_GROUP, &g, sizeof(g)), 0);
	CHECK_EQ(s6->nmc, 0);
	pstab_close(tab, s4);
	pstab_close(tab, s6);
	pstab_free(tab);
}

static void source_filters(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET);
	struct ip_mreq_source s;
	struct ip_msfilter f;
	uint32_t len = sizeof(f);

	memset(&s, 0, sizeof(s));
	inet_pton(AF_INET, "224.1.2.3", &s.imr_multiaddr);
	s.imr_interface.s_addr = htonl(HOST1);
	CHECK_EQ(set(sk, SOL_IP, IP_BLOCK_SOURCE, &s, sizeof(s)), -EINVAL);
	CHECK_EQ(set(sk, SOL_IP, IP_BLOCK_SOURCE, &s, sizeof(s) - 1), -EINVAL);
	CHECK_EQ(mreqn(sk, IP_ADD_MEMBERSHIP, "224.1.2.3", 0, 2), 0);
	CHECK_EQ(set(sk, SOL_IP, IP_BLOCK_SOURCE, &s, sizeof(s)), -EOPNOTSUPP);
	memset(&f, 0xaa, sizeof(f));
	f.imsf_multiaddr = s.imr_multiaddr;
	f.imsf_interface = s.imr_interface;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_MSFILTER, (uint8_t *)&f, &len),
		 0);
	CHECK_EQ(len, IP_MSFILTER_SIZE(0));
	CHECK_EQ(f.imsf_fmode, MCAST_EXCLUDE);
	CHECK_EQ(f.imsf_numsrc, 0);
	inet_pton(AF_INET, "224.9.9.9", &f.imsf_multiaddr);
	CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_MSFILTER, (uint8_t *)&f, &len),
		 -EADDRNOTAVAIL);
	len = IP_MSFILTER_SIZE(0) - 1;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_MSFILTER, (uint8_t *)&f, &len),
		 -EINVAL);
	f.imsf_numsrc = 11;	/* over igmp_max_msf: before the size */
	CHECK_EQ(set(sk, SOL_IP, IP_MSFILTER, &f, IP_MSFILTER_SIZE(0)),
		 -ENOBUFS);
	f.imsf_numsrc = 1;
	CHECK_EQ(set(sk, SOL_IP, IP_MSFILTER, &f, IP_MSFILTER_SIZE(0)),
		 -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void ip_options_kept(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET);
	struct psock *s6 = open_sock(tab, AF_INET6);
	uint32_t idx = htonl(2), range = 0x00010002u;	/* lo 2, hi 1 */

	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_ALL), 1);
	CHECK_EQ(getint(s6, SOL_IP, IP_MULTICAST_ALL), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_ALL, 2), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_MINTTL, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_MINTTL, 255), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MINTTL), 255);
	CHECK_EQ(set(sk, SOL_IP, IP_PASSSEC, NULL, 0), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_CHECKSUM, -1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_CHECKSUM), 1);
	CHECK_EQ(setint(sk, SOL_IP, IP_ROUTER_ALERT, 0), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IP, IP_ROUTER_ALERT), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_PROTOCOL, 1), -ENOPROTOOPT);
	CHECK_EQ(getint(sk, SOL_IP, IP_PROTOCOL), 0);	/* unbound */
	CHECK_EQ(set(sk, SOL_IP, IP_UNICAST_IF, &idx, 1), -EINVAL);
	CHECK_EQ(set(sk, SOL_IP, IP_UNICAST_IF, &idx, 4), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_UNICAST_IF), (int)htonl(2));
	idx = htonl(9);
	CHECK_EQ(set(sk, SOL_IP, IP_UNICAST_IF, &idx, 4), -EADDRNOTAVAIL);
	CHECK_EQ(set(sk, SOL_IP, IP_LOCAL_PORT_RANGE, &range, 4), -EINVAL);
	range = 0x00020001u;
	CHECK_EQ(set(sk, SOL_IP, IP_LOCAL_PORT_RANGE, &range, 2), -EINVAL);
	CHECK_EQ(set(sk, SOL_IP, IP_LOCAL_PORT_RANGE, &range, 4), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_LOCAL_PORT_RANGE), 0x00020001);
	pstab_close(tab, sk);
	pstab_close(tab, s6);
	pstab_free(tab);
}

static void ipv6_addr_preferences(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET6);
	const int def = IPV6_PREFER_SRC_PUBTMP_DEFAULT | IPV6_PREFER_SRC_HOME;

	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES), def);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES,
			IPV6_PREFER_SRC_TMP | IPV6_PREFER_SRC_COA), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES),
		 IPV6_PREFER_SRC_TMP | IPV6_PREFER_SRC_COA);
	/* Each call replaces all (Linux 6.7 on). */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES), def);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES,
			IPV6_PREFER_SRC_TMP | IPV6_PREFER_SRC_PUBLIC), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES,
			IPV6_PREFER_SRC_CGA | IPV6_PREFER_SRC_NONCGA), -EINVAL);
	CHECK_EQ(set(sk, SOL_IPV6, IPV6_ADDR_PREFERENCES, "\1", 1), -EINVAL);
	/* An unknown name is ENOPROTOOPT whatever its length. */
	CHECK_EQ(set(sk, SOL_IPV6, 99, NULL, 0), -ENOPROTOOPT);
	CHECK_EQ(set(sk, SOL_IPV6, IPV6_RECVFRAGSIZE, NULL, 0), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* getsockopt(IPV6_FLOWLABEL_MGR): only IPV6_FL_A_GET; unconnected,
 * no label to report (ENOENT), unless the remote one is asked (0). */
static void flowlabel_get(void)
{
	struct pstab *tab = pstab_new(1);
	struct psock *sk = open_sock(tab, AF_INET6);
	struct in6ext_flreq q;
	uint32_t len = sizeof(q);

	memset(&q, 0, sizeof(q));
	q.action = IN6EXT_FL_A_PUT;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_FLOWLABEL_MGR,
			   (uint8_t *)&q, &len), -EINVAL);
	q.action = IN6EXT_FL_A_GET;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_FLOWLABEL_MGR,
			   (uint8_t *)&q, &len), -ENOENT);
	q.flags = IN6EXT_FL_F_REMOTE;
	q.label = 0xffffffffu;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_FLOWLABEL_MGR,
			   (uint8_t *)&q, &len), 0);
	CHECK_EQ(q.label, 0);
	CHECK_EQ(len, sizeof(q));
	len = sizeof(q) - 1;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_FLOWLABEL_MGR,
			   (uint8_t *)&q, &len), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

int main(void)
{
	TEST(ipv4_join_and_leave);
	TEST(ipv4_membership_limit);
	TEST(group_req_both_levels);
	TEST(source_filters);
	TEST(ip_options_kept);
	TEST(ipv6_addr_preferences);
	TEST(flowlabel_get);
	return CHECK_DONE();
}
