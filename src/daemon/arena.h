/* SPDX-License-Identifier: ISC */
/*
 * arena - the state arenas: one per client process (wire.h: struct
 * wire_shm), a sealed memfd the daemon maps, hands out once and does not
 * keep, so that a socket's state costs the daemon no descriptor.  A
 * process's later connections, and its forked children's, name theirs by
 * its token.  An arena lives while a connection uses it or a socket
 * has a slot in it (a reference each).  One left without a connection
 * (a process that forked and exited, whose child reads its sockets'
 * state there) "lingers": a user has at most ARENA_LINGER_UID of them and
 * all users ARENA_LINGER_ALL, the oldest one's slots given back past
 * that (sstate_linger), so that arenas are bounded (one user once made
 * 65,000, one at a time, with one socket, and took the daemon's every
 * mapping).
 *
 * Any user can make arenas come and go a thousand times a second (a
 * connection, HELLO, close), so nothing here walks all of them: they are
 * found by token in a hash table (keyed with a secret), the lingering
 * ones are kept oldest first, per user and in all, and each slot knows
 * its owner, so that giving back an arena's slots costs that arena's
 * slots alone.
 */
#ifndef PSD_ARENA_H
#define PSD_ARENA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire/wire.h"

struct arenas;
struct arena;

/* The daemon's set of arenas, empty; NULL on ENOMEM. */
struct arenas *arenas_new(void);
/* Free the set, which must be empty (its arenas all put and given back). */
void arenas_free(struct arenas *as);

/*
 * The arena of uid's whose token is token (WIRE_NONCE_LEN bytes), or a
 * new one of uid's if there is none such (*fd: its memfd, to hand out and
 * close; -1 when it is not new); a reference taken.  Another user's token
 * names nothing: a leaked one lets no one fill its owner's slots.  NULL
 * with errno on failure (EMFILE, ENOMEM...).
 */
struct arena *arena_get(struct arenas *as, const uint8_t *token, uid_t uid,
			int *fd);
#define ARENA_LINGER_UID 64
#define ARENA_LINGER_ALL 4096

/* A connection's reference given back; the last reference unmaps and
 * frees it. */
void arena_put(struct arenas *as, struct arena *a);
/* Will a linger once the caller's connection, its last, gives it back
 * (sockets' slots keep it)? */
bool arena_will_linger(const struct arena *a);
/* Does a linger now (no connection, kept by slots)? */
bool arena_lingers(const struct arena *a);
uid_t arena_uid(const struct arena *a);
/* The arena that has lingered longest, of uid (of anyone if any), and
 * how many linger so (*n); NULL if none. */
struct arena *arena_lingerer(struct arenas *as, uid_t uid, bool any,
			     unsigned *n);
const uint8_t *arena_token(const struct arena *a);

/* A free slot (a reference taken), or 0 if it is full or there is no
 * memory for its owner's record.  owner (NULL for none) is told of it by
 * arena_evict() as owner's idx-th. */
uint32_t arena_slot_take(struct arena *a, void *owner, uint32_t idx);
/* The slot's owner now knows it as its idx-th. */
void arena_slot_move(struct arena *a, uint32_t slot, uint32_t idx);
/* Give a slot back (zeroed), and its reference. */
void arena_slot_give(struct arenas *as, struct arena *a, uint32_t slot);
struct wire_shm *arena_slot(struct arena *a, uint32_t slot);

/*
 * Give back every slot of a that has an owner, forget(owner, idx, arg)
 * called first for each (so that the owner drops it); a goes if that
 * was its last reference.  Costs the most slots a has ever had handed
 * out at once (at most WIRE_ARENA_SLOTS), not the daemon's slots.
 */
void arena_evict(struct arenas *as, struct arena *a,
		 void (*forget)(void *owner, uint32_t idx, void *arg),
		 void *arg);

/* Test hook: list and chain entries looked at, ever. */
uint64_t arena_steps(void);

#endif
