/* SPDX-License-Identifier: ISC */
/*
 * opts - the command line.
 *
 * The wording, the exit status and the order of every complaint follow
 * iputils 20221126 as measured on Debian's /usr/bin/ping, because scripts
 * parse them: integer options fail with status 1 ("invalid argument:
 * 'x'"), the rest with 2.  Every option of that release is taken; -X
 * (RFC 8335 PROBE) and -M probe are this ping's own.
 */
#include "ping/opts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <error.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ping/nodeinfo.h"

#ifndef PINGSOCK_VERSION
#define PINGSOCK_VERSION "unknown"	/* the Makefile defines it */
#endif

/*
 * iputils 20221126's usage, word for word (scripts and people compare
 * it), with the one option it has not, -X, where ours are listed.
 */
static const char usage_text[] =
	"\nUsage\n"
	"  ping [options] <destination>\n"
	"\nOptions:\n"
	"  <destination>      dns name or ip address\n"
	"  -a                 use audible ping\n"
	"  -A                 use adaptive ping\n"
	"  -B                 sticky source address\n"
	"  -c <count>         stop after <count> replies\n"
	"  -C                 call connect() syscall on socket creation\n"
	"  -D                 print timestamps\n"
	"  -d                 use SO_DEBUG socket option\n"
	"  -e <identifier>    define identifier for ping session, default is "
	"random for\n"
	"                     SOCK_RAW and kernel defined for SOCK_DGRAM\n"
	"                     Imply using SOCK_RAW (for IPv4 only for "
	"identifier 0)\n"
	"  -f                 flood ping\n"
	"  -h                 print help and exit\n"
	"  -I <interface>     either interface name or address\n"
	"  -i <interval>      seconds between sending each packet\n"
	"  -L                 suppress loopback of multicast packets\n"
	"  -l <preload>       send <preload> number of packages while "
	"waiting replies\n"
	"  -m <mark>          tag the packets going out\n"
	"  -M <pmtud opt>     define mtu discovery, can be one of "
	"<do|dont|want>\n"
	"  -n                 no dns name resolution\n"
	"  -O                 report outstanding replies\n"
	"  -p <pattern>       contents of padding byte\n"
	"  -q                 quiet output\n"
	"  -Q <tclass>        use quality of service <tclass> bits\n"
	"  -s <size>          use <size> as number of data bytes to be sent\n"
	"  -S <size>          use <size> as SO_SNDBUF socket option value\n"
	"  -t <ttl>           define time to live\n"
	"  -U                 print user-to-user latency\n"
	"  -v                 verbose output\n"
	"  -V                 print version and exit\n"
	"  -w <deadline>      reply wait <deadline> in seconds\n"
	"  -W <timeout>       time to wait for response\n"
	"  -X <interface>     RFC 8335 probe for <interface>: name, index "
	"or address\n"
	"\nIPv4 options:\n"
	"  -4                 use IPv4\n"
	"  -b                 allow pinging broadcast\n"
	"  -R                 record route\n"
	"  -T <timestamp>     define timestamp, can be one of "
	"<tsonly|tsandaddr|tsprespec>\n"
	"\nIPv6 options:\n"
	"  -6                 use IPv6\n"
	"  -F <flowlabel>     define flow label, default is random\n"
	"  -N <nodeinfo opt>  use icmp6 node info query, try <help> as "
	"argument\n"
	"\nFor more details see ping(8).\n";

/* iputils prints its usage on stderr and exits 2, for -h too. */
_Noreturn void opts_usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

/*
 * iputils' strtol_or_err(): base 10, the whole string, within [min, max];
 * a failure is status 1, with strerror only when strtol set errno.
 */
static long parse_long(const char *s, long min, long max)
{
	char *end = NULL;
	long v;

	errno = 0;
	if (*s == '\0')
		error(1, 0, "invalid argument: '%s'", s);
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		error(1, errno, "invalid argument: '%s'", s);
	if (v < min || v > max)
		error(1, 0, "invalid argument: '%s': out of range: "
		      "%ld <= value <= %ld", s, min, max);
	return v;
}

