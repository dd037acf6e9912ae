/* SPDX-License-Identifier: ISC */
#include "engine/ipopt.h"

#include <errno.h>
#include <string.h>

enum {
	OPT_END = 0, OPT_NOOP = 1, OPT_RR = 7, OPT_TS = 68, OPT_LSRR = 131,
	OPT_SSRR = 137, OPT_RA = 148,
	TS_TSONLY = 0, TS_TSANDADDR = 1, TS_PRESPEC = 3,
};

/* Record route: a pointer of at least 4, and room for one address if the
 * option is not full. */
static int check_rr(const uint8_t *o, size_t olen, struct ipopt *out)
{
	if (olen < 3 || o[2] < 4)
		return -EINVAL;
	if (o[2] <= olen) {
		if ((size_t)o[2] + 3 > olen)
			return -EINVAL;
		out->rr_slot = o[2];
	}
	return 0;
}

static int check_ts(const uint8_t *o, size_t olen, struct ipopt *out)
{
	if (olen < 4 || o[2] < 5)
		return -EINVAL;
	if (o[2] > olen) {
		/* Full: the overflow counter must not be at its limit. */
		if ((o[3] & 0xf) != TS_PRESPEC && (o[3] >> 4) == 15)
			return -EINVAL;
		return 0;
	}
	if ((size_t)o[2] + 3 > olen)
		return -EINVAL;
	switch (o[3] & 0xf) {
	case TS_TSONLY:
		out->ts_slot = o[2];
		out->ts_slots = 1;
		return 0;
	case TS_TSANDADDR:
		if ((size_t)o[2] + 7 > olen)
			return -EINVAL;
		out->ts_slot = o[2];
		out->ts_slots = 2;
		return 0;
	case TS_PRESPEC:
		/* The time slot is reserved only when the address named is
		 * ours; which is the route's business: leave it as given. */
		return (size_t)o[2] + 7 > olen ? -EINVAL : 0;
	default:
		return -EINVAL;	/* other flags need CAP_NET_RAW */
	}
}

/*
 * Source routes: from a caller, the pointer at the first of whole
 * addresses (EINVAL otherwise); then refused, as the kernel refuses them
 * to a caller without CAP_NET_RAW (measured on 6.18: EPERM from
 * setsockopt(IP_OPTIONS) and from an IP_RETOPTS control message).  A
 * source route would also take the request past the daemon's
 * destination policy, which sees only the final hop.
 */
static int check_srr(const uint8_t *o, size_t olen)
{
	if (olen < 7 || o[2] != 4 || ((olen - 3) & 3) != 0)
		return -EINVAL;
	return -EPERM;
}

/*
 * The kernel's ip_options_compile() for options given by an unprivileged
 * caller: END, NOOP, record route, timestamp and router alert, each at
 * most once; the source routes EPERM; everything else EINVAL.
 */
static int compile(const uint8_t *b, size_t len, struct ipopt *out)
{
	bool seen_rr = false, seen_ts = false, seen_srr = false;
	size_t i = 0;

	while (i < len) {
		size_t olen;
		int err = 0;

		if (b[i] == OPT_END)
			break;
		if (b[i] == OPT_NOOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return -EINVAL;
		olen = b[i + 1];
		if (olen < 2 || olen > len - i)
			return -EINVAL;
		switch (b[i]) {
		case OPT_RR:
			err = seen_rr ? -EINVAL : check_rr(b + i, olen, out);
			out->rr_at = i;
			seen_rr = true;
			break;
		case OPT_TS:
			err = seen_ts ? -EINVAL : check_ts(b + i, olen, out);
			out->ts_at = i;
			seen_ts = true;
			break;
		case OPT_LSRR:
		case OPT_SSRR:
			err = seen_srr ? -EINVAL : check_srr(b + i, olen);
			seen_srr = true;
			break;
		case OPT_RA:
			err = olen == 4 ? 0 : -EINVAL;
			break;
		default:
			return -EINVAL;
		}
		if (err)
			return err;
		i += olen;
	}
	return 0;
}

int ipopt_set(struct ipopt *opt, const uint8_t *val, size_t len)
{
	struct ipopt o;
	int err;

	if (len > IPOPT_MAX)
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	memcpy(o.b, val, len);
	/* ip_options_get(): padded with END to a multiple of 4. */
	o.len = (len + 3) & ~(size_t)3;
	if (o.len > IPOPT_MAX)
		return -EINVAL;
	err = o.len ? compile(o.b, o.len, &o) : 0;
	if (err)
		return err;
	*opt = o;
	return 0;
}

size_t ipopt_get(const struct ipopt *opt, uint8_t *out)
{
	memcpy(out, opt->b, opt->len);
	/* ip_options_undo(): the slot the kernel reserved for this host's
	 * own address or time reads as zero. */
	if (opt->rr_slot)
		memset(out + opt->rr_at + opt->rr_slot - 1, 0, 4);
	if (opt->ts_slot)
		memset(out + opt->ts_at + opt->ts_slot - 1, 0,
		       4 * (size_t)opt->ts_slots);
	return opt->len;
}
