/* SPDX-License-Identifier: ISC */
/*
 * optgen - the socket options of a relayed socket that the library
 * answers without the daemon, as the kernel answers them for a ping
 * socket (the option sweep, tests/conformance/optsweep.c, holds each).
 *
 * Three kinds:
 *  - Generic socket-layer options, which sk_setsockopt()/sk_getsockopt()
 *    treat alike for every socket family: the data descriptor (an AF_UNIX
 *    socket) answers them with the kernel's own checks, limits and
 *    privileges (SO_PRIORITY above 6, SO_MARK, SO_RCVBUF doubling, ...).
 *  - Options whose answer a ping socket's nature fixes: no peer process
 *    (SO_PEERCRED, SO_PEERGROUPS), no credentials or security labels
 *    passed (SO_PASSCRED, SO_PASSSEC: EOPNOTSUPP for an inet socket), no
 *    peek offset, and never a socket filter (see below).
 *  - Options that the kernel hands to other subsystems when the protocol
 *    does not know them: netfilter's ranges and the IPsec policies at
 *    SOL_IP and SOL_IPV6 answer EPERM to a caller without CAP_NET_ADMIN.
 *    A throwaway UDP socket of the family is asked, with no value, so
 *    that it checks the caller's privilege and changes nothing.
 *
 * Sticky IPv6 transmit options (IPV6_HOPOPTS, IPV6_RTHDRDSTOPTS,
 * IPV6_RTHDR, IPV6_DSTOPTS and the RFC 2292 IPV6_PKTOPTIONS): extension
 * headers and per-socket defaults that the relay does not put on its
 * requests.  Clearing them (nothing set) succeeds, and reading them
 * reads nothing, as on a socket that never had any; a value is checked
 * on a throwaway UDP socket (for the extension headers unprivileged
 * callers get the kernel's EPERM there), and one the kernel would take
 * gets EOPNOTSUPP.
 *
 * Socket filters (SO_ATTACH_FILTER, SO_ATTACH_BPF and the reuseport
 * ones) are checked as the kernel checks them, on a throwaway UDP
 * socket: a filter the kernel would refuse gets the kernel's errno; one
 * it would take gets EOPNOTSUPP, since a relayed socket's datagrams are
 * not the packets such a filter is written for (pingsockd(8), DIFFERENCES).
 */
#include "lib/optgen.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/relay.h"
#include "lib/sys.h"

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
/* Linux 6.x numbers that the C library's headers may not have yet. */
#define OPTGEN_SO_DEVMEM_DONTNEED 80
#define OPTGEN_SO_RCVPRIORITY 82
#define OPTGEN_SO_PASSRIGHTS 83

/* Answered by the data descriptor, with the kernel's own checks. */
static const int generic[] = {
	SO_DEBUG, SO_SNDBUF, SO_RCVBUF, SO_KEEPALIVE, SO_OOBINLINE,
	SO_NO_CHECK, SO_PRIORITY, SO_LINGER, SO_BSDCOMPAT, SO_RCVLOWAT,
	SO_SNDLOWAT, SO_RCVTIMEO_OLD, SO_SNDTIMEO_OLD, SO_ACCEPTCONN,
	SO_SNDBUFFORCE, SO_RCVBUFFORCE, SO_MARK, SO_WIFI_STATUS, SO_NOFCS,
	SO_LOCK_FILTER, SO_SELECT_ERR_QUEUE, SO_BUSY_POLL, SO_MAX_PACING_RATE,
	SO_BPF_EXTENSIONS, SO_INCOMING_CPU, SO_CNX_ADVICE, SO_MEMINFO,
	SO_INCOMING_NAPI_ID, SO_COOKIE, SO_ZEROCOPY, SO_TXTIME,
	SO_RCVTIMEO_NEW, SO_SNDTIMEO_NEW, SO_PREFER_BUSY_POLL,
	SO_BUSY_POLL_BUDGET, SO_NETNS_COOKIE, SO_BUF_LOCK, SO_RESERVE_MEM,
	SO_TXREHASH, SO_RCVMARK, OPTGEN_SO_DEVMEM_DONTNEED,
	OPTGEN_SO_RCVPRIORITY,
};

bool optgen_local(int level, int name)
{
	if (level != SOL_SOCKET)
		return false;
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (generic[i] == name)
			return true;
	return false;
}

static bool is_filter(int name)
{
	return name == SO_ATTACH_FILTER || name == SO_ATTACH_BPF ||
	       name == SO_ATTACH_REUSEPORT_CBPF ||
	       name == SO_ATTACH_REUSEPORT_EBPF;
}

