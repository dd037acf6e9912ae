/* SPDX-License-Identifier: ISC */
/*
 * attack - the attacks of issue 15's audit, as a local user would make
 * them, for tests/integration/security.sh.  Each prints what it got, one
 * "name=value" line (or a few); the script decides what is harm.
 *
 *   attack race DIR NAME VICTIM STOPFILE
 *        finding 1: swap the daemon's fresh socket DIR/NAME for a symbolic
 *        link to VICTIM, at once (inotify) and from a tight polling loop,
 *        until STOPFILE exists; prints "race swaps=N"
 *   attack linger hello|data|empty|reset GOFILE STOPFILE
 *        finding 2: a TCP socket whose close blocks (SO_LINGER 30 s,
 *        unacknowledged data, a peer that never reads), passed to the
 *        daemon once GOFILE exists, on a new control connection before
 *        HELLO, or on a socket's data descriptor; holds the peer until
 *        STOPFILE exists.  empty and reset pass it on a control
 *        connection and hang up at once, after an empty record (a read
 *        of it returns 0, as the end does) or with the answer to a HELLO
 *        unread (the daemon's first read fails, ECONNRESET): what the
 *        daemon drains on its way out stops before the descriptor
 *   attack steal IDENT SECONDS
 *        finding 3: a broker socket unbound with the kernel's
 *        connect(AF_UNSPEC) and bound again to IDENT with the kernel's
 *        bind(); counts what it receives for SECONDS
 *   attack victim ADDR IDENT SECONDS
 *        a socket bound to IDENT (through the library) that pings ADDR
 *        every 100 ms for SECONDS; prints "victim sent=N replies=M"
 *   attack conns N STOPFILE
 *        finding 5: N control connections of one uid, each saying HELLO;
 *        which were refused (closed by the daemon) and when
 *   attack park N SIZE STOPFILE
 *        finding 6: one socket attached on N connections (proof and
 *        WIRE_ATTACH made here), each sending an Echo Request of SIZE
 *        bytes; the answers that come at once, the ones that wait
 *   attack bbind N STOPFILE
 *        finding 7: one broker socket (WIRE_OPEN made here) and N
 *        WIRE_BROKER_BINDs for it (with proofs), every socket kept
 *   attack dupbind N STOPFILE
 *        finding 7 through the library: N times socket(), dup(), bind();
 *        then one more socket()
 *   attack hoard START COUNT ADDR STOPFILE
 *        finding 9: emulated raw sockets (PINGSOCK_RAW=echo), Echo
 *        Requests to ADDR with identifiers START.. (COUNT of them, 256 a
 *        socket) until one is refused; holds them until STOPFILE exists
 *   attack keeplive N STOPFILE
 *        rv13 finding 3: N broker sockets, each kernel socket closed at
 *        once and its liveness descriptor kept (opens refused EMFILE are
 *        tried again for 3 s, while scans find the closed ones), held
 *        until STOPFILE exists ("keeplive opened=K last=ERR", "holding")
 *   attack rebindleak
 *        rv14 finding 2: a broker socket's kernel socket closed (a scan
 *        in between), its record bound again (WIRE_BROKER_BIND), that
 *        socket closed, the liveness descriptor closed (a scan after
 *        each); then one more socket ("rebindleak rebind=E again=E")
 *   attack dests N M STOPFILE
 *        rv10 finding 6: N sockets, each sending to M destinations of
 *        its own (127.a.b.c), held until STOPFILE exists ("holding")
 *   attack malformed N
 *        finding 13: N connections that each say HELLO, then send a
 *        malformed request
 *   attack slotproto
 *        the answer slot's protocol broken (WIRE_WAIT with nothing to
 *        wait for, WIRE_RQ_SLOT with another flag or on another request),
 *        and kept: a send answered in the slot, then WIRE_WAIT for it
 *
 * The proof of holding a socket (wire.h: struct wire_proof) is made here,
 * not by the library.  Built against an older wire.h (no proofs: the
 * protocol passed the descriptor itself) it passes descriptors instead,
 * so that the same attacks run against the code before the fixes.
 * Requests go to $PINGSOCK_SOCKET.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <stdatomic.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inetsum.h"
#include "pingsock.h"
#include "wire/wire.h"

#define MAX_CONNS 8192
#define ANSWER_FDS 4

static const char *ename(int e)
{
	static const struct {
		int e;
		const char *n;
	} names[] = {
		{ 0, "0" }, { EPERM, "EPERM" }, { EACCES, "EACCES" },
		{ EINVAL, "EINVAL" }, { EAGAIN, "EAGAIN" },
		{ EMFILE, "EMFILE" }, { ENOBUFS, "ENOBUFS" },
		{ EADDRINUSE, "EADDRINUSE" }, { EBADF, "EBADF" },
		{ ECONNRESET, "ECONNRESET" }, { ECONNREFUSED, "ECONNREFUSED" },
		{ EPIPE, "EPIPE" }, { ENOENT, "ENOENT" }, { EPROTO, "EPROTO" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { ENOMEM, "ENOMEM" },
	};
	static char other[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(other, sizeof(other), "errno%d", e);
	return other;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Until path exists (checked every 50 ms). */
static void wait_file(const char *path)
{
	while (!exists(path))
		usleep(50000);
}

/* ---- the control channel, by hand ---- */

/* A new connection to the daemon; -1 (errno EAGAIN: its backlog is full,
 * a daemon that does not accept) rather than a wait. */
static int dial(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *p = getenv("PINGSOCK_SOCKET");
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
		 p ? p : PINGSOCK_DEFAULT_SOCKET);
	if (fd >= 0 && (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
			fcntl(fd, F_SETFL, 0))) {
		int e = errno;

		close(fd);
		errno = e;
		fd = -1;
	}
	return fd;
}

/* One message with up to ANSWER_FDS descriptors: 0 or errno. */
static int send_msg(int fd, const void *buf, size_t len, const int *fds,
		    int nfds)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(ANSWER_FDS * sizeof(int))];
	} cbuf;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 0) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.b;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? errno : 0;
}

struct answer {
	int32_t result;
	uint8_t body[256];
	size_t blen;
	int fds[ANSWER_FDS];
	int nfds;
};

enum { ANS_OK, ANS_CLOSED, ANS_TIMEOUT };

static void answer_fds(struct msghdr *mh, struct answer *a)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; cm->cmsg_type == SCM_RIGHTS && i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(f));
			if (a->nfds < ANSWER_FDS)
				a->fds[a->nfds++] = f;
			else
				close(f);
		}
	}
}

/* The daemon's answer within ms: ANS_OK (a filled), ANS_CLOSED, ANS_TIMEOUT. */
static int get_answer(int fd, int ms, struct answer *a)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(ANSWER_FDS * sizeof(int))];
	} cbuf;
	uint8_t buf[WIRE_RESP_HDR + sizeof(a->body)];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	memset(a, 0, sizeof(*a));
	if (poll(&p, 1, ms) <= 0)
		return ANS_TIMEOUT;
	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n > 0)
		answer_fds(&mh, a);
	if (n < WIRE_RESP_HDR) {
		for (int i = 0; i < a->nfds; i++)
			close(a->fds[i]);
		a->nfds = 0;
		return ANS_CLOSED;
	}
	memcpy(&a->result, buf + 4, sizeof(a->result));
	a->blen = (size_t)n - WIRE_RESP_HDR;
	memcpy(a->body, buf + WIRE_RESP_HDR, a->blen);
	return ANS_OK;
}

