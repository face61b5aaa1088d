// SPDX-License-Identifier: GPL-2.0-only
/*
 * The interpreter of the line protocol: reads lines, splits them into
 * words, dispatches them through the verb table, writes one answer a line,
 * checks "expect" lines against the previous answer, and keeps the named
 * objects (clocks, hosts, VMs, vCPUs, XPFO machines) the script made and
 * the memory slots it gave each VM.
 *
 * Answers: "OK values" or "ERR -EXXX message".  Errors of the script
 * itself (unknown verb, bad arguments, unterminated string) name the line:
 * "ERR -EINVAL line 7: unterminated string".
 *
 * With NXSIM__DRV_TAP the output is the Test Anything Protocol: each
 * command is a test point, "ok N - file:line verb" or "not ok ...", once
 * the expects after it (if any) are known; the answers are comments; the
 * plan and a count close it.
 *
 * The driver's own memory comes from libc, not the simulator's allocator,
 * so "alloc stats" and "alloc fail-nth" see the simulator alone.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/sys/queue.h>
#include <bsd/sys/tree.h>

#include "driver.h"

/*
 * A named object.  A destroyed VM keeps its name with @ptr NULL, and so do
 * its vCPUs: the library has freed them, the script gets -EBADF.
 */
struct object {
	RB_ENTRY(object) node;
	SLIST_HEAD(, nxsim__drv_slot) slots; /* a VM's memslots */
	LIST_HEAD(, object) vcpus;	     /* a VM's vCPUs */
	LIST_ENTRY(object) vcpu_link;	     /* on its VM's vcpus */
	struct object *vm;		     /* a vCPU's VM */
	char *name;
	enum nxsim__drv_kind kind;
	void *ptr;
	struct nxsim_host *host; /* the host it belongs to; NULL: a clock */
};

static int object_cmp(const struct object *a, const struct object *b)
{
	return strcmp(a->name, b->name);
}

RB_HEAD(nxsim__drv_objects, object);
RB_PROTOTYPE(nxsim__drv_objects, object, node, object_cmp);
RB_GENERATE(nxsim__drv_objects, object, node, object_cmp);

/**
 * struct nxsim__drv - one interpreter
 * @objects: what the script named, by name
 * @cur: the current host (last created or used)
 * @out: where answers go
 * @err: where failed expectations and -x echo go
 * @flags: NXSIM__DRV_*
 * @file: script name for messages
 * @line: number of the line being run
 * @last: the previous answer, for expect
 * @pending: line of the last command, until the next one or the end of the
 *	script settles it; 0: none
 * @pending_err: its answer was an ERR
 * @pending_expected: an expect followed it
 * @pending_failed: an expect after it failed
 * @command: its text, for the messages of strict and fail-on-err
 * @verb: its verb, for its TAP test point
 * @failures: expectations that failed
 * @points: TAP test points written
 * @points_failed: of which "not ok"
 */
struct nxsim__drv {
	struct nxsim__drv_objects objects;
	struct nxsim_host *cur;
	FILE *out;
	FILE *err;
	unsigned int flags;
	const char *file;
	unsigned long line;
	char last[NXSIM__DRV_REPLY + 300];
	unsigned long pending;
	bool pending_err;
	bool pending_expected;
	bool pending_failed;
	char command[160];
	char verb[80];
	int failures;
	unsigned long points;
	unsigned long points_failed;
	struct nxsim__drv_costs costs;
};

static const char *const kind_names[] = {
	[NXSIM__DRV_HOST] = "host",    [NXSIM__DRV_VM] = "vm",
	[NXSIM__DRV_VCPU] = "vcpu",    [NXSIM__DRV_CLOCK] = "clock",
	[NXSIM__DRV_XPFO] = "machine",
};

static struct object *lookup(struct nxsim__drv *d, const char *name)
{
	struct object key = { .name = (char *)name };

	return RB_FIND(nxsim__drv_objects, &d->objects, &key);
}

void *nxsim__drv_find(struct nxsim__drv *d, const char *name,
		      enum nxsim__drv_kind kind, struct nxsim__drv_reply *r)
{
	struct object *o = lookup(d, name);

	if (!o || o->kind != kind) {
		nxsim__drv_fail(r, -ENOENT, "no %s named \"%s\"",
				kind_names[kind], name);
		return NULL;
	}
	if (!o->ptr)
		r->rc = -EBADF; /* a closed VM fd; the API's message */
	return o->ptr;
}

