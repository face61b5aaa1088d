// SPDX-License-Identifier: GPL-2.0-only
/*
 * Listing a CPU's TLB entries, level by level, set by set, with each way's
 * place in its set's use order.  Hardware has no such operation (x86 TLBs
 * cannot be read); this is the simulator's window for users, like the
 * page-table dump of the MMU side.  Read-only: nothing a lookup would see
 * changes.
 */
#include <errno.h>

#include <nxsim/tlb.h>

#include "tlb/tlb.h"

static const char *const level_names[NXSIM_TLB_NR_LEVELS] = {
	[NXSIM_TLB_L1D] = "l1d",
	[NXSIM_TLB_L1I] = "l1i",
	[NXSIM_TLB_L2] = "l2",
};

const char *nxsim_tlb_level_name(enum nxsim_tlb_level level)
{
	return (unsigned int)level < NXSIM_TLB_NR_LEVELS ? level_names[level] :
							   NULL;
}

/* Valid ways of the set at @base used more recently than way @w. */
static uint32_t recency(const struct nxsim__tlb_array *a, size_t base,
			unsigned int w)
{
	uint32_t n = 0;
	unsigned int k;

	for (k = 0; k < a->ways; k++)
		n += a->tag[base + k] && a->age[base + k] > a->age[base + w];
	return n;
}

int nxsim__tlb_dump(const struct nxsim_tlb *tlb, unsigned int cpu,
		    nxsim_tlb_dump_fn fn, void *ctx)
{
	const struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int l, w;
	uint32_t set;
	int n = 0, rc;

	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		const struct nxsim__tlb_array *a = &c->lv[l];

		for (set = 0; set <= a->set_mask; set++) {
			size_t base = (size_t)set * a->row;

			for (w = 0; w < a->ways; w++) {
				struct nxsim_tlb_slot s = {
					.set = set,
					.way = w,
				};

				if (!a->tag[base + w])
					continue;
				nxsim__tlb_entry_out(a, base + w, l, &s.e);
				s.recency = recency(a, base, w);
				rc = fn(ctx, &s);
				if (rc)
					return rc;
				n++;
			}
		}
	}
	return n;
}
