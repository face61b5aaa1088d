/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bring-up lab's shared state: one run (struct nxsim__bringup), its
 * creator tasks and the programs of steps they run, split over three
 * files:
 *
 *   paths.c    the kernel paths of a VM's life as steps, and the
 *              interpreter that runs a task's steps (CPU work, wake-ups,
 *              and the lock and grace-period steps it hands to shims.c);
 *   shims.c    shims of cgroup_mutex, cgroup_threadgroup_rwsem with its
 *              rcu_sync, synchronize_rcu(), mmu_notifier's
 *              synchronize_srcu() and rcu_barrier();
 *   bringup.c  the lab: host, background VMs, creators' ops, the event
 *              loop on the virtual clock, and the results.
 *
 * costs.c holds the cost table; the only tie to kvm is the host's
 * bring-up hook (enum nxsim__bringup_event in kvm/host.h), which vm.c and
 * worker.c call.
 *
 * Left out: what each file says it leaves out.
 */
#ifndef NXSIM_BRINGUP_BRINGUP_INTERNAL_H
#define NXSIM_BRINGUP_BRINGUP_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include <nxsim/bringup.h>
#include <nxsim/rng.h>

#include "bringup/bringup.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "kvm/host.h"

#define NXSIM__BRINGUP_MAX_STEPS 64

struct nxsim__bringup_step_rec {
	enum nxsim__bringup_step op;
	uint64_t ns; /* CPU and SLEEP: how long */
};

/* The longest path of one report (the kthread worker with cpuset_rwsem). */
#define NXSIM__BRINGUP_PATH_MAX 24
#define NXSIM__BRINGUP_NR_EVENTS (NXSIM__BRINGUP_TDP_MMU_UNINIT + 1)

/* The steps of one report's kernel path, built once per lab. */
struct nxsim__bringup_path {
	struct nxsim__bringup_step_rec steps[NXSIM__BRINGUP_PATH_MAX];
	unsigned int n;
};

/* What a task does when its event comes. */
enum nxsim__bringup_resume {
	NXSIM__RESUME_NEXT,	/* the step it waited in is done */
	NXSIM__RESUME_CPU_DONE, /* its CPU work is done: give the CPU back */
	NXSIM__RESUME_GP_DONE,	/* its synchronize_rcu() returned */
	NXSIM__RESUME_OP,	/* start the next op */
};

/* The time costs of the table, in ns. */
struct nxsim__bringup_costs_ns {
	uint64_t create_vm, create_vcpu, kvm_run, destroy_vm;
	uint64_t kthread_create, kthread_fork, kthread_exit;
	uint64_t wakeup, cgroup_attach, vhost_create, vhost_exit;
};

struct nxsim__bringup;

/**
 * struct nxsim__bringup_task - one creator thread (and the kernel threads it
 *	waits for)
 * @lab: its lab
 * @seq: arming order of its event, breaks ties between equal times
 * @idx: creator index
 * @vm_idx: the VM it brings up
 * @op: what it is doing
 * @resume: what its event means
 * @gp_rss: the rcu_sync whose grace period it waits for (GP_DONE)
 * @now: its own time, ahead of the clock while it runs ahead
 * @op_start: when the op started
 * @worker_begin: when kvm_vm_create_worker_thread() was entered, or 0
 * @worker_end: when it returned
 * @steps: the op's program
 * @nsteps: its length
 * @pc: the step it is at
 * @vm: the VM
 * @vcpu: its vCPU
 * @wait: link on the queue it waits in
 */
struct nxsim__bringup_task {
	struct nxsim__bringup *lab;
	uint64_t seq;
	unsigned int idx;
	unsigned int vm_idx;
	enum nxsim__bringup_op op;
	enum nxsim__bringup_resume resume;
	struct nxsim__rcu_sync *gp_rss;
	uint64_t now;
	uint64_t op_start;
	uint64_t worker_begin, worker_end;
	struct nxsim__bringup_step_rec steps[NXSIM__BRINGUP_MAX_STEPS];
	unsigned int nsteps, pc;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
	TAILQ_ENTRY(nxsim__bringup_task) wait;
};

TAILQ_HEAD(nxsim__bringup_queue, nxsim__bringup_task);

/* The gp_state values of kernel/rcu/sync.c. */
enum nxsim__gp_state { GP_IDLE, GP_ENTER, GP_PASSED, GP_EXIT, GP_REPLAY };

/**
 * struct nxsim__rcu_sync - struct rcu_sync of one percpu rw-semaphore
 * @lab: its lab
 * @gp_state: gp_state
 * @gp_count: gp_count
 * @gp_q: writers waiting in rcu_sync_enter() for GP_PASSED
 * @cb: the call_rcu() of rcu_sync_exit()
 * @gp_end: when the grace period it waits for ends (GP_ENTER: the first
 *	writer's synchronize_rcu(); GP_EXIT, GP_REPLAY: @cb's)
 */
struct nxsim__rcu_sync {
	struct nxsim__bringup *lab;
	enum nxsim__gp_state gp_state;
	unsigned int gp_count;
	struct nxsim__bringup_queue gp_q;
	struct nxsim__timer cb;
	uint64_t gp_end;
};

