/*
 * bind6: every row of the IPv6 bind table (lengths, families, address
 * kinds, scope ids), the identifier's life cycle, and what the bound
 * address and scope do to sending.
 */
// needs: peer (fd00:201::1/64 and fe80::1/64 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"

/* A fresh socket, one bind, the resulting name; closed again. */
static void row_m(const char *what, const void *addr, socklen_t len,
		  int mask)
{
	int fd = conf_socket6();

	TRY(what, pingsock_bind(fd, addr, len));
	conf_name6(L("  %s: getsockname", what), fd, false, mask);
	pingsock_close(fd);
}

static void row(const char *what, const void *addr, socklen_t len)
{
	row_m(what, addr, len, PORT_MASK);
}

static void row_in6(const char *what, const char *ip, int port,
		    unsigned scope)
{
	struct sockaddr_in6 a = conf_sin6(ip, port, scope);

	row_m(what, &a, sizeof(a), port ? PORT_EXACT : PORT_MASK);
}

/* A bind that succeeds, then the device it left the socket bound to. */
static void row_dev(const char *what, const char *ip, unsigned scope)
{
	struct sockaddr_in6 a = conf_sin6(ip, 0, scope);
	int fd = conf_socket6();
	int v = -1;
	socklen_t l = sizeof(v);

	TRY(what, pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name6(L("  %s: getsockname", what), fd, false, PORT_MASK);
	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &v, &l) < 0)
		out("  %s: SO_BINDTOIFINDEX: -1 %s", what, conf_errname(errno));
	else
		out("  %s: SO_BINDTOIFINDEX: %s", what, conf_scope6((uint32_t)v));
	pingsock_close(fd);
}

