/* SPDX-License-Identifier: ISC */
/*
 * pingsockctl - ask a running pingsockd how it is doing.
 *
 *   pingsockctl [--socket PATH] status    counters, sockets per uid
 *   pingsockctl [--socket PATH] table     one line per open socket
 *   pingsockctl [--socket PATH] metrics   Prometheus text format 0.0.4
 *   pingsockctl --version                 its own version
 *
 * Any user may run it, over the daemon's own control socket.  The daemon
 * answers WIRE_TABLE with every socket for root (SO_PEERCRED uid 0) and
 * with the caller's own uid's sockets for anyone else, and WIRE_USERS (the
 * per-uid counters) likewise; the totals are everyone's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/call.h"
#include "pingsock.h"
#include "wire/wire.h"

#ifndef PINGSOCK_VERSION
#define PINGSOCK_VERSION "unknown"	/* pingsock.h and the Makefile */
#endif

/* More than any page count a real daemon has: a loop guard. */
#define MAX_PAGES (1u << 20)
/* More uids than a daemon keeps state for (each holds a connection, a
 * socket or a recent send): what a hostile daemon can make us hold. */
#define MAX_USERS (1u << 20)

struct table {
	struct wire_table_hdr hdr;	/* of the first page: the totals */
	struct wire_table_entry *e;
	size_t n, cap;
	bool all;			/* every uid's sockets are listed */
};

struct users {
	struct wire_user_entry *e;
	size_t n, cap;
	bool all;			/* every uid is listed */
};

struct uidsum {
	uint32_t uid;
	uint64_t sockets, idents, requests, replies, errors, drops;
};

static const char *sock_path;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "pingsockctl: %s: %s\n", what, why);
	exit(1);
}

/*
 * One request, one answer, through the library's request client (the
 * answer checked by its request type's row, as every libpingsock call's
 * is).  Returns the answer's result (>= 0, or -errno); *blen is in: the
 * room in body, out: the body's length.  Exits when the daemon goes away
 * or answers out of protocol.
 */
static int32_t call(int fd, const struct wire_req *req, uint8_t *body,
		    size_t *blen)
{
	int rc = call_exchange(fd, req, NULL, 0, body, blen, NULL);

	if (rc == WIRE_R_BROKEN)
		die(sock_path, "the daemon closed the connection");
	if (rc == WIRE_R_MALFORMED)
		die(sock_path, "malformed answer from the daemon");
	if (rc == -EINVAL)
		die(wire_type_name(req->type), "cannot encode the request");
	return rc;
}

static int dial(const char *path)
{
	static const uint8_t zero[WIRE_NONCE_LEN];
	uint8_t token[WIRE_NONCE_LEN];
	uint32_t slot;		/* an answer slot: it makes no send */
	int fd = call_connect(path), rc, arena = -1;

	if (fd == -ENAMETOOLONG) {
		fprintf(stderr, "pingsockctl: %s: path too long\n", path);
		exit(2);
	}
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ECONNREFUSED)
			fprintf(stderr, "pingsockctl: pingsockd is not running "
				"(%s: %s)\n", path, strerror(-fd));
		else
			fprintf(stderr, "pingsockctl: %s: %s\n", path,
				strerror(-fd));
		exit(1);
	}
	rc = call_hello(fd, zero, token, &slot, &arena);
	if (arena >= 0)
		close(arena);	/* a state arena: pingsockctl opens no socket */
	if (rc == WIRE_R_BROKEN)
		die(path, "the daemon closed the connection");
	if (rc != 0) {
		fprintf(stderr, "pingsockctl: %s: the daemon does not speak "
			"protocol version %d (a different pingsock version?)\n",
			path, WIRE_VERSION);
		exit(1);
	}
	return fd;
}

static void get_stats(int fd, struct wire_stats *st)
{
	struct wire_req req = { .type = WIRE_STATS };
	size_t len = sizeof(*st);
	int32_t rc = call(fd, &req, (uint8_t *)st, &len);

	if (rc != 0)
		die("stats", strerror(-rc));
	if (len != sizeof(*st))
		die("stats", "malformed answer from the daemon");
}

/* The log lines the daemon could not write, if it counts them (last: an
 * older daemon takes the request for a bad one and hangs up). */
static bool get_loglost(int fd, uint64_t *n)
{
	struct wire_req req = { .type = WIRE_LOGLOST };
	size_t len = sizeof(*n);

	/* Not call(): a hang-up here is an older daemon, not an error. */
	return call_exchange(fd, &req, NULL, 0, n, &len, NULL) == 0 &&
	       len == sizeof(*n);
}

