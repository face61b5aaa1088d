// SPDX-License-Identifier: GPL-2.0-only
/*
 * The allocator module: one private jemalloc arena (mallocx/sdallocx,
 * created once per process; each thread has an explicit thread cache that
 * holds only the arena's blocks) or libc, chosen at build time by
 * NXSIM_WITH_JEMALLOC.  It keeps exact counters of what the simulator holds
 * (per thread, summed when read, as the kernel's per-CPU vmstat counters),
 * which tests use to prove that failure paths leak nothing and benchmarks
 * use to report bytes per VM and per frame, and a fail-the-Nth hook in the
 * spirit of the kernel's fault injection (failslab).
 *
 * With jemalloc, page-sized blocks (the MMU's page-table pages) are kept
 * on a free list of their own when freed, bounded, as the kernel's per-CPU
 * page lists keep freed pages: jemalloc serves 4 KiB from one-region slabs,
 * so every such allocation and free past the few a thread cache holds is
 * an extent operation (250-400 ns on the 2-core reference machine, 4-6x a
 * small object).  Pages on that list are free as far as the counters go,
 * and leave it in the order they joined it (page_list_pop()).
 * Blocks of 2 MiB and more come from a second private arena, whose memory
 * is advised for transparent huge pages (madvise(MADV_HUGEPAGE), which
 * hosts whose transparent_hugepage setting is "madvise" need; HUGE_MIN):
 * jemalloc has no per-arena setting, its opt.thp is the process's.
 * Blocks of 64 MiB and more are anonymous mappings of their own, zeroed
 * lazily by the kernel and touched sparsely, on small pages
 * (backend_alloc()).  Freed memory stays with the arenas for the next
 * blocks, however much of it there is (arena_new()): only jemalloc's time
 * decay gives it back.  With libc nothing asks for huge pages: glibc maps
 * blocks this large on their own, on small pages unless its
 * glibc.malloc.hugetlb tunable says otherwise.
 *
 * Left out: jemalloc's own statistics and arena teardown; the arenas and
 * the page list live as long as the process.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/sys/queue.h>

#if NXSIM_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>
#include <sys/mman.h>
#else
#include <malloc.h>
#endif

#include <nxsim/alloc.h>

#include "core/alloc.h"
#include "core/compiler.h"

/*
 * The exact counters are kept per thread: a thread adds to its own with
 * plain stores (relaxed atomics, no locked instruction), and a reader sums
 * every thread's under counters_lock.  One locked add per counter, five
 * per allocation and free, cost more than a page-sized allocation from
 * the free list below.  A thread's counts join @retired when it exits
 * (its key's destructor), so nothing is lost; a thread's own live counts
 * may wrap below zero (it frees what another made), the sums do not.
 */
struct counters {
	_Atomic uint64_t allocs, live, live_bytes;
	LIST_ENTRY(counters) link;
	bool registered;
};

static pthread_mutex_t counters_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, counters) counters_list = LIST_HEAD_INITIALIZER(counters);
static struct counters retired;
static pthread_key_t counters_key;
static pthread_once_t counters_once = PTHREAD_ONCE_INIT;
static bool have_counters_key;
static __thread struct counters my_counters;
static _Atomic uint64_t nr_failed;
static atomic_ulong fail_countdown;

/* Add @d to a counter only its thread (or counters_lock) writes. */
static void bump(_Atomic uint64_t *v, uint64_t d)
{
	atomic_store_explicit(v,
			      atomic_load_explicit(v, memory_order_relaxed) + d,
			      memory_order_relaxed);
}

static void counters_fold(struct counters *to, struct counters *from)
{
	bump(&to->allocs,
	     atomic_load_explicit(&from->allocs, memory_order_relaxed));
	bump(&to->live,
	     atomic_load_explicit(&from->live, memory_order_relaxed));
	bump(&to->live_bytes,
	     atomic_load_explicit(&from->live_bytes, memory_order_relaxed));
}

static void backend_thread_exit(void);

