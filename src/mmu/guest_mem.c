// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest memory (see guest_mem.h): a sparse store of the 4 KiB pages of
 * the VMM's address space that back memory slots, allocated on first
 * write through the simulator's allocator, and kvm_read_guest() /
 * kvm_write_guest() of virt/kvm/kvm_main.c over it (gfn -> slot -> hva,
 * __gfn_to_hva_memslot()).
 *
 * Writes are all or nothing: the pages a write needs are allocated before
 * a byte is copied, so -ENOMEM leaves the store as it was.  Left out:
 * dirty-bitmap marking (mark_page_dirty_in_slot()) and gfn_to_hva caches.
 * As kvm_read_guest() does, it reads address space 0 (kvm_memslots()).
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/guest_mem.h"
#include "mmu/memslot.h"
#include "mmu/mmu_internal.h"

#define GUEST_PAGE_SIZE 4096u
/* A spare page links to the next through its first word. */
#define SPARE_LINK 8

/* One entry of the table: the page at hva @hpfn << 12, or empty. */
struct nxsim__guest_page {
	uint64_t hpfn;
	uint8_t *data;
};

static uint64_t hash_index(uint64_t hpfn, uint64_t cap)
{
	return (hpfn * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(cap));
}

/* The entry of @hpfn, or the empty one where it would go. */
static struct nxsim__guest_page *lookup(const struct nxsim__guest_mem *gm,
					uint64_t hpfn)
{
	uint64_t i = hash_index(hpfn, gm->cap);

	for (;; i = (i + 1) & (gm->cap - 1))
		if (!gm->tab[i].data || gm->tab[i].hpfn == hpfn)
			return &gm->tab[i];
}

/* The page at @hpfn, or NULL if it was never written. */
static uint8_t *find_page(const struct nxsim__guest_mem *gm, uint64_t hpfn)
{
	return gm->cap ? lookup(gm, hpfn)->data : NULL;
}

/* Make room for @want pages at half load.  Return: 0 or -ENOMEM. */
static int grow(struct nxsim__guest_mem *gm, uint64_t want)
{
	struct nxsim__guest_mem new = { .nr = gm->nr };
	uint64_t i;

	if (want * 2 <= gm->cap)
		return 0;
	for (new.cap = 64; new.cap < want * 2; new.cap <<= 1)
		;
	new.tab = nxsim__calloc(new.cap, sizeof(*new.tab));
	if (!new.tab)
		return -ENOMEM;
	for (i = 0; i < gm->cap; i++)
		if (gm->tab[i].data)
			*lookup(&new, gm->tab[i].hpfn) = gm->tab[i];
	nxsim__free(gm->tab, gm->cap * sizeof(*gm->tab));
	*gm = new;
	return 0;
}

/* The slot holding @gpa's page and the hva page number, or -EFAULT. */
static int gpa_to_hpfn(struct nxsim__vm_mmu *mmu, uint64_t gpa,
		       const struct nxsim__memslot **slotp, uint64_t *hpfn)
{
	const struct nxsim__memslot *s =
		nxsim__gfn_to_memslot(mmu, 0, gpa >> 12);

	/* __gfn_to_hva_many(): KVM_HVA_ERR_BAD on an invalid slot */
	if (!s || nxsim__memslot_invalid(s))
		return -EFAULT;
	*hpfn = nxsim__gfn_to_pfn(s, gpa >> 12);
	if (slotp)
		*slotp = s;
	return 0;
}

int nxsim__kvm_read_guest(struct nxsim__vm_mmu *mmu, uint64_t gpa, void *buf,
			  size_t len)
{
	uint8_t *out = buf;
	uint64_t hpfn = 0;
	size_t n, off;
	uint8_t *page;

	if (gpa + len < gpa)
		return -EFAULT;
	/* Check the whole range first: a failed read copies nothing. */
	for (off = 0; off < len; off += n) {
		n = MIN(len - off, GUEST_PAGE_SIZE - ((gpa + off) & 4095));
		if (gpa_to_hpfn(mmu, gpa + off, NULL, &hpfn))
			return -EFAULT;
	}
	for (off = 0; off < len; off += n) {
		n = MIN(len - off, GUEST_PAGE_SIZE - ((gpa + off) & 4095));
		gpa_to_hpfn(mmu, gpa + off, NULL, &hpfn);
		page = find_page(&mmu->gmem, hpfn);
		if (page)
			memcpy(out + off, page + ((gpa + off) & 4095), n);
		else
			memset(out + off, 0, n);
	}
	return 0;
}

