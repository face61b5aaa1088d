/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TLB internals: the per-CPU arrays, the replacement-policy interface and
 * the unlocked primitives that a machine which already serialises its CPUs
 * (the XPFO machine, and the vCPU TLBs of src/kvm/vcpu_tlb.c) calls
 * directly.  The public nxsim_tlb_*
 * calls are these with argument and (debug builds) ownership checks.
 */
#ifndef NXSIM_TLB_TLB_H
#define NXSIM_TLB_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include <nxsim/rng.h>
#include <nxsim/tlb.h>

#include "core/compiler.h"

/*
 * Tag word of a way: 0 is an empty way.
 *   bit 0      valid
 *   bit 1      global
 *   bit 2      watched (the owner wants to know when it leaves the CPU)
 *   bits 3-4   page size: 0 4K, 1 2M, 2 1G
 *   bits 5-16  PCID
 *   bits 17-63 virtual page number at that size
 */
#define TLB_TAG_VALID 1ull
#define TLB_TAG_GLOBAL 2ull
#define TLB_TAG_WATCH 4ull
#define TLB_TAG_SIZE_SHIFT 3
#define TLB_TAG_SIZE_MASK (3ull << TLB_TAG_SIZE_SHIFT)
#define TLB_TAG_PCID_SHIFT 5
#define TLB_TAG_PCID_MASK (0xfffull << TLB_TAG_PCID_SHIFT)
#define TLB_TAG_VPN_SHIFT 17
#define TLB_NR_SIZES 3

/*
 * The tags of a set are packed side by side and compared several ways at
 * a time (nxsim__tlb_match()).  Each set's row of tags, frames and ages is
 * padded to a multiple of TLB_WAY_ALIGN ways; a padding way has tag 0,
 * which no key matches (keys carry TLB_TAG_VALID), and age INT64_MAX,
 * which no LRU search picks.  A set's three rows lie together, its tags,
 * then its ages, then its frames (struct nxsim__tlb_array), so that a hit
 * or a fill, which reads or writes all three, touches the lines of one
 * set and not of three arrays.
 */
#define TLB_WAY_ALIGN 4
/*
 * The widest set the lookup's inline L1 probe takes (nxsim__tlb_lookup_l1())
 * and the AVX2 forms compare without a loop.
 */
#define TLB_NARROW (2 * TLB_WAY_ALIGN)

/* Sets of an array told apart by struct nxsim__tlb_array's @occ. */
#define TLB_OCC_BITS 128

/*
 * Dispatch on the common set widths, so that each is compiled unrolled
 * with a constant count.
 */
#define TLB_BY_STRIDE(n, fn, ...)          \
	((n) == 4  ? fn(4, __VA_ARGS__) :  \
	 (n) == 8  ? fn(8, __VA_ARGS__) :  \
	 (n) == 12 ? fn(12, __VA_ARGS__) : \
	 (n) == 16 ? fn(16, __VA_ARGS__) : \
		     fn(n, __VA_ARGS__))

/*
 * The replacement policies (repl.c): struct nxsim_tlb_repl_ops of
 * <nxsim/tlb.h>.  A new built-in is one file src/tlb/repl_<name>.c
 * defining one, plus its extern and a line in tlb_repl_table[].
 */
/* The policy called @name, or NULL. */
const struct nxsim_tlb_repl_ops *nxsim__tlb_repl_find(const char *name);
/* Register @n policies at once, all or none (a plug-in's, at its load). */
int nxsim__tlb_repl_register_all(const struct nxsim_tlb_repl_ops *const *ops,
				 unsigned int n, const char **why);
/* Whether nxsim_tlb_repl_register() would take @ops now. */
int nxsim__tlb_repl_check(const struct nxsim_tlb_repl_ops *ops,
			  const char **why);

/**
 * struct nxsim__tlb_array - one level of one CPU
 * @tag: the tag words, set-major: set s's ways at @tag[s * @row]
 * @pfn: the frame of each way, inside the same block: way w of the set
 *	at base b at @pfn[b + w]
 * @age: last-use tick of each way, likewise
 * @state: per-set replacement state
 * @set_mask: sets - 1
 * @ways: ways per set
 * @stride: ways rounded up to TLB_WAY_ALIGN: the width of a set's row
 * @row: 3 x @stride: the distance between sets (their tags, ages and
 *	frames)
 * @cap: sets x ways
 * @way_mask: one bit per way of a set
 * @tick: the clock of the ages: a use (hit or fill) stamps the way with
 *	its next value; a drop advances it too (struct nxsim__tlb_target)
 * @nr: valid entries per page size
 * @used: valid entries (@nr summed)
 * @sizes: bit n set when @nr[n] is not 0, so lookups skip absent sizes
 * @occ: bit (s mod TLB_OCC_BITS) set while set s may hold an entry: a
 *	clear bit means every set of its class is empty, so that a probe, a
 *	search for an empty way or a flush need not read their tags (on a
 *	machine of many CPUs, a host cache miss each).  Set when a way of
 *	the set fills, cleared all at once when the array empties
 * @memo_key: tlb_memo_key() of the last lookup that hit this array, or 0
 *	(no key is 0): until a tag of the array changes or CR3 is written
 *	(the key has no PCID), a lookup of the same page finds what that one
 *	found
 * @memo_e: the entry it reported
 *
 * The memo saves the probe only: a lookup it answers still counts its
 * hit and reports its entry, exactly as the probe's hit would.  Every tag
 * write (nxsim__tlb_memo_forget()) clears it, so it never outlives the
 * search it stands for.  Nor does it outlive the array's last use: every
 * use of a way (a probe's hit, a fill) sets or clears it, so the way it
 * names is the one used last.  A hit on it therefore leaves the ages'
 * order and the policy's state as they are (making the most recent way
 * the most recent again changes no victim, and a policy's @touch of the
 * way it last touched changes nothing), and it neither stamps nor
 * touches.
 */