int nxsim__drv_name_free(struct nxsim__drv *d,
			 const struct nxsim__drv_tok *name,
			 struct nxsim__drv_reply *r)
{
	struct object *o;

	if (name->len > NXSIM__DRV_NAME_MAX)
		return nxsim__drv_fail(r, -ENAMETOOLONG,
				       "a name is at most %d bytes",
				       NXSIM__DRV_NAME_MAX);
	/* answers and messages print names bare */
	if (!nxsim__drv_bare(name->s, name->len))
		return nxsim__drv_fail(
			r, -EINVAL,
			"a name is 1 to %d printable ASCII bytes, "
			"without blanks, quotes or backslashes, "
			"not starting with '#'",
			NXSIM__DRV_NAME_MAX);
	o = lookup(d, name->s);
	if (o)
		return nxsim__drv_fail(r, -EEXIST, "\"%s\" already names a %s",
				       name->s, kind_names[o->kind]);
	return 0;
}

int nxsim__drv_add_object(struct nxsim__drv *d, const char *name,
			  enum nxsim__drv_kind kind, void *ptr)
{
	struct object *o = calloc(1, sizeof(*o));

	if (!o || !(o->name = strdup(name))) {
		free(o);
		return -ENOMEM;
	}
	o->kind = kind;
	o->ptr = ptr;
	SLIST_INIT(&o->slots);
	LIST_INIT(&o->vcpus);
	switch (kind) {
	case NXSIM__DRV_HOST:
		o->host = ptr;
		break;
	case NXSIM__DRV_VM:
		o->host = nxsim_vm_host(ptr);
		break;
	case NXSIM__DRV_VCPU:
		o->host = nxsim_vm_host(nxsim_vcpu_vm(ptr));
		break;
	case NXSIM__DRV_CLOCK:
	case NXSIM__DRV_XPFO:
		break;
	}
	RB_INSERT(nxsim__drv_objects, &d->objects, o);
	return 0;
}

int nxsim__drv_add_vcpu(struct nxsim__drv *d, const char *name, const char *vm,
			struct nxsim_vcpu *vcpu)
{
	int rc = nxsim__drv_add_object(d, name, NXSIM__DRV_VCPU, vcpu);
	struct object *o, *parent;

	if (rc)
		return rc;
	o = lookup(d, name);
	parent = lookup(d, vm);
	o->vm = parent;
	LIST_INSERT_HEAD(&parent->vcpus, o, vcpu_link);
	return 0;
}

int nxsim__drv_vm_destroy(struct nxsim__drv *d, const char *name)
{
	struct object *o = lookup(d, name), *vcpu;
	int rc = nxsim_vm_destroy(o->ptr);

	if (rc)
		return rc;
	/* the names stay; the handles go (nxsim_vm_release()) */
	LIST_FOREACH(vcpu, &o->vcpus, vcpu_link)
		vcpu->ptr = NULL;
	rc = nxsim_vm_release(o->ptr);
	o->ptr = NULL;
	return rc;
}

static void drop(struct nxsim__drv *d, struct object *o)
{
	struct nxsim__drv_slot *s;
	struct object *vcpu;

	while ((s = SLIST_FIRST(&o->slots))) {
		SLIST_REMOVE_HEAD(&o->slots, link);
		free(s);
	}
	while ((vcpu = LIST_FIRST(&o->vcpus))) {
		LIST_REMOVE(vcpu, vcpu_link);
		vcpu->vm = NULL;
	}
	if (o->vm)
		LIST_REMOVE(o, vcpu_link);
	RB_REMOVE(nxsim__drv_objects, &d->objects, o);
	free(o->name);
	free(o);
}

void nxsim__drv_forget_host(struct nxsim__drv *d, struct nxsim_host *host)
{
	struct object *o, *tmp;

	RB_FOREACH_SAFE(o, nxsim__drv_objects, &d->objects, tmp)
		if (o->host == host)
			drop(d, o);
	if (d->cur == host)
		d->cur = NULL;
}

void nxsim__drv_forget(struct nxsim__drv *d, const char *name)
{
	struct object *o = lookup(d, name);

	if (o)
		drop(d, o);
}

