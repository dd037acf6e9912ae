/* SPDX-License-Identifier: ISC */
/*
 * forkattach - many processes make their first call on one inherited
 * socket at once, for tests/integration/threads.sh.
 *
 *   forkattach CHILDREN [held]
 *   forkattach held
 *   forkattach turns
 *
 * The parent opens a socket and forks CHILDREN children; they wait on a
 * pipe, and when the parent closes it each makes one call on the socket
 * (a getsockopt of IP_TTL), which attaches it to the child's own
 * connection with a proof written on the socket's descriptor.  Prints
 *
 *   children=N failed=N
 *
 * each failure also said on stderr.  With the kernel's socket none fails.
 * With "held" after CHILDREN the parent keeps the byte the library locks
 * while it attaches (below), so the children attach without the lock,
 * all at once.
 *
 * held: the parent keeps the byte the library locks while it attaches
 * (relay.c: ATTACH_LOCK_AT), as a holder of the socket may; its one
 * child makes its first call in one thread while another thread forks
 * 50 ms later.  The call waits for the lock (a while, not for ever), and
 * the fork must not wait with it.  Prints
 *
 *   call=ok|failed fork_ms=N
 *
 * execs N: the parent opens a socket and starts N programs one after
 * the other (fork and exec of this one, "use"), each of which gets the
 * socket across exec, makes one call on it (attaching it: a slot in its
 * own arena), closes it and stays until the parent ends.  A socket has
 * a slot in 64 arenas at most (pingsockd(8)), so a program that closed
 * it must give its slot back, as the kernel's socket has no such bound.
 * Then the parent sends an echo and reads the reply.  Prints
 *
 *   execs=N failed=N first_failure=ERRNO|none parent_echo=reply|failed
 *
 * forkshare: the parent opens a socket and forks; the child shares its
 * arena (the parent's slots) and its socket.  The parent closes its copy,
 * opens a second socket (which a slot given back would go to) and shuts
 * it down.  The child's socket is still open and not shut down: poll()
 * must say so.  Prints
 *
 *   forkshare_revents=N   (0: nothing to report)
 *
 * bound N: the parent opens a socket and starts up to N programs one
 * after the other ("hold"), each of which gets the socket across exec,
 * makes one call on it and keeps it, until one's call fails.  Past the
 * bound of 64 processes a socket (pingsockd(8)) that call must fail
 * ENOBUFS, a passing shortage, and the socket stay the program's: once
 * the first holder has ended, the same program's call again goes
 * through (retried while ENOBUFS, for up to 10 s: the daemon sees the
 * holder's end in its own time).  Prints
 *
 *   held=N failure=ERRNO|none after_exit=ok|ERRNO|none
 *   next_holder=ok|ERRNO|none copy=ok|ERRNO|none
 *
 * (the second line: copy_check()).
 *
 * turns: eight children of the parent take that byte in turn, for
 * 200 ms each, each before the one before it lets go (read locks, which
 * do not exclude each other, so the byte is never free between them).
 * Another child makes its first call meanwhile: it waits for the lock
 * for as long as its holder changes, so its call ends after the last
 * has let go.  Prints
 *
 *   call=ok|failed after_last=yes|no
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pingsock.h"

#define MAX_CHILDREN 1000

static void child(int fd, int go, int id)
{
	int ttl = 0;
	socklen_t len = sizeof(ttl);
	char c;

	/* The parent's close of the pipe lets every child go at once. */
	(void)read(go, &c, 1);
	if (pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len) ||
	    ttl < 1) {
		fprintf(stderr, "forkattach: child %d: getsockopt: %s\n", id,
			strerror(errno));
		_exit(1);
	}
	_exit(0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *forker(void *arg)
{
	long *ms = arg, t0;
	pid_t pid;

	/* The call has begun (its wait is a second). */
	usleep(200000);
	t0 = now_ms();
	pid = fork();
	if (pid == 0)
		_exit(0);
	*ms = now_ms() - t0;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return NULL;
}

/* The child of "held": the call in this thread, the fork in another. */
static int held_child(int fd)
{
	int ttl = 0, rc;
	socklen_t len = sizeof(ttl);
	long fork_ms = -1;
	pthread_t th;

	if (pthread_create(&th, NULL, forker, &fork_ms))
		return 1;
	rc = pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len);
	pthread_join(th, NULL);
	printf("call=%s fork_ms=%ld\n", rc == 0 ? "ok" : "failed", fork_ms);
	fflush(stdout);	/* the caller leaves by _exit() */
	return 0;
}

