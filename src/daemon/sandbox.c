#include "daemon/sandbox.h"

#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/safepath.h"

/* Valgrind runs the daemon in tests (tests/integration/valgrind.sh); its
 * own code shares the process and the filter. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* The ASan+UBSan build (make check's second pass): LeakSanitizer's check
 * at exit stops the process with ptrace from a clone and reads
 * /proc/self/task and /proc/self/maps.  So that build keeps the file
 * system (no chroot) and its filter also allows those calls. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1		/* si_code of a SIGSYS from seccomp */
#endif
#define PSD_SO_PASSRIGHTS 83	/* Linux 6.16 (closer.h) */
#ifndef SOL_RAW
#define SOL_RAW 255
#endif
#ifndef ICMP_FILTER
#define ICMP_FILTER 1		/* <linux/icmp.h> */
#endif
#define NAME_SLOTS 1024		/* syscall numbers we can name in the log */

/* A path kept as (directory handle, last component). */
struct kept {
	char path[PATH_MAX];	/* as the caller will pass it again */
	int dir;		/* its directory, checked, or -1 */
	char base[NAME_MAX + 1];
};

static struct kept cfg = { .dir = -1 };
static int sock_dir = -1;	/* the socket's directory (listener.h) */
static int devnull = -1;
static int trap_log = -1;	/* /dev/log, for the SIGSYS handler */

/* For the SIGSYS handler, which may not allocate: the names, made
 * beforehand. */
static const char *sys_name[NAME_SLOTS];
static char name_pool[NAME_SLOTS * 8];
static uint32_t native_arch;

/* ---- paths kept across the chroot ---- */

/* The config file's directory, checked (safepath.h) and kept. */
static int keep_config(const char *path, char *err, size_t errlen)
{
	if (strlen(path) >= sizeof(cfg.path)) {
		snprintf(err, errlen, "sandbox: %s: path too long", path);
		return -1;
	}
	cfg.dir = safepath_parent(path, cfg.base, sizeof(cfg.base), err,
				  errlen);
	if (cfg.dir < 0)
		return -1;
	snprintf(cfg.path, sizeof(cfg.path), "%s", path);
	return 0;
}

static bool is_kept(const struct kept *k, const char *path)
{
	return k->dir >= 0 && strcmp(k->path, path) == 0;
}

FILE *sandbox_fopen_config(const char *path, bool strict, char *err,
			   size_t errlen)
{
	char base[NAME_MAX + 1];
	FILE *f;
	int dir, fd;

	if (!strict) {	/* --check-config run by anyone: just read it */
		f = fopen(path, "re");
		if (!f)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return f;
	}
	dir = is_kept(&cfg, path) ? cfg.dir
				  : safepath_parent(path, base, sizeof(base),
						    err, errlen);
	if (dir < 0)
		return NULL;
	fd = safepath_open_file(dir, is_kept(&cfg, path) ? cfg.base : base,
				O_RDONLY, 0, path, err, errlen);
	if (dir != cfg.dir)
		close(dir);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int sandbox_devnull(void)
{
	int fd = devnull;

	devnull = -1;
	return fd >= 0 ? fd : open("/dev/null", O_RDWR | O_CLOEXEC);
}

/* ---- the empty root ---- */

static bool have_chroot_cap(void)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (now)
		cap_get_flag(now, CAP_SYS_CHROOT, CAP_EFFECTIVE, &v);
	cap_free(now);
	return v == CAP_SET;
}

/* Root's, not writable by anyone, empty. */
static bool empty_and_safe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       !(st.st_mode & 0222) && st.st_nlink == 2;
}

static int enter(int fd)
{
	return fchdir(fd) != 0 || chroot(".") != 0 || chdir("/") != 0 ? -1 : 0;
}

/*
 * A new directory next to the socket, root's and mode 0555, so that
 * nobody else can put anything in it; chroot there and remove it: the
 * daemon's / is then an empty, deleted directory where not even root can
 * create a file.  Where the socket's directory is read-only (systemd's
 * ProtectSystem=strict), an existing empty /var/empty does.
 */
