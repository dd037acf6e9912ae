/* SPDX-License-Identifier: ISC */
/*
 * fuzz_common - what several fuzzers share: the reader of their input,
 * and the devices of the fake host they give the engine (lo is 1, eth0
 * is 2, no other).
 */
#ifndef PS_FUZZ_COMMON_H
#define PS_FUZZ_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The fuzzer's input, read a byte at a time; zeros past its end. */
struct rd {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t u8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static inline uint16_t u16(struct rd *r)
{
	uint16_t hi = u8(r);

	return (uint16_t)(hi << 8 | u8(r));
}

static inline int f_dev_index(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "lo") == 0)
		return 1;
	return strcmp(name, "eth0") == 0 ? 2 : -ENODEV;
}

static inline int f_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1 && ifindex != 2)
		return -ENODEV;
	strcpy(buf, ifindex == 1 ? "lo" : "eth0");
	return 0;
}

#endif
