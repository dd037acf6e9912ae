/* SPDX-License-Identifier: ISC */
#include "lib/env.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[ENV_COUNT] = {
	[ENV_BACKEND] = "PINGSOCK_BACKEND",
	[ENV_SOCKET] = "PINGSOCK_SOCKET",
	[ENV_IDENT] = "PINGSOCK_IDENT",
	[ENV_RAW] = "PINGSOCK_RAW",
};

/* Written once, by env_freeze() at load, before the program's threads;
 * copies, since the program may overwrite its environment's strings. */
static bool frozen[ENV_COUNT];
static char *value[ENV_COUNT];

const char *env_get(enum env_var v)
{
	return frozen[v] ? value[v] : secure_getenv(names[v]);
}

void env_freeze(void)
{
	for (int v = 0; v < ENV_COUNT; v++) {
		const char *s = secure_getenv(names[v]);

		value[v] = s ? strdup(s) : NULL;
		/* Without memory for the copy, read it when needed. */
		frozen[v] = !s || value[v];
	}
}
