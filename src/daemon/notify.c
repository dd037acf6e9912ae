/* SPDX-License-Identifier: ISC */
#include "daemon/notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int notify_fd = -1;
static uint64_t watchdog_ns;

/* A decimal number, all of s, > 0; 0 for anything else. */
static unsigned long long number(const char *s)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || *end ? 0 : v;
}

/* WATCHDOG_USEC, if WATCHDOG_PID (when set) names this process. */
static void read_watchdog(void)
{
	unsigned long long usec = number(getenv("WATCHDOG_USEC"));
	const char *pid = getenv("WATCHDOG_PID");

	if (pid && number(pid) != (unsigned long long)getpid())
		return;
	/* Far beyond any sane interval: no overflow in nanoseconds. */
	if (usec && usec < UINT64_MAX / 1000u)
		watchdog_ns = usec * 1000u;
}

static int connect_to(const char *name, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	socklen_t salen;

	if ((name[0] != '/' && name[0] != '@') || len < 2 ||
	    len >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "NOTIFY_SOCKET=%s: not an absolute path "
			 "or an @abstract name that fits in sun_path", name);
		return -1;
	}
	memcpy(sun.sun_path, name, len);
	if (name[0] == '@')
		sun.sun_path[0] = '\0';	/* abstract: no trailing NUL counted */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			    (name[0] == '/'));
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_fd < 0 ||
	    connect(notify_fd, (struct sockaddr *)&sun, salen) != 0) {
		snprintf(err, errlen, "NOTIFY_SOCKET=%s: %s", name,
			 strerror(errno));
		if (notify_fd >= 0)
			close(notify_fd);
		notify_fd = -1;
		return -1;
	}
	return 0;
}

int notify_init(char *err, size_t errlen)
{
	const char *name = getenv("NOTIFY_SOCKET");
	int rc = 0;

	if (name && *name) {
		rc = connect_to(name, err, errlen);
		if (rc == 0)
			read_watchdog();
	}
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return rc;
}

bool notify_send(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (notify_fd < 0)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	va_end(ap);
	if (n <= 0)
		return false;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;	/* a STATUS= cut short still goes */
	return send(notify_fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       (ssize_t)n;
}

void notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	notify_send("RELOADING=1\nMONOTONIC_USEC=%llu",
		    (unsigned long long)ts.tv_sec * 1000000ull +
			    (unsigned long long)ts.tv_nsec / 1000u);
}

uint64_t notify_watchdog_ns(void)
{
	return notify_fd >= 0 ? watchdog_ns : 0;
}