static void answer_close(struct answer *a)
{
	for (int i = 0; i < a->nfds; i++)
		close(a->fds[i]);
	a->nfds = 0;
}

/* A request (SEND: its data after it), sent with descriptors; 0 or errno. */
static int send_req(int fd, const struct wire_req *req, const uint8_t *data,
		    size_t dlen, const int *fds, int nfds)
{
	static uint8_t buf[WIRE_MSG_MAX];
	long n = wire_encode_req(req, buf, sizeof(buf));

	if (n < 0 || (size_t)n + dlen > sizeof(buf))
		return EMSGSIZE;
	if (dlen)
		memcpy(buf + n, data, dlen);
	return send_msg(fd, buf, (size_t)n + dlen, fds, nfds);
}

/* Send and wait for the answer (3 s): ANS_*, or -errno of the send. */
static int call(int fd, const struct wire_req *req, const int *fds, int nfds,
		struct answer *a)
{
	int e;

	memset(a, 0, sizeof(*a));
	e = send_req(fd, req, NULL, 0, fds, nfds);

	if (e)
		return -e;
	return get_answer(fd, 3000, a);
}

/* A connection that said HELLO and was answered 0; -1 if not. */
/* A new connection past HELLO, in the arena whose token is tok (zeros:
 * a new one; its token is then put there), as a process's connections
 * are in the library; tok NULL: a new arena each time. */
static int hello_in(int ms, uint8_t *tok)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	struct answer a;
	int fd = dial();

	if (fd < 0)
		return -1;
	if (tok)
		memcpy(req.nonce, tok, sizeof(req.nonce));
	if (send_req(fd, &req, NULL, 0, NULL, 0) ||
	    get_answer(fd, ms, &a) != ANS_OK || a.result != 0) {
		close(fd);
		return -1;
	}
	if (tok && a.blen >= sizeof(req.nonce))
		memcpy(tok, a.body, sizeof(req.nonce));
	answer_close(&a);
	return fd;
}

static int hello_conn(int ms)
{
	return hello_in(ms, NULL);
}

/* WIRE_OPEN of an ICMP socket of family; the answer in *a (fds kept). */
static int open_req(int conn, int family, int type, struct answer *a)
{
	struct wire_req req = { .type = WIRE_OPEN };

	req.u.open.domain = family;
	req.u.open.type = type;
	req.u.open.protocol = family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	return call(conn, &req, NULL, 0, a);
}

#ifdef WIRE_NONCE_LEN
/*
 * The proof of holding a socket (wire.h): a fresh random nonce written
 * on the socket's own descriptor, then named in the request.
 */
struct proof {
	uint32_t magic;
	uint8_t nonce[WIRE_NONCE_LEN];
};

static int prove(int sockfd, uint8_t *nonce)
{
	struct proof pf = { .magic = WIRE_PROOF_MAGIC };

	if (getrandom(pf.nonce, sizeof(pf.nonce), 0) != sizeof(pf.nonce))
		return errno;
	memcpy(nonce, pf.nonce, sizeof(pf.nonce));
	return send(sockfd, &pf, sizeof(pf), MSG_NOSIGNAL) == sizeof(pf) ? 0
									 : errno;
}
#endif

/* WIRE_ATTACH of handle h, whose data descriptor is datafd. */
static int attach_req(int conn, uint32_t h, int datafd, struct answer *a)
{
	struct wire_req req = { .type = WIRE_ATTACH, .handle = h };

	memset(a, 0, sizeof(*a));
#ifdef WIRE_NONCE_LEN
	int e = prove(datafd, req.nonce);

	return e ? -e : call(conn, &req, NULL, 0, a);
#else
	return call(conn, &req, &datafd, 1, a);	/* before proofs */
#endif
}

/* WIRE_BROKER_BIND of broker socket h (liveness livefd, the kernel
 * socket ksock) to an automatic identifier. */
static int bbind_req(int conn, uint32_t h, int livefd, int ksock,
		     struct answer *a)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct wire_req req = { .type = WIRE_BROKER_BIND };

	memset(a, 0, sizeof(*a));
	req.u.addr.len = sizeof(any);
	memcpy(req.u.addr.bytes, &any, sizeof(any));
#ifdef WIRE_NONCE_LEN
	int e = prove(livefd, req.nonce);

	req.handle = h;
	req.flags = WIRE_BB_REUSE;
	(void)ksock;
	return e ? -e : call(conn, &req, NULL, 0, a);
#else
	(void)h;
	(void)livefd;
	return call(conn, &req, &ksock, 1, a);	/* before proofs */
#endif
}

/* ---- finding 1: the socket swapped for a link at start-up ---- */

static int swaps;

static void swap_in(const char *dir, const char *name, const char *victim)
{
	char tmp[4096], path[4096];

	snprintf(tmp, sizeof(tmp), "%s/.race.%d", dir, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(tmp);
	if (symlink(victim, tmp) == 0 && rename(tmp, path) == 0)
		swaps++;
}

/* The tight loop: whenever the name is a socket, swap it. */
static void race_poll(const char *dir, const char *name, const char *victim,
		      const char *stop)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (unsigned i = 0;; i++) {
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			swap_in(dir, name, victim);
		if (i % 4096 == 0 && exists(stop))
			break;
	}
	printf("race poll_swaps=%d\n", swaps);
}

/* The inotify racer: the moment the name is created, swap it (bound
 * there, or renamed there from a name of the daemon's own: IN_MOVED_TO). */
static int cmd_race(char **argv)
{
	const char *dir = argv[2], *name = argv[3], *victim = argv[4];
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	pid_t child;

	/* Its command line names pingsockd-race...: the daemons of other
	 * tests (privdrop.c) take it for a pingsockd of their user. */
	prctl(PR_SET_NAME, "pingsockd-race");
	if (in < 0 || inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		perror("attack: inotify");
		return 1;
	}
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* not left spinning */
		race_poll(dir, name, victim, argv[5]);
		_exit(0);
	}
	while (!exists(argv[5])) {
		struct pollfd p = { .fd = in, .events = POLLIN };
		char buf[4096] __attribute__((aligned(8)));
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(in, buf, sizeof(buf));
		for (ssize_t off = 0; n > 0 && off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);

			if (ev->len && strcmp(ev->name, name) == 0)
				swap_in(dir, name, victim);
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
	}
	waitpid(child, NULL, 0);
	printf("race inotify_swaps=%d\n", swaps);
	return 0;
}

/* ---- finding 2: a descriptor whose close blocks ---- */

/*
 * A connected TCP pair on 127.0.0.1: *rcv never reads, *snd has its
 * send queue full of data the peer will not acknowledge (zero window)
 * and SO_LINGER {1, 30}: its last close waits up to 30 s.
 */
