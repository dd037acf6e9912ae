/* SPDX-License-Identifier: ISC */
/*
 * errq - a daemon socket's error queue and pending error, as the kernel's
 * ip_recv_error() and sock_error() present them.
 *
 * The daemon keeps both.  The pending error (sk_err) and the count of
 * records are shown in the socket's state slot, so that a receive asks
 * the daemon only when there is something to take.
 */
#ifndef PS_ERRQ_H
#define PS_ERRQ_H

#include <stdbool.h>
#include <sys/socket.h>

#include "lib/cmsg.h"
#include "lib/fdtab.h"

/* sock_error(): take the pending error (positive errno), or 0. */
int errq_take_pending(int fd, const struct fdent *ent);
/* recvmsg(MSG_ERRQUEUE) into msg, the library's copy of the program's
 * (umsg.h), its control messages kept in co: a record's length, or
 * -errno (-EAGAIN: none). */
long errq_recv(int fd, const struct fdent *ent, struct msghdr *msg,
	       struct cmsg_out *co, int flags);
/*
 * do_recvmmsg(): the error err that ended a batch after a message was
 * received becomes the socket's pending error (sk_err), for the next
 * call, SO_ERROR and poll's POLLERR; not EAGAIN.  Best effort: a daemon
 * that does not know WIRE_SETERR ends the connection at it (the next
 * call dials again), and the library asks no more.
 */
void errq_keep(int fd, const struct fdent *ent, int err);
/* Would the kernel's poll report POLLERR now? */
bool errq_pollerr(const struct fdent *ent);

#endif
