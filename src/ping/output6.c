/* SPDX-License-Identifier: ISC */
/*
 * output6 - the lines that differ for IPv6 (see output.h): the header
 * and the ICMPv6 error texts, iputils 20221126's print_icmp() wording
 * (which knows codes 0-4 of Destination Unreachable only).
 */
#include "ping/output.h"

#include <arpa/inet.h>
#include <netinet/icmp6.h>
#include <stdio.h>

void out_header6(const char *host, const char *dst, uint32_t flowlabel,
		 bool show_from, const char *src, const char *device,
		 size_t datalen)
{
	printf("PING %s(%s) ", host, dst);
	if (flowlabel)
		printf(", flow 0x%05x, ", (unsigned)ntohl(flowlabel));
	if (show_from)
		printf("from %s %s: ", src, device ? device : "");
	printf("%zu data bytes\n", datalen);
}

static void put_unreach(int code)
{
	static const char *const text[] = {
		[ICMP6_DST_UNREACH_NOROUTE] = "No route",
		[ICMP6_DST_UNREACH_ADMIN] = "Administratively prohibited",
		[ICMP6_DST_UNREACH_BEYONDSCOPE] =
			"Beyond scope of source address",
		[ICMP6_DST_UNREACH_ADDR] = "Address unreachable",
		[ICMP6_DST_UNREACH_NOPORT] = "Port unreachable",
	};

	printf("Destination unreachable: ");
	if (code >= 0 && (size_t)code < sizeof(text) / sizeof(text[0]))
		printf("%s", text[code]);
	else
		printf("Unknown code %d", code);
}

static void put_time_exceeded(int code)
{
	printf("Time exceeded: ");
	if (code == ICMP6_TIME_EXCEED_TRANSIT)
		printf("Hop limit");
	else if (code == ICMP6_TIME_EXCEED_REASSEMBLY)
		printf("Defragmentation failure");
	else
		printf("code %d", code);
}

static void put_param_prob(int code, uint32_t pointer)
{
	printf("Parameter problem: ");
	if (code == ICMP6_PARAMPROB_HEADER)
		printf("Wrong header field ");
	else if (code == ICMP6_PARAMPROB_NEXTHEADER)
		printf("Unknown header ");
	else if (code == ICMP6_PARAMPROB_OPTION)
		printf("Unknown option ");
	else
		printf("code %d ", code);
	printf("at %u", pointer);
}

/* The messages without a code of their own. */
static const char *plain_text(int type)
{
	switch (type) {
	case ICMP6_ECHO_REQUEST:	return "Echo request";
	case ICMP6_ECHO_REPLY:		return "Echo reply";
	case MLD_LISTENER_QUERY:	return "MLD Query";
	case MLD_LISTENER_REPORT:	return "MLD Report";
	case MLD_LISTENER_REDUCTION:	return "MLD Reduction";
	default:			return NULL;
	}
}

static void put_icmp6(int type, int code, uint32_t info)
{
	const char *t;

	switch (type) {
	case ICMP6_DST_UNREACH:
		put_unreach(code);
		return;
	case ICMP6_PACKET_TOO_BIG:
		printf("Packet too big: mtu=%u", info);
		if (code)
			printf(", code=%d", code);
		return;
	case ICMP6_TIME_EXCEEDED:
		put_time_exceeded(code);
		return;
	case ICMP6_PARAM_PROB:
		put_param_prob(code, info);
		return;
	default:
		t = plain_text(type);
		if (t)
			printf("%s", t);
		else
			printf("unknown icmp type: %u", (unsigned)type);
	}
}

void out_icmp6_error(bool stamp, const char *from, unsigned seq, int type,
		     int code, uint32_t info)
{
	out_stamp(stamp);
	printf("From %s icmp_seq=%u ", from, seq);
	put_icmp6(type, code, info);
	putchar('\n');
	fflush(stdout);
}
