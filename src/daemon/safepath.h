/* SPDX-License-Identifier: ISC */
/*
 * safepath - files that root opens at start-up, reached without following
 * anything an unprivileged user can change.
 *
 * A path is first made canonical (realpath(), as root: symbolic links the
 * administrator put on the way are resolved), then walked again from "/"
 * one component at a time with O_NOFOLLOW, each directory checked on its
 * descriptor: root's, and writable by nobody else, except sticky
 * directories such as /tmp, whose root-owned entries only root can rename
 * or remove.  A link swapped in after realpath() fails the walk (ELOOP),
 * and anything a user could have put on the way fails the checks.  What
 * the caller then does, it does through the descriptor (openat, fchown,
 * fchmod, fchdir + bind), never by path again.
 */
#ifndef PSD_SAFEPATH_H
#define PSD_SAFEPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The daemon's user and the group it keeps (broker mode: the broker's). */
struct safepath_owner {
	uid_t uid;
	gid_t gid;
	const char *name;
};

/*
 * The socket's directory, as a descriptor (O_RDONLY | O_DIRECTORY), or -1
 * with err filled.  Missing, it is made: root's, group o->gid, mode 0775,
 * so that the daemon (whose group that is, and nobody else's) can remove
 * its socket when it stops.  Existing, it must be root's and writable by
 * no other group and, unless sticky, by nobody else; one an earlier
 * pingsockd left (its user's, or with a group only the daemon has) is
 * taken back: chown root:o->gid, chmod 0775, on the descriptor.
 * *writable says whether the daemon will be able to remove its socket.
 */
int safepath_socket_dir(const char *dir, const struct safepath_owner *o,
			bool *writable, char *err, size_t errlen);

/*
 * The directory holding path, checked as every directory on the way is;
 * the last component is copied to base.  -1 with err filled.
 */
int safepath_parent(const char *path, char *base, size_t baselen,
		    char *err, size_t errlen);

/*
 * A file of root's in the checked directory dirfd, opened with flags |
 * O_NOFOLLOW | O_CLOEXEC (mode for O_CREAT): a regular file, root's, one
 * link, writable by nobody but root.  A FIFO or a device at the name is
 * refused without blocking (it is opened O_NONBLOCK, cleared once checked).
 * -1 with err filled ("what: why").
 */
int safepath_open_file(int dirfd, const char *base, int flags, mode_t mode,
		       const char *what, char *err, size_t errlen);

#endif
