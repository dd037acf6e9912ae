/* SPDX-License-Identifier: ISC */
/*
 * api - the public calls (include/pingsock.h) on a socket: each one looks
 * the descriptor up once and calls its backend's operation (backend.h).
 * A send or receive on a descriptor that needs nothing of the library
 * (the kernel's own socket, a broker socket once used) is the system
 * call itself, without the table's lock.
 */
#include <errno.h>

#include "lib/backend.h"
#include "lib/fdtab.h"
#include "lib/inherit.h"
#include "lib/lock.h"
#include "pingsock.h"
#include "lib/sys.h"

#define EXPORT __attribute__((visibility("default")))

/* Is every send and receive on fd the system call itself?  (A descriptor
 * the table does not know could be a copy of one of its sockets.) */
static bool plain_io(int fd)
{
	enum fdkind k = fdtab_kind(fd);

	if (k == FDK_NONE) {
		inherit_scan();	/* it may have come across exec */
		k = fdtab_kind(fd);
	}
	if (k == FDK_INHERITED)
		k = inherit_resolve(fd);

	return k == FDK_KERNEL || k == FDK_BROKER ||
	       (k == FDK_NONE && !fdtab_has_sockets());
}

EXPORT int pingsock_backend(int fd)
{
	struct fdent e;

	(void)backend_lookup(fd, &e);
	switch (e.kind) {
	case FDK_KERNEL:
		return PINGSOCK_BACKEND_KERNEL;
	case FDK_RELAY:
	case FDK_RAW:
		return PINGSOCK_BACKEND_DAEMON;
	case FDK_BROKER_FRESH:
	case FDK_BROKER:
		return PINGSOCK_BACKEND_BROKER;
	default:
		return PINGSOCK_BACKEND_NONE;
	}
}

EXPORT int pingsock_bind(int fd, const struct sockaddr *addr,
			 socklen_t addrlen)
{
	struct fdent e;

	return backend_lookup(fd, &e)->bind(fd, &e, addr, addrlen);
}

EXPORT int pingsock_connect(int fd, const struct sockaddr *addr,
			    socklen_t addrlen)
{
	struct fdent e;

	return backend_lookup(fd, &e)->connect(fd, &e, addr, addrlen);
}

EXPORT int pingsock_getsockname(int fd, struct sockaddr *addr,
				socklen_t *addrlen)
{
	struct fdent e;

	return backend_lookup(fd, &e)->getname(fd, &e, false, addr, addrlen);
}

EXPORT int pingsock_getpeername(int fd, struct sockaddr *addr,
				socklen_t *addrlen)
{
	struct fdent e;

	return backend_lookup(fd, &e)->getname(fd, &e, true, addr, addrlen);
}

EXPORT int pingsock_shutdown(int fd, int how)
{
	struct fdent e;

	return backend_lookup(fd, &e)->shutdown(fd, &e, how);
}

EXPORT ssize_t pingsock_sendto(int fd, const void *buf, size_t len, int flags,
			       const struct sockaddr *dst, socklen_t dstlen)
{
	struct fdent e;

	if (plain_io(fd))
		return sys_sendto(fd, buf, len, flags, dst, dstlen);
	return backend_lookup(fd, &e)->sendto(fd, &e, buf, len, flags, dst,
					      dstlen);
}

EXPORT ssize_t pingsock_send(int fd, const void *buf, size_t len, int flags)
{
	return pingsock_sendto(fd, buf, len, flags, NULL, 0);
}

EXPORT ssize_t pingsock_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct fdent e;

	if (plain_io(fd))
		return sys_sendmsg(fd, msg, flags);
	return backend_lookup(fd, &e)->sendmsg(fd, &e, msg, flags);
}

EXPORT ssize_t pingsock_recvfrom(int fd, void *buf, size_t len, int flags,
				 struct sockaddr *src, socklen_t *srclen)
{
	struct fdent e;

	if (plain_io(fd))
		return sys_recvfrom(fd, buf, len, flags, src, srclen);
	return backend_lookup(fd, &e)->recvfrom(fd, &e, buf, len, flags, src,
						srclen);
}

EXPORT ssize_t pingsock_recv(int fd, void *buf, size_t len, int flags)
{
	return pingsock_recvfrom(fd, buf, len, flags, NULL, NULL);
}

EXPORT ssize_t pingsock_recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct fdent e;

	if (plain_io(fd))
		return sys_recvmsg(fd, msg, flags);
	return backend_lookup(fd, &e)->recvmsg(fd, &e, msg, flags);
}

EXPORT int pingsock_setsockopt(int fd, int level, int name, const void *val,
			       socklen_t len)
{
	struct fdent e;

	return backend_lookup(fd, &e)->setsockopt(fd, &e, level, name, val,
						  len);
}

EXPORT int pingsock_getsockopt(int fd, int level, int name, void *val,
			       socklen_t *len)
{
	struct fdent e;

	return backend_lookup(fd, &e)->getsockopt(fd, &e, level, name, val,
						  len);
}

EXPORT int pingsock_ioctl(int fd, unsigned long request, void *arg)
{
	struct fdent e;

	return backend_lookup(fd, &e)->ioctl(fd, &e, request, arg);
}

/* The last copy of a socket releases it (backend_drop); then the
 * descriptor itself.  In a child that shares the parent's memory, only
 * the child's descriptor (lock_borrowed()). */
EXPORT int pingsock_close(int fd)
{
	struct fdent e;

	if (lock_borrowed())
		return sys_close(fd);
	(void)backend_lookup(fd, &e);	/* a stale entry goes first */
	backend_drop(fd);
	return sys_close(fd);
}
