/* SPDX-License-Identifier: ISC */
#include "daemon/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon/buildenv.h"
#include "daemon/log.h"
#include "daemon/privdrop.h"
#include "daemon/safepath.h"
#include "daemon/trap.h"

/* A path kept as (directory handle, last component). */
struct kept {
	char path[PATH_MAX];	/* as the caller will pass it again */
	int dir;		/* its directory, checked, or -1 */
	char base[NAME_MAX + 1];
};

static struct kept cfg = { .dir = -1 };
static int sock_dir = -1;	/* the socket's directory (listener.h) */
static bool chrooted;
static int devnull = -1;

/* ---- paths kept across the chroot ---- */

/* The config file's directory, checked (safepath.h) and kept. */
static int keep_config(const char *path, char *err, size_t errlen)
{
	if (strlen(path) >= sizeof(cfg.path)) {
		snprintf(err, errlen, "sandbox: %s: path too long", path);
		return -1;
	}
	cfg.dir = safepath_parent(path, cfg.base, sizeof(cfg.base), err,
				  errlen);
	if (cfg.dir < 0)
		return -1;
	snprintf(cfg.path, sizeof(cfg.path), "%s", path);
	return 0;
}

static bool is_kept(const struct kept *k, const char *path)
{
	return k->dir >= 0 && strcmp(k->path, path) == 0;
}

FILE *sandbox_fopen_config(const char *path, bool strict, char *err,
			   size_t errlen)
{
	char base[NAME_MAX + 1];
	FILE *f;
	int dir, fd;

	if (!strict) {	/* --check-config run by anyone: just read it */
		f = fopen(path, "re");
		if (!f)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return f;
	}
	dir = is_kept(&cfg, path) ? cfg.dir
				  : safepath_parent(path, base, sizeof(base),
						    err, errlen);
	if (dir < 0)
		return NULL;
	fd = safepath_open_file(dir, is_kept(&cfg, path) ? cfg.base : base,
				O_RDONLY, 0, path, err, errlen);
	if (dir != cfg.dir)
		close(dir);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int sandbox_devnull(void)
{
	int fd = devnull;

	devnull = -1;
	return fd >= 0 ? fd : open("/dev/null", O_RDWR | O_CLOEXEC);
}

/* ---- the empty root ---- */

/* Root's, not writable by anyone, empty. */
static bool empty_and_safe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       !(st.st_mode & 0222) && st.st_nlink == 2;
}

static int enter(int fd)
{
	return fchdir(fd) != 0 || chroot(".") != 0 || chdir("/") != 0 ? -1 : 0;
}

/*
 * A new directory next to the socket, root's and mode 0555, so that
 * nobody else can put anything in it; chroot there and remove it: the
 * daemon's / is then an empty, deleted directory where not even root can
 * create a file.  Where the socket's directory is read-only (systemd's
 * ProtectSystem=strict), an existing empty /var/empty does.
 */
static int chroot_empty(char *err, size_t errlen)
{
	char name[64] = "";
	int fd, e = 0;

	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), ".pingsockd-root.%d.%u",
			 (int)getpid(), i);
		if (mkdirat(sock_dir, name, 0555) == 0)
			break;
		e = errno;
		name[0] = '\0';
		if (e != EEXIST)
			break;
	}
	if (!name[0]) {
		fd = open("/var/empty", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
		if (fd >= 0 && empty_and_safe(fd) && enter(fd) == 0) {
			close(fd);
			chrooted = true;
			return 0;
		}
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "sandbox: creating an empty directory "
			 "next to the socket: %s (and no empty, root-owned "
			 "/var/empty)", strerror(e));
		return -1;
	}
	errno = 0;
	fd = openat(sock_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_CLOEXEC);
	/* Still the one made above. */
	if (fd < 0 || !empty_and_safe(fd) || enter(fd) != 0) {
		e = errno;
		snprintf(err, errlen, "sandbox: chroot into %s: %s", name,
			 fd < 0 || e ? strerror(e) : "not the new directory");
		if (fd >= 0)
			close(fd);
		unlinkat(sock_dir, name, AT_REMOVEDIR);
		return -1;
	}
	close(fd);
	chrooted = true;
	if (unlinkat(sock_dir, name, AT_REMOVEDIR) != 0)
		log_warn("sandbox: removing the empty directory %s: %s", name,
			 strerror(errno));
	return 0;
}

