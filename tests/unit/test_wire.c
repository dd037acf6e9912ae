/* SPDX-License-Identifier: ISC */
/*
 * test_wire - the request encoder and the strict decoder (src/wire/wire.c).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "wire/buf.h"
#include "wire/wire.h"
#include "check.h"

static uint8_t msg[WIRE_MSG_MAX + 64];
static uint8_t data[WIRE_DATA_MAX + 1];
static uint8_t ctlbuf[WIRE_CTL_MAX + 1];

/* Encode req, then append dlen bytes of data as the client's iovec would. */
static long build(const struct wire_req *req, const uint8_t *d, size_t dlen)
{
	long n = wire_encode_req(req, msg, sizeof(msg));

	if (n < 0 || (size_t)n + dlen > sizeof(msg))
		return -1;
	if (dlen)
		memcpy(msg + n, d, dlen);
	return n + (long)dlen;
}

struct sample {
	struct wire_req req;
	size_t dlen;		/* SEND data appended */
};

static void sockaddr4(uint8_t *out, uint32_t host_addr, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	s.sin_addr.s_addr = htonl(host_addr);
	memcpy(out, &s, sizeof(s));
}

#define NSAMPLES 45	/* room for samples()' */

/* One or more valid messages of every request type. */
static size_t samples(struct sample *s)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(ctlbuf); i++)
		ctlbuf[i] = (uint8_t)(i ^ 0x5a);
	memset(s, 0, NSAMPLES * sizeof(*s));

	s[n].req.type = WIRE_HELLO;
	s[n++].req.u.version = WIRE_VERSION;
	s[n].req.type = WIRE_HELLO;	/* naming an arena by its token */
	memset(s[n].req.nonce, 0x3c, WIRE_NONCE_LEN);
	s[n++].req.u.version = WIRE_VERSION;
	s[n].req.type = WIRE_ERRQ;
	s[n++].req.handle = 9;

	s[n].req.type = WIRE_OPEN;
	s[n].req.u.open.domain = AF_INET;
	s[n].req.u.open.type = SOCK_DGRAM | SOCK_NONBLOCK;
	s[n++].req.u.open.protocol = IPPROTO_ICMP;

	s[n].req.type = WIRE_OPEN;
	s[n].req.u.open.domain = -1;
	s[n].req.u.open.type = -2;
	s[n++].req.u.open.protocol = -3;

	s[n].req.type = WIRE_ATTACH;
	s[n++].req.handle = 0;
	s[n].req.type = WIRE_ATTACH;
	s[n].req.handle = 77;
	memset(s[n++].req.nonce, 0xa5, WIRE_NONCE_LEN);
	s[n].req.type = WIRE_DETACH;
	s[n++].req.handle = 0xffffffffu;
	s[n].req.type = WIRE_DETACH;	/* the arena is the process's own */
	s[n].req.rqflags = WIRE_RQ_SOLE;
	s[n++].req.handle = 5;
	s[n].req.type = WIRE_GETNAME;
	s[n++].req.handle = 3;
	s[n].req.type = WIRE_GETPEER;
	s[n++].req.handle = 4;
	s[n].req.type = WIRE_STATS;
	s[n++].req.handle = 5;

	s[n].req.type = WIRE_BIND;
	s[n].req.handle = 6;
	s[n].req.u.addr.len = sizeof(struct sockaddr_in);
	sockaddr4(s[n++].req.u.addr.bytes, INADDR_LOOPBACK, 40001);

	s[n].req.type = WIRE_BIND;
	s[n++].req.u.addr.len = 0;

	s[n].req.type = WIRE_CONNECT;
	s[n].req.handle = 7;
	s[n].req.u.addr.len = WIRE_ADDR_MAX;
	for (int i = 0; i < WIRE_ADDR_MAX; i++)
		s[n].req.u.addr.bytes[i] = (uint8_t)(0x80 + i);
	n++;

	s[n].req.type = WIRE_SEND;
	s[n].req.handle = 8;
	s[n].req.u.send.flags = MSG_DONTWAIT;
	s[n].req.u.send.namelen = sizeof(struct sockaddr_in);
	sockaddr4(s[n].req.u.send.name, INADDR_LOOPBACK, 0);
	s[n].req.u.send.len = 64;
	s[n++].dlen = 64;

	s[n].req.type = WIRE_SEND;
	s[n].req.u.send.namelen = WIRE_NO_NAME;
	s[n].req.u.send.ctllen = 20;
	s[n].req.u.send.ctl = ctlbuf;
	s[n].req.u.send.len = 8;
	s[n++].dlen = 8;

	s[n].req.type = WIRE_SEND;	/* answered in the answer slot */
	s[n].req.rqflags = WIRE_RQ_SLOT;
	s[n].req.handle = 8;
	s[n].req.u.send.namelen = WIRE_NO_NAME;
	s[n].req.u.send.len = 16;
	s[n++].dlen = 16;

	s[n].req.type = WIRE_WAIT;
	s[n++].req.handle = 0;

	s[n].req.type = WIRE_LOGLOST;
	s[n++].req.handle = 0;

	s[n].req.type = WIRE_SETERR;
	s[n].req.handle = 9;
	s[n++].req.u.err = EFAULT;

	s[n].req.type = WIRE_SEND;			/* empty message */
	s[n].req.u.send.namelen = 0;
	s[n].req.u.send.len = 0;
	s[n++].dlen = 0;

	s[n].req.type = WIRE_SEND;			/* too big: no data */
	s[n].req.u.send.namelen = WIRE_NO_NAME;
	s[n].req.u.send.len = WIRE_DATA_MAX + 1;
	s[n++].dlen = 0;

	s[n].req.type = WIRE_SEND;
	s[n].req.u.send.namelen = WIRE_NO_NAME;
	s[n].req.u.send.len = 0xffffffffu;
	s[n++].dlen = 0;

	s[n].req.type = WIRE_SEND;			/* every field at its max */
	s[n].req.u.send.flags = -1;
	s[n].req.u.send.namelen = WIRE_ADDR_MAX;
	memset(s[n].req.u.send.name, 0xab, WIRE_ADDR_MAX);
	s[n].req.u.send.ctllen = WIRE_CTL_MAX;
	s[n].req.u.send.ctl = ctlbuf;
	s[n].req.u.send.len = WIRE_DATA_MAX;
	s[n++].dlen = WIRE_DATA_MAX;

	s[n].req.type = WIRE_SETOPT;
	s[n].req.u.opt.level = IPPROTO_IP;
	s[n].req.u.opt.name = IP_TTL;
	s[n].req.u.opt.len = 4;
	memcpy(s[n++].req.u.opt.val, "\x40\0\0\0", 4);

	s[n].req.type = WIRE_SETOPT;
	s[n].req.u.opt.level = SOL_SOCKET;
	s[n].req.u.opt.name = SO_BROADCAST;
	s[n++].req.u.opt.len = 0;

	s[n].req.type = WIRE_SETOPT;
	s[n].req.u.opt.len = WIRE_OPTVAL_MAX;
	memset(s[n++].req.u.opt.val, 0x33, WIRE_OPTVAL_MAX);

	s[n].req.type = WIRE_GETOPT;
	s[n].req.u.opt.level = IPPROTO_IP;
	s[n].req.u.opt.name = IP_TTL;
	s[n++].req.u.opt.len = 4;

	s[n].req.type = WIRE_GETOPT;
	s[n++].req.u.opt.len = WIRE_OPTVAL_MAX;

	/* A getsockopt that reads its value: the request carries it. */
	s[n].req.type = WIRE_GETOPT;
	s[n].req.u.opt.level = SOL_IPV6;
	s[n].req.u.opt.name = IPV6_FLOWLABEL_MGR;
	s[n].req.u.opt.len = 32;
	memset(s[n++].req.u.opt.val, 0x5a, 32);

	s[n].req.type = WIRE_GETOPT;
	s[n].req.u.opt.level = SOL_IP;
	s[n].req.u.opt.name = MCAST_MSFILTER;
	s[n].req.u.opt.len = 100;	/* short: that much of it */
	memset(s[n++].req.u.opt.val, 0x5b, 100);

	s[n].req.type = WIRE_SHUTDOWN;
	s[n++].req.u.how = SHUT_WR;

	s[n].req.type = WIRE_KEEPID;
	s[n++].req.u.ident = 0xFFFF;
	s[n].req.type = WIRE_KEEPID;
	s[n++].req.u.ident = 0;

	s[n].req.type = WIRE_TABLE;
	s[n++].req.u.cursor = 0;
	s[n].req.type = WIRE_TABLE;
	s[n].req.handle = 11;
	s[n++].req.u.cursor = 0xffffffffu;
	s[n].req.type = WIRE_USERS;
	s[n++].req.u.cursor = 65534;

	s[n].req.type = WIRE_BROKER_BIND;
	s[n].req.u.addr.len = 16;
	s[n].req.u.addr.bytes[0] = AF_INET;
	s[n++].req.u.addr.bytes[3] = 9;
	s[n].req.type = WIRE_BROKER_BIND;
	s[n].req.handle = 5;
	s[n].req.flags = WIRE_BB_KEEPID | WIRE_BB_REUSE | WIRE_BB_FREEBIND;
	s[n].req.ifindex = 3;
	s[n].req.nonce[15] = 1;
	s[n++].req.u.addr.len = 0;

	s[n].req.type = WIRE_FIND;
	s[n++].req.u.cookie = 1;
	s[n].req.type = WIRE_FIND;
	s[n].req.handle = 12;
	s[n++].req.u.cookie = 0xfedcba9876543210ull;

	CHECK(n <= NSAMPLES);	/* the callers' arrays */
	return n;
}

