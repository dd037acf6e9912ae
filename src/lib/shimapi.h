/*
 * shimapi - the few library internals the LD_PRELOAD shim (src/shim)
 * needs beyond include/pingsock.h.  Not part of the public API.
 *
 * A dup'd descriptor of a daemon socket gets a copy of the original's
 * fdtab entry: the copies share the socket's shared page and hidden error
 * descriptor.  The number of entries pointing at the same page is the
 * reference count: pingsock_close() must run only for the last one.
 */
#ifndef PS_SHIMAPI_H
#define PS_SHIMAPI_H

#include <stdbool.h>
#include <stddef.h>

struct fdent;

/* Give newfd a copy of oldfd's entry; -1 (ENOMEM / EBADF) on failure. */
int fdtab_dup(int oldfd, int newfd);

/*
 * If fd's entry shares its shared page with another descriptor's, clear
 * fd's entry and return true (the caller then only closes fd itself);
 * otherwise leave it and return false (the caller runs pingsock_close).
 * Atomic with respect to other fdtab calls: of two copies closed at once,
 * exactly one sees "last".
 */
bool fdtab_drop_if_shared(int fd);

/*
 * A broker socket's first send or connect is about to be made (see
 * bk_use): after it, only close and dup concern the shim.
 */
struct iovec;
void bk_use_fd(int fd, const struct iovec *iov, size_t niov);

/* The smallest descriptor >= from that has an entry, or -1. */
int fdtab_next(int from);

/*
 * The library's own descriptors that a program must not close behind its
 * back (close_range, closefrom), into out[0..max), and the count there
 * would be: fdtab_errfds(), the error descriptor of every entry (copies
 * share one, so a number may repeat); conn_fds(), the control
 * connections (conn.h: a few when threads call at once).
 */
size_t fdtab_errfds(int *out, size_t max);
size_t conn_fds(int *out, size_t max);

/*
 * The poll bits the kernel would add for this socket beyond what its data
 * descriptor shows (POLLERR, POLLHUP, POLLIN|POLLRDNORM|POLLRDHUP after
 * SHUT_RD as far as events asks for them).  Reads only ent->shm.
 */
unsigned pollsynth(const struct fdent *ent, unsigned events);

#endif
