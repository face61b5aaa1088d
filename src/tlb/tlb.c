// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU TLBs of arch/x86/mm/tlb.c's CPUs: their arrays, the lookup
 * and the walk's fill, and the public calls.  The flush primitives that
 * empty them are in flush.c.
 *
 * Each level is a set-associative array of 64-bit tags (layout in tlb.h),
 * indexed by the virtual page number at the entry's own page size; a
 * lookup probes the set of each page size the level holds.  Each L1 also
 * remembers its last hit until one of its tags changes (tlb.h), and a
 * lookup that misses every level already picks the ways the walk's 4K
 * fill will take (struct nxsim__tlb_target), which no hardware TLB does:
 * simulator shortcuts that change no result.
 *
 * Left out: paging-structure caches, A/D bits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/tlb.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "tlb/tlb.h"

/* The policy is true LRU: the ages alone pick a victim, no hook runs. */
static inline bool policy_is_lru(const struct nxsim_tlb *tlb)
{
	return !tlb->victim && !tlb->touch;
}

/* The set @tag lives in (no division by the way count). */
static inline size_t set_index(const struct nxsim__tlb_array *a, uint64_t tag)
{
	return (tag >> TLB_TAG_VPN_SHIFT) & a->set_mask;
}

/* The policy's hook for a use of way @w of the set at @base; returns 0. */
__attribute__((noinline)) int nxsim__tlb_touch_state(struct nxsim_tlb *tlb,
						     struct nxsim__tlb_array *a,
						     size_t base,
						     unsigned int w)
{
	tlb->repl->touch(&a->state[set_index(a, a->tag[base + w])], w, a->ways);
	return 0;
}

/*
 * The way a fresh insert into set @set (its first way at @base) of @a
 * takes: the first empty way (*@empty set), else the policy's victim
 * (the least recent way if @lru: the caller knows the policy is LRU).
 */
static __attribute__((always_inline)) inline unsigned int
insert_way(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb,
	   struct nxsim__tlb_cpu *c, struct nxsim__tlb_array *a, size_t base,
	   size_t set, bool lru, bool *empty)
{
	uint32_t m;

	/* A full array (the steady state) has no empty way to look for. */
	if (a->used < a->cap) {
		if (!nxsim__tlb_occupied(a, set)) {
			*empty = true; /* every way, so the first */
			return 0;
		}
		/* Tag 0 is empty; padding ways are not ways. */
		m = nxsim__tlb_match_isa(isa, a->tag + base, a->stride, 0, 0) &
		    a->way_mask;
		if (m) {
			*empty = true;
			return (unsigned int)__builtin_ctz(m);
		}
	}
	*empty = false;
	if (!lru && tlb->victim) {
		unsigned int w = tlb->victim(a->age + base, &a->state[set],
					     a->ways, &c->rng);

		/* A policy from outside may answer anything. */
		return w < a->ways ? w : 0;
	}
	return nxsim__tlb_oldest_isa(isa, a->age + base, a->stride);
}

/*
 * Way @w of the set at @base takes @tag, of page size @sz: an empty way
 * (@empty: the counts grow), or one whose entry of the same size is
 * refreshed or evicted (the counts stand).  @lru: the policy is known to
 * be LRU (no @touch hook to call).
 */
static __attribute__((always_inline)) inline void
put(struct nxsim_tlb *tlb, struct nxsim__tlb_cpu *c, struct nxsim__tlb_array *a,
    size_t base, unsigned int w, unsigned int sz, uint64_t tag, uint64_t pfn,
    bool empty, bool lru)
{
	if (empty) {
		a->used++;
		a->nr[sz]++;
		a->sizes |= 1u << sz;
		nxsim__tlb_occupy(a, set_index(a, tag));
	}
	a->tag[base + w] = tag;
	nxsim__tlb_memo_forget(a);
	a->pfn[base + w] = pfn;
	c->st.fills++;
	if (lru)
		a->age[base + w] = ++a->tick;
	else
		nxsim__tlb_touch(tlb, a, base, w);
}

/*
 * Write @tag into @a, evicting if the set is full.  @fresh: the caller
 * knows @a lacks the translation (an L2-to-L1 refill after an L1 miss, a
 * walk's fill after a miss); otherwise an existing copy is refreshed
 * instead of duplicated.  Inline, so each caller's @isa and @fresh fold
 * away.
 */
