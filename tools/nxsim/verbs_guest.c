// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for the guest side of shadow paging (include/nxsim/guest.h,
 * docs/shadow-paging.md): guest memory written by the VMM
 * (kvm_write_guest()) or stored to by the guest, the vCPU's control
 * registers (kvm_set_cr0/cr4/efer/cr3()), and the guest page-table walk
 * (FNAME(gva_to_gpa) of arch/x86/kvm/mmu/paging_tmpl.h), so that a script
 * can build guest page tables and read what the walk makes of them.
 */
#include <errno.h>
#include <string.h>

#include "numarg.h"

static const char *const modes[] = {
	[NXSIM_GUEST_NONPAGING] = "nonpaging",
	[NXSIM_GUEST_32BIT] = "32bit",
	[NXSIM_GUEST_PAE] = "pae",
	[NXSIM_GUEST_64BIT] = "64bit",
};

/* size=1|2|4|8 (default @def) */
static int size_option(int argc, struct nxsim__drv_tok *argv, int first,
		       unsigned int def, unsigned int *size,
		       struct nxsim__drv_reply *r)
{
	const char *v;
	uint64_t n;
	int rc;

	*size = def;
	if (argc <= first)
		return 0;
	if (!(v = nxsim__drv_opt(&argv[first], "size")))
		return nxsim__drv_fail(r, -EINVAL, "unknown option \"%s\"",
				       argv[first].s);
	rc = nxsim__drv_opt_u64(v, 8, &n, r);
	if (rc)
		return rc;
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return nxsim__drv_fail(r, -EINVAL, "size is 1, 2, 4 or 8");
	*size = (unsigned int)n;
	return 0;
}

/* VM GPA VALUE [size=N]: the VMM writes a little-endian integer */
static int guest_write(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	uint64_t gpa, val;
	unsigned int size;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = size_option(argc, argv, 3, 8, &size, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gpa, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2],
				    size == 8 ? UINT64_MAX :
						(1ull << (8 * size)) - 1,
				    &val, r);
	return rc ? rc : nxsim_guest_write(vm, gpa, &val, size);
}

static int guest_read(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	uint64_t gpa, val = 0;
	unsigned int size;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = size_option(argc, argv, 2, 8, &size, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gpa, r);
	if (!rc)
		rc = nxsim_guest_read(vm, gpa, &val, size);
	if (!rc)
		nxsim__drv_add(r, " value=0x%" PRIx64, val);
	return rc;
}

static int guest_pte(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	uint64_t gpa, val;
	unsigned int size;
	int rc;

	if (!vcpu)
		return -ENOENT;
	rc = size_option(argc, argv, 3, 8, &size, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gpa, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &val, r);
	return rc ? rc : nxsim_guest_write_pte(vcpu, gpa, val, size);
}

static int guest_invlpg(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	uint64_t gva;
	int rc;

	(void)argc;
	if (!vcpu)
		return -ENOENT;
	rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gva, r);
	return rc ? rc : nxsim_guest_invlpg(vcpu, gva);
}

static void add_paging(struct nxsim__drv_reply *r,
		       const struct nxsim_guest_paging *p,
		       enum nxsim_guest_mode mode)
{
	nxsim__drv_add(r,
		       " mode=%s pg=%d wp=%d pae=%d pse=%d lma=%d nxe=%d "
		       "user=%d cr3=0x%" PRIx64,
		       modes[mode], p->cr0_pg, p->cr0_wp, p->cr4_pae,
		       p->cr4_pse, p->efer_lma, p->efer_nxe, p->user, p->cr3);
}

static const struct {
	const char *key;
	size_t off;
} paging_bits[] = {
	{ "pg", offsetof(struct nxsim_guest_paging, cr0_pg) },
	{ "wp", offsetof(struct nxsim_guest_paging, cr0_wp) },
	{ "pae", offsetof(struct nxsim_guest_paging, cr4_pae) },
	{ "pse", offsetof(struct nxsim_guest_paging, cr4_pse) },
	{ "lma", offsetof(struct nxsim_guest_paging, efer_lma) },
	{ "nxe", offsetof(struct nxsim_guest_paging, efer_nxe) },
	{ "user", offsetof(struct nxsim_guest_paging, user) },
};

/* One key=value of guest paging, applied to @p. */
static int paging_option(const struct nxsim__drv_tok *t,
			 struct nxsim_guest_paging *p,
			 struct nxsim__drv_reply *r)
{
	const char *v;
	uint64_t n;
	size_t i;
	int rc;

	if ((v = nxsim__drv_opt(t, "cr3")))
		return nxsim__drv_opt_u64(v, UINT64_MAX, &p->cr3, r);
	for (i = 0; i < NXSIM__DRV_NELEM(paging_bits); i++) {
		if (!(v = nxsim__drv_opt(t, paging_bits[i].key)))
			continue;
		rc = nxsim__drv_opt_u64(v, 1, &n, r);
		if (!rc)
			*(bool *)((char *)p + paging_bits[i].off) = n;
		return rc;
	}
	return nxsim__drv_fail(r, -EINVAL, "unknown paging option \"%s\"",
			       t->s);
}

