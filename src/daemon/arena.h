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
 */
#ifndef PSD_ARENA_H
#define PSD_ARENA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire/wire.h"

struct arena;

/*
 * The arena of uid's whose token is token (WIRE_NONCE_LEN bytes), or a
 * new one of uid's if there is none such (*fd: its memfd, to hand out and
 * close; -1 when it is not new); a reference taken.  Another user's token
 * names nothing: a leaked one lets no one fill its owner's slots.  *head
 * is the list of them all.  NULL with errno on failure (EMFILE, ENOMEM...).
 */
struct arena *arena_get(struct arena **head, const uint8_t *token, uid_t uid,
			int *fd);
#define ARENA_LINGER_UID 64
#define ARENA_LINGER_ALL 4096

/* A connection's reference given back; the last reference unmaps and
 * frees it. */
void arena_put(struct arena **head, struct arena *a);
/* Will a linger once the caller's connection, its last, gives it back
 * (sockets' slots keep it)? */
bool arena_will_linger(const struct arena *a);
uid_t arena_uid(const struct arena *a);
/* The arena that has lingered longest, of uid (of anyone if any), and
 * how many linger so (*n); NULL if none. */
struct arena *arena_lingerer(struct arena *head, uid_t uid, bool any,
			     unsigned *n);
const uint8_t *arena_token(const struct arena *a);

/* A free slot (a reference taken), or 0 if it is full. */
uint32_t arena_slot_take(struct arena *a);
/* Give a slot back (zeroed), and its reference. */
void arena_slot_give(struct arena **head, struct arena *a, uint32_t slot);
struct wire_shm *arena_slot(struct arena *a, uint32_t slot);

#endif
