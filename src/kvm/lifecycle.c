// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up lab: VM lifecycle latency in kernel time.
 *
 * A lab loads kvm.ko (a host) on its own virtual clock, makes the
 * background VMs, and runs K creator tasks that bring up M VMs through the
 * library's own calls.  The host's lifecycle hook (nxsim__host_charge())
 * reports what each call's path did: KVM_CREATE_VM, a kthread worker made
 * by kvm_vm_create_worker_thread() (up to 6.12), a vhost task made at the
 * first KVM_RUN through call_once() and retried after a failure (6.14 on),
 * no worker at all under nx_huge_pages=never, and the worker's stop when a
 * VM is destroyed.  Each report appends the steps that kernel path takes
 * (CPU work, wake-ups, locks, grace periods) to the calling creator's
 * program, which then runs on the virtual clock:
 *
 *   - CPU work queues for the C modelled CPUs (FIFO);
 *   - a wake-up costs wakeup_us, plus, with the probability of the CPU's
 *     background load, an exponential wait of mean wakeup_busy_us;
 *   - cgroup_attach_task_all() takes cgroup_mutex (FIFO with hand-off),
 *     then percpu_down_write(&cgroup_threadgroup_rwsem): rcu_sync_enter()
 *     waits a grace period only when the rcu_sync is idle (later writers
 *     share it, and it stays entered until a grace period after the last
 *     writer left, as kernel/rcu/sync.c does), then waits for readers;
 *     favordynmods keeps the rcu_sync entered for good, so no writer waits;
 *   - forks (kthreadd's, the vhost task's copy_process()) take the rwsem's
 *     read side and wait while a writer holds it;
 *   - kvm_destroy_vm()'s mmu_notifier_unregister() waits in
 *     synchronize_srcu() on mm/mmu_notifier.c's one srcu_struct: an
 *     expedited grace period when it is idle (its cost is in destroy_vm_us),
 *     a normal one, two ticks after it can start, when another destroy's
 *     is in progress or ended less than exp_holdoff ago
 *     (kernel/rcu/srcutree.c);
 *   - a grace period lasts the first force-quiescent-state wait of
 *     kernel/rcu/tree.c (1 + (HZ > 250) + (HZ > 500) + CPUs / 256 jiffies)
 *     plus a seeded log-normal number of jiffies whose median grows with
 *     the load, and ends at a tick.
 *
 * The lab drives the clock: creators' events (a binary heap) and the
 * clock's timers (the rcu_sync's call_rcu(), the workers' sleeps) run in
 * one time order.  A library call runs when its creator's op starts, with
 * the clock moved to that time; the steps of its program that touch
 * nothing shared run ahead of the clock when no other event can come
 * first.  docs/bringup.md describes the model, its distribution and its
 * sources.
 *
 * Left out: readers other than the lab's own forks, CPU affinity and
 * migration, the vhost task's own first run (it runs beside the vCPU, not
 * in its way), irqfd and memory set-up, and signals other than the
 * injected -ERESTARTNOINTR.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <bsd/sys/queue.h>

#include <nxsim/bringup.h>
#include <nxsim/error.h>
#include <nxsim/host.h>
#include <nxsim/rng.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "kvm/lifecycle.h"
#include "kvm/host.h"
#include "kvm/nx_params.h"

#define MAX_STEPS 64

/* DEFAULT_SRCU_EXP_HOLDOFF, kernel/rcu/srcutree.c */
#define SRCU_EXP_HOLDOFF_NS 25000ull

struct step {
	enum nxsim__lc_step op;
	uint64_t ns; /* CPU and SLEEP: how long */
};

/* What a task does when its event comes. */
enum resume {
	RESUME_NEXT,	 /* the step it waited in is done */
	RESUME_CPU_DONE, /* its CPU work is done: give the CPU back */
	RESUME_GP_DONE,	 /* its synchronize_rcu() returned */
	RESUME_OP,	 /* start the next op */
};

/* The time costs of the table, in ns. */
struct costs_ns {
	uint64_t create_vm, create_vcpu, kvm_run, destroy_vm;
	uint64_t kthread_create, kthread_fork, kthread_exit;
	uint64_t wakeup, cgroup_attach, vhost_create, vhost_exit;
};

struct lab;