struct nxsim__tlb_array {
	uint64_t *tag;
	uint64_t *pfn;
	uint64_t *age;
	uint32_t *state;
	uint32_t set_mask;
	uint32_t ways;
	uint32_t stride;
	uint32_t row;
	uint32_t cap;
	uint32_t way_mask;
	uint64_t tick;
	uint32_t nr[TLB_NR_SIZES];
	uint32_t used;
	uint32_t sizes;
	uint64_t occ[TLB_OCC_BITS / 64];
	uint64_t memo_key;
	struct nxsim_tlb_entry memo_e;
};

/*
 * The memo's key for @va: its 4K page number plus one, so that no key is
 * 0.  The PCID is left out, for one compare less on every memo hit:
 * nxsim__tlb_write_cr3() forgets the memos instead.
 */
static inline uint64_t tlb_memo_key(uint64_t va)
{
	return (va >> NXSIM_TLB_SHIFT_4K) + 1;
}

/* A tag of @a changes: what the memo stands for may no longer hold. */
static inline void nxsim__tlb_memo_forget(struct nxsim__tlb_array *a)
{
	a->memo_key = 0;
}

/**
 * struct nxsim__tlb_target - where a fill goes in one array
 * @base: the set's first way
 * @way: the way in the set
 * @tick: the array's @tick when it was chosen
 *
 * The choice stands while the array's @tick is unchanged: no way was
 * stamped (a hit or a fill) or dropped since, so every way keeps its age
 * and its emptiness, all the choice depends on.
 */
struct nxsim__tlb_target {
	uint32_t base;
	uint32_t way;
	uint64_t tick;
};

/* Fills a TLB_FILL_LOG log keeps before it is lost. */
#define TLB_FILL_LOG 32

/**
 * struct nxsim__tlb_fill_log - the fills of one CPU since its last full
 * flush, for a TLB whose owner reports each (struct nxsim_tlb's
 * @fill_log, nxsim__tlb_log_fill()): every entry the CPU holds lies in a
 * set one of them maps to, so a full flush empties those sets alone
 * @n: fills logged; past TLB_FILL_LOG the log is lost (a full flush looks
 *	at every set)
 * @at: each fill's virtual page number at its page size, times 4, plus
 *	the size code
 */
struct nxsim__tlb_fill_log {
	uint32_t n;
	uint64_t at[TLB_FILL_LOG];
};

/**
 * struct nxsim__tlb_cpu - the TLB of one CPU
 * @busy: debug builds only: a public call is running on this CPU (the
 *	ownership check of nxsim_tlb_lookup()'s "Threads" rule)
 * @lv: the levels
 * @pcid: the PCID CR3 holds
 * @missed: the last lookup missed every level and no fill came since:
 *	no entry of @missed_l1 or the L2 translates @missed_va under
 *	@missed_pcid (or globally), so the walk's fill need not look for a
 *	copy to refresh
 * @target: with @missed, under LRU (no @victim or @touch hook): the way a
 *	fresh 4K insert of @missed_va takes in the L2 ([0]) and in
 *	@missed_l1 ([1]), chosen by the miss as insert() chooses it (an
 *	empty way, else the least recent one)
 * @rng: seeds "random" replacement (CPU 0 from the configured seed)
 * @st: counters
 * @log: with struct nxsim_tlb's @fill_log, the fills since the last full
 *	flush
 *
 * Each CPU's starts a cache line, so that what a lookup reads of it takes
 * the same few lines on every CPU.
 */
struct nxsim__tlb_cpu {
	int busy;
	struct nxsim__tlb_array lv[NXSIM_TLB_NR_LEVELS];
	uint16_t pcid;
	bool missed;
	uint16_t missed_pcid;
	enum nxsim_tlb_level missed_l1;
	uint64_t missed_va;
	struct nxsim__tlb_target target[2];
	struct nxsim_rng rng;
	struct nxsim_tlb_stats st;
	struct nxsim__tlb_fill_log log;
} ____cacheline_aligned;

