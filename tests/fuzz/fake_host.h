/* SPDX-License-Identifier: ISC */
/*
 * fake_host - what pingsockd needs root or the host for, faked for the
 * in-process harness of its dispatch (fuzz_dispatch.c): the raw ICMP
 * sockets, the host's routes and addresses, /proc/net/icmp, broker
 * mode's kernel ping sockets, the config file, and the clock.  Each fake
 * implements the daemon's own header (raw.h, hostenv.h, broker.h, ...);
 * this header is the harness's side of them.
 */
#ifndef FUZZ_FAKE_HOST_H
#define FUZZ_FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/hostenv.h"
#include "daemon/raw.h"
#include "daemon/raw6.h"

/* Once, before anything else. */
void fake_init(void);
/* Forget every fake's state between inputs: at the end of one (after
 * the server's teardown), and at the start of the next. */
void fake_reset(void);

/* The raw sockets: a SOCK_DGRAM socketpair each, whose far end the
 * harness writes packets into ("the network"). */
struct raw *fake_raw_new(void);
struct raw6 *fake_raw6_new(void);

/* What arrives with a packet besides its bytes. */
struct fake_meta {
	uint32_t ifindex;
	struct icmp6_meta m6;	/* IPv6 only */
};

/*
 * A packet from the network for the raw socket of family (IPv4: IP
 * header and ICMP; IPv6: the ICMPv6 message).  Dropped, as the kernel's
 * filter drops it, while the daemon does not listen.  0, or -1 if it was
 * dropped.
 */
int fake_inject(int family, const struct fake_meta *m, const uint8_t *pkt,
		size_t len);

/* The last request the daemon sent (raw_send, raw6_send): false if none. */
#define FAKE_SENT_MAX 2048
struct fake_sent {
	struct ps_sendinfo info;
	uint8_t msg[FAKE_SENT_MAX];
	size_t len;		/* bytes kept in msg */
};
bool fake_last_sent(int family, struct fake_sent *out);
/* The next raw send fails with err (-errno), once. */
void fake_raw_fail_next(int err);
/* Called after every send that the fake raw socket accepted (loopback:
 * the harness may answer it at once); NULL: none. */
void fake_on_send(void (*fn)(int family));
/* Sends accepted since fake_reset(). */
unsigned fake_sends(void);

struct hostenv *fake_hostenv_new(void);
/* An identifier a kernel ping socket of someone else holds, for the next
 * reads of /proc/net/icmp (family AF_INET or AF_INET6). */
void fake_kernel_ident(int family, uint16_t ident);

/* The next broker_bind() fails with err (-errno), once. */
void fake_broker_fail_next(int err);
/* Kernel sockets broker_bind() made since fake_reset(). */
unsigned fake_broker_made(void);

/* The text sandbox_fopen_config() returns next (copied). */
void fake_config_text(const char *text, size_t len);

/* The clock the daemon reads (CLOCK_MONOTONIC, time()): moves only when
 * the harness says so. */
void fake_clock_advance(uint64_t ns);

#endif
