// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FaaS burst lab (docs/bringup.md): VM bring-up latency in modelled
 * kernel time, nxsim_bringup_run(), under each recovery-worker policy
 * (kthread at KVM_CREATE_VM, vhost task at the first KVM_RUN, never),
 * with and without favordynmods, sweeping idle VMs per CPU and the burst
 * size.  Modelled figures are outputs of the model, deterministic for a
 * seed: each is reported beside the same run's never policy.  Two figures
 * are timings of the lab itself (its speed), beside the same VMs brought up
 * without the cost model.  Published-shape checks: one VM (Capitulino),
 * the 900-idle-VM funclatency histogram (zhuangel570), and the tail that
 * favordynmods and 6.13+ remove.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/bringup.h>
#include <nxsim/host.h>
#include <nxsim/stats.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "harness.h"
#include "nx_env.h"

static const enum nxsim_bringup_policy policies[] = { NXSIM_BRINGUP_KTHREAD,
						      NXSIM_BRINGUP_VHOST,
						      NXSIM_BRINGUP_NEVER };

static int lab(struct nxsim_bringup_config *cfg,
	       struct nxsim_bringup_result *res, uint64_t *create)
{
	*res = (struct nxsim_bringup_result){ .create_ns = create };
	return nxsim_bringup_run(cfg, res);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One VM on an idle host, HZ=250, median over seeds (Capitulino). */
static int check_single(struct bench_ctx *ctx)
{
	struct nxsim_bringup_config cfg = {
		.cpus = 8, .hz = 250, .creators = 1, .vms = 1
	};
	struct nxsim_bringup_result res;
	double k[21], never;
	char text[256];
	int rc = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(k) && !rc; i++) {
		cfg.seed = ctx->seed + i;
		rc = lab(&cfg, &res, NULL);
		k[i] = res.create.p50 / 1e6;
	}
	cfg.policy = NXSIM_BRINGUP_NEVER;
	if (!rc)
		rc = lab(&cfg, &res, NULL);
	if (rc)
		return rc;
	never = res.create.p50 / 1e6;
	qsort(k, ARRAY_SIZE(k), sizeof(*k), cmp_dbl);
	snprintf(text, sizeof(text),
		 "one VM: kthread KVM_CREATE_VM median %.1f ms within 2x of "
		 "76.7 ms; never %.3f ms within 2x of 0.505 ms",
		 k[ARRAY_SIZE(k) / 2], never);
	rc = bench_report_check(ctx, "published.single_vm", text,
				k[10] >= 76.7 / 2 && k[10] <= 76.7 * 2 &&
					never >= 0.505 / 2 &&
					never <= 0.505 * 2);
	if (!rc)
		rc = bench_report_published(
			ctx, "published.single_vm",
			"KVM_CREATE_VM 23.6 / 76.7 / 109.1 ms with the kthread, "
			"0.518 / 0.495 / 0.513 ms with never",
			"Luiz Capitulino, reply to the never patch "
			"(0b210faf3373), kvmtool, strace -T");
	return rc;
}

/* The published funclatency counts, by bucket (32 us = bucket 5). */
static const uint64_t published_hist[NXSIM_BRINGUP_HIST] = {
	[5] = 985, [6] = 735, [7] = 103,  [8] = 30, [10] = 1,
	[11] = 6,  [12] = 33, [13] = 103, [14] = 4,
};

/* vm_bringup_hist.csv and its plot: the model's histogram beside it. */
static int write_hist(struct bench_ctx *ctx,
		      const struct nxsim_bringup_stats *st)
{
	double x[NXSIM_BRINGUP_HIST], pub[NXSIM_BRINGUP_HIST],
		mod[NXSIM_BRINGUP_HIST];
	struct bench_series s[2] = {
		{ "published (zhuangel570)", x, pub, 0, BENCH_SERIES_BARS },
		{ "model", x, mod, 0, BENCH_SERIES_BARS },
	};
	char path[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/vm_bringup_hist.csv", ctx->outdir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "bucket_low_us,published,model\n");
	for (unsigned int b = 5; b < 16; b++) {
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 "\n", 1u << b,
			published_hist[b], st->hist[b]);
		x[n] = 1u << b;
		pub[n] = published_hist[b] + 0.5; /* visible on a log axis */
		mod[n++] = st->hist[b] + 0.5;
	}
	fclose(f);
	s[0].n = s[1].n = n;
	return bench_plot(ctx, "bringup_worker_hist",
			  "kvm_vm_create_worker_thread, 900 idle VMs: counts "
			  "per funclatency bucket (+0.5)",
			  "bucket (us)", "calls",
			  BENCH_PLOT_LOGX | BENCH_PLOT_LOGY, s, 2);
}

