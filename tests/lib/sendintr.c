/* SPDX-License-Identifier: ISC */
/*
 * sendintr - the library's request send (lib/call.c, call_exchange)
 * against a daemon that never reads what it is sent, in a program that
 * gets a signal every 50 ms (a profiler's SIGPROF, an interval timer),
 * for tests/integration/impostor.sh.  An impostor at the socket path can
 * leave the library's requests unread until the connection's queue is
 * full; each signal then ended the wait for room, and the send started
 * again, for ever.  It gives up after the library's timeout (10 s).
 *
 *   sendintr
 *
 * Prints "exchange=broken|RESULT ms=MILLISECONDS" (broken: WIRE_R_BROKEN).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "lib/call.h"
#include "wire/wire.h"

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	static char junk[4096];
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_interval = { 0, 50000 },
				.it_value = { 0, 50000 } };
	struct wire_req req = { .type = WIRE_STATS };
	struct timespec t0, t1;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("sendintr: socketpair");
		return 1;
	}
	/* The "daemon" end (sv[1]) never reads: fill what it may hold. */
	while (send(sv[0], junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL)) {
		perror("sendintr: timer");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = call_exchange(sv[0], &req, NULL, 0, NULL, NULL, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == WIRE_R_BROKEN)
		printf("exchange=broken");
	else
		printf("exchange=%d", rc);
	printf(" ms=%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000 +
				 (t1.tv_nsec - t0.tv_nsec) / 1000000);
	return 0;
}