static int linger_pair(int *snd, int *rcv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sin);
	struct linger lg = { 1, 30 };
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), small = 4096;
	static char junk[65536];
	long queued = 0;
	ssize_t n;

	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&sin, &sl))
		return -1;
	*snd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(*snd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (connect(*snd, (struct sockaddr *)&sin, sizeof(sin)))
		return -1;
	*rcv = accept(l, NULL, NULL);
	close(l);
	if (*rcv < 0)
		return -1;
	while ((n = send(*snd, junk, sizeof(junk), MSG_DONTWAIT)) > 0)
		queued += n;
	if (setsockopt(*snd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		return -1;
	printf("linger queued=%ld\n", queued);
	return 0;
}

/* Where the descriptor goes: a new control connection, or the data
 * descriptor of a socket of ours.  reset: the connection has an answer
 * to a HELLO waiting, unread. */
static int linger_target(const char *mode)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	struct pollfd pfd;
	int fd;

	if (strcmp(mode, "data") == 0) {
		fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		if (fd < 0)
			printf("socket=%s\n", ename(errno));
		return fd;
	}
	fd = dial();
	if (fd >= 0 && strcmp(mode, "reset") == 0) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (send_req(fd, &req, NULL, 0, NULL, 0) ||
		    poll(&pfd, 1, 3000) != 1) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Was the passed socket closed abortively, within 10 s?  Made so
 * (SO_LINGER 0) by the daemon, its close resets the connection at once;
 * one still held, or whose close waits out its 30 s linger, does not.
 * Nothing is read: a read would open the window the linger waits on. */
static bool peer_reset(int rcv)
{
	struct pollfd pfd = { .fd = rcv, .events = 0 };
	uint64_t end = now_ms() + 10000;

	while (now_ms() < end) {
		if (poll(&pfd, 1, 100) < 0)
			return false;
		if (pfd.revents & (POLLERR | POLLHUP))
			return true;
	}
	return false;
}

/* Pass snd on to, as mode says: 0 or errno. */
static int linger_pass(int to, const char *mode, int snd)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	int e;

	if (strcmp(mode, "data") == 0 || strcmp(mode, "reset") == 0)
		return send_msg(to, "x", 1, &snd, 1);
	if (strcmp(mode, "hello") == 0)
		return send_req(to, &req, NULL, 0, &snd, 1);
	e = send_msg(to, "", 0, NULL, 0);	/* empty */
	return e ? e : send_msg(to, "x", 1, &snd, 1);
}

/*
 * The descriptor goes when GOFILE exists (the test stops the daemon
 * meanwhile, so that the daemon's reference is the last one whichever
 * process is scheduled first: the attacker may simply retry until it
 * wins that race), and the attacker's own copy is closed at once.
 * empty and reset hang up at once too.
 */
static int cmd_linger(char **argv)
{
	int snd, rcv, to = linger_target(argv[2]), e;
	bool hangup = strcmp(argv[2], "empty") == 0 ||
		      strcmp(argv[2], "reset") == 0;

	if (to < 0 || linger_pair(&snd, &rcv)) {
		perror("attack: linger set-up");
		return 1;
	}
	printf("ready\n");
	wait_file(argv[3]);
	e = linger_pass(to, argv[2], snd);
	if (!e)
		close(snd);	/* the daemon's reference is the last */
	if (hangup)
		close(to);
	printf("send=%s\n", e ? ename(e) : "ok");
	printf("passed\n");
	fflush(stdout);
	/* "peer=" ends the test's wait: at once when nothing was passed,
	 * or when the descriptor went on a data descriptor, where it is
	 * held while the socket lives (no reset to wait 10 s for). */
	if (e)
		printf("peer=none\n");
	else if (strcmp(argv[2], "data") == 0)
		printf("peer=held\n");
	else
		printf("peer=%s\n", peer_reset(rcv) ? "reset" : "open");
	fflush(stdout);
	wait_file(argv[4]);
	/* The peer goes first: its reset ends any close that waits. */
	close(rcv);
	if (e)
		close(snd);
	return 0;
}

/* ---- finding 3: replies stolen in broker mode ---- */

static int cmd_steal(char **argv)
{
	struct sockaddr_in v = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)atoi(argv[2])) };
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), got = 0;
	uint64_t end = now_ms() + 1000u * (uint64_t)atoi(argv[3]);
	long rc;

	if (fd < 0) {
		printf("socket=%s\n", ename(errno));
		return 1;
	}
	printf("backend=%s\n", pingsock_backend(fd) == PINGSOCK_BACKEND_BROKER
				       ? "broker" : "other");
	/* The kernel's calls, not the library's. */
	rc = syscall(SYS_connect, fd, &unspec, sizeof(unspec));
	printf("unbind=%s\n", rc ? ename(errno) : "0");
	rc = syscall(SYS_bind, fd, &v, sizeof(v));
	printf("bind=%s\n", rc ? ename(errno) : "0");
	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[512];

		if (poll(&p, 1, 100) > 0 &&
		    recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			got++;
	}
	printf("stolen=%d\n", got);
	return 0;
}

static int cmd_victim(char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET },
			   me = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)atoi(argv[3])) };
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	unsigned sent = 0, replies = 0;
	uint64_t end = now_ms() + 1000u * (uint64_t)atoi(argv[4]);

	if (fd < 0 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1 ||
	    pingsock_bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		printf("victim=%s\n", ename(errno));
		return 1;
	}
	printf("victim ready\n");
	while (now_ms() < end) {
		unsigned char pkt[32] = { 8, 0, 0, 0, 0, 0, 0, (uint8_t)sent };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t due = now_ms() + 100;
		char buf[512];

		if (pingsock_sendto(fd, pkt, sizeof(pkt), 0,
				    (struct sockaddr *)&to, sizeof(to)) > 0)
			sent++;
		while (now_ms() < due && pingsock_poll(&p, 1, 20) >= 0)
			if ((p.revents & POLLIN) &&
			    pingsock_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				replies++;
	}
	printf("victim sent=%u replies=%u\n", sent, replies);
	return 0;
}

/* ---- finding 5: connections of one uid ---- */

static int cmd_conns(char **argv)
{
	int n = atoi(argv[2]), accepted = 0, refused = 0, hung = 0, fail = 0;
	int first = 0, slow = 0, e = 0;

	for (int i = 1; i <= n && i <= MAX_CONNS && hung < 5; i++) {
		struct wire_req req = { .type = WIRE_HELLO,
					.u.version = WIRE_VERSION };
		struct answer a;
		uint64_t t0 = now_ms();
		int fd = dial(), r;

		if (fd < 0) {
			fail++;
			e = errno;
			continue;
		}
		r = send_req(fd, &req, NULL, 0, NULL, 0) ? ANS_CLOSED
			: get_answer(fd, 3000, &a);
		if (r == ANS_OK && a.result == 0) {
			accepted++;	/* and held open */
			continue;
		}
		if (r == ANS_TIMEOUT)
			hung++;
		else
			refused++;
		if (r == ANS_CLOSED && !first)
			first = i;
		if (r == ANS_CLOSED && now_ms() - t0 > 1000)
			slow++;
		close(fd);
	}
	printf("conns accepted=%d refused=%d first_refused=%d slow_refusals=%d "
	       "no_answer=%d connect_failed=%d%s%s\n", accepted, refused, first,
	       slow, hung, fail, fail ? " connect_errno=" : "",
	       fail ? ename(e) : "");
	printf("holding\n");
	wait_file(argv[3]);
	return 0;
}

/* ---- finding 6: sends parked on many connections ---- */

