// SPDX-License-Identifier: GPL-2.0-only
/*
 * WARN_ON for the model: the kernel's WARN prints a backtrace and goes on;
 * here a warning is reported on stderr, and fatal in debug builds (NDEBUG
 * unset) and in the fuzz build (NXSIM_WARN_FATAL: RelWithDebInfo defines
 * NDEBUG, and a fuzzer must see a WARN as a finding), where it marks a bug
 * in the simulator itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/compiler.h"

void nxsim__warn(const char *file, int line, const char *cond)
{
	fprintf(stderr, "nxsim: WARNING at %s:%d: %s\n", file, line, cond);
#if !defined(NDEBUG) || defined(NXSIM_WARN_FATAL)
	abort();
#endif
}
