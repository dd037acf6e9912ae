/* SPDX-License-Identifier: ISC */
#include "daemon/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

/*
 * Spinning (looking again without sleeping) saves a wake-up's latency,
 * tens of microseconds here, but burns the processor while it lasts, so
 * the loop spins (for up to LOOP_SPIN_NS) only while events come close
 * together: while the idle gaps (from finding nothing to finding events,
 * a wake-up included) average under LOOP_SPIN_NS, each new one weighing
 * 1/LOOP_GAP_WEIGHT.  A client in a tight loop keeps it spinning;
 * ordinary load (pings every 200 ms, a few thousand of them: gaps of
 * about 100 us, some short by chance) lets it sleep at once.  (One short
 * gap was the rule once: the 2,000 pings' load spun after four in ten
 * events, for 6 % of the daemon's processor time.)
 */
#define LOOP_SPIN_NS 50000
#define LOOP_GAP_WEIGHT 8
#define LOOP_EVENTS 64
/* What one group may have served in one turn of the loop: enough to
 * batch a busy user's requests, few enough that a user waits behind at
 * most this many of each other user's. */
#define LOOP_GROUP_QUANTUM 16
/* And about the time it may take: requests differ in cost fifty times
 * over (a send, with the kernel's echo and the reply's delivery, against
 * a getsockopt; a setsockopt writes the socket's state into each arena
 * that maps it, thousands if its user made them), so a count alone let
 * one user's turn run for milliseconds (a socket in 4,000 arenas and
 * setsockopt() calls held another user's ping back 2.8-5.4 ms).  A turn
 * serves the group's ready members until this much time has gone, the
 * first whatever it costs.  (A forecast from the members' recent cost
 * was no bound: a user whose last requests were cheap had a quantum of
 * dear ones served next, 1 ms in one turn.)  Members taken from the
 * group's epoll and not served wait in the group and go first next
 * turn: given back, they would go to the back of epoll's ready list,
 * behind later ones, and requests that must come in order (the proofs
 * of processes attaching one socket) were served out of it. */
#define LOOP_GROUP_BUDGET_NS 200000
/* The timers' share of a turn (fire_due()). */
#define LOOP_TIMERS_BUDGET_NS 200000

struct loop {
	int ep;
	struct loop_timer **heap;	/* heap[1..n], earliest first */
	size_t n, cap;
	uint64_t idle_since;	/* 0: events found on the last look */
	uint64_t gap_avg;	/* the idle gaps' moving average */
	bool spin;		/* it is under LOOP_SPIN_NS */
	uint64_t turns;		/* loop_turn() calls, ever */
};

uint64_t loop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	close(l->ep);
	free(l->heap);
	free(l);
}

static int ctl(struct loop *l, int op, int fd, uint32_t events,
	       struct loop_handler *h)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	return epoll_ctl(l->ep, op, fd, &ev);
}

int loop_watch(struct loop *l, int fd, uint32_t events,
	       struct loop_handler *h)
{
	return ctl(l, EPOLL_CTL_ADD, fd, events, h);
}

int loop_change(struct loop *l, int fd, uint32_t events,
		struct loop_handler *h)
{
	return ctl(l, EPOLL_CTL_MOD, fd, events, h);
}

void loop_forget(struct loop *l, int fd)
{
	epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
}

/* ---- groups: a nested epoll set, served a quantum a turn ---- */

/*
 * A group of one descriptor is watched in the loop's own epoll: it is
 * served one event a turn like any other, and a nested epoll would cost
 * a system call a turn for nothing.  The second member makes the group's
 * own epoll, and the first moves there with what it was watched for.
 */
struct loop_group {
	struct loop *l;
	struct loop_handler h;	/* in l: this group's epoll is readable */
	int ep;			/* -1 while solo */
	size_t n;		/* members */
	int solo_fd;		/* while solo: the member, as watched in l */
	uint32_t solo_events;
	struct loop_handler *solo_h;
	bool busy;		/* on_group() is serving it */
	bool dead;		/* freed meanwhile: on_group() frees it */
	/* Taken from ep, not yet served: pend[next..npend), in epoll's
	 * order; a member forgotten or changed meanwhile has its entry's
	 * handler cleared (its events are stale, its handler may be
	 * gone). */
	struct epoll_event pend[LOOP_GROUP_QUANTUM];
	int npend, next;
};

