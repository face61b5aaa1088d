// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NX-huge-page recovery worker of one VM.
 *
 * One loop body serves every era, because the kthread loop of 5.4-6.12
 * (kvm_nx_lpage_recovery_worker()) and the vhost-task function of 6.13 on
 * (kvm_nx_huge_page_recovery_worker()) behave the same from outside: with
 * recovery disabled (nx_huge_pages=0 or ratio=0) the worker sleeps until
 * woken; otherwise it sleeps until nx_huge_page_last + period, recomputing
 * the deadline from the current parameters whenever it wakes, then runs
 * one pass and sets nx_huge_page_last to now.  Time is in jiffies at the
 * host's HZ, with msecs_to_jiffies() rounding up, so deadlines land where
 * the kernel's do.
 *
 * On a virtual clock the sleep is a timer and a wake-up re-arms it at the
 * current time, so the loop runs at the next nxsim_clock_advance(); a wake
 * that arrives while the loop runs makes it run again, as a task woken in
 * TASK_RUNNING does not sleep.  On a real clock the worker is a thread
 * blocked in pthread_cond_timedwait() on CLOCK_MONOTONIC.
 *
 * Left out: cgroup attachment, SIGSTOP, and the once-per-iteration
 * kthread_should_park() checks.
 */
#include <errno.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "kvm/profile.h"
#include "kvm/host.h"
#include "mmu/mmu.h"
#include "kvm/vm.h"
#include "kvm/worker.h"

/* The published worker pointer, read like rcu_dereference(). */
static struct nxsim__worker *worker_of(struct nxsim_vm *vm)
{
	return __atomic_load_n(&vm->worker, __ATOMIC_ACQUIRE);
}

bool nxsim__worker_exists(struct nxsim_vm *vm)
{
	return worker_of(vm) != NULL;
}

static struct nxsim_clock *worker_clock(struct nxsim__worker *w)
{
	return w->vm->host->clock;
}

static bool is_virtual(struct nxsim__worker *w)
{
	return nxsim_clock_mode(worker_clock(w)) == NXSIM_CLOCK_VIRTUAL;
}

static uint64_t jiffies_now(struct nxsim__worker *w)
{
	return nxsim__ns_to_jiffies(nxsim_clock_now(worker_clock(w)),
				    w->vm->host->cpu.hz);
}

/*
 * kvm_nx_huge_page_recovery_worker(), the vhost-task function (and one turn
 * of the kthread loop before 6.13): recover while the deadline has passed,
 * then return when to wake next (clock ns), or NXSIM_NEVER.
 *
 * After a pass the kernel reads jiffies again to look at the new
 * deadline; this compares it with the nx_huge_page_last it has just set.
 * On a virtual clock both reads give one time (the clock stands still
 * while the timer callback runs).  On a real clock, when a whole period
 * passes between them, the deadline returned is already due: the task's
 * wait times out at once and its next turn runs the pass.
 */
static uint64_t kvm_nx_huge_page_recovery_worker(struct nxsim__worker *w)
{
	struct nxsim_host *host = w->vm->host;
	unsigned int hz = host->cpu.hz, period;
	uint64_t due, passes, now = jiffies_now(w);

	for (;;) {
		if (!nxsim__calc_nx_huge_pages_recovery_period(host, &period))
			return NXSIM_NEVER;
		due = w->last_jiffies + nxsim__msecs_to_jiffies(period, hz);
		if (due > now)
			return nxsim__jiffies_to_ns(due, hz);
		nxsim__mmu_recover_nx_huge_pages(w->vm->mmu);
		/* the worker alone counts its passes: no locked add */
		passes = atomic_load_explicit(&w->passes, memory_order_relaxed);
		atomic_store_explicit(&w->passes, passes + 1,
				      memory_order_relaxed);
		now = jiffies_now(w);
		WRITE_ONCE(w->last_jiffies, now);
	}
}

