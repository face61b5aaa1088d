// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest-table side of write protection (arch/x86/kvm/mmu/mmu.c): a
 * write of the guest to a page-table entry (nxsim_guest_write_pte()) goes
 * through unless the gfn is write-tracked or holds a shadowed table that
 * is not unsync; a trapped write is emulated (kvm_mmu_pte_write(), with
 * detect_write_misaligned(), detect_write_flooding() and
 * get_written_sptes(): the shadow entries it covers are dropped, a table
 * written too often or misaligned is zapped).  A fault that would map
 * such a gfn writable makes its 4K shadow pages unsync instead
 * (mmu_try_to_unsync_pages(), kvm_unsync_page()), as paging_tmpl.c's
 * fault path asks.
 *
 * Left out: the emulator itself (the store is applied as given) and the
 * write-tracking users other than the shadow MMU.
 */
#include <errno.h>
#include <string.h>

#include "core/compiler.h"
#include "mmu/guest_mem.h"
#include "mmu/guest_walk.h"
#include "mmu/mmu_internal.h"
#include "mmu/page_track.h"
#include "mmu/paging_tmpl.h"
#include "mmu/shadow_mmu.h"

/*
 * A write to @gfn traps: it is write-tracked, or a 4K table with a shadow
 * page that is not unsync.
 */
static bool gfn_write_protected(struct nxsim__vm_mmu *mmu,
				const struct nxsim__memslot *slot, uint64_t gfn)
{
	struct nxsim__mmu_page *sp;

	if (nxsim__kvm_slot_page_track_is_active(slot, gfn))
		return true;
	if (!mmu->indirect_shadow_pages)
		return false;
	for_each_gfn_valid_sp_with_gptes(mmu, sp,
					 gfn) if (!sp->unsync) return true;
	return false;
}

int nxsim__guest_write_pte(struct nxsim__vm_mmu *mmu,
			   const struct nxsim__kvm_mmu *m, uint64_t gpa,
			   uint64_t pte, unsigned int size)
{
	const struct nxsim__memslot *slot;
	int rc;

	(void)m;
	if ((size != 4 && size != 8) || (gpa & (size - 1)) ||
	    (size == 4 && (pte >> 32)))
		return -EINVAL;
	nxsim__write_lock(&mmu->mmu_lock);
	slot = nxsim__gfn_to_memslot(mmu, 0, gpa >> 12);
	if (slot && gfn_write_protected(mmu, slot, gpa >> 12)) {
		/* the store faults on the write-protected table: emulated */
		rc = nxsim__emulate_pte_write(mmu, gpa, &pte, size);
		if (!rc) {
			MMU_COUNT(mmu, faults);
			MMU_COUNT(mmu, emulated);
		}
	} else {
		rc = nxsim__kvm_write_guest(mmu, gpa, &pte, size);
	}
	nxsim__rw_unlock(&mmu->mmu_lock);
	return rc;
}

/* kvm_unsync_page(): the guest may write @sp's table without a trap. */
static void kvm_unsync_page(struct nxsim__vm_mmu *mmu,
			    struct nxsim__mmu_page *sp)
{
	MMU_COUNT(mmu, unsync);
	mmu->nr_unsync++;
	sp->unsync = true;
	nxsim__kvm_mmu_mark_parents_unsync(mmu, sp);
}

/*
 * mmu_try_to_unsync_pages(): may a writable SPTE map @gfn?  Never while it
 * is write-tracked (a shadowed table above 4K: account_shadowed()).  Its
 * other shadow pages, 4K tables, go unsync where @can_unsync (a fault, not
 * a sync); a prefetch does not unsync a page.  Return: 0, -EPERM or
 * -EEXIST.
 */
int nxsim__mmu_try_to_unsync_pages(struct nxsim__vm_mmu *mmu,
				   const struct nxsim__memslot *slot,
				   uint64_t gfn, bool can_unsync, bool prefetch)
{
	struct nxsim__mmu_page *sp;

	if (nxsim__kvm_slot_page_track_is_active(slot, gfn))
		return -EPERM;
	if (!mmu->indirect_shadow_pages)
		return 0;
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (!can_unsync)
			return -EPERM;
		if (sp->unsync)
			continue;
		if (prefetch)
			return -EEXIST;
		WARN_ON(sp->role.level != NXSIM_PG_LEVEL_4K);
		kvm_unsync_page(mmu, sp);
	}
	return 0;
}

