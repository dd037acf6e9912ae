/*
 * io - the interposed socket calls.  Each one: bind the real functions,
 * then, inside the library (shim_depth) or for any fd that is not one of
 * pingsockd's sockets, the libc call itself; otherwise the pingsock_ call.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/broker.h"
#include "lib/fdtab.h"
#include "lib/rawcompat.h"
#include "lib/shimapi.h"
#include "pingsock.h"
#include "shim/shim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* Not a relayed socket (or inside the library): straight to libc. */
#define PASS(fd) (shim_init(), shim_depth || !shim_ours(fd))
/* Neither a relayed socket nor a fresh broker one: straight to libc. */
#define PASS_FRESH(fd, k) \
	(shim_init(), shim_depth || \
	 ((k) = shim_kind(fd)) == SHIM_NONE || (k) == SHIM_BROKER)
/* Nothing the shim handed out: straight to libc. */
#define PASS_ANY(fd) (shim_init(), shim_depth || shim_kind(fd) == SHIM_NONE)

/*
 * A send or connect: true when it goes straight to libc, which it does
 * for anything but a relayed socket.  A fresh broker socket's first one
 * is noted first (PINGSOCK_IDENT=keep may bind it, see lib/broker.h).
 */
static bool pass_send(int fd, const struct iovec *iov, size_t niov,
		      bool reaches)
{
	enum shim_kind k;

	shim_init();
	if (shim_depth)
		return true;
	k = shim_kind(fd);
	if (k == SHIM_FRESH && reaches) {
		SHIM_ENTER();
		bk_use_fd(fd, iov, niov);
		SHIM_LEAVE();
		shim_settle(fd);
	}
	return k != SHIM_DAEMON;
}

/* sendmmsg(): its first message is the one that would bind the socket. */
static bool pass_send_mmsg(int fd, const struct mmsghdr *vec, unsigned vlen)
{
	const struct msghdr *m = vlen && vec ? &vec[0].msg_hdr : NULL;

	return pass_send(fd, m ? m->msg_iov : NULL, m ? m->msg_iovlen : 0,
			 m && bk_msg_reaches(m));
}

static bool pass_send1(int fd, const void *buf, size_t len, bool reaches)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return pass_send(fd, &iov, 1, reaches);
}

static bool shimmed_kind(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	return base == SOCK_DGRAM &&
	       ((domain == AF_INET && protocol == IPPROTO_ICMP) ||
		(domain == AF_INET6 && protocol == IPPROTO_ICMPV6));
}

SHIM_EXPORT int socket(int domain, int type, int protocol)
{
	const char *mode;
	bool raw;
	int fd;

	shim_init();
	if (shim_depth)
		return real_socket(domain, type, protocol);
	raw = rawc_wanted(domain, type, protocol);	/* PINGSOCK_RAW=echo */
	if (!raw && !shimmed_kind(domain, type, protocol))
		return real_socket(domain, type, protocol);
	mode = secure_getenv("PINGSOCK_BACKEND");
	if (!mode || !*mode || strcmp(mode, "auto") == 0 ||
	    strcmp(mode, "kernel") == 0) {
		/* The kernel's socket whenever it gives one; its answer
		 * stands for anything but "you may not". */
		fd = real_socket(domain, type, protocol);
		if (fd >= 0 || (mode && strcmp(mode, "kernel") == 0) ||
		    (errno != EACCES && errno != EPROTONOSUPPORT &&
		     !(raw && errno == EPERM)))
			return fd;
	}
	/* auto after the kernel's refusal, daemon, or a bad value (the
	 * library's EINVAL). */
	SHIM_ENTER();
	fd = pingsock_socket(domain, type, protocol);
	if (fd >= 0 && pingsock_backend(fd) == PINGSOCK_BACKEND_KERNEL)
		fdtab_clear(fd);	/* the kernel's after all: not ours */
	else if (fd >= 0)
		shim_settle(fd);
	SHIM_LEAVE();
	SHIM_LOGRC(fd, "socket(%d, %#x, %d)%s", domain, type, protocol,
		   fd < 0 ? "" : shim_kind(fd) == SHIM_DAEMON
				 ? " [pingsockd]" : " [pingsockd broker]");
	return fd;
}

SHIM_EXPORT int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	enum shim_kind k = SHIM_NONE;
	int rc;

	if (PASS_FRESH(fd, k))
		return real_bind(fd, addr, len);
	SHIM_ENTER();
	rc = pingsock_bind(fd, addr.__sockaddr__, len);
	SHIM_LEAVE();
	if (k == SHIM_FRESH)
		shim_settle(fd);
	SHIM_LOGRC(rc, "bind(%d, %u)", fd, (unsigned)len);
	return rc;
}

