// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPTE formats and construction (arch/x86/kvm/mmu/spte.c, spte.h).
 *
 * The EPT masks are those of kvm_mmu_set_ept_masks() with A/D bits and
 * exec-only support (so the present mask is suppress-#VE alone, as in the
 * newest tree); the legacy masks are kvm_mmu_reset_all_pte_masks()'s.
 * Memory types: EPT leaves of RAM get WB | IPAT (vmx_get_mt_mask() without
 * non-coherent DMA); NPT leaves get none.
 *
 * MMIO SPTEs: the EPT value is W|X with the mask RWX plus suppress-#VE
 * (the newest tree's; 6.1 masks RWX only, which tells the same SPTEs
 * apart here); the NPT value is reserved bit 51 plus present, with W and
 * U kept from the access, as kvm_mmu_reset_all_pte_masks() sets it (SME's
 * svm_adjust_mmio_mask() is left out: no memory encryption).
 *
 * Left out: access tracking, SME/SEV C-bit, A/D-disabled roles, the
 * SPTE_TDP_AD_WRPROT_ONLY case, and the L1TF relocation of gfn bits in
 * MMIO SPTEs (as on a CPU without X86_BUG_L1TF).
 */
#include <errno.h>
#include <string.h>

#include "core/compiler.h"
#include "mmu/spte.h"

#define BIT(n) (1ull << (n))

static const struct nxsim__spte_masks masks[] = {
	[NXSIM_SPTE_EPT] = {
		.present = BIT(63),
		.user = BIT(0),
		.x = BIT(2),
		.accessed = BIT(8),
		.dirty = BIT(9),
		.host_writable = BIT(57),
		.mmu_writable = BIT(58),
		.memtype = (6ull << 3) | BIT(6),
	},
	[NXSIM_SPTE_LEGACY] = {
		.present = BIT(0),
		.user = BIT(2),
		.nx = BIT(63),
		.accessed = BIT(5),
		.dirty = BIT(6),
		.host_writable = BIT(9),
		.mmu_writable = BIT(10),
	},
};

const struct nxsim__spte_masks *nxsim__spte_masks(enum nxsim_spte_format f)
{
	return &masks[f];
}

/* One named field: its bit position(s) in a format. */
struct field {
	int shift; /* -1: the format has no such field */
	int width;
};

struct layout {
	struct field readable, writable, exec, user, accessed, dirty, large,
		global, ipat, user_exec, suppress_ve, host_writable,
		mmu_writable, mmu_present, memtype, ad_type;
	bool exec_inverted; /* legacy: NX set means not executable */
};

#define F(s, w)          \
	{                \
		(s), (w) \
	}
#define NONE          \
	{             \
		-1, 0 \
	}

static const struct layout layouts[] = {
	[NXSIM_SPTE_EPT] = {
		.readable = F(0, 1), .writable = F(1, 1), .exec = F(2, 1),
		.user = NONE, .accessed = F(8, 1), .dirty = F(9, 1),
		.large = F(7, 1), .global = NONE, .ipat = F(6, 1),
		.user_exec = F(10, 1), .suppress_ve = F(63, 1),
		.host_writable = F(57, 1), .mmu_writable = F(58, 1),
		.mmu_present = F(11, 1), .memtype = F(3, 3),
		.ad_type = F(52, 2),
	},
	[NXSIM_SPTE_LEGACY] = {
		.readable = F(0, 1), .writable = F(1, 1), .exec = F(63, 1),
		.user = F(2, 1), .accessed = F(5, 1), .dirty = F(6, 1),
		.large = F(7, 1), .global = F(8, 1), .ipat = NONE,
		.user_exec = NONE, .suppress_ve = NONE,
		.host_writable = F(9, 1), .mmu_writable = F(10, 1),
		.mmu_present = F(11, 1), .memtype = F(3, 2),
		.ad_type = F(52, 2), .exec_inverted = true,
	},
};

static uint64_t field_mask(struct field f)
{
	return f.shift < 0 ? 0 : ((BIT(f.width) - 1) << f.shift);
}

static uint64_t get(uint64_t spte, struct field f)
{
	return f.shift < 0 ? 0 : (spte & field_mask(f)) >> f.shift;
}

/* Put @val in @f; false if the format lacks @f or @val is too wide. */
static bool put(uint64_t *spte, struct field f, uint64_t val)
{
	if (!val)
		return true;
	if (f.shift < 0 || val >= BIT(f.width))
		return false;
	*spte |= val << f.shift;
	return true;
}

static uint64_t named_bits(const struct layout *l)
{
	return field_mask(l->readable) | field_mask(l->writable) |
	       field_mask(l->exec) | field_mask(l->user) |
	       field_mask(l->accessed) | field_mask(l->dirty) |
	       field_mask(l->large) | field_mask(l->global) |
	       field_mask(l->ipat) | field_mask(l->user_exec) |
	       field_mask(l->suppress_ve) | field_mask(l->host_writable) |
	       field_mask(l->mmu_writable) | field_mask(l->mmu_present) |
	       field_mask(l->memtype) | field_mask(l->ad_type) |
	       SPTE_BASE_ADDR_MASK;
}

