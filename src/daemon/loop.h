/* SPDX-License-Identifier: ISC */
/*
 * loop - the daemon's event loop: descriptors watched with epoll, each
 * with a handler (a procedure and its data, as Redis's ae has them), and
 * timers in a heap.  It never blocks on anything but epoll_wait(), and
 * not even there while events keep coming: a busy client sends its next
 * request within microseconds, and a wake-up costs more than a short
 * look again (LOOP_SPIN_NS).
 */
#ifndef PSD_LOOP_H
#define PSD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a watched descriptor calls: events are EPOLLIN, EPOLLHUP, ... */
struct loop_handler {
	void (*proc)(void *data, uint32_t events);
	void *data;
};

/* A timer, kept in its owner's struct; at is its place in the heap. */
struct loop_timer {
	uint64_t due;		/* loop_now_ns() time */
	size_t at;		/* 0: not set */
	void (*proc)(void *data);
	void *data;
};

struct loop;

struct loop *loop_new(void);
void loop_free(struct loop *l);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t loop_now_ns(void);

/* Watch fd for events, calling h (owned by the caller, kept until
 * loop_forget()); change what is watched; stop.  0 or -1 (errno). */
int loop_watch(struct loop *l, int fd, uint32_t events,
	       struct loop_handler *h);
int loop_change(struct loop *l, int fd, uint32_t events,
		struct loop_handler *h);
void loop_forget(struct loop *l, int fd);

/*
 * A group of watched descriptors (one per user: users share the loop
 * evenly, however many connections each has).  The loop serves at most
 * a quantum of a group's ready descriptors a turn, and about 200 us of
 * their handlers' work, then the others' ready ones, then this group's
 * again.  A group of one is watched as a plain
 * descriptor; the second member gives it an epoll of its own (a
 * descriptor).  loop_group_free() forgets the group itself; its
 * members must have been forgotten before.  What a member is watched
 * for must stop being ready only through its own handler (reading,
 * writing) or loop_group_change(): a member taken and left for the
 * budget keeps its group's epoll readable until it is served.
 */
struct loop_group;

struct loop_group *loop_group_new(struct loop *l);
void loop_group_free(struct loop_group *g);
int loop_group_watch(struct loop_group *g, int fd, uint32_t events,
		     struct loop_handler *h);
int loop_group_change(struct loop_group *g, int fd, uint32_t events,
		      struct loop_handler *h);
void loop_group_forget(struct loop_group *g, int fd,
		       const struct loop_handler *h);

/* Call t->proc(t->data) at due (once); setting a set timer moves it. */
int loop_at(struct loop *l, struct loop_timer *t, uint64_t due);
void loop_cancel(struct loop *l, struct loop_timer *t);
bool loop_pending(const struct loop_timer *t);

/*
 * One turn: the events ready now (after a short spin if none), else a
 * wait of at most max_ms or until the next timer; then the timers due.
 * -1 if epoll_wait() failed for another reason than a signal.
 */
int loop_turn(struct loop *l, int max_ms);
/* How many turns the loop has begun: work done a share a turn (a timer
 * due at once fires again in the same turn if it was armed during the
 * turn's events) can tell a turn it already had. */
uint64_t loop_turns(const struct loop *l);

#endif