/* Keep the byte the library locks on fd while a process attaches it
 * (type F_WRLCK), or share it with other keepers (F_RDLCK); or let go
 * (F_UNLCK). */
static int lock_as(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = 0x7ffffffe, .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl);
}

static int hold(int fd)
{
	return lock_as(fd, F_WRLCK);
}

/* 1.6 s in all: longer than a wait for one holder (relay.c:
 * ATTACH_LOCK_WAIT_NS), shorter than all the waiting there is. */
#define TURNS 8
#define TURN_MS 200

/* One keeper of "turns": a byte on take to take the byte, then one on
 * ack; a byte on release to let it go, then one on ack. */
static void keeper(int fd, int take, int release, int ack)
{
	char c = 0;

	if (read(take, &c, 1) != 1 || lock_as(fd, F_RDLCK) ||
	    write(ack, &c, 1) != 1 || read(release, &c, 1) != 1 ||
	    lock_as(fd, F_UNLCK) || write(ack, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

/* The caller of "turns": its first call, then whether the last keeper
 * had let go (a byte on done) by the time it returned. */
static void turns_caller(int fd, int done)
{
	int ttl = 0, rc;
	socklen_t len = sizeof(ttl);
	char c;

	rc = pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len);
	printf("call=%s after_last=%s\n", rc == 0 ? "ok" : "failed",
	       read(done, &c, 1) == 1 ? "yes" : "no");
	fflush(stdout);
	_exit(0);
}

/* Tell keeper i to take (or let go), and wait until it has. */
static int order(int to[TURNS][2], int ack, int i)
{
	char c = 0;

	return write(to[i][1], &c, 1) == 1 && read(ack, &c, 1) == 1 ? 0 : -1;
}

static int turns(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	int take[TURNS][2], release[TURNS][2], ack[2], done[2], bad = 0;
	pid_t caller;

	if (fd < 0 || pipe(ack) || pipe2(done, O_NONBLOCK)) {
		perror("forkattach: socket or pipe");
		return 1;
	}
	fflush(stdout);
	for (int i = 0; i < TURNS; i++) {
		if (pipe(take[i]) || pipe(release[i]))
			return 1;
		if (fork() == 0)
			keeper(fd, take[i][0], release[i][0], ack[1]);
	}
	bad |= order(take, ack[0], 0);
	caller = fork();
	if (caller == 0)
		turns_caller(fd, done[0]);
	for (int i = 1; i < TURNS && !bad; i++) {
		usleep(TURN_MS * 1000);
		bad |= order(take, ack[0], i);		/* before i - 1 goes */
		bad |= order(release, ack[0], i - 1);
	}
	usleep(TURN_MS * 1000);
	/* Said before the last lets go: the caller cannot be done before. */
	(void)!write(done[1], "", 1);
	bad |= order(release, ack[0], TURNS - 1);
	waitpid(caller, NULL, 0);
	while (wait(NULL) > 0)
		;
	return bad ? 1 : 0;
}

/*
 * heldexec: "held", but the child is a program started across exec: its
 * first call on the inherited socket resolves it (inherit.c, under
 * LOCK_INHERIT) and waits there for the byte.  A fork meanwhile took the
 * pool's lock before the library's (conn.c's fork handler ran first),
 * waited for LOCK_INHERIT, and the call, done waiting, waited for the
 * pool's lock: both for ever.  SIGALRM ends the child after 10 s.
 * Prints the child's line, then child=exited|killed.
 */
static int heldexec(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), st = 0;
	char arg[16];
	pid_t pid;

	if (fd < 0 || hold(fd)) {
		perror("forkattach: socket or lock");
		return 1;
	}
	snprintf(arg, sizeof(arg), "%d", fd);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "forkattach", "heldexec-child", arg,
		      (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	printf("child=%s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "exited"
								 : "killed");
	return 0;
}

static int held(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), st = 0;
	pid_t pid;

	if (fd < 0 || hold(fd)) {
		perror("forkattach: socket or lock");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(held_child(fd));
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
		       WEXITSTATUS(st) : 1;
}

/* use FD REPORT HOLD (the program "execs" starts): 0 or the errno on
 * REPORT, then wait for HOLD's end to close. */
static int use(char **argv)
{
	int fd = atoi(argv[2]), report = atoi(argv[3]), until = atoi(argv[4]);
	int ttl = 0, err = 0;
	socklen_t len = sizeof(ttl);
	char c;

	/* The call attaches the socket; the close gives it back. */
	if (pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len) ||
	    pingsock_close(fd))
		err = errno;
	if (write(report, &err, sizeof(err)) != (ssize_t)sizeof(err))
		return 1;
	close(report);
	while (read(until, &c, 1) > 0)
		;
	return 0;
}

/* One call that attaches fd (when relayed): 0 or its errno. */
static int ttl_of(int fd)
{
	int ttl = 0;
	socklen_t len = sizeof(ttl);

	return pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len) ? errno
								       : 0;
}

