// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-frame exposure statistics of the security oracle (docs/xpfo.md,
 * exposure windows per frame and CPU): for each frame that ever had a
 * stale alias after its unmap, the number of closed (frame, CPU) windows,
 * their sum (integral) and maximum.  The 16-byte frame table has no room,
 * so they live in an open-addressing table keyed by pfn (linear probing,
 * at most three quarters full), with a record only for frames that were
 * ever exposed: a workload exposes few of its frames.  A lookup mostly
 * reads one cache line, where a red-black tree of the 24474 frames a
 * 512-CPU compile run (500 steps a CPU) exposes walked some 15 nodes,
 * each its own block.
 *
 * The record is made when the first window of the frame opens (inside an
 * event that cannot be undone half-way), so an allocation failure (of the
 * larger table a full one needs) is a counted drop, not an error: the
 * frame's windows are then missing from the per-frame figures (and
 * counted in frame_windows_dropped), while the machine-wide and per-CPU
 * figures stay exact.
 *
 * Models no kernel code; the kernel keeps no such statistics.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "xpfo/xpfo.h"

#define FIRST_CAP 64

struct nxsim__frame_exp {
	uint64_t key; /* pfn + 1; 0: a free slot */
	uint64_t windows;
	uint64_t sum_ns;
	uint64_t max_ns;
};

/* The slot where the probe for @key starts in a table of @cap (> 0). */
static uint64_t home(uint64_t key, uint64_t cap)
{
	return (key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(cap));
}

/* @key's record in @rec of @cap, or the free slot that ends its probe. */
static struct nxsim__frame_exp *slot(struct nxsim__frame_exp *rec, uint64_t cap,
				     uint64_t key)
{
	uint64_t i = home(key, cap);

	while (rec[i].key && rec[i].key != key)
		i = (i + 1) & (cap - 1);
	return &rec[i];
}

static struct nxsim__frame_exp *find(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame_exp_table *t = &m->frame_exp;
	struct nxsim__frame_exp *e;

	if (!t->cap)
		return NULL;
	e = slot(t->rec, t->cap, pfn + 1);
	return e->key ? e : NULL;
}

/* Room for one more record: the table doubled if it would pass 3/4. */
static bool make_room(struct nxsim__frame_exp_table *t)
{
	uint64_t cap = t->cap ? 2 * t->cap : FIRST_CAP, i;
	struct nxsim__frame_exp *rec;

	if (4 * (t->n + 1) <= 3 * t->cap)
		return true;
	rec = nxsim__calloc(cap, sizeof(*rec));
	if (!rec)
		return false;
	for (i = 0; i < t->cap; i++)
		if (t->rec[i].key)
			*slot(rec, cap, t->rec[i].key) = t->rec[i];
	nxsim__free(t->rec, t->cap * sizeof(*t->rec));
	t->rec = rec;
	t->cap = cap;
	return true;
}

/**
 * nxsim__frame_exp_open() - windows open on frame @pfn: make its node
 *
 * Called when a frame gains its first stale holders.  On allocation
 * failure the frame goes on without one (see the file comment).
 */
void nxsim__frame_exp_open(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame_exp_table *t = &m->frame_exp;

	if (find(m, pfn) || !make_room(t))
		return;
	slot(t->rec, t->cap, pfn + 1)->key = pfn + 1;
	t->n++;
	m->orc.exposed_frames++;
}

/** nxsim__frame_exp_close() - a window of @len ns on @pfn closed. */
void nxsim__frame_exp_close(struct nxsim_xpfo *m, uint64_t pfn, uint64_t len)
{
	struct nxsim__frame_exp *e = find(m, pfn);

	if (!e) {
		m->orc.frame_windows_dropped++;
		return;
	}
	e->windows++;
	e->sum_ns += len;
	e->max_ns = MAX(e->max_ns, len);
}

void nxsim__frame_exp_free(struct nxsim_xpfo *m)
{
	struct nxsim__frame_exp_table *t = &m->frame_exp;

	nxsim__free(t->rec, t->cap * sizeof(*t->rec));
	*t = (struct nxsim__frame_exp_table){ 0 };
}

static void out(const struct nxsim_xpfo *m, uint64_t pfn,
		const struct nxsim__frame_exp *e,
		struct nxsim_xpfo_frame_exposure *x)
{
	*x = (struct nxsim_xpfo_frame_exposure){
		.pfn = pfn,
		.open = m->frame[pfn].holders,
	};
	if (!e)
		return;
	x->windows = e->windows;
	x->sum_ns = e->sum_ns;
	x->max_ns = e->max_ns;
	x->mean_ns = e->windows ? e->sum_ns / e->windows : 0;
}

int nxsim_xpfo_frame_exposure(struct nxsim_xpfo *m, uint64_t pfn,
			      struct nxsim_xpfo_frame_exposure *x)
{
	if (!m || !x || pfn >= m->nr_frames)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	out(m, pfn, find(m, pfn), x);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* Whether @a ranks before @b: larger integral, then lower pfn. */
static bool worse(const struct nxsim_xpfo_frame_exposure *a,
		  const struct nxsim_xpfo_frame_exposure *b)
{
	return a->sum_ns > b->sum_ns ||
	       (a->sum_ns == b->sum_ns && a->pfn < b->pfn);
}

int64_t nxsim_xpfo_worst_frames(struct nxsim_xpfo *m,
				struct nxsim_xpfo_frame_exposure *x,
				unsigned int n)
{
	const struct nxsim__frame_exp *e;
	unsigned int k = 0, i;
	int64_t total = 0;
	uint64_t j;

	if (!m || (n && !x))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	for (j = 0; j < m->frame_exp.cap; j++) {
		struct nxsim_xpfo_frame_exposure cur;

		e = &m->frame_exp.rec[j];
		if (!e->windows)
			continue;
		total++;
		out(m, e->key - 1, e, &cur);
		/* Insertion into the sorted top @n (x[0..k) filled). */
		for (i = k < n ? k++ : n; i && worse(&cur, &x[i - 1]); i--)
			if (i < n)
				x[i] = x[i - 1];
		if (i < n)
			x[i] = cur;
	}
	pthread_mutex_unlock(&m->lock);
	return total;
}
