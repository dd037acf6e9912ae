/* SPDX-License-Identifier: ISC */
#include "lib/sys.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* libc's; in the preload, shim/real.c points it elsewhere at load. */
struct sys_calls sys = {
	.socket = socket,
	.bind = bind,
	.connect = connect,
	.send = send,
	.sendto = sendto,
	.sendmsg = sendmsg,
	.recv = recv,
	.recvfrom = recvfrom,
	.recvmsg = recvmsg,
	.getsockname = getsockname,
	.getpeername = getpeername,
	.setsockopt = setsockopt,
	.getsockopt = getsockopt,
	.ioctl = ioctl,
	.fcntl = fcntl,
	.close = close,
	.dup3 = dup3,
	.shutdown = shutdown,
	.poll = poll,
	.ppoll = ppoll,
	.epoll_ctl = epoll_ctl,
};
