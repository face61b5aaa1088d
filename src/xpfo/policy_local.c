// SPDX-License-Identifier: GPL-2.0-only
/*
 * P3, local only: XPFO v1-v5's kunmap (and x86 DEBUG_PAGEALLOC's
 * __kernel_map_pages() [C7]) invalidate the initiating CPU only (range or
 * full by the 33-page rule); other CPUs keep stale physmap entries until
 * eviction, and context switches do not remove them (they are global)
 * [S26].
 */
#include "xpfo/xpfo.h"

void nxsim__xpfo_local_flush(struct nxsim_xpfo *m, unsigned int cpu,
			     uint64_t va, uint64_t pages)
{
	nxsim_xpfo_policy_flush_local(
		m, cpu, va, nxsim_xpfo_policy_ranged(m, pages) ? pages : 0);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_local = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "local",
	.flush = nxsim__xpfo_local_flush,
};
