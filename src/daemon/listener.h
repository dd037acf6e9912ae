/* SPDX-License-Identifier: ISC */
/*
 * listener - the daemon's AF_UNIX SOCK_SEQPACKET socket.
 *
 * Root makes it at start-up without following any path a user can change
 * (safepath.h): the directory is reached and checked through descriptors;
 * a missing one is made root's, group the daemon's (which nobody else
 * has), mode 0775, so that the unprivileged daemon can remove its socket
 * when it stops; the socket is bound from inside it, mode 0666 through the
 * umask, root's.  An existing socket file is replaced only if nothing
 * answers on it.
 *
 * Or the socket comes from a service manager (systemd socket activation,
 * sd_listen_fds(3) semantics without libsystemd): then systemd owns the file
 * and its directory, and the daemon neither creates, chowns nor removes them.
 */
#ifndef PSD_LISTENER_H
#define PSD_LISTENER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct safepath_owner;

/* Listen on path (absolute), for the daemon user and group in o. */
int listener_open(const char *path, const struct safepath_owner *o,
		  char *err, size_t errlen);

/*
 * The checked directory of the socket at path (listener_open's, or that of
 * a passed socket's path, checked now), kept open: the sandbox makes its
 * empty root there and the socket is removed through it.  -1 with err.
 */
int listener_dir(const char *path, const struct safepath_owner *o,
		 char *err, size_t errlen);

/* Unlinks path only if listener_open created it (never a passed socket). */
void listener_remove(const char *path);

/*
 * The listening socket passed by a service manager: LISTEN_PID must be this
 * process and LISTEN_FDS 1; the socket is fd 3 (SD_LISTEN_FDS_START) and
 * must be AF_UNIX, SOCK_SEQPACKET, listening and bound to a path, which is
 * copied to path.  It is made O_NONBLOCK and FD_CLOEXEC.  LISTEN_PID,
 * LISTEN_FDS and LISTEN_FDNAMES are unset in every case.
 * Returns 0 with *fd set, 1 if no socket was passed to this process, -1 with
 * a one-line reason in err if one was passed but cannot be used.
 */
int listener_inherit(int *fd, char *path, size_t pathlen, char *err,
		     size_t errlen);

/* Whether two paths name the same file (same string or same inode). */
bool listener_same_path(const char *a, const char *b);

#endif
