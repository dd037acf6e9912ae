/* SPDX-License-Identifier: ISC */
/*
 * fuzz_libdecode - libFuzzer target for what libpingsock takes from the
 * daemon (src/wire/decode.c), and for the library code that then uses
 * it (src/lib/cmsg.c, engine/rawhdr.c): an impostor or compromised
 * daemon may send anything.
 *
 * The first byte picks what the rest is:
 *
 *   bit 0 clear: a message on a socket's data (bit 1 clear) or error
 *     descriptor, for an AF_INET (bit 2 clear) or AF_INET6 socket; the
 *     next two bytes are the receive options in force (WIRE_CM_*, and
 *     SO_TIMESTAMPING when bit 3 is set), then a byte each for the room
 *     the caller gave for the name and for the ancillary data, then the
 *     message.  Whatever wire_decode_dgram() accepts must be in range,
 *     and building the name, the control messages and a raw socket's IP
 *     header from it must stay within every buffer (ASan).
 *
 *   bit 0 set: an answer on the control channel to a request that the
 *     next 16 bytes describe (type, then the fields its check reads),
 *     then the answer.  Whatever wire_check_answer() accepts must have a
 *     result that request allows, a body within the message and within
 *     what the request asked for, and at most WIRE_ANS_FDS descriptors.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/rawhdr.h"
#include "lib/cmsg.h"
#include "wire/decode.h"
#include "wire/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_dgram(const struct wire_dgram *dg, size_t full, int chan,
			int family)
{
	if (full < WIRE_DGRAM_HDR)
		abort();
	if (dg->kind == WIRE_DG_WAKE) {
		if (chan != WIRE_CHAN_DATA || full != WIRE_DGRAM_HDR)
			abort();
		return;
	}
	if (dg->family != family || dg->optlen > sizeof(dg->opts) ||
	    (family == AF_INET6 && dg->optlen) ||
	    dg->ts_nsec < 0 || dg->ts_nsec >= 1000000000)
		abort();
	if (dg->kind == WIRE_DG_REPLY &&
	    (chan != WIRE_CHAN_DATA || full - WIRE_DGRAM_HDR < 8))
		abort();
	if (dg->kind == WIRE_DG_ERROR &&
	    (chan != WIRE_CHAN_ERR || !wire_is_errno(dg->ee_errno)))
		abort();
	if (full - WIRE_DGRAM_HDR > WIRE_DATA_MAX)
		abort();
}

/* What drecv() and errq_recv() make of an accepted datagram. */
static void use_dgram(const struct wire_dgram *dg, size_t full, uint32_t cm,
		      uint32_t ts, size_t namecap, size_t ctlcap)
{
	uint8_t *name = malloc(namecap ? namecap : 1);
	uint8_t *ctl = malloc(ctlcap ? ctlcap : 1);
	uint8_t hdr[RAWHDR_MAX];
	struct msghdr msg = { .msg_name = namecap ? name : NULL,
			      .msg_namelen = (socklen_t)namecap,
			      .msg_control = ctlcap ? ctl : NULL,
			      .msg_controllen = ctlcap };
	struct cmsg_out co;
	size_t hlen;

	cmsg_fill_name(dg, &msg, cm);
	cmsg_begin(&co, &msg);
	cmsg_from_dgram(&co, dg, cm, ts);
	if (co.used > ctlcap)
		abort();
	if (dg->family == AF_INET && dg->kind == WIRE_DG_REPLY) {
		hlen = rawhdr_ipv4(dg, full - WIRE_DGRAM_HDR, hdr);
		if (hlen < 20 || hlen > RAWHDR_MAX ||
		    hlen + full - WIRE_DGRAM_HDR > 0xFFFF)
			abort();
	}
	free(name);
	free(ctl);
}

