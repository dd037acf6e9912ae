/*
 * options6: setsockopt/getsockopt round trips of the SOL_IPV6 options of
 * an IPv6 ping socket (limits, errors, optlen handling), the SOL_IP level
 * on it, and the per-send control messages IPV6_HOPLIMIT, IPV6_TCLASS,
 * IPV6_PKTINFO and IPV6_DONTFRAG with the reply they get.
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"

static void set_get(const char *what, int fd, int level, int name, int v)
{
	TRY(L("%s set %d", what, v), conf_setint(fd, level, name, v));
	conf_getint(L("%s get", what), fd, level, name, sizeof(int));
}

static void set_len(const char *what, int fd, int level, int name,
		    const void *val, socklen_t len)
{
	TRY(what, pingsock_setsockopt(fd, level, name, val, len));
}

/* sendmsg to dst of a 64-byte Echo Request with the control messages in
 * cb (len bytes), then the reply (with room for control data). */
static void send_cmsg(const char *what, int fd, const struct sockaddr_in6 *dst,
		      const void *cb, size_t len, uint16_t seq, bool reply)
{
	struct iovec iov = { conf_big, 64 };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	conf_echo6(conf_big, 64, seq);
	m.msg_name = (void *)dst;
	m.msg_namelen = sizeof(*dst);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = (void *)cb;
	m.msg_controllen = len;
	if (TRY(what, pingsock_sendmsg(fd, &m, 0)) > 0 && reply)
		conf_reply6("  reply", fd, 1000, 0, 512, false);
}

