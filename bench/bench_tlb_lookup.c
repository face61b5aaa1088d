// SPDX-License-Identifier: GPL-2.0-only
/*
 * B1, TLB lookup throughput (docs/bench.md): lookups per
 * second of the simulated TLB through its public calls (nxsim_tlb_lookup(),
 * and nxsim_tlb_fill() after a miss, as a page walk would), on one CPU of
 * the default geometry (L1 dTLB 16x4, STLB 128x12, LRU), 4 KiB pages,
 * PCID 0.
 *
 * Reference, interleaved, on the same address stream: a bare two-level
 * set-associative probe of the same geometry written here (tag compare
 * per way, LRU by age stamps, an STLB hit refills the L1, a miss fills
 * both), i.e. the work any TLB model must do, without locking, argument
 * checks, statistics, page sizes or PCID/global handling.  Target: at
 * least 0.8x the bare probe's rate.
 *
 * Streams (seeded): "hit", every address from 1024 pages already cached
 * (90% of them from 48 hot pages); "miss25", the same with one address in
 * four a page never seen before; "miss", every address a new page.
 *
 * Left out: B1's other references, a naive scalar LRU loop and a replay of
 * a compiler's memory trace, which the tree does not have.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/rng.h>
#include <nxsim/tlb.h>

#include "harness.h"

#define WARM_PAGES 1024
#define HOT_PAGES 48
#define BASE_VA 0x7f0000000000ull

struct stream {
	const char *name;
	unsigned int miss_pct; /* addresses on a never-seen page */
	uint64_t *va;
	size_t n;
};

/* The simulated TLB side. */
struct sim_side {
	const struct stream *s;
	struct nxsim_tlb *tlb;
	uint64_t sink;
};

/* The bare reference: one level of sets x ways. */
struct bare_level {
	uint32_t sets, ways;
	uint64_t *tag; /* vpn + 1; 0 is empty */
	uint64_t *pfn;
	uint64_t *age;
	uint64_t tick;
};

struct bare_side {
	const struct stream *s;
	struct bare_level l1, l2;
	uint64_t sink;
};

static int stream_make(struct stream *s, size_t n, uint64_t seed)
{
	struct nxsim_rng rng;
	uint64_t fresh = WARM_PAGES;

	s->va = malloc(n * sizeof(*s->va));
	if (!s->va)
		return -ENOMEM;
	s->n = n;
	nxsim_rng_seed(&rng, seed);
	for (size_t i = 0; i < n; i++) {
		uint64_t page;

		if (nxsim_rng_below(&rng, 100) < s->miss_pct)
			page = fresh++;
		else if (nxsim_rng_below(&rng, 10))
			page = nxsim_rng_below(&rng, HOT_PAGES);
		else
			page = nxsim_rng_below(&rng, WARM_PAGES);
		s->va[i] = BASE_VA + (page << 12) +
			   (nxsim_rng_below(&rng, 512) << 3);
	}
	return 0;
}

/* Look @va up, fill it on a miss as a page walk would. */
static inline uint64_t sim_access(struct nxsim_tlb *tlb, uint64_t va)
{
	struct nxsim_tlb_entry e;

	if (!nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, va, &e))
		return e.pfn;
	e = (struct nxsim_tlb_entry){ .va = va,
				      .pfn = va >> 12,
				      .page_shift = NXSIM_TLB_SHIFT_4K };
	nxsim_tlb_fill(tlb, 0, NXSIM_TLB_READ, &e);
	return e.pfn;
}

/* One rep: a fresh TLB, warmed with the warm pages, then the stream. */
static int sim_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct sim_side *p = arg;
	struct nxsim_tlb_config cfg;
	uint64_t t0, sum = 0;
	int rc;

	nxsim_tlb_config_default(&cfg, 1);
	rc = nxsim_tlb_create(&cfg, &p->tlb);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < WARM_PAGES; i++)
		sum += sim_access(p->tlb, BASE_VA + (i << 12));
	t0 = bench_now_ns();
	for (size_t i = 0; i < p->s->n; i++)
		sum += sim_access(p->tlb, p->s->va[i]);
	*value = (double)p->s->n * 1e9 / (double)(bench_now_ns() - t0);
	p->sink += sum;
	nxsim_tlb_destroy(p->tlb);
	return 0;
}

static int bare_alloc(struct bare_level *l, uint32_t sets, uint32_t ways)
{
	size_t n = (size_t)sets * ways;

	l->sets = sets;
	l->ways = ways;
	l->tag = calloc(n, sizeof(*l->tag));
	l->pfn = calloc(n, sizeof(*l->pfn));
	l->age = calloc(n, sizeof(*l->age));
	return l->tag && l->pfn && l->age ? 0 : -ENOMEM;
}

static void bare_free(struct bare_level *l)
{
	free(l->tag);
	free(l->pfn);
	free(l->age);
}

