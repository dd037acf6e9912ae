/* SPDX-License-Identifier: ISC */
/*
 * pstool - small client used by the integration tests.
 *
 *   pstool ping ADDR [COUNT [IDENT]]  echo COUNT times (bind IDENT if
 *                                   given), print "reply seq=N from=A"
 *   pstool bind IDENT [HOLD_S [reuse]]
 *                                   bind ident (with SO_REUSEADDR set
 *                                   first if "reuse"), print "bind=0" or
 *                                   "bind=ENAME", then sleep HOLD_S
 *   pstool broker ADDR              what broker mode promises, one
 *                                   "name=value" line each (see
 *                                   cmd_broker)
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
 *   pstool burst ADDR N [HOW]       N sends back to back with
 *                                   MSG_DONTWAIT, or (HOW) on an
 *                                   O_NONBLOCK socket ("nonblock") or a
 *                                   blocking one ("block"); print each
 *   pstool frames KIND [N]          hostile frames on the control channel,
 *                                   each on a fresh connection; print what
 *                                   the daemon did ("closed", "answered:R",
 *                                   "hang").  KIND: random, typed,
 *                                   truncated, pastend, fds, creds,
 *                                   oversize, order, deep (N random
 *                                   well-formed requests on sockets of
 *                                   its own: each must be answered)
 *   pstool hold N SECONDS           open N sockets and a connection that
 *                                   says nothing, then sleep
 *   pstool churn N [ROUNDS]         N clients at once that vanish, some
 *                                   mid-request, ROUNDS times
 *   pstool pingloop ADDR MS SECONDS [SILENT]
 *                                   ping every MS until a call fails; print
 *                                   the call, errno, ms since the last
 *                                   reply and the wall time (ms); with
 *                                   SILENT, wait for a reply from there
 *   pstool victim ADDR IDENT MS [STOPFILE [TYPE SEQ]]
 *                                   bound to IDENT, IP_RECVERR on, one
 *                                   echo to ADDR (v4 or v6); print its
 *                                   reply, then anything else for MS (or
 *                                   until STOPFILE exists).  TYPE and
 *                                   SEQ: the request's (default 8 or
 *                                   128, seq 1); type 42 or 160 is an
 *                                   RFC 8335 PROBE of interface index 1
 *   pstool arenas [CALLS]           CALLS getsockopt()s on one socket, as a
 *                                   client of impostor arena-fresh: how
 *                                   many arenas it maps ("arenas=N")
 *   pstool bufhold N K LEN          N sockets with SO_RCVBUF 4 MiB, K
 *                                   echoes of LEN bytes each to 127.0.0.1
 *                                   left unread for 1 s, then read:
 *                                   "queued=BYTES" (all of them),
 *                                   "over2=M" as bufmany's
 *   pstool bufmany N K LEN          N sockets as they come, K echoes of
 *                                   LEN bytes each to 127.0.0.1 left
 *                                   unread for 1 s, then read:
 *                                   "queued=BYTES" (all of them) and
 *                                   "over2=M" (sockets that held more
 *                                   than two replies)
 *   pstool wakeflood                as a client of impostor
 *                                   dg-wake-endless: the reply, then one
 *                                   receive that must not wait while
 *                                   wake-ups keep coming ("recv2=",
 *                                   "after=queued" if the flood was still
 *                                   on when it returned, else "empty")
 *   pstool rcvtimeo                 as a client of impostor
 *                                   dg-wake-trickle: the reply, then a
 *                                   blocking receive with SO_RCVTIMEO
 *                                   1 s ("recv2=", "ms=")
 *   pstool twosocks                 two sockets at once, then closed
 *                                   ("socket1=", "socket2=", "leak=N")
 *   pstool untrusted                every call once on one socket, as a
 *                                   client of an impostor daemon
 *                                   (tests/lib/impostor.c); print
 *                                   "call=result" for each, then "leak=N"
 *                                   (descriptors below 512 left over)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <time.h>
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
	int fd = open_sock(), one = 1, e;

	if (argc > 4 && strcmp(argv[4], "reuse") == 0)
		pingsock_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one));
	e = bind_ident(fd, (unsigned)atoi(argv[2]));
	printf("bind=%s\n", ename(e));
	fflush(stdout);
	if (argc > 3)
		sleep((unsigned)atoi(argv[3]));
	pingsock_close(fd);
	return 0;
}

static unsigned name_port(int fd)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	if (pingsock_getsockname(fd, (struct sockaddr *)&sin, &sl) != 0)
		return 99999;
	return ntohs(sin.sin_port);
}

/*
 * Broker mode, step by step: the backend; the port an unused socket
 * shows; a bind() through the library (options set before it replayed,
 * O_NONBLOCK kept, the same descriptor); a second bind; the kernel's own
 * bind on a handed-out socket; a bind after a send; an echo; and a plain
 * socket() without the daemon.
 */
