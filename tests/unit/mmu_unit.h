/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers for the unit tests of src/mmu (test_fault.c, test_tdp_mmu.c,
 * test_recovery_pass.c): a host with one VM built through the public API,
 * then the MMU half of the VM (struct nxsim__vm_mmu) handed to the MMU's
 * own functions, and a walk to any SPTE of the current root.
 */
#ifndef NXSIM_TEST_MMU_UNIT_H
#define NXSIM_TEST_MMU_UNIT_H

#include "kvm/vm.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"
#include "integration/nx_test.h"

/* The MMU half of @e's VM. */
static inline struct nxsim__vm_mmu *unit_mmu(const struct nx_env *e)
{
	return e->vm->mmu;
}

/*
 * The struct kvm_page_fault kvm_tdp_page_fault() builds for an access at
 * @gpa, before kvm_mmu_hugepage_adjust() runs.
 */
static inline struct nxsim__kvm_page_fault unit_fault(struct nxsim__vm_mmu *mmu,
						      uint64_t gpa, bool exec)
{
	struct nxsim__kvm_page_fault f = {
		.gfn = gpa >> 12,
		.exec = exec,
		.max_level = NXSIM_PG_LEVEL_1G,
		.req_level = NXSIM_PG_LEVEL_4K,
		.goal_level = NXSIM_PG_LEVEL_4K,
		.tdp_split = mmu->prof->tdp_split_on_fault,
	};

	f.slot = nxsim__gfn_to_memslot(mmu, 0, f.gfn);
	assert_non_null(f.slot);
	f.pfn = nxsim__gfn_to_pfn(f.slot, f.gfn);
	f.map_writable = !(f.slot->flags & NXSIM_MEM_READONLY);
	f.nx_huge_page_workaround_enabled = nxsim__is_nx_huge_page_enabled(mmu);
	return f;
}

/* The SPTE for @gpa at @level, walking tables from the current root. */
static inline uint64_t *unit_sptep(struct nxsim__vm_mmu *mmu, uint64_t gpa,
				   int level)
{
	struct nxsim__mmu_page *sp = mmu->root[0];
	uint64_t gfn = gpa >> 12;
	int l = mmu->root_level;

	/* paging off under shadow paging: the PAE root of the GiB */
	if (!sp) {
		sp = mmu->pae_root[(gpa >> 30) & 3];
		l = NXSIM_PG_LEVEL_2M;
	}
	assert_non_null(sp);
	for (; l > level; l--) {
		uint64_t spte = sp->spt[spte_index(gfn, l)];

		assert_true(is_shadow_present_pte(spte) &&
			    !is_last_spte(spte, l));
		sp = spte_to_child_sp(mmu, spte);
	}
	return &sp->spt[spte_index(gfn, level)];
}

#endif /* NXSIM_TEST_MMU_UNIT_H */
