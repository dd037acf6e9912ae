/* SPDX-License-Identifier: ISC */
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
#include "steps/errors_real.h"

#define F (&conf_v4)

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
	errors_so_error(fd);
	pingsock_close(fd);
}

static void time_exceeded(void)
{
	int fd;

	out("## IP_TTL 1 to 10.77.1.2: Time Exceeded from the router");
	fd = errors_recverr_socket(F);
	errors_hop1(F, fd);
	errors_hop1_300(F, fd);
	errors_hop2(F, fd, 702);
	errors_hop1_soft(F, "IP_TTL");
}

/* Connected to a far host whose path MTU is not known yet: the error
 * pends, then the path MTU is known. */
static void frag_unknown(void)
{
	struct sockaddr_in far3 = conf_sin(CONF_R_FAR2, 0);
	int fd = conf_socket();

	out("## IP_PMTUDISC_WANT, IP_RECVERR off, connected to 10.77.1.3 "
	    "(path MTU not yet known)");
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
	errors_route_recverr(F, "unreachable", CONF_R_UNREACH, 500);
	pingsock_close(errors_route_connected(F, "unreachable", "10.77.5.2",
					      510));
	errors_route_recverr(F, "prohibit", CONF_R_PROHIBIT, 600);
	route_prohibit_send();
	time_exceeded();
	errors_too_big(F, 1300, 1260, "1280 with the IP header");
	errors_fragmented(F, 1300);
	frag_unknown();
	return 0;
}
