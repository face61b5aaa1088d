/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hex_to_bin() of lib/hexdump.c: the value of one hex digit, for the
 * kstrtox parsers, the text-trace number parser and the nxsim driver's
 * escapes.  Left out: the kernel's branch-free form (it guards against
 * timing side channels, which a simulator does not have).
 */
#ifndef NXSIM_CORE_HEX_H
#define NXSIM_CORE_HEX_H

/* Models hex_to_bin(): 0..15, or -1 if @ch is not a hex digit. */
static inline int nxsim__hex_to_bin(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

#endif /* NXSIM_CORE_HEX_H */
