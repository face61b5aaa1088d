// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-frame exposure statistics of the security oracle (docs/xpfo.md,
 * exposure windows per frame and CPU): for each frame that ever had a
 * stale alias after its unmap, the number of closed (frame, CPU) windows,
 * their sum (integral) and maximum.  The 16-byte frame table has no room,
 * so they live in a red-black tree keyed by pfn, with a node only for
 * frames that were ever exposed: a workload exposes few of its frames.
 *
 * The node is made when the first window of the frame opens (inside an
 * event that cannot be undone half-way), so an allocation failure is a
 * counted drop, not an error: the frame's windows are then missing from
 * the per-frame figures (and counted in frame_windows_dropped), while the
 * machine-wide and per-CPU figures stay exact.
 *
 * Models no kernel code; the kernel keeps no such statistics.
 */
#include <errno.h>
#include <string.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "xpfo/xpfo.h"

struct nxsim__frame_exp {
	RB_ENTRY(nxsim__frame_exp) node;
	uint64_t pfn;
	uint64_t windows;
	uint64_t sum_ns;
	uint64_t max_ns;
};

static int exp_cmp(const struct nxsim__frame_exp *a,
		   const struct nxsim__frame_exp *b)
{
	return a->pfn < b->pfn ? -1 : a->pfn > b->pfn;
}

RB_PROTOTYPE(nxsim__frame_exp_tree, nxsim__frame_exp, node, exp_cmp);
RB_GENERATE(nxsim__frame_exp_tree, nxsim__frame_exp, node, exp_cmp);

static struct nxsim__frame_exp *find(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame_exp key = { .pfn = pfn };

	return RB_FIND(nxsim__frame_exp_tree, &m->frame_exp, &key);
}

/**
 * nxsim__frame_exp_open() - windows open on frame @pfn: make its node
 *
 * Called when a frame gains its first stale holders.  On allocation
 * failure the frame goes on without one (see the file comment).
 */
void nxsim__frame_exp_open(struct nxsim_xpfo *m, uint64_t pfn)
{
	struct nxsim__frame_exp *e;

	if (find(m, pfn))
		return;
	e = nxsim__zalloc(sizeof(*e));
	if (!e)
		return;
	e->pfn = pfn;
	RB_INSERT(nxsim__frame_exp_tree, &m->frame_exp, e);
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
	struct nxsim__frame_exp *e, *next;

	RB_FOREACH_SAFE(e, nxsim__frame_exp_tree, &m->frame_exp, next) {
		RB_REMOVE(nxsim__frame_exp_tree, &m->frame_exp, e);
		nxsim__free(e, sizeof(*e));
	}
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
	struct nxsim__frame_exp *e;
	unsigned int k = 0, i;
	int64_t total = 0;

	if (!m || (n && !x))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	RB_FOREACH(e, nxsim__frame_exp_tree, &m->frame_exp) {
		struct nxsim_xpfo_frame_exposure cur;

		if (!e->windows)
			continue;
		total++;
		out(m, e->pfn, e, &cur);
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
