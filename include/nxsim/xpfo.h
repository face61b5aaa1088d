/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * XPFO (eXclusive Page Frame Ownership) on a simulated multi-CPU TLB.
 *
 * A machine has CPUs (each with its TLB from <nxsim/tlb.h>), a kernel
 * direct map ("physmap") of every frame at 1G/2M where aligned, and a frame
 * table.  Ownership events (kernel or user allocation, free, kmap, kunmap,
 * per-CPU freelist refill) follow mm/xpfo.c of the version chosen; every
 * physmap unmap is flushed by a named flush policy.  An oracle counts what
 * an attacker could reach through stale TLB entries, and a cost model turns
 * the events into cycles per CPU.
 *
 * All calls return 0 or a negative errno and change nothing on failure.
 *
 * Thread safety: every call is safe from many threads; calls on one
 * machine are serialised by the machine's lock.  Destroying a machine
 * while another thread uses it is undefined.
 */
#ifndef NXSIM_XPFO_H
#define NXSIM_XPFO_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/clock.h>
#include <nxsim/common.h>
#include <nxsim/tlb.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Which posting's transitions the frames follow (docs/xpfo.md):
 * V6 and V7: user allocation of a kernel frame flushes its physmap range
 * and leaves it mapped, kunmap unmaps, free remaps.  V7 differs from V6
 * only in its default policy ("none": flushing off unless xpfotlbflush).
 * V8: as V7, deferred flushing by default.  V9: user allocation unmaps at
 * once unless the kernel will write the page (will_map), free leaves the
 * frame unmapped, batched refill by default.
 */
enum nxsim_xpfo_version {
	NXSIM_XPFO_V6, /* default policy "eager" */
	NXSIM_XPFO_V7, /* default policy "none" */
	NXSIM_XPFO_V8, /* default policy "deferred" */
	NXSIM_XPFO_V9, /* default policy "batched" */
};

enum nxsim_xpfo_owner {
	NXSIM_XPFO_FREE,
	NXSIM_XPFO_KERNEL,
	NXSIM_XPFO_USER,
};

/* Physmap base, as x86-64's __PAGE_OFFSET_BASE_L4. */
#define NXSIM_XPFO_PAGE_OFFSET 0xffff888000000000ull
#define NXSIM_XPFO_MAX_FRAMES (1ull << 32)
#define NXSIM_XPFO_MAX_EVENTS (1ull << 32) /* workload steps per CPU */

/* nxsim_xpfo_alloc_user() flag: the kernel will write the page now (v9). */
#define NXSIM_XPFO_WILL_MAP 1u

/**
 * struct nxsim_xpfo_costs - cycles charged per event
 *
 * nxsim_xpfo_costs_default() fills the defaults; nxsim_xpfo_cost_info()
 * names each field with its default and the source of that default.
 * The first group is what XPFO adds; the second is the workload's own work,
 * charged with and without XPFO alike.  The stats set
 * NXSIM_STATS_XPFO_COSTS describes its fields, in the same order.
 */
struct nxsim_xpfo_costs {
	uint32_t stlb_hit;
	uint32_t walk;
	uint32_t invlpg;
	uint32_t cr3_flush;
	uint32_t global_flush;
	uint32_t ipi_first;
	uint32_t ipi_extra;
	uint32_t ipi_recv;
	uint32_t split;
	uint32_t pte_write;
	uint32_t invlpgb;
	uint32_t tlbsync;
	uint32_t asi_transition;
	uint32_t xpfo_lock;
	uint32_t kernel_access;
	uint32_t user_access;
	uint32_t user_work;
	uint32_t page_alloc;
	uint32_t page_free;
	uint32_t page_zero;
	uint32_t context_switch;
	uint32_t kernel_entry;
};

