/* SPDX-License-Identifier: ISC */
/*
 * broker (library side) - sockets that pingsockd made in broker mode: real
 * kernel ping sockets, so every call is the kernel's but these (the
 * socket's operations, backend.h):
 *
 *   bind()        while the socket is fresh (no send, no connect yet), a
 *                 request: the daemon binds a new socket as asked, the
 *                 options set so far are set on it again in their order
 *                 (filters and memberships included), and it replaces
 *                 this one on every descriptor of it in the process, in
 *                 the epoll registrations too (swap.h).  Once used, the
 *                 kernel's bind (EINVAL: it is bound).
 *   getsockname() while fresh, port 0, as on an unbound kernel socket
 *                 (the daemon bound it already).
 *   setsockopt()  while fresh, kept to be replayed (an action such as a
 *                 join each time, a value the last time); IPV6_V6ONLY kept
 *                 here (the kernel refuses it on a bound socket).
 *   the first send or connect
 *                 marks it used (with PINGSOCK_IDENT=keep, rebinds it to
 *                 the identifier of the Echo Request first).
 *   close()       also closes the hidden liveness descriptor, whose
 *                 hang-up tells the daemon the socket is gone.
 *
 * The state is shared by the copies dup() makes (one struct broker_sock,
 * counted like a relayed socket's state slot in fdtab).
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
 * handle for it: the entry for it (kind FDK_BROKER_FRESH). */
int broker_adopt(int livefd, uint32_t handle, int family, bool keep_ident,
		 struct fdent *ent);

/*
 * The first send or connect on fd (entry ent) is about to be made (by
 * the caller: the preload makes the call itself): with PINGSOCK_IDENT=keep
 * and an Echo Request in iov, bind it to that identifier first (if that
 * fails the send goes as it is).  Nothing if it was used already.
 */
void broker_use(int fd, const struct fdent *ent, const struct iovec *iov,
		size_t niov);

/*
 * A send (sendto(), sendmsg()) or connect about to be made on fd: if
 * ent is fresh and the kernel's call would get as far as the socket
 * (where an unbound one is bound; not when the system call layer refuses
 * it first, as for a name or message the program does not have),
 * broker_use().  Whatever these read of the program's memory, they read
 * as the kernel would (ucopy.h).
 */
void broker_use_send(int fd, const struct fdent *ent, const void *buf,
		     size_t len, const struct sockaddr *dst, socklen_t dstlen);
void broker_use_msg(int fd, const struct fdent *ent,
		    const struct msghdr *msg);
void broker_use_connect(int fd, const struct fdent *ent,
			const struct sockaddr *addr, socklen_t len);

/*
 * Ask the daemon for a new kernel socket bound to addr, in place of the
 * one its handle names (WIRE_BROKER_BIND), proving with the liveness
 * descriptor that the caller holds it; what bind() looks at
 * (SO_REUSEADDR, IP_FREEBIND, the bound device) is read from oldfd.  0
 * and the new socket in *newfd (checked: a ping socket of family), or
 * -errno.  pingsock-run asks this for the programs it runs.
 */
int broker_bind_request(int oldfd, uint32_t handle, int livefd, int family,
			const struct sockaddr *addr, socklen_t len,
			uint32_t flags, int *newfd);
/* A broker entry's daemon handle and liveness descriptor. */
bool broker_identity(const struct fdent *e, uint32_t *handle, int *livefd);

/* ---- the operations of a broker socket (backend.h) ---- */
int broker_bind(int fd, struct fdent *e, const struct sockaddr *addr,
		socklen_t len);
int broker_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		   socklen_t len);
int broker_getname(int fd, struct fdent *e, bool peer, struct sockaddr *addr,
		   socklen_t *len);
ssize_t broker_sendto(int fd, struct fdent *e, const void *buf, size_t len,
		      int flags, const struct sockaddr *dst, socklen_t dstlen);
ssize_t broker_sendmsg(int fd, struct fdent *e, const struct msghdr *msg,
		       int flags);
int broker_setsockopt(int fd, struct fdent *e, int level, int name,
		      const void *val, socklen_t len);
int broker_getsockopt(int fd, struct fdent *e, int level, int name,
		      void *val, socklen_t *len);
/* The last copy is closed: the liveness descriptor, the state. */
void broker_release(struct fdent *e);

#endif
