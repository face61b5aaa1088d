/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Definitions every public libnxsim header shares: the export macro and the
 * library version.  The conventions every call follows (errors, counts,
 * predicates, destroy functions, thread safety) are in docs/api.md.
 *
 * Thread safety: definitions only.
 */
#ifndef NXSIM_COMMON_H
#define NXSIM_COMMON_H

#include <stdint.h>

#define NXSIM_VERSION_MAJOR 0
#define NXSIM_VERSION_MINOR 1
#define NXSIM_VERSION_PATCH 0

#if defined(__GNUC__)
#define NXSIM_API __attribute__((visibility("default")))
#else
#define NXSIM_API
#endif

/* A time or deadline that never comes. */
#define NXSIM_NEVER UINT64_MAX

#endif /* NXSIM_COMMON_H */
