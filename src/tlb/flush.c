// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flush primitives of arch/x86/mm/tlb.c on the per-CPU TLBs of
 * tlb.c: INVLPG (flush_tlb_one_kernel / native_flush_tlb_one_user), CR3
 * writes with and without NOFLUSH (switch_mm_irqs_off /
 * load_new_mm_cr3), __flush_tlb_all (native_flush_tlb_global),
 * flush_tlb_kernel_range with tlb_single_page_flush_ceiling
 * (do_kernel_range_flush vs do_flush_tlb_all, on_each_cpu),
 * flush_tlb_all, and INVLPGB broadcast; and the drop of one entry they
 * and an eviction share, which tells a watching owner when a watched
 * translation leaves the CPU.
 *
 * Left out: the lazy-TLB state, tlb_gen bookkeeping and PTI's user/kernel
 * PCID pairs (callers model those).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/tlb.h>

#include "tlb/tlb.h"

/* Whether tag @t translates the key @key (global entries match any PCID). */
static inline bool tag_match(uint64_t t, uint64_t key)
{
	uint64_t m = ~(TLB_TAG_GLOBAL | TLB_TAG_WATCH) &
		     ~(-((t >> 1) & 1) & TLB_TAG_PCID_MASK);

	return ((t ^ key) & m) == 0;
}

static bool held_elsewhere(struct nxsim__tlb_cpu *c,
			   struct nxsim__tlb_array *skip, uint64_t t)
{
	unsigned int l, w;

	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		struct nxsim__tlb_array *a = &c->lv[l];
		uint64_t *s;
		size_t base;

		if (a == skip ||
		    !nxsim__tlb_occupied(a, nxsim__tlb_set(a, tlb_tag_va(t),
							   tlb_tag_size(t))))
			continue;
		s = nxsim__tlb_set_of(a, tlb_tag_va(t), tlb_tag_size(t), &base);
		for (w = 0; w < a->ways; w++)
			if ((s[w] & ~TLB_TAG_WATCH) == (t & ~TLB_TAG_WATCH))
				return true;
	}
	return false;
}

void nxsim__tlb_drop(struct nxsim_tlb *tlb, unsigned int cpu,
		     struct nxsim__tlb_array *a, size_t i)
{
	uint64_t t = a->tag[i];
	unsigned int sz = tlb_tag_size(t);

	a->tag[i] = 0;
	nxsim__tlb_memo_forget(a);
	a->tick++; /* a choice of way made before no longer stands */
	if (!--a->used)
		nxsim__tlb_vacate(a);
	if (!--a->nr[sz])
		a->sizes &= ~(1u << sz);
	if ((t & TLB_TAG_WATCH) && tlb->drop &&
	    !held_elsewhere(&tlb->cpu[cpu], a, t))
		tlb->drop(tlb->drop_ctx, cpu, tlb_tag_va(t), a->pfn[i]);
}

void nxsim__tlb_invlpg(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int l, sz, w;

	c->st.invlpg++;
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		struct nxsim__tlb_array *a = &c->lv[l];

		for (sz = 0; sz < TLB_NR_SIZES; sz++) {
			uint64_t key = tlb_tag_key(va, sz, c->pcid), *t;
			size_t base;

			if (!a->nr[sz] ||
			    !nxsim__tlb_occupied(a, nxsim__tlb_set(a, va, sz)))
				continue;
			t = nxsim__tlb_set_of(a, va, sz, &base);
			for (w = 0; w < a->ways; w++)
				if (t[w] && tag_match(t[w], key))
					nxsim__tlb_drop(tlb, cpu, a, base + w);
		}
	}
}

/* Drop the entries of the @n ways at @i of @a that @keep does not keep. */
static void flush_ways(struct nxsim_tlb *tlb, unsigned int cpu,
		       struct nxsim__tlb_array *a, size_t i, size_t n,
		       bool (*keep)(uint64_t t, uint16_t pcid), uint16_t pcid)
{
	for (n += i; i < n; i++)
		if (a->tag[i] && !keep(a->tag[i], pcid))
			nxsim__tlb_drop(tlb, cpu, a, i);
}

/*
 * Drop the entries of @cpu that @keep does not want kept, level by level:
 * in the sets its fill log maps to while the log holds every fill since
 * the last full flush (struct nxsim__tlb_fill_log), else in every set.
 */
static void flush_where(struct nxsim_tlb *tlb, unsigned int cpu,
			bool (*keep)(uint64_t t, uint16_t pcid), uint16_t pcid)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	bool logged = tlb->fill_log && c->log.n <= TLB_FILL_LOG;
	unsigned int l, k;

	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		struct nxsim__tlb_array *a = &c->lv[l];

		if (!logged) {
			for (k = 0; k <= a->set_mask && a->used; k++)
				if (nxsim__tlb_occupied(a, k))
					flush_ways(tlb, cpu, a,
						   (size_t)k * a->row, a->ways,
						   keep, pcid);
			continue;
		}
		for (k = 0; k < c->log.n && a->used; k++) {
			size_t set = (c->log.at[k] >> 2) & a->set_mask;

			if (nxsim__tlb_occupied(a, set))
				flush_ways(tlb, cpu, a, set * a->row, a->ways,
					   keep, pcid);
		}
	}
}

static bool keep_global_or_other_pcid(uint64_t t, uint16_t pcid)
{
	return (t & TLB_TAG_GLOBAL) ||
	       ((t & TLB_TAG_PCID_MASK) >> TLB_TAG_PCID_SHIFT) != pcid;
}

static bool keep_none(uint64_t t, uint16_t pcid)
{
	return false;
}

