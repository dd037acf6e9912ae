/* SPDX-License-Identifier: ISC */
/*
 * pingbench - load generator for ping sockets (kernel or pingsockd).
 *
 *   pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] closed COUNT
 *   pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] closedmsg COUNT
 *   pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] window COUNT DEPTH
 *   pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] many SOCKETS PER WINDOW
 *   pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] threads THREADS COUNT
 *
 * closed  one socket, one echo at a time; client-side RTT percentiles.
 * closedmsg  the same with the calls iputils ping makes: sendmsg() with
 *         the address in msg_name, recvmsg() with a name and a control
 *         buffer, SO_TIMESTAMP on (a control message each reply).
 * window  one socket, DEPTH echoes kept in flight until COUNT were sent.
 * threads THREADS threads of one process, a socket each, each a closed
 *         loop; COUNT echoes in all.  The rate against closed's says
 *         whether the process's threads wait on each other.
 * many    SOCKETS sockets open at once, PER echoes each, sent round-robin
 *         with at most WINDOW in flight overall; epoll waits for replies.
 *
 * Every echo goes to 127.0.0.1 through libpingsock, so PINGSOCK_BACKEND
 * picks what is measured.  Results go to stdout, one key=value a line,
 * for bench/run to format; a fatal problem is an "error=" line and exit 1.
 *
 * Every loop is bounded twice: by its count and by DEADLINE_S (default
 * 25 s).  A request whose reply has not come TIMEOUT_MS (default 2000)
 * after it was sent is counted lost.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "pingsock.h"
#include "clock.h"

#define PAYLOAD_LEN 56		/* ping's default, so packets look usual */
#define PKT_LEN (8 + PAYLOAD_LEN)
#define SEQ_SPACE 65536u
#define MAX_EVENTS 256
#define FD_SLACK 32		/* stdio, epoll, control connection, ... */

/* Options shared by all loads. */
struct opts {
	int64_t timeout_ns;	/* a reply later than this is lost */
	int64_t deadline_ns;	/* hard stop for the whole load */
};

/* What every load reports. */
struct result {
	uint64_t sent, received, lost, late, stray, send_errors;
	int64_t elapsed_ns;	/* first send to last reply */
	bool aborted;		/* the deadline stopped it */
};

/* closedmsg: sendmsg() and recvmsg() in place of sendto() and recv(). */
static bool use_msg;

/* Random per run, in every payload: replies of another run are strays. */
static uint32_t run_tag;
static struct sockaddr_in dst = {
	.sin_family = AF_INET,
	.sin_addr.s_addr = 0x0100007f,	/* 127.0.0.1 in network order */
};

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("error=", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

/*
 * Each daemon socket costs this process one descriptor (plus the control
 * connection), so thousands of sockets need more than the usual soft 1024.
 */
static void raise_nofile(unsigned long need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			die("setrlimit: %s", strerror(errno));
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		die("RLIMIT_NOFILE hard limit %lu < %lu descriptors needed",
		    (unsigned long)rl.rlim_cur, need);
}

static int open_ping(int flags)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | flags,
				 IPPROTO_ICMP);

	if (fd < 0)
		die("socket: %s (%s)", strerror(errno), pingsock_why());
	return fd;
}

/* SO_RCVTIMEO bounds every blocking recv of the one-socket loads. */
static void set_rcvtimeo(int fd, int64_t ns)
{
	struct timeval tv = { .tv_sec = ns / 1000000000,
			      .tv_usec = ns % 1000000000 / 1000 };

	if (pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)) < 0)
		die("SO_RCVTIMEO: %s", strerror(errno));
}

/*
 * Send one Echo Request.  The identifier is left 0 and the checksum too:
 * a ping socket sets both.  Returns 0 or -errno.
 */
