// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bring-up lab: VM lifecycle latency in kernel time.
 *
 * A lab loads kvm.ko (a host) on its own virtual clock, makes the
 * background VMs, and runs K creator tasks that bring up M VMs through the
 * library's own calls (KVM_CREATE_VM, KVM_CREATE_VCPU, the first KVM_RUN,
 * and, with a hold time, the close); paths.c turns what each call did
 * into the creator's program of steps and runs it.
 *
 * The lab drives the clock: creators' events (a binary heap by time and
 * arming order) and the clock's timers (the rcu_sync's call_rcu(), the
 * workers' sleeps) run in one time order, a timer first at equal times.
 * A library call runs when its creator's op starts, with the clock moved
 * to that time.  At the end it reports per-VM latencies, their
 * percentiles and funclatency histograms.  docs/bringup.md describes the
 * model, its distribution and its sources.
 *
 * Left out: signals other than the injected -ERESTARTNOINTR; the
 * background VMs' own activity other than the load they put on the CPUs.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/bringup.h>
#include <nxsim/error.h>
#include <nxsim/host.h>
#include <nxsim/rng.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "bringup/bringup_internal.h"
#include "core/alloc.h"
#include "core/compiler.h"
#include "kvm/nx_params.h"

static bool event_before(const struct nxsim__bringup_task *a,
			 const struct nxsim__bringup_task *b)
{
	return a->now < b->now || (a->now == b->now && a->seq < b->seq);
}

/* Arm @t to resume at @when: push it on the event heap. */
void nxsim__bringup_task_arm(struct nxsim__bringup_task *t, uint64_t when,
			     enum nxsim__bringup_resume resume)
{
	struct nxsim__bringup *lab = t->lab;
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
static struct nxsim__bringup_task *event_pop(struct nxsim__bringup *lab)
{
	struct nxsim__bringup_task *first = lab->events[0];
	struct nxsim__bringup_task *last = lab->events[--lab->nr_events];
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

/*
 * Before a first KVM_RUN that makes a worker: every worker_fail_nth-th
 * creation gets a signal during copy_process().
 */
static void maybe_inject_failure(struct nxsim__bringup *lab,
				 struct nxsim__bringup_task *t)
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
static int op_call(struct nxsim__bringup *lab, struct nxsim__bringup_task *t)
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
		nxsim__bringup_push(
			t, NXSIM__ST_SLEEP,
			lab->cfg->hold_ns +
				(lab->cfg->hold_jitter_ns ?
					 nxsim_rng_below(
						 &lab->rng,
						 lab->cfg->hold_jitter_ns) :
					 0));
		break;
	case NXSIM__OP_DESTROY:
		rc = nxsim_vm_destroy(t->vm);
		lab->vms[t->vm_idx] = NULL;
		break;
	}
	lab->cur = NULL;
	nxsim__bringup_push(t, NXSIM__ST_OP_DONE, 0);
	return rc;
}

