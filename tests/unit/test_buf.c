/* SPDX-License-Identifier: ISC */
/*
 * test_buf - the bounds-checked reader and writer (src/wire/buf.c).
 */
#include <stdint.h>
#include <string.h>

#include "wire/buf.h"
#include "check.h"

/* Every getter reads exactly its size, in host order. */
static void reader_reads_fields_in_order(void)
{
	uint8_t b[1 + 2 + 4 + 4 + 8 + 3];
	uint8_t u8, raw[3];
	uint16_t u16 = 0xBEEF, g16;
	uint32_t u32 = 0xDEADBEEF, g32;
	int32_t i32 = -123456, gi32;
	int64_t i64 = -1234567890123LL, gi64;
	struct rbuf r;
	size_t o = 0;

	b[o++] = 0x7f;
	memcpy(b + o, &u16, 2), o += 2;
	memcpy(b + o, &u32, 4), o += 4;
	memcpy(b + o, &i32, 4), o += 4;
	memcpy(b + o, &i64, 8), o += 8;
	memcpy(b + o, "xyz", 3), o += 3;
	CHECK_EQ(o, sizeof(b));

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_left(&r), sizeof(b));
	CHECK_EQ(rbuf_u8(&r, &u8), 0);
	CHECK_EQ(u8, 0x7f);
	CHECK_EQ(rbuf_u16(&r, &g16), 0);
	CHECK_EQ(g16, 0xBEEF);
	CHECK_EQ(rbuf_u32(&r, &g32), 0);
	CHECK_EQ(g32, 0xDEADBEEF);
	CHECK_EQ(rbuf_i32(&r, &gi32), 0);
	CHECK_EQ(gi32, -123456);
	CHECK_EQ(rbuf_i64(&r, &gi64), 0);
	CHECK_EQ(gi64, -1234567890123LL);
	CHECK_EQ(rbuf_left(&r), 3);
	CHECK_EQ(rbuf_bytes(&r, raw, 3), 0);
	CHECK(memcmp(raw, "xyz", 3) == 0);
	CHECK_EQ(rbuf_left(&r), 0);
	CHECK_EQ(rbuf_end(&r), 0);
}

/* A getter that would cross the end fails and does not touch its output. */
static void reader_never_over_reads(void)
{
	uint8_t b[3] = { 1, 2, 3 };
	uint32_t v32 = 0x11223344;
	uint64_t raw = 0;
	int64_t v64 = 42;
	struct rbuf r;

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_u32(&r, &v32), -1);
	CHECK_EQ(v32, 0x11223344);
	CHECK(r.bad);

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_i64(&r, &v64), -1);
	CHECK_EQ(v64, 42);

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_bytes(&r, &raw, 4), -1);
	CHECK_EQ(raw, 0);

	/* Empty buffer: even one byte is too much, zero bytes is fine. */
	rbuf_init(&r, b, 0);
	CHECK_EQ(rbuf_bytes(&r, &raw, 0), 0);
	CHECK(rbuf_take(&r, 0) != NULL);
	CHECK_EQ(rbuf_end(&r), 0);
	CHECK(rbuf_take(&r, 1) == NULL);
	CHECK_EQ(rbuf_end(&r), -1);
}

/* Sizes near SIZE_MAX must not wrap the bounds check. */
static void reader_huge_take_fails(void)
{
	uint8_t b[4] = { 0 }, u8;
	uint16_t u16;
	struct rbuf r;

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_u8(&r, &u8), 0);
	CHECK(rbuf_take(&r, SIZE_MAX) == NULL);
	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_u16(&r, &u16), 0);
	CHECK(rbuf_take(&r, SIZE_MAX - 1) == NULL);
	CHECK_EQ(rbuf_left(&r), 0);
}

/* Once bad, every later getter fails, even one that would fit. */
static void reader_bad_is_sticky(void)
{
	uint8_t b[3] = { 0xaa, 0xbb, 0xcc };
	uint8_t u8 = 0;
	uint16_t u16;
	struct rbuf r;

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_u16(&r, &u16), 0);
	CHECK_EQ(rbuf_left(&r), 1);
	CHECK_EQ(rbuf_u16(&r, &u16), -1);	/* 1 byte left: too short */
	CHECK_EQ(rbuf_left(&r), 0);		/* bad reports nothing left */
	CHECK_EQ(rbuf_u8(&r, &u8), -1);		/* would fit, but bad */
	CHECK_EQ(u8, 0);
	CHECK(rbuf_take(&r, 0) == NULL);
	CHECK_EQ(rbuf_bytes(&r, &u8, 0), -1);
	CHECK_EQ(rbuf_end(&r), -1);
}

