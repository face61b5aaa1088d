// SPDX-License-Identifier: GPL-2.0-only
/*
 * B5's simulator speed and size (docs/bench.md): ownership events per
 * second on one host core through the
 * XPFO public calls, with the TLB model on, beside the same event stream
 * decoded and dispatched to a no-op (the reference: what reading and
 * dispatching the events costs with no model at all).  Target: at least
 * 10^7 events/s per core.  A second figure runs the stream on a machine
 * with XPFO disabled (ownership tracked, physmap and TLB untouched) beside
 * the same reference.  Bytes per frame are B8's (bench_vm_memory.c).
 *
 * The stream is made here, seeded, valid by construction (the generator
 * tracks every frame's owner): on 4 CPUs, user and kernel allocations,
 * frees, kmap/kunmap pairs and context switches.  Every record counts as
 * one event.
 *
 * The scaling rows: the simulator's time per event of one
 * nxsim_xpfo_run_workload() call (the XPFO run and its no-XPFO baseline,
 * the same events each) at 4, 64, 256 and 512 modelled CPUs, beside the
 * same call at 16 CPUs (the reference, interleaved), for the compile-like
 * workload under v7's default policy and the I/O-heavy one under eager
 * shootdowns.  Target: 512 CPUs within 2x of 16 per event (the work of
 * an event grows with the CPUs that hold what it flushes, not with all
 * CPUs).
 *
 * Left out: B5's replay of a whole kernel build's page-allocation trace
 * (the tree has short captures only, docs/traces.md).
 */
#include <errno.h>
#include <stdlib.h>

#include <nxsim/rng.h>
#include <nxsim/xpfo.h>

#include "harness.h"

#define NR_CPUS 4
#define NR_FRAMES 16384
#define NR_DOMAINS 4

enum ev_op {
	EV_ALLOC_USER,
	EV_ALLOC_KERNEL,
	EV_FREE,
	EV_KMAP,
	EV_KUNMAP,
	EV_SWITCH
};

struct ev {
	uint8_t op;
	uint8_t cpu;
	uint16_t domain;
	uint32_t pfn;
};

struct stream {
	struct ev *ev;
	size_t n;
};

struct sim_side {
	const struct stream *s;
	enum nxsim_xpfo_version version;
	const char *policy;
	bool disabled;
};

struct noop_side {
	const struct stream *s;
	uint64_t sink;
};

/* Seeded, valid stream of @n records over NR_FRAMES frames. */
static int stream_make(struct stream *s, size_t n, uint64_t seed)
{
	uint32_t *pool = malloc(NR_FRAMES * sizeof(*pool));
	struct nxsim_rng rng;
	size_t nr_free = NR_FRAMES, i = 0; /* pool[0..nr_free) are free */

	s->ev = malloc(n * sizeof(*s->ev));
	if (!pool || !s->ev) {
		free(pool);
		free(s->ev);
		return -ENOMEM;
	}
	s->n = n;
	for (uint32_t f = 0; f < NR_FRAMES; f++)
		pool[f] = f;
	nxsim_rng_seed(&rng, seed);
	while (i < n) {
		uint8_t cpu = (uint8_t)nxsim_rng_below(&rng, NR_CPUS);
		unsigned int r = (unsigned int)nxsim_rng_below(&rng, 100);
		size_t used = NR_FRAMES - nr_free;
		size_t k;

		if (r < 5) {
			s->ev[i++] = (struct ev){ EV_SWITCH, cpu,
						  (uint16_t)nxsim_rng_below(
							  &rng, NR_DOMAINS + 1),
						  0 };
			continue;
		}
		if ((r < 50 && nr_free > NR_FRAMES / 4) || !used) {
			/* allocate the most recently freed frame (LIFO) */
			uint32_t pfn = pool[--nr_free];
			bool user = r < 30;

			s->ev[i++] = (struct ev){
				user ? EV_ALLOC_USER : EV_ALLOC_KERNEL, cpu,
				user ? (uint16_t)(1 +
						  nxsim_rng_below(&rng,
								  NR_DOMAINS)) :
				       0,
				pfn
			};
			continue;
		}
		k = nr_free + nxsim_rng_below(&rng, used);
		if (r < 80 || i + 2 > n) {
			uint32_t pfn = pool[k];

			pool[k] = pool[nr_free];
			pool[nr_free++] = pfn;
			s->ev[i++] = (struct ev){ EV_FREE, cpu, 0, pfn };
		} else {
			s->ev[i++] = (struct ev){ EV_KMAP, cpu, 0, pool[k] };
			s->ev[i++] = (struct ev){ EV_KUNMAP, cpu, 0, pool[k] };
		}
	}
	free(pool);
	return 0;
}

