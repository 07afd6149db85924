/*
 * ccbench: what it costs to take a cache line last written by another core
 * (ccbench's LOAD_FROM_MODIFIED and an atomic on a modified line), per pair
 * of cores, to calibrate a board's line-transfer latencies against published
 * ones (mctop's machine descriptions).
 *
 * Pairs are measured one at a time, in a fixed order: a shared turn counter
 * says whose pair it is; every other thread sleeps on a futex of its own, and
 * the reader that ends a pair wakes just the next pair's two threads, so an
 * 80-core board simulates two busy cores at a time, and nothing else moves
 * lines while a pair measures.  In a round
 * the writer stores a value into the test line (making it Modified in its
 * L1), then raises a flag on a line of its own; the reader sees the flag,
 * and times one load (or one atomic add) of the test line with lfence +
 * rdtsc around it.  The test line's home is chosen by physical address: its
 * line index modulo `homes` (the board's L2 banks, one per socket, which
 * interleave lines by address as its memory channels do) is the writer's
 * socket, or the reader's (home=reader), read from /proc/self/pagemap.
 *
 * Pairs (pairs=sample): for every ordered pair of sockets, `per_class`
 * writer/reader pairs of distinct cores; pairs=all: every ordered pair of the
 * first `limit` cores.  After the ROI one line per pair goes to stdout:
 *   VMSCALE-CCBENCH writer reader wsock rsock home load_med atomic_med overhead
 * medians over `rounds`, the timing's own cost (an empty timed region) already
 * subtracted.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

static const struct param params[] = {
	{ "rounds", "15", "timed loads and timed atomics per pair (the median is reported)" },
	{ "socket_cores", "10", "cores per socket of the board (as its sockets topology fills them)" },
	{ "homes", "1", "L2 banks of the board: a line's home is its line index modulo this" },
	{ "home", "writer", "writer or reader: whose socket homes the test line" },
	{ "pairs", "sample", "sample (per_class pairs per ordered socket pair) or all (every pair of limit cores)" },
	{ "per_class", "2", "pairs=sample: writer/reader pairs per ordered pair of sockets" },
	{ "limit", "16", "pairs=all: the first this many cores" },
	{ NULL }
};

#define MAX_PAIRS 4096
#define MAX_ROUNDS 64

struct pair {
	int writer, reader, home;
	uint64_t load[MAX_ROUNDS], atomic[MAX_ROUNDS], empty[MAX_ROUNDS];
};

static struct pair *pairs;
static int npairs, rounds, socket_cores;
static _Atomic uint64_t turn __attribute__((aligned(64)));
static struct gate { _Atomic uint32_t go; } __attribute__((aligned(64))) gates[MAX_THREADS];
static struct flag { _Atomic uint64_t v; } __attribute__((aligned(64))) wflag, rflag;
static volatile uint64_t *lines[64];	/* one test line per home, each in its own page region */

static int sock(int cpu)
{
	return cpu / socket_cores;
}

static uint64_t phys(const void *p)
{
	uint64_t entry;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		die("/proc/self/pagemap: %s", strerror(errno));
	if (pread(fd, &entry, 8, ((uintptr_t)p / PAGE_SIZE) * 8) != 8)
		die("pagemap read: %s", strerror(errno));
	close(fd);
	if (!(entry >> 63) || !(entry & ((1ULL << 55) - 1)))
		die("pagemap: no frame for %p (not root?)", p);
	return (entry & ((1ULL << 55) - 1)) * PAGE_SIZE + (uintptr_t)p % PAGE_SIZE;
}

static void add_pair(int w, int r, int homes, int home_is_reader)
{
	for (int i = 0; i < npairs; i++)
		if (pairs[i].writer == w && pairs[i].reader == r)
			return;
	if (npairs == MAX_PAIRS)
		die("more than %d pairs", MAX_PAIRS);
	pairs[npairs].writer = w;
	pairs[npairs].reader = r;
	pairs[npairs].home = sock(home_is_reader ? r : w) % homes;
	npairs++;
}