/* Virtual clock: the worker's sleep ended, by timeout or by a wake-up. */
static void worker_timer_fn(struct nxsim__timer *t)
{
	struct nxsim__worker *w = container_of(t, struct nxsim__worker, timer);
	struct nxsim_clock *clock = worker_clock(w);
	uint64_t deadline;

	/* A stopped or killed task runs no more (worker_end() then waits). */
	if (READ_ONCE(w->state) != NXSIM_WORKER_RUNNING)
		return;
	WRITE_ONCE(w->woken, false);

	deadline = kvm_nx_huge_page_recovery_worker(w);

	pthread_mutex_lock(&w->lock);
	w->deadline_ns = deadline;
	if (w->state == NXSIM_WORKER_RUNNING) {
		if (READ_ONCE(w->woken))
			nxsim__timer_mod(clock, t, nxsim_clock_now(clock));
		else if (deadline != NXSIM_NEVER)
			nxsim__timer_mod(clock, t, deadline);
	}
	pthread_mutex_unlock(&w->lock);
}

/* Real clock: the task. */
static void *worker_thread(void *arg)
{
	struct nxsim__worker *w = arg;
	struct timespec ts;
	uint64_t deadline;

	pthread_mutex_lock(&w->lock);
	while (w->state == NXSIM_WORKER_RUNNING) {
		WRITE_ONCE(w->woken, false);
		pthread_mutex_unlock(&w->lock);
		deadline = kvm_nx_huge_page_recovery_worker(w);
		pthread_mutex_lock(&w->lock);
		w->deadline_ns = deadline;
		if (READ_ONCE(w->woken) || w->state != NXSIM_WORKER_RUNNING)
			continue;
		if (deadline == NXSIM_NEVER) {
			pthread_cond_wait(&w->cond, &w->lock);
		} else {
			ts = nxsim__clock_real_deadline(worker_clock(w),
							deadline);
			pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void worker_free(struct nxsim__worker *w)
{
	if (!is_virtual(w))
		pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	nxsim__free(w, sizeof(*w));
}

/* The task of the worker kind of @vm's profile, for the cost model. */
static bool worker_is_kthread(struct nxsim_vm *vm)
{
	return vm->host->prof->worker == NXSIM__WORKER_KTHREAD_AT_CREATE;
}

static int worker_create_task(struct nxsim_vm *vm)
{
	struct nxsim__worker *w;
	pthread_condattr_t attr;
	/* The locked exchange only when an error was injected. */
	int err = READ_ONCE(vm->inject_worker_err);

	if (unlikely(err) && (err = __atomic_exchange_n(&vm->inject_worker_err,
							0, __ATOMIC_RELAXED)))
		return err;
	w = nxsim__zalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->vm = vm;
	w->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	nxsim__timer_init(&w->timer, worker_timer_fn);
	w->state = NXSIM_WORKER_RUNNING;
	w->created_ns = nxsim_clock_now(worker_clock(w));
	/* kvm_mmu_start_lpage_recovery(): nx_huge_page_last = now */
	w->last_jiffies = jiffies_now(w);
	w->deadline_ns = NXSIM_NEVER;

	if (is_virtual(w)) {
		/* The new task runs its loop at once; nothing is due yet. */
		w->deadline_ns = kvm_nx_huge_page_recovery_worker(w);
		if (w->deadline_ns != NXSIM_NEVER)
			nxsim__timer_mod(worker_clock(w), &w->timer,
					 w->deadline_ns);
	} else {
		/* Real clock: a thread sleeping on its wait queue. */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&w->cond, &attr);
		pthread_condattr_destroy(&attr);
		if (pthread_create(&w->thread, NULL, worker_thread, w)) {
			worker_free(w);
			return -ENOMEM;
		}
	}
	/* Published like rcu_assign_pointer(): the task is complete first. */
	__atomic_store_n(&vm->worker, w, __ATOMIC_RELEASE);
	return 0;
}

int nxsim__worker_create(struct nxsim_vm *vm)
{
	int rc = worker_create_task(vm);

	nxsim__host_charge(vm->host,
			   worker_is_kthread(vm) ?
				   NXSIM__BRINGUP_KTHREAD_WORKER :
				   NXSIM__BRINGUP_VHOST_WORKER,
			   rc);
	return rc;
}

void nxsim__kvm_wake_nx_recovery_thread(struct nxsim_vm *vm)
{
	struct nxsim__worker *w = worker_of(vm);
	struct nxsim_host *host = vm->host;

	ATOMIC_INC(vm->counters.wake_calls);
	if (!w) {
		/*
		 * Only 6.14's deferred creation leaves a listed VM without a
		 * worker; 43fb96ae7855 made the wake NULL-safe there.
		 */
		if (nxsim__host_has_bug(host, NXSIM_BUG_WAKE_NULL_WORKER) &&
		    host->prof->worker == NXSIM__WORKER_VHOST_AT_FIRST_RUN)
			nxsim__host_oops(host, "wake of a NULL recovery task");
		return;
	}
	pthread_mutex_lock(&w->lock);
	if (w->state == NXSIM_WORKER_RUNNING) {
		atomic_fetch_add(&w->wakes, 1);
		WRITE_ONCE(w->woken, true);
		if (is_virtual(w))
			nxsim__timer_mod(worker_clock(w), &w->timer,
					 nxsim_clock_now(worker_clock(w)));
		else
			pthread_cond_signal(&w->cond);
	} else if (w->state == NXSIM_WORKER_KILLED &&
		   nxsim__host_has_bug(host, NXSIM_BUG_WAKE_KILLED_WORKER)) {
		nxsim__host_oops(host, "wake of an exited vhost task");
	}
	pthread_mutex_unlock(&w->lock);
}

/* End a running task: state becomes @state, and nothing of it runs after. */
static void worker_end(struct nxsim__worker *w, enum nxsim_worker_state state)
{
	pthread_mutex_lock(&w->lock);
	if (w->state != NXSIM_WORKER_RUNNING) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	WRITE_ONCE(w->state, state);
	w->deadline_ns = NXSIM_NEVER;
	if (!is_virtual(w))
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (is_virtual(w))
		nxsim__timer_del_sync(worker_clock(w), &w->timer);
	else
		pthread_join(w->thread, NULL);
}

void nxsim__worker_stop(struct nxsim_vm *vm)
{
	struct nxsim__worker *w = vm->worker;

	if (!w || READ_ONCE(w->state) != NXSIM_WORKER_RUNNING)
		return;
	nxsim__host_charge(vm->host,
			   worker_is_kthread(vm) ? NXSIM__BRINGUP_KTHREAD_STOP :
						   NXSIM__BRINGUP_VHOST_STOP,
			   0);
	worker_end(w, NXSIM_WORKER_STOPPED);
}

void nxsim__worker_release(struct nxsim_vm *vm)
{
	if (vm->worker)
		worker_free(vm->worker);
	vm->worker = NULL;
}

int nxsim__worker_kill(struct nxsim_vm *vm)
{
	struct nxsim__worker *w = worker_of(vm);

	if (worker_is_kthread(vm))
		return -EOPNOTSUPP;
	if (!w || READ_ONCE(w->state) != NXSIM_WORKER_RUNNING)
		return -ESRCH;
	worker_end(w, NXSIM_WORKER_KILLED);
	return 0;
}

void nxsim__worker_info(struct nxsim_vm *vm, struct nxsim_worker_info *info)
{
	struct nxsim__worker *w = worker_of(vm);

	*info = (struct nxsim_worker_info){ .state = NXSIM_WORKER_NONE,
					    .deadline_ns = NXSIM_NEVER };
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	info->state = w->state;
	info->deadline_ns = w->deadline_ns;
	info->created_ns = w->created_ns;
	info->last_jiffies = READ_ONCE(w->last_jiffies);
	pthread_mutex_unlock(&w->lock);
	info->wakes = atomic_load(&w->wakes);
	info->passes = atomic_load(&w->passes);
}
