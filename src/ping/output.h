/* SPDX-License-Identifier: ISC */
/*
 * output - every line ping prints, one function per kind of line, with
 * the formats of iputils 20221126 (pinned: later releases change some,
 * e.g. the width of the sequence number in "From ... icmp_seq=").
 *
 * Lines on stdout are flushed when complete, so that they interleave
 * with stderr (and reach a pipe) as iputils' do.
 */
#ifndef PING_OUTPUT_H
#define PING_OUTPUT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ping/stats.h"

/* "PATTERN: 0x..." before the header, for -p. */
void out_pattern(const uint8_t *pat, int len);

/* "PING host (addr) [from src dev: ]N(M) bytes of data."; optlen: the
 * IP options' bytes, counted in M. */
void out_header(const char *host, struct in_addr dst, bool show_from,
		struct in_addr src, const char *device, size_t datalen,
		size_t optlen);

/* "PING host(addr) [, flow 0x..., ][from src dev: ]N data bytes". */
void out_header6(const char *host, const char *dst, uint32_t flowlabel,
		 bool show_from, const char *src, const char *device,
		 size_t datalen);

/* -v: iputils' debugging lines: the sockets (stderr), then each address
 * the name resolved to (stdout). */
void out_verbose_socket(int fd4, bool tried4, int fd6, bool tried6,
			int family);
void out_verbose_target(int family, const char *canonname);

/* -D: "[sec.usec] " before a line. */
void out_stamp(bool stamp);

struct reply_line {
	bool stamp;		/* -D: "[sec.usec] " first */
	int cc;			/* ICMP bytes received */
	const char *from;
	unsigned seq;
	long ident;		/* -v -e: " ident=N" after the sequence; -1:
				 * none */
	int ttl;
	bool truncated;
	long triptime;		/* us; < 0: not timed */
	bool dup, csfailed, wrong_source;
};

/*
 * "64 bytes from ...: icmp_seq=1 ttl=64 time=0.045 ms" and its tails,
 * without the newline; false when the line is complete already (a
 * truncated reply says so and ends there).  Then, as iputils: -a's bell,
 * the IP options, out_line_end().
 */
bool out_reply(const struct reply_line *r);
void out_bell(void);
/* " time=0.045 ms": an RTT in us with iputils' precision. */
void out_time(long us);
void out_line_end(void);

/* -f: the marks written instead of lines ("." sent, "\b \b" answered,
 * "\bE" an error...), unbuffered. */
void out_flood(const char *marks);

/* "From gw icmp_seq=N <what the ICMP error says>"; gateway: redirects. */
void out_icmp_error(bool stamp, const char *from, unsigned seq, int type,
		    int code, uint32_t info, const char *gateway);

/* ICMPv6: "From gw icmp_seq=N <what the ICMPv6 error says>". */
void out_icmp6_error(bool stamp, const char *from, unsigned seq, int type,
		     int code, uint32_t info);

/* "ping: local error: ..." on stderr (the wording of the family's). */
void out_local_error(int err, uint32_t info, bool v6);

/* -O: "no answer yet for icmp_seq=N". */
void out_outstanding(bool stamp, unsigned long seq);

/*
 * The statistics block; elapsed_us from the start to the last request.
 * show_ipg: the "ipg/ewma" figures iputils adds for -i 0.
 */
void out_summary(const char *host, const struct ping_stats *s,
		 long long elapsed_us, bool show_ipg);

/* SIGQUIT: "\rR/T packets, L% loss[, min/avg/ewma/max = ...]" on stderr. */
void out_status(const struct ping_stats *s);

#endif