struct nxsim__drv_slot *nxsim__drv_slot(struct nxsim__drv *d, const char *vm,
					uint32_t id, bool create)
{
	struct object *o = lookup(d, vm);
	struct nxsim__drv_slot *s;

	if (!o || o->kind != NXSIM__DRV_VM)
		return NULL;
	SLIST_FOREACH(s, &o->slots, link)
	if (s->mr.slot == id)
		return s;
	if (!create || !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->mr.slot = id;
	SLIST_INSERT_HEAD(&o->slots, s, link);
	return s;
}

void nxsim__drv_slot_drop(struct nxsim__drv *d, const char *vm,
			  struct nxsim__drv_slot *s)
{
	struct object *o = lookup(d, vm);

	SLIST_REMOVE(&o->slots, s, nxsim__drv_slot, link);
	free(s);
}

FILE *nxsim__drv_errf(struct nxsim__drv *d)
{
	return d->err;
}

struct nxsim__drv_costs *nxsim__drv_costs(struct nxsim__drv *d)
{
	return &d->costs;
}

void nxsim__drv_use_host(struct nxsim__drv *d, struct nxsim_host *host)
{
	d->cur = host;
}

struct nxsim_host *nxsim__drv_host(struct nxsim__drv *d, const char *name,
				   struct nxsim__drv_reply *r)
{
	if (name)
		return nxsim__drv_find(d, name, NXSIM__DRV_HOST, r);
	if (!d->cur)
		nxsim__drv_fail(r, -ENOENT,
				"no current host: \"host create\" "
				"or \"host use\" one");
	return d->cur;
}

struct nxsim__drv *nxsim__drv_create(FILE *out, FILE *err, unsigned int flags)
{
	struct nxsim__drv *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	RB_INIT(&d->objects);
	d->out = out;
	d->err = err;
	d->flags = flags;
	nxsim_xpfo_costs_default(&d->costs.xpfo);
	nxsim_bringup_costs_default(&d->costs.bringup);
	return d;
}

void nxsim__drv_destroy(struct nxsim__drv *d)
{
	static const enum nxsim__drv_kind order[] = {
		NXSIM__DRV_VM,	 /* a host with VMs cannot be unloaded */
		NXSIM__DRV_HOST, /* a clock in use cannot be destroyed */
		NXSIM__DRV_XPFO, /* nor one a machine uses */
		NXSIM__DRV_CLOCK,
	};
	struct object *o;
	size_t i;

	for (i = 0; i < NXSIM__DRV_NELEM(order); i++) {
		RB_FOREACH(o, nxsim__drv_objects, &d->objects) {
			if (o->kind != order[i] || !o->ptr)
				continue;
			if (o->kind == NXSIM__DRV_VM)
				nxsim_vm_destroy(o->ptr);
			else if (o->kind == NXSIM__DRV_HOST)
				nxsim_host_destroy(o->ptr);
			else if (o->kind == NXSIM__DRV_XPFO)
				nxsim_xpfo_destroy(o->ptr);
			else
				nxsim_clock_destroy(o->ptr);
		}
	}
	while (!RB_EMPTY(&d->objects))
		drop(d, RB_ROOT(&d->objects));
	free(d);
}

/* "-EPERM Operation not permitted", also for codes outside libnxsim */
static void answer(struct nxsim__drv *d, int rc, struct nxsim__drv_reply *r)
{
	const char *name = nxsim_errname(rc), *text = nxsim_strerror(rc);
	const char *colon = strstr(text, ": ");
	char num[16], line[sizeof(d->last)];
	size_t i, o;

	if (!name) {
		name = strerrorname_np(-rc);
		text = strerror(-rc);
	} else if (colon) {
		text = colon + 2;
	}
	if (!name) {
		snprintf(num, sizeof(num), "%d", rc);
		name = num;
	}
	if (rc >= 0)
		snprintf(line, sizeof(line), "OK%s", r->buf);
	else if (r->err[0])
		snprintf(line, sizeof(line), "ERR %s%s line %lu: %s",
			 name[0] == '-' ? "" : "-", name, d->line, r->err);
	else if (nxsim_error_detail()[0]) /* the library's reason */
		snprintf(line, sizeof(line), "ERR %s%s %s: %s",
			 name[0] == '-' ? "" : "-", name, text,
			 nxsim_error_detail());
	else
		snprintf(line, sizeof(line), "ERR %s%s %s",
			 name[0] == '-' ? "" : "-", name, text);
	/* one answer, one line: a message quoting the script's words may
	 * hold control bytes; show them as \xHH */
	for (i = 0, o = 0; line[i] && o + 5 < sizeof(d->last); i++) {
		unsigned char c = line[i];

		if (c < 0x20 || c == 0x7f)
			o += snprintf(d->last + o, 5, "\\x%02x", c);
		else
			d->last[o++] = c;
	}
	d->last[o] = '\0';
	fprintf(d->out, "%s%s\n", d->flags & NXSIM__DRV_TAP ? "# " : "",
		d->last);
	fflush(d->out);
}

static const struct nxsim__drv_verb *
find_verb(int n, struct nxsim__drv_tok *toks, int *words)
{
	const struct nxsim__drv_verb *const *tab, *v;

	for (tab = nxsim__drv_tables; *tab; tab++) {
		for (v = *tab; v->group; v++) {
			if (strcmp(v->group, toks[0].s))
				continue;
			if (!v->name) {
				*words = 1;
				return v;
			}
			if (n > 1 && !strcmp(v->name, toks[1].s)) {
				*words = 2;
				return v;
			}
		}
	}
	return NULL;
}

static int dispatch(struct nxsim__drv *d, int n, struct nxsim__drv_tok *toks,
		    struct nxsim__drv_reply *r)
{
	const struct nxsim__drv_verb *v;
	int words, argc, rc;

	v = find_verb(n, toks, &words);
	snprintf(d->verb, sizeof(d->verb), "%s%s%s", v ? v->group : toks[0].s,
		 v && v->name ? " " : "", v && v->name ? v->name : "");
	if (!v)
		return nxsim__drv_fail(r, -EINVAL,
				       "unknown verb \"%s%s%s\" (nxsim --help)",
				       toks[0].s, n > 1 ? " " : "",
				       n > 1 ? toks[1].s : "");
	argc = n - words;
	if (argc < v->min_args || (v->max_args >= 0 && argc > v->max_args))
		return nxsim__drv_fail(r, -EINVAL, "usage: %s%s%s %s", v->group,
				       v->name ? " " : "",
				       v->name ? v->name : "", v->usage);
	nxsim_error_clear();
	rc = v->fn(d, argc, toks + words, r);
	/* never a cut answer: what did not fit is an error */
	if (rc >= 0 && r->cut)
		return nxsim__drv_fail(r, -E2BIG,
				       "answer longer than %d bytes: ask for "
				       "less",
				       NXSIM__DRV_REPLY - 1);
	/* a failed lookup's errno stands: -ENOENT, or -EBADF for a closed VM */
	return rc < 0 && r->rc ? r->rc : rc;
}

/* An ERR message is free text; one that does not lex splits at blanks. */
static int split_words(const char *s, struct nxsim__drv_tok *toks, char *buf)
{
	int n = 0;

	while (*s && n < NXSIM__DRV_MAX_TOKS) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		toks[n].s = buf;
		while (*s && *s != ' ')
			*buf++ = *s++;
		toks[n].len = buf - toks[n].s;
		*buf++ = '\0';
		n++;
	}
	return n;
}

