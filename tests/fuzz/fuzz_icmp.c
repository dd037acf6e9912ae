/*
 * fuzz_icmp - libFuzzer target for the packet parser: icmp4_parse() on
 * whatever a raw ICMP socket could deliver, with checks of what it
 * promises about a datagram it accepts, then the daemon's use of the
 * result (the socket lookup) and the sender-side rewrite.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t copy[65536 + 8];

static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	(void)ctx;
	(void)a;
	(void)ifindex;
	return PS_RTN_LOCAL;
}

static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   bool broadcast, struct ps_addr *src)
{
	(void)ctx;
	(void)ifindex;
	(void)broadcast;
	if (ps_addr_is_any(src))
		*src = *dst;
	return 0;
}

static const struct ps_env env = {
	.addr_type = f_addr_type,
	.route = f_route,
	.default_ttl = 64,
};

static void check_parsed(const uint8_t *pkt, size_t len,
			 const struct icmp_pkt *p)
{
	const uint8_t *end = pkt + len;

	if (p->icmp < pkt + 20 || p->icmplen < ICMP_HDR_LEN ||
	    p->icmplen > (size_t)(end - p->icmp))
		abort();
	if (p->opts != pkt + 20 || p->opts + p->optlen != p->icmp ||
	    p->optlen > 40 || p->optlen % 4)
		abort();
	if (icmp_checksum(p->icmp, p->icmplen) != 0)
		abort();
	if (p->type != p->icmp[0] || p->code != p->icmp[1])
		abort();
	if (p->src.family != AF_INET || p->dst.family != AF_INET ||
	    memcmp(p->src.a, pkt + 12, 4) || memcmp(p->dst.a, pkt + 16, 4))
		abort();
	switch (p->kind) {
	case ICMP_K_REPLY:
		if (p->type != 0 && p->type != 43)
			abort();
		if (p->ident != (p->icmp[4] << 8 | p->icmp[5]) ||
		    p->seq != (p->icmp[6] << 8 | p->icmp[7]))
			abort();
		break;
	case ICMP_K_ERROR:
		/* 20-byte quoted header and 8 bytes of the request, at least */
		if (p->icmplen < ICMP_HDR_LEN + 20 + ICMP_HDR_LEN)
			abort();
		if (p->q_dst.family != AF_INET || p->q_src.family != AF_INET)
			abort();
		break;
	case ICMP_K_OTHER:
		break;
	default:
		abort();
	}
}

/* Deliver p as the daemon would: a socket that sent what it answers. */
static void lookup(const struct icmp_pkt *p)
{
	static struct pstab *tab;
	struct psock *sk = NULL;
	struct ps_sendinfo info;
	uint8_t sa[sizeof(struct sockaddr_in)], req[8] = { 8, 0 };
	struct sockaddr_in sin;
	const struct ps_addr *peer = p->kind == ICMP_K_ERROR ? &p->q_dst
							      : &p->src;

	if (!tab && !(tab = pstab_new(0)))
		abort();
	if (pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0, &sk))
		abort();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(p->ident);
	memcpy(sa, &sin, sizeof(sa));
	/* Bind the ident the packet names (0: any), then "send" its seq. */
	if (ps_bind(tab, sk, &env, sa, sizeof(sa)) == 0) {
		memcpy(&sin.sin_addr, peer->a, 4);
		memcpy(sa, &sin, sizeof(sa));
		req[6] = (uint8_t)(p->seq >> 8);
		req[7] = (uint8_t)p->seq;
		if (ps_send_prepare(tab, sk, &env, 0, sa, sizeof(sa), NULL, 0,
				    req, sizeof(req), &info) != 0)
			abort();	/* a plain Echo Request: must pass */
		if (icmp_checksum(req, sizeof(req)) != 0)
			abort();
		ps_sent(sk, &info, 0);
		/* It answers what this socket sent: it must find it. */
		if ((p->kind == ICMP_K_REPLY || p->kind == ICMP_K_ERROR) &&
		    p->ident != 0 && pstab_lookup(tab, p, 0) != sk)
			abort();
		pstab_lookup(tab, p, 1);
	}
	pstab_close(tab, sk);
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0)
		abort();
}

static void parse_one(const uint8_t *pkt, size_t size)
{
	struct icmp_pkt p;

	switch (icmp4_parse(pkt, size, &p)) {
	case ICMP_PARSE_OK:
		check_parsed(pkt, size, &p);
		lookup(&p);
		break;
	case ICMP_PARSE_SHORT:
	case ICMP_PARSE_CSUM:
	case ICMP_PARSE_NOT_ICMP:
		break;
	default:
		abort();
	}
}

/*
 * The input made consistent where a fuzzer rarely gets it right by
 * chance: IPv4, protocol ICMP, tot_len = size, a correct ICMP checksum.
 * This reaches the reply and error paths behind the checksum.
 */
static void fix_up(uint8_t *pkt, size_t size)
{
	size_t ihl;
	uint16_t sum;

	if (size < 20 + ICMP_HDR_LEN || size > 0xffff)
		return;
	pkt[0] = (uint8_t)(0x40 | (pkt[0] & 0x0f));
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	if (ihl < 20 || ihl + ICMP_HDR_LEN > size)
		return;
	pkt[2] = (uint8_t)(size >> 8);
	pkt[3] = (uint8_t)size;
	pkt[9] = IPPROTO_ICMP;
	pkt[ihl + 2] = pkt[ihl + 3] = 0;
	sum = icmp_checksum(pkt + ihl, size - ihl);
	memcpy(pkt + ihl + 2, &sum, 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > sizeof(copy) - 8)
		return 0;
	/* An exact-size heap copy, so that ASan sees any over-read. */
	uint8_t *pkt = malloc(size ? size : 1);

	if (!pkt)
		return 0;
	memcpy(pkt, data, size);
	parse_one(pkt, size);
	fix_up(pkt, size);
	parse_one(pkt, size);

	/* The sender side: any message of 8+ bytes gets a valid sum. */
	if (size >= ICMP_HDR_LEN) {
		memcpy(copy, data, size);
		icmp4_set_ident(copy, size, (uint16_t)(size * 2654435761u));
		if (icmp_checksum(copy, size) != 0 ||
		    memcmp(copy + 6, data + 6, size - 6) != 0)
			abort();
	}
	free(pkt);
	return 0;
}
