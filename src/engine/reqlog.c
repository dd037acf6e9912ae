/* SPDX-License-Identifier: ISC */
#include "engine/reqlog.h"

#include <stdlib.h>
#include <string.h>

#define REQLOG_MIN 16

struct req {
	struct ps_addr dst;
	uint64_t when;
	int32_t next;		/* next entry in the same bucket, or -1 */
	int32_t prev;		/* the one before it, or -1: forgetting
				 * the oldest, last in its chain, takes no
				 * walk (one sequence number for every
				 * request made chains of 65,536) */
	uint16_t seq;		/* as sent */
	bool probe;		/* an Extended Echo Request */
	bool any_src;
};

struct reqlog {
	struct req *ring;
	int32_t *bucket;	/* cap * 2 heads, indexed by key_of() */
	uint32_t cap;		/* power of two */
	uint32_t head;		/* oldest entry */
	uint32_t count;
	bool no_grow;		/* reqlog_may_grow(false) */
	uint64_t steps;		/* chain links followed to forget entries */
};

/* What cap entries take: the ring, and two bucket heads an entry. */
static size_t bytes_for(uint32_t cap)
{
	return (size_t)cap * (sizeof(struct req) + 2 * sizeof(int32_t));
}

/*
 * The bucket key: an Echo Request's whole sequence field; a PROBE's
 * sequence number only (its reply changes the low byte), marked apart
 * so that the two kinds do not share chains needlessly.
 */
static uint32_t key_of(bool probe, uint16_t seq)
{
	return probe ? 0x10000u | (uint32_t)(seq >> 8) : seq;
}

static uint32_t bucket_of(const struct reqlog *log, uint32_t key)
{
	return (key * 2654435761u >> 8) & (log->cap * 2 - 1);
}

static uint32_t bucket_of_entry(const struct reqlog *log, uint32_t idx)
{
	const struct req *r = &log->ring[idx];

	return bucket_of(log, key_of(r->probe, r->seq));
}

static int alloc_arrays(struct reqlog *log, uint32_t cap)
{
	log->ring = calloc(cap, sizeof(*log->ring));
	log->bucket = malloc((size_t)cap * 2 * sizeof(*log->bucket));
	if (!log->ring || !log->bucket) {
		free(log->ring);
		free(log->bucket);
		return -1;
	}
	memset(log->bucket, 0xff, (size_t)cap * 2 * sizeof(*log->bucket));
	log->cap = cap;
	return 0;
}

struct reqlog *reqlog_new(void)
{
	struct reqlog *log = calloc(1, sizeof(*log));

	if (log && alloc_arrays(log, REQLOG_MIN)) {
		free(log);
		return NULL;
	}
	return log;
}

void reqlog_free(struct reqlog *log)
{
	if (!log)
		return;
	free(log->ring);
	free(log->bucket);
	free(log);
}

static void link_entry(struct reqlog *log, uint32_t idx)
{
	uint32_t b = bucket_of_entry(log, idx);

	log->ring[idx].next = log->bucket[b];
	log->ring[idx].prev = -1;
	if (log->bucket[b] >= 0)
		log->ring[log->bucket[b]].prev = (int32_t)idx;
	log->bucket[b] = (int32_t)idx;
}

static void unlink_entry(struct reqlog *log, uint32_t idx)
{
	struct req *r = &log->ring[idx];

	if (r->prev >= 0)
		log->ring[r->prev].next = r->next;
	else
		log->bucket[bucket_of_entry(log, idx)] = r->next;
	if (r->next >= 0)
		log->ring[r->next].prev = r->prev;
	log->steps++;
}

static int grow(struct reqlog *log)
{
	struct reqlog bigger;
	uint32_t i;

	if (alloc_arrays(&bigger, log->cap * 2))
		return -1;
	for (i = 0; i < log->count; i++) {
		bigger.ring[i] = log->ring[(log->head + i) & (log->cap - 1)];
		link_entry(&bigger, i);
	}
	free(log->ring);
	free(log->bucket);
	log->ring = bigger.ring;
	log->bucket = bigger.bucket;
	log->cap = bigger.cap;
	log->head = 0;
	return 0;
}

/* Would an add at now_s grow the ring (full, its oldest still young)? */
static bool wants_growth(const struct reqlog *log, uint64_t now_s)
{
	return log->count == log->cap && log->cap < REQLOG_MAX &&
	       now_s - log->ring[log->head].when < REQLOG_KEEP_S;
}

size_t reqlog_growth(const struct reqlog *log, uint64_t now_s)
{
	return wants_growth(log, now_s)
		       ? bytes_for(log->cap * 2) - bytes_for(log->cap)
		       : 0;
}

void reqlog_may_grow(struct reqlog *log, bool may)
{
	log->no_grow = !may;
}

size_t reqlog_bytes(const struct reqlog *log)
{
	return bytes_for(log->cap) - bytes_for(REQLOG_MIN);
}

int reqlog_add(struct reqlog *log, bool probe, uint16_t seq,
	       const struct ps_addr *dst, bool any_src, uint64_t now_s)
{
	uint32_t idx;

	if (log->count == log->cap) {
		if (wants_growth(log, now_s) && !log->no_grow &&
		    grow(log) == 0) {
			/* room now */
		} else {
			unlink_entry(log, log->head);
			log->head = (log->head + 1) & (log->cap - 1);
			log->count--;
		}
	}
	idx = (log->head + log->count) & (log->cap - 1);
	log->ring[idx].seq = seq;
	log->ring[idx].probe = probe;
	log->ring[idx].dst = *dst;
	log->ring[idx].any_src = any_src;
	log->ring[idx].when = now_s;
	link_entry(log, idx);
	log->count++;
	return 0;
}

void reqlog_clear(struct reqlog *log)
{
	memset(log->bucket, 0xff, (size_t)log->cap * 2 * sizeof(*log->bucket));
	log->head = 0;
	log->count = 0;
}

static bool answers(const struct req *r, enum icmp_match how, uint16_t seq)
{
	switch (how) {
	case ICMP_M_ECHO:
		return !r->probe && r->seq == seq;
	case ICMP_M_PROBE:
		return r->probe && r->seq == seq;
	case ICMP_M_PROBE_REPLY:
		return r->probe && (r->seq >> 8) == (seq >> 8);
	}
	return false;
}

bool reqlog_match(const struct reqlog *log, enum icmp_match how, uint16_t seq,
		  const struct ps_addr *src)
{
	int32_t i = log->bucket[bucket_of(log, key_of(how != ICMP_M_ECHO,
						      seq))];

	for (; i >= 0; i = log->ring[i].next) {
		const struct req *r = &log->ring[i];

		if (answers(r, how, seq) &&
		    (r->any_src || ps_addr_eq(&r->dst, src)))
			return true;
	}
	return false;
}

unsigned reqlog_count(const struct reqlog *log)
{
	return log->count;
}

uint64_t reqlog_steps(const struct reqlog *log)
{
	return log->steps;
}