static int cmd_broker(int argc, char **argv)
{
	struct sockaddr_in to, any = { .sin_family = AF_INET };
	int fd = open_sock(), fd2 = open_sock(), fd3 = open_sock(), ttl = 7;
	socklen_t tl = sizeof(ttl);
	unsigned seq;
	char from[64];
	int k;

	(void)argc;
	fill_addr(&to, argv[2]);
	printf("backend=%s\n", pingsock_backend(fd) == PINGSOCK_BACKEND_BROKER
					? "broker" : "other");
	printf("port_before_use=%u\n", name_port(fd));
	pingsock_setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	printf("bind=%s\n", ename(pingsock_bind(fd, (struct sockaddr *)&any,
						sizeof(any)) ? errno : 0));
	ttl = 0;
	pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &tl);
	printf("ttl_after_bind=%d\n", ttl);
	printf("nonblock_after_bind=%s\n",
	       fcntl(fd, F_GETFL) & O_NONBLOCK ? "yes" : "no");
	printf("port_after_bind=%s\n", name_port(fd) ? "set" : "0");
	printf("bind_again=%s\n", ename(pingsock_bind(fd, (struct sockaddr *)&any,
						      sizeof(any)) ? errno : 0));
	/* Around the library: the kernel's bind on the socket handed out. */
	printf("kernel_bind=%s\n", ename(bind(fd2, (struct sockaddr *)&any,
					       sizeof(any)) ? errno : 0));
	send_echo(fd3, &to, 1);
	printf("bind_after_send=%s\n", ename(pingsock_bind(fd3,
			(struct sockaddr *)&any, sizeof(any)) ? errno : 0));
	printf("echo=%s\n", send_echo(fd, &to, 2) ? "send-failed" :
	       recv_echo(fd, 2000, &seq, from, sizeof(from)) ? "no-reply" :
	       "reply");
	k = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	printf("plain_socket=%s\n", k >= 0 ? "0" : ename(errno));
	pingsock_close(fd);
	pingsock_close(fd2);
	pingsock_close(fd3);
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
	int fd = open_sock(), n = atoi(argv[3]), flags = MSG_DONTWAIT;

	fill_addr(&to, argv[2]);
	if (argc > 4 && strcmp(argv[4], "block") == 0)
		flags = 0;
	if (argc > 4 && strcmp(argv[4], "nonblock") == 0) {
		flags = 0;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	for (int i = 1; i <= n; i++) {
		pkt[7] = (unsigned char)i;
		if (pingsock_sendto(fd, pkt, sizeof(pkt), flags,
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

/* ---- hostile clients (tests/integration/hostile.sh) ---- */

/* Connect to the daemon; -1 instead of exiting. */
static int dial_quiet(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *p = getenv("PINGSOCK_SOCKET");
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		 p ? p : PINGSOCK_DEFAULT_SOCKET);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Send one frame with up to 8 descriptors and, if cred, SCM_CREDENTIALS
 * (of uid/pid as given); 0 or errno. */
static int send_frame(int fd, const void *buf, size_t len, const int *fds,
		      int nfds, const struct ucred *cred)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(8 * sizeof(int)) +
		       CMSG_SPACE(sizeof(struct ucred))];
	} cbuf;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	size_t clen = 0;

	memset(&cbuf, 0, sizeof(cbuf));
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	cm = CMSG_FIRSTHDR(&mh);
	if (nfds > 0) {
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
		clen += CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = (struct cmsghdr *)(cbuf.b + clen);
	}
	if (cred) {
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_CREDENTIALS;
		cm->cmsg_len = CMSG_LEN(sizeof(*cred));
		memcpy(CMSG_DATA(cm), cred, sizeof(*cred));
		clen += CMSG_SPACE(sizeof(*cred));
	}
	mh.msg_controllen = clen;
	if (!clen)
		mh.msg_control = NULL;
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? errno : 0;
}

/* The last answer outcome() read (header and body), and its descriptors
 * if the caller asked to keep them (else they are closed). */
static uint8_t answer[8192];
static ssize_t answer_len;
static bool keep_fds;
static int answer_fds[4], answer_nfds;

/*
 * What the daemon did with the last frame: "closed" (it hung up),
 * "answered:R" (R the result), "hang" (nothing within 3 s).  Descriptors
 * that come with an answer are closed.
 */
static const char *outcome(int fd)
{
	static char out[32];
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} cbuf;
	uint8_t *buf = answer;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(answer) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int32_t r;

	answer_nfds = 0;
	if (poll(&p, 1, 3000) <= 0)
		return "hang";
	n = answer_len = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n > 0 && cm;
	     cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; cm->cmsg_type == SCM_RIGHTS && i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(f));
			if (keep_fds && answer_nfds < 4)
				answer_fds[answer_nfds++] = f;
			else
				close(f);
		}
	}
	if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
		return "closed";
	if (n < WIRE_RESP_HDR) {
		snprintf(out, sizeof(out), "short:%zd", n);
		return out;
	}
	memcpy(&r, buf + 4, sizeof(r));
	snprintf(out, sizeof(out), "answered:%d", (int)r);
	return out;
}

