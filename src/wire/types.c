/* SPDX-License-Identifier: ISC */
/*
 * types - every request type of the protocol, one row each (struct
 * wire_req_type in wire.h): its fields both ways, who may send it when,
 * and the answer it gets.  wire.c frames requests through it, decode.c
 * checks answers through it, the daemon enforces its access rule; a new
 * request type is a new row here and a procedure in the daemon's ops.c.
 */
#include "wire/wire.h"

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "wire/buf.h"
#include "wire/decode.h"

/* ---- the requests' fields ---- */

/* u32 version, the arena's token. */
static void enc_hello(struct wbuf *w, const struct wire_req *req)
{
	wbuf_u32(w, req->u.version);
	wbuf_bytes(w, req->nonce, WIRE_NONCE_LEN);
}

static int dec_hello(struct rbuf *r, struct wire_req *req)
{
	rbuf_u32(r, &req->u.version);
	return rbuf_bytes(r, req->nonce, WIRE_NONCE_LEN);
}

static void enc_open(struct wbuf *w, const struct wire_req *req)
{
	wbuf_i32(w, req->u.open.domain);
	wbuf_i32(w, req->u.open.type);
	wbuf_i32(w, req->u.open.protocol);
}

static int dec_open(struct rbuf *r, struct wire_req *req)
{
	rbuf_i32(r, &req->u.open.domain);
	rbuf_i32(r, &req->u.open.type);
	return rbuf_i32(r, &req->u.open.protocol);
}

/* u32 len, then a sockaddr of that many bytes (at most WIRE_ADDR_MAX). */
static void enc_addr(struct wbuf *w, const struct wire_req *req)
{
	uint32_t len = req->u.addr.len;

	wbuf_u32(w, len);
	if (len > WIRE_ADDR_MAX)
		w->overflow = 1;
	else
		wbuf_bytes(w, req->u.addr.bytes, len);
}

static int dec_addr(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_u32(r, &req->u.addr.len) || req->u.addr.len > WIRE_ADDR_MAX)
		return -1;
	memset(req->u.addr.bytes, 0, sizeof(req->u.addr.bytes));
	return rbuf_bytes(r, req->u.addr.bytes, req->u.addr.len);
}

static void enc_nonce(struct wbuf *w, const struct wire_req *req)
{
	wbuf_bytes(w, req->nonce, WIRE_NONCE_LEN);
}

static int dec_nonce(struct rbuf *r, struct wire_req *req)
{
	return rbuf_bytes(r, req->nonce, WIRE_NONCE_LEN);
}

/* The nonce, u32 flags (WIRE_BB_*), i32 device index, the name. */
static void enc_broker_bind(struct wbuf *w, const struct wire_req *req)
{
	wbuf_bytes(w, req->nonce, WIRE_NONCE_LEN);
	wbuf_u32(w, req->flags);
	wbuf_i32(w, req->ifindex);
	enc_addr(w, req);
}

static int dec_broker_bind(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_bytes(r, req->nonce, WIRE_NONCE_LEN) ||
	    rbuf_u32(r, &req->flags) || (req->flags & ~WIRE_BB_ALL) ||
	    rbuf_i32(r, &req->ifindex) || req->ifindex < 0)
		return -1;
	return dec_addr(r, req);
}

/* What comes before a send's name: i32 flags, u32 len, u32 namelen. */
static void enc_send_head(struct wbuf *w, const struct wire_req *req)
{
	wbuf_i32(w, req->u.send.flags);
	wbuf_u32(w, req->u.send.len);
	wbuf_u32(w, req->u.send.namelen);
}

/* i32 flags, u32 len, u32 namelen, name, u32 ctllen, ctl, then the data
 * (in the caller's own iovec: payloads are not copied). */
static void enc_send(struct wbuf *w, const struct wire_req *req)
{
	uint32_t nl = req->u.send.namelen;

	enc_send_head(w, req);
	if (nl != WIRE_NO_NAME) {
		if (nl > WIRE_ADDR_MAX)
			w->overflow = 1;
		else
			wbuf_bytes(w, req->u.send.name, nl);
	}
	if (req->u.send.ctllen > WIRE_CTL_MAX)
		w->overflow = 1;
	wbuf_u32(w, req->u.send.ctllen);
	wbuf_bytes(w, req->u.send.ctl, req->u.send.ctllen);
}