/**
 * struct task - one creator thread (and the kernel threads it waits for)
 * @lab: its lab
 * @seq: arming order of its event, breaks ties between equal times
 * @idx: creator index
 * @vm_idx: the VM it brings up
 * @op: what it is doing
 * @resume: what its event means
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
struct task {
	struct lab *lab;
	uint64_t seq;
	unsigned int idx;
	unsigned int vm_idx;
	enum nxsim__lc_op op;
	enum resume resume;
	uint64_t now;
	uint64_t op_start;
	uint64_t worker_begin, worker_end;
	struct step steps[MAX_STEPS];
	unsigned int nsteps, pc;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
	TAILQ_ENTRY(task) wait;
};

TAILQ_HEAD(task_queue, task);

/* The gp_state values of kernel/rcu/sync.c. */
enum gp_state { GP_IDLE, GP_ENTER, GP_PASSED, GP_EXIT, GP_REPLAY };

/**
 * struct lab - one run
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
 * @gp_state: cgroup_threadgroup_rwsem.rss.gp_state
 * @gp_count: rss.gp_count
 * @gp_q: writers waiting in rcu_sync_enter() for GP_PASSED
 * @rss_cb: the call_rcu() of rcu_sync_exit()
 * @srcu_idle: from when mmu_notifier's srcu is idle again: the end of
 *	its last grace period plus exp_holdoff
 * @tasks: the creators
 * @worker_made: worker creations so far (for worker_fail_nth)
 * @worker_made_now: the running library call made a worker
 * @vms: the creators' VMs, by index, until destroyed
 * @create: per-VM latencies, ns (@worker: 0 for none)
 * @worker:
 * @first_run:
 * @scratch: room for sorting one of them
 * @last_done: when the last bring-up finished
 * @res: counters of the result
 * @trace: test hook, or NULL
 * @trace_arg: its argument
 */
struct lab {
	const struct nxsim_bringup_config *cfg;
	struct nxsim_bringup_costs c;
	struct costs_ns ns;
	struct nxsim_rng rng;
	struct nxsim_clock *clock;
	struct nxsim_host *host;
	double load;
	uint64_t jiffy_ns;
	unsigned int first_fqs;
	uint64_t horizon;
	struct task **events;
	unsigned int nr_events;
	uint64_t seq;
	struct task *cur;
	int err;
	unsigned int cpus_busy;
	struct task_queue cpu_q;
	struct task *mutex_owner;
	struct task_queue mutex_q;
	bool block;
	unsigned int readers;
	struct task *writer;
	struct task_queue read_q;
	enum gp_state gp_state;
	unsigned int gp_count;
	struct task_queue gp_q;
	struct nxsim__timer rss_cb;
	uint64_t srcu_idle;
	struct task *tasks;
	unsigned int worker_made;
	bool worker_made_now;
	struct nxsim_vm **vms;
	uint64_t *create, *worker, *first_run, *scratch;
	uint64_t last_done;
	struct nxsim_bringup_result *res;
	nxsim__lc_trace_fn trace;
	void *trace_arg;
};

static uint64_t us(double v)
{
	return (uint64_t)llround(v * 1e3);
}

/* Uniform in (0, 1]. */
static double uniform(struct lab *lab)
{
	return (double)((nxsim_rng_next(&lab->rng) >> 11) + 1) * 0x1.0p-53;
}

/* Standard normal (Box-Muller). */
static double normal(struct lab *lab)
{
	double u1 = uniform(lab), u2 = uniform(lab);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* How long a woken task takes to run (try_to_wake_up() to running). */
static uint64_t wakeup_latency(struct lab *lab)
{
	uint64_t ns = lab->ns.wakeup;

	if (lab->load > 0 && uniform(lab) <= lab->load)
		ns += us(-lab->c.wakeup_busy_us * log(uniform(lab)));
	return ns;
}

/*
 * synchronize_rcu() called at @now: the first force-quiescent-state wait
 * plus a log-normal number of jiffies, ending at a tick.  Return its end.
 */
static uint64_t synchronize_rcu(struct lab *lab, uint64_t now)
{
	double extra =
		lab->c.gp_jiffies * (1 + lab->c.gp_load_gain * lab->load);
	uint64_t end;

	if (lab->c.gp_sigma > 0)
		extra *= exp(lab->c.gp_sigma * normal(lab));
	end = now + (uint64_t)llround((lab->first_fqs + extra) *
				      (double)lab->jiffy_ns);
	lab->res->grace_periods++;
	return DIV_ROUND_UP(end, lab->jiffy_ns) * lab->jiffy_ns;
}

static void trace_step(struct task *t, enum nxsim__lc_step step)
{
	if (unlikely(t->lab->trace)) {
		struct nxsim__lc_trace ev = { t->idx, t->vm_idx, t->op, step,
					      t->now };

		t->lab->trace(t->lab->trace_arg, &ev);
	}
}

static bool event_before(const struct task *a, const struct task *b)
{
	return a->now < b->now || (a->now == b->now && a->seq < b->seq);
}

/* Arm @t to resume at @when: push it on the event heap. */
static void task_arm(struct task *t, uint64_t when, enum resume resume)
{
	struct lab *lab = t->lab;
	unsigned int i = lab->nr_events++, up;

	t->resume = resume;
	t->now = when;
	t->seq = lab->seq++;
	if (when < lab->horizon)
		lab->horizon = when;
	for (; i && event_before(t, lab->events[up = (i - 1) / 2]); i = up)
		lab->events[i] = lab->events[up];
	lab->events[i] = t;
}

/* Pop the earliest event's task. */
static struct task *event_pop(struct lab *lab)
{
	struct task *first = lab->events[0];
	struct task *last = lab->events[--lab->nr_events];
	unsigned int i = 0, c, n = lab->nr_events;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n &&
		    event_before(lab->events[c + 1], lab->events[c]))
			c++;
		if (!event_before(lab->events[c], last))
			break;
		lab->events[i] = lab->events[c];
	}
	if (n)
		lab->events[i] = last;
	return first;
}

