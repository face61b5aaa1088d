// SPDX-License-Identifier: GPL-2.0-only
/*
 * B4c, NX recovery throughput and the MMU's memory (docs/bench.md):
 *
 * recovery   page-table pages per second through one recovery pass
 *            (kvm_recover_nx_huge_pages(), run by the VM's worker on the
 *            virtual clock): K 2 MiB regions split by exec faults on
 *            profile 6.6, recovery ratio 1 so the pass zaps all K, one
 *            period of virtual time advanced.  The timed part is the
 *            nxsim_clock_advance() that runs the pass (worker wake
 *            included), after one pass not recorded (the first of a
 *            process is a cold one).  Target: at least 2x10^7 SPs/s.
 *            Reference, interleaved: a pass that only walks a list of K
 *            nodes the size of a shadow page header and unlinks each (the
 *            list work of a pass without the zap, the TLB flush or the
 *            stats).  The nodes are laid out as the SPs are: each
 *            allocated right before its own zeroed 4 KiB page table
 *            (kvm_mmu_alloc_shadow_page() allocates the header and then
 *            its spt), so that every node is on a page of its own and the
 *            walk misses the cache as a pass does; nodes allocated back to
 *            back would share lines and pages and stream through the
 *            prefetcher.
 * mem.<size> bytes of simulator memory (the allocator's live bytes) per
 *            GiB of guest memory mapped by read faults at 4K, 2M and 1G
 *            (slot backed by host pages of that size).  Reference, same
 *            run: the page-table pages the model then holds
 *            (nxsim_vm_nr_mmu_pages()) at 4 KiB each, what the kernel
 *            spends on them.  No target.
 *
 * Left out: ratio 60 passes (ceil(K/60) SPs per pass; the per-SP cost is
 * the same and ratio 1 gives K SPs per timed pass).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <bsd/sys/queue.h>

#include <nxsim/alloc.h>

#include "harness.h"
#include "nx_env.h"

#define PERIOD_MS 1000

struct rec_side {
	unsigned int k;
	uint64_t passes;
};

/* A node as big as struct kvm_mmu_page's list-relevant head. */
struct walk_node {
	TAILQ_ENTRY(walk_node) link;
	uint64_t gfn;
	uint8_t pad[160];
};

TAILQ_HEAD(walk_list, walk_node);

struct walk_side {
	unsigned int k;
	uint64_t sink;
};

/* value = SPs zapped per second of the pass. */
static int rec_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct rec_side *s = arg;
	uint64_t bytes = (uint64_t)s->k * NX_2M, t0, t1;
	struct nxsim_mmu_counters c0, c1;
	struct nx_env e;
	int rc;

	rc = nx_env_create(&e, "6.6", 1, bytes, NXSIM_PG_LEVEL_2M);
	if (!rc)
		rc = nxsim_param_set(e.host, "nx_huge_pages_recovery_period_ms",
				     "1000");
	if (rc) {
		nx_env_close(&e);
		return rc;
	}
	rc = nx_env_touch(&e, NXSIM_ACCESS_READ, bytes, NX_2M);
	if (!rc)
		rc = nx_env_touch(&e, NXSIM_ACCESS_EXEC, bytes, NX_2M);
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c0);
	t0 = bench_now_ns();
	if (!rc)
		nxsim_clock_advance(nxsim_host_clock(e.host),
				    PERIOD_MS * 1000000ull);
	t1 = bench_now_ns();
	if (!rc)
		rc = nxsim_vm_mmu_counters(e.vm, &c1);
	if (!rc) {
		s->passes = c1.recovery_passes - c0.recovery_passes;
		if (c1.recovery_zapped - c0.recovery_zapped != s->k)
			rc = -EPROTO;
		*value = (double)s->k * 1e9 / (double)(t1 - t0);
	}
	nx_env_close(&e);
	return rc;
}

/* value = nodes per second through a walk that unlinks each. */
static int walk_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct walk_side *s = arg;
	struct walk_list head = TAILQ_HEAD_INITIALIZER(head);
	struct walk_node **nodes = calloc(s->k, sizeof(*nodes)), *n;
	void **tables = calloc(s->k, sizeof(*tables));
	uint64_t t0, t1;
	int rc = 0;

	if (!nodes || !tables) {
		free(nodes);
		free(tables);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < s->k; i++) {
		nodes[i] = calloc(1, sizeof(*nodes[i]));
		tables[i] = calloc(1, 4096);
		if (!nodes[i] || !tables[i]) {
			rc = -ENOMEM;
			break;
		}
		nodes[i]->gfn = (uint64_t)i << 9;
		TAILQ_INSERT_TAIL(&head, nodes[i], link);
	}
	t0 = bench_now_ns();
	while (!rc && (n = TAILQ_FIRST(&head))) {
		s->sink += n->gfn;
		TAILQ_REMOVE(&head, n, link);
	}
	t1 = bench_now_ns();
	if (!rc)
		*value = (double)s->k * 1e9 / (double)(t1 - t0);
	for (unsigned int i = 0; i < s->k; i++) {
		free(nodes[i]);
		free(tables[i]);
	}
	free(nodes);
	free(tables);
	return rc;
}