static __attribute__((always_inline)) inline void
insert(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, unsigned int cpu,
       struct nxsim__tlb_array *a, uint64_t tag, uint64_t pfn, bool fresh)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int sz = tlb_tag_size(tag), w;
	/* The tag holds the VPN at its size: its low bits pick the set. */
	size_t set = set_index(a, tag), base = set * a->row;
	uint64_t *t = a->tag + base;
	uint32_t same;
	bool empty;

	if (!fresh && nxsim__tlb_occupied(a, set)) {
		same = nxsim__tlb_match_isa(isa, t, a->stride,
					    tag & ~TLB_TAG_WATCH,
					    tag & ~TLB_TAG_WATCH);
		if (same) {
			/* Already there: refresh. */
			put(tlb, c, a, base, (unsigned int)__builtin_ctz(same),
			    sz, tag, pfn, false, false);
			return;
		}
	}
	w = insert_way(isa, tlb, c, a, base, set, false, &empty);
	if (!empty) {
		c->st.evictions++;
		/*
		 * The common eviction, of an unwatched entry of the same page
		 * size: the counts stand, and nobody is told.
		 */
		if (unlikely((t[w] & (TLB_TAG_SIZE_MASK | TLB_TAG_WATCH)) !=
			     (tag & TLB_TAG_SIZE_MASK))) {
			nxsim__tlb_drop(tlb, cpu, a, base + w);
			empty = true;
		}
	}
	put(tlb, c, a, base, w, sz, tag, pfn, empty, false);
}

/*
 * Where a fresh 4K insert of @va into @a goes (struct nxsim__tlb_target),
 * chosen now for a fill to come.
 */
static __attribute__((always_inline)) inline void
target(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, struct nxsim__tlb_cpu *c,
       struct nxsim__tlb_target *g, struct nxsim__tlb_array *a, uint64_t va)
{
	size_t set = (va >> NXSIM_TLB_SHIFT_4K) & a->set_mask;
	bool empty;

	g->base = (uint32_t)(set * a->row);
	g->way = insert_way(isa, tlb, c, a, g->base, set, true, &empty);
	g->tick = a->tick;
}

/*
 * An L2 hit in way @w of the set at @base, after an L1 miss: count it,
 * report it, refill the L1.  Inline in lookup_l2(): the L1's hits no
 * longer share that frame (nxsim__tlb_lookup_l1() is inline in the
 * caller), so the refill needs no call of its own.
 */
static __attribute__((always_inline)) inline int
l2_hit(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, unsigned int cpu,
       enum nxsim_tlb_level l1, size_t base, unsigned int w,
       struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	struct nxsim__tlb_array *l2 = &c->lv[NXSIM_TLB_L2];

	c->st.hits[NXSIM_TLB_L2]++;
	nxsim__tlb_touch(tlb, l2, base, w);
	if (e)
		nxsim__tlb_entry_out(l2, base + w, NXSIM_TLB_L2, e);
	insert(isa, tlb, cpu, &c->lv[l1], l2->tag[base + w], l2->pfn[base + w],
	       true);
	return 0;
}

/*
 * The miss path: what follows an L1 miss (lookup_l2()) and a page walk's
 * fill (fill()).  Each is built twice, for the baseline ISA and for AVX2
 * (the nxsim__tlb_*() entry points pick one by struct nxsim_tlb's @avx2),
 * from one always-inline body.
 */
static __attribute__((always_inline)) inline int
lookup_l2(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, unsigned int cpu,
	  enum nxsim_tlb_level l1, uint64_t va, struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	struct nxsim__tlb_array *l2 = &c->lv[NXSIM_TLB_L2];
	unsigned int w;
	size_t base;

	if (!nxsim__tlb_probe_isa(isa, l2, va, c->pcid, &base, &w)) {
		/*
		 * Remember what this search proved, so that the walk's fill
		 * does not search again.
		 */
		c->st.misses++;
		c->missed = true;
		c->missed_va = va;
		c->missed_pcid = c->pcid;
		c->missed_l1 = l1;
		/*
		 * Under LRU, where the walk's fill goes too: the search of
		 * each set starts here, the fill only writes (fill_targeted()).
		 */
		if (policy_is_lru(tlb)) {
			target(isa, tlb, c, &c->target[0], l2, va);
			target(isa, tlb, c, &c->target[1], &c->lv[l1], va);
		}
		return -ENOENT;
	}
	return l2_hit(isa, tlb, cpu, l1, base, w, e);
}

