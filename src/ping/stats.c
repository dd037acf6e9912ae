/* SPDX-License-Identifier: ISC */
/*
 * stats - see stats.h.
 *
 * Sequence arithmetic is modulo 2^16, as on the wire: "diff <= 0x7fff"
 * means "not in the future".
 */
#include "ping/stats.h"

#include <limits.h>
#include <string.h>

void stats_init(struct ping_stats *s, bool timing)
{
	memset(s, 0, sizeof(*s));
	s->timing = timing;
	s->tmin = LONG_MAX;
}

uint16_t stats_next_seq(const struct ping_stats *s)
{
	return (uint16_t)(s->ntransmitted + 1);
}

static bool bit_get(const uint8_t *map, uint16_t seq)
{
	return map[seq >> 3] & (1u << (seq & 7));
}

static void bit_put(uint8_t *map, uint16_t seq, bool on)
{
	if (on)
		map[seq >> 3] |= (uint8_t)(1u << (seq & 7));
	else
		map[seq >> 3] &= (uint8_t)~(1u << (seq & 7));
}

void stats_forget(struct ping_stats *s, uint16_t seq)
{
	bit_put(s->rcvd, seq, false);
}

bool stats_seen(const struct ping_stats *s, uint16_t seq)
{
	return bit_get(s->rcvd, seq);
}

void stats_sent(struct ping_stats *s)
{
	s->ntransmitted++;
	/* After a wrap with nothing answered for half the space, "acked"
	 * would look like the future: move it just behind us. */
	if ((uint16_t)((uint16_t)s->ntransmitted - s->acked) > 0x7fff)
		s->acked = (uint16_t)(s->ntransmitted + 1);
}

void stats_ack(struct ping_stats *s, uint16_t seq)
{
	uint16_t diff = (uint16_t)((uint16_t)s->ntransmitted - seq);

	if (diff > 0x7fff)
		return;		/* an answer to a request not yet sent */
	if ((int)diff + 1 > s->pipesize)
		s->pipesize = (int)diff + 1;
	if ((int16_t)(seq - s->acked) > 0 ||
	    (uint16_t)((uint16_t)s->ntransmitted - s->acked) > 0x7fff)
		s->acked = seq;
}

int stats_in_flight(const struct ping_stats *s)
{
	uint16_t n = (uint16_t)((uint16_t)s->ntransmitted - s->acked);

	return n <= 0x7fff ? n : 0;
}

static void add_rtt(struct ping_stats *s, long t)
{
	s->tsum += t;
	s->tsum2 += (double)((long long)t * t);
	if (t < s->tmin)
		s->tmin = t;
	if (t > s->tmax)
		s->tmax = t;
	if (!s->rtt)
		s->rtt = (int)(t * 8);
	else
		s->rtt += (int)(t - s->rtt / 8);
}

enum reply_kind stats_reply(struct ping_stats *s, uint16_t seq,
			    long triptime, bool csfailed)
{
	if (csfailed) {
		s->nchecksum++;
		return REPLY_CORRUPT;
	}
	stats_ack(s, seq);
	/* iputils counts a duplicate's RTT too (avg divides by
	 * nreceived + nrepeats). */
	if (s->timing && triptime >= 0)
		add_rtt(s, triptime);
	if (bit_get(s->rcvd, seq)) {
		s->nrepeats++;
		return REPLY_DUP;
	}
	bit_put(s->rcvd, seq, true);
	s->nreceived++;
	return REPLY_NEW;
}

void stats_error(struct ping_stats *s)
{
	s->nerrors++;
}

long stats_avg(const struct ping_stats *s)
{
	long total = s->nreceived + s->nrepeats;

	return total ? (long)(s->tsum / total) : 0;
}

/*
 * iputils' llsqrt(): Newton's iteration from a itself, stopped at the
 * first step that does not go down, returning that step.  It is not
 * always floor(sqrt(a)) (3 gives 2), but the mdev digits iputils prints
 * come from it, so it is kept as is.
 */
static long long newton_sqrt(long long a)
{
	long long x = a;

	if (a <= 0)
		return a;
	for (;;) {
		long long next = (x + a / x) / 2;

		if (next >= x)
			return next;
		x = next;
	}
}

/*
 * The standard deviation, computed as iputils does: below INT_MAX the
 * order (sum2 - sum*sum/n) / n avoids losing small RTTs to rounding.
 */
long stats_mdev(const struct ping_stats *s)
{
	long total = s->nreceived + s->nrepeats;
	long long var;

	if (total == 0)
		return 0;
	if (s->tsum < INT_MAX) {
		/* The integer division is iputils': its digits depend on it. */
		long long sq = (s->tsum * s->tsum) / total;

		var = (long long)((s->tsum2 - (double)sq) / (double)total);
	} else {
		long avg = stats_avg(s);

		var = (long long)(s->tsum2 / (double)total -
				  (double)((long long)avg * avg));
	}
	return (long)newton_sqrt(var);
}

float stats_loss(const struct ping_stats *s)
{
	return (float)((double)(s->ntransmitted - s->nreceived) * 100.0 /
		       (double)s->ntransmitted);
}
