/* SPDX-License-Identifier: ISC */
/*
 * test_reqlog - the per-socket log of recent requests
 * (src/engine/reqlog.c).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "engine/reqlog.h"
#include "check.h"

static struct ps_addr v4(uint32_t host)
{
	struct ps_addr a;

	ps_addr_v4(&a, htonl(host));
	return a;
}

/* 10.x.y.z numbered by n, to give each request its own address. */
static struct ps_addr nth(uint32_t n)
{
	return v4(0x0a000000u | (n & 0xffffff));
}

static void empty_matches_nothing(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x7f000001);

	CHECK(log != NULL);
	CHECK_EQ(reqlog_count(log), 0);
	for (unsigned s = 0; s < 65536; s += 97)
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)s, &a));
	reqlog_free(log);
	reqlog_free(NULL);
}

/* Match needs both the sequence number and the address asked. */
static void match_by_seq_and_address(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x7f000001), b = v4(0x7f000002);
	struct ps_addr a6;

	CHECK_EQ(reqlog_add(log, false, 1, &a, false, 1000), 0);
	CHECK_EQ(reqlog_add(log, false, 2, &b, false, 1000), 0);
	CHECK_EQ(reqlog_count(log), 2);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 1, &a));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 2, &b));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 1, &b));	/* seq 1 went to a */
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 2, &a));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 3, &a));	/* never sent */
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0, &a));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0x0100, &a));	/* byte-swapped seq 1 */

	/* Same bytes, other family: not the same address. */
	memset(&a6, 0, sizeof(a6));
	a6.family = AF_INET6;
	memcpy(a6.a, a.a, 4);
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 1, &a6));
	reqlog_free(log);
}

/* any_src: multicast/broadcast requests may be answered by anyone. */
static void any_src_matches_every_address(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr grp = v4(0xe0000001), x = v4(0x0a000005);
	struct ps_addr y = v4(0xc0a80001), uni = v4(0x0a000009);

	reqlog_add(log, false, 5, &grp, true, 0);
	reqlog_add(log, false, 6, &uni, false, 0);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 5, &x));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 5, &y));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 5, &grp));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 4, &x));	/* still by seq */
	CHECK(reqlog_match(log, ICMP_M_ECHO, 6, &uni));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 6, &x));	/* unicast stays strict */
	reqlog_free(log);
}

/* The same seq sent twice (to two hosts, or the same one). */
static void duplicate_seqs(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x0a000001), b = v4(0x0a000002);
	struct ps_addr c = v4(0x0a000003);

	reqlog_add(log, false, 7, &a, false, 10);
	reqlog_add(log, false, 7, &b, false, 10);
	reqlog_add(log, false, 7, &a, false, 11);
	CHECK_EQ(reqlog_count(log), 3);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &a));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &b));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 7, &c));

	/* Many requests with one seq (seq wrapped many times). */
	for (uint32_t i = 0; i < 1000; i++)
		reqlog_add(log, false, 9, &(struct ps_addr){ 0 }, false, 10);
	reqlog_add(log, false, 9, &c, false, 10);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 9, &c));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &b));
	reqlog_free(log);
}

/* While the oldest entry is young, the log grows: nothing is lost. */
static void grows_past_16_while_young(void)
{
	struct reqlog *log = reqlog_new();

	for (uint32_t i = 0; i < 1000; i++) {
		struct ps_addr a = nth(i);

		CHECK_EQ(reqlog_add(log, false, (uint16_t)i, &a, false,
				    5000 + i / 100), 0);
	}
	CHECK_EQ(reqlog_count(log), 1000);
	for (uint32_t i = 0; i < 1000; i++) {
		struct ps_addr a = nth(i), b = nth(i + 1);

		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &b));
	}
	reqlog_free(log);
}

/* Once the oldest is older than REQLOG_KEEP_S, it is recycled. */
static void recycles_when_old(void)
{
	struct reqlog *log = reqlog_new();
	const uint64_t t0 = 1000, t1 = t0 + REQLOG_KEEP_S + 1;
	struct ps_addr a;

	for (uint32_t i = 0; i < 16; i++) {
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, t0);
	}
	CHECK_EQ(reqlog_count(log), 16);

	a = nth(100);
	reqlog_add(log, false, 100, &a, false, t1);
	CHECK_EQ(reqlog_count(log), 16);	/* recycled, not grown */
	a = nth(0);
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0, &a));	/* the oldest went */
	for (uint32_t i = 1; i < 16; i++) {
		a = nth(i);
		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}
	a = nth(100);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 100, &a));

	/* The rest of the old ones go, one per new request. */
	for (uint32_t i = 101; i < 116; i++) {
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, t1);
	}
	CHECK_EQ(reqlog_count(log), 16);
	for (uint32_t i = 0; i < 16; i++) {
		a = nth(i);
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}
	for (uint32_t i = 100; i < 116; i++) {
		a = nth(i);
		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}

	/* Now every entry is young again: the next one grows the log. */
	a = nth(116);
	reqlog_add(log, false, 116, &a, false, t1);
	CHECK_EQ(reqlog_count(log), 17);
	a = nth(100);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 100, &a));
	reqlog_free(log);
}

