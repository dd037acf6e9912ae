/* SPDX-License-Identifier: ISC */
/*
 * connect6: an IPv6 socket's default destination, names before and after,
 * link-local destinations and the device they bind, disconnect.
 */
// needs: peer (fd00:201::1 and fe80::1 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"
#include "steps/connect.h"

#define F (&conf_v6)

static const struct conf_row rows[] = {
	{ ":: (connects to ::1)", "::", 0, NULL },
	{ "[::]:7", "::", 7, NULL },
	{ "v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", 0, NULL },
	{ "v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0, NULL },
	{ "own fd00:201::1", CONF6_LOCAL, 0, NULL },
	{ "no route fd00:99::1", CONF6_NOROUTE, 0, NULL },
	{ "link-local fe80::2 scope 9999", CONF6_LL_PEER, 0, "9999" },
	{ "multicast ff02::1 without scope", "ff02::1", 0, NULL },
	{ "multicast ff02::1 scope veth0", "ff02::1", 0, "veth0" },
	{ "multicast ff0e::1 (global scope)", "ff0e::1", 0, NULL },
	{ "[::1]:65535", "::1", 65535, NULL },
};

static struct sockaddr_storage unspec;	/* AF_UNSPEC, all zero */

static void disconnect(int fd)
{
	connect_disconnect(F, fd);
	conf_ping6("sendto ::1 after disconnect", fd, "::1", 6, 64);
	conf_reply6_1("reply", fd, false);
	pingsock_close(fd);
}

/* Connected to the peer's link-local address: the device it binds, and
 * what that does to sending (sequences 8 to 10). */
static void link_local(unsigned veth0, unsigned lo)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_LL_PEER, 0, 0);
	int fd = conf_socket6();

	out("## connect to the peer's link-local address");
	TRY("connect fe80::2 without scope", pingsock_connect(fd, SA(&a),
							      sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	a = conf_sin6(CONF6_LL_PEER, 7, veth0);
	TRY("connect [fe80::2%veth0]:7", pingsock_connect(fd, SA(&a),
							  sizeof(a)));
	connect_names(F, fd, PORT_MASK);
	conf_bound_dev("SO_BINDTOIFINDEX", fd);
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
	TRY("connect AF_UNSPEC",
	    pingsock_connect(fd, SA(&unspec), sizeof(unspec)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_bound_dev("SO_BINDTOIFINDEX after the disconnect", fd);
	pingsock_close(fd);
}

static void unknown_scope(void)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_LL_PEER, 0, 9999);
	int fd = conf_socket6();

	out("## a failed connect to an unknown scope");
	TRY("connect fe80::2 scope 9999", pingsock_connect(fd, SA(&a),
							   sizeof(a)));
	connect_names(F, fd, PORT_MASK);
	conf_bound_dev("SO_BINDTOIFINDEX", fd);
	conf_ping6("sendto ::1 afterwards", fd, "::1", 11, 64);
	conf_quiet6("after it", fd, 200);
	pingsock_close(fd);
}

static void bindtodevice(void)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_LL_PEER, 0, 0);
	int fd = conf_socket6();

	out("## SO_BINDTODEVICE and a disconnect");
	TRY("SO_BINDTODEVICE veth0", pingsock_setsockopt(fd, SOL_SOCKET,
							 SO_BINDTODEVICE,
							 "veth0", 6));
	TRY("connect fe80::2 without scope (the bound device serves)",
	    pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name6("getsockname", fd, false, PORT_MASK);
	conf_psend6("send", fd, 12, 64);
	conf_reply6_1("reply", fd, false);
	TRY("connect AF_UNSPEC",
	    pingsock_connect(fd, SA(&unspec), sizeof(unspec)));
	conf_bound_dev("SO_BINDTOIFINDEX after the disconnect", fd);
	pingsock_close(fd);
}

static void table(void)
{
	static const char *const what[] = {
		"addrlen 27", "addrlen 24 (RFC 2133 size)", "addrlen 23",
		"addrlen 8", "addrlen 1", "addrlen 0",
	};
	static const socklen_t len[] = { 27, 24, 23, 8, 1, 0 };
	struct sockaddr_in a4 = conf_sin("127.0.0.1", 0);
	struct sockaddr_in6 a;
	struct sockaddr_storage ss;

	connect_lengths(F, what, len, 6, true);
	connect_row(F, "AF_INET 127.0.0.1 addrlen 16", &a4, sizeof(a4), true);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	connect_row(F, "AF_INET 127.0.0.1 addrlen 28", &ss, sizeof(a), true);
	connect_families(F, true);
	connect_rows(F, rows, sizeof(rows) / sizeof(rows[0]), true);
	a = conf_sin6("::1", 7, 0);
	a.sin6_flowinfo = htonl(0x12345);
	connect_row(F, "[::1]:7 with flowinfo 0x12345", &a, sizeof(a), true);
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF), lo = conf_ifidx("lo");

	conf_begin("connect6");
	disconnect(connect_default(F, CONF6_LOCAL, 10));
	out("## disconnect keeps an explicit bind");
	connect_keeps_bind(F, "::1", 40121, "::1");
	connect_keeps_bind(F, "::", 40122, CONF6_PEER);
	connect_peer(F);
	link_local(veth0, lo);
	unknown_scope();
	bindtodevice();
	table();
	pingsock_close(connect_shutdown(F, 13));
	return 0;
}
