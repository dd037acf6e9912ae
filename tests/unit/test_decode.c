/* SPDX-License-Identifier: ISC */
/*
 * test_decode - the client side's strict decoders (src/wire/decode.c):
 * what libpingsock accepts from the daemon, on byte arrays.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/errqueue.h>

#include "wire/decode.h"
#include "wire/wire.h"
#include "check.h"

#define HDR WIRE_DGRAM_HDR

static struct wire_dgram out;

static void reply(struct wire_dgram *dg, int family)
{
	memset(dg, 0, sizeof(*dg));
	dg->kind = WIRE_DG_REPLY;
	dg->family = (uint8_t)family;
	dg->ttl = 64;
	dg->tos = 0x10;
	dg->drops = 7;
	dg->ifindex = 2;
	dg->src[0] = 127;
	dg->dst[0] = 127;
	dg->ts_sec = 1700000000;
	dg->ts_nsec = 999999999;
	if (family == AF_INET6) {
		dg->src_scope = 2;
		dg->flowinfo = 0x12345;
	}
}

static void record(struct wire_dgram *dg, int family)
{
	reply(dg, family);
	dg->kind = WIRE_DG_ERROR;
	dg->ee_errno = EHOSTUNREACH;
	dg->ee_origin = family == AF_INET6 ? SO_EE_ORIGIN_ICMP6
					   : SO_EE_ORIGIN_ICMP;
	dg->ee_type = 3;
	dg->ee_code = 1;
	dg->ee_info = 1500;
	dg->offender_family = (uint8_t)family;
	dg->offender[0] = 10;
	if (family == AF_INET6)
		dg->offender_scope = 3;
}

/* A message of the header and data bytes, as read whole. */
static int dec(const struct wire_dgram *dg, size_t data, int chan, int family)
{
	return wire_decode_dgram(dg, HDR, HDR + data, chan, family, &out);
}

static void dgram_valid_accepted(void)
{
	struct wire_dgram dg;

	for (int f = AF_INET; f <= AF_INET6; f += AF_INET6 - AF_INET) {
		reply(&dg, f);
		CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, f), 0);
		CHECK(memcmp(&out, &dg, HDR) == 0);
		CHECK_EQ(dec(&dg, 8, WIRE_CHAN_DATA, f), 0);
		record(&dg, f);
		CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, f), 0);
		CHECK(memcmp(&out, &dg, HDR) == 0);
		CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, f), 0);
	}
	/* A raw IPv4 socket's reply carries header bytes in ee_info/data. */
	reply(&dg, AF_INET);
	dg.ee_info = 0x40010203;
	dg.ee_data = 0x12344000;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), 0);
}

static void dgram_kind_belongs_to_its_channel(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	record(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	memset(&dg, 0, sizeof(dg));
	/* A wake-up comes on the data descriptor, with nothing in it. */
	dg.kind = WIRE_DG_WAKE;
	CHECK_EQ(dec(&dg, 0, WIRE_CHAN_DATA, AF_INET), 0);
	CHECK_EQ(dec(&dg, 0, WIRE_CHAN_DATA, 0), 0);	/* family unknown */
	CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, AF_INET), -1);
	CHECK_EQ(dec(&dg, 1, WIRE_CHAN_DATA, AF_INET), -1);
	dg.ttl = 1;
	CHECK_EQ(dec(&dg, 0, WIRE_CHAN_DATA, AF_INET), -1);
	for (int k = 0; k < 256; k++) {
		reply(&dg, AF_INET);
		dg.kind = (uint8_t)k;
		if (k != WIRE_DG_REPLY)
			CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
		if (k != WIRE_DG_ERROR)
			CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	}
	/* Unknown channel. */
	reply(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 64, 0, AF_INET), -1);
}

static void dgram_truncations_refused(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	for (size_t got = 0; got < HDR; got++) {
		CHECK_EQ(wire_decode_dgram(&dg, got, got, WIRE_CHAN_DATA,
					   AF_INET, &out), -1);
		CHECK_EQ(wire_decode_dgram(&dg, got, HDR + 64, WIRE_CHAN_DATA,
					   AF_INET, &out), -1);
	}
	/* Fewer bytes in all than in hand makes no sense either. */
	CHECK_EQ(wire_decode_dgram(&dg, HDR, HDR - 1, WIRE_CHAN_DATA, AF_INET,
				   &out), -1);
	/* A refused one leaves nothing behind. */
	CHECK_EQ(out.kind, 0);
}

