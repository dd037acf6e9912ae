/* SPDX-License-Identifier: ISC */
/*
 * test_policy - the configuration parser and the gid check
 * (src/engine/policy.c).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "engine/policy.h"
#include "check.h"

static char err[256];

static int parse(struct policy *p, const char *text)
{
	err[0] = '\0';
	return policy_parse(p, text, strlen(text), "test.conf", err,
			    sizeof(err));
}

static int allowed(const struct policy *p, gid_t egid)
{
	return policy_gid_allowed(p, egid, NULL, 0);
}

/* No file, or an empty one: every gid may open sockets. */
static void defaults_allow_everyone(void)
{
	struct policy p;

	policy_default(&p);
	CHECK(allowed(&p, 0));
	CHECK(allowed(&p, 1));
	CHECK(allowed(&p, 100));
	CHECK(allowed(&p, 65534));
	CHECK(allowed(&p, 2147483647));
	CHECK(allowed(&p, (gid_t)-2));

	memset(&p, 0xa5, sizeof(p));
	CHECK_EQ(parse(&p, ""), 0);
	CHECK(allowed(&p, 0));
	CHECK(allowed(&p, 65534));
	CHECK(allowed(&p, (gid_t)-2));
	CHECK_EQ(policy_parse(&p, NULL, 0, "x", err, sizeof(err)), 0);
	CHECK(allowed(&p, 12345));
}

static void groups_range(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, "groups = 100 200\n"), 0);
	CHECK_EQ(p.gid_low, 100);
	CHECK_EQ(p.gid_high, 200);
	CHECK(!allowed(&p, 0));
	CHECK(!allowed(&p, 99));
	CHECK(allowed(&p, 100));
	CHECK(allowed(&p, 150));
	CHECK(allowed(&p, 200));
	CHECK(!allowed(&p, 201));
	CHECK(!allowed(&p, (gid_t)-1));

	/* No spaces, tabs, no final newline, CRLF: all the same. */
	CHECK_EQ(parse(&p, "groups=5 6"), 0);
	CHECK_EQ(p.gid_low, 5);
	CHECK_EQ(p.gid_high, 6);
	CHECK_EQ(parse(&p, "\tgroups\t=\t7\t8\t\r\n"), 0);
	CHECK_EQ(p.gid_low, 7);
	CHECK_EQ(p.gid_high, 8);
	CHECK_EQ(parse(&p, "groups = 0 4294967294"), 0);
	CHECK(allowed(&p, 4294967294u));
	/* A later line wins. */
	CHECK_EQ(parse(&p, "groups = 1 2\ngroups = 3 4\n"), 0);
	CHECK_EQ(p.gid_low, 3);
	CHECK_EQ(p.gid_high, 4);
}

/* The egid or any supplementary gid, as ping_group_range. */
static void egid_or_supplementary(void)
{
	struct policy p;
	const gid_t in[] = { 5, 7, 150 }, out[] = { 5, 7, 99, 201 };

	CHECK_EQ(parse(&p, "groups = 100 200"), 0);
	CHECK(policy_gid_allowed(&p, 150, NULL, 0));
	CHECK(policy_gid_allowed(&p, 150, out, 4));
	CHECK(policy_gid_allowed(&p, 1000, in, 3));
	CHECK(!policy_gid_allowed(&p, 1000, out, 4));
	CHECK(!policy_gid_allowed(&p, 1000, in, 2));	/* only ngroups */
	CHECK(!policy_gid_allowed(&p, 1000, NULL, 0));
	CHECK(policy_gid_allowed(&p, 1000, (const gid_t[]){ 200 }, 1));
}

/* "1 0", the kernel's default, and any LOW > HIGH: nobody. */
static void one_zero_allows_nobody(void)
{
	struct policy p;
	const gid_t g[] = { 0, 1, 2, 100 };

	CHECK_EQ(parse(&p, "groups = 1 0\n"), 0);
	CHECK(!allowed(&p, 0));
	CHECK(!allowed(&p, 1));
	CHECK(!allowed(&p, 65534));
	CHECK(!policy_gid_allowed(&p, 0, g, 4));
	CHECK_EQ(parse(&p, "groups = 300 200\n"), 0);
	CHECK(!allowed(&p, 250));
	CHECK(!allowed(&p, 200));
	CHECK(!allowed(&p, 300));
}

