/* SPDX-License-Identifier: ISC */
#include "daemon/trap.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/sandbox.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1		/* si_code of a SIGSYS from seccomp */
#endif
#define NAME_SLOTS 1024		/* syscall numbers we can name in the log */

static int trap_log = -1;	/* /dev/log, for the SIGSYS handler */

/* For the SIGSYS handler, which may not allocate: the names, made
 * beforehand. */
static const char *sys_name[NAME_SLOTS];
static char name_pool[NAME_SLOTS * 8];
static uint32_t native_arch;

/* A connection of our own to syslog, for the SIGSYS handler. */
void trap_open_syslog(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", _PATH_LOG);
	trap_log = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (trap_log >= 0 &&
	    connect(trap_log, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		close(trap_log);
		trap_log = -1;
	}
}


static void make_names(void)
{
	size_t used = 0;

	native_arch = seccomp_arch_native();
	for (int nr = 0; nr < NAME_SLOTS; nr++) {
		char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		size_t len = n ? strlen(n) + 1 : 0;

		if (n && used + len <= sizeof(name_pool)) {
			memcpy(name_pool + used, n, len);
			sys_name[nr] = name_pool + used;
			used += len;
		}
		free(n);
	}
}

static size_t put(char *buf, size_t at, size_t cap, const char *s)
{
	while (*s && at < cap)
		buf[at++] = *s++;
	return at;
}

/* v in base, at least width digits (zero-padded); async-signal-safe. */
static size_t put_digits(char *buf, size_t at, size_t cap, unsigned long v,
			 unsigned base, size_t width)
{
	char d[24];
	size_t n = 0;

	do {
		d[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && n < sizeof(d));
	while (n < width && n < sizeof(d))
		d[n++] = '0';
	while (n && at < cap)
		buf[at++] = d[--n];
	return at;
}

static size_t put_num(char *buf, size_t at, size_t cap, unsigned long v,
		      unsigned base)
{
	return put_digits(buf, at, cap, v, base, 1);
}

static size_t put_pad(char *buf, size_t at, size_t cap, unsigned long v,
		      size_t width)
{
	return put_digits(buf, at, cap, v, 10, width);
}

/* log.c's --log-file time stamp (2026-12-03T15:25:01.123Z) without
 * gmtime_r(), which takes a lock. */
static size_t put_stamp(char *buf, size_t at, size_t cap)
{
	struct timespec ts;
	long days, secs, z, era, doe, yoe, doy, mp, y, m, d;

	clock_gettime(CLOCK_REALTIME, &ts);
	days = (long)(ts.tv_sec / 86400);
	secs = (long)(ts.tv_sec % 86400);
	/* civil_from_days (H. Hinnant) */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y = yoe + era * 400 + (m <= 2);
	at = put_pad(buf, at, cap, (unsigned long)y, 4);
	at = put(buf, at, cap, "-");
	at = put_pad(buf, at, cap, (unsigned long)m, 2);
	at = put(buf, at, cap, "-");
	at = put_pad(buf, at, cap, (unsigned long)d, 2);
	at = put(buf, at, cap, "T");
	at = put_pad(buf, at, cap, (unsigned long)(secs / 3600), 2);
	at = put(buf, at, cap, ":");
	at = put_pad(buf, at, cap, (unsigned long)(secs / 60 % 60), 2);
	at = put(buf, at, cap, ":");
	at = put_pad(buf, at, cap, (unsigned long)(secs % 60), 2);
	at = put(buf, at, cap, ".");
	at = put_pad(buf, at, cap, (unsigned long)(ts.tv_nsec / 1000000), 3);
	return put(buf, at, cap, "Z");
}

static void say(int fd, const char *buf, size_t len)
{
	if (fd >= 0 && write(fd, buf, len) < 0) {
		/* nowhere else to say it */
	}
}

/* The signal again, now at SIG_DFL: raw calls, since raise() trusts the
 * thread pointer, which a sanitizer's own clone shares with us. */
static void die(int sig)
{
	syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid),
		(long)sig);
	_exit(128 + sig);	/* not reached */
}

/*
 * SIGSYS from the filter (SECCOMP_RET_TRAP): say which call, on stderr,
 * in the --log-file and to syslog, then die of the signal (SA_RESETHAND
 * made it SIG_DFL, SA_NODEFER leaves it unblocked).  Only
 * async-signal-safe calls: the call may have come from inside malloc()
 * or syslog().
 */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char msg[160], line[240];
	size_t n = 0, m;
	int nr = si->si_syscall;
	unsigned long pid = (unsigned long)getpid();

	(void)uc;
	if (si->si_code != SYS_SECCOMP) {	/* kill -SYS: just die of it */
		die(sig);
	}
	n = put(msg, n, sizeof(msg), "sandbox: forbidden system call ");
	n = put(msg, n, sizeof(msg),
		nr >= 0 && nr < NAME_SLOTS && sys_name[nr] ? sys_name[nr] : "?");
	n = put(msg, n, sizeof(msg), " (");
	n = put_num(msg, n, sizeof(msg), (unsigned long)(unsigned)nr, 10);
	if (si->si_arch != native_arch) {
		n = put(msg, n, sizeof(msg), ", arch 0x");
		n = put_num(msg, n, sizeof(msg), si->si_arch, 16);
	}
	n = put(msg, n, sizeof(msg), "), stopping");

	m = put(line, 0, sizeof(line), log_journal() ? "<2>" : "pingsockd: ");
	memcpy(line + m, msg, n);
	line[m + n] = '\n';
	say(STDERR_FILENO, line, m + n + 1);
	if (log_file_fd() >= 0) {
		m = put_stamp(line, 0, sizeof(line) - n - 1);
		m = put(line, m, sizeof(line) - n - 1, " pingsockd[");
		m = put_num(line, m, sizeof(line) - n - 1, pid, 10);
		m = put(line, m, sizeof(line) - n - 1, "] crit: ");
		memcpy(line + m, msg, n);
		line[m + n] = '\n';
		say(log_file_fd(), line, m + n + 1);
	}
	if (trap_log >= 0) {
		/* <LOG_DAEMON|LOG_CRIT>pingsockd[PID]: msg */
		m = put(line, 0, sizeof(line) - n, "<26>pingsockd[");
		m = put_num(line, m, sizeof(line) - n, pid, 10);
		m = put(line, m, sizeof(line) - n, "]: ");
		memcpy(line + m, msg, n);
		say(trap_log, line, m + n);
	}
	die(sig);
}

