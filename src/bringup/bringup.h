/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bring-up lab's internals that tests look at: the steps a creator
 * takes, and a trace of when it takes each.
 */
#ifndef NXSIM_BRINGUP_BRINGUP_H
#define NXSIM_BRINGUP_BRINGUP_H

#include <stdint.h>

#include <nxsim/bringup.h>

/* One step of a modelled kernel path (docs/bringup.md, "Paths"). */
enum nxsim__bringup_step {
	NXSIM__ST_CPU,		 /* run on a CPU for a time */
	NXSIM__ST_WAKE,		 /* a sleeping task is woken and gets a CPU */
	NXSIM__ST_SLEEP,	 /* the VMM holds the VM */
	NXSIM__ST_MUTEX_LOCK,	 /* cgroup_lock() */
	NXSIM__ST_MUTEX_UNLOCK,	 /* cgroup_unlock() */
	NXSIM__ST_RSS_ENTER,	 /* rcu_sync_enter() of percpu_down_write() */
	NXSIM__ST_WRITE_LOCK,	 /* the rest of percpu_down_write() */
	NXSIM__ST_WRITE_UNLOCK,	 /* percpu_up_write(), with rcu_sync_exit() */
	NXSIM__ST_READ_LOCK,	 /* percpu_down_read() in copy_process() */
	NXSIM__ST_READ_UNLOCK,	 /* percpu_up_read() */
	NXSIM__ST_SRCU_SYNC,	 /* synchronize_srcu() in kvm_destroy_vm() */
	NXSIM__ST_WORKER_BEGIN,	 /* kvm_vm_create_worker_thread() entered */
	NXSIM__ST_WORKER_END,	 /* ... and returned */
	NXSIM__ST_OP_DONE,	 /* the ioctl (or the hold) returned */
	NXSIM__ST_CPUSET_LOCK,	 /* percpu_down_write(&cpuset_rwsem) */
	NXSIM__ST_CPUSET_UNLOCK, /* percpu_up_write(&cpuset_rwsem) */
	NXSIM__ST_RCU_BARRIER,	 /* rcu_barrier() in kvm_mmu_uninit_tdp_mmu() */
};

/* What a creator op is doing. */
enum nxsim__bringup_op {
	NXSIM__OP_CREATE,
	NXSIM__OP_VCPU,
	NXSIM__OP_RUN,
	NXSIM__OP_HOLD,
	NXSIM__OP_DESTROY,
};

/**
 * struct nxsim__bringup_trace - creator @creator starts step @step of op @op
 *	for VM @vm at virtual time @ns (OP_DONE: the op ended at @ns)
 */
struct nxsim__bringup_trace {
	unsigned int creator;
	unsigned int vm;
	enum nxsim__bringup_op op;
	enum nxsim__bringup_step step;
	uint64_t ns;
};

typedef void (*nxsim__bringup_trace_fn)(void *arg,
					const struct nxsim__bringup_trace *t);

/* nxsim_bringup_run(), calling @fn at every step. */
int nxsim__bringup_run_traced(const struct nxsim_bringup_config *cfg,
			      struct nxsim_bringup_result *res,
			      nxsim__bringup_trace_fn fn, void *arg);

#endif /* NXSIM_BRINGUP_BRINGUP_H */