struct tally {
	int ok, enobufs, other, closed;
};

/* Answers to the sends on conns[0..n) until none comes for quiet_ms;
 * done[i] marks those answered. */
static void collect(const int *conns, bool *done, int n, int quiet_ms,
		    struct tally *t)
{
	static struct pollfd p[MAX_CONNS];
	static int idx[MAX_CONNS];

	for (;;) {
		int np = 0;

		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			p[np].fd = conns[i];
			p[np].events = POLLIN;
			idx[np++] = i;
		}
		if (!np || poll(p, (nfds_t)np, quiet_ms) <= 0)
			return;
		for (int k = 0; k < np; k++) {
			struct answer a;

			if (!p[k].revents)
				continue;
			done[idx[k]] = true;
			if (get_answer(p[k].fd, 0, &a) != ANS_OK)
				t->closed++;
			else if (a.result >= 0)
				t->ok++;
			else if (a.result == -ENOBUFS)
				t->enobufs++;
			else
				t->other++;
			answer_close(&a);
		}
	}
}

/* A WIRE_SEND of an Echo Request of size bytes to 127.0.0.1 on handle h. */
static int send_big(int conn, uint32_t h, const uint8_t *pkt, uint32_t size)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct wire_req req = { .type = WIRE_SEND, .handle = h };

	req.u.send.len = size;
	req.u.send.datalen = size;
	req.u.send.namelen = sizeof(to);
	memcpy(req.u.send.name, &to, sizeof(to));
	return send_req(conn, &req, pkt, size, NULL, 0);
}

/* One socket of ours: its handle and data descriptor. */
static int own_socket(uint32_t *h, int *datafd)
{
	struct answer a;
	int c0 = hello_conn(3000);

	if (c0 < 0 || open_req(c0, AF_INET, SOCK_DGRAM, &a) != ANS_OK ||
	    a.result != 0 || a.blen < 4 || a.nfds < 1) {
		printf("open failed\n");
		return -1;
	}
	memcpy(h, a.body, sizeof(*h));
	*datafd = a.fds[0];
	for (int i = 1; i < a.nfds; i++)
		close(a.fds[i]);
	return c0;
}

static int cmd_park(char **argv)
{
	static int conns[MAX_CONNS];
	static bool done[MAX_CONNS];
	static uint8_t pkt[WIRE_DATA_MAX] = { 8 };
	int n = atoi(argv[2]), nc = 0, refused = 0, datafd;
	uint32_t size = (uint32_t)atoi(argv[3]), h;
	struct tally now = { 0 }, later = { 0 };
	uint8_t tok[WIRE_NONCE_LEN] = { 0 };

	if (n > MAX_CONNS || size > sizeof(pkt) || own_socket(&h, &datafd) < 0)
		return 1;
	/* The connections of one process: one arena (a socket's state is
	 * kept in 64 at most). */
	for (int i = 0; i < n; i++) {
		struct answer a;
		int c = hello_in(3000, tok), r;

		if (c < 0)
			break;
		r = attach_req(c, h, datafd, &a);
		answer_close(&a);
		if (r != ANS_OK || a.result != 0 || send_big(c, h, pkt, size)) {
			refused++;
			close(c);
			continue;
		}
		conns[nc++] = c;
	}
	collect(conns, done, nc, 300, &now);
	printf("park attached=%d attach_failed=%d at_once: ok=%d enobufs=%d "
	       "other=%d closed=%d; waiting=%d\n", nc, refused, now.ok,
	       now.enobufs, now.other, now.closed,
	       nc - now.ok - now.enobufs - now.other - now.closed);
	printf("holding\n");
	wait_file(argv[4]);
	collect(conns, done, nc, 1500, &later);
	printf("park later: ok=%d enobufs=%d other=%d closed=%d\n", later.ok,
	       later.enobufs, later.other, later.closed);
	return 0;
}

/* ---- finding 7: kernel sockets past max_sockets ---- */

static void result_list(char *list, size_t cap, int r, const struct answer *a)
{
	size_t l = strlen(list);

	snprintf(list + l, cap - l, "%s%s", l ? "," : "",
		 r == ANS_OK ? ename(a->result < 0 ? -a->result : 0)
			     : r == ANS_CLOSED ? "closed" : "no-answer");
}

static int cmd_bbind(char **argv)
{
	char list[1024] = "";
	struct answer a;
	int n = atoi(argv[2]), c = hello_conn(3000), ksock, live, ok = 0;
	uint32_t h, kind;

	if (c < 0 || open_req(c, AF_INET, SOCK_DGRAM, &a) != ANS_OK ||
	    a.result != 0 || a.blen < 8 || a.nfds < 2) {
		printf("bbind open failed\n");
		return 1;
	}
	memcpy(&h, a.body, 4);
	memcpy(&kind, a.body + 4, 4);
	ksock = a.fds[0];
	live = a.fds[1];
	printf("bbind open kind=%s\n", kind == WIRE_OPEN_BROKER ? "broker"
								 : "other");
	for (int i = 0; i < n; i++) {
		int r = bbind_req(c, h, live, ksock, &a);

		result_list(list, sizeof(list), r, &a);
		if (r == ANS_OK && a.result == 0 && a.nfds > 0) {
			ok++;	/* every socket it got is kept */
			ksock = a.fds[0];	/* (before proofs: the newest
						 * names the socket) */
		}
	}
	printf("bbind ok=%d results=%s\n", ok, list);
	printf("holding\n");
	wait_file(argv[3]);
	return 0;
}

