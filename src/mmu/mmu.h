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
#include <nxsim/nx_recovery.h>

#include "core/lockdep.h"
#include "core/rwlock.h"

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
 * @fault_read_lock: TDP MMU faults run under mmu_lock held for read, with
 *	atomic SPTE updates and RCU-freed page tables (5.12); before, under
 *	the write lock
 * @dirty_log_read_lock: the TDP MMU's dirty-logging walks (write-protect
 *	and clear-dirty on enable, zap of collapsible SPTEs or the in-place
 *	recovery on disable) run under the read lock (5.13)
 * @recovery_read_lock: NX recovery of the TDP MMU's list runs under the
 *	read lock, zapping with an atomic SPTE update (6.18)
 * @spte_update_wp_flush_only: mmu_spte_update() asks for a flush only
 *	when an MMU-writable SPTE stops being MMU-writable (b7ed46b201a4,
 *	6.13); before, also when it loses W or when A or D is cleared, so a
 *	shadow page's sync (FNAME(sync_page)) flushes for every accessed SPTE
 * @nx_account_any_level: every page an exec fault links while the
 *	mitigation is on is accounted (v5.4 __direct_map() and FNAME(fetch)
 *	test lpage_disallowed only); 5bcaf3e1715f (5.10) accounts a page only
 *	where a huge page was requested (req_level >= its level)
 * @notifier_zaps_tables: the MMU notifier's zap on the TDP MMU also
 *	clears a non-leaf SPTE whose range lies inside the zapped one,
 *	freeing its table and the table's NX accounting (5.10
 *	kvm_tdp_mmu_zap_hva_range() -> zap_gfn_range()); later trees zap
 *	leaves only (6.1 kvm_tdp_mmu_unmap_gfn_range() ->
 *	kvm_tdp_mmu_zap_leafs())
 * @tdp_collapse_tests_table_pfn: the TDP MMU's zap of collapsible SPTEs
 *	tests PageTransCompoundMap() on a non-leaf SPTE's pfn, a page-table
 *	page, so disabling dirty logging zaps nothing (5.10
 *	zap_collapsible_spte_range(); fixed in 5.12 by "KVM: x86/mmu: Fix
 *	TDP MMU zap collapsible SPTEs")
 * @rmap_collapse_4k_only: the shadow MMU's zap of collapsible SPTEs walks
 *	the 4K rmaps only (slot_handle_leaf() in kvm_mmu_zap_collapsible_sptes()
 *	of 5.4 and 5.10); 6.1 walks the 4K and 2M ones
 * @clear_dirty_log_end_inclusive: kvm_arch_mmu_enable_log_dirty_pt_masked()
 *	passes the last set gfn + 1 to kvm_mmu_try_split_huge_pages()
 *	(1aa4bb916808, 6.8); before, the last set gfn, an exclusive end
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
	bool fault_read_lock;
	bool dirty_log_read_lock;
	bool recovery_read_lock;
	bool spte_update_wp_flush_only;
	bool nx_account_any_level;
	bool notifier_zaps_tables;
	bool tdp_collapse_tests_table_pfn;
	bool rmap_collapse_4k_only;
	bool clear_dirty_log_end_inclusive;
};

/**
 * enum nxsim__sched_point - where the MMU may let a test run other threads
 * @NXSIM__SCHED_FAULTIN: a fault read mmu_invalidate_seq and resolved its
 *	pfn, before mmu_lock (the kernel's __kvm_faultin_pfn())
 * @NXSIM__SCHED_WALK: kvm_tdp_mmu_map() read the SPTE at a level
 * @NXSIM__SCHED_LINK: a new child table is filled, not yet published
 * @NXSIM__SCHED_LINKED: the child was published, before its possible-NX
 *	accounting
 * @NXSIM__SCHED_TARGET: at the target level, before installing the leaf
 * @NXSIM__SCHED_RETRY: the fault returns RET_PF_RETRY and will run again
 * @NXSIM__SCHED_FROZEN: spinning on a frozen SPTE (cpu_relax())
 * @NXSIM__SCHED_INVALIDATE: between invalidate_range_start() and _end()
 * @NXSIM__SCHED_RESCHED: tdp_mmu_iter_cond_resched() and the recovery
 *	loop's lock break: a yield point
 * @NXSIM__SCHED_MEMSLOT: a slot being deleted or moved is invalid and
 *	zapped, and not yet out of the memslots (gfn: its first)
 * @NXSIM__SCHED_MMIO: the TDP MMU's hardware walk met an MMIO SPTE (level:
 *	where), before handle_mmio_page_fault()'s own walk
 */
