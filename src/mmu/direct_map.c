// SPDX-License-Identifier: GPL-2.0-only
/*
 * The legacy direct MMU of arch/x86/kvm/mmu/mmu.c (TDP hardware with the
 * TDP MMU off, and guests with paging off under shadow paging): the root
 * of each address space (mmu_alloc_direct_roots(), role.smm for SMM; with
 * paging off under shadow paging the four PAE roots paging_tmpl.c loads,
 * one direct page directory per GiB, as PT32E_ROOT_LEVEL makes them),
 * direct_map() with direct_pte_prefetch() (PTE_PREFETCH_NUM 8, 6.1), and
 * the NX accounting of the pages it and FNAME(fetch) link
 * (account_huge_nx_page() of 6.1 or account_nx_huge_page() from 6.2, by
 * profile).  Its pages, rmaps and zaps are shadow_mmu.c's.
 *
 * Everything runs under mmu_lock held for write, as in the kernel.  Left
 * out: what shadow_mmu.c leaves out of the pages it keeps (its header).
 */
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"

void nxsim__mmu_alloc_direct_roots(struct nxsim__vm_mmu *mmu,
				   struct nxsim__mmu_memory_cache *mc,
				   int as_id)
{
	/* kvm_calc_tdp_mmu_root_page_role(), with is_smm(vcpu) */
	union nxsim__kvm_mmu_page_role role = {
		.level = (unsigned int)mmu->root_level,
		.direct = 1,
		.access = ACC_ALL,
		.efer_nx = 1,
		.cr0_wp = 1,
		.smm = (unsigned int)as_id,
	};
	struct nxsim__mmu_page *root =
		nxsim__kvm_mmu_get_shadow_page(mmu, mc, NULL, 0, role);

	root->root_count++;
	mmu->root[as_id] = root;
}

/*
 * direct_pte_prefetch_many(): map [start, end) of @sp from the slot of the
 * first gfn, if the slot is writable, not dirty-logged and holds them all
 * (gfn_to_page_many_atomic()); Return: 0, or -1 to stop prefetching.
 */
static int direct_pte_prefetch_many(struct nxsim__vm_mmu *mmu,
				    struct nxsim__mmu_page *sp,
				    unsigned int start, unsigned int end)
{
	unsigned int access = sp->role.access, i;
	uint64_t gfn = nxsim__kvm_mmu_page_get_gfn(sp, start);
	struct nxsim__memslot *slot =
		nxsim__gfn_to_memslot(mmu, kvm_mmu_page_as_id(sp), gfn);

	/* gfn_to_memslot_dirty_bitmap(vcpu, gfn, access & ACC_WRITE_MASK) */
	if (!slot || nxsim__memslot_invalid(slot) ||
	    ((access & ACC_WRITE_MASK) && nxsim__slot_dirty_logging(slot)))
		return -1;
	/* gfn_to_hva_many() for writing, then every page or none */
	if ((slot->flags & NXSIM_MEM_READONLY) ||
	    slot->base_gfn + slot->npages - gfn < end - start)
		return -1;
	for (i = start; i < end; i++, gfn++)
		nxsim__mmu_set_spte(mmu, slot, sp, i, access, gfn,
				    nxsim__gfn_to_pfn(slot, gfn), NULL);
	return 0;
}

/* __direct_pte_prefetch(): the free entries of the aligned block of 8. */
static void __direct_pte_prefetch(struct nxsim__vm_mmu *mmu,
				  struct nxsim__mmu_page *sp, unsigned int idx)
{
	unsigned int i = idx & ~(NXSIM__PTE_PREFETCH_NUM - 1u);
	unsigned int end = i + NXSIM__PTE_PREFETCH_NUM, start = end;

	WARN_ON(!sp->role.direct);
	for (; i < end; i++) {
		if (is_shadow_present_pte(sp->spt[i]) || i == idx) {
			if (start == end)
				continue;
			if (direct_pte_prefetch_many(mmu, sp, start, i) < 0)
				return;
			start = end;
		} else if (start == end) {
			start = i;
		}
	}
	if (start != end)
		direct_pte_prefetch_many(mmu, sp, start, end);
}

/* direct_pte_prefetch(): 4K leaves only, and only with A/D bits. */
void nxsim__direct_pte_prefetch(struct nxsim__vm_mmu *mmu,
				struct nxsim__mmu_page *sp, unsigned int idx)
{
	if (sp->role.ad_disabled || sp->role.level > NXSIM_PG_LEVEL_4K)
		return;
	__direct_pte_prefetch(mmu, sp, idx);
}