/* The tag of the entry @e, of page size code @sz. */
static inline uint64_t fill_tag(const struct nxsim_tlb_entry *e,
				unsigned int sz)
{
	return tlb_tag_key(e->va, sz, e->global ? 0 : e->pcid) |
	       (e->global ? TLB_TAG_GLOBAL : 0);
}

/* @e is the walk after @c's miss, on that page: no copy to refresh. */
static inline bool fill_after_miss(const struct nxsim__tlb_cpu *c,
				   const struct nxsim_tlb_entry *e)
{
	return c->missed && !((c->missed_va ^ e->va) >> e->page_shift) &&
	       (e->global || e->pcid == c->missed_pcid);
}

static __attribute__((always_inline)) inline void
fill(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, unsigned int cpu,
     enum nxsim_tlb_access access, const struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int sz =
		(unsigned int)(e->page_shift - NXSIM_TLB_SHIFT_4K) / 9;
	uint64_t tag = fill_tag(e, sz);
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	bool fresh = fill_after_miss(c, e);

	c->missed = false; /* what it proved ends with this fill */
	c->st.walks++;
	if (fresh)
		insert(isa, tlb, cpu, &c->lv[NXSIM_TLB_L2], tag, e->pfn, true);
	else
		insert(isa, tlb, cpu, &c->lv[NXSIM_TLB_L2], tag, e->pfn, false);
	if (fresh && l1 == c->missed_l1)
		insert(isa, tlb, cpu, &c->lv[l1], tag, e->pfn, true);
	else
		insert(isa, tlb, cpu, &c->lv[l1], tag, e->pfn, false);
}

/*
 * The rest of a lookup: the L1's page sizes in @sizes, then the L2.
 */
static __attribute__((always_inline)) inline int
lookup_big(enum nxsim__tlb_isa isa, struct nxsim_tlb *tlb, unsigned int cpu,
	   enum nxsim_tlb_level l1, uint64_t va, uint32_t sizes,
	   struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	struct nxsim__tlb_array *a = &c->lv[l1];
	unsigned int w;
	size_t base;
	int sz = nxsim__tlb_probe_sizes(isa, a, va, c->pcid, sizes, &base, &w);

	if (sz >= 0)
		return nxsim__tlb_l1_hit(tlb, c, a, l1, va, base, w,
					 (unsigned int)sz, e);
	return lookup_l2(isa, tlb, cpu, l1, va, e);
}

/*
 * Each instance out of line, so that the entry points stay a test and a
 * tail call.
 */
static __attribute__((noinline)) int
lookup_l2_base(struct nxsim_tlb *tlb, unsigned int cpu, enum nxsim_tlb_level l1,
	       uint64_t va, struct nxsim_tlb_entry *e)
{
	return lookup_l2(TLB_ISA_BASE, tlb, cpu, l1, va, e);
}

static __attribute__((noinline)) void fill_base(struct nxsim_tlb *tlb,
						unsigned int cpu,
						enum nxsim_tlb_access access,
						const struct nxsim_tlb_entry *e)
{
	fill(TLB_ISA_BASE, tlb, cpu, access, e);
}

#if TLB_HAVE_AVX2
static TLB_AVX2_INSTANCE int lookup_big_avx2(struct nxsim_tlb *tlb,
					     unsigned int cpu,
					     enum nxsim_tlb_level l1,
					     uint64_t va, uint32_t sizes,
					     struct nxsim_tlb_entry *e)
{
	return lookup_big(TLB_ISA_AVX2, tlb, cpu, l1, va, sizes, e);
}

static TLB_AVX2_INSTANCE int
lookup_l2_avx2(struct nxsim_tlb *tlb, unsigned int cpu, enum nxsim_tlb_level l1,
	       uint64_t va, struct nxsim_tlb_entry *e)
{
	return lookup_l2(TLB_ISA_AVX2, tlb, cpu, l1, va, e);
}
#endif

