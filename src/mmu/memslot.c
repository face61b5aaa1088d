// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory slots: KVM_SET_USER_MEMORY_REGION (__kvm_set_memory_region() of
 * virt/kvm/kvm_main.c), the x86 metadata (kvm_alloc_memslot_metadata():
 * lpage_info disallow counts from alignment and gfn/hva congruence), the
 * MMU side of slot changes (kvm_arch_flush_shadow_memslot(), which zaps
 * all with the default KVM_X86_QUIRK_SLOT_ZAP_ALL and in 6.1;
 * kvm_mmu_slot_apply_flags()), and the host mapping size under a slot
 * (what host_pfn_mapping_level() finds), with the MMU notifier a change of
 * it causes: invalidate_range_start() (the invalidation counted in
 * progress, kvm_unmap_gfn_range()) and _end() (mmu_invalidate_seq
 * bumped), which a racing fault sees and retries.
 *
 * With the shadow MMU in use (no TDP MMU), slots also get their rmaps and
 * the write-tracking counts of the page tracker
 * (kvm_page_track_create_memslot()), and lpage_info counts are raised and
 * lowered for shadowed guest tables (kvm_mmu_gfn_disallow_lpage(),
 * kvm_mmu_gfn_allow_lpage()).
 *
 * The memslots generation steps by KVM_ADDRESS_SPACE_NUM at each swap
 * (twice for a delete or a move, which first swaps the slot out as
 * invalid, KVM_MEMSLOT_INVALID: faults on it retry until it is gone),
 * with the in-progress bit set in between; a wrap of its MMIO
 * slice zaps everything (kvm_mmu_invalidate_mmio_sptes()).
 *
 * Slots live in two address spaces (the slot's high 16 bits, as
 * KVM_SET_USER_MEMORY_REGION takes them): 0, and 1 for vCPUs in SMM.  Ids,
 * overlaps and generations are per space (space 0 counts 0, 2, 4, ...,
 * space 1 counts 1, 3, 5, ...); the MMU-notifier zap and the
 * dirty-logging walks touch the roots of the slot's space only, the fast
 * zap of a delete or a move every root.
 *
 * Slots that log dirty pages carry the dirty bitmap
 * (kvm_prepare_memory_region(): allocated when logging turns on, all set
 * with KVM_DIRTY_LOG_INITIALLY_SET, kept by a move, freed when logging
 * turns off), which mark_page_dirty_in_slot() fills; with
 * KVM_DIRTY_LOG_INITIALLY_SET, turning logging on protects nothing
 * (kvm_mmu_slot_apply_flags()).
 *
 * Left out: KVM_MEM_GUEST_MEMFD and memory
 * attributes (KVM_LPAGE_MIXED_FLAG), the dirty ring, and the
 * total-pages overflow check.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "core/detail.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"
#include "mmu/tdp_mmu.h"

#define KVM_MEM_MAX_NR_PAGES ((1ull << 31) - 1)
#define TASK_SIZE_MAX ((1ull << 47) - 4096)

struct nxsim__memslot *nxsim__id_to_memslot(struct nxsim__vm_mmu *mmu,
					    int as_id, uint16_t id)
{
	struct nxsim__memslot *s;

	TAILQ_FOREACH(s, &mmu->slots[as_id], link)
		if (s->id == id)
			return s;
	return NULL;
}

/* update_gfn_disallow_lpage_count() */
static void update_gfn_disallow_lpage_count(struct nxsim__memslot *slot,
					    uint64_t gfn, int count)
{
	int level;

	for (level = NXSIM_PG_LEVEL_2M; level <= NXSIM_PG_LEVEL_1G; level++) {
		int *linfo = &slot->lpage_info[level - 2][nxsim__gfn_to_index(
			gfn, slot->base_gfn, level)];

		*linfo += count;
		WARN_ON(*linfo < 0);
	}
}

void nxsim__kvm_mmu_gfn_disallow_lpage(struct nxsim__memslot *slot,
				       uint64_t gfn)
{
	update_gfn_disallow_lpage_count(slot, gfn, 1);
}

