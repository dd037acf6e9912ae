/* SPDX-License-Identifier: ISC */
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
#include "steps/errors_real.h"

#define F (&conf_v6)

static void errq(int fd, size_t room, size_t sent)
{
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, room, 0, 512, sent);
}

/* A pending error fails the next send (sequences 702 to 704). */
static void pending_fails_send(int fd)
{
	out("# the pending error fails the next send, which sends nothing");
	conf_ping6("sendto fd00:77:1::2", fd, CONF6_R_FAR, 702, 64);
	conf_settle();
	conf_ping6("sendto fd00:77:1::2 (the pending error)", fd, CONF6_R_FAR,
		   703, 64);
	conf_ping6("sendto fd00:77:1::2 (again)", fd, CONF6_R_FAR, 704, 64);
	conf_settle();
	errq(fd, 1000, 64);
	errq(fd, 1000, 64);
	errq(fd, 1000, 64);
}

/* A hop limit of 1 from a control message (sequences 706, 707). */
static void hoplimit_cmsg(void)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct conf_addr far = conf_addr(F, CONF6_R_FAR, 0, 0);
	int fd, one = 1;

	out("## an IPV6_HOPLIMIT 1 control message (IPV6_RECVORIGDSTADDR on)");
	fd = errors_recverr_socket(F);
	TRY("IPV6_RECVORIGDSTADDR 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVORIGDSTADDR, 1));
	memset(&cb, 0, sizeof(cb));
	cb.align.cmsg_level = SOL_IPV6;
	cb.align.cmsg_type = IPV6_HOPLIMIT;
	cb.align.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cb.align), &one, sizeof(one));
	conf_echo6(conf_big, 64, 706);
	conf_sendmsg("sendmsg to fd00:77:1::2, cmsg IPV6_HOPLIMIT 1", fd, &far,
		     64, cb.b, sizeof(cb.b));
	conf_settle();
	errq(fd, 1000, 64);
	conf_ping6("sendto fd00:77:1::2 (no control message)", fd, CONF6_R_FAR,
		   707, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	pingsock_close(fd);
}

static void time_exceeded(void)
{
	int fd;

	out("## hop limit 1 to fd00:77:1::2: Time Exceeded from the router");
	fd = errors_recverr_socket(F);
	errors_hop1(F, fd);
	conf_poll("  poll", fd, POLLIN, 0);
	errors_hop1_300(F, fd);
	errors_so_error(fd);
	pending_fails_send(fd);
	errors_hop2(F, fd, 705);
	hoplimit_cmsg();
	errors_hop1_soft(F, "hop limit");
}

/* A route's error, connected: then the next sends (seq + 1, seq + 2). */
static void route_connected(const char *what, const char *dst, uint16_t seq)
{
	int fd = errors_route_connected(F, what, dst, seq);

	conf_psend6("send", fd, (uint16_t)(seq + 1), 64);
	conf_settle();
	conf_psend6("send (after the second error)", fd, (uint16_t)(seq + 2),
		    64);
	conf_settle();
	errors_so_error(fd);
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
	errors_so_error(fd);
	pingsock_close(fd);
}

/* IPV6_PMTUDISC_PROBE ignores the path MTU: the router's error again,
 * with IPV6_RECVERR on and (a soft error) off. */
static void too_big_probe(void)
{
	struct sockaddr_in6 far = conf_sin6(CONF6_R_FAR, 0, 0);
	int fd;

	out("## IPV6_PMTUDISC_PROBE (ignores the path MTU), IPV6_RECVERR on");
	fd = errors_recverr_socket(F);
	errors_pmtudisc(F, fd, IPV6_PMTUDISC_PROBE, "PROBE");
	conf_ping6("sendto fd00:77:1::2 1400 bytes", fd, CONF6_R_FAR, 830,
		   1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	errq(fd, 2000, 1400);
	pingsock_close(fd);

	out("## IPV6_PMTUDISC_PROBE, IPV6_RECVERR off, connected (a soft "
	    "error)");
	fd = conf_socket6();
	errors_pmtudisc(F, fd, IPV6_PMTUDISC_PROBE, "PROBE");
	TRY("connect fd00:77:1::2", pingsock_connect(fd, SA(&far),
						     sizeof(far)));
	conf_psend6("send 1400 bytes", fd, 840, 1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend6("send 1400 bytes", fd, 841, 1400);
	conf_settle();
	errors_so_error(fd);
	conf_psend6("send 100 bytes", fd, 842, 100);
	conf_reply6_1("  reply", fd, false);
	pingsock_close(fd);
}

/* Connected to a far host whose path MTU is not known yet. */
static void too_big_unknown(void)
{
	struct sockaddr_in6 far2 = conf_sin6(CONF6_R_FAR2, 0, 0);
	int fd;

	out("## IPV6_PMTUDISC_DONT, IPV6_RECVERR on, 1400 bytes to "
	    "fd00:77:1::3 (path MTU not yet known)");
	fd = errors_recverr_socket(F);
	errors_pmtudisc(F, fd, IPV6_PMTUDISC_DONT, "DONT");
	TRY("connect fd00:77:1::3", pingsock_connect(fd, SA(&far2),
						     sizeof(far2)));
	conf_getint("  IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_psend6("send 1400 bytes", fd, 850, 1400);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	errq(fd, 2000, 1400);
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
	int fd = errors_recverr_socket(F), sent = 0, got = 0;

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
	errors_route_recverr(F, "unreachable", CONF6_R_UNREACH, 500);
	route_connected("unreachable", "fd00:77:5::2", 510);
	errors_route_recverr(F, "prohibit", CONF6_R_PROHIBIT, 600);
	route_connected("prohibit", "fd00:77:6::2", 610);
	route_unconnected_quiet("prohibit", "fd00:77:6::3", 620);
	time_exceeded();
	errors_too_big(F, 1400, 1240, "1280 with the header");
	errors_fragmented(F, 1400);
	too_big_probe();
	too_big_unknown();
	many("unreachable", CONF6_R_UNREACH, 900);
	many("prohibit", CONF6_R_PROHIBIT, 920);
	return 0;
}
