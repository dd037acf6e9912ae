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

/* The iovecs a relayed receive takes, and a relayed send gathers as they
 * are (more are flattened, relay_io.c). */
#define UMSG_IOV 15

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

#endif
