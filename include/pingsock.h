/* SPDX-License-Identifier: ISC */
/*
 * pingsock.h - unprivileged ICMP Echo ("ping") sockets, everywhere.
 *
 * Each call mirrors the libc call of the same name without the prefix: the
 * same arguments, the same return value, and -1 with errno set on failure,
 * with the errno values the Linux kernel's own ping socket gives.  A socket
 * is either a kernel ping socket (when net.ipv4.ping_group_range admits the
 * caller) or one served by pingsockd; callers cannot tell the difference
 * except through pingsock_backend().
 *
 * The descriptor returned by pingsock_socket() is a real descriptor: it works
 * with poll(), select(), epoll, fcntl(O_NONBLOCK), fork() and dup().  Use the
 * pingsock_ calls (not plain send/recv) for everything but waiting on it, and
 * pingsock_close() to close it.
 *
 * Environment:
 *   PINGSOCK_BACKEND  auto (default): the kernel when it allows the socket,
 *                     pingsockd otherwise; kernel: only the kernel;
 *                     daemon: only pingsockd.
 *   PINGSOCK_SOCKET   pingsockd's socket (default /run/pingsock/socket).
 */
#ifndef PINGSOCK_H
#define PINGSOCK_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header, a literal so that the installed header
 * needs nothing from the build (tests/integration/version.sh holds it
 * equal to the Makefile's VERSION; the build's -DPINGSOCK_VERSION then
 * redefines it identically, and a differing one fails the build).
 * pingsock_version() is the library's, which may be newer than the
 * header a program was built with.
 */
#define PINGSOCK_VERSION_MAJOR 0
#define PINGSOCK_VERSION_MINOR 1
#define PINGSOCK_VERSION_PATCH 0
#define PINGSOCK_VERSION "0.1.0"
/* One number to compare at compile time: 0.1.0 is 100, 1.2.3 is 10203. */
#define PINGSOCK_VERSION_NUMBER (PINGSOCK_VERSION_MAJOR * 10000 + \
				 PINGSOCK_VERSION_MINOR * 100 + \
				 PINGSOCK_VERSION_PATCH)

#define PINGSOCK_DEFAULT_SOCKET "/run/pingsock/socket"

enum pingsock_backend_kind {
	PINGSOCK_BACKEND_NONE = 0, /* not a pingsock descriptor */
	PINGSOCK_BACKEND_KERNEL = 1,
	PINGSOCK_BACKEND_DAEMON = 2,
	/* A kernel ping socket that pingsockd made and handed over (its
	 * broker mode): every call is the kernel's but bind(), see
	 * pingsock(3). */
	PINGSOCK_BACKEND_BROKER = 3,
};

int pingsock_socket(int domain, int type, int protocol);
int pingsock_bind(int fd, const struct sockaddr *addr, socklen_t addrlen);
/* AF_UNSPEC disconnects, as for any datagram socket. */
int pingsock_connect(int fd, const struct sockaddr *addr, socklen_t addrlen);
ssize_t pingsock_send(int fd, const void *buf, size_t len, int flags);
ssize_t pingsock_sendto(int fd, const void *buf, size_t len, int flags,
			const struct sockaddr *dst, socklen_t dstlen);
ssize_t pingsock_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t pingsock_recv(int fd, void *buf, size_t len, int flags);
ssize_t pingsock_recvfrom(int fd, void *buf, size_t len, int flags,
			  struct sockaddr *src, socklen_t *srclen);
ssize_t pingsock_recvmsg(int fd, struct msghdr *msg, int flags);
int pingsock_getsockname(int fd, struct sockaddr *addr, socklen_t *addrlen);
int pingsock_getpeername(int fd, struct sockaddr *addr, socklen_t *addrlen);
int pingsock_setsockopt(int fd, int level, int name, const void *val,
			socklen_t len);
int pingsock_getsockopt(int fd, int level, int name, void *val,
			socklen_t *len);
int pingsock_ioctl(int fd, unsigned long request, void *arg);
int pingsock_shutdown(int fd, int how);
int pingsock_close(int fd);

/*
 * poll() that also reports POLLERR for pingsock descriptors with an error
 * pending, as the kernel does for its own sockets.  Other descriptors are
 * passed to poll() unchanged.
 */
int pingsock_poll(struct pollfd *fds, nfds_t nfds, int timeout);

/* Which backend serves fd (enum pingsock_backend_kind). */
int pingsock_backend(int fd);

/*
 * A sentence explaining why the calling thread's last failed
 * pingsock_socket() failed, naming the cause (the kernel's
 * ping_group_range, the daemon's policy, no daemon at PATH, ...); "" if it
 * did not fail.
 */
const char *pingsock_why(void);

/* The library's version, "MAJOR.MINOR.PATCH" (PINGSOCK_VERSION of the
 * build it came from); a static string. */
const char *pingsock_version(void);

#ifdef __cplusplus
}
#endif

#endif
