/* SPDX-License-Identifier: ISC */
/*
 * recv6: the IPv6 reply as returned (type 129, the sockaddr_in6 of its
 * source), short name and data buffers, PEEK and TRUNC, waiting
 * (nonblocking, SO_RCVTIMEO), poll readiness.
 */
// needs: peer (fe80::2 on the peer's veth1, for a scoped source)
#include "conf.h"
#include "steps/recv.h"

static void one_recvfrom(const char *what, int fd, socklen_t nl0)
{
	uint8_t name[128];
	socklen_t nl = nl0;
	long r;

	memset(name, 0xaa, sizeof(name));
	r = TRY(what, pingsock_recvfrom(fd, conf_rbuf, 1000, 0, SA(name),
					&nl));
	out("  addrlen now %u: %s", (unsigned)nl,
	    conf_sa6(name, nl0, nl, PORT_EXACT));
	out("  byte past the room untouched: %s",
	    name[nl0] == 0xaa ? "yes" : "no");
	if (r > 0)
		conf_icmp6("  data", fd, conf_rbuf, (size_t)r, (size_t)r,
			   &in6addr_loopback, false);
}

/* recvfrom and the room for the name (sequences 2 to 6). */
static void recvfrom_room(int fd)
{
	static const struct {
		const char *what;
		socklen_t room;
	} rows[] = {
		{ "recvfrom, addrlen 28", 28 },
		{ "recvfrom, addrlen 16 (a sockaddr_in's room)", 16 },
		{ "recvfrom, addrlen 8", 8 },
		{ "recvfrom, addrlen 0", 0 },
		{ "recvfrom, addrlen 100", 100 },
	};

	out("## recvfrom and the name's room");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		recv_queue(&conf_v6, fd, (uint16_t)(2 + i));
		one_recvfrom(rows[i].what, fd, rows[i].room);
	}
}

/* The reply's source as msg_name gives it (sequences 9 to 13). */
static void source_names(void)
{
	struct sockaddr_in6 a;
	int fd;

	out("## the sources' names");
	fd = conf_socket6();
	conf_ping6("sendto fd00:201::1 (own)", fd, CONF6_LOCAL, 9, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	conf_ping6("sendto fd00:201::2 (the peer)", fd, CONF6_PEER, 10, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	a = conf_sin6(CONF6_LL_PEER, 0, conf_ifidx(CONF6_IF));
	conf_ping6_to("sendto fe80::2%veth0 (the peer, link-local)", fd, &a,
		      11, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	a = conf_sin6(CONF6_LL_LOCAL, 0, conf_ifidx(CONF6_IF));
	conf_ping6_to("sendto fe80::1%veth0 (own, link-local)", fd, &a, 12,
		      64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	TRY("IPV6_FLOWINFO_SEND 1",
	    conf_setint(fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 1));
	conf_ping6("sendto ::1 with IPV6_FLOWINFO_SEND", fd, "::1", 13, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	pingsock_close(fd);
}

int main(void)
{
	static const struct recv_case c = { .f = &conf_v6 };
	int fd;

	conf_begin("recv6");
	fd = recv_reply(&c);
	recvfrom_room(fd);
	recv_noname(c.f, fd, 7);
	source_names();
	recv_two_pieces(c.f, 20);
	recv_short(c.f, 21);
	recv_peek(c.f, 26);
	recv_waiting(&c, 29);
	recv_blocking(c.f, "a blocking recv wakes up for a big reply", 30,
		      20000);
	return 0;
}