long wire_encode_send_parts(const struct wire_req *req, uint16_t rqflags,
			    uint8_t *buf, size_t cap, struct iovec out[4])
{
	uint32_t nl = req->u.send.namelen, cl = req->u.send.ctllen;
	const void *name = req->u.send.name_src ? req->u.send.name_src
						: req->u.send.name;
	struct wbuf w;
	size_t head;
	long n;

	if (req->type != WIRE_SEND ||
	    (nl != WIRE_NO_NAME && nl > WIRE_ADDR_MAX) || cl > WIRE_CTL_MAX)
		return -1;
	wbuf_init(&w, buf, cap);
	wbuf_u16(&w, req->type);
	wbuf_u16(&w, rqflags);
	wbuf_u32(&w, req->handle);
	enc_send_head(&w, req);
	head = w.len;
	wbuf_u32(&w, cl);
	n = wbuf_done(&w);
	if (n < 0)
		return -1;
	if (nl == WIRE_NO_NAME)
		nl = 0;
	out[0] = (struct iovec){ .iov_base = buf, .iov_len = head };
	out[1] = (struct iovec){ .iov_base = (void *)(uintptr_t)name, // NOLINT(performance-no-int-to-ptr)
				 .iov_len = nl };
	out[2] = (struct iovec){ .iov_base = buf + head,
				 .iov_len = (size_t)n - head };
	out[3] = (struct iovec){ .iov_base = (void *)(uintptr_t)req->u.send.ctl, // NOLINT(performance-no-int-to-ptr)
				 .iov_len = cl };
	return n + (long)nl + (long)cl;
}

static int dec_send(struct rbuf *r, struct wire_req *req)
{
	uint32_t nl;
	size_t left;

	if (rbuf_i32(r, &req->u.send.flags) || rbuf_u32(r, &req->u.send.len) ||
	    rbuf_u32(r, &nl))
		return -1;
	memset(req->u.send.name, 0, sizeof(req->u.send.name));
	if (nl != WIRE_NO_NAME) {
		if (nl > WIRE_ADDR_MAX || rbuf_bytes(r, req->u.send.name, nl))
			return -1;
	}
	req->u.send.namelen = nl;
	if (rbuf_u32(r, &req->u.send.ctllen) ||
	    req->u.send.ctllen > WIRE_CTL_MAX)
		return -1;
	req->u.send.ctl = rbuf_take(r, req->u.send.ctllen);
	if (!req->u.send.ctl)
		return -1;
	/* Exactly len bytes of data, or none when len is past the limit
	 * (the daemon then answers EMSGSIZE in the kernel's order). */
	left = rbuf_left(r);
	if (req->u.send.len <= WIRE_DATA_MAX ? left != req->u.send.len
					     : left != 0)
		return -1;
	req->u.send.datalen = (uint32_t)left;
	req->u.send.data = rbuf_take(r, left);
	return req->u.send.data ? 0 : -1;
}

/* i32 level, i32 name, u32 len: GETOPT's room (then, for an option that
 * reads its value, that much of it: wire_getopt_input()), SETOPT's value
 * after it. */
static void enc_opthead(struct wbuf *w, const struct wire_req *req)
{
	wbuf_i32(w, req->u.opt.level);
	wbuf_i32(w, req->u.opt.name);
	wbuf_u32(w, req->u.opt.len);
}

static int dec_opthead(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_i32(r, &req->u.opt.level) || rbuf_i32(r, &req->u.opt.name) ||
	    rbuf_u32(r, &req->u.opt.len) || req->u.opt.len > WIRE_OPTVAL_MAX)
		return -1;
	return 0;
}

static void enc_getopt(struct wbuf *w, const struct wire_req *req)
{
	enc_opthead(w, req);
	wbuf_bytes(w, req->u.opt.val,
		   wire_getopt_input(req->u.opt.level, req->u.opt.name,
				     req->u.opt.len));
}

static int dec_getopt(struct rbuf *r, struct wire_req *req)
{
	if (dec_opthead(r, req))
		return -1;
	memset(req->u.opt.val, 0, sizeof(req->u.opt.val));
	return rbuf_bytes(r, req->u.opt.val,
			  wire_getopt_input(req->u.opt.level, req->u.opt.name,
					    req->u.opt.len));
}

