/*
 * tlbstale: no stale translation survives munmap (RadixVM 3.3: targeted
 * shootdowns must still reach every CPU that cached a page).
 *
 * Thread 0 is the mapper: it unmaps a slot, leaves it unmapped for a while,
 * then maps it again and fills every page with words that encode the page's
 * address and a generation that grows with every remap.  The other threads
 * touch random pages of random slots: they write a scratch word and read the
 * whole page, catching SIGSEGV, between two reads of the slot's sequence
 * count (odd while the mapper changes it).  When the count did not move:
 *   unmapped -> the access must fault (a surviving TLB entry would succeed)
 *   mapped   -> it must not fault, and every word must carry the current
 *               generation (a stale entry would show the old page's words)
 * Threads migrate between CPUs every `migrate` touches, sometimes sleep (so
 * CPUs go idle and keep the mm lazily), and `procs` helper processes map and
 * touch their own memory on the same CPUs, so switches between address
 * spaces and into kernel threads happen throughout.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "3000", "touches per thread; the mapper remaps until they finish" },
	{ "slots", "8", "slots the mapper cycles through" },
	{ "slot_pages", "4", "pages per slot" },
	{ "migrate", "16", "touches between moves to another CPU (0: stay pinned)" },
	{ "procs", "1", "helper processes that switch address spaces on the same CPUs" },
	{ NULL }
};

#define SCRATCH_WORDS 64	/* words 0..63 are the touchers' scratch */

static struct slot {
	atomic_uint seq;	/* odd while the mapper changes the slot */
	int mapped;
	uint64_t gen;
} __attribute__((aligned(64))) slots[256];

static int nslots, ncpus;
static size_t slot_bytes;
static atomic_int touchers_left;
static int frozen;		/* inject: the planted page stays mapped until the end */
static pid_t helpers[64];
static int nhelpers;
static char *const arena = (char *)(REGION_BASE + 768 * THREAD_STRIDE);

static char *slot_addr(int i)
{
	return arena + (size_t)i * slot_bytes;
}

static uint64_t word_value(const volatile uint64_t *page, size_t i, uint64_t gen)
{
	return (uint64_t)(uintptr_t)page + 8 * i + (gen << 40);
}

static void fill(char *p, uint64_t gen)
{
	for (size_t off = 0; off < slot_bytes; off += PAGE_SIZE) {
		uint64_t *page = (uint64_t *)(p + off);

		for (size_t i = 0; i < WORDS_PER_PAGE; i++)
			page[i] = word_value(page, i, gen);
	}
}

static void move_to_random_cpu(struct worker *w)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(xorshift(&w->rng) % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort */
}

/* A helper process: its own address space, mapping and touching, forever. */
static void helper(int i)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (i + 1);
	char *base = (char *)(REGION_BASE + (900 + i) * THREAD_STRIDE);

	for (;;) {
		char *p = mmap(base, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		for (int pg = 0; pg < 4; pg++)
			p[pg * PAGE_SIZE] = 1;
		munmap(p, 4 * PAGE_SIZE);
		if (getppid() == 1)
			_exit(0);
		if (xorshift(&rng) % 4 == 0)
			usleep(50);
		else
			sched_yield();
	}
}

