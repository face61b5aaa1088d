// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dirty log (src/mmu/dirty_log.c, 6.1): KVM_ENABLE_CAP of
 * KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2, KVM_GET_DIRTY_LOG and
 * KVM_CLEAR_DIRTY_LOG with the kernel's argument checks (every errno
 * leaves the bitmap, the SPTEs and the stats as they were), what logs a
 * page (a writable 4K SPTE made by a fault, the fast path restoring W, a
 * PML write setting D), kvm_arch_mmu_enable_log_dirty_pt_masked() step by
 * step with KVM_DIRTY_LOG_INITIALLY_SET (no split at enable, the split of
 * the huge pages under a cleared range with kvm.eager_page_split, the 2M
 * write protection without it), on EPT (D cleared) and NPT (W cleared),
 * on the TDP MMU and the legacy MMU's rmaps, and allocation failures of
 * the bitmap and of the split.
 */
#include "common/test_util.h"
#include "mmu_unit.h"

#define SLOT_PAGES 1124ull /* 2 huge pages + 100: not a multiple of 64 */

static struct nx_env env_profile(const char *profile, bool amd, bool legacy,
				 const char *cmdline)
{
	struct nxsim_host_config cfg = {
		.profile = profile,
		.cmdline = cmdline,
		.cpu = { .amd = amd, .no_tdp_mmu = legacy },
	};

	return nx_env_config(&cfg);
}

static struct nx_env env(bool amd, bool legacy, const char *cmdline)
{
	return env_profile("6.1", amd, legacy, cmdline);
}

static void slot1(struct nxsim_vm *vm, uint32_t flags)
{
	nx_slot(vm, 1, 0, SLOT_PAGES << 12, HVA_BASE, NXSIM_PG_LEVEL_2M, flags);
}

static int enable_cap(struct nxsim_vm *vm, uint32_t flags, uint64_t arg0)
{
	uint64_t args[4] = { arg0 };

	return nxsim_vm_enable_cap(vm, NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
				   flags, args, false);
}

/* The slot's bitmap as words (without touching it). */
static const uint64_t *bitmap_of(struct nx_env *e, uint32_t id)
{
	struct nxsim__memslot *s = nxsim__id_to_memslot(unit_mmu(e), 0, id);

	assert_non_null(s);
	return s->dirty_bitmap;
}

static unsigned int bits_set(const uint64_t *bm, uint64_t from, uint64_t to)
{
	unsigned int n = 0;

	for (; from < to; from++)
		n += !!(bm[from / 64] & (1ull << (from % 64)));
	return n;
}

static bool bit(const uint64_t *bm, uint64_t i)
{
	return bm[i / 64] & (1ull << (i % 64));
}

/* 4K leaves of the 2M region at @gpa with @mask set (@set) or clear. */
static unsigned int leaves_4k(struct nxsim__vm_mmu *mmu, uint64_t gpa,
			      uint64_t mask, bool set, uint64_t first,
			      uint64_t last)
{
	unsigned int n = 0;
	uint64_t i;

	for (i = first; i <= last; i++) {
		uint64_t spte =
			*unit_sptep(mmu, gpa + (i << 12), NXSIM_PG_LEVEL_4K);

		n += !!(spte & mask) == set;
	}
	return n;
}

static char dump_a[1 << 16], dump_b[1 << 16];

static void snapshot(struct nxsim_vm *vm, char *buf)
{
	assert_true(nxsim_vm_dump_buf(vm, buf, sizeof(dump_a)) <
		    (int64_t)sizeof(dump_a));
}