/* A connection that has said hello (and read the answer); -1 if not. */
static int hello_conn(void)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	uint8_t buf[64];
	long n = wire_encode_req(&req, buf, sizeof(buf));
	int fd = dial_quiet();

	if (fd < 0)
		return -1;
	if (send_frame(fd, buf, (size_t)n, NULL, 0, NULL) ||
	    strcmp(outcome(fd), "answered:0") != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One probe on a fresh connection: the frame, then what became of it. */
static const char *probe(bool hello, const void *buf, size_t len,
			 const int *fds, int nfds, const struct ucred *cred)
{
	static char out[48];
	int fd = hello ? hello_conn() : dial_quiet(), e;

	if (fd < 0)
		return "no-connection";
	e = send_frame(fd, buf, len, fds, nfds, cred);
	if (e) {
		snprintf(out, sizeof(out), "send:%s", ename(e));
		close(fd);
		return out;
	}
	snprintf(out, sizeof(out), "%s", outcome(fd));
	close(fd);
	return out;
}

struct tally {
	unsigned probes, closed, answered, other;
};

static void tally_add(struct tally *t, const char *what, const char *name)
{
	t->probes++;
	if (strcmp(what, "closed") == 0) {
		t->closed++;
		return;
	}
	if (strncmp(what, "answered:", 9) == 0)
		t->answered++;
	else
		t->other++;
	if (name)	/* the unexpected ones by name */
		printf("%s=%s\n", name, what);
}

static void tally_print(const char *kind, const struct tally *t)
{
	printf("%s probes=%u closed=%u answered=%u other=%u\n", kind, t->probes,
	       t->closed, t->answered, t->other);
}

/* Random bytes, with or without a hello first. */
static void frames_random(int n)
{
	uint8_t junk[2048];
	struct tally t = { 0 };

	srandom((unsigned)getpid());
	for (int i = 0; i < n; i++) {
		size_t len = 1 + (size_t)random() % sizeof(junk);

		for (size_t k = 0; k < len; k++)
			junk[k] = (uint8_t)random();
		tally_add(&t, probe(i & 1, junk, len, NULL, 0, NULL), "random");
	}
	tally_print("random", &t);
}

/* A valid type and flags, random handle and body: answered or closed. */
static void frames_typed(int n)
{
	uint8_t m[64];
	struct tally t = { 0 };

	srandom((unsigned)getpid() ^ 0x5a5a);
	for (int i = 0; i < n; i++) {
		uint16_t type = (uint16_t)(1 + random() % (WIRE_TYPE_END - 1));
		uint16_t flags = 0;
		size_t len = 8 + (size_t)random() % (sizeof(m) - 8);

		for (size_t k = 0; k < len; k++)
			m[k] = (uint8_t)random();
		memcpy(m, &type, 2);
		memcpy(m + 2, &flags, 2);
		tally_add(&t, probe(true, m, len, NULL, 0, NULL), NULL);
	}
	tally_print("typed", &t);
}

/* Valid encodings of each request type (handle 0). */
static size_t templates(struct wire_req *reqs, size_t max)
{
	static const uint8_t data[64] = { 8 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	size_t n = 0;

	memset(reqs, 0, max * sizeof(*reqs));
	reqs[n].type = WIRE_HELLO;
	reqs[n++].u.version = WIRE_VERSION;
	reqs[n].type = WIRE_OPEN;
	reqs[n].u.open.domain = AF_INET;
	reqs[n].u.open.type = SOCK_DGRAM;
	reqs[n++].u.open.protocol = IPPROTO_ICMP;
	reqs[n].type = WIRE_BIND;
	reqs[n].u.addr.len = sizeof(sin);
	memcpy(reqs[n++].u.addr.bytes, &sin, sizeof(sin));
	reqs[n].type = WIRE_CONNECT;
	reqs[n].u.addr.len = sizeof(sin);
	memcpy(reqs[n++].u.addr.bytes, &sin, sizeof(sin));
	reqs[n].type = WIRE_SEND;
	reqs[n].u.send.len = sizeof(data);
	reqs[n].u.send.namelen = sizeof(sin);
	memcpy(reqs[n].u.send.name, &sin, sizeof(sin));
	reqs[n].u.send.data = data;
	reqs[n++].u.send.datalen = sizeof(data);
	reqs[n].type = WIRE_SETOPT;
	reqs[n].u.opt.level = SOL_SOCKET;
	reqs[n].u.opt.name = SO_RCVBUF;
	reqs[n++].u.opt.len = 4;
	reqs[n].type = WIRE_GETOPT;
	reqs[n].u.opt.level = SOL_SOCKET;
	reqs[n].u.opt.name = SO_RCVBUF;
	reqs[n++].u.opt.len = 4;
	reqs[n].type = WIRE_SHUTDOWN;
	reqs[n++].u.how = SHUT_RD;
	reqs[n].type = WIRE_KEEPID;
	reqs[n++].u.ident = 4242;
	reqs[n++].type = WIRE_TABLE;
	reqs[n++].type = WIRE_STATS;
	reqs[n++].type = WIRE_GETNAME;
	return n;
}

/* A request's frame, SEND with its data appended. */
static long encode_full(const struct wire_req *req, uint8_t *buf, size_t cap)
{
	long n = wire_encode_req(req, buf, cap);

	if (n >= 0 && req->type == WIRE_SEND) {
		if ((size_t)n + req->u.send.datalen > cap)
			return -1;
		memcpy(buf + n, req->u.send.data, req->u.send.datalen);
		n += req->u.send.datalen;
	}
	return n;
}

/* Every request cut short at every length. */
static void frames_truncated(void)
{
	struct wire_req reqs[16];
	size_t nt = templates(reqs, 16);
	struct tally t = { 0 };
	uint8_t buf[512];
	char name[48];

	for (size_t i = 0; i < nt; i++) {
		long n = encode_full(&reqs[i], buf, sizeof(buf));

		for (long len = 1; len < n; len++) {
			snprintf(name, sizeof(name), "truncated %s/%ld",
				 wire_type_name(reqs[i].type), len);
			tally_add(&t, probe(reqs[i].type != WIRE_HELLO, buf,
					    (size_t)len, NULL, 0, NULL), name);
		}
	}
	tally_print("truncated", &t);
}

/* Build a frame by hand: header, then u32 fields, then bytes. */
static size_t hand_frame(uint8_t *buf, uint16_t type, const uint32_t *f,
			 int nf, size_t nbytes)
{
	uint16_t zero = 0;
	uint32_t handle = 0;
	size_t off = 8;

	memcpy(buf, &type, 2);
	memcpy(buf + 2, &zero, 2);
	memcpy(buf + 4, &handle, 4);
	for (int i = 0; i < nf; i++, off += 4)
		memcpy(buf + off, &f[i], 4);
	memset(buf + off, 0x41, nbytes);
	return off + nbytes;
}

/* Length fields that point past the end of the frame (or over a limit). */
static void frames_pastend(void)
{
	static const struct {
		const char *name;
		uint16_t type;
		int nf;
		uint32_t f[5];
		size_t nbytes;
	} c[] = {
		{ "bind_len_past_end", WIRE_BIND, 1, { 16 }, 8 },
		{ "bind_len_huge", WIRE_BIND, 1, { 0xFFFFFFFFu }, 16 },
		{ "bind_len_over_max", WIRE_BIND, 1, { WIRE_ADDR_MAX + 1 },
		  WIRE_ADDR_MAX + 1 },
		{ "connect_len_past_end", WIRE_CONNECT, 1, { 100 }, 16 },
		{ "send_name_past_end", WIRE_SEND, 3, { 0, 8, 16 }, 4 },
		{ "send_name_huge", WIRE_SEND, 3, { 0, 8, 0xFFFFFFF0u }, 64 },
		{ "send_ctl_past_end", WIRE_SEND, 4,
		  { 0, 0, WIRE_NO_NAME, 1000 }, 10 },
		{ "send_ctl_huge", WIRE_SEND, 4,
		  { 0, 0, WIRE_NO_NAME, 0xFFFFFFF0u }, 10 },
		{ "send_data_past_end", WIRE_SEND, 4,
		  { 0, 64, WIRE_NO_NAME, 0 }, 10 },
		{ "send_data_left_over", WIRE_SEND, 4,
		  { 0, 10, WIRE_NO_NAME, 0 }, 64 },
		{ "send_huge_len_with_data", WIRE_SEND, 4,
		  { 0, 0x10000, WIRE_NO_NAME, 0 }, 64 },
		{ "setopt_len_past_end", WIRE_SETOPT, 3, { 1, 8, 200 }, 4 },
		{ "setopt_len_huge", WIRE_SETOPT, 3, { 1, 8, 0x80000000u }, 4 },
		{ "getopt_len_huge", WIRE_GETOPT, 3, { 1, 8, 0xFFFFFFFFu }, 0 },
		{ "keepid_over_16_bits", WIRE_KEEPID, 1, { 0x10000 }, 0 },
		{ "stats_trailing_byte", WIRE_STATS, 0, { 0 }, 1 },
		{ "table_trailing_bytes", WIRE_TABLE, 1, { 0 }, 3 },
	};
	uint8_t buf[512];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len = hand_frame(buf, c[i].type, c[i].f, c[i].nf,
					c[i].nbytes);

		printf("%s=%s\n", c[i].name,
		       probe(true, buf, len, NULL, 0, NULL));
	}
}

/* Descriptors where none belong, too many, or the wrong kind. */
static void frames_fds(void)
{
	enum { M_HELLO, M_STATS, M_ATTACH, M_OPEN };
	enum { F_NULL, F_PIPE, F_UNIX, F_UNIX_PEER };
	static const struct {
		const char *name;
		int msg, nfds, what;
	} c[] = {
		{ "hello_with_fd", M_HELLO, 1, F_NULL },
		{ "stats_with_fd", M_STATS, 1, F_NULL },
		{ "stats_with_3fds", M_STATS, 3, F_NULL },
		{ "open_with_fd", M_OPEN, 1, F_NULL },
		{ "attach_no_fd", M_ATTACH, 0, F_NULL },
		{ "attach_2fds", M_ATTACH, 2, F_NULL },
		{ "attach_8fds", M_ATTACH, 8, F_NULL },
		{ "attach_devnull", M_ATTACH, 1, F_NULL },
		{ "attach_pipe", M_ATTACH, 1, F_PIPE },
		{ "attach_unix", M_ATTACH, 1, F_UNIX },
		{ "attach_self", M_ATTACH, 1, F_UNIX_PEER },
	};
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	uint8_t m[4][64];
	long n[4];
	int fds[8], pfd[2], sp[2], conn;

	n[M_HELLO] = wire_encode_req(&req, m[M_HELLO], sizeof(m[0]));
	req.type = WIRE_STATS;
	n[M_STATS] = wire_encode_req(&req, m[M_STATS], sizeof(m[0]));
	req.type = WIRE_ATTACH;
	n[M_ATTACH] = wire_encode_req(&req, m[M_ATTACH], sizeof(m[0]));
	req.type = WIRE_OPEN;
	req.u.open.domain = AF_INET;
	req.u.open.type = SOCK_DGRAM;
	req.u.open.protocol = IPPROTO_ICMP;
	n[M_OPEN] = wire_encode_req(&req, m[M_OPEN], sizeof(m[0]));
	if (pipe(pfd) || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp))
		return;
	for (int i = 0; i < 8; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const int *f = c[i].what == F_PIPE ? pfd :
			       c[i].what == F_UNIX ? &sp[0] :
			       c[i].what == F_UNIX_PEER ? &sp[1] : fds;

		printf("%s=%s\n", c[i].name,
		       probe(c[i].msg != M_HELLO, m[c[i].msg],
			     (size_t)n[c[i].msg], f, c[i].nfds, NULL));
	}
	/* After a refused ATTACH the connection still serves. */
	conn = hello_conn();
	if (conn >= 0) {
		int e = send_frame(conn, m[M_ATTACH], (size_t)n[M_ATTACH], pfd,
				   1, NULL);

		if (e)
			printf("attach_pipe_then=send:%s", ename(e));
		else
			printf("attach_pipe_then=%s", outcome(conn));
		send_frame(conn, m[M_STATS], (size_t)n[M_STATS], NULL, 0, NULL);
		printf(",%s\n", outcome(conn));
		close(conn);
	}
}

