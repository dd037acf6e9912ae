/* SPDX-License-Identifier: ISC */
/*
 * env - the PINGSOCK_* variables the library obeys.  The library reads
 * them when it needs them (a program may set them before its first
 * call), with secure_getenv(): none in a setuid or file-capability
 * program.  The shim freezes them when it is loaded (env_freeze(), from
 * its constructor): the program it is loaded into may clear or replace
 * its environment before it makes its first socket, and what the user
 * asked for with the program's command line must still hold then.
 */
#ifndef PS_LIB_ENV_H
#define PS_LIB_ENV_H

enum env_var {
	ENV_BACKEND,	/* PINGSOCK_BACKEND */
	ENV_SOCKET,	/* PINGSOCK_SOCKET */
	ENV_IDENT,	/* PINGSOCK_IDENT */
	ENV_RAW,	/* PINGSOCK_RAW */
	ENV_COUNT
};

/* The variable's value (NULL: unset), as frozen if it was. */
const char *env_get(enum env_var v);
/* From now on, env_get() answers what the variables are now. */
void env_freeze(void);

#endif
