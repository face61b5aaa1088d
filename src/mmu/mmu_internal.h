/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU's internal structures (arch/x86/kvm/mmu/mmu_internal.h and the
 * MMU half of struct kvm_arch): page-table pages (struct kvm_mmu_page),
 * the per-VM MMU state, and the possible-NX-huge-page primitives.
 *
 * A page-table page's 512 SPTEs live in a real 4 KiB array.  Its "physical
 * address", which parent SPTEs hold, is a frame number handed out by the
 * VM (NXSIM__SP_PFN_BASE + index into @frames), so dumps are deterministic and
 * spte_to_child_sp() is an array lookup, as pfn_to_page() is.
 */
#ifndef NXSIM_MMU_MMU_INTERNAL_H
#define NXSIM_MMU_MMU_INTERNAL_H

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include "core/compiler.h"
#include "core/rcu.h"

#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "mmu/guest_mem.h"
#include "mmu/memslot.h"
#include "mmu/mmu.h"
#include "mmu/spte.h"

/* Page-table pages get frames above any slot's: hva < 2^47. */
#define NXSIM__SP_PFN_BASE (1ull << 36)

enum nxsim__mmu_type {
	NXSIM__SHADOW_MMU,
	NXSIM__TDP_MMU,
	NXSIM__NR_MMU_TYPES,
};

/**
 * union nxsim__kvm_mmu_page_role - union kvm_mmu_page_role
 *
 * The bits that decide whether two shadow pages are interchangeable: a
 * page is found in the gfn hash only when its whole @word matches.  The
 * layout is the kernel's; cr4/efer bits the model never sets stay 0.
 * @smm is the address space the page maps (1: a vCPU in SMM), for TDP
 * pages too (kvm_mmu_page_as_id()).
 */
union nxsim__kvm_mmu_page_role {
	uint32_t word;
	struct {
		unsigned int level : 4;
		unsigned int has_4_byte_gpte : 1;
		unsigned int quadrant : 2;
		unsigned int direct : 1;
		unsigned int access : 3;
		unsigned int invalid : 1;
		unsigned int efer_nx : 1;
		unsigned int cr0_wp : 1;
		unsigned int smep_andnot_wp : 1;
		unsigned int smap_andnot_wp : 1;
		unsigned int ad_disabled : 1;
		unsigned int guest_mode : 1;
		unsigned int passthrough : 1;
		unsigned int : 5;
		unsigned int smm : 8;
	};
};

/**
 * struct nxsim__kvm_rmap_head - struct kvm_rmap_head
 * @val: 0 (empty), one SPTE pointer (bit 0 clear), or a struct
 *	nxsim__pte_list_desc pointer with bit 0 set
 */
struct nxsim__kvm_rmap_head {
	uintptr_t val;
};

/**
 * struct nxsim__mmu_page - struct kvm_mmu_page
 * @spt: the 512 SPTEs
 * @ptep: the parent SPTE pointing here (TDP), NULL for a root
 * @parent: the page holding @ptep (sptep_to_sp(ptep)), NULL for a root
 * @gfn: first gfn the page maps
 * @link: on vm_mmu->roots (roots only), or on vm_mmu->reserve (freed)
 * @possible_nx_huge_page_link: on a possible_nx_huge_pages list
 * @rcu_head: for tdp_mmu_free_sp_rcu_callback()
 * @mmu: the VM the page belongs to (for the RCU callback)
 * @id: frame index (pfn = NXSIM__SP_PFN_BASE + @id)
 * @root_count: tdp_mmu_root_count (roots only)
 * @nr_leaves: present leaf SPTEs in @spt (kept with the page stats;
 *	atomic: faults under the read lock fill one table together)
 * @level: role.level
 * @direct: role.direct (always, until shadow paging exists)
 * @invalid: role.invalid (roots only)
 * @tdp_mmu_page: made by the TDP MMU
 * @nx_huge_page_disallowed: made because an exec fault could not map huge
 *	(read and written with sp_nx_disallowed() / sp_set_nx_disallowed():
 *	faults under the read lock read it while others write it)
 * @nx_tracked: on a possible_nx_huge_pages list
 * @made_hpd: checker record: made by a fault with huge_page_disallowed
 * @made_req_level: checker record: that fault's req_level
 * @unaccounted: checker record: recovery unaccounted it without zapping
 *
 * Shadow MMU pages (src/mmu/shadow_mmu.c) also use:
 * @role: the full role; @level, @direct and @invalid mirror role.level,
 *	role.direct and role.invalid so that code shared with the TDP MMU
 *	reads one field for both
 * @parent_ptes: rmap of the SPTEs pointing here (@ptep and @parent stay
 *	NULL: a shadow page may have several parents)
 * @hash_link: on its bucket of vm_mmu->mmu_page_hash
 * @shadowed_translation: indirect pages only: gfn << 12 | access of each
 *	entry (kvm_mmu_page_get_gfn()); NULL for direct pages
 * @mmu_valid_gen: the generation it was made in (is_obsolete_sp())
 * (@link is then on vm_mmu->active_mmu_pages, newest first, or on an
 * invalid list between prepare and commit)
 * @nx_flag_pending: checker record: its fault decided to flag it but had
 *	not yet (only NXSIM_BUG_TDP_FLAG_AFTER_LINK publishes it so)
 * @removed: checker record: handle_removed_pt() took it out of the tables
 * @unsync: a 4K guest table the guest may write without a trap, its
 *	SPTEs out of date until the guest flushes its TLB (kvm_unsync_page())
 * @unsync_children: how many bits of @unsync_child_bitmap are set
 * @unsync_child_bitmap: the SPTEs leading to unsync pages (mark_unsync())
 * @write_flooding_count: emulated guest writes to its table since a fault
 *	last walked through it (detect_write_flooding(); under mmu_lock
 *	for write, so not atomic here)
 */
struct nxsim__mmu_page {
	uint64_t *spt;
	uint64_t *ptep;
	struct nxsim__mmu_page *parent;
	uint64_t gfn;
	TAILQ_ENTRY(nxsim__mmu_page) link;
	TAILQ_ENTRY(nxsim__mmu_page) possible_nx_huge_page_link;
	union nxsim__kvm_mmu_page_role role;
	struct nxsim__kvm_rmap_head parent_ptes;
	LIST_ENTRY(nxsim__mmu_page) hash_link;
	uint64_t *shadowed_translation;
	uint8_t mmu_valid_gen;
	struct rcu_head rcu_head;
	struct nxsim__vm_mmu *mmu;
	uint32_t id;
	uint32_t root_count;
	uint16_t nr_leaves;
	uint8_t level;
	bool direct;
	bool invalid;
	bool tdp_mmu_page;
	bool nx_huge_page_disallowed;
	bool nx_tracked;
	bool made_hpd;
	uint8_t made_req_level;
	bool unaccounted;
	bool nx_flag_pending;
	bool removed;
	bool unsync;
	uint8_t write_flooding_count;
	uint16_t unsync_children;
	uint64_t unsync_child_bitmap[SPTE_ENT_PER_PAGE / 64];
};