/* Room for n more entries of size each in *v (cap of them now). */
static void *grow(void *v, size_t *cap, size_t n, size_t size,
		  const char *what)
{
	size_t nc = *cap ? *cap : 256;

	if (n <= *cap)
		return v;
	while (nc < n)
		nc *= 2;
	v = realloc(v, nc * size);
	if (!v)
		die(what, strerror(ENOMEM));
	*cap = nc;
	return v;
}

/* Every page of the per-uid counters, ascending by uid (the check says
 * so, and that each page moves the cursor on). */
static void get_users(int fd, struct users *u)
{
	static uint8_t body[WIRE_RESP_BODY_MAX];
	struct wire_req req = { .type = WIRE_USERS };
	unsigned pages = 0;

	memset(u, 0, sizeof(*u));
	do {
		struct wire_users_hdr h;
		size_t len = sizeof(body);
		int32_t rc = call(fd, &req, body, &len);

		if (rc != 0)
			die("users", strerror(-rc));
		if (wire_users_check(body, len, req.u.cursor, &h) != 0 ||
		    ++pages > MAX_PAGES || u->n + h.count > MAX_USERS)
			die("users", "malformed answer from the daemon");
		if (pages == 1)
			u->all = (h.flags & WIRE_USERS_ALL) != 0;
		u->e = grow(u->e, &u->cap, u->n + h.count, sizeof(*u->e),
			    "users");
		for (size_t i = 0; i < h.count; i++)
			wire_user_entry_at(body, i, &u->e[u->n++]);
		req.u.cursor = h.next;
	} while (req.u.cursor);
}

/* Every page of the table, from cursor 0 until the daemon says no more. */
static void get_table(int fd, struct table *t)
{
	static uint8_t body[WIRE_RESP_BODY_MAX];
	struct wire_req req = { .type = WIRE_TABLE };
	unsigned pages = 0;

	memset(t, 0, sizeof(*t));
	do {
		struct wire_table_hdr h;
		size_t len = sizeof(body);
		int32_t rc = call(fd, &req, body, &len);

		if (rc != 0)
			die("table", strerror(-rc));
		if (wire_table_check(body, len, &h) != 0 ||
		    (h.next && h.next <= req.u.cursor) || ++pages > MAX_PAGES)
			die("table", "malformed answer from the daemon");
		if (pages == 1) {
			t->hdr = h;
			t->all = (h.flags & WIRE_TABLE_ALL) != 0;
		}
		t->e = grow(t->e, &t->cap, t->n + h.count, sizeof(*t->e),
			    "table");
		for (size_t i = 0; i < h.count; i++)
			wire_table_entry_at(body, i, &t->e[t->n++]);
		req.u.cursor = h.next;
	} while (req.u.cursor);
}

static int cmp_uid_ident(const void *a, const void *b)
{
	const struct wire_table_entry *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	if (x->ident != y->ident)
		return x->ident < y->ident ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

/* Sums per uid, ascending; idents: the distinct bound identifiers. */
static size_t per_uid(struct table *t, struct uidsum **out)
{
	struct uidsum *u = calloc(t->n ? t->n : 1, sizeof(*u));
	size_t nu = 0;

	if (!u)
		die("table", strerror(ENOMEM));
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), cmp_uid_ident);
	for (size_t i = 0; i < t->n; i++) {
		const struct wire_table_entry *e = &t->e[i];
		bool new_uid = i == 0 || e->uid != t->e[i - 1].uid;

		if (new_uid)
			u[nu++].uid = e->uid;
		if (e->ident && (new_uid || e->ident != t->e[i - 1].ident))
			u[nu - 1].idents++;
		u[nu - 1].sockets++;
		u[nu - 1].requests += e->requests;
		u[nu - 1].replies += e->replies;
		u[nu - 1].errors += e->errors;
		u[nu - 1].drops += e->drops;
	}
	*out = u;
	return nu;
}

/* What status and metrics report: the counters, the socket table and
 * its sums per uid. */
struct report {
	struct wire_stats st;
	bool has_lost;		/* an older daemon does not count them */
	uint64_t log_lost;
	struct table t;
	struct uidsum *u;
	size_t nu;
	struct users users;
};

