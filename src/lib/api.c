/*
 * api - socket creation, naming and teardown.  Each call on a kernel
 * socket is the libc call itself; on a daemon socket it is a request.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/broker.h"
#include "lib/conn.h"
#include "lib/dsock.h"
#include "lib/errq.h"
#include "lib/fdtab.h"
#include "lib/rawcompat.h"
#include "lib/shimapi.h"
#include "pingsock.h"
#include "lib/sys.h"

#define EXPORT __attribute__((visibility("default")))

static __thread char why[512];

enum mode { MODE_AUTO, MODE_KERNEL, MODE_DAEMON, MODE_BAD };

static enum mode backend_mode(void)
{
	const char *m = secure_getenv("PINGSOCK_BACKEND");

	if (!m || !*m || strcmp(m, "auto") == 0)
		return MODE_AUTO;
	if (strcmp(m, "kernel") == 0)
		return MODE_KERNEL;
	if (strcmp(m, "daemon") == 0)
		return MODE_DAEMON;
	return MODE_BAD;
}

EXPORT const char *pingsock_why(void)
{
	return why;
}

static bool is_ping_kind(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	return base == SOCK_DGRAM &&
	       ((domain == AF_INET && protocol == IPPROTO_ICMP) ||
		(domain == AF_INET6 && protocol == IPPROTO_ICMPV6));
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
	struct fdent ent = { .backend = PINGSOCK_BACKEND_KERNEL,
			     .family = domain, .errfd = -1 };

	if (fd < 0)
		return -errno;
	if (fdtab_set(fd, &ent)) {
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
	if ((type & SOCK_NONBLOCK) &&
	    sys_fcntl(fd, F_SETFL, sys_fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

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

	if (rc == 0) {
		rc = bk_adopt(fds[1], handle, domain, keep, &ent);
		fds[1] = -1;	/* taken, even on failure */
	}
	if (rc == 0) {
		rc = apply_type_flags(fds[0], type);
		if (rc == 0 && fdtab_set(fds[0], &ent))
			rc = -ENOMEM;
		if (rc)
			bk_release(ent.bk);
	}
	for (int i = rc ? 0 : 1; i < CONN_MAX_FDS; i++)
		if (fds[i] >= 0)
			sys_close(fds[i]);
	return rc ? rc : fds[0];
}

/* open_daemon() failed because the daemon serves another namespace. */
static __thread bool open_foreign;

static int open_daemon(int domain, int type, int protocol)
{
	struct wire_req req = { .type = WIRE_OPEN };
	uint32_t body[2] = { 0, 0 }, handle;
	size_t blen = sizeof(body);
	struct fdent ent = { .backend = PINGSOCK_BACKEND_DAEMON,
			     .family = domain, .errfd = -1 };
	const char *ident = secure_getenv("PINGSOCK_IDENT");
	int fds[CONN_MAX_FDS], fd, rc;

	ent.keep_ident = ident && strcmp(ident, "keep") == 0;
	open_foreign = false;

	req.u.open.domain = domain;
	req.u.open.type = type;
	req.u.open.protocol = protocol;
	rc = conn_call(&req, NULL, 0, body, &blen, fds);
	if (rc == WIRE_R_NODAEMON)
		rc = conn_dial_error();
	else if (rc == WIRE_R_BROKEN)
		rc = -ECONNRESET;
	if (rc >= 0 && (blen != sizeof(body) || fds[0] < 0))
		rc = -ECONNRESET;
	if (rc >= 0 && (body[1] & WIRE_OPEN_BROKER))
		return adopt_broker(domain, type, ent.keep_ident, body[0], fds);
	handle = body[0];
	fd = fds[0];
	ent.errfd = fds[2] >= 0 ? conn_move_high(fds[2]) : -1;
	if (rc >= 0 && (fds[1] < 0 || fds[2] < 0))
		rc = -ECONNRESET;
	if (rc >= 0)
		rc = dsock_map_shm(fds[1], &ent.shm);
	if (fds[1] >= 0)
		sys_close(fds[1]);
	if (rc < 0) {
		if (fd >= 0)
			sys_close(fd);
		if (ent.errfd >= 0)
			sys_close(ent.errfd);
		why_daemon(rc);
		/* Served nothing in this namespace: "you may not". */
		open_foreign = rc == WIRE_R_FOREIGN_NS;
		return open_foreign ? -EACCES : rc;
	}
	ent.handle = handle;
	ent.attached = getpid();
	rc = apply_type_flags(fd, type);
	if (rc == 0 && fdtab_set(fd, &ent))
		rc = -ENOMEM;
	if (rc < 0) {
		munmap(ent.shm, WIRE_SHM_SIZE);
		sys_close(ent.errfd);
		sys_close(fd);
		return rc;
	}
	return fd;
}

