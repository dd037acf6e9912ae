/*
 * uidtab - what the daemon counts per user: open sockets (max_sockets)
 * and the send rate's token bucket (rate, burst).  An entry lives while
 * the user has a socket or a bucket that is not full again.
 */
#ifndef PSD_UIDTAB_H
#define PSD_UIDTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/rate.h"

struct uident {
	uid_t uid;
	unsigned nsockets;
	struct rate_bucket bucket;
	struct uident *next;
};

struct uidtab;

struct uidtab *uidtab_new(void);
void uidtab_free(struct uidtab *t);
/* The entry of uid; with create, made if missing (NULL: no memory). */
struct uident *uidtab_get(struct uidtab *t, uid_t uid, bool create);
/* Forget the users with nothing left to remember at now. */
void uidtab_prune(struct uidtab *t, uint64_t now);
/* Users with an entry, for the statistics. */
unsigned uidtab_count(const struct uidtab *t);

#endif
