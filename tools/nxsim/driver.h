/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The nxsim driver: a line protocol over the public libnxsim API, in the
 * spirit of QEMU's qtest.  One command a line, one answer a line:
 *
 *   OK [values...]
 *   ERR -EXXX message
 *
 * Values with spaces, quotes or unprintable bytes are C strings
 * ("never\n").  Objects (clocks, hosts, VMs, vCPUs) are named by the
 * script.
 * "expect" lines check the previous answer (docs/driver.md).
 *
 * A verb is one entry of the table in verbs.c plus one handler.
 */
#ifndef NXSIM_TOOLS_DRIVER_H
#define NXSIM_TOOLS_DRIVER_H

#include <stdbool.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <bsd/sys/queue.h>

#include <nxsim/nxsim.h>

/* A word of a command line, unquoted; may hold NUL bytes. */
struct nxsim__drv_tok {
	char *s;    /* NUL-terminated copy */
	size_t len; /* its length, NULs included */
};

#define NXSIM__DRV_MAX_TOKS 64
#define NXSIM__DRV_REPLY 4096
#define NXSIM__DRV_NAME_MAX 255 /* bytes of an object name */
#define NXSIM__DRV_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The answer a handler builds. */
struct nxsim__drv_reply {
	char buf[NXSIM__DRV_REPLY]; /* " value value ..." */
	size_t len;
	char err[NXSIM__DRV_REPLY]; /* message of an ERR; "" for default */
	int rc;	  /* the errno of a failed lookup or script error; 0: none */
	bool cut; /* something added did not fit: the answer is -E2BIG */
};

struct nxsim__drv;

/**
 * struct nxsim__drv_verb - one command; a table ends with a NULL @group
 * @group: first word ("host", "vm", "errno")
 * @name: second word ("create"), or NULL for a one-word verb
 * @min_args: arguments after the verb words, at least
 * @max_args: at most (-1: no limit)
 * @usage: the arguments, for --help and usage errors
 * @help: one line saying what it does and answers
 * @fn: the handler; returns 0 or a negative errno
 */
struct nxsim__drv_verb {
	const char *group;
	const char *name;
	int min_args;
	int max_args;
	const char *usage;
	const char *help;
	int (*fn)(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		  struct nxsim__drv_reply *r);
};

/* The verb tables, one per file of handlers; verbs.c lists them. */
extern const struct nxsim__drv_verb nxsim__drv_host_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_vm_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_misc_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_mmu_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_guest_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_xpfo_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_bringup_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_workload_verbs[];
extern const struct nxsim__drv_verb nxsim__drv_plugin_verbs[];
extern const struct nxsim__drv_verb *const nxsim__drv_tables[];

enum nxsim__drv_kind {
	NXSIM__DRV_HOST,
	NXSIM__DRV_VM,
	NXSIM__DRV_VCPU,
	NXSIM__DRV_CLOCK,
	NXSIM__DRV_XPFO, /* an XPFO machine */
};

/* options of nxsim__drv_create() */
#define NXSIM__DRV_KEEP_GOING (1u << 0) /* go on after a failed expect */
#define NXSIM__DRV_TRACE (1u << 1)	/* echo each command to @err */
#define NXSIM__DRV_STRICT (1u << 2)	/* a command without expect fails */
/* an ERR answer no expect checks fails the script */
#define NXSIM__DRV_FAIL_ON_ERR (1u << 3)
/* TAP on @out: a test point a command, answers as comments, the plan */
#define NXSIM__DRV_TAP (1u << 4)

struct nxsim__drv *nxsim__drv_create(FILE *out, FILE *err, unsigned int flags);
/*
 * Runs a script; returns 0, or 1 if an expectation failed (or, strict, a
 * command was not checked; or, fail-on-err, an ERR was not expected).
 */
int nxsim__drv_run(struct nxsim__drv *d, FILE *in, const char *name);
/* Destroys every object the script left, then the driver. */
void nxsim__drv_destroy(struct nxsim__drv *d);
void nxsim__drv_help(FILE *f);

/* lex.c */
/**
 * nxsim__drv_lex() - split a line into words
 * @line: the line, without its newline
 * @len: its length
 * @toks: receives up to NXSIM__DRV_MAX_TOKS words
 * @buf: room for the unquoted words: at least 2 * @len + 1 bytes
 * @why: receives what is wrong
 *
 * Words are separated by blanks; "..." parts are C strings (\n \t \r \\
 * \" \0 \ooo \xHH with at most two hex digits, \a \b \f \v \e); a word may
 * mix bare and quoted parts (cmdline="a b").  '#' at a word's start
 * begins a comment.
 *
 * Return: the number of words, or -EINVAL (unterminated string, unknown
 * escape, control byte outside quotes) or -E2BIG (too many words).
 */
int nxsim__drv_lex(const char *line, size_t len, struct nxsim__drv_tok *toks,
		   char *buf, const char **why);
/* The same with room for @max words in @toks (a line of @len bytes has at
 * most @len / 2 + 1). */
int nxsim__drv_lex_max(const char *line, size_t len,
		       struct nxsim__drv_tok *toks, size_t max, char *buf,
		       const char **why);
/* Whether @s reads back as itself unquoted: printable ASCII, no blank,
 * quote or backslash, not empty, no leading '#'. */