void nxsim__kvm_mmu_gfn_allow_lpage(struct nxsim__memslot *slot, uint64_t gfn)
{
	update_gfn_disallow_lpage_count(slot, gfn, -1);
}

/* Entries of the rmap array of level @i + 1 (__kvm_mmu_slot_lpages()). */
static uint64_t rmap_entries(const struct nxsim__memslot *s, int i)
{
	return i ? s->lpages[i - 1] : s->npages;
}

/*
 * memslot_rmap_alloc() and kvm_page_track_create_memslot(): what the
 * shadow MMU needs; Return: false on -ENOMEM (the caller frees the slot).
 */
static bool memslot_rmap_alloc(struct nxsim__memslot *s)
{
	int i;

	for (i = 0; i < 3; i++) {
		s->rmap[i] =
			nxsim__calloc(rmap_entries(s, i), sizeof(*s->rmap[i]));
		if (!s->rmap[i])
			return false;
	}
	s->gfn_write_track =
		nxsim__calloc(s->npages, sizeof(*s->gfn_write_track));
	return s->gfn_write_track != NULL;
}

/* kvm_destroy_dirty_bitmap() */
static void kvm_destroy_dirty_bitmap(struct nxsim__memslot *s)
{
	nxsim__free(s->dirty_bitmap, 2 * nxsim__dirty_bitmap_words(s->npages) *
					     sizeof(uint64_t));
	s->dirty_bitmap = NULL;
}

static void kvm_free_memslot(struct nxsim__memslot *s)
{
	int i;

	for (i = 0; i < 2; i++)
		nxsim__free(s->lpage_info[i], s->lpages[i] * sizeof(int));
	for (i = 0; i < 3; i++)
		nxsim__free(s->rmap[i],
			    rmap_entries(s, i) * sizeof(*s->rmap[i]));
	nxsim__free(s->gfn_write_track,
		    s->npages * sizeof(*s->gfn_write_track));
	nxsim__free(s->host_level, s->nr_host);
	kvm_destroy_dirty_bitmap(s);
	nxsim__free(s, sizeof(*s));
}

/*
 * kvm_alloc_dirty_bitmap(): both bitmaps (__vcalloc(2, ...)), every page
 * marked dirty with KVM_DIRTY_LOG_INITIALLY_SET (kvm_prepare_memory_region(),
 * bitmap_set()); false on -ENOMEM.
 */
static bool kvm_alloc_dirty_bitmap(struct nxsim__vm_mmu *mmu,
				   struct nxsim__memslot *s)
{
	uint64_t words = nxsim__dirty_bitmap_words(s->npages), i;

	s->dirty_bitmap = nxsim__calloc(2 * words, sizeof(uint64_t));
	if (!s->dirty_bitmap)
		return false;
	if (nxsim__kvm_dirty_log_manual_protect_and_init_set(mmu))
		for (i = 0; i < s->npages; i++)
			s->dirty_bitmap[i / 64] |= 1ull << (i % 64);
	return true;
}

