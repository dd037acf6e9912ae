/* SPDX-License-Identifier: ISC */
#include "run/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/broker.h"
#include "lib/fdtab.h"
#include "pingsock.h"

#define SCAN_NS 1000000000ull

struct run_sock {
	ino_t ino;		/* the kernel socket's, now */
	int family;
	uint32_t handle;	/* the daemon's, for its bind */
	int livefd;		/* the liveness descriptor, held here */
	bool bound;		/* the program's bind() was made */
	int v6only;		/* IPV6_V6ONLY as the program set it */
};

static struct run_sock *socks;
static unsigned nsocks, capsocks;

unsigned sock_count(void)
{
	return nsocks;
}

static int remember(ino_t ino, int family, uint32_t handle, int livefd)
{
	if (nsocks == capsocks) {
		unsigned ncap = capsocks ? capsocks * 2 : 16;
		struct run_sock *n = realloc(socks, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		socks = n;
		capsocks = ncap;
	}
	/* IPV6_V6ONLY 1: the kernel's default for these sockets. */
	socks[nsocks++] = (struct run_sock){ .ino = ino, .family = family,
					     .handle = handle, .livefd = livefd,
					     .v6only = 1 };
	return 0;
}

static void forget(unsigned i)
{
	close(socks[i].livefd);
	socks[i] = socks[--nsocks];
}

struct run_sock *sock_find(int ofd)
{
	struct stat st;

	if (fstat(ofd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	for (unsigned i = 0; i < nsocks; i++)
		if (socks[i].ino == st.st_ino)
			return &socks[i];
	return NULL;
}

/* The daemon's socket fd, its liveness descriptor (a copy) and handle;
 * -EACCES if the daemon relays it (nothing can be handed over). */
static int identity(int fd, uint32_t *handle, int *live)
{
	static bool said;
	struct fdent ent;
	int lfd;

	if (pingsock_backend(fd) != PINGSOCK_BACKEND_BROKER ||
	    !fdtab_get(fd, &ent, NULL) || !broker_identity(&ent, handle, &lfd)) {
		if (!said)
			fprintf(stderr, "pingsock-run: pingsockd relays this "
				"socket (relay mode, or relay_uids): it cannot "
				"be handed to the program\n");
		said = true;
		return -EACCES;
	}
	*live = fcntl(lfd, F_DUPFD_CLOEXEC, 3);
	return *live < 0 ? -errno : 0;
}

int sock_install(int lfd, uint64_t id, int domain, int type, int protocol)
{
	struct seccomp_notif_addfd a = {
		.id = id, .flags = SECCOMP_ADDFD_FLAG_SEND,
		.newfd_flags = (type & SOCK_CLOEXEC) ? O_CLOEXEC : 0 };
	int fd = pingsock_socket(domain, type, protocol), live = -1, err;
	uint32_t handle;
	struct stat st;

	if (fd < 0)
		return -errno;
	err = identity(fd, &handle, &live);
	if (!err && fstat(fd, &st) != 0)
		err = -errno;
	if (!err)
		err = remember(st.st_ino, domain, handle, live);
	if (!err) {
		a.srcfd = (uint32_t)fd;
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0) {
			err = -errno;
			forget(nsocks - 1);
		}
		live = -1;
	}
	if (live >= 0)
		close(live);
	pingsock_close(fd);
	/* ENOENT: the caller is gone or its call was interrupted; nothing
	 * was installed and nothing is to be answered. */
	return err == -ENOENT ? 0 : err;
}

/* A bind the daemon's socket already satisfies: any address, port 0. */
static bool wildcard(int family, const void *addr, socklen_t len)
{
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, addr, sizeof(sin));
		return sin.sin_family == AF_INET && sin.sin_port == 0 &&
		       sin.sin_addr.s_addr == htonl(INADDR_ANY);
	}
	if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, addr, sizeof(sin6));
		return sin6.sin6_family == AF_INET6 && sin6.sin6_port == 0 &&
		       sin6.sin6_scope_id == 0 &&
		       IN6_IS_ADDR_UNSPECIFIED(&sin6.sin6_addr);
	}
	return false;
}

/* The options a program sets before it binds, onto the new socket. */
static const struct { int level, name; bool halve; } copied[] = {
	{ SOL_SOCKET, SO_BROADCAST, false }, { SOL_SOCKET, SO_PRIORITY, false },
	{ SOL_SOCKET, SO_RCVBUF, true }, { SOL_SOCKET, SO_SNDBUF, true },
	{ SOL_SOCKET, SO_TIMESTAMP, false }, { SOL_SOCKET, SO_TIMESTAMPNS, false },
	{ SOL_SOCKET, SO_RXQ_OVFL, false }, { SOL_SOCKET, SO_RCVLOWAT, false },
	{ SOL_SOCKET, SO_MARK, false },
	{ SOL_IP, IP_TTL, false }, { SOL_IP, IP_TOS, false },
	{ SOL_IP, IP_RECVERR, false }, { SOL_IP, IP_RECVTTL, false },
	{ SOL_IP, IP_RECVTOS, false }, { SOL_IP, IP_PKTINFO, false },
	{ SOL_IP, IP_MTU_DISCOVER, false }, { SOL_IP, IP_MULTICAST_TTL, false },
	{ SOL_IP, IP_MULTICAST_LOOP, false },
	{ SOL_IPV6, IPV6_UNICAST_HOPS, false },
	{ SOL_IPV6, IPV6_MULTICAST_HOPS, false },
	{ SOL_IPV6, IPV6_RECVERR, false }, { SOL_IPV6, IPV6_RECVPKTINFO, false },
	{ SOL_IPV6, IPV6_RECVHOPLIMIT, false }, { SOL_IPV6, IPV6_TCLASS, false },
	{ SOL_IPV6, IPV6_RECVTCLASS, false },
	{ SOL_IPV6, IPV6_MTU_DISCOVER, false }, { SOL_IPV6, IPV6_DONTFRAG, false },
};