static int same_req(const struct wire_req *a, const struct wire_req *b,
		    const uint8_t *m, size_t mlen)
{
	if (a->type != b->type || a->handle != b->handle ||
	    a->rqflags != b->rqflags)
		return 0;
	switch (a->type) {
	case WIRE_HELLO:
		return a->u.version == b->u.version &&
		       memcmp(a->nonce, b->nonce, WIRE_NONCE_LEN) == 0;
	case WIRE_OPEN:
		return a->u.open.domain == b->u.open.domain &&
		       a->u.open.type == b->u.open.type &&
		       a->u.open.protocol == b->u.open.protocol;
	case WIRE_BROKER_BIND:
		if (a->flags != b->flags || a->ifindex != b->ifindex ||
		    memcmp(a->nonce, b->nonce, WIRE_NONCE_LEN) != 0)
			return 0;
		__attribute__((fallthrough));	/* its name as BIND's */
	case WIRE_BIND:
	case WIRE_CONNECT:
		return a->u.addr.len == b->u.addr.len &&
		       memcmp(a->u.addr.bytes, b->u.addr.bytes,
			      a->u.addr.len) == 0;
	case WIRE_ATTACH:
		return memcmp(a->nonce, b->nonce, WIRE_NONCE_LEN) == 0;
	case WIRE_SEND: {
		uint32_t dl = a->u.send.len <= WIRE_DATA_MAX ? a->u.send.len
							    : 0;

		if (a->u.send.flags != b->u.send.flags ||
		    a->u.send.len != b->u.send.len ||
		    a->u.send.namelen != b->u.send.namelen ||
		    a->u.send.ctllen != b->u.send.ctllen ||
		    b->u.send.datalen != dl)
			return 0;
		if (a->u.send.namelen != WIRE_NO_NAME &&
		    memcmp(a->u.send.name, b->u.send.name,
			   a->u.send.namelen) != 0)
			return 0;
		/* ctl and data point into the message, data at its end. */
		if (b->u.send.ctl < m || b->u.send.ctl > m + mlen ||
		    (a->u.send.ctllen &&
		     memcmp(a->u.send.ctl, b->u.send.ctl, a->u.send.ctllen)))
			return 0;
		if (b->u.send.data != m + mlen - dl ||
		    memcmp(b->u.send.data, data, dl) != 0)
			return 0;
		return 1;
	}
	case WIRE_SETOPT:
		return a->u.opt.level == b->u.opt.level &&
		       a->u.opt.name == b->u.opt.name &&
		       a->u.opt.len == b->u.opt.len &&
		       memcmp(a->u.opt.val, b->u.opt.val, a->u.opt.len) == 0;
	case WIRE_GETOPT:
		return a->u.opt.level == b->u.opt.level &&
		       a->u.opt.name == b->u.opt.name &&
		       a->u.opt.len == b->u.opt.len;
	case WIRE_SHUTDOWN:
		return a->u.how == b->u.how;
	case WIRE_KEEPID:
		return a->u.ident == b->u.ident;
	case WIRE_SETERR:
		return a->u.err == b->u.err;
	case WIRE_TABLE:
	case WIRE_USERS:
		return a->u.cursor == b->u.cursor;
	case WIRE_FIND:
		return a->u.cookie == b->u.cookie;
	default:
		return 1;
	}
}

