/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Runs a script through a fresh nxsim driver in process and keeps its
 * standard output, standard error and exit status (test_driver*.c).
 */
#ifndef NXSIM_TEST_DRIVER_RUN_H
#define NXSIM_TEST_DRIVER_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test_util.h"
#include "driver.h"

struct run {
	char *out, *err;
	int rc;
};

/* Runs @script in a fresh driver; the driver is destroyed afterwards. */
static inline struct run run_script(const char *script, unsigned int flags)
{
	struct run res = { NULL, NULL, 0 };
	size_t olen, elen;
	FILE *in = fmemopen((void *)script, strlen(script), "r");
	FILE *out = open_memstream(&res.out, &olen);
	FILE *err = open_memstream(&res.err, &elen);
	struct nxsim__drv *d = nxsim__drv_create(out, err, flags);

	assert_non_null(d);
	res.rc = nxsim__drv_run(d, in, "t.nxs");
	nxsim__drv_destroy(d);
	fclose(in);
	fclose(out);
	fclose(err);
	return res;
}

static inline void free_run(struct run *r)
{
	free(r->out);
	free(r->err);
}

#endif
