/* SPDX-License-Identifier: ISC */
/*
 * parked - threads of one process do not wait on each other's calls
 * (issue 16, item 7), for tests/integration/threads.sh.
 *
 *   parked own|shared ADDR NTHREADS K INTERVAL_MS [PARKERS]
 *
 * Threads 0 to PARKERS - 1 (1 unless given) each send an echo on a
 * socket of their own, read the reply, and send a second one at once:
 * the daemon (min_interval = INTERVAL_MS) parks that send until the
 * interval is over.  Meanwhile each of the other threads makes K round
 * trips:
 *
 *   own     on a daemon socket of its own - a socket, an echo, its
 *           reply, a close (a fresh socket each time, since min_interval
 *           would park a socket's second send too);
 *   shared  on one socket all of them share, opened before thread 0's
 *           first send: a setsockopt and a getsockopt (IP_TTL), so that
 *           they all attach it at once, each to a connection that did
 *           not open it.
 *
 * The first of them also forks a child that makes a round trip on a
 * socket of its own.  Prints
 *
 *   parked_ms=N        how long the parked sends took (the shortest)
 *   round_trips=N      round trips the other threads completed
 *   during_park=N      of those, completed while every parked send was
 *                      still waiting
 *   errors=N           calls that failed (each said on stderr)
 *
 * With one lock around every call of the process, the other threads'
 * calls wait behind the parked send and during_park is 0; so they do
 * when the parked sends hold every connection the library may have.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pingsock.h"

#define MAX_THREADS 64
#define REPLY_WAIT_MS 20000

static struct sockaddr_in dst = { .sin_family = AF_INET };
static int rounds;
static int shared_fd = -1;	/* mode "shared" */
static int parkers = 1;
static atomic_int parking;	/* parkers making their parked sends */
static atomic_int park_over;	/* and one of them has returned */
static atomic_int forked;	/* the child made its round trip */
static atomic_int round_trips, during_park, errors;
static atomic_long parked_ms = -1;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void failed(const char *what, int seq)
{
	fprintf(stderr, "parked: %s (seq %d): %s\n", what, seq,
		strerror(errno));
	atomic_fetch_add(&errors, 1);
}

/* One echo with this sequence number; 0 when its reply came. */
static int echo(int fd, uint16_t seq)
{
	uint8_t req[16] = { 8, 0 }, buf[256];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long until = now_ms() + REPLY_WAIT_MS;
	uint16_t nseq = htons(seq);

	memcpy(req + 6, &nseq, 2);
	if (pingsock_sendto(fd, req, sizeof(req), 0, (struct sockaddr *)&dst,
			    sizeof(dst)) != (ssize_t)sizeof(req)) {
		failed("sendto", seq);
		return -1;
	}
	while (now_ms() < until) {
		ssize_t n;

		if (pingsock_poll(&p, 1, (int)(until - now_ms())) <= 0)
			continue;
		n = pingsock_recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 8 && buf[0] == 0 && memcmp(buf + 6, &nseq, 2) == 0)
			return 0;
		if (n < 0 && errno != EAGAIN) {
			failed("recv", seq);
			return -1;
		}
	}
	errno = ETIMEDOUT;
	failed("reply", seq);
	return -1;
}

static int new_socket(int seq)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd < 0)
		failed("socket", seq);
	return fd;
}

static void *parked_thread(void *arg)
{
	int fd = new_socket(1);
	long t;

	(void)arg;
	if (fd < 0 || echo(fd, 1)) {
		atomic_fetch_add(&parking, 1);	/* let the others go on */
		atomic_store(&park_over, 1);
		return NULL;
	}
	/* The second send within min_interval: parked by the daemon. */
	t = now_ms();
	atomic_fetch_add(&parking, 1);
	if (echo(fd, 2) == 0) {
		long ms = now_ms() - t, was = atomic_load(&parked_ms);

		while ((was < 0 || ms < was) &&
		       !atomic_compare_exchange_weak(&parked_ms, &was, ms))
			;
	}
	atomic_store(&park_over, 1);
	pingsock_close(fd);
	return NULL;
}

/* One round trip on its own new socket; 0 if it went. */
static int own_round(int seq)
{
	int fd = new_socket(seq), rc;

	if (fd < 0)
		return -1;
	rc = echo(fd, (uint16_t)seq);
	pingsock_close(fd);
	return rc;
}

/* Two calls on the shared socket; 0 if both went. */
static int shared_round(int seq)
{
	int ttl = 1 + seq % 200, got = 0;
	socklen_t len = sizeof(got);

	if (pingsock_setsockopt(shared_fd, IPPROTO_IP, IP_TTL, &ttl,
				sizeof(ttl))) {
		failed("setsockopt", seq);
		return -1;
	}
	if (pingsock_getsockopt(shared_fd, IPPROTO_IP, IP_TTL, &got, &len) ||
	    len != sizeof(got) || got < 1 || got > 255) {
		failed("getsockopt", seq);
		return -1;
	}
	return 0;
}

/*
 * A child made now (the atfork handlers must not wait for the parked
 * send either) makes a round trip of its own on its own connection.
 */
static void fork_round(int seq)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(own_round(seq) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		errno = ECHILD;
		failed("child's round trip", seq);
	}
}

static void *other_thread(void *arg)
{
	int id = (int)(intptr_t)arg;

	while (atomic_load(&parking) < parkers)
		usleep(10000);
	/* Time for the parked sends to reach the daemon (it answers within
	 * microseconds).  Were they later, the round trips below would only
	 * find their connections taken sooner. */
	usleep(500000);
	/* The fork first, alone: the others' calls hold the library's
	 * descriptor table for moments, which a child must not inherit
	 * held (its atfork handling is not what this test is about). */
	if (id == parkers) {
		fork_round(999);
		atomic_store(&forked, 1);
	}
	while (!atomic_load(&forked))
		usleep(1000);
	for (int i = 0; i < rounds; i++) {
		int seq = 1000 * id + i;

		if ((shared_fd >= 0 ? shared_round(seq) : own_round(seq)) == 0) {
			atomic_fetch_add(&round_trips, 1);
			if (!atomic_load(&park_over))
				atomic_fetch_add(&during_park, 1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int n;

	if (argc < 6 || argc > 7 ||
	    (strcmp(argv[1], "own") && strcmp(argv[1], "shared")) ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: parked own|shared ADDR NTHREADS K "
			"INTERVAL_MS [PARKERS]\n");
		return 2;
	}
	n = atoi(argv[3]);
	rounds = atoi(argv[4]);
	if (argc == 7)
		parkers = atoi(argv[6]);
	if (n < 2 || n > MAX_THREADS || rounds < 1 || parkers < 1 ||
	    parkers >= n) {
		fprintf(stderr, "parked: 2..%d threads, K >= 1, 1 <= PARKERS "
			"< NTHREADS\n", MAX_THREADS);
		return 2;
	}
	if (strcmp(argv[1], "shared") == 0 && (shared_fd = new_socket(0)) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL,
				   i >= parkers ? other_thread
						: parked_thread,
				   (void *)(intptr_t)i)) {
			fprintf(stderr, "parked: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("parked_ms=%ld\nround_trips=%d\nduring_park=%d\nerrors=%d\n",
	       atomic_load(&parked_ms), atomic_load(&round_trips),
	       atomic_load(&during_park), atomic_load(&errors));
	return 0;
}
