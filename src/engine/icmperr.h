/* SPDX-License-Identifier: ISC */
/*
 * icmperr - what an ICMP error means to the ping socket it quotes: the
 * errno, whether it is "hard" (reported on a connected socket even
 * without IP_RECVERR), and ee_info, as the kernel's icmp_unreach() and
 * ping_err() (net/ipv4/icmp.c, net/ipv4/ping.c) decide them.
 */
#ifndef PS_ICMPERR_H
#define PS_ICMPERR_H

#include <stdbool.h>
#include <stdint.h>

struct icmp_verdict {
	int err;		/* positive errno */
	bool hard;
	uint32_t info;		/* ee_info: MTU, pointer, or gateway */
};

/*
 * Map an ICMPv4 error.  raw_info is bytes 4..7 of the error's header in
 * host order; pmtudisc is the socket's IP_MTU_DISCOVER; no_pmtu_disc is
 * net.ipv4.ip_no_pmtu_disc.  Returns false when the kernel would drop the
 * error without telling the socket anything.
 */
bool icmp4_error_verdict(uint8_t type, uint8_t code, uint32_t raw_info,
			 int pmtudisc, int no_pmtu_disc,
			 struct icmp_verdict *out);

/*
 * Map an ICMPv6 error (types below 128) as icmpv6_err_convert() does;
 * ee_info is bytes 4..7 of the error's header (the MTU of a Packet Too
 * Big, the pointer of a Parameter Problem), whatever the socket's
 * IPV6_MTU_DISCOVER.  Returns false for what is not an error.
 */
bool icmp6_error_verdict(uint8_t type, uint8_t code, uint32_t raw_info,
			 struct icmp_verdict *out);

#endif
