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

/* Who holds a slot (NULL: a connection's answer slot, or none). */
struct owner {
	void *p;
	uint32_t idx;
};

/* Lingering arenas, oldest first: all of them, or one user's. */
struct fifo {
	struct arena *old, *young;
	unsigned n;
};
#define ALL 0			/* an arena's links in the FIFO of all */
#define MINE 1			/* and in its user's */

/* A user's arenas: how many, and the lingering ones.  Made with the
 * user's first arena, so that an arena can always linger (counted). */
struct ulinger {
	uid_t uid;
	unsigned narenas;
	struct fifo q;
	struct ulinger *next;	/* its hash chain */
};

/* A FIFO's links in one arena. */
struct link {
	struct arena *prev, *next;
};

struct arena {
	uint8_t token[WIRE_NONCE_LEN];
	uid_t uid;		/* whose it is */
	struct wire_shm *base;
	unsigned refs;		/* connections and slots */
	unsigned conns;		/* connections alone */
	bool lingering;		/* no connection, in the FIFOs below */
	struct link lk[2];	/* lingering: in all (ALL), its user's (MINE) */
	struct ulinger *ul;	/* its user's */
	uint32_t next;		/* slots below it have been handed out */
	uint32_t *free;		/* slots given back */
	uint32_t nfree, capfree;
	struct owner *own;	/* [capown]: each handed-out slot's */
	uint32_t capown;
	struct arena *hnext;	/* its chain in arenas.buck */
};

#define UL_BUCKETS 1024u

struct arenas {
	struct arena **buck;	/* by token */
	uint32_t nbuck, count;
	struct fifo lingering;	/* all of them */
	struct ulinger *ul[UL_BUCKETS];
	uint64_t salt;		/* of the hashes: uids and kept tokens can be
				 * chosen */
};

static uint64_t steps;

uint64_t arena_steps(void)
{
	return steps;
}

struct arenas *arenas_new(void)
{
	struct arenas *as = calloc(1, sizeof(*as));

	if (!as)
		return NULL;
	as->nbuck = 64;
	as->buck = calloc(as->nbuck, sizeof(void *));	/* chain heads */
	if (!as->buck) {
		free(as);
		return NULL;
	}
	if (getrandom(&as->salt, sizeof(as->salt), 0) != sizeof(as->salt))
		as->salt = (uint64_t)(uintptr_t)as * 0x9e3779b97f4a7c15u;
	return as;
}

void arenas_free(struct arenas *as)
{
	if (!as)
		return;
	free(as->buck);
	free(as);
}

/* Keyed, so that no client can tell which bucket its tokens fall in
 * (it reads each of them in HELLO's answer, and could keep only those
 * of one bucket); as->salt is the daemon's secret. */
static uint32_t token_bucket(const struct arenas *as, const uint8_t *token)
{
	uint64_t h;

	memcpy(&h, token, sizeof(h));
	h ^= as->salt;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return (uint32_t)h & (as->nbuck - 1);
}

static struct ulinger **ul_chain(struct arenas *as, uid_t uid)
{
	uint64_t h = ((uint64_t)uid ^ as->salt) * 0x9e3779b97f4a7c15u;

	return &as->ul[(h >> 32) % UL_BUCKETS];
}

/* uid's lingering arenas (made if make); NULL if none or no memory. */
static struct ulinger *ul_find(struct arenas *as, uid_t uid, bool make)
{
	struct ulinger **p = ul_chain(as, uid);
	struct ulinger *u;

	for (u = *p; u; u = u->next) {
		steps++;
		if (u->uid == uid)
			return u;
	}
	if (make && (u = calloc(1, sizeof(*u)))) {
		u->uid = uid;
		u->next = *p;
		*p = u;
	}
	return u;
}

static void ul_drop(struct arenas *as, struct ulinger *ul)
{
	for (struct ulinger **p = ul_chain(as, ul->uid); *p; p = &(*p)->next) {
		steps++;
		if (*p == ul) {
			*p = ul->next;
			free(ul);
			return;
		}
	}
}