int nxsim__tlb_lookup_big(struct nxsim_tlb *tlb, unsigned int cpu,
			  enum nxsim_tlb_level l1, uint64_t va, uint32_t sizes,
			  struct nxsim_tlb_entry *e)
{
#if TLB_HAVE_AVX2
	if (tlb->avx2)
		return lookup_big_avx2(tlb, cpu, l1, va, sizes, e);
#endif
	return lookup_big(TLB_ISA_BASE, tlb, cpu, l1, va, sizes, e);
}

#if TLB_HAVE_AVX2

static TLB_AVX2_INSTANCE void fill_avx2(struct nxsim_tlb *tlb, unsigned int cpu,
					enum nxsim_tlb_access access,
					const struct nxsim_tlb_entry *e)
{
	fill(TLB_ISA_AVX2, tlb, cpu, access, e);
}
#endif

int nxsim__tlb_lookup_l2(struct nxsim_tlb *tlb, unsigned int cpu,
			 enum nxsim_tlb_level l1, uint64_t va,
			 struct nxsim_tlb_entry *e)
{
#if TLB_HAVE_AVX2
	if (tlb->avx2)
		return lookup_l2_avx2(tlb, cpu, l1, va, e);
#endif
	return lookup_l2_base(tlb, cpu, l1, va, e);
}

/* The size code of page shift @shift (12, 21, 30), or -1. */
static inline int size_code(uint8_t shift)
{
	unsigned int d = (unsigned int)shift - NXSIM_TLB_SHIFT_4K;

	return d % 9 || d / 9 >= TLB_NR_SIZES ? -1 : (int)(d / 9);
}

/*
 * The walk's fill after the miss that chose where it goes (@target of
 * struct nxsim__tlb_cpu): if @e is that 4K page, through the L1 that
 * missed, both arrays unchanged since and each way it takes empty or an
 * unwatched 4K entry, write it there as insert() would and return true.
 * Inline and without vector code, so that a caller into which
 * nxsim_tlb_fill() is inlined (link-time optimisation) pays no call for
 * the common walk.
 */
static __attribute__((always_inline)) inline bool
fill_targeted(struct nxsim_tlb *tlb, unsigned int cpu,
	      enum nxsim_tlb_access access, const struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	struct nxsim__tlb_array *a[2] = { &c->lv[NXSIM_TLB_L2], &c->lv[l1] };
	uint64_t old[2], tag;
	int k;

	if (!policy_is_lru(tlb) || e->page_shift != NXSIM_TLB_SHIFT_4K ||
	    l1 != c->missed_l1 || !fill_after_miss(c, e))
		return false;
	for (k = 0; k < 2; k++) {
		const struct nxsim__tlb_target *g = &c->target[k];

		if (a[k]->tick != g->tick)
			return false;
		/*
		 * Empty (certainly, with no tag read, if its set is not
		 * occupied), or the common eviction (insert()).
		 */
		old[k] = nxsim__tlb_occupied(a[k],
					     nxsim__tlb_set(a[k], e->va, 0)) ?
				 a[k]->tag[g->base + g->way] :
				 0;
		if (old[k] & (TLB_TAG_SIZE_MASK | TLB_TAG_WATCH))
			return false;
	}
	tag = fill_tag(e, 0);
	c->missed = false;
	c->st.walks++;
	for (k = 0; k < 2; k++) {
		const struct nxsim__tlb_target *g = &c->target[k];

		c->st.evictions += old[k] != 0;
		put(tlb, c, a[k], g->base, g->way, 0, tag, e->pfn, !old[k],
		    true);
	}
	return true;
}

static __attribute__((always_inline)) inline void
fill_any(struct nxsim_tlb *tlb, unsigned int cpu, enum nxsim_tlb_access access,
	 const struct nxsim_tlb_entry *e)
{
	if (likely(fill_targeted(tlb, cpu, access, e)))
		return;
#if TLB_HAVE_AVX2
	if (tlb->avx2) {
		fill_avx2(tlb, cpu, access, e);
		return;
	}
#endif
	fill_base(tlb, cpu, access, e);
}

void nxsim__tlb_fill(struct nxsim_tlb *tlb, unsigned int cpu,
		     enum nxsim_tlb_access access,
		     const struct nxsim_tlb_entry *e)
{
	fill_any(tlb, cpu, access, e);
}

/* Public interface: argument checks, then the primitive. */

