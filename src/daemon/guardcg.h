/* SPDX-License-Identifier: ISC */
/*
 * guardcg - the cgroup (v2) broker mode's BPF guard runs in (guard.h):
 * every socket the daemon makes belongs to it for life, so the guard's
 * programs, attached to it, see every packet of every brokered socket.
 * Only root may move processes into it or out of it: a cgroup delegated
 * to a user (as systemd's user@.service is) is refused.
 */
#ifndef PSD_GUARDCG_H
#define PSD_GUARDCG_H

#include <stddef.h>

#include "engine/policy.h"

/*
 * As root: p->bpf_cgroup (made if missing), or the daemon's own cgroup if
 * it is alone there (a service's), or pingsockd below it (below the
 * cgroup2 mount for the root cgroup); the daemon joins it.  Its
 * descriptor, or -1 with err filled.
 */
int guardcg_pick(const struct policy *p, char *err, size_t errlen);

#endif
