/* SPDX-License-Identifier: ISC */
/*
 * fdcopy - the library's descriptor table as a program sees it through
 * include/pingsock.h: copies of a socket made behind the library's back
 * (dup), descriptors closed and reused behind its back, fork() while
 * other threads are inside the library, and the kernel's refusals that
 * send socket() to the daemon.  Run by tests/integration/lib_fds.sh as
 * uid 65534 against a pingsockd; prints one "name=value" line per
 * observable:
 *
 *   backend_dup=B           pingsock_backend() of a dup() of a socket
 *   dup_echo=reply          an echo sent and read on the copy
 *   orig_echo=reply         ... and then on the original
 *   after_close_echo=reply  the copy, once the original is closed
 *   dup2_echo=reply         a dup2() copy at a number of its own
 *   stale_backend=none      a socket closed with close(), its number
 *                           reused by another socket: not the library's
 *   stale_recv=hello        ... whose datagram pingsock_recv() reads
 *   stale_fds=same          ... and what the library held for it is freed
 *   fork_hangs=0            children forked while two threads call into
 *                           the library, each calling it once
 *   eafnosupport4=B         socket(AF_INET) refused with EAFNOSUPPORT
 *                           (as on OpenVZ): the daemon's
 *   eafnosupport6=E         socket(AF_INET6) refused so: IPv6 is off,
 *                           the kernel's errno stands
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pingsock.h"

static const char *bname(int b)
{
	switch (b) {
	case PINGSOCK_BACKEND_KERNEL: return "kernel";
	case PINGSOCK_BACKEND_DAEMON: return "daemon";
	case PINGSOCK_BACKEND_BROKER: return "broker";
	default: return "none";
	}
}

static int open_sock(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd < 0) {
		printf("socket=%s\n", strerror(errno));
		fprintf(stderr, "fdcopy: %s\n", pingsock_why());
		exit(1);
	}
	return fd;
}

/* One echo to 127.0.0.1 on fd and its reply: "reply", or what failed. */
static const char *echo(int fd, unsigned seq)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned char req[16] = { ICMP_ECHO, 0, 0, 0, 0, 0,
				  (unsigned char)(seq >> 8),
				  (unsigned char)seq }, buf[256];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	static char why[64];
	ssize_t n;

	if (pingsock_sendto(fd, req, sizeof(req), 0, (struct sockaddr *)&to,
			    sizeof(to)) != (ssize_t)sizeof(req)) {
		snprintf(why, sizeof(why), "send:%s", strerror(errno));
		return why;
	}
	/* Not pingsock_poll(): a reply must make the descriptor itself
	 * readable, whichever copy of it this is. */
	if (poll(&p, 1, 2000) != 1)
		return "timeout";
	n = pingsock_recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0) {
		snprintf(why, sizeof(why), "recv:%s", strerror(errno));
		return why;
	}
	if (n < 8 || buf[0] != ICMP_ECHOREPLY || buf[6] != (seq >> 8 & 0xff) ||
	    buf[7] != (seq & 0xff)) {
		snprintf(why, sizeof(why), "bytes:%zd:type%u", n, buf[0]);
		return why;
	}
	return "reply";
}

static void case_dup(void)
{
	int s = open_sock(), d = dup(s), d2;

	printf("backend_dup=%s\n", bname(pingsock_backend(d)));
	printf("dup_echo=%s\n", echo(d, 1));
	printf("orig_echo=%s\n", echo(s, 2));
	pingsock_close(s);
	printf("after_close_echo=%s\n", echo(d, 3));
	d2 = dup2(d, 100);
	printf("dup2_echo=%s\n", d2 == 100 ? echo(d2, 4) : "dup2 failed");
	pingsock_close(d2);
	pingsock_close(d);
}

static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static void case_stale(void)
{
	int before, s, sp[2];
	char buf[16] = "";
	ssize_t n;

	/* The control connection, made by the first socket, stays. */
	pingsock_close(open_sock());
	before = count_fds();
	s = open_sock();

	close(s);	/* behind the library's back */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp) < 0) {
		printf("stale=socketpair failed\n");
		return;
	}
	if (sp[0] != s) {
		dup2(sp[0], s);
		close(sp[0]);
	}
	printf("stale_backend=%s\n", bname(pingsock_backend(s)));
	(void)!write(sp[1], "hello", 5);
	n = pingsock_recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	printf("stale_recv=%s\n", n == 5 ? buf : n < 0 ? strerror(errno) : "?");
	pingsock_close(s);
	close(sp[1]);
	printf("stale_fds=%s\n", count_fds() == before ? "same" : "changed");
}

/* ---- fork while other threads are inside the library ---- */
static atomic_bool stop;

static void *hammer(void *arg)
{
	int fd = *(int *)arg;

	while (!atomic_load(&stop))
		(void)pingsock_backend(fd);
	return NULL;
}

static void case_fork(void)
{
	int s = open_sock(), hangs = 0;
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, hammer, &s);
	for (int i = 0; i < 200; i++) {
		int st = 0;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(2);
			_exit(pingsock_backend(s) == PINGSOCK_BACKEND_NONE);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			hangs++;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pingsock_close(s);
	printf("fork_hangs=%d\n", hangs);
}

/* ---- the kernel refuses with EAFNOSUPPORT (seccomp plays the kernel) ---- */
static int refuse_icmp_sockets(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMP, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMPV6, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void case_refused(const char *name, int family, int proto)
{
	fflush(stdout);
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd;

		if (refuse_icmp_sockets(EAFNOSUPPORT)) {
			printf("%s=seccomp failed\n", name);
			_exit(0);
		}
		fd = pingsock_socket(family, SOCK_DGRAM, proto);
		printf("%s=%s\n", name, fd >= 0 ? bname(pingsock_backend(fd))
						: strerror(errno));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!only || strcmp(only, "dup") == 0)
		case_dup();
	if (!only || strcmp(only, "stale") == 0)
		case_stale();
	if (!only || strcmp(only, "fork") == 0)
		case_fork();
	if (!only || strcmp(only, "refused") == 0) {
		case_refused("eafnosupport4", AF_INET, IPPROTO_ICMP);
		case_refused("eafnosupport6", AF_INET6, IPPROTO_ICMPV6);
	}
	return 0;
}