/**
 * struct nxsim_xpfo_config - a machine
 * @nr_cpus: 1 .. NXSIM_TLB_MAX_CPUS
 * @nr_frames: 1 .. NXSIM_XPFO_MAX_FRAMES; all start free and mapped
 * @version: transitions (above)
 * @policy: flush policy name (nxsim_xpfo_policy_name()); NULL: the
 *	version's default
 * @disabled: no XPFO at all (the baseline): ownership is tracked, the
 *	physmap is never touched and nothing is flushed
 * @tlb: TLB geometry; nr_cpus 0 means nxsim_tlb_config_default()
 * @costs: NULL for nxsim_xpfo_costs_default()
 * @clock: a virtual clock for exposure times; NULL: the CPUs' own time
 *	(the largest cycle count reached, at @cpu_mhz)
 * @cpu_mhz: converts cycles to ns; 0 means 3000
 */
struct nxsim_xpfo_config {
	unsigned int nr_cpus;
	uint64_t nr_frames;
	enum nxsim_xpfo_version version;
	const char *policy;
	bool disabled;
	struct nxsim_tlb_config tlb;
	const struct nxsim_xpfo_costs *costs;
	struct nxsim_clock *clock;
	uint32_t cpu_mhz;
};

/* What a kernel access through the physmap did. */
enum nxsim_xpfo_access {
	NXSIM_XPFO_ACCESS_HIT,	 /* TLB hit, frame mapped */
	NXSIM_XPFO_ACCESS_WALK,	 /* TLB miss, walked, filled */
	NXSIM_XPFO_ACCESS_STALE, /* TLB hit on an unmapped frame */
	NXSIM_XPFO_ACCESS_FAULT, /* TLB miss, frame unmapped: oops */
};

struct nxsim_xpfo_frame_info {
	enum nxsim_xpfo_owner owner;
	uint16_t domain; /* user owner; last user owner when free */
	bool user;	 /* PG_xpfo_user */
	bool unmapped;	 /* PG_xpfo_unmapped: physmap PTE not present */
	uint16_t kmap_count;
	uint8_t physmap_shift; /* 12, 21 or 30: the mapping covering it */
	uint16_t stale_cpus;   /* CPUs still caching its unmapped alias */
};

struct nxsim_xpfo_cpu_info {
	uint16_t domain; /* current domain; 0 is no user domain */
	bool user_mode;
	bool pending_flush; /* a deferred flush waits for this CPU */
	uint64_t context_switches;
	uint64_t kernel_entries;
	uint64_t pending_set;  /* times a deferred flush was queued */
	uint64_t pending_done; /* deferred flushes executed */
	uint64_t cycles;       /* this CPU's timeline */
	uint64_t kernel_cycles;
	uint64_t exposures; /* closed stale windows on this CPU */
	uint64_t exposure_max_ns;
	uint64_t exposure_sum_ns;
};

/**
 * struct nxsim_xpfo_stats - machine-wide event counters
 */
struct nxsim_xpfo_stats {
	uint64_t alloc_kernel;
	uint64_t alloc_user;
	uint64_t frees;
	uint64_t kmaps;
	uint64_t kunmaps;
	uint64_t refills;	 /* batched refills */
	uint64_t pte_clear;	 /* physmap PTEs made not present */
	uint64_t pte_set;	 /* physmap PTEs made present again */
	uint64_t splits_1g;	 /* 1G mappings split to 2M */
	uint64_t splits_2m;	 /* 2M mappings split to 4K */
	uint64_t policy_flushes; /* flushes requested of the policy */
	uint64_t kernel_accesses;
	uint64_t user_accesses;
	uint64_t context_switches;
	uint64_t kernel_entries;
};

/**
 * struct nxsim_xpfo_oracle - security outcome (docs/xpfo.md)
 * @stale_reads, @stale_writes: kernel accesses through the physmap that hit
 *	a TLB entry of an unmapped frame (successful ret2dir accesses)
 * @stale_cross_domain: of those, by a CPU whose domain is not the owner
 * @faults: physmap accesses to unmapped frames that missed and faulted
 * @exposures: (frame, CPU) windows closed: a CPU held the alias of a frame
 *	after its unmap until eviction, invalidation or remap
 * @exposures_open: windows still open now
 * @exposure_*_ns: their mean, max and sum (integral)
 * @reuse_hazards: frames handed to a different owner while some CPU held
 *	a stale translation of them
 * @kmap_windows: kmaps of user frames closed (alias open to every CPU)
 * @kmap_*_ns: their mean, max and sum
 * @exposed_frames: frames with per-frame statistics (ever exposed)
 * @frame_windows_dropped: closed windows missing from the per-frame
 *	statistics because memory for their frame's record ran out (they are
 *	in every other figure)
 */