/* The fixed layout of the header: u16 type, u16 0, u32 handle. */
static void header_layout(void)
{
	struct wire_req req = { .type = WIRE_HELLO, .handle = 0x01020304,
				.u.version = 0xa0b0c0d0 };
	uint16_t t, f;
	uint32_t h, v;
	long n = wire_encode_req(&req, msg, sizeof(msg));

	CHECK_EQ(n, WIRE_REQ_HDR + 4 + WIRE_NONCE_LEN);	/* and the token */
	memcpy(&t, msg, 2);
	memcpy(&f, msg + 2, 2);
	memcpy(&h, msg + 4, 4);
	memcpy(&v, msg + 8, 4);
	CHECK_EQ(t, WIRE_HELLO);
	CHECK_EQ(f, 0);
	CHECK_EQ(h, 0x01020304);
	CHECK_EQ(v, 0xa0b0c0d0);
}

/* encode -> decode gives the same request, for every type. */
static void round_trip_every_type(void)
{
	struct sample s[NSAMPLES];
	size_t n = samples(s);
	unsigned seen = 0;

	for (size_t i = 0; i < n; i++) {
		struct wire_req out;
		long len = build(&s[i].req, data, s[i].dlen);

		CHECK(len > 0);
		if (len <= 0)
			continue;
		CHECK_EQ(wire_decode_req(msg, (size_t)len, &out), 0);
		CHECK(same_req(&s[i].req, &out, msg, (size_t)len));
		seen |= 1u << s[i].req.type;
	}
	for (unsigned t = WIRE_HELLO; t < WIRE_TYPE_END; t++)
		CHECK(seen & (1u << t));
}

