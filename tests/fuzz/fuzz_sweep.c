// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: nxsim-sweep's reading of its two file kinds.  The
 * input is read as a sweep file (docs/sweep.md); when it loads, up to 16
 * of its jobs are expanded (values, id, seed), with their scripts and
 * their NAME=VALUE lists; then every line of the input is parsed as a
 * result line, as --resume and merge parse them.  Jobs are not run: the
 * driver's own target fuzzes what a script does.  Nothing may leak (the
 * sweep half uses libc's allocator: LeakSanitizer sees it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

static FILE *null;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	null = fopen("/dev/null", "w");
	if (!null)
		abort();
	return 0;
}

static void expand(const struct nxsim__sweep *s)
{
	struct nxsim__sweep_job job;
	uint64_t i, n = s->nr_jobs < 16 ? s->nr_jobs : 16;
	size_t len;
	char *script;

	job.sel = calloc(s->nr_axes + 1, sizeof(*job.sel));
	if (!job.sel)
		return;
	for (i = 0; i < n; i++) {
		/* the first jobs and the last ones */
		nxsim__sweep_job(s, i % 2 ? s->nr_jobs - 1 - i / 2 : i / 2,
				 &job);
		nxsim__sweep_params(s, &job, null);
		if (!nxsim__sweep_script(s, &job, &script, &len)) {
			if (len && script[len - 1] != '\n')
				abort(); /* every run line ends its line */
			free(script);
		}
	}
	free(job.sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *line = data, *end = data + size, *nl;
	struct nxsim__sweep s;
	char why[160];
	json_t *obj;
	uint64_t id;
	FILE *f = fmemopen((void *)data, size, "r");

	if (!f)
		return 0;
	if (!nxsim__sweep_load(&s, f, "fuzz.sweep", null)) {
		if (!s.nr_jobs)
			abort();
		expand(&s);
		nxsim__sweep_free(&s);
	}
	fclose(f);
	for (; line < end; line = nl + 1) {
		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		if (!nxsim__sweep_line_id((const char *)line, nl - line, &id,
					  &obj, why, sizeof(why)))
			json_decref(obj);
	}
	return 0;
}
