/* SPDX-License-Identifier: ISC */
/*
 * rawsys - a statically linked program that makes its ping socket with
 * raw system calls (syscall(SYS_socket, ...)), as Go and other runtimes
 * do: LD_PRELOAD cannot reach it, pingsock-run must
 * (tests/integration/run.sh).
 *
 *   rawsys 4|6 ADDRESS     one Echo Request, "reply" when answered
 *
 * Built with -static by the Makefile (never with the sanitizers).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in to4 = { .sin_family = AF_INET };
	unsigned char req[16] = { 8, 0, 0, 0, 0, 0, 0, 1 }, buf[256];
	int v6 = argc == 3 && strcmp(argv[1], "6") == 0, fd;
	struct pollfd p = { .events = POLLIN };
	long n;

	if (argc != 3 || (v6 ? inet_pton(AF_INET6, argv[2], &to6.sin6_addr)
			     : inet_pton(AF_INET, argv[2], &to4.sin_addr)) != 1) {
		fprintf(stderr, "usage: rawsys 4|6 ADDRESS\n");
		return 2;
	}
	if (v6)
		req[0] = 128;
	fd = (int)syscall(SYS_socket, v6 ? AF_INET6 : AF_INET, SOCK_DGRAM,
			  v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	if (fd < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	n = syscall(SYS_sendto, fd, req, sizeof(req), 0,
		    v6 ? (void *)&to6 : (void *)&to4,
		    v6 ? sizeof(to6) : sizeof(to4));
	if (n < 0) {
		printf("sendto: %s\n", strerror(errno));
		return 1;
	}
	p.fd = fd;
	if (poll(&p, 1, 2000) == 1 &&
	    syscall(SYS_recvfrom, fd, buf, sizeof(buf), 0, NULL, NULL) >= 8 &&
	    buf[0] == (v6 ? 129 : 0)) {
		printf("reply\n");
		return 0;
	}
	printf("no reply\n");
	return 1;
}
