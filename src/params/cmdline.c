// SPDX-License-Identifier: GPL-2.0-only
/*
 * Models next_arg() (lib/cmdline.c), the loop of parse_args() and parameq()
 * (kernel/params.c): whitespace separates arguments except inside double
 * quotes, the first '=' splits name from value, quotes around the value or
 * the whole argument are dropped, parsing stops at a bare "--", and an
 * error in one argument does not stop the others.
 *
 * Left out: the pr_err() messages.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "params/cmdline.h"

/* The kernel's isspace(): _ctype's _S class, NBSP (0xa0) included. */
static bool kernel_isspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

static char *skip_spaces(char *s)
{
	while (kernel_isspace(*s))
		s++;
	return s;
}

static char *next_arg(char *args, char **param, char **val)
{
	unsigned int i, equals = 0;
	bool in_quote = false, quoted = false;

	if (*args == '"') {
		args++;
		in_quote = true;
		quoted = true;
	}
	for (i = 0; args[i]; i++) {
		if (kernel_isspace(args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}

	*param = args;
	if (!equals) {
		*val = NULL;
	} else {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';

	if (args[i]) {
		args[i] = '\0';
		args += i + 1;
	} else {
		args += i;
	}
	return skip_spaces(args);
}

int nxsim__parse_args(const char *cmdline, nxsim__cmdline_fn fn, void *arg)
{
	char *copy, *args, *param, *val;
	int err = 0;

	if (!cmdline)
		return 0;
	copy = nxsim__strdup(cmdline);
	if (!copy)
		return -ENOMEM;
	args = skip_spaces(copy);
	while (*args) {
		int rc;

		args = next_arg(args, &param, &val);
		if (!val && !strcmp(param, "--"))
			break;
		rc = fn(arg, param, val);
		if (rc)
			err = rc;
	}
	nxsim__free(copy, strlen(cmdline) + 1);
	return err;
}

static char dash2underscore(char c)
{
	return c == '-' ? '_' : c;
}

bool nxsim__parameq(const char *a, const char *b)
{
	size_t i, n = strlen(a);

	if (strlen(b) != n)
		return false;
	for (i = 0; i < n; i++)
		if (dash2underscore(a[i]) != dash2underscore(b[i]))
			return false;
	return true;
}