void nxsim_tlb_config_default(struct nxsim_tlb_config *cfg,
			      unsigned int nr_cpus)
{
	/*
	 * ChampSim's defaults (DTLB 16x4, STLB 128x12); the iTLB as 16x8
	 * (128 entries, Skylake); the L2 is SKX's 1536 entries [S32].
	 */
	if (!cfg)
		return;
	*cfg = (struct nxsim_tlb_config){
		.nr_cpus = nr_cpus,
		.level = { [NXSIM_TLB_L1D] = { 16, 4 },
			   [NXSIM_TLB_L1I] = { 16, 8 },
			   [NXSIM_TLB_L2] = { 128, 12 } },
	};
}

static void free_cpus(struct nxsim_tlb *tlb, unsigned int n)
{
	unsigned int i, l;

	for (i = 0; i < n; i++) {
		for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
			struct nxsim__tlb_array *a = &tlb->cpu[i].lv[l];

			nxsim__free(a->tag, (size_t)tlb->geo[l].sets * a->row *
						    sizeof(*a->tag));
			nxsim__free(a->state,
				    tlb->geo[l].sets * sizeof(*a->state));
		}
	}
	nxsim__free_aligned(tlb->cpu, tlb->nr_cpus * sizeof(*tlb->cpu),
			    SMP_CACHE_BYTES);
}

static int alloc_array(struct nxsim__tlb_array *a,
		       const struct nxsim_tlb_geometry *g)
{
	uint32_t stride = DIV_ROUND_UP(g->ways, TLB_WAY_ALIGN) * TLB_WAY_ALIGN;
	size_t set, w;

	/* The sizes free_cpus() frees, before an allocation can fail. */
	a->stride = stride;
	a->row = 3 * stride;
	/* One block: each set's tags, then its ages, then its frames. */
	a->tag = nxsim__calloc((size_t)g->sets * a->row, sizeof(*a->tag));
	a->state = nxsim__calloc(g->sets, sizeof(*a->state));
	a->set_mask = g->sets - 1;
	a->ways = g->ways;
	a->cap = g->sets * g->ways;
	a->way_mask = (uint32_t)((1ull << g->ways) - 1);
	if (!a->tag || !a->state)
		return -ENOMEM;
	a->age = a->tag + stride;
	a->pfn = a->tag + 2 * stride;
	for (set = 0; set < g->sets; set++)
		for (w = g->ways; w < stride; w++)
			a->age[set * a->row + w] =
				INT64_MAX; /* never the LRU */
	return 0;
}

int nxsim_tlb_create(const struct nxsim_tlb_config *cfg,
		     struct nxsim_tlb **tlbp)
{
	const struct nxsim_tlb_repl_ops *repl;
	struct nxsim_tlb *tlb;
	unsigned int i, l;
	uint64_t entries;

	if (!cfg || !tlbp || !cfg->nr_cpus || cfg->nr_cpus > NXSIM_TLB_MAX_CPUS)
		return -EINVAL;
	repl = nxsim__tlb_repl_find(cfg->replacement ? cfg->replacement :
						       "lru");
	if (!repl)
		return -ENOENT;
	for (l = 0, entries = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		const struct nxsim_tlb_geometry *g = &cfg->level[l];

		if (!g->sets || (g->sets & (g->sets - 1)) ||
		    g->sets > NXSIM_TLB_MAX_SETS || !g->ways ||
		    g->ways > NXSIM_TLB_MAX_WAYS ||
		    (repl->pow2_ways && (g->ways & (g->ways - 1))))
			return -EINVAL;
		entries += (uint64_t)g->sets * g->ways;
	}
	if (entries * cfg->nr_cpus > NXSIM_TLB_MAX_ENTRIES)
		return -EINVAL;
	tlb = nxsim__zalloc(sizeof(*tlb));
	if (!tlb)
		return -ENOMEM;
#if TLB_HAVE_AVX2
	tlb->avx2 = __builtin_cpu_supports("avx2");
#endif
	tlb->nr_cpus = cfg->nr_cpus;
	tlb->ceiling = cfg->flush_ceiling ? cfg->flush_ceiling :
					    NXSIM_TLB_FLUSH_CEILING;
	tlb->broadcast = cfg->broadcast;
	tlb->repl = repl;
	tlb->touch = repl->touch != NULL;
	tlb->victim = repl->victim;
	memcpy(tlb->geo, cfg->level, sizeof(tlb->geo));
	tlb->cpu = nxsim__zalloc_aligned(cfg->nr_cpus * sizeof(*tlb->cpu),
					 SMP_CACHE_BYTES);
	if (!tlb->cpu)
		goto fail;
	for (i = 0; i < cfg->nr_cpus; i++) {
		/* CPU 0 draws what a one-CPU TLB always drew. */
		nxsim_rng_seed(&tlb->cpu[i].rng,
			       cfg->seed ^ (i * 0x9e3779b97f4a7c15ull));
		for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
			if (alloc_array(&tlb->cpu[i].lv[l], &cfg->level[l]))
				goto fail;
	}
	*tlbp = tlb;
	return 0;
fail:
	if (tlb->cpu)
		free_cpus(tlb, tlb->nr_cpus);
	nxsim__free(tlb, sizeof(*tlb));
	return -ENOMEM;
}

