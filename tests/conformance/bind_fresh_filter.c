/* SPDX-License-Identifier: ISC */
/*
 * bind_fresh_filter: socket filters and group memberships set before a
 * socket's first bind() are still there after it.  Before the bind: a
 * dup() of the socket, a classic socket filter (one that keeps 20 bytes
 * of each datagram, so that it shows in every reply), SO_LOCK_FILTER,
 * group memberships (joined, joined with a source, joined and left, and
 * joined the older way).  After it, on the socket and on the dup: the
 * filter, its lock, each group's source filter; replies cut to 20 bytes.
 * IPv4 and IPv6.
 *
 * The case of broker mode (pingsockd(8), BROKER MODE), whose bind before
 * first use replaces the socket and sets these again on the new one.
 * Relay mode has neither socket filters nor memberships (ENOPROTOOPT,
 * pingsock(3)): it does not run this case.
 */
// needs: peer (veth0, its fd00:201::2 peer as a group's source)
// needs: broker
#include "conf.h"

#include <linux/filter.h>

#define PORT 40124

/* Keep the first 20 bytes of each datagram (a filter's return value is
 * the length to keep). */
static void filter_attach(int fd)
{
	static struct sock_filter keep20[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_RET | BPF_K, 20),
	};
	struct sock_fprog prog = { 2, keep20 };

	TRY("SO_ATTACH_FILTER (keep 20 bytes)",
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog)));
	TRY("SO_LOCK_FILTER 1", conf_setint(fd, SOL_SOCKET, SO_LOCK_FILTER, 1));
}

/* What getsockopt shows of the filter: its length, its lock. */
static void filter_show(const char *who, int fd)
{
	struct sock_filter insns[8];
	socklen_t n = 8;	/* SO_GET_FILTER counts instructions */

	memset(insns, 0, sizeof(insns));
	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_GET_FILTER, insns, &n) < 0)
		out("%s SO_GET_FILTER: -1 %s", who, conf_errname(errno));
	else
		out("%s SO_GET_FILTER: %u instructions, ret k=%u", who,
		    (unsigned)n, n == 2 ? insns[1].k : 0);
	conf_getint(L("%s SO_LOCK_FILTER", who), fd, SOL_SOCKET,
		    SO_LOCK_FILTER, sizeof(int));
}

static struct group_req group(const struct conf_fam *f, const char *ip)
{
	struct group_req g;

	memset(&g, 0, sizeof(g));
	g.gr_interface = conf_ifidx(CONF6_IF);
	if (f->af == AF_INET) {
		struct sockaddr_in a = conf_sin(ip, 0);

		memcpy(&g.gr_group, &a, sizeof(a));
	} else {
		struct sockaddr_in6 a = conf_sin6(ip, 0, 0);

		memcpy(&g.gr_group, &a, sizeof(a));
	}
	return g;
}

static int level_of(const struct conf_fam *f)
{
	return f->af == AF_INET ? SOL_IP : SOL_IPV6;
}

