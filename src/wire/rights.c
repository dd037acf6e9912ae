/* SPDX-License-Identifier: ISC */
#include "wire/rights.h"

#include <string.h>

int wire_rights_pack(struct msghdr *mh, union wire_rights_buf *buf,
		     const int *fds, unsigned n)
{
	struct cmsghdr *cm;

	if (n > WIRE_RIGHTS_MAX)
		return -1;
	if (n == 0) {
		mh->msg_control = NULL;
		mh->msg_controllen = 0;
		return 0;
	}
	memset(buf, 0, sizeof(*buf));
	mh->msg_control = buf->b;
	mh->msg_controllen = CMSG_SPACE(n * sizeof(int));
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	return 0;
}

unsigned wire_rights_each(struct msghdr *mh,
			  void (*fn)(int fd, unsigned i, void *arg), void *arg,
			  bool *other)
{
	unsigned n = 0;

	if (other)
		*other = false;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
			if (other)
				*other = true;
			continue;
		}
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++, n++) {
			int fd;

			/* CMSG_DATA need not be aligned for an int. */
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			fn(fd, n, arg);
		}
	}
	return n;
}
