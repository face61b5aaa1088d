// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of TLB replacement policies.  A new policy is a file
 * src/tlb/repl_<name>.c defining a struct nxsim__tlb_repl_ops, plus its
 * extern and one table line here.
 */
#include <string.h>

#include "tlb/tlb.h"

extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_lru;
extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_random;
extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_plru;

static const struct nxsim__tlb_repl_ops *const tlb_repl_table[] = {
	&nxsim__tlb_repl_lru,
	&nxsim__tlb_repl_random,
	&nxsim__tlb_repl_plru,
};

const struct nxsim__tlb_repl_ops *nxsim__tlb_repl_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tlb_repl_table) / sizeof(tlb_repl_table[0]); i++)
		if (!strcmp(tlb_repl_table[i]->name, name))
			return tlb_repl_table[i];
	return NULL;
}