static void group_release(struct loop_group *g)
{
	if (g->ep >= 0) {
		loop_forget(g->l, g->ep);
		close(g->ep);
	}
	free(g);
}

/*
 * Some descriptors of the group are ready: serve those taken before and
 * not yet served, or else take at most a quantum of them, and serve them
 * for about LOOP_GROUP_BUDGET_NS.  The rest stay ready (level-triggered),
 * and the group's epoll stays readable in the loop's, behind the other
 * groups and descriptors ready now.  A handler may free the group: it
 * goes when the turn is done.
 */
static void on_group(void *data, uint32_t events)
{
	struct loop_group *g = data;
	uint64_t t0 = loop_now_ns();

	(void)events;
	/* Entries cleared since: skipped before the look, so that a turn
	 * whose leftovers all went takes what is ready now. */
	while (g->next < g->npend && !g->pend[g->next].data.ptr)
		g->next++;
	if (g->next >= g->npend) {
		int n = epoll_wait(g->ep, g->pend, LOOP_GROUP_QUANTUM, 0);

		g->npend = n > 0 ? n : 0;
		g->next = 0;
	}
	g->busy = true;
	while (g->next < g->npend) {
		const struct epoll_event *e = &g->pend[g->next++];
		struct loop_handler *h = e->data.ptr;

		if (!h)
			continue;
		h->proc(h->data, e->events);
		if (loop_now_ns() - t0 >= LOOP_GROUP_BUDGET_NS)
			break;
	}
	g->busy = false;
	if (g->dead)
		group_release(g);
}

/* h's events taken and not served are stale now (or h is going). */
static void unpend(struct loop_group *g, const struct loop_handler *h)
{
	for (int i = g->next; i < g->npend; i++)
		if (g->pend[i].data.ptr == h)
			g->pend[i].data.ptr = NULL;
}

struct loop_group *loop_group_new(struct loop *l)
{
	struct loop_group *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->l = l;
	g->h.proc = on_group;
	g->h.data = g;
	g->ep = -1;
	return g;
}

void loop_group_free(struct loop_group *g)
{
	if (g && g->busy)
		g->dead = true;
	else if (g)
		group_release(g);
}

static int group_ctl(struct loop_group *g, int op, int fd, uint32_t events,
		     struct loop_handler *h)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	return epoll_ctl(g->ep, op, fd, &ev);
}

/* The second member: the group's own epoll, and the first one in it. */
static int group_split(struct loop_group *g)
{
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	if (g->ep < 0)
		return -1;
	if (group_ctl(g, EPOLL_CTL_ADD, g->solo_fd, g->solo_events,
		      g->solo_h) == 0 &&
	    loop_watch(g->l, g->ep, EPOLLIN, &g->h) == 0) {
		loop_forget(g->l, g->solo_fd);
		return 0;
	}
	close(g->ep);
	g->ep = -1;
	return -1;
}

int loop_group_watch(struct loop_group *g, int fd, uint32_t events,
		     struct loop_handler *h)
{
	if (g->ep < 0 && g->n == 0) {
		if (loop_watch(g->l, fd, events, h))
			return -1;
		g->solo_fd = fd;
		g->solo_events = events;
		g->solo_h = h;
	} else if ((g->ep < 0 && group_split(g)) ||
		   group_ctl(g, EPOLL_CTL_ADD, fd, events, h)) {
		return -1;
	}
	g->n++;
	return 0;
}

int loop_group_change(struct loop_group *g, int fd, uint32_t events,
		      struct loop_handler *h)
{
	if (g->ep >= 0) {
		unpend(g, h);
		return group_ctl(g, EPOLL_CTL_MOD, fd, events, h);
	}
	g->solo_events = events;
	return loop_change(g->l, fd, events, h);
}

void loop_group_forget(struct loop_group *g, int fd,
		       const struct loop_handler *h)
{
	if (g->ep >= 0) {
		unpend(g, h);
		epoll_ctl(g->ep, EPOLL_CTL_DEL, fd, NULL);
	} else
		loop_forget(g->l, fd);
	g->n -= g->n ? 1 : 0;
}

/* ---- the timer heap ---- */

