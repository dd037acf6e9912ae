/*
 * errors6: ICMPv6 errors that a real router sends: Time Exceeded for hop
 * limit 1 (from IPV6_UNICAST_HOPS and from an IPV6_HOPLIMIT control
 * message), Destination Unreachable from "unreachable" (code 0, no route:
 * ENETUNREACH, soft) and "prohibit" (code 1, administratively prohibited:
 * EACCES, hard) routes, Packet Too Big from the router's MTU-1280 link to
 * the far namespace (EMSGSIZE, soft, whatever IPV6_MTU_DISCOVER says) and
 * what that does to the path MTU; with and without IPV6_RECVERR,
 * connected and not.  The router does not rate-limit any of these
 * (net.ipv6.icmp.ratelimit 0 covers the reject routes too, unlike IPv4's
 * per-source bucket for them), so no pacing is needed.
 *
 * conf_settle() waits for the IPv4 sentinel's forged error, which the
 * router answers after whatever it answered for the IPv6 requests sent
 * before it.
 */
// needs: router (client fd00:77::2, router fd00:77::1/fd00:77:1::1, far fd00:77:1::2 and fd00:77:1::3)
#include "conf.h"

static int recverr_socket(void)
{
	int fd = conf_socket6();

	TRY("IPV6_RECVERR 1", conf_setint(fd, SOL_IPV6, IPV6_RECVERR, 1));
	TRY("IPV6_RECVHOPLIMIT 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 1));
	return fd;
}

static void time_exceeded(void)
{
	struct sockaddr_in6 far = conf_sin6(CONF6_R_FAR, 0, 0);
	int fd;

	out("## hop limit 1 to fd00:77:1::2: Time Exceeded from the router");
	fd = recverr_socket();
	TRY("IPV6_UNICAST_HOPS 1",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_HOPS, 1));
	conf_ping6("sendto fd00:77:1::2", fd, CONF6_R_FAR, 700, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping6("sendto fd00:77:1::2 300 bytes", fd, CONF6_R_FAR, 701, 300);
	conf_settle();
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 300);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	out("# the pending error fails the next send, which sends nothing");
	conf_ping6("sendto fd00:77:1::2", fd, CONF6_R_FAR, 702, 64);
	conf_settle();
	conf_ping6("sendto fd00:77:1::2 (the pending error)", fd, CONF6_R_FAR,
		   703, 64);
	conf_ping6("sendto fd00:77:1::2 (again)", fd, CONF6_R_FAR, 704, 64);
	conf_settle();
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	TRY("IPV6_UNICAST_HOPS 2",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_HOPS, 2));
	conf_ping6("sendto fd00:77:1::2", fd, CONF6_R_FAR, 705, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## an IPV6_HOPLIMIT 1 control message");
	fd = recverr_socket();
	{
		union {
			char b[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cb;
		struct iovec iov = { conf_big, 64 };
		struct msghdr m;
		int one = 1;

		memset(&cb, 0, sizeof(cb));
		memset(&m, 0, sizeof(m));
		conf_echo6(conf_big, 64, 706);
		m.msg_name = &far;
		m.msg_namelen = sizeof(far);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cb.b;
		m.msg_controllen = sizeof(cb.b);
		cb.align.cmsg_level = SOL_IPV6;
		cb.align.cmsg_type = IPV6_HOPLIMIT;
		cb.align.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&cb.align), &one, sizeof(one));
		TRY("sendmsg to fd00:77:1::2, cmsg IPV6_HOPLIMIT 1",
		    pingsock_sendmsg(fd, &m, 0));
	}
	conf_settle();
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_ping6("sendto fd00:77:1::2 (no control message)", fd, CONF6_R_FAR,
		   707, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	pingsock_close(fd);

	out("## hop limit 1, IPV6_RECVERR off, connected (a soft error)");
	fd = conf_socket6();
	TRY("IPV6_UNICAST_HOPS 1",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_HOPS, 1));
	TRY("connect fd00:77:1::2", pingsock_connect(fd, SA(&far),
						     sizeof(far)));
	conf_psend6("send", fd, 710, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend6("send", fd, 711, 64);
	conf_settle();
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	pingsock_close(fd);
}

static void route_recverr(const char *what, const char *dst, uint16_t seq)
{
	int fd;

	out("## %s route, IPV6_RECVERR on, unconnected", what);
	fd = recverr_socket();
	conf_ping6(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

static void route_connected(const char *what, const char *dst, uint16_t seq)
{
	struct sockaddr_in6 a = conf_sin6(dst, 0, 0);
	int fd = conf_socket6();

	out("## %s route, IPV6_RECVERR off, connected", what);
	TRY(L("connect %s", dst), pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend6("send", fd, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_psend6("send", fd, seq + 1, 64);
	conf_settle();
	conf_psend6("send (after the second error)", fd, seq + 2, 64);
	conf_settle();
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	pingsock_close(fd);
}

static void route_unconnected_quiet(const char *what, const char *dst,
				    uint16_t seq)
{
	int fd = conf_socket6();

	out("## %s route, IPV6_RECVERR off, unconnected", what);
	conf_ping6(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	pingsock_close(fd);
}

static void too_big(void)
{
	struct sockaddr_in6 far = conf_sin6(CONF6_R_FAR, 0, 0);
	struct sockaddr_in6 far2 = conf_sin6(CONF6_R_FAR2, 0, 0);
	int fd;

	out("## IPV6_PMTUDISC_DO, 1400 bytes to fd00:77:1::2 (the far link's "
	    "MTU is 1280)");
	fd = recverr_socket();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DO",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO));
	conf_ping6("sendto fd00:77:1::2 1400 bytes", fd, CONF6_R_FAR, 800,
		   1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	out("# the path MTU is 1280 now: the next one fails at once");
	conf_ping6("sendto fd00:77:1::2 1400 bytes", fd, CONF6_R_FAR, 801,
		   1400);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	conf_ping6("sendto fd00:77:1::2 1240 bytes (1280 with the header)", fd,
		   CONF6_R_FAR, 802, 1240);
	conf_reply6("  reply", fd, 2000, 0, 512, false);
	conf_ping6("sendto fd00:77:1::2 1241 bytes", fd, CONF6_R_FAR, 803,
		   1241);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1241);
	TRY("connect fd00:77:1::2", pingsock_connect(fd, SA(&far),
						     sizeof(far)));
	conf_getint("  IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_WANT (the default), 1400 bytes to "
	    "fd00:77:1::2 now");
	fd = conf_socket6();
	conf_ping6("sendto fd00:77:1::2 1400 bytes (fragmented)", fd,
		   CONF6_R_FAR, 810, 1400);
	conf_reply6_1("  reply", fd, false);
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_DONT, 1400 bytes to fd00:77:1::2 now");
	fd = conf_socket6();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT));
	conf_ping6("sendto fd00:77:1::2 1400 bytes", fd, CONF6_R_FAR, 820,
		   1400);
	conf_reply6_1("  reply", fd, false);
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_PROBE (ignores the path MTU), IPV6_RECVERR on");
	fd = recverr_socket();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_PROBE",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE));
	conf_ping6("sendto fd00:77:1::2 1400 bytes", fd, CONF6_R_FAR, 830,
		   1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_PROBE, IPV6_RECVERR off, connected (a soft "
	    "error)");
	fd = conf_socket6();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_PROBE",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE));
	TRY("connect fd00:77:1::2", pingsock_connect(fd, SA(&far),
						     sizeof(far)));
	conf_psend6("send 1400 bytes", fd, 840, 1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend6("send 1400 bytes", fd, 841, 1400);
	conf_settle();
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_psend6("send 100 bytes", fd, 842, 100);
	conf_reply6_1("  reply", fd, false);
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_DONT, IPV6_RECVERR on, 1400 bytes to "
	    "fd00:77:1::3 (path MTU not yet known)");
	fd = recverr_socket();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT));
	TRY("connect fd00:77:1::3", pingsock_connect(fd, SA(&far2),
						     sizeof(far2)));
	conf_getint("  IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_psend6("send 1400 bytes", fd, 850, 1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	conf_getint("  IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_psend6("send 1400 bytes (fragmented)", fd, 851, 1400);
	conf_reply6("  reply", fd, 2000, 0, 512, false);
	conf_getint("  IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_quiet6("  nothing else", fd, 100);
	pingsock_close(fd);
}

/*
 * The router's errors for its reject routes are not rate-limited (IPv6
 * ratelimit 0; unlike IPv4's per-source bucket): eight in a row, each
 * read before the next send (so that no pending error fails a send).
 */
static void many(const char *what, const char *dst, uint16_t seq)
{
	struct sockaddr_in6 a = conf_sin6(dst, 0, 0);
	int fd = recverr_socket(), sent = 0, got = 0;

	out("## eight requests in a row to the %s route", what);
	for (uint16_t i = 0; i < 8; i++) {
		conf_echo6(conf_big, 64, (uint16_t)(seq + i));
		if (pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a)) > 0)
			sent++;
		conf_settle();
		got += conf_errq_drain(fd);
	}
	out("  %d sent, %d errors", sent, got);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("errors6");
	route_recverr("unreachable", CONF6_R_UNREACH, 500);
	route_connected("unreachable", "fd00:77:5::2", 510);
	route_recverr("prohibit", CONF6_R_PROHIBIT, 600);
	route_connected("prohibit", "fd00:77:6::2", 610);
	route_unconnected_quiet("prohibit", "fd00:77:6::3", 620);
	time_exceeded();
	too_big();
	many("unreachable", CONF6_R_UNREACH, 900);
	many("prohibit", CONF6_R_PROHIBIT, 920);
	return 0;
}
