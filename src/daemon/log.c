#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>

static int use_syslog;
static int debug;

void log_to_syslog(void)
{
	openlog("pingsockd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	use_syslog = 1;
}

void log_set_debug(int on)
{
	debug = on;
}

void log_msg(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (prio == LOG_DEBUG && !debug)
		return;
	if (use_syslog) {
		va_start(ap, fmt);
		vsyslog(prio, fmt, ap);
		va_end(ap);
		return;
	}
	/* One write per line, so lines from a busy daemon never interleave. */
	va_start(ap, fmt);
	/* The analyzer misses the va_start above. */
	vsnprintf(line, sizeof(line), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
	va_end(ap);
	fprintf(stderr, "pingsockd: %s\n", line);
}