/* VCPU [key=value...]: change some registers, load them all */
static int guest_paging(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	struct nxsim_guest_paging p;
	enum nxsim_guest_mode mode;
	int i, rc;

	if (!vcpu)
		return -ENOENT;
	rc = nxsim_guest_get_paging(vcpu, &p, NULL);
	for (i = 1; !rc && i < argc; i++)
		rc = paging_option(&argv[i], &p, r);
	if (!rc && argc > 1)
		rc = nxsim_guest_set_paging(vcpu, &p);
	if (!rc)
		rc = nxsim_guest_get_paging(vcpu, &p, &mode);
	if (!rc)
		add_paging(r, &p, mode);
	return rc;
}

static const char *const kinds[] = { "read", "write", "exec" };

/* VCPU GVA read|write|exec [user=0|1]: the walk */
static int guest_walk(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	static const uint32_t pfec[] = { 0, NXSIM_PFERR_WRITE,
					 NXSIM_PFERR_FETCH };
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	struct nxsim_guest_paging p;
	struct nxsim_guest_walk w;
	uint64_t gva, user;
	const char *v;
	size_t kind;
	int rc;

	if (!vcpu)
		return -ENOENT;
	for (kind = 0; kind < NXSIM__DRV_NELEM(kinds); kind++)
		if (!strcmp(argv[2].s, kinds[kind]))
			break;
	if (kind == NXSIM__DRV_NELEM(kinds))
		return nxsim__drv_fail(r, -EINVAL,
				       "an access is read, write or exec, "
				       "not \"%s\"",
				       argv[2].s);
	rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gva, r);
	if (!rc)
		rc = nxsim_guest_get_paging(vcpu, &p, NULL);
	if (rc)
		return rc;
	/* the CPL the vCPU runs at, unless the script says */
	user = p.user;
	if (argc > 3) {
		if (!(v = nxsim__drv_opt(&argv[3], "user")))
			return nxsim__drv_fail(
				r, -EINVAL, "unknown option \"%s\"", argv[3].s);
		rc = nxsim__drv_opt_u64(v, 1, &user, r);
		if (rc)
			return rc;
	}
	rc = nxsim_guest_translate(
		vcpu, gva, pfec[kind] | (user ? NXSIM_PFERR_USER : 0), &w);
	if (rc)
		return rc;
	if (w.fault)
		nxsim__drv_add(r, " fault=1 error_code=0x%x level=%d",
			       w.error_code, w.level);
	else
		nxsim__drv_add(
			r, " fault=0 gpa=0x%" PRIx64 " level=%d access=%s%s%s",
			w.gpa, w.level, w.access & NXSIM_ACC_USER ? "u" : "-",
			w.access & NXSIM_ACC_WRITE ? "w" : "-",
			w.access & NXSIM_ACC_EXEC ? "x" : "-");
	return 0;
}

static int guest_pages(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	int64_t n;

	if (!vm)
		return -ENOENT;
	n = nxsim_guest_nr_pages(vm);
	if (n < 0)
		return (int)n;
	nxsim__drv_add(r, " pages=%" PRId64, n);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_guest_verbs[] = {
	{ "guest", "write", 3, 4, "VM GPA VALUE [size=1|2|4|8]",
	  "the VMM writes VALUE (little-endian, default 8 bytes) into guest "
	  "memory (kvm_write_guest(); not seen by the MMU)",
	  guest_write },
	{ "guest", "read", 2, 3, "VM GPA [size=1|2|4|8]",
	  "read guest memory (kvm_read_guest()): answers value=0x...",
	  guest_read },
	{ "guest", "pte", 3, 4, "VCPU GPA VALUE [size=4|8]",
	  "the guest stores a page-table entry (default 8 bytes)", guest_pte },
	{ "guest", "invlpg", 2, 2, "VCPU GVA",
	  "the guest executes INVLPG (kvm_mmu_invlpg(): an unsync shadow "
	  "entry of GVA is made again from the guest's)",
	  guest_invlpg },
	{ "guest", "paging", 1, 9,
	  "VCPU [pg=0|1] [wp=0|1] [pae=0|1] [pse=0|1] [lma=0|1] [nxe=0|1] "
	  "[user=0|1] [cr3=N]",
	  "load CR0/CR4/EFER/CR3 with the changes given (-EINVAL where the "
	  "MOV would #GP): answers mode=nonpaging|32bit|pae|64bit and the "
	  "registers",
	  guest_paging },
	{ "guest", "walk", 3, 4, "VCPU GVA read|write|exec [user=0|1]",
	  "walk the guest page tables (FNAME(gva_to_gpa), sets A/D): answers "
	  "fault=0 gpa= level= access=uwx, or fault=1 error_code= level=",
	  guest_walk },
	{ "guest", "pages", 1, 1, "VM",
	  "pages of guest memory written so far: answers pages=N",
	  guest_pages },
	{ NULL },
};