int nxsim_tlb_destroy(struct nxsim_tlb *tlb)
{
	if (!tlb)
		return -EINVAL;
	free_cpus(tlb, tlb->nr_cpus);
	nxsim__free(tlb, sizeof(*tlb));
	return 0;
}

/*
 * The ownership rule (include/nxsim/tlb.h, "Threads"): a call on a CPU
 * owns it; a call reaching every CPU owns them all.  Release builds trust
 * the caller, as the kernel trusts code running with preemption off on
 * its own CPU's TLB; debug builds check, as QEMU's assert_cpu_is_self()
 * does for its per-vCPU TLBs, and abort on a second owner.
 */
#ifndef NDEBUG
static void __attribute__((noreturn)) not_owner(unsigned int cpu)
{
	fprintf(stderr,
		"nxsim: TLB of CPU %u used by two calls at once (one thread "
		"per CPU, cross-CPU flushes alone)\n",
		cpu);
	abort();
}
#endif

static inline void claim_cpu(struct nxsim_tlb *tlb, unsigned int cpu)
{
#ifndef NDEBUG
	if (__atomic_exchange_n(&tlb->cpu[cpu].busy, 1, __ATOMIC_ACQUIRE))
		not_owner(cpu);
#endif
}

static inline void release_cpu(struct nxsim_tlb *tlb, unsigned int cpu)
{
#ifndef NDEBUG
	__atomic_store_n(&tlb->cpu[cpu].busy, 0, __ATOMIC_RELEASE);
#endif
}

static void claim_all(struct nxsim_tlb *tlb)
{
	for (unsigned int i = 0; i < tlb->nr_cpus; i++)
		claim_cpu(tlb, i);
}

static void release_all(struct nxsim_tlb *tlb)
{
	for (unsigned int i = 0; i < tlb->nr_cpus; i++)
		release_cpu(tlb, i);
}

static bool bad_cpu(const struct nxsim_tlb *tlb, unsigned int cpu)
{
	return !tlb || cpu >= tlb->nr_cpus;
}

static bool bad_access(enum nxsim_tlb_access access)
{
	return (unsigned int)access > NXSIM_TLB_EXEC;
}

/*
 * The two calls of every simulated access are declared inline (their
 * definitions stay external: the header declares them without it), so
 * that under link-time optimisation (NXSIM_LTO, NXSIM_LTO_TLB) GCC
 * inlines them into a caller's loop as it would a static inline: its
 * limits for functions not declared inline keep even the checks, the
 * memo and a tail call out of a loop that calls them at two sites.  A
 * lookup is its checks and nxsim__tlb_lookup(): the memo and the L1's
 * 4K probe and hit inline, the rest a call.
 */
inline int nxsim_tlb_lookup(struct nxsim_tlb *tlb, unsigned int cpu,
			    enum nxsim_tlb_access access, uint64_t va,
			    struct nxsim_tlb_entry *e)
{
	int rc;

	if (bad_cpu(tlb, cpu) || bad_access(access))
		return -EINVAL;
	claim_cpu(tlb, cpu);
	rc = nxsim__tlb_lookup(tlb, cpu, access, va, e);
	release_cpu(tlb, cpu);
	return rc;
}

inline int nxsim_tlb_fill(struct nxsim_tlb *tlb, unsigned int cpu,
			  enum nxsim_tlb_access access,
			  const struct nxsim_tlb_entry *e)
{
	if (bad_cpu(tlb, cpu) || bad_access(access) || !e ||
	    size_code(e->page_shift) < 0 || e->pcid >= NXSIM_TLB_NR_PCIDS)
		return -EINVAL;
	claim_cpu(tlb, cpu);
	fill_any(tlb, cpu, access, e);
	release_cpu(tlb, cpu);
	return 0;
}

