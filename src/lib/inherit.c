/* SPDX-License-Identifier: ISC */
#include "lib/inherit.h"

#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/conn.h"
#include "lib/fdtab.h"
#include "lib/lock.h"
#include "lib/relay.h"
#include "lib/shimapi.h"
#include "lib/sys.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int sockopt_int(int fd, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (sys_getsockopt(fd, SOL_SOCKET, name, &v, &len) != 0 ||
	    len != sizeof(v))
		return -1;
	return v;
}

/* One of the library's own control connections (not a candidate). */
static bool is_conn(int fd)
{
	int fds[CONN_POOL_MAX];
	size_t n = conn_fds(fds, CONN_POOL_MAX);

	for (size_t i = 0; i < n && i < CONN_POOL_MAX; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/* A kernel ping socket: learnt as such (nothing to ask anyone). */
static void adopt_kernel(int fd, int domain)
{
	int proto = sockopt_int(fd, SO_PROTOCOL);
	struct fdent ent = { .kind = FDK_KERNEL, .family = domain,
			     .livefd = -1 };

	if ((domain == AF_INET && proto == IPPROTO_ICMP) ||
	    (domain == AF_INET6 && proto == IPPROTO_ICMPV6))
		(void)fdtab_add(fd, &ent);
}

/* fd's SO_COOKIE, or 0. */
static uint64_t cookie_of(int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	if (sys_getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len) != 0 ||
	    len != sizeof(cookie))
		return 0;
	return cookie;
}

/*
 * Was fd's pair made by a process of our own uid (SO_PEERCRED: its
 * maker's)?  Then it is the program's own: pingsockd runs as a user of
 * its own, or root.  This does not take the daemon's word for it, which
 * an impostor at the socket path would give for any descriptor, so that
 * a lie cannot have a proof written on a non-root program's own pairs.
 * The pairs a third party made (root, systemd, another user) are left
 * to the second check, at first use: relay_adopt() has a proof written
 * only on a pair the uid listening at the socket path made, or when a
 * root listener (no impostor) claims it (relay.c, made_by_listener).
 */
static bool made_by_us(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uid_t me = geteuid();

	if (sys_getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
	    len != sizeof(cr))
		return true;	/* unknown: not one to touch */
	return me != 0 && cr.uid == me;
}

static void inherit_one(int fd)
{
	struct stat st;
	struct fdent ent = { .kind = FDK_INHERITED, .livefd = -1 };
	int domain, type;

	if (fdtab_kind(fd) != FDK_NONE || fstat(fd, &st) != 0 ||
	    !S_ISSOCK(st.st_mode))
		return;
	domain = sockopt_int(fd, SO_DOMAIN);
	type = sockopt_int(fd, SO_TYPE);
	if ((domain == AF_INET || domain == AF_INET6) && type == SOCK_DGRAM) {
		adopt_kernel(fd, domain);
		return;
	}
	/* A relayed socket's data descriptor is a SOCK_SEQPACKET pair's
	 * end; which one is the daemon's to say, at its first use. */
	if (domain == AF_UNIX && type == SOCK_SEQPACKET && !is_conn(fd) &&
	    !made_by_us(fd))
		(void)fdtab_add(fd, &ent);
}

static void scan(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return;	/* no /proc: inherited sockets stay unknown */
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd < 0 || fd == dirfd(d) ||
		    fd > INT32_MAX)
			continue;
		inherit_one((int)fd);
	}
	closedir(d);
}

void inherit_scan(void)
{
	pthread_once(&once, scan);
}

/*
 * One resolution at a time (LOCK_INHERIT): two threads' first calls on
 * one inherited descriptor would attach it twice.  Rare (once per
 * inherited descriptor), so one lock for all; a lock.h lock, so that a
 * fork meanwhile or a signal handler's call leaves nothing waiting.
 */
enum fdkind inherit_resolve(int fd)
{
	struct fdent gone;
	enum fdkind k;

	if (lock_held())
		return FDK_NONE;	/* a signal handler's: as shim.h says */
	lock_take(LOCK_INHERIT);
	if (fdtab_kind(fd) == FDK_INHERITED) {
		uint64_t cookie = cookie_of(fd);

		/* Not one of ours (or no daemon): the program's own. */
		if (!cookie || relay_adopt(fd, cookie) != 0)
			fdtab_remove(fd, &gone);
	}
	k = fdtab_kind(fd);
	lock_give(LOCK_INHERIT);
	return k;
}
