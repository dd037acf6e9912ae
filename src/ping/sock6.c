/* SPDX-License-Identifier: ISC */
/*
 * sock6 - see sock6.h.
 *
 * As for IPv4, only the ping socket goes through libpingsock; the route
 * probe is a plain UDP socket.
 */
#include "ping/sock6.h"

#include <errno.h>
#include <error.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/in6.h>

#include "pingsock.h"

#define IP6HDR 40

void sock6_resolve(const char *target, const struct addrinfo *ai,
		   struct ping_target *t)
{
	const uint8_t *b;

	memset(t, 0, sizeof(*t));
	t->family = AF_INET6;
	t->salen = sizeof(t->dst.v6);
	memcpy(&t->dst.v6, ai->ai_addr, sizeof(t->dst.v6));
	t->dst.v6.sin6_port = 0;
	t->src.v6.sin6_family = AF_INET6;
	snprintf(t->name, sizeof(t->name), "%s", target);
	t->numeric = strchr(target, ':') != NULL;
	/* iputils' "Subnet-Router anycast" test, for a /64. */
	b = t->dst.v6.sin6_addr.s6_addr;
	t->anycast = true;
	for (int i = 8; i < 16; i++)
		if (b[i])
			t->anycast = false;
}

static bool link_scoped(const struct in6_addr *a)
{
	return IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_MC_LINKLOCAL(a);
}

static unsigned ifindex(const char *dev)
{
	unsigned i = if_nametoindex(dev);

	if (!i)
		error(2, 0, "unknown iface: %s", dev);
	return i;
}

/*
 * -I DEVICE without a source address: the probe and the ping socket
 * both send through it (sticky IPV6_PKTINFO, SO_BINDTODEVICE), and a
 * link-local destination takes its scope from it.
 */
static void probe_device(int probe, int fd, const char *dev,
			 struct sockaddr_in6 *firsthop)
{
	struct in6_pktinfo ipi;
	socklen_t len = (socklen_t)strlen(dev) + 1;

	memset(&ipi, 0, sizeof(ipi));
	ipi.ipi6_ifindex = ifindex(dev);
	if (link_scoped(&firsthop->sin6_addr))
		firsthop->sin6_scope_id = ipi.ipi6_ifindex;
	if (setsockopt(probe, IPPROTO_IPV6, IPV6_PKTINFO, &ipi,
		       sizeof(ipi)) < 0 ||
	    pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_PKTINFO, &ipi,
				sizeof(ipi)) < 0)
		error(2, errno, "setsockopt(IPV6_PKTINFO)");
	if (setsockopt(probe, SOL_SOCKET, SO_BINDTODEVICE, dev, len) < 0 ||
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, len) < 0)
		error(2, errno, "setsockopt(SO_BINDTODEVICE) %s", dev);
}

/* iputils' check that the source is one of the device's addresses. */
static void check_device_source(const char *dev, const struct in6_addr *src)
{
	struct ifaddrs *all, *ifa;

	if (getifaddrs(&all))
		error(2, errno, "getifaddrs");
	for (ifa = all; ifa; ifa = ifa->ifa_next) {
		const struct sockaddr_in6 *a;

		if (!ifa->ifa_name || !ifa->ifa_addr ||
		    ifa->ifa_addr->sa_family != AF_INET6)
			continue;
		a = (const struct sockaddr_in6 *)ifa->ifa_addr;
		if (strcmp(ifa->ifa_name, dev) == 0 &&
		    IN6_ARE_ADDR_EQUAL(&a->sin6_addr, src))
			break;
	}
	if (!ifa)
		error(0, 0, "Warning: source address might be selected on "
		      "device other than: %s", dev);
	freeifaddrs(all);
}

/*
 * The route's source, from a connected UDP socket.  To a link-local
 * destination iputils connects with no family at all, which connects
 * nothing, and the source stays ::: so does this.
 */
static bool probe_source(int fd, const struct ping_opts *o,
			 struct ping_target *t, bool retry)
{
	struct sockaddr_in6 firsthop = t->dst.v6;
	socklen_t alen = sizeof(t->src.v6);
	int probe = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (probe < 0)
		error(2, errno, "socket");
	firsthop.sin6_flowinfo = 0;
	if (o->device)
		probe_device(probe, fd, o->device, &firsthop);
	if (o->tos && setsockopt(probe, IPPROTO_IPV6, IPV6_TCLASS, &o->tos,
				 sizeof(o->tos)) < 0)
		error(2, errno, "setsockopt(IPV6_TCLASS)");
	sock_set_mark(probe, true, o);
	firsthop.sin6_port = htons(1025);
	if (!link_scoped(&firsthop.sin6_addr) &&
	    connect(probe, (struct sockaddr *)&firsthop, sizeof(firsthop)) < 0) {
		if ((errno == EHOSTUNREACH || errno == ENETUNREACH) && retry) {
			close(probe);
			return false;
		}
		error(2, errno, "connect");
	}
	if (getsockname(probe, &t->src.sa, &alen) < 0)
		error(2, errno, "getsockname");
	t->src.v6.sin6_port = 0;
	close(probe);
	if (o->device)
		check_device_source(o->device, &t->src.v6.sin6_addr);
	return true;
}

/*
 * A multicast destination: users must keep to an interval of a second
 * and may not fragment, and the default becomes "do".  Returns the
 * IPV6_MTU_DISCOVER mode, -1 for the kernel's.
 */
