// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up lab's locks and grace periods, on the virtual clock.  These
 * are shims, in the manner of tools/testing/vma (whose
 * tools/testing/vma/vma_internal.h stands in for the kernel primitives mm/vma.c calls, so that it runs in
 * user space): each models what one kernel primitive costs a waiter in
 * time, not the primitive itself, and only the lab's tasks take them (the
 * library's own locks and RCU are src/core/'s):
 *
 *   - cgroup_mutex as cgroup_attach_task_all() takes it with cgroup_lock()
 *     (kernel/cgroup/cgroup-v1.c): FIFO with hand-off to the first waiter;
 *   - cgroup_threadgroup_rwsem, a percpu rw-semaphore
 *     (kernel/locking/percpu-rwsem.c): the writer's rcu_sync_enter(), then
 *     sem->block, which makes new readers (forks, in copy_process()'s
 *     cgroup_can_fork()) wait, and the wait for active readers;
 *     percpu_up_write() lets the waiting readers in and calls
 *     rcu_sync_exit();
 *   - its rcu_sync with the gp_state machine of kernel/rcu/sync.c: a writer
 *     waits for a grace period only when the rcu_sync is idle, later ones
 *     share it, and it goes idle again a grace period after the last
 *     writer left (GP_EXIT, GP_REPLAY); favordynmods enters it for good;
 *   - synchronize_rcu(): the first force-quiescent-state wait of
 *     kernel/rcu/tree.c plus a seeded log-normal number of jiffies whose
 *     median grows with the load, ending at a tick;
 *   - synchronize_srcu() on mm/mmu_notifier.c's srcu_struct
 *     (kernel/rcu/srcutree.c): expedited when it might be idle, otherwise
 *     at the second tick after the current grace period ends;
 *   - rcu_barrier(): a grace period from its start, or the end of every
 *     callback in flight if later, one call at a time.
 *
 * docs/bringup.md gives the distribution and its sources.
 *
 * Left out: readers other than the lab's own forks; the reader fast path
 * (a reader is modelled by whether it must wait, not by its per-CPU
 * counter); the writer's wait for readers is woken by the last reader out;
 * priority inheritance and optimistic spinning on cgroup_mutex; RCU
 * expedited grace periods and callback batching other than rcu_sync's own
 * and rcu_barrier()'s; other tasks' RCU callbacks, stood for by a grace
 * period from the barrier's start; expedited grace periods, which queue
 * no callback for rcu_barrier() to wait for.
 */
#include <math.h>

#include "bringup/bringup_internal.h"
#include "core/compiler.h"

/* DEFAULT_SRCU_EXP_HOLDOFF, kernel/rcu/srcutree.c */
#define SRCU_EXP_HOLDOFF_NS 25000ull