static void comments_and_blank_lines(void)
{
	struct policy p;
	const char *text =
		"# pingsockd.conf\n"
		"\n"
		"   \n"
		"\t\r\n"
		"   # indented comment = with an equals sign\n"
		"groups = 10 20   # trailing comment\n"
		"#groups = 0 0\n"
		"\n";

	CHECK_EQ(parse(&p, text), 0);
	CHECK_EQ(p.gid_low, 10);
	CHECK_EQ(p.gid_high, 20);
	CHECK_EQ(parse(&p, "#only a comment"), 0);
	CHECK_EQ(parse(&p, "\n\n\n"), 0);
}

/* Every error: refused with "name:LINE: reason". */
static void check_error(const char *text, const char *prefix,
			const char *needle)
{
	struct policy p;

	CHECK_EQ(parse(&p, text), -1);
	CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
	CHECK(strstr(err, needle) != NULL);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, needle))
		printf("# got \"%s\", expected \"%s...%s...\"\n", err, prefix,
		       needle);
}

static void error_unknown_key(void)
{
	check_error("groups = 1 2\n\n# c\ngruops = 1 2\n", "test.conf:4: ",
		    "gruops");
	check_error("Groups = 1 2", "test.conf:1: ", "Groups");
	check_error("= 1 2", "test.conf:1: ", "unknown key");
}

static void error_missing_equals(void)
{
	check_error("groups 1 2\n", "test.conf:1: ", "KEY = VALUE");
	check_error("\n\ngroups\n", "test.conf:3: ", "KEY = VALUE");
}

static void error_bad_numbers(void)
{
	check_error("groups = a b\n", "test.conf:1: ", "groups");
	check_error("groups = 1\n", "test.conf:1: ", "groups");
	check_error("groups =\n", "test.conf:1: ", "groups");
	check_error("groups = -1 5\n", "test.conf:1: ", "groups");
	check_error("groups = 1 -5\n", "test.conf:1: ", "groups");
	check_error("groups = +1 5\n", "test.conf:1: ", "groups");
	check_error("groups = 4294967296 1\n", "test.conf:1: ", "groups");
	check_error("groups = 1 99999999999999999999999\n", "test.conf:1: ",
		    "groups");
	check_error("groups = 0x10 20\n", "test.conf:1: ", "groups");
	check_error("# x\ngroups = 1,2\n", "test.conf:2: ", "groups");
}

static void error_trailing_junk(void)
{
	check_error("groups = 1 2 3\n", "test.conf:1: ", "\"3\"");
	check_error("groups = 1 2x\n", "test.conf:1: ", "x");
	check_error("groups = 1 2 ;\n", "test.conf:1: ", ";");
}

static void error_nul_byte(void)
{
	static const char text[] = "# ok\ngroups = 1\0 2\n";
	struct policy p;

	err[0] = '\0';
	CHECK_EQ(policy_parse(&p, text, sizeof(text) - 1, "test.conf", err,
			      sizeof(err)), -1);
	CHECK(strncmp(err, "test.conf:2: ", 13) == 0);
	CHECK(strstr(err, "NUL") != NULL);
	/* A NUL inside a comment is no better. */
	err[0] = '\0';
	CHECK_EQ(policy_parse(&p, "#\0\n", 3, "test.conf", err, sizeof(err)),
		 -1);
	CHECK(strncmp(err, "test.conf:1: ", 13) == 0);
}

static void error_overlong_line(void)
{
	static char text[4096];
	struct policy p;

	/* 1023 characters is the longest line there is room for. */
	memset(text, ' ', sizeof(text));
	text[0] = '#';
	CHECK_EQ(policy_parse(&p, text, 1023, "test.conf", err, sizeof(err)),
		 0);
	text[1023] = '\n';
	CHECK_EQ(policy_parse(&p, text, 1024, "test.conf", err, sizeof(err)),
		 0);

	memset(text, ' ', sizeof(text));
	memcpy(text, "\n\n#", 3);
	err[0] = '\0';
	CHECK_EQ(policy_parse(&p, text, 3000, "test.conf", err, sizeof(err)),
		 -1);
	CHECK(strncmp(err, "test.conf:3: ", 13) == 0);
	CHECK(strstr(err, "too long") != NULL);
}

