/* SPDX-License-Identifier: ISC */
/*
 * relay_opt - socket options and ioctls of a relayed socket (backend.h).
 *
 * Options that are about the descriptor itself (timeouts, buffer sizes)
 * live on the data descriptor, where the kernel applies and reports them
 * with its own rules (SO_RCVBUF doubling, limits); SO_RCVBUF is also sent
 * to the daemon, whose end of the pair is what actually bounds the queue.
 * Everything else is the daemon's.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define FLR_LABEL_OFF offsetof(struct in6ext_flreq, label)

#include "lib/errq.h"
#include "lib/fdtab.h"
#include "lib/optgen.h"
#include "lib/relay.h"
#include "lib/sys.h"
#include "lib/ucopy.h"
#include "wire/in6ext.h"

int relay_setsockopt(int fd, struct fdent *ent, int level, int name,
		     const void *val, socklen_t len)
{
	struct wire_req req = { .type = WIRE_SETOPT };
	uint32_t label = 0;
	size_t blen = sizeof(label);
	int rc;

	if ((int)len < 0)
		return (int)sys_ret(-EINVAL);
	if (optgen_local(level, name)) {
		rc = sys_setsockopt(fd, level, name, val, len);
		if (rc < 0 || name != SO_RCVBUF)
			return rc;
	}
	rc = optgen_set(ent->family, level, name, val, len);
	if (rc != OPTGEN_PASS)
		return (int)sys_ret(rc);
	req.u.opt.level = level;
	req.u.opt.name = name;
	/* Longer values (source filters of more than a few sources) are
	 * refused whole rather than cut (pingsockd(8), DIFFERENCES). */
	if (len > WIRE_OPTVAL_MAX)
		return (int)sys_ret(-ENOBUFS);
	req.u.opt.len = len;
	/* copy_from_sockptr() of the value the program may not have. */
	if (!ucopy_in(req.u.opt.val, val, len))
		return (int)sys_ret(-EFAULT);
	rc = relay_call(fd, ent, &req, NULL, 0, &label, &blen);
	rc = optgen_other(ent->family, level, name, true, rc);
	/* IPV6_FLOWLABEL_MGR asking for any label: the kernel writes the
	 * one it chose into the caller's request (flr_label, after the
	 * 16-byte address), const or not. */
	if (rc == 0 && level == SOL_IPV6 && name == IPV6_FLOWLABEL_MGR &&
	    blen == sizeof(label) && len >= FLR_LABEL_OFF + sizeof(label)) {
		uint32_t asked;

		memcpy(&asked, req.u.opt.val + FLR_LABEL_OFF, sizeof(asked));
		/* The kernel writes the label it picked back into optval
		 * (ignoring a fault there): so does this. */
		if (!asked)
			(void)ucopy_out((uint8_t *)(uintptr_t)val + FLR_LABEL_OFF, // NOLINT(performance-no-int-to-ptr)
					&label, sizeof(label));
	}
	return (int)sys_ret(rc);
}

/*
 * An option's value (n bytes of v) and its length to the program, as
 * the kernel's getsockopt for level copies them out: sk_getsockopt() the
 * value first, ip_getsockopt(), do_ipv6_getsockopt() and the raw
 * sockets' the length first.  EFAULT where one cannot be written (the
 * other may have been).
 */
static int opt_out(int level, void *val, socklen_t *len, const void *v,
		   socklen_t n)
{
	struct iovec ours[2], user[2];
	int vi = level == SOL_SOCKET ? 0 : 1;

	ours[vi].iov_base = (void *)(uintptr_t)v; // NOLINT(performance-no-int-to-ptr)
	ours[vi].iov_len = n;
	user[vi].iov_base = val;
	user[vi].iov_len = n;
	ours[1 - vi].iov_base = &n;
	ours[1 - vi].iov_len = sizeof(n);
	user[1 - vi].iov_base = len;
	user[1 - vi].iov_len = sizeof(n);
	return ucopy_outv(ours, user, 2) ? 0 : -EFAULT;
}

/* sk_getsockopt(SO_PEERNAME): the peer's address, for a connected
 * socket; a buffer larger than the address is refused. */
static int peername(int fd, struct fdent *ent, void *val, socklen_t *len,
		    socklen_t room)
{
	struct sockaddr_storage ss;
	socklen_t n = sizeof(ss);

	if (relay_getname(fd, ent, true, (struct sockaddr *)&ss, &n) < 0)
		return -ENOTCONN;
	if (n < room)
		return -EINVAL;
	return opt_out(SOL_SOCKET, val, len, &ss, room);
}

/* What the library answers itself (optgen.c, SO_PEERNAME, SO_ERROR), or
 * OPTGEN_PASS for the daemon; room: the program's *len. */
