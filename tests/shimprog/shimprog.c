/* SPDX-License-Identifier: ISC */
/*
 * shimprog - an unmodified program's use of ping sockets, for the
 * LD_PRELOAD shim (issue 6).
 *
 *   shimprog SCENARIO        (shimprog list: the scenarios)
 *
 * A plain libc program, not linked with libpingsock: tests/integration/
 * shim_prog.sh runs every scenario as uid 65534 once on the kernel's own
 * ping socket and once with only LD_PRELOAD=libpingsock-preload.so (range
 * "1 0", pingsockd serving), and diffs the outputs.  So every line printed
 * is deterministic: no descriptors, pids, times or identifiers, only what
 * the kernel promises.  Every wait is bounded (WAIT_MS).
 *
 * "Every reply arrives once, on the right fd": each request carries a
 * sequence number and a payload marker (a tag letter per sender), and
 * collect() counts each sequence number it reads and every reply whose
 * payload is not one of this socket's requests.
 *
 * Environment (set by shim_prog.sh):
 *   SHIMPROG_COUNT  a shell command printing how many ping sockets exist
 *                   (kernel: lines of /proc/net/icmp, which lists bound
 *                   ping sockets only, so every socket here is bound
 *                   before it is counted; shim: pingsockctl's "sockets").
 *
 * A difference that pingsock-preload(8) documents (epoll_limits) is
 * checked on each side against what that side should do (the kernel's
 * behaviour, or the documented one) and printed as "as documented", so
 * that it too compares equal.
 *
 * The error scenarios need the router topology of shim_prog.sh: this
 * host 10.77.0.2, default route via the router 10.77.0.1, which runs
 * tests/lib/icmpforge (an Echo Request to 10.78.T.C is answered with
 * ICMP error T/C) and has "unreachable 10.77.5.0/24".
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <linux/sockios.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define WAIT_MS 2000		/* the longest any wait may take */
#define QUIET_MS 300		/* "nothing more comes": this long */
#define PAYLOAD 56
#define PKT (8 + PAYLOAD)
#define MAXSEQ 1024

#define LOOP "127.0.0.1"
#define ROUTER "10.77.0.1"
#define FORGE_SOFT "10.78.3.1"	/* Dest Unreach host: soft, EHOSTUNREACH */
#define FORGE_HARD "10.78.3.10"	/* Dest Unreach host prohibited: hard */
#define ROUTE_UNREACH "10.77.5.2"	/* the router's unreachable route */

/* ------------------------------------------------------------------ */
/* output */

