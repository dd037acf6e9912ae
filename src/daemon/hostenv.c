/* SPDX-License-Identifier: ISC */
#include "daemon/hostenv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/netlink.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct hostenv {
	struct ps_env env;
	int nl;			/* NETLINK_ROUTE, for RTM_GETROUTE */
	int proc_icmp;		/* /proc/net/icmp, re-read with pread */
	int proc_icmp6;		/* /proc/net/icmp6 */
	uint32_t seq;
	struct ifaddrs *ifs;	/* the host's addresses (host_addrs()) */
	uint64_t ifs_ns;	/* when they were read */
};

/*
 * The host's addresses, read again when the last read is more than
 * IFS_FRESH_NS old.  A request can ask about an address many times (25
 * IPV6_PKTINFO messages in one send, each checked as the kernel checks
 * them), and each getifaddrs() is a netlink dump of every link and
 * address: 20-50 us on a small host, far more on one with hundreds of
 * interfaces.  An address added or removed within the last millisecond
 * may be missed, as a send racing the change may be by the kernel.
 */
#define IFS_FRESH_NS 1000000u

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* (A read that failed is kept as none for as long: retrying at once
 * would fail the same way, at the same cost.  The time is taken after
 * the read, however long it took.) */
static const struct ifaddrs *host_addrs(struct hostenv *h)
{
	if (h->ifs_ns && mono_ns() - h->ifs_ns <= IFS_FRESH_NS)
		return h->ifs;
	if (h->ifs)
		freeifaddrs(h->ifs);
	h->ifs = NULL;
	if (getifaddrs(&h->ifs) != 0)
		h->ifs = NULL;
	h->ifs_ns = mono_ns();
	return h->ifs;
}

struct nlreq {
	struct nlmsghdr nh;
	struct rtmsg rt;
	char attrs[64];
};

static void add_attr(struct nlreq *r, int type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = (unsigned short)type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/*
 * The type of the route to addr, as inet_addr_type_dev_table() sees it:
 * RTN_LOCAL for our own addresses, RTN_BROADCAST, RTN_MULTICAST, or
 * unicast (also when there is no route at all).
 */
static int addr_type(void *ctx, const struct ps_addr *addr, uint32_t ifindex)
{
	struct hostenv *h = ctx;
	struct nlreq req;
	char buf[4096];
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++h->seq;
	req.rt.rtm_family = addr->family;
	req.rt.rtm_dst_len = addr->family == AF_INET6 ? 128 : 32;
	add_attr(&req, RTA_DST, addr->a, ps_addr_len(addr->family));
	if (ifindex)
		add_attr(&req, RTA_OIF, &ifindex, sizeof(ifindex));
	if (send(h->nl, &req, req.nh.nlmsg_len, 0) < 0)
		return PS_RTN_UNICAST;
	for (;;) {
		const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;

		n = recv(h->nl, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)NLMSG_HDRLEN || !NLMSG_OK(nh, (size_t)n))
			return PS_RTN_UNICAST;
		if (nh->nlmsg_seq != h->seq)
			continue;	/* a stale answer */
		if (nh->nlmsg_type != RTM_NEWROUTE)
			return PS_RTN_UNICAST;	/* NLMSG_ERROR: no route */
		return ((const struct rtmsg *)NLMSG_DATA(nh))->rtm_type;
	}
}

/* A UDP socket of dst's family, bound to ifindex if given. */
static int probe_socket(const struct ps_addr *dst, uint32_t ifindex)
{
	int fd = socket(dst->family == AF_INET6 ? AF_INET6 : AF_INET,
			SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && ifindex)
		setsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &ifindex,
			   sizeof(ifindex));
	return fd;
}

/* a as a sockaddr of its family, port 9 (any port would do). */
static socklen_t probe_name(const struct ps_addr *a, uint16_t port,
			    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	return ps_addr_to_sockaddr(a, port, ss);
}

/* What ip4_datagram_connect() / ip6_datagram_connect() would do: route,
 * pick a source.  A UDP socket's connect() routes as a ping socket's
 * does, SO_DONTROUTE included (IPv4 looks on-link only, IPv6 ignores
 * it): the kernel itself answers. */
static int route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		 unsigned flags, struct ps_addr *src)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, fd, rc = 0;

	(void)ctx;
	fd = probe_socket(dst, ifindex);
	if (fd < 0)
		return -errno;
	if (flags & PS_ROUTE_BROADCAST)
		setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	if (flags & PS_ROUTE_DONTROUTE)
		setsockopt(fd, SOL_SOCKET, SO_DONTROUTE, &one, sizeof(one));
	if (!ps_addr_is_any(src)) {
		len = probe_name(src, 0, &ss);
		if (bind(fd, (struct sockaddr *)&ss, len) != 0)
			rc = -errno;
	}
	len = probe_name(dst, 9, &ss);
	if (rc == 0 && connect(fd, (struct sockaddr *)&ss, len) != 0)
		rc = -errno;
	len = sizeof(ss);
	if (rc == 0 && getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const void *)&ss;

			memset(src, 0, sizeof(*src));
			src->family = AF_INET6;
			memcpy(src->a, &s6->sin6_addr, 16);
		} else {
			const struct sockaddr_in *s4 = (const void *)&ss;

			ps_addr_v4(src, s4->sin_addr.s_addr);
		}
	}
	close(fd);
	return rc;
}

