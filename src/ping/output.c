/* SPDX-License-Identifier: ISC */
/*
 * output - see output.h.  Formats are iputils 20221126's, read off its
 * binary and checked against its output line by line.
 */
#include "ping/output.h"

#include <arpa/inet.h>
#include <errno.h>
#include <error.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

void out_pattern(const uint8_t *pat, int len)
{
	printf("PATTERN: 0x");
	for (int i = 0; i < len; i++)
		printf("%02x", pat[i]);
	printf("\n");
}

void out_header(const char *host, struct in_addr dst, bool show_from,
		struct in_addr src, const char *device, size_t datalen,
		size_t optlen)
{
	char d[INET_ADDRSTRLEN], s[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &dst, d, sizeof(d));
	printf("PING %s (%s) ", host, d);
	/* With -I ADDRESS the device part is empty: "from 1.2.3.4 : ". */
	if (show_from) {
		inet_ntop(AF_INET, &src, s, sizeof(s));
		printf("from %s %s: ", s, device ? device : "");
	}
	/* The second figure is the IP datagram: data, ICMP and IP headers
	 * with the options. */
	printf("%zu(%zu) bytes of data.\n", datalen,
	       datalen + 8 + optlen + 20);
}

static const char *family_name(int family)
{
	switch (family) {
	case AF_INET:	return "AF_INET";
	case AF_INET6:	return "AF_INET6";
	default:	return "AF_UNSPEC";
	}
}

/*
 * The sockets as iputils reports them: a socket not asked for is -1 of
 * type 0.  The format ends in a newline of its own, so error() leaves an
 * empty line after it, as in iputils.
 */
void out_verbose_socket(int fd4, bool tried4, int fd6, bool tried6,
			int family)
{
	error(0, 0, "sock4.fd: %d (socktype: %s), sock6.fd: %d (socktype: "
	      "%s), hints.ai_family: %s\n", fd4, tried4 ? "SOCK_DGRAM" : "0",
	      fd6, tried6 ? "SOCK_DGRAM" : "0", family_name(family));
}

void out_verbose_target(int family, const char *canonname)
{
	printf("ai->ai_family: %s, ai->ai_canonname: '%s'\n",
	       family_name(family), canonname ? canonname : "");
}

void out_stamp(bool stamp)
{
	struct timeval tv;

	if (!stamp)
		return;
	gettimeofday(&tv, NULL);
	printf("[%lu.%06lu] ", (unsigned long)tv.tv_sec,
	       (unsigned long)tv.tv_usec);
}

/*
 * " time=..." with the precision shrinking as the RTT grows: three
 * decimals below 1 ms, two below 10, one below 100, none above; each
 * rounded, and a value that rounds up into the next range takes its
 * precision (9.9951 ms prints "10.0").
 */
static void put_time(long us)
{
	static const long scale[] = { 1000, 100, 10, 1 };
	int decimals;
	long v;

	if (us >= 100000 - 50)
		decimals = 0;
	else if (us >= 10000 - 5)
		decimals = 1;
	else if (us >= 1000)
		decimals = 2;
	else
		decimals = 3;
	if (decimals == 0) {
		printf(" time=%ld ms", (us + 500) / 1000);
		return;
	}
	/* us in units of 10^-decimals ms, rounded half up. */
	v = (us + scale[decimals] / 2) / scale[decimals];
	printf(" time=%ld.%0*ld ms", v / scale[3 - decimals], decimals,
	       v % scale[3 - decimals]);
}

bool out_reply(const struct reply_line *r)
{
	out_stamp(r->stamp);
	printf("%d bytes from %s: icmp_seq=%u", r->cc, r->from, r->seq);
	if (r->ident >= 0)
		printf(" ident=%ld", r->ident);
	printf(" ttl=%d", r->ttl);
	if (r->truncated) {
		printf(" (truncated)\n");
		fflush(stdout);
		return false;
	}
	if (r->triptime >= 0)
		put_time(r->triptime);
	if (r->dup)
		printf(" (DUP!)");
	if (r->csfailed)
		printf(" (BAD CHECKSUM!)");
	if (r->wrong_source)
		printf(" (DIFFERENT ADDRESS!)");
	return true;
}

