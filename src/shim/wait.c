/*
 * wait - the library's own blocking read of a data descriptor, made
 * with the recursion guard down.
 *
 * While the library waits in recvmsg() for a datagram (a receive without
 * MSG_DONTWAIT on a blocking socket), the thread holds none of its locks
 * and is inside no request: a signal handler that runs then may use a
 * ping socket as the program would anywhere else.  busybox ping does
 * exactly that, sending each request from its SIGALRM handler while it
 * blocks in recvfrom(); with the guard up its sends would go to the bare
 * descriptor and be lost.  Every other call the library makes stays
 * guarded (a handler that interrupts one still reaches the C library;
 * see pingsock-preload(8)).
 */
#include <errno.h>

#include "shim/shim.h"

ssize_t shim_lib_recvmsg(int fd, struct msghdr *msg, int flags)
{
	int depth = shim_depth, saved;
	ssize_t rc;

	if (!depth || !shim_ours(fd))
		return real_recvmsg(fd, msg, flags);
	shim_depth = 0;
	rc = real_recvmsg(fd, msg, flags);
	saved = errno;
	shim_depth = depth;
	errno = saved;
	return rc;
}