static void dgram_family_is_the_sockets(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET6), -1);
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, 0), -1);
	dg.family = 99;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, 99), -1);
	record(&dg, AF_INET6);
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
}

static void dgram_options_fit(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	for (int n = 0; n < 256; n++) {
		dg.optlen = (uint8_t)n;
		CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET),
			 n <= 40 && n % 4 == 0 ? 0 : -1);
	}
	record(&dg, AF_INET);
	dg.optlen = 255;	/* the stack overflow of issue 15 */
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	reply(&dg, AF_INET6);
	dg.optlen = 4;		/* IPv6 has no IP options */
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET6), -1);
}

static void dgram_lengths(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET6);
	CHECK_EQ(dec(&dg, 7, WIRE_CHAN_DATA, AF_INET6), -1);
	CHECK_EQ(dec(&dg, 0, WIRE_CHAN_DATA, AF_INET6), -1);
	CHECK_EQ(dec(&dg, WIRE_DATA_MAX, WIRE_CHAN_DATA, AF_INET6), 0);
	CHECK_EQ(dec(&dg, WIRE_DATA_MAX + 1, WIRE_CHAN_DATA, AF_INET6), -1);
	CHECK_EQ(dec(&dg, SIZE_MAX - HDR, WIRE_CHAN_DATA, AF_INET6), -1);
	/* IPv4: header, options and message in 65535 bytes. */
	reply(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 0xFFFF - 20, WIRE_CHAN_DATA, AF_INET), 0);
	CHECK_EQ(dec(&dg, 0xFFFF - 19, WIRE_CHAN_DATA, AF_INET), -1);
	dg.optlen = 40;
	CHECK_EQ(dec(&dg, 0xFFFF - 60, WIRE_CHAN_DATA, AF_INET), 0);
	CHECK_EQ(dec(&dg, 0xFFFF - 59, WIRE_CHAN_DATA, AF_INET), -1);
	record(&dg, AF_INET);
	CHECK_EQ(dec(&dg, 0xFFFF - 19, WIRE_CHAN_ERR, AF_INET), -1);
}

static void dgram_padding_and_time(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	dg.pad = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.pad2 = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	record(&dg, AF_INET);
	dg.ee_pad = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.ts_nsec = 1000000000;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	dg.ts_nsec = -1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	dg.ts_nsec = 0;
	dg.ts_sec = -5;		/* any second: the clock may be anything */
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), 0);
	dg.ifindex = (uint32_t)INT_MAX + 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
}

static void dgram_fields_of_the_family(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	dg.src_scope = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.flowinfo = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.port = 7;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET6);
	dg.offender_scope = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET6), -1);
	reply(&dg, AF_INET6);
	dg.offender[5] = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET6), -1);
	record(&dg, AF_INET);
	dg.offender_scope = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
}

static void dgram_reply_has_no_error(void)
{
	struct wire_dgram dg;

	reply(&dg, AF_INET);
	dg.ee_errno = EHOSTUNREACH;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.ee_origin = SO_EE_ORIGIN_ICMP;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
	reply(&dg, AF_INET);
	dg.offender_family = AF_INET;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_DATA, AF_INET), -1);
}

static void dgram_record_errno_and_origin(void)
{
	static const uint32_t bad[] = { 0, 4096, 0x7fffffff, 0x80000000u,
					0xffffffffu };
	struct wire_dgram dg;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		record(&dg, AF_INET);
		dg.ee_errno = bad[i];
		CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	}
	record(&dg, AF_INET);
	dg.ee_errno = 4095;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), 0);
	for (int o = 0; o < 256; o++) {
		record(&dg, AF_INET);
		dg.ee_origin = (uint8_t)o;
		if (o != SO_EE_ORIGIN_ICMP)	/* LOCAL: has an offender */
			CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	}
	record(&dg, AF_INET6);
	dg.ee_origin = SO_EE_ORIGIN_ICMP;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET6), -1);
	record(&dg, AF_INET);
	dg.offender_family = AF_INET6;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
	record(&dg, AF_INET);
	dg.port = 1;
	CHECK_EQ(dec(&dg, 64, WIRE_CHAN_ERR, AF_INET), -1);
}

