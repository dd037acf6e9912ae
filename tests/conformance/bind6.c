/* SPDX-License-Identifier: ISC */
/*
 * bind6: every row of the IPv6 bind table (lengths, families, address
 * kinds, scope ids), the identifier's life cycle, and what the bound
 * address and scope do to sending.
 */
// needs: peer (fd00:201::1/64 and fe80::1/64 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"
#include "steps/bind.h"

#define F (&conf_v6)

static const struct conf_row addresses[] = {
	{ ":: port 0", "::", 0, NULL },
	{ "[::]:40101", "::", 40101, NULL },
	{ "::1 port 0", "::1", 0, NULL },
	{ "[::1]:40102", "::1", 40102, NULL },
	{ "local fd00:201::1", CONF6_LOCAL, 0, NULL },
	{ "[fd00:201::1]:40103", CONF6_LOCAL, 40103, NULL },
	{ "non-local fd00:9::1", "fd00:9::1", 0, NULL },
	{ "non-local fd00:201::2 (the peer's)", CONF6_PEER, 0, NULL },
	{ "non-local 2001:db8::1", "2001:db8::1", 0, NULL },
	{ "v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", 0, NULL },
	{ "v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0, NULL },
	{ "v4-compatible ::127.0.0.1", "::127.0.0.1", 0, NULL },
	{ "multicast ff02::1", "ff02::1", 0, NULL },
	{ "multicast ff02::1 scope veth0", "ff02::1", 0, "veth0" },
	{ "multicast ff0e::1", "ff0e::1", 0, NULL },
	{ "port 65535", "::1", 65535, NULL },
};

/* A scope id: a row, or (dev_after) a bind that succeeds and then the
 * device it left the socket bound to. */
struct scope_row {
	const char *what, *ip, *dev;
	bool dev_after;
};

static const struct scope_row scopes[] = {
	{ "link-local fe80::1 without scope", CONF6_LL_LOCAL, NULL, false },
	{ "link-local fe80::1 scope veth0", CONF6_LL_LOCAL, "veth0", true },
	{ "link-local fe80::1 scope lo", CONF6_LL_LOCAL, "lo", false },
	{ "link-local fe80::1 scope 9999 (no such interface)", CONF6_LL_LOCAL,
	  "9999", false },
	{ "link-local fe80::2 (the peer's) scope veth0", CONF6_LL_PEER,
	  "veth0", false },
	{ "link-local fe80::99 scope veth0", "fe80::99", "veth0", false },
	{ "global fd00:201::1 scope veth0", CONF6_LOCAL, "veth0", true },
	{ "global fd00:201::1 scope lo", CONF6_LOCAL, "lo", true },
	{ "global fd00:201::1 scope 9999", CONF6_LOCAL, "9999", false },
	{ "::1 scope lo", "::1", "lo", true },
	{ "::1 scope 9999", "::1", "9999", false },
	{ ":: scope veth0", "::", "veth0", true },
};

/* A bind that succeeds, then the device it left the socket bound to. */
static void row_dev(const char *what, const struct sockaddr_in6 *a)
{
	int fd = conf_socket6();

	TRY(what, pingsock_bind(fd, SA(a), sizeof(*a)));
	conf_name6(L("  %s: getsockname", what), fd, false, PORT_MASK);
	conf_bound_dev(L("  %s: SO_BINDTOIFINDEX", what), fd);
	pingsock_close(fd);
}

static void scope_ids(void)
{
	out("## scope ids");
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		const struct scope_row *r = &scopes[i];
		struct sockaddr_in6 a = conf_sin6(r->ip, 0,
						  conf_scope_id(r->dev));

		if (r->dev_after)
			row_dev(r->what, &a);
		else
			bind_row(F, r->what, &a, sizeof(a), PORT_MASK);
	}
}

static void table(void)
{
	static const char *const what[] = {
		"addrlen 27", "addrlen 24 (RFC 2133 size)", "addrlen 16",
		"addrlen 0",
	};
	static const socklen_t len[] = { 27, 24, 16, 0 };
	struct sockaddr_in6 a;
	struct sockaddr_in a4;
	struct sockaddr_storage ss;

	out("## lengths and families");
	bind_lengths(F, what, len, 4);
	a4 = conf_sin("127.0.0.1", 0);
	bind_row(F, "AF_INET 127.0.0.1 addrlen 16", &a4, sizeof(a4),
		 PORT_MASK);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	bind_row(F, "AF_INET 127.0.0.1 addrlen 28", &ss, sizeof(a), PORT_MASK);
	a = conf_sin6("::", 0, 0);
	a.sin6_family = AF_UNSPEC;
	bind_row(F, "AF_UNSPEC ::", &a, sizeof(a), PORT_MASK);
	a.sin6_family = 99;
	bind_row(F, "family 99", &a, sizeof(a), PORT_MASK);

	out("## addresses");
	bind_rows(F, addresses, sizeof(addresses) / sizeof(addresses[0]));
	a = conf_sin6("::1", 40104, 0);
	a.sin6_flowinfo = htonl(0x12345);
	bind_row(F, "[::1]:40104 with flowinfo 0x12345", &a, sizeof(a),
		 PORT_EXACT);
}

static void bindtodevice_first(unsigned veth0)
{
	struct sockaddr_in6 a;
	int fd = conf_socket6();

	out("## with SO_BINDTODEVICE first");
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
}

static void life(void)
{
	struct sockaddr_in6 a = conf_sin6("::1", 40111, 0);
	int fd = bind_rebind(F, 40111, 40112), fd2;

	TRY("bind again, addrlen 4", pingsock_bind(fd, SA(&a), 4));
	conf_name6("getsockname after the failed rebinds", fd, false,
		   PORT_EXACT);
	fd2 = conf_socket6();
	bind_to(F, "second socket, bind", fd2, "::1", 40111);
	pingsock_close(fd2);
	fd2 = conf_socket6();
	bind_to(F, "third socket, bind", fd2, "::", 40111);
	pingsock_close(fd2);
	fd2 = conf_socket();
	bind_to(&conf_v4, "an IPv4 socket, bind", fd2, "127.0.0.1", 40111);
	pingsock_close(fd2);
	bind_after_close(F, fd, 40111);
}

/* Bound to a link-local address: its scope serves where a destination
 * has none, and another device's destinations fail. */
static void sending_scoped(unsigned veth0, unsigned lo)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_LL_LOCAL, 40117, veth0);
	int fd = conf_socket6();

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
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF), lo = conf_ifidx("lo");

	conf_begin("bind6");
	table();
	scope_ids();
	bindtodevice_first(veth0);
	life();
	bind_after_ident(F, 40113, true);
	bind_sending(F, 40115);
	sending_scoped(veth0, lo);
	return 0;
}