static void join(const struct conf_fam *f, int fd, const char *g1,
		 const char *g2, const char *g3)
{
	struct group_req g = group(f, g1);
	struct group_source_req s;

	TRY(L("MCAST_JOIN_GROUP %s", g1),
	    pingsock_setsockopt(fd, level_of(f), MCAST_JOIN_GROUP, &g,
				sizeof(g)));
	g = group(f, g2);
	memset(&s, 0, sizeof(s));
	s.gsr_interface = g.gr_interface;
	s.gsr_group = g.gr_group;
	g = group(f, f->peer);
	s.gsr_source = g.gr_group;
	TRY(L("MCAST_JOIN_SOURCE_GROUP %s from the peer", g2),
	    pingsock_setsockopt(fd, level_of(f), MCAST_JOIN_SOURCE_GROUP, &s,
				sizeof(s)));
	g = group(f, g3);
	TRY(L("MCAST_JOIN_GROUP %s", g3),
	    pingsock_setsockopt(fd, level_of(f), MCAST_JOIN_GROUP, &g,
				sizeof(g)));
	TRY(L("MCAST_LEAVE_GROUP %s", g3),
	    pingsock_setsockopt(fd, level_of(f), MCAST_LEAVE_GROUP, &g,
				sizeof(g)));
	if (f->af == AF_INET) {
		struct ip_mreqn m;

		memset(&m, 0, sizeof(m));
		inet_pton(AF_INET, "224.9.9.9", &m.imr_multiaddr);
		m.imr_ifindex = (int)conf_ifidx(CONF6_IF);
		TRY("IP_ADD_MEMBERSHIP 224.9.9.9",
		    pingsock_setsockopt(fd, SOL_IP, IP_ADD_MEMBERSHIP, &m,
					sizeof(m)));
	} else {
		struct ipv6_mreq m;

		memset(&m, 0, sizeof(m));
		inet_pton(AF_INET6, "ff02::9:9:9", &m.ipv6mr_multiaddr);
		m.ipv6mr_interface = conf_ifidx(CONF6_IF);
		TRY("IPV6_ADD_MEMBERSHIP ff02::9:9:9",
		    pingsock_setsockopt(fd, SOL_IPV6, IPV6_ADD_MEMBERSHIP, &m,
					sizeof(m)));
	}
}

/* A group's source filter as the socket has it (MCAST_MSFILTER). */
static void member_show(const struct conf_fam *f, const char *who, int fd,
			const char *ip)
{
	union {
		struct group_filter gf;
		uint8_t b[GROUP_FILTER_SIZE(4)];
	} u;
	struct group_req g = group(f, ip);
	socklen_t len = sizeof(u);

	memset(&u, 0, sizeof(u));
	u.gf.gf_interface = g.gr_interface;
	u.gf.gf_group = g.gr_group;
	u.gf.gf_numsrc = 4;
	if (pingsock_getsockopt(fd, level_of(f), MCAST_MSFILTER, &u, &len) < 0)
		out("%s %s: -1 %s", who, ip, conf_errname(errno));
	else
		out("%s %s: %s, %u sources", who, ip,
		    u.gf.gf_fmode == MCAST_INCLUDE ? "include" : "exclude",
		    u.gf.gf_numsrc);
}

static void members_show(const struct conf_fam *f, const char *who, int fd)
{
	const char *const v4[] = { "224.1.2.3", "232.1.1.1", "224.1.2.4",
				   "224.9.9.9" };
	const char *const v6[] = { "ff02::1:2:3", "ff32::8000:1",
				   "ff02::1:2:4", "ff02::9:9:9" };

	for (int i = 0; i < 4; i++)
		member_show(f, who, fd, f->af == AF_INET ? v4[i] : v6[i]);
}

static void run(const struct conf_fam *f)
{
	struct conf_addr a = conf_addr(f, f->loopback, PORT, 0);
	int fd = conf_fsocket(f), d = dup(fd);

	out("## %s", f->af_name);
	out("dup: %s", d >= 0 ? "ok" : "failed");
	filter_attach(fd);
	join(f, fd, f->af == AF_INET ? "224.1.2.3" : "ff02::1:2:3",
	     f->af == AF_INET ? "232.1.1.1" : "ff32::8000:1",
	     f->af == AF_INET ? "224.1.2.4" : "ff02::1:2:4");
	filter_show("before the bind: socket", fd);
	members_show(f, "before the bind: socket", fd);
	TRY(L("bind %s", conf_hostport(f, f->loopback, PORT)),
	    pingsock_bind(fd, &a.u.sa, a.len));
	filter_show("socket", fd);
	members_show(f, "socket", fd);
	filter_show("dup", d);
	members_show(f, "dup", d);
	TRY("SO_DETACH_FILTER (locked)",
	    conf_setint(fd, SOL_SOCKET, SO_DETACH_FILTER, 0));
	conf_fping(f, "echo on the dup", d, f->loopback, 1, 64);
	conf_freply1(f, "reply on the socket", fd, false);
	TRY("close dup", pingsock_close(d));
	TRY("close socket", pingsock_close(fd));
}

int main(void)
{
	conf_begin("bind_fresh_filter");
	run(&conf_v4);
	run(&conf_v6);
	return 0;
}
