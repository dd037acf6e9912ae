/* SPDX-License-Identifier: ISC */
/*
 * connect: default destination, names before and after, disconnect.
 */
// needs: peer
#include "conf.h"
#include "steps/connect.h"

#define F (&conf_v4)

static const struct conf_row rows[] = {
	{ "no route 10.99.0.1", CONF_NOROUTE, 0, NULL },
	{ "255.255.255.255", "255.255.255.255", 0, NULL },
	{ "directed broadcast 10.201.0.255", CONF_BCAST, 0, NULL },
	{ "multicast 224.0.0.1", "224.0.0.1", 0, NULL },
	{ "0.0.0.0", "0.0.0.0", 0, NULL },
	{ "0.0.0.0:7 (this host: 127.0.0.1)", "0.0.0.0", 7, NULL },
	{ "127.0.0.2:65535", "127.0.0.2", 65535, NULL },
};

static void disconnect(int fd)
{
	struct sockaddr_storage ss;

	connect_disconnect(F, fd);
	memset(&ss, 0, sizeof(ss));
	TRY("connect AF_UNSPEC addrlen 1", pingsock_connect(fd, SA(&ss), 1));
	conf_ping("sendto 127.0.0.1 after disconnect", fd, "127.0.0.1", 6, 64);
	conf_reply1("reply", fd, false);
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
}

static void keeps_bind(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	struct sockaddr_storage ss;
	int fd;

	out("## disconnect keeps an explicit bind");
	connect_keeps_bind(F, "127.0.0.1", 40021, "127.0.0.1");
	connect_keeps_bind(F, "0.0.0.0", 40022, "127.0.0.1");
	fd = conf_socket();
	memset(&ss, 0, sizeof(ss));
	TRY("bind 127.0.0.1 port 0", pingsock_bind(fd, SA(&a), sizeof(a)));
	TRY("connect 127.0.0.1", pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_name("getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
}

static void table(void)
{
	static const char *const what[] = { "addrlen 15", "addrlen 8",
					    "addrlen 2", "addrlen 1",
					    "addrlen 0" };
	static const socklen_t len[] = { 15, 8, 2, 1, 0 };
	struct sockaddr_in6 a6;

	connect_lengths(F, what, len, 5, false);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	connect_row(F, "AF_INET6 ::1", &a6, sizeof(a6), false);
	connect_families(F, false);
	connect_rows(F, rows, sizeof(rows) / sizeof(rows[0]), false);
}

static void broadcast(void)
{
	int fd = conf_socket();

	out("## broadcast with SO_BROADCAST");
	TRY("SO_BROADCAST 1", conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1));
	connect_to(F, fd, CONF_BCAST, 0, false);
	connect_names(F, fd, PORT_MASK);
	pingsock_close(fd);
}

static void shutdown_more(void)
{
	int fd = connect_shutdown(F, 8);

	TRY("shutdown 3 (bad how)", pingsock_shutdown(fd, 3));
	TRY("shutdown -1 (bad how)", pingsock_shutdown(fd, -1));
	pingsock_close(fd);
	fd = conf_socket();
	TRY("unconnected: shutdown SHUT_RDWR",
	    pingsock_shutdown(fd, SHUT_RDWR));
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	TRY("recv", pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_ping("sendto 127.0.0.1", fd, "127.0.0.1", 9, 64);
	conf_poll("poll POLLIN", fd, POLLIN, CONF_WAIT_MS);	/* the reply */
	TRY("recv", pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	pingsock_close(fd);
}

/* 0.0.0.0 is this host: the bound address if any, else 127.0.0.1,
 * which getpeername() shows and the replies come from. */
static void this_host(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.7", 0);
	int fd = conf_socket();

	out("## connect 0.0.0.0 port 7, bound to 127.0.0.7");
	TRY("bind 127.0.0.7", pingsock_bind(fd, SA(&a), sizeof(a)));
	connect_to(F, fd, "0.0.0.0", 7, true);
	conf_name("getpeername", fd, true, PORT_EXACT);
	conf_psend("send", fd, 10, 64);
	conf_reply1("reply", fd, false);
	pingsock_close(fd);
	fd = conf_socket();
	TRY("bind 127.0.0.7", pingsock_bind(fd, SA(&a), sizeof(a)));
	conf_ping("sendto 0.0.0.0, bound to 127.0.0.7", fd, "0.0.0.0", 11, 64);
	conf_reply1("reply", fd, false);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("connect");
	disconnect(connect_default(F, "127.0.0.2", 6));
	keeps_bind();
	connect_peer(F);
	table();
	broadcast();
	shutdown_more();
	this_host();
	return 0;
}
