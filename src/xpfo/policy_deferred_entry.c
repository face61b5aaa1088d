// SPDX-License-Identifier: GPL-2.0-only
/*
 * P4b, deferred to kernel entry: Dave Hansen's suggestion [S17][S21]: the
 * pending bit is consumed on every user-to-kernel entry instead of at the
 * next context switch, so only the entry code stays exposed.
 */
#include "xpfo/xpfo.h"

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_deferred_entry = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "deferred-entry",
	.flush = nxsim__xpfo_deferred_flush,
	.kernel_enter = nxsim__xpfo_pending_flush,
};
