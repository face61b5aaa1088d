/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time.  A clock is virtual (the default: it stands still until told to
 * advance, and due events run in deadline order, ties in the order they were
 * armed, so the same inputs give the same events) or real (CLOCK_MONOTONIC,
 * with recovery workers as real threads).  A host and an XPFO machine may
 * share one clock.
 *
 * Thread safety: every call is safe from many threads.  Advances are
 * serialised (one at a time; events run in the advancing thread, without
 * the clock's lock, so they may arm further events).  Destroying a clock
 * while another thread uses it is undefined.
 */
#ifndef NXSIM_CLOCK_H
#define NXSIM_CLOCK_H

#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nxsim_clock_mode {
	NXSIM_CLOCK_VIRTUAL, /* deterministic; advanced by the caller */
	NXSIM_CLOCK_REAL,    /* CLOCK_MONOTONIC; workers are threads */
};

/* The last nanosecond a virtual clock reaches; NXSIM_NEVER is never. */
#define NXSIM_CLOCK_MAX (NXSIM_NEVER - 1)

struct nxsim_clock;

/**
 * nxsim_clock_create() - make a clock
 * @mode: virtual or real
 * @clockp: receives the clock
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
NXSIM_API int nxsim_clock_create(enum nxsim_clock_mode mode,
				 struct nxsim_clock **clockp);

/**
 * nxsim_clock_destroy() - free a clock
 * @clock: the clock
 *
 * Return: 0; -EBUSY while a host or machine still uses it; -EINVAL for
 * NULL.
 */
NXSIM_API int nxsim_clock_destroy(struct nxsim_clock *clock);

/** nxsim_clock_mode() - the clock's mode. */
NXSIM_API enum nxsim_clock_mode
nxsim_clock_mode(const struct nxsim_clock *clock);

/** nxsim_clock_now() - nanoseconds since the clock was made. */
NXSIM_API uint64_t nxsim_clock_now(const struct nxsim_clock *clock);

/**
 * nxsim_clock_advance() - let virtual time pass
 * @clock: a virtual clock
 * @ns: how far to go; 0 runs only what is due now
 *
 * Runs every event due on the way, in order, each at its own deadline, in
 * the calling thread.  Events may arm further events, which run too if due.
 *
 * Return: the number of events run; -EINVAL for a real clock; -ERANGE,
 * with nothing run, if it would go past NXSIM_CLOCK_MAX.
 */
NXSIM_API int64_t nxsim_clock_advance(struct nxsim_clock *clock, uint64_t ns);

/**
 * nxsim_clock_next_event() - when the next armed event is due
 *
 * Return: its deadline in ns, or NXSIM_NEVER when none is armed.
 */
NXSIM_API uint64_t nxsim_clock_next_event(struct nxsim_clock *clock);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_CLOCK_H */
