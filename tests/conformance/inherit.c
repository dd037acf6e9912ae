/* SPDX-License-Identifier: ISC */
/*
 * inherit: the descriptor is real — a forked child can use the socket
 * it inherited, a dup shares it (file status flags, readiness, queue),
 * and closing one copy leaves the other working.
 */
#include "conf.h"

static int child_status(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(void)
{
	int fd, d;
	pid_t pid;

	conf_begin("inherit");

	out("## fork");
	fd = conf_socket();
	conf_ping("parent: sendto seq 1", fd, "127.0.0.1", 1, 64);
	conf_reply1("parent: reply", fd, false);
	pid = fork();
	if (pid == 0) {
		conf_name("child: getsockname", fd, false, PORT_MASK);
		conf_ping("child: sendto seq 2", fd, "127.0.0.1", 2, 64);
		conf_reply1("child: reply", fd, false);
		conf_getint("child: IP_TTL", fd, SOL_IP, IP_TTL, sizeof(int));
		TRY("child: IP_TTL 33", conf_setint(fd, SOL_IP, IP_TTL, 33));
		conf_ping("child: sendto seq 3 (parent reads)", fd,
			  "127.0.0.1", 3, 64);
		TRY("child: close", pingsock_close(fd));
		_exit(0);
	}
	out("child exited %d", child_status(pid));
	conf_reply1("parent: reply", fd, false);
	conf_getint("parent: IP_TTL (the child set it)", fd, SOL_IP, IP_TTL,
		    sizeof(int));
	conf_ping("parent: sendto seq 4 after the child closed", fd,
		  "127.0.0.1", 4, 64);
	conf_reply1("parent: reply", fd, false);

	out("## child blocked in recv, parent sends");
	pid = fork();
	if (pid == 0) {
		struct timeval tv = { 3, 0 };

		pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv));
		conf_reply1("child: reply", fd, false);
		_exit(0);
	}
	usleep(100000);
	{
		/* print only after the child has: its output comes first */
		struct sockaddr_in a = conf_sin("127.0.0.1", 0);
		long r;
		int e, st;

		conf_echo(conf_big, 64, 5);
		r = pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a));
		e = errno;
		st = child_status(pid);
		conf_res_("parent: sendto seq 5", r, e, false);
		out("child exited %d", st);
	}
	conf_quiet("parent", fd, 200);

	out("## a socket created before fork, used only by the child");
	pingsock_close(fd);
	fd = conf_socket();
	pid = fork();
	if (pid == 0) {
		conf_ping("child: sendto seq 6 (first use)", fd, "127.0.0.1",
			  6, 64);
		conf_reply1("child: reply", fd, false);
		_exit(0);
	}
	out("child exited %d", child_status(pid));
	conf_name("parent: getsockname (the child's send bound it)", fd,
		  false, PORT_MASK);
	conf_quiet("parent", fd, 200);
	pingsock_close(fd);

	out("## dup");
	fd = conf_socket();
	d = dup(fd);
	out("dup: %s", d >= 0 ? "ok" : "failed");
	conf_ping("sendto seq 7 on the original", fd, "127.0.0.1", 7, 64);
	conf_poll("poll on the dup", d, POLLIN, CONF_WAIT_MS);
	conf_reply1("recv on the original", fd, false);
	conf_poll("poll on the dup after reading", d, POLLIN, 0);
	fcntl(d, F_SETFL, fcntl(d, F_GETFL) | O_NONBLOCK);
	out("O_NONBLOCK set on the dup, seen on the original: %d",
	    !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("recv on the original", pingsock_recv(fd, conf_rbuf, 100, 0));
	fcntl(d, F_SETFL, fcntl(d, F_GETFL) & ~O_NONBLOCK);
	conf_ping("sendto seq 8 on the original", fd, "127.0.0.1", 8, 64);
	TRY("close the dup", close(d));
	conf_reply1("recv on the original after the dup closed", fd, false);
	pingsock_close(fd);

	out("## dup, then close the original");
	fd = conf_socket();
	d = dup(fd);
	conf_ping("sendto seq 9", fd, "127.0.0.1", 9, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("pingsock_close the original", pingsock_close(fd));
	conf_poll("poll on the dup", d, POLLIN, 0);
	close(d);
	return 0;
}
