/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A table of things registered by name (plug-ins' flush policies and NX
 * recovery rules, docs/plugins.md): ops structs that begin with a uint32_t
 * size and hold a const char *name, copied in with their names.  The
 * table only grows: entries are written in full under the lock, then
 * published by a release store of the count, so that readers take no
 * lock.  Models no kernel code.
 */
#ifndef NXSIM_CORE_REGISTRY_H
#define NXSIM_CORE_REGISTRY_H

#include <pthread.h>
#include <stddef.h>

#define NXSIM__REGISTRY_NAME_MAX 31

/**
 * struct nxsim__registry - one table
 * @lock: serialises additions
 * @max: room, in entries
 * @nr: entries published (read with acquire)
 * @ops: @max ops structs of @ops_size bytes
 * @ops_size: the size of one
 * @name_field: offsetof() its const char *name
 * @names: @max names, the copies the entries point to
 * @problem: what is wrong with an ops struct (its name taken included),
 *	or NULL; sets *err to the errno
 */
struct nxsim__registry {
	pthread_mutex_t lock;
	unsigned int max;
	unsigned int nr;
	void *ops;
	size_t ops_size;
	size_t name_field;
	char (*names)[NXSIM__REGISTRY_NAME_MAX + 1];
	const char *(*problem)(const void *ops, int *err);
};

/* Entry @i, or NULL past the published ones. */
const void *nxsim__registry_at(struct nxsim__registry *r, unsigned int i);

/**
 * nxsim__registry_check() - whether @ops could be registered now
 * @why: on failure, receives the problem (may be NULL)
 * Return: 0, or the errno of @r's problem() with @ops.
 */
int nxsim__registry_check(const struct nxsim__registry *r, const void *ops,
			  const char **why);

/**
 * nxsim__registry_add() - add @n ops structs, all or none
 * @why: on failure, receives the problem (may be NULL)
 *
 * Return: 0; the problem's errno; -EEXIST for a name given twice; -ENOSPC
 * when they do not fit.
 */
int nxsim__registry_add(struct nxsim__registry *r, const void *const *ops,
			unsigned int n, const char **why);

#endif /* NXSIM_CORE_REGISTRY_H */
