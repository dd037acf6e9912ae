/* SPDX-License-Identifier: ISC */
/*
 * shimcost - what libpingsock-preload.so costs the descriptors it does not
 * serve.  Each loop makes one kind of libc call the shim interposes on a
 * descriptor that is not a ping socket (a pipe, a datagram socketpair, an
 * eventfd in an epoll set), and prints key=value lines: nanoseconds per
 * iteration, the best of five rounds.  bench/run runs it once without and
 * once with the shim preloaded and prints the ratios.
 *
 * Plain libc only: the shim, when preloaded, is what is measured.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include "clock.h"

static int pipefd[2], dgram[2], efd, epfd;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* One iteration of each load; any failure ends the run. */
static void pipe_rw(void)
{
	char c = 'x';

	if (write(pipefd[1], &c, 1) != 1 || read(pipefd[0], &c, 1) != 1)
		die("pipe");
}

static void dgram_sendrecv(void)
{
	char b[64] = { 0 };

	if (send(dgram[0], b, sizeof(b), 0) != sizeof(b) ||
	    recv(dgram[1], b, sizeof(b), 0) != sizeof(b))
		die("socketpair");
}

static void poll_ready(void)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };

	if (poll(&p, 1, 0) != 1)
		die("poll");
}

static void select_ready(void)
{
	fd_set r;
	struct timeval tv = { 0, 0 };

	FD_ZERO(&r);
	FD_SET(efd, &r);
	if (select(efd + 1, &r, NULL, NULL, &tv) != 1)
		die("select");
}

static void epoll_ready(void)
{
	struct epoll_event ev;

	if (epoll_wait(epfd, &ev, 1, 0) != 1)
		die("epoll_wait");
}

static void fcntl_getfl(void)
{
	if (fcntl(pipefd[0], F_GETFL) < 0)
		die("fcntl");
}

static void dup_close(void)
{
	int fd = dup(pipefd[0]);

	if (fd < 0 || close(fd) != 0)
		die("dup/close");
}

static const struct load {
	const char *name;
	void (*fn)(void);
} loads[] = {
	{ "pipe_write_read", pipe_rw },
	{ "dgram_send_recv", dgram_sendrecv },
	{ "poll_1fd", poll_ready },
	{ "select_1fd", select_ready },
	{ "epoll_wait_1fd", epoll_ready },
	{ "fcntl_getfl", fcntl_getfl },
	{ "dup_close", dup_close },
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t one = 1;

	if (n <= 0)
		n = 200000;
	if (pipe(pipefd) || socketpair(AF_UNIX, SOCK_DGRAM, 0, dgram))
		die("pipe/socketpair");
	efd = eventfd(0, 0);
	epfd = epoll_create1(0);
	if (efd < 0 || epfd < 0 || write(efd, &one, sizeof(one)) != 8 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev))
		die("eventfd/epoll");
	for (size_t l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
		double best = 0;

		for (int round = 0; round < 5; round++) {
			int64_t t0 = now_ns();

			for (long i = 0; i < n; i++)
				loads[l].fn();
			double ns = (double)(now_ns() - t0) / (double)n;

			if (round == 0 || ns < best)
				best = ns;
		}
		printf("%s=%.1f\n", loads[l].name, best);
	}
	return 0;
}
