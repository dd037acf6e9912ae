/*
 * connect: default destination, names before and after, disconnect.
 */
// needs: peer
#include "conf.h"

/* A fresh socket, one connect, the names afterwards; closed again. */
static void row(const char *what, const void *addr, socklen_t len)
{
	int fd = conf_socket();

	TRY(what, pingsock_connect(fd, addr, len));
	conf_name(L("  %s: getsockname", what), fd, false, PORT_MASK);
	conf_name(L("  %s: getpeername", what), fd, true, PORT_EXACT);
	pingsock_close(fd);
}

static void row_in(const char *what, const char *ip, int port)
{
	struct sockaddr_in a = conf_sin(ip, port);

	row(what, &a, sizeof(a));
}

int main(void)
{
	struct sockaddr_in a;
	struct sockaddr_in6 a6;
	struct sockaddr_storage ss;
	int fd;

	conf_begin("connect");

	out("## connect 127.0.0.1 port 0");
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 0);
	TRY("connect 127.0.0.1:0", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_name("getpeername", fd, true, PORT_EXACT);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_psend("send", fd, 1, 64);
	conf_reply1("reply", fd, false);
	conf_psend("send 8 bytes", fd, 2, 8);
	conf_reply1("reply", fd, false);
	conf_ping("sendto 127.0.0.2 (explicit address wins)", fd, "127.0.0.2",
		  3, 64);
	conf_reply1("reply", fd, false);
	conf_getint("IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	conf_getint("SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));

	out("## reconnect to 127.0.0.1 port 7");
	a = conf_sin("127.0.0.1", 7);
	TRY("connect 127.0.0.1:7", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_name("getpeername", fd, true, PORT_EXACT);
	{
		uint8_t b[128];
		socklen_t l = 6;

		memset(b, 0xaa, sizeof(b));
		TRY("getpeername addrlen 6",
		    pingsock_getpeername(fd, SA(b), &l));
		out("  addrlen now %u: %s", (unsigned)l,
		    conf_sa(b, 6, l, PORT_EXACT));
	}
	conf_psend("send", fd, 4, 64);
	conf_reply1("reply", fd, false);

	out("## disconnect (AF_UNSPEC)");
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNSPEC;
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_name("getpeername", fd, true, PORT_EXACT);
	conf_psend("send (no destination)", fd, 5, 64);
	conf_getint("IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	TRY("connect AF_UNSPEC again", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	TRY("connect AF_UNSPEC addrlen 2", pingsock_connect(fd, SA(&ss), 2));
	TRY("connect AF_UNSPEC addrlen 1", pingsock_connect(fd, SA(&ss), 1));
	conf_ping("sendto 127.0.0.1 after disconnect", fd, "127.0.0.1", 6, 64);
	conf_reply1("reply", fd, false);
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);

	out("## disconnect keeps an explicit bind");
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 40021);
	TRY("bind 127.0.0.1:40021", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin("127.0.0.1", 0);
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);
	fd = conf_socket();
	a = conf_sin("0.0.0.0", 40022);
	TRY("bind 0.0.0.0:40022", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin("127.0.0.1", 0);
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 0);
	TRY("bind 127.0.0.1 port 0", pingsock_bind(fd, SA(&a), sizeof(a)));
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);

	out("## connect to the peer");
	fd = conf_socket();
	a = conf_sin(CONF_PEER, 0);
	TRY("connect 10.201.0.2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_psend("send", fd, 7, 100);
	conf_reply1("reply", fd, false);
	conf_getint("IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	pingsock_close(fd);

	out("## the rows (fresh socket each)");
	a = conf_sin("127.0.0.1", 0);
	row("addrlen 15", &a, 15);
	row("addrlen 8", &a, 8);
	row("addrlen 2", &a, 2);
	row("addrlen 1", &a, 1);
	row("addrlen 0", &a, 0);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	row("AF_INET6 ::1", &a6, sizeof(a6));
	a.sin_family = 99;
	row("family 99", &a, sizeof(a));
	memset(&ss, 0, sizeof(ss));
	row("AF_UNSPEC on a fresh socket", &ss, sizeof(ss));
	row_in("no route 10.99.0.1", CONF_NOROUTE, 0);
	row_in("255.255.255.255", "255.255.255.255", 0);
	row_in("directed broadcast 10.201.0.255", CONF_BCAST, 0);
	row_in("multicast 224.0.0.1", "224.0.0.1", 0);
	row_in("0.0.0.0", "0.0.0.0", 0);
	row_in("127.0.0.2:65535", "127.0.0.2", 65535);

	out("## broadcast with SO_BROADCAST");
	fd = conf_socket();
	TRY("SO_BROADCAST 1", conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1));
	a = conf_sin(CONF_BCAST, 0);
	TRY("connect 10.201.0.255", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_name("getpeername", fd, true, PORT_EXACT);
	pingsock_close(fd);

	out("## shutdown");
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 0);
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("shutdown SHUT_RD", pingsock_shutdown(fd, SHUT_RD));
	conf_poll("poll POLLIN", fd, POLLIN, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	TRY("shutdown SHUT_WR", pingsock_shutdown(fd, SHUT_WR));
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_psend("send after SHUT_WR", fd, 8, 64);
	TRY("shutdown 3 (bad how)", pingsock_shutdown(fd, 3));
	TRY("shutdown -1 (bad how)", pingsock_shutdown(fd, -1));
	pingsock_close(fd);
	fd = conf_socket();
	TRY("unconnected: shutdown SHUT_RDWR",
	    pingsock_shutdown(fd, SHUT_RDWR));
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	TRY("recv", pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_ping("sendto 127.0.0.1", fd, "127.0.0.1", 9, 64);
	conf_poll("poll POLLIN", fd, POLLIN, 300);
	TRY("recv", pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	pingsock_close(fd);
	return 0;
}
