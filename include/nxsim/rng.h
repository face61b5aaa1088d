/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Seeded randomness: xoshiro256** seeded through splitmix64, the generator
 * every random choice of the simulator draws from (random TLB replacement,
 * workload streams).  A program that draws its own inputs from it with the
 * same seed gets the same inputs on every machine, as the simulator does.
 *
 * Left out: cryptographic strength; this is for reproducible simulation.
 *
 * Thread safety: a struct nxsim_rng belongs to one thread at a time; the
 * functions keep no other state.
 */
#ifndef NXSIM_RNG_H
#define NXSIM_RNG_H

#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The generator's state; any value nxsim_rng_seed() left is valid. */
struct nxsim_rng {
	uint64_t s[4];
};

/**
 * nxsim_rng_seed() - start a stream
 * @r: the state
 * @seed: any 64-bit value, 0 included
 */
NXSIM_API void nxsim_rng_seed(struct nxsim_rng *r, uint64_t seed);

/** nxsim_rng_next() - the next 64 random bits of @r's stream. */
NXSIM_API uint64_t nxsim_rng_next(struct nxsim_rng *r);

/**
 * nxsim_rng_below() - uniform in [0, @bound), unbiased (Lemire's
 *		       multiply-shift with rejection)
 * @r: the state
 * @bound: > 0
 */
NXSIM_API uint64_t nxsim_rng_below(struct nxsim_rng *r, uint64_t bound);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_RNG_H */
