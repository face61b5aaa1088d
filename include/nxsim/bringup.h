/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * VM bring-up latency in kernel time.  A lab loads kvm.ko on a virtual
 * clock, creates background VMs, then lets K creator threads bring up M VMs
 * (KVM_CREATE_VM, KVM_CREATE_VCPU, the first KVM_RUN, optionally a hold and
 * the VM's destruction) on C modelled CPUs.  Every call goes through the
 * library's own VM paths; what those paths do (make a kthread worker at
 * KVM_CREATE_VM, a vhost task at the first KVM_RUN, no worker under
 * nx_huge_pages=never) is charged in modelled kernel time from a cost table,
 * with queueing on cgroup_mutex and cgroup_threadgroup_rwsem, seeded RCU
 * grace periods and queueing for CPU time.  docs/bringup.md describes the
 * model and the sources of every cost.
 *
 * Thread safety: every call is reentrant and safe from many threads; a
 * lab owns everything it uses and shares nothing with other labs.
 */
#ifndef NXSIM_BRINGUP_H
#define NXSIM_BRINGUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct nxsim_bringup_costs - the bring-up cost table
 * @create_vm_us: kvm_create_vm() and its fd, without the worker
 * @create_vcpu_us: KVM_CREATE_VCPU
 * @kvm_run_us: one KVM_RUN entry and exit
 * @destroy_vm_us: the last close of a VM, without the worker
 * @kthread_create_us: the creator's share of kthread_create_on_node()
 * @kthread_fork_us: kthreadd's copy_process() of a kernel thread
 * @kthread_exit_us: a kthread's exit after kthread_stop()
 * @wakeup_us: wake-up to running on an idle CPU
 * @wakeup_busy_us: mean extra wait when the woken task's CPU is busy
 * @cgroup_attach_us: cgroup_attach_task_all()'s work with the locks held
 * @vhost_create_us: vhost_task_create() and vhost_task_start()
 * @vhost_exit_us: vhost_task_stop() until the task has exited
 * @gp_jiffies: median of a grace period's length beyond the first
 *	force-quiescent-state wait, in jiffies
 * @gp_sigma: spread of that length (sigma of its logarithm)
 * @gp_load_gain: how much a fully busy host lengthens it (x(1 + gain*load))
 * @bg_vm_load: share of one CPU an idle background VM uses
 *
 * The stats set NXSIM_STATS_BRINGUP_COSTS describes its fields.
 */
struct nxsim_bringup_costs {
	double create_vm_us;
	double create_vcpu_us;
	double kvm_run_us;
	double destroy_vm_us;
	double kthread_create_us;
	double kthread_fork_us;
	double kthread_exit_us;
	double wakeup_us;
	double wakeup_busy_us;
	double cgroup_attach_us;
	double vhost_create_us;
	double vhost_exit_us;
	double gp_jiffies;
	double gp_sigma;
	double gp_load_gain;
	double bg_vm_load;
};

/** nxsim_bringup_costs_default() - fill @c with the default table. */
NXSIM_API void nxsim_bringup_costs_default(struct nxsim_bringup_costs *c);

/**
 * nxsim_bringup_cost_info() - the @idx-th entry of the table
 * @idx: index from 0
 * @name: receives its name (the field's), or NULL
 * @value: receives its default, or NULL
 * @source: receives where the default comes from, or NULL
 *
 * Return: 0, or -ENOENT past the end.
 */
NXSIM_API int nxsim_bringup_cost_info(unsigned int idx, const char **name,
				      double *value, const char **source);

/**
 * nxsim_bringup_costs_set() - set the entry named @name in @c to @value
 * @c: a cost table (nxsim_bringup_costs_default() fills one)
 * @name: an entry name, as nxsim_bringup_cost_info() answers it
 * @value: its new value
 * @why: receives a static description of what is wrong, on error (may be
 *	NULL)
 *
 * Return: 0; -EINVAL for a NULL @c or @name; -ENOENT for an unknown name;
 * -ERANGE for a value outside the entry's range (@why names the range).
 * On error @c is unchanged.
 */