/* SCM_CREDENTIALS: the daemon trusts SO_PEERCRED only. */
static void frames_creds(void)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	struct ucred me = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
	struct ucred root = { .pid = 1, .uid = 0, .gid = 0 };
	uint8_t hello[64], stats[64], attach[64];
	long nh, ns, na;
	int dn = open("/dev/null", O_RDONLY);

	nh = wire_encode_req(&req, hello, sizeof(hello));
	req.type = WIRE_STATS;
	ns = wire_encode_req(&req, stats, sizeof(stats));
	req.type = WIRE_ATTACH;
	na = wire_encode_req(&req, attach, sizeof(attach));
	printf("hello_with_creds=%s\n",
	       probe(false, hello, (size_t)nh, NULL, 0, &me));
	printf("stats_with_creds=%s\n",
	       probe(true, stats, (size_t)ns, NULL, 0, &me));
	printf("stats_with_root_creds=%s\n",
	       probe(true, stats, (size_t)ns, NULL, 0, &root));
	printf("attach_devnull_with_creds=%s\n",
	       probe(true, attach, (size_t)na, &dn, 1, &me));
	close(dn);
}

/* Frames over the daemon's largest request, and ones before hello. */
static void frames_oversize(void)
{
	static uint8_t big[200000];
	uint16_t type = WIRE_SEND;

	memcpy(big, &type, 2);
	printf("frame_msg_max_plus_1=%s\n",
	       probe(true, big, WIRE_MSG_MAX + 1, NULL, 0, NULL));
	printf("frame_100000=%s\n", probe(true, big, 100000, NULL, 0, NULL));
	printf("frame_200000=%s\n",
	       probe(true, big, sizeof(big), NULL, 0, NULL));
	printf("frame_200000_before_hello=%s\n",
	       probe(false, big, sizeof(big), NULL, 0, NULL));
}

/* Requests out of order, unknown types, bad flags, foreign handles. */
static void frames_order(void)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	uint8_t m[64];
	long n;
	unsigned served = 0;
	int fd;

	n = wire_encode_req(&req, m, sizeof(m));
	printf("double_hello=%s\n", probe(true, m, (size_t)n, NULL, 0, NULL));
	req.u.version = WIRE_VERSION + 1;
	n = wire_encode_req(&req, m, sizeof(m));
	printf("hello_bad_version=%s\n",
	       probe(false, m, (size_t)n, NULL, 0, NULL));
	req.type = WIRE_STATS;
	n = wire_encode_req(&req, m, sizeof(m));
	printf("stats_before_hello=%s\n",
	       probe(false, m, (size_t)n, NULL, 0, NULL));
	m[2] = 1;	/* flags */
	printf("flags_nonzero=%s\n", probe(true, m, (size_t)n, NULL, 0, NULL));
	m[2] = 0;
	for (unsigned t = 0; t < 3; t++) {
		uint16_t bad = t == 0 ? 0 : t == 1 ? WIRE_TYPE_END : 0xFFFF;

		memcpy(m, &bad, 2);
		/* WIRE_TYPE_END by name: it moves as types are added. */
		if (t == 1)
			printf("type_end=%s\n",
			       probe(true, m, (size_t)n, NULL, 0, NULL));
		else
			printf("type_%u=%s\n", bad,
			       probe(true, m, (size_t)n, NULL, 0, NULL));
	}
	printf("empty_frame=%s\n", probe(true, m, 0, NULL, 0, NULL));
	/* Somebody else's sockets: handles are small numbers, try them. */
	fd = hello_conn();
	req.type = WIRE_GETNAME;
	for (uint32_t idx = 1; fd >= 0 && idx <= 256; idx++) {
		const char *o;

		req.handle = 1u << 20 | idx;
		n = wire_encode_req(&req, m, sizeof(m));
		send_frame(fd, m, (size_t)n, NULL, 0, NULL);
		o = outcome(fd);
		if (strncmp(o, "answered:", 9) != 0) {
			printf("foreign_handle_%u=%s\n", idx, o);
			break;
		}
		if (atoi(o + 9) >= 0)
			served++;
	}
	printf("foreign_handles_served=%u\n", served);
	if (fd >= 0)
		close(fd);
}

/* Random bytes from a few likely values and noise. */
static uint32_t pick(const uint32_t *likely, size_t n)
{
	return random() % 4 ? likely[(size_t)random() % n] : (uint32_t)random();
}

/* A socket address, mostly of the family, mostly for the test's hosts. */
static uint32_t rand_name(uint8_t *b, int family)
{
	static const char *const hosts[] = { "127.0.0.1", "10.203.0.2", "::1",
					     "fd00:203::2", "0.0.0.0", "::" };
	uint16_t fam = (uint16_t)(random() % 5 ? family :
				  random() % 2 ? AF_UNSPEC : random());
	uint32_t len = random() % 4 ? (family == AF_INET6 ? 28 : 16)
				    : (uint32_t)random() % (WIRE_ADDR_MAX + 1);

	for (uint32_t i = 0; i < WIRE_ADDR_MAX; i++)
		b[i] = random() % 3 ? 0 : (uint8_t)random();
	memcpy(b, &fam, 2);
	b[2] = b[3] = 0;
	if (random() % 2)
		b[2 + random() % 2] = (uint8_t)random();	/* the ident */
	inet_pton(AF_INET, hosts[random() % 2], b + 4);
	if (family == AF_INET6 && inet_pton(AF_INET6, hosts[2 + random() % 2],
					    b + 8) == 1 && random() % 4 == 0)
		memset(b + 24, 0, 4);
	if (random() % 8 == 0)
		inet_pton(family, hosts[4 + (family == AF_INET6)],
			  b + (family == AF_INET6 ? 8 : 4));
	return len;
}

