/* SPDX-License-Identifier: ISC */
/*
 * fake_guard - the dispatch fuzzer's daemon has no BPF guard (its
 * conf.guard is NULL, as without one): these are never reached, and are
 * here only so that it links without libbpf.
 */
#include <errno.h>

#include "daemon/guard.h"

int guard_set_policy(struct guard *g, const struct policy *p)
{
	return -ENOSYS;
}

int guard_add(struct guard *g, int fd, int family, uint16_t ident,
	      bool chosen, uid_t uid, uint64_t *cookie)
{
	return -ENOSYS;
}

bool guard_live(struct guard *g, uint64_t cookie, struct guard_tally *t)
{
	return false;
}

bool guard_closed(struct guard *g, uint64_t cookie, struct guard_tally *t)
{
	return false;
}

bool guard_alive(struct guard *g, uint64_t cookie)
{
	return false;
}

bool guard_user(struct guard *g, uid_t uid, struct guard_tally *t)
{
	return false;
}

void guard_prune_idents(struct guard *g, int family, const uint8_t *bound)
{
}

void guard_prune_users(struct guard *g, bool (*known)(void *, uid_t),
		       void *ctx)
{
}

void guard_prune_closed(struct guard *g, bool (*known)(void *, uint64_t),
			void *ctx)
{
}

void guard_refresh(struct guard *g, struct hostenv *host)
{
}

void guard_free(struct guard *g)
{
}
