/*
 * pstool - small client used by the integration tests.
 *
 *   pstool ping ADDR [COUNT [IDENT]]  echo COUNT times (bind IDENT if
 *                                   given), print "reply seq=N from=A"
 *   pstool bind IDENT [HOLD_S]      bind ident, print "bind=0" or
 *                                   "bind=ENAME", then sleep HOLD_S
 *   pstool pair ADDR IDENT1 IDENT2  two sockets, bound to the two idents,
 *                                   each sends one request; print what
 *                                   each receives
 *   pstool garbage                  send random bytes to the daemon
 *   pstool rawsend ADDR             send an echo with ident 0x1234 and a
 *                                   wrong checksum; print our ident
 *   pstool orphan ADDR SECONDS      ping once, sleep (the test stops the
 *                                   daemon meanwhile), then send and
 *                                   receive again; print the errnos
 *   pstool nonreader                send requests and never read the
 *                                   answers; print when the daemon hangs up
 *   pstool stall ADDR N             a socket with the smallest receive
 *                                   buffer sends N echoes, reads nothing
 *   pstool burst ADDR N             N sends back to back with
 *                                   MSG_DONTWAIT; print each result
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "pingsock.h"
#include "wire/wire.h"

static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EACCES: return "EACCES";
	case EADDRINUSE: return "EADDRINUSE";
	case EINVAL: return "EINVAL";
	case EAGAIN: return "EAGAIN";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	default: return strerror(e);
	}
}

static int open_sock(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd < 0) {
		int e = errno;

		printf("socket=%s\n", ename(e));
		fprintf(stderr, "pstool: socket: %s: %s\n", strerror(e),
			pingsock_why());
		exit(1);
	}
	return fd;
}

static int bind_ident(int fd, unsigned ident)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)ident) };

	return pingsock_bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ? errno : 0;
}

static void fill_addr(struct sockaddr_in *sin, const char *a)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, a, &sin->sin_addr) != 1) {
		fprintf(stderr, "pstool: bad address %s\n", a);
		exit(2);
	}
}

static int send_echo(int fd, const struct sockaddr_in *to, unsigned seq)
{
	unsigned char pkt[64] = { 8, 0, 0, 0, 0x12, 0x34 };

	pkt[6] = (unsigned char)(seq >> 8);
	pkt[7] = (unsigned char)seq;
	memcpy(pkt + 8, "pingsock-test", 13);
	return pingsock_sendto(fd, pkt, sizeof(pkt), 0,
			       (const struct sockaddr *)to, sizeof(*to)) < 0
		       ? errno : 0;
}

/* Wait up to ms for a reply; 0 if one came (its seq in *seq), else errno. */
static int recv_echo(int fd, int ms, unsigned *seq, char *from, size_t flen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char buf[256];
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return EAGAIN;
	n = pingsock_recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			      (struct sockaddr *)&sin, &sl);
	if (n < 8)
		return n < 0 ? errno : EINVAL;
	*seq = (unsigned)(buf[6] << 8 | buf[7]);
	inet_ntop(AF_INET, &sin.sin_addr, from, (socklen_t)flen);
	return 0;
}

static int cmd_ping(int argc, char **argv)
{
	struct sockaddr_in to;
	int fd = open_sock(), count = argc > 3 ? atoi(argv[3]) : 1, got = 0;
	char from[64];

	fill_addr(&to, argv[2]);
	if (argc > 4 && bind_ident(fd, (unsigned)atoi(argv[4]))) {
		printf("bind=%s\n", ename(errno));
		return 1;
	}
	for (int i = 1; i <= count; i++) {
		unsigned seq;
		int e = send_echo(fd, &to, (unsigned)i);

		if (e) {
			printf("send=%s\n", ename(e));
			continue;
		}
		if (recv_echo(fd, 2000, &seq, from, sizeof(from)) == 0) {
			printf("reply seq=%u from=%s\n", seq, from);
			got++;
		} else {
			printf("timeout seq=%d\n", i);
		}
	}
	pingsock_close(fd);
	return got == count ? 0 : 1;
}

static int cmd_bind(int argc, char **argv)
{
	int fd = open_sock();
	int e = bind_ident(fd, (unsigned)atoi(argv[2]));

	printf("bind=%s\n", ename(e));
	fflush(stdout);
	if (argc > 3)
		sleep((unsigned)atoi(argv[3]));
	pingsock_close(fd);
	return 0;
}

static int cmd_pair(int argc, char **argv)
{
	struct sockaddr_in to;
	int fd[2] = { open_sock(), open_sock() };
	char from[64];

	(void)argc;
	fill_addr(&to, argv[2]);
	for (int i = 0; i < 2; i++) {
		int e = bind_ident(fd[i], (unsigned)atoi(argv[3 + i]));

		if (e) {
			printf("bind%d=%s\n", i, ename(e));
			return 1;
		}
	}
	send_echo(fd[0], &to, 100);
	send_echo(fd[1], &to, 200);
	for (int i = 0; i < 2; i++) {
		unsigned seq;

		while (recv_echo(fd[i], 500, &seq, from, sizeof(from)) == 0)
			printf("sock%d seq=%u\n", i, seq);
	}
	return 0;
}

