/* SPDX-License-Identifier: ISC */
/*
 * hookfloor - what the BPF guard's hooks cost before its programs do
 * anything: runs a command in a cgroup (v2) with programs that only
 * accept at the places broker mode's guard puts its own (pingsockd(8),
 * "The BPF guard"): cgroup_skb egress and ingress on the cgroup, and a
 * netfilter program at IPv4 LOCAL_IN of the current network namespace,
 * without reassembly, as the guard's IPv4 link.  bench/run runs the
 * kernel's own ping socket under it beside the kernel's without it: the
 * ratio is the most broker mode with the guard can reach on this
 * machine, whatever its programs do.
 *
 *   hookfloor CGROUP CMD [ARG...]   (root; CGROUP is made if need be)
 *
 * The programs are two instructions each (r0 = 1; exit), loaded and
 * attached by bpf(2) links, which go when this process exits; CMD runs
 * as its child, in CGROUP (so are the sockets it makes).  The caller
 * removes the cgroup afterwards.  Exits with CMD's status, or 1 if
 * anything could not be set up (and says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>

/* Linux 6.4's netfilter programs and links (older headers lack them). */
#define PROG_TYPE_NETFILTER 32
#define ATTACH_NETFILTER 45
#define NFPROTO_IPV4_ 2
#define NF_INET_LOCAL_IN_ 1
#define NF_PRIORITY (-50)

static int sys_bpf(int cmd, void *attr, size_t size)
{
	return (int)syscall(SYS_bpf, cmd, attr, size);
}

static void die(const char *what)
{
	fprintf(stderr, "hookfloor: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* r0 = 1 (accept, for both kinds); exit. */
static int load_accept(uint32_t type, uint32_t attach)
{
	struct bpf_insn insn[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static const char licence[] = "GPL";
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = attach;
	a.insn_cnt = 2;
	a.insns = (uint64_t)(uintptr_t)insn;
	a.license = (uint64_t)(uintptr_t)licence;
	return sys_bpf(BPF_PROG_LOAD, &a, sizeof(a));
}

static void link_cgroup(int cg, uint32_t attach)
{
	int prog = load_accept(BPF_PROG_TYPE_CGROUP_SKB, attach);
	union bpf_attr a;

	if (prog < 0)
		die("loading a cgroup_skb program");
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.target_fd = (uint32_t)cg;
	a.link_create.attach_type = attach;
	if (sys_bpf(BPF_LINK_CREATE, &a, sizeof(a)) < 0)
		die("attaching a cgroup_skb program");
}

/* union bpf_attr's link_create with its netfilter member (6.4). */
struct nf_link_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint32_t pf, hooknum;
	int32_t priority;
	uint32_t nf_flags;
};

static void link_netfilter(void)
{
	int prog = load_accept(PROG_TYPE_NETFILTER, ATTACH_NETFILTER);
	union {
		struct nf_link_attr nf;
		char whole[128];
	} a;

	if (prog < 0)
		die("loading a netfilter program (Linux 6.4 and later)");
	memset(&a, 0, sizeof(a));
	a.nf.prog_fd = (uint32_t)prog;
	a.nf.attach_type = ATTACH_NETFILTER;
	a.nf.pf = NFPROTO_IPV4_;
	a.nf.hooknum = NF_INET_LOCAL_IN_;
	a.nf.priority = NF_PRIORITY;
	if (sys_bpf(BPF_LINK_CREATE, &a, sizeof(a)) < 0)
		die("attaching a netfilter program");
}

static void join(const char *cgroup)
{
	char path[4096], pid[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (fd < 0 || write(fd, pid, (size_t)n) != n)
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	int cg, st;
	pid_t child;

	if (argc < 3) {
		fprintf(stderr, "usage: hookfloor CGROUP CMD [ARG...]\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
		die(argv[1]);
	cg = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0)
		die(argv[1]);
	link_cgroup(cg, BPF_CGROUP_INET_EGRESS);
	link_cgroup(cg, BPF_CGROUP_INET_INGRESS);
	link_netfilter();
	join(argv[1]);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		execvp(argv[2], argv + 2);
		die(argv[2]);
	}
	if (waitpid(child, &st, 0) < 0)
		die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