static __attribute__((format(printf, 1, 2))) void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A string built with printf formatting; eight rotating buffers. */
static __attribute__((format(printf, 1, 2))) const char *S(const char *fmt, ...)
{
	static __thread char bufs[8][256];
	static __thread unsigned next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

static const char *errname(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{ 0, "0" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ EINTR, "EINTR" }, { EEXIST, "EEXIST" },
		{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" }, { EPIPE, "EPIPE" }, { ENOSYS, "ENOSYS" },
		{ ENOTSOCK, "ENOTSOCK" }, { EDESTADDRREQ, "EDESTADDRREQ" },
		{ EMSGSIZE, "EMSGSIZE" }, { ENOPROTOOPT, "ENOPROTOOPT" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
		{ EADDRINUSE, "EADDRINUSE" }, { EADDRNOTAVAIL, "EADDRNOTAVAIL" },
		{ ENETUNREACH, "ENETUNREACH" }, { ECONNRESET, "ECONNRESET" },
		{ ENOTCONN, "ENOTCONN" }, { ECONNREFUSED, "ECONNREFUSED" },
		{ EHOSTDOWN, "EHOSTDOWN" }, { EHOSTUNREACH, "EHOSTUNREACH" },
		{ EPROTO, "EPROTO" }, { ENONET, "ENONET" },
		{ EREMOTEIO, "EREMOTEIO" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	return S("E%d", e);
}

/* A call's result: the value, or "-1 ENAME" for errno e. */
static const char *rcs_e(long rc, int e)
{
	return rc < 0 ? S("-1 %s", errname(e)) : S("%ld", rc);
}

/*
 * The same with errno: rcs(call(...)) reads errno once the call has
 * returned (never pass errno as another argument: the order in which
 * arguments are evaluated is unspecified).
 */
static const char *rcs(long rc)
{
	return rcs_e(rc, errno);
}

#define BITS(buf, v, flag)                                              \
	do {                                                            \
		if ((v) & (flag)) {                                     \
			strcat(buf, buf[0] ? "|" #flag : #flag);        \
			(v) &= ~(flag);                                 \
		}                                                       \
	} while (0)

static const char *pollbits(short ev)
{
	char *b = (char *)S("%s", "");
	unsigned v = (unsigned short)ev;

	BITS(b, v, POLLIN);
	BITS(b, v, POLLPRI);
	BITS(b, v, POLLOUT);
	BITS(b, v, POLLERR);
	BITS(b, v, POLLHUP);
	BITS(b, v, POLLNVAL);
	BITS(b, v, POLLRDNORM);
	BITS(b, v, POLLRDBAND);
	BITS(b, v, POLLWRNORM);
	BITS(b, v, POLLWRBAND);
	BITS(b, v, POLLRDHUP);
	if (v)
		strcat(b, S("%s%#x", b[0] ? "|" : "", v));
	return b[0] ? b : "0";
}

static const char *epollbits(uint32_t ev)
{
	char *b = (char *)S("%s", "");
	uint32_t v = ev;

	BITS(b, v, EPOLLIN);
	BITS(b, v, EPOLLPRI);
	BITS(b, v, EPOLLOUT);
	BITS(b, v, EPOLLERR);
	BITS(b, v, EPOLLHUP);
	BITS(b, v, EPOLLRDNORM);
	BITS(b, v, EPOLLRDBAND);
	BITS(b, v, EPOLLWRNORM);
	BITS(b, v, EPOLLWRBAND);
	BITS(b, v, EPOLLRDHUP);
	if (v)
		strcat(b, S("%s%#x", b[0] ? "|" : "", v));
	return b[0] ? b : "0";
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* ping sockets and echo requests */

static struct sockaddr_in sin_of(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* A ping socket, or the program stops (nothing else would be tested). */
static int ping_socket(int flags)
{
	int fd = socket(AF_INET, SOCK_DGRAM | flags, IPPROTO_ICMP);

	if (fd < 0) {
		out("socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP): -1 %s",
		    errname(errno));
		exit(1);
	}
	return fd;
}

/* The payload of request seq from sender tag. */
static void fill(uint8_t *p, uint16_t seq, char tag)
{
	memcpy(p, "shimprog", 8);
	p[8] = (uint8_t)tag;
	p[9] = (uint8_t)(seq >> 8);
	p[10] = (uint8_t)seq;
	for (int i = 11; i < PAYLOAD; i++)
		p[i] = (uint8_t)(i + seq);
}

static void echo_request(uint8_t *pkt, uint16_t seq, char tag)
{
	memset(pkt, 0, 8);
	pkt[0] = ICMP_ECHO;
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	fill(pkt + 8, seq, tag);
}

/* sendto dst (NULL: send on the connected socket); "64" or "-1 ENAME". */
static const char *send_echo(int fd, const char *dst, uint16_t seq, char tag)
{
	struct sockaddr_in a;
	uint8_t pkt[PKT];
	ssize_t n;

	echo_request(pkt, seq, tag);
	if (dst) {
		a = sin_of(dst);
		n = sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&a,
			   sizeof(a));
	} else {
		n = send(fd, pkt, sizeof(pkt), 0);
	}
	return rcs(n);
}

struct reply {
	int err;		/* 0, or the errno of the failed recv */
	bool good;		/* an Echo Reply of ours, payload intact */
	uint16_t seq;
	char tag;
};

/* Check one received datagram: type 0, code 0, 64 bytes, our payload. */
static struct reply parse(const uint8_t *b, ssize_t n)
{
	struct reply r = { 0 };
	uint8_t want[PAYLOAD];

	if (n < 8 + 11)
		return r;
	r.seq = (uint16_t)(b[6] << 8 | b[7]);
	r.tag = (char)b[8 + 8];
	fill(want, r.seq, r.tag);
	r.good = n == PKT && b[0] == ICMP_ECHOREPLY && b[1] == 0 &&
		 memcmp(b + 8, want, PAYLOAD) == 0;
	return r;
}

static struct reply recv_reply(int fd, int flags)
{
	uint8_t b[PKT + 64];
	struct reply r = { 0 };
	ssize_t n = recv(fd, b, sizeof(b), flags);

	if (n < 0) {
		r.err = errno;
		return r;
	}
	return parse(b, n);
}

static const char *reply_str(struct reply r)
{
	if (r.err)
		return S("-1 %s", errname(r.err));
	if (!r.good)
		return "a datagram that is not one of our replies";
	return S("reply seq %u tag %c", r.seq, r.tag);
}

/* Wait (poll, at most ms) until fd is readable; its revents. */
static short wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0 ? p.revents : 0;
}

/* recv one reply, waiting for it with poll first. */
static const char *await_reply(int fd)
{
	wait_in(fd, WAIT_MS);
	return reply_str(recv_reply(fd, MSG_DONTWAIT));
}

/*
 * Tally of replies: count of each sequence number, and replies that are
 * not ours (bad payload, or the wrong tag for the sequence number).
 */
struct tally {
	unsigned count[MAXSEQ];
	unsigned foreign;
	unsigned total;
};

typedef char (*tagfn)(uint16_t seq);

static void tally_add(struct tally *t, struct reply r, tagfn tag_of)
{
	t->total++;
	if (!r.good || r.seq >= MAXSEQ || r.tag != tag_of(r.seq)) {
		t->foreign++;
		return;
	}
	t->count[r.seq]++;
}

/* "seqs LO-HI each once" or what differs; foreign replies. */
static const char *tally_str(const struct tally *t, unsigned lo, unsigned hi)
{
	char *b = (char *)S("%s", "");
	unsigned odd = 0;

	for (unsigned s = 0; s < MAXSEQ; s++) {
		unsigned want = s >= lo && s <= hi;

		if (t->count[s] == want)
			continue;
		if (odd++ < 6)
			strcat(b, S(" seq %u x%u", s, t->count[s]));
	}
	if (odd > 6)
		strcat(b, " ...");
	return S("%u replies: %s%s, foreign %u", t->total,
		 odd ? "wrong:" : S("seqs %u-%u each once", lo, hi), b,
		 t->foreign);
}

/* Read replies on fd until want have come or WAIT_MS has passed. */
static void collect(int fd, struct tally *t, unsigned want, tagfn tag_of)
{
	int64_t end = now_ms() + WAIT_MS;
	struct reply r;

	while (t->total < want) {
		int64_t left = end - now_ms();

		if (left <= 0)
			break;
		wait_in(fd, (int)left);
		while (t->total < want &&
		       (r = recv_reply(fd, MSG_DONTWAIT)).err == 0)
			tally_add(t, r, tag_of);
	}
}

static char tag_a(uint16_t seq) { (void)seq; return 'A'; }
static char tag_b(uint16_t seq) { (void)seq; return 'B'; }
static char tag_parity(uint16_t seq) { return seq & 1 ? 'C' : 'P'; }

/* Nothing more arrives for QUIET_MS (a duplicate would). */
static const char *quiet(int fd)
{
	short ev = wait_in(fd, QUIET_MS);

	return ev ? S("not quiet: %s", pollbits(ev)) : "quiet";
}

static const char *fdflags(int fd)
{
	int f = fcntl(fd, F_GETFD);

	if (f < 0)
		return S("-1 %s", errname(errno));
	return f & FD_CLOEXEC ? "FD_CLOEXEC" : "0";
}

static const char *setint(int fd, int level, int name, int v)
{
	int rc = setsockopt(fd, level, name, &v, sizeof(v));

	return rcs(rc);
}

static const char *so_error(int fd)
{
	int v = -1;
	socklen_t len = sizeof(v);
	int rc = getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len);

	return rc < 0 ? S("-1 %s", errname(errno)) : errname(v);
}

/* The socket's identifier (its port); 0 if unbound or on error. */
static unsigned ident_of(int fd)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return 0;
	return ntohs(a.sin_port);
}

/* ------------------------------------------------------------------ */
/* how many ping sockets exist (the daemon's table, or /proc/net/icmp) */

static int count_sockets(void)
{
	const char *cmd = getenv("SHIMPROG_COUNT");
	FILE *f;
	int n = -1;

	if (!cmd || !*cmd)
		return -1;
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

/*
 * Print the count once it is expect (or WAIT_MS has passed): a socket
 * closed through the daemon may take a moment to go, but must go.
 */
static void sockets(const char *label, int expect)
{
	int64_t end = now_ms() + WAIT_MS;
	int n;

	while ((n = count_sockets()) != expect && now_ms() < end)
		sleep_ms(20);
	if (n < 0)
		out("%s: sockets open: unknown (SHIMPROG_COUNT)", label);
	else
		out("%s: sockets open: %d", label, n);
}

/* ------------------------------------------------------------------ */
/* waiting: poll, ppoll, select, pselect, epoll_wait, epoll_pwait */

enum wkind { W_POLL, W_PPOLL, W_SELECT, W_PSELECT, W_EPOLL, W_EPOLL_PWAIT };

struct waiter {
	const char *name;
	enum wkind kind;
};

static const struct waiter W_poll = { "poll", W_POLL };
static const struct waiter W_ppoll = { "ppoll", W_PPOLL };
static const struct waiter W_select = { "select", W_SELECT };
static const struct waiter W_pselect = { "pselect", W_PSELECT };
static const struct waiter W_epoll = { "epoll_wait", W_EPOLL };
static const struct waiter W_epoll_pwait = { "epoll_pwait", W_EPOLL_PWAIT };

/*
 * One socket as a waiter sees it.  For epoll: two level-triggered sets,
 * one with EPOLLIN, one with EPOLLIN|EPOLLOUT|EPOLLPRI.
 */
struct wctx {
	const struct waiter *w;
	int fd;
	int ep_in, ep_all;
};

static int epoll_with(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = 0x5eed };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		out("epoll set-up: -1 %s", errname(errno));
	return ep;
}

static struct wctx w_open(const struct waiter *w, int fd)
{
	struct wctx c = { .w = w, .fd = fd, .ep_in = -1, .ep_all = -1 };

	if (w->kind == W_EPOLL || w->kind == W_EPOLL_PWAIT) {
		c.ep_in = epoll_with(fd, EPOLLIN);
		c.ep_all = epoll_with(fd, EPOLLIN | EPOLLOUT | EPOLLPRI);
	}
	return c;
}

static void w_close(struct wctx *c)
{
	if (c->ep_in >= 0)
		close(c->ep_in);
	if (c->ep_all >= 0)
		close(c->ep_all);
	c->ep_in = c->ep_all = -1;
}

static struct timespec ts_of(int ms)
{
	return (struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000L };
}

/*
 * Wait at most ms for input (all: for input, output or priority); the
 * result in the waiter's own terms.  *ready (if given): what was
 * reported, as poll bits.
 */
static const char *w_wait(struct wctx *c, int ms, bool all, short *ready)
{
	short events = (short)(all ? POLLIN | POLLOUT | POLLPRI : POLLIN);
	struct pollfd p = { .fd = c->fd, .events = events };
	struct epoll_event ev[4];
	fd_set r, w, e;
	sigset_t mask;
	int rc, saved;
	short got = 0;
	const char *desc;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	FD_SET(c->fd, &r);
	if (all) {
		FD_SET(c->fd, &w);
		FD_SET(c->fd, &e);
	}
	switch (c->w->kind) {
	case W_POLL:
	case W_PPOLL: {
		struct timespec ts = ts_of(ms);

		rc = c->w->kind == W_POLL ? poll(&p, 1, ms)
					  : ppoll(&p, 1, &ts, &mask);
		saved = errno;
		got = rc > 0 ? p.revents : 0;
		desc = rc < 0 ? rcs_e(rc, saved)
			      : S("rc=%d revents=%s", rc, pollbits(got));
		break;
	}
	case W_SELECT:
	case W_PSELECT: {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
		struct timespec ts = ts_of(ms);

		rc = c->w->kind == W_SELECT
			     ? select(c->fd + 1, &r, all ? &w : NULL,
				      all ? &e : NULL, &tv)
			     : pselect(c->fd + 1, &r, all ? &w : NULL,
				       all ? &e : NULL, &ts, &mask);
		saved = errno;
		if (rc > 0) {
			got |= FD_ISSET(c->fd, &r) ? POLLIN : 0;
			got |= all && FD_ISSET(c->fd, &w) ? POLLOUT : 0;
			got |= all && FD_ISSET(c->fd, &e) ? POLLPRI : 0;
		}
		desc = rc < 0 ? rcs_e(rc, saved)
			      : S("rc=%d%s%s%s", rc, got & POLLIN ? " read" : "",
				  got & POLLOUT ? " write" : "",
				  got & POLLPRI ? " except" : "");
		break;
	}
	default: {
		int ep = all ? c->ep_all : c->ep_in;

		rc = c->w->kind == W_EPOLL
			     ? epoll_wait(ep, ev, 4, ms)
			     : epoll_pwait(ep, ev, 4, ms, &mask);
		saved = errno;
		if (rc > 0)
			got = (short)ev[0].events;
		desc = rc < 0 ? rcs_e(rc, saved)
		       : rc == 0 ? "n=0"
				 : S("n=%d events=%s%s", rc,
				     epollbits(ev[0].events),
				     ev[0].data.u64 == 0x5eed ? "" : " (bad data)");
		break;
	}
	}
	if (ready)
		*ready = got;
	return desc;
}

/* ------------------------------------------------------------------ */
/* scenarios: replies through each waiter */

/*
 * Replies from 127.0.0.1 on a non-blocking socket (SOCK_NONBLOCK, or
 * O_NONBLOCK set with fcntl), waited for with w.
 */
static void replies_with(const struct waiter *w, bool via_fcntl)
{
	struct tally t = { 0 };
	struct wctx c;
	char l[64];
	int fd, fl;

	snprintf(l, sizeof(l), "%s %s", w->name,
		 via_fcntl ? "O_NONBLOCK" : "SOCK_NONBLOCK");

	if (via_fcntl) {
		fd = ping_socket(0);
		fl = fcntl(fd, F_GETFL);
		out("%s: fcntl F_SETFL O_NONBLOCK: %s", l,
		    rcs(fcntl(fd, F_SETFL, fl | O_NONBLOCK)));
	} else {
		fd = ping_socket(SOCK_NONBLOCK);
	}
	fl = fcntl(fd, F_GETFL);
	out("%s: F_GETFL has O_NONBLOCK: %s", l,
	    fl >= 0 && (fl & O_NONBLOCK) ? "yes" : "no");
	c = w_open(w, fd);
	out("%s: recv, nothing sent: %s", l,
	    reply_str(recv_reply(fd, 0)));
	out("%s: wait 0 ms: %s", l, w_wait(&c, 0, false, NULL));
	out("%s: wait 0 ms, in/out/pri: %s", l, w_wait(&c, 0, true, NULL));
	out("%s: sendto seq 1: %s", l, send_echo(fd, LOOP, 1, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: wait 0 ms, in/out/pri: %s", l, w_wait(&c, 0, true, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: wait 0 ms after reading it: %s", l,
	    w_wait(&c, 0, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));

	/* five in a row, read as they come, with this waiter */
	for (uint16_t s = 2; s <= 6; s++)
		send_echo(fd, LOOP, s, 'A');
	for (int64_t end = now_ms() + WAIT_MS; t.total < 5 && now_ms() < end;) {
		struct reply r;
		short ready = 0;

		w_wait(&c, (int)(end - now_ms()), false, &ready);
		while (t.total < 5 && (r = recv_reply(fd, 0)).err == 0)
			tally_add(&t, r, tag_a);
	}
	out("%s: five sent: %s", l, tally_str(&t, 2, 6));
	out("%s: then for %d ms: %s", l, QUIET_MS,
	    w_wait(&c, QUIET_MS, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));

	if (via_fcntl && w->kind == W_POLL) {
		struct timeval tv = { 0, 200000 };

		/* back to blocking: SO_RCVTIMEO bounds the wait */
		out("%s: fcntl F_SETFL 0: %s", l,
		    rcs(fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		out("%s: blocking recv, SO_RCVTIMEO 200 ms, nothing sent: %s",
		    l, reply_str(recv_reply(fd, 0)));
		out("%s: recv MSG_DONTWAIT: %s", l,
		    reply_str(recv_reply(fd, MSG_DONTWAIT)));
		send_echo(fd, LOOP, 7, 'A');
		tv.tv_sec = 2;
		tv.tv_usec = 0;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		out("%s: blocking recv after sendto seq 7: %s", l,
		    reply_str(recv_reply(fd, 0)));
	}
	w_close(&c);
	close(fd);
}

static void scn_poll(void)
{
	replies_with(&W_poll, false);
	replies_with(&W_poll, true);
}

static void scn_ppoll(void)
{
	replies_with(&W_ppoll, false);
	replies_with(&W_ppoll, true);
}

static void scn_select(void)
{
	replies_with(&W_select, false);
	replies_with(&W_select, true);
}

static void scn_pselect(void)
{
	replies_with(&W_pselect, false);
	replies_with(&W_pselect, true);
}

/*
 * select and pselect with nfds above FD_SETSIZE, on sets the program
 * sized itself (the kernel takes any nfds, cut to the size of its
 * descriptor table): a ping socket, a pipe's read end moved to fd
 * BIG_PIPE, a copy of the socket at BIG_COPY, a number never opened
 * below the table's end (EBADF) and one above it (left alone).
 */
#define BIG_FDS 4096		/* RLIMIT_NOFILE wanted; the sets' size */
#define BIG_COPY 1500
#define BIG_CLOSED 1800
#define BIG_PIPE 2000
#define BIG_PAST 2010		/* in BIG_PIPE's word, past nfds */
#define BIG_ABOVE 3000		/* past the table (2048 descriptors) */
#define BIG_WORD (8 * sizeof(unsigned long))

static const char *errqueue(int fd);

struct bigset {
	unsigned long w[BIG_FDS / BIG_WORD];
};

struct bigctx {
	bool pcall;		/* pselect */
	int sock;
	struct bigset r, w;	/* both used: r and w; else w not given */
};

static void big_put(struct bigset *s, int fd)
{
	s->w[fd / BIG_WORD] |= 1UL << (fd % BIG_WORD);
}

/* Which of the named descriptors are set in s. */
static const char *big_str(const struct bigset *s, int sock)
{
	static const char *const names[] = { "copy", "closed", "pipe", "past",
					     "above" };
	static const int fds[] = { BIG_COPY, BIG_CLOSED, BIG_PIPE, BIG_PAST,
				   BIG_ABOVE };
	char *b = (char *)S("%s", s->w[sock / BIG_WORD] >> (sock % BIG_WORD) & 1
				       ? " sock" : "");

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (s->w[fds[i] / BIG_WORD] >> (fds[i] % BIG_WORD) & 1)
			strcat(b, S(" %s", names[i]));
	return b[0] ? b + 1 : "-";
}

/* Wait (both: with the write set too); what it gave, and for select
 * whether time was left. */
static const char *big_wait(struct bigctx *c, int nfds, int ms, bool both)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct timespec ts = ts_of(ms);
	fd_set *r = (fd_set *)(void *)&c->r;
	fd_set *w = both ? (fd_set *)(void *)&c->w : NULL;
	int rc = c->pcall ? pselect(nfds, r, w, NULL, &ts, NULL)
			  : select(nfds, r, w, NULL, &tv);

	if (rc < 0)
		return rcs(rc);
	return S("rc=%d read: %s%s%s%s", rc, big_str(&c->r, c->sock),
		 both ? S(", write: %s", big_str(&c->w, c->sock)) : "",
		 c->pcall ? "" : ", time left: ",
		 c->pcall ? "" : tv.tv_sec || tv.tv_usec ? "some" : "none");
}

/* The sets for the next wait: read the socket and the given others. */
static void big_sets(struct bigctx *c, int a, int b)
{
	memset(&c->r, 0, sizeof(c->r));
	memset(&c->w, 0, sizeof(c->w));
	big_put(&c->r, c->sock);
	big_put(&c->w, c->sock);
	if (a >= 0)
		big_put(&c->r, a);
	if (b >= 0)
		big_put(&c->r, b);
}

static void big_with(const char *l, bool pcall)
{
	struct rlimit rl;
	struct bigctx c = { .pcall = pcall, .sock = ping_socket(SOCK_NONBLOCK) };
	int p[2], copy;
	char x;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = BIG_FDS;
	if (rl.rlim_max < BIG_FDS || setrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    pipe(p) < 0 || dup2(p[0], BIG_PIPE) != BIG_PIPE) {
		out("%s: RLIMIT_NOFILE %d: not possible, not tested", l, BIG_FDS);
		out("%s: sendto: %s", l, send_echo(c.sock, LOOP, 1, 'A'));
		return;
	}
	close(p[0]);
	big_sets(&c, BIG_PIPE, BIG_PAST);
	out("%s: nothing ready, 200 ms: %s", l, big_wait(&c, BIG_PIPE + 1, 200, false));
	out("%s: pipe written: %s", l, rcs(write(p[1], "x", 1)));
	big_sets(&c, BIG_PIPE, -1);
	out("%s: wait: %s", l, big_wait(&c, BIG_PIPE + 1, WAIT_MS, false));
	out("%s: sendto seq 1: %s", l, send_echo(c.sock, LOOP, 1, 'A'));
	wait_in(c.sock, WAIT_MS);
	big_sets(&c, BIG_PIPE, -1);
	out("%s: reply and byte queued: %s", l,
	    big_wait(&c, BIG_PIPE + 1, WAIT_MS, true));
	out("%s: recv: %s", l, reply_str(recv_reply(c.sock, 0)));
	out("%s: read pipe: %s", l, rcs(read(BIG_PIPE, &x, 1)));
	big_sets(&c, BIG_PIPE, BIG_CLOSED);
	out("%s: a number never opened: %s", l,
	    big_wait(&c, BIG_PIPE + 1, 0, false));
	big_sets(&c, BIG_PIPE, BIG_ABOVE);
	out("%s: a number past the table, nfds %d: %s", l, BIG_FDS,
	    big_wait(&c, BIG_FDS, 0, false));
	big_sets(&c, BIG_PIPE, BIG_ABOVE);
	out("%s: the same, nfds INT_MAX: %s", l,
	    big_wait(&c, INT_MAX, 0, false));

	copy = dup2(c.sock, BIG_COPY);
	out("%s: copy at %d: %s; IP_RECVERR: %s", l, BIG_COPY,
	    copy == BIG_COPY ? "made" : rcs(copy),
	    setint(BIG_COPY, SOL_IP, IP_RECVERR, 1));
	out("%s: sendto %s seq 2: %s", l, FORGE_SOFT,
	    send_echo(BIG_COPY, FORGE_SOFT, 2, 'A'));
	wait_in(BIG_COPY, WAIT_MS);
	big_sets(&c, BIG_COPY, BIG_PIPE);
	out("%s: error queued, nfds %d: %s", l, BIG_COPY + 1,
	    big_wait(&c, BIG_COPY + 1, WAIT_MS, false));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(BIG_COPY));
	big_sets(&c, BIG_COPY, BIG_PIPE);
	out("%s: after reading it: %s", l, big_wait(&c, BIG_PIPE + 1, 0, false));
	close(BIG_COPY);
	close(BIG_PIPE);
	close(p[1]);
	close(c.sock);
}

static void scn_select_big(void) { big_with("select_big", false); }
static void scn_pselect_big(void) { big_with("pselect_big", true); }

static void scn_epoll_pwait(void)
{
	replies_with(&W_epoll_pwait, false);
	replies_with(&W_epoll_pwait, true);
}

/* epoll_wait into evs; "n=N fd=X events=..." with the sockets named. */
static const char *ep_wait(int ep, int ms, const char *const *names)
{
	struct epoll_event ev[8];
	int n = epoll_wait(ep, ev, 8, ms);
	char *b;

	if (n < 0)
		return rcs(n);
	b = (char *)S("n=%d", n);
	for (int i = 0; i < n; i++)
		strcat(b, S(" %s:%s", ev[i].data.u64 < 8 ? names[ev[i].data.u64]
							  : "?",
			    epollbits(ev[i].events)));
	return b;
}

static int ep_ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	int rc = epoll_ctl(ep, op, fd, &ev), saved = errno;

	if (rc < 0)
		out("epoll_ctl op %d: -1 %s", op, errname(saved));
	errno = saved;
	return rc;
}

/* Level-triggered: the waiter body, then two sockets in one set, DEL. */
static void scn_epoll(void)
{
	static const char *const names[] = { "A", "B" };
	struct tally t = { 0 };
	int a, b, ep;

	replies_with(&W_epoll, false);
	replies_with(&W_epoll, true);

	a = ping_socket(SOCK_NONBLOCK);
	b = ping_socket(SOCK_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ep_ctl(ep, EPOLL_CTL_ADD, a, EPOLLIN, 0);
	ep_ctl(ep, EPOLL_CTL_ADD, b, EPOLLIN, 1);
	out("epoll two: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll two: sendto on B seq 10: %s", send_echo(b, LOOP, 10, 'B'));
	out("epoll two: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll two: wait again (level): %s", ep_wait(ep, 0, names));
	out("epoll two: recv A: %s", reply_str(recv_reply(a, 0)));
	out("epoll two: recv B: %s", reply_str(recv_reply(b, 0)));
	out("epoll two: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll two: sendto on A seq 11: %s", send_echo(a, LOOP, 11, 'A'));
	out("epoll two: sendto on B seq 12: %s", send_echo(b, LOOP, 12, 'B'));
	collect(a, &t, 1, tag_a);
	out("epoll two: A: %s", tally_str(&t, 11, 11));
	memset(&t, 0, sizeof(t));
	collect(b, &t, 1, tag_b);
	out("epoll two: B: %s", tally_str(&t, 12, 12));
	out("epoll two: wait 0 ms: %s", ep_wait(ep, 0, names));

	out("epoll two: EPOLL_CTL_DEL B: %s",
	    rcs(ep_ctl(ep, EPOLL_CTL_DEL, b, 0, 0)));
	out("epoll two: sendto on B seq 13: %s", send_echo(b, LOOP, 13, 'B'));
	out("epoll two: B readable: %s", pollbits(wait_in(b, WAIT_MS)));
	out("epoll two: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll two: recv B: %s", reply_str(recv_reply(b, 0)));
	{
		struct epoll_event ev = { .events = EPOLLIN };
		int rc = epoll_ctl(ep, EPOLL_CTL_DEL, b, NULL);

		out("epoll two: EPOLL_CTL_DEL B again: %s", rcs(rc));
		rc = epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
		out("epoll two: EPOLL_CTL_ADD A again: %s", rcs(rc));
	}
	close(a);
	out("epoll two: after close(A), sendto on B seq 14, ADD B: %s",
	    send_echo(b, LOOP, 14, 'B'));
	ep_ctl(ep, EPOLL_CTL_ADD, b, EPOLLIN, 1);
	out("epoll two: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll two: recv B: %s", reply_str(recv_reply(b, 0)));
	close(ep);
	close(b);
}

/* Edge-triggered: one event per arrival, not per unread datagram. */
static void scn_epoll_et(void)
{
	static const char *const names[] = { "A" };
	int fd = ping_socket(SOCK_NONBLOCK);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct tally t = { 0 };

	ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLET, 0);
	out("epoll_et: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll_et: sendto seq 1: %s", send_echo(fd, LOOP, 1, 'A'));
	out("epoll_et: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll_et: second wait, unread: %s", ep_wait(ep, 0, names));
	out("epoll_et: sendto seq 2: %s", send_echo(fd, LOOP, 2, 'A'));
	out("epoll_et: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll_et: second wait, unread: %s", ep_wait(ep, 0, names));
	collect(fd, &t, 2, tag_a);
	out("epoll_et: read all: %s", tally_str(&t, 1, 2));
	out("epoll_et: recv: %s", reply_str(recv_reply(fd, 0)));
	out("epoll_et: wait 0 ms after draining: %s", ep_wait(ep, 0, names));
	/* EPOLL_CTL_MOD re-evaluates: nothing queued, no event */
	ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLET, 0);
	out("epoll_et: after MOD, nothing queued: %s", ep_wait(ep, 0, names));
	out("epoll_et: sendto seq 3: %s", send_echo(fd, LOOP, 3, 'A'));
	out("epoll_et: wait: %s", ep_wait(ep, WAIT_MS, names));
	/* ... with a datagram queued, MOD reports it again */
	ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLET, 0);
	out("epoll_et: after MOD, one queued: %s", ep_wait(ep, 0, names));
	out("epoll_et: wait again: %s", ep_wait(ep, 0, names));
	out("epoll_et: recv: %s", reply_str(recv_reply(fd, 0)));
	close(ep);
	close(fd);
}

/* EPOLLONESHOT: one event, then nothing until EPOLL_CTL_MOD re-arms. */
static void scn_epoll_oneshot(void)
{
	static const char *const names[] = { "A" };
	int fd = ping_socket(SOCK_NONBLOCK);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct tally t = { 0 };

	ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLONESHOT, 0);
	out("epoll_oneshot: sendto seq 1: %s", send_echo(fd, LOOP, 1, 'A'));
	out("epoll_oneshot: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll_oneshot: wait again, unread: %s", ep_wait(ep, 0, names));
	out("epoll_oneshot: sendto seq 2: %s", send_echo(fd, LOOP, 2, 'A'));
	out("epoll_oneshot: wait %d ms, disarmed: %s", QUIET_MS,
	    ep_wait(ep, QUIET_MS, names));
	out("epoll_oneshot: MOD re-arm: %s",
	    rcs(ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLONESHOT, 0)));
	out("epoll_oneshot: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll_oneshot: wait again: %s", ep_wait(ep, 0, names));
	collect(fd, &t, 2, tag_a);
	out("epoll_oneshot: read all: %s", tally_str(&t, 1, 2));
	out("epoll_oneshot: MOD re-arm, nothing queued: %s",
	    rcs(ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLONESHOT, 0)));
	out("epoll_oneshot: wait 0 ms: %s", ep_wait(ep, 0, names));
	out("epoll_oneshot: sendto seq 3: %s", send_echo(fd, LOOP, 3, 'A'));
	out("epoll_oneshot: wait: %s", ep_wait(ep, WAIT_MS, names));
	out("epoll_oneshot: recv: %s", reply_str(recv_reply(fd, 0)));
	out("epoll_oneshot: wait 0 ms: %s", ep_wait(ep, 0, names));
	close(ep);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* scenarios: ICMP errors, POLLERR */