/* Thread exit: the counts join @retired; the thread's cache goes. */
static void counters_retire(void *arg)
{
	struct counters *c = arg;

	backend_thread_exit();
	pthread_mutex_lock(&counters_lock);
	counters_fold(&retired, c);
	LIST_REMOVE(c, link);
	atomic_store(&c->allocs, 0);
	atomic_store(&c->live, 0);
	atomic_store(&c->live_bytes, 0);
	c->registered = false;
	pthread_mutex_unlock(&counters_lock);
}

static void counters_key_create(void)
{
	have_counters_key = !pthread_key_create(&counters_key, counters_retire);
}

/*
 * The calling thread's counters, registered on first use; @retired (under
 * counters_lock, which the caller must then drop) if the thread cannot
 * have a destructor (no key could be made, or set).
 */
static struct counters *counters_get(bool *locked)
{
	struct counters *c = &my_counters;

	*locked = false;
	if (c->registered)
		return c;
	pthread_once(&counters_once, counters_key_create);
	pthread_mutex_lock(&counters_lock);
	if (!have_counters_key || pthread_setspecific(counters_key, c)) {
		*locked = true;
		return &retired;
	}
	LIST_INSERT_HEAD(&counters_list, c, link);
	c->registered = true;
	pthread_mutex_unlock(&counters_lock);
	return c;
}

static void count(uint64_t allocs, uint64_t live, uint64_t bytes)
{
	bool locked;
	struct counters *c = counters_get(&locked);

	bump(&c->allocs, allocs);
	bump(&c->live, live);
	bump(&c->live_bytes, bytes);
	if (locked)
		pthread_mutex_unlock(&counters_lock);
}

#if NXSIM_WITH_JEMALLOC
/*
 * jemalloc carves a new slab out of a freed (dirty) extent only when that
 * extent is at most 2^lg_extent_max_active_fit times the slab's size (6 by
 * default: 64x).  A host that frees its VMs leaves their slabs as one
 * large dirty extent, more than 64x any of their slabs (20 KB at most)
 * once 1000 VMs (3 MB) are gone, so the next VMs were served from fresh
 * pages, about one page fault per VM, most of a bring-up's CPU time
 * (docs/bringup.md, "Speed").  Any bound only moves that cliff: 2^10 (20
 * MB for a 20 KB slab) held to about 10^4 VMs, and past it each burst
 * of 10^5 VMs faulted in 300 MB more while 480 MB lay freed.  63 is no
 * bound (jemalloc shifts the extent's size by it): a slab comes out of the
 * oldest freed extent that holds it, as jemalloc serves the muzzy and
 * retained ones.  The option is process-wide, read once at jemalloc's
 * start, so it is set here, weak: a host's own malloc_conf wins, and
 * MALLOC_CONF in the environment is read after it.  It is exported from
 * the shared library too (whose symbols are hidden by default), where
 * jemalloc's reference finds it before jemalloc's own.
 */
__attribute__((weak, visibility("default")))
const char *malloc_conf = "lg_extent_max_active_fit:63";

static unsigned int arena_index, huge_index;
static int arena_only;	/* MALLOCX_ARENA(arena_index), or 0 */
static int huge_flags;	/* the arena of huge blocks (HUGE_MIN and more) */
static int arena_flags; /* the arena without a thread cache */
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static __thread int thread_flags; /* the arena and this thread's cache */
static __thread unsigned int thread_tcache;

