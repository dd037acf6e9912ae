/* SPDX-License-Identifier: ISC */
/*
 * fuzz_wire - libFuzzer target for the daemon's request decoder, and for
 * the engine calls the daemon makes with what it decoded.
 *
 * 1. The whole input as one request: wire_decode_req() must not crash, and
 *    what it accepts must satisfy every documented limit and re-encode to
 *    exactly the input (the format is canonical).
 * 2. The input as a session: a sequence of [u16 length][request], each
 *    decoded and, if valid, applied to a socket table as the daemon would
 *    (open, bind, connect, send, options, names, shutdown, close); at the
 *    end every socket is closed and the table must be empty again.
 * 3. The input as a WIRE_TABLE answer body, as pingsockctl checks it:
 *    wire_table_check() must not read past it, and what it accepts must
 *    hold exactly the entries its header counts, each within range; the
 *    same for a WIRE_USERS answer (wire_users_check(): uids ascending
 *    from the cursor, paging that moves on) and a WIRE_STATS one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"
#include "wire/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSOCK 4

static uint8_t enc[WIRE_MSG_MAX + 16];
static uint8_t msgbuf[WIRE_DATA_MAX + 1];

static uint32_t host_of(const struct ps_addr *a)
{
	return ntohl(ps_addr_get_v4(a));
}

/* A host with 127/8 and 10.0.0.1 local, 224/4 multicast, 10.0.0.255 and
 * 255.255.255.255 broadcast, 10.99/16 unreachable. */
static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	uint32_t v = host_of(a);

	(void)ctx;
	(void)ifindex;
	if ((v >> 24) == 127 || v == 0x0a000001u)
		return PS_RTN_LOCAL;
	if ((v >> 28) == 0xe)
		return PS_RTN_MULTICAST;
	if (v == 0xffffffffu || v == 0x0a0000ffu)
		return PS_RTN_BROADCAST;
	return PS_RTN_UNICAST;
}

static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   unsigned flags, struct ps_addr *src)
{
	uint32_t v = host_of(dst);

	if ((v >> 16) == 0x0a63)
		return -ENETUNREACH;
	if (f_addr_type(ctx, dst, ifindex) == PS_RTN_BROADCAST && !(flags & PS_ROUTE_BROADCAST))
		return -EACCES;
	if (ps_addr_is_any(src))
		ps_addr_v4(src, htonl((v >> 24) == 127 ? 0x7f000001u
						       : 0x0a000001u));
	return 0;
}

static int f_dev_index(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "lo") == 0 ? 1 : -ENODEV;
}

static int f_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1)
		return -ENODEV;
	strcpy(buf, "lo");
	return 0;
}

static int f_route_mtu(void *ctx, const struct ps_addr *dst, uint32_t ifindex)
{
	(void)ctx;
	(void)dst;
	(void)ifindex;
	return 65536;
}

static const struct ps_env env = {
	.addr_type = f_addr_type,
	.route = f_route,
	.dev_index = f_dev_index,
	.dev_name = f_dev_name,
	.route_mtu = f_route_mtu,
	.ctx = NULL,
	.default_ttl = 64,
};

static void check_limits(const struct wire_req *r, const uint8_t *m,
			 size_t len)
{
	if (r->type < WIRE_HELLO || r->type >= WIRE_TYPE_END)
		abort();
	if (strcmp(wire_type_name(r->type), "unknown") == 0)
		abort();
	switch (r->type) {
	case WIRE_BIND:
	case WIRE_CONNECT:
		if (r->u.addr.len > WIRE_ADDR_MAX)
			abort();
		break;
	case WIRE_SETOPT:
	case WIRE_GETOPT:
		if (r->u.opt.len > WIRE_OPTVAL_MAX)
			abort();
		break;
	case WIRE_SEND:
		if (r->u.send.namelen != WIRE_NO_NAME &&
		    r->u.send.namelen > WIRE_ADDR_MAX)
			abort();
		if (r->u.send.ctllen > WIRE_CTL_MAX)
			abort();
		if (r->u.send.len <= WIRE_DATA_MAX ?
		    r->u.send.datalen != r->u.send.len :
		    r->u.send.datalen != 0)
			abort();
		if (r->u.send.ctl < m ||
		    r->u.send.ctl + r->u.send.ctllen > m + len ||
		    r->u.send.data < m ||
		    r->u.send.data + r->u.send.datalen != m + len)
			abort();
		break;
	default:
		break;
	}
}

