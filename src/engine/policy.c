/* SPDX-License-Identifier: ISC */
#include "engine/policy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void policy_default(struct policy *p)
{
	p->gid_low = 0;
	p->gid_high = UINT32_MAX - 1;	/* (gid_t)-1 is "no gid" */
	p->mode = POLICY_RELAY;
	p->broker_group[0] = '\0';
	p->bpf_guard = true;
	p->bpf_cgroup[0] = '\0';
	snprintf(p->bpf_pin_dir, sizeof(p->bpf_pin_dir), "%s",
		 POLICY_PIN_DIR_DEFAULT);
	p->nice = POLICY_NICE_KEEP;
	p->relay_uid_low = 1;
	p->relay_uid_high = 0;
	p->min_interval_ms = 0;
	p->ident_keep = true;
	p->raw_compat = false;
	p->max_sockets = 8192;
	p->max_connections = 4096;
	p->max_idents = 4096;
	p->rate = 0;		/* as the kernel: no limit */
	p->burst = 100;
	p->max_request = 65535;
	p->nnets = 0;
	p->any_allow = false;
}

void policy_keep_startup(struct policy *p, const struct policy *now)
{
	p->mode = now->mode;
	p->bpf_guard = now->bpf_guard;
	p->nice = now->nice;
	memcpy(p->broker_group, now->broker_group, sizeof(p->broker_group));
	memcpy(p->bpf_cgroup, now->bpf_cgroup, sizeof(p->bpf_cgroup));
	memcpy(p->bpf_pin_dir, now->bpf_pin_dir, sizeof(p->bpf_pin_dir));
}

