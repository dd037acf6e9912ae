/* SPDX-License-Identifier: ISC */
/*
 * options6: setsockopt/getsockopt round trips of the SOL_IPV6 options of
 * an IPv6 ping socket (limits, errors, optlen handling), the SOL_IP level
 * on it, and the per-send control messages IPV6_HOPLIMIT, IPV6_TCLASS,
 * IPV6_PKTINFO and IPV6_DONTFRAG with the reply they get.
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"
#include "steps/options.h"


static void hops(int fd)
{
	static const int lens[] = { 1, 0, 8, -1 };

	options_hops_head(&conf_v6, fd);
	conf_set_optlen("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS,
			7, 0);
	conf_set_optlen("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS,
			7, 8);
	options_hops_tail(&conf_v6, fd, lens, sizeof(lens) / sizeof(lens[0]));
}

static void ints(int fd)
{
	static const int mtus[] = { 1280, 1279, 0 };

	hops(fd);
	out("## IPV6_MULTICAST_HOPS, IPV6_MULTICAST_LOOP");
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_MULTICAST_HOPS, 5, 255, 256, -1);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_MULTICAST_LOOP, 0, 2, -1, 1);
	out("## IPV6_TCLASS");
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_TCLASS, 0x28, 0xff, 0x100, -2,
			  -1);
	out("## IPV6_MTU_DISCOVER, IPV6_MTU, IPV6_DONTFRAG");
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_MTU_DISCOVER, 0, 1, 2, 3, 4, 5,
			  6, -1, IPV6_PMTUDISC_WANT);
	conf_set_get_each("IPV6_MTU (unconnected)", fd, SOL_IPV6, IPV6_MTU,
			  mtus, sizeof(mtus) / sizeof(mtus[0]));
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_DONTFRAG, 1, 0);
}

static void flags(int fd)
{
	out("## flags");
	options_recverr(&conf_v6, fd);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 3, 0);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_RECVTCLASS, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_RECVPATHMTU, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_AUTOFLOWLABEL, 0, 1);
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_FREEBIND, 1, 0);
	conf_set_get("IPV6_TRANSPARENT (unprivileged)", fd, SOL_IPV6,
		     IPV6_TRANSPARENT, 1);
	conf_set_get("IPV6_HOPLIMIT (not a socket option)", fd, SOL_IPV6,
		     IPV6_HOPLIMIT, 1);
	conf_set_get("SOL_IPV6 9999 (unknown)", fd, SOL_IPV6, 9999, 1);
	conf_set_get("IPV6_ADDRFORM AF_INET", fd, SOL_IPV6, IPV6_ADDRFORM,
		     AF_INET);
	conf_getint("SO_DOMAIN after it", fd, SOL_SOCKET, SO_DOMAIN,
		    sizeof(int));
}

/* getsockopt of an interface index, printed by name (netorder: as
 * IPV6_UNICAST_IF keeps it). */
static void get_ifidx(int fd, int name, bool netorder)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (pingsock_getsockopt(fd, SOL_IPV6, name, &v, &l) == 0)
		out("  get: %s", conf_scope6(netorder ? ntohl((uint32_t)v)
						      : (uint32_t)v));
}

static void groups(int fd, int veth0)
{
	struct ipv6_mreq mr;

	memset(&mr, 0, sizeof(mr));
	inet_pton(AF_INET6, "ff02::1:2345", &mr.ipv6mr_multiaddr);
	mr.ipv6mr_interface = (unsigned)veth0;
	conf_set_len("IPV6_JOIN_GROUP ff02::1:2345 on veth0", fd, SOL_IPV6,
		     IPV6_JOIN_GROUP, &mr, sizeof(mr));
	conf_set_len("IPV6_JOIN_GROUP again", fd, SOL_IPV6, IPV6_JOIN_GROUP,
		     &mr, sizeof(mr));
	conf_set_len("IPV6_LEAVE_GROUP", fd, SOL_IPV6, IPV6_LEAVE_GROUP, &mr,
		     sizeof(mr));
	conf_set_len("IPV6_LEAVE_GROUP again", fd, SOL_IPV6, IPV6_LEAVE_GROUP,
		     &mr, sizeof(mr));
	inet_pton(AF_INET6, "fd00::1", &mr.ipv6mr_multiaddr);
	conf_set_len("IPV6_JOIN_GROUP fd00::1 (not multicast)", fd, SOL_IPV6,
		     IPV6_JOIN_GROUP, &mr, sizeof(mr));
}