static void copy_options(int from, int to)
{
	struct icmp6_filter f6;
	socklen_t len = sizeof(f6);

	for (size_t i = 0; i < sizeof(copied) / sizeof(copied[0]); i++) {
		int v, w;
		socklen_t vl = sizeof(v), wl = sizeof(w);

		if (getsockopt(from, copied[i].level, copied[i].name, &v, &vl) ||
		    getsockopt(to, copied[i].level, copied[i].name, &w, &wl) ||
		    v == w)
			continue;
		/* The kernel doubles the buffer sizes it is given. */
		if (copied[i].halve)
			v /= 2;
		(void)setsockopt(to, copied[i].level, copied[i].name, &v,
				 sizeof(v));
	}
	if (getsockopt(from, SOL_ICMPV6, ICMP6_FILTER, &f6, &len) == 0)
		(void)setsockopt(to, SOL_ICMPV6, ICMP6_FILTER, &f6, len);
}

/* Put the daemon's new socket nfd at the caller's fd, in ofd's place. */
static int replace(int lfd, uint64_t id, int fd, int ofd, int nfd,
		   bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = id, .flags = SECCOMP_ADDFD_FLAG_SETFD, .srcfd = (uint32_t)nfd,
		.newfd = (uint32_t)fd, .newfd_flags = cloexec ? O_CLOEXEC : 0 };
	int fl = fcntl(ofd, F_GETFL);

	copy_options(ofd, nfd);
	if (fl < 0 || fcntl(nfd, F_SETFL, fl) != 0)
		return -errno;
	return ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 ? -errno : 0;
}

int sock_bind(struct run_sock *rs, int ofd, const void *addr,
	      socklen_t len, int lfd, uint64_t id, int fd, bool cloexec)
{
	struct stat st;
	int nfd, err;

	if (rs->bound)
		return -EINVAL;		/* the kernel's: bound already */
	if (wildcard(rs->family, addr, len)) {
		rs->bound = true;
		return 0;
	}
	err = broker_bind_request(ofd, rs->handle, rs->livefd, rs->family,
				  addr, len, 0, &nfd);
	if (err)
		return err;
	if (fstat(nfd, &st) != 0)
		err = -errno;
	if (!err)
		err = replace(lfd, id, fd, ofd, nfd, cloexec);
	if (!err) {
		rs->ino = st.st_ino;
		rs->bound = true;
	}
	close(nfd);
	return err;
}

bool sock_is_v6(const struct run_sock *rs)
{
	return rs->family == AF_INET6;
}

int sock_v6only(struct run_sock *rs, bool set, int *val)
{
	if (set && rs->bound)
		return -EINVAL;
	if (set)
		rs->v6only = *val != 0;
	else
		*val = rs->v6only;
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;

	return x < y ? -1 : x > y;
}

/* The inodes (the 10th field) of the ping sockets path lists, added to
 * *v.  false if it could not be read. */
static bool listed(const char *path, ino_t **v, size_t *n, size_t *cap)
{
	char line[512];
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ino;

		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
			   &ino) != 1)
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			ino_t *nv = realloc(*v, ncap * sizeof(**v));

			if (!nv) {
				fclose(f);
				return false;
			}
			*v = nv;
			*cap = ncap;
		}
		(*v)[(*n)++] = (ino_t)ino;
	}
	ok = !ferror(f);
	fclose(f);
	return ok;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Forget the sockets the kernel no longer lists (when it could tell). */
void sock_scan(void)
{
	static uint64_t last;
	uint64_t now = now_ns();
	ino_t *v = NULL;
	size_t n = 0, cap = 0;

	if (!nsocks || now - last < SCAN_NS)
		return;
	last = now;
	if (listed("/proc/net/icmp", &v, &n, &cap) &&
	    listed("/proc/net/icmp6", &v, &n, &cap)) {
		if (n)
			qsort(v, n, sizeof(*v), cmp_ino);
		for (unsigned i = nsocks; i-- > 0;)
			if (!n || !bsearch(&socks[i].ino, v, n, sizeof(*v),
					   cmp_ino))
				forget(i);
	}
	free(v);
}

void sock_forget_all(void)
{
	while (nsocks)
		forget(nsocks - 1);
	free(socks);
	socks = NULL;
	capsocks = 0;
}