/* 900 idle VMs on 96 CPUs, 20 creators x 100 VMs held 400 ms. */
static int check_histogram(struct bench_ctx *ctx)
{
	struct nxsim_bringup_config cfg = {
		.cpus = 96,
		.hz = 1000,
		.bg_vms = 900,
		.creators = 20,
		.vms = 2000,
		.hold_ns = 400000000ull,
		.hold_jitter_ns = 50000000ull,
		.seed = ctx->seed,
	};
	struct nxsim_bringup_result res, fav, vh, cs;
	unsigned int b50, b99, cs99;
	char text[320];
	int rc;

	rc = lab(&cfg, &res, NULL);
	/* the same on a 5.4-6.3 kernel whose cpuset_rwsem is a percpu
	 * rwsem, the VMM in another cpuset than kthreadd */
	cfg.cpuset_rwsem = true;
	if (!rc)
		rc = lab(&cfg, &cs, NULL);
	cfg.cpuset_rwsem = false;
	cfg.favordynmods = true;
	if (!rc)
		rc = lab(&cfg, &fav, NULL);
	cfg.favordynmods = false;
	cfg.policy = NXSIM_BRINGUP_VHOST;
	if (!rc)
		rc = lab(&cfg, &vh, NULL);
	if (rc)
		return rc;
	b50 = nxsim_bringup_bucket(res.worker.p50);
	b99 = nxsim_bringup_bucket(res.worker.p99);
	snprintf(text, sizeof(text),
		 "kvm_vm_create_worker_thread p50 bucket %u-%u us within one "
		 "of 64-127 us",
		 1u << b50, (2u << b50) - 1);
	rc = bench_report_check(ctx, "published.hist_p50", text,
				b50 >= 5 && b50 <= 7);
	cs99 = nxsim_bringup_bucket(cs.worker.p99);
	snprintf(text, sizeof(text),
		 "p99 bucket %u-%u us within one of 8192-16383 us (with "
		 "cpuset_rwsem: %u-%u us, max %.1f ms)",
		 1u << b99, (2u << b99) - 1, 1u << cs99, (2u << cs99) - 1,
		 cs.worker.max / 1e6);
	if (!rc)
		rc = bench_report_check(ctx, "published.hist_p99", text,
					b99 >= 12 && b99 <= 14);
	snprintf(text, sizeof(text),
		 "no grace-period tail: KVM_CREATE_VM max %.0f us with "
		 "favordynmods, %.0f us with vhost tasks, against %.0f us",
		 fav.create.max / 1e3, vh.create.max / 1e3,
		 res.create.max / 1e3);
	if (!rc)
		rc = bench_report_check(ctx, "published.tail_removed", text,
					fav.create.max < res.create.max &&
						vh.create.max <
							res.create.max &&
						fav.create.max < 4000000 &&
						vh.create.max < 4000000);
	if (!rc)
		rc = write_hist(ctx, &res.worker);
	if (!rc)
		rc = bench_report_published(
			ctx, "published.histogram",
			"kvm_vm_create_worker_thread, 2000 calls: 985 in 32-65 "
			"us, 735 in 65-131 us, 103 131-262, 30 262-524, 1 "
			"1-2 ms, 6 2-4, 33 4-8, 103 8-17, 4 17-34; avg 815 us",
			"zhuangel570, github.com/zhuangel/misc "
			"test/kvm_irqfd_fork/test.log");
	return rc;
}

/*
 * One line of vm_bringup.csv, long form: the cell, which latency, its
 * NXSIM_STATS_BRINGUP_LATENCY fields and the run's
 * NXSIM_STATS_BRINGUP_RESULT fields; the header when @res is NULL.
 */
