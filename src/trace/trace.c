// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace files: format detection, the event iterator over text (line by
 * line, through the pure parsers) or binary records, the counts, and the
 * text-to-binary converter.  A file is mapped read-only, never copied.
 *
 * Models nothing in the kernel; the formats are those of ftrace, perf
 * script and valgrind lackey (see kmem.c, lackey.c) and libnxsim's binary
 * one (binary.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nxsim/trace.h>

#include "core/alloc.h"
#include "trace/binary.h"

/**
 * struct nxsim_trace - an open trace
 * @buf: its bytes
 * @len: how many
 * @map: the file mapping to release, or NULL
 * @dev: device of the mapped file
 * @ino: inode of the mapped file
 * @fmt: its format
 * @kind: binary only: enum nxsim__trace_kind
 * @count: binary only: records
 * @pos: byte offset of the next line or record
 * @line: lines (records) read, so the number of the last one
 * @err: the error the iterator stopped at, or 0
 * @st: counts
 * @msg: the error's message
 */
struct nxsim_trace {
	const uint8_t *buf;
	size_t len;
	void *map;
	dev_t dev;
	ino_t ino;
	enum nxsim_trace_format fmt;
	int kind;
	uint64_t count;
	size_t pos;
	uint64_t line;
	int err;
	struct nxsim_trace_stats st;
	char msg[160];
};

static const char *const format_names[] = {
	[NXSIM_TRACE_AUTO] = "auto",	 [NXSIM_TRACE_FTRACE] = "ftrace",
	[NXSIM_TRACE_PERF] = "perf",	 [NXSIM_TRACE_LACKEY] = "lackey",
	[NXSIM_TRACE_BINARY] = "binary",
};

const char *nxsim_trace_format_name(enum nxsim_trace_format fmt)
{
	return (unsigned int)fmt <= NXSIM_TRACE_BINARY ? format_names[fmt] :
							 "unknown";
}

/* perf prints the event as "system:name:", ftrace as "name:". */
static enum nxsim_trace_format kmem_flavour(const char *s, size_t len)
{
	const char *p = memchr(s, ']', len), *end = s + len;

	p = p ? memmem(p, end - p, ": ", 2) : NULL;
	if (!p)
		return NXSIM_TRACE_FTRACE;
	for (p += 2; p < end && *p == ' '; p++)
		;
	for (; p < end && *p != ' '; p++)
		if (*p == ':' && p + 1 < end && p[1] != ' ')
			return NXSIM_TRACE_PERF;
	return NXSIM_TRACE_FTRACE;
}

enum nxsim_trace_format nxsim_trace_detect(const void *buf, size_t len)
{
	const char *s = buf, *end = s + len;
	struct nxsim_trace_event ev;
	const char *why;

	if (len >= 8 && !memcmp(buf, NXSIM__TRACE_MAGIC, 8))
		return NXSIM_TRACE_BINARY;
	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *next = s + n + 1;

		if (n && s[n - 1] == '\r')
			n--;
		if (n >= 9 && !memcmp(s, "# tracer:", 9))
			return NXSIM_TRACE_FTRACE;
		if (nxsim_trace_parse_lackey(s, n, &ev, &why) ==
			    NXSIM_TRACE_LINE_EVENT ||
		    (n > 2 && s[0] == '=' && s[1] == '=' && s[2] >= '0' &&
		     s[2] <= '9'))
			return NXSIM_TRACE_LACKEY;
		switch (nxsim_trace_parse_kmem(s, n, &ev, &why)) {
		case NXSIM_TRACE_LINE_EVENT:
		case NXSIM_TRACE_LINE_OTHER:
		case NXSIM_TRACE_LINE_FAILED:
			return kmem_flavour(s, n);
		}
		s = next;
	}
	return NXSIM_TRACE_AUTO;
}

static void set_why(const char **why, const char *text)
{
	if (why)
		*why = text;
}

