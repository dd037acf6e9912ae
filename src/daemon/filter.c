#include "daemon/filter.h"

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
	{ SOL_SOCKET, SO_BROADCAST },	  /* the route probes */
	{ SOL_SOCKET, SO_LINGER },	  /* closer.c: a passed socket */
	{ SOL_IP, IP_FREEBIND },	  /* broker sockets */
	{ SOL_IP, IP_MULTICAST_TTL },	  /* raw.c, per send to a group */
	{ SOL_IPV6, IPV6_FREEBIND },
	{ SOL_IPV6, IPV6_MTU_DISCOVER },  /* raw6.c, per send */
	{ SOL_IPV6, IPV6_MULTICAST_LOOP },
	{ SOL_IPV6, IPV6_MTU },
	{ SOL_IPV6, 32 },		  /* IPV6_FLOWLABEL_MGR: raw6.c */
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

static int build_rules(scmp_filter_ctx ctx, const struct filter_plan *plan)
{
	const int cloexec_flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				  O_NONBLOCK | O_LARGEFILE;
	int rc = 0;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		rc = rc ? rc : add(ctx, plain[i], 0, NULL);
	rc = rc ? rc : add_sockopts(ctx);
	for (size_t i = 0; RUNNING_ON_VALGRIND &&
			   i < sizeof(for_valgrind) / sizeof(for_valgrind[0]); i++)
		rc = rc ? rc : add(ctx, for_valgrind[i], 0, NULL);
	for (size_t i = 0; SANITIZED &&
			   i < sizeof(for_sanitizer) / sizeof(for_sanitizer[0]); i++)
		rc = rc ? rc : add(ctx, for_sanitizer[i], 0, NULL);

	/* Memory: never executable (but valgrind's translations are). */
	if (RUNNING_ON_VALGRIND) {
		rc = rc ? rc : add(ctx, SCMP_SYS(mmap), 0, NULL);
		rc = rc ? rc : add(ctx, SCMP_SYS(mprotect), 0, NULL);
	} else {
		struct scmp_arg_cmp noexec = ARGMASK(2, PROT_EXEC, 0);

		rc = rc ? rc : add(ctx, SCMP_SYS(mmap), 1, &noexec);
		rc = rc ? rc : add(ctx, SCMP_SYS(mprotect), 1, &noexec);
	}
	/* New sockets, all with protocol 0: UDP for the route probes,
	 * AF_UNIX datagrams for if_nametoindex() and syslog, rtnetlink for
	 * getifaddrs(); data pairs.  No raw or ping socket, no TCP. */
	{
		static const struct { int family, type; } kinds[] = {
			{ AF_INET, SOCK_DGRAM }, { AF_INET6, SOCK_DGRAM },
			{ AF_UNIX, SOCK_DGRAM }, { AF_NETLINK, SOCK_RAW },
		};

		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			struct scmp_arg_cmp c[3] = {
				ARG32(0, kinds[i].family),
				ARGMASK(1, 0xf, (uint64_t)kinds[i].type),
				ARG32(2, 0),
			};

			rc = rc ? rc : add(ctx, SCMP_SYS(socket), 3, c);
		}
	}
	/* Broker mode: kernel ping sockets, of the group kept for them. */
	for (int i = 0; plan->ping_sockets && i < 2; i++) {
		struct scmp_arg_cmp c[3] = {
			ARG32(0, i ? AF_INET6 : AF_INET),
			ARGMASK(1, 0xf, SOCK_DGRAM),
			ARG32(2, i ? IPPROTO_ICMPV6 : IPPROTO_ICMP),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(socket), 3, c);
	}
	{
		struct scmp_arg_cmp c[3] = {
			ARG32(0, AF_UNIX), ARGMASK(1, 0xf, SOCK_SEQPACKET),
			ARG32(2, 0),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(socketpair), 3, c);
	}
	/* The shared page of each socket: a sealed memfd. */
	{
		struct scmp_arg_cmp c = ARG32(1, MFD_CLOEXEC | MFD_ALLOW_SEALING);

		rc = rc ? rc : add(ctx, SCMP_SYS(memfd_create), 1, &c);
	}
	{
		static const int cmds[] = { F_GETFL, F_SETFL, F_ADD_SEALS };

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			struct scmp_arg_cmp c = ARG32(1, cmds[i]);

			rc = rc ? rc : add(ctx, SCMP_SYS(fcntl), 1, &c);
		}
	}
	/* if_nametoindex(), if_indextoname() */
	{
		static const unsigned long reqs[] = { SIOCGIFINDEX, SIOCGIFNAME };

		for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
			struct scmp_arg_cmp c = ARG32(1, reqs[i]);

			rc = rc ? rc : add(ctx, SCMP_SYS(ioctl), 1, &c);
		}
	}
	/* Files: reading the config file through its directory's handle,
	 * removing the socket through its own. */
	if (plan->config_dir >= 0) {
		struct scmp_arg_cmp c[2] = {
			ARG32(0, plan->config_dir),
			ARGMASK(2, 0xffffffffULL & ~(uint64_t)cloexec_flags, 0),
		};

		rc = rc ? rc : add(ctx, SCMP_SYS(openat), 2, c);
	}
	if (SANITIZED) {	/* a report's symbolizer reads files */
		struct scmp_arg_cmp c = ARGMASK(2, 0xffffffffULL &
			~(uint64_t)(cloexec_flags | O_DIRECTORY), 0);

		rc = rc ? rc : add(ctx, SCMP_SYS(openat), 1, &c);
	}
	if (plan->socket_dir >= 0) {
		struct scmp_arg_cmp c[2] = { ARG32(0, plan->socket_dir),
					     ARG32(2, 0) };

		rc = rc ? rc : add(ctx, SCMP_SYS(unlinkat), 2, c);
	}
	/* The checks below; a signal to itself (the SIGSYS handler's,
	 * abort()'s). */
	{
		struct scmp_arg_cmp a = ARG32(0, PR_GET_SECCOMP),
				    b = ARG32(0, PR_GET_NO_NEW_PRIVS),
				    k = ARG32(0, getpid());

		rc = rc ? rc : add(ctx, SCMP_SYS(prctl), 1, &a);
		rc = rc ? rc : add(ctx, SCMP_SYS(prctl), 1, &b);
		rc = rc ? rc : add(ctx, SCMP_SYS(tgkill), 1, &k);
	}
	return rc;
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