static void csv_line(FILE *f, const char *cell, const char *latency,
		     const struct nxsim_bringup_stats *st,
		     const struct nxsim_bringup_result *res)
{
	enum bench_stats_style style = res ? BENCH_STATS_CSV_ROW :
					     BENCH_STATS_CSV_HEAD;
	char line[1024];

	snprintf(line, sizeof(line), "%s", cell);
	if (res)
		bench_csv_str(line, sizeof(line), latency);
	else
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ",%s", latency);
	bench_stats(line, sizeof(line), style, NXSIM_STATS_BRINGUP_LATENCY, st,
		    NULL);
	bench_stats(line, sizeof(line), style, NXSIM_STATS_BRINGUP_RESULT, res,
		    NULL);
	fprintf(f, "%s\n", line);
}

/* The sweep: p99 of KVM_CREATE_VM and of the first KVM_RUN per policy. */
static int sweep(struct bench_ctx *ctx)
{
	static const unsigned int per_cpu[] = { 1, 10, 100, 200 };
	unsigned int bursts[] = { 50, 1000 };
	unsigned int nb = ctx->mode == BENCH_TINY ? 1 : 2;
	unsigned int cpus = ctx->mode == BENCH_TINY ? 8 : 96;
	double x[ARRAY_SIZE(per_cpu)], y[4][ARRAY_SIZE(per_cpu)];
	const char *titles[4] = { "kthread", "kthread favordynmods", "vhost",
				  "never" };
	struct bench_series s[4];
	struct nxsim_bringup_result res, never;
	char fig[96], cell[96], params[1024], path[512];
	FILE *csv;
	int rc = 0;
	size_t n;

	snprintf(path, sizeof(path), "%s/vm_bringup.csv", ctx->outdir);
	csv = fopen(path, "w");
	if (csv)
		csv_line(csv, "per_cpu,burst,policy,favordynmods", "latency",
			 NULL, NULL);
	for (unsigned int b = 0; b < nb && !rc; b++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(per_cpu) && !rc; i++) {
			struct nxsim_bringup_config cfg = {
				.cpus = cpus,
				.hz = 250,
				.bg_vms = per_cpu[i] * cpus,
				.creators = 8,
				.vms = bursts[b],
				.seed = ctx->seed,
				.policy = NXSIM_BRINGUP_NEVER,
			};

			x[i] = per_cpu[i];
			rc = lab(&cfg, &never, NULL);
			for (unsigned int p = 0; p < 4 && !rc; p++) {
				cfg.policy = policies[p == 0 ? 0 : p - 1];
				cfg.favordynmods = p == 1;
				rc = lab(&cfg, &res, NULL);
				if (rc)
					break;
				y[p][i] = res.create.p99 / 1e3;
				snprintf(cell, sizeof(cell), "%u,%u",
					 per_cpu[i], bursts[b]);
				bench_csv_str(
					cell, sizeof(cell),
					nxsim_bringup_policy_name(cfg.policy));
				snprintf(cell + strlen(cell),
					 sizeof(cell) - strlen(cell), ",%d",
					 cfg.favordynmods);
				if (csv) {
					csv_line(csv, cell, "create",
						 &res.create, &res);
					csv_line(csv, cell, "first_run",
						 &res.first_run, &res);
				}
				snprintf(fig, sizeof(fig),
					 "model.%s%s.C%u.N%u.M%u.create_p99",
					 nxsim_bringup_policy_name(cfg.policy),
					 p == 1 ? "_fdm" : "", cpus, per_cpu[i],
					 bursts[b]);
				n = (size_t)snprintf(
					params, sizeof(params),
					"{\"cpus\":%u,\"per_cpu\":%u,"
					"\"burst\":%u,\"creators\":8,"
					"\"hz\":250",
					cpus, per_cpu[i], bursts[b]);
				bench_stats(params, sizeof(params),
					    BENCH_STATS_JSON,
					    NXSIM_STATS_BRINGUP_RESULT, &res,
					    NULL);
				n = strlen(params);
				n += (size_t)snprintf(params + n,
						      sizeof(params) - n,
						      ",\"first_run\":{");
				/* a fresh object: no comma before its first
				 * field */
				bench_stats(params + n, sizeof(params) - n,
					    BENCH_STATS_JSON,
					    NXSIM_STATS_BRINGUP_LATENCY,
					    &res.first_run, NULL);
				n = strlen(params);
				snprintf(params + n, sizeof(params) - n, "}}");
				rc = bench_report(
					ctx,
					&(struct bench_figure){
						.figure = fig,
						.unit = "us",
						.value = res.create.p99 / 1e3,
						.ref_name =
							"never policy, same "
							"lab (modelled us)",
						.ref = never.create.p99 / 1e3,
						.params = params,
						.reps = 1,
						.modelled = true });
			}
		}
		for (unsigned int p = 0; p < 4; p++)
			s[p] = (struct bench_series){ titles[p], x, y[p],
						      ARRAY_SIZE(x) };
		snprintf(fig, sizeof(fig), "bringup_p99_vs_density_M%u",
			 bursts[b]);
		if (!rc)
			rc = bench_plot(ctx, fig,
					"KVM_CREATE_VM p99 (modelled) vs idle "
					"VMs per CPU",
					"idle VMs per CPU", "p99 (us)",
					BENCH_PLOT_LOGX | BENCH_PLOT_LOGY, s,
					4);
	}
	if (csv)
		fclose(csv);
	return rc;
}