static void fifo_push(struct fifo *q, struct arena *a, int i)
{
	a->lk[i] = (struct link){ .prev = q->young };
	*(q->young ? &q->young->lk[i].next : &q->old) = a;
	q->young = a;
	q->n++;
}

static void fifo_pull(struct fifo *q, struct arena *a, int i)
{
	struct link *l = &a->lk[i];

	*(l->prev ? &l->prev->lk[i].next : &q->old) = l->next;
	*(l->next ? &l->next->lk[i].prev : &q->young) = l->prev;
	q->n--;
}

/* a, now without a connection, lingers: the youngest, in all and in its
 * user's. */
static void linger_push(struct arenas *as, struct arena *a)
{
	fifo_push(&as->lingering, a, ALL);
	fifo_push(&a->ul->q, a, MINE);
	a->lingering = true;
}

static void linger_pull(struct arenas *as, struct arena *a)
{
	if (!a->lingering)
		return;
	fifo_pull(&as->lingering, a, ALL);
	fifo_pull(&a->ul->q, a, MINE);
	a->lingering = false;
}

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

/* Twice the buckets once there are more arenas than buckets (an
 * arena's chain then stays about one long); without the memory for it
 * the chains are only longer. */
static void grow(struct arenas *as)
{
	uint32_t n = as->nbuck * 2;
	struct arena **b;
	struct arena **old = as->buck;
	uint32_t oldn = as->nbuck;

	if (as->count <= as->nbuck || n > (1u << 24) ||
	    !(b = calloc(n, sizeof(void *))))
		return;
	as->buck = b;
	as->nbuck = n;
	for (uint32_t i = 0; i < oldn; i++) {
		while (old[i]) {
			struct arena *a = old[i];
			uint32_t k = token_bucket(as, a->token);

			old[i] = a->hnext;
			a->hnext = b[k];
			b[k] = a;
		}
	}
	free(old);
}

static struct arena *arena_new(struct arenas *as, uid_t uid, int *fd)
{
	struct arena *a = calloc(1, sizeof(*a));
	uint32_t k;

	if (!a)
		return NULL;
	a->uid = uid;
	a->ul = ul_find(as, uid, true);
	if (!a->ul) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	if (getrandom(a->token, sizeof(a->token), 0) != sizeof(a->token) ||
	    (*fd = arena_map(a)) < 0) {
		int err = errno;

		if (a->ul->narenas == 0)
			ul_drop(as, a->ul);
		free(a);
		errno = err ? err : EIO;
		return NULL;
	}
	a->ul->narenas++;
	a->next = 1;
	as->count++;
	grow(as);
	k = token_bucket(as, a->token);
	a->hnext = as->buck[k];
	as->buck[k] = a;
	return a;
}

static bool token_zero(const uint8_t *t)
{
	for (size_t i = 0; i < WIRE_NONCE_LEN; i++)
		if (t[i])
			return false;
	return true;
}

struct arena *arena_get(struct arenas *as, const uint8_t *token, uid_t uid,
			int *fd)
{
	struct arena *a = NULL;

	*fd = -1;
	/* Never a zero token: a new one is made for it.  The compare
	 * runs in the same time whatever the bytes (a token is a
	 * capability, and bound to its uid besides). */
	for (struct arena *x = token_zero(token) ? NULL
			       : as->buck[token_bucket(as, token)];
	     x; x = x->hnext) {
		unsigned diff = 0;

		steps++;
		for (size_t i = 0; i < WIRE_NONCE_LEN; i++)
			diff |= x->token[i] ^ token[i];
		if (!diff && x->uid == uid)
			a = x;
	}
	if (!a)
		a = arena_new(as, uid, fd);
	if (a) {
		a->refs++;
		a->conns++;
		linger_pull(as, a);
	}
	return a;
}