/* ---- PINGSOCK_RAW=echo: the raw-socket emulation (rawcompat.h) ---- */
static int open_rawcompat(enum mode mode, int domain, int type, int protocol)
{
	int krc = mode == MODE_DAEMON ? -EPERM
				      : open_kernel(domain, type, protocol);
	int rc;

	/* The kernel's raw socket when it gives one (CAP_NET_RAW). */
	if (krc >= 0 || (krc != -EPERM && krc != -EACCES))
		return krc;
	rc = open_daemon(domain, type, protocol);
	if (rc < 0)
		return krc;	/* refused there too: the kernel's errno */
	fdtab_set_raw(rc);
	why[0] = '\0';
	return rc;
}
/* ---- end of the raw-socket emulation ---- */

EXPORT int pingsock_socket(int domain, int type, int protocol)
{
	enum mode mode = backend_mode();
	int rc;

	why[0] = '\0';
	if (mode == MODE_BAD) {
		snprintf(why, sizeof(why), "PINGSOCK_BACKEND=%s: expected "
			 "auto, kernel or daemon", secure_getenv("PINGSOCK_BACKEND"));
		errno = EINVAL;
		return -1;
	}
	if (mode != MODE_KERNEL && rawc_wanted(domain, type, protocol))
		return (int)dsock_ret(open_rawcompat(mode, domain, type, protocol));
	if (mode != MODE_DAEMON) {
		rc = open_kernel(domain, type, protocol);
		if (rc >= 0)
			return rc;
		/* The kernel's own answer stands for anything but "you may
		 * not" on a well-formed ping socket request. */
		if (mode == MODE_KERNEL ||
		    (rc != -EACCES && rc != -EPROTONOSUPPORT) ||
		    !is_ping_kind(domain, type, protocol)) {
			if (rc == -EACCES)
				why_kernel(-rc);
			return (int)dsock_ret(rc);
		}
		int krc = rc;

		rc = open_daemon(domain, type, protocol);
		if (rc >= 0) {
			why[0] = '\0';
			return rc;
		}
		if (rc == -ENOENT || rc == -ECONNREFUSED || open_foreign) {
			/* Say both halves: the kernel refused, no daemon
			 * (for this namespace); the errno is the kernel's. */
			if (open_foreign)
				rc = WIRE_R_FOREIGN_NS;
			char k[sizeof(why)];

			why_kernel(-krc);
			memcpy(k, why, sizeof(k));
			why_daemon(rc);
			append_why(k);
			rc = krc;
		}
		return (int)dsock_ret(rc);
	}
	if (!is_ping_kind(domain, type, protocol)) {
		/* Not a ping socket: the kernel's errno for this request
		 * (EINVAL, EPERM, EPROTONOSUPPORT, ...) is the right one. */
		rc = open_kernel(domain, type, protocol);
		if (rc >= 0) {
			fdtab_clear(rc);
			sys_close(rc);
			rc = -EPROTONOSUPPORT;
		}
		return (int)dsock_ret(rc);
	}
	return (int)dsock_ret(open_daemon(domain, type, protocol));
}

EXPORT int pingsock_backend(int fd)
{
	struct fdent ent;

	return fdtab_get(fd, &ent) ? ent.backend : PINGSOCK_BACKEND_NONE;
}

/* Returns true and fills ent for a daemon socket; false otherwise. */
static bool daemon_fd(int fd, struct fdent *ent)
{
	return fdtab_get(fd, ent) && ent->backend == PINGSOCK_BACKEND_DAEMON;
}

/* move_addr_to_kernel(): the syscall layer's checks on a passed name. */
static int addr_in(struct wire_req *req, const struct sockaddr *addr,
		   socklen_t len)
{
	if (len > WIRE_ADDR_MAX)
		return -EINVAL;
	if (len && !addr)
		return -EFAULT;
	req->u.addr.len = len;
	if (len)
		memcpy(req->u.addr.bytes, addr, len);
	return 0;
}

