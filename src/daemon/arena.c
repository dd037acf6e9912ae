/* SPDX-License-Identifier: ISC */
#include "daemon/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

struct arena {
	uint8_t token[WIRE_NONCE_LEN];
	uid_t uid;		/* whose it is */
	struct wire_shm *base;
	unsigned refs;		/* connections and slots */
	unsigned conns;		/* connections alone */
	uint64_t lingering;	/* no connection since (a count), or 0 */
	uint32_t next;		/* slots below it have been handed out */
	uint32_t *free;		/* slots given back */
	uint32_t nfree, capfree;
	struct arena *next_arena;
};

/*
 * The memfd, mapped: sealed so that it can never shrink under the
 * daemon's mapping (a fault), nor be mapped writable by anyone else (the
 * client maps it read-only, and no one but the daemon writes a slot).
 */
static int arena_map(struct arena *a)
{
	int fd = memfd_create("pingsock-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p = MAP_FAILED;

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)WIRE_ARENA_SIZE) == 0)
		p = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
				   F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0) {
		int err = errno;

		if (p != MAP_FAILED)
			munmap(p, WIRE_ARENA_SIZE);
		close(fd);
		errno = err;
		return -1;
	}
	a->base = p;
	atomic_store(&a->base[0].cmsg, WIRE_ARENA_MAGIC);
	return fd;
}

static struct arena *arena_new(struct arena **head, uid_t uid, int *fd)
{
	struct arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->uid = uid;
	if (getrandom(a->token, sizeof(a->token), 0) != sizeof(a->token) ||
	    (*fd = arena_map(a)) < 0) {
		int err = errno;

		free(a);
		errno = err ? err : EIO;
		return NULL;
	}
	a->next = 1;
	a->next_arena = *head;
	*head = a;
	return a;
}

static bool token_zero(const uint8_t *t)
{
	for (size_t i = 0; i < WIRE_NONCE_LEN; i++)
		if (t[i])
			return false;
	return true;
}

struct arena *arena_get(struct arena **head, const uint8_t *token, uid_t uid,
			int *fd)
{
	struct arena *a = NULL;

	*fd = -1;
	/* Never a zero token: a new one is made for it.  The compare
	 * runs in the same time whatever the bytes (a token is a
	 * capability). */
	for (struct arena *x = *head; x && !token_zero(token); x = x->next_arena) {
		unsigned diff = 0;

		for (size_t i = 0; i < WIRE_NONCE_LEN; i++)
			diff |= x->token[i] ^ token[i];
		if (!diff && x->uid == uid)
			a = x;
	}
	if (!a)
		a = arena_new(head, uid, fd);
	if (a) {
		a->refs++;
		a->conns++;
		a->lingering = 0;
	}
	return a;
}

/* A reference given back; the last one unmaps and frees it. */
static void unref(struct arena **head, struct arena *a)
{
	if (--a->refs)
		return;
	for (struct arena **p = head; *p; p = &(*p)->next_arena) {
		if (*p == a) {
			*p = a->next_arena;
			break;
		}
	}
	munmap(a->base, WIRE_ARENA_SIZE);
	free(a->free);
	free(a);
}

void arena_put(struct arena **head, struct arena *a)
{
	static uint64_t lingered;

	if (!a)
		return;
	if (--a->conns == 0)
		a->lingering = ++lingered;
	unref(head, a);
}

bool arena_will_linger(const struct arena *a)
{
	return a && a->conns == 1 && a->refs > 1;
}

uid_t arena_uid(const struct arena *a)
{
	return a->uid;
}

struct arena *arena_lingerer(struct arena *head, uid_t uid, bool any,
			     unsigned *n)
{
	struct arena *oldest = NULL;

	*n = 0;
	for (struct arena *a = head; a; a = a->next_arena) {
		if (!a->lingering || (!any && a->uid != uid))
			continue;
		(*n)++;
		if (!oldest || a->lingering < oldest->lingering)
			oldest = a;
	}
	return oldest;
}

const uint8_t *arena_token(const struct arena *a)
{
	return a->token;
}

uint32_t arena_slot_take(struct arena *a)
{
	uint32_t slot = 0;

	if (a->nfree)
		slot = a->free[--a->nfree];
	else if (a->next < WIRE_ARENA_SLOTS)
		slot = a->next++;
	if (slot)
		a->refs++;
	return slot;
}

void arena_slot_give(struct arena **head, struct arena *a, uint32_t slot)
{
	struct wire_shm *w = &a->base[slot];

	if (a->nfree == a->capfree) {
		uint32_t n = a->capfree ? 2 * a->capfree : 16;
		uint32_t *f = realloc(a->free, n * sizeof(*f));

		if (!f) {
			unref(head, a);	/* the slot is lost, not reused */
			return;
		}
		a->free = f;
		a->capfree = n;
	}
	atomic_store(&w->cmsg, 0);
	atomic_store(&w->shutdown, 0);
	atomic_store(&w->err, 0);
	atomic_store(&w->errq, 0);
	atomic_store(&w->tsflags, 0);
	atomic_store(&w->wakes, 0);
	atomic_store(&w->ans_seq, 0);
	atomic_store(&w->ans_result, 0);
	a->free[a->nfree++] = slot;
	unref(head, a);
}

struct wire_shm *arena_slot(struct arena *a, uint32_t slot)
{
	return &a->base[slot];
}