static void one_dgram(uint8_t sel, const uint8_t *p, size_t n)
{
	int chan = sel & 2 ? WIRE_CHAN_ERR : WIRE_CHAN_DATA;
	int family = sel & 4 ? AF_INET6 : AF_INET;
	uint32_t cm, ts = sel & 8 ? WIRE_TS_SOFTWARE | WIRE_TS_RX_SOFTWARE : 0;
	struct wire_dgram dg;
	size_t namecap, ctlcap, got;
	uint8_t *msg;

	if (n < 4)
		return;
	cm = (uint32_t)(p[0] | p[1] << 8 | (p[1] & 0x80 ? 0x30000 : 0));
	namecap = p[2] % 40;
	ctlcap = (size_t)p[3] * 2;
	p += 4;
	n -= 4;
	/* Exactly the message's bytes, so that ASan sees any read past. */
	msg = malloc(n ? n : 1);
	if (n)
		memcpy(msg, p, n);
	got = n < WIRE_DGRAM_HDR ? n : WIRE_DGRAM_HDR;
	if (wire_decode_dgram(msg, got, n, chan, family, &dg) == 0) {
		check_dgram(&dg, n, chan, family);
		if (dg.kind != WIRE_DG_WAKE)
			use_dgram(&dg, n, cm, ts, namecap, ctlcap);
	}
	free(msg);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The request the answer is to: its type and the fields checked. */
static void make_req(const uint8_t *p, struct wire_req *req)
{
	memset(req, 0, sizeof(*req));
	req->type = (uint16_t)(p[0] % (WIRE_TYPE_END + 1));
	switch (req->type) {
	case WIRE_HELLO:	/* a token half given, half zeros */
		memcpy(req->nonce, p + 8, 8);
		break;
	case WIRE_OPEN:
		req->u.open.domain = p[1] & 1 ? AF_INET6 : AF_INET;
		req->u.open.type = p[2] & 1 ? SOCK_RAW : SOCK_DGRAM;
		req->u.open.protocol = p[3] & 1 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		break;
	case WIRE_SEND:
		req->u.send.len = get32(p + 4);
		break;
	case WIRE_SETOPT:
	case WIRE_GETOPT:
		req->u.opt.level = p[1] & 1 ? SOL_IPV6 : SOL_IP;
		req->u.opt.name = p[2];
		req->u.opt.len = get32(p + 4);
		break;
	default:
		break;
	}
}

static void check_answer(const struct wire_req *req,
			 const struct wire_answer *a, const uint8_t *msg,
			 size_t n)
{
	int32_t r = a->result;

	if (a->body != msg + WIRE_RESP_HDR || a->len != n - WIRE_RESP_HDR ||
	    a->nfds > WIRE_ANS_FDS)
		abort();
	if (r < 0 && ((r < -WIRE_ERRNO_MAX && r != WIRE_R_UNATTACHED) ||
		      a->len || a->nfds))
		abort();
	if (r > 0 && req->type == WIRE_SEND &&
	    ((uint32_t)r > req->u.send.len || r > WIRE_DATA_MAX))
		abort();
	if (r > 0 && req->type != WIRE_SEND && (size_t)r != a->len)
		abort();
	if (req->type == WIRE_GETOPT &&
	    (a->len > req->u.opt.len || a->len > WIRE_OPTVAL_MAX))
		abort();
	if ((req->type == WIRE_GETNAME || req->type == WIRE_GETPEER) &&
	    r >= 0 && a->len != sizeof(struct sockaddr_in) &&
	    a->len != sizeof(struct sockaddr_in6))
		abort();
	/* HELLO: the arena's token and the connection's answer slot (0 or
	 * in the arena), and the arena only if the token is a new one. */
	if (req->type == WIRE_HELLO && r >= 0 &&
	    (a->len != WIRE_NONCE_LEN + 4 ||
	     get32(a->body + WIRE_NONCE_LEN) >= WIRE_ARENA_SLOTS ||
	     a->nfds != (memcmp(a->body, req->nonce, WIRE_NONCE_LEN) ? 1u : 0u) ||
	     (a->nfds && a->fd_kind[0] != WIRE_FD_ARENA)))
		abort();
	/* WIRE_ERRQ: the record's whole length, the record, its data. */
	if (req->type == WIRE_ERRQ && r >= 0 &&
	    a->len < 4 + WIRE_DGRAM_HDR)
		abort();
	for (unsigned i = 0; i < a->nfds; i++)
		if (a->fd_kind[i] < WIRE_FD_SEQPACKET ||
		    a->fd_kind[i] > WIRE_FD_ICMP)
			abort();
}

static void one_answer(const uint8_t *p, size_t n)
{
	struct wire_req req;
	struct wire_answer a;
	uint8_t *msg;

	if (n < 16)
		return;
	make_req(p, &req);
	p += 16;
	n -= 16;
	msg = malloc(n ? n : 1);
	if (n)
		memcpy(msg, p, n);
	if (wire_check_answer(&req, msg, n, &a) == 0)
		check_answer(&req, &a, msg, n);
	free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		one_answer(data + 1, size - 1);
	else
		one_dgram(data[0], data + 1, size - 1);
	return 0;
}