static int sim_dispatch(struct nxsim_xpfo *m, const struct ev *e)
{
	switch (e->op) {
	case EV_ALLOC_USER:
		return nxsim_xpfo_alloc_user(m, e->cpu, e->pfn, e->domain, 0);
	case EV_ALLOC_KERNEL:
		return nxsim_xpfo_alloc_kernel(m, e->cpu, e->pfn);
	case EV_FREE:
		return nxsim_xpfo_free(m, e->cpu, e->pfn);
	case EV_KMAP:
		return nxsim_xpfo_kmap(m, e->cpu, e->pfn);
	case EV_KUNMAP:
		return nxsim_xpfo_kunmap(m, e->cpu, e->pfn);
	default:
		return nxsim_xpfo_context_switch(m, e->cpu, e->domain);
	}
}

/* value = events/s; the machine is made and freed outside the timing. */
static int sim_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct sim_side *p = arg;
	struct nxsim_xpfo_config cfg = { .nr_cpus = NR_CPUS,
					 .nr_frames = NR_FRAMES,
					 .version = p->version,
					 .policy = p->policy,
					 .disabled = p->disabled };
	struct nxsim_xpfo *m;
	uint64_t t0, t1;
	int rc, err = 0;

	rc = nxsim_xpfo_create(&cfg, &m);
	if (rc)
		return rc;
	t0 = bench_now_ns();
	for (size_t i = 0; i < p->s->n; i++)
		err |= sim_dispatch(m, &p->s->ev[i]);
	t1 = bench_now_ns();
	*value = (double)p->s->n * 1e9 / (double)(t1 - t0);
	nxsim_xpfo_destroy(m);
	return err ? -EIO : 0;
}

/* The reference's model: nothing, but the call is a real call. */
static __attribute__((noinline)) int noop_event(struct noop_side *p,
						unsigned int op,
						unsigned int cpu, uint64_t pfn,
						unsigned int domain)
{
	p->sink += op ^ cpu ^ pfn ^ domain;
	__asm__ volatile("" ::: "memory");
	return 0;
}

static int noop_dispatch(struct noop_side *p, const struct ev *e)
{
	switch (e->op) {
	case EV_ALLOC_USER:
		return noop_event(p, 0, e->cpu, e->pfn, e->domain);
	case EV_ALLOC_KERNEL:
		return noop_event(p, 1, e->cpu, e->pfn, 0);
	case EV_FREE:
		return noop_event(p, 2, e->cpu, e->pfn, 0);
	case EV_KMAP:
		return noop_event(p, 3, e->cpu, e->pfn, 0);
	case EV_KUNMAP:
		return noop_event(p, 4, e->cpu, e->pfn, 0);
	default:
		return noop_event(p, 5, e->cpu, 0, e->domain);
	}
}

static int noop_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct noop_side *p = arg;
	uint64_t t0, t1;
	int err = 0;

	t0 = bench_now_ns();
	for (size_t i = 0; i < p->s->n; i++)
		err |= noop_dispatch(p, &p->s->ev[i]);
	t1 = bench_now_ns();
	*value = (double)p->s->n * 1e9 / (double)(t1 - t0);
	return err ? -EIO : 0;
}

