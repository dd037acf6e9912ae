/* SPDX-License-Identifier: ISC */
/*
 * serverconf - what main.c hands the server (server.h): everything opened
 * and decided at start-up, while still root.
 */
#ifndef PSD_SERVERCONF_H
#define PSD_SERVERCONF_H

#include <sys/types.h>

#include "daemon/broker.h"
#include "daemon/guard.h"
#include "daemon/hostenv.h"
#include "daemon/raw.h"
#include "daemon/raw6.h"
#include "engine/policy.h"

struct server_conf {
	int listen_fd;
	const char *socket_path;	/* removed at exit */
	const char *config_path;	/* NULL: defaults, SIGHUP does nothing */
	struct policy policy;
	/* The file's own, before the command line's overrides: a reload
	 * tells by it whether the file changed a start-up key. */
	struct policy from_file;
	struct raw *raw4;
	struct raw6 *raw6;	/* NULL: this host has no IPv6 */
	struct hostenv *host;
	struct broker_plan broker;	/* which families are brokered */
	struct guard *guard;	/* broker mode's BPF policy; NULL: none */
	unsigned long nofile;	/* the descriptor limit (RLIMIT_NOFILE) */
	uid_t self_uid;		/* the daemon's, after the drop */
};

#endif
