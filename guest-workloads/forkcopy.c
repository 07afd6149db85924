/*
 * forkcopy: fork keeps Linux's semantics for private and shared memory.
 * Every thread owns private anonymous pages (the RadixVM region under the
 * radixvm variants) and one word of shared memfd pages mapped at a fixed
 * region address.  In each round a thread rewrites its pages with a new
 * generation, in order, and forks.  The child checks:
 *  - its copy of the forking thread's pages holds exactly that generation;
 *  - its copy of every other thread's pages (written concurrently) is one
 *    instant of the parent: generations never increase along the order in
 *    which they are written, and span at most two consecutive values;
 *  - writing its private copy changes its copy only;
 * and writes its word of the shared pages.  The parent then checks that its
 * pages are untouched by the child and that the shared word shows the
 * child's write.  Meanwhile the parent sleeps on a shared futex in the
 * memfd pages and the child wakes it: a wake must reach the other process
 * (extra counts the waits a child's wake ended; a wait that times out
 * is an error).  An op is one fork checked this way.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "20", "forks per thread" },
	{ "pages", "8", "private pages per thread, rewritten before each fork" },
	{ NULL }
};

#define CHILD_GEN 0x7000UL	/* the child's own generations */
#define SHARED_AT (REGION_BASE + 0x80000000UL)	/* inside the region, below the threads' */
/* a word per thread, then two futex words per thread */
#define SHARED_PAGES ((MAX_THREADS * (8 + 8) + PAGE_SIZE - 1) / PAGE_SIZE)

static uint64_t *_Atomic area[MAX_THREADS];
static volatile uint64_t *shared;
/* futex words in the shared pages, past the threads' words: ready, then wake */
#define READY(tid) ((volatile uint32_t *)(shared + MAX_THREADS) + 2 * (tid))
#define WAKE(tid) (READY(tid) + 1)

static long futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);	/* shared: no PRIVATE flag */
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}
static long pages;

static int setup(int n)
{
	int fd = memfd_create("vmscale-forkcopy", 0);
	void *p;

	(void)n;
	pages = param_int("pages");
	if (pages < 1 || pages > 4096)
		die("pages=%ld: must be 1..4096", pages);
	if (fd < 0 || ftruncate(fd, SHARED_PAGES * PAGE_SIZE))
		die("memfd: %s", strerror(errno));
	p = mmap((void *)SHARED_AT, SHARED_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
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
	/* the parent is about to sleep on WAKE: wake it, from this process */
	for (uint64_t t0 = now_ns(); !*READY(tid) && now_ns() - t0 < 2000000000ULL;)
		;
	*WAKE(tid) = 1;
	for (uint64_t t0 = now_ns(); now_ns() - t0 < 50000000ULL;)
		if (futex(WAKE(tid), FUTEX_WAKE, 1, NULL) == 1)
			break;
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
		*READY(w->tid) = 0;
		*WAKE(w->tid) = 0;
		pid = fork();
		if (pid < 0)
			die("thread %d: fork: %s", w->tid, strerror(errno));
		if (pid == 0)
			_exit(child(w->tid, mine, key, gen));
		*READY(w->tid) = 1;
		while (!*WAKE(w->tid)) {
			struct timespec ts = { .tv_sec = 10 };
			long r = futex(WAKE(w->tid), FUTEX_WAIT, 0, &ts);

			if (r == 0 && *WAKE(w->tid)) {
				w->extra++;	/* woken by the child's FUTEX_WAKE */
			} else if (r < 0 && errno == ETIMEDOUT) {
				if (w->errors < 4)
					fprintf(stderr, "forkcopy: thread %d: CORRUPT shared futex: "
						"the child's wake never came\n", w->tid);
				w->errors++;
				break;
			}
		}
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
	.extra_name = "futex_wakes",
	.params = params,
	.setup = setup,
	.run = run,
};
