/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A VM's guest memory and two-dimensional (TDP) page tables, as KVM x86's
 * MMU builds them: memory slots, the page-fault path with the NX-huge-page
 * mitigation (huge mappings without execute, exec faults split them),
 * possible-NX-huge-page tracking and recovery, the kernel's VM stats, an
 * invariant checker and a page-table dump.
 *
 * Guest physical memory is only what the slots say: an access outside
 * every slot is MMIO, emulated, and maps nothing.  Host physical memory is
 * the slot's userspace address (pfn = hva >> 12), and the host mapping size
 * (what THP or hugetlbfs give) is set per slot and may vary inside it.
 *
 * Left out: shadow paging of guest page tables, the legacy (shadow-MMU)
 * direct map used with kvm.tdp_mmu=0, SMM address spaces, MMIO SPTE caching,
 * access tracking, eager page splitting (as kvm.eager_page_split=0) and the
 * dirty bitmap itself.
 */
#ifndef NXSIM_MMU_H
#define NXSIM_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

struct nxsim_vm;
struct nxsim_vcpu;

/* Page-table levels (PG_LEVEL_*). */
#define NXSIM_PG_LEVEL_4K 1
#define NXSIM_PG_LEVEL_2M 2
#define NXSIM_PG_LEVEL_1G 3

/* ---- SPTEs (arch/x86/kvm/mmu/spte.h) ---------------------------------- */

enum nxsim_spte_format {
	NXSIM_SPTE_EPT,	   /* Intel EPT (kvm_mmu_set_ept_masks()) */
	NXSIM_SPTE_LEGACY, /* AMD NPT / legacy x86-64 page-table format */
};

/**
 * struct nxsim_spte_bits - an SPTE taken apart
 * @pfn: bits 12-51, the host page frame (or child page table)
 * @other: every bit no field below names (access-track saved bits,
 *	MMIO generation, C-bit, ...), in place
 * @memtype: EPT: memory type, bits 3-5; legacy: PWT | PCD << 1, bits 3-4
 * @ad_type: bits 52-53, SPTE_TDP_AD_* (0 enabled, 1 disabled, 2 wrprot-only)
 * @readable: bit 0: EPT R; legacy P (present)
 * @writable: bit 1
 * @exec: EPT X (bit 2); legacy: NX (bit 63) clear
 * @user: legacy U (bit 2); EPT has none (must be false)
 * @accessed: EPT bit 8; legacy bit 5
 * @dirty: EPT bit 9; legacy bit 6
 * @large: bit 7: a huge leaf at level 2 or 3
 * @global: legacy bit 8 (EPT: must be false)
 * @ipat: EPT bit 6, ignore PAT (legacy: must be false)
 * @user_exec: EPT bit 10, MBEC user execute (legacy: must be false)
 * @suppress_ve: EPT bit 63 (legacy: must be false)
 * @host_writable: EPT bit 57; legacy bit 9 (KVM software bits)
 * @mmu_writable: EPT bit 58; legacy bit 10
 * @mmu_present: bit 11, SPTE_MMU_PRESENT_MASK (is_shadow_present_pte())
 */
struct nxsim_spte_bits {
	uint64_t pfn;
	uint64_t other;
	uint8_t memtype;
	uint8_t ad_type;
	bool readable;
	bool writable;
	bool exec;
	bool user;
	bool accessed;
	bool dirty;
	bool large;
	bool global;
	bool ipat;
	bool user_exec;
	bool suppress_ve;
	bool host_writable;
	bool mmu_writable;
	bool mmu_present;
};

/**
 * nxsim_spte_decode() - take an SPTE apart
 * @fmt: its format
 * @spte: the value
 * @bits: receives the fields; nxsim_spte_encode() gives @spte back
 *
 * Return: 0; -EINVAL for an unknown @fmt or NULL @bits.
 */
NXSIM_API int nxsim_spte_decode(enum nxsim_spte_format fmt, uint64_t spte,
				struct nxsim_spte_bits *bits);