static int run_config(struct bench_ctx *ctx, const struct stream *s,
		      const char *name, enum nxsim_xpfo_version version,
		      const char *policy, bool disabled)
{
	struct sim_side sim = { s, version, policy, disabled };
	struct noop_side noop = { .s = s };
	struct bench_side sides[2] = {
		{ "XPFO machine", sim_rep, &sim },
		{ "decode + no-op dispatch", noop_rep, &noop },
	};
	struct bench_pair p = { 0 };
	char fig[64], params[256];
	int rc;

	rc = bench_interleave(ctx, name, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s.events_per_s", name);
		snprintf(params, sizeof(params),
			 "{\"cpus\":%u,\"frames\":%u,\"events\":%zu,"
			 "\"version\":\"v%d\",\"policy\":\"%s\","
			 "\"disabled\":%s,\"sink\":%" PRIu64 "}",
			 NR_CPUS, NR_FRAMES, s->n, 6 + (int)version,
			 policy ? policy : "default",
			 disabled ? "true" : "false", (noop.sink & 1));
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "ev/s",
				.ref_name = "the same event stream decoded and "
					    "dispatched to a no-op (ev/s)",
				.target = { BENCH_TARGET_VALUE_MIN, 1e7 },
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

struct scale_side {
	const char *workload;
	const char *policy;
	unsigned int cpus;
	uint64_t steps;
	uint64_t seed;
};

/* value = ns per event of one nxsim_xpfo_run_workload() call. */
static int scale_rep(void *arg, double *value, struct bench_samples *lat)
{
	const struct scale_side *p = arg;
	struct nxsim_xpfo_run run = {
		.workload = p->workload,
		.policy = p->policy,
		.version = NXSIM_XPFO_V7,
		.nr_cpus = p->cpus,
		.events = p->steps,
		.seed = p->seed,
	};
	struct nxsim_xpfo_result res;
	uint64_t t0, t1;
	int rc;

	t0 = bench_now_ns();
	rc = nxsim_xpfo_run_workload(&run, &res);
	t1 = bench_now_ns();
	if (rc)
		return rc;
	*value = (double)(t1 - t0) / (2.0 * (double)res.events);
	return 0;
}

static int run_scaling(struct bench_ctx *ctx, const char *workload,
		       const char *policy, unsigned int cpus, uint64_t steps)
{
	struct scale_side big = { workload, policy, cpus, steps, ctx->seed };
	struct scale_side ref = { workload, policy, 16, steps, ctx->seed };
	struct bench_side sides[2] = {
		{ "N CPUs", scale_rep, &big },
		{ "16 CPUs", scale_rep, &ref },
	};
	struct bench_pair p = { 0 };
	char fig[64], params[256];
	int rc;

	snprintf(fig, sizeof(fig), "scaling.%s.c%u.ns_per_event", workload,
		 cpus);
	rc = bench_interleave(ctx, fig, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(params, sizeof(params),
			 "{\"workload\":\"%s\",\"policy\":\"%s\","
			 "\"version\":\"v7\",\"cpus\":%u,"
			 "\"steps_per_cpu\":%" PRIu64 "}",
			 workload, policy ? policy : "default", cpus, steps);
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "ns",
				.ref_name =
					"the same nxsim_xpfo_run_workload() "
					"at 16 CPUs (ns per event)",
				.target = { cpus == 512 ?
						    BENCH_TARGET_RATIO_MAX :
						    BENCH_TARGET_NONE,
					    2 },
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

static int xpfo_scaling_run(struct bench_ctx *ctx)
{
	static const unsigned int cpus[] = { 4, 64, 256, 512 };
	static const struct {
		const char *workload, *policy;
	} rows[] = { { "compile", NULL }, { "io", "eager" } };
	uint64_t steps = ctx->mode == BENCH_TINY  ? 10 :
			 ctx->mode == BENCH_QUICK ? 500 :
						    2000;
	int rc = 0;

	for (size_t r = 0; r < ARRAY_SIZE(rows) && !rc; r++)
		for (size_t c = 0; c < ARRAY_SIZE(cpus) && !rc; c++)
			rc = run_scaling(ctx, rows[r].workload, rows[r].policy,
					 cpus[c], steps);
	return rc;
}

static int xpfo_events_run(struct bench_ctx *ctx)
{
	size_t n = ctx->mode == BENCH_TINY  ? 20000 :
		   ctx->mode == BENCH_QUICK ? 1000000 :
					      4000000;
	struct stream s;
	int rc;

	rc = stream_make(&s, n, ctx->seed);
	if (rc)
		return rc;
	rc = run_config(ctx, &s, "deferred_v8", NXSIM_XPFO_V8, "deferred",
			false);
	if (!rc)
		rc = run_config(ctx, &s, "eager_v7", NXSIM_XPFO_V7, "eager",
				false);
	if (!rc)
		rc = run_config(ctx, &s, "no_xpfo", NXSIM_XPFO_V8, NULL, true);
	free(s.ev);
	return rc ? rc : xpfo_scaling_run(ctx);
}

const struct bench bench_xpfo_events = {
	.name = "xpfo_events",
	.title = "B5 speed: XPFO ownership events/s vs decode + no-op "
		 "dispatch; ns per event at N CPUs vs 16",
	.run = xpfo_events_run,
};
