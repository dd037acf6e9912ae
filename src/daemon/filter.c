/* SPDX-License-Identifier: ISC */
#include "daemon/filter.h"
#include "daemon/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/sockios.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/buildenv.h"
#include "daemon/trap.h"
#include "wire/in6ext.h"

#define PSD_SO_PASSRIGHTS 83	/* Linux 6.16 (closer.h) */
#ifndef SOL_RAW
#define SOL_RAW 255
#endif
#ifndef ICMP_FILTER
#define ICMP_FILTER 1		/* <linux/icmp.h> */
#endif

/* 32-bit arguments (descriptors, flags) are compared on their low half,
 * as the kernel reads them. */
#define ARG32(i, v) SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, 0xffffffffULL, \
			       (uint64_t)(uint32_t)(v))
#define ARGMASK(i, m, v) SCMP_CMP64((i), SCMP_CMP_MASKED_EQ, (m), (v))

/*
 * Allowed without looking at the arguments.  Found by running the whole
 * suite (tests/run) with the daemon under strace and taking every call
 * after the filter's place in start-up; the few not seen there are noted.
 */
static const int plain[] = {
	/* the loop, its sockets, the data pairs, the route probes */
	SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
	SCMP_SYS(accept4), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg),
	SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(recvmmsg),
	SCMP_SYS(getsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(bind), SCMP_SYS(connect), SCMP_SYS(read), SCMP_SYS(pread64),
	SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(newfstatat),
	SCMP_SYS(shutdown),	/* closer.h: sockets closed after a drain */
	SCMP_SYS(ftruncate),
	/* memory (mmap and mprotect: below) */
	SCMP_SYS(brk), SCMP_SYS(munmap),
	/* signals: signalfd, SIGPIPE ignored, the SIGSYS handler */
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(signalfd4), SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	/* start-up's last steps when daemonised (stdio to /dev/null) */
	SCMP_SYS(chdir), SCMP_SYS(dup2),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
	/* glibc's qsort() of more than 1 KiB (bscan.c's scan, 129 broker
	 * sockets and up) sizes its buffer by the machine's memory:
	 * sysconf(_SC_PHYS_PAGES).  It reads and changes nothing else. */
	SCMP_SYS(sysinfo),
	/* not seen, but libc may: the vDSO's clocks as real calls (no vDSO,
	 * valgrind), malloc's and stdio's other calls, a stopped and
	 * continued process, and the generic names of other architectures */
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(time),
	SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(futex),
	SCMP_SYS(lseek), SCMP_SYS(writev), SCMP_SYS(restart_syscall),
	SCMP_SYS(epoll_pwait), SCMP_SYS(dup3), SCMP_SYS(fstat),
};

/* What valgrind itself calls while it runs the loop (found with strace). */
static const int for_valgrind[] = {
	SCMP_SYS(rt_sigtimedwait), SCMP_SYS(statx), SCMP_SYS(readlink),
};

/* In the sanitizer build only: what LeakSanitizer calls at exit (a
 * ptrace-ing clone that reads /proc), and what a report needs (isatty,
 * reading its own debug information; the external symbolizer it tries to
 * start is refused its execve, so it symbolizes by itself). */
static const int for_sanitizer[] = {
	SCMP_SYS(prctl), SCMP_SYS(clone), SCMP_SYS(ptrace), SCMP_SYS(wait4),
	SCMP_SYS(sched_yield), SCMP_SYS(getdents64),
	SCMP_SYS(sigaltstack), SCMP_SYS(readlink), SCMP_SYS(exit),
	SCMP_SYS(getppid), SCMP_SYS(open), SCMP_SYS(getdents),
	SCMP_SYS(ioctl), SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(fork),
	SCMP_SYS(vfork), SCMP_SYS(kill), SCMP_SYS(fcntl),
};

static int add(scmp_filter_ctx ctx, int nr, unsigned n,
	       const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, cmp);
}

/*
 * setsockopt(): the options the loop sets, and no other (a compromised
 * daemon gets no IP_HDRINCL on the raw sockets it keeps, no filter
 * detached, no option a kernel bug could hide behind).
 */
