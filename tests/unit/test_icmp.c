/* SPDX-License-Identifier: ISC */
/*
 * test_icmp - checksums, the type check, ident rewriting and the IPv4
 * parser (src/engine/icmp.c), on hand-built datagrams.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "check.h"

/* The checksum as the two bytes it puts on the wire. */
static uint16_t wire16(uint16_t sum)
{
	uint8_t b[2];

	memcpy(b, &sum, 2);
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint32_t ip4(int a, int b, int c, int d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 |
	       (uint32_t)d;
}

/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2. */
static void checksum_rfc1071_example(void)
{
	static const uint8_t v[] = { 0x00, 0x01, 0xf2, 0x03,
				     0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t m[10];

	CHECK_EQ(wire16(icmp_checksum(v, sizeof(v))), 0x220d);
	/* Appending the checksum makes the whole sum verify. */
	memcpy(m, v, 8);
	m[8] = 0x22;
	m[9] = 0x0d;
	CHECK_EQ(icmp_checksum(m, sizeof(m)), 0);
}

/* An Echo Request by hand: 0800 + 0000 + 1234 + 0001 = 1a35 -> e5ca. */
static void checksum_echo_by_hand(void)
{
	uint8_t m[8] = { 8, 0, 0, 0, 0x12, 0x34, 0x00, 0x01 };
	uint16_t sum = icmp_checksum(m, sizeof(m));

	CHECK_EQ(wire16(sum), 0xe5ca);
	memcpy(m + 2, &sum, 2);
	CHECK_EQ(m[2], 0xe5);
	CHECK_EQ(m[3], 0xca);
	CHECK_EQ(icmp_checksum(m, sizeof(m)), 0);

	/* With payload "abcd": + 6162 + 6364 = 1a35 + c4c6 = deFB -> 2104. */
	uint8_t p[12] = { 8, 0, 0, 0, 0x12, 0x34, 0x00, 0x01,
			  'a', 'b', 'c', 'd' };

	CHECK_EQ(wire16(icmp_checksum(p, sizeof(p))), 0x2104);
}

/* An odd trailing byte counts as the high byte of a last word. */
static void checksum_odd_lengths(void)
{
	static const uint8_t one[] = { 0x01 };
	static const uint8_t three[] = { 0x00, 0x01, 0xf2 };
	static const uint8_t ff[] = { 0xff, 0xff, 0xff };
	uint8_t m[9] = { 8, 0, 0, 0, 0x12, 0x34, 0x00, 0x01, 0x61 };
	uint16_t sum;

	CHECK_EQ(wire16(icmp_checksum(one, 0)), 0xffff);
	CHECK_EQ(wire16(icmp_checksum(one, 1)), 0xfeff);
	CHECK_EQ(wire16(icmp_checksum(three, 3)), 0x0dfe);
	/* ffff + ff00 = 1feff -> feff + 1 = ff00 -> 00ff */
	CHECK_EQ(wire16(icmp_checksum(ff, 3)), 0x00ff);
	sum = icmp_checksum(m, sizeof(m));
	memcpy(m + 2, &sum, 2);
	CHECK_EQ(icmp_checksum(m, sizeof(m)), 0);
}

/* Carries fold back in, however many there are. */
static void checksum_carries(void)
{
	static uint8_t big[65536];

	memset(big, 0xff, sizeof(big));
	CHECK_EQ(wire16(icmp_checksum(big, sizeof(big))), 0x0000);
	memset(big, 0x80, sizeof(big));
	/* 32768 * 0x8080 = 0x40400000 -> 0x4040 -> ~ = 0xbfbf */
	CHECK_EQ(wire16(icmp_checksum(big, sizeof(big))), 0xbfbf);
}

/* ping_supported(): Echo and Extended Echo, code 0, per family. */
static void echo_type_ok(void)
{
	CHECK(icmp_echo_type_ok(AF_INET, 8, 0));
	CHECK(icmp_echo_type_ok(AF_INET, 42, 0));
	CHECK(!icmp_echo_type_ok(AF_INET, 0, 0));
	CHECK(!icmp_echo_type_ok(AF_INET, 13, 0));
	CHECK(!icmp_echo_type_ok(AF_INET, 8, 1));
	CHECK(!icmp_echo_type_ok(AF_INET, 8, 255));
	CHECK(!icmp_echo_type_ok(AF_INET, 42, 1));
	CHECK(!icmp_echo_type_ok(AF_INET, 43, 0));
	CHECK(!icmp_echo_type_ok(AF_INET, 128, 0));
	CHECK(!icmp_echo_type_ok(AF_INET, 160, 0));

	CHECK(icmp_echo_type_ok(AF_INET6, 128, 0));
	CHECK(icmp_echo_type_ok(AF_INET6, 160, 0));
	CHECK(!icmp_echo_type_ok(AF_INET6, 129, 0));
	CHECK(!icmp_echo_type_ok(AF_INET6, 128, 1));
	CHECK(!icmp_echo_type_ok(AF_INET6, 160, 1));
	CHECK(!icmp_echo_type_ok(AF_INET6, 8, 0));
	CHECK(!icmp_echo_type_ok(AF_INET6, 42, 0));

	for (int t = 0; t < 256; t++) {
		int n4 = (t == 8 || t == 42), n6 = (t == 128 || t == 160);

		CHECK_EQ(icmp_echo_type_ok(AF_INET, (uint8_t)t, 0) != 0, n4);
		CHECK_EQ(icmp_echo_type_ok(AF_INET6, (uint8_t)t, 0) != 0, n6);
	}
}

/* icmp4_set_ident: ident in bytes 4-5, a checksum that verifies, the
 * rest untouched, whatever the old checksum was. */
static void set_ident_rewrites(void)
{
	uint8_t m[64 + 1], orig[sizeof(m)];

	for (size_t len = 8; len <= sizeof(m); len++) {
		for (size_t i = 0; i < len; i++)
			m[i] = (uint8_t)(i * 37 + len);
		m[0] = 8;
		m[1] = 0;
		memcpy(orig, m, len);
		icmp4_set_ident(m, len, 0xbeef);
		CHECK_EQ(m[4], 0xbe);
		CHECK_EQ(m[5], 0xef);
		CHECK_EQ(icmp_checksum(m, len), 0);
		CHECK(memcmp(m, orig, 2) == 0);
		CHECK(memcmp(m + 6, orig + 6, len - 6) == 0);
	}
	/* ident 0 and 0xffff */
	memset(m, 0, 8);
	m[0] = 8;
	icmp4_set_ident(m, 8, 0);
	CHECK_EQ(m[4] | m[5], 0);
	CHECK_EQ(icmp_checksum(m, 8), 0);
	icmp4_set_ident(m, 8, 0xffff);
	CHECK_EQ(m[4] & m[5], 0xff);
	CHECK_EQ(icmp_checksum(m, 8), 0);
}

/* ---- a builder for IPv4 datagrams ---- */

static uint8_t pkt[4096];

/* IPv4 header with ihl words (options NOP-filled), then icmp. */
static size_t build_ip(int ihl, uint8_t proto, uint32_t src, uint32_t dst,
		       const uint8_t *icmp, size_t icmplen)
{
	size_t hl = (size_t)ihl * 4, tot = hl + icmplen;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = (uint8_t)(0x40 | ihl);
	pkt[1] = 0x10;			/* tos */
	put16(pkt + 2, (uint16_t)tot);
	put16(pkt + 4, 0x1234);		/* id */
	pkt[8] = 57;			/* ttl */
	pkt[9] = proto;
	put32(pkt + 12, src);
	put32(pkt + 16, dst);
	for (size_t i = 20; i < hl; i++)
		pkt[i] = 1;		/* IPOPT_NOP */
	memcpy(pkt + hl, icmp, icmplen);
	return tot;
}

/* ICMP message: type, code, 4 bytes rest, body; checksum filled in. */
static size_t build_icmp(uint8_t *m, uint8_t type, uint8_t code,
			 uint32_t rest, const uint8_t *body, size_t blen)
{
	uint16_t sum;

	m[0] = type;
	m[1] = code;
	m[2] = m[3] = 0;
	put32(m + 4, rest);
	if (blen)
		memcpy(m + 8, body, blen);
	sum = icmp_checksum(m, 8 + blen);
	memcpy(m + 2, &sum, 2);
	return 8 + blen;
}

static int addr_is(const struct ps_addr *a, uint32_t host)
{
	return a->family == AF_INET && ps_addr_get_v4(a) == htonl(host);
}

static void parse_echo_reply(void)
{
	uint8_t icmp[64];
	size_t il = build_icmp(icmp, 0, 0, 0x12340007,
			       (const uint8_t *)"abcdefgh", 8);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(127, 0, 0, 2),
			      ip4(127, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_REPLY);
	CHECK_EQ(p.type, 0);
	CHECK_EQ(p.code, 0);
	CHECK_EQ(p.ident, 0x1234);
	CHECK_EQ(p.seq, 7);
	CHECK(addr_is(&p.src, ip4(127, 0, 0, 2)));
	CHECK(addr_is(&p.dst, ip4(127, 0, 0, 1)));
	CHECK_EQ(p.ttl, 57);
	CHECK_EQ(p.tos, 0x10);
	CHECK_EQ(p.optlen, 0);
	CHECK(p.icmp == pkt + 20);
	CHECK_EQ(p.icmplen, 16);
	CHECK(memcmp(p.icmp + 8, "abcdefgh", 8) == 0);

	/* Extended Echo Reply (RFC 8335) is a reply too; its sequence
	 * number is 8 bits, the byte after it the interface state: the
	 * field is kept whole, and only its high byte is matched. */
	il = build_icmp(icmp, 43, 0, 0x00050907, NULL, 0);
	len = build_ip(5, IPPROTO_ICMP, ip4(127, 0, 0, 1), ip4(127, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_REPLY);
	CHECK_EQ(p.type, 43);
	CHECK_EQ(p.ident, 5);
	CHECK_EQ(p.seq, 0x0907);
	CHECK_EQ(p.match, ICMP_M_PROBE_REPLY);
}

/* Bytes after tot_len (link padding) are not part of the datagram. */
static void parse_ignores_padding(void)
{
	uint8_t icmp[16];
	size_t il = build_icmp(icmp, 0, 0, 0x00010002, NULL, 0);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	memset(pkt + len, 0xee, 10);
	CHECK_EQ(icmp4_parse(pkt, len + 10, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.icmplen, 8);
}

/* ihl 6..15: options found, ICMP after them. */
static void parse_ip_options(void)
{
	for (int ihl = 6; ihl <= 15; ihl++) {
		uint8_t icmp[16];
		size_t il = build_icmp(icmp, 0, 0, 0x0abc0000u | (unsigned)ihl,
				       NULL, 0);
		size_t len = build_ip(ihl, IPPROTO_ICMP, ip4(10, 0, 0, 2),
				      ip4(10, 0, 0, 1), icmp, il);
		struct icmp_pkt p;

		CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_REPLY);
		CHECK_EQ(p.optlen, (size_t)(ihl - 5) * 4);
		CHECK(p.opts == pkt + 20);
		CHECK(p.icmp == pkt + ihl * 4);
		CHECK_EQ(p.icmplen, 8);
		CHECK_EQ(p.ident, 0x0abc);
		CHECK_EQ(p.seq, ihl);
	}
}

/* Shorter than an IP header, or shorter than its own ihl. */
static void parse_truncated_header(void)
{
	uint8_t icmp[16];
	size_t il = build_icmp(icmp, 0, 0, 0x00010001, NULL, 0);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	for (size_t n = 0; n < 20; n++)
		CHECK_EQ(icmp4_parse(pkt, n, &p), ICMP_PARSE_SHORT);
	/* tot_len consistent with each cut: still short. */
	for (size_t n = 20; n < len; n++) {
		put16(pkt + 2, (uint16_t)n);
		CHECK_EQ(icmp4_parse(pkt, n, &p), ICMP_PARSE_SHORT);
	}
	/* ihl 15 (60 bytes) in a 28-byte datagram. */
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2), ip4(10, 0, 0, 1),
		       icmp, il);
	pkt[0] = 0x4f;
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
	/* Not IPv4 */
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2), ip4(10, 0, 0, 1),
		       icmp, il);
	pkt[0] = 0x65;
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
}