static int cmd_keeplive(char **argv)
{
	int n = atoi(argv[2]), c = hello_conn(3000), opened = 0, last = 0;
	struct timespec t0, t;
	struct answer a;

	if (c < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (t = t0; opened < n && t.tv_sec - t0.tv_sec < 3;
	     clock_gettime(CLOCK_MONOTONIC, &t)) {
		if (open_req(c, AF_INET, SOCK_DGRAM, &a) != ANS_OK)
			break;
		last = a.result < 0 ? -a.result : 0;
		if (a.result == 0 && a.nfds >= 2) {
			close(a.fds[0]);	/* the kernel socket; the
						 * liveness end kept */
			opened++;
		} else {
			answer_close(&a);
			usleep(20000);
		}
	}
	printf("keeplive opened=%d last=%s\nholding\n", opened, ename(last));
	fflush(stdout);
	wait_file(argv[3]);
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int cmd_rebindleak(char **argv)
{
	int c = hello_conn(3000), live, rebind, again;
	struct answer a;
	uint32_t h;

	if (c < 0 || open_req(c, AF_INET, SOCK_DGRAM, &a) != ANS_OK ||
	    a.result != 0 || a.blen < 4 || a.nfds < 2) {
		printf("rebindleak open failed\n");
		return 1;
	}
	memcpy(&h, a.body, 4);
	close(a.fds[0]);
	live = a.fds[1];
	pause_ms(1500);		/* a scan (once a second): socket gone */
	rebind = bbind_req(c, h, live, -1, &a) == ANS_OK ? -a.result : EPROTO;
	if (rebind == 0 && a.nfds > 0)
		close(a.fds[0]);
	pause_ms(1500);		/* that one gone too */
	close(live);
	pause_ms(1500);		/* the record gone */
	again = open_req(c, AF_INET, SOCK_DGRAM, &a) == ANS_OK ? -a.result
							       : EPROTO;
	printf("rebindleak rebind=%s again=%s\n", ename(rebind), ename(again));
	(void)argv;
	return 0;
}

static int cmd_dupbind(char **argv)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	int n = atoi(argv[2]), fd;

	for (int i = 1; i <= n; i++) {
		fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		if (fd < 0) {
			printf("socket%d=%s\n", i, ename(errno));
			break;
		}
		if (dup(fd) < 0)	/* kept: the old kernel socket lives */
			printf("dup%d=%s\n", i, ename(errno));
		printf("bind%d=%s\n", i, pingsock_bind(fd, (struct sockaddr *)&any,
						       sizeof(any))
					       ? ename(errno) : "0");
	}
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	printf("further=%s\n", fd < 0 ? ename(errno) : "0");
	printf("holding\n");
	wait_file(argv[3]);
	return 0;
}

/* ---- finding 9: identifiers hoarded through raw-compat sockets ---- */

/* An Echo Request with identifier id on raw socket fd; 0 or errno. */
static int raw_echo(int fd, const struct sockaddr_in *to, unsigned id)
{
	uint8_t pkt[16] = { 8, 0, 0, 0, (uint8_t)(id >> 8), (uint8_t)id, 0, 1 };
	uint16_t s = inet_sum(pkt, sizeof(pkt));

	pkt[2] = (uint8_t)(s >> 8);
	pkt[3] = (uint8_t)s;
	return pingsock_sendto(fd, pkt, sizeof(pkt), 0,
			       (const struct sockaddr *)to, sizeof(*to)) < 0
		       ? errno : 0;
}

static int cmd_hoard(char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned start = (unsigned)atoi(argv[2]), count = (unsigned)atoi(argv[3]);
	int socks[64], nsocks = 0, e = 0;
	unsigned held = 0;

	if (inet_pton(AF_INET, argv[4], &to.sin_addr) != 1)
		return 2;
	for (unsigned k = 0; k < count && !e && start + k <= 0xFFFF; k++) {
		if (k / 256 >= (unsigned)nsocks) {
			if (nsocks == 64)
				break;
			socks[nsocks] = pingsock_socket(AF_INET, SOCK_RAW,
							IPPROTO_ICMP);
			if (socks[nsocks] < 0) {
				e = errno;
				break;
			}
			nsocks++;
		}
		e = raw_echo(socks[k / 256], &to, start + k);
		if (!e)
			held++;
	}
	printf("hoard sockets=%d held=%u stop=%s\n", nsocks, held,
	       e ? ename(e) : "none");
	printf("holding\n");
	wait_file(argv[5]);
	return 0;
}

/* ---- rv10 finding 6: audit destination sets ---- */

static int cmd_dests(char **argv)
{
	int n = atoi(argv[2]), m = atoi(argv[3]), *socks, sent = 0;
	uint8_t pkt[16] = { 8 };	/* Echo Request */

	if (n < 1 || n > 4096 || m < 1 || m > 65536 ||
	    !(socks = calloc((size_t)n, sizeof(*socks))))
		return 2;
	for (int i = 0; i < n; i++) {
		socks[i] = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		if (socks[i] < 0)
			break;
		for (int k = 0; k < m; k++) {
			uint32_t a = 0x7f000001u + (uint32_t)i * 65536u +
				     (uint32_t)k;
			struct sockaddr_in to = { .sin_family = AF_INET,
						  .sin_addr.s_addr = htonl(a) };

			sent += pingsock_sendto(socks[i], pkt, sizeof(pkt), 0,
						(struct sockaddr *)&to,
						sizeof(to)) == sizeof(pkt);
		}
	}
	printf("dests sent=%d\nholding\n", sent);
	fflush(stdout);
	wait_file(argv[4]);
	free(socks);
	return 0;
}

/* ---- finding 13: malformed requests ---- */

static int cmd_malformed(char **argv)
{
	static const uint8_t junk[3] = { 0xff, 0xff, 0x7f };
	int n = atoi(argv[2]), closed = 0, sent = 0;

	for (int i = 0; i < n; i++) {
		struct answer a;
		int fd = hello_conn(3000);

		if (fd < 0)
			continue;
		if (send_msg(fd, junk, sizeof(junk), NULL, 0) == 0) {
			sent++;
			if (get_answer(fd, 3000, &a) == ANS_CLOSED)
				closed++;
			answer_close(&a);
		}
		close(fd);
	}
	printf("malformed sent=%d closed=%d\n", sent, closed);
	return 0;
}

/* ---- the answer slot's protocol (wire.h: WIRE_RQ_SLOT, WIRE_WAIT) ---- */

#ifdef WIRE_RQ_SLOT
/* Send a request with header flags hflags: 0 or errno. */
static int put_flagged(int fd, const struct wire_req *req, uint16_t hflags)
{
	static uint8_t buf[WIRE_MSG_MAX];
	long n = wire_encode_req_as(req, hflags, buf, sizeof(buf));

	if (n < 0)
		return EINVAL;
	return send_msg(fd, buf, (size_t)n, NULL, 0);
}

/* Send a request with header flags hflags; then what came back:
 * "closed", "timeout" or the result. */
static const char *flagged(int fd, const struct wire_req *req,
			   uint16_t hflags, char *out, size_t cap)
{
	struct answer a;
	int rc;

	if (put_flagged(fd, req, hflags))
		return "closed";
	rc = get_answer(fd, 3000, &a);
	answer_close(&a);
	if (rc != ANS_OK)
		return rc == ANS_CLOSED ? "closed" : "timeout";
	snprintf(out, cap, "%d", (int)a.result);
	return out;
}

/* A new connection's HELLO answer: its answer slot, mapped (the arena
 * came with it: a new token), or NULL. */
static const struct wire_shm *hello_slot(int *fd)
{
	struct wire_req req = { .type = WIRE_HELLO, .u.version = WIRE_VERSION };
	const struct wire_shm *base;
	struct answer a;
	uint32_t slot = 0;

	*fd = dial();
	if (*fd < 0 || send_req(*fd, &req, NULL, 0, NULL, 0) ||
	    get_answer(*fd, 3000, &a) != ANS_OK || a.result != 0 ||
	    a.nfds != 1 || a.blen != WIRE_NONCE_LEN + 4)
		return NULL;
	memcpy(&slot, a.body + WIRE_NONCE_LEN, 4);
	base = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ, MAP_SHARED, a.fds[0], 0);
	answer_close(&a);
	if (base == MAP_FAILED || slot == 0 || slot >= WIRE_ARENA_SLOTS)
		return NULL;
	return &base[slot];
}

/*
 * A client out of the slot's protocol: WIRE_WAIT before any send
 * answered in the slot; WIRE_RQ_SLOT with another flag, or on a request
 * other than a send; each on a connection of its own, each must close
 * it.  Then in protocol: a send answered in the slot (a handle there is
 * none of: -EBADF there), WIRE_WAIT for it, and a second WAIT, which
 * is out of protocol again.
 */
