/*
 * broker (library side) - sockets that pingsockd made in broker mode: real
 * kernel ping sockets, so every call is the kernel's but these:
 *
 *   bind()        while the socket is fresh (no send, no connect yet), a
 *                 request: the daemon binds a new socket as asked and it
 *                 replaces this one on the same descriptor, with the
 *                 options set so far replayed on it.  Once used, the
 *                 kernel's bind (EINVAL: it is bound).
 *   getsockname() while fresh, port 0, as on an unbound kernel socket
 *                 (the daemon bound it already).
 *   close()       also closes the hidden liveness descriptor, whose
 *                 hang-up tells the daemon the socket is gone.
 *
 * The state is shared by the copies dup() makes (one struct bkstate,
 * counted like a daemon socket's shared page in fdtab).
 */
#ifndef PS_LIB_BROKER_H
#define PS_LIB_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "lib/fdtab.h"

/* A socket handed out with its liveness descriptor and the daemon's
 * handle for it: the entry for it. */
int bk_adopt(int livefd, uint32_t handle, int family, bool keep_ident,
	     struct fdent *ent);

/* Is this entry a broker socket not used yet? */
bool bk_fresh(const struct fdent *ent);

/*
 * Its first send or connect is about to be made: with PINGSOCK_IDENT=keep
 * and an Echo Request in iov, bind it to that identifier first (if that
 * fails the send goes as it is).  Later bind() calls are the kernel's.
 */
void bk_use(int fd, const struct fdent *ent, const struct iovec *iov,
	    size_t niov);

int bk_bind(int fd, const struct fdent *ent, const struct sockaddr *addr,
	    socklen_t len);

/* A setsockopt() that succeeded on a fresh socket: kept for a rebind. */
void bk_record(const struct fdent *ent, int level, int name,
	       const void *val, socklen_t len);

/*
 * Would the kernel's call get as far as the socket, where an unbound
 * one is bound?  Not when the system call layer refuses it first.
 */
bool bk_send_reaches(const struct sockaddr *dst, socklen_t dstlen);
bool bk_msg_reaches(const struct msghdr *msg);
bool bk_connect_reaches(const struct sockaddr *addr, socklen_t len);

/* IPV6_V6ONLY on a fresh socket (see broker.c); 1 if handled (*rc). */
int bk_v6only_set(const struct fdent *ent, const void *val, socklen_t len,
		  int *rc);
/* getsockopt(), with IPV6_V6ONLY as the program set it. */
int bk_getsockopt(int fd, const struct fdent *ent, int level, int name,
		  void *val, socklen_t *len);

int bk_getsockname(int fd, const struct fdent *ent, struct sockaddr *addr,
		   socklen_t *len);

/* The last copy is closed: the liveness descriptor, the state. */
void bk_release(struct bkstate *bk);

/* Its hidden liveness descriptor (never closed behind its back). */
int bk_livefd(const struct bkstate *bk);

/* The identifier of the Echo Request (or PROBE) in iov, or -1. */
int bk_echo_ident(int family, const struct iovec *iov, size_t niov);

#endif