SHIM_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int rc;

	if (pass_send(fd, NULL, 0, bk_connect_reaches(addr.__sockaddr__, len)))
		return real_connect(fd, addr, len);
	SHIM_ENTER();
	rc = pingsock_connect(fd, addr.__sockaddr__, len);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "connect(%d, %u)", fd, (unsigned)len);
	return rc;
}

SHIM_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t rc;

	if (pass_send1(fd, buf, len, true))
		return real_send(fd, buf, len, flags);
	SHIM_ENTER();
	rc = pingsock_send(fd, buf, len, flags);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "send(%d, %zu, %#x)", fd, len, flags);
	return rc;
}

SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
			   __CONST_SOCKADDR_ARG dst, socklen_t dstlen)
{
	ssize_t rc;

	if (pass_send1(fd, buf, len, bk_send_reaches(dst.__sockaddr__, dstlen)))
		return real_sendto(fd, buf, len, flags, dst, dstlen);
	SHIM_ENTER();
	rc = pingsock_sendto(fd, buf, len, flags, dst.__sockaddr__, dstlen);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "sendto(%d, %zu, %#x, %u)", fd, len, flags,
		   (unsigned)dstlen);
	return rc;
}

SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	ssize_t rc;

	if (pass_send(fd, msg ? msg->msg_iov : NULL, msg ? msg->msg_iovlen : 0,
		      bk_msg_reaches(msg)))
		return real_sendmsg(fd, msg, flags);
	SHIM_ENTER();
	rc = pingsock_sendmsg(fd, msg, flags);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "sendmsg(%d, %#x)", fd, flags);
	return rc;
}

SHIM_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t rc;

	if (PASS(fd))
		return real_recv(fd, buf, len, flags);
	SHIM_ENTER();
	rc = pingsock_recv(fd, buf, len, flags);
	SHIM_LEAVE();
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
	SHIM_ENTER();
	rc = pingsock_recvfrom(fd, buf, len, flags, src.__sockaddr__, srclen);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "recvfrom(%d, %zu, %#x)", fd, len, flags);
	return rc;
}

SHIM_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t rc;

	if (PASS(fd))	/* the library's own reads: wait.c */
		return shim_lib_recvmsg(fd, msg, flags);
	SHIM_ENTER();
	rc = pingsock_recvmsg(fd, msg, flags);
	SHIM_LEAVE();
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
	SHIM_ENTER();
	for (i = 0; i < vlen; i++) {
		ssize_t n = pingsock_sendmsg(fd, &vec[i].msg_hdr, flags);

		if (n < 0)
			break;
		vec[i].msg_len = (unsigned int)n;
	}
	SHIM_LEAVE();
	SHIM_LOGRC(i || vlen == 0 ? (long)i : -1L, "sendmmsg(%d, %u, %#x)",
		   fd, vlen, flags);
	return i || vlen == 0 ? (int)i : -1;
}

static bool past(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end->tv_sec ||
	       (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec);
}

SHIM_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen,
			 int flags, struct timespec *tmo)
{
	struct timespec end;
	unsigned int i;
	int f = flags & ~MSG_WAITFORONE;

	if (PASS(fd))
		return real_recvmmsg(fd, vec, vlen, flags, tmo);
	if (tmo && (tmo->tv_sec < 0 || tmo->tv_nsec < 0 ||
		    tmo->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	if (tmo) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += tmo->tv_sec;
		end.tv_nsec += tmo->tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	if (vlen > SHIM_MMSG_MAX)
		vlen = SHIM_MMSG_MAX;
	SHIM_ENTER();
	for (i = 0; i < vlen; i++) {
		ssize_t n = pingsock_recvmsg(fd, &vec[i].msg_hdr, f);

		if (n < 0)
			break;
		vec[i].msg_len = (unsigned int)n;
		if (flags & MSG_WAITFORONE)
			f |= MSG_DONTWAIT;
		if (tmo && past(&end))
			break;
		if (vec[i].msg_hdr.msg_flags & MSG_OOB)
			break;
	}
	SHIM_LEAVE();
	if (tmo && i > 0) {
		/* What is left of the timeout, as the kernel writes back. */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (past(&end)) {
			tmo->tv_sec = tmo->tv_nsec = 0;
		} else {
			tmo->tv_sec = end.tv_sec - now.tv_sec;
			tmo->tv_nsec = end.tv_nsec - now.tv_nsec;
			if (tmo->tv_nsec < 0) {
				tmo->tv_sec--;
				tmo->tv_nsec += 1000000000;
			}
		}
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
	SHIM_ENTER();
	rc = pingsock_recv(fd, buf, len, 0);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "read(%d, %zu)", fd, len);
	return rc;
}

SHIM_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t rc;

	if (pass_send1(fd, buf, len, true))
		return real_write(fd, buf, len);
	SHIM_ENTER();
	rc = pingsock_send(fd, buf, len, 0);
	SHIM_LEAVE();
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
	enum shim_kind k = SHIM_NONE;
	int rc;

	if (PASS_FRESH(fd, k))
		return real_getsockname(fd, addr, len);
	SHIM_ENTER();
	rc = pingsock_getsockname(fd, addr.__sockaddr__, len);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "getsockname(%d)", fd);
	return rc;
}