void out_time(long us)
{
	put_time(us);
}

void out_bell(void)
{
	putchar('\a');
}

void out_line_end(void)
{
	putchar('\n');
	fflush(stdout);
}

void out_flood(const char *marks)
{
	fputs(marks, stdout);
	fflush(stdout);
}

static const char *unreach_text(int code)
{
	static const char *const text[] = {
		[ICMP_NET_UNREACH] = "Destination Net Unreachable",
		[ICMP_HOST_UNREACH] = "Destination Host Unreachable",
		[ICMP_PROT_UNREACH] = "Destination Protocol Unreachable",
		[ICMP_PORT_UNREACH] = "Destination Port Unreachable",
		[ICMP_SR_FAILED] = "Source Route Failed",
		[ICMP_NET_UNKNOWN] = "Destination Net Unknown",
		[ICMP_HOST_UNKNOWN] = "Destination Host Unknown",
		[ICMP_HOST_ISOLATED] = "Source Host Isolated",
		[ICMP_NET_ANO] = "Destination Net Prohibited",
		[ICMP_HOST_ANO] = "Destination Host Prohibited",
		[ICMP_NET_UNR_TOS] =
			"Destination Net Unreachable for Type of Service",
		[ICMP_HOST_UNR_TOS] =
			"Destination Host Unreachable for Type of Service",
		[ICMP_PKT_FILTERED] = "Packet filtered",
		[ICMP_PREC_VIOLATION] = "Precedence Violation",
		[ICMP_PREC_CUTOFF] = "Precedence Cutoff",
	};

	if (code < 0 || (size_t)code >= sizeof(text) / sizeof(text[0]))
		return NULL;
	return text[code];
}

static void put_unreach(int code, uint32_t info)
{
	const char *t = unreach_text(code);

	if (code == ICMP_FRAG_NEEDED)
		printf("Frag needed and DF set (mtu = %u)\n", info);
	else if (t)
		printf("%s\n", t);
	else
		printf("Dest Unreachable, Bad Code: %d\n", code);
}

static void put_redirect(int code, const char *gateway)
{
	static const char *const text[] = {
		[ICMP_REDIR_NET] = "Redirect Network",
		[ICMP_REDIR_HOST] = "Redirect Host",
		[ICMP_REDIR_NETTOS] = "Redirect Type of Service and Network",
		[ICMP_REDIR_HOSTTOS] = "Redirect Type of Service and Host",
	};

	if (code >= 0 && (size_t)code < sizeof(text) / sizeof(text[0]))
		printf("%s", text[code]);
	else
		printf("Redirect, Bad Code: %d", code);
	printf("(New nexthop: %s)\n", gateway ? gateway : "");
}

static void put_time_exceeded(int code)
{
	if (code == ICMP_EXC_TTL)
		printf("Time to live exceeded\n");
	else if (code == ICMP_EXC_FRAGTIME)
		printf("Frag reassembly time exceeded\n");
	else
		printf("Time exceeded, Bad Code: %d\n", code);
}

/* The messages without a code of their own. */
static const char *plain_text(int type)
{
	switch (type) {
	case ICMP_ECHOREPLY:		return "Echo Reply";
	case ICMP_SOURCE_QUENCH:	return "Source Quench";
	case ICMP_ECHO:			return "Echo Request";
	case ICMP_TIMESTAMP:		return "Timestamp";
	case ICMP_TIMESTAMPREPLY:	return "Timestamp Reply";
	case ICMP_INFO_REQUEST:		return "Information Request";
	case ICMP_INFO_REPLY:		return "Information Reply";
	case ICMP_ADDRESS:		return "Address Mask Request";
	case ICMP_ADDRESSREPLY:		return "Address Mask Reply";
	default:			return NULL;
	}
}

