/* SPDX-License-Identifier: ISC */
/*
 * mapwalk - delete the keys of a BPF hash map that a caller no longer
 * wants, in one walk.
 *
 * A hash map's "next key" after a key that is not in the map (one just
 * deleted) is its first key (htab_map_get_next_key()): a walk that deleted
 * the key it stood on started again from the beginning, and pruning d of
 * n keys cost about n * d / 2 system calls.  Here the next key is taken
 * before the current one goes.  Pure code: the map is reached through
 * mapwalk_ops (bpf() in the daemon, an array in tests/unit/test_mapwalk.c).
 */
#ifndef PS_MAPWALK_H
#define PS_MAPWALK_H

#include <stdbool.h>
#include <stddef.h>

#define MAPWALK_KEY_MAX 16	/* bytes: the guard's keys are 4 and 8 */

struct mapwalk_ops {
	/* The key after key (NULL: the first) into *next: 0, or -1 at
	 * the end (bpf_map_get_next_key()). */
	int (*next)(void *map, const void *key, void *next);
	/* Delete key: 0, or -1 (gone already). */
	int (*del)(void *map, const void *key);
};

/*
 * Delete each key of map for which drop(ctx, key) is true.  keylen: at
 * most MAPWALK_KEY_MAX.  At most max_steps "next" calls, so that a map
 * that others change meanwhile (the BPF programs add and delete keys) is
 * never walked for ever; a key missed is the next walk's.  Returns how
 * many keys this walk deleted.
 */
size_t mapwalk_prune(const struct mapwalk_ops *ops, void *map, size_t keylen,
		     size_t max_steps, bool (*drop)(void *ctx, const void *key),
		     void *ctx);

#endif
