/* SPDX-License-Identifier: ISC */
#include "daemon/pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/safepath.h"

static int pid_fd = -1;

int pidfile_write(const char *path, char *err, size_t errlen)
{
	char base[NAME_MAX + 1], what[PATH_MAX + 16], line[32];
	int dir, n;

	if (path[0] != '/') {
		snprintf(err, errlen, "--pidfile %s: an absolute path is "
			 "needed", path);
		return -1;
	}
	dir = safepath_parent(path, base, sizeof(base), err, errlen);
	if (dir < 0)
		return -1;
	snprintf(what, sizeof(what), "--pidfile %s", path);
	pid_fd = safepath_open_file(dir, base, O_WRONLY | O_CREAT, 0644, what,
				    err, errlen);
	close(dir);
	if (pid_fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (ftruncate(pid_fd, 0) != 0 ||
	    pwrite(pid_fd, line, (size_t)n, 0) != (ssize_t)n) {
		snprintf(err, errlen, "%s: %s", what, strerror(errno));
		close(pid_fd);
		pid_fd = -1;
		return -1;
	}
	return 0;
}

void pidfile_clear(void)
{
	if (pid_fd < 0)
		return;
	if (ftruncate(pid_fd, 0) != 0) {
		/* Nothing more to do: the next start rewrites it. */
	}
	pidfile_close();
}

void pidfile_close(void)
{
	if (pid_fd >= 0)
		close(pid_fd);
	pid_fd = -1;
}
