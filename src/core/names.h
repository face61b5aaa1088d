/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Name <-> value tables.  Every table of named things (flush policies,
 * TLB replacement policies, kernel profiles, workloads, the values of an
 * enum a stats descriptor describes) has one function from index to name,
 * NULL past the last, which the public API exports as nxsim_<thing>_name()
 * or a descriptor's value_name; nxsim__name_index() is the way back, for
 * every table.  Left out: a hash; the tables have at most a dozen
 * entries and are searched when an object is made, never per event.
 */
#ifndef NXSIM_CORE_NAMES_H
#define NXSIM_CORE_NAMES_H

#include <stddef.h>

/* A table's index -> name function: NULL past the last entry. */
typedef const char *(*nxsim__name_fn)(unsigned int i);

/**
 * nxsim__name_index() - the index whose name is @key
 * @name_of: the table's index -> name function
 * @key: the name looked for; NULL finds nothing
 *
 * Return: the first index with that name, or -1.
 */
int nxsim__name_index(nxsim__name_fn name_of, const char *key);

/**
 * nxsim__name_problem() - what is wrong with @name as the name of a
 * registered thing (a plug-in's policy or rule): it must be 1 .. @max bytes
 * of [A-Za-z0-9_.+-], so that the driver and sweeps can write it bare
 *
 * Return: NULL, or a static text naming the problem.
 */
const char *nxsim__name_problem(const char *name, size_t max);

/* @names[@i] of an array of names, NULL past its end. */
#define NXSIM__NAME_AT(names, i) \
	((size_t)(i) < ARRAY_SIZE(names) ? (names)[i] : NULL)

#endif /* NXSIM_CORE_NAMES_H */
