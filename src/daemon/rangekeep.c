/* SPDX-License-Identifier: ISC */
#include "daemon/rangekeep.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <seccomp.h>

#include "daemon/buildenv.h"
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "daemon/buildenv.h"
#include "daemon/log.h"

#define RANGE_PATH "/proc/sys/net/ipv4/ping_group_range"
#define CLOSED_RANGE "1 0"

static int read_fd(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void rangekeep_read(char *buf, size_t len)
{
	int fd = open(RANGE_PATH, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd >= 0) {
		if (read_fd(fd, buf, len))
			buf[0] = '\0';
		close(fd);
	}
}

static bool parse_range(const char *s, unsigned long *lo, unsigned long *hi)
{
	char *end;

	errno = 0;
	*lo = strtoul(s, &end, 10);
	if (errno || end == s)
		return false;
	s = end;
	*hi = strtoul(s, &end, 10);
	return !errno && end != s;
}

static bool is_only(const char *range, gid_t gid)
{
	unsigned long lo, hi;

	return parse_range(range, &lo, &hi) && lo == gid && hi == gid;
}

static int write_range(int fd, const char *text)
{
	size_t n = strlen(text);

	return pwrite(fd, text, n, 0) == (ssize_t)n ? 0 : -1;
}

/* Only what waiting and restoring need; anything else kills the keeper. */
static int keeper_filter(void)
{
	static const int allowed[] = {
		SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(pwrite64),
		SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
		SCMP_SYS(restart_syscall), SCMP_SYS(brk), SCMP_SYS(mmap),
		SCMP_SYS(munmap), SCMP_SYS(getpid), SCMP_SYS(gettid),
	};
	scmp_filter_ctx ctx;
	int rc;

	/* Valgrind's own calls share the process (and it lacks seccomp(2)):
	 * under it (tests only) the keeper goes without its filter. */
	if (RUNNING_ON_VALGRIND)
		return 0;
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	rc = ctx ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

/* Everything but uid 0 itself, which the sysctl's owner check needs. */
static int keeper_drop(gid_t gid)
{
	cap_t none = cap_init();
	int rc = 0;

	for (cap_value_t c = 0; c <= CAP_LAST_CAP && !rc; c++)
		if (CAP_IS_SUPPORTED(c))
			rc = cap_drop_bound(c);
	if (!rc && (setgroups(0, NULL) || setresgid(gid, gid, gid)))
		rc = -1;
	if (!rc && (!none || cap_set_proc(none)))
		rc = -1;
	cap_free(none);
	if (!rc)
		rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return rc ? -1 : keeper_filter();
}

/* head, value, tail on stderr: no stdio, the filter allows write(2). */
/* The journal takes "<3>" for the priority and names the sender itself. */
static void say(const char *head, const char *value, const char *tail)
{
	const char *parts[4] = { log_journal() ? "<3>" : "pingsockd: ", head,
				 value, tail };

	for (int i = 0; i < 4; i++)
		(void)!write(2, parts[i], strlen(parts[i]));
}

static void close_others(int keep1, int keep2)
{
	int lo = keep1 < keep2 ? keep1 : keep2, hi = keep1 ^ keep2 ^ lo;

	/* stdin/stdout are not needed; stderr carries the last word. */
	close(0);
	close(1);
	if (lo > 3)
		close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0u, 0);
}

static void __attribute__((noreturn))
keeper(int wait_fd, int sys_fd, gid_t gid, const char *prev)
{
	char cur[64], c;
	ssize_t n;

	/* The daemon's signals (a terminal's ^C, systemd's stop) are for
	 * the daemon: the keeper restores after it, then exits. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "pingsockd-range", 0, 0, 0);
	close_others(wait_fd, sys_fd);
	if (keeper_drop(gid)) {
		say("range keeper: dropping privileges failed; ",
		    "the range stays as it is", "\n");
		_exit(1);
	}
	do
		n = read(wait_fd, &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (read_fd(sys_fd, cur, sizeof(cur)) == 0 && is_only(cur, gid)) {
		if (write_range(sys_fd, prev))
			say("restoring net.ipv4.ping_group_range "
			    "to \"", prev, "\" failed\n");
		_exit(0);
	}
	say("net.ipv4.ping_group_range was changed to \"", cur,
	    "\" while the daemon ran: left as it is\n");
	_exit(0);
}

static int claim_checked(int fd, gid_t gid, char *prev, size_t prevlen,
			 char *err, size_t errlen)
{
	char cur[64], mine[32];
	unsigned long lo, hi;

	if (read_fd(fd, cur, sizeof(cur)) || !parse_range(cur, &lo, &hi)) {
		snprintf(err, errlen, "%s: unreadable", RANGE_PATH);
		return -1;
	}
	for (char *p = cur; *p; p++)
		if (*p == '\t')
			*p = ' ';
	if (is_only(cur, gid)) {
		log_warn("net.ipv4.ping_group_range is already \"%s\" (a "
			 "previous pingsockd?): taken over; \"%s\" at exit",
			 cur, CLOSED_RANGE);
		snprintf(prev, prevlen, "%s", CLOSED_RANGE);
	} else if (lo <= hi) {
		snprintf(err, errlen, "broker mode: net.ipv4.ping_group_range "
			 "is \"%s\": the kernel already gives ping sockets to "
			 "those groups, and broker mode would take them away; "
			 "close it (sysctl net.ipv4.ping_group_range=\"1 0\") "
			 "or use mode = relay", cur);
		return -1;
	} else {
		snprintf(prev, prevlen, "%s", cur);
	}
	snprintf(mine, sizeof(mine), "%u %u", (unsigned)gid, (unsigned)gid);
	if (write_range(fd, mine)) {
		snprintf(err, errlen, "setting net.ipv4.ping_group_range to "
			 "\"%s\": %s", mine, strerror(errno));
		return -1;
	}
	return 0;
}

int rangekeep_claim(gid_t gid, char *err, size_t errlen)
{
	char prev[64];
	int fd = open(RANGE_PATH, O_RDWR | O_CLOEXEC), p[2];
	pid_t pid;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", RANGE_PATH, strerror(errno));
		return -1;
	}
	if (claim_checked(fd, gid, prev, sizeof(prev), err, errlen)) {
		close(fd);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) || (pid = fork()) < 0) {
		snprintf(err, errlen, "starting the range keeper: %s",
			 strerror(errno));
		write_range(fd, prev);
		close(fd);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		keeper(p[0], fd, gid, prev);
	}
	/* The write end stays open, unused, until this process ends. */
	close(p[0]);
	close(fd);
	log_info("net.ipv4.ping_group_range set to \"%u %u\" (was \"%s\"; "
		 "restored at exit by process %d)", (unsigned)gid,
		 (unsigned)gid, prev, (int)pid);
	return 0;
}