static int dev_index(void *ctx, const char *name)
{
	unsigned idx = if_nametoindex(name);

	(void)ctx;
	return idx ? (int)idx : -ENODEV;
}

static bool ifa_is(const struct ifaddrs *i, const struct ps_addr *addr)
{
	const struct sockaddr *sa = i->ifa_addr;

	if (!sa || sa->sa_family != addr->family)
		return false;
	if (sa->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)(const void *)sa)
				       ->sin6_addr, addr->a, 16) == 0;
	return memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
		      addr->a, 4) == 0;
}

static int addr_dev(void *ctx, const struct ps_addr *addr)
{
	const struct ifaddrs *i;
	int idx = 0;

	for (i = host_addrs(ctx); i && !idx; i = i->ifa_next)
		if (ifa_is(i, addr))
			idx = (int)if_nametoindex(i->ifa_name);
	return idx;
}

/* ipv6_chk_addr(): on that device, or (not strict) a global address of
 * any device. */
static bool local6(void *ctx, const struct ps_addr *addr, uint32_t ifindex,
		   bool strict)
{
	const struct ifaddrs *i;
	bool found = false;

	for (i = host_addrs(ctx); i && !found; i = i->ifa_next) {
		const struct sockaddr_in6 *s6 = (const void *)i->ifa_addr;
		bool global;

		if (!ifa_is(i, addr))
			continue;
		global = !IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) &&
			 !IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
		found = !ifindex || if_nametoindex(i->ifa_name) == ifindex ||
			(!strict && global);
	}
	return found;
}

static int dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	return if_indextoname(ifindex, buf) ? 0 : -ENODEV;
}

/* IP_MTU / IPV6_MTU of a UDP socket connected the same way. */
static int route_mtu(void *ctx, const struct ps_addr *dst, uint32_t ifindex)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(int), salen;
	int fd, mtu = 0, rc = 0;
	bool v6 = dst->family == AF_INET6;

	(void)ctx;
	fd = probe_socket(dst, ifindex);
	if (fd < 0)
		return -errno;
	salen = probe_name(dst, 9, &ss);
	if (connect(fd, (struct sockaddr *)&ss, salen) != 0 ||
	    getsockopt(fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_MTU : IP_MTU,
		       &mtu, &len) != 0)
		rc = -errno;
	close(fd);
	return rc ? rc : mtu;
}

static int read_sysctl(const char *path, int dflt, int lo, int hi)
{
	FILE *f = fopen(path, "re");
	int v = dflt;

	if (f) {
		if (fscanf(f, "%d", &v) != 1 || v < lo || v > hi)
			v = dflt;
		fclose(f);
	}
	return v;
}

struct hostenv *hostenv_open(char *err, size_t errlen)
{
	struct hostenv *h = calloc(1, sizeof(*h));
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->proc_icmp = h->proc_icmp6 = -1;
	h->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (h->nl < 0 || bind(h->nl, (struct sockaddr *)&snl, sizeof(snl))) {
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(errno));
		hostenv_close(h);
		return NULL;
	}
	/* Optional: without it we only miss the kernel's own idents. */
	h->proc_icmp = open("/proc/net/icmp", O_RDONLY | O_CLOEXEC);
	h->proc_icmp6 = open("/proc/net/icmp6", O_RDONLY | O_CLOEXEC);
	h->env.addr_type = addr_type;
	h->env.route = route;
	h->env.dev_index = dev_index;
	h->env.dev_name = dev_name;
	h->env.addr_dev = addr_dev;
	h->env.route_mtu = route_mtu;
	h->env.local6 = local6;
	h->env.ctx = h;
	h->env.default_ttl = read_sysctl("/proc/sys/net/ipv4/ip_default_ttl",
					 64, 1, 255);
	h->env.nonlocal_bind = read_sysctl("/proc/sys/net/ipv4/ip_nonlocal_bind",
					   0, 0, 1);
	h->env.no_pmtu_disc = read_sysctl("/proc/sys/net/ipv4/ip_no_pmtu_disc",
					  0, 0, 3);
	h->env.default_hoplimit =
		read_sysctl("/proc/sys/net/ipv6/conf/all/hop_limit", 64, 1, 255);
	h->env.nonlocal_bind6 =
		read_sysctl("/proc/sys/net/ipv6/ip_nonlocal_bind", 0, 0, 1);
	/* As the others: read once, at start (before the sandbox), in the
	 * daemon's own network namespace, whose setting the kernel would
	 * apply to its sockets. */
	h->env.flowlabel_state_ranges =
		read_sysctl("/proc/sys/net/ipv6/flowlabel_state_ranges",
			    0, 0, 1);
	return h;
}

void hostenv_close(struct hostenv *h)
{
	if (!h)
		return;
	if (h->nl >= 0)
		close(h->nl);
	if (h->proc_icmp >= 0)
		close(h->proc_icmp);
	if (h->proc_icmp6 >= 0)
		close(h->proc_icmp6);
	if (h->ifs)
		freeifaddrs(h->ifs);
	free(h);
}

