/* SPDX-License-Identifier: ISC */
/*
 * backend - which code serves a descriptor, chosen once.
 *
 * A socket's backend is decided when it is made (pingsock_socket, from
 * PINGSOCK_BACKEND and the kernel's answer) and recorded as its kind in
 * the descriptor table (fdtab.h).  Each kind has one table of operations
 * (struct backend_ops): the kernel's own socket (plain system calls),
 * a relayed socket (requests to pingsockd, lib/relay.h), its raw-socket
 * emulation (the same, with a raw socket's receive, lib/rawcompat.h) and
 * a broker socket (the kernel's, but for bind and what comes before the
 * first send, lib/broker.h).  Every call of the API is one lookup and
 * one call through its table; a descriptor that is not the library's
 * gets the kernel's.
 *
 * The operations return as the libc calls do: -1 with errno set.
 */
#ifndef PS_LIB_BACKEND_H
#define PS_LIB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "lib/fdtab.h"

struct backend_ops {
	int (*bind)(int fd, struct fdent *e, const struct sockaddr *addr,
		    socklen_t len);
	int (*connect)(int fd, struct fdent *e, const struct sockaddr *addr,
		       socklen_t len);
	int (*getname)(int fd, struct fdent *e, bool peer,
		       struct sockaddr *addr, socklen_t *len);
	int (*shutdown)(int fd, struct fdent *e, int how);
	ssize_t (*sendto)(int fd, struct fdent *e, const void *buf,
			  size_t len, int flags, const struct sockaddr *dst,
			  socklen_t dstlen);
	ssize_t (*sendmsg)(int fd, struct fdent *e, const struct msghdr *msg,
			   int flags);
	ssize_t (*recvfrom)(int fd, struct fdent *e, void *buf, size_t len,
			    int flags, struct sockaddr *src,
			    socklen_t *srclen);
	ssize_t (*recvmsg)(int fd, struct fdent *e, struct msghdr *msg,
			   int flags);
	int (*setsockopt)(int fd, struct fdent *e, int level, int name,
			  const void *val, socklen_t len);
	int (*getsockopt)(int fd, struct fdent *e, int level, int name,
			  void *val, socklen_t *len);
	int (*ioctl)(int fd, struct fdent *e, unsigned long req, void *arg);
	/* The last entry for the socket is gone: what it held. */
	void (*release)(struct fdent *e);
};

/*
 * fd's operations, with its entry in *e (zeroed, kind FDK_NONE, when it
 * is not the library's: the kernel's operations).  A copy of one of the
 * library's sockets made behind its back gets that socket's entry; a
 * stale entry is dropped (fdtab.h) and what it held released.
 */
const struct backend_ops *backend_lookup(int fd, struct fdent *e);

/* Take fd's entry out of the table; the last one releases the socket's
 * resources.  The descriptor itself stays open. */
void backend_drop(int fd);

/*
 * Called when a relayed socket's last entry goes, whichever way it went
 * (the preload forgets its epoll registrations of it).  Set once, at
 * load.
 */
void backend_on_release(void (*fn)(const struct fdent *e));

/* PINGSOCK_BACKEND. */
enum backend_mode { BACKEND_AUTO, BACKEND_KERNEL, BACKEND_DAEMON, BACKEND_BAD };
enum backend_mode backend_mode(void);

/* A ping socket: SOCK_DGRAM of ICMP (AF_INET) or ICMPv6 (AF_INET6). */
bool backend_is_ping(int domain, int type, int protocol);
/* A socket the library may serve: a ping socket, or a raw ICMP one with
 * PINGSOCK_RAW=echo (rawcompat.h). */
bool backend_serves(int domain, int type, int protocol);

/*
 * The kernel refused a socket the library serves with err: does that
 * mean "not for you" (ask pingsockd), or is the kernel's answer the
 * caller's?
 */
bool backend_fallback(int domain, int err);

#endif