static void ifopts(int fd)
{
	int veth0 = (int)conf_ifidx(CONF6_IF);

	out("## IPV6_MULTICAST_IF, IPV6_UNICAST_IF");
	TRY("IPV6_MULTICAST_IF veth0",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF, veth0));
	get_ifidx(fd, IPV6_MULTICAST_IF, false);
	TRY("IPV6_MULTICAST_IF 9999",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF, 9999));
	TRY("IPV6_MULTICAST_IF 0", conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF,
					       0));
	conf_getint("  get", fd, SOL_IPV6, IPV6_MULTICAST_IF, sizeof(int));
	TRY("IPV6_UNICAST_IF veth0 (network order)",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF,
			(int)htonl((uint32_t)veth0)));
	get_ifidx(fd, IPV6_UNICAST_IF, true);
	TRY("IPV6_UNICAST_IF 9999",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(9999)));
	TRY("IPV6_UNICAST_IF 0", conf_setint(fd, SOL_IPV6, IPV6_UNICAST_IF, 0));
	conf_getint("  get", fd, SOL_IPV6, IPV6_UNICAST_IF, sizeof(int));
	groups(fd, veth0);
}

static void levels(void)
{
	int fd = conf_socket6();

	out("## other levels on an IPv6 socket");
	conf_set_get("SOL_IP IP_TTL", fd, SOL_IP, IP_TTL, 5);
	conf_set_get("SOL_IP IP_TOS", fd, SOL_IP, IP_TOS, 0x10);
	conf_set_get("SOL_IP IP_RECVERR", fd, SOL_IP, IP_RECVERR, 1);
	conf_set_get("SOL_IP IP_MTU_DISCOVER", fd, SOL_IP, IP_MTU_DISCOVER,
		     IP_PMTUDISC_DO);
	conf_ping6("  sendto ::1 (the SOL_IP options do not apply)", fd, "::1",
		   1, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	conf_set_get("SOL_ICMPV6 ICMP6_FILTER", fd, SOL_ICMPV6, ICMP6_FILTER,
		     0);
	conf_set_get("IPPROTO_UDP 1", fd, IPPROTO_UDP, 1, 1);
	conf_set_get("level 9999", fd, 9999, 1, 1);
	pingsock_close(fd);
}

static void v6only(void)
{
	struct sockaddr_in6 a;
	int fd = conf_socket6();

	out("## IPV6_V6ONLY");
	CONF_SET_GET_EACH(fd, SOL_IPV6, IPV6_V6ONLY, 0, 1, 0);
	a = conf_sin6("::ffff:127.0.0.1", 0, 0);
	conf_ping6_to("  sendto ::ffff:127.0.0.1 (v6only off)", fd, &a, 2, 64);
	conf_ping6("  sendto ::1", fd, "::1", 3, 64);
	conf_reply6_1("  reply", fd, false);
	conf_set_get("IPV6_V6ONLY (bound now)", fd, SOL_IPV6, IPV6_V6ONLY, 1);
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

union cbuf {
	char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
	       CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

/* One SOL_IPV6 control message of type at c, its data d of dlen bytes;
 * returns its space. */
static size_t put_cmsg(struct cmsghdr *c, int type, const void *d,
		       size_t dlen)
{
	c->cmsg_level = SOL_IPV6;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(c), d, dlen);
	return CMSG_SPACE(dlen);
}

/* One int control message, cmsg_len saying dlen data bytes. */
static size_t cmsg_int(union cbuf *cb, int type, int v, size_t dlen)
{
	memset(cb, 0, sizeof(*cb));
	put_cmsg(&cb->align, type, &v, sizeof(v));
	cb->align.cmsg_len = CMSG_LEN(dlen);
	return CMSG_SPACE(dlen);
}

static size_t cmsg_pktinfo(union cbuf *cb, const char *addr, unsigned ifidx)
{
	struct in6_pktinfo pi;

	memset(cb, 0, sizeof(*cb));
	memset(&pi, 0, sizeof(pi));
	inet_pton(AF_INET6, addr, &pi.ipi6_addr);
	pi.ipi6_ifindex = ifidx;
	return put_cmsg(&cb->align, IPV6_PKTINFO, &pi, sizeof(pi));
}

/* sendmsg to dst of a 64-byte Echo Request with the control messages
 * in cb (len bytes), then the reply (with room for control data). */
static void send_cmsg(const char *what, int fd, const char *dst,
		      const union cbuf *cb, size_t len, uint16_t seq)
{
	struct conf_addr a = conf_addr(&conf_v6, dst, 0, 0);

	conf_echo6(conf_big, 64, seq);
	if (conf_sendmsg(what, fd, &a, 64, cb->b, len) > 0)
		conf_reply6("  reply", fd, 1000, 0, 512, false);
}

/* An int control message on a send to ::1 (the peer: to_peer). */
static void send_int(const char *what, int fd, int type, int v,
		     size_t dlen, uint16_t seq, bool to_peer)
{
	union cbuf cb;
	size_t n = cmsg_int(&cb, type, v, dlen);

	send_cmsg(what, fd, to_peer ? CONF6_PEER : "::1", &cb, n, seq);
}

static void send_ints(int fd)
{
	send_int("cmsg IPV6_TCLASS 0x48", fd, IPV6_TCLASS, 0x48, sizeof(int),
		 10, false);
	send_int("cmsg IPV6_TCLASS -1", fd, IPV6_TCLASS, -1, sizeof(int), 11,
		 false);
	send_int("cmsg IPV6_TCLASS 256", fd, IPV6_TCLASS, 256, sizeof(int),
		 12, false);
	send_int("cmsg IPV6_TCLASS, 1 data byte", fd, IPV6_TCLASS, 0x48, 1,
		 13, false);
	send_int("cmsg IPV6_HOPLIMIT 5", fd, IPV6_HOPLIMIT, 5, sizeof(int), 14,
		 true);
	send_int("cmsg IPV6_HOPLIMIT 0", fd, IPV6_HOPLIMIT, 0, sizeof(int), 15,
		 false);
	send_int("cmsg IPV6_HOPLIMIT 255", fd, IPV6_HOPLIMIT, 255, sizeof(int),
		 16, false);
	send_int("cmsg IPV6_HOPLIMIT 256", fd, IPV6_HOPLIMIT, 256, sizeof(int),
		 17, false);
	send_int("cmsg IPV6_HOPLIMIT -1", fd, IPV6_HOPLIMIT, -1, sizeof(int),
		 18, false);
	send_int("cmsg IPV6_DONTFRAG 1, 64 bytes", fd, IPV6_DONTFRAG, 1,
		 sizeof(int), 19, false);
}

static void send_pktinfos(int fd, unsigned veth0)
{
	union cbuf cb;
	size_t n;
	int tc = 0x20;

	n = cmsg_pktinfo(&cb, CONF6_LOCAL, 0);
	send_cmsg("cmsg IPV6_PKTINFO source fd00:201::1, to ::1", fd, "::1",
		  &cb, n, 20);
	n = cmsg_pktinfo(&cb, "::", veth0);
	send_cmsg("cmsg IPV6_PKTINFO interface veth0, to fe80::2 without "
		  "scope", fd, CONF6_LL_PEER, &cb, n, 21);
	n = cmsg_pktinfo(&cb, CONF6_LL_LOCAL, veth0);
	send_cmsg("cmsg IPV6_PKTINFO source fe80::1 veth0, to the peer", fd,
		  CONF6_PEER, &cb, n, 22);
	n = cmsg_pktinfo(&cb, "fd00:9::1", 0);
	send_cmsg("cmsg IPV6_PKTINFO source fd00:9::1 (not ours)", fd, "::1",
		  &cb, n, 23);
	n = cmsg_pktinfo(&cb, "::", 9999);
	send_cmsg("cmsg IPV6_PKTINFO interface 9999", fd, "::1", &cb, n,
		  24);
	n = cmsg_pktinfo(&cb, "::", 0);
	cb.align.cmsg_len = CMSG_LEN(8);
	send_cmsg("cmsg IPV6_PKTINFO, 8 data bytes", fd, "::1", &cb, n,
		  25);
	/* two at once: traffic class and source */
	n = cmsg_pktinfo(&cb, CONF6_LOCAL, 0);
	put_cmsg((struct cmsghdr *)(cb.b + n), IPV6_TCLASS, &tc, sizeof(tc));
	send_cmsg("cmsg IPV6_PKTINFO fd00:201::1 + IPV6_TCLASS 0x20", fd,
		  "::1", &cb, sizeof(cb.b), 26);
}

static void sticky_pktinfo(unsigned veth0)
{
	struct sockaddr_in6 llnos = conf_sin6(CONF6_LL_PEER, 0, 0);
	struct in6_pktinfo pi;
	int fd = conf_socket6();

	out("## sticky IPV6_PKTINFO");
	memset(&pi, 0, sizeof(pi));
	pi.ipi6_ifindex = veth0;
	conf_set_len("IPV6_PKTINFO interface veth0", fd, SOL_IPV6,
		     IPV6_PKTINFO, &pi, sizeof(pi));
	conf_set_len("IPV6_PKTINFO optlen 8", fd, SOL_IPV6, IPV6_PKTINFO, &pi,
		     8);
	conf_ping6_to("  sendto fe80::2 without scope", fd, &llnos, 30, 64);
	conf_reply6_1("  reply", fd, false);
	memset(&pi, 0, sizeof(pi));
	conf_set_len("IPV6_PKTINFO cleared", fd, SOL_IPV6, IPV6_PKTINFO, &pi,
		     sizeof(pi));
	conf_ping6_to("  sendto fe80::2 without scope", fd, &llnos, 31, 64);
	pingsock_close(fd);
}

static void cmsgs(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF);
	int fd = conf_socket6();

	out("## control messages on send");
	TRY("IPV6_RECVTCLASS 1", conf_setint(fd, SOL_IPV6, IPV6_RECVTCLASS, 1));
	TRY("IPV6_RECVPKTINFO 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1));
	send_ints(fd);
	send_pktinfos(fd, veth0);
	conf_quiet6("nothing else", fd, 200);
	pingsock_close(fd);
	sticky_pktinfo(veth0);
}

int main(void)
{
	int fd;

	conf_begin("options6");
	fd = conf_socket6();
	ints(fd);
	flags(fd);
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