/* ip_local_error(), ipv6_local_error(): no offender, IPv6's port. */
static void dgram_local_records(void)
{
	struct wire_dgram dg;

	for (int f = AF_INET; f <= AF_INET6; f += AF_INET6 - AF_INET) {
		record(&dg, f);
		dg.ee_origin = SO_EE_ORIGIN_LOCAL;
		dg.ee_errno = EMSGSIZE;
		dg.ee_type = dg.ee_code = 0;
		dg.offender_family = 0;
		dg.offender_scope = 0;
		memset(dg.offender, 0, sizeof(dg.offender));
		CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, f), 0);
		dg.port = 128 << 8;
		CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, f), f == AF_INET6 ? 0 : -1);
		dg.port = 0;
		dg.offender_family = (uint8_t)f;
		CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, f), -1);
		dg.offender_family = 0;
		dg.ee_type = 3;
		CHECK_EQ(dec(&dg, 0, WIRE_CHAN_ERR, f), -1);
	}
}

static void is_errno_range(void)
{
	CHECK(!wire_is_errno(0));
	CHECK(wire_is_errno(1));
	CHECK(wire_is_errno(4095));
	CHECK(!wire_is_errno(4096));
	CHECK(!wire_is_errno(-1));
	CHECK(!wire_is_errno(INT32_MIN));
	CHECK(!wire_is_errno(0x80000000LL));
}

/* ---- answers ---- */

/* Room for the oversized bodies the tests send (a page of one entry too
 * many: answer_users). */
static uint8_t ans_buf[WIRE_RESP_HDR + WIRE_RESP_BODY_MAX + 64];
static struct wire_answer ans;

static size_t answer(uint16_t type, int32_t result, const void *body,
		     size_t len)
{
	uint16_t zero = 0;

	memcpy(ans_buf, &type, 2);
	memcpy(ans_buf + 2, &zero, 2);
	memcpy(ans_buf + 4, &result, 4);
	if (len)
		memcpy(ans_buf + WIRE_RESP_HDR, body, len);
	return WIRE_RESP_HDR + len;
}

static int chk(const struct wire_req *req, int32_t result, const void *body,
	       size_t len)
{
	size_t n = answer(req->type, result, body, len);

	return wire_check_answer(req, ans_buf, n, &ans);
}

static void answer_header(void)
{
	struct wire_req req = { .type = WIRE_HELLO };
	uint8_t tok[WIRE_NONCE_LEN + 4] = { 0 };
	size_t n = answer(WIRE_HELLO, 0, tok, sizeof(tok));

	CHECK_EQ(wire_check_answer(&req, ans_buf, n, &ans), 0);
	CHECK_EQ(ans.result, 0);
	CHECK_EQ(ans.nfds, 0);
	for (size_t k = 0; k < WIRE_RESP_HDR; k++)
		CHECK_EQ(wire_check_answer(&req, ans_buf, k, &ans), -1);
	ans_buf[2] = 1;		/* flags */
	CHECK_EQ(wire_check_answer(&req, ans_buf, n, &ans), -1);
	n = answer(WIRE_OPEN, 0, tok, sizeof(tok));	/* another request's */
	CHECK_EQ(wire_check_answer(&req, ans_buf, n, &ans), -1);
	/* Nothing comes for a request of no known type. */
	req.type = WIRE_TYPE_END;
	n = answer(WIRE_TYPE_END, 0, NULL, 0);
	CHECK_EQ(wire_check_answer(&req, ans_buf, n, &ans), -1);
}

