/* SPDX-License-Identifier: ISC */
/*
 * nodeinfo - see nodeinfo.h.
 *
 * The rules are iputils 20221126's (ping/node_info.c), as measured on
 * Debian's /usr/bin/ping: an argument is matched against each option
 * name in the table's order, as a prefix followed by the end of the
 * string (or by '=' and a value, for the subject options); the first
 * option whose handler accepts it wins, and an argument none accepts
 * prints the list on stderr, exit 2.  Nothing is built from the query:
 * it could only go out on a raw socket.
 */
#include "ping/nodeinfo.h"

#include <ctype.h>
#include <error.h>
#include <net/if.h>
#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* RFC 4620's Qtypes, and its ICMPv6 codes for the subject's kind. */
enum ni_qtype { NI_Q_NAME = 2, NI_Q_ADDR6 = 3, NI_Q_ADDR4 = 4 };
enum ni_subject { NI_SUBJ_IPV6 = 0, NI_SUBJ_FQDN = 1, NI_SUBJ_IPV4 = 2 };

#define NI_LABEL_MAX	63	/* octets of a DNS label */
#define NI_NAME_MAX	253	/* of a name, without a final dot */

static const char help_text[] =
	"ping -6 -N <nodeinfo opt>\n"
	"Help:\n"
	"  help\n"
	"Query:\n"
	"  name\n"
	"  ipv6\n"
	"  ipv6-all\n"
	"  ipv6-compatible\n"
	"  ipv6-global\n"
	"  ipv6-linklocal\n"
	"  ipv6-sitelocal\n"
	"  ipv4\n"
	"  ipv4-all\n"
	"Subject:\n"
	"  subject-ipv6=addr\n"
	"  subject-ipv4=addr\n"
	"  subject-name=name\n"
	"  subject-fqdn=name\n";

/* "help" asked for it: stdout, 0; anything else: stderr, 2. */
static _Noreturn void ni_help(bool asked)
{
	fputs(help_text, asked ? stdout : stderr);
	exit(asked ? 0 : 2);
}

void ni_init(struct ni_query *q)
{
	q->given = false;
	q->qtype = -1;
	q->subject_type = -1;
	q->subject = false;
}

bool ni_given(const struct ni_query *q)
{
	return q->given;
}

/* A second query of another type conflicts (said on stdout). */
static int ni_set_qtype(struct ni_query *q, int type, const char *arg)
{
	(void)arg;
	if (q->qtype >= 0 && q->qtype != type) {
		printf("Qtype conflict\n");
		return -1;
	}
	q->qtype = type;
	return 0;
}

/* So does a second subject of another kind, once one is known. */
static int ni_set_subject_type(struct ni_query *q, int type)
{
	if (q->subject_type >= 0 && q->subject && q->subject_type != type) {
		printf("Subject type conflict\n");
		return -1;
	}
	q->subject_type = type;
	return 0;
}

/* subject-ipv6=, subject-ipv4=: an address (or name) of that family. */
static int ni_subject_addr(struct ni_query *q, int type, const char *arg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_CANONNAME };
	struct addrinfo *res;
	int rc;

	if (ni_set_subject_type(q, type) < 0)
		return -1;
	hints.ai_family = type == NI_SUBJ_IPV6 ? AF_INET6 : AF_INET;
	rc = getaddrinfo(arg, NULL, &hints, &res);
	if (rc) {
		error(0, 0, "%s: %s", arg, gai_strerror(rc));
		return -1;
	}
	freeaddrinfo(res);
	q->subject = true;
	return 0;
}

/* One label's complaint of a pass: 0 the hyphens, 1 the length. */
static const char *ni_label_complaint(const char *label, size_t len,
				      int pass)
{
	if (pass == 1)
		return len > NI_LABEL_MAX
			       ? "domain label longer than 63 characters"
			       : NULL;
	if (len >= 4 && label[2] == '-' && label[3] == '-')
		return "string contains forbidden two hyphens pattern";
	if (len && (label[0] == '-' || label[len - 1] == '-'))
		return "string start/ends with forbidden hyphen";
	return NULL;
}