/* Exactly REQLOG_KEEP_S old is no longer young. */
static void keep_boundary(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a;

	for (uint32_t i = 0; i < 16; i++) {
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, 0);
	}
	a = nth(16);
	reqlog_add(log, false, 16, &a, false, REQLOG_KEEP_S - 1);
	CHECK_EQ(reqlog_count(log), 17);		/* young: grew */
	reqlog_free(log);

	log = reqlog_new();
	for (uint32_t i = 0; i < 16; i++) {
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, 0);
	}
	a = nth(16);
	reqlog_add(log, false, 16, &a, false, REQLOG_KEEP_S);
	CHECK_EQ(reqlog_count(log), 16);		/* old: recycled */
	reqlog_free(log);
}

/* 100,000 requests in one second: bounded by REQLOG_MAX, newest kept. */
static void bounded_by_max(void)
{
	struct reqlog *log = reqlog_new();
	const uint32_t n = 100000;
	struct ps_addr a;

	for (uint32_t i = 0; i < n; i++) {
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, 77);
		if (reqlog_count(log) > REQLOG_MAX) {
			CHECK(!"count above REQLOG_MAX");
			break;
		}
	}
	CHECK_EQ(reqlog_count(log), REQLOG_MAX);
	for (uint32_t i = n - REQLOG_MAX; i < n; i += 101) {
		a = nth(i);
		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}
	a = nth(n - 1);
	CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)(n - 1), &a));
	a = nth(n - REQLOG_MAX);
	CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)(n - REQLOG_MAX), &a));
	for (uint32_t i = 0; i < n - REQLOG_MAX; i += 97) {
		a = nth(i);
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}
	a = nth(n - REQLOG_MAX - 1);
	CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)(n - REQLOG_MAX - 1), &a));
	reqlog_free(log);
}

/* A steady 100 requests/s: memory follows the rate, every request of
 * the last REQLOG_KEEP_S seconds still matches. */
static void follows_the_rate(void)
{
	struct reqlog *log = reqlog_new();
	const uint32_t n = 100000, rate = 100;
	uint64_t now = 0;
	struct ps_addr a;

	for (uint32_t i = 0; i < n; i++) {
		now = i / rate;
		a = nth(i);
		reqlog_add(log, false, (uint16_t)i, &a, false, now);
	}
	CHECK(reqlog_count(log) >= REQLOG_KEEP_S * rate);
	CHECK(reqlog_count(log) <= 4 * REQLOG_KEEP_S * rate);
	for (uint32_t i = n - REQLOG_KEEP_S * rate; i < n; i += 7) {
		a = nth(i);
		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	}
	reqlog_free(log);
}

/*
 * RFC 8335: a PROBE is matched by its type too.  An Extended Echo Reply
 * repeats the PROBE's 8-bit sequence number (the field's high byte; its
 * low byte is the interface state), an error quotes the PROBE whole; an
 * Echo Request answers neither, nor a PROBE an Echo Reply.  Issue 21:
 * an Echo Request with sequence 0x0500 let 256 forged Extended Echo
 * Replies and errors quoting 256 never-sent PROBEs (0x0500-0x05ff) in.
 */
static void probe_kept_apart_from_echo(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x0a000001), b = v4(0x0a000002);

	CHECK_EQ(reqlog_add(log, false, 0x0500, &a, false, 10), 0);
	for (unsigned lo = 0; lo < 256; lo++) {
		uint16_t seq = (uint16_t)(0x0500 | lo);

		CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, seq, &a));
		CHECK(!reqlog_match(log, ICMP_M_PROBE, seq, &a));
	}
	CHECK(reqlog_match(log, ICMP_M_ECHO, 0x0500, &a));

	/* A PROBE with the L bit: any state byte in a reply, exact in a
	 * quote, and never an Echo Reply. */
	CHECK_EQ(reqlog_add(log, true, 0x0701, &a, false, 10), 0);
	for (unsigned lo = 0; lo < 256; lo++)
		CHECK(reqlog_match(log, ICMP_M_PROBE_REPLY,
				   (uint16_t)(0x0700 | lo), &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0701, &b));
	CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0601, &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0801, &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0107, &a));
	CHECK(reqlog_match(log, ICMP_M_PROBE, 0x0701, &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE, 0x0700, &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE, 0x07ff, &a));
	CHECK(!reqlog_match(log, ICMP_M_PROBE, 0x0701, &b));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0x0701, &a));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0x0700, &a));

	/* A multicast PROBE: any replier, still by type and sequence. */
	CHECK_EQ(reqlog_add(log, true, 0x0900, &(struct ps_addr){ 0 }, true,
			    10), 0);
	CHECK(reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0907, &b));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0x0900, &b));
	reqlog_free(log);
}

