/* SPDX-License-Identifier: ISC */
/*
 * notify - the service manager's notification protocol (sd_notify(3)
 * semantics, without libsystemd): one datagram of "KEY=VALUE" lines to
 * the AF_UNIX socket that NOTIFY_SOCKET names (a path, or "@name" for an
 * abstract one), and the watchdog that WATCHDOG_USEC asks for.
 *
 * notify_init() runs at start-up, before the chroot and the sandbox: it
 * connects the socket once and keeps the descriptor, since the socket
 * could not be reached by name afterwards (an empty root; Landlock scopes
 * abstract sockets, but not one connected before).  It unsets
 * NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID, so that no child takes
 * them for its own.  Without NOTIFY_SOCKET every call is a no-op.
 *
 * Sends never block (MSG_DONTWAIT): a full or vanished manager loses a
 * message, not the event loop.
 */
#ifndef PSD_NOTIFY_H
#define PSD_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0, or -1 with err filled (a NOTIFY_SOCKET that cannot be used). */
int notify_init(char *err, size_t errlen);

/* Send one message (lines of "KEY=VALUE"); false if none went out. */
bool notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "RELOADING=1" with MONOTONIC_USEC, as Type=notify-reload wants it. */
void notify_reloading(void);

/* The watchdog interval the manager asked for, in nanoseconds; 0: none
 * (no WATCHDOG_USEC, or a WATCHDOG_PID that is not this process). */
uint64_t notify_watchdog_ns(void);

#endif