/* Control messages: plausible headers (some with lying lengths). */
static uint32_t rand_ctl(uint8_t *b, size_t cap)
{
	static const uint32_t levels[] = { SOL_SOCKET, SOL_IP, SOL_IPV6 };
	static const uint32_t types[] = { IP_TTL, IP_TOS, IP_PKTINFO,
					  IP_RETOPTS, IPV6_HOPLIMIT,
					  IPV6_TCLASS, IPV6_PKTINFO,
					  SO_TIMESTAMPING, SCM_RIGHTS, 0 };
	size_t off = 0;
	int n = (int)(random() % 4);

	for (int i = 0; i < n; i++) {
		struct cmsghdr cm;
		size_t dlen = (size_t)random() % 48;

		if (off + CMSG_SPACE(dlen) > cap)
			break;
		cm.cmsg_level = (int)pick(levels, 3);
		cm.cmsg_type = (int)pick(types, 10);
		cm.cmsg_len = random() % 5 ? CMSG_LEN(dlen)
					   : (size_t)random() % 2000;
		memcpy(b + off, &cm, sizeof(cm));
		for (size_t k = 0; k < dlen; k++)
			b[off + CMSG_LEN(0) + k] =
				random() % 2 ? 0 : (uint8_t)random();
		off += CMSG_SPACE(dlen);
	}
	if (random() % 10 == 0 && off + 12 <= cap)	/* a partial header */
		off += (size_t)random() % 12;
	return (uint32_t)off;
}

/* One random but well-formed request on socket handle h of family fam. */
static void rand_req(struct wire_req *req, uint32_t h, int fam, uint8_t *ctl,
		     uint8_t *data)
{
	static const uint32_t types[] = { WIRE_BIND, WIRE_CONNECT, WIRE_SEND,
					  WIRE_SEND, WIRE_SEND, WIRE_SEND,
					  WIRE_SETOPT, WIRE_SETOPT, WIRE_GETOPT,
					  WIRE_GETNAME, WIRE_GETPEER,
					  WIRE_KEEPID };
	static const uint32_t levels[] = { SOL_SOCKET, SOL_IP, SOL_IPV6,
					   SOL_RAW, IPPROTO_ICMPV6 };

	memset(req, 0, sizeof(*req));
	req->type = (uint16_t)(random() % 100 ? types[(size_t)random() % 12]
					      : WIRE_SHUTDOWN);
	req->handle = h;
	switch (req->type) {
	case WIRE_BIND:
	case WIRE_CONNECT:
		req->u.addr.len = rand_name(req->u.addr.bytes, fam);
		break;
	case WIRE_SEND:
		req->u.send.flags = random() % 3 ? 0 : (int32_t)(random() &
			(MSG_DONTWAIT | MSG_CONFIRM | MSG_MORE | MSG_OOB |
			 MSG_ERRQUEUE | MSG_DONTROUTE | 0x10 /* MSG_PROBE */));
		req->u.send.namelen = random() % 6 ?
			rand_name(req->u.send.name, fam) : WIRE_NO_NAME;
		req->u.send.ctllen = random() % 3 ? 0 :
			rand_ctl(ctl, WIRE_CTL_MAX);
		req->u.send.ctl = ctl;
		req->u.send.datalen = (uint32_t)random() % 200;
		for (uint32_t i = 0; i < req->u.send.datalen; i++)
			data[i] = (uint8_t)random();
		if (req->u.send.datalen && random() % 4)
			data[0] = fam == AF_INET6 ? 128 : 8;
		if (req->u.send.datalen > 1 && random() % 4)
			data[1] = 0;
		req->u.send.len = req->u.send.datalen;
		req->u.send.data = data;
		break;
	case WIRE_SETOPT:
	case WIRE_GETOPT:
		req->u.opt.level = (int32_t)pick(levels, 5);
		req->u.opt.name = (int32_t)(random() % 4 ? random() % 80
							 : random());
		req->u.opt.len = random() % 3 ? 4 :
			(uint32_t)random() % (WIRE_OPTVAL_MAX + 1);
		for (uint32_t i = 0; i < req->u.opt.len; i++)
			req->u.opt.val[i] = random() % 2 ? 0 : (uint8_t)random();
		if (random() % 2)
			req->u.opt.val[0] = (uint8_t)(random() % 3);
		break;
	case WIRE_SHUTDOWN:
		req->u.how = (int32_t)(random() % 5) - 1;
		break;
	case WIRE_KEEPID:
		req->u.ident = (uint32_t)random() & 0xFFFF;
		break;
	}
}

/*
 * Well-formed requests with random fields on sockets of our own: every
 * request gets an answer, whatever it asks.  A new socket now and then.
 */
