// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2, immediate, all CPUs, full flush: flush_tlb_all() on every unmap
 * (the large-page split path's flush [C8]): IPI every CPU, global flush.
 */
#include "xpfo/xpfo.h"

static void eager_full_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim__xpfo_flush_cpus(m, cpu, NULL, 0, 0);
}

const struct nxsim__xpfo_policy nxsim__xpfo_policy_eager_full = {
	.name = "eager-full",
	.flush = eager_full_flush,
};