union cbuf {
	char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

/* One int control message. */
static size_t cmsg_int(union cbuf *cb, int type, int v, size_t dlen)
{
	struct cmsghdr *c = &cb->align;

	memset(cb, 0, sizeof(*cb));
	c->cmsg_level = SOL_IPV6;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	return CMSG_SPACE(dlen);
}

static size_t cmsg_pktinfo(union cbuf *cb, const char *addr, unsigned ifidx)
{
	struct cmsghdr *c = &cb->align;
	struct in6_pktinfo pi;

	memset(cb, 0, sizeof(*cb));
	memset(&pi, 0, sizeof(pi));
	inet_pton(AF_INET6, addr, &pi.ipi6_addr);
	pi.ipi6_ifindex = ifidx;
	c->cmsg_level = SOL_IPV6;
	c->cmsg_type = IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	return CMSG_SPACE(sizeof(pi));
}

static void ints(int fd)
{
	unsigned char c;
	int v, wide[2] = { 0, 0 };

	out("## IPV6_UNICAST_HOPS");
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, 10);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, 255);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, 1);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, 0);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, 256);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, -2);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, -1);
	c = 5;
	set_len("IPV6_UNICAST_HOPS set 5, optlen 1", fd, SOL_IPV6,
		IPV6_UNICAST_HOPS, &c, 1);
	v = 7;
	set_len("IPV6_UNICAST_HOPS set 7, optlen 0", fd, SOL_IPV6,
		IPV6_UNICAST_HOPS, &v, 0);
	wide[0] = 7;
	set_len("IPV6_UNICAST_HOPS set 7, optlen 8", fd, SOL_IPV6,
		IPV6_UNICAST_HOPS, wide, 8);
	conf_getint("IPV6_UNICAST_HOPS get", fd, SOL_IPV6, IPV6_UNICAST_HOPS,
		    sizeof(int));
	conf_getint("IPV6_UNICAST_HOPS get optlen 1", fd, SOL_IPV6,
		    IPV6_UNICAST_HOPS, 1);
	conf_getint("IPV6_UNICAST_HOPS get optlen 0", fd, SOL_IPV6,
		    IPV6_UNICAST_HOPS, 0);
	conf_getint("IPV6_UNICAST_HOPS get optlen 8", fd, SOL_IPV6,
		    IPV6_UNICAST_HOPS, 8);
	conf_getint("IPV6_UNICAST_HOPS get optlen -1", fd, SOL_IPV6,
		    IPV6_UNICAST_HOPS, (socklen_t)-1);
	set_get("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS, -1);

	out("## IPV6_MULTICAST_HOPS, IPV6_MULTICAST_LOOP");
	set_get("IPV6_MULTICAST_HOPS", fd, SOL_IPV6, IPV6_MULTICAST_HOPS, 5);
	set_get("IPV6_MULTICAST_HOPS", fd, SOL_IPV6, IPV6_MULTICAST_HOPS, 255);
	set_get("IPV6_MULTICAST_HOPS", fd, SOL_IPV6, IPV6_MULTICAST_HOPS, 256);
	set_get("IPV6_MULTICAST_HOPS", fd, SOL_IPV6, IPV6_MULTICAST_HOPS, -1);
	set_get("IPV6_MULTICAST_LOOP", fd, SOL_IPV6, IPV6_MULTICAST_LOOP, 0);
	set_get("IPV6_MULTICAST_LOOP", fd, SOL_IPV6, IPV6_MULTICAST_LOOP, 2);
	set_get("IPV6_MULTICAST_LOOP", fd, SOL_IPV6, IPV6_MULTICAST_LOOP, -1);
	set_get("IPV6_MULTICAST_LOOP", fd, SOL_IPV6, IPV6_MULTICAST_LOOP, 1);

	out("## IPV6_TCLASS");
	set_get("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS, 0x28);
	set_get("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS, 0xff);
	set_get("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS, 0x100);
	set_get("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS, -2);
	set_get("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS, -1);

	out("## IPV6_MTU_DISCOVER, IPV6_MTU, IPV6_DONTFRAG");
	for (int m = 0; m <= 6; m++)
		set_get("IPV6_MTU_DISCOVER", fd, SOL_IPV6, IPV6_MTU_DISCOVER,
			m);
	set_get("IPV6_MTU_DISCOVER", fd, SOL_IPV6, IPV6_MTU_DISCOVER, -1);
	set_get("IPV6_MTU_DISCOVER", fd, SOL_IPV6, IPV6_MTU_DISCOVER,
		IPV6_PMTUDISC_WANT);
	set_get("IPV6_MTU (unconnected)", fd, SOL_IPV6, IPV6_MTU, 1280);
	set_get("IPV6_MTU (unconnected)", fd, SOL_IPV6, IPV6_MTU, 1279);
	set_get("IPV6_MTU (unconnected)", fd, SOL_IPV6, IPV6_MTU, 0);
	set_get("IPV6_DONTFRAG", fd, SOL_IPV6, IPV6_DONTFRAG, 1);
	set_get("IPV6_DONTFRAG", fd, SOL_IPV6, IPV6_DONTFRAG, 0);

	out("## flags");
	set_get("IPV6_RECVERR", fd, SOL_IPV6, IPV6_RECVERR, 1);
	conf_getint("IPV6_RECVERR get optlen 1", fd, SOL_IPV6, IPV6_RECVERR, 1);
	set_get("IPV6_RECVERR", fd, SOL_IPV6, IPV6_RECVERR, 5);
	set_get("IPV6_RECVERR", fd, SOL_IPV6, IPV6_RECVERR, 0);
	set_get("IPV6_RECVHOPLIMIT", fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 3);
	set_get("IPV6_RECVHOPLIMIT", fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 0);
	set_get("IPV6_RECVTCLASS", fd, SOL_IPV6, IPV6_RECVTCLASS, 1);
	set_get("IPV6_RECVTCLASS", fd, SOL_IPV6, IPV6_RECVTCLASS, 0);
	set_get("IPV6_RECVPKTINFO", fd, SOL_IPV6, IPV6_RECVPKTINFO, 1);
	set_get("IPV6_RECVPKTINFO", fd, SOL_IPV6, IPV6_RECVPKTINFO, 0);
	set_get("IPV6_RECVPATHMTU", fd, SOL_IPV6, IPV6_RECVPATHMTU, 1);
	set_get("IPV6_RECVPATHMTU", fd, SOL_IPV6, IPV6_RECVPATHMTU, 0);
	set_get("IPV6_FLOWINFO_SEND", fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 1);
	set_get("IPV6_FLOWINFO_SEND", fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 0);
	set_get("IPV6_AUTOFLOWLABEL", fd, SOL_IPV6, IPV6_AUTOFLOWLABEL, 0);
	set_get("IPV6_AUTOFLOWLABEL", fd, SOL_IPV6, IPV6_AUTOFLOWLABEL, 1);
	set_get("IPV6_FREEBIND", fd, SOL_IPV6, IPV6_FREEBIND, 1);
	set_get("IPV6_FREEBIND", fd, SOL_IPV6, IPV6_FREEBIND, 0);
	set_get("IPV6_TRANSPARENT (unprivileged)", fd, SOL_IPV6,
		IPV6_TRANSPARENT, 1);
	set_get("IPV6_HOPLIMIT (not a socket option)", fd, SOL_IPV6,
		IPV6_HOPLIMIT, 1);
	set_get("SOL_IPV6 9999 (unknown)", fd, SOL_IPV6, 9999, 1);
	set_get("IPV6_ADDRFORM AF_INET", fd, SOL_IPV6, IPV6_ADDRFORM, AF_INET);
	conf_getint("SO_DOMAIN after it", fd, SOL_SOCKET, SO_DOMAIN,
		    sizeof(int));
}

static void ifopts(int fd)
{
	int veth0 = (int)conf_ifidx(CONF6_IF), v;
	socklen_t l;

	out("## IPV6_MULTICAST_IF, IPV6_UNICAST_IF");
	TRY("IPV6_MULTICAST_IF veth0",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF, veth0));
	v = -1;
	l = sizeof(v);
	if (pingsock_getsockopt(fd, SOL_IPV6, IPV6_MULTICAST_IF, &v, &l) == 0)
		out("  get: %s", conf_scope6((uint32_t)v));
	TRY("IPV6_MULTICAST_IF 9999",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF, 9999));
	TRY("IPV6_MULTICAST_IF 0", conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF,
					       0));
	conf_getint("  get", fd, SOL_IPV6, IPV6_MULTICAST_IF, sizeof(int));
	TRY("IPV6_UNICAST_IF veth0 (network order)",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl((uint32_t)veth0)));
	v = -1;
	l = sizeof(v);
	if (pingsock_getsockopt(fd, SOL_IPV6, IPV6_UNICAST_IF, &v, &l) == 0)
		out("  get: %s", conf_scope6(ntohl((uint32_t)v)));
	TRY("IPV6_UNICAST_IF 9999",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(9999)));
	TRY("IPV6_UNICAST_IF 0", conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF, 0));
	conf_getint("  get", fd, SOL_IPV6, IPV6_UNICAST_IF, sizeof(int));
	{
		struct ipv6_mreq mr;

		memset(&mr, 0, sizeof(mr));
		inet_pton(AF_INET6, "ff02::1:2345", &mr.ipv6mr_multiaddr);
		mr.ipv6mr_interface = (unsigned)veth0;
		set_len("IPV6_JOIN_GROUP ff02::1:2345 on veth0", fd, SOL_IPV6,
			IPV6_JOIN_GROUP, &mr, sizeof(mr));
		set_len("IPV6_JOIN_GROUP again", fd, SOL_IPV6,
			IPV6_JOIN_GROUP, &mr, sizeof(mr));
		set_len("IPV6_LEAVE_GROUP", fd, SOL_IPV6, IPV6_LEAVE_GROUP,
			&mr, sizeof(mr));
		set_len("IPV6_LEAVE_GROUP again", fd, SOL_IPV6,
			IPV6_LEAVE_GROUP, &mr, sizeof(mr));
		inet_pton(AF_INET6, "fd00::1", &mr.ipv6mr_multiaddr);
		set_len("IPV6_JOIN_GROUP fd00::1 (not multicast)", fd,
			SOL_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr));
	}
}

