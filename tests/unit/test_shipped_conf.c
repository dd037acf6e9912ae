/* SPDX-License-Identifier: ISC */
/*
 * test_shipped_conf - the configuration file installed as
 * /etc/pingsock/pingsockd.conf (etc/pingsockd.conf): it parses, changes
 * nothing as shipped, names every key the parser knows, and each
 * "#key = value" line states the built-in default (uncommenting them all
 * gives the same policy as no file).  Run from the top of the tree
 * (tests/run does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/policy.h"
#include "check.h"

#define SHIPPED "etc/pingsockd.conf"

/* Every key of policy_parse(); a new key must be added here and there. */
static const char *const keys[] = {
	"groups", "min_interval", "ident_keep", "raw_compat", "max_sockets",
	"max_connections", "max_idents", "rate", "burst", "max_request",
	"mode", "broker_group", "relay_uids", "deny", "allow", "bpf_guard",
	"bpf_pin_dir", "bpf_cgroup", "nice",
};
/* Keys with no value to write as the default: prose only ("# key = "). */
static const char *const prose_only[] = { "broker_group", "deny", "allow",
					   "bpf_cgroup", "nice" };

static char text[65536];
static size_t len;
static char err[512];

static int load(void)
{
	FILE *f = fopen(SHIPPED, "r");

	len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[len] = '\0';
	return f && len > 0 && len < sizeof(text) - 1 ? 0 : -1;
}

/* Field by field: padding and unused net slots do not count. */
static int same_policy(const struct policy *a, const struct policy *b)
{
	return a->gid_low == b->gid_low && a->gid_high == b->gid_high &&
	       a->mode == b->mode &&
	       strcmp(a->broker_group, b->broker_group) == 0 &&
	       a->relay_uid_low == b->relay_uid_low &&
	       a->relay_uid_high == b->relay_uid_high &&
	       a->min_interval_ms == b->min_interval_ms &&
	       a->ident_keep == b->ident_keep &&
	       a->raw_compat == b->raw_compat &&
	       a->max_sockets == b->max_sockets &&
	       a->max_connections == b->max_connections &&
	       a->max_idents == b->max_idents && a->rate == b->rate &&
	       a->burst == b->burst && a->max_request == b->max_request &&
	       a->nnets == b->nnets && a->any_allow == b->any_allow &&
	       a->nice == b->nice;
}

/* Is line (up to its end) "#KEY = ..." for a key? */
static bool default_line(const char *line, const char **key)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n = strlen(keys[i]);

		if (line[0] == '#' && strncmp(line + 1, keys[i], n) == 0 &&
		    strncmp(line + 1 + n, " = ", 3) == 0) {
			*key = keys[i];
			return true;
		}
	}
	return false;
}

static void shipped_parses_as_defaults(void)
{
	struct policy p, d;

	policy_default(&d);
	CHECK(load() == 0);
	CHECK(policy_parse(&p, text, len, SHIPPED, err, sizeof(err)) == 0);
	CHECK(same_policy(&p, &d));
}

/* Every "#key = value" uncommented: still the built-in defaults. */
static void uncommented_defaults_are_defaults(void)
{
	static char out[sizeof(text)];
	struct policy p, d;
	size_t o = 0, lines = 0;
	const char *key;

	CHECK(load() == 0);
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);

		if (default_line(line, &key)) {
			line++, n--;	/* the "#" */
			lines++;
		}
		memcpy(out + o, line, n);
		o += n;
		line += n;
	}
	policy_default(&d);
	CHECK(policy_parse(&p, out, o, SHIPPED, err, sizeof(err)) == 0);
	if (err[0])
		printf("  %s\n", err);
	CHECK(same_policy(&p, &d));
	CHECK_EQ(lines, sizeof(keys) / sizeof(keys[0]) -
			sizeof(prose_only) / sizeof(prose_only[0]));
}

/* Each key is there: as a default line, or in prose ("# key = "). */
static void every_key_documented(void)
{
	char want[64];

	CHECK(load() == 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		bool prose = false;

		for (size_t j = 0; j < sizeof(prose_only) / sizeof(prose_only[0]); j++)
			prose |= strcmp(keys[i], prose_only[j]) == 0;
		snprintf(want, sizeof(want), "\n%s%s = ", prose ? "# " : "#",
			 keys[i]);
		if (!strstr(text, want))
			printf("  missing: %s\n", want + 1);
		CHECK(strstr(text, want) != NULL);
	}
}

int main(void)
{
	TEST(shipped_parses_as_defaults);
	TEST(uncommented_defaults_are_defaults);
	TEST(every_key_documented);
	return CHECK_DONE();
}
