/*
 * hostenv - what the engine asks of the host (struct ps_env): address
 * types from the kernel's FIB over rtnetlink, the route and source address
 * a connect() would get (an unconnected UDP socket asked to connect), the
 * default TTL, and the identifiers the kernel's own ping sockets hold.
 * Everything is opened before privileges are dropped.
 */
#ifndef PSD_HOSTENV_H
#define PSD_HOSTENV_H

#include <stdint.h>

#include "engine/psock.h"

struct hostenv;

struct hostenv *hostenv_open(char *err, size_t errlen);
void hostenv_close(struct hostenv *h);
const struct ps_env *hostenv_env(struct hostenv *h);

/*
 * Re-read /proc/net/icmp (icmp6 for AF_INET6): a bitmap (8192 bytes) of
 * the identifiers the kernel's own ping sockets are bound to.  Returns 0
 * or -1.
 */
int hostenv_kernel_idents(struct hostenv *h, int family, uint8_t *bitmap);

#endif
