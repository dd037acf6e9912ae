/* SPDX-License-Identifier: ISC */
/* real - the libc functions behind the shim, the debug log. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/backend.h"
#include "lib/env.h"
#include "lib/inherit.h"
#include "lib/sys.h"
#include "shim/shim.h"

struct shim_real shim_real;
bool shim_debug;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define BIND(field, name) \
	(*(void **)&shim_real.field = dlsym(RTLD_NEXT, name))

/*
 * The library's system calls (lib/sys.h) are the real ones too: inside
 * this object libc's bare names are the shim's.
 */
static void point_sys(void)
{
	sys.socket = shim_real.socket;
	sys.bind = shim_real.bind;
	sys.connect = shim_real.connect;
	sys.send = shim_real.send;
	sys.sendto = shim_real.sendto;
	sys.sendmsg = shim_real.sendmsg;
	sys.recv = shim_real.recv;
	sys.recvfrom = shim_real.recvfrom;
	sys.recvmsg = shim_real.recvmsg;
	sys.getsockname = shim_real.getsockname;
	sys.getpeername = shim_real.getpeername;
	sys.setsockopt = shim_real.setsockopt;
	sys.getsockopt = shim_real.getsockopt;
	sys.ioctl = shim_real.ioctl;
	sys.fcntl = shim_real.fcntl;
	sys.close = shim_real.close;
	sys.dup3 = shim_real.dup3;
	sys.shutdown = shim_real.shutdown;
	sys.poll = shim_real.poll;
	sys.ppoll = shim_real.ppoll;
	sys.epoll_ctl = shim_real.epoll_ctl;
}

static void bind_all(void)
{
	const char *d = secure_getenv("PINGSOCK_DEBUG");

	BIND(socket, "socket");
	BIND(bind, "bind");
	BIND(connect, "connect");
	BIND(send, "send");
	BIND(sendto, "sendto");
	BIND(sendmsg, "sendmsg");
	BIND(recv, "recv");
	BIND(recvfrom, "recvfrom");
	BIND(recvmsg, "recvmsg");
	BIND(read, "read");
	BIND(write, "write");
	BIND(read_chk, "__read_chk");
	BIND(recv_chk, "__recv_chk");
	BIND(recvfrom_chk, "__recvfrom_chk");
	BIND(getsockname, "getsockname");
	BIND(getpeername, "getpeername");
	BIND(setsockopt, "setsockopt");
	BIND(getsockopt, "getsockopt");
	BIND(ioctl, "ioctl");
	BIND(fcntl, "fcntl");
	BIND(fcntl64, "fcntl64");
	BIND(close, "close");
	BIND(dup, "dup");
	BIND(dup2, "dup2");
	BIND(dup3, "dup3");
	BIND(shutdown, "shutdown");
	BIND(poll, "poll");
	BIND(poll_chk, "__poll_chk");
	BIND(ppoll, "ppoll");
	BIND(select, "select");
	BIND(pselect, "pselect");
	BIND(epoll_ctl, "epoll_ctl");
	BIND(epoll_wait, "epoll_wait");
	BIND(epoll_pwait, "epoll_pwait");
	BIND(epoll_pwait2, "epoll_pwait2");
	BIND(sendmmsg, "sendmmsg");
	BIND(recvmmsg, "recvmmsg");
	BIND(close_range, "close_range");
	BIND(closefrom, "closefrom");
	if (!shim_real.fcntl64)
		shim_real.fcntl64 = shim_real.fcntl;
	shim_debug = d && *d && strcmp(d, "0") != 0;
	point_sys();
	/* A socket's last entry may go in any call (closed, or found stale):
	 * its epoll registrations go with it, before its page is unmapped. */
	backend_on_release(shim_epoll_forget_sock);
}

void shim_init(void)
{
	pthread_once(&once, bind_all);
}

/*
 * Bound when the object is loaded, before the program's first call; and
 * the PINGSOCK_* variables read then, once (lib/env.h): a program may
 * clear its environment before its first socket.
 */
__attribute__((constructor)) static void shim_load(void)
{
	env_freeze();
	shim_init();
	/* Its ping sockets, if the program got any across exec: the shim
	 * cannot tell a call on one from any other call on an unknown
	 * descriptor, so it learns them now (inherit.h). */
	inherit_scan();
}

const char *shim_errstr(void)
{
	static __thread char buf[96];

	snprintf(buf, sizeof(buf), "(%s)", strerror(errno));
	return buf;
}

void shim_log(const char *fmt, ...)
{
	int saved = errno;
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "pingsock-preload[%d]: ",
			 (int)getpid());
	va_list ap;

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(buf))
		/* The analyzer misses the va_start above, as in log.c. */
		n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf) - 1)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (shim_real.write)
		(void)!real_write(2, buf, (size_t)n);
	errno = saved;
}
