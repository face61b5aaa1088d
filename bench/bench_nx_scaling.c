// SPDX-License-Identifier: GPL-2.0-only
/*
 * TDP fault throughput with 1 and 2 vCPU threads (docs/bench.md): each
 * thread reads fresh 4 KiB pages of a slot backed by 4 KiB host pages
 * through nxsim_vcpu_access(), one 4K leaf per fault, either
 *   disjoint   in 2 MiB regions of its own (its own page tables below the
 *              PD), or
 *   shared     in the same 2 MiB regions as the other thread (alternate
 *              pages: the same page tables, different SPTEs),
 * under mmu_lock held for read (profile 6.18) and, as the reference, the
 * same streams under the write lock (profile 5.10 with its opt-in TDP MMU,
 * whose faults take mmu_lock for write).  Same run, interleaved reps:
 *
 *   read.2t_disjoint / read.1t     target >= 1.6 (2 cores)
 *   read.1t / write.1t             target >= 0.9 (the read-lock fault
 *                                  path loses at most 10%)
 *   write.2t_disjoint / write.1t   no target (the write lock serialises)
 *   read.2t_shared / read.1t       no target
 *
 * Every timed access must be a fault (its outcome and the MMU's fault
 * counter are checked).  Thread t runs on the t-th CPU the bench may use:
 * left to the scheduler, the two threads of a rep (about 10 ms) often ran
 * one after the other on one CPU.
 * Values are faults per second over all threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"
#include "nx_env.h"

struct variant {
	const char *profile; /* 6.18: read lock; 5.10: write lock */
	unsigned int threads;
	bool shared;
	unsigned int pages; /* faults per thread */
};

struct worker {
	const struct variant *v;
	struct nxsim_vcpu *vcpu;
	unsigned int id;
	pthread_barrier_t *start;
	int rc;
};

static void *worker_run(void *p)
{
	struct worker *w = p;
	const struct variant *v = w->v;
	struct nxsim_access_info info;
	unsigned int i;
	int rc = 0;

	bench_pin_thread(w->id);
	pthread_barrier_wait(w->start);
	/*
	 * The result goes to @w once, at the end: the two workers' structs
	 * share a cache line, and a store to it per access moved that line
	 * between the cores at every fault.
	 */
	for (i = 0; i < v->pages && !rc; i++) {
		/* shared: thread t takes pages t, t + T, ...; disjoint: its
		 * own block of pages */
		uint64_t page = v->shared ? (uint64_t)i * v->threads + w->id :
					    (uint64_t)w->id * v->pages + i;

		rc = nxsim_vcpu_access(w->vcpu, NXSIM_ACCESS_READ,
				       NX_GPA_BASE + (page << 12), &info);
		if (!rc && info.outcome != NXSIM_ACCESS_FAULT)
			rc = -EPROTO;
	}
	w->rc = rc;
	return NULL;
}

