// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest memory (src/mmu/guest_mem.c, <nxsim/guest.h>): the sparse store
 * of written pages behind the memory slots.  Reads of unwritten memory
 * give zeros and allocate nothing; a write allocates each 4 KiB page it
 * touches once; the bytes belong to the slot's hva, so two slots over one
 * hva share them and a moved slot keeps them; errors (no slot, wrapping
 * ranges, absurd sizes) change nothing and allocate nothing; and every
 * allocation of a write can fail with the store left as it was.
 */
#include <stdlib.h>

#include "../integration/nx_test.h"

#define MIB (1ull << 20)

static struct nx_env env(void)
{
	struct nxsim_host_config cfg = { .cpu.no_tdp = true };
	struct nx_env e = nx_env_config(&cfg);

	nx_slot(e.vm, 0, 0, 16 * MIB, HVA_BASE, 1, 0);
	return e;
}

static void done(struct nx_env *e)
{
	assert_rc(nxsim_vm_destroy(e->vm), 0);
	assert_rc(nxsim_host_destroy(e->host), 0);
}

static void test_sparse(void **state)
{
	struct nx_env e = env();
	uint8_t buf[3 * 4096], out[3 * 4096];
	uint64_t live = test_live_allocs();
	unsigned int i;

	(void)state;
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 0);
	/* unwritten memory reads as zeros and allocates nothing */
	memset(out, 0xaa, sizeof(out));
	assert_rc(nxsim_guest_read(e.vm, 5 * MIB, out, sizeof(out)), 0);
	for (i = 0; i < sizeof(out); i++)
		assert_int_equal(out[i], 0);
	assert_int_equal(test_live_allocs(), live);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 0);
	/* a write straddling three pages allocates three */
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	assert_rc(nxsim_guest_write(e.vm, MIB + 100, buf, 2 * 4096), 0);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 3);
	assert_rc(nxsim_guest_read(e.vm, MIB + 100, out, 2 * 4096), 0);
	assert_memory_equal(out, buf, 2 * 4096);
	/* the rest of those pages is zero */
	assert_rc(nxsim_guest_read(e.vm, MIB, out, 100), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(out[i], 0);
	/* writing them again allocates nothing */
	live = test_live_allocs();
	assert_rc(nxsim_guest_write(e.vm, MIB, buf, 3 * 4096), 0);
	assert_int_equal(test_live_allocs(), live);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 3);
	/* many pages: the table grows and keeps every page */
	for (i = 0; i < 300; i++)
		assert_rc(nxsim_guest_write(e.vm, 8 * MIB + i * 4096ull, &i,
					    sizeof(i)),
			  0);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 303);
	for (i = 0; i < 300; i++) {
		unsigned int v = ~0u;

		assert_rc(nxsim_guest_read(e.vm, 8 * MIB + i * 4096ull, &v,
					   sizeof(v)),
			  0);
		assert_int_equal(v, i);
	}
	assert_rc(nxsim_guest_read(e.vm, MIB, out, 3 * 4096), 0);
	assert_memory_equal(out, buf, 3 * 4096);
	/* a zero-length write is nothing */
	assert_rc(nxsim_guest_write(e.vm, 15 * MIB, buf, 0), 0);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 303);
	done(&e);
}

/* The bytes are the hva's: aliases share them, a move keeps them. */
static void test_hva_backed(void **state)
{
	struct nx_env e = env();
	struct nxsim_memory_region mr = {
		.slot = 1,
		.guest_phys_addr = GIB,
		.memory_size = 16 * MIB,
		.userspace_addr = HVA_BASE, /* the same hva as slot 0 */
	};
	uint64_t v = 0x1122334455667788ull, got = 0;

	(void)state;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_rc(nxsim_guest_write(e.vm, 0x3000, &v, sizeof(v)), 0);
	assert_rc(nxsim_guest_read(e.vm, GIB + 0x3000, &got, sizeof(got)), 0);
	assert_int_equal(got, v);
	/* one write through both aliases: one page */
	assert_rc(nxsim_guest_write(e.vm, GIB + 0x5000, &v, sizeof(v)), 0);
	assert_rc(nxsim_guest_write(e.vm, 0x5008, &v, sizeof(v)), 0);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 2);
	/* move slot 1: its bytes follow the hva */
	mr.guest_phys_addr = 2 * GIB;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	got = 0;
	assert_rc(nxsim_guest_read(e.vm, 2 * GIB + 0x5008, &got, sizeof(got)),
		  0);
	assert_int_equal(got, v);
	assert_rc(nxsim_guest_read(e.vm, GIB + 0x5008, &got, sizeof(got)),
		  -EFAULT);
	/* delete slot 0: the memory stays with the process (slot 1) */
	mr = (struct nxsim_memory_region){ .slot = 0 };
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_rc(nxsim_guest_read(e.vm, 0x3000, &got, sizeof(got)), -EFAULT);
	assert_rc(nxsim_guest_read(e.vm, 2 * GIB + 0x3000, &got, sizeof(got)),
		  0);
	assert_int_equal(got, v);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 2);
	done(&e);
}