static int chroot_empty(char *err, size_t errlen)
{
	char name[64] = "";
	int fd, e = 0;

	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), ".pingsockd-root.%d.%u",
			 (int)getpid(), i);
		if (mkdirat(sock_dir, name, 0555) == 0)
			break;
		e = errno;
		name[0] = '\0';
		if (e != EEXIST)
			break;
	}
	if (!name[0]) {
		fd = open("/var/empty", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
		if (fd >= 0 && empty_and_safe(fd) && enter(fd) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "sandbox: creating an empty directory "
			 "next to the socket: %s (and no empty, root-owned "
			 "/var/empty)", strerror(e));
		return -1;
	}
	errno = 0;
	fd = openat(sock_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_CLOEXEC);
	/* Still the one made above. */
	if (fd < 0 || !empty_and_safe(fd) || enter(fd) != 0) {
		e = errno;
		snprintf(err, errlen, "sandbox: chroot into %s: %s", name,
			 fd < 0 || e ? strerror(e) : "not the new directory");
		if (fd >= 0)
			close(fd);
		unlinkat(sock_dir, name, AT_REMOVEDIR);
		return -1;
	}
	close(fd);
	if (unlinkat(sock_dir, name, AT_REMOVEDIR) != 0)
		log_warn("sandbox: removing the empty directory %s: %s", name,
			 strerror(errno));
	return 0;
}

/* A connection of our own to syslog, for the SIGSYS handler. */
static void open_trap_log(void)
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

int sandbox_enter(int socket_dir, const char *config_path, bool daemonised,
		  char *err, size_t errlen)
{
	/* syslog's time stamps read /etc/localtime, once: now. */
	tzset();
	if (config_path && keep_config(config_path, err, errlen))
		return -1;
	sock_dir = socket_dir;
	if (daemonised)
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (daemonised && log_file_fd() < 0) {
		/* log_to_syslog() later finds it connected and keeps it. */
		openlog("pingsockd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		open_trap_log();
	}
	if (SANITIZED) {
		log_info("sandbox: sanitizer build: no chroot (LeakSanitizer "
			 "reads /proc at exit)");
		return 0;
	}
	if (!have_chroot_cap()) {
		log_warn("sandbox: no CAP_SYS_CHROOT, so no chroot: the file "
			 "system stays visible (read-only for the filter)");
		return 0;
	}
	return chroot_empty(err, errlen);
}

/* ---- Landlock scopes (Linux 6.12, ABI 6) ---- */

/* <linux/landlock.h> of this kernel: newer than the build's headers. */
struct psd_landlock_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};
#define PSD_LANDLOCK_VERSION 1u		/* LANDLOCK_CREATE_RULESET_VERSION */
#define PSD_SCOPE_ABSTRACT_UNIX 1ull	/* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */
#define PSD_SCOPE_SIGNAL 2ull		/* LANDLOCK_SCOPE_SIGNAL */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

