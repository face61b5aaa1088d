// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel direct map: every frame mapped at PAGE_OFFSET + pfn * 4K, by
 * a 1G mapping where a whole aligned GiB of frames exists, else by a 2M
 * mapping where a whole aligned 2 MiB exists, else by 4K PTEs.  The first
 * unmap inside a large mapping splits it (__split_large_page() of
 * arch/x86/mm/pat/set_memory.c): a page-table page, 512 entries and a
 * flush_tlb_all() [C8].  A 1G mapping becomes 2M mappings, and the 2M one
 * holding the frame becomes 4K PTEs, each split with its own flush.
 * Splits are permanent.
 *
 * Left out: the 512 GiB level; v9 routing the split's flush through the
 * deferred XPFO flush (the flush here is always immediate).
 */
#include "core/compiler.h"
#include "xpfo/xpfo.h"

#define PFN_1G_SHIFT (NXSIM_TLB_SHIFT_1G - NXSIM_TLB_SHIFT_4K)
#define PFN_2M_SHIFT (NXSIM_TLB_SHIFT_2M - NXSIM_TLB_SHIFT_4K)

/**
 * nxsim__physmap_shift() - page size of the mapping covering @pfn
 *
 * Return: NXSIM_TLB_SHIFT_1G, _2M or _4K.
 */
unsigned int nxsim__physmap_shift(const struct nxsim_xpfo *m, uint64_t pfn)
{
	uint64_t r1 = pfn >> PFN_1G_SHIFT, r2 = pfn >> PFN_2M_SHIFT;

	if (((r1 + 1) << PFN_1G_SHIFT) <= m->nr_frames &&
	    !bit_test(m->split_1g, r1))
		return NXSIM_TLB_SHIFT_1G;
	if (((r2 + 1) << PFN_2M_SHIFT) <= m->nr_frames &&
	    !bit_test(m->split_2m, r2))
		return NXSIM_TLB_SHIFT_2M;
	return NXSIM_TLB_SHIFT_4K;
}

static void split_flush(struct nxsim_xpfo *m, unsigned int cpu)
{
	nxsim__xpfo_charge_flush(m, cpu,
				 m->cost.split + 512ull * m->cost.pte_write);
	/* flush_tlb_all() under the page-table lock. */
	nxsim__xpfo_flush_cpus(m, cpu, NULL, 0, 0);
}

/**
 * nxsim__physmap_split() - map @pfn by a 4K PTE, splitting what covers it
 * @m: the machine
 * @cpu: the CPU doing the split (it sends the flush)
 * @pfn: the frame about to be unmapped
 */
void nxsim__physmap_split(struct nxsim_xpfo *m, unsigned int cpu, uint64_t pfn)
{
	unsigned int shift = nxsim__physmap_shift(m, pfn);

	if (shift == NXSIM_TLB_SHIFT_1G) {
		bit_set(m->split_1g, pfn >> PFN_1G_SHIFT);
		m->st.splits_1g++;
		split_flush(m, cpu);
		shift = nxsim__physmap_shift(m, pfn);
	}
	if (shift == NXSIM_TLB_SHIFT_2M) {
		bit_set(m->split_2m, pfn >> PFN_2M_SHIFT);
		m->st.splits_2m++;
		split_flush(m, cpu);
	}
}