/* Every errno path of the three calls changes nothing. */
static void test_dirty_log_args(void **state)
{
	static const uint64_t ones[32] = {
		~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
		~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
		~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
	};
	static const struct {
		uint32_t slot;
		uint64_t first;
		uint32_t num;
		bool null;
		int rc;
	} clear[] = {
		{ 1 | 2u << 16, 0, 64, false, -EINVAL }, /* as_id 2 */
		{ NXSIM_USER_MEM_SLOTS, 0, 64, false, -EINVAL },
		{ 1, 1, 64, false, -EINVAL },		 /* first & 63 */
		{ 1, 32, 64, false, -EINVAL },		 /* first & 63 */
		{ 2, 0, 64, false, -ENOENT },		 /* no dirty logging */
		{ 7, 0, 64, false, -ENOENT },		 /* no slot */
		{ 1 | 1u << 16, 0, 64, false, -ENOENT }, /* SMM space */
		{ 1, 1152, 0, false, -EINVAL },		 /* first > npages */
		{ 1, 1088, 64, false, -EINVAL },	 /* past the end */
		{ 1, 0, 1125, false, -EINVAL },		 /* past the end */
		{ 1, 0, 63, false, -EINVAL },	/* short, not 64-aligned */
		{ 1, 64, 100, false, -EINVAL }, /* short, not 64-aligned */
		{ 1, 0, 64, true, -EFAULT },	/* copy_from_user() */
		/* the calls that change nothing and succeed */
		{ 1, 1088, 0, true, 0 },  /* num 0, NULL bitmap */
		{ 1, 1088, 0, false, 0 }, /* num 0 */
	};
	static const struct {
		uint32_t flags;
		uint64_t arg0;
	} cap[] = {
		{ 1, 1 },			      /* cap->flags */
		{ 0, NXSIM_DIRTY_LOG_INITIALLY_SET }, /* without ENABLE */
		{ 0, 4 },
		{ 0, 1 | 4 },
	};
	struct nx_env e = env(false, false, NULL);
	uint64_t words[32], before[18];
	unsigned int i;

	(void)state;
	slot1(e.vm, NXSIM_MEM_LOG_DIRTY_PAGES);
	nx_slot(e.vm, 2, 8 * MIB2, MIB2, HVA_BASE + GIB, NXSIM_PG_LEVEL_2M, 0);
	assert_rc(enable_cap(e.vm, 0, 1), 0);
	nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x5000);
	nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 1123 << 12);
	memcpy(before, bitmap_of(&e, 1), sizeof(before));
	assert_int_equal(bits_set(before, 0, SLOT_PAGES), 2);
	snapshot(e.vm, dump_a);
	for (i = 0; i < ARRAY_SIZE(clear); i++) {
		printf("# clear %u\n", i);
		assert_rc(nxsim_vm_clear_dirty_log(e.vm, clear[i].slot,
						   clear[i].first, clear[i].num,
						   clear[i].null ? NULL : ones),
			  clear[i].rc);
		assert_memory_equal(bitmap_of(&e, 1), before, sizeof(before));
		snapshot(e.vm, dump_b);
		assert_string_equal(dump_a, dump_b);
	}
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, NULL), -EINVAL);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 2, words), -ENOENT);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1 | 2u << 16, words), -EINVAL);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, NXSIM_USER_MEM_SLOTS, words),
		  -EINVAL);
	for (i = 0; i < ARRAY_SIZE(cap); i++)
		assert_rc(enable_cap(e.vm, cap[i].flags, cap[i].arg0), -EINVAL);
	/* still manual: GET leaves everything as it was */
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
	assert_memory_equal(words, before, sizeof(before));
	assert_memory_equal(bitmap_of(&e, 1), before, sizeof(before));
	snapshot(e.vm, dump_b);
	assert_string_equal(dump_a, dump_b);
	assert_int_equal(nxsim_vm_check_extension(
				 e.vm, NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2),
			 3);
	/* the partial last word: the range ends at the end of the slot */
	assert_rc(nxsim_vm_clear_dirty_log(e.vm, 1, 1088, 36, ones), 0);
	assert_false(bit(bitmap_of(&e, 1), 1123));
	assert_true(bit(bitmap_of(&e, 1), 5));
	nx_env_destroy(&e);
}

/*
 * Without manual protection GET takes the bits and protects the pages
 * again; a read fault that maps a page writable logs it (make_spte());
 * with manual protection GET only reads.  EPT: D cleared, PML logs the
 * next write; NPT: W cleared, the fast path logs it.
 */
