// SPDX-License-Identifier: GPL-2.0-only
/*
 * P6, ASI-like (Shahid 2022 RFC [S50][S55b]): flushes of restricted
 * mappings go by IPI only to CPUs currently in the kernel (in the
 * restricted address space); a CPU in user mode is marked and flushes on
 * its next entry (asi_enter's generation check).  Every user/kernel
 * transition costs asi_transition cycles.
 *
 * Left out: separate PCIDs per restricted space, non-global kernel entries
 * and the mitigation hooks (their cost is asi_transition's to carry).
 */
#include <stddef.h>

#include <nxsim/xpfo.h>

static void asi_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
		      uint64_t pages)
{
	uint64_t *mask = nxsim_xpfo_policy_cpumask(m);
	unsigned int nr_cpus, i;

	nxsim_xpfo_policy_machine(m, &nr_cpus, NULL, NULL);
	nxsim_xpfo_policy_user_cpus(m, mask);
	nxsim_xpfo_policy_defer(m, cpu, mask);
	for (i = 0; i < (nr_cpus + 63) / 64; i++)
		mask[i] = ~mask[i];
	nxsim_xpfo_policy_shootdown(m, cpu, mask, va, pages);
}

static void asi_transition(struct nxsim_xpfo *m, unsigned int cpu)
{
	const struct nxsim_xpfo_costs *costs;

	nxsim_xpfo_policy_machine(m, NULL, NULL, &costs);
	nxsim_xpfo_policy_charge(m, cpu, costs->asi_transition);
}

static void asi_enter(struct nxsim_xpfo *m, unsigned int cpu)
{
	asi_transition(m, cpu);
	nxsim_xpfo_policy_run_pending(m, cpu);
}

const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_asi = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "asi",
	.flush = asi_flush,
	.kernel_enter = asi_enter,
	.kernel_exit = asi_transition,
};