/* A reference given back; the last one unmaps and frees it. */
static void unref(struct arenas *as, struct arena *a)
{
	if (--a->refs)
		return;
	linger_pull(as, a);
	for (struct arena **p = &as->buck[token_bucket(as, a->token)]; *p;
	     p = &(*p)->hnext) {
		steps++;
		if (*p == a) {
			*p = a->hnext;
			break;
		}
	}
	as->count--;
	if (--a->ul->narenas == 0)
		ul_drop(as, a->ul);
	munmap(a->base, WIRE_ARENA_SIZE);
	free(a->free);
	free(a->own);
	free(a);
}

void arena_put(struct arenas *as, struct arena *a)
{
	if (!a)
		return;
	if (--a->conns == 0 && a->refs > 1)
		linger_push(as, a);
	unref(as, a);
}

bool arena_will_linger(const struct arena *a)
{
	return a && a->conns == 1 && a->refs > 1;
}

bool arena_lingers(const struct arena *a)
{
	return a->lingering;
}

uid_t arena_uid(const struct arena *a)
{
	return a->uid;
}

struct arena *arena_lingerer(struct arenas *as, uid_t uid, bool any,
			     unsigned *n)
{
	const struct fifo *q = &as->lingering;
	struct ulinger *ul;

	if (!any) {
		ul = ul_find(as, uid, false);
		q = ul ? &ul->q : NULL;
	}
	*n = q ? q->n : 0;
	return q ? q->old : NULL;	/* NULL when none lingers */
}

const uint8_t *arena_token(const struct arena *a)
{
	return a->token;
}

/* Room in own[] for slot; false if there is no memory for it. */
static bool own_room(struct arena *a, uint32_t slot)
{
	uint32_t n = a->capown ? a->capown : 16;
	struct owner *o;

	if (slot < a->capown)
		return true;
	while (n <= slot)
		n *= 2;
	o = realloc(a->own, n * sizeof(*o));
	if (!o)
		return false;
	memset(o + a->capown, 0, (n - a->capown) * sizeof(*o));
	a->own = o;
	a->capown = n;
	return true;
}

uint32_t arena_slot_take(struct arena *a, void *owner, uint32_t idx)
{
	uint32_t slot = 0;

	if (a->nfree)
		slot = a->free[a->nfree - 1];
	else if (a->next < WIRE_ARENA_SLOTS)
		slot = a->next;
	if (!slot || !own_room(a, slot))
		return 0;
	if (a->nfree)
		a->nfree--;
	else
		a->next++;
	a->own[slot] = (struct owner){ .p = owner, .idx = idx };
	a->refs++;
	return slot;
}

void arena_slot_move(struct arena *a, uint32_t slot, uint32_t idx)
{
	if (slot < a->capown)
		a->own[slot].idx = idx;
}

/* slot back on a's free list, zeroed (lost, never reused, without the
 * memory to list it); its reference is the caller's to give back. */
static void slot_back(struct arena *a, uint32_t slot)
{
	struct wire_shm *w = &a->base[slot];

	if (slot < a->capown)
		a->own[slot] = (struct owner){ 0 };
	if (a->nfree == a->capfree) {
		uint32_t n = a->capfree ? 2 * a->capfree : 16;
		uint32_t *f = realloc(a->free, n * sizeof(*f));

		if (!f)
			return;
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
}

void arena_slot_give(struct arenas *as, struct arena *a, uint32_t slot)
{
	slot_back(a, slot);
	unref(as, a);
}

struct wire_shm *arena_slot(struct arena *a, uint32_t slot)
{
	return &a->base[slot];
}

void arena_evict(struct arenas *as, struct arena *a,
		 void (*forget)(void *owner, uint32_t idx, void *arg),
		 void *arg)
{
	/* One more reference while its slots go, so that a stays until the
	 * end: each slot's is given back here, never the last. */
	a->refs++;
	for (uint32_t slot = 1; slot < a->next && slot < a->capown; slot++) {
		struct owner o = a->own[slot];

		steps++;
		if (!o.p)
			continue;
		forget(o.p, o.idx, arg);
		slot_back(a, slot);
		a->refs--;
	}
	unref(as, a);
}