/**
 * struct nxsim__bringup - one run
 * @cfg: its configuration
 * @c: the cost table
 * @ns: its times in ns
 * @rng: every random draw
 * @clock: the virtual clock
 * @host: kvm.ko
 * @load: background load of each CPU, 0 to 1
 * @jiffy_ns: one jiffy
 * @first_fqs: jiffies_till_first_fqs
 * @horizon: no event of another task comes before this time
 * @events: tasks with an event, a binary heap by (time, seq)
 * @nr_events: how many
 * @seq: events armed so far
 * @cur: the task whose library call is running, or NULL
 * @err: the first error, which ends the run
 * @cpus_busy: CPUs running a task's work
 * @cpu_q: tasks waiting for a CPU
 * @mutex_owner: cgroup_mutex's owner
 * @mutex_q: its waiters
 * @block: cgroup_threadgroup_rwsem.block (a writer holds it)
 * @readers: its active readers
 * @writer: a writer waiting for the readers to leave
 * @read_q: readers waiting for the writer to leave
 * @rss: cgroup_threadgroup_rwsem.rss
 * @cpuset_rss: cpuset_rwsem.rss (cpuset_rwsem_percpu)
 * @srcu_idle: from when mmu_notifier's srcu is idle again: the end of
 *	its last grace period plus exp_holdoff
 * @barrier_start: when the last rcu_barrier() started its callbacks
 * @barrier_end: ... and when it returned (or will)
 * @tasks: the creators
 * @worker_made: worker creations so far (for worker_fail_nth)
 * @worker_made_now: the running library call made a worker
 * @vms: the creators' VMs, by index, until destroyed
 * @create: per-VM latencies, ns (@worker: 0 for none)
 * @worker:
 * @first_run:
 * @scratch: room for sorting one of them
 * @last_done: when the last bring-up finished
 * @paths: each report's steps, [event][the call failed]
 * @res: counters of the result
 * @trace: test hook, or NULL
 * @trace_arg: its argument
 */
struct nxsim__bringup {
	const struct nxsim_bringup_config *cfg;
	struct nxsim_bringup_costs c;
	struct nxsim__bringup_costs_ns ns;
	struct nxsim_rng rng;
	struct nxsim_clock *clock;
	struct nxsim_host *host;
	double load;
	uint64_t jiffy_ns;
	unsigned int first_fqs;
	uint64_t horizon;
	struct nxsim__bringup_task **events;
	unsigned int nr_events;
	uint64_t seq;
	struct nxsim__bringup_task *cur;
	int err;
	unsigned int cpus_busy;
	struct nxsim__bringup_queue cpu_q;
	struct nxsim__bringup_task *mutex_owner;
	struct nxsim__bringup_queue mutex_q;
	bool block;
	unsigned int readers;
	struct nxsim__bringup_task *writer;
	struct nxsim__bringup_queue read_q;
	struct nxsim__rcu_sync rss, cpuset_rss;
	uint64_t srcu_idle;
	uint64_t barrier_start, barrier_end;
	struct nxsim__bringup_task *tasks;
	unsigned int worker_made;
	bool worker_made_now;
	struct nxsim_vm **vms;
	uint64_t *create, *worker, *first_run, *scratch;
	uint64_t last_done;
	struct nxsim__bringup_path paths[NXSIM__BRINGUP_NR_EVENTS][2];
	struct nxsim_bringup_result *res;
	nxsim__bringup_trace_fn trace;
	void *trace_arg;
};

static inline uint64_t nxsim__bringup_us(double v)
{
	return (uint64_t)llround(v * 1e3);
}

/* Uniform in (0, 1]. */
static inline double nxsim__bringup_uniform(struct nxsim__bringup *lab)
{
	return (double)((nxsim_rng_next(&lab->rng) >> 11) + 1) * 0x1.0p-53;
}

/* Append step @op (@ns long) to @t's program. */
static inline void nxsim__bringup_push(struct nxsim__bringup_task *t,
				       enum nxsim__bringup_step op, uint64_t ns)
{
	if (WARN_ON(t->nsteps >= NXSIM__BRINGUP_MAX_STEPS))
		return;
	t->steps[t->nsteps++] = (struct nxsim__bringup_step_rec){ op, ns };
}

/* bringup.c: arm @t to resume at @when (push it on the heap). */
void nxsim__bringup_task_arm(struct nxsim__bringup_task *t, uint64_t when,
			     enum nxsim__bringup_resume resume);

/* paths.c */
void nxsim__bringup_task_wake(struct nxsim__bringup_task *t, uint64_t now);
bool nxsim__bringup_task_advance(struct nxsim__bringup_task *t);
void nxsim__bringup_cpu_release(struct nxsim__bringup *lab, uint64_t now);
void nxsim__bringup_paths_init(struct nxsim__bringup *lab);
void nxsim__bringup_charge(void *model, enum nxsim__bringup_event ev, int rc);

/* shims.c */
void nxsim__bringup_sync_init(struct nxsim__bringup *lab, bool favordynmods);
bool nxsim__cgroup_lock(struct nxsim__bringup_task *t);
void nxsim__cgroup_unlock(struct nxsim__bringup_task *t);
bool nxsim__rcu_sync_enter(struct nxsim__bringup_task *t,
			   struct nxsim__rcu_sync *rss);
void nxsim__rcu_sync_exit(struct nxsim__rcu_sync *rss, uint64_t now);
void nxsim__rcu_sync_func(struct nxsim__rcu_sync *rss, uint64_t now);
bool nxsim__percpu_down_write(struct nxsim__bringup_task *t);
void nxsim__percpu_up_write(struct nxsim__bringup *lab, uint64_t now);
bool nxsim__percpu_down_read(struct nxsim__bringup_task *t);
void nxsim__percpu_up_read(struct nxsim__bringup_task *t);
uint64_t nxsim__synchronize_srcu(struct nxsim__bringup *lab, uint64_t now);
uint64_t nxsim__bringup_rcu_barrier(struct nxsim__bringup *lab, uint64_t now);

#endif /* NXSIM_BRINGUP_BRINGUP_INTERNAL_H */