static void place(struct loop *l, size_t i, struct loop_timer *t)
{
	l->heap[i] = t;
	t->at = i;
}

static void up(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];

	while (i > 1 && l->heap[i / 2]->due > t->due) {
		place(l, i, l->heap[i / 2]);
		i /= 2;
	}
	place(l, i, t);
}

static void down(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];

	for (;;) {
		size_t c = 2 * i;

		if (c > l->n)
			break;
		if (c < l->n && l->heap[c + 1]->due < l->heap[c]->due)
			c++;
		if (l->heap[c]->due >= t->due)
			break;
		place(l, i, l->heap[c]);
		i = c;
	}
	place(l, i, t);
}

bool loop_pending(const struct loop_timer *t)
{
	return t->at != 0;
}

void loop_cancel(struct loop *l, struct loop_timer *t)
{
	size_t i = t->at;
	struct loop_timer *last;

	if (!i)
		return;
	t->at = 0;
	last = l->heap[l->n--];
	if (last == t)
		return;
	/* The last one takes its place, and goes up or down from there. */
	place(l, i, last);
	up(l, i);
	down(l, last->at);
}

int loop_at(struct loop *l, struct loop_timer *t, uint64_t due)
{
	loop_cancel(l, t);
	if (l->n + 1 >= l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		struct loop_timer **h =
			realloc(l->heap, nc * sizeof(struct loop_timer *));

		if (!h)
			return -1;
		l->heap = h;
		l->cap = nc;
	}
	t->due = due;
	place(l, ++l->n, t);
	up(l, l->n);
	return 0;
}

/*
 * The timers due, for about LOOP_TIMERS_BUDGET_NS; those left are still
 * due, and the next turn (which does not sleep: wait_ms()) fires them
 * after the events ready by then.  Timers come due together by the
 * thousand (one user's 4,096 waiting sends with min_interval: each
 * readies its connection, 10 ms in all), and other users' requests
 * were held back behind them all.
 */
static void fire_due(struct loop *l)
{
	uint64_t now = loop_now_ns();

	while (l->n && l->heap[1]->due <= now) {
		struct loop_timer *t = l->heap[1];

		loop_cancel(l, t);
		t->proc(t->data);
		if (loop_now_ns() - now >= LOOP_TIMERS_BUDGET_NS)
			break;
	}
}

/* Milliseconds until the first timer (0 if due), at most max. */
static int wait_ms(const struct loop *l, int max)
{
	uint64_t now = loop_now_ns(), ms;

	if (!l->n)
		return max;
	if (l->heap[1]->due <= now)
		return 0;
	ms = (l->heap[1]->due - now) / 1000000u + 1;
	return ms < (uint64_t)max ? (int)ms : max;
}

/* Nothing ready now: look again (spin) or sleep.  Events, or 0 to come
 * back for another look. */
static int wait_idle(struct loop *l, struct epoll_event *evs, int max_ms)
{
	uint64_t now = loop_now_ns();

	if (!l->idle_since)
		l->idle_since = now;
	if (l->spin && now - l->idle_since < LOOP_SPIN_NS)
		return 0;
	return epoll_wait(l->ep, evs, LOOP_EVENTS, wait_ms(l, max_ms));
}

static void note_gap(struct loop *l, uint64_t gap)
{
	l->gap_avg = l->gap_avg - l->gap_avg / LOOP_GAP_WEIGHT +
		     gap / LOOP_GAP_WEIGHT;
	l->spin = l->gap_avg < LOOP_SPIN_NS;
}

uint64_t loop_turns(const struct loop *l)
{
	return l->turns;
}

int loop_turn(struct loop *l, int max_ms)
{
	struct epoll_event evs[LOOP_EVENTS];
	int n = epoll_wait(l->ep, evs, LOOP_EVENTS, 0);

	l->turns++;
	if (n == 0)
		n = wait_idle(l, evs, max_ms);
	if (n > 0 && l->idle_since) {
		note_gap(l, loop_now_ns() - l->idle_since);
		l->idle_since = 0;
	}
	if (n < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < n; i++) {
		struct loop_handler *h = evs[i].data.ptr;

		h->proc(h->data, evs[i].events);
	}
	fire_due(l);
	return 0;
}
