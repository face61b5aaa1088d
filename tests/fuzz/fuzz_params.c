// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the parameter and command-line parsers.  The first
 * byte picks a profile and a parser, the rest (up to a NUL) is the text.
 *
 * kstrtobool() and kstrtouint() are compared with an oracle written here
 * from the kernel's lib/kstrtox.c, independently of src/params/kstrtox.c:
 * same return code, same value.  The text is also given to a host as its
 * kernel command line and written to every parameter, where only the
 * absence of crashes, leaks and undefined behaviour is checked.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/nxsim.h>

#include "kvm/profile.h"
#include "params/cmdline.h"
#include "params/kstrtox.h"

/*
 * kstrtobool() as its kernel-doc states it, as a table rather than the
 * library's switch: the first character decides; "o" needs "n" or "f"
 * after it; t/f came with 0d6ea3ac94ca, e/d with ae5b3500856f.
 */
static int oracle_bool(const struct nxsim__kstrtox_profile *p, const char *s,
		       bool *res)
{
	const struct {
		const char *first;
		bool value;
		bool accepted;
	} rows[] = {
		{ "yY1", true, true },
		{ "nN0", false, true },
		{ "tT", true, p->kstrtobool_tf },
		{ "fF", false, p->kstrtobool_tf },
		{ "eE", true, p->kstrtobool_ed },
		{ "dD", false, p->kstrtobool_ed },
	};
	size_t i;

	if (!s[0])
		return -EINVAL;
	if (s[0] == 'o' || s[0] == 'O') {
		if (!s[1] || !strchr("nNfF", s[1]))
			return -EINVAL;
		*res = s[1] == 'n' || s[1] == 'N';
		return 0;
	}
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!strchr(rows[i].first, s[0]))
			continue;
		if (!rows[i].accepted)
			return -EINVAL;
		*res = rows[i].value;
		return 0;
	}
	return -EINVAL;
}

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * kstrtouint(s, 0): an optional '+', then 0x<hex> (a hex digit must
 * follow the x), 0<octal> or decimal; every digit is consumed even past
 * an overflow (-ERANGE); no digit is -EINVAL; one '\n' may end it,
 * anything else after the digits is -EINVAL; a value over UINT_MAX is
 * -ERANGE.
 */
static int oracle_uint(const char *s, unsigned int *res)
{
	unsigned int base = 10;
	unsigned __int128 v = 0;
	bool overflow = false;
	size_t n = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		base = 8;
		if ((s[1] == 'x' || s[1] == 'X') && digit(s[2]) < 16) {
			base = 16;
			s += 2;
		}
	}
	for (; digit(s[n]) < (int)base; n++) {
		v = v * base + digit(s[n]);
		if (v > ULLONG_MAX) {
			overflow = true;
			v = 0;
		}
	}
	if (overflow)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

static int count_param(void *arg, const char *param, const char *val)
{
	(void)param;
	(void)val;
	++*(unsigned int *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nxsim__profile *prof;
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true };
	struct nxsim_host *host;
	unsigned int nprof = 0, i, u1 = 0, u2 = 0, n = 0;
	bool b1 = false, b2 = false;
	const char *name;
	char *s;
	int r1, r2;

	if (!size)
		return 0;
	while (nxsim_profile_name(nprof))
		nprof++;
	cfg.profile = nxsim_profile_name(data[0] % nprof);
	prof = nxsim__profile_find(cfg.profile);
	s = strndup((const char *)data + 1, size - 1);
	if (!s)
		return 0;

	r1 = nxsim__kstrtobool(&prof->kstrtox, s, &b1);
	r2 = oracle_bool(&prof->kstrtox, s, &b2);
	if (r1 != r2 || (!r1 && b1 != b2))
		abort();
	r1 = nxsim__kstrtouint(s, 0, &u1);
	r2 = oracle_uint(s, &u2);
	if (r1 != r2 || (!r1 && u1 != u2))
		abort();

	if (nxsim__parse_args(s, count_param, &n) == -ENOMEM)
		abort();
	cfg.cmdline = s;
	if (!nxsim_host_create(&cfg, &host)) {
		for (i = 0; (name = nxsim_param_name(host, i)); i++) {
			char buf[64];

			nxsim_param_set(host, name, s);
			if (nxsim_param_get(host, name, buf, sizeof(buf)) < 0)
				abort();
		}
		if (nxsim_host_destroy(host))
			abort();
	}
	free(s);
	return 0;
}