/* kzalloc() of the slot + kvm_alloc_memslot_metadata(). */
static struct nxsim__memslot *slot_alloc(const struct nxsim_memory_region *mr,
					 int host_level, bool rmaps)
{
	struct nxsim__memslot *s = nxsim__zalloc(sizeof(*s));
	uint64_t ugfn = mr->userspace_addr >> 12, npages, j;
	int i, level;

	if (!s)
		return NULL;
	npages = mr->memory_size >> 12;
	s->id = (uint16_t)mr->slot;
	s->as_id = (uint16_t)(mr->slot >> 16);
	s->flags = mr->flags;
	s->base_gfn = mr->guest_phys_addr >> 12;
	s->npages = npages;
	s->userspace_addr = mr->userspace_addr;
	s->nr_host = nxsim__host_chunk(s, s->base_gfn + npages - 1) + 1;
	s->host_level = nxsim__alloc(s->nr_host);
	if (!s->host_level)
		goto fail;
	for (j = 0; j < s->nr_host; j++)
		s->host_level[j] = host_level;
	for (i = 0; i < 2; i++) {
		uint64_t mask;
		int *linfo;

		level = i + 2;
		mask = KVM_PAGES_PER_HPAGE(level) - 1;
		/* __kvm_mmu_slot_lpages() */
		s->lpages[i] = nxsim__gfn_to_index(s->base_gfn + npages - 1,
						   s->base_gfn, level) +
			       1;
		linfo = nxsim__calloc(s->lpages[i], sizeof(int));
		if (!linfo)
			goto fail;
		s->lpage_info[i] = linfo;
		if (s->base_gfn & mask)
			linfo[0] = 1;
		if ((s->base_gfn + npages) & mask)
			linfo[s->lpages[i] - 1] = 1;
		/* gfn and hva not congruent: no huge page in this slot. */
		if ((s->base_gfn ^ ugfn) & mask)
			for (j = 0; j < s->lpages[i]; j++)
				linfo[j] = 1;
	}
	if (rmaps && !memslot_rmap_alloc(s))
		goto fail;
	return s;
fail:
	kvm_free_memslot(s);
	return NULL;
}

/* Insert sorted by base gfn; called with mmu_lock held for write. */
static void slot_insert(struct nxsim__vm_mmu *mmu, struct nxsim__memslot *new)
{
	struct nxsim__memslot *s;

	TAILQ_FOREACH(s, &mmu->slots[new->as_id], link) {
		if (s->base_gfn > new->base_gfn) {
			TAILQ_INSERT_BEFORE(s, new, link);
			goto out;
		}
	}
	TAILQ_INSERT_TAIL(&mmu->slots[new->as_id], new, link);
out:
	if (nxsim__slot_dirty_logging(new))
		__atomic_fetch_add(&mmu->nr_memslots_dirty_logging, 1,
				   __ATOMIC_RELAXED);
}

static void slot_remove(struct nxsim__vm_mmu *mmu, struct nxsim__memslot *s)
{
	TAILQ_REMOVE(&mmu->slots[s->as_id], s, link);
	if (nxsim__slot_dirty_logging(s))
		__atomic_fetch_sub(&mmu->nr_memslots_dirty_logging, 1,
				   __ATOMIC_RELAXED);
}

/*
 * kvm_swap_active_memslots(), after the new slots are in: wait for the
 * vCPUs still reading the old ones (synchronize_srcu_expedited() on
 * kvm->srcu), with slots_lock held.
 */
static void kvm_swap_active_memslots(struct nxsim__vm_mmu *mmu, int as_id)
{
	uint64_t gen;

	nxsim__lockdep_sync(NXSIM__LOCK_KVM_SRCU);
	/* Drop the in-progress flag; step by the number of spaces. */
	gen = (READ_ONCE(mmu->memslots_gen[as_id]) &
	       ~KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS) +
	      KVM_ADDRESS_SPACE_NUM;
	/* kvm_arch_memslots_updated() */
	nxsim__kvm_mmu_invalidate_mmio_sptes(mmu, gen);
	WRITE_ONCE(mmu->memslots_gen[as_id], gen);
}

/*
 * The first half of kvm_swap_active_memslots(), with mmu_lock held for
 * write as the new slots go in: the generation says "in flux", so no vCPU
 * trusts an MMIO SPTE or caches one until the swap ends.
 */
static void memslots_update_begin(struct nxsim__vm_mmu *mmu, int as_id)
{
	uint64_t gen = READ_ONCE(mmu->memslots_gen[as_id]);

	WARN_ON(gen & KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS);
	WRITE_ONCE(mmu->memslots_gen[as_id],
		   gen | KVM_MEMSLOT_GEN_UPDATE_IN_PROGRESS);
}

/*
 * kvm_invalidate_memslot() for a delete or a move of @old: the slot is
 * swapped out as invalid (KVM_MEMSLOT_INVALID, one generation step), then
 * kvm_arch_flush_shadow_memslot() zaps everything.  The model marks the
 * slot itself (the kernel installs a marked copy sharing its arch data);
 * from here until it leaves the memslots, a fault on it retries, so no
 * SPTE or rmap entry of the old slot is made after the zap.
 */
