/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one allocator of the simulator.  Every object libnxsim makes comes
 * from here and goes back here with its size (sdallocx-style sized free).
 * Any call may fail: with real exhaustion, or because a test armed
 * nxsim_alloc_fail_nth().  Callers return -ENOMEM and leave state intact.
 */
#ifndef NXSIM_CORE_ALLOC_H
#define NXSIM_CORE_ALLOC_H

#include <stddef.h>

void *nxsim__alloc(size_t size);
void *nxsim__zalloc(size_t size);
/* Zeroed, aligned to @align (a power of two, at most 4096). */
void *nxsim__zalloc_aligned(size_t size, size_t align);
/* Zeroed array of @n elements; NULL on overflow. */
void *nxsim__calloc(size_t n, size_t size);
/* Grow or shrink; on failure the old block is untouched. */
void *nxsim__realloc(void *ptr, size_t old_size, size_t new_size);
void nxsim__free(void *ptr, size_t size);
void nxsim__free_aligned(void *ptr, size_t size, size_t align);

/* A copy of @s; free it with nxsim__free(p, strlen(s) + 1). */
char *nxsim__strdup(const char *s);

#endif /* NXSIM_CORE_ALLOC_H */
