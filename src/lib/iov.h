/* SPDX-License-Identifier: ISC */
/*
 * iov - the bytes an iovec array holds, saturating at SIZE_MAX (a
 * caller's lengths may sum past it): the room a receive has, the length
 * a send asks for.
 */
#ifndef PS_LIB_IOV_H
#define PS_LIB_IOV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

static inline size_t iov_total(const struct iovec *iov, size_t n)
{
	size_t t = 0;

	for (size_t i = 0; i < n; i++) {
		if (iov[i].iov_len > SIZE_MAX - t)
			return SIZE_MAX;
		t += iov[i].iov_len;
	}
	return t;
}

#endif
