/* SPDX-License-Identifier: ISC */
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/broker.h"
#include "lib/fdtab.h"
#include "pingsock.h"
#include "run/sock.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9 */
#endif
#define SCAN_MS 1000		/* how often gone sockets are looked for */
#define ADDR_MAX 128		/* sockaddr_storage: longer is EINVAL */

static int pidfd_of(pid_t tid)
{
	int fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	return fd >= 0 ? fd : (int)syscall(SYS_pidfd_open, tid, 0);
}

/* The caller's descriptor fd, as a descriptor here; -1 if none. */
static int their_fd(pid_t tid, int fd)
{
	int pfd = pidfd_of(tid), ours = -1;

	if (pfd >= 0) {
		ours = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
		close(pfd);
	}
	return ours;
}

/* Whether the caller's descriptor fd is close-on-exec (its fdinfo). */
static bool their_cloexec(pid_t tid, int fd)
{
	char path[64], line[128];
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	fclose(f);
	return (flags & O_CLOEXEC) != 0;
}

static void respond(int lfd, struct seccomp_notif_resp *resp, uint64_t id,
		    int err, uint32_t flags)
{
	resp->id = id;
	resp->val = 0;
	resp->error = err;
	resp->flags = flags;
	/* ENOENT: the caller is gone, or a signal interrupted its call
	 * (it is made again, as a new notification, if it restarts). */
	(void)seccomp_notify_respond(lfd, resp);
}

/* The caller's socket() on a family the filter sends: one from the
 * daemon, installed as the call's result. */
static void on_socket(int lfd, const struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp)
{
	int domain = (int)req->data.args[0], type = (int)req->data.args[1];
	int protocol = (int)req->data.args[2];
	int err = sock_install(lfd, req->id, domain, type, protocol);

	if (err)
		respond(lfd, resp, req->id, err, 0);
}

/* Read the caller's address (len bytes at addr). */
static int their_addr(pid_t tid, uint64_t addr, size_t len, void *out)
{
	struct iovec local = { .iov_base = out, .iov_len = len };
	/* An address in the caller's memory, from the notification. */
	struct iovec remote = {
		.iov_base = (void *)(uintptr_t)addr,	/* NOLINT(performance-no-int-to-ptr) */
		.iov_len = len };

	if (!len)
		return 0;
	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len
		       ? 0 : -EFAULT;
}

/*
 * The caller's bind(): on a socket of ours not bound yet by the program,
 * the daemon's bind (sock.c); anything else goes on to the kernel.
 */
static void on_bind(int lfd, const struct seccomp_notif *req,
		    struct seccomp_notif_resp *resp)
{
	int fd = (int)req->data.args[0], ofd = their_fd(req->pid, fd);
	size_t len = (size_t)(uint32_t)req->data.args[2];
	unsigned char addr[ADDR_MAX];
	struct run_sock *rs = ofd >= 0 ? sock_find(ofd) : NULL;
	int err;