/* recvmsg(MSG_ERRQUEUE), the record described. */
static const char *errqueue(int fd)
{
	uint8_t b[PKT + 64];
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in)) + 64];
		struct cmsghdr align;
	} cm;
	struct sockaddr_in name = { 0 };
	struct iovec iov = { b, sizeof(b) };
	struct msghdr m = { .msg_name = &name, .msg_namelen = sizeof(name),
			    .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cm.buf,
			    .msg_controllen = sizeof(cm.buf) };
	ssize_t n = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
	char nm[INET_ADDRSTRLEN], off[INET_ADDRSTRLEN] = "none";
	const struct sock_extended_err *ee = NULL;
	char *s;

	if (n < 0)
		return rcs(n);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
			ee = (const struct sock_extended_err *)CMSG_DATA(c);
	inet_ntop(AF_INET, &name.sin_addr, nm, sizeof(nm));
	s = (char *)S("%zd bytes, type %u seq %u, from %s port %u, flags%s%s",
		      n, n > 0 ? b[0] : 0, n >= 8 ? (unsigned)(b[6] << 8 | b[7]) : 0,
		      nm, ntohs(name.sin_port),
		      m.msg_flags & MSG_ERRQUEUE ? " MSG_ERRQUEUE" : "",
		      m.msg_flags & MSG_CTRUNC ? " MSG_CTRUNC" : "");
	if (!ee)
		return S("%s, no IP_RECVERR cmsg", s);
	if (ee->ee_origin == SO_EE_ORIGIN_ICMP) {
		const struct sockaddr_in *o =
			(const struct sockaddr_in *)SO_EE_OFFENDER(ee);

		inet_ntop(AF_INET, &o->sin_addr, off, sizeof(off));
	}
	return S("%s; %s origin %u type %u code %u info %u offender %s", s,
		 errname((int)ee->ee_errno), ee->ee_origin, ee->ee_type,
		 ee->ee_code, ee->ee_info, off);
}

/*
 * IP_RECVERR on and off, through waiter w: POLLERR (not POLLIN) while an
 * error is pending or queued, and what reads and sends do then.
 */
