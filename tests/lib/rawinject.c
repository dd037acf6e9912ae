/* SPDX-License-Identifier: ISC */
/*
 * rawinject - put forged ICMP and ICMPv6 datagrams on a link, byte for
 * byte as described, for tests/integration/hostile.sh.
 *
 *   rawinject IFNAME DSTMAC SPEC...
 *
 * Runs as root in the peer namespace.  Each SPEC is one datagram, sent
 * with an AF_PACKET socket to DSTMAC on IFNAME, so that nothing in the
 * sending kernel rewrites it (a raw IP socket would fix the total length
 * and the header checksum).  A SPEC is a comma-separated list, "v4" or
 * "v6" first, then key=value fields or flags:
 *
 *   src=A dst=A        the datagram's addresses
 *   type=T code=C      ICMP type and code (default 0/0: Echo Reply;
 *                      v6 default 129)
 *   id=N seq=N         an echo message's identifier and sequence number
 *   qsrc=A qdst=A      an error quotes an Echo Request from qsrc to qdst
 *   qid=N qseq=N       with this identifier and sequence number
 *   qtype=T            the quoted request's ICMP type (default 8; v6
 *                      128): 42 (160) quotes an RFC 8335 PROBE
 *   qlen=N             cut the quote to N bytes
 *   qihl=N             the quoted IP header claims N 32-bit words (the
 *                      bytes stay those of a 20-byte header)
 *   plen=N             payload bytes of an echo message (default 56)
 *   icmplen=N          cut the ICMP message to N bytes (after the sum)
 *   badsum             a wrong ICMP checksum
 *   totlen=+N          the IP total length (v6: payload length) claims N
 *                      bytes more than are sent
 *   opts=HEX           IPv4 options, padded with End of List to 4 bytes
 *
 * Every datagram carries a marker the test's capture filter selects:
 * IPv4 identification 0xf0f0, IPv6 flow label 0xf0f0f.  The IPv4 header
 * checksum is always right (else the receiver's IP layer alone would
 * drop it); ICMPv6 checksums cover the pseudo-header.
 *
 * Prints "sent N" and exits 0 when every datagram went out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MARK4 0xf0f0u
#define MARK6 0xf0f0fu
#define PKT_MAX 1500

struct spec {
	bool v6, badsum, has_quote;
	uint8_t src[16], dst[16], qsrc[16], qdst[16];
	int type, code, qtype;
	unsigned id, seq, qid, qseq;
	long qlen, qihl, icmplen, plen, extra;
	uint8_t opts[40];
	size_t optlen;
};

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "rawinject: %s: %s\n", what, arg);
	exit(2);
}

static uint32_t sum_add(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)(p[n - 1] << 8);
	return s;
}

static uint16_t sum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void addr(const char *s, bool v6, uint8_t *out)
{
	if (inet_pton(v6 ? AF_INET6 : AF_INET, s, out) != 1)
		die("bad address", s);
}

static void hexopts(const char *s, struct spec *sp)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > sizeof(sp->opts))
		die("bad opts", s);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			die("bad opts", s);
		sp->opts[i] = (uint8_t)v;
	}
	sp->optlen = (n / 2 + 3) & ~(size_t)3;	/* the rest stays 0: EOL */
}

static void parse(char *arg, struct spec *sp)
{
	char *save = NULL, *tok = strtok_r(arg, ",", &save);

	memset(sp, 0, sizeof(*sp));
	sp->qlen = sp->icmplen = -1;
	sp->plen = 56;
	if (!tok || (strcmp(tok, "v4") && strcmp(tok, "v6")))
		die("spec must start with v4 or v6", tok ? tok : "");
	sp->v6 = tok[1] == '6';
	sp->type = sp->v6 ? 129 : 0;
	sp->qtype = sp->v6 ? 128 : 8;
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *v = strchr(tok, '=');

		if (v)
			*v++ = '\0';
		if (strcmp(tok, "badsum") == 0)
			sp->badsum = true;
		else if (!v)
			die("field without a value", tok);
		else if (strcmp(tok, "src") == 0)
			addr(v, sp->v6, sp->src);
		else if (strcmp(tok, "dst") == 0)
			addr(v, sp->v6, sp->dst);
		else if (strcmp(tok, "qsrc") == 0 || strcmp(tok, "qdst") == 0) {
			addr(v, sp->v6, tok[1] == 's' ? sp->qsrc : sp->qdst);
			sp->has_quote = true;
		}
		else if (strcmp(tok, "type") == 0)
			sp->type = atoi(v);
		else if (strcmp(tok, "code") == 0)
			sp->code = atoi(v);
		else if (strcmp(tok, "id") == 0)
			sp->id = (unsigned)atoi(v);
		else if (strcmp(tok, "seq") == 0)
			sp->seq = (unsigned)atoi(v);
		else if (strcmp(tok, "qid") == 0)
			sp->qid = (unsigned)atoi(v);
		else if (strcmp(tok, "qtype") == 0)
			sp->qtype = atoi(v);
		else if (strcmp(tok, "qseq") == 0)
			sp->qseq = (unsigned)atoi(v);
		else if (strcmp(tok, "qlen") == 0)
			sp->qlen = atol(v);
		else if (strcmp(tok, "qihl") == 0 && !sp->v6)
			sp->qihl = atol(v) & 0x0f;
		else if (strcmp(tok, "plen") == 0)
			sp->plen = atol(v);
		else if (strcmp(tok, "icmplen") == 0)
			sp->icmplen = atol(v);
		else if (strcmp(tok, "totlen") == 0)
			sp->extra = atol(v);
		else if (strcmp(tok, "opts") == 0 && !sp->v6)
			hexopts(v, sp);
		else
			die("unknown field", tok);
	}
}