static const struct { int level, name; } sockopts[] = {
	{ SOL_SOCKET, SO_SNDBUF },	  /* a data pair's, for SO_RCVBUF */
	{ SOL_SOCKET, PSD_SO_PASSRIGHTS }, /* closer.h, on new pairs */
	{ SOL_SOCKET, SO_REUSEADDR },	  /* broker sockets (broker.h) */
	{ SOL_SOCKET, SO_BINDTOIFINDEX }, /* those, and the route probes */
	{ SOL_SOCKET, SO_BROADCAST },	  /* the route probes; raw.c */
	{ SOL_SOCKET, SO_DONTROUTE },	  /* those, for SO_DONTROUTE */
	{ SOL_SOCKET, SO_LINGER },	  /* closer.c: a passed socket */
	{ SOL_SOCKET, SO_PASSCRED },	  /* closer.c: the drain's end */
	{ SOL_IP, IP_FREEBIND },	  /* broker sockets */
	{ SOL_IP, IP_MULTICAST_TTL },	  /* raw.c, per send to a group */
	{ SOL_IP, IP_MTU_DISCOVER },	  /* raw.c, per send */
	{ SOL_IP, IP_MULTICAST_LOOP },
	{ SOL_IPV6, IPV6_FREEBIND },
	{ SOL_IPV6, IPV6_MTU_DISCOVER },  /* raw6.c, per send */
	{ SOL_IPV6, IPV6_MULTICAST_LOOP },
	{ SOL_IPV6, IPV6_MTU },
	{ SOL_IPV6, IPV6_FLOWLABEL_MGR }, /* raw6.c */
	{ SOL_RAW, ICMP_FILTER },	  /* raw_listen() */
	{ IPPROTO_ICMPV6, ICMP6_FILTER },
};

static int add_sockopts(scmp_filter_ctx ctx)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(sockopts) / sizeof(sockopts[0]); i++) {
		struct scmp_arg_cmp c[2] = {
			ARG32(1, sockopts[i].level), ARG32(2, sockopts[i].name),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(setsockopt), 2, c);
	}
	return rc;
}

/* Lists of calls allowed whatever their arguments. */
static int add_list(scmp_filter_ctx ctx, const int *nrs, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		rc = rc ? rc : add(ctx, nrs[i], 0, NULL);
	return rc;
}

#define ADD_LIST(ctx, a) add_list((ctx), (a), sizeof(a) / sizeof((a)[0]))

/* Memory: never executable (but valgrind's translations are). */
static int add_memory(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp noexec = ARGMASK(2, PROT_EXEC, 0);
	int rc;

	unsigned n = RUNNING_ON_VALGRIND ? 0 : 1;

	rc = add(ctx, SCMP_SYS(mmap), n, &noexec);
	return rc ? rc : add(ctx, SCMP_SYS(mprotect), n, &noexec);
}

/*
 * New sockets, all with protocol 0: UDP for the route probes, AF_UNIX
 * datagrams for if_nametoindex() and syslog, rtnetlink for getifaddrs();
 * data pairs.  No raw socket, no TCP; ping sockets in broker mode only,
 * of the group kept for them.
 */
static int add_sockets(scmp_filter_ctx ctx, bool ping_sockets)
{
	static const struct { int family, type, protocol; } kinds[] = {
		{ AF_INET, SOCK_DGRAM, 0 }, { AF_INET6, SOCK_DGRAM, 0 },
		{ AF_UNIX, SOCK_DGRAM, 0 }, { AF_NETLINK, SOCK_RAW, 0 },
		{ AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
		{ AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6 },
	};
	struct scmp_arg_cmp pair[3] = {
		ARG32(0, AF_UNIX), ARGMASK(1, 0xf, SOCK_SEQPACKET), ARG32(2, 0),
	};
	size_t n = sizeof(kinds) / sizeof(kinds[0]) - (ping_sockets ? 0 : 2);
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct scmp_arg_cmp c[3] = {
			ARG32(0, kinds[i].family),
			ARGMASK(1, 0xf, (uint64_t)kinds[i].type),
			ARG32(2, kinds[i].protocol),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(socket), 3, c);
	}
	return rc ? rc : add(ctx, SCMP_SYS(socketpair), 3, pair);
}

/* Calls allowed with one argument among a few values. */
static int add_values(scmp_filter_ctx ctx, int nr, unsigned arg,
		      const unsigned long *v, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct scmp_arg_cmp c = ARG32(arg, v[i]);

		rc = rc ? rc : add(ctx, nr, 1, &c);
	}
	return rc;
}

/*
 * The state arena of each client process (a sealed memfd, its token from
 * getrandom()); if_nametoindex() and
 * if_indextoname(); the checks of filter_apply() and a signal to itself
 * (the SIGSYS handler's, abort()'s).
 */
