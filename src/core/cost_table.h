/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One implementation behind the three public cost tables (guest, XPFO,
 * bring-up): a table is an array of rows, each naming a field of the
 * public struct by offset, with its default, its accepted range and where
 * the default comes from.  Every table answers the same calls:
 * _default() fills a struct, _info(idx) describes a row, _set(name) sets
 * a row by name.  No kernel twin: the kernel has no cost tables.
 */
#ifndef NXSIM_CORE_COST_TABLE_H
#define NXSIM_CORE_COST_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct nxsim__cost_row {
	const char *name;
	size_t off;
	double def, min, max;
	const char *range; /* the error text of a value outside [min, max] */
	const char *source;
};

/* The fields of a table are all uint32_t cycles, or all double. */
enum nxsim__cost_kind { NXSIM__COST_U32, NXSIM__COST_DOUBLE };

struct nxsim__cost_table {
	const struct nxsim__cost_row *rows;
	size_t nr;
	enum nxsim__cost_kind kind;
};

void nxsim__cost_default(const struct nxsim__cost_table *t, void *c);
const struct nxsim__cost_row *
nxsim__cost_info(const struct nxsim__cost_table *t, unsigned int idx,
		 const char **name, const char **source);
const struct nxsim__cost_row *
nxsim__cost_find(const struct nxsim__cost_table *t, const char *name,
		 size_t len);
int nxsim__cost_set_row(const struct nxsim__cost_table *t, void *c,
			const struct nxsim__cost_row *row, double v,
			const char **why);
int nxsim__cost_set(const struct nxsim__cost_table *t, void *c,
		    const char *name, double v, const char **why);

#endif
