// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame ownership transitions of mm/xpfo.c (docs/xpfo.md): xpfo_alloc_pages()
 * for kernel and user GFP masks, xpfo_free_pages(), xpfo_kmap(),
 * xpfo_kunmap(), and v8/v9's batched unmap at per-CPU freelist refill
 * (patch 13).  Which transitions unmap and flush depends on the version
 * (enum nxsim_xpfo_version); how a flush is done is the policy's business.
 *
 * Each map/unmap decision is taken under the frame's xpfo_lock bit.  With
 * XPFO disabled (the baseline) ownership is tracked and the workload's own
 * costs are charged, but the physmap is never changed.
 *
 * Left out: order > 0 allocations (one frame per call; v9's first-page-only
 * PTE update for order > 0 [S14] is therefore not reproduced), GFP-mask
 * classification (the caller says kernel or user), swiotlb/dcache helpers.
 */
#include <errno.h>

#include "core/compiler.h"
#include "xpfo/xpfo.h"

/* xpfo_lock: take @f's lock bit and charge @cpu the lock's cost. */
static void frame_lock(struct nxsim_xpfo *m, unsigned int cpu,
		       struct nxsim__frame *f)
{
	while (__atomic_fetch_or(&f->flags, FRAME_LOCK, __ATOMIC_ACQUIRE) &
	       FRAME_LOCK)
		;
	nxsim__xpfo_charge_flush(m, cpu, m->cost.xpfo_lock);
}

static void frame_unlock(struct nxsim__frame *f)
{
	__atomic_fetch_and(&f->flags, (uint8_t)~FRAME_LOCK, __ATOMIC_RELEASE);
}

/* set_kpte(..., __pgprot(0)): clear the physmap PTE, splitting first. */
static void physmap_unmap(struct nxsim_xpfo *m, unsigned int cpu,
			  struct nxsim__frame *f, uint64_t pfn)
{
	nxsim__physmap_split(m, cpu, pfn);
	f->flags |= FRAME_UNMAPPED;
	m->st.pte_clear++;
	nxsim__xpfo_charge_flush(m, cpu, m->cost.pte_write);
}

/* set_kpte(..., PAGE_KERNEL): make the PTE present again; no flush. */
static void physmap_remap(struct nxsim_xpfo *m, unsigned int cpu,
			  struct nxsim__frame *f, uint64_t pfn)
{
	f->flags &= ~FRAME_UNMAPPED;
	m->st.pte_set++;
	nxsim__xpfo_charge_flush(m, cpu, m->cost.pte_write);
	nxsim__oracle_remapped(m, pfn);
}

/*
 * xpfo_flush_kernel_tlb(): the range is the frame's current physmap
 * mapping (4K, 2M or 1G) [C3][C6]; a mapped frame is flushed at allocation,
 * an unmapped one after its PTE was cleared.
 */
static void xpfo_flush_kernel_tlb(struct nxsim_xpfo *m, unsigned int cpu,
				  uint64_t pfn)
{
	unsigned int shift = nxsim__physmap_shift(m, pfn);
	uint64_t va = nxsim__physmap_va(pfn) & ~((1ull << shift) - 1);

	m->st.policy_flushes++;
	nxsim__xpfo_policy_call(m, flush, cpu, va,
				1ull << (shift - NXSIM_TLB_SHIFT_4K));
	if (m->frame[pfn].flags & FRAME_UNMAPPED)
		nxsim__oracle_unmapped(m, pfn);
}

/*
 * Frame about to get a new owner: P4d-style policies flush first, then the
 * oracle counts a reuse hazard if any CPU still holds a translation.
 */
static void handover(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn,
		     uint8_t owner, uint16_t domain)
{
	nxsim__xpfo_policy_call(m, reuse, cpu, pfn);
	nxsim__oracle_reuse(m, pfn, owner, domain);
}

int nxsim__xpfo_alloc_pages_kernel(struct nxsim_xpfo *m, unsigned int cpu,
				   uint64_t pfn)
{
	struct nxsim__frame *f;

	if (pfn >= m->nr_frames)
		return -EINVAL;
	f = &m->frame[pfn];
	if (f->owner != NXSIM_XPFO_FREE)
		return -EBUSY;
	nxsim__xpfo_charge(m, cpu, m->cost.page_alloc);
	if (!m->disabled) {
		handover(m, cpu, pfn, NXSIM_XPFO_KERNEL, 0);
		frame_lock(m, cpu, f);
		f->flags &= ~FRAME_USER;
		/* v9 left it unmapped when a user freed it. */
		if (f->flags & FRAME_UNMAPPED)
			physmap_remap(m, cpu, f, pfn);
		frame_unlock(f);
	}
	f->owner = NXSIM_XPFO_KERNEL;
	m->st.alloc_kernel++;
	return 0;
}