bool policy_startup_differs(const struct policy *a, const struct policy *b)
{
	return a->mode != b->mode || a->bpf_guard != b->bpf_guard ||
	       a->nice != b->nice ||
	       strcmp(a->broker_group, b->broker_group) != 0 ||
	       strcmp(a->bpf_cgroup, b->bpf_cgroup) != 0 ||
	       strcmp(a->bpf_pin_dir, b->bpf_pin_dir) != 0;
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

/* "LOW HIGH" for key, two ids of kind ("gids", "uids"). */
static int parse_idrange(const char *val, const char *key, const char *kind,
			 uint32_t *lo, uint32_t *hi, char *why, size_t whylen)
{
	uint32_t l, h;

	if (parse_u32(&val, &l) || parse_u32(&val, &h)) {
		snprintf(why, whylen, "%s: expected two %s, LOW HIGH", key, kind);
		return -1;
	}
	if (expect_end(val, key, why, whylen))
		return -1;
	*lo = l;
	*hi = h;
	return 0;
}

static int parse_groups(struct policy *p, const char *val, char *why,
			size_t whylen)
{
	return parse_idrange(val, "groups", "gids", &p->gid_low, &p->gid_high,
			     why, whylen);
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

/* "yes" or "no", nothing else. */
static int parse_yes_no(const char *val, const char *key, bool *out,
			char *why, size_t whylen)
{
	if (strcmp(val, "yes") == 0) {
		*out = true;
	} else if (strcmp(val, "no") == 0) {
		*out = false;
	} else {
		snprintf(why, whylen, "%s: expected yes or no", key);
		return -1;
	}
	return 0;
}

static int parse_ident_keep(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	return parse_yes_no(val, "ident_keep", &p->ident_keep, why, whylen);
}

static int parse_raw_compat(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	return parse_yes_no(val, "raw_compat", &p->raw_compat, why, whylen);
}

static int parse_num(const char *val, const char *key, uint32_t lo,
		     uint32_t hi, uint32_t *out, char *why, size_t whylen)
{
	uint32_t v;

	if (parse_u32(&val, &v) || v < lo || v > hi) {
		snprintf(why, whylen, "%s: expected a number, %u to %u", key,
			 (unsigned)lo, (unsigned)hi);
		return -1;
	}
	if (expect_end(val, key, why, whylen))
		return -1;
	*out = v;
	return 0;
}

static int parse_max_sockets(struct policy *p, const char *val, char *why,
			     size_t whylen)
{
	return parse_num(val, "max_sockets", 0, 1000000, &p->max_sockets, why,
			 whylen);
}

static int parse_max_connections(struct policy *p, const char *val,
				 char *why, size_t whylen)
{
	return parse_num(val, "max_connections", 0, 1000000,
			 &p->max_connections, why, whylen);
}

static int parse_max_idents(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	return parse_num(val, "max_idents", 0, 65535, &p->max_idents, why,
			 whylen);
}

static int parse_rate(struct policy *p, const char *val, char *why,
		      size_t whylen)
{
	return parse_num(val, "rate", 0, 1000000, &p->rate, why, whylen);
}

static int parse_burst(struct policy *p, const char *val, char *why,
		       size_t whylen)
{
	return parse_num(val, "burst", 1, 1000000, &p->burst, why, whylen);
}

static int parse_max_request(struct policy *p, const char *val, char *why,
			     size_t whylen)
{
	return parse_num(val, "max_request", 8, 65535, &p->max_request, why,
			 whylen);
}

/* Keep the first plen bits of a. */
static void mask_to(struct ps_addr *a, unsigned plen)
{
	size_t n = ps_addr_len(a->family);

	for (size_t i = 0; i < n; i++) {
		unsigned bits = plen > i * 8 ? plen - (unsigned)i * 8 : 0;

		if (bits < 8)
			a->a[i] &= (uint8_t)(0xff00u >> bits);
	}
}

/* "10.0.0.0/8", "fd00::/8", or an address alone (a host). */
static int parse_net(struct policy *p, const char *val, bool allow,
		     char *why, size_t whylen)
{
	const char *key = allow ? "allow" : "deny";
	char buf[64], *slash;
	struct policy_net n = { .allow = allow };
	unsigned long plen;
	char *end;

	if (!*val || snprintf(buf, sizeof(buf), "%s", val) >= (int)sizeof(buf)) {
		snprintf(why, whylen, "%s: expected NETWORK/LENGTH", key);
		return -1;
	}
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, n.addr.a) == 1) {
		n.addr.family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, n.addr.a) == 1) {
		n.addr.family = AF_INET6;
	} else {
		snprintf(why, whylen, "%s: \"%s\" is not an IPv4 or IPv6 address",
			 key, buf);
		return -1;
	}
	plen = n.addr.family == AF_INET6 ? 128 : 32;
	if (slash) {
		unsigned long max = plen;

		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || plen > max) {
			snprintf(why, whylen, "%s: prefix length must be 0 to %lu",
				 key, max);
			return -1;
		}
	}
	if (p->nnets >= POLICY_MAX_NETS) {
		snprintf(why, whylen, "%s: more than %d networks", key,
			 POLICY_MAX_NETS);
		return -1;
	}
	n.plen = (uint8_t)plen;
	mask_to(&n.addr, n.plen);
	p->nets[p->nnets++] = n;
	p->any_allow |= allow;
	return 0;
}

static int parse_deny(struct policy *p, const char *val, char *why,
		      size_t whylen)
{
	return parse_net(p, val, false, why, whylen);
}

static int parse_allow(struct policy *p, const char *val, char *why,
		       size_t whylen)
{
	return parse_net(p, val, true, why, whylen);
}

int policy_mode_parse(const char *s)
{
	static const char *const names[] = { "relay", "broker", "auto" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *policy_mode_name(enum policy_mode m)
{
	return m == POLICY_BROKER ? "broker" : m == POLICY_AUTO ? "auto"
								 : "relay";
}

static int parse_mode(struct policy *p, const char *val, char *why,
		      size_t whylen)
{
	int m = policy_mode_parse(val);

	if (m < 0) {
		snprintf(why, whylen, "mode: expected relay, broker or auto");
		return -1;
	}
	p->mode = (enum policy_mode)m;
	return 0;
}

/* A group name as useradd(8) allows it, or a number. */
static int parse_broker_group(struct policy *p, const char *val, char *why,
			      size_t whylen)
{
	size_t n = strlen(val);
	bool ok = n > 0 && n < sizeof(p->broker_group) && val[0] != '-';

	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)val[i]) || val[i] == '_' ||
		     val[i] == '-' || val[i] == '.';
	if (!ok) {
		snprintf(why, whylen, "broker_group: expected a group name or "
			 "a gid");
		return -1;
	}
	memcpy(p->broker_group, val, n + 1);
	return 0;
}