static inline bool sp_nx_disallowed(const struct nxsim__mmu_page *sp)
{
	return __atomic_load_n(&sp->nx_huge_page_disallowed, __ATOMIC_RELAXED);
}

static inline void sp_set_nx_disallowed(struct nxsim__mmu_page *sp, bool v)
{
	__atomic_store_n(&sp->nx_huge_page_disallowed, v, __ATOMIC_RELAXED);
}

TAILQ_HEAD(nxsim__sp_list, nxsim__mmu_page);
LIST_HEAD(nxsim__sp_hlist, nxsim__mmu_page);

/* KVM_MMU_HASH_SHIFT */
#define NXSIM__MMU_HASH_SHIFT 12
#define NXSIM__MMU_HASH_SIZE (1u << NXSIM__MMU_HASH_SHIFT)

/*
 * The pte_list_desc cache: 1 rmap, 1 parent PTE per level and the
 * prefetched rmaps (mmu_topup_memory_caches(); PT64_ROOT_MAX_LEVEL 5,
 * PTE_PREFETCH_NUM 8).
 */
#define NXSIM__PTE_PREFETCH_NUM 8
#define NXSIM__DESC_CACHE_MIN (1 + 5 + NXSIM__PTE_PREFETCH_NUM)

struct nxsim__pte_list_desc;

/*
 * stat.pages[] is one atomic64_t per level in the kernel
 * (kvm_update_page_stats()).  Here each CPU adds to a shard of its own
 * (sched_getcpu() modulo the number of shards, a cache line each), as a
 * percpu_counter would, and readers add the shards up (under the write
 * lock, so the sum is exact): faults of two vCPUs on two CPUs no longer
 * move one line between them at every leaf they map.  Callers see the
 * kernel's values; an add stays atomic, as a thread may move to another
 * CPU between sched_getcpu() and the add.
 */
#define NXSIM__PAGE_STAT_SHARDS 8

struct nxsim__page_stat_shard {
	uint64_t pages[3];
} ____cacheline_aligned;

/* One frame of page-table memory: its page, or (free) the next free one. */
struct nxsim__frame {
	struct nxsim__mmu_page *sp;
	uint32_t next_free;
};

#define NXSIM__NO_FRAME UINT32_MAX

/*
 * Frames live in chunks that never move, so that a walker under the read
 * lock can look a frame up while another thread adds one: at most
 * NXSIM__FRAME_CHUNKS * NXSIM__FRAME_CHUNK frames (4 GiB of page tables).
 */
#define NXSIM__FRAME_CHUNK 4096u
#define NXSIM__FRAME_CHUNKS 256u

/**
 * struct nxsim__possible_nx - kvm->arch.possible_nx_huge_pages[type]
 * @pages: the list, oldest first
 * @nr_pages: the kernel's count (NXSIM_BUG_UNTRACK_WRONG_TYPE makes it wrong)
 * @len: entries really on @pages (the simulator's own count)
 */
struct nxsim__possible_nx {
	struct nxsim__sp_list pages;
	uint64_t nr_pages;
	uint64_t len;
};

/*
 * Freed page-table pages a VM keeps for its next allocations, as many as a
 * kvm_mmu_memory_cache holds (KVM_ARCH_NR_OBJS_PER_MEMORY_CACHE); the
 * rest go back to the allocator.
 */
#define NXSIM__SP_RESERVE_MAX 40

/* A violation seen by the fault or recovery path, kept for the checker. */
#define NXSIM__MAX_EVENTS 8