/* value = faults per second over all threads. */
static int variant_rep(void *arg, double *value, struct bench_samples *lat)
{
	const struct variant *v = arg;
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .tdp_mmu = true },
		.profile = v->profile,
	};
	uint64_t bytes = (uint64_t)v->pages * v->threads << 12;
	struct nxsim_memory_region mr = { .slot = 0,
					  .guest_phys_addr = NX_GPA_BASE,
					  .memory_size = bytes,
					  .userspace_addr = NX_HVA_BASE,
					  .host_level = NXSIM_PG_LEVEL_4K };
	struct worker w[2] = { 0 };
	struct nxsim_mmu_counters c0, c1;
	pthread_barrier_t start;
	pthread_t t[2];
	struct nx_env e = { 0 };
	uint64_t t0, t1;
	unsigned int i;
	int rc;

	(void)lat;
	rc = nxsim_host_create(&cfg, &e.host);
	if (!rc)
		rc = nxsim_vm_create(e.host, &e.vm);
	if (!rc)
		rc = nxsim_vm_set_memory_region(e.vm, &mr);
	for (i = 0; !rc && i < v->threads; i++)
		rc = nxsim_vcpu_create(e.vm, i, &w[i].vcpu);
	/* an access outside the slot makes the root, untimed */
	if (!rc)
		rc = nxsim_vcpu_access(w[0].vcpu, NXSIM_ACCESS_READ,
				       NX_GPA_BASE + bytes, NULL);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c0);
	if (rc)
		goto out;
	pthread_barrier_init(&start, NULL, v->threads + 1);
	for (i = 0; i < v->threads; i++) {
		w[i] = (struct worker){ v, w[i].vcpu, i, &start, 0 };
		if (pthread_create(&t[i], NULL, worker_run, &w[i]))
			abort();
	}
	pthread_barrier_wait(&start);
	t0 = bench_now_ns();
	for (i = 0; i < v->threads; i++) {
		pthread_join(t[i], NULL);
		if (!rc)
			rc = w[i].rc;
	}
	t1 = bench_now_ns();
	pthread_barrier_destroy(&start);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c1);
	/*
	 * A fault that lost the race to link a shared table is retried
	 * (RET_PF_RETRY) and counted again, so the count may be higher.
	 */
	if (!rc && c1.faults - c0.faults < (uint64_t)v->pages * v->threads)
		rc = -EPROTO;
	if (!rc)
		*value =
			(double)v->pages * v->threads * 1e9 / (double)(t1 - t0);
out:
	nx_env_close(&e);
	return rc;
}

struct pair {
	const char *figure;
	struct variant a, ref;
	const char *ref_name;
	struct bench_target target;
};

static int run_pair(struct bench_ctx *ctx, const struct pair *pr,
		    unsigned int pages)
{
	struct variant a = pr->a, ref = pr->ref;
	struct bench_side sides[2] = {
		{ pr->figure, variant_rep, &a },
		{ pr->ref_name, variant_rep, &ref },
	};
	struct bench_pair p = { 0 };
	char params[160];
	int rc;

	a.pages = ref.pages = pages;
	rc = bench_interleave(ctx, pr->figure, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(params, sizeof(params),
			 "{\"profile\":\"%s\",\"threads\":%u,\"shared\":%s,"
			 "\"faults_per_thread\":%u,\"host_level\":1}",
			 a.profile, a.threads, a.shared ? "true" : "false",
			 pages);
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){ .figure = pr->figure,
						.unit = "fault/s",
						.ref_name = pr->ref_name,
						.target = pr->target,
						.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

#define READ1                       \
	{                           \
		"6.18", 1, false, 0 \
	}
#define WRITE1                      \
	{                           \
		"5.10", 1, false, 0 \
	}

static const struct pair pairs[] = {
	{ "read.2t_disjoint.faults_per_s",
	  { "6.18", 2, false, 0 },
	  READ1,
	  "read.1t: one thread, read lock (fault/s)",
	  { BENCH_TARGET_RATIO_MIN, 1.6 } },
	{ "read.1t.faults_per_s",
	  READ1,
	  WRITE1,
	  "write.1t: one thread, the same stream under the write lock "
	  "(5.10 TDP MMU) (fault/s)",
	  { BENCH_TARGET_RATIO_MIN, 0.9 } },
	{ "write.2t_disjoint.faults_per_s",
	  { "5.10", 2, false, 0 },
	  WRITE1,
	  "write.1t: one thread, write lock (fault/s)",
	  { BENCH_TARGET_NONE, 0 } },
	{ "read.2t_shared.faults_per_s",
	  { "6.18", 2, true, 0 },
	  READ1,
	  "read.1t: one thread, read lock (fault/s)",
	  { BENCH_TARGET_NONE, 0 } },
};

static int nx_scaling_run(struct bench_ctx *ctx)
{
	unsigned int pages = ctx->mode == BENCH_TINY ? 1024 :
			     ctx->mode == BENCH_FULL ? 1048576 :
						       262144;
	int rc = 0;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(pairs); i++)
		rc = run_pair(ctx, &pairs[i], pages);
	return rc;
}

const struct bench bench_nx_scaling = {
	.name = "nx_scaling",
	.title = "TDP faults/s with 1 and 2 vCPU threads, read lock vs write "
		 "lock",
	.run = nx_scaling_run,
};
