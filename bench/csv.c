// SPDX-License-Identifier: GPL-2.0-only
/*
 * CSV string fields for the benchmark tables: quoted, so that a reader
 * takes "5.10" as the profile it is and not as the number 5.1, and a
 * comma or a quote in a name cannot shift the columns (RFC 4180).
 */
#include <string.h>

#include "harness.h"

void bench_csv_str(char *line, size_t size, const char *s)
{
	size_t n = strlen(line);

	if (n && n + 1 < size)
		line[n++] = ',';
	if (n + 1 < size)
		line[n++] = '"';
	for (; *s && n + 2 < size; s++) {
		if (*s == '"')
			line[n++] = '"';
		line[n++] = *s;
	}
	if (n + 1 < size)
		line[n++] = '"';
	line[n < size ? n : size - 1] = '\0';
}
