/* SPDX-License-Identifier: ISC */
/*
 * mcast: multicast group membership of a ping socket, with values the
 * kernel takes (optsweep.c tries the others): IP_ADD_MEMBERSHIP and
 * IP_DROP_MEMBERSHIP by device and by address, MCAST_JOIN_GROUP and
 * MCAST_LEAVE_GROUP at both levels, the limit of memberships, the
 * filters read back (IP_MSFILTER, MCAST_MSFILTER), and a source filter
 * change (relay: EOPNOTSUPP, relay-differences.sed).
 */
// needs: peer (10.201.0.1/24 and fd00:201::1 on veth0)
#include "conf.h"

static struct ip_mreqn mreqn(const char *group, const char *addr,
			     unsigned ifindex)
{
	struct ip_mreqn m;

	memset(&m, 0, sizeof(m));
	inet_pton(AF_INET, group, &m.imr_multiaddr);
	if (addr)
		inet_pton(AF_INET, addr, &m.imr_address);
	m.imr_ifindex = (int)ifindex;
	return m;
}

/* IP_ADD/DROP_MEMBERSHIP with a struct ip_mreqn (len 12) or, with an
 * address and no index, the older struct ip_mreq (len 8). */
static void member4(int fd, int name, const char *what, const char *group,
		    const char *addr, unsigned ifindex)
{
	struct ip_mreqn m = mreqn(group, addr, ifindex);

	TRY(what, pingsock_setsockopt(fd, SOL_IP, name, &m,
				      ifindex ? sizeof(m)
					      : sizeof(struct ip_mreq)));
}

static struct group_req greq(int family, const char *group,
			     unsigned ifindex)
{
	struct group_req g;

	memset(&g, 0, sizeof(g));
	g.gr_interface = ifindex;
	g.gr_group.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		inet_pton(AF_INET,
			  group, &((struct sockaddr_in *)&g.gr_group)->sin_addr);
	else
		inet_pton(AF_INET6, group,
			  &((struct sockaddr_in6 *)&g.gr_group)->sin6_addr);
	return g;
}

static void group(int fd, int level, int name, const char *what, int family,
		  const char *grp, unsigned ifindex)
{
	struct group_req g = greq(family, grp, ifindex);

	TRY(what, pingsock_setsockopt(fd, level, name, &g, sizeof(g)));
}

/* MCAST_MSFILTER read back: the mode and source count. */
static void gf_get(int fd, int level, const char *what, int family,
		   const char *grp, unsigned ifindex)
{
	struct group_filter f;
	struct group_req g = greq(family, grp, ifindex);
	socklen_t len = sizeof(f);

	memset(&f, 0, sizeof(f));
	f.gf_interface = ifindex;
	f.gf_group = g.gr_group;
	f.gf_numsrc = 1;
	if (TRY(what, pingsock_getsockopt(fd, level, MCAST_MSFILTER, &f,
					  &len)) == 0)
		out("  len=%u mode=%u numsrc=%u", (unsigned)len, f.gf_fmode,
		    f.gf_numsrc);
}

static void v4_filters(int fd)
{
	struct ip_msfilter f;
	struct ip_mreq_source s;
	socklen_t len = sizeof(f);

	memset(&f, 0, sizeof(f));
	inet_pton(AF_INET, "224.1.2.4", &f.imsf_multiaddr);
	inet_pton(AF_INET, CONF_LOCAL, &f.imsf_interface);
	if (TRY("IP_MSFILTER get 224.1.2.4 on " CONF_LOCAL,
		pingsock_getsockopt(fd, SOL_IP, IP_MSFILTER, &f, &len)) == 0)
		out("  len=%u mode=%u numsrc=%u", (unsigned)len, f.imsf_fmode,
		    f.imsf_numsrc);
	len = sizeof(f);
	inet_pton(AF_INET, "224.9.9.9", &f.imsf_multiaddr);
	TRY("IP_MSFILTER get 224.9.9.9 (not joined)",
	    pingsock_getsockopt(fd, SOL_IP, IP_MSFILTER, &f, &len));
	memset(&s, 0, sizeof(s));
	inet_pton(AF_INET, "224.9.9.9", &s.imr_multiaddr);
	inet_pton(AF_INET, CONF_LOCAL, &s.imr_interface);
	inet_pton(AF_INET, CONF_PEER, &s.imr_sourceaddr);
	TRY("IP_BLOCK_SOURCE 224.9.9.9 (not joined)",
	    pingsock_setsockopt(fd, SOL_IP, IP_BLOCK_SOURCE, &s, sizeof(s)));
	inet_pton(AF_INET, "224.1.2.4", &s.imr_multiaddr);
	TRY("IP_BLOCK_SOURCE 224.1.2.4 from the peer",
	    pingsock_setsockopt(fd, SOL_IP, IP_BLOCK_SOURCE, &s, sizeof(s)));
}

