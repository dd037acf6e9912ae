/*
 * errors_real: ICMP errors that a real router sends (issue 5): Destination
 * Unreachable from "unreachable" and "prohibit" routes, Time Exceeded for
 * IP_TTL 1, and Fragmentation Needed from the router's MTU-1280 link to
 * the far namespace, with what that does to the path MTU.
 *
 * The route errors are rate-limited by the router per source (burst 5,
 * then 1/s; run.sh builds a fresh router for each case): this case causes
 * four of them, and does so first.
 */
// needs: router (client 10.77.0.2, router 10.77.0.1, far 10.77.1.2 and 10.77.1.3)
#include "conf.h"

static int recverr_socket(void)
{
	int fd = conf_socket();

	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	return fd;
}

static void route_recverr(const char *what, const char *dst, uint16_t seq)
{
	int fd;

	out("## %s route, IP_RECVERR on, unconnected", what);
	fd = recverr_socket();
	conf_ping(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

static void route_connected(const char *what, const char *dst, uint16_t seq)
{
	struct sockaddr_in a = conf_sin(dst, 0);
	int fd = conf_socket();

	out("## %s route, IP_RECVERR off, connected", what);
	TRY(L("connect %s", dst), pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send", fd, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	/* a hard error fails this send, which then sends nothing; after a
	 * soft one it would cause another error: not sent either way */
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	pingsock_close(fd);
}

static void route_prohibit_send(void)
{
	struct sockaddr_in a = conf_sin("10.77.6.2", 0);
	int fd = conf_socket();

	out("## prohibit route, IP_RECVERR off, connected: the next send");
	TRY("connect 10.77.6.2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send", fd, 602, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend("  send (fails, sends nothing)", fd, 603, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	pingsock_close(fd);
}

static void time_exceeded(void)
{
	struct sockaddr_in a = conf_sin(CONF_R_FAR, 0);
	int fd;

	out("## IP_TTL 1 to 10.77.1.2: Time Exceeded from the router");
	fd = recverr_socket();
	TRY("IP_TTL 1", conf_setint(fd, SOL_IP, IP_TTL, 1));
	conf_ping("sendto 10.77.1.2", fd, CONF_R_FAR, 700, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_ping("sendto 10.77.1.2 300 bytes", fd, CONF_R_FAR, 701, 300);
	conf_settle();
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 300);
	TRY("IP_TTL 2", conf_setint(fd, SOL_IP, IP_TTL, 2));
	conf_ping("sendto 10.77.1.2", fd, CONF_R_FAR, 702, 64);
	conf_reply("  reply", fd, 1000, 0, 512, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## IP_TTL 1, IP_RECVERR off, connected (a soft error)");
	fd = conf_socket();
	TRY("IP_TTL 1", conf_setint(fd, SOL_IP, IP_TTL, 1));
	TRY("connect 10.77.1.2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send", fd, 710, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend("send", fd, 711, 64);
	conf_settle();
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	pingsock_close(fd);
}

static void frag_needed(void)
{
	struct sockaddr_in far = conf_sin(CONF_R_FAR, 0);
	struct sockaddr_in far3 = conf_sin(CONF_R_FAR2, 0);
	int fd;

	out("## IP_PMTUDISC_DO, 1300 bytes to 10.77.1.2 (the far link's MTU is 1280)");
	fd = recverr_socket();
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	conf_ping("sendto 10.77.1.2 1300 bytes", fd, CONF_R_FAR, 800, 1300);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	out("# the path MTU is 1280 now: the next one fails at once");
	conf_ping("sendto 10.77.1.2 1300 bytes", fd, CONF_R_FAR, 801, 1300);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
	conf_ping("sendto 10.77.1.2 1260 bytes (1280 with the IP header)", fd,
		  CONF_R_FAR, 802, 1260);
	conf_reply("  reply", fd, 2000, 0, 512, false);
	conf_ping("sendto 10.77.1.2 1261 bytes", fd, CONF_R_FAR, 803, 1261);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1261);
	TRY("connect 10.77.1.2", pingsock_connect(fd, SA(&far), sizeof(far)));
	conf_getint("  IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	pingsock_close(fd);

	out("## IP_PMTUDISC_WANT (the default), 1300 bytes to 10.77.1.2 now");
	fd = conf_socket();
	conf_ping("sendto 10.77.1.2 1300 bytes (fragmented)", fd, CONF_R_FAR,
		  810, 1300);
	conf_reply1("  reply", fd, false);
	pingsock_close(fd);

	out("## IP_PMTUDISC_DONT, 1300 bytes to 10.77.1.2 now");
	fd = conf_socket();
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DONT));
	conf_ping("sendto 10.77.1.2 1300 bytes", fd, CONF_R_FAR, 820, 1300);
	conf_reply1("  reply", fd, false);
	pingsock_close(fd);

	out("## IP_PMTUDISC_WANT, IP_RECVERR off, connected to 10.77.1.3 "
	    "(path MTU not yet known)");
	fd = conf_socket();
	TRY("connect 10.77.1.3", pingsock_connect(fd, SA(&far3), sizeof(far3)));
	conf_getint("  IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	conf_psend("send 1300 bytes", fd, 830, 1300);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend("send 1300 bytes (the pending error)", fd, 831, 1300);
	conf_getint("  IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	conf_psend("send 1300 bytes (fragmented)", fd, 832, 1300);
	conf_reply1("  reply", fd, false);
	conf_quiet("  nothing else", fd, 100);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("errors_real");
	/* four route errors, well within the router's burst of five */
	route_recverr("unreachable", CONF_R_UNREACH, 500);
	route_connected("unreachable", "10.77.5.2", 510);
	route_recverr("prohibit", CONF_R_PROHIBIT, 600);
	route_prohibit_send();
	time_exceeded();
	frag_needed();
	return 0;
}
