#include "wire/wire.h"

#include <string.h>
#include <sys/socket.h>

#include "wire/buf.h"

static const char *const type_names[WIRE_TYPE_END] = {
	[WIRE_HELLO] = "hello",	    [WIRE_OPEN] = "open",
	[WIRE_ATTACH] = "attach",   [WIRE_DETACH] = "detach",
	[WIRE_BIND] = "bind",	    [WIRE_CONNECT] = "connect",
	[WIRE_SEND] = "send",	    [WIRE_SETOPT] = "setsockopt",
	[WIRE_GETOPT] = "getsockopt", [WIRE_GETNAME] = "getsockname",
	[WIRE_GETPEER] = "getpeername", [WIRE_SHUTDOWN] = "shutdown",
	[WIRE_STATS] = "stats",	    [WIRE_KEEPID] = "keepid",
	[WIRE_TABLE] = "table",	    [WIRE_BROKER_BIND] = "broker-bind",
};

const char *wire_type_name(unsigned type)
{
	if (type < WIRE_TYPE_END && type_names[type])
		return type_names[type];
	return "unknown";
}

static void enc_addr(struct wbuf *w, const struct wire_req *req)
{
	uint32_t len = req->u.addr.len;

	wbuf_u32(w, len);
	if (len > WIRE_ADDR_MAX)
		w->overflow = 1;
	else
		wbuf_bytes(w, req->u.addr.bytes, len);
}

static void enc_send(struct wbuf *w, const struct wire_req *req)
{
	uint32_t nl = req->u.send.namelen;

	wbuf_i32(w, req->u.send.flags);
	wbuf_u32(w, req->u.send.len);
	wbuf_u32(w, nl);
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
	/* The data follows in the caller's own iovec. */
}

long wire_encode_req(const struct wire_req *req, uint8_t *buf, size_t cap)
{
	struct wbuf w;

	wbuf_init(&w, buf, cap);
	wbuf_u16(&w, req->type);
	wbuf_u16(&w, 0);
	wbuf_u32(&w, req->handle);
	switch (req->type) {
	case WIRE_HELLO:
		wbuf_u32(&w, req->u.version);
		break;
	case WIRE_OPEN:
		wbuf_i32(&w, req->u.open.domain);
		wbuf_i32(&w, req->u.open.type);
		wbuf_i32(&w, req->u.open.protocol);
		break;
	case WIRE_BIND:
	case WIRE_CONNECT:
		enc_addr(&w, req);
		break;
	case WIRE_BROKER_BIND:
		wbuf_bytes(&w, req->nonce, WIRE_NONCE_LEN);
		wbuf_u32(&w, req->flags);
		wbuf_i32(&w, req->ifindex);
		enc_addr(&w, req);
		break;
	case WIRE_ATTACH:
		wbuf_bytes(&w, req->nonce, WIRE_NONCE_LEN);
		break;
	case WIRE_SEND:
		enc_send(&w, req);
		break;
	case WIRE_SETOPT:
		wbuf_i32(&w, req->u.opt.level);
		wbuf_i32(&w, req->u.opt.name);
		wbuf_u32(&w, req->u.opt.len);
		if (req->u.opt.len > WIRE_OPTVAL_MAX)
			w.overflow = 1;
		else
			wbuf_bytes(&w, req->u.opt.val, req->u.opt.len);
		break;
	case WIRE_GETOPT:
		wbuf_i32(&w, req->u.opt.level);
		wbuf_i32(&w, req->u.opt.name);
		wbuf_u32(&w, req->u.opt.len);
		break;
	case WIRE_SHUTDOWN:
		wbuf_i32(&w, req->u.how);
		break;
	case WIRE_KEEPID:
		if (req->u.ident > 0xFFFF)
			w.overflow = 1;
		wbuf_u32(&w, req->u.ident);
		break;
	case WIRE_TABLE:
		wbuf_u32(&w, req->u.cursor);
		break;
	case WIRE_DETACH:
	case WIRE_GETNAME:
	case WIRE_GETPEER:
	case WIRE_STATS:
		break;
	default:
		return -1;
	}
	return wbuf_done(&w);
}

static int dec_addr(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_u32(r, &req->u.addr.len) || req->u.addr.len > WIRE_ADDR_MAX)
		return -1;
	memset(req->u.addr.bytes, 0, sizeof(req->u.addr.bytes));
	if (rbuf_bytes(r, req->u.addr.bytes, req->u.addr.len))
		return -1;
	return rbuf_end(r);
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
	left = rbuf_left(r);
	if (req->u.send.len <= WIRE_DATA_MAX ? left != req->u.send.len
					     : left != 0)
		return -1;
	req->u.send.datalen = (uint32_t)left;
	req->u.send.data = rbuf_take(r, left);
	return req->u.send.data ? rbuf_end(r) : -1;
}

