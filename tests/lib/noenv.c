/* SPDX-License-Identifier: ISC */
/*
 * noenv - a program that clears its environment (environ = NULL, as some
 * daemons and sandboxes do) and only then makes its ping socket, for
 * tests/integration/shim_load.sh: through the shim it must still get
 * what its command line asked for (PINGSOCK_SOCKET, PINGSOCK_RAW=echo),
 * which the shim read when it was loaded (lib/env.h).
 *
 *   noenv dgram|raw IPV4-ADDRESS
 *
 * One Echo Request on a SOCK_DGRAM or SOCK_RAW ICMP socket; prints
 * "reply" when its Echo Reply comes within 2 s, else what failed.
 * Linked with libpingsock.a by the Makefile's tests/lib rule, but calls
 * nothing of it: every socket call is the C library's (or the shim's).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inetsum.h"

extern char **environ;

/* The Echo Reply in what was received: after the IP header on a raw
 * socket, at once on a datagram socket. */
static int is_reply(const uint8_t *b, ssize_t n, int raw)
{
	size_t off = raw && n > 0 ? (size_t)(b[0] & 0x0f) * 4 : 0;

	return n >= (ssize_t)off + 8 && b[off] == ICMP_ECHOREPLY;
}

int main(int argc, char **argv)
{
	uint8_t req[16] = { ICMP_ECHO, 0, 0, 0, 0x12, 0x34, 0, 1 }, buf[256];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct pollfd pfd = { .events = POLLIN };
	int raw, sum;
	ssize_t n;

	if (argc != 3 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: noenv dgram|raw IPV4-ADDRESS\n");
		return 2;
	}
	raw = strcmp(argv[1], "raw") == 0;
	environ = NULL;
	pfd.fd = socket(AF_INET, raw ? SOCK_RAW : SOCK_DGRAM, IPPROTO_ICMP);
	if (pfd.fd < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	sum = inet_sum(req, sizeof(req));
	req[2] = (uint8_t)(sum >> 8);
	req[3] = (uint8_t)sum;
	if (sendto(pfd.fd, req, sizeof(req), 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0) {
		printf("sendto: %s\n", strerror(errno));
		return 1;
	}
	while (poll(&pfd, 1, 2000) == 1) {
		n = recv(pfd.fd, buf, sizeof(buf), 0);
		if (is_reply(buf, n, raw)) {
			printf("reply\n");
			return 0;
		}
	}
	printf("no reply\n");
	return 1;
}
