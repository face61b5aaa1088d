// SPDX-License-Identifier: GPL-2.0-only
/*
 * B7, worker wake / recovery tick (docs/bench.md): the cost of
 * delivering one periodic recovery tick to one of N parked recovery
 * workers (N = 1, 200, 1000) on the virtual clock.  Each tick is one
 * nxsim_clock_advance() to the next deadline, which runs one worker's
 * loop: wake, one recovery pass (kvm_recover_nx_huge_pages() on a VM
 * without mappings) and the re-armed sleep of one period.  The VMs are
 * created one jiffy apart, so their deadlines never coincide.  The
 * latencies come from ticks each timed alone, the mean cost of a tick from
 * as many more run back to back.
 *
 * Reference, interleaved: the one-way wake latency of a real parked
 * thread, pthread_cond_signal() to the woken thread's first timestamp,
 * for one of N parked threads chosen at random, with the signalling
 * thread spinning until the wake lands (the condvar-wake probe of
 * docs/bench.md).
 *
 * Left out: wakes through parameter writes (each runs the same loop) and
 * recovery work on real mappings, which the MMU module will add.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <nxsim/host.h>
#include <nxsim/rng.h>
#include <nxsim/vm.h>

#include "harness.h"

/* HZ=250: one jiffy. */
#define JIFFY_NS 4000000ull
/* Polls of the wake counter before the measuring thread yields. */
#define SPIN_LIMIT 100000u

struct sim_side {
	unsigned int n, ticks;
	struct nxsim_host *host;
	struct nxsim_clock *clock;
	struct nxsim_vm **vms;
	uint64_t events;     /* events run by all reps */
	uint64_t ticks_done; /* ticks measured by all reps */
};

struct cv_worker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t seq; /* bumped by each signal, under lock */
	uint64_t t_signal;
	bool stop;
	pthread_t thread;
	struct cv_side *side;
};

struct cv_side {
	unsigned int n, ticks;
	struct cv_worker *w;
	struct nxsim_rng rng;
	uint64_t signalled;	   /* wakes sent, by the measuring thread */
	_Atomic uint64_t woken;	   /* wakes completed */
	_Atomic uint64_t last_lat; /* latency of the last wake, ns */
};

static int sim_setup(struct sim_side *s)
{
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true,
					 .profile = "6.12" };
	int rc;

	s->vms = calloc(s->n, sizeof(*s->vms));
	if (!s->vms)
		return -ENOMEM;
	rc = nxsim_host_create(&cfg, &s->host);
	if (rc)
		return rc;
	s->clock = nxsim_host_clock(s->host);
	for (unsigned int i = 0; i < s->n; i++) {
		rc = nxsim_vm_create(s->host, &s->vms[i]);
		if (rc)
			return rc;
		if (nxsim_clock_advance(s->clock, JIFFY_NS) < 0)
			return -EIO;
	}
	return 0;
}

static int sim_teardown(struct sim_side *s)
{
	int rc = 0;

	for (unsigned int i = 0; i < s->n && s->vms; i++)
		if (s->vms[i] && nxsim_vm_destroy(s->vms[i]))
			rc = -EIO;
	if (s->host && nxsim_host_destroy(s->host))
		rc = -EBUSY;
	free(s->vms);
	return rc;
}

/*
 * @s->ticks ticks; with @lat, each timed on its own and its ns added to
 * @lat.
 */
static int sim_ticks(struct sim_side *s, struct bench_samples *lat)
{
	uint64_t next, t0 = 0;
	int64_t ran;
	int rc = 0;

	for (unsigned int k = 0; k < s->ticks && !rc; k++) {
		next = nxsim_clock_next_event(s->clock);
		if (next == NXSIM_NEVER)
			return -EIO;
		next -= nxsim_clock_now(s->clock);
		if (lat)
			t0 = bench_now_ns();
		ran = nxsim_clock_advance(s->clock, next);
		if (lat)
			rc = bench_samples_add(lat,
					       (double)(bench_now_ns() - t0));
		if (ran < 0)
			return (int)ran;
		s->events += (uint64_t)ran;
		s->ticks_done++;
	}
	return rc;
}

