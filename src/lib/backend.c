/* SPDX-License-Identifier: ISC */
#include "lib/backend.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "lib/broker.h"
#include "lib/env.h"
#include "lib/inherit.h"
#include "lib/rawcompat.h"
#include "lib/relay.h"
#include "lib/sys.h"

/* ---- the kernel's own socket, and any descriptor not the library's ---- */

static int k_bind(int fd, struct fdent *e, const struct sockaddr *addr,
		  socklen_t len)
{
	return sys_bind(fd, addr, len);
}

static int k_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		     socklen_t len)
{
	return sys_connect(fd, addr, len);
}

static int k_getname(int fd, struct fdent *e, bool peer,
		     struct sockaddr *addr, socklen_t *len)
{
	return peer ? sys_getpeername(fd, addr, len)
		    : sys_getsockname(fd, addr, len);
}

static int k_shutdown(int fd, struct fdent *e, int how)
{
	return sys_shutdown(fd, how);
}

static ssize_t k_sendto(int fd, struct fdent *e, const void *buf, size_t len,
			int flags, const struct sockaddr *dst, socklen_t dstlen)
{
	return sys_sendto(fd, buf, len, flags, dst, dstlen);
}

static ssize_t k_sendmsg(int fd, struct fdent *e, const struct msghdr *msg,
			 int flags)
{
	return sys_sendmsg(fd, msg, flags);
}

static ssize_t k_recvfrom(int fd, struct fdent *e, void *buf, size_t len,
			  int flags, struct sockaddr *src, socklen_t *srclen)
{
	return sys_recvfrom(fd, buf, len, flags, src, srclen);
}

static ssize_t k_recvmsg(int fd, struct fdent *e, struct msghdr *msg,
			 int flags)
{
	return sys_recvmsg(fd, msg, flags);
}

static int k_setsockopt(int fd, struct fdent *e, int level, int name,
			const void *val, socklen_t len)
{
	return sys_setsockopt(fd, level, name, val, len);
}

static int k_getsockopt(int fd, struct fdent *e, int level, int name,
			void *val, socklen_t *len)
{
	return sys_getsockopt(fd, level, name, val, len);
}

static int k_ioctl(int fd, struct fdent *e, unsigned long req, void *arg)
{
	return sys_ioctl(fd, req, arg);
}

static void k_release(struct fdent *e)
{
}

/* ---- the table of backends ---- */

static const struct backend_ops kernel_ops = {
	.bind = k_bind, .connect = k_connect, .getname = k_getname,
	.shutdown = k_shutdown, .sendto = k_sendto, .sendmsg = k_sendmsg,
	.recvfrom = k_recvfrom, .recvmsg = k_recvmsg,
	.setsockopt = k_setsockopt, .getsockopt = k_getsockopt,
	.ioctl = k_ioctl, .release = k_release,
};

/* A relayed socket; the raw-socket emulation differs in its receive. */
#define RELAY_OPS(recvfrom_op, recvmsg_op)                                  \
	{                                                                   \
		.bind = relay_bind, .connect = relay_connect,               \
		.getname = relay_getname, .shutdown = relay_shutdown,       \
		.sendto = relay_sendto, .sendmsg = relay_sendmsg,           \
		.recvfrom = (recvfrom_op), .recvmsg = (recvmsg_op),         \
		.setsockopt = relay_setsockopt,                             \
		.getsockopt = relay_getsockopt, .ioctl = relay_ioctl,       \
		.release = relay_release,                                   \
	}

static const struct backend_ops relay_ops =
	RELAY_OPS(relay_recvfrom, relay_recvmsg);
static const struct backend_ops raw_ops =
	RELAY_OPS(relay_raw_recvfrom, relay_raw_recvmsg);

/* The kernel's socket, but for what broker.h lists. */
static const struct backend_ops broker_ops = {
	.bind = broker_bind, .connect = broker_connect,
	.getname = broker_getname, .shutdown = k_shutdown,
	.sendto = broker_sendto, .sendmsg = broker_sendmsg,
	.recvfrom = k_recvfrom, .recvmsg = k_recvmsg,
	.setsockopt = broker_setsockopt, .getsockopt = broker_getsockopt,
	.ioctl = k_ioctl, .release = broker_release,
};

static const struct backend_ops *const by_kind[] = {
	[FDK_NONE] = &kernel_ops,
	[FDK_KERNEL] = &kernel_ops,
	[FDK_RELAY] = &relay_ops,
	[FDK_RAW] = &raw_ops,
	[FDK_BROKER_FRESH] = &broker_ops,
	[FDK_BROKER] = &broker_ops,
	[FDK_INHERITED] = &kernel_ops,	/* resolved before any call */
};

static void (*on_release)(const struct fdent *e);

void backend_on_release(void (*fn)(const struct fdent *e))
{
	on_release = fn;
}

static void release(struct fdent *gone)
{
	if (gone->kind == FDK_NONE)
		return;
	if (on_release && (gone->shm || fdkind_relayed(gone->kind)))
		on_release(gone);
	by_kind[gone->kind]->release(gone);
}

const struct backend_ops *backend_lookup(int fd, struct fdent *e)
{
	struct fdent gone;

	if (!fdtab_find(fd, e, &gone))
		release(&gone);
	if (e->kind == FDK_NONE && fd >= 0)
		inherit_scan();	/* it may have come across exec */
	if (fdtab_kind(fd) == FDK_INHERITED) {
		inherit_resolve(fd);
		if (!fdtab_find(fd, e, &gone))
			release(&gone);
	}
	return by_kind[e->kind];
}

void backend_drop(int fd)
{
	struct fdent gone;

	if (fdtab_remove(fd, &gone))
		release(&gone);
}

/* ---- the choice ---- */

enum backend_mode backend_mode(void)
{
	const char *m = env_get(ENV_BACKEND);

	if (!m || !*m || strcmp(m, "auto") == 0)
		return BACKEND_AUTO;
	if (strcmp(m, "kernel") == 0)
		return BACKEND_KERNEL;
	if (strcmp(m, "daemon") == 0)
		return BACKEND_DAEMON;
	return BACKEND_BAD;
}

bool backend_is_ping(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	return base == SOCK_DGRAM &&
	       ((domain == AF_INET && protocol == IPPROTO_ICMP) ||
		(domain == AF_INET6 && protocol == IPPROTO_ICMPV6));
}

bool backend_serves(int domain, int type, int protocol)
{
	return backend_is_ping(domain, type, protocol) ||
	       rawc_wanted(domain, type, protocol);
}

bool backend_fallback(int domain, int err)
{
	switch (err) {
	case EACCES:		/* ping_group_range leaves the caller out */
	case EPERM:		/* a raw socket without CAP_NET_RAW */
	case EPROTONOSUPPORT:	/* a kernel or container without ping
				 * sockets (of this family) */
		return true;
	case EAFNOSUPPORT:
		/* Old OpenVZ kernels say so for every IPv4 ping socket (as
		 * iputils' ping knows); for IPv6 it means IPv6 is off, and
		 * the daemon could do no better. */
		return domain == AF_INET;
	default:
		return false;
	}
}
