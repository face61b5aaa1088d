// SPDX-License-Identifier: GPL-2.0-only
/*
 * True LRU replacement: evict the way used least recently, from the
 * per-way use ticks the TLB keeps.  Models no particular hardware (real
 * TLBs use pseudo-LRU); it is the default, as in ChampSim.
 */
#include "tlb/tlb.h"

static unsigned int lru_victim(const uint64_t *age, uint32_t *state,
			       unsigned int ways, struct nxsim__rng *rng)
{
	unsigned int w, best = 0;

	for (w = 1; w < ways; w++)
		if (age[w] < age[best])
			best = w;
	return best;
}

const struct nxsim__tlb_repl_ops nxsim__tlb_repl_lru = {
	.name = "lru",
	.victim = lru_victim,
};