/* iputils' pr_icmph() for an error-queue record (no packet at hand). */
static void put_icmp(int type, int code, uint32_t info, const char *gateway)
{
	const char *t;

	switch (type) {
	case ICMP_DEST_UNREACH:
		put_unreach(code, info);
		return;
	case ICMP_REDIRECT:
		put_redirect(code, gateway);
		return;
	case ICMP_TIME_EXCEEDED:
		put_time_exceeded(code);
		return;
	case ICMP_PARAMETERPROB:
		printf("Parameter problem: pointer = %u\n", info);
		return;
	default:
		t = plain_text(type);
		if (t)
			printf("%s\n", t);
		else
			printf("Bad ICMP type: %d\n", type);
	}
}

void out_icmp_error(bool stamp, const char *from, unsigned seq, int type,
		    int code, uint32_t info, const char *gateway)
{
	out_stamp(stamp);
	printf("From %s icmp_seq=%u ", from, seq);
	put_icmp(type, code, info, gateway);
	fflush(stdout);
}

void out_local_error(int err, uint32_t info, bool v6)
{
	if (err == EMSGSIZE)
		error(0, 0, v6 ? "local error: message too long, mtu: %u"
			       : "local error: message too long, mtu=%u", info);
	else
		error(0, 0, "local error: %s", strerror(err));
}

void out_outstanding(bool stamp, unsigned long seq)
{
	out_stamp(stamp);
	printf("no answer yet for icmp_seq=%lu\n", seq);
	fflush(stdout);
}

/* us as "ms.fff", the form of every figure in the rtt lines. */
#define MS3(us) (long)(us) / 1000, (long)(us) % 1000

static void put_counts(const struct ping_stats *s, long long elapsed_us)
{
	printf("%ld packets transmitted, %ld received", s->ntransmitted,
	       s->nreceived);
	if (s->nrepeats)
		printf(", +%ld duplicates", s->nrepeats);
	if (s->nchecksum)
		printf(", +%ld corrupted", s->nchecksum);
	if (s->nerrors)
		printf(", +%ld errors", s->nerrors);
	if (s->ntransmitted) {
		printf(", %g%% packet loss", (double)stats_loss(s));
		printf(", time %lldms", (elapsed_us + 500) / 1000);
	}
	putchar('\n');
}

void out_summary(const char *host, const struct ping_stats *s,
		 long long elapsed_us, bool show_ipg)
{
	const char *sep = "";

	putchar('\n');
	fflush(stdout);
	printf("--- %s ping statistics ---\n", host);
	put_counts(s, elapsed_us);
	if (s->nreceived && s->timing) {
		long avg = stats_avg(s), mdev = stats_mdev(s);

		printf("rtt min/avg/max/mdev = %ld.%03ld/%ld.%03ld/%ld.%03ld/"
		       "%ld.%03ld ms", MS3(s->tmin), MS3(avg), MS3(s->tmax),
		       MS3(mdev));
		sep = ", ";
	}
	if (s->pipesize > 1) {
		printf("%spipe %d", sep, s->pipesize);
		sep = ", ";
	}
	if (show_ipg && s->nreceived && s->ntransmitted > 1) {
		long ipg = (long)(elapsed_us / (s->ntransmitted - 1));

		printf("%sipg/ewma %ld.%03ld/%d.%03d ms", sep, MS3(ipg),
		       s->rtt / 8000, (s->rtt / 8) % 1000);
	}
	putchar('\n');
	fflush(stdout);
}

void out_status(const struct ping_stats *s)
{
	int loss = 0;

	if (s->ntransmitted)
		loss = (int)((s->ntransmitted - s->nreceived) * 100 /
			     s->ntransmitted);
	fprintf(stderr, "\r%ld/%ld packets, %d%% loss", s->nreceived,
		s->ntransmitted, loss);
	if (s->nreceived && s->timing) {
		long avg = stats_avg(s);

		fprintf(stderr, ", min/avg/ewma/max = %ld.%03ld/%ld.%03ld/"
			"%d.%03d/%ld.%03ld ms", MS3(s->tmin), MS3(avg),
			s->rtt / 8000, (s->rtt / 8) % 1000, MS3(s->tmax));
	}
	fprintf(stderr, "\n");
}