/* Called when a watched translation has left every level of @cpu. */
typedef void (*nxsim__tlb_drop_fn)(void *ctx, unsigned int cpu, uint64_t va,
				   uint64_t pfn);

/*
 * @avx2: the miss path uses its AVX2 instance (cpuid says the CPU has
 * AVX2); tests clear it to drive the baseline instance on any CPU.
 * @touch: the policy has a @touch hook (@repl->touch, read once here so
 * that a hit under LRU loads one byte to learn it has none)
 * @victim: @repl->victim, read once here (NULL: LRU, found inline)
 * @fill_log: the owner reports every fill (nxsim__tlb_log_fill()), so a
 *	full flush can look only where the CPU's entries are
 * @all: counts of every CPU at once, on top of each CPU's own @st (which
 *	may go below zero, modulo 2^64, to leave one out): a CPU's counters
 *	are the sum of the two
 */
struct nxsim_tlb {
	bool avx2;
	bool touch;
	unsigned int nr_cpus;
	unsigned int ceiling;
	bool broadcast;
	bool fill_log;
	const struct nxsim_tlb_repl_ops *repl;
	unsigned int (*victim)(const uint64_t *age, uint32_t *state,
			       unsigned int ways, struct nxsim_rng *rng);
	struct nxsim_tlb_geometry geo[NXSIM_TLB_NR_LEVELS];
	struct nxsim__tlb_cpu *cpu;
	struct nxsim_tlb_stats all;
	nxsim__tlb_drop_fn drop;
	void *drop_ctx;
};

/*
 * The lookup fast path is inline; these are its out-of-line parts.
 * nxsim__tlb_lookup_l2() runs the instance @tlb uses.
 */
int nxsim__tlb_lookup_l2(struct nxsim_tlb *tlb, unsigned int cpu,
			 enum nxsim_tlb_level l1, uint64_t va,
			 struct nxsim_tlb_entry *e);
int nxsim__tlb_touch_state(struct nxsim_tlb *tlb, struct nxsim__tlb_array *a,
			   size_t base, unsigned int w);

#define TLB_SIZE_SHIFT(sz) (NXSIM_TLB_SHIFT_4K + 9 * (sz))

static inline uint64_t tlb_tag_key(uint64_t va, unsigned int sz, uint16_t pcid)
{
	return (va >> TLB_SIZE_SHIFT(sz)) << TLB_TAG_VPN_SHIFT |
	       (uint64_t)pcid << TLB_TAG_PCID_SHIFT |
	       (uint64_t)sz << TLB_TAG_SIZE_SHIFT | TLB_TAG_VALID;
}

static inline unsigned int tlb_tag_size(uint64_t t)
{
	return (t >> TLB_TAG_SIZE_SHIFT) & 3;
}

/*
 * The virtual address a tag maps.  The tag keeps VA bits 12..58, so the
 * address is rebuilt canonical: sign-extended from bit 56 (LA57; 4-level
 * addresses are sign-extended from bit 47, which implies it).
 */
static inline uint64_t tlb_tag_va(uint64_t t)
{
	uint64_t va = (t >> TLB_TAG_VPN_SHIFT)
		      << TLB_SIZE_SHIFT(tlb_tag_size(t));

	return (uint64_t)((int64_t)(va << 7) >> 7);
}

/* The set @va falls in at page size @sz. */
static inline size_t nxsim__tlb_set(const struct nxsim__tlb_array *a,
				    uint64_t va, unsigned int sz)
{
	return (va >> TLB_SIZE_SHIFT(sz)) & a->set_mask;
}

/* The index in @a->tag of the set @va falls in at page size @sz. */
static inline size_t nxsim__tlb_set_base(const struct nxsim__tlb_array *a,
					 uint64_t va, unsigned int sz)
{
	return nxsim__tlb_set(a, va, sz) * a->row;
}

/* The ways of the set @va falls in at page size @sz; *@base: its index. */
static inline uint64_t *nxsim__tlb_set_of(struct nxsim__tlb_array *a,
					  uint64_t va, unsigned int sz,
					  size_t *base)
{
	*base = nxsim__tlb_set_base(a, va, sz);
	return a->tag + *base;
}

/* Whether set @set of @a may hold an entry (struct nxsim__tlb_array). */
static inline bool nxsim__tlb_occupied(const struct nxsim__tlb_array *a,
				       size_t set)
{
	set %= TLB_OCC_BITS;
	return a->occ[set / 64] >> (set % 64) & 1;
}

/* A way of set @set of @a fills. */
static inline void nxsim__tlb_occupy(struct nxsim__tlb_array *a, size_t set)
{
	set %= TLB_OCC_BITS;
	a->occ[set / 64] |= 1ull << (set % 64);
}

/* @a holds no entry any more: no set is occupied. */
static inline void nxsim__tlb_vacate(struct nxsim__tlb_array *a)
{
	unsigned int k;

	for (k = 0; k < TLB_OCC_BITS / 64; k++)
		a->occ[k] = 0;
}

