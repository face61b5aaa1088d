// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2, immediate, all CPUs, full flush: flush_tlb_all() on every unmap
 * (the large-page split path's flush [C8]): IPI every CPU, global flush.
 */
#include <stddef.h>

#include <nxsim/xpfo.h>

static void eager_full_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim_xpfo_policy_shootdown(m, cpu, NULL, 0, 0);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_eager_full = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "eager-full",
	.flush = eager_full_flush,
};
