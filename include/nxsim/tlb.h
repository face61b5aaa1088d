/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A multi-CPU x86 TLB: per CPU an L1 dTLB, an L1 iTLB and a second-level
 * TLB shared by both, each sets x ways with a pluggable replacement policy.
 * Entries carry their page size (4K/2M/1G), PCID and global bit.  The flush
 * primitives are those of arch/x86/mm/tlb.c: INVLPG, CR3 writes with and
 * without NOFLUSH, global flush, flush_tlb_kernel_range() with the 33-page
 * ceiling and IPI shootdown (or INVLPGB-like broadcast), flush_tlb_all().
 *
 * The TLB knows nothing of page tables: a lookup that misses returns
 * -ENOENT, and the caller walks its own tables and fills the entry.  The
 * same module serves XPFO's host CPUs and, later, guest TLBs.
 *
 * Thread safety: each CPU's TLB belongs to one thread at a time, as a real TLB
 * belongs to its CPU (and as QEMU's per-vCPU TLBs belong to their vCPU
 * thread).  Calls on different CPUs may run concurrently; calls on the same
 * CPU must not, and a call that reaches every CPU
 * (nxsim_tlb_flush_kernel_range(), nxsim_tlb_flush_all(),
 * nxsim_tlb_stats(-1)) must not run
 * alongside any other call on the TLB: hand CPUs between threads, or
 * serialise cross-CPU flushes, with your own synchronisation.  The calls
 * take no lock, so a lookup costs no atomic operation; debug builds (no
 * NDEBUG) check the rule and abort on a violation.
 */
#ifndef NXSIM_TLB_H
#define NXSIM_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nxsim_tlb_level {
	NXSIM_TLB_L1D, /* L1 data TLB */
	NXSIM_TLB_L1I, /* L1 instruction TLB */
	NXSIM_TLB_L2,  /* second level (STLB), shared by I and D */
	NXSIM_TLB_NR_LEVELS,
};

enum nxsim_tlb_access {
	NXSIM_TLB_READ,
	NXSIM_TLB_WRITE,
	NXSIM_TLB_EXEC, /* looks up the iTLB, not the dTLB */
};

#define NXSIM_TLB_SHIFT_4K 12
#define NXSIM_TLB_SHIFT_2M 21
#define NXSIM_TLB_SHIFT_1G 30

/* arch/x86/mm/tlb.c: tlb_single_page_flush_ceiling. */
#define NXSIM_TLB_FLUSH_CEILING 33
#define NXSIM_TLB_MAX_CPUS 1024
#define NXSIM_TLB_MAX_WAYS 32
#define NXSIM_TLB_MAX_SETS 65536 /* per level */
/* entries of every level of every CPU together (about 100 MB) */
#define NXSIM_TLB_MAX_ENTRIES (1u << 22)
#define NXSIM_TLB_NR_PCIDS 4096 /* 12 CR3 bits */

struct nxsim_tlb_geometry {
	uint32_t sets; /* a power of two, 1 .. NXSIM_TLB_MAX_SETS */
	uint32_t ways; /* 1 .. NXSIM_TLB_MAX_WAYS */
};

/**
 * struct nxsim_tlb_config - what nxsim_tlb_create() builds
 * @nr_cpus: 1 .. NXSIM_TLB_MAX_CPUS
 * @level: geometry of each level (nxsim_tlb_config_default() fills them)
 * @replacement: "lru" (NULL means it), "random" (seeded), "plru" (tree
 *	pseudo-LRU; ways must be a power of two), or a registered one
 *	(nxsim_tlb_repl_name())
 * @seed: seeds "random"
 * @flush_ceiling: tlb_single_page_flush_ceiling; 0 means 33
 * @broadcast: kernel range flushes use INVLPGB-like broadcast, no IPIs
 */
struct nxsim_tlb_config {
	unsigned int nr_cpus;
	struct nxsim_tlb_geometry level[NXSIM_TLB_NR_LEVELS];
	const char *replacement;
	uint64_t seed;
	unsigned int flush_ceiling;
	bool broadcast;
};

