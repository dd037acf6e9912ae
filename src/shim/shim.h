/* SPDX-License-Identifier: ISC */
/*
 * shim - libpingsock-preload.so: the libc calls an unmodified program
 * makes on a ping socket, served by libpingsock when the socket is one of
 * pingsockd's.
 *
 * Which calls go to the library.  The library's descriptor table
 * (lib/fdtab.h) is the one map: each interposed call reads the
 * descriptor's kind, one relaxed atomic load without a lock, and only a
 * descriptor the library handed out goes further (shim_kind).
 *
 * Recursion.  The library never calls these interposed names: its system
 * calls go through lib/sys.h, which real.c points at the next
 * definitions (libc's) when the object is loaded.  So the library needs
 * no guard against re-entering the shim.
 *
 * Signal handlers.  A handler that runs while its thread is inside one
 * of the client's locked regions (lib/lock.h: the descriptor table, the
 * broker sockets, the epoll registrations, an exchange with the daemon)
 * and uses a ping socket would wait for a lock its own thread holds.
 * There, and only there, shim_kind() says FDK_NONE: the handler's call
 * reaches the C library (the bare descriptor), which is wrong only for
 * such a handler and never hangs.  Anywhere else, a blocking receive
 * included (busybox ping sends each request from its SIGALRM handler
 * while it waits in recvfrom()), a handler is served as any code is.
 */
#ifndef PS_SHIM_H
#define PS_SHIM_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "lib/fdtab.h"
#include "lib/inherit.h"
#include "lib/lock.h"

struct shim_real {
	__typeof__(socket) *socket;
	__typeof__(bind) *bind;
	__typeof__(connect) *connect;
	__typeof__(send) *send;
	__typeof__(sendto) *sendto;
	__typeof__(sendmsg) *sendmsg;
	__typeof__(recv) *recv;
	__typeof__(recvfrom) *recvfrom;
	__typeof__(recvmsg) *recvmsg;
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*read_chk)(int, void *, size_t, size_t);
	ssize_t (*recv_chk)(int, void *, size_t, size_t, int);
	ssize_t (*recvfrom_chk)(int, void *, size_t, size_t, int,
				struct sockaddr *, socklen_t *);
	__typeof__(getsockname) *getsockname;
	__typeof__(getpeername) *getpeername;
	__typeof__(setsockopt) *setsockopt;
	__typeof__(getsockopt) *getsockopt;
	int (*ioctl)(int, unsigned long, ...);
	int (*fcntl)(int, int, ...);
	int (*fcntl64)(int, int, ...);
	int (*close)(int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	__typeof__(shutdown) *shutdown;
	__typeof__(poll) *poll;
	int (*poll_chk)(struct pollfd *, nfds_t, int, size_t);
	__typeof__(ppoll) *ppoll;
	__typeof__(select) *select;
	__typeof__(pselect) *pselect;
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
	int (*epoll_wait)(int, struct epoll_event *, int, int);
	int (*epoll_pwait)(int, struct epoll_event *, int, int,
			   const sigset_t *);
	int (*epoll_pwait2)(int, struct epoll_event *, int,
			    const struct timespec *, const sigset_t *);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned int, int);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned int, int,
			struct timespec *);
	int (*close_range)(unsigned int, unsigned int, int);
	void (*closefrom)(int);
};

extern struct shim_real shim_real;