/**
 * struct nxsim__vm_mmu - the MMU half of struct kvm and struct kvm_arch
 * @prof: the tree's MMU behaviours
 * @bugs: NXSIM_BUG_* switches
 * @params: the module parameters (read with READ_ONCE())
 * @mmu_lock: kvm->mmu_lock; on a cache line of its own, as is @pages: every
 *	fault of every vCPU writes both, and the fields every fault reads
 *	(the profile, the parameters, the root, the slots) would otherwise
 *	move between cores with them (allocated with that alignment)
 * @disable_nx_huge_pages: kvm->arch.disable_nx_huge_pages (READ_ONCE())
 * @fmt: SPTE format (EPT or NPT, from the host CPU)
 * @root_level: 4 or 5
 * @max_huge_level: max_huge_page_level (1G unless no_gbpages)
 * @phys_bits: guest MAXPHYADDR
 * @mmu_valid_gen: flipped by each fast zap
 * @memslots_gen: __kvm_memslots(kvm, as_id)->generation per address
 *	space, with KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS while slots change;
 *	written under slots_lock and mmu_lock, read under either
 * @mmio: the host's MMIO SPTE masks and enable_mmio_caching
 * @roots: tdp_mmu_roots, valid and invalid, of both address spaces
 * @root: the vCPUs' current root per address space (role.smm), NULL until
 *	the first fault in that space after a zap
 * @pae_root: mmu->pae_root with TDP off and a PAE guest: the level-2
 *	shadow page each of the four shadow PDPTEs points at, NULL where the
 *	guest's PDPTE is not present (INVALID_PAE_ROOT); @root[0] is NULL
 *	while they are loaded (shadow paging keeps to address space 0)
 * @nx: possible_nx_huge_pages; one list ([0]) before per-type lists
 * @tdp_mmu_pages_lock: protects @nx and the flags of TDP SPs
 * @page_stats: stat.pages[level - 1], in per-CPU shards
 *	(nxsim__page_stat() adds them up)
 * @nx_lpage_splits: stat.nx_lpage_splits
 * @slots: memory slots per address space, by base gfn
 * @nr_memslots_dirty_logging: slots with dirty logging on, in any space
 * @pages_alloc_lock: the page allocator's lock (the kernel's slab and
 *	buddy allocator): @frame_chunk, @nr_frames, @free_frame, @reserve,
 *	@nr_reserve
 * @frame_chunk: frame index -> page-table page, or the next free index,
 *	NXSIM__FRAME_CHUNK frames per chunk; the table of NXSIM__FRAME_CHUNKS
 *	chunks is made with the first frame (an idle VM has none)
 * @nr_frames: entries handed out so far
 * @free_frame: first free entry, or NXSIM__NO_FRAME
 * @nr_sps: page-table pages allocated: in the tables, in vCPU caches and
 *	waiting for their RCU grace period (atomic)
 * @nr_cached: of those, pages in vCPU caches (atomic)
 * @nr_rcu_pending: of those, pages waiting for their grace period (atomic)
 * @reserve: freed page-table pages (table and header) kept for reuse,
 *	newest first
 * @nr_reserve: entries on @reserve
 * @mmu_invalidate_seq: kvm->mmu_invalidate_seq (bumped at the end of an
 *	MMU-notifier invalidation, under the write lock)
 * @mmu_invalidate_in_progress: kvm->mmu_invalidate_in_progress
 * @mmu_invalidate_range_start: kvm->mmu_invalidate_range_start (gfn)
 * @mmu_invalidate_range_end: kvm->mmu_invalidate_range_end (gfn, exclusive)
 * @sched: the scheduling hook (tests), NULL if none
 * @sched_ctx: its argument
 * @fault_retries: faults that returned RET_PF_RETRY (atomic)
 * @counters: simulator counters (atomic increments); a fault's own go to
 *	its vCPU's (VCPU_COUNT())
 * @vcpus: the vCPUs' MMU halves, newest first, whose counters the reads
 *	add; linked under the write lock
 * @flush_vcpus: struct nxsim__mmu_config's, to reach the vCPUs
 * @flush_ctx: its context
 * @events: checker records not yet reported
 * @gmem: guest memory: the written pages behind the slots (guest_mem.c)
 * @amd: the CPU (and so the guest's CPUID) is AMD's: guest reserved bits
 * @tdp_mmu_enabled: kvm->arch.tdp_mmu_enabled: the TDP MMU maps faults;
 *	otherwise the shadow MMU does, and memslots have rmaps
 * @active_mmu_pages: shadow pages, newest first (FIFO for the fast zap)
 * @mmu_page_hash: shadow pages by gfn (kvm->arch.mmu_page_hash)
 * @n_used_mmu_pages: shadow pages on @active_mmu_pages or being zapped
 * @indirect_shadow_pages: kvm->arch.indirect_shadow_pages
 * @nr_unsync: unsync shadow pages now (stat.mmu_unsync)
 * @desc_cache: pre-allocated rmap descriptors (mmu_pte_list_desc_cache)
 * @nr_desc_cache: entries in @desc_cache
 * @nr_descs: rmap descriptors in use (the checker counts them)
 * @shadowed_info_cache: shadowed_translation arrays for indirect pages
 *	(mmu_shadowed_info_cache, topped up when a fault may be indirect)
 * @nr_info_cache: entries in @shadowed_info_cache
 * @invalid_list: shadow pages prepared for zap and not committed; empty
 *	between operations unless a bug left them (the kernel's invalid_list
 *	lives on the stack of each operation)
 * @resched_pending: need_resched(): with @sched set, the recovery pass
 *	breaks the lock at its next break point, runs the hook there
 *	(NXSIM__SCHED_RESCHED) and clears it (set by a test, as the scheduler
 *	sets TIF_NEED_RESCHED)
 * @nr_events: how many (may exceed NXSIM__MAX_EVENTS; the rest are counted;
 *	slots are claimed atomically)
 * @free_obsolete_roots: KVM_REQ_MMU_FREE_OBSOLETE_ROOTS is pending on the
 *	vCPUs (one flag: the VM has one current root per address space)
 */
struct nxsim__vm_mmu {
	const struct nxsim__mmu_profile *prof;
	uint64_t bugs;
	const struct nxsim__nx_params *params;
	struct nxsim__rwlock mmu_lock ____cacheline_aligned;
	bool disable_nx_huge_pages ____cacheline_aligned;
	enum nxsim_spte_format fmt;
	int root_level;
	int max_huge_level;
	unsigned int phys_bits;
	uint8_t mmu_valid_gen;
	uint64_t memslots_gen[KVM_ADDRESS_SPACE_NUM];
	struct nxsim__mmio_masks mmio;
	struct nxsim__sp_list roots;
	struct nxsim__mmu_page *root[KVM_ADDRESS_SPACE_NUM];
	struct nxsim__mmu_page *pae_root[4];
	struct nxsim__possible_nx nx[NXSIM__NR_MMU_TYPES];
	pthread_mutex_t tdp_mmu_pages_lock;
	struct nxsim__page_stat_shard page_stats[NXSIM__PAGE_STAT_SHARDS];
	uint64_t nx_lpage_splits;
	struct nxsim__slot_list
		slots[KVM_ADDRESS_SPACE_NUM] ____cacheline_aligned;
	unsigned int nr_memslots_dirty_logging;
	uint64_t manual_dirty_log_protect;
	pthread_mutex_t pages_alloc_lock;
	struct nxsim__frame **frame_chunk;
	uint32_t nr_frames;
	uint32_t free_frame;
	uint64_t nr_sps;
	uint64_t nr_cached;
	uint64_t nr_rcu_pending;
	struct nxsim__sp_list reserve;
	unsigned int nr_reserve;
	unsigned long mmu_invalidate_seq;
	long mmu_invalidate_in_progress;
	uint64_t mmu_invalidate_range_start;
	uint64_t mmu_invalidate_range_end;
	nxsim__sched_fn sched;
	void *sched_ctx;
	uint64_t fault_retries;
	struct nxsim_mmu_counters counters;
	struct nxsim__vcpu_mmu *vcpus;
	nxsim__flush_vcpus_fn flush_vcpus;
	void *flush_ctx;
	char events[NXSIM__MAX_EVENTS][160];
	unsigned int nr_events;
	struct nxsim__guest_mem gmem;
	bool amd;
	bool tdp_mmu_enabled;
	struct nxsim__sp_list active_mmu_pages;
	struct nxsim__sp_hlist *mmu_page_hash;
	uint64_t n_used_mmu_pages;
	uint64_t indirect_shadow_pages;
	uint64_t nr_unsync;
	struct nxsim__pte_list_desc *desc_cache[NXSIM__DESC_CACHE_MIN];
	unsigned int nr_desc_cache;
	uint64_t nr_descs;
	uint64_t *shadowed_info_cache[5];
	unsigned int nr_info_cache;
	struct nxsim__sp_list invalid_list;
	bool resched_pending;
	bool free_obsolete_roots;
};

/* mmu_lock for read (@shared) or write. */
static inline void nxsim__mmu_lock(struct nxsim__vm_mmu *mmu, bool shared)
{
	if (shared)
		nxsim__read_lock(&mmu->mmu_lock);
	else
		nxsim__write_lock(&mmu->mmu_lock);
}

/* The frame entry of index @id (allocated). */
static inline struct nxsim__frame *nxsim__frame(struct nxsim__vm_mmu *mmu,
						uint32_t id)
{
	return &mmu->frame_chunk[id / NXSIM__FRAME_CHUNK]
				[id % NXSIM__FRAME_CHUNK];
}

