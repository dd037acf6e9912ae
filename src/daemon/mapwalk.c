/* SPDX-License-Identifier: ISC */
#include "daemon/mapwalk.h"

#include <string.h>

size_t mapwalk_prune(const struct mapwalk_ops *ops, void *map, size_t keylen,
		     size_t max_steps, bool (*drop)(void *ctx, const void *key),
		     void *ctx)
{
	/* Zeroed: valgrind does not see bpf() fill them in. */
	unsigned char key[MAPWALK_KEY_MAX] = { 0 };
	unsigned char next[MAPWALK_KEY_MAX] = { 0 };
	size_t steps = 1, gone = 0;
	bool more;

	if (keylen > MAPWALK_KEY_MAX || max_steps == 0)
		return 0;
	more = ops->next(map, NULL, key) == 0;
	while (more) {
		/* The next key first: after the delete, key leads nowhere. */
		more = steps++ < max_steps && ops->next(map, key, next) == 0;
		if (drop(ctx, key) && ops->del(map, key) == 0)
			gone++;
		if (more)
			memcpy(key, next, keylen);
	}
	return gone;
}
