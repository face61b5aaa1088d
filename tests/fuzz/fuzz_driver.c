// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the nxsim driver's interpreter.  The input is a
 * script, run with -k (on past failed expects) in a fresh interpreter
 * whose answers go to /dev/null; the interpreter then destroys what the
 * script left, and the simulator's allocator must hold no more live
 * allocations than before.
 *
 * The verbs that read and write files (trace stat, convert, replay) run
 * in a private temporary directory: the fuzzer chdir()s into it, and an
 * input that could spell a '/' (the byte itself, or a \x2f / \057 escape)
 * is skipped, so every path stays inside.  So is an input that advances
 * a clock by more than about a day (long_advance()).  The directory holds
 * two small traces for the trace verbs: kmem.txt (ftrace kmem events) and
 * lackey.txt (200 lines of a lackey log), copied from tests/fixtures/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

static FILE *out;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first @lines lines of fixture @name as @to in the current folder. */
static void fixture(const char *name, const char *to, int lines)
{
	char path[4096], *line = NULL;
	FILE *src, *dst;
	size_t cap = 0;

	snprintf(path, sizeof(path), "%s/%s", NXSIM_FUZZ_FIXTURES, name);
	src = fopen(path, "r");
	dst = fopen(to, "w");
	if (!src || !dst)
		abort();
	while (lines-- && getline(&line, &cap, src) > 0)
		fputs(line, dst);
	free(line);
	fclose(src);
	if (fclose(dst))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/nxsim-fuzz-driver.XXXXXX";

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir) || chdir(dir))
		abort();
	fixture("ftrace-decimal-handwritten.txt", "kmem.txt", -1);
	fixture("lackey-true.txt", "lackey.txt", 200);
	out = fopen("/dev/null", "w");
	if (!out)
		abort();
	return 0;
}

/* Whether a path in the script could leave the directory. */
static bool may_spell_slash(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (data[i] == '/')
			return true;
		if (data[i] == '\\' && i + 2 < size &&
		    ((data[i + 1] | 0x20) == 'x' || data[i + 1] == '0' ||
		     data[i + 1] == '5'))
			return true;
	}
	return false;
}

/*
 * Whether a line advances a clock by more than about a day: with a
 * recovery worker running, a pass a period, an advance to the end of
 * time runs some 10^8 passes (right, but not a useful input).  Counts
 * the digits of "advance" lines: over 12, or over 6 with a unit.
 */
static bool long_advance(const uint8_t *data, size_t size)
{
	const uint8_t *line = data, *end = data + size, *nl, *p;
	unsigned int digits;
	bool unit;

	for (; line < end; line = nl + 1) {
		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		if (!memmem(line, nl - line, "advance", 7))
			continue;
		for (p = line, digits = 0, unit = false; p < nl; p++) {
			digits += *p >= '0' && *p <= '9';
			unit |= p > line && p[-1] >= '0' && p[-1] <= '9' &&
				(*p == 's' || *p == 'm' || *p == 'u');
		}
		if (digits > 12 || (unit && digits > 6))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nxsim_alloc_stats before, after;
	struct nxsim__drv *d;
	FILE *in;

	if (!size || may_spell_slash(data, size) || long_advance(data, size))
		return 0;
	nxsim_alloc_stats(&before);
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	d = nxsim__drv_create(out, out, NXSIM__DRV_KEEP_GOING);
	if (d) {
		nxsim__drv_run(d, in, "fuzz");
		nxsim__drv_destroy(d);
	}
	fclose(in);
	/* a script may leave an allocation failure armed */
	nxsim_alloc_fail_nth(0);
	/* whatever the script did, the interpreter's end freed it all */
	nxsim_alloc_stats(&after);
	if (after.live != before.live)
		abort();
	return 0;
}