/* An atomic increment of a simulator counter. */
#define MMU_COUNT(mmu, field) \
	__atomic_fetch_add(&(mmu)->counters.field, 1, __ATOMIC_RELAXED)

/*
 * An increment of a counter of the vCPU whose fault this is (++vcpu->stat.x
 * in the kernel): a plain add, as only the holder of vcpu->mutex writes it;
 * relaxed atomics because readers on other threads sum it.  No locked
 * instruction and no line shared with other vCPUs, so faults of two vCPUs
 * do not contend here.
 */
static inline void nxsim__vcpu_stat_inc(uint64_t *v)
{
	__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

#define VCPU_COUNT(vcpu, field) nxsim__vcpu_stat_inc(&(vcpu)->stat.field)

/*
 * kvm_update_page_stats(): stat.pages[level - 1] += @delta, in the shard
 * of the CPU this thread runs on (shard 0 if sched_getcpu() fails).
 */
static inline void nxsim__update_page_stats(struct nxsim__vm_mmu *mmu,
					    int level, int64_t delta)
{
	int cpu = sched_getcpu();
	unsigned int i =
		cpu >= 0 ? (unsigned int)cpu % NXSIM__PAGE_STAT_SHARDS : 0;

	/* leaves are 4K, 2M or 1G: a root's table never counts here */
	assert(level >= NXSIM_PG_LEVEL_4K && level <= NXSIM_PG_LEVEL_1G);
	__atomic_fetch_add(&mmu->page_stats[i].pages[level - 1],
			   (uint64_t)delta, __ATOMIC_RELAXED);
}

/*
 * stat.pages[level - 1]: the shards' sum, exact under the write lock (no
 * fault is adding); a shard alone may have wrapped below zero.
 */
static inline uint64_t nxsim__page_stat(const struct nxsim__vm_mmu *mmu,
					int level)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < NXSIM__PAGE_STAT_SHARDS; i++)
		sum += __atomic_load_n(&mmu->page_stats[i].pages[level - 1],
				       __ATOMIC_RELAXED);
	return sum;
}

/*
 * A scheduling point: the hook, if a test set one, may run other threads'
 * steps here before this one goes on.
 */
static inline void nxsim__sched_point(struct nxsim__vm_mmu *mmu,
				      enum nxsim__sched_point p, uint64_t gfn,
				      int level)
{
	if (mmu->sched)
		mmu->sched(mmu->sched_ctx, p, gfn, level);
}

/* kvm_mmu_page_as_id(): the address space of @sp's memslots. */
static inline int kvm_mmu_page_as_id(const struct nxsim__mmu_page *sp)
{
	return sp->role.smm;
}

static inline uint64_t sp_pfn(const struct nxsim__mmu_page *sp)
{
	return NXSIM__SP_PFN_BASE + sp->id;
}

/* Index of @gfn in a table at @level (SPTE_INDEX()). */
static inline unsigned int spte_index(uint64_t gfn, int level)
{
	return (gfn >> ((level - 1) * 9)) & (SPTE_ENT_PER_PAGE - 1);
}

static inline bool nxsim__mmu_has_bug(const struct nxsim__vm_mmu *mmu,
				      enum nxsim_bug bug)
{
	return (mmu->bugs & bug) != 0;
}

/* Record a checker event (printf-style). */
void nxsim__mmu_event(struct nxsim__vm_mmu *mmu, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* kvm_flush_remote_tlbs(): a remote TLB flush of every vCPU of the VM. */
void nxsim__kvm_flush_remote_tlbs(struct nxsim__vm_mmu *mmu);
/*
 * kvm_flush_remote_tlbs_range() (6.6; kvm_flush_remote_tlbs_with_address()
 * in 6.1): the same flush, naming @pages from @gfn.
 */
void nxsim__kvm_flush_remote_tlbs_range(struct nxsim__vm_mmu *mmu, uint64_t gfn,
					uint64_t pages);

/*
 * kvm_mmu_invalidate_mmio_sptes(): the memslots generation became @gen;
 * zap everything when the MMIO generation wrapped.  Called with slots_lock
 * held, mmu_lock not.
 */
void nxsim__kvm_mmu_invalidate_mmio_sptes(struct nxsim__vm_mmu *mmu,
					  uint64_t gen);

/* ---- mmu.c: track / untrack --------------------------------------------- */

/* The list a type uses: per-type lists (6.18) or the single list. */
struct nxsim__possible_nx *nxsim__nx_list(struct nxsim__vm_mmu *mmu,
					  enum nxsim__mmu_type type);
/* track_possible_nx_huge_page() */
void nxsim__track_possible_nx_huge_page(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp,
					enum nxsim__mmu_type type);
/* untrack_possible_nx_huge_page() */
void nxsim__untrack_possible_nx_huge_page(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp,
					  enum nxsim__mmu_type type);

/* ---- tdp_mmu.c: page tables --------------------------------------------- */

/* The SP a present non-leaf SPTE points to (spte_to_child_sp()). */
static inline struct nxsim__mmu_page *
spte_to_child_sp(struct nxsim__vm_mmu *mmu, uint64_t spte)
{
	uint64_t idx = spte_to_pfn(spte) - NXSIM__SP_PFN_BASE;
	struct nxsim__mmu_page *sp;

	assert(idx < NXSIM__FRAME_CHUNK * NXSIM__FRAME_CHUNKS);
	sp = nxsim__frame(mmu, (uint32_t)idx)->sp;
	assert(sp);
	return sp;
}
/*
 * tdp_mmu_alloc_sp(), taking a page from @reserve first, with its frame,
 * counted in nr_cached (the caller puts it in a vCPU's cache); NULL on
 * -ENOMEM.  Level and gfn are set when the page leaves the cache
 * (tdp_mmu_init_child_sp(), nxsim__kvm_tdp_mmu_get_vcpu_root_hpa()).  The
 * SPTEs are not set: the user fills them (nxsim__sp_clear() or a split),
 * as the kernel's page cache hands out pages filled with the non-present
 * value.
 */
struct nxsim__mmu_page *nxsim__tdp_mmu_alloc_sp(struct nxsim__vm_mmu *mmu);
/* Fill @sp with SHADOW_NONPRESENT_VALUE. */
void nxsim__sp_clear(struct nxsim__mmu_page *sp);
/*
 * tdp_mmu_free_sp() of the newest page in @mc: onto @reserve while it has
 * room, else freed; at once, as no walker can see it.  Pages that left
 * the tables go back after their grace period instead
 * (tdp_mmu_free_sp_rcu_callback()).
 */
void nxsim__tdp_mmu_free_cached_sp(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc);
/*
 * A page that left the tables goes back after an RCU grace period
 * (call_rcu() of tdp_mmu_free_sp_rcu_callback()), since the lockless
 * hardware walk may still read it.  The shadow MMU's pages go this way
 * too: in the kernel, kvm_mmu_commit_zap_page()'s remote flush waits for
 * lockless walkers (they run with interrupts off); RCU stands in for that.
 */
void nxsim__mmu_free_sp_after_grace_period(struct nxsim__vm_mmu *mmu,
					   struct nxsim__mmu_page *sp);
/* Free reserved pages until @keep are left. */
void nxsim__tdp_mmu_trim_reserve(struct nxsim__vm_mmu *mmu, unsigned int keep);
/*
 * tdp_mmu_set_spte() + handle_changed_spte(): install @new at @sptep, an
 * entry of @sp, keeping the page stats and tearing down a page table the
 * old value pointed to; mmu_lock held for write.
 */
void nxsim__tdp_mmu_set_spte(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp, uint64_t *sptep,
			     uint64_t new);
/*
 * tdp_mmu_set_spte_atomic(): the same with mmu_lock held for read: @new
 * goes in only if *@sptep is still *@old.  Return: 0, or -EBUSY with *@old
 * updated to the value found (the caller retries or gives up).
 */
int nxsim__tdp_mmu_set_spte_atomic(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp, uint64_t *sptep,
				   uint64_t *old, uint64_t new);
/*
 * tdp_mmu_zap_spte_atomic(): freeze the SPTE (so nobody installs anything
 * while the TLBs may still hold the old translation), flush, then clear
 * it; the flush covers the SPTE's range (kvm_flush_remote_tlbs_range()).
 * -EBUSY if the SPTE changed since *@old was read.  Exclusive
 * (@shared false): clear and flush.
 */
int nxsim__tdp_mmu_zap_spte_atomic(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp, uint64_t *sptep,
				   uint64_t *old, bool shared);
/*
 * kvm_tdp_mmu_get_vcpu_root_hpa(): make @sp (from the cache) the root of
 * address space @as_id (role.smm).
 */
void nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp,
					  int as_id);
