// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim: run a line-protocol script (a file, or stdin) against libnxsim,
 * or convert a text trace to the binary format.  Options are getopt_long()
 * style (-kx, --tap).  See docs/driver.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* a stream, not a reply: paths of any length go in whole */
	FILE *s, *f = NULL;
	char *script = NULL;
	size_t len = 0;
	int rc;

	s = open_memstream(&script, &len);
	if (s) {
		fputs("trace convert ", s);
		nxsim__drv_fquote(s, NULL, in, strlen(in));
		fputc(' ', s);
		nxsim__drv_fquote(s, NULL, out, strlen(out));
		fputs("\nexpect OK\n", s);
		if (!fclose(s))
			f = fmemopen(script, len, "r");
	}
	if (!f) {
		perror("nxsim");
		free(script);
		return 2;
	}
	rc = run(f, "convert", 0);
	fclose(f);
	free(script);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "trace", no_argument, NULL, 'x' },
		{ "strict", no_argument, NULL, 's' },
		{ "fail-on-err", no_argument, NULL, 'e' },
		{ "tap", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	unsigned int flags = 0;
	FILE *in = stdin;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hkxse", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			nxsim__drv_help(stdout);
			return 0;
		case 'V':
			printf("nxsim %s\n", nxsim_version());
			return 0;
		case 'k':
			flags |= NXSIM__DRV_KEEP_GOING;
			break;
		case 'x':
			flags |= NXSIM__DRV_TRACE;
			break;
		case 's':
			flags |= NXSIM__DRV_STRICT;
			break;
		case 'e':
			flags |= NXSIM__DRV_FAIL_ON_ERR;
			break;
		case 't':
			flags |= NXSIM__DRV_TAP;
			break;
		default: /* getopt_long() said what */
			fprintf(stderr, "nxsim: --help lists the options\n");
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "convert")) {
		if (argc - optind != 3) {
			fprintf(stderr, "usage: nxsim convert IN OUT\n");
			return 2;
		}
		return convert(argv[optind + 1], argv[optind + 2]);
	}
	if (argc - optind > 1) {
		fprintf(stderr, "nxsim: one script at a time\n");
		return 2;
	}
	if (optind < argc)
		path = argv[optind];
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