/* tot_len claims more than was received. */
static void parse_tot_len_too_big(void)
{
	uint8_t icmp[16];
	size_t il = build_icmp(icmp, 0, 0, 0x00010001, NULL, 0);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	put16(pkt + 2, (uint16_t)(len + 1));
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
	put16(pkt + 2, 0xffff);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
	/* and less than the header itself */
	put16(pkt + 2, 19);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
}

static void parse_ihl_below_5(void)
{
	uint8_t icmp[16];
	size_t il = build_icmp(icmp, 0, 0, 0x00010001, NULL, 0);

	for (int ihl = 0; ihl < 5; ihl++) {
		size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2),
				      ip4(10, 0, 0, 1), icmp, il);
		struct icmp_pkt p;

		pkt[0] = (uint8_t)(0x40 | ihl);
		CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_SHORT);
	}
}

static void parse_bad_checksum(void)
{
	uint8_t icmp[32];
	size_t il = build_icmp(icmp, 0, 0, 0x00010001,
			       (const uint8_t *)"payload!", 8);
	struct icmp_pkt p;
	size_t len;

	for (size_t i = 0; i < il; i++) {
		icmp[i] ^= 0x01;
		len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2),
			       ip4(10, 0, 0, 1), icmp, il);
		CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_CSUM);
		icmp[i] ^= 0x01;
	}
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 0, 0, 2), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
}

