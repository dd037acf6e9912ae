/* SPDX-License-Identifier: ISC */
/*
 * loop - see loop.h.
 *
 * One thread, one poll(): the wait is bounded by the next send, the -w
 * deadline and the final wait after the last request, so no timers and
 * no SIGALRM are needed.  The signal handlers only set flags; poll()
 * returns EINTR (the handlers are installed without SA_RESTART) and the
 * loop looks at the flags at the top.
 *
 * Scheduling is iputils' token bucket: a request may leave once an
 * interval's worth of time has gathered since the last one, and -l
 * starts the bucket with preload - 1 intervals of credit, so that many
 * leave at once (and the bucket never holds more than preload).  After
 * the last one ping waits twice the longest RTT (at least an interval),
 * or -W when nothing has answered yet.
 */
#include "ping/loop.h"

#include <errno.h>
#include <error.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ping/echo.h"
#include "ping/errq.h"
#include "ping/output.h"
#include "ping/probe.h"
#include "pingsock.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
#define SCHED_MIN (PING_SCHED_MIN * NS_PER_MS)
#define NEVER INT64_MAX

/* Set by the handlers, read by the loop: the only state they share. */
static volatile sig_atomic_t exit_requested;
static volatile sig_atomic_t status_requested;

static void on_exit_signal(int sig)
{
	(void)sig;
	exit_requested = 1;
}

