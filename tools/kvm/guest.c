// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vCPU of nxsim-kvm: flat 32-bit protected mode with paging off, or
 * the paging mode the script loads (KVM_SET_SREGS), and one instruction
 * snippet per access, run to its HLT (KVM_EXIT_HLT: no in-kernel APIC).
 *
 * The code slot (KT_CODE_SLOT at KT_CODE_GPA, 4K pages, docs/kcheck.md):
 *   page 0  the snippets at 0x000-0x0ff, the exception handler (a HLT)
 *           at 0x100, a 32-bit IDT at 0x800, a 64-bit one at 0x900, the
 *           GDT at 0xc00
 *   page 1  the stack
 *   page 2  PDPT (64-bit): [511] -> page 3
 *   page 3  PD (64-bit, PAE): [504] -> page 4
 *   page 4  PT (8-byte entries): [0..7] -> pages 0..7, [16..] windows
 *   page 5  PT (4-byte entries, 32-bit paging): the same
 * With paging on, one entry of the guest's top table (PML4[511],
 * PDPTE[3] or PDE[0x3fc]) points into these, so the slot is at
 * 0xff000000 (0xffffffffff000000 in 64-bit mode).  The guest's own
 * stores of page-table entries go through a window: a PTE of page 4 or 5
 * the tool points at the entry's page.
 *
 * The model sees all of it: the slot and its tables as "#=" guest writes
 * when the VM is made, the snippet's fetch (and, with TDP and paging
 * on, the hardware walk's table reads) before each access.
 *
 * An exec access runs the target itself: the VMM puts a HLT there
 * (restored after; KVM does not see the VMM's copy) and RIP points at it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/kvm.h>

#include "kvm.h"
#include "numarg.h"

/* snippet offsets in page 0 */
#define SN_HLT 0x000
#define SN_READ 0x010
#define SN_WRITE 0x020
#define SN_PTE4 0x030
#define SN_PTE8_64 0x040
#define SN_PTE8_32 0x050
#define SN_INVLPG 0x060
#define SN_MOVCR3 0x070
#define SN_HANDLER 0x100
#define IDT32 0x800
#define IDT64 0x900
#define GDT 0xc00
#define STACK_TOP 0x1f00

static const struct {
	unsigned int off;
	unsigned char bytes[8];
	unsigned int len;
} snippets[] = {
	{ SN_HLT, { 0xf4 }, 1 },
	{ SN_READ, { 0x8a, 0x06, 0xf4 }, 3 },		  /* mov al,[rsi] */
	{ SN_WRITE, { 0x88, 0x06, 0xf4 }, 3 },		  /* mov [rsi],al */
	{ SN_PTE4, { 0x8b, 0x3e, 0x89, 0x06, 0xf4 }, 5 }, /* mov edi,[rsi];
							     mov [rsi],eax */
	{ SN_PTE8_64, { 0x8b, 0x3e, 0x48, 0x89, 0x06, 0xf4 }, 6 },
	{ SN_PTE8_32,
	  { 0x8b, 0x3e, 0x0f, 0xc7, 0x0e, 0xf4 },
	  6 },					      /* cmpxchg8b */
	{ SN_INVLPG, { 0x0f, 0x01, 0x3e, 0xf4 }, 4 }, /* invlpg */
	{ SN_MOVCR3, { 0x0f, 0x22, 0xd8, 0xf4 }, 4 }, /* mov cr3,rax */
	{ SN_HANDLER, { 0xf4 }, 1 },
};

#define TBL_P 0x1ull
#define TBL_RW 0x2ull
#define TBL_PS 0x80ull
#define TBL_A 0x20ull
#define TBL_D 0x40ull
#define ADDR_MASK 0x000ffffffffff000ull

enum mode { M_NONPAGING, M_32, M_PAE, M_64 };

static enum mode mode_of(const struct kt_paging *p)
{
	if (!p->pg)
		return M_NONPAGING;
	if (p->lma)
		return M_64;
	return p->pae ? M_PAE : M_32;
}

static uint64_t code_lin(const struct kt_vcpu *c)
{
	return mode_of(&c->p) == M_64 ? KT_CODE_LIN64 : KT_CODE_LIN32;
}

static void put64(void *page, unsigned int idx, uint64_t v)
{
	memcpy((char *)page + idx * 8, &v, 8);
}

/* A table entry of the code slot, also written on the model. */
static void tool_entry(struct kt_vm *vm, uint64_t gpa, uint64_t v,
		       unsigned int size, bool after, struct kt_out *o)
{
	void *p = kt_hva(vm, gpa, size);

	memcpy(p, &v, size);
	if (after)
		kt_post(o,
			"#+ guest write %s 0x%" PRIx64 " 0x%" PRIx64
			" size=%u\n",
			vm->name, gpa, v, size);
	else
		kt_pre(o,
		       "#= guest write %s 0x%" PRIx64 " 0x%" PRIx64
		       " size=%u\n",
		       vm->name, gpa, v, size);
}

static void gate32(void *idt, unsigned int v, uint32_t off)
{
	uint64_t g = (off & 0xffffull) | (0x08ull << 16) | (0x8eull << 40) |
		     ((uint64_t)(off >> 16) << 48);

	put64(idt, v, g);
}

static void gate64(void *idt, unsigned int v, uint64_t off)
{
	uint64_t lo = (off & 0xffffull) | (0x18ull << 16) | (0x8eull << 40) |
		      (((off >> 16) & 0xffffull) << 48);

	put64(idt, 2 * v, lo);
	put64(idt, 2 * v + 1, off >> 32);
}

int kt_code_slot(struct kt_vm *vm, struct kt_out *o)
{
	struct kt_slot n = {
		.id = KT_CODE_SLOT,
		.gpa = KT_CODE_GPA,
		.size = KT_CODE_SIZE,
		.hva = ((uint64_t)(KT_CODE_SLOT & 0xffff) + 1) << 32,
	};
	char *page;
	unsigned int i;
	int rc = kt_add_slot(vm, &n, o);

	if (rc)
		return rc;
	kt_post(o, "#+ memslot add %s %u 0x%llx 0x%llx\n", vm->name,
		KT_CODE_SLOT, KT_CODE_GPA, KT_CODE_SIZE);
	page = kt_hva(vm, KT_CODE_GPA, 4096);
	for (i = 0; i < NXSIM__DRV_NELEM(snippets); i++)
		memcpy(page + snippets[i].off, snippets[i].bytes,
		       snippets[i].len);
	for (i = 0; i < 32; i++) {
		gate32(page + IDT32, i, KT_CODE_LIN32 + SN_HANDLER);
		gate64(page + IDT64, i, KT_CODE_LIN64 + SN_HANDLER);
	}
	put64(page + GDT, 1, 0x00cf9b000000ffffull); /* 0x08 code32 */
	put64(page + GDT, 2, 0x00cf93000000ffffull); /* 0x10 data */
	put64(page + GDT, 3, 0x00af9b000000ffffull); /* 0x18 code64 */
	/* the tables: present, writable, accessed (and dirty leaves) */
	tool_entry(vm, KT_CODE_GPA + 2 * 4096 + 511 * 8,
		   (KT_CODE_GPA + 3 * 4096) | TBL_P | TBL_RW | TBL_A, 8, true,
		   o);
	tool_entry(vm, KT_CODE_GPA + 3 * 4096 + 504 * 8,
		   (KT_CODE_GPA + 4 * 4096) | TBL_P | TBL_RW | TBL_A, 8, true,
		   o);
	for (i = 0; i < KT_CODE_PAGES; i++) {
		uint64_t pte = (KT_CODE_GPA + i * 4096) | TBL_P | TBL_RW |
			       TBL_A | TBL_D;

		tool_entry(vm, KT_CODE_GPA + 4 * 4096 + i * 8, pte, 8, true, o);
		tool_entry(vm, KT_CODE_GPA + 5 * 4096 + i * 4, pte, 4, true, o);
	}
	return 0;
}

/* ---- the guest's page tables, read through the VMM's mapping ---- */

static int read_entry(struct kt_vm *vm, uint64_t gpa, unsigned int size,
		      uint64_t *v)
{
	void *p = kt_hva(vm, gpa, size);

	*v = 0;
	if (!p)
		return -EFAULT;
	memcpy(v, p, size);
	return 0;
}

/*
 * The walk the guest's MMU does for @gva: the gpas of the tables it reads
 * go to @tables (at most 5), the translation to *@gpa.  -EFAULT when an
 * entry is not present (the guest faults).  No A/D bit is set: a
 * software walk (KVM_TRANSLATE would set them).
 */
static int walk(struct kt_vcpu *c, uint64_t gva, uint64_t *tables, int *n,
		uint64_t *gpa)
{
	enum mode m = mode_of(&c->p);
	uint64_t e, t;
	int level, shift;

	*n = 0;
	if (m == M_NONPAGING) {
		*gpa = gva;
		return 0;
	}
	if (m == M_32) {
		t = (c->p.cr3 & ~0xfffull) + ((gva >> 22) & 1023) * 4;
		tables[(*n)++] = t;
		if (read_entry(c->vm, t, 4, &e) || !(e & TBL_P))
			return -EFAULT;
		if ((e & TBL_PS) && c->p.pse) {
			*gpa = (e & 0xffc00000ull) | (gva & 0x3fffff);
			return 0;
		}
		t = (e & 0xfffff000ull) + ((gva >> 12) & 1023) * 4;
		tables[(*n)++] = t;
		if (read_entry(c->vm, t, 4, &e) || !(e & TBL_P))
			return -EFAULT;
		*gpa = (e & 0xfffff000ull) | (gva & 0xfff);
		return 0;
	}
	if (m == M_PAE) {
		t = (c->p.cr3 & ~0x1full) + ((gva >> 30) & 3) * 8;
		level = 3;
	} else {
		t = (c->p.cr3 & ADDR_MASK) + ((gva >> 39) & 511) * 8;
		level = 4;
	}
	for (;;) {
		tables[(*n)++] = t;
		if (read_entry(c->vm, t, 8, &e) || !(e & TBL_P))
			return -EFAULT;
		shift = 12 + 9 * (level - 1);
		if (level == 1 || ((level == 2 || (level == 3 && m == M_64)) &&
				   (e & TBL_PS))) {
			uint64_t mask = (1ull << shift) - 1;

			*gpa = (e & ADDR_MASK & ~mask) | (gva & mask);
			return 0;
		}
		level--;
		t = (e & ADDR_MASK) +
		    ((gva >> (12 + 9 * (level - 1))) & 511) * 8;
	}
}

/* The model's address of a guest access: the gva, or with TDP the gpa. */
static void model_line(struct kt_out *o, bool pre, const char *vcpu,
		       const char *kind, uint64_t addr)
{
	if (pre)
		kt_pre(o, "#= access %s %s 0x%" PRIx64 "\n", vcpu, kind, addr);
	else
		kt_post(o, "#+ access %s %s 0x%" PRIx64 "\n", vcpu, kind, addr);
}

/*
 * The model's twin of an access to @lin the tool makes: with TDP and
 * paging on, the hardware walk's reads of the guest's tables first (the
 * nested walk's faults); then, unless @kind is NULL (the script's own
 * line is the access), the access itself.
 */
static void model_access(struct kt_vcpu *c, const char *kind, uint64_t lin,
			 bool pre, struct kt_out *o)
{
	uint64_t tables[5], gpa = lin;
	int n = 0, i;

	if (kt_tdp() && c->p.pg) {
		walk(c, lin, tables, &n, &gpa);
		for (i = 0; i < n; i++)
			model_line(o, pre, c->name, "read", tables[i]);
	}
	if (kind)
		model_line(o, pre, c->name, kind, kt_tdp() ? gpa : lin);
}

/* ---- running ---- */

static int load_segments(struct kt_vcpu *c, struct kvm_sregs *s)
{
	bool lm = mode_of(&c->p) == M_64;
	uint64_t lin = code_lin(c);
	struct kvm_segment code = {
		.base = 0,
		.limit = 0xffffffff,
		.selector = lm ? 0x18 : 0x08,
		.type = 0xb,
		.present = 1,
		.dpl = 0,
		.db = !lm,
		.s = 1,
		.l = lm,
		.g = 1,
	};
	struct kvm_segment data = {
		.base = 0,
		.limit = 0xffffffff,
		.selector = 0x10,
		.type = 3,
		.present = 1,
		.db = 1,
		.s = 1,
		.g = 1,
	};

	s->cs = code;
	s->ds = s->es = s->fs = s->gs = s->ss = data;
	s->tr = (struct kvm_segment){ .limit = 0xffff,
				      .type = 0xb,
				      .present = 1 };
	s->ldt = (struct kvm_segment){ .type = 2, .present = 1, .unusable = 1 };
	s->gdt.base = lin + GDT;
	s->gdt.limit = 4 * 8 - 1;
	s->idt.base = lin + (lm ? IDT64 : IDT32);
	s->idt.limit = lm ? 32 * 16 - 1 : 32 * 8 - 1;
	return 0;
}

int kt_vcpu_setup(struct kt_vcpu *c, int kvm_fd, struct kt_out *o)
{
	struct kvm_cpuid2 *cpuid;
	struct kvm_sregs s;
	int size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0), rc;

	if (size < 0)
		return -errno;
	c->run_size = (size_t)size;
	c->run = mmap(NULL, c->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, 0);
	if (c->run == MAP_FAILED)
		return -errno;
	c->stats_fd = ioctl(c->fd, KVM_GET_STATS_FD, NULL);
	cpuid = calloc(1, sizeof(*cpuid) + 256 * sizeof(cpuid->entries[0]));
	cpuid->nent = 256;
	rc = ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) ? -errno : 0;
	if (!rc)
		rc = ioctl(c->fd, KVM_SET_CPUID2, cpuid) ? -errno : 0;
	free(cpuid);
	if (rc)
		return kt_fail(o, rc, "KVM_SET_CPUID2: %s", strerror(-rc));
	if (ioctl(c->fd, KVM_GET_SREGS, &s))
		return -errno;
	load_segments(c, &s);
	s.cr0 = 0x11; /* PE | ET */
	s.cr4 = 0;
	s.efer = 0;
	return ioctl(c->fd, KVM_SET_SREGS, &s) ? -errno : 0;
}