static void parse_not_icmp(void)
{
	uint8_t icmp[16];
	size_t il = build_icmp(icmp, 0, 0, 0x00010001, NULL, 0);
	size_t len = build_ip(5, IPPROTO_UDP, ip4(10, 0, 0, 2),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_NOT_ICMP);
	len = build_ip(5, IPPROTO_ICMPV6, ip4(10, 0, 0, 2), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_NOT_ICMP);
}

/* An error's body: the offending IP header (qihl words), 8+ bytes of it. */
static size_t quote(uint8_t *q, int qihl, uint8_t qproto, uint32_t qsrc,
		    uint32_t qdst, const uint8_t *qicmp, size_t qlen)
{
	size_t hl = (size_t)qihl * 4;

	memset(q, 0, hl);
	q[0] = (uint8_t)(0x40 | qihl);
	put16(q + 2, (uint16_t)(hl + 64));	/* the original was longer */
	q[8] = 1;
	q[9] = qproto;
	put32(q + 12, qsrc);
	put32(q + 16, qdst);
	for (size_t i = 20; i < hl; i++)
		q[i] = 1;
	memcpy(q + hl, qicmp, qlen);
	return hl + qlen;
}

/* Time Exceeded quoting one of our Echo Requests. */
static void parse_time_exceeded(void)
{
	for (int qihl = 5; qihl <= 6; qihl++) {
		uint8_t req[16], body[128], icmp[160];
		size_t rl = build_icmp(req, 8, 0, 0x42420009,
				       (const uint8_t *)"abcdefgh", 8);
		size_t bl = quote(body, qihl, IPPROTO_ICMP, ip4(10, 0, 0, 1),
				  ip4(10, 99, 9, 9), req, rl);
		size_t il = build_icmp(icmp, 11, 0, 0, body, bl);
		size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1),
				      ip4(10, 0, 0, 1), icmp, il);
		struct icmp_pkt p;

		CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_ERROR);
		CHECK_EQ(p.type, 11);
		CHECK_EQ(p.code, 0);
		CHECK_EQ(p.ident, 0x4242);
		CHECK_EQ(p.seq, 9);
		CHECK(addr_is(&p.q_dst, ip4(10, 99, 9, 9)));
		CHECK(addr_is(&p.q_src, ip4(10, 0, 0, 1)));
		CHECK(addr_is(&p.src, ip4(10, 77, 1, 1)));
		CHECK(addr_is(&p.dst, ip4(10, 0, 0, 1)));
		CHECK_EQ(p.info, 0);
	}
}

