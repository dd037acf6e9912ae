/* SPDX-License-Identifier: ISC */
/*
 * pingsockd - serve unprivileged ping sockets.
 *
 * Start-up, in this order, each step checked (fail closed):
 *   1. options and the config file (a bad file stops start-up;
 *      --check-config stops here), a listening socket passed by systemd
 *      (LISTEN_PID/LISTEN_FDS, read before any fork);
 *   2. the raw ICMP socket(s), the rtnetlink socket, /proc/net/icmp, a
 *      higher descriptor limit, and the listening socket unless one was
 *      passed: everything that needs privilege;
 *      in broker mode the claim on ping_group_range (broker.h), which
 *      leaves a keeper process behind to restore it;
 *   3. chroot into an empty directory (sandbox.h), drop to --user, clear
 *      groups, drop every capability, no_new_privs, the seccomp filter;
 *   4. daemonise (unless --foreground) and run the event loop.
 * Started without root but with CAP_NET_RAW (systemd's User= and
 * AmbientCapabilities=), relay mode runs the same steps as that user:
 * no uid change, no chroot (Landlock closes the file system instead).
 * The service manager hears of each state (notify.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/broker.h"
#include "daemon/closer.h"
#include "daemon/filter.h"
#include "daemon/hostenv.h"
#include "daemon/listener.h"
#include "daemon/log.h"
#include "daemon/notify.h"
#include "daemon/pidfile.h"
#include "daemon/privdrop.h"
#include "daemon/raw.h"
#include "daemon/raw6.h"
#include "daemon/safepath.h"
#include "daemon/sandbox.h"
#include "daemon/server.h"
#include "daemon/trap.h"
#include "engine/policy.h"
#include "pingsock.h"

#ifndef PINGSOCK_VERSION
#define PINGSOCK_VERSION "unknown"	/* the Makefile defines it */
#endif
#define PSD_VERSION PINGSOCK_VERSION
/* Read when it exists and no --config is given (the Makefile passes the
 * installed path). */
#ifndef PSD_CONFIG_DEFAULT
#define PSD_CONFIG_DEFAULT "/etc/pingsock/pingsockd.conf"
#endif
#define NOFILE_WANT 1048576

struct opts {
	const char *socket_path;
	const char *user;
	const char *config;
	bool foreground;
	bool debug;
	const char *log_file;	/* --log-file: messages there, not syslog */
	bool socket_given;	/* --socket on the command line */
	bool check_config;	/* --check-config: parse --config, exit */
	const char *mode;	/* --mode: overrides the config's */
	const char *bpf_pin_dir, *bpf_cgroup;	/* the same */
	const char *broker_group;
	bool allow_shared_user;	/* --allow-shared-user */
	bool no_config;		/* --no-config: built-in defaults */
	const char *pidfile;	/* --pidfile */
	const char *nice;	/* --nice: overrides the config's */
};

