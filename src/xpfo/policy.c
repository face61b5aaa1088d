// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of flush policies (docs/xpfo.md).  A new policy is one file
 * src/xpfo/policy_<name>.c defining a struct nxsim__xpfo_policy, plus one
 * line here; nxsim_xpfo_create() then accepts its name, and an unknown
 * name is -ENOENT.
 */
#include "core/compiler.h"
#include "core/names.h"
#include "xpfo/xpfo.h"

extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_eager;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_eager_full;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_local;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_deferred;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_deferred_entry;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_batched;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_lazy_realloc;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_none;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_asi;
extern const struct nxsim__xpfo_policy nxsim__xpfo_policy_broadcast;

static const struct nxsim__xpfo_policy *const xpfo_policy_table[] = {
	&nxsim__xpfo_policy_eager,	    /* P1 */
	&nxsim__xpfo_policy_eager_full,	    /* P2 */
	&nxsim__xpfo_policy_local,	    /* P3 */
	&nxsim__xpfo_policy_deferred,	    /* P4a */
	&nxsim__xpfo_policy_deferred_entry, /* P4b */
	&nxsim__xpfo_policy_batched,	    /* P4c */
	&nxsim__xpfo_policy_lazy_realloc,   /* P4d */
	&nxsim__xpfo_policy_none,	    /* P5 */
	&nxsim__xpfo_policy_asi,	    /* P6 */
	&nxsim__xpfo_policy_broadcast,	    /* P7 */
};

const char *nxsim_xpfo_policy_name(unsigned int idx)
{
	return idx < ARRAY_SIZE(xpfo_policy_table) ?
		       xpfo_policy_table[idx]->name :
		       NULL;
}

const struct nxsim__xpfo_policy *nxsim__xpfo_policy_find(const char *name)
{
	int i = nxsim__name_index(nxsim_xpfo_policy_name, name);

	return i < 0 ? NULL : xpfo_policy_table[i];
}
