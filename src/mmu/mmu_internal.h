/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU's internal structures (arch/x86/kvm/mmu/mmu_internal.h): the
 * page role and page-table pages (struct kvm_mmu_page), the fault
 * (struct kvm_page_fault, RET_PF_*), the counters, hugepage adjust, the
 * possible-NX tracking.  The pool of page-table pages both MMUs draw from
 * is mmu_pages.h's (mmu_pages.c), included at the end; the per-VM state
 * is struct nxsim__vm_mmu (kvm_host.h); each MMU's calls between its
 * files are in tdp_mmu.h and shadow_mmu.h, write tracking in
 * page_track.h.
 *
 * A page-table page's 512 SPTEs live in a real 4 KiB array.  Its "physical
 * address", which parent SPTEs hold, is a frame number handed out by the
 * VM (NXSIM__SP_PFN_BASE + its index in vm_mmu->frame_chunk), so dumps are
 * deterministic and spte_to_child_sp() is an array lookup, as pfn_to_page()
 * is.
 */
#ifndef NXSIM_MMU_MMU_INTERNAL_H
#define NXSIM_MMU_MMU_INTERNAL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include "core/compiler.h"
#include "core/rcu.h"

#include <nxsim/vcpu.h>

#include "mmu/kvm_host.h"
#include "mmu/memslot.h"
#include "mmu/mmu.h"
#include "mmu/spte.h"

/* Page-table pages get frames above any slot's: hva < 2^47. */
#define NXSIM__SP_PFN_BASE (1ull << 36)

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
 * @rcu_next: the next page of the chain that callback frees
 * @mmu: the VM the page belongs to (for the RCU callback)
 * @id: frame index (pfn = NXSIM__SP_PFN_BASE + @id)
 * @root_count: tdp_mmu_root_count (roots only)
 * @nr_leaves: the shadow MMU's: present leaf SPTEs in @spt; the TDP
 *	MMU's: SPTE_ENT_PER_PAGE from a split that filled @spt until one of
 *	those leaves goes, else 0 (a count kept up by faults under the read
 *	lock, which fill one table together, would cost each a locked add);
 *	what a table freed under the write lock takes off the page stats
 *	without reading @spt
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
 *
 * The fields a recovery pass reads and writes of each page (the list link,
 * the parent SPTE, the gfn and level, the counts and flags, the RCU chain)
 * come first, in 64 bytes: a pass touches thousands of pages once each,
 * and each line it reads is a miss.  The header is allocated cache-line
 * aligned, so that they are one line: the one line an exclusive pass over
 * a slot without dirty logging reads of each page.  A shared zap also
 * reads @spt (handle_removed_pt()), and a pass over dirty-logged slots
 * @role (the memslot lookup), both on the second line.
 */
struct nxsim__mmu_page {
	/* first cache line: what a recovery pass reads and writes */
	TAILQ_ENTRY(nxsim__mmu_page) possible_nx_huge_page_link;
	uint64_t *ptep;
	struct nxsim__mmu_page *parent;
	uint64_t gfn;
	struct nxsim__mmu_page *rcu_next;
	uint32_t id;
	uint16_t nr_leaves;
	uint8_t level;
	bool direct;
	bool invalid;
	bool tdp_mmu_page;
	bool nx_huge_page_disallowed;
	bool nx_tracked;
	bool removed;
	bool unaccounted;
	bool made_hpd;
	uint8_t made_req_level;
	/* the rest */
	uint64_t *spt;
	TAILQ_ENTRY(nxsim__mmu_page) link;
	union nxsim__kvm_mmu_page_role role;
	uint32_t root_count;
	struct nxsim__vm_mmu *mmu;
	struct rcu_head rcu_head;
	struct nxsim__kvm_rmap_head parent_ptes;
	LIST_ENTRY(nxsim__mmu_page) hash_link;
	uint64_t *shadowed_translation;
	uint8_t mmu_valid_gen;
	bool nx_flag_pending;
	bool unsync;
	uint8_t write_flooding_count;
	uint16_t unsync_children;
	uint64_t unsync_child_bitmap[SPTE_ENT_PER_PAGE / 64];
} ____cacheline_aligned;

_Static_assert(offsetof(struct nxsim__mmu_page, spt) == 64,
	       "a recovery pass's fields fill the first cache line exactly");

static inline bool sp_nx_disallowed(const struct nxsim__mmu_page *sp)
{
	return __atomic_load_n(&sp->nx_huge_page_disallowed, __ATOMIC_RELAXED);
}

