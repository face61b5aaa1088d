// SPDX-License-Identifier: GPL-2.0-only
/*
 * The words of a command the verbs read (numbers, key=value options,
 * durations) and the answer they build, for the driver and for
 * nxsim-kvm (tools/kvm/), which speaks the same language to /dev/kvm.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

void nxsim__drv_add(struct nxsim__drv_reply *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->buf + r->len, sizeof(r->buf) - r->len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n >= sizeof(r->buf) - r->len)
		r->cut = true;
	if (n > 0)
		r->len += (size_t)n < sizeof(r->buf) - r->len ?
				  (size_t)n :
				  sizeof(r->buf) - r->len - 1;
}

int nxsim__drv_fail(struct nxsim__drv_reply *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->rc = err;
	return err;
}

unsigned long long nxsim__drv_strtou64(const char *s, char **end)
{
	const char *digits = s;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8;
	if (base != 10) {
		digits += 2;
		/* strtoull() would take blanks, a sign or nothing here */
		if (!isxdigit((unsigned char)*digits) ||
		    (base == 8 && (*digits < '0' || *digits > '7'))) {
			*end = (char *)s + 1;
			return 0;
		}
	} else if (*s < '0' || *s > '9') {
		*end = (char *)s;
		return 0;
	}
	return strtoull(digits, end, base);
}

int nxsim__drv_u64(const struct nxsim__drv_tok *t, uint64_t max, uint64_t *v,
		   struct nxsim__drv_reply *r)
{
	char *end;

	errno = 0;
	if (!t->len || t->s[0] < '0' || t->s[0] > '9' || strlen(t->s) != t->len)
		return nxsim__drv_fail(r, -EINVAL, "not a number: \"%s\"",
				       t->s);
	*v = nxsim__drv_strtou64(t->s, &end);
	if (*end)
		return nxsim__drv_fail(r, -EINVAL, "not a number: \"%s\"",
				       t->s);
	if (errno == ERANGE || *v > max)
		return nxsim__drv_fail(r, -ERANGE,
				       "number out of range: %s (max %" PRIu64
				       ")",
				       t->s, max);
	return 0;
}

/*
 * Set in @bm the pages of "A-B,C,..." (relative to the range's first
 * page, each below @num), as nxsim__drv_strtou64() reads numbers; the
 * driver's and nxsim-kvm's dirty-log clear read the same list.
 */
int nxsim__drv_pages(const char *list, uint64_t *bm, uint64_t num,
		     struct nxsim__drv_reply *r)
{
	const char *p = list;

	while (*p) {
		char *end;
		uint64_t a = nxsim__drv_strtou64(p, &end), b = a;

		if (end == p)
			break;
		if (*end == '-') {
			p = end + 1;
			b = nxsim__drv_strtou64(p, &end);
			if (end == p)
				break;
		}
		if (a > b || b >= num)
			break;
		for (; a <= b; a++)
			bm[a / 64] |= 1ull << (a % 64);
		p = end;
		if (!*p)
			return 0;
		if (*p++ != ',')
			break;
	}
	return nxsim__drv_fail(r, -EINVAL, "bad page list \"%s\"", list);
}

const char *nxsim__drv_opt(const struct nxsim__drv_tok *t, const char *key)
{
	size_t n = strlen(key);

	if (t->len > n && !strncmp(t->s, key, n) && t->s[n] == '=')
		return t->s + n + 1;
	return NULL;
}

/* "60s", "100ms", "250us", "5ns" or a bare count of ns. */
int nxsim__drv_duration(const struct nxsim__drv_tok *t, uint64_t *ns,
			struct nxsim__drv_reply *r)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 },
		      { "us", 1000 },
		      { "ms", 1000000 },
		      { "s", 1000000000 } };
	struct nxsim__drv_tok num = *t;
	uint64_t mult = 1, v;
	size_t i, n;
	int rc;

	for (i = 0; i < NXSIM__DRV_NELEM(units); i++) {
		n = strlen(units[i].unit);
		if (t->len > n && !strcmp(t->s + t->len - n, units[i].unit) &&
		    t->s[t->len - n - 1] >= '0' &&
		    t->s[t->len - n - 1] <= '9') {
			mult = units[i].ns;
			num.len = t->len - n;
			break;
		}
	}
	num.s = strndup(t->s, num.len);
	if (!num.s)
		return -ENOMEM;
	rc = nxsim__drv_u64(&num, UINT64_MAX / mult, &v, r);
	free(num.s);
	*ns = v * mult;
	return rc;
}