static void kvm_invalidate_memslot(struct nxsim__vm_mmu *mmu,
				   struct nxsim__memslot *old)
{
	nxsim__write_lock(&mmu->mmu_lock);
	memslots_update_begin(mmu, old->as_id);
	old->flags |= NXSIM__MEMSLOT_INVALID;
	nxsim__rw_unlock(&mmu->mmu_lock);
	kvm_swap_active_memslots(mmu, old->as_id);
	nxsim__kvm_mmu_zap_all_fast(mmu);
	/* the window before the slot leaves the memslots */
	nxsim__sched_point(mmu, NXSIM__SCHED_MEMSLOT, old->base_gfn, 0);
}

/* kvm_check_memslot_overlap(): within one address space. */
static bool kvm_check_memslot_overlap(struct nxsim__vm_mmu *mmu, int as_id,
				      uint16_t id, uint64_t start, uint64_t end)
{
	struct nxsim__memslot *s;

	TAILQ_FOREACH(s, &mmu->slots[as_id], link)
		if (s->id != id && start < s->base_gfn + s->npages &&
		    s->base_gfn < end)
			return true;
	return false;
}

/*
 * kvm_mmu_slot_apply_flags() for KVM_MR_FLAGS_ONLY, after the slot is
 * committed; the TDP MMU's walks take mmu_lock for read where the profile
 * says so (kvm_mmu_slot_remove_write_access(),
 * kvm_mmu_slot_leaf_clear_dirty(), kvm_mmu_zap_collapsible_sptes()).
 * Turning dirty logging on splits the slot's huge pages to 4K first when
 * kvm.eager_page_split is set (kvm_mmu_slot_try_split_huge_pages(), TDP
 * MMU only: is_tdp_mmu_enabled()).
 */
static void kvm_mmu_slot_apply_flags(struct nxsim__vm_mmu *mmu,
				     struct nxsim__memslot *s,
				     uint32_t old_flags)
{
	bool shared = mmu->tdp_mmu_enabled && mmu->prof->dirty_log_read_lock;

	if ((s->flags & NXSIM_MEM_READONLY) ||
	    !((old_flags ^ s->flags) & NXSIM_MEM_LOG_DIRTY_PAGES))
		return;
	/*
	 * Initially-all-set: every page is dirty already, so nothing is
	 * write-protected, split or flushed; KVM_CLEAR_DIRTY_LOG does it
	 * piecewise (kvm_arch_mmu_enable_log_dirty_pt_masked()).
	 */
	if (nxsim__slot_dirty_logging(s) &&
	    nxsim__kvm_dirty_log_manual_protect_and_init_set(mmu))
		return;
	/*
	 * One hold of mmu_lock for the whole change: for write on the shadow
	 * MMU; for read on the TDP MMU where the tree's dirty-logging walks
	 * take it so.
	 */
	nxsim__mmu_lock(mmu, shared);
	if (nxsim__slot_dirty_logging(s)) {
		if (READ_ONCE(mmu->params->eager_page_split))
			nxsim__kvm_mmu_slot_try_split_huge_pages(
				mmu, s, NXSIM_PG_LEVEL_4K, shared);
		nxsim__kvm_mmu_slot_remove_write_access(mmu, s);
	} else
		nxsim__kvm_mmu_zap_collapsible_sptes(mmu, s);
	nxsim__rw_unlock(&mmu->mmu_lock);
}

