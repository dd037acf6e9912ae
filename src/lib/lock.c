/* SPDX-License-Identifier: ISC */
#include "lib/lock.h"

#include <linux/kcmp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t locks[LOCK_COUNT] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
_Static_assert(LOCK_COUNT == 6, "one initializer per lock");

/* The default TLS model: libpingsock.so may be dlopen()ed.  The preload,
 * whose signal handlers read it, is loaded at start, where every model
 * is static TLS and no read allocates. */
static __thread int depth;

void lock_enter(void)
{
	depth++;
}

void lock_leave(void)
{
	depth--;
}

/* The thread made itself a descriptor table of its own (lock_unshared). */
static __thread bool unshared;

bool lock_held(void)
{
	return depth > 0 || unshared;
}

void lock_unshared(void)
{
	unshared = true;
}

void lock_take(enum lock_id id)
{
	depth++;
	pthread_mutex_lock(&locks[id]);
}

void lock_give(enum lock_id id)
{
	pthread_mutex_unlock(&locks[id]);
	depth--;
}

/* The process whose memory this is: set at load and in a fork() child.
 * A child that shares the memory (vfork(), posix_spawn(), clone() with
 * CLONE_VM) runs no fork handler and has a pid of its own. */
static atomic_int owner;

bool lock_borrowed(void)
{
	pid_t me = getpid(), o = atomic_load_explicit(&owner,
						     memory_order_relaxed);

	if (me == o)
		return false;
	/* A child that no fork handler ran in: one that shares the memory
	 * (KCMP_VM), or one with a copy of it (_Fork(), clone() without
	 * CLONE_VM), whose copy is its own from now on, as after fork().
	 * (Where kcmp() is refused, the latter: as before there was this
	 * test.) */
	if (syscall(SYS_kcmp, me, o, KCMP_VM, 0, 0) == 0)
		return true;
	atomic_store_explicit(&owner, me, memory_order_relaxed);
	return false;
}

/* fork() calls made, counted while every lock is held (state.c). */
static atomic_uint forks;

unsigned lock_forks(void)
{
	return atomic_load(&forks);
}

static void before_fork(void)
{
	for (int i = 0; i < LOCK_COUNT; i++)
		pthread_mutex_lock(&locks[i]);
	atomic_fetch_add(&forks, 1);
}

static void after_fork(void)
{
	for (int i = LOCK_COUNT - 1; i >= 0; i--)
		pthread_mutex_unlock(&locks[i]);
}

static void after_fork_child(void)
{
	atomic_store_explicit(&owner, getpid(), memory_order_relaxed);
	after_fork();
}

/* At load (libpingsock.so, the preload) or start (a static program):
 * before any thread of the program can fork. */
__attribute__((constructor)) static void lock_setup(void)
{
	atomic_store_explicit(&owner, getpid(), memory_order_relaxed);
	pthread_atfork(before_fork, after_fork, after_fork_child);
}
