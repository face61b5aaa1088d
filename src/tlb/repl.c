// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of TLB replacement policies.  A new policy is a file
 * src/tlb/repl_<name>.c defining a struct nxsim__tlb_repl_ops, plus its
 * extern and one table line here.
 */
#include "core/compiler.h"
#include "core/names.h"
#include "tlb/tlb.h"

extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_lru;
extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_random;
extern const struct nxsim__tlb_repl_ops nxsim__tlb_repl_plru;

static const struct nxsim__tlb_repl_ops *const tlb_repl_table[] = {
	&nxsim__tlb_repl_lru,
	&nxsim__tlb_repl_random,
	&nxsim__tlb_repl_plru,
};

static const char *repl_name(unsigned int i)
{
	return i < ARRAY_SIZE(tlb_repl_table) ? tlb_repl_table[i]->name : NULL;
}

const struct nxsim__tlb_repl_ops *nxsim__tlb_repl_find(const char *name)
{
	int i = nxsim__name_index(repl_name, name);

	return i < 0 ? NULL : tlb_repl_table[i];
}
