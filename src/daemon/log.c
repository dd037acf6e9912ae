/* SPDX-License-Identifier: ISC */
#include "daemon/log.h"

#include "engine/uidtab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int use_syslog;
static int detached;
static int debug;
static int file_fd = -1;
static pid_t file_pid;
static bool journal;	/* stderr is the journal's stream */

/*
 * JOURNAL_STREAM ("DEV:INO") is set by systemd when it connects stdout or
 * stderr to the journal.  Only if it names the very stream fd 2 is (not
 * one a parent had, inherited through a redirection) are "<N>" prefixes
 * understood there: the journal then takes N as the line's priority and
 * adds the identifier and time itself.
 */
void log_detect_journal(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int n = 0;

	journal = v && sscanf(v, "%llu:%llu%n", &dev, &ino, &n) == 2 &&
		  v[n] == '\0' && fstat(2, &st) == 0 &&
		  (unsigned long long)st.st_dev == dev &&
		  (unsigned long long)st.st_ino == ino;
}

bool log_journal(void)
{
	return journal;
}

/*
 * Lines that could not be written: the log would have blocked (a full
 * pipe or journal stream), or is gone.  The loop must never wait for
 * the log: a reader that stalls (journald busy or restarting, a logger
 * at the end of a pipe) made every write block, and with it every
 * user's requests, up to the watchdog's kill.  Counted (pingsockctl
 * status: log_lost) and said once at the next line that goes.
 */
static uint64_t lost, lost_said;
/*
 * syslog: a datagram socket of our own, connected to /dev/log before the
 * sandbox, not syslog(3): that blocks on a full /dev/log, and once the
 * syslog daemon restarts (a new socket at /dev/log) it reconnects by
 * path, which inside the chroot does not exist, and drops every record
 * without a word for the rest of the daemon's life.  Here a record that
 * cannot be sent is counted (log_lost); after the peer went away a
 * reconnection by path is tried, at most once a second: it succeeds
 * where the daemon still sees /dev/log (no chroot: Landlock, a
 * sanitizer build), never inside the chroot, which keeps nothing of the
 * file system open.  pingsockd(8) says to use --log-file there.
 */
static int syslog_fd = -1;
static uint64_t syslog_retry_ns;

static int syslog_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", _PATH_LOG);
	return connect(syslog_fd, (struct sockaddr *)&sun, sizeof(sun)) == 0
		       ? 0 : errno;
}

void log_open_syslog(void)
{
	int e;

	if (syslog_fd < 0)
		syslog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	e = syslog_fd < 0 ? errno : syslog_connect();
	/* Say it once, while stderr is still where the administrator
	 * looks; the records are counted as lost (log_lost). */
	if (e)
		fprintf(stderr, "pingsockd: warning: syslog (%s): %s: the "
			"daemon's messages will be lost (use --foreground, or "
			"--log-file)\n", _PATH_LOG, strerror(e));
}

void log_to_syslog(void)
{
	detached = 1;
	if (file_fd >= 0)
		return;		/* --log-file: the file stays the only one */
	if (syslog_fd < 0)
		log_open_syslog();
	use_syslog = 1;
}

/* For trap.c's SIGSYS handler, which writes there itself. */
int log_file_fd(void)
{
	return file_fd;
}

void log_set_debug(int on)
{
	debug = on;
}

void log_use_file(int fd)
{
	if (file_fd >= 0)
		close(file_fd);
	/* glibc reads the time zone file at the first conversion, even for
	 * gmtime_r(): have it done now, before the chroot and the filter. */
	{
		struct tm tm;
		time_t t = 0;

		gmtime_r(&t, &tm);
	}
	file_fd = fd;
	file_pid = getpid();	/* opened after daemonising: the daemon's */
}

static bool syslog_send(const char *line, size_t n)
{
	return syslog_fd >= 0 &&
	       send(syslog_fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL) ==
		       (ssize_t)n;
}

/* As syslog(3) would: "<PRI>Mmm dd hh:mm:ss pingsockd[PID]: text". */
static bool syslog_line(int prio, const char *msg)
{
	char line[1200];
	struct timespec now;
	struct tm tm;
	time_t t = time(NULL);
	size_t n = (size_t)snprintf(line, 8, "<%d>", LOG_DAEMON | prio);
	int k;

	localtime_r(&t, &tm);	/* the zone read before the chroot */
	n += strftime(line + n, sizeof(line) - n, "%b %e %H:%M:%S ", &tm);
	k = snprintf(line + n, sizeof(line) - n, "pingsockd[%d]: %s",
		     (int)getpid(), msg);
	n += k < 0 ? 0 : (size_t)k < sizeof(line) - n ? (size_t)k
						      : sizeof(line) - n - 1;
	if (syslog_send(line, n))
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (syslog_fd >= 0 && errno != EAGAIN &&
	    (uint64_t)now.tv_sec * 1000000000u >= syslog_retry_ns) {
		/* The syslog daemon went away (ECONNREFUSED, then
		 * ENOTCONN): its new socket, if it can be reached. */
		syslog_retry_ns = ((uint64_t)now.tv_sec + 1) * 1000000000u;
		if (syslog_connect() == 0 && syslog_send(line, n))
			return true;
	}
	lost++;
	return false;
}

static const char *prio_name(int prio)
{
	switch (prio) {
	case LOG_EMERG: return "emerg";
	case LOG_ALERT: return "alert";
	case LOG_CRIT: return "crit";
	case LOG_ERR: return "error";
	case LOG_WARNING: return "warning";
	case LOG_NOTICE: return "notice";
	case LOG_INFO: return "info";
	default: return "debug";
	}
}

