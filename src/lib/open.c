/* SPDX-License-Identifier: ISC */
/*
 * open - pingsock_socket(): the kernel's ping socket when it gives one,
 * else one from pingsockd (relayed, a raw socket's emulation, or a
 * kernel socket handed over in broker mode), as PINGSOCK_BACKEND and the
 * kernel's answer decide (backend.h); and pingsock_why(), which says why
 * the last one failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/backend.h"
#include "lib/broker.h"
#include "lib/env.h"
#include "lib/conn.h"
#include "lib/fdcheck.h"
#include "lib/fdtab.h"
#include "lib/rawcompat.h"
#include "lib/relay.h"
#include "lib/state.h"
#include "pingsock.h"
#include "lib/sys.h"

#define EXPORT __attribute__((visibility("default")))

static __thread char why[512];

EXPORT const char *pingsock_why(void)
{
	return why;
}

static void read_range(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ping_group_range", "re");

	snprintf(buf, len, "?");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\t')
				*p = ' ';
		fclose(f);
	}
}

static void why_kernel(int err)
{
	char range[64];

	read_range(range, sizeof(range));
	snprintf(why, sizeof(why),
		 "the kernel refused the ping socket (%s): "
		 "net.ipv4.ping_group_range is \"%s\", which excludes gid %u "
		 "and all your groups", strerror(err), range,
		 (unsigned)getegid());
}

static int open_kernel(int domain, int type, int protocol)
{
	int fd = sys_socket(domain, type, protocol);
	struct fdent ent = { .kind = FDK_KERNEL, .family = domain,
			     .livefd = -1 };

	if (fd < 0)
		return -errno;
	if (fdtab_add(fd, &ent)) {
		sys_close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* Give the received descriptor the flags socket() was asked for. */
static int apply_type_flags(int fd, int type)
{
	if (!(type & SOCK_CLOEXEC) && sys_fcntl(fd, F_SETFD, 0) < 0)
		return -errno;
	/* The open file's flags as a new socket's, whatever the daemon's
	 * end had set on it (an impostor's O_NONBLOCK, O_ASYNC): only
	 * SOCK_NONBLOCK's. */
	if (sys_fcntl(fd, F_SETFL, type & SOCK_NONBLOCK ? O_NONBLOCK : 0) < 0)
		return -errno;
	return 0;
}

/* open_daemon() failed because the daemon serves another namespace; or
 * because the connection to it failed (not a request it refused). */
static __thread bool open_foreign, open_dial_failed;

static void why_daemon(int rc)
{
	if (rc == WIRE_R_FOREIGN_NS)
		snprintf(why, sizeof(why),
			 "pingsockd (%s) serves only its own network "
			 "namespace, and this process is in another (a "
			 "namespace needs a pingsockd of its own)", conn_path());
	else if (rc == -ENOENT || rc == -ECONNREFUSED)
		snprintf(why, sizeof(why),
			 "pingsockd is not running (nothing listens on %s: %s)",
			 conn_path(), strerror(-rc));
	else if (rc == -EACCES && open_dial_failed)
		snprintf(why, sizeof(why),
			 "cannot reach pingsockd: %s is not open to you "
			 "(connect: %s)", conn_path(), strerror(EACCES));
	else if (rc == -EACCES)
		snprintf(why, sizeof(why),
			 "pingsockd refused: neither gid %u nor any of your "
			 "groups is in its \"groups\" range",
			 (unsigned)getegid());
	else
		snprintf(why, sizeof(why), "pingsockd (%s): %s", conn_path(),
			 strerror(-rc));
}

/* why = head + ", and " + why */
static void append_why(const char *head)
{
	char tail[sizeof(why)];
	size_t n;

	memcpy(tail, why, sizeof(tail));
	n = (size_t)snprintf(why, sizeof(why), "%s, and ", head);
	if (n < sizeof(why)) {
		size_t t = strlen(tail);

		if (t > sizeof(why) - n - 1)
			t = sizeof(why) - n - 1;
		memcpy(why + n, tail, t);
		why[n + t] = '\0';
	}
}

/* Broker mode: fds[0] is a kernel ping socket, fds[1] its liveness. */
static int adopt_broker(int domain, int type, bool keep, uint32_t handle,
			int *fds)
{
	struct fdent ent;
	int rc = fds[1] >= 0 && fds[2] < 0 ? 0 : -ECONNRESET;

	if (rc == 0)
		rc = fdcheck_fresh_pair(fds[1]);
	if (rc == 0) {
		rc = broker_adopt(fds[1], handle, domain, keep, &ent);
		fds[1] = -1;	/* taken, even on failure */
	}
	if (rc == 0) {
		rc = apply_type_flags(fds[0], type);
		if (rc == 0 && fdtab_add(fds[0], &ent))
			rc = -ENOMEM;
		if (rc)
			broker_release(&ent);
	}
	for (int i = rc ? 0 : 1; i < CONN_MAX_FDS; i++)
		fdcheck_discard(fds[i]);
	return rc ? rc : fds[0];
}

