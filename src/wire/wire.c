/* SPDX-License-Identifier: ISC */
/*
 * wire - framing requests (the header, then the fields their type's row
 * in types.c says), and the client's checks of the socket table's and
 * the users' pages and of the statistics.
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
	return wire_encode_req_as(req, req->rqflags, buf, cap);
}

long wire_encode_req_as(const struct wire_req *req, uint16_t rqflags,
			uint8_t *buf, size_t cap)
{
	const struct wire_req_type *t = wire_req_type(req->type);
	struct wbuf w;

	if (!t)
		return -1;
	wbuf_init(&w, buf, cap);
	wbuf_u16(&w, req->type);
	wbuf_u16(&w, rqflags);
	wbuf_u32(&w, req->handle);
	if (t->encode)
		t->encode(&w, req);
	return wbuf_done(&w);
}

int wire_decode_req(const uint8_t *msg, size_t len, struct wire_req *req)
{
	const struct wire_req_type *t;
	struct rbuf r;

	memset(req, 0, sizeof(*req));
	rbuf_init(&r, msg, len);
	if (rbuf_u16(&r, &req->type) || rbuf_u16(&r, &req->rqflags) ||
	    rbuf_u32(&r, &req->handle))
		return -1;
	/* WIRE_RQ_SLOT and WIRE_RQ_ASK on a send, WIRE_RQ_SOLE on a
	 * detach, and no other flag on anything. */
	if (req->rqflags != 0 &&
	    !(!(req->rqflags & ~(WIRE_RQ_SLOT | WIRE_RQ_ASK)) &&
	      req->type == WIRE_SEND) &&
	    !(req->rqflags == WIRE_RQ_SOLE && req->type == WIRE_DETACH))
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

void wire_user_entry_at(const uint8_t *body, size_t i,
			struct wire_user_entry *e)
{
	memcpy(e, body + sizeof(struct wire_users_hdr) + i * sizeof(*e),
	       sizeof(*e));
}

int wire_users_check(const uint8_t *body, size_t len, uint32_t cursor,
		     struct wire_users_hdr *hdr)
{
	uint64_t least = cursor;	/* the next uid may be no less */
	struct wire_user_entry e = { 0 };

	memset(hdr, 0, sizeof(*hdr));
	if (len < sizeof(*hdr))
		return -1;
	memcpy(hdr, body, sizeof(*hdr));
	if (hdr->pad != 0 || (hdr->flags & ~WIRE_USERS_ALL) ||
	    hdr->count > WIRE_USERS_PAGE ||
	    len != sizeof(*hdr) + hdr->count * sizeof(struct wire_user_entry))
		return -1;
	for (size_t i = 0; i < hdr->count; i++) {
		wire_user_entry_at(body, i, &e);
		if (e.pad != 0 || e.uid < least)
			return -1;
		least = (uint64_t)e.uid + 1;
	}
	/* More only after a full page, from just past its last uid: each
	 * page moves the cursor on, so that paging ends. */
	if (hdr->next != 0 && (hdr->count != WIRE_USERS_PAGE ||
			       hdr->next != least))
		return -1;
	return 0;
}

/* What a version string may hold: it becomes a Prometheus label value
 * and a line of pingsockctl's output, so nothing to escape. */
static bool version_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '~' ||
	       c == '_' || c == '-';
}

int wire_stats_check(const struct wire_stats *st)
{
	size_t n = 0;

	if ((st->flags & ~WIRE_ST_ALL) || st->pad != 0)
		return -1;
	while (n < WIRE_VERSION_STR && st->version[n] &&
	       version_char(st->version[n]))
		n++;
	if (n == WIRE_VERSION_STR)
		return -1;	/* no NUL */
	for (; n < WIRE_VERSION_STR; n++)
		if (st->version[n])
			return -1;	/* a character out of the set, or
					 * bytes after the NUL */
	return 0;
}

const char *wire_refusal_name(unsigned reason)
{
	static const char *const names[WIRE_RF_END] = {
		[WIRE_RF_GROUP] = "group",
		[WIRE_RF_MAX_SOCKETS] = "max_sockets",
		[WIRE_RF_FDS] = "descriptors",
		[WIRE_RF_IDENTS] = "identifiers",
		[WIRE_RF_RESOURCES] = "resources",
	};

	return reason < WIRE_RF_END ? names[reason] : "unknown";
}
