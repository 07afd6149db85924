/*
 * The shared harness of the vmscale workloads: parameters, pinned threads,
 * barriers, a fixed-work measured loop between ROI markers, rdtsc cycle
 * counts, content verification and one JSON result line on stdout.
 *
 * A workload is one C file that defines `const struct workload workload`.
 * Each worker runs the workload's `run` once, between barriers that the
 * harness places around it; `run` does a fixed amount of work (never a
 * wall-clock loop: time under gem5 is simulated) and counts its operations.
 */
#ifndef VMSCALE_HARNESS_H
#define VMSCALE_HARNESS_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_SIZE 4096UL
#define WORDS_PER_PAGE (PAGE_SIZE / sizeof(uint64_t))
#define MAX_THREADS 1024

/* Fixed virtual addresses keep threads' ranges disjoint, as in RadixVM. */
#define REGION_BASE 0x100000000000UL	/* 16 TiB */
#define THREAD_STRIDE (1UL << 30)	/* 1 GiB of address space per thread */

struct param {
	const char *name;
	const char *dflt;	/* default, as text; numbers take k/m/g */
	const char *help;
};

struct worker {
	int tid;
	int cpu;
	uint64_t ops;		/* operations done inside the ROI */
	uint64_t errors;	/* verification failures */
	uint64_t cycles;	/* rdtsc cycles of the measured loop */
	uint64_t start;		/* rdtsc when it started: the start skew */
	uint64_t extra;		/* a workload-specific second count */
	uint64_t mmaps, munmaps;	/* explicit VM operations, for applications */
	uint64_t roi_minflt;	/* page faults between the ROI's barriers */
	uint64_t rng;
	void *priv;
	int go;			/* set when this parked thread may exit */
	int exit_tid;		/* cleared by the kernel as it exits */
} __attribute__((aligned(64)));

struct workload {
	const char *name;
	const char *summary;
	const char *ops_unit;		/* what one op is, for the result row */
	const char *extra_name;		/* name of worker.extra, or NULL */
	const struct param *params;	/* terminated by {NULL} */
	int (*setup)(int nthreads);	/* before the workers start, may be NULL */
	/*
	 * Each worker, pinned, before the ROI and before the counters are read:
	 * what the first operations would otherwise pay once (a radix tree's
	 * nodes, per-CPU page, slab and LRU lists, page-table pages), so that
	 * the ROI measures the steady state; counts nothing.  May be NULL.
	 */
	void (*warmup)(struct worker *w);
	void (*run)(struct worker *w);	/* the measured loop of one worker */
	uint64_t (*verify)(void);	/* after the ROI: wrong answers found, may be NULL */
	void (*teardown)(void);		/* may be NULL */
	/*
	 * After the ROI, before the counters are read: wait for deferred work
	 * the ROI left (reclamation) to finish; returns failures (a leak), may
	 * be NULL.  It may record what it found in worker 0's extra.
	 */
	uint64_t (*settle)(struct worker *w0);
};

extern const struct workload workload;
extern int nthreads;

/* Parameter values (workload params and the common ones). */
long long param_int(const char *name);
const char *param_str(const char *name);

/* Verification: word i of a page holds key + 8*i + (gen << 48). */
void fill_page(void *page, uint64_t key, uint64_t gen);
uint64_t check_page(struct worker *w, const void *page, uint64_t key, uint64_t gen);
uint64_t check_words(struct worker *w, const void *page, uint64_t key, uint64_t gen, size_t nwords);
/*
 * First touch of a fresh anonymous page: a write (so the fault is a write
 * fault, as in the papers' benchmarks, not a zero-page read plus a COW),
 * then a check that the rest of the page is zero.
 */
uint64_t touch_fresh_page(struct worker *w, void *page);

/* True exactly once when inject=1: the caller corrupts something on purpose. */
int inject_take(void);

/*
 * Probing memory that may be unmapped: after segv_catch_init(), a thread sets
 * segv_armed = 1, then `if (!sigsetjmp(segv_jmp, 1)) { access }`, then
 * segv_armed = 0; a SIGSEGV while armed returns from sigsetjmp with 1.  A
 * SIGSEGV while unarmed is a real crash and stays fatal.
 */
extern __thread sigjmp_buf segv_jmp;
extern __thread volatile int segv_armed;
void segv_catch_init(void);

/* All workers meet here (a spinning, sense-reversing barrier). */
void barrier_wait(void);
uint64_t xorshift(uint64_t *state);
uint64_t hash_bytes(const void *p, size_t n);	/* FNV-1a, never 0 */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