int sandbox_enter(int socket_dir, const char *config_path, bool daemonised,
		  char *err, size_t errlen)
{
	/* syslog's time stamps read /etc/localtime, once: now. */
	tzset();
	if (config_path && keep_config(config_path, err, errlen))
		return -1;
	sock_dir = socket_dir;
	if (daemonised)
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (daemonised && log_file_fd() < 0) {
		/* log_to_syslog() later finds it connected and keeps it. */
		log_open_syslog();
		trap_open_syslog();
	}
	if (SANITIZED) {
		log_info("sandbox: sanitizer build: no chroot (LeakSanitizer "
			 "reads /proc at exit)");
		return 0;
	}
	if (!privdrop_has_cap(CAP_SYS_CHROOT)) {
		log_info("sandbox: no CAP_SYS_CHROOT, so no chroot: Landlock "
			 "closes the file system instead");
		return 0;
	}
	return chroot_empty(err, errlen);
}

/* ---- Landlock: scopes (Linux 6.12, ABI 6) and the file system ---- */

/* <linux/landlock.h> of this kernel: newer than the build's headers. */
struct psd_landlock_attr {
	uint64_t handled_access_fs;	/* ABI 1 */
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};
struct psd_landlock_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));
#define PSD_LANDLOCK_VERSION 1u		/* LANDLOCK_CREATE_RULESET_VERSION */
#define PSD_RULE_PATH_BENEATH 1		/* LANDLOCK_RULE_PATH_BENEATH */
#define PSD_FS_READ_FILE (1ull << 2)	/* LANDLOCK_ACCESS_FS_READ_FILE */
#define PSD_FS_REMOVE_FILE (1ull << 5)	/* LANDLOCK_ACCESS_FS_REMOVE_FILE */
#define PSD_SCOPE_ABSTRACT_UNIX 1ull	/* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */
#define PSD_SCOPE_SIGNAL 2ull		/* LANDLOCK_SCOPE_SIGNAL */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* Every file system right the ABI knows: 13 in ABI 1, then REFER (2),
 * TRUNCATE (3), IOCTL_DEV (5). */
static uint64_t fs_rights(long abi)
{
	unsigned bits = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;

	return (1ull << bits) - 1;
}

/* What the daemon still reaches by name once the file system is closed:
 * the config file's directory to read (SIGHUP), the socket's to remove
 * the socket from.  Everything else was opened before. */
static int add_rules(int ruleset)
{
	struct psd_landlock_beneath r[2] = {
		{ PSD_FS_READ_FILE, cfg.dir }, { PSD_FS_REMOVE_FILE, sock_dir },
	};

	for (size_t i = 0; i < 2; i++)
		if (r[i].parent_fd >= 0 &&
		    syscall(SYS_landlock_add_rule, ruleset,
			    PSD_RULE_PATH_BENEATH, &r[i], 0) != 0)
			return -1;
	return 0;
}

/* The ruleset: attr's size is that of the ABI's own struct. */
static int restrict_self(struct psd_landlock_attr *attr, long abi)
{
	size_t size = abi >= 6 ? sizeof(*attr) : abi >= 4 ? 16 : 8;
	int fd = (int)syscall(SYS_landlock_create_ruleset, attr, size, 0), e;

	if (fd < 0)
		return -1;
	if ((attr->handled_access_fs && add_rules(fd)) ||
	    syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

int sandbox_landlock(char *err, size_t errlen)
{
	struct psd_landlock_attr attr = { 0 };
	long abi;

	/* Valgrind 3.19 knows no Landlock call (and says so in its log). */
	if (RUNNING_ON_VALGRIND) {
		log_info("sandbox: under valgrind: no Landlock scopes");
		return 0;
	}
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      PSD_LANDLOCK_VERSION);
	if (abi >= 6)
		attr.scoped = PSD_SCOPE_ABSTRACT_UNIX | PSD_SCOPE_SIGNAL;
	else
		log_info("sandbox: no Landlock scopes (%s): connecting to "
			 "abstract unix sockets is not refused",
			 abi < 0 ? strerror(errno) : "ABI older than 6");
	/* Chrooted too: the kept directories' ".." leads out of the empty
	 * root, and Landlock keeps each to what lies beneath it.  The
	 * sanitizer build keeps the file system (LeakSanitizer). */
	if (!SANITIZED && abi >= 1)
		attr.handled_access_fs = fs_rights(abi);
	else if (!chrooted && !SANITIZED)
		log_warn("sandbox: neither chroot nor Landlock: the file "
			 "system stays visible (read-only for the filter)");
	if (!attr.scoped && !attr.handled_access_fs)
		return 0;
	if (restrict_self(&attr, abi) != 0) {
		snprintf(err, errlen, "sandbox: Landlock: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int sandbox_config_dir(void)
{
	return cfg.dir;
}