static void errors_with(const struct waiter *w)
{
	const char *l = w->name;
	struct sockaddr_in hard = sin_of(FORGE_HARD);
	struct wctx c;
	int fd;

	out("## %s: IP_RECVERR on, unconnected, soft error", l);
	fd = ping_socket(SOCK_NONBLOCK);
	out("%s: IP_RECVERR 1: %s", l, setint(fd, SOL_IP, IP_RECVERR, 1));
	c = w_open(w, fd);
	out("%s: sendto %s seq 1: %s", l, FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 1, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: wait again: %s", l, w_wait(&c, 0, false, NULL));
	out("%s: wait 0 ms, in/out/pri: %s", l, w_wait(&c, 0, true, NULL));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: wait 0 ms after reading it: %s", l,
	    w_wait(&c, 0, false, NULL));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: SO_ERROR: %s", l, so_error(fd));

	out("## %s: IP_RECVERR on: the pending error fails the next recv", l);
	out("%s: sendto seq 2: %s", l, send_echo(fd, FORGE_SOFT, 2, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: wait 0 ms (record still queued): %s", l,
	    w_wait(&c, 0, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: wait 0 ms: %s", l, w_wait(&c, 0, false, NULL));

	out("## %s: IP_RECVERR on: ... and the next send, which sends nothing",
	    l);
	out("%s: sendto seq 3: %s", l, send_echo(fd, FORGE_SOFT, 3, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: sendto seq 4: %s", l, send_echo(fd, FORGE_SOFT, 4, 'A'));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: wait %d ms (seq 4 caused no error): %s", l, QUIET_MS,
	    w_wait(&c, QUIET_MS, false, NULL));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));

	out("## %s: IP_RECVERR on: an error and a reply both queued", l);
	out("%s: sendto %s seq 5: %s", l, LOOP, send_echo(fd, LOOP, 5, 'A'));
	out("%s: sendto %s seq 6: %s", l, FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 6, 'A'));
	{
		/* both must be there before anything is printed */
		int64_t end = now_ms() + WAIT_MS;
		short ready = 0;

		while (now_ms() < end) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 50) > 0 &&
			    (p.revents & (POLLIN | POLLERR)) ==
				    (POLLIN | POLLERR))
				break;
		}
		out("%s: wait: %s", l, w_wait(&c, 0, false, &ready));
	}
	out("%s: wait 0 ms, in/out/pri: %s", l, w_wait(&c, 0, true, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: wait 0 ms: %s", l, w_wait(&c, 0, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: wait 0 ms: %s", l, w_wait(&c, 0, false, NULL));
	w_close(&c);
	close(fd);

	out("## %s: IP_RECVERR off, connected, hard error", l);
	fd = ping_socket(SOCK_NONBLOCK);
	c = w_open(w, fd);
	out("%s: connect %s: %s", l, FORGE_HARD,
	    rcs(connect(fd, (struct sockaddr *)&hard, sizeof(hard))));
	out("%s: send seq 7: %s", l, send_echo(fd, NULL, 7, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: wait again: %s", l, w_wait(&c, 0, false, NULL));
	out("%s: wait 0 ms, in/out/pri: %s", l, w_wait(&c, 0, true, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: wait 0 ms after the recv: %s", l,
	    w_wait(&c, 0, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: send seq 8: %s", l, send_echo(fd, NULL, 8, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: send seq 9: %s", l, send_echo(fd, NULL, 9, 'A'));
	out("%s: wait %d ms (seq 9 was not sent): %s", l, QUIET_MS,
	    w_wait(&c, QUIET_MS, false, NULL));
	out("%s: send seq 10: %s", l, send_echo(fd, NULL, 10, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: SO_ERROR: %s", l, so_error(fd));
	out("%s: wait 0 ms after SO_ERROR: %s", l,
	    w_wait(&c, 0, false, NULL));
	out("%s: SO_ERROR: %s", l, so_error(fd));
	w_close(&c);
	close(fd);

	out("## %s: IP_RECVERR off, unconnected: errors are dropped", l);
	fd = ping_socket(SOCK_NONBLOCK);
	c = w_open(w, fd);
	out("%s: sendto %s seq 11: %s", l, FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 11, 'A'));
	out("%s: sendto %s seq 12: %s", l, FORGE_HARD,
	    send_echo(fd, FORGE_HARD, 12, 'A'));
	out("%s: wait %d ms: %s", l, QUIET_MS,
	    w_wait(&c, QUIET_MS, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	out("%s: SO_ERROR: %s", l, so_error(fd));
	out("%s: sendto %s seq 13: %s", l, LOOP, send_echo(fd, LOOP, 13, 'A'));
	out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));
	w_close(&c);
	close(fd);

	if (w->kind == W_POLL) {
		/* One real router error (rate-limited: only here). */
		out("## %s: IP_RECVERR on, the router's unreachable route", l);
		fd = ping_socket(SOCK_NONBLOCK);
		setint(fd, SOL_IP, IP_RECVERR, 1);
		c = w_open(w, fd);
		out("%s: sendto %s seq 14: %s", l, ROUTE_UNREACH,
		    send_echo(fd, ROUTE_UNREACH, 14, 'A'));
		out("%s: wait: %s", l, w_wait(&c, WAIT_MS, false, NULL));
		out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
		out("%s: wait 0 ms: %s", l, w_wait(&c, 0, false, NULL));
		w_close(&c);
		close(fd);
	}
	if (w->kind == W_EPOLL) {
		static const char *const names[] = { "A" };
		int ep;

		out("## %s: EPOLLET: one EPOLLERR per error", l);
		fd = ping_socket(SOCK_NONBLOCK);
		setint(fd, SOL_IP, IP_RECVERR, 1);
		ep = epoll_create1(EPOLL_CLOEXEC);
		ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLET, 0);
		out("%s: sendto seq 15: %s", l,
		    send_echo(fd, FORGE_SOFT, 15, 'A'));
		out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
		out("%s: second wait: %s", l, ep_wait(ep, 0, names));
		out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
		out("%s: sendto seq 16: %s", l,
		    send_echo(fd, FORGE_SOFT, 16, 'A'));
		out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
		out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
		out("%s: second wait: %s", l, ep_wait(ep, 0, names));
		close(ep);
		close(fd);
	}
}

static void scn_errors_poll(void) { errors_with(&W_poll); }
static void scn_errors_ppoll(void) { errors_with(&W_ppoll); }
static void scn_errors_select(void) { errors_with(&W_select); }
static void scn_errors_pselect(void) { errors_with(&W_pselect); }
static void scn_errors_epoll(void) { errors_with(&W_epoll); }
static void scn_errors_epoll_pwait(void) { errors_with(&W_epoll_pwait); }

/* ------------------------------------------------------------------ */
/* scenarios: fork, dup, exec, close_range */

/*
 * A child pings on the inherited socket; one queue for both processes:
 * the parent reads the child's replies, the child can read the parent's.
 */
/* fork_exit's child: the reply, and whether its SO_TIMESTAMP came,
 * written to fd w. */
static void fork_exit_child(int fd, int w)
{
	char buf[256], cb[256], line[96];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cb, .msg_controllen = sizeof(cb) };
	short ev;
	ssize_t n;
	bool ts = false;

	sleep_ms(300);	/* its parent gone, and its connections */
	ev = wait_in(fd, WAIT_MS);
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n > 0 && c;
	     c = CMSG_NXTHDR(&mh, c))
		ts |= c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMP;
	snprintf(line, sizeof(line), "poll %s, a reply %s, SO_TIMESTAMP %s",
		 ev & POLLIN ? "POLLIN" : "nothing", n > 0 ? "read" : "none",
		 ts ? "with it" : "without");
	if (write(w, line, strlen(line)) < 0)
		_exit(1);
}

/*
 * A process opens a socket, asks for SO_TIMESTAMP, sends, forks and
 * exits at once; its child, which made no call of its own, reads the
 * reply (a program that daemonises).  pingsockd once gave the socket's
 * state slot back with the exiting process's last connection: the
 * child's reply came without its timestamp.
 */
static void scn_fork_exit(void)
{
	char line[128] = "";
	int p[2], st;
	ssize_t n;
	pid_t a;

	if (pipe(p) || (a = fork()) < 0) {
		out("fork_exit: %s", errname(errno));
		return;
	}
	if (a == 0) {
		int fd = ping_socket(0), one = 1;

		close(p[0]);
		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)))
			_exit(1);
		send_echo(fd, LOOP, 1, 'P');
		if (fork() == 0) {
			fork_exit_child(fd, p[1]);
			_exit(0);
		}
		_exit(0);
	}
	close(p[1]);
	waitpid(a, &st, 0);
	n = read(p[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	close(p[0]);
	out("fork_exit: the sender exited %d; its child: %s",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1, line);
}

static void scn_fork(void)
{
	int fd = ping_socket(SOCK_NONBLOCK), st;
	struct tally t = { 0 };
	pid_t pid;

	for (uint16_t s = 0; s < 10; s += 2)
		send_echo(fd, LOOP, s, 'P');
	pid = fork();
	if (pid == 0) {
		bool ok = true;

		for (uint16_t s = 1; s < 10; s += 2)
			ok &= strcmp(send_echo(fd, LOOP, s, 'C'), "64") == 0;
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	out("fork: child sent seqs 1,3,5,7,9 on the inherited socket, "
	    "exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	collect(fd, &t, 10, tag_parity);
	out("fork: parent sent 0,2,4,6,8, reads: %s", tally_str(&t, 0, 9));
	out("fork: then: %s", quiet(fd));

	for (uint16_t s = 20; s < 23; s++)
		send_echo(fd, LOOP, s, tag_parity(s));
	pid = fork();
	if (pid == 0) {
		struct tally ct = { 0 };
		unsigned good = 0;

		collect(fd, &ct, 3, tag_parity);
		for (unsigned s = 20; s < 23; s++)
			good += ct.count[s] == 1;
		_exit(ct.foreign || ct.total != 3 ? 100 : (int)good);
	}
	waitpid(pid, &st, 0);
	out("fork: parent sent 20,21,22; the child read them each once: "
	    "exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	out("fork: parent recv: %s", reply_str(recv_reply(fd, 0)));
	out("fork: then: %s", quiet(fd));

	/* both at once: a child that waits in poll while the parent sends */
	pid = fork();
	if (pid == 0) {
		short ev = wait_in(fd, WAIT_MS);
		struct reply r = recv_reply(fd, 0);

		_exit((ev & POLLIN) && r.good && r.seq == 30 ? 0 : 1);
	}
	sleep_ms(100);
	out("fork: parent sends seq 30 while the child waits: %s",
	    send_echo(fd, LOOP, 30, 'P'));
	waitpid(pid, &st, 0);
	out("fork: the child's poll woke and it read seq 30: exit %d",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	out("fork: after the children: sendto seq 31: %s",
	    send_echo(fd, LOOP, 31, 'C'));
	out("fork: recv: %s", await_reply(fd));
	out("fork: then: %s", quiet(fd));
	close(fd);
}

/*
 * dup, dup2, dup3, F_DUPFD_CLOEXEC: one socket; each reply once, through
 * whichever copy reads it; the last close frees it.
 */
static void scn_dup(void)
{
	static const char *const nm[] = { "fd", "dup", "dup2", "dup3",
					   "F_DUPFD_CLOEXEC" };
	struct pollfd p[5];
	struct tally t = { 0 };
	int fd, null, d[5];
	unsigned id;
	bool same = true;

	sockets("dup: at start", 0);
	fd = ping_socket(SOCK_NONBLOCK);
	out("dup: sendto seq 1: %s", send_echo(fd, LOOP, 1, 'A'));
	sockets("dup: one socket", 1);
	d[0] = fd;
	d[1] = dup(fd);
	d[2] = dup2(fd, 100);
	d[3] = dup3(fd, 101, O_CLOEXEC);
	d[4] = fcntl(fd, F_DUPFD_CLOEXEC, 200);
	out("dup: dup2 onto 100: %d, dup3 onto 101: %d, "
	    "F_DUPFD_CLOEXEC from 200: %s", d[2], d[3],
	    d[4] >= 200 ? ">= 200" : rcs(d[4]));
	id = ident_of(fd);
	for (int i = 0; i < 5; i++) {
		out("dup: %s: F_GETFD %s", nm[i], fdflags(d[i]));
		same &= ident_of(d[i]) == id && id != 0;
	}
	out("dup: the same identifier on every copy: %s", same ? "yes" : "no");
	sockets("dup: five copies", 1);

	wait_in(d[1], WAIT_MS);
	out("dup: recv on dup: %s", reply_str(recv_reply(d[1], 0)));
	for (int i = 0; i < 5; i++)
		p[i] = (struct pollfd){ .fd = d[i], .events = POLLIN };
	out("dup: poll all five, 0 ms: rc=%d", poll(p, 5, 0));
	out("dup: sendto on dup2 seq 2: %s", send_echo(d[2], LOOP, 2, 'A'));
	wait_in(fd, WAIT_MS);
	out("dup: poll all five: rc=%d", poll(p, 5, 0));
	for (int i = 0; i < 5; i++)
		out("dup:   %s: %s", nm[i], pollbits(p[i].revents));
	out("dup: recv on dup3: %s", reply_str(recv_reply(d[3], 0)));
	for (int i = 0; i < 5; i++)
		out("dup: recv on %s: %s", nm[i],
		    reply_str(recv_reply(d[i], 0)));

	/* one request through each copy, all read through the last one */
	for (int i = 0; i < 5; i++)
		send_echo(d[i], LOOP, (uint16_t)(3 + i), 'A');
	collect(d[4], &t, 5, tag_a);
	out("dup: one sendto per copy, read on F_DUPFD_CLOEXEC: %s",
	    tally_str(&t, 3, 7));
	out("dup: then: %s", quiet(fd));

	out("dup: close fd: %s", rcs(close(fd)));
	out("dup: sendto on dup seq 8: %s", send_echo(d[1], LOOP, 8, 'A'));
	out("dup: recv on dup2: %s", await_reply(d[2]));
	out("dup: close dup, dup2, dup3: %s %s %s", rcs(close(d[1])),
	    rcs(close(d[2])), rcs(close(d[3])));
	sockets("dup: one copy left", 1);
	out("dup: sendto on the last copy seq 9: %s",
	    send_echo(d[4], LOOP, 9, 'A'));
	out("dup: recv: %s", await_reply(d[4]));
	out("dup: F_GETFD on a closed copy: %s", fdflags(d[1]));

	/* dup2 of something else onto the last copy closes the socket */
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	out("dup: dup2 /dev/null onto the last copy: %s",
	    d[4] == dup2(null, d[4]) ? "that fd" : rcs(-1));
	sockets("dup: after that", 0);
	close(d[4]);
	close(null);

	fd = ping_socket(0);
	out("dup: a new socket: sendto seq 10: %s",
	    send_echo(fd, LOOP, 10, 'A'));
	out("dup: recv: %s", await_reply(fd));
	sockets("dup: with the new socket", 1);
	out("dup: close: %s", rcs(close(fd)));
	sockets("dup: closed", 0);
}

/* The descriptors open when main() started, "3,4,..." (for exec). */
static char start_fds[256];

static void list_fds(char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t n = 0;

	buf[0] = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%d",
				      n ? "," : "", fd);
		if (n >= size)
			break;
	}
	closedir(d);
}

/* Is fd in the comma-separated list? */
static bool in_list(const char *list, int fd)
{
	for (const char *p = list; *p;) {
		char *end;

		if (strtol(p, &end, 10) == fd)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static void exec_self(const char *scenario, int keep)
{
	char kept[16];

	snprintf(kept, sizeof(kept), "%d", keep);
	execl("/proc/self/exe", "shimprog", scenario, kept, start_fds,
	      (char *)NULL);
	out("exec: -1 %s", errname(errno));
	exit(1);
}

/*
 * exec: a SOCK_CLOEXEC socket is gone (from the daemon too), one without
 * it is kept; neither a fork+exec nor the exec leaks the shim's own
 * descriptors into the new program.
 */
static void scn_exec(void)
{
	int a = ping_socket(SOCK_CLOEXEC | SOCK_NONBLOCK);
	int b = ping_socket(SOCK_NONBLOCK), st;
	struct tally t = { 0 };
	pid_t pid;

	send_echo(a, LOOP, 1, 'A');
	send_echo(b, LOOP, 2, 'B');
	collect(a, &t, 1, tag_a);
	out("exec: CLOEXEC socket: %s", tally_str(&t, 1, 1));
	memset(&t, 0, sizeof(t));
	collect(b, &t, 1, tag_b);
	out("exec: the other: %s", tally_str(&t, 2, 2));
	out("exec: F_GETFD: %s, %s", fdflags(a), fdflags(b));
	sockets("exec: before", 2);

	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	out("exec: a child ran /bin/true: exit %d",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	sockets("exec: after the child's exec", 2);
	out("exec: the CLOEXEC socket in the parent: sendto seq 3: %s",
	    send_echo(a, LOOP, 3, 'A'));
	out("exec: recv: %s", await_reply(a));
	exec_self("exec_after", b);
}

static void after_exec(const char *kept_s, const char *before)
{
	int kept = atoi(kept_s), extra = 0;
	char now[1024];

	sockets("exec_after: in the new program", 1);
	/* What the exec handed over, before the kept socket's first use
	 * (which connects this program's own preload to the daemon). */
	list_fds(now, sizeof(now));
	for (const char *p = now; *p;) {
		char *end;
		long fd = strtol(p, &end, 10);

		if (fd > 2 && fd != kept && !in_list(before, (int)fd))
			extra++;
		p = *end ? end + 1 : end;
	}
	out("exec_after: the kept socket: F_GETFD %s", fdflags(kept));
	out("exec_after: other descriptors the new program got: %d", extra);
}

/* exec_after KEPT START_FDS (run by scn_exec) */
static void scn_exec_after(int argc, char **argv)
{
	int kept;

	if (argc < 4)
		exit(2);
	after_exec(argv[2], argv[3]);
	kept = atoi(argv[2]);
	out("exec_after: close the kept socket: %s", rcs(close(kept)));
	sockets("exec_after: closed", 0);
}

/* Three bound sockets, the lowest first; replies checked. */
static void three(const char *l, int s[3])
{
	for (int i = 0; i < 3; i++) {
		s[i] = ping_socket(SOCK_NONBLOCK);
		send_echo(s[i], LOOP, (uint16_t)(1 + i), 'A');
	}
	for (int i = 0; i < 3; i++) {
		struct tally t = { 0 };

		collect(s[i], &t, 1, tag_a);
		out("%s: socket %d: %s", l, i, tally_str(&t, 1 + (unsigned)i,
							 1 + (unsigned)i));
	}
}

/* A new socket still works (the shim's own descriptors survived). */
static void still_works(const char *l, uint16_t seq)
{
	int fd = ping_socket(SOCK_NONBLOCK);

	out("%s: a new socket: sendto seq %u: %s", l, seq,
	    send_echo(fd, LOOP, seq, 'A'));
	out("%s: recv: %s", l, await_reply(fd));
	close(fd);
}

static void scn_close_range(void)
{
	int s[3], n, m;

	three("close_range", s);
	sockets("close_range: three", 3);
	out("close_range: close_range(first, ~0U, 0): %s",
	    rcs(close_range((unsigned)s[0], ~0U, 0)));
	for (int i = 0; i < 3; i++)
		out("close_range: F_GETFD socket %d: %s", i, fdflags(s[i]));
	sockets("close_range: after", 0);
	still_works("close_range", 10);

	n = ping_socket(SOCK_NONBLOCK);
	m = ping_socket(SOCK_NONBLOCK);
	send_echo(n, LOOP, 11, 'A');
	send_echo(m, LOOP, 12, 'A');
	out("close_range: n: recv: %s", await_reply(n));
	out("close_range: m: recv: %s", await_reply(m));
	out("close_range: close_range(n, ~0U, CLOSE_RANGE_CLOEXEC): %s",
	    rcs(close_range((unsigned)n, ~0U, CLOSE_RANGE_CLOEXEC)));
	out("close_range: F_GETFD n, m: %s, %s", fdflags(n), fdflags(m));
	out("close_range: n: sendto seq 13: %s", send_echo(n, LOOP, 13, 'A'));
	out("close_range: n: recv: %s", await_reply(n));
	sockets("close_range: two", 2);
	out("close_range: close_range(n, n, 0): %s",
	    rcs(close_range((unsigned)n, (unsigned)n, 0)));
	out("close_range: F_GETFD n, m: %s, %s", fdflags(n), fdflags(m));
	sockets("close_range: one", 1);
	out("close_range: m: sendto seq 14: %s", send_echo(m, LOOP, 14, 'A'));
	out("close_range: m: recv: %s", await_reply(m));
	still_works("close_range", 15);
	close(m);
	sockets("close_range: none", 0);
}

static void scn_closefrom(void)
{
	int s[3];

	three("closefrom", s);
	sockets("closefrom: three", 3);
	closefrom(s[0]);
	for (int i = 0; i < 3; i++)
		out("closefrom: F_GETFD socket %d: %s", i, fdflags(s[i]));
	sockets("closefrom: after", 0);
	still_works("closefrom", 10);
}

/* A thread closes everything with CLOSE_RANGE_UNSHARE: in a private copy
 * of the table, so it can print nothing; it notes what it saw. */
struct unshare_run {
	int fd;
	char rc[32], getfd[32], close[32];
};

static void *unshare_thread(void *arg)
{
	struct unshare_run *u = arg;

	snprintf(u->rc, sizeof(u->rc), "%s",
		 rcs(close_range(0, ~0U, CLOSE_RANGE_UNSHARE)));
	snprintf(u->getfd, sizeof(u->getfd), "%s", fdflags(u->fd));
	snprintf(u->close, sizeof(u->close), "%s", rcs(close(u->fd)));
	return NULL;
}

/*
 * close_range(0, ~0U, CLOSE_RANGE_UNSHARE) in one thread closes its own
 * copy of the table: the other threads keep the socket, which works as
 * before (and the thread's close of the number, in its copy, changes
 * nothing for them).  In a process of one thread the flag changes
 * nothing: the socket closes as with close().
 */
static void scn_close_range_unshare(void)
{
	struct unshare_run u = { .fd = ping_socket(SOCK_NONBLOCK) };
	pthread_t th;

	out("close_range_unshare: sendto seq 1: %s",
	    send_echo(u.fd, LOOP, 1, 'A'));
	out("close_range_unshare: recv: %s", await_reply(u.fd));
	pthread_create(&th, NULL, unshare_thread, &u);
	pthread_join(th, NULL);
	out("close_range_unshare: a thread's close_range(0, ~0U, "
	    "CLOSE_RANGE_UNSHARE): %s", u.rc);
	out("close_range_unshare: in that thread: F_GETFD %s, close %s",
	    u.getfd, u.close);
	out("close_range_unshare: here: F_GETFD %s", fdflags(u.fd));
	out("close_range_unshare: sendto seq 2: %s",
	    send_echo(u.fd, LOOP, 2, 'A'));
	out("close_range_unshare: recv: %s", await_reply(u.fd));
	sockets("close_range_unshare: one", 1);
	out("close_range_unshare: alone: close_range(fd, fd, "
	    "CLOSE_RANGE_UNSHARE): %s",
	    rcs(close_range((unsigned)u.fd, (unsigned)u.fd,
			    CLOSE_RANGE_UNSHARE)));
	out("close_range_unshare: F_GETFD %s", fdflags(u.fd));
	sockets("close_range_unshare: none", 0);
	still_works("close_range_unshare", 3);
}

/*
 * A vfork() child (posix_spawn(), Python's subprocess) shares the
 * program's memory but has descriptors of its own: what it closes (close,
 * closefrom, dup2 over the socket's number) is its own copy.  The
 * program's socket and its epoll registration stay.
 */
static void vfork_child(int how, int fd)
{
	pid_t pid = vfork();

	if (pid == 0) {
		if (how == 0)
			close(fd);
		else if (how == 1)
			closefrom(3);
		else
			dup2(2, fd);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void scn_vfork(void)
{
	static const char *const how[] = { "close", "closefrom", "dup2 over" };
	static const char *const names[] = { "A" };
	int fd = ping_socket(SOCK_NONBLOCK), ep = epoll_create1(EPOLL_CLOEXEC);

	ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN, 0);
	for (int i = 0; i < 3; i++) {
		vfork_child(i, fd);
		out("vfork: after the child's %s: sendto: %s", how[i],
		    send_echo(fd, LOOP, (uint16_t)(20 + i), 'A'));
		out("vfork: epoll_wait: %s", ep_wait(ep, WAIT_MS, names));
		out("vfork: recv: %s", await_reply(fd));
	}
	/* A child that no fork handler ran in, with a copy of the memory
	 * (_Fork()): its own from then on, as after fork() (it was taken
	 * for a vfork() child: its dup() was the system call alone, and a
	 * send on the copy went to the C library). */
	fflush(stdout);
	pid_t pid = _Fork();

	if (pid == 0) {
		int d = dup(fd);

		out("vfork: a _Fork() child: sendto on a dup: %s",
		    send_echo(d, LOOP, 30, 'A'));
		out("vfork: the child: recv on the dup: %s", await_reply(d));
		fflush(stdout);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	sockets("vfork: one", 1);
	close(ep);
	close(fd);
	sockets("vfork: none", 0);
}

/* ------------------------------------------------------------------ */
/* scenarios: sendmmsg / recvmmsg */

#define MM 4

struct mmsgs {
	struct mmsghdr h[MM];
	struct iovec iov[MM];
	uint8_t buf[MM][PKT + 16];
	struct sockaddr_in name[MM];
};

static void mm_send_prep(struct mmsgs *m, const char *dst, uint16_t seq0,
			 int n)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < n; i++) {
		echo_request(m->buf[i], (uint16_t)(seq0 + i), 'A');
		m->name[i] = sin_of(dst);
		m->iov[i] = (struct iovec){ m->buf[i], PKT };
		m->h[i].msg_hdr = (struct msghdr){
			.msg_name = &m->name[i],
			.msg_namelen = sizeof(m->name[i]),
			.msg_iov = &m->iov[i], .msg_iovlen = 1 };
	}
}

static void mm_recv_prep(struct mmsgs *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < MM; i++) {
		m->iov[i] = (struct iovec){ m->buf[i], sizeof(m->buf[i]) };
		m->h[i].msg_hdr = (struct msghdr){
			.msg_name = &m->name[i],
			.msg_namelen = sizeof(m->name[i]),
			.msg_iov = &m->iov[i], .msg_iovlen = 1 };
	}
}

/* recvmmsg: the count, then each message's length, source and seq. */
static void mm_recv(const char *l, int fd, unsigned vlen, int flags,
		    struct timespec *ts)
{
	struct mmsgs m;
	int n;

	mm_recv_prep(&m);
	n = recvmmsg(fd, m.h, vlen, flags, ts);
	out("%s: recvmmsg: %s", l, rcs(n));
	for (int i = 0; i < n; i++) {
		char a[INET_ADDRSTRLEN];
		struct reply r = parse(m.buf[i], (ssize_t)m.h[i].msg_len);

		inet_ntop(AF_INET, &m.name[i].sin_addr, a, sizeof(a));
		out("%s:   [%d] len %u from %s port %u namelen %u flags %#x: %s",
		    l, i, m.h[i].msg_len, a, ntohs(m.name[i].sin_port),
		    (unsigned)m.h[i].msg_hdr.msg_namelen,
		    (unsigned)m.h[i].msg_hdr.msg_flags, reply_str(r));
	}
}

static void scn_mmsg(void)
{
	struct timespec ts = { 2, 0 };
	struct timeval tv = { 0, 200000 };
	struct mmsgs m;
	int fd = ping_socket(SOCK_NONBLOCK), b, n;

	mm_recv("mmsg", fd, 3, 0, NULL);
	mm_send_prep(&m, LOOP, 1, 3);
	n = sendmmsg(fd, m.h, 3, 0);
	out("mmsg: sendmmsg of 3: %s, lengths %u %u %u", rcs(n),
	    m.h[0].msg_len, m.h[1].msg_len, m.h[2].msg_len);
	wait_in(fd, WAIT_MS);
	sleep_ms(QUIET_MS);	/* all three queued */
	mm_recv("mmsg", fd, MM, MSG_WAITFORONE, &ts);
	mm_recv("mmsg", fd, MM, MSG_WAITFORONE, &ts);

	/* the second one is bad: the first is sent, the count says 1 */
	mm_send_prep(&m, LOOP, 10, 3);
	m.iov[1].iov_len = 4;
	n = sendmmsg(fd, m.h, 3, 0);
	out("mmsg: sendmmsg of 3, the second 4 bytes long: %s, lengths "
	    "%u %u %u", rcs(n), m.h[0].msg_len, m.h[1].msg_len,
	    m.h[2].msg_len);
	wait_in(fd, WAIT_MS);
	sleep_ms(QUIET_MS);
	mm_recv("mmsg", fd, MM, 0, NULL);
	mm_send_prep(&m, LOOP, 20, 2);
	m.iov[0].iov_len = 4;
	out("mmsg: sendmmsg, the first bad: %s",
	    rcs(sendmmsg(fd, m.h, 2, 0)));
	out("mmsg: sendmmsg of 0: %s", rcs(sendmmsg(fd, m.h, 0, 0)));
	mm_send_prep(&m, LOOP, 30, 1);
	out("mmsg: sendmmsg of 1: %s", rcs(sendmmsg(fd, m.h, 1, 0)));
	wait_in(fd, WAIT_MS);
	mm_recv("mmsg", fd, 1, 0, NULL);
	close(fd);

	/* blocking socket: MSG_WAITFORONE returns after what is there */
	b = ping_socket(0);
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	mm_recv("mmsg blocking, SO_RCVTIMEO 200 ms", b, MM, MSG_WAITFORONE,
		NULL);
	mm_send_prep(&m, LOOP, 40, 1);
	out("mmsg blocking: sendmmsg of 1: %s",
	    rcs(sendmmsg(b, m.h, 1, 0)));
	mm_recv("mmsg blocking", b, MM, MSG_WAITFORONE, NULL);
	mm_recv("mmsg blocking", b, MM, MSG_DONTWAIT, NULL);
	close(b);
}

/*
 * Vectors the program's memory does not hold: NULL, a PROT_NONE page, a
 * second message on one, a read-only vector (msg_len cannot be written:
 * the message was sent, or the datagram taken): EFAULT as the kernel says
 * (or the count so far), not a crash.
 */
static void scn_mmsg_efault(void)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mmsghdr *none = (struct mmsghdr *)(page + 4096), *h;
	struct mmsgs m;
	int fd = ping_socket(SOCK_NONBLOCK), n;

	if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE)) {
		out("mmsg_efault: mmap: %s", errname(errno));
		return;
	}
	out("mmsg_efault: sendmmsg(NULL, 1): %s",
	    rcs(sendmmsg(fd, NULL, 1, 0)));
	out("mmsg_efault: recvmmsg(NULL, 1): %s",
	    rcs(recvmmsg(fd, NULL, 1, 0, NULL)));
	out("mmsg_efault: sendmmsg(PROT_NONE, 1): %s",
	    rcs(sendmmsg(fd, none, 1, 0)));
	out("mmsg_efault: sendmmsg(NULL, 0): %s",
	    rcs(sendmmsg(fd, NULL, 0, 0)));

	/* the first message at the end of the good page, the second not */
	mm_send_prep(&m, LOOP, 1, 1);
	h = none - 1;
	*h = m.h[0];
	n = sendmmsg(fd, h, 2, 0);
	out("mmsg_efault: sendmmsg of 2, the second on PROT_NONE: %s, "
	    "msg_len %u", rcs(n), h->msg_len);
	out("mmsg_efault: recvmmsg(PROT_NONE, 1) with the reply queued: %s",
	    (wait_in(fd, WAIT_MS), rcs(recvmmsg(fd, none, 1, 0, NULL))));
	out("mmsg_efault: recv: %s", await_reply(fd));

	/* sent, but msg_len cannot be written back */
	mm_send_prep(&m, LOOP, 2, 1);
	memcpy(page, &m.h[0], sizeof(m.h[0]));
	mprotect(page, 4096, PROT_READ);
	out("mmsg_efault: sendmmsg of 1, read-only: %s",
	    rcs(sendmmsg(fd, (struct mmsghdr *)page, 1, 0)));
	out("mmsg_efault: recv: %s", await_reply(fd));
	out("mmsg_efault: sendto seq 3: %s", send_echo(fd, LOOP, 3, 'A'));
	wait_in(fd, WAIT_MS);
	out("mmsg_efault: recvmmsg(read-only, 1): %s",
	    rcs(recvmmsg(fd, (struct mmsghdr *)page, 1, 0, NULL)));
	out("mmsg_efault: then: %s", quiet(fd));
	munmap(page, 8192);
	close(fd);
}

/*
 * recvmmsg(): an error after a message was received ends the batch with
 * the count, and do_recvmmsg() keeps it as the socket's pending error
 * (sk_err): the next receive or send fails with it, SO_ERROR reads it
 * (once), poll says POLLERR.  EAGAIN is not kept.
 */
struct pending_send {
	int fd;
	const char *dst;
};

/* Sends an echo to dst after 200 ms: while the main thread waits. */
static void *pending_sender(void *arg)
{
	const struct pending_send *p = arg;
	uint8_t pkt[PKT];
	struct sockaddr_in a = sin_of(p->dst);

	sleep_ms(200);
	echo_request(pkt, 31, 'A');
	(void)sendto(p->fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&a,
		     sizeof(a));
	return NULL;
}

/* Two replies queued on fd, then a recvmmsg of 2 whose second buffer
 * is not there (the datagram is taken all the same). */
static void mm_pending_batch(int fd, uint16_t seq)
{
	struct mmsgs m;
	int n;

	out("mmsg_pending: sendto seq %u: %s", seq,
	    send_echo(fd, LOOP, seq, 'A'));
	out("mmsg_pending: sendto seq %u: %s", seq + 1,
	    send_echo(fd, LOOP, (uint16_t)(seq + 1), 'A'));
	wait_in(fd, WAIT_MS);
	sleep_ms(QUIET_MS);
	mm_recv_prep(&m);
	m.iov[1].iov_base = (void *)(uintptr_t)8;
	n = recvmmsg(fd, m.h, 2, MSG_DONTWAIT, NULL);
	out("mmsg_pending: recvmmsg of 2, the second buffer not there: %s, "
	    "[0] %s", rcs(n),
	    reply_str(parse(m.buf[0], (ssize_t)m.h[0].msg_len)));
	out("mmsg_pending: poll: %s", pollbits(wait_in(fd, 0)));
}

static void scn_mmsg_pending(void)
{
	struct timeval tv = { 3, 0 };
	struct pending_send ps;
	struct mmsgs m;
	pthread_t th;
	int fd = ping_socket(SOCK_NONBLOCK), b;

	mm_pending_batch(fd, 1);
	out("mmsg_pending: recv: %s", reply_str(recv_reply(fd, 0)));
	out("mmsg_pending: recv: %s", reply_str(recv_reply(fd, 0)));
	mm_pending_batch(fd, 3);
	out("mmsg_pending: SO_ERROR: %s", so_error(fd));
	out("mmsg_pending: SO_ERROR: %s", so_error(fd));
	mm_pending_batch(fd, 5);
	out("mmsg_pending: sendto seq 7: %s", send_echo(fd, LOOP, 7, 'A'));
	out("mmsg_pending: then: %s", quiet(fd));

	out("mmsg_pending: sendto seq 8: %s", send_echo(fd, LOOP, 8, 'A'));
	wait_in(fd, WAIT_MS);
	mm_recv_prep(&m);
	out("mmsg_pending: recvmmsg of 2, one queued: %s",
	    rcs(recvmmsg(fd, m.h, 2, MSG_DONTWAIT, NULL)));
	out("mmsg_pending: SO_ERROR after EAGAIN: %s", so_error(fd));
	close(fd);

	/* An ICMP error that arrives while the second receive waits. */
	b = ping_socket(0);
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	out("mmsg_pending: IP_RECVERR 1: %s", setint(b, SOL_IP, IP_RECVERR, 1));
	out("mmsg_pending: sendto seq 30: %s", send_echo(b, LOOP, 30, 'A'));
	wait_in(b, WAIT_MS);
	ps.fd = b;
	ps.dst = FORGE_SOFT;
	pthread_create(&th, NULL, pending_sender, &ps);
	mm_recv_prep(&m);
	out("mmsg_pending: recvmmsg of 2, blocking, an error comes: %s",
	    rcs(recvmmsg(b, m.h, 2, 0, NULL)));
	pthread_join(th, NULL);
	out("mmsg_pending: poll: %s", pollbits(wait_in(b, 0)));
	out("mmsg_pending: recv: %s", reply_str(recv_reply(b, MSG_DONTWAIT)));
	out("mmsg_pending: MSG_ERRQUEUE: %s", errqueue(b));
	out("mmsg_pending: SO_ERROR: %s", so_error(b));
	close(b);
}

/*
 * A process that has made no ping socket: the shim's poll family passes
 * the program's arrays to libc unread, so one it does not have is the
 * kernel's EFAULT, as without the shim (it read the array first, and
 * crashed).
 */
static volatile uintptr_t nosock_bad = 8;	/* unknown to the compiler */

static void scn_nosock_efault(void)
{
	void *bad = (void *)nosock_bad; // NOLINT(performance-no-int-to-ptr)
	struct timespec zero = { 0, 0 };
	struct timeval tv0 = { 0, 0 };
	int fd;

	out("nosock_efault: poll fds=8: %s", rcs(poll(bad, 1, 0)));
	out("nosock_efault: ppoll fds=8: %s", rcs(ppoll(bad, 1, &zero, NULL)));
	out("nosock_efault: select readfds=8: %s",
	    rcs(select(1, bad, NULL, NULL, &tv0)));
	out("nosock_efault: epoll_ctl event=8: %s",
	    rcs(epoll_ctl(epoll_create1(EPOLL_CLOEXEC), EPOLL_CTL_ADD, 0, bad)));
	/* And then a socket, as every scenario has (shim_prog.sh). */
	fd = ping_socket(0);
	out("nosock_efault: then a socket: sendto: %s",
	    send_echo(fd, LOOP, 1, 'A'));
	wait_in(fd, WAIT_MS);
	out("nosock_efault: recv: %s", reply_str(recv_reply(fd, MSG_DONTWAIT)));
	out("nosock_efault: poll fds=8: %s", rcs(poll(bad, 1, 0)));
	close(fd);
}

/*
 * epoll_wait into an array the program does not have while an ICMP error
 * is pending: the kernel's EFAULT (the shim reports that EPOLLERR itself,
 * and wrote it there, and crashed).
 */
static void scn_epoll_efault(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	void *bad = (void *)nosock_bad; // NOLINT(performance-no-int-to-ptr)
	int fd = ping_socket(SOCK_NONBLOCK), ep = epoll_create1(EPOLL_CLOEXEC);
	int n;

	out("epoll_efault: IP_RECVERR 1: %s", setint(fd, SOL_IP, IP_RECVERR, 1));
	out("epoll_efault: epoll_ctl ADD: %s",
	    rcs(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)));
	out("epoll_efault: sendto %s seq 1: %s", FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 1, 'A'));
	n = epoll_wait(ep, &ev, 1, WAIT_MS);
	out("epoll_efault: epoll_wait: %s, events %s", rcs(n),
	    n == 1 && (ev.events & EPOLLERR) ? "EPOLLERR" : "other");
	out("epoll_efault: epoll_wait events=8: %s",
	    rcs(epoll_wait(ep, bad, 1, 0)));
	n = epoll_wait(ep, &ev, 1, 0);
	out("epoll_efault: epoll_wait: %s, events %s", rcs(n),
	    n == 1 && (ev.events & EPOLLERR) ? "EPOLLERR" : "other");
	out("epoll_efault: MSG_ERRQUEUE: %s", errqueue(fd));
	close(ep);
	close(fd);
}