/* The latency CDF of each policy in one FaaS burst. */
static int plot_cdf(struct bench_ctx *ctx)
{
	unsigned int cpus = ctx->mode == BENCH_TINY ? 8 : 96, m = 1000;
	struct bench_samples s[4] = { 0 };
	const char *titles[4] = { "kthread", "kthread favordynmods",
				  "vhost (first KVM_RUN)", "never" };
	struct nxsim_bringup_result res;
	uint64_t *create = calloc(m, sizeof(*create));
	int rc = create ? 0 : -ENOMEM;

	for (unsigned int p = 0; p < 4 && !rc; p++) {
		struct nxsim_bringup_config cfg = {
			.policy = policies[p == 0 ? 0 : p - 1],
			.favordynmods = p == 1,
			.cpus = cpus,
			.hz = 250,
			.bg_vms = 100 * cpus,
			.creators = 8,
			.vms = m,
			.seed = ctx->seed,
		};

		rc = lab(&cfg, &res, create);
		for (unsigned int i = 0; i < m && !rc; i++)
			rc = bench_samples_add(&s[p], create[i] / 1e3);
		/* vhost: the worker's cost is in the first KVM_RUN */
	}
	if (!rc)
		rc = bench_plot_cdf(ctx, "bringup_create_cdf",
				    "KVM_CREATE_VM latency (modelled), 1000 "
				    "VMs, 100 idle VMs per CPU",
				    "latency (us)", s, titles, 4);
	for (unsigned int p = 0; p < 4; p++)
		bench_samples_free(&s[p]);
	free(create);
	return rc;
}

/* Speed: the lab against the same bring-ups without the cost model. */
/* A speed figure: @laps runs of @cfg per rep (memory reused, as a host
 * that brings VMs up and down would). */
struct speed {
	struct nxsim_bringup_config cfg;
	unsigned int laps;
};

static int lab_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct speed *sp = arg;
	struct nxsim_bringup_result res;
	uint64_t t0 = bench_now_ns();
	int rc = 0;

	(void)lat;
	for (unsigned int l = 0; l < sp->laps && !rc; l++)
		rc = lab(&sp->cfg, &res, NULL);
	*value = (double)(bench_now_ns() - t0) / 1e9;
	return rc;
}