/* PROBE entries survive growing, recycling and clearing like others. */
static void probes_grow_and_recycle(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a;

	/* 600 requests, alternately Echo and PROBE, in one second. */
	for (uint32_t i = 0; i < 600; i++) {
		a = nth(i);
		CHECK_EQ(reqlog_add(log, i & 1, (uint16_t)(i << 8 | 1), &a,
				    false, 50), 0);
	}
	CHECK_EQ(reqlog_count(log), 600);
	for (uint32_t i = 344; i < 600; i++) {	/* the last 256 */
		uint16_t seq = (uint16_t)(i << 8 | 1);

		a = nth(i);
		CHECK_EQ(reqlog_match(log, ICMP_M_ECHO, seq, &a), !(i & 1));
		CHECK_EQ(reqlog_match(log, ICMP_M_PROBE, seq, &a), i & 1);
		CHECK_EQ(reqlog_match(log, ICMP_M_PROBE_REPLY,
				      (uint16_t)(seq | 0xfe), &a), i & 1);
	}
	reqlog_clear(log);
	for (uint32_t i = 0; i < 600; i++) {
		a = nth(i);
		CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY,
				    (uint16_t)(i << 8), &a));
	}
	reqlog_free(log);

	/* Old PROBEs are recycled one per new request. */
	log = reqlog_new();
	for (uint32_t i = 0; i < 16; i++) {
		a = nth(i);
		reqlog_add(log, true, (uint16_t)(i << 8), &a, false, 0);
	}
	a = nth(99);
	reqlog_add(log, true, 0x6300, &a, false, REQLOG_KEEP_S);
	CHECK_EQ(reqlog_count(log), 16);
	a = nth(0);
	CHECK(!reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0007, &a));
	a = nth(1);
	CHECK(reqlog_match(log, ICMP_M_PROBE_REPLY, 0x0107, &a));
	reqlog_free(log);
}

/* Cleared, grown or not, it matches nothing and fills again. */
static void clear_forgets_everything(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x7f000001);

	for (uint32_t i = 0; i < 40; i++)
		CHECK_EQ(reqlog_add(log, false, (uint16_t)i, &a, i == 3, 1000), 0);
	reqlog_clear(log);
	CHECK_EQ(reqlog_count(log), 0);
	for (uint32_t i = 0; i < 40; i++)
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)i, &a));
	CHECK_EQ(reqlog_add(log, false, 5, &a, false, 1001), 0);
	CHECK_EQ(reqlog_count(log), 1);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 5, &a));
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 6, &a));
	reqlog_free(log);
}

/*
 * One sequence number for every request, past REQLOG_MAX: each new entry
 * forgets the oldest, which is last in one chain of 65,536; that took a
 * walk of the chain (a user's flood of such sends kept the daemon busy
 * 85 % of its time in it, and another user's ping waited 3 ms).
 */
static void same_seq_forgets_in_constant_time(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = v4(0x7f000001);
	uint64_t before;

	for (unsigned i = 0; i < REQLOG_MAX; i++)
		reqlog_add(log, false, 7, &a, false, 1000);
	/* The same request again replaces the one before: no growth. */
	CHECK(reqlog_count(log) <= 32);
	CHECK_EQ(reqlog_bytes(log), 0);
	before = reqlog_steps(log);
	for (unsigned i = 0; i < 1000; i++)
		reqlog_add(log, false, 7, &a, false, 1000 + REQLOG_KEEP_S);
	CHECK(reqlog_steps(log) - before <= 1000);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &a));
	reqlog_free(log);
}

/* One seq sent to 60,000 hosts: a reply to it from yet another host (a
 * forged one) looks at a few entries, not at all 60,000 (as it did when
 * the chains were by seq alone: every packet of such a flood walked
 * them); nor does one from a host it was sent to, or a seq not sent. */
