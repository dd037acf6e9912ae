/* SPDX-License-Identifier: ISC */
/*
 * io - the interposed socket calls.  Each one: bind the real functions,
 * then, for a descriptor the library does not serve (shim_kind), the
 * libc call itself; otherwise the pingsock_ call.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/backend.h"
#include "lib/clock.h"
#include "lib/broker.h"
#include "lib/errq.h"
#include "lib/fdtab.h"
#include "lib/shimapi.h"
#include "lib/ucopy.h"
#include "pingsock.h"
#include "shim/shim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* Not a relayed socket: straight to libc. */
#define PASS(fd) (shim_init(), !fdkind_relayed(shim_kind(fd)))
/* Neither a relayed socket nor a fresh broker one: straight to libc. */
#define PASS_FRESH(fd) \
	(shim_init(), !fdkind_relayed(shim_kind(fd)) && \
		      shim_kind(fd) != FDK_BROKER_FRESH)
/* Nothing the library handed out: straight to libc. */
#define PASS_ANY(fd) (shim_init(), shim_kind(fd) == FDK_NONE)

/*
 * A send or connect: true when it goes straight to libc, which it does
 * for anything but a relayed socket.  A fresh broker socket's first one
 * is noted first (PINGSOCK_IDENT=keep may bind it, see lib/broker.h):
 * only then are its arguments looked at, as the kernel would read them.
 */
static bool pass_send(int fd, struct fdent *e)
{
	enum fdkind k;

	shim_init();
	k = shim_kind(fd);
	e->kind = FDK_NONE;
	if (k == FDK_BROKER_FRESH)
		(void)backend_lookup(fd, e);	/* (a stale entry goes) */
	return !fdkind_relayed(k);
}

static bool pass_sendto(int fd, const void *buf, size_t len,
			const struct sockaddr *dst, socklen_t dstlen)
{
	struct fdent e;
	bool pass = pass_send(fd, &e);

	if (e.kind == FDK_BROKER_FRESH)
		broker_use_send(fd, &e, buf, len, dst, dstlen);
	return pass;
}

static bool pass_sendmsg(int fd, const struct msghdr *msg)
{
	struct fdent e;
	bool pass = pass_send(fd, &e);

	if (e.kind == FDK_BROKER_FRESH)
		broker_use_msg(fd, &e, msg);
	return pass;
}

/* sendmmsg(): its first message is the one that would bind the socket
 * (its msg_hdr is where the vector starts). */
static bool pass_send_mmsg(int fd, struct mmsghdr *vec, unsigned vlen)
{
	return pass_sendmsg(fd, vlen ? (const struct msghdr *)(void *)vec
				     : NULL);
}

static bool pass_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct fdent e;
	bool pass = pass_send(fd, &e);

	if (e.kind == FDK_BROKER_FRESH)
		broker_use_connect(fd, &e, addr, len);
	return pass;
}

SHIM_EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	shim_init();
	if (lock_held() || !backend_serves(domain, type, protocol))
		return real_socket(domain, type, protocol);
	/* The library's choice, with its one rule for when the kernel's
	 * refusal sends the socket to pingsockd (backend.h). */
	fd = pingsock_socket(domain, type, protocol);
	if (fd >= 0 && fdtab_kind(fd) == FDK_KERNEL) {
		/* The kernel's own: nothing for the shim to do on it. */
		fdtab_remove(fd, NULL);
		return fd;
	}
	SHIM_LOGRC(fd, "socket(%d, %#x, %d)%s", domain, type, protocol,
		   fd < 0 ? "" : fdkind_relayed(fdtab_kind(fd))
				 ? " [pingsockd]" : " [pingsockd broker]");
	return fd;
}

SHIM_EXPORT int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int rc;

	if (PASS_FRESH(fd))
		return real_bind(fd, addr, len);
	rc = pingsock_bind(fd, addr.__sockaddr__, len);
	SHIM_LOGRC(rc, "bind(%d, %u)", fd, (unsigned)len);
	return rc;
}

SHIM_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int rc;

	if (pass_connect(fd, addr.__sockaddr__, len))
		return real_connect(fd, addr, len);
	rc = pingsock_connect(fd, addr.__sockaddr__, len);
	SHIM_LOGRC(rc, "connect(%d, %u)", fd, (unsigned)len);
	return rc;
}

