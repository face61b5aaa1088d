// SPDX-License-Identifier: GPL-2.0-only
/*
 * An example NX recovery rule plug-in, "lru-accessed": a recovery pass
 * takes as many pages as the kernel's rule would (DIV_ROUND_UP(count,
 * ratio)), but the least used first: the candidates with the fewest
 * leaves whose Accessed bit is set (ties: the oldest first), instead of
 * the oldest from the head of the FIFO list.  The bet: a split the guest
 * barely touches can be made huge again at the least cost, and one it
 * keeps touching would be split again by its next exec fault.
 *
 * Built against an installed libnxsim's headers only; load it with the
 * driver's "plugin load", a sweep's plugin line, or nxsim_plugin_load(),
 * then name it: host create ... nx_recovery=lru-accessed.
 */
#include <errno.h>
#include <stddef.h>

#include <nxsim/plugin.h>

static int64_t lru_pick(const struct nxsim_nx_candidate *cand, size_t nr,
			uint64_t kernel_nr, size_t *pick)
{
	size_t n = kernel_nr < nr ? (size_t)kernel_nr : nr, i, j, k;

	/*
	 * Selection of the n least accessed, oldest first among equals: an
	 * insertion into the sorted prefix of pick[].
	 */
	for (k = 0, i = 0; i < nr; i++) {
		for (j = k; j > 0; j--) {
			const struct nxsim_nx_candidate *p = &cand[pick[j - 1]];

			if (p->accessed <= cand[i].accessed)
				break;
			if (j < n)
				pick[j] = pick[j - 1];
		}
		if (j < n) {
			pick[j] = i;
			if (k < n)
				k++;
		}
	}
	return (int64_t)k;
}

static const struct nxsim_nx_recovery_ops lru_rule = {
	.size = sizeof(struct nxsim_nx_recovery_ops),
	.version = NXSIM_NX_RECOVERY_OPS_VERSION,
	.name = "lru-accessed",
	.pick = lru_pick,
};

NXSIM_PLUGIN_EXPORT int nxsim_plugin_init(const struct nxsim_plugin_api *lib)
{
	if (lib->version < 1 || lib->size < sizeof(*lib))
		return -EOPNOTSUPP;
	return lib->nx_recovery_register(&lru_rule, NULL);
}
