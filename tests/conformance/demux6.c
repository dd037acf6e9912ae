/*
 * demux6: IPv6 replies reach the socket whose identifier they carry, and
 * only that one; an IPv4 and an IPv6 socket with the same identifier are
 * independent; bound address and device filter.  (As in demux.c, two
 * sockets of one family sharing an identifier are left out on purpose.)
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"

static void bind6_to(const char *what, int fd, const char *ip, int port,
		     unsigned scope)
{
	struct sockaddr_in6 a = conf_sin6(ip, port, scope);

	TRY(what, pingsock_bind(fd, SA(&a), sizeof(a)));
}

static void bind4_to(const char *what, int fd, const char *ip, int port)
{
	struct sockaddr_in a = conf_sin(ip, port);

	TRY(what, pingsock_bind(fd, SA(&a), sizeof(a)));
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF);
	int a, b, c;

	conf_begin("demux6");

	out("## two explicitly bound identifiers");
	a = conf_socket6();
	b = conf_socket6();
	bind6_to("A: bind [::]:40131", a, "::", 40131, 0);
	bind6_to("B: bind [::]:40132", b, "::", 40132, 0);
	conf_ping6("A: sendto seq 1", a, "::1", 1, 64);
	conf_ping6("B: sendto seq 2", b, "::1", 2, 80);
	conf_ping6("A: sendto seq 3", a, CONF6_PEER, 3, 64);
	conf_reply6_1("A: reply", a, true);
	conf_reply6_1("A: reply", a, true);
	conf_reply6_1("B: reply", b, true);
	conf_quiet6("A", a, 300);
	conf_quiet6("B", b, 0);

	out("## a third socket sees nothing of theirs");
	c = conf_socket6();
	conf_ping6("C: sendto seq 4 (auto identifier)", c, "::1", 4, 64);
	conf_ping6("A: sendto seq 5", a, "::1", 5, 64);
	conf_ping6("B: sendto seq 6", b, CONF6_PEER, 6, 64);
	conf_reply6_1("C: reply", c, false);
	conf_reply6_1("A: reply", a, true);
	conf_reply6_1("B: reply", b, true);
	out("  C's identifier differs from A's and B's: %s",
	    conf_ident(c) != 40131 && conf_ident(c) != 40132 ? "yes" : "no");
	conf_quiet6("A", a, 300);
	conf_quiet6("B", b, 0);
	conf_quiet6("C", c, 0);
	pingsock_close(a);
	pingsock_close(b);
	pingsock_close(c);

	out("## automatic identifiers");
	a = conf_socket6();
	b = conf_socket6();
	conf_ping6("A: sendto seq 7", a, "::1", 7, 64);
	conf_ping6("B: sendto seq 8", b, "::1", 8, 64);
	out("  identifiers differ: %s",
	    conf_ident(a) != conf_ident(b) ? "yes" : "no");
	conf_reply6_1("B: reply", b, false);
	conf_reply6_1("A: reply", a, false);
	conf_quiet6("A", a, 300);
	conf_quiet6("B", b, 0);
	pingsock_close(a);
	pingsock_close(b);

	out("## an IPv4 and an IPv6 socket with one identifier");
	a = conf_socket6();
	b = conf_socket();
	bind6_to("v6: bind [::]:40133", a, "::", 40133, 0);
	bind4_to("v4: bind 0.0.0.0:40133", b, "0.0.0.0", 40133);
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
	a = conf_socket();
	b = conf_socket6();
	conf_ping("v4: sendto 127.0.0.1 seq 13 (auto identifier)", a,
		  "127.0.0.1", 13, 64);
	bind6_to("v6: bind [::] to the v4 socket's identifier", b, "::",
		 (int)conf_ident(a), 0);
	out("  same identifier: %s",
	    conf_ident(a) == conf_ident(b) ? "yes" : "no");
	conf_ping6("v6: sendto ::1 seq 14", b, "::1", 14, 64);
	conf_reply1("v4: reply", a, false);
	conf_reply6_1("v6: reply", b, false);
	conf_quiet("v4", a, 300);
	conf_quiet6("v6", b, 0);
	pingsock_close(a);
	pingsock_close(b);

	out("## a closed socket's replies go nowhere");
	a = conf_socket6();
	c = conf_socket6();
	bind6_to("C: bind [::]:40134", c, "::", 40134, 0);
	conf_ping6("C: sendto seq 15", c, CONF6_PEER, 15, 64);
	TRY("C: close before the reply", pingsock_close(c));
	conf_ping6("A: sendto seq 16", a, "::1", 16, 64);
	conf_reply6_1("A: reply", a, false);
	conf_quiet6("A", a, 300);
	pingsock_close(a);

	out("## bound address filters replies");
	a = conf_socket6();
	bind6_to("A: bind [::1]:40135", a, "::1", 40135, 0);
	conf_ping6("A: sendto ::1", a, "::1", 17, 64);
	conf_reply6_1("A: reply", a, true);
	conf_ping6("A: sendto fd00:201::1 (from ::1: the reply comes to ::1)",
		   a, CONF6_LOCAL, 18, 64);
	conf_reply6_1("A: reply", a, true);
	conf_quiet6("A", a, 300);
	pingsock_close(a);
	a = conf_socket6();
	bind6_to("A: bind [fd00:201::1]:40136", a, CONF6_LOCAL, 40136, 0);
	conf_ping6("A: sendto fd00:201::2", a, CONF6_PEER, 19, 64);
	conf_reply6_1("A: reply", a, true);
	conf_ping6("A: sendto ::1", a, "::1", 20, 64);
	conf_reply6_1("A: reply", a, true);
	conf_quiet6("A", a, 300);
	pingsock_close(a);

	out("## bound device filters replies");
	a = conf_socket6();
	TRY("A: SO_BINDTODEVICE lo", pingsock_setsockopt(a, SOL_SOCKET,
							 SO_BINDTODEVICE, "lo",
							 3));
	conf_ping6("A: sendto ::1", a, "::1", 21, 64);
	conf_reply6_1("A: reply", a, false);
	conf_ping6("A: sendto fd00:201::2 (bound to lo)", a, CONF6_PEER, 22,
		   64);
	conf_quiet6("A", a, 300);
	pingsock_close(a);
	a = conf_socket6();
	bind6_to("A: bind [fe80::1%veth0]:40137", a, CONF6_LL_LOCAL, 40137,
		 veth0);
	conf_ping6("A: sendto fd00:201::2", a, CONF6_PEER, 23, 64);
	conf_reply6_1("A: reply", a, true);
	pingsock_close(a);
	return 0;
}
