/*
 * socket6: creating IPv6 ping sockets (types, protocols, flags) and what
 * the new socket says about itself: its kind and the defaults of its
 * options.
 */
#include "conf.h"

static void flags_of(const char *what, int type)
{
	int fd, fl, fdfl, e;

	fd = pingsock_socket(AF_INET6, type, IPPROTO_ICMPV6);
	e = errno;
	if (fd < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return;
	}
	fl = fcntl(fd, F_GETFL);
	fdfl = fcntl(fd, F_GETFD);
	out("%s: ok O_NONBLOCK=%d FD_CLOEXEC=%d O_RDWR=%d", what,
	    !!(fl & O_NONBLOCK), !!(fdfl & FD_CLOEXEC),
	    (fl & O_ACCMODE) == O_RDWR);
	TRY(L("%s: close", what), pingsock_close(fd));
}

static void try_socket(const char *what, int domain, int type, int proto)
{
	int fd = TRYQ(what, pingsock_socket(domain, type, proto));

	if (fd >= 0)
		pingsock_close(fd);
}

static void dflt(const char *what, int fd, int level, int name)
{
	conf_getint(what, fd, level, name, sizeof(int));
}

int main(void)
{
	int fd;

	conf_begin("socket6");

	out("## the socket itself");
	fd = TRYQ("socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6)",
		  pingsock_socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6));
	if (fd < 0) {
		fprintf(stderr, "%s\n", pingsock_why());
		return 2;
	}
	out("pingsock_backend: %s", pingsock_backend(fd) ? "a pingsock socket"
							 : "NONE");
	dflt("SO_TYPE", fd, SOL_SOCKET, SO_TYPE);
	dflt("SO_PROTOCOL", fd, SOL_SOCKET, SO_PROTOCOL);
	dflt("SO_DOMAIN", fd, SOL_SOCKET, SO_DOMAIN);
	dflt("SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	TRY("setsockopt SO_PROTOCOL (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_PROTOCOL, 0));
	conf_name6("getsockname", fd, false, PORT_EXACT);
	conf_name6("getpeername", fd, true, PORT_EXACT);

	out("## defaults");
	dflt("IPV6_V6ONLY", fd, SOL_IPV6, IPV6_V6ONLY);
	dflt("SO_REUSEADDR", fd, SOL_SOCKET, SO_REUSEADDR);
	dflt("SO_REUSEPORT", fd, SOL_SOCKET, SO_REUSEPORT);
	dflt("SO_BROADCAST", fd, SOL_SOCKET, SO_BROADCAST);
	dflt("SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	dflt("SO_RCVBUF", fd, SOL_SOCKET, SO_RCVBUF);
	dflt("SO_SNDBUF", fd, SOL_SOCKET, SO_SNDBUF);
	dflt("SO_BINDTOIFINDEX", fd, SOL_SOCKET, SO_BINDTOIFINDEX);
	dflt("SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP);
	dflt("IPV6_UNICAST_HOPS", fd, SOL_IPV6, IPV6_UNICAST_HOPS);
	dflt("IPV6_MULTICAST_HOPS", fd, SOL_IPV6, IPV6_MULTICAST_HOPS);
	dflt("IPV6_MULTICAST_LOOP", fd, SOL_IPV6, IPV6_MULTICAST_LOOP);
	dflt("IPV6_MULTICAST_IF", fd, SOL_IPV6, IPV6_MULTICAST_IF);
	dflt("IPV6_UNICAST_IF", fd, SOL_IPV6, IPV6_UNICAST_IF);
	dflt("IPV6_MTU_DISCOVER", fd, SOL_IPV6, IPV6_MTU_DISCOVER);
	dflt("IPV6_MTU", fd, SOL_IPV6, IPV6_MTU);
	dflt("IPV6_RECVERR", fd, SOL_IPV6, IPV6_RECVERR);
	dflt("IPV6_RECVHOPLIMIT", fd, SOL_IPV6, IPV6_RECVHOPLIMIT);
	dflt("IPV6_RECVTCLASS", fd, SOL_IPV6, IPV6_RECVTCLASS);
	dflt("IPV6_RECVPKTINFO", fd, SOL_IPV6, IPV6_RECVPKTINFO);
	dflt("IPV6_RECVPATHMTU", fd, SOL_IPV6, IPV6_RECVPATHMTU);
	dflt("IPV6_TCLASS", fd, SOL_IPV6, IPV6_TCLASS);
	dflt("IPV6_DONTFRAG", fd, SOL_IPV6, IPV6_DONTFRAG);
	dflt("IPV6_AUTOFLOWLABEL", fd, SOL_IPV6, IPV6_AUTOFLOWLABEL);
	dflt("IPV6_FLOWINFO_SEND", fd, SOL_IPV6, IPV6_FLOWINFO_SEND);
	dflt("IPV6_ADDRFORM", fd, SOL_IPV6, IPV6_ADDRFORM);
	TRY("close", pingsock_close(fd));
	TRY("close again", pingsock_close(fd));

	out("## flags");
	flags_of("SOCK_DGRAM", SOCK_DGRAM);
	flags_of("SOCK_DGRAM|SOCK_NONBLOCK", SOCK_DGRAM | SOCK_NONBLOCK);
	flags_of("SOCK_DGRAM|SOCK_CLOEXEC", SOCK_DGRAM | SOCK_CLOEXEC);
	flags_of("SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC",
		 SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	flags_of("SOCK_DGRAM|0x10 (bad flag)", SOCK_DGRAM | 0x10);

	out("## O_NONBLOCK");
	fd = conf_socket6_type(SOCK_DGRAM | SOCK_NONBLOCK);
	TRY("recv (nothing queued, SOCK_NONBLOCK)",
	    pingsock_recv(fd, conf_rbuf, 100, 0));
	TRY("F_SETFL 0", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	pingsock_close(fd);

	out("## other kinds");
	try_socket("AF_INET6 SOCK_RAW IPPROTO_ICMPV6", AF_INET6, SOCK_RAW,
		   IPPROTO_ICMPV6);
	try_socket("AF_INET6 SOCK_STREAM IPPROTO_ICMPV6", AF_INET6,
		   SOCK_STREAM, IPPROTO_ICMPV6);
	try_socket("AF_INET6 SOCK_SEQPACKET IPPROTO_ICMPV6", AF_INET6,
		   SOCK_SEQPACKET, IPPROTO_ICMPV6);
	try_socket("AF_INET6 SOCK_DGRAM IPPROTO_ICMP", AF_INET6, SOCK_DGRAM,
		   IPPROTO_ICMP);
	try_socket("AF_INET SOCK_DGRAM IPPROTO_ICMPV6", AF_INET, SOCK_DGRAM,
		   IPPROTO_ICMPV6);
	try_socket("AF_INET6 SOCK_DGRAM 255", AF_INET6, SOCK_DGRAM, 255);
	try_socket("AF_INET6 99 IPPROTO_ICMPV6 (bad type)", AF_INET6, 99,
		   IPPROTO_ICMPV6);

	out("## many at once, both families");
	{
		int fds[16], n4 = 0, n6 = 0;

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

				pingsock_getsockopt(fds[i], SOL_SOCKET,
						    SO_DOMAIN, &d, &l);
				if (d != (i & 1 ? AF_INET : AF_INET6))
					out("socket %d: SO_DOMAIN %d", i, d);
				pingsock_close(fds[i]);
			}
	}
	return 0;
}
