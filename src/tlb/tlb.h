/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TLB internals: the per-CPU arrays, the replacement-policy interface and
 * the unlocked primitives that a machine which already serialises its CPUs
 * (the XPFO machine, later the MMU) calls directly.  The public nxsim_tlb_*
 * calls are these with argument and (debug builds) ownership checks.
 */
#ifndef NXSIM_TLB_TLB_H
#define NXSIM_TLB_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/rng.h>
#include <nxsim/tlb.h>

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
#define TLB_TAG_PCID_SHIFT 5
#define TLB_TAG_PCID_MASK (0xfffull << TLB_TAG_PCID_SHIFT)
#define TLB_TAG_VPN_SHIFT 17
#define TLB_NR_SIZES 3

/**
 * struct nxsim__tlb_repl_ops - a replacement policy
 * @name: what nxsim_tlb_config.replacement names it by
 * @pow2_ways: the policy needs a power-of-two way count
 * @touch: a way was used (hit or fill); NULL if the ages suffice
 * @victim: pick the way to evict from a full set.  @age holds, per way,
 *	the tick of its last use (larger is more recent); @state is the
 *	policy's own 32 bits for the set.  NULL: true LRU, the first way of
 *	least age, which the fill finds inline (nxsim__tlb_oldest()).
 *
 * A new policy is one file defining one of these plus its extern and a
 * line in tlb_repl_table[] (src/tlb/repl.c).
 */
struct nxsim__tlb_repl_ops {
	const char *name;
	bool pow2_ways;
	void (*touch)(uint32_t *state, unsigned int way, unsigned int ways);
	unsigned int (*victim)(const uint64_t *age, uint32_t *state,
			       unsigned int ways, struct nxsim_rng *rng);
};

/* The first way of least age: the LRU victim.  Conditional moves only. */
static inline unsigned int nxsim__tlb_oldest(const uint64_t *age,
					     unsigned int ways)
{
	unsigned int w, best = 0;
	uint64_t min = age[0];

	for (w = 1; w < ways; w++) {
		bool older = age[w] < min;

		min = older ? age[w] : min;
		best = older ? w : best;
	}
	return best;
}

/* The policy called @name, or NULL. */
const struct nxsim__tlb_repl_ops *nxsim__tlb_repl_find(const char *name);

/**
 * struct nxsim__tlb_array - one level of one CPU
 * @tag: sets x ways tag words, set-major
 * @pfn: the frame of each way
 * @age: last-use tick of each way
 * @state: per-set replacement state
 * @set_mask: sets - 1
 * @ways: ways per set
 * @tick: use counter
 * @nr: valid entries per page size, so lookups skip absent sizes
 */