/*
 * The ways among the @n (a multiple of TLB_WAY_ALIGN) tags at @t that
 * translate @key or @gkey, as a bit mask; the WATCH bit is ignored.  @key
 * and @gkey differ only in their low 32 bits (PCID and GLOBAL), which the
 * SSE2 form relies on.  The scalar form is the definition; tests compare
 * the vector forms with it.
 */
static inline uint32_t nxsim__tlb_match_scalar(const uint64_t *t,
					       unsigned int n, uint64_t key,
					       uint64_t gkey)
{
	uint32_t hit = 0;
	unsigned int w;

	for (w = 0; w < n; w++) {
		uint64_t x = t[w] & ~TLB_TAG_WATCH;

		hit |= (uint32_t)((x == key) | (x == gkey)) << w;
	}
	return hit;
}

/*
 * The first way of least age among @n: the LRU victim (padding ways,
 * INT64_MAX, are never least; real ages are ticks, far below).  The
 * scalar form is the definition; conditional moves only.
 */
static inline unsigned int nxsim__tlb_oldest_scalar(const uint64_t *age,
						    unsigned int n)
{
	unsigned int w, best = 0;
	uint64_t min = age[0];

	for (w = 1; w < n; w++) {
		bool older = age[w] < min;

		min = older ? age[w] : min;
		best = older ? w : best;
	}
	return best;
}

#ifdef __SSE2__
static inline uint32_t nxsim__tlb_match_sse2(const uint64_t *t, unsigned int n,
					     uint64_t key, uint64_t gkey)
{
	const __m128i k = _mm_set1_epi64x((long long)key);
	const __m128i g = _mm_set1_epi64x((long long)gkey);
	const __m128i m = _mm_set1_epi64x((long long)~TLB_TAG_WATCH);
	uint32_t hit = 0;
	unsigned int w;

	for (w = 0; w < n; w += 2) {
		__m128i x = _mm_and_si128(
			_mm_loadu_si128((const __m128i *)(t + w)), m);
		/* Per 32-bit half: equal to the key's or the global key's. */
		__m128i e = _mm_or_si128(_mm_cmpeq_epi32(x, k),
					 _mm_cmpeq_epi32(x, g));

		/* Both halves of a way: the high halves of @k, @g agree. */
		e = _mm_and_si128(e, _mm_shuffle_epi32(e, 0xb1));
		hit |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(e)) << w;
	}
	return hit;
}
#endif

/*
 * AVX2 forms, compiled whatever the build targets and used only where
 * cpuid reports AVX2 (struct nxsim_tlb's @avx2): the miss path is built
 * twice, once for each (tlb.c).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define TLB_HAVE_AVX2 1
#define TLB_AVX2 __attribute__((target("avx2")))
/*
 * An out-of-line AVX2 instance of a path: flattened, so that the AVX2
 * forms below, which cannot be always_inline (the dispatchers that name
 * them are not AVX2 code), are inlined into it at every width; GCC left
 * the LRU search out of line, a call per search, without it.
 */
#define TLB_AVX2_INSTANCE TLB_AVX2 __attribute__((noinline, flatten))
/*
 * The AVX2 forms themselves: never merged with an identical function
 * elsewhere in the link.  Under link-time optimisation GCC folded
 * nxsim__tlb_oldest_avx2() into the benchmark's copy of the same search
 * (bench/bench_tlb_lookup.c's fast probe), which the flattened instances
 * then called, once per LRU search, instead of inlining it.
 */
#if __has_attribute(no_icf)
#define TLB_AVX2_FORM TLB_AVX2 __attribute__((no_icf))
#else
#define TLB_AVX2_FORM TLB_AVX2
#endif

static inline TLB_AVX2_FORM uint32_t nxsim__tlb_match_avx2(const uint64_t *t,
							   unsigned int n,
							   uint64_t key,
							   uint64_t gkey)
{
	const __m256i k = _mm256_set1_epi64x((long long)key);
	const __m256i g = _mm256_set1_epi64x((long long)gkey);
	const __m256i m = _mm256_set1_epi64x((long long)~TLB_TAG_WATCH);
	uint32_t hit = 0;
	unsigned int w;

	for (w = 0; w < n; w += 4) {
		__m256i x = _mm256_and_si256(
			_mm256_loadu_si256((const __m256i *)(t + w)), m);
		__m256i e = _mm256_or_si256(_mm256_cmpeq_epi64(x, k),
					    _mm256_cmpeq_epi64(x, g));

		hit |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(e))
		       << w;
	}
	return hit;
}

/*
 * The minimum of the ages four at a time (ages are below 2^63, so the
 * signed compare orders them), spread to every lane; then the first way
 * holding it.
 */
