/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Errors.  Every fallible libnxsim call returns 0 (or a non-negative count)
 * on success and a negative errno on failure, as the kernel does; a call that
 * fails changes nothing.  Kernel-internal codes that user space's <errno.h>
 * lacks get an NXSIM_ name with the kernel's number.  Where a code is not
 * enough, a call hands back detail text it owns (docs/api.md), or records
 * it for nxsim_error_detail().
 *
 * Thread safety: pure functions over constant tables, and a detail per
 * thread; safe from any thread.
 */
#ifndef NXSIM_ERROR_H
#define NXSIM_ERROR_H

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* include/linux/errno.h: a signal interrupted a task creation. */
#define NXSIM_ERESTARTNOINTR 513

/**
 * nxsim_strerror() - describe an error code
 * @err: a negative (or positive) errno, or 0
 *
 * Return: "-EPERM: Operation not permitted" style text; never NULL.
 */
NXSIM_API const char *nxsim_strerror(int err);

/**
 * nxsim_errname() - the symbolic name of an error code
 * @err: a negative (or positive) errno
 *
 * Return: "-EPERM" style text, or NULL for a code libnxsim never returns.
 */
NXSIM_API const char *nxsim_errname(int err);

/**
 * nxsim_errno_parse() - the inverse of nxsim_errname()
 * @name: "-EPERM", "EPERM" or "-1"
 *
 * Return: the negative errno, or 0 when @name names none.
 */
NXSIM_API int nxsim_errno_parse(const char *name);

/**
 * nxsim_error_detail() - why the calling thread's last failing call failed
 *
 * A call that fails for a reason its errno does not say (a misaligned
 * memory slot, a guest address the paging mode cannot form, a machine
 * of 0 CPUs) records the reason on the calling thread.  As with errno, a
 * later successful call leaves it: clear it with nxsim_error_clear()
 * before the call whose reason you want.
 *
 * Return: "userspace_addr 0x1234 is not a multiple of 4096" style text,
 * or "" when no failing call recorded one since the last clear; the text
 * stays valid until the thread's next failing call or clear.
 */
NXSIM_API const char *nxsim_error_detail(void);

/** nxsim_error_clear() - forget the calling thread's error detail */
NXSIM_API void nxsim_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_ERROR_H */