SHIM_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t rc;

	if (pass_sendto(fd, buf, len, NULL, 0))
		return real_send(fd, buf, len, flags);
	rc = pingsock_send(fd, buf, len, flags);
	SHIM_LOGRC(rc, "send(%d, %zu, %#x)", fd, len, flags);
	return rc;
}

SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
			   __CONST_SOCKADDR_ARG dst, socklen_t dstlen)
{
	ssize_t rc;

	if (pass_sendto(fd, buf, len, dst.__sockaddr__, dstlen))
		return real_sendto(fd, buf, len, flags, dst, dstlen);
	rc = pingsock_sendto(fd, buf, len, flags, dst.__sockaddr__, dstlen);
	SHIM_LOGRC(rc, "sendto(%d, %zu, %#x, %u)", fd, len, flags,
		   (unsigned)dstlen);
	return rc;
}

SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	ssize_t rc;

	if (pass_sendmsg(fd, msg))
		return real_sendmsg(fd, msg, flags);
	rc = pingsock_sendmsg(fd, msg, flags);
	SHIM_LOGRC(rc, "sendmsg(%d, %#x)", fd, flags);
	return rc;
}

SHIM_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t rc;

	if (PASS(fd))
		return real_recv(fd, buf, len, flags);
	rc = pingsock_recv(fd, buf, len, flags);
	SHIM_LOGRC(rc, "recv(%d, %zu, %#x)", fd, len, flags);
	return rc;
}

SHIM_EXPORT ssize_t recvfrom(int fd, void *__restrict buf, size_t len,
			     int flags, __SOCKADDR_ARG src,
			     socklen_t *__restrict srclen)
{
	ssize_t rc;

	if (PASS(fd))
		return real_recvfrom(fd, buf, len, flags, src, srclen);
	rc = pingsock_recvfrom(fd, buf, len, flags, src.__sockaddr__, srclen);
	SHIM_LOGRC(rc, "recvfrom(%d, %zu, %#x)", fd, len, flags);
	return rc;
}

SHIM_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t rc;

	if (PASS(fd))
		return real_recvmsg(fd, msg, flags);
	rc = pingsock_recvmsg(fd, msg, flags);
	SHIM_LOGRC(rc, "recvmsg(%d, %#x)", fd, flags);
	return rc;
}

/*
 * sendmmsg/recvmmsg: one sendmsg/recvmsg per message, with the kernel's
 * rules: at most UIO_MAXIOV messages; an error after the first message
 * ends the batch and the count so far is returned; MSG_WAITFORONE makes
 * every receive after the first non-blocking; the timeout is checked
 * after each datagram, not during a blocking receive (as the kernel
 * does).
 */
#define SHIM_MMSG_MAX 1024

SHIM_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen,
			 int flags)
{
	unsigned int i;

	if (pass_send_mmsg(fd, vec, vlen))
		return real_sendmmsg(fd, vec, vlen, flags);
	if (vlen > SHIM_MMSG_MAX)
		vlen = SHIM_MMSG_MAX;
	for (i = 0; i < vlen; i++) {
		struct mmsghdr h;
		ssize_t n;

		/* ___sys_sendmsg(): a message the program's memory does not
		 * hold is EFAULT; so is a msg_len that cannot be written,
		 * after the send (which then does not count). */
		if (!vec || !ucopy_in(&h, vec + i, sizeof(h))) {
			errno = EFAULT;
			break;
		}
		n = pingsock_sendmsg(fd, &h.msg_hdr, flags);
		if (n < 0)
			break;
		h.msg_len = (unsigned int)n;
		if (!ucopy_out(&vec[i].msg_len, &h.msg_len,
				sizeof(h.msg_len))) {
			errno = EFAULT;
			break;
		}
	}
	SHIM_LOGRC(i || vlen == 0 ? (long)i : -1L, "sendmmsg(%d, %u, %#x)",
		   fd, vlen, flags);
	return i || vlen == 0 ? (int)i : -1;
}


