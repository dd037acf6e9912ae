#include "engine/policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void policy_default(struct policy *p)
{
	p->gid_low = 0;
	p->gid_high = UINT32_MAX - 1;	/* (gid_t)-1 is "no gid" */
	p->min_interval_ms = 0;
	p->ident_keep = true;
}

static int parse_u32(const char **s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	v = strtoull(*s, &end, 10);
	if (errno || v > UINT32_MAX)
		return -1;
	*s = end;
	*out = (uint32_t)v;
	return 0;
}

/* Nothing but blanks may follow a value. */
static int expect_end(const char *val, const char *key, char *why,
		      size_t whylen)
{
	while (*val == ' ' || *val == '\t')
		val++;
	if (*val) {
		snprintf(why, whylen, "%s: unexpected \"%s\"", key, val);
		return -1;
	}
	return 0;
}

static int parse_groups(struct policy *p, const char *val, char *why,
			size_t whylen)
{
	uint32_t lo, hi;

	if (parse_u32(&val, &lo) || parse_u32(&val, &hi)) {
		snprintf(why, whylen, "groups: expected two gids, LOW HIGH");
		return -1;
	}
	if (expect_end(val, "groups", why, whylen))
		return -1;
	p->gid_low = lo;
	p->gid_high = hi;
	return 0;
}

static int parse_min_interval(struct policy *p, const char *val, char *why,
			      size_t whylen)
{
	uint32_t ms;

	if (parse_u32(&val, &ms) || ms > 60000) {
		snprintf(why, whylen, "min_interval: expected milliseconds, "
			 "0 to 60000");
		return -1;
	}
	if (expect_end(val, "min_interval", why, whylen))
		return -1;
	p->min_interval_ms = ms;
	return 0;
}

static int parse_ident_keep(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	if (strcmp(val, "yes") == 0) {
		p->ident_keep = true;
	} else if (strcmp(val, "no") == 0) {
		p->ident_keep = false;
	} else {
		snprintf(why, whylen, "ident_keep: expected yes or no");
		return -1;
	}
	return 0;
}

struct key {
	const char *name;
	int (*parse)(struct policy *p, const char *val, char *why, size_t len);
};

static const struct key keys[] = {
	{ "groups", parse_groups },
	{ "min_interval", parse_min_interval },
	{ "ident_keep", parse_ident_keep },
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int parse_line(struct policy *p, char *line, char *why, size_t wl)
{
	char *eq, *k, *v, *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	k = trim(line);
	if (!*k)
		return 0;
	eq = strchr(k, '=');
	if (!eq) {
		snprintf(why, wl, "expected KEY = VALUE");
		return -1;
	}
	*eq = '\0';
	k = trim(k);
	v = trim(eq + 1);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(k, keys[i].name) == 0)
			return keys[i].parse(p, v, why, wl);
	}
	snprintf(why, wl, "unknown key \"%s\"", k);
	return -1;
}

int policy_parse(struct policy *out, const char *text, size_t len,
		 const char *name, char *err, size_t errlen)
{
	struct policy p;
	char line[1024], why[256];
	size_t i = 0, lineno = 0;

	policy_default(&p);
	while (i < len) {
		size_t n = 0;

		lineno++;
		while (i < len && text[i] != '\n') {
			if (text[i] == '\0' || n + 1 >= sizeof(line)) {
				snprintf(err, errlen, "%s:%zu: %s", name, lineno,
					 text[i] ? "line too long" : "NUL byte");
				return -1;
			}
			line[n++] = text[i++];
		}
		line[n] = '\0';
		i++;
		if (parse_line(&p, line, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%zu: %s", name, lineno, why);
			return -1;
		}
	}
	*out = p;
	return 0;
}

bool policy_gid_allowed(const struct policy *p, gid_t egid,
			const gid_t *groups, size_t ngroups)
{
	if (egid >= p->gid_low && egid <= p->gid_high)
		return true;
	for (size_t i = 0; i < ngroups; i++) {
		if (groups[i] >= p->gid_low && groups[i] <= p->gid_high)
			return true;
	}
	return false;
}
