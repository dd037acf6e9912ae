/* SPDX-License-Identifier: ISC */
/*
 * holdsocks - hold many ping sockets open (the "10,000 sockets" load).
 *
 *   holdsocks [-d MAX_S] [-t TIMEOUT_MS] COUNT
 *
 * Opens COUNT ping sockets through libpingsock (PINGSOCK_BACKEND picks
 * the backend), sends one Echo Request to 127.0.0.1 on each (which binds
 * it to an ident, as a first send does), waits up to TIMEOUT_MS (default
 * 5000) for the replies, prints its figures and then holds every socket
 * open until SIGTERM or SIGINT, or MAX_S seconds (default 600) as a
 * safety net, whichever comes first.  bench/run starts many of these,
 * waits for every "ready=1" and reads the daemon's memory meanwhile.
 *
 * Output on stdout, one key=value a line, flushed before the wait:
 *   pid=N opened=N sent=N replies=N send_errors=N backend=... ready=1
 * A socket() that fails stops the opening (error= says why); what was
 * opened is still held and reported, so a partial run is visible.
 * Exit status 0 when every socket was opened, sent on and answered.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "pingsock.h"

#define PKT_LEN 64		/* 8 of header, ping's 56 of payload */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(void)
{
	fprintf(stderr, "usage: holdsocks [-d MAX_S] [-t TIMEOUT_MS] COUNT\n");
	exit(2);
}

/* Descriptors: one (or a few) per daemon socket, beyond the soft 1024. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int send_echo(int fd, uint16_t seq)
{
	static const struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = 0x0100007f,	/* 127.0.0.1 */
	};
	uint8_t pkt[PKT_LEN];
	struct icmphdr *h = (struct icmphdr *)pkt;

	memset(pkt, 0, sizeof(pkt));
	h->type = ICMP_ECHO;
	h->un.echo.sequence = htons(seq);
	return pingsock_sendto(fd, pkt, sizeof(pkt), 0,
			       (const struct sockaddr *)&dst,
			       sizeof(dst)) == (ssize_t)sizeof(pkt) ? 0 : -1;
}

/* Wait for one reply on every socket that sent; returns how many came. */
static unsigned collect(struct pollfd *p, unsigned n, int timeout_ms)
{
	int64_t give_up = now_ms() + timeout_ms;
	unsigned got = 0, waiting = 0;

	for (unsigned i = 0; i < n; i++)
		waiting += p[i].fd >= 0;
	while (waiting > 0 && !stop) {
		int64_t left = give_up - now_ms();
		int r;

		if (left <= 0)
			break;
		r = pingsock_poll(p, n, (int)left);
		if (r < 0 && errno != EINTR)
			break;
		for (unsigned i = 0; r > 0 && i < n; i++) {
			uint8_t buf[PKT_LEN + 64];

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if (pingsock_recv(p[i].fd, buf, sizeof(buf),
					  MSG_DONTWAIT) < 0 &&
			    (errno == EAGAIN || errno == EINTR))
				continue;
			/* A reply or an error: either way this one is done. */
			if (buf[0] == ICMP_ECHOREPLY)
				got++;
			p[i].fd = -p[i].fd - 1;	/* out of the poll set */
			waiting--;
		}
	}
	return got;
}

int main(int argc, char **argv)
{
	long max_s = 600, timeout_ms = 5000;
	unsigned long count;
	unsigned opened = 0, sent = 0, send_errors = 0, replies;
	struct pollfd *p;
	int *fds, c, first_errno = 0;
	const char *first_why = "", *be = "none";
	struct sigaction sa;

	while ((c = getopt(argc, argv, "d:t:")) != -1) {
		switch (c) {
		case 'd': max_s = strtol(optarg, NULL, 10); break;
		case 't': timeout_ms = strtol(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (optind + 1 != argc)
		usage();
	count = strtoul(argv[optind], NULL, 10);
	if (count == 0 || count > 1000000 || max_s <= 0 || timeout_ms <= 0)
		usage();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();

	fds = calloc(count, sizeof(*fds));
	p = calloc(count, sizeof(*p));
	if (!fds || !p) {
		printf("error=out of memory\nready=1\n");
		return 1;
	}
	for (unsigned long i = 0; i < count && !stop; i++) {
		int fd = pingsock_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC,
					 IPPROTO_ICMP);

		if (fd < 0) {
			first_errno = errno;
			first_why = pingsock_why();
			break;
		}
		if (opened == 0)
			be = backend_name(fd);
		fds[opened] = fd;
		p[opened].events = POLLIN;
		if (send_echo(fd, (uint16_t)(i + 1)) == 0) {
			p[opened].fd = fd;
			sent++;
		} else {
			p[opened].fd = -1;
			send_errors++;
		}
		opened++;
	}
	replies = collect(p, opened, (int)timeout_ms);

	printf("pid=%ld\n", (long)getpid());
	printf("opened=%u\nsent=%u\nreplies=%u\nsend_errors=%u\nbackend=%s\n",
	       opened, sent, replies, send_errors, be);
	if (first_errno)
		printf("error=socket %u: %s (%s)\n", opened + 1,
		       strerror(first_errno), first_why);
	printf("ready=1\n");
	fflush(stdout);

	/* Hold them: the load is the sockets being open, not traffic. */
	for (int64_t end = now_ms() + max_s * 1000; !stop && now_ms() < end;)
		sleep(1);
	for (unsigned i = 0; i < opened; i++)
		pingsock_close(fds[i]);
	free(fds);
	free(p);
	return opened == count && replies == count ? 0 : 1;
}
