/* SPDX-License-Identifier: ISC */
/*
 * sandbox - what a compromised pingsockd is left with after start-up.
 *
 * Steps, from main.c:
 *
 *   sandbox_enter()    before privdrop_apply(), while CAP_SYS_CHROOT is
 *                      held: keep directory handles for the few paths the
 *                      daemon still needs (the config file's directory
 *                      for SIGHUP, the socket's directory for the unlink
 *                      at exit), open /dev/null and the syslog connection
 *                      if daemonising, then chroot into a new empty
 *                      directory (root-owned, not writable, already
 *                      deleted).
 *                      Without CAP_SYS_CHROOT (a start without root), no
 *                      chroot:
 *   sandbox_landlock() after privdrop_apply(): Landlock scopes and a
 *                      file system closed but for reading beneath the
 *                      config file's directory and removing beneath the
 *                      socket's (with or without the chroot: the kept
 *                      handles' ".." would lead out of it).
 *   filter_apply()     last (filter.h): the seccomp filter.
 *
 * Code that touches the file system after start-up goes through the kept
 * handles: sandbox_fopen_config() for the config file, listener_remove()
 * for the socket.
 */
#ifndef PSD_SANDBOX_H
#define PSD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* socket_dir: the socket's directory (listener_dir()), where the empty
 * root is made; config_path: absolute, or NULL.  Fails closed (err
 * filled, -1). */
int sandbox_enter(int socket_dir, const char *config_path, bool daemonised,
		  char *err, size_t errlen);
/* The config file's kept directory, or -1 (for the filter). */
int sandbox_config_dir(void);

/*
 * Landlock scopes, where the kernel has them (6.12): no connect to an
 * abstract unix socket and no signal outside the daemon's own domain;
 * and the file system rules above (Landlock ABI 1, Linux 5.13).
 * After privdrop_apply() (no_new_privs), before the closing thread.
 */
int sandbox_landlock(char *err, size_t errlen);

/* /dev/null opened before the chroot (the caller owns it), or -1. */
int sandbox_devnull(void);
/*
 * The config file, for reading: with strict, root's and reached through
 * checked directories (safepath.h; after the chroot through the handle
 * kept for it), else just opened (--check-config as any user).  NULL with
 * err filled.
 */
FILE *sandbox_fopen_config(const char *path, bool strict, char *err,
			   size_t errlen);

#endif
