// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for a VM's MMU (include/nxsim/mmu.h): the
 * KVM_SET_USER_MEMORY_REGION ioctl as add, delete, move and dirty-log
 * (__kvm_set_memory_region()), the host mapping size under a slot (THP
 * collapse or split, the MMU notifier), guest accesses through the TDP
 * page-fault path (kvm_tdp_page_fault()), the dirty log (KVM_GET_DIRTY_LOG,
 * KVM_CLEAR_DIRTY_LOG), the VM stats of
 * /sys/kernel/debug/kvm/<vm>/ (kvm_vm_stats_desc), the simulator's MMU
 * counters, the invariant checker and the page-table dump.
 *
 * KVM wants the whole region again to move a slot or change its flags, so
 * the driver remembers what the script last set (nxsim__drv_slot()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "numarg.h"

static const char *const levels[] = {
	[NXSIM_PG_LEVEL_4K] = "4k",
	[NXSIM_PG_LEVEL_2M] = "2m",
	[NXSIM_PG_LEVEL_1G] = "1g",
};

static const char *const kinds[] = {
	[NXSIM_ACCESS_READ] = "read",
	[NXSIM_ACCESS_WRITE] = "write",
	[NXSIM_ACCESS_EXEC] = "exec",
};

/* The index of @s in @names[@n] (NULL holes skipped), or -1. */
static int name_index(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_level(const char *s, int *level, struct nxsim__drv_reply *r)
{
	*level = name_index(s, levels, NXSIM__DRV_NELEM(levels));
	if (*level < 0)
		return nxsim__drv_fail(
			r, -EINVAL, "a level is 4k, 2m or 1g, not \"%s\"", s);
	return 0;
}

/* The record of a slot the script made, or an error naming it. */
static struct nxsim__drv_slot *known_slot(struct nxsim__drv *d,
					  struct nxsim__drv_tok *argv,
					  struct nxsim__drv_reply *r)
{
	struct nxsim__drv_slot *s;
	uint32_t id;

	if (!nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r) ||
	    nxsim__drv_u32(&argv[1], &id, r))
		return NULL;
	s = nxsim__drv_slot(d, argv[0].s, id, false);
	if (!s)
		nxsim__drv_fail(r, -ENOENT,
				"%s has no slot %u from this script", argv[0].s,
				id);
	return s;
}

/* KVM_SET_USER_MEMORY_REGION with @mr; on success the record follows. */
static int set_region(struct nxsim__drv *d, const char *vm,
		      const struct nxsim_memory_region *mr,
		      struct nxsim__drv_reply *r)
{
	struct nxsim_vm *v = nxsim__drv_find(d, vm, NXSIM__DRV_VM, r);
	struct nxsim__drv_slot *s;
	int rc;

	if (!v)
		return -ENOENT;
	/* the record first, so that its allocation cannot fail afterwards */
	s = nxsim__drv_slot(d, vm, mr->slot, true);
	if (!s)
		return -ENOMEM;
	rc = nxsim_vm_set_memory_region(v, mr);
	if (!rc && mr->memory_size)
		s->mr = *mr;
	else if ((!rc && !mr->memory_size) || !s->mr.memory_size)
		nxsim__drv_slot_drop(d, vm, s); /* deleted, or never made */
	return rc;
}

static const struct {
	const char *key;
	uint32_t flag;
} slot_flags[] = {
	{ "dirty", NXSIM_MEM_LOG_DIRTY_PAGES },
	{ "readonly", NXSIM_MEM_READONLY },
};

/* One option of memslot add: hva=N level=L dirty=0|1 readonly=0|1 */
static int slot_option(struct nxsim__drv_tok *t, struct nxsim_memory_region *mr,
		       struct nxsim__drv_reply *r)
{
	const char *v;
	uint64_t on;
	size_t i;
	int rc;

	if ((v = nxsim__drv_opt(t, "hva")))
		return nxsim__drv_opt_u64(v, UINT64_MAX, &mr->userspace_addr,
					  r);
	if ((v = nxsim__drv_opt(t, "level")))
		return parse_level(v, &mr->host_level, r);
	for (i = 0; i < NXSIM__DRV_NELEM(slot_flags); i++) {
		if (!(v = nxsim__drv_opt(t, slot_flags[i].key)))
			continue;
		rc = nxsim__drv_opt_u64(v, 1, &on, r);
		if (!rc && on)
			mr->flags |= slot_flags[i].flag;
		return rc;
	}
	return nxsim__drv_fail(r, -EINVAL, "unknown memslot option \"%s\"",
			       t->s);
}

/* VM SLOT GPA SIZE [options]: the whole region of memslot add and set */
static int parse_region(int argc, struct nxsim__drv_tok *argv,
			struct nxsim_memory_region *mr,
			struct nxsim__drv_reply *r)
{
	int i, rc;

	memset(mr, 0, sizeof(*mr));
	mr->host_level = NXSIM_PG_LEVEL_4K;
	rc = nxsim__drv_u32(&argv[1], &mr->slot, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &mr->guest_phys_addr,
				    r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[3], UINT64_MAX, &mr->memory_size, r);
	/* the default hva: 4 GiB per slot id, 1 GiB aligned */
	mr->userspace_addr = ((uint64_t)(mr->slot & 0xffff) + 1) << 32;
	for (i = 4; !rc && i < argc; i++)
		rc = slot_option(&argv[i], mr, r);
	return rc;
}

static int memslot_add(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_memory_region mr;
	int rc = parse_region(argc, argv, &mr, r);

	if (rc)
		return rc;
	if (!mr.memory_size)
		return nxsim__drv_fail(r, -EINVAL,
				       "size 0 deletes: use memslot delete");
	if (nxsim__drv_slot(d, argv[0].s, mr.slot, false))
		return nxsim__drv_fail(
			r, -EEXIST,
			"slot %u exists: memslot move, dirty-log "
			"or set change it",
			mr.slot);
	return set_region(d, argv[0].s, &mr, r);
}

/* The ioctl as it is: whatever KVM makes of the region (a size 0 deletes). */
static int memslot_set(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_memory_region mr;
	int rc = parse_region(argc, argv, &mr, r);

	return rc ? rc : set_region(d, argv[0].s, &mr, r);
}

static int memslot_delete(struct nxsim__drv *d, int argc,
			  struct nxsim__drv_tok *argv,
			  struct nxsim__drv_reply *r)
{
	struct nxsim_memory_region mr = { 0 };
	int rc;

	if (!nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r))
		return -ENOENT;
	/* any slot id, so that KVM's own -EINVAL for an empty one shows */
	rc = nxsim__drv_u32(&argv[1], &mr.slot, r);
	return rc ? rc : set_region(d, argv[0].s, &mr, r);
}