int nxsim_tlb_invlpg(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va)
{
	if (bad_cpu(tlb, cpu))
		return -EINVAL;
	claim_cpu(tlb, cpu);
	nxsim__tlb_invlpg(tlb, cpu, va);
	release_cpu(tlb, cpu);
	return 0;
}

int nxsim_tlb_write_cr3(struct nxsim_tlb *tlb, unsigned int cpu, uint16_t pcid,
			bool noflush)
{
	if (bad_cpu(tlb, cpu) || pcid >= NXSIM_TLB_NR_PCIDS)
		return -EINVAL;
	claim_cpu(tlb, cpu);
	nxsim__tlb_write_cr3(tlb, cpu, pcid, noflush);
	release_cpu(tlb, cpu);
	return 0;
}

int nxsim_tlb_flush_global(struct nxsim_tlb *tlb, unsigned int cpu)
{
	if (bad_cpu(tlb, cpu))
		return -EINVAL;
	claim_cpu(tlb, cpu);
	nxsim__tlb_flush_global(tlb, cpu);
	release_cpu(tlb, cpu);
	return 0;
}

int nxsim_tlb_flush_kernel_range(struct nxsim_tlb *tlb, unsigned int cpu,
				 uint64_t start, uint64_t end)
{
	if (bad_cpu(tlb, cpu) || end < start)
		return -EINVAL;
	claim_all(tlb);
	nxsim__flush_tlb_kernel_range(tlb, cpu, NULL, start, end);
	release_all(tlb);
	return 0;
}

int nxsim_tlb_flush_all(struct nxsim_tlb *tlb, unsigned int cpu)
{
	if (bad_cpu(tlb, cpu))
		return -EINVAL;
	claim_all(tlb);
	nxsim__flush_tlb_kernel_range(tlb, cpu, NULL, 0, UINT64_MAX);
	release_all(tlb);
	return 0;
}

int64_t nxsim_tlb_dump(struct nxsim_tlb *tlb, unsigned int cpu,
		       nxsim_tlb_dump_fn fn, void *ctx)
{
	int rc;

	if (bad_cpu(tlb, cpu) || !fn)
		return -EINVAL;
	claim_cpu(tlb, cpu);
	rc = nxsim__tlb_dump(tlb, cpu, fn, ctx);
	release_cpu(tlb, cpu);
	return rc;
}

int nxsim_tlb_pcid(struct nxsim_tlb *tlb, unsigned int cpu)
{
	int pcid;

	if (bad_cpu(tlb, cpu))
		return -EINVAL;
	claim_cpu(tlb, cpu);
	pcid = tlb->cpu[cpu].pcid;
	release_cpu(tlb, cpu);
	return pcid;
}

void nxsim__tlb_stats_sum(const struct nxsim_tlb *tlb,
			  struct nxsim_tlb_stats *st)
{
	const uint64_t *all = (const uint64_t *)&tlb->all;
	uint64_t *dst = (uint64_t *)st;
	unsigned int i, k;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < tlb->nr_cpus; i++) {
		const uint64_t *src = (const uint64_t *)&tlb->cpu[i].st;

		for (k = 0; k < sizeof(*st) / sizeof(uint64_t); k++)
			dst[k] += src[k] + all[k];
	}
}

int nxsim_tlb_stats(struct nxsim_tlb *tlb, int cpu, struct nxsim_tlb_stats *st)
{
	if (!tlb || !st || cpu < -1 ||
	    (cpu >= 0 && bad_cpu(tlb, (unsigned)cpu)))
		return -EINVAL;
	if (cpu >= 0) {
		const uint64_t *all = (const uint64_t *)&tlb->all;
		uint64_t *dst = (uint64_t *)st;

		claim_cpu(tlb, (unsigned int)cpu);
		*st = tlb->cpu[cpu].st;
		for (unsigned int k = 0; k < sizeof(*st) / sizeof(uint64_t);
		     k++)
			dst[k] += all[k];
		release_cpu(tlb, (unsigned int)cpu);
	} else {
		claim_all(tlb);
		nxsim__tlb_stats_sum(tlb, st);
		release_all(tlb);
	}
	return 0;
}
