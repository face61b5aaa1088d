/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers the text-trace parsers share: bounded number parsing over
 * buffers that need not be NUL-terminated.
 */
#ifndef NXSIM_TRACE_TEXT_H
#define NXSIM_TRACE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/**
 * nxsim__trace_number() - parse a whole buffer as an unsigned number
 * @s: the digits
 * @len: how many bytes; all must be digits
 * @base: 10, 16, or 0 for "0x" hex or else decimal (as %lu or 0x%lx print)
 * @max: the largest value allowed
 * @v: receives the value
 *
 * Return: 0; -EINVAL (empty, not a digit); -ERANGE (above @max).
 */
int nxsim__trace_number(const char *s, size_t len, unsigned int base,
			uint64_t max, uint64_t *v);

#endif /* NXSIM_TRACE_TEXT_H */