static int memslot_move(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim__drv_slot *s = known_slot(d, argv, r);
	struct nxsim_memory_region mr;
	int rc;

	if (!s)
		return -ENOENT;
	mr = s->mr;
	rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &mr.guest_phys_addr, r);
	return rc ? rc : set_region(d, argv[0].s, &mr, r);
}

static int memslot_dirty_log(struct nxsim__drv *d, int argc,
			     struct nxsim__drv_tok *argv,
			     struct nxsim__drv_reply *r)
{
	struct nxsim__drv_slot *s = known_slot(d, argv, r);
	struct nxsim_memory_region mr;

	if (!s)
		return -ENOENT;
	mr = s->mr;
	if (!strcmp(argv[2].s, "on"))
		mr.flags |= NXSIM_MEM_LOG_DIRTY_PAGES;
	else if (!strcmp(argv[2].s, "off"))
		mr.flags &= ~NXSIM_MEM_LOG_DIRTY_PAGES;
	else
		return nxsim__drv_fail(r, -EINVAL, "dirty-log is on or off");
	return set_region(d, argv[0].s, &mr, r);
}

/* " dirty=N pages=A-B,C,..." for @n bits of @bm ("pages=-" if none). */
static void add_pages(struct nxsim__drv_reply *r, const uint64_t *bm,
		      uint64_t n)
{
	uint64_t i, run, count = 0;
	bool any = false;

	for (i = 0; i < n; i++)
		count += !!(bm[i / 64] & (1ull << (i % 64)));
	nxsim__drv_add(r, " dirty=%" PRIu64 " pages=", count);
	for (i = 0; i < n; i = run) {
		for (run = i; run < n && (bm[run / 64] & (1ull << (run % 64)));
		     run++)
			;
		if (run == i) {
			run++;
			continue;
		}
		nxsim__drv_add(r, "%s%" PRIu64, any ? "," : "", i);
		if (run - 1 > i)
			nxsim__drv_add(r, "-%" PRIu64, run - 1);
		any = true;
	}
	if (!any)
		nxsim__drv_add(r, "-");
}

