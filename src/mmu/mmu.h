/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU's entry points used by the VM lifecycle, the parameters and the
 * recovery worker.
 */
#ifndef NXSIM_MMU_MMU_H
#define NXSIM_MMU_MMU_H

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