static void frames_deep(int n)
{
	static uint8_t ctl[WIRE_CTL_MAX], data[256], m[WIRE_CTL_MAX + 512];
	struct tally t = { 0 };
	uint32_t h = 0;
	int fd = -1, fam = AF_INET, ok = 0, held[4], nheld = 0;

	srandom((unsigned)getpid() ^ 0xdee9);
	for (int i = 0; i < n; i++) {
		struct wire_req req;
		const char *o;
		long len;

		if (fd < 0)
			fd = hello_conn();
		if (fd < 0)
			break;
		if (!h || random() % 32 == 0) {
			memset(&req, 0, sizeof(req));
			fam = random() % 3 ? AF_INET : AF_INET6;
			req.type = WIRE_OPEN;
			req.u.open.domain = fam;
			req.u.open.type = SOCK_DGRAM;
			req.u.open.protocol = fam == AF_INET ? IPPROTO_ICMP
							     : IPPROTO_ICMPV6;
			len = wire_encode_req(&req, m, sizeof(m));
			send_frame(fd, m, (size_t)len, NULL, 0, NULL);
			/* The socket lives while we hold its descriptors. */
			while (nheld)
				close(held[--nheld]);
			keep_fds = true;
			o = outcome(fd);
			keep_fds = false;
			memcpy(held, answer_fds, sizeof(held));
			nheld = answer_nfds;
			if (strcmp(o, "answered:0") != 0 || answer_len < 12) {
				tally_add(&t, o, "deep-open");
				close(fd);
				fd = -1;
				continue;
			}
			memcpy(&h, answer + WIRE_RESP_HDR, 4);
		}
		rand_req(&req, h, fam, ctl, data);
		len = encode_full(&req, m, sizeof(m));
		if (len < 0)
			continue;
		send_frame(fd, m, (size_t)len, NULL, 0, NULL);
		o = outcome(fd);
		tally_add(&t, o, strncmp(o, "answered:", 9) ? "deep" : NULL);
		if (strncmp(o, "answered:", 9) == 0 && atoi(o + 9) >= 0)
			ok++;
		if (strncmp(o, "answered:", 9) != 0) {
			close(fd);
			fd = -1;
			h = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	while (nheld)
		close(held[--nheld]);
	tally_print("deep", &t);
	printf("deep succeeded=%d\n", ok);
}

static int cmd_frames(int argc, char **argv)
{
	const char *k = argv[2];
	int n = argc > 3 ? atoi(argv[3]) : 100;

	if (strcmp(k, "random") == 0)
		frames_random(n);
	else if (strcmp(k, "typed") == 0)
		frames_typed(n);
	else if (strcmp(k, "deep") == 0)
		frames_deep(n);
	else if (strcmp(k, "truncated") == 0)
		frames_truncated();
	else if (strcmp(k, "pastend") == 0)
		frames_pastend();
	else if (strcmp(k, "fds") == 0)
		frames_fds();
	else if (strcmp(k, "creds") == 0)
		frames_creds();
	else if (strcmp(k, "oversize") == 0)
		frames_oversize();
	else if (strcmp(k, "order") == 0)
		frames_order();
	else
		return 2;
	return 0;
}

/* N sockets, and a second connection that never says anything. */
static int cmd_hold(int argc, char **argv)
{
	int n = atoi(argv[2]), idle = dial_quiet(), i;

	(void)argc;
	for (i = 0; i < n; i++) {
		if (pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP) < 0) {
			printf("socket%d=%s\n", i, ename(errno));
			break;
		}
	}
	printf("held=%d idle=%s\n", i, idle >= 0 ? "connected" : "failed");
	sleep((unsigned)atoi(argv[3]));
	return 0;
}

/*
 * One client that vanishes: connect, then (by variant) nothing, a hello
 * unanswered, an OPEN unanswered, an OPEN whose descriptors it takes
 * and drops, or fifty STATS it never reads.
 */
static int churn_one(int variant, int *keep)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	uint8_t m[64];
	long n;
	int fd = variant < 2 ? dial_quiet() : hello_conn();

	*keep = -1;
	if (fd < 0)
		return -1;
	switch (variant) {
	case 1:
		n = wire_encode_req(&req, m, sizeof(m));
		send_frame(fd, m, (size_t)n, NULL, 0, NULL);
		break;
	case 2:
	case 3:
		req.type = WIRE_OPEN;
		req.u.open.domain = AF_INET;
		req.u.open.type = SOCK_DGRAM;
		req.u.open.protocol = IPPROTO_ICMP;
		n = wire_encode_req(&req, m, sizeof(m));
		send_frame(fd, m, (size_t)n, NULL, 0, NULL);
		if (variant == 3)
			outcome(fd);	/* takes the fds and closes them */
		break;
	case 4:
		req.type = WIRE_STATS;
		n = wire_encode_req(&req, m, sizeof(m));
		for (int i = 0; i < 50; i++)
			send_frame(fd, m, (size_t)n, NULL, 0, NULL);
		break;
	}
	*keep = fd;
	return 0;
}

/* A child that opens a socket through the library, sends, and _exits. */
static void churn_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sockaddr_in to;
		int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

		fill_addr(&to, "127.0.0.1");
		if (fd >= 0)
			send_echo(fd, &to, 1);
		_exit(0);
	}
}

/* ROUNDS times: N clients at once, in every variant, then all gone. */
static int cmd_churn(int argc, char **argv)
{
	int n = atoi(argv[2]), rounds = argc > 3 ? atoi(argv[3]) : 1, made = 0;
	int *fds = calloc((size_t)n, sizeof(int));

	if (!fds)
		return 1;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++) {
			if (churn_one((i + r) % 5, &fds[i]) == 0)
				made++;
			if (i % 20 == 0)
				churn_child();
		}
		/* Close in an order unlike the opening one. */
		for (int i = 0; i < n; i += 2)
			if (fds[i] >= 0)
				close(fds[i]);
		for (int i = 1; i < n; i += 2)
			if (fds[i] >= 0)
				close(fds[i]);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	printf("churned=%d of %d\n", made, n * rounds);
	free(fds);
	return 0;
}

static uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Ping every INTERVAL_MS until a call fails; then print which call, its
 * errno, the time since the last reply and the wall time of the failure
 * (ms), and exit 0.  "up" after the first reply.  With SILENT, every
 * request after the first goes there (an address that does not answer),
 * so that the client sits in poll() waiting.
 */
static int cmd_pingloop(int argc, char **argv)
{
	struct sockaddr_in to;
	int fd = open_sock(), ival = atoi(argv[3]), wait_ms = 2000;
	uint64_t end = real_ms() + 1000u * (uint64_t)atoi(argv[4]), last = 0;
	const char *call = NULL;
	unsigned seq = 0;
	int e = 0;

	fill_addr(&to, argv[2]);
	while (real_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		unsigned char buf[256];

		e = send_echo(fd, &to, ++seq);
		if (e) {
			call = "send";
			break;
		}
		if (pingsock_poll(&p, 1, wait_ms) <= 0) {
			call = "poll";
			e = ETIMEDOUT;
			break;
		}
		if (pingsock_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0) {
			e = errno;
			call = "recv";
			break;
		}
		if (!last)
			printf("up\n");
		last = real_ms();
		if (argc > 5) {
			fill_addr(&to, argv[5]);
			wait_ms = 60000;
		}
		usleep((useconds_t)ival * 1000u);
	}
	if (!call) {
		printf("fail=none\n");
		return 0;
	}
	printf("fail=%s errno=%s since_ok_ms=%llu at_ms=%llu\n", call, ename(e),
	       (unsigned long long)(real_ms() - last),
	       (unsigned long long)real_ms());
	return 0;
}

/*
 * A socket that asked for one reply and waits WAIT_MS more (or until
 * STOPFILE exists): bound to IDENT, IP_RECVERR on, one echo (seq 1) to
 * ADDR.  Prints its reply, "ready", then anything else that arrives (data
 * or error queue), and finally its pending error.  The forged packets
 * must print nothing.
 */
/*
 * The victim's request into pkt (64 bytes): an Echo Request, or a PROBE
 * (RFC 8335) asking for the replier's interface of index 1 (its
 * loopback): an extension structure, version 2, holding one Interface
 * Identification Object (class 3) of C-Type 2 (by index).
 */