const struct ps_env *hostenv_env(struct hostenv *h)
{
	return &h->env;
}

/* Lines look like "   0: 0100007F:9C41 00000000:0000 07 00000000:00000000
 * 00:00000000 00000000  1000        0 123456 2 ..." (icmp6: 32 hex digits
 * of address): the identifier after the first colon-pair, then the uid
 * and the inode. */
/* Room for twice as many inodes: false past HOSTENV_INOS_MAX or without
 * the memory. */
static bool scan_grow(struct hostenv_scan *sc)
{
	size_t cap = sc->cap * 2;
	unsigned long *v;

	if (cap > HOSTENV_INOS_MAX ||
	    !(v = realloc(sc->inos, cap * sizeof(*v))))
		return false;
	sc->inos = v;
	sc->cap = cap;
	return true;
}

static void parse_icmp_line(const char *line, struct hostenv_scan *sc)
{
	unsigned slot, ident;
	unsigned long uid, ino;
	int n = sscanf(line, " %u: %*[0-9A-Fa-f]:%x %*s %*s %*s %*s %*s %lu %*s "
		       "%lu", &slot, &ident, &uid, &ino);

	if (n < 2 || ident >= 65536)
		return;
	sc->bitmap[ident / 8] |= (uint8_t)(1u << (ident % 8));
	if (n != 4 || uid != sc->owner || !sc->cap)
		return;
	if (sc->n == sc->cap && !scan_grow(sc))
		sc->overflow = true;
	else
		sc->inos[sc->n++] = ino;
}

int hostenv_kernel_scan(struct hostenv *h, int family,
			struct hostenv_scan *sc)
{
	static char buf[1 << 16];
	size_t keep = 0;
	off_t off = 0;
	bool heading = true;
	int fd = family == AF_INET6 ? h->proc_icmp6 : h->proc_icmp;

	memset(sc->bitmap, 0, 65536 / 8);
	if (fd < 0)
		return -1;
	/* A seq_file hands out whole lines, a buffer at a time. */
	for (;;) {
		ssize_t n = pread(fd, buf + keep, sizeof(buf) - 1 - keep, off);
		char *line = buf, *nl;

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		off += n;
		buf[keep + (size_t)n] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (!heading)
				parse_icmp_line(line, sc);
			heading = false;
			line = nl + 1;
		}
		keep = strlen(line);
		if (keep >= sizeof(buf) - 1)
			keep = 0;	/* no such line: drop it */
		memmove(buf, line, keep);
	}
	return 0;
}

/* Append a (network order) to out, once. */
static void put_broadcast(uint32_t a, uint32_t *out, size_t max, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		if (out[i] == a)
			return;
	if (*n < max)
		out[(*n)++] = a;
}

/*
 * The broadcast addresses of one RTM_NEWADDR: its IFA_BROADCAST, and the
 * subnet's, which the kernel routes as broadcast whether or not the
 * address was given one (fib_add_ifaddr(), prefixes shorter than 31).
 */
static void take_broadcast(const struct nlmsghdr *nh, uint32_t *out,
			   size_t max, size_t *n)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const struct rtattr *a = IFA_RTA(ifa);
	int len = (int)IFA_PAYLOAD(nh);
	uint32_t v, mask;

	if (ifa->ifa_family != AF_INET || ifa->ifa_prefixlen > 32)
		return;
	mask = ifa->ifa_prefixlen ? htonl(~0u << (32 - ifa->ifa_prefixlen)) : 0;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (RTA_PAYLOAD(a) != sizeof(v))
			continue;
		memcpy(&v, RTA_DATA(a), sizeof(v));
		if (a->rta_type == IFA_BROADCAST)
			put_broadcast(v, out, max, n);
		else if (a->rta_type == IFA_LOCAL && ifa->ifa_prefixlen < 31)
			put_broadcast(v | ~mask, out, max, n);
	}
}

/* One datagram of the dump: 1 at its end, 0 for more, -1 on error. */
static int broadcasts_part(const char *buf, size_t n, uint32_t seq,
			   uint32_t *out, size_t max, size_t *count)
{
	const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;

	for (; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_seq != seq)
			continue;	/* a stale answer */
		if (nh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh->nlmsg_type == NLMSG_ERROR)
			return -1;
		if (nh->nlmsg_type == RTM_NEWADDR)
			take_broadcast(nh, out, max, count);
	}
	return 0;
}

size_t hostenv_broadcasts(struct hostenv *h, uint32_t *out, size_t max)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
	} req;
	char buf[8192];
	size_t count = 0;
	int rc = 0;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	req.nh.nlmsg_type = RTM_GETADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++h->seq;
	req.ifa.ifa_family = AF_INET;
	if (send(h->nl, &req, req.nh.nlmsg_len, 0) < 0)
		return 0;
	while (rc == 0) {
		ssize_t n = recv(h->nl, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rc = broadcasts_part(buf, (size_t)n, h->seq, out, max, &count);
	}
	return count;
}
