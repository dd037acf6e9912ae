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
#include <limits.h>
#include <stdlib.h>
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

static bool sets_have_ours(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++)
		if (((r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) ||
		     (e && FD_ISSET(fd, e))) &&
		    fdkind_relayed(shim_kind(fd)))
			return true;
	return false;
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
	int rc, count = 0;

	if (nfds > FD_SETSIZE)
		nfds = FD_SETSIZE;
	p = calloc((size_t)nfds + 1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (r && FD_ISSET(fd, r))
			ev |= POLLIN;
		if (w && FD_ISSET(fd, w))
			ev |= POLLOUT;
		if (e && FD_ISSET(fd, e))
			ev |= POLLPRI;
		if (!ev)
			continue;
		p[n].fd = fd;
		p[n++].events = ev;
	}
	rc = ours_poll(p, n, ts, mask, pcall);
	if (rc < 0) {
		free(p);
		return -1;
	}
	for (nfds_t i = 0; i < n; i++)
		if (p[i].revents & POLLNVAL) {
			free(p);
			errno = EBADF;
			return -1;
		}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (e)
		FD_ZERO(e);
	for (nfds_t i = 0; i < n; i++) {
		short rv = p[i].revents;

		if ((p[i].events & POLLIN) && (rv & IN_SET)) {
			FD_SET(p[i].fd, r);
			count++;
		}
		if ((p[i].events & POLLOUT) && (rv & OUT_SET)) {
			FD_SET(p[i].fd, w);
			count++;
		}
		if ((p[i].events & POLLPRI) && (rv & EX_SET)) {
			FD_SET(p[i].fd, e);
			count++;
		}
	}
	free(p);
	return count;
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
