#include "daemon/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/log.h"

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
	return fd;
}

void listener_remove(const char *path)
{
	if (unlink(path) != 0 && errno != ENOENT)
		log_warn("removing %s: %s", path, strerror(errno));
}
