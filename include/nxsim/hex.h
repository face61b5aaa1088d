/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hex digits as the kernel reads them: hex_to_bin() of lib/hexdump.c, the
 * helper kstrtox and the kernel's own parsers use.  Exported for programs
 * that parse the same input the simulator does (the nxsim driver's
 * escapes).
 *
 * Thread safety: a pure function; safe from any thread.
 */
#ifndef NXSIM_HEX_H
#define NXSIM_HEX_H

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * nxsim_hex_to_bin() - the value of one hex digit
 * @ch: the character
 *
 * Return: 0..15, or -1 if @ch is not a hex digit.
 */
NXSIM_API int nxsim_hex_to_bin(unsigned char ch);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_HEX_H */
