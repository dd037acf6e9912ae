/*
 * connect6: an IPv6 socket's default destination, names before and after,
 * link-local destinations and the device they bind, disconnect.
 */
// needs: peer (fd00:201::1 and fe80::1 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"

static void bound_dev(const char *what, int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &v, &l) < 0)
		out("%s: -1 %s", what, conf_errname(errno));
	else
		out("%s: %s", what, conf_scope6((uint32_t)v));
}

/* A fresh socket, one connect, the names afterwards; closed again. */
static void row(const char *what, const void *addr, socklen_t len)
{
	int fd = conf_socket6();

	TRY(what, pingsock_connect(fd, addr, len));
	conf_name6(L("  %s: getsockname", what), fd, false, PORT_MASK);
	conf_name6(L("  %s: getpeername", what), fd, true, PORT_EXACT);
	bound_dev(L("  %s: SO_BINDTOIFINDEX", what), fd);
	pingsock_close(fd);
}

static void row_in6(const char *what, const char *ip, int port,
		    unsigned scope)
{
	struct sockaddr_in6 a = conf_sin6(ip, port, scope);

	row(what, &a, sizeof(a));
}

int main(void)
{
	struct sockaddr_in6 a;
	struct sockaddr_in a4;
	struct sockaddr_storage ss;
	unsigned veth0 = conf_ifidx(CONF6_IF), lo = conf_ifidx("lo");
	int fd;

	conf_begin("connect6");

	out("## connect ::1 port 0");
	fd = conf_socket6();
	a = conf_sin6("::1", 0, 0);
	TRY("connect [::1]:0", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_psend6("send", fd, 1, 64);
	conf_reply6_1("reply", fd, false);
	conf_psend6("send 8 bytes", fd, 2, 8);
	conf_reply6_1("reply", fd, false);
	conf_ping6("sendto fd00:201::1 (explicit address wins)", fd,
		   CONF6_LOCAL, 3, 64);
	conf_reply6_1("reply", fd, false);
	conf_getint("IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_getint("SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));

	out("## reconnect to ::1 port 7");
	a = conf_sin6("::1", 7, 0);
	TRY("connect [::1]:7", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	{
		uint8_t b[128];
		socklen_t l = 10;

		memset(b, 0xaa, sizeof(b));
		TRY("getpeername addrlen 10",
		    pingsock_getpeername(fd, SA(b), &l));
		out("  addrlen now %u: %s", (unsigned)l,
		    conf_sa6(b, 10, l, PORT_EXACT));
	}
	conf_psend6("send", fd, 4, 64);
	conf_reply6_1("reply", fd, false);

	out("## disconnect (AF_UNSPEC)");
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNSPEC;
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	conf_psend6("send (no destination)", fd, 5, 64);
	conf_getint("IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	TRY("connect AF_UNSPEC again", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	TRY("connect AF_UNSPEC addrlen 2", pingsock_connect(fd, SA(&ss), 2));
	conf_ping6("sendto ::1 after disconnect", fd, "::1", 6, 64);
	conf_reply6_1("reply", fd, false);
	pingsock_close(fd);

	out("## disconnect keeps an explicit bind");
	fd = conf_socket6();
	a = conf_sin6("::1", 40121, 0);
	TRY("bind [::1]:40121", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin6("::1", 0, 0);
	TRY("connect ::1", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);
	fd = conf_socket6();
	a = conf_sin6("::", 40122, 0);
	TRY("bind [::]:40122", pingsock_bind(fd, SA(&a), sizeof(a)));
	a = conf_sin6(CONF6_PEER, 0, 0);
	TRY("connect fd00:201::2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);

	out("## connect to the peer");
	fd = conf_socket6();
	a = conf_sin6(CONF6_PEER, 0, 0);
	TRY("connect fd00:201::2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_psend6("send", fd, 7, 100);
	conf_reply6_1("reply", fd, false);
	conf_getint("IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	pingsock_close(fd);

	out("## connect to the peer's link-local address");
	fd = conf_socket6();
	a = conf_sin6(CONF6_LL_PEER, 0, 0);
	TRY("connect fe80::2 without scope", pingsock_connect(fd, SA(&a),
							      sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	a = conf_sin6(CONF6_LL_PEER, 7, veth0);
	TRY("connect [fe80::2%veth0]:7", pingsock_connect(fd, SA(&a),
							  sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	bound_dev("SO_BINDTOIFINDEX", fd);
	conf_getint("IPV6_MTU", fd, SOL_IPV6, IPV6_MTU, sizeof(int));
	conf_psend6("send", fd, 8, 64);
	conf_reply6_1("reply", fd, false);
	a = conf_sin6(CONF6_PEER, 0, 0);
	conf_ping6_to("sendto fd00:201::2 (bound to veth0 now)", fd, &a, 9,
		      64);
	conf_reply6_1("reply", fd, false);
	conf_ping6("sendto ::1 (bound to veth0 now)", fd, "::1", 10, 64);
	a = conf_sin6(CONF6_LL_PEER, 0, lo);
	TRY("connect fe80::2 scope lo (another device)",
	    pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	bound_dev("SO_BINDTOIFINDEX after the disconnect", fd);
	pingsock_close(fd);

	out("## a failed connect to an unknown scope");
	fd = conf_socket6();
	a = conf_sin6(CONF6_LL_PEER, 0, 9999);
	TRY("connect fe80::2 scope 9999", pingsock_connect(fd, SA(&a),
							   sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	bound_dev("SO_BINDTOIFINDEX", fd);
	conf_ping6("sendto ::1 afterwards", fd, "::1", 11, 64);
	conf_quiet6("after it", fd, 200);
	pingsock_close(fd);

	out("## SO_BINDTODEVICE and a disconnect");
	fd = conf_socket6();
	TRY("SO_BINDTODEVICE veth0", pingsock_setsockopt(fd, SOL_SOCKET,
							 SO_BINDTODEVICE,
							 "veth0", 6));
	a = conf_sin6(CONF6_LL_PEER, 0, 0);
	TRY("connect fe80::2 without scope (the bound device serves)",
	    pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_psend6("send", fd, 12, 64);
	conf_reply6_1("reply", fd, false);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	bound_dev("SO_BINDTOIFINDEX after the disconnect", fd);
	pingsock_close(fd);

	out("## the rows (fresh socket each)");
	a = conf_sin6("::1", 0, 0);
	row("addrlen 27", &a, 27);
	row("addrlen 24 (RFC 2133 size)", &a, 24);
	row("addrlen 23", &a, 23);
	row("addrlen 8", &a, 8);
	row("addrlen 1", &a, 1);
	row("addrlen 0", &a, 0);
	a4 = conf_sin("127.0.0.1", 0);
	row("AF_INET 127.0.0.1 addrlen 16", &a4, sizeof(a4));
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	row("AF_INET 127.0.0.1 addrlen 28", &ss, sizeof(a));
	a = conf_sin6("::1", 0, 0);
	a.sin6_family = 99;
	row("family 99", &a, sizeof(a));
	memset(&ss, 0, sizeof(ss));
	row("AF_UNSPEC on a fresh socket", &ss, sizeof(ss));
	row_in6(":: (connects to ::1)", "::", 0, 0);
	row_in6("[::]:7", "::", 7, 0);
	row_in6("v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", 0, 0);
	row_in6("v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0, 0);
	row_in6("own fd00:201::1", CONF6_LOCAL, 0, 0);
	row_in6("no route fd00:99::1", CONF6_NOROUTE, 0, 0);
	row_in6("link-local fe80::2 scope 9999", CONF6_LL_PEER, 0, 9999);
	row_in6("multicast ff02::1 without scope", "ff02::1", 0, 0);
	row_in6("multicast ff02::1 scope veth0", "ff02::1", 0, veth0);
	row_in6("multicast ff0e::1 (global scope)", "ff0e::1", 0, 0);
	row_in6("[::1]:65535", "::1", 65535, 0);
	a = conf_sin6("::1", 7, 0);
	a.sin6_flowinfo = htonl(0x12345);
	row("[::1]:7 with flowinfo 0x12345", &a, sizeof(a));

	out("## shutdown");
	fd = conf_socket6();
	a = conf_sin6("::1", 0, 0);
	TRY("connect ::1", pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("shutdown SHUT_RD", pingsock_shutdown(fd, SHUT_RD));
	conf_poll("poll POLLIN", fd, POLLIN, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100,
					       MSG_DONTWAIT));
	TRY("shutdown SHUT_WR", pingsock_shutdown(fd, SHUT_WR));
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_psend6("send after SHUT_WR", fd, 13, 64);
	pingsock_close(fd);
	return 0;
}