/*
 * A new arena (its MALLOCX_ARENA(), or 0 if none could be made) that
 * keeps its freed memory.  jemalloc merges a freed extent of 16 KiB
 * or more with its freed neighbours at once, and gives the result back to
 * the kernel at once (MADV_DONTNEED, extent_maximally_purge() in
 * extent_record()) when it reaches the arena's oversize_threshold, 8 MiB
 * by default, whatever its decay time says.  The slabs of freed VMs merge
 * that way: of 10^5 VMs' 480 MB, 360 MB went back as the VMs were
 * destroyed, and every VM of the next burst past the first 2.3x10^4
 * faulted its pages in again (about one fault, 1.4 us, per VM: 3x the
 * bring-up).  No threshold (SIZE_MAX) keeps freed memory dirty, for reuse,
 * until the arena's decay returns it: over 10 s by default, and only as the
 * arena allocates or frees, unless the program turns on jemalloc's
 * background thread (MALLOC_CONF=background_thread:true).  The call exists
 * from jemalloc 5.3; where it fails, the arena purges as before.
 */
static int arena_new(unsigned int *index)
{
	size_t len = sizeof(*index), no_oversize = SIZE_MAX;
	char name[48];

	if (mallctl("arenas.create", index, &len, NULL, 0))
		return 0;
	snprintf(name, sizeof(name), "arena.%u.oversize_threshold", *index);
	mallctl(name, NULL, NULL, &no_oversize, sizeof(no_oversize));
	return MALLOCX_ARENA(*index);
}

static extent_alloc_t *default_extent_alloc;
static extent_hooks_t huge_hooks;

/*
 * The huge arena's memory: what jemalloc's own hook maps, with
 * transparent huge pages asked for (MADV_HUGEPAGE: the host's
 * transparent_hugepage setting may be "madvise").  It is only advice:
 * where it fails (a kernel without them), the memory is as the private
 * arena's.
 */
static void *huge_extent_alloc(extent_hooks_t *hooks, void *new_addr,
			       size_t size, size_t alignment, bool *zero,
			       bool *commit, unsigned int arena_ind)
{
	void *p = default_extent_alloc(hooks, new_addr, size, alignment, zero,
				       commit, arena_ind);

	if (p)
		madvise(p, size, MADV_HUGEPAGE);
	return p;
}

/*
 * The huge arena: a second private arena whose extent hooks are
 * jemalloc's but for the one that maps memory (huge_extent_alloc()), set
 * once the arena is made, so that its own metadata stays on small pages.
 * Where that fails, huge blocks come from the private arena.
 */
static void huge_arena_create(void)
{
	extent_hooks_t *hooks, *mine = &huge_hooks;
	size_t len = sizeof(hooks);
	char name[48];
	int flags = arena_new(&huge_index);

	huge_flags = arena_only;
	if (!flags)
		return;
	snprintf(name, sizeof(name), "arena.%u.extent_hooks", huge_index);
	if (mallctl(name, &hooks, &len, NULL, 0) || !hooks || !hooks->alloc)
		return;
	huge_hooks = *hooks;
	default_extent_alloc = hooks->alloc;
	huge_hooks.alloc = huge_extent_alloc;
	if (!mallctl(name, NULL, NULL, &mine, sizeof(mine)))
		huge_flags = flags;
}

/* The private arena and the huge arena, made once. */
static void arena_create(void)
{
	arena_only = arena_new(&arena_index);
	arena_flags = arena_only | MALLOCX_TCACHE_NONE;
	huge_arena_create();
}

/* A thread gets its cache at its 128th allocation: few threads pay. */
#define TCACHE_AFTER 128

/*
 * The calling thread's flags: the arena with a thread cache of the
 * thread's own (tcache.create), which only ever holds blocks of the
 * private arena and is destroyed when the thread exits (backend_thread_
 * exit()).  Making and destroying one costs about 15 us, so a thread that
 * allocates little goes without, as does one that cannot have a
 * destructor or finds jemalloc's cache ids used up.
 */
static int flags_for_thread(void)
{
	size_t len = sizeof(thread_tcache);
	bool locked;

	if (thread_flags)
		return thread_flags;
	pthread_once(&arena_once, arena_create);
	if (atomic_load_explicit(&my_counters.allocs, memory_order_relaxed) <
	    TCACHE_AFTER)
		return arena_flags;
	counters_get(&locked);
	if (locked) {
		pthread_mutex_unlock(&counters_lock);
		return arena_flags;
	}
	if (mallctl("tcache.create", &thread_tcache, &len, NULL, 0) == 0)
		thread_flags = arena_only | MALLOCX_TCACHE(thread_tcache);
	else
		thread_flags = arena_flags;
	return thread_flags;
}

