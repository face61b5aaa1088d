/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel command-line splitting: next_arg() of lib/cmdline.c and the
 * parameq() name match of kernel/params.c.
 */
#ifndef NXSIM_PARAMS_CMDLINE_H
#define NXSIM_PARAMS_CMDLINE_H

#include <stdbool.h>

/*
 * Called for each "param[=val]" in order; @val is NULL when there is no
 * '='.  A non-zero return is remembered and parsing goes on, as
 * parse_args() does; the last error is returned.
 */
typedef int (*nxsim__cmdline_fn)(void *arg, const char *param, const char *val);

/* Return: 0, the callback's last error, or -ENOMEM. */
int nxsim__parse_args(const char *cmdline, nxsim__cmdline_fn fn, void *arg);

/* parameq(): equal names, with '-' and '_' the same. */
bool nxsim__parameq(const char *a, const char *b);

#endif /* NXSIM_PARAMS_CMDLINE_H */
