// SPDX-License-Identifier: GPL-2.0-only
/*
 * P3, local only: XPFO v1-v5's kunmap (and x86 DEBUG_PAGEALLOC's
 * __kernel_map_pages() [C7]) invalidate the initiating CPU only; other
 * CPUs keep stale physmap entries until eviction, and context switches do
 * not remove them (they are global) [S26].
 */
#include "xpfo/xpfo.h"

static void local_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
			uint64_t pages)
{
	nxsim__xpfo_flush_local(m, cpu, va, pages);
}

const struct nxsim__xpfo_policy nxsim__xpfo_policy_local = {
	.name = "local",
	.flush = local_flush,
};
