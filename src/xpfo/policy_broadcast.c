// SPDX-License-Identifier: GPL-2.0-only
/*
 * P7, hardware broadcast: P1's flush_tlb_kernel_range() done with
 * INVLPGB + TLBSYNC instead of IPIs, as kernel flushes do on AMD since
 * 2025 [S47][S48]; large-page splits broadcast too.
 */
#include "xpfo/xpfo.h"

static void broadcast_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
			    uint64_t pages)
{
	nxsim__xpfo_flush_cpus(m, cpu, NULL, va, pages, true);
}

const struct nxsim__xpfo_policy nxsim__xpfo_policy_broadcast = {
	.name = "broadcast",
	.flush = broadcast_flush,
	.broadcast = true,
};
