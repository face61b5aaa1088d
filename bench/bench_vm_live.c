// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bring-up at scale (docs/bench.md): what a VM's bring-up (KVM_CREATE_VM,
 * KVM_CREATE_VCPU, first KVM_RUN; profile 6.14, the worker made at the
 * first run, virtual clock) costs, and how much resident memory a VM
 * takes, as one host grows from 10^2 to 10^5 live VMs (tiny: 10^2 to
 * 10^3), each level beside the same figure at 10^2 in the same run.
 *
 * A burst brings a fresh host up to the top level one VM at a time, then
 * destroys it; the benchmark runs 1 + reps bursts back to back.
 *   rss_per_vm    the first burst, on the process's fresh memory (the
 *                 benchmark runs first, bench/registry.c): the RSS growth
 *                 (/proc/self/statm) from before its first VM to L live
 *                 VMs, over L;
 *   bringup_ns    the bursts after it, which should live on the memory the
 *                 first one freed: thread CPU time per bring-up from L/10
 *                 to L live VMs (page faults count, preemption does not),
 *                 the median over bursts;
 *   rss_regrowth  what those bursts add to the first one's RSS at the top
 *                 level, per VM, beside the bytes a VM holds
 *                 (nxsim_alloc_stats()): freed memory that is not reused
 *                 shows here.
 *
 * At the end it gives the freed memory back (nxsim_alloc_trim()), so
 * that the benchmarks after it start as they would alone.
 *
 * Left out: wall-clock time (the machines are shared: a preemption would
 * land in one level's window); the destroy, which is not timed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#include <nxsim/alloc.h>
#include <nxsim/host.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "harness.h"
#include "nx_env.h"

#define MAX_LEVELS 4
#define LOWEST 100

/* What one burst measured at each level. */
struct level_sample {
	double cpu_ns;	    /* thread CPU ns per bring-up, L/10 to L live */
	double faults;	    /* minor faults per bring-up, same window */
	long rss;	    /* bytes resident with L live VMs */
	double live_per_vm; /* allocator live bytes per live VM */
};

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long thread_minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_minflt;
}

static int bring_up(struct nxsim_host *host, struct nxsim_vm **vm)
{
	struct nxsim_vcpu *vcpu;
	int rc = nxsim_vm_create(host, vm);

	if (rc)
		return rc;
	rc = nxsim_vcpu_create(*vm, 0, &vcpu);
	if (!rc)
		rc = nxsim_vcpu_run(vcpu);
	return rc;
}

/*
 * One burst up to @levels[@nr - 1] live VMs on a fresh host, then its
 * destruction; @s[i] gets what was measured at @levels[i].
 */
static int burst(struct nxsim_vm **vms, const unsigned int *levels,
		 unsigned int nr, long *rss0, struct level_sample *s)
{
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true,
					 .profile = "6.14" };
	struct nxsim_alloc_stats st;
	struct nxsim_host *host;
	unsigned int i = 0, n;
	double t0 = 0;
	long f0 = 0;
	int rc, err;

	rc = nxsim_host_create(&cfg, &host);
	if (rc)
		return rc;
	*rss0 = nx_rss_bytes();
	for (unsigned int l = 0; l < nr && !rc; l++) {
		while (i < levels[l] && !rc) {
			if (i == levels[l] / 10) {
				f0 = thread_minflt();
				t0 = thread_cpu_ns();
			}
			vms[i] = NULL;
			rc = bring_up(host, &vms[i]);
			if (vms[i])
				i++;
		}
		if (rc)
			break;
		n = levels[l] - levels[l] / 10;
		s[l].cpu_ns = (thread_cpu_ns() - t0) / n;
		s[l].faults = (double)(thread_minflt() - f0) / n;
		s[l].rss = nx_rss_bytes();
		nxsim_alloc_stats(&st);
		s[l].live_per_vm = (double)st.live_bytes / levels[l];
	}
	err = nx_vms_destroy(host, vms, i);
	if (!rc && (*rss0 < 0 || s[nr - 1].rss < 0))
		rc = -EIO;
	return rc ? rc : err;
}

static double median(double *v, unsigned int n)
{
	struct bench_samples s = { .v = v, .n = n, .cap = n };

	return bench_samples_pct(&s, 50);
}