/* Part 1: decode, check, re-encode to the same bytes. */
static void one_message(const uint8_t *data, size_t size)
{
	struct wire_req req;
	long n;

	if (wire_decode_req(data, size, &req) != 0)
		return;
	check_limits(&req, data, size);
	n = wire_encode_req(&req, enc, sizeof(enc));
	if (n < 0)
		abort();
	if (req.type == WIRE_SEND) {
		if ((size_t)n + req.u.send.datalen > sizeof(enc))
			abort();
		if (req.u.send.datalen)
			memcpy(enc + n, req.u.send.data, req.u.send.datalen);
		n += req.u.send.datalen;
	}
	if ((size_t)n != size || memcmp(enc, data, size) != 0)
		abort();
}

static void apply(struct pstab *tab, struct psock **sk, unsigned *nsk,
		  const struct wire_req *r, uint64_t *now)
{
	struct psock *s = *nsk ? sk[r->handle % *nsk] : NULL;
	uint8_t out[WIRE_OPTVAL_MAX + 64];
	struct ps_sendinfo info;
	uint32_t olen;
	int rc;

	if (r->type == WIRE_OPEN) {
		struct psock *n = NULL;

		if (*nsk == NSOCK)
			return;
		rc = pstab_open(tab, r->u.open.domain, r->u.open.type,
				r->u.open.protocol, r->handle & 3, &n);
		if (rc == 0)
			sk[(*nsk)++] = n;
		else if (n)
			abort();
		return;
	}
	if (!s)
		return;
	switch (r->type) {
	case WIRE_BIND:
		ps_bind(tab, s, &env, r->u.addr.bytes, r->u.addr.len);
		break;
	case WIRE_CONNECT:
		ps_connect(tab, s, &env, r->u.addr.bytes, r->u.addr.len);
		break;
	case WIRE_SEND: {
		uint32_t len = r->u.send.len;

		if (len <= WIRE_DATA_MAX)
			memcpy(msgbuf, r->u.send.data, len);
		rc = ps_send_prepare(tab, s, &env, r->u.send.flags,
				     r->u.send.namelen == WIRE_NO_NAME ?
				     NULL : r->u.send.name,
				     r->u.send.namelen, r->u.send.ctl,
				     r->u.send.ctllen, msgbuf,
				     len > WIRE_DATA_MAX ? WIRE_DATA_MAX + 1
							 : len, &info);
		if (rc > 0)
			abort();
		if (rc == 0) {
			/* Sent as prepared: our ident, a valid checksum. */
			if (len < ICMP_HDR_LEN || len > WIRE_DATA_MAX ||
			    icmp_checksum(msgbuf, len) != 0 ||
			    (msgbuf[4] << 8 | msgbuf[5]) != ps_ident(s) ||
			    ps_ident(s) == 0)
				abort();
			ps_sent(s, &info, (*now)++);
		}
		break;
	}
	case WIRE_SETOPT:
		ps_setopt(s, &env, r->u.opt.level, r->u.opt.name, r->u.opt.val,
			  r->u.opt.len);
		break;
	case WIRE_GETOPT:
		olen = r->u.opt.len;
		rc = ps_getopt(s, &env, r->u.opt.level, r->u.opt.name, out,
			       &olen);
		if (rc == 0 && olen > r->u.opt.len)
			abort();
		break;
	case WIRE_GETNAME:
	case WIRE_GETPEER:
		rc = ps_getname(s, r->type == WIRE_GETPEER, out);
		if (rc > 28)
			abort();
		break;
	case WIRE_SHUTDOWN:
		ps_shutdown(s, r->u.how);
		break;
	case WIRE_DETACH: {
		unsigned i = r->handle % *nsk;

		pstab_close(tab, sk[i]);
		sk[i] = sk[--*nsk];
		break;
	}
	case WIRE_STATS: {
		/* A reply to each socket: lookup must not crash. */
		struct icmp_pkt p;

		memset(&p, 0, sizeof(p));
		p.kind = (r->handle & 1) ? ICMP_K_ERROR : ICMP_K_REPLY;
		ps_addr_v4(&p.src, htonl(0x7f000001u));
		ps_addr_v4(&p.dst, htonl(0x7f000001u));
		p.q_dst = p.src;
		for (unsigned i = 0; i < *nsk; i++) {
			p.ident = ps_ident(sk[i]);
			p.seq = (uint16_t)(r->handle >> 16);
			pstab_lookup(tab, &p, r->handle & 0xff);
		}
		break;
	}
	default:
		break;
	}
}

