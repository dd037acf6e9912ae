/* SPDX-License-Identifier: ISC */
/*
 * poll - poll, ppoll, select and pselect.  When any descriptor in the
 * set is one of pingsockd's sockets, the wait is pingsock_poll(), which
 * reports POLLERR from the socket's state slot and wakes for an error's
 * wake-up on its data descriptor; otherwise the libc call itself.
 *
 * select/pselect are built on it the way the kernel builds select on
 * ->poll(): readable = POLLIN|POLLRDNORM|POLLRDBAND|POLLHUP|POLLERR,
 * writable = POLLOUT|POLLWRNORM|POLLWRBAND|POLLERR, exceptional =
 * POLLPRI.  So a pending error shows in readfds and writefds (if asked),
 * not in exceptfds.
 *
 * Not atomic: the signal mask of ppoll/pselect is set around the wait
 * with pthread_sigmask (a signal arriving just before the wait is
 * delivered but does not interrupt it).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "lib/clock.h"
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

static int ours_poll(struct pollfd *fds, nfds_t n, int timeout_ms,
		     const sigset_t *mask)
{
	sigset_t old;
	int rc, saved;

	if (mask)
		pthread_sigmask(SIG_SETMASK, mask, &old);
	rc = pingsock_poll(fds, n, timeout_ms);
	if (mask) {
		saved = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		errno = saved;
	}
	SHIM_LOGRC(rc, "poll(%lu fds, %d ms)", (unsigned long)n, timeout_ms);
	return rc;
}

SHIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	shim_init();
	if (!any_ours(fds, n))
		return real_poll(fds, n, timeout);
	return ours_poll(fds, n, timeout, NULL);
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

static int ts_to_ms(const struct timespec *ts)
{
	long long ms;

	if (!ts)
		return -1;
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return -2;
	ms = (long long)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

SHIM_EXPORT int ppoll(struct pollfd *fds, nfds_t n,
		      const struct timespec *ts, const sigset_t *mask)
{
	int ms;

	shim_init();
	if (!any_ours(fds, n))
		return real_ppoll(fds, n, ts, mask);
	ms = ts_to_ms(ts);
	if (ms == -2) {
		errno = EINVAL;
		return -1;
	}
	return ours_poll(fds, n, ms, mask);
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

/* select over pingsock_poll; timeout in ms (-1: none). */
static int select_ours(int nfds, fd_set *r, fd_set *w, fd_set *e, int ms,
		       const sigset_t *mask)
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
	rc = ours_poll(p, n, ms, mask);
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
	int64_t start, left;
	int ms = -1, rc;

	shim_init();
	if (!sets_have_ours(nfds, r, w, e))
		return real_select(nfds, r, w, e, tv);
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0) {
			errno = EINVAL;
			return -1;
		}
		left = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
		ms = left / 1000 + (left % 1000 != 0) > INT_MAX
			     ? INT_MAX
			     : (int)(left / 1000 + (left % 1000 != 0));
	}
	start = mono_us();
	rc = select_ours(nfds, r, w, e, ms, NULL);
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
	int ms;

	shim_init();
	if (!sets_have_ours(nfds, r, w, e))
		return real_pselect(nfds, r, w, e, ts, mask);
	ms = ts_to_ms(ts);
	if (ms == -2) {
		errno = EINVAL;
		return -1;
	}
	return select_ours(nfds, r, w, e, ms, mask);
}