/*
 * KVM_RUN from @rip to a HLT, answering MMIO reads with zeros.  Sets
 * *@faulted when the guest took an exception (its handler halted).
 */
static int run_to_hlt(struct kt_vcpu *c, uint64_t rip, struct kvm_regs *regs,
		      bool *faulted, struct kt_out *o)
{
	int i;

	regs->rip = rip;
	regs->rflags = 2;
	regs->rsp = code_lin(c) + STACK_TOP;
	if (ioctl(c->fd, KVM_SET_REGS, regs))
		return -errno;
	for (i = 0; i < 64; i++) {
		if (ioctl(c->fd, KVM_RUN, 0))
			return kt_fail(o, -errno, "KVM_RUN: %s",
				       strerror(errno));
		switch (c->run->exit_reason) {
		case KVM_EXIT_HLT:
			if (ioctl(c->fd, KVM_GET_REGS, regs))
				return -errno;
			*faulted = regs->rip == code_lin(c) + SN_HANDLER + 1;
			return 0;
		case KVM_EXIT_MMIO:
			if (!c->run->mmio.is_write)
				memset(c->run->mmio.data, 0, 8);
			continue;
		case KVM_EXIT_IO:
			continue;
		case KVM_EXIT_SHUTDOWN:
			return kt_fail(o, -EIO,
				       "the guest shut down (triple "
				       "fault)");
		case KVM_EXIT_INTERNAL_ERROR:
			return kt_fail(o, -EIO,
				       "KVM_EXIT_INTERNAL_ERROR "
				       "suberror %u (emulation failed?)",
				       c->run->internal.suberror);
		default:
			return kt_fail(o, -EIO, "unexpected exit %u",
				       c->run->exit_reason);
		}
	}
	return kt_fail(o, -EIO, "no HLT after 64 exits");
}

