/*
 * lazymm: every CPU of the process keeps switching to idle and back, and each
 * time the idle task borrows the process's mm lazily: mmgrab_lazy_tlb() and
 * mmdrop_lazy_tlb() on one mm shared by all CPUs -- an atomic on
 * mm->mm_count, or per-CPU Refcache deltas under vm.vmscale_lazy_mm=refcache.
 *
 * Threads 2k and 2k+1 play ping-pong through a futex: each waits (its CPU
 * goes idle) until its partner hands the turn over and wakes it (an IPI).
 * Holding the turn for `spin` loop iterations before handing it back makes
 * sure the partner is asleep by then; without it the two threads hand over
 * in lockstep and never sleep.
 * With sleep_ns > 0, or for a thread without a partner, each round is a
 * nanosleep instead (timer-driven: under gem5 without a stable TSC that
 * rounds up to scheduler ticks).  Each thread's page is verified at the end.
 */
#include "harness.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "2000", "round trips (ping-pong) or sleeps per thread" },
	{ "sleep_ns", "0", "0: futex ping-pong between thread pairs; >0: sleep this long per round" },
	{ "spin", "20000", "loop iterations a thread holds its turn (lets the partner fall asleep)" },
	{ "hotplug", "0", "thread 0 takes the last CPU offline and back this many times during the run" },
	{ NULL }
};

/* One turn counter per pair, alone in its cache line. */
static struct {
	_Atomic uint32_t seq;
} __attribute__((aligned(64))) pairs[MAX_THREADS / 2];

static void wait_for(_Atomic uint32_t *seq, uint32_t want)
{
	uint32_t v;

	while ((v = atomic_load(seq)) != want)
		syscall(SYS_futex, seq, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void hand_over(_Atomic uint32_t *seq, uint32_t next)
{
	atomic_store(seq, next);
	syscall(SYS_futex, seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Write "0" or "1" to the last CPU's online file (CPU hotplug; needs root). */
static void set_online(int cpu, int on)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d", on) < 0 || fclose(f))
		die("%s: cannot write %d: %s", path, on, strerror(errno));
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), sleep_ns = param_int("sleep_ns");
	long long spin = param_int("spin"), hotplug = param_int("hotplug");
	int last = (int)sysconf(_SC_NPROCESSORS_CONF) - 1;
	char *page = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);
	int partner = w->tid ^ 1, odd = w->tid & 1;
	_Atomic uint32_t *seq = &pairs[w->tid / 2].seq;

	if (hotplug < 0 || hotplug > iters)
		die("hotplug=%lld: must be 0..iters", hotplug);
	if (mmap(page, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != page)
		die("thread %d: mmap: %s", w->tid, strerror(errno));
	fill_page(page, (uintptr_t)page, 0);
	for (long long i = 0; i < iters; i++) {
		if (sleep_ns > 0 || partner >= nthreads) {
			struct timespec ts = { 0, sleep_ns > 0 ? sleep_ns : 1000 };

			if (nanosleep(&ts, NULL) && errno != EINTR)
				die("thread %d: nanosleep: %s", w->tid, strerror(errno));
		} else {
			/* even threads own turns 2i, odd threads 2i+1 */
			wait_for(seq, 2 * i + odd);
			for (volatile long long k = 0; k < spin; k++)
				;
			hand_over(seq, 2 * i + odd + 1);
		}
		w->ops++;
		/* exactly `hotplug` cycles, spread evenly over the run */
		if (w->tid == 0 && last > 0 && (i + 1) * hotplug / iters != i * hotplug / iters) {
			set_online(last, 0);	/* its cached deltas and review queue move */
			set_online(last, 1);
			w->extra++;
		}
	}
	/* The mm must still be ours after thousands of trips through idle. */
	check_page(w, page, (uintptr_t)page, 0);
	munmap(page, PAGE_SIZE);
}

const struct workload workload = {
	.name = "lazymm",
	.summary = "thread pairs ping-pong through futexes so every CPU borrows the process mm lazily",
	.ops_unit = "round trip",
	.extra_name = "hotplug_cycles",
	.params = params,
	.run = run,
};
