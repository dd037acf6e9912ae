/* SPDX-License-Identifier: ISC */
/*
 * cmsg - write control messages into a caller's msghdr exactly as the
 * kernel's put_cmsg() does: truncation sets MSG_CTRUNC, each message
 * advances by CMSG_SPACE, msg_controllen ends as the bytes used.
 */
#ifndef PS_CMSG_H
#define PS_CMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "wire/wire.h"

struct cmsg_out {
	char *p;		/* next free byte of the caller's buffer */
	size_t left;
	size_t used;
	int flags;		/* MSG_CTRUNC when something did not fit */
};

void cmsg_begin(struct cmsg_out *o, const struct msghdr *msg);
void cmsg_put(struct cmsg_out *o, int level, int type, const void *data,
	      size_t len);
void cmsg_fill_name(const struct wire_dgram *dg, struct msghdr *msg,
		    uint32_t flags);

/* The ancillary data the kernel would attach to this datagram, for the
 * receive options (WIRE_CM_*) in force. */
void cmsg_from_dgram(struct cmsg_out *o, const struct wire_dgram *dg,
		     uint32_t flags, uint32_t tsflags);
/* sock_recv_timestamp(): is the stamp given as a control message (and so
 * not kept for SIOCGSTAMP)? */
bool cmsg_takes_stamp(uint32_t flags, uint32_t tsflags);

#endif
