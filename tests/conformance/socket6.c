/* SPDX-License-Identifier: ISC */
/*
 * socket6: creating IPv6 ping sockets (types, protocols, flags) and what
 * the new socket says about itself: its kind and the defaults of its
 * options.
 */
#include "conf.h"
#include "steps/socket.h"

static const struct socket_kind kinds[] = {
	{ "AF_INET6 SOCK_RAW IPPROTO_ICMPV6", AF_INET6, SOCK_RAW,
	  IPPROTO_ICMPV6 },
	{ "AF_INET6 SOCK_STREAM IPPROTO_ICMPV6", AF_INET6, SOCK_STREAM,
	  IPPROTO_ICMPV6 },
	{ "AF_INET6 SOCK_SEQPACKET IPPROTO_ICMPV6", AF_INET6, SOCK_SEQPACKET,
	  IPPROTO_ICMPV6 },
	{ "AF_INET6 SOCK_DGRAM IPPROTO_ICMP", AF_INET6, SOCK_DGRAM,
	  IPPROTO_ICMP },
	{ "AF_INET SOCK_DGRAM IPPROTO_ICMPV6", AF_INET, SOCK_DGRAM,
	  IPPROTO_ICMPV6 },
	{ "AF_INET6 SOCK_DGRAM 255", AF_INET6, SOCK_DGRAM, 255 },
	{ "AF_INET6 99 IPPROTO_ICMPV6 (bad type)", AF_INET6, 99,
	  IPPROTO_ICMPV6 },
};

/* The options' defaults on a fresh socket. */
static const struct conf_opt defaults[] = {
	CONF_OPT(SOL_IPV6, IPV6_V6ONLY),
	CONF_OPT(SOL_SOCKET, SO_REUSEADDR),
	CONF_OPT(SOL_SOCKET, SO_REUSEPORT),
	CONF_OPT(SOL_SOCKET, SO_BROADCAST),
	CONF_OPT(SOL_SOCKET, SO_ERROR),
	CONF_OPT(SOL_SOCKET, SO_RCVBUF),
	CONF_OPT(SOL_SOCKET, SO_SNDBUF),
	CONF_OPT(SOL_SOCKET, SO_BINDTOIFINDEX),
	CONF_OPT(SOL_SOCKET, SO_TIMESTAMP),
	CONF_OPT(SOL_IPV6, IPV6_UNICAST_HOPS),
	CONF_OPT(SOL_IPV6, IPV6_MULTICAST_HOPS),
	CONF_OPT(SOL_IPV6, IPV6_MULTICAST_LOOP),
	CONF_OPT(SOL_IPV6, IPV6_MULTICAST_IF),
	CONF_OPT(SOL_IPV6, IPV6_UNICAST_IF),
	CONF_OPT(SOL_IPV6, IPV6_MTU_DISCOVER),
	CONF_OPT(SOL_IPV6, IPV6_MTU),
	CONF_OPT(SOL_IPV6, IPV6_RECVERR),
	CONF_OPT(SOL_IPV6, IPV6_RECVHOPLIMIT),
	CONF_OPT(SOL_IPV6, IPV6_RECVTCLASS),
	CONF_OPT(SOL_IPV6, IPV6_RECVPKTINFO),
	CONF_OPT(SOL_IPV6, IPV6_RECVPATHMTU),
	CONF_OPT(SOL_IPV6, IPV6_TCLASS),
	CONF_OPT(SOL_IPV6, IPV6_DONTFRAG),
	CONF_OPT(SOL_IPV6, IPV6_AUTOFLOWLABEL),
	CONF_OPT(SOL_IPV6, IPV6_FLOWINFO_SEND),
	CONF_OPT(SOL_IPV6, IPV6_ADDRFORM),
};

static void names_defaults(int fd)
{
	TRY("setsockopt SO_PROTOCOL (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_PROTOCOL, 0));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	out("## defaults");
	conf_getint_each(fd, defaults, sizeof(defaults) / sizeof(defaults[0]));
}

static void nonblock(void)
{
	int fd;

	out("## O_NONBLOCK");
	fd = conf_socket6_type(SOCK_DGRAM | SOCK_NONBLOCK);
	TRY("recv (nothing queued, SOCK_NONBLOCK)",
	    pingsock_recv(fd, conf_rbuf, 100, 0));
	TRY("F_SETFL 0", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	pingsock_close(fd);
}

static void many(void)
{
	int fds[16], n4 = 0, n6 = 0;

	out("## many at once, both families");
	for (int i = 0; i < 16; i++) {
		fds[i] = i & 1 ? pingsock_socket(AF_INET, SOCK_DGRAM,
						 IPPROTO_ICMP)
			       : pingsock_socket(AF_INET6, SOCK_DGRAM,
						 IPPROTO_ICMPV6);
		if (fds[i] >= 0 && (i & 1))
			n4++;
		else if (fds[i] >= 0)
			n6++;
	}
	out("8 IPv6 and 8 IPv4 sockets: %d and %d opened", n6, n4);
	for (int i = 0; i < 16; i++)
		if (fds[i] >= 0) {
			int d = 0;
			socklen_t l = sizeof(d);

			pingsock_getsockopt(fds[i], SOL_SOCKET, SO_DOMAIN, &d,
					    &l);
			if (d != (i & 1 ? AF_INET : AF_INET6))
				out("socket %d: SO_DOMAIN %d", i, d);
			pingsock_close(fds[i]);
		}
}

int main(void)
{
	int fd;

	conf_begin("socket6");
	fd = socket_itself(&conf_v6);
	names_defaults(fd);
	socket_close_twice(fd);
	socket_flags(&conf_v6);
	nonblock();
	socket_kinds(kinds, sizeof(kinds) / sizeof(kinds[0]));
	many();
	return 0;
}
