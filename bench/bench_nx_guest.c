// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the NX mitigation costs a guest (docs/guest-tlb.md): guests
 * replayed on vCPU TLBs (include/nxsim/workload.h) under nx_huge_pages=off,
 * force and never, on the profiles 6.1 (exec faults zap huge pages), 6.6
 * (they split them in place) and 6.13 (dirty-log recovery in place).
 *
 *  - synth: a synthetic guest (60% fetches, a JIT phase) per code
 *    footprint: modelled cycles beside the same stream's off run (the
 *    overhead ratio), into nx_guest.csv and nx_guest_overhead.png: the
 *    overhead vs code footprint, a line per profile and policy;
 *  - lackey: the lackey fixture (/bin/true) replayed the same way;
 *  - recovery: force with recovery ratios 1, 10, 60 and periods 1 and
 *    10 ms of guest time: the huge-page fraction at the end, and over
 *    time in nx_guest_hugefrac.png;
 *  - execute: the execute_perf_test shape of c4b33d28ea51 on 6.1 and
 *    6.6; the model's zap/split ratio of the execution phase beside the
 *    published 26x (tiny: 4 vCPUs x 8 MiB; quick: 96 x 16 MiB; full:
 *    96 x 1 GiB of 1 GiB pages);
 *  - paging: the synthetic guest (8 MiB of code) through its own page
 *    tables with TDP and with shadow paging, beside gpa = gva: each
 *    policy's cycles over the same paging's off run, 2M and 4K guest
 *    pages on 2M host pages, 6.1 and 6.6;
 *  - replay: end-to-end replay of the lackey fixture (TLB-friendly)
 *    through nxsim_vcpu_access_batch(), accesses/s, beside the same
 *    stream through the bare TLB (nxsim_tlb_lookup() and a 4K fill on a
 *    miss) in the same run.  Target: 5x10^7 accesses/s.
 *
 * Only the replay figure is timed; the rest are model outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/workload.h>
#include <nxsim/host.h>
#include <nxsim/tlb.h>
#include <nxsim/trace.h>
#include <nxsim/vm.h>

#include "harness.h"

#define MIB ((uint64_t)1 << 20)
#define LACKEY NXSIM_BENCH_SOURCE_DIR "/tests/fixtures/lackey-true.txt"

static const char *const profiles[] = { "6.1", "6.6", "6.13" };
static const char *const policies[] = { "off", "force", "never" };
#define NR_PROFILES ARRAY_SIZE(profiles)
#define NR_POLICIES ARRAY_SIZE(policies)

static const char *const csv_cols[] = { "accesses",	   "l1d_mpka",
					"l1i_mpka",	   "l2_mpka",
					"walks",	   "faults",
					"splits",	   "huge_zaps",
					"recovery_zapped", "remote_flushes",
					"vcpu_flushes",	   "huge_fraction",
					"cycles",	   NULL };

static void csv_row(FILE *f, const char *wl, const char *prof, const char *pol,
		    double x, const struct nxsim_workload_result *r,
		    double overhead)
{
	char line[1024];

	if (!r) {
		snprintf(line, sizeof(line), "workload,profile,policy,x");
		bench_stats(line, sizeof(line), BENCH_STATS_CSV_HEAD,
			    NXSIM_STATS_WORKLOAD_RESULT, NULL, csv_cols);
		fprintf(f, "%s,overhead\n", line);
		return;
	}
	line[0] = '\0';
	bench_csv_str(line, sizeof(line), wl);
	bench_csv_str(line, sizeof(line), prof);
	bench_csv_str(line, sizeof(line), pol);
	snprintf(line + strlen(line), sizeof(line) - strlen(line), ",%g", x);
	bench_stats(line, sizeof(line), BENCH_STATS_CSV_ROW,
		    NXSIM_STATS_WORKLOAD_RESULT, r, csv_cols);
	fprintf(f, "%s,%.6g\n", line, overhead);
}

static FILE *csv_open(struct bench_ctx *ctx, const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", ctx->outdir, name);
	return fopen(path, "w");
}

