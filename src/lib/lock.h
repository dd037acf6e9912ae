/* SPDX-License-Identifier: ISC */
/*
 * lock - the client's locks (the library's and the preload's), in one
 * place so that fork() can take them all.
 *
 * fork() copies a lock held by another thread into the child as held,
 * with no thread left there to release it: the child's first call that
 * needs it would wait forever.  So every lock of the client is one of
 * these, and a pthread_atfork() handler (registered when the library is
 * loaded) takes them all, outermost first, before fork and releases them
 * in both processes after.  (conn.c's lock has handlers of its own: the
 * child also has to forget the parent's connection.)
 *
 * The thread's lock depth counts the locked regions it is in, these and
 * the control connection's exchanges (relay_conn_call): a signal handler
 * that runs inside one must not enter the library again, which would
 * wait for a lock its own thread holds.  The preload sends such a call
 * to the C library (shim.h).
 */
#ifndef PS_LIB_LOCK_H
#define PS_LIB_LOCK_H

#include <stdbool.h>

/* Outermost first: a region may take a later lock, never an earlier. */
enum lock_id {
	LOCK_SHIM_EPOLL,	/* the preload's epoll registrations */
	LOCK_BROKER,		/* broker sockets: the pool, options kept */
	LOCK_INHERIT,		/* an inherited descriptor's first use
				 * (inherit.c) */
	LOCK_FDTAB,		/* the descriptor table */
	LOCK_ATTACH,		/* a proof and its WIRE_ATTACH (relay.c) */
	LOCK_HELLO,		/* a WIRE_HELLO and the arena (state.c) */
	LOCK_COUNT
};

void lock_take(enum lock_id id);
void lock_give(enum lock_id id);

/* A locked region that is not one of these (the exchange with the
 * daemon): only the depth. */
void lock_enter(void);
void lock_leave(void);

/* Is the calling thread inside a locked region (or one that must not
 * enter the library at all: lock_unshared)? */
bool lock_held(void);

/*
 * The calling thread has just made itself a private copy of a descriptor
 * table it shared with other threads (close_range() with
 * CLOSE_RANGE_UNSHARE).  The library's tables are the process's: they
 * describe the table the other threads keep, which this thread's own
 * closes, dups and new sockets must not change.  From now on the thread
 * counts as inside a locked region (lock_held()): the preload hands all
 * its calls to the C library, as it does a signal handler's there.
 */
void lock_unshared(void);

/*
 * Is this a child that shares its parent's memory (vfork(), posix_spawn(),
 * clone() with CLONE_VM), and so the parent's tables, but has descriptors
 * of its own?  There a close or a dup is the system call alone: the
 * tables describe the parent's descriptors, which the child's own close
 * does not touch (Python's subprocess closes every descriptor in such a
 * child).  One getpid() a call: for the close and dup calls on the
 * library's descriptors only; in a child no fork handler ran in, a
 * kcmp(KCMP_VM) tells a shared memory from a copy.
 */
bool lock_borrowed(void);

/* How many fork() calls this process and its parents made (the child
 * inherits the count, the fork included).  Counted while every lock is
 * held: a section under one of them sees no fork begin or end. */
unsigned lock_forks(void);

#endif