/* Only the quoted 8 bytes of the request are needed (RFC 792). */
static void parse_error_minimal_quote(void)
{
	uint8_t req[8], body[64], icmp[96];
	size_t rl = build_icmp(req, 8, 0, 0x01020304, NULL, 0);
	size_t bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1),
			  ip4(10, 99, 0, 1), req, rl);
	size_t il = build_icmp(icmp, 3, 4, 1500, body, bl);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_ERROR);
	CHECK_EQ(p.type, 3);
	CHECK_EQ(p.code, 4);
	CHECK_EQ(p.info, 1500);		/* next-hop MTU, bytes 6-7 */
	CHECK_EQ(p.ident, 0x0102);
	CHECK_EQ(p.seq, 0x0304);

	/* One byte less of the quoted ICMP header: not ours to judge. */
	il = build_icmp(icmp, 3, 4, 1500, body, bl - 1);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

/* An error quoting a PROBE (RFC 8335, type 42) names it exactly: all 16
 * bits of its sequence field, L bit included, as it was sent. */
static void parse_error_quoting_probe(void)
{
	uint8_t req[8], body[64], icmp[96];
	size_t rl = build_icmp(req, 42, 0, 0x01020301, NULL, 0);
	size_t bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1),
			  ip4(10, 99, 0, 1), req, rl);
	size_t il = build_icmp(icmp, 11, 0, 0, body, bl);
	size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1),
			      ip4(10, 0, 0, 1), icmp, il);
	struct icmp_pkt p;

	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_ERROR);
	CHECK_EQ(p.ident, 0x0102);
	CHECK_EQ(p.seq, 0x0301);
	CHECK_EQ(p.match, ICMP_M_PROBE);

	/* The same quoting an Echo Request. */
	rl = build_icmp(req, 8, 0, 0x01020301, NULL, 0);
	bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1), ip4(10, 99, 0, 1),
		   req, rl);
	il = build_icmp(icmp, 11, 0, 0, body, bl);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.seq, 0x0301);
	CHECK_EQ(p.match, ICMP_M_ECHO);
}

