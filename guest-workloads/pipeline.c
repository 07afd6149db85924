/*
 * pipeline (RadixVM §5.3): thread i maps a page and writes it, then hands it
 * to thread i+1 (mod n), which verifies it, writes it and munmaps it.  Every
 * unmap therefore concerns a page another core touched.
 */
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

static const struct param params[] = {
	{ "iters", "500", "pages each thread produces (and consumes)" },
	{ NULL }
};

#define SLOTS 4		/* a producer has at most 2 pages in flight */

static struct mailbox {
	_Atomic(uintptr_t) page;
	uint64_t gen;
} __attribute__((aligned(64))) box[MAX_THREADS];

static void spin(unsigned *n)
{
	_mm_pause();
	if (++*n % 1024 == 0)
		sched_yield();
}

static void run(struct worker *w)
{
	long long iters = param_int("iters");
	struct mailbox *out = &box[(w->tid + 1) % nthreads], *in = &box[w->tid];
	char *base = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);

	for (long long i = 0; i < iters; i++) {
		char *want = base + (i % SLOTS) * PAGE_SIZE;
		uint64_t gen = (uint64_t)i * MAX_THREADS + w->tid;
		unsigned n = 0;
		char *p = mmap(want, PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p != want)
			die("thread %d: mmap: %s", w->tid, strerror(errno));
		fill_page(p, (uintptr_t)p, gen);
		while (atomic_load_explicit(&out->page, memory_order_acquire))
			spin(&n);
		out->gen = gen;
		atomic_store_explicit(&out->page, (uintptr_t)p, memory_order_release);

		/* Consume what the previous thread produced. */
		uintptr_t q;
		while (!(q = atomic_load_explicit(&in->page, memory_order_acquire)))
			spin(&n);
		gen = in->gen;
		atomic_store_explicit(&in->page, 0, memory_order_release);
		check_page(w, (void *)q, q, gen);
		fill_page((void *)q, q, gen + 1);
		check_page(w, (void *)q, q, gen + 1);
		if (munmap((void *)q, PAGE_SIZE))
			die("thread %d: munmap: %s", w->tid, strerror(errno));
		w->ops++;
	}
}

const struct workload workload = {
	.name = "pipeline",
	.summary = "thread i maps and writes a page, thread i+1 writes and unmaps it",
	.ops_unit = "page handed on",
	.params = params,
	.run = run,
};
