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
	va_list ap;

	if (prio == LOG_DEBUG && !debug)
		return;
	va_start(ap, fmt);
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		fputs("pingsockd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
