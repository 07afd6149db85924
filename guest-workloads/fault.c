/*
 * fault (Bonsai §7.3): all threads but one soft-fault fresh anonymous pages
 * of one shared mapping (each thread its own slice), re-arming them with
 * MADV_DONTNEED after every round; thread 0 spends a fixed share of its
 * operations on mmap/munmap elsewhere, which takes mmap_lock for writing.
 * Fixed work, not a fraction of time: gem5 time is simulated.
 */
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static const struct param params[] = {
	{ "iters", "8", "rounds over each thread's slice" },
	{ "pages", "64", "pages in each thread's slice" },
	{ "mmap_pct", "10", "share (%) of thread 0's operations that are an "
			    "mmap+munmap pair (with threads > 1)" },
	{ "own_pt", "1", "1: start each slice on its own page-table page (2 MiB), "
			  "so threads share no PTE lock; 0: slices packed" },
	{ "warmup", "1", "rounds over each slice before the ROI, not counted" },
	{ NULL }
};

#define PTE_PAGES 512UL	/* pages mapped by one page-table page */

static char *region;
static size_t stride;	/* bytes between the starts of two threads' slices */

static int setup(int n)
{
	long long pages = param_int("pages");

	stride = (param_int("own_pt") ? (size_t)(pages + PTE_PAGES - 1) / PTE_PAGES * PTE_PAGES
				      : (size_t)pages) * PAGE_SIZE;
	/* One VMA for all threads; 2 MiB aligned so each slice starts a page-table page. */
	region = mmap(NULL, n * stride + PTE_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED)
		die("mmap region: %s", strerror(errno));
	region = (char *)(((uintptr_t)region + PTE_PAGES * PAGE_SIZE - 1) & ~(PTE_PAGES * PAGE_SIZE - 1));
	return 0;
}

static void mmap_munmap(struct worker *w)
{
	char *want = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);
	char *p = mmap(want, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != want)
		die("thread %d: mmap: %s", w->tid, strerror(errno));
	if (munmap(p, PAGE_SIZE))
		die("thread %d: munmap: %s", w->tid, strerror(errno));
	w->extra++;
}

/* Verify this round's pages, then give them back for the next round to fault. */
static void rearm(struct worker *w, char *mine, long long pages, long long gen)
{
	for (long long pg = 0; pg < pages; pg++)
		check_page(w, mine + pg * PAGE_SIZE, (uintptr_t)mine + pg * PAGE_SIZE, gen);
	if (madvise(mine, pages * PAGE_SIZE, MADV_DONTNEED))
		die("thread %d: madvise: %s", w->tid, strerror(errno));
}

/*
 * Rounds before the ROI: the slice's page-table page is allocated (MADV_DONTNEED
 * keeps it), this CPU's page lists and LRU batches are filled, so the ROI's
 * rounds are all alike (at 80 cores the first round's start-up was a large
 * part of a short ROI).
 */
static void warmup(struct worker *w)
{
	long long pages = param_int("pages");
	char *mine = region + w->tid * stride;

	for (long long i = 0; i < param_int("warmup"); i++) {
		for (long long pg = 0; pg < pages; pg++) {
			touch_fresh_page(w, mine + pg * PAGE_SIZE);
			fill_page(mine + pg * PAGE_SIZE, (uintptr_t)mine + pg * PAGE_SIZE, ~i);
		}
		rearm(w, mine, pages, ~i);
	}
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), pages = param_int("pages");
	long long pct = nthreads > 1 && w->tid == 0 ? param_int("mmap_pct") : 0;
	char *mine = region + w->tid * stride;
	long long step = 0;

	for (long long i = 0; i < iters; i++) {
		for (long long pg = 0; pg < pages; pg++) {
			char *p = mine + pg * PAGE_SIZE;

			/* Spread thread 0's mmaps evenly through its faults. */
			while (pct && (step++ % 100) < pct)
				mmap_munmap(w);
			touch_fresh_page(w, p);
			fill_page(p, (uintptr_t)p, i);
			w->ops++;
		}
		rearm(w, mine, pages, i);
	}
}

static void teardown(void)
{
	munmap(region, nthreads * stride);
}

const struct workload workload = {
	.name = "fault",
	.summary = "threads soft-fault fresh pages while thread 0 also mmaps/munmaps",
	.ops_unit = "page fault",
	.extra_name = "mmap_ops",
	.params = params,
	.setup = setup,
	.warmup = warmup,
	.run = run,
	.teardown = teardown,
};