static void backend_thread_exit(void)
{
	if (thread_flags && thread_flags != arena_flags)
		mallctl("tcache.destroy", NULL, NULL, &thread_tcache,
			sizeof(thread_tcache));
	thread_flags = 0;
}

#define PAGE_BYTES 4096
/* Up to 16 MiB of freed pages wait for reuse. */
#define PAGE_LIST_MAX 4096u

/*
 * A ring of pointers, so that neither push nor pop touches the page: @len
 * pages from @head on (modulo PAGE_LIST_MAX).
 */
static struct {
	pthread_mutex_t lock;
	unsigned int head, len;
	void *pages[PAGE_LIST_MAX];
} page_list = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The oldest page on the free list, or NULL if it is empty.  First in,
 * first out, so that pages freed together (a VM's tables, freed in the
 * order they were linked) are reused in the order they were freed: a
 * stack handed them out in reverse, at descending addresses, and filling
 * 2048 table pages that way took 2.1x as long as filling them at
 * ascending addresses (nx_split, 700 vs 300 cycles per 4 KiB fill on the
 * 2-core reference machine: the hardware prefetcher follows ascending
 * streams across pages).  @warm_next: the caller will write the page
 * (an allocation), not hand it back (a trim).
 */
static void *page_list_pop(bool warm_next)
{
	char *p = NULL, *next = NULL;
	unsigned int off;

	pthread_mutex_lock(&page_list.lock);
	if (page_list.len) {
		p = page_list.pages[page_list.head];
		page_list.head = (page_list.head + 1) % PAGE_LIST_MAX;
		if (--page_list.len && warm_next)
			next = page_list.pages[page_list.head];
	}
	pthread_mutex_unlock(&page_list.lock);
	/*
	 * Page-sized blocks are mostly page-table pages, written whole soon
	 * after they are taken (a split's 512 SPTEs, a new table's clear):
	 * the next one on the list is brought into the cache now, so that
	 * its lines arrive while this caller and the next one work rather
	 * than while the next one writes.  The hint asks for writing, but
	 * without PREFETCHW in the target (-mprfchw) gcc emits a read
	 * prefetch (prefetcht0).  A prefetch does not fault, even if another
	 * thread took that page meanwhile.  The loop is not unrolled: 64
	 * prefetches back to back made a split slower (docs/bench.md).
	 */
	if (next)
		for (off = 0; off < PAGE_BYTES; off += SMP_CACHE_BYTES)
			__builtin_prefetch(next + off, 1, 3);
	return p;
}

/* Keep @ptr for reuse; false if the list is full. */
static bool page_list_push(void *ptr)
{
	bool kept;

	pthread_mutex_lock(&page_list.lock);
	kept = page_list.len < PAGE_LIST_MAX;
	if (kept)
		page_list.pages[(page_list.head + page_list.len++) %
				PAGE_LIST_MAX] = ptr;
	pthread_mutex_unlock(&page_list.lock);
	return kept;
}

/*
 * Blocks of HUGE_MIN bytes (a huge page) and more, below LAZY_MIN, are
 * the huge arena's, aligned to a huge page, and the kernel backs them
 * with huge pages where it can (huge_extent_alloc()).  They are tables
 * written whole (zeroed ones are memset, backend_alloc()) and read at
 * random: an XPFO machine's frame table and reverse index at 512 CPUs are
 * 55 MiB, 14000 pages of 4 KiB or 28 of 2 MiB for the host's TLB.  Their
 * memory is as densely used as the private arena's (a block's last huge
 * page may hold the start of the next), so huge pages add no memory but
 * that of the arena's last one.
 */
#define HUGE_MIN (2ul << 20)