/* Pages of the slot as this script made it (0 if unknown). */
static uint64_t script_slot_pages(struct nxsim__drv *d, const char *vm,
				  uint32_t id)
{
	struct nxsim__drv_slot *s = nxsim__drv_slot(d, vm, id, false);

	return s ? s->mr.memory_size >> 12 : 0;
}

static int dirty_log_get(struct nxsim__drv *d, int argc,
			 struct nxsim__drv_tok *argv,
			 struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	uint64_t *bm, n;
	uint32_t id;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim__drv_u32(&argv[1], &id, r);
	if (rc)
		return rc;
	n = script_slot_pages(d, argv[0].s, id);
	bm = calloc((n + 63) / 64 + 1, sizeof(*bm));
	if (!bm)
		return nxsim__drv_fail(r, -ENOMEM, "bitmap");
	rc = nxsim_vm_get_dirty_log(vm, id, bm);
	if (!rc)
		add_pages(r, bm, n);
	free(bm);
	return rc;
}

static int dirty_log_clear(struct nxsim__drv *d, int argc,
			   struct nxsim__drv_tok *argv,
			   struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	uint64_t first, num, pages, i, *bm;
	const char *list = NULL;
	bool null = false;
	uint32_t id;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim__drv_u32(&argv[1], &id, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &first, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[3], UINT32_MAX, &num, r);
	if (rc)
		return rc;
	if (argc > 4 && !strcmp(argv[4].s, "null"))
		null = true;
	else if (argc > 4 && !(list = nxsim__drv_opt(&argv[4], "pages")))
		return nxsim__drv_fail(r, -EINVAL, "pages=LIST or null");
	/*
	 * The range within the slot, as kvm_clear_dirty_log_protect() checks
	 * it (the same -EINVAL), before a bitmap of NUM bits is made (512 MiB
	 * for 2^32); a slot the script has not made answers the API's
	 * -ENOENT, with no bitmap.
	 */
	pages = script_slot_pages(d, argv[0].s, id);
	if (pages && (first > pages || num > pages - first))
		return -EINVAL;
	if (!pages)
		num = num < 64 ? num : 64;
	bm = calloc((num + 63) / 64 + 1, sizeof(*bm));
	if (!bm)
		return nxsim__drv_fail(r, -ENOMEM, "bitmap");
	if (list)
		rc = nxsim__drv_pages(list, bm, num, r);
	else
		for (i = 0; i < num; i++)
			bm[i / 64] |= 1ull << (i % 64);
	if (!rc)
		rc = nxsim_vm_clear_dirty_log(vm, id, first, (uint32_t)num,
					      null ? NULL : bm);
	free(bm);
	return rc;
}

static int memslot_host_level(struct nxsim__drv *d, int argc,
			      struct nxsim__drv_tok *argv,
			      struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	uint64_t offset, size;
	uint32_t id;
	int level, rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim__drv_u32(&argv[1], &id, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &offset, r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[3], UINT64_MAX, &size, r);
	if (!rc)
		rc = parse_level(argv[4].s, &level, r);
	return rc ? rc : nxsim_vm_set_host_level(vm, id, offset, size, level);
}

static int access_verb(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	int kind = name_index(argv[1].s, kinds, NXSIM__DRV_NELEM(kinds));
	struct nxsim_access_info ai;
	uint64_t gpa;
	int rc;

	if (!vcpu)
		return -ENOENT;
	if (kind < 0)
		return nxsim__drv_fail(r, -EINVAL,
				       "an access is read, write or exec, "
				       "not \"%s\"",
				       argv[1].s);
	rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &gpa, r);
	if (!rc)
		rc = nxsim_vcpu_access(vcpu, kind, gpa, &ai);
	if (rc)
		return rc;
	nxsim__drv_add_stats(r, NXSIM_STATS_ACCESS, &ai, NULL);
	return 0;
}

