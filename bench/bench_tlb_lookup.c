// SPDX-License-Identifier: GPL-2.0-only
/*
 * B1, TLB lookup throughput (docs/bench.md): lookups per
 * second of the simulated TLB through its public calls (nxsim_tlb_lookup(),
 * and nxsim_tlb_fill() after a miss, as a page walk would), on one CPU of
 * the default geometry (L1 dTLB 16x4, L1 iTLB 16x8, STLB 128x12, LRU),
 * 4 KiB pages, PCID 0.
 *
 * Two references, each interleaved with the model on the same address
 * stream, both written here with the same levels and LRU and without
 * locking, argument checks, statistics, page sizes or PCID/global
 * handling:
 *  - the bare probe: tag compare per way in a loop that stops at the hit,
 *    LRU by age stamps, an STLB hit refills the L1, a miss fills both;
 *    the work any TLB model must do.  Target: at least 0.8x its rate.
 *  - the fast probe: the same, written for speed: the tags of a set
 *    packed side by side and compared at once (AVX2 where cpuid has it,
 *    else SSE2, else a branch-free scalar loop), a branch-free LRU victim
 *    search and age stamp.  No target: the distance to it is reported.
 *
 * Streams: "hit", every address from 1024 pages already cached (90% of
 * them from 48 hot pages); "miss25", the same with one address in four a
 * page never seen before; "miss", every address a new page (all seeded);
 * "lackey", a real program's memory accesses as valgrind's lackey tool
 * traced them (instruction fetches through the iTLB, loads and stores
 * through the dTLB), replayed from the start until the stream is long
 * enough.  The trace is the tree's tests/fixtures/lackey-true.txt (the
 * start of /bin/true) unless NXSIM_BENCH_LACKEY names another log.
 *
 * Left out: B1's naive scalar LRU loop over a compiler's trace, which the
 * tree does not have (a long log can be given by NXSIM_BENCH_LACKEY).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include <nxsim/rng.h>
#include <nxsim/tlb.h>
#include <nxsim/trace.h>

#include "harness.h"

#define WARM_PAGES 1024
#define HOT_PAGES 48
#define BASE_VA 0x7f0000000000ull
#define LACKEY_FIXTURE "/../tests/fixtures/lackey-true.txt"

struct stream {
	const char *name;
	unsigned int miss_pct; /* addresses on a never-seen page */
	uint64_t *va;
	uint8_t *exec; /* per address: an instruction fetch; NULL: none */
	size_t n;
	size_t records; /* lackey: records in the trace, before repeating */
	bool warm;	/* warm the TLB with the warm pages first */
	const char *path;
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
	struct bare_level l1d, l1i, l2;
	uint64_t sink;
};

/*
 * The fast reference: sets padded to FAST_ALIGN ways (padding ways have
 * tag 0, which no key matches, and an age no victim search picks).
 */
#define FAST_ALIGN 4

struct fast_level {
	uint32_t set_mask, stride;
	uint64_t *tag; /* vpn + 1; 0 is empty */
	uint64_t *pfn;
	uint64_t *age;
	uint64_t tick;
};

