/* SPDX-License-Identifier: ISC */
#include "lib/swap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/sys.h"

struct epreg {
	int epfd, fd;
	struct epoll_event ev;
};

/* What of the old socket the process holds. */
struct held {
	struct stat old;
	int *fds;		/* its descriptors, fd first */
	size_t nfds;
	struct epreg *regs;	/* epoll registrations of it */
	size_t nregs;
};

static bool same_file(int fd, const struct stat *st)
{
	struct stat s;

	return fstat(fd, &s) == 0 && s.st_dev == st->st_dev &&
	       s.st_ino == st->st_ino;
}

static void add_fd(struct held *h, int fd)
{
	int *n;

	for (size_t i = 0; i < h->nfds; i++)
		if (h->fds[i] == fd)
			return;
	n = realloc(h->fds, (h->nfds + 1) * sizeof(*n));
	if (!n)
		return;	/* that copy keeps the old socket */
	h->fds = n;
	h->fds[h->nfds++] = fd;
}

static void add_reg(struct held *h, const struct epreg *r)
{
	struct epreg *n = realloc(h->regs, (h->nregs + 1) * sizeof(*n));

	if (!n)
		return;
	h->regs = n;
	h->regs[h->nregs++] = *r;
}

/*
 * The registrations of the old socket on epfd, as the kernel lists them
 * ("tfd: %8d events: %8x data: %16llx pos:%lli ino:%lx sdev:%x"; sdev
 * is the kernel's dev_t, major << 20 | minor).  A one-shot registration
 * that fired shows its events cleared, and is re-added so.
 */
static void scan_epoll(struct held *h, int epfd)
{
	char path[64], line[256];
	unsigned long long data;
	unsigned long ino;
	unsigned events, sdev;
	struct epreg r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", epfd);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "tfd: %d events: %x data: %llx pos:%*s "
			   "ino:%lx sdev:%x", &r.fd, &events, &data, &ino,
			   &sdev) == 5 &&
		    ino == (unsigned long)h->old.st_ino &&
		    sdev >> 20 == major(h->old.st_dev) &&
		    (sdev & 0xfffff) == minor(h->old.st_dev)) {
			r.epfd = epfd;
			r.ev.events = events;
			r.ev.data.u64 = data;
			add_reg(h, &r);
		}
	fclose(f);
}

static bool is_epoll(int fd)
{
	static const char want[] = "anon_inode:[eventpoll]";
	char path[64], link[sizeof(want) + 1];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link));
	return n == (ssize_t)sizeof(want) - 1 && !memcmp(link, want, (size_t)n);
}

/* Every descriptor of the process: copies of the old socket, and what
 * the epolls among them hold of it.  false without /proc. */
static bool scan_fds(struct held *h)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd < 0 || fd > INT_MAX ||
		    fd == dirfd(d))
			continue;
		if (same_file((int)fd, &h->old))
			add_fd(h, (int)fd);
		else if (is_epoll((int)fd))
			scan_epoll(h, (int)fd);
	}
	closedir(d);
	return true;
}

/* The open file's own state, which its descriptors share: the status
 * flags (O_NONBLOCK, O_ASYNC) and, for O_ASYNC, whom it signals. */
static int copy_file_state(int fd, int nfd)
{
	struct f_owner_ex own;
	int fl = sys_fcntl(fd, F_GETFL), sig = sys_fcntl(fd, F_GETSIG);

	if (sys_fcntl(fd, F_GETOWN_EX, &own) == 0 && own.pid != 0)
		(void)sys_fcntl(nfd, F_SETOWN_EX, &own);
	if (sig > 0)
		(void)sys_fcntl(nfd, F_SETSIG, sig);
	if (fl < 0 || sys_fcntl(nfd, F_SETFL, fl) != 0)
		return -errno;
	return 0;
}

/* nfd onto copy, which keeps its own FD_CLOEXEC. */
static int take_place(int copy, int nfd)
{
	int fdfl = sys_fcntl(copy, F_GETFD);

	if (fdfl < 0 ||
	    sys_dup3(nfd, copy, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
		return -errno;
	return 0;
}

/* The registrations again, now on the new socket: those of a descriptor
 * that was a copy (a registration made through a number since closed
 * is the old socket's alone). */
static void readd(const struct held *h)
{
	for (size_t i = 0; i < h->nregs; i++) {
		struct epoll_event ev = h->regs[i].ev;

		for (size_t j = 0; j < h->nfds; j++)
			if (h->fds[j] == h->regs[i].fd)
				(void)sys_epoll_ctl(h->regs[i].epfd,
						    EPOLL_CTL_ADD,
						    h->regs[i].fd, &ev);
	}
}

int swap_socket(int fd, int nfd, const int *known, size_t nknown)
{
	struct held h = { .fds = NULL };
	int rc;

	if (fstat(fd, &h.old) != 0)
		return -errno;
	add_fd(&h, fd);
	if (h.nfds != 1) {
		free(h.fds);
		return -ENOMEM;
	}
	(void)scan_fds(&h);
	for (size_t i = 0; i < nknown; i++)
		if (known[i] != fd && same_file(known[i], &h.old))
			add_fd(&h, known[i]);
	rc = copy_file_state(fd, nfd);
	/* fd first: if it cannot take the new socket, nothing changed. */
	for (size_t i = 0; i < h.nfds && rc == 0; i++) {
		int r = take_place(h.fds[i], nfd);

		if (i == 0)
			rc = r;
	}
	if (rc == 0)
		readd(&h);
	free(h.fds);
	free(h.regs);
	return rc;
}