static void one_seq_many_hosts_cheap_to_match(void)
{
	struct reqlog *log = reqlog_new_salted(0x1234567890abcdefu);
	struct ps_addr other = v4(0x0b000001);

	for (uint32_t i = 0; i < 60000; i++) {
		struct ps_addr a = v4(0x0a000000 + i);

		reqlog_add(log, false, 7, &a, false, 1000);
	}
	CHECK_EQ(reqlog_count(log), 60000);
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 7, &other));
	CHECK(reqlog_match_cost(log, ICMP_M_ECHO, 7, &other) <= 16);
	for (uint32_t i = 0; i < 60000; i += 997) {
		struct ps_addr a = v4(0x0a000000 + i);

		CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &a));
		CHECK(reqlog_match_cost(log, ICMP_M_ECHO, 7, &a) <= 16);
		CHECK(!reqlog_match(log, ICMP_M_ECHO, 8, &a));
	}
	/* And any source, for a group: one chain of its own. */
	reqlog_add(log, false, 7, &(struct ps_addr){ 0 }, true, 1000);
	CHECK(reqlog_match(log, ICMP_M_ECHO, 7, &other));
	CHECK(reqlog_match_cost(log, ICMP_M_ECHO, 7, &other) <= 32);
	reqlog_free(log);
}

/* Requests chosen so that seq and address cancel out, if the hash mixed
 * them before a round: seq s to 10.(s & 255).(s >> 8).1 (the review's
 * example: every one in one chain, whatever the salt; each send then
 * walked it, and so did each reply).  Chains stay short. */
static void seq_and_address_do_not_cancel(void)
{
	struct reqlog *log = reqlog_new_salted(0x0123456789abcdefu);
	unsigned worst = 0;

	for (uint32_t q = 1; q < 65536; q++)
		reqlog_add(log, false, (uint16_t)q,
			   &(struct ps_addr){ 0 }, false, 1000);
	reqlog_clear(log);
	for (uint32_t q = 1; q < 65536; q++) {
		struct ps_addr a = v4(0x0a000001u | (q & 255) << 16 |
				      (q >> 8) << 8);

		reqlog_add(log, false, (uint16_t)q, &a, false, 1000);
	}
	for (uint32_t q = 1; q < 65536; q += 251) {
		struct ps_addr a = v4(0x0a000001u | (q & 255) << 16 |
				      (q >> 8) << 8);
		struct ps_addr b = v4(0x0a000002u | (q & 255) << 16 |
				      (q >> 8) << 8);
		unsigned c = reqlog_match_cost(log, ICMP_M_ECHO, (uint16_t)q,
					       &b) +
			     reqlog_match_cost(log, ICMP_M_ECHO, (uint16_t)q,
					       &a);

		CHECK(reqlog_match(log, ICMP_M_ECHO, (uint16_t)q, &a));
		CHECK(!reqlog_match(log, ICMP_M_ECHO, (uint16_t)q, &b));
		if (c > worst)
			worst = c;
	}
	CHECK(worst <= 32);
	reqlog_free(log);
}

/* What a growth would take is said first; refused, the log recycles. */
static void growth_asked_first(void)
{
	struct reqlog *log = reqlog_new();
	struct ps_addr a = { .family = AF_INET, .a = { 10, 0, 0, 1 } };
	size_t more;

	CHECK_EQ(reqlog_bytes(log), 0);
	for (int i = 0; i < 16; i++) {
		CHECK_EQ(reqlog_growth(log, 10), 0);
		reqlog_add(log, false, (uint16_t)i, &a, false, 10);
	}
	more = reqlog_growth(log, 10);	/* full, and young */
	CHECK(more > 0);
	CHECK_EQ(reqlog_growth(log, 10 + REQLOG_KEEP_S), 0);	/* old */
	reqlog_may_grow(log, false);
	reqlog_add(log, false, 16, &a, false, 10);
	CHECK_EQ(reqlog_count(log), 16);	/* recycled */
	CHECK_EQ(reqlog_bytes(log), 0);
	CHECK(!reqlog_match(log, ICMP_M_ECHO, 0, &a));
	CHECK(reqlog_match(log, ICMP_M_ECHO, 16, &a));
	CHECK_EQ(reqlog_growth(log, 10), more);	/* still wanted */
	reqlog_may_grow(log, true);
	reqlog_add(log, false, 17, &a, false, 10);
	CHECK_EQ(reqlog_count(log), 17);
	CHECK_EQ(reqlog_bytes(log), more);
	reqlog_free(log);
}

int main(void)
{
	TEST(empty_matches_nothing);
	TEST(match_by_seq_and_address);
	TEST(any_src_matches_every_address);
	TEST(duplicate_seqs);
	TEST(grows_past_16_while_young);
	TEST(recycles_when_old);
	TEST(keep_boundary);
	TEST(bounded_by_max);
	TEST(follows_the_rate);
	TEST(clear_forgets_everything);
	TEST(probe_kept_apart_from_echo);
	TEST(probes_grow_and_recycle);
	TEST(same_seq_forgets_in_constant_time);
	TEST(growth_asked_first);
	TEST(one_seq_many_hosts_cheap_to_match);
	TEST(seq_and_address_do_not_cancel);
	return CHECK_DONE();
}