static int stat_verb(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	const struct nxsim_stat_desc *desc;
	struct nxsim_vm_stats st;
	char val[32];
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim_vm_stats(vm, &st);
	if (rc)
		return rc;
	if (argc == 1) {
		nxsim__drv_add_stats(r, NXSIM_STATS_VM_STATS, &st, NULL);
		return 0;
	}
	desc = nxsim_stats_find(NXSIM_STATS_VM_STATS, argv[1].s);
	if (!desc)
		return nxsim__drv_fail(r, -ENOENT, "no VM stat \"%s\"",
				       argv[1].s);
	nxsim_stat_format(desc, &st, val, sizeof(val));
	nxsim__drv_add(r, " %s", val);
	return 0;
}

/*
 * VM|VCPU [NAME...]: the binary stats fd's stats by the kernel's names
 * (nxsim_vm_kstats(), nxsim_vcpu_kstats()), "unmodelled" for those the
 * model keeps no count of.
 */
static int kstat_verb(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim__drv_reply scratch = { .len = 0 };
	struct nxsim_kstat st[64];
	struct nxsim_vcpu *vcpu = NULL;
	struct nxsim_vm *vm;
	int n, i, a;

	vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, &scratch);
	if (!vm && scratch.rc == -EBADF)
		return -EBADF;
	if (!vm && !(vcpu = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r)))
		return r->rc == -EBADF ? -EBADF :
					 nxsim__drv_fail(r, -ENOENT,
							 "no VM or vCPU named "
							 "\"%s\"",
							 argv[0].s);
	n = vm ? nxsim_vm_kstats(vm, st, NXSIM__DRV_NELEM(st)) :
		 nxsim_vcpu_kstats(vcpu, st, NXSIM__DRV_NELEM(st));
	if (n < 0)
		return n;
	for (a = 1; a < argc || (argc == 1 && a == 1); a++) {
		for (i = 0; i < n; i++) {
			if (argc > 1 && strcmp(st[i].name, argv[a].s))
				continue;
			if (st[i].modelled)
				nxsim__drv_add(r, " %s=%" PRIu64, st[i].name,
					       st[i].value);
			else
				nxsim__drv_add(r, " %s=unmodelled", st[i].name);
			if (argc > 1)
				break;
		}
		if (argc > 1 && i == n)
			return nxsim__drv_fail(r, -ENOENT, "no kstat \"%s\"",
					       argv[a].s);
	}
	return 0;
}

static int mmu_counters(struct nxsim__drv *d, int argc,
			struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct nxsim_mmu_counters c;
	int64_t pages;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim_vm_mmu_counters(vm, &c);
	if (rc)
		return rc;
	pages = nxsim_vm_nr_mmu_pages(vm);
	if (pages < 0)
		return pages;
	nxsim__drv_add_stats(r, NXSIM_STATS_MMU, &c, NULL);
	nxsim__drv_add(r, " mmu_pages=%" PRId64, pages);
	return 0;
}

/* Collects the checker's violations as C strings into an ERR message. */
static void add_violation(void *ctx, const char *text)
{
	struct nxsim__drv_reply *r = ctx;

	nxsim__drv_quote(r, NULL, text, strlen(text));
}

static int check_verb(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct nxsim__drv_reply texts = { .len = 0 };
	int n;

	if (!vm)
		return -ENOENT;
	n = nxsim_vm_check(vm, add_violation, &texts);
	if (n < 0)
		return n;
	if (n)
		return nxsim__drv_fail(r, -EUCLEAN, "violations=%d:%s", n,
				       texts.buf);
	nxsim__drv_add(r, " violations=0");
	return 0;
}

struct dump_ctx {
	FILE *f;
	int err;
};

static void dump_line(void *ctx, const char *line)
{
	struct dump_ctx *dc = ctx;

	if (fprintf(dc->f, "%s\n", line) < 0 && !dc->err)
		dc->err = -errno;
}

static int dump_vm(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		   struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct dump_ctx dc = { .f = nxsim__drv_errf(d) };
	int n;

	if (!vm)
		return -ENOENT;
	if (argc > 1 && !(dc.f = fopen(argv[1].s, "w"))) {
		n = -errno;
		return nxsim__drv_fail(r, n, "%s: %s", argv[1].s, strerror(-n));
	}
	n = nxsim_vm_dump(vm, dump_line, &dc);
	if (argc > 1 && fclose(dc.f) && !dc.err)
		dc.err = -errno;
	else if (argc == 1)
		fflush(dc.f);
	if (n < 0)
		return n;
	if (dc.err)
		return nxsim__drv_fail(r, dc.err, "%s: %s",
				       argc > 1 ? argv[1].s : "stderr",
				       strerror(-dc.err));
	nxsim__drv_add(r, " lines=%d", n);
	return 0;
}