static int dec_setopt(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_i32(r, &req->u.opt.level) || rbuf_i32(r, &req->u.opt.name) ||
	    rbuf_u32(r, &req->u.opt.len) || req->u.opt.len > WIRE_OPTVAL_MAX)
		return -1;
	memset(req->u.opt.val, 0, sizeof(req->u.opt.val));
	if (rbuf_bytes(r, req->u.opt.val, req->u.opt.len))
		return -1;
	return rbuf_end(r);
}

static int dec_getopt(struct rbuf *r, struct wire_req *req)
{
	if (rbuf_i32(r, &req->u.opt.level) || rbuf_i32(r, &req->u.opt.name) ||
	    rbuf_u32(r, &req->u.opt.len) || req->u.opt.len > WIRE_OPTVAL_MAX)
		return -1;
	return rbuf_end(r);
}

int wire_decode_req(const uint8_t *msg, size_t len, struct wire_req *req)
{
	struct rbuf r;
	uint16_t flags;

	memset(req, 0, sizeof(*req));
	rbuf_init(&r, msg, len);
	if (rbuf_u16(&r, &req->type) || rbuf_u16(&r, &flags) ||
	    rbuf_u32(&r, &req->handle) || flags != 0)
		return -1;
	switch (req->type) {
	case WIRE_HELLO:
		rbuf_u32(&r, &req->u.version);
		return rbuf_end(&r);
	case WIRE_OPEN:
		rbuf_i32(&r, &req->u.open.domain);
		rbuf_i32(&r, &req->u.open.type);
		rbuf_i32(&r, &req->u.open.protocol);
		return rbuf_end(&r);
	case WIRE_BIND:
	case WIRE_CONNECT:
		return dec_addr(&r, req);
	case WIRE_BROKER_BIND:
		if (rbuf_bytes(&r, req->nonce, WIRE_NONCE_LEN) ||
		    rbuf_u32(&r, &req->flags) || (req->flags & ~WIRE_BB_ALL) ||
		    rbuf_i32(&r, &req->ifindex) || req->ifindex < 0)
			return -1;
		return dec_addr(&r, req);
	case WIRE_ATTACH:
		if (rbuf_bytes(&r, req->nonce, WIRE_NONCE_LEN))
			return -1;
		return rbuf_end(&r);
	case WIRE_SEND:
		return dec_send(&r, req);
	case WIRE_SETOPT:
		return dec_setopt(&r, req);
	case WIRE_GETOPT:
		return dec_getopt(&r, req);
	case WIRE_SHUTDOWN:
		rbuf_i32(&r, &req->u.how);
		return rbuf_end(&r);
	case WIRE_KEEPID:
		if (rbuf_u32(&r, &req->u.ident) || req->u.ident > 0xFFFF)
			return -1;
		return rbuf_end(&r);
	case WIRE_TABLE:
		rbuf_u32(&r, &req->u.cursor);
		return rbuf_end(&r);
	case WIRE_DETACH:
	case WIRE_GETNAME:
	case WIRE_GETPEER:
	case WIRE_STATS:
		return rbuf_end(&r);
	default:
		return -1;
	}
}

void wire_table_entry_at(const uint8_t *body, size_t i,
			 struct wire_table_entry *e)
{
	memcpy(e, body + sizeof(struct wire_table_hdr) + i * sizeof(*e),
	       sizeof(*e));
}

int wire_table_check(const uint8_t *body, size_t len,
		     struct wire_table_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (len < sizeof(*hdr))
		return -1;
	memcpy(hdr, body, sizeof(*hdr));
	if (hdr->pad != 0 || (hdr->flags & ~WIRE_TABLE_ALL) ||
	    hdr->count > WIRE_TABLE_PAGE ||
	    len != sizeof(*hdr) + hdr->count * sizeof(struct wire_table_entry))
		return -1;
	for (size_t i = 0; i < hdr->count; i++) {
		struct wire_table_entry e;

		wire_table_entry_at(body, i, &e);
		if ((e.family != AF_INET && e.family != AF_INET6) ||
		    (e.flags & ~(WIRE_TE_DEST_CAPPED | WIRE_TE_BROKER)) ||
		    e.destinations > WIRE_DEST_CAP || e.handle == 0)
			return -1;
	}
	return 0;
}