/**
 * nxsim_spte_encode() - build an SPTE from its fields
 * @fmt: the format
 * @bits: the fields
 * @spte: receives the value
 *
 * Return: 0; -EINVAL for an unknown @fmt, a field the format does not have,
 * a @pfn beyond bit 51, @memtype or @ad_type too wide, or @other
 * overlapping a named field.
 */
NXSIM_API int nxsim_spte_encode(enum nxsim_spte_format fmt,
				const struct nxsim_spte_bits *bits,
				uint64_t *spte);

/* SHADOW_NONPRESENT_VALUE: bit 63 (EPT suppress-#VE; legacy NX). */
#define NXSIM_SPTE_NONPRESENT (1ull << 63)

/* ---- memory slots (KVM_SET_USER_MEMORY_REGION) ------------------------- */

#define NXSIM_MEM_LOG_DIRTY_PAGES (1u << 0)
#define NXSIM_MEM_READONLY (1u << 1)
#define NXSIM_USER_MEM_SLOTS 32764 /* KVM_USER_MEM_SLOTS on x86 */

/**
 * struct nxsim_memory_region - struct kvm_userspace_memory_region
 * @slot: slot id (bits 0-15); bits 16-31 are the address space, which
 *	must be 0 (no SMM)
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

/**
 * nxsim_vm_set_memory_region() - KVM_SET_USER_MEMORY_REGION
 *
 * As __kvm_set_memory_region(): create, delete (size 0), move (new gpa),
 * or change flags.  Deleting or moving zaps every mapping of the VM
 * (kvm_mmu_zap_all_fast(), the kernel's default KVM_X86_QUIRK_SLOT_ZAP_ALL).
 * Turning dirty logging on write-protects the slot's leaves (huge leaves
 * only on EPT, which has PML); turning it off zaps collapsible page tables,
 * or (6.13 on) rebuilds huge SPTEs in place.  Runs under slots_lock.
 *
 * Return: 0; -EINVAL (bad flags, alignment, slot id, address space,
 * overflow, size, deleting an empty slot, changing size/hva/read-only of
 * a live slot, bad @host_level); -EEXIST (overlaps another slot); -ENOMEM;
 * -EBADF.
 */
NXSIM_API int nxsim_vm_set_memory_region(struct nxsim_vm *vm,
					 const struct nxsim_memory_region *mr);

/**
 * nxsim_vm_set_host_level() - change the host mapping size under a slot
 * @vm: the VM
 * @slot: slot id
 * @offset: byte offset into the slot, page aligned; for
 *	NXSIM_PG_LEVEL_1G, the hva there must be 1 GiB aligned
 * @size: bytes, page aligned (a multiple of 1 GiB for NXSIM_PG_LEVEL_1G)
 * @level: NXSIM_PG_LEVEL_4K (split), _2M or _1G (THP collapse, hugetlb)
 *
 * The host's unit is the 2 MiB of hva: every 2 MiB hva region the range
 * touches gets @level (splitting part of a 1 GiB mapping leaves the rest
 * of it 2M).  The host page tables change, so the MMU notifier zaps the
 * leaf SPTEs of those regions (kvm_unmap_gfn_range(), which leaves page
 * tables in place).
 *
 * Return: 0; -EINVAL (unknown slot, bad range or level); -EBADF.
 */
NXSIM_API int nxsim_vm_set_host_level(struct nxsim_vm *vm, uint32_t slot,
				      uint64_t offset, uint64_t size,
				      int level);

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
	NXSIM_ACCESS_EMULATE,  /* no slot (MMIO) or write to a read-only slot */
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

/* ---- stats and counters ------------------------------------------------ */

