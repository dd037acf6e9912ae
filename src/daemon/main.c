/*
 * pingsockd - serve unprivileged ping sockets.
 *
 * Start-up, in this order, each step checked (fail closed):
 *   1. options and the config file (a bad file stops start-up);
 *   2. the raw ICMP socket(s), the rtnetlink socket, /proc/net/icmp, a
 *      higher descriptor limit, and the listening socket: everything that
 *      needs privilege;
 *   3. drop to --user, clear groups, drop every capability, no_new_privs;
 *   4. daemonise (unless --foreground) and run the event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/hostenv.h"
#include "daemon/listener.h"
#include "daemon/log.h"
#include "daemon/privdrop.h"
#include "daemon/raw.h"
#include "daemon/server.h"
#include "engine/policy.h"
#include "pingsock.h"

#ifndef PINGSOCK_VERSION
#define PINGSOCK_VERSION "unknown"	/* the Makefile defines it */
#endif
#define PSD_VERSION PINGSOCK_VERSION
#define NOFILE_WANT 1048576

struct opts {
	const char *socket_path;
	const char *user;
	const char *config;
	bool foreground;
	bool debug;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: pingsockd [options]\n"
		"Serve unprivileged ICMP Echo (ping) sockets.\n\n"
		"  -s, --socket PATH   listen on PATH (default %s)\n"
		"  -u, --user USER     run as USER after start-up (default:\n"
		"                      pingsock if it exists, else nobody)\n"
		"  -c, --config FILE   read policy from FILE (see pingsockd(8))\n"
		"  -f, --foreground    stay in the foreground, log to stderr\n"
		"  -d, --debug         log debug messages too\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n",
		PINGSOCK_DEFAULT_SOCKET);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->socket_path = PINGSOCK_DEFAULT_SOCKET;
	while ((ch = getopt_long(argc, argv, "s:u:c:fdhV", lo, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket_path = optarg; break;
		case 'u': o->user = optarg; break;
		case 'c': o->config = optarg; break;
		case 'f': o->foreground = true; break;
		case 'd': o->debug = true; break;
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
	return 0;
}

/* Each daemon socket costs two descriptors here; raise while we may. */
static void raise_nofile(void)
{
	struct rlimit rl = { NOFILE_WANT, NOFILE_WANT };

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 &&
	    getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

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

static void fatal(const char *msg)
{
	log_err("%s", msg);
	exit(1);
}

int main(int argc, char **argv)
{
	struct server_conf conf = { .listen_fd = -1 };
	struct drop_target target;
	struct opts o;
	static char config_abs[PATH_MAX];
	char err[512];
	int ready_fd = -1;

	parse_opts(argc, argv, &o);
	log_set_debug(o.debug);
	umask(022);
	policy_default(&conf.policy);
	if (o.config &&
	    server_load_config(o.config, &conf.policy, err, sizeof(err)))
		fatal(err);
	if (geteuid() != 0)
		fatal("must be started as root (it opens raw sockets, then "
		      "drops every privilege)");
	if (privdrop_resolve(o.user, &target, err, sizeof(err)))
		fatal(err);
	if (!o.foreground)
		ready_fd = daemonise();

	raise_nofile();
	conf.raw4 = raw_open(AF_INET, err, sizeof(err));
	if (!conf.raw4)
		fatal(err);
	/* A host without IPv6 still gets IPv4 ping sockets. */
	conf.raw6 = raw6_open(err, sizeof(err));
	if (!conf.raw6)
		log_warn("no IPv6 ping sockets: %s", err);
	conf.host = hostenv_open(err, sizeof(err));
	if (!conf.host)
		fatal(err);
	conf.listen_fd = listener_open(o.socket_path, target.uid, target.gid,
				       err, sizeof(err));
	if (conf.listen_fd < 0)
		fatal(err);
	conf.socket_path = o.socket_path;
	/* SIGHUP re-reads it after chdir("/"). */
	conf.config_path = o.config ? realpath(o.config, config_abs) : NULL;

	if (privdrop_apply(&target, err, sizeof(err))) {
		listener_remove(o.socket_path);
		fatal(err);
	}
	log_info("pingsockd %s: running as %s (uid %u)", PSD_VERSION,
		 target.name, (unsigned)target.uid);
	if (ready_fd >= 0)
		detach_stdio(ready_fd);
	return server_run(&conf);
}
