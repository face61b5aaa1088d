// SPDX-License-Identifier: GPL-2.0-only
/*
 * P4d, deferred to reallocation (LUF/LATR-like [S65][S62]): an unmap owes
 * a flush but does not do it; the frame is flushed on every CPU (as P1)
 * just before it is handed to its next owner.  A whole-TLB request (a
 * batched refill, with no frame list) is done at once, as P1.  This leaves
 * frames in use by their user owner exposed until they are reused.
 */
#include <stddef.h>

#include <nxsim/xpfo.h>

static void lazy_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		       uint64_t pages)
{
	if (!pages) {
		nxsim_xpfo_policy_shootdown(m, cpu, NULL, 0, 0);
		return;
	}
	nxsim_xpfo_policy_owe(
		m, (va - NXSIM_XPFO_PAGE_OFFSET) >> NXSIM_TLB_SHIFT_4K, pages);
}

static void lazy_reuse(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	if (nxsim_xpfo_policy_take_owed(m, pfn) == 1)
		nxsim_xpfo_policy_shootdown(m, cpu, NULL,
					    NXSIM_XPFO_PAGE_OFFSET +
						    (pfn << NXSIM_TLB_SHIFT_4K),
					    1);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_lazy_realloc = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "lazy-realloc",
	.flush = lazy_flush,
	.reuse = lazy_reuse,
};
