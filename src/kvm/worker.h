/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-VM NX-huge-page recovery worker.
 */
#ifndef NXSIM_KVM_WORKER_H
#define NXSIM_KVM_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <nxsim/vm.h>

#include "core/clock.h"

struct nxsim_vm;

/**
 * struct nxsim__worker - kvm->arch.nx_huge_page_recovery_thread
 * @vm: the VM it recovers
 * @lock: serialises changes of @state, @woken and @deadline_ns; @state and
 *	@woken are also read locklessly (READ_ONCE)
 * @state: running, killed or stopped
 * @woken: a wake-up arrived while it was not sleeping
 * @last_jiffies: nx_huge_page_last; written only by the worker itself
 * @created_ns: clock time of creation
 * @deadline_ns: next self-wake, NXSIM_NEVER for "until woken"
 * @wakes: wake-ups delivered
 * @passes: recovery passes run (written by the worker alone)
 * @timer: virtual clock: the schedule_timeout() of the loop
 * @thread: real clock: the task
 * @cond: real clock: its wait queue
 */
struct nxsim__worker {
	struct nxsim_vm *vm;
	pthread_mutex_t lock;
	enum nxsim_worker_state state;
	bool woken;
	uint64_t last_jiffies;
	uint64_t created_ns;
	uint64_t deadline_ns;
	_Atomic uint64_t wakes;
	_Atomic uint64_t passes;
	struct nxsim__timer timer;
	pthread_t thread;
	pthread_cond_t cond;
};

/*
 * Create and start @vm's worker and publish it in vm->worker.
 * Return: 0, -ENOMEM, or the error injected for this creation.
 */
int nxsim__worker_create(struct nxsim_vm *vm);
/* Has the VM's worker been made (and published)? */
bool nxsim__worker_exists(struct nxsim_vm *vm);
/* kvm_wake_nx_recovery_thread(): a no-op without a live worker. */
void nxsim__kvm_wake_nx_recovery_thread(struct nxsim_vm *vm);
/* Stop at VM destruction (kthread_stop / vhost_task_stop). */
void nxsim__worker_stop(struct nxsim_vm *vm);
/* Free a stopped (or never started) worker with the VM's handle. */
void nxsim__worker_release(struct nxsim_vm *vm);
/* SIGKILL a vhost-task worker. */
int nxsim__worker_kill(struct nxsim_vm *vm);
void nxsim__worker_info(struct nxsim_vm *vm, struct nxsim_worker_info *info);

#endif /* NXSIM_KVM_WORKER_H */