static void test_dirty_log_get(void **state)
{
	static const struct {
		bool amd, legacy;
		int again; /* the outcome of the write after GET */
	} cases[] = {
		{ false, false, NXSIM_ACCESS_HIT },
		{ true, false, NXSIM_ACCESS_FAST },
		{ false, true, NXSIM_ACCESS_HIT },
		{ true, true, NXSIM_ACCESS_FAST },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = env(cases[i].amd, cases[i].legacy, NULL);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t words[18], d = nxsim__spte_masks(mmu->fmt)->dirty;
		uint64_t flip = cases[i].amd ? PT_WRITABLE_MASK : d;
		struct nxsim_access_info info;

		printf("# case %u\n", i);
		nx_slot(e.vm, 1, 0, SLOT_PAGES << 12, HVA_BASE,
			NXSIM_PG_LEVEL_4K, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0x5000);
		slot1(e.vm, NXSIM_MEM_LOG_DIRTY_PAGES);
		/* enabling protected the leaf; nothing logged yet */
		assert_false(*unit_sptep(mmu, 0x5000, 1) & flip);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 0, SLOT_PAGES), 0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x5000);
		assert_int_equal(info.outcome, cases[i].again);
		/* make_spte(): a read fault maps writable, and logs */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0x9000);
		assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
		assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
		assert_int_equal(words[0], (1ull << 5) | (1ull << 9));
		assert_int_equal(bits_set(words, 0, SLOT_PAGES), 2);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 0, SLOT_PAGES), 0);
		assert_false(*unit_sptep(mmu, 0x5000, 1) & flip);
		assert_false(*unit_sptep(mmu, 0x9000, 1) & flip);
		assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
		assert_int_equal(bits_set(words, 0, SLOT_PAGES), 0);
		/* a hit on a leaf with D (EPT) or W (NPT) set logs nothing */
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x5000);
		assert_int_equal(info.outcome, cases[i].again);
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x5000);
		assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
		assert_int_equal(bitmap_of(&e, 1)[0], 1ull << 5);

		/* manual protection: GET reads, twice the same */
		assert_rc(enable_cap(e.vm, 0,
				     NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE),
			  0);
		assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
		assert_int_equal(words[0], 1ull << 5);
		assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
		assert_int_equal(words[0], 1ull << 5);
		assert_true(*unit_sptep(mmu, 0x5000, 1) & flip);
		/* CLEAR protects it again */
		words[0] = ~0ull;
		assert_rc(nxsim_vm_clear_dirty_log(e.vm, 1, 0, 64, words), 0);
		assert_int_equal(bitmap_of(&e, 1)[0], 0);
		assert_false(*unit_sptep(mmu, 0x5000, 1) & flip);
		/* turned off: no bitmap, no log */
		slot1(e.vm, 0);
		assert_null(bitmap_of(&e, 1));
		assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), -ENOENT);
		nx_env_destroy(&e);
	}
}

/*
 * KVM_DIRTY_LOG_INITIALLY_SET on the TDP MMU: turning logging on splits
 * and protects nothing; CLEAR of pages 0-63 splits the first huge page
 * (eager split) and clears D (EPT) or W (NPT) on those 64 leaves only,
 * or, without eager split, write-protects the huge leaf.
 */
