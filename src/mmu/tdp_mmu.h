/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TDP MMU's calls between files (arch/x86/kvm/mmu/tdp_mmu.h):
 * tdp_mmu.c (the map, SPTE changes, roots, the eager split, zaps of a
 * page) and tdp_mmu_walk.c (the range walks: the zap of leaves, dirty
 * logging, the zap of collapsible SPTEs).  The page-table pages it draws
 * are the pool of mmu_pages.c (mmu_internal.h).
 */
#ifndef NXSIM_MMU_TDP_MMU_H
#define NXSIM_MMU_TDP_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/mmu_internal.h"

/* ---- tdp_mmu.c: the map, SPTE changes, roots, zaps, the split ------------ */

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

/* ---- tdp_mmu_walk.c: range walks ----------------------------------------- */

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
void nxsim__kvm_tdp_mmu_wrprot_slot(struct nxsim__vm_mmu *mmu,
				    const struct nxsim__memslot *slot);
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
void nxsim__kvm_tdp_mmu_zap_collapsible_sptes(
	struct nxsim__vm_mmu *mmu, const struct nxsim__memslot *slot);

#endif /* NXSIM_MMU_TDP_MMU_H */
