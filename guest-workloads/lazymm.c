/*
 * lazymm: every thread sleeps briefly, over and over, so each CPU switches
 * from the process to idle and back.  With lazy TLB the idle task borrows
 * the process's mm: mmgrab_lazy_tlb() and mmdrop_lazy_tlb() on every
 * switch, on one mm shared by all CPUs -- an atomic on mm->mm_count, or
 * per-CPU Refcache deltas under vm.vmscale_lazy_mm=refcache.  Each sleep
 * also writes to the thread's own page, which is verified at the end.
 */
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const struct param params[] = {
	{ "iters", "2000", "sleeps per thread" },
	{ "sleep_ns", "1000", "length of each sleep" },
	{ NULL }
};

static void run(struct worker *w)
{
	long long iters = param_int("iters");
	struct timespec ts = { 0, param_int("sleep_ns") };
	char *page = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);

	if (mmap(page, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != page)
		die("thread %d: mmap: %s", w->tid, strerror(errno));
	fill_page(page, (uintptr_t)page, 0);
	for (long long i = 0; i < iters; i++) {
		if (nanosleep(&ts, NULL) && errno != EINTR)
			die("thread %d: nanosleep: %s", w->tid, strerror(errno));
		w->ops++;
	}
	/* The mm must still be ours after thousands of trips through idle. */
	check_page(w, page, (uintptr_t)page, 0);
	munmap(page, PAGE_SIZE);
}

const struct workload workload = {
	.name = "lazymm",
	.summary = "threads sleep and wake so every CPU borrows the process mm lazily",
	.ops_unit = "sleep+wake",
	.params = params,
	.run = run,
};