/* A failed parse leaves the policy in force untouched. */
static void failure_leaves_output_untouched(void)
{
	static const char *const bad[] = {
		"groups = 1 2\nbogus = 3\n",
		"groups = 5 6\ngroups = x\n",
		"groups = 5 6\ngroups 5\n",
		"groups = 5 6 7\n",
	};
	struct policy p, before;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 0x5c, sizeof(p));
		p.gid_low = 40;
		p.gid_high = 50;
		before = p;
		CHECK_EQ(parse(&p, bad[i]), -1);
		CHECK(memcmp(&p, &before, sizeof(p)) == 0);
	}
	memset(&p, 0x5c, sizeof(p));
	before = p;
	CHECK_EQ(policy_parse(&p, "groups = 1 2\n\0", 14, "n", err,
			      sizeof(err)), -1);
	CHECK(memcmp(&p, &before, sizeof(p)) == 0);
}

/* min_interval: milliseconds, 0 to 60000; junk and overflow refused. */
static void min_interval_key(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, ""), 0);
	CHECK_EQ(p.min_interval_ms, 0);
	CHECK_EQ(parse(&p, "min_interval = 200\n"), 0);
	CHECK_EQ(p.min_interval_ms, 200);
	CHECK_EQ(p.gid_low, 0);
	CHECK_EQ(parse(&p, "min_interval = 60001\n"), -1);
	CHECK(strstr(err, "test.conf:1: min_interval") != NULL);
	CHECK_EQ(parse(&p, "groups = 1 2\nmin_interval = 5 ms\n"), -1);
	CHECK(strstr(err, "test.conf:2: min_interval: unexpected") != NULL);
}

/* ident_keep: yes or no, nothing else; default yes. */
static void ident_keep_key(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, ""), 0);
	CHECK(p.ident_keep);
	CHECK_EQ(parse(&p, "ident_keep = no\n"), 0);
	CHECK(!p.ident_keep);
	CHECK_EQ(parse(&p, "ident_keep = yes # the default\n"), 0);
	CHECK(p.ident_keep);
	CHECK_EQ(parse(&p, "\nident_keep = maybe\n"), -1);
	CHECK(strstr(err, "test.conf:2: ident_keep: expected yes or no") != NULL);
	CHECK_EQ(parse(&p, "ident_keep = 1\n"), -1);
}

/* raw_compat: yes or no, nothing else; default no. */
static void raw_compat_key(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, ""), 0);
	CHECK(!p.raw_compat);
	CHECK_EQ(parse(&p, "raw_compat = yes\n"), 0);
	CHECK(p.raw_compat);
	CHECK(p.ident_keep);	/* the other yes/no key keeps its own */
	CHECK_EQ(parse(&p, "raw_compat = no # the default\n"), 0);
	CHECK(!p.raw_compat);
	CHECK_EQ(parse(&p, "groups = 0 10\nraw_compat = echo\n"), -1);
	CHECK(strstr(err, "test.conf:2: raw_compat: expected yes or no") != NULL);
	CHECK_EQ(parse(&p, "raw_compat = yes no\n"), -1);
	CHECK_EQ(parse(&p, "raw_compat =\n"), -1);
}