enum nxsim__sched_point {
	NXSIM__SCHED_FAULTIN,
	NXSIM__SCHED_WALK,
	NXSIM__SCHED_LINK,
	NXSIM__SCHED_LINKED,
	NXSIM__SCHED_TARGET,
	NXSIM__SCHED_RETRY,
	NXSIM__SCHED_FROZEN,
	NXSIM__SCHED_INVALIDATE,
	NXSIM__SCHED_RESCHED,
	NXSIM__SCHED_MEMSLOT,
	NXSIM__SCHED_MMIO,
	NXSIM__NR_SCHED_POINTS,
};

/* The hook: called at @p with the gfn and level in hand (or 0). */
typedef void (*nxsim__sched_fn)(void *ctx, enum nxsim__sched_point p,
				uint64_t gfn, int level);

/**
 * struct nxsim__nx_params - module parameter storage (arch/x86/kvm/mmu/mmu.c)
 * @nx_huge_pages: -1 (auto) until kvm.ko init resolves it, then 0 or 1
 * @hard_disabled: nx_hugepage_mitigation_hard_disabled ("never")
 * @itlb_multihit_kvm_mitigation: arch/x86/kernel/cpu/bugs.c's mirror
 * @recovery_ratio: nx_huge_pages_recovery_ratio
 * @recovery_period_ms: nx_huge_pages_recovery_period_ms
 * @eager_page_split: kvm.eager_page_split (arch/x86/kvm/x86.c; false
 *	where the profile has no such parameter)
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
	bool eager_page_split;
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
 * @tdp_mmu: the VM uses the TDP MMU (kvm->arch.tdp_mmu_enabled); otherwise
 *	the shadow MMU maps its faults (the legacy direct MMU)
 * @mmio_caching: kvm.mmio_caching (allow_mmio_caching; default on)
 * @nx_recovery: the recovery rule; NULL: the profile's kernel rule
 * @flush_vcpus: reaches the VM's vCPUs (kvm_make_all_cpus_request());
 *	NULL: nothing to reach
 * @flush_ctx: passed to @flush_vcpus
 */
struct nxsim__mmu_config {
	const struct nxsim_cpu *cpu;
	const struct nxsim__mmu_profile *prof;
	uint64_t bugs;
	const struct nxsim__nx_params *params;
	bool tdp_mmu;
	bool mmio_caching;
	const struct nxsim_nx_recovery_ops *nx_recovery;
	nxsim__flush_vcpus_fn flush_vcpus;
	void *flush_ctx;
};

/**
 * struct nxsim__mmu_memory_cache - a vCPU's mmu_shadow_page_cache
 * @objs: page-table pages topped up before mmu_lock
 * @nobjs: entries in @objs
 */
struct nxsim__mmu_memory_cache {
	struct nxsim__mmu_page *objs[6];
	unsigned int nobjs;
};

/**
 * struct nxsim__vcpu_mmu - what the MMU keeps per vCPU (struct
 *	kvm_vcpu_arch)
 * @mmu_cache: vcpu->arch.mmu_shadow_page_cache, topped up before a fault
 * @mmio_gfn: vcpu->arch.mmio_gfn, the last MMIO gfn cached; 0 for none
 * @mmio_gen: vcpu->arch.mmio_gen, the memslots generation cached with it
 * @smm: is_smm(vcpu): the vCPU's memslots and roots are those of
 *	address space 1 (kvm_arch_vcpu_memslots_id())
 * @stat: the counters this vCPU's faults make (faults, their emulations,
 *	MMIO exits), as the kernel keeps its fault stats in vcpu->stat:
 *	written by the vCPU alone, added to the VM's when read
 * @next: the MMU's next vCPU (nxsim__kvm_mmu_create())
 *
 * Used by the vCPU's own accesses (the caller holds the vCPU's mutex);
 * the MMIO cache under mmu_lock; @smm is written by
 * KVM_SET_VCPU_EVENTS under the vCPU's mutex.
 */
struct nxsim__vcpu_mmu {
	struct nxsim__mmu_memory_cache mmu_cache;
	uint64_t mmio_gfn;
	uint64_t mmio_gen;
	bool smm;
	struct nxsim_mmu_counters stat;
	struct nxsim__vcpu_mmu *next;
};

struct nxsim__vm_mmu;
struct nxsim__mmu_page;

/*
 * kvm_mmu_create(): a new vCPU's MMU half joins the VM's, whose counter
 * reads add its @stat from now on.  It stays until the VM goes.
 */
void nxsim__kvm_mmu_create(struct nxsim__vm_mmu *mmu,
			   struct nxsim__vcpu_mmu *vcpu);

/* kvm_mmu_free_memory_caches() at vCPU destruction. */
void nxsim__kvm_mmu_free_memory_caches(struct nxsim__vm_mmu *mmu,
				       struct nxsim__mmu_memory_cache *mc);

