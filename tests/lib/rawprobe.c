/* SPDX-License-Identifier: ISC */
/*
 * rawprobe - a plain libc program on a raw ICMP socket, for
 * tests/integration/raw_compat.sh: run as root it uses the kernel's raw
 * socket, run unprivileged with LD_PRELOAD=libpingsock-preload.so and
 * PINGSOCK_RAW=echo the emulation's; the test compares the two.  Every
 * line printed is deterministic (no times, IP identifications or
 * descriptors), every wait bounded.
 *
 *   rawprobe socket inet|inet6      socket() and what it says about itself
 *   rawprobe echo DST IDENT TTL     one Echo Request; the first datagram
 *                                   that concerns it, header by header
 *   rawprobe rr DST IDENT           the same with IP_OPTIONS Record Route
 *   rawprobe watch DST IDENT COUNT TTL
 *                                   COUNT requests, 100 ms apart; every
 *                                   datagram received meanwhile, one line
 *   rawprobe filter DST IDENT       ICMP_FILTER blocking Echo Reply, then not
 *   rawprobe badsum DST IDENT       a request with a wrong checksum
 *   rawprobe trunc DST IDENT        receives into a short buffer
 *   rawprobe name DST               getsockname() fresh, bound, after a send
 *   rawprobe hold DST IDENT SECS    one request, then keep the socket
 *   rawprobe errnos DST HELD OWN    the emulation's refusals (HELD: an
 *                                   identifier another uid holds), then
 *                                   one request with OWN
 *
 * Linked with libpingsock.a by the Makefile's tests/lib rule, but calls
 * nothing of it: every socket call is the C library's (or the shim's).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD 56
#define WAIT_MS 1500
#define QUIET_MS 400
#define SOL_RAW_ 255
#define ICMP_FILTER_ 1

static int family;
static struct sockaddr_storage dst;
static socklen_t dstlen;
static uint16_t ident;

static void out(const char *what, int rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, strerrorname_np(errno));
	else
		printf("%s: ok %d\n", what, rc);
}

/* The Internet checksum: the probe's own, not the engine's, since it
 * checks what the emulation builds. */
static uint16_t sum16(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void set_dst(const char *addr)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&dst;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&dst;

	memset(&dst, 0, sizeof(dst));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		family = s4->sin_family = AF_INET;
		dstlen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		family = s6->sin6_family = AF_INET6;
		dstlen = sizeof(*s6);
	} else {
		fprintf(stderr, "rawprobe: bad address %s\n", addr);
		exit(2);
	}
}

static int open_raw(void)
{
	int fd = socket(family, SOCK_RAW, family == AF_INET ? IPPROTO_ICMP
							    : IPPROTO_ICMPV6);

	if (fd < 0) {
		out("socket", -1);
		exit(1);
	}
	return fd;
}

/* Send an Echo Request (or another type) with seq; the call's result. */
static int send_type(int fd, uint8_t type, uint8_t code, uint16_t id,
		     uint16_t seq, bool good)
{
	uint8_t m[8 + PAYLOAD];
	uint16_t s;

	memset(m, 0, sizeof(m));
	m[0] = type;
	m[1] = code;
	m[4] = (uint8_t)(id >> 8);
	m[5] = (uint8_t)id;
	m[6] = (uint8_t)(seq >> 8);
	m[7] = (uint8_t)seq;
	for (size_t i = 8; i < sizeof(m); i++)
		m[i] = (uint8_t)('a' + i % 26);
	/* ICMPv6: the socket computes the sum. */
	s = family == AF_INET ? sum16(m, sizeof(m)) : 0;
	if (!good)
		s ^= 0x1234;
	m[2] = (uint8_t)(s >> 8);
	m[3] = (uint8_t)s;
	return (int)sendto(fd, m, sizeof(m), 0, (struct sockaddr *)&dst,
			   dstlen);
}