/**
 * struct nxsim_tlb_entry - one translation
 * @va: virtual address (any address inside the page on input)
 * @pfn: the 4 KiB frame number the page starts at
 * @page_shift: 12, 21 or 30
 * @pcid: 0 .. 4095; ignored for matching when @global
 * @global: survives CR3 writes (kernel mappings without PTI)
 * @level: on lookup, the level that hit
 */
struct nxsim_tlb_entry {
	uint64_t va;
	uint64_t pfn;
	uint8_t page_shift;
	uint16_t pcid;
	bool global;
	enum nxsim_tlb_level level;
};

/**
 * struct nxsim_tlb_stats - counters of one CPU (or the sum of all)
 * @hits: lookups that hit, by the level that hit
 * @misses: lookups that missed every level
 * @walks: page walks reported through nxsim_tlb_fill()
 * @fills: entries written at any level (walk fills and L2-to-L1 refills)
 * @evictions: valid entries pushed out by a fill
 * @invlpg: INVLPG executed on this CPU
 * @cr3_flush: CR3 writes that dropped the PCID's non-global entries
 * @cr3_noflush: CR3 writes with NOFLUSH
 * @global_flush: flushes of everything, global entries included
 * @range_flushes: kernel range flushes this CPU started, done page by page
 * @full_flushes: kernel flushes this CPU started that flushed everything
 *	(flush_tlb_all, or a range above the ceiling)
 * @ipis_sent: shootdowns this CPU started by IPI
 * @ipi_targets: CPUs those IPIs went to (sum of target counts)
 * @ipis_received: shootdown IPIs this CPU handled
 * @broadcasts: INVLPGB-like broadcasts this CPU issued (each with TLBSYNC)
 */
struct nxsim_tlb_stats {
	uint64_t hits[NXSIM_TLB_NR_LEVELS];
	uint64_t misses;
	uint64_t walks;
	uint64_t fills;
	uint64_t evictions;
	uint64_t invlpg;
	uint64_t cr3_flush;
	uint64_t cr3_noflush;
	uint64_t global_flush;
	uint64_t range_flushes;
	uint64_t full_flushes;
	uint64_t ipis_sent;
	uint64_t ipi_targets;
	uint64_t ipis_received;
	uint64_t broadcasts;
};

struct nxsim_tlb;
struct nxsim_rng;

/*
 * Replacement policies from outside the library (docs/plugins.md); lru,
 * plru and random are written on the same struct.
 */
#define NXSIM_TLB_REPL_OPS_VERSION 1
#define NXSIM_TLB_REPL_NAME_MAX 31 /* bytes of a name, without the NUL */
#define NXSIM_TLB_REPL_MAX 32	   /* policies registered */

/**
 * struct nxsim_tlb_repl_ops - a replacement policy
 * @size: sizeof(struct nxsim_tlb_repl_ops) as the policy was built
 * @version: NXSIM_TLB_REPL_OPS_VERSION as the policy was built
 * @name: what nxsim_tlb_config.replacement names it by: 1 ..
 *	NXSIM_TLB_REPL_NAME_MAX of [A-Za-z0-9_.+-]
 * @pow2_ways: the policy needs a power-of-two way count (nxsim_tlb_create()
 *	refuses other geometries with -EINVAL)
 * @touch: way @way of a set of @ways was used (a hit or a fill); @state is
 *	the policy's own 32 bits for the set.  NULL: the use ticks suffice
 * @victim: pick the way to evict from a full set: @age holds, per way, the
 *	tick of its last use (larger is more recent); @rng is the CPU's
 *	seeded generator (nxsim_rng_below()).  An answer not below @ways is
 *	taken as way 0.  NULL: true LRU, the first way of least age, which
 *	the TLB finds inline on its fast path
 *
 * Both hooks run on the lookup and fill paths of the CPU's thread.
 */