static int cmd_slotproto(char **argv)
{
	struct wire_req wait = { .type = WIRE_WAIT };
	struct wire_req stats = { .type = WIRE_STATS };
	struct wire_req send = { .type = WIRE_SEND, .handle = 0x7ffffff0u };
	const struct wire_shm *slot;
	char b[5][16];
	int fd;

	(void)argv;
	send.u.send.namelen = WIRE_NO_NAME;
	fd = hello_conn(3000);
	printf("wait_first=%s\n", fd < 0 ? "nohello" :
	       flagged(fd, &wait, 0, b[0], sizeof(b[0])));
	close(fd);
	fd = hello_conn(3000);
	printf("send_flags=%s\n", fd < 0 ? "nohello" :
	       flagged(fd, &send, WIRE_RQ_SLOT | 2, b[1], sizeof(b[1])));
	close(fd);
	fd = hello_conn(3000);
	printf("stats_flag=%s\n", fd < 0 ? "nohello" :
	       flagged(fd, &stats, WIRE_RQ_SLOT, b[2], sizeof(b[2])));
	close(fd);
	slot = hello_slot(&fd);
	if (!slot) {
		printf("slot=none\n");
		return 0;
	}
	/* No answer on the channel: WAIT's is the first. */
	(void)put_flagged(fd, &send, WIRE_RQ_SLOT);
	printf("wait=%s\n", flagged(fd, &wait, 0, b[3], sizeof(b[3])));
	printf("slot_seq=%u slot_result=%d\n",
	       (unsigned)atomic_load(&slot->ans_seq),
	       (int)atomic_load(&slot->ans_result));
	printf("wait_again=%s\n", flagged(fd, &wait, 0, b[4], sizeof(b[4])));
	close(fd);
	return 0;
}
#endif

/* ---- review, daemon finding 1: an arena for each attach ---- */

/*
 * mirrors N STOPFILE: one socket, attached from N new arenas one after
 * the other (a new connection each: HELLO with a zero token makes a new
 * arena), each connection closed after; then hold the socket until
 * STOPFILE.  Each arena used to stay, with its 2 MiB mapping, for as
 * long as the socket lived.
 */
static int mirrors(char **argv, bool keep)
{
	int n = atoi(argv[2]), ok = 0, bad = 0, datafd;
	const char *why = "none";
	uint32_t h;

	if (own_socket(&h, &datafd) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		struct answer a;
		int c = hello_conn(3000), r;

		if (c < 0) {
			bad++;
			continue;
		}
		r = attach_req(c, h, datafd, &a);
		if (r == ANS_OK && a.result == 0) {
			ok++;
		} else {
			bad++;
			why = r != ANS_OK ? "no answer" : ename(-a.result);
		}
		answer_close(&a);
		if (!keep)
			close(c);
	}
	printf("mirrors attached=%d failed=%d last_failure=%s\n", ok, bad, why);
	printf("holding\n");
	wait_file(argv[3]);
	return 0;
}

static int cmd_mirrors(char **argv)
{
	return mirrors(argv, false);
}

/*
 * mirrorskeep N STOPFILE: the same, each connection kept (review of
 * fairness, F3): the socket's state was then written into N arenas at
 * every request that changed it.
 */
static int cmd_mirrorskeep(char **argv)
{
	return mirrors(argv, true);
}

#ifdef WIRE_RQ_SOLE
/* The result of req (handle h, header flags rqflags) on conn, by name:
 * OK, UNATTACHED, an errno's, or how no answer came. */
static const char *result_of(int conn, uint16_t type, uint16_t rqflags,
			     uint32_t h)
{
	struct wire_req req = { .type = type, .rqflags = rqflags, .handle = h };
	struct answer a;
	int r = call(conn, &req, NULL, 0, &a), res = a.result;

	answer_close(&a);
	if (r != ANS_OK)
		return r == ANS_CLOSED ? "closed" : "no answer";
	if (res == WIRE_R_UNATTACHED)
		return "UNATTACHED";
	return res ? ename(-res) : "OK";
}

/*
 * soledetach: WIRE_DETACH with WIRE_RQ_SOLE (the process's arena is its
 * own, and it holds the socket no more).  The process's connection that
 * sends it need not be the one that opened the socket (the library sends
 * it on any of its pool's): it is served if a connection of its arena
 * holds the socket, and then none of them does.  A connection of another
 * arena is refused, and changes nothing.  Prints
 *   foreign=UNATTACHED opener_kept=OK own_arena=OK opener_after=UNATTACHED
 *   reattach=OK after_idle=OK
 * the last after the connection that attached it again has closed: a
 * slot in the arena is what counts, not a connection that holds it.
 */
static int cmd_soledetach(char **argv)
{
	uint8_t tok[WIRE_NONCE_LEN] = { 0 };
	int c1 = hello_in(3000, tok), c2, c3 = hello_conn(3000), datafd = -1;
	struct answer a = { 0 };
	uint32_t h = 0;

	(void)argv;
	if (c1 >= 0 && open_req(c1, AF_INET, SOCK_DGRAM, &a) == ANS_OK &&
	    a.result == 0 && a.blen >= 4 && a.nfds >= 1) {
		memcpy(&h, a.body, sizeof(h));
		datafd = a.fds[0];
		a.fds[0] = -1;
	}
	answer_close(&a);
	c2 = hello_in(3000, tok);
	if (datafd < 0 || c2 < 0 || c3 < 0) {
		printf("setup failed\n");
		return 1;
	}
	printf("foreign=%s ", result_of(c3, WIRE_DETACH, WIRE_RQ_SOLE, h));
	printf("opener_kept=%s ", result_of(c1, WIRE_GETNAME, 0, h));
	printf("own_arena=%s ", result_of(c2, WIRE_DETACH, WIRE_RQ_SOLE, h));
	printf("opener_after=%s ", result_of(c1, WIRE_GETNAME, 0, h));
	printf("reattach=%s ", attach_req(c1, h, datafd, &a) == ANS_OK &&
	       a.result == 0 ? "OK" : "failed");
	answer_close(&a);
	/* The connection that used the socket closed (idle: the library
	 * closes its pool's after a while); its slot is still the arena's. */
	close(c1);
	usleep(200000);
	c1 = hello_in(3000, tok);
	printf("after_idle=%s\n", c1 < 0 ? "nohello"
	       : result_of(c1, WIRE_DETACH, WIRE_RQ_SOLE, h));
	return 0;
}
#endif

/* ---- review, daemon finding 2: proofs spoilt by a wrong nonce ---- */

/* WIRE_ATTACH of h with this nonce, on a new connection: its errno (0:
 * attached), or -1 without an answer. */
static int attach_nonce(uint32_t h, const uint8_t *nonce)
{
	struct wire_req req = { .type = WIRE_ATTACH, .handle = h };
	struct answer a;
	int c = hello_conn(3000), r;

	if (c < 0)
		return -1;
	memcpy(req.nonce, nonce, WIRE_NONCE_LEN);
	r = call(c, &req, NULL, 0, &a);
	answer_close(&a);
	close(c);
	return r == ANS_OK ? (a.result < 0 ? -a.result : 0) : -1;
}

/* A proof written on datafd: its nonce in nonce. */
static void proof_on(int datafd, uint8_t *nonce)
{
	if (prove(datafd, nonce))
		memset(nonce, 0xee, WIRE_NONCE_LEN);
}

static void said_errno(const char *what, int e)
{
	printf("%s=%s ", what, e < 0 ? "no-answer" : e ? ename(e) : "OK");
}

