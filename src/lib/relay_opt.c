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
	if (len && !val)
		return (int)sys_ret(-EFAULT);
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
	if (req.u.opt.len)
		memcpy(req.u.opt.val, val, req.u.opt.len);
	rc = relay_call(fd, ent, &req, NULL, 0, &label, &blen);
	rc = optgen_other(ent->family, level, name, true, rc);
	/* IPV6_FLOWLABEL_MGR asking for any label: the kernel writes the
	 * one it chose into the caller's request (flr_label, after the
	 * 16-byte address), const or not. */
	if (rc == 0 && level == SOL_IPV6 && name == IPV6_FLOWLABEL_MGR &&
	    blen == sizeof(label) && len >= FLR_LABEL_OFF + sizeof(label)) {
		uint32_t asked;

		memcpy(&asked, (const uint8_t *)val + FLR_LABEL_OFF,
		       sizeof(asked));
		if (!asked)
			/* The kernel writes the label it picked back into
			 * optval: so does this. */
			memcpy((uint8_t *)(uintptr_t)val + FLR_LABEL_OFF, &label, // NOLINT(performance-no-int-to-ptr)
			       sizeof(label));
	}
	return (int)sys_ret(rc);
}

/* sk_getsockopt(SO_PEERNAME): the peer's address, for a connected
 * socket; a buffer larger than the address is refused. */
static int peername(int fd, struct fdent *ent, void *val, socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t n = sizeof(ss);

	if (relay_getname(fd, ent, true, (struct sockaddr *)&ss, &n) < 0)
		return (int)sys_ret(-ENOTCONN);
	if (n < *len)
		return (int)sys_ret(-EINVAL);
	if (*len && !val)
		return (int)sys_ret(-EFAULT);
	memcpy(val, &ss, *len);
	return 0;
}

int relay_getsockopt(int fd, struct fdent *ent, int level, int name,
		     void *val, socklen_t *len)
{
	struct wire_req req = { .type = WIRE_GETOPT };
	uint8_t buf[WIRE_OPTVAL_MAX];
	size_t blen = sizeof(buf);
	uint32_t inlen;
	int rc;

	if (!len)
		return (int)sys_ret(-EFAULT);
	/* ip_getsockopt() and sk_getsockopt() refuse a negative length;
	 * do_ipv6_getsockopt() takes it as unsigned, so as "plenty". */
	if ((int)*len < 0 && !(ent->family == AF_INET6 && level == SOL_IPV6))
		return (int)sys_ret(-EINVAL);
	if (optgen_local(level, name))
		return sys_getsockopt(fd, level, name, val, len);
	rc = optgen_get(ent->family, level, name, val, len);
	if (rc != OPTGEN_PASS)
		return (int)sys_ret(rc);
	if (level == SOL_SOCKET && name == SO_PEERNAME)
		return peername(fd, ent, val, len);
	if (level == SOL_SOCKET && name == SO_ERROR) {
		/* sk_getsockopt(): reading the pending error takes it (the
		 * daemon's, only if the state slot says there is one). */
		int v = errq_take_pending(fd, ent);
		socklen_t n = *len < sizeof(v) ? *len : sizeof(v);

		if (n && !val)
			return (int)sys_ret(-EFAULT);
		memcpy(val, &v, n);
		*len = n;
		return 0;
	}
	req.u.opt.level = level;
	req.u.opt.name = name;
	req.u.opt.len = *len > WIRE_OPTVAL_MAX ? WIRE_OPTVAL_MAX : *len;
	inlen = wire_getopt_input(level, name, req.u.opt.len);
	if (inlen && !val)
		return (int)sys_ret(-EFAULT);
	if (inlen)
		memcpy(req.u.opt.val, val, inlen);
	rc = relay_call(fd, ent, &req, NULL, 0, buf, &blen);
	rc = optgen_other(ent->family, level, name, false, rc);
	if (rc < 0)
		return (int)sys_ret(rc);
	if (blen && !val)
		return (int)sys_ret(-EFAULT);
	memcpy(val, buf, blen);
	*len = (socklen_t)blen;
	return 0;
}

/* sock_gettstamp(): ENOENT until a datagram has been read. */
static int get_stamp(const struct fdent *ent, unsigned long req, void *arg)
{
	struct timespec st;

	if (!fdtab_stamp(ent, &st))
		return -ENOENT;
	if (!arg)
		return -EFAULT;
	if (req == SIOCGSTAMP_OLD || req == SIOCGSTAMP_NEW) {
		int64_t tv[2] = { st.tv_sec, st.tv_nsec / 1000 };

		memcpy(arg, tv, sizeof(tv));
	} else {
		int64_t ts[2] = { st.tv_sec, st.tv_nsec };

		memcpy(arg, ts, sizeof(ts));
	}
	return 0;
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