static void answer_results(void)
{
	struct wire_req hello = { .type = WIRE_HELLO };
	struct wire_req bind = { .type = WIRE_BIND };
	uint32_t x = 0;

	CHECK_EQ(chk(&hello, -EPROTO, NULL, 0), 0);
	CHECK_EQ(chk(&hello, -1, NULL, 0), 0);
	CHECK_EQ(chk(&hello, -4095, NULL, 0), 0);
	CHECK_EQ(chk(&hello, -4096, NULL, 0), -1);
	CHECK_EQ(chk(&hello, INT32_MIN, NULL, 0), -1);
	CHECK_EQ(chk(&hello, 1, NULL, 0), -1);
	CHECK_EQ(chk(&hello, WIRE_R_UNATTACHED, NULL, 0), -1);
	CHECK_EQ(chk(&bind, WIRE_R_UNATTACHED, NULL, 0), 0);
	CHECK_EQ(ans.result, WIRE_R_UNATTACHED);
	/* "Another network namespace": HELLO's answer only, with nothing. */
	CHECK_EQ(chk(&hello, WIRE_R_FOREIGN_NS, NULL, 0), 0);
	CHECK_EQ(chk(&bind, WIRE_R_FOREIGN_NS, NULL, 0), -1);
	CHECK_EQ(chk(&hello, WIRE_R_FOREIGN_NS, &x, 4), -1);
	CHECK_EQ(chk(&bind, -EADDRINUSE, NULL, 0), 0);
	CHECK_EQ(chk(&bind, 3, NULL, 0), -1);
	CHECK_EQ(chk(&bind, 0, &x, 4), -1);
	/* A failure carries nothing but its errno. */
	CHECK_EQ(chk(&bind, -EINVAL, &x, 4), -1);
	CHECK_EQ(chk(&bind, WIRE_R_UNATTACHED, &x, 4), -1);
	for (uint16_t t = WIRE_HELLO; t < WIRE_TYPE_END; t++) {
		struct wire_req r = { .type = t };

		CHECK_EQ(chk(&r, -EBADF, NULL, 0), 0);
		CHECK_EQ(ans.nfds, 0);
	}
}

/* "It would wait": a send's answer only, and only when it asked. */
static void answer_asked(void)
{
	struct wire_req send = { .type = WIRE_SEND };
	struct wire_req bind = { .type = WIRE_BIND, .rqflags = WIRE_RQ_ASK };
	uint32_t x = 0;

	CHECK_EQ(chk(&send, WIRE_R_ASKED, NULL, 0), -1);
	send.rqflags = WIRE_RQ_SLOT;
	CHECK_EQ(chk(&send, WIRE_R_ASKED, NULL, 0), -1);
	send.rqflags = WIRE_RQ_ASK | WIRE_RQ_SLOT;
	CHECK_EQ(chk(&send, WIRE_R_ASKED, NULL, 0), 0);
	CHECK_EQ(ans.result, WIRE_R_ASKED);
	send.rqflags = WIRE_RQ_ASK;
	CHECK_EQ(chk(&send, WIRE_R_ASKED, NULL, 0), 0);
	CHECK_EQ(chk(&send, WIRE_R_ASKED, &x, 4), -1);
	CHECK_EQ(chk(&send, WIRE_R_ASKED - 1, NULL, 0), -1);
	CHECK_EQ(chk(&bind, WIRE_R_ASKED, NULL, 0), -1);
}

/* The arena comes with HELLO's answer only when its token is new; the
 * answer slot after the token is 0 (none) or a slot of the arena. */
static void answer_hello(void)
{
	static const uint32_t bad_slots[] = { WIRE_ARENA_SLOTS,
					      WIRE_ARENA_SLOTS + 1,
					      0xffffffffu };
	struct wire_req req = { .type = WIRE_HELLO };
	uint8_t tok[WIRE_NONCE_LEN + 4];
	uint32_t slot = 5;

	memset(tok, 7, WIRE_NONCE_LEN);
	memcpy(tok + WIRE_NONCE_LEN, &slot, 4);
	CHECK_EQ(chk(&req, 0, tok, sizeof(tok)), 0);
	CHECK_EQ(ans.nfds, 1);
	CHECK_EQ(ans.fd_kind[0], WIRE_FD_ARENA);
	memcpy(req.nonce, tok, WIRE_NONCE_LEN);
	CHECK_EQ(chk(&req, 0, tok, sizeof(tok)), 0);
	CHECK_EQ(ans.nfds, 0);
	CHECK_EQ(chk(&req, 0, tok, sizeof(tok) - 1), -1);
	CHECK_EQ(chk(&req, 0, tok, WIRE_NONCE_LEN), -1);  /* version 10's */
	CHECK_EQ(chk(&req, 0, NULL, 0), -1);
	CHECK_EQ(chk(&req, -EPROTO, NULL, 0), 0);
	slot = 0;	/* none: the arena is full */
	memcpy(tok + WIRE_NONCE_LEN, &slot, 4);
	CHECK_EQ(chk(&req, 0, tok, sizeof(tok)), 0);
	slot = WIRE_ARENA_SLOTS - 1;
	memcpy(tok + WIRE_NONCE_LEN, &slot, 4);
	CHECK_EQ(chk(&req, 0, tok, sizeof(tok)), 0);
	for (size_t i = 0; i < sizeof(bad_slots) / sizeof(bad_slots[0]); i++) {
		memcpy(tok + WIRE_NONCE_LEN, &bad_slots[i], 4);
		CHECK_EQ(chk(&req, 0, tok, sizeof(tok)), -1);
	}
}

