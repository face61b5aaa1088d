// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPTE formats (arch/x86/kvm/mmu/spte.h): the SPTEs make_spte() and
 * make_nonleaf_spte() build, bit for bit, in EPT and legacy/NPT format;
 * the split children of a huge SPTE; decode/encode round trips both ways;
 * and encode's refusal of fields a format does not have.
 */
#include <stdio.h>

#include <nxsim/rng.h>

#include "common/test_util.h"
#include "core/compiler.h"
#include "mmu/spte.h"

struct made {
	enum nxsim_spte_format fmt;
	int level;
	uint64_t pfn;
	bool writable;
	bool nx;
	uint64_t spte;
};

static const struct made made[] = {
	/* SVE | MMU-W | host-W | pfn | MMU-present D A IPAT WB X W R */
	{ NXSIM_SPTE_EPT, 1, 0x1234, true, true, 0x8600000001234b77ull },
	/* 2M: PS set, X cleared by the mitigation */
	{ NXSIM_SPTE_EPT, 2, 0x1200, true, true, 0x8600000001200bf3ull },
	/* 2M with the mitigation off keeps X */
	{ NXSIM_SPTE_EPT, 2, 0x1200, true, false, 0x8600000001200bf7ull },
	/* read-only slot: no W, no MMU-W, no host-W, no D */
	{ NXSIM_SPTE_EPT, 1, 0x1234, false, true, 0x8000000001234975ull },
	/* legacy: MMU-W host-W MMU-present D A U W P, NX clear */
	{ NXSIM_SPTE_LEGACY, 1, 0x1234, true, true, 0x0000000001234e67ull },
	/* legacy 2M: PS and NX (bit 63) */
	{ NXSIM_SPTE_LEGACY, 2, 0x1200, true, true, 0x8000000001200ee7ull },
	{ NXSIM_SPTE_LEGACY, 3, 0x40000, true, true, 0x8000000040000ee7ull },
};

static void test_make_spte(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(made); i++) {
		const struct made *m = &made[i];
		uint64_t spte = nxsim__make_spte(m->fmt, m->level, m->pfn,
						 ACC_ALL, m->writable, m->nx);

		printf("# case %u: 0x%016llx\n", i, (unsigned long long)spte);
		assert_int_equal(spte, m->spte);
		assert_true(is_shadow_present_pte(spte));
		assert_int_equal(is_large_pte(spte), m->level > 1);
		assert_int_equal(nxsim__is_executable_pte(m->fmt, spte),
				 m->level == 1 || !m->nx);
	}
}

static void test_make_nonleaf(void **state)
{
	(void)state;
	assert_int_equal(nxsim__make_nonleaf_spte(NXSIM_SPTE_EPT, 0x5000),
			 0x8000000005000907ull);
	assert_int_equal(nxsim__make_nonleaf_spte(NXSIM_SPTE_LEGACY, 0x5000),
			 0x0000000005000827ull);
	/* Non-leaf entries never take exec away. */
	assert_true(nxsim__is_executable_pte(
		NXSIM_SPTE_LEGACY,
		nxsim__make_nonleaf_spte(NXSIM_SPTE_LEGACY, 1)));
}

static void test_split(void **state)
{
	static uint64_t spt[512];
	enum nxsim_spte_format f;
	unsigned int i;

	(void)state;
	for (f = NXSIM_SPTE_EPT; f <= NXSIM_SPTE_LEGACY; f++) {
		uint64_t huge2m =
			nxsim__make_spte(f, 2, 0x1200, ACC_ALL, true, true);
		uint64_t huge1g =
			nxsim__make_spte(f, 3, 0x40000, ACC_ALL, true, true);

		/* 4K children: the 4K leaves make_spte() would build, exec */
		nxsim__make_split_sptes(f, huge2m, 1, true, spt);
		for (i = 0; i < 512; i++) {
			assert_int_equal(spt[i],
					 nxsim__make_spte(f, 1, 0x1200 + i,
							  ACC_ALL, true, true));
			assert_true(nxsim__is_executable_pte(f, spt[i]));
		}
		/* 2M children stay huge and non-executable */
		nxsim__make_split_sptes(f, huge1g, 2, true, spt);
		for (i = 0; i < 512; i++)
			assert_int_equal(spt[i],
					 nxsim__make_spte(f, 2,
							  0x40000 + i * 512,
							  ACC_ALL, true, true));
		assert_false(nxsim__is_executable_pte(f, spt[3]));
		/* without the mitigation nothing changes exec */
		nxsim__make_split_sptes(f, huge2m, 1, false, spt);
		assert_false(nxsim__is_executable_pte(f, spt[0]));
	}
}

