/* SPDX-License-Identifier: ISC */
/*
 * rights - descriptors in a message's control data (SCM_RIGHTS), both
 * ways, written once: the daemon packs an answer's descriptors, the
 * library takes them from the answer, the daemon's closer takes those a
 * client should not have sent.  Pure: control buffers only, no I/O.
 */
#ifndef PS_WIRE_RIGHTS_H
#define PS_WIRE_RIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* The most descriptors one answer carries (the daemon's struct reply). */
#define WIRE_RIGHTS_MAX 4

/* Control data room for WIRE_RIGHTS_MAX descriptors, aligned. */
union wire_rights_buf {
	struct cmsghdr align;
	char b[CMSG_SPACE(WIRE_RIGHTS_MAX * sizeof(int))];
};

/*
 * Control data room for as many descriptors as the kernel lets one
 * message carry (SCM_MAX_FD).  What does not fit in a receive's control
 * buffer the kernel releases in the receiving thread, and the last
 * release of some files waits on whoever sent them (wire_rights_each's
 * caller is told so by MSG_CTRUNC, too late): a receive that must not
 * be held so takes them all, and lets each go as it chooses.
 */
#define WIRE_RIGHTS_KERNEL_MAX 253
union wire_rights_all_buf {
	struct cmsghdr align;
	char b[CMSG_SPACE(WIRE_RIGHTS_KERNEL_MAX * sizeof(int))];
};

/*
 * Put fds[0..n) into mh's control data, in buf: msg_control and
 * msg_controllen set (to none when n is 0).  -1 (mh untouched) if n is
 * more than WIRE_RIGHTS_MAX.
 */
int wire_rights_pack(struct msghdr *mh, union wire_rights_buf *buf,
		     const int *fds, unsigned n);

/*
 * Every descriptor in a received message's control data, in order:
 * fn(fd, i, arg) for the i-th.  Returns how many came; *other (if not
 * NULL) says whether control data of another kind came too.  Every
 * descriptor that came is handed to fn, which owns it from then on.
 */
unsigned wire_rights_each(struct msghdr *mh,
			  void (*fn)(int fd, unsigned i, void *arg), void *arg,
			  bool *other);

#endif
