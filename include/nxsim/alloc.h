/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's allocator, as seen from outside: which backend serves it,
 * what it holds, a call that gives its freed memory back, and a hook that
 * makes an allocation fail so tests can walk every -ENOMEM path.
 *
 * All simulator memory comes from one allocator module: a private jemalloc
 * arena (mallocx/sdallocx) when built with NXSIM_WITH_JEMALLOC, libc
 * otherwise.  The counters are process-wide and exact.
 *
 * Thread safety: nxsim_alloc_backend(), nxsim_alloc_stats() and
 * nxsim_alloc_trim() are safe from any thread (the counters are summed
 * over per-thread counters under a lock).  The failure hook is
 * process-wide: arm it and run the operation it is for from one thread.
 */
#ifndef NXSIM_ALLOC_H
#define NXSIM_ALLOC_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct nxsim_alloc_stats - what the simulator holds right now
 * @allocs: allocations made since the process started
 * @live: allocations not yet freed
 * @live_bytes: bytes requested by the live allocations
 * @failed: allocations that failed (injected or real)
 */
struct nxsim_alloc_stats {
	uint64_t allocs;
	uint64_t live;
	uint64_t live_bytes;
	uint64_t failed;
};

/** nxsim_alloc_backend() - "jemalloc" or "libc". */
NXSIM_API const char *nxsim_alloc_backend(void);

/** nxsim_alloc_stats() - read the allocator counters. */
NXSIM_API void nxsim_alloc_stats(struct nxsim_alloc_stats *st);

/**
 * nxsim_alloc_trim() - give the memory the simulator has freed back to the
 * kernel now
 *
 * Memory of destroyed VMs and machines stays with the allocator for the
 * next ones; on jemalloc it goes back by the arena's decay (10 s), which
 * advances only while the arena is used.  A program that is done with
 * the simulator for a while, or a benchmark that wants the next one to
 * start as a fresh process would, calls this: jemalloc purges the
 * private arena (arena.<i>.purge), libc runs malloc_trim(0).  Blocks
 * still held stay valid; the counters do not change.
 */
NXSIM_API void nxsim_alloc_trim(void);

/**
 * nxsim_alloc_fail_nth() - make one future allocation fail
 * @nth: 1 fails the next allocation, 2 the one after, ...; 0 disarms
 *
 * The hook is process-wide and fires once.  Use it from one thread.
 */
NXSIM_API void nxsim_alloc_fail_nth(unsigned long nth);

/**
 * nxsim_alloc_fail_pending() - is an injected failure still armed?
 *
 * After an operation that succeeded, a pending failure means the operation
 * made fewer allocations than the armed count: every path has been covered.
 */
NXSIM_API bool nxsim_alloc_fail_pending(void);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_ALLOC_H */
