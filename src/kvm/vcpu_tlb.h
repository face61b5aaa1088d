/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A vCPU's TLB (the hardware's, tagged by the VM's EPTP/ASID) and the
 * requests that remote flushes post to it: KVM_REQ_TLB_FLUSH and
 * KVM_REQ_MMU_FREE_OBSOLETE_ROOTS of include/linux/kvm_host.h and
 * arch/x86/include/asm/kvm_host.h, handled as vcpu_enter_guest() handles
 * them, at the vCPU's next access.
 *
 * Left out: the IPI that kicks a vCPU out of guest mode and the wait for
 * its acknowledgement (KVM_REQUEST_WAIT): an access is one event, so a
 * request posted while it runs takes effect at the next one.
 */
#ifndef NXSIM_KVM_VCPU_TLB_H
#define NXSIM_KVM_VCPU_TLB_H

#include <pthread.h>
#include <stdint.h>

#include <nxsim/vcpu.h>

#include "mmu/mmu.h"

struct nxsim_vm;
struct nxsim_vcpu;

#define NXSIM__REQ_TLB_FLUSH 1u	 /* KVM_REQ_TLB_FLUSH */
#define NXSIM__REQ_TLB_RANGE 2u	 /* a ranged flush is pending */
#define NXSIM__REQ_FREE_ROOTS 4u /* KVM_REQ_MMU_FREE_OBSOLETE_ROOTS */

/**
 * struct nxsim__vcpu_tlb - the TLB of one vCPU and its pending requests
 * @tlb: a one-CPU TLB, used only by the vCPU's thread
 * @requests: vcpu->requests: NXSIM__REQ_* bits, set by any thread
 * @range_lock: guards @range_start and @range_end
 * @range_start: first gfn of the pending ranged flushes' envelope
 * @range_end: one past the last
 * @flush_requests: requests posted, updated atomically by the posters
 * @gva: entries may be tagged by gva (NXSIM_GUEST_LEVEL_WALK): a ranged
 *	flush, which names gfns, flushes everything
 * @st: counters of the vCPU's thread (@st.flush_requests unused)
 */
struct nxsim__vcpu_tlb {
	struct nxsim_tlb *tlb;
	uint32_t requests;
	pthread_mutex_t range_lock;
	uint64_t range_start;
	uint64_t range_end;
	uint64_t flush_requests;
	bool gva;
	struct nxsim_vcpu_stats st;
};

/* The vCPU's TLB for a VM that has the config; -ENOMEM etc. */
int nxsim__vcpu_tlb_create(struct nxsim_vm *vm, struct nxsim_vcpu *vcpu);
void nxsim__vcpu_tlb_free(struct nxsim_vcpu *vcpu);

/*
 * kvm_make_all_cpus_request() for the MMU's remote flushes: the
 * struct nxsim__mmu_config callback, @ctx the VM.
 */
void nxsim__kvm_make_all_cpus_request(void *ctx, enum nxsim__vcpu_flush what,
				      uint64_t gfn, uint64_t pages);

/*
 * kvm_mmu_reset_context() on the vCPU's thread (its mutex held): the next
 * access loads another root, so nothing the TLB holds from the old one
 * (tagged by the old EPTP) is used again; counted as a root reload.
 */
void nxsim__vcpu_tlb_reset_context(struct nxsim_vcpu *vcpu);

/* The guest's INVLPG of @gva on @vcpu (its mutex held). */
void nxsim__vcpu_tlb_invlpg(struct nxsim_vcpu *vcpu, uint64_t gva);

struct nxsim_guest_paging;

/* The guest loaded CR0, CR4, EFER and CR3 on @vcpu, from @old to @new. */
void nxsim__vcpu_tlb_set_paging(struct nxsim_vcpu *vcpu,
				const struct nxsim_guest_paging *old,
				const struct nxsim_guest_paging *new);

/*
 * A guest access on @vcpu of an entered VM that uses the TDP MMU: through
 * the vCPU's TLB if it has one.  Return: as nxsim_vcpu_access_guest().
 */
int nxsim__vcpu_access_entered(struct nxsim_vcpu *vcpu,
			       enum nxsim_access_kind kind, uint64_t gpa,
			       int guest_level, struct nxsim_access_info *info);

#endif /* NXSIM_KVM_VCPU_TLB_H */