/* The checks of __kvm_set_memory_region(), each with its reason. */
static int check_region(const struct nxsim_memory_region *mr)
{
	uint64_t size = mr->memory_size;

	if (mr->flags & ~(NXSIM_MEM_LOG_DIRTY_PAGES | NXSIM_MEM_READONLY))
		return nxsim__fail(-EINVAL,
				   "flags 0x%" PRIx32 " has bits "
				   "other than LOG_DIRTY_PAGES and READONLY",
				   mr->flags);
	if (size & 4095)
		return nxsim__fail(-EINVAL,
				   "memory_size 0x%" PRIx64
				   " is not a multiple of 4096",
				   size);
	if (mr->guest_phys_addr & 4095)
		return nxsim__fail(-EINVAL,
				   "guest_phys_addr 0x%" PRIx64
				   " is not a multiple of 4096",
				   mr->guest_phys_addr);
	if (mr->userspace_addr & 4095)
		return nxsim__fail(-EINVAL,
				   "userspace_addr 0x%" PRIx64
				   " is not a multiple of 4096",
				   mr->userspace_addr);
	/* access_ok() */
	if (mr->userspace_addr > TASK_SIZE_MAX ||
	    size > TASK_SIZE_MAX - mr->userspace_addr)
		return nxsim__fail(-EINVAL,
				   "userspace_addr + memory_size "
				   "ends above user space (access_ok())");
	/* as_id >= KVM_ADDRESS_SPACE_NUM, id >= KVM_USER_MEM_SLOTS */
	if ((mr->slot >> 16) >= KVM_ADDRESS_SPACE_NUM)
		return nxsim__fail(-EINVAL,
				   "address space %" PRIu32
				   " (slot >> 16) is not 0 or 1 (SMM)",
				   mr->slot >> 16);
	if ((uint16_t)mr->slot >= NXSIM_USER_MEM_SLOTS)
		return nxsim__fail(-EINVAL, "slot id %u is not below %d",
				   (uint16_t)mr->slot, NXSIM_USER_MEM_SLOTS);
	if (mr->guest_phys_addr + size < mr->guest_phys_addr)
		return nxsim__fail(-EINVAL, "guest_phys_addr + memory_size "
					    "wraps around");
	if ((size >> 12) > KVM_MEM_MAX_NR_PAGES)
		return nxsim__fail(-EINVAL, "memory_size is more than "
					    "KVM_MEM_MAX_NR_PAGES pages");
	if (mr->host_level < 0 || mr->host_level > NXSIM_PG_LEVEL_1G)
		return nxsim__fail(-EINVAL,
				   "host_level %d is not a page "
				   "level (0 to 3)",
				   mr->host_level);
	return 0;
}

