/* SPDX-License-Identifier: ISC */
/*
 * policy - the daemon's configuration file, parsed from text.
 *
 *   # comment
 *   groups = LOW HIGH     gids allowed to open sockets, with the meaning of
 *                         net.ipv4.ping_group_range ("1 0": nobody);
 *                         default: every gid
 *   min_interval = MS     least time between two requests of one socket;
 *                         a send that comes sooner waits (EAGAIN with
 *                         MSG_DONTWAIT); default 0, no limit
 *   ident_keep = yes|no   whether PINGSOCK_IDENT=keep may bind a socket to
 *                         the identifier its program wrote; default yes
 *   raw_compat = yes|no   whether a client may open the Echo-only
 *                         emulation of a raw ICMP socket
 *                         (PINGSOCK_RAW=echo, see engine/psraw.h);
 *                         default no: such a socket() gets EPERM, as an
 *                         unprivileged raw socket does from the kernel
 *   max_sockets = N       sockets one uid may hold open (EMFILE past it;
 *                         in broker mode every kernel socket handed out
 *                         counts while it exists); default 8192, 0: no
 *                         limit
 *   max_connections = N   connections one uid may hold to the daemon (one
 *                         a process that uses it); past it a new one is
 *                         closed at once; default 4096, 0: no limit
 *   max_idents = N        identifiers one uid may hold (a raw-compat
 *                         socket holds up to 256); past it a bind gets
 *                         EADDRINUSE, an automatic one EAGAIN; default
 *                         4096, 0: no limit
 *   rate = N              requests per second one uid may send, and
 *   burst = N             how many of them may come at once (a token
 *                         bucket); a send past it waits (EAGAIN with
 *                         MSG_DONTWAIT); defaults 0 (no limit, as the
 *                         kernel's socket) and 100
 *   max_request = BYTES   largest ICMP message a client may send (EMSGSIZE
 *                         past it); default 65535, the kernel's own limit
 *   mode = relay|broker|auto
 *                         how sockets are served (read at start-up only):
 *                         relay, the daemon carries every packet; broker,
 *                         it hands out kernel ping sockets it made (see
 *                         pingsockd(8)); auto, broker where the kernel has
 *                         ping sockets and the broker group is usable,
 *                         relay otherwise; default relay
 *   broker_group = NAME|GID
 *                         the group that alone may make kernel ping
 *                         sockets in broker mode; no user may have it;
 *                         default: the daemon user's primary group
 *   relay_uids = LOW HIGH uids served by relay even in broker mode, so that
 *                         the per-packet limits (rate, min_interval,
 *                         max_request, deny/allow) apply to them; default
 *                         "1 0", nobody
 *   nice = N              the daemon's scheduling priority, -20 to 19 (read
 *                         at start-up only); default: as it was started
 *   deny = NET/LEN        destinations refused (EACCES from sendto and
 *   allow = NET/LEN       connect), IPv4 or IPv6, one network per line,
 *                         any number of lines: a destination in a denied
 *                         network is refused; when there are allow lines,
 *                         one outside all of them is refused too; the
 *                         longest matching network decides between an
 *                         allow and a deny line
 *
 * A malformed file is refused as a whole with "FILE:LINE: reason", so a
 * reload with a bad file keeps the policy in force.
 */
#ifndef PS_POLICY_H
#define PS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/addr.h"

#define POLICY_MAX_NETS 256

struct policy_net {
	struct ps_addr addr;	/* masked to plen */
	uint8_t plen;
	bool allow;
};

enum policy_mode { POLICY_RELAY, POLICY_BROKER, POLICY_AUTO };

#define POLICY_GROUP_MAX 64
#define POLICY_PATH_MAX 256
#define POLICY_PIN_DIR_DEFAULT "/sys/fs/bpf/pingsock"

struct policy {
	uint32_t gid_low, gid_high;
	enum policy_mode mode;
	char broker_group[POLICY_GROUP_MAX];	/* "": the user's group */
	uint32_t relay_uid_low, relay_uid_high;	/* low > high: none */
	uint32_t min_interval_ms;	/* between two sends of one socket */
	bool ident_keep;		/* WIRE_KEEPID allowed */
	bool raw_compat;		/* SOCK_RAW emulation allowed */
	uint32_t max_sockets;		/* per uid; 0: none */
	uint32_t max_connections;	/* per uid; 0: none */
	uint32_t max_idents;		/* per uid; 0: none */
	uint32_t rate, burst;		/* per uid; rate 0: none */
	uint32_t max_request;		/* bytes of ICMP */
	struct policy_net nets[POLICY_MAX_NETS];
	unsigned nnets;
	bool any_allow;			/* some line is an allow line */
	/* Broker mode's BPF guard (start-up only): bpf_guard, and where its
	 * cgroup ("": chosen) and pinned objects go. */
	bool bpf_guard;
	char bpf_cgroup[POLICY_PATH_MAX];
	char bpf_pin_dir[POLICY_PATH_MAX];
	int nice;			/* start-up only; POLICY_NICE_KEEP */
};

/* nice's default: the priority the daemon was started with, untouched. */
#define POLICY_NICE_KEEP 100

void policy_default(struct policy *p);

/*
 * A reload's new policy keeps what is read at start-up only (mode,
 * broker_group, bpf_guard, bpf_cgroup, bpf_pin_dir, nice: the daemon set
 * itself up by them, after --mode and the other options): copied from
 * now into p.
 */
void policy_keep_startup(struct policy *p, const struct policy *now);
/* Do a and b differ in those keys (the file now against the file at
 * start: a reload says so)? */
bool policy_startup_differs(const struct policy *a, const struct policy *b);

/*
 * Parse text (len bytes, need not be NUL-terminated).  On error returns -1
 * and writes "name:line: reason" into err; *p is left untouched.
 */
int policy_parse(struct policy *p, const char *text, size_t len,
		 const char *name, char *err, size_t errlen);

/* Does the policy set a per-packet key (rate, min_interval, max_request,
 * deny/allow), which only relay or broker mode's BPF guard enforce? */
bool policy_per_packet(const struct policy *p);

/* Is uid served by relay whatever the mode (relay_uids)? */
bool policy_uid_relayed(const struct policy *p, uint32_t uid);

/* A nice, -20 to 19 (setpriority(2)'s range; a sign only right before
 * the digits): 0 with *out set, or -1. */
int policy_nice_parse(const char *s, int *out);

/* "relay", "broker", "auto"; -1 for anything else. */
int policy_mode_parse(const char *s);
const char *policy_mode_name(enum policy_mode m);

/* May a socket send to (or connect to) dst? */
bool policy_dest_allowed(const struct policy *p, const struct ps_addr *dst);

/* The egid or any supplementary gid in range, as the kernel's ping_group_range. */
bool policy_gid_allowed(const struct policy *p, gid_t egid,
			const gid_t *groups, size_t ngroups);

#endif
