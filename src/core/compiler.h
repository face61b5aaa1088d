/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small kernel-flavoured helpers every module uses: array sizes, rounding,
 * container_of, READ_ONCE/WRITE_ONCE on C11 atomics builtins, and WARN_ON,
 * which reports on stderr instead of printing a backtrace, and aborts in
 * debug builds (core/warn.c).
 */
#ifndef NXSIM_CORE_COMPILER_H
#define NXSIM_CORE_COMPILER_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether AddressSanitizer instruments this build: gcc defines
 * __SANITIZE_ADDRESS__, clang (14 and earlier) only answers
 * __has_feature(address_sanitizer).
 */
#if defined(__SANITIZE_ADDRESS__)
#define NXSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NXSIM_ASAN 1
#endif
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* roundup_pow_of_two() of include/linux/log2.h, for @n up to 2^31. */
static inline uint32_t roundup_pow_of_two(uint32_t n)
{
	return n <= 1 ? 1 : 1u << (32 - __builtin_clz(n - 1));
}

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

/* Lockless reads and writes of shared scalars, as the kernel marks them. */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ATOMIC_INC(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define ATOMIC_ADD(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)
#define ATOMIC_SUB(x, v) __atomic_fetch_sub(&(x), (v), __ATOMIC_RELAXED)

/*
 * ____cacheline_aligned (include/linux/cache.h, SMP_CACHE_BYTES of x86):
 * a field that threads write all the time gets a cache line of its own,
 * so that it does not drag read-mostly neighbours from core to core.
 */
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned __attribute__((__aligned__(SMP_CACHE_BYTES)))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/*
 * The kernel WARNs where the model reaches a state it believes impossible.
 * The simulator reports them on stderr, and aborts in debug builds, where
 * every test runs: a WARN is a bug in the simulator.
 */
void nxsim__warn(const char *file, int line, const char *cond);

#define WARN_ON(cond)                                           \
	({                                                      \
		bool __warn_c = !!(cond);                       \
		if (unlikely(__warn_c))                         \
			nxsim__warn(__FILE__, __LINE__, #cond); \
		__warn_c;                                       \
	})

#endif /* NXSIM_CORE_COMPILER_H */
