/*
 * socket: creating ping sockets (types, protocols, flags) and what the
 * new socket says about itself.
 */
#include "conf.h"

static void flags_of(const char *what, int type)
{
	int fd, fl, fdfl, e;

	fd = pingsock_socket(AF_INET, type, IPPROTO_ICMP);
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

int main(void)
{
	int fd;

	conf_begin("socket");

	out("## the socket itself");
	fd = TRYQ("socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)",
		  pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP));
	if (fd < 0) {
		fprintf(stderr, "%s\n", pingsock_why());
		return 2;
	}
	out("pingsock_backend: %s", pingsock_backend(fd) ? "a pingsock socket"
							 : "NONE");
	conf_getint("SO_TYPE", fd, SOL_SOCKET, SO_TYPE, sizeof(int));
	conf_getint("SO_PROTOCOL", fd, SOL_SOCKET, SO_PROTOCOL, sizeof(int));
	conf_getint("SO_DOMAIN", fd, SOL_SOCKET, SO_DOMAIN, sizeof(int));
	conf_getint("SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN,
		    sizeof(int));
	conf_getint("SO_TYPE optlen 8", fd, SOL_SOCKET, SO_TYPE, 8);
	conf_getint("SO_TYPE optlen 2", fd, SOL_SOCKET, SO_TYPE, 2);
	conf_getint("SO_TYPE optlen 0", fd, SOL_SOCKET, SO_TYPE, 0);
	conf_getint("SO_TYPE optlen -1", fd, SOL_SOCKET, SO_TYPE,
		    (socklen_t)-1);
	TRY("setsockopt SO_TYPE (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_TYPE, SOCK_RAW));
	TRY("setsockopt SO_PROTOCOL (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_PROTOCOL, 0));
	TRY("close", pingsock_close(fd));
	TRY("close again", pingsock_close(fd));

	out("## flags");
	flags_of("SOCK_DGRAM", SOCK_DGRAM);
	flags_of("SOCK_DGRAM|SOCK_NONBLOCK", SOCK_DGRAM | SOCK_NONBLOCK);
	flags_of("SOCK_DGRAM|SOCK_CLOEXEC", SOCK_DGRAM | SOCK_CLOEXEC);
	flags_of("SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC",
		 SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	flags_of("SOCK_DGRAM|0x10 (bad flag)", SOCK_DGRAM | 0x10);

	out("## O_NONBLOCK set and cleared with fcntl");
	fd = conf_socket();
	TRY("F_SETFL O_NONBLOCK", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("recv (nothing queued, O_NONBLOCK)",
	    pingsock_recv(fd, conf_rbuf, 100, 0));
	TRY("F_SETFL 0", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("F_SETFD FD_CLOEXEC", fcntl(fd, F_SETFD, FD_CLOEXEC));
	out("FD_CLOEXEC now %d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	pingsock_close(fd);

	out("## other kinds");
	try_socket("AF_INET SOCK_RAW IPPROTO_ICMP", AF_INET, SOCK_RAW,
		   IPPROTO_ICMP);
	try_socket("AF_INET SOCK_STREAM IPPROTO_ICMP", AF_INET, SOCK_STREAM,
		   IPPROTO_ICMP);
	try_socket("AF_INET SOCK_SEQPACKET IPPROTO_ICMP", AF_INET,
		   SOCK_SEQPACKET, IPPROTO_ICMP);
	try_socket("AF_INET SOCK_DGRAM IPPROTO_ICMPV6", AF_INET, SOCK_DGRAM,
		   IPPROTO_ICMPV6);
	try_socket("AF_INET6 SOCK_DGRAM IPPROTO_ICMP", AF_INET6, SOCK_DGRAM,
		   IPPROTO_ICMP);
	try_socket("AF_INET SOCK_DGRAM 255", AF_INET, SOCK_DGRAM, 255);
	try_socket("AF_INET 99 IPPROTO_ICMP (bad type)", AF_INET, 99,
		   IPPROTO_ICMP);

	out("## many at once");
	{
		int fds[16], n = 0;

		for (int i = 0; i < 16; i++) {
			fds[i] = pingsock_socket(AF_INET, SOCK_DGRAM,
						 IPPROTO_ICMP);
			if (fds[i] >= 0)
				n++;
		}
		out("16 sockets: %d opened", n);
		for (int i = 0; i < 16; i++)
			if (fds[i] >= 0)
				pingsock_close(fds[i]);
	}
	return 0;
}
