/* SPDX-License-Identifier: ISC */
/*
 * fdtab - the client's one descriptor table: what the library knows about
 * each descriptor it handed out, for libpingsock and the preload alike.
 *
 * Each descriptor has a kind (enum fdkind), kept in an atomic byte that
 * the hot paths read without a lock (fdtab_kind); the rest of the entry
 * (struct fdent) is read and written under LOCK_FDTAB.
 *
 * An entry also records the identity of the descriptor it was made for
 * (device and inode, fstat).  A descriptor can be closed and its number
 * reused behind the library's back (a raw close system call, a
 * close_range the preload did not see): whenever an entry is looked up
 * (fdtab_get) that identity is checked, and a stale entry is taken out of
 * the table.  The same identity recognises copies made behind the
 * library's back (dup() in a program that uses the library's API):
 * fdtab_find gives such a copy the entry of the socket it is a copy of.
 *
 * Copies (dup) of a socket have entries of their own that share the
 * socket's resources (a relayed socket's state slot, a broker socket's
 * state): the number of entries sharing
 * them is their reference count, so only the last one to go releases
 * them (fdtab_remove).
 */
#ifndef PS_FDTAB_H
#define PS_FDTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "wire/wire.h"

struct broker_sock;	/* lib/broker.h */

/* What serves a descriptor (each kind has its operations: backend.h). */
enum fdkind {
	FDK_NONE = 0,		/* not the library's */
	FDK_KERNEL,		/* the kernel's own ping socket */
	FDK_RELAY,		/* one of pingsockd's relayed sockets */
	FDK_RAW,		/* a relayed emulation of a raw socket */
	FDK_BROKER_FRESH,	/* a kernel socket from pingsockd's broker
				 * mode, not sent on or connected yet */
	FDK_BROKER,		/* ... used: only close and dup concern us */
	FDK_INHERITED,		/* came across exec, maybe a relayed socket:
				 * the daemon is asked at its first use
				 * (inherit.h: inherit_resolve) */
};

/* Every call on it is a request to pingsockd (or a read of its data). */
static inline bool fdkind_relayed(enum fdkind k)
{
	return k == FDK_RELAY || k == FDK_RAW;
}

static inline bool fdkind_broker(enum fdkind k)
{
	return k == FDK_BROKER_FRESH || k == FDK_BROKER;
}

struct fdent {
	enum fdkind kind;
	int family;
	dev_t dev;		/* identity of the descriptor (fstat) */
	ino_t ino;
	uint32_t handle;	/* relayed: the daemon's handle */
	pid_t attached;		/* process whose connection knows handle */
	struct wire_shm *shm;	/* relayed: the socket's state slot */
	bool keep_ident;	/* PINGSOCK_IDENT=keep, first send not yet made */
	struct broker_sock *bk;	/* broker: shared by its copies */
	int livefd;		/* broker: its liveness descriptor, or -1 */
	uint64_t stamp_seq;	/* SIOCGSTAMP: 0 before a datagram was read
				 * through this entry, else the order of the
				 * last one (fdtab_set_stamp) */
	struct timespec stamp;	/* ... and its time */
};

/* fd's kind, without a lock (FDK_NONE for fd < 0). */
enum fdkind fdtab_kind(int fd);

/* Are there relayed or broker sockets (whose copies fdtab_find knows)? */
bool fdtab_has_sockets(void);

/* Are there relayed sockets, or descriptors from across exec that may be
 * (FDK_INHERITED)?  None: no wait needs the library (poll, select). */
bool fdtab_has_relayed(void);

/* Every descriptor with an entry is below this (one more than the highest
 * ever given one; 0 while none was), without a lock. */
int fdtab_bound(void);

/*
 * A new entry for fd, with the descriptor's identity taken now.  -1 with
 * errno ENOMEM (or fstat's errno) on failure.
 */
int fdtab_add(int fd, struct fdent *ent);

/*
 * The entry for fd, if it still names the descriptor it was made for:
 * true and a copy in *out (*out zeroed otherwise).  A stale entry is
 * taken out; if it was the last holder of its socket's resources it is
 * copied to *gone for the caller to release (gone->kind is FDK_NONE
 * when there is nothing to release).
 */
bool fdtab_get(int fd, struct fdent *out, struct fdent *gone);

/* fdtab_get, or when fd has no entry but is a copy of a socket that has
 * one (the same inode), a new entry for it: that socket's. */
bool fdtab_find(int fd, struct fdent *out, struct fdent *gone);

/*
 * Take fd's entry out: true if it had one.  *gone as for fdtab_get: the
 * entry when it was the last holder of its resources.
 */
bool fdtab_remove(int fd, struct fdent *gone);

/* The state slot of the relayed socket whose data descriptor is dev and
 * ino, as its entries know it (NULL: none, or not attached yet).  Looks
 * only: no entry is checked against its descriptor or taken out. */
struct wire_shm *fdtab_slot_of(dev_t dev, ino_t ino);

/* A broker socket was used: only close and dup concern the library. */
void fdtab_set_used(int fd);
/* The descriptors whose entries share bk, into out[0..max); their count. */
size_t fdtab_broker_fds(const struct broker_sock *bk, int *out, size_t max);
/* bk's socket was replaced (swap.h): its entries that have the new one
 * (identity st) take its identity, and it is used. */
struct stat;
void fdtab_broker_swapped(const struct broker_sock *bk, const struct stat *st);
/*
 * A datagram with time *ts was read through fd from the socket ent
 * describes (the entry as the receive looked it up).  The time is the
 * socket's (sk_stamp), not the number's: another thread may have closed
 * fd during a blocking receive and a new socket may have its number now;
 * the time then goes to another descriptor of ent's socket, or nowhere.
 */
void fdtab_set_stamp(int fd, const struct fdent *ent,
		     const struct timespec *ts);
/* The time of the last datagram read from ent's socket through any of its
 * descriptors (SIOCGSTAMP): false if none was read. */
bool fdtab_stamp(const struct fdent *ent, struct timespec *ts);
/* The first send is being made: keep_ident no longer applies. */
void fdtab_clear_keep(int fd);
/*
 * Does a live entry of another socket (another inode than fd's) have the
 * state slot shm?  The daemon gives each socket a slot of its own; a
 * slot given twice is an impostor's, and would make one socket's close
 * release the other's (its epoll registrations in the shim).
 */
bool fdtab_slot_clash(int fd, const struct wire_shm *shm);
/* Record a (re)attachment: the handle, and the socket's state slot in
 * this process's arena; the entry as it is now in out. */
void fdtab_set_attached(int fd, uint32_t handle, pid_t pid,
			struct wire_shm *shm, struct fdent *out);

#endif
