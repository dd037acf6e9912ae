/* SPDX-License-Identifier: ISC */
/*
 * stats - counters and round-trip statistics of one ping run, with
 * iputils' integer arithmetic (microseconds, truncating divisions), so
 * that the summary prints the very digits iputils would.
 */
#ifndef PING_STATS_H
#define PING_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define PING_SEQ_SPACE 65536	/* sequence numbers are 16 bits */

struct ping_stats {
	long ntransmitted;
	long nreceived;		/* distinct, good replies */
	long nrepeats;		/* duplicates */
	long nchecksum;		/* replies with a bad checksum */
	long nerrors;		/* ICMP errors and local errors */
	bool timing;		/* RTTs are measured (data holds a timeval) */
	long tmin, tmax;	/* us */
	long long tsum;		/* us */
	double tsum2;		/* us^2, a double as in iputils */
	int rtt;		/* EWMA of the RTT, times 8, in us */
	int pipesize;		/* most requests ever in flight at once */
	uint16_t acked;		/* newest sequence answered or failed */
	uint8_t rcvd[PING_SEQ_SPACE / 8];	/* duplicate detection */
};

enum reply_kind { REPLY_NEW, REPLY_DUP, REPLY_CORRUPT };

void stats_init(struct ping_stats *s, bool timing);
/* Sequence number the next request carries. */
uint16_t stats_next_seq(const struct ping_stats *s);
/* Before sending it: forget an old reply with that number. */
void stats_forget(struct ping_stats *s, uint16_t seq);
/* A request left (or failed hard and counts as sent). */
void stats_sent(struct ping_stats *s);
/* seq got an answer (a reply or an ICMP error). */
void stats_ack(struct ping_stats *s, uint16_t seq);
/* Requests sent and not yet answered, as iputils' in_flight(). */
int stats_in_flight(const struct ping_stats *s);
bool stats_seen(const struct ping_stats *s, uint16_t seq);
/* Account a reply; triptime in us, or < 0 when not timed. */
enum reply_kind stats_reply(struct ping_stats *s, uint16_t seq,
			    long triptime, bool csfailed);
void stats_error(struct ping_stats *s);

/* Summary figures, in us. Only with nreceived > 0. */
long stats_avg(const struct ping_stats *s);
long stats_mdev(const struct ping_stats *s);
/* Percent lost, as the float iputils prints with %g. */
float stats_loss(const struct ping_stats *s);

#endif
