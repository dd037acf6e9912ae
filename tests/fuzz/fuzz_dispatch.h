/* SPDX-License-Identifier: ISC */
/*
 * fuzz_dispatch.h - what fuzz_dispatch.c shares with the packets it makes
 * for the network (dispatch_net.c).
 */
#ifndef FUZZ_DISPATCH_H
#define FUZZ_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

/* The input, read from the front; past its end every read is 0. */
struct fin {
	const uint8_t *p;
	size_t n, off;
};

uint8_t fin_u8(struct fin *in);
uint16_t fin_u16(struct fin *in);
uint32_t fin_u32(struct fin *in);
/* len bytes into dst (zeros past the end); how many the input had. */
size_t fin_bytes(struct fin *in, uint8_t *dst, size_t len);

/* An invariant broke: say which, and abort(). */
void fuzz_fail(const char *why) __attribute__((noreturn));

/*
 * Packets from the network for the daemon's raw sockets (fake_inject):
 * net_answer() answers the last request the daemon sent for family (an
 * Echo Reply or an ICMP error quoting it, as the input chooses, perhaps
 * with a byte changed); net_forge() is any bytes from the input;
 * net_loopback() the plain reply, at once (fake_on_send()).
 */
void net_answer(struct fin *in, int family);
void net_forge(struct fin *in);
void net_loopback(int family);

/* The ICMP checksum of msg with the IPv6 pseudo-header of src, dst. */
uint16_t net_csum6(const uint8_t *src, const uint8_t *dst, const uint8_t *msg,
		   size_t len);

#endif
