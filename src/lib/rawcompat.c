/* SPDX-License-Identifier: ISC */
#include "lib/rawcompat.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/iov.h"
#include "lib/ucopy.h"

bool rawc_wanted(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	const char *mode;

	if (base != SOCK_RAW ||
	    !((domain == AF_INET && protocol == IPPROTO_ICMP) ||
	      (domain == AF_INET6 && protocol == IPPROTO_ICMPV6)))
		return false;
	mode = env_get(ENV_RAW);
	return mode && strcmp(mode, "echo") == 0;
}

int rawc_rx_begin(struct rawc_rx *rx, const struct msghdr *msg,
		  struct iovec *iov)
{
	size_t want = iov_total(msg->msg_iov, msg->msg_iovlen);

	/* No ICMP message is longer; and the header takes 20 or more of
	 * the caller's bytes, so this is always enough. */
	if (want > WIRE_DATA_MAX)
		want = WIRE_DATA_MAX;
	rx->buf = rx->small;
	rx->cap = want;
	if (want > sizeof(rx->small)) {
		rx->buf = malloc(want);
		if (!rx->buf)
			return -ENOMEM;
	}
	iov->iov_base = rx->buf;
	iov->iov_len = rx->cap;
	return 0;
}

/* Copy src into msg's buffers from byte off on: false if one of them
 * cannot take its part (copy_to_user()'s EFAULT). */
static bool scatter(const struct msghdr *msg, size_t off, const uint8_t *src,
		    size_t len)
{
	size_t done = 0;

	for (size_t i = 0; i < msg->msg_iovlen && done < len; i++) {
		size_t n = msg->msg_iov[i].iov_len;

		if (off >= n) {
			off -= n;
			continue;
		}
		n -= off;
		if (n > len - done)
			n = len - done;
		if (!ucopy_out((uint8_t *)msg->msg_iov[i].iov_base + off,
			       src + done, n))
			return false;
		done += n;
		off = 0;
	}
	return true;
}

int rawc_rx_end(struct rawc_rx *rx, const struct wire_dgram *dg, ssize_t n,
		const struct msghdr *msg, int *mflags, size_t *full)
{
	uint8_t hdr[RAWHDR_MAX];
	size_t icmplen, hlen, got, room;
	int saved = errno;	/* of a failed read, for the caller */
	int rc = 0;

	*full = (size_t)n;
	if (n >= (ssize_t)sizeof(*dg)) {
		icmplen = (size_t)n - sizeof(*dg);
		got = icmplen < rx->cap ? icmplen : rx->cap;
		hlen = rawhdr_ipv4(dg, icmplen, hdr);
		room = iov_total(msg->msg_iov, msg->msg_iovlen);
		if (!scatter(msg, 0, hdr, hlen) ||
		    !scatter(msg, hlen, rx->buf, got))
			rc = -EFAULT;
		*mflags &= ~MSG_TRUNC;
		if (hlen + icmplen > room)
			*mflags |= MSG_TRUNC;
		*full = (size_t)n + hlen;
	}
	if (rx->buf != rx->small)
		free(rx->buf);
	rx->buf = NULL;
	errno = saved;
	return rc;
}

long rawc_ret(size_t full, const struct msghdr *msg, int flags)
{
	size_t room = iov_total(msg->msg_iov, msg->msg_iovlen);

	/* raw_recvmsg(), rawv6_recvmsg(): the copied length, or with
	 * MSG_TRUNC the datagram's own. */
	if (flags & MSG_TRUNC)
		return (long)full;
	return (long)(full < room ? full : room);
}