/* hold FD REPORT CMD (the program "bound" starts): the call's result on
 * REPORT; if it failed, once CMD gives a byte, the call again (retried
 * while ENOBUFS) and its result; the socket kept until CMD's end. */
static int hold_prog(char **argv)
{
	int fd = atoi(argv[2]), report = atoi(argv[3]), cmd = atoi(argv[4]);
	int err = ttl_of(fd), copy = -1;
	char c;

	if (write(report, &err, sizeof(err)) != (ssize_t)sizeof(err))
		return 1;
	if (err) {
		/* A copy, used (and refused) while the socket has no slot
		 * here: it must learn of the slot the retry gets. */
		copy = dup(fd);
		(void)ttl_of(copy);
	}
	if (err && read(cmd, &c, 1) == 1) {
		for (int i = 0; i < 200 && (err = ttl_of(fd)) == ENOBUFS; i++)
			usleep(50000);
		if (write(report, &err, sizeof(err)) != (ssize_t)sizeof(err))
			return 1;
	}
	/* 'c': close the descriptor the retry attached; 'd': a call on
	 * the copy.  Each answered with 0 or the errno. */
	while (read(cmd, &c, 1) > 0) {
		err = c == 'c' ? (pingsock_close(fd) ? errno : 0)
		    : c == 'd' ? ttl_of(copy) : EINVAL;
		if (write(report, &err, sizeof(err)) != (ssize_t)sizeof(err))
			return 1;
	}
	return 0;
}

/* An Echo Request to 127.0.0.1 on fd, and its reply within 5 s. */
static bool echo(int fd)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct icmphdr h = { .type = ICMP_ECHO, .un.echo.sequence = htons(1) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];

	if (pingsock_sendto(fd, &h, sizeof(h), 0, (struct sockaddr *)&to,
			    sizeof(to)) != (ssize_t)sizeof(h))
		return false;
	return pingsock_poll(&p, 1, 5000) == 1 &&
	       pingsock_recv(fd, buf, sizeof(buf), 0) >= (ssize_t)sizeof(h);
}

