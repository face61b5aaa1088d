// SPDX-License-Identifier: GPL-2.0-only
/*
 * True LRU replacement: evict the way used least recently, from the
 * per-way use ticks the TLB keeps (nxsim__tlb_oldest(), in tlb.h).  Models
 * no particular hardware (real TLBs use pseudo-LRU); it is the default, as
 * in ChampSim.
 */
#include "tlb/tlb.h"

const struct nxsim_tlb_repl_ops nxsim__tlb_repl_lru = {
	.size = sizeof(struct nxsim_tlb_repl_ops),
	.version = NXSIM_TLB_REPL_OPS_VERSION,
	.name = "lru",
	/* .victim NULL: the fill finds the oldest way inline. */
};
