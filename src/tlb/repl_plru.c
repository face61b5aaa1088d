// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tree pseudo-LRU: ways - 1 bits per set form a binary tree; a use points
 * every node on the way's path away from it, and the victim is found by
 * following the bits from the root.  Needs a power-of-two way count.
 * Bit i of the state is node i (root 0, children 2i+1 and 2i+2); a set bit
 * means "the next victim is in the right half".
 */
#include "tlb/tlb.h"

static void plru_touch(uint32_t *state, unsigned int way, unsigned int ways)
{
	unsigned int node = 0, half = ways / 2, lo = 0;

	while (half) {
		bool right = way >= lo + half;

		if (right) {
			*state &= ~(1u << node); /* victim goes left */
			lo += half;
		} else {
			*state |= 1u << node;
		}
		node = 2 * node + 1 + right;
		half /= 2;
	}
}

static unsigned int plru_victim(const uint64_t *age, uint32_t *state,
				unsigned int ways, struct nxsim_rng *rng)
{
	unsigned int node = 0, half = ways / 2, lo = 0;

	while (half) {
		bool right = *state >> node & 1;

		if (right)
			lo += half;
		node = 2 * node + 1 + right;
		half /= 2;
	}
	return lo;
}

const struct nxsim_tlb_repl_ops nxsim__tlb_repl_plru = {
	.size = sizeof(struct nxsim_tlb_repl_ops),
	.version = NXSIM_TLB_REPL_OPS_VERSION,
	.name = "plru",
	.pow2_ways = true,
	.touch = plru_touch,
	.victim = plru_victim,
};