struct nxsim_xpfo_oracle {
	uint64_t stale_reads;
	uint64_t stale_writes;
	uint64_t stale_cross_domain;
	uint64_t faults;
	uint64_t exposures;
	uint64_t exposures_open;
	uint64_t exposure_mean_ns;
	uint64_t exposure_max_ns;
	uint64_t exposure_sum_ns;
	uint64_t reuse_hazards;
	uint64_t kmap_windows;
	uint64_t kmap_mean_ns;
	uint64_t kmap_max_ns;
	uint64_t kmap_sum_ns;
	uint64_t exposed_frames;
	uint64_t frame_windows_dropped;
};

/**
 * struct nxsim_xpfo_frame_exposure - exposure windows of one frame
 * @pfn: the frame
 * @windows: (frame, CPU) windows closed: a CPU held the frame's alias
 *	after its unmap until eviction, invalidation or remap
 * @open: windows open now (CPUs holding the stale alias)
 * @mean_ns, @max_ns, @sum_ns: of the closed windows; @sum_ns is the
 *	integral, CPU-ns of exposure
 */
struct nxsim_xpfo_frame_exposure {
	uint64_t pfn;
	uint64_t windows;
	uint64_t open;
	uint64_t mean_ns;
	uint64_t max_ns;
	uint64_t sum_ns;
};

/**
 * struct nxsim_xpfo_result - everything a run measured
 * @events: ownership events executed (all public event calls)
 * @kernel_cycles, @user_cycles: summed over CPUs
 * @makespan_cycles: the largest CPU timeline
 * @base_*: the same workload without XPFO (run_workload only)
 * @system_ratio: kernel_cycles / base_kernel_cycles
 * @wall_ratio: makespan_cycles / base_makespan_cycles
 */
struct nxsim_xpfo_result {
	struct nxsim_xpfo_stats xpfo;
	struct nxsim_tlb_stats tlb;
	struct nxsim_xpfo_oracle oracle;
	uint64_t events;
	uint64_t kernel_cycles;
	uint64_t user_cycles;
	uint64_t makespan_cycles;
	uint64_t flush_cycles; /* of kernel_cycles: flushes, IPIs, splits */
	uint64_t base_kernel_cycles;
	uint64_t base_user_cycles;
	uint64_t base_makespan_cycles;
	double system_ratio;
	double wall_ratio;
};

/**
 * struct nxsim_xpfo_rates - flush work per 1000 ownership changes
 * @ownership_changes: allocations and frees, the events that change a
 *	frame's owner (alloc_kernel + alloc_user + frees)
 * @shootdowns_per_1k: kernel range or full flushes started
 * @local_flushes_per_1k: INVLPG, CR3 and global flushes executed on every
 *	CPU
 * @ipis_per_1k: shootdowns sent by IPI
 * @ipi_targets_per_1k: IPIs received
 * @broadcasts_per_1k: INVLPGB-like broadcasts
 * @policy_flushes_per_1k: flushes requested of the policy (the same for
 *	every policy of a version)
 *
 * Every rate is NAN when there was no ownership change.
 */
struct nxsim_xpfo_rates {
	uint64_t ownership_changes;
	double shootdowns_per_1k;
	double local_flushes_per_1k;
	double ipis_per_1k;
	double ipi_targets_per_1k;
	double broadcasts_per_1k;
	double policy_flushes_per_1k;
};

/**
 * struct nxsim_xpfo_run - one workload run for nxsim_xpfo_run_workload()
 * @workload: "compile", "io" or "fork" (nxsim_xpfo_workload_name())
 * @policy: flush policy; NULL: the version's default
 * @version: transitions
 * @nr_cpus: CPUs, each running its own seeded stream
 * @events: steps per CPU, 1 .. NXSIM_XPFO_MAX_EVENTS
 * @seed: seeds every stream
 * @costs: NULL for the defaults
 * @tlb: NULL for the default geometry
 */
