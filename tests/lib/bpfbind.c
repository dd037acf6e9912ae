/* SPDX-License-Identifier: ISC */
/*
 * bpfbind - an eBPF socket filter attached before a broker socket's
 * first bind() is still there after it (the bind replaces the socket:
 * pingsockd(8), BROKER MODE).  Loading the program needs privilege
 * (kernel.unprivileged_bpf_disabled), so tests/integration/broker.sh
 * runs this as root, with PINGSOCK_BACKEND=daemon.  Prints:
 *
 *   backend=broker   the socket is one the daemon handed over
 *   attach=0         SO_ATTACH_BPF of a program keeping 20 bytes of each
 *                    datagram (the program's descriptor is closed after)
 *   bind=0           bind to 127.0.0.1, identifier 40555
 *   reply=20         the echo's reply, cut by the program
 *
 * or "bpf=ENAME" alone when the program cannot be loaded here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pingsock.h"

/* return 20: the length of the datagram to keep. */
static int prog_load(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 20 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (unsigned long)insns;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

static void res(const char *what, long r)
{
	if (r < 0)
		printf("%s=%s\n", what, strerrorname_np(errno));
	else
		printf("%s=%ld\n", what, r);
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(40555) };
	unsigned char buf[64] = { 8 };	/* an Echo Request */
	int prog = prog_load(), fd;
	struct pollfd p;

	if (prog < 0) {
		res("bpf", prog);
		return 0;
	}
	fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	printf("backend=%s\n", pingsock_backend(fd) == PINGSOCK_BACKEND_BROKER
				       ? "broker" : "other");
	res("attach", pingsock_setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF,
					  &prog, sizeof(prog)));
	close(prog);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	res("bind", pingsock_bind(fd, (struct sockaddr *)&a, sizeof(a)));
	a.sin_port = 0;
	pingsock_sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&a,
			sizeof(a));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (pingsock_poll(&p, 1, 2000) > 0)
		res("reply", pingsock_recv(fd, buf, sizeof(buf), 0));
	else
		printf("reply=none\n");
	return 0;
}
