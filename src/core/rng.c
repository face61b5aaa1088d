// SPDX-License-Identifier: GPL-2.0-only
/*
 * xoshiro256** (Blackman and Vigna), seeded with splitmix64 so that any
 * 64-bit seed, 0 included, gives a good state (include/nxsim/rng.h).
 * Models no kernel code.
 */
#include <nxsim/rng.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void nxsim_rng_seed(struct nxsim_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; r && i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t nxsim_rng_next(struct nxsim_rng *r)
{
	uint64_t *s, result, t;

	if (!r)
		return 0;
	s = r->s;
	result = rotl(s[1] * 5, 7) * 9;
	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t nxsim_rng_below(struct nxsim_rng *r, uint64_t bound)
{
	unsigned __int128 m;
	uint64_t low;

	if (!r || !bound)
		return 0;
	m = (unsigned __int128)nxsim_rng_next(r) * bound;
	low = (uint64_t)m;

	if (low < bound) {
		uint64_t threshold = -bound % bound;

		while (low < threshold) {
			m = (unsigned __int128)nxsim_rng_next(r) * bound;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}