/* recvmmsg()'s: err the socket's pending error (lib/errq.h). */
static void keep_error(int fd, int err)
{
	struct fdent e;
	int saved = errno;

	(void)backend_lookup(fd, &e);
	errq_keep(fd, &e, err);
	errno = saved;
}

/* Now plus tmo (valid, >= 0) in CLOCK_MONOTONIC ns; saturates, as the
 * kernel's conversion does, rather than wrap for an enormous tv_sec. */
static uint64_t deadline_ns(const struct timespec *tmo)
{
	uint64_t now = clock_mono_ns(), sec = (uint64_t)tmo->tv_sec;

	if (sec >= (UINT64_MAX - now) / 1000000000u - 1)
		return UINT64_MAX;
	return now + sec * 1000000000u + (uint64_t)tmo->tv_nsec;
}

SHIM_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen,
			 int flags, struct timespec *tmo)
{
	uint64_t end = 0;	/* CLOCK_MONOTONIC ns */
	unsigned int i;
	int f = flags & ~MSG_WAITFORONE, err = 0;

	if (PASS(fd))
		return real_recvmmsg(fd, vec, vlen, flags, tmo);
	if (tmo && (tmo->tv_sec < 0 || tmo->tv_nsec < 0 ||
		    tmo->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	if (tmo)
		end = deadline_ns(tmo);
	if (vlen > SHIM_MMSG_MAX)
		vlen = SHIM_MMSG_MAX;
	for (i = 0; i < vlen; i++) {
		struct mmsghdr h;
		ssize_t n;

		/* As sendmmsg: EFAULT for a message, or its lengths and
		 * flags written back (msg_namelen, msg_controllen,
		 * msg_flags, msg_len), that are not there. */
		if (!vec || !ucopy_in(&h, vec + i, sizeof(h))) {
			errno = err = EFAULT;
			break;
		}
		n = pingsock_recvmsg(fd, &h.msg_hdr, f);
		if (n < 0) {
			err = errno;
			break;
		}
		h.msg_len = (unsigned int)n;
		if (!ucopy_out(vec + i, &h, sizeof(h))) {
			errno = err = EFAULT;
			break;
		}
		if (flags & MSG_WAITFORONE)
			f |= MSG_DONTWAIT;
		if (tmo && clock_mono_ns() >= end)
			break;
		if (h.msg_hdr.msg_flags & MSG_OOB)
			break;
	}
	/* do_recvmmsg(): the error that ended a batch after a message
	 * stays the socket's pending error (sk_err). */
	if (i > 0 && err)
		keep_error(fd, err);
	if (tmo && i > 0) {
		/* What is left of the timeout, as the kernel writes back. */
		uint64_t now = clock_mono_ns(), left = now < end ? end - now : 0;

		tmo->tv_sec = (time_t)(left / 1000000000u);
		tmo->tv_nsec = (long)(left % 1000000000u);
	}
	SHIM_LOGRC(i || vlen == 0 ? (long)i : -1L, "recvmmsg(%d, %u, %#x)",
		   fd, vlen, flags);
	return i || vlen == 0 ? (int)i : -1;
}

/* read/write on a datagram socket: recv/send with no flags. */
SHIM_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	ssize_t rc;

	if (PASS(fd))
		return real_read(fd, buf, len);
	rc = pingsock_recv(fd, buf, len, 0);
	SHIM_LOGRC(rc, "read(%d, %zu)", fd, len);
	return rc;
}

SHIM_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t rc;

	if (pass_sendto(fd, buf, len, NULL, 0))
		return real_write(fd, buf, len);
	rc = pingsock_send(fd, buf, len, 0);
	SHIM_LOGRC(rc, "write(%d, %zu)", fd, len);
	return rc;
}

/* _FORTIFY_SOURCE variants. */
extern void __chk_fail(void) __attribute__((noreturn));
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
		       int flags, struct sockaddr *src, socklen_t *srclen);

SHIM_EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (PASS(fd))
		return real_read_chk(fd, buf, len, buflen);
	if (len > buflen)
		__chk_fail();
	return read(fd, buf, len);
}

SHIM_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen,
			       int flags)
{
	if (PASS(fd))
		return real_recv_chk(fd, buf, len, buflen, flags);
	if (len > buflen)
		__chk_fail();
	return recv(fd, buf, len, flags);
}