/* Wake @t, which slept in a queue, at @now: its step is done. */
static void task_wake(struct task *t, uint64_t now)
{
	task_arm(t, now + wakeup_latency(t->lab), RESUME_NEXT);
}

/* Give a CPU to @t at @now for its CPU step. */
static void cpu_run(struct task *t, uint64_t now)
{
	t->lab->cpus_busy++;
	t->now = now;
	task_arm(t, now + t->steps[t->pc].ns, RESUME_CPU_DONE);
}

static void cpu_release(struct lab *lab, uint64_t now)
{
	struct task *next = TAILQ_FIRST(&lab->cpu_q);

	lab->cpus_busy--;
	if (next) {
		TAILQ_REMOVE(&lab->cpu_q, next, wait);
		cpu_run(next, now);
	}
}

/* rcu_sync_func(): a grace period after rcu_sync_enter() or _exit(). */
static void rcu_sync_func(struct lab *lab, uint64_t now)
{
	struct task *t;

	if (lab->gp_count) {
		lab->gp_state = GP_PASSED;
		while ((t = TAILQ_FIRST(&lab->gp_q))) {
			TAILQ_REMOVE(&lab->gp_q, t, wait);
			task_wake(t, now);
		}
	} else if (lab->gp_state == GP_REPLAY) {
		lab->gp_state = GP_EXIT;
		nxsim__timer_mod(lab->clock, &lab->rss_cb,
				 synchronize_rcu(lab, now));
	} else {
		lab->gp_state = GP_IDLE;
	}
}

static void rss_cb_fn(struct nxsim__timer *timer)
{
	struct lab *lab = container_of(timer, struct lab, rss_cb);

	rcu_sync_func(lab, nxsim_clock_now(lab->clock));
}

/* rcu_sync_exit(): the last writer out starts the way back to idle. */
static void rcu_sync_exit(struct lab *lab, uint64_t now)
{
	uint64_t when;

	if (--lab->gp_count)
		return;
	if (lab->gp_state == GP_PASSED) {
		lab->gp_state = GP_EXIT;
		when = synchronize_rcu(lab, now);
		if (when < lab->horizon)
			lab->horizon = when;
		nxsim__timer_mod(lab->clock, &lab->rss_cb, when);
	} else if (lab->gp_state == GP_EXIT) {
		lab->gp_state = GP_REPLAY;
	}
}

/*
 * rcu_sync_enter() of @t at t->now: true when it passes at once; false
 * when it waits, for its own grace period (the rcu_sync was idle) or for
 * the one another writer started.
 */
static bool rcu_sync_enter(struct task *t)
{
	struct lab *lab = t->lab;

	lab->gp_count++;
	if (lab->gp_state == GP_IDLE) {
		lab->gp_state = GP_ENTER;
		task_arm(t, synchronize_rcu(lab, t->now), RESUME_GP_DONE);
		return false;
	}
	if (lab->gp_state == GP_ENTER) {
		TAILQ_INSERT_TAIL(&lab->gp_q, t, wait);
		return false;
	}
	return true;
}

/* percpu_up_write(): readers may go on; then rcu_sync_exit(). */
static void percpu_up_write(struct lab *lab, uint64_t now)
{
	struct task *w;

	lab->block = false;
	while ((w = TAILQ_FIRST(&lab->read_q))) {
		TAILQ_REMOVE(&lab->read_q, w, wait);
		lab->readers++;
		task_wake(w, now);
	}
	rcu_sync_exit(lab, now);
}

/*
 * synchronize_srcu() on mmu_notifier's srcu at @now; return when it
 * returns, before the waiter's wake-up.  srcu_might_be_idle() (no grace
 * period in progress, the last one ended at least exp_holdoff ago) makes
 * it synchronize_srcu_expedited(), whose cost destroy_vm_us holds.
 * Otherwise the grace period it needs starts when the current one ends;
 * process_srcu() ends it after SRCU_INTERVAL (one jiffy, so at the next
 * tick) and srcu_gp_end() invokes the callbacks one jiffy later.
 */