static int pmtu_mode(const struct ping_opts *o, struct ping_target *t)
{
	int mode = o->pmtudisc;

	t->multicast = IN6_IS_ADDR_MULTICAST(&t->dst.v6.sin6_addr);
	if (!t->multicast)
		return mode;
	if (getuid() != 0 && o->interval < 1000)
		error(2, 0, "multicast ping with too short interval: %d",
		      o->interval);
	if (getuid() != 0 && mode >= 0 && mode != IPV6_PMTUDISC_DO)
		error(2, 0, "multicast ping does not fragment");
	return mode < 0 ? IPV6_PMTUDISC_DO : mode;
}

/* -I ADDRESS: a link-local one is scoped by the device (-I fe80::1%eth0). */
static void strict_source(const struct ping_opts *o, struct ping_target *t)
{
	t->src.v6.sin6_addr = o->source6;
	if (o->device && link_scoped(&o->source6))
		t->src.v6.sin6_scope_id = ifindex(o->device);
}

/*
 * A device with a source to keep (-I ADDRESS%DEVICE, or -B): the socket
 * is bound to the device here, as iputils does, even when the route
 * probe bound it already, which a user may not do twice (EPERM).
 */
static void strict_device(int fd, const struct ping_opts *o)
{
	if (!o->device)
		return;
	(void)ifindex(o->device);
	if (o->strict_source &&
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, o->device,
				(socklen_t)strlen(o->device) + 1) < 0)
		error(2, errno, "SO_BINDTODEVICE %s", o->device);
}

/* -I ADDRESS, -B and -e bind, as for IPv4 (sock.c). */
static void bind_source(int fd, const struct ping_opts *o,
			const struct ping_target *t)
{
	struct sockaddr_in6 src = t->src.v6;

	if (!o->strict_source && o->ident <= 0)
		return;
	src.sin6_port = htons(o->ident > 0 ? (uint16_t)o->ident : 0);
	if (pingsock_bind(fd, (const struct sockaddr *)&src, sizeof(src)) < 0)
		error(2, errno, "bind icmp socket");
}

bool sock6_route(int fd, const struct ping_opts *o, struct ping_target *t,
		 bool retry)
{
	int mode;

	if (o->nextra)
		opts_usage();	/* iputils: no hops for IPv6 */
	if (IN6_IS_ADDR_UNSPECIFIED(&o->source6)) {
		if (!probe_source(fd, o, t, retry))
			return false;
	} else {
		strict_source(o, t);
	}
	strict_device(fd, o);
	mode = pmtu_mode(o, t);
	if (mode >= 0 && pingsock_setsockopt(fd, IPPROTO_IPV6,
					     IPV6_MTU_DISCOVER, &mode,
					     sizeof(mode)) < 0)
		error(2, errno, "IPV6_MTU_DISCOVER");
	bind_source(fd, o, t);
	return true;
}

/*
 * -F: a flow label of our own (IPV6_FL_F_CREATE, exclusive); for 0 the
 * kernel picks one and writes it back into the request.  Requests then
 * carry it (IPV6_FLOWINFO_SEND and the destination's sin6_flowinfo).
 */
static void flow_label(int fd, const struct ping_opts *o,
		       struct ping_target *t)
{
	struct in6_flowlabel_req freq;
	int on = 1;

	memset(&freq, 0, sizeof(freq));
	freq.flr_label = htonl(o->flowlabel & PING_FLOWLABEL_MASK);
	freq.flr_action = IPV6_FL_A_GET;
	freq.flr_flags = IPV6_FL_F_CREATE;
	freq.flr_share = IPV6_FL_S_EXCL;
	freq.flr_dst = t->dst.v6.sin6_addr;
	if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &freq,
				sizeof(freq)) < 0)
		error(2, errno, "can't set flowlabel");
	t->flowlabel = freq.flr_label;
	t->dst.v6.sin6_flowinfo = freq.flr_label;
	if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &on,
				sizeof(on)) < 0)
		error(2, errno, "can't send flowinfo");
}

void sock6_options(int fd, const struct ping_opts *o, struct ping_target *t)
{
	int on = 1, off = 0;

	if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on,
				sizeof(on)) < 0)
		error(2, errno, "IPV6_RECVERR");
	sock_set_bufs(fd, o, IP6HDR);
	if (o->noloop && pingsock_setsockopt(fd, IPPROTO_IPV6,
					     IPV6_MULTICAST_LOOP, &off,
					     sizeof(off)) < 0)
		error(2, errno, "can't disable multicast loopback");
	if (o->ttl >= 0) {
		if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS,
					&o->ttl, sizeof(o->ttl)) < 0)
			error(2, errno, "can't set multicast hop limit");
		if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS,
					&o->ttl, sizeof(o->ttl)) < 0)
			error(2, errno, "can't set unicast hop limit");
	}
	/* A ping socket has no IPv6 header to read the hop limit from. */
	if (pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &on,
				sizeof(on)) < 0 &&
	    pingsock_setsockopt(fd, IPPROTO_IPV6, IPV6_2292HOPLIMIT, &on,
				sizeof(on)) < 0)
		error(2, errno, "can't receive hop limit");
	if (o->flowinfo)
		flow_label(fd, o, t);
}