/* long-only options */
enum { OPT_CHECK_CONFIG = 0x100, OPT_LOG_FILE, OPT_MODE, OPT_BROKER_GROUP,
       OPT_ALLOW_SHARED, OPT_NO_CONFIG, OPT_PIDFILE, OPT_BPF_PIN_DIR,
       OPT_BPF_CGROUP, OPT_NICE };

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pingsockd [options]\n"
		"Serve unprivileged ICMP Echo (ping) sockets.\n\n"
		"  -s, --socket PATH   listen on PATH (default %s)\n"
		"  -u, --user USER     run as USER after start-up (default\n"
		"                      pingsock); a user of its own: see\n"
		"      --allow-shared-user\n"
		"                      run as a USER that others share (nobody,\n"
		"                      an account with a home or processes)\n"
		"  -c, --config FILE   read policy from FILE (see pingsockd(8));\n"
		"                      default %s, if it exists\n"
		"      --no-config     read no file: the built-in defaults\n"
		"      --check-config  check the configuration file and exit:\n"
		"                      \"FILE: ok\" or \"FILE:LINE: reason\"\n"
		"  -f, --foreground    stay in the foreground, log to stderr\n"
		"  -d, --debug         log debug messages too\n"
		"      --pidfile PATH  write the daemon's pid to PATH (left\n"
		"                      there at exit: see pingsockd(8))\n"
		"      --log-file PATH append every message (the audit records\n"
		"                      too) to PATH instead of syslog/stderr\n"
		"      --mode MODE     relay (default), broker or auto: carry\n"
		"                      every packet, or hand out kernel ping\n"
		"                      sockets (overrides the config's mode)\n"
		"      --broker-group GROUP\n"
		"                      the group kept for making kernel ping\n"
		"                      sockets in broker mode (default: USER's)\n"
		"      --bpf-pin-dir DIR\n"
		"                      where broker mode's BPF guard pins its\n"
		"                      maps (overrides bpf_pin_dir)\n"
		"      --bpf-cgroup DIR\n"
		"                      the cgroup it runs in (overrides\n"
		"                      bpf_cgroup)\n"
		"      --nice N        the daemon's scheduling priority, -20 to\n"
		"                      19 (default: as started; overrides\n"
		"                      nice)\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n"
		"A listening socket passed by systemd (socket activation,\n"
		"LISTEN_PID/LISTEN_FDS) is used instead of --socket.\n",
		PINGSOCK_DEFAULT_SOCKET, PSD_CONFIG_DEFAULT);
}

/*
 * No --config: the installed file, if there is one (--check-config
 * checks it even when missing, and says so).  A file that exists but
 * cannot be read safely stops start-up, as a --config would.
 */
static void default_config(struct opts *o)
{
	struct stat st;

	if (o->config || o->no_config)
		return;
	if (o->check_config || lstat(PSD_CONFIG_DEFAULT, &st) == 0 ||
	    errno != ENOENT)
		o->config = PSD_CONFIG_DEFAULT;
}

/* The --bpf-* paths as the config's keys take them (absolute, fits). */
static void check_bpf_path(const char *opt, const char *path)
{
	if (path && (path[0] != '/' || strlen(path) >= POLICY_PATH_MAX ||
		     strstr(path, "/.."))) {
		fprintf(stderr, "pingsockd: %s %s: expected an absolute path "
			"(at most %d bytes, no \"..\")\n", opt, path,
			POLICY_PATH_MAX - 1);
		exit(2);
	}
}

