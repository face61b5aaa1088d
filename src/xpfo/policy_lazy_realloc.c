// SPDX-License-Identifier: GPL-2.0-only
/*
 * P4d, deferred to reallocation (LUF/LATR-like [S65][S62]): an unmap owes
 * a flush but does not do it; the frame is flushed on every CPU (as P1)
 * just before it is handed to its next owner.  A whole-TLB request (a
 * batched refill, with no frame list) is done at once, as P1.  This leaves
 * frames in use by their user owner exposed until they are reused.
 */
#include "xpfo/xpfo.h"

static void lazy_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		       uint64_t pages)
{
	uint64_t pfn = (va - NXSIM_XPFO_PAGE_OFFSET) >> NXSIM_TLB_SHIFT_4K;
	uint64_t i;

	if (!pages) {
		nxsim__xpfo_flush_cpus(m, cpu, NULL, 0, 0);
		return;
	}
	for (i = 0; i < pages && pfn + i < m->nr_frames; i++)
		m->frame[pfn + i].flags |= FRAME_NEED_FLUSH;
}

static void lazy_reuse(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	struct nxsim__frame *f = &m->frame[pfn];

	if (!(f->flags & FRAME_NEED_FLUSH))
		return;
	f->flags &= ~FRAME_NEED_FLUSH;
	nxsim__xpfo_flush_cpus(m, cpu, NULL, nxsim__physmap_va(pfn), 1);
}

const struct nxsim__xpfo_policy nxsim__xpfo_policy_lazy_realloc = {
	.name = "lazy-realloc",
	.flush = lazy_flush,
	.reuse = lazy_reuse,
};
