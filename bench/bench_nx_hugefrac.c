// SPDX-License-Identifier: GPL-2.0-only
/*
 * The huge-page fraction over virtual time (docs/bench.md): how much of
 * a guest's memory the NX recovery worker gives back to 2 MiB mappings,
 * for recovery ratios 1, 10 and 60 (default periods: 3600 s / ratio),
 * while the guest executes from a code region that shrinks.
 *
 * The guest (profile 6.6, mitigation on): R regions of 2 MiB backed by
 * 2 MiB host pages, all read once at t = 0 (mapped huge, non-executable).
 * Every 10 s of virtual time it fetches instructions from X random 4 KiB
 * pages of its code region, the first C(t) regions, and reads D random
 * pages of all R (data: a read after recovery maps the region huge
 * again).  C(t) = R for the first sixth of the run, shrinks linearly to
 * R/8 by half of it, then stays.  An exec fetch into a huge region splits
 * it (nx_lpage_splits); the worker's passes on the virtual clock zap
 * ceil(n / ratio) of the split pages each period.
 *
 * Sampled every 10 s, two measures: "mapped", pages_2m / (pages_2m +
 * pages_4k / 512), the share of mapped memory in 2 MiB pages (a region
 * whose split page was zapped and that is only partly refaulted at 4K
 * weighs less than a region, so it can exceed the ideal); and "regions",
 * pages_2m / R, the share of the guest's regions mapped huge.  Figure per
 * ratio and measure: its mean over the run, beside the mean of the same
 * run's ideal, 1 - C(t)/R (every region no longer executed from mapped
 * huge at once); the ratio below 1 is the huge-page time recovery lags.  The curves, with the ideal, go to nx_hugefrac.png
 * and nx_hugefrac_regions.png.  Nothing is timed.
 */
#include <errno.h>
#include <stdlib.h>

#include <nxsim/rng.h>

#include "harness.h"
#include "nx_env.h"

#define TICK_S 10
#define NS_PER_S 1000000000ull

static const unsigned int ratios[] = { 1, 10, 60 };
#define NR_RATIOS ARRAY_SIZE(ratios)

struct shape {
	unsigned int regions;	   /* R */
	unsigned int execs, reads; /* per tick */
	unsigned int ticks;
};

/* C(t): the code region, in regions, at tick @t. */
static unsigned int code_regions(const struct shape *sh, unsigned int t)
{
	unsigned int r = sh->regions, lo = r / 8 ? r / 8 : 1;
	unsigned int t1 = sh->ticks / 6, t2 = sh->ticks / 2;

	if (t <= t1)
		return r;
	if (t >= t2)
		return lo;
	return r - (unsigned int)((uint64_t)(r - lo) * (t - t1) / (t2 - t1));
}

enum measure {
	MAPPED,	 /* pages_2m / (pages_2m + pages_4k / 512) */
	REGIONS, /* pages_2m / R */
	NR_MEASURES
};

/* One run at @ratio: both measures at every tick. */
static int run_ratio(const struct shape *sh, unsigned int ratio, uint64_t seed,
		     double *frac[NR_MEASURES], uint64_t *passes)
{
	uint64_t bytes = (uint64_t)sh->regions * NX_2M;
	struct nxsim_worker_info wi;
	struct nxsim_rng rng;
	struct nx_env e;
	int rc;

	rc = nx_env_create(&e, "6.6", (int)ratio, bytes, NXSIM_PG_LEVEL_2M);
	if (rc)
		return rc;
	nxsim_rng_seed(&rng, seed);
	rc = nx_env_touch(&e, NXSIM_ACCESS_READ, bytes, NX_2M);
	for (unsigned int t = 0; t < sh->ticks && !rc; t++) {
		unsigned int c = code_regions(sh, t);

		for (unsigned int i = 0; i < sh->execs && !rc; i++)
			rc = nxsim_vcpu_access(
				e.vcpu, NXSIM_ACCESS_EXEC,
				NX_GPA_BASE + nxsim_rng_below(&rng, c) * NX_2M +
					(nxsim_rng_below(&rng, 512) << 12),
				NULL);
		for (unsigned int i = 0; i < sh->reads && !rc; i++)
			rc = nxsim_vcpu_access(
				e.vcpu, NXSIM_ACCESS_READ,
				NX_GPA_BASE +
					nxsim_rng_below(&rng, sh->regions) *
						NX_2M +
					(nxsim_rng_below(&rng, 512) << 12),
				NULL);
		struct nxsim_vm_stats st = { 0 };

		if (!rc)
			rc = nxsim_vm_stats(e.vm, &st);
		double p2m = (double)st.pages_2m;
		double p4k = (double)st.pages_4k;

		frac[MAPPED][t] = p2m + p4k > 0 ? p2m / (p2m + p4k / 512) : 0;
		frac[REGIONS][t] = p2m / sh->regions;
		nxsim_clock_advance(nxsim_host_clock(e.host),
				    TICK_S * NS_PER_S);
	}
	if (!rc)
		rc = nxsim_vm_worker_info(e.vm, &wi);
	if (!rc)
		*passes = wi.passes;
	nx_env_close(&e);
	return rc;
}

