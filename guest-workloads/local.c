/*
 * local (RadixVM §5.3): each thread repeatedly mmaps a private region in its
 * own part of the address space, writes and verifies it, and munmaps it.
 * The ranges never overlap, so an ideal VM system scales this perfectly.
 */
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static const struct param params[] = {
	{ "iters", "500", "mmap/write/munmap rounds per thread" },
	{ "pages", "1", "pages per mapping" },
	{ "fixed", "1", "1: map at a per-thread fixed address; 0: let the kernel choose" },
	{ "warmup", "1", "rounds per thread before the ROI, not counted" },
	{ NULL }
};

/* One mmap, write, verify and munmap of this thread's region. */
static void round_trip(struct worker *w, long long gen)
{
	long long pages = param_int("pages");
	size_t len = pages * PAGE_SIZE;
	char *want = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);
	int fixed = param_int("fixed");
	char *p = mmap(fixed ? want : NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED_NOREPLACE : 0),
		       -1, 0);

	if (p == MAP_FAILED || (fixed && p != want))
		die("thread %d: mmap: %s", w->tid, strerror(errno));
	for (long long pg = 0; pg < pages; pg++) {
		touch_fresh_page(w, p + pg * PAGE_SIZE);
		fill_page(p + pg * PAGE_SIZE, (uintptr_t)p + pg * PAGE_SIZE, gen);
	}
	for (long long pg = 0; pg < pages; pg++)
		check_page(w, p + pg * PAGE_SIZE, (uintptr_t)p + pg * PAGE_SIZE, gen);
	if (munmap(p, len))
		die("thread %d: munmap: %s", w->tid, strerror(errno));
}

/*
 * The first round builds what every later one reuses: the radix tree's
 * nodes for this thread's range (RadixVM), this CPU's page and slab lists.
 * At 80 cores that start-up was most of a 10-round ROI (FINDINGS, session 36).
 */
static void warmup(struct worker *w)
{
	for (long long i = 0; i < param_int("warmup"); i++)
		round_trip(w, ~i);
}

static void run(struct worker *w)
{
	long long iters = param_int("iters");

	for (long long i = 0; i < iters; i++) {
		round_trip(w, i);
		w->ops++;
	}
}

const struct workload workload = {
	.name = "local",
	.summary = "each thread mmaps, writes and munmaps private, disjoint regions",
	.ops_unit = "mmap+write+munmap",
	.params = params,
	.warmup = warmup,
	.run = run,
};
