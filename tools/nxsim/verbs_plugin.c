// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for plug-ins (include/nxsim/plugin.h, docs/plugins.md):
 * load a shared object whose nxsim_plugin_init() registers flush
 * policies; from then on their names are taken wherever a policy name is
 * (xpfo create, xpfo workload, trace replay).
 */
#include <errno.h>

#include "driver.h"

static int plugin_load(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	unsigned int before = 0, i;
	const char *why = NULL;
	const char *name;
	int rc;

	while (nxsim_xpfo_policy_name(before))
		before++;
	rc = nxsim_plugin_load(argv[0].s, &why);
	if (rc)
		return nxsim__drv_fail(r, rc, "%s: %s", argv[0].s, why);
	nxsim__drv_add(r, " policies=");
	for (i = before; (name = nxsim_xpfo_policy_name(i)); i++)
		nxsim__drv_add(r, "%s%s", i > before ? "," : "", name);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_plugin_verbs[] = {
	{ "plugin", "load", 1, 1, "FILE.so",
	  "dlopen a plug-in and run its nxsim_plugin_init(): answers "
	  "policies= (the flush policies it registered, comma-separated)",
	  plugin_load },
	{ NULL },
};