static void on_status_signal(int sig)
{
	(void)sig;
	status_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_exit_signal;
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_status_signal;
	sigaction(SIGQUIT, &sa, NULL);
	/* A parent may have left them blocked (iputils unblocks too). */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

struct sched {
	int64_t start;
	bool started;		/* a request was let through */
	int64_t cur_time;	/* when the last one was (iputils' cur_time) */
	int64_t tokens;		/* ns of credit beyond that request */
	int64_t deadline_at;	/* -w; NEVER without it */
	int64_t exit_at;	/* the wait after the last request; NEVER */
	int oom_count;		/* consecutive sends without buffer space */
};

/* The interval now: -i's, or what -A made of it. */
static int64_t interval_ns(const struct rx *rx)
{
	return rx->interval > 0 ? rx->interval * NS_PER_MS : 0;
}

/* iputils' SCHINT(): no wait shorter than MININTERVAL. */
static int64_t schint(int64_t ns)
{
	return ns < SCHED_MIN ? SCHED_MIN : ns;
}

/*
 * The token bucket: 0 when a request may leave now (and it is charged),
 * else the time until one may.  -i 0 (root only) has no bucket, but no
 * more than preload requests in flight within 10 ms.
 */
static int64_t tokens_wait(struct rx *rx, struct sched *s, int64_t now)
{
	int64_t iv = interval_ns(rx), have, cap;

	if (!s->started) {
		s->started = true;
		s->cur_time = now;
		s->tokens = iv * (rx->o->preload - 1);
		return 0;
	}
	have = now - s->cur_time;
	if (iv == 0 && have < SCHED_MIN &&
	    stats_in_flight(rx->st) >= rx->o->preload)
		return SCHED_MIN - have;
	have += s->tokens;
	cap = iv * rx->o->preload;
	if (have > cap)
		have = cap;
	if (have < iv)
		return iv - have;
	s->cur_time = now;
	s->tokens = have - iv;
	return 0;
}

/* -f: a dot per request, unless a terminal would fill with them. */
static void flood_dot(const struct rx *rx)
{
	static int width = -1;
	const struct ping_stats *st = rx->st;

	if (width < 0) {
		struct winsize w;

		width = INT_MAX;
		if (isatty(STDOUT_FILENO) &&
		    ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0)
			width = w.ws_col;
	}
	if ((rx->o->preload < width && st->pipesize < width) ||
	    stats_in_flight(st) < width)
		out_flood(".");
}

/*
 * A request failed hard: it counts as sent and lost; say so (with the
 * send's errno) only when report is set, as iputils.  The bucket is
 * emptied and the next try waits an interval.
 */
static int64_t hard_error(struct rx *rx, struct sched *s, bool report,
			  int err)
{
	stats_sent(rx->st);
	if (report && !rx->o->quiet) {
		if (rx->o->flood)
			out_flood("E");
		else
			error(0, err, "sendmsg");
	}
	s->tokens = 0;
	return schint(interval_ns(rx));
}

/*
 * No buffer space: retried for up to -W (every half interval, at most
 * 500 ms apart) before it counts as an error.  -A slows down for it:
 * the smoothed RTT more each time (st->rtt holds eight times it), at
 * most 50 ms.
 */
static int64_t out_of_buffers(struct rx *rx, struct sched *s, int err)
{
	int64_t retry;

	rx->rtt_addend += rx->st->rtt < 8 * 50000 ? rx->st->rtt / 8 : 50000;
	if (rx->o->adaptive)
		rx_adapt(rx);
	retry = schint(interval_ns(rx) / 2);

	if (retry > 500 * NS_PER_MS)
		retry = 500 * NS_PER_MS;
	s->tokens = 0;
	if (++s->oom_count * retry < rx->o->linger * NS_PER_MS)
		return retry;
	return hard_error(rx, s, true, err);
}

static ssize_t send_request(struct rx *rx, uint8_t *pkt, size_t *len)
{
	const struct ping_opts *o = rx->o;
	struct ping_stats *st = rx->st;
	uint16_t seq = stats_next_seq(st);
	struct timespec ts;
	ssize_t n;

	stats_forget(st, seq);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (o->probe.ctype != PROBE_NONE) {
		/* 8 bits of sequence on the wire, wrapping at 256. */
		*len = probe_build(pkt, rx->t->family == AF_INET6, &o->probe,
				   (uint8_t)seq);
		probe_mark_sent((uint8_t)seq, &ts);
	} else {
		*len = echo_build(pkt, rx->t->family == AF_INET6, o->datalen,
				  seq, st->timing ? &ts : NULL);
	}
	n = pingsock_sendto(rx->fd, pkt, *len, 0, &rx->t->dst.sa,
			    rx->t->salen);
	if (n >= 0 && n != (ssize_t)*len) {
		errno = EMSGSIZE;	/* a short send: not a ping socket */
		n = -1;
	}
	return n;
}

/*
 * One request.  Returns the time to the next one (<= 0: send again at
 * once).  The errno handling is iputils 20221126's: no buffer space is
 * retried, a full socket buffer is retried soon, and any other failure
 * looks at the error queue: an ICMP error there is reported, then the
 * send's errno ("sendmsg: ..."); a record for another socket means try
 * again; an empty queue or a local error counts the request as lost
 * without a message (that release prints none for, e.g., no route).
 */
static int64_t send_one(struct rx *rx, struct sched *s, uint8_t *pkt)
{
	int tries = 0;

	for (;;) {
		size_t len;
		int err, r;

		if (send_request(rx, pkt, &len) >= 0) {
			s->oom_count = 0;
			stats_sent(rx->st);
			if (rx->o->flood && !rx->o->quiet)
				flood_dot(rx);
			return interval_ns(rx) - s->tokens;
		}
		err = errno;
		if (err == ENOBUFS || err == ENOMEM)
			return out_of_buffers(rx, s, err);
		if (err == EAGAIN || err == EWOULDBLOCK) {
			s->tokens += interval_ns(rx);
			return SCHED_MIN;
		}
		r = rx_errqueue(rx, !exit_requested);
		/* errno 0: the record was not ours; iputils sends again (a
		 * bound keeps a stream of strangers' errors from looping). */
		if (r == 0 && errno == 0 && ++tries < 16)
			continue;
		return hard_error(rx, s, r >= 0, err);
	}
}

static bool all_sent(const struct ping_opts *o, const struct ping_stats *st)
{
	/* With -w, -c counts replies: requests go on until enough came. */
	return o->count && st->ntransmitted >= o->count && !o->deadline;
}

/* The time to the next request, sending it when due. */
static int64_t pinger(struct rx *rx, struct sched *s, uint8_t *pkt,
		      int64_t now)
{
	const struct ping_opts *o = rx->o;
	struct ping_stats *st = rx->st;
	int64_t wait;

	if (exit_requested || all_sent(o, st))
		return NEVER;
	wait = tokens_wait(rx, s, now);
	if (wait > 0)
		return wait;
	if (o->outstanding && st->ntransmitted > 0 &&
	    !stats_seen(st, (uint16_t)st->ntransmitted)) {
		unsigned long last = st->ntransmitted %
				     (o->probe.ctype != PROBE_NONE
					      ? 256 : PING_SEQ_SPACE);

		out_outstanding(o->timestamps, last);
	}
	return send_one(rx, s, pkt);
}

/* Every request due now (a preload leaves back to back, as iputils'
 * do-while around pinger()); returns the time to the next. */
static int64_t send_due(struct rx *rx, struct sched *s, uint8_t *pkt)
{
	int64_t next;

	while ((next = pinger(rx, s, pkt, now_ns())) <= 0)
		;
	return next;
}

/* iputils' __schedule_exit(): how long to wait after the last request. */
static int64_t final_wait(const struct rx *rx)
{
	const struct ping_stats *st = rx->st;
	long long us;

	if (!st->nreceived)
		return rx->o->linger * NS_PER_MS;
	us = 2LL * st->tmax;
	if (us < 1000LL * rx->interval)
		us = 1000LL * rx->interval;
	return us * 1000;
}

static bool finished(const struct ping_opts *o, const struct ping_stats *st,
		     const struct sched *s, int64_t now)
{
	if (exit_requested)
		return true;
	if (o->count && st->nreceived + st->nerrors >= o->count)
		return true;
	if (o->deadline && st->nerrors)
		return true;
	return now >= s->deadline_at || now >= s->exit_at;
}

static int poll_ms(int64_t wait)
{
	if (wait <= 0)
		return 0;
	if (wait >= (int64_t)INT_MAX * NS_PER_MS)
		return INT_MAX;
	return (int)((wait + NS_PER_MS - 1) / NS_PER_MS);	/* round up */
}

static int64_t min3(int64_t a, int64_t b, int64_t c)
{
	int64_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Wait for the socket up to wait ns, then read all that is there. */
static void receive(struct rx *rx, int64_t wait)
{
	struct pollfd p = { .fd = rx->fd, .events = POLLIN };
	bool pending_err;
	int n = pingsock_poll(&p, 1, poll_ms(wait));

	if (n < 0 && errno != EINTR)
		error(0, errno, "poll");
	if (n <= 0 || !(p.revents & (POLLIN | POLLERR)))
		return;
	pending_err = p.revents & POLLERR;
	/* Stop once nothing is outstanding: the next request is due. */
	while (rx_one(rx, MSG_DONTWAIT, &pending_err, !exit_requested) &&
	       stats_in_flight(rx->st) > 0)
		;
}

static int finish(const struct rx *rx, const struct sched *s)
{
	const struct ping_opts *o = rx->o;
	const struct ping_stats *st = rx->st;
	long long elapsed_us = s->started ? (s->cur_time - s->start) / 1000
					  : 0;

	out_summary(rx->t->name, st, elapsed_us,
		    rx->interval <= 0 || o->flood || o->adaptive);
	if (!st->nreceived || (o->deadline && st->nreceived < o->count))
		return 1;
	return 0;
}

int loop_run(struct rx *rx, uint8_t *pkt)
{
	const struct ping_opts *o = rx->o;
	struct sched s = { .deadline_at = NEVER, .exit_at = NEVER };

	install_signals();
	s.start = now_ns();
	if (o->deadline)
		s.deadline_at = s.start + o->deadline * NS_PER_S;
	for (;;) {
		int64_t now = now_ns(), next;

		if (finished(o, rx->st, &s, now))
			break;
		if (status_requested) {
			status_requested = 0;
			out_status(rx->st);
		}
		next = send_due(rx, &s, pkt);
		now = now_ns();
		if (all_sent(o, rx->st) && s.exit_at == NEVER)
			s.exit_at = now + final_wait(rx);
		receive(rx, min3(next, s.deadline_at - now, s.exit_at - now));
	}
	return finish(rx, &s);
}