int nxsim__kvm_set_memory_region(struct nxsim__vm_mmu *mmu,
				 const struct nxsim_memory_region *mr)
{
	uint16_t id = (uint16_t)mr->slot;
	uint64_t base_gfn = mr->guest_phys_addr >> 12;
	uint64_t npages = mr->memory_size >> 12;
	int as_id = (int)(mr->slot >> 16);
	struct nxsim__memslot *old, *new;
	uint32_t old_flags;
	bool keep;
	int rc = check_region(mr);

	if (rc)
		return rc;
	old = nxsim__id_to_memslot(mmu, as_id, id);
	if (!npages) {
		if (!old)
			return -EINVAL;
		/* KVM_MR_DELETE */
		kvm_invalidate_memslot(mmu, old);
		nxsim__write_lock(&mmu->mmu_lock);
		memslots_update_begin(mmu, as_id);
		slot_remove(mmu, old);
		nxsim__rw_unlock(&mmu->mmu_lock);
		kvm_swap_active_memslots(mmu, as_id);
		kvm_free_memslot(old);
		return 0;
	}
	if (old) {
		if (mr->userspace_addr != old->userspace_addr ||
		    npages != old->npages ||
		    ((mr->flags ^ old->flags) & NXSIM_MEM_READONLY))
			return -EINVAL;
		if (base_gfn == old->base_gfn) {
			if (mr->flags == old->flags)
				return 0;
			/*
			 * KVM_MR_FLAGS_ONLY; kvm_prepare_memory_region():
			 * logging turned on gets a new bitmap, and one turned
			 * off loses it after the commit.
			 */
			if ((mr->flags & NXSIM_MEM_LOG_DIRTY_PAGES) &&
			    !old->dirty_bitmap &&
			    !kvm_alloc_dirty_bitmap(mmu, old))
				return -ENOMEM;
			nxsim__write_lock(&mmu->mmu_lock);
			memslots_update_begin(mmu, as_id);
			old_flags = old->flags;
			slot_remove(mmu, old);
			old->flags = mr->flags;
			slot_insert(mmu, old);
			nxsim__rw_unlock(&mmu->mmu_lock);
			kvm_swap_active_memslots(mmu, as_id);
			if (!nxsim__slot_dirty_logging(old))
				kvm_destroy_dirty_bitmap(old);
			kvm_mmu_slot_apply_flags(mmu, old, old_flags);
			return 0;
		}
	}
	/* KVM_MR_CREATE or KVM_MR_MOVE */
	if (kvm_check_memslot_overlap(mmu, as_id, id, base_gfn,
				      base_gfn + npages))
		return -EEXIST;
	/* kvm_arch_prepare_memory_region(): no gfn beyond kvm_mmu_max_gfn() */
	if (base_gfn + npages - 1 > (1ull << (mmu->phys_bits - 12)) - 1)
		return -EINVAL;
	new = slot_alloc(mr, mr->host_level ? mr->host_level : 1,
			 !mmu->tdp_mmu_enabled);
	if (!new)
		return -ENOMEM;
	/* kvm_prepare_memory_region(): a move keeps the old bitmap */
	keep = old && old->dirty_bitmap && nxsim__slot_dirty_logging(new);
	if (!keep && nxsim__slot_dirty_logging(new) &&
	    !kvm_alloc_dirty_bitmap(mmu, new)) {
		kvm_free_memslot(new);
		return -ENOMEM;
	}
	if (old) {
		memcpy(new->host_level, old->host_level, old->nr_host);
		kvm_invalidate_memslot(mmu, old);
	}
	nxsim__write_lock(&mmu->mmu_lock);
	memslots_update_begin(mmu, as_id);
	if (old)
		slot_remove(mmu, old);
	if (keep) {
		new->dirty_bitmap = old->dirty_bitmap;
		old->dirty_bitmap = NULL;
	}
	slot_insert(mmu, new);
	nxsim__rw_unlock(&mmu->mmu_lock);
	kvm_swap_active_memslots(mmu, as_id);
	if (old)
		kvm_free_memslot(old);
	return 0;
}

/* Set the host level of the 2 MiB hva chunks [first, last] of @s. */
static void set_host_chunks(struct nxsim__memslot *s, uint64_t first,
			    uint64_t last, int level)
{
	uint64_t base = (s->userspace_addr >> 12) / NXSIM__HOST_CHUNK_PAGES, c,
		 g;

	for (c = first; c <= last; c++) {
		s->host_level[c] = level;
		if (level == NXSIM_PG_LEVEL_1G)
			continue;
		/* Splitting part of a 1 GiB mapping leaves 2 MiB ones. */
		g = (base + c) / 512 * 512;
		for (g = g < base ? 0 : g - base;
		     g < s->nr_host && (base + g) / 512 == (base + c) / 512;
		     g++)
			if (s->host_level[g] == NXSIM_PG_LEVEL_1G)
				s->host_level[g] = NXSIM_PG_LEVEL_2M;
	}
}

/*
 * The gfns of the 2 MiB hva chunks [first, last] of @s:
 * __kvm_handle_hva_range() clamps the hva range to the slot and turns it
 * into gfns (hva_to_gfn_memslot()).  The chunks are in hva space, so they
 * need not start at a 2 MiB gfn when gfn and hva are not congruent.
 */
static void host_chunks_gfns(const struct nxsim__memslot *s, uint64_t first,
			     uint64_t last, uint64_t *start, uint64_t *end)
{
	uint64_t ugfn = s->userspace_addr >> 12;
	uint64_t base = ugfn / NXSIM__HOST_CHUNK_PAGES;
	uint64_t ustart = MAX(ugfn, (base + first) * NXSIM__HOST_CHUNK_PAGES);
	uint64_t uend = MIN(ugfn + s->npages,
			    (base + last + 1) * NXSIM__HOST_CHUNK_PAGES);

	*start = s->base_gfn + (ustart - ugfn);
	*end = s->base_gfn + (uend - ugfn);
}