static void synth_shape(struct nxsim_workload_synth *s, uint64_t seed,
			uint64_t code, uint64_t accesses)
{
	memset(s, 0, sizeof(*s));
	s->seed = seed;
	s->accesses = accesses;
	s->code_bytes = code;
	s->data_bytes = 64 * MIB;
	s->exec_permille = 600;
	s->jump_permille = 20;
	s->far_permille = 50;
	s->write_permille = 300;
	s->jit_pages = 64;
}

/* Report @r beside @off: the overhead ratio is value / ref. */
static int report_cycles(struct bench_ctx *ctx, const char *fig,
			 const struct nxsim_workload_result *r,
			 const struct nxsim_workload_result *off,
			 const char *params)
{
	return bench_report(
		ctx, &(struct bench_figure){
			     .figure = fig,
			     .unit = "cycles",
			     .value = (double)r->cycles,
			     .ref_name = "the same stream under "
					 "nx_huge_pages=off (modelled cycles)",
			     .ref = (double)off->cycles,
			     .params = params,
			     .reps = 1,
			     .modelled = true });
}

static int run_synth(struct bench_ctx *ctx, FILE *csv)
{
	static const uint64_t codes_tiny[] = { 2, 8 };
	static const uint64_t codes[] = { 2, 8, 32, 128 };
	const uint64_t *c = ctx->mode == BENCH_TINY ? codes_tiny : codes;
	size_t nc = ctx->mode == BENCH_TINY ? 2 : 4;
	uint64_t acc = ctx->mode == BENCH_TINY	? 20000 :
		       ctx->mode == BENCH_QUICK ? 400000 :
						  2000000;
	double x[8], y[NR_PROFILES][NR_POLICIES][8];
	struct bench_series s[NR_PROFILES * NR_POLICIES];
	char titles[NR_PROFILES * NR_POLICIES][32];
	size_t nr = 0;
	int rc = 0;

	for (size_t p = 0; p < NR_PROFILES && !rc; p++) {
		for (size_t i = 0; i < nc && !rc; i++) {
			struct nxsim_workload_result res[NR_POLICIES];
			struct nxsim_workload_config cfg;
			struct nxsim_workload_synth sy;

			synth_shape(&sy, ctx->seed, c[i] * MIB, acc);
			x[i] = (double)c[i];
			for (size_t q = 0; q < NR_POLICIES && !rc; q++) {
				nxsim_workload_config_default(&cfg);
				cfg.profile = profiles[p];
				cfg.nx_huge_pages = policies[q];
				rc = nxsim_workload_run_synth(&cfg, &sy,
							      &res[q]);
			}
			for (size_t q = 0; q < NR_POLICIES && !rc; q++) {
				char fig[96], params[256];
				double ov = (double)res[q].cycles /
					    (double)res[0].cycles;

				y[p][q][i] = ov;
				csv_row(csv, "synth", profiles[p], policies[q],
					x[i], &res[q], ov);
				if (!q)
					continue;
				snprintf(fig, sizeof(fig),
					 "synth.%s.%s.code%" PRIu64 "M.cycles",
					 profiles[p], policies[q], c[i]);
				snprintf(params, sizeof(params),
					 "{\"accesses\":%" PRIu64
					 ",\"l1i_mpka\":%.3g,\"l2_mpka\":%.3g,"
					 "\"splits\":%" PRIu64 "}",
					 res[q].accesses, res[q].l1i_mpka,
					 res[q].l2_mpka, res[q].splits);
				rc = report_cycles(ctx, fig, &res[q], &res[0],
						   params);
			}
		}
		/* off is the reference, 1 by construction: not a line */
		for (size_t q = 1; q < NR_POLICIES; q++, nr++) {
			snprintf(titles[nr], sizeof(titles[nr]), "%s %s",
				 profiles[p], policies[q]);
			s[nr] = (struct bench_series){ titles[nr], x, y[p][q],
						       nc };
		}
	}
	if (!rc)
		rc = bench_plot(ctx, "nx_guest_overhead",
				"synthetic guest: modelled cycles / the same "
				"stream under nx_huge_pages=off, per profile "
				"and policy",
				"code footprint (MiB)", "overhead vs off",
				BENCH_PLOT_LOGX, s, nr);
	return rc;
}