static void test_round_trip(void **state)
{
	struct nxsim_rng rng;
	enum nxsim_spte_format f;
	unsigned int i;

	(void)state;
	nxsim_rng_seed(&rng, test_seed());
	for (f = NXSIM_SPTE_EPT; f <= NXSIM_SPTE_LEGACY; f++) {
		for (i = 0; i < 20000; i++) {
			uint64_t v = nxsim_rng_next(&rng), back = 0;
			struct nxsim_spte_bits b, b2;

			if (i < ARRAY_SIZE(made))
				v = made[i].spte;
			assert_rc(nxsim_spte_decode(f, v, &b), 0);
			assert_rc(nxsim_spte_encode(f, &b, &back), 0);
			assert_int_equal(back, v);
			assert_rc(nxsim_spte_decode(f, back, &b2), 0);
			assert_memory_equal(&b, &b2, sizeof(b));
		}
	}
}

static void test_decode_fields(void **state)
{
	struct nxsim_spte_bits b;

	(void)state;
	assert_rc(nxsim_spte_decode(NXSIM_SPTE_EPT, 0x8600000001200bf3ull, &b),
		  0);
	assert_int_equal(b.pfn, 0x1200);
	assert_true(b.readable && b.writable && !b.exec && b.large);
	assert_true(b.accessed && b.dirty && b.ipat && b.suppress_ve);
	assert_true(b.host_writable && b.mmu_writable && b.mmu_present);
	assert_int_equal(b.memtype, 6);
	assert_int_equal(b.other, 0);
	assert_rc(nxsim_spte_decode(NXSIM_SPTE_LEGACY, 0x8000000001200ee7ull,
				    &b),
		  0);
	assert_true(b.readable && b.user && !b.exec && b.large && b.dirty);
	assert_int_equal(b.memtype, 0);
	/* The non-present value: EPT suppress-#VE; legacy NX */
	assert_rc(nxsim_spte_decode(NXSIM_SPTE_EPT, NXSIM_SPTE_NONPRESENT, &b),
		  0);
	assert_true(b.suppress_ve && !b.mmu_present);
	assert_rc(nxsim_spte_decode(NXSIM_SPTE_LEGACY, NXSIM_SPTE_NONPRESENT,
				    &b),
		  0);
	assert_true(!b.exec && !b.mmu_present);
}

static void test_encode_rejects(void **state)
{
	struct nxsim_spte_bits b = { 0 };
	uint64_t v = 0;

	(void)state;
	b.user = true; /* EPT has no U bit */
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_EPT, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .ipat = true };
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_LEGACY, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .suppress_ve = true };
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_LEGACY, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .memtype = 4 }; /* 2 bits in legacy */
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_LEGACY, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .pfn = 1ull << 40 };
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_EPT, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .other = 1ull << 11 };
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_EPT, &b, &v), -EINVAL);
	b = (struct nxsim_spte_bits){ .ad_type = 4 };
	assert_rc(nxsim_spte_encode(NXSIM_SPTE_EPT, &b, &v), -EINVAL);
	assert_rc(nxsim_spte_encode(2, &b, &v), -EINVAL);
	assert_rc(nxsim_spte_decode(2, 0, &b), -EINVAL);
	assert_rc(nxsim_spte_decode(NXSIM_SPTE_EPT, 0, NULL), -EINVAL);
	assert_int_equal(v, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_spte),
		cmocka_unit_test(test_make_nonleaf),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_encode_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