#ifdef PSD_TESTING
/* The forbidden calls of the test build: one refused by its arguments
 * (open of a path for writing, not through a kept handle), one refused
 * outright (execve). */
/*
 * PINGSOCKD_TEST_TRY chooses what SIGUSR1 tries instead of the open:
 * "hdrincl" (IP_HDRINCL on a raw socket: the filter kills), "abstract" (a
 * connect to the abstract socket @pingsockd-test: Landlock refuses it,
 * EPERM, said on stderr), "absolute" (openat() of /etc/passwd for
 * reading, on the config file's kept directory: the filter lets it
 * through, as it looks at the descriptor only; an absolute path ignores
 * that, and the empty root, or Landlock without one, must refuse it),
 * "dotdot" (the same through "..": out of the empty root by the kept
 * handle, which Landlock must refuse).
 */
enum { TRY_OPEN, TRY_HDRINCL, TRY_ABSTRACT, TRY_ABSOLUTE, TRY_DOTDOT };
static int test_try;
static int test_raw_fd = -1;
static const int one = 1;

static void try_abstract(void)
{
	static const char ok[] = "pingsockd: sandbox test: abstract connect "
				 "succeeded\n";
	static const char no[] = "pingsockd: sandbox test: abstract connect "
				 "refused\n";
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	memcpy(sun.sun_path + 1, "pingsockd-test", 14);
	rc = connect(fd, (struct sockaddr *)&sun,
		     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 15));
	if (write(STDERR_FILENO, rc ? no : ok, rc ? sizeof(no) - 1
						 : sizeof(ok) - 1) < 0)
		rc = 0;
	close(fd);
}

static void try_path(const char *path)
{
	static const char ok[] = "pingsockd: sandbox test: path open "
				 "succeeded\n";
	static const char no[] = "pingsockd: sandbox test: path open "
				 "refused\n";
	int fd = openat(sandbox_config_dir(), path, O_RDONLY | O_CLOEXEC);

	if (write(STDERR_FILENO, fd >= 0 ? ok : no,
		  fd >= 0 ? sizeof(ok) - 1 : sizeof(no) - 1) < 0 && fd >= 0)
		fd = -2;
	if (fd >= 0)
		close(fd);
}

void trap_test_raw(int fd)
{
	const char *t = getenv("PINGSOCKD_TEST_TRY");

	test_raw_fd = fd;
	test_try = !t ? TRY_OPEN : strcmp(t, "hdrincl") == 0 ? TRY_HDRINCL
		 : strcmp(t, "abstract") == 0 ? TRY_ABSTRACT
		 : strcmp(t, "absolute") == 0 ? TRY_ABSOLUTE
		 : strcmp(t, "dotdot") == 0 ? TRY_DOTDOT : TRY_OPEN;
}

static void test_forbidden(int sig)
{
	static const char say[] = "pingsockd: sandbox test: trying a "
				  "forbidden call\n";
	char *argv[] = { (char *)"/bin/true", NULL };
	char *envp[] = { NULL };
	int fd;

	if (write(STDERR_FILENO, say, sizeof(say) - 1) < 0)
		return;
	if (sig == SIGUSR1 && test_try == TRY_HDRINCL) {
		setsockopt(test_raw_fd, SOL_IP, IP_HDRINCL, &one, sizeof(one));
	} else if (sig == SIGUSR1 && test_try == TRY_ABSTRACT) {
		try_abstract();
	} else if (sig == SIGUSR1 && test_try == TRY_ABSOLUTE) {
		try_path("/etc/passwd");
	} else if (sig == SIGUSR1 && test_try == TRY_DOTDOT) {
		try_path("../../../../../../../../../../etc/passwd");
	} else if (sig == SIGUSR1) {
		fd = open("/etc/passwd", O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	} else {
		execve(argv[0], argv, envp);
	}
}

static int install_test_trigger(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = test_forbidden;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL);
}
#endif

int trap_install(char *err, size_t errlen)
{
	struct sigaction sa;

	make_names();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) != 0) {
		snprintf(err, errlen, "sandbox: SIGSYS handler: %s",
			 strerror(errno));
		return -1;
	}
#ifdef PSD_TESTING
	if (install_test_trigger()) {
		snprintf(err, errlen, "sandbox: test trigger: %s",
			 strerror(errno));
		return -1;
	}
#endif
	return 0;
}