/*
 * @lat += ns of each tick of a run, timed one by one; value = mean ns per
 * tick of a second run, back to back.  The mean leaves out the two clock
 * reads around each timed tick: here they cost about as much as the tick.
 * The timed run comes first, right after the reference's rep, after which
 * the workers can be out of the cache: where a run visits each VM
 * only twice (N=1000, --quick), half its ticks are such first visits, and
 * wake_p50, the median of that half-and-half mix, moves with how many of
 * them miss.
 */
static int sim_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct sim_side *s = arg;
	uint64_t start;
	int rc = sim_ticks(s, lat);

	start = bench_now_ns();
	if (!rc)
		rc = sim_ticks(s, NULL);
	*value = (double)(bench_now_ns() - start) / s->ticks;
	return rc;
}

static void *cv_thread(void *arg)
{
	struct cv_worker *w = arg;
	struct cv_side *s = w->side;
	uint64_t seen = 0, now;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->seq == seen && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		now = bench_now_ns();
		seen = w->seq;
		atomic_store(&s->last_lat, now - w->t_signal);
		atomic_fetch_add(&s->woken, 1);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static int cv_setup(struct cv_side *s, uint64_t seed)
{
	nxsim_rng_seed(&s->rng, seed);
	s->w = calloc(s->n, sizeof(*s->w));
	if (!s->w)
		return -ENOMEM;
	for (unsigned int i = 0; i < s->n; i++) {
		struct cv_worker *w = &s->w[i];

		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		w->side = s;
		if (pthread_create(&w->thread, NULL, cv_thread, w)) {
			pthread_cond_destroy(&w->cond);
			pthread_mutex_destroy(&w->lock);
			s->n = i;
			return -EAGAIN;
		}
	}
	return 0;
}

static void cv_teardown(struct cv_side *s)
{
	for (unsigned int i = 0; i < s->n; i++) {
		struct cv_worker *w = &s->w[i];

		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
	}
	free(s->w);
}

/* value = mean ns per wake; @lat += one-way wake latency, ns. */
static int cv_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct cv_side *s = arg;
	uint64_t start = bench_now_ns(), target;
	int rc = 0;

	for (unsigned int k = 0; k < s->ticks && !rc; k++) {
		struct cv_worker *w = &s->w[nxsim_rng_below(&s->rng, s->n)];

		target = ++s->signalled;
		pthread_mutex_lock(&w->lock);
		w->seq++;
		w->t_signal = bench_now_ns();
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		/*
		 * Spin, as the condvar-wake probe did, so the wakee runs on
		 * another, idle CPU; yield after ~0.1 ms in case there is
		 * none.
		 */
		for (unsigned int spin = 0; atomic_load(&s->woken) < target;
		     spin++)
			if (spin > SPIN_LIMIT)
				sched_yield();
		rc = bench_samples_add(lat, (double)atomic_load(&s->last_lat));
	}
	*value = (double)(bench_now_ns() - start) / s->ticks;
	return rc;
}

static int report(struct bench_ctx *ctx, unsigned int n, struct bench_pair *p,
		  const struct sim_side *sim)
{
	const char *ref = "real condvar wake of one of N parked threads (ns)";
	static const struct {
		const char *name;
		double pct;
		struct bench_target target;
	} rows[] = {
		{ "wake_p50", 50, { BENCH_TARGET_VALUE_MAX, 100 } },
		{ "wake_p99", 99, { BENCH_TARGET_VALUE_MAX, 1000 } },
		{ "wake_max", 100, { BENCH_TARGET_VALUE_MAX, JIFFY_NS } },
	};
	char fig[64], params[128], text[160];
	int rc;

	snprintf(params, sizeof(params),
		 "{\"N\":%u,\"ticks_per_rep\":%u,\"timed_ticks_per_rep\":%u,"
		 "\"profile\":\"6.12\",\"hz\":250}",
		 n, 2 * sim->ticks, sim->ticks);
	snprintf(fig, sizeof(fig), "virtual.N%u.ns_per_tick", n);
	rc = bench_report_pair(
		ctx, p,
		&(struct bench_figure){
			.figure = fig,
			.unit = "ns",
			.ref_name =
				"real condvar wake, signal to wake, mean (ns)",
			.target = { BENCH_TARGET_RATIO_MAX, 0.01 },
			.params = params });
	for (size_t i = 0; i < ARRAY_SIZE(rows) && !rc; i++) {
		snprintf(fig, sizeof(fig), "virtual.N%u.%s", n, rows[i].name);
		rc = bench_report(
			ctx, &(struct bench_figure){ .figure = fig,
						     .unit = "ns",
						     .ref_name = ref,
						     .target = rows[i].target,
						     .params = params,
						     .from = p,
						     .lat = true,
						     .pct = rows[i].pct });
	}
	if (rc)
		return rc;
	snprintf(fig, sizeof(fig), "virtual.N%u.one_pass_per_tick", n);
	snprintf(text, sizeof(text),
		 "each tick ran exactly one worker loop: %" PRIu64
		 " events in %" PRIu64 " "
		 "ticks",
		 sim->events, sim->ticks_done);
	return bench_report_check(ctx, fig, text,
				  sim->events == sim->ticks_done);
}

