/* SPDX-License-Identifier: ISC */
/*
 * sock - see sock.h (IPv4; sock6.c does IPv6).
 *
 * Only the ping socket goes through libpingsock.  The route probe is a
 * plain UDP socket, as in iputils: any user may open one, and connect()
 * on it asks the kernel which source address the route would use.
 */
#include "ping/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <error.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ping/echo.h"
#include "ping/rrts.h"
#include "pingsock.h"

#define IPHDR 20

void sock_resolve(const char *target, const struct addrinfo *ai,
		  struct ping_target *t)
{
	memset(t, 0, sizeof(*t));
	t->family = AF_INET;
	t->salen = sizeof(t->dst.v4);
	t->dst.v4.sin_family = AF_INET;
	t->src.v4.sin_family = AF_INET;
	/* inet_aton, not inet_pton: iputils takes "127.1" as an address
	 * and keeps the spelling in its output. */
	if (inet_aton(target, &t->dst.v4.sin_addr)) {
		snprintf(t->name, sizeof(t->name), "%s", target);
		t->numeric = true;
		return;
	}
	memcpy(&t->dst.v4, ai->ai_addr, sizeof(t->dst.v4));
	t->dst.v4.sin_port = 0;
	snprintf(t->name, sizeof(t->name), "%s",
		 ai->ai_canonname ? ai->ai_canonname : "");
}

/* One hop of -T tsprespec: an address, or a name resolved for IPv4. */
static struct in_addr resolve_hop(const char *name)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_protocol = IPPROTO_UDP };
	struct addrinfo *res;
	struct in_addr a;
	int rc;

	if (inet_aton(name, &a))
		return a;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc)
		error(2, 0, "%s: %s", name, gai_strerror(rc));
	a = ((const struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return a;
}

void sock_resolve_hops(const struct ping_opts *o, struct ping_target *t)
{
	for (int i = 0; i < o->nhops; i++)
		t->hops[i] = resolve_hop(o->hops[i]);
	t->nhops = o->nhops;
}

static void bind_device(int fd, bool ping_fd, const char *dev)
{
	socklen_t len = (socklen_t)strlen(dev) + 1;
	int rc = ping_fd ? pingsock_setsockopt(fd, SOL_SOCKET,
					       SO_BINDTODEVICE, dev, len)
			 : setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
				      len);

	/* pingsockd may not carry this option yet: ENOPROTOOPT is said as
	 * any other errno. */
	if (rc < 0)
		error(2, errno, "SO_BINDTODEVICE %s", dev);
}

/*
 * iputils' check that the source the route chose is one of the device's
 * own addresses.  When that address is the target itself the device
 * binding is dropped: a packet to a local address never leaves through
 * the device, and a bound socket would not see its reply.
 */
static void check_device_source(int fd, const char *dev,
				const struct ping_target *t)
{
	struct ifaddrs *all, *ifa;

	if (getifaddrs(&all))
		error(2, errno, "gatifaddrs failed");	/* [sic] iputils */
	for (ifa = all; ifa; ifa = ifa->ifa_next) {
		const struct sockaddr_in *a;

		if (!ifa->ifa_name || !ifa->ifa_addr ||
		    ifa->ifa_addr->sa_family != AF_INET)
			continue;
		a = (const struct sockaddr_in *)ifa->ifa_addr;
		if (strcmp(ifa->ifa_name, dev) == 0 &&
		    a->sin_addr.s_addr == t->src.v4.sin_addr.s_addr)
			break;
	}
	if (ifa && t->src.v4.sin_addr.s_addr == t->dst.v4.sin_addr.s_addr)
		(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "",
					  0);
	freeifaddrs(all);
	if (!ifa)
		error(0, 0, "Warning: source address might be selected on "
		      "device other than: %s", dev);
}

/*
 * The probe's connect() failed.  EACCES is a broadcast address: without
 * -b, iputils asks whether that was meant; with it, it warns (a plain
 * line, not an error) and tries again with SO_BROADCAST.  No route is
 * fatal unless the name has another address to try (retry): false then.
 */
static bool connect_failed(int probe, const struct ping_opts *o,
			   const struct sockaddr_in *dst, bool retry)
{
	int on = 1;

	if ((errno == EHOSTUNREACH || errno == ENETUNREACH) && retry)
		return false;
	if (errno != EACCES)
		error(2, errno, "connect");
	if (!o->broadcast)
		error(2, 0, "Do you want to ping broadcast? Then -b. If not, "
		      "check your local firewall rules");
	fprintf(stderr, "WARNING: pinging broadcast address\n");
	if (setsockopt(probe, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)) < 0)
		error(2, errno, "cannot set broadcasting");
	if (connect(probe, (const struct sockaddr *)dst, sizeof(*dst)) < 0)
		error(2, errno, "connect");
	return true;
}