struct fast_side {
	const struct stream *s;
	struct fast_level l1d, l1i, l2;
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
	s->warm = true;
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

/*
 * The lackey stream: the trace's accesses in order, repeated up to @n.
 * A modify (load and store) is one access, as it is one translation.
 */
static int stream_lackey(struct stream *s, size_t n)
{
	struct nxsim_trace_event ev;
	struct nxsim_trace *t;
	const char *why = "";
	size_t i = 0, len;
	int rc;

	rc = nxsim_trace_open(s->path, NXSIM_TRACE_LACKEY, &t, &why);
	if (rc) {
		fprintf(stderr, "nxsim-bench: %s: %s\n", s->path, why);
		return rc;
	}
	s->va = malloc(n * sizeof(*s->va));
	s->exec = malloc(n);
	s->n = n;
	if (!s->va || !s->exec)
		rc = -ENOMEM;
	while (!rc && i < n && (rc = nxsim_trace_next(t, &ev)) == 1) {
		s->va[i] = ev.addr;
		s->exec[i++] = ev.op == NXSIM_TRACE_IFETCH;
		rc = 0;
	}
	if (rc < 0)
		fprintf(stderr, "nxsim-bench: %s: %s\n", s->path,
			nxsim_trace_error(t));
	nxsim_trace_close(t);
	if (rc < 0)
		return rc;
	if (!i) {
		fprintf(stderr, "nxsim-bench: %s: no access\n", s->path);
		return -EINVAL;
	}
	s->records = i;
	for (len = i; i < n; i++) {
		s->va[i] = s->va[i % len];
		s->exec[i] = s->exec[i % len];
	}
	return 0;
}

static void stream_free(struct stream *s)
{
	free(s->va);
	free(s->exec);
}

static inline bool stream_exec(const struct stream *s, size_t i)
{
	return s->exec && s->exec[i];
}

/* Look @va up, fill it on a miss as a page walk would. */
static inline uint64_t sim_access(struct nxsim_tlb *tlb, uint64_t va, bool exec)
{
	enum nxsim_tlb_access acc = exec ? NXSIM_TLB_EXEC : NXSIM_TLB_READ;
	struct nxsim_tlb_entry e;

	if (!nxsim_tlb_lookup(tlb, 0, acc, va, &e))
		return e.pfn;
	e = (struct nxsim_tlb_entry){ .va = va,
				      .pfn = va >> 12,
				      .page_shift = NXSIM_TLB_SHIFT_4K };
	nxsim_tlb_fill(tlb, 0, acc, &e);
	return e.pfn;
}

/* One rep: a fresh TLB, warmed with the warm pages, then the stream. */
static int sim_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct sim_side *p = arg;
	const struct stream *s = p->s;
	struct nxsim_tlb_config cfg;
	uint64_t t0, sum = 0;
	int rc;

	nxsim_tlb_config_default(&cfg, 1);
	rc = nxsim_tlb_create(&cfg, &p->tlb);
	if (rc)
		return rc;
	for (uint64_t i = 0; s->warm && i < WARM_PAGES; i++)
		sum += sim_access(p->tlb, BASE_VA + (i << 12), false);
	t0 = bench_now_ns();
	for (size_t i = 0; i < s->n; i++)
		sum += sim_access(p->tlb, s->va[i], stream_exec(s, i));
	*value = (double)s->n * 1e9 / (double)(bench_now_ns() - t0);
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
	memset(l, 0, sizeof(*l));
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

static inline uint64_t bare_access(struct bare_side *b, uint64_t va, bool exec)
{
	struct bare_level *l1 = exec ? &b->l1i : &b->l1d;
	uint64_t vpn = va >> 12;
	int i = bare_probe(l1, vpn);

	if (i >= 0)
		return l1->pfn[i];
	i = bare_probe(&b->l2, vpn);
	if (i >= 0) {
		bare_fill(l1, vpn, b->l2.pfn[i]);
		return b->l2.pfn[i];
	}
	bare_fill(&b->l2, vpn, vpn);
	bare_fill(l1, vpn, vpn);
	return vpn;
}

static int bare_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct bare_side *b = arg;
	const struct stream *s = b->s;
	struct nxsim_tlb_config cfg;
	uint64_t t0, sum = 0;
	int rc;

	nxsim_tlb_config_default(&cfg, 1);
	rc = bare_alloc(&b->l1d, cfg.level[NXSIM_TLB_L1D].sets,
			cfg.level[NXSIM_TLB_L1D].ways);
	if (!rc)
		rc = bare_alloc(&b->l1i, cfg.level[NXSIM_TLB_L1I].sets,
				cfg.level[NXSIM_TLB_L1I].ways);
	if (!rc)
		rc = bare_alloc(&b->l2, cfg.level[NXSIM_TLB_L2].sets,
				cfg.level[NXSIM_TLB_L2].ways);
	if (!rc) {
		for (uint64_t i = 0; s->warm && i < WARM_PAGES; i++)
			sum += bare_access(b, BASE_VA + (i << 12), false);
		t0 = bench_now_ns();
		for (size_t i = 0; i < s->n; i++)
			sum += bare_access(b, s->va[i], stream_exec(s, i));
		*value = (double)s->n * 1e9 / (double)(bench_now_ns() - t0);
		b->sink += sum;
	}
	bare_free(&b->l1d);
	bare_free(&b->l1i);
	bare_free(&b->l2);
	return rc;
}