/* The snippet at @off: its fetch on the model first (then the walk of
 * @data, the address it accesses, if not 0), the exception's stack write
 * after. */
static int run_snippet(struct kt_vcpu *c, unsigned int off, uint64_t data,
		       struct kvm_regs *regs, struct kt_out *o)
{
	bool faulted = false;
	int rc;

	model_access(c, "exec", code_lin(c) + off, true, o);
	if (data)
		model_access(c, NULL, data, true, o);
	rc = run_to_hlt(c, code_lin(c) + off, regs, &faulted, o);
	if (!rc && faulted) {
		model_access(c, "write", code_lin(c) + STACK_TOP - 8, false, o);
		kt_add(o, " guest_fault=1");
	}
	return rc;
}

int kt_run_hlt(struct kt_vcpu *c, struct kt_out *o)
{
	struct kvm_regs regs = { 0 };

	return run_snippet(c, SN_HLT, 0, &regs, o);
}

static int check_lin(struct kt_vcpu *c, uint64_t lin, struct kt_out *o)
{
	if (mode_of(&c->p) != M_64 && lin >> 32)
		return kt_fail(o, -EOPNOTSUPP,
			       "not expressible on a real kernel: 0x%" PRIx64
			       " is above 4G and the guest is not in 64-bit "
			       "mode",
			       lin);
	return 0;
}

