/* SPDX-License-Identifier: ISC */
/*
 * rawio - what the daemon's raw ICMP and ICMPv6 sockets (raw.h, raw6.h)
 * do alike: integer options and large queues, the control messages of a
 * send, and a receive of one batch of datagrams with their control
 * messages.  The family's own parts (filters, which options, reading the
 * control messages) stay in raw.c and raw6.c.
 */
#ifndef PSD_RAWIO_H
#define PSD_RAWIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "engine/psock.h"

/* One datagram received on a raw socket. */
struct raw_pkt {
	const uint8_t *data;	/* IPv4 header and ICMP message; IPv6: the
				 * ICMPv6 message only */
	size_t len;
	uint32_t ifindex;
	struct timespec stamp;	/* the kernel's receive time */
	struct icmp6_meta m6;	/* IPv6: addresses, hop limit, class, flow */
};

/* The most datagrams one receive returns. */
#define RAW_BATCH 32

int rawio_set_int(int fd, int level, int name, int val);

/*
 * Large queues: the daemon drains them in batches, and a reply lost here
 * is lost for good.  The FORCE options need the privilege still held at
 * start-up; without it, what the system's maximum allows.  A size of 0
 * leaves that queue as it is.
 */
void rawio_queues(int fd, int rcvbuf, int sndbuf);

/* Append one control message to mh's buffer at *used (room is the
 * caller's); *used grows by its space. */
void rawio_add_cmsg(struct msghdr *mh, size_t *used, int level, int type,
		    const void *data, size_t len);

/* The buffers of one batch: datagrams, names, control messages. */
struct rawio_batch;

struct rawio_batch *rawio_batch_new(void);
void rawio_batch_free(struct rawio_batch *b);

/*
 * Receive up to max (at most RAW_BATCH) datagrams from fd without
 * blocking; for each, fills pkts[i] (data, len; the rest zeroed) and calls
 * read(msg, &pkts[i]) with its header (the sender's address in msg_name,
 * the control messages), for the family to read.  Pointers stay valid
 * until the next receive into b.  Returns the count (0: none) or -errno.
 */
int rawio_recv(struct rawio_batch *b, int fd, struct raw_pkt *pkts, int max,
	       void (*read)(struct msghdr *msg, struct raw_pkt *p));

#endif