static int fast_alloc(struct fast_level *l, uint32_t sets, uint32_t ways)
{
	uint32_t stride = (ways + FAST_ALIGN - 1) / FAST_ALIGN * FAST_ALIGN;
	size_t n = (size_t)sets * stride;

	l->set_mask = sets - 1;
	l->stride = stride;
	l->tag = calloc(n, sizeof(*l->tag));
	l->pfn = calloc(n, sizeof(*l->pfn));
	l->age = calloc(n, sizeof(*l->age));
	if (!l->tag || !l->pfn || !l->age)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (i % stride >= ways)
			l->age[i] = INT64_MAX;
	return 0;
}

static void fast_free(struct fast_level *l)
{
	free(l->tag);
	free(l->pfn);
	free(l->age);
	memset(l, 0, sizeof(*l));
}

#ifndef __SSE2__
/* Ways of the @n tags at @t equal to @key, as a mask: scalar form. */
static inline uint32_t fast_match_scalar(const uint64_t *t, uint32_t n,
					 uint64_t key)
{
	uint32_t m = 0;

	for (uint32_t w = 0; w < n; w++)
		m |= (uint32_t)(t[w] == key) << w;
	return m;
}
#endif

/* The first way of least age among @n: scalar, conditional moves. */
static inline uint32_t fast_oldest_scalar(const uint64_t *age, uint32_t n)
{
	uint64_t min = age[0];
	uint32_t best = 0;

	for (uint32_t w = 1; w < n; w++) {
		bool older = age[w] < min;

		min = older ? age[w] : min;
		best = older ? w : best;
	}
	return best;
}

#ifdef __SSE2__
/* SSE2 has no 64-bit compare: both 32-bit halves must be equal. */
static inline uint32_t fast_match_sse2(const uint64_t *t, uint32_t n,
				       uint64_t key)
{
	const __m128i k = _mm_set1_epi64x((long long)key);
	uint32_t m = 0;

	for (uint32_t w = 0; w < n; w += 2) {
		__m128i e = _mm_cmpeq_epi32(
			_mm_loadu_si128((const __m128i *)(t + w)), k);

		e = _mm_and_si128(e, _mm_shuffle_epi32(e, 0xb1));
		m |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(e)) << w;
	}
	return m;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#define FAST_HAVE_AVX2 1
#define FAST_AVX2 __attribute__((target("avx2")))

static inline FAST_AVX2 uint32_t fast_match_avx2(const uint64_t *t, uint32_t n,
						 uint64_t key)
{
	const __m256i k = _mm256_set1_epi64x((long long)key);
	uint32_t m = 0;

	for (uint32_t w = 0; w < n; w += 4) {
		__m256i e = _mm256_cmpeq_epi64(
			_mm256_loadu_si256((const __m256i *)(t + w)), k);

		m |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(e)) << w;
	}
	return m;
}

/* Ages stay below 2^63, so the signed compare orders them. */
static inline FAST_AVX2 uint32_t fast_oldest_avx2(const uint64_t *age,
						  uint32_t n)
{
	__m256i m = _mm256_loadu_si256((const __m256i *)age), s;
	uint32_t least = 0;

	for (uint32_t w = 4; w < n; w += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(age + w));

		m = _mm256_blendv_epi8(m, x, _mm256_cmpgt_epi64(m, x));
	}
	s = _mm256_permute4x64_epi64(m, 0x4e);
	m = _mm256_blendv_epi8(m, s, _mm256_cmpgt_epi64(m, s));
	s = _mm256_shuffle_epi32(m, 0x4e);
	m = _mm256_blendv_epi8(m, s, _mm256_cmpgt_epi64(m, s));
	for (uint32_t w = 0; w < n; w += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(age + w));

		least |= (uint32_t)_mm256_movemask_pd(
				 _mm256_castsi256_pd(_mm256_cmpeq_epi64(x, m)))
			 << w;
	}
	return (uint32_t)__builtin_ctz(least);
}
#else
#define FAST_HAVE_AVX2 0
#define FAST_AVX2
#endif

/* The forms a fast probe instance uses; always inline, so @avx2 folds. */
static __attribute__((always_inline)) inline uint32_t
fast_match(bool avx2, const uint64_t *t, uint32_t n, uint64_t key)
{
#if FAST_HAVE_AVX2
	if (avx2)
		return fast_match_avx2(t, n, key);
#endif
#ifdef __SSE2__
	return fast_match_sse2(t, n, key);
#else
	return fast_match_scalar(t, n, key);
#endif
}

