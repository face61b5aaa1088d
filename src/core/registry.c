// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tables of things registered by name (core/registry.h).  Models no
 * kernel code.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/compiler.h"
#include "core/registry.h"

static const char *name_of(const struct nxsim__registry *r, const void *ops)
{
	return *(const char *const *)((const char *)ops + r->name_field);
}

const void *nxsim__registry_at(struct nxsim__registry *r, unsigned int i)
{
	if (i < __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE))
		return (const char *)r->ops + i * r->ops_size;
	return NULL;
}

/* The problem of @ops[@i] among @ops[0 .. @i]. */
static const char *batch_problem(const struct nxsim__registry *r,
				 const void *const *ops, unsigned int i,
				 int *err)
{
	const char *problem = r->problem(ops[i], err);
	unsigned int j;

	for (j = 0; !problem && j < i; j++) {
		if (!strcmp(name_of(r, ops[j]), name_of(r, ops[i]))) {
			*err = -EEXIST;
			problem = "name given twice";
		}
	}
	return problem;
}

int nxsim__registry_check(const struct nxsim__registry *r, const void *ops,
			  const char **why)
{
	int err;
	const char *problem = r->problem(ops, &err);

	if (problem && why)
		*why = problem;
	return problem ? err : 0;
}

int nxsim__registry_add(struct nxsim__registry *r, const void *const *ops,
			unsigned int n, const char **why)
{
	const char *problem = NULL;
	unsigned int i, base;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	base = r->nr;
	for (i = 0; !problem && i < n; i++)
		problem = batch_problem(r, ops, i, &err);
	if (!problem && n > r->max - base) {
		err = -ENOSPC;
		problem = "the table of registered names is full";
	}
	for (i = 0; !problem && i < n; i++) {
		char *e = (char *)r->ops + (base + i) * r->ops_size;
		const char *name = r->names[base + i];
		uint32_t size = *(const uint32_t *)ops[i];

		/* An older, smaller struct: the fields it lacks are NULL. */
		memset(e, 0, r->ops_size);
		memcpy(e, ops[i], MIN(size, (uint32_t)r->ops_size));
		*(uint32_t *)e = (uint32_t)r->ops_size;
		strcpy(r->names[base + i], name_of(r, ops[i]));
		memcpy(e + r->name_field, &name, sizeof(name));
	}
	if (!problem)
		__atomic_store_n(&r->nr, base + n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&r->lock);
	if (problem && why)
		*why = problem;
	return problem ? err : 0;
}