/*
 * The proofs read before the one asked for are kept, four of them: a
 * slot freed is taken before an older proof is pushed out (one was, with
 * a slot free), and an empty record ahead of a proof is skipped (it was
 * taken for a hang-up, and the attach failed).
 */
static void proofs_kept(uint32_t h, int datafd)
{
	uint8_t p[7][WIRE_NONCE_LEN];
	char none = 0;

	for (int i = 0; i < 5; i++)
		proof_on(datafd, p[i]);
	said_errno("fifth_of_five", attach_nonce(h, p[4]));	/* keeps 1-4 */
	said_errno("second_of_five", attach_nonce(h, p[1]));	/* frees one */
	proof_on(datafd, p[5]);
	proof_on(datafd, p[6]);
	said_errno("seventh", attach_nonce(h, p[6]));		/* keeps 6 */
	said_errno("first_kept", attach_nonce(h, p[0]));
	said_errno("sixth_kept", attach_nonce(h, p[5]));
	(void)!send(datafd, &none, 0, MSG_NOSIGNAL);
	proof_on(datafd, p[0]);
	said_errno("after_empty_record", attach_nonce(h, p[0]));
}

/*
 * Eight proofs written at once (eight processes attaching one socket),
 * then a wrong nonce (any user's: any connection may name any handle),
 * which reads all that is queued: the daemon kept the last four, and
 * four of the eight attaches failed ("eight_after_wrong=4").
 */
static void proofs_many(uint32_t h, int datafd)
{
	uint8_t p[8][WIRE_NONCE_LEN], wrong[WIRE_NONCE_LEN] = { 1 };
	int ok = 0;

	for (int i = 0; i < 8; i++)
		proof_on(datafd, p[i]);
	said_errno("wrong_before_eight", attach_nonce(h, wrong));
	for (int i = 0; i < 8; i++)
		ok += attach_nonce(h, p[i]) == 0;
	printf("eight_after_wrong=%d ", ok);
}

/*
 * proofs: a WIRE_ATTACH with a wrong nonce (anyone's: any connection may
 * name any handle) must not use up the proof written for another, and
 * of two proofs written one after the other (two processes attaching
 * at once), each must work once.
 */
static int cmd_proofs(char **argv)
{
	uint8_t wrong[WIRE_NONCE_LEN] = { 0 }, p1[WIRE_NONCE_LEN],
		p2[WIRE_NONCE_LEN];
	uint32_t h;
	int datafd;

	(void)argv;
	if (own_socket(&h, &datafd) < 0)
		return 1;
	proof_on(datafd, p1);
	said_errno("wrong", attach_nonce(h, wrong));
	said_errno("after_wrong", attach_nonce(h, p1));
	proof_on(datafd, p1);
	proof_on(datafd, p2);
	said_errno("older_of_two", attach_nonce(h, p1));
	said_errno("newer_of_two", attach_nonce(h, p2));
	said_errno("used_again", attach_nonce(h, p1));
	proofs_kept(h, datafd);
	proofs_many(h, datafd);
	printf("\n");
	return 0;
}

/* ---- rv10 finding 1: descriptors passed on a data descriptor ---- */

#define FD_RECORDS 16
#define FDS_A_RECORD 200

/* A one-byte record on fd carrying FDS_A_RECORD copies of one: errno. */
static int rights_record(int fd, int one)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(FDS_A_RECORD * sizeof(int))];
	} cbuf;
	char c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	memset(&cbuf, 0, sizeof(cbuf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(FDS_A_RECORD * sizeof(int));
	for (int i = 0; i < FDS_A_RECORD; i++)
		memcpy(CMSG_DATA(cm) + i * sizeof(int), &one, sizeof(int));
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ? errno : 0;
}

/* Records still queued on the daemon's end, of FD_RECORDS whose bytes
 * queued were q0 (SIOCOUTQ: the sender's count of what its peer holds). */
static int records_left(int fd, int q0)
{
	int q = 0;

	if (ioctl(fd, SIOCOUTQ, &q) || q0 <= 0)
		return -1;
	return (q * FD_RECORDS + q0 / 2) / q0;
}

/*
 * fdproofs: FD_RECORDS records of FDS_A_RECORD descriptors each on our
 * socket's data descriptor (refused by a kernel with SO_PASSRIGHTS:
 * "send=EPERM"), then WIRE_ATTACHes.  Each read the daemon made for an
 * attach took up to 64 such records (12,800 descriptors) in its loop:
 * the first record that carries any ends its reading of that socket for
 * good, and its attaches fail.
 */
static int cmd_fdproofs(char **argv)
{
	uint8_t wrong[WIRE_NONCE_LEN] = { 0 }, p[WIRE_NONCE_LEN];
	int datafd, null = open("/dev/null", O_RDONLY | O_CLOEXEC), q0 = 0, e;
	uint32_t h;

	(void)argv;
	if (null < 0 || own_socket(&h, &datafd) < 0)
		return 1;
	for (int i = 0; i < FD_RECORDS; i++)
		if ((e = rights_record(datafd, null)) != 0) {
			printf("send=%s\n", ename(e));
			return 0;
		}
	printf("send=ok ");
	if (ioctl(datafd, SIOCOUTQ, &q0))
		q0 = 0;
	said_errno("wrong", attach_nonce(h, wrong));
	printf("left=%d ", records_left(datafd, q0));
	said_errno("wrong_again", attach_nonce(h, wrong));
	printf("left_again=%d ", records_left(datafd, q0));
	proof_on(datafd, p);
	said_errno("proof_after", attach_nonce(h, p));
	printf("\n");
	return 0;
}

/* ---- rv10 finding 2: waiting sends all sent from the timers ---- */

/*
 * parkorder ROLE N: N connections, each with a socket of its own, each
 * socket's second Echo Request (to 127.0.0.1, its first data byte ROLE)
 * made to wait by min_interval; "parked N" once all are waiting, then
 * "answered K" when their answers came (60 s at most).  The daemon sent
 * every waiting send that was due from its timers, in one go, ahead of
 * any other user's: security.sh stops it past their time and counts
 * what goes out first.
 */
static int cmd_parkorder(char **argv)
{
	static int conns[MAX_CONNS];
	uint8_t pkt[16] = { 8 };
	int n = atoi(argv[3]), got = 0, answered = 0;

	pkt[8] = (uint8_t)argv[2][0];
	for (int i = 0; i < n && i < MAX_CONNS; i++) {
		struct answer a;
		uint32_t h;
		int datafd, c = own_socket(&h, &datafd);

		if (c < 0)
			break;	/* (datafd kept: its close ends the socket) */
		if (send_big(c, h, pkt, sizeof(pkt)) ||
		    get_answer(c, 5000, &a) != ANS_OK || a.result < 0 ||
		    send_big(c, h, pkt, sizeof(pkt)))
			break;
		conns[got++] = c;
	}
	printf("parked %d\n", got);
	for (int i = 0; i < got; i++) {
		struct answer a;

		answered += get_answer(conns[i], 60000, &a) == ANS_OK &&
			    a.result == (int32_t)sizeof(pkt);
	}
	printf("answered %d\n", answered);
	return 0;
}

/* ---- review, daemon finding 3: a waiting send's handle reused ---- */

/* A raw socket's Echo Request (its checksum the sender's) to 127.0.0.1. */
static int send_raw_lo(int conn, uint32_t h)
{
	static uint8_t pkt[16] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1 };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct wire_req req = { .type = WIRE_SEND, .handle = h };
	uint16_t sum;

	pkt[2] = pkt[3] = 0;
	sum = inet_sum(pkt, sizeof(pkt));
	pkt[2] = (uint8_t)(sum >> 8);
	pkt[3] = (uint8_t)sum;
	req.u.send.len = sizeof(pkt);
	req.u.send.datalen = sizeof(pkt);
	req.u.send.namelen = sizeof(to);
	memcpy(req.u.send.name, &to, sizeof(to));
	return send_req(conn, &req, pkt, sizeof(pkt), NULL, 0);
}