/**
 * nxsim_vm_stat_get() - read a VM stat by its kernel name
 * @vm: the VM
 * @name: "pages_4k", "pages_2m", "pages_1g" or "nx_lpage_splits"
 * @val: receives the value
 *
 * Return: 0; -ENOENT for an unknown name; -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vm_stat_get(struct nxsim_vm *vm, const char *name,
				uint64_t *val);

/** nxsim_vm_stat_name() - the i-th stat name, NULL past the end. */
NXSIM_API const char *nxsim_vm_stat_name(unsigned int i);

/**
 * struct nxsim_mmu_counters - MMU activity of one VM (simulator counters,
 *				not kernel stats)
 * @faults: page faults handled (outcomes FAULT, SPURIOUS, FAST, EMULATE)
 * @emulated: faults answered with emulation
 * @splits: huge SPTEs split in place on a fault
 * @huge_zaps: huge SPTEs zapped on a fault (pre-6.2 TDP MMU)
 * @recovery_passes: kvm_recover_nx_huge_pages() calls (one per MMU type
 *	with per-type lists)
 * @recovery_zapped: SPs zapped by recovery
 * @recovery_unaccounted: SPs only unaccounted (dirty-logged slot)
 * @tlb_flushes: remote TLB flushes requested by recovery passes
 * @zap_all: kvm_mmu_zap_all_fast() calls
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
};

/** nxsim_vm_mmu_counters() - read them.  Return: 0, -EINVAL, -EBADF. */
NXSIM_API int nxsim_vm_mmu_counters(struct nxsim_vm *vm,
				    struct nxsim_mmu_counters *c);

/**
 * nxsim_vm_nr_mmu_pages() - page-table pages alive (roots included)
 *
 * Return: the count, or a negative errno.
 */
NXSIM_API long nxsim_vm_nr_mmu_pages(struct nxsim_vm *vm);

/* ---- checker and dump -------------------------------------------------- */

/* Receives one line of text (no trailing newline). */
typedef void (*nxsim_text_fn)(void *ctx, const char *line);

/**
 * nxsim_vm_check() - verify the invariants of kvm-nx-spec.md 5.2
 * @vm: the VM
 * @report: called with each violation's text (may be NULL)
 * @ctx: passed to @report
 *
 * Checks the page tables (structure, stats, exec bits of huge leaves),
 * the possible-NX lists and counts, the flags of the SPs, and what the
 * fault and recovery paths recorded since the last check (a huge leaf
 * built over a table an exec fault made; a recovery pass zapping an SP in
 * a dirty-logged slot or more than ceil(n / ratio)).  Those records are
 * reported once.
 *
 * Safe while other threads fault, recover and write parameters: the
 * check sees one consistent state (never a parameter write whose zap is
 * still under way).  @report runs under the VM's mmu_lock and must not
 * call into the VM.
 *
 * Return: the number of violations (0 when all hold); -EBADF; -EINVAL.
 */
NXSIM_API int nxsim_vm_check(struct nxsim_vm *vm, nxsim_text_fn report,
			     void *ctx);

/**
 * nxsim_vm_dump() - print the VM's page tables as a tree
 * @vm: the VM
 * @emit: called with each line
 * @ctx: passed to @emit
 *
 * A header line with the stats; one line per memory slot; one per root
 * and per page-table page (level, gfn range, frame, flags:
 * nx_huge_page_disallowed, tracked), one per non-leaf SPTE, and one per
 * run of leaf SPTEs with the same bits and consecutive pfns; then the
 * possible-NX lists, oldest (next to recover) first.
 *
 * Return: lines emitted; -EBADF; -EINVAL.
 */
NXSIM_API int nxsim_vm_dump(struct nxsim_vm *vm, nxsim_text_fn emit, void *ctx);

/**
 * nxsim_vm_dump_buf() - nxsim_vm_dump() into a buffer, like snprintf()
 *
 * Return: the length the whole dump needs (excluding the NUL); the text in
 * @buf is cut at @size - 1; a negative errno.
 */
NXSIM_API long nxsim_vm_dump_buf(struct nxsim_vm *vm, char *buf, size_t size);

#endif /* NXSIM_MMU_H */
