// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of NX recovery rules (<nxsim/nx_recovery.h>, docs/plugins.md):
 * "kernel", the profile's own DIV_ROUND_UP(count, ratio) from the head of
 * the list, then the rules nxsim_nx_recovery_register() added, a
 * core/registry.h table, so that a host's lookup takes no lock.  Models no
 * kernel code.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "core/compiler.h"
#include "core/names.h"
#include "core/registry.h"
#include "mmu/mmu.h"

static const char *ops_problem(const void *ops, int *err);

/* A version 1 rule ends at period_ms. */
#define V1_SIZE                                              \
	(offsetof(struct nxsim_nx_recovery_ops, period_ms) + \
	 sizeof(((struct nxsim_nx_recovery_ops *)0)->period_ms))

static struct nxsim_nx_recovery_ops registered[NXSIM_NX_RECOVERY_MAX];
static char registered_names[NXSIM_NX_RECOVERY_MAX]
			    [NXSIM__REGISTRY_NAME_MAX + 1];
static struct nxsim__registry registry = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.max = NXSIM_NX_RECOVERY_MAX,
	.ops = registered,
	.ops_size = sizeof(registered[0]),
	.name_field = offsetof(struct nxsim_nx_recovery_ops, name),
	.names = registered_names,
	.problem = ops_problem,
};
_Static_assert(NXSIM_NX_RECOVERY_NAME_MAX == NXSIM__REGISTRY_NAME_MAX,
	       "a rule name fits the registry");

const char *nxsim_nx_recovery_name(unsigned int idx)
{
	const struct nxsim_nx_recovery_ops *ops;

	if (!idx)
		return "kernel";
	ops = nxsim__registry_at(&registry, idx - 1);
	return ops ? ops->name : NULL;
}

int nxsim__nx_recovery_find(const char *name,
			    const struct nxsim_nx_recovery_ops **ops)
{
	int i = nxsim__name_index(nxsim_nx_recovery_name, name);

	if (i < 0)
		return -ENOENT;
	*ops = i ? nxsim__registry_at(&registry, (unsigned int)i - 1) : NULL;
	return 0;
}

/* Why @p cannot be registered, or NULL; *@err receives the errno. */
static const char *ops_problem(const void *p, int *err)
{
	const struct nxsim_nx_recovery_ops *ops = p;
	const struct nxsim_nx_recovery_ops *found;
	const char *problem;

	*err = -EINVAL;
	if (!ops)
		return "no ops (NULL)";
	if (ops->version != 1 && ops->version != 2) {
		*err = -EOPNOTSUPP;
		return "unknown ops version (this library knows "
		       "NXSIM_NX_RECOVERY_OPS_VERSION 1 and 2)";
	}
	if (ops->size < V1_SIZE)
		return "ops size smaller than version 1's "
		       "struct nxsim_nx_recovery_ops";
	if (ops->version == 2 && ops->size < sizeof(*ops))
		return "ops size smaller than version 2's "
		       "struct nxsim_nx_recovery_ops";
	problem = nxsim__name_problem(ops->name, NXSIM_NX_RECOVERY_NAME_MAX);
	if (problem)
		return problem;
	if (!ops->pick && !ops->period_ms &&
	    (ops->version == 1 || (!ops->exec_huge && !ops->exec_split)))
		return "no pick, period_ms, exec_huge or exec_split hook";
	*err = -EEXIST;
	if (!nxsim__nx_recovery_find(ops->name, &found))
		return "recovery rule name already taken";
	return NULL;
}

int nxsim__nx_recovery_check(const struct nxsim_nx_recovery_ops *ops,
			     const char **why)
{
	return nxsim__registry_check(&registry, ops, why);
}

int nxsim__nx_recovery_register_all(
	const struct nxsim_nx_recovery_ops *const *ops, unsigned int n,
	const char **why)
{
	return nxsim__registry_add(&registry, (const void *const *)ops, n, why);
}

int nxsim_nx_recovery_register(const struct nxsim_nx_recovery_ops *ops,
			       const char **why)
{
	return nxsim__nx_recovery_register_all(&ops, 1, why);
}
