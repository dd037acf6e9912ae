/*
 * fdtab - what the library knows about each descriptor it handed out:
 * which backend serves it and, for daemon sockets, the daemon's handle.
 * Indexed by fd; one lock for the whole table (calls are short).
 */
#ifndef PS_FDTAB_H
#define PS_FDTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "wire/wire.h"

struct bkstate;	/* lib/broker.h */

struct fdent {
	int backend;		/* enum pingsock_backend_kind */
	int family;
	uint32_t handle;	/* daemon socket handle */
	pid_t attached;		/* process whose connection knows handle */
	struct wire_shm *shm;	/* the socket's shared state page */
	int errfd;		/* the socket's error queue (hidden), or -1 */
	bool keep_ident;	/* PINGSOCK_IDENT=keep, first send not yet made */
	struct bkstate *bk;	/* broker socket: shared by its copies */
	_Atomic uint8_t *used;	/* its flag: sent or connected (broker.h) */
	int livefd;		/* its liveness descriptor (hidden), or -1 */
	bool raw;		/* the raw-socket emulation (rawcompat.h) */
	bool has_stamp;		/* SIOCGSTAMP: time of the last datagram read */
	struct timespec stamp;
};

/*
 * True when every call on fd is the plain libc call (not ours, or a
 * kernel socket with nothing left for the library to do): a lock-free
 * check for the hot paths.  False means "look at the entry".
 */
bool fdtab_plain(int fd);
/* A broker socket was used: from now on its calls are plain. */
void fdtab_set_plain(int fd);

/* Copy of the entry for fd; false (and *out zeroed) if fd is not ours. */
bool fdtab_get(int fd, struct fdent *out);
int fdtab_set(int fd, const struct fdent *ent);
void fdtab_clear(int fd);
void fdtab_set_stamp(int fd, const struct timespec *ts);
/* The first send is being made: keep_ident no longer applies. */
void fdtab_clear_keep(int fd);
/* The daemon's socket is an emulated raw one (PINGSOCK_RAW=echo). */
void fdtab_set_raw(int fd);
/*
 * Record a (re)attachment.  The shared page and error descriptor are
 * taken only if the entry has none (*shm and *errfd are then set to
 * NULL / -1, so the caller knows not to release them); the entry's own
 * are returned in out.
 */
void fdtab_set_attached(int fd, uint32_t handle, pid_t pid,
			struct wire_shm **shm, int *errfd, struct fdent *out);

#endif
