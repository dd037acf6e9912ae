/* SPDX-License-Identifier: ISC */
/*
 * probe: RFC 8335 PROBE (Extended Echo, ICMP type 42 / ICMPv6 type 160)
 * on ping sockets of both families, to this host's loopback interface,
 * by name, index and address; an unknown interface; a malformed query;
 * one without the L bit (the kernel does not answer it).  run.sh turns
 * net.ipv4.icmp_echo_enable_probe on in both namespaces.
 */
// needs: peer
#include "conf.h"

/* RFC 8335 Interface Identification Object C-types. */
enum { BY_NAME = 1, BY_INDEX = 2, BY_ADDR = 3 };

/*
 * An Extended Echo Request into buf: header (8-bit sequence, L bit),
 * extension header (version 2, checksum), one object.  Returns its
 * length.
 */
static size_t probe_req(uint8_t *buf, int family, uint8_t seq, bool lbit,
			int ctype, const void *val, size_t vlen)
{
	size_t plen = (vlen + 3) & ~(size_t)3, olen = 4 + plen;
	uint16_t sum;

	memset(buf, 0, 16 + plen);
	buf[0] = family == AF_INET6 ? 160 : 42;
	buf[6] = seq;
	buf[7] = lbit ? 1 : 0;
	buf[8] = 0x20;			/* version 2 */
	buf[12] = (uint8_t)(olen >> 8);
	buf[13] = (uint8_t)olen;
	buf[14] = 3;			/* Interface Identification */
	buf[15] = (uint8_t)ctype;
	memcpy(buf + 16, val, vlen);
	sum = 0;
	{
		uint32_t s = 0;

		for (size_t i = 8; i < 16 + plen; i += 2)
			s += (uint32_t)(buf[i] << 8 | buf[i + 1]);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		sum = (uint16_t)~s;
	}
	buf[10] = (uint8_t)(sum >> 8);
	buf[11] = (uint8_t)sum;
	return 16 + plen;
}

/* Send one probe, then print the reply's fields (or its absence). */
static void probe(const char *what, int fd, int family, uint8_t seq,
		  bool lbit, int ctype, const void *val, size_t vlen)
{
	uint8_t req[64];
	size_t n = probe_req(req, family, seq, lbit, ctype, val, vlen);
	struct sockaddr_in sin = conf_sin("127.0.0.1", 0);
	struct sockaddr_in6 s6;
	struct conf_rx rx;
	long r;

	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_addr = in6addr_loopback;
	if (family == AF_INET6)
		r = pingsock_sendto(fd, req, n, 0, SA(&s6), sizeof(s6));
	else
		r = pingsock_sendto(fd, req, n, 0, SA(&sin), sizeof(sin));
	conf_errno = errno;
	out("%s: sendto %zu bytes: %s", what, n,
	    r < 0 ? conf_errname(conf_errno) : L("%ld", r));
	if (r < 0)
		return;
	if (!conf_wait_in(fd, 500)) {
		out("%s: no reply", what);
		return;
	}
	conf_recvmsg(fd, sizeof(conf_rbuf), MSG_DONTWAIT, 0, &rx);
	if (rx.ret < 8) {
		out("%s: recv %ld %s", what, rx.ret,
		    rx.ret < 0 ? conf_errname(rx.err) : "short");
		return;
	}
	out("%s: reply %ld bytes type=%u code=%u ident=%s seq=%u state=%#04x "
	    "from %s", what, rx.ret, conf_rbuf[0], conf_rbuf[1],
	    (unsigned)(conf_rbuf[4] << 8 | conf_rbuf[5]) == conf_ident(fd)
		    ? "own" : "not-own",
	    conf_rbuf[6], conf_rbuf[7],
	    family == AF_INET6
		    ? conf_sa6(rx.name, sizeof(rx.name), rx.namelen, PORT_EXACT)
		    : conf_sa(rx.name, sizeof(rx.name), rx.namelen, PORT_EXACT));
}

static void probes(int family)
{
	const char *fam = family == AF_INET6 ? "v6" : "v4";
	int fd = family == AF_INET6 ? conf_socket6() : conf_socket();
	uint32_t idx = htonl(if_nametoindex("lo"));
	uint8_t a4[8] = { 0, 1, 4, 0, 127, 0, 0, 1 };
	uint8_t a6[20] = { 0, 2, 16, 0 };

	a6[19] = 1;	/* ::1 */
	out("## %s", fam);
	probe(L("%s by name lo", fam), fd, family, 1, true, BY_NAME, "lo", 2);
	probe(L("%s by index", fam), fd, family, 2, true, BY_INDEX, &idx, 4);
	probe(L("%s by address 127.0.0.1", fam), fd, family, 3, true,
	      BY_ADDR, a4, sizeof(a4));
	probe(L("%s by address ::1", fam), fd, family, 4, true, BY_ADDR, a6,
	      sizeof(a6));
	probe(L("%s unknown name", fam), fd, family, 5, true, BY_NAME,
	      "nosuch0", 7);
	probe(L("%s bad C-type", fam), fd, family, 6, true, 9, "lo", 2);
	probe(L("%s without the L bit", fam), fd, family, 7, false, BY_NAME,
	      "lo", 2);
	conf_quiet(L("%s after", fam), fd, 200);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("probe");
	probes(AF_INET);
	probes(AF_INET6);
	return 0;
}