/*
 * Set the scheduling hook (tests: interleavings on the virtual clock);
 * @fn NULL removes it.  Set it while no other thread uses the VM.
 */
void nxsim__mmu_set_sched_hook(struct nxsim__vm_mmu *mmu, nxsim__sched_fn fn,
			       void *ctx);

/* kvm_mmu_init_vm(): Return: 0 or -ENOMEM. */
int nxsim__kvm_mmu_init_vm(const struct nxsim__mmu_config *cfg,
			   struct nxsim__vm_mmu **mmup);
/* kvm_mmu_uninit_vm() plus kvm_mmu_zap_all() at destruction; frees @mmu. */
void nxsim__kvm_mmu_uninit_vm(struct nxsim__vm_mmu *mmu);
/* kvm_mmu_zap_all_fast(): called with slots_lock held. */
void nxsim__kvm_mmu_zap_all_fast(struct nxsim__vm_mmu *mmu);
/*
 * One worker pass: kvm_recover_nx_huge_pages() for every MMU type.
 * Return: 0, or the errno of a recovery rule's failed pick (reported to the
 * checker too).
 */
int nxsim__mmu_recover_nx_huge_pages(struct nxsim__vm_mmu *mmu);

/* The recovery rules (nx_recovery_rule.c). */
/* The rule named @name in *@ops (NULL: the kernel's); -ENOENT for none. */
int nxsim__nx_recovery_find(const char *name,
			    const struct nxsim_nx_recovery_ops **ops);
int nxsim__nx_recovery_check(const struct nxsim_nx_recovery_ops *ops,
			     const char **why);
/* Register @n rules at once, all or none (a plug-in's, at its load). */
int nxsim__nx_recovery_register_all(
	const struct nxsim_nx_recovery_ops *const *ops, unsigned int n,
	const char **why);
/* is_nx_huge_page_enabled(kvm) */
bool nxsim__is_nx_huge_page_enabled(struct nxsim__vm_mmu *mmu);
/* kvm->arch.disable_nx_huge_pages = true (under kvm->lock). */
void nxsim__mmu_disable_nx_huge_pages(struct nxsim__vm_mmu *mmu);

/* What the leaf SPTE allows after an access (@rights of the access). */
#define NXSIM__RIGHT_WRITE 1u
#define NXSIM__RIGHT_EXEC 2u

struct nxsim__kvm_mmu;

/*
 * kvm_mmu_do_page_fault(): a guest access of @vcpu at @addr (the caller
 * holds the vCPU's mutex), by the fault handler of the vCPU's MMU role.
 * With TDP the root role is direct: @addr is a gpa, and the hardware walk
 * and, if it misses, the MMIO exit or kvm_tdp_page_fault() run (mmu.c);
 * *@rights (may be NULL) then receives what the leaf allows,
 * NXSIM__RIGHT_*.  With TDP off the role is the guest's (@m): @addr is a
 * gva, walked in the shadow tables and, if they do not allow the access,
 * faulted by FNAME(page_fault) or nonpaging_page_fault() (paging_tmpl.c);
 * *@rights is not written.  Takes mmu_lock.
 * Return: 0, -ERANGE (beyond MAXPHYADDR, or a gva the guest's mode cannot
 * form) or -ENOMEM.
 */
int nxsim__kvm_mmu_do_page_fault(struct nxsim__vm_mmu *mmu,
				 struct nxsim__vcpu_mmu *vcpu,
				 const struct nxsim__kvm_mmu *m,
				 enum nxsim_access_kind kind, uint64_t addr,
				 struct nxsim_access_info *info,
				 unsigned int *rights);
/* The TDP root's level (4 or 5): the host dimension of a guest walk. */
int nxsim__mmu_root_level(const struct nxsim__vm_mmu *mmu);

struct nxsim__memslot;

/*
 * kvm_mmu_slot_try_split_huge_pages(): eager page splitting of @slot's
 * huge pages down to @target_level, on the TDP MMU (the shadow MMU's
 * split, for nested MMUs, is left out); mmu_lock held, for read with
 * @shared.
 */
void nxsim__kvm_mmu_slot_try_split_huge_pages(struct nxsim__vm_mmu *mmu,
					      const struct nxsim__memslot *slot,
					      int target_level, bool shared);
/*
 * kvm_mmu_slot_remove_write_access() (kvm_mmu_slot_leaf_clear_dirty()
 * with PML) when dirty logging turns on, then the flush of the slot
 * (kvm_arch_flush_remote_tlbs_memslot()): on the rmaps or on the TDP
 * MMU's roots, whichever maps the VM; mmu_lock held.
 */