/*
 * The linear address the guest uses for @addr: with TDP the script's
 * address is a gpa, which the guest's tables must map at the same gva.
 */
static int guest_lin(struct kt_vcpu *c, uint64_t addr, uint64_t *lin,
		     struct kt_out *o)
{
	uint64_t tables[5], gpa;
	int n;

	*lin = addr;
	if (kt_tdp() && c->p.pg &&
	    (walk(c, addr, tables, &n, &gpa) || gpa != addr))
		return kt_fail(o, -EOPNOTSUPP,
			       "not expressible on a real kernel: with TDP the "
			       "access takes a gpa, and the guest's tables do "
			       "not map 0x%" PRIx64 " at the same gva",
			       addr);
	return check_lin(c, *lin, o);
}

int kt_access(struct kt_vcpu *c, const char *kind, uint64_t addr,
	      struct kt_out *o)
{
	struct kvm_regs regs = { 0 };
	uint64_t lin, tables[5], gpa;
	unsigned char *p = NULL, saved = 0;
	bool faulted = false;
	int n, rc;

	rc = guest_lin(c, addr, &lin, o);
	if (rc)
		return rc;
	if (!walk(c, lin, tables, &n, &gpa))
		p = kt_hva(c->vm, gpa, 1);
	regs.rsi = lin;
	if (!strcmp(kind, "read"))
		return run_snippet(c, SN_READ, lin, &regs, o);
	if (!strcmp(kind, "write")) {
		regs.rax = p ? *p : 0; /* the byte it holds: no change */
		return run_snippet(c, SN_WRITE, lin, &regs, o);
	}
	if (p) {
		saved = *p;
		*p = 0xf4;
	}
	model_access(c, NULL, lin, true, o);
	rc = run_to_hlt(c, lin, &regs, &faulted, o);
	if (p)
		*p = saved;
	if (!rc && faulted) {
		model_access(c, "write", code_lin(c) + STACK_TOP - 8, false, o);
		kt_add(o, " guest_fault=1");
	}
	return rc;
}

