/*
 * listener - the daemon's AF_UNIX SOCK_SEQPACKET socket.
 *
 * A missing directory is created (0755) and given to the daemon's user, so
 * that the unprivileged daemon can remove its socket when it stops.  An
 * existing socket file is replaced only if nothing answers on it.
 */
#ifndef PSD_LISTENER_H
#define PSD_LISTENER_H

#include <stddef.h>
#include <sys/types.h>

int listener_open(const char *path, uid_t owner, gid_t group, char *err,
		  size_t errlen);
void listener_remove(const char *path);

#endif
