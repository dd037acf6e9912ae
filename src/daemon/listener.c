/* SPDX-License-Identifier: ISC */
#include "daemon/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

/* What answers on a socket file (probe()). */
enum answer { NOBODY, BUSY, ANSWERED };

/*
 * Does something listen on the socket file base in dirfd?  ANSWERED fills
 * cr with the listener's credentials (SO_PEERCRED: those of whoever called
 * listen()).  The probe does not block: a listener whose backlog a user
 * keeps full says BUSY (EAGAIN) rather than holding the root start.
 */
static enum answer probe(int dirfd, const char *base, struct ucred *cr)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(*cr);
	enum answer a = NOBODY;
	int pfd = -1, fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && pinned_name(dirfd, base, &sun, &pfd) == 0) {
		if (connect(fd, (const struct sockaddr *)&sun, sizeof(sun)) == 0)
			a = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr,
				       &len) == 0 ? ANSWERED : BUSY;
		else if (errno == EAGAIN)
			a = BUSY;
	}
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	return a;
}

/* A pingsockd runs as root (root-started, or systemd's socket) or as
 * its own user (started with CAP_NET_RAW alone): nobody else. */
static bool daemons(uid_t uid, const struct safepath_owner *o)
{
	return uid == 0 || uid == o->uid;
}

static int someone_elses(const char *path, const struct stat *st,
			 enum answer a, const struct ucred *cr, char *err,
			 size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "%s is a directory of uid %u's: remove "
			 "it, and keep the socket in a directory only root "
			 "can write (as /run/pingsock)", path,
			 (unsigned)st->st_uid);
		return -1;
	}
	if (a == ANSWERED)
		log_warn("%s: uid %u's socket, listened on by uid %u "
			 "(pid %d), not a pingsockd: replaced; a socket "
			 "directory only root can write keeps users out",
			 path, (unsigned)st->st_uid, (unsigned)cr->uid,
			 (int)cr->pid);
	else
		log_warn("%s: uid %u's, not a pingsockd's: replaced; a "
			 "socket directory only root can write keeps users "
			 "out", path, (unsigned)st->st_uid);
	return 0;
}

/*
 * May the name base in dirfd be taken (bind_here() renames the new
 * socket over it)?  0, or -1 with err filled.
 *
 * Refused: a running pingsockd's socket (root's file, answered by root or
 * the daemon's user), or a file of root's that is no socket.  Taken: a
 * dead socket, and anything of another user's.  The socket directory may
 * be sticky, as /tmp (the man page allows it), where any user can put
 * anything at the name first, a listening socket of its own too.  Were
 * that called a running pingsockd, as it was, any user could keep the
 * daemon from starting and serve its clients himself; refusing it with
 * his uid named would still let him keep it from starting.  So what is
 * not root's or the daemon's user's is replaced, and said so: in one
 * rename(2) by root, which may replace any entry of a sticky directory,
 * that follows no link and leaves no moment when the name is free.
 */
static int claim_path(int dirfd, const char *base, const char *path,
		      const struct safepath_owner *o, char *err,
		      size_t errlen)
{
	struct ucred cr = { .pid = 0, .uid = 0, .gid = 0 };
	enum answer a = NOBODY;
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISSOCK(st.st_mode))
		a = probe(dirfd, base, &cr);
	if (!daemons(st.st_uid, o) || (a == ANSWERED && !daemons(cr.uid, o)))
		return someone_elses(path, &st, a, &cr, err, errlen);
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -1;
	}
	if (a == ANSWERED)
		snprintf(err, errlen, "%s is in use by a running pingsockd "
			 "(pid %d, uid %u): stop it first, or give this one "
			 "another --socket", path, (int)cr.pid,
			 (unsigned)cr.uid);
	else if (a == BUSY)
		snprintf(err, errlen, "%s is in use by a running pingsockd "
			 "(too busy to answer): stop it first, or give this "
			 "one another --socket", path);
	return a == NOBODY ? 0 : -1;
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

/*
 * Bound at a fresh random name of its own in dirfd, listening, then
 * renamed over base: what is at base (a dead socket, or whatever a user
 * put there, claim_path()) is replaced at once, with no unlink() before
 * the bind() for a user to race.
 */
static int bind_here(int dirfd, int fd, const char *base)
{
	char tmp[64];
	uint64_t r;
	int e;

	for (int i = 0; i < 8; i++) {
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		snprintf(tmp, sizeof(tmp), ".pingsockd.%ld.%016llx",
			 (long)getpid(), (unsigned long long)r);
		if (bind_in(dirfd, fd, tmp) != 0) {
			if (errno == EADDRINUSE)
				continue;	/* taken: another name */
			return -1;
		}
		if (listen(fd, SOMAXCONN) == 0 &&
		    renameat(dirfd, tmp, dirfd, base) == 0)
			return 0;
		e = errno;
		unlinkat(dirfd, tmp, 0);
		errno = e;
		return -1;
	}
	errno = EADDRINUSE;
	return -1;
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
	if (sock_dir < 0 ||
	    claim_path(sock_dir, sock_base, path, o, err, errlen))
		goto fail;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind_here(sock_dir, fd, sock_base) != 0) {
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