/* The window of page 4 (8-byte PTEs) or 5 (4-byte) that maps @gpa. */
static uint64_t window(struct kt_vcpu *c, uint64_t gpa, struct kt_out *o)
{
	int k = mode_of(&c->p) == M_32, i;
	uint64_t gfn = gpa >> 12, pte;

	for (i = 0; i < KT_MAX_WINDOWS; i++)
		if (!c->windows[k][i] || c->windows[k][i] == gfn + 1)
			break;
	if (i == KT_MAX_WINDOWS)
		return 0;
	if (!c->windows[k][i]) {
		c->windows[k][i] = gfn + 1;
		pte = (gfn << 12) | TBL_P | TBL_RW | TBL_A | TBL_D;
		tool_entry(c->vm,
			   KT_CODE_GPA + (4 + k) * 4096ull +
				   (KT_WINDOW_FIRST + i) * (k ? 4 : 8),
			   pte, k ? 4 : 8, false, o);
	}
	return code_lin(c) + (KT_WINDOW_FIRST + i) * 4096ull + (gpa & 0xfff);
}

/*
 * The guest's own store of a PTE: a read of the entry, then the store
 * (so that a write-protected table's store is a write to a present,
 * read-only SPTE: emulated, kvm_mmu_track_write()).  With paging on, it
 * goes through a window; the model runs its guest pte after the read.
 */