/*
 * expect STATUS [WORD...]: the previous answer has STATUS (OK or ERR).
 * With words after OK, the answer's words must be exactly those ("*"
 * matches any one word, a final "..." any rest); after ERR they must
 * begin the answer (expect ERR -EPERM).
 */
static bool expect_holds(struct nxsim__drv *d, int n,
			 struct nxsim__drv_tok *want)
{
	/* every word of the answer, however many (a word and its blank
	 * take two bytes at least) */
	struct nxsim__drv_tok got[sizeof(d->last) / 2 + 1];
	char buf[2 * sizeof(d->last) + 1];
	const char *why;
	int m, i;

	m = nxsim__drv_lex_max(d->last, strlen(d->last), got,
			       NXSIM__DRV_NELEM(got), buf, &why);
	if (m < 0 && !strncmp(d->last, "ERR ", 4))
		m = split_words(d->last, got, buf);
	if (m < 1 || strcmp(got[0].s, want[0].s))
		return false;
	if (n == 1)
		return true;
	for (i = 1; i < n; i++) {
		if (!strcmp(want[i].s, "...") && i == n - 1)
			return true;
		if (i >= m)
			return false;
		if (strcmp(want[i].s, "*") &&
		    (want[i].len != got[i].len ||
		     memcmp(want[i].s, got[i].s, got[i].len)))
			return false;
	}
	return m == n || !strcmp(want[0].s, "ERR");
}