struct nxsim_xpfo_run {
	const char *workload;
	const char *policy;
	enum nxsim_xpfo_version version;
	unsigned int nr_cpus;
	uint64_t events;
	uint64_t seed;
	const struct nxsim_xpfo_costs *costs;
	const struct nxsim_tlb_config *tlb;
};

struct nxsim_xpfo;

/*
 * Flush policies from outside the library (docs/plugins.md).  A policy is
 * a struct nxsim_xpfo_policy_ops: hooks the machine calls under its lock,
 * built from the primitives below, which do the TLB work, charge its cycles
 * by the cost table and are seen by the security oracle.  The ten built-in
 * policies are written on this struct too.
 */
#define NXSIM_XPFO_POLICY_OPS_VERSION 1
#define NXSIM_XPFO_POLICY_NAME_MAX 31 /* bytes of a name, without the NUL */
#define NXSIM_XPFO_MAX_POLICIES 64    /* built-in and registered */

/**
 * struct nxsim_xpfo_policy_ops - a flush policy
 * @size: sizeof(struct nxsim_xpfo_policy_ops) as the policy was built
 * @version: NXSIM_XPFO_POLICY_OPS_VERSION as the policy was built
 * @name: what nxsim_xpfo_config.policy and every tool name it by: 1 ..
 *	NXSIM_XPFO_POLICY_NAME_MAX of [A-Za-z0-9_.+-]
 * @flush: physmap PTEs of [@va, @va + @pages * 4K) were cleared by @cpu
 *	(@pages 0: anywhere, flush everything); make the stale translations
 *	go away, or not (required)
 * @context_switch: at switch_mm on @cpu, before the CR3 write (NULL:
 *	nothing)
 * @kernel_enter: at a user-to-kernel entry on @cpu (NULL: nothing)
 * @kernel_exit: at the return to user mode on @cpu (NULL: nothing)
 * @reuse: frame @pfn is about to be handed to a new owner (NULL: nothing)
 * @init: a machine is made with this policy: set *@data (NULL: none);
 *	return 0 or a negative errno, which fails nxsim_xpfo_create()
 * @fini: the machine is destroyed: release @data (NULL: nothing)
 * @refill_batch: workloads refill user frames in batches of this size
 *	through nxsim_xpfo_refill() (0: no batching)
 * @broadcast: the machine has INVLPGB: its TLB broadcasts kernel-wide
 *	flushes (large-page splits included) instead of sending IPIs
 *
 * The hooks run with the machine's lock held: they may call the
 * nxsim_xpfo_policy primitives below and nothing else of the machine.
 */
struct nxsim_xpfo_policy_ops {
	uint32_t size;
	uint32_t version;
	const char *name;
	void (*flush)(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		      uint64_t pages);
	void (*context_switch)(struct nxsim_xpfo *m, unsigned int cpu);
	void (*kernel_enter)(struct nxsim_xpfo *m, unsigned int cpu);
	void (*kernel_exit)(struct nxsim_xpfo *m, unsigned int cpu);
	void (*reuse)(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn);
	int (*init)(struct nxsim_xpfo *m, void **data);
	void (*fini)(struct nxsim_xpfo *m, void *data);
	unsigned int refill_batch;
	bool broadcast;
};

/**
 * nxsim_xpfo_policy_register() - make a flush policy usable by name
 * @ops: the policy; the library keeps a copy of it and of its name (the
 *	hooks must stay loaded for the life of the process)
 * @why: on failure, receives a static text naming the problem (may be NULL)
 *
 * From then on @ops->name is a policy name wherever one is taken:
 * nxsim_xpfo_create(), nxsim_xpfo_run_workload(), trace replays, and the
 * lists of nxsim_xpfo_policy_name() (after the built-ins, in registration
 * order).  Safe from many threads.
 *
 * Return: 0; -EINVAL for NULL, a size too small for the version, no flush
 * hook, an empty, too long or badly spelled name; -EOPNOTSUPP for a version
 * this library does not know; -EEXIST for a name already taken; -ENOSPC
 * when NXSIM_XPFO_MAX_POLICIES are known.  Nothing is registered on failure.
 */
NXSIM_API int
nxsim_xpfo_policy_register(const struct nxsim_xpfo_policy_ops *ops,
			   const char **why);

