/* SPDX-License-Identifier: ISC */
/*
 * pidfile - --pidfile PATH, for init systems other than systemd.
 *
 * Written at start-up, before the privilege drop and after daemonising
 * (the pid is the daemon's own): reached as safepath.h says (no symbolic
 * link followed, every directory root's), created 0644 or an existing
 * regular file of root's with one link truncated and rewritten.  The
 * descriptor is closed before the privilege drop (pidfile_close()): a
 * compromised daemon that could still write the file could name any
 * process there for the init script to signal as root.  So the pid stays
 * in the file after the daemon ends, as any daemon killed outright
 * leaves it; whatever started the daemon removes it (and checks the
 * process's name before it signals one).  Only a start that fails before
 * the drop empties it (pidfile_clear()).
 */
#ifndef PSD_PIDFILE_H
#define PSD_PIDFILE_H

#include <stddef.h>

/* 0, or -1 with err filled. */
int pidfile_write(const char *path, char *err, size_t errlen);

/* Empty the file (a start that fails before the drop), and close it. */
void pidfile_clear(void);
/* Close it, as it is (before the privilege drop). */
void pidfile_close(void);

#endif