/* iputils' strtoul_or_err(): as parse_long(), unsigned (so "-1" is out
 * of range rather than malformed). */
static unsigned long parse_ulong(const char *s, unsigned long max)
{
	char *end = NULL;
	unsigned long v;

	errno = 0;
	if (*s == '\0')
		error(1, 0, "invalid argument: '%s'", s);
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		error(1, errno, "invalid argument: '%s'", s);
	if (v > max)
		error(1, 0, "invalid argument: '%s': out of range: "
		      "0 <= value <= %lu", s, max);
	return v;
}

/*
 * iputils 20221126's ping_strtod(): trailing garbage (or nothing to
 * parse, or underflow) is only warned about and the prefix is used; what
 * is left must be a normal number or zero.
 */
static double parse_double(const char *s, const char *what)
{
	char *end = NULL;
	double v;

	if (*s == '\0')
		error(2, 0, "%s: %s", what, s);
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end) {
		error(0, 0, "option argument contains garbage: %s", end);
		error(0, 0, "this will become fatal error in the future");
	}
	switch (fpclassify(v)) {
	case FP_NORMAL:
	case FP_ZERO:
		return v;
	default:
		error(2, ERANGE, "%s: %s", what, s);
	}
	return 0.0;	/* not reached: error(2, ...) exits */
}

static int parse_interval(const char *s)
{
	double v = parse_double(s, "bad timing interval");

	if (isgreater(v, (double)(INT_MAX / 1000)))
		error(2, 0, "bad timing interval: %s", s);
	return (int)(v * 1000);
}

static int parse_linger(const char *s)
{
	double v = parse_double(s, "bad linger time");

	if (isless(v, 0.0) || isgreater(v, (double)(INT_MAX / 1000)))
		error(2, 0, "bad linger time: %s", s);
	return (int)(v * 1000);
}

/* -Q: decimal, or hex after 0x; iputils' parsetos(). */
static int parse_tos(const char *s)
{
	char *end;
	long tos;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		tos = strtol(s + 2, &end, 16);
	else
		tos = strtol(s, &end, 10);
	if (*end != '\0')
		error(2, 0, "bad TOS value: %s", s);
	if (tos > 255)
		error(2, 0, "the decimal value of TOS bits must be in range "
		      "0-255: %d", (int)tos);
	return (int)tos;
}

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0'
					 : tolower((unsigned char)c) - 'a' + 10;
}

/*
 * -p: hex digits only (the complaint quotes the rest of the string from
 * the first bad character), read two digits a byte, at most 16 bytes.
 */
static void parse_pattern(const char *s, struct ping_opts *o)
{
	size_t n = 0;

	for (const char *p = s; *p; p++)
		if (!isxdigit((unsigned char)*p))
			error(2, 0, "patterns must be specified as hex "
			      "digits: %s", p);
	while (s[n] && n / 2 < PING_PATTERN_MAX) {
		int b = hexval(s[n++]);

		if (s[n])
			b = b * 16 + hexval(s[n++]);
		o->pattern[o->pattern_len++] = (uint8_t)b;
	}
}

/*
 * -I with a colon: an IPv6 address, optionally with "%DEVICE" (which
 * then is the device too, as a plain -I DEVICE would be).
 */
static void parse_iface6(const char *s, struct ping_opts *o)
{
	const char *pct = strchr(s, '%');
	size_t n = pct ? (size_t)(pct - s) : strlen(s);
	char addr[INET6_ADDRSTRLEN + 1];

	if (pct)
		o->device = pct + 1;
	if (n >= sizeof(addr))
		error(2, 0, "invalid source address: %s", s);
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET6, addr, &o->source6) <= 0)
		error(2, 0, "invalid source address: %s", s);
	o->strict_source = true;
}

/* -I: an address is a source to bind, anything else a device. */
static void parse_iface(const char *s, struct ping_opts *o)
{
	if (strchr(s, ':'))
		parse_iface6(s, o);
	else if (inet_pton(AF_INET, s, &o->source) > 0)
		o->strict_source = true;
	else
		o->device = s;
}