/*
 * Primitives for the hooks of a policy.  Each returns 0 (or the answer)
 * or a negative errno: -EPERM outside a hook of @m's policy, -EINVAL for a
 * NULL machine or a bad CPU or pfn; nothing is done on failure.  @mask is
 * a bitmap of nr_cpus bits (64 CPUs a word, CPU 0 in bit 0 of word 0), NULL
 * meaning every CPU.
 */

/**
 * nxsim_xpfo_policy_flush_local() - flush on @cpu only: INVLPG each of
 * @pages 4K pages from @va (however many), or __flush_tlb_all() for
 * @pages 0.  Charged invlpg per page, or global_flush.
 */
NXSIM_API int nxsim_xpfo_policy_flush_local(struct nxsim_xpfo *m,
					    unsigned int cpu, uint64_t va,
					    uint64_t pages);

/**
 * nxsim_xpfo_policy_ranged() - the 33-page rule: whether
 * flush_tlb_kernel_range() flushes @pages page by page (@pages at most the
 * TLB's tlb_single_page_flush_ceiling) rather than in full (arch/x86/mm/
 * tlb.c).  False for @pages 0 and for a bad @m.
 */
NXSIM_API bool nxsim_xpfo_policy_ranged(const struct nxsim_xpfo *m,
					uint64_t pages);

/**
 * nxsim_xpfo_policy_shootdown() - flush_tlb_kernel_range() from @cpu on
 * the CPUs of @mask and on @cpu: IPIs (ipi_first, ipi_extra per further
 * target, ipi_recv on each) or, on a broadcast machine, INVLPGB + TLBSYNC;
 * each CPU flushes page by page or in full by the 33-page rule, as the
 * kernel's function does.  @pages 0: full.
 */
NXSIM_API int nxsim_xpfo_policy_shootdown(struct nxsim_xpfo *m,
					  unsigned int cpu,
					  const uint64_t *mask, uint64_t va,
					  uint64_t pages);

/**
 * nxsim_xpfo_policy_defer() - mark the CPUs of @mask other than @cpu
 * pending (v8/v9's pending_xpfo_flush): each does a full flush when its
 * hook calls nxsim_xpfo_policy_run_pending().  A CPU already pending is
 * left as it is.
 */
NXSIM_API int nxsim_xpfo_policy_defer(struct nxsim_xpfo *m, unsigned int cpu,
				      const uint64_t *mask);

/**
 * nxsim_xpfo_policy_run_pending() - @cpu's pending full flush, if any.
 * Return: 1 if it flushed, 0 if none was pending, or a negative errno.
 */
NXSIM_API int nxsim_xpfo_policy_run_pending(struct nxsim_xpfo *m,
					    unsigned int cpu);

/** nxsim_xpfo_policy_charge() - charge @cycles of flush work to @cpu. */
NXSIM_API int nxsim_xpfo_policy_charge(struct nxsim_xpfo *m, unsigned int cpu,
				       uint64_t cycles);

/**
 * nxsim_xpfo_policy_owe() - mark frames [@pfn, @pfn + @nr) that exist as
 * owing a flush (a bit per frame the policy alone reads; P4d's)
 */
NXSIM_API int nxsim_xpfo_policy_owe(struct nxsim_xpfo *m, uint64_t pfn,
				    uint64_t nr);

/**
 * nxsim_xpfo_policy_take_owed() - clear frame @pfn's owed flush.
 * Return: 1 if it owed one, 0 if not, or a negative errno.
 */
NXSIM_API int nxsim_xpfo_policy_take_owed(struct nxsim_xpfo *m, uint64_t pfn);

/**
 * nxsim_xpfo_policy_user_cpus() - set @mask to the CPUs in user mode
 * (the others are in the kernel)
 */
NXSIM_API int nxsim_xpfo_policy_user_cpus(const struct nxsim_xpfo *m,
					  uint64_t *mask);

/**
 * nxsim_xpfo_policy_cpu_domain() - the domain @cpu runs (0: none).
 * Return: the domain, or a negative errno.
 */
NXSIM_API int nxsim_xpfo_policy_cpu_domain(const struct nxsim_xpfo *m,
					   unsigned int cpu);