/* decode -> encode gives the same bytes: the format is canonical. */
static void reencode_is_identical(void)
{
	static uint8_t again[sizeof(msg)];
	struct sample s[NSAMPLES];
	size_t n = samples(s);

	for (size_t i = 0; i < n; i++) {
		struct wire_req out;
		long len = build(&s[i].req, data, s[i].dlen), len2;

		if (len <= 0 || wire_decode_req(msg, (size_t)len, &out)) {
			CHECK(!"sample did not decode");
			continue;
		}
		len2 = wire_encode_req(&out, again, sizeof(again));
		CHECK(len2 >= 0);
		if (len2 < 0)
			continue;
		if (out.type == WIRE_SEND && out.u.send.datalen) {
			memcpy(again + len2, out.u.send.data,
			       out.u.send.datalen);
			len2 += out.u.send.datalen;
		}
		CHECK_EQ(len2, len);
		CHECK(memcmp(again, msg, (size_t)len) == 0);
	}
}

/* Every proper prefix of every valid message is refused. */
static void every_truncation_refused(void)
{
	struct sample s[NSAMPLES];
	size_t n = samples(s);

	for (size_t i = 0; i < n; i++) {
		struct wire_req out;
		long len = build(&s[i].req, data, s[i].dlen);

		for (long cut = 0; cut < len; cut++) {
			if (wire_decode_req(msg, (size_t)cut, &out) != -1) {
				CHECK(!"a truncated message decoded");
				printf("# type %u, cut at %ld of %ld\n",
				       s[i].req.type, cut, len);
				break;
			}
		}
	}
}

/* One (or more) extra bytes after a valid message: refused. */
static void trailing_bytes_refused(void)
{
	struct sample s[NSAMPLES];
	size_t n = samples(s);

	for (size_t i = 0; i < n; i++) {
		struct wire_req out;
		long len = build(&s[i].req, data, s[i].dlen);

		msg[len] = 0;
		msg[len + 1] = 0;
		msg[len + 2] = 0;
		msg[len + 3] = 0;
		CHECK_EQ(wire_decode_req(msg, (size_t)len + 1, &out), -1);
		CHECK_EQ(wire_decode_req(msg, (size_t)len + 4, &out), -1);
	}
}

/* Header with a type the protocol does not know. */
static void unknown_type_refused(void)
{
	static const uint16_t bad[] = { 0, WIRE_TYPE_END, WIRE_TYPE_END + 1,
					0x00ff, 0xffff };
	struct wire_req out, req = { .type = 0 };
	struct wbuf w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (size_t body = 0; body <= 8; body += 4) {
			wbuf_init(&w, msg, sizeof(msg));
			wbuf_u16(&w, bad[i]);
			wbuf_u16(&w, 0);
			wbuf_u32(&w, 1);
			for (size_t k = 0; k < body; k++)
				wbuf_u8(&w, 0);
			CHECK_EQ(wire_decode_req(msg, (size_t)wbuf_done(&w),
						 &out), -1);
		}
		req.type = bad[i];
		CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
	}
}

/* The u16 after the type: WIRE_RQ_SLOT and WIRE_RQ_ASK on a send,
 * WIRE_RQ_SOLE on a detach, else 0. */
static void nonzero_flags_refused(void)
{
	static const uint16_t flags[] = { WIRE_RQ_SLOT, WIRE_RQ_SOLE,
					  WIRE_RQ_SLOT | WIRE_RQ_SOLE,
					  WIRE_RQ_ASK,
					  WIRE_RQ_ASK | WIRE_RQ_SLOT,
					  WIRE_RQ_ASK | WIRE_RQ_SOLE, 8,
					  0x8000, 0xffff };
	struct sample s[NSAMPLES];
	size_t n = samples(s);

	for (size_t i = 0; i < n; i++) {
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			struct wire_req out;
			long len = build(&s[i].req, data, s[i].dlen);
			bool ok = (!(flags[f] & ~(WIRE_RQ_SLOT | WIRE_RQ_ASK)) &&
				   s[i].req.type == WIRE_SEND) ||
				  (flags[f] == WIRE_RQ_SOLE &&
				   s[i].req.type == WIRE_DETACH);

			memcpy(msg + 2, &flags[f], 2);
			CHECK_EQ(wire_decode_req(msg, (size_t)len, &out),
				 ok ? 0 : -1);
			if (ok)
				CHECK_EQ(out.rqflags, flags[f]);
		}
	}
}