static int run_lackey(struct bench_ctx *ctx, FILE *csv)
{
	int rc = 0;

	for (size_t p = 0; p < NR_PROFILES && !rc; p++) {
		struct nxsim_workload_result res[NR_POLICIES];

		for (size_t q = 0; q < NR_POLICIES && !rc; q++) {
			struct nxsim_workload_config cfg;
			struct nxsim_trace *t;

			rc = nxsim_trace_open(LACKEY, NXSIM_TRACE_AUTO, &t,
					      NULL);
			if (rc)
				break;
			nxsim_workload_config_default(&cfg);
			cfg.profile = profiles[p];
			cfg.nx_huge_pages = policies[q];
			rc = nxsim_workload_run_trace(&cfg, t, &res[q]);
			nxsim_trace_close(t);
		}
		for (size_t q = 0; q < NR_POLICIES && !rc; q++) {
			char fig[64], params[192];

			csv_row(csv, "lackey", profiles[p], policies[q], 0,
				&res[q],
				(double)res[q].cycles / (double)res[0].cycles);
			if (!q)
				continue;
			snprintf(fig, sizeof(fig), "lackey.%s.%s.cycles",
				 profiles[p], policies[q]);
			snprintf(params, sizeof(params),
				 "{\"trace\":\"lackey-true.txt\",\"l1i_mpka\":"
				 "%.3g,\"l1d_mpka\":%.3g,\"l2_mpka\":%.3g}",
				 res[q].l1i_mpka, res[q].l1d_mpka,
				 res[q].l2_mpka);
			rc = report_cycles(ctx, fig, &res[q], &res[0], params);
		}
	}
	return rc;
}

struct frac_trace {
	double x[256], y[256];
	size_t n;
};

static void on_sample(void *ctx, uint64_t accesses, double frac)
{
	struct frac_trace *f = ctx;

	if (f->n < ARRAY_SIZE(f->x)) {
		f->x[f->n] = (double)accesses;
		f->y[f->n++] = frac;
	}
}

static int run_recovery(struct bench_ctx *ctx, FILE *csv)
{
	static const unsigned int ratios[] = { 1, 10, 60 };
	static const unsigned int periods[] = { 1, 10 };
	static struct frac_trace ft[ARRAY_SIZE(ratios)][ARRAY_SIZE(periods)];
	struct bench_series s[ARRAY_SIZE(ratios)];
	static char titles[ARRAY_SIZE(ratios)][32];
	uint64_t acc = ctx->mode == BENCH_TINY	? 50000 :
		       ctx->mode == BENCH_QUICK ? 1000000 :
						  4000000;
	struct nxsim_workload_result off;
	struct nxsim_workload_config cfg;
	struct nxsim_workload_synth sy;
	int rc;

	synth_shape(&sy, ctx->seed, 32 * MIB, acc);
	sy.jit_pages = 256;
	nxsim_workload_config_default(&cfg);
	cfg.nx_huge_pages = "off";
	cfg.ghz = 1; /* ms of guest time per run, for the 1-10 ms periods */
	rc = nxsim_workload_run_synth(&cfg, &sy, &off);
	for (size_t r = 0; r < ARRAY_SIZE(ratios) && !rc; r++) {
		for (size_t p = 0; p < ARRAY_SIZE(periods) && !rc; p++) {
			struct nxsim_workload_result res;
			char fig[64], params[192];

			cfg.nx_huge_pages = "force";
			cfg.recovery_ratio = ratios[r];
			cfg.recovery_period_ms = periods[p];
			cfg.sample_every = acc / 64;
			cfg.sample = on_sample;
			cfg.sample_ctx = &ft[r][p];
			ft[r][p].n = 0;
			rc = nxsim_workload_run_synth(&cfg, &sy, &res);
			if (rc)
				break;
			csv_row(csv, "recovery", "6.6", "force",
				ratios[r] * 1000.0 + periods[p], &res,
				(double)res.cycles / (double)off.cycles);
			snprintf(fig, sizeof(fig),
				 "recovery.ratio%u.period%ums.cycles",
				 ratios[r], periods[p]);
			snprintf(params, sizeof(params),
				 "{\"huge_fraction\":%.4g,\"off_huge_fraction\""
				 ":%.4g,\"recovery_zapped\":%" PRIu64 "}",
				 res.huge_fraction, off.huge_fraction,
				 res.recovery_zapped);
			rc = report_cycles(ctx, fig, &res, &off, params);
		}
	}
	for (size_t r = 0; r < ARRAY_SIZE(ratios); r++) {
		snprintf(titles[r], sizeof(titles[r]), "ratio %u, 1 ms",
			 ratios[r]);
		s[r] = (struct bench_series){ titles[r], ft[r][0].x, ft[r][0].y,
					      ft[r][0].n };
	}
	if (!rc)
		rc = bench_plot(ctx, "nx_guest_hugefrac",
				"force, 6.6: share of mapped bytes in huge "
				"SPTEs",
				"guest accesses", "huge fraction", 0, s,
				ARRAY_SIZE(ratios));
	return rc;
}

