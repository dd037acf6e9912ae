#include "engine/icmp.h"

#include <netinet/in.h>
#include <string.h>

/* ICMP types, named here so the engine does not depend on libc's headers. */
enum {
	T_ECHOREPLY = 0, T_DEST_UNREACH = 3, T_SOURCE_QUENCH = 4,
	T_REDIRECT = 5, T_ECHO = 8, T_TIME_EXCEEDED = 11, T_PARAMPROB = 12,
	T_EXT_ECHO = 42, T_EXT_ECHOREPLY = 43,
	T6_ECHO = 128, T6_EXT_ECHO = 160,
};

uint16_t icmp_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

int icmp_echo_type_ok(int family, uint8_t type, uint8_t code)
{
	if (code != 0)
		return 0;
	if (family == AF_INET6)
		return type == T6_ECHO || type == T6_EXT_ECHO;
	return type == T_ECHO || type == T_EXT_ECHO;
}

void icmp4_set_ident(uint8_t *msg, size_t len, uint16_t ident)
{
	uint16_t be = htons(ident), sum;

	memcpy(msg + 4, &be, 2);
	msg[2] = msg[3] = 0;
	sum = icmp_checksum(msg, len);
	memcpy(msg + 2, &sum, 2);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int is_error_type(uint8_t type)
{
	return type == T_DEST_UNREACH || type == T_SOURCE_QUENCH ||
	       type == T_REDIRECT || type == T_TIME_EXCEEDED ||
	       type == T_PARAMPROB;
}

/*
 * An error quotes the offending datagram's IP header and at least its first
 * 8 bytes (RFC 792).  Ours only if that was an ICMP Echo Request.
 */
static void parse_quote(struct icmp_pkt *out)
{
	const uint8_t *q = out->icmp + ICMP_HDR_LEN;
	size_t qlen = out->icmplen - ICMP_HDR_LEN, ihl;

	if (qlen < 20 || (q[0] >> 4) != 4)
		return;
	ihl = (size_t)(q[0] & 0x0f) * 4;
	if (ihl < 20 || qlen < ihl + ICMP_HDR_LEN || q[9] != IPPROTO_ICMP)
		return;
	if (q[ihl] != T_ECHO && q[ihl] != T_EXT_ECHO)
		return;
	ps_addr_v4(&out->q_src, 0);
	memcpy(out->q_src.a, q + 12, 4);
	ps_addr_v4(&out->q_dst, 0);
	memcpy(out->q_dst.a, q + 16, 4);
	out->ident = get16(q + ihl + 4);
	out->seq = get16(q + ihl + 6);
	out->q_icmp = q + ihl;
	out->q_icmplen = qlen - ihl;
	memcpy(&out->info, out->icmp + 4, 4);
	out->info = ntohl(out->info);
	out->kind = ICMP_K_ERROR;
}

enum icmp_parse_result icmp4_parse(const uint8_t *pkt, size_t len,
				   struct icmp_pkt *out)
{
	size_t ihl, tot;

	memset(out, 0, sizeof(*out));
	if (len < 20 || (pkt[0] >> 4) != 4)
		return ICMP_PARSE_SHORT;
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	tot = get16(pkt + 2);
	if (ihl < 20 || tot < ihl || tot > len)
		return ICMP_PARSE_SHORT;
	if (pkt[9] != IPPROTO_ICMP)
		return ICMP_PARSE_NOT_ICMP;
	out->tos = pkt[1];
	out->ttl = pkt[8];
	ps_addr_v4(&out->src, 0);
	memcpy(out->src.a, pkt + 12, 4);
	ps_addr_v4(&out->dst, 0);
	memcpy(out->dst.a, pkt + 16, 4);
	out->opts = pkt + 20;
	out->optlen = ihl - 20;
	out->icmp = pkt + ihl;
	out->icmplen = tot - ihl;
	if (out->icmplen < ICMP_HDR_LEN)
		return ICMP_PARSE_SHORT;
	/* Raw sockets see datagrams before icmp_rcv() checks the sum. */
	if (icmp_checksum(out->icmp, out->icmplen) != 0)
		return ICMP_PARSE_CSUM;
	out->type = out->icmp[0];
	out->code = out->icmp[1];
	if (out->type == T_ECHOREPLY || out->type == T_EXT_ECHOREPLY) {
		out->kind = ICMP_K_REPLY;
		out->ident = get16(out->icmp + 4);
		out->seq = get16(out->icmp + 6);
	} else if (is_error_type(out->type)) {
		parse_quote(out);
	}
	return ICMP_PARSE_OK;
}
