// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gate: a user count with a closed bit, in one atomic word.  It stands
 * in for the file and module reference counts that keep the kernel's
 * objects alive while a syscall is inside them: entering and leaving are
 * one atomic add each, as fget() and fput() are.  A call that enters a
 * closed gate backs out again.  Closing sets the bit and sleeps on the
 * mutex and condvar until the count is 0; the caller that brings a
 * closed gate's count to 0 wakes it under the mutex, so the wake cannot
 * fall between the closer's look at the count and its sleep.  Closing
 * from inside the gate would wait for itself, so teardown calls close from
 * outside.
 */
#include "core/gate.h"

#define GATE_CLOSED 0x80000000u

void nxsim__gate_init(struct nxsim__gate *g, int err)
{
	/* the initializers: the attribute-less inits, without the calls */
	g->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	g->drained = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	g->state = 0;
	g->err = err;
}

void nxsim__gate_destroy(struct nxsim__gate *g)
{
	pthread_cond_destroy(&g->drained);
	pthread_mutex_destroy(&g->lock);
}

/* Leave: the last one out of a closed gate wakes the closer. */
static void gate_leave(struct nxsim__gate *g)
{
	if (__atomic_sub_fetch(&g->state, 1, __ATOMIC_ACQ_REL) == GATE_CLOSED) {
		pthread_mutex_lock(&g->lock);
		pthread_cond_broadcast(&g->drained);
		pthread_mutex_unlock(&g->lock);
	}
}

int nxsim__gate_enter(struct nxsim__gate *g)
{
	if (__atomic_fetch_add(&g->state, 1, __ATOMIC_ACQUIRE) & GATE_CLOSED) {
		gate_leave(g);
		return g->err;
	}
	return 0;
}

void nxsim__gate_exit(struct nxsim__gate *g)
{
	gate_leave(g);
}

bool nxsim__gate_close(struct nxsim__gate *g)
{
	bool was_open;

	pthread_mutex_lock(&g->lock);
	was_open =
		!(__atomic_fetch_or(&g->state, GATE_CLOSED, __ATOMIC_ACQ_REL) &
		  GATE_CLOSED);
	while (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != GATE_CLOSED)
		pthread_cond_wait(&g->drained, &g->lock);
	pthread_mutex_unlock(&g->lock);
	return was_open;
}

bool nxsim__gate_is_closed(struct nxsim__gate *g)
{
	return __atomic_load_n(&g->state, __ATOMIC_ACQUIRE) & GATE_CLOSED;
}