static void answer_open(void)
{
	struct wire_req req = { .type = WIRE_OPEN };
	uint32_t b[3] = { 5, 0, 1 };

	req.u.open.domain = AF_INET;
	req.u.open.type = SOCK_DGRAM | SOCK_CLOEXEC;
	req.u.open.protocol = IPPROTO_ICMP;
	CHECK_EQ(chk(&req, 0, b, 12), 0);
	CHECK_EQ(ans.nfds, 1);
	CHECK_EQ(ans.fd_kind[0], WIRE_FD_SEQPACKET);
	CHECK_EQ(chk(&req, 0, b, 4), -1);
	CHECK_EQ(chk(&req, 0, b, 8), -1);
	CHECK_EQ(chk(&req, 1, b, 12), -1);
	CHECK_EQ(chk(&req, -EACCES, b, 12), -1);
	CHECK_EQ(chk(&req, -EACCES, NULL, 0), 0);
	CHECK_EQ(ans.nfds, 0);
	/* A relayed socket's slot: never 0 (the arena's header), never
	 * past the arena. */
	b[2] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[2] = WIRE_ARENA_SLOTS;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[2] = WIRE_ARENA_SLOTS - 1;
	CHECK_EQ(chk(&req, 0, b, 12), 0);
	b[1] = 0x80;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[1] = 0;
	b[0] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	/* Broker mode: a kernel ping socket of the request's family (and
	 * no slot). */
	b[0] = 5;
	b[1] = WIRE_OPEN_BROKER;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[2] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), 0);
	CHECK_EQ(ans.nfds, 2);
	CHECK_EQ(ans.fd_kind[0], WIRE_FD_ICMP);
	CHECK_EQ(ans.fd_family, AF_INET);
	CHECK_EQ(ans.fd_kind[1], WIRE_FD_SEQPACKET);
	req.u.open.domain = AF_INET6;	/* with IPPROTO_ICMP: never */
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	req.u.open.protocol = IPPROTO_ICMPV6;
	CHECK_EQ(chk(&req, 0, b, 12), 0);
	CHECK_EQ(ans.fd_family, AF_INET6);
	req.u.open.type = SOCK_RAW;	/* the emulation is never brokered */
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[1] = 0;
	b[2] = 3;
	CHECK_EQ(chk(&req, 0, b, 12), 0);
}

static void answer_attach(void)
{
	struct wire_req req = { .type = WIRE_ATTACH };
	uint32_t b[3] = { 9, AF_INET6, 2 };

	CHECK_EQ(chk(&req, 0, b, 12), 0);
	CHECK_EQ(ans.nfds, 0);
	CHECK_EQ(chk(&req, 0, b, 8), -1);
	b[2] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[2] = 2;
	b[1] = 99;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[1] = AF_INET;
	b[0] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	/* Attaching names the socket by descriptor: never "unattached". */
	CHECK_EQ(chk(&req, WIRE_R_UNATTACHED, NULL, 0), -1);
}

/* WIRE_FIND: handle, family, known flags only; ENOENT when none. */
static void answer_find(void)
{
	struct wire_req req = { .type = WIRE_FIND, .u.cookie = 5 };
	uint32_t b[3] = { 9, AF_INET, WIRE_FIND_RAW };

	CHECK_EQ(chk(&req, 0, b, 12), 0);
	CHECK_EQ(ans.nfds, 0);
	CHECK_EQ(chk(&req, 0, b, 8), -1);
	CHECK_EQ(chk(&req, -ENOENT, NULL, 0), 0);
	b[2] = 2;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[2] = 0;
	b[1] = AF_UNIX;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	b[1] = AF_INET6;
	b[0] = 0;
	CHECK_EQ(chk(&req, 0, b, 12), -1);
	CHECK_EQ(chk(&req, WIRE_R_UNATTACHED, NULL, 0), -1);
}