static int send_echo(int fd, uint16_t seq, uint32_t sock_index)
{
	uint8_t pkt[PKT_LEN];
	struct icmphdr *h = (struct icmphdr *)pkt;

	memset(pkt, 0, sizeof(pkt));
	h->type = ICMP_ECHO;
	h->un.echo.sequence = htons(seq);
	memcpy(pkt + 8, &run_tag, sizeof(run_tag));
	memcpy(pkt + 12, &sock_index, sizeof(sock_index));
	if (use_msg) {
		struct iovec iov = { .iov_base = pkt, .iov_len = sizeof(pkt) };
		struct msghdr m = { .msg_name = &dst,
				    .msg_namelen = sizeof(dst),
				    .msg_iov = &iov, .msg_iovlen = 1 };

		return pingsock_sendmsg(fd, &m, 0) == (ssize_t)sizeof(pkt)
			       ? 0 : -errno;
	}
	if (pingsock_sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst,
			    sizeof(dst)) != (ssize_t)sizeof(pkt))
		return -errno;
	return 0;
}

/* recvmsg() as iputils ping makes it: a name, a control buffer. */
static ssize_t recv_msg(int fd, void *buf, size_t len, int flags)
{
	char ctl[256];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
			    .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };

	return pingsock_recvmsg(fd, &m, flags);
}

/*
 * Read one datagram.  Returns 1 and the sequence number for one of our
 * Echo Replies, 0 for anything else (counted as a stray), -errno on
 * failure (EAGAIN: nothing there in time).
 */