/* detect_write_misaligned() */
static bool detect_write_misaligned(const struct nxsim__mmu_page *sp,
				    uint64_t gpa, unsigned int bytes)
{
	unsigned int offset = gpa & 4095, misaligned;
	unsigned int pte_size = pt_type_of(sp->role.has_4_byte_gpte)->size;

	if (!(offset & (pte_size - 1)) && bytes == 1)
		return false;
	misaligned = (offset ^ (offset + bytes - 1)) & ~(pte_size - 1);
	misaligned |= bytes < 4;
	return misaligned;
}

/*
 * detect_write_flooding(): a table above 4K written a third time without
 * a fault walking through its shadow page is zapped rather than kept in
 * step (4K tables can go unsync instead).
 */
static bool detect_write_flooding(struct nxsim__mmu_page *sp)
{
	if (sp->role.level == NXSIM_PG_LEVEL_4K)
		return false;
	sp->write_flooding_count++;
	return sp->write_flooding_count >= 3;
}

/*
 * get_written_sptes(): the SPTEs of @sp that shadow the entry at @gpa,
 * from *@idx, *@nspte of them.  A 4-byte entry is at twice its offset in
 * the 8-byte shadow table; a 32-bit PDE (4 MiB) is shadowed by two PAE
 * PDEs (2 MiB); and the quadrant must be @sp's.  Return: false if the
 * entry is in another quadrant's page.
 */
static bool get_written_sptes(const struct nxsim__mmu_page *sp, uint64_t gpa,
			      unsigned int *idx, unsigned int *nspte)
{
	unsigned int page_offset = gpa & 4095, quadrant;

	*nspte = 1;
	if (sp->role.has_4_byte_gpte) {
		page_offset <<= 1; /* 32->64 */
		if (sp->role.level == PT32_ROOT_LEVEL) {
			page_offset &= ~7u;
			page_offset <<= 1;
			*nspte = 2;
		}
		quadrant = page_offset >> 12;
		page_offset &= 4095;
		if (quadrant != sp->role.quadrant)
			return false;
	}
	*idx = page_offset / 8;
	return true;
}

/*
 * kvm_mmu_pte_write(): the guest wrote @bytes at @gpa, a shadowed table:
 * zap each shadow page of the gfn the write does not fit (misaligned) or
 * that is flooded, else the SPTEs shadowing the written entry, then one
 * flush or commit; with the stats mmu_pte_write, mmu_flooded and
 * mmu_pde_zapped (whose gentry is the new entry read back: the store has
 * landed).  Left out: mmu_pte_write_fetch_gpte()'s widening of a 4-byte
 * write to a PAE entry.
 */
static void kvm_mmu_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			      unsigned int bytes)
{
	uint64_t gentry = 0;
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);
	uint64_t gfn = gpa >> 12;
	struct nxsim__mmu_page *sp;
	unsigned int idx, nspte;
	bool flush = false;

	if (!mmu->indirect_shadow_pages)
		return;
	if ((bytes == 4 || bytes == 8) &&
	    nxsim__kvm_read_guest(mmu, gpa, &gentry, bytes))
		gentry = 0;
	MMU_KSTAT(mmu, mmu_pte_write);
	for_each_gfn_valid_sp_with_gptes(mmu, sp, gfn)
	{
		if (detect_write_misaligned(sp, gpa, bytes) ||
		    detect_write_flooding(sp)) {
			nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &invalid_list);
			MMU_KSTAT(mmu, mmu_flooded);
			continue;
		}
		if (!get_written_sptes(sp, gpa, &idx, &nspte))
			continue;
		for (; nspte--; idx++) {
			if (is_shadow_present_pte(sp->spt[idx]))
				flush = true;
			nxsim__mmu_page_zap_pte(mmu, sp, idx, &invalid_list);
			if (gentry && sp->role.level != NXSIM_PG_LEVEL_4K)
				MMU_KSTAT(mmu, mmu_pde_zapped);
		}
	}
	nxsim__kvm_mmu_remote_flush_or_zap(mmu, &invalid_list, flush);
}

/*
 * The emulated store of a trapped guest write (x86_emulate_instruction()
 * -> emulator_write_phys() -> kvm_page_track_write()): the bytes land in
 * guest memory, then kvm_mmu_pte_write().
 */
int nxsim__emulate_pte_write(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			     const void *val, unsigned int bytes)
{
	int rc = nxsim__kvm_write_guest(mmu, gpa, val, bytes);

	if (!rc)
		kvm_mmu_pte_write(mmu, gpa, bytes);
	return rc;
}
