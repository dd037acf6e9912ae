/* SPDX-License-Identifier: ISC */
/*
 * sendwait - a blocking send whose answer the daemon holds back, against
 * a signal and against the program's SO_SNDTIMEO: the kernel's own send
 * gives up at either (EINTR, EAGAIN).  For tests/integration/impostor.sh
 * (impostor mute-send: its first send is never answered; the library
 * used to wait for ever, through Ctrl-C) and limits.sh (pingsockd's
 * min_interval holds the second send of a socket back).
 *
 *   sendwait [-p] [-r MS] intr|timeo|both|intr2|nbintr SECONDS ADDR
 *
 * intr: SIGALRM (a handler without SA_RESTART) SECONDS after the send
 * began; timeo: SO_SNDTIMEO of SECONDS, no signal; both: SO_SNDTIMEO of
 * ten times SECONDS and SIGALRM after SECONDS; intr2: as intr, and a
 * second such send after it ("send1b="); nbintr: as intr, on an
 * O_NONBLOCK socket (the kernel's never waits: no EINTR).  -p: one send first
 * ("send0="), which the held one follows.  The held send prints
 * "send1=RESULT" and "ms=" how long it took; then a third send
 * ("send2="): the socket works on.  -r MS: the sequence numbers of the
 * replies that came within MS milliseconds of the start ("replies=0 2").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pingsock.h"

static struct sockaddr_in to = { .sin_family = AF_INET };

static void on_alarm(int sig)
{
	(void)sig;
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void said(const char *what, long rc)
{
	if (rc >= 0)
		printf("%s=%ld\n", what, rc);
	else
		printf("%s=%s\n", what, strerrorname_np(errno));
}

static long send_seq(int fd, unsigned seq)
{
	unsigned char pkt[64] = { 8 };

	pkt[6] = (unsigned char)(seq >> 8);
	pkt[7] = (unsigned char)seq;
	return pingsock_sendto(fd, pkt, sizeof(pkt), 0,
			       (struct sockaddr *)&to, sizeof(to));
}

/* The held send, with its signal or timeout (mode, secs). */
static void held_send(int fd, const char *mode, int secs, const char *name)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { secs, 0 } };
	struct timeval tv = { .tv_sec = strcmp(mode, "both") ? secs : 10 * secs };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct timespec t0;
	long rc;

	if (strcmp(mode, "timeo") && sigaction(SIGALRM, &sa, NULL))
		perror("sendwait: SIGALRM");
	if (!strcmp(mode, "nbintr"))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if ((!strcmp(mode, "intr") || !strcmp(mode, "both") ||
	     !strcmp(mode, "intr2") || !strcmp(mode, "nbintr")) &&
	    setitimer(ITIMER_REAL, &it, NULL))
		perror("sendwait: timer");
	if ((!strcmp(mode, "timeo") || !strcmp(mode, "both")) &&
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		perror("sendwait: SO_SNDTIMEO");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = send_seq(fd, 1);
	said(name, rc);
	printf("ms=%lld\n", ms_since(&t0));
	setitimer(ITIMER_REAL, &off, NULL);
	if (!strcmp(mode, "nbintr"))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	tv.tv_sec = 0;
	pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* The replies until ms after t0, by sequence number. */
static void replies(int fd, const struct timespec *t0, long long ms)
{
	struct timeval tv = { 0, 100000 };
	unsigned char buf[256];

	pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("replies=");
	while (ms_since(t0) < ms) {
		long n = pingsock_recv(fd, buf, sizeof(buf), 0);

		if (n >= 8 && buf[0] == 0)
			printf(" %u", (unsigned)buf[6] << 8 | buf[7]);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct timespec t0;
	long long watch = 0;
	bool first = false;
	int opt, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "pr:")) != -1) {
		if (opt == 'p')
			first = true;
		else if (opt == 'r')
			watch = atoll(optarg);
		else
			return 2;
	}
	if (argc - optind != 3 ||
	    inet_pton(AF_INET, argv[optind + 2], &to.sin_addr) != 1) {
		fprintf(stderr,
			"usage: sendwait [-p] [-r MS] intr|timeo|both|intr2|"
			"nbintr SECONDS ADDR\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (fd < 0) {
		said("socket", -1);
		return 1;
	}
	if (first)
		said("send0", send_seq(fd, 0));
	held_send(fd, argv[optind], atoi(argv[optind + 1]), "send1");
	if (!strcmp(argv[optind], "intr2"))
		held_send(fd, "intr", atoi(argv[optind + 1]), "send1b");
	said("send2", send_seq(fd, 2));
	if (watch)
		replies(fd, &t0, watch);
	return 0;
}
