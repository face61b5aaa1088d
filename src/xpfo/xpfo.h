/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * XPFO machine internals: the frame record, the per-CPU state, the flush
 * policy interface, and the helpers policies build on.
 */
#ifndef NXSIM_XPFO_XPFO_H
#define NXSIM_XPFO_XPFO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/bitstring.h>

#include <nxsim/xpfo.h>

#include "core/compiler.h"
#include "tlb/tlb.h"

/* Frame flags: the page flags of v7+ plus the model's own bits. */
#define FRAME_USER 0x01	      /* PG_xpfo_user */
#define FRAME_UNMAPPED 0x02   /* PG_xpfo_unmapped */
#define FRAME_LOCK 0x04	      /* xpfo_lock, a bit spinlock */
#define FRAME_NEED_FLUSH 0x08 /* a policy's owed flush (P4d's at reuse) */

/**
 * struct nxsim__frame - one 4 KiB frame, 16 bytes
 * @stamp: ns; while @holders > 0, when the alias went stale; while
 *	kmapped, when the kmap window opened
 * @domain: user owner; the last user owner once free
 * @kmap_count: xpfo_mapcount
 * @holders: CPUs holding a watched (stale) translation of the alias
 * @owner: enum nxsim_xpfo_owner
 * @flags: FRAME_*
 */
struct nxsim__frame {
	uint64_t stamp;
	uint16_t domain;
	uint16_t kmap_count;
	uint16_t holders;
	uint8_t owner;
	uint8_t flags;
};

_Static_assert(sizeof(struct nxsim__frame) == 16, "16 bytes per frame");

#define NR_DYN_ASIDS 6 /* TLB_NR_DYN_ASIDS */

/*
 * One CPU.  @cycles, @kcycles and @flush_cycles are the CPU's own share:
 * each figure is that plus the machine's @all_cycles, charged to every CPU
 * at once (nxsim__xpfo_cycles()); the shares of two CPUs compare, as
 * int64_t, as their figures do.  Each starts a cache line, which holds
 * every field a step reads (those to @kernel_entries).
 */
struct nxsim__xpfo_cpu {
	uint16_t domain;
	bool user_mode;
	bool pending;
	uint16_t asid_domain[NR_DYN_ASIDS];
	unsigned int next_asid;
	uint64_t cycles;
	uint64_t kcycles;
	uint64_t flush_cycles;
	uint64_t context_switches;
	uint64_t kernel_entries;
	uint64_t pending_set;
	uint64_t pending_done;
	uint64_t exposures;
	uint64_t exposure_max;
	uint64_t exposure_sum;
} ____cacheline_aligned;

/*
 * The CPUs that may cache each physmap mapping (alias.c): units (one per
 * mapping listed) in hash buckets, each with its first CPU inline and a
 * list of nodes (one per further CPU); both pools indexed by uint32_t,
 * free entries chained.  A key is below 2^35 (a frame number is below
 * NXSIM_XPFO_MAX_FRAMES, 2^32), a CPU below NXSIM_TLB_MAX_CPUS.
 */
struct nxsim__alias_unit {
	uint64_t key : 40; /* 0: free */
	uint64_t cpu : 24; /* the first holder */
	uint32_t next;
	uint32_t cpus; /* the other holders */
};

struct nxsim__alias_node {
	uint32_t next;
	uint32_t cpu;
};

/**
 * struct nxsim__alias - the reverse index of physmap translations
 * @bucket: @nr_buckets (2^@bucket_bits) heads of unit chains
 * @unit, @node: the pools, @nr_nodes entries each after an unused entry 0
 *	(0 ends every chain and list)
 * @free_unit, @free_node: their free lists
 * @fresh_unit, @fresh_node: their first entries never used
 * @live: holders listed (a unit's first, and the nodes in use)
 * @seen: scratch bitmap of nr_cpus bits, all clear between calls
 * @off: none kept (a machine without XPFO), or given up (a sweep left the
 *	pools nearly full): callers visit every CPU
 */