/* Part 3: a TABLE answer, checked as the client does. */
static void table_answer(const uint8_t *data, size_t size)
{
	struct wire_table_hdr h;

	if (wire_table_check(data, size, &h) != 0)
		return;
	if (h.count > WIRE_TABLE_PAGE || h.pad ||
	    size != sizeof(h) + h.count * sizeof(struct wire_table_entry))
		abort();
	for (size_t i = 0; i < h.count; i++) {
		struct wire_table_entry e;

		wire_table_entry_at(data, i, &e);
		if (e.handle == 0 || e.destinations > WIRE_DEST_CAP ||
		    (e.family != AF_INET && e.family != AF_INET6))
			abort();
	}
}

/* Part 3 too: a USERS answer to a cursor from the input's first bytes,
 * and the input as a STATS answer. */
static void users_answer(const uint8_t *data, size_t size)
{
	struct wire_users_hdr h;
	struct wire_stats st;
	uint32_t cursor = 0;
	uint64_t least;

	if (size >= sizeof(st)) {
		memcpy(&st, data, sizeof(st));
		if (wire_stats_check(&st) == 0 &&
		    (!memchr(st.version, 0, sizeof(st.version)) ||
		     strchr(st.version, '"') || strchr(st.version, '\\') ||
		     (st.flags & ~WIRE_ST_ALL)))
			abort();
	}
	if (size >= 4)
		memcpy(&cursor, data + size - 4, 4);
	if (wire_users_check(data, size, cursor, &h) != 0)
		return;
	if (h.count > WIRE_USERS_PAGE || h.pad ||
	    size != sizeof(h) + h.count * sizeof(struct wire_user_entry) ||
	    (h.next && h.count != WIRE_USERS_PAGE))
		abort();
	least = cursor;
	for (size_t i = 0; i < h.count; i++) {
		struct wire_user_entry e;

		wire_user_entry_at(data, i, &e);
		if (e.uid < least || e.pad)
			abort();
		least = (uint64_t)e.uid + 1;
	}
	if (h.next && h.next <= cursor)
		abort();		/* paging would not end */
}

/* Part 2: a session of length-prefixed requests. */
static void session(const uint8_t *data, size_t size)
{
	static struct pstab *tab;
	struct psock *sk[NSOCK];
	unsigned nsk = 0;
	uint64_t now = 0;
	size_t off = 0;

	if (!tab && !(tab = pstab_new(1000)))
		abort();
	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;
		struct wire_req req;

		off += 2;
		if (len > size - off)
			len = size - off;
		if (wire_decode_req(data + off, len, &req) == 0)
			apply(tab, sk, &nsk, &req, &now);
		off += len;
	}
	while (nsk)
		pstab_close(tab, sk[--nsk]);
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one_message(data, size);
	session(data, size);
	table_answer(data, size);
	users_answer(data, size);
	return 0;
}