/*
 * The synthetic guest through its own page tables, with TDP and with
 * shadow paging (a host without EPT/NPT), beside the gpa = gva mode:
 * each policy's cycles over the same paging's off run, 2M and 4K guest
 * pages on 2M host pages, 6.1 and 6.6.
 */
static int run_paging(struct bench_ctx *ctx, FILE *csv)
{
	static const char *const modes[] = { "flat", "tables", "shadow" };
	static const char *const profs[] = { "6.1", "6.6" };
	static const int glevels[] = { NXSIM_PG_LEVEL_2M, NXSIM_PG_LEVEL_4K };
	uint64_t acc = ctx->mode == BENCH_TINY	? 20000 :
		       ctx->mode == BENCH_QUICK ? 400000 :
						  2000000;
	int rc = 0;

	for (size_t g = 0; g < ARRAY_SIZE(glevels) && !rc; g++) {
		for (size_t p = 0; p < ARRAY_SIZE(profs) && !rc; p++) {
			for (size_t m = 0; m < ARRAY_SIZE(modes) && !rc; m++) {
				struct nxsim_workload_result res[NR_POLICIES];
				struct nxsim_workload_config cfg;
				struct nxsim_workload_synth sy;
				char wl[32];

				synth_shape(&sy, ctx->seed, 8 * MIB, acc);
				for (size_t q = 0; q < NR_POLICIES && !rc;
				     q++) {
					nxsim_workload_config_default(&cfg);
					cfg.profile = profs[p];
					cfg.nx_huge_pages = policies[q];
					cfg.guest_level = glevels[g];
					cfg.guest_tables = m > 0;
					cfg.no_tdp = m == 2;
					rc = nxsim_workload_run_synth(&cfg, &sy,
								      &res[q]);
				}
				snprintf(wl, sizeof(wl), "paging.%s.g%s",
					 modes[m], g ? "4k" : "2m");
				for (size_t q = 0; q < NR_POLICIES && !rc;
				     q++) {
					char fig[96], params[192];

					csv_row(csv, wl, profs[p], policies[q],
						8, &res[q],
						(double)res[q].cycles /
							(double)res[0].cycles);
					if (!q)
						continue;
					snprintf(fig, sizeof(fig),
						 "%s.%s.%s.cycles", wl,
						 profs[p], policies[q]);
					snprintf(params, sizeof(params),
						 "{\"faults\":%" PRIu64
						 ",\"off_faults\":%" PRIu64
						 ",\"huge_zaps\":%" PRIu64
						 ",\"splits\":%" PRIu64
						 ",\"off_cycles\":%" PRIu64 "}",
						 res[q].faults, res[0].faults,
						 res[q].huge_zaps,
						 res[q].splits, res[0].cycles);
					rc = report_cycles(ctx, fig, &res[q],
							   &res[0], params);
				}
			}
		}
	}
	return rc;
}

