// SPDX-License-Identifier: GPL-2.0-only
/*
 * P5, no flush: Stecklina's v7 patch 11 [S11][S30]: PTEs are still
 * cleared but XPFO never flushes; stale entries live until evicted.  (The
 * large-page split keeps its own flush_tlb_all(), which is not XPFO's.)
 */
#include <nxsim/xpfo.h>

static void none_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		       uint64_t pages)
{
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_none = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "none",
	.flush = none_flush,
};
