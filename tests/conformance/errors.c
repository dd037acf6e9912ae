/* SPDX-License-Identifier: ISC */
/*
 * errors: every ICMPv4 error of the reference table (Destination
 * Unreachable codes 0-16, Time Exceeded 0 and 1, Parameter Problem 0,
 * Source Quench, Redirect), forged by tests/lib/icmpforge in the router
 * namespace, as a ping socket reports it (issue 5).  One fresh socket per
 * error and mode:
 *   IP_RECVERR on (with IP_RECVTTL): poll, the error-queue record, what
 *     the pending error does to SO_ERROR, recv and the next send;
 *   IP_RECVERR off, unconnected: nothing at all;
 *   IP_RECVERR off, connected: a hard error fails the next send, recv or
 *     SO_ERROR once; a soft one does nothing.
 */
// needs: router (client 10.77.0.2, router 10.77.0.1, forger for 10.78.T.C)
#include "conf.h"

struct ecase {
	unsigned type, code;
	const char *name;
};

static const struct ecase ecases[] = {
	{ 3, 0, "net unreachable" },
	{ 3, 1, "host unreachable" },
	{ 3, 2, "protocol unreachable" },
	{ 3, 3, "port unreachable" },
	{ 3, 4, "fragmentation needed (MTU 1200)" },
	{ 3, 5, "source route failed" },
	{ 3, 6, "net unknown" },
	{ 3, 7, "host unknown" },
	{ 3, 8, "host isolated" },
	{ 3, 9, "net prohibited" },
	{ 3, 10, "host prohibited" },
	{ 3, 11, "net unreachable for TOS" },
	{ 3, 12, "host unreachable for TOS" },
	{ 3, 13, "communication prohibited" },
	{ 3, 14, "host precedence violation" },
	{ 3, 15, "precedence cutoff" },
	{ 3, 16, "code 16 (none such)" },
	{ 11, 0, "TTL exceeded in transit" },
	{ 11, 1, "fragment reassembly time exceeded" },
	{ 12, 0, "parameter problem (pointer 20)" },
	{ 4, 0, "source quench" },
	{ 5, 0, "redirect for the net (gateway 10.77.0.9)" },
	{ 5, 1, "redirect for the host (gateway 10.77.0.9)" },
};

/* Distinct sequence numbers per error and mode (each mode uses < 8). */
static uint16_t case_seq(const struct ecase *c, unsigned mode)
{
	return (uint16_t)((c->type * 100 + c->code) * 32 + mode * 8);
}

static int fresh(void)
{
	return conf_socket();
}

/* IP_RECVERR on, unconnected. */
static void mode_recverr(const struct ecase *c)
{
	const char *dst = conf_forged(c->type, c->code);
	uint16_t seq = case_seq(c, 1);
	int fd = fresh();

	out("## %u/%u %s: IP_RECVERR on, unconnected", c->type, c->code,
	    c->name);
	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	conf_ping(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_poll("  poll after reading it", fd, POLLIN, 0);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_errq("  recvmsg MSG_ERRQUEUE again", fd, 1000, 0, 512, 64);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));

	out("# a second error, left pending");
	conf_ping(L("sendto %s", dst), fd, dst, (uint16_t)(seq + 1), 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping("  sendto 10.78.0.1 (no answer)", fd, CONF_R_BLACKHOLE,
		  (uint16_t)(seq + 2), 64);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping("  sendto 10.78.0.1 (no answer)", fd, CONF_R_BLACKHOLE,
		  (uint16_t)(seq + 3), 64);

	if (c->type == 3 && c->code == 4) {
		out("# the path MTU to %s is now 1200", dst);
		TRY("  IP_MTU_DISCOVER IP_PMTUDISC_DO",
		    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
		conf_ping(L("  sendto %s 1300 bytes", dst), fd, dst,
			  (uint16_t)(seq + 4), 1300);
		conf_settle();
		conf_poll("  poll", fd, POLLIN, 0);
		conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
		conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
		conf_ping(L("  sendto %s 1180 bytes (1200 with the IP header)", dst), fd, dst,
			  (uint16_t)(seq + 5), 1180);
		conf_settle();
		conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1180);
	}
	pingsock_close(fd);
}

/* IP_RECVERR off, unconnected: nothing is ever reported. */
static void mode_plain(const struct ecase *c)
{
	const char *dst = conf_forged(c->type, c->code);
	uint16_t seq = case_seq(c, 2);
	int fd = fresh();

	out("## %u/%u %s: IP_RECVERR off, unconnected", c->type, c->code,
	    c->name);
	conf_ping(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_ping("  sendto 10.78.0.1 (no answer)", fd, CONF_R_BLACKHOLE,
		  (uint16_t)(seq + 1), 64);
	pingsock_close(fd);
}

/* IP_RECVERR off, connected: hard errors are reported once. */
static void mode_connected(const struct ecase *c)
{
	const char *dst = conf_forged(c->type, c->code);
	struct sockaddr_in a = conf_sin(dst, 0);
	uint16_t seq = case_seq(c, 3);
	int fd = fresh();

	out("## %u/%u %s: IP_RECVERR off, connected", c->type, c->code,
	    c->name);
	TRY(L("connect %s", dst), pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send", fd, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	out("# the pending error fails the next send, which sends nothing");
	conf_psend("  send", fd, (uint16_t)(seq + 1), 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend("  send", fd, (uint16_t)(seq + 2), 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	out("# or the next recv");
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_poll("  poll", fd, POLLIN, 0);
	out("# or SO_ERROR");
	conf_psend("  send", fd, (uint16_t)(seq + 3), 64);
	conf_settle();
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	pingsock_close(fd);
}

/* Fragmentation Needed with IP_PMTUDISC_DONT: ignored (first, while the
 * path MTU to 10.78.3.4 is still the link's). */
static void frag_dont(void)
{
	const char *dst = conf_forged(3, 4);
	struct sockaddr_in a = conf_sin(dst, 0);
	int fd = fresh();

	out("## 3/4 fragmentation needed with IP_PMTUDISC_DONT, IP_RECVERR on");
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DONT));
	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	conf_ping(L("sendto %s", dst), fd, dst, 3401, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	TRY(L("connect %s", dst), pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("  send (connected)", fd, 3402, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	out("# did the ignored error still lower the path MTU?");
	TRY("  IP_MTU_DISCOVER IP_PMTUDISC_DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	conf_psend("  send 1300 bytes", fd, 3403, 1300);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1300);
	conf_getint("  IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("errors");
	frag_dont();
	for (size_t i = 0; i < sizeof(ecases) / sizeof(ecases[0]); i++) {
		mode_recverr(&ecases[i]);
		mode_plain(&ecases[i]);
		mode_connected(&ecases[i]);
	}
	return 0;
}
