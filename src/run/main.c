/* SPDX-License-Identifier: ISC */
#include "run/run.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pingsock.h"

#ifndef PINGSOCK_VERSION
#define PINGSOCK_VERSION "unknown"
#endif

/* As env(1) and timeout(1): 125 this program failed, 126 PROGRAM could
 * not be run, 127 it was not found. */
#define EXIT_RUN 125
#define EXIT_CANNOT 126
#define EXIT_NOTFOUND 127

static const char usage_text[] =
	"Usage: pingsock-run [--] PROGRAM [ARG]...\n"
	"Run PROGRAM, and every process it starts, with ping sockets\n"
	"(socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP) and its IPv6 twin) from\n"
	"pingsockd's broker mode, however PROGRAM is written or linked.\n"
	"\n"
	"  -h, --help     print this help and exit\n"
	"  -V, --version  print the version and exit\n"
	"\n"
	"Environment: PINGSOCK_SOCKET, the daemon's socket.\n"
	"Exit status: PROGRAM's; 125 if pingsock-run failed, 126 if PROGRAM\n"
	"could not be run, 127 if it was not found.\n";

/* The signals passed on to the program (the others act on both). */
static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
				  SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM };

static int args(int argc, char **argv)
{
	int i = 1;

	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		fputs(usage_text, stdout);
		exit(0);
	}
	if (i < argc && (!strcmp(argv[i], "-V") ||
			 !strcmp(argv[i], "--version"))) {
		printf("pingsock-run (pingsock) %s\n", PINGSOCK_VERSION);
		exit(0);
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || (argv[i][0] == '-' && i == 1)) {
		if (i < argc)
			fprintf(stderr, "pingsock-run: invalid option -- '%s'\n",
				argv[i]);
		fputs(usage_text, stderr);
		exit(EXIT_RUN);
	}
	return i;
}

/* Does the kernel itself refuse this user a ping socket of domain?  Asked
 * of the kernel directly, not of an LD_PRELOAD shim. */
static bool kernel_refuses(int domain, int protocol)
{
	int fd = (int)syscall(SYS_socket, domain, SOCK_DGRAM | SOCK_CLOEXEC,
			      protocol);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EACCES || errno == EPERM || errno == EPROTONOSUPPORT ||
	       (domain == AF_INET && errno == EAFNOSUPPORT);
}

/* The daemon must hand out kernel sockets (broker mode) for a family the
 * kernel refuses: otherwise nothing can be given to the program. */
static void daemon_check(int domain, int protocol)
{
	int fd = pingsock_socket(domain, SOCK_DGRAM | SOCK_CLOEXEC, protocol);
	int kind = fd >= 0 ? pingsock_backend(fd) : PINGSOCK_BACKEND_NONE;

	if (fd >= 0)
		pingsock_close(fd);
	if (kind == PINGSOCK_BACKEND_BROKER)
		return;
	if (kind == PINGSOCK_BACKEND_DAEMON)
		fprintf(stderr, "pingsock-run: pingsockd relays this user's ping "
			"sockets (relay mode): a relayed socket cannot be handed "
			"to a program; use the LD_PRELOAD shim "
			"(pingsock-preload(8)), or ask for broker mode\n");
	else
		fprintf(stderr, "pingsock-run: no ping socket from pingsockd: "
			"%s\n", pingsock_why());
	exit(EXIT_RUN);
}

static int signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* PINGSOCK_BACKEND as the user had it: the program's, not ours. */
static const char *user_backend;

_Noreturn static void child(const struct run_families *fam, int sock,
			    const sigset_t *old, char **argv)
{
	int err;

	sigprocmask(SIG_SETMASK, old, NULL);
	if (user_backend)
		setenv("PINGSOCK_BACKEND", user_backend, 1);
	else
		unsetenv("PINGSOCK_BACKEND");
	err = filter_install(fam, sock);
	close(sock);
	if (err) {
		fprintf(stderr, "pingsock-run: seccomp filter: %s\n",
			strerror(-err));
		_exit(EXIT_RUN);
	}
	execvp(argv[0], argv);
	err = errno;
	fprintf(stderr, "pingsock-run: %s: %s\n", argv[0], strerror(err));
	_exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_CANNOT);
}

/* End as the program did: its exit status, or its signal. */
_Noreturn static void end_as(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		sigset_t set;

		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		exit(128 + sig);
	}
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUN);
}

static int supervise(const struct run_families *fam, char **argv)
{
	sigset_t old;
	int pair[2], sigfd = signals(&old), lfd, status = 0;
	pid_t pid;

	if (sigfd < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    pair) != 0) {
		fprintf(stderr, "pingsock-run: %s\n", strerror(errno));
		return EXIT_RUN;
	}
	pid = fork();
	if (pid == 0) {
		close(pair[0]);
		child(fam, pair[1], &old, argv);
	}
	close(pair[1]);
	if (pid < 0) {
		fprintf(stderr, "pingsock-run: fork: %s\n", strerror(errno));
		return EXIT_RUN;
	}
	lfd = filter_receive(pair[0]);
	close(pair[0]);
	if (lfd < 0)
		waitpid(pid, &status, 0);	/* it said why */
	else
		status = super_run(lfd, pid, sigfd);
	end_as(status);
}

int main(int argc, char **argv)
{
	int first = args(argc, argv);
	struct run_families fam = {
		.v4 = kernel_refuses(AF_INET, IPPROTO_ICMP),
		.v6 = kernel_refuses(AF_INET6, IPPROTO_ICMPV6),
	};

	/* Nothing to serve: PROGRAM is just run, with no filter. */
	if (!fam.v4 && !fam.v6) {
		execvp(argv[first], argv + first);
		fprintf(stderr, "pingsock-run: %s: %s\n", argv[first],
			strerror(errno));
		return errno == ENOENT ? EXIT_NOTFOUND : EXIT_CANNOT;
	}
	/* Our own sockets come from the daemon, whatever the user's
	 * PINGSOCK_BACKEND says (the program gets it back). */
	user_backend = getenv("PINGSOCK_BACKEND");
	if (user_backend)
		user_backend = strdup(user_backend);
	if (setenv("PINGSOCK_BACKEND", "daemon", 1) != 0)
		return EXIT_RUN;
	if (fam.v4)
		daemon_check(AF_INET, IPPROTO_ICMP);
	else
		daemon_check(AF_INET6, IPPROTO_ICMPV6);
	return supervise(&fam, argv + first);
}