static int send_echo(int fd, uint16_t seq)
{
	return send_type(fd, family == AF_INET ? 8 : 128, 0, ident, seq, true);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One datagram within ms, or 0 (nothing), or -1. */
static ssize_t wait_dgram(int fd, int ms, uint8_t *buf, size_t cap,
			  char *from, size_t fromlen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = recvfrom(fd, buf, cap, MSG_DONTWAIT, (struct sockaddr *)&ss, &sl);
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	inet_ntop(ss.ss_family, ss.ss_family == AF_INET
		  ? (void *)&((struct sockaddr_in *)&ss)->sin_addr
		  : (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr,
		  from, (socklen_t)fromlen);
	return n;
}

static const char *addr4(const uint8_t *a, char *buf)
{
	return inet_ntop(AF_INET, a, buf, INET_ADDRSTRLEN);
}

/* The ICMP message at m: its echo identifier and sequence, or that of
 * the request an error quotes; 0 when it is neither. */
static bool echo_of(const uint8_t *m, size_t len, uint16_t *id, uint16_t *seq)
{
	size_t off = 8;

	if (len < 8)
		return false;
	if ((family == AF_INET && (m[0] == 0 || m[0] == 8 || m[0] == 43)) ||
	    (family == AF_INET6 && m[0] >= 128)) {
		*id = get16(m + 4);
		*seq = get16(m + 6);
		return true;
	}
	if (family == AF_INET6)
		off += 40;	/* the quoted IPv6 header */
	else if (len >= 28)
		off += (size_t)(m[8] & 15) * 4;
	if (len < off + 8)
		return false;
	*id = get16(m + off + 4);
	*seq = get16(m + off + 6);
	return true;
}

/* One line per header of a datagram: IP (IPv4), ICMP, a quote. */
static void describe(const uint8_t *d, size_t n, const char *from)
{
	const uint8_t *m = d;
	size_t len = n, hl;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	uint16_t id, seq;

	printf("from %s, %zu bytes\n", from, n);
	if (family == AF_INET) {
		hl = (size_t)(d[0] & 15) * 4;
		printf("ip: v%d hl %zu tos %#x len %u df %d mf %d off %u ttl %d "
		       "proto %d %s > %s sum %s\n", d[0] >> 4, hl, d[1],
		       get16(d + 2), !!(d[6] & 0x40), !!(d[6] & 0x20),
		       get16(d + 6) & 0x1fff, d[8], d[9], addr4(d + 12, a),
		       addr4(d + 16, b), sum16(d, hl) ? "bad" : "ok");
		if (hl > 20)
			printf("ip options: %zu bytes, type %d length %d "
			       "pointer %d\n", hl - 20, d[20], d[21], d[22]);
		m = d + hl;
		len = n - hl;
	}
	printf("icmp: type %d code %d sum %s len %zu\n", m[0], m[1],
	       family == AF_INET6 ? "-" : sum16(m, len) ? "bad" : "ok", len);
	if (echo_of(m, len, &id, &seq))
		printf("echo: id %s seq %u\n", id == ident ? "ours" : "other",
		       seq);
	if (family == AF_INET && m[0] != 0 && m[0] != 43 && len >= 28)
		printf("quote: v%d proto %d ttl %d %s > %s\n", m[8] >> 4, m[17],
		       m[16], addr4(m + 20, a), addr4(m + 24, b));
}

/* The ICMP message of a datagram (behind the IPv4 header). */
static const uint8_t *icmp_of(const uint8_t *d, size_t n, size_t *len)
{
	size_t hl = family == AF_INET ? (size_t)(d[0] & 15) * 4 : 0;

	*len = n > hl ? n - hl : 0;
	return d + hl;
}

/* Does the datagram answer (or quote) one of our requests? */
static bool ours(const uint8_t *d, size_t n)
{
	size_t len;
	const uint8_t *m = icmp_of(d, n, &len);
	uint16_t id, seq;
	bool request = m[0] == (family == AF_INET ? 8 : 128);

	return len >= 8 && !request && echo_of(m, len, &id, &seq) &&
	       id == ident;
}

static int set_ttl(int fd, int ttl)
{
	return family == AF_INET
		       ? setsockopt(fd, SOL_IP, IP_TTL, &ttl, sizeof(ttl))
		       : setsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, &ttl,
				    sizeof(ttl));
}

/* The first datagram of ours within WAIT_MS, described; or "nothing". */
static void first_of_ours(int fd, const char *what)
{
	uint8_t buf[2048];
	char from[64];
	int64_t end = now_ms() + WAIT_MS;

	for (int64_t left; (left = end - now_ms()) > 0;) {
		ssize_t n = wait_dgram(fd, (int)left, buf, sizeof(buf), from,
				       sizeof(from));

		if (n > 0 && ours(buf, (size_t)n)) {
			printf("%s: got\n", what);
			describe(buf, (size_t)n, from);
			return;
		}
		if (n < 0)
			break;
	}
	printf("%s: nothing\n", what);
}

static int do_echo(int ttl, bool rr)
{
	uint8_t opt[40] = { 7, 39, 4 };	/* Record Route, 9 slots */
	int fd = open_raw();

	if (ttl > 0 && set_ttl(fd, ttl))
		out("ttl", -1);
	if (rr)
		out("IP_OPTIONS", setsockopt(fd, SOL_IP, IP_OPTIONS, opt,
					     sizeof(opt)));
	out("send", send_echo(fd, 1));
	first_of_ours(fd, "reply");
	return 0;
}

/* Every datagram, ours or not (a kernel raw socket sees them all). */
static int do_watch(int count, int ttl)
{
	uint8_t buf[2048];
	char from[64];
	unsigned mine = 0, foreign = 0;
	int fd = open_raw();
	int64_t next = now_ms(), end = next + count * 100 + QUIET_MS;

	if (ttl > 0 && set_ttl(fd, ttl))
		out("ttl", -1);
	for (int sent = 0; now_ms() < end;) {
		ssize_t n;
		size_t len;
		const uint8_t *m;
		uint16_t id, seq;

		if (sent < count && now_ms() >= next) {
			if (send_echo(fd, (uint16_t)++sent) < 0)
				out("send", -1);
			next += 100;
		}
		n = wait_dgram(fd, 20, buf, sizeof(buf), from, sizeof(from));
		if (n <= 0)
			continue;
		m = icmp_of(buf, (size_t)n, &len);
		if (len < 8 || !echo_of(m, len, &id, &seq))
			continue;
		if (m[0] == (family == AF_INET ? 8 : 128))
			continue;	/* a request, looped back */
		printf("type %d id %u seq %u\n", m[0], id, seq);
		if (id == ident)
			mine++;
		else
			foreign++;
	}
	printf("ours %u foreign %u\n", mine, foreign);
	return 0;
}

static int set_filter(int fd, uint32_t mask)
{
	return setsockopt(fd, SOL_RAW_, ICMP_FILTER_, &mask, sizeof(mask));
}

static int do_filter(void)
{
	int fd = open_raw();

	out("filter", set_filter(fd, 1u << 0));
	out("send", send_echo(fd, 1));
	first_of_ours(fd, "filtered");
	out("filter", set_filter(fd, 0));
	out("send", send_echo(fd, 2));
	first_of_ours(fd, "unfiltered");
	return 0;
}

static int do_badsum(void)
{
	int fd = open_raw();

	out("send", send_type(fd, 8, 0, ident, 1, false));
	first_of_ours(fd, "badsum");
	return 0;
}

/* A reply read into 30 bytes, then (MSG_TRUNC) what it is long. */
static int do_trunc(void)
{
	uint8_t buf[30];
	int fd = open_raw();

	for (int round = 0; round < 2; round++) {
		int flags = round ? MSG_TRUNC : 0;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t end;
		ssize_t n = -1;

		send_echo(fd, (uint16_t)(round + 1));
		for (end = now_ms() + WAIT_MS; now_ms() < end;) {
			if (poll(&p, 1, (int)(end - now_ms())) <= 0)
				break;
			n = recvmsg(fd, &mh, flags | MSG_DONTWAIT);
			if (n >= 8 && ours(buf, (size_t)n < sizeof(buf)
					   ? (size_t)n : sizeof(buf)))
				break;
			n = -1;
		}
		printf("%s: ret %zd truncated %d\n", round ? "MSG_TRUNC" : "plain",
		       n, !!(mh.msg_flags & MSG_TRUNC));
	}
	return 0;
}

static void show_name(int fd, const char *what)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[64] = "?";
	unsigned port;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		out(what, -1);
		return;
	}
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a,
			  sizeof(a));
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a,
			  sizeof(a));
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	printf("%s: %s port %u len %u\n", what, a, port, (unsigned)sl);
}

