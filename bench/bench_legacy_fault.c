// SPDX-License-Identifier: GPL-2.0-only
/*
 * The legacy direct MMU beside the TDP MMU (docs/bench.md): profile 6.6,
 * the mitigation on, the same access stream on a host with kvm.tdp_mmu=0
 * (no_tdp_mmu: the shadow MMU's direct_map()) and on one with the TDP MMU
 * (kvm_tdp_mmu_map()), interleaved:
 *   4k  a read every 32 KiB of a slot backed by 4 KiB host pages: one 4K
 *       fault each (the legacy MMU also prefetches the 7 other entries of
 *       the aligned block of 8, direct_pte_prefetch(), and puts every leaf
 *       on its rmap)
 *   2m  a read of every 2 MiB region of a slot backed by 2 MiB host pages:
 *       one huge leaf per fault
 *   4k_seq  a read of every 4 KiB page of such a slot: the TDP MMU faults
 *       on each, the legacy MMU on one in 8 (the prefetch maps the rest)
 * value = accesses per second on the legacy MMU, reference = on the TDP
 * MMU.  Every timed access on the TDP side must be a fault, and on the
 * legacy side every one (4k, 2m) or one in 8 (4k_seq) (the fault counter
 * is checked).
 *
 * page.bytes: the allocator's live bytes per page-table page after
 * mapping every 4 KiB page of a 4 KiB-backed slot (one 4K table per 2 MiB),
 * legacy (struct kvm_mmu_page with its role, hash link and rmaps) against
 * the TDP MMU's pages for the same mapping.  The slot's rmap arrays are
 * made with the slot and are not in it.
 */
#include <errno.h>
#include <stdlib.h>

#include <nxsim/alloc.h>

#include "harness.h"
#include "nx_env.h"

struct kind {
	const char *name;
	int host_level;
	uint64_t stride;
	unsigned int count;	       /* accesses (quick) */
	unsigned int legacy_per_fault; /* accesses per legacy fault */
};

static const struct kind kinds[] = {
	{ "4k", NXSIM_PG_LEVEL_4K, 8 * 4096, 8192, 1 },
	{ "2m", NXSIM_PG_LEVEL_2M, NX_2M, 4096, 1 },
	/* every 4K page: the legacy MMU faults once per 8 (prefetch) */
	{ "4k_seq", NXSIM_PG_LEVEL_4K, 4096, 32768, 8 },
};

struct side {
	const struct kind *k;
	bool legacy;
	unsigned int n;
};

/* A host (legacy or TDP MMU), one VM after KVM_RUN, one slot. */
static int env_create(struct nx_env *e, bool legacy, uint64_t bytes,
		      int host_level)
{
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .no_tdp_mmu = legacy },
		.profile = "6.6",
	};
	struct nxsim_memory_region mr = { .slot = 0,
					  .guest_phys_addr = NX_GPA_BASE,
					  .memory_size = bytes,
					  .userspace_addr = NX_HVA_BASE,
					  .host_level = host_level };
	struct nx_env_spec spec = { .host = &cfg, .slot = &mr, .run = true };

	return nx_env_open(e, &spec);
}

static int stream(const struct nx_env *e, const struct kind *k, unsigned int n)
{
	int rc = 0;

	for (unsigned int i = 0; i < n && !rc; i++)
		rc = nxsim_vcpu_access(e->vcpu, NXSIM_ACCESS_READ,
				       NX_GPA_BASE + i * k->stride, NULL);
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

	(void)lat;
	rc = env_create(&e, s->legacy, (uint64_t)s->n * s->k->stride,
			s->k->host_level);
	if (rc)
		return rc;
	rc = nxsim_vm_mmu_counters(e.vm, &c0);
	t0 = bench_now_ns();
	if (!rc)
		rc = stream(&e, s->k, s->n);
	t1 = bench_now_ns();
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c1);
	if (!rc && c1.faults - c0.faults !=
			   (s->legacy ? s->n / s->k->legacy_per_fault : s->n))
		rc = -EPROTO;
	if (!rc)
		*value = (double)s->n * 1e9 / (double)(t1 - t0);
	nx_env_close(&e);
	return rc;
}

