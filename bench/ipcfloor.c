/* SPDX-License-Identifier: ISC */
/*
 * ipcfloor - the least one synchronous request to another process costs
 * on this machine: a message on a SOCK_SEQPACKET socketpair (what the
 * library's control connection is) and its answer, between a parent and
 * a forked child, with nothing else done on either side.
 *
 * A relayed send is synchronous (design.md: sendto returns the kernel's
 * errors at once), so every relayed echo pays at least one such round
 * trip on top of what the kernel's own echo costs: bench/run turns the
 * figure into the relay's ceiling, kernel_us / (kernel_us + round trip).
 *
 * Two ways, each the best of five rounds of COUNT round trips:
 *   block_us  both sides sleep in recv() (a wake-up each way);
 *   spin_us   both sides poll with MSG_DONTWAIT (no sleep at all: the
 *             lowest any design that waits for an answer can reach, and
 *             one that burns a core on each side).
 * Prints key=value lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"

#define ROUNDS 5
#define MSG_LEN 48	/* about a WIRE_SEND of a 16-byte ping */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* One message in, at once or spinning; 0 at the other end's close. */
static ssize_t take(int fd, char *buf, int spin)
{
	ssize_t n;

	do
		n = recv(fd, buf, MSG_LEN, spin ? MSG_DONTWAIT : 0);
	while (n < 0 && (errno == EINTR || (spin && errno == EAGAIN)));
	if (n < 0)
		die("recv");
	return n;
}

/* The child: answers every message with itself until the parent closes. */
static void echo_side(int fd, int spin)
{
	char buf[MSG_LEN];
	ssize_t n;

	while ((n = take(fd, buf, spin)) > 0)
		if (send(fd, buf, (size_t)n, 0) != n)
			die("send");
	_exit(0);
}

/* One round of count round trips: nanoseconds each. */
static double one_round(long count, int spin)
{
	char buf[MSG_LEN] = { 0 };
	int sv[2], st;
	int64_t t0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(sv[0]);
		echo_side(sv[1], spin);
	}
	close(sv[1]);
	t0 = now_ns();
	for (long i = 0; i < count; i++) {
		if (send(sv[0], buf, sizeof(buf), 0) != sizeof(buf))
			die("send");
		if (take(sv[0], buf, spin) != sizeof(buf))
			die("short answer");
	}
	t0 = now_ns() - t0;
	close(sv[0]);
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	return (double)t0 / (double)count;
}

static double best_of(long count, int spin)
{
	double best = one_round(count, spin);

	for (int r = 1; r < ROUNDS; r++) {
		double ns = one_round(count, spin);

		if (ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	long count = 20000;

	if (argc > 2 || (argc == 2 && (count = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: ipcfloor [COUNT]\n");
		return 2;
	}
	printf("count=%ld\n", count);
	printf("block_us=%.2f\n", best_of(count, 0) / 1000.0);
	printf("spin_us=%.2f\n", best_of(count, 1) / 1000.0);
	return 0;
}