/* Page-sized blocks are page-aligned, whatever the caller asked. */
static int block_flags(size_t size, size_t align)
{
	if (size >= HUGE_MIN) {
		pthread_once(&arena_once, arena_create);
		return huge_flags | MALLOCX_TCACHE_NONE |
		       MALLOCX_ALIGN(HUGE_MIN);
	}
	if (size == PAGE_BYTES)
		align = PAGE_BYTES;
	return flags_for_thread() | (align ? MALLOCX_ALIGN(align) : 0);
}

/*
 * Blocks of LAZY_MIN bytes and more are mappings of their own (an XPFO
 * machine's frame table: 16 bytes a frame, up to 2^32 frames, 64 GiB): a
 * fresh anonymous mapping reads as zero and is backed only where touched,
 * so a zeroed one costs no memset and no memory until used, and its pages
 * go back to the kernel when it is freed.  The mapping is accounted as
 * any other (no MAP_NORESERVE): a block the kernel's overcommit policy
 * refuses is -ENOMEM at once, not an OOM kill when it is touched.  Below
 * LAZY_MIN the arena serves.
 */
#define LAZY_MIN (64ul << 20)

static bool is_mapping(size_t size, size_t align)
{
	return size >= LAZY_MIN && align <= PAGE_BYTES;
}

static void *mapping_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Zeroed blocks are zeroed here, never with MALLOCX_ZERO: jemalloc zeroes a
 * large block it makes from memory freed before by handing the pages back
 * to the kernel (MADV_DONTNEED, in ehooks_default_zero_impl()), so every
 * page of it faults in again on first touch, and with more than one
 * thread running each such call also shoots down the other CPUs' TLBs.
 * A simulated machine makes and frees megabytes of zeroed tables; that
 * was 1060 page faults per sweep job and most of its CPU time
 * (docs/sweep.md).  A memset of memory already mapped costs neither; the
 * price is that a block from fresh memory is touched whole at once.
 */
static void *backend_alloc(size_t size, size_t align, bool zero)
{
	void *p;

	if (is_mapping(size, align))
		return mapping_alloc(size);
	if (!(size == PAGE_BYTES && (p = page_list_pop(true))))
		p = mallocx(size, block_flags(size, align));
	if (p && zero)
		memset(p, 0, size);
	return p;
}

static void backend_free(void *ptr, size_t size, size_t align)
{
	if (is_mapping(size, align)) {
		munmap(ptr, size);
		return;
	}
	if (size == PAGE_BYTES && page_list_push(ptr))
		return;
	sdallocx(ptr, size, block_flags(size, align));
}

static void *backend_realloc(void *ptr, size_t old_size, size_t new_size)
{
	void *p;

	if (old_size != PAGE_BYTES && new_size != PAGE_BYTES &&
	    !is_mapping(old_size, 0) && !is_mapping(new_size, 0))
		return rallocx(ptr, new_size, block_flags(new_size, 0));
	/*
	 * A page-sized block or a mapping moves, so that every block is on
	 * the path its size takes.
	 */
	p = backend_alloc(new_size, 0, false);
	if (p) {
		memcpy(p, ptr, MIN(old_size, new_size));
		backend_free(ptr, old_size, 0);
	}
	return p;
}

const char *nxsim_alloc_backend(void)
{
	return "jemalloc";
}

/*
 * The free page list goes back to the arena (without a thread cache, so
 * that no cache keeps it), then the arena's unused pages to the kernel
 * (arena.<i>.purge, which ends the wait for decay).
 */
void nxsim_alloc_trim(void)
{
	char name[32];
	void *p;

	pthread_once(&arena_once, arena_create);
	while ((p = page_list_pop(false)))
		sdallocx(p, PAGE_BYTES,
			 arena_flags | MALLOCX_ALIGN(PAGE_BYTES));
	if (!arena_only)
		return;
	snprintf(name, sizeof(name), "arena.%u.purge", arena_index);
	mallctl(name, NULL, NULL, NULL, 0);
	if (huge_flags == arena_only)
		return;
	snprintf(name, sizeof(name), "arena.%u.purge", huge_index);
	mallctl(name, NULL, NULL, NULL, 0);
}
#else
static void *backend_alloc(size_t size, size_t align, bool zero)
{
	void *p;

	if (align) {
		p = aligned_alloc(align, DIV_ROUND_UP(size, align) * align);
		if (p && zero)
			memset(p, 0, size);
		return p;
	}
	return zero ? calloc(1, size) : malloc(size);
}