SHIM_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len,
				   size_t buflen, int flags,
				   struct sockaddr *src, socklen_t *srclen)
{
	if (PASS(fd))
		return real_recvfrom_chk(fd, buf, len, buflen, flags, src,
					      srclen);
	if (len > buflen)
		__chk_fail();
	return recvfrom(fd, buf, len, flags, src, srclen);
}

SHIM_EXPORT int getsockname(int fd, __SOCKADDR_ARG addr,
			    socklen_t *__restrict len)
{
	int rc;

	if (PASS_FRESH(fd))
		return real_getsockname(fd, addr, len);
	rc = pingsock_getsockname(fd, addr.__sockaddr__, len);
	SHIM_LOGRC(rc, "getsockname(%d)", fd);
	return rc;
}

SHIM_EXPORT int getpeername(int fd, __SOCKADDR_ARG addr,
			    socklen_t *__restrict len)
{
	int rc;

	if (PASS(fd))
		return real_getpeername(fd, addr, len);
	rc = pingsock_getpeername(fd, addr.__sockaddr__, len);
	SHIM_LOGRC(rc, "getpeername(%d)", fd);
	return rc;
}

SHIM_EXPORT int setsockopt(int fd, int level, int name, const void *val,
			   socklen_t len)
{
	int rc;

	if (PASS_FRESH(fd))
		return real_setsockopt(fd, level, name, val, len);
	rc = pingsock_setsockopt(fd, level, name, val, len);
	SHIM_LOGRC(rc, "setsockopt(%d, %d, %d, %u)", fd, level, name,
		   (unsigned)len);
	return rc;
}

SHIM_EXPORT int getsockopt(int fd, int level, int name, void *__restrict val,
			   socklen_t *__restrict len)
{
	int rc;

	/* IPV6_V6ONLY of a broker socket is the library's, and so is a
	 * fresh one's IP_PROTOCOL (its identifier, 0 until used: the
	 * library's, lib/broker.c). */
	if (PASS_FRESH(fd) && !(level == SOL_IPV6 && name == IPV6_V6ONLY &&
				shim_kind(fd) != FDK_NONE))
		return real_getsockopt(fd, level, name, val, len);
	rc = pingsock_getsockopt(fd, level, name, val, len);
	SHIM_LOGRC(rc, "getsockopt(%d, %d, %d)", fd, level, name);
	return rc;
}

SHIM_EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int rc;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (PASS(fd))
		return real_ioctl(fd, request, arg);
	rc = pingsock_ioctl(fd, request, arg);
	SHIM_LOGRC(rc, "ioctl(%d, %#lx)", fd, request);
	return rc;
}

int shim_close_ours(int fd)
{
	/* The last copy releases the socket, its epoll registrations
	 * first (backend_on_release). */
	int rc = pingsock_close(fd);

	SHIM_LOGRC(rc, "close(%d)", fd);
	return rc;
}

/* In a child that shares the program's memory (vfork(), posix_spawn()),
 * a close or a dup is the system call alone: the tables are the
 * parent's (lib/lock.h, lock_borrowed()). */
SHIM_EXPORT int close(int fd)
{
	if (PASS_ANY(fd)) {
		if (!lock_held() && shim_epoll_is_watched(fd) &&
		    !lock_borrowed())
			shim_epoll_closing(fd);
		return real_close(fd);
	}
	return shim_close_ours(fd);
}

/* newfd (>= 0, a fresh copy of fd) becomes the same socket. */
static int adopt(int fd, int newfd, const char *what)
{
	int saved;

	if (newfd < 0) {
		SHIM_LOGRC(newfd, "%s(%d)", what, fd);
		return newfd;
	}
	if (fdtab_dup(fd, newfd) < 0) {
		saved = errno;
		real_close(newfd);
		errno = saved;
		SHIM_LOGRC(-1, "%s(%d)", what, fd);
		return -1;
	}
	SHIM_LOGRC(newfd, "%s(%d)", what, fd);
	return newfd;
}

