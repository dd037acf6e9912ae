/* SPDX-License-Identifier: ISC */
#include "daemon/safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/privdrop.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Root's or, started without root (relay mode, CAP_NET_RAW only), the
 * daemon's own: what nobody else can change.  Root-started, that is root
 * alone, as before the drop the process is root.
 */
static bool owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* Root's, and nobody else may rename or replace what it holds. */
static bool dir_safe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode) || !owner_ok(st->st_uid))
		return false;
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) ||
	       (st->st_mode & S_ISVTX);
}

static int dir_refused(const char *path, const struct stat *st, char *err,
		       size_t errlen)
{
	snprintf(err, errlen, "%s: owned by uid %u, mode %04o: every "
		 "directory on the way must be root's and writable by nobody "
		 "else (or sticky)", path, (unsigned)st->st_uid,
		 (unsigned)(st->st_mode & 07777));
	return -1;
}

/*
 * Walk the canonical directory path from "/" (each step O_NOFOLLOW, each
 * directory checked); the descriptor of the last one.
 */
static int walk(const char *canon, char *err, size_t errlen)
{
	char buf[PATH_MAX], *save = NULL, *part;
	struct stat st;
	int fd = open("/", DIR_FLAGS);

	snprintf(buf, sizeof(buf), "%s", canon);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "/: %s", strerror(errno));
		goto fail;
	}
	if (!dir_safe(&st)) {
		dir_refused("/", &st, err, errlen);
		goto fail;
	}
	for (part = strtok_r(buf, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, part, DIR_FLAGS);

		close(fd);
		fd = next;
		if (fd < 0 || fstat(fd, &st) != 0) {
			snprintf(err, errlen, "%s: %s (at %s)", canon,
				 errno == ELOOP ? "a symbolic link appeared"
						: strerror(errno), part);
			goto fail;
		}
		if (!dir_safe(&st)) {
			dir_refused(canon, &st, err, errlen);
			goto fail;
		}
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int open_canonical(const char *dir, char *err, size_t errlen)
{
	char canon[PATH_MAX];

	if (!realpath(dir, canon)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return walk(canon, err, errlen);
}

/* Split path into its directory (dir, "." or "/") and last component. */
static int split(const char *path, char *dir, size_t dirlen, char *base,
		 size_t baselen, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	size_t dl = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (!*b || strlen(b) >= baselen || dl >= dirlen ||
	    strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
		snprintf(err, errlen, "%s: not a file name", path);
		return -1;
	}
	if (dl)
		memcpy(dir, path, dl);
	else
		dir[dl++] = '.';
	dir[dl] = '\0';
	snprintf(base, baselen, "%s", b);
	return 0;
}

int safepath_parent(const char *path, char *base, size_t baselen,
		    char *err, size_t errlen)
{
	char dir[PATH_MAX];

	if (split(path, dir, sizeof(dir), base, baselen, err, errlen))
		return -1;
	return open_canonical(dir, err, errlen);
}

/* Root's, group group, 0775: made by us or taken back from the daemon. */
static int make_ours(int fd, gid_t group, const char *dir, char *err,
		     size_t errlen)
{
	/* Without root: the daemon's own directory, 0755. */
	if (geteuid() != 0 ? fchmod(fd, 0755) != 0
			   : fchown(fd, 0, group) != 0 || fchmod(fd, 0775) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The daemon's own, from an earlier pingsockd: its user's (as versions
 * before 0.2 made it), or root's with a group only the daemon has (that of
 * a start in another mode: broker mode runs as the broker group).
 */
static bool earlier_ours(const struct stat *st, const struct safepath_owner *o)
{
	char why[256];

	if (st->st_uid == o->uid && o->uid != 0)
		return true;
	return st->st_uid == 0 && st->st_gid != o->gid && st->st_gid != 0 &&
	       !(st->st_mode & S_IWOTH) &&
	       privdrop_group_alone(st->st_gid, o->uid, o->name, "", why,
				    sizeof(why)) == 0;
}

/* The socket's directory as it exists: whose it is, who may write. */
static int check_leaf(int fd, const char *dir, const struct safepath_owner *o,
		      bool *writable, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (geteuid() != 0) {
		/* Root's or its own (RuntimeDirectory=); group-writable for
		 * its own group alone, as a root start allows. */
		bool own_group = st.st_gid == o->gid && o->gid != 0 &&
				 !(st.st_mode & S_IWOTH);

		if (!S_ISDIR(st.st_mode) || !owner_ok(st.st_uid) ||
		    (!dir_safe(&st) && !own_group))
			return dir_refused(dir, &st, err, errlen);
		*writable = st.st_uid == geteuid() ||
			    (own_group && (st.st_mode & S_IWGRP));
		return 0;
	}
	if (earlier_ours(&st, o)) {
		log_info("%s: was uid %u's, group %u; now root's, group %u, "
			 "mode 0775", dir, (unsigned)st.st_uid,
			 (unsigned)st.st_gid, (unsigned)o->gid);
		*writable = true;
		return make_ours(fd, o->gid, dir, err, errlen);
	}
	if (st.st_uid != 0 || (st.st_mode & S_IWOTH && !(st.st_mode & S_ISVTX)) ||
	    (st.st_mode & S_IWGRP && st.st_gid != 0 && st.st_gid != o->gid))
		return dir_refused(dir, &st, err, errlen);
	*writable = (st.st_mode & S_IWGRP) && st.st_gid == o->gid;
	return 0;
}

int safepath_socket_dir(const char *dir, const struct safepath_owner *o,
			bool *writable, char *err, size_t errlen)
{
	char base[NAME_MAX + 1];
	int parent, fd, made = 0;

	*writable = false;
	parent = safepath_parent(dir, base, sizeof(base), err, errlen);
	if (parent < 0)
		return -1;
	if (mkdirat(parent, base, 0700) == 0)
		made = 1;
	else if (errno != EEXIST) {
		snprintf(err, errlen, "creating %s: %s", dir, strerror(errno));
		close(parent);
		return -1;
	}
	fd = openat(parent, base, DIR_FLAGS);
	close(parent);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", dir, errno == ELOOP ?
			 "is a symbolic link" : strerror(errno));
		return -1;
	}
	if (made ? make_ours(fd, o->gid, dir, err, errlen)
		 : check_leaf(fd, dir, o, writable, err, errlen)) {
		close(fd);
		return -1;
	}
	if (made)
		*writable = true;
	return fd;
}

static int not_regular(const char *what, const struct stat *st, char *err,
		       size_t errlen)
{
	snprintf(err, errlen, "%s: not a regular file (%s)", what,
		 S_ISFIFO(st->st_mode) ? "a FIFO" :
		 S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device" :
		 S_ISDIR(st->st_mode) ? "a directory" :
		 S_ISSOCK(st->st_mode) ? "a socket" : "of another type");
	return -1;
}

/*
 * The name is looked at before it is opened: an open(2) of a FIFO blocks
 * until a peer opens its other end (a user's FIFO planted in a sticky
 * directory would hang the root start for ever), and that of a device
 * runs its driver's open.  What was seen may be replaced before the open,
 * so the open is O_NONBLOCK too (a FIFO then opens, or fails with ENXIO,
 * at once) and what it opened is checked again on its descriptor.
 */
int safepath_open_file(int dirfd, const char *base, int flags, mode_t mode,
		       const char *what, char *err, size_t errlen)
{
	struct stat st;
	int fd, fl;

	/* A symbolic link is left to the open: O_NOFOLLOW says ELOOP. */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return not_regular(what, &st, err, errlen);
	fd = openat(dirfd, base, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY, mode);
	if (fd < 0) {
		int e = errno;

		if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return not_regular(what, &st, err, errlen);
		snprintf(err, errlen, "%s: %s", what, e == ELOOP ?
			 "is a symbolic link" : strerror(e));
		return -1;
	}
	/* O_NONBLOCK off at once: what follows is fstat() or close(), which
	 * do not block on a FIFO either. */
	if (fstat(fd, &st) != 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		snprintf(err, errlen, "%s: %s", what, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		not_regular(what, &st, err, errlen);
	} else if (!owner_ok(st.st_uid) || st.st_nlink != 1 ||
		   (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "%s: owned by uid %u, mode %04o, %lu "
			 "links: it must be root's, writable by root only, "
			 "with one link", what, (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777),
			 (unsigned long)st.st_nlink);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}
