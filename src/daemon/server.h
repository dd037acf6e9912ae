/* SPDX-License-Identifier: ISC */
/*
 * server - pingsockd's event loop: the listener, one connection per client
 * process, one data socketpair per ping socket, the raw ICMP socket, and
 * signals.  It never blocks on a client: every client descriptor is
 * non-blocking, a client that does not take its datagrams loses them (as a
 * full receive buffer would), one that sends a malformed request is
 * disconnected.
 */
#ifndef PSD_SERVER_H
#define PSD_SERVER_H

#include <stdbool.h>

#include "daemon/serverconf.h"

/*
 * Run until SIGTERM or SIGINT.  Takes ownership of everything in conf.
 * Returns the process exit status.
 */
int server_run(struct server_conf *conf);

/*
 * Read and parse a config file; on error fills err ("FILE:LINE: why").
 * strict: as the daemon reads it, root's file through checked directories
 * (sandbox_fopen_config()).
 */
int server_load_config(const char *path, bool strict, struct policy *p,
		       char *err, size_t errlen);

#ifdef PSD_FUZZ
/* The fuzzing harness's way in (server.c). */
struct server;
struct server *server_fuzz_new(struct server_conf *conf);
int server_fuzz_connect(struct server *s, int fd);
void server_fuzz_turn(struct server *s);
void server_fuzz_free(struct server *s);
#endif

#endif