static inline TLB_AVX2_FORM unsigned int
nxsim__tlb_oldest_avx2(const uint64_t *age, unsigned int n)
{
	__m256i m = _mm256_loadu_si256((const __m256i *)age), s;
	uint32_t least = 0;
	unsigned int w;

	for (w = 4; w < n; w += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(age + w));

		m = _mm256_blendv_epi8(m, x, _mm256_cmpgt_epi64(m, x));
	}
	s = _mm256_permute4x64_epi64(m, 0x4e);
	m = _mm256_blendv_epi8(m, s, _mm256_cmpgt_epi64(m, s));
	s = _mm256_shuffle_epi32(m, 0x4e);
	m = _mm256_blendv_epi8(m, s, _mm256_cmpgt_epi64(m, s));
	for (w = 0; w < n; w += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(age + w));

		least |= (uint32_t)_mm256_movemask_pd(
				 _mm256_castsi256_pd(_mm256_cmpeq_epi64(x, m)))
			 << w;
	}
	return (unsigned int)__builtin_ctz(least);
}
#else
#define TLB_HAVE_AVX2 0
#define TLB_AVX2
#endif

/* Which forms a path uses: the build's baseline, or AVX2. */
enum nxsim__tlb_isa {
	TLB_ISA_BASE,
	TLB_ISA_AVX2,
};

/*
 * nxsim__tlb_match() and nxsim__tlb_oldest() in the forms of @isa, with
 * the common set widths compiled unrolled.  Always inline, so @isa folds
 * away in each instance.
 */
#define TLB_MATCH_N(n, isa, t, key, gkey) \
	nxsim__tlb_match_n(isa, t, n, key, gkey)
#define TLB_OLDEST_N(n, isa, age) nxsim__tlb_oldest_n(isa, age, n)

static __attribute__((always_inline)) inline uint32_t
nxsim__tlb_match_n(enum nxsim__tlb_isa isa, const uint64_t *t, unsigned int n,
		   uint64_t key, uint64_t gkey)
{
#if TLB_HAVE_AVX2
	if (isa == TLB_ISA_AVX2)
		return nxsim__tlb_match_avx2(t, n, key, gkey);
#endif
#ifdef __SSE2__
	return nxsim__tlb_match_sse2(t, n, key, gkey);
#else
	return nxsim__tlb_match_scalar(t, n, key, gkey);
#endif
}

static __attribute__((always_inline)) inline unsigned int
nxsim__tlb_oldest_n(enum nxsim__tlb_isa isa, const uint64_t *age,
		    unsigned int n)
{
#if TLB_HAVE_AVX2
	if (isa == TLB_ISA_AVX2)
		return nxsim__tlb_oldest_avx2(age, n);
#endif
	return nxsim__tlb_oldest_scalar(age, n);
}

static __attribute__((always_inline)) inline uint32_t
nxsim__tlb_match_isa(enum nxsim__tlb_isa isa, const uint64_t *t, unsigned int n,
		     uint64_t key, uint64_t gkey)
{
	return TLB_BY_STRIDE(n, TLB_MATCH_N, isa, t, key, gkey);
}

static __attribute__((always_inline)) inline unsigned int
nxsim__tlb_oldest_isa(enum nxsim__tlb_isa isa, const uint64_t *age,
		      unsigned int n)
{
	return TLB_BY_STRIDE(n, TLB_OLDEST_N, isa, age);
}

/* The baseline forms. */
static inline uint32_t nxsim__tlb_match(const uint64_t *t, unsigned int n,
					uint64_t key, uint64_t gkey)
{
	return nxsim__tlb_match_isa(TLB_ISA_BASE, t, n, key, gkey);
}

static inline unsigned int nxsim__tlb_oldest(const uint64_t *age,
					     unsigned int n)
{
	return nxsim__tlb_oldest_isa(TLB_ISA_BASE, age, n);
}

/*
 * The ways of @a's set at @t that translate @key or @gkey.  With AVX2, a
 * set of at most eight ways is compared as eight, branch-free whatever
 * its width (the words past its tags, its own ages, are masked off);
 * wider sets and the baseline forms dispatch on the width.
 */
static __attribute__((always_inline)) inline uint32_t
nxsim__tlb_match_set(enum nxsim__tlb_isa isa, const struct nxsim__tlb_array *a,
		     const uint64_t *t, uint64_t key, uint64_t gkey)
{
#if TLB_HAVE_AVX2
	if (isa == TLB_ISA_AVX2 && __builtin_expect(a->stride <= TLB_NARROW, 1))
		return nxsim__tlb_match_avx2(t, TLB_NARROW, key, gkey) &
		       a->way_mask;
#endif
	return nxsim__tlb_match_isa(isa, t, a->stride, key, gkey);
}

/*
 * Probe one array for @va under @pcid at the page sizes in @sizes (a mask
 * of size codes), smallest first; on a hit set *@base and *@way and
 * return the hit's size code, else -1.  Global entries are stored with
 * PCID 0 and match under any PCID.
 */