static void levels(void)
{
	int fd = conf_socket6();

	out("## other levels on an IPv6 socket");
	set_get("SOL_IP IP_TTL", fd, SOL_IP, IP_TTL, 5);
	set_get("SOL_IP IP_TOS", fd, SOL_IP, IP_TOS, 0x10);
	set_get("SOL_IP IP_RECVERR", fd, SOL_IP, IP_RECVERR, 1);
	set_get("SOL_IP IP_MTU_DISCOVER", fd, SOL_IP, IP_MTU_DISCOVER,
		IP_PMTUDISC_DO);
	conf_ping6("  sendto ::1 (the SOL_IP options do not apply)", fd, "::1",
		   1, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	set_get("SOL_ICMPV6 ICMP6_FILTER", fd, SOL_ICMPV6, ICMP6_FILTER, 0);
	set_get("IPPROTO_UDP 1", fd, IPPROTO_UDP, 1, 1);
	set_get("level 9999", fd, 9999, 1, 1);
	pingsock_close(fd);
}

static void v6only(void)
{
	struct sockaddr_in6 a = conf_sin6("::1", 0, 0);
	int fd = conf_socket6();

	out("## IPV6_V6ONLY");
	set_get("IPV6_V6ONLY", fd, SOL_IPV6, IPV6_V6ONLY, 0);
	set_get("IPV6_V6ONLY", fd, SOL_IPV6, IPV6_V6ONLY, 1);
	set_get("IPV6_V6ONLY", fd, SOL_IPV6, IPV6_V6ONLY, 0);
	a = conf_sin6("::ffff:127.0.0.1", 0, 0);
	conf_ping6_to("  sendto ::ffff:127.0.0.1 (v6only off)", fd, &a, 2, 64);
	conf_ping6("  sendto ::1", fd, "::1", 3, 64);
	conf_reply6_1("  reply", fd, false);
	set_get("IPV6_V6ONLY (bound now)", fd, SOL_IPV6, IPV6_V6ONLY, 1);
	pingsock_close(fd);
}

static void pmtu_frag_size(void)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_PEER, 0, 0);
	int fd = conf_socket6();

	out("## IPV6_MTU 1280 caps the fragment size");
	TRY("IPV6_MTU 1280", conf_setint(fd, SOL_IPV6, IPV6_MTU, 1280));
	TRY("IPV6_RECVERR 1", conf_setint(fd, SOL_IPV6, IPV6_RECVERR, 1));
	conf_ping6_to("sendto the peer 1400 bytes (fragmented)", fd, &a, 4,
		      1400);
	conf_reply6_1("  reply", fd, false);
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DO",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO));
	conf_ping6_to("sendto the peer 1240 bytes (1280 with the header)", fd,
		      &a, 5, 1240);
	conf_reply6_1("  reply", fd, false);
	conf_ping6_to("sendto the peer 1241 bytes", fd, &a, 6, 1241);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 1241);
	TRY("connect the peer", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_getint("  IPV6_MTU (the route's)", fd, SOL_IPV6, IPV6_MTU,
		    sizeof(int));
	pingsock_close(fd);
}