void nxsim__kvm_mmu_slot_remove_write_access(struct nxsim__vm_mmu *mmu,
					     const struct nxsim__memslot *slot);
/*
 * kvm_mmu_zap_collapsible_sptes() when dirty logging turns off: on the
 * rmaps, or the TDP MMU's zap (or in-place recovery) of collapsible
 * SPTEs; mmu_lock held.
 */
void nxsim__kvm_mmu_zap_collapsible_sptes(struct nxsim__vm_mmu *mmu,
					  const struct nxsim__memslot *slot);
/*
 * KVM_SET_USER_MEMORY_REGION (__kvm_set_memory_region() and the x86 and
 * MMU hooks it calls); called with slots_lock held.
 */
int nxsim__kvm_set_memory_region(struct nxsim__vm_mmu *mmu,
				 const struct nxsim_memory_region *mr);
/*
 * The host remaps part of a slot at @level (1 to 3, checked by the caller);
 * @slot_id carries the address space in bits 16-31 as for
 * KVM_SET_USER_MEMORY_REGION; called with slots_lock held.  Return: 0 or
 * -EINVAL.
 */
int nxsim__mmu_set_host_level(struct nxsim__vm_mmu *mmu, uint32_t slot_id,
			      uint64_t offset, uint64_t size, int level);

/*
 * KVM_ENABLE_CAP(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2) with cap->flags @flags
 * and cap->args[0] @arg0; Return: 0 or -EINVAL.
 */
int nxsim__mmu_enable_manual_dirty_log_protect(struct nxsim__vm_mmu *mmu,
					       uint32_t flags, uint64_t arg0);
/*
 * KVM_GET_DIRTY_LOG of @slot_id into @out (one bit per page, 64-bit
 * words); called with slots_lock held.  Return: 0, -EINVAL, -ENOENT.
 */
int nxsim__kvm_get_dirty_log_protect(struct nxsim__vm_mmu *mmu,
				     uint32_t slot_id, uint64_t *out);
/*
 * KVM_CLEAR_DIRTY_LOG of @num_pages pages from @first_page of @slot_id,
 * as set in @bitmap; called with slots_lock held.  Return: 0, -EINVAL,
 * -ENOENT.
 */
int nxsim__kvm_clear_dirty_log_protect(struct nxsim__vm_mmu *mmu,
				       uint32_t slot_id, uint64_t first_page,
				       uint32_t num_pages,
				       const uint64_t *bitmap);

/* The invariant checker: Return: violations found. */
int nxsim__mmu_check(struct nxsim__vm_mmu *mmu, nxsim_text_fn report,
		     void *ctx);
/* The readable dump: Return: lines emitted. */
int nxsim__mmu_dump(struct nxsim__vm_mmu *mmu, nxsim_text_fn emit, void *ctx);
/* The VM stats, one snapshot under mmu_lock. */
void nxsim__mmu_stats(struct nxsim__vm_mmu *mmu, struct nxsim_vm_stats *st);

/**
 * struct nxsim__mmu_kstat - the shadow MMU's counters of struct kvm_vm_stat
 * @mmu_shadow_zapped: __kvm_mmu_prepare_zap_page() calls
 * @mmu_pte_write: kvm_mmu_pte_write() runs past its indirect_shadow_pages
 *	test
 * @mmu_pde_zapped: shadow entries of a table above 4K dropped by it with
 *	a non-zero new guest entry
 * @mmu_flooded: pages it zapped as flooded or written misaligned
 * @mmu_cache_miss: kvm_mmu_find_shadow_page() found no page
 */
struct nxsim__mmu_kstat {
	uint64_t mmu_shadow_zapped;
	uint64_t mmu_pte_write;
	uint64_t mmu_pde_zapped;
	uint64_t mmu_flooded;
	uint64_t mmu_cache_miss;
};

/* The VM's struct nxsim__mmu_kstat, and its VM stats, in one snapshot. */
void nxsim__mmu_kstat(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_kstat *k,
		      struct nxsim_vm_stats *st);
void nxsim__mmu_counters(struct nxsim__vm_mmu *mmu,
			 struct nxsim_mmu_counters *c);
/* Page-table pages in use (not counting caches and pages awaiting RCU). */
long nxsim__mmu_nr_pages(struct nxsim__vm_mmu *mmu);
/*
 * Page-table pages allocated, whatever their state (in the tables, in
 * vCPU caches, awaiting their grace period); *pending receives the last.
 */
long nxsim__mmu_nr_pages_allocated(struct nxsim__vm_mmu *mmu, long *pending);
/* rcu_barrier(): every page-table page freed so far is back. */
void nxsim__mmu_rcu_barrier(void);

#endif /* NXSIM_MMU_MMU_H */