	if (!rs) {
		if (ofd >= 0)
			close(ofd);
		respond(lfd, resp, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	err = len > ADDR_MAX ? -EINVAL
			     : their_addr(req->pid, req->data.args[1], len, addr);
	/* What was read is the caller's only if its call is still there. */
	if (!err && seccomp_notify_id_valid(lfd, req->id) != 0)
		err = -ENOENT;
	if (!err)
		err = sock_bind(rs, ofd, addr, (socklen_t)len, lfd, req->id, fd,
				their_cloexec(req->pid, fd));
	close(ofd);
	if (err != -ENOENT)
		respond(lfd, resp, req->id, err, 0);
}

/* Write len bytes to the caller's memory at addr. */
static int their_write(pid_t tid, uint64_t addr, const void *src, size_t len)
{
	struct iovec local = { .iov_base = (void *)src, .iov_len = len };
	struct iovec remote = {
		.iov_base = (void *)(uintptr_t)addr,	/* NOLINT(performance-no-int-to-ptr) */
		.iov_len = len };

	return process_vm_writev(tid, &local, 1, &remote, 1, 0) == (ssize_t)len
		       ? 0 : -EFAULT;
}

/*
 * getsockopt()'s answer: the value, then its length, as the kernel
 * writes them (a shorter buffer gets the first bytes; a negative length
 * EINVAL).
 */
static int v6only_get(pid_t tid, const struct seccomp_notif *req, int v)
{
	socklen_t len;
	int err = their_addr(tid, req->data.args[4], sizeof(len), &len);

	if (err)
		return err;
	if ((int)len < 0)
		return -EINVAL;
	if (len > sizeof(v))
		len = sizeof(v);
	err = their_write(tid, req->data.args[3], &v, len);
	return err ? err : their_write(tid, req->data.args[4], &len,
					sizeof(len));
}

/* setsockopt() or getsockopt() of IPV6_V6ONLY: ours kept (sock.h). */
static void on_v6only(int lfd, const struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp, bool set)
{
	int fd = (int)req->data.args[0], ofd = their_fd(req->pid, fd), v = 0;
	struct run_sock *rs = ofd >= 0 ? sock_find(ofd) : NULL;
	int err = 0;

	if (ofd >= 0)
		close(ofd);
	if (!rs || !sock_is_v6(rs)) {
		respond(lfd, resp, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	if (set && (int)req->data.args[4] < (int)sizeof(int))
		err = -EINVAL;
	else if (set && req->data.args[3])	/* NULL: 0, as the kernel */
		err = their_addr(req->pid, req->data.args[3], sizeof(v), &v);
	if (!err && seccomp_notify_id_valid(lfd, req->id) != 0)
		return;
	if (!err)
		err = sock_v6only(rs, set, &v);
	if (!err && !set)
		err = v6only_get(req->pid, req, v);
	respond(lfd, resp, req->id, err, 0);
}

static void serve_one(int lfd, struct seccomp_notif *req,
		      struct seccomp_notif_resp *resp)
{
	memset(req, 0, sizeof(*req));
	if (seccomp_notify_receive(lfd, req) != 0)
		return;		/* the caller went meanwhile */
	memset(resp, 0, sizeof(*resp));
	if (req->data.nr == __NR_socket)
		on_socket(lfd, req, resp);
	else if (req->data.nr == __NR_bind)
		on_bind(lfd, req, resp);
	else if (req->data.nr == __NR_setsockopt)
		on_v6only(lfd, req, resp, true);
	else if (req->data.nr == __NR_getsockopt)
		on_v6only(lfd, req, resp, false);
	else
		respond(lfd, resp, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/*
 * Signals sent to this process (kill, a service manager) go on to the
 * child; those from the terminal reached the child's process group
 * already (si_code SI_KERNEL: not sent twice).
 */
static void forward(int sigfd, pid_t child)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_code != SI_KERNEL)
			kill(child, (int)si.ssi_signo);
}

int super_run(int lfd, pid_t child, int sigfd)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0), status = 0;

	if (seccomp_notify_alloc(&req, &resp) != 0 || pidfd < 0) {
		fprintf(stderr, "pingsock-run: %s\n", strerror(errno));
		kill(child, SIGKILL);
	}
	for (;;) {
		struct pollfd p[3] = { { .fd = lfd, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN },
				       { .fd = sigfd, .events = POLLIN } };

		if (poll(p, 3, sock_count() ? SCAN_MS : -1) < 0 &&
		    errno != EINTR)
			break;
		if (p[2].revents & POLLIN)
			forward(sigfd, child);
		if ((p[0].revents & POLLIN) && req)
			serve_one(lfd, req, resp);
		if (p[0].revents & (POLLHUP | POLLERR))
			lfd = -1;	/* no filtered process left */
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		sock_scan();
	}
	sock_forget_all();
	if (req)
		seccomp_notify_free(req, resp);
	return status;
}