/* Bad input: a clear errno, nothing written, nothing allocated. */
static void test_errors(void **state)
{
	struct nx_env e = env();
	uint64_t v = 0x55, live;
	struct nxsim_vm *destroyed;
	uint8_t big[8192];

	(void)state;
	memset(big, 0x77, sizeof(big));
	live = test_live_allocs();
	/* a range partly outside every slot */
	assert_rc(nxsim_guest_write(e.vm, 16 * MIB - 4096, big, sizeof(big)),
		  -EFAULT);
	assert_rc(nxsim_guest_read(e.vm, 16 * MIB - 4096, big, sizeof(big)),
		  -EFAULT);
	assert_rc(nxsim_guest_write(e.vm, GIB, &v, sizeof(v)), -EFAULT);
	/* wrapping */
	assert_rc(nxsim_guest_write(e.vm, ~0ull - 3, &v, sizeof(v)), -EINVAL);
	assert_rc(nxsim_guest_read(e.vm, ~0ull - 3, &v, sizeof(v)), -EFAULT);
	/* absurd sizes: more than the store may ever hold, not looked at */
	assert_rc(nxsim_guest_write(e.vm, 0, big, 1ull << 40), -ENOMEM);
	assert_rc(nxsim_guest_write(e.vm, 0, big,
				    (NXSIM_GUEST_MEM_MAX_BYTES) + 1),
		  -ENOMEM);
	/* NULL buffers */
	assert_rc(nxsim_guest_write(e.vm, 0, NULL, 8), -EINVAL);
	assert_rc(nxsim_guest_read(e.vm, 0, NULL, 8), -EINVAL);
	assert_rc(nxsim_guest_write(NULL, 0, &v, 8), -EINVAL);
	assert_rc(nxsim_guest_nr_pages(NULL), -EINVAL);
	/* PTE stores: size, alignment, width */
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0x1000, 1, 2), -EINVAL);
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0x1004, 1, 8), -EINVAL);
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0x1002, 1, 4), -EINVAL);
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0x1000, 1ull << 32, 4),
		  -EINVAL);
	assert_rc(nxsim_guest_write_pte(e.vcpu, GIB, 1, 8), -EFAULT);
	assert_rc(nxsim_guest_write_pte(NULL, 0x1000, 1, 8), -EINVAL);
	assert_int_equal(test_live_allocs(), live);
	assert_int_equal(nxsim_guest_nr_pages(e.vm), 0);
	/* a destroyed VM */
	destroyed = e.vm;
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_guest_write(destroyed, 0, &v, 8), -EBADF);
	assert_rc(nxsim_guest_read(destroyed, 0, &v, 8), -EBADF);
	assert_rc(nxsim_guest_nr_pages(destroyed), -EBADF);
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0, 1, 8), -EBADF);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

struct walk {
	struct nx_env e;
	uint64_t gpa;
	size_t len;
	uint8_t *buf, *before;
	int64_t pages;
};

static int op_write(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_guest_write(w->e.vm, w->gpa, w->buf, w->len);
}

static void same(void *ctx)
{
	struct walk *w = ctx;
	uint8_t *now = calloc(1, w->len);

	assert_non_null(now);
	assert_rc(nxsim_guest_read(w->e.vm, w->gpa, now, w->len), 0);
	assert_memory_equal(now, w->before, w->len);
	assert_int_equal(nxsim_guest_nr_pages(w->e.vm), w->pages);
	free(now);
}

/*
 * Every allocation of a write fails in turn: the new pages first, then
 * the table when it grows; each failure leaves bytes and count as they
 * were, and leaks nothing.
 */
static void test_write_alloc_failures(void **state)
{
	struct walk w = { .e = env() };
	unsigned int i;

	(void)state;
	w.len = 5 * 4096;
	w.buf = malloc(w.len);
	w.before = calloc(1, w.len);
	assert_non_null(w.buf);
	assert_non_null(w.before);
	for (i = 0; i < w.len; i++)
		w.buf[i] = (uint8_t)i;
	/* first write, 12 bytes into a page: six pages and the table */
	w.gpa = 2 * MIB + 12;
	w.pages = 0;
	assert_int_equal(test_alloc_failures(op_write, NULL, same, &w), 7);
	assert_int_equal(nxsim_guest_nr_pages(w.e.vm), 6);
	/* the same range again, shifted by two pages: two new pages */
	w.gpa += 2 * 4096;
	assert_rc(nxsim_guest_read(w.e.vm, w.gpa, w.before, w.len), 0);
	w.pages = 6;
	assert_int_equal(test_alloc_failures(op_write, NULL, same, &w), 2);
	assert_int_equal(nxsim_guest_nr_pages(w.e.vm), 8);
	/* growing the table: 40 pages past the first 64-entry table */
	w.gpa = 4 * MIB;
	w.len = 40 * 4096;
	w.buf = realloc(w.buf, w.len);
	free(w.before);
	w.before = calloc(1, w.len);
	assert_non_null(w.buf);
	assert_non_null(w.before);
	memset(w.buf, 0x3c, w.len);
	w.pages = 8;
	assert_int_equal(test_alloc_failures(op_write, NULL, same, &w), 41);
	assert_int_equal(nxsim_guest_nr_pages(w.e.vm), 48);
	free(w.buf);
	free(w.before);
	done(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_hva_backed),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_write_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