static uint64_t synchronize_srcu(struct lab *lab, uint64_t now)
{
	uint64_t start, end;

	if (now >= lab->srcu_idle) {
		lab->srcu_idle = now + SRCU_EXP_HOLDOFF_NS;
		return now;
	}
	start = MAX(now, lab->srcu_idle - SRCU_EXP_HOLDOFF_NS);
	end = (start / lab->jiffy_ns + 2) * lab->jiffy_ns;
	lab->srcu_idle = end + SRCU_EXP_HOLDOFF_NS;
	return end;
}

/*
 * Run @t's program from its current step at t->now until it must wait.
 * Return true when the op's program is finished.
 */
static bool task_advance(struct task *t)
{
	struct lab *lab = t->lab;
	struct step *s;
	struct task *w;
	uint64_t end;

	for (; t->pc < t->nsteps; t->pc++) {
		s = &t->steps[t->pc];
		trace_step(t, s->op);
		switch (s->op) {
		case NXSIM__ST_CPU:
			if (lab->cpus_busy >= lab->cfg->cpus) {
				TAILQ_INSERT_TAIL(&lab->cpu_q, t, wait);
				return false;
			}
			end = t->now + s->ns;
			if (end >= lab->horizon) {
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
				task_arm(t, end, RESUME_NEXT);
				return false;
			}
			t->now = end;
			break;
		case NXSIM__ST_MUTEX_LOCK:
			if (lab->mutex_owner) {
				lab->res->attach_waits++;
				TAILQ_INSERT_TAIL(&lab->mutex_q, t, wait);
				return false;
			}
			lab->mutex_owner = t;
			break;
		case NXSIM__ST_MUTEX_UNLOCK:
			/* mutex hand-off to the first waiter */
			w = TAILQ_FIRST(&lab->mutex_q);
			lab->mutex_owner = w;
			if (w) {
				TAILQ_REMOVE(&lab->mutex_q, w, wait);
				task_wake(w, t->now);
			}
			break;
		case NXSIM__ST_RSS_ENTER:
			if (!rcu_sync_enter(t))
				return false;
			break;
		case NXSIM__ST_WRITE_LOCK:
			WARN_ON(lab->block);
			lab->block = true;
			if (lab->readers) {
				lab->writer = t;
				return false;
			}
			break;
		case NXSIM__ST_WRITE_UNLOCK:
			percpu_up_write(lab, t->now);
			break;
		case NXSIM__ST_READ_LOCK:
			if (lab->block) {
				TAILQ_INSERT_TAIL(&lab->read_q, t, wait);
				return false;
			}
			lab->readers++;
			break;
		case NXSIM__ST_READ_UNLOCK:
			if (!--lab->readers && lab->writer) {
				w = lab->writer;
				lab->writer = NULL;
				task_wake(w, t->now);
			}
			break;
		case NXSIM__ST_SRCU_SYNC:
			end = synchronize_srcu(lab, t->now);
			if (end == t->now)
				break;
			end += wakeup_latency(lab);
			if (end >= lab->horizon) {
				task_arm(t, end, RESUME_NEXT);
				return false;
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
		}
	}
	return true;
}

static void push(struct task *t, enum nxsim__lc_step op, uint64_t ns)
{
	if (WARN_ON(t->nsteps >= MAX_STEPS))
		return;
	t->steps[t->nsteps++] = (struct step){ op, ns };
}

/* The kernel side of kthread_run() up to the new thread's first run. */
static void kthread_run(struct task *t, const struct costs_ns *n, int rc)
{
	push(t, NXSIM__ST_CPU, n->kthread_create);
	push(t, NXSIM__ST_WAKE, 0); /* kthreadd */
	push(t, NXSIM__ST_READ_LOCK, 0);
	push(t, NXSIM__ST_CPU, n->kthread_fork);
	push(t, NXSIM__ST_READ_UNLOCK, 0);
	push(t, NXSIM__ST_WAKE, 0); /* the creator, from kthread_create() */
	if (rc < 0)
		return;
	push(t, NXSIM__ST_WAKE, 0); /* the kthread, by wake_up_process() */
}

/* cgroup_attach_task_all(): cgroup_lock(), cgroup_attach_lock(true). */
static void cgroup_attach_task_all(struct task *t, const struct costs_ns *n)
{
	push(t, NXSIM__ST_MUTEX_LOCK, 0);
	push(t, NXSIM__ST_RSS_ENTER, 0);
	push(t, NXSIM__ST_WRITE_LOCK, 0);
	push(t, NXSIM__ST_CPU, n->cgroup_attach);
	push(t, NXSIM__ST_WRITE_UNLOCK, 0);
	push(t, NXSIM__ST_MUTEX_UNLOCK, 0);
}

/* The host's lifecycle hook: append @ev's kernel path to the caller. */
static void lc_charge(void *model, enum nxsim__lc_event ev, int rc)
{
	struct lab *lab = model;
	const struct costs_ns *n = &lab->ns;
	struct task *t = lab->cur;

	if (!t)
		return; /* background set-up and teardown are not timed */
	switch (ev) {
	case NXSIM__LC_CREATE_VM:
		push(t, NXSIM__ST_CPU, n->create_vm);
		break;
	case NXSIM__LC_CREATE_VCPU:
		push(t, NXSIM__ST_CPU, n->create_vcpu);
		break;
	case NXSIM__LC_VCPU_RUN:
		push(t, NXSIM__ST_CPU, n->kvm_run);
		break;
	case NXSIM__LC_DESTROY_VM:
		/* kvm_destroy_vm() after kvm_arch_pre_destroy_vm() */
		push(t, NXSIM__ST_SRCU_SYNC, 0);
		push(t, NXSIM__ST_CPU, n->destroy_vm);
		break;
	case NXSIM__LC_KTHREAD_WORKER:
		/* kvm_vm_create_worker_thread() */
		push(t, NXSIM__ST_WORKER_BEGIN, 0);
		kthread_run(t, n, rc);
		if (rc >= 0) {
			/* kvm_vm_worker_thread() until init_done */
			cgroup_attach_task_all(t, n);
			push(t, NXSIM__ST_WAKE, 0); /* the creator */
		}
		push(t, NXSIM__ST_WORKER_END, 0);
		break;
	case NXSIM__LC_VHOST_WORKER:
		/* vhost_task_create(): copy_process() in the vCPU thread */
		push(t, NXSIM__ST_READ_LOCK, 0);
		push(t, NXSIM__ST_CPU, n->vhost_create);
		push(t, NXSIM__ST_READ_UNLOCK, 0);
		break;
	case NXSIM__LC_KTHREAD_STOP:
		/* kthread_stop(): the worker moves back to kthreadd's
		 * cgroups before it exits, and the closer waits for it. */
		push(t, NXSIM__ST_WAKE, 0);
		cgroup_attach_task_all(t, n);
		push(t, NXSIM__ST_CPU, n->kthread_exit);
		push(t, NXSIM__ST_WAKE, 0);
		break;
	case NXSIM__LC_VHOST_STOP:
		push(t, NXSIM__ST_WAKE, 0);
		push(t, NXSIM__ST_CPU, n->vhost_exit);
		push(t, NXSIM__ST_WAKE, 0);
		break;
	}
	if (ev == NXSIM__LC_KTHREAD_WORKER || ev == NXSIM__LC_VHOST_WORKER) {
		if (rc < 0)
			lab->res->worker_failures++;
		else
			lab->worker_made_now = true;
	}
}

/*
 * Before a first KVM_RUN that makes a worker: every worker_fail_nth-th
 * creation gets a signal during copy_process().
 */
static void maybe_inject_failure(struct lab *lab, struct task *t)
{
	unsigned int nth = lab->cfg->worker_fail_nth;
	struct nxsim_worker_info info;

	if (!nth || lab->cfg->policy != NXSIM_BRINGUP_VHOST ||
	    nxsim_vm_worker_info(t->vm, &info) ||
	    info.state != NXSIM_WORKER_NONE)
		return;
	if (++lab->worker_made % nth == 0 &&
	    nxsim_vm_inject_worker_error(t->vm, -NXSIM_ERESTARTNOINTR))
		lab->err = -EIO;
}

/* Make the library call of @t's op, filling its program. */
static int op_call(struct lab *lab, struct task *t)
{
	int rc = 0;

	lab->cur = t;
	switch (t->op) {
	case NXSIM__OP_CREATE:
		t->worker_begin = t->worker_end = 0;
		rc = nxsim_vm_create(lab->host, &t->vm);
		if (!rc)
			lab->vms[t->vm_idx] = t->vm;
		break;
	case NXSIM__OP_VCPU:
		rc = nxsim_vcpu_create(t->vm, 0, &t->vcpu);
		break;
	case NXSIM__OP_RUN:
		maybe_inject_failure(lab, t);
		/* -ERESTARTNOINTR: the syscall restarts (916b7f42b3b3). */
		do {
			rc = nxsim_vcpu_run(t->vcpu);
		} while (rc == -NXSIM_ERESTARTNOINTR);
		break;
	case NXSIM__OP_HOLD:
		push(t, NXSIM__ST_SLEEP,
		     lab->cfg->hold_ns +
			     (lab->cfg->hold_jitter_ns ?
				      nxsim_rng_below(&lab->rng,
						      lab->cfg->hold_jitter_ns) :
				      0));
		break;
	case NXSIM__OP_DESTROY:
		rc = nxsim_vm_destroy(t->vm);
		lab->vms[t->vm_idx] = NULL;
		break;
	}
	lab->cur = NULL;
	push(t, NXSIM__ST_OP_DONE, 0);
	return rc;
}

/* The op that follows @t's finished op, false when @t is done. */
static bool op_next(struct lab *lab, struct task *t)
{
	switch (t->op) {
	case NXSIM__OP_CREATE:
		t->op = NXSIM__OP_VCPU;
		return true;
	case NXSIM__OP_VCPU:
		t->op = NXSIM__OP_RUN;
		return true;
	case NXSIM__OP_RUN:
		if (lab->cfg->hold_ns || lab->cfg->hold_jitter_ns) {
			t->op = NXSIM__OP_HOLD;
			return true;
		}
		break;
	case NXSIM__OP_HOLD:
		t->op = NXSIM__OP_DESTROY;
		return true;
	case NXSIM__OP_DESTROY:
		break;
	}
	t->vm_idx += lab->cfg->creators;
	t->op = NXSIM__OP_CREATE;
	return t->vm_idx < lab->cfg->vms;
}

/* Record what the finished op of @t measured. */
static void op_record(struct lab *lab, struct task *t)
{
	uint64_t lat = t->now - t->op_start;

	if (t->op == NXSIM__OP_CREATE) {
		lab->create[t->vm_idx] = lat;
		lab->worker[t->vm_idx] = t->worker_end - t->worker_begin;
	} else if (t->op == NXSIM__OP_RUN) {
		lab->first_run[t->vm_idx] = lat;
		if (t->now > lab->last_done)
			lab->last_done = t->now;
	}
}

/*
 * @t's event at t->now, the clock's time: finish the step it waited in,
 * run on, and start its next ops until it must wait.  Called from
 * lab_burst(), never from a clock callback, so it may advance the clock.
 */
static void task_resume(struct task *t)
{
	struct lab *lab = t->lab;

	switch (t->resume) {
	case RESUME_CPU_DONE:
		cpu_release(lab, t->now);
		t->pc++;
		break;
	case RESUME_GP_DONE:
		rcu_sync_func(lab, t->now);
		t->pc++;
		break;
	case RESUME_NEXT:
		t->pc++;
		break;
	case RESUME_OP:
		break;
	}
	if (t->resume != RESUME_OP && !task_advance(t))
		return;
	for (;;) {
		if (t->resume != RESUME_OP) {
			op_record(lab, t);
			if (!op_next(lab, t))
				return; /* no VM left */
			/* the next op's library call runs at the clock's
			 * time: move the clock there if nothing comes first
			 * (KVM_CREATE_VCPU reads no clock: the next op or
			 * event moves it) */
			if (t->now >= lab->horizon) {
				task_arm(t, t->now, RESUME_OP);
				return;
			}
			if (t->op != NXSIM__OP_VCPU)
				nxsim_clock_advance(
					lab->clock,
					t->now - nxsim_clock_now(lab->clock));
		}
		t->resume = RESUME_NEXT;
		t->nsteps = t->pc = 0;
		t->op_start = t->now;
		lab->err = op_call(lab, t);
		/* a new worker may have armed its sleep's timer */
		if (lab->worker_made_now) {
			lab->worker_made_now = false;
			lab->horizon = MIN(lab->horizon,
					   nxsim_clock_next_event(lab->clock));
		}
		if (lab->err || !task_advance(t))
			return;
	}
}

static const char *const policy_names[] = {
	[NXSIM_BRINGUP_KTHREAD] = "kthread",
	[NXSIM_BRINGUP_VHOST] = "vhost",
	[NXSIM_BRINGUP_NEVER] = "never",
};

const char *nxsim_bringup_policy_name(enum nxsim_bringup_policy policy)
{
	return (unsigned int)policy < ARRAY_SIZE(policy_names) ?
		       policy_names[policy] :
		       NULL;
}

static bool config_ok(const struct nxsim_bringup_config *cfg)
{
	return cfg && nxsim_bringup_policy_name(cfg->policy) && cfg->cpus &&
	       cfg->creators && cfg->vms;
}

/* Load kvm.ko on the lab's clock and make the background VMs. */
static int lab_host(struct lab *lab, struct nxsim_vm ***bgp)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	bool never = cfg->policy == NXSIM_BRINGUP_NEVER;
	struct nxsim_host_config hc = {
		.cpu = { .itlb_multihit = true, .hz = cfg->hz },
		.profile = cfg->profile			      ? cfg->profile :
			   cfg->policy == NXSIM_BRINGUP_VHOST ? "6.14" :
								"6.1",
		.cmdline = never ? "kvm.nx_huge_pages=never" : NULL,
		.clock = lab->clock,
	};
	struct nxsim_vm **bg;
	unsigned int i;
	int rc;

	rc = nxsim_host_create(&hc, &lab->host);
	if (rc)
		return rc;
	if (never && !nxsim__nx_hard_disabled(lab->host))
		return -EINVAL;
	lab->host->lc_model = lab;
	lab->host->lc_charge = lc_charge;
	*bgp = bg = nxsim__calloc(cfg->bg_vms ? cfg->bg_vms : 1, sizeof(*bg));
	if (!bg)
		return -ENOMEM;
	for (i = 0; i < cfg->bg_vms; i++) {
		rc = nxsim_vm_create(lab->host, &bg[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Sort @v (LSD radix, skipping the bytes all values share) via @tmp. */
static void sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t all_or = 0, all_and = ~0ull, *src = v, *dst = tmp, *x;
	size_t i, count[256], pos;

	for (i = 0; i < n; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		for (pos = 0, i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

unsigned int nxsim_bringup_bucket(uint64_t ns)
{
	uint64_t v = ns / 1000;
	/* ilog2(v), 0 for 0 and 1 */
	unsigned int b = v > 1 ? 63 - (unsigned int)__builtin_clzll(v) : 0;

	return MIN(b, NXSIM_BRINGUP_HIST - 1);
}

/* Nearest-rank percentile @p of @n sorted values. */
static uint64_t pct(const uint64_t *v, size_t n, unsigned int p)
{
	size_t rank = DIV_ROUND_UP((size_t)p * n, 100);

	return v[rank ? rank - 1 : 0];
}

/*
 * Fill @st from @n values (sorted in place, @tmp as scratch); zeros are
 * skipped if @skip0.
 */
static void stats(struct nxsim_bringup_stats *st, uint64_t *v, uint64_t *tmp,
		  size_t n, bool skip0)
{
	double sum = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	sort_u64(v, tmp, n);
	if (skip0)
		while (n && !*v) {
			v++;
			n--;
		}
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		sum += (double)v[i];
		st->hist[nxsim_bringup_bucket(v[i])]++;
	}
	st->n = n;
	st->mean = (uint64_t)llround(sum / (double)n);
	st->p50 = pct(v, n, 50);
	st->p95 = pct(v, n, 95);
	st->p99 = pct(v, n, 99);
	st->max = v[n - 1];
}

/*
 * Run the burst until every creator is done: the creators' events and the
 * clock's timers (the rcu_sync's call_rcu(), the workers' sleeps) in one
 * time order, a timer first at equal times.
 */
static int lab_burst(struct lab *lab)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	uint64_t now, next, top;
	struct task *t;

	for (unsigned int i = 0; i < MIN(cfg->creators, cfg->vms); i++) {
		t = &lab->tasks[i];
		t->lab = lab;
		t->idx = t->vm_idx = i;
		task_arm(t, 0, RESUME_OP);
	}
	while (lab->nr_events && !lab->err) {
		now = nxsim_clock_now(lab->clock);
		next = nxsim_clock_next_event(lab->clock);
		top = lab->events[0]->now;
		if (next <= top) {
			nxsim_clock_advance(lab->clock, next - now);
			continue;
		}
		t = event_pop(lab);
		nxsim_clock_advance(lab->clock, top - now);
		lab->horizon = lab->nr_events ? MIN(next, lab->events[0]->now) :
						next;
		task_resume(t);
	}
	return lab->err;
}

/* Tear down: the creators' VMs, the background VMs, the host. */
static void lab_free(struct lab *lab, struct nxsim_vm **bg)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	unsigned int i;

	lab->cur = NULL;
	if (!lab->clock)
		return;
	for (i = 0; lab->vms && i < cfg->vms; i++)
		if (lab->vms[i])
			nxsim_vm_destroy(lab->vms[i]);
	nxsim__timer_del_sync(lab->clock, &lab->rss_cb);
	for (i = 0; bg && i < cfg->bg_vms && bg[i]; i++)
		nxsim_vm_destroy(bg[i]);
	if (lab->host && nxsim_host_destroy(lab->host))
		WARN_ON(1);
	if (lab->clock)
		nxsim_clock_destroy(lab->clock);
	nxsim__free(bg, (cfg->bg_vms ? cfg->bg_vms : 1) * sizeof(*bg));
	nxsim__free(lab->tasks, cfg->creators * sizeof(*lab->tasks));
	nxsim__free(lab->events, cfg->creators * sizeof(*lab->events));
	nxsim__free(lab->vms, cfg->vms * sizeof(*lab->vms));
	nxsim__free(lab->create, 4 * cfg->vms * sizeof(uint64_t));
}

int nxsim__bringup_run_traced(const struct nxsim_bringup_config *cfg,
			      struct nxsim_bringup_result *res,
			      nxsim__lc_trace_fn fn, void *arg)
{
	struct nxsim_bringup_result out = { 0 };
	struct nxsim_vm **bg = NULL;
	struct lab lab = {
		.cfg = cfg, .res = &out, .trace = fn, .trace_arg = arg
	};
	unsigned int hz;
	int rc;

	if (!config_ok(cfg) || !res ||
	    (cfg->hz && cfg->hz != 100 && cfg->hz != 250 && cfg->hz != 300 &&
	     cfg->hz != 1000))
		return -EINVAL;
	hz = cfg->hz ? cfg->hz : 250;
	if (cfg->costs)
		lab.c = *cfg->costs;
	else
		nxsim_bringup_costs_default(&lab.c);
	lab.ns = (struct costs_ns){
		us(lab.c.create_vm_us),	     us(lab.c.create_vcpu_us),
		us(lab.c.kvm_run_us),	     us(lab.c.destroy_vm_us),
		us(lab.c.kthread_create_us), us(lab.c.kthread_fork_us),
		us(lab.c.kthread_exit_us),   us(lab.c.wakeup_us),
		us(lab.c.cgroup_attach_us),  us(lab.c.vhost_create_us),
		us(lab.c.vhost_exit_us),
	};
	nxsim_rng_seed(&lab.rng, cfg->seed);
	lab.load = MIN(1.0, (double)cfg->bg_vms / cfg->cpus * lab.c.bg_vm_load);
	lab.jiffy_ns = NSEC_PER_SEC / hz;
	/* rcu_init_geometry(): RCU_JIFFIES_TILL_FORCE_QS + CPUs / 256 */
	lab.first_fqs = 1 + (hz > 250) + (hz > 500) + cfg->cpus / 256;
	/* favordynmods: cgroup_favor_dynmods() entered the rcu_sync */
	lab.gp_state = cfg->favordynmods ? GP_PASSED : GP_IDLE;
	lab.gp_count = cfg->favordynmods;
	TAILQ_INIT(&lab.cpu_q);
	TAILQ_INIT(&lab.mutex_q);
	TAILQ_INIT(&lab.read_q);
	TAILQ_INIT(&lab.gp_q);
	nxsim__timer_init(&lab.rss_cb, rss_cb_fn);

	rc = nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &lab.clock);
	if (!rc)
		rc = lab_host(&lab, &bg);
	if (rc)
		goto out;
	lab.tasks = nxsim__calloc(cfg->creators, sizeof(*lab.tasks));
	lab.events = nxsim__calloc(cfg->creators, sizeof(*lab.events));
	lab.vms = nxsim__calloc(cfg->vms, sizeof(*lab.vms));
	lab.create = nxsim__calloc(4 * (size_t)cfg->vms, sizeof(uint64_t));
	if (!lab.tasks || !lab.events || !lab.vms || !lab.create) {
		rc = -ENOMEM;
		goto out;
	}
	lab.worker = lab.create + cfg->vms;
	lab.first_run = lab.worker + cfg->vms;
	lab.scratch = lab.first_run + cfg->vms;
	rc = lab_burst(&lab);
	if (rc)
		goto out;

	out.makespan_ns = lab.last_done;
	out.vms_per_s = lab.last_done ? cfg->vms * 1e9 / (double)lab.last_done :
					0;
	if (res->create_ns)
		memcpy(res->create_ns, lab.create, cfg->vms * sizeof(uint64_t));
	if (res->first_run_ns)
		memcpy(res->first_run_ns, lab.first_run,
		       cfg->vms * sizeof(uint64_t));
	out.create_ns = res->create_ns;
	out.first_run_ns = res->first_run_ns;
	stats(&out.create, lab.create, lab.scratch, cfg->vms, false);
	stats(&out.worker, lab.worker, lab.scratch, cfg->vms, true);
	stats(&out.first_run, lab.first_run, lab.scratch, cfg->vms, false);
	*res = out;
out:
	lab_free(&lab, bg);
	return rc;
}

int nxsim_bringup_run(const struct nxsim_bringup_config *cfg,
		      struct nxsim_bringup_result *res)
{
	return nxsim__bringup_run_traced(cfg, res, NULL, NULL);
}
