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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/mmu.h>
#include <nxsim/tlb.h>

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
 * nxsim_vcpu_set_smm() - put a vCPU in or out of System Management Mode
 * @vcpu: the vCPU (it starts outside SMM)
 * @smm: in SMM
 * @was: receives the previous state (may be NULL)
 *
 * KVM_SET_VCPU_EVENTS with KVM_VCPUEVENT_VALID_SMM (kvm_smm_changed()):
 * in SMM the vCPU's accesses use address space 1, the slots set with
 * (1 << 16) | id, and roots of their own (role.smm); its TLB keeps
 * nothing of the other root.
 *
 * Return: 0; -EINVAL; -EOPNOTSUPP on a host with TDP off (shadow paging
 * is modelled in address space 0 only); -EBADF.
 */
NXSIM_API int nxsim_vcpu_set_smm(struct nxsim_vcpu *vcpu, bool smm, bool *was);

/**
 * nxsim_vcpu_set_apic_hw_enabled() - the guest writes IA32_APIC_BASE.EN
 * @vcpu: the vCPU (its local APIC starts enabled)
 * @enable: the new value of the enable bit
 * @was: receives the previous value (may be NULL)
 *
 * kvm_lapic_set_base() inside KVM_RUN, with kvm->srcu held: disabling the
 * APIC increments the apic_hw_disabled static key, which takes
 * cpus_read_lock(); enabling drops it later from deferred work.  The lock
 * order this builds is what the lock checker of debug builds records.
 *
 * Return: 0; -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vcpu_set_apic_hw_enabled(struct nxsim_vcpu *vcpu,
					     bool enable, bool *was);

/** nxsim_vcpu_vm() - the VM a vCPU belongs to. */
NXSIM_API struct nxsim_vm *nxsim_vcpu_vm(const struct nxsim_vcpu *vcpu);

/**
 * nxsim_vcpu_kstats() - every scalar stat of the vCPU's binary stats fd
 * @vcpu: the vCPU
 * @st: receives up to @n of them in the kernel's order (6.1's
 *	kvm_vcpu_stats_desc without the halt-polling histograms): the page
 *	fault counts pf_* and invlpg are modelled, the exit and halt counts
 *	not
 * @n: room in @st
 *
 * Return: the number of stats (all of them); -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vcpu_kstats(struct nxsim_vcpu *vcpu, struct nxsim_kstat *st,
				unsigned int n);

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
 * form); -ENOMEM; -EBADF.
 */
NXSIM_API int nxsim_vcpu_access(struct nxsim_vcpu *vcpu,
				enum nxsim_access_kind kind, uint64_t gpa,
				struct nxsim_access_info *info);

/* ---- the vCPU's TLB (opt-in per VM) ----------------------------------- */

/**
 * struct nxsim_guest_costs - cycles the guest-side outputs are charged
 *
 * Every row has its source in nxsim_guest_cost_info() and
 * docs/guest-tlb.md.  The three cost tables (this one, struct
 * nxsim_xpfo_costs, struct nxsim_bringup_costs) answer the same calls:
 * _default(), _info(idx) and _set(name).
 * @access: guest work per memory access (the baseline the ratios divide)
 * @stlb_hit: an L1 miss that hits the second-level TLB
 * @walk_ref: one memory reference of a two-dimensional walk
 * @fault: a TDP page fault: VM exit, handling, VM entry
 * @split: an in-place split of a huge SPTE (one page-table page filled)
 * @zap: a zap of a huge SPTE on a fault (before 6.2), without its flush
 * @flush_send: a remote flush, on the thread that requests it
 * @flush_recv: a flush request handled by one vCPU (exit, flush, entry)
 */
struct nxsim_guest_costs {
	uint32_t access;
	uint32_t stlb_hit;
	uint32_t walk_ref;
	uint32_t fault;
	uint32_t split;
	uint32_t zap;
	uint32_t flush_send;
	uint32_t flush_recv;
};

/** nxsim_guest_costs_default() - the sourced defaults. */
NXSIM_API void nxsim_guest_costs_default(struct nxsim_guest_costs *c);

/**
 * nxsim_guest_cost_info() - the @idx-th row of the table
 * @idx: index from 0
 * @name: receives its name (the field's), or NULL
 * @cycles: receives its default, or NULL
 * @source: receives where the default comes from, or NULL
 *
 * Return: 0, or -ENOENT past the last.
 */
NXSIM_API int nxsim_guest_cost_info(unsigned int idx, const char **name,
				    uint32_t *cycles, const char **source);

/**
 * nxsim_guest_costs_set() - set the row named @name in @c to @cycles
 * @c: a cost table (nxsim_guest_costs_default() fills one)
 * @name: a row name, as nxsim_guest_cost_info() answers it ("fault")
 * @cycles: its new value
 * @why: receives a static description of what is wrong, on error (may be
 *	NULL)
 *
 * Return: 0; -EINVAL for a NULL @c or @name; -ENOENT for a name the
 * table does not have.  On error @c is unchanged.
 */
