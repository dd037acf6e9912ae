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
	bool linked;		/* in its chain: not replaced by a newer
				 * request of the same kind, seq and
				 * destination (reqlog_add()) */
};

struct reqlog {
	struct req *ring;
	int32_t *bucket;	/* cap * 2 heads, indexed by bucket_of() */
	uint32_t cap;		/* power of two */
	uint32_t head;		/* oldest entry */
	uint32_t count;		/* ring slots in use, replaced ones too */
	uint32_t live;		/* of them, in their chains */
	uint64_t salt;		/* of the bucket hash (reqlog_new_salted()) */
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

/* splitmix64's finaliser. */
static uint64_t mix(uint64_t h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
	return h ^ (h >> 31);
}

/*
 * A request's bucket: its key and its destination (dst NULL: any source,
 * a bucket of the key's own), hashed with the log's salt.  A reply looks
 * in the bucket of its own source and that of any source: the requests it
 * walks past are those whose hash collides, not every request with its
 * sequence number (one seq sent 65,536 times to other hosts made a
 * forged reply walk them all, on every packet).
 */
static uint32_t bucket_of(const struct reqlog *log, uint32_t key,
			  const struct ps_addr *dst)
{
	uint64_t w[2] = { 0, 0 }, h;

	if (dst)
		memcpy(w, dst->a, ps_addr_len(dst->family));
	/* Each part in a round of its own: parts combined before a round
	 * (key ^ address) collide whatever the salt. */
	h = mix(log->salt ^ key ^ ((uint64_t)(dst ? dst->family : 0xff)
				  << 32));
	h = mix(h ^ w[0]);
	h = mix(h ^ w[1]);
	return (uint32_t)h & (log->cap * 2 - 1);
}

static uint32_t bucket_of_entry(const struct reqlog *log, uint32_t idx)
{
	const struct req *r = &log->ring[idx];

	return bucket_of(log, key_of(r->probe, r->seq),
			 r->any_src ? NULL : &r->dst);
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

struct reqlog *reqlog_new_salted(uint64_t salt)
{
	struct reqlog *log = calloc(1, sizeof(*log));

	if (log && alloc_arrays(log, REQLOG_MIN)) {
		free(log);
		return NULL;
	}
	if (log)
		log->salt = salt;
	return log;
}

struct reqlog *reqlog_new(void)
{
	return reqlog_new_salted(0);
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
	log->ring[idx].linked = true;
	log->live++;
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
	r->linked = false;
	log->live--;
	log->steps++;
}

/* The entries still in their chains, into arrays of cap entries. */
static int rebuild(struct reqlog *log, uint32_t cap)
{
	struct reqlog bigger = { .salt = log->salt };
	uint32_t i, n;

	if (alloc_arrays(&bigger, cap))
		return -1;
	n = 0;
	for (i = 0; i < log->count; i++) {	/* the replaced ones go */
		const struct req *r =
			&log->ring[(log->head + i) & (log->cap - 1)];

		if (!r->linked)
			continue;
		bigger.ring[n] = *r;
		link_entry(&bigger, n++);
	}
	free(log->ring);
	free(log->bucket);
	log->ring = bigger.ring;
	log->bucket = bigger.bucket;
	log->cap = bigger.cap;
	log->head = 0;
	log->count = n;
	log->live = n;
	return 0;
}

/* Would an add at now_s grow the ring (full, its oldest still young)? */
static bool wants_growth(const struct reqlog *log, uint64_t now_s)
{
	return log->count == log->cap && log->live > log->cap / 2 &&
	       log->cap < REQLOG_MAX &&
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

/*
 * The same request sent again (kind, seq, destination): the older entry
 * leaves its chain (its ring slot stays until recycled), so that a chain
 * holds each request once, however often it is repeated.  Looked for
 * among the first REPLACE_LOOK of the chain only (the newest): every
 * send pays this, and one not replaced is only kept twice.
 */
#define REPLACE_LOOK 8

static void replace_same(struct reqlog *log, bool probe, uint16_t seq,
			 const struct ps_addr *dst, bool any_src)
{
	int32_t i = log->bucket[bucket_of(log, key_of(probe, seq),
					  any_src ? NULL : dst)];

	for (int n = 0; i >= 0 && n < REPLACE_LOOK;
	     i = log->ring[i].next, n++) {
		const struct req *r = &log->ring[i];

		if (r->probe == probe && r->seq == seq &&
		    r->any_src == any_src &&
		    (any_src || ps_addr_eq(&r->dst, dst))) {
			unlink_entry(log, (uint32_t)i);
			return;
		}
	}
}

int reqlog_add(struct reqlog *log, bool probe, uint16_t seq,
	       const struct ps_addr *dst, bool any_src, uint64_t now_s)
{
	uint32_t idx;

	if (log->count == log->cap) {
		/* Half of it replaced: made room for at the same size. */
		if (log->live <= log->cap / 2 ? rebuild(log, log->cap) == 0
		    : wants_growth(log, now_s) && !log->no_grow &&
		      rebuild(log, log->cap * 2) == 0) {
			/* room now */
		} else {
			if (log->ring[log->head].linked)
				unlink_entry(log, log->head);
			log->head = (log->head + 1) & (log->cap - 1);
			log->count--;
		}
	}
	replace_same(log, probe, seq, dst, any_src);
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
	log->live = 0;
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

/* Does an entry of the chain from i answer?  *walked: entries seen. */
static bool chain_answers(const struct reqlog *log, int32_t i,
			  enum icmp_match how, uint16_t seq,
			  const struct ps_addr *src, unsigned *walked)
{
	for (; i >= 0; i = log->ring[i].next) {
		const struct req *r = &log->ring[i];

		++*walked;
		if (answers(r, how, seq) &&
		    (r->any_src || ps_addr_eq(&r->dst, src)))
			return true;
	}
	return false;
}

static bool match(const struct reqlog *log, enum icmp_match how, uint16_t seq,
		  const struct ps_addr *src, unsigned *walked)
{
	uint32_t key = key_of(how != ICMP_M_ECHO, seq);

	return chain_answers(log, log->bucket[bucket_of(log, key, src)], how,
			     seq, src, walked) ||
	       chain_answers(log, log->bucket[bucket_of(log, key, NULL)], how,
			     seq, src, walked);
}

bool reqlog_match(const struct reqlog *log, enum icmp_match how, uint16_t seq,
		  const struct ps_addr *src)
{
	unsigned walked = 0;

	return match(log, how, seq, src, &walked);
}

unsigned reqlog_match_cost(const struct reqlog *log, enum icmp_match how,
			   uint16_t seq, const struct ps_addr *src)
{
	unsigned walked = 0;

	(void)match(log, how, seq, src, &walked);
	return walked;
}

unsigned reqlog_count(const struct reqlog *log)
{
	return log->count;
}

uint64_t reqlog_steps(const struct reqlog *log)
{
	return log->steps;
}
