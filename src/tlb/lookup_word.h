/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nxsim__tlb_lookup() for callers that keep their own bits in an entry's
 * frame word (the vCPU TLB keeps the SPTE's rights and level there): a
 * hit returns the word and the level that hit without building a
 * struct nxsim_tlb_entry, so the L1 hit stays inline end to end.  The
 * L1's memo of its last hit (struct nxsim__tlb_array) answers a lookup of
 * the same page without the probe (nxsim__tlb_lookup_memo()), as in
 * nxsim__tlb_lookup(); the memo's entry holds the frame word.
 */
#ifndef NXSIM_TLB_LOOKUP_WORD_H
#define NXSIM_TLB_LOOKUP_WORD_H

#include "tlb/tlb.h"

/*
 * Look up @va on @cpu; on a hit store the frame word in *@word and the
 * level that hit in *@lv and return 0; on a miss return -ENOENT (the
 * miss state for nxsim__tlb_fill() is set as by nxsim__tlb_lookup()).
 */
static inline int nxsim__tlb_lookup_word(struct nxsim_tlb *tlb,
					 unsigned int cpu,
					 enum nxsim_tlb_access access,
					 uint64_t va, uint64_t *word,
					 enum nxsim_tlb_level *lv)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	enum nxsim_tlb_level l1 = nxsim__tlb_l1(access);
	struct nxsim__tlb_array *a = &c->lv[l1];
	struct nxsim_tlb_entry e;
	unsigned int w;
	size_t base;
	int rc;

	if (__builtin_expect(nxsim__tlb_lookup_memo(tlb, cpu, access, va, NULL),
			     1)) {
		*word = a->memo_e.pfn;
		*lv = l1;
		return 0;
	}
	if (__builtin_expect(!nxsim__tlb_probe(a, va, c->pcid, &base, &w), 0)) {
		rc = nxsim__tlb_lookup_l2(tlb, cpu, l1, va, &e);
		if (!rc) {
			*word = e.pfn;
			*lv = NXSIM_TLB_L2;
		}
		return rc;
	}
	nxsim__tlb_l1_hit(tlb, c, a, l1, va, base, w,
			  tlb_tag_size(a->tag[base + w]), &e);
	*word = e.pfn;
	*lv = l1;
	return 0;
}

#endif /* NXSIM_TLB_LOOKUP_WORD_H */
