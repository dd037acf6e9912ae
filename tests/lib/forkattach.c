/* SPDX-License-Identifier: ISC */
/*
 * forkattach - many processes make their first call on one inherited
 * socket at once, for tests/integration/threads.sh.
 *
 *   forkattach CHILDREN
 *
 * The parent opens a socket and forks CHILDREN children; they wait on a
 * pipe, and when the parent closes it each makes one call on the socket
 * (a getsockopt of IP_TTL), which attaches it to the child's own
 * connection with a proof written on the socket's descriptor.  Prints
 *
 *   children=N failed=N
 *
 * each failure also said on stderr.  With the kernel's socket none fails.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pingsock.h"

#define MAX_CHILDREN 1000

static void child(int fd, int go, int id)
{
	int ttl = 0;
	socklen_t len = sizeof(ttl);
	char c;

	/* The parent's close of the pipe lets every child go at once. */
	(void)read(go, &c, 1);
	if (pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len) ||
	    ttl < 1) {
		fprintf(stderr, "forkattach: child %d: getsockopt: %s\n", id,
			strerror(errno));
		_exit(1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0, fd, go[2], failed = 0;

	if (n < 1 || n > MAX_CHILDREN) {
		fprintf(stderr, "usage: forkattach CHILDREN (1..%d)\n",
			MAX_CHILDREN);
		return 2;
	}
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (fd < 0 || pipe(go)) {
		perror("forkattach: socket or pipe");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(go[1]);
			child(fd, go[0], i);
		}
		if (pid < 0) {
			perror("forkattach: fork");
			failed++;
		}
	}
	close(go[1]);
	for (int st; wait(&st) > 0;)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed++;
	printf("children=%d failed=%d\n", n, failed);
	return 0;
}
