/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's side of shadow paging: the bytes of guest memory behind a
 * VM's memory slots, a vCPU's paging state (CR0.PG and WP, CR4.PAE and
 * PSE, EFER.LMA and NXE, CR3, and whether it runs at CPL 3), and the
 * guest page-table walk KVM does in software when TDP is off
 * (FNAME(walk_addr_generic) of arch/x86/kvm/mmu/paging_tmpl.h), for
 * 4-level 64-bit, PAE and 2-level 32-bit paging (PSE 4 MiB pages with
 * PSE-36).
 *
 * Guest memory is the VMM's memory: what the slots' userspace addresses
 * hold.  Pages are kept from their first write (4 KiB at a time) until
 * the VM is destroyed; a page never written reads as zeros.  The host
 * writes it with nxsim_guest_write() (as the VMM writes through its
 * mapping: KVM does not see it), the guest with nxsim_guest_write_pte().
 *
 * Left out: 5-level guest paging (CR4.LA57), SMEP, SMAP, protection keys,
 * PCIDs, nested (EPT-on-EPT) walks, and the segment limits and canonical
 * checks that come before a walk (a 64-bit address must be canonical,
 * a 32-bit one below 4 GiB, or the call is -EINVAL).
 *
 * Thread safety: every call is safe from many threads: guest memory and
 * paging state are read and written under the VM's mmu_lock.
 */
#ifndef NXSIM_GUEST_H
#define NXSIM_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nxsim_vm;
struct nxsim_vcpu;

/* The most guest memory one VM may have written: 4 GiB (2^20 pages). */
#define NXSIM_GUEST_MEM_MAX_BYTES (1ull << 32)

/* Page-fault error code bits (PFERR_*_MASK). */
#define NXSIM_PFERR_PRESENT (1u << 0)
#define NXSIM_PFERR_WRITE (1u << 1)
#define NXSIM_PFERR_USER (1u << 2)
#define NXSIM_PFERR_RSVD (1u << 3)
#define NXSIM_PFERR_FETCH (1u << 4)

/* The effective access of a guest mapping (ACC_*_MASK). */
#define NXSIM_ACC_EXEC (1u << 0)
#define NXSIM_ACC_WRITE (1u << 1)
#define NXSIM_ACC_USER (1u << 2)

/* Guest PTE bits the walker reads and sets (x86 PTE layout). */
#define NXSIM_GPTE_P (1ull << 0)
#define NXSIM_GPTE_W (1ull << 1)
#define NXSIM_GPTE_U (1ull << 2)
#define NXSIM_GPTE_A (1ull << 5)
#define NXSIM_GPTE_D (1ull << 6)
#define NXSIM_GPTE_PS (1ull << 7)
#define NXSIM_GPTE_NX (1ull << 63)

/* The vCPU's paging mode, from its control registers. */
enum nxsim_guest_mode {
	NXSIM_GUEST_NONPAGING, /* CR0.PG = 0: gva = gpa */
	NXSIM_GUEST_32BIT,     /* 2 levels of 4-byte PTEs */
	NXSIM_GUEST_PAE,       /* 4 PDPTRs, then 2 levels of 8-byte PTEs */
	NXSIM_GUEST_64BIT,     /* 4 levels of 8-byte PTEs (EFER.LMA) */
};

/**
 * struct nxsim_guest_paging - the paging state of a vCPU
 * @cr0_pg: paging on
 * @cr0_wp: supervisor writes honour read-only pages
 * @cr4_pae: PAE paging (needed by @efer_lma)
 * @cr4_pse: 4 MiB pages in 32-bit paging
 * @efer_lma: long mode active: 4-level paging (needs @cr0_pg, @cr4_pae)
 * @efer_nxe: the NX bit is honoured (else it is a reserved bit)
 * @user: the vCPU runs at CPL 3: its accesses are user accesses
 * @cr3: the page-table base (32-byte aligned PDPT in PAE mode)
 *
 * A zeroed struct is the state at reset: paging off.
 */
