// SPDX-License-Identifier: GPL-2.0-only
/*
 * A readable dump of a VM's MMU: its memory slots; its page tables (the
 * TDP MMU's roots, or the shadow MMU's root and then its parentless pages;
 * page-table pages with level, gfn range, frame and NX flags,
 * non-leaf SPTEs, and runs of leaf SPTEs with the same bits and
 * consecutive frames, each with its raw value and decoded bits); and the
 * possible-NX-huge-page lists in recovery order.  For the nxsim driver's
 * "dump" verb.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "mmu/shadow_mmu.h"

struct dumper {
	struct nxsim__vm_mmu *mmu;
	nxsim_text_fn emit;
	void *ctx;
	int lines;
};

static void __attribute__((format(printf, 3, 4)))
line(struct dumper *d, int depth, const char *fmt, ...)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%*s", depth * 2, "");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	d->emit(d->ctx, buf);
	d->lines++;
}

static const char *const level_names[] = {
	"", "4K", "2M", "1G", "512G", "256T"
};

/* "R W X A D" style text of an SPTE's bits. */
static void bits_text(enum nxsim_spte_format fmt, uint64_t spte, char *buf,
		      size_t size)
{
	struct nxsim_spte_bits b;

	nxsim_spte_decode(fmt, spte, &b);
	snprintf(buf, size, "%s%s%s%s%s%s%s%s%s", b.readable ? " R" : "",
		 b.writable ? " W" : "", b.exec ? " X" : " NX",
		 b.user ? " U" : "", b.accessed ? " A" : "",
		 b.dirty ? " D" : "", b.large ? " PS" : "",
		 b.host_writable ? " HW" : "", b.mmu_writable ? " MW" : "");
}

/* The gfn entry @i maps: a shadow page's from kvm_mmu_page_get_gfn(). */
static uint64_t entry_gfn(const struct nxsim__mmu_page *sp, unsigned int i)
{
	if (sp->tdp_mmu_page)
		return sp->gfn + i * KVM_PAGES_PER_HPAGE(sp->level);
	return nxsim__kvm_mmu_page_get_gfn(sp, i);
}

static void dump_sp(struct dumper *d, struct nxsim__mmu_page *sp, int depth)
{
	uint64_t span = KVM_PAGES_PER_HPAGE(sp->level), gfn;
	char bits[64], quadrant[16] = "";
	unsigned int i, j;

	/* a 32-bit guest's pages: which part of the 4-byte table */
	if (sp->role.has_4_byte_gpte)
		snprintf(quadrant, sizeof(quadrant), " quadrant %u",
			 sp->role.quadrant);
	if (!sp->direct)
		/* shadow paging: the page shadows the guest table at gfn */
		line(d, depth,
		     "%s L%d shadows guest table gfn 0x%" PRIx64
		     "%s frame 0x%" PRIx64 "%s",
		     sp->root_count ? "root" : "table", sp->level, sp->gfn,
		     quadrant, sp_pfn(sp), sp->invalid ? " invalid" : "");
	else
		line(d, depth,
		     "%s L%d gfn 0x%" PRIx64 "-0x%" PRIx64 "%s frame 0x%" PRIx64
		     "%s%s%s%s",
		     sp->root_count ? "root" : "table", sp->level, sp->gfn,
		     sp->gfn + span * SPTE_ENT_PER_PAGE - 1, quadrant,
		     sp_pfn(sp),
		     sp->root_count && kvm_mmu_page_as_id(sp) ? " smm" : "",
		     sp->root_count && sp->invalid ? " invalid" : "",
		     sp->nx_huge_page_disallowed ? " nx_huge_page_disallowed" :
						   "",
		     sp->nx_tracked ? " tracked" : "");
	for (i = 0; i < SPTE_ENT_PER_PAGE; i = j) {
		uint64_t spte = sp->spt[i];

		j = i + 1;
		if (!is_shadow_present_pte(spte))
			continue;
		bits_text(d->mmu->fmt, spte, bits, sizeof(bits));
		if (!is_last_spte(spte, sp->level)) {
			line(d, depth + 1, "[%u] 0x%016" PRIx64 " ->%s", i,
			     spte, bits);
			dump_sp(d, spte_to_child_sp(d->mmu, spte), depth + 2);
			continue;
		}
		/* a run: same bits, consecutive frames and gfns (an indirect
		 * page's gfns are the guest's, kvm_mmu_page_get_gfn()) */
		gfn = entry_gfn(sp, i);
		while (j < SPTE_ENT_PER_PAGE &&
		       sp->spt[j] == spte + ((j - i) * span << 12) &&
		       entry_gfn(sp, j) == gfn + (j - i) * span)
			j++;
		line(d, depth + 1,
		     "[%u-%u] %u x %s leaf gfn 0x%" PRIx64 "-0x%" PRIx64
		     " pfn 0x%" PRIx64 " 0x%016" PRIx64 "%s",
		     i, j - 1, j - i, level_names[sp->level], gfn,
		     gfn + (j - i) * span - 1, spte_to_pfn(spte), spte, bits);
	}
}

