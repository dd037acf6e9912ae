/* SPDX-License-Identifier: ISC */
#include "daemon/guardcg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "daemon/log.h"

#define CGROUP2_MAGIC_ 0x63677270

/* The cgroup2 mount point, from /proc/self/mountinfo. */
static int cgroup2_mount(char *out, size_t outlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    strlen(mnt) < outlen) {
			memcpy(out, mnt, strlen(mnt) + 1);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* The daemon's own cgroup (v2) path, "/..." relative to the mount. */
static int own_cgroup(char *out, size_t outlen)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 8];
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::", 3) == 0 && strlen(line + 3) < outlen) {
			memcpy(out, line + 3, strlen(line + 3) + 1);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* Does the cgroup at dir hold this process alone (a service's own)? */
static bool alone_in(int dir)
{
	int fd = openat(dir, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char buf[64], *nl;
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	return strtol(buf, NULL, 10) == getpid() && nl && nl[1] == '\0';
}

/* Move this process into the cgroup at dir. */
static int join(int dir)
{
	int fd = openat(dir, "cgroup.procs", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	char pid[24];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid()), rc;

	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, pid, (size_t)n);
	rc = w == n ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/* Root's, and writable by root alone (name, in dir; "": dir itself)? */
static bool root_only(int dir, const char *name)
{
	struct stat st;

	if (fstatat(dir, name, &st, name[0] ? AT_SYMLINK_NOFOLLOW
					     : AT_EMPTY_PATH))
		return false;
	return st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * May only root move processes into the cgroup at dir?  Its cgroup.procs,
 * and every ancestor's up to the mount, root's alone: a subtree delegated
 * to a user (systemd's user@.service) would let that user move the daemon
 * out, or join it.
 */
static bool root_cgroup(int dir)
{
	int fd = dup(dir);

	for (int depth = 0; fd >= 0 && depth < 64; depth++) {
		struct stat here, up;
		struct statfs sf;
		int parent;
		bool top;

		if (!root_only(fd, "") || !root_only(fd, "cgroup.procs"))
			break;
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0)
			break;
		/* The mount's root: its ".." is itself, or another fs. */
		top = fstat(fd, &here) || fstat(parent, &up) ||
		      (here.st_dev == up.st_dev && here.st_ino == up.st_ino) ||
		      fstatfs(parent, &sf) || sf.f_type != CGROUP2_MAGIC_;
		close(fd);
		fd = parent;
		if (top) {
			close(fd);
			return true;
		}
	}
	if (fd >= 0)
		close(fd);
	return false;
}

/* A cgroup directory: made if missing (root's, 0755), opened, checked. */
static int open_cgroup(const char *path, char *err, size_t errlen)
{
	struct statfs sf;
	int fd;

	if (mkdir(path, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "bpf_cgroup %s: %s", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstatfs(fd, &sf) || sf.f_type != CGROUP2_MAGIC_) {
		snprintf(err, errlen, "%s: not a cgroup (v2) directory", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!root_cgroup(fd)) {
		snprintf(err, errlen, "cgroup %s: it or a parent is not root's "
			 "alone (delegated?)", path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The cgroup the daemon lives in from now on: bpf_cgroup, or the one it
 * has if it is alone there (systemd gives each service its own), or
 * pingsockd below that one (below the cgroup2 mount for the root
 * cgroup).  Its descriptor, or -1.
 */
int guardcg_pick(const struct policy *p, char *err, size_t errlen)
{
	/* Sizes that fit together in path, "/pingsockd" included. */
	char mnt[PATH_MAX / 4], own[PATH_MAX / 2], path[PATH_MAX];
	int fd, rc;

	if (p->bpf_cgroup[0]) {
		snprintf(path, sizeof(path), "%s", p->bpf_cgroup);
	} else if (cgroup2_mount(mnt, sizeof(mnt))) {
		snprintf(err, errlen, "no cgroup2 file system mounted");
		return -1;
	} else {
		if (own_cgroup(own, sizeof(own)) || !strcmp(own, "/"))
			own[0] = '\0';
		snprintf(path, sizeof(path), "%s%s", mnt, own);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 && own[0] && alone_in(fd) && root_cgroup(fd))
			return fd;
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof(path), "%s%s/pingsockd", mnt, own);
	}
	fd = open_cgroup(path, err, errlen);
	rc = fd >= 0 ? join(fd) : 0;
	if (rc) {
		snprintf(err, errlen, "joining cgroup %s: %s", path,
			 strerror(-rc));
		close(fd);
		return -1;
	}
	if (fd < 0)
		return -1;
	log_info("broker: in cgroup %s", path);
	return fd;
}