/* The op that follows @t's finished op, false when @t is done. */
static bool op_next(struct nxsim__bringup *lab, struct nxsim__bringup_task *t)
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
static void op_record(struct nxsim__bringup *lab, struct nxsim__bringup_task *t)
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
static void task_resume(struct nxsim__bringup_task *t)
{
	struct nxsim__bringup *lab = t->lab;

	switch (t->resume) {
	case NXSIM__RESUME_CPU_DONE:
		nxsim__bringup_cpu_release(lab, t->now);
		t->pc++;
		break;
	case NXSIM__RESUME_GP_DONE:
		nxsim__rcu_sync_func(t->gp_rss, t->now);
		t->pc++;
		break;
	case NXSIM__RESUME_NEXT:
		t->pc++;
		break;
	case NXSIM__RESUME_OP:
		break;
	}
	if (t->resume != NXSIM__RESUME_OP && !nxsim__bringup_task_advance(t))
		return;
	for (;;) {
		if (t->resume != NXSIM__RESUME_OP) {
			op_record(lab, t);
			if (!op_next(lab, t))
				return; /* no VM left */
			/* the next op's library call runs at the clock's
			 * time: move the clock there if nothing comes first
			 * (KVM_CREATE_VCPU reads no clock: the next op or
			 * event moves it) */
			if (t->now >= lab->horizon) {
				nxsim__bringup_task_arm(t, t->now,
							NXSIM__RESUME_OP);
				return;
			}
			if (t->op != NXSIM__OP_VCPU)
				nxsim_clock_advance(
					lab->clock,
					t->now - nxsim_clock_now(lab->clock));
		}
		t->resume = NXSIM__RESUME_NEXT;
		t->nsteps = t->pc = 0;
		t->op_start = t->now;
		lab->err = op_call(lab, t);
		/* a new worker may have armed its sleep's timer */
		if (lab->worker_made_now) {
			lab->worker_made_now = false;
			lab->horizon = MIN(lab->horizon,
					   nxsim_clock_next_event(lab->clock));
		}
		if (lab->err || !nxsim__bringup_task_advance(t))
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
	       cfg->creators && cfg->vms && cfg->vms <= NXSIM_BRINGUP_MAX_VMS &&
	       cfg->bg_vms <= NXSIM_BRINGUP_MAX_VMS;
}

/* Load kvm.ko on the lab's clock and make the background VMs. */
static int lab_host(struct nxsim__bringup *lab, struct nxsim_vm ***bgp)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	bool never = cfg->policy == NXSIM_BRINGUP_NEVER;
	struct nxsim_host_config hc = {
		.cpu = { .itlb_multihit = true,
			 .hz = cfg->hz,
			 .no_tdp_mmu = cfg->no_tdp_mmu },
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
	lab->host->bringup_model = lab;
	lab->host->bringup_charge = nxsim__bringup_charge;
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
static int lab_burst(struct nxsim__bringup *lab)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	uint64_t now, next, top;
	struct nxsim__bringup_task *t;

	for (unsigned int i = 0; i < MIN(cfg->creators, cfg->vms); i++) {
		t = &lab->tasks[i];
		t->lab = lab;
		t->idx = t->vm_idx = i;
		nxsim__bringup_task_arm(t, 0, NXSIM__RESUME_OP);
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
		if (top > now) /* nothing is due before top */
			nxsim_clock_advance(lab->clock, top - now);
		lab->horizon = lab->nr_events ? MIN(next, lab->events[0]->now) :
						next;
		task_resume(t);
	}
	return lab->err;
}

/* Tear down: the creators' VMs, the background VMs, the host. */
static void lab_free(struct nxsim__bringup *lab, struct nxsim_vm **bg)
{
	const struct nxsim_bringup_config *cfg = lab->cfg;
	unsigned int i;

	lab->cur = NULL;
	if (!lab->clock)
		return;
	for (i = 0; lab->vms && i < cfg->vms; i++)
		if (lab->vms[i])
			nxsim_vm_destroy(lab->vms[i]);
	nxsim__timer_del_sync(lab->clock, &lab->rss.cb);
	nxsim__timer_del_sync(lab->clock, &lab->cpuset_rss.cb);
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
			      nxsim__bringup_trace_fn fn, void *arg)
{
	struct nxsim_bringup_result out = { 0 };
	struct nxsim_vm **bg = NULL;
	struct nxsim__bringup lab = {
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
	lab.ns = (struct nxsim__bringup_costs_ns){
		nxsim__bringup_us(lab.c.create_vm_us),
		nxsim__bringup_us(lab.c.create_vcpu_us),
		nxsim__bringup_us(lab.c.kvm_run_us),
		nxsim__bringup_us(lab.c.destroy_vm_us),
		nxsim__bringup_us(lab.c.kthread_create_us),
		nxsim__bringup_us(lab.c.kthread_fork_us),
		nxsim__bringup_us(lab.c.kthread_exit_us),
		nxsim__bringup_us(lab.c.wakeup_us),
		nxsim__bringup_us(lab.c.cgroup_attach_us),
		nxsim__bringup_us(lab.c.vhost_create_us),
		nxsim__bringup_us(lab.c.vhost_exit_us),
	};
	nxsim_rng_seed(&lab.rng, cfg->seed);
	lab.load = MIN(1.0, (double)cfg->bg_vms / cfg->cpus * lab.c.bg_vm_load);
	lab.jiffy_ns = NSEC_PER_SEC / hz;
	/* rcu_init_geometry(): RCU_JIFFIES_TILL_FORCE_QS + CPUs / 256 */
	lab.first_fqs = 1 + (hz > 250) + (hz > 500) + cfg->cpus / 256;
	TAILQ_INIT(&lab.cpu_q);
	nxsim__bringup_sync_init(&lab, cfg->favordynmods);
	nxsim__bringup_paths_init(&lab);

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