/**
 * nxsim_xpfo_policy_frame_domain() - frame @pfn's user owner, or its last
 * user owner once free (0: never a user frame).
 * Return: the domain, or a negative errno.
 */
NXSIM_API int nxsim_xpfo_policy_frame_domain(const struct nxsim_xpfo *m,
					     uint64_t pfn);

/**
 * nxsim_xpfo_policy_machine() - what the machine is: its CPU and frame
 * counts and cost table (each may be NULL); the init hook may call it too
 */
NXSIM_API int nxsim_xpfo_policy_machine(const struct nxsim_xpfo *m,
					unsigned int *nr_cpus,
					uint64_t *nr_frames,
					const struct nxsim_xpfo_costs **costs);

/**
 * nxsim_xpfo_policy_cpumask() - a scratch cpumask of the machine's CPU
 * count for a hook's own use (its contents are the last hook's), or NULL
 * outside a hook
 */
NXSIM_API uint64_t *nxsim_xpfo_policy_cpumask(struct nxsim_xpfo *m);

/** nxsim_xpfo_policy_data() - what the policy's init hook set (or NULL). */
NXSIM_API void *nxsim_xpfo_policy_data(const struct nxsim_xpfo *m);

/** nxsim_xpfo_costs_default() - fill @c with the default cost table. */
NXSIM_API void nxsim_xpfo_costs_default(struct nxsim_xpfo_costs *c);

/**
 * nxsim_xpfo_cost_info() - the @idx-th cost of the table
 * @idx: index from 0
 * @name: receives the field name, or NULL
 * @cycles: receives its default, or NULL
 * @source: receives where the default comes from, or NULL
 *
 * Return: 0, or -ENOENT past the last.
 */
NXSIM_API int nxsim_xpfo_cost_info(unsigned int idx, const char **name,
				   uint32_t *cycles, const char **source);

/**
 * nxsim_xpfo_costs_set() - set the cost named @name in @c to @cycles
 * @c: a cost table (nxsim_xpfo_costs_default() fills one)
 * @name: a field name, as nxsim_xpfo_cost_info() answers it ("invlpg")
 * @cycles: its new value
 * @why: receives a static description of what is wrong, on error (may be
 *	NULL)
 *
 * Return: 0; -EINVAL for a NULL @c or @name; -ENOENT for a name the table
 * does not have.  On error @c is unchanged.
 */
NXSIM_API int nxsim_xpfo_costs_set(struct nxsim_xpfo_costs *c, const char *name,
				   uint32_t cycles, const char **why);

/**
 * nxsim_xpfo_policy_name() - the @idx-th policy, NULL past the last: the
 * ten built-ins, then the registered ones.  A name stays valid for the
 * life of the process.
 */
NXSIM_API const char *nxsim_xpfo_policy_name(unsigned int idx);

/** nxsim_xpfo_workload_name() - the @idx-th workload, NULL past the last. */
NXSIM_API const char *nxsim_xpfo_workload_name(unsigned int idx);

/**
 * nxsim_xpfo_create() - make a machine
 *
 * Return: 0; -EINVAL for a bad CPU or frame count, version, TLB geometry or
 * a TLB CPU count other than 0 or @cfg->nr_cpus; -ENOENT for an unknown
 * policy or replacement name; -ENOMEM.
 */
NXSIM_API int nxsim_xpfo_create(const struct nxsim_xpfo_config *cfg,
				struct nxsim_xpfo **mp);

/**
 * nxsim_xpfo_destroy() - free a machine
 *
 * Return: 0, or -EINVAL for NULL.
 */
NXSIM_API int nxsim_xpfo_destroy(struct nxsim_xpfo *m);

/**
 * struct nxsim_xpfo_memory - what a machine's per-frame state takes
 * @frame_table: the frame records, 16 bytes per frame
 * @physmap: the direct map's split bitmaps, one bit per 2M and 1G region
 */
struct nxsim_xpfo_memory {
	uint64_t frame_table;
	uint64_t physmap;
};