static void cmsgs(void)
{
	struct sockaddr_in6 lo = conf_sin6("::1", 0, 0);
	struct sockaddr_in6 peer = conf_sin6(CONF6_PEER, 0, 0);
	struct sockaddr_in6 llnos = conf_sin6(CONF6_LL_PEER, 0, 0);
	unsigned veth0 = conf_ifidx(CONF6_IF);
	union cbuf cb;
	size_t n;
	int fd = conf_socket6();

	out("## control messages on send");
	TRY("IPV6_RECVTCLASS 1", conf_setint(fd, SOL_IPV6, IPV6_RECVTCLASS, 1));
	TRY("IPV6_RECVPKTINFO 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1));
	n = cmsg_int(&cb, IPV6_TCLASS, 0x48, sizeof(int));
	send_cmsg("cmsg IPV6_TCLASS 0x48", fd, &lo, &cb, n, 10, true);
	n = cmsg_int(&cb, IPV6_TCLASS, -1, sizeof(int));
	send_cmsg("cmsg IPV6_TCLASS -1", fd, &lo, &cb, n, 11, true);
	n = cmsg_int(&cb, IPV6_TCLASS, 256, sizeof(int));
	send_cmsg("cmsg IPV6_TCLASS 256", fd, &lo, &cb, n, 12, true);
	n = cmsg_int(&cb, IPV6_TCLASS, 0x48, 1);
	send_cmsg("cmsg IPV6_TCLASS, 1 data byte", fd, &lo, &cb, n, 13, true);
	n = cmsg_int(&cb, IPV6_HOPLIMIT, 5, sizeof(int));
	send_cmsg("cmsg IPV6_HOPLIMIT 5", fd, &peer, &cb, n, 14, true);
	n = cmsg_int(&cb, IPV6_HOPLIMIT, 0, sizeof(int));
	send_cmsg("cmsg IPV6_HOPLIMIT 0", fd, &lo, &cb, n, 15, true);
	n = cmsg_int(&cb, IPV6_HOPLIMIT, 255, sizeof(int));
	send_cmsg("cmsg IPV6_HOPLIMIT 255", fd, &lo, &cb, n, 16, true);
	n = cmsg_int(&cb, IPV6_HOPLIMIT, 256, sizeof(int));
	send_cmsg("cmsg IPV6_HOPLIMIT 256", fd, &lo, &cb, n, 17, true);
	n = cmsg_int(&cb, IPV6_HOPLIMIT, -1, sizeof(int));
	send_cmsg("cmsg IPV6_HOPLIMIT -1", fd, &lo, &cb, n, 18, true);
	n = cmsg_int(&cb, IPV6_DONTFRAG, 1, sizeof(int));
	send_cmsg("cmsg IPV6_DONTFRAG 1, 64 bytes", fd, &lo, &cb, n, 19, true);
	n = cmsg_pktinfo(&cb, CONF6_LOCAL, 0);
	send_cmsg("cmsg IPV6_PKTINFO source fd00:201::1, to ::1", fd, &lo, &cb,
		  n, 20, true);
	n = cmsg_pktinfo(&cb, "::", veth0);
	send_cmsg("cmsg IPV6_PKTINFO interface veth0, to fe80::2 without "
		  "scope", fd, &llnos, &cb, n, 21, true);
	n = cmsg_pktinfo(&cb, CONF6_LL_LOCAL, veth0);
	send_cmsg("cmsg IPV6_PKTINFO source fe80::1 veth0, to the peer", fd,
		  &peer, &cb, n, 22, true);
	n = cmsg_pktinfo(&cb, "fd00:9::1", 0);
	send_cmsg("cmsg IPV6_PKTINFO source fd00:9::1 (not ours)", fd, &lo,
		  &cb, n, 23, true);
	n = cmsg_pktinfo(&cb, "::", 9999);
	send_cmsg("cmsg IPV6_PKTINFO interface 9999", fd, &lo, &cb, n, 24,
		  true);
	n = cmsg_pktinfo(&cb, "::", 0);
	cb.align.cmsg_len = CMSG_LEN(8);
	send_cmsg("cmsg IPV6_PKTINFO, 8 data bytes", fd, &lo, &cb, n, 25,
		  true);
	/* two at once: traffic class and source */
	{
		struct cmsghdr *c;
		struct in6_pktinfo pi;
		int tc = 0x20;

		memset(&cb, 0, sizeof(cb));
		memset(&pi, 0, sizeof(pi));
		inet_pton(AF_INET6, CONF6_LOCAL, &pi.ipi6_addr);
		c = &cb.align;
		c->cmsg_level = SOL_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		c = (struct cmsghdr *)(cb.b + CMSG_SPACE(sizeof(pi)));
		c->cmsg_level = SOL_IPV6;
		c->cmsg_type = IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &tc, sizeof(tc));
		send_cmsg("cmsg IPV6_PKTINFO fd00:201::1 + IPV6_TCLASS 0x20", fd,
			  &lo, &cb, sizeof(cb.b), 26, true);
	}
	conf_quiet6("nothing else", fd, 200);
	pingsock_close(fd);

	out("## sticky IPV6_PKTINFO");
	fd = conf_socket6();
	{
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi6_ifindex = veth0;
		set_len("IPV6_PKTINFO interface veth0", fd, SOL_IPV6,
			IPV6_PKTINFO, &pi, sizeof(pi));
		set_len("IPV6_PKTINFO optlen 8", fd, SOL_IPV6, IPV6_PKTINFO,
			&pi, 8);
		conf_ping6_to("  sendto fe80::2 without scope", fd, &llnos, 30,
			      64);
		conf_reply6_1("  reply", fd, false);
		memset(&pi, 0, sizeof(pi));
		set_len("IPV6_PKTINFO cleared", fd, SOL_IPV6, IPV6_PKTINFO,
			&pi, sizeof(pi));
		conf_ping6_to("  sendto fe80::2 without scope", fd, &llnos, 31,
			      64);
	}
	pingsock_close(fd);
}

int main(void)
{
	int fd;

	conf_begin("options6");
	fd = conf_socket6();
	ints(fd);
	pingsock_close(fd);
	fd = conf_socket6();
	ifopts(fd);
	pingsock_close(fd);
	levels();
	v6only();
	pmtu_frag_size();
	cmsgs();
	return 0;
}