/* A record: its whole length, then as much of it as fits. */
static void answer_errq(void)
{
	struct wire_req req = { .type = WIRE_ERRQ };
	static uint8_t b[4 + WIRE_DGRAM_HDR + WIRE_ERRQ_DATA_MAX + 1];
	uint32_t full = 8;

	memcpy(b, &full, 4);
	CHECK_EQ(chk(&req, 0, b, 4 + WIRE_DGRAM_HDR + 8), 0);
	CHECK_EQ(ans.nfds, 0);
	CHECK_EQ(chk(&req, 0, b, 4 + WIRE_DGRAM_HDR + 7), -1);
	CHECK_EQ(chk(&req, 0, b, 4 + WIRE_DGRAM_HDR + 9), -1);
	CHECK_EQ(chk(&req, 0, b, 3), -1);
	full = 70000;	/* longer than an answer: cut */
	memcpy(b, &full, 4);
	CHECK_EQ(chk(&req, 0, b, 4 + WIRE_DGRAM_HDR + WIRE_ERRQ_DATA_MAX), 0);
	CHECK_EQ(chk(&req, 0, b, 4 + WIRE_DGRAM_HDR + 8), -1);
	CHECK_EQ(chk(&req, -EAGAIN, NULL, 0), 0);
	CHECK_EQ(chk(&req, WIRE_R_UNATTACHED, NULL, 0), 0);
}

static void answer_send(void)
{
	struct wire_req req = { .type = WIRE_SEND };

	req.u.send.len = 64;
	CHECK_EQ(chk(&req, 64, NULL, 0), 0);
	CHECK_EQ(ans.result, 64);
	CHECK_EQ(chk(&req, 0, NULL, 0), 0);
	CHECK_EQ(chk(&req, 65, NULL, 0), -1);
	CHECK_EQ(chk(&req, 64, "x", 1), -1);
	CHECK_EQ(chk(&req, -EMSGSIZE, NULL, 0), 0);
	req.u.send.len = UINT32_MAX;	/* over WIRE_DATA_MAX: no data */
	CHECK_EQ(chk(&req, 64, NULL, 0), -1);
	CHECK_EQ(chk(&req, 0, NULL, 0), -1);
	CHECK_EQ(chk(&req, -EMSGSIZE, NULL, 0), 0);
}

static void answer_options(void)
{
	struct wire_req set = { .type = WIRE_SETOPT };
	struct wire_req get = { .type = WIRE_GETOPT };
	uint8_t v[WIRE_OPTVAL_MAX + 8] = { 1 };

	set.u.opt.level = SOL_IP;
	set.u.opt.name = IP_TTL;
	CHECK_EQ(chk(&set, 0, NULL, 0), 0);
	CHECK_EQ(chk(&set, 0, v, 4), -1);
	CHECK_EQ(chk(&set, 4, NULL, 0), -1);
	set.u.opt.level = SOL_IPV6;
	set.u.opt.name = 32;	/* IPV6_FLOWLABEL_MGR: the label chosen */
	CHECK_EQ(chk(&set, 0, v, 4), 0);
	CHECK_EQ(chk(&set, 0, NULL, 0), -1);
	CHECK_EQ(chk(&set, -EINVAL, v, 4), -1);
	CHECK_EQ(chk(&set, -EINVAL, NULL, 0), 0);

	get.u.opt.level = SOL_IP;
	get.u.opt.name = IP_TTL;
	get.u.opt.len = 4;
	CHECK_EQ(chk(&get, 0, v, 4), 0);
	CHECK_EQ(ans.len, 4);
	CHECK_EQ(chk(&get, 0, v, 1), 0);
	CHECK_EQ(chk(&get, 0, NULL, 0), 0);
	CHECK_EQ(chk(&get, 4, v, 4), 0);	/* result = len (wire.h) */
	CHECK_EQ(chk(&get, 3, v, 4), -1);
	/* The overflow of the caller's buffer: longer than asked. */
	CHECK_EQ(chk(&get, 0, v, 5), -1);
	CHECK_EQ(chk(&get, 0, v, WIRE_OPTVAL_MAX), -1);
	get.u.opt.len = 100000;
	CHECK_EQ(chk(&get, 0, v, WIRE_OPTVAL_MAX), 0);
	CHECK_EQ(chk(&get, 0, v, WIRE_OPTVAL_MAX + 1), -1);
}