/*
 * The shadow MMU: its root (or a PAE guest's pae_root entries), then the
 * pages no SPTE points at any more (their parent was zapped or replaced
 * by a huge leaf), oldest first.
 */
static void dump_shadow(struct dumper *d)
{
	struct nxsim__mmu_page *sp;
	unsigned int i;

	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		if (d->mmu->root[i])
			dump_sp(d, d->mmu->root[i], 1);
	for (i = 0; i < ARRAY_SIZE(d->mmu->pae_root); i++) {
		if (!d->mmu->pae_root[i])
			continue;
		line(d, 1, "pae_root[%u]:", i);
		dump_sp(d, d->mmu->pae_root[i], 2);
	}
	TAILQ_FOREACH_REVERSE(sp, &d->mmu->active_mmu_pages, nxsim__sp_list,
			      link) {
		if (sp->root_count || sp->parent_ptes.val)
			continue;
		line(d, 1, "parentless:");
		dump_sp(d, sp, 2);
	}
}

static void dump_slots(struct dumper *d)
{
	struct nxsim__memslot *s;
	int i;

	/* The id as KVM_SET_USER_MEMORY_REGION spells it: as_id << 16 | id. */
	for (i = 0; i < KVM_ADDRESS_SPACE_NUM; i++)
		TAILQ_FOREACH(s, &d->mmu->slots[i], link)
			line(d, 1,
			     "slot %u gfn 0x%" PRIx64 "-0x%" PRIx64
			     " hva 0x%" PRIx64 "%s%s",
			     (unsigned int)s->as_id << 16 | s->id, s->base_gfn,
			     s->base_gfn + s->npages - 1, s->userspace_addr,
			     nxsim__slot_dirty_logging(s) ? " dirty-logging" :
							    "",
			     s->flags & NXSIM_MEM_READONLY ? " read-only" : "");
}

/* The possible-NX lists in recovery (FIFO) order. */
static void dump_lists(struct dumper *d)
{
	static const char *const names[] = { "shadow", "tdp" };
	bool per_type = d->mmu->prof->per_type_lists;
	struct nxsim__mmu_page *sp;
	int t;

	for (t = 0; t < (per_type ? NXSIM__NR_MMU_TYPES : 1); t++) {
		const struct nxsim__possible_nx *l = &d->mmu->nx[t];

		if (TAILQ_EMPTY(&l->pages))
			continue;
		line(d, 1,
		     "possible_nx_huge_pages%s%s%s, nr_pages %" PRIu64
		     ", oldest first:",
		     per_type ? "[" : "", per_type ? names[t] : "",
		     per_type ? "]" : "", l->nr_pages);
		TAILQ_FOREACH(sp, &l->pages, possible_nx_huge_page_link)
			line(d, 2, "L%d gfn 0x%" PRIx64 " frame 0x%" PRIx64,
			     sp->level, sp->gfn, sp_pfn(sp));
	}
}

int nxsim__mmu_dump(struct nxsim__vm_mmu *mmu, nxsim_text_fn emit, void *ctx)
{
	struct dumper d = { .mmu = mmu, .emit = emit, .ctx = ctx };
	struct nxsim__mmu_page *root;

	/* the write lock: faults under the read lock change what is dumped */
	nxsim__write_lock(&mmu->mmu_lock);
	line(&d, 0,
	     "%s, %d-level roots, pages_4k %" PRIu64 " pages_2m %" PRIu64 " "
	     "pages_1g %" PRIu64 " nx_lpage_splits %" PRIu64,
	     d.mmu->fmt == NXSIM_SPTE_EPT ? "EPT" : "NPT", d.mmu->root_level,
	     nxsim__page_stat(d.mmu, NXSIM_PG_LEVEL_4K),
	     nxsim__page_stat(d.mmu, NXSIM_PG_LEVEL_2M),
	     nxsim__page_stat(d.mmu, NXSIM_PG_LEVEL_1G),
	     d.mmu->nx_lpage_splits);
	dump_slots(&d);
	TAILQ_FOREACH(root, &d.mmu->roots, link)
		dump_sp(&d, root, 1);
	if (!d.mmu->tdp_mmu_enabled)
		dump_shadow(&d);
	dump_lists(&d);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return d.lines;
}