static int recv_reply(int fd, int flags, uint16_t *seq, struct result *r)
{
	uint8_t pkt[PKT_LEN + 64];
	const struct icmphdr *h = (const struct icmphdr *)pkt;
	ssize_t n;

	do {
		n = use_msg ? recv_msg(fd, pkt, sizeof(pkt), flags)
			    : pingsock_recv(fd, pkt, sizeof(pkt), flags);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != PKT_LEN || h->type != ICMP_ECHOREPLY ||
	    memcmp(pkt + 8, &run_tag, sizeof(run_tag)) != 0) {
		r->stray++;
		return 0;
	}
	*seq = ntohs(h->un.echo.sequence);
	return 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted, non-empty array, in microseconds. */
static double pct_us(const int64_t *v, uint64_t n, unsigned pct)
{
	uint64_t i = (n * pct + 99) / 100;

	return (double)v[i > 0 ? i - 1 : 0] / 1000.0;
}

static void print_result(const char *load, const struct result *r)
{
	double s = (double)r->elapsed_ns / 1e9;

	printf("load=%s\n", load);
	printf("sent=%llu\nreceived=%llu\nlost=%llu\nlate=%llu\n",
	       (unsigned long long)r->sent, (unsigned long long)r->received,
	       (unsigned long long)r->lost, (unsigned long long)r->late);
	printf("stray=%llu\nsend_errors=%llu\naborted=%d\n",
	       (unsigned long long)r->stray,
	       (unsigned long long)r->send_errors, r->aborted ? 1 : 0);
	printf("elapsed_s=%.3f\nrate=%.0f\n", s,
	       s > 0 ? (double)r->received / s : 0.0);
}

/*
 * Wait (bounded by SO_RCVTIMEO) for the reply carrying seq; replies to
 * earlier, already given-up requests are skipped.  Returns true if it came.
 */
static bool await_seq(int fd, uint16_t want, int64_t give_up,
		      struct result *r)
{
	uint16_t seq;
	int rc;

	while (now_ns() < give_up) {
		rc = recv_reply(fd, 0, &seq, r);
		if (rc == -EAGAIN)
			return false;
		if (rc < 0)
			die("recv: %s", strerror(-rc));
		if (rc == 1 && seq == want)
			return true;
		if (rc == 1)
			r->late++;
	}
	return false;
}

/*
 * A short untimed run first, so that caches and the daemon's tables are
 * warm and the first echoes do not skew p99.  It ends at the first lost
 * reply or after a second: it must not eat the load's time budget.
 */
static void warm_up(int fd, unsigned n)
{
	struct result scratch = { 0 };
	int64_t stop = now_ns() + 1000000000;

	for (unsigned i = 0; i < n && now_ns() < stop; i++) {
		uint16_t seq = (uint16_t)(SEQ_SPACE - 1 - i);

		if (send_echo(fd, seq, 0) < 0 ||
		    !await_seq(fd, seq, stop, &scratch))
			break;
	}
}

static void load_closed(uint64_t count, const struct opts *o)
{
	int fd = open_ping(0);
	int64_t *rtt = calloc(count ? count : 1, sizeof(*rtt));
	struct result r = { 0 };
	int64_t start, stop, t0, t1;

	if (!rtt)
		die("out of memory");
	set_rcvtimeo(fd, o->timeout_ns);
	if (use_msg && pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP,
					   &(int){ 1 }, sizeof(int)) < 0)
		die("SO_TIMESTAMP: %s", strerror(errno));
	printf("backend=%s\n", backend_name(fd));
	warm_up(fd, count < 2000 ? (unsigned)(count / 10) : 200);
	start = now_ns();
	stop = start + o->deadline_ns;
	t1 = start;
	for (uint64_t i = 0; i < count; i++) {
		uint16_t seq = (uint16_t)(i % SEQ_SPACE);
		int rc;

		if (now_ns() >= stop) {
			r.aborted = true;
			break;
		}
		t0 = now_ns();
		rc = send_echo(fd, seq, 0);
		if (rc < 0) {
			r.send_errors++;
			continue;
		}
		r.sent++;
		if (!await_seq(fd, seq, t0 + o->timeout_ns, &r)) {
			r.lost++;
			continue;
		}
		t1 = now_ns();
		rtt[r.received++] = t1 - t0;
	}
	r.elapsed_ns = t1 - start;
	qsort(rtt, r.received, sizeof(*rtt), cmp_i64);
	print_result(use_msg ? "closedmsg" : "closed", &r);
	if (r.received)
		printf("p50_us=%.1f\np99_us=%.1f\nmin_us=%.1f\nmax_us=%.1f\n",
		       pct_us(rtt, r.received, 50),
		       pct_us(rtt, r.received, 99), (double)rtt[0] / 1000,
		       (double)rtt[r.received - 1] / 1000);
	else
		printf("p50_us=n/a\np99_us=n/a\nmin_us=n/a\nmax_us=n/a\n");
	free(rtt);
	pingsock_close(fd);
}

/*
 * Send the next request of the window load.  pending[] is indexed by
 * sequence number; with DEPTH far below 65536 a slot is free again long
 * before the sequence numbers wrap.
 */
static void window_send(int fd, uint8_t *pending, struct result *r)
{
	uint16_t seq = (uint16_t)((r->sent + r->send_errors) % SEQ_SPACE);
	int rc = send_echo(fd, seq, 0);

	if (rc < 0) {
		r->send_errors++;
		return;
	}
	pending[seq] = 1;
	r->sent++;
}

/* Top the window up to depth requests in flight (a failed send does not
 * shrink it for good: the next refill tries again with a new request). */
static void window_refill(int fd, uint8_t *pending, unsigned depth,
			  uint64_t count, struct result *r)
{
	while (r->sent + r->send_errors < count &&
	       r->sent - r->received < depth)
		window_send(fd, pending, r);
}