/* The same call on a throwaway UDP socket of the family: -errno or 0. */
static int on_udp(int family, int level, int name, const void *val,
		  socklen_t len)
{
	int s = sys_socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return -errno;
	rc = sys_setsockopt(s, level, name, val, len) < 0 ? -errno : 0;
	sys_close(s);
	return rc;
}

/* Credentials, labels and rights an inet socket never passes, and the
 * peek offset ping sockets lack: EOPNOTSUPP, to set and to read. */
static bool never_inet(int name)
{
	return name == SO_PASSCRED || name == SO_PASSSEC ||
	       name == SO_PASSPIDFD || name == OPTGEN_SO_PASSRIGHTS ||
	       name == SO_PEEK_OFF;
}

static bool is_sticky6(int name)
{
	return name == IPV6_2292PKTOPTIONS || name == IPV6_HOPOPTS ||
	       name == IPV6_RTHDRDSTOPTS || name == IPV6_RTHDR ||
	       name == IPV6_DSTOPTS;
}

/* A sticky IPv6 option (is_sticky6()) set on a relayed socket. */
static int set_sticky6(int level, int name, const void *val, socklen_t len)
{
	int rc;

	/* For IPV6_PKTOPTIONS, no whole control message: the options are
	 * cleared, and there are none. */
	if (name == IPV6_2292PKTOPTIONS && len < sizeof(struct cmsghdr))
		return 0;
	rc = on_udp(AF_INET6, level, name, val, len);
	if (rc)
		return rc;
	return len == 0 ? 0 : -EOPNOTSUPP;	/* nothing: cleared */
}

int optgen_set(int family, int level, int name, const void *val,
	       socklen_t len)
{
	int rc;

	if (family == AF_INET6 && level == SOL_IPV6 && is_sticky6(name))
		return set_sticky6(level, name, val, len);
	if (level != SOL_SOCKET)
		return OPTGEN_PASS;
	/* sk_setsockopt() wants an int before it looks at the name. */
	if (len < sizeof(int) && name != SO_BINDTODEVICE)
		return OPTGEN_PASS;
	if (never_inet(name))
		return -EOPNOTSUPP;
	switch (name) {
	case SO_DETACH_FILTER:
		return -ENOENT;	/* there never is one */
	default:
		break;
	}
	if (!is_filter(name))
		return OPTGEN_PASS;
	rc = on_udp(family, level, name, val, len);
	return rc ? rc : -EOPNOTSUPP;
}

/* A fixed value of vlen bytes, cut to *len as sk_getsockopt() does. */
static int give(void *val, socklen_t *len, const void *v, socklen_t vlen)
{
	socklen_t n = *len < vlen ? *len : vlen;

	if (n && !val)
		return -EFAULT;
	if (n)
		memcpy(val, v, n);
	*len = n;
	return 0;
}

int optgen_get(int family, int level, int name, void *val, socklen_t *len)
{
	/* cred_to_ucred() of no peer: pid 0, the overflow ids. */
	static const int32_t nocred[3] = { 0, -1, -1 };

	/* ipv6_getsockopt_sticky(): none set, nothing read. */
	if (family == AF_INET6 && level == SOL_IPV6 && is_sticky6(name) &&
	    name != IPV6_2292PKTOPTIONS) {
		*len = 0;
		return 0;
	}
	if (level != SOL_SOCKET)
		return OPTGEN_PASS;
	if ((int)*len < 0)
		return -EINVAL;
	if (never_inet(name))
		return -EOPNOTSUPP;
	switch (name) {
	case SO_PEERCRED:
		return give(val, len, nocred, sizeof(nocred));
	case SO_PEERGROUPS:
	case SO_PEERPIDFD:
		return -ENODATA;	/* no peer credentials */
	case SO_GET_FILTER:
		*len = 0;	/* no filter: nothing, and no error */
		return 0;
	default:
		return OPTGEN_PASS;
	}
}

/* Asked with no value (len 0), so that the probe checks the caller's
 * privilege and changes nothing. */
static int on_udp_get(int family, int level, int name)
{
	int s = sys_socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;
	socklen_t len = 0;
	uint8_t none;

	if (s < 0)
		return -errno;
	rc = sys_getsockopt(s, level, name, &none, &len) < 0 ? -errno : 0;
	sys_close(s);
	return rc;
}

int optgen_other(int family, int level, int name, bool set, int rc)
{
	int probe;

	if (rc != -ENOPROTOOPT || (level != SOL_IP && level != SOL_IPV6))
		return rc;
	probe = set ? on_udp(family, level, name, NULL, 0)
		    : on_udp_get(family, level, name);
	return probe == -EPERM ? -EPERM : rc;
}
