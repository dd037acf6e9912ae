/* SPDX-License-Identifier: ISC */
/*
 * share - each user's share of the event loop: the connections of one
 * user are watched in one loop group (loop.h), so that the loop serves
 * users in turn, not connections.  Without it a user with a thousand
 * connections would be served a thousand times for another user's once;
 * with it, the other user waits behind at most a quantum of the busy
 * user's requests, however many connections that user has.
 */
#ifndef PSD_SHARE_H
#define PSD_SHARE_H

#include <stdbool.h>
#include <sys/types.h>

struct loop;
struct loop_group;
struct shares;

struct shares *shares_new(struct loop *l);
/* Every group must have been put back before. */
void shares_free(struct shares *t);

/*
 * uid's group, made on the first get (*made set: charge it a descriptor,
 * which it takes from its second member on);
 * NULL: no memory or descriptor.  Each get is matched by one put, which
 * says whether it was the last (the group and its descriptor gone).
 */
struct loop_group *share_get(struct shares *t, uid_t uid, bool *made);
bool share_put(struct shares *t, uid_t uid);

#endif
