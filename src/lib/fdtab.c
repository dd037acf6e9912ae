/* SPDX-License-Identifier: ISC */
#include "lib/fdtab.h"
#include "lib/lock.h"
#include "lib/shimapi.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The kinds: one atomic byte per descriptor, in chunks of 64 Ki made on
 * first use (under the lock) and never freed, so that a reader needs no
 * lock for any descriptor number.  The directory of chunks covers every
 * int: 32 Ki pointers of zeroed memory, untouched until used.
 */
#define CHUNK_BITS 16
#define CHUNK (1u << CHUNK_BITS)
#define NCHUNKS (1u << (31 - CHUNK_BITS))

static _Atomic(_Atomic uint8_t *) kinds[NCHUNKS];

/* The entries, indexed by descriptor: under LOCK_FDTAB. */
static struct fdent *tab;
static size_t ntab;
/* Entries of relayed and broker sockets (fdtab_has_sockets). */
static atomic_size_t nsockets;
/* Entries of relayed sockets and of descriptors from across exec that may
 * be (fdtab_has_relayed). */
static atomic_size_t nrelayed;
/* One more than the highest descriptor ever given an entry (fdtab_bound);
 * written under the lock. */
static atomic_int bound;

enum fdkind fdtab_kind(int fd)
{
	_Atomic uint8_t *chunk;

	if (fd < 0)
		return FDK_NONE;
	chunk = atomic_load_explicit(&kinds[(unsigned)fd >> CHUNK_BITS],
				     memory_order_acquire);
	if (!chunk)
		return FDK_NONE;
	return (enum fdkind)atomic_load_explicit(&chunk[fd & (CHUNK - 1)],
						 memory_order_relaxed);
}

bool fdtab_has_sockets(void)
{
	return atomic_load_explicit(&nsockets, memory_order_relaxed) > 0;
}

bool fdtab_has_relayed(void)
{
	return atomic_load_explicit(&nrelayed, memory_order_relaxed) > 0;
}

int fdtab_bound(void)
{
	return atomic_load_explicit(&bound, memory_order_acquire);
}

/* Under the lock: fd's chunk, made if need be; NULL without memory. */
static _Atomic uint8_t *chunk_of(int fd)
{
	_Atomic(_Atomic uint8_t *) *dir = &kinds[(unsigned)fd >> CHUNK_BITS];
	_Atomic uint8_t *chunk = atomic_load_explicit(dir, memory_order_acquire);

	if (!chunk) {
		chunk = calloc(CHUNK, sizeof(*chunk));
		if (chunk)
			atomic_store_explicit(dir, chunk, memory_order_release);
	}
	return chunk;
}

/* Under the lock, with the chunk made (make_room). */
static void kind_store(int fd, enum fdkind k)
{
	_Atomic uint8_t *chunk = chunk_of(fd);

	if (chunk)
		atomic_store_explicit(&chunk[fd & (CHUNK - 1)], (uint8_t)k,
				      memory_order_relaxed);
}

static bool counted(enum fdkind k)
{
	return fdkind_relayed(k) || fdkind_broker(k);
}

static bool maybe_relayed(enum fdkind k)
{
	return fdkind_relayed(k) || k == FDK_INHERITED;
}