static int parse_relay_uids(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	return parse_idrange(val, "relay_uids", "uids", &p->relay_uid_low,
			     &p->relay_uid_high, why, whylen);
}

bool policy_per_packet(const struct policy *p)
{
	return p->rate || p->min_interval_ms || p->max_request < 65535 ||
	       p->nnets;
}

bool policy_uid_relayed(const struct policy *p, uint32_t uid)
{
	return p->relay_uid_low <= uid && uid <= p->relay_uid_high;
}

struct key {
	const char *name;
	int (*parse)(struct policy *p, const char *val, char *why, size_t len);
};

static int parse_bpf_guard(struct policy *p, const char *val, char *why,
			   size_t whylen)
{
	return parse_yes_no(val, "bpf_guard", &p->bpf_guard, why, whylen);
}

/* An absolute path without "..", that fits. */
static int parse_path(const char *val, const char *key, char *out,
		      size_t outlen, char *why, size_t whylen)
{
	size_t n = strlen(val);

	if (val[0] != '/' || n >= outlen || strstr(val, "/..") ||
	    strchr(val, '\n')) {
		snprintf(why, whylen, "%s: expected an absolute path (at most "
			 "%zu bytes, no \"..\")", key, outlen - 1);
		return -1;
	}
	memcpy(out, val, n + 1);
	return 0;
}

static int parse_bpf_cgroup(struct policy *p, const char *val, char *why,
			    size_t whylen)
{
	return parse_path(val, "bpf_cgroup", p->bpf_cgroup,
			  sizeof(p->bpf_cgroup), why, whylen);
}

static int parse_bpf_pin_dir(struct policy *p, const char *val, char *why,
			     size_t whylen)
{
	return parse_path(val, "bpf_pin_dir", p->bpf_pin_dir,
			  sizeof(p->bpf_pin_dir), why, whylen);
}

int policy_nice_parse(const char *s, int *out)
{
	bool neg = *s == '-';
	uint32_t v;

	if (neg)
		s++;
	if (!isdigit((unsigned char)*s) || parse_u32(&s, &v) ||
	    v > (neg ? 20u : 19u))
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s)
		return -1;
	*out = neg ? -(int)v : (int)v;
	return 0;
}

static int parse_nice(struct policy *p, const char *val, char *why,
		      size_t whylen)
{
	if (policy_nice_parse(val, &p->nice)) {
		snprintf(why, whylen, "nice: expected -20 to 19");
		return -1;
	}
	return 0;
}

static const struct key keys[] = {
	{ "groups", parse_groups },
	{ "min_interval", parse_min_interval },
	{ "ident_keep", parse_ident_keep },
	{ "raw_compat", parse_raw_compat },
	{ "max_sockets", parse_max_sockets },
	{ "max_connections", parse_max_connections },
	{ "max_idents", parse_max_idents },
	{ "rate", parse_rate },
	{ "burst", parse_burst },
	{ "max_request", parse_max_request },
	{ "mode", parse_mode },
	{ "broker_group", parse_broker_group },
	{ "relay_uids", parse_relay_uids },
	{ "bpf_guard", parse_bpf_guard },
	{ "bpf_cgroup", parse_bpf_cgroup },
	{ "bpf_pin_dir", parse_bpf_pin_dir },
	{ "nice", parse_nice },
	{ "deny", parse_deny },
	{ "allow", parse_allow },
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

bool policy_dest_allowed(const struct policy *p, const struct ps_addr *dst)
{
	const struct policy_net *best = NULL;

	for (unsigned i = 0; i < p->nnets; i++) {
		const struct policy_net *n = &p->nets[i];
		struct ps_addr a = *dst;

		if (n->addr.family != dst->family ||
		    (best && n->plen <= best->plen &&
		     !(n->plen == best->plen && !n->allow)))
			continue;
		mask_to(&a, n->plen);
		if (ps_addr_eq(&a, &n->addr))
			best = n;
	}
	if (best)
		return best->allow;
	return !p->any_allow;
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