static void enc_setopt(struct wbuf *w, const struct wire_req *req)
{
	enc_opthead(w, req);
	if (req->u.opt.len > WIRE_OPTVAL_MAX)
		w->overflow = 1;
	else
		wbuf_bytes(w, req->u.opt.val, req->u.opt.len);
}

static int dec_setopt(struct rbuf *r, struct wire_req *req)
{
	if (dec_opthead(r, req))
		return -1;
	memset(req->u.opt.val, 0, sizeof(req->u.opt.val));
	return rbuf_bytes(r, req->u.opt.val, req->u.opt.len);
}

static void enc_shutdown(struct wbuf *w, const struct wire_req *req)
{
	wbuf_i32(w, req->u.how);
}

static int dec_shutdown(struct rbuf *r, struct wire_req *req)
{
	return rbuf_i32(r, &req->u.how);
}

/* An errno (wire_is_errno()); the encoder writes what it is given, the
 * decoder refuses anything else. */
static void enc_seterr(struct wbuf *w, const struct wire_req *req)
{
	wbuf_i32(w, req->u.err);
}

/* Only what a program may see: the kernel's own codes start at 512
 * (ERESTARTSYS), and a receive never leaves one there (review rev36 F5). */
#define SETERR_MAX 511

static int dec_seterr(struct rbuf *r, struct wire_req *req)
{
	return rbuf_i32(r, &req->u.err) || !wire_is_errno(req->u.err) ||
			       req->u.err > SETERR_MAX
		       ? -1
		       : 0;
}

/* An identifier: 16 bits in a u32. */
static void enc_keepid(struct wbuf *w, const struct wire_req *req)
{
	if (req->u.ident > 0xFFFF)
		w->overflow = 1;
	wbuf_u32(w, req->u.ident);
}

static int dec_keepid(struct rbuf *r, struct wire_req *req)
{
	return rbuf_u32(r, &req->u.ident) || req->u.ident > 0xFFFF ? -1 : 0;
}

/* WIRE_TABLE's cursor (a slot), WIRE_USERS' (a uid). */
static void enc_table(struct wbuf *w, const struct wire_req *req)
{
	wbuf_u32(w, req->u.cursor);
}

static int dec_table(struct rbuf *r, struct wire_req *req)
{
	return rbuf_u32(r, &req->u.cursor);
}

/* WIRE_FIND: a socket cookie (never 0: the kernel's start at 1). */
static void enc_find(struct wbuf *w, const struct wire_req *req)
{
	if (req->u.cookie == 0)
		w->overflow = 1;
	wbuf_i64(w, (int64_t)req->u.cookie);
}

static int dec_find(struct rbuf *r, struct wire_req *req)
{
	int64_t v;

	if (rbuf_i64(r, &v) || v == 0)
		return -1;
	req->u.cookie = (uint64_t)v;
	return 0;
}

/* ---- what the answers carry beyond their length ---- */

static void want_fd(struct wire_answer *ans, uint8_t kind)
{
	if (ans->nfds < WIRE_ANS_FDS)
		ans->fd_kind[ans->nfds] = kind;
	ans->nfds++;
}

/* An arena slot: never 0 (the arena's header), within the arena. */
static bool slot_ok(uint32_t slot)
{
	return slot > 0 && slot < WIRE_ARENA_SLOTS;
}

/* WIRE_HELLO: the arena's token, then u32 the connection's answer slot
 * (0: none, the arena is full); the arena itself if it is a new one (a
 * token other than the one the request named). */
static int ans_hello(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t slot;

	memcpy(&slot, ans->body + WIRE_NONCE_LEN, 4);
	if (slot != 0 && !slot_ok(slot))
		return -1;
	if (memcmp(ans->body, req->nonce, WIRE_NONCE_LEN) != 0)
		want_fd(ans, WIRE_FD_ARENA);
	return 0;
}

/* WIRE_OPEN: u32 handle, u32 flags, u32 slot; a relayed socket's data
 * descriptor, or a broker socket and its liveness (slot 0). */
