/*
 * forkcopy: fork keeps Linux's semantics for private and shared memory.
 * Every thread owns private anonymous pages (the RadixVM region under the
 * radixvm variants) and one word of a shared memfd page mapped at a fixed
 * region address.  In each round a thread rewrites its pages with a new
 * generation, in order, and forks.  The child checks:
 *  - its copy of the forking thread's pages holds exactly that generation;
 *  - its copy of every other thread's pages (written concurrently) is one
 *    instant of the parent: generations never increase along the order in
 *    which they are written, and span at most two consecutive values;
 *  - writing its private copy changes its copy only;
 * and writes its word of the shared page.  The parent then checks that its
 * pages are untouched by the child and that the shared word shows the
 * child's write.  An op is one fork checked this way.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "20", "forks per thread" },
	{ "pages", "8", "private pages per thread, rewritten before each fork" },
	{ NULL }
};

#define CHILD_GEN 0x7000UL	/* the child's own generations */
#define SHARED_AT (REGION_BASE + 0x80000000UL)	/* inside the region, below the threads' */

static uint64_t *_Atomic area[MAX_THREADS];
static volatile uint64_t *shared;
static long pages;

static int setup(int n)
{
	int fd = memfd_create("vmscale-forkcopy", 0);
	void *p;

	(void)n;
	pages = param_int("pages");
	if (pages < 1 || pages > 4096)
		die("pages=%ld: must be 1..4096", pages);
	if (fd < 0 || ftruncate(fd, PAGE_SIZE))
		die("memfd: %s", strerror(errno));
	p = mmap((void *)SHARED_AT, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (p != (void *)SHARED_AT)
		die("mmap memfd at %#lx: %s", SHARED_AT, strerror(errno));
	close(fd);
	shared = p;
	return 0;
}

static uint64_t word(uint64_t key, long pg, size_t i, uint64_t gen)
{
	return key + pg * PAGE_SIZE + 8 * i + (gen << 48);
}

/* Words of @p that do not hold generation @gen exactly. */
static uint64_t count_bad(const uint64_t *p, uint64_t key, uint64_t gen)
{
	uint64_t bad = 0;

	for (long pg = 0; pg < pages; pg++)
		for (size_t i = 0; i < WORDS_PER_PAGE; i++)
			bad += p[pg * WORDS_PER_PAGE + i] != word(key, pg, i, gen);
	return bad;
}

/*
 * Another thread's pages as the child sees them: written in order, so one
 * instant shows generation g up to some word and g-1 after it (0: never
 * written).
 */
static uint64_t count_torn(const uint64_t *p, uint64_t key)
{
	uint64_t bad = 0, first = ~0UL, last = ~0UL;

	for (long pg = 0; pg < pages; pg++)
		for (size_t i = 0; i < WORDS_PER_PAGE; i++) {
			uint64_t v = p[pg * WORDS_PER_PAGE + i], gen = v >> 48;

			if (v && v != word(key, pg, i, gen)) {
				bad++;
				continue;
			}
			if (first == ~0UL)
				first = gen;
			if (last != ~0UL && gen > last)
				bad++;	/* a later word is newer: not one instant */
			last = gen;
		}
	if (first != ~0UL && first - last > 1)
		bad++;
	return bad;
}

static int child(int tid, uint64_t *mine, uint64_t key, uint64_t gen)
{
	uint64_t bad = count_bad(mine, key, gen);

	for (int t = 0; t < nthreads; t++) {
		uint64_t *other = atomic_load(&area[t]);

		if (t != tid && other)
			bad += count_torn(other, (uint64_t)t << 32);
	}
	for (long pg = 0; pg < pages; pg++)
		fill_page(mine + pg * WORDS_PER_PAGE, key + pg * PAGE_SIZE, CHILD_GEN + gen);
	bad += count_bad(mine, key, CHILD_GEN + gen);
	shared[tid] = CHILD_GEN + gen;
	return bad ? (bad > 100 ? 100 : (int)bad) : 0;
}

static void run(struct worker *w)
{
	long long iters = param_int("iters");
	uint64_t key = (uint64_t)w->tid << 32;
	uint64_t *mine = mmap(NULL, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mine == MAP_FAILED)
		die("thread %d: mmap: %s", w->tid, strerror(errno));
	atomic_store(&area[w->tid], mine);
	for (uint64_t gen = 1; gen <= (uint64_t)iters; gen++) {
		int status;
		pid_t pid;

		for (long pg = 0; pg < pages; pg++)
			fill_page(mine + pg * WORDS_PER_PAGE, key + pg * PAGE_SIZE, gen);
		pid = fork();
		if (pid < 0)
			die("thread %d: fork: %s", w->tid, strerror(errno));
		if (pid == 0)
			_exit(child(w->tid, mine, key, gen));
		if (waitpid(pid, &status, 0) != pid)
			die("thread %d: waitpid: %s", w->tid, strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (w->errors < 4)
				fprintf(stderr, "forkcopy: thread %d: CORRUPT child of gen %llu: %s %d\n",
					w->tid, (unsigned long long)gen,
					WIFEXITED(status) ? "bad words" : "signal",
					WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			w->errors++;
		}
		if (count_bad(mine, key, gen)) {
			if (w->errors < 4)
				fprintf(stderr, "forkcopy: thread %d: CORRUPT parent after gen %llu: "
					"its pages changed across the fork\n", w->tid, (unsigned long long)gen);
			w->errors++;
		}
		if (shared[w->tid] != CHILD_GEN + gen) {
			if (w->errors < 4)
				fprintf(stderr, "forkcopy: thread %d: CORRUPT shared word 0x%llx, "
					"expected the child's 0x%llx\n", w->tid,
					(unsigned long long)shared[w->tid],
					(unsigned long long)(CHILD_GEN + gen));
			w->errors++;
		}
		w->ops++;
	}
}

const struct workload workload = {
	.name = "forkcopy",
	.summary = "threads fork while others write; children check their copy of private and shared memory",
	.ops_unit = "fork checked",
	.params = params,
	.setup = setup,
	.run = run,
};