void nxsim__tlb_write_cr3(struct nxsim_tlb *tlb, unsigned int cpu,
			  uint16_t pcid, bool noflush)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int l;

	/* The memos' keys have no PCID. */
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++)
		nxsim__tlb_memo_forget(&c->lv[l]);
	c->pcid = pcid;
	if (noflush) {
		c->st.cr3_noflush++;
		return;
	}
	c->st.cr3_flush++;
	flush_where(tlb, cpu, keep_global_or_other_pcid, pcid);
}

void nxsim__tlb_flush_global(struct nxsim_tlb *tlb, unsigned int cpu)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];

	c->st.global_flush++;
	flush_where(tlb, cpu, keep_none, 0);
	c->log.n = 0; /* empty: nothing filled since */
}

void nxsim__tlb_flush_one_cpu(struct nxsim_tlb *tlb, unsigned int cpu,
			      uint64_t start, uint64_t pages, bool full)
{
	uint64_t i;

	if (full) {
		nxsim__tlb_flush_global(tlb, cpu);
		return;
	}
	/* By count: a range ending at the top of the address space. */
	for (i = 0; i < pages; i++)
		nxsim__tlb_invlpg(tlb, cpu, start + (i << NXSIM_TLB_SHIFT_4K));
}

/* Take back from @c the flush @all counted, before it runs its own. */
static void uncount(struct nxsim__tlb_cpu *c, uint64_t pages, bool full)
{
	if (full)
		c->st.global_flush--;
	else
		c->st.invlpg -= pages;
}

/*
 * flush_tlb_kernel_range() from @cpu to the CPUs of @mask (NULL: all); with
 * @held (and @mask NULL), the flush runs on the CPUs of @held only.
 */
static unsigned int kernel_range(struct nxsim_tlb *tlb, unsigned int cpu,
				 const uint64_t *mask, const uint64_t *held,
				 uint64_t start, uint64_t end)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	uint64_t pages, bits;
	unsigned int i, w, targets = 0;
	bool full;
	const bool lazy = held;

	start &= ~((1ull << NXSIM_TLB_SHIFT_4K) - 1);
	pages = ((end - start) >> NXSIM_TLB_SHIFT_4K) +
		!!((end - start) & ((1ull << NXSIM_TLB_SHIFT_4K) - 1));
	full = !nxsim__tlb_ranged(tlb, pages);
	if (full)
		c->st.full_flushes++;
	else
		c->st.range_flushes++;
	if (lazy) {
		/*
		 * Every CPU's flush and every other CPU's IPI, counted at once
		 * (@all); those of @held then run theirs for real.
		 */
		targets = tlb->nr_cpus - 1;
		if (full)
			tlb->all.global_flush++;
		else
			tlb->all.invlpg += pages;
		if (!tlb->broadcast) {
			tlb->all.ipis_received++;
			c->st.ipis_received--;
		}
	}
	/* on_each_cpu(): the IPIs go out, then the local CPU flushes. */
	for (i = 0; i < tlb->nr_cpus && !lazy; i++) {
		if (i == cpu || (mask && !(mask[i / 64] >> (i % 64) & 1)))
			continue;
		targets++;
		if (!tlb->broadcast)
			tlb->cpu[i].st.ipis_received++;
		nxsim__tlb_flush_one_cpu(tlb, i, start, pages, full);
	}
	/* Those of @held, a word of the bitmap at a time. */
	for (w = 0; lazy && w < (tlb->nr_cpus + 63) / 64; w++) {
		for (bits = held[w]; bits; bits &= bits - 1) {
			i = w * 64 + (unsigned int)__builtin_ctzll(bits);
			if (i == cpu)
				continue;
			uncount(&tlb->cpu[i], pages, full);
			nxsim__tlb_flush_one_cpu(tlb, i, start, pages, full);
		}
	}
	if (tlb->broadcast) {
		c->st.broadcasts++;
	} else if (targets) {
		c->st.ipis_sent++;
		c->st.ipi_targets += targets;
	}
	if (lazy) {
		if (!(held[cpu / 64] >> (cpu % 64) & 1))
			return targets;
		uncount(c, pages, full);
	}
	nxsim__tlb_flush_one_cpu(tlb, cpu, start, pages, full);
	return targets;
}

unsigned int nxsim__flush_tlb_kernel_range(struct nxsim_tlb *tlb,
					   unsigned int cpu,
					   const uint64_t *mask, uint64_t start,
					   uint64_t end)
{
	return kernel_range(tlb, cpu, mask, NULL, start, end);
}

unsigned int nxsim__flush_tlb_kernel_range_held(struct nxsim_tlb *tlb,
						unsigned int cpu,
						const uint64_t *held,
						uint64_t start, uint64_t end)
{
	return kernel_range(tlb, cpu, NULL, held, start, end);
}

bool nxsim__tlb_watch(struct nxsim_tlb *tlb, unsigned int cpu, uint64_t va,
		      bool watch)
{
	struct nxsim__tlb_cpu *c = &tlb->cpu[cpu];
	unsigned int l, w;
	bool held = false;

	/* A level holds a translation at most once (fills refresh). */
	for (l = 0; l < NXSIM_TLB_NR_LEVELS; l++) {
		struct nxsim__tlb_array *a = &c->lv[l];
		size_t base;

		if (!nxsim__tlb_probe(a, va, c->pcid, &base, &w))
			continue;
		held = true;
		if (watch)
			a->tag[base + w] |= TLB_TAG_WATCH;
		else
			a->tag[base + w] &= ~TLB_TAG_WATCH;
	}
	return held;
}