static int ans_open(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t handle, flags, slot;
	int base = req->u.open.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	int d = req->u.open.domain;

	memcpy(&handle, ans->body, 4);
	memcpy(&flags, ans->body + 4, 4);
	memcpy(&slot, ans->body + 8, 4);
	if (handle == 0 || (flags & ~WIRE_OPEN_BROKER))
		return -1;
	if (!(flags & WIRE_OPEN_BROKER)) {
		want_fd(ans, WIRE_FD_SEQPACKET);
		return slot_ok(slot) ? 0 : -1;
	}
	if (slot != 0)
		return -1;
	/* Only a ping socket is brokered: a kernel one of its kind. */
	if (base != SOCK_DGRAM ||
	    !((d == AF_INET && req->u.open.protocol == IPPROTO_ICMP) ||
	      (d == AF_INET6 && req->u.open.protocol == IPPROTO_ICMPV6)))
		return -1;
	want_fd(ans, WIRE_FD_ICMP);
	ans->fd_family = d;
	want_fd(ans, WIRE_FD_SEQPACKET);
	return 0;
}

/* WIRE_ATTACH: u32 handle, u32 family, u32 slot. */
static int ans_attach(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t handle, family, slot;

	memcpy(&handle, ans->body, 4);
	memcpy(&family, ans->body + 4, 4);
	memcpy(&slot, ans->body + 8, 4);
	return handle != 0 && (family == AF_INET || family == AF_INET6) &&
	       slot_ok(slot) ? 0 : -1;
}

/* WIRE_FIND: u32 handle, u32 family, u32 WIRE_FIND_*. */
static int ans_find(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t handle, family, flags;

	memcpy(&handle, ans->body, 4);
	memcpy(&family, ans->body + 4, 4);
	memcpy(&flags, ans->body + 8, 4);
	return handle != 0 && (family == AF_INET || family == AF_INET6) &&
	       !(flags & ~WIRE_FIND_RAW) ? 0 : -1;
}

/* WIRE_ERRQ: u32 the record's whole data length, its header, as much of
 * its data as fits (all of it, or WIRE_ERRQ_DATA_MAX bytes). */
static int ans_errq(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t full;
	size_t data;

	if (ans->len < 4 + WIRE_DGRAM_HDR)
		return -1;
	memcpy(&full, ans->body, 4);
	data = ans->len - 4 - WIRE_DGRAM_HDR;
	return data == (full < WIRE_ERRQ_DATA_MAX ? full : WIRE_ERRQ_DATA_MAX)
		       ? 0 : -1;
}

/* WIRE_GETNAME, WIRE_GETPEER: a whole sockaddr_in or sockaddr_in6. */
static int ans_name(const struct wire_req *req, struct wire_answer *ans)
{
	sa_family_t f;

	if (ans->len < sizeof(f))
		return -1;
	memcpy(&f, ans->body, sizeof(f));
	return (f == AF_INET && ans->len == sizeof(struct sockaddr_in)) ||
	       (f == AF_INET6 && ans->len == sizeof(struct sockaddr_in6))
		       ? 0 : -1;
}

/* WIRE_GETOPT: the value, no longer than the caller asked for. */
static int ans_getopt(const struct wire_req *req, struct wire_answer *ans)
{
	size_t cap = req->u.opt.len < WIRE_OPTVAL_MAX ? req->u.opt.len
						      : WIRE_OPTVAL_MAX;

	return ans->len <= cap ? 0 : -1;
}

/* WIRE_SETOPT: nothing, but a flow label lease answers its label. */
static int ans_setopt(const struct wire_req *req, struct wire_answer *ans)
{
	size_t want = wire_setopt_answers_label(req->u.opt.level,
						req->u.opt.name) ? 4 : 0;

	return ans->len == want ? 0 : -1;
}

static int ans_table(const struct wire_req *req, struct wire_answer *ans)
{
	struct wire_table_hdr h;

	return wire_table_check(ans->body, ans->len, &h);
}

static int ans_users(const struct wire_req *req, struct wire_answer *ans)
{
	struct wire_users_hdr h;

	return wire_users_check(ans->body, ans->len, req->u.cursor, &h);
}

/* WIRE_STATS: a whole struct wire_stats (the row says its length). */
static int ans_stats(const struct wire_req *req, struct wire_answer *ans)
{
	struct wire_stats st;

	memcpy(&st, ans->body, sizeof(st));
	return wire_stats_check(&st);
}

