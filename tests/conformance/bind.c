/*
 * bind: every row of the bind table, then the identifier's life cycle.
 */
// needs: peer (10.201.0.1/24 on veth0)
#include "conf.h"

/*
 * A fresh socket, one bind, the resulting name; closed again.  The port
 * is printed exactly when a non-zero one was asked for.
 */
static void row_m(const char *what, const void *addr, socklen_t len,
		  int mask)
{
	int fd = conf_socket();

	TRY(what, pingsock_bind(fd, addr, len));
	conf_name(L("  %s: getsockname", what), fd, false, mask);
	pingsock_close(fd);
}

static void row(const char *what, const void *addr, socklen_t len)
{
	row_m(what, addr, len, PORT_MASK);
}

static void row_in(const char *what, const char *ip, int port)
{
	struct sockaddr_in a = conf_sin(ip, port);

	row_m(what, &a, sizeof(a), port ? PORT_EXACT : PORT_MASK);
}

int main(void)
{
	struct sockaddr_in a;
	struct sockaddr_storage ss;
	struct sockaddr_in6 a6;
	int fd, fd2;

	conf_begin("bind");

	out("## the table");
	a = conf_sin("127.0.0.1", 0);
	row("addrlen 15", &a, 15);
	row("addrlen 2", &a, 2);
	row("addrlen 0", &a, 0);
	row("NULL addr, addrlen 0", NULL, 0);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a, sizeof(a));
	row("addrlen 128 (sockaddr_storage)", &ss, sizeof(ss));
	row("addrlen 129", &ss, 129);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	row("AF_INET6 ::1 addrlen 28", &a6, sizeof(a6));
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_INET6;
	row("AF_INET6 family, IPv4 body, addrlen 16", &a, sizeof(a));
	a = conf_sin("0.0.0.0", 0);
	a.sin_family = AF_UNSPEC;
	row("AF_UNSPEC 0.0.0.0", &a, sizeof(a));
	a = conf_sin("0.0.0.0", 40005);
	a.sin_family = AF_UNSPEC;
	row_m("AF_UNSPEC 0.0.0.0:40005", &a, sizeof(a), PORT_EXACT);
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_UNSPEC;
	row("AF_UNSPEC 127.0.0.1", &a, sizeof(a));
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = 99;
	row("family 99", &a, sizeof(a));
	row_in("non-local 10.99.0.1", CONF_NOROUTE, 0);
	row_in("non-local 192.0.2.1", "192.0.2.1", 0);
	row_in("non-local 10.201.0.2 (the peer's)", CONF_PEER, 0);
	row_in("multicast 224.0.0.1", "224.0.0.1", 0);
	row_in("multicast 239.1.2.3", "239.1.2.3", 0);
	row_in("broadcast 255.255.255.255", "255.255.255.255", 0);
	row_in("directed broadcast 10.201.0.255", CONF_BCAST, 0);
	row_in("network address 10.201.0.0", "10.201.0.0", 0);
	row_in("0.0.0.0 port 0", "0.0.0.0", 0);
	row_in("0.0.0.0:40002", "0.0.0.0", 40002);
	row_in("127.0.0.1 port 0", "127.0.0.1", 0);
	row_in("127.0.0.2:40003 (127/8 is local)", "127.0.0.2", 40003);
	row_in("local 10.201.0.1:40004", CONF_LOCAL, 40004);
	row_in("port 65535", "127.0.0.1", 65535);
	a = conf_sin("127.0.0.1", 40006);
	memset(a.sin_zero, 0x55, sizeof(a.sin_zero));
	row_m("127.0.0.1:40006 with sin_zero dirty", &a, sizeof(a),
	      PORT_EXACT);

	out("## 127.0.0.1:40001, rebind, a second socket, close");
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 40001);
	TRY("bind 127.0.0.1:40001", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	conf_name("getpeername", fd, true, PORT_EXACT);
	a = conf_sin("127.0.0.1", 40007);
	TRY("bind again 127.0.0.1:40007", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin("127.0.0.1", 40001);
	TRY("bind again, same address", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin("127.0.0.1", 40001);
	a.sin_family = AF_INET6;
	TRY("bind again, AF_INET6", pingsock_bind(fd, SA(&a), sizeof(a)));
	TRY("bind again, addrlen 4", pingsock_bind(fd, SA(&a), 4));
	conf_name("getsockname after the failed rebinds", fd, false, PORT_EXACT);
	fd2 = conf_socket();
	a = conf_sin("127.0.0.1", 40001);
	TRY("second socket, bind 127.0.0.1:40001",
	    pingsock_bind(fd2, SA(&a), sizeof(a)));
	conf_name("second socket getsockname", fd2, false, PORT_EXACT);
	pingsock_close(fd2);
	fd2 = conf_socket();
	a = conf_sin("0.0.0.0", 40001);
	TRY("third socket, bind 0.0.0.0:40001",
	    pingsock_bind(fd2, SA(&a), sizeof(a)));
	pingsock_close(fd2);
	/* the bound socket still works */
	conf_ping("bound socket: sendto 127.0.0.1", fd, "127.0.0.1", 11, 64);
	conf_reply1("bound socket: reply", fd, true);
	TRY("close", pingsock_close(fd));
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 40001);
	TRY("after close: bind 127.0.0.1:40001",
	    pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);

	out("## bind after the socket got an identifier");
	fd = conf_socket();
	conf_ping("sendto 127.0.0.1 (auto-binds)", fd, "127.0.0.1", 12, 64);
	conf_reply1("reply", fd, false);
	a = conf_sin("127.0.0.1", 40008);
	TRY("bind after sendto", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 0);
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	a = conf_sin("127.0.0.1", 40009);
	TRY("bind after connect", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);

	out("## what the bound address does to sending");
	fd = conf_socket();
	a = conf_sin(CONF_LOCAL, 40010);
	TRY("bind 10.201.0.1:40010", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping("sendto 127.0.0.1", fd, "127.0.0.1", 13, 64);
	conf_reply1("reply", fd, true);
	conf_ping("sendto 10.201.0.2", fd, CONF_PEER, 14, 64);
	conf_reply1("reply", fd, true);
	pingsock_close(fd);
	fd = conf_socket();
	a = conf_sin("127.0.0.1", 40011);
	TRY("bind 127.0.0.1:40011", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping("sendto 10.201.0.2 from 127.0.0.1", fd, CONF_PEER, 15, 64);
	conf_quiet("after it", fd, 300);
	pingsock_close(fd);
	fd = conf_socket();
	a = conf_sin("127.0.0.2", 40012);
	TRY("bind 127.0.0.2:40012", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping("sendto 127.0.0.1", fd, "127.0.0.1", 16, 64);
	conf_reply1("reply", fd, true);
	pingsock_close(fd);
	return 0;
}
