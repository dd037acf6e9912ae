/* SPDX-License-Identifier: ISC */
/*
 * sys - the system calls the library makes, each by its own name here
 * (sys_close(), sys_recvmsg(), ...), never by libc's bare name.
 *
 * In libpingsock they are libc's.  In libpingsock-preload.so the shim
 * defines socket(), close(), recvmsg(), ... itself, and inside that shared
 * object a bare close() would reach the shim again; there shim/real.c
 * points this table at the next definitions (dlsym(RTLD_NEXT)) when the
 * object is loaded, before any call.  So a new call in the library needs
 * no guard against recursion: it goes through here.
 */
#ifndef PS_LIB_SYS_H
#define PS_LIB_SYS_H

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

struct sys_calls {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int,
			  const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *,
			    socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*ioctl)(int, unsigned long, ...);
	int (*fcntl)(int, int, ...);
	int (*close)(int);
	int (*dup3)(int, int, int);
	int (*shutdown)(int, int);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *,
		     const sigset_t *);
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
};

extern struct sys_calls sys;

#define sys_socket(...) (sys.socket(__VA_ARGS__))
#define sys_bind(...) (sys.bind(__VA_ARGS__))
#define sys_connect(...) (sys.connect(__VA_ARGS__))
#define sys_send(...) (sys.send(__VA_ARGS__))
#define sys_sendto(...) (sys.sendto(__VA_ARGS__))
#define sys_sendmsg(...) (sys.sendmsg(__VA_ARGS__))
#define sys_recv(...) (sys.recv(__VA_ARGS__))
#define sys_recvfrom(...) (sys.recvfrom(__VA_ARGS__))
#define sys_recvmsg(...) (sys.recvmsg(__VA_ARGS__))
#define sys_getsockname(...) (sys.getsockname(__VA_ARGS__))
#define sys_getpeername(...) (sys.getpeername(__VA_ARGS__))
#define sys_setsockopt(...) (sys.setsockopt(__VA_ARGS__))
#define sys_getsockopt(...) (sys.getsockopt(__VA_ARGS__))
#define sys_ioctl(...) (sys.ioctl(__VA_ARGS__))
#define sys_fcntl(...) (sys.fcntl(__VA_ARGS__))
#define sys_close(fd) (sys.close(fd))
#define sys_dup3(...) (sys.dup3(__VA_ARGS__))
#define sys_shutdown(...) (sys.shutdown(__VA_ARGS__))
#define sys_poll(...) (sys.poll(__VA_ARGS__))
#define sys_ppoll(...) (sys.ppoll(__VA_ARGS__))
#define sys_epoll_ctl(...) (sys.epoll_ctl(__VA_ARGS__))

/* The libc convention from a -errno result: errno set and -1; else rc. */
static inline long sys_ret(long rc)
{
	if (rc < 0) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

#endif