/* Every error type, each with an Echo Request quoted, is an error. */
static void parse_error_types(void)
{
	static const uint8_t types[] = { 3, 4, 5, 11, 12 };
	uint8_t req[8], body[64], icmp[96];
	size_t rl = build_icmp(req, 8, 0, 0x00070008, NULL, 0);
	size_t bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1),
			  ip4(10, 99, 0, 1), req, rl);

	for (size_t i = 0; i < sizeof(types); i++) {
		size_t il = build_icmp(icmp, types[i], 0, 0x0a000001u, body,
				       bl);
		size_t len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1),
				      ip4(10, 0, 0, 1), icmp, il);
		struct icmp_pkt p;

		CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_ERROR);
		CHECK_EQ(p.type, types[i]);
		CHECK_EQ(p.ident, 7);
		CHECK_EQ(p.seq, 8);
		CHECK_EQ(p.info, 0x0a000001u);
	}
}

/* An error about something other than an Echo Request: OTHER. */
static void parse_error_quoting_non_echo(void)
{
	uint8_t inner[16], body[96], icmp[128];
	struct icmp_pkt p;
	size_t il, len, bl, rl;

	/* quoted Echo Reply */
	rl = build_icmp(inner, 0, 0, 0x42420001, NULL, 0);
	bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1), ip4(10, 99, 0, 1),
		   inner, rl);
	il = build_icmp(icmp, 11, 0, 0, body, bl);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	CHECK_EQ(p.type, 11);

	/* quoted UDP datagram that happens to start with 08 00 */
	bl = quote(body, 5, IPPROTO_UDP, ip4(10, 0, 0, 1), ip4(10, 99, 0, 1),
		   (const uint8_t *)"\x08\x00\x00\x35\x00\x10\x00\x00", 8);
	il = build_icmp(icmp, 3, 3, 0, body, bl);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);

	/* quoted header that is not IPv4 */
	rl = build_icmp(inner, 8, 0, 0x42420001, NULL, 0);
	bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1), ip4(10, 99, 0, 1),
		   inner, rl);
	body[0] = 0x65;
	il = build_icmp(icmp, 11, 0, 0, body, bl);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);

	/* quoted ihl < 5 */
	body[0] = 0x44;
	il = build_icmp(icmp, 11, 0, 0, body, bl);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);

	/* Not an error type at all, though the body looks like a quote. */
	bl = quote(body, 5, IPPROTO_ICMP, ip4(10, 0, 0, 1), ip4(10, 99, 0, 1),
		   inner, rl);
	il = build_icmp(icmp, 13, 0, 0, body, bl);	/* Timestamp */
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	il = build_icmp(icmp, 8, 0, 0, body, bl);	/* an Echo Request */
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);

	/* An error with an empty body. */
	il = build_icmp(icmp, 11, 0, 0, NULL, 0);
	len = build_ip(5, IPPROTO_ICMP, ip4(10, 77, 1, 1), ip4(10, 0, 0, 1),
		       icmp, il);
	CHECK_EQ(icmp4_parse(pkt, len, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

int main(void)
{
	TEST(checksum_rfc1071_example);
	TEST(checksum_echo_by_hand);
	TEST(checksum_odd_lengths);
	TEST(checksum_carries);
	TEST(echo_type_ok);
	TEST(set_ident_rewrites);
	TEST(parse_echo_reply);
	TEST(parse_ignores_padding);
	TEST(parse_ip_options);
	TEST(parse_truncated_header);
	TEST(parse_tot_len_too_big);
	TEST(parse_ihl_below_5);
	TEST(parse_bad_checksum);
	TEST(parse_not_icmp);
	TEST(parse_time_exceeded);
	TEST(parse_error_minimal_quote);
	TEST(parse_error_quoting_probe);
	TEST(parse_error_types);
	TEST(parse_error_quoting_non_echo);
	return CHECK_DONE();
}