static int add_misc(scmp_filter_ctx ctx)
{
	static const unsigned long memfd[] = { MFD_CLOEXEC | MFD_ALLOW_SEALING };
	static const unsigned long fcntls[] = { F_GETFL, F_SETFL, F_ADD_SEALS };
	static const unsigned long ioctls[] = { SIOCGIFINDEX, SIOCGIFNAME };
	static const unsigned long prctls[] = { PR_GET_SECCOMP,
						PR_GET_NO_NEW_PRIVS };
	const unsigned long self[] = { (unsigned long)getpid() };
	int rc = add_values(ctx, SCMP_SYS(memfd_create), 1, memfd, 1);

	static const unsigned long grnd[] = { 0 };

	rc = rc ? rc : add_values(ctx, SCMP_SYS(fcntl), 1, fcntls, 3);
	rc = rc ? rc : add_values(ctx, SCMP_SYS(getrandom), 2, grnd, 1);
	rc = rc ? rc : add_values(ctx, SCMP_SYS(ioctl), 1, ioctls, 2);
	rc = rc ? rc : add_values(ctx, SCMP_SYS(prctl), 0, prctls, 2);
	return rc ? rc : add_values(ctx, SCMP_SYS(tgkill), 0, self, 1);
}

/* Files: reading the config file through its directory's handle,
 * removing the socket through its own. */
static int add_files(scmp_filter_ctx ctx, const struct filter_plan *plan)
{
	const int cloexec_flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				  O_NONBLOCK | O_LARGEFILE;
	int rc = 0;

	if (plan->config_dir >= 0) {
		struct scmp_arg_cmp c[2] = {
			ARG32(0, plan->config_dir),
			ARGMASK(2, 0xffffffffULL & ~(uint64_t)cloexec_flags, 0),
		};

		rc = add(ctx, SCMP_SYS(openat), 2, c);
	}
	if (!rc && SANITIZED) {	/* a report's symbolizer reads files */
		struct scmp_arg_cmp c = ARGMASK(2, 0xffffffffULL &
			~(uint64_t)(cloexec_flags | O_DIRECTORY), 0);

		rc = add(ctx, SCMP_SYS(openat), 1, &c);
	}
	if (!rc && plan->socket_dir >= 0) {
		struct scmp_arg_cmp c[2] = { ARG32(0, plan->socket_dir),
					     ARG32(2, 0) };

		rc = add(ctx, SCMP_SYS(unlinkat), 2, c);
	}
	return rc;
}

static int build_rules(scmp_filter_ctx ctx, const struct filter_plan *plan)
{
	int rc = ADD_LIST(ctx, plain);

	rc = rc ? rc : add_sockopts(ctx);
	if (!rc && RUNNING_ON_VALGRIND)
		rc = ADD_LIST(ctx, for_valgrind);
	if (!rc && SANITIZED)
		rc = ADD_LIST(ctx, for_sanitizer);
	rc = rc ? rc : add_memory(ctx);
	rc = rc ? rc : add_sockets(ctx, plan->ping_sockets);
	rc = rc ? rc : add_misc(ctx);
	/* bpf(): the map commands of guard.c on the maps it holds (loading
	 * or attaching a program needs the capabilities dropped already). */
	for (size_t i = 0; plan->bpf_maps && i < guard_nbpf_cmds; i++) {
		struct scmp_arg_cmp c = ARG32(0, guard_bpf_cmds[i]);

		rc = rc ? rc : add(ctx, SCMP_SYS(bpf), 1, &c);
	}
	/* Valgrind's bpf() wrapper reads the map's key and value sizes from
	 * /proc/self/fdinfo (its own open(), read-only). */
	if (plan->bpf_maps && RUNNING_ON_VALGRIND) {
		struct scmp_arg_cmp c = ARGMASK(1, O_ACCMODE, O_RDONLY);

		rc = rc ? rc : add(ctx, SCMP_SYS(open), 1, &c);
	}
	return rc ? rc : add_files(ctx, plan);
}

int filter_apply(const struct filter_plan *plan, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if (trap_install(err, errlen))
		return -1;
	/* Valgrind 3.19 lacks seccomp(2) and says so in its log: use
	 * prctl(PR_SET_SECCOMP) there (libseccomp's API level 1). */
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(1);
	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (!ctx) {
		snprintf(err, errlen, "sandbox: seccomp_init failed");
		return -1;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP);
	/* Every thread (closer.h's, if any) under the same filter. */
	if (!rc && plan->threads)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!rc)
		rc = build_rules(ctx, plan);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc) {
		snprintf(err, errlen, "sandbox: loading the seccomp filter: %s",
			 strerror(-rc));
		return -1;
	}
	/* Fail closed: the filter must be in force now. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2 ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		snprintf(err, errlen, "sandbox: the seccomp filter is not in "
			 "force after loading it");
		return -1;
	}
	return 0;
}

