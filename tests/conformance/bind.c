/* SPDX-License-Identifier: ISC */
/*
 * bind: every row of the bind table, then the identifier's life cycle.
 */
// needs: peer (10.201.0.1/24 on veth0)
#include "conf.h"
#include "steps/bind.h"

#define F (&conf_v4)

static const struct conf_row addresses[] = {
	{ "non-local 10.99.0.1", CONF_NOROUTE, 0, NULL },
	{ "non-local 192.0.2.1", "192.0.2.1", 0, NULL },
	{ "non-local 10.201.0.2 (the peer's)", CONF_PEER, 0, NULL },
	{ "multicast 224.0.0.1", "224.0.0.1", 0, NULL },
	{ "multicast 239.1.2.3", "239.1.2.3", 0, NULL },
	{ "broadcast 255.255.255.255", "255.255.255.255", 0, NULL },
	{ "directed broadcast 10.201.0.255", CONF_BCAST, 0, NULL },
	{ "network address 10.201.0.0", "10.201.0.0", 0, NULL },
	{ "0.0.0.0 port 0", "0.0.0.0", 0, NULL },
	{ "0.0.0.0:40002", "0.0.0.0", 40002, NULL },
	{ "127.0.0.1 port 0", "127.0.0.1", 0, NULL },
	{ "127.0.0.2:40003 (127/8 is local)", "127.0.0.2", 40003, NULL },
	{ "local 10.201.0.1:40004", CONF_LOCAL, 40004, NULL },
	{ "port 65535", "127.0.0.1", 65535, NULL },
};

/* The lengths, other families, the address rows. */
static void table(void)
{
	static const char *const what[] = { "addrlen 15", "addrlen 2",
					    "addrlen 0" };
	static const socklen_t len[] = { 15, 2, 0 };
	struct sockaddr_in a;
	struct sockaddr_in6 a6;

	out("## the table");
	bind_lengths(F, what, len, 3);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	bind_row(F, "AF_INET6 ::1 addrlen 28", &a6, sizeof(a6), PORT_MASK);
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_INET6;
	bind_row(F, "AF_INET6 family, IPv4 body, addrlen 16", &a, sizeof(a),
		 PORT_MASK);
	a = conf_sin("0.0.0.0", 0);
	a.sin_family = AF_UNSPEC;
	bind_row(F, "AF_UNSPEC 0.0.0.0", &a, sizeof(a), PORT_MASK);
	a = conf_sin("0.0.0.0", 40005);
	a.sin_family = AF_UNSPEC;
	bind_row(F, "AF_UNSPEC 0.0.0.0:40005", &a, sizeof(a), PORT_EXACT);
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_UNSPEC;
	bind_row(F, "AF_UNSPEC 127.0.0.1", &a, sizeof(a), PORT_MASK);
	a.sin_family = 99;
	bind_row(F, "family 99", &a, sizeof(a), PORT_MASK);
	bind_rows(F, addresses, sizeof(addresses) / sizeof(addresses[0]));
	a = conf_sin("127.0.0.1", 40006);
	memset(a.sin_zero, 0x55, sizeof(a.sin_zero));
	bind_row(F, "127.0.0.1:40006 with sin_zero dirty", &a, sizeof(a),
		 PORT_EXACT);
}

static void life(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 40001);
	int fd = bind_rebind(F, 40001, 40007), fd2;

	a.sin_family = AF_INET6;
	TRY("bind again, AF_INET6", pingsock_bind(fd, SA(&a), sizeof(a)));
	TRY("bind again, addrlen 4", pingsock_bind(fd, SA(&a), 4));
	conf_name("getsockname after the failed rebinds", fd, false,
		  PORT_EXACT);
	fd2 = conf_socket();
	bind_to(F, "second socket, bind", fd2, "127.0.0.1", 40001);
	conf_name("second socket getsockname", fd2, false, PORT_EXACT);
	pingsock_close(fd2);
	fd2 = conf_socket();
	bind_to(F, "third socket, bind", fd2, "0.0.0.0", 40001);
	pingsock_close(fd2);
	bind_after_close(F, fd, 40001);
}

int main(void)
{
	int fd;

	conf_begin("bind");
	table();
	life();
	bind_after_ident(F, 40008, false);
	bind_sending(F, 40010);
	fd = conf_socket();
	bind_to(F, "bind", fd, "127.0.0.2", 40012);
	conf_ping("sendto 127.0.0.1", fd, "127.0.0.1", 16, 64);
	conf_reply1("reply", fd, true);
	pingsock_close(fd);
	return 0;
}
