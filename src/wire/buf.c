/* SPDX-License-Identifier: ISC */
#include "wire/buf.h"

#include <string.h>

void rbuf_init(struct rbuf *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->off = 0;
	r->bad = 0;
}

const uint8_t *rbuf_take(struct rbuf *r, size_t n)
{
	const uint8_t *q;

	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		return NULL;
	}
	q = r->p + r->off;
	r->off += n;
	return q;
}

int rbuf_bytes(struct rbuf *r, void *dst, size_t n)
{
	const uint8_t *q = rbuf_take(r, n);

	if (!q)
		return -1;
	if (n)
		memcpy(dst, q, n);
	return 0;
}

int rbuf_u8(struct rbuf *r, uint8_t *v) { return rbuf_bytes(r, v, sizeof(*v)); }
int rbuf_u16(struct rbuf *r, uint16_t *v) { return rbuf_bytes(r, v, sizeof(*v)); }
int rbuf_u32(struct rbuf *r, uint32_t *v) { return rbuf_bytes(r, v, sizeof(*v)); }
int rbuf_i32(struct rbuf *r, int32_t *v) { return rbuf_bytes(r, v, sizeof(*v)); }
int rbuf_i64(struct rbuf *r, int64_t *v) { return rbuf_bytes(r, v, sizeof(*v)); }

size_t rbuf_left(const struct rbuf *r)
{
	return r->bad ? 0 : r->len - r->off;
}

int rbuf_end(const struct rbuf *r)
{
	return (r->bad || r->off != r->len) ? -1 : 0;
}

void wbuf_init(struct wbuf *w, void *p, size_t cap)
{
	w->p = p;
	w->cap = cap;
	w->len = 0;
	w->overflow = 0;
}

void wbuf_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = 1;
		return;
	}
	if (n)
		memcpy(w->p + w->len, src, n);
	w->len += n;
}

void wbuf_u8(struct wbuf *w, uint8_t v) { wbuf_bytes(w, &v, sizeof(v)); }
void wbuf_u16(struct wbuf *w, uint16_t v) { wbuf_bytes(w, &v, sizeof(v)); }
void wbuf_u32(struct wbuf *w, uint32_t v) { wbuf_bytes(w, &v, sizeof(v)); }
void wbuf_i32(struct wbuf *w, int32_t v) { wbuf_bytes(w, &v, sizeof(v)); }
void wbuf_i64(struct wbuf *w, int64_t v) { wbuf_bytes(w, &v, sizeof(v)); }

long wbuf_done(const struct wbuf *w)
{
	return w->overflow ? -1 : (long)w->len;
}
