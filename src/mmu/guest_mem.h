/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest memory: the bytes behind a VM's memory slots, as the VMM's
 * address space holds them.  A slot maps gfns to host virtual addresses
 * (userspace_addr); the store keeps the 4 KiB pages of that address space
 * that were ever written, keyed by hva >> 12, so two slots over the same
 * hva see the same bytes and a moved slot keeps its contents.  A page
 * never written reads as zeros, as fresh anonymous memory does.
 *
 * kvm_read_guest() / kvm_write_guest() of virt/kvm/kvm_main.c over it,
 * and the guest PTE reads and A/D writes of the walker
 * (kvm_vcpu_gfn_to_hva_prot() + __get_user() / __try_cmpxchg_user()).
 * All of them are called with mmu_lock held for write (reads may hold it
 * for read): the model serialises guest-memory accesses on mmu_lock where
 * the kernel relies on the atomicity of user memory accesses.
 */
#ifndef NXSIM_MMU_GUEST_MEM_H
#define NXSIM_MMU_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/guest.h>

/*
 * At most this many pages may be written into one VM's guest memory: a
 * write that would need more fails with -ENOMEM before it allocates
 * anything.
 */
#define NXSIM__GUEST_MEM_MAX_PAGES (NXSIM_GUEST_MEM_MAX_BYTES >> 12)

struct nxsim__guest_page;

/**
 * struct nxsim__guest_mem - the written pages of a VM's guest memory
 * @tab: open-addressed hash table of @cap entries, keyed by hva >> 12
 * @cap: entries of @tab (0 or a power of two)
 * @nr: pages held
 */
struct nxsim__guest_mem {
	struct nxsim__guest_page *tab;
	uint64_t cap;
	uint64_t nr;
};

struct nxsim__vm_mmu;

/*
 * kvm_read_guest(): copy @len bytes at @gpa into @buf.
 * Return: 0, or -EFAULT if part of the range is in no slot.
 */
int nxsim__kvm_read_guest(struct nxsim__vm_mmu *mmu, uint64_t gpa, void *buf,
			  size_t len);
/*
 * kvm_write_guest(): copy @buf to @len bytes at @gpa, all or nothing.
 * Return: 0; -EINVAL if the range wraps; -EFAULT if part of it is in no
 * slot; -ENOMEM if its new pages cannot be allocated or would take the
 * store past NXSIM__GUEST_MEM_MAX_PAGES.
 */
int nxsim__kvm_write_guest(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			   const void *buf, size_t len);
/*
 * A guest PTE of @size (4 or 8) bytes at @gpa, naturally aligned, as the
 * walker reads it (kvm_vcpu_gfn_to_hva_prot() + __get_user()).
 * *@writable is false for a read-only slot; *@ptep (if not NULL) receives
 * where the entry's bytes are (the walker's ptep_user), NULL for a page
 * never written (whose entries are 0).
 * Return: 0, or -EFAULT if @gpa is in no slot.
 */
int nxsim__guest_read_pte(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			  unsigned int size, uint64_t *pte, bool *writable,
			  uint8_t **ptep);
/* Pages held. */
uint64_t nxsim__guest_mem_pages(const struct nxsim__guest_mem *gm);
/* Free every page (VM teardown). */
void nxsim__guest_mem_free(struct nxsim__guest_mem *gm);

#endif /* NXSIM_MMU_GUEST_MEM_H */