/* Distributions of both sides, in ns (sorts the pooled latencies). */
static int plot(struct bench_ctx *ctx, unsigned int n, struct bench_pair *p)
{
	static const char *const titles[] = { "virtual-clock tick",
					      "real condvar wake" };
	char name[32], title[96];

	snprintf(name, sizeof(name), "wake_latency_N%u", n);
	snprintf(title, sizeof(title),
		 "Waking one of %u parked recovery workers", n);
	return bench_plot_cdf(ctx, name, title, "latency (ns)", p->lat, titles,
			      2);
}

static int run_n(struct bench_ctx *ctx, unsigned int n, unsigned int ticks)
{
	struct sim_side sim = { .n = n, .ticks = ticks };
	struct cv_side cv = { .n = n, .ticks = ticks };
	struct bench_side sides[2] = {
		{ "virtual-clock worker", sim_rep, &sim },
		{ "real condvar wake", cv_rep, &cv },
	};
	struct bench_pair p = { 0 };
	char what[32];
	int rc, rc2;

	snprintf(what, sizeof(what), "N=%u", n);
	bench_progress(ctx, "%s: parking %u workers of each kind", what, n);
	rc = sim_setup(&sim);
	if (!rc)
		rc = cv_setup(&cv, ctx->seed + n);
	if (!rc)
		rc = bench_interleave(ctx, what, bench_reps(ctx), sides, &p);
	if (!rc)
		rc = report(ctx, n, &p, &sim);
	if (!rc)
		rc = plot(ctx, n, &p);
	bench_pair_free(&p);
	if (cv.w)
		cv_teardown(&cv);
	rc2 = sim_teardown(&sim);
	return rc ? rc : rc2;
}

static int worker_wake_run(struct bench_ctx *ctx)
{
	static const unsigned int tiny[] = { 1, 20 },
				  sizes[] = { 1, 200, 1000 };
	const unsigned int *ns = ctx->mode == BENCH_TINY ? tiny : sizes;
	size_t nr = ctx->mode == BENCH_TINY ? 2 : 3;
	unsigned int ticks = ctx->mode == BENCH_TINY  ? 200 :
			     ctx->mode == BENCH_QUICK ? 2000 :
							20000;
	int rc = 0;

	for (size_t i = 0; i < nr && !rc; i++)
		rc = run_n(ctx, ns[i], ticks);
	if (!rc)
		rc = bench_report_published(
			ctx, "cvwake_reference_machine",
			"condvar wake of one of N parked threads, p50 / p99 / "
			"max: N=1 1.1 us / 1.7 us / 4.26 ms; N=200 13.7 us / "
			"40.5 us / 4.18 ms; N=1000 18.3 us / 44.0 us / 4.56 ms",
			"condvar-wake probe on the 2-core reference machine, "
			"not this run (docs/bench.md)");
	return rc;
}

const struct bench bench_worker_wake = {
	.name = "worker_wake",
	.title = "B7: recovery tick to one of N parked workers on the "
		 "virtual clock vs a real condvar wake",
	.run = worker_wake_run,
};
