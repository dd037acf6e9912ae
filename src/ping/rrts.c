/* SPDX-License-Identifier: ISC */
/*
 * rrts - see rrts.h.
 *
 * The printing keeps iputils 20221126's arithmetic, quirks included,
 * since its output is what is compared: the record-route "(same route)"
 * test compares the bytes from the pointer on, a loose/strict source
 * route is read from its pointer byte, and an address slot of a
 * timestamp option that ends the data ends the list without a newline.
 */
#include "ping/rrts.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <string.h>

#include "ping/opts.h"

#define RR_SLOTS 9		/* iputils' NROUTES */
#define OPT_MINOFF 4		/* IPOPT_MINOFF: the first slot's pointer */
#define TS_MINOFF 5		/* a timestamp option's first slot */

size_t rrts_build_rr(uint8_t buf[RRTS_SPACE])
{
	memset(buf, 0, RRTS_SPACE);
	buf[0] = IPOPT_NOP;
	buf[1] = IPOPT_RR;
	buf[2] = 3 + 4 * RR_SLOTS;	/* 39: the rest of the space */
	buf[3] = OPT_MINOFF;
	return RRTS_SPACE;
}

size_t rrts_build_ts(uint8_t buf[RRTS_SPACE], int ts_type,
		      const struct in_addr *hops, int n)
{
	memset(buf, 0, RRTS_SPACE);
	buf[0] = IPOPT_TIMESTAMP;
	/* Nine stamps, or four address and stamp pairs. */
	buf[1] = ts_type == PING_TS_TSONLY ? 40 : 36;
	buf[2] = TS_MINOFF;
	buf[3] = (uint8_t)ts_type;
	if (ts_type == PING_TS_PRESPEC) {
		size_t k = n < 0 ? 0 : (size_t)n;

		if (k > PING_MAX_TS_HOPS)
			k = PING_MAX_TS_HOPS;	/* 4 pairs fill the option */
		buf[1] = (uint8_t)(4 + k * 8);
		for (size_t i = 0; i < k; i++)
			memcpy(buf + 4 + i * 8, &hops[i], 4);
	}
	return buf[1];
}

static void put_addr(struct namer *names, const uint8_t *p, bool lookups)
{
	struct in_addr a;

	memcpy(&a, p, sizeof(a));
	if (a.s_addr == 0)
		printf("\t0.0.0.0");
	else
		printf("\t%s", namer_addr(names, a, lookups));
}

/* opt[1] bytes of data are in opt, with slack after them (see below). */
static void print_srr(const uint8_t *opt, struct namer *names, bool lookups)
{
	int left = opt[1];
	const uint8_t *p = opt + 2;

	printf("\n%cSRR: ", opt[0] == IPOPT_SSRR ? 'S' : 'L');
	if (left <= OPT_MINOFF)
		return;
	for (;;) {
		put_addr(names, p, lookups);
		p += 4;
		left -= 4;
		putchar('\n');
		if (left <= OPT_MINOFF)
			break;
	}
}

static void print_rr(struct rrts_memory *mem, const uint8_t *opt,
		     struct namer *names, bool lookups)
{
	int used = opt[2] > opt[1] ? opt[1] : opt[2];
	const uint8_t *p = opt + 3;

	used -= OPT_MINOFF;
	if (used <= 0)
		return;
	if (used == mem->rrlen &&
	    memcmp(opt + 2, mem->rr, (size_t)used) == 0) {
		printf("\t(same route)");
		return;
	}
	mem->rrlen = used;
	memcpy(mem->rr, opt + 2, (size_t)used);
	printf("\nRR: ");
	for (;;) {
		put_addr(names, p, lookups);
		p += 4;
		used -= 4;
		putchar('\n');
		if (used <= 0)
			break;
	}
}

/* One stamp: the first in full, the others as differences. */
static void put_stamp(uint32_t v, long *std, long *nonstd)
{
	long l = (long)v;

	if (l & 0x80000000L) {
		l &= 0x7fffffffL;
		if (*nonstd == 0)
			printf("\t%ld absolute not-standard", l);
		else
			printf("\t%ld not-standard", l - *nonstd);
		*nonstd = l;
	} else {
		if (*std == 0)
			printf("\t%ld absolute", l);
		else
			printf("\t%ld", l - *std);
		*std = l;
	}
}

static void print_ts(const uint8_t *opt, struct namer *names, bool lookups)
{
	int used = (opt[2] > opt[1] ? opt[1] : opt[2]) - TS_MINOFF;
	int flags = opt[3];
	const uint8_t *p = opt + 4;
	long std = 0, nonstd = 0;

	if (used <= 0)
		return;
	printf("\nTS: ");
	for (;;) {
		uint32_t be;

		if ((flags & 0xf) != PING_TS_TSONLY) {
			put_addr(names, p, lookups);
			p += 4;
			used -= 4;
			if (used <= 0)
				break;
		}
		memcpy(&be, p, sizeof(be));
		p += 4;
		put_stamp(ntohl(be), &std, &nonstd);
		used -= 4;
		putchar('\n');
		if (used <= 0)
			break;
	}
	if (flags >> 4)
		printf("Unrecorded hops: %d\n", flags >> 4);
}

/*
 * The walk reads at most a few bytes past an option's stated end (a
 * slot that the pointer only partly covers): the options are copied
 * into a zeroed buffer with that much slack, so that a malformed block
 * reads zeros rather than whatever follows it.
 */
void rrts_print(struct rrts_memory *mem, const uint8_t *opts, size_t len,
		 struct namer *names, bool lookups)
{
	uint8_t buf[RRTS_SPACE + 8] = { 0 };
	const uint8_t *p = buf;
	int left;

	if (len > RRTS_SPACE)
		len = RRTS_SPACE;
	memcpy(buf, opts, len);
	left = (int)len;
	while (left > 0 && *p != IPOPT_EOL) {
		if (*p == IPOPT_NOP) {
			printf("\nNOP");
			p++;
			left--;
			continue;
		}
		if (p[1] < 2 || p[1] > left)
			break;
		if (*p == IPOPT_SSRR || *p == IPOPT_LSRR)
			print_srr(p, names, lookups);
		else if (*p == IPOPT_RR)
			print_rr(mem, p, names, lookups);
		else if (*p == IPOPT_TS)
			print_ts(p, names, lookups);
		else
			printf("\nunknown option %x", *p);
		left -= p[1];
		p += p[1];
	}
}
