// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calling thread's last error detail (nxsim_error_detail()): a
 * thread-local buffer, written by a failure point (nxsim__fail()) and by
 * nothing else, so that like errno it outlives the successful calls after
 * it until the caller clears it.
 */
#include <stdarg.h>
#include <stdio.h>

#include <nxsim/error.h>

#include "core/detail.h"

static __thread char detail[256];

int nxsim__fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	return err;
}

const char *nxsim_error_detail(void)
{
	return detail;
}

void nxsim_error_clear(void)
{
	detail[0] = '\0';
}