static bool err_sock;	/* fd 2 a socket: sent with MSG_DONTWAIT */

uint32_t log_lost(void)
{
	return lost < UINT32_MAX ? (uint32_t)lost : UINT32_MAX;
}

void log_nonblocking(void)
{
	struct stat st;
	int fd;

	if (fstat(2, &st) != 0)
		return;
	if (S_ISSOCK(st.st_mode)) {
		err_sock = true;	/* the journal's stream: per call */
		return;
	}
	if (!S_ISFIFO(st.st_mode))
		return;		/* a file or a terminal: as it is */
	/* A pipe's description is shared with whoever else writes to it:
	 * O_NONBLOCK on a fresh one of our own (through /proc, before the
	 * sandbox), not on theirs. */
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	dup2(fd, 2);
	close(fd);
}

/* Write a whole line to fd (a line of at most PIPE_BUF bytes is written
 * whole or not at all).  Counts it lost if not. */
static bool put_line(int fd, const char *line, size_t n, bool sock)
{
	ssize_t w = sock ? send(fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL)
			 : write(fd, line, n);

	if (w == (ssize_t)n)
		return true;
	lost++;
	return false;
}

/* One line, one write(2): O_APPEND keeps concurrent lines whole. */
static bool file_line(int prio, const char *msg)
{
	char line[1200];
	struct timespec ts;
	struct tm tm;
	size_t n;
	int k;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	k = snprintf(line + n, sizeof(line) - n, ".%03ldZ pingsockd[%d] %s: %s\n",
		     ts.tv_nsec / 1000000, (int)file_pid, prio_name(prio), msg);
	if (k < 0)
		return false;
	n += (size_t)k < sizeof(line) - n ? (size_t)k : sizeof(line) - n - 1;
	line[n - 1] = '\n';	/* a cut line still ends as one */
	return put_line(file_fd, line, n, false);
}

static bool err_line(int prio, const char *msg)
{
	char line[1100];
	int k = journal ? snprintf(line, sizeof(line), "<%d>%s\n", prio, msg)
			: snprintf(line, sizeof(line), "pingsockd: %s\n", msg);

	if (k < 0)
		return false;
	if ((size_t)k >= sizeof(line)) {
		k = (int)sizeof(line) - 1;
		line[k - 1] = '\n';
	}
	return put_line(2, line, (size_t)k, err_sock);
}

/* The line where it goes; false if it was lost (somewhere). */
static bool deliver(int prio, const char *line)
{
	bool ok = true;

	if (use_syslog)
		return syslog_line(prio, line);
	if (file_fd >= 0) {
		ok = file_line(prio, line);
		if (detached || prio > LOG_WARNING)
			return ok;
	}
	return err_line(prio, line) && ok;
}

void log_msg(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (prio == LOG_DEBUG && !debug)
		return;
	/* One write per line, so lines from a busy daemon never interleave. */
	va_start(ap, fmt);
	/* The analyzer misses the va_start above. */
	vsnprintf(line, sizeof(line), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	va_end(ap);
	if (deliver(prio, line) && lost > lost_said) {
		unsigned long long n = lost - lost_said;

		lost_said = lost;
		snprintf(line, sizeof(line), "warning: %llu earlier log lines "
			 "could not be written (the log would have blocked, or "
			 "is gone): pingsockctl status, log_lost", n);
		deliver(LOG_WARNING, line);
	}
}

static const char *const class_names[LOGC_END] = {
	[LOGC_PROTOCOL] = "protocol errors",
	[LOGC_REFUSED] = "refusals",
	[LOGC_ACCEPT] = "accept errors",
};

_Static_assert(LOGC_END == UID_LOG_CLASSES, "uidtab.h: UID_LOG_CLASSES");

static struct uid_logq global_q[LOGC_END];	/* no user's */

/* May a line of q go now?  Else it is counted. */
static bool limit_take(struct uid_logq *q)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (rate_wait(&q->bucket, now, LOG_LIMIT_BURST, LOG_LIMIT_BURST)) {
		q->held++;
		return false;
	}
	rate_take(&q->bucket, now, LOG_LIMIT_BURST, LOG_LIMIT_BURST);
	return true;
}

static void vlimited(struct uid_logq *q, int prio, const char *fmt,
		     va_list ap)
{
	char line[1024];

	if (!limit_take(q))
		return;
	vsnprintf(line, sizeof(line), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	log_msg(prio, "%s", line);
}

void log_limited(enum log_class c, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlimited(&global_q[c], prio, fmt, ap);
	va_end(ap);
}

void log_limited_user(struct uident *u, enum log_class c, int prio,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlimited(u ? &u->logq[c] : &global_q[c], prio, fmt, ap);
	va_end(ap);
}

void log_held(struct uident *u)
{
	for (int c = 0; c < LOGC_END; c++) {
		struct uid_logq *x = u ? &u->logq[c] : &global_q[c];

		if (!x->held)
			continue;
		if (u)
			log_msg(LOG_WARNING, "uid=%u: %u more %s not logged in "
				"the last second(s)", (unsigned)u->uid, x->held,
				class_names[c]);
		else
			log_msg(LOG_WARNING, "%u more %s not logged in the "
				"last second(s)", x->held, class_names[c]);
		x->held = 0;
	}
}
