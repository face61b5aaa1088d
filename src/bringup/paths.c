// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up lab's kernel paths and the interpreter that runs them.
 *
 * The host's bring-up hook (nxsim__host_charge()) reports what each of
 * the library's calls did on a VM's path: KVM_CREATE_VM, a kthread worker
 * made by kvm_vm_create_worker_thread() (up to 6.12), a vhost task made at
 * the first KVM_RUN through call_once() and retried after a failure (6.14
 * on), no worker at all under nx_huge_pages=never, and, when a VM is
 * destroyed, the worker's stop and, with the TDP MMU, the rcu_barrier() of
 * kvm_mmu_uninit_tdp_mmu().  nxsim__bringup_charge() appends the steps that
 * kernel path takes, read from the 6.1 sources (kernel/kthread.c,
 * virt/kvm/kvm_main.c, kernel/cgroup/cgroup-v1.c, kernel/rcu/tree.c,
 * arch/x86/kvm/mmu/tdp_mmu.c; the vhost task from
 * kernel/vhost_task.c of 6.14; the cpuset_rwsem option from
 * kernel/cgroup/cpuset.c of 5.4 to 6.3), to the calling creator's
 * program; each path is built once per lab (it depends only on the costs
 * and the config).  nxsim__bringup_task_advance() runs the program:
 *
 *   - CPU work queues for the C modelled CPUs (FIFO);
 *   - a wake-up costs wakeup_us, plus, with the probability of the CPU's
 *     background load, an exponential wait of mean wakeup_busy_us;
 *   - the lock, rcu_sync and grace-period steps are shims.c's;
 *   - the steps that touch nothing shared run ahead of the clock while no
 *     other event can come first (the lab's horizon); otherwise the task
 *     arms an event in the lab (bringup.c) and waits.
 *
 * Left out: time slicing (a running task's CPU work is not stretched by
 * the load), CPU affinity and migration, the vhost task's own first run
 * (it runs beside the vCPU, not in its way), irqfd and memory set-up.
 */
#include <math.h>

#include "bringup/bringup_internal.h"
#include "core/compiler.h"

/* How long a woken task takes to run (try_to_wake_up() to running). */
static uint64_t wakeup_latency(struct nxsim__bringup *lab)
{
	uint64_t ns = lab->ns.wakeup;

	if (lab->load > 0 && nxsim__bringup_uniform(lab) <= lab->load)
		ns += nxsim__bringup_us(-lab->c.wakeup_busy_us *
					log(nxsim__bringup_uniform(lab)));
	return ns;
}

static void trace_step(struct nxsim__bringup_task *t,
		       enum nxsim__bringup_step step)
{
	struct nxsim__bringup_trace ev = { t->idx, t->vm_idx, t->op, step,
					   t->now };

	t->lab->trace(t->lab->trace_arg, &ev);
}

/* Wake @t, which slept in a queue, at @now: its step is done. */
void nxsim__bringup_task_wake(struct nxsim__bringup_task *t, uint64_t now)
{
	nxsim__bringup_task_arm(t, now + wakeup_latency(t->lab),
				NXSIM__RESUME_NEXT);
}

/* Give a CPU to @t at @now for its CPU step. */
static void cpu_run(struct nxsim__bringup_task *t, uint64_t now)
{
	t->lab->cpus_busy++;
	t->now = now;
	nxsim__bringup_task_arm(t, now + t->steps[t->pc].ns,
				NXSIM__RESUME_CPU_DONE);
}

void nxsim__bringup_cpu_release(struct nxsim__bringup *lab, uint64_t now)
{
	struct nxsim__bringup_task *next = TAILQ_FIRST(&lab->cpu_q);

	lab->cpus_busy--;
	if (next) {
		TAILQ_REMOVE(&lab->cpu_q, next, wait);
		cpu_run(next, now);
	}
}

/*
 * Run @t's program from its current step at t->now until it must wait.
 * Return true when the op's program is finished.
 */
bool nxsim__bringup_task_advance(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;
	bool traced = unlikely(lab->trace != NULL);
	unsigned int pc = t->pc, n = t->nsteps; /* no push while it runs */
	struct nxsim__bringup_step_rec *s;
	uint64_t end;

	for (; pc < n; pc++) {
		s = &t->steps[pc];
		if (traced)
			trace_step(t, s->op);
		switch (s->op) {
		case NXSIM__ST_CPU:
			if (lab->cpus_busy >= lab->cfg->cpus) {
				TAILQ_INSERT_TAIL(&lab->cpu_q, t, wait);
				goto wait;
			}
			end = t->now + s->ns;
			if (end >= lab->horizon) {
				t->pc = pc;
				cpu_run(t, t->now);
				return false;
			}
			t->now = end;
			break;
		case NXSIM__ST_WAKE:
		case NXSIM__ST_SLEEP:
			end = t->now + (s->op == NXSIM__ST_WAKE ?
						wakeup_latency(lab) :
						s->ns);
			if (end >= lab->horizon) {
				nxsim__bringup_task_arm(t, end,
							NXSIM__RESUME_NEXT);
				goto wait;
			}
			t->now = end;
			break;
		case NXSIM__ST_MUTEX_LOCK:
			if (!nxsim__cgroup_lock(t))
				goto wait;
			break;
		case NXSIM__ST_MUTEX_UNLOCK:
			nxsim__cgroup_unlock(t);
			break;
		case NXSIM__ST_RSS_ENTER:
			if (!nxsim__rcu_sync_enter(t, &lab->rss))
				goto wait;
			break;
		case NXSIM__ST_WRITE_LOCK:
			if (!nxsim__percpu_down_write(t))
				goto wait;
			break;
		case NXSIM__ST_WRITE_UNLOCK:
			nxsim__percpu_up_write(lab, t->now);
			break;
		case NXSIM__ST_READ_LOCK:
			if (!nxsim__percpu_down_read(t))
				goto wait;
			break;
		case NXSIM__ST_READ_UNLOCK:
			nxsim__percpu_up_read(t);
			break;
		case NXSIM__ST_SRCU_SYNC:
		case NXSIM__ST_RCU_BARRIER:
			end = s->op == NXSIM__ST_SRCU_SYNC ?
				      nxsim__synchronize_srcu(lab, t->now) :
				      nxsim__bringup_rcu_barrier(lab, t->now);
			if (end == t->now)
				break;
			end += wakeup_latency(lab);
			if (end >= lab->horizon) {
				nxsim__bringup_task_arm(t, end,
							NXSIM__RESUME_NEXT);
				goto wait;
			}
			t->now = end;
			break;
		case NXSIM__ST_WORKER_BEGIN:
			t->worker_begin = t->now;
			break;
		case NXSIM__ST_WORKER_END:
			t->worker_end = t->now;
			break;
		case NXSIM__ST_OP_DONE:
			break;
		case NXSIM__ST_CPUSET_LOCK:
			/* exclusive under cgroup_mutex, and the lab has no
			 * cpuset_rwsem readers: only its rcu_sync can wait */
			if (!nxsim__rcu_sync_enter(t, &lab->cpuset_rss))
				goto wait;
			break;
		case NXSIM__ST_CPUSET_UNLOCK:
			nxsim__rcu_sync_exit(&lab->cpuset_rss, t->now);
			break;
		}
	}
	t->pc = pc;
	return true;
wait:
	t->pc = pc;
	return false;
}

/* Append step @op (@ns long) to path @p. */
static void push(struct nxsim__bringup_path *p, enum nxsim__bringup_step op,
		 uint64_t ns)
{
	if (WARN_ON(p->n >= NXSIM__BRINGUP_PATH_MAX))
		return;
	p->steps[p->n++] = (struct nxsim__bringup_step_rec){ op, ns };
}

/* The kernel side of kthread_run() up to the new thread's first run. */
static void kthread_run(struct nxsim__bringup_path *p,
			const struct nxsim__bringup_costs_ns *n, bool failed)
{
	push(p, NXSIM__ST_CPU, n->kthread_create);
	push(p, NXSIM__ST_WAKE, 0); /* kthreadd */
	push(p, NXSIM__ST_READ_LOCK, 0);
	push(p, NXSIM__ST_CPU, n->kthread_fork);
	push(p, NXSIM__ST_READ_UNLOCK, 0);
	push(p, NXSIM__ST_WAKE, 0); /* the creator, from kthread_create() */
	if (failed)
		return;
	push(p, NXSIM__ST_WAKE, 0); /* the kthread, by wake_up_process() */
}

/*
 * cgroup_attach_task_all(): cgroup_lock(), cgroup_attach_lock(true), the
 * migration, unlock.  With cpuset_rwsem a percpu rw-semaphore, the
 * migration's cpuset_can_attach() and cpuset_attach() each take its write
 * side, inside the threadgroup write section (sem->block set), so a
 * grace period waited there holds every fork back.
 */
static void cgroup_attach_task_all(struct nxsim__bringup_path *p,
				   const struct nxsim__bringup_costs_ns *n,
				   bool cpuset)
{
	push(p, NXSIM__ST_MUTEX_LOCK, 0);
	push(p, NXSIM__ST_RSS_ENTER, 0);
	push(p, NXSIM__ST_WRITE_LOCK, 0);
	if (cpuset) {
		/* cpuset_can_attach(), then cpuset_attach() */
		push(p, NXSIM__ST_CPUSET_LOCK, 0);
		push(p, NXSIM__ST_CPUSET_UNLOCK, 0);
		push(p, NXSIM__ST_CPUSET_LOCK, 0);
	}
	push(p, NXSIM__ST_CPU, n->cgroup_attach);
	if (cpuset)
		push(p, NXSIM__ST_CPUSET_UNLOCK, 0);
	push(p, NXSIM__ST_WRITE_UNLOCK, 0);
	push(p, NXSIM__ST_MUTEX_UNLOCK, 0);
}

/* The steps of @ev's kernel path, @failed when the call failed. */
static void lc_path(struct nxsim__bringup_path *p,
		    const struct nxsim__bringup *lab,
		    enum nxsim__bringup_event ev, bool failed)
{
	const struct nxsim__bringup_costs_ns *n = &lab->ns;
	bool cpuset = lab->cfg->cpuset_rwsem;

	p->n = 0;
	switch (ev) {
	case NXSIM__BRINGUP_CREATE_VM:
		push(p, NXSIM__ST_CPU, n->create_vm);
		break;
	case NXSIM__BRINGUP_CREATE_VCPU:
		push(p, NXSIM__ST_CPU, n->create_vcpu);
		break;
	case NXSIM__BRINGUP_VCPU_RUN:
		push(p, NXSIM__ST_CPU, n->kvm_run);
		break;
	case NXSIM__BRINGUP_DESTROY_VM:
		/* kvm_destroy_vm() after kvm_arch_pre_destroy_vm() */
		push(p, NXSIM__ST_SRCU_SYNC, 0);
		push(p, NXSIM__ST_CPU, n->destroy_vm);
		break;
	case NXSIM__BRINGUP_KTHREAD_WORKER:
		/* kvm_vm_create_worker_thread() */
		push(p, NXSIM__ST_WORKER_BEGIN, 0);
		kthread_run(p, n, failed);
		if (!failed) {
			/* kvm_vm_worker_thread() until init_done */
			cgroup_attach_task_all(p, n, cpuset);
			push(p, NXSIM__ST_WAKE, 0); /* the creator */
		}
		push(p, NXSIM__ST_WORKER_END, 0);
		break;
	case NXSIM__BRINGUP_VHOST_WORKER:
		/* vhost_task_create(): copy_process() in the vCPU thread */
		push(p, NXSIM__ST_READ_LOCK, 0);
		push(p, NXSIM__ST_CPU, n->vhost_create);
		push(p, NXSIM__ST_READ_UNLOCK, 0);
		break;
	case NXSIM__BRINGUP_KTHREAD_STOP:
		/* kthread_stop(): the worker moves back to kthreadd's
		 * cgroups before it exits, and the closer waits for it. */
		push(p, NXSIM__ST_WAKE, 0);
		cgroup_attach_task_all(p, n, cpuset);
		push(p, NXSIM__ST_CPU, n->kthread_exit);
		push(p, NXSIM__ST_WAKE, 0);
		break;
	case NXSIM__BRINGUP_VHOST_STOP:
		push(p, NXSIM__ST_WAKE, 0);
		push(p, NXSIM__ST_CPU, n->vhost_exit);
		push(p, NXSIM__ST_WAKE, 0);
		break;
	case NXSIM__BRINGUP_TDP_MMU_UNINIT:
		push(p, NXSIM__ST_RCU_BARRIER, 0);
		break;
	}
}

/**
 * nxsim__bringup_paths_init() - build every report's path once for the lab
 * @lab: the lab, its costs in ns and its config set
 *
 * The paths depend only on the cost table and the config, so a report
 * copies a ready program instead of building it.
 */
void nxsim__bringup_paths_init(struct nxsim__bringup *lab)
{
	for (unsigned int ev = 0; ev < NXSIM__BRINGUP_NR_EVENTS; ev++)
		for (unsigned int failed = 0; failed < 2; failed++)
			lc_path(&lab->paths[ev][failed], lab, ev, failed);
}

/* The host's bring-up hook: append @ev's kernel path to the caller. */
void nxsim__bringup_charge(void *model, enum nxsim__bringup_event ev, int rc)
{
	struct nxsim__bringup *lab = model;
	struct nxsim__bringup_task *t = lab->cur;
	const struct nxsim__bringup_path *p;

	if (!t)
		return; /* background set-up and teardown are not timed */
	p = &lab->paths[ev][rc < 0];
	if (!WARN_ON(t->nsteps + p->n > NXSIM__BRINGUP_MAX_STEPS)) {
		struct nxsim__bringup_step_rec *to = &t->steps[t->nsteps];

		for (unsigned int i = 0; i < p->n; i++)
			to[i] = p->steps[i];
		t->nsteps += p->n;
	}
	if (ev == NXSIM__BRINGUP_KTHREAD_WORKER ||
	    ev == NXSIM__BRINGUP_VHOST_WORKER) {
		if (rc < 0)
			lab->res->worker_failures++;
		else
			lab->worker_made_now = true;
	}
}
