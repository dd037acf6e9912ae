/* SPDX-License-Identifier: ISC */
#include "lib/fdcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "wire/decode.h"
#include "wire/rights.h"
#include "lib/sys.h"

static bool sockopt_is(int fd, int name, int want)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return sys_getsockopt(fd, SOL_SOCKET, name, &v, &len) == 0 &&
	       len == sizeof(v) && v == want;
}

/* Asked of the socket layer, not of the file: fstat() of a file on a
 * FUSE mount asks its server, which may never answer. */
static bool is_socket(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return sys_getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == 0;
}

static bool is_seqpacket(int fd)
{
	return is_socket(fd) && sockopt_is(fd, SO_DOMAIN, AF_UNIX) &&
	       sockopt_is(fd, SO_TYPE, SOCK_SEQPACKET);
}

static bool is_icmp(int fd, int family)
{
	if (!is_socket(fd) || !sockopt_is(fd, SO_TYPE, SOCK_DGRAM))
		return false;
	if (family != AF_INET6 && sockopt_is(fd, SO_DOMAIN, AF_INET))
		return sockopt_is(fd, SO_PROTOCOL, IPPROTO_ICMP);
	if (family != AF_INET && sockopt_is(fd, SO_DOMAIN, AF_INET6))
		return sockopt_is(fd, SO_PROTOCOL, IPPROTO_ICMPV6);
	return false;
}

/*
 * Sealed against shrinking, with its seals sealed (so it stays so: a
 * mapping of it can never fault); its size is checked after the seals,
 * when it can no longer go down.  Only shmem and hugetlbfs files answer
 * F_GET_SEALS, and only a memfd can have seals added; a hugetlbfs one is
 * refused (its pages may run out under the mapping).
 */
static bool is_arena(int fd)
{
	const int need = F_SEAL_SHRINK | F_SEAL_SEAL;
	int seals = sys_fcntl(fd, F_GET_SEALS);
	struct statfs sf;
	struct stat st;

	if (seals < 0 || (seals & need) != need)
		return false;
	return fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC &&
	       fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size >= WIRE_ARENA_SIZE;
}

bool fdcheck_kind(int fd, int kind, int family)
{
	if (fd < 0)
		return false;
	switch (kind) {
	case WIRE_FD_SEQPACKET:
		return is_seqpacket(fd);
	case WIRE_FD_ARENA:
		return is_arena(fd);
	case WIRE_FD_ICMP:
		return is_icmp(fd, family);
	default:
		return false;
	}
}

bool fdcheck_maker(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (sys_getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
	    len != sizeof(cr))
		return false;
	*uid = cr.uid;
	return true;
}

bool fdcheck_pair_of(uid_t listener, int fd, bool unmapped_ok)
{
	uid_t maker;

	if (!sockopt_is(fd, SO_ACCEPTCONN, 0) || !fdcheck_maker(fd, &maker))
		return false;
	if (listener == 0)
		return true;
	if (listener == FDCHECK_UNMAPPED)
		return unmapped_ok;
	return maker == listener;
}

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83	/* Linux 6.16, asm-generic/socket.h */
#endif

/*
 * Descriptors can travel inside descriptors: an AF_UNIX socket's queue
 * (or a listening one's pending connections' queues) may hold more, and
 * its last close releases them in this thread.  So such a socket is
 * drained first, and what comes out let go of the same way, four levels
 * deep and up to DISCARD_BUDGET descriptors and reads in all for one
 * discard; past either, what is left goes as the kernel lets it go.
 */
#define DISCARD_DEPTH 8	/* a discard and its drain: two each level */
#define DISCARD_BUDGET 4096
#define DISCARD_PENDING 64
static __thread unsigned discard_depth, discard_left;

static bool discard_enter(void)
{
	if (discard_depth++ == 0)
		discard_left = DISCARD_BUDGET;
	return discard_depth <= DISCARD_DEPTH && discard_left > 0;
}

static void discard_leave(void)
{
	discard_depth--;
}

/* A listening socket's pending connections, each let go of. */
static void take_pending(int fd)
{
	for (int i = 0; i < DISCARD_PENDING; i++) {
		int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (c < 0)
			break;
		fdcheck_discard(c);
	}
}

void fdcheck_discard(int fd)
{
	static const struct linger off = { .l_onoff = 0 };

	if (fd < 0)
		return;
	if (discard_enter() && sockopt_is(fd, SO_DOMAIN, AF_UNIX)) {
		if (sockopt_is(fd, SO_ACCEPTCONN, 1))
			take_pending(fd);
		else
			fdcheck_drain(fd);
	}
	if (discard_left)
		discard_left--;
	(void)sys_setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof(off));
	sys_close(fd);
	discard_leave();
}

static void discard_one(int fd, unsigned i, void *arg)
{
	(void)i;
	(void)arg;
	fdcheck_discard(fd);
}

void fdcheck_discard_rights(struct msghdr *mh)
{
	(void)wire_rights_each(mh, discard_one, NULL, NULL);
}

void fdcheck_drain(int fd)
{
	if (!discard_enter()) {
		discard_leave();
		return;
	}
	for (int i = 0; i < FDCHECK_DRAIN_MAX; i++) {
		union wire_rights_all_buf cbuf;
		char sink[512];	/* a stream socket's bytes go too */
		struct iovec iov = { .iov_base = sink, .iov_len = sizeof(sink) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf.b,
				     .msg_controllen = sizeof(cbuf.b) };

		/* The end reads as 0, and so does a message of no bytes
		 * (which may carry descriptors): only "nothing queued"
		 * ends the drain early; a closed end's, after the bound.
		 * Each read counts against the discard's budget too, so
		 * that a sender that keeps writing cannot keep it going. */
		if (discard_left == 0 ||
		    sys_recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0)
			break;
		discard_left--;
		fdcheck_discard_rights(&mh);
	}
	discard_leave();
}

int fdcheck_fresh_pair(int fd)
{
	static const int off = 0;
	char byte;

	/* ENOPROTOOPT before 6.16; and an impostor that kept the pair's
	 * open file can turn it on again: the reads of the pair take what
	 * comes all the same (relay_io.c). */
	(void)sys_setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off));
	/* A look that takes nothing, not even a reference, and that no
	 * signal ends (poll() with no timeout fails EINTR when one comes:
	 * a real OPEN failed EPROTO for it).  Nothing queued: EAGAIN. */
	if (sys_recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
	    errno == EAGAIN)
		return 0;
	fdcheck_drain(fd);
	return -EPROTO;
}
