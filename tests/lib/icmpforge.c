/* SPDX-License-Identifier: ISC */
/*
 * icmpforge - answer Echo Requests for 10.78.T.C with ICMP error T/C.
 *
 *   icmpforge [-t SECONDS]
 *
 * Runs as root inside the router namespace that tests/conformance/run.sh
 * builds for "// needs: router" cases (10.78.0.0/16 is local there and
 * net.ipv4.icmp_echo_ignore_all=1, so its kernel stays silent).  Every
 * Echo Request from the client 10.77.0.2 to 10.78.T.C is answered with an
 * ICMP error of type T, code C, from 10.77.0.1, quoting the request's IP
 * header and as much of the request as a router would (the error is at
 * most 576 bytes: 548 quoted bytes).  The 32-bit field after the checksum
 * is what a router puts there:
 *   3/4 Fragmentation Needed   next-hop MTU 1200
 *   12  Parameter Problem      pointer 20 (top byte)
 *   5   Redirect               gateway 10.77.0.9
 *   others                     0
 * Only types 3, 4, 5, 11 and 12 are forged; other requests are ignored.
 * Errors go to 10.77.0.2 only, whatever arrives.
 *
 * Prints "ready" on stdout once its sockets are open.  Stops by itself
 * after SECONDS (default 60, at most 600), when its parent exits, or on
 * SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/icmp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inetsum.h"

#define CLIENT "10.77.0.2"	/* the only address errors ever go to */
#define ROUTER "10.77.0.1"	/* their source */
#define GATEWAY "10.77.0.9"	/* what a Redirect names */
#define FORGE_NET 0x0a4e0000u	/* 10.78.0.0/16 */
#define QUOTE_MAX 548		/* 576 - 20 (IP) - 8 (ICMP) */
#define FRAG_MTU 1200
#define PP_POINTER 20

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int forged_type(unsigned t)
{
	return t == ICMP_DEST_UNREACH || t == ICMP_SOURCE_QUENCH ||
	       t == ICMP_REDIRECT || t == ICMP_TIME_EXCEEDED ||
	       t == ICMP_PARAMETERPROB;
}

/*
 * Build the error for the request req[0..n) (an IPv4 datagram) into out;
 * returns its length, or 0 when the request is not one to answer.
 */
static size_t forge(const uint8_t *req, size_t n, uint8_t *out,
		    struct in_addr client, struct in_addr router,
		    struct in_addr gw)
{
	size_t ihl, q, len;
	uint32_t src, dst, rest = 0;
	unsigned t, c;
	uint8_t *icmp;

	if (n < 20 || (req[0] >> 4) != 4)
		return 0;
	ihl = (size_t)(req[0] & 15) * 4;
	if (ihl < 20 || n < ihl + 8 || req[9] != IPPROTO_ICMP)
		return 0;
	memcpy(&src, req + 12, 4);
	memcpy(&dst, req + 16, 4);
	if (src != client.s_addr)
		return 0;
	dst = ntohl(dst);
	if ((dst & 0xffff0000u) != FORGE_NET)
		return 0;
	if (req[ihl] != ICMP_ECHO || req[ihl + 1] != 0)
		return 0;
	t = (dst >> 8) & 0xff;
	c = dst & 0xff;
	if (!forged_type(t))
		return 0;

	if (t == ICMP_DEST_UNREACH && c == ICMP_FRAG_NEEDED)
		rest = FRAG_MTU;
	else if (t == ICMP_PARAMETERPROB)
		rest = (uint32_t)PP_POINTER << 24;
	else if (t == ICMP_REDIRECT)
		rest = ntohl(gw.s_addr);

	q = n < QUOTE_MAX ? n : QUOTE_MAX;
	len = 20 + 8 + q;
	memset(out, 0, 28);
	out[0] = 0x45;
	out[1] = 0xc0;			/* as the kernel's own errors */
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
	/* id 0 and checksum 0: the kernel fills them in */
	out[8] = 64;
	out[9] = IPPROTO_ICMP;
	memcpy(out + 12, &router.s_addr, 4);
	memcpy(out + 16, &client.s_addr, 4);
	icmp = out + 20;
	icmp[0] = (uint8_t)t;
	icmp[1] = (uint8_t)c;
	put32(icmp + 4, rest);
	memcpy(icmp + 8, req, q);
	{
		uint16_t s = inet_sum(icmp, 8 + q);

		icmp[2] = (uint8_t)(s >> 8);
		icmp[3] = (uint8_t)s;
	}
	return len;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static uint8_t in[65536], outb[20 + 8 + QUOTE_MAX];
	struct in_addr client, router, gw;
	struct sockaddr_in to;
	struct icmp_filter filt;
	struct sigaction sa;
	pid_t parent = getppid();
	long secs = 60;
	int rx, tx, opt;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt == 't') {
			secs = strtol(optarg, NULL, 10);
			if (secs < 1 || secs > 600) {
				fprintf(stderr, "icmpforge: -t 1..600\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: icmpforge [-t SECONDS]\n");
			return 2;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGALRM, SIG_DFL);	/* the time limit kills outright */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 0;
	alarm((unsigned)secs);

	inet_pton(AF_INET, CLIENT, &client);
	inet_pton(AF_INET, ROUTER, &router);
	inet_pton(AF_INET, GATEWAY, &gw);

	rx = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (rx < 0) {
		perror("icmpforge: raw ICMP socket");
		return 1;
	}
	filt.data = ~(1u << ICMP_ECHO);	/* pass Echo Requests only */
	if (setsockopt(rx, SOL_RAW, ICMP_FILTER, &filt, sizeof(filt)) < 0) {
		perror("icmpforge: ICMP_FILTER");
		return 1;
	}
	tx = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);	/* IP_HDRINCL */
	if (tx < 0) {
		perror("icmpforge: raw IP socket");
		return 1;
	}
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr = client;
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct pollfd p = { .fd = rx, .events = POLLIN };
		ssize_t n;
		size_t len;

		if (getppid() != parent)
			break;
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recv(rx, in, sizeof(in), MSG_DONTWAIT);
		if (n <= 0)
			continue;
		len = forge(in, (size_t)n, outb, client, router, gw);
		if (len == 0)
			continue;
		if (sendto(tx, outb, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) < 0)
			perror("icmpforge: sendto");
	}
	return 0;
}