static int setup(int n)
{
	nslots = param_int("slots");
	slot_bytes = param_int("slot_pages") * PAGE_SIZE;
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	nhelpers = param_int("procs");
	if (nslots < 1 || nslots > 256 || param_int("slot_pages") < 1 || param_int("slot_pages") > 512)
		die("slots must be 1..256 and slot_pages 1..512");
	if (n < 2 || n - 1 > SCRATCH_WORDS)
		die("tlbstale needs 2..%d threads", SCRATCH_WORDS + 1);
	if (nhelpers < 0 || nhelpers > 64)
		die("procs must be 0..64");
	segv_catch_init();
	for (int i = 0; i < nslots; i++) {
		if (mmap(slot_addr(i), slot_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != slot_addr(i))
			die("mmap slot %d: %s", i, strerror(errno));
		fill(slot_addr(i), 0);
		slots[i].mapped = 1;
	}
	atomic_store(&touchers_left, n - 1);
	for (int i = 0; i < nhelpers; i++) {
		helpers[i] = fork();
		if (helpers[i] < 0)
			die("fork: %s", strerror(errno));
		if (!helpers[i])
			helper(i);
	}
	return 0;
}

static void fail(struct worker *w, const char *what, int slot, long page, uint64_t got, uint64_t want)
{
	if (w->errors < 8)
		fprintf(stderr, "tlbstale: thread %d on CPU %d: %s (slot %d page %ld: %#llx, want %#llx)\n",
			w->tid, sched_getcpu(), what, slot, page, (unsigned long long)got,
			(unsigned long long)want);
	w->errors++;
}

/* The mapper: unmap, let the touchers see the hole, remap with a new generation. */
static void remap(struct worker *w)
{
	int s = xorshift(&w->rng) % nslots;
	char *p = slot_addr(s);

	atomic_fetch_add(&slots[s].seq, 1);
	if (munmap(p, slot_bytes))
		die("munmap: %s", strerror(errno));
	slots[s].mapped = 0;
	atomic_fetch_add(&slots[s].seq, 1);
	for (int i = 0; i < 200; i++)	/* a window in which touchers probe the hole */
		__builtin_ia32_pause();

	atomic_fetch_add(&slots[s].seq, 1);
	if (mmap(p, slot_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != p)
		die("mmap: %s", strerror(errno));
	slots[s].gen++;
	fill(p, slots[s].gen);
	if (inject_take()) {	/* an old generation, as a stale page would show */
		((uint64_t *)p)[SCRATCH_WORDS] = word_value((uint64_t *)p, SCRATCH_WORDS, slots[s].gen - 1);
		frozen = 1;
	}
	slots[s].mapped = 1;
	atomic_fetch_add(&slots[s].seq, 1);
	w->extra++;
}

static void touch(struct worker *w, uint64_t n)
{
	int s = xorshift(&w->rng) % nslots;
	long pg = xorshift(&w->rng) % (slot_bytes / PAGE_SIZE);
	volatile uint64_t *page = (volatile uint64_t *)(slot_addr(s) + pg * PAGE_SIZE);
	unsigned seq = atomic_load(&slots[s].seq);
	int mapped = slots[s].mapped, faulted;
	uint64_t gen = slots[s].gen, got = 0, want = 0;
	size_t bad = 0;

	if (seq & 1)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	segv_armed = 1;
	if (!(faulted = sigsetjmp(segv_jmp, 1))) {
		page[w->tid - 1] = n;	/* a write: the translation is cached dirty */
		for (size_t i = SCRATCH_WORDS; i < WORDS_PER_PAGE && !bad; i++)
			if ((got = page[i]) != (want = word_value(page, i, gen)))
				bad = i;
	}
	segv_armed = 0;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&slots[s].seq) != seq)
		return;		/* the slot changed under us: no verdict */
	w->ops++;
	if (!mapped && !faulted)
		fail(w, "access to an unmapped page succeeded (stale TLB entry)", s, pg, 0, 0);
	else if (mapped && faulted)
		fail(w, "access to a mapped page faulted", s, pg, 0, 0);
	else if (mapped && bad)
		fail(w, "page holds another generation's data (stale TLB entry)", s, pg, got, want);
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), migrate = param_int("migrate");

	if (w->tid == 0) {
		while (atomic_load(&touchers_left) > 0) {
			if (frozen)
				__builtin_ia32_pause();
			else
				remap(w);
		}
		return;
	}
	for (long long i = 0; i < iters; i++) {
		touch(w, i);
		if (migrate && i % migrate == migrate - 1)
			move_to_random_cpu(w);
		if (xorshift(&w->rng) % 64 == 0)
			usleep(20);	/* the CPU may idle, keeping the mm lazily */
	}
	atomic_fetch_sub(&touchers_left, 1);
}

static void teardown(void)
{
	for (int i = 0; i < nhelpers; i++) {
		kill(helpers[i], SIGKILL);
		waitpid(helpers[i], NULL, 0);
	}
	for (int i = 0; i < nslots; i++)
		munmap(slot_addr(i), slot_bytes);
}

const struct workload workload = {
	.name = "tlbstale",
	.summary = "touchers on migrating threads verify that unmapped/remapped pages leave no stale translation",
	.ops_unit = "verified touch",
	.extra_name = "remaps",
	.params = params,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