static void test_dirty_log_initially_set(void **state)
{
	static const struct {
		bool amd;
		const char *cmdline;
		uint64_t p4k, p2m; /* after CLEAR of 0-63 */
		int write;	   /* a write to page 1 after */
		uint64_t p4k_after, p2m_after;
	} cases[] = {
		{ false, NULL, 512, 1, NXSIM_ACCESS_HIT, 512, 1 },
		{ true, NULL, 512, 1, NXSIM_ACCESS_FAST, 512, 1 },
		/* the huge leaf write-protected: a 4K fault (6.1 zaps it) */
		{ false, "kvm.eager_page_split=0", 0, 2, NXSIM_ACCESS_FAULT, 1,
		  1 },
		{ true, "kvm.eager_page_split=0", 0, 2, NXSIM_ACCESS_FAULT, 1,
		  1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = env(cases[i].amd, false, cases[i].cmdline);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty;
		uint64_t flip = cases[i].amd ? PT_WRITABLE_MASK : d;
		uint64_t words[18] = { ~0ull }, *huge;
		struct nxsim_access_info info;

		printf("# case %u\n", i);
		slot1(e.vm, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, MIB2);
		nx_expect(e.vm, 0, 2, 0, 0);
		assert_rc(enable_cap(e.vm, 0, 3), 0);
		slot1(e.vm, NXSIM_MEM_LOG_DIRTY_PAGES);
		/* no split, no protection, every page dirty */
		nx_expect(e.vm, 0, 2, 0, 0);
		assert_true(*unit_sptep(mmu, 0, 2) & PT_WRITABLE_MASK);
		assert_true(*unit_sptep(mmu, 0, 2) & d);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 0, SLOT_PAGES),
				 SLOT_PAGES);

		assert_rc(nxsim_vm_clear_dirty_log(e.vm, 1, 0, 64, words), 0);
		nx_expect(e.vm, cases[i].p4k, cases[i].p2m, 0, 0);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 0, 64), 0);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 64, SLOT_PAGES),
				 SLOT_PAGES - 64);
		/* the second huge page untouched */
		assert_true(*unit_sptep(mmu, MIB2, 2) & PT_WRITABLE_MASK);
		assert_true(*unit_sptep(mmu, MIB2, 2) & d);
		huge = unit_sptep(mmu, 0, cases[i].p4k ? 3 : 2);
		if (cases[i].p4k) {
			/* exactly pages 0-63 lost D (EPT) or W (NPT) */
			assert_int_equal(leaves_4k(mmu, 0, flip, false, 0, 63),
					 64);
			assert_int_equal(leaves_4k(mmu, 0, flip, true, 64, 511),
					 448);
			assert_int_equal(leaves_4k(mmu, 0, PT_WRITABLE_MASK,
						   true, 64, 511),
					 448);
		} else {
			/* kvm_mmu_slot_gfn_write_protect() at 2M */
			assert_false(*huge & PT_WRITABLE_MASK);
			assert_false(
				nxsim__is_mmu_writable_spte(mmu->fmt, *huge));
		}
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x1000);
		assert_int_equal(info.outcome, cases[i].write);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_expect(e.vm, cases[i].p4k_after, cases[i].p2m_after, 0, 0);
		assert_int_equal(bitmap_of(&e, 1)[0], 1ull << 1);
		nx_env_destroy(&e);
	}
}

/*
 * The split range of a word ends at its last set gfn, exclusive, in 6.1
 * (kvm_mmu_try_split_huge_pages(kvm, slot, start, end, ...)): one bit at
 * a 2 MiB boundary splits nothing, and the huge leaf is write-protected
 * instead; from 1aa4bb916808 (6.8) it ends after the last set gfn
 * (end + 1), so that bit splits its huge page.  The legacy MMU never
 * splits (TDP MMU only).
 */
