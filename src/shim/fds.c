/* SPDX-License-Identifier: ISC */
/*
 * fds - close_range and closefrom.
 *
 * A program that closes "everything above 2" (before exec, or to tidy up
 * after fork) would also close the descriptors the library keeps for
 * itself: the control connections and each broker socket's liveness
 * descriptor.  Those are left open here - they are
 * close-on-exec, so an exec still drops them - and every shimmed socket
 * in the range is closed the way close() closes it, so that the daemon
 * frees what was the last copy.
 *
 * With CLOSE_RANGE_UNSHARE in a thread whose table other threads share,
 * the calling thread closes its own private copy only: the others keep
 * every socket, so the library's tables, which are the process's, stay
 * theirs, and the calling thread leaves the library (lib/lock.h,
 * lock_unshared()).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/kcmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/shimapi.h"
#include "shim/shim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The library's own descriptors, sorted; NULL if none. */
static int *own_fds(size_t *count)
{
	size_t nhid = fdtab_hidden_fds(NULL, 0);
	size_t nconn = conn_fds(NULL, 0);
	size_t nkept = broker_kept_fds(NULL, 0);
	size_t cap = nhid + nconn + nkept + 1, n = 0;
	int *v = malloc(cap * sizeof(*v));

	*count = 0;
	if (!v)
		return NULL;
	/* More may have appeared since counting: take what fits. */
	n = fdtab_hidden_fds(v, nhid);
	n = n < nhid ? n : nhid;
	size_t m = conn_fds(v + n, nconn);

	n += m < nconn ? m : nconn;
	m = broker_kept_fds(v + n, nkept);
	n += m < nkept ? m : nkept;
	qsort(v, n, sizeof(*v), cmp_int);
	*count = n;
	return v;
}

/* The real call over [first, last] minus the sorted own[0..n). */
static int close_around(unsigned first, unsigned last, int flags,
			const int *own, size_t n)
{
	unsigned lo = first;

	for (size_t i = 0; i < n; i++) {
		unsigned o = (unsigned)own[i];

		if (own[i] < 0 || o < lo)
			continue;
		if (o > last)
			break;
		if (o > lo && real_close_range(lo, o - 1, flags) < 0)
			return -1;
		lo = o + 1;
		if (lo == 0)	/* o was UINT_MAX */
			return 0;
	}
	if (lo <= last)
		return real_close_range(lo, last, flags);
	return 0;
}

/*
 * Does another thread share the calling thread's descriptor table (one
 * of /proc/self/task with the same KCMP_FILES)?  A thread that cannot be
 * compared (kcmp refused) is taken to share it: its sockets are then
 * left alone.  Without /proc, no: the range is closed as without
 * CLOSE_RANGE_UNSHARE, as before.  (A process that shares its table
 * through clone(CLONE_FILES) without CLONE_THREAD is not found.)
 */
static bool table_shared(void)
{
	long me = syscall(SYS_gettid);
	int saved = errno;
	DIR *d = opendir("/proc/self/task");
	const struct dirent *de;
	bool shared = false;

	while (d && !shared && (de = readdir(d)) != NULL) {
		long tid = strtol(de->d_name, NULL, 10), r;

		if (tid <= 0 || tid == me)
			continue;
		r = syscall(SYS_kcmp, (pid_t)me, (pid_t)tid, KCMP_FILES, 0, 0);
		/* ESRCH: the thread has gone meanwhile. */
		shared = r == 0 || (r < 0 && errno != ESRCH);
	}
	if (d)
		closedir(d);
	errno = saved;
	return shared;
}

SHIM_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	size_t n;
	int *own, rc;

	shim_init();
	if (lock_held() || !shim_real.close_range || lock_borrowed())
		return shim_real.close_range
			       ? real_close_range(first, last, flags)
			       : (errno = ENOSYS, -1);
	if (first > last ||
	    (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))) {
		errno = EINVAL;
		return -1;
	}
	if ((flags & CLOSE_RANGE_UNSHARE) && table_shared()) {
		/* The kernel copies the table before it closes anything: what
		 * closes is this thread's, the library's own descriptors in
		 * it included (the thread no longer uses them). */
		rc = real_close_range(first, last, flags);
		if (rc == 0)
			lock_unshared();
		SHIM_LOGRC(rc, "close_range(%u, %u, %#x) [unshared]", first,
			   last, (unsigned)flags);
		return rc;
	}
	own = own_fds(&n);
	if (!(flags & CLOSE_RANGE_CLOEXEC)) {
		int fd = first > INT_MAX ? -1 : fdtab_next((int)first);

		for (; fd >= 0 && (unsigned)fd <= last; fd = fdtab_next(fd + 1))
			shim_close_ours(fd);
		shim_epoll_closing_range(first, last);
	}
	rc = close_around(first, last, flags, own, n);
	free(own);
	SHIM_LOGRC(rc, "close_range(%u, %u, %#x)", first, last,
		   (unsigned)flags);
	return rc;
}

SHIM_EXPORT void closefrom(int lowfd)
{
	shim_init();
	if (lock_held()) {
		real_closefrom(lowfd);
		return;
	}
	if (close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U, 0) == 0)
		return;
	/* No close_range in this kernel: libc's own fallback, which cannot
	 * spare the library's descriptors. */
	real_closefrom(lowfd);
}