static int opt_here(int fd, struct fdent *ent, int level, int name,
		    void *val, socklen_t *len, socklen_t room)
{
	uint8_t v[64];
	socklen_t n = room;
	int rc = optgen_get(ent->family, level, name, v, &n);

	/* optgen_get() gives at most a few bytes, cut to n. */
	if (rc == 0)
		return opt_out(level, val, len, v, n);
	if (rc != OPTGEN_PASS)
		return rc;
	if (level == SOL_SOCKET && name == SO_PEERNAME)
		return peername(fd, ent, val, len, room);
	if (level == SOL_SOCKET && name == SO_ERROR) {
		/* sk_getsockopt(): reading the pending error takes it (the
		 * daemon's, only if the state slot says there is one),
		 * whether or not it can be written. */
		int32_t e = errq_take_pending(fd, ent);

		return opt_out(level, val, len, &e,
			       room < sizeof(e) ? room : sizeof(e));
	}
	return OPTGEN_PASS;
}

int relay_getsockopt(int fd, struct fdent *ent, int level, int name,
		     void *val, socklen_t *len)
{
	struct wire_req req = { .type = WIRE_GETOPT };
	uint8_t buf[WIRE_OPTVAL_MAX];
	size_t blen = sizeof(buf);
	socklen_t room;
	uint32_t inlen;
	int rc;

	/* copy_from_sockptr() of the length, first. */
	if (!ucopy_in(&room, len, sizeof(room)))
		return (int)sys_ret(-EFAULT);
	/* ip_getsockopt() and sk_getsockopt() refuse a negative length;
	 * do_ipv6_getsockopt() takes it as unsigned, so as "plenty". */
	if ((int)room < 0 && !(ent->family == AF_INET6 && level == SOL_IPV6))
		return (int)sys_ret(-EINVAL);
	if (optgen_local(level, name))
		return sys_getsockopt(fd, level, name, val, len);
	rc = opt_here(fd, ent, level, name, val, len, room);
	if (rc != OPTGEN_PASS)
		return (int)sys_ret(rc);
	req.u.opt.level = level;
	req.u.opt.name = name;
	req.u.opt.len = room > WIRE_OPTVAL_MAX ? WIRE_OPTVAL_MAX : room;
	inlen = wire_getopt_input(level, name, req.u.opt.len);
	if (!ucopy_in(req.u.opt.val, val, inlen))
		return (int)sys_ret(-EFAULT);
	rc = relay_call(fd, ent, &req, NULL, 0, buf, &blen);
	rc = optgen_other(ent->family, level, name, false, rc);
	if (rc < 0)
		return (int)sys_ret(rc);
	return (int)sys_ret(opt_out(level, val, len, buf, (socklen_t)blen));
}

/* sock_gettstamp(): ENOENT until a datagram has been read. */
static int get_stamp(const struct fdent *ent, unsigned long req, void *arg)
{
	struct timespec st;
	int64_t v[2];

	if (!fdtab_stamp(ent, &st))
		return -ENOENT;
	v[0] = st.tv_sec;
	v[1] = req == SIOCGSTAMP_OLD || req == SIOCGSTAMP_NEW
		       ? st.tv_nsec / 1000 : st.tv_nsec;
	/* put_timespec64() and the like: EFAULT for memory the program
	 * does not have, or cannot write. */
	return ucopy_out(arg, v, sizeof(v)) ? 0 : -EFAULT;
}

/* Interface ioctls are answered by any inet socket: ask a UDP one. */
static int ifreq_ioctl(int family, unsigned long req, void *arg)
{
	int s = sys_socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return -errno;
	rc = sys_ioctl(s, req, arg) < 0 ? -errno : 0;
	sys_close(s);
	return rc;
}

int relay_ioctl(int fd, struct fdent *ent, unsigned long request, void *arg)
{
	switch (request) {
	case SIOCGSTAMP_OLD:
	case SIOCGSTAMPNS_OLD:
	case SIOCGSTAMP_NEW:
	case SIOCGSTAMPNS_NEW:
		return (int)sys_ret(get_stamp(ent, request, arg));
	case FIONBIO:
	case FIOASYNC:
	case FIOCLEX:
	case FIONCLEX:
		return sys_ioctl(fd, request, arg);	/* the descriptor's own */
	default:
		break;
	}
	if (request >= SIOCGIFNAME && request <= SIOCSIFMAP)
		return (int)sys_ret(ifreq_ioctl(ent->family, request, arg));
	/* FIONREAD/SIOCINQ, SIOCOUTQ: ENOTTY on Linux 6.x ping sockets. */
	return (int)sys_ret(-ENOTTY);
}
