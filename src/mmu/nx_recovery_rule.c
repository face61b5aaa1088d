// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of NX recovery rules (<nxsim/nx_recovery.h>, docs/plugins.md):
 * "kernel", the profile's own DIV_ROUND_UP(count, ratio) from the head of
 * the list, then the rules nxsim_nx_recovery_register() added.  The table
 * only grows; an entry is written in full under the lock, then published
 * by a release store of the count, so that a host's lookup takes no lock.
 * Models no kernel code.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "core/compiler.h"
#include "core/names.h"
#include "mmu/mmu.h"

struct registered_rule {
	struct nxsim_nx_recovery_ops ops;
	char name[NXSIM_NX_RECOVERY_NAME_MAX + 1];
};

static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registered_rule registered[NXSIM_NX_RECOVERY_MAX];
static unsigned int nr_registered; /* published with release */

const char *nxsim_nx_recovery_name(unsigned int idx)
{
	if (!idx)
		return "kernel";
	if (idx - 1 < __atomic_load_n(&nr_registered, __ATOMIC_ACQUIRE))
		return registered[idx - 1].name;
	return NULL;
}

int nxsim__nx_recovery_find(const char *name,
			    const struct nxsim_nx_recovery_ops **ops)
{
	int i = nxsim__name_index(nxsim_nx_recovery_name, name);

	if (i < 0)
		return -ENOENT;
	*ops = i ? &registered[i - 1].ops : NULL;
	return 0;
}

/* Why @ops cannot be registered, or NULL; *@err receives the errno. */
static const char *ops_problem(const struct nxsim_nx_recovery_ops *ops,
			       int *err)
{
	const struct nxsim_nx_recovery_ops *found;
	const char *problem;

	*err = -EINVAL;
	if (!ops)
		return "no ops (NULL)";
	if (ops->version != NXSIM_NX_RECOVERY_OPS_VERSION) {
		*err = -EOPNOTSUPP;
		return "unknown ops version (this library knows "
		       "NXSIM_NX_RECOVERY_OPS_VERSION 1)";
	}
	if (ops->size < sizeof(*ops))
		return "ops size smaller than version 1's "
		       "struct nxsim_nx_recovery_ops";
	problem = nxsim__name_problem(ops->name, NXSIM_NX_RECOVERY_NAME_MAX);
	if (problem)
		return problem;
	if (!ops->pick)
		return "no pick hook";
	*err = -EEXIST;
	if (!nxsim__nx_recovery_find(ops->name, &found))
		return "recovery rule name already taken";
	return NULL;
}

int nxsim__nx_recovery_check(const struct nxsim_nx_recovery_ops *ops,
			     const char **why)
{
	const char *problem;
	int err;

	problem = ops_problem(ops, &err);
	if (problem && why)
		*why = problem;
	return problem ? err : 0;
}

int nxsim__nx_recovery_register_all(
	const struct nxsim_nx_recovery_ops *const *ops, unsigned int n,
	const char **why)
{
	const char *problem = NULL;
	unsigned int i, j, base;
	int err = 0;

	pthread_mutex_lock(&register_lock);
	base = nr_registered;
	for (i = 0; !problem && i < n; i++) {
		problem = ops_problem(ops[i], &err);
		for (j = 0; !problem && j < i; j++) {
			if (!strcmp(ops[j]->name, ops[i]->name)) {
				err = -EEXIST;
				problem = "recovery rule name given twice";
			}
		}
	}
	if (!problem && n > NXSIM_NX_RECOVERY_MAX - base) {
		err = -ENOSPC;
		problem = "NXSIM_NX_RECOVERY_MAX rules registered";
	}
	for (i = 0; !problem && i < n; i++) {
		struct registered_rule *r = &registered[base + i];

		r->ops = *ops[i];
		r->ops.size = sizeof(r->ops);
		strcpy(r->name, ops[i]->name);
		r->ops.name = r->name;
	}
	if (!problem)
		__atomic_store_n(&nr_registered, base + n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&register_lock);
	if (problem && why)
		*why = problem;
	return problem ? err : 0;
}

int nxsim_nx_recovery_register(const struct nxsim_nx_recovery_ops *ops,
			       const char **why)
{
	return nxsim__nx_recovery_register_all(&ops, 1, why);
}
