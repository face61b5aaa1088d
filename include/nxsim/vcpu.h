/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vCPUs of a VM: KVM_CREATE_VCPU, KVM_RUN (which makes the VM's recovery
 * worker from 6.14 on) and guest accesses, each a TDP page fault when the
 * present SPTE does not allow it.
 *
 * With TDP on an access names a guest physical address.  With TDP off
 * (shadow paging) it names a guest virtual address, which the vCPU's
 * paging state and guest page tables translate (<nxsim/guest.h>).
 *
 * Thread safety: as <nxsim/vm.h>; accesses of several vCPUs may run
 * concurrently, each fault under the VM's mmu_lock.
 */
#ifndef NXSIM_VCPU_H
#define NXSIM_VCPU_H

#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/mmu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nxsim_vm;
struct nxsim_vcpu;

/**
 * nxsim_vcpu_create() - KVM_CREATE_VCPU
 * @vm: the VM
 * @id: vCPU id
 * @vcpup: receives the vCPU
 *
 * Return: 0; -EEXIST for a used id; -EINVAL for an id >= 4096; -ENOMEM;
 * -EBADF.
 */
NXSIM_API int nxsim_vcpu_create(struct nxsim_vm *vm, unsigned int id,
				struct nxsim_vcpu **vcpup);

/**
 * nxsim_vcpu_run() - enter KVM_RUN
 *
 * On 6.14 and later the first KVM_RUN of any vCPU makes the VM's worker;
 * if that fails the error is returned and the next KVM_RUN tries again.
 *
 * Return: 0 or a negative errno.
 */
NXSIM_API int nxsim_vcpu_run(struct nxsim_vcpu *vcpu);

/** nxsim_vcpu_vm() - the VM a vCPU belongs to. */
NXSIM_API struct nxsim_vm *nxsim_vcpu_vm(const struct nxsim_vcpu *vcpu);

/**
 * nxsim_vcpu_access() - a guest access at a guest physical address
 * @vcpu: the vCPU
 * @kind: read, write or exec
 * @gpa: the address
 * @info: receives what happened (may be NULL)
 *
 * If the present SPTE allows the access, nothing happens.  Otherwise it
 * is a TDP page fault (kvm_tdp_page_fault()), handled to completion by
 * the TDP MMU or, where it is not used (profiles 5.4 and 5.10, whose
 * kvm.tdp_mmu is off by default; kvm.tdp_mmu=0), by the shadow MMU's
 * direct map; the guest then retries and succeeds.  With TDP off
 * (cpu.no_tdp) @gpa is the guest's virtual address (the gpa while its
 * paging is off): the fault walks the guest's tables (FNAME(page_fault))
 * and may end in the guest's own page fault (NXSIM_ACCESS_GUEST_FAULT)
 * or, for a write to a shadowed guest table, in emulation.
 *
 * Return: 0; -EINVAL for a @kind out of range; -ERANGE for a @gpa beyond
 * the guest's MAXPHYADDR (TDP off: an address the guest's mode cannot
 * form); -EOPNOTSUPP with TDP off for a guest in 32-bit or PAE paging
 * (not modelled); -ENOMEM; -EBADF.
 */
NXSIM_API int nxsim_vcpu_access(struct nxsim_vcpu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				struct nxsim_access_info *info);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_VCPU_H */