int nxsim_trace_open_buf(const void *buf, size_t len,
			 enum nxsim_trace_format fmt, struct nxsim_trace **tp,
			 const char **why)
{
	struct nxsim__trace_header h = { 0 };
	struct nxsim_trace *t;
	const char *bad;
	int rc;

	if (fmt == NXSIM_TRACE_AUTO)
		fmt = nxsim_trace_detect(buf, len);
	if (fmt == NXSIM_TRACE_AUTO || (unsigned int)fmt > NXSIM_TRACE_BINARY) {
		set_why(why, "cannot tell the trace format");
		return -EINVAL;
	}
	if (fmt == NXSIM_TRACE_BINARY) {
		rc = nxsim__trace_get_header(buf, len, &h, &bad);
		if (rc) {
			set_why(why, bad);
			return rc;
		}
	}
	t = nxsim__zalloc(sizeof(*t));
	if (!t) {
		set_why(why, "out of memory");
		return -ENOMEM;
	}
	t->buf = buf;
	t->len = len;
	t->fmt = fmt;
	t->kind = h.kind;
	t->count = h.count;
	nxsim_trace_rewind(t);
	*tp = t;
	return 0;
}

int nxsim_trace_open(const char *path, enum nxsim_trace_format fmt,
		     struct nxsim_trace **tp, const char **why)
{
	void *map = NULL;
	struct stat stbuf;
	int fd, rc;

	if (!path || !tp)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &stbuf)) {
		rc = -errno;
		set_why(why, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!S_ISREG(stbuf.st_mode)) {
		set_why(why, "not a regular file");
		close(fd);
		return -EINVAL;
	}
	if (stbuf.st_size > 0) {
		map = mmap(NULL, stbuf.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = -errno;
			set_why(why, strerror(errno));
			close(fd);
			return rc;
		}
	}
	close(fd);
	rc = nxsim_trace_open_buf(map, stbuf.st_size, fmt, tp, why);
	if (rc) {
		if (map)
			munmap(map, stbuf.st_size);
		return rc;
	}
	(*tp)->map = map;
	(*tp)->dev = stbuf.st_dev;
	(*tp)->ino = stbuf.st_ino;
	return 0;
}

int nxsim_trace_close(struct nxsim_trace *t)
{
	if (!t)
		return -EINVAL;
	if (t->map)
		munmap(t->map, t->len);
	nxsim__free(t, sizeof(*t));
	return 0;
}

enum nxsim_trace_format nxsim_trace_format(const struct nxsim_trace *t)
{
	return t ? t->fmt : NXSIM_TRACE_AUTO;
}

int nxsim_trace_rewind(struct nxsim_trace *t)
{
	if (!t)
		return -EINVAL;
	t->pos = t->fmt == NXSIM_TRACE_BINARY ? NXSIM__TRACE_HEADER_SIZE : 0;
	t->line = 0;
	t->err = 0;
	t->msg[0] = '\0';
	memset(&t->st, 0, sizeof(t->st));
	return 0;
}

const char *nxsim_trace_error(const struct nxsim_trace *t)
{
	return t ? t->msg : NULL;
}

int nxsim_trace_stats(const struct nxsim_trace *t, struct nxsim_trace_stats *st)
{
	if (!t || !st)
		return -EINVAL;
	*st = t->st;
	return 0;
}

static int fail(struct nxsim_trace *t, int rc, const char *why,
		const char *line, size_t len)
{
	const char *unit = t->fmt == NXSIM_TRACE_BINARY ? "record" : "line";

	t->err = rc;
	if (line)
		snprintf(t->msg, sizeof(t->msg), "%s %" PRIu64 ": %s: \"%.*s\"",
			 unit, t->line, why, (int)(len > 60 ? 60 : len), line);
	else
		snprintf(t->msg, sizeof(t->msg), "%s %" PRIu64 ": %s", unit,
			 t->line, why);
	return rc;
}

static void count(struct nxsim_trace_stats *st,
		  const struct nxsim_trace_event *ev)
{
	st->events++;
	switch (ev->op) {
	case NXSIM_TRACE_ALLOC:
		st->allocs++;
		st->user += ev->user;
		st->pages += 1ull << ev->order;
		break;
	case NXSIM_TRACE_FREE:
		st->frees++;
		break;
	case NXSIM_TRACE_IFETCH:
		st->ifetch++;
		break;
	case NXSIM_TRACE_LOAD:
		st->loads++;
		break;
	case NXSIM_TRACE_STORE:
		st->stores++;
		break;
	case NXSIM_TRACE_MODIFY:
		st->modifies++;
		break;
	}
}