static int dial_daemon(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *p = getenv("PINGSOCK_SOCKET");
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		 p ? p : PINGSOCK_DEFAULT_SOCKET);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		perror("pstool: connect");
		exit(1);
	}
	return fd;
}

static int cmd_garbage(void)
{
	int fd = dial_daemon();
	unsigned char junk[300];
	char c;

	srandom((unsigned)getpid());
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)random();
	if (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) < 0)
		perror("pstool: send");
	/* The daemon must hang up on us. */
	printf("after-garbage=%s\n", recv(fd, &c, 1, 0) == 0 ? "closed" : "open");
	return 0;
}

static int cmd_nonreader(void)
{
	int fd = dial_daemon();
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	uint8_t buf[64];
	long n = wire_encode_req(&req, buf, sizeof(buf));
	int sent = 0;

	if (n < 0 || send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return 1;
	req.type = WIRE_STATS;
	n = wire_encode_req(&req, buf, sizeof(buf));
	for (; sent < 200000; sent++) {
		if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0)
			break;
	}
	printf("nonreader=%s\n", sent < 200000 ? "disconnected" : "still-connected");
	return 0;
}

static int cmd_stall(int argc, char **argv)
{
	struct sockaddr_in to;
	int fd = open_sock(), one = 1, n = atoi(argv[3]);

	(void)argc;
	fill_addr(&to, argv[2]);
	pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	for (int i = 1; i <= n; i++)
		send_echo(fd, &to, (unsigned)i);
	printf("stalled=%d\n", n);
	sleep(2);
	return 0;
}

static int cmd_burst(int argc, char **argv)
{
	struct sockaddr_in to;
	unsigned char pkt[64] = { 8 };
	int fd = open_sock(), n = atoi(argv[3]);

	(void)argc;
	fill_addr(&to, argv[2]);
	for (int i = 1; i <= n; i++) {
		pkt[7] = (unsigned char)i;
		if (pingsock_sendto(fd, pkt, sizeof(pkt), MSG_DONTWAIT,
				    (struct sockaddr *)&to, sizeof(to)) < 0)
			printf("send%d=%s\n", i, ename(errno));
		else
			printf("send%d=ok\n", i);
	}
	return 0;
}

static int cmd_orphan(int argc, char **argv)
{
	struct sockaddr_in to;
	unsigned char buf[128] = { 8 };
	char from[64];
	unsigned seq;
	int fd = open_sock();

	(void)argc;
	fill_addr(&to, argv[2]);
	printf("before=%s\n", send_echo(fd, &to, 1) ? "send-failed" :
	       recv_echo(fd, 2000, &seq, from, sizeof(from)) ? "no-reply" : "reply");
	sleep((unsigned)atoi(argv[3]));
	printf("send=%s\n", pingsock_sendto(fd, buf, 64, 0, (struct sockaddr *)&to,
					    sizeof(to)) < 0 ? ename(errno) : "ok");
	printf("recv=%s\n", pingsock_recv(fd, buf, sizeof(buf), 0) < 0 ?
	       ename(errno) : "data");
	printf("close=%s\n", pingsock_close(fd) ? ename(errno) : "0");
	return 0;
}

static int cmd_rawsend(int argc, char **argv)
{
	struct sockaddr_in to, me;
	socklen_t ml = sizeof(me);
	unsigned char pkt[16] = { 8, 0, 0xde, 0xad, 0x12, 0x34, 0, 7 };
	int fd = open_sock();

	(void)argc;
	fill_addr(&to, argv[2]);
	if (pingsock_sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&to,
			    sizeof(to)) < 0) {
		printf("send=%s\n", ename(errno));
		return 1;
	}
	pingsock_getsockname(fd, (struct sockaddr *)&me, &ml);
	printf("ident=%u\n", ntohs(me.sin_port));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "ping") == 0)
		return cmd_ping(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "bind") == 0)
		return cmd_bind(argc, argv);
	if (argc >= 5 && strcmp(argv[1], "pair") == 0)
		return cmd_pair(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "garbage") == 0)
		return cmd_garbage();
	if (argc >= 3 && strcmp(argv[1], "rawsend") == 0)
		return cmd_rawsend(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "burst") == 0)
		return cmd_burst(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "orphan") == 0)
		return cmd_orphan(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "nonreader") == 0)
		return cmd_nonreader();
	if (argc >= 4 && strcmp(argv[1], "stall") == 0)
		return cmd_stall(argc, argv);
	fprintf(stderr, "usage: pstool ping|bind|pair|garbage|rawsend ...\n");
	return 2;
}