/** nxsim_xpfo_memory() - bytes of per-frame state.  Return: 0, -EINVAL. */
NXSIM_API int nxsim_xpfo_memory(struct nxsim_xpfo *m,
				struct nxsim_xpfo_memory *mem);

/*
 * Ownership events.  @cpu is the CPU doing it; -EINVAL for a bad machine,
 * CPU or pfn.
 */

/**
 * nxsim_xpfo_alloc_kernel() - a kernel allocation gets free frame @pfn
 * (xpfo_alloc_pages() with a kernel GFP mask).
 *
 * Return: 0; -EBUSY if @pfn is not free.
 */
NXSIM_API int nxsim_xpfo_alloc_kernel(struct nxsim_xpfo *m, unsigned int cpu,
				      uint64_t pfn);

/**
 * nxsim_xpfo_alloc_user() - a user allocation gets free frame @pfn for
 * @domain (xpfo_alloc_pages() with GFP_HIGHUSER).
 * @domain: 1 .. 65535
 * @flags: NXSIM_XPFO_WILL_MAP or 0
 *
 * Return: 0; -EBUSY if @pfn is not free; -EINVAL for domain 0 or unknown
 * flags.
 */
NXSIM_API int nxsim_xpfo_alloc_user(struct nxsim_xpfo *m, unsigned int cpu,
				    uint64_t pfn, uint16_t domain,
				    unsigned int flags);

/**
 * nxsim_xpfo_free() - frame @pfn goes back to the allocator
 * (xpfo_free_pages()).
 *
 * Return: 0; -EINVAL if it is already free; -EBUSY while kmapped.
 */
NXSIM_API int nxsim_xpfo_free(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t pfn);

/**
 * nxsim_xpfo_kmap() - xpfo_kmap(): a kernel mapping of @pfn.  The first
 * kmap of an unmapped user frame maps it back (no flush).
 *
 * Return: 0; -EINVAL for a free frame; -EOVERFLOW at 65535 kmaps.
 */
NXSIM_API int nxsim_xpfo_kmap(struct nxsim_xpfo *m, unsigned int cpu,
			      uint64_t pfn);

/**
 * nxsim_xpfo_kunmap() - xpfo_kunmap(): the last kunmap of a user frame
 * unmaps it and flushes through the policy.
 *
 * Return: 0; -EINVAL without a matching kmap.
 */
NXSIM_API int nxsim_xpfo_kunmap(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t pfn);

/**
 * nxsim_xpfo_refill() - per-CPU freelist refill with batching (v8/v9
 * patch 13): tag the free frames @pfns user + unmapped, then one flush.
 *
 * Return: 0; -EINVAL for a bad pfn, a frame that is not free, @n == 0;
 * -EOPNOTSUPP before V8.
 */
NXSIM_API int nxsim_xpfo_refill(struct nxsim_xpfo *m, unsigned int cpu,
				const uint64_t *pfns, unsigned int n);

/**
 * nxsim_xpfo_kernel_access() - the kernel on @cpu touches @pfn through
 * the physmap, on behalf of the CPU's current domain.
 * @what: receives the outcome (may be NULL)
 *
 * A stale hit is counted by the oracle; a fault is counted too.
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_xpfo_kernel_access(struct nxsim_xpfo *m, unsigned int cpu,
				       uint64_t pfn, bool write,
				       enum nxsim_xpfo_access *what);

/**
 * nxsim_xpfo_user_access() - user space on @cpu touches its frame @pfn
 *
 * Return: 0; -EPERM unless @pfn is a user frame of the CPU's domain.
 */
NXSIM_API int nxsim_xpfo_user_access(struct nxsim_xpfo *m, unsigned int cpu,
				     uint64_t pfn, bool write);

/**
 * nxsim_xpfo_context_switch() - switch_mm_irqs_off() to @domain's mm
 * @domain: 0 for a kernel thread (no CR3 change), else a user domain
 *
 * Runs the policy's context-switch hook (a pending "deferred" flush) when
 * the mm changes.  The PCID comes from the CPU's 6-entry ASID cache
 * (TLB_NR_DYN_ASIDS); a cached one is loaded with NOFLUSH.
 *
 * Return: 0; -EINVAL for a bad CPU or a CPU in user mode (switches happen
 * in the kernel).
 */
