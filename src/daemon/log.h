/* SPDX-License-Identifier: ISC */
/*
 * log - the daemon's messages: stderr ("pingsockd: ...") in the
 * foreground and until start-up is complete, syslog once daemonised; or,
 * with --log-file, every message to that file instead, one line each:
 *
 *   2026-12-03T15:25:01.123Z pingsockd[4242] info: event=open socket=...
 *
 * (ISO 8601 UTC time, milliseconds).  The file is opened once, as root,
 * before the privilege drop (O_APPEND, 0640, not through a symlink) and
 * kept: it is never reopened, not even on SIGHUP, since the daemon could
 * not open it again once unprivileged and sandboxed.  Rotate it with
 * logrotate's copytruncate (O_APPEND writes follow the truncation).
 * In the foreground, warnings and errors also go to stderr.
 *
 * Under systemd (JOURNAL_STREAM naming stderr), each stderr line is
 * "<N>message": N the syslog priority, which the journal keeps; no
 * "pingsockd:" prefix and no time, which the journal adds itself.
 */
#ifndef PSD_LOG_H
#define PSD_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include <stdbool.h>

void log_to_syslog(void);
/* Connect to syslog now (before the chroot), warning once on stderr if
 * nothing listens there. */
void log_open_syslog(void);
/* Read JOURNAL_STREAM (at start, before anything is logged). */
void log_detect_journal(void);
bool log_journal(void);
void log_set_debug(int on);
/* Make the writes to standard error non-blocking (at start, while /proc
 * can be opened): the log must never hold the loop up. */
void log_nonblocking(void);
/* Lines that could not be written (they would have blocked, or the log
 * is gone), since the start; UINT32_MAX at most (wire_stats). */
uint32_t log_lost(void);
/* --log-file: every message to fd (opened as main.c's open_log_file()
 * says), from now on. */
void log_use_file(int fd);
/* The --log-file descriptor, or -1. */
int log_file_fd(void);
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Messages a client or the network can cause at will: at most
 * LOG_LIMIT_BURST lines at once of each class, then LOG_LIMIT_BURST a
 * second (a token bucket); the rest are counted, and log_held() says how
 * many in one line (from the tick, once a second).
 *
 * A message about a user has the budget of that user's (its uidtab
 * entry's logq, engine/uidtab.h): one budget for everyone let uid 65534,
 * flooding refusals, hide uid 4242's refusal entirely.  A message about
 * no user (accept errors), or a user without an entry (no memory), has
 * the daemon-wide budget of its class.
 */
enum log_class { LOGC_PROTOCOL, LOGC_REFUSED, LOGC_ACCEPT, LOGC_END };
#define LOG_LIMIT_BURST 10
struct uident;
void log_limited(enum log_class c, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A message about u's user (u NULL: the daemon-wide budget). */
void log_limited_user(struct uident *u, enum log_class c, int prio,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* One line per class of what u's budgets held back ("uid=U: N more
 * refusals not logged ..."), and the count starts again; u NULL: the
 * daemon-wide budgets'. */
void log_held(struct uident *u);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
