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
 * @id: frame index (pfn = NXSIM__SP_PFN_BASE + @id)
 * @root_count: tdp_mmu_root_count (roots only)
 * @nr_leaves: present leaf SPTEs in @spt (kept with the page stats)
 * @level: role.level
 * @direct: role.direct (always, until shadow paging exists)
 * @invalid: role.invalid (roots only)
 * @tdp_mmu_page: made by the TDP MMU
 * @nx_huge_page_disallowed: made because an exec fault could not map huge
 * @nx_tracked: on a possible_nx_huge_pages list
 * @made_hpd: checker record: made by a fault with huge_page_disallowed
 * @made_req_level: checker record: that fault's req_level
 * @unaccounted: checker record: recovery unaccounted it without zapping
 */
struct nxsim__mmu_page {
	uint64_t *spt;
	uint64_t *ptep;
	struct nxsim__mmu_page *parent;
	uint64_t gfn;
	TAILQ_ENTRY(nxsim__mmu_page) link;
	TAILQ_ENTRY(nxsim__mmu_page) possible_nx_huge_page_link;
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
};

TAILQ_HEAD(nxsim__sp_list, nxsim__mmu_page);

/* One frame of page-table memory: its page, or (free) the next free one. */
struct nxsim__frame {
	struct nxsim__mmu_page *sp;
	uint32_t next_free;
};

#define NXSIM__NO_FRAME UINT32_MAX

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
 * @frames: frame index -> page-table page, or the next free index
 * @cap_frames: entries allocated in @frames
 * @nr_frames: entries handed out so far
 * @free_frame: first free entry, or NXSIM__NO_FRAME
 * @nr_sps: live page-table pages
 * @cache: pre-allocated page-table pages (mmu_shadow_page_cache)
 * @nr_cache: entries in @cache
 * @reserve: freed page-table pages (table and header) kept for reuse,
 *	newest first
 * @nr_reserve: entries on @reserve
 * @counters: simulator counters
 * @flush_vcpus: struct nxsim__mmu_config's, to reach the vCPUs
 * @flush_ctx: its context
 * @events: checker records not yet reported
 * @nr_events: how many (may exceed NXSIM__MAX_EVENTS; the rest are counted)
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
	struct nxsim__frame *frames;
	uint32_t cap_frames;
	uint32_t nr_frames;
	uint32_t free_frame;
	uint64_t nr_sps;
	struct nxsim__mmu_page *cache[6];
	unsigned int nr_cache;
	struct nxsim__sp_list reserve;
	unsigned int nr_reserve;
	struct nxsim_mmu_counters counters;
	nxsim__flush_vcpus_fn flush_vcpus;
	void *flush_ctx;
	char events[NXSIM__MAX_EVENTS][160];
	unsigned int nr_events;
};

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

	assert(idx < mmu->nr_frames && mmu->frames[idx].sp);
	return mmu->frames[idx].sp;
}
/*
 * tdp_mmu_alloc_sp(), taking a page from @reserve first, with its frame;
 * NULL on -ENOMEM.  Level and gfn are set when the page leaves the cache
 * (tdp_mmu_init_child_sp(), nxsim__kvm_tdp_mmu_get_vcpu_root_hpa()).  The
 * SPTEs are not set: the user fills them (nxsim__sp_clear() or a split),
 * as the kernel's page cache hands out pages filled with the non-present
 * value.
 */
struct nxsim__mmu_page *nxsim__tdp_mmu_alloc_sp(struct nxsim__vm_mmu *mmu);
/* Fill @sp with SHADOW_NONPRESENT_VALUE. */
void nxsim__sp_clear(struct nxsim__mmu_page *sp);
/* tdp_mmu_free_sp(): onto @reserve while it has room, else freed. */
void nxsim__tdp_mmu_free_sp(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp);
/* Free reserved pages until @keep are left. */
void nxsim__tdp_mmu_trim_reserve(struct nxsim__vm_mmu *mmu, unsigned int keep);
/*
 * tdp_mmu_set_spte() + handle_changed_spte(): install @new at @sptep, an
 * entry of @sp, keeping the page stats and tearing down a page table the
 * old value pointed to.
 */
void nxsim__tdp_mmu_set_spte(struct nxsim__vm_mmu *mmu,
			     struct nxsim__mmu_page *sp, uint64_t *sptep,
			     uint64_t new);
/* kvm_tdp_mmu_get_vcpu_root_hpa(): make @sp (from the cache) the root. */
void nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(struct nxsim__vm_mmu *mmu,
					  struct nxsim__mmu_page *sp);
/* kvm_tdp_mmu_invalidate_all_roots() + zap them + free them. */
void nxsim__tdp_mmu_zap_all_roots(struct nxsim__vm_mmu *mmu);
/* kvm_tdp_mmu_zap_sp() / kvm_tdp_mmu_zap_possible_nx_huge_page() */
bool nxsim__kvm_tdp_mmu_zap_sp(struct nxsim__vm_mmu *mmu,
			       struct nxsim__mmu_page *sp);
/* tdp_mmu_zap_leafs() over [start, end) in every root: whether any went. */
bool nxsim__kvm_tdp_mmu_zap_leafs(struct nxsim__vm_mmu *mmu, uint64_t start,
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
/* Free the frame table (at VM teardown, after zapping). */
void nxsim__tdp_mmu_release(struct nxsim__vm_mmu *mmu);

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

/*
 * kvm_tdp_mmu_map() with tdp_mmu_map_handle_target_level(): walk from the
 * root to @f->goal_level, making or splitting tables on the way (from the
 * topped-up cache), and install the leaf.  Fills @info's outcome, level and
 * split/zap counts.
 */
void nxsim__kvm_tdp_mmu_map(struct nxsim__vm_mmu *mmu,
			    struct nxsim__kvm_page_fault *f,
			    struct nxsim_access_info *info);

#endif /* NXSIM_MMU_MMU_INTERNAL_H */
