/* SPDX-License-Identifier: ISC */
/*
 * server - the daemon's running part: set-up (the loop and what it
 * watches, the shares, the namespace of its own), signals (SIGHUP
 * reloads the configuration, SIGTERM and SIGINT stop), the tick once a
 * second, and the teardown.  The rest is in the modules srv.h lists.
 */
#include "daemon/server.h"
#include "daemon/srv.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon/arena.h"
#include "daemon/closer.h"
#include "daemon/listener.h"
#include "daemon/log.h"
#include "daemon/notify.h"
#include "daemon/sandbox.h"
#include "daemon/share.h"
#include "pingsock.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71	/* Linux 5.14 */
#endif

int server_load_config(const char *path, bool strict, struct policy *p,
		       char *err, size_t errlen)
{
	FILE *f = sandbox_fopen_config(path, strict, err, errlen);
	char *text = NULL;
	size_t cap = 0, len = 0;
	int rc;

	if (!f)
		return -1;
	for (;;) {
		if (len == cap) {
			char *t;

			cap = cap ? cap * 2 : 4096;
			t = cap > (1 << 20) ? NULL : realloc(text, cap);
			if (!t) {
				snprintf(err, errlen, "%s: too large", path);
				free(text);
				fclose(f);
				return -1;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	rc = policy_parse(p, text, len, path, err, errlen);
	free(text);
	return rc;
}

static void reload(struct server *s)
{
	struct policy p;
	char err[512];

	/* The manager waits for READY=1 again, whatever the outcome. */
	notify_reloading();
	if (!s->conf.config_path) {
		log_info("SIGHUP: no configuration file, nothing to reload");
		notify_send("READY=1");
		return;
	}
	if (server_load_config(s->conf.config_path, true, &p, err,
			       sizeof(err))) {
		log_err("reload refused, keeping the old policy: %s", err);
		notify_send("READY=1\nSTATUS=reload refused, old policy kept: "
			    "%s", err);
		return;
	}
	if (policy_startup_differs(&p, &s->conf.from_file))
		log_warn("reload: mode, broker_group and the bpf_* keys are "
			 "read at start-up only: the daemon keeps mode=%s; "
			 "restart it to change them",
			 policy_mode_name(s->conf.policy.mode));
	policy_keep_startup(&p, &s->conf.policy);
	s->conf.policy = p;
	pstab_allow_raw(s->tab, p.raw_compat);
	if (s->conf.guard && guard_set_policy(s->conf.guard, &p))
		log_err("reload: the BPF guard kept part of the old keys: %s",
			strerror(errno));
	log_info("reloaded %s", s->conf.config_path);
	notify_send("READY=1\nSTATUS=serving on %s, reloaded %s",
		    s->conf.socket_path, s->conf.config_path);
}

static void on_signal(void *data, uint32_t events)
{
	struct server *s = data;
	struct signalfd_siginfo si;

	(void)events;
	while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(s);
		else
			s->stop = true;
	}
}

/*
 * WATCHDOG=1 at half the manager's interval, from the loop itself: a
 * loop stuck in a handler misses it and the manager restarts the
 * service (WatchdogSec=).
 */
static void watchdog(void *data)
{
	struct server *s = data;
	uint64_t ns = notify_watchdog_ns();

	notify_send("WATCHDOG=1");
	if (ns)
		loop_at(s->loop, &s->watchdog_timer, loop_now_ns() + ns / 2);
}

/* Does the daemon keep state for uid (its sockets, its connections)? */
static bool uid_known(void *ctx, uid_t uid)
{
	struct server *s = ctx;

	return uidtab_get(s->uids, uid, false) != NULL;
}

/* Once a second: say what the users' log budgets held back (audit.c),
 * before their entries may go; forget idle users, read /proc/net/icmp(6) (bsock.h),
 * the broadcast addresses again (guard.h), give back what the closing thread closed (closer.h). */
static void tick(void *data)
{
	struct server *s = data;

	audit_flush(s);
	uidtab_prune(s->uids, loop_now_ns());
	bsock_scan(s);
	if (s->conf.guard) {
		guard_refresh(s->conf.guard, s->conf.host);
		guard_prune_users(s->conf.guard, uid_known, s);
	}
	closer_collect();
	loop_at(s->loop, &s->tick_timer, loop_now_ns() + 1000000000u);
}

void server_stats(struct server *s, struct wire_stats *st)
{
	*st = s->stats;
	st->clients = s->nclients;
	st->sockets = pstab_sockets(s->tab);
	st->idents = pstab_idents(s->tab);
	st->users = uidtab_count(s->uids);
}

/* Descriptors a client passed, waiting for the closing thread, count in
 * its user's share of the daemon's (closer.h). */
static void fd_charge(void *ctx, uid_t owner, int n)
{
	ssock_fds(ctx, owner, n);
}

/* The identifier gate of the engine (pstab_set_gate()): max_idents, and
 * the share of those left when they run short. */
static bool ident_gate(void *ctx, uint32_t uid, int delta)
{
	struct server *s = ctx;
	uint32_t max = s->conf.policy.max_idents;
	struct uident *u = uidtab_get(s->uids, uid, true);

	if (!u)
		return false;
	if (delta) {
		uidtab_add(s->uids, u, UID_IDENTS, delta);
		return true;
	}
	return (!max || u->idents < max) &&
	       uidtab_may_take(s->uids, u, UID_IDENTS, 1, 65535);
}

/*
 * The engine's memory gate (pstab_set_mem_gate()): the sockets' request
 * logs, REQLOG_UID_KIB a user (the 2,000 pings of the 2010 test need about
 * 56 MiB at a minute, 112 at two), and REQLOG_ALL_KIB in all, rationed as
 * descriptors are when it runs short.  A log refused more recycles its
 * oldest request: only a reply later than the requests it keeps is lost.
 */
#define REQLOG_UID_KIB (128ul * 1024ul)
#define REQLOG_ALL_KIB (512u * 1024u)

static bool mem_gate(void *ctx, uint32_t uid, long kib)
{
	struct server *s = ctx;
	struct uident *u = uidtab_get(s->uids, uid, kib > 0);

	if (!u)
		return kib < 0;
	if (kib > 0 && (u->reqlog_kib + (unsigned long)kib > REQLOG_UID_KIB ||
			!uidtab_may_take(s->uids, u, UID_REQLOG, (unsigned)kib,
					 REQLOG_ALL_KIB)))
		return false;
	uidtab_add(s->uids, u, UID_REQLOG, (int)kib);
	return true;
}

/*
 * Say at start how many sockets the descriptor limit allows, so that an
 * administrator sees the bound before a user meets it (EMFILE).  "About":
 * each client process's connection takes one from the same budget.
 */
static void log_room(unsigned long lim, unsigned budget)
{
	if (FDS_RELAY == FDS_BROKER)
		log_info("descriptor limit %lu: room for about %u sockets "
			 "(%u descriptor%s each) and their connections", lim,
			 budget / FDS_RELAY, FDS_RELAY,
			 FDS_RELAY == 1 ? "" : "s");
	else
		log_info("descriptor limit %lu: room for about %u relayed "
			 "sockets (%u descriptors each) or %u broker sockets "
			 "(%u each), and their connections", lim,
			 budget / FDS_RELAY, FDS_RELAY, budget / FDS_BROKER,
			 FDS_BROKER);
}

/*
 * What keeps one client from harming others: no descriptor accepted from
 * any (closer.h), clients of this namespace only, a budget of
 * descriptors shared fairly, identifiers shared fairly.
 */
static int setup_guards(struct server *s)
{
	socklen_t len = sizeof(s->netns);
	unsigned long lim = s->conf.nofile ? s->conf.nofile : 1024;

	if (closer_guard(s->listen_fd) != 0) {
		log_err("refusing descriptors on the listening socket: %s",
			strerror(errno));
		return -1;
	}
	if (getsockopt(s->raw_fd, SOL_SOCKET, SO_NETNS_COOKIE, &s->netns,
		       &len) != 0) {
		log_err("SO_NETNS_COOKIE: %s: without it (Linux 5.14) the "
			"daemon cannot tell which clients share its network "
			"namespace", strerror(errno));
		return -1;
	}
	if (lim > UINT32_MAX / 2)
		lim = UINT32_MAX / 2;
	s->fd_budget = lim > 2ul * FD_RESERVE ? (unsigned)lim - FD_RESERVE
					      : (unsigned)lim / 2;
	log_room(lim, s->fd_budget);
	pstab_set_gate(s->tab, ident_gate, s);
	pstab_set_mem_gate(s->tab, mem_gate, s);
	closer_charge(fd_charge, s);
	s->brover[0] = (uint16_t)(getpid() * 7919u ^ (unsigned)time(NULL));
	s->brover[1] = (uint16_t)(s->brover[0] * 31u + 17u);
	return 0;
}

/* The loop, its handlers and timers, and what they watch first. */
static int setup_loop(struct server *s)
{
	s->loop = loop_new();
	s->shares = s->loop ? shares_new(s->loop) : NULL;
	s->sock_shares = s->loop ? shares_new(s->loop) : NULL;
	s->sig_h = (struct loop_handler){ on_signal, s };
	s->listen_h = (struct loop_handler){ client_accept, s };
	s->raw_h = (struct loop_handler){ deliver_raw4, s };
	s->raw6_h = (struct loop_handler){ deliver_raw6, s };
	s->tick_timer = (struct loop_timer){ .proc = tick, .data = s };
	s->scan_timer = (struct loop_timer){ .proc = bsock_scan_timer,
					     .data = s };
	s->reap_timer = (struct loop_timer){ .proc = bsock_reap_timer,
					     .data = s };
	s->listen_timer = (struct loop_timer){ .proc = client_listen_timer,
					       .data = s };
	s->watchdog_timer = (struct loop_timer){ .proc = watchdog, .data = s };
	if (!s->loop || !s->shares || !s->sock_shares || s->sig_fd < 0 ||
	    loop_watch(s->loop, s->listen_fd, EPOLLIN, &s->listen_h) ||
	    loop_watch(s->loop, s->sig_fd, EPOLLIN, &s->sig_h) ||
	    loop_at(s->loop, &s->tick_timer, loop_now_ns()) ||
	    (notify_watchdog_ns() &&
	     loop_at(s->loop, &s->watchdog_timer, loop_now_ns())))
		return -1;
	s->listen_on = true;
	deliver_watch(s);	/* the raw sockets, if wanted */
	return 0;
}

/* What WIRE_STATS says of the daemon itself: its version, its mode, when
 * it started (as process_start_time_seconds: taken at the server's
 * set-up, after main.c's start-up work, before the first client; /proc's
 * start time may be out of reach in the sandbox). */
static void stats_init(struct server *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->stats.start_ms = (uint64_t)ts.tv_sec * 1000u +
			    (uint64_t)ts.tv_nsec / 1000000u;
	s->stats.flags = (s->conf.broker.v4 ? WIRE_ST_BROKER4 : 0) |
			 (s->conf.broker.v6 ? WIRE_ST_BROKER6 : 0);
	_Static_assert(sizeof(PINGSOCK_VERSION) <= WIRE_VERSION_STR,
		       "the version fits the wire's");
	memcpy(s->stats.version, PINGSOCK_VERSION, sizeof(PINGSOCK_VERSION));
}

/* The engine's clock: a released flow label lingers by it. */
static uint64_t mono_ms(void *ctx)
{
	(void)ctx;
	return loop_now_ns() / 1000000u;
}

static int setup(struct server *s, struct server_conf *conf)
{
	sigset_t set;

	memset(s, 0, sizeof(*s));
	s->conf = *conf;
	stats_init(s);
	s->env = hostenv_env(conf->host);
	s->tab = pstab_new((uint16_t)(getpid() ^ time(NULL)));
	if (s->tab) {
		uint64_t salt = 0;

		pstab_allow_raw(s->tab, conf->policy.raw_compat);
		pstab_set_clock(s->tab, mono_ms, NULL);
		/* Without it (cannot be: the kernel has it since 3.17) the
		 * chains are as predictable as the hash. */
		if (getrandom(&salt, sizeof(salt), 0) != sizeof(salt))
			salt = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u;
		pstab_set_salt(s->tab, salt | 1);
	}
	s->uids = uidtab_new();
	s->arenas = arenas_new();
	s->reqbuf = malloc(WIRE_MSG_MAX);
	s->msgbuf = malloc(WIRE_DATA_MAX + 1);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s->listen_fd = conf->listen_fd;
	s->raw_fd = raw_fd(conf->raw4);
	s->raw6_fd = conf->raw6 ? raw6_fd(conf->raw6) : -1;
	if (!s->tab || !s->uids || !s->arenas || !s->reqbuf || !s->msgbuf ||
	    setup_loop(s)) {
		log_err("event loop set-up: %s", strerror(errno));
		return -1;
	}
	return setup_guards(s);
}

static void teardown(struct server *s)
{
	while (s->clients)
		client_free(s, s->clients);
	for (uint32_t i = 1; i < s->nslots; i++) {
		struct ssock *ss = s->slots[i].ss;

		if (ss && ss->broker)
			bsock_free(s, ss);
		else if (ss)
			ssock_free(s, ss);
	}
	if (s->uids)
		audit_flush(s);	/* the sockets closed just now */
	free(s->slots);
	free(s->by_cookie);
	free(s->bholds);
	pstab_free(s->tab);
	uidtab_free(s->uids);
	arenas_free(s->arenas);
	if (s->conf.socket_path)
		listener_remove(s->conf.socket_path);
	closer_close(s->listen_fd);	/* connections not yet accepted */
	if (s->sig_fd >= 0)
		close(s->sig_fd);
	shares_free(s->shares);
	shares_free(s->sock_shares);
	loop_free(s->loop);
	raw_close(s->conf.raw4);
	raw6_close(s->conf.raw6);
	hostenv_close(s->conf.host);
	guard_free(s->conf.guard);	/* the programs stay attached */
	free(s->reqbuf);
	free(s->msgbuf);
	closer_stop();
}

int server_run(struct server_conf *conf)
{
	struct server s;
	int status = 0;

	if (setup(&s, conf)) {
		teardown(&s);
		return 1;
	}
	log_info("ready on %s", conf->socket_path);
	notify_send("READY=1\nSTATUS=serving on %s (%s)", conf->socket_path,
		    conf->broker.v4 || conf->broker.v6 ? "broker" : "relay");
	while (!s.stop) {
		if (loop_turn(s.loop, 1000) != 0) {
			log_err("epoll_wait: %s", strerror(errno));
			status = 1;
			break;
		}
		/* Each turn, not each second: descriptors a client passed
		 * count against its share until the thread closed them,
		 * and a second's worth filled the daemon's table. */
		closer_collect();
	}
	log_info("stopping");
	notify_send("STOPPING=1\nSTATUS=stopping");
	teardown(&s);
	return status;
}

#ifdef PSD_FUZZ
/*
 * The fuzzing harness's way in (tests/fuzz/fuzz_dispatch.c): the server
 * as server_run() sets it up, a connection made from a descriptor the
 * harness holds the other end of, one turn of the loop without sleeping,
 * and the teardown.
 */
struct server *server_fuzz_new(struct server_conf *conf)
{
	struct server *s = malloc(sizeof(*s));

	if (s && setup(s, conf)) {
		teardown(s);
		free(s);
		return NULL;
	}
	return s;
}

int server_fuzz_connect(struct server *s, int fd)
{
	return client_connect(s, fd);
}

void server_fuzz_turn(struct server *s)
{
	loop_turn(s->loop, 0);
}

void server_fuzz_free(struct server *s)
{
	teardown(s);
	free(s);
}
#endif