NXSIM_API int nxsim_bringup_costs_set(struct nxsim_bringup_costs *c,
				      const char *name, double value,
				      const char **why);

/* What separates the "name=value" pairs of nxsim_bringup_costs_parse(). */
#define NXSIM_BRINGUP_COSTS_SEPS ", \t\n"

/**
 * nxsim_bringup_costs_parse() - override entries of a cost table
 * @c: the table to change
 * @text: "name=value" pairs separated by NXSIM_BRINGUP_COSTS_SEPS
 * @why: receives a static description of what is wrong, on error (may be
 *	NULL)
 * @at: receives the byte offset in @text of the pair that is wrong, on
 *	error (may be NULL); the pair runs to the next separator
 *
 * All or nothing: on error @c is unchanged.
 *
 * Return: 0; -ENOENT for an unknown name; -EINVAL for a NULL @c or @text,
 * a pair without '=' or a value that is not a number; -ERANGE for a value
 * outside the entry's range (@why names the range).
 */
NXSIM_API int nxsim_bringup_costs_parse(struct nxsim_bringup_costs *c,
					const char *text, const char **why,
					size_t *at);

enum nxsim_bringup_policy {
	/* a kthread at KVM_CREATE_VM, attached to the creator's cgroups
	 * (1aa9b9572b10 to 6.12); profile 6.1 */
	NXSIM_BRINGUP_KTHREAD,
	/* a vhost task of the VMM at the first KVM_RUN (931656b9e2ff,
	 * 6.14); profile 6.14 */
	NXSIM_BRINGUP_VHOST,
	/* kvm.nx_huge_pages=never (0b210faf3373): no worker; profile 6.1 */
	NXSIM_BRINGUP_NEVER,
};

/** nxsim_bringup_policy_name() - "kthread", "vhost", "never" or NULL. */
NXSIM_API const char *
nxsim_bringup_policy_name(enum nxsim_bringup_policy policy);

/*
 * VMs of a lab, brought up and idle, each: a VM costs about 4.6 KiB while
 * the lab runs, so 2 x 65536 VMs hold about 600 MiB.
 */
#define NXSIM_BRINGUP_MAX_VMS 65536u

/**
 * struct nxsim_bringup_config - one lab run
 * @policy: the worker policy
 * @profile: kernel profile instead of the policy's own, or NULL
 * @cpus: modelled CPUs (C), at least 1
 * @hz: CONFIG_HZ (100, 250, 300 or 1000); 0 means 250
 * @bg_vms: idle background VMs made before the burst (each with its
 *	worker, if the policy makes one at creation); at most
 *	NXSIM_BRINGUP_MAX_VMS
 * @creators: creator threads (K), at least 1
 * @vms: VMs brought up (M), 1 to NXSIM_BRINGUP_MAX_VMS; creator i brings
 *	up VMs i, i+K...
 * @hold_ns: 0: the VMs stay up; otherwise each VM is destroyed @hold_ns
 *	after its first KVM_RUN, before its creator starts the next one
 * @hold_jitter_ns: a seeded extra hold, uniform in [0, @hold_jitter_ns)
 * @favordynmods: the cgroup2 favordynmods mount option (or
 *	CONFIG_CGROUP_FAVOR_DYNMODS=y)
 * @worker_fail_nth: 0, or every n-th worker creation first fails with
 *	-ERESTARTNOINTR (a signal during copy_process()) and is retried
 * @seed: seeds every random draw
 * @costs: NULL for the defaults
 * @cpuset_rwsem: the worker's attach moves it between cpusets on a kernel
 *	whose cpuset_rwsem is a percpu rw-semaphore (1243dc518c9d, 5.4, until
 *	111cd11bbc54, 6.4, and its 6.1.y backport): cpuset_can_attach() and
 *	cpuset_attach() each take percpu_down_write(&cpuset_rwsem) inside
 *	the threadgroup write section (docs/bringup.md)
 * @no_tdp_mmu: kvm.tdp_mmu=0: the VMs use the legacy MMU, whose
 *	kvm_destroy_vm() has no rcu_barrier() (docs/bringup.md)
 */