/* The next definitions (libc's), by names of their own: real_close(). */
#define real_bind(...) (shim_real.bind(__VA_ARGS__))
#define real_close(...) (shim_real.close(__VA_ARGS__))
#define real_close_range(...) (shim_real.close_range(__VA_ARGS__))
#define real_closefrom(...) (shim_real.closefrom(__VA_ARGS__))
#define real_connect(...) (shim_real.connect(__VA_ARGS__))
#define real_dup(...) (shim_real.dup(__VA_ARGS__))
#define real_dup2(...) (shim_real.dup2(__VA_ARGS__))
#define real_dup3(...) (shim_real.dup3(__VA_ARGS__))
#define real_epoll_ctl(...) (shim_real.epoll_ctl(__VA_ARGS__))
#define real_epoll_pwait(...) (shim_real.epoll_pwait(__VA_ARGS__))
#define real_epoll_pwait2(...) (shim_real.epoll_pwait2(__VA_ARGS__))
#define real_epoll_wait(...) (shim_real.epoll_wait(__VA_ARGS__))
#define real_fcntl(...) (shim_real.fcntl(__VA_ARGS__))
#define real_getpeername(...) (shim_real.getpeername(__VA_ARGS__))
#define real_getsockname(...) (shim_real.getsockname(__VA_ARGS__))
#define real_getsockopt(...) (shim_real.getsockopt(__VA_ARGS__))
#define real_ioctl(...) (shim_real.ioctl(__VA_ARGS__))
#define real_poll(...) (shim_real.poll(__VA_ARGS__))
#define real_ppoll(...) (shim_real.ppoll(__VA_ARGS__))
#define real_pselect(...) (shim_real.pselect(__VA_ARGS__))
#define real_read(...) (shim_real.read(__VA_ARGS__))
#define real_read_chk(...) (shim_real.read_chk(__VA_ARGS__))
#define real_recv(...) (shim_real.recv(__VA_ARGS__))
#define real_recv_chk(...) (shim_real.recv_chk(__VA_ARGS__))
#define real_recvfrom(...) (shim_real.recvfrom(__VA_ARGS__))
#define real_recvfrom_chk(...) (shim_real.recvfrom_chk(__VA_ARGS__))
#define real_recvmmsg(...) (shim_real.recvmmsg(__VA_ARGS__))
#define real_recvmsg(...) (shim_real.recvmsg(__VA_ARGS__))
#define real_select(...) (shim_real.select(__VA_ARGS__))
#define real_send(...) (shim_real.send(__VA_ARGS__))
#define real_sendmmsg(...) (shim_real.sendmmsg(__VA_ARGS__))
#define real_sendmsg(...) (shim_real.sendmsg(__VA_ARGS__))
#define real_sendto(...) (shim_real.sendto(__VA_ARGS__))
#define real_setsockopt(...) (shim_real.setsockopt(__VA_ARGS__))
#define real_shutdown(...) (shim_real.shutdown(__VA_ARGS__))
#define real_socket(...) (shim_real.socket(__VA_ARGS__))
#define real_write(...) (shim_real.write(__VA_ARGS__))
extern bool shim_debug;

/* Bind the real functions (once) and read PINGSOCK_DEBUG. */
void shim_init(void);

/*
 * What the library serves fd as, for the preload: its kind in the
 * descriptor table, or FDK_NONE (libc's) when the thread is inside one
 * of the client's locked regions (a signal handler, see above).
 */
static inline enum fdkind shim_kind(int fd)
{
	enum fdkind k = fdtab_kind(fd);

	if (k != FDK_NONE && lock_held())
		return FDK_NONE;
	/* Came across exec: the daemon says at its first use (inherit.h). */
	return k == FDK_INHERITED ? inherit_resolve(fd) : k;
}

/* PINGSOCK_DEBUG=1: one line on stderr; keeps errno. */
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Log "NAME(ARGS) = rc" (or "-1 (strerror)") for a call on fd; keeps errno. */
#define SHIM_LOGRC(rc, fmt, ...)                                            \
	do {                                                                \
		if (shim_debug)                                             \
			shim_log(fmt " = %ld%s%s", __VA_ARGS__, (long)(rc), \
				 (rc) < 0 ? " " : "",                       \
				 (rc) < 0 ? shim_errstr() : "");            \
	} while (0)
const char *shim_errstr(void);

/* close() of a shimmed fd: the last copy closes the daemon socket. */
int shim_close_ours(int fd);

/* epoll.c: registrations of shimmed sockets in epoll sets. */
/* The socket's last entry is gone (backend_on_release): drop its
 * registrations. */
void shim_epoll_forget_sock(const struct fdent *ent);
/* A descriptor of an epoll set with shimmed registrations? */
bool shim_epoll_is_watched(int epfd);
/* Such a descriptor is being closed (close, dup2/dup3 over it): its
 * set's registrations stay with another descriptor of the set, if any. */
void shim_epoll_closing(int epfd);
/* close_range(first, last): shim_epoll_closing for those among them. */
void shim_epoll_closing_range(unsigned first, unsigned last);
/* to is a new copy of from (dup, dup2, dup3, F_DUPFD). */
void shim_epoll_copied(int from, int to);

/* epcopy.c: are a and b descriptors of the same open file (kcmp)?
 * false where kcmp is missing or refused. */
bool shim_same_file(int a, int b);
/* Another descriptor of fd's epoll set, outside [lo, hi]; -1 if none. */
int shim_find_epoll_copy(int fd, int lo, int hi);

#endif
