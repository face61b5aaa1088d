// SPDX-License-Identifier: GPL-2.0-only
/*
 * Number parsing for the text-trace parsers.  The kernel prints trace
 * numbers with %lu, %d and 0x%lx; these read them back without strtoull(),
 * which needs a NUL and accepts signs and spaces a trace never has.
 */
#include <errno.h>
#include <stdbool.h>

#include "core/hex.h"
#include "trace/text.h"

/*
 * Base 16 by shifts: a digit is four bits, so a number of at most 16
 * digits after its leading zeros fits 64 bits and one of more does not;
 * the checked multiply of other bases finds the same.  Every digit is
 * read either way: a bad one is -EINVAL, even after an overflow.
 */
static int hex_number(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t val = 0;
	size_t i = 0, lead;

	while (i < len && s[i] == '0')
		i++;
	lead = i;
	for (; i < len; i++) {
		int d = nxsim__hex_to_bin(s[i]);

		if (d < 0)
			return -EINVAL;
		val = val << 4 | (unsigned int)d;
	}
	if (len - lead > 16 || val > max)
		return -ERANGE;
	*v = val;
	return 0;
}

int nxsim__trace_number(const char *s, size_t len, unsigned int base,
			uint64_t max, uint64_t *v)
{
	uint64_t val = 0;
	bool range = false;
	size_t i;

	if (base == 0) {
		base = 10;
		if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
			len -= 2;
		}
	}
	if (len == 0)
		return -EINVAL;
	if (base == 16)
		return hex_number(s, len, max, v);
	for (i = 0; i < len; i++) {
		int d = nxsim__hex_to_bin(s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (__builtin_mul_overflow(val, base, &val) ||
		    __builtin_add_overflow(val, (uint64_t)d, &val))
			range = true;
	}
	if (range || val > max)
		return -ERANGE;
	*v = val;
	return 0;
}