static void report_get(int fd, struct report *r)
{
	get_stats(fd, &r->st);
	get_table(fd, &r->t);
	r->nu = per_uid(&r->t, &r->u);
	get_users(fd, &r->users);
	r->has_lost = get_loglost(fd, &r->log_lost);
}

static void report_free(struct report *r)
{
	free(r->u);
	free(r->t.e);
	free(r->users.e);
}

/* The daemon's mode as its statistics say (relay_uids aside). */
static const char *mode_name(const struct wire_stats *st)
{
	return st->flags & WIRE_ST_ALL ? "broker" : "relay";
}

/* What status adds after its first lines: the daemon, its refusals and
 * its rate limit, then the per-uid counters. */
static void status_more(const struct report *r)
{
	const struct wire_stats *st = &r->st;

	printf("version %s\nmode %s\nstart_time %llu.%03llu\nusers %llu\n",
	       st->version, mode_name(st),
	       (unsigned long long)(st->start_ms / 1000),
	       (unsigned long long)(st->start_ms % 1000),
	       (unsigned long long)st->users);
	for (unsigned i = 0; i < WIRE_RF_END; i++)
		printf("refused_sockets_%s %llu\n", wire_refusal_name(i),
		       (unsigned long long)st->refused_open[i]);
	printf("sends_delayed %llu\nsends_would_block %llu\n"
	       "sends_rate_refused %llu\n",
	       (unsigned long long)st->sends_delayed,
	       (unsigned long long)st->sends_eagain,
	       (unsigned long long)st->sends_refused);
	if (r->has_lost)
		printf("log_lost %llu\n", (unsigned long long)r->log_lost);
	for (size_t i = 0; i < r->users.n; i++)
		printf("user %u requests %llu refused %llu\n",
		       r->users.e[i].uid,
		       (unsigned long long)r->users.e[i].requests,
		       (unsigned long long)r->users.e[i].refused);
}

static int cmd_status(int fd)
{
	struct report r;

	report_get(fd, &r);
	/* The first eight lines as they always were. */
	printf("clients %llu\nsockets %llu\nidents %llu\nsent %llu\n"
	       "replies %llu\ndropped %llu\nbad_packets %llu\n"
	       "protocol_errors %llu\n",
	       (unsigned long long)r.st.clients, (unsigned long long)r.st.sockets,
	       (unsigned long long)r.st.idents, (unsigned long long)r.st.sent,
	       (unsigned long long)r.st.replies, (unsigned long long)r.st.dropped,
	       (unsigned long long)r.st.bad_packets,
	       (unsigned long long)r.st.proto_errors);
	printf("sockets_opened %llu\nerrors %llu\nview %s\n",
	       (unsigned long long)r.t.hdr.opened,
	       (unsigned long long)r.t.hdr.errors, r.t.all ? "all" : "own-uid");
	printf("refused %llu\nrefused_netns %llu\n",
	       (unsigned long long)r.st.refused,
	       (unsigned long long)r.st.refused_netns);
	status_more(&r);
	for (size_t i = 0; i < r.nu; i++)
		printf("uid %u sockets %llu idents %llu requests %llu "
		       "replies %llu errors %llu drops %llu\n", r.u[i].uid,
		       (unsigned long long)r.u[i].sockets,
		       (unsigned long long)r.u[i].idents,
		       (unsigned long long)r.u[i].requests,
		       (unsigned long long)r.u[i].replies,
		       (unsigned long long)r.u[i].errors,
		       (unsigned long long)r.u[i].drops);
	report_free(&r);
	return 0;
}