static int open_daemon(int domain, int type, int protocol, enum fdkind kind)
{
	struct wire_req req = { .type = WIRE_OPEN };
	uint32_t body[3] = { 0, 0, 0 }, handle;
	size_t blen = sizeof(body);
	struct fdent ent = { .kind = kind, .family = domain, .livefd = -1 };
	const char *ident = env_get(ENV_IDENT);
	int fds[CONN_MAX_FDS], fd, rc;

	ent.keep_ident = ident && strcmp(ident, "keep") == 0;
	open_foreign = false;
	open_dial_failed = false;

	req.u.open.domain = domain;
	req.u.open.type = type;
	req.u.open.protocol = protocol;
	rc = relay_conn_call(&req, NULL, 0, body, &blen, fds);
	if (rc == WIRE_R_NODAEMON) {
		rc = conn_dial_error();
		open_dial_failed = true;
	} else if (rc == WIRE_R_BROKEN)
		rc = -ECONNRESET;
	if (rc >= 0 && (blen != sizeof(body) || fds[0] < 0))
		rc = -ECONNRESET;
	if (rc >= 0 && (body[1] & WIRE_OPEN_BROKER))
		return adopt_broker(domain, type, ent.keep_ident, body[0], fds);
	handle = body[0];
	fd = fds[0];
	if (rc >= 0 && (fds[1] >= 0 || fds[2] >= 0))
		rc = -ECONNRESET;
	if (rc >= 0 && (!(ent.shm = state_slot(body[2])) ||
			fdtab_slot_clash(fd, ent.shm)))
		rc = -EPROTO;
	if (rc >= 0)
		rc = fdcheck_fresh_pair(fd);
	for (int i = 1; i < CONN_MAX_FDS; i++)
		fdcheck_discard(fds[i]);
	if (rc < 0) {
		fdcheck_discard(fd);
		why_daemon(rc);
		/* Served nothing in this namespace: "you may not". */
		open_foreign = rc == WIRE_R_FOREIGN_NS;
		return open_foreign ? -EACCES : rc;
	}
	ent.handle = handle;
	ent.attached = getpid();
	rc = apply_type_flags(fd, type);
	if (rc == 0 && fdtab_add(fd, &ent))
		rc = -ENOMEM;
	if (rc < 0) {
		sys_close(fd);
		return rc;
	}
	return fd;
}

/*
 * The kernel refused (krc): say both halves when there is no daemon to
 * ask (for this namespace), and give the kernel's errno.
 */
static int both_refused(int krc, int rc)
{
	char k[sizeof(why)];

	if (open_foreign)
		rc = WIRE_R_FOREIGN_NS;
	why_kernel(-krc);
	memcpy(k, why, sizeof(k));
	why_daemon(rc);
	append_why(k);
	return krc;
}

/* PINGSOCK_BACKEND=daemon and not a socket the library serves: the
 * kernel's errno for this request (EINVAL, EPERM, ...), or "no such
 * protocol" when the kernel would make it. */
static int not_served(int domain, int type, int protocol)
{
	int rc = sys_socket(domain, type, protocol);

	if (rc >= 0) {
		sys_close(rc);
		rc = -EPROTONOSUPPORT;
	} else {
		rc = -errno;
	}
	return rc;
}

static int open_socket(enum backend_mode mode, int domain, int type,
		       int protocol)
{
	/* PINGSOCK_RAW=echo: a raw socket the daemon emulates. */
	bool raw = mode != BACKEND_KERNEL && rawc_wanted(domain, type, protocol);
	bool served = raw || backend_is_ping(domain, type, protocol);
	enum fdkind kind = raw ? FDK_RAW : FDK_RELAY;
	int krc = -EPERM, rc;

	if (mode == BACKEND_DAEMON && !served)
		return not_served(domain, type, protocol);
	if (mode != BACKEND_DAEMON) {
		/* The kernel's socket whenever it gives one; its answer
		 * stands for anything but "not for you". */
		krc = open_kernel(domain, type, protocol);
		if (krc >= 0 || mode == BACKEND_KERNEL || !served ||
		    !backend_fallback(domain, -krc)) {
			if (krc == -EACCES && !raw)
				why_kernel(-krc);
			return krc;
		}
	}
	rc = open_daemon(domain, type, protocol, kind);
	if (rc >= 0) {
		why[0] = '\0';
		return rc;
	}
	if (raw)
		return krc;	/* refused there too: the kernel's errno */
	if (mode != BACKEND_DAEMON &&
	    (rc == -ENOENT || rc == -ECONNREFUSED || open_foreign))
		return both_refused(krc, rc);
	return rc;
}

EXPORT int pingsock_socket(int domain, int type, int protocol)
{
	enum backend_mode mode = backend_mode();

	why[0] = '\0';
	if (mode == BACKEND_BAD) {
		snprintf(why, sizeof(why), "PINGSOCK_BACKEND=%s: expected "
			 "auto, kernel or daemon", env_get(ENV_BACKEND));
		errno = EINVAL;
		return -1;
	}
	return (int)sys_ret(open_socket(mode, domain, type, protocol));
}
