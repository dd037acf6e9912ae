/* SPDX-License-Identifier: ISC */
/* rawio - the parts of raw.c and raw6.c that are the same (rawio.h). */
#include "daemon/rawio.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* What one datagram can be: the largest IP datagram. */
#define RAWIO_BUF 65536
/* Room for the control messages either family asks for (raw.c: packet
 * info and a time stamp; raw6.c: packet info, hop limit, class, flow
 * information and a time stamp), with space to spare. */
#define RAWIO_CTL 256

struct rawio_batch {
	uint8_t *bufs;			/* RAW_BATCH * RAWIO_BUF */
	struct mmsghdr msgs[RAW_BATCH];
	struct iovec iov[RAW_BATCH];
	struct sockaddr_in6 names[RAW_BATCH];	/* room for either family */
	union {
		struct cmsghdr align;
		char b[RAWIO_CTL];
	} ctl[RAW_BATCH];
};

int rawio_set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

void rawio_queues(int fd, int rcvbuf, int sndbuf)
{
	if (rcvbuf && rawio_set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf))
		rawio_set_int(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	if (sndbuf && rawio_set_int(fd, SOL_SOCKET, SO_SNDBUFFORCE, sndbuf))
		rawio_set_int(fd, SOL_SOCKET, SO_SNDBUF, sndbuf);
}

void rawio_add_cmsg(struct msghdr *mh, size_t *used, int level, int type,
		    const void *data, size_t len)
{
	struct cmsghdr *c = (struct cmsghdr *)((char *)mh->msg_control + *used);

	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	*used += CMSG_SPACE(len);
}

struct rawio_batch *rawio_batch_new(void)
{
	struct rawio_batch *b = calloc(1, sizeof(*b));

	if (b && !(b->bufs = malloc((size_t)RAW_BATCH * RAWIO_BUF))) {
		free(b);
		return NULL;
	}
	return b;
}

void rawio_batch_free(struct rawio_batch *b)
{
	if (!b)
		return;
	free(b->bufs);
	free(b);
}

static void batch_reset(struct rawio_batch *b, int max)
{
	for (int i = 0; i < max; i++) {
		struct msghdr *mh = &b->msgs[i].msg_hdr;

		b->iov[i].iov_base = b->bufs + (size_t)i * RAWIO_BUF;
		b->iov[i].iov_len = RAWIO_BUF;
		memset(&b->msgs[i], 0, sizeof(b->msgs[i]));
		mh->msg_name = &b->names[i];
		mh->msg_namelen = sizeof(b->names[i]);
		mh->msg_iov = &b->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = b->ctl[i].b;
		mh->msg_controllen = sizeof(b->ctl[i].b);
	}
}

int rawio_recv(struct rawio_batch *b, int fd, struct raw_pkt *pkts, int max,
	       void (*read)(struct msghdr *msg, struct raw_pkt *p))
{
	int n;

	if (max > RAW_BATCH)
		max = RAW_BATCH;
	batch_reset(b, max);
	n = recvmmsg(fd, b->msgs, (unsigned)max, MSG_DONTWAIT, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		memset(&pkts[i], 0, sizeof(pkts[i]));
		pkts[i].data = b->iov[i].iov_base;
		pkts[i].len = b->msgs[i].msg_len;
		read(&b->msgs[i].msg_hdr, &pkts[i]);
	}
	return n;
}
