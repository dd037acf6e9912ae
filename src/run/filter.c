/* SPDX-License-Identifier: ISC */
#include "run/run.h"

#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wire/rights.h"

/* The type argument's base (SOCK_NONBLOCK and SOCK_CLOEXEC aside). */
#define TYPE_MASK 0xf

static int add_socket_rule(scmp_filter_ctx ctx, int domain, int protocol)
{
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 3,
				SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)domain),
				SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_MASK,
					SOCK_DGRAM),
				SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)protocol));
}

static int add_v6only_rule(scmp_filter_ctx ctx, int nr)
{
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 2,
				SCMP_A1(SCMP_CMP_EQ, SOL_IPV6),
				SCMP_A2(SCMP_CMP_EQ, IPV6_V6ONLY));
}

/*
 * The filter: those socket() calls, every bind() and the IPV6_V6ONLY
 * option's calls to the supervisor, the rest allowed.  A program of another architecture (a 32-bit one)
 * is not filtered: it gets the kernel's answers.
 */
static int load(scmp_filter_ctx ctx, const struct run_families *fam)
{
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);

	if (!rc && fam->v4)
		rc = add_socket_rule(ctx, AF_INET, IPPROTO_ICMP);
	if (!rc && fam->v6)
		rc = add_socket_rule(ctx, AF_INET6, IPPROTO_ICMPV6);
	/* IPV6_V6ONLY, which the kernel refuses on a bound socket. */
	if (!rc && fam->v6)
		rc = add_v6only_rule(ctx, SCMP_SYS(setsockopt));
	if (!rc && fam->v6)
		rc = add_v6only_rule(ctx, SCMP_SYS(getsockopt));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0);
	if (!rc)
		rc = seccomp_load(ctx);	/* sets no_new_privs first */
	return rc;
}

/* Send fd on sock (SCM_RIGHTS, with one byte). */
static int send_fd(int sock, int fd)
{
	union wire_rights_buf cbuf;
	char byte = 'L';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	wire_rights_pack(&mh, &cbuf, &fd, 1);
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int filter_install(const struct run_families *fam, int sock)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc, lfd;

	if (!ctx)
		return -ENOMEM;
	rc = load(ctx, fam);
	lfd = rc ? rc : seccomp_notify_fd(ctx);
	seccomp_release(ctx);
	if (lfd < 0)
		return lfd;
	rc = send_fd(sock, lfd);
	close(lfd);
	return rc;
}

static void keep_first(int fd, unsigned i, void *arg)
{
	int *out = arg;

	if (i == 0)
		*out = fd;
	else
		close(fd);
}

int filter_receive(int sock)
{
	union wire_rights_buf cbuf;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = &cbuf, .msg_controllen = sizeof(cbuf) };
	int fd = -1;
	ssize_t n;

	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -errno : -EPIPE;
	wire_rights_each(&mh, keep_first, &fd, NULL);
	return fd >= 0 ? fd : -EPROTO;
}
