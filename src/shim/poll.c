/* SPDX-License-Identifier: ISC */
/*
 * poll - poll, ppoll, select and pselect.  When any descriptor in the
 * set is one of pingsockd's sockets, the wait is pingsock_poll()'s
 * (pollset_ppoll), which reports POLLERR from the socket's state slot
 * and wakes for an error's wake-up on its data descriptor; otherwise the
 * libc call itself.
 *
 * select/pselect are built on it the way the kernel builds select on
 * ->poll(): readable = POLLIN|POLLRDNORM|POLLRDBAND|POLLHUP|POLLERR,
 * writable = POLLOUT|POLLWRNORM|POLLWRBAND|POLLERR, exceptional =
 * POLLPRI.  So a pending error shows in readfds and writefds (if asked),
 * not in exceptfds.
 *
 * The sets are read and written as the kernel's core_sys_select() does:
 * arrays of unsigned long as long as nfds needs, which may be far beyond
 * FD_SETSIZE in sets a program sized itself; nfds is cut to the size of
 * the descriptor table (select_nfds), never an error above it, and the
 * whole of each word below nfds is written back (bits past nfds in the
 * last one cleared), nothing beyond.
 *
 * The signal mask of ppoll/pselect is set atomically with the wait, as
 * the kernel sets it: every wait inside is the real ppoll() with the
 * caller's mask, and nothing here changes the thread's own mask (a
 * pthread_sigmask() around the wait would run the handler of a signal
 * already pending, then wait on regardless).  So a signal that the
 * call's mask unblocks and the thread's blocks ends the call with EINTR
 * whether it was pending before or came while a stale wake-up was being
 * looked at between two waits inside; a descriptor already ready is
 * reported instead, the signal left pending.  Only a signal the thread
 * does not block at all, arriving in that moment between two waits,
 * runs its handler without ending the call (pingsock-preload(8)).
 *
 * The waits inside ppoll and pselect are ppoll() (their timeouts to
 * the nanosecond); those of poll and select stay poll() (in
 * milliseconds, rounded up), as they always were here: nothing changes
 * for the calls without a mask, not even the system call a seccomp
 * filter sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/shimapi.h"
#include "pingsock.h"
#include "shim/shim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

static bool any_ours(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (fdkind_relayed(shim_kind(fds[i].fd)))
			return true;
	return false;
}

/*
 * ts: checked (NULL: no timeout); p: the program called ppoll or
 * pselect (mask: NULL for the thread's own); otherwise poll or select,
 * which wait in milliseconds, rounded up, with poll() as they did.
 */
static int ours_poll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		     const sigset_t *mask, bool p)
{
	long long ms = -1;
	int rc;

	if (p) {
		rc = pollset_ppoll(fds, n, ts, mask);
	} else {
		if (ts && ts->tv_sec >= INT_MAX / 1000)
			ms = INT_MAX;
		else if (ts)
			ms = (long long)ts->tv_sec * 1000 +
			     (ts->tv_nsec + 999999) / 1000000;
		rc = pingsock_poll(fds, n, (int)ms);
	}
	SHIM_LOGRC(rc, "%s(%lu fds)", p ? "ppoll" : "poll", (unsigned long)n);
	return rc;
}

SHIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int rc;

	shim_init();
	if (!any_ours(fds, n))
		return real_poll(fds, n, timeout);
	rc = pingsock_poll(fds, n, timeout);
	SHIM_LOGRC(rc, "poll(%lu fds, %d ms)", (unsigned long)n, timeout);
	return rc;
}

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
extern void __chk_fail(void) __attribute__((noreturn));

SHIM_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout,
			   size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		__chk_fail();
	return poll(fds, n, timeout);
}

/* A timeout the kernel takes (EINVAL otherwise); NULL is none. */
static bool ts_ok(const struct timespec *ts)
{
	return !ts || (ts->tv_sec >= 0 && ts->tv_nsec >= 0 &&
		       ts->tv_nsec < 1000000000L);
}