/*
 * poll() and select() of a pipe from a signal handler, while the thread
 * it interrupts is in malloc() and free(), in a process with a ping
 * socket: both are async-signal-safe, so neither may allocate for a
 * call that is not about a ping socket (the shim's did: glibc's malloc
 * assertion, or SIGSEGV).
 */
static int sig_pipe = -1;

static void sig_waits(int sig)
{
	struct pollfd p[20];
	struct timeval tv = { 0, 0 };
	fd_set r;

	(void)sig;
	for (int i = 0; i < 20; i++)
		p[i] = (struct pollfd){ .fd = sig_pipe, .events = POLLIN };
	FD_ZERO(&r);
	FD_SET(sig_pipe, &r);
	(void)poll(p, 20, 0);
	(void)select(sig_pipe + 1, &r, NULL, NULL, &tv);
}

static void scn_signal_waits(void)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	int fd = ping_socket(0), pp[2];
	int64_t end;

	out("signal_waits: sendto: %s", send_echo(fd, LOOP, 1, 'A'));
	if (pipe(pp) != 0)
		return;
	sig_pipe = pp[0];
	signal(SIGALRM, sig_waits);
	setitimer(ITIMER_REAL, &it, NULL);
	for (end = now_ms() + 2000; now_ms() < end;) {
		void *a[64];

		for (int i = 0; i < 64; i++)
			a[i] = malloc(16 + (size_t)i * 40);
		for (int i = 0; i < 64; i++)
			free(a[i]);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	out("signal_waits: 2 s of malloc() under poll() and select() in a "
	    "handler: done");
	close(pp[0]);
	close(pp[1]);
	close(fd);
}