/*
 * The raw text after a line's first word: quoted parts (with their
 * escapes) belong to the word, so exp""ect ends where expect would.
 */
static const char *after_first_word(const char *line)
{
	bool quoted = false;

	line += strspn(line, " \t");
	for (; *line && (quoted || (*line != ' ' && *line != '\t')); line++) {
		if (quoted && *line == '\\' && line[1])
			line++;
		else if (*line == '"')
			quoted = !quoted;
	}
	return line;
}

static bool expect(struct nxsim__drv *d, const char *line, int n,
		   struct nxsim__drv_tok *toks)
{
	const char *what = after_first_word(line);

	what += strspn(what, " \t");
	if (n < 2 || (strcmp(toks[1].s, "OK") && strcmp(toks[1].s, "ERR"))) {
		fprintf(d->err, "%s:%lu: expect needs OK or ERR\n", d->file,
			d->line);
		return false;
	}
	if (!d->last[0]) {
		fprintf(d->err, "%s:%lu: expect without a previous answer\n",
			d->file, d->line);
		return false;
	}
	if (expect_holds(d, n - 1, toks + 1))
		return true;
	fprintf(d->err, "%s:%lu: expectation failed\n  want: %s\n  got:  %s\n",
		d->file, d->line, what, d->last);
	return false;
}

/* A TAP test point for line @line: "ok 3 - t.nxs:5 host create". */
static void tap_point(struct nxsim__drv *d, bool ok, unsigned long line,
		      const char *what)
{
	if (!(d->flags & NXSIM__DRV_TAP))
		return;
	d->points++;
	d->points_failed += !ok;
	fprintf(d->out, "%sok %lu - %s:%lu %s\n", ok ? "" : "not ", d->points,
		d->file, line, what);
	fflush(d->out);
}

/*
 * The command of line d->pending is done: another command follows, or the
 * script ends.  It fails if an expect after it failed; strict, if no
 * expect checked it; fail-on-err, if its answer was an ERR no expect
 * checked.  Returns whether it passed.
 */
static bool settle(struct nxsim__drv *d)
{
	bool ok = !d->pending_failed;

	if (!d->pending)
		return true;
	if (!d->pending_expected && (d->flags & NXSIM__DRV_STRICT)) {
		fprintf(d->err, "%s:%lu: unchecked command: %s\n", d->file,
			d->pending, d->command);
		ok = false;
		d->failures++;
	} else if (!d->pending_expected && d->pending_err &&
		   (d->flags & NXSIM__DRV_FAIL_ON_ERR)) {
		fprintf(d->err, "%s:%lu: unexpected ERR: %s\n", d->file,
			d->pending, d->command);
		ok = false;
		d->failures++;
	}
	tap_point(d, ok, d->pending, d->verb);
	d->pending = 0;
	return ok;
}

/* An expect line was read; @held says whether it held. */
static void expected(struct nxsim__drv *d, bool held)
{
	if (held && d->pending) {
		d->pending_expected = true;
		return;
	}
	if (held)
		return;
	d->failures++;
	if (d->pending) {
		d->pending_expected = true;
		d->pending_failed = true;
	} else {
		/* nothing to hang it on: a test point of its own */
		tap_point(d, false, d->line, "expect");
	}
}

/* A line whose first word is "expect", even if the rest does not split. */
static bool is_expect(const char *line)
{
	size_t len = after_first_word(line) - line;
	char *buf = malloc(2 * len + 1);
	struct nxsim__drv_tok tok[1];
	const char *why;
	bool yes;

	yes = buf && nxsim__drv_lex(line, len, tok, buf, &why) == 1 &&
	      !strcmp(tok[0].s, "expect");
	free(buf);
	return yes;
}

