/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory slots (struct kvm_memory_slot) with their lpage_info disallow
 * counts, and the host mapping size under them, in two address spaces
 * (KVM_ADDRESS_SPACE_NUM on x86: 0, and 1 for vCPUs in SMM).
 */
#ifndef NXSIM_MMU_MEMSLOT_H
#define NXSIM_MMU_MEMSLOT_H

#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include <nxsim/mmu.h>

/**
 * struct nxsim__memslot - struct kvm_memory_slot
 * @link: on vm_mmu->slots[@as_id], sorted by @base_gfn
 * @id: slot id
 * @as_id: address space (0, or 1 for SMM)
 * @flags: KVM_MEM_*, and NXSIM__MEMSLOT_INVALID while it is deleted or moved
 * @base_gfn: first gfn
 * @npages: size in 4 KiB pages
 * @userspace_addr: hva of the first page
 * @lpage_info: disallow_lpage per huge-page region, [0] 2M, [1] 1G
 * @lpages: entries of each @lpage_info array
 * @host_level: host mapping level per 2 MiB hva region the slot touches
 * @nr_host: entries of @host_level
 * @rmap: slot->arch.rmap: leaf SPTEs per gfn, [0] 4K, [1] 2M, [2] 1G;
 *	NULL while the VM uses the TDP MMU (kvm_memslots_have_rmaps())
 * @gfn_write_track: slot->arch.gfn_track[KVM_PAGE_TRACK_WRITE], one count
 *	per 4K gfn; NULL with @rmap
 * @dirty_bitmap: slot->dirty_bitmap while dirty logging is on, else NULL:
 *	one bit per 4K gfn in 64-bit words (kvm_dirty_bitmap_bytes()), then
 *	as many words again for the second bitmap (kvm_second_dirty_bitmap())
 */
struct nxsim__memslot {
	TAILQ_ENTRY(nxsim__memslot) link;
	uint16_t id;
	uint16_t as_id;
	uint32_t flags;
	uint64_t base_gfn;
	uint64_t npages;
	uint64_t userspace_addr;
	int *lpage_info[2];
	uint64_t lpages[2];
	uint8_t *host_level;
	uint64_t nr_host;
	struct nxsim__kvm_rmap_head *rmap[3];
	unsigned short *gfn_write_track;
	uint64_t *dirty_bitmap;
};

/* kvm_dirty_bitmap_bytes() / 8: 64-bit words of one dirty bitmap. */
static inline uint64_t nxsim__dirty_bitmap_words(uint64_t npages)
{
	return (npages + 63) / 64;
}

TAILQ_HEAD(nxsim__slot_list, nxsim__memslot);

/*
 * KVM_MEMSLOT_INVALID (include/linux/kvm_host.h): set by
 * kvm_invalidate_memslot() on a slot being deleted or moved, until it
 * leaves the memslots.  Faults on it retry (kvm_faultin_pfn()), and
 * guest-memory accesses and prefetches do not use it (__gfn_to_hva_many(),
 * gfn_to_memslot_dirty_bitmap()).
 */
#define NXSIM__MEMSLOT_INVALID (1u << 16)

/* kvm_is_visible_memslot() without the private slots: not being removed. */
static inline bool nxsim__memslot_invalid(const struct nxsim__memslot *s)
{
	return s->flags & NXSIM__MEMSLOT_INVALID;
}

struct nxsim__vm_mmu;
struct nxsim__kvm_rmap_head;

static inline bool nxsim__slot_dirty_logging(const struct nxsim__memslot *s)
{
	return s->flags & NXSIM_MEM_LOG_DIRTY_PAGES;
}

/*
 * mark_page_dirty_in_slot(): set @gfn's bit in @s's dirty bitmap (an
 * atomic set_bit_le()) when the slot logs dirty pages; @s may be NULL.
 * Inline: every fault that maps a writable SPTE calls it.
 */
static inline void
nxsim__mark_page_dirty_in_slot(const struct nxsim__memslot *s, uint64_t gfn)
{
	uint64_t rel;

	if (!s || !nxsim__slot_dirty_logging(s) || !s->dirty_bitmap)
		return;
	rel = gfn - s->base_gfn;
	__atomic_fetch_or(&s->dirty_bitmap[rel / 64], 1ull << (rel % 64),
			  __ATOMIC_RELAXED);
}

/* id_to_memslot(__kvm_memslots(kvm, @as_id), @id): NULL if none. */
struct nxsim__memslot *nxsim__id_to_memslot(struct nxsim__vm_mmu *mmu,
					    int as_id, uint16_t id);

/* gfn_to_index() */
static inline uint64_t nxsim__gfn_to_index(uint64_t gfn, uint64_t base,
					   int level)
{
	int shift = (level - 1) * 9;

	return (gfn >> shift) - (base >> shift);
}

/*
 * lpage_info_slot(gfn, slot, level)->disallow_lpage (level 2 or 3).  Inline
 * with host_pfn_mapping_level(): every fault that may map huge reads both.
 */
static inline int nxsim__lpage_disallowed(const struct nxsim__memslot *slot,
					  uint64_t gfn, int level)
{
	return slot->lpage_info[level - 2][nxsim__gfn_to_index(
		gfn, slot->base_gfn, level)];
}

/* host_level granularity: 2 MiB of hva */
#define NXSIM__HOST_CHUNK_PAGES 512ull

/* The index in @s->host_level of the 2 MiB hva region holding @gfn. */
static inline uint64_t nxsim__host_chunk(const struct nxsim__memslot *s,
					 uint64_t gfn)
{
	uint64_t ugfn = s->userspace_addr >> 12;

	return (ugfn + gfn - s->base_gfn) / NXSIM__HOST_CHUNK_PAGES -
	       ugfn / NXSIM__HOST_CHUNK_PAGES;
}

/* host_pfn_mapping_level(): the host's mapping level at @gfn. */
static inline int
nxsim__host_pfn_mapping_level(const struct nxsim__memslot *slot, uint64_t gfn)
{
	return slot->host_level[nxsim__host_chunk(slot, gfn)];
}

/* The host pfn of @gfn (hva >> 12). */
static inline uint64_t nxsim__gfn_to_pfn(const struct nxsim__memslot *s,
					 uint64_t gfn)
{
	return (s->userspace_addr >> 12) + (gfn - s->base_gfn);
}

/* kvm_mmu_gfn_disallow_lpage(): raise lpage_info counts over @gfn. */
void nxsim__kvm_mmu_gfn_disallow_lpage(struct nxsim__memslot *slot,
				       uint64_t gfn);
/* kvm_mmu_gfn_allow_lpage(): lower them again. */
void nxsim__kvm_mmu_gfn_allow_lpage(struct nxsim__memslot *slot, uint64_t gfn);
/* Free all slots (VM teardown). */
void nxsim__kvm_free_memslots(struct nxsim__vm_mmu *mmu);

#endif /* NXSIM_MMU_MEMSLOT_H */