static __attribute__((always_inline)) inline int
nxsim__tlb_probe_sizes(enum nxsim__tlb_isa isa, struct nxsim__tlb_array *a,
		       uint64_t va, uint16_t pcid, uint32_t sizes, size_t *base,
		       unsigned int *way)
{
	for (; sizes; sizes &= sizes - 1) {
		unsigned int sz = (unsigned int)__builtin_ctz(sizes);
		uint64_t key = tlb_tag_key(va, sz, pcid);
		uint64_t gkey = tlb_tag_key(va, sz, 0) | TLB_TAG_GLOBAL;
		size_t set = nxsim__tlb_set(a, va, sz);
		uint32_t hit;

		if (!nxsim__tlb_occupied(a, set))
			continue;
		*base = set * a->row;
		hit = nxsim__tlb_match_set(isa, a, a->tag + *base, key, gkey);
		if (hit) {
			*way = (unsigned int)__builtin_ctz(hit);
			return (int)sz;
		}
	}
	return -1;
}

/*
 * Probe one array for @va under @pcid at every page size it holds an
 * entry of; on a hit set *@base and *@way.  4K first, with its shifts
 * constant: the common case.
 */
static __attribute__((always_inline)) inline bool
nxsim__tlb_probe_isa(enum nxsim__tlb_isa isa, struct nxsim__tlb_array *a,
		     uint64_t va, uint16_t pcid, size_t *base,
		     unsigned int *way)
{
	uint32_t sizes = a->sizes, hit;

	if (__builtin_expect(sizes & 1, 1)) {
		uint64_t key = tlb_tag_key(va, 0, pcid);
		uint64_t gkey = tlb_tag_key(va, 0, 0) | TLB_TAG_GLOBAL;
		size_t set = nxsim__tlb_set(a, va, 0);

		if (nxsim__tlb_occupied(a, set)) {
			*base = set * a->row;
			hit = nxsim__tlb_match_set(isa, a, a->tag + *base, key,
						   gkey);
			if (__builtin_expect(hit != 0, 1)) {
				*way = (unsigned int)__builtin_ctz(hit);
				return true;
			}
		}
		sizes &= ~1u;
	}
	return nxsim__tlb_probe_sizes(isa, a, va, pcid, sizes, base, way) >= 0;
}

static inline bool nxsim__tlb_probe(struct nxsim__tlb_array *a, uint64_t va,
				    uint16_t pcid, size_t *base,
				    unsigned int *way)
{
	return nxsim__tlb_probe_isa(TLB_ISA_BASE, a, va, pcid, base, way);
}

/*
 * The entry in way @i of level @lv, as the public calls report it; @sz is
 * the entry's page size (a constant where the caller knows it).
 */
static __attribute__((always_inline)) inline void
nxsim__tlb_entry_out_sz(const struct nxsim__tlb_array *a, size_t i,
			enum nxsim_tlb_level lv, unsigned int sz,
			struct nxsim_tlb_entry *e)
{
	uint64_t t = a->tag[i];
	uint64_t va = (t >> TLB_TAG_VPN_SHIFT) << TLB_SIZE_SHIFT(sz);

	/* tlb_tag_va(), with the size given */
	e->va = (uint64_t)((int64_t)(va << 7) >> 7);
	e->pfn = a->pfn[i];
	e->page_shift = TLB_SIZE_SHIFT(sz);
	e->pcid = (t & TLB_TAG_PCID_MASK) >> TLB_TAG_PCID_SHIFT;
	e->global = t & TLB_TAG_GLOBAL;
	e->level = lv;
}

static inline void nxsim__tlb_entry_out(const struct nxsim__tlb_array *a,
					size_t i, enum nxsim_tlb_level lv,
					struct nxsim_tlb_entry *e)
{
	nxsim__tlb_entry_out_sz(a, i, lv, tlb_tag_size(a->tag[i]), e);
}

/* A use of way @w of the set at @base. */
static inline void nxsim__tlb_touch(struct nxsim_tlb *tlb,
				    struct nxsim__tlb_array *a, size_t base,
				    unsigned int w)
{
	a->age[base + w] = ++a->tick;
	if (__builtin_expect(tlb->touch, 0))
		nxsim__tlb_touch_state(tlb, a, base, w);
}

/*
 * A probe's L1 hit, the lookup of @va, in way @w of the set at
 * @base of @c's level @l1 (@a), on an entry of page size @sz: remember it
 * in the memo, count it, report it, make it the most recent.  The entry
 * is built once, in registers, for the memo and for @e.  A policy's own
 * state last, by a tail call, so the LRU path is a leaf.
 */
static __attribute__((always_inline)) inline int
nxsim__tlb_l1_hit(struct nxsim_tlb *tlb, struct nxsim__tlb_cpu *c,
		  struct nxsim__tlb_array *a, enum nxsim_tlb_level l1,
		  uint64_t va, size_t base, unsigned int w, unsigned int sz,
		  struct nxsim_tlb_entry *e)
{
	struct nxsim_tlb_entry x;

