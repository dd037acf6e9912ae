/* SPDX-License-Identifier: ISC */
#include "engine/pscmsg.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* __sock_cmsg_send(): what a SOL_SOCKET control message may be. */
static int sol_socket_cmsg(const struct cmsghdr *h, const uint8_t *data)
{
	uint32_t v;

	switch (h->cmsg_type) {
	case SO_MARK:
	case SO_PRIORITY:
		if (h->cmsg_len != CMSG_LEN(sizeof(uint32_t)))
			return -EINVAL;
		memcpy(&v, data, sizeof(v));
		/* Marks and priorities above 6 need CAP_NET_ADMIN. */
		return h->cmsg_type == SO_PRIORITY && v <= 6 ? 0 : -EPERM;
	case SO_TIMESTAMPING_OLD:
	case SO_TIMESTAMPING_NEW:
		return h->cmsg_len == CMSG_LEN(sizeof(uint32_t)) ? 0 : -EINVAL;
	case SCM_TXTIME:
		return h->cmsg_len == CMSG_LEN(sizeof(uint64_t)) ? 0 : -EINVAL;
	case SCM_RIGHTS:
	case SCM_CREDENTIALS:
		return 0;	/* accepted and ignored, as by inet sockets */
	default:
		return -EINVAL;
	}
}

int ps_cmsg_walk(const uint8_t *ctl, uint32_t len, int level,
		 int (*fn)(void *arg, const struct cmsghdr *h,
			   const uint8_t *data),
		 void *arg)
{
	size_t off = 0;

	while (len >= sizeof(struct cmsghdr) &&
	       off + sizeof(struct cmsghdr) <= len) {
		struct cmsghdr h;
		int err = 0;

		memcpy(&h, ctl + off, sizeof(h));
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > len - off)
			return -EINVAL;
		if (h.cmsg_level == SOL_SOCKET)
			err = sol_socket_cmsg(&h, ctl + off + CMSG_LEN(0));
		else if (h.cmsg_level == level)
			err = fn(arg, &h, ctl + off + CMSG_LEN(0));
		if (err)
			return err;
		off += CMSG_ALIGN(h.cmsg_len);
	}
	return 0;
}

