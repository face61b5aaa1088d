/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's parameter-string parsers, behaving exactly as the modelled
 * tree's: sysfs_streq() (lib/string_helpers.c), kstrtobool() and
 * kstrtoull()/kstrtouint() (lib/kstrtox.c).
 */
#ifndef NXSIM_PARAMS_KSTRTOX_H
#define NXSIM_PARAMS_KSTRTOX_H

#include <stdbool.h>

/**
 * struct nxsim__kstrtox_profile - what lib/kstrtox.c accepts in a tree
 * @kstrtobool_tf: kstrtobool takes t/T/f/F (0d6ea3ac94ca, 5.19)
 * @kstrtobool_ed: kstrtobool takes e/E/d/D (ae5b3500856f, about 6.16)
 */
struct nxsim__kstrtox_profile {
	bool kstrtobool_tf;
	bool kstrtobool_ed;
};

bool nxsim__sysfs_streq(const char *s1, const char *s2);
int nxsim__kstrtobool(const struct nxsim__kstrtox_profile *prof, const char *s,
		      bool *res);
int nxsim__kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int nxsim__kstrtouint(const char *s, unsigned int base, unsigned int *res);

#endif /* NXSIM_PARAMS_KSTRTOX_H */
