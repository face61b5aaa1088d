/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Definitions every public libnxsim header shares: the export macro and the
 * library version, as the headers were built (NXSIM_VERSION_*) and as the
 * library linked at run time is (nxsim_version()).  The conventions every
 * call follows (errors, counts, predicates, destroy functions, thread
 * safety) are in docs/api.md.
 *
 * Thread safety: nxsim_version() is safe from any thread.
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

#ifdef __cplusplus
extern "C" {
#endif

/**
 * nxsim_version() - the version of the library linked at run time
 *
 * A program built against one release's headers may run on another's
 * shared library; this is the library's own "MAJOR.MINOR.PATCH", to set
 * beside NXSIM_VERSION_MAJOR/MINOR/PATCH (same major: same ABI).
 *
 * Return: a static string, e.g. "0.1.0".
 */
NXSIM_API const char *nxsim_version(void);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_COMMON_H */