/* Raw message builder: header, then the fields the caller adds. */
static void raw_hdr(struct wbuf *w, uint16_t type)
{
	wbuf_init(w, msg, sizeof(msg));
	wbuf_u16(w, type);
	wbuf_u16(w, 0);
	wbuf_u32(w, 9);
}

static void raw_fill(struct wbuf *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wbuf_u8(w, (uint8_t)i);
}

static int raw_decode(const struct wbuf *w, struct wire_req *out)
{
	long n = wbuf_done(w);

	return n < 0 ? -2 : wire_decode_req(msg, (size_t)n, out);
}

/* BIND and CONNECT names: up to 128 bytes. */
static void addr_len_limit(void)
{
	static const uint16_t types[] = { WIRE_BIND, WIRE_CONNECT };
	struct wire_req out, req = { .type = WIRE_BIND };
	struct wbuf w;

	for (size_t t = 0; t < 2; t++) {
		raw_hdr(&w, types[t]);
		wbuf_u32(&w, WIRE_ADDR_MAX);
		raw_fill(&w, WIRE_ADDR_MAX);
		CHECK_EQ(raw_decode(&w, &out), 0);
		CHECK_EQ(out.u.addr.len, WIRE_ADDR_MAX);

		raw_hdr(&w, types[t]);
		wbuf_u32(&w, WIRE_ADDR_MAX + 1);
		raw_fill(&w, WIRE_ADDR_MAX + 1);
		CHECK_EQ(raw_decode(&w, &out), -1);

		raw_hdr(&w, types[t]);
		wbuf_u32(&w, 0xffffffffu);
		raw_fill(&w, 200);
		CHECK_EQ(raw_decode(&w, &out), -1);
	}
	/* The encoder refuses to produce one too. */
	req.u.addr.len = WIRE_ADDR_MAX + 1;
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

/* SETOPT and GETOPT values: up to 256 bytes. */
static void opt_len_limit(void)
{
	struct wire_req out, req = { .type = WIRE_SETOPT };
	struct wbuf w;

	raw_hdr(&w, WIRE_SETOPT);
	wbuf_i32(&w, SOL_SOCKET);
	wbuf_i32(&w, SO_BROADCAST);
	wbuf_u32(&w, WIRE_OPTVAL_MAX + 1);
	raw_fill(&w, WIRE_OPTVAL_MAX + 1);
	CHECK_EQ(raw_decode(&w, &out), -1);

	raw_hdr(&w, WIRE_GETOPT);
	wbuf_i32(&w, SOL_SOCKET);
	wbuf_i32(&w, SO_BROADCAST);
	wbuf_u32(&w, WIRE_OPTVAL_MAX + 1);
	CHECK_EQ(raw_decode(&w, &out), -1);

	raw_hdr(&w, WIRE_GETOPT);
	wbuf_i32(&w, SOL_SOCKET);
	wbuf_i32(&w, SO_BROADCAST);
	wbuf_u32(&w, 0xffffffffu);
	CHECK_EQ(raw_decode(&w, &out), -1);

	/* SETOPT with fewer value bytes than its len. */
	raw_hdr(&w, WIRE_SETOPT);
	wbuf_i32(&w, SOL_SOCKET);
	wbuf_i32(&w, SO_BROADCAST);
	wbuf_u32(&w, 4);
	raw_fill(&w, 3);
	CHECK_EQ(raw_decode(&w, &out), -1);

	req.u.opt.len = WIRE_OPTVAL_MAX + 1;
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

/* A SEND message by hand: flags, len, namelen, name, ctllen, ctl, data. */
static void raw_send(struct wbuf *w, uint32_t len, uint32_t namelen,
		     size_t namebytes, uint32_t ctllen, size_t ctlbytes,
		     size_t databytes)
{
	raw_hdr(w, WIRE_SEND);
	wbuf_i32(w, 0);
	wbuf_u32(w, len);
	wbuf_u32(w, namelen);
	raw_fill(w, namebytes);
	wbuf_u32(w, ctllen);
	raw_fill(w, ctlbytes);
	raw_fill(w, databytes);
}

/* data holds exactly len bytes, or none when len > 0xFFFF. */
static void send_len_must_match_data(void)
{
	struct wire_req out;
	struct wbuf w;

	raw_send(&w, 64, WIRE_NO_NAME, 0, 0, 0, 64);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.send.datalen, 64);
	raw_send(&w, 64, WIRE_NO_NAME, 0, 0, 0, 63);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 64, WIRE_NO_NAME, 0, 0, 0, 65);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 0, WIRE_NO_NAME, 0, 0, 0, 1);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 8, WIRE_NO_NAME, 0, 0, 0, 0);
	CHECK_EQ(raw_decode(&w, &out), -1);

	/* Oversized: the daemon answers EMSGSIZE; no data may come. */
	raw_send(&w, WIRE_DATA_MAX + 1, WIRE_NO_NAME, 0, 0, 0, 0);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.send.len, WIRE_DATA_MAX + 1);
	CHECK_EQ(out.u.send.datalen, 0);
	raw_send(&w, WIRE_DATA_MAX + 1, WIRE_NO_NAME, 0, 0, 0, 1);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 0xffffffffu, WIRE_NO_NAME, 0, 0, 0, 100);
	CHECK_EQ(raw_decode(&w, &out), -1);

	raw_send(&w, WIRE_DATA_MAX, WIRE_NO_NAME, 0, 0, 0, WIRE_DATA_MAX);
	CHECK_EQ(raw_decode(&w, &out), 0);
	raw_send(&w, WIRE_DATA_MAX, WIRE_NO_NAME, 0, 0, 0, WIRE_DATA_MAX + 1);
	CHECK_EQ(raw_decode(&w, &out), -1);
}