/* rbuf_end: fails on leftovers, passes when everything was read. */
static void reader_end_fails_on_leftovers(void)
{
	uint8_t b[5] = { 0 };
	uint32_t v;
	struct rbuf r;

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_u32(&r, &v), 0);
	CHECK_EQ(rbuf_end(&r), -1);		/* one byte left */
	CHECK(rbuf_take(&r, 1) == b + 4);
	CHECK_EQ(rbuf_end(&r), 0);

	rbuf_init(&r, b, sizeof(b));
	CHECK_EQ(rbuf_end(&r), -1);		/* nothing read */
}

/* rbuf_take returns a pointer into the buffer and consumes. */
static void reader_take_points_into_buffer(void)
{
	uint8_t b[6] = { 1, 2, 3, 4, 5, 6 };
	struct rbuf r;
	const uint8_t *p;

	rbuf_init(&r, b, sizeof(b));
	p = rbuf_take(&r, 2);
	CHECK(p == b);
	p = rbuf_take(&r, 4);
	CHECK(p == b + 2);
	CHECK_EQ(rbuf_left(&r), 0);
	CHECK(rbuf_take(&r, 1) == NULL);
}

/* Writer: values in host order; exactly full is fine. */
static void writer_writes_fields(void)
{
	uint8_t b[1 + 2 + 4 + 4 + 8 + 2];
	uint16_t u16;
	uint32_t u32;
	int32_t i32;
	int64_t i64;
	struct wbuf w;

	wbuf_init(&w, b, sizeof(b));
	wbuf_u8(&w, 0x5a);
	wbuf_u16(&w, 0x1234);
	wbuf_u32(&w, 0x89abcdef);
	wbuf_i32(&w, -2);
	wbuf_i64(&w, -3);
	wbuf_bytes(&w, "ok", 2);
	CHECK_EQ(wbuf_done(&w), sizeof(b));
	CHECK_EQ(b[0], 0x5a);
	memcpy(&u16, b + 1, 2);
	CHECK_EQ(u16, 0x1234);
	memcpy(&u32, b + 3, 4);
	CHECK_EQ(u32, 0x89abcdef);
	memcpy(&i32, b + 7, 4);
	CHECK_EQ(i32, -2);
	memcpy(&i64, b + 11, 8);
	CHECK_EQ(i64, -3);
	CHECK(memcmp(b + 19, "ok", 2) == 0);
}

/* Writer overflow: nothing past cap, sticky, wbuf_done() -1. */
static void writer_overflow(void)
{
	uint8_t b[8];
	struct wbuf w;

	memset(b, 0xee, sizeof(b));
	wbuf_init(&w, b, 5);
	wbuf_u32(&w, 0x01020304);
	CHECK_EQ(wbuf_done(&w), 4);
	wbuf_u16(&w, 0xffff);			/* needs 2, 1 left */
	CHECK_EQ(wbuf_done(&w), -1);
	CHECK_EQ(b[4], 0xee);			/* not even partially written */
	CHECK_EQ(b[5], 0xee);
	wbuf_u8(&w, 0x77);			/* would fit, but sticky */
	CHECK_EQ(wbuf_done(&w), -1);
	CHECK_EQ(b[4], 0xee);

	wbuf_init(&w, b, 0);
	wbuf_bytes(&w, "", 0);
	CHECK_EQ(wbuf_done(&w), 0);
	wbuf_u8(&w, 1);
	CHECK_EQ(wbuf_done(&w), -1);

	wbuf_init(&w, b, sizeof(b));
	wbuf_u8(&w, 1);
	wbuf_bytes(&w, b, SIZE_MAX);		/* must not wrap */
	CHECK_EQ(wbuf_done(&w), -1);
}

int main(void)
{
	TEST(reader_reads_fields_in_order);
	TEST(reader_never_over_reads);
	TEST(reader_huge_take_fails);
	TEST(reader_bad_is_sticky);
	TEST(reader_end_fails_on_leftovers);
	TEST(reader_take_points_into_buffer);
	TEST(writer_writes_fields);
	TEST(writer_overflow);
	return CHECK_DONE();
}
