/* SPDX-License-Identifier: ISC */
/*
 * buf - bounds-checked reading and writing of byte arrays.
 *
 * A reader never reads past its end: a getter that would returns -1 and
 * marks the reader bad, and every later getter fails too, so a decoder can
 * read all its fields and check once.  Decoders end with rbuf_end(), which
 * also fails when bytes are left over.  Values are in host byte order: the
 * protocol never leaves the host.
 */
#ifndef PS_BUF_H
#define PS_BUF_H

#include <stddef.h>
#include <stdint.h>

struct rbuf {
	const uint8_t *p;
	size_t len;
	size_t off;
	int bad;
};

struct wbuf {
	uint8_t *p;
	size_t cap;
	size_t len;
	int overflow;
};

void rbuf_init(struct rbuf *r, const void *p, size_t len);
int rbuf_u8(struct rbuf *r, uint8_t *v);
int rbuf_u16(struct rbuf *r, uint16_t *v);
int rbuf_u32(struct rbuf *r, uint32_t *v);
int rbuf_i32(struct rbuf *r, int32_t *v);
int rbuf_i64(struct rbuf *r, int64_t *v);
int rbuf_bytes(struct rbuf *r, void *dst, size_t n);
/* A pointer to the next n bytes, consumed; NULL (and bad) if fewer remain. */
const uint8_t *rbuf_take(struct rbuf *r, size_t n);
size_t rbuf_left(const struct rbuf *r);
/* 0 if every field was read and nothing is left, -1 otherwise. */
int rbuf_end(const struct rbuf *r);

void wbuf_init(struct wbuf *w, void *p, size_t cap);
void wbuf_u8(struct wbuf *w, uint8_t v);
void wbuf_u16(struct wbuf *w, uint16_t v);
void wbuf_u32(struct wbuf *w, uint32_t v);
void wbuf_i32(struct wbuf *w, int32_t v);
void wbuf_i64(struct wbuf *w, int64_t v);
void wbuf_bytes(struct wbuf *w, const void *src, size_t n);
/* Bytes written, or -1 if the buffer was too small at any point. */
long wbuf_done(const struct wbuf *w);

#endif