static int name_call(int fd, int type, const struct sockaddr *addr,
		     socklen_t len)
{
	struct wire_req req = { .type = (uint16_t)type };
	struct fdent ent;
	int rc;

	if (!daemon_fd(fd, &ent)) {
		if (ent.backend == PINGSOCK_BACKEND_BROKER) {
			if (type == WIRE_BIND)
				return bk_bind(fd, &ent, addr, len);
			if (bk_connect_reaches(addr, len))
				bk_use(fd, &ent, NULL, 0);
		}
		return type == WIRE_BIND ? sys_bind(fd, addr, len)
					 : sys_connect(fd, addr, len);
	}
	rc = addr_in(&req, addr, len);
	if (rc == 0)
		rc = dsock_call(fd, &ent, &req, NULL, 0, NULL, NULL);
	return (int)dsock_ret(rc);
}

EXPORT int pingsock_bind(int fd, const struct sockaddr *addr,
			 socklen_t addrlen)
{
	return name_call(fd, WIRE_BIND, addr, addrlen);
}

EXPORT int pingsock_connect(int fd, const struct sockaddr *addr,
			    socklen_t addrlen)
{
	return name_call(fd, WIRE_CONNECT, addr, addrlen);
}

/* move_addr_to_user(): copy what fits, report the full length. */
static int addr_out(const uint8_t *sa, size_t salen, struct sockaddr *addr,
		    socklen_t *len)
{
	size_t n;

	if (!len)
		return -EFAULT;
	if ((int)*len < 0)
		return -EINVAL;
	n = *len < salen ? *len : salen;
	if (n && !addr)
		return -EFAULT;
	if (n)
		memcpy(addr, sa, n);
	*len = (socklen_t)salen;
	return 0;
}

static int getname(int fd, bool peer, struct sockaddr *addr, socklen_t *len)
{
	struct wire_req req = { .type = peer ? WIRE_GETPEER : WIRE_GETNAME };
	uint8_t sa[WIRE_ADDR_MAX];
	size_t blen = sizeof(sa);
	struct fdent ent;
	int rc;

	if (!daemon_fd(fd, &ent)) {
		if (!peer && ent.backend == PINGSOCK_BACKEND_BROKER)
			return bk_getsockname(fd, &ent, addr, len);
		return peer ? sys_getpeername(fd, addr, len)
			    : sys_getsockname(fd, addr, len);
	}
	rc = dsock_call(fd, &ent, &req, NULL, 0, sa, &blen);
	/* A whole sockaddr (conn_call() checked), of the socket's family. */
	if (rc >= 0 && (blen < sizeof(sa_family_t) ||
			((const struct sockaddr *)sa)->sa_family != ent.family))
		rc = -EPROTO;
	if (rc >= 0)
		rc = addr_out(sa, blen, addr, len);
	return (int)dsock_ret(rc);
}

EXPORT int pingsock_getsockname(int fd, struct sockaddr *addr,
				socklen_t *addrlen)
{
	return getname(fd, false, addr, addrlen);
}

EXPORT int pingsock_getpeername(int fd, struct sockaddr *addr,
				socklen_t *addrlen)
{
	return getname(fd, true, addr, addrlen);
}

EXPORT int pingsock_shutdown(int fd, int how)
{
	struct wire_req req = { .type = WIRE_SHUTDOWN, .u.how = how };
	struct fdent ent;

	if (!daemon_fd(fd, &ent))
		return sys_shutdown(fd, how);
	return (int)dsock_ret(dsock_call(fd, &ent, &req, NULL, 0, NULL, NULL));
}

EXPORT int pingsock_close(int fd)
{
	struct wire_req req = { .type = WIRE_DETACH };
	struct fdent ent;

	if (daemon_fd(fd, &ent) && ent.attached == getpid()) {
		/* Best effort: the socket itself lives until its last
		 * descriptor closes, whatever this says. */
		req.handle = ent.handle;
		(void)conn_call(&req, NULL, 0, NULL, NULL, NULL);
	}
	if (daemon_fd(fd, &ent)) {
		if (ent.shm)
			munmap(ent.shm, WIRE_SHM_SIZE);
		if (ent.errfd >= 0)
			sys_close(ent.errfd);
	} else if (ent.backend == PINGSOCK_BACKEND_BROKER) {
		bk_release(ent.bk);
	}
	fdtab_clear(fd);
	return sys_close(fd);
}

/*
 * What the kernel's datagram_poll() reports for a daemon socket that the
 * data descriptor cannot show by itself: POLLERR while an error is
 * pending or queued; after shutdown(SHUT_RD) readable (EOF); after both
 * directions, POLLHUP.  (The EPOLL* values of these bits are the same.)
 */