/* Standard normal (Box-Muller). */
static double normal(struct nxsim__bringup *lab)
{
	double u1 = nxsim__bringup_uniform(lab),
	       u2 = nxsim__bringup_uniform(lab);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * synchronize_rcu() called at @now: the first force-quiescent-state wait
 * plus a log-normal number of jiffies, ending at a tick.  Return its end.
 */
static uint64_t synchronize_rcu(struct nxsim__bringup *lab, uint64_t now)
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

/**
 * nxsim__rcu_sync_func() - rcu_sync_func(): a grace period after
 *	rcu_sync_enter() or _exit() of @rss has passed at @now
 * @rss: the rcu_sync
 * @now: virtual time
 */
void nxsim__rcu_sync_func(struct nxsim__rcu_sync *rss, uint64_t now)
{
	struct nxsim__bringup *lab = rss->lab;
	struct nxsim__bringup_task *t;

	if (rss->gp_count) {
		rss->gp_state = GP_PASSED;
		while ((t = TAILQ_FIRST(&rss->gp_q))) {
			TAILQ_REMOVE(&rss->gp_q, t, wait);
			nxsim__bringup_task_wake(t, now);
		}
	} else if (rss->gp_state == GP_REPLAY) {
		rss->gp_state = GP_EXIT;
		rss->gp_end = synchronize_rcu(lab, now);
		nxsim__timer_mod(lab->clock, &rss->cb, rss->gp_end);
	} else {
		rss->gp_state = GP_IDLE;
	}
}

static void rss_cb_fn(struct nxsim__timer *timer)
{
	struct nxsim__rcu_sync *rss =
		container_of(timer, struct nxsim__rcu_sync, cb);

	nxsim__rcu_sync_func(rss, nxsim_clock_now(rss->lab->clock));
}

/**
 * nxsim__rcu_sync_exit() - rcu_sync_exit(): the last writer out starts
 *	the way back to idle
 * @rss: the rcu_sync
 * @now: virtual time
 */
void nxsim__rcu_sync_exit(struct nxsim__rcu_sync *rss, uint64_t now)
{
	struct nxsim__bringup *lab = rss->lab;

	if (--rss->gp_count)
		return;
	if (rss->gp_state == GP_PASSED) {
		rss->gp_state = GP_EXIT;
		rss->gp_end = synchronize_rcu(lab, now);
		if (rss->gp_end < lab->horizon)
			lab->horizon = rss->gp_end;
		nxsim__timer_mod(lab->clock, &rss->cb, rss->gp_end);
	} else if (rss->gp_state == GP_EXIT) {
		rss->gp_state = GP_REPLAY;
	}
}

/**
 * nxsim__rcu_sync_enter() - rcu_sync_enter() of @t on @rss at t->now
 * @t: the writer
 * @rss: the rcu_sync
 *
 * Return: true when it passes at once; false when it waits, for its own
 * grace period (the rcu_sync was idle: its event is armed) or for the one
 * another writer started (it is queued for nxsim__rcu_sync_func()).
 */
bool nxsim__rcu_sync_enter(struct nxsim__bringup_task *t,
			   struct nxsim__rcu_sync *rss)
{
	rss->gp_count++;
	if (rss->gp_state == GP_IDLE) {
		rss->gp_state = GP_ENTER;
		t->gp_rss = rss;
		rss->gp_end = synchronize_rcu(t->lab, t->now);
		nxsim__bringup_task_arm(t, rss->gp_end, NXSIM__RESUME_GP_DONE);
		return false;
	}
	if (rss->gp_state == GP_ENTER) {
		TAILQ_INSERT_TAIL(&rss->gp_q, t, wait);
		return false;
	}
	return true;
}

/**
 * nxsim__percpu_down_write() - the rest of percpu_down_write() after its
 *	rcu_sync_enter(): set sem->block and wait for the active readers
 * @t: the writer, which holds cgroup_mutex (so no other writer is in)
 *
 * Return: true when no reader is active; false when @t waits for the last
 * one to leave (nxsim__percpu_up_read() wakes it).
 */
bool nxsim__percpu_down_write(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;

	WARN_ON(lab->block);
	lab->block = true;
	if (lab->readers) {
		lab->writer = t;
		return false;
	}
	return true;
}

/**
 * nxsim__percpu_up_write() - percpu_up_write(): readers may go on; then
 *	rcu_sync_exit()
 * @lab: the lab
 * @now: virtual time
 */
void nxsim__percpu_up_write(struct nxsim__bringup *lab, uint64_t now)
{
	struct nxsim__bringup_task *w;

	lab->block = false;
	while ((w = TAILQ_FIRST(&lab->read_q))) {
		TAILQ_REMOVE(&lab->read_q, w, wait);
		lab->readers++;
		nxsim__bringup_task_wake(w, now);
	}
	nxsim__rcu_sync_exit(&lab->rss, now);
}

/**
 * nxsim__percpu_down_read() - percpu_down_read() of @t
 * @t: the forking task
 *
 * Return: true when it holds the read side; false when a writer holds
 * sem->block and @t waits for nxsim__percpu_up_write().
 */
bool nxsim__percpu_down_read(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;

	if (lab->block) {
		TAILQ_INSERT_TAIL(&lab->read_q, t, wait);
		return false;
	}
	lab->readers++;
	return true;
}

/**
 * nxsim__percpu_up_read() - percpu_up_read(): the last reader out wakes
 *	the writer waiting for it
 * @t: the reader
 */
void nxsim__percpu_up_read(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;
	struct nxsim__bringup_task *w;

	if (!--lab->readers && lab->writer) {
		w = lab->writer;
		lab->writer = NULL;
		nxsim__bringup_task_wake(w, t->now);
	}
}

/**
 * nxsim__cgroup_lock() - cgroup_lock(), mutex_lock(&cgroup_mutex), of @t
 * @t: the task
 *
 * Return: true when @t owns it; false when it waits (counted as an
 * attach that waited).
 */
bool nxsim__cgroup_lock(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;

	if (lab->mutex_owner) {
		lab->res->attach_waits++;
		TAILQ_INSERT_TAIL(&lab->mutex_q, t, wait);
		return false;
	}
	lab->mutex_owner = t;
	return true;
}

/**
 * nxsim__cgroup_unlock() - cgroup_unlock(): hand-off to the
 *	first waiter, woken at t->now
 * @t: the owner
 */
void nxsim__cgroup_unlock(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;
	struct nxsim__bringup_task *w = TAILQ_FIRST(&lab->mutex_q);

	lab->mutex_owner = w;
	if (w) {
		TAILQ_REMOVE(&lab->mutex_q, w, wait);
		nxsim__bringup_task_wake(w, t->now);
	}
}

/**
 * nxsim__synchronize_srcu() - synchronize_srcu() on mmu_notifier's srcu
 * @lab: the lab
 * @now: when it is called
 *
 * srcu_might_be_idle() (no grace period in progress, the last one ended
 * at least exp_holdoff ago) makes it synchronize_srcu_expedited(), whose
 * cost destroy_vm_us holds.  Otherwise the grace period it needs starts
 * when the current one ends; process_srcu() ends it after SRCU_INTERVAL
 * (one jiffy, so at the next tick) and srcu_gp_end() invokes the
 * callbacks one jiffy later.
 *
 * Return: when it returns, before the waiter's wake-up (@now if at once).
 */
uint64_t nxsim__synchronize_srcu(struct nxsim__bringup *lab, uint64_t now)
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

/* When the callback or synchronize_rcu() of @rss in flight ends, or 0. */
static uint64_t rss_pending_end(const struct nxsim__rcu_sync *rss)
{
	if (rss->gp_state == GP_IDLE || rss->gp_state == GP_PASSED)
		return 0;
	return rss->gp_end;
}

/**
 * nxsim__bringup_rcu_barrier() - rcu_barrier() called at @now
 * @lab: the lab
 * @now: when it is called
 *
 * rcu_barrier() (kernel/rcu/tree.c) returns once every RCU callback queued
 * before it has been invoked, on any CPU.  On a host running hundreds of
 * processes some CPU always has one queued a moment before, so it waits
 * for a grace period from when it starts; it also waits for the
 * rcu_syncs' call_rcu() and the grace periods that writers wait for in
 * rcu_sync_enter() (synchronize_rcu() waits through a callback too),
 * whichever ends last.  rcu_state.barrier_mutex serialises the calls:
 * one made while another runs waits for it and then runs its own, unless
 * one that started after the call has ended meanwhile (the
 * barrier_sequence check): it shares that one.  The rcu_syncs' callbacks
 * are read at the call, not when a queued barrier starts.
 *
 * Return: when it returns, before the waiter's wake-up.
 */
uint64_t nxsim__bringup_rcu_barrier(struct nxsim__bringup *lab, uint64_t now)
{
	uint64_t start, end, cb_end;

	if (lab->barrier_start > now)
		return lab->barrier_end;
	start = MAX(now, lab->barrier_end);
	end = synchronize_rcu(lab, start);
	cb_end = MAX(rss_pending_end(&lab->rss),
		     rss_pending_end(&lab->cpuset_rss));
	end = MAX(end, cb_end);
	lab->barrier_start = start;
	lab->barrier_end = end;
	return end;
}

static void rcu_sync_init(struct nxsim__bringup *lab,
			  struct nxsim__rcu_sync *rss)
{
	rss->lab = lab;
	rss->gp_state = GP_IDLE;
	rss->gp_count = 0;
	TAILQ_INIT(&rss->gp_q);
	nxsim__timer_init(&rss->cb, rss_cb_fn);
}

/**
 * nxsim__bringup_sync_init() - the locks free and the rcu_syncs idle, the
 *	threadgroup one entered for good with favordynmods
 *	(cgroup_favor_dynmods())
 * @lab: the lab
 * @favordynmods: the cgroup2 mount option (or CONFIG_CGROUP_FAVOR_DYNMODS)
 */
void nxsim__bringup_sync_init(struct nxsim__bringup *lab, bool favordynmods)
{
	rcu_sync_init(lab, &lab->rss);
	rcu_sync_init(lab, &lab->cpuset_rss);
	if (favordynmods) {
		lab->rss.gp_state = GP_PASSED;
		lab->rss.gp_count = 1;
	}
	TAILQ_INIT(&lab->mutex_q);
	TAILQ_INIT(&lab->read_q);
}