/* A poll that a signal ends writes every revents back, 0, as the
 * kernel's do_sys_poll() does (the shim's left the program's). */
static void on_alarm_nothing(int sig)
{
	(void)sig;
}

static void scn_poll_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_alarm_nothing };
	struct itimerval it = { { 0, 0 }, { 0, 50000 } };
	int fd = ping_socket(0), rc, e;
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN, .revents = 0x7f },
			       { .fd = 0, .events = 0, .revents = 0x7f } };

	out("poll_eintr: sendto: %s", send_echo(fd, LOOP, 1, 'A'));
	wait_in(fd, WAIT_MS);
	out("poll_eintr: recv: %s", reply_str(recv_reply(fd, MSG_DONTWAIT)));
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	rc = poll(p, 2, 5000);
	e = errno;
	out("poll_eintr: poll, a signal after 50 ms: %s, revents %#x %#x",
	    rcs_e(rc, e), (unsigned)p[0].revents, (unsigned)p[1].revents);
	signal(SIGALRM, SIG_DFL);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* scenarios: threads */

struct worker {
	char tag;
	pthread_barrier_t *go;
	unsigned lockstep_ok, lockstep_bad;
	struct tally burst;
};

static __thread char my_tag;

static char tag_worker(uint16_t seq)
{
	(void)seq;
	return my_tag;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	int fd = ping_socket(SOCK_NONBLOCK);

	my_tag = w->tag;
	pthread_barrier_wait(w->go);
	/* lock-step: each reply before the next request */
	for (uint16_t s = 0; s < 20; s++) {
		struct reply r;

		send_echo(fd, LOOP, s, w->tag);
		wait_in(fd, WAIT_MS);
		r = recv_reply(fd, 0);
		if (r.good && r.tag == w->tag && r.seq == s)
			w->lockstep_ok++;
		else
			w->lockstep_bad++;
	}
	/* a burst: twenty requests, then their replies */
	for (uint16_t s = 100; s < 120; s++)
		send_echo(fd, LOOP, s, w->tag);
	collect(fd, &w->burst, 20, tag_worker);
	close(fd);
	return NULL;
}

struct waiting {
	int fd;
	bool blocking;		/* recv blocks (SO_RCVTIMEO); else poll first */
	short ev;
	struct reply r;
};

static void *waiting_run(void *arg)
{
	struct waiting *w = arg;

	if (!w->blocking)
		w->ev = wait_in(w->fd, WAIT_MS);
	w->r = recv_reply(w->fd, 0);
	return NULL;
}

