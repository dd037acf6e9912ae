#include "daemon/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define LOOP_SPIN_NS 50000
#define LOOP_EVENTS 64

struct loop {
	int ep;
	struct loop_timer **heap;	/* heap[1..n], earliest first */
	size_t n, cap;
	uint64_t spin_until;
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

static void fire_due(struct loop *l)
{
	uint64_t now = loop_now_ns();

	while (l->n && l->heap[1]->due <= now) {
		struct loop_timer *t = l->heap[1];

		loop_cancel(l, t);
		t->proc(t->data);
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

int loop_turn(struct loop *l, int max_ms)
{
	struct epoll_event evs[LOOP_EVENTS];
	int n = epoll_wait(l->ep, evs, LOOP_EVENTS, 0);

	if (n == 0 && !l->spin_until)
		l->spin_until = loop_now_ns() + LOOP_SPIN_NS;
	if (n == 0 && loop_now_ns() < l->spin_until)
		return 0;
	if (n == 0)
		n = epoll_wait(l->ep, evs, LOOP_EVENTS, wait_ms(l, max_ms));
	l->spin_until = 0;
	if (n < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < n; i++) {
		struct loop_handler *h = evs[i].data.ptr;

		h->proc(h->data, evs[i].events);
	}
	fire_due(l);
	return 0;
}
