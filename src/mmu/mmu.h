/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU's entry points used by the VM lifecycle, the parameters and the
 * recovery worker.
 */
#ifndef NXSIM_MMU_MMU_H
#define NXSIM_MMU_MMU_H

#include <stdbool.h>

/**
 * struct nxsim__mmu_profile - one kernel tree's MMU behaviours
 * @tdp_mmu: the TDP MMU exists (5.10)
 * @tdp_split_on_fault: exec faults split huge TDP SPTEs in place
 *	(c4b33d28ea51, 6.2) instead of zapping them
 * @recovery_skip_dirty: recovery only unaccounts SPs in dirty-logged slots
 *	(eb298605705a, 6.2)
 * @recover_huge_in_place: disabling dirty logging rebuilds huge SPTEs in
 *	place on the TDP MMU (6.13) instead of zapping collapsible SPTEs
 * @per_type_lists: one possible_nx_huge_pages list per MMU type (6.18)
 * @nx_tag_untracked: SPs made by an exec fault are flagged
 *	nx_huge_page_disallowed even when not tracked, and the TDP MMU sets
 *	the flag before linking (428e921611bc, 61f94478547b, 6.2)
 * @nx_adjust_checks_flag: disallowed_hugepage_adjust() steps down only at
 *	a flagged child (76901e56fb51, 6.2; not in 6.1.y)
 * @tdp_mmu_default: kvm.tdp_mmu defaults to on (5.15); before, the TDP
 *	MMU of 5.10 is opt-in and VMs use the shadow MMU's direct map
 */
struct nxsim__mmu_profile {
	bool tdp_mmu;
	bool tdp_split_on_fault;
	bool recovery_skip_dirty;
	bool recover_huge_in_place;
	bool per_type_lists;
	bool nx_tag_untracked;
	bool nx_adjust_checks_flag;
	bool tdp_mmu_default;
};

struct nxsim_vm;

/* kvm_mmu_init_vm(): Return: 0 or -ENOMEM. */
int nxsim__mmu_init_vm(struct nxsim_vm *vm);
/* kvm_mmu_uninit_vm() plus kvm_mmu_zap_all() at destruction. */
void nxsim__mmu_uninit_vm(struct nxsim_vm *vm);
/* kvm_mmu_zap_all_fast(): called with slots_lock held. */
void nxsim__mmu_zap_all_fast(struct nxsim_vm *vm);
/* One worker pass: kvm_recover_nx_huge_pages() for every MMU type. */
void nxsim__mmu_recover_nx_huge_pages(struct nxsim_vm *vm);

#endif /* NXSIM_MMU_MMU_H */
