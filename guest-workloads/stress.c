/*
 * stress: faults race with mmap, munmap, mprotect, madvise(DONTNEED) and
 * mremap on overlapping ranges from many threads, with content and SIGSEGV
 * verification -- correctness stress for the fault-path designs.
 *
 * The arena is `slots` slots of `slot_pages` pages at fixed addresses.  Mutator
 * threads change a slot under a per-slot sequence count (odd while changing);
 * faulter threads read the count, the slot's state, touch a page (catching
 * SIGSEGV), then re-read the count: when it did not move, the outcome must
 * match the state exactly:
 *   unmapped        -> the access faults with SIGSEGV (nothing survives munmap)
 *   read-only       -> a read works, a write faults with SIGSEGV
 *   read-write      -> a write of our word reads back; every word of the page
 *                      is zero or a value written for exactly that place
 * Values encode (page offset in slot, word, writer): a page that shows up at
 * the wrong place, or stale or foreign data, is a corruption.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

static const struct param params[] = {
	{ "iters", "2000", "operations per thread" },
	{ "slots", "32", "slots in the arena" },
	{ "slot_pages", "8", "pages per slot" },
	{ "mutators", "0", "threads that change mappings (0: a quarter, at least 1)" },
	{ "mremap", "1", "1: mutators also mremap a slot onto another (MREMAP_FIXED)" },
	{ NULL }
};

enum { UNMAPPED, RO, RW };

static struct slot {
	atomic_uint seq;	/* odd while a mutator changes the slot */
	atomic_int lock;
	int state;
} __attribute__((aligned(64))) slots[1024];

static int nslots, nmut;
static size_t slot_bytes;
static char *const arena = (char *)(REGION_BASE + 512 * THREAD_STRIDE);

static char *slot_addr(int i)
{
	return arena + (size_t)i * slot_bytes;
}

static uint64_t value(int page, int word, int tid, uint64_t n)
{
	return ((uint64_t)page << 48) | ((uint64_t)word << 36) | ((uint64_t)tid << 24) | (n & 0xffffff) | 1;
}

static int value_ok(uint64_t v, int page, int word)
{
	return !v || ((int)(v >> 48) == page && (int)((v >> 36) & 0xfff) == word &&
		      (int)((v >> 24) & 0xfff) == word);
}

