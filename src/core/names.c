// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one name -> index lookup of every name table (core/names.h).
 * Models no kernel code.
 */
#include <string.h>

#include "core/names.h"

int nxsim__name_index(nxsim__name_fn name_of, const char *key)
{
	const char *name;
	unsigned int i;

	for (i = 0; key && (name = name_of(i)); i++)
		if (!strcmp(name, key))
			return (int)i;
	return -1;
}
