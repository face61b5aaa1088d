// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one name -> index lookup of every name table (core/names.h).
 * Models no kernel code.
 */
#include <string.h>

#include "core/names.h"

const char *nxsim__name_problem(const char *name, size_t max)
{
	size_t i, len;

	if (!name || !name[0])
		return "empty name";
	len = strnlen(name, max + 1);
	if (len > max)
		return "name longer than the maximum";
	for (i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-",
			    name[i]))
			return "name has a character outside [A-Za-z0-9_.+-]";
	return NULL;
}

int nxsim__name_index(nxsim__name_fn name_of, const char *key)
{
	const char *name;
	unsigned int i;

	for (i = 0; key && (name = name_of(i)); i++)
		if (!strcmp(name, key))
			return (int)i;
	return -1;
}