/* Under the lock: tab[fd] = *e (kind FDK_NONE: cleared). */
static void put(int fd, const struct fdent *e)
{
	if (counted(tab[fd].kind))
		atomic_fetch_sub(&nsockets, 1);
	if (counted(e->kind))
		atomic_fetch_add(&nsockets, 1);
	if (maybe_relayed(tab[fd].kind))
		atomic_fetch_sub(&nrelayed, 1);
	if (maybe_relayed(e->kind))
		atomic_fetch_add(&nrelayed, 1);
	tab[fd] = *e;
	kind_store(fd, e->kind);
	if (e->kind != FDK_NONE &&
	    fd >= atomic_load_explicit(&bound, memory_order_relaxed))
		atomic_store_explicit(&bound, fd + 1, memory_order_release);
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

/* Under the lock: room for fd's entry and its kind byte. */
static int make_room(int fd)
{
	if ((size_t)fd >= ntab && grow((size_t)fd))
		return -1;
	return chunk_of(fd) ? 0 : -1;
}

static bool ours(int fd)
{
	return fd >= 0 && (size_t)fd < ntab && tab[fd].kind != FDK_NONE;
}

/* Does another entry share e's resources?  A broker socket's entries
 * share its bk; a relayed socket's are descriptors of its data
 * descriptor (the same inode: a dup), not just of its slot, which is the
 * daemon's word (fdtab_slot_clash). */
static bool shared(int fd, const struct fdent *e)
{
	if (!e->shm && !e->bk)
		return false;
	for (size_t i = 0; i < ntab; i++)
		if (i != (size_t)fd && tab[i].kind != FDK_NONE &&
		    tab[i].shm == e->shm && tab[i].bk == e->bk &&
		    (e->bk || (tab[i].dev == e->dev && tab[i].ino == e->ino)))
			return true;
	return false;
}

/* Under the lock: take fd's entry out, *gone as fdtab_remove says. */
static void take_out(int fd, struct fdent *gone)
{
	static const struct fdent none = { .kind = FDK_NONE };

	if (gone) {
		*gone = tab[fd];
		if (shared(fd, gone))
			gone->kind = FDK_NONE;
	}
	put(fd, &none);
}

int fdtab_add(int fd, struct fdent *ent)
{
	struct stat st;
	int err = 0;

	if (fd < 0)
		return errno = EBADF, -1;
	lock_take(LOCK_FDTAB);
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (make_room(fd))
		err = ENOMEM;
	if (!err) {
		ent->dev = st.st_dev;
		ent->ino = st.st_ino;
		put(fd, ent);
	}
	lock_give(LOCK_FDTAB);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

bool fdtab_get(int fd, struct fdent *out, struct fdent *gone)
{
	struct stat st;
	bool ok = false;

	memset(out, 0, sizeof(*out));	/* FDK_NONE when not ours */
	if (gone)
		gone->kind = FDK_NONE;
	if (fdtab_kind(fd) == FDK_NONE)
		return false;
	lock_take(LOCK_FDTAB);
	if (ours(fd)) {
		/* Under the lock: a close and a new entry for the same
		 * number in another thread cannot come in between. */
		if (fstat(fd, &st) == 0 && st.st_dev == tab[fd].dev &&
		    st.st_ino == tab[fd].ino) {
			*out = tab[fd];
			ok = true;
		} else {
			take_out(fd, gone);
		}
	}
	lock_give(LOCK_FDTAB);
	return ok;
}

/* Under the lock: the entry of another descriptor of the socket st. */
static const struct fdent *copy_of(const struct stat *st)
{
	for (size_t i = 0; i < ntab; i++)
		if (counted(tab[i].kind) && tab[i].dev == st->st_dev &&
		    tab[i].ino == st->st_ino)
			return &tab[i];
	return NULL;
}

bool fdtab_find(int fd, struct fdent *out, struct fdent *gone)
{
	const struct fdent *e;
	struct stat st;
	bool ok = false;

	if (fdtab_get(fd, out, gone) || fd < 0 || !fdtab_has_sockets())
		return out->kind != FDK_NONE;
	lock_take(LOCK_FDTAB);
	if (!ours(fd) && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    copy_of(&st) != NULL && make_room(fd) == 0) {
		/* make_room() may have moved the table: look again. */
		e = copy_of(&st);
		*out = *e;
		put(fd, out);
		ok = true;
	}
	lock_give(LOCK_FDTAB);
	return ok;
}

bool fdtab_remove(int fd, struct fdent *gone)
{
	bool had;

	if (gone)
		gone->kind = FDK_NONE;
	lock_take(LOCK_FDTAB);
	had = ours(fd);
	if (had)
		take_out(fd, gone);
	lock_give(LOCK_FDTAB);
	return had;
}

void fdtab_set_used(int fd)
{
	lock_take(LOCK_FDTAB);
	if (ours(fd) && tab[fd].kind == FDK_BROKER_FRESH) {
		tab[fd].kind = FDK_BROKER;
		kind_store(fd, FDK_BROKER);
	}
	lock_give(LOCK_FDTAB);
}

size_t fdtab_broker_fds(const struct broker_sock *bk, int *out, size_t max)
{
	size_t n = 0;

	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab; i++)
		if (tab[i].kind != FDK_NONE && tab[i].bk == bk) {
			if (n < max)
				out[n] = (int)i;
			n++;
		}
	lock_give(LOCK_FDTAB);
	return n;
}

void fdtab_broker_swapped(const struct broker_sock *bk, const struct stat *st)
{
	struct stat now;

	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab; i++) {
		if (tab[i].kind == FDK_NONE || tab[i].bk != bk ||
		    fstat((int)i, &now) != 0 || now.st_dev != st->st_dev ||
		    now.st_ino != st->st_ino)
			continue;
		tab[i].dev = st->st_dev;
		tab[i].ino = st->st_ino;
		tab[i].kind = FDK_BROKER;
		kind_store((int)i, FDK_BROKER);
	}
	lock_give(LOCK_FDTAB);
}

/* Stamps in the order they were taken (fdtab_stamp): under the lock. */
static uint64_t stamps;

/* Under the lock: is tab[i] an entry of the socket ent describes? */
static bool of_socket(size_t i, const struct fdent *ent)
{
	return counted(tab[i].kind) && tab[i].dev == ent->dev &&
	       tab[i].ino == ent->ino;
}