	nxsim__tlb_entry_out_sz(a, base + w, l1, sz, &x);
	a->memo_key = tlb_memo_key(va);
	a->memo_e = x;
	c->st.hits[l1]++;
	if (e)
		*e = x;
	a->age[base + w] = ++a->tick;
	if (__builtin_expect(tlb->touch, 0))
		return nxsim__tlb_touch_state(tlb, a, base, w);
	return 0;
}

/* The L1 level @access uses. */
static inline enum nxsim_tlb_level nxsim__tlb_l1(enum nxsim_tlb_access access)
{
	return access == NXSIM_TLB_EXEC ? NXSIM_TLB_L1I : NXSIM_TLB_L1D;
}

/*
 * The lookup of @va, if the L1's memo answers it: count the hit and
 * report the entry (the way is already the most recent: struct
 * nxsim__tlb_array).
 */
static __attribute__((always_inline)) inline bool
nxsim__tlb_lookup_memo(struct nxsim_tlb *tlb, unsigned int cpu,
		       enum nxsim_tlb_access access, uint64_t va,
		       struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	struct nxsim__tlb_array *a = &c->lv[l1];

	if (tlb_memo_key(va) != a->memo_key)
		return false;
	c->st.hits[l1]++;
	if (e)
		*e = a->memo_e;
	return true;
}

/*
 * The out-of-line rest of a lookup: the L1's page sizes in @sizes (those
 * the inline 4K probe did not settle), then the L2; in the instance @tlb
 * uses.
 */
int nxsim__tlb_lookup_big(struct nxsim_tlb *tlb, unsigned int cpu,
			  enum nxsim_tlb_level l1, uint64_t va, uint32_t sizes,
			  struct nxsim_tlb_entry *e);

/*
 * The L1 half of a lookup the memo did not answer: the hit on a 4K page
 * in a set of at most TLB_NARROW ways is all inline, in the caller, in
 * the baseline forms unrolled for the two widths such a set has (4K
 * first, with its shifts constant).  Returns 0 on that hit, reported;
 * else 1, with *@sizes the L1's page sizes left to probe (4K still among
 * them if the set is wider: the out-of-line rest probes it).
 */
static __attribute__((always_inline)) inline int
nxsim__tlb_lookup_l1(struct nxsim_tlb *tlb, unsigned int cpu,
		     enum nxsim_tlb_access access, uint64_t va,
		     struct nxsim_tlb_entry *e, uint32_t *sizes)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	struct nxsim__tlb_array *a = &c->lv[l1];

	*sizes = a->sizes;
	if (__builtin_expect(*sizes & 1, 1) &&
	    __builtin_expect(a->stride <= TLB_NARROW, 1)) {
		uint64_t key = tlb_tag_key(va, 0, c->pcid);
		uint64_t gkey = tlb_tag_key(va, 0, 0) | TLB_TAG_GLOBAL;
		size_t set = nxsim__tlb_set(a, va, 0), base = set * a->row;
		uint64_t *t = a->tag + base;
		uint32_t hit = 0;

		if (nxsim__tlb_occupied(a, set))
			hit = a->stride == TLB_WAY_ALIGN ?
				      nxsim__tlb_match_n(TLB_ISA_BASE, t,
							 TLB_WAY_ALIGN, key,
							 gkey) :
				      nxsim__tlb_match_n(TLB_ISA_BASE, t,
							 TLB_NARROW, key, gkey);
		if (__builtin_expect(hit != 0, 1)) {
			unsigned int w = (unsigned int)__builtin_ctz(hit);

			return nxsim__tlb_l1_hit(tlb, c, a, l1, va, base, w, 0,
						 e);
		}
		*sizes &= ~1u;
	}
	return 1;
}

/**
 * nxsim__tlb_lookup() - nxsim_tlb_lookup() without checks or lock
 *
 * Inline: the L1 hit is the hot path of every simulated access.  The memo,
 * then the L1's 4K probe in the baseline forms; the rest out of line, in
 * the instance @tlb uses, by a tail call.  The memo is marked likely, so
 * that GCC gives its path the registers of a caller's loop (without the
 * mark, a lackey replay's memo hits, 95% of its lookups, ran behind
 * spills of the loop's values).
 */
static inline int nxsim__tlb_lookup(struct nxsim_tlb *tlb, unsigned int cpu,
				    enum nxsim_tlb_access access, uint64_t va,
				    struct nxsim_tlb_entry *e)
{
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	uint32_t sizes;

	if (__builtin_expect(nxsim__tlb_lookup_memo(tlb, cpu, access, va, e),
			     1) ||
	    !nxsim__tlb_lookup_l1(tlb, cpu, access, va, e, &sizes))
		return 0;
	return sizes ? nxsim__tlb_lookup_big(tlb, cpu, l1, va, sizes, e) :
		       nxsim__tlb_lookup_l2(tlb, cpu, l1, va, e);
}