bool nxsim__drv_bare(const char *s, size_t len);
/* Appends " s" or " key=s": @s bare when printable, else a C string. */
void nxsim__drv_quote(struct nxsim__drv_reply *r, const char *key,
		      const char *s, size_t len);
/* "s" or "key=s", without the blank, onto a stream: no length limit. */
void nxsim__drv_fquote(FILE *f, const char *key, const char *s, size_t len);

/* words.c: the answer, a script error, numbers, options, durations */
void nxsim__drv_add(struct nxsim__drv_reply *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int nxsim__drv_fail(struct nxsim__drv_reply *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int nxsim__drv_u64(const struct nxsim__drv_tok *t, uint64_t max, uint64_t *v,
		   struct nxsim__drv_reply *r);
/*
 * strtoull() for the driver's numbers: decimal (leading zeros too: 010 is
 * ten), 0x hexadecimal, 0o octal; *@end at the first byte not taken.
 */
unsigned long long nxsim__drv_strtou64(const char *s, char **end);
/* "A-B,C,..." into @bm, each page below @num; -EINVAL if not. */
int nxsim__drv_pages(const char *list, uint64_t *bm, uint64_t num,
		     struct nxsim__drv_reply *r);
/* "key=value": the value when @t starts with @key and '=' */
const char *nxsim__drv_opt(const struct nxsim__drv_tok *t, const char *key);
/* "60s", "100ms", "250us", "5ns" or a bare count of ns */
int nxsim__drv_duration(const struct nxsim__drv_tok *t, uint64_t *ns,
			struct nxsim__drv_reply *r);

/* interp.c: helpers for the handlers */
/* Looks an object up by name; on failure fills @r and returns NULL. */
void *nxsim__drv_find(struct nxsim__drv *d, const char *name,
		      enum nxsim__drv_kind kind, struct nxsim__drv_reply *r);
/* 0 if @name may name a new object: a bare word, unused, not too long. */
int nxsim__drv_name_free(struct nxsim__drv *d,
			 const struct nxsim__drv_tok *name,
			 struct nxsim__drv_reply *r);
int nxsim__drv_add_object(struct nxsim__drv *d, const char *name,
			  enum nxsim__drv_kind kind, void *ptr);
/* Adds vCPU @name of the VM named @vm. */
int nxsim__drv_add_vcpu(struct nxsim__drv *d, const char *name, const char *vm,
			struct nxsim_vcpu *vcpu);
/* nxsim_vm_destroy() and release the VM named @name; its names stay. */
int nxsim__drv_vm_destroy(struct nxsim__drv *d, const char *name);
void nxsim__drv_forget_host(struct nxsim__drv *d, struct nxsim_host *host);
void nxsim__drv_forget(struct nxsim__drv *d, const char *name);
/* The host named, or the current one (the last created or used). */
struct nxsim_host *nxsim__drv_host(struct nxsim__drv *d, const char *name,
				   struct nxsim__drv_reply *r);
void nxsim__drv_use_host(struct nxsim__drv *d, struct nxsim_host *host);

/*
 * The memory slots a script gave a VM, as it last set them: KVM wants the
 * whole region again to move a slot or change its flags.  Forgotten with
 * the VM's name.
 */
struct nxsim__drv_slot {
	SLIST_ENTRY(nxsim__drv_slot) link;
	struct nxsim_memory_region mr;
};
/* The record of slot @id of VM @vm (made if @create), or NULL. */
struct nxsim__drv_slot *nxsim__drv_slot(struct nxsim__drv *d, const char *vm,
					uint32_t id, bool create);
void nxsim__drv_slot_drop(struct nxsim__drv *d, const char *vm,
			  struct nxsim__drv_slot *s);
/* verbs_xpfo.c, for the replay verb: "6".."9"; the benchmark figures */
int nxsim__drv_xpfo_version(const char *s, enum nxsim_xpfo_version *v,
			    struct nxsim__drv_reply *r);
void nxsim__drv_add_result(struct nxsim__drv_reply *r,
			   const struct nxsim_xpfo_result *res);
/* A TLB option (seed= ceiling= broadcast= repl= l1d= l1i= l2=) */
int nxsim__drv_tlb_option(const struct nxsim__drv_tok *t,
			  struct nxsim_tlb_config *tlb, bool *matched,
			  struct nxsim__drv_reply *r);
/*
 * " name=value" for each field of @st, a struct of @set, in struct order;
 * only the fields @only names (NULL-terminated) when @only is not NULL.
 */
void nxsim__drv_add_stats(struct nxsim__drv_reply *r, enum nxsim_stats_set set,
			  const void *st, const char *const *only);
/* Where the driver writes diagnostics (stderr for the program). */
FILE *nxsim__drv_errf(struct nxsim__drv *d);
/*
 * The cost tables the script's last "xpfo workload" and "bringup run"
 * charged (the defaults before the first), for nxsim-sweep's result lines.
 */
struct nxsim__drv_costs {
	struct nxsim_xpfo_costs xpfo;
	struct nxsim_bringup_costs bringup;
};
struct nxsim__drv_costs *nxsim__drv_costs(struct nxsim__drv *d);

#endif /* NXSIM_TOOLS_DRIVER_H */
