// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest page tables of a workload (nxsim_workload_map_guest()): what
 * a 64-bit guest kernel's early page-table setup leaves, a 4-level tree
 * (PML4, PDPTs, PDs, PTs, the x86 long-mode format of arch/x86/include/
 * asm/pgtable_types.h) that maps one gva range onto one gpa range with
 * pages of one size, written into guest memory by the VMM before the
 * vCPUs run, as a loader does.  The tables of one level sit one after
 * another, in address order, below the next level's.
 *
 * Left out: several ranges or page sizes in one tree, user mappings, NX
 * mappings, and 5-level paging (guest.h does not walk it).
 */
#include <errno.h>
#include <string.h>

#include <nxsim/guest.h>
#include <nxsim/workload.h>

#define PAGE 4096ull
#define ENTRIES 512
#define LOWER_HALF (1ull << 47) /* canonical, bit 47 clear */

/* The bytes one entry of a level-@t table maps (t = 1: a PTE, 4 KiB). */
static uint64_t entry_span(int t)
{
	return 1ull << (12 + 9 * (t - 1));
}

/* Level-@t tables (t = 4: PML4) the range [@gva, @end) needs. */
static uint64_t nr_tables(uint64_t gva, uint64_t end, int t)
{
	unsigned int shift = 12 + 9 * t;

	return ((end - 1) >> shift) - (gva >> shift) + 1;
}

/*
 * Write the level-@t tables at @base: each entry maps @gva's span, onto
 * the level-(t - 1) tables at @child (or onto @gpa at the leaf level).
 */
static int write_level(struct nxsim_vm *vm, uint64_t gva, uint64_t end,
		       uint64_t gpa, int t, int level, uint64_t base,
		       uint64_t child)
{
	uint64_t span = entry_span(t), tbl[ENTRIES], a, page, cur = 0;
	unsigned int tshift = 12 + 9 * t;
	bool have = false;
	int rc;

	for (a = gva & ~(span - 1); a < end; a += span) {
		page = (a >> tshift) - (gva >> tshift);
		if (have && page != cur) {
			rc = nxsim_guest_write(vm, base + cur * PAGE, tbl,
					       sizeof(tbl));
			if (rc)
				return rc;
			have = false;
		}
		if (!have) {
			memset(tbl, 0, sizeof(tbl));
			cur = page;
			have = true;
		}
		tbl[(a / span) % ENTRIES] =
			NXSIM_GPTE_P | NXSIM_GPTE_W |
			(t == level ? (gpa + (a - gva)) |
					      (level > 1 ? NXSIM_GPTE_PS : 0) :
				      child + PAGE * ((a >> (tshift - 9)) -
						      (gva >> (tshift - 9))));
	}
	return nxsim_guest_write(vm, base + cur * PAGE, tbl, sizeof(tbl));
}

int nxsim_workload_map_guest(struct nxsim_vm *vm, uint64_t gva, uint64_t gpa,
			     uint64_t bytes, int level, uint64_t table_gpa,
			     uint64_t *table_bytes)
{
	uint64_t base[5] = { 0 }, n = 0, end = gva + bytes;
	int t, rc;

	if (!table_bytes || level < NXSIM_PG_LEVEL_4K ||
	    level > NXSIM_PG_LEVEL_1G || !bytes ||
	    ((gva | gpa | bytes) & (entry_span(level) - 1)) ||
	    (table_gpa & (PAGE - 1)))
		return -EINVAL;
	if (end > LOWER_HALF || end < gva)
		return -ERANGE;
	for (t = 4; t >= level; t--) {
		base[t] = table_gpa + n * PAGE;
		n += nr_tables(gva, end, t);
	}
	if (n * PAGE > NXSIM_GUEST_MEM_MAX_BYTES)
		return -E2BIG;
	for (t = 4; vm && t >= level; t--) {
		rc = write_level(vm, gva, end, gpa, t, level, base[t],
				 t > level ? base[t - 1] : 0);
		if (rc)
			return rc;
	}
	*table_bytes = n * PAGE;
	return 0;
}