/*
 * The source the kernel's route would pick, from a connected UDP socket;
 * false: no route, and another address to try (retry).
 */
static bool probe_source(int fd, const struct ping_opts *o,
			 struct ping_target *t, bool retry)
{
	struct sockaddr_in dst = t->route_dst;
	socklen_t alen = sizeof(t->src.v4);
	int probe = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (probe < 0)
		error(2, errno, "socket");
	if (o->device) {
		bind_device(probe, false, o->device);
		bind_device(fd, true, o->device);
	}
	if (o->tos && setsockopt(probe, IPPROTO_IP, IP_TOS, &o->tos,
				 sizeof(o->tos)) < 0)
		error(0, errno, "warning: QOS sockopts");
	sock_set_mark(probe, true, o);
	if (connect(probe, (struct sockaddr *)&dst, sizeof(dst)) < 0 &&
	    !connect_failed(probe, o, &dst, retry)) {
		close(probe);
		return false;
	}
	if (getsockname(probe, &t->src.sa, &alen) < 0)
		error(2, errno, "getsockname");
	t->src.v4.sin_port = 0;
	if (o->device)
		check_device_source(fd, o->device, t);
	close(probe);
	return true;
}

/*
 * iputils treats -b and a multicast destination alike ("multicast"):
 * users must keep to an interval of a second and may not fragment, and
 * the default becomes "do" rather than the kernel's "want".
 */
static void pmtu_discovery(int fd, const struct ping_opts *o,
			   struct ping_target *t)
{
	int mode = o->pmtudisc;

	t->multicast = o->broadcast ||
		       IN_MULTICAST(ntohl(t->dst.v4.sin_addr.s_addr));
	if (t->multicast) {
		if (getuid() != 0 && o->interval < 1000)
			error(2, 0, "broadcast ping with too short interval: "
			      "%d", o->interval);
		if (getuid() != 0 && mode >= 0 && mode != IP_PMTUDISC_DO)
			error(2, 0, "broadcast ping does not fragment");
		if (mode < 0)
			mode = IP_PMTUDISC_DO;
	}
	if (mode >= 0 && pingsock_setsockopt(fd, SOL_IP, IP_MTU_DISCOVER,
					     &mode, sizeof(mode)) < 0)
		error(2, errno, "IP_MTU_DISCOVER");
}

/*
 * -I ADDRESS and -B bind to the source; so does -e, with the identifier
 * as the port (a ping socket's identifier is its port), to the source
 * the route chose.
 */
static void bind_source(int fd, const struct ping_opts *o,
			const struct ping_target *t)
{
	struct sockaddr_in src = t->src.v4;

	if (!o->strict_source && o->ident <= 0)
		return;
	src.sin_port = htons(o->ident > 0 ? (uint16_t)o->ident : 0);
	if (pingsock_bind(fd, (const struct sockaddr *)&src, sizeof(src)) < 0)
		error(2, errno, "bind");
}

bool sock_route(int fd, const struct ping_opts *o, struct ping_target *t,
		bool retry)
{
	/* With -T tsprespec the route is the first hop's. */
	t->route_dst = t->dst.v4;
	t->route_dst.sin_port = htons(1025);
	if (t->nhops)
		t->route_dst.sin_addr = t->hops[0];
	/* Only a source of this family saves the probe (-I 0.0.0.0, or an
	 * IPv6 -I, still binds, to the source the probe finds). */
	if (o->source.s_addr != INADDR_ANY) {
		t->src.v4.sin_addr = o->source;
		if (o->device)
			bind_device(fd, true, o->device);
	} else if (!probe_source(fd, o, t, retry)) {
		return false;
	}
	/* "ping 0.0.0.0" pings the source itself. */
	if (t->dst.v4.sin_addr.s_addr == INADDR_ANY)
		t->dst.v4.sin_addr = t->src.v4.sin_addr;
	if (o->device) {
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->device);
		if (pingsock_ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
			error(2, 0, "unknown iface: %s", o->device);
	}
	pmtu_discovery(fd, o, t);
	bind_source(fd, o, t);
	return true;
}

