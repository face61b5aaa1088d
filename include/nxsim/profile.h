/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel profiles: the releases whose kvm.ko and MMU behaviour libnxsim
 * models, by name ("5.4" ... "6.18"), for struct nxsim_host_config's
 * @profile.  docs/params.md says what each one changes.
 *
 * Thread safety: the table is constant; safe from any thread.
 */
#ifndef NXSIM_PROFILE_H
#define NXSIM_PROFILE_H

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * nxsim_profile_name() - the profiles, newest last
 * @i: index from 0
 *
 * Return: the i-th profile name, or NULL past the end.
 */
NXSIM_API const char *nxsim_profile_name(unsigned int i);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_PROFILE_H */
