/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nxsim-kvm: the nxsim driver's language executed on a real /dev/kvm
 * (docs/kcheck.md).  A script's objects are real file descriptors: a VM
 * is a KVM_CREATE_VM fd, a vCPU a KVM_CREATE_VCPU fd running a small
 * instruction snippet per access, a memory slot a mapping handed to
 * KVM_SET_USER_MEMORY_REGION.  The snippets live in a code slot the tool
 * adds to every VM; everything the tool does that the model must do too
 * to count the same (the code slot, its page tables, the snippet's own
 * fetch) is printed before or after the answer as a "#=" or "#+" line
 * that tools/kcheck runs on the model.
 */
#ifndef NXSIM_TOOLS_KVM_H
#define NXSIM_TOOLS_KVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"

#define KT_MAX_SLOTS 64
#define KT_MAX_WINDOWS 64

/*
 * The code slot: page 0 holds the snippets, the IDT and the GDT, page 1
 * the stack, pages 2-5 the page tables that map the slot at the code
 * address in every paging mode (docs/kcheck.md, "The code slot").
 */
#define KT_CODE_SLOT 32000u
#define KT_CODE_GPA 0xff000000ull
#define KT_CODE_PAGES 8
#define KT_CODE_SIZE (KT_CODE_PAGES * 4096ull)
#define KT_CODE_LIN32 0xff000000ull	    /* paging off, 32-bit, PAE */
#define KT_CODE_LIN64 0xffffffffff000000ull /* 64-bit */
#define KT_WINDOW_FIRST 16 /* PT index of the first store window */

struct kt_slot {
	bool used;
	uint32_t id;
	uint64_t gpa, size, hva;
	uint32_t flags;
	int level; /* 0 4k, 1 2m, 2 1g */
	void *map; /* the tool's mapping, or NULL */
	size_t maplen;
};

struct kt_vm {
	char *name;
	int fd;
	int stats_fd;
	bool destroyed;
	struct kt_slot slots[KT_MAX_SLOTS];
};

/* The guest's paging state as the script set it (guest paging). */
struct kt_paging {
	int pg, wp, pae, pse, lma, nxe, user;
	uint64_t cr3;
};

struct kt_vcpu {
	char *name;
	struct kt_vm *vm;
	int fd;
	int stats_fd;
	struct kvm_run *run;
	size_t run_size;
	struct kt_paging p;
	/* gfn + 1 of each store window: in the 8-byte PT, in the 4-byte PT */
	uint64_t windows[2][KT_MAX_WINDOWS];
};

/* What a verb prints: the answer and the model's lines around it. */
struct kt_out {
	struct nxsim__drv_reply r;
	char pre[8192]; /* "#= line\n"... */
	size_t pre_len;
	char post[2048]; /* "#+ line\n"... */
	size_t post_len;
};

void kt_pre(struct kt_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kt_post(struct kt_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* main.c */
#define kt_add(o, ...) nxsim__drv_add(&(o)->r, __VA_ARGS__)
/* a script or tool error: its text follows "line N:" */
#define kt_fail(o, err, ...) nxsim__drv_fail(&(o)->r, (err), __VA_ARGS__)
struct kt_slot *kt_slot_of_gpa(struct kt_vm *vm, uint64_t gpa);
void *kt_hva(struct kt_vm *vm, uint64_t gpa, size_t len);
int kt_add_slot(struct kt_vm *vm, struct kt_slot *n, struct kt_out *o);
/* Whether the VMs of this boot use TDP (kvm_amd.npt=Y). */
bool kt_tdp(void);

/* guest.c: the vCPU and its snippets */
int kt_vcpu_setup(struct kt_vcpu *c, int kvm_fd, struct kt_out *o);
int kt_code_slot(struct kt_vm *vm, struct kt_out *o);
int kt_access(struct kt_vcpu *c, const char *kind, uint64_t addr,
	      struct kt_out *o);
int kt_run_hlt(struct kt_vcpu *c, struct kt_out *o);
int kt_store(struct kt_vcpu *c, uint64_t gpa, uint64_t val, unsigned int size,
	     struct kt_out *o);
int kt_invlpg(struct kt_vcpu *c, uint64_t gva, struct kt_out *o);
int kt_paging(struct kt_vcpu *c, int argc, struct nxsim__drv_tok *argv,
	      struct kt_out *o);

/* stats.c: KVM_GET_STATS_FD */
int kt_stats(int fd, int argc, struct nxsim__drv_tok *argv, bool bare,
	     struct kt_out *o);

#endif /* NXSIM_TOOLS_KVM_H */
