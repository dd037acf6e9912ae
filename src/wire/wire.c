/* SPDX-License-Identifier: ISC */
/*
 * wire - framing requests (the header, then the fields their type's row
 * in types.c says), and the socket table's pages.
 */
#include "wire/wire.h"

#include <string.h>
#include <sys/socket.h>

#include "wire/buf.h"

const char *wire_type_name(unsigned type)
{
	const struct wire_req_type *t = wire_req_type(type);

	return t ? t->name : "unknown";
}

long wire_encode_req(const struct wire_req *req, uint8_t *buf, size_t cap)
{
	const struct wire_req_type *t = wire_req_type(req->type);
	struct wbuf w;

	if (!t)
		return -1;
	wbuf_init(&w, buf, cap);
	wbuf_u16(&w, req->type);
	wbuf_u16(&w, 0);
	wbuf_u32(&w, req->handle);
	if (t->encode)
		t->encode(&w, req);
	return wbuf_done(&w);
}

int wire_decode_req(const uint8_t *msg, size_t len, struct wire_req *req)
{
	const struct wire_req_type *t;
	struct rbuf r;
	uint16_t flags;

	memset(req, 0, sizeof(*req));
	rbuf_init(&r, msg, len);
	if (rbuf_u16(&r, &req->type) || rbuf_u16(&r, &flags) ||
	    rbuf_u32(&r, &req->handle) || flags != 0)
		return -1;
	t = wire_req_type(req->type);
	if (!t || (t->decode && t->decode(&r, req)))
		return -1;
	/* Every field read, and nothing left over. */
	return rbuf_end(&r);
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
