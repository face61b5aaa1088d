// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random replacement from the TLB's seeded generator, so runs repeat.
 */
#include "tlb/tlb.h"

static unsigned int random_victim(const uint64_t *age, uint32_t *state,
				  unsigned int ways, struct nxsim_rng *rng)
{
	return (unsigned int)nxsim_rng_below(rng, ways);
}

const struct nxsim_tlb_repl_ops nxsim__tlb_repl_random = {
	.size = sizeof(struct nxsim_tlb_repl_ops),
	.version = NXSIM_TLB_REPL_OPS_VERSION,
	.name = "random",
	.victim = random_victim,
};
