/* SPDX-License-Identifier: ISC */
/*
 * plain.h - the pingsock_* calls of the conformance cases as plain libc
 * calls (conf.h includes it instead of pingsock.h under -DCONF_PLAIN).
 *
 * Built so, a case is an ordinary program that knows nothing of pingsock
 * and is not linked with libpingsock: run.sh (CONF_SHIM=1) runs it on the
 * kernel's ping socket as it is and on pingsockd under the LD_PRELOAD shim
 * (libpingsock-preload.so), and the two outputs must be the same.
 */
#ifndef CONF_PLAIN_H
#define CONF_PLAIN_H

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define pingsock_socket socket
#define pingsock_bind bind
#define pingsock_connect connect
#define pingsock_send send
#define pingsock_sendto sendto
#define pingsock_sendmsg sendmsg
#define pingsock_recv recv
#define pingsock_recvfrom recvfrom
#define pingsock_recvmsg recvmsg
#define pingsock_getsockname getsockname
#define pingsock_getpeername getpeername
#define pingsock_setsockopt setsockopt
#define pingsock_getsockopt getsockopt
#define pingsock_ioctl ioctl
#define pingsock_shutdown shutdown
#define pingsock_close close
#define pingsock_poll poll
#define pingsock_why plain_why
#define pingsock_backend plain_backend

/* Why the last socket() failed: all a plain program knows is errno. */
static __attribute__((unused)) const char *plain_why(void)
{
	return strerror(errno);
}

/*
 * Non-zero if fd is an IPv4 ICMP or IPv6 ICMPv6 datagram socket, as
 * pingsock_backend() is non-zero for a pingsock socket: what socket.c and
 * socket6.c print is then the same on both sides.  errno is left as it
 * was.
 */
static __attribute__((unused)) int plain_backend(int fd)
{
	int e = errno, type = 0, proto = 0, dom = 0, ok;
	socklen_t l1 = sizeof(type), l2 = sizeof(proto), l3 = sizeof(dom);

	ok = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l1) == 0 &&
	     getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l2) == 0 &&
	     getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l3) == 0 &&
	     type == SOCK_DGRAM &&
	     ((proto == IPPROTO_ICMP && dom == AF_INET) ||
	      (proto == IPPROTO_ICMPV6 && dom == AF_INET6));
	errno = e;
	return ok;
}

#endif
