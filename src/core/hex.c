// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exported hex_to_bin() (include/nxsim/hex.h).  The library's own
 * parsers use the inline twin in core/hex.h.
 */
#include <nxsim/hex.h>

#include "core/hex.h"

/* Models hex_to_bin() of lib/hexdump.c. */
int nxsim_hex_to_bin(unsigned char ch)
{
	return nxsim__hex_to_bin(ch);
}