/*
 * One rep of each side not recorded, before the reps: the first pass of a
 * process, on memory and caches nothing has warmed, came out at about
 * half the rate of the later ones in every run (1.9-2.0x10^7 SPs/s
 * against 2.5-4.4), and so did the reference's first walk.
 */
static int warm_up(struct rec_side *rec, struct walk_side *walk)
{
	double value;
	int rc = rec_rep(rec, &value, NULL);

	return rc ? rc : walk_rep(walk, &value, NULL);
}

static int run_recovery(struct bench_ctx *ctx, unsigned int k)
{
	struct rec_side rec = { k };
	struct walk_side walk = { k };
	struct bench_side sides[2] = {
		{ "recovery pass", rec_rep, &rec },
		{ "list walk with unlink", walk_rep, &walk },
	};
	struct bench_pair p = { 0 };
	char params[160];
	int rc;

	rc = warm_up(&rec, &walk);
	if (!rc)
		rc = bench_interleave(ctx, "recovery", bench_reps(ctx), sides,
				      &p);
	if (!rc) {
		snprintf(params, sizeof(params),
			 "{\"profile\":\"6.6\",\"ratio\":1,\"sps\":%u,"
			 "\"passes\":%" PRIu64 ",\"sink\":%" PRIu64 "}",
			 k, rec.passes, (walk.sink & 1));
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = "recovery.sps_per_s",
				.unit = "SP/s",
				.ref_name = "a walk of a list of as many "
					    "nodes, each allocated before its "
					    "own 4 KiB table as an SP is, "
					    "unlinking each (node/s)",
				.target = { BENCH_TARGET_VALUE_MIN, 2e7 },
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

/* Map @bytes at @level by reads; bytes per GiB and model PT bytes. */
static int mem_at(int level, uint64_t bytes, double *per_gib,
		  double *pt_per_gib)
{
	struct nxsim_alloc_stats before, after;
	uint64_t stride = level == NXSIM_PG_LEVEL_4K ? 4096 :
			  level == NXSIM_PG_LEVEL_2M ? NX_2M :
						       NX_1G;
	long pages0, pages1;
	struct nx_env e;
	int rc;

	rc = nx_env_create(&e, "6.6", -1, bytes, level);
	if (rc)
		return rc;
	nxsim_alloc_stats(&before);
	pages0 = nxsim_vm_nr_mmu_pages(e.vm);
	rc = nx_env_touch(&e, NXSIM_ACCESS_READ, bytes, stride);
	nxsim_alloc_stats(&after);
	pages1 = nxsim_vm_nr_mmu_pages(e.vm);
	if (!rc && (pages0 < 0 || pages1 < 0))
		rc = (int)(pages0 < 0 ? pages0 : pages1);
	*per_gib =
		(double)(after.live_bytes - before.live_bytes) * NX_1G / bytes;
	*pt_per_gib = (double)(pages1 - pages0) * 4096 * NX_1G / bytes;
	nx_env_close(&e);
	return rc;
}

static int run_memory(struct bench_ctx *ctx, uint64_t bytes)
{
	static const struct {
		const char *name;
		int level;
	} sizes[] = { { "4k", NXSIM_PG_LEVEL_4K },
		      { "2m", NXSIM_PG_LEVEL_2M },
		      { "1g", NXSIM_PG_LEVEL_1G } };
	char fig[64], params[128];
	double v = NAN, ref = NAN;
	int rc = 0;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(sizes); i++) {
		uint64_t b = sizes[i].level == NXSIM_PG_LEVEL_1G &&
					     bytes < NX_1G ?
				     NX_1G :
				     bytes;

		rc = mem_at(sizes[i].level, b, &v, &ref);
		if (rc)
			break;
		snprintf(fig, sizeof(fig), "mem.%s.bytes_per_gib",
			 sizes[i].name);
		snprintf(params, sizeof(params),
			 "{\"level\":\"%s\",\"mapped_bytes\":%" PRIu64 ","
			 "\"alloc\":\"%s\"}",
			 sizes[i].name, b, nxsim_alloc_backend());
		rc = bench_report(
			ctx, &(struct bench_figure){
				     .figure = fig,
				     .unit = "B",
				     .value = v,
				     .ref_name = "page-table pages the model "
						 "holds x 4 KiB, per GiB (B)",
				     .ref = ref,
				     .params = params,
				     .reps = 1 });
	}
	return rc;
}

static int nx_recovery_run(struct bench_ctx *ctx)
{
	unsigned int k = ctx->mode == BENCH_TINY  ? 64 :
			 ctx->mode == BENCH_QUICK ? 4096 :
						    16384;
	int rc;

	rc = run_recovery(ctx, k);
	if (!rc)
		rc = run_memory(ctx,
				ctx->mode == BENCH_TINY ? 64ull << 20 : NX_1G);
	return rc;
}

const struct bench bench_nx_recovery = {
	.name = "nx_recovery",
	.title = "B4c: NX recovery SPs/s vs a list walk; memory per mapped GiB",
	.run = nx_recovery_run,
};