static int do_name(void)
{
	int fd = open_raw();

	show_name(fd, "fresh");
	out("bind", bind(fd, (struct sockaddr *)&dst, dstlen));
	show_name(fd, "bound");
	out("rebind", bind(fd, (struct sockaddr *)&dst, dstlen));
	ident = 0x4242;
	send_echo(fd, 1);
	show_name(fd, "sent");
	return 0;
}

static int do_socket(void)
{
	int fd = socket(family, SOCK_RAW, family == AF_INET ? IPPROTO_ICMP
							    : IPPROTO_ICMPV6);
	int v = -1;
	socklen_t l = sizeof(v);

	if (fd < 0) {
		out("socket", -1);
		return 1;
	}
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l);
	printf("socket: ok type %d\n", v);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l);
	printf("protocol: %d\n", v);
	return 0;
}

static int do_hold(int secs)
{
	int fd = open_raw();

	out("send", send_echo(fd, 1));
	fflush(stdout);
	sleep((unsigned)secs);
	close(fd);
	return 0;
}

static int do_errnos(uint16_t held, uint16_t own)
{
	int fd = open_raw(), one = 1, zero = 0;
	uint32_t filt = 0;
	socklen_t l = sizeof(filt) * 2;

	out("timestamp request", send_type(fd, 13, 0, own, 1, true));
	out("echo code 1", send_type(fd, 8, 1, own, 1, true));
	out("echo reply", send_type(fd, 0, 0, own, 1, true));
	out("IP_HDRINCL 1", setsockopt(fd, SOL_IP, IP_HDRINCL, &one,
				       sizeof(one)));
	out("IP_HDRINCL 0", setsockopt(fd, SOL_IP, IP_HDRINCL, &zero,
				       sizeof(zero)));
	out("held identifier", send_type(fd, 8, 0, held, 1, true));
	out("identifier 0", send_type(fd, 8, 0, 0, 1, true));
	out("ICMP_FILTER", getsockopt(fd, SOL_RAW_, ICMP_FILTER_, &filt, &l));
	printf("ICMP_FILTER length %u\n", (unsigned)l);
	out("own identifier", send_type(fd, 8, 0, own, 1, true));
	ident = own;
	first_of_ours(fd, "reply");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(mode, "socket") == 0) {
		family = strcmp(argv[2], "inet6") == 0 ? AF_INET6 : AF_INET;
		return do_socket();
	}
	if (argc < 3) {
		fprintf(stderr, "usage: see the comment at the top\n");
		return 2;
	}
	set_dst(argv[2]);
	ident = argc > 3 ? (uint16_t)atoi(argv[3]) : 0;
	if (argc == 5 && strcmp(mode, "echo") == 0)
		return do_echo(atoi(argv[4]), false);
	if (argc == 4 && strcmp(mode, "rr") == 0)
		return do_echo(0, true);
	if (argc == 6 && strcmp(mode, "watch") == 0)
		return do_watch(atoi(argv[4]), atoi(argv[5]));
	if (argc == 4 && strcmp(mode, "filter") == 0)
		return do_filter();
	if (argc == 4 && strcmp(mode, "badsum") == 0)
		return do_badsum();
	if (argc == 4 && strcmp(mode, "trunc") == 0)
		return do_trunc();
	if (argc == 3 && strcmp(mode, "name") == 0)
		return do_name();
	if (argc == 5 && strcmp(mode, "hold") == 0)
		return do_hold(atoi(argv[4]));
	if (argc == 5 && strcmp(mode, "errnos") == 0)
		return do_errnos(ident, (uint16_t)atoi(argv[4]));
	fprintf(stderr, "rawprobe: bad arguments\n");
	return 2;
}