static __attribute__((always_inline)) inline uint32_t
fast_oldest(bool avx2, const uint64_t *age, uint32_t n)
{
#if FAST_HAVE_AVX2
	if (avx2)
		return fast_oldest_avx2(age, n);
#endif
	return fast_oldest_scalar(age, n);
}

/* Fill the LRU (or first empty: age 0) way of the set at @base. */
static __attribute__((always_inline)) inline void
fast_fill(bool avx2, struct fast_level *l, size_t base, uint64_t key,
	  uint64_t pfn)
{
	size_t v = base + fast_oldest(avx2, l->age + base, l->stride);

	l->tag[v] = key;
	l->pfn[v] = pfn;
	l->age[v] = ++l->tick;
}

static __attribute__((always_inline)) inline uint64_t
fast_access(bool avx2, struct fast_side *f, uint64_t va, bool exec)
{
	struct fast_level *l1 = exec ? &f->l1i : &f->l1d, *l2 = &f->l2;
	uint64_t vpn = va >> 12, key = vpn + 1;
	size_t b1 = (size_t)(vpn & l1->set_mask) * l1->stride, b2, i;
	uint32_t m = fast_match(avx2, l1->tag + b1, l1->stride, key);

	if (__builtin_expect(m != 0, 1)) {
		i = b1 + (uint32_t)__builtin_ctz(m);
		l1->age[i] = ++l1->tick;
		return l1->pfn[i];
	}
	b2 = (size_t)(vpn & l2->set_mask) * l2->stride;
	m = fast_match(avx2, l2->tag + b2, l2->stride, key);
	if (m) {
		i = b2 + (uint32_t)__builtin_ctz(m);
		l2->age[i] = ++l2->tick;
		fast_fill(avx2, l1, b1, key, l2->pfn[i]);
		return l2->pfn[i];
	}
	fast_fill(avx2, l2, b2, key, vpn);
	fast_fill(avx2, l1, b1, key, vpn);
	return vpn;
}

/* The timed loop, one instance per form. */
static __attribute__((always_inline)) inline uint64_t
fast_loop(bool avx2, struct fast_side *f)
{
	const struct stream *s = f->s;
	uint64_t sum = 0;

	for (size_t i = 0; i < s->n; i++)
		sum += fast_access(avx2, f, s->va[i], stream_exec(s, i));
	return sum;
}

static __attribute__((noinline)) uint64_t fast_loop_base(struct fast_side *f)
{
	return fast_loop(false, f);
}

#if FAST_HAVE_AVX2
static FAST_AVX2 __attribute__((noinline)) uint64_t
fast_loop_avx2(struct fast_side *f)
{
	return fast_loop(true, f);
}
#endif

/* Which form the fast probe runs here (cpuid). */
static const char *fast_form(void)
{
#if FAST_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		return "avx2";
#endif
#ifdef __SSE2__
	return "sse2";
#else
	return "scalar";
#endif
}

static int fast_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct fast_side *f = arg;
	const struct stream *s = f->s;
	struct nxsim_tlb_config cfg;
	uint64_t t0, sum = 0;
	bool avx2 = !strcmp(fast_form(), "avx2");
	int rc;

	nxsim_tlb_config_default(&cfg, 1);
	rc = fast_alloc(&f->l1d, cfg.level[NXSIM_TLB_L1D].sets,
			cfg.level[NXSIM_TLB_L1D].ways);
	if (!rc)
		rc = fast_alloc(&f->l1i, cfg.level[NXSIM_TLB_L1I].sets,
				cfg.level[NXSIM_TLB_L1I].ways);
	if (!rc)
		rc = fast_alloc(&f->l2, cfg.level[NXSIM_TLB_L2].sets,
				cfg.level[NXSIM_TLB_L2].ways);
	if (!rc) {
		for (uint64_t i = 0; s->warm && i < WARM_PAGES; i++)
			sum += fast_access(false, f, BASE_VA + (i << 12),
					   false);
		t0 = bench_now_ns();
#if FAST_HAVE_AVX2
		if (avx2)
			sum += fast_loop_avx2(f);
		else
#endif
			sum += fast_loop_base(f);
		*value = (double)s->n * 1e9 / (double)(bench_now_ns() - t0);
		f->sink += sum;
	}
	fast_free(&f->l1d);
	fast_free(&f->l1i);
	fast_free(&f->l2);
	return rc;
}

