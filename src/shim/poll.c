/* SPDX-License-Identifier: ISC */
/*
 * poll - poll, ppoll, select and pselect.  When any descriptor in the
 * set is one of pingsockd's sockets, the wait is pingsock_poll()'s
 * (pollset_call), which reports POLLERR from the socket's state slot
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
#include "lib/ucopy.h"
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
 * fds: the shim's own array (select's), not the program's.
 */
static int ours_poll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		     const sigset_t *mask, bool p)
{
	struct poll_call c = { .p = p, .own = true, .ts = ts, .mask = mask,
			       .timeout = -1, .ours = any_ours };
	int rc;

	if (!p && ts && ts->tv_sec >= INT_MAX / 1000)
		c.timeout = INT_MAX;
	else if (!p && ts)
		c.timeout = (int)((long long)ts->tv_sec * 1000 +
				  (ts->tv_nsec + 999999) / 1000000);
	rc = pollset_call(fds, n, &c);
	SHIM_LOGRC(rc, "%s(%lu fds)", p ? "ppoll" : "poll", (unsigned long)n);
	return rc;
}

/* The program's array is read (and revents written) only through
 * pollset_call(), as the kernel reads and writes it: one it does not
 * have is EFAULT from the kernel, not a crash here. */
SHIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	const struct poll_call c = { .timeout = timeout, .ours = any_ours };
	int rc;

	shim_init();
	if (!fdtab_has_relayed())
		return real_poll(fds, n, timeout);
	rc = pollset_call(fds, n, &c);
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

/* The timeout as the kernel's ppoll and pselect take it: copied (one not
 * there is the kernel's EFAULT: false), then checked (EINVAL). */
static bool ts_in(const struct timespec *user, struct timespec *ts,
		  const struct timespec **use)
{
	*use = NULL;
	if (!user)
		return true;
	if (!ucopy_in(ts, user, sizeof(*ts)))
		return false;
	*use = ts;
	return true;
}

/* The signal mask, copied next, as set_user_sigmask() copies the 8 bytes
 * glibc gives (_NSIG / 8): one not there is the kernel's EFAULT, even
 * where every wait inside is for a socket already known ready (and so
 * made without the mask). */
static bool mask_in(const sigset_t *user, const sigset_t **use,
		    sigset_t *copy)
{
	*use = NULL;
	if (!user)
		return true;
	memset(copy, 0, sizeof(*copy));
	if (!ucopy_in(copy, user, _NSIG / 8))
		return false;
	*use = copy;
	return true;
}

