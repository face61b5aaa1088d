// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMU as the VM lifecycle sees it: per-VM MMU state, the fast zap of
 * every mapping that a change of nx_huge_pages triggers, and the recovery
 * pass the worker runs.  This file holds the state a VM without mappings
 * has; the page tables, fault path and NX tracking build on it.
 *
 * Models kvm_mmu_init_vm(), kvm_mmu_zap_all_fast() (generation flip) and
 * kvm_recover_nx_huge_pages() over an empty list.
 */
#include <errno.h>

#include "core/alloc.h"
#include "mmu/mmu.h"
#include "mmu/vm.h"

/**
 * struct nxsim__vm_mmu - the MMU half of struct kvm_arch
 * @mmu_valid_gen: kvm->arch.mmu_valid_gen, flipped by each fast zap
 */
struct nxsim__vm_mmu {
	uint8_t mmu_valid_gen;
};

int nxsim__mmu_init_vm(struct nxsim_vm *vm)
{
	vm->mmu = nxsim__zalloc(sizeof(*vm->mmu));
	return vm->mmu ? 0 : -ENOMEM;
}

void nxsim__mmu_uninit_vm(struct nxsim_vm *vm)
{
	nxsim__free(vm->mmu, sizeof(*vm->mmu));
	vm->mmu = NULL;
}

void nxsim__mmu_zap_all_fast(struct nxsim_vm *vm)
{
	pthread_rwlock_wrlock(&vm->mmu_lock);
	vm->mmu->mmu_valid_gen ^= 1;
	pthread_rwlock_unlock(&vm->mmu_lock);
}

void nxsim__mmu_recover_nx_huge_pages(struct nxsim_vm *vm)
{
	/* Without mappings the possible_nx_huge_pages list is empty. */
	pthread_rwlock_wrlock(&vm->mmu_lock);
	pthread_rwlock_unlock(&vm->mmu_lock);
}