/* kvm_tdp_mmu_invalidate_all_roots() + zap them + free them. */
void nxsim__tdp_mmu_zap_all_roots(struct nxsim__vm_mmu *mmu);
/*
 * kvm_tdp_mmu_zap_sp() / kvm_tdp_mmu_zap_possible_nx_huge_page(): zap the
 * parent SPTE if it still points at @sp; with @shared (read lock, 6.18)
 * by an atomic update, which fails if another thread changed it.
 */
bool nxsim__kvm_tdp_mmu_zap_sp(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp, bool shared);
/*
 * tdp_mmu_zap_leafs() over [start, end) in every root of @as_id: whether
 * any went.
 */
bool nxsim__kvm_tdp_mmu_zap_leafs(struct nxsim__vm_mmu *mmu, int as_id,
				  uint64_t start, uint64_t end);
/*
 * Dirty logging turned on: kvm_mmu_slot_leaf_clear_dirty() (PML) and
 * kvm_mmu_slot_remove_write_access().
 */
void nxsim__tdp_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot);
/*
 * kvm_tdp_mmu_try_split_huge_pages(): eager page splitting of the huge
 * SPTEs mapping [start, end) in the roots of @slot's address space, down
 * to @target_level, under mmu_lock held for read (@shared) or write, in
 * rcu_read_lock().  A page the split cannot get (both allocations of
 * tdp_mmu_alloc_sp_for_split() failed) ends the whole split; mmu_lock may
 * be dropped and taken again to allocate.  No TLB flush: the split SPTEs
 * map what the huge one did.
 */
void nxsim__kvm_tdp_mmu_try_split_huge_pages(struct nxsim__vm_mmu *mmu,
					     const struct nxsim__memslot *slot,
					     uint64_t start, uint64_t end,
					     int target_level, bool shared);
/*
 * kvm_dirty_log_manual_protect_and_init_set(): KVM_DIRTY_LOG_INITIALLY_SET
 * in the VM's KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 options.
 */
static inline bool
nxsim__kvm_dirty_log_manual_protect_and_init_set(struct nxsim__vm_mmu *mmu)
{
	return __atomic_load_n(&mmu->manual_dirty_log_protect,
			       __ATOMIC_RELAXED) &
	       NXSIM_DIRTY_LOG_INITIALLY_SET;
}

/*
 * kvm_tdp_mmu_clear_dirty_pt_masked(): the 4K leaves of the gfns
 * @gfn + bit of @mask lose D (PML) or, with @wrprot, W; mmu_lock held for
 * write.
 */
void nxsim__kvm_tdp_mmu_clear_dirty_pt_masked(struct nxsim__vm_mmu *mmu,
					      const struct nxsim__memslot *slot,
					      uint64_t gfn, uint64_t mask,
					      bool wrprot);
/*
 * kvm_tdp_mmu_write_protect_gfn(): the leaf of @gfn at @min_level or
 * above loses W and MMU-writable; Return: true if an SPTE changed.
 */
bool nxsim__kvm_tdp_mmu_write_protect_gfn(struct nxsim__vm_mmu *mmu,
					  const struct nxsim__memslot *slot,
					  uint64_t gfn, int min_level);

/* Dirty logging turned off: zap collapsible SPTEs or recover in place. */
void nxsim__tdp_mmu_collapse_slot(struct nxsim__vm_mmu *mmu,
				  const struct nxsim__memslot *slot);
/* Free the frame chunks (at VM teardown, after zapping). */
void nxsim__tdp_mmu_release(struct nxsim__vm_mmu *mmu);
/* The same while no page is allocated (a failed first topup); locked. */
void nxsim__tdp_mmu_release_unused(struct nxsim__vm_mmu *mmu);

/* ---- mmu.c: the fault path ---------------------------------------------- */

/**
 * struct nxsim__kvm_page_fault - the fields of struct kvm_page_fault used
 * @gfn: the faulting gfn
 * @pfn: the host pfn, rounded down to @goal_level
 * @exec: an instruction fetch
 * @write: a write
 * @nx_huge_page_workaround_enabled: is_nx_huge_page_enabled() at the fault
 * @huge_page_disallowed: an exec fault with the workaround on
 * @map_writable: the slot is writable
 * @max_level: the largest level asked for
 * @req_level: the level the slot and the host allow
 * @goal_level: the level mapped
 * @as_id: the vCPU's address space (1 in SMM): its root and slots
 * @slot: the memslot holding @gfn; NULL for MMIO (KVM_PFN_NOSLOT)
 * @is_tdp: the fault comes from the TDP fault path (kvm_tdp_page_fault())
 * @mmio_gen: for MMIO, the vCPU's memslots generation at the fault
 */