/*
 * -F: decimal, or hex after 0x, as iputils' parseflow(): the number goes
 * through an int on its way (so 2^32 is 0, and -1 is too large), and
 * must fit the 20 bits of a flow label.
 */
static uint32_t parse_flow(const char *s)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;
	unsigned long v;

	v = (unsigned long)(long)(int)strtoul(hex ? s + 2 : s, &end,
					      hex ? 16 : 10);
	if (*end != '\0')
		error(2, 0, "bad value for flowinfo: %s", s);
	if (v & ~(unsigned long)PING_FLOWLABEL_MASK)
		error(2, 0, "flow value is greater than 20 bits: %s", s);
	return (uint32_t)v;
}

/* -4 and -6 exclude each other; either may be repeated. */
static void set_family(struct ping_opts *o, int family)
{
	if (o->family != AF_UNSPEC && o->family != family)
		error(2, 0, "only one -4 or -6 option may be specified");
	o->family = family;
}

/*
 * -V: iputils' two lines, naming pingsock; the second says which of the
 * features iputils reports this build has (no capabilities to drop, no
 * IDN or translations, error() from libc, no getrandom() or
 * __fpending() either).
 */
static _Noreturn void version(void)
{
	printf("ping from pingsock %s\n", PINGSOCK_VERSION);
	printf("libcap: no, IDN: no, NLS: no, error.h: yes, getrandom(): no, "
	       "__fpending(): no\n");
	exit(0);
}

/*
 * -M: iputils 20221126 knows do, dont and want; probe (which later
 * releases accept) is taken too, for IP_PMTUDISC_PROBE, though the
 * usage text keeps iputils' words.
 */
static int parse_pmtu(const char *s)
{
	static const struct { const char *name; int mode; } modes[] = {
		{ "do", IP_PMTUDISC_DO },
		{ "dont", IP_PMTUDISC_DONT },
		{ "want", IP_PMTUDISC_WANT },
		{ "probe", IP_PMTUDISC_PROBE },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(s, modes[i].name) == 0)
			return modes[i].mode;
	error(2, 0, "invalid -M argument: %s", s);
	return -1;	/* not reached */
}

/* -T; -R and -T exclude each other, whichever comes second complains. */
static void parse_ts(const char *s, struct ping_opts *o)
{
	if (o->rroute)
		error(2, 0, "only one of -T or -R may be used");
	if (strcmp(s, "tsonly") == 0)
		o->ts_type = PING_TS_TSONLY;
	else if (strcmp(s, "tsandaddr") == 0)
		o->ts_type = PING_TS_TSANDADDR;
	else if (strcmp(s, "tsprespec") == 0)
		o->ts_type = PING_TS_PRESPEC;
	else
		error(2, 0, "invalid timestamp type: %s", s);
}

static void parse_rroute(struct ping_opts *o)
{
	if (o->ts_type != PING_TS_NONE)
		error(2, 0, "only one of -T or -R may be used");
	o->rroute = true;
}

/* -l: above 3 only for root, checked as the option is read. */
static int parse_preload(const char *s)
{
	int n = (int)parse_long(s, 1, PING_MAX_PRELOAD);

	if (getuid() != 0 && n > PING_MAX_USER_PRELOAD)
		error(2, 0, "cannot set preload to value greater than %d: %d",
		      PING_MAX_USER_PRELOAD, n);
	return n;
}

/* -f: numeric output and an unbuffered stdout, as iputils. */
static void set_flood(struct ping_opts *o)
{
	o->flood = true;
	o->numeric = true;
	setvbuf(stdout, NULL, _IONBF, 0);
}

