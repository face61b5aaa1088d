// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of flush policies (docs/xpfo.md, docs/plugins.md): the ten
 * built-ins, each a file src/xpfo/policy_<name>.c defining a struct
 * nxsim_xpfo_policy_ops, then those nxsim_xpfo_policy_register() added.
 * nxsim_xpfo_create() accepts any of their names; an unknown name is
 * -ENOENT.  Models no kernel code.
 *
 * The registered ones are a core/registry.h table, read without a lock by
 * every machine creation.  Left out: unregistering (a machine may still
 * run the hooks of a policy).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "core/compiler.h"
#include "core/names.h"
#include "core/registry.h"
#include "xpfo/xpfo.h"

extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_eager;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_eager_full;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_local;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_deferred;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_deferred_entry;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_batched;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_lazy_realloc;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_none;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_asi;
extern const struct nxsim_xpfo_policy_ops nxsim__xpfo_policy_broadcast;

static const struct nxsim_xpfo_policy_ops *const xpfo_policy_table[] = {
	&nxsim__xpfo_policy_eager,	    /* P1 */
	&nxsim__xpfo_policy_eager_full,	    /* P2 */
	&nxsim__xpfo_policy_local,	    /* P3 */
	&nxsim__xpfo_policy_deferred,	    /* P4a */
	&nxsim__xpfo_policy_deferred_entry, /* P4b */
	&nxsim__xpfo_policy_batched,	    /* P4c */
	&nxsim__xpfo_policy_lazy_realloc,   /* P4d */
	&nxsim__xpfo_policy_none,	    /* P5 */
	&nxsim__xpfo_policy_asi,	    /* P6 */
	&nxsim__xpfo_policy_broadcast,	    /* P7 */
};

#define NR_REGISTERED (NXSIM_XPFO_MAX_POLICIES - ARRAY_SIZE(xpfo_policy_table))

static const char *ops_problem(const void *ops, int *err);

static struct nxsim_xpfo_policy_ops registered[NR_REGISTERED];
static char registered_names[NR_REGISTERED][NXSIM__REGISTRY_NAME_MAX + 1];
static struct nxsim__registry registry = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.max = NR_REGISTERED,
	.ops = registered,
	.ops_size = sizeof(registered[0]),
	.name_field = offsetof(struct nxsim_xpfo_policy_ops, name),
	.names = registered_names,
	.problem = ops_problem,
};
_Static_assert(NXSIM_XPFO_POLICY_NAME_MAX == NXSIM__REGISTRY_NAME_MAX,
	       "a policy name fits the registry");

static const struct nxsim_xpfo_policy_ops *policy_at(unsigned int idx)
{
	if (idx < ARRAY_SIZE(xpfo_policy_table))
		return xpfo_policy_table[idx];
	return nxsim__registry_at(&registry,
				  idx - ARRAY_SIZE(xpfo_policy_table));
}

const char *nxsim_xpfo_policy_name(unsigned int idx)
{
	const struct nxsim_xpfo_policy_ops *ops = policy_at(idx);

	return ops ? ops->name : NULL;
}

const struct nxsim_xpfo_policy_ops *nxsim__xpfo_policy_find(const char *name)
{
	int i = nxsim__name_index(nxsim_xpfo_policy_name, name);

	return i < 0 ? NULL : policy_at((unsigned int)i);
}

/* Why @p cannot be registered, or NULL; *@err receives the errno. */
static const char *ops_problem(const void *p, int *err)
{
	const struct nxsim_xpfo_policy_ops *ops = p;
	const char *problem;

	*err = -EINVAL;
	if (!ops)
		return "no ops (NULL)";
	if (ops->version != NXSIM_XPFO_POLICY_OPS_VERSION) {
		*err = -EOPNOTSUPP;
		return "unknown ops version (this library knows "
		       "NXSIM_XPFO_POLICY_OPS_VERSION 1)";
	}
	if (ops->size < sizeof(*ops))
		return "ops size smaller than version 1's "
		       "struct nxsim_xpfo_policy_ops";
	problem = nxsim__name_problem(ops->name, NXSIM_XPFO_POLICY_NAME_MAX);
	if (problem)
		return problem;
	if (!ops->flush)
		return "no flush hook";
	*err = -EEXIST;
	if (nxsim__xpfo_policy_find(ops->name))
		return "policy name already taken";
	return NULL;
}

int nxsim__xpfo_policy_check(const struct nxsim_xpfo_policy_ops *ops,
			     const char **why)
{
	return nxsim__registry_check(&registry, ops, why);
}

int nxsim__xpfo_policy_register_all(
	const struct nxsim_xpfo_policy_ops *const *ops, unsigned int n,
	const char **why)
{
	return nxsim__registry_add(&registry, (const void *const *)ops, n, why);
}

int nxsim_xpfo_policy_register(const struct nxsim_xpfo_policy_ops *ops,
			       const char **why)
{
	return nxsim__xpfo_policy_register_all(&ops, 1, why);
}
