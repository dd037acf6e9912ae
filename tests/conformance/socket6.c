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

#define OPT(level, name) { level, name, #name }

/* The options' defaults on a fresh socket. */
static const struct conf_opt defaults[] = {
	OPT(SOL_IPV6, IPV6_V6ONLY),
	OPT(SOL_SOCKET, SO_REUSEADDR),
	OPT(SOL_SOCKET, SO_REUSEPORT),
	OPT(SOL_SOCKET, SO_BROADCAST),
	OPT(SOL_SOCKET, SO_ERROR),
	OPT(SOL_SOCKET, SO_RCVBUF),
	OPT(SOL_SOCKET, SO_SNDBUF),
	OPT(SOL_SOCKET, SO_BINDTOIFINDEX),
	OPT(SOL_SOCKET, SO_TIMESTAMP),
	OPT(SOL_IPV6, IPV6_UNICAST_HOPS),
	OPT(SOL_IPV6, IPV6_MULTICAST_HOPS),
	OPT(SOL_IPV6, IPV6_MULTICAST_LOOP),
	OPT(SOL_IPV6, IPV6_MULTICAST_IF),
	OPT(SOL_IPV6, IPV6_UNICAST_IF),
	OPT(SOL_IPV6, IPV6_MTU_DISCOVER),
	OPT(SOL_IPV6, IPV6_MTU),
	OPT(SOL_IPV6, IPV6_RECVERR),
	OPT(SOL_IPV6, IPV6_RECVHOPLIMIT),
	OPT(SOL_IPV6, IPV6_RECVTCLASS),
	OPT(SOL_IPV6, IPV6_RECVPKTINFO),
	OPT(SOL_IPV6, IPV6_RECVPATHMTU),
	OPT(SOL_IPV6, IPV6_TCLASS),
	OPT(SOL_IPV6, IPV6_DONTFRAG),
	OPT(SOL_IPV6, IPV6_AUTOFLOWLABEL),
	OPT(SOL_IPV6, IPV6_FLOWINFO_SEND),
	OPT(SOL_IPV6, IPV6_ADDRFORM),
};

static void names_defaults(int fd)
{
	TRY("setsockopt SO_PROTOCOL (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_PROTOCOL, 0));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	conf_name6("getpeername", fd, true, PORT_EXACT);
	out("## defaults");
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		conf_getint(defaults[i].label, fd, defaults[i].level,
			    defaults[i].name, sizeof(int));
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