static void scn_threads(void)
{
	pthread_barrier_t go;
	struct worker w[2] = { { .tag = 'A', .go = &go },
			       { .tag = 'B', .go = &go } };
	pthread_t th[2];
	struct waiting wt;
	struct timeval tv = { 2, 0 };
	int fd;

	pthread_barrier_init(&go, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker_run, &w[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	for (int i = 0; i < 2; i++) {
		out("threads: %c: lock-step 20: %u right, %u wrong", w[i].tag,
		    w[i].lockstep_ok, w[i].lockstep_bad);
		out("threads: %c: burst of 20: %s", w[i].tag,
		    tally_str(&w[i].burst, 100, 119));
	}

	/* one socket: a thread waits in poll while another sends */
	fd = ping_socket(SOCK_NONBLOCK);
	wt = (struct waiting){ .fd = fd };
	pthread_create(&th[0], NULL, waiting_run, &wt);
	sleep_ms(100);
	out("threads: shared: sendto seq 500 while a thread polls: %s",
	    send_echo(fd, LOOP, 500, 'A'));
	pthread_join(th[0], NULL);
	out("threads: shared: the thread saw %s and read: %s",
	    pollbits(wt.ev), reply_str(wt.r));
	close(fd);

	/* ... and while it blocks in recv (SO_RCVTIMEO 2 s) */
	fd = ping_socket(0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	wt = (struct waiting){ .fd = fd, .blocking = true };
	pthread_create(&th[0], NULL, waiting_run, &wt);
	sleep_ms(100);
	out("threads: shared: sendto seq 501 while a thread is in recv: %s",
	    send_echo(fd, LOOP, 501, 'A'));
	pthread_join(th[0], NULL);
	out("threads: shared: the thread read: %s", reply_str(wt.r));
	out("threads: shared: then: %s", quiet(fd));
	close(fd);
}

/* SIOCGSTAMP: "stamp" or "-1 ENAME" (ENOENT: nothing read yet). */
static const char *stamp_of(int fd)
{
	struct timeval tv;
	int rc = ioctl(fd, SIOCGSTAMP, &tv);

	return rc == 0 ? "stamp" : rcs(rc);
}

/*
 * The receive time (sk_stamp) is the socket's, shared by its copies: a
 * thread blocked in recv while another closes the number, opens a new
 * socket that gets it and sends on a dup of the old one.  The reply the
 * blocked recv reads stamps the old socket (its dup), never the new
 * one, which has read nothing.  (And a dup made before a recv sees its
 * stamp.)
 */
static void scn_stamp_reuse(void)
{
	struct timeval tv = { 2, 0 };
	struct waiting wt;
	pthread_t th;
	int fd = ping_socket(0), d = dup(fd), n;

	send_echo(fd, LOOP, 1, 'A');
	out("stamp_reuse: recv: %s", await_reply(fd));
	out("stamp_reuse: SIOCGSTAMP on the socket, on its dup: %s, %s",
	    stamp_of(fd), stamp_of(d));
	close(d);
	close(fd);

	fd = ping_socket(0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	wt = (struct waiting){ .fd = fd, .blocking = true };
	pthread_create(&th, NULL, waiting_run, &wt);
	sleep_ms(300);	/* the thread is in recv */
	d = dup(fd);
	close(fd);
	n = ping_socket(0);
	out("stamp_reuse: a new socket has the old number: %s",
	    n == fd ? "yes" : "no");
	out("stamp_reuse: SIOCGSTAMP on the new socket: %s", stamp_of(n));
	out("stamp_reuse: sendto seq 2 on the dup: %s",
	    send_echo(d, LOOP, 2, 'A'));
	pthread_join(th, NULL);
	out("stamp_reuse: the blocked recv read: %s", reply_str(wt.r));
	out("stamp_reuse: SIOCGSTAMP on the new socket: %s", stamp_of(n));
	out("stamp_reuse: SIOCGSTAMP on the dup: %s", stamp_of(d));
	close(d);
	close(n);
}

/* A thread waits (recv with SO_RCVTIMEO, poll or epoll_wait) while
 * another shuts the socket down for reading. */
struct shut_wait {
	int fd, ep, how;	/* 0 recv, 1 poll, 2 epoll_wait */
	const char *got;
};

static void *shut_wait_run(void *arg)
{
	static const char *const names[] = { "A" };
	struct shut_wait *w = arg;
	uint8_t b[PKT + 64];

	if (w->how == 0)
		w->got = rcs(recv(w->fd, b, sizeof(b), 0));
	else if (w->how == 1)
		w->got = pollbits(wait_in(w->fd, WAIT_MS));
	else
		w->got = ep_wait(w->ep, WAIT_MS, names);
	return NULL;
}

/*
 * inet_shutdown() wakes every waiter (sk_state_change): a blocked receive
 * returns 0 and a wait reports the socket readable, at once, not when
 * its time runs out.
 */
static void scn_shutdown_wakes(void)
{
	static const char *const how[] = { "recv", "poll", "epoll_wait" };
	struct timeval tv = { 2, 0 };
	struct shut_wait w;
	pthread_t th;

	for (int i = 0; i < 3; i++) {
		w = (struct shut_wait){ .fd = ping_socket(0), .how = i,
					.ep = epoll_create1(EPOLL_CLOEXEC) };
		setsockopt(w.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ep_ctl(w.ep, EPOLL_CTL_ADD, w.fd, EPOLLIN, 0);
		pthread_create(&th, NULL, shut_wait_run, &w);
		sleep_ms(300);
		out("shutdown_wakes: shutdown(SHUT_RD) while a thread is in "
		    "%s: %s", how[i], rcs(shutdown(w.fd, SHUT_RD)));
		pthread_join(th, NULL);
		out("shutdown_wakes: the thread's %s: %s", how[i], w.got);
		close(w.ep);
		close(w.fd);
	}
	/* Once for each change: a hundred shutdown(SHUT_WR) leave the
	 * socket as one does (each queued a wake-up, and past 64 of them a
	 * wait took the socket for readable). */
	w.fd = ping_socket(0);
	for (int i = 0; i < 100; i++)
		(void)shutdown(w.fd, SHUT_WR);
	out("shutdown_wakes: after 100 shutdown(SHUT_WR): poll: %s",
	    pollbits(wait_in(w.fd, 0)));
	out("shutdown_wakes: recv: %s", rcs(recv(w.fd, &w, 1, MSG_DONTWAIT)));
	close(w.fd);
	still_works("shutdown_wakes", 1);
}

/*
 * A socket closed behind the shim's back (the raw system call), its
 * number then given to another socket: every call on that number is the
 * new socket's own.
 */
static void scn_stale(void)
{
	int fd = ping_socket(0), sp[2], rc;
	char buf[16] = "";
	struct pollfd p;

	out("stale: sendto seq 1: %s", send_echo(fd, LOOP, 1, 'A'));
	out("stale: close by the system call: %s",
	    rcs(syscall(SYS_close, fd)));
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) < 0) {
		out("stale: socketpair: %s", errname(errno));
		return;
	}
	if (sp[0] != fd) {
		dup2(sp[0], fd);
		close(sp[0]);
	}
	out("stale: write to the new socket: %s", rcs(write(fd, "hey", 3)));
	out("stale: its peer reads: %s", rcs(read(sp[1], buf, sizeof(buf))));
	out("stale: the peer sends: %s", rcs(send(sp[1], "hello", 5, 0)));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	rc = poll(&p, 1, 1000);
	out("stale: poll: %s %s", rcs(rc), pollbits(p.revents));
	memset(buf, 0, sizeof(buf));
	out("stale: read: %s \"%s\"", rcs(read(fd, buf, sizeof(buf) - 1)), buf);
	{
		int v = 0;
		socklen_t l = sizeof(v);

		rc = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l);
		out("stale: getsockopt SO_DOMAIN: %s %s", rcs(rc),
		    v == AF_UNIX ? "AF_UNIX" : S("%d", v));
	}
	out("stale: close: %s", rcs(close(fd)));
	close(sp[1]);
}

/* ------------------------------------------------------------------ */
/* scenarios: the signal mask of ppoll, pselect, epoll_pwait(2) */

#define SIG_WAIT_MS 5000	/* a wait that a signal must end at once */
#define SIG_AT_ONCE_MS 2500	/* "at once": in less than this */

enum skind { S_PPOLL, S_PSELECT, S_EPOLL_PWAIT, S_EPOLL_PWAIT2 };

struct sctx {
	const char *name;
	enum skind kind;
	int fd, ep;
	sigset_t open;		/* the thread's mask without SIGUSR1 */
};

static volatile sig_atomic_t sig_seen;

static void on_usr1(int sig)
{
	(void)sig;
	sig_seen++;
}

static bool usr1_pending(void)
{
	sigset_t s;

	return sigpending(&s) == 0 && sigismember(&s, SIGUSR1) == 1;
}

/* One wait for input on the socket, at most ms, with mask; its result. */
static const char *sig_wait(const struct sctx *c, int ms, const sigset_t *mask)
{
	struct timespec ts = ts_of(ms);
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	struct epoll_event ev[2];
	fd_set r;
	int rc;

	switch (c->kind) {
	case S_PPOLL:
		rc = ppoll(&p, 1, &ts, mask);
		return rc <= 0 ? rcs(rc)
			       : S("rc=%d revents=%s", rc, pollbits(p.revents));
	case S_PSELECT:
		FD_ZERO(&r);
		FD_SET(c->fd, &r);
		rc = pselect(c->fd + 1, &r, NULL, NULL, &ts, mask);
		return rc <= 0 ? rcs(rc)
			       : S("rc=%d%s", rc,
				   FD_ISSET(c->fd, &r) ? " read" : "");
	case S_EPOLL_PWAIT:
		rc = epoll_pwait(c->ep, ev, 2, ms, mask);
		break;
	default:
		rc = epoll_pwait2(c->ep, ev, 2, &ts, mask);
		break;
	}
	return rc <= 0 ? rcs(rc)
		       : S("n=%d events=%s%s", rc, epollbits(ev[0].events),
			   ev[0].data.u64 == 0x5eed ? "" : " (bad data)");
}

/*
 * A wait as the kernel's call ends it: what it returned, whether the
 * handler ran, whether SIGUSR1 is still pending; for a long wait, whether
 * it ended at once (a correctness bound, not a speed one: the wrong
 * answer waits the whole SIG_WAIT_MS).
 */
static void sig_case(const struct sctx *c, const char *what, int ms,
		     const sigset_t *mask)
{
	int64_t t0 = now_ms(), took;
	const char *d;

	sig_seen = 0;
	d = sig_wait(c, ms, mask);
	took = now_ms() - t0;
	out("%s: %s: %s; handler ran %d; SIGUSR1 %s%s", c->name, what, d,
	    (int)sig_seen, usr1_pending() ? "pending" : "not pending",
	    ms < SIG_WAIT_MS ? ""
	    : took < SIG_AT_ONCE_MS ? "; at once" : "; not at once");
}

/*
 * The mask is the call's, atomically: SIGUSR1 blocked and pending before
 * the call, unblocked by its mask, ends a wait on an idle socket at once
 * with EINTR (handler run).  A socket already ready is reported instead,
 * and the signal stays pending (blocked again on return).
 */
static void sigmask_with(const char *name, enum skind kind)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct sctx c = { .name = name, .kind = kind, .ep = -1 };
	sigset_t usr1, old;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	c.open = old;
	sigdelset(&c.open, SIGUSR1);
	c.fd = ping_socket(SOCK_NONBLOCK);
	setint(c.fd, SOL_IP, IP_RECVERR, 1);
	if (kind == S_EPOLL_PWAIT || kind == S_EPOLL_PWAIT2)
		c.ep = epoll_with(c.fd, EPOLLIN);

	raise(SIGUSR1);
	sig_case(&c, "idle socket, SIGUSR1 pending", SIG_WAIT_MS, &c.open);
	sig_case(&c, "idle socket, nothing pending", QUIET_MS, &c.open);

	out("%s: sendto %s seq 1: %s", name, LOOP, send_echo(c.fd, LOOP, 1, 'A'));
	wait_in(c.fd, WAIT_MS);
	raise(SIGUSR1);
	sig_case(&c, "a reply queued, SIGUSR1 pending", SIG_WAIT_MS, &c.open);
	out("%s: recv: %s", name, reply_str(recv_reply(c.fd, 0)));
	sig_case(&c, "idle again, SIGUSR1 still pending", SIG_WAIT_MS, &c.open);

	out("%s: sendto %s seq 2: %s", name, FORGE_SOFT,
	    send_echo(c.fd, FORGE_SOFT, 2, 'A'));
	wait_in(c.fd, WAIT_MS);		/* the error's POLLERR */
	raise(SIGUSR1);
	sig_case(&c, "an error queued, SIGUSR1 pending", SIG_WAIT_MS, &c.open);
	sig_case(&c, "the error still queued, no mask", QUIET_MS, NULL);
	out("%s: MSG_ERRQUEUE: %s", name, errqueue(c.fd));
	sig_case(&c, "idle, no mask: SIGUSR1 stays blocked", QUIET_MS, NULL);
	sig_case(&c, "idle, SIGUSR1 unblocked by the mask", SIG_WAIT_MS,
		 &c.open);

	if (c.ep >= 0)
		close(c.ep);
	close(c.fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
}

static void scn_sigmask_ppoll(void) { sigmask_with("sigmask_ppoll", S_PPOLL); }
static void scn_sigmask_pselect(void)
{
	sigmask_with("sigmask_pselect", S_PSELECT);
}
static void scn_sigmask_epoll_pwait(void)
{
	sigmask_with("sigmask_epoll_pwait", S_EPOLL_PWAIT);
}
static void scn_sigmask_epoll_pwait2(void)
{
	sigmask_with("sigmask_epoll_pwait2", S_EPOLL_PWAIT2);
}

/* ------------------------------------------------------------------ */
/* scenarios: copies of an epoll descriptor (dup, fork) */

static const char *const ep_names[] = { "A", "A2" };

/*
 * An ICMP error on fd (IP_RECVERR on, level-triggered EPOLLIN in the set
 * behind ep): EPOLLERR through ep, level (again), the record, then
 * nothing.
 */
static void ep_error_round(const char *l, int ep, int fd, uint16_t seq)
{
	out("%s: sendto %s seq %u: %s", l, FORGE_SOFT, seq,
	    send_echo(fd, FORGE_SOFT, seq, 'A'));
	out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, ep_names));
	out("%s: wait again (level): %s", l, ep_wait(ep, 0, ep_names));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	out("%s: wait 0 ms: %s", l, ep_wait(ep, 0, ep_names));
}

/* A ping socket with IP_RECVERR in a new epoll set (EPOLLIN, "A"). */
static int ep_with_errors(int *fd)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	*fd = ping_socket(SOCK_NONBLOCK);
	setint(*fd, SOL_IP, IP_RECVERR, 1);
	ep_ctl(ep, EPOLL_CTL_ADD, *fd, EPOLLIN, 0);
	return ep;
}

/*
 * One epoll set under several numbers: dup, dup2, dup3, F_DUPFD_CLOEXEC,
 * a copy made by the system call itself (which the shim does not see),
 * each reporting the socket's errors while the number it came from is
 * open, and after that number is closed (close, dup2 over it,
 * close_range).
 */
static void scn_epoll_dup(void)
{
	const char *l = "epoll_dup";
	int fd, ep = ep_with_errors(&fd), d, e, raw, null;

	d = dup(ep);
	out("%s: wait 0 ms through a dup: %s", l, ep_wait(d, 0, ep_names));
	ep_error_round("epoll_dup: through the dup, the original open", d, fd, 1);
	ep_error_round("epoll_dup: through the original", ep, fd, 2);
	out("%s: close the original: %s", l, rcs(close(ep)));
	ep_error_round("epoll_dup: through the dup, the original closed", d,
		       fd, 3);
	out("%s: MOD through the dup, data A2: %s", l,
	    rcs(ep_ctl(d, EPOLL_CTL_MOD, fd, EPOLLIN, 1)));
	out("%s: sendto %s seq 4: %s", l, LOOP, send_echo(fd, LOOP, 4, 'A'));
	out("%s: wait: %s", l, ep_wait(d, WAIT_MS, ep_names));
	out("%s: recv: %s", l, reply_str(recv_reply(fd, 0)));

	e = dup2(d, 100);
	out("%s: dup2 onto 100: %d; close the dup: %s", l, e, rcs(close(d)));
	ep_error_round("epoll_dup: through 100", e, fd, 5);
	d = dup3(e, 101, O_CLOEXEC);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	out("%s: dup3 onto 101: %d; dup2 /dev/null over 100: %s", l, d,
	    dup2(null, e) == e ? "100" : rcs(-1));
	close(null);
	close(e);
	ep_error_round("epoll_dup: through 101", d, fd, 6);
	e = fcntl(d, F_DUPFD_CLOEXEC, 200);
	out("%s: F_DUPFD_CLOEXEC from 200: %s; close_range over 101: %s", l,
	    e >= 200 ? ">= 200" : rcs(e),
	    rcs(close_range((unsigned)d, (unsigned)d, 0)));
	ep_error_round("epoll_dup: through F_DUPFD_CLOEXEC", e, fd, 7);

	raw = (int)syscall(SYS_dup, e);
	out("%s: a copy by the system call: %s", l, raw >= 0 ? "made" : rcs(raw));
	ep_error_round("epoll_dup: through that copy, the other open", raw,
		       fd, 8);
	out("%s: close the other: %s", l, rcs(close(e)));
	ep_error_round("epoll_dup: through that copy alone", raw, fd, 9);
	/* never used before the one it came from is closed */
	e = (int)syscall(SYS_dup, raw);
	out("%s: another copy by the system call: %s; close the first: %s", l,
	    e >= 0 ? "made" : rcs(e), rcs(close(raw)));
	raw = e;
	ep_error_round("epoll_dup: through the second copy", raw, fd, 10);
	out("%s: DEL through it: %s", l,
	    rcs(ep_ctl(raw, EPOLL_CTL_DEL, fd, 0, 0)));
	out("%s: sendto %s seq 11: %s", l, FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 11, 'A'));
	out("%s: socket: %s", l, pollbits(wait_in(fd, WAIT_MS)));
	out("%s: wait %d ms: %s", l, QUIET_MS, ep_wait(raw, QUIET_MS, ep_names));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(fd));
	close(raw);
	close(fd);
}

/*
 * A registered socket's number closed while a copy keeps the socket
 * open: the kernel's registration belongs to the open file and lives on,
 * reporting its events with the program's data, while the number, once
 * given to another descriptor (a pipe, another socket), is that one's
 * alone: epoll_ctl on it and its events are the new descriptor's.
 */
/* from, moved to the number to (closed there if need be); to or -1. */
static int move_to(int from, int to)
{
	int rc;

	if (from < 0 || from == to)
		return from;
	rc = dup2(from, to);
	close(from);
	return rc;
}

