/*
 * errq - a daemon socket's error queue and pending error, as the kernel's
 * ip_recv_error() and sock_error() present them.
 *
 * Records arrive on the socket's hidden error descriptor; the pending
 * error (sk_err) and the count of records are in its shared page, so a
 * receive can honour them without asking the daemon.
 */
#ifndef PS_ERRQ_H
#define PS_ERRQ_H

#include <stdbool.h>
#include <sys/socket.h>

#include "lib/fdtab.h"

/* sock_error(): take the pending error (positive errno), or 0. */
int errq_take_pending(const struct fdent *ent);
/* recvmsg(MSG_ERRQUEUE): a record's length, or -errno (-EAGAIN: none). */
long errq_recv(const struct fdent *ent, struct msghdr *msg, int flags);
/* Would the kernel's poll report POLLERR now? */
bool errq_pollerr(const struct fdent *ent);
/* IP_RECVERR 0: skb_errqueue_purge(); the pending error stays. */
void errq_purge(const struct fdent *ent);
/* Throw away wake-up markers at the head of the error descriptor. */
void errq_drain_wakes(const struct fdent *ent);

#endif