static size_t victim_request(unsigned char *pkt, uint8_t type, uint16_t seq)
{
	static const unsigned char ext[12] = {
		0x20, 0, 0, 0,		/* version 2, checksum below */
		0, 8, 3, 2,		/* length 8, class 3, C-Type 2 */
		0, 0, 0, 1,		/* ifindex 1 */
	};
	uint32_t sum = 0;

	memset(pkt, 0, 64);
	pkt[0] = type;
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	if (type != 42 && type != 160) {
		memcpy(pkt + 8, "pingsock-victim", 15);
		return 64;
	}
	memcpy(pkt + 8, ext, sizeof(ext));
	for (size_t i = 0; i < sizeof(ext); i += 2)
		sum += (uint32_t)(ext[i] << 8 | ext[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	pkt[10] = (uint8_t)(~sum >> 8);
	pkt[11] = (uint8_t)~sum;
	return 8 + sizeof(ext);
}

static int cmd_victim(int argc, char **argv)
{
	bool v6 = strchr(argv[2], ':') != NULL;
	int family = v6 ? AF_INET6 : AF_INET, one = 1, err = 0;
	int fd = pingsock_socket(family, SOCK_DGRAM,
				 v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	struct sockaddr_storage ss, me;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	unsigned char pkt[64];
	size_t len;
	uint16_t ident = (uint16_t)atoi(argv[3]);
	socklen_t el = sizeof(err);
	uint64_t end;

	if (fd < 0) {
		printf("socket=%s\n", ename(errno));
		return 1;
	}
	memset(&me, 0, sizeof(me));
	me.ss_family = (sa_family_t)family;
	if (v6)
		((struct sockaddr_in6 *)&me)->sin6_port = htons(ident);
	else
		((struct sockaddr_in *)&me)->sin_port = htons(ident);
	if (pingsock_bind(fd, (struct sockaddr *)&me,
			  v6 ? sizeof(struct sockaddr_in6) : sizeof(*sin))) {
		printf("bind=%s\n", ename(errno));
		return 1;
	}
	pingsock_setsockopt(fd, v6 ? SOL_IPV6 : SOL_IP,
			    v6 ? IPV6_RECVERR : IP_RECVERR, &one, sizeof(one));
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)family;
	if (v6 ? inet_pton(AF_INET6, argv[2], &sin6->sin6_addr) != 1
	       : inet_pton(AF_INET, argv[2], &sin->sin_addr) != 1)
		return 2;
	len = victim_request(pkt, (uint8_t)(argc > 7 ? atoi(argv[6])
						     : v6 ? 128 : 8),
			     (uint16_t)(argc > 7 ? atoi(argv[7]) : 1));
	if (pingsock_sendto(fd, pkt, len, 0, (struct sockaddr *)&ss,
			    v6 ? sizeof(*sin6) : sizeof(*sin)) < 0) {
		printf("send=%s\n", ename(errno));
		return 1;
	}
	end = real_ms() + (uint64_t)atoi(argv[4]);
	for (bool first = true;; first = false) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = (int64_t)(end - real_ms());
		unsigned char buf[512], cbuf[512];
		char from[INET6_ADDRSTRLEN];
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_name = &ss, .msg_namelen = sizeof(ss),
				     .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		ssize_t n;

		if (!first && (left <= 0 ||
			       (argc > 5 && access(argv[5], F_OK) == 0)))
			break;
		if (pingsock_poll(&p, 1, first ? 2000 : left < 100 ? (int)left
								 : 100) <= 0) {
			if (first)
				printf("no-reply\n");
			if (first)
				return 1;
			continue;
		}
		n = pingsock_recvmsg(fd, &mh, MSG_DONTWAIT |
				     (p.revents & POLLERR ? MSG_ERRQUEUE : 0));
		if (n < 0) {
			printf("recv=%s\n", ename(errno));
			continue;
		}
		inet_ntop(family, v6 ? (void *)&sin6->sin6_addr
				     : (void *)&sin->sin_addr,
			  from, sizeof(from));
		if (n < 8) {
			printf("got len=%zd from=%s\n", n, from);
			continue;
		}
		printf("%s type=%u id=%u seq=%u from=%s\n",
		       p.revents & POLLERR ? "error-record" :
		       first ? "reply" : "got", buf[0],
		       (unsigned)(buf[4] << 8 | buf[5]),
		       (unsigned)(buf[6] << 8 | buf[7]), from);
		if (first)
			printf("ready\n");
	}
	pingsock_getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
	printf("so_error=%s end\n", ename(err));
	return 0;
}

/* ---- a client of an impostor daemon (tests/integration/impostor.sh) ---- */

/* Descriptors below the library's own (conn.h: CONN_HIGH_FD). */
static int low_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) < 512)
			n++;
	if (d)
		closedir(d);
	return n;
}

/* "call=N" for a length, "call=OK" for 0, "call=ENAME" for a failure. */
static void said(const char *call, long rc)
{
	const char *n = rc < 0 ? strerrorname_np(errno) : NULL;

	if (rc >= 0)
		rc == 0 ? printf("%s=OK\n", call) : printf("%s=%ld\n", call, rc);
	else if (n)
		printf("%s=%s\n", call, n);
	else
		printf("%s=errno%d\n", call, errno);
}

/* One receive with room for everything (ancillary data too). */
static long recv_all(int fd, int flags)
{
	unsigned char buf[2048], cbuf[1024];
	struct sockaddr_storage ss;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_name = &ss, .msg_namelen = sizeof(ss),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };

	return pingsock_recvmsg(fd, &mh, flags | MSG_DONTWAIT);
}

static void untrusted_calls(int fd)
{
	struct sockaddr_in any = { .sin_family = AF_INET }, to, me;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char pkt[64] = { 8 };
	socklen_t sl = sizeof(me);
	int one = 1, ttl = 0, err = 0;
	socklen_t tl = sizeof(ttl), el = sizeof(err);

	fill_addr(&to, "127.0.0.1");
	said("setopt", pingsock_setsockopt(fd, SOL_IP, IP_RECVERR, &one,
					   sizeof(one)));
	said("bind", pingsock_bind(fd, (struct sockaddr *)&any, sizeof(any)));
	said("send", pingsock_sendto(fd, pkt, sizeof(pkt), 0,
				     (struct sockaddr *)&to, sizeof(to)));
	said("getopt", pingsock_getsockopt(fd, SOL_IP, IP_TTL, &ttl, &tl));
	said("getname", pingsock_getsockname(fd, (struct sockaddr *)&me, &sl));
	said("errq1", recv_all(fd, MSG_ERRQUEUE));
	pingsock_poll(&p, 1, 5000);	/* returns when the reply is in */
	said("peek", recv_all(fd, MSG_PEEK));
	said("recv1", recv_all(fd, 0));
	said("errq2", recv_all(fd, MSG_ERRQUEUE));
	said("soerror", pingsock_getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
					    &el) ? -1 : err);
	said("recv2", recv_all(fd, 0));
}

static int cmd_untrusted(void)
{
	int before = low_fds(), fd;

	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	said("socket", fd < 0 ? -1 : 0);
	if (fd >= 0)
		printf("flags=%s\n", fcntl(fd, F_GETFL) & (O_NONBLOCK | O_ASYNC)
					     ? "changed" : "as_new");
	if (fd >= 0) {
		untrusted_calls(fd);
		said("close", pingsock_close(fd));
	}
	printf("leak=%d\n", low_fds() - before);
	return 0;
}