struct nxsim__alias {
	uint32_t *bucket;
	uint32_t nr_buckets;
	unsigned int bucket_bits;
	struct nxsim__alias_unit *unit;
	struct nxsim__alias_node *node;
	uint32_t nr_nodes;
	uint32_t free_unit;
	uint32_t free_node;
	uint32_t fresh_unit;
	uint32_t fresh_node;
	uint32_t live;
	uint64_t *seen;
	bool off;
};

/*
 * Per-frame exposure statistics (frame_exposure.c): an open-addressing
 * table by pfn, @cap (0 or a power of two) records, @n of them used.
 */
struct nxsim__frame_exp_table {
	struct nxsim__frame_exp *rec;
	uint64_t cap;
	uint64_t n;
};

struct nxsim_xpfo {
	pthread_mutex_t lock;
	unsigned int nr_cpus;
	uint64_t nr_frames;
	enum nxsim_xpfo_version version;
	bool disabled;
	const struct nxsim_xpfo_policy_ops *policy;
	void *policy_data; /* what the policy's init hook set */
	bool in_policy;	   /* a hook of the policy runs */
	struct nxsim_xpfo_costs cost;
	struct nxsim_clock *clock;
	uint32_t cpu_mhz;
	uint64_t all_cycles; /* charged to every CPU (struct nxsim__xpfo_cpu) */
	int64_t *top;	     /* max tree of the CPUs' @cycles shares */
	unsigned int leaves; /* @top's first leaf: CPU 0's */
	struct nxsim_tlb *tlb;
	struct nxsim__frame *frame;
	bitstr_t *split_1g; /* 1G region split into 2M */
	bitstr_t *split_2m; /* 2M region split into 4K */
	struct nxsim__xpfo_cpu *cpu;
	uint64_t *mask;	  /* scratch cpumask for policies */
	uint64_t *filled; /* CPUs filled since every CPU's last full flush */
	struct nxsim_xpfo_stats st;
	struct nxsim_xpfo_oracle orc;		 /* means computed on read */
	struct nxsim__frame_exp_table frame_exp; /* frames ever exposed */
	struct nxsim__alias alias;		 /* who caches which mapping */
	uint64_t events;
};

/*
 * The flush policies (policy.c): the built-ins, then the registered ones.
 * A policy is a struct nxsim_xpfo_policy_ops (<nxsim/xpfo.h>) built on the
 * public primitives (primitives.c); a new built-in is one file
 * src/xpfo/policy_<name>.c defining one, plus one line in
 * xpfo_policy_table[].
 */
const struct nxsim_xpfo_policy_ops *nxsim__xpfo_policy_find(const char *name);
/*
 * Whether nxsim_xpfo_policy_register() would take @ops now: 0 or its
 * errno, with *@why (may be NULL) set on failure.
 */
int nxsim__xpfo_policy_check(const struct nxsim_xpfo_policy_ops *ops,
			     const char **why);
/* Register @n policies at once, all or none (a plug-in's, at its load). */
int nxsim__xpfo_policy_register_all(
	const struct nxsim_xpfo_policy_ops *const *ops, unsigned int n,
	const char **why);

/*
 * Call hook @hook of @m's policy, if it has one, with the machine's
 * arguments: the primitives answer only while one runs.
 */
#define nxsim__xpfo_policy_call(m, hook, ...)                \
	do {                                                 \
		if ((m)->policy->hook) {                     \
			(m)->in_policy = true;               \
			(m)->policy->hook((m), __VA_ARGS__); \
			(m)->in_policy = false;              \
		}                                            \
	} while (0)

/* The TLB work of the primitives; each charges the CPUs involved. */

/* @cpu's timeline: its cycles. */
static inline uint64_t nxsim__xpfo_cycles(const struct nxsim_xpfo *m,
					  unsigned int cpu)
{
	return m->cpu[cpu].cycles + m->all_cycles;
}

