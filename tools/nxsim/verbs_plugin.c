// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for plug-ins (include/nxsim/plugin.h, docs/plugins.md):
 * load a shared object whose nxsim_plugin_init() registers flush policies
 * and NX recovery rules; from then on their names are taken wherever a
 * policy name is (xpfo create, xpfo workload, trace replay) and by host
 * create nx_recovery=.
 */
#include <errno.h>

#include "driver.h"

static unsigned int count(const char *(*name_of)(unsigned int))
{
	unsigned int n = 0;

	while (name_of(n))
		n++;
	return n;
}

/* " KEY=" and the names of @name_of from @from on, comma-separated. */
static void add_names(struct nxsim__drv_reply *r, const char *key,
		      const char *(*name_of)(unsigned int), unsigned int from)
{
	const char *name;
	unsigned int i;

	nxsim__drv_add(r, " %s=", key);
	for (i = from; (name = name_of(i)); i++)
		nxsim__drv_add(r, "%s%s", i > from ? "," : "", name);
}

static int plugin_load(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	unsigned int policies = count(nxsim_xpfo_policy_name);
	unsigned int rules = count(nxsim_nx_recovery_name);
	const char *why = NULL;
	int rc;

	rc = nxsim_plugin_load(argv[0].s, &why);
	if (rc)
		return nxsim__drv_fail(r, rc, "%s: %s", argv[0].s, why);
	add_names(r, "policies", nxsim_xpfo_policy_name, policies);
	add_names(r, "rules", nxsim_nx_recovery_name, rules);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_plugin_verbs[] = {
	{ "plugin", "load", 1, 1, "FILE.so",
	  "dlopen a plug-in and run its nxsim_plugin_init(): answers "
	  "policies= rules= (the flush policies and NX recovery rules it "
	  "registered, comma-separated)",
	  plugin_load },
	{ NULL },
};