static int cmp_handle(const void *a, const void *b)
{
	const struct wire_table_entry *x = a, *y = b;

	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static int cmd_table(int fd)
{
	struct table t;

	get_table(fd, &t);
	if (t.n)
		qsort(t.e, t.n, sizeof(*t.e), cmp_handle);
	printf("%-10s %10s %8s %-6s %5s %6s %10s %10s %8s %8s %10s\n",
	       "SOCKET", "UID", "PID", "FAMILY", "IDENT", "DESTS", "REQUESTS",
	       "REPLIES", "ERRORS", "DROPS", "AGE_MS");
	for (size_t i = 0; i < t.n; i++) {
		const struct wire_table_entry *e = &t.e[i];
		char dests[16];

		/* Broker mode: the kernel carries its packets, uncounted. */
		if (e->flags & WIRE_TE_BROKER)
			snprintf(dests, sizeof(dests), "broker");
		else
			snprintf(dests, sizeof(dests),
				 e->flags & WIRE_TE_DEST_CAPPED ? "%u+" : "%u",
				 e->destinations);
		printf("%-10u %10u %8d %-6s %5u %6s %10llu %10llu %8llu %8llu "
		       "%10llu\n", e->handle, e->uid, e->pid,
		       e->family == AF_INET6 ? "inet6" : "inet", e->ident,
		       dests, (unsigned long long)e->requests,
		       (unsigned long long)e->replies,
		       (unsigned long long)e->errors,
		       (unsigned long long)e->drops,
		       (unsigned long long)e->age_ms);
	}
	free(t.e);
	return 0;
}

static void metric(const char *name, const char *type, const char *help,
		   unsigned long long v)
{
	printf("# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type,
	       name, v);
}

/* A family with one sample per label value: HELP and TYPE, then them. */
static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The daemon itself: its build, when it started, how many users. */
static void metrics_daemon(const struct report *r)
{
	const struct wire_stats *st = &r->st;

	family("pingsockd_build_info", "gauge",
	       "pingsockd's version and mode (relay or broker); always 1.");
	printf("pingsockd_build_info{version=\"%s\",mode=\"%s\"} 1\n",
	       st->version, mode_name(st));
	family("pingsockd_start_time_seconds", "gauge",
	       "When pingsockd started, in seconds since the Unix epoch.");
	printf("pingsockd_start_time_seconds %llu.%03llu\n",
	       (unsigned long long)(st->start_ms / 1000),
	       (unsigned long long)(st->start_ms % 1000));
	if (r->has_lost)
		metric("pingsockd_log_lost_total", "counter",
		       "Log lines pingsockd could not write: the log would "
		       "have blocked (a full pipe or journal stream) or is "
		       "gone (syslog restarted).", r->log_lost);
	metric("pingsockd_users", "gauge",
	       "Users pingsockd keeps state for (connections, sockets, "
	       "identifiers, sends waiting, a rate bucket refilling).",
	       st->users);
}

/* Refusals by reason, and sends the rate held back. */
static void metrics_limits(const struct wire_stats *st)
{
	static const char *const action[] = { "delayed", "would_block",
					      "refused" };
	const uint64_t sends[] = { st->sends_delayed, st->sends_eagain,
				   st->sends_refused };

	family("pingsockd_sockets_refused_total", "counter",
	       "Sockets refused, by reason: group (the policy's group range), "
	       "max_sockets (the user's limit), descriptors (the daemon's "
	       "running short, this user holding the most), identifiers "
	       "(broker mode: max_idents, or identifiers short), resources "
	       "(the daemon's memory or descriptors).");
	for (unsigned i = 0; i < WIRE_RF_END; i++)
		printf("pingsockd_sockets_refused_total{reason=\"%s\"} %llu\n",
		       wire_refusal_name(i),
		       (unsigned long long)st->refused_open[i]);
	family("pingsockd_sends_rate_limited_total", "counter",
	       "Sends held back by rate or min_interval: delayed (waited for "
	       "their turn), would_block (EAGAIN, MSG_DONTWAIT), refused "
	       "(ENOBUFS: a wait past one burst, or the user's waiting "
	       "bytes).");
	for (size_t i = 0; i < sizeof(sends) / sizeof(sends[0]); i++)
		printf("pingsockd_sends_rate_limited_total{action=\"%s\"} "
		       "%llu\n", action[i], (unsigned long long)sends[i]);
}

/* Per uid: sockets and identifiers from the table, counters from
 * WIRE_USERS. */
static void metrics_per_uid(const struct report *r)
{
	const struct users *u = &r->users;

	family("pingsockd_uid_sockets", "gauge", "Open ping sockets per user.");
	for (size_t i = 0; i < r->nu; i++)
		printf("pingsockd_uid_sockets{uid=\"%u\"} %llu\n", r->u[i].uid,
		       (unsigned long long)r->u[i].sockets);
	family("pingsockd_uid_idents", "gauge",
	       "ICMP identifiers bound per user.");
	for (size_t i = 0; i < r->nu; i++)
		printf("pingsockd_uid_idents{uid=\"%u\"} %llu\n", r->u[i].uid,
		       (unsigned long long)r->u[i].idents);
	family("pingsockd_user_requests_total", "counter",
	       "Echo requests sent per user, while pingsockd keeps state for "
	       "the user (from 0 again after).");
	for (size_t i = 0; i < u->n; i++)
		printf("pingsockd_user_requests_total{uid=\"%u\"} %llu\n",
		       u->e[i].uid, (unsigned long long)u->e[i].requests);
	family("pingsockd_user_refused_total", "counter",
	       "Connections, sockets and sends refused per user, while "
	       "pingsockd keeps state for the user (from 0 again after).");
	for (size_t i = 0; i < u->n; i++)
		printf("pingsockd_user_refused_total{uid=\"%u\"} %llu\n",
		       u->e[i].uid, (unsigned long long)u->e[i].refused);
}

/* Prometheus text exposition format 0.0.4. */
static int cmd_metrics(int fd)
{
	struct report r;

	report_get(fd, &r);
	metrics_daemon(&r);
	metric("pingsockd_clients", "gauge",
	       "Client processes connected to pingsockd.", r.st.clients);
	metric("pingsockd_sockets", "gauge", "Open ping sockets, all users.",
	       r.st.sockets);
	metric("pingsockd_idents", "gauge",
	       "ICMP identifiers bound, all users.", r.st.idents);
	metric("pingsockd_sockets_opened_total", "counter",
	       "Ping sockets opened since pingsockd started.", r.t.hdr.opened);
	metric("pingsockd_requests_total", "counter",
	       "Echo requests sent.", r.st.sent);
	metric("pingsockd_replies_total", "counter",
	       "Replies delivered to sockets.", r.st.replies);
	metric("pingsockd_dropped_total", "counter",
	       "Replies dropped: no socket asked for them, or its queue was "
	       "full.", r.st.dropped);
	metric("pingsockd_errors_total", "counter",
	       "ICMP and local errors delivered to sockets, and failed sends.",
	       r.t.hdr.errors);
	metric("pingsockd_bad_packets_total", "counter",
	       "Malformed or unsolicited ICMP packets from the network.",
	       r.st.bad_packets);
	metric("pingsockd_protocol_errors_total", "counter",
	       "Clients disconnected for malformed requests.",
	       r.st.proto_errors);
	metric("pingsockd_refused_total", "counter",
	       "Connections, sockets and sends refused by a per-user limit or "
	       "share.", r.st.refused);
	metric("pingsockd_refused_netns_total", "counter",
	       "Clients refused for being in another network namespace.",
	       r.st.refused_netns);
	metrics_limits(&r.st);
	metric("pingsockd_view_all_uids", "gauge",
	       "1 if the per-uid metrics cover every user (run as root), 0 if "
	       "only the caller's own.", r.t.all && r.users.all);
	metrics_per_uid(&r);
	report_free(&r);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: pingsockctl [--socket PATH] status|table|metrics\n"
		   "       pingsockctl --version\n"
		   "Show a running pingsockd's counters and sockets.\n\n"
		   "  status   counters, then one line per user with state in "
		   "the daemon\n"
		   "           and one per uid with open sockets\n"
		   "  table    one line per open socket\n"
		   "  metrics  the counters in Prometheus text format\n\n"
		   "  -s, --socket PATH  the daemon's socket (default: "
		   "$PINGSOCK_SOCKET or %s)\n"
		   "  -h, --help         show this help\n"
		   "  -V, --version      show pingsockctl's version (the "
		   "daemon's: status)\n\n"
		   "root sees every user's sockets and counters, anyone else "
		   "their own; the totals are everyone's.\n",
		PINGSOCK_DEFAULT_SOCKET);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(int fd);
	} cmds[] = {
		{ "status", cmd_status },
		{ "table", cmd_table },
		{ "metrics", cmd_metrics },
	};
	int (*fn)(int fd) = NULL;
	int ch, fd, rc;

	sock_path = getenv("PINGSOCK_SOCKET");
	if (!sock_path || !*sock_path)
		sock_path = PINGSOCK_DEFAULT_SOCKET;
	while ((ch = getopt_long(argc, argv, "s:hV", lo, NULL)) != -1) {
		if (ch == 's') {
			sock_path = optarg;
		} else if (ch == 'V') {
			printf("pingsockctl (pingsock) %s\n", PINGSOCK_VERSION);
			return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
		} else {
			usage(ch == 'h' ? stdout : stderr);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[optind], cmds[i].name) == 0)
			fn = cmds[i].fn;
	if (!fn) {
		fprintf(stderr, "pingsockctl: unknown command \"%s\"\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	fd = dial(sock_path);
	rc = fn(fd);
	close(fd);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pingsockctl: writing the output: %s\n",
			strerror(errno));
		return 1;
	}
	return rc;
}