static void backend_free(void *ptr, size_t size, size_t align)
{
	(void)size;
	(void)align;
	free(ptr);
}

static void *backend_realloc(void *ptr, size_t old_size, size_t new_size)
{
	(void)old_size;
	return realloc(ptr, new_size);
}

static void backend_thread_exit(void)
{
}

const char *nxsim_alloc_backend(void)
{
	return "libc";
}

void nxsim_alloc_trim(void)
{
	malloc_trim(0);
}
#endif

/* Consume one step of the armed countdown; true when this call must fail. */
static bool should_fail(void)
{
	unsigned long n =
		atomic_load_explicit(&fail_countdown, memory_order_relaxed);

	while (n) {
		if (atomic_compare_exchange_weak(&fail_countdown, &n, n - 1))
			return n == 1;
	}
	return false;
}

static void *account(void *p, size_t size)
{
	if (!p) {
		atomic_fetch_add_explicit(&nr_failed, 1, memory_order_relaxed);
		return NULL;
	}
	count(1, 1, size);
	return p;
}

static void *do_alloc(size_t size, size_t align, bool zero)
{
	if (size == 0 || should_fail())
		return account(NULL, size);
	return account(backend_alloc(size, align, zero), size);
}

void *nxsim__alloc(size_t size)
{
	return do_alloc(size, 0, false);
}

void *nxsim__zalloc(size_t size)
{
	return do_alloc(size, 0, true);
}

void *nxsim__zalloc_aligned(size_t size, size_t align)
{
	return do_alloc(size, align, true);
}

void *nxsim__calloc(size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return account(NULL, 0);
	return do_alloc(bytes, 0, true);
}

void *nxsim__realloc(void *ptr, size_t old_size, size_t new_size)
{
	void *p;

	if (!ptr)
		return nxsim__alloc(new_size);
	if (new_size == 0 || should_fail())
		return account(NULL, 0);
	p = backend_realloc(ptr, old_size, new_size);
	if (!p)
		return account(NULL, 0);
	count(1, 0, new_size - old_size);
	return p;
}

static void unaccount(size_t size)
{
	count(0, -1ull, -(uint64_t)size);
}

void nxsim__free(void *ptr, size_t size)
{
	if (!ptr)
		return;
	unaccount(size);
	backend_free(ptr, size, 0);
}

void nxsim__free_aligned(void *ptr, size_t size, size_t align)
{
	if (!ptr)
		return;
	unaccount(size);
	backend_free(ptr, size, align);
}

char *nxsim__strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = nxsim__alloc(len);

	if (p)
		memcpy(p, s, len);
	return p;
}

void nxsim_alloc_stats(struct nxsim_alloc_stats *st)
{
	struct counters sum = { 0 };
	struct counters *c;

	if (!st)
		return;
	pthread_mutex_lock(&counters_lock);
	counters_fold(&sum, &retired);
	LIST_FOREACH(c, &counters_list, link)
		counters_fold(&sum, c);
	pthread_mutex_unlock(&counters_lock);
	st->allocs = atomic_load(&sum.allocs);
	st->live = atomic_load(&sum.live);
	st->live_bytes = atomic_load(&sum.live_bytes);
	st->failed = atomic_load(&nr_failed);
}

void nxsim_alloc_fail_nth(unsigned long nth)
{
	atomic_store(&fail_countdown, nth);
}

bool nxsim_alloc_fail_pending(void)
{
	return atomic_load(&fail_countdown) != 0;
}