/* The same VMs (background and burst), created, run and destroyed. */
static int plain_lap(struct speed *sp)
{
	unsigned int n = sp->cfg.bg_vms + sp->cfg.vms;
	bool never = sp->cfg.policy == NXSIM_BRINGUP_NEVER;
	struct nxsim_host_config hc = {
		.cpu.itlb_multihit = true,
		.profile = sp->cfg.policy == NXSIM_BRINGUP_VHOST ? "6.14" :
								   "6.1",
		.cmdline = never ? "kvm.nx_huge_pages=never" : NULL,
	};
	struct nxsim_vm **vms = calloc(n, sizeof(*vms));
	struct nxsim_vcpu *vcpu;
	struct nxsim_host *host;
	unsigned int i = 0;
	int rc = vms ? nxsim_host_create(&hc, &host) : -ENOMEM;

	if (rc) {
		free(vms);
		return rc;
	}
	for (; i < n && !rc; i++) {
		rc = nxsim_vm_create(host, &vms[i]);
		if (rc)
			break;
		if (i >= sp->cfg.bg_vms) {
			rc = nxsim_vcpu_create(vms[i], 0, &vcpu);
			if (!rc)
				rc = nxsim_vcpu_run(vcpu);
		}
	}
	if (nx_vms_destroy(host, vms, i) && !rc)
		rc = -EIO;
	free(vms);
	return rc;
}

static int plain_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct speed *sp = arg;
	uint64_t t0 = bench_now_ns();
	int rc = 0;

	(void)lat;
	for (unsigned int l = 0; l < sp->laps && !rc; l++)
		rc = plain_lap(sp);
	*value = (double)(bench_now_ns() - t0) / 1e9;
	return rc;
}

static int speed(struct bench_ctx *ctx, const char *name,
		 struct nxsim_bringup_config *cfg, unsigned int laps,
		 double target, bool rate)
{
	struct speed sp = { *cfg, laps };
	struct bench_side sides[2] = {
		{ "lab", lab_rep, &sp },
		{ "plain bring-up, no cost model", plain_rep, &sp },
	};
	struct bench_pair p = { 0 };
	char params[160];
	int rc;

	rc = bench_interleave(ctx, name, bench_reps(ctx), sides, &p);
	if (rc)
		return rc;
	snprintf(params, sizeof(params),
		 "{\"policy\":\"%s\",\"cpus\":%u,\"bg_vms\":%u,\"vms\":%u,"
		 "\"creators\":%u,\"laps\":%u}",
		 nxsim_bringup_policy_name(cfg->policy), cfg->cpus, cfg->bg_vms,
		 cfg->vms, cfg->creators, laps);
	rc = bench_report(
		ctx,
		&(struct bench_figure){
			.figure = name,
			.unit = rate ? "VM/s" : "s",
			.ref_name = rate ? "the same bring-ups without the "
					   "cost model (VM/s)" :
					   "the same VMs made without the "
					   "cost model (s)",
			.target = { rate ? BENCH_TARGET_VALUE_MIN :
					   BENCH_TARGET_VALUE_MAX,
				    target },
			.params = params,
			.from = &p,
			.mul = rate ? (double)cfg->vms * laps : 1,
			.inv = rate });
	bench_pair_free(&p);
	return rc;
}

static int run(struct bench_ctx *ctx)
{
	bool tiny = ctx->mode == BENCH_TINY;
	struct nxsim_bringup_config big = {
		.policy = NXSIM_BRINGUP_KTHREAD,
		.cpus = tiny ? 8 : 96,
		.hz = 250,
		.bg_vms = (tiny ? 8 : 96) * 200,
		.creators = 8,
		.vms = 1000,
		.seed = ctx->seed,
	};
	char name[64];
	int rc;

	rc = check_single(ctx);
	if (!rc)
		rc = check_histogram(ctx);
	if (!rc)
		rc = sweep(ctx);
	if (!rc)
		rc = plot_cdf(ctx);
	if (!rc)
		rc = speed(ctx, "lab.C96.per_cpu200.M1000.wall", &big, 1, 1.0,
			   false);
	for (unsigned int p = 0; p < ARRAY_SIZE(policies) && !rc; p++) {
		struct nxsim_bringup_config one = {
			.policy = policies[p],
			.cpus = 1,
			.creators = 1,
			.vms = tiny ? 200 : 1000,
			.seed = ctx->seed,
		};

		snprintf(name, sizeof(name), "bringup.%s.vms_per_s",
			 nxsim_bringup_policy_name(policies[p]));
		rc = speed(ctx, name, &one, tiny ? 1 : 20, 1e6, true);
	}
	return rc;
}

const struct bench bench_vm_bringup = {
	.name = "vm_bringup",
	.title = "FaaS burst lab: VM bring-up in modelled kernel time",
	.run = run,
};