static int do_fcntl(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	bool dupfd = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
	int rc;

	if (PASS_ANY(fd)) {
		rc = real(fd, cmd, arg);
		/* A copy of an epoll set keeps its registrations. */
		if (dupfd && !lock_held() && shim_epoll_is_watched(fd) &&
		    !lock_borrowed())
			shim_epoll_copied(fd, rc);
		return rc;
	}
	if (dupfd && lock_borrowed())
		return real(fd, cmd, arg);
	if (dupfd)
		return adopt(fd, real(fd, cmd, arg), "fcntl(F_DUPFD)");
	/* Flags live on the data descriptor itself (O_NONBLOCK included,
	 * which the library's receive honours). */
	rc = real(fd, cmd, arg);
	SHIM_LOGRC(rc, "fcntl(%d, %d)", fd, cmd);
	return rc;
}

SHIM_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	shim_init();
	return do_fcntl(shim_real.fcntl, fd, cmd, arg);
}

SHIM_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	shim_init();
	return do_fcntl(shim_real.fcntl64, fd, cmd, arg);
}

SHIM_EXPORT int dup(int fd)
{
	int rc;

	if (PASS_ANY(fd)) {
		rc = real_dup(fd);
		if (!lock_held() && shim_epoll_is_watched(fd) &&
		    !lock_borrowed())
			shim_epoll_copied(fd, rc);
		return rc;
	}
	if (lock_borrowed())
		return real_dup(fd);
	return adopt(fd, real_dup(fd), "dup");
}

/* Would dup2/dup3 fail before touching newfd?  As the kernel would. */
static bool dup_refused(int oldfd, int flags, bool three)
{
	if (three && (flags & ~O_CLOEXEC)) {
		errno = EINVAL;
		return true;
	}
	return real_fcntl(oldfd, F_GETFD) < 0;
}

/*
 * dup2/dup3 onto a shimmed descriptor close it first (as the kernel
 * does, though not atomically here), and onto an epoll descriptor with
 * shimmed registrations hand them on (shim_epoll_closing); onto any
 * other, the real call.  A copy of such an epoll descriptor is one too.
 */
static int dup_onto(int oldfd, int newfd, int flags, bool three)
{
	bool old_ours, new_ours, new_ep;
	int rc;

	shim_init();
	old_ours = shim_kind(oldfd) != FDK_NONE;
	new_ours = shim_kind(newfd) != FDK_NONE;
	new_ep = !new_ours && oldfd != newfd && !lock_held() &&
		 shim_epoll_is_watched(newfd);
	/* Nothing of the library's involved: no getpid() either. */
	if ((!old_ours && !new_ours && !new_ep &&
	     (lock_held() || !shim_epoll_is_watched(oldfd))) ||
	    lock_borrowed())
		return three ? real_dup3(oldfd, newfd, flags)
			     : real_dup2(oldfd, newfd);
	if ((!old_ours && !new_ours && !new_ep) || oldfd == newfd) {
		rc = three ? real_dup3(oldfd, newfd, flags)
			   : real_dup2(oldfd, newfd);
		if (!old_ours && !lock_held())
			shim_epoll_copied(oldfd, rc);
		return rc;
	}
	if (new_ours || new_ep) {
		if (dup_refused(oldfd, flags, three))
			return -1;
		if (new_ours)
			shim_close_ours(newfd);
		else
			shim_epoll_closing(newfd);
	}
	rc = three ? real_dup3(oldfd, newfd, flags)
		   : real_dup2(oldfd, newfd);
	if (!old_ours && !lock_held())
		shim_epoll_copied(oldfd, rc);
	if (!old_ours || rc < 0) {
		SHIM_LOGRC(rc, "dup%c(%d, %d)", three ? '3' : '2', oldfd,
			   newfd);
		return rc;
	}
	return adopt(oldfd, rc, three ? "dup3" : "dup2");
}

SHIM_EXPORT int dup2(int oldfd, int newfd)
{
	return dup_onto(oldfd, newfd, 0, false);
}

SHIM_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	return dup_onto(oldfd, newfd, flags, true);
}

SHIM_EXPORT int shutdown(int fd, int how)
{
	int rc;

	if (PASS(fd))
		return real_shutdown(fd, how);
	rc = pingsock_shutdown(fd, how);
	SHIM_LOGRC(rc, "shutdown(%d, %d)", fd, how);
	return rc;
}