SHIM_EXPORT int ppoll(struct pollfd *fds, nfds_t n,
		      const struct timespec *ts, const sigset_t *mask)
{
	shim_init();
	if (!any_ours(fds, n))
		return real_ppoll(fds, n, ts, mask);
	if (!ts_ok(ts)) {
		errno = EINVAL;
		return -1;
	}
	return ours_poll(fds, n, ts, mask, true);
}

#define IN_SET (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define OUT_SET (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define EX_SET (POLLPRI)

/*
 * The sets as the kernel reads them: arrays of unsigned long, as many as
 * nfds needs, which a program may size itself beyond FD_SETSIZE (the
 * FD_* macros, checked against FD_SETSIZE, are not used on them).
 */
#define WBITS (8 * sizeof(unsigned long))

static unsigned long *words(fd_set *s)
{
	return (unsigned long *)(void *)s;
}

static bool bit_in(fd_set *s, int fd)
{
	return s && (words(s)[(size_t)fd / WBITS] >> ((size_t)fd % WBITS) & 1);
}

static void bit_put(fd_set *s, int fd)
{
	words(s)[(size_t)fd / WBITS] |= 1UL << ((size_t)fd % WBITS);
}

/* Is one of the library's sockets asked about?  Only the numbers that
 * have an entry are looked at, so nothing of the sets is read that the
 * kernel would not read (nfds may be far beyond them). */
static bool sets_have_ours(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	int end = fdtab_bound();

	for (int fd = 0; fd < nfds && fd < end; fd++)
		if (fdtab_kind(fd) != FDK_NONE &&
		    (bit_in(r, fd) || bit_in(w, fd) || bit_in(e, fd)) &&
		    fdkind_relayed(shim_kind(fd)))
			return true;
	return false;
}

/*
 * The size of the kernel's descriptor table for this thread (its
 * max_fds: FDSize in /proc/thread-self/status), or -1 when unknown.
 */
static long fd_table_size(void)
{
	char b[1024], *p;
	long size = -1;
	ssize_t n = -1;
	int saved = errno;
	int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)	/* before Linux 3.17 */
		fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = real_read(fd, b, sizeof(b) - 1);
		real_close(fd);
	}
	if (n > 0) {
		b[n] = '\0';
		p = strstr(b, "\nFDSize:");
		if (p)
			size = strtol(p + 8, NULL, 10);
	}
	errno = saved;
	return size > 0 ? size : -1;
}

/*
 * nfds as the kernel takes it: cut to the size of its descriptor table
 * (never an error; bits above are neither read nor written).  The table
 * is never smaller than one word, and holds any open descriptor: fd
 * nfds - 1 open (a program's usual highest + 1) says enough without
 * reading /proc.  Where /proc cannot say, FD_SETSIZE bounds what is read.
 */
static int select_nfds(int nfds)
{
	int saved = errno;
	long size;

	if (nfds <= (int)WBITS || real_fcntl(nfds - 1, F_GETFD) >= 0)
		return nfds;
	errno = saved;
	size = fd_table_size();
	if (size < 0)
		size = FD_SETSIZE;
	return size < nfds ? (int)size : nfds;
}

/* The bits below nfds of word i of all three sets. */
static unsigned long word_any(int nfds, fd_set *r, fd_set *w, fd_set *e,
			      size_t i)
{
	unsigned long v = (r ? words(r)[i] : 0) | (w ? words(w)[i] : 0) |
			  (e ? words(e)[i] : 0);

	if ((i + 1) * WBITS > (size_t)nfds)
		v &= (1UL << ((size_t)nfds % WBITS)) - 1;
	return v;
}