int kt_store(struct kt_vcpu *c, uint64_t gpa, uint64_t val, unsigned int size,
	     struct kt_out *o)
{
	struct kvm_regs regs = { 0 };
	uint64_t lin = gpa, old = 0;
	unsigned int off;
	int rc;

	if (!kt_hva(c->vm, gpa, size))
		return -EFAULT;
	if (c->p.pg && !(lin = window(c, gpa, o)))
		return kt_fail(o, -ENOSPC, "out of store windows");
	rc = check_lin(c, lin, o);
	if (rc)
		return rc;
	read_entry(c->vm, gpa, size, &old);
	regs.rsi = lin;
	regs.rax = val;
	if (size == 4) {
		off = SN_PTE4;
	} else if (mode_of(&c->p) == M_64) {
		off = SN_PTE8_64;
	} else { /* cmpxchg8b: edx:eax the old value, ecx:ebx the new */
		off = SN_PTE8_32;
		regs.rax = (uint32_t)old;
		regs.rdx = old >> 32;
		regs.rbx = (uint32_t)val;
		regs.rcx = val >> 32;
	}
	model_access(c, "exec", code_lin(c) + off, true, o);
	model_access(c, "read", lin, true, o);
	return run_to_hlt(c, code_lin(c) + off, &regs, &(bool){ 0 }, o);
}

int kt_invlpg(struct kt_vcpu *c, uint64_t gva, struct kt_out *o)
{
	struct kvm_regs regs = { .rsi = gva };
	int64_t s = (int64_t)(gva << 16) >> 16;

	if ((uint64_t)s != gva)
		return -ERANGE; /* non-canonical: the INVLPG would #GP */
	if (check_lin(c, gva, o))
		return -EOPNOTSUPP;
	return run_snippet(c, SN_INVLPG, 0, &regs, o);
}

/*
 * The code slot in the guest's top table: the entry that maps the code
 * address, written (on the model too) unless the guest uses it.
 */
static int link_code(struct kt_vcpu *c, const struct kt_paging *p,
		     struct kt_out *o)
{
	uint64_t gpa, v, cur;
	unsigned int size = 8;

	if (!p->pg)
		return 0;
	if (p->lma) {
		gpa = (p->cr3 & ADDR_MASK) + 511 * 8;
		v = (KT_CODE_GPA + 2 * 4096) | TBL_P | TBL_RW | TBL_A;
	} else if (p->pae) {
		gpa = (p->cr3 & ~0x1full) + 3 * 8;
		v = (KT_CODE_GPA + 3 * 4096) | TBL_P;
	} else {
		gpa = (p->cr3 & ~0xfffull) + 0x3fc * 4;
		v = (KT_CODE_GPA + 5 * 4096) | TBL_P | TBL_RW | TBL_A;
		size = 4;
	}
	if (read_entry(c->vm, gpa, size, &cur))
		return 0; /* no memory at CR3: the kernel has its say */
	if (cur == v)
		return 0;
	if (cur & TBL_P)
		return kt_fail(
			o, -EOPNOTSUPP,
			"not expressible on a real kernel here: the "
			"guest's entry at 0x%" PRIx64 " (0x%" PRIx64
			") maps the tool's code address (docs/kcheck.md)",
			gpa, cur);
	tool_entry(c->vm, gpa, v, size, false, o);
	return 0;
}

static bool same_mode(const struct kt_paging *a, const struct kt_paging *b)
{
	return a->pg == b->pg && a->wp == b->wp && a->pae == b->pae &&
	       a->pse == b->pse && a->lma == b->lma && a->nxe == b->nxe &&
	       a->user == b->user;
}

static void paging_answer(const struct kt_paging *p, struct kt_out *o);

/*
 * A load of CR3 alone, with paging on, is the guest's own MOV to CR3, so
 * that KVM sees what the model's verb does (kvm_set_cr3(): a new root, or
 * for the same CR3 the sync of unsync pages, KVM_REQ_MMU_SYNC): KVM_SET_SREGS
 * with an unchanged CR3 would not sync.  The HLT after it is fetched
 * through the new tables, on the model too.
 */
