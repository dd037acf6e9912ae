/* SPDX-License-Identifier: ISC */
/*
 * test_mapwalk - pruning a BPF hash map in one walk (src/daemon/mapwalk.c).
 *
 * The map here behaves as the kernel's hash map does for a walk
 * (htab_map_get_next_key()): keys in buckets, each bucket's keys in
 * order, and the key after a key that is not in the map is the first
 * key.  Every "next" call is counted: the cost of a prune is the number
 * of bpf() calls it makes.
 */
#include <stdint.h>
#include <string.h>

#include "daemon/mapwalk.h"
#include "check.h"

#define BUCKETS 64
#define SLOTS 8192

struct fake_map {
	uint32_t key[SLOTS];
	int next_in[SLOTS];	/* the bucket's next slot, -1: none */
	int head[BUCKETS];
	bool used[SLOTS];
	size_t nexts, dels, n;
	int32_t steal;		/* >= 0: this key is deleted behind the walk */
};

static unsigned bucket_of(uint32_t k)
{
	return (k * 2654435761u) >> 26;	/* 64 buckets */
}

static void fake_init(struct fake_map *m)
{
	memset(m, 0, sizeof(*m));
	for (int b = 0; b < BUCKETS; b++)
		m->head[b] = -1;
	m->steal = -1;
}

static void fake_add(struct fake_map *m, uint32_t k)
{
	int s = (int)m->n++;
	unsigned b = bucket_of(k);

	m->key[s] = k;
	m->used[s] = true;
	m->next_in[s] = m->head[b];
	m->head[b] = s;
}

static int find(const struct fake_map *m, uint32_t k)
{
	for (int s = m->head[bucket_of(k)]; s >= 0; s = m->next_in[s])
		if (m->key[s] == k)
			return s;
	return -1;
}

static int first_from(const struct fake_map *m, unsigned b, void *out)
{
	for (; b < BUCKETS; b++)
		if (m->head[b] >= 0) {
			memcpy(out, &m->key[m->head[b]], sizeof(uint32_t));
			return 0;
		}
	return -1;
}

static int fake_del_key(struct fake_map *m, uint32_t k)
{
	unsigned b = bucket_of(k);

	for (int *p = &m->head[b]; *p >= 0; p = &m->next_in[*p])
		if (m->key[*p] == k) {
			m->used[*p] = false;
			*p = m->next_in[*p];
			return 0;
		}
	return -1;
}

static int fake_next(void *map, const void *key, void *next)
{
	struct fake_map *m = map;
	uint32_t k;
	int s;

	m->nexts++;
	if (m->steal >= 0)	/* a BPF program's delete, meanwhile */
		fake_del_key(m, (uint32_t)m->steal);
	if (!key)
		return first_from(m, 0, next);
	memcpy(&k, key, sizeof(k));
	s = find(m, k);
	if (s < 0)
		return first_from(m, 0, next);
	if (m->next_in[s] >= 0) {
		memcpy(next, &m->key[m->next_in[s]], sizeof(k));
		return 0;
	}
	return first_from(m, bucket_of(k) + 1, next);
}

static int fake_del(void *map, const void *key)
{
	struct fake_map *m = map;
	uint32_t k;

	m->dels++;
	memcpy(&k, key, sizeof(k));
	return fake_del_key(m, k);
}

static const struct mapwalk_ops fake_ops = { fake_next, fake_del };

static bool drop_even(void *ctx, const void *key)
{
	uint32_t k;

	(void)ctx;
	memcpy(&k, key, sizeof(k));
	return k % 2 == 0;
}

static bool drop_all(void *ctx, const void *key)
{
	(void)ctx;
	(void)key;
	return true;
}

static bool drop_none(void *ctx, const void *key)
{
	(void)ctx;
	(void)key;
	return false;
}

static size_t count(const struct fake_map *m, bool even)
{
	size_t n = 0;

	for (size_t s = 0; s < m->n; s++)
		if (m->used[s] && (m->key[s] % 2 == 0) == even)
			n++;
	return n;
}

static struct fake_map map;

static void fill(uint32_t n)
{
	fake_init(&map);
	for (uint32_t k = 1; k <= n; k++)
		fake_add(&map, k * 7919u);
}

/* Half of 4,000 keys go: one walk, a "next" call a key and one more for
 * the end (the walk that started over after each delete made about
 * 4,000,000 calls). */
static void half_in_one_walk(void)
{
	fill(4000);
	CHECK_EQ(mapwalk_prune(&fake_ops, &map, 4, 1u << 20, drop_even, NULL),
		 2000);
	CHECK_EQ(count(&map, true), 0);
	CHECK_EQ(count(&map, false), 2000);
	CHECK(map.nexts <= 4001);
	CHECK_EQ(map.dels, 2000);
}

static void all_and_none(void)
{
	fill(3000);
	CHECK_EQ(mapwalk_prune(&fake_ops, &map, 4, 1u << 20, drop_none, NULL),
		 0);
	CHECK_EQ(count(&map, true) + count(&map, false), 3000);
	CHECK(map.nexts <= 3001);
	map.nexts = 0;
	CHECK_EQ(mapwalk_prune(&fake_ops, &map, 4, 1u << 20, drop_all, NULL),
		 3000);
	CHECK_EQ(count(&map, true) + count(&map, false), 0);
	CHECK(map.nexts <= 3001);
	map.nexts = 0;
	CHECK_EQ(mapwalk_prune(&fake_ops, &map, 4, 1u << 20, drop_all, NULL),
		 0);
	CHECK_EQ(map.nexts, 1);
}

/* Keys deleted behind the walk (the BPF programs do) send it back to the
 * start: it still ends, within max_steps, and deletes only what it
 * should. */
static void others_delete_meanwhile(void)
{
	fill(1000);
	map.steal = (int32_t)(500 * 7919u);
	CHECK(mapwalk_prune(&fake_ops, &map, 4, 5000, drop_even, NULL) <= 500);
	CHECK(map.nexts <= 5000);
	CHECK_EQ(count(&map, false), 500);
}

static void key_too_long(void)
{
	fill(10);
	CHECK_EQ(mapwalk_prune(&fake_ops, &map, MAPWALK_KEY_MAX + 1, 100,
			       drop_all, NULL), 0);
	CHECK_EQ(map.nexts, 0);
}

int main(void)
{
	TEST(half_in_one_walk);
	TEST(all_and_none);
	TEST(others_delete_meanwhile);
	TEST(key_too_long);
	return CHECK_DONE();
}