static void answer_names(void)
{
	struct wire_req req = { .type = WIRE_GETNAME };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	uint8_t big[WIRE_ADDR_MAX] = { 0 };

	CHECK_EQ(chk(&req, 0, &s4, sizeof(s4)), 0);
	CHECK_EQ(chk(&req, 0, &s6, sizeof(s6)), 0);
	CHECK_EQ(chk(&req, 0, &s6, sizeof(s4)), -1);
	CHECK_EQ(chk(&req, 0, &s4, sizeof(s4) - 1), -1);
	CHECK_EQ(chk(&req, 0, NULL, 0), -1);
	memcpy(big, &s4, sizeof(s4));
	CHECK_EQ(chk(&req, 0, big, sizeof(big)), -1);
	req.type = WIRE_GETPEER;
	CHECK_EQ(chk(&req, -ENOTCONN, NULL, 0), 0);
	CHECK_EQ(chk(&req, (int32_t)sizeof(s6), &s6, sizeof(s6)), 0);
}

static void answer_others(void)
{
	struct wire_req req = { .type = WIRE_STATS };
	uint8_t b[WIRE_RESP_BODY_MAX] = { 0 };
	struct wire_table_hdr th = { 0 };

	CHECK_EQ(chk(&req, 0, b, sizeof(struct wire_stats)), 0);
	CHECK_EQ(chk(&req, 0, b, sizeof(struct wire_stats) - 1), -1);
	CHECK_EQ(chk(&req, 0, NULL, 0), -1);
	req.type = WIRE_TABLE;
	CHECK_EQ(chk(&req, 0, &th, sizeof(th)), 0);
	th.count = 1;
	CHECK_EQ(chk(&req, 0, &th, sizeof(th)), -1);
	req.type = WIRE_BROKER_BIND;
	CHECK_EQ(chk(&req, 0, NULL, 0), 0);
	CHECK_EQ(ans.nfds, 1);
	CHECK_EQ(ans.fd_kind[0], WIRE_FD_ICMP);
	CHECK_EQ(ans.fd_family, 0);
	CHECK_EQ(chk(&req, 0, b, 8), -1);
	CHECK_EQ(chk(&req, -EADDRINUSE, NULL, 0), 0);
	CHECK_EQ(ans.nfds, 0);
	for (uint16_t t = WIRE_DETACH; t < WIRE_TYPE_END; t++) {
		struct wire_req r = { .type = t };

		if (t == WIRE_BIND || t == WIRE_CONNECT || t == WIRE_DETACH ||
		    t == WIRE_SHUTDOWN || t == WIRE_KEEPID) {
			CHECK_EQ(chk(&r, 0, NULL, 0), 0);
			CHECK_EQ(chk(&r, 0, b, 1), -1);
			CHECK_EQ(chk(&r, 1, NULL, 0), -1);
		}
	}
}

/* WIRE_STATS: the version a string of the allowed characters, NUL-ended
 * and zero after; known flags; pad 0. */
static void answer_stats(void)
{
	struct wire_req req = { .type = WIRE_STATS };
	struct wire_stats st;

	memset(&st, 0, sizeof(st));
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), 0);	/* "" */
	memcpy(st.version, "0.1.0+deb13u1~rc_2-x", 20);
	st.flags = WIRE_ST_BROKER4 | WIRE_ST_BROKER6;
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), 0);
	st.flags = 4;
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	st.flags = 0;
	st.pad = 1;			/* older clients require it 0 */
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	st.pad = 0;
	st.version[3] = '"';		/* would end a label value */
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	st.version[3] = '\n';		/* would end a line */
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	st.version[3] = '1';
	st.version[25] = 'x';		/* after the NUL */
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	memset(st.version, 'a', sizeof(st.version));	/* no NUL */
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), -1);
	memset(st.version, 'a', sizeof(st.version) - 1);
	st.version[sizeof(st.version) - 1] = 0;
	CHECK_EQ(chk(&req, 0, &st, sizeof(st)), 0);
	CHECK_EQ(chk(&req, 0, &st, sizeof(st) - 1), -1);
	CHECK(strcmp(wire_refusal_name(WIRE_RF_MAX_SOCKETS), "max_sockets") == 0);
	CHECK(strcmp(wire_refusal_name(WIRE_RF_END), "unknown") == 0);
	for (unsigned i = 0; i < WIRE_RF_END; i++)
		CHECK(strcmp(wire_refusal_name(i), "unknown") != 0);
}

/* A WIRE_USERS page: hdr, then count entries of uids ascending from
 * the cursor. */