static void send_ctllen_limit(void)
{
	struct wire_req out, req = { .type = WIRE_SEND };
	struct wbuf w;

	raw_send(&w, 8, WIRE_NO_NAME, 0, WIRE_CTL_MAX, WIRE_CTL_MAX, 8);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.send.ctllen, WIRE_CTL_MAX);
	raw_send(&w, 8, WIRE_NO_NAME, 0, WIRE_CTL_MAX + 1, WIRE_CTL_MAX + 1,
		 8);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 0, WIRE_NO_NAME, 0, 0xffffffffu, 0, 0);
	CHECK_EQ(raw_decode(&w, &out), -1);

	req.u.send.namelen = WIRE_NO_NAME;
	req.u.send.ctllen = WIRE_CTL_MAX + 1;
	req.u.send.ctl = ctlbuf;
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

static void send_namelen_limit(void)
{
	struct wire_req out, req = { .type = WIRE_SEND };
	struct wbuf w;

	raw_send(&w, 8, WIRE_ADDR_MAX, WIRE_ADDR_MAX, 0, 0, 8);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.send.namelen, WIRE_ADDR_MAX);
	raw_send(&w, 8, WIRE_ADDR_MAX + 1, WIRE_ADDR_MAX + 1, 0, 0, 8);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_send(&w, 8, WIRE_NO_NAME - 1, 0, 0, 0, 8);
	CHECK_EQ(raw_decode(&w, &out), -1);

	/* "no name": no name bytes follow, and it decodes as such. */
	raw_send(&w, 8, WIRE_NO_NAME, 0, 0, 0, 8);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.send.namelen, WIRE_NO_NAME);
	CHECK_EQ(out.u.send.datalen, 8);

	req.u.send.namelen = WIRE_ADDR_MAX + 1;
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

/* The encoder reports a buffer too small at every size below the need. */
static void encoder_small_buffer(void)
{
	struct sample s[NSAMPLES];
	size_t n = samples(s);
	static uint8_t small[WIRE_MSG_MAX];

	for (size_t i = 0; i < n; i++) {
		long need = wire_encode_req(&s[i].req, msg, sizeof(msg));

		CHECK(need >= WIRE_REQ_HDR);
		for (long cap = 0; cap < need; cap++)
			CHECK_EQ(wire_encode_req(&s[i].req, small, (size_t)cap),
				 -1);
		CHECK_EQ(wire_encode_req(&s[i].req, small, (size_t)need),
			 need);
	}
}

/* KEEPID: an identifier is 16 bits; anything larger is refused. */
static void keepid_range(void)
{
	struct wire_req out, req = { .type = WIRE_KEEPID, .u.ident = 0x10000 };
	struct wbuf w;

	raw_hdr(&w, WIRE_KEEPID);
	wbuf_u32(&w, 0xFFFF);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.ident, 0xFFFF);
	raw_hdr(&w, WIRE_KEEPID);
	wbuf_u32(&w, 0x10000);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_hdr(&w, WIRE_KEEPID);
	wbuf_u16(&w, 7);
	CHECK_EQ(raw_decode(&w, &out), -1);
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

/* SETERR: an errno a program may see, 1 to 511; 0, the kernel's own
 * codes from 512 (ERESTARTSYS) on, or anything else is refused. */