SHIM_EXPORT int ppoll(struct pollfd *fds, nfds_t n,
		      const struct timespec *ts, const sigset_t *mask)
{
	struct poll_call c = { .p = true, .ours = any_ours };
	struct timespec copy;
	sigset_t mask_copy;
	int rc;

	shim_init();
	if (!fdtab_has_relayed() || !ts_in(ts, &copy, &c.ts) ||
	    !mask_in(mask, &c.mask, &mask_copy))
		return real_ppoll(fds, n, ts, mask);
	if (!ts_ok(c.ts)) {
		errno = EINVAL;
		return -1;
	}
	rc = pollset_call(fds, n, &c);
	SHIM_LOGRC(rc, "ppoll(%lu fds)", (unsigned long)n);
	return rc;
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

/* The words of the three sets looked at at a time, on the stack. */
#define SEL_STACK_WORDS 16

/* Any descriptor below lim in these words (from word base on) one of
 * the library's relayed sockets? */
static bool words_have_ours(unsigned long (*buf)[SEL_STACK_WORDS],
			    size_t base, size_t k, int lim)
{
	for (size_t i = 0; i < k; i++) {
		unsigned long v = buf[0][i] | buf[1][i] | buf[2][i];

		for (; v; v &= v - 1) {
			int fd = (int)((base + i) * WBITS) + __builtin_ctzl(v);

			if (fd < lim && fdtab_kind(fd) != FDK_NONE &&
			    fdkind_relayed(shim_kind(fd)))
				return true;
		}
	}
	return false;
}

/*
 * Is one of the library's sockets asked about?  The sets are read as
 * core_sys_select() reads them, but only the words below the highest
 * descriptor that ever had an entry (none above can be the library's),
 * on the stack, a piece at a time: a select of other descriptors costs
 * no allocation (a signal handler's may come while its thread is in
 * malloc()) and no look at /proc (select_nfds).  False too where a set
 * is not all there: the kernel's EFAULT.
 */
static bool sets_ours(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	int lim = nfds < fdtab_bound() ? nfds : fdtab_bound();
	size_t nw = lim > 0 ? ((size_t)lim + WBITS - 1) / WBITS : 0;
	fd_set *user[3] = { r, w, e };
	unsigned long buf[3][SEL_STACK_WORDS];

	for (size_t base = 0; base < nw; base += SEL_STACK_WORDS) {
		size_t k = nw - base < SEL_STACK_WORDS ? nw - base
						       : SEL_STACK_WORDS;

		for (int i = 0; i < 3; i++) {
			memset(buf[i], 0, sizeof(buf[i]));
			if (user[i] && !ucopy_in(buf[i], words(user[i]) + base,
						 k * sizeof(unsigned long)))
				return false;
		}
		if (words_have_ours(buf, base, k, lim))
			return true;
	}
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

/* select_ours(): nothing of the library's asked about, or sets the
 * program does not have: the kernel's own select to answer. */
#define SELECT_PASS (-2)

/* Copies of the program's sets, as core_sys_select() reads them: the
 * words below nfds of each (NULL where the program gave none). */
struct sets {
	fd_set *r, *w, *e;
	char *mem;
	size_t bytes;
};

/* 1 copied; 0 one is not all there (the kernel's EFAULT); -1 no memory. */
static int sets_in(struct sets *s, int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	fd_set *user[3] = { r, w, e }, **mine[3] = { &s->r, &s->w, &s->e };

	s->bytes = ((size_t)nfds + WBITS - 1) / WBITS * sizeof(unsigned long);
	s->mem = calloc(3, s->bytes);
	if (!s->mem)
		return -1;
	for (int i = 0; i < 3; i++) {
		*mine[i] = NULL;
		if (!user[i])
			continue;
		*mine[i] = (fd_set *)(void *)(s->mem + (size_t)i * s->bytes);
		if (!ucopy_in(*mine[i], user[i], s->bytes)) {
			free(s->mem);
			return 0;
		}
	}
	return 1;
}

/* The results back into the program's sets: false where one cannot take
 * them (EFAULT, as set_fd_set() says). */
static bool sets_out(const struct sets *s, fd_set *r, fd_set *w, fd_set *e)
{
	return (!r || ucopy_out(r, s->r, s->bytes)) &&
	       (!w || ucopy_out(w, s->w, s->bytes)) &&
	       (!e || ucopy_out(e, s->e, s->bytes));
}

/* select over ours_poll on the copies; ts, mask and pcall (its p) as
 * there. */
static int select_sets(int nfds, struct sets *s, const struct timespec *ts,
		       const sigset_t *mask, bool pcall)
{
	struct pollfd *p;
	nfds_t n = 0;
	int rc;

	p = sets_to_poll(nfds, s->r, s->w, s->e, &n);
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
		rc = poll_to_sets(nfds, s->r, s->w, s->e, p, n);
	free(p);
	return rc;
}

/* The program's sets are read and written only as copies (sets_ours,
 * sets_in, sets_out): ones it does not have are EFAULT, not a crash
 * here. */
static int select_ours(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *ts, const sigset_t *mask, bool pcall)
{
	struct sets s;
	int rc;

	if (!sets_ours(nfds, r, w, e))
		return SELECT_PASS;
	nfds = select_nfds(nfds);
	rc = sets_in(&s, nfds, r, w, e);
	if (rc <= 0) {
		if (rc < 0)
			errno = ENOMEM;
		return rc < 0 ? -1 : SELECT_PASS;
	}
	rc = select_sets(nfds, &s, ts, mask, pcall);
	if (rc >= 0 && !sets_out(&s, r, w, e)) {
		errno = EFAULT;
		rc = -1;
	}
	free(s.mem);
	return rc;
}

/* Linux's select() writes back the time not slept; a timeval the program
 * cannot write is left as it was, no error (poll_select_finish()). */
static void time_not_slept(struct timeval *user, const struct timeval *t,
			   int64_t start)
{
	int saved = errno;
	int64_t left = (int64_t)t->tv_sec * 1000000 + t->tv_usec -
		       (mono_us() - start);
	struct timeval out;

	if (left < 0)
		left = 0;
	out.tv_sec = left / 1000000;
	out.tv_usec = left % 1000000;
	(void)ucopy_out(user, &out, sizeof(out));
	errno = saved;
}

SHIM_EXPORT int select(int nfds, fd_set *__restrict r, fd_set *__restrict w,
		       fd_set *__restrict e, struct timeval *__restrict tv)
{
	struct timespec ts;
	struct timeval t;
	int64_t start;
	int rc;

	shim_init();
	if (!fdtab_has_relayed() || (tv && !ucopy_in(&t, tv, sizeof(t))))
		return real_select(nfds, r, w, e, tv);
	if (tv) {
		if (t.tv_sec < 0 || t.tv_usec < 0) {
			errno = EINVAL;
			return -1;
		}
		/* As the kernel reads it: tv_usec may exceed a second. */
		ts.tv_sec = t.tv_sec + t.tv_usec / 1000000;
		ts.tv_nsec = (long)(t.tv_usec % 1000000) * 1000;
	}
	start = mono_us();
	rc = select_ours(nfds, r, w, e, tv ? &ts : NULL, NULL, false);
	if (rc == SELECT_PASS)
		return real_select(nfds, r, w, e, tv);
	if (tv)
		time_not_slept(tv, &t, start);
	return rc;
}

SHIM_EXPORT int pselect(int nfds, fd_set *__restrict r, fd_set *__restrict w,
			fd_set *__restrict e,
			const struct timespec *__restrict ts,
			const sigset_t *__restrict mask)
{
	const struct timespec *t;
	const sigset_t *m;
	struct timespec copy;
	sigset_t mask_copy;
	int rc;

	shim_init();
	if (!fdtab_has_relayed() || !ts_in(ts, &copy, &t) ||
	    !mask_in(mask, &m, &mask_copy))
		return real_pselect(nfds, r, w, e, ts, mask);
	if (!ts_ok(t)) {
		errno = EINVAL;
		return -1;
	}
	rc = select_ours(nfds, r, w, e, t, m, true);
	return rc == SELECT_PASS ? real_pselect(nfds, r, w, e, ts, mask) : rc;
}
