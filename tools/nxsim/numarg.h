/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Number arguments the verbs share, both read by nxsim__drv_u64(): the
 * value of a key=N option, and a 32-bit number (a slot id, a capability).
 */
#ifndef NXSIM_DRV_NUMARG_H
#define NXSIM_DRV_NUMARG_H

#include <string.h>

#include "driver.h"

/* @s, the value nxsim__drv_opt() found, as a number up to @max. */
static inline int nxsim__drv_opt_u64(const char *s, uint64_t max, uint64_t *v,
				     struct nxsim__drv_reply *r)
{
	const struct nxsim__drv_tok t = { .s = (char *)s, .len = strlen(s) };

	return nxsim__drv_u64(&t, max, v, r);
}

/* @t as a number up to UINT32_MAX; *@v is written only on success. */
static inline int nxsim__drv_u32(const struct nxsim__drv_tok *t, uint32_t *v,
				 struct nxsim__drv_reply *r)
{
	uint64_t n;
	int rc = nxsim__drv_u64(t, UINT32_MAX, &n, r);

	if (!rc)
		*v = (uint32_t)n;
	return rc;
}

#endif /* NXSIM_DRV_NUMARG_H */