struct nxsim_tlb_repl_ops {
	uint32_t size;
	uint32_t version;
	const char *name;
	bool pow2_ways;
	void (*touch)(uint32_t *state, unsigned int way, unsigned int ways);
	unsigned int (*victim)(const uint64_t *age, uint32_t *state,
			       unsigned int ways, struct nxsim_rng *rng);
};

/**
 * nxsim_tlb_repl_register() - make a replacement policy usable by name
 * @ops: the policy; the library keeps a copy of it and of its name
 * @why: on failure, receives a static text naming the problem (may be NULL)
 *
 * Safe from many threads.
 *
 * Return: 0; -EINVAL for NULL, a size too small for the version, an empty,
 * too long or badly spelled name; -EOPNOTSUPP for an unknown version;
 * -EEXIST for a name taken; -ENOSPC past NXSIM_TLB_REPL_MAX.  Nothing is
 * registered on failure.
 */
NXSIM_API int nxsim_tlb_repl_register(const struct nxsim_tlb_repl_ops *ops,
				      const char **why);

/**
 * nxsim_tlb_repl_name() - the @idx-th replacement policy: lru, random,
 * plru, then the registered ones; NULL past the last
 */
NXSIM_API const char *nxsim_tlb_repl_name(unsigned int idx);

/**
 * nxsim_tlb_config_default() - a Skylake-like geometry
 * @cfg: filled: L1D 16x4, L1I 16x8, L2 128x12, LRU, ceiling 33
 * @nr_cpus: copied into @cfg
 */
NXSIM_API void nxsim_tlb_config_default(struct nxsim_tlb_config *cfg,
					unsigned int nr_cpus);

/**
 * nxsim_tlb_create() - make the TLBs of @cfg->nr_cpus CPUs
 * @cfg: geometry and policy
 * @tlbp: receives the TLB; every CPU starts empty on PCID 0
 *
 * Return: 0; -EINVAL for a bad CPU count, zero, too many or
 * non-power-of-two sets, zero or too many ways, more than
 * NXSIM_TLB_MAX_ENTRIES entries in all; -ENOENT for an unknown replacement
 * name; -ENOMEM.
 */
NXSIM_API int nxsim_tlb_create(const struct nxsim_tlb_config *cfg,
			       struct nxsim_tlb **tlbp);

/**
 * nxsim_tlb_destroy() - free a TLB
 *
 * Return: 0, or -EINVAL for NULL.
 */
NXSIM_API int nxsim_tlb_destroy(struct nxsim_tlb *tlb);

/**
 * nxsim_tlb_lookup() - translate @va on @cpu under its current PCID
 * @tlb: the TLB
 * @cpu: the CPU
 * @access: read/write use the L1 dTLB, exec the L1 iTLB; both then the L2
 * @va: the address
 * @e: receives the entry on a hit (may be NULL)
 *
 * An L2 hit refills the L1.  Replacement state is updated on every hit.
 *
 * Return: 0 on a hit, -ENOENT on a miss, -EINVAL for a bad @cpu/@access.
 */
NXSIM_API int nxsim_tlb_lookup(struct nxsim_tlb *tlb, unsigned int cpu,
			       enum nxsim_tlb_access access, uint64_t va,
			       struct nxsim_tlb_entry *e);

/**
 * nxsim_tlb_fill() - insert the translation a page walk found
 * @tlb: the TLB
 * @cpu: the CPU
 * @access: which L1 gets the entry (the L2 always does)
 * @e: the entry; @e->pcid is used for non-global entries
 *
 * Return: 0; -EINVAL for a bad @cpu, @access, page size or PCID.
 */
NXSIM_API int nxsim_tlb_fill(struct nxsim_tlb *tlb, unsigned int cpu,
			     enum nxsim_tlb_access access,
			     const struct nxsim_tlb_entry *e);