/* The figures of one level: bring-up ns and RSS per VM against 10^2's. */
static int report_level(struct bench_ctx *ctx, unsigned int l,
			const unsigned int *levels,
			struct level_sample (*s)[MAX_LEVELS],
			unsigned int bursts, long rss0, double *worst)
{
	struct bench_pair p = { 0 };
	double faults[BENCH_MAX_REPS], rss, rss_ref;
	char fig[64], params[256];
	int rc = 0;

	for (unsigned int b = 1; b < bursts && !rc; b++) {
		faults[b - 1] = s[b][l].faults;
		rc = bench_samples_add(&p.val[0], s[b][l].cpu_ns);
		if (!rc)
			rc = bench_samples_add(&p.val[1], s[b][0].cpu_ns);
	}
	rss = (double)(s[0][l].rss - rss0) / levels[l];
	rss_ref = (double)(s[0][0].rss - rss0) / levels[0];
	snprintf(params, sizeof(params),
		 "{\"N\":%u,\"window\":[%u,%u],\"profile\":\"6.14\","
		 "\"vcpus\":1,\"faults_per_vm\":%.3f,"
		 "\"first_burst_faults_per_vm\":%.3f,\"alloc\":\"%s\"}",
		 levels[l], levels[l] / 10, levels[l],
		 median(faults, bursts - 1), s[0][l].faults,
		 nxsim_alloc_backend());
	snprintf(fig, sizeof(fig), "N%u.bringup_ns", levels[l]);
	if (!rc)
		rc = bench_report(
			ctx, &(struct bench_figure){
				     .figure = fig,
				     .unit = "ns",
				     .ref_name = "the same at 10^2 live VMs, "
						 "thread CPU (ns)",
				     .target = { BENCH_TARGET_RATIO_MAX, 1.5 },
				     .params = params,
				     .from = &p });
	snprintf(fig, sizeof(fig), "N%u.rss_per_vm", levels[l]);
	if (!rc)
		rc = bench_report(
			ctx,
			&(struct bench_figure){
				.figure = fig,
				.unit = "B",
				.value = rss,
				.ref_name = "the same at 10^2 live VMs, first "
					    "burst (B)",
				.ref = rss_ref,
				.target = { BENCH_TARGET_RATIO_MAX, 1.5 },
				.params = params,
				.reps = 1 });
	worst[0] = fmax(worst[0], median(p.val[0].v, p.val[0].n) /
					  median(p.val[1].v, p.val[1].n));
	worst[1] = fmax(worst[1], rss / rss_ref);
	bench_pair_free(&p);
	return rc;
}

/* What the bursts after the first added to its RSS at the top level. */
static int report_regrowth(struct bench_ctx *ctx, const unsigned int *levels,
			   unsigned int nr,
			   struct level_sample (*s)[MAX_LEVELS],
			   unsigned int bursts, double *regrowth)
{
	double v[BENCH_MAX_REPS];
	unsigned int top = levels[nr - 1];
	char params[128];

	for (unsigned int b = 1; b < bursts; b++)
		v[b - 1] = (double)(s[b][nr - 1].rss - s[0][nr - 1].rss) / top;
	*regrowth = median(v, bursts - 1);
	snprintf(params, sizeof(params),
		 "{\"N\":%u,\"bursts\":%u,\"alloc\":\"%s\"}", top, bursts,
		 nxsim_alloc_backend());
	return bench_report(
		ctx, &(struct bench_figure){
			     .figure = "rss_regrowth_per_vm",
			     .unit = "B",
			     .value = *regrowth,
			     .ref_name = "allocator live bytes per live VM (B)",
			     .ref = s[0][nr - 1].live_per_vm,
			     .target = { BENCH_TARGET_RATIO_MAX, 0.1 },
			     .params = params,
			     .reps = bursts - 1 });
}

static int vm_live_run(struct bench_ctx *ctx)
{
	static const unsigned int levels[MAX_LEVELS] = { LOWEST, 1000, 10000,
							 100000 };
	unsigned int nr = ctx->mode == BENCH_TINY ? 2 : MAX_LEVELS;
	unsigned int bursts = 1 + bench_reps(ctx);
	struct level_sample s[BENCH_MAX_REPS + 1][MAX_LEVELS];
	struct bench_samples calib = { 0 };
	double worst[2] = { 1, 1 }, regrowth = NAN;
	struct nxsim_vm **vms;
	char text[256];
	long rss_start[BENCH_MAX_REPS + 1];
	int rc = 0;

	vms = calloc(levels[nr - 1], sizeof(*vms));
	if (!vms)
		return -ENOMEM;
	for (unsigned int b = 0; b < bursts && !rc; b++) {
		rc = bench_samples_add(&calib, bench_calibrate(ctx));
		if (!rc)
			rc = burst(vms, levels, nr, &rss_start[b], s[b]);
	}
	free(vms);
	/* the benchmarks after it start on the memory a fresh process has */
	nxsim_alloc_trim();
	ctx->calib_min = bench_samples_pct(&calib, 0);
	ctx->calib_max = bench_samples_pct(&calib, 100);
	ctx->calib_ns = bench_samples_pct(&calib, 50);
	bench_samples_free(&calib);
	for (unsigned int l = 0; l < nr && !rc; l++)
		rc = report_level(ctx, l, levels, s, bursts, rss_start[0],
				  worst);
	if (!rc)
		rc = report_regrowth(ctx, levels, nr, s, bursts, &regrowth);
	snprintf(text, sizeof(text),
		 "flat from 10^2 to %u live VMs: worst bring-up %.2fx and "
		 "RSS per VM %.2fx the 10^2 figure (<= 1.5x); later bursts "
		 "add %.0f B per VM",
		 levels[nr - 1], worst[0], worst[1], regrowth);
	if (!rc)
		rc = bench_report_check(ctx, "flat", text,
					worst[0] <= 1.5 && worst[1] <= 1.5);
	return rc;
}

const struct bench bench_vm_live = {
	.name = "vm_live",
	.title = "bring-up cost and RSS per VM from 10^2 to 10^5 live VMs",
	.run = vm_live_run,
};
