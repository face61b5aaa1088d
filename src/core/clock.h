/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Clock internals: timers on a virtual clock (the simulator's timer_list /
 * schedule_timeout) and jiffies arithmetic.
 */
#ifndef NXSIM_CORE_CLOCK_H
#define NXSIM_CORE_CLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <bsd/sys/queue.h>
#include <bsd/sys/tree.h>

#include <nxsim/clock.h>

#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_MSEC 1000000ull

/**
 * struct nxsim__timer - an event on a virtual clock
 * @node: link in the clock's deadline tree
 * @fifo: link in the clock's queue of timers armed in deadline order
 * @expires: deadline, ns
 * @seq: arming order, breaks ties between equal deadlines
 * @armed: on the tree or the queue
 * @queued: on the queue (not the tree)
 * @fn: what to run; called without clock locks, in the advancing thread
 */
struct nxsim__timer {
	union {
		RB_ENTRY(nxsim__timer) node;
		TAILQ_ENTRY(nxsim__timer) fifo;
	};
	uint64_t expires;
	uint64_t seq;
	bool armed;
	bool queued;
	void (*fn)(struct nxsim__timer *t);
};

void nxsim__timer_init(struct nxsim__timer *t,
		       void (*fn)(struct nxsim__timer *t));
/* Arm, or move, @t to fire at @expires (ns).  Virtual clocks only. */
void nxsim__timer_mod(struct nxsim_clock *clock, struct nxsim__timer *t,
		      uint64_t expires);
/* Disarm @t and wait until its callback is not running (del_timer_sync). */
void nxsim__timer_del_sync(struct nxsim_clock *clock, struct nxsim__timer *t);

/* A host or machine takes a reference while it runs on the clock. */
void nxsim__clock_get(struct nxsim_clock *clock);
void nxsim__clock_put(struct nxsim_clock *clock);

/* The CLOCK_MONOTONIC time at which a real clock reads @ns. */
struct timespec nxsim__clock_real_deadline(const struct nxsim_clock *clock,
					   uint64_t ns);

/*
 * CONFIG_HZ is 100, 250, 300 or 1000 (kernel/Kconfig.hz); nxsim_host_create()
 * takes no other.  The two conversions below switch to a copy of their body
 * for each, in which HZ is a constant and a division by it a multiplication.
 */
static inline bool nxsim__hz_valid(unsigned int hz)
{
	return hz == 100 || hz == 250 || hz == 300 || hz == 1000;
}

/*
 * The body of nxsim__ns_to_jiffies().  Where HZ divides NSEC_PER_SEC,
 * ns / (NSEC_PER_SEC / HZ) is the same number.
 */
static inline __attribute__((always_inline)) uint64_t
nxsim__ns_to_jiffies_hz(uint64_t ns, unsigned int hz)
{
	if (NSEC_PER_SEC % hz == 0)
		return ns / (NSEC_PER_SEC / hz);
	return ns / NSEC_PER_SEC * hz + ns % NSEC_PER_SEC * hz / NSEC_PER_SEC;
}

/* jiffies at clock time @ns, for CONFIG_HZ=@hz. */
static inline uint64_t nxsim__ns_to_jiffies(uint64_t ns, unsigned int hz)
{
	switch (hz) {
	case 100:
		return nxsim__ns_to_jiffies_hz(ns, 100);
	case 250:
		return nxsim__ns_to_jiffies_hz(ns, 250);
	case 300:
		return nxsim__ns_to_jiffies_hz(ns, 300);
	case 1000:
		return nxsim__ns_to_jiffies_hz(ns, 1000);
	}
	return nxsim__ns_to_jiffies_hz(ns, hz);
}

/*
 * The body of nxsim__jiffies_to_ns().  Where HZ divides NSEC_PER_SEC it is
 * j * (NSEC_PER_SEC / HZ), which overflows exactly when the general form
 * does.
 */
static inline __attribute__((always_inline)) uint64_t
nxsim__jiffies_to_ns_hz(uint64_t j, unsigned int hz)
{
	uint64_t ns;

	if (NSEC_PER_SEC % hz == 0)
		return __builtin_mul_overflow(j, NSEC_PER_SEC / hz, &ns) ?
			       NXSIM_NEVER :
			       ns;
	if (__builtin_mul_overflow(j / hz, NSEC_PER_SEC, &ns) ||
	    __builtin_add_overflow(ns, (j % hz * NSEC_PER_SEC + hz - 1) / hz,
				   &ns))
		return NXSIM_NEVER;
	return ns;
}

/*
 * The first clock time at which jiffies reads @j; NXSIM_NEVER when that is
 * past the end of time.
 */
static inline uint64_t nxsim__jiffies_to_ns(uint64_t j, unsigned int hz)
{
	switch (hz) {
	case 100:
		return nxsim__jiffies_to_ns_hz(j, 100);
	case 250:
		return nxsim__jiffies_to_ns_hz(j, 250);
	case 300:
		return nxsim__jiffies_to_ns_hz(j, 300);
	case 1000:
		return nxsim__jiffies_to_ns_hz(j, 1000);
	}
	return nxsim__jiffies_to_ns_hz(j, hz);
}

/* msecs_to_jiffies(): rounds up, as the kernel does for every HZ. */
static inline uint64_t nxsim__msecs_to_jiffies(uint64_t ms, unsigned int hz)
{
	return (ms * hz + 999) / 1000;
}

#endif /* NXSIM_CORE_CLOCK_H */