static void seterr_range(void)
{
	static const int32_t bad[] = { 0, -1, 512, 4095, 4096, INT32_MIN };
	struct wire_req out;
	struct wbuf w;

	raw_hdr(&w, WIRE_SETERR);
	wbuf_i32(&w, 511);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.err, 511);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		raw_hdr(&w, WIRE_SETERR);
		wbuf_i32(&w, bad[i]);
		CHECK_EQ(raw_decode(&w, &out), -1);
	}
	raw_hdr(&w, WIRE_SETERR);
	wbuf_u16(&w, 7);
	CHECK_EQ(raw_decode(&w, &out), -1);
}

/* FIND: exactly a cookie, never 0 (the kernel's start at 1). */
static void find_request(void)
{
	struct wire_req out, req = { .type = WIRE_FIND };
	struct wbuf w;

	raw_hdr(&w, WIRE_FIND);
	wbuf_i64(&w, 42);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.u.cookie, 42);
	raw_hdr(&w, WIRE_FIND);
	wbuf_i64(&w, 0);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_hdr(&w, WIRE_FIND);
	wbuf_u32(&w, 42);
	CHECK_EQ(raw_decode(&w, &out), -1);
	CHECK_EQ(wire_encode_req(&req, msg, sizeof(msg)), -1);
}

/*
 * ATTACH: exactly a nonce (no descriptor proves anything any more);
 * BROKER_BIND: nonce, known flags only, a device index >= 0, a name.
 */
static void proof_requests(void)
{
	struct wire_req out;
	struct wbuf w;

	raw_hdr(&w, WIRE_ATTACH);
	raw_fill(&w, WIRE_NONCE_LEN);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.nonce[WIRE_NONCE_LEN - 1], WIRE_NONCE_LEN - 1);
	raw_hdr(&w, WIRE_ATTACH);
	CHECK_EQ(raw_decode(&w, &out), -1);	/* the old, empty one */
	raw_hdr(&w, WIRE_ATTACH);
	raw_fill(&w, WIRE_NONCE_LEN - 1);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_hdr(&w, WIRE_BROKER_BIND);
	raw_fill(&w, WIRE_NONCE_LEN);
	wbuf_u32(&w, WIRE_BB_ALL);
	wbuf_i32(&w, 2);
	wbuf_u32(&w, 0);
	CHECK_EQ(raw_decode(&w, &out), 0);
	CHECK_EQ(out.flags, WIRE_BB_ALL);
	CHECK_EQ(out.ifindex, 2);
	raw_hdr(&w, WIRE_BROKER_BIND);
	raw_fill(&w, WIRE_NONCE_LEN);
	wbuf_u32(&w, WIRE_BB_ALL + 1);	/* an unknown flag */
	wbuf_i32(&w, 0);
	wbuf_u32(&w, 0);
	CHECK_EQ(raw_decode(&w, &out), -1);
	raw_hdr(&w, WIRE_BROKER_BIND);
	raw_fill(&w, WIRE_NONCE_LEN);
	wbuf_u32(&w, 0);
	wbuf_i32(&w, -1);		/* no such device index */
	wbuf_u32(&w, 0);
	CHECK_EQ(raw_decode(&w, &out), -1);
}

/* TABLE and USERS: exactly one u32 cursor. */
static void table_request(void)
{
	static const uint16_t types[] = { WIRE_TABLE, WIRE_USERS };
	struct wire_req out;
	struct wbuf w;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		raw_hdr(&w, types[i]);
		wbuf_u32(&w, 1234);
		CHECK_EQ(raw_decode(&w, &out), 0);
		CHECK_EQ(out.u.cursor, 1234);
		raw_hdr(&w, types[i]);
		CHECK_EQ(raw_decode(&w, &out), -1);
		raw_hdr(&w, types[i]);
		wbuf_u16(&w, 1);
		CHECK_EQ(raw_decode(&w, &out), -1);
		raw_hdr(&w, types[i]);
		wbuf_u32(&w, 1);
		wbuf_u32(&w, 2);
		CHECK_EQ(raw_decode(&w, &out), -1);
	}
}

/* A TABLE answer as the daemon builds it: header, then count entries. */
static size_t table_body(uint8_t *b, uint32_t count)
{
	struct wire_table_hdr h = { .next = 77, .count = count,
				    .flags = WIRE_TABLE_ALL, .opened = 9,
				    .errors = 3 };

	memcpy(b, &h, sizeof(h));
	for (uint32_t i = 0; i < count; i++) {
		struct wire_table_entry e = {
			.handle = 1048577 + i, .uid = 65534, .pid = 42,
			.family = i & 1 ? AF_INET6 : AF_INET, .ident = 7,
			.destinations = i == 0 ? WIRE_DEST_CAP : 1,
			.flags = i == 0 ? WIRE_TE_DEST_CAPPED : 0,
			.requests = 3, .replies = 3, .errors = i,
		};

		memcpy(b + sizeof(h) + i * sizeof(e), &e, sizeof(e));
	}
	return sizeof(h) + count * sizeof(struct wire_table_entry);
}

