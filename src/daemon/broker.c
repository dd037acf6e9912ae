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

#define BROKER_TRIES 8

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

static int bound_ident(int fd, uint16_t *ident)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -errno;
	/* sin_port and sin6_port are at the same place. */
	memcpy(&port, (const uint8_t *)&ss + offsetof(struct sockaddr_in,
						       sin_port), sizeof(port));
	*ident = ntohs(port);
	return 0;
}

static int any_bind(int fd, int family)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int rc = family == AF_INET6
			 ? bind(fd, (struct sockaddr *)&sin6, sizeof(sin6))
			 : bind(fd, (struct sockaddr *)&sin, sizeof(sin));

	return rc ? -errno : 0;
}

static int new_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, ping_proto(family));

	return fd < 0 ? -errno : fd;
}

int broker_socket(int family, const struct pstab *tab, int *fd,
		  uint16_t *ident)
{
	int skipped[BROKER_TRIES], nskip = 0, rc = -EADDRINUSE;

	/* An identifier a relay socket holds is kept bound meanwhile, so
	 * that the kernel's rover moves on. */
	for (int i = 0; i < BROKER_TRIES; i++) {
		int s = new_socket(family);

		if (s < 0) {
			rc = s;
			break;
		}
		rc = any_bind(s, family);
		if (rc == 0)
			rc = bound_ident(s, ident);
		if (rc == 0 && !pstab_ident_used(tab, family, *ident)) {
			*fd = s;
			break;
		}
		if (rc) {
			close(s);
			break;
		}
		skipped[nskip++] = s;
		rc = -EADDRINUSE;
	}
	while (nskip)
		close(skipped[--nskip]);
	return rc;
}

/* Options of old that bind() looks at, onto s. */
static void copy_bind_options(int old, int s)
{
	static const struct { int level, name; } opts[] = {
		{ SOL_SOCKET, SO_REUSEADDR },
		{ SOL_SOCKET, SO_BINDTOIFINDEX },
		{ SOL_IP, IP_FREEBIND },
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		int v = 0;
		socklen_t len = sizeof(v);

		if (getsockopt(old, opts[i].level, opts[i].name, &v, &len) == 0 &&
		    v && setsockopt(s, opts[i].level, opts[i].name, &v,
				    sizeof(v)) != 0)
			log_debug("broker: copying option %d/%d: %s",
				  opts[i].level, opts[i].name, strerror(errno));
	}
}

int broker_rebind(int family, int old, const uint8_t *sa, uint32_t len,
		  int *fd, uint16_t *ident)
{
	int s = new_socket(family), rc;

	if (s < 0)
		return s;
	copy_bind_options(old, s);
	rc = bind(s, (const struct sockaddr *)sa, len) ? -errno : 0;
	if (rc == 0)
		rc = bound_ident(s, ident);
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