static void load_window(uint64_t count, unsigned depth, const struct opts *o)
{
	int fd = open_ping(0);
	uint8_t *pending = calloc(SEQ_SPACE, 1);
	struct result r = { 0 };
	int64_t start, stop, last;

	if (!pending)
		die("out of memory");
	if (depth == 0 || depth >= SEQ_SPACE / 2)
		die("window depth %u out of range", depth);
	/* One recv timeout covers the whole window: every reply in flight
	 * is older than the last one received. */
	set_rcvtimeo(fd, o->timeout_ns);
	printf("backend=%s\n", backend_name(fd));
	warm_up(fd, 200);
	start = last = now_ns();
	stop = start + o->deadline_ns;
	window_refill(fd, pending, depth, count, &r);
	while (r.received < r.sent) {
		uint16_t seq;
		int rc;

		if (now_ns() >= stop) {
			r.aborted = true;
			break;
		}
		rc = recv_reply(fd, 0, &seq, &r);
		if (rc == -EAGAIN)
			break;		/* the rest are lost */
		if (rc < 0)
			die("recv: %s", strerror(-rc));
		if (rc == 0)
			continue;
		if (!pending[seq]) {
			r.late++;
			continue;
		}
		pending[seq] = 0;
		r.received++;
		last = now_ns();
		window_refill(fd, pending, depth, count, &r);
	}
	r.lost = r.sent - r.received;
	r.elapsed_ns = last - start;
	print_result("window", &r);
	printf("depth=%u\n", depth);
	free(pending);
	pingsock_close(fd);
}

/* State of the many-sockets load.  Request k goes to socket k % nsock
 * with sequence number k / nsock, so consecutive sends hit different
 * sockets and (socket, seq) gives k back. */
enum { REQ_UNSENT, REQ_PENDING, REQ_DONE, REQ_LOST };

struct many {
	unsigned nsock, per, window;
	uint64_t total, next, head, inflight;
	int *fds;
	int ep;
	uint8_t *state;		/* enum above, per request */
	int64_t *sent_at;	/* per request */
	int64_t last_reply;
	struct result r;
};

static void many_open(struct many *m)
{
	struct epoll_event ev = { .events = EPOLLIN };

	m->ep = epoll_create1(EPOLL_CLOEXEC);
	if (m->ep < 0)
		die("epoll_create1: %s", strerror(errno));
	for (unsigned i = 0; i < m->nsock; i++) {
		m->fds[i] = open_ping(SOCK_NONBLOCK);
		ev.data.u32 = i;
		if (epoll_ctl(m->ep, EPOLL_CTL_ADD, m->fds[i], &ev) < 0)
			die("epoll_ctl: %s", strerror(errno));
	}
}

/* Fill the window.  EAGAIN/ENOBUFS mean "not now": try again after the
 * next wait; any other error costs that request. */
static void many_fill(struct many *m)
{
	while (m->inflight < m->window && m->next < m->total) {
		uint64_t k = m->next;
		unsigned s = (unsigned)(k % m->nsock);
		int rc = send_echo(m->fds[s], (uint16_t)(k / m->nsock), s);

		if (rc == -EAGAIN || rc == -ENOBUFS)
			return;
		m->next++;
		if (rc < 0) {
			m->r.send_errors++;
			m->state[k] = REQ_LOST;
			continue;
		}
		m->state[k] = REQ_PENDING;
		m->sent_at[k] = now_ns();
		m->r.sent++;
		m->inflight++;
	}
}

/* Take every queued reply off socket s. */
static void many_drain(struct many *m, unsigned s)
{
	uint16_t seq;
	int rc;

	while ((rc = recv_reply(m->fds[s], MSG_DONTWAIT, &seq, &m->r)) >= 0) {
		uint64_t k = (uint64_t)seq * m->nsock + s;

		if (rc == 0)
			continue;
		if (seq >= m->per || m->state[k] != REQ_PENDING) {
			m->r.late++;
			continue;
		}
		m->state[k] = REQ_DONE;
		m->r.received++;
		m->inflight--;
		m->last_reply = now_ns();
	}
	if (rc != -EAGAIN)
		die("recv on socket %u: %s", s, strerror(-rc));
}

/* Requests go out in order, so the oldest unanswered one is the first to
 * run out of time; give up on those, freeing their window slots. */
