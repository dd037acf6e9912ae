/* SPDX-License-Identifier: ISC */
/*
 * relay - a socket relayed by pingsockd: every call is a request on the
 * control connection (or, for a receive, a read of the socket's data
 * descriptor).  This module makes the requests, re-attaching the socket
 * first when this process's connection does not know it yet (after fork,
 * or a reconnect); relay_name.c, relay_io.c and relay_opt.c are the
 * socket's operations (backend.h).
 */
#ifndef PS_LIB_RELAY_H
#define PS_LIB_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "lib/fdtab.h"
#include "wire/wire.h"

/*
 * One request about the socket on fd.  Returns the daemon's result (>= 0)
 * or -errno; the documented errno when the daemon has gone away is
 * ECONNRESET.
 */
int relay_call(int fd, struct fdent *ent, struct wire_req *req,
	       const struct iovec *data, int ndata, void *body,
	       size_t *bodylen);

/*
 * conn_call() (conn.h) as a locked region (lock.h): a signal handler that
 * runs while the thread waits for the daemon's answer must not start
 * another request.  The library's every request goes through here.
 */
int relay_conn_call(const struct wire_req *req, const struct iovec *data,
		    int ndata, void *body, size_t *bodylen, int *fd_out);

/*
 * Prove to the daemon that this process holds the socket fd (its data
 * descriptor, or a broker socket's liveness descriptor): a fresh random
 * nonce, written there as a struct wire_proof and copied to nonce
 * (WIRE_NONCE_LEN bytes) for the request that follows.  0 or -errno.
 */
int relay_prove(int fd, uint8_t *nonce);

/*
 * fd came across exec (inherit.h) and is an AF_UNIX socket of this
 * SO_COOKIE: if its pair was made by the uid that listens at the socket
 * path (or that listener is root), and pingsockd says it is one of our
 * uid's relayed sockets, attach it (proving that we hold it) and give it
 * its entry.  0, or -errno (-ENOENT: not one of the daemon's; nothing
 * was written on it, and its entry is as it was).  0 also when the
 * daemon found it but the attach failed (no room, ENOBUFS; the daemon
 * gone): the entry is the socket's, unattached, and its calls try
 * again.
 */
int relay_adopt(int fd, uint64_t cookie);

/* POLLIN fired on fd: a datagram is queued (wake-ups at its head taken),
 * not only wake-ups (relay_io.c). */
bool relay_data_queued(int fd, const struct fdent *ent);

/* ---- the operations of a relayed socket (backend.h) ---- */
int relay_bind(int fd, struct fdent *e, const struct sockaddr *addr,
	       socklen_t len);
int relay_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		  socklen_t len);
int relay_getname(int fd, struct fdent *e, bool peer, struct sockaddr *addr,
		  socklen_t *len);
int relay_shutdown(int fd, struct fdent *e, int how);
ssize_t relay_sendto(int fd, struct fdent *e, const void *buf, size_t len,
		     int flags, const struct sockaddr *dst, socklen_t dstlen);
ssize_t relay_sendmsg(int fd, struct fdent *e, const struct msghdr *msg,
		      int flags);
ssize_t relay_recvfrom(int fd, struct fdent *e, void *buf, size_t len,
		       int flags, struct sockaddr *src, socklen_t *srclen);
ssize_t relay_recvmsg(int fd, struct fdent *e, struct msghdr *msg,
		      int flags);
/* The raw-socket emulation's receive (rawcompat.h). */
ssize_t relay_raw_recvfrom(int fd, struct fdent *e, void *buf, size_t len,
		      int flags, struct sockaddr *src, socklen_t *srclen);
ssize_t relay_raw_recvmsg(int fd, struct fdent *e, struct msghdr *msg, int flags);
int relay_setsockopt(int fd, struct fdent *e, int level, int name,
		     const void *val, socklen_t len);
int relay_getsockopt(int fd, struct fdent *e, int level, int name,
		     void *val, socklen_t *len);
int relay_ioctl(int fd, struct fdent *e, unsigned long req, void *arg);
/* The last descriptor of the socket is gone: tell the daemon (best
 * effort).  Its state slot is the daemon's to give back. */
void relay_release(struct fdent *e);

#endif
