/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A gate counts the API calls inside an object so that teardown can close
 * the gate and wait for them to leave, the way an open file keeps a module
 * or a VM alive.  Calls that arrive after the gate closed get its error
 * (-ENODEV for an unloading host, -EBADF for a destroyed VM).
 */
#ifndef NXSIM_CORE_GATE_H
#define NXSIM_CORE_GATE_H

#include <pthread.h>
#include <stdbool.h>

struct nxsim__gate {
	pthread_mutex_t lock;	/* the closer's sleep */
	pthread_cond_t drained; /* the count reached 0 after closing */
	unsigned int state;	/* calls inside, and the closed bit (atomic) */
	int err;		/* what late calls get */
};

void nxsim__gate_init(struct nxsim__gate *g, int err);
void nxsim__gate_destroy(struct nxsim__gate *g);
/* Return: 0 inside, or the gate's error. */
int nxsim__gate_enter(struct nxsim__gate *g);
void nxsim__gate_exit(struct nxsim__gate *g);
/* Close and wait until nobody is inside.  Return: false if already closed. */
bool nxsim__gate_close(struct nxsim__gate *g);
bool nxsim__gate_is_closed(struct nxsim__gate *g);

#endif /* NXSIM_CORE_GATE_H */
