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

/* More messages, and more of their data, than a datagram ever gets
 * (ten messages, about 400 bytes, with every receive option on). */
#define CMSG_REC_MAX 16
#define CMSG_REC_DATA 640

struct cmsg_rec {
	int level, type;
	uint16_t off, len;	/* its data in cmsg_out.data */
};

struct cmsg_out {
	char *p;		/* next free byte of the caller's buffer */
	size_t left;
	size_t used;
	int flags;		/* MSG_CTRUNC when something did not fit */
	/* Every message put, whole, when there is a buffer: for
	 * cmsg_to_user(). */
	bool keep;
	unsigned n;
	size_t dlen;
	struct cmsg_rec rec[CMSG_REC_MAX];
	uint8_t data[CMSG_REC_DATA];
};

void cmsg_begin(struct cmsg_out *o, const struct msghdr *msg);
void cmsg_put(struct cmsg_out *o, int level, int type, const void *data,
	      size_t len);
/*
 * The messages put into o, again, into the program's control buffer ctl
 * (controllen bytes) in the program's memory (ucopy.h), each as
 * put_cmsg() copies one to user memory: one that cannot be written
 * there is left out (not counted, no MSG_CTRUNC), and the next goes where
 * it would have gone.  For a buffer in which the copy that o laid out
 * could not be written whole.  The bytes used; *flags gets MSG_CTRUNC
 * where a message did not fit.
 */
size_t cmsg_to_user(const struct cmsg_out *o, void *ctl, size_t controllen,
		    int *flags);
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