/* The quoted request: its IP header, ICMP header and 8 payload bytes. */
static size_t quote(const struct spec *sp, uint8_t *q)
{
	size_t ih = sp->v6 ? 40 : 20, n = ih + 16;

	memset(q, 0, n);
	if (sp->v6) {
		q[0] = 0x60;
		put16(q + 4, 64);
		q[6] = 58;
		q[7] = 64;
		memcpy(q + 8, sp->qsrc, 16);
		memcpy(q + 24, sp->qdst, 16);
	} else {
		q[0] = 0x45;
		put16(q + 2, 84);
		q[8] = 64;
		q[9] = IPPROTO_ICMP;
		memcpy(q + 12, sp->qsrc, 4);
		memcpy(q + 16, sp->qdst, 4);
		if (sp->qihl)
			q[0] = (uint8_t)(0x40 | sp->qihl);
		put16(q + 10, sum_fold(sum_add(0, q, 20)));
	}
	q[ih] = (uint8_t)sp->qtype;
	put16(q + ih + 4, sp->qid);
	put16(q + ih + 6, sp->qseq);
	memcpy(q + ih + 8, "pingsock", 8);
	if (sp->qlen >= 0 && (size_t)sp->qlen < n)
		n = (size_t)sp->qlen;
	return n;
}

/* The datagram for sp into pkt; its length. */
static size_t build(const struct spec *sp, uint8_t *pkt)
{
	size_t ih = sp->v6 ? 40 : 20 + sp->optlen, n;
	uint8_t *icmp = pkt + ih;
	uint32_t s = 0;
	uint16_t sum;

	memset(pkt, 0, PKT_MAX);
	icmp[0] = (uint8_t)sp->type;
	icmp[1] = (uint8_t)sp->code;
	if (sp->has_quote) {
		n = 8 + quote(sp, icmp + 8);
	} else {
		put16(icmp + 4, sp->id);
		put16(icmp + 6, sp->seq);
		for (long i = 0; i < sp->plen && 8 + i < PKT_MAX - 60; i++)
			icmp[8 + i] = (uint8_t)(0x40 + i % 32);
		n = 8 + (size_t)sp->plen;
	}
	if (sp->icmplen >= 0 && (size_t)sp->icmplen < n)
		n = (size_t)sp->icmplen;
	if (sp->v6) {
		s = sum_add(s, sp->src, 16);
		s = sum_add(s, sp->dst, 16);
		s += (uint32_t)n + 58;
	}
	sum = sum_fold(sum_add(s, icmp, n));
	if (sp->badsum)
		sum ^= 0x5555;
	if (n >= 4)
		put16(icmp + 2, sum);
	if (sp->v6) {
		pkt[0] = 0x60;		/* traffic class 0, then the label */
		pkt[1] = (uint8_t)(MARK6 >> 16 & 0x0f);
		put16(pkt + 2, MARK6 & 0xffff);
		put16(pkt + 4, (unsigned)((long)n + sp->extra));
		pkt[6] = 58;
		pkt[7] = 64;
		memcpy(pkt + 8, sp->src, 16);
		memcpy(pkt + 24, sp->dst, 16);
	} else {
		pkt[0] = (uint8_t)(0x40 | ih / 4);
		put16(pkt + 2, (unsigned)((long)(ih + n) + sp->extra));
		put16(pkt + 4, MARK4);
		pkt[8] = 64;
		pkt[9] = IPPROTO_ICMP;
		memcpy(pkt + 12, sp->src, 4);
		memcpy(pkt + 16, sp->dst, 4);
		memcpy(pkt + 20, sp->opts, sp->optlen);
		put16(pkt + 10, sum_fold(sum_add(0, pkt, ih)));
	}
	return ih + n;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned mac[6];
	int fd, sent = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: rawinject IFNAME DSTMAC SPEC...\n");
		return 2;
	}
	ll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (!ll.sll_ifindex)
		die("no such interface", argv[1]);
	if (sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		die("bad MAC address", argv[2]);
	for (int i = 0; i < 6; i++)
		ll.sll_addr[i] = (uint8_t)mac[i];
	fd = socket(AF_PACKET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("packet socket", strerror(errno));
	for (int i = 3; i < argc; i++) {
		uint8_t pkt[PKT_MAX];
		struct spec sp;
		size_t n;

		parse(argv[i], &sp);
		n = build(&sp, pkt);
		ll.sll_protocol = htons(sp.v6 ? ETH_P_IPV6 : ETH_P_IP);
		if (sendto(fd, pkt, n, 0, (struct sockaddr *)&ll, sizeof(ll)) !=
		    (ssize_t)n) {
			fprintf(stderr, "rawinject: datagram %d: %s\n", i - 2,
				strerror(errno));
			continue;
		}
		sent++;
		usleep(2000);	/* in order, and not all in one batch */
	}
	printf("sent %d\n", sent);
	return sent == argc - 3 ? 0 : 1;
}