static void parse_flag(int ch, struct ping_opts *o)
{
	switch (ch) {
	case '4':	set_family(o, AF_INET); break;
	case '6':	set_family(o, AF_INET6); break;
	case 'a':	o->audible = true; break;
	case 'A':	o->adaptive = true; break;
	case 'b':	o->broadcast = true; break;
	case 'B':	o->strict_source = true; break;
	case 'C':	o->connect_sk = true; break;
	case 'd':	o->so_debug = true; break;
	case 'D':	o->timestamps = true; break;
	case 'f':	set_flood(o); break;
	case 'L':	o->noloop = true; break;
	case 'n':	o->numeric = true; break;
	case 'O':	o->outstanding = true; break;
	case 'q':	o->quiet = true; break;
	case 'r':	o->dontroute = true; break;
	case 'R':	parse_rroute(o); break;
	case 'U':	o->latency = true; break;
	case 'v':	o->verbose = true; break;
	case 'V':	version();
	default:	opts_usage();	/* -h, -? and what getopt refused */
	}
}

static void parse_one(int ch, const char *arg, struct ping_opts *o,
		      const char **pattern)
{
	switch (ch) {
	case 'c':	o->count = parse_long(arg, 1, LONG_MAX); break;
	case 'e':	o->ident = (long)parse_ulong(arg, PING_IDENT_MAX); break;
	case 'F':	o->flowlabel = parse_flow(arg);
			o->flowinfo = true; break;
	case 'i':	o->interval = parse_interval(arg);
			o->interval_given = true; break;
	case 'I':	parse_iface(arg, o); break;
	case 'l':	o->preload = parse_preload(arg); break;
	case 'm':	o->mark = (uint32_t)parse_ulong(arg, UINT32_MAX);
			o->mark_set = true; break;
	case 'M':	o->pmtudisc = parse_pmtu(arg); break;
	case 'N':	ni_parse(&o->ni, arg); break;
	case 'p':	*pattern = arg; break;
	case 'Q':	o->tos = parse_tos(arg); break;
	case 's':	o->datalen = (size_t)parse_long(arg, 0, INT_MAX); break;
	case 'S':	o->sndbuf = (int)parse_long(arg, 1, INT_MAX); break;
	case 't':	o->ttl = (int)parse_long(arg, 0, 255); break;
	case 'T':	parse_ts(arg, o); break;
	case 'w':	o->deadline = parse_long(arg, 0, INT_MAX); break;
	case 'W':	o->linger = parse_linger(arg); break;
	case 'X':	probe_parse(arg, &o->probe); break;
	default:	parse_flag(ch, o);
	}
}

static void set_defaults(struct ping_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval = PING_DEFAULT_INTERVAL;
	o->linger = PING_DEFAULT_LINGER;
	o->datalen = PING_DEFAULT_DATALEN;
	o->family = AF_UNSPEC;
	o->ttl = -1;
	o->ts_type = PING_TS_NONE;
	o->pmtudisc = -1;
	o->preload = 1;
	o->ident = -1;
	ni_init(&o->ni);
}

void opts_parse(int argc, char **argv, struct ping_opts *o)
{
	const char *pattern = NULL;
	int ch;

	set_defaults(o);
	while ((ch = getopt(argc, argv,
			    "h?4bRT:6F:N:aABc:CdDe:fi:I:l:Lm:M:nOp:qQ:rs:S:"
			    "t:UvVw:W:X:")) != -1)
		parse_one(ch, optarg, o, &pattern);
	if (optind == argc)
		error(1, EDESTADDRREQ, "usage error");
	o->target = argv[argc - 1];
	o->nextra = argc - optind - 1;
	for (int i = 0; i < o->nextra && i < PING_MAX_TS_HOPS; i++)
		o->hops[o->nhops++] = argv[optind + i];
	/* After the destination check, as iputils' fill() runs there. */
	if (pattern) {
		o->have_pattern = true;
		parse_pattern(pattern, o);
	}
}

bool opts_raw_needed(const struct ping_opts *o)
{
	return o->ident == 0 || ni_given(&o->ni);
}

void opts_check_targets(const struct ping_opts *o, int family)
{
	if (o->nextra == 0)
		return;
	/* More names without -T tsprespec would be iputils' loose source
	 * route, which this ping does not offer; for IPv6 iputils refuses
	 * them all. */
	if (family != AF_INET || o->ts_type != PING_TS_PRESPEC ||
	    o->nextra > PING_MAX_TS_HOPS)
		opts_usage();
}