/* Orders the CPUs' timelines as nxsim__xpfo_cycles() does. */
static inline int64_t nxsim__xpfo_cycles_key(const struct nxsim_xpfo *m,
					     unsigned int cpu)
{
	return (int64_t)m->cpu[cpu].cycles;
}

/* Charge @cycles of kernel time to @cpu. */
void nxsim__xpfo_charge(struct nxsim_xpfo *m, unsigned int cpu,
			uint64_t cycles);
/* Same, and count them as flush overhead. */
void nxsim__xpfo_charge_flush(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t cycles);

/*
 * @cpu's TLB was filled with @e: it may hold something (@filled), and the
 * TLB's fill log learns where.
 */
static inline void nxsim__xpfo_filled(struct nxsim_xpfo *m, unsigned int cpu,
				      const struct nxsim_tlb_entry *e)
{
	m->filled[cpu / 64] |= 1ull << (cpu % 64);
	nxsim__tlb_log_fill(m->tlb, cpu, e->va, e->page_shift);
}

/* INVLPG each of @pages pages, or for @pages 0 a full flush, on @cpu only. */
void nxsim__xpfo_flush_local(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages);
/*
 * flush_tlb_kernel_range() from @cpu to the CPUs in @mask (NULL: all) by
 * IPI, or by INVLPGB broadcast on a TLB configured for it.  @pages of 0
 * means all.
 */
void nxsim__xpfo_flush_cpus(struct nxsim_xpfo *m, unsigned int cpu,
			    const uint64_t *mask, uint64_t va, uint64_t pages);
/* Charge @cycles of flush overhead to every CPU but @cpu. */
void nxsim__xpfo_charge_others(struct nxsim_xpfo *m, unsigned int cpu,
			       uint64_t cycles);
/* Queue a full flush on the CPUs of @mask (NULL: all) but @cpu. */
void nxsim__xpfo_defer_others(struct nxsim_xpfo *m, unsigned int cpu,
			      const uint64_t *mask);
/* Run @cpu's pending full flush, if any; whether there was one. */
bool nxsim__xpfo_run_pending(struct nxsim_xpfo *m, unsigned int cpu);

/* Hooks the built-in policies share. */
/* P1's flush (policy_eager.c), shared by P7. */
void nxsim__xpfo_eager_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages);
/* P3's flush (policy_local.c), the first half of P4a's. */
void nxsim__xpfo_local_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages);
/* P4a's flush and pending flush (policy_deferred.c), shared by P4b, P4c. */
void nxsim__xpfo_deferred_flush(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t va, uint64_t pages);
void nxsim__xpfo_pending_flush(struct nxsim_xpfo *m, unsigned int cpu);