/* Model vs one reference on @s: one figure. */
static int run_pair(struct bench_ctx *ctx, const struct stream *s,
		    const struct bench_side *ref, const char *suffix,
		    const char *ref_name, struct bench_target target,
		    uint64_t *sink)
{
	struct sim_side sim = { .s = s };
	struct bench_side sides[2] = {
		{ "nxsim_tlb_lookup/fill", sim_rep, &sim },
		*ref,
	};
	struct bench_pair p = { 0 };
	char fig[64], what[64], params[512];
	int rc;

	snprintf(what, sizeof(what), "%s%s", s->name, suffix);
	rc = bench_interleave(ctx, what, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s%s.lookups_per_s", s->name,
			 suffix);
		snprintf(params, sizeof(params),
			 "{\"stream\":\"%s\",\"miss_pct\":%u,\"lookups\":%zu,"
			 "\"warm_pages\":%u,\"hot_pages\":%u,\"trace\":\"%s\","
			 "\"trace_records\":%zu,\"fast_form\":\"%s\","
			 "\"geometry\":\"L1D 16x4, L1I 16x8, L2 128x12, LRU\","
			 "\"sink\":%" PRIu64 "}",
			 s->name, s->miss_pct, s->n, s->warm ? WARM_PAGES : 0,
			 HOT_PAGES, s->path ? s->path : "", s->records,
			 fast_form(), ((sim.sink ^ *sink) & 1));
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){ .figure = fig,
						.unit = "lookup/s",
						.ref_name = ref_name,
						.target = target,
						.params = params });
	}
	bench_pair_free(&p);
	return rc;
}

static int run_stream(struct bench_ctx *ctx, struct stream *s)
{
	struct bare_side bare = { .s = s };
	struct fast_side fast = { .s = s };
	struct bench_side bare_side = { "bare 2-level probe", bare_rep, &bare };
	struct bench_side fast_side = { "fast 2-level probe", fast_rep, &fast };
	int rc;

	rc = run_pair(ctx, s, &bare_side, "",
		      "bare 2-level set-associative probe of the same "
		      "geometry, same stream (lookup/s)",
		      (struct bench_target){ BENCH_TARGET_RATIO_MIN, 0.8 },
		      &bare.sink);
	if (!rc)
		rc = run_pair(ctx, s, &fast_side, ".vs_fast",
			      "fast 2-level probe of the same geometry (packed "
			      "tags, SIMD compare, branch-free LRU), same "
			      "stream (lookup/s)",
			      (struct bench_target){ BENCH_TARGET_NONE, 0 },
			      &fast.sink);
	return rc;
}

/* The committed lackey fixture, found from this file's path. */
static char *lackey_path(void)
{
	const char *env = getenv("NXSIM_BENCH_LACKEY"), *slash;
	char *p;

	if (env && *env)
		return strdup(env);
	slash = strrchr(__FILE__, '/');
	if (!slash)
		return strdup("tests/fixtures/lackey-true.txt");
	p = malloc((size_t)(slash - __FILE__) + sizeof(LACKEY_FIXTURE));
	if (p) {
		memcpy(p, __FILE__, (size_t)(slash - __FILE__));
		strcpy(p + (slash - __FILE__), LACKEY_FIXTURE);
	}
	return p;
}

static int tlb_lookup_run(struct bench_ctx *ctx)
{
	struct stream streams[] = {
		{ .name = "hit", .miss_pct = 0 },
		{ .name = "miss25", .miss_pct = 25 },
		{ .name = "miss", .miss_pct = 100 },
		{ .name = "lackey" },
	};
	size_t n = ctx->mode == BENCH_TINY  ? 20000 :
		   ctx->mode == BENCH_QUICK ? 2000000 :
					      8000000;
	char *path = lackey_path();
	int rc = path ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < ARRAY_SIZE(streams); i++) {
		if (!strcmp(streams[i].name, "lackey")) {
			streams[i].path = path;
			rc = stream_lackey(&streams[i], n);
		} else {
			rc = stream_make(&streams[i], n, ctx->seed + i);
		}
		if (!rc)
			rc = run_stream(ctx, &streams[i]);
		stream_free(&streams[i]);
	}
	free(path);
	return rc;
}

const struct bench bench_tlb_lookup = {
	.name = "tlb_lookup",
	.title = "B1: simulated TLB lookups/s vs a bare and a fast "
		 "set-associative probe",
	.run = tlb_lookup_run,
};
