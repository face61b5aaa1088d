// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim: run a line-protocol script (a file, or stdin) against libnxsim,
 * or convert a text trace to the binary format.  See docs/driver.md.
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"

static int run(FILE *in, const char *name, unsigned int flags)
{
	struct nxsim__drv *d = nxsim__drv_create(stdout, stderr, flags);
	int rc;

	if (!d) {
		fprintf(stderr, "nxsim: out of memory\n");
		return 2;
	}
	rc = nxsim__drv_run(d, in, name);
	nxsim__drv_destroy(d);
	return rc;
}

/* "nxsim convert IN OUT" is the script "trace convert IN OUT; expect OK". */
static int convert(const char *in, const char *out)
{
	struct nxsim__drv_reply script = { .len = 0 };
	FILE *f;
	int rc;

	nxsim__drv_add(&script, "trace convert");
	nxsim__drv_quote(&script, NULL, in, strlen(in));
	nxsim__drv_quote(&script, NULL, out, strlen(out));
	nxsim__drv_add(&script, "\nexpect OK\n");
	f = fmemopen(script.buf, script.len, "r");
	if (!f) {
		perror("nxsim");
		return 2;
	}
	rc = run(f, "convert", 0);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	unsigned int flags = 0;
	FILE *in = stdin;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			nxsim__drv_help(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("nxsim %d.%d.%d\n", NXSIM_VERSION_MAJOR,
			       NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
			return 0;
		} else if (!strcmp(argv[i], "-k") ||
			   !strcmp(argv[i], "--keep-going")) {
			flags |= NXSIM__DRV_KEEP_GOING;
		} else if (!strcmp(argv[i], "--strict")) {
			flags |= NXSIM__DRV_STRICT;
		} else if (!strcmp(argv[i], "-x")) {
			flags |= NXSIM__DRV_TRACE;
		} else if (!strcmp(argv[i], "convert") && !path) {
			if (argc - i != 3) {
				fprintf(stderr,
					"usage: nxsim convert IN OUT\n");
				return 2;
			}
			return convert(argv[i + 1], argv[i + 2]);
		} else if (argv[i][0] == '-' && strcmp(argv[i], "-")) {
			fprintf(stderr, "nxsim: unknown option %s (--help)\n",
				argv[i]);
			return 2;
		} else if (path) {
			fprintf(stderr, "nxsim: one script at a time\n");
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (path && strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in) {
			perror(path);
			return 2;
		}
	}
	rc = run(in, path ? path : "<stdin>", flags);
	if (in != stdin)
		fclose(in);
	return rc;
}