static void table_answer_checked(void)
{
	static uint8_t b[WIRE_RESP_BODY_MAX + 256];
	struct wire_table_hdr h;
	struct wire_table_entry e;
	size_t len;

	CHECK(WIRE_TABLE_PAGE >= 60);
	CHECK(sizeof(struct wire_table_hdr) +
	      WIRE_TABLE_PAGE * sizeof(struct wire_table_entry) <=
	      WIRE_RESP_BODY_MAX);

	len = table_body(b, 0);
	CHECK_EQ(wire_table_check(b, len, &h), 0);
	CHECK_EQ(h.count, 0);
	CHECK_EQ(h.next, 77);
	CHECK_EQ(h.opened, 9);

	len = table_body(b, (uint32_t)WIRE_TABLE_PAGE);
	CHECK_EQ(wire_table_check(b, len, &h), 0);
	wire_table_entry_at(b, 1, &e);
	CHECK_EQ(e.handle, 1048578);
	CHECK_EQ(e.family, AF_INET6);
	wire_table_entry_at(b, 0, &e);
	CHECK_EQ(e.destinations, WIRE_DEST_CAP);

	/* Every length but the right one, short or long. */
	len = table_body(b, 3);
	for (size_t cut = 0; cut < len + 70; cut++)
		if (cut != len)
			CHECK_EQ(wire_table_check(b, cut, &h), -1);

	/* More entries than a page holds, even if the bytes are there. */
	len = table_body(b, (uint32_t)WIRE_TABLE_PAGE + 1);
	CHECK_EQ(wire_table_check(b, len, &h), -1);

	/* Fields out of range. */
	len = table_body(b, 2);
	b[12] = 1;					/* pad */
	CHECK_EQ(wire_table_check(b, len, &h), -1);
	len = table_body(b, 2);
	b[8] = 2;					/* unknown flag */
	CHECK_EQ(wire_table_check(b, len, &h), -1);
	len = table_body(b, 2);
	b[sizeof(h) + 64 + 12] = 99;			/* family */
	CHECK_EQ(wire_table_check(b, len, &h), -1);
	len = table_body(b, 2);
	b[sizeof(h) + 64 + 13] = 4;			/* entry flag */
	CHECK_EQ(wire_table_check(b, len, &h), -1);
	len = table_body(b, 2);
	memset(b + sizeof(h) + 64, 0, 4);		/* handle 0 */
	CHECK_EQ(wire_table_check(b, len, &h), -1);
	len = table_body(b, 2);
	e.destinations = WIRE_DEST_CAP + 1;
	memcpy(b + sizeof(h) + 64 + 16, &e.destinations, 4);
	CHECK_EQ(wire_table_check(b, len, &h), -1);
}

static void type_names(void)
{
	CHECK(strcmp(wire_type_name(WIRE_HELLO), "hello") == 0);
	CHECK(strcmp(wire_type_name(WIRE_SEND), "send") == 0);
	CHECK(strcmp(wire_type_name(WIRE_STATS), "stats") == 0);
	CHECK(strcmp(wire_type_name(WIRE_USERS), "users") == 0);
	CHECK(strcmp(wire_type_name(WIRE_KEEPID), "keepid") == 0);
	CHECK(strcmp(wire_type_name(WIRE_TABLE), "table") == 0);
	CHECK(strcmp(wire_type_name(WIRE_FIND), "find") == 0);
	CHECK(strcmp(wire_type_name(0), "unknown") == 0);
	CHECK(strcmp(wire_type_name(WIRE_TYPE_END), "unknown") == 0);
	CHECK(strcmp(wire_type_name(0xffffffffu), "unknown") == 0);
}

int main(void)
{
	TEST(header_layout);
	TEST(round_trip_every_type);
	TEST(reencode_is_identical);
	TEST(every_truncation_refused);
	TEST(trailing_bytes_refused);
	TEST(unknown_type_refused);
	TEST(nonzero_flags_refused);
	TEST(addr_len_limit);
	TEST(opt_len_limit);
	TEST(send_len_must_match_data);
	TEST(send_ctllen_limit);
	TEST(send_namelen_limit);
	TEST(encoder_small_buffer);
	TEST(keepid_range);
	TEST(seterr_range);
	TEST(find_request);
	TEST(proof_requests);
	TEST(table_request);
	TEST(table_answer_checked);
	TEST(type_names);
	return CHECK_DONE();
}
