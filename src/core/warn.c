// SPDX-License-Identifier: GPL-2.0-only
/*
 * WARN_ON for the model: the kernel's WARN prints a backtrace and goes on;
 * here a warning is counted, reported on stderr, and fatal in debug builds
 * (NDEBUG unset), where it marks a bug in the simulator itself.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/compiler.h"

static _Atomic uint64_t nr_warnings;

void nxsim__warn(const char *file, int line, const char *cond)
{
	atomic_fetch_add(&nr_warnings, 1);
	fprintf(stderr, "nxsim: WARNING at %s:%d: %s\n", file, line, cond);
#ifndef NDEBUG
	abort();
#endif
}

uint64_t nxsim__warn_count(void)
{
	return atomic_load(&nr_warnings);
}