struct nxsim__kvm_page_fault {
	uint64_t gfn;
	uint64_t pfn;
	bool exec;
	bool write;
	bool nx_huge_page_workaround_enabled;
	bool huge_page_disallowed;
	bool map_writable;
	int max_level;
	int req_level;
	int goal_level;
	int as_id;
	const struct nxsim__memslot *slot;
	bool is_tdp;
	uint64_t mmio_gen;
};

/*
 * mmu_topup_memory_caches(): page-table pages in the vCPU's cache @mc for
 * a walk from the root of @as_id (and the root if there is none), and
 * rmap descriptors for the shadow MMU (under mmu_lock held for write: that
 * cache is the VM's).  0 or -ENOMEM (nothing taken).
 */
int nxsim__mmu_topup_memory_caches(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc,
				   int as_id);
/*
 * nonpaging_page_fault(): a guest access with guest paging off and TDP
 * off (the gva is the gpa): the direct map from the VM's direct root, at
 * most 2M, not a TDP fault.  Called with mmu_lock held for write.
 */
int nxsim__nonpaging_page_fault(struct nxsim__vm_mmu *mmu,
				struct nxsim__vcpu_mmu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				struct nxsim_access_info *info);

/* kvm_mmu_max_mapping_level() */
int nxsim__kvm_mmu_max_mapping_level(struct nxsim__vm_mmu *mmu,
				     const struct nxsim__memslot *slot,
				     uint64_t gfn, int max_level);
/*
 * kvm_mmu_hugepage_adjust(): sets @f->req_level and @f->goal_level (and
 * rounds @f->pfn down to it) from the slot, lpage_info and the host level;
 * an MMIO fault (no slot) stays at 4K.
 */
void nxsim__kvm_mmu_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				    struct nxsim__kvm_page_fault *f);
/*
 * disallowed_hugepage_adjust(): at @cur_level, step @f->goal_level down one
 * level when @spte is a present table that an NX split left (any table
 * before 76901e56fb51, a flagged one after).
 */
void nxsim__disallowed_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				       struct nxsim__kvm_page_fault *f,
				       uint64_t spte, int cur_level);

/* ---- tdp_mmu.c: the map ------------------------------------------------- */

/* The page-fault return codes (enum of arch/x86/kvm/mmu/mmu_internal.h). */
enum {
	RET_PF_CONTINUE = 0,
	RET_PF_RETRY,
	RET_PF_EMULATE,
	RET_PF_FIXED,
	RET_PF_SPURIOUS,
};

/*
 * A page out of a vCPU's cache into the tables, or back (a failed link);
 * with mmu_lock held, so the checker sees the counts agree.
 */
static inline struct nxsim__mmu_page *
nxsim__mmu_cache_pop(struct nxsim__vm_mmu *mmu,
		     struct nxsim__mmu_memory_cache *mc)
{
	__atomic_fetch_sub(&mmu->nr_cached, 1, __ATOMIC_RELAXED);
	return mc->objs[--mc->nobjs];
}

static inline void nxsim__mmu_cache_push(struct nxsim__vm_mmu *mmu,
					 struct nxsim__mmu_memory_cache *mc,
					 struct nxsim__mmu_page *sp)
{
	__atomic_fetch_add(&mmu->nr_cached, 1, __ATOMIC_RELAXED);
	mc->objs[mc->nobjs++] = sp;
}

/*
 * kvm_tdp_mmu_map() with tdp_mmu_map_handle_target_level(): walk from the
 * root to @f->goal_level, making or splitting tables on the way (from the
 * vCPU's topped-up cache @mc), and install the leaf, or an MMIO SPTE for a
 * fault without a slot (outcome EMULATE); with the profile's
 * fault_read_lock, under mmu_lock held for read and rcu_read_lock(),
 * every SPTE change by compare-and-exchange.  Fills @info's outcome, level
 * and split/zap counts.  Return: RET_PF_FIXED, RET_PF_SPURIOUS, or
 * RET_PF_RETRY (an SPTE was frozen or changed under the walk).
 */
int nxsim__kvm_tdp_mmu_map(struct nxsim__vm_mmu *mmu,
			   struct nxsim__mmu_memory_cache *mc,
			   struct nxsim__kvm_page_fault *f,
			   struct nxsim_access_info *info);

/* ---- rmap.c: reverse maps ---------------------------------------------- */

/*
 * An SPTE's address as rmaps keep it: its page's frame (plus one, so that
 * no reference is 0) and its index, shifted left once (bit 0 of a
 * struct nxsim__kvm_rmap_head tells a descriptor chain).
 */
static inline uintptr_t sptep_ref(const struct nxsim__mmu_page *sp,
				  unsigned int idx)
{
	return ((uintptr_t)(sp->id + 1ull) << 10) | ((uintptr_t)idx << 1);
}

/* sptep_to_sp() */
static inline struct nxsim__mmu_page *ref_to_sp(struct nxsim__vm_mmu *mmu,
						uintptr_t ref)
{
	return nxsim__frame(mmu, (uint32_t)((ref >> 10) - 1))->sp;
}

/* spte_index(sptep) */
static inline unsigned int ref_index(uintptr_t ref)
{
	return (ref >> 1) & (SPTE_ENT_PER_PAGE - 1);
}

static inline uint64_t *ref_to_sptep(struct nxsim__vm_mmu *mmu, uintptr_t ref)
{
	return &ref_to_sp(mmu, ref)->spt[ref_index(ref)];
}

/* struct rmap_iterator */
struct nxsim__rmap_iterator {
	struct nxsim__pte_list_desc *desc;
	int pos;
};

/* Fill the descriptor cache (0 or -ENOMEM, taking back what it took). */
int nxsim__mmu_topup_desc_cache(struct nxsim__vm_mmu *mmu);
void nxsim__mmu_free_desc_cache(struct nxsim__vm_mmu *mmu);
/* pte_list_add(): Return: entries there were before. */
int nxsim__pte_list_add(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			struct nxsim__kvm_rmap_head *rmap_head);
/* pte_list_remove(): @spte must be on the list. */
void nxsim__pte_list_remove(struct nxsim__vm_mmu *mmu, uintptr_t spte,
			    struct nxsim__kvm_rmap_head *rmap_head);
/* pte_list_count() */
unsigned int nxsim__pte_list_count(const struct nxsim__kvm_rmap_head *head);
/* rmap_get_first(), rmap_get_next(): 0 ends the walk. */
uintptr_t nxsim__rmap_get_first(const struct nxsim__kvm_rmap_head *head,
				struct nxsim__rmap_iterator *iter);
