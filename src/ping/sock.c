/*
 * sock - see sock.h.
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
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ping/echo.h"
#include "pingsock.h"

#define IPHDR 20

int sock_open(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd < 0) {
		int err = errno;
		const char *why = pingsock_why();

		error(0, err, "socket");
		if (why && *why)
			error(0, 0, "%s", why);
		exit(2);
	}
	return fd;
}

void sock_set_tos(int fd, int tos)
{
	if (pingsock_setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
		error(2, errno, "setsockopt");
}

void sock_resolve(const char *target, struct ping_target *t)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_DGRAM,
				  .ai_protocol = IPPROTO_UDP,
				  .ai_flags = AI_CANONNAME };
	struct addrinfo *res;
	int rc;

	memset(t, 0, sizeof(*t));
	t->dst.sin_family = AF_INET;
	t->src.sin_family = AF_INET;
	/* inet_aton, not inet_pton: iputils takes "127.1" as an address
	 * and keeps the spelling in its output. */
	if (inet_aton(target, &t->dst.sin_addr)) {
		snprintf(t->name, sizeof(t->name), "%s", target);
		t->numeric = true;
		return;
	}
	rc = getaddrinfo(target, NULL, &hints, &res);
	if (rc)
		error(2, 0, "%s: %s", target, gai_strerror(rc));
	memcpy(&t->dst, res->ai_addr, sizeof(t->dst));
	t->dst.sin_port = 0;
	snprintf(t->name, sizeof(t->name), "%s",
		 res->ai_canonname ? res->ai_canonname : "");
	freeaddrinfo(res);
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
		    a->sin_addr.s_addr == t->src.sin_addr.s_addr)
			break;
	}
	if (ifa && t->src.sin_addr.s_addr == t->dst.sin_addr.s_addr)
		(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "",
					  0);
	freeifaddrs(all);
	if (!ifa)
		error(0, 0, "Warning: source address might be selected on "
		      "device other than: %s", dev);
}

/* The source the kernel's route would pick, from a connected UDP socket. */
static void probe_source(int fd, const struct ping_opts *o,
			 struct ping_target *t)
{
	struct sockaddr_in dst = t->dst;
	socklen_t alen = sizeof(t->src);
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
	dst.sin_port = htons(1025);
	if (connect(probe, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
		/* EACCES: a broadcast address; iputils wants -b for it,
		 * which this ping does not offer. */
		if (errno == EACCES)
			error(2, 0, "Do you want to ping broadcast? Then -b. "
			      "If not, check your local firewall rules");
		error(2, errno, "connect");
	}
	if (getsockname(probe, (struct sockaddr *)&t->src, &alen) < 0)
		error(2, errno, "getsockname");
	t->src.sin_port = 0;
	if (o->device)
		check_device_source(fd, o->device, t);
	close(probe);
}

void sock_route(int fd, const struct ping_opts *o, struct ping_target *t)
{
	if (o->strict_source) {
		t->src.sin_addr = o->source;
		if (o->device)
			bind_device(fd, true, o->device);
	} else {
		probe_source(fd, o, t);
	}
	/* "ping 0.0.0.0" pings the source itself. */
	if (t->dst.sin_addr.s_addr == INADDR_ANY)
		t->dst.sin_addr = t->src.sin_addr;
	if (o->device) {
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->device);
		if (pingsock_ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
			error(2, 0, "unknown iface: %s", o->device);
	}
	if (o->strict_source &&
	    pingsock_bind(fd, (struct sockaddr *)&t->src, sizeof(t->src)) < 0)
		error(2, errno, "bind");
}

static void set_bufs(int fd, size_t datalen)
{
	/* iputils' estimate of what one packet costs the kernel. */
	long long one = (long long)datalen + ECHO_HDRLEN;
	int hold, want, got;
	socklen_t len = sizeof(got);

	one += ((one + 511) / 512) * (IPHDR + 16 + 64 + 160);
	hold = one > INT_MAX ? INT_MAX : (int)one;
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &hold,
				  sizeof(hold));
	want = hold;
	if (hold < 65536)
		hold = 65536;
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &hold,
				  sizeof(hold));
	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) == 0 &&
	    got < want)
		error(0, 0, "WARNING: probably, rcvbuf is not enough to hold "
		      "preload");
}

void sock_options(int fd, const struct ping_opts *o)
{
	int on = 1;

	/* Errors for our requests arrive on the error queue (with the
	 * offender), not as a bare errno on the next call. */
	if (pingsock_setsockopt(fd, SOL_IP, IP_RECVERR, &on, sizeof(on)))
		error(0, 0, "WARNING: your kernel is veeery old. No problems.");
	/* A ping socket has no IP header to read the TTL from. */
	if (pingsock_setsockopt(fd, SOL_IP, IP_RECVTTL, &on, sizeof(on)))
		error(0, errno, "WARNING: setsockopt(IP_RECVTTL)");
	if (pingsock_setsockopt(fd, SOL_IP, IP_RETOPTS, &on, sizeof(on)))
		error(0, errno, "WARNING: setsockopt(IP_RETOPTS)");
	set_bufs(fd, o->datalen);
	if (o->ttl >= 0) {
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL,
					&o->ttl, sizeof(o->ttl)) < 0)
			error(2, errno, "cannot set multicast time-to-live");
		if (pingsock_setsockopt(fd, IPPROTO_IP, IP_TTL, &o->ttl,
					sizeof(o->ttl)) < 0)
			error(2, errno, "cannot set unicast time-to-live");
	}
}

bool sock_timing(int fd, int interval)
{
	int on = 1;
	bool stamps = true;
	struct timeval tv = { .tv_sec = 1 };

	/* Nanosecond kernel stamps: the RTT then excludes our own wake-up
	 * (and, through pingsockd, the relay's receive side). */
	if (pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on,
				sizeof(on))) {
		error(0, 0, "Warning: no SO_TIMESTAMP support, falling back "
		      "to SIOCGSTAMP");
		stamps = false;
	}
	/* Never block a send for longer than a second, or the interval
	 * when that is shorter (a stalled device must not stall ping). */
	if (interval < 1000) {
		int ms = interval < PING_SCHED_MIN ? PING_SCHED_MIN : interval;

		tv.tv_sec = 0;
		tv.tv_usec = 1000L * ms;
	}
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				  sizeof(tv));
	return stamps;
}