const struct nxsim__drv_verb nxsim__drv_mmu_verbs[] = {
	{ "memslot", "add", 4, 8,
	  "VM SLOT GPA SIZE [hva=N] [level=4k|2m|1g] [dirty=0|1] "
	  "[readonly=0|1]",
	  "KVM_SET_USER_MEMORY_REGION creating SLOT; level= is the host "
	  "mapping size (THP/hugetlb, default 4k), hva= defaults to "
	  "(SLOT + 1) << 32",
	  memslot_add },
	{ "memslot", "set", 4, 8,
	  "VM SLOT GPA SIZE [hva=N] [level=4k|2m|1g] [dirty=0|1] "
	  "[readonly=0|1]",
	  "KVM_SET_USER_MEMORY_REGION exactly as given: create, move, change "
	  "flags, delete (SIZE 0), or KVM's -EINVAL for a change of size, hva "
	  "or read-only",
	  memslot_set },
	{ "memslot", "delete", 2, 2, "VM SLOT",
	  "KVM_SET_USER_MEMORY_REGION with size 0 (zaps all: "
	  "kvm_mmu_zap_all_fast())",
	  memslot_delete },
	{ "memslot", "move", 3, 3, "VM SLOT GPA",
	  "KVM_SET_USER_MEMORY_REGION with a new base (KVM_MR_MOVE)",
	  memslot_move },
	{ "memslot", "dirty-log", 3, 3, "VM SLOT on|off",
	  "KVM_SET_USER_MEMORY_REGION toggling KVM_MEM_LOG_DIRTY_PAGES "
	  "(KVM_MR_FLAGS_ONLY)",
	  memslot_dirty_log },
	{ "memslot", "host-level", 5, 5, "VM SLOT OFFSET SIZE 4k|2m|1g",
	  "the host maps part of the slot at another size (THP split or "
	  "collapse); the MMU notifier zaps the leaves",
	  memslot_host_level },
	{ "dirty-log", "get", 2, 2, "VM SLOT",
	  "KVM_GET_DIRTY_LOG: answers dirty=N pages=A-B,C,... (page "
	  "indices in the slot, - for none); without manual protection "
	  "the log is cleared and the pages protected again",
	  dirty_log_get },
	{ "dirty-log", "clear", 4, 5, "VM SLOT FIRST NUM [pages=LIST|null]",
	  "KVM_CLEAR_DIRTY_LOG of NUM pages from FIRST: the bitmap has the "
	  "pages of LIST (A-B,C,... from FIRST; default all NUM), or is "
	  "NULL",
	  dirty_log_clear },
	{ "access", NULL, 3, 3, "VCPU read|write|exec GPA",
	  "a guest access (kvm_tdp_page_fault() if the SPTE does not allow "
	  "it): answers outcome=hit|fault|spurious|fast|emulate level= "
	  "req_level= goal_level= huge_page_disallowed= splits= zapped_huge=",
	  access_verb },
	{ "kstat", NULL, 1, -1, "VM|VCPU [NAME...]",
	  "the kernel's stats by their names (KVM_GET_STATS_FD, 6.1): "
	  "answers name=value or name=unmodelled for each, or the ones named",
	  kstat_verb },
	{ "stat", NULL, 1, 2, "VM [NAME]",
	  "a VM stat (pages_4k pages_2m pages_1g nx_lpage_splits): answers "
	  "its value; without NAME answers NAME=value for all",
	  stat_verb },
	{ "mmu", "counters", 1, 1, "VM",
	  "answers faults= emulated= splits= huge_zaps= recovery_passes= "
	  "recovery_zapped= recovery_unaccounted= tlb_flushes= zap_all= "
	  "mmu_pages=",
	  mmu_counters },
	{ "check", NULL, 1, 1, "VM",
	  "run the invariant checker: answers violations=0, or ERR -EUCLEAN "
	  "violations=N: and each one as a C string",
	  check_verb },
	{ "dump", "vm", 1, 2, "VM [FILE]",
	  "write the page tables as a tree to FILE (default stderr): "
	  "answers lines=N",
	  dump_vm },
	{ NULL },
};