struct nxsim_guest_paging {
	bool cr0_pg;
	bool cr0_wp;
	bool cr4_pae;
	bool cr4_pse;
	bool efer_lma;
	bool efer_nxe;
	bool user;
	uint64_t cr3;
};

/**
 * struct nxsim_guest_walk - what a guest page-table walk found
 * @mode: the paging mode it walked in
 * @fault: the walk failed: the guest gets a page fault
 * @error_code: that fault's error code (NXSIM_PFERR_*), 0 without one
 * @level: the level of the guest mapping (1: 4K, 2: 2M or 4M, 3: 1G),
 *	or on a fault the level of the entry that failed
 * @max_level: the level the walk started at (PAE: 2, below the PDPTR)
 * @access: the mapping's effective access (NXSIM_ACC_*), which loses
 *	NXSIM_ACC_WRITE for a read of a clean page (writes must set D)
 * @gpa: the translated guest physical address
 * @table_gfn: [level - 1]: the gfn of the table read at that level
 * @pte: [level - 1]: the entry read there, with the A and D bits the
 *	walk set
 */
struct nxsim_guest_walk {
	enum nxsim_guest_mode mode;
	bool fault;
	uint32_t error_code;
	int level;
	int max_level;
	unsigned int access;
	uint64_t gpa;
	uint64_t table_gfn[4];
	uint64_t pte[4];
};

/**
 * nxsim_guest_write() - the VMM writes guest memory
 * @vm: the VM
 * @gpa: where
 * @buf: the bytes
 * @len: how many
 *
 * As kvm_write_guest(): all or nothing, through the slots' userspace
 * addresses, not seen by the MMU (no write tracking).
 *
 * Return: 0; -EINVAL for a NULL @buf with @len or a range that wraps;
 * -EFAULT if part of the range is in no slot; -ENOMEM if its new pages
 * cannot be allocated or would take the VM past
 * NXSIM_GUEST_MEM_MAX_BYTES of written pages; -EBADF.
 */
NXSIM_API int nxsim_guest_write(struct nxsim_vm *vm, uint64_t gpa,
				const void *buf, size_t len);

/**
 * nxsim_guest_read() - read guest memory (kvm_read_guest())
 *
 * Return: 0; -EINVAL for a NULL @buf with @len; -EFAULT if part of the
 * range is in no slot (nothing is copied); -EBADF.
 */
NXSIM_API int nxsim_guest_read(struct nxsim_vm *vm, uint64_t gpa, void *buf,
			       size_t len);

/**
 * nxsim_guest_write_pte() - the guest stores a page-table entry
 * @vcpu: the vCPU storing
 * @gpa: the entry's address, aligned to @size
 * @pte: the value
 * @size: 4 (a 32-bit paging entry) or 8
 *
 * A store by the guest: once shadow paging write-protects the table, the
 * MMU sees it (the write is trapped and emulated).  A table whose shadow
 * pages are all unsync (a write access through the guest's mapping of it
 * made them so) is written without a trap: the shadow tables keep the
 * old entry until the guest's INVLPG or CR3 load.
 *
 * Return: 0; -EINVAL for a @size other than 4 or 8, a misaligned @gpa or
 * a @pte wider than @size; -EFAULT outside every slot; -ENOMEM; -EBADF.
 */
NXSIM_API int nxsim_guest_write_pte(struct nxsim_vcpu *vcpu, uint64_t gpa,
				    uint64_t pte, unsigned int size);

