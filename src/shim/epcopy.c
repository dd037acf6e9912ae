/* SPDX-License-Identifier: ISC */
/*
 * epcopy - which descriptors of this process are the same epoll set
 * (epoll.c keeps its registrations per set, not per number).
 *
 * Every epoll descriptor is the one anonymous inode "anon_inode:
 * [eventpoll]", so fstat() cannot tell two sets apart; kcmp(KCMP_FILE)
 * compares the open files themselves.  It needs no privilege on one's
 * own process, but a kernel may lack it (CONFIG_KCMP) or a seccomp
 * filter refuse it: then only the copies the shim made itself (dup,
 * dup2, dup3, F_DUPFD) are known, and a copy made behind its back is
 * not found (as before kcmp was used).
 */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/shim.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

/* kcmp is missing or refused here: not asked again. */
static _Atomic bool kcmp_off;

bool shim_same_file(int a, int b)
{
#ifdef SYS_kcmp
	int saved = errno;
	pid_t me = getpid();
	long rc;

	if (a == b)
		return true;
	if (atomic_load_explicit(&kcmp_off, memory_order_relaxed))
		return false;
	rc = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b);
	if (rc < 0 && (errno == ENOSYS || errno == EPERM || errno == EACCES))
		atomic_store_explicit(&kcmp_off, true, memory_order_relaxed);
	errno = saved;
	return rc == 0;
#else
	return a == b;
#endif
}

/* Is fd (a number in /proc/self/fd) an epoll descriptor? */
static bool is_epoll(int dir, const char *name)
{
	static const char want[] = "anon_inode:[eventpoll]";
	char link[sizeof(want) + 1];
	ssize_t n = readlinkat(dir, name, link, sizeof(link));

	return n == (ssize_t)sizeof(want) - 1 && memcmp(link, want, (size_t)n) == 0;
}

/*
 * Another descriptor of this process for fd's epoll set, outside
 * [lo, hi] (the numbers being closed), or -1.  Only when a set's last
 * known number is closed: it reads the whole descriptor table.
 */
int shim_find_epoll_copy(int fd, int lo, int hi)
{
	int saved = errno, found = -1;
	struct dirent *e;
	DIR *d;

	if (atomic_load_explicit(&kcmp_off, memory_order_relaxed))
		return -1;
	d = opendir("/proc/self/fd");
	if (!d) {
		errno = saved;
		return -1;
	}
	while (found < 0 && (e = readdir(d))) {
		char *end;
		long c = strtol(e->d_name, &end, 10);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end ||
		    c == fd || c == dirfd(d) || (c >= lo && c <= hi))
			continue;
		if (is_epoll(dirfd(d), e->d_name) && shim_same_file(fd, (int)c))
			found = (int)c;
	}
	closedir(d);
	errno = saved;
	return found;
}