unsigned pollsynth(const struct fdent *ent, unsigned events)
{
	uint32_t shut;
	unsigned ev = 0;

	if (!ent->shm)
		return 0;
	if (errq_pollerr(ent))
		ev |= POLLERR;
	shut = atomic_load(&ent->shm->shutdown);
	if (shut & WIRE_SHUT_RD)
		ev |= (POLLIN | POLLRDNORM | POLLRDHUP) & events;
	if (shut == (WIRE_SHUT_RD | WIRE_SHUT_WR))
		ev |= POLLHUP;
	return ev;
}

static short synth_events(const struct pollfd *p, const struct fdent *ent)
{
	return (short)pollsynth(ent, (unsigned short)p->events);
}

/* The daemon sockets among fds, with their error descriptors. */
struct pollset {
	struct pollfd *all;	/* fds, then one error descriptor each */
	nfds_t *owner;		/* index in fds of each error descriptor */
	struct fdent *ents;	/* entry of each of fds (backend 0: other) */
	nfds_t nerr;
};

static int pollset_build(struct pollset *ps, const struct pollfd *fds,
			 nfds_t nfds)
{
	ps->all = calloc(2 * nfds + 1, sizeof(*ps->all));
	ps->owner = calloc(nfds + 1, sizeof(*ps->owner));
	ps->ents = calloc(nfds + 1, sizeof(*ps->ents));
	ps->nerr = 0;
	if (!ps->all || !ps->owner || !ps->ents)
		return -1;
	memcpy(ps->all, fds, nfds * sizeof(*fds));
	for (nfds_t i = 0; i < nfds; i++) {
		if (!daemon_fd(fds[i].fd, &ps->ents[i]) || ps->ents[i].errfd < 0) {
			ps->ents[i].backend = 0;
			continue;
		}
		ps->all[nfds + ps->nerr].fd = ps->ents[i].errfd;
		ps->all[nfds + ps->nerr].events = POLLIN;
		ps->owner[ps->nerr++] = i;
	}
	return 0;
}

static void pollset_free(struct pollset *ps)
{
	free(ps->all);
	free(ps->owner);
	free(ps->ents);
}

/* Fold what poll() and the shared pages say into fds; count ready ones. */
static int pollset_merge(struct pollset *ps, struct pollfd *fds, nfds_t nfds)
{
	int n = 0;

	for (nfds_t k = 0; k < ps->nerr; k++)
		if (ps->all[nfds + k].revents)
			errq_drain_wakes(&ps->ents[ps->owner[k]]);
	for (nfds_t i = 0; i < nfds; i++) {
		fds[i].revents = ps->all[i].revents;
		if (ps->ents[i].backend)
			fds[i].revents |= synth_events(&fds[i], &ps->ents[i]);
		if (fds[i].revents)
			n++;
	}
	return n;
}

static bool any_synth(const struct pollset *ps, const struct pollfd *fds,
		      nfds_t nfds)
{
	for (nfds_t i = 0; i < nfds; i++)
		if (ps->ents[i].backend && synth_events(&fds[i], &ps->ents[i]))
			return true;
	return false;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

EXPORT int pingsock_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollset ps;
	nfds_t plain = 0;
	int n;

	while (plain < nfds && fdtab_plain(fds[plain].fd))
		plain++;
	if (plain == nfds)
		return sys_poll(fds, nfds, timeout);	/* nothing of ours */
	if (pollset_build(&ps, fds, nfds)) {
		pollset_free(&ps);
		errno = ENOMEM;
		return -1;
	}
	/* Wait on the data and the error descriptors together: an error
	 * (or a wake-up for one) arrives on the latter.  A wake-up that
	 * turns out stale makes this return early with nothing ready, as
	 * a spurious wake-up would; poll() callers loop anyway, but do it
	 * here while time is left. */
	int64_t deadline = timeout > 0 ? now_ms() + timeout : 0;

	for (;;) {
		int r = sys_poll(ps.all, nfds + ps.nerr,
			     any_synth(&ps, fds, nfds) ? 0 : timeout);

		if (r < 0) {
			pollset_free(&ps);
			return -1;
		}
		n = pollset_merge(&ps, fds, nfds);
		if (n || r == 0 || timeout == 0)
			break;
		if (timeout > 0) {
			timeout = (int)(deadline - now_ms());
			if (timeout <= 0)
				break;
		}
	}
	pollset_free(&ps);
	return n;
}
