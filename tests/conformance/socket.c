/* SPDX-License-Identifier: ISC */
/*
 * socket: creating ping sockets (types, protocols, flags) and what the
 * new socket says about itself.
 */
#include "conf.h"
#include "steps/socket.h"

static const struct socket_kind kinds[] = {
	{ "AF_INET SOCK_RAW IPPROTO_ICMP", AF_INET, SOCK_RAW, IPPROTO_ICMP },
	{ "AF_INET SOCK_STREAM IPPROTO_ICMP", AF_INET, SOCK_STREAM,
	  IPPROTO_ICMP },
	{ "AF_INET SOCK_SEQPACKET IPPROTO_ICMP", AF_INET, SOCK_SEQPACKET,
	  IPPROTO_ICMP },
	{ "AF_INET SOCK_DGRAM IPPROTO_ICMPV6", AF_INET, SOCK_DGRAM,
	  IPPROTO_ICMPV6 },
	{ "AF_INET6 SOCK_DGRAM IPPROTO_ICMP", AF_INET6, SOCK_DGRAM,
	  IPPROTO_ICMP },
	{ "AF_INET SOCK_DGRAM 255", AF_INET, SOCK_DGRAM, 255 },
	{ "AF_INET 99 IPPROTO_ICMP (bad type)", AF_INET, 99, IPPROTO_ICMP },
};

/* SO_TYPE with every optlen; the read-only options. */
static void optlens(int fd)
{
	static const int lens[] = { 8, 2, 0, -1 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		conf_getint(L("SO_TYPE optlen %d", lens[i]), fd, SOL_SOCKET,
			    SO_TYPE, (socklen_t)lens[i]);
	TRY("setsockopt SO_TYPE (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_TYPE, SOCK_RAW));
	TRY("setsockopt SO_PROTOCOL (read-only)",
	    conf_setint(fd, SOL_SOCKET, SO_PROTOCOL, 0));
}

static void nonblock_fcntl(void)
{
	int fd;

	out("## O_NONBLOCK set and cleared with fcntl");
	fd = conf_socket();
	TRY("F_SETFL O_NONBLOCK",
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("recv (nothing queued, O_NONBLOCK)",
	    pingsock_recv(fd, conf_rbuf, 100, 0));
	TRY("F_SETFL 0", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	out("O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("F_SETFD FD_CLOEXEC", fcntl(fd, F_SETFD, FD_CLOEXEC));
	out("FD_CLOEXEC now %d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	pingsock_close(fd);
}

static void many(void)
{
	int fds[16], n = 0;

	out("## many at once");
	for (int i = 0; i < 16; i++) {
		fds[i] = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		if (fds[i] >= 0)
			n++;
	}
	out("16 sockets: %d opened", n);
	for (int i = 0; i < 16; i++)
		if (fds[i] >= 0)
			pingsock_close(fds[i]);
}

int main(void)
{
	int fd;

	conf_begin("socket");
	fd = socket_itself(&conf_v4);
	optlens(fd);
	socket_close_twice(fd);
	socket_flags(&conf_v4);
	nonblock_fcntl();
	socket_kinds(kinds, sizeof(kinds) / sizeof(kinds[0]));
	many();
	return 0;
}