/* mode, broker_group, relay_uids: defaults relay, "", nobody. */
static void broker_keys(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, ""), 0);
	CHECK_EQ(p.mode, POLICY_RELAY);
	CHECK_EQ(p.broker_group[0], '\0');
	CHECK(!policy_uid_relayed(&p, 0));
	CHECK(!policy_uid_relayed(&p, 1));
	CHECK_EQ(parse(&p, "mode = broker\nbroker_group = pingsock\n"
			   "relay_uids = 1000 1999\n"), 0);
	CHECK_EQ(p.mode, POLICY_BROKER);
	CHECK(strcmp(p.broker_group, "pingsock") == 0);
	CHECK(!policy_uid_relayed(&p, 999));
	CHECK(policy_uid_relayed(&p, 1000));
	CHECK(policy_uid_relayed(&p, 1999));
	CHECK(!policy_uid_relayed(&p, 2000));
	CHECK_EQ(parse(&p, "mode = auto\nbroker_group = 64999\n"), 0);
	CHECK_EQ(p.mode, POLICY_AUTO);
	CHECK(strcmp(policy_mode_name(p.mode), "auto") == 0);
	CHECK_EQ(parse(&p, "mode = fast\n"), -1);
	CHECK(strstr(err, "test.conf:1: mode: expected relay, broker or auto") != NULL);
	CHECK_EQ(parse(&p, "broker_group = a b\n"), -1);
	CHECK_EQ(parse(&p, "broker_group = -x\n"), -1);
	CHECK_EQ(parse(&p, "broker_group = "
			   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"), -1);
	CHECK_EQ(parse(&p, "relay_uids = 5\n"), -1);
	CHECK(strstr(err, "relay_uids: expected two uids") != NULL);
	CHECK_EQ(parse(&p, "relay_uids = 1 2 3\n"), -1);
}

/* Limits: numbers in range, defaults 8192 sockets (2,000 pings of one
 * user open two each), 4096 connections and identifiers, no rate (as
 * the kernel: the 2,000 pings send 10,000 a second), burst 100. */
static void limit_keys(void)
{
	struct policy p;

	CHECK_EQ(parse(&p, ""), 0);
	CHECK_EQ(p.max_sockets, 8192);
	CHECK_EQ(p.max_connections, 4096);
	CHECK_EQ(p.max_idents, 4096);
	CHECK_EQ(p.rate, 0);
	CHECK_EQ(p.burst, 100);
	CHECK_EQ(p.max_request, 65535);
	CHECK_EQ(parse(&p, "max_sockets = 0\nrate = 100\nburst = 7\n"
			   "max_request = 100\n"), 0);
	CHECK_EQ(p.max_sockets, 0);
	CHECK_EQ(p.rate, 100);
	CHECK_EQ(p.burst, 7);
	CHECK_EQ(p.max_request, 100);
	CHECK_EQ(parse(&p, "burst = 0\n"), -1);
	CHECK(strstr(err, "test.conf:1: burst: expected a number, 1 to") != NULL);
	CHECK_EQ(parse(&p, "max_request = 7\n"), -1);
	CHECK_EQ(parse(&p, "max_request = 65536\n"), -1);
	CHECK_EQ(parse(&p, "rate = -1\n"), -1);
	CHECK_EQ(parse(&p, "rate = 5/s\n"), -1);
	CHECK_EQ(parse(&p, "max_connections = 0\nmax_idents = 65535\n"), 0);
	CHECK_EQ(p.max_connections, 0);
	CHECK_EQ(p.max_idents, 65535);
	CHECK_EQ(parse(&p, "max_idents = 65536\n"), -1);
}

static struct ps_addr a4(const char *s)
{
	struct ps_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	inet_pton(AF_INET, s, a.a);
	return a;
}

static struct ps_addr a6(const char *s)
{
	struct ps_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	inet_pton(AF_INET6, s, a.a);
	return a;
}

/* deny/allow: longest match decides; any allow line closes the rest. */
static void networks(void)
{
	struct policy p;
	struct ps_addr x;

	CHECK_EQ(parse(&p, ""), 0);
	x = a4("10.1.2.3");
	CHECK(policy_dest_allowed(&p, &x));
	CHECK_EQ(parse(&p, "deny = 10.0.0.0/8\n"), 0);
	CHECK(!policy_dest_allowed(&p, &x));
	x = a4("11.0.0.1");
	CHECK(policy_dest_allowed(&p, &x));
	CHECK_EQ(parse(&p, "deny = 10.0.0.0/8\nallow = 10.1.0.0/16\n"), 0);
	x = a4("10.1.2.3");
	CHECK(policy_dest_allowed(&p, &x));
	x = a4("10.2.0.1");
	CHECK(!policy_dest_allowed(&p, &x));
	x = a4("192.0.2.1");	/* an allow line exists: the rest is refused */
	CHECK(!policy_dest_allowed(&p, &x));
	/* The same network both ways: deny wins. */
	CHECK_EQ(parse(&p, "allow = 10.0.0.0/8\ndeny = 10.0.0.0/8\n"), 0);
	x = a4("10.0.0.1");
	CHECK(!policy_dest_allowed(&p, &x));
	/* A host; bits past the length are ignored; IPv6. */
	CHECK_EQ(parse(&p, "deny = 10.9.9.9\ndeny = 192.168.1.77/24\n"
			   "deny = fd00::/8\n"), 0);
	x = a4("10.9.9.9");
	CHECK(!policy_dest_allowed(&p, &x));
	x = a4("10.9.9.8");
	CHECK(policy_dest_allowed(&p, &x));
	x = a4("192.168.1.1");
	CHECK(!policy_dest_allowed(&p, &x));
	x = a6("fd12::1");
	CHECK(!policy_dest_allowed(&p, &x));
	x = a6("2001:db8::1");
	CHECK(policy_dest_allowed(&p, &x));
	CHECK_EQ(parse(&p, "deny = 0.0.0.0/0\n"), 0);
	x = a4("1.2.3.4");
	CHECK(!policy_dest_allowed(&p, &x));
	x = a6("::1");		/* the other family is untouched */
	CHECK(policy_dest_allowed(&p, &x));
	CHECK_EQ(parse(&p, "deny = 10.0.0.0/33\n"), -1);
	CHECK(strstr(err, "deny: prefix length must be 0 to 32") != NULL);
	CHECK_EQ(parse(&p, "allow = fd00::/129\n"), -1);
	CHECK_EQ(parse(&p, "deny = example.org\n"), -1);
	CHECK(strstr(err, "is not an IPv4 or IPv6 address") != NULL);
	CHECK_EQ(parse(&p, "deny = 10.0.0.0/\n"), -1);
}

/* The error message is cut to the caller's buffer, still terminated. */
static void error_fits_buffer(void)
{
	struct policy p;
	char small[12];

	memset(small, 'z', sizeof(small));
	CHECK_EQ(policy_parse(&p, "nosuchkey = 1", 13, "a-long-file-name",
			      small, sizeof(small)), -1);
	CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	CHECK(strncmp(small, "a-long-file", 11) == 0);
}

/* nice: -20 to 19, setpriority()'s range; default: none (as started). */
static void nice_key(void)
{
	struct policy p;

	policy_default(&p);
	CHECK_EQ(p.nice, POLICY_NICE_KEEP);
	CHECK_EQ(parse(&p, "nice = 0\n"), 0);
	CHECK_EQ(p.nice, 0);
	CHECK_EQ(parse(&p, "nice = -20\n"), 0);
	CHECK_EQ(p.nice, -20);
	CHECK_EQ(parse(&p, "nice = 19\n"), 0);
	CHECK_EQ(p.nice, 19);
	CHECK_EQ(parse(&p, "nice = -7\n"), 0);
	CHECK_EQ(p.nice, -7);
	check_error("nice = 20\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = -21\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = - 5\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = +5\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = --5\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = 5x\n", "test.conf:1: ", "-20 to 19");
	check_error("nice = -4294967296\n", "test.conf:1: ", "-20 to 19");
	check_error("nice =\n", "test.conf:1: ", "-20 to 19");
}

/* A reload keeps the start-up keys (the daemon's, after --mode), and
 * says whether the file wanted others; the rest is the file's. */
static void reload_keeps_startup_keys(void)
{
	struct policy now, p;

	policy_default(&now);
	now.mode = POLICY_AUTO;
	now.bpf_guard = false;
	now.nice = 3;
	strcpy(now.broker_group, "pingsock");
	strcpy(now.bpf_pin_dir, "/sys/fs/bpf/x");
	CHECK_EQ(parse(&p, "bpf_guard = no\nmode = auto\nrate = 5\n"
			   "broker_group = pingsock\n"
			   "bpf_pin_dir = /sys/fs/bpf/x\nnice = 3\n"), 0);
	CHECK(!policy_startup_differs(&p, &now));
	CHECK_EQ(parse(&p, "rate = 7\n"), 0);	/* mode relay, guard yes */
	CHECK(policy_startup_differs(&p, &now));
	policy_keep_startup(&p, &now);
	CHECK(!policy_startup_differs(&p, &now));
	CHECK_EQ(p.mode, POLICY_AUTO);
	CHECK(!p.bpf_guard);
	CHECK(strcmp(p.broker_group, "pingsock") == 0);
	CHECK(strcmp(p.bpf_pin_dir, "/sys/fs/bpf/x") == 0);
	CHECK_EQ(p.rate, 7u);
	CHECK_EQ(p.nice, 3);
}

int main(void)
{
	TEST(defaults_allow_everyone);
	TEST(groups_range);
	TEST(egid_or_supplementary);
	TEST(one_zero_allows_nobody);
	TEST(comments_and_blank_lines);
	TEST(error_unknown_key);
	TEST(error_missing_equals);
	TEST(error_bad_numbers);
	TEST(error_trailing_junk);
	TEST(error_nul_byte);
	TEST(error_overlong_line);
	TEST(failure_leaves_output_untouched);
	TEST(error_fits_buffer);
	TEST(min_interval_key);
	TEST(ident_keep_key);
	TEST(broker_keys);
	TEST(raw_compat_key);
	TEST(limit_keys);
	TEST(networks);
	TEST(nice_key);
	TEST(reload_keeps_startup_keys);
	return CHECK_DONE();
}