static int setup(int n)
{
	int homes = param_int("homes"), per = param_int("per_class"), reader = 0;
	const char *home = param_str("home"), *mode = param_str("pairs");
	char *page;

	rounds = param_int("rounds");
	socket_cores = param_int("socket_cores");
	if (rounds < 1 || rounds > MAX_ROUNDS)
		die("rounds=%d: 1..%d", rounds, MAX_ROUNDS);
	if (socket_cores < 1 || homes < 1 || homes > 64 || (homes & (homes - 1)))
		die("socket_cores=%d homes=%d: cores >= 1, homes a power of two <= 64", socket_cores, homes);
	if (!strcmp(home, "reader"))
		reader = 1;
	else if (strcmp(home, "writer"))
		die("home=%s: writer or reader", home);
	if (n < 2)
		die("ccbench needs two threads at least (threads=%d)", n);
	pairs = calloc(MAX_PAIRS, sizeof(*pairs));
	if (!pairs)
		die("out of memory");
	if (!strcmp(mode, "sample")) {
		int nsock = (n + socket_cores - 1) / socket_cores;

		for (int a = 0; a < nsock; a++)
			for (int b = 0; b < nsock; b++)
				for (int k = 0; k < per; k++) {
					int w = a * socket_cores + k % socket_cores;
					int r = b * socket_cores + (k + 1) % socket_cores;

					if (w < n && r < n && w != r)
						add_pair(w, r, homes, reader);
				}
	} else if (!strcmp(mode, "all")) {
		int lim = param_int("limit") < n ? param_int("limit") : n;

		for (int w = 0; w < lim; w++)
			for (int r = 0; r < lim; r++)
				if (w != r)
					add_pair(w, r, homes, reader);
	} else {
		die("pairs=%s: sample or all", mode);
	}
	/* A test line for every home: scan fresh lines until each bank has one. */
	page = mmap(NULL, 64 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (page == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/*
	 * One pagemap read per page (a page's lines share its frame), and stop
	 * once every bank has a line: each read is an open, a page walk and a
	 * close, thousands of guest cycles under gem5.
	 */
	for (size_t pg = 0, found = 0; pg < 64 && found < (size_t)homes; pg++) {
		uint64_t base = phys(page + pg * PAGE_SIZE);

		for (size_t off = 0; off < PAGE_SIZE; off += 64) {
			int h = ((base + off) / 64) % homes;

			if (!lines[h]) {
				lines[h] = (volatile uint64_t *)(page + pg * PAGE_SIZE + off);
				found++;
			}
		}
	}
	for (int h = 0; h < homes; h++)
		if (!lines[h])
			die("no line homed at bank %d in 64 pages", h);
	return 0;
}

static inline uint64_t stamp(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

/*
 * Inside a pair: both threads busy.  Steps only grow, pair after pair: a writer
 * whose vCPU was descheduled until the next pair's reader overwrote the flag
 * must still see its own step as reached.
 */
static void wait_for(_Atomic uint64_t *v, uint64_t want)
{
	while (atomic_load_explicit(v, memory_order_acquire) < want)
		_mm_pause();
}

static void futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* Sleep until `turn` is `want` (every pair's end bumps the gates of the next pair's threads). */
static void sleep_until(struct worker *w, uint64_t want)
{
	for (;;) {
		uint32_t seen = atomic_load(&gates[w->tid].go);

		if (atomic_load(&turn) >= want)
			return;
		futex(&gates[w->tid].go, FUTEX_WAIT, seen);
	}
}

static void open_gate(int tid)
{
	atomic_fetch_add(&gates[tid].go, 1);
	futex(&gates[tid].go, FUTEX_WAKE, 1);
}

static void run(struct worker *w)
{
	for (int p = 0; p < npairs; p++) {
		struct pair *pp = &pairs[p];
		volatile uint64_t *line = lines[pp->home];

		if (w->tid != pp->writer && w->tid != pp->reader)
			continue;
		sleep_until(w, p);
		/* 3 timed kinds per round: empty, load, atomic; the flags count steps */
		for (int k = 0; k < 3 * rounds; k++) {
			uint64_t step = (uint64_t)p * 3 * MAX_ROUNDS + k + 1;

			if (w->tid == pp->writer) {
				*line = step;	/* Modified in the writer's L1 */
				atomic_store_explicit(&wflag.v, step, memory_order_release);
				wait_for(&rflag.v, step);
			} else {
				uint64_t t0, t1, v = 0;

				wait_for(&wflag.v, step);
				t0 = stamp();
				if (k % 3 == 1)
					v = *line;
				else if (k % 3 == 2)
					v = __atomic_fetch_add(line, 0, __ATOMIC_SEQ_CST);
				t1 = stamp();
				if (k % 3 && v != step)
					w->errors++;
				(k % 3 == 0 ? pp->empty : k % 3 == 1 ? pp->load : pp->atomic)[k / 3] = t1 - t0;
				w->ops++;
				atomic_store_explicit(&rflag.v, step, memory_order_release);
			}
		}
		if (w->tid == pp->reader) {
			atomic_store_explicit(&turn, p + 1, memory_order_release);
			if (p + 1 < npairs) {
				open_gate(pairs[p + 1].writer);
				open_gate(pairs[p + 1].reader);
			} else {
				for (int t = 0; t < nthreads; t++)
					open_gate(t);
			}
		}
	}
	sleep_until(w, npairs);	/* the harness's barrier spins under gem5: sleep here instead */
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v)
{
	qsort(v, rounds, sizeof(*v), cmp);
	return v[rounds / 2];
}

static void teardown(void)
{
	for (int p = 0; p < npairs; p++) {
		struct pair *pp = &pairs[p];
		uint64_t e = median(pp->empty), l = median(pp->load), a = median(pp->atomic);

		printf("VMSCALE-CCBENCH %d %d %d %d %d %llu %llu %llu\n", pp->writer, pp->reader, sock(pp->writer),
		       sock(pp->reader), pp->home, (unsigned long long)(l > e ? l - e : 0),
		       (unsigned long long)(a > e ? a - e : 0), (unsigned long long)e);
	}
	fflush(stdout);
}

const struct workload workload = {
	.name = "ccbench",
	.summary = "cycles to load, or atomically add to, a line another core just wrote, per pair of cores",
	.ops_unit = "timed access",
	.params = params,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