int nxsim__xpfo_alloc_pages_user(struct nxsim_xpfo *m, unsigned int cpu,
				 uint64_t pfn, uint16_t domain,
				 unsigned int flags)
{
	struct nxsim__frame *f;
	bool flush = false;

	if (pfn >= m->nr_frames || !domain || (flags & ~NXSIM_XPFO_WILL_MAP))
		return -EINVAL;
	f = &m->frame[pfn];
	if (f->owner != NXSIM_XPFO_FREE)
		return -EBUSY;
	nxsim__xpfo_charge(m, cpu, m->cost.page_alloc);
	if (!m->disabled) {
		handover(m, cpu, pfn, NXSIM_XPFO_USER, domain);
		frame_lock(m, cpu, f);
		if (m->version == NXSIM_XPFO_V9) {
			/* Unmap now unless the kernel writes it first. */
			if ((!(f->flags & FRAME_USER) ||
			     !(flags & NXSIM_XPFO_WILL_MAP)) &&
			    !(f->flags & FRAME_UNMAPPED)) {
				physmap_unmap(m, cpu, f, pfn);
				flush = true;
			}
			f->flags |= FRAME_USER;
		} else if (!(f->flags & FRAME_USER)) {
			/* Was kernel: flush its alias, leave it mapped. */
			f->flags |= FRAME_USER;
			flush = true;
		}
		frame_unlock(f);
		if (flush)
			xpfo_flush_kernel_tlb(m, cpu, pfn);
	}
	f->owner = NXSIM_XPFO_USER;
	f->domain = domain;
	m->st.alloc_user++;
	return 0;
}

/* @pfn's frame if it is in range and has an owner, else NULL. */
static struct nxsim__frame *owned_frame(struct nxsim_xpfo *m, uint64_t pfn)
{
	if (pfn >= m->nr_frames || m->frame[pfn].owner == NXSIM_XPFO_FREE)
		return NULL;
	return &m->frame[pfn];
}

int nxsim__xpfo_free_pages(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	struct nxsim__frame *f;

	f = owned_frame(m, pfn);
	if (!f)
		return -EINVAL;
	if (f->kmap_count)
		return -EBUSY;
	nxsim__xpfo_charge(m, cpu, m->cost.page_free);
	if (!m->disabled && m->version != NXSIM_XPFO_V9) {
		frame_lock(m, cpu, f);
		if (f->flags & FRAME_UNMAPPED)
			physmap_remap(m, cpu, f, pfn);
		f->flags &= ~FRAME_USER;
		frame_unlock(f);
	}
	f->owner = NXSIM_XPFO_FREE;
	m->st.frees++;
	return 0;
}

int nxsim__xpfo_kmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	struct nxsim__frame *f;

	f = owned_frame(m, pfn);
	if (!f)
		return -EINVAL;
	if (f->kmap_count == UINT16_MAX)
		return -EOVERFLOW;
	f->kmap_count++;
	m->st.kmaps++;
	if (m->disabled || !(f->flags & FRAME_USER))
		return 0;
	frame_lock(m, cpu, f);
	if (f->kmap_count == 1) {
		if (f->flags & FRAME_UNMAPPED)
			physmap_remap(m, cpu, f, pfn);
		nxsim__oracle_kmap_open(m, pfn);
	}
	frame_unlock(f);
	return 0;
}

int nxsim__xpfo_kunmap(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	struct nxsim__frame *f;
	bool flush = false;

	f = owned_frame(m, pfn);
	if (!f || !f->kmap_count)
		return -EINVAL;
	f->kmap_count--;
	m->st.kunmaps++;
	if (m->disabled || !(f->flags & FRAME_USER))
		return 0;
	frame_lock(m, cpu, f);
	if (!f->kmap_count) {
		nxsim__oracle_kmap_close(m, pfn);
		physmap_unmap(m, cpu, f, pfn);
		flush = true;
	}
	frame_unlock(f);
	if (flush)
		xpfo_flush_kernel_tlb(m, cpu, pfn);
	return 0;
}

int nxsim__xpfo_refill(struct nxsim_xpfo *m, unsigned int cpu,
		       const uint64_t *pfns, unsigned int n)
{
	unsigned int i, fresh = 0;

	if (!pfns || !n)
		return -EINVAL;
	if (m->version < NXSIM_XPFO_V8)
		return -EOPNOTSUPP;
	for (i = 0; i < n; i++)
		if (pfns[i] >= m->nr_frames ||
		    m->frame[pfns[i]].owner != NXSIM_XPFO_FREE)
			return -EINVAL;
	m->st.refills++;
	if (m->disabled)
		return 0;
	for (i = 0; i < n; i++) {
		struct nxsim__frame *f = &m->frame[pfns[i]];

		frame_lock(m, cpu, f);
		f->flags |= FRAME_USER;
		if (!(f->flags & FRAME_UNMAPPED)) {
			physmap_unmap(m, cpu, f, pfns[i]);
			fresh++;
		}
		frame_unlock(f);
	}
	if (!fresh)
		return 0;
	/* One full flush for the batch. */
	m->st.policy_flushes++;
	nxsim__xpfo_policy_call(m, flush, cpu, 0, 0);
	for (i = 0; i < n; i++)
		if (m->frame[pfns[i]].flags & FRAME_UNMAPPED)
			nxsim__oracle_unmapped(m, pfns[i]);
	return 0;
}
