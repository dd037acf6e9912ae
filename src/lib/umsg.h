/* SPDX-License-Identifier: ISC */
/*
 * umsg - a program's struct msghdr for a send or receive on a relayed
 * socket, read and written as the kernel's system call layer reads and
 * writes it (copy_msghdr_from_user(), import_iovec(), ____sys_recvmsg()):
 * in its order of checks, with its side effects, and through ucopy.h, so
 * that memory the program does not have is EFAULT, not a crash.  The
 * relay's send and receive then work on the copy.
 */
#ifndef PS_LIB_UMSG_H
#define PS_LIB_UMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "lib/cmsg.h"

/* The iovecs a relayed receive takes, and a relayed send gathers as they
 * are (more are flattened, relay_io.c). */
#define UMSG_IOV 15
/* Room for every control message of a datagram (cmsg.h), laid out. */
#define UMSG_CTL (CMSG_REC_MAX * CMSG_SPACE(0) + CMSG_REC_DATA + \
		  CMSG_REC_MAX * 8)

/* net.core.optmem_max's default (Linux 6.x): the most control data
 * ____sys_sendmsg() copies in; ENOBUFS beyond, without reading it. */
#define UMSG_OPTMEM_MAX 131072u

/* A send's: the msghdr, its iovec array (iov, or heap for more). */
struct umsg_send {
	struct msghdr m;
	struct iovec iov[UMSG_IOV];
	struct iovec *heap;
};

/*
 * ___sys_sendmsg()'s copies of user up to the protocol's sendmsg: 0, or
 * -EFAULT, -EINVAL (a negative msg_namelen), -EMSGSIZE (more than
 * UIO_MAXIOV iovecs), -ENOBUFS (more control data than a relayed send
 * takes, WIRE_CTL_MAX).  The name and the control data stay where they
 * are (the kernel gathers them, lib/call.c): they are read here only to
 * say EFAULT before such an error, as the kernel would.  msg_name is
 * NULL in the copy when there is no name.  umsg_send_done() after.
 */
int umsg_send_in(struct umsg_send *s, const struct msghdr *user);
void umsg_send_done(struct umsg_send *s);

/* A receive's: the program's msghdr and its copy, which names buffers
 * of its own for the name and the control messages. */
struct umsg_recv {
	struct msghdr *user;	/* the program's (NULL: recvfrom()'s) */
	void *name;		/* the program's msg_name */
	socklen_t namelen;	/* and its msg_namelen, as given */
	void *ctl;		/* the program's msg_control */
	size_t controllen;
	struct msghdr m;	/* what the receive fills */
	struct iovec iov[UMSG_IOV];
	struct sockaddr_storage sa;
	char cbuf[UMSG_CTL];
	struct cmsg_out co;	/* its control messages, kept */
};

/*
 * recvmsg_copy_msghdr(): user into r, r->m ready for the receive: 0, or
 * -EFAULT, -EINVAL (a negative msg_namelen with a name), -EMSGSIZE (more
 * than UIO_MAXIOV iovecs).  More than UMSG_IOV are checked as the kernel
 * does, but left out of r->m (msg_iov NULL): the receive refuses them.
 */
int umsg_recv_in(struct umsg_recv *r, struct msghdr *user);

/*
 * The same for recvfrom(): the buffer, and a name buffer of the
 * library's own when src is given.
 */
void umsg_recv_plain(struct umsg_recv *r, void *buf, size_t len, bool name);

/*
 * After a receive that filled r->m (its name, control messages through
 * r->co, msg_flags): what ____sys_recvmsg() writes to the program, in
 * its order: the control messages, the name and msg_namelen (only if a
 * name was given), msg_flags, msg_controllen.  0, or -EFAULT where the
 * kernel would stop with it (a control message that cannot be written is
 * only left out).
 */
int umsg_recv_out(struct umsg_recv *r);

#endif
