// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gate: a user count and a closed flag under one mutex.  It stands in
 * for the file and module reference counts that keep the kernel's objects
 * alive while a syscall is inside them.  Closing from inside the gate would
 * wait for itself, so teardown calls close from outside.
 */
#include "core/gate.h"

void nxsim__gate_init(struct nxsim__gate *g, int err)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->drained, NULL);
	g->users = 0;
	g->closed = false;
	g->err = err;
}

void nxsim__gate_destroy(struct nxsim__gate *g)
{
	pthread_cond_destroy(&g->drained);
	pthread_mutex_destroy(&g->lock);
}

int nxsim__gate_enter(struct nxsim__gate *g)
{
	int rc = 0;

	pthread_mutex_lock(&g->lock);
	if (g->closed)
		rc = g->err;
	else
		g->users++;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

void nxsim__gate_exit(struct nxsim__gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (--g->users == 0 && g->closed)
		pthread_cond_broadcast(&g->drained);
	pthread_mutex_unlock(&g->lock);
}

bool nxsim__gate_close(struct nxsim__gate *g)
{
	bool was_open;

	pthread_mutex_lock(&g->lock);
	was_open = !g->closed;
	g->closed = true;
	while (g->users)
		pthread_cond_wait(&g->drained, &g->lock);
	pthread_mutex_unlock(&g->lock);
	return was_open;
}

bool nxsim__gate_is_closed(struct nxsim__gate *g)
{
	bool closed;

	pthread_mutex_lock(&g->lock);
	closed = g->closed;
	pthread_mutex_unlock(&g->lock);
	return closed;
}
