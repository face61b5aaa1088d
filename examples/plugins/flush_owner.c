// SPDX-License-Identifier: GPL-2.0-only
/*
 * An example flush policy plug-in, "owner-cpus": an unmap of a user
 * frame's physmap alias is shot down only on the CPUs that ever ran the
 * frame's owner (its domain) and on the initiator, instead of on every
 * CPU as flush_tlb_kernel_range() does (the "eager" policy).  The bet:
 * the kernel touches a frame's alias mostly on behalf of its owner.  The
 * oracle says what the bet costs: a CPU that reached the alias for
 * someone else (a kmap window, a cross-domain read) keeps it.
 *
 * A range of more than one page (a large-page mapping's flush) or a
 * whole-TLB request is shot down everywhere, as "eager" does.
 *
 * Built against an installed libnxsim's headers only; it reaches the
 * library through the table nxsim_plugin_init() receives.  Load it with
 * the driver's "plugin load", a sweep's plugin= key, or
 * nxsim_plugin_load().
 */
#include <errno.h>
#include <stdlib.h>

#include <nxsim/plugin.h>

#define NR_DOMAINS 65536u

static const struct nxsim_plugin_api *api;

/* Per machine: for each domain, the cpumask of the CPUs that ran it. */
struct owner_cpus {
	unsigned int words; /* of a cpumask */
	uint64_t *ran;	    /* NR_DOMAINS masks */
};

static int owner_init(struct nxsim_xpfo *m, void **data)
{
	struct owner_cpus *oc = malloc(sizeof(*oc));
	unsigned int nr_cpus;

	if (!oc)
		return -ENOMEM;
	api->xpfo_machine(m, &nr_cpus, NULL, NULL);
	oc->words = (nr_cpus + 63) / 64;
	oc->ran = calloc((size_t)NR_DOMAINS * oc->words, sizeof(uint64_t));
	if (!oc->ran) {
		free(oc);
		return -ENOMEM;
	}
	*data = oc;
	return 0;
}

static void owner_fini(struct nxsim_xpfo *m, void *data)
{
	struct owner_cpus *oc = data;

	free(oc->ran);
	free(oc);
}

static void ran(struct owner_cpus *oc, unsigned int cpu, int domain)
{
	if (domain > 0)
		oc->ran[(size_t)domain * oc->words + cpu / 64] |= 1ull
								  << (cpu % 64);
}

/* switch_mm: the outgoing domain ran here (the hook runs before CR3). */
static void owner_switch(struct nxsim_xpfo *m, unsigned int cpu)
{
	ran(api->xpfo_data(m), cpu, api->xpfo_cpu_domain(m, cpu));
}

static void owner_flush(struct nxsim_xpfo *m, unsigned int cpu, uint64_t va,
			uint64_t pages)
{
	struct owner_cpus *oc = api->xpfo_data(m);
	uint64_t pfn = (va - NXSIM_XPFO_PAGE_OFFSET) >> NXSIM_TLB_SHIFT_4K;
	uint64_t *mask = api->xpfo_cpumask(m);
	unsigned int nr_cpus, i;
	int domain;

	domain = pages == 1 ? api->xpfo_frame_domain(m, pfn) : -1;
	if (domain <= 0) {
		api->xpfo_shootdown(m, cpu, NULL, va, pages);
		return;
	}
	api->xpfo_machine(m, &nr_cpus, NULL, NULL);
	for (i = 0; i < oc->words; i++)
		mask[i] = oc->ran[(size_t)domain * oc->words + i];
	/* The CPUs running it now, which no switch has recorded yet. */
	for (i = 0; i < nr_cpus; i++)
		if (api->xpfo_cpu_domain(m, i) == domain)
			mask[i / 64] |= 1ull << (i % 64);
	api->xpfo_shootdown(m, cpu, mask, va, pages);
}

static const struct nxsim_xpfo_policy_ops owner_cpus_policy = {
	.size = sizeof(struct nxsim_xpfo_policy_ops),
	.version = NXSIM_XPFO_POLICY_OPS_VERSION,
	.name = "owner-cpus",
	.flush = owner_flush,
	.context_switch = owner_switch,
	.init = owner_init,
	.fini = owner_fini,
};

NXSIM_PLUGIN_EXPORT int nxsim_plugin_init(const struct nxsim_plugin_api *lib)
{
	if (lib->version < 1 || lib->size < sizeof(*lib))
		return -EOPNOTSUPP;
	api = lib;
	return api->xpfo_policy_register(&owner_cpus_policy, NULL);
}