/* Two sockets at once (an impostor that gives both one state slot:
 * the second is refused), then both closed. */
static int cmd_twosocks(void)
{
	int before = low_fds(), a, b;

	a = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	said("socket1", a < 0 ? -1 : 0);
	b = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	said("socket2", b < 0 ? -1 : 0);
	if (a >= 0)
		said("close1", pingsock_close(a));
	if (b >= 0)
		said("close2", pingsock_close(b));
	printf("leak=%d\n", low_fds() - before);
	return 0;
}

/* Mappings of an impostor's arena (its memfd's name) in this process. */
static int arena_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "memfd:impostor-arena") != NULL;
	if (f)
		fclose(f);
	return n;
}

/* CALLS calls on one socket, each of which an impostor (arena-fresh)
 * answers on a new connection with a new arena: how many the process
 * maps, and how the calls went. */
static int cmd_arenas(int argc, char **argv)
{
	int calls = argc > 2 ? atoi(argv[2]) : 100, ok = 0, failed = 0;
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	said("socket", fd < 0 ? -1 : 0);
	for (int i = 0; fd >= 0 && i < calls; i++) {
		int ttl = 0;
		socklen_t len = sizeof(ttl);

		if (pingsock_getsockopt(fd, SOL_IP, IP_TTL, &ttl, &len) == 0)
			ok++;
		else
			failed++;
	}
	printf("calls_ok=%d calls_failed=%d arenas=%d\n", ok, failed,
	       arena_maps());
	return 0;
}

/* bufhold (SO_RCVBUF 4 MiB: big) and bufmany (the default). */
static int cmd_buf(char **argv, bool big)
{
	int n = atoi(argv[2]), k = atoi(argv[3]), len = atoi(argv[4]);
	static unsigned char pkt[65536], buf[65536];
	const struct timespec pause = { 1, 0 };
	struct sockaddr_in to;
	long long queued = 0;
	int over2 = 0, rcvbuf = 4 << 20, *fds;

	if (n < 1 || n > 4096 || len < 8 || len > (int)sizeof(pkt) ||
	    !(fds = calloc((size_t)n, sizeof(*fds))))
		return 2;
	fill_addr(&to, "127.0.0.1");
	pkt[0] = 8;	/* Echo Request */
	for (int i = 0; i < n; i++) {
		fds[i] = open_sock();
		if (big)
			pingsock_setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF,
					    &rcvbuf, sizeof(rcvbuf));
		for (int j = 0; j < k; j++)
			pingsock_sendto(fds[i], pkt, (size_t)len, 0,
					(struct sockaddr *)&to, sizeof(to));
	}
	nanosleep(&pause, NULL);
	for (int i = 0; i < n; i++) {
		ssize_t got;
		int replies = 0;

		while ((got = pingsock_recv(fds[i], buf, sizeof(buf),
					    MSG_DONTWAIT)) > 0) {
			queued += got;
			replies++;
		}
		over2 += replies > 2;
		pingsock_close(fds[i]);
	}
	free(fds);
	printf("queued=%lld\nover2=%d\n", queued, over2);
	return 0;
}

/* A socket, a request about it (what the impostor puts on the pair comes
 * after one: a new socket has had nothing to say), and the reply the
 * impostor queues ("socket=", "recv1="); the socket, or -1. */
static int impostor_reply(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), ttl = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	socklen_t len = sizeof(ttl);

	said("socket", fd < 0 ? -1 : 0);
	if (fd < 0)
		return -1;
	(void)pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len);
	pingsock_poll(&p, 1, 1000);
	said("recv1", recv_all(fd, 0));
	return fd;
}

static int cmd_wakeflood(void)
{
	int fd = impostor_reply(), q = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	const struct timespec fill = { 0, 200000000 };

	if (fd < 0)
		return 0;
	nanosleep(&fill, NULL);	/* the flood fills the pair */
	said("recv2", recv_all(fd, 0));
	/* The descriptor's own queue and poll() (not the socket's calls):
	 * is the flood still writing?  One look at the queue is not
	 * enough: on a busy machine the flood's writer may be waiting for
	 * a processor just then, with the queue drained.  A flood that is
	 * still on writes again within seconds; one that ended (the old
	 * receive returned only then) never does. */
	if (ioctl(fd, SIOCINQ, &q) != 0)
		return 0;
	if (q == 0) {
		/* Written again, not hung up: a flood's end (the impostor
		 * gone) would make the pair readable too. */
		p.revents = 0;
		if (poll(&p, 1, 5000) == 1 && (p.revents & POLLIN) &&
		    !(p.revents & POLLHUP) && ioctl(fd, SIOCINQ, &q) != 0)
			q = 0;
	}
	printf("after=%s\n", q > 0 ? "queued" : "empty");
	return 0;
}

/* As a client of impostor dg-wake-trickle: the reply, then a blocking
 * receive with SO_RCVTIMEO 1 s while wake-ups keep coming ("recv2=" and
 * how long it took, "ms="). */
static int cmd_rcvtimeo(void)
{
	int fd = impostor_reply();
	struct timeval tv = { .tv_sec = 1 };
	struct timespec t0, t1;
	char buf[256];

	if (fd < 0)
		return 0;
	said("setopt", pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
					   sizeof(tv)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	said("recv2", pingsock_recv(fd, buf, sizeof(buf), 0));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ms=%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000 +
				(t1.tv_nsec - t0.tv_nsec) / 1000000);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && strcmp(argv[1], "arenas") == 0)
		return cmd_arenas(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "ping") == 0)
		return cmd_ping(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "bind") == 0)
		return cmd_bind(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "broker") == 0)
		return cmd_broker(argc, argv);
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
	if (argc >= 3 && strcmp(argv[1], "frames") == 0)
		return cmd_frames(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "hold") == 0)
		return cmd_hold(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "churn") == 0)
		return cmd_churn(argc, argv);
	if (argc >= 5 && strcmp(argv[1], "pingloop") == 0)
		return cmd_pingloop(argc, argv);
	if (argc >= 5 && strcmp(argv[1], "victim") == 0)
		return cmd_victim(argc, argv);
	if (argc >= 5 && strcmp(argv[1], "bufhold") == 0)
		return cmd_buf(argv, true);
	if (argc >= 5 && strcmp(argv[1], "bufmany") == 0)
		return cmd_buf(argv, false);
	if (argc >= 2 && strcmp(argv[1], "wakeflood") == 0)
		return cmd_wakeflood();
	if (argc >= 2 && strcmp(argv[1], "untrusted") == 0)
		return cmd_untrusted();
	if (argc >= 2 && strcmp(argv[1], "twosocks") == 0)
		return cmd_twosocks();
	if (argc >= 2 && strcmp(argv[1], "rcvtimeo") == 0)
		return cmd_rcvtimeo();
	fprintf(stderr, "usage: pstool ping|bind|pair|garbage|rawsend ...\n");
	return 2;
}
