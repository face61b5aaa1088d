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
	uint64_t min = age[0];

	/* Written for conditional moves: ages are random, branches miss. */
	for (w = 1; w < ways; w++) {
		bool older = age[w] < min;

		min = older ? age[w] : min;
		best = older ? w : best;
	}
	return best;
}

const struct nxsim__tlb_repl_ops nxsim__tlb_repl_lru = {
	.name = "lru",
	.victim = lru_victim,
};