static int next_text(struct nxsim_trace *t, struct nxsim_trace_event *ev)
{
	while (t->pos < t->len) {
		const char *s = (const char *)t->buf + t->pos, *why;
		const char *nl = memchr(s, '\n', t->len - t->pos);
		size_t n = nl ? (size_t)(nl - s) : t->len - t->pos;
		int rc;

		t->line++;
		t->st.lines++;
		if (!nl)
			return fail(t, -EINVAL,
				    "truncated: no newline at the end", s, n);
		t->pos += n + 1;
		if (n && s[n - 1] == '\r')
			n--;
		rc = t->fmt == NXSIM_TRACE_LACKEY ?
			     nxsim_trace_parse_lackey(s, n, ev, &why) :
			     nxsim_trace_parse_kmem(s, n, ev, &why);
		switch (rc) {
		case NXSIM_TRACE_LINE_EVENT:
			count(&t->st, ev);
			return 1;
		case NXSIM_TRACE_LINE_NONE:
			break;
		case NXSIM_TRACE_LINE_OTHER:
			t->st.other++;
			break;
		case NXSIM_TRACE_LINE_FAILED:
			t->st.failed++;
			break;
		case NXSIM_TRACE_LINE_LOST:
			t->st.lost += ev->addr;
			break;
		default:
			return fail(t, rc, why, s, n);
		}
	}
	return 0;
}

static int next_binary(struct nxsim_trace *t, struct nxsim_trace_event *ev)
{
	const char *why;
	int rc;

	if (t->line == t->count)
		return 0;
	t->line++;
	t->st.lines++;
	rc = nxsim__trace_get_event(t->buf + t->pos, t->kind, ev, &why);
	if (rc)
		return fail(t, rc, why, NULL, 0);
	t->pos += nxsim__trace_record_size(t->kind);
	count(&t->st, ev);
	return 1;
}

int nxsim_trace_next(struct nxsim_trace *t, struct nxsim_trace_event *ev)
{
	if (!t || !ev)
		return -EINVAL;
	if (t->err)
		return t->err;
	return t->fmt == NXSIM_TRACE_BINARY ? next_binary(t, ev) :
					      next_text(t, ev);
}

int64_t nxsim_trace_write_binary(struct nxsim_trace *t, const char *path)
{
	struct nxsim__trace_header h = {
		.version = NXSIM__TRACE_VERSION,
	};
	uint8_t rec[NXSIM__TRACE_HEADER_SIZE];
	struct nxsim_trace_event ev;
	struct stat st;
	FILE *f;
	int rc;

	if (!t || !path)
		return -EINVAL;
	h.source = t->fmt;
	if (t->fmt == NXSIM_TRACE_BINARY) {
		snprintf(t->msg, sizeof(t->msg), "already binary");
		return -EINVAL;
	}
	h.kind = t->fmt == NXSIM_TRACE_LACKEY ? NXSIM__TRACE_ACCESSES :
						NXSIM__TRACE_PAGES;
	h.record_size = nxsim__trace_record_size(h.kind);
	/* truncating the mapped input would pull the pages from under it */
	if (t->map && !stat(path, &st) && st.st_dev == t->dev &&
	    st.st_ino == t->ino) {
		snprintf(t->msg, sizeof(t->msg), "%s: output is the input",
			 path);
		return -EINVAL;
	}
	f = fopen(path, "wb");
	if (!f) {
		rc = -errno;
		snprintf(t->msg, sizeof(t->msg), "%s: %s", path,
			 strerror(errno));
		return rc;
	}
	nxsim__trace_put_header(rec, &h);
	rc = fwrite(rec, NXSIM__TRACE_HEADER_SIZE, 1, f) == 1 ? 0 : -EIO;
	while (!rc && (rc = nxsim_trace_next(t, &ev)) == 1) {
		size_t n = nxsim__trace_put_event(rec, h.kind, &ev);

		h.count++;
		rc = fwrite(rec, n, 1, f) == 1 ? 0 : -EIO;
	}
	if (!rc) {
		nxsim__trace_put_header(rec, &h);
		if (fseek(f, 0, SEEK_SET) ||
		    fwrite(rec, NXSIM__TRACE_HEADER_SIZE, 1, f) != 1)
			rc = -EIO;
	}
	if (fclose(f) && !rc)
		rc = -EIO;
	if (rc) {
		if (rc == -EIO)
			snprintf(t->msg, sizeof(t->msg), "%s: write failed",
				 path);
		unlink(path);
		return rc;
	}
	return h.count;
}
