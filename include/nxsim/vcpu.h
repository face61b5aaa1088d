/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vCPUs of a VM: KVM_CREATE_VCPU, KVM_RUN (which makes the VM's recovery
 * worker from 6.14 on) and guest accesses, each a TDP page fault when the
 * present SPTE does not allow it.
 *
 * Left out: the vCPU's registers and guest page tables; an access names a
 * guest physical address directly.
 *
 * Thread safety: as <nxsim/vm.h>; accesses of several vCPUs may run
 * concurrently, each fault under the VM's mmu_lock.
 */
#ifndef NXSIM_VCPU_H
#define NXSIM_VCPU_H

#include <stdbool.h>
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

/**
 * nxsim_vcpu_set_apic_hw_enabled() - the guest writes IA32_APIC_BASE.EN
 * @vcpu: the vCPU (its local APIC starts enabled)
 * @enable: the new value of the enable bit
 *
 * kvm_lapic_set_base() inside KVM_RUN, with kvm->srcu held: disabling the
 * APIC increments the apic_hw_disabled static key, which takes
 * cpus_read_lock(); enabling drops it later from deferred work.  The lock
 * order this builds is what the lock checker of debug builds records.
 *
 * Return: the previous state (1 enabled, 0 disabled); -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vcpu_set_apic_hw_enabled(struct nxsim_vcpu *vcpu,
					     bool enable);

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
 * is a TDP page fault (kvm_tdp_page_fault()), handled to completion; the
 * guest then retries and succeeds.
 *
 * Return: 0; -EINVAL for a @kind out of range; -ERANGE for a @gpa beyond
 * the guest's MAXPHYADDR; -EOPNOTSUPP where the TDP MMU is not used
 * (profiles 5.4 and 5.10, whose kvm.tdp_mmu is off by default;
 * kvm.tdp_mmu=0; TDP off); -ENOMEM; -EBADF.
 */
NXSIM_API int nxsim_vcpu_access(struct nxsim_vcpu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				struct nxsim_access_info *info);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_VCPU_H */