/* Raw sockets opened and closed on conn until the next one opened in
 * slot idx gets generation gen (handles: wire.h); the opens made. */
static long cycle_to(int conn, uint32_t idx, uint32_t gen)
{
	struct answer a;
	long n = 0;

	for (;;) {
		uint32_t nh;

		usleep(200);	/* its close seen: the slot free again */
		if (open_req(conn, AF_INET, SOCK_RAW, &a) != ANS_OK ||
		    a.result || a.blen < 4)
			return -1;
		memcpy(&nh, a.body, 4);
		answer_close(&a);
		n++;
		if ((nh & 0xFFFFF) == idx && ((nh >> 20) + 1) % 4096 == gen)
			return n;
	}
}

/*
 * wrap: a raw send made to wait (min_interval), its socket closed, and
 * its slot cycled until the next socket opened (a broker one, in broker
 * mode) gets the waiting send's handle.  When its time comes the send
 * must find its socket gone (EBADF): it once went out through the new
 * socket, and in broker mode killed the daemon (ps_sent(NULL)).
 */
static int cmd_wrap(char **argv)
{
	struct answer a;
	int pc = hello_conn(3000), q = hello_conn(3000), datafd;
	uint32_t h, nh = 0;
	uint64_t t;
	long n;

	(void)argv;
	if (pc < 0 || q < 0 || open_req(pc, AF_INET, SOCK_RAW, &a) != ANS_OK ||
	    a.result || a.blen < 4 || a.nfds < 1)
		return printf("wrap: open failed\n"), 1;
	memcpy(&h, a.body, 4);
	datafd = a.fds[0];
	if (send_raw_lo(pc, h) || get_answer(pc, 3000, &a) != ANS_OK ||
	    a.result <= 0 || send_raw_lo(pc, h) ||
	    get_answer(pc, 200, &a) != ANS_TIMEOUT)
		return printf("wrap: the second send did not wait\n"), 1;
	close(datafd);
	t = now_ms();
	n = cycle_to(q, h & 0xFFFFF, h >> 20);
	t = now_ms() - t;
	usleep(100000);	/* the last one's close seen */
	if (n < 0 || open_req(q, AF_INET, SOCK_DGRAM, &a) != ANS_OK || a.result)
		return printf("wrap: cycling failed\n"), 1;
	memcpy(&nh, a.body, 4);
	printf("wrap: %ld opens in %llu ms; the new socket's handle %s\n",
	       n, (unsigned long long)t,
	       nh == h ? "is the waiting send's" : "is another");
	switch (get_answer(pc, 60000, &a)) {
	case ANS_OK:
		printf("wrap: waiting send answered %s\n",
		       a.result > 0 ? "sent" : ename(-a.result));
		break;
	case ANS_CLOSED: printf("wrap: waiting send: connection closed\n"); break;
	default: printf("wrap: waiting send: no answer\n");
	}
	return 0;
}

/* ---- review, daemon finding S1: junk on data descriptors ---- */

/*
 * datajunk N STOPFILE: N sockets (one connection), then 64-byte junk
 * written on all their data descriptors, round after round, until
 * STOPFILE ("writing" once started).  The loop once read what came on
 * each of them, ahead of every other user's requests.
 */
static int cmd_datajunk(char **argv)
{
	static int fds[MAX_CONNS];
	int n = atoi(argv[2]), got = 0, c = hello_conn(3000);
	long writes = 0;
	char junk[64] = { 0 };

	for (int i = 0; i < n && i < MAX_CONNS && c >= 0; i++) {
		struct answer a;

		if (open_req(c, AF_INET, SOCK_DGRAM, &a) != ANS_OK ||
		    a.result || a.nfds < 1)
			break;
		fds[got++] = a.fds[0];
		for (int k = 1; k < a.nfds; k++)
			close(a.fds[k]);
	}
	printf("datajunk sockets=%d\nwriting\n", got);
	while (!exists(argv[3]))
		for (int i = 0; i < got; i++)
			writes += send(fds[i], junk, sizeof(junk),
				       MSG_DONTWAIT | MSG_NOSIGNAL) > 0;
	printf("datajunk writes=%ld\n", writes);
	return 0;
}

/* ---- review of fairness, F2: dialling and hanging up ---- */

/*
 * dials N: N connections made and closed at once, no request on any
 * (a full backlog is waited out).  One process doing this held every
 * other user's requests back: each cost the loop its set-up and its end.
 */
static int cmd_dials(char **argv)
{
	long n = atol(argv[2]), ok = 0, full = 0;
	const struct timespec pause = { 0, 100000 };

	while (ok < n) {
		int fd = dial();

		if (fd < 0) {
			if (errno != EAGAIN)
				break;
			full++;
			nanosleep(&pause, NULL);
			continue;
		}
		close(fd);
		ok++;
	}
	printf("dials ok=%ld backlog_full=%ld\n", ok, full);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int argc;
		int (*fn)(char **argv);
	} cmds[] = {
		{ "race", 6, cmd_race }, { "linger", 5, cmd_linger },
		{ "steal", 4, cmd_steal }, { "victim", 5, cmd_victim },
		{ "conns", 4, cmd_conns }, { "park", 5, cmd_park },
		{ "bbind", 4, cmd_bbind }, { "dupbind", 4, cmd_dupbind },
		{ "hoard", 6, cmd_hoard }, { "malformed", 3, cmd_malformed },
		{ "dests", 5, cmd_dests }, { "keeplive", 4, cmd_keeplive },
		{ "rebindleak", 2, cmd_rebindleak },
		{ "wrap", 2, cmd_wrap }, { "proofs", 2, cmd_proofs },
		{ "mirrors", 4, cmd_mirrors }, { "datajunk", 4, cmd_datajunk },
		{ "dials", 3, cmd_dials }, { "mirrorskeep", 4, cmd_mirrorskeep },
		{ "fdproofs", 2, cmd_fdproofs }, { "parkorder", 4, cmd_parkorder },
#ifdef WIRE_RQ_SLOT
		{ "slotproto", 2, cmd_slotproto },
#endif
#ifdef WIRE_RQ_SOLE
		{ "soledetach", 2, cmd_soledetach },
#endif
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0 && argc == cmds[i].argc)
			return cmds[i].fn(argv);
	fprintf(stderr, "usage: attack race|linger|steal|victim|conns|park|"
		"bbind|dupbind|hoard|malformed|slotproto|soledetach|wrap|proofs|fdproofs|parkorder|mirrors|datajunk ...\n"
		"(see attack.c)\n");
	return 2;
}