int nxsim_spte_decode(enum nxsim_spte_format fmt, uint64_t spte,
		      struct nxsim_spte_bits *b)
{
	const struct layout *l;

	if ((unsigned int)fmt >= ARRAY_SIZE(layouts) || !b)
		return -EINVAL;
	l = &layouts[fmt];
	*b = (struct nxsim_spte_bits){
		.pfn = spte_to_pfn(spte),
		.other = spte & ~named_bits(l),
		.memtype = get(spte, l->memtype),
		.ad_type = get(spte, l->ad_type),
		.readable = get(spte, l->readable),
		.writable = get(spte, l->writable),
		.exec = get(spte, l->exec) != l->exec_inverted,
		.user = get(spte, l->user),
		.accessed = get(spte, l->accessed),
		.dirty = get(spte, l->dirty),
		.large = get(spte, l->large),
		.global = get(spte, l->global),
		.ipat = get(spte, l->ipat),
		.user_exec = get(spte, l->user_exec),
		.suppress_ve = get(spte, l->suppress_ve),
		.host_writable = get(spte, l->host_writable),
		.mmu_writable = get(spte, l->mmu_writable),
		.mmu_present = get(spte, l->mmu_present),
	};
	return 0;
}

int nxsim_spte_encode(enum nxsim_spte_format fmt,
		      const struct nxsim_spte_bits *b, uint64_t *spte)
{
	const struct layout *l;
	uint64_t v = 0;
	bool ok;

	if ((unsigned int)fmt >= ARRAY_SIZE(layouts) || !b || !spte)
		return -EINVAL;
	l = &layouts[fmt];
	if (b->pfn > (SPTE_BASE_ADDR_MASK >> 12) || (b->other & named_bits(l)))
		return -EINVAL;
	ok = put(&v, l->memtype, b->memtype) &&
	     put(&v, l->ad_type, b->ad_type) &&
	     put(&v, l->readable, b->readable) &&
	     put(&v, l->writable, b->writable) &&
	     put(&v, l->exec, b->exec != l->exec_inverted) &&
	     put(&v, l->user, b->user) && put(&v, l->accessed, b->accessed) &&
	     put(&v, l->dirty, b->dirty) && put(&v, l->large, b->large) &&
	     put(&v, l->global, b->global) && put(&v, l->ipat, b->ipat) &&
	     put(&v, l->user_exec, b->user_exec) &&
	     put(&v, l->suppress_ve, b->suppress_ve) &&
	     put(&v, l->host_writable, b->host_writable) &&
	     put(&v, l->mmu_writable, b->mmu_writable) &&
	     put(&v, l->mmu_present, b->mmu_present);
	if (!ok)
		return -EINVAL;
	*spte = v | b->other | (b->pfn << 12);
	return 0;
}

void nxsim__kvm_mmu_set_mmio_spte_mask(enum nxsim_spte_format f,
				       unsigned int phys_bits, bool allow,
				       struct nxsim__mmio_masks *m)
{
	uint64_t value, mask;

	if (f == NXSIM_SPTE_EPT) {
		/* VMX_EPT_MISCONFIG_WX_VALUE, VMX_EPT_RWX_MASK | SVE */
		value = BIT(1) | BIT(2);
		mask = BIT(0) | BIT(1) | BIT(2) | BIT(63);
		m->access_mask = 0;
	} else {
		/* No reserved PA bit when MAXPHYADDR is 52. */
		value = phys_bits < 52 ? BIT(51) | BIT(0) : 0;
		mask = value;
		m->access_mask = ACC_WRITE_MASK | ACC_USER_MASK;
	}
	if (!allow)
		value = 0;
	m->value = value;
	m->mask = mask;
	m->enabled = value != 0;
	/* GENMASK_ULL(low_phys_bits - 1, PAGE_SHIFT) */
	m->gfn_mask = ((1ull << phys_bits) - 1) & ~0xfffull;
}

/* generation_mmio_spte_mask() */
static uint64_t generation_mmio_spte_mask(uint64_t gen)
{
	uint64_t low = gen & ((1ull << MMIO_SPTE_GEN_LOW_BITS) - 1);
	uint64_t high = (gen & MMIO_SPTE_GEN_MASK) >> MMIO_SPTE_GEN_LOW_BITS;

	return low << MMIO_SPTE_GEN_LOW_START |
	       high << MMIO_SPTE_GEN_HIGH_START;
}

