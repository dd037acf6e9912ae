/* SPDX-License-Identifier: ISC */
#include "daemon/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/safepath.h"

/* What listener_open made: the only file listener_remove unlinks. */
static char created[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int sock_dir = -1;	/* its directory, checked (safepath.h) */
static char sock_base[sizeof(((struct sockaddr_un *)0)->sun_path)];

/*
 * The socket file's name in the directory dirfd as a path connect() can
 * take without following a link at its end: /proc/self/fd/N of an O_PATH
 * descriptor of that very file.  0, or -1 (no /proc: then the name).
 */
static int pinned_name(int dirfd, const char *base, struct sockaddr_un *sun,
		       int *pfd)
{
	*pfd = openat(dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (*pfd < 0)
		return -1;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		 *pfd);
	return access(sun->sun_path, F_OK) == 0 ? 0 : -1;
}

/* Does a daemon answer on the socket file base in dirfd? */
static bool in_use(int dirfd, const char *base)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int pfd = -1, fd, rc = -1;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && pinned_name(dirfd, base, &sun, &pfd) == 0)
		rc = connect(fd, (const struct sockaddr *)&sun, sizeof(sun));
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	return rc == 0;
}

/* 0 if base is free in dirfd (or was a dead socket, now removed). */
static int claim_path(int dirfd, const char *base, const char *path,
		      char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -1;
	}
	if (in_use(dirfd, base)) {
		snprintf(err, errlen, "%s is in use by a running pingsockd",
			 path);
		return -1;
	}
	if (unlinkat(dirfd, base, 0) != 0) {
		snprintf(err, errlen, "removing stale socket %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * bind() by the name alone, from inside the checked directory: the file
 * is made root's, mode 0666 through the umask (no chmod or chown by path
 * afterwards, which would follow whatever had been put there meanwhile).
 */
static int bind_in(int dirfd, int fd, const char *base)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), rc, e;
	mode_t old;

	if (here < 0 || fchdir(dirfd) != 0) {
		e = errno;
		if (here >= 0)
			close(here);
		errno = e;
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", base);
	old = umask(0111);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	e = errno;
	umask(old);
	if (fchdir(here) != 0 && chdir("/") != 0)
		log_warn("chdir back: %s", strerror(errno));
	close(here);
	errno = e;
	return rc;
}

/* The directory part of path into dir, its last name into base. */
static int split_path(const char *path, char *dir, size_t dirlen,
		      char *base, size_t baselen, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');

	if (!slash || !slash[1]) {
		snprintf(err, errlen, "--socket %s: an absolute path to a "
			 "file is needed", path);
		return -1;
	}
	snprintf(dir, dirlen, "%.*s", (int)(slash == path ? 1 :
					   slash - path), path);
	snprintf(base, baselen, "%s", slash + 1);
	return 0;
}

static int open_dir(const char *path, const struct safepath_owner *o,
		    char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	bool writable;
	int fd;

	if (split_path(path, dir, sizeof(dir), sock_base, sizeof(sock_base),
		       err, errlen))
		return -1;
	fd = safepath_socket_dir(dir, o, &writable, err, errlen);
	if (fd >= 0 && !writable)
		log_info("%s is not writable by the daemon's group: the "
			 "socket stays there when it stops (the next start "
			 "removes it)", dir);
	return fd;
}

int listener_open(const char *path, const struct safepath_owner *o,
		  char *err, size_t errlen)
{
	int fd = -1;

	err[0] = '\0';
	if (path[0] != '/' ||
	    strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		snprintf(err, errlen, "--socket %s: not an absolute path that "
			 "fits in sun_path", path);
		return -1;
	}
	sock_dir = open_dir(path, o, err, errlen);
	if (sock_dir < 0 || claim_path(sock_dir, sock_base, path, err, errlen))
		goto fail;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind_in(sock_dir, fd, sock_base) != 0 ||
	    listen(fd, SOMAXCONN) != 0) {
		snprintf(err, errlen, "listening on %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	snprintf(created, sizeof(created), "%s", path);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	if (sock_dir >= 0)
		close(sock_dir);
	sock_dir = -1;
	return -1;
}

int listener_dir(const char *path, const struct safepath_owner *o,
		 char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char base[sizeof(sock_base)];
	bool writable;

	if (sock_dir >= 0 && strcmp(path, created) == 0)
		return sock_dir;
	/* A passed socket: its directory, held to the rule of one the
	 * daemon listens in itself (safepath_socket_dir()), so that the
	 * directory it makes, root's and its group's (tmpfiles.d makes the
	 * same), serves a socket systemd made there too. */
	if (split_path(path, dir, sizeof(dir), base, sizeof(base), err, errlen))
		return -1;
	sock_dir = safepath_socket_dir(dir, o, &writable, err, errlen);
	return sock_dir;
}

void listener_remove(const char *path)
{
	if (!path || !created[0] || strcmp(path, created) != 0)
		return;	/* not ours: e.g. systemd's, passed in */
	if (unlinkat(sock_dir, sock_base, 0) != 0 && errno != ENOENT &&
	    errno != EACCES)
		log_warn("removing %s: %s", path, strerror(errno));
	created[0] = '\0';
}

/* ---- socket activation: sd_listen_fds(3) without libsystemd ---- */

#define LISTEN_FDS_START 3	/* SD_LISTEN_FDS_START */

/*
 * A decimal number, all of s, at most max; -1 if s is anything else.
 */
static long env_num(const char *s, long max)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}