/*
 * What iputils' IDN conversion (libidn2, non-transitional) says of an
 * ASCII name, or NULL: first the hyphens of every label (none in the
 * third and fourth places, none first or last), then each label's
 * length, then the name's.  (Non-ASCII names and "xn--" labels are not
 * converted here: this ping has no IDN.)
 */
static const char *ni_idn_complaint(const char *name)
{
	size_t len;

	for (int pass = 0; pass < 2; pass++) {
		const char *label = name;

		for (;;) {
			const char *why;

			len = strcspn(label, ".");
			why = ni_label_complaint(label, len, pass);
			if (why)
				return why;
			if (!label[len])
				break;
			label += len + 1;
		}
	}
	len = strlen(name);
	if (len && name[len - 1] == '.')
		len--;
	return len > NI_NAME_MAX ? "domain name longer than 255 characters"
				 : NULL;
}

/* dn_comp() must take the name (lower case, without its %scope). */
static void ni_check_dname(const char *name, size_t len)
{
	char *canon = malloc(len + 1);
	unsigned char *buf = malloc(len + 4);
	unsigned char *ptrs[2] = { NULL, NULL };
	int n;

	if (!canon || !buf)
		error(1, 0, "memory allocation failed");
	for (size_t i = 0; i < len; i++)
		canon[i] = (char)tolower((unsigned char)name[i]);
	canon[len] = '\0';
	ptrs[0] = buf;
	n = dn_comp(canon, buf, (int)len + 4, ptrs, ptrs + 2);
	if (n < 0)
		error(1, 0, "inappropriate subject name: %s", canon);
	if ((size_t)n >= len + 4)
		error(1, 0, "dn_comp() returned too long result");
	free(buf);
	free(canon);
}

/* subject-name=, subject-fqdn=: a domain name, with an optional %scope. */
static int ni_subject_name(struct ni_query *q, int type, const char *arg)
{
	const char *why = ni_idn_complaint(arg);
	const char *scope = strchr(arg, '%');

	(void)type;
	if (ni_set_subject_type(q, NI_SUBJ_FQDN) < 0)
		return -1;
	if (why)
		error(2, 0, "IDN encoding error: %s", why);
	if (scope && strlen(scope + 1) >= IFNAMSIZ)
		error(1, 0, "too long scope name");
	ni_check_dname(arg, scope ? (size_t)(scope - arg) : strlen(arg));
	q->subject = true;
	return 0;
}

static int ni_asked_help(struct ni_query *q, int data, const char *arg)
{
	(void)q;
	(void)data;
	(void)arg;
	ni_help(true);
}

struct ni_option {
	const char *name;
	bool has_arg;		/* "name=value" */
	int data;		/* the Qtype, or the subject's kind */
	int (*handler)(struct ni_query *q, int data, const char *arg);
};

/* iputils' table, in its order (which decides what a prefix matches). */
static const struct ni_option ni_options[] = {
	{ "name", false, NI_Q_NAME, ni_set_qtype },
	{ "fqdn", false, NI_Q_NAME, ni_set_qtype },
	{ "ipv6", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv6-all", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv6-compatible", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv6-linklocal", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv6-sitelocal", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv6-global", false, NI_Q_ADDR6, ni_set_qtype },
	{ "ipv4", false, NI_Q_ADDR4, ni_set_qtype },
	{ "ipv4-all", false, NI_Q_ADDR4, ni_set_qtype },
	{ "subject-ipv6", true, NI_SUBJ_IPV6, ni_subject_addr },
	{ "subject-ipv4", true, NI_SUBJ_IPV4, ni_subject_addr },
	{ "subject-name", true, 0, ni_subject_name },
	{ "subject-fqdn", true, 0, ni_subject_name },
	{ "help", false, 0, ni_asked_help },
};

void ni_parse(struct ni_query *q, const char *arg)
{
	for (size_t i = 0; i < sizeof(ni_options) / sizeof(ni_options[0]);
	     i++) {
		const struct ni_option *p = &ni_options[i];
		size_t n = strlen(p->name);

		if (strncmp(p->name, arg, n) != 0 ||
		    arg[n] != (p->has_arg ? '=' : '\0'))
			continue;
		if (p->handler(q, p->data, p->has_arg ? arg + n + 1 : NULL) >= 0) {
			q->given = true;
			return;
		}
	}
	ni_help(false);
}