static void scn_epoll_reuse(void)
{
	static const char *const names[] = { "A", "P", "B" };
	const char *l = "epoll_reuse";
	int fd = ping_socket(SOCK_NONBLOCK), ep = epoll_create1(EPOLL_CLOEXEC);
	int d, p[2], n = fd;
	char x;

	ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLOUT, 0);
	d = dup(fd);
	setint(d, SOL_IP, IP_RECVERR, 1);
	out("%s: A registered for EPOLLOUT, copied, closed: %s", l, rcs(close(fd)));
	if (pipe(p) < 0 || move_to(p[0], n) != n)
		return;
	out("%s: its number a pipe's, ADD it for EPOLLIN: %s", l,
	    rcs(ep_ctl(ep, EPOLL_CTL_ADD, n, EPOLLIN, 1)));
	out("%s: sendto seq 1 on the copy: %s", l, send_echo(d, LOOP, 1, 'A'));
	wait_in(d, WAIT_MS);
	out("%s: reply queued: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: pipe written: %s", l, rcs(write(p[1], "x", 1)));
	out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: recv the copy: %s; read the pipe: %s", l,
	    reply_str(recv_reply(d, 0)), rcs(read(n, &x, 1)));
	out("%s: wait 0 ms: %s", l, ep_wait(ep, 0, names));
	out("%s: sendto %s seq 2: %s", l, FORGE_SOFT,
	    send_echo(d, FORGE_SOFT, 2, 'A'));
	wait_in(d, WAIT_MS);
	out("%s: error queued: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: MSG_ERRQUEUE: %s", l, errqueue(d));
	out("%s: wait 0 ms: %s", l, ep_wait(ep, 0, names));
	close(n);
	close(p[1]);

	fd = move_to(ping_socket(SOCK_NONBLOCK), n);
	out("%s: the number another socket's, ADD it for EPOLLIN: %s", l,
	    fd == n ? rcs(ep_ctl(ep, EPOLL_CTL_ADD, n, EPOLLIN, 2)) : rcs(-1));
	out("%s: sendto seq 3 on it: %s", l, send_echo(n, LOOP, 3, 'B'));
	wait_in(n, WAIT_MS);
	out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: MOD it, EPOLLIN|EPOLLOUT: %s", l,
	    rcs(ep_ctl(ep, EPOLL_CTL_MOD, n, EPOLLIN | EPOLLOUT, 2)));
	out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: recv: %s", l, reply_str(recv_reply(n, 0)));
	out("%s: DEL it: %s", l, rcs(ep_ctl(ep, EPOLL_CTL_DEL, n, 0, 0)));
	out("%s: wait 0 ms: %s", l, ep_wait(ep, 0, names));
	close(n);

	out("%s: the copy back on the number: %d", l, dup2(d, n) == n);
	out("%s: MOD through the copy: %s", l,
	    rcs(ep_ctl(ep, EPOLL_CTL_MOD, d, EPOLLIN, 0)));
	out("%s: MOD through the number, EPOLLIN|EPOLLOUT: %s", l,
	    rcs(ep_ctl(ep, EPOLL_CTL_MOD, n, EPOLLIN | EPOLLOUT, 0)));
	out("%s: sendto seq 4: %s", l, send_echo(d, LOOP, 4, 'A'));
	wait_in(d, WAIT_MS);
	out("%s: wait: %s", l, ep_wait(ep, WAIT_MS, names));
	out("%s: recv: %s", l, reply_str(recv_reply(n, 0)));
	close(n);
	close(d);
	close(ep);
	sockets("epoll_reuse: none", 0);
}

/*
 * fork: parent and child each hold the set; either closing its copy
 * leaves the other's working.  (One side's epoll_ctl after the fork is
 * not seen by the other's shim: not tested, pingsock-preload(8).)
 */
static void scn_epoll_fork(void)
{
	const char *l = "epoll_fork";
	int fd, ep = ep_with_errors(&fd), go[2], st;
	pid_t pid;
	char c = 0;

	if (pipe(go) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		ep_error_round("epoll_fork: the child, the parent's copy closed",
			       ep, fd, 1);
		_exit(0);
	}
	close(go[0]);
	out("%s: the parent closes its copy: %s", l, rcs(close(ep)));
	(void)!write(go[1], &c, 1);
	close(go[1]);
	waitpid(pid, &st, 0);
	out("%s: the child exit %d", l, WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	ep = epoll_create1(EPOLL_CLOEXEC);
	ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN, 0);
	pid = fork();
	if (pid == 0)
		_exit(close(ep) == 0 ? 0 : 1);
	waitpid(pid, &st, 0);
	out("%s: a child closed its copy: exit %d", l,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ep_error_round("epoll_fork: the parent, the child's copy closed", ep,
		       fd, 2);
	close(ep);
	close(fd);
}

/*
 * What pingsock-preload(8) (LIMITS AND BUGS) says differs from the
 * kernel's socket for epoll copies.  Each such line is checked on its
 * own side, against the kernel's behaviour or against the documented
 * one, and printed the same on both when it is what it should be.
 */
static bool under_shim(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "libpingsock-preload");
}

static void differs(const char *l, const char *what, const char *got,
		    const char *want_kernel, const char *want_shim)
{
	const char *want = under_shim() ? want_shim : want_kernel;

	if (strcmp(got, want) == 0)
		out("%s: %s: as documented", l, what);
	else
		out("%s: %s: %s, not %s", l, what, got, want);
}

/* System calls a and b refused from now on (EPERM), as a seccomp filter
 * may refuse them. */
static bool deny_calls(unsigned a, unsigned b)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, b, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

static bool deny_kcmp(void)
{
	return deny_calls(SYS_kcmp, SYS_kcmp);
}

/* In a thread (its msghdr off the main thread's stack): a sendmsg() whose
 * iovec array is in a page unmapped after it, then one naming another
 * array.  The library once read the first array again, as its guess of
 * the second, directly where process_vm_readv() is refused: SIGSEGV
 * (review rev36 F1). */
static void *stale_guess_thread(void *arg)
{
	struct sockaddr_in a = sin_of(LOOP);
	uint8_t pkt[PKT];
	struct iovec v = { pkt, sizeof(pkt) };
	struct iovec *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct msghdr m = { .msg_name = &a, .msg_namelen = sizeof(a),
			    .msg_iovlen = 1 };
	int fd = *(int *)arg;

	if (page == MAP_FAILED)
		return NULL;
	echo_request(pkt, 1, 'A');
	page[0] = v;
	m.msg_iov = page;
	out("stale_guess: sendmsg, the array in a page: %s",
	    rcs(sendmsg(fd, &m, 0)));
	munmap(page, 4096);
	echo_request(pkt, 2, 'A');
	m.msg_iov = &v;
	out("stale_guess: sendmsg, the array on the stack: %s",
	    rcs(sendmsg(fd, &m, 0)));
	return NULL;
}

static void scn_stale_guess(void)
{
	int fd = ping_socket(0);
	pthread_t th;

	out("stale_guess: process_vm_readv, process_vm_writev refused: %s",
	    deny_calls(SYS_process_vm_readv, SYS_process_vm_writev) ? "yes"
									: "no");
	pthread_create(&th, NULL, stale_guess_thread, &fd);
	pthread_join(th, NULL);
	wait_in(fd, WAIT_MS);
	out("stale_guess: recv: %s", reply_str(recv_reply(fd, 0)));
	out("stale_guess: recv: %s", reply_str(recv_reply(fd, 0)));
	close(fd);
}

/* In a child without kcmp: a copy the shim made still works; one made
 * behind its back is not found once the set's known number is closed. */
static void no_kcmp_child(const char *l)
{
	int fd, ep = ep_with_errors(&fd), d, raw;

	if (!deny_kcmp())
		out("%s: seccomp: %s", l, errname(errno));
	d = dup(ep);
	close(ep);
	ep_error_round("epoll_limits: no kcmp, through a dup", d, fd, 3);
	raw = (int)syscall(SYS_dup, d);
	close(d);
	out("%s: no kcmp: sendto %s seq 4: %s", l, FORGE_SOFT,
	    send_echo(fd, FORGE_SOFT, 4, 'A'));
	differs(l, "no kcmp, through a copy by the system call",
		ep_wait(raw, WAIT_MS, ep_names), "n=1 A:EPOLLERR",
		"n=1 ?:EPOLLIN");
	errqueue(fd);
	close(raw);
	close(fd);
}

static void scn_epoll_limits(void)
{
	static const char *const names[] = { "A", "B" };
	const char *l = "epoll_limits";
	int a = ping_socket(SOCK_NONBLOCK), b = ping_socket(SOCK_NONBLOCK);
	int ep = epoll_create1(EPOLL_CLOEXEC), st;
	char args[2][16];
	pid_t pid;

	/* fork: an epoll_ctl in the child is not seen by the parent's shim */
	ep_ctl(ep, EPOLL_CTL_ADD, a, EPOLLIN, 0);
	pid = fork();
	if (pid == 0)
		_exit(ep_ctl(ep, EPOLL_CTL_ADD, b, EPOLLIN, 1) == 0 ? 0 : 1);
	waitpid(pid, &st, 0);
	out("%s: the child adds B to the set: exit %d", l,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	out("%s: sendto on B seq 1: %s", l, send_echo(b, LOOP, 1, 'B'));
	wait_in(b, WAIT_MS);
	differs(l, "the parent waits", ep_wait(ep, QUIET_MS, names),
		"n=1 B:EPOLLIN", "n=0");
	out("%s: recv B: %s", l, reply_str(recv_reply(b, 0)));
	close(ep);
	close(b);

	/* exec: the set and the socket kept, the program's data lost */
	ep = epoll_create1(0);
	ep_ctl(ep, EPOLL_CTL_ADD, a, EPOLLIN, 0x5eed);
	snprintf(args[0], sizeof(args[0]), "%d", ep);
	snprintf(args[1], sizeof(args[1]), "%d", a);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "shimprog", "epoll_exec_after", args[0],
		      args[1], (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	out("%s: the program run by exec: exit %d", l,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(ep);
	close(a);

	/* without kcmp */
	pid = fork();
	if (pid == 0) {
		no_kcmp_child(l);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	out("%s: the child without kcmp: exit %d", l,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* epoll_limits, after exec: the set and the socket it got. */
static void scn_epoll_exec_after(int argc, char **argv)
{
	const char *l = "epoll_limits";
	struct epoll_event ev[2];
	int ep, fd, n;

	if (argc < 4)
		exit(2);
	ep = atoi(argv[2]);
	fd = atoi(argv[3]);
	out("%s: after exec: sendto seq 2: %s", l, send_echo(fd, LOOP, 2, 'A'));
	wait_in(fd, WAIT_MS);
	n = epoll_wait(ep, ev, 2, WAIT_MS);
	differs(l, "after exec, the kept set's data",
		n != 1 ? rcs(n)
		: ev[0].data.u64 == 0x5eed ? "the program's"
		: ev[0].data.u64 >> 32 == 0x70734b54u ? "the shim's tag"
						       : "other",
		"the program's", "the shim's tag");
	out("%s: after exec: recv: %s", l, reply_str(recv_reply(fd, 0)));
}

/* ------------------------------------------------------------------ */

struct scenario {
	const char *name;
	void (*run)(void);
	void (*run_args)(int argc, char **argv);	/* internal ones */
};

static const struct scenario scenarios[] = {
	{ "poll", scn_poll, NULL },
	{ "ppoll", scn_ppoll, NULL },
	{ "select", scn_select, NULL },
	{ "pselect", scn_pselect, NULL },
	{ "select_big", scn_select_big, NULL },
	{ "pselect_big", scn_pselect_big, NULL },
	{ "epoll", scn_epoll, NULL },
	{ "epoll_et", scn_epoll_et, NULL },
	{ "epoll_oneshot", scn_epoll_oneshot, NULL },
	{ "epoll_pwait", scn_epoll_pwait, NULL },
	{ "errors_poll", scn_errors_poll, NULL },
	{ "errors_ppoll", scn_errors_ppoll, NULL },
	{ "errors_select", scn_errors_select, NULL },
	{ "errors_pselect", scn_errors_pselect, NULL },
	{ "errors_epoll", scn_errors_epoll, NULL },
	{ "errors_epoll_pwait", scn_errors_epoll_pwait, NULL },
	{ "fork", scn_fork, NULL },
	{ "fork_exit", scn_fork_exit, NULL },
	{ "dup", scn_dup, NULL },
	{ "mmsg", scn_mmsg, NULL },
	{ "mmsg_efault", scn_mmsg_efault, NULL },
	{ "mmsg_pending", scn_mmsg_pending, NULL },
	{ "stale_guess", scn_stale_guess, NULL },
	{ "nosock_efault", scn_nosock_efault, NULL },
	{ "epoll_efault", scn_epoll_efault, NULL },
	{ "signal_waits", scn_signal_waits, NULL },
	{ "poll_eintr", scn_poll_eintr, NULL },
	{ "close_range", scn_close_range, NULL },
	{ "closefrom", scn_closefrom, NULL },
	{ "close_range_unshare", scn_close_range_unshare, NULL },
	{ "vfork", scn_vfork, NULL },
	{ "exec", scn_exec, NULL },
	{ "threads", scn_threads, NULL },
	{ "stamp_reuse", scn_stamp_reuse, NULL },
	{ "stale", scn_stale, NULL },
	{ "shutdown_wakes", scn_shutdown_wakes, NULL },
	{ "sigmask_ppoll", scn_sigmask_ppoll, NULL },
	{ "sigmask_pselect", scn_sigmask_pselect, NULL },
	{ "sigmask_epoll_pwait", scn_sigmask_epoll_pwait, NULL },
	{ "sigmask_epoll_pwait2", scn_sigmask_epoll_pwait2, NULL },
	{ "epoll_dup", scn_epoll_dup, NULL },
	{ "epoll_reuse", scn_epoll_reuse, NULL },
	{ "epoll_fork", scn_epoll_fork, NULL },
	{ "epoll_limits", scn_epoll_limits, NULL },
	/* run by exec, not from the command line */
	{ "exec_after", NULL, scn_exec_after },
	{ "epoll_exec_after", NULL, scn_epoll_exec_after },
};

int main(int argc, char **argv)
{
	size_t n = sizeof(scenarios) / sizeof(scenarios[0]);

	if (argc >= 2 && strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < n; i++)
			if (scenarios[i].run)
				puts(scenarios[i].name);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	list_fds(start_fds, sizeof(start_fds));
	for (size_t i = 0; argc >= 2 && i < n; i++) {
		if (strcmp(argv[1], scenarios[i].name) != 0)
			continue;
		if (scenarios[i].run)
			scenarios[i].run();
		else
			scenarios[i].run_args(argc, argv);
		return 0;
	}
	fprintf(stderr, "usage: shimprog SCENARIO (shimprog list)\n");
	return 2;
}