static int sockopt_int(int fd, int opt, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, SOL_SOCKET, opt, val, &len);
}

/* fd must be an AF_UNIX SOCK_SEQPACKET socket, listening, bound to a path. */
static int check_passed(int fd, char *path, size_t pathlen, char *err,
			size_t errlen)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	int domain = -1, type = -1, acc = 0, fl;

	if (fcntl(fd, F_GETFD) < 0) {
		snprintf(err, errlen, "socket activation: fd %d is not open",
			 fd);
		return -1;
	}
	if (sockopt_int(fd, SO_DOMAIN, &domain) != 0 ||
	    sockopt_int(fd, SO_TYPE, &type) != 0) {
		snprintf(err, errlen, "socket activation: fd %d is not a "
			 "socket", fd);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	if (domain != AF_UNIX || type != SOCK_SEQPACKET) {
		snprintf(err, errlen, "socket activation: fd %d is not an "
			 "AF_UNIX SOCK_SEQPACKET socket (use "
			 "ListenSequentialPacket=)", fd);
		return -1;
	}
	if (sockopt_int(fd, SO_ACCEPTCONN, &acc) != 0 || !acc) {
		snprintf(err, errlen, "socket activation: fd %d is not "
			 "listening (Accept=no is needed)", fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&sun, &len) != 0 ||
	    len <= offsetof(struct sockaddr_un, sun_path) ||
	    sun.sun_path[0] == '\0') {
		snprintf(err, errlen, "socket activation: fd %d is not bound "
			 "to a path (clients find the daemon by path)", fd);
		return -1;
	}
	sun.sun_path[sizeof(sun.sun_path) - 1] = '\0';
	if (strlen(sun.sun_path) >= pathlen) {
		snprintf(err, errlen, "socket activation: fd %d: path too "
			 "long", fd);
		return -1;
	}
	snprintf(path, pathlen, "%s", sun.sun_path);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		snprintf(err, errlen, "socket activation: fd %d: %s", fd,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int listener_inherit(int *fd, char *path, size_t pathlen, char *err,
		     size_t errlen)
{
	const char *pid_s = getenv("LISTEN_PID");
	const char *fds_s = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	long pid, n;
	int rc = 1;

	*fd = -1;
	if (!pid_s || !fds_s)
		goto out;	/* as sd_listen_fds: nothing passed */
	pid = env_num(pid_s, INT_MAX);
	if (pid < 0) {
		snprintf(err, errlen, "socket activation: LISTEN_PID=\"%s\" is "
			 "not a process id", pid_s);
		rc = -1;
		goto out;
	}
	if ((pid_t)pid != getpid())
		goto out;	/* meant for another process: none for us */
	n = env_num(fds_s, INT_MAX - LISTEN_FDS_START);
	if (n < 0) {
		snprintf(err, errlen, "socket activation: LISTEN_FDS=\"%s\" is "
			 "not a count", fds_s);
		rc = -1;
		goto out;
	}
	if (n == 0)
		goto out;
	if (n > 1) {
		snprintf(err, errlen, "socket activation: %ld sockets passed; "
			 "pingsockd listens on exactly one", n);
		rc = -1;
		goto out;
	}
	if (check_passed(LISTEN_FDS_START, path, pathlen, err, errlen)) {
		rc = -1;
		goto out;
	}
	*fd = LISTEN_FDS_START;
	rc = 0;
	if (names && *names)
		log_debug("socket activation: fd %d named \"%s\"",
			  LISTEN_FDS_START, names);
out:
	/* As sd_listen_fds(unset_environment=1): nothing passes further. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return rc;
}

bool listener_same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