struct nxsim_bringup_config {
	enum nxsim_bringup_policy policy;
	const char *profile;
	unsigned int cpus;
	unsigned int hz;
	unsigned int bg_vms;
	unsigned int creators;
	unsigned int vms;
	uint64_t hold_ns;
	uint64_t hold_jitter_ns;
	bool favordynmods;
	unsigned int worker_fail_nth;
	uint64_t seed;
	const struct nxsim_bringup_costs *costs;
	bool cpuset_rwsem;
	bool no_tdp_mmu;
};

/* funclatency's power-of-two buckets, in microseconds: bucket 0 holds 0-1,
 * bucket i > 0 holds 2^i to 2^(i+1) - 1. */
#define NXSIM_BRINGUP_HIST 32

/**
 * struct nxsim_bringup_stats - one latency over the VMs of a run, ns
 * @n: samples (VMs that had this step)
 * @p50: nearest-rank percentiles
 * @p95:
 * @p99:
 * @max:
 * @mean: rounded to the ns
 * @hist: funclatency histogram of the samples in microseconds
 *
 * Its fields but @hist are the stats set NXSIM_STATS_BRINGUP_LATENCY
 * (include/nxsim/stats.h).
 */
struct nxsim_bringup_stats {
	uint64_t n;
	uint64_t p50, p95, p99, max;
	uint64_t mean;
	uint64_t hist[NXSIM_BRINGUP_HIST];
};

/**
 * struct nxsim_bringup_result - what a lab run gave
 * @create: KVM_CREATE_VM, per VM
 * @worker: the worker's creation inside KVM_CREATE_VM
 *	(kvm_vm_create_worker_thread(), what funclatency timed), per VM
 * @first_run: the first KVM_RUN, retries included, per VM
 * @makespan_ns: from the burst's start to its last bring-up
 * @vms_per_s: VMs brought up per second of modelled time
 * @grace_periods: grace periods waited for: writers' synchronize_rcu(),
 *	rcu_sync_exit()'s call_rcu() (and its replays), and each destroy's
 *	rcu_barrier() that did not share another's, until the last bring-up
 *	ends
 * @attach_waits: cgroup attaches that waited for cgroup_mutex
 * @worker_failures: worker creations that failed (and were retried)
 * @create_ns: NULL, or receives each VM's KVM_CREATE_VM latency
 *	(@vms entries, set by the caller)
 * @first_run_ns: the same for the first KVM_RUN
 *
 * Its own counters, @makespan_ns to @worker_failures, are the stats set
 * NXSIM_STATS_BRINGUP_RESULT; @create, @worker and @first_run are each
 * NXSIM_STATS_BRINGUP_LATENCY.
 */
struct nxsim_bringup_result {
	struct nxsim_bringup_stats create, worker, first_run;
	uint64_t makespan_ns;
	double vms_per_s;
	uint64_t grace_periods;
	uint64_t attach_waits;
	uint64_t worker_failures;
	uint64_t *create_ns;
	uint64_t *first_run_ns;
};

/**
 * nxsim_bringup_run() - run a lab
 * @cfg: the configuration
 * @res: receives the results; its @create_ns and @first_run_ns are read
 *
 * Deterministic: the same @cfg gives the same @res.
 *
 * Return: 0; -EINVAL for a bad configuration or a profile without
 * nx_huge_pages=never for the never policy; -ENOMEM.
 */
NXSIM_API int nxsim_bringup_run(const struct nxsim_bringup_config *cfg,
				struct nxsim_bringup_result *res);

/** nxsim_bringup_bucket() - the funclatency bucket of @ns. */
NXSIM_API unsigned int nxsim_bringup_bucket(uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_BRINGUP_H */