/**
 * nxsim_tlb_invlpg() - INVLPG on @cpu
 *
 * Drops every entry that translates @va, at any page size, whether global
 * or belonging to the current PCID (one INVLPG suffices for a large page).
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_tlb_invlpg(struct nxsim_tlb *tlb, unsigned int cpu,
			       uint64_t va);

/**
 * nxsim_tlb_write_cr3() - load @pcid into CR3 on @cpu
 * @noflush: bit 63 set: keep the PCID's entries; otherwise drop its
 *	non-global entries.  Global entries always survive.
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_tlb_write_cr3(struct nxsim_tlb *tlb, unsigned int cpu,
				  uint16_t pcid, bool noflush);

/**
 * nxsim_tlb_flush_global() - flush everything on @cpu, globals included
 * (CR4.PGE toggle or INVPCID all-context: __flush_tlb_all()).
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_tlb_flush_global(struct nxsim_tlb *tlb, unsigned int cpu);

/**
 * nxsim_tlb_flush_kernel_range() - flush_tlb_kernel_range() from @cpu
 * @start: first byte
 * @end: one past the last byte (rounded up to pages)
 *
 * Up to the ceiling (33 pages): every CPU INVLPGs each page; above it every
 * CPU flushes everything.  Every other CPU is reached by IPI (counted on
 * both sides) or, with @cfg->broadcast, by one broadcast and no IPI.
 *
 * Return: 0 or -EINVAL (bad CPU, @end < @start).
 */
NXSIM_API int nxsim_tlb_flush_kernel_range(struct nxsim_tlb *tlb,
					   unsigned int cpu, uint64_t start,
					   uint64_t end);

/**
 * nxsim_tlb_flush_all() - flush_tlb_all() from @cpu: every CPU flushes
 * everything; the others by IPI (or broadcast).
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_tlb_flush_all(struct nxsim_tlb *tlb, unsigned int cpu);

/**
 * nxsim_tlb_stats() - counters of @cpu
 * @cpu: a CPU, or -1 for the sum over all CPUs
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_tlb_stats(struct nxsim_tlb *tlb, int cpu,
			      struct nxsim_tlb_stats *st);

/**
 * struct nxsim_tlb_slot - one valid way, as nxsim_tlb_dump() reports it
 * @e: the translation: @e->va is the first address of the page, @e->level
 *	the level holding it; @e->pcid is 0 for a global entry
 * @set: the set it sits in (index within its level)
 * @way: the way within the set
 * @recency: 0 for the most recently used valid way of the set, 1 for the
 *	next, and so on (under LRU a full set evicts the largest)
 */
struct nxsim_tlb_slot {
	struct nxsim_tlb_entry e;
	uint32_t set;
	uint32_t way;
	uint32_t recency;
};

/*
 * Called for each valid way; 0 goes on, a negative errno stops the walk
 * and nxsim_tlb_dump() returns it.
 */
typedef int (*nxsim_tlb_dump_fn)(void *ctx, const struct nxsim_tlb_slot *s);

/**
 * nxsim_tlb_dump() - list the entries of @cpu's TLB
 * @tlb: the TLB
 * @cpu: the CPU
 * @fn: called for each valid way, level by level (L1D, L1I, L2), sets and
 *	ways in increasing order
 * @ctx: passed to @fn
 *
 * Changes nothing: no counter, replacement state or use tick moves.
 * @fn must not call back into @tlb.
 *
 * Return: the number of entries reported; -EINVAL for a bad @tlb, @cpu or
 * @fn; or the negative value @fn returned to stop.
 */
NXSIM_API int64_t nxsim_tlb_dump(struct nxsim_tlb *tlb, unsigned int cpu,
				 nxsim_tlb_dump_fn fn, void *ctx);

/**
 * nxsim_tlb_pcid() - the PCID @cpu's CR3 holds now
 *
 * Return: 0 .. 4095, or -EINVAL for a bad @tlb or @cpu.
 */
NXSIM_API int nxsim_tlb_pcid(struct nxsim_tlb *tlb, unsigned int cpu);

/**
 * nxsim_tlb_level_name() - "l1d", "l1i" or "l2"; NULL for another value.
 */
NXSIM_API const char *nxsim_tlb_level_name(enum nxsim_tlb_level level);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_TLB_H */