static int run_execute(struct bench_ctx *ctx)
{
	unsigned int vcpus = ctx->mode == BENCH_TINY ? 4 : 96;
	uint64_t bytes = ctx->mode == BENCH_TINY  ? 8 * MIB :
			 ctx->mode == BENCH_QUICK ? 16 * MIB :
						    1024 * MIB;
	struct nxsim_workload_result zap, split;
	struct nxsim_workload_config cfg;
	char text[384], params[192];
	double ratio;
	int rc;

	nxsim_workload_config_default(&cfg);
	cfg.nr_vcpus = vcpus;
	cfg.recovery_ratio = 0;
	cfg.host_level = bytes >= 1024 * MIB ? 3 : 2;
	cfg.profile = "6.1";
	rc = nxsim_workload_run_execute(&cfg, bytes, &zap);
	cfg.profile = "6.6";
	if (!rc)
		rc = nxsim_workload_run_execute(&cfg, bytes, &split);
	if (rc)
		return rc;
	ratio = (double)zap.phase_cycles / (double)split.phase_cycles;
	snprintf(params, sizeof(params),
		 "{\"vcpus\":%u,\"bytes\":%" PRIu64 ",\"host_level\":%d,"
		 "\"zap_faults\":%" PRIu64 ",\"split_faults\":%" PRIu64 "}",
		 vcpus, bytes, cfg.host_level, zap.faults, split.faults);
	rc = bench_report(ctx,
			  &(struct bench_figure){
				  .figure = "execute.zap_over_split",
				  .unit = "x",
				  .value = ratio,
				  .ref_name = "published 2.90 s / 0.11 s (26x)",
				  .ref = 2.899670885 / 0.111965688,
				  .params = params,
				  .reps = 1,
				  .modelled = true });
	snprintf(text, sizeof(text),
		 "execution phase, %u vCPUs x %" PRIu64
		 " MiB: 6.6 split %.4g cycles < 6.1 zap %.4g cycles (%.3gx; "
		 "kernel 26x)",
		 vcpus, (uint64_t)(bytes / MIB), (double)split.phase_cycles,
		 (double)zap.phase_cycles, ratio);
	if (!rc)
		rc = bench_report_check(ctx, "execute.split_lt_zap", text,
					split.phase_cycles < zap.phase_cycles);
	if (!rc)
		rc = bench_report_published(
			ctx, "execute.matlack",
			"executing from memory: 2.899670885 s (zap, pre-6.2) "
			"vs 0.111965688 s (split in place); execute_perf_test "
			"-s anonymous_hugetlb_1gb -v96",
			"David Matlack, c4b33d28ea51 (docs/sources.md)");
	return rc;
}

/* The end-to-end replay and its bare-TLB reference. */
struct replay_side {
	struct nxsim_guest_access *a;
	size_t n;
	uint64_t mem;
	unsigned int passes;
};

static int vcpu_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct replay_side *r = arg;
	struct nxsim_host *host = NULL;
	struct nxsim_vcpu_tlb_config tc;
	struct nxsim_memory_region mr = {
		.memory_size = r->mem,
		.userspace_addr = 0x100000000000ull,
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;
	int64_t got = 0;
	uint64_t t0;
	int rc;

	(void)lat;
	nxsim_vcpu_tlb_config_default(&tc);
	rc = nxsim_host_create(NULL, &host);
	if (!rc)
		rc = nxsim_vm_create(host, &vm);
	if (!rc)
		rc = nxsim_vm_set_vcpu_tlb(vm, &tc);
	if (!rc)
		rc = nxsim_vcpu_create(vm, 0, &vcpu);
	if (!rc)
		rc = nxsim_vm_set_memory_region(vm, &mr);
	if (!rc) /* warm: fault everything in */
		got = nxsim_vcpu_access_batch(vcpu, r->a, r->n);
	t0 = bench_now_ns();
	for (unsigned int i = 0; !rc && got >= 0 && i < r->passes; i++)
		got = nxsim_vcpu_access_batch(vcpu, r->a, r->n);
	if (!rc && got < 0)
		rc = (int)got;
	if (!rc)
		*value = (double)r->n * r->passes * 1e9 /
			 (double)(bench_now_ns() - t0);
	if (host) {
		nxsim_vm_destroy(vm);
		nxsim_host_destroy(host);
	}
	return rc;
}