static const struct {
	const char *fig, *plot, *ylabel, *ref_name;
} measures[NR_MEASURES] = {
	[MAPPED] = { "mapped_2m_mean", "nx_hugefrac",
		     "pages_2m / (pages_2m + pages_4k / 512)",
		     "the same run's ideal, 1 - code regions / regions, mean "
		     "over the run (the measure counts only mapped 4K pages, "
		     "so it can exceed it)" },
	[REGIONS] = { "regions_2m_mean", "nx_hugefrac_regions",
		      "pages_2m / regions",
		      "the same run's ideal, 1 - code regions / regions, mean "
		      "over the run" },
};

static const char *const titles[NR_RATIOS] = { "ratio 1", "ratio 10",
					       "ratio 60" };

/* The figure and the plot of measure @m over every ratio. */
static int report_measure(struct bench_ctx *ctx, const struct shape *sh,
			  enum measure m, double *x,
			  double *y[NR_RATIOS][NR_MEASURES], double *ideal,
			  const uint64_t *passes)
{
	unsigned int tail = sh->ticks;
	struct bench_series s[NR_RATIOS + 1];
	char fig[64], params[256];
	int rc = 0;

	for (size_t i = 0; i < NR_RATIOS && !rc; i++) {
		double mean = 0, ref = 0;

		for (unsigned int t = 0; t < tail; t++) {
			mean += y[i][m][t] / tail;
			ref += ideal[t] / tail;
		}
		snprintf(fig, sizeof(fig), "ratio%u.%s", ratios[i],
			 measures[m].fig);
		snprintf(params, sizeof(params),
			 "{\"ratio\":%u,\"period_s\":%u,\"regions\":%u,"
			 "\"execs_per_tick\":%u,\"reads_per_tick\":%u,"
			 "\"tick_s\":%u,\"run_s\":%u,\"passes\":%" PRIu64 ","
			 "\"profile\":\"6.6\"}",
			 ratios[i], 3600 / ratios[i], sh->regions, sh->execs,
			 sh->reads, TICK_S, sh->ticks * TICK_S, passes[i]);
		rc = bench_report(ctx, &(struct bench_figure){
					       .figure = fig,
					       .unit = "frac",
					       .value = mean,
					       .ref_name = measures[m].ref_name,
					       .ref = ref,
					       .params = params,
					       .reps = 1,
					       .modelled = true });
		s[i] = (struct bench_series){ titles[i], x, y[i][m],
					      sh->ticks };
	}
	s[NR_RATIOS] = (struct bench_series){ "ideal (1 - code/R)", x, ideal,
					      sh->ticks };
	if (!rc)
		rc = bench_plot(ctx, measures[m].plot,
				"Huge-page fraction, code region shrinking "
				"(profile 6.6)",
				"virtual minutes", measures[m].ylabel, 0, s,
				NR_RATIOS + 1);
	return rc;
}

static int nx_hugefrac_run(struct bench_ctx *ctx)
{
	struct shape sh = {
		.regions = ctx->mode == BENCH_TINY  ? 16 :
			   ctx->mode == BENCH_QUICK ? 64 :
						      256,
		.ticks = (ctx->mode == BENCH_TINY  ? 3600 :
			  ctx->mode == BENCH_QUICK ? 6 * 3600 :
						     12 * 3600) /
			 TICK_S,
	};
	double *x = calloc(sh.ticks, sizeof(*x));
	double *ideal = calloc(sh.ticks, sizeof(*ideal));
	double *y[NR_RATIOS][NR_MEASURES] = { { 0 } };
	uint64_t passes[NR_RATIOS] = { 0 };
	int rc = x && ideal ? 0 : -ENOMEM;

	sh.execs = sh.regions / 4;
	sh.reads = sh.regions / 2;
	for (size_t i = 0; i < NR_RATIOS; i++)
		for (size_t m = 0; m < NR_MEASURES; m++)
			if (!(y[i][m] = calloc(sh.ticks, sizeof(double))))
				rc = -ENOMEM;
	for (unsigned int t = 0; !rc && t < sh.ticks; t++) {
		x[t] = (double)t * TICK_S / 60;
		ideal[t] = 1 - (double)code_regions(&sh, t) / sh.regions;
	}
	for (size_t i = 0; i < NR_RATIOS && !rc; i++) {
		bench_progress(ctx, "ratio %u", ratios[i]);
		rc = run_ratio(&sh, ratios[i], ctx->seed, y[i], &passes[i]);
	}
	for (size_t m = 0; m < NR_MEASURES && !rc; m++)
		rc = report_measure(ctx, &sh, (enum measure)m, x, y, ideal,
				    passes);
	for (size_t i = 0; i < NR_RATIOS; i++)
		for (size_t m = 0; m < NR_MEASURES; m++)
			free(y[i][m]);
	free(ideal);
	free(x);
	return rc;
}

const struct bench bench_nx_hugefrac = {
	.name = "nx_hugefrac",
	.title = "Huge-page fraction over virtual time, recovery ratios 1, 10, "
		 "60, shrinking code region",
	.run = nx_hugefrac_run,
};
