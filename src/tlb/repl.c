// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of TLB replacement policies (docs/xpfo.md, docs/plugins.md):
 * the built-ins, each a file src/tlb/repl_<name>.c defining a struct
 * nxsim_tlb_repl_ops, then those nxsim_tlb_repl_register() added (a
 * core/registry.h table, read without a lock by every TLB creation).
 * Models no kernel code.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "core/compiler.h"
#include "core/names.h"
#include "core/registry.h"
#include "tlb/tlb.h"

extern const struct nxsim_tlb_repl_ops nxsim__tlb_repl_lru;
extern const struct nxsim_tlb_repl_ops nxsim__tlb_repl_random;
extern const struct nxsim_tlb_repl_ops nxsim__tlb_repl_plru;

static const struct nxsim_tlb_repl_ops *const tlb_repl_table[] = {
	&nxsim__tlb_repl_lru,
	&nxsim__tlb_repl_random,
	&nxsim__tlb_repl_plru,
};

static const char *ops_problem(const void *ops, int *err);

static struct nxsim_tlb_repl_ops registered[NXSIM_TLB_REPL_MAX];
static char registered_names[NXSIM_TLB_REPL_MAX][NXSIM__REGISTRY_NAME_MAX + 1];
static struct nxsim__registry registry = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.max = NXSIM_TLB_REPL_MAX,
	.ops = registered,
	.ops_size = sizeof(registered[0]),
	.name_field = offsetof(struct nxsim_tlb_repl_ops, name),
	.names = registered_names,
	.problem = ops_problem,
};
_Static_assert(NXSIM_TLB_REPL_NAME_MAX == NXSIM__REGISTRY_NAME_MAX,
	       "a policy name fits the registry");

static const struct nxsim_tlb_repl_ops *repl_at(unsigned int i)
{
	if (i < ARRAY_SIZE(tlb_repl_table))
		return tlb_repl_table[i];
	return nxsim__registry_at(&registry, i - ARRAY_SIZE(tlb_repl_table));
}

const char *nxsim_tlb_repl_name(unsigned int idx)
{
	const struct nxsim_tlb_repl_ops *ops = repl_at(idx);

	return ops ? ops->name : NULL;
}

const struct nxsim_tlb_repl_ops *nxsim__tlb_repl_find(const char *name)
{
	int i = nxsim__name_index(nxsim_tlb_repl_name, name);

	return i < 0 ? NULL : repl_at((unsigned int)i);
}

/* Why @p cannot be registered, or NULL; *@err receives the errno. */
static const char *ops_problem(const void *p, int *err)
{
	const struct nxsim_tlb_repl_ops *ops = p;
	const char *problem;

	*err = -EINVAL;
	if (!ops)
		return "no ops (NULL)";
	if (ops->version != NXSIM_TLB_REPL_OPS_VERSION) {
		*err = -EOPNOTSUPP;
		return "unknown ops version (this library knows "
		       "NXSIM_TLB_REPL_OPS_VERSION 1)";
	}
	if (ops->size < sizeof(*ops))
		return "ops size smaller than version 1's "
		       "struct nxsim_tlb_repl_ops";
	problem = nxsim__name_problem(ops->name, NXSIM_TLB_REPL_NAME_MAX);
	if (problem)
		return problem;
	*err = -EEXIST;
	if (nxsim__tlb_repl_find(ops->name))
		return "replacement policy name already taken";
	return NULL;
}

int nxsim__tlb_repl_check(const struct nxsim_tlb_repl_ops *ops,
			  const char **why)
{
	return nxsim__registry_check(&registry, ops, why);
}

int nxsim__tlb_repl_register_all(const struct nxsim_tlb_repl_ops *const *ops,
				 unsigned int n, const char **why)
{
	return nxsim__registry_add(&registry, (const void *const *)ops, n, why);
}

int nxsim_tlb_repl_register(const struct nxsim_tlb_repl_ops *ops,
			    const char **why)
{
	return nxsim__tlb_repl_register_all(&ops, 1, why);
}