/* ---- the table ---- */

#define SOCK WIRE_ACC_SOCKET
#define UNATT WIRE_R_UNATTACHED
#define CHECKED WIRE_BODY_CHECKED

static const struct wire_req_type types[WIRE_TYPE_END] = {
	/* name, access, encode, decode,
	 *	answer: also, ok, body, fds, check */
	[WIRE_HELLO] = { "hello", WIRE_ACC_FIRST, enc_hello, dec_hello,
		WIRE_R_FOREIGN_NS, WIRE_OK_ZERO, WIRE_NONCE_LEN + 4, { 0 },
		ans_hello },
	[WIRE_OPEN] = { "open", 0, enc_open, dec_open,
		0, WIRE_OK_ZERO, 12, { 0 }, ans_open },
	[WIRE_ATTACH] = { "attach", WIRE_ACC_PROVES, enc_nonce, dec_nonce,
		0, WIRE_OK_ZERO, 12, { 0 }, ans_attach },
	[WIRE_DETACH] = { "detach", SOCK, NULL, NULL,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_BIND] = { "bind", SOCK, enc_addr, dec_addr,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_CONNECT] = { "connect", SOCK, enc_addr, dec_addr,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_SEND] = { "send", SOCK, enc_send, dec_send,
		UNATT, WIRE_OK_SENT, 0, { 0 }, NULL },
	[WIRE_SETOPT] = { "setsockopt", SOCK, enc_setopt, dec_setopt,
		UNATT, WIRE_OK_ZERO, CHECKED, { 0 }, ans_setopt },
	[WIRE_GETOPT] = { "getsockopt", SOCK, enc_getopt, dec_getopt,
		UNATT, WIRE_OK_LEN, CHECKED, { 0 }, ans_getopt },
	[WIRE_GETNAME] = { "getsockname", SOCK, NULL, NULL,
		UNATT, WIRE_OK_LEN, CHECKED, { 0 }, ans_name },
	[WIRE_GETPEER] = { "getpeername", SOCK, NULL, NULL,
		UNATT, WIRE_OK_LEN, CHECKED, { 0 }, ans_name },
	[WIRE_SHUTDOWN] = { "shutdown", SOCK, enc_shutdown, dec_shutdown,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_STATS] = { "stats", 0, NULL, NULL,
		0, WIRE_OK_ZERO, sizeof(struct wire_stats), { 0 }, ans_stats },
	[WIRE_KEEPID] = { "keepid", SOCK, enc_keepid, dec_keepid,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_TABLE] = { "table", 0, enc_table, dec_table,
		0, WIRE_OK_ZERO, CHECKED, { 0 }, ans_table },
	[WIRE_BROKER_BIND] = { "broker-bind", WIRE_ACC_PROVES,
		enc_broker_bind, dec_broker_bind,
		0, WIRE_OK_ZERO, 0, { WIRE_FD_ICMP }, NULL },
	[WIRE_ERRQ] = { "errqueue", SOCK, NULL, NULL,
		UNATT, WIRE_OK_ZERO, CHECKED, { 0 }, ans_errq },
	[WIRE_USERS] = { "users", 0, enc_table, dec_table,
		0, WIRE_OK_ZERO, CHECKED, { 0 }, ans_users },
	[WIRE_FIND] = { "find", 0, enc_find, dec_find,
		0, WIRE_OK_ZERO, 12, { 0 }, ans_find },
	/* Answered as the send it waits for (wire.h): the client checks
	 * that answer against that WIRE_SEND, never against this row. */
	[WIRE_WAIT] = { "wait", 0, NULL, NULL,
		0, WIRE_OK_ZERO, 0, { 0 }, NULL },
	[WIRE_LOGLOST] = { "loglost", 0, NULL, NULL,
		0, WIRE_OK_ZERO, 8, { 0 }, NULL },
	[WIRE_SETERR] = { "seterr", SOCK, enc_seterr, dec_seterr,
		UNATT, WIRE_OK_ZERO, 0, { 0 }, NULL },
};

const struct wire_req_type *wire_req_type(unsigned type)
{
	return type < WIRE_TYPE_END && types[type].name ? &types[type] : NULL;
}