/**
 * nxsim_guest_invlpg() - the guest executes INVLPG
 * @vcpu: the vCPU
 * @gva: the address
 *
 * kvm_mmu_invlpg(): with shadow paging of a 64-bit guest, the shadow
 * entry of @gva in an unsync page table is made again from the guest's
 * entry (FNAME(invlpg)); in the other modes the MMU is unchanged.  On a
 * vCPU with a TLB (nxsim_vm_set_vcpu_tlb()) the entries of the page that
 * holds @gva go, of any size (counted in nxsim_vcpu_stats.invlpg).  A
 * non-canonical @gva, which the CPU treats as a no-op (and KVM counts
 * with shadow paging), is refused instead and counted nowhere.
 *
 * Return: 0; -ERANGE for an address the mode cannot form (a
 * non-canonical one); -EINVAL for a NULL @vcpu; -EBADF.
 */
NXSIM_API int nxsim_guest_invlpg(struct nxsim_vcpu *vcpu, uint64_t gva);

/**
 * nxsim_guest_set_paging() - the guest loads CR0, CR4, EFER and CR3
 * @vcpu: the vCPU
 * @p: the new state
 *
 * Checks what kvm_set_cr0(), kvm_set_cr4(), kvm_set_efer() and
 * kvm_set_cr3() check: long mode needs paging and PAE; CR3 may not
 * point beyond MAXPHYADDR; in PAE mode the four PDPTEs are loaded from
 * CR3 (load_pdptrs()) and none may be present with a reserved bit set.
 * Where the guest's MOV would take #GP the call fails and nothing
 * changes.  With shadow paging, the unsync pages under the root of the
 * new CR3 are synced (kvm_mmu_new_pgd(), kvm_mmu_sync_roots()).  On a
 * vCPU with a TLB that has made an access, the CR3 load flushes it (with
 * shadow paging through KVM_REQ_TLB_FLUSH_CURRENT), clearing CR0.PG and
 * toggling CR4.PAE request flushes too, and a change of CR0.PG or WP,
 * CR4.PAE or PSE, EFER.LME (@efer_lma) or NX reloads the root
 * (kvm_mmu_reset_context(); not for WP alone with TDP from 6.1.y and
 * 6.4); docs/guest-tlb.md has the table.  A call that changes only @user
 * is a change of CPL: it loads nothing and syncs nothing.  Calls before
 * the vCPU's first access are the VMM's set-up (KVM_SET_SREGS) and touch
 * no TLB.
 *
 * Return: 0; -EINVAL (the guest would take #GP, or @p is NULL); -EBADF.
 */
NXSIM_API int nxsim_guest_set_paging(struct nxsim_vcpu *vcpu,
				     const struct nxsim_guest_paging *p);

/**
 * nxsim_guest_get_paging() - the vCPU's paging state and mode
 * @mode: receives the mode (may be NULL)
 *
 * Return: 0; -EINVAL for a NULL @p; -EBADF.
 */
NXSIM_API int nxsim_guest_get_paging(struct nxsim_vcpu *vcpu,
				     struct nxsim_guest_paging *p,
				     enum nxsim_guest_mode *mode);

/**
 * nxsim_guest_translate() - walk the guest's page tables
 * @vcpu: the vCPU
 * @gva: the guest virtual address
 * @pfec: the access: NXSIM_PFERR_WRITE, NXSIM_PFERR_FETCH (at most one)
 *	and NXSIM_PFERR_USER
 * @w: receives the result
 *
 * The walk of FNAME(gva_to_gpa): it sets the accessed bits of every entry
 * it used, and the dirty bit of the last on a write, as the hardware
 * does; a failed walk is reported in @w (the fault the guest would get),
 * not as an error.  With paging off the address is the gpa.
 *
 * Return: 0; -EINVAL for a bad @pfec, a NULL @w, or a @gva out of the
 * mode's range; -EBADF.
 */
NXSIM_API int nxsim_guest_translate(struct nxsim_vcpu *vcpu, uint64_t gva,
				    uint32_t pfec, struct nxsim_guest_walk *w);

/**
 * nxsim_guest_nr_pages() - pages of guest memory written so far
 *
 * Return: the count, or -EINVAL / -EBADF.
 */
NXSIM_API int64_t nxsim_guest_nr_pages(struct nxsim_vm *vm);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_GUEST_H */