/* Values and combinations getopt cannot check: exit 2 with a line. */
static void check_opts(const struct opts *o)
{
	if (o->mode && policy_mode_parse(o->mode) < 0) {
		fprintf(stderr, "pingsockd: --mode %s: expected relay, broker "
			"or auto\n", o->mode);
		exit(2);
	}
	if (o->nice && policy_nice_parse(o->nice, &(int){ 0 })) {
		fprintf(stderr, "pingsockd: --nice %s: expected -20 to 19\n",
			o->nice);
		exit(2);
	}
	check_bpf_path("--bpf-pin-dir", o->bpf_pin_dir);
	check_bpf_path("--bpf-cgroup", o->bpf_cgroup);
	if (o->config && o->no_config) {
		fprintf(stderr, "pingsockd: --config and --no-config\n");
		exit(2);
	}
	if (o->check_config && o->no_config) {
		fprintf(stderr, "pingsockd: --check-config needs a file, not "
			"--no-config\n");
		exit(2);
	}
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "log-file", required_argument, NULL, OPT_LOG_FILE },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "broker-group", required_argument, NULL, OPT_BROKER_GROUP },
		{ "allow-shared-user", no_argument, NULL, OPT_ALLOW_SHARED },
		{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "bpf-pin-dir", required_argument, NULL, OPT_BPF_PIN_DIR },
		{ "bpf-cgroup", required_argument, NULL, OPT_BPF_CGROUP },
		{ "nice", required_argument, NULL, OPT_NICE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->socket_path = PINGSOCK_DEFAULT_SOCKET;
	while ((ch = getopt_long(argc, argv, "s:u:c:fdhV", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
			o->socket_path = optarg;
			o->socket_given = true;
			break;
		case 'u': o->user = optarg; break;
		case 'c': o->config = optarg; break;
		case OPT_CHECK_CONFIG: o->check_config = true; break;
		case 'f': o->foreground = true; break;
		case 'd': o->debug = true; break;
		case OPT_LOG_FILE: o->log_file = optarg; break;
		case OPT_MODE: o->mode = optarg; break;
		case OPT_BROKER_GROUP: o->broker_group = optarg; break;
		case OPT_ALLOW_SHARED: o->allow_shared_user = true; break;
		case OPT_NO_CONFIG: o->no_config = true; break;
		case OPT_PIDFILE: o->pidfile = optarg; break;
		case OPT_BPF_PIN_DIR: o->bpf_pin_dir = optarg; break;
		case OPT_BPF_CGROUP: o->bpf_cgroup = optarg; break;
		case OPT_NICE: o->nice = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("pingsockd %s\n", PSD_VERSION); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pingsockd: unexpected argument \"%s\"\n",
			argv[optind]);
		usage(stderr);
		exit(2);
	}
	check_opts(o);
	default_config(o);
	return 0;
}

/*
 * --check-config: parse the file as start-up and SIGHUP do, and nothing
 * else (no root needed, nothing opened but the file).
 */
static int check_config(const char *path)
{
	struct policy p;
	char err[512];

	/* As root, the file as the daemon will read it; as anyone else,
	 * just its contents. */
	if (server_load_config(path, geteuid() == 0, &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("%s: ok\n", path);
	return 0;
}

/*
 * Each daemon socket costs descriptors here: the hard limit up to
 * NOFILE_WANT if it is lower, the soft one up to the hard (or to
 * NOFILE_WANT, a million sockets, if the hard is higher).  The limit in
 * force, which the server shares out (uidtab.h) and states at start.
 * Raising the hard limit needs CAP_SYS_RESOURCE, which the systemd
 * unit's bounding set leaves out (its LimitNOFILE= raises it instead):
 * a lower figure is logged with its reason, as it bounds the sockets.
 */
static unsigned long raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	if (rl.rlim_max < NOFILE_WANT) {
		struct rlimit want = { NOFILE_WANT, NOFILE_WANT };

		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
		else
			log_info("descriptor limit: hard limit %llu, not "
				 "raised to %d: %s",
				 (unsigned long long)rl.rlim_max, NOFILE_WANT,
				 strerror(errno));
	}
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < NOFILE_WANT) {
		rl.rlim_cur = rl.rlim_max < NOFILE_WANT ? rl.rlim_max
							: NOFILE_WANT;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			log_warn("descriptor limit: soft limit not raised to "
				 "%llu: %s", (unsigned long long)rl.rlim_cur,
				 strerror(errno));
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	return rl.rlim_cur == RLIM_INFINITY ? NOFILE_WANT : rl.rlim_cur;
}

/*
 * The policy's nice, if it names one, set while the daemon may still
 * lower it (root's CAP_SYS_NICE).  setpriority() sets this thread's
 * alone: the closing thread and broker mode's helper process come after
 * and inherit it.  Under the systemd unit, whose filter refuses
 * setpriority() (Nice= sets it there), a value already in force is not
 * asked for again.
 */
static void set_nice(int want)
{
	int now, err;

	if (want == POLICY_NICE_KEEP)
		return;
	errno = 0;
	now = getpriority(PRIO_PROCESS, 0);
	err = errno;
	if (err == 0 && now == want)
		return;
	if (setpriority(PRIO_PROCESS, 0, want) == 0)
		return;
	if (err)
		log_warn("scheduling priority: nice %d not set: %s", want,
			 strerror(errno));
	else
		log_warn("scheduling priority: nice %d not set (%s); running "
			 "at nice %d", want, strerror(errno), now);
}

/*
 * Fork; the parent waits until the child says it is ready (exit 0) or
 * dies (exit 1: the child has printed why).  Returns the pipe's write end
 * in the child.
 */
static int daemonise(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		log_err("fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

static void detach_stdio(int ready_fd)
{
	int null = sandbox_devnull();	/* opened before the chroot */

	if (chdir("/") != 0)
		log_warn("chdir /: %s", strerror(errno));
	log_to_syslog();
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	if (write(ready_fd, "", 1) != 1)
		log_warn("telling the parent: %s", strerror(errno));
	close(ready_fd);
}

/* --mode, --broker-group, the --bpf-* paths and --nice win over the file
 * (and over SIGHUP). */
static void apply_overrides(const struct opts *o, struct policy *p)
{
	if (o->bpf_pin_dir)
		snprintf(p->bpf_pin_dir, sizeof(p->bpf_pin_dir), "%s",
			 o->bpf_pin_dir);
	if (o->bpf_cgroup)
		snprintf(p->bpf_cgroup, sizeof(p->bpf_cgroup), "%s",
			 o->bpf_cgroup);
	if (o->mode)
		p->mode = (enum policy_mode)policy_mode_parse(o->mode);
	if (o->broker_group)
		snprintf(p->broker_group, sizeof(p->broker_group), "%s",
			 o->broker_group);
	if (o->nice)
		(void)policy_nice_parse(o->nice, &p->nice);
}

/*
 * --log-file PATH, as root: reached through checked directories, created
 * 0640 or an existing file of root's, writable by root only, one link
 * (safepath.h).  0, or -1 with err filled.
 */
static int open_log_file(const char *path, char *err, size_t errlen)
{
	char base[NAME_MAX + 1], what[PATH_MAX + 16];
	int dir = safepath_parent(path, base, sizeof(base), err, errlen), fd;

	if (dir < 0)
		return -1;
	snprintf(what, sizeof(what), "--log-file %s", path);
	fd = safepath_open_file(dir, base, O_WRONLY | O_APPEND | O_CREAT, 0640,
				what, err, errlen);
	close(dir);
	if (fd < 0)
		return -1;
	log_use_file(fd);
	return 0;
}

/*
 * Nothing inherited stays open but stdio (made to exist: /dev/null) and
 * a listening socket passed for this process (fd 3, LISTEN_PID ours).
 */
static void close_inherited(void)
{
	const char *pid = getenv("LISTEN_PID"), *n = getenv("LISTEN_FDS");
	unsigned first = 3;

	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", O_RDWR) != fd)
			exit(1);
	if (pid && n && atol(pid) == (long)getpid() && strcmp(n, "1") == 0)
		first = 4;
	if (syscall(SYS_close_range, first, ~0U, 0) != 0) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 65536)
			rl.rlim_cur = 65536;
		for (unsigned fd = first; fd < rl.rlim_cur; fd++)
			close((int)fd);
	}
}

/* The test build may be told to close client descriptors in a thread, as
 * on a kernel without SO_PASSRIGHTS (PINGSOCKD_TEST_CLOSER=thread). */
static bool test_closer_thread(void)
{
#ifdef PSD_TESTING
	const char *v = getenv("PINGSOCKD_TEST_CLOSER");

	return v && strcmp(v, "thread") == 0;
#else
	return false;
#endif
}

/* The seccomp filter, last: what the loop may call (filter.h). */
static int apply_filter(const struct server_conf *conf, int sock_dir,
			char *err, size_t errlen)
{
	struct filter_plan plan = {
		.ping_sockets = conf->broker.v4 || conf->broker.v6,
		.bpf_maps = conf->guard != NULL,
		.threads = !closer_kernel_refuses(),
		.config_dir = sandbox_config_dir(),
		.socket_dir = sock_dir,
	};

	return filter_apply(&plan, err, errlen);
}

static void fatal(const char *msg)
{
	log_err("%s", msg);
	pidfile_clear();
	exit(1);
}

/*
 * Root, or relay mode with CAP_NET_RAW: a start without root cannot
 * claim ping_group_range (broker mode) nor change its ids.
 */
static void check_start(struct policy *p)
{
	if (geteuid() == 0)
		return;
	if (!privdrop_has_cap(CAP_NET_RAW))
		fatal("must be started as root, or with CAP_NET_RAW for relay "
		      "mode (it opens raw sockets, then drops every "
		      "privilege)");
	if (p->mode == POLICY_BROKER)
		fatal("mode broker: needs a start as root (it claims "
		      "net.ipv4.ping_group_range); started without root, "
		      "only relay mode is served");
	if (p->mode == POLICY_AUTO) {
		log_info("mode auto: relay, as started without root");
		p->mode = POLICY_RELAY;
	}
}

/* Before any fork: the daemon's messages and states go where its
 * service manager says. */
static void early_setup(void)
{
	char err[512];

	if (notify_init(err, sizeof(err)))
		fatal(err);
}

/* A socket passed by the service manager, if any, in place of --socket
 * (before any fork: LISTEN_PID names this process). */
static void take_passed(struct opts *o, struct server_conf *conf)
{
	static char passed_path[128];	/* sun_path fits */
	char err[512];

	switch (listener_inherit(&conf->listen_fd, passed_path,
				 sizeof(passed_path), err, sizeof(err))) {
	case -1:
		fatal(err);
		break;
	case 0:
		/* systemd's socket wins; a --socket naming another is an
		 * error, not silently ignored. */
		if (o->socket_given &&
		    !listener_same_path(o->socket_path, passed_path)) {
			snprintf(err, sizeof(err), "--socket %s, but the "
				 "service manager passed a socket on %s",
				 o->socket_path, passed_path);
			fatal(err);
		}
		o->socket_path = passed_path;
		log_info("listening on %s, passed by the service manager",
			 passed_path);
		break;
	}
}

/*
 * Broker mode's per-packet policy in the kernel (guard.h), loaded while
 * root.  Without it brokered sockets get what the kernel gives (no rate,
 * destinations or reply check), as the log says; relay_uids still apply,
 * and mode auto relays everyone while a per-packet key is set (bsock.c).
 */
static void start_guard(struct server_conf *conf)
{
	const char *then = conf->policy.mode == POLICY_AUTO
		? "mode auto relays every socket while a per-packet key is set"
		: "the per-packet keys apply to relay_uids only";
	char err[512];
	bool unsafe;

	if (!(conf->broker.v4 || conf->broker.v6))
		return;
	if (!conf->policy.bpf_guard) {
		log_info("broker: bpf_guard is off: %s", then);
		return;
	}
	conf->guard = guard_start(&conf->policy, &unsafe, err, sizeof(err));
	if (!conf->guard && unsafe) {
		char why[700];

		snprintf(why, sizeof(why), "broker: no BPF guard (%s): not "
			 "starting without it (bpf_guard = off runs without "
			 "it)", err);
		fatal(why);
	}
	if (!conf->guard) {
		log_warn("broker: no BPF guard (%s): %s", err, then);
		return;
	}
	guard_refresh(conf->guard, conf->host);
	log_info("broker: BPF guard loaded: every key applies to brokered "
		 "sockets too");
}

/*
 * Everything that needs privilege: the raw sockets, the host's tables,
 * broker mode's claim on the range (before the socket appears: once
 * clients can connect, the mode is decided), the listening socket.
 */
static void open_privileged(const struct opts *o, struct drop_target *target,
			    struct server_conf *conf)
{
	char err[512];

	set_nice(conf->policy.nice);
	conf->nofile = raise_nofile();
	conf->raw4 = raw_open(AF_INET, err, sizeof(err));
	if (!conf->raw4)
		fatal(err);
	/* A host without IPv6 still gets IPv4 ping sockets. */
	conf->raw6 = raw6_open(err, sizeof(err));
	if (!conf->raw6)
		log_warn("no IPv6 ping sockets: %s", err);
	conf->host = hostenv_open(err, sizeof(err));
	if (!conf->host)
		fatal(err);
	if (broker_setup(&conf->policy, target->uid, target->gid,
			 target->name, &conf->broker, err, sizeof(err)))
		fatal(err);
	target->gid = conf->broker.gid;
	start_guard(conf);
	conf->self_uid = target->uid;
	if (conf->listen_fd < 0) {
		struct safepath_owner own = { target->uid, target->gid,
					      target->name };

		conf->listen_fd = listener_open(o->socket_path, &own, err,
						sizeof(err));
	}
	if (conf->listen_fd < 0)
		fatal(err);
	conf->socket_path = o->socket_path;
}

/* Chroot, drop, Landlock, the closing thread, the filter: fail closed. */
static void confine(const struct opts *o, const struct drop_target *target,
		    struct server_conf *conf, bool daemonised)
{
	char err[512];
	struct safepath_owner own = { target->uid, target->gid, target->name };
	int sock_dir = listener_dir(o->socket_path, &own, err, sizeof(err));

#ifdef PSD_TESTING
	trap_test_raw(raw_fd(conf->raw4));
#endif
	if (sock_dir < 0 ||
	    sandbox_enter(sock_dir, conf->config_path, daemonised, err,
			  sizeof(err))) {
		listener_remove(o->socket_path);
		fatal(err);
	}
	/* The unprivileged daemon keeps no way to write the pid file: a
	 * compromised one could name any process there for the init
	 * script to signal as root. */
	pidfile_close();
	if (privdrop_apply(target, err, sizeof(err)) ||
	    sandbox_landlock(err, sizeof(err)) ||
	    closer_init(test_closer_thread(), err, sizeof(err)) ||
	    apply_filter(conf, sock_dir, err, sizeof(err))) {
		listener_remove(o->socket_path);
		fatal(err);
	}
}

int main(int argc, char **argv)
{
	struct server_conf conf = { .listen_fd = -1 };
	struct drop_target target;
	struct opts o;
	static char config_abs[PATH_MAX];
	char err[512];
	int ready_fd = -1, status;

	close_inherited();
	log_detect_journal();
	log_nonblocking();
	parse_opts(argc, argv, &o);
	log_set_debug(o.debug);
	if (o.check_config)
		return check_config(o.config);
	umask(022);
	early_setup();
	policy_default(&conf.policy);
	if (geteuid() != 0 && !privdrop_has_cap(CAP_NET_RAW))
		check_start(&conf.policy);	/* says why, before any file */
	if (o.config &&
	    server_load_config(o.config, true, &conf.policy, err, sizeof(err)))
		fatal(err);
	conf.from_file = conf.policy;
	apply_overrides(&o, &conf.policy);
	check_start(&conf.policy);
	if (privdrop_resolve(o.user, o.allow_shared_user, &target, err,
			     sizeof(err)))
		fatal(err);
	take_passed(&o, &conf);
	if (!o.foreground)
		ready_fd = daemonise();
	/* As root, in the daemon's own process; kept after the drop. */
	if (o.log_file && open_log_file(o.log_file, err, sizeof(err)))
		fatal(err);
	if (o.pidfile && pidfile_write(o.pidfile, err, sizeof(err)))
		fatal(err);
	open_privileged(&o, &target, &conf);
	/* SIGHUP re-reads it after chdir("/"). */
	conf.config_path = o.config ? realpath(o.config, config_abs) : NULL;
	confine(&o, &target, &conf, ready_fd >= 0);
	log_info("pingsockd %s: running as %s (uid %u)", PSD_VERSION,
		 target.name, (unsigned)target.uid);
	if (ready_fd >= 0)
		detach_stdio(ready_fd);
	status = server_run(&conf);
	return status;
}