/* Free a list of spare pages linked through their first word. */
static void free_spares(uint8_t *spare)
{
	uint8_t *next;

	for (; spare; spare = next) {
		memcpy(&next, spare, sizeof(next));
		nxsim__free(spare, GUEST_PAGE_SIZE);
	}
}

int nxsim__kvm_write_guest(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			   const void *buf, size_t len)
{
	struct nxsim__guest_mem *gm = &mmu->gmem;
	uint64_t first, last, g, need = 0, hpfn = 0;
	const struct nxsim__memslot *s;
	struct nxsim__guest_page *e;
	const uint8_t *in = buf;
	uint8_t *spare = NULL, *page, *next;
	size_t n, off;

	if (!len)
		return 0;
	if (gpa + (len - 1) < gpa)
		return -EINVAL;
	first = gpa >> 12;
	last = (gpa + (len - 1)) >> 12;
	/* More pages than the store may ever hold: fail before looking. */
	if (last - first >= NXSIM__GUEST_MEM_MAX_PAGES)
		return -ENOMEM;
	for (g = first; g <= last; g++) {
		if (gpa_to_hpfn(mmu, g << 12, &s, &hpfn))
			return -EFAULT;
		need += !find_page(gm, hpfn);
	}
	if (gm->nr + need > NXSIM__GUEST_MEM_MAX_PAGES)
		return -ENOMEM;
	/* Every new page first, then the table: nothing changes on failure. */
	for (g = 0; g < need; g++) {
		page = nxsim__zalloc(GUEST_PAGE_SIZE);
		if (!page) {
			free_spares(spare);
			return -ENOMEM;
		}
		memcpy(page, &spare, sizeof(spare));
		spare = page;
	}
	if (grow(gm, gm->nr + need)) {
		free_spares(spare);
		return -ENOMEM;
	}
	for (off = 0; off < len; off += n) {
		n = MIN(len - off, GUEST_PAGE_SIZE - ((gpa + off) & 4095));
		gpa_to_hpfn(mmu, gpa + off, NULL, &hpfn);
		e = lookup(gm, hpfn);
		if (!e->data) {
			/* Counted above; two slots over one hva may share. */
			e->hpfn = hpfn;
			e->data = spare;
			/* the next spare: its link is the page's first bytes */
			memcpy(&next, e->data, sizeof(next));
			spare = next;
			memset(e->data, 0, SPARE_LINK);
			gm->nr++;
		}
		memcpy(e->data + ((gpa + off) & 4095), in + off, n);
	}
	free_spares(spare);
	return 0;
}

int nxsim__guest_read_pte(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			  unsigned int size, uint64_t *pte, bool *writable,
			  uint8_t **ptep)
{
	const struct nxsim__memslot *s;
	uint64_t hpfn = 0, v = 0;
	uint8_t *page;

	if (gpa_to_hpfn(mmu, gpa, &s, &hpfn))
		return -EFAULT;
	page = find_page(&mmu->gmem, hpfn);
	if (page)
		memcpy(&v, page + (gpa & 4095), size);
	*pte = v;
	if (writable)
		*writable = !(s->flags & NXSIM_MEM_READONLY);
	if (ptep)
		*ptep = page ? page + (gpa & 4095) : NULL;
	return 0;
}

uint64_t nxsim__guest_mem_pages(const struct nxsim__guest_mem *gm)
{
	return gm->nr;
}

void nxsim__guest_mem_free(struct nxsim__guest_mem *gm)
{
	uint64_t i;

	for (i = 0; i < gm->cap; i++)
		if (gm->tab[i].data)
			nxsim__free(gm->tab[i].data, GUEST_PAGE_SIZE);
	nxsim__free(gm->tab, gm->cap * sizeof(*gm->tab));
	*gm = (struct nxsim__guest_mem){ 0 };
}