static void test_dirty_log_masked_edges(void **state)
{
	/* each 2 MiB region after: split, huge writable, huge protected */
	enum { S, W, P };
	static const struct {
		const char *profile;
		bool legacy;
		uint64_t first, mask;
		int region[2];
	} cases[] = {
		/* [start, end): walked from start rounded down to 2M */
		{ "6.1", false, 0, 1, { P, W } },	     /* [0, 0): none */
		{ "6.1", false, 0, 3, { S, W } },	     /* [0, 1) */
		{ "6.1", false, 512, 1ull << 63, { W, S } }, /* [575, 575) */
		{ "6.1", false, 448, 1ull << 63, { S, W } }, /* [511, 511) */
		{ "6.1", false, 512, 1, { W, P } },	     /* [512, 512) */
		{ "6.1", true, 0, ~0ull, { P, W } },
		{ "6.1", true, 960, ~0ull, { W, P } },
		{ "6.6", false, 0, 1, { P, W } },    /* [0, 0) */
		{ "6.12", false, 0, 1, { S, W } },   /* [0, 1) */
		{ "6.12", false, 512, 1, { W, S } }, /* [512, 513) */
		{ "6.18", false, 0, 1, { S, W } },
		{ "6.18", true, 0, ~0ull, { P, W } },
	};
	unsigned int i, r;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = env_profile(cases[i].profile, false,
					      cases[i].legacy, NULL);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t word = cases[i].mask, p4k = 0, p2m = 0;

		printf("# case %u\n", i);
		slot1(e.vm, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, MIB2);
		assert_rc(enable_cap(e.vm, 0, 3), 0);
		slot1(e.vm, NXSIM_MEM_LOG_DIRTY_PAGES);
		assert_rc(nxsim_vm_clear_dirty_log(e.vm, 1, cases[i].first, 64,
						   &word),
			  0);
		for (r = 0; r < 2; r++) {
			uint64_t spte = *unit_sptep(mmu, r * MIB2, 2);

			if (cases[i].region[r] == S) {
				p4k += 512;
				assert_false(is_last_spte(spte, 2));
				continue;
			}
			p2m++;
			assert_true(is_last_spte(spte, 2));
			assert_int_equal(!!(spte & PT_WRITABLE_MASK),
					 cases[i].region[r] == W);
		}
		nx_expect(e.vm, p4k, p2m, 0, 0);
		assert_int_equal(bits_set(bitmap_of(&e, 1), 0, SLOT_PAGES),
				 SLOT_PAGES - __builtin_popcountll(word));
		nx_env_destroy(&e);
	}
}

/*
 * kvm_prepare_memory_region(): a move keeps the bitmap (no allocation,
 * the bits as they were, now of the moved gfns); a move that turns
 * logging on gets a new one, all set with INITIALLY_SET; turning it off
 * frees it.
 */
static void test_dirty_log_move(void **state)
{
	struct nxsim_memory_region mr = {
		.slot = 1,
		.flags = NXSIM_MEM_LOG_DIRTY_PAGES,
		.guest_phys_addr = 0,
		.memory_size = SLOT_PAGES << 12,
		.userspace_addr = HVA_BASE,
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	struct nx_env e = env(false, false, NULL);
	uint64_t words[18], live;

	(void)state;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x3000);
	live = test_live_allocs();
	mr.guest_phys_addr = 4 * GIB;
	nxsim_alloc_fail_nth(5); /* past the new slot's four */
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_true(nxsim_alloc_fail_pending());
	nxsim_alloc_fail_nth(0);
	assert_int_equal(test_live_allocs(), live);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
	assert_int_equal(words[0], 1ull << 3);
	assert_int_equal(bits_set(words, 0, SLOT_PAGES), 1);
	/* the gfns moved: a write to the new page 3 logs it again */
	nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB + 0x7000);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
	assert_int_equal(words[0], 1ull << 7);
	/* off, then a move turning it on with INITIALLY_SET */
	mr.flags = 0;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), -ENOENT);
	assert_rc(enable_cap(e.vm, 0, 3), 0);
	mr.flags = NXSIM_MEM_LOG_DIRTY_PAGES;
	mr.guest_phys_addr = 0;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_rc(nxsim_vm_get_dirty_log(e.vm, 1, words), 0);
	assert_int_equal(bits_set(words, 0, SLOT_PAGES), SLOT_PAGES);
	nx_env_destroy(&e);
}

/* Allocation failures: the bitmap, on create and on a flags change. */
struct bitmap_ctx {
	struct nx_env e;
	uint32_t id;
	uint32_t flags;
	char *dump;
};

static int set_flags(void *p)
{
	struct bitmap_ctx *c = p;
	struct nxsim_memory_region mr = {
		.slot = c->id,
		.flags = c->flags,
		.guest_phys_addr = c->id == 1 ? 0 : 8 * MIB2,
		.memory_size = c->id == 1 ? SLOT_PAGES << 12 : MIB2,
		.userspace_addr = c->id == 1 ? HVA_BASE : HVA_BASE + GIB,
		.host_level = NXSIM_PG_LEVEL_2M,
	};

	return nxsim_vm_set_memory_region(c->e.vm, &mr);
}