int nxsim__drv_run(struct nxsim__drv *d, FILE *in, const char *name)
{
	struct nxsim__drv_tok toks[NXSIM__DRV_MAX_TOKS];
	size_t cap = 0, bufsize = 0;
	char *line = NULL, *buf = NULL;
	ssize_t len;

	d->file = name;
	d->line = 0;
	d->last[0] = '\0';
	d->pending = 0;
	d->points = 0;
	d->points_failed = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		struct nxsim__drv_reply r = { .len = 0 };
		const char *why;
		int n, rc;

		d->line++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r') /* a DOS line end */
			line[--len] = '\0';
		if (bufsize < 2 * (size_t)len + 1) {
			char *nbuf = realloc(buf, 2 * len + 1);

			if (!nbuf) {
				fprintf(d->err, "%s:%lu: out of memory\n",
					d->file, d->line);
				d->failures++;
				break;
			}
			buf = nbuf;
			bufsize = 2 * len + 1;
		}
		n = nxsim__drv_lex(line, len, toks, buf, &why);
		if (n == 0)
			continue;
		if (d->flags & NXSIM__DRV_TRACE)
			fprintf(d->err, "+ %s\n", line);
		if (n < 0 && is_expect(line)) {
			fprintf(d->err, "%s:%lu: bad expect line: %s\n",
				d->file, d->line, why);
			expected(d, false);
			if (d->flags & NXSIM__DRV_KEEP_GOING)
				continue;
			break;
		}
		if (n > 0 && !strcmp(toks[0].s, "expect")) {
			bool held = expect(d, line, n, toks);

			expected(d, held);
			if (held || (d->flags & NXSIM__DRV_KEEP_GOING))
				continue;
			break;
		}
		if (!settle(d) && !(d->flags & NXSIM__DRV_KEEP_GOING))
			break;
		snprintf(d->verb, sizeof(d->verb), "(bad line)");
		rc = n < 0 ? nxsim__drv_fail(&r, n, "%s", why) :
			     dispatch(d, n, toks, &r);
		answer(d, rc, &r);
		d->pending = d->line;
		d->pending_err = rc < 0;
		d->pending_expected = false;
		d->pending_failed = false;
		snprintf(d->command, sizeof(d->command), "%s",
			 line + strspn(line, " \t"));
	}
	settle(d);
	if (d->flags & NXSIM__DRV_TAP) {
		fprintf(d->out, "1..%lu\n# %lu passed, %lu failed\n", d->points,
			d->points - d->points_failed, d->points_failed);
		fflush(d->out);
	}
	free(line);
	free(buf);
	return d->failures ? 1 : 0;
}

/* Help text indented by six and cut at blanks before column 78. */
static void wrap(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > 72) {
			for (cut = 72; cut && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = 72;
		}
		fprintf(f, "      %.*s\n", (int)cut, text);
		text += cut;
		text += strspn(text, " ");
	}
}

void nxsim__drv_help(FILE *f)
{
	const struct nxsim__drv_verb *const *tab, *v;

	fprintf(f,
		"usage: nxsim [-kxse] [--tap] [SCRIPT|-]\n"
		"       nxsim convert IN OUT    text trace -> binary trace\n"
		"       nxsim --help | --version\n\n"
		"  -k, --keep-going   go on after a failed expect\n"
		"  -x, --trace        echo each command to stderr\n"
		"  -s, --strict       every command must be checked by an "
		"expect\n"
		"  -e, --fail-on-err  an ERR answer no expect checks fails "
		"the script\n"
		"      --tap          TAP output: \"ok N - FILE:LINE VERB\" "
		"a command, answers\n"
		"                     as \"# \" comments, the plan and a "
		"count at the end\n\n"
		"Reads one command a line (stdin without SCRIPT); answers each "
		"with one line,\n\"OK values\" or \"ERR -EXXX message\". '#' "
		"starts a comment.  Strings are C\nstrings: \"never\\n\".\n\n"
		"  expect OK|ERR [WORD...]\n"
		"      check the previous answer: status only; OK with "
		"words: exactly these\n"
		"      (\"*\" any one, final \"...\" any rest); ERR with "
		"words: the answer starts\n"
		"      with them.  A failed expect stops the script (exit 1) "
		"unless -k.\n"
		"      --strict: every command must be followed by an expect, "
		"or the script\n"
		"      fails naming the unchecked command's line.\n");
	for (tab = nxsim__drv_tables; *tab; tab++) {
		for (v = *tab; v->group; v++) {
			fprintf(f, "  %s%s%s%s%s\n", v->group,
				v->name ? " " : "", v->name ? v->name : "",
				v->usage[0] ? " " : "", v->usage);
			wrap(f, v->help);
		}
	}
}