uint64_t nxsim__get_mmio_spte_generation(uint64_t spte)
{
	uint64_t low = (spte >> MMIO_SPTE_GEN_LOW_START) &
		       ((1ull << MMIO_SPTE_GEN_LOW_BITS) - 1);
	uint64_t high = (spte >> MMIO_SPTE_GEN_HIGH_START) &
			((1ull << MMIO_SPTE_GEN_HIGH_BITS) - 1);

	return low | high << MMIO_SPTE_GEN_LOW_BITS;
}

uint64_t nxsim__make_mmio_spte(const struct nxsim__mmio_masks *m, uint64_t gen,
			       uint64_t gfn, unsigned int access)
{
	uint64_t spte = generation_mmio_spte_mask(gen & MMIO_SPTE_GEN_MASK);

	WARN_ON(!m->value);
	return spte | m->value | (access & m->access_mask) | gfn << 12;
}

bool nxsim__is_executable_pte(enum nxsim_spte_format f, uint64_t spte)
{
	const struct nxsim__spte_masks *m = &masks[f];

	return (spte & (m->x | m->nx)) == m->x;
}

bool nxsim__is_mmu_writable_spte(enum nxsim_spte_format f, uint64_t spte)
{
	return spte & masks[f].mmu_writable;
}

uint64_t nxsim__make_spte(enum nxsim_spte_format f, int level, uint64_t pfn,
			  unsigned int access, bool host_writable,
			  bool nx_huge_page_enabled)
{
	const struct nxsim__spte_masks *m = &masks[f];
	uint64_t spte = SPTE_MMU_PRESENT_MASK | m->present | m->accessed;

	if (level > NXSIM_PG_LEVEL_4K && (access & ACC_EXEC_MASK) &&
	    nx_huge_page_enabled)
		access &= ~ACC_EXEC_MASK;
	spte |= (access & ACC_EXEC_MASK) ? m->x : m->nx;
	if (access & ACC_USER_MASK)
		spte |= m->user;
	if (level > NXSIM_PG_LEVEL_4K)
		spte |= PT_PAGE_SIZE_MASK;
	spte |= m->memtype;
	if (host_writable)
		spte |= m->host_writable;
	else
		access &= ~ACC_WRITE_MASK;
	spte |= pfn << 12;
	if (access & ACC_WRITE_MASK)
		spte |= PT_WRITABLE_MASK | m->mmu_writable | m->dirty;
	return spte;
}

uint64_t nxsim__make_nonleaf_spte(enum nxsim_spte_format f, uint64_t pfn)
{
	const struct nxsim__spte_masks *m = &masks[f];

	return SPTE_MMU_PRESENT_MASK | (pfn << 12) | m->present |
	       PT_WRITABLE_MASK | m->user | m->x | m->accessed;
}

/* make_spte_executable(): clear NX, set X. */
static uint64_t make_spte_executable(enum nxsim_spte_format f, uint64_t spte)
{
	return (spte & ~masks[f].nx) | masks[f].x;
}

/* Two SPTEs, one 16-byte store. */
typedef uint64_t spte_pair __attribute__((vector_size(16)));

void nxsim__make_split_sptes(enum nxsim_spte_format f, uint64_t huge_spte,
			     int child_level, bool nx_huge_page_enabled,
			     uint64_t *spt)
{
	uint64_t child = huge_spte, step = KVM_PAGES_PER_HPAGE(child_level)
					   << 12;
	spte_pair lo, hi, inc = { 4 * step, 4 * step };
	unsigned int i;

	if (child_level == NXSIM_PG_LEVEL_4K) {
		child &= ~PT_PAGE_SIZE_MASK;
		/* The role of a TDP SP always allows exec (ACC_ALL). */
		if (nx_huge_page_enabled)
			child = make_spte_executable(f, child);
	}
	/*
	 * Child i is child + i * step: four children per round in two
	 * independent pairs, so the fill runs at store bandwidth (4x a
	 * loop of single stores on the reference machine).
	 */
	lo = (spte_pair){ child, child + step };
	hi = (spte_pair){ child + 2 * step, child + 3 * step };
	for (i = 0; i < SPTE_ENT_PER_PAGE; i += 4) {
		memcpy(&spt[i], &lo, sizeof(lo));
		memcpy(&spt[i + 2], &hi, sizeof(hi));
		lo += inc;
		hi += inc;
	}
}

uint64_t nxsim__make_huge_spte(enum nxsim_spte_format f, uint64_t small_spte,
			       int level, bool nx_huge_page_enabled)
{
	uint64_t huge = small_spte | PT_PAGE_SIZE_MASK;
	uint64_t pfn = spte_to_pfn(small_spte) &
		       ~(KVM_PAGES_PER_HPAGE(level) - 1);

	huge = (huge & ~SPTE_BASE_ADDR_MASK) | (pfn << 12);
	if (nx_huge_page_enabled)
		huge = (huge & ~masks[f].x) | masks[f].nx;
	return huge;
}
