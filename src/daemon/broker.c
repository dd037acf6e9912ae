/* SPDX-License-Identifier: ISC */
#include "daemon/broker.h"

#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/privdrop.h"
#include "daemon/rangekeep.h"
#include "engine/psock.h"

#define BROKER_TRIES 64	/* binds tried for an automatic identifier */

static int ping_proto(int family)
{
	return family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
}

static int resolve_group(const struct policy *p, gid_t user_gid, gid_t *gid,
			 char *err, size_t errlen)
{
	const struct group *gr;
	char *end;
	unsigned long v;

	if (!p->broker_group[0]) {
		*gid = user_gid;
		return 0;
	}
	gr = getgrnam(p->broker_group);
	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	errno = 0;
	v = strtoul(p->broker_group, &end, 10);
	if (errno || *end || v >= (gid_t)-1) {
		snprintf(err, errlen, "broker_group %s: no such group",
			 p->broker_group);
		return -1;
	}
	*gid = (gid_t)v;
	return 0;
}

/*
 * Before the claim the range is closed, so even root gets EACCES from a
 * kernel that has the socket kind, and EAFNOSUPPORT or EPROTONOSUPPORT
 * from one that has not.
 */
static bool kernel_has(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, ping_proto(family));

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno == EACCES;
}

/* With the range claimed, can the group really make one? */
static bool group_can(int family, gid_t gid)
{
	gid_t was = getegid();
	int fd;

	if (setegid(gid) != 0)
		return false;
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, ping_proto(family));
	if (fd >= 0)
		close(fd);
	if (setegid(was) != 0) {
		log_err("setegid back to %u: %s", (unsigned)was,
			strerror(errno));
		exit(1);
	}
	return fd >= 0;
}

static int plan_broker(const struct policy *p, uid_t user_uid,
		       gid_t user_gid, const char *user_name,
		       struct broker_plan *plan, char *err, size_t errlen)
{
	char range[64];

	/* The range will admit this group only: anyone else in it could
	 * make kernel ping sockets behind the daemon's back. */
	if (resolve_group(p, user_gid, &plan->gid, err, errlen) ||
	    privdrop_group_alone(plan->gid, user_uid, user_name,
				 "broker mode: the broker group", err, errlen))
		return -1;
	if (!kernel_has(AF_INET)) {
		snprintf(err, errlen, "broker mode: this kernel has no IPv4 "
			 "ping sockets");
		return -1;
	}
	if (rangekeep_claim(plan->gid, err, errlen))
		return -1;
	plan->v4 = group_can(AF_INET, plan->gid);
	plan->v6 = kernel_has(AF_INET6) && group_can(AF_INET6, plan->gid);
	if (!plan->v4) {
		rangekeep_read(range, sizeof(range));
		snprintf(err, errlen, "broker mode: gid %u still cannot make "
			 "ping sockets with net.ipv4.ping_group_range \"%s\"",
			 (unsigned)plan->gid, range);
		return -1;
	}
	return 0;
}

int broker_setup(const struct policy *p, uid_t user_uid, gid_t user_gid,
		 const char *user_name, struct broker_plan *plan, char *err,
		 size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	plan->gid = user_gid;
	if (p->mode == POLICY_RELAY)
		return 0;
	if (plan_broker(p, user_uid, user_gid, user_name, plan, err,
			errlen) == 0) {
		log_info("broker mode: kernel ping sockets for IPv4%s, made "
			 "as gid %u", plan->v6 ? " and IPv6" : " (IPv6 by relay)",
			 (unsigned)plan->gid);
		return 0;
	}
	if (p->mode == POLICY_BROKER)
		return -1;
	log_info("mode auto: relay, since %s", err);
	memset(plan, 0, sizeof(*plan));
	plan->gid = user_gid;
	return 0;
}

static int new_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, ping_proto(family));

	return fd < 0 ? -errno : fd;
}

static int set_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) ? -errno : 0;
}

/* What bind() looks at, onto a new socket, as the client's had it. */
static int apply_opts(int fd, int family, const struct broker_bindopts *o)
{
	int rc = 0;

	if (o->ifindex)
		rc = set_int(fd, SOL_SOCKET, SO_BINDTOIFINDEX, o->ifindex);
	if (!rc && o->freebind)
		rc = set_int(fd, family == AF_INET6 ? SOL_IPV6 : SOL_IP,
			     family == AF_INET6 ? IPV6_FREEBIND : IP_FREEBIND,
			     1);
	return rc;
}

/* sa with its port (sin_port, sin6_port: the same place) set to ident. */
static void with_port(uint8_t *copy, const uint8_t *sa, uint32_t len,
		      uint16_t ident)
{
	uint16_t port = htons(ident);

	memcpy(copy, sa, len);
	memcpy(copy + offsetof(struct sockaddr_in, sin_port), &port,
	       sizeof(port));
}

/*
 * Bind fd to sa with the identifier ident, SO_REUSEADDR off meanwhile
 * unless the client asked for it with an identifier its own sockets hold
 * (broker_bindopts.share): else the kernel refuses one that any socket
 * holds, ours or not.
 */
static int bind_one(int fd, const uint8_t *sa, uint32_t len, uint16_t ident,
		    bool reuse)
{
	uint8_t copy[sizeof(struct sockaddr_storage)];

	with_port(copy, sa, len, ident);
	if (set_int(fd, SOL_SOCKET, SO_REUSEADDR, reuse) != 0 ||
	    bind(fd, (const struct sockaddr *)copy, len) != 0)
		return -errno;
	return 0;
}

/* An identifier of the rover's that ident_ok accepts and the kernel
 * gives; the kernel's errno for anything but EADDRINUSE. */
static int bind_any(int fd, const uint8_t *sa, uint32_t len,
		    const struct broker_pick *pick, uint16_t *ident)
{
	int tries = 0;

	for (long n = 0; n < 65536 && tries < BROKER_TRIES; n++) {
		uint16_t id = ++*pick->rover;
		int rc;

		if (id == 0 || !pick->ident_ok(pick->ctx, id))
			continue;
		tries++;
		rc = bind_one(fd, sa, len, id, false);
		if (rc == 0) {
			*ident = id;
			return 0;
		}
		if (rc != -EADDRINUSE)
			return rc;
	}
	return -EADDRINUSE;
}

int broker_bind(int family, const struct broker_bindopts *o,
		const uint8_t *sa, uint32_t len,
		const struct broker_pick *pick, int *fd, uint16_t *ident)
{
	int want = broker_sa_ident(sa, len), s, rc;

	if (want < 0 || len > sizeof(struct sockaddr_storage))
		return -EINVAL;
	s = new_socket(family);
	if (s < 0)
		return s;
	rc = apply_opts(s, family, o);
	if (!rc && want > 0) {
		rc = bind_one(s, sa, len, (uint16_t)want,
			      o->reuse && o->share);
		*ident = (uint16_t)want;
	} else if (!rc) {
		rc = bind_any(s, sa, len, pick, ident);
	}
	/* The kernel's default for a ping socket, or the client's. */
	if (!rc)
		rc = set_int(s, SOL_SOCKET, SO_REUSEADDR, o->reuse);
	if (rc) {
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

int broker_sa_ident(const uint8_t *sa, uint32_t len)
{
	uint16_t port;

	if (len < sizeof(struct sockaddr_in))
		return -1;
	memcpy(&port, sa + offsetof(struct sockaddr_in, sin_port),
	       sizeof(port));
	return ntohs(port);
}