uintptr_t nxsim__rmap_get_next(struct nxsim__rmap_iterator *iter);
/* sizeof(struct pte_list_desc) */
size_t nxsim__pte_list_desc_size(void);

#define for_each_rmap_spte(head, iter, ref)                        \
	for ((ref) = nxsim__rmap_get_first((head), (iter)); (ref); \
	     (ref) = nxsim__rmap_get_next(iter))

/* ---- page_track.c ------------------------------------------------------ */

/* kvm_slot_page_track_add_page(..., KVM_PAGE_TRACK_WRITE) */
void nxsim__kvm_slot_page_track_add_page(struct nxsim__vm_mmu *mmu,
					 struct nxsim__memslot *slot,
					 uint64_t gfn);
/* kvm_slot_page_track_remove_page(..., KVM_PAGE_TRACK_WRITE) */
void nxsim__kvm_slot_page_track_remove_page(struct nxsim__vm_mmu *mmu,
					    struct nxsim__memslot *slot,
					    uint64_t gfn);
/* kvm_slot_page_track_is_active(..., KVM_PAGE_TRACK_WRITE) */
bool nxsim__kvm_slot_page_track_is_active(const struct nxsim__memslot *slot,
					  uint64_t gfn);

/* ---- shadow_mmu.c: shadow pages ---------------------------------------- */

/* Allocate the gfn hash (kvm_mmu_init_vm()); 0 or -ENOMEM. */
int nxsim__shadow_mmu_init_vm(struct nxsim__vm_mmu *mmu);
/* Free the gfn hash, after kvm_mmu_zap_all(). */
void nxsim__shadow_mmu_uninit_vm(struct nxsim__vm_mmu *mmu);
/*
 * Fill the shadowed_translation cache (PT64_ROOT_MAX_LEVEL arrays), for a
 * fault that may make indirect pages.  0 or -ENOMEM; on -ENOMEM the
 * cache is as it was.
 */
int nxsim__mmu_topup_shadowed_info_cache(struct nxsim__vm_mmu *mmu);
void nxsim__mmu_free_shadowed_info_cache(struct nxsim__vm_mmu *mmu);

/* Some pae_root entry is loaded (a PAE or 32-bit guest's roots). */
static inline bool nxsim__pae_roots_loaded(const struct nxsim__vm_mmu *mmu)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mmu->pae_root); i++)
		if (mmu->pae_root[i])
			return true;
	return false;
}

/* is_obsolete_sp() */
bool nxsim__is_obsolete_sp(const struct nxsim__vm_mmu *mmu,
			   const struct nxsim__mmu_page *sp);
struct nxsim__kvm_mmu;
/*
 * kvm_mmu_get_shadow_page(): the valid page of @gfn and @role from the
 * hash, or a new one from the cache (kvm_mmu_alloc_shadow_page(), which
 * write-protects @gfn for an indirect page: account_shadowed()).  A found
 * unsync page is synced against the guest MMU @m (kvm_sync_page(); zapped
 * and made anew if that fails); unsync pages of @gfn are zapped when it
 * becomes a table above 4K.  @m is NULL for direct pages.
 */
struct nxsim__mmu_page *
nxsim__kvm_mmu_get_shadow_page(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_memory_cache *mc,
			       const struct nxsim__kvm_mmu *m, uint64_t gfn,
			       union nxsim__kvm_mmu_page_role role);
/*
 * kvm_mmu_get_child_sp(): the page for the child of the SPTE @parent_sp
 * ->spt[@idx]; NULL (the kernel's ERR_PTR(-EEXIST)) when that SPTE
 * already points at a page of this gfn and role.
 */
struct nxsim__mmu_page *nxsim__kvm_mmu_get_child_sp(
	struct nxsim__vm_mmu *mmu, struct nxsim__mmu_memory_cache *mc,
	const struct nxsim__kvm_mmu *m, struct nxsim__mmu_page *parent_sp,
	unsigned int idx, uint64_t gfn, bool direct, unsigned int access);
/* link_shadow_page(): point @parent_sp->spt[@idx] at @sp. */
void nxsim__link_shadow_page(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *parent_sp,
			     unsigned int idx, struct nxsim__mmu_page *sp);
/* drop_parent_pte() */
void nxsim__drop_parent_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, uintptr_t parent_pte);
/* drop_spte() of the leaf @sp->spt[@idx] */
void nxsim__drop_spte(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_page *sp,
		      unsigned int idx);
/* mark_unsync() / kvm_mmu_mark_parents_unsync() */
void nxsim__kvm_mmu_mark_parents_unsync(struct nxsim__vm_mmu *mmu,
					struct nxsim__mmu_page *sp);
/* kvm_unlink_unsync_page(): the page is sync again. */
void nxsim__kvm_unlink_unsync_page(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_page *sp);
/*
 * FNAME(sync_page) against the guest MMU @m (paging_tmpl.c).  Return: 1
 * if an SPTE changed (a flush is due), 0 if none did, -1 if the page must
 * be zapped (a guest entry could not be read).
 */
int nxsim__sync_page(struct nxsim__vm_mmu *mmu, const struct nxsim__kvm_mmu *m,
		     struct nxsim__mmu_page *sp);
