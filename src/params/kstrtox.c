// SPDX-License-Identifier: GPL-2.0-only
/*
 * Models lib/kstrtox.c and sysfs_streq() of lib/string_helpers.c.
 *
 * sysfs_streq(): equal strings, or equal but for one trailing '\n' on
 * either side.  kstrtobool(): looks at the first one or two characters only;
 * the letters it takes grew over time (on/off in 4.6, t/f in 5.19 by
 * 0d6ea3ac94ca, e/d in about 6.16 by ae5b3500856f), which the profile
 * selects.  kstrtoull(): optional '+', base 0 detects "0x" (only when a hex
 * digit follows) and a leading "0" (octal), one trailing '\n' allowed,
 * -ERANGE on overflow of 64 bits, -EINVAL when no digit was taken or
 * anything is left over.  kstrtouint(): the same, -ERANGE above UINT_MAX.
 */
#include <errno.h>
#include <limits.h>

#include "core/hex.h"
#include "params/kstrtox.h"

bool nxsim__sysfs_streq(const char *s1, const char *s2)
{
	while (*s1 && *s1 == *s2) {
		s1++;
		s2++;
	}
	if (*s1 == *s2)
		return true;
	if (!*s1 && *s2 == '\n' && !s2[1])
		return true;
	return *s1 == '\n' && !s1[1] && !*s2;
}

int nxsim__kstrtobool(const struct nxsim__kstrtox_profile *prof, const char *s,
		      bool *res)
{
	if (!s)
		return -EINVAL;

	switch (s[0]) {
	case 'y':
	case 'Y':
	case '1':
		*res = true;
		return 0;
	case 'n':
	case 'N':
	case '0':
		*res = false;
		return 0;
	case 't':
	case 'T':
		if (!prof->kstrtobool_tf)
			break;
		*res = true;
		return 0;
	case 'f':
	case 'F':
		if (!prof->kstrtobool_tf)
			break;
		*res = false;
		return 0;
	case 'e':
	case 'E':
		if (!prof->kstrtobool_ed)
			break;
		*res = true;
		return 0;
	case 'd':
	case 'D':
		if (!prof->kstrtobool_ed)
			break;
		*res = false;
		return 0;
	case 'o':
	case 'O':
		switch (s[1]) {
		case 'n':
		case 'N':
			*res = true;
			return 0;
		case 'f':
		case 'F':
			*res = false;
			return 0;
		default:
			break;
		}
		break;
	default:
		break;
	}
	return -EINVAL;
}

static int tolower_ascii(int c)
{
	return c | 0x20;
}

/* _parse_integer_fixup_radix() */
static const char *_parse_integer_fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if (tolower_ascii(s[1]) == 'x' &&
			    nxsim__hex_to_bin((unsigned char)s[2]) >= 0)
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && tolower_ascii(s[1]) == 'x')
		s += 2;
	return s;
}

/* _parse_integer(): digits taken, and whether 64 bits overflowed. */
static unsigned int _parse_integer(const char *s, unsigned int base,
				   unsigned long long *p, bool *overflow)
{
	unsigned long long res = 0;
	unsigned int taken = 0;

	*overflow = false;
	for (;; s++, taken++) {
		int val = nxsim__hex_to_bin((unsigned char)*s);

		if (val < 0 || (unsigned int)val >= base)
			break;
		if (res > (ULLONG_MAX - val) / base)
			*overflow = true;
		res = res * base + val;
	}
	*p = res;
	return taken;
}

int nxsim__kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	unsigned int taken;
	bool overflow;

	if (s[0] == '+')
		s++;
	s = _parse_integer_fixup_radix(s, &base);
	taken = _parse_integer(s, base, &v, &overflow);
	if (overflow)
		return -ERANGE;
	if (taken == 0)
		return -EINVAL;
	s += taken;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

int nxsim__kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v;
	int rc = nxsim__kstrtoull(s, base, &v);

	if (rc < 0)
		return rc;
	if (v != (unsigned int)v)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}
