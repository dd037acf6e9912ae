/* SPDX-License-Identifier: ISC */
#include "daemon/guardnf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "daemon/bpfload.h"
#include "daemon/guard.h"
#include "daemon/log.h"

/* Linux 6.4's netfilter programs and links; this libbpf and these headers
 * may predate them. */
#define PROG_TYPE_NETFILTER 32
#define ATTACH_NETFILTER 45
#define NFPROTO_IPV4_ 2
#define NFPROTO_IPV6_ 10
#define NF_INET_LOCAL_IN_ 1
#define NF_IP_DEFRAG 1		/* BPF_F_NETFILTER_IP_DEFRAG */
/* After conntrack and mangle, before filter.  A hook takes one link of a
 * priority: the next daemon's links go at the other one of the pair, and
 * the last daemon's are let go once they are in. */
#define NF_PRIORITY (-50)

struct guardnf {
	struct bpf_object *obj;
	int drops;
};

/* union bpf_attr's link_create, with its netfilter member (6.4). */
struct nf_link_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint32_t pf, hooknum;
	int32_t priority;
	uint32_t nf_flags;
};

/* union bpf_attr as BPF_LINK_CREATE reads it: the rest of it 0. */
union nf_attr {
	struct nf_link_attr nf;
	char whole[128];
};

/* The link, at the first priority of the pair that is free. */
static int link_create(union nf_attr *a)
{
	int fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, a, sizeof(*a));

	if (fd < 0 && errno == EBUSY) {
		a->nf.priority = NF_PRIORITY - 1;
		fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, a, sizeof(*a));
	}
	return fd;
}

/* A link of prog at LOCAL_IN for pf, pinned as path in place of the last
 * daemon's (attached before that one goes: no moment without). */
static int link_pinned(struct bpf_object *obj, const char *prog, int pf,
		       const char *path, char *err, size_t errlen)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	union nf_attr a;
	char tmp[PATH_MAX];
	int fd;

	if (!p) {
		snprintf(err, errlen, "BPF object: no program %s", prog);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.nf.prog_fd = (uint32_t)bpf_program__fd(p);
	a.nf.attach_type = ATTACH_NETFILTER;
	a.nf.pf = (uint32_t)pf;
	a.nf.hooknum = NF_INET_LOCAL_IN_;
	a.nf.priority = NF_PRIORITY;
	/* IPv6 fragments reach LOCAL_IN one by one and are put together
	 * only after it: reassembled first (Linux 6.6).  IPv4 needs nothing:
	 * ip_local_deliver() reassembles before LOCAL_IN, and the flag would
	 * register defragmentation at PRE_ROUTING and LOCAL_OUT for every
	 * IPv4 packet of the namespace (measured: +75 ns an echo). */
	a.nf.nf_flags = pf == NFPROTO_IPV6_ ? NF_IP_DEFRAG : 0;
	fd = link_create(&a);
	if (fd < 0 && errno == EINVAL && a.nf.nf_flags) {
		log_warn("broker: no reassembly before the ICMP errors' check "
			 "(Linux before 6.6): fragmented IPv6 errors pass it");
		a.nf.nf_flags = 0;
		fd = link_create(&a);
	}
	if (fd < 0) {
		snprintf(err, errlen, "netfilter link for %s: %s", prog,
			 strerror(errno));
		return -1;
	}
	/* Pinned beside, then renamed over the old pin: the old link goes
	 * only once the new one is attached and pinned. */
	snprintf(tmp, sizeof(tmp), "%s_new", path);	/* no dot: bpffs */
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp) || rename(tmp, path)) {
		snprintf(err, errlen, "pinning %s: %s", path, strerror(errno));
		unlink(tmp);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

struct guardnf *guardnf_start(const char *pin_dir, int users, int idents,
			      char *err, size_t errlen)
{
	const struct bpfload_reuse reuse[] = {
		{ "users", users }, { "idents", idents },
	};
	struct guardnf *n = calloc(1, sizeof(*n));
	char p4[PATH_MAX], p6[PATH_MAX];
	size_t len;
	const void *elf = guard_nf_elf(&len);

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	n->obj = bpfload_open(elf, len, "guard_nf", pin_dir,
			      PROG_TYPE_NETFILTER, ATTACH_NETFILTER, reuse, 2,
			      err, errlen);
	snprintf(p4, sizeof(p4), "%s/nf_link4", pin_dir);
	snprintf(p6, sizeof(p6), "%s/nf_link6", pin_dir);
	if (!n->obj ||
	    link_pinned(n->obj, "ps_nf_in4", NFPROTO_IPV4_, p4, err, errlen) ||
	    link_pinned(n->obj, "ps_nf_in6", NFPROTO_IPV6_, p6, err, errlen)) {
		guardnf_free(n);
		return NULL;
	}
	n->drops = bpf_object__find_map_fd_by_name(n->obj, "nf_drops");
	return n;
}

uint64_t guardnf_drops(const struct guardnf *n)
{
	uint32_t zero = 0;
	uint64_t v = 0;

	if (n && n->drops >= 0)
		bpf_map_lookup_elem(n->drops, &zero, &v);
	return v;
}

void guardnf_free(struct guardnf *n)
{
	if (!n)
		return;
	if (n->obj)
		bpf_object__close(n->obj);
	free(n);
}
