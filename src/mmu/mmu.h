/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU as the layer above (src/kvm) sees it: what a tree's MMU does
 * (struct nxsim__mmu_profile), the module parameters it reads (struct
 * nxsim__nx_params, which kvm.ko owns and writes), and the entry points
 * that take the MMU half of a VM (struct nxsim__vm_mmu).  The MMU never
 * sees struct nxsim_vm or struct nxsim_host: what it needs of them is
 * handed over in struct nxsim__mmu_config when the VM is made.
 */
#ifndef NXSIM_MMU_MMU_H
#define NXSIM_MMU_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/host.h>
#include <nxsim/mmu.h>

#include "core/lockdep.h"

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

/**
 * struct nxsim__nx_params - module parameter storage (arch/x86/kvm/mmu/mmu.c)
 * @nx_huge_pages: -1 (auto) until kvm.ko init resolves it, then 0 or 1
 * @hard_disabled: nx_hugepage_mitigation_hard_disabled ("never")
 * @itlb_multihit_kvm_mitigation: arch/x86/kernel/cpu/bugs.c's mirror
 * @recovery_ratio: nx_huge_pages_recovery_ratio
 * @recovery_period_ms: nx_huge_pages_recovery_period_ms
 *
 * Written by the setters (src/kvm/nx_params.c) under the host's param_lock
 * (and, for @hard_disabled, kvm_lock); read locklessly with READ_ONCE(), by
 * the MMU too.
 */
struct nxsim__nx_params {
	int nx_huge_pages;
	bool hard_disabled;
	bool itlb_multihit_kvm_mitigation;
	unsigned int recovery_ratio;
	unsigned int recovery_period_ms;
};

/**
 * enum nxsim__vcpu_flush - what a remote flush asks of every vCPU
 * @NXSIM__FLUSH_ALL: KVM_REQ_TLB_FLUSH (kvm_flush_remote_tlbs())
 * @NXSIM__FLUSH_RANGE: a gfn range (kvm_flush_remote_tlbs_range() of
 *	6.6, kvm_flush_remote_tlbs_with_address() of 6.1); the kvm layer
 *	flushes it as a range only where the host has a ranged flush
 * @NXSIM__FLUSH_ROOTS: KVM_REQ_MMU_FREE_OBSOLETE_ROOTS: the vCPU drops its
 *	obsolete root and loads a new one, flushing what it cached
 */
enum nxsim__vcpu_flush {
	NXSIM__FLUSH_ALL,
	NXSIM__FLUSH_RANGE,
	NXSIM__FLUSH_ROOTS,
};

/*
 * Called with mmu_lock held, from any thread, for every remote flush;
 * @gfn and @pages only for NXSIM__FLUSH_RANGE.
 */
typedef void (*nxsim__flush_vcpus_fn)(void *ctx, enum nxsim__vcpu_flush what,
				      uint64_t gfn, uint64_t pages);

/**
 * struct nxsim__mmu_config - what the MMU of a new VM is told
 * @cpu: the host CPU (SPTE format, root level, 1 GiB pages, MAXPHYADDR)
 * @prof: the tree's MMU behaviours
 * @bugs: NXSIM_BUG_* switches
 * @params: the module parameters, read live
 * @flush_vcpus: reaches the VM's vCPUs (kvm_make_all_cpus_request());
 *	NULL: nothing to reach
 * @flush_ctx: passed to @flush_vcpus
 */
struct nxsim__mmu_config {
	const struct nxsim_cpu *cpu;
	const struct nxsim__mmu_profile *prof;
	uint64_t bugs;
	const struct nxsim__nx_params *params;
	nxsim__flush_vcpus_fn flush_vcpus;
	void *flush_ctx;
};

struct nxsim__vm_mmu;

/* kvm_mmu_init_vm(): Return: 0 or -ENOMEM. */
int nxsim__kvm_mmu_init_vm(const struct nxsim__mmu_config *cfg,
			   struct nxsim__vm_mmu **mmup);
/* kvm_mmu_uninit_vm() plus kvm_mmu_zap_all() at destruction; frees @mmu. */
void nxsim__kvm_mmu_uninit_vm(struct nxsim__vm_mmu *mmu);
/* kvm_mmu_zap_all_fast(): called with slots_lock held. */
void nxsim__kvm_mmu_zap_all_fast(struct nxsim__vm_mmu *mmu);
/* One worker pass: kvm_recover_nx_huge_pages() for every MMU type. */
void nxsim__mmu_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu);
/* is_nx_huge_page_enabled(kvm) */
bool nxsim__is_nx_huge_page_enabled(struct nxsim__vm_mmu *mmu);
/* kvm->arch.disable_nx_huge_pages = true (under kvm->lock). */
void nxsim__mmu_disable_nx_huge_pages(struct nxsim__vm_mmu *mmu);

/* What the leaf SPTE allows after an access (@rights of the access). */
#define NXSIM__RIGHT_WRITE 1u
#define NXSIM__RIGHT_EXEC 2u

/*
 * A guest access at @gpa: the hardware walk and, if it misses, the TDP
 * page fault, under mmu_lock.  *@rights (may be NULL) receives what the
 * leaf then allows, NXSIM__RIGHT_*.  Return: 0, -ERANGE (beyond
 * MAXPHYADDR) or -ENOMEM.
 */
int nxsim__mmu_access(struct nxsim__vm_mmu *mmu, enum nxsim_access_kind kind,
		      uint64_t gpa, struct nxsim_access_info *info,
		      unsigned int *rights);
/* The TDP root's level (4 or 5): the host dimension of a guest walk. */
int nxsim__mmu_root_level(const struct nxsim__vm_mmu *mmu);
/*
 * KVM_SET_USER_MEMORY_REGION (__kvm_set_memory_region() and the x86 and
 * MMU hooks it calls); called with slots_lock held.
 */
int nxsim__kvm_set_memory_region(struct nxsim__vm_mmu *mmu,
				 const struct nxsim_memory_region *mr);
/*
 * The host remaps part of a slot at @level (1 to 3, checked by the caller);
 * called with slots_lock held.  Return: 0 or -EINVAL.
 */
int nxsim__mmu_set_host_level(struct nxsim__vm_mmu *mmu, uint32_t slot_id,
			      uint64_t offset, uint64_t size, int level);

/* The invariant checker: Return: violations found. */
int nxsim__mmu_check(struct nxsim__vm_mmu *mmu, nxsim_text_fn report,
		     void *ctx);
/* The readable dump: Return: lines emitted. */
int nxsim__mmu_dump(struct nxsim__vm_mmu *mmu, nxsim_text_fn emit, void *ctx);
/* The VM stats, one snapshot under mmu_lock. */
void nxsim__mmu_stats(struct nxsim__vm_mmu *mmu, struct nxsim_vm_stats *st);
void nxsim__mmu_counters(struct nxsim__vm_mmu *mmu,
			 struct nxsim_mmu_counters *c);
/* Page-table pages in use (not counting the cache). */
long nxsim__mmu_nr_pages(struct nxsim__vm_mmu *mmu);

#endif /* NXSIM_MMU_MMU_H */
