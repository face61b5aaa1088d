// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost tables' shared rows (core/cost_table.h): defaults, row
 * descriptions and setting a row by name, for a table of uint32_t cycles
 * or of doubles.  The tables themselves, with their sources, live beside
 * what they cost (src/kvm/guest_costs.c, src/xpfo/costs.c,
 * src/bringup/costs.c).
 *
 * Left out: units; a table's unit is its fields' (cycles, microseconds),
 * documented with the public struct.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/cost_table.h"

static void cost_store(const struct nxsim__cost_table *t, void *c,
		       const struct nxsim__cost_row *row, double v)
{
	char *field = (char *)c + row->off;

	if (t->kind == NXSIM__COST_U32)
		*(uint32_t *)field = (uint32_t)v;
	else
		*(double *)field = v;
}

/**
 * nxsim__cost_default() - fill @c with the defaults of @t
 * @t: the table
 * @c: its public struct; NULL does nothing
 */
void nxsim__cost_default(const struct nxsim__cost_table *t, void *c)
{
	for (size_t i = 0; c && i < t->nr; i++)
		cost_store(t, c, &t->rows[i], t->rows[i].def);
}

/**
 * nxsim__cost_info() - the @idx-th row of @t
 * @t: the table
 * @idx: index from 0
 * @name: receives the row's name, or NULL
 * @source: receives where its default comes from, or NULL
 *
 * Return: the row, or NULL past the last.
 */
const struct nxsim__cost_row *
nxsim__cost_info(const struct nxsim__cost_table *t, unsigned int idx,
		 const char **name, const char **source)
{
	if (idx >= t->nr)
		return NULL;
	if (name)
		*name = t->rows[idx].name;
	if (source)
		*source = t->rows[idx].source;
	return &t->rows[idx];
}

/* The row named by the @len bytes at @name, or NULL. */
const struct nxsim__cost_row *
nxsim__cost_find(const struct nxsim__cost_table *t, const char *name,
		 size_t len)
{
	for (size_t i = 0; i < t->nr; i++)
		if (strlen(t->rows[i].name) == len &&
		    !strncmp(t->rows[i].name, name, len))
			return &t->rows[i];
	return NULL;
}

/**
 * nxsim__cost_set_row() - set @row of @c to @v, after its range check
 * @t: the table
 * @c: its public struct
 * @row: a row of @t
 * @v: the new value
 * @why: receives the range on -ERANGE
 *
 * Return: 0, or -ERANGE (@c unchanged).
 */
int nxsim__cost_set_row(const struct nxsim__cost_table *t, void *c,
			const struct nxsim__cost_row *row, double v,
			const char **why)
{
	if (!(v >= row->min && v <= row->max)) {
		*why = row->range;
		return -ERANGE;
	}
	cost_store(t, c, row, v);
	return 0;
}

/**
 * nxsim__cost_set() - set the row named @name of @c to @v
 * @t: the table
 * @c: its public struct
 * @name: a row name, as the table's _info() answers it
 * @v: the new value
 * @why: receives what is wrong on error, or NULL
 *
 * Return: 0; -EINVAL for a NULL @c or @name; -ENOENT for an unknown
 * @name; -ERANGE for a value outside the row's range.  On error @c is
 * unchanged.
 */
int nxsim__cost_set(const struct nxsim__cost_table *t, void *c,
		    const char *name, double v, const char **why)
{
	const struct nxsim__cost_row *row;
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!c || !name) {
		*why = "no table or no name";
		return -EINVAL;
	}
	row = nxsim__cost_find(t, name, strlen(name));
	if (!row) {
		*why = "no such cost entry";
		return -ENOENT;
	}
	return nxsim__cost_set_row(t, c, row, v, why);
}