static void many_expire(struct many *m, int64_t now, int64_t timeout)
{
	while (m->head < m->next) {
		uint64_t k = m->head;

		if (m->state[k] == REQ_PENDING) {
			if (now - m->sent_at[k] < timeout)
				return;
			m->state[k] = REQ_LOST;
			m->r.lost++;
			m->inflight--;
		}
		m->head++;
	}
}

/* Milliseconds until the oldest pending request expires (at most 100,
 * so that a window blocked by EAGAIN is retried). */
static int many_wait_ms(const struct many *m, int64_t now, int64_t timeout)
{
	int64_t left = 100000000;

	if (m->head < m->next && m->state[m->head] == REQ_PENDING) {
		int64_t t = m->sent_at[m->head] + timeout - now;

		if (t < left)
			left = t;
	}
	return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

static void many_run(struct many *m, const struct opts *o)
{
	struct epoll_event ev[MAX_EVENTS];
	int64_t start = now_ns(), stop = start + o->deadline_ns;

	m->last_reply = start;
	for (;;) {
		int64_t now;
		int n;

		many_fill(m);
		if (m->next == m->total && m->inflight == 0)
			break;
		now = now_ns();
		if (now >= stop) {
			m->r.aborted = true;
			break;
		}
		n = epoll_wait(m->ep, ev, MAX_EVENTS,
			       many_wait_ms(m, now, o->timeout_ns));
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			many_drain(m, ev[i].data.u32);
		many_expire(m, now_ns(), o->timeout_ns);
	}
	/* Whatever is still pending at the deadline never came back. */
	m->r.lost += m->inflight;
	m->r.elapsed_ns = m->last_reply - start;
}

static void load_many(unsigned nsock, unsigned per, unsigned window,
		      const struct opts *o)
{
	struct many m = { .nsock = nsock, .per = per, .window = window };
	int64_t t0;

	if (nsock == 0 || per == 0 || per > SEQ_SPACE || window == 0)
		die("many: sockets, per-socket count and window must be > 0");
	m.total = (uint64_t)nsock * per;
	raise_nofile(nsock + FD_SLACK);
	m.fds = calloc(nsock, sizeof(*m.fds));
	m.state = calloc(m.total, 1);
	m.sent_at = calloc(m.total, sizeof(*m.sent_at));
	if (!m.fds || !m.state || !m.sent_at)
		die("out of memory");
	t0 = now_ns();
	many_open(&m);
	printf("backend=%s\nopen_s=%.3f\n", backend_name(m.fds[0]),
	       (double)(now_ns() - t0) / 1e9);
	many_run(&m, o);
	print_result("many", &m.r);
	printf("sockets=%u\nper_socket=%u\nwindow=%u\n", nsock, per, window);
	for (unsigned i = 0; i < nsock; i++)
		pingsock_close(m.fds[i]);
	close(m.ep);
	free(m.fds);
	free(m.state);
	free(m.sent_at);
}

/* ---- threads: a closed loop in each of THREADS threads ---- */

struct thread_load {
	pthread_t tid;
	uint64_t count;
	const struct opts *o;
	pthread_barrier_t *go;	/* every socket open and warm: start */
	const char *backend;
	int64_t start, end;	/* first send, last reply */
	struct result r;
};

static void *thread_closed(void *arg)
{
	struct thread_load *t = arg;
	int fd = open_ping(0);
	int64_t stop, t0;

	set_rcvtimeo(fd, t->o->timeout_ns);
	t->backend = backend_name(fd);
	warm_up(fd, 50);
	pthread_barrier_wait(t->go);
	t->start = now_ns();
	t->end = t->start;
	stop = t->start + t->o->deadline_ns;
	for (uint64_t i = 0; i < t->count; i++) {
		uint16_t seq = (uint16_t)(i % SEQ_SPACE);

		if (now_ns() >= stop) {
			t->r.aborted = true;
			break;
		}
		t0 = now_ns();
		if (send_echo(fd, seq, 0) < 0) {
			t->r.send_errors++;
			continue;
		}
		t->r.sent++;
		if (!await_seq(fd, seq, t0 + t->o->timeout_ns, &t->r)) {
			t->r.lost++;
			continue;
		}
		t->r.received++;
		t->end = now_ns();
	}
	pingsock_close(fd);
	return NULL;
}

static void add_result(struct result *sum, const struct result *r)
{
	sum->sent += r->sent;
	sum->received += r->received;
	sum->lost += r->lost;
	sum->late += r->late;
	sum->stray += r->stray;
	sum->send_errors += r->send_errors;
	sum->aborted |= r->aborted;
}

static void load_threads(unsigned n, uint64_t count, const struct opts *o)
{
	struct thread_load *t = calloc(n ? n : 1, sizeof(*t));
	pthread_barrier_t go;
	struct result r = { 0 };
	int64_t start = INT64_MAX, end = INT64_MIN;

	if (!t || n == 0)
		die("threads: %s", n ? "out of memory" : "no threads");
	if (pthread_barrier_init(&go, NULL, n))
		die("threads: barrier");
	for (unsigned i = 0; i < n; i++) {
		t[i].count = count / n + (i < count % n);
		t[i].o = o;
		t[i].go = &go;
		if (pthread_create(&t[i].tid, NULL, thread_closed, &t[i]))
			die("threads: pthread_create failed");
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		add_result(&r, &t[i].r);
		start = t[i].start < start ? t[i].start : start;
		end = t[i].end > end ? t[i].end : end;
	}
	r.elapsed_ns = end - start;
	printf("backend=%s\nthreads=%u\n", t[0].backend, n);
	print_result("threads", &r);
	pthread_barrier_destroy(&go);
	free(t);
}

static unsigned long num_arg(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 100000000ul)
		die("bad %s: %s", what, s);
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] closed COUNT\n"
		"       pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] closedmsg COUNT\n"
		"       pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] window COUNT DEPTH\n"
		"       pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] many SOCKETS PER WINDOW\n"
		"       pingbench [-t TIMEOUT_MS] [-d DEADLINE_S] threads THREADS COUNT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .timeout_ns = 2000000000LL,
			  .deadline_ns = 25000000000LL };
	const char *load;
	int c;

	while ((c = getopt(argc, argv, "t:d:")) != -1) {
		if (c == 't')
			o.timeout_ns = (int64_t)num_arg(optarg, "timeout") *
				       1000000;
		else if (c == 'd')
			o.deadline_ns = (int64_t)num_arg(optarg, "deadline") *
					1000000000;
		else
			usage();
	}
	if (optind >= argc)
		usage();
	load = argv[optind];
	argc -= optind + 1;
	argv += optind + 1;
	/* The payload tag only has to differ between concurrent runs. */
	run_tag = (uint32_t)getpid() ^ (uint32_t)now_ns();
	raise_nofile(FD_SLACK);
	use_msg = strcmp(load, "closedmsg") == 0;
	if ((strcmp(load, "closed") == 0 || use_msg) && argc == 1)
		load_closed(num_arg(argv[0], "count"), &o);
	else if (strcmp(load, "window") == 0 && argc == 2)
		load_window(num_arg(argv[0], "count"),
			    (unsigned)num_arg(argv[1], "depth"), &o);
	else if (strcmp(load, "many") == 0 && argc == 3)
		load_many((unsigned)num_arg(argv[0], "sockets"),
			  (unsigned)num_arg(argv[1], "per-socket count"),
			  (unsigned)num_arg(argv[2], "window"), &o);
	else if (strcmp(load, "threads") == 0 && argc == 2)
		load_threads((unsigned)num_arg(argv[0], "threads"),
			     num_arg(argv[1], "count"), &o);
	else
		usage();
	return 0;
}