struct nxsim__tlb_array {
	uint64_t *tag;
	uint64_t *pfn;
	uint64_t *age;
	uint32_t *state;
	uint32_t set_mask;
	uint32_t ways;
	uint64_t tick;
	uint32_t nr[TLB_NR_SIZES];
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
 * @rng: seeds "random" replacement (CPU 0 from the configured seed)
 * @st: counters
 */
struct nxsim__tlb_cpu {
	int busy;
	struct nxsim__tlb_array lv[NXSIM_TLB_NR_LEVELS];
	uint16_t pcid;
	bool missed;
	uint16_t missed_pcid;
	enum nxsim_tlb_level missed_l1;
	uint64_t missed_va;
	struct nxsim_rng rng;
	struct nxsim_tlb_stats st;
};

/* Called when a watched translation has left every level of @cpu. */
typedef void (*nxsim__tlb_drop_fn)(void *ctx, unsigned int cpu, uint64_t va,
				   uint64_t pfn);

struct nxsim_tlb {
	unsigned int nr_cpus;
	unsigned int ceiling;
	bool broadcast;
	const struct nxsim__tlb_repl_ops *repl;
	struct nxsim_tlb_geometry geo[NXSIM_TLB_NR_LEVELS];
	struct nxsim__tlb_cpu *cpu;
	nxsim__tlb_drop_fn drop;
	void *drop_ctx;
};

/* The lookup fast path is inline; these are its out-of-line parts. */
int nxsim__tlb_lookup_l2(struct nxsim_tlb *tlb, unsigned int cpu,
			 enum nxsim_tlb_level l1, uint64_t va,
			 struct nxsim_tlb_entry *e);
void nxsim__tlb_touch_state(struct nxsim_tlb *tlb, struct nxsim__tlb_array *a,
			    size_t base, unsigned int w);
void nxsim__tlb_entry_out(const struct nxsim__tlb_array *a, size_t i,
			  enum nxsim_tlb_level lv, struct nxsim_tlb_entry *e);

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

/* The ways of the set @va falls in at page size @sz; *@base: its index. */
static inline uint64_t *nxsim__tlb_set_of(struct nxsim__tlb_array *a,
					  uint64_t va, unsigned int sz,
					  size_t *base)
{
	*base = ((va >> TLB_SIZE_SHIFT(sz)) & a->set_mask) * a->ways;
	return a->tag + *base;
}

/*
 * Probe one array for @va under @pcid; on a hit set *@base and *@way.
 * Global entries are stored with PCID 0 and match under any PCID.
 */
static inline bool nxsim__tlb_probe(struct nxsim__tlb_array *a, uint64_t va,
				    uint16_t pcid, size_t *base,
				    unsigned int *way)
{
	unsigned int sz, w;

	for (sz = 0; sz < TLB_NR_SIZES; sz++) {
		uint64_t key, gkey, *t;
		uint32_t hit = 0;

		if (!a->nr[sz])
			continue;
		key = tlb_tag_key(va, sz, pcid);
		gkey = tlb_tag_key(va, sz, 0) | TLB_TAG_GLOBAL;
		t = nxsim__tlb_set_of(a, va, sz, base);
		if (a->ways > 8) {
			/* Wide sets: stop at the hit. */
			for (w = 0; w < a->ways; w++) {
				uint64_t x = t[w] & ~TLB_TAG_WATCH;

				if (x == key || x == gkey) {
					*way = w;
					return true;
				}
			}
			continue;
		}
		/* Narrow sets: compare every way without branching. */
		for (w = 0; w < a->ways; w++) {
			uint64_t x = t[w] & ~TLB_TAG_WATCH;

			hit |= (uint32_t)((x == key) | (x == gkey)) << w;
		}
		if (hit) {
			*way = (unsigned int)__builtin_ctz(hit);
			return true;
		}
	}
	return false;
}

/* A use of way @w of the set at @base. */
static inline void nxsim__tlb_touch(struct nxsim_tlb *tlb,
				    struct nxsim__tlb_array *a, size_t base,
				    unsigned int w)
{
	a->age[base + w] = ++a->tick;
	if (tlb->repl->touch)
		nxsim__tlb_touch_state(tlb, a, base, w);
}

/**
 * nxsim__tlb_lookup() - nxsim_tlb_lookup() without checks or lock
 *
 * Inline: the L1 hit is the hot path of every simulated access.
 */
static inline int nxsim__tlb_lookup(struct nxsim_tlb *tlb, unsigned int cpu,
				    enum nxsim_tlb_access access, uint64_t va,
				    struct nxsim_tlb_entry *e)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	enum nxsim_tlb_level l1 = access == NXSIM_TLB_EXEC ? NXSIM_TLB_L1I :
							     NXSIM_TLB_L1D;
	struct nxsim__tlb_array *a = &c->lv[l1];
	unsigned int w;
	size_t base;

	if (__builtin_expect(!nxsim__tlb_probe(a, va, c->pcid, &base, &w), 0))
		return nxsim__tlb_lookup_l2(tlb, cpu, l1, va, e);
	c->st.hits[l1]++;
	nxsim__tlb_touch(tlb, a, base, w);
	if (e)
		nxsim__tlb_entry_out(a, base + w, l1, e);
	return 0;
}
void nxsim__tlb_fill(struct nxsim_tlb *tlb, unsigned int cpu,
		     enum nxsim_tlb_access access,
		     const struct nxsim_tlb_entry *e);
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