/* mmu_page_zap_pte(): Return: child pages zapped. */
int nxsim__mmu_page_zap_pte(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp, unsigned int idx,
			    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_prepare_zap_page(): Return: pages zapped. */
int nxsim__kvm_mmu_prepare_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp,
				    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_commit_zap_page(): one flush, then free every page. */
void nxsim__kvm_mmu_commit_zap_page(struct nxsim__vm_mmu *mmu,
				    struct nxsim__sp_list *invalid_list);
/* kvm_mmu_remote_flush_or_zap() */
bool nxsim__kvm_mmu_remote_flush_or_zap(struct nxsim__vm_mmu *mmu,
					struct nxsim__sp_list *invalid_list,
					bool remote_flush);
/*
 * kvm_mmu_zap_all_fast()'s shadow half, after the generation flip: every
 * obsolete page is zapped (kvm_zap_obsolete_pages()); a root a vCPU holds
 * is left invalid for nxsim__kvm_mmu_free_obsolete_roots().
 */
void nxsim__kvm_zap_obsolete_pages(struct nxsim__vm_mmu *mmu);
/*
 * kvm_mmu_free_obsolete_roots() at the vCPU's next entry, if the request
 * is pending: obsolete roots (and loaded PAE roots) are freed, a zapped
 * root with its last hold, and committed with a remote flush.
 */
void nxsim__kvm_mmu_free_obsolete_roots(struct nxsim__vm_mmu *mmu);
/* Post KVM_REQ_MMU_FREE_OBSOLETE_ROOTS to every vCPU (mmu.c). */
void nxsim__mmu_request_free_obsolete_roots(struct nxsim__vm_mmu *mmu);
/* kvm_mmu_zap_all(): every shadow page, at VM destruction. */
void nxsim__kvm_mmu_zap_all(struct nxsim__vm_mmu *mmu);
/* account_shadowed() / unaccount_shadowed() */
void nxsim__account_shadowed(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp);
void nxsim__unaccount_shadowed(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp);
/* kvm_mmu_page_get_gfn() */
uint64_t nxsim__kvm_mmu_page_get_gfn(const struct nxsim__mmu_page *sp,
				     unsigned int idx);
/* gfn_to_rmap() */
struct nxsim__kvm_rmap_head *nxsim__gfn_to_rmap(uint64_t gfn, int level,
						const struct nxsim__memslot *s);
/*
 * kvm_mmu_slot_gfn_write_protect(): clear W (and MMU-writable) on every
 * leaf of @gfn at @min_level or above, through the rmaps and on the TDP
 * MMU; Return: true if a flush is needed.
 */
bool nxsim__kvm_mmu_slot_gfn_write_protect(struct nxsim__vm_mmu *mmu,
					   struct nxsim__memslot *slot,
					   uint64_t gfn, int min_level);
/*
 * rmap_write_protect() (@pt_protect false: W only) or __rmap_clear_dirty()
 * (@clear_dirty) of the 4K rmap of @gfn.
 */
bool nxsim__rmap_protect_4k(struct nxsim__vm_mmu *mmu,
			    const struct nxsim__memslot *slot, uint64_t gfn,
			    bool clear_dirty);

/* sp_has_gptes(): an indirect page shadows a guest table. */
static inline bool sp_has_gptes(const struct nxsim__mmu_page *sp)
{
	return !sp->role.direct && !sp->role.passthrough;
}

/* The gfn hash bucket of @gfn (kvm->arch.mmu_page_hash[hash of @gfn]). */
struct nxsim__sp_hlist *nxsim__gfn_sp_list(struct nxsim__vm_mmu *mmu,
					   uint64_t gfn);

/*
 * The valid shadow pages of guest tables at @gfn
 * (for_each_gfn_valid_sp_with_gptes()).
 */
#define for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)                      \
	LIST_FOREACH(sp, nxsim__gfn_sp_list(mmu, gfn), hash_link)           \
		if ((sp)->gfn != (gfn) || nxsim__is_obsolete_sp(mmu, sp) || \
		    !sp_has_gptes(sp)) {                                    \
		} else

/*
 * mmu_set_spte(): install the leaf of @gfn at @sp->spt[@idx] with
 * @pte_access (ACC_*), keeping rmaps and stats; @f is NULL for a
 * prefetch, which makes the SPTE without the accessed bit
 * (mark_spte_for_access_track() with A/D bits) and with a writable pfn.
 * A table it replaces is unlinked, a different pfn dropped (one flush);
 * W is dropped where the gfn is a shadowed guest table
 * (mmu_try_to_unsync_pages()).  Return: RET_PF_FIXED, RET_PF_SPURIOUS,
 * or RET_PF_EMULATE for a write fault on a write-protected guest table.
 */
int nxsim__mmu_set_spte(struct nxsim__vm_mmu *mmu,
			const struct nxsim__memslot *slot,
			struct nxsim__mmu_page *sp, unsigned int idx,
			unsigned int pte_access, uint64_t gfn, uint64_t pfn,
			const struct nxsim__kvm_page_fault *f);
/* direct_pte_prefetch() after a 4K leaf of a direct page */
void nxsim__direct_pte_prefetch(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, unsigned int idx);
/*
 * account_huge_nx_page() (6.1) / account_nx_huge_page() (6.2 on) of a page
 * a fault with huge_page_disallowed linked at @level.
 */
void nxsim__account_nx_huge_page(struct nxsim__vm_mmu *mmu,
				 const struct nxsim__kvm_page_fault *f,
				 struct nxsim__mmu_page *sp, int level);

/* ---- pte_write.c: write protection of guest tables ---------------------- */

/*
 * mmu_try_to_unsync_pages(): 0 if a writable SPTE may map @gfn (its
 * shadow pages, all 4K ones, are or are made unsync), -EPERM where it is
 * write-tracked or shadowed and !@can_unsync, -EEXIST where a sync page
 * would have to go unsync for a @prefetch.
 */
int nxsim__mmu_try_to_unsync_pages(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t gfn, bool can_unsync,
				   bool prefetch);

/*
 * The emulated store of @bytes at @val to guest table memory at @gpa
 * (emulator_write_phys() -> kvm_page_track_write() -> kvm_mmu_pte_write()).
 */
int nxsim__emulate_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			     const void *val, unsigned int bytes);

/* __clear_sp_write_flooding_count(): a fault walked through @sp. */
static inline void __clear_sp_write_flooding_count(struct nxsim__mmu_page *sp)
{
	sp->write_flooding_count = 0;
}

/* ---- shadow_mmu.c: the legacy direct MMU -------------------------------- */

/*
 * kvm_mmu_free_roots() of the vCPUs' current root of @as_id, and in
 * address space 0 of each valid pae_root entry: put (mmu_free_root_page()),
 * the pages kept cached unless they were zapped while held, which are
 * freed with a remote flush (kvm_mmu_commit_zap_page()).
 */
void nxsim__mmu_free_root_page(struct nxsim__vm_mmu *mmu, int as_id);

/*
 * mmu_alloc_direct_roots(): a root of address space @as_id (role.smm)
 * from the vCPU's cache @mc.
 */
void nxsim__mmu_alloc_direct_roots(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc,
				   int as_id);
/*
 * direct_map(), with direct_pte_prefetch(), pages from @mc; fills @info as
 * the TDP map.
 */
void nxsim__direct_map(struct nxsim__vm_mmu *mmu,
		       struct nxsim__mmu_memory_cache *mc,
		       struct nxsim__kvm_page_fault *f,
		       struct nxsim_access_info *info);
/* kvm_unmap_gfn_range() over the rmaps of [start, end) of @slot. */
void nxsim__kvm_rmap_zap_gfn_range(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t start, uint64_t end);
/* Dirty logging on: kvm_mmu_slot_remove_write_access() and friends. */
void nxsim__shadow_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot);
/* Dirty logging off: kvm_mmu_zap_collapsible_sptes() on the rmaps. */
void nxsim__kvm_rmap_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					   const struct nxsim__memslot *slot);

#endif /* NXSIM_MMU_MMU_INTERNAL_H */