/*
 * The checker's record of the exec fault that linked @sp: kept from the
 * fault that tracked it if it is tracked (a page the hash gave back, one
 * guest huge page mapped at two gvas, stays tracked).
 */
static void record_exec_fault(struct nxsim__mmu_page *sp,
			      const struct nxsim__kvm_page_fault *f)
{
	if (!f->huge_page_disallowed || sp->nx_tracked)
		return;
	sp->made_hpd = true;
	sp->made_req_level = (uint8_t)f->req_level;
}

/*
 * The NX accounting of a page direct_map() or FNAME(fetch) linked: 6.1's
 * account_huge_nx_page() flags a page only when it tracks it (a huge page
 * was possible); from 6.2 account_nx_huge_page() flags every page an
 * exec fault made and tracks the possible ones; both leave a tracked page
 * tracked (6.1's lpage_disallowed test, 6.2's list_empty() test).
 */
void nxsim__account_nx_huge_page(struct nxsim__vm_mmu *mmu,
				 const struct nxsim__kvm_page_fault *f,
				 struct nxsim__mmu_page *sp, int level)
{
	bool possible = f->req_level >= level ||
			mmu->prof->nx_account_any_level ||
			nxsim__mmu_has_bug(mmu, NXSIM_BUG_TRACK_ANY_LEVEL);
	bool tag = mmu->prof->nx_tag_untracked &&
		   !nxsim__mmu_has_bug(mmu, NXSIM_BUG_UNTAGGED_NX);

	if (!f->huge_page_disallowed)
		return;
	record_exec_fault(sp, f);
	if (!tag && !possible)
		return;
	sp->nx_huge_page_disallowed = true;
	if (possible)
		nxsim__track_possible_nx_huge_page(mmu, sp, NXSIM__SHADOW_MMU);
}

void nxsim__direct_map(struct nxsim__vm_mmu *mmu,
		       struct nxsim__mmu_memory_cache *mc,
		       struct nxsim__kvm_page_fault *f,
		       struct nxsim_access_info *info)
{
	struct nxsim__mmu_page *sp = mmu->root[f->as_id], *child;
	int level = mmu->root_level, ret;
	uint64_t base_gfn = f->gfn;
	unsigned int idx;

	/* shadow_walk_init(): paging off maps from the PAE root of the GiB */
	if (!sp) {
		sp = mmu->pae_root[(f->gfn >> 18) & 3];
		level = NXSIM_PG_LEVEL_2M;
	}

	nxsim__kvm_mmu_hugepage_adjust(mmu, f);
	for (;; sp = spte_to_child_sp(mmu, sp->spt[idx]), level--) {
		idx = spte_index(f->gfn, level);
		if (f->nx_huge_page_workaround_enabled)
			nxsim__disallowed_hugepage_adjust(mmu, f, sp->spt[idx],
							  level);
		base_gfn = f->gfn & ~(KVM_PAGES_PER_HPAGE(level) - 1);
		if (level == f->goal_level)
			break;
		child = nxsim__kvm_mmu_get_child_sp(mmu, mc, NULL, sp, idx,
						    base_gfn, true, ACC_ALL);
		if (!child)
			continue;
		if (is_shadow_present_pte(sp->spt[idx])) {
			MMU_COUNT(mmu, huge_zaps);
			info->zapped_huge++;
		}
		nxsim__link_shadow_page(mmu, sp, idx, child);
		/*
		 * Faults of the nonpaging MMU (TDP off, guest paging off) are
		 * accounted from b5b0977f4aa2 (6.2, the series of
		 * 428e921611bc); before, and with the bug switch, they are
		 * neither flagged nor tracked, and only the checker records the
		 * fault (so that a profile with the fix sees the page unflagged).
		 */
		if (f->is_tdp ||
		    (mmu->prof->nx_tag_untracked &&
		     !nxsim__mmu_has_bug(mmu, NXSIM_BUG_NONPAGING_UNTRACKED)))
			nxsim__account_nx_huge_page(mmu, f, child, level);
		else
			record_exec_fault(child, f);
	}
	ret = nxsim__mmu_set_spte(mmu, f->slot, sp, idx, ACC_ALL, base_gfn,
				  f->pfn, f);
	info->level = level;
	if (ret == RET_PF_SPURIOUS) {
		info->outcome = NXSIM_ACCESS_SPURIOUS;
		return;
	}
	/* an MMIO SPTE (the caller counts it): RET_PF_EMULATE */
	info->outcome = f->slot ? NXSIM_ACCESS_FAULT : NXSIM_ACCESS_EMULATE;
	nxsim__direct_pte_prefetch(mmu, sp, idx);
}