/* Physmap (physmap.c). */
static inline uint64_t nxsim__physmap_va(uint64_t pfn)
{
	return NXSIM_XPFO_PAGE_OFFSET + (pfn << NXSIM_TLB_SHIFT_4K);
}
unsigned int nxsim__physmap_shift(const struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__physmap_split(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn);

/*
 * A hint: an operation on frame @pfn on @cpu is to come (an access, an
 * allocation or a free, each of which reads its record and may probe the
 * CPU's TLB for its physmap address).  Prefetches the frame's record and
 * the TLB tags a lookup probes, so that the host's cache misses of
 * operations issued together overlap.  The one prefetch of a kernel
 * access: nxsim__xpfo_kernel_access() makes none, the workload hints its
 * accesses ahead of them, the public call just before its access.
 */
static inline void nxsim__xpfo_prefetch_access(const struct nxsim_xpfo *m,
					       unsigned int cpu, uint64_t pfn)
{
	if (pfn >= m->nr_frames)
		return;
	__builtin_prefetch(&m->frame[pfn]);
	/* a read's and a write's lookups probe the same sets (the L1D) */
	nxsim__tlb_prefetch_lookup(m->tlb, cpu, NXSIM_TLB_READ,
				   nxsim__physmap_va(pfn));
}

/* Oracle (oracle.c). */
void nxsim__oracle_unmapped(struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__oracle_remapped(struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__oracle_reuse(struct nxsim_xpfo *m, uint64_t pfn, uint8_t new_owner,
			 uint16_t new_domain);
void nxsim__oracle_drop(void *ctx, unsigned int cpu, uint64_t va, uint64_t pfn);
void nxsim__oracle_kmap_open(struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__oracle_kmap_close(struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__frame_exp_open(struct nxsim_xpfo *m, uint64_t pfn);
void nxsim__frame_exp_close(struct nxsim_xpfo *m, uint64_t pfn, uint64_t len);
void nxsim__frame_exp_free(struct nxsim_xpfo *m);
void nxsim__oracle_fill(const struct nxsim_xpfo *m,
			struct nxsim_xpfo_oracle *out);
uint64_t nxsim__xpfo_now_ns(const struct nxsim_xpfo *m);

/* The reverse index of physmap translations (alias.c). */
int nxsim__alias_init(struct nxsim_xpfo *m);
void nxsim__alias_free(struct nxsim_xpfo *m);
void nxsim__alias_add(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
		      unsigned int shift);
void nxsim__alias_gather(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr);
void nxsim__alias_forget(struct nxsim_xpfo *m, uint64_t pfn, bool drop);
void nxsim__alias_flushed(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr);

/* The first CPU from @cpu on marked by nxsim__alias_gather(), or nr_cpus. */
static inline unsigned int nxsim__alias_next(const struct nxsim_xpfo *m,
					     unsigned int cpu)
{
	const uint64_t *seen = m->alias.seen;
	unsigned int w = cpu / 64, nw = (m->nr_cpus + 63) / 64;
	uint64_t bits;

	if (cpu >= m->nr_cpus)
		return m->nr_cpus;
	bits = seen[w] & (~0ull << (cpu % 64));
	while (!bits) {
		if (++w == nw)
			return m->nr_cpus;
		bits = seen[w];
	}
	return w * 64 + (unsigned int)__builtin_ctzll(bits);
}

/* Event entry points without the machine lock (xpfo.c, cpu.c). */
int nxsim__xpfo_alloc_pages_kernel(struct nxsim_xpfo *m, unsigned int cpu,
				   uint64_t pfn);
int nxsim__xpfo_alloc_pages_user(struct nxsim_xpfo *m, unsigned int cpu,
				 uint64_t pfn, uint16_t domain,
				 unsigned int flags);
int nxsim__xpfo_free_pages(struct nxsim_xpfo *m, unsigned int cpu,
			   uint64_t pfn);
int nxsim__xpfo_kmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn);
int nxsim__xpfo_kunmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn);
int nxsim__xpfo_refill(struct nxsim_xpfo *m, unsigned int cpu,
		       const uint64_t *pfns, unsigned int n);
int nxsim__xpfo_kernel_access(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t pfn, bool write,
			      enum nxsim_xpfo_access *what);
int nxsim__xpfo_user_access(struct nxsim_xpfo *m, unsigned int cpu,
			    uint64_t pfn, bool write);
int nxsim__xpfo_context_switch(struct nxsim_xpfo *m, unsigned int cpu,
			       uint16_t domain);
int nxsim__xpfo_kernel_enter(struct nxsim_xpfo *m, unsigned int cpu);
int nxsim__xpfo_kernel_exit(struct nxsim_xpfo *m, unsigned int cpu);
/* Charge @cycles of user time to @cpu. */
void nxsim__xpfo_user_work(struct nxsim_xpfo *m, unsigned int cpu,
			   uint64_t cycles);
void nxsim__xpfo_result(struct nxsim_xpfo *m, struct nxsim_xpfo_result *res);

#endif /* NXSIM_XPFO_XPFO_H */