NXSIM_API int nxsim_xpfo_context_switch(struct nxsim_xpfo *m, unsigned int cpu,
					uint16_t domain);

/**
 * nxsim_xpfo_kernel_enter() - a user-to-kernel entry (syscall, fault, IRQ)
 *
 * Return: 0; -EINVAL if already in kernel mode.
 */
NXSIM_API int nxsim_xpfo_kernel_enter(struct nxsim_xpfo *m, unsigned int cpu);

/**
 * nxsim_xpfo_kernel_exit() - return to user mode
 *
 * Return: 0; -EINVAL if already in user mode or the CPU runs no domain.
 */
NXSIM_API int nxsim_xpfo_kernel_exit(struct nxsim_xpfo *m, unsigned int cpu);

/** nxsim_xpfo_frame() - state of frame @pfn. Return: 0 or -EINVAL. */
NXSIM_API int nxsim_xpfo_frame(struct nxsim_xpfo *m, uint64_t pfn,
			       struct nxsim_xpfo_frame_info *info);

/** nxsim_xpfo_cpu() - state of CPU @cpu. Return: 0 or -EINVAL. */
NXSIM_API int nxsim_xpfo_cpu(struct nxsim_xpfo *m, unsigned int cpu,
			     struct nxsim_xpfo_cpu_info *info);

/**
 * nxsim_xpfo_result() - the machine's counters, oracle and cycles so far
 * (the base_* fields and ratios are left 0).
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_xpfo_result(struct nxsim_xpfo *m,
				struct nxsim_xpfo_result *res);

/**
 * nxsim_xpfo_rates() - the rates of a result
 * @res: what nxsim_xpfo_result() or nxsim_xpfo_run_workload() filled
 * @rates: receives the rates
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_xpfo_rates(const struct nxsim_xpfo_result *res,
			       struct nxsim_xpfo_rates *rates);

/**
 * nxsim_xpfo_tlb() - the machine's TLB, for reading its counters with
 * nxsim_tlb_stats().  Valid until the machine is destroyed.  The machine
 * drives it under the machine's lock, not the TLB's: read it while no
 * other thread runs events on the machine, and do not flush or fill it.
 */
NXSIM_API struct nxsim_tlb *nxsim_xpfo_tlb(const struct nxsim_xpfo *m);

/**
 * nxsim_xpfo_tlb_dump() - nxsim_tlb_dump() of CPU @cpu's TLB, under the
 * machine's lock (safe while other threads run events)
 *
 * Return: as nxsim_tlb_dump(); -EINVAL for a bad @m, @cpu or @fn.
 */
NXSIM_API int64_t nxsim_xpfo_tlb_dump(struct nxsim_xpfo *m, unsigned int cpu,
				      nxsim_tlb_dump_fn fn, void *ctx);

/**
 * nxsim_xpfo_frame_exposure() - exposure windows of frame @pfn (all zero
 * if it was never exposed)
 *
 * Return: 0 or -EINVAL.
 */
NXSIM_API int nxsim_xpfo_frame_exposure(struct nxsim_xpfo *m, uint64_t pfn,
					struct nxsim_xpfo_frame_exposure *x);

/**
 * nxsim_xpfo_worst_frames() - the frames most exposed so far
 * @m: the machine
 * @x: receives up to @n frames with closed windows, largest @sum_ns first
 *	(ties: lower pfn first)
 * @n: room in @x (0 only counts)
 *
 * Return: how many frames have closed windows (may exceed @n); -EINVAL.
 */
NXSIM_API int64_t nxsim_xpfo_worst_frames(struct nxsim_xpfo *m,
					  struct nxsim_xpfo_frame_exposure *x,
					  unsigned int n);

/**
 * nxsim_xpfo_run_workload() - run a synthetic workload twice (with XPFO
 * and without) and fill @res, ratios included.
 *
 * Return: 0; -EINVAL for a bad CPU count, zero or too many events, a bad
 * version; -ENOENT for an unknown workload or policy; -ENOMEM.
 */
NXSIM_API int nxsim_xpfo_run_workload(const struct nxsim_xpfo_run *run,
				      struct nxsim_xpfo_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_XPFO_H */