/* Probe one level; on a hit stamp the way and return it, else -1. */
static inline int bare_probe(struct bare_level *l, uint64_t vpn)
{
	size_t base = (size_t)(vpn & (l->sets - 1)) * l->ways;

	for (uint32_t w = 0; w < l->ways; w++)
		if (l->tag[base + w] == vpn + 1) {
			l->age[base + w] = ++l->tick;
			return (int)(base + w);
		}
	return -1;
}

/* Insert into the least recently used (or an empty) way. */
static inline void bare_fill(struct bare_level *l, uint64_t vpn, uint64_t pfn)
{
	size_t base = (size_t)(vpn & (l->sets - 1)) * l->ways, v = base;

	for (uint32_t w = 1; w < l->ways; w++)
		if (l->age[base + w] < l->age[v])
			v = base + w;
	l->tag[v] = vpn + 1;
	l->pfn[v] = pfn;
	l->age[v] = ++l->tick;
}

static inline uint64_t bare_access(struct bare_side *b, uint64_t va)
{
	uint64_t vpn = va >> 12;
	int i = bare_probe(&b->l1, vpn);

	if (i >= 0)
		return b->l1.pfn[i];
	i = bare_probe(&b->l2, vpn);
	if (i >= 0) {
		bare_fill(&b->l1, vpn, b->l2.pfn[i]);
		return b->l2.pfn[i];
	}
	bare_fill(&b->l2, vpn, vpn);
	bare_fill(&b->l1, vpn, vpn);
	return vpn;
}

static int bare_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct bare_side *b = arg;
	struct nxsim_tlb_config cfg;
	uint64_t t0, sum = 0;
	int rc;

	nxsim_tlb_config_default(&cfg, 1);
	rc = bare_alloc(&b->l1, cfg.level[NXSIM_TLB_L1D].sets,
			cfg.level[NXSIM_TLB_L1D].ways);
	if (!rc)
		rc = bare_alloc(&b->l2, cfg.level[NXSIM_TLB_L2].sets,
				cfg.level[NXSIM_TLB_L2].ways);
	if (!rc) {
		for (uint64_t i = 0; i < WARM_PAGES; i++)
			sum += bare_access(b, BASE_VA + (i << 12));
		t0 = bench_now_ns();
		for (size_t i = 0; i < b->s->n; i++)
			sum += bare_access(b, b->s->va[i]);
		*value = (double)b->s->n * 1e9 / (double)(bench_now_ns() - t0);
		b->sink += sum;
	}
	bare_free(&b->l1);
	bare_free(&b->l2);
	memset(&b->l1, 0, sizeof(b->l1));
	memset(&b->l2, 0, sizeof(b->l2));
	return rc;
}

static int run_stream(struct bench_ctx *ctx, struct stream *s)
{
	struct sim_side sim = { .s = s };
	struct bare_side bare = { .s = s };
	struct bench_side sides[2] = {
		{ "nxsim_tlb_lookup/fill", sim_rep, &sim },
		{ "bare 2-level set-associative probe", bare_rep, &bare },
	};
	struct bench_pair p = { 0 };
	char fig[64], params[256];
	int rc;

	rc = bench_interleave(ctx, s->name, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s.lookups_per_s", s->name);
		snprintf(params, sizeof(params),
			 "{\"stream\":\"%s\",\"miss_pct\":%u,\"lookups\":%zu,"
			 "\"warm_pages\":%u,\"hot_pages\":%u,\"geometry\":"
			 "\"L1D 16x4, L2 128x12, LRU\",\"sink\":%" PRIu64 "}",
			 s->name, s->miss_pct, s->n, WARM_PAGES, HOT_PAGES,
			 ((sim.sink ^ bare.sink) & 1));
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "lookup/s",
				.ref_name =
					"bare 2-level set-associative probe of "
					"the same geometry, same stream "
					"(lookup/s)",
				.target = { BENCH_TARGET_RATIO_MIN, 0.8 },
				.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

static int tlb_lookup_run(struct bench_ctx *ctx)
{
	struct stream streams[] = {
		{ .name = "hit", .miss_pct = 0 },
		{ .name = "miss25", .miss_pct = 25 },
		{ .name = "miss", .miss_pct = 100 },
	};
	size_t n = ctx->mode == BENCH_TINY  ? 20000 :
		   ctx->mode == BENCH_QUICK ? 2000000 :
					      8000000;
	int rc = 0;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(streams); i++) {
		rc = stream_make(&streams[i], n, ctx->seed + i);
		if (!rc)
			rc = run_stream(ctx, &streams[i]);
		free(streams[i].va);
	}
	return rc;
}

const struct bench bench_tlb_lookup = {
	.name = "tlb_lookup",
	.title = "B1: simulated TLB lookups/s vs a bare set-associative probe",
	.run = tlb_lookup_run,
};
