#include "daemon/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/sandbox.h"

/* The path listener_open bound: the only file listener_remove unlinks. */
static char created[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* mkdir -p for the socket's directory; new directories go to owner. */
static int make_dirs(const char *path, uid_t owner, gid_t group, char *err,
		     size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (chown(dir, owner, group) != 0)
				log_warn("chown %s: %s", dir, strerror(errno));
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "creating %s: %s", dir,
				 strerror(errno));
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

/* 0 if path is free (or was a dead socket, now removed), -1 if not. */
static int claim_path(const char *path, const struct sockaddr_un *sun,
		      char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rc == 0) {
		snprintf(err, errlen, "%s is in use by a running pingsockd",
			 path);
		return -1;
	}
	if (unlink(path) != 0) {
		snprintf(err, errlen, "removing stale socket %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int listener_open(const char *path, uid_t owner, gid_t group, char *err,
		  size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "--socket %s: path too long", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	err[0] = '\0';
	if (make_dirs(path, owner, group, err, errlen) ||
	    claim_path(path, &sun, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    chmod(path, 0666) != 0 || listen(fd, SOMAXCONN) != 0) {
		snprintf(err, errlen, "listening on %s: %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (chown(path, owner, group) != 0)
		log_warn("chown %s: %s", path, strerror(errno));
	snprintf(created, sizeof(created), "%s", path);
	return fd;
}

void listener_remove(const char *path)
{
	if (!path || !created[0] || strcmp(path, created) != 0)
		return;	/* not ours: e.g. systemd's, passed in */
	if (sandbox_unlink(path) != 0 && errno != ENOENT)	/* chroot too */
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