static int tlb_rep(void *arg, double *value, struct bench_samples *lat)
{
	static const enum nxsim_tlb_access acc[] = { NXSIM_TLB_READ,
						     NXSIM_TLB_WRITE,
						     NXSIM_TLB_EXEC };
	struct replay_side *r = arg;
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;
	uint64_t t0 = 0;
	int rc;

	(void)lat;
	nxsim_tlb_config_default(&cfg, 1);
	rc = nxsim_tlb_create(&cfg, &tlb);
	if (rc)
		return rc;
	for (unsigned int i = 0; i <= r->passes; i++) {
		if (i == 1)
			t0 = bench_now_ns();
		for (size_t j = 0; j < r->n; j++) {
			struct nxsim_tlb_entry e = {
				.va = r->a[j].gpa,
				.pfn = r->a[j].gpa >> 12,
				.page_shift = 12,
			};

			if (nxsim_tlb_lookup(tlb, 0, acc[r->a[j].kind],
					     r->a[j].gpa, NULL))
				nxsim_tlb_fill(tlb, 0, acc[r->a[j].kind], &e);
		}
	}
	*value = (double)r->n * r->passes * 1e9 / (double)(bench_now_ns() - t0);
	nxsim_tlb_destroy(tlb);
	return 0;
}

static int run_replay(struct bench_ctx *ctx)
{
	struct replay_side r = { .passes = ctx->mode == BENCH_TINY  ? 2 :
					   ctx->mode == BENCH_QUICK ? 100 :
								      400 };
	struct bench_side sides[2] = {
		{ "nxsim_vcpu_access_batch", vcpu_rep, &r },
		{ "nxsim_tlb_lookup/fill", tlb_rep, &r },
	};
	struct bench_pair p = { 0 };
	struct nxsim_trace *t;
	char params[192];
	int rc;

	rc = nxsim_trace_open(LACKEY, NXSIM_TRACE_AUTO, &t, NULL);
	if (rc)
		return rc;
	rc = nxsim_workload_decode_trace(t, NXSIM_PG_LEVEL_4K, &r.a, &r.n,
					 &r.mem);
	nxsim_trace_close(t);
	if (rc)
		return rc;
	rc = bench_interleave(ctx, "replay", bench_reps(ctx), sides, &p);
	snprintf(params, sizeof(params),
		 "{\"trace\":\"lackey-true.txt\",\"accesses\":%zu,"
		 "\"passes\":%u,\"geometry\":\"default, LRU\"}",
		 r.n, r.passes);
	if (!rc)
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "replay.lackey.accesses_per_s",
				.unit = "access/s",
				.ref_name = "the same stream through the bare "
					    "TLB (nxsim_tlb_lookup, 4K fill "
					    "on a miss), same run",
				.target = { BENCH_TARGET_VALUE_MIN, 5e7 },
				.params = params });
	bench_pair_free(&p);
	nxsim_workload_accesses_free(r.a, r.n);
	return rc;
}

static int nx_guest_run(struct bench_ctx *ctx)
{
	FILE *csv = csv_open(ctx, "nx_guest.csv");
	int rc;

	if (!csv)
		return -errno;
	csv_row(csv, NULL, NULL, NULL, 0, NULL, 0);
	rc = run_replay(ctx);
	if (!rc)
		rc = run_synth(ctx, csv);
	if (!rc)
		rc = run_lackey(ctx, csv);
	if (!rc)
		rc = run_recovery(ctx, csv);
	if (!rc)
		rc = run_execute(ctx);
	if (!rc)
		rc = run_paging(ctx, csv);
	fclose(csv);
	return rc;
}

const struct bench bench_nx_guest = {
	.name = "nx_guest",
	.title = "what the NX mitigation costs a guest: vCPU TLB replay",
	.run = nx_guest_run,
};