int sandbox_landlock(char *err, size_t errlen)
{
	struct psd_landlock_attr attr = {
		.scoped = PSD_SCOPE_ABSTRACT_UNIX | PSD_SCOPE_SIGNAL,
	};
	long abi;
	int fd;

	/* Valgrind 3.19 knows no Landlock call (and says so in its log). */
	if (RUNNING_ON_VALGRIND) {
		log_info("sandbox: under valgrind: no Landlock scopes");
		return 0;
	}
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      PSD_LANDLOCK_VERSION);

	if (abi < 6) {
		log_info("sandbox: no Landlock scopes (%s): connecting to "
			 "abstract unix sockets is not refused",
			 abi < 0 ? strerror(errno) : "ABI older than 6");
		return 0;
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0 || syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
		snprintf(err, errlen, "sandbox: Landlock: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* ---- the system call filter ---- */

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

static size_t put_num(char *buf, size_t at, size_t cap, unsigned long v,
		      unsigned base)
{
	char d[24];
	size_t n = 0;

	do {
		d[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && n < sizeof(d));
	while (n && at < cap)
		buf[at++] = d[--n];
	return at;
}

/* put_num, zero-padded to width digits. */
static size_t put_pad(char *buf, size_t at, size_t cap, unsigned long v,
		      int width)
{
	char d[24];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < (int)sizeof(d));
	while (n < width && n < (int)sizeof(d))
		d[n++] = '0';
	while (n && at < cap)
		buf[at++] = d[--n];
	return at;
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

	m = put(line, 0, sizeof(line), "pingsockd: ");
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
 * EPERM, said on stderr).
 */
enum { TRY_OPEN, TRY_HDRINCL, TRY_ABSTRACT };
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

void sandbox_test_raw(int fd)
{
	const char *t = getenv("PINGSOCKD_TEST_TRY");

	test_raw_fd = fd;
	test_try = !t ? TRY_OPEN : strcmp(t, "hdrincl") == 0 ? TRY_HDRINCL
		 : strcmp(t, "abstract") == 0 ? TRY_ABSTRACT : TRY_OPEN;
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

/* 32-bit arguments (descriptors, flags) are compared on their low half,
 * as the kernel reads them. */
#define ARG32(i, v) SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, 0xffffffffULL, \
			       (uint64_t)(uint32_t)(v))
#define ARGMASK(i, m, v) SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, (m), (v))

/*
 * Allowed without looking at the arguments.  Found by running the whole
 * suite (tests/run) with the daemon under strace and taking every call
 * after the filter's place in start-up; the few not seen there are noted.
 */
static const int plain[] = {
	/* the loop, its sockets, the data pairs, the route probes */
	SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
	SCMP_SYS(accept4), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg),
	SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(recvmmsg),
	SCMP_SYS(getsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(bind), SCMP_SYS(connect), SCMP_SYS(read), SCMP_SYS(pread64),
	SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(newfstatat),
	SCMP_SYS(shutdown),	/* closer.h: sockets closed after a drain */
	SCMP_SYS(ftruncate),
	/* memory (mmap and mprotect: below) */
	SCMP_SYS(brk), SCMP_SYS(munmap),
	/* signals: signalfd, SIGPIPE ignored, the SIGSYS handler */
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(signalfd4), SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	/* start-up's last steps when daemonised (stdio to /dev/null) */
	SCMP_SYS(chdir), SCMP_SYS(dup2),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
	/* not seen, but libc may: the vDSO's clocks as real calls (no vDSO,
	 * valgrind), malloc's and stdio's other calls, a stopped and
	 * continued process, and the generic names of other architectures */
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(time),
	SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(futex),
	SCMP_SYS(lseek), SCMP_SYS(writev), SCMP_SYS(restart_syscall),
	SCMP_SYS(epoll_pwait), SCMP_SYS(dup3), SCMP_SYS(fstat),
};

/* What valgrind itself calls while it runs the loop (found with strace). */
static const int for_valgrind[] = {
	SCMP_SYS(rt_sigtimedwait), SCMP_SYS(statx), SCMP_SYS(readlink),
};

/* In the sanitizer build only: what LeakSanitizer calls at exit (a
 * ptrace-ing clone that reads /proc), and what a report needs (isatty,
 * reading its own debug information; the external symbolizer it tries to
 * start is refused its execve, so it symbolizes by itself). */
static const int for_sanitizer[] = {
	SCMP_SYS(prctl), SCMP_SYS(clone), SCMP_SYS(ptrace), SCMP_SYS(wait4),
	SCMP_SYS(sched_yield), SCMP_SYS(getdents64),
	SCMP_SYS(sigaltstack), SCMP_SYS(readlink), SCMP_SYS(exit),
	SCMP_SYS(getppid), SCMP_SYS(open), SCMP_SYS(getdents),
	SCMP_SYS(ioctl), SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(fork),
	SCMP_SYS(vfork), SCMP_SYS(kill), SCMP_SYS(fcntl),
};

static int add(scmp_filter_ctx ctx, int nr, unsigned n,
	       const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, cmp);
}

/*
 * setsockopt(): the options the loop sets, and no other (a compromised
 * daemon gets no IP_HDRINCL on the raw sockets it keeps, no filter
 * detached, no option a kernel bug could hide behind).
 */
static const struct { int level, name; } sockopts[] = {
	{ SOL_SOCKET, SO_SNDBUF },	  /* a data pair's, for SO_RCVBUF */
	{ SOL_SOCKET, PSD_SO_PASSRIGHTS }, /* closer.h, on new pairs */
	{ SOL_SOCKET, SO_REUSEADDR },	  /* broker sockets (broker.h) */
	{ SOL_SOCKET, SO_BINDTOIFINDEX }, /* those, and the route probes */
	{ SOL_SOCKET, SO_BROADCAST },	  /* the route probes */
	{ SOL_SOCKET, SO_LINGER },	  /* closer.c: a passed socket */
	{ SOL_IP, IP_FREEBIND },	  /* broker sockets */
	{ SOL_IP, IP_MULTICAST_TTL },	  /* raw.c, per send to a group */
	{ SOL_IPV6, IPV6_FREEBIND },
	{ SOL_IPV6, IPV6_MTU_DISCOVER },  /* raw6.c, per send */
	{ SOL_IPV6, IPV6_MULTICAST_LOOP },
	{ SOL_IPV6, IPV6_MTU },
	{ SOL_IPV6, 32 },		  /* IPV6_FLOWLABEL_MGR: raw6.c */
	{ SOL_RAW, ICMP_FILTER },	  /* raw_listen() */
	{ IPPROTO_ICMPV6, ICMP6_FILTER },
};

static int add_sockopts(scmp_filter_ctx ctx)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(sockopts) / sizeof(sockopts[0]); i++) {
		struct scmp_arg_cmp c[2] = {
			ARG32(1, sockopts[i].level), ARG32(2, sockopts[i].name),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(setsockopt), 2, c);
	}
	return rc;
}

