/*
 * demux: replies reach the socket whose identifier they carry, and only
 * that one.  (Two sockets sharing one identifier are left out on purpose:
 * pingsockd delivers a reply only to the socket that sent the request,
 * where the kernel hands it to the newest bound one — see design.md.)
 */
// needs: peer
#include "conf.h"

static void bind_to(const char *what, int fd, const char *ip, int port)
{
	struct sockaddr_in a = conf_sin(ip, port);

	TRY(what, pingsock_bind(fd, SA(&a), sizeof(a)));
}

int main(void)
{
	int a, b, c;

	conf_begin("demux");

	out("## two explicitly bound identifiers");
	a = conf_socket();
	b = conf_socket();
	bind_to("A: bind 0.0.0.0:40031", a, "0.0.0.0", 40031);
	bind_to("B: bind 0.0.0.0:40032", b, "0.0.0.0", 40032);
	conf_ping("A: sendto seq 1", a, "127.0.0.1", 1, 64);
	conf_ping("B: sendto seq 2", b, "127.0.0.1", 2, 80);
	conf_ping("A: sendto seq 3", a, "127.0.0.1", 3, 64);
	conf_reply1("A: reply", a, true);
	conf_reply1("A: reply", a, true);
	conf_reply1("B: reply", b, true);
	conf_quiet("A", a, 300);
	conf_quiet("B", b, 0);
	out("## a third socket sees nothing of theirs");
	c = conf_socket();
	conf_ping("C: sendto seq 4 (auto identifier)", c, "127.0.0.1", 4, 64);
	conf_ping("A: sendto seq 5", a, "127.0.0.1", 5, 64);
	conf_ping("B: sendto seq 6", b, CONF_PEER, 6, 64);
	conf_reply1("C: reply", c, false);
	conf_reply1("A: reply", a, true);
	conf_reply1("B: reply", b, true);
	out("  C's identifier differs from A's and B's: %s",
	    conf_ident(c) != 40031 && conf_ident(c) != 40032 ? "yes" : "no");
	conf_quiet("A", a, 300);
	conf_quiet("B", b, 0);
	conf_quiet("C", c, 0);
	pingsock_close(a);
	pingsock_close(b);
	pingsock_close(c);

	out("## automatic identifiers");
	a = conf_socket();
	b = conf_socket();
	conf_ping("A: sendto seq 7", a, "127.0.0.1", 7, 64);
	conf_ping("B: sendto seq 8", b, "127.0.0.1", 8, 64);
	out("  identifiers differ: %s",
	    conf_ident(a) != conf_ident(b) ? "yes" : "no");
	conf_reply1("B: reply", b, false);
	conf_reply1("A: reply", a, false);
	conf_quiet("A", a, 300);
	conf_quiet("B", b, 0);

	out("## a closed socket's replies go nowhere");
	c = conf_socket();
	bind_to("C: bind 0.0.0.0:40033", c, "0.0.0.0", 40033);
	conf_ping("C: sendto seq 9", c, CONF_PEER, 9, 64);
	TRY("C: close before the reply", pingsock_close(c));
	conf_quiet("A", a, 300);
	conf_quiet("B", b, 0);
	pingsock_close(a);
	pingsock_close(b);

	out("## bound address filters replies");
	a = conf_socket();
	bind_to("A: bind 127.0.0.1:40034", a, "127.0.0.1", 40034);
	conf_ping("A: sendto 127.0.0.1", a, "127.0.0.1", 10, 64);
	conf_reply1("A: reply", a, true);
	pingsock_close(a);
	a = conf_socket();
	bind_to("A: bind 10.201.0.1:40035", a, CONF_LOCAL, 40035);
	conf_ping("A: sendto 10.201.0.2", a, CONF_PEER, 11, 64);
	conf_reply1("A: reply", a, true);
	conf_ping("A: sendto 127.0.0.1", a, "127.0.0.1", 12, 64);
	conf_reply1("A: reply", a, true);
	conf_quiet("A", a, 300);
	pingsock_close(a);

	out("## bound device filters replies");
	a = conf_socket();
	TRY("A: SO_BINDTODEVICE lo", pingsock_setsockopt(a, SOL_SOCKET,
							 SO_BINDTODEVICE, "lo",
							 3));
	conf_ping("A: sendto 127.0.0.1", a, "127.0.0.1", 13, 64);
	conf_reply1("A: reply", a, false);
	conf_ping("A: sendto 10.201.0.2 (bound to lo)", a, CONF_PEER, 14, 64);
	conf_quiet("A", a, 500);
	pingsock_close(a);
	a = conf_socket();
	TRY("A: SO_BINDTODEVICE veth0", pingsock_setsockopt(a, SOL_SOCKET,
							    SO_BINDTODEVICE,
							    "veth0", 6));
	conf_ping("A: sendto 10.201.0.2", a, CONF_PEER, 15, 64);
	conf_reply1("A: reply", a, false);
	pingsock_close(a);
	return 0;
}
