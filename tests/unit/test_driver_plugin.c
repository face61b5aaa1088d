// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver's plugin verb (docs/driver.md): "plugin load" answers the
 * policies the example plug-in registered, which "xpfo policies" lists
 * and "xpfo create" takes; a second load is a no-op; a file that is not
 * there is an ERR naming it and the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test_util.h"
#include "driver.h"

static void test_plugin_load_verb(void **state)
{
	char script[8192], *out = NULL, *err = NULL;
	size_t olen, elen;
	FILE *in, *o, *e;
	struct nxsim__drv *d;
	int rc;

	snprintf(script, sizeof(script),
		 "plugin load %s\n"
		 "expect OK policies=owner-cpus rules=\n"
		 "plugin load %s\n"
		 "expect OK policies= rules=\n"
		 "xpfo policies\n"
		 "expect OK eager eager-full local deferred deferred-entry "
		 "batched lazy-realloc none asi broadcast owner-cpus\n"
		 "xpfo create m cpus=2 frames=64 policy=owner-cpus\n"
		 "expect OK\n"
		 "plugin load /nonexistent/x.so\n"
		 "expect ERR -ENOENT\n",
		 PLUGIN_OWNER, PLUGIN_OWNER);
	in = fmemopen(script, strlen(script), "r");
	o = open_memstream(&out, &olen);
	e = open_memstream(&err, &elen);
	d = nxsim__drv_create(o, e, NXSIM__DRV_STRICT);
	assert_non_null(d);
	rc = nxsim__drv_run(d, in, "t.nxs");
	nxsim__drv_destroy(d);
	fclose(in);
	fclose(o);
	fclose(e);
	if (rc)
		fail_msg("rc %d\n%s%s", rc, out, err);
	assert_non_null(strstr(out, "/nonexistent/x.so: no such plug-in file"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plugin_load_verb),
	};

	return cmocka_run_group_tests_name("driver_plugin", tests, NULL, NULL);
}
