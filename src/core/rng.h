/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Seeded randomness: xoshiro256** seeded through splitmix64.  Every random
 * choice in the simulator draws from an rng it was handed, so the same seed
 * gives the same events.
 */
#ifndef NXSIM_CORE_RNG_H
#define NXSIM_CORE_RNG_H

#include <stdint.h>

struct nxsim__rng {
	uint64_t s[4];
};

void nxsim__rng_seed(struct nxsim__rng *r, uint64_t seed);
uint64_t nxsim__rng_next(struct nxsim__rng *r);
/* Uniform in [0, bound), bound > 0 (Lemire's multiply-shift, unbiased). */
uint64_t nxsim__rng_below(struct nxsim__rng *r, uint64_t bound);

#endif /* NXSIM_CORE_RNG_H */