NXSIM_API int nxsim_guest_costs_set(struct nxsim_guest_costs *c,
				    const char *name, uint32_t cycles,
				    const char **why);

/**
 * nxsim_guest_cost_source() - where the default of row @name comes from
 *
 * The source nxsim_guest_cost_info() answers, looked up by name.
 *
 * Return: the text, or NULL for an unknown @name.
 */
NXSIM_API const char *nxsim_guest_cost_source(const char *name);

/**
 * nxsim_guest_walk_refs() - memory references of a two-dimensional walk
 * @guest_level: the guest's mapping (NXSIM_PG_LEVEL_*), 4-level paging
 * @host_level: the SPTE's level
 * @root_level: the TDP root (4 or 5)
 * @pwc: page-walk caches hold every non-leaf entry of both dimensions
 *
 * (g + 1)(h + 1) - 1 with g = 5 - @guest_level guest levels and
 * h = @root_level + 1 - @host_level host levels: 24 for 4K on 4K under a
 * 4-level root; 3 with @pwc (one reference per dimension's leaf).
 *
 * Return: the count, or -EINVAL for a level out of range.
 */
NXSIM_API int nxsim_guest_walk_refs(int guest_level, int host_level,
				    int root_level, bool pwc);

/**
 * struct nxsim_vcpu_tlb_config - the TLB each vCPU of a VM gets
 * @tlb: geometry, replacement and flush ceiling (@tlb.nr_cpus is ignored:
 *	each vCPU has its own one-CPU TLB)
 * @range_flush: ranged remote flushes reach the vCPUs as ranges (a host
 *	with kvm_x86_ops.flush_remote_tlbs_range, e.g. Hyper-V's enlightened
 *	flush); otherwise each is a full flush, as on bare-metal EPT/NPT
 * @pwc: page-walk caches (see nxsim_guest_walk_refs())
 * @costs: the cycles charged
 */
struct nxsim_vcpu_tlb_config {
	struct nxsim_tlb_config tlb;
	bool range_flush;
	bool pwc;
	struct nxsim_guest_costs costs;
};

/** nxsim_vcpu_tlb_config_default() - Skylake-like TLB, full flushes. */
NXSIM_API void nxsim_vcpu_tlb_config_default(struct nxsim_vcpu_tlb_config *c);

/**
 * nxsim_vm_set_vcpu_tlb() - give every vCPU of @vm a TLB
 * @vm: a VM without vCPUs yet
 * @cfg: the TLB; copied
 *
 * From then on a guest access looks up the vCPU's TLB first; a miss pays
 * a two-dimensional walk and goes to the MMU (faulting if needed), and
 * fills an entry of the smaller of the guest's and the SPTE's page size.
 * Remote flushes reach every vCPU as requests handled at its next access.
 *
 * Return: 0; -EBUSY once a vCPU exists or a TLB was set; -EINVAL for a
 * bad geometry or NULL; -ENOENT for an unknown replacement; -ENOMEM;
 * -EBADF.
 */
NXSIM_API int nxsim_vm_set_vcpu_tlb(struct nxsim_vm *vm,
				    const struct nxsim_vcpu_tlb_config *cfg);

/*
 * The guest_level of an access whose address is a guest virtual address,
 * translated by the guest's own page tables (4-level 64-bit paging,
 * <nxsim/guest.h>): the guest's walk gives the level and the gpa.
 */
#define NXSIM_GUEST_LEVEL_WALK 255

/**
 * nxsim_vcpu_access_guest() - a guest access mapped by the guest at
 *			       @guest_level
 * @vcpu: the vCPU
 * @kind: read, write or exec
 * @gpa: the address (guest virtual and physical alike: the guest's page
 *	tables are an identity map whose page size is @guest_level); with
 *	NXSIM_GUEST_LEVEL_WALK, a guest virtual address
 * @guest_level: NXSIM_PG_LEVEL_4K, _2M or _1G; or NXSIM_GUEST_LEVEL_WALK
 * @info: receives what happened (may be NULL); a TLB hit is
 *	NXSIM_ACCESS_HIT with the level the SPTE had when it was filled
 *
 * Without a vCPU TLB, @guest_level is checked and the access is
 * nxsim_vcpu_access().  The vCPU's TLB belongs to the thread running the
 * vCPU: one thread at a time per vCPU.
 *
 * With NXSIM_GUEST_LEVEL_WALK and a vCPU TLB, a miss walks the guest's
 * tables (setting A and D as the hardware does; a failed walk is the
 * guest's own page fault, NXSIM_ACCESS_GUEST_FAULT, and caches nothing)
 * and then, with TDP, the gpa's SPTE; the entry caches the gva at the
 * smaller of the guest's mapping level and the SPTE's, with what both
 * allow.  With TDP off the miss is the shadow MMU's (FNAME(page_fault)),
 * and the entry caches the shadow leaf.  The guest's paging mode is read
 * as the vCPU's own state: load it (nxsim_guest_set_paging()) from the
 * thread that runs the vCPU.
 *
 * Return: as nxsim_vcpu_access(); -EINVAL for a bad @guest_level;
 * -EOPNOTSUPP for NXSIM_GUEST_LEVEL_WALK with TDP on a vCPU without a
 * TLB, or on a vCPU TLB for a guest not in 64-bit paging; -ERANGE for a
 * non-canonical gva.
 */
