/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A VM's guest memory and two-dimensional (TDP) page tables, as KVM x86's
 * MMU builds them: memory slots, the page-fault path with the NX-huge-page
 * mitigation (huge mappings without execute, exec faults split them),
 * possible-NX-huge-page tracking and recovery, the kernel's VM stats, an
 * invariant checker and a page-table dump.
 *
 * Guest physical memory is only what the slots say: an access outside
 * every slot is MMIO and emulated; with MMIO caching (the default, where
 * the host has a spare SPTE encoding) the fault leaves an MMIO SPTE that
 * answers the next access without a fault, until a memslot change makes
 * its generation stale.  Host physical memory is
 * the slot's userspace address (pfn = hva >> 12), and the host mapping size
 * (what THP or hugetlbfs give) is set per slot and may vary inside it.
 *
 * This header holds the MMU's types; the calls are nxsim_vm_*() in
 * <nxsim/vm.h> and nxsim_vcpu_access() in <nxsim/vcpu.h>, the SPTE
 * formats are in <nxsim/spte.h>.
 *
 * Left out: SMM with TDP off (shadow paging keeps to address space 0),
 * access tracking and the dirty ring; the dirty bitmap and
 * KVM_CLEAR_DIRTY_LOG are in <nxsim/vm.h>.
 *
 * Thread safety: as <nxsim/vm.h>.
 */
#ifndef NXSIM_MMU_H
#define NXSIM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Page-table levels (PG_LEVEL_*). */
#define NXSIM_PG_LEVEL_4K 1
#define NXSIM_PG_LEVEL_2M 2
#define NXSIM_PG_LEVEL_1G 3

/* ---- memory slots (KVM_SET_USER_MEMORY_REGION) ------------------------- */

#define NXSIM_MEM_LOG_DIRTY_PAGES (1u << 0)
#define NXSIM_MEM_READONLY (1u << 1)
#define NXSIM_USER_MEM_SLOTS 32764 /* KVM_USER_MEM_SLOTS on x86 */
/* KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 options (include/uapi/linux/kvm.h) */
#define NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE (1u << 0)
#define NXSIM_DIRTY_LOG_INITIALLY_SET (1u << 1)

/**
 * struct nxsim_memory_region - struct kvm_userspace_memory_region
 * @slot: slot id (bits 0-15); bits 16-31 are the address space: 0, or 1
 *	for the memory vCPUs see in SMM (nxsim_vcpu_set_smm())
 * @flags: NXSIM_MEM_LOG_DIRTY_PAGES, NXSIM_MEM_READONLY
 * @guest_phys_addr: base gpa, page aligned
 * @memory_size: bytes, page aligned; 0 deletes the slot
 * @userspace_addr: the hva backing it, page aligned, below 2^47 - 4096
 * @host_level: the host mapping size over the whole slot when it is
 *	created (NXSIM_PG_LEVEL_*; 0 means 4K); see nxsim_vm_set_host_level()
 */
struct nxsim_memory_region {
	uint32_t slot;
	uint32_t flags;
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	int host_level;
};

/* ---- guest accesses (the page-fault path) ------------------------------ */

enum nxsim_access_kind {
	NXSIM_ACCESS_READ,
	NXSIM_ACCESS_WRITE,
	NXSIM_ACCESS_EXEC, /* instruction fetch (PFERR_FETCH) */
};

enum nxsim_access_outcome {
	NXSIM_ACCESS_HIT,      /* the mapping allowed it: no fault */
	NXSIM_ACCESS_FAULT,    /* a page fault installed a mapping */
	NXSIM_ACCESS_SPURIOUS, /* a fault found the SPTE already right */
	NXSIM_ACCESS_FAST,     /* fast_page_fault() made the SPTE writable */
	NXSIM_ACCESS_EMULATE,  /* no slot (MMIO), a write to a read-only slot,
				* or (TDP off) a write to a guest table; an
				* MMIO exit answered from an MMIO SPTE too */
	NXSIM_ACCESS_GUEST_FAULT, /* TDP off: the guest's own page tables
				   * fault (nxsim_guest_translate() gives the
				   * error code) */
};