void sock_set_bufs(int fd, const struct ping_opts *o, size_t hdrlen)
{
	/* iputils' estimate of what one packet costs the kernel. */
	long long one = (long long)o->datalen + ECHO_HDRLEN;
	long long all;
	int hold, want, got;
	socklen_t len = sizeof(got);

	one += ((one + 511) / 512) *
	       ((long long)hdrlen + 16 + 64 + 160);
	hold = one > INT_MAX ? INT_MAX : (int)one;
	if (o->sndbuf)
		hold = o->sndbuf;
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &hold,
				  sizeof(hold));
	/* Room for a preload's worth of replies (the estimate's, -S or
	 * not). */
	hold = one > INT_MAX ? INT_MAX : (int)one;
	all = (long long)hold * o->preload;
	want = hold = all > INT_MAX ? INT_MAX : (int)all;
	if (hold < 65536)
		hold = 65536;
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &hold,
				  sizeof(hold));
	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) == 0 &&
	    got < want)
		error(0, 0, "WARNING: probably, rcvbuf is not enough to hold "
		      "preload");
}

/*
 * -R, -T: IP_OPTIONS, whose failure (a daemon without them says
 * ENOPROTOOPT) is fatal with iputils' wording.  A timestamp option the
 * kernel refuses is tried once more with flag 2, as iputils does.
 * Returns the bytes reserved for options, 40 as in iputils.
 */
static size_t ip_options(int fd, const struct ping_opts *o,
			 const struct ping_target *t)
{
	uint8_t buf[RRTS_SPACE];
	size_t len;

	if (o->rroute) {
		len = rrts_build_rr(buf);
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_OPTIONS, buf,
					(socklen_t)len) < 0)
			error(2, errno, "record route");
		return RRTS_SPACE;
	}
	if (o->ts_type == PING_TS_NONE)
		return 0;
	len = rrts_build_ts(buf, o->ts_type, t->hops, t->nhops);
	if (pingsock_setsockopt(fd, IPPROTO_IP, IP_OPTIONS, buf,
				(socklen_t)len) < 0) {
		buf[3] = 2;
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_OPTIONS, buf,
					(socklen_t)len) < 0)
			error(2, errno, "ts option");
	}
	return RRTS_SPACE;
}

size_t sock_options(int fd, const struct ping_opts *o,
		    const struct ping_target *t)
{
	int on = 1, off = 0;
	size_t optlen;

	/* Errors for our requests arrive on the error queue (with the
	 * offender), not as a bare errno on the next call. */
	if (pingsock_setsockopt(fd, SOL_IP, IP_RECVERR, &on, sizeof(on)))
		error(0, 0, "WARNING: your kernel is veeery old. No problems.");
	/* A ping socket has no IP header to read the TTL from. */
	if (pingsock_setsockopt(fd, SOL_IP, IP_RECVTTL, &on, sizeof(on)))
		error(0, errno, "WARNING: setsockopt(IP_RECVTTL)");
	if (pingsock_setsockopt(fd, SOL_IP, IP_RETOPTS, &on, sizeof(on)))
		error(0, errno, "WARNING: setsockopt(IP_RETOPTS)");
	optlen = ip_options(fd, o, t);
	sock_set_bufs(fd, o, optlen + IPHDR);
	if (o->broadcast && pingsock_setsockopt(fd, SOL_SOCKET, SO_BROADCAST,
						&on, sizeof(on)) < 0)
		error(2, errno, "cannot set broadcasting");
	if (o->noloop && pingsock_setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP,
					     &off, sizeof(off)) < 0)
		error(2, errno, "cannot disable multicast loopback");
	if (o->ttl >= 0) {
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL,
					&o->ttl, sizeof(o->ttl)) < 0)
			error(2, errno, "cannot set multicast time-to-live");
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_TTL, &o->ttl,
					sizeof(o->ttl)) < 0)
			error(2, errno, "cannot set unicast time-to-live");
	}
	return optlen;
}

void sock_set_mark(int fd, bool probe, const struct ping_opts *o)
{
	int rc;

	if (!o->mark_set)
		return;
	rc = probe ? setsockopt(fd, SOL_SOCKET, SO_MARK, &o->mark,
				sizeof(o->mark))
		   : pingsock_setsockopt(fd, SOL_SOCKET, SO_MARK, &o->mark,
					 sizeof(o->mark));
	/* Marks need CAP_NET_ADMIN: without it iputils warns, once for
	 * each socket, and the packets go unmarked. */
	if (rc < 0)
		error(0, errno, "WARNING: failed to set mark: %u", o->mark);
}
