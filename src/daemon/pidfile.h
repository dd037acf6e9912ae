/* SPDX-License-Identifier: ISC */
/*
 * pidfile - --pidfile PATH, for init systems other than systemd.
 *
 * Written at start-up, before the privilege drop and after daemonising
 * (the pid is the daemon's own): reached as safepath.h says (no symbolic
 * link followed, every directory root's), created 0644 or an existing
 * regular file of root's with one link truncated and rewritten.  The
 * descriptor is kept: the unprivileged, chrooted daemon can no longer
 * remove the file from its root-owned directory, so at exit it empties it
 * instead (an empty pid file names no process); whatever started the
 * daemon removes it.  A daemon killed outright leaves its pid there, as
 * any would.
 */
#ifndef PSD_PIDFILE_H
#define PSD_PIDFILE_H

#include <stddef.h>

/* 0, or -1 with err filled. */
int pidfile_write(const char *path, char *err, size_t errlen);

/* Empty the file (at exit, or when start-up fails after writing it). */
void pidfile_clear(void);

#endif