/* A pollfd for each descriptor below nfds in a set (*n of them). */
static struct pollfd *sets_to_poll(int nfds, fd_set *r, fd_set *w, fd_set *e,
				   nfds_t *n)
{
	size_t nw = ((size_t)nfds + WBITS - 1) / WBITS, count = 0;
	struct pollfd *p;

	for (size_t i = 0; i < nw; i++)
		count += (size_t)__builtin_popcountl(word_any(nfds, r, w, e, i));
	p = calloc(count + 1, sizeof(*p));
	if (!p)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < nw; i++) {
		unsigned long v = word_any(nfds, r, w, e, i);

		for (; v; v &= v - 1) {
			int fd = (int)(i * WBITS) + __builtin_ctzl(v);
			short ev = 0;

			if (bit_in(r, fd))
				ev |= POLLIN;
			if (bit_in(w, fd))
				ev |= POLLOUT;
			if (bit_in(e, fd))
				ev |= POLLPRI;
			p[*n].fd = fd;
			p[(*n)++].events = ev;
		}
	}
	return p;
}

/* The result into the sets, as the kernel writes it: every word below
 * nfds (the bits above nfds in the last one cleared); the count. */
static int poll_to_sets(int nfds, fd_set *r, fd_set *w, fd_set *e,
			const struct pollfd *p, nfds_t n)
{
	size_t bytes = ((size_t)nfds + WBITS - 1) / WBITS *
		       sizeof(unsigned long);
	int count = 0;

	if (r)
		memset(r, 0, bytes);
	if (w)
		memset(w, 0, bytes);
	if (e)
		memset(e, 0, bytes);
	for (nfds_t i = 0; i < n; i++) {
		short rv = p[i].revents;

		if ((p[i].events & POLLIN) && (rv & IN_SET)) {
			bit_put(r, p[i].fd);
			count++;
		}
		if ((p[i].events & POLLOUT) && (rv & OUT_SET)) {
			bit_put(w, p[i].fd);
			count++;
		}
		if ((p[i].events & POLLPRI) && (rv & EX_SET)) {
			bit_put(e, p[i].fd);
			count++;
		}
	}
	return count;
}

static int64_t mono_us(void)
{
	return (int64_t)(clock_mono_ns() / 1000);
}

/* select over ours_poll; ts, mask and pcall (its p) as there. */
static int select_ours(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *ts, const sigset_t *mask, bool pcall)
{
	struct pollfd *p;
	nfds_t n = 0;
	int rc;

	nfds = select_nfds(nfds);
	p = sets_to_poll(nfds, r, w, e, &n);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	rc = ours_poll(p, n, ts, mask, pcall);
	for (nfds_t i = 0; rc >= 0 && i < n; i++)
		if (p[i].revents & POLLNVAL) {
			errno = EBADF;
			rc = -1;
		}
	if (rc >= 0)
		rc = poll_to_sets(nfds, r, w, e, p, n);
	free(p);
	return rc;
}

SHIM_EXPORT int select(int nfds, fd_set *__restrict r, fd_set *__restrict w,
		       fd_set *__restrict e, struct timeval *__restrict tv)
{
	struct timespec ts;
	int64_t start, left;
	int rc;

	shim_init();
	if (!sets_have_ours(nfds, r, w, e))
		return real_select(nfds, r, w, e, tv);
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0) {
			errno = EINVAL;
			return -1;
		}
		/* As the kernel reads it: tv_usec may exceed a second. */
		ts.tv_sec = tv->tv_sec + tv->tv_usec / 1000000;
		ts.tv_nsec = (long)(tv->tv_usec % 1000000) * 1000;
	}
	start = mono_us();
	rc = select_ours(nfds, r, w, e, tv ? &ts : NULL, NULL, false);
	if (tv) {	/* Linux: the time not slept */
		int saved = errno;

		left = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec -
		       (mono_us() - start);
		if (left < 0)
			left = 0;
		tv->tv_sec = left / 1000000;
		tv->tv_usec = left % 1000000;
		errno = saved;
	}
	return rc;
}

SHIM_EXPORT int pselect(int nfds, fd_set *__restrict r, fd_set *__restrict w,
			fd_set *__restrict e,
			const struct timespec *__restrict ts,
			const sigset_t *__restrict mask)
{
	shim_init();
	if (!sets_have_ours(nfds, r, w, e))
		return real_pselect(nfds, r, w, e, ts, mask);
	if (!ts_ok(ts)) {
		errno = EINVAL;
		return -1;
	}
	return select_ours(nfds, r, w, e, ts, mask, true);
}