void fdtab_set_stamp(int fd, const struct fdent *ent,
		     const struct timespec *ts)
{
	struct fdent *e = NULL;

	lock_take(LOCK_FDTAB);
	if (fd >= 0 && (size_t)fd < ntab && of_socket((size_t)fd, ent))
		e = &tab[fd];
	/* fd is another socket's now: the stamp goes to a copy of ent's
	 * (a dup the receive went on through), never to fd's new socket,
	 * which has read nothing. */
	for (size_t i = 0; !e && i < ntab; i++)
		if (of_socket(i, ent))
			e = &tab[i];
	if (e) {
		e->stamp = *ts;
		e->stamp_seq = ++stamps;
	}
	lock_give(LOCK_FDTAB);
}

bool fdtab_stamp(const struct fdent *ent, struct timespec *ts)
{
	uint64_t last = 0;

	/* The copies of a socket have entries of their own: the latest
	 * stamp among them is the socket's. */
	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab; i++)
		if (of_socket(i, ent) && tab[i].stamp_seq > last) {
			last = tab[i].stamp_seq;
			*ts = tab[i].stamp;
		}
	lock_give(LOCK_FDTAB);
	return last != 0;
}

void fdtab_clear_keep(int fd)
{
	lock_take(LOCK_FDTAB);
	if (ours(fd))
		tab[fd].keep_ident = false;
	lock_give(LOCK_FDTAB);
}

bool fdtab_slot_clash(int fd, const struct wire_shm *shm)
{
	struct stat st, now;
	bool clash = false;

	if (fstat(fd, &st) != 0)
		return true;
	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab && !clash; i++) {
		const struct fdent *e = &tab[i];

		if (i == (size_t)fd || !fdkind_relayed(e->kind) ||
		    e->shm != shm ||
		    (e->dev == st.st_dev && e->ino == st.st_ino))
			continue;
		/* A stale entry (its descriptor closed behind the
		 * library's back) holds a slot the daemon gave back. */
		clash = fstat((int)i, &now) == 0 && now.st_dev == e->dev &&
			now.st_ino == e->ino;
	}
	lock_give(LOCK_FDTAB);
	return clash;
}

/* Every descriptor of the socket learns it: copies made while it was
 * unattached (an inherited socket past the daemon's bound, relay.c)
 * have no slot yet, and would take themselves for another socket. */
void fdtab_set_attached(int fd, uint32_t handle, pid_t pid,
			struct wire_shm *shm, struct fdent *out)
{
	lock_take(LOCK_FDTAB);
	if (ours(fd)) {
		const dev_t dev = tab[fd].dev;
		const ino_t ino = tab[fd].ino;

		for (size_t i = 0; i < ntab; i++) {
			struct fdent *e = &tab[i];

			if (i != (size_t)fd &&
			    (!fdkind_relayed(e->kind) || e->dev != dev ||
			     e->ino != ino))
				continue;
			e->handle = handle;
			e->attached = pid;
			e->shm = shm;
		}
		*out = tab[fd];
	}
	lock_give(LOCK_FDTAB);
}

int fdtab_dup(int oldfd, int newfd)
{
	int err = 0;

	if (oldfd < 0 || newfd < 0)
		return errno = EBADF, -1;
	lock_take(LOCK_FDTAB);
	if (!ours(oldfd))
		err = EBADF;
	else if (make_room(newfd))
		err = ENOMEM;
	else
		put(newfd, &tab[oldfd]);	/* the same file: its identity */
	lock_give(LOCK_FDTAB);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

int fdtab_next(int from)
{
	int fd = -1;

	lock_take(LOCK_FDTAB);
	for (size_t i = from < 0 ? 0 : (size_t)from; i < ntab && fd < 0; i++)
		if (tab[i].kind != FDK_NONE)
			fd = (int)i;
	lock_give(LOCK_FDTAB);
	return fd;
}

struct wire_shm *fdtab_slot_of(dev_t dev, ino_t ino)
{
	struct wire_shm *shm = NULL;

	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab && !shm; i++)
		if (fdkind_relayed(tab[i].kind) && tab[i].dev == dev &&
		    tab[i].ino == ino)
			shm = tab[i].shm;
	lock_give(LOCK_FDTAB);
	return shm;
}

int fdtab_fd_of(const struct fdent *ent)
{
	struct stat st;
	int fd = -1;

	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab && fd < 0; i++)
		if (counted(tab[i].kind) && tab[i].dev == ent->dev &&
		    tab[i].ino == ent->ino && fstat((int)i, &st) == 0 &&
		    st.st_dev == ent->dev && st.st_ino == ent->ino)
			fd = (int)i;
	lock_give(LOCK_FDTAB);
	return fd;
}

size_t fdtab_hidden_fds(int *out, size_t max)
{
	size_t n = 0;

	lock_take(LOCK_FDTAB);
	for (size_t i = 0; i < ntab; i++) {
		int fd = tab[i].bk ? tab[i].livefd : -1;

		if (tab[i].kind == FDK_NONE || fd < 0)
			continue;
		if (n < max)
			out[n] = fd;
		n++;
	}
	lock_give(LOCK_FDTAB);
	return n;
}