static int run_kind(struct bench_ctx *ctx, const struct kind *k)
{
	unsigned int n = ctx->mode == BENCH_TINY ? k->count / 64 :
			 ctx->mode == BENCH_FULL ? k->count * 8 :
						   k->count * 2;
	struct side legacy = { k, true, n }, tdp = { k, false, n };
	struct bench_side sides[2] = {
		{ "legacy direct map", side_rep, &legacy },
		{ "TDP MMU, same stream", side_rep, &tdp },
	};
	struct bench_pair p = { 0 };
	char fig[64], params[192];
	int rc;

	rc = bench_interleave(ctx, k->name, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s.accesses_per_s", k->name);
		snprintf(params, sizeof(params),
			 "{\"kind\":\"%s\",\"profile\":\"6.6\",\"accesses\":%u,"
			 "\"host_level\":%d,\"stride\":%" PRIu64 "}",
			 k->name, n, k->host_level, k->stride);
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "access/s",
				.ref_name = "TDP MMU, same stream, every "
					    "access a fault of the same level "
					    "(access/s)",
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

struct mem_side {
	bool legacy;
	unsigned int regions;
};

/* value = live bytes per page-table page made by the mapping. */
static int mem_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct mem_side *s = arg;
	struct nxsim_alloc_stats before, after;
	int64_t p0, p1;
	struct nx_env e;
	int rc;

	(void)lat;
	rc = env_create(&e, s->legacy, (uint64_t)s->regions * NX_2M,
			NXSIM_PG_LEVEL_4K);
	if (rc)
		return rc;
	/* the root and upper levels first, so only 4K tables are counted */
	rc = nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_READ, NX_GPA_BASE, NULL);
	p0 = nxsim_vm_nr_mmu_pages(e.vm);
	nxsim_alloc_stats(&before);
	if (!rc)
		rc = nx_env_touch(&e, NXSIM_ACCESS_READ,
				  (uint64_t)s->regions * NX_2M, 4096);
	nxsim_alloc_stats(&after);
	p1 = nxsim_vm_nr_mmu_pages(e.vm);
	if (!rc && (p0 < 0 || p1 - p0 != s->regions - 1))
		rc = -EPROTO;
	if (!rc)
		*value = (double)(after.live_bytes - before.live_bytes) /
			 (double)(p1 - p0);
	nx_env_close(&e);
	return rc;
}

static int run_memory(struct bench_ctx *ctx)
{
	unsigned int n = ctx->mode == BENCH_TINY ? 9 : 257;
	struct mem_side legacy = { true, n }, tdp = { false, n };
	struct bench_side sides[2] = {
		{ "legacy direct map pages", mem_rep, &legacy },
		{ "TDP MMU pages, same mapping", mem_rep, &tdp },
	};
	struct bench_pair p = { 0 };
	char params[160];
	int rc;

	rc = bench_interleave(ctx, "page", bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(params, sizeof(params),
			 "{\"profile\":\"6.6\",\"tables\":%u,\"alloc\":\"%s\"}",
			 n - 1, nxsim_alloc_backend());
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "page.bytes",
				.unit = "B",
				.ref_name =
					"TDP MMU bytes per page-table page, "
					"same mapping (B)",
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

static int legacy_fault_run(struct bench_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(kinds); i++)
		rc = run_kind(ctx, &kinds[i]);
	if (!rc)
		rc = run_memory(ctx);
	return rc;
}

const struct bench bench_legacy_fault = {
	.name = "legacy_fault",
	.title = "legacy direct map (kvm.tdp_mmu=0) faults/s and bytes per "
		 "page-table page vs the TDP MMU",
	.run = legacy_fault_run,
};