NXSIM_API int nxsim_vcpu_access_guest(struct nxsim_vcpu *vcpu,
				      enum nxsim_access_kind kind, uint64_t gpa,
				      int guest_level,
				      struct nxsim_access_info *info);

/**
 * struct nxsim_guest_access - one access of a batch
 * @gpa: the address (a gva with NXSIM_GUEST_LEVEL_WALK)
 * @kind: enum nxsim_access_kind
 * @guest_level: the guest's mapping level, NXSIM_PG_LEVEL_*, or
 *	NXSIM_GUEST_LEVEL_WALK
 */
struct nxsim_guest_access {
	uint64_t gpa;
	uint8_t kind;
	uint8_t guest_level;
};

/**
 * nxsim_vcpu_access_batch() - nxsim_vcpu_access_guest() over @n accesses
 *
 * Enters the VM once for the batch.  Stops at the first error.  With
 * TDP off every access must be NXSIM_GUEST_LEVEL_WALK on a vCPU TLB
 * (shadow paging translates guest virtual addresses).
 *
 * Return: @n, or the negative errno of the access that failed (the ones
 * before it happened).
 */
NXSIM_API int64_t nxsim_vcpu_access_batch(struct nxsim_vcpu *vcpu,
					  const struct nxsim_guest_access *a,
					  size_t n);

/**
 * struct nxsim_vcpu_stats - what one vCPU's TLB saw
 * @accesses: guest accesses through the TLB
 * @exec: of them, instruction fetches (iTLB side)
 * @l1d_misses: data accesses the L1 dTLB did not serve
 * @l1i_misses: fetches the L1 iTLB did not serve
 * @walks: accesses that walked (second-level miss, or a cached entry that
 *	did not allow the access)
 * @perm_misses: of @walks, those whose entry did not allow the access
 * @walk_refs: memory references of those walks
 * @walk_cycles: @walk_refs times the walk_ref cost
 * @faults: walks the MMU turned into a page fault (any outcome but HIT)
 * @fills_4k: entries filled at 4 KiB
 * @fills_2m: at 2 MiB
 * @fills_1g: at 1 GiB
 * @flush_requests: remote flush requests posted to this vCPU
 * @tlb_flush: flushes KVM did on it (vcpu->stat.tlb_flush): the remote
 *	KVM_REQ_TLB_FLUSH, and those the guest's control-register loads
 *	request (docs/guest-tlb.md)
 * @tlb_flush_range: ranged flushes it did
 * @root_reloads: root reloads it did (KVM_REQ_MMU_FREE_OBSOLETE_ROOTS,
 *	nxsim_vcpu_set_smm() changing the address space, or
 *	nxsim_guest_set_paging() changing a bit of the MMU role)
 * @invlpg: the guest's INVLPGs (nxsim_guest_invlpg()); with shadow paging
 *	KVM intercepts each (vcpu->stat.invlpg)
 * @cr3_flushes: the guest's CR3 loads (nxsim_guest_set_paging()), each
 *	flushing the TLB
 */
struct nxsim_vcpu_stats {
	uint64_t accesses;
	uint64_t exec;
	uint64_t l1d_misses;
	uint64_t l1i_misses;
	uint64_t walks;
	uint64_t perm_misses;
	uint64_t walk_refs;
	uint64_t walk_cycles;
	uint64_t faults;
	uint64_t fills_4k;
	uint64_t fills_2m;
	uint64_t fills_1g;
	uint64_t flush_requests;
	uint64_t tlb_flush;
	uint64_t tlb_flush_range;
	uint64_t root_reloads;
	uint64_t invlpg;
	uint64_t cr3_flushes;
};

/**
 * nxsim_vcpu_stats() - read @vcpu's counters
 *
 * Call it from the vCPU's thread (or when no access runs on it).
 *
 * Return: 0; -EINVAL for NULL; -ENODEV when the VM has no vCPU TLB.
 */
NXSIM_API int nxsim_vcpu_stats(struct nxsim_vcpu *vcpu,
			       struct nxsim_vcpu_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_VCPU_H */