int main(void)
{
	struct sockaddr_in6 a;
	struct sockaddr_in a4;
	struct sockaddr_storage ss;
	unsigned veth0 = conf_ifidx(CONF6_IF), lo = conf_ifidx("lo");
	int fd, fd2;

	conf_begin("bind6");

	out("## lengths and families");
	a = conf_sin6("::1", 0, 0);
	row("addrlen 27", &a, 27);
	row("addrlen 24 (RFC 2133 size)", &a, 24);
	row("addrlen 16", &a, 16);
	row("addrlen 0", &a, 0);
	row("NULL addr, addrlen 0", NULL, 0);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a, sizeof(a));
	row("addrlen 128 (sockaddr_storage)", &ss, sizeof(ss));
	row("addrlen 129", &ss, 129);
	a4 = conf_sin("127.0.0.1", 0);
	row("AF_INET 127.0.0.1 addrlen 16", &a4, sizeof(a4));
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	row("AF_INET 127.0.0.1 addrlen 28", &ss, sizeof(a));
	a = conf_sin6("::", 0, 0);
	a.sin6_family = AF_UNSPEC;
	row("AF_UNSPEC ::", &a, sizeof(a));
	a.sin6_family = 99;
	row("family 99", &a, sizeof(a));

	out("## addresses");
	row_in6(":: port 0", "::", 0, 0);
	row_in6("[::]:40101", "::", 40101, 0);
	row_in6("::1 port 0", "::1", 0, 0);
	row_in6("[::1]:40102", "::1", 40102, 0);
	row_in6("local fd00:201::1", CONF6_LOCAL, 0, 0);
	row_in6("[fd00:201::1]:40103", CONF6_LOCAL, 40103, 0);
	row_in6("non-local fd00:9::1", "fd00:9::1", 0, 0);
	row_in6("non-local fd00:201::2 (the peer's)", CONF6_PEER, 0, 0);
	row_in6("non-local 2001:db8::1", "2001:db8::1", 0, 0);
	row_in6("v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", 0, 0);
	row_in6("v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0, 0);
	row_in6("v4-compatible ::127.0.0.1", "::127.0.0.1", 0, 0);
	row_in6("multicast ff02::1", "ff02::1", 0, 0);
	row_in6("multicast ff02::1 scope veth0", "ff02::1", 0, veth0);
	row_in6("multicast ff0e::1", "ff0e::1", 0, 0);
	row_in6("port 65535", "::1", 65535, 0);
	a = conf_sin6("::1", 40104, 0);
	a.sin6_flowinfo = htonl(0x12345);
	row_m("[::1]:40104 with flowinfo 0x12345", &a, sizeof(a), PORT_EXACT);

	out("## scope ids");
	row_in6("link-local fe80::1 without scope", CONF6_LL_LOCAL, 0, 0);
	row_dev("link-local fe80::1 scope veth0", CONF6_LL_LOCAL, veth0);
	row_in6("link-local fe80::1 scope lo", CONF6_LL_LOCAL, 0, lo);
	row_in6("link-local fe80::1 scope 9999 (no such interface)",
		CONF6_LL_LOCAL, 0, 9999);
	row_in6("link-local fe80::2 (the peer's) scope veth0", CONF6_LL_PEER,
		0, veth0);
	row_in6("link-local fe80::99 scope veth0", "fe80::99", 0, veth0);
	row_dev("global fd00:201::1 scope veth0", CONF6_LOCAL, veth0);
	row_dev("global fd00:201::1 scope lo", CONF6_LOCAL, lo);
	row_in6("global fd00:201::1 scope 9999", CONF6_LOCAL, 0, 9999);
	row_dev("::1 scope lo", "::1", lo);
	row_in6("::1 scope 9999", "::1", 0, 9999);
	row_dev(":: scope veth0", "::", veth0);

	out("## with SO_BINDTODEVICE first");
	fd = conf_socket6();
	TRY("SO_BINDTODEVICE veth0", pingsock_setsockopt(fd, SOL_SOCKET,
							 SO_BINDTODEVICE,
							 "veth0", 6));
	a = conf_sin6(CONF6_LL_LOCAL, 0, 0);
	TRY("bind fe80::1 without scope", pingsock_bind(fd, SA(&a),
							sizeof(a)));
	a = conf_sin6("::1", 0, 0);
	TRY("bind ::1 (not on veth0)", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin6(CONF6_LL_LOCAL, 0, veth0);
	TRY("bind fe80::1 scope veth0", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name6("  getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);

	out("## [::1]:40111, rebind, a second socket, close");
	fd = conf_socket6();
	a = conf_sin6("::1", 40111, 0);
	TRY("bind [::1]:40111", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	a = conf_sin6("::1", 40112, 0);
	TRY("bind again [::1]:40112", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin6("::1", 40111, 0);
	TRY("bind again, same address", pingsock_bind(fd, SA(&a), sizeof(a)));
	TRY("bind again, addrlen 4", pingsock_bind(fd, SA(&a), 4));
	conf_name6("getsockname after the failed rebinds", fd, false,
		   PORT_EXACT);
	fd2 = conf_socket6();
	TRY("second socket, bind [::1]:40111",
	    pingsock_bind(fd2, SA(&a), sizeof(a)));
	pingsock_close(fd2);
	fd2 = conf_socket6();
	a = conf_sin6("::", 40111, 0);
	TRY("third socket, bind [::]:40111",
	    pingsock_bind(fd2, SA(&a), sizeof(a)));
	pingsock_close(fd2);
	fd2 = conf_socket();
	a4 = conf_sin("127.0.0.1", 40111);
	TRY("an IPv4 socket, bind 127.0.0.1:40111",
	    pingsock_bind(fd2, SA(&a4), sizeof(a4)));
	pingsock_close(fd2);
	conf_ping6("bound socket: sendto ::1", fd, "::1", 11, 64);
	conf_reply6_1("bound socket: reply", fd, true);
	TRY("close", pingsock_close(fd));
	fd = conf_socket6();
	a = conf_sin6("::1", 40111, 0);
	TRY("after close: bind [::1]:40111", pingsock_bind(fd, SA(&a),
							   sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);

	out("## bind after the socket got an identifier");
	fd = conf_socket6();
	conf_ping6("sendto ::1 (auto-binds)", fd, "::1", 12, 64);
	conf_reply6_1("reply", fd, false);
	conf_name6("getsockname", fd, false, PORT_MASK);
	a = conf_sin6("::1", 40113, 0);
	TRY("bind after sendto", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
	fd = conf_socket6();
	a = conf_sin6("::1", 0, 0);
	TRY("connect ::1", pingsock_connect(fd, SA(&a), sizeof(a)));
	a = conf_sin6("::1", 40114, 0);
	TRY("bind after connect", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);

	out("## what the bound address does to sending");
	fd = conf_socket6();
	a = conf_sin6(CONF6_LOCAL, 40115, 0);
	TRY("bind [fd00:201::1]:40115", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping6("sendto ::1", fd, "::1", 13, 64);
	conf_reply6_1("reply", fd, true);
	conf_ping6("sendto fd00:201::2", fd, CONF6_PEER, 14, 64);
	conf_reply6_1("reply", fd, true);
	pingsock_close(fd);
	fd = conf_socket6();
	a = conf_sin6("::1", 40116, 0);
	TRY("bind [::1]:40116", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping6("sendto fd00:201::2 from ::1", fd, CONF6_PEER, 15, 64);
	conf_quiet6("after it", fd, 300);
	pingsock_close(fd);
	fd = conf_socket6();
	a = conf_sin6(CONF6_LL_LOCAL, 40117, veth0);
	TRY("bind [fe80::1%veth0]:40117", pingsock_bind(fd, SA(&a),
							 sizeof(a)));
	conf_ping6("sendto fd00:201::2", fd, CONF6_PEER, 16, 64);
	conf_reply6_1("reply", fd, true);
	a = conf_sin6(CONF6_LL_PEER, 0, 0);
	conf_ping6_to("sendto fe80::2 without scope (the socket's device "
		      "serves)", fd, &a, 17, 64);
	conf_reply6_1("reply", fd, true);
	a = conf_sin6(CONF6_LL_PEER, 0, lo);
	conf_ping6_to("sendto fe80::2 scope lo (not the bound device)", fd,
		      &a, 18, 64);
	conf_ping6("sendto ::1", fd, "::1", 19, 64);
	conf_quiet6("after it", fd, 300);
	pingsock_close(fd);
	return 0;
}
