/* SPDX-License-Identifier: ISC */
/*
 * shimapi - the few library internals the LD_PRELOAD shim (src/shim)
 * needs beyond include/pingsock.h, fdtab.h, backend.h, broker.h and
 * env.h.  Not part of the public API.
 */
#ifndef PS_SHIMAPI_H
#define PS_SHIMAPI_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct fdent;

/*
 * Give newfd a copy of oldfd's entry (dup: the same socket, sharing its
 * resources); -1 (ENOMEM / EBADF) on failure.
 */
int fdtab_dup(int oldfd, int newfd);

/* The smallest descriptor >= from that has an entry, or -1. */
int fdtab_next(int from);

/* A descriptor of ent's socket (its identity, dev and ino) that has an
 * entry and is still open on it, or -1. */
int fdtab_fd_of(const struct fdent *ent);

/*
 * The library's own descriptors that a program must not close behind its
 * back (close_range, closefrom), into out[0..max), and the count there
 * would be: fdtab_hidden_fds(), the liveness descriptor of every broker
 * socket (copies share one, so a number may repeat); conn_fds(), the control
 * connections (conn.h: a few when threads call at once).
 */
size_t fdtab_hidden_fds(int *out, size_t max);
size_t conn_fds(int *out, size_t max);
/* broker_kept_fds(): the copies of eBPF programs attached to fresh
 * broker sockets, kept to attach them again after a bind (broker.c). */
size_t broker_kept_fds(int *out, size_t max);

/*
 * The poll bits the kernel would add for this socket beyond what its data
 * descriptor shows (POLLERR, POLLHUP, POLLIN|POLLRDNORM|POLLRDHUP after
 * SHUT_RD as far as events asks for them).  Reads only ent->shm.
 */
unsigned pollsynth(const struct fdent *ent, unsigned events);

/*
 * A poll the program asked for: as ppoll() (p), with its timeout ts
 * (NULL: none; read and checked by the caller) and signal mask (NULL:
 * the thread's own), set atomically with every wait inside (each one the
 * real ppoll()); or as poll(), with timeout in milliseconds.  ours: is
 * one of these (a copy of the program's array) a descriptor the wait
 * must look after?  NULL: the library's own test.  own: fds is the
 * caller's own memory (select's array), used as it is.
 */
struct poll_call {
	bool p;
	bool own;
	int timeout;
	const struct timespec *ts;
	const sigset_t *mask;
	bool (*ours)(const struct pollfd *fds, nfds_t nfds);
};

/*
 * pingsock_poll() as c asks.  The program's array is read and written
 * as the kernel's do_sys_poll() does: copied in first (one not all there
 * is the kernel's to answer: EFAULT), revents alone written back (EFAULT
 * where it cannot be, after the wait).  A process that never had a
 * socket of the library's passes the call on unread.
 */
int pollset_call(struct pollfd *fds, nfds_t nfds, const struct poll_call *c);

#endif