static int mov_cr3(struct kt_vcpu *c, const struct kt_paging *p,
		   struct kt_out *o)
{
	struct kvm_regs regs = { .rax = p->cr3 };
	bool faulted = false;
	int rc;

	model_access(c, "exec", code_lin(c) + SN_MOVCR3, true, o);
	rc = run_to_hlt(c, code_lin(c) + SN_MOVCR3, &regs, &faulted, o);
	if (rc)
		return rc;
	if (faulted)
		return kt_fail(o, -EINVAL, "the guest's MOV to CR3 faulted");
	c->p = *p;
	model_access(c, "exec", code_lin(c) + SN_MOVCR3 + 3, false, o);
	paging_answer(p, o);
	return 0;
}

static const char *const mode_names[] = { "nonpaging", "32bit", "pae",
					  "64bit" };

int kt_paging(struct kt_vcpu *c, int argc, struct nxsim__drv_tok *argv,
	      struct kt_out *o)
{
	static const struct {
		const char *key;
		size_t off;
	} bits[] = {
		{ "pg", offsetof(struct kt_paging, pg) },
		{ "wp", offsetof(struct kt_paging, wp) },
		{ "pae", offsetof(struct kt_paging, pae) },
		{ "pse", offsetof(struct kt_paging, pse) },
		{ "lma", offsetof(struct kt_paging, lma) },
		{ "nxe", offsetof(struct kt_paging, nxe) },
		{ "user", offsetof(struct kt_paging, user) },
	};
	struct kt_paging p = c->p, saved = c->p;
	struct kvm_sregs s;
	bool cr3_given = false;
	unsigned int i, k;
	int rc;

	for (i = 0; i < (unsigned int)argc; i++) {
		const char *t = argv[i].s;
		size_t n;

		if (!strncmp(t, "cr3=", 4)) {
			cr3_given = true;
			rc = nxsim__drv_opt_u64(t + 4, UINT64_MAX, &p.cr3,
						&o->r);
			if (rc)
				return rc;
			continue;
		}
		for (k = 0; k < NXSIM__DRV_NELEM(bits); k++) {
			n = strlen(bits[k].key);
			if (!strncmp(t, bits[k].key, n) && t[n] == '=' &&
			    (t[n + 1] == '0' || t[n + 1] == '1') && !t[n + 2])
				break;
		}
		if (k == NXSIM__DRV_NELEM(bits))
			return kt_fail(o, -EINVAL, "unknown option \"%s\"", t);
		*(int *)((char *)&p + bits[k].off) = t[n + 1] - '0';
	}
	if (p.user)
		return kt_fail(o, -EOPNOTSUPP,
			       "not expressible on a real "
			       "kernel yet: user=1 (CPL 3)");
	rc = link_code(c, &p, o);
	if (rc)
		return rc;
	if (same_mode(&saved, &p) && p.pg && cr3_given)
		return mov_cr3(c, &p, o);
	if (ioctl(c->fd, KVM_GET_SREGS, &s))
		return -errno;
	c->p = p;
	load_segments(c, &s);
	s.cr0 = 0x11 | (p.pg ? 0x80000000ull : 0) | (p.wp ? 0x10000ull : 0);
	s.cr4 = (p.pae ? 0x20ull : 0) | (p.pse ? 0x10ull : 0);
	s.efer = (p.lma ? 0x500ull : 0) | (p.nxe ? 0x800ull : 0);
	s.cr3 = p.cr3;
	if (ioctl(c->fd, KVM_SET_SREGS, &s)) {
		c->p = saved;
		return -errno;
	}
	paging_answer(&p, o);
	return 0;
}

static void paging_answer(const struct kt_paging *p, struct kt_out *o)
{
	kt_add(o,
	       " mode=%s pg=%d wp=%d pae=%d pse=%d lma=%d nxe=%d user=%d "
	       "cr3=0x%" PRIx64,
	       mode_names[mode_of(p)], p->pg, p->wp, p->pae, p->pse, p->lma,
	       p->nxe, p->user, p->cr3);
}
