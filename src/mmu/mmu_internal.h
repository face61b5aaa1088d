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
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include "core/rcu.h"

#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

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
 * @nx_flag_pending: checker record: its fault decided to flag it but had
 *	not yet (only NXSIM_BUG_TDP_FLAG_AFTER_LINK publishes it so)
 * @removed: checker record: handle_removed_pt() took it out of the tables
 */
struct nxsim__mmu_page {
	uint64_t *spt;
	uint64_t *ptep;
	struct nxsim__mmu_page *parent;
	uint64_t gfn;
	TAILQ_ENTRY(nxsim__mmu_page) link;
	TAILQ_ENTRY(nxsim__mmu_page) possible_nx_huge_page_link;
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
 * @mmu_lock: kvm->mmu_lock
 * @disable_nx_huge_pages: kvm->arch.disable_nx_huge_pages (READ_ONCE())
 * @fmt: SPTE format (EPT or NPT, from the host CPU)
 * @root_level: 4 or 5
 * @max_huge_level: max_huge_page_level (1G unless no_gbpages)
 * @phys_bits: guest MAXPHYADDR
 * @mmu_valid_gen: flipped by each fast zap
 * @roots: tdp_mmu_roots, valid and invalid
 * @root: the vCPUs' current root (NULL until the first fault after a zap)
 * @nx: possible_nx_huge_pages; one list ([0]) before per-type lists
 * @tdp_mmu_pages_lock: protects @nx and the flags of TDP SPs
 * @pages: stat.pages[level - 1]
 * @nx_lpage_splits: stat.nx_lpage_splits
 * @slots: memory slots, by base gfn
 * @nr_memslots_dirty_logging: slots with dirty logging on
 * @pages_alloc_lock: the page allocator's lock (the kernel's slab and
 *	buddy allocator): @frame_chunk, @nr_frames, @free_frame, @reserve,
 *	@nr_reserve
 * @frame_chunk: frame index -> page-table page, or the next free index,
 *	NXSIM__FRAME_CHUNK frames per chunk
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
 * @counters: simulator counters (atomic increments)
 * @events: checker records not yet reported
 * @nr_events: how many (may exceed NXSIM__MAX_EVENTS; the rest are counted;
 *	slots are claimed atomically)
 */
struct nxsim__vm_mmu {
	const struct nxsim__mmu_profile *prof;
	uint64_t bugs;
	const struct nxsim__nx_params *params;
	pthread_rwlock_t mmu_lock;
	bool disable_nx_huge_pages;
	enum nxsim_spte_format fmt;
	int root_level;
	int max_huge_level;
	unsigned int phys_bits;
	uint8_t mmu_valid_gen;
	struct nxsim__sp_list roots;
	struct nxsim__mmu_page *root;
	struct nxsim__possible_nx nx[NXSIM__NR_MMU_TYPES];
	pthread_mutex_t tdp_mmu_pages_lock;
	uint64_t pages[3];
	uint64_t nx_lpage_splits;
	struct nxsim__slot_list slots;
	unsigned int nr_memslots_dirty_logging;
	pthread_mutex_t pages_alloc_lock;
	struct nxsim__frame *frame_chunk[NXSIM__FRAME_CHUNKS];
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
	char events[NXSIM__MAX_EVENTS][160];
	unsigned int nr_events;
};

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

/* kvm_update_page_stats(): stat.pages[level - 1] += @delta. */
static inline void nxsim__update_page_stats(struct nxsim__vm_mmu *mmu,
					    int level, int64_t delta)
{
	__atomic_fetch_add(&mmu->pages[level - 1], (uint64_t)delta,
			   __ATOMIC_RELAXED);
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
/* kvm_tdp_mmu_get_vcpu_root_hpa(): make @sp (from the cache) the root. */
void nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp);
/* kvm_tdp_mmu_invalidate_all_roots() + zap them + free them. */
void nxsim__tdp_mmu_zap_all_roots(struct nxsim__vm_mmu *mmu);
/*
 * kvm_tdp_mmu_zap_sp() / kvm_tdp_mmu_zap_possible_nx_huge_page(): zap the
 * parent SPTE if it still points at @sp; with @shared (read lock, 6.18)
 * by an atomic update, which fails if another thread changed it.
 */
bool nxsim__kvm_tdp_mmu_zap_sp(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp, bool shared);
/* tdp_mmu_zap_leafs() over [start, end) in every root. */
void nxsim__kvm_tdp_mmu_zap_leafs(struct nxsim__vm_mmu *mmu, uint64_t start,
				  uint64_t end);
/*
 * Dirty logging turned on: kvm_mmu_slot_leaf_clear_dirty() (PML) and
 * kvm_mmu_slot_remove_write_access().
 */
void nxsim__tdp_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot);
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
 * @slot: the memslot holding @gfn
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
	const struct nxsim__memslot *slot;
};

/* kvm_mmu_max_mapping_level() */
int nxsim__kvm_mmu_max_mapping_level(struct nxsim__vm_mmu *mmu,
				     const struct nxsim__memslot *slot,
				     uint64_t gfn, int max_level);
/*
 * kvm_mmu_hugepage_adjust(): sets @f->req_level and @f->goal_level (and
 * rounds @f->pfn down to it) from the slot, lpage_info and the host level.
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

/* The page-fault return codes used (enum of arch/x86/kvm/mmu/mmu_internal.h). */
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
 * vCPU's topped-up cache @mc), and install the leaf; with the profile's
 * fault_read_lock, under mmu_lock held for read and rcu_read_lock(),
 * every SPTE change by compare-and-exchange.  Fills @info's outcome, level
 * and split/zap counts.  Return: RET_PF_FIXED, RET_PF_SPURIOUS, or
 * RET_PF_RETRY (an SPTE was frozen or changed under the walk).
 */
int nxsim__kvm_tdp_mmu_map(struct nxsim__vm_mmu *mmu,
			   struct nxsim__mmu_memory_cache *mc,
			   struct nxsim__kvm_page_fault *f,
			   struct nxsim_access_info *info);

#endif /* NXSIM_MMU_MMU_INTERNAL_H */
