/*
 * loop - see loop.h.
 *
 * One thread, one poll(): the wait is bounded by the next send, the -w
 * deadline and the final wait after the last request, so no timers and
 * no SIGALRM are needed.  The signal handlers only set flags; poll()
 * returns EINTR (the handlers are installed without SA_RESTART) and the
 * loop looks at the flags at the top.
 *
 * Scheduling is iputils' with a preload of 1: the next request leaves
 * one interval after the previous one actually left, and after the last
 * one ping waits twice the longest RTT (at least an interval), or -W when
 * nothing has answered yet.
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
#include <time.h>

#include "ping/echo.h"
#include "ping/output.h"
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
	int64_t last_send;	/* when the last request left or failed */
	bool sent_any;
	int64_t deadline_at;	/* -w; NEVER without it */
	int64_t exit_at;	/* the wait after the last request; NEVER */
	int oom_count;		/* consecutive sends without buffer space */
};

static int64_t interval_ns(const struct ping_opts *o)
{
	return o->interval > 0 ? o->interval * NS_PER_MS : 0;
}

/* A failed send still counts as sent; the next try waits an interval. */
static int64_t sent(struct sched *s, struct ping_stats *st, int64_t now,
		    int64_t wait)
{
	stats_sent(st);
	s->last_send = now;
	s->sent_any = true;
	return wait;
}

/*
 * One request.  Returns the time to the next one.  The errno handling is
 * iputils 20221126's: no buffer space is retried for up to -W before it
 * counts as an error, a full socket buffer is retried at once, and any
 * other failure (a pending ICMP error, no route) counts the request as
 * sent and lost, without a message, as that release prints none.
 */
static int64_t send_one(struct rx *rx, struct sched *s, uint8_t *pkt,
			int64_t now)
{
	const struct ping_opts *o = rx->o;
	struct ping_stats *st = rx->st;
	int64_t iv = interval_ns(o);
	int64_t hard_wait = iv < SCHED_MIN ? SCHED_MIN : iv;
	uint16_t seq = stats_next_seq(st);
	struct timespec ts;
	size_t len;
	ssize_t n;

	stats_forget(st, seq);
	clock_gettime(CLOCK_REALTIME, &ts);
	len = echo_build(pkt, o->datalen, seq, st->timing ? &ts : NULL);
	n = pingsock_sendto(rx->fd, pkt, len, 0,
			    (const struct sockaddr *)&rx->t->dst,
			    sizeof(rx->t->dst));
	if (n == (ssize_t)len) {
		s->oom_count = 0;
		return sent(s, st, now, iv);
	}
	if (n >= 0)
		errno = EMSGSIZE;	/* a short send: not a ping socket */
	if (errno == ENOBUFS || errno == ENOMEM) {
		int64_t retry = hard_wait / 2 < 500 * NS_PER_MS ?
				hard_wait / 2 : 500 * NS_PER_MS;

		if (++s->oom_count * retry < o->linger * NS_PER_MS)
			return retry;
		if (!o->quiet)
			error(0, errno, "sendmsg");
		return sent(s, st, now, hard_wait);
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return SCHED_MIN;
	(void)rx_errqueue(rx, !exit_requested);
	return sent(s, st, now, hard_wait);
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

	if (exit_requested || all_sent(o, st))
		return NEVER;
	if (s->sent_any) {
		int64_t since = now - s->last_send;

		/* -i 0 (root only): as fast as replies come, but no faster
		 * than every 10 ms while one is outstanding. */
		if (o->interval <= 0 && since < SCHED_MIN &&
		    stats_in_flight(st) > 0)
			return SCHED_MIN - since;
		if (since < interval_ns(o))
			return interval_ns(o) - since;
	}
	if (o->outstanding && st->ntransmitted > 0 &&
	    !stats_seen(st, (uint16_t)st->ntransmitted)) {
		unsigned long last = st->ntransmitted % PING_SEQ_SPACE;

		out_outstanding(o->timestamps, last);
	}
	return send_one(rx, s, pkt, now);
}

/* iputils' __schedule_exit(): how long to wait after the last request. */
static int64_t final_wait(const struct ping_opts *o,
			  const struct ping_stats *st)
{
	long long us;

	if (!st->nreceived)
		return o->linger * NS_PER_MS;
	us = 2LL * st->tmax;
	if (us < 1000LL * o->interval)
		us = 1000LL * o->interval;
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
	long long elapsed_us = s->sent_any ? (s->last_send - s->start) / 1000
					   : 0;

	out_summary(rx->t->name, st, elapsed_us, o->interval <= 0);
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
		next = pinger(rx, &s, pkt, now);
		now = now_ns();
		if (all_sent(o, rx->st) && s.exit_at == NEVER)
			s.exit_at = now + final_wait(o, rx->st);
		receive(rx, min3(next, s.deadline_at - now, s.exit_at - now));
	}
	return finish(rx, &s);
}
