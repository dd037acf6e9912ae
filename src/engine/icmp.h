/* SPDX-License-Identifier: ISC */
/*
 * icmp - ICMP message checks, rewriting and parsing.  Pure: byte arrays in,
 * results out.
 */
#ifndef PS_ICMP_H
#define PS_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/addr.h"

#define ICMP_HDR_LEN 8
/* An IPv4 datagram carries at most 0xFFFF - 20 bytes of ICMP. */
#define ICMP4_MAX_MSG (0xFFFF - 20)

uint16_t icmp_checksum(const void *data, size_t len);

/*
 * May a ping socket of this family send this type and code?  Echo Request
 * and RFC 8335 Extended Echo Request, code 0 (the kernel's ping_supported()).
 */
int icmp_echo_type_ok(int family, uint8_t type, uint8_t code);

/* The 16-bit sequence field of an echo message (at least 8 bytes). */
uint16_t icmp_echo_seq(const uint8_t *msg);

/* An RFC 8335 Extended Echo (PROBE) type, request or reply, either family? */
bool icmp_is_probe(uint8_t type);

/*
 * What a reply or an error must match among the requests a socket sent.
 * RFC 8335 splits the sequence field of an Extended Echo: an 8-bit
 * sequence number (high byte), then bits that differ between request
 * (L) and reply (interface state), so a reply can repeat only the high
 * byte; an error quotes the request itself, all 16 bits as sent.
 */
enum icmp_match {
	ICMP_M_ECHO = 0,	/* an Echo Request, all 16 bits */
	ICMP_M_PROBE,		/* a PROBE, all 16 bits (an error's quote) */
	ICMP_M_PROBE_REPLY,	/* a PROBE, its 8-bit sequence number only */
};

/* Put ident into an ICMPv4 echo message and recompute its checksum. */
void icmp4_set_ident(uint8_t *msg, size_t len, uint16_t ident);
/* ICMPv6: the identifier, and a zero checksum (a raw ICMPv6 socket
 * always computes it, as for the kernel's ping socket). */
void icmp6_set_ident(uint8_t *msg, size_t len, uint16_t ident);

enum icmp_kind {
	ICMP_K_OTHER = 0,
	ICMP_K_REPLY,		/* Echo Reply or Extended Echo Reply */
	ICMP_K_ERROR,		/* an error quoting one of our requests */
};

struct icmp_pkt {
	enum icmp_kind kind;
	struct ps_addr src, dst;	/* of the received datagram */
	uint8_t ttl, tos;		/* IPv6: hop limit, traffic class */
	uint32_t flowinfo;		/* IPv6, network order */
	const uint8_t *opts;		/* IPv4 options, optlen bytes */
	size_t optlen;
	uint8_t type, code;
	uint16_t ident, seq;		/* host order, seq all 16 bits */
	enum icmp_match match;		/* what seq is matched against */
	const uint8_t *icmp;		/* the ICMP message */
	size_t icmplen;
	/* ICMP_K_ERROR only: the quoted request. */
	struct ps_addr q_src, q_dst;
	const uint8_t *q_icmp;		/* its ICMP header and what follows */
	size_t q_icmplen;
	uint32_t info;			/* bytes 4..7 of the error header */
};

enum icmp_parse_result {
	ICMP_PARSE_OK = 0,
	ICMP_PARSE_SHORT,	/* truncated or inconsistent IP header */
	ICMP_PARSE_CSUM,	/* ICMP checksum wrong */
	ICMP_PARSE_NOT_ICMP,
};

/*
 * Parse an IPv4 datagram as a raw ICMP socket delivers it (IP header,
 * options, ICMP message).  Pointers in out point into pkt.
 */
enum icmp_parse_result icmp4_parse(const uint8_t *pkt, size_t len,
				   struct icmp_pkt *out);

/* What a raw ICMPv6 socket says about a message besides its bytes. */
struct icmp6_meta {
	struct ps_addr src, dst;	/* msg_name; IPV6_PKTINFO */
	uint8_t hoplimit, tclass;	/* IPV6_HOPLIMIT, IPV6_TCLASS */
	uint32_t flowinfo;		/* IPV6_FLOWINFO */
};

/*
 * Parse an ICMPv6 message as a raw ICMPv6 socket delivers it (no IP
 * header).  The checksum is verified with the pseudo-header of m.  An
 * error is ours only if it quotes an Echo Request (the kernel's
 * icmpv6_err() passes nothing else to ping_err()), extension headers of
 * the quoted datagram skipped as ipv6_skip_exthdr() does.
 */
enum icmp_parse_result icmp6_parse(const uint8_t *msg, size_t len,
				   const struct icmp6_meta *m,
				   struct icmp_pkt *out);

#endif
