// SPDX-License-Identifier: GPL-2.0-only
/*
 * Words of the line protocol: the lexer that reads C-string quoting and
 * the writer that produces it, so every answer reads back as the same
 * words (expect compares words, not spellings).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* One escape after a backslash at line[*i]; the byte goes to *out. */
static int unescape(const char *line, size_t len, size_t *i, char *out)
{
	static const char from[] = "ntr\\\"'abfve",
			  to[] = "\n\t\r\\\"'\a\b\f\v\x1b";
	const char *e;
	int v, n;
	char c;

	if (*i >= len)
		return -EINVAL;
	c = line[(*i)++];
	e = c ? strchr(from, c) : NULL;
	if (e) {
		*out = to[e - from];
		return 0;
	}
	if (c >= '0' && c <= '7') {
		for (v = c - '0', n = 1;
		     n < 3 && *i < len && line[*i] >= '0' && line[*i] <= '7';
		     n++)
			v = v * 8 + line[(*i)++] - '0';
		if (v > 0xff)
			return -EINVAL;
		*out = (char)v;
		return 0;
	}
	if (c == 'x' && *i < len && nxsim_hex_to_bin(line[*i]) >= 0) {
		v = nxsim_hex_to_bin(line[(*i)++]);
		if (*i < len && nxsim_hex_to_bin(line[*i]) >= 0)
			v = v * 16 + nxsim_hex_to_bin(line[(*i)++]);
		*out = (char)v;
		return 0;
	}
	return -EINVAL;
}

int nxsim__drv_lex(const char *line, size_t len, struct nxsim__drv_tok *toks,
		   char *buf, const char **why)
{
	return nxsim__drv_lex_max(line, len, toks, NXSIM__DRV_MAX_TOKS, buf,
				  why);
}

int nxsim__drv_lex_max(const char *line, size_t len,
		       struct nxsim__drv_tok *toks, size_t max, char *buf,
		       const char **why)
{
	size_t i = 0;
	int n = 0;

	if (max > INT_MAX)
		max = INT_MAX;
	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '#')
			return n;
		if ((size_t)n == max) {
			*why = "too many words";
			return -E2BIG;
		}
		toks[n].s = buf;
		while (i < len && line[i] != ' ' && line[i] != '\t') {
			unsigned char c = line[i++];

			if (c != '"') {
				if (c < 0x20 || c == 0x7f) {
					*why = "control byte outside quotes";
					return -EINVAL;
				}
				*buf++ = c;
				continue;
			}
			while (i < len && line[i] != '"') {
				if (line[i] != '\\') {
					*buf++ = line[i++];
					continue;
				}
				i++;
				if (unescape(line, len, &i, buf++)) {
					*why = "bad escape in a string";
					return -EINVAL;
				}
			}
			if (i == len) {
				*why = "unterminated string";
				return -EINVAL;
			}
			i++;
		}
		toks[n].len = buf - toks[n].s;
		*buf++ = '\0';
		n++;
	}
}

bool nxsim__drv_bare(const char *s, size_t len)
{
	size_t i;

	if (!len || s[0] == '#')
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* Where quote() writes: a reply or a stream. */
struct sink {
	struct nxsim__drv_reply *r;
	FILE *f;
};

static void put(struct sink *k, const char *s, size_t len)
{
	if (k->f)
		fwrite(s, 1, len, k->f);
	else
		nxsim__drv_add(k->r, "%.*s", (int)len, s);
}

static void quote(struct sink *k, bool blank, const char *key, const char *s,
		  size_t len)
{
	char esc[5];
	size_t i;

	if (blank)
		put(k, " ", 1);
	if (key) {
		put(k, key, strlen(key));
		put(k, "=", 1);
	}
	if (nxsim__drv_bare(s, len)) {
		put(k, s, len);
		return;
	}
	put(k, "\"", 1);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '\n':
			put(k, "\\n", 2);
			break;
		case '\t':
			put(k, "\\t", 2);
			break;
		case '\r':
			put(k, "\\r", 2);
			break;
		case '"':
		case '\\':
			esc[0] = '\\';
			esc[1] = c;
			put(k, esc, 2);
			break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				snprintf(esc, sizeof(esc), "\\x%02x", c);
				put(k, esc, 4);
			} else {
				put(k, (const char *)&c, 1);
			}
		}
	}
	put(k, "\"", 1);
}

void nxsim__drv_quote(struct nxsim__drv_reply *r, const char *key,
		      const char *s, size_t len)
{
	struct sink k = { .r = r };

	quote(&k, true, key, s, len);
}

void nxsim__drv_fquote(FILE *f, const char *key, const char *s, size_t len)
{
	struct sink k = { .f = f };

	quote(&k, false, key, s, len);
}