/* One "use" program started with fd, its word read: 0 or an errno. */
static int exec_one(const char *self, int fd, int until)
{
	char a[3][16];
	int rep[2], err = EIO;
	pid_t pid;

	if (pipe2(rep, O_CLOEXEC))
		return errno;
	snprintf(a[0], sizeof(a[0]), "%d", fd);
	snprintf(a[1], sizeof(a[1]), "%d", rep[1]);
	snprintf(a[2], sizeof(a[2]), "%d", until);
	pid = fork();
	if (pid == 0) {
		(void)fcntl(rep[1], F_SETFD, 0);
		execl(self, "forkattach", "use", a[0], a[1], a[2], (char *)NULL);
		_exit(127);
	}
	close(rep[1]);
	if (pid < 0 || read(rep[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
		err = pid < 0 ? errno : EIO;
	close(rep[0]);
	return err;
}

struct holder {
	pid_t pid;
	int rep, cmd;	/* its report (read end), its command (write end) */
};

/* A "hold" program started with fd; its first word read into *err. */
static int start_holder(int fd, struct holder *h, int *err)
{
	int rep[2], cmd[2];
	char a[3][16];

	if (pipe2(rep, O_CLOEXEC) || pipe2(cmd, O_CLOEXEC))
		return -1;
	snprintf(a[0], sizeof(a[0]), "%d", fd);
	snprintf(a[1], sizeof(a[1]), "%d", rep[1]);
	snprintf(a[2], sizeof(a[2]), "%d", cmd[0]);
	h->pid = fork();
	if (h->pid == 0) {
		(void)fcntl(rep[1], F_SETFD, 0);
		(void)fcntl(cmd[0], F_SETFD, 0);
		execl("/proc/self/exe", "forkattach", "hold", a[0], a[1], a[2],
		      (char *)NULL);
		_exit(127);
	}
	close(rep[1]);
	close(cmd[0]);
	h->rep = rep[0];
	h->cmd = cmd[1];
	if (h->pid < 0 ||
	    read(h->rep, err, sizeof(*err)) != (ssize_t)sizeof(*err))
		*err = EIO;
	return 0;
}

static const char *errname(int err)
{
	return err ? strerrorname_np(err) : "none";
}

/* A command to holder h, and its answer (an errno, or EIO). */
static int ask(const struct holder *h, char c)
{
	int err = EIO;

	if (write(h->cmd, &c, 1) != 1 ||
	    read(h->rep, &err, sizeof(err)) != (ssize_t)sizeof(err))
		return EIO;
	return err;
}

/*
 * After the retry: the failed holder closes the descriptor that attached
 * and keeps its copy, which must keep the socket's slot (a copy made
 * before the slot came took itself for another socket, and the close
 * gave the slot back).  A new holder then finds no room (ENOBUFS), and
 * the copy's call needs none.
 */
static void copy_check(struct holder *h, int fd, int last, int *h2, int *cp)
{
	int closed = ask(&h[last], 'c');

	if (closed || start_holder(fd, &h[last + 1], h2)) {
		*h2 = *cp = closed ? closed : EIO;
		return;
	}
	*cp = ask(&h[last], 'd');
}

static int bound(int n)
{
	static struct holder h[MAX_CHILDREN + 1];
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	int started = 0, err = 0, after = -1, h2 = -1, cp = -1;

	if (fd < 0 || ttl_of(fd) || n < 2 || n > MAX_CHILDREN) {
		perror("forkattach: socket");
		return 1;
	}
	while (started < n && !err) {
		if (start_holder(fd, &h[started], &err))
			return 1;
		started++;
	}
	if (err) {
		/* The first holder ends; then the one that failed tries
		 * again. */
		int last = started - 1;

		close(h[0].cmd);
		h[0].cmd = -1;
		waitpid(h[0].pid, NULL, 0);
		after = ask(&h[last], 'r');
		if (after == 0) {
			copy_check(h, fd, last, &h2, &cp);
			started++;
		}
	}
	for (int i = 0; i < started; i++) {
		if (h[i].cmd >= 0)
			close(h[i].cmd);
		close(h[i].rep);
	}
	while (wait(NULL) > 0)
		;
	printf("held=%d failure=%s after_exit=%s\n", started - !!err -
	       (h2 >= 0), errname(err),
	       after < 0 ? "none" : after ? errname(after) : "ok");
	printf("next_holder=%s copy=%s\n",
	       h2 < 0 ? "none" : h2 ? errname(h2) : "ok",
	       cp < 0 ? "none" : cp ? errname(cp) : "ok");
	return 0;
}

static int execs(int n)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	int stay[2], failed = 0, first = 0;
	bool ok;

	if (fd < 0 || pipe(stay) || fcntl(stay[1], F_SETFD, FD_CLOEXEC)) {
		perror("forkattach: socket or pipe");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		int err = exec_one("/proc/self/exe", fd, stay[0]);

		if (err && !failed++)
			first = err;
	}
	ok = echo(fd);
	close(stay[1]);
	while (wait(NULL) > 0)
		;
	printf("execs=%d failed=%d first_failure=%s parent_echo=%s\n", n,
	       failed, first ? strerrorname_np(first) : "none",
	       ok ? "reply" : "failed");
	return 0;
}

static int forkshare(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	struct sockaddr_in lo = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int go[2], rep[2], t, revents = -1, ttl = 0;
	socklen_t len = sizeof(ttl);
	pid_t pid;

	/* A call first, so that the parent's socket has its slot. */
	if (fd < 0 || pingsock_getsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, &len) ||
	    pipe(go) || pipe(rep)) {
		perror("forkattach: socket or pipe");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
		char c;

		close(go[1]);
		(void)read(go[0], &c, 1);
		revents = pingsock_poll(&p, 1, 0) < 0 ? -1 : p.revents;
		_exit(write(rep[1], &revents, sizeof(revents)) !=
		      (ssize_t)sizeof(revents));
	}
	close(rep[1]);
	pingsock_close(fd);
	t = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (t < 0 || pingsock_connect(t, (struct sockaddr *)&lo, sizeof(lo)) ||
	    pingsock_shutdown(t, SHUT_RDWR))
		perror("forkattach: second socket");
	close(go[1]);
	if (read(rep[0], &revents, sizeof(revents)) != (ssize_t)sizeof(revents))
		revents = -1;
	waitpid(pid, NULL, 0);
	printf("forkshare_revents=%d\n", revents);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc >= 2 ? atoi(argv[1]) : 0, fd, go[2], failed = 0;
	bool lock = argc == 3 && strcmp(argv[2], "held") == 0;

	if (argc == 2 && strcmp(argv[1], "held") == 0)
		return held();
	if (argc == 2 && strcmp(argv[1], "turns") == 0)
		return turns();
	if (argc == 2 && strcmp(argv[1], "forkshare") == 0)
		return forkshare();
	if (argc == 2 && strcmp(argv[1], "heldexec") == 0)
		return heldexec();
	if (argc == 3 && strcmp(argv[1], "heldexec-child") == 0) {
		alarm(10);
		return held_child(atoi(argv[2]));
	}
	if (argc == 3 && strcmp(argv[1], "execs") == 0)
		return execs(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "use") == 0)
		return use(argv);
	if (argc == 3 && strcmp(argv[1], "bound") == 0)
		return bound(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "hold") == 0)
		return hold_prog(argv);

	if (n < 1 || n > MAX_CHILDREN || (argc == 3 && !lock) || argc > 3) {
		fprintf(stderr,
			"usage: forkattach CHILDREN (1..%d) [held] | held | turns | execs N | bound N | forkshare | heldexec\n",
			MAX_CHILDREN);
		return 2;
	}
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	if (fd < 0 || pipe(go) || (lock && hold(fd))) {
		perror("forkattach: socket, pipe or lock");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(go[1]);
			child(fd, go[0], i);
		}
		if (pid < 0) {
			perror("forkattach: fork");
			failed++;
		}
	}
	close(go[1]);
	for (int st; wait(&st) > 0;)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed++;
	printf("children=%d failed=%d\n", n, failed);
	return 0;
}