static size_t users_page(uint8_t *b, uint32_t next, uint32_t count,
			 const uint32_t *uids)
{
	struct wire_users_hdr h = { .next = next, .count = count,
				    .flags = WIRE_USERS_ALL };

	memcpy(b, &h, sizeof(h));
	for (uint32_t i = 0; i < count; i++) {
		struct wire_user_entry e = { .uid = uids[i], .requests = i };

		memcpy(b + sizeof(h) + i * sizeof(e), &e, sizeof(e));
	}
	return sizeof(h) + count * sizeof(struct wire_user_entry);
}

static void answer_users(void)
{
	static uint8_t b[WIRE_RESP_BODY_MAX + 64];
	static uint32_t uids[WIRE_USERS_PAGE + 1];
	struct wire_req req = { .type = WIRE_USERS };
	struct wire_user_entry e;
	size_t n;

	for (uint32_t i = 0; i <= WIRE_USERS_PAGE; i++)
		uids[i] = 1000 + 2 * i;
	CHECK_EQ(chk(&req, 0, b, users_page(b, 0, 0, uids)), 0);
	n = users_page(b, 0, 3, uids);
	CHECK_EQ(chk(&req, 0, b, n), 0);
	wire_user_entry_at(b, 2, &e);
	CHECK_EQ(e.uid, 1004);
	CHECK_EQ(chk(&req, 0, b, n - 1), -1);		/* an entry cut */
	CHECK_EQ(chk(&req, 0, b, 15), -1);		/* the header cut */
	req.u.cursor = 1001;				/* below the cursor */
	CHECK_EQ(chk(&req, 0, b, n), -1);
	req.u.cursor = 1000;
	uids[1] = 1000;					/* not ascending */
	CHECK_EQ(chk(&req, 0, b, users_page(b, 0, 3, uids)), -1);
	uids[1] = 1002;
	/* More only after a full page, from its last uid + 1. */
	n = users_page(b, 1000 + 2 * (WIRE_USERS_PAGE - 1) + 1,
		       WIRE_USERS_PAGE, uids);
	CHECK(n <= WIRE_RESP_BODY_MAX);
	CHECK_EQ(chk(&req, 0, b, n), 0);
	CHECK_EQ(chk(&req, 0, b, users_page(b, 1000 + 2 * WIRE_USERS_PAGE,
					    WIRE_USERS_PAGE, uids)), -1);
	CHECK_EQ(chk(&req, 0, b, users_page(b, 1005, 3, uids)), -1);
	CHECK_EQ(chk(&req, 0, b, users_page(b, 5, 0, uids)), -1);
	CHECK_EQ(chk(&req, 0, b, users_page(b, 0, WIRE_USERS_PAGE + 1,
					    uids)), -1);
	/* The last uid there is: nothing can follow it. */
	uids[0] = UINT32_MAX;
	CHECK_EQ(chk(&req, 0, b, users_page(b, 0, 1, uids)), 0);
	uids[0] = 1000;
	n = users_page(b, 0, 1, uids);
	b[8] = 2;					/* unknown flag */
	CHECK_EQ(chk(&req, 0, b, n), -1);
	n = users_page(b, 0, 1, uids);
	b[12] = 1;					/* pad */
	CHECK_EQ(chk(&req, 0, b, n), -1);
	n = users_page(b, 0, 1, uids);
	b[16 + 4] = 1;					/* entry pad */
	CHECK_EQ(chk(&req, 0, b, n), -1);
	CHECK_EQ(chk(&req, -EPERM, NULL, 0), 0);
}

int main(void)
{
	TEST(dgram_valid_accepted);
	TEST(dgram_kind_belongs_to_its_channel);
	TEST(dgram_truncations_refused);
	TEST(dgram_family_is_the_sockets);
	TEST(dgram_options_fit);
	TEST(dgram_lengths);
	TEST(dgram_padding_and_time);
	TEST(dgram_fields_of_the_family);
	TEST(dgram_reply_has_no_error);
	TEST(dgram_record_errno_and_origin);
	TEST(dgram_local_records);
	TEST(is_errno_range);
	TEST(answer_header);
	TEST(answer_results);
	TEST(answer_asked);
	TEST(answer_hello);
	TEST(answer_open);
	TEST(answer_attach);
	TEST(answer_find);
	TEST(answer_errq);
	TEST(answer_send);
	TEST(answer_options);
	TEST(answer_names);
	TEST(answer_others);
	TEST(answer_stats);
	TEST(answer_users);
	return CHECK_DONE();
}