/**
 * struct nxsim_access_info - what one access did
 * @outcome: see enum nxsim_access_outcome
 * @level: level of the leaf that maps the gpa afterwards (0 if none)
 * @req_level: the fault's req_level (0 without a fault)
 * @goal_level: the fault's final goal_level (0 without a fault)
 * @huge_page_disallowed: the fault's huge_page_disallowed
 * @splits: huge SPTEs split in place by the fault (6.2 on)
 * @zapped_huge: huge SPTEs zapped by the fault (before 6.2)
 */
struct nxsim_access_info {
	enum nxsim_access_outcome outcome;
	int level;
	int req_level;
	int goal_level;
	bool huge_page_disallowed;
	unsigned int splits;
	unsigned int zapped_huge;
};

/**
 * struct nxsim_mmu_counters - MMU activity of one VM (simulator counters,
 *				not kernel stats)
 * @faults: page faults handled (outcomes FAULT, SPURIOUS, FAST, EMULATE),
 *	not counting @mmio_exits
 * @emulated: faults answered with emulation
 * @splits: huge SPTEs split in place on a fault
 * @huge_zaps: huge SPTEs zapped on a fault (pre-6.2 TDP MMU)
 * @recovery_passes: kvm_recover_nx_huge_pages() calls (one per MMU type
 *	with per-type lists)
 * @recovery_zapped: SPs zapped by recovery
 * @recovery_unaccounted: SPs only unaccounted (dirty-logged slot)
 * @tlb_flushes: remote TLB flushes requested (kvm_flush_remote_tlbs())
 * @zap_all: kvm_mmu_zap_all_fast() calls
 * @mmio_spte_created: MMIO SPTEs installed by faults (the vCPU stat
 *	pf_mmio_spte_created)
 * @mmio_exits: accesses that met an MMIO SPTE of the current generation
 *	and were emulated without a fault (handle_mmio_page_fault())
 * @mmio_stale: accesses that met an MMIO SPTE of an older generation and
 *	went on to a fault (RET_PF_INVALID)
 * @unsync: shadow pages made unsync (kvm_unsync_page())
 * @synced: unsync pages brought up to date from the guest's table
 *	(FNAME(sync_page)), whether they stay unsync or not
 * @unsync_pages: shadow pages unsync now (the kernel's stat mmu_unsync)
 */
struct nxsim_mmu_counters {
	uint64_t faults;
	uint64_t emulated;
	uint64_t splits;
	uint64_t huge_zaps;
	uint64_t recovery_passes;
	uint64_t recovery_zapped;
	uint64_t recovery_unaccounted;
	uint64_t tlb_flushes;
	uint64_t zap_all;
	uint64_t mmio_spte_created;
	uint64_t mmio_exits;
	uint64_t mmio_stale;
	uint64_t unsync;
	uint64_t synced;
	uint64_t unsync_pages;
};

/**
 * struct nxsim_vm_stats - the kernel's VM stats that the model keeps
 *			    (struct kvm_vm_stat; its binary stats fd)
 * @pages_4k: leaf SPTEs mapping 4 KiB now
 * @pages_2m: leaf SPTEs mapping 2 MiB now
 * @pages_1g: leaf SPTEs mapping 1 GiB now
 * @nx_lpage_splits: shadow pages on the possible-NX-huge-page lists now
 *	(huge pages split by an exec fault, not yet recovered)
 *
 * All four are instantaneous counters (STATS_DESC_ICOUNTER in
 * arch/x86/kvm/x86.c kvm_vm_stats_desc), read as one snapshot.
 */
struct nxsim_vm_stats {
	uint64_t pages_4k;
	uint64_t pages_2m;
	uint64_t pages_1g;
	uint64_t nx_lpage_splits;
};

/**
 * struct nxsim_kstat - one stat of a VM's or vCPU's binary stats fd
 *			(KVM_GET_STATS_FD), by the kernel's name
 * @name: the descriptor's name (kvm_vm_stats_desc, kvm_vcpu_stats_desc of
 *	arch/x86/kvm/x86.c with KVM_GENERIC_VM_STATS/VCPU_STATS)
 * @value: its value, with the kernel's meaning, when @modelled
 * @modelled: false for a stat the model keeps no count of (VM exits,
 *	halt polling, ...): @value is 0 and means nothing
 */
struct nxsim_kstat {
	const char *name;
	uint64_t value;
	bool modelled;
};

/* Receives one line of text (no trailing newline). */
typedef void (*nxsim_text_fn)(void *ctx, const char *line);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_MMU_H */
