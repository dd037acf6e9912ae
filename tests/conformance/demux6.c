/* SPDX-License-Identifier: ISC */
/*
 * demux6: IPv6 replies reach the socket whose identifier they carry, and
 * only that one; an IPv4 and an IPv6 socket with the same identifier are
 * independent; bound address and device filter.  (As in demux.c, two
 * sockets of one family sharing an identifier are left out on purpose.)
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"
#include "steps/demux.h"

#define F (&conf_v6)

/* An IPv4 and an IPv6 socket bound to one identifier: each gets its
 * own family's replies (sequences 9 to 12). */
static void both_bound(void)
{
	int a = conf_socket6(), b = conf_socket();

	demux_bind(F, "v6", a, "::", 40133);
	demux_bind(&conf_v4, "v4", b, "0.0.0.0", 40133);
	conf_ping6("v6: sendto ::1 seq 9", a, "::1", 9, 64);
	conf_ping("v4: sendto 127.0.0.1 seq 10", b, "127.0.0.1", 10, 72);
	conf_ping6("v6: sendto the peer seq 11", a, CONF6_PEER, 11, 64);
	conf_ping("v4: sendto the peer seq 12", b, CONF_PEER, 12, 72);
	conf_reply6_1("v6: reply", a, true);
	conf_reply6_1("v6: reply", a, true);
	conf_reply1("v4: reply", b, true);
	conf_reply1("v4: reply", b, true);
	conf_quiet6("v6", a, 300);
	conf_quiet("v4", b, 0);
	pingsock_close(a);
	pingsock_close(b);
}

/* The IPv6 socket bound to the IPv4 one's automatic identifier
 * (sequences 13, 14). */
static void both_auto(void)
{
	struct sockaddr_in6 s6;
	int a = conf_socket(), b = conf_socket6();

	conf_ping("v4: sendto 127.0.0.1 seq 13 (auto identifier)", a,
		  "127.0.0.1", 13, 64);
	s6 = conf_sin6("::", (int)conf_ident(a), 0);
	TRY("v6: bind [::] to the v4 socket's identifier",
	    pingsock_bind(b, SA(&s6), sizeof(s6)));
	out("  same identifier: %s",
	    conf_ident(a) == conf_ident(b) ? "yes" : "no");
	conf_ping6("v6: sendto ::1 seq 14", b, "::1", 14, 64);
	conf_reply1("v4: reply", a, false);
	conf_reply6_1("v6: reply", b, false);
	conf_quiet("v4", a, 300);
	conf_quiet6("v6", b, 0);
	pingsock_close(a);
	pingsock_close(b);
}

static void closed_socket(void)
{
	int a = conf_socket6(), c = conf_socket6();

	out("## a closed socket's replies go nowhere");
	demux_bind(F, "C", c, "::", 40134);
	conf_ping6("C: sendto seq 15", c, CONF6_PEER, 15, 64);
	TRY("C: close before the reply", pingsock_close(c));
	conf_ping6("A: sendto seq 16", a, "::1", 16, 64);
	conf_reply6_1("A: reply", a, false);
	conf_quiet6("A", a, 300);
	pingsock_close(a);
}

int main(void)
{
	struct sockaddr_in6 s6;
	int a, b;

	conf_begin("demux6");
	demux_bound(F, 40131, CONF6_PEER);
	demux_auto(F, &a, &b);
	pingsock_close(a);
	pingsock_close(b);

	out("## an IPv4 and an IPv6 socket with one identifier");
	both_bound();
	both_auto();
	closed_socket();

	a = demux_bound_loopback(F, 40135, 17);
	conf_ping6("A: sendto fd00:201::1 (from ::1: the reply comes to ::1)",
		   a, CONF6_LOCAL, 18, 64);
	conf_reply6_1("A: reply", a, true);
	conf_quiet6("A", a, 300);
	pingsock_close(a);
	demux_bound_local(F, 40136, 19);

	demux_device_lo(F, 21, 300);
	a = conf_socket6();
	s6 = conf_sin6(CONF6_LL_LOCAL, 40137, conf_ifidx(CONF6_IF));
	TRY("A: bind [fe80::1%veth0]:40137",
	    pingsock_bind(a, SA(&s6), sizeof(s6)));
	conf_ping6("A: sendto fd00:201::2", a, CONF6_PEER, 23, 64);
	conf_reply6_1("A: reply", a, true);
	pingsock_close(a);
	return 0;
}