static int build_rules(scmp_filter_ctx ctx, bool ping_sockets)
{
	const int cloexec_flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				  O_NONBLOCK | O_LARGEFILE;
	int rc = 0;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		rc = rc ? rc : add(ctx, plain[i], 0, NULL);
	rc = rc ? rc : add_sockopts(ctx);
	for (size_t i = 0; RUNNING_ON_VALGRIND &&
			   i < sizeof(for_valgrind) / sizeof(for_valgrind[0]); i++)
		rc = rc ? rc : add(ctx, for_valgrind[i], 0, NULL);
	for (size_t i = 0; SANITIZED &&
			   i < sizeof(for_sanitizer) / sizeof(for_sanitizer[0]); i++)
		rc = rc ? rc : add(ctx, for_sanitizer[i], 0, NULL);

	/* Memory: never executable (but valgrind's translations are). */
	if (RUNNING_ON_VALGRIND) {
		rc = rc ? rc : add(ctx, SCMP_SYS(mmap), 0, NULL);
		rc = rc ? rc : add(ctx, SCMP_SYS(mprotect), 0, NULL);
	} else {
		struct scmp_arg_cmp noexec = ARGMASK(2, PROT_EXEC, 0);

		rc = rc ? rc : add(ctx, SCMP_SYS(mmap), 1, &noexec);
		rc = rc ? rc : add(ctx, SCMP_SYS(mprotect), 1, &noexec);
	}
	/* New sockets, all with protocol 0: UDP for the route probes,
	 * AF_UNIX datagrams for if_nametoindex() and syslog, rtnetlink for
	 * getifaddrs(); data pairs.  No raw or ping socket, no TCP. */
	{
		static const struct { int family, type; } kinds[] = {
			{ AF_INET, SOCK_DGRAM }, { AF_INET6, SOCK_DGRAM },
			{ AF_UNIX, SOCK_DGRAM }, { AF_NETLINK, SOCK_RAW },
		};

		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			struct scmp_arg_cmp c[3] = {
				ARG32(0, kinds[i].family),
				ARGMASK(1, 0xf, (uint64_t)kinds[i].type),
				ARG32(2, 0),
			};

			rc = rc ? rc : add(ctx, SCMP_SYS(socket), 3, c);
		}
	}
	/* Broker mode: kernel ping sockets, of the group kept for them. */
	for (int i = 0; ping_sockets && i < 2; i++) {
		struct scmp_arg_cmp c[3] = {
			ARG32(0, i ? AF_INET6 : AF_INET),
			ARGMASK(1, 0xf, SOCK_DGRAM),
			ARG32(2, i ? IPPROTO_ICMPV6 : IPPROTO_ICMP),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(socket), 3, c);
	}
	{
		struct scmp_arg_cmp c[3] = {
			ARG32(0, AF_UNIX), ARGMASK(1, 0xf, SOCK_SEQPACKET),
			ARG32(2, 0),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(socketpair), 3, c);
	}
	/* The shared page of each socket: a sealed memfd. */
	{
		struct scmp_arg_cmp c = ARG32(1, MFD_CLOEXEC | MFD_ALLOW_SEALING);

		rc = rc ? rc : add(ctx, SCMP_SYS(memfd_create), 1, &c);
	}
	{
		static const int cmds[] = { F_GETFL, F_SETFL, F_ADD_SEALS };

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			struct scmp_arg_cmp c = ARG32(1, cmds[i]);

			rc = rc ? rc : add(ctx, SCMP_SYS(fcntl), 1, &c);
		}
	}
	/* if_nametoindex(), if_indextoname() */
	{
		static const unsigned long reqs[] = { SIOCGIFINDEX, SIOCGIFNAME };

		for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
			struct scmp_arg_cmp c = ARG32(1, reqs[i]);

			rc = rc ? rc : add(ctx, SCMP_SYS(ioctl), 1, &c);
		}
	}
	/* Files: reading the config file through its directory's handle,
	 * removing the socket through its own. */
	if (cfg.dir >= 0) {
		struct scmp_arg_cmp c[2] = {
			ARG32(0, cfg.dir),
			ARGMASK(2, 0xffffffffULL & ~(uint64_t)cloexec_flags, 0),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(openat), 2, c);
	}
	if (SANITIZED) {	/* a report's symbolizer reads files */
		struct scmp_arg_cmp c = ARGMASK(2, 0xffffffffULL &
			~(uint64_t)(cloexec_flags | O_DIRECTORY), 0);

		rc = rc ? rc : add(ctx, SCMP_SYS(openat), 1, &c);
	}
	if (sock_dir >= 0) {
		struct scmp_arg_cmp c[2] = { ARG32(0, sock_dir), ARG32(2, 0) };

		rc = rc ? rc : add(ctx, SCMP_SYS(unlinkat), 2, c);
	}
	/* The checks below; a signal to itself (the SIGSYS handler's,
	 * abort()'s). */
	{
		struct scmp_arg_cmp a = ARG32(0, PR_GET_SECCOMP),
				    b = ARG32(0, PR_GET_NO_NEW_PRIVS),
				    k = ARG32(0, getpid());

		rc = rc ? rc : add(ctx, SCMP_SYS(prctl), 1, &a);
		rc = rc ? rc : add(ctx, SCMP_SYS(prctl), 1, &b);
		rc = rc ? rc : add(ctx, SCMP_SYS(tgkill), 1, &k);
	}
	return rc;
}

int sandbox_apply(bool ping_sockets, bool threads, char *err, size_t errlen)
{
	struct sigaction sa;
	scmp_filter_ctx ctx;
	int rc;

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
	/* Valgrind 3.19 lacks seccomp(2) and says so in its log: use
	 * prctl(PR_SET_SECCOMP) there (libseccomp's API level 1). */
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(1);
	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (!ctx) {
		snprintf(err, errlen, "sandbox: seccomp_init failed");
		return -1;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP);
	/* Every thread (closer.h's, if any) under the same filter. */
	if (!rc && threads)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!rc)
		rc = build_rules(ctx, ping_sockets);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc) {
		snprintf(err, errlen, "sandbox: loading the seccomp filter: %s",
			 strerror(-rc));
		return -1;
	}
	/* Fail closed: the filter must be in force now. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2 ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		snprintf(err, errlen, "sandbox: the seccomp filter is not in "
			 "force after loading it");
		return -1;
	}
	return 0;
}
