// SPDX-License-Identifier: GPL-2.0-only
/*
 * B4a, fault throughput by kind (docs/bench.md): guest
 * accesses through nxsim_vcpu_access() that each take a TDP page fault
 * (kvm_tdp_page_fault() to completion), on profile 6.6 (in-place split):
 *   4k          a read of every 4 KiB page of a slot backed by 4 KiB host
 *               pages: one 4K leaf per fault
 *   2m          a read of every 2 MiB region of a slot backed by 2 MiB
 *               host pages: one huge leaf (NX, the mitigation) per fault
 *   exec_split  an instruction fetch in every 2 MiB region already mapped
 *               huge by a read: the huge SPTE is split in place into 512
 *               4K SPTEs and the fetched page made executable
 *
 * Reference, interleaved, same VM set-up and same access stream: the
 * stream run again once every access is mapped, so every access is a hit
 * (the SPTE allows it): the cost of the entry point, the lookup and the
 * permission check without the fault.  The ratio says how many hits one
 * fault of that kind costs.  Target for the read faults: at least 0.5x
 * (a fault costs at most two hits); the exec split, which writes 512
 * SPTEs, has none (its cost against a table's init is nx_split's).
 *
 * Every timed access on the fault side must be a fault (the MMU's fault
 * counter is checked), and every one on the reference side a hit.
 */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "nx_env.h"

struct kind {
	const char *name;
	int host_level;
	uint64_t stride; /* between accesses */
	uint64_t offset; /* of the access in each stride */
	enum nxsim_access_kind access;
	bool prefault;	    /* read every 2 MiB region first (untimed) */
	unsigned int count; /* accesses (quick) */
};

static const struct kind kinds[] = {
	{ "4k", NXSIM_PG_LEVEL_4K, 4096, 0, NXSIM_ACCESS_READ, false, 32768 },
	{ "2m", NXSIM_PG_LEVEL_2M, NX_2M, 0, NXSIM_ACCESS_READ, false, 4096 },
	{ "exec_split", NXSIM_PG_LEVEL_2M, NX_2M, 0x1000, NXSIM_ACCESS_EXEC,
	  true, 4096 },
};

struct side {
	const struct kind *k;
	unsigned int n;
	bool hits; /* the reference: run the stream once untimed first */
	uint64_t faults;
};

static int stream(const struct nx_env *e, const struct side *s)
{
	int rc = 0;

	for (unsigned int i = 0; i < s->n && !rc; i++)
		rc = nxsim_vcpu_access(
			e->vcpu, s->k->access,
			NX_GPA_BASE + i * s->k->stride + s->k->offset, NULL);
	return rc;
}

/* value = accesses per second over the timed stream. */
static int side_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct side *s = arg;
	struct nxsim_mmu_counters c0, c1;
	struct nx_env e;
	uint64_t t0, t1;
	int rc;

	rc = nx_env_create(&e, "6.6", -1, (uint64_t)s->n * s->k->stride,
			   s->k->host_level);
	if (rc)
		return rc;
	if (s->k->prefault)
		rc = nx_env_touch(&e, NXSIM_ACCESS_READ,
				  (uint64_t)s->n * s->k->stride, NX_2M);
	if (!rc && s->hits)
		rc = stream(&e, s);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c0);
	t0 = bench_now_ns();
	if (!rc)
		rc = stream(&e, s);
	t1 = bench_now_ns();
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c1);
	if (!rc) {
		s->faults = c1.faults - c0.faults;
		/* all faults, or (reference) none */
		if (s->faults != (s->hits ? 0 : s->n))
			rc = -EPROTO;
		*value = (double)s->n * 1e9 / (double)(t1 - t0);
	}
	nx_env_close(&e);
	return rc;
}

static int run_kind(struct bench_ctx *ctx, const struct kind *k)
{
	unsigned int n = ctx->mode == BENCH_TINY ? k->count / 64 :
			 ctx->mode == BENCH_FULL ? k->count * 8 :
						   k->count * 2;
	struct side fault = { k, n, false }, hit = { k, n, true };
	struct bench_side sides[2] = {
		{ "faults", side_rep, &fault },
		{ "the same accesses, all mapped (hits)", side_rep, &hit },
	};
	/* a read fault costs at most two hits; the split is nx_split's */
	struct bench_target target = { k->access == NXSIM_ACCESS_EXEC ?
					       BENCH_TARGET_NONE :
					       BENCH_TARGET_RATIO_MIN,
				       0.5 };
	struct bench_pair p = { 0 };
	char fig[64], params[192];
	int rc;

	rc = bench_interleave(ctx, k->name, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s.faults_per_s", k->name);
		snprintf(params, sizeof(params),
			 "{\"kind\":\"%s\",\"profile\":\"6.6\",\"faults\":%u,"
			 "\"host_level\":%d,\"stride\":%" PRIu64 "}",
			 k->name, n, k->host_level, k->stride);
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "fault/s",
				.ref_name = "the same access stream once "
					    "mapped: hits through "
					    "nxsim_vcpu_access() (access/s)",
				.target = target,
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

static int nx_fault_run(struct bench_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(kinds); i++)
		rc = run_kind(ctx, &kinds[i]);
	return rc;
}

const struct bench bench_nx_fault = {
	.name = "nx_fault",
	.title = "B4a: TDP faults/s by kind (4K, 2M, exec split) vs hits on "
		 "the same stream",
	.run = nx_fault_run,
};