static void v4(unsigned veth0)
{
	int fd = conf_socket();
	char g[32];

	out("## IPv4");
	member4(fd, IP_ADD_MEMBERSHIP, "join 224.1.2.3 on veth0",
		"224.1.2.3", NULL, veth0);
	member4(fd, IP_ADD_MEMBERSHIP, "join 224.1.2.3 on veth0 again",
		"224.1.2.3", NULL, veth0);
	member4(fd, IP_ADD_MEMBERSHIP, "join 224.1.2.4 by address",
		"224.1.2.4", CONF_LOCAL, 0);
	member4(fd, IP_ADD_MEMBERSHIP, "join 224.1.2.5, no device, no route",
		"224.1.2.5", NULL, 0);
	member4(fd, IP_ADD_MEMBERSHIP, "join 224.1.2.6 on device 999",
		"224.1.2.6", NULL, 999);
	member4(fd, IP_ADD_MEMBERSHIP, "join 10.1.2.3 (not a group)",
		"10.1.2.3", NULL, veth0);
	v4_filters(fd);
	gf_get(fd, SOL_IP, "MCAST_MSFILTER get 224.1.2.3", AF_INET,
	       "224.1.2.3", veth0);
	member4(fd, IP_DROP_MEMBERSHIP, "leave 224.1.2.3 on veth0",
		"224.1.2.3", NULL, veth0);
	member4(fd, IP_DROP_MEMBERSHIP, "leave 224.1.2.3 on veth0 again",
		"224.1.2.3", NULL, veth0);
	member4(fd, IP_DROP_MEMBERSHIP, "leave 224.1.2.4 by address",
		"224.1.2.4", CONF_LOCAL, 0);
	group(fd, SOL_IP, MCAST_JOIN_GROUP, "MCAST_JOIN_GROUP 224.1.2.7",
	      AF_INET, "224.1.2.7", veth0);
	group(fd, SOL_IP, MCAST_JOIN_GROUP, "MCAST_JOIN_GROUP an IPv6 group",
	      AF_INET6, "ff02::1:3", veth0);
	group(fd, SOL_IP, MCAST_LEAVE_GROUP, "MCAST_LEAVE_GROUP 224.1.2.7",
	      AF_INET, "224.1.2.7", veth0);
	group(fd, SOL_IP, MCAST_LEAVE_GROUP, "MCAST_LEAVE_GROUP again",
	      AF_INET, "224.1.2.7", veth0);
	for (int i = 0; i < 21; i++) {
		snprintf(g, sizeof(g), "224.2.0.%d", i + 1);
		member4(fd, IP_ADD_MEMBERSHIP, L("join %s", g), g, NULL,
			veth0);
	}
	pingsock_close(fd);
}

static void v6(unsigned veth0)
{
	int fd = conf_socket6();
	struct ipv6_mreq mr;
	struct group_source_req s;

	out("## IPv6");
	group(fd, SOL_IPV6, MCAST_JOIN_GROUP, "MCAST_JOIN_GROUP ff02::1:3",
	      AF_INET6, "ff02::1:3", veth0);
	group(fd, SOL_IPV6, MCAST_JOIN_GROUP, "MCAST_JOIN_GROUP again",
	      AF_INET6, "ff02::1:3", veth0);
	group(fd, SOL_IPV6, MCAST_JOIN_GROUP, "MCAST_JOIN_GROUP an IPv4 group",
	      AF_INET, "224.1.2.3", veth0);
	gf_get(fd, SOL_IPV6, "MCAST_MSFILTER get ff02::1:3", AF_INET6,
	       "ff02::1:3", veth0);
	gf_get(fd, SOL_IPV6, "MCAST_MSFILTER get ff02::1:4 (not joined)",
	       AF_INET6, "ff02::1:4", veth0);
	memset(&s, 0, sizeof(s));
	s.gsr_interface = veth0;
	s.gsr_group = greq(AF_INET6, "ff02::1:3", veth0).gr_group;
	s.gsr_source = greq(AF_INET6, CONF6_PEER, veth0).gr_group;
	TRY("MCAST_BLOCK_SOURCE ff02::1:3 from the peer",
	    pingsock_setsockopt(fd, SOL_IPV6, MCAST_BLOCK_SOURCE, &s,
				sizeof(s)));
	memset(&mr, 0, sizeof(mr));
	inet_pton(AF_INET6, "ff02::1:3", &mr.ipv6mr_multiaddr);
	mr.ipv6mr_interface = veth0;
	TRY("IPV6_LEAVE_GROUP ff02::1:3",
	    pingsock_setsockopt(fd, SOL_IPV6, IPV6_LEAVE_GROUP, &mr,
				sizeof(mr)));
	group(fd, SOL_IPV6, MCAST_LEAVE_GROUP, "MCAST_LEAVE_GROUP ff02::1:3",
	      AF_INET6, "ff02::1:3", veth0);
	pingsock_close(fd);
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF);

	conf_begin("mcast");
	v4(veth0);
	v6(veth0);
	return 0;
}
