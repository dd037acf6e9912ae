/* SPDX-License-Identifier: ISC */
/*
 * inetsum.h - the Internet checksum (RFC 1071) of a byte array, for the
 * test programs that write ICMP messages themselves; the value to store
 * big-endian in the message's checksum field.
 */
#ifndef PS_TESTS_INETSUM_H
#define PS_TESTS_INETSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t inet_sum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#endif