void nxsim__tlb_fill(struct nxsim_tlb *tlb, unsigned int cpu,
		     enum nxsim_tlb_access access,
		     const struct nxsim_tlb_entry *e);

/*
 * A hint: a lookup of @va for @access on @cpu is to come.  Prefetches the
 * tags it probes, the set of each page size its L1 and the L2 hold.
 */
static inline void nxsim__tlb_prefetch_lookup(const struct nxsim_tlb *tlb,
					      unsigned int cpu,
					      enum nxsim_tlb_access access,
					      uint64_t va)
{
	const struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	const struct nxsim__tlb_array *lv[2] = { &c->lv[nxsim__tlb_l1(access)],
						 &c->lv[NXSIM_TLB_L2] };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		const struct nxsim__tlb_array *a = lv[k];
		uint32_t sizes;

		for (sizes = a->sizes; sizes; sizes &= sizes - 1) {
			unsigned int sz = (unsigned int)__builtin_ctz(sizes);
			size_t set = nxsim__tlb_set(a, va, sz);
			const uint64_t *t = a->tag + set * a->row;

			if (!nxsim__tlb_occupied(a, set))
				continue; /* a probe reads nothing there */
			__builtin_prefetch(t);
			__builtin_prefetch(t + a->stride - 1);
		}
	}
}

/*
 * The owner of a TLB with @fill_log reports nxsim__tlb_fill() of the page
 * of @va, of page shift @shift, on @cpu.
 */
static inline void nxsim__tlb_log_fill(struct nxsim_tlb *tlb, unsigned int cpu,
				       uint64_t va, unsigned int shift)
{
	struct nxsim__tlb_fill_log *l = &tlb->cpu[cpu].log;
	unsigned int sz = (shift - NXSIM_TLB_SHIFT_4K) / 9;

	if (l->n < TLB_FILL_LOG)
		l->at[l->n] = (va >> TLB_SIZE_SHIFT(sz)) << 2 | sz;
	if (l->n <= TLB_FILL_LOG)
		l->n++;
}
/*
 * Empty way @i of @a on @cpu, telling the owner if a watched entry left
 * the CPU (flush.c).
 */
void nxsim__tlb_drop(struct nxsim_tlb *tlb, unsigned int cpu,
		     struct nxsim__tlb_array *a, size_t i);
void nxsim__tlb_invlpg(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va);
void nxsim__tlb_write_cr3(struct nxsim_tlb *tlb, unsigned int cpu,
			  uint16_t pcid, bool noflush);
void nxsim__tlb_flush_global(struct nxsim_tlb *tlb, unsigned int cpu);

/*
 * do_kernel_range_flush() on @cpu alone: INVLPG each of @pages 4K pages
 * from @start; or, if @full, do_flush_tlb_all() (__flush_tlb_all()).
 */
void nxsim__tlb_flush_one_cpu(struct nxsim_tlb *tlb, unsigned int cpu,
			      uint64_t start, uint64_t pages, bool full);

/*
 * flush_tlb_kernel_range() from @cpu to the CPUs set in @mask (a bitmap of
 * nr_cpus bits; NULL: all), by IPI or, on a TLB configured for broadcast,
 * by INVLPGB.
 * Returns the number of other CPUs reached.
 */
unsigned int nxsim__flush_tlb_kernel_range(struct nxsim_tlb *tlb,
					   unsigned int cpu,
					   const uint64_t *mask, uint64_t start,
					   uint64_t end);

/*
 * nxsim__flush_tlb_kernel_range() to every CPU, when only the CPUs set in
 * @held (a bitmap of nr_cpus bits) may hold a translation it drops (of the
 * range, or any, for a full flush): the flush runs on those alone, and
 * every other CPU counts its IPI and its INVLPGs or full flush without
 * probing (it would find nothing).  Returns the number of other CPUs
 * reached.
 */
unsigned int nxsim__flush_tlb_kernel_range_held(struct nxsim_tlb *tlb,
						unsigned int cpu,
						const uint64_t *held,
						uint64_t start, uint64_t end);

/* Whether a range of @pages is flushed page by page (not in full). */
static inline bool nxsim__tlb_ranged(const struct nxsim_tlb *tlb,
				     uint64_t pages)
{
	return pages <= tlb->ceiling;
}

/*
 * Watch the translation of @va on @cpu (all levels holding it).  Returns
 * whether @cpu holds one.  @watch false unwatches without a callback.
 */
bool nxsim__tlb_watch(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va,
		      bool watch);

/* The counters of every CPU summed, without the ownership check. */
void nxsim__tlb_stats_sum(const struct nxsim_tlb *tlb,
			  struct nxsim_tlb_stats *st);

/* nxsim_tlb_dump() without checks or lock (dump.c). */
int nxsim__tlb_dump(const struct nxsim_tlb *tlb, unsigned int cpu,
		    nxsim_tlb_dump_fn fn, void *ctx);

#endif /* NXSIM_TLB_TLB_H */