static void unset_flags(void *p)
{
	struct bitmap_ctx *c = p;
	uint32_t flags = c->flags;
	struct nxsim_memory_region mr = {
		.slot = c->id,
		.guest_phys_addr = 8 * MIB2,
		.userspace_addr = HVA_BASE + GIB,
	};

	if (c->id == 2) {
		/* delete the created slot */
		assert_rc(nxsim_vm_set_memory_region(c->e.vm, &mr), 0);
		return;
	}
	c->flags = 0;
	assert_rc(set_flags(c), 0);
	c->flags = flags;
}

static void same_state(void *p)
{
	struct bitmap_ctx *c = p;

	snapshot(c->e.vm, dump_b);
	assert_string_equal(c->dump, dump_b);
}

/* A second failure armed once the split has dropped mmu_lock to retry. */
static void fail_again(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
		       int level)
{
	bool *armed = ctx;

	(void)gfn;
	(void)level;
	if (p != NXSIM__SCHED_RESCHED || *armed || nxsim_alloc_fail_pending())
		return;
	*armed = true;
	nxsim_alloc_fail_nth(1);
}

static void test_dirty_log_alloc_failures(void **state)
{
	struct bitmap_ctx c = { .id = 1, .flags = NXSIM_MEM_LOG_DIRTY_PAGES };
	unsigned int n;

	(void)state;
	c.e = env(false, false, NULL);
	assert_rc(enable_cap(c.e.vm, 0, 3), 0);
	slot1(c.e.vm, 0);
	nx_access(c.e.vcpu, NXSIM_ACCESS_READ, 0);
	snapshot(c.e.vm, dump_a);
	c.dump = dump_a;
	/* flags only: kvm_alloc_dirty_bitmap() is the one allocation */
	assert_int_equal(
		test_alloc_failures(set_flags, unset_flags, same_state, &c), 1);
	/* create: the slot's metadata, then the bitmap */
	c.id = 2;
	n = test_alloc_failures(set_flags, unset_flags, same_state, &c);
	c.id = 1;
	assert_rc(set_flags(&c), 0);
	assert_int_equal(bits_set(bitmap_of(&c.e, 1), 0, SLOT_PAGES),
			 SLOT_PAGES);
	nx_env_destroy(&c.e);
	/* the slot, host levels, two lpage_info arrays, the bitmap */
	assert_int_equal(n, 5);

	/*
	 * The split of CLEAR: one failure is retried with mmu_lock
	 * dropped (the page splits), two in a row end it (the huge leaf
	 * is write-protected instead).
	 */
	for (n = 1; n <= 2; n++) {
		struct nx_env e = env(false, false, NULL);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t word = ~0ull, live;
		bool armed = n == 1;

		slot1(e.vm, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		assert_rc(enable_cap(e.vm, 0, 3), 0);
		slot1(e.vm, NXSIM_MEM_LOG_DIRTY_PAGES);
		live = test_live_allocs();
		nxsim__mmu_set_sched_hook(mmu, fail_again, &armed);
		nxsim_alloc_fail_nth(1);
		assert_rc(nxsim_vm_clear_dirty_log(e.vm, 1, 0, 64, &word), 0);
		nxsim__mmu_set_sched_hook(mmu, NULL, NULL);
		assert_true(armed);
		assert_false(nxsim_alloc_fail_pending());
		if (n == 1) {
			nx_expect(e.vm, 512, 0, 0, 0);
			assert_int_equal(test_live_allocs(), live + 2);
		} else {
			nx_expect(e.vm, 0, 1, 0, 0);
			assert_int_equal(test_live_allocs(), live);
			assert_false(*unit_sptep(mmu, 0, 2) & PT_WRITABLE_MASK);
		}
		nx_env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirty_log_args),
		cmocka_unit_test(test_dirty_log_get),
		cmocka_unit_test(test_dirty_log_initially_set),
		cmocka_unit_test(test_dirty_log_masked_edges),
		cmocka_unit_test(test_dirty_log_move),
		cmocka_unit_test(test_dirty_log_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