static inline void sp_set_nx_disallowed(struct nxsim__mmu_page *sp, bool v)
{
	__atomic_store_n(&sp->nx_huge_page_disallowed, v, __ATOMIC_RELAXED);
}

/* mmu_lock for read (@shared) or write. */
static inline void nxsim__mmu_lock(struct nxsim__vm_mmu *mmu, bool shared)
{
	if (shared)
		nxsim__read_lock(&mmu->mmu_lock);
	else
		nxsim__write_lock(&mmu->mmu_lock);
}

/* An atomic increment of a simulator counter. */
#define MMU_COUNT(mmu, field) \
	__atomic_fetch_add(&(mmu)->counters.field, 1, __ATOMIC_RELAXED)
/* ++kvm->stat.field (struct nxsim__mmu_kstat) */
#define MMU_KSTAT(mmu, field) \
	__atomic_fetch_add(&(mmu)->kstat.field, 1, __ATOMIC_RELAXED)

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

/* Record a checker event (printf-style; mmu_stats.c). */
void nxsim__mmu_event(struct nxsim__vm_mmu *mmu, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Free the VM's event records, at its destruction. */
void nxsim__mmu_free_events(struct nxsim__vm_mmu *mmu);

/* kvm_flush_remote_tlbs(): a remote TLB flush of every vCPU of the VM. */
void nxsim__kvm_flush_remote_tlbs(struct nxsim__vm_mmu *mmu);
/*
 * kvm_flush_remote_tlbs_range() (6.6; kvm_flush_remote_tlbs_with_address()
 * in 6.1): the same flush, naming @pages from @gfn.
 */
void nxsim__kvm_flush_remote_tlbs_range(struct nxsim__vm_mmu *mmu, uint64_t gfn,
					uint64_t pages);

/* ---- mmio.c: MMIO SPTEs and the vCPU's MMIO cache ----------------------- */

/* vcpu_cache_mmio_info(): @gfn is MMIO for @vcpu in its current generation. */
void nxsim__vcpu_cache_mmio_info(struct nxsim__vm_mmu *mmu,
				 struct nxsim__vcpu_mmu *vcpu, uint64_t gfn);
/*
 * handle_mmio_page_fault() after the hardware walk to @gfn in @as_id met an
 * MMIO SPTE: RET_PF_EMULATE (from the vCPU's cache, or from a current
 * SPTE, which it then caches), RET_PF_INVALID for a stale SPTE (the full
 * fault follows) or RET_PF_RETRY when its own walk no longer meets an MMIO
 * SPTE (the guest runs the access again).  Takes no lock.
 */
int nxsim__handle_mmio_page_fault(struct nxsim__vm_mmu *mmu,
				  struct nxsim__vcpu_mmu *vcpu, int as_id,
				  uint64_t gfn);
/*
 * handle_mmio_page_fault() on the shadow MMU, whose walk under mmu_lock
 * read the MMIO SPTE @spte for @gfn: @direct (paging off) checks the
 * vCPU's cache first; RET_PF_EMULATE or RET_PF_INVALID, as above.
 */
int nxsim__handle_mmio_page_fault_shadow(struct nxsim__vm_mmu *mmu,
					 struct nxsim__vcpu_mmu *vcpu,
					 bool direct, uint64_t gfn,
					 uint64_t spte);
/*
 * kvm_mmu_invalidate_mmio_sptes(): the memslots generation became @gen;
 * zap everything when the MMIO generation wrapped.  Called with slots_lock
 * held, mmu_lock not.
 */
void nxsim__kvm_mmu_invalidate_mmio_sptes(struct nxsim__vm_mmu *mmu,
					  uint64_t gen);

/* ---- nx_recovery.c: track / untrack -------------------------------------- */

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
 * @rule_huge: a host rule's exec_huge answer (<nxsim/nx_recovery.h>),
 *	NXSIM__RULE_KERNEL (0) when none answered
 * @tdp_split: the TDP MMU splits a huge SPTE in place (from 6.2, or the
 *	host rule's exec_split answer), else zaps it and maps anew
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
	int rule_huge;
	bool tdp_split;
};

/* nxsim__kvm_page_fault.rule_huge */
enum {
	NXSIM__RULE_KERNEL = 0, /* kvm_mmu_hugepage_adjust()'s own answer */
	NXSIM__RULE_HUGE,	/* the rule lets the exec fault map huge */
	NXSIM__RULE_NOT_HUGE,	/* the rule keeps it below huge */
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
 * off (the gva is the gpa) that the hardware walk could not complete
 * (@sptep, @spte and @level: the leaf it found, or NULL): the direct map
 * from the four PAE roots (loaded by the caller), at most 2M, not a TDP
 * fault.  Called with mmu_lock held for write and the caches topped up.
 * Return: 0 or RET_PF_RETRY (fault again after dropping mmu_lock).
 */
int nxsim__nonpaging_page_fault(struct nxsim__vm_mmu *mmu,
				struct nxsim__vcpu_mmu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				uint64_t *sptep, uint64_t spte, int level,
				struct nxsim_access_info *info);

/*
 * The TDP half of nxsim__kvm_mmu_do_page_fault(): a guest access at @gpa
 * with TDP, the hardware walk and, if it misses, the MMIO exit or the
 * page fault (kvm_tdp_page_fault()), under mmu_lock, retried while the
 * fault says RET_PF_RETRY.  *@rights (may be NULL) receives what the leaf
 * then allows, NXSIM__RIGHT_*.  Return: 0, -ERANGE (beyond MAXPHYADDR) or
 * -ENOMEM.
 */
int nxsim__mmu_access(struct nxsim__vm_mmu *mmu, struct nxsim__vcpu_mmu *vcpu,
		      enum nxsim_access_kind kind, uint64_t gpa,
		      struct nxsim_access_info *info, unsigned int *rights);
/*
 * The shadow half of nxsim__kvm_mmu_do_page_fault() (paging_tmpl.c): a
 * guest access with TDP off (the vCPU running, kvm_mmu_page_fault()):
 * the hardware walk of the shadow tables from the VM's root and, if it
 * misses, FNAME(page_fault) (paging on) or nonpaging_page_fault()
 * (paging off), page-table pages from the vCPU's cache; takes mmu_lock.
 * Return: 0; -ERANGE for an address the mode cannot form; -ENOMEM.
 */
int nxsim__kvm_mmu_page_fault(struct nxsim__vm_mmu *mmu,
			      struct nxsim__vcpu_mmu *vcpu,
			      const struct nxsim__kvm_mmu *m,
			      enum nxsim_access_kind kind, uint64_t addr,
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
 * The hardware walk from the root of @as_id towards @gfn (mmu.c): the leaf
 * mapping @gfn, or NULL; *@level and *@spte receive the level and the
 * value of the last SPTE read (the root level and 0 when there is no
 * root).  Called inside an RCU read-side section or under mmu_lock held
 * for write.
 */
uint64_t *nxsim__mmu_find_leaf(struct nxsim__vm_mmu *mmu, int as_id,
			       uint64_t gfn, int *level, uint64_t *spte);

/* kvm_vcpu_memslots(vcpu)->generation: that of the vCPU's space. */
static inline uint64_t vcpu_memslots_gen(struct nxsim__vm_mmu *mmu,
					 const struct nxsim__vcpu_mmu *vcpu)
{
	return READ_ONCE(mmu->memslots_gen[kvm_arch_vcpu_memslots_id(vcpu)]);
}

/* The page-fault return codes (enum of arch/x86/kvm/mmu/mmu_internal.h). */
enum {
	RET_PF_CONTINUE = 0,
	RET_PF_RETRY,
	RET_PF_EMULATE,
	RET_PF_INVALID,
	RET_PF_FIXED,
	RET_PF_SPURIOUS,
};

/* The page pool's calls: they need the types above. */
#include "mmu/mmu_pages.h"

/*
 * disallowed_hugepage_adjust(): at @cur_level, step @f->goal_level down one
 * level when @spte is a present table that an NX split left (any table
 * before 76901e56fb51, a flagged one after).  Inline (after the page
 * pool's spte_to_child_sp()): a fault's walk calls it at every level.
 */
static inline void
nxsim__disallowed_hugepage_adjust(struct nxsim__vm_mmu *mmu,
				  struct nxsim__kvm_page_fault *f,
				  uint64_t spte, int cur_level)
{
	bool check_flag;

	/* the walk calls this at every level: the common case first */
	if (cur_level != f->goal_level || cur_level == NXSIM_PG_LEVEL_4K ||
	    !is_shadow_present_pte(spte) || is_large_pte(spte))
		return;
	check_flag = mmu->prof->nx_adjust_checks_flag &&
		     !nxsim__mmu_has_bug(mmu, NXSIM_BUG_ADJUST_ANY_NONLEAF);
	if (!check_flag || sp_nx_disallowed(spte_to_child_sp(mmu, spte))) {
		f->pfn |= f->gfn & (KVM_PAGES_PER_HPAGE(cur_level) -
				    KVM_PAGES_PER_HPAGE(cur_level - 1));
		f->goal_level--;
	}
}

#endif /* NXSIM_MMU_MMU_INTERNAL_H */
