/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct kvm and struct kvm_vcpu, as far as libnxsim models them.
 */
#ifndef NXSIM_KVM_VM_H
#define NXSIM_KVM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "core/gate.h"
#include "core/lockdep.h"
#include "mmu/paging_tmpl.h"
#include "mmu/mmu.h"

struct nxsim_host;
struct nxsim__worker;
struct nxsim__vm_mmu;
struct nxsim__vcpu_tlb;
struct nxsim_vcpu_tlb_config;

#define NXSIM_MAX_VCPU_ID 4096 /* KVM_MAX_VCPU_IDS on x86 */
#define KVM_MAX_VCPUS 1024

enum nxsim__once_state {
	NXSIM__ONCE_NOT_STARTED,
	NXSIM__ONCE_RUNNING,
	NXSIM__ONCE_COMPLETED,
};

/**
 * struct nxsim__once - include/linux/call_once.h
 * @lock: serialises the callback
 * @state: NOT_STARTED, RUNNING or COMPLETED (read locklessly on the fast
 *	path)
 */
struct nxsim__once {
	pthread_mutex_t lock;
	enum nxsim__once_state state;
};

/*
 * The counts of struct kvm_vcpu_stat the model keeps: kvm_mmu_do_page_fault()'s
 * pf_taken, pf_fixed, pf_emulate, pf_spurious; fast_page_fault()'s pf_fast;
 * kvm_inject_page_fault()'s pf_guest; kvm_mmu_invlpg()'s invlpg.
 */
struct nxsim__vcpu_stat {
	uint64_t pf_taken;
	uint64_t pf_fixed;
	uint64_t pf_emulate;
	uint64_t pf_spurious;
	uint64_t pf_fast;
	uint64_t pf_guest;
	uint64_t invlpg;
};

/**
 * struct nxsim_vcpu - struct kvm_vcpu
 * @vm: its VM
 * @id: vcpu_id
 * @link: on vm->vcpus
 * @arch_mmu: the guest's paging state and MMU (vcpu->arch.mmu's guest
 *	half), under the VM's mmu_lock
 * @mutex: vcpu->mutex: one access at a time per vCPU (vcpu_load())
 * @mmu: the MMU's per-vCPU state (the page cache, the MMIO cache)
 * @apic_hw_disabled: IA32_APIC_BASE.EN is clear (the guest disabled its
 *	local APIC); under the vCPU (one caller at a time, as vcpu->mutex)
 * @tlb: its TLB, NULL unless the VM has nxsim_vm_set_vcpu_tlb()
 * @stat: the page-fault counts of struct kvm_vcpu_stat, under @mutex
 */
struct nxsim_vcpu {
	struct nxsim_vm *vm;
	unsigned int id;
	struct nxsim__vcpu_tlb *tlb;
	TAILQ_ENTRY(nxsim_vcpu) link;
	struct nxsim__kvm_mmu arch_mmu;
	pthread_mutex_t mutex;
	struct nxsim__vcpu_mmu mmu;
	bool apic_hw_disabled;
	struct nxsim__vcpu_stat stat;
};

/*
 * kvm_mmu_do_page_fault()'s counts for an access that ended in
 * @outcome, @mmio_exits MMIO exits (handle_mmio_page_fault(), no fault)
 * after the vCPU's earlier ones.
 */
void nxsim__vcpu_count_fault(struct nxsim_vcpu *vcpu,
			     enum nxsim_access_outcome outcome,
			     uint64_t mmio_exits);

/**
 * struct nxsim_vm - struct kvm
 * @magic: NXSIM_VM_MAGIC while the handle is valid
 * @host: the host (kvm.ko) it belongs to
 * @vm_list: link on host->vm_list, then on host->dead_vms; under kvm_lock
 * @nx_walk: link on host->nx_walk, under the host's param_lock
 * @gate: API calls inside the VM but for vCPU accesses (see @vm_dead);
 *	closed by destruction (-EBADF)
 * @lock: kvm->lock: vCPU creation, capabilities
 * @slots_lock: kvm->slots_lock
 * @vcpus: created vCPUs, under @lock
 * @created_vcpus: kvm->created_vcpus, under @lock
 * @worker: the recovery worker, NULL if none; published with WRITE_ONCE
 * @nx_once: kvm->arch.nx_once (6.14 on)
 * @inject_worker_err: error the next worker creation returns, or 0
 * @mmu: the MMU half (src/mmu), from kvm_mmu_init_vm() to destruction
 * @vm_dead: kvm->vm_dead: set by destruction; vCPU calls read it under
 *	their vcpu->mutex (nxsim__vcpu_enter())
 * @counters: side effects of parameter writes, updated atomically
 * @tlb_cfg: the vCPU TLB config (published with a release store), or NULL
 * @tlb_vcpus: the vCPUs with a TLB, KVM_MAX_VCPUS slots, in creation order
 *	(kvm->vcpu_array); filled under @lock
 * @nr_tlb_vcpus: how many (kvm->online_vcpus), published with a release
 *	store after the slot, so flushes read them without @lock
 */
struct nxsim_vm {
	uint32_t magic;
	struct nxsim_host *host;
	TAILQ_ENTRY(nxsim_vm) vm_list;
	TAILQ_ENTRY(nxsim_vm) nx_walk;
	struct nxsim__gate gate;
	pthread_mutex_t lock;
	pthread_mutex_t slots_lock;
	TAILQ_HEAD(, nxsim_vcpu) vcpus;
	unsigned int created_vcpus;
	struct nxsim__worker *worker;
	struct nxsim__once nx_once;
	int inject_worker_err;
	struct nxsim__vm_mmu *mmu;
	bool vm_dead;
	struct nxsim_vm_counters counters;
	struct nxsim_vcpu_tlb_config *tlb_cfg;
	struct nxsim_vcpu **tlb_vcpus;
	unsigned int nr_tlb_vcpus;
};

#define NXSIM_VM_MAGIC 0x6b766d76u /* "kvmv" */

/* Enter / leave an API call on a VM: 0, -EINVAL (NULL) or -EBADF. */
int nxsim__vm_enter(struct nxsim_vm *vm);
void nxsim__vm_exit(struct nxsim_vm *vm);

/*
 * Enter / leave a vCPU's run path, as kvm_vcpu_ioctl() does: the VM's
 * vm_dead flag and the vCPU's own mutex, no VM-wide count (a vCPU ioctl
 * holds only its vCPU file), so that vCPUs of one VM enter in parallel.
 * Return: 0 with vcpu->mutex held, -EINVAL (NULL) or -EBADF (destroyed).
 */
int nxsim__vcpu_enter(struct nxsim_vcpu *vcpu);
void nxsim__vcpu_exit(struct nxsim_vcpu *vcpu);

/* EPT or NPT is in use: the VM's accesses are modelled (else -EOPNOTSUPP). */
bool nxsim__vm_tdp_enabled(const struct nxsim_vm *vm);

/* Free a destroyed VM's handle (host unload). */
void nxsim__vm_free(struct nxsim_vm *vm);

#endif /* NXSIM_KVM_VM_H */
