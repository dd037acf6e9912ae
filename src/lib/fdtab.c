#include "lib/fdtab.h"
#include "lib/shimapi.h"
#include "pingsock.h"

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The hot paths' view, without the lock: one byte per low descriptor, 1
 * when a call on it may need the library (a daemon socket, a broker
 * socket not used yet), 0 when it is a plain libc call (not ours, the
 * kernel's own socket, a broker socket once used).  Higher descriptors
 * always take the table.
 */
#define FDTAB_QUICK 65536
static _Atomic unsigned char quick[FDTAB_QUICK];

static void quick_set(int fd, const struct fdent *e)
{
	if (fd >= 0 && fd < FDTAB_QUICK)
		atomic_store_explicit(&quick[fd],
				      e && (e->backend == PINGSOCK_BACKEND_DAEMON ||
					    (e->used && !atomic_load(e->used))),
				      memory_order_relaxed);
}

bool fdtab_plain(int fd)
{
	if (fd < 0)
		return true;	/* EBADF, or ignored by poll: the kernel's */
	return fd < FDTAB_QUICK &&
	       !atomic_load_explicit(&quick[fd], memory_order_relaxed);
}

void fdtab_set_plain(int fd)
{
	quick_set(fd, NULL);
}
static struct fdent *tab;
static size_t ntab;

bool fdtab_get(int fd, struct fdent *out)
{
	bool ok = false;

	memset(out, 0, sizeof(*out));	/* backend NONE when not ours */
	if (fd < 0)
		return false;
	pthread_mutex_lock(&lock);
	if ((size_t)fd < ntab && tab[fd].backend) {
		*out = tab[fd];
		ok = true;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

static int grow(size_t need)
{
	size_t n = ntab ? ntab : 64;
	struct fdent *t;

	while (n <= need)
		n *= 2;
	t = realloc(tab, n * sizeof(*t));
	if (!t)
		return -1;
	memset(t + ntab, 0, (n - ntab) * sizeof(*t));
	tab = t;
	ntab = n;
	return 0;
}

int fdtab_set(int fd, const struct fdent *ent)
{
	int rc = 0;

	pthread_mutex_lock(&lock);
	if ((size_t)fd >= ntab && grow((size_t)fd))
		rc = -1;
	else
		tab[fd] = *ent;
	if (!rc)
		quick_set(fd, ent);
	pthread_mutex_unlock(&lock);
	if (rc)
		errno = ENOMEM;
	return rc;
}

void fdtab_clear(int fd)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < ntab)
		memset(&tab[fd], 0, sizeof(tab[fd]));
	quick_set(fd, NULL);
	pthread_mutex_unlock(&lock);
}

void fdtab_set_stamp(int fd, const struct timespec *ts)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < ntab && tab[fd].backend) {
		tab[fd].stamp = *ts;
		tab[fd].has_stamp = true;
	}
	pthread_mutex_unlock(&lock);
}

/* Set one flag of fd's entry, if it has one. */
static void set_flag(int fd, size_t off, bool v)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < ntab && tab[fd].backend)
		*(bool *)((char *)&tab[fd] + off) = v;
	pthread_mutex_unlock(&lock);
}

void fdtab_clear_keep(int fd)
{
	set_flag(fd, offsetof(struct fdent, keep_ident), false);
}

void fdtab_set_raw(int fd)
{
	set_flag(fd, offsetof(struct fdent, raw), true);
}

void fdtab_set_attached(int fd, uint32_t handle, pid_t pid,
			struct wire_shm **shm, int *errfd, struct fdent *out)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < ntab && tab[fd].backend) {
		struct fdent *e = &tab[fd];

		e->handle = handle;
		e->attached = pid;
		if (!e->shm && *shm) {
			e->shm = *shm;
			*shm = NULL;
		}
		if (e->errfd < 0 && *errfd >= 0) {
			e->errfd = *errfd;
			*errfd = -1;
		}
		*out = *e;
	}
	pthread_mutex_unlock(&lock);
}

int fdtab_dup(int oldfd, int newfd)
{
	int rc = 0, err = 0;

	if (oldfd < 0 || newfd < 0) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&lock);
	if ((size_t)oldfd >= ntab || !tab[oldfd].backend)
		rc = -1, err = EBADF;
	else if ((size_t)newfd >= ntab && grow((size_t)newfd))
		rc = -1, err = ENOMEM;
	else
		tab[newfd] = tab[oldfd];
	if (!rc)
		quick_set(newfd, &tab[newfd]);
	pthread_mutex_unlock(&lock);
	if (rc)
		errno = err;
	return rc;
}

bool fdtab_drop_if_shared(int fd)
{
	bool shared = false;

	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < ntab && tab[fd].backend &&
	    (tab[fd].shm || tab[fd].bk)) {
		for (size_t i = 0; i < ntab && !shared; i++)
			shared = i != (size_t)fd && tab[i].backend &&
				 tab[i].shm == tab[fd].shm &&
				 tab[i].bk == tab[fd].bk;
		if (shared) {
			memset(&tab[fd], 0, sizeof(tab[fd]));
			quick_set(fd, NULL);
		}
	}
	pthread_mutex_unlock(&lock);
	return shared;
}

int fdtab_next(int from)
{
	int fd = -1;

	pthread_mutex_lock(&lock);
	for (size_t i = from < 0 ? 0 : (size_t)from; i < ntab && fd < 0; i++)
		if (tab[i].backend)
			fd = (int)i;
	pthread_mutex_unlock(&lock);
	return fd;
}

size_t fdtab_errfds(int *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntab; i++) {
		int fd = tab[i].bk ? tab[i].livefd : tab[i].errfd;

		if (!tab[i].backend || fd < 0)
			continue;
		if (n < max)
			out[n] = fd;
		n++;
	}
	pthread_mutex_unlock(&lock);
	return n;
}
