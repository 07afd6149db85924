/*
 * global (RadixVM §5.3): every round each thread maps its 64 KiB slice of one
 * shared region and writes it, then all threads read all pages in random
 * order, then each thread unmaps its slice: every unmap must reach the TLBs
 * of every core.
 */
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static const struct param params[] = {
	{ "iters", "10", "rounds of map, touch-all, unmap" },
	{ "slice_pages", "16", "pages in each thread's slice (16 = 64 KiB)" },
	{ NULL }
};

static char *const region = (char *)REGION_BASE;

static void run(struct worker *w)
{
	long long iters = param_int("iters"), sp = param_int("slice_pages");
	size_t slice = sp * PAGE_SIZE;
	long long total = sp * nthreads;
	char *mine = region + w->tid * slice;

	for (long long i = 0; i < iters; i++) {
		if (mmap(mine, slice, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != mine)
			die("thread %d: mmap: %s", w->tid, strerror(errno));
		for (long long pg = 0; pg < sp; pg++)
			fill_page(mine + pg * PAGE_SIZE, (uintptr_t)mine + pg * PAGE_SIZE, i);
		barrier_wait();
		for (long long k = 0; k < total; k++) {
			char *p = region + (xorshift(&w->rng) % total) * PAGE_SIZE;

			check_page(w, p, (uintptr_t)p, i);
			w->ops++;
		}
		barrier_wait();
		if (munmap(mine, slice))
			die("thread %d: munmap: %s", w->tid, strerror(errno));
		barrier_wait();
	}
}

const struct workload workload = {
	.name = "global",
	.summary = "threads map slices of a shared region and all touch all pages",
	.ops_unit = "page touched",
	.params = params,
	.run = run,
};
