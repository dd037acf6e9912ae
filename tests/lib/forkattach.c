/* SPDX-License-Identifier: ISC */
/*
 * forkattach - many processes make their first call on one inherited
 * socket at once, for tests/integration/threads.sh.
 *
 *   forkattach CHILDREN [held]
 *   forkattach held
 *
 * The parent opens a socket and forks CHILDREN children; they wait on a
 * pipe, and when the parent closes it each makes one call on the socket
 * (a getsockopt of IP_TTL), which attaches it to the child's own
 * connection with a proof written on the socket's descriptor.  Prints
 *
 *   children=N failed=N
 *
 * each failure also said on stderr.  With the kernel's socket none fails.
 * With "held" after CHILDREN the parent keeps the byte the library locks
 * while it attaches (below), so the children attach without the lock,
 * all at once.
 *
 * held: the parent keeps the byte the library locks while it attaches
 * (relay.c: ATTACH_LOCK_AT), as a holder of the socket may; its one
 * child makes its first call in one thread while another thread forks
 * 50 ms later.  The call waits for the lock (a while, not for ever), and
 * the fork must not wait with it.  Prints
 *
 *   call=ok|failed fork_ms=N
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
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

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *forker(void *arg)
{
	long *ms = arg, t0;
	pid_t pid;

	usleep(50000);
	t0 = now_ms();
	pid = fork();
	if (pid == 0)
		_exit(0);
	*ms = now_ms() - t0;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return NULL;
}

/* The child of "held": the call in this thread, the fork in another. */
static int held_child(int fd)
{
	int ttl = 0, rc;
	socklen_t len = sizeof(ttl);
	long fork_ms = -1;
	pthread_t th;

	if (pthread_create(&th, NULL, forker, &fork_ms))
		return 1;
	rc = pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len);
	pthread_join(th, NULL);
	printf("call=%s fork_ms=%ld\n", rc == 0 ? "ok" : "failed", fork_ms);
	fflush(stdout);	/* the caller leaves by _exit() */
	return 0;
}

/* Keep the byte the library locks on fd while a process attaches it. */
static int hold(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0x7ffffffe, .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl);
}

static int held(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), st = 0;
	pid_t pid;

	if (fd < 0 || hold(fd)) {
		perror("forkattach: socket or lock");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(held_child(fd));
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
		       WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	int n = argc >= 2 ? atoi(argv[1]) : 0, fd, go[2], failed = 0;
	bool lock = argc == 3 && strcmp(argv[2], "held") == 0;

	if (argc == 2 && strcmp(argv[1], "held") == 0)
		return held();

	if (n < 1 || n > MAX_CHILDREN || (argc == 3 && !lock) || argc > 3) {
		fprintf(stderr,
			"usage: forkattach CHILDREN (1..%d) [held] | held\n",
			MAX_CHILDREN);
		return 2;
	}
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (fd < 0 || pipe(go) || (lock && hold(fd))) {
		perror("forkattach: socket, pipe or lock");
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