static int setup(int n)
{
	nslots = param_int("slots");
	slot_bytes = param_int("slot_pages") * PAGE_SIZE;
	nmut = param_int("mutators") ? param_int("mutators") : (n / 4 ? n / 4 : 1);
	if (nslots < 2 || nslots > 1024 || param_int("slot_pages") < 1 || param_int("slot_pages") > 4096)
		die("slots must be 2..1024 and slot_pages 1..4096");
	if (n < 2 || nmut >= n)
		die("stress needs threads >= 2 and mutators < threads");
	if (n > 4095)
		die("at most 4095 threads");
	segv_catch_init();
	for (int i = 0; i < nslots; i++) {
		if (mmap(slot_addr(i), slot_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != slot_addr(i))
			die("mmap slot %d: %s", i, strerror(errno));
		slots[i].state = RW;
	}
	return 0;
}

static void slot_lock(int i)
{
	while (atomic_exchange(&slots[i].lock, 1))
		_mm_pause();
	atomic_fetch_add(&slots[i].seq, 1);
}

static void slot_unlock(int i)
{
	atomic_fetch_add(&slots[i].seq, 1);
	atomic_store(&slots[i].lock, 0);
}

static void fail(struct worker *w, const char *what, int slot, long page)
{
	if (w->errors < 8)
		fprintf(stderr, "stress: thread %d: %s (slot %d page %ld)\n", w->tid, what, slot, page);
	w->errors++;
}

static void mutate(struct worker *w)
{
	int a = xorshift(&w->rng) % nslots, op = xorshift(&w->rng) % (param_int("mremap") ? 5 : 4);
	char *p = slot_addr(a);

	if (op == 4) {		/* mremap a's pages onto another slot b */
		int b = xorshift(&w->rng) % nslots;

		if (b == a)
			return;
		slot_lock(a < b ? a : b);
		slot_lock(a < b ? b : a);
		if (slots[a].state != UNMAPPED) {
			if (mremap(p, slot_bytes, slot_bytes, MREMAP_MAYMOVE | MREMAP_FIXED,
				   slot_addr(b)) != slot_addr(b))
				die("mremap: %s", strerror(errno));
			slots[b].state = slots[a].state;
			slots[a].state = UNMAPPED;
		}
		slot_unlock(a < b ? b : a);
		slot_unlock(a < b ? a : b);
		w->extra++;
		return;
	}
	slot_lock(a);
	switch (op) {
	case 0:			/* munmap */
		if (munmap(p, slot_bytes))
			die("munmap: %s", strerror(errno));
		slots[a].state = UNMAPPED;
		break;
	case 1:			/* mmap a fresh mapping over whatever is there */
		if (mmap(p, slot_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != p)
			die("mmap: %s", strerror(errno));
		slots[a].state = RW;
		break;
	case 2:			/* mprotect: flip between read-only and read-write */
		if (slots[a].state != UNMAPPED) {
			int rw = slots[a].state == RO;

			if (mprotect(p, slot_bytes, rw ? PROT_READ | PROT_WRITE : PROT_READ))
				die("mprotect: %s", strerror(errno));
			slots[a].state = rw ? RW : RO;
		}
		break;
	case 3:			/* madvise(DONTNEED): contents become zero */
		if (slots[a].state != UNMAPPED && madvise(p, slot_bytes, MADV_DONTNEED))
			die("madvise: %s", strerror(errno));
		break;
	}
	slot_unlock(a);
	w->extra++;
}

static void probe(struct worker *w, uint64_t n)
{
	int s = xorshift(&w->rng) % nslots;
	long pg = xorshift(&w->rng) % (slot_bytes / PAGE_SIZE);
	volatile uint64_t *page = (volatile uint64_t *)(slot_addr(s) + pg * PAGE_SIZE);
	int word = w->tid % WORDS_PER_PAGE, faulted, bad = 0;
	unsigned seq = atomic_load(&slots[s].seq);
	int state = slots[s].state;
	int write = state != RO || (xorshift(&w->rng) & 1);
	uint64_t v = value(pg, word, word, n);

	if (seq & 1)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	segv_armed = 1;
	if (!(faulted = sigsetjmp(segv_jmp, 1))) {
		if (write) {
			page[word] = v;
			bad = page[word] != v;
			if (state == RW && inject_take())	/* data for another place */
				page[(word + 1) % WORDS_PER_PAGE] = value(pg + 1, 0, 0, n);
		}
		for (size_t i = 0; i < WORDS_PER_PAGE; i++)
			bad |= !value_ok(page[i], pg, i) << 1;
	}
	segv_armed = 0;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&slots[s].seq) != seq)
		return;		/* the slot changed under us: no verdict */
	w->ops++;
	if (state == UNMAPPED && !faulted)
		fail(w, "access to an unmapped page succeeded", s, pg);
	else if (state == RO && write && !faulted)
		fail(w, "write to a read-only page succeeded", s, pg);
	else if (state != UNMAPPED && !(state == RO && write) && faulted)
		fail(w, "valid access faulted", s, pg);
	else if (bad & 1)
		fail(w, "our write did not read back", s, pg);
	else if (bad & 2)
		fail(w, "page holds data written for another place", s, pg);
}

static void run(struct worker *w)
{
	long long iters = param_int("iters");

	for (long long i = 0; i < iters; i++) {
		if (w->tid < nmut && (i & 1))
			mutate(w);
		else
			probe(w, i);
	}
}

static void teardown(void)
{
	for (int i = 0; i < nslots; i++)
		munmap(slot_addr(i), slot_bytes);
}

const struct workload workload = {
	.name = "stress",
	.summary = "faults race mmap/munmap/mprotect/madvise/mremap; contents and SIGSEGVs verified",
	.ops_unit = "verified access",
	.extra_name = "mutations",
	.params = params,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
