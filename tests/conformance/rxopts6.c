/* SPDX-License-Identifier: ISC */
/*
 * rxopts6: the receive options of an IPv6 ping socket and the control
 * messages they give, alone and together, from lo and from the peer:
 * IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS, IPV6_RECVPKTINFO, the RFC 2292
 * ones, IPV6_FLOWINFO, SO_TIMESTAMP(NS), a short control buffer.
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"

/* One echo to dst (scope: interface index), its reply with room for ctl
 * bytes of control data. */
static void echo(const char *what, int fd, const char *dst, unsigned scope,
		 uint16_t seq, size_t ctl)
{
	struct sockaddr_in6 a = conf_sin6(dst, 0, scope);

	if (conf_ping6_to(L("%s: sendto %s", what, dst), fd, &a, seq, 64) > 0)
		conf_reply6(L("%s: reply", what), fd, 1000, 0, ctl, false);
}

static void one(const char *what, int name, uint16_t seq)
{
	int fd = conf_socket6();

	TRY(L("%s 1", what), conf_setint(fd, SOL_IPV6, name, 1));
	conf_getint(L("%s get", what), fd, SOL_IPV6, name, sizeof(int));
	echo(what, fd, "::1", 0, seq, 512);
	echo(what, fd, CONF6_PEER, 0, seq + 1, 512);
	TRY(L("%s 0", what), conf_setint(fd, SOL_IPV6, name, 0));
	echo(L("%s off", what), fd, "::1", 0, seq + 2, 512);
	pingsock_close(fd);
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF);
	int fd;

	conf_begin("rxopts6");

	out("## one at a time");
	one("IPV6_RECVHOPLIMIT", IPV6_RECVHOPLIMIT, 1);
	one("IPV6_RECVTCLASS", IPV6_RECVTCLASS, 4);
	one("IPV6_RECVPKTINFO", IPV6_RECVPKTINFO, 7);
	one("IPV6_2292HOPLIMIT", IPV6_2292HOPLIMIT, 10);
	one("IPV6_2292PKTINFO", IPV6_2292PKTINFO, 13);
	one("IPV6_FLOWINFO", IPV6_FLOWINFO, 16);
	one("IPV6_RECVORIGDSTADDR", IPV6_RECVORIGDSTADDR, 40);

	out("## all of them, and the socket-level stamps");
	fd = conf_socket6();
	TRY("IPV6_RECVHOPLIMIT 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 1));
	TRY("IPV6_RECVTCLASS 1", conf_setint(fd, SOL_IPV6, IPV6_RECVTCLASS, 1));
	TRY("IPV6_RECVPKTINFO 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1));
	TRY("SO_TIMESTAMP 1", conf_setint(fd, SOL_SOCKET, SO_TIMESTAMP, 1));
	echo("all", fd, "::1", 0, 20, 512);
	echo("all", fd, CONF6_LOCAL, 0, 21, 512);
	echo("all", fd, CONF6_PEER, 0, 22, 512);
	echo("all", fd, CONF6_LL_PEER, veth0, 23, 512);
	echo("all", fd, CONF6_LL_LOCAL, veth0, 24, 512);
	TRY("SO_TIMESTAMPNS 1", conf_setint(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1));
	echo("all, SO_TIMESTAMPNS", fd, "::1", 0, 25, 512);
	out("## short control buffers");
	echo("control 40", fd, "::1", 0, 26, 40);
	echo("control 16", fd, "::1", 0, 27, 16);
	echo("no control buffer", fd, "::1", 0, 28, 0);
	pingsock_close(fd);

	out("## the traffic class of the request comes back");
	fd = conf_socket6();
	TRY("IPV6_RECVTCLASS 1", conf_setint(fd, SOL_IPV6, IPV6_RECVTCLASS, 1));
	TRY("IPV6_TCLASS 0x28", conf_setint(fd, SOL_IPV6, IPV6_TCLASS, 0x28));
	echo("tclass 0x28", fd, "::1", 0, 30, 512);
	echo("tclass 0x28", fd, CONF6_PEER, 0, 31, 512);
	TRY("IPV6_TCLASS 0xff", conf_setint(fd, SOL_IPV6, IPV6_TCLASS, 0xff));
	echo("tclass 0xff", fd, "::1", 0, 32, 512);
	TRY("IPV6_TCLASS -1 (default)",
	    conf_setint(fd, SOL_IPV6, IPV6_TCLASS, -1));
	echo("tclass default", fd, "::1", 0, 33, 512);
	pingsock_close(fd);

	out("## the hop limit of the request does not (the replier's own)");
	fd = conf_socket6();
	TRY("IPV6_RECVHOPLIMIT 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 1));
	TRY("IPV6_UNICAST_HOPS 5",
	    conf_setint(fd, SOL_IPV6, IPV6_UNICAST_HOPS, 5));
	echo("hops 5", fd, CONF6_PEER, 0, 40, 512);
	pingsock_close(fd);
	return 0;
}