/*
 * kvm_mmu_notifier_invalidate_range_start(): under the write lock,
 * kvm_mmu_invalidate_begin() counts the invalidation in progress and
 * widens the range, then kvm_unmap_gfn_range() zaps the range's leaves
 * (of slot @s, through its rmaps on the shadow MMU).
 */
static void
kvm_mmu_notifier_invalidate_range_start(struct nxsim__vm_mmu *mmu,
					const struct nxsim__memslot *s,
					uint64_t start, uint64_t end)
{
	nxsim__write_lock(&mmu->mmu_lock);
	if (!mmu->mmu_invalidate_in_progress++) {
		mmu->mmu_invalidate_range_start = start;
		mmu->mmu_invalidate_range_end = end;
	} else {
		mmu->mmu_invalidate_range_start =
			MIN(mmu->mmu_invalidate_range_start, start);
		mmu->mmu_invalidate_range_end =
			MAX(mmu->mmu_invalidate_range_end, end);
	}
	if (!mmu->tdp_mmu_enabled)
		nxsim__kvm_rmap_zap_gfn_range(mmu, s, start, end);
	/* __kvm_handle_hva_range(): flush_on_ret, kvm_flush_remote_tlbs() */
	else if (nxsim__kvm_tdp_mmu_zap_leafs(mmu, s->as_id, start, end))
		nxsim__kvm_flush_remote_tlbs(mmu);
	nxsim__rw_unlock(&mmu->mmu_lock);
}

int nxsim__mmu_set_host_level(struct nxsim__vm_mmu *mmu, uint32_t slot_id,
			      uint64_t offset, uint64_t size, int level)
{
	uint64_t bytes, align, start, end, first, last;
	struct nxsim__memslot *s;

	s = (slot_id >> 16) >= KVM_ADDRESS_SPACE_NUM ?
		    NULL :
		    nxsim__id_to_memslot(mmu, (int)(slot_id >> 16),
					 (uint16_t)slot_id);
	if (!s)
		return -EINVAL;
	bytes = s->npages << 12;
	align = level == NXSIM_PG_LEVEL_1G ? 1ull << 30 : 4096;
	if (!size || offset >= bytes || size > bytes - offset ||
	    ((s->userspace_addr + offset) & (align - 1)) ||
	    (size & (align - 1)))
		return -EINVAL;
	start = s->base_gfn + (offset >> 12);
	end = start + (size >> 12);
	first = nxsim__host_chunk(s, start);
	last = nxsim__host_chunk(s, end - 1);
	host_chunks_gfns(s, first, last, &start, &end);
	kvm_mmu_notifier_invalidate_range_start(mmu, s, start, end);
	nxsim__sched_point(mmu, NXSIM__SCHED_INVALIDATE, start, level);
	/*
	 * The primary MMU changes its mapping, then
	 * kvm_mmu_notifier_invalidate_range_end(): kvm_mmu_invalidate_end()
	 * bumps the sequence a racing fault compares, and the invalidation
	 * is no longer in progress.  The model's host table changes under
	 * the same write lock, as faults read it under mmu_lock.
	 */
	nxsim__write_lock(&mmu->mmu_lock);
	set_host_chunks(s, first, last, level);
	__atomic_store_n(&mmu->mmu_invalidate_seq, mmu->mmu_invalidate_seq + 1,
			 __ATOMIC_RELEASE);
	mmu->mmu_invalidate_in_progress--;
	nxsim__rw_unlock(&mmu->mmu_lock);
	return 0;
}

void nxsim__kvm_free_memslots(struct nxsim__vm_mmu *mmu)
{
	struct nxsim__memslot *s;
	int i;

	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++) {
		while ((s = TAILQ_FIRST(&mmu->slots[i]))) {
			slot_remove(mmu, s);
			kvm_free_memslot(s);
		}
	}
}