SHIM_EXPORT int getpeername(int fd, __SOCKADDR_ARG addr,
			    socklen_t *__restrict len)
{
	int rc;

	if (PASS(fd))
		return real_getpeername(fd, addr, len);
	SHIM_ENTER();
	rc = pingsock_getpeername(fd, addr.__sockaddr__, len);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "getpeername(%d)", fd);
	return rc;
}

SHIM_EXPORT int setsockopt(int fd, int level, int name, const void *val,
			   socklen_t len)
{
	enum shim_kind k = SHIM_NONE;
	int rc;

	if (PASS_FRESH(fd, k))
		return real_setsockopt(fd, level, name, val, len);
	SHIM_ENTER();
	rc = pingsock_setsockopt(fd, level, name, val, len);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "setsockopt(%d, %d, %d, %u)", fd, level, name,
		   (unsigned)len);
	return rc;
}

SHIM_EXPORT int getsockopt(int fd, int level, int name, void *__restrict val,
			   socklen_t *__restrict len)
{
	int rc;

	/* IPV6_V6ONLY of a broker socket is the library's (lib/broker.c). */
	if (PASS(fd) && !(level == SOL_IPV6 && name == IPV6_V6ONLY &&
			  !shim_depth && shim_kind(fd) != SHIM_NONE))
		return real_getsockopt(fd, level, name, val, len);
	SHIM_ENTER();
	rc = pingsock_getsockopt(fd, level, name, val, len);
	SHIM_LEAVE();
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
	SHIM_ENTER();
	rc = pingsock_ioctl(fd, request, arg);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "ioctl(%d, %#lx)", fd, request);
	return rc;
}

int shim_close_ours(int fd)
{
	struct fdent ent;
	int rc;

	shim_mark(fd, false);
	SHIM_ENTER();
	if (fdtab_drop_if_shared(fd)) {
		rc = real_close(fd);	/* another copy lives on */
	} else {
		/* Its epoll registrations go first: a wait in another
		 * thread must not read the shared page once unmapped. */
		if (fdtab_get(fd, &ent))
			shim_epoll_forget_sock(ent.shm);
		rc = pingsock_close(fd);
	}
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "close(%d)", fd);
	return rc;
}

SHIM_EXPORT int close(int fd)
{
	if (PASS_ANY(fd)) {
		if (!shim_depth && shim_epoll_is_watched(fd))
			shim_epoll_forget_epfd(fd);
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
	shim_set_kind(newfd, shim_kind(fd));
	SHIM_LOGRC(newfd, "%s(%d)", what, fd);
	return newfd;
}

static int do_fcntl(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	int rc;

	if (PASS_ANY(fd))
		return real(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
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
	if (PASS_ANY(fd))
		return real_dup(fd);
	return adopt(fd, real_dup(fd), "dup");
}

/*
 * dup2/dup3 onto a shimmed descriptor close it first (as the kernel
 * does, though not atomically here); onto any other, the real call.
 */
static int dup_onto(int oldfd, int newfd, int flags, bool three)
{
	bool old_ours, new_ours;
	int rc;

	shim_init();
	if (shim_depth)
		return three ? real_dup3(oldfd, newfd, flags)
			     : real_dup2(oldfd, newfd);
	old_ours = shim_kind(oldfd) != SHIM_NONE;
	new_ours = shim_kind(newfd) != SHIM_NONE;
	if (!old_ours && !new_ours)
		return three ? real_dup3(oldfd, newfd, flags)
			     : real_dup2(oldfd, newfd);
	if (oldfd == newfd)
		return three ? real_dup3(oldfd, newfd, flags)
			     : real_dup2(oldfd, newfd);
	if (new_ours) {
		/* Fail as the kernel would before touching newfd. */
		if (real_fcntl(oldfd, F_GETFD) < 0 ||
		    (three && (flags & ~O_CLOEXEC))) {
			if (three && (flags & ~O_CLOEXEC))
				errno = EINVAL;
			return -1;
		}
		shim_close_ours(newfd);
	}
	rc = three ? real_dup3(oldfd, newfd, flags)
		   : real_dup2(oldfd, newfd);
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
	SHIM_ENTER();
	rc = pingsock_shutdown(fd, how);
	SHIM_LEAVE();
	SHIM_LOGRC(rc, "shutdown(%d, %d)", fd, how);
	return rc;
}
