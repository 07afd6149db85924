#define _GNU_SOURCE
#include "harness.h"
#include "m5ops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

int nthreads;

static const struct param common_params[] = {
	{ "threads", "0", "worker threads, one per CPU (0: all online CPUs)" },
	{ "seed", "1", "seed for the workers' random choices" },
	{ "pin", "1", "pin worker i to CPU i (mod online CPUs)" },
	{ "inject", "0", "1: corrupt the first page written, behind the "
			  "workload's back (/proc/self/mem), to prove "
			  "verification catches it" },
	{ "physmap", "0", "1: after the ROI, print /proc/vmscale_physmap (what "
			   "each page frame holds; gem5 hot-line runs name their "
			   "lines by it)" },
	{ "quiesce_ms", "0", "after the ROI, wait up to this long until the "
			     "RadixVM region's running totals balance (every "
			     "object made has been freed): a boot's last case "
			     "checks for leaks without racing deferred frees "
			     "(not in a process with a region of its own)" },
	{ NULL }
};

#define MAX_PARAMS 32
static struct { const char *name; const char *value; } values[MAX_PARAMS];
static int nvalues;

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", workload.name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static const struct param *find_param(const char *name)
{
	for (const struct param *p = workload.params; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	for (const struct param *p = common_params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *param_str(const char *name)
{
	for (int i = nvalues - 1; i >= 0; i--)
		if (!strcmp(values[i].name, name))
			return values[i].value;
	const struct param *p = find_param(name);
	if (!p)
		die("internal: no parameter %s", name);
	return p->dflt;
}

static int parse_int(const char *s, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

long long param_int(const char *name)
{
	long long v;

	if (parse_int(param_str(name), &v))
		die("%s=%s is not a number", name, param_str(name));
	return v;
}

static void print_params_json(FILE *f, const struct param *ps, int *first)
{
	for (const struct param *p = ps; p && p->name; p++) {
		fprintf(f, "%s\"%s\":{\"default\":\"%s\",\"help\":\"%s\"}",
			*first ? "" : ",", p->name, p->dflt, p->help);
		*first = 0;
	}
}

/* Machine-readable description: the host tools validate runs against it. */
static void describe(void)
{
	int first = 1;

	printf("{\"name\":\"%s\",\"summary\":\"%s\",\"ops_unit\":\"%s\",\"params\":{",
	       workload.name, workload.summary, workload.ops_unit);
	print_params_json(stdout, workload.params, &first);
	print_params_json(stdout, common_params, &first);
	printf("}}\n");
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!strcmp(argv[i], "--describe")) {
			describe();
			exit(0);
		}
		if (!eq || eq == argv[i])
			die("argument '%s' is not NAME=VALUE (see --describe)", argv[i]);
		*eq = 0;
		if (!find_param(argv[i]))
			die("unknown parameter '%s' (see --describe)", argv[i]);
		if (nvalues == MAX_PARAMS)
			die("too many parameters");
		values[nvalues].name = argv[i];
		values[nvalues++].value = eq + 1;
	}
	/* Validate every numeric parameter up front. */
	for (const struct param *p = workload.params; p && p->name; p++)
		if (p->dflt[0] >= '0' && p->dflt[0] <= '9')
			(void)param_int(p->name);
	for (const struct param *p = common_params; p->name; p++)
		(void)param_int(p->name);
}

/* --- verification ------------------------------------------------------ */

static atomic_int inject_pending;

static void inject_corruption(uint64_t *word)
{
	uint64_t bad = ~*word;
	int fd = open("/proc/self/mem", O_RDWR);

	/* A write through another path into the page, as a kernel bug would. */
	if (fd < 0 || pwrite(fd, &bad, sizeof(bad), (off_t)(uintptr_t)word) != sizeof(bad))
		die("inject: cannot write /proc/self/mem: %s", strerror(errno));
	close(fd);
	fprintf(stderr, "%s: injected a corrupt word at %p\n", workload.name, (void *)word);
}

__thread sigjmp_buf segv_jmp;
__thread volatile int segv_armed;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)si; (void)uc;
	if (!segv_armed) {
		signal(sig, SIG_DFL);
		return;		/* a real crash: let it happen */
	}
	segv_armed = 0;
	siglongjmp(segv_jmp, 1);
}

void segv_catch_init(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
}

int inject_take(void)
{
	return atomic_load_explicit(&inject_pending, memory_order_relaxed) &&
	       atomic_exchange(&inject_pending, 0);
}

void fill_page(void *page, uint64_t key, uint64_t gen)
{
	uint64_t *w = page;

	for (size_t i = 0; i < WORDS_PER_PAGE; i++)
		w[i] = key + 8 * i + (gen << 48);
	/* Read before exchanging: no shared-line write on the normal path. */
	if (atomic_load_explicit(&inject_pending, memory_order_relaxed) &&
	    atomic_exchange(&inject_pending, 0))
		inject_corruption(&w[7]);
}

/* The first @nwords words of a page filled by fill_page(@key, @gen). */
uint64_t check_words(struct worker *wk, const void *page, uint64_t key, uint64_t gen, size_t nwords)
{
	const volatile uint64_t *w = page;
	uint64_t bad = 0;

	for (size_t i = 0; i < nwords; i++) {
		uint64_t want = key + 8 * i + (gen << 48);

		if (w[i] != want) {
			if (!bad && wk->errors < 4)
				fprintf(stderr, "%s: thread %d: CORRUPT word %zu of page %p: "
					"0x%llx, expected 0x%llx\n", workload.name, wk->tid, i,
					page, (unsigned long long)w[i],
					(unsigned long long)want);
			bad++;
		}
	}
	if (bad)
		wk->errors++;
	return bad;
}

uint64_t check_page(struct worker *wk, const void *page, uint64_t key, uint64_t gen)
{
	return check_words(wk, page, key, gen, WORDS_PER_PAGE);
}

uint64_t touch_fresh_page(struct worker *wk, void *page)
{
	volatile uint64_t *w = page;

	w[0] = 1;
	for (size_t i = 1; i < WORDS_PER_PAGE; i++) {
		if (w[i]) {
			if (wk->errors < 4)
				fprintf(stderr, "%s: thread %d: fresh page %p is not zero at word %zu: "
					"0x%llx\n", workload.name, wk->tid, page, i,
					(unsigned long long)w[i]);
			wk->errors++;
			return 1;
		}
	}
	return 0;
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h | 1;
}

uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* --- barrier ----------------------------------------------------------- */

static struct {
	atomic_int count __attribute__((aligned(64)));
	atomic_int sense __attribute__((aligned(64)));
} bar;

/*
 * Spin briefly, then sleep on a futex: on an oversubscribed host (QEMU's vCPU
 * threads outnumbering host cores) spinning waiters would steal the time of
 * the threads still working, and under gem5 a sleeping core halts cheaply.
 */
#define SPIN_LIMIT 4096

static void barrier(int may_sleep)
{
	int sense = !atomic_load(&bar.sense);

	if (atomic_fetch_add(&bar.count, 1) == nthreads - 1) {
		atomic_store(&bar.count, 0);
		atomic_store(&bar.sense, sense);
		syscall(SYS_futex, &bar.sense, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	for (unsigned spins = 0; atomic_load(&bar.sense) != sense; spins++) {
		if (spins < SPIN_LIMIT || !may_sleep)
			_mm_pause();
		else
			syscall(SYS_futex, &bar.sense, FUTEX_WAIT_PRIVATE, !sense, NULL, NULL, 0);
	}
}

void barrier_wait(void)
{
	barrier(1);
}

/*
 * The barrier that opens the ROI.  Under gem5 it never sleeps: a waiter
 * asleep on the futex needs an IPI, an idle exit and a schedule before it
 * runs (tens of thousands of cycles), while the thread that woke it has
 * already started, so a short ROI measured one thread alone (a 2-core
 * refcount ROI once saw half its pairs uncontended).  Every simulated core
 * is a real core there, so spinning steals nobody's time; under QEMU the
 * vCPUs may outnumber host cores, so it sleeps as barrier_wait() does.
 */
static void roi_start_wait(void)
{
	barrier(m5_mode() == M5_OFF);
}

/* --- counters from the kernel ----------------------------------------- */

static const char *const vmstat_keys[] = {
	"pgfault", "vma_lock_success", "vma_lock_abort", "vma_lock_retry",
	"vma_lock_miss", "nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_all", "nr_tlb_local_flush_one", "vmscale_rcu_fault",
	"vmscale_rcu_fallback_writer", "vmscale_rcu_fallback_novma",
	"vmscale_rcu_fallback_unsupported", "vmscale_rcu_fallback_pgtable",
	"vmscale_rcu_fallback_race", "vmscale_rcu_fallback_nomem",
	"vmscale_pagecache_locked",
	/* from /proc/refcache, prefixed */
	"refcache_epoch", "refcache_conflict_evictions", "refcache_flush_evictions",
	"refcache_queued", "refcache_dirty_requeues", "refcache_weak_requeues",
	"refcache_revived", "refcache_freed",
	/* from /proc/vmscale_radix (the RadixVM region), prefixed */
	"radix_regions", "radix_regions_freed", "radix_mmap", "radix_munmap",
	"radix_mprotect", "radix_dontneed", "radix_faults", "radix_tlb_flushes",
	"radix_nodes_allocated", "radix_nodes_freed", "radix_pages_mapped",
	"radix_pages_unmapped", "radix_descs_allocated", "radix_descs_freed",
	"radix_shares_allocated", "radix_shares_freed",
	/* targeted shootdowns (per-core page tables) and their page tables */
	"radix_shootdowns", "radix_shootdown_targets", "radix_shootdown_cycles",
	"radix_local_flushes", "radix_pgds_allocated", "radix_pgds_freed",
	"radix_pte_pages_freed", "radix_forks", "radix_fork_pages_copied",
	"radix_mremap", "radix_nodes_parsec",
	/* from /proc/parsec (PARSEC reclamation) and /proc/parsec_bench, prefixed */
	"parsec_tsc_usable", "parsec_retired", "parsec_reclaimed", "parsec_rcu_fallback",
	"parsec_rcu_done", "parsec_scans", "parsec_remote_reads", "parsec_bound_hits",
	"parsec_borrowed", "parsec_blocked", "parsec_work_runs", "parsec_queued",
	"parsecbench_allocated", "parsecbench_freed", "parsecbench_live", "parsecbench_errors",
	NULL
};
#define NKEYS (sizeof(vmstat_keys) / sizeof(vmstat_keys[0]) - 1)

static void read_counters(const char *path, const char *prefix, long long *out)
{
	char name[64], key[80];
	long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		snprintf(key, sizeof(key), "%s%s", prefix, name);
		for (size_t i = 0; i < NKEYS; i++)
			if (!strcmp(key, vmstat_keys[i]))
				out[i] = v;
	}
	fclose(f);
}

/* Reads the keys above from /proc/vmstat and the vmscale /proc files; -1 if absent. */
static void read_vmstat(long long *out)
{
	for (size_t i = 0; i < NKEYS; i++)
		out[i] = -1;
	read_counters("/proc/vmstat", "", out);
	read_counters("/proc/refcache", "refcache_", out);
	read_counters("/proc/vmscale_radix", "radix_", out);
	read_counters("/proc/parsec", "parsec_", out);
	read_counters("/proc/parsec_bench", "parsecbench_", out);
}

/* Each kind of object the RadixVM region makes, and the counter of its frees. */
static const char *const radix_made_freed[][2] = {
	{ "radix_regions", "radix_regions_freed" },
	{ "radix_nodes_allocated", "radix_nodes_freed" },
	{ "radix_pages_mapped", "radix_pages_unmapped" },
	{ "radix_descs_allocated", "radix_descs_freed" },
	{ "radix_shares_allocated", "radix_shares_freed" },
	{ "radix_pgds_allocated", "radix_pgds_freed" },
};

static long long key_value(const long long *v, const char *key)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(vmstat_keys[i], key))
			return v[i];
	return -1;
}

/*
 * 1 if this process has a RadixVM region: vm.vmscale_as is read when a process
 * starts and only changed between cases.  (/proc/self/maps shows only the
 * region's mapped ranges, none once a workload has unmapped its pages.)
 */
static int has_region(void)
{
	char as[32] = "";
	FILE *f = fopen("/proc/sys/vm/vmscale_as", "r");

	if (!f)
		return 0;
	if (!fgets(as, sizeof(as), f))
		as[0] = 0;
	fclose(f);
	return as[0] && strncmp(as, "stock", 5);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static long long quiesced_ms;
static int quiesce_asked;

/*
 * Regions are freed by Refcache and nodes by RCU or PARSEC, epochs after
 * their last process exits: how long that takes depends on the CPUs' ticks
 * (slow with many vCPUs on few host CPUs), so a leak check waits for the
 * totals to balance rather than for a fixed time.  Returns the ms waited,
 * or -1 when they did not balance within quiesce_ms (the totals then show
 * what is left).
 */
static long long quiesce(long long *after)
{
	long long limit = param_int("quiesce_ms");

	/* a process in the region holds live objects: its totals cannot balance */
	quiesce_asked = limit > 0 && !has_region();
	if (!quiesce_asked)
		limit = 0;

	for (long long start = now_ms();;) {
		long long ms = now_ms() - start;
		int balanced = 1;

		read_vmstat(after);
		for (size_t i = 0; i < sizeof(radix_made_freed) / sizeof(radix_made_freed[0]); i++)
			if (key_value(after, radix_made_freed[i][0]) !=
			    key_value(after, radix_made_freed[i][1]))
				balanced = 0;
		if (balanced)
			return ms;
		if (ms >= limit)
			return -1;
		usleep(1000);
	}
}

/* Prints `},"<prefix>_totals":{...` from the keys named <prefix>_*. */
static void print_totals(FILE *o, const char *prefix, const long long *after)
{
	size_t n = strlen(prefix);
	int first = 1;

	fprintf(o, "},\"%s_totals\":{", prefix);
	for (size_t i = 0; i < NKEYS; i++)
		if (after[i] >= 0 && !strncmp(vmstat_keys[i], prefix, n) && vmstat_keys[i][n] == '_') {
			fprintf(o, "%s\"%s\":%lld", first ? "" : ",", vmstat_keys[i] + n + 1, after[i]);
			first = 0;
		}
}

/* --- workers ----------------------------------------------------------- */

static struct worker workers[MAX_THREADS];
static int ncpus;

/*
 * The window throughput: the operations all threads completed while all of
 * them were running, from the moment the last thread started to the moment
 * the first one finished, per cycle.  Threads that a contended line serves
 * unfairly finish far apart; the mean of per-thread rates then mixes a
 * crowded machine with a nearly idle one, the window does not.  The last
 * thread to start and the first to finish each read every thread's op count
 * (one line per thread, once), so the window is as fine as a workload counts
 * its ops.
 *
 * That read is not instantaneous: each count is a line its thread last
 * wrote, a transfer across the reference board's sockets (~390 cycles a
 * count at 40 cores).  Each read is timed, and an edge of the window is the
 * mean time of its scan's reads: the counts and the edge then stand for the
 * same moment.  (Until session 63 the open read the counts before its time
 * and the close after its own, so half of each scan was counted in
 * operations and not in cycles: 1-6% of refcount's 2,000-pair windows at 40
 * cores, FINDINGS, session 63.)  Each scan's span is reported: the edges'
 * uncertainty where the threads' rates change during a scan.
 */
static atomic_int started, finished;
static uint64_t window_open, window_close, ops_open, ops_close;
static uint64_t scan_open, scan_close;	/* cycles each edge's scan took */

static inline uint64_t cycles_now(void)
{
	_mm_lfence();
	return __rdtsc();
}

/* every thread's op count, and (*at) the mean time of the reads, (*took) their span */
static uint64_t ops_now(uint64_t *at, uint64_t *took)
{
	uint64_t sum = 0, t0 = cycles_now(), t = t0, tsum = 0;

	for (int i = 0; i < nthreads; i++) {
		sum += __atomic_load_n(&workers[i].ops, __ATOMIC_RELAXED);
		t = cycles_now();
		tsum += t - t0;
	}
	*at = t0 + tsum / (nthreads ? nthreads : 1);
	*took = t - t0;
	return sum;
}

/*
 * Fault in the top of this thread's stack before the ROI.  Its first deep
 * call inside the ROI (printf's frames) would otherwise fault fresh stack
 * pages there, and after a gem5 restore every CPU's first page allocation
 * refills its per-CPU page list under the zone lock, all cores at once: at
 * 40 cores two such faults per thread held some threads for millions of
 * cycles (results/FINDINGS.md, session 30).
 */
#define STACK_PREFAULT (64 << 10)

static void __attribute__((noinline)) prefault_stack(void)
{
	volatile char buf[STACK_PREFAULT];

	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
	buf[sizeof(buf) - 1] = 0;
}

/*
 * The program's own writable pages (.data and .bss), written with what they
 * hold before any thread starts: a static first touched inside a ROI costs a
 * fault there (two: the zero page, then its copy), and which statics share a
 * page moves whenever one is added.
 */
extern char __data_start[], _end[];

static void prefault_data(void)
{
	for (volatile char *p = __data_start; p < _end;
	     p = (char *)(((uintptr_t)p | 4095) + 1))
		*p = *p;
}

static long thread_minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_minflt;
}

/*
 * Threads that are done wait here, alive, until the result is printed: a thread
 * that exited through glibc would give back its stack (MADV_DONTNEED at exit and
 * munmap at join, each a TLB shoot-down of every CPU the mm ran on, under
 * mmap_lock).  With 80 threads that tear-down took longer than the ROI under
 * gem5, with 160 more than ten times longer.  It also keeps those 2N - 1
 * shoot-downs out of the vmstat deltas.  Then they exit one at a time
 * (exit_in_turn), by the raw syscall: exit_group's SIGKILL would end all of them
 * at once, and 160 threads exiting together queue on the process's siglock and
 * the tasklist_lock, every waiter spinning, which gem5 simulates an instruction
 * at a time (more than 6 host minutes at 160 cores for less than 10 ms).
 */
static atomic_int parked;

static void park(struct worker *w)
{
	if (atomic_fetch_add(&parked, 1) + 1 == nthreads - 1)
		syscall(SYS_futex, &parked, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	while (!__atomic_load_n(&w->go, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &w->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	/* the kernel clears exit_tid when this exit releases the mm */
	syscall(SYS_set_tid_address, &w->exit_tid);
	syscall(SYS_exit, 0);
}

static void exit_in_turn(void)
{
	for (int i = 1; i < nthreads; i++) {
		struct worker *w = &workers[i];

		__atomic_store_n(&w->exit_tid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&w->go, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &w->go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		while (__atomic_load_n(&w->exit_tid, __ATOMIC_ACQUIRE))
			_mm_pause();
	}
}

static void wait_parked(void)
{
	int n;

	while ((n = atomic_load(&parked)) != nthreads - 1)
		syscall(SYS_futex, &parked, FUTEX_WAIT_PRIVATE, n, NULL, NULL, 0);
}

/* The counters' values before the ROI, read by worker 0 after every warm-up. */
static long long vm_before[NKEYS];
static struct rusage ru_before;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t t0;
	long flt0;

	if (param_int("pin")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("thread %d: cannot pin to CPU %d: %s", w->tid, w->cpu,
			    strerror(errno));
	}
	prefault_stack();
	if (workload.warmup)
		workload.warmup(w);
	barrier_wait();			/* every thread started and warmed up */
	if (w->tid == 0) {
		read_vmstat(vm_before);
		getrusage(RUSAGE_SELF, &ru_before);
	}
	flt0 = thread_minflt();
	barrier_wait();			/* everyone pinned and ready */
	if (w->tid == 0)
		m5_work_begin(0, 0);	/* gem5: reset stats here */
	roi_start_wait();
	/*
	 * Count in before reading the start time: at 160 cores the adds to this
	 * one line queue for ~200k cycles, which a thread's own cycles should not
	 * hold (the window opens with the last add either way).
	 */
	if (atomic_fetch_add(&started, 1) + 1 == nthreads)
		ops_open = ops_now(&window_open, &scan_open);
	w->start = t0 = cycles_now();
	workload.run(w);
	w->cycles = cycles_now() - t0;
	if (atomic_fetch_add(&finished, 1) == 0)
		ops_close = ops_now(&window_close, &scan_close);
	barrier_wait();
	if (w->tid == 0)
		m5_work_end(0, 0);	/* gem5: dump the ROI's stats */
	w->roi_minflt = thread_minflt() - flt0;
	if (w->tid != 0)
		park(w);
	return NULL;
}

/*
 * What each frame holds at the ROI's end, while the workload's objects
 * (its mm, VMAs, files) are still alive: a hot-line trace of the ROI is
 * named by it (vmscale.linenames).  Printed between markers so that the
 * host can take it from the console.
 */
/*
 * The lines the run script recaps (the result, the frame map) go to stdout
 * and, when VMSCALE_RECAP names a file, are appended to it too: the script
 * then needs no tee, grep or sed per case.  Each of those is a fork and an
 * exec, about 2 ms of simulated time on gem5's Timing CPU with cold caches,
 * more than a short ROI.
 */
static void emit_to(FILE *o, char **bufp, size_t *lenp, const char *live)
{
	const char *path = getenv("VMSCALE_RECAP");
	char *buf;
	size_t len;

	fclose(o);		/* sets *bufp and *lenp */
	buf = *bufp;
	len = *lenp;
	if (path && *path && live)
		fputs(live, stdout);
	else
		fwrite(buf, 1, len, stdout);
	fflush(stdout);
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
			die("%s: %s", path, strerror(errno));
		close(fd);
	}
	free(buf);
}

static void emit(FILE *o, char **bufp, size_t *lenp)
{
	emit_to(o, bufp, lenp, NULL);
}

static FILE *out_buffer(char **buf, size_t *len)
{
	FILE *o = open_memstream(buf, len);

	if (!o)
		die("out of memory");
	return o;
}

/*
 * What each frame holds at the ROI's end, while the workload's objects
 * (its mm, VMAs, files) are still alive: a hot-line trace of the ROI is
 * named by it (vmscale.linenames).  Printed between markers so that the
 * host can take it from the console.
 */
static void print_physmap(void)
{
	static char chunk[1 << 16];
	FILE *f = fopen("/proc/vmscale_physmap", "r");
	const char *cid = getenv("VMSCALE_CASE");
	char *buf;
	size_t n, len;
	FILE *o = out_buffer(&buf, &len);

	if (!f) {
		fprintf(o, "VMSCALE-PHYSMAP-NONE %s\n", strerror(errno));
		emit(o, &buf, &len);
		return;
	}
	fprintf(o, "VMSCALE-PHYSMAP-BEGIN\n");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, o);
	fclose(f);
	fprintf(o, "VMSCALE-PHYSMAP-END\n");
	/*
	 * Under gem5 the map (tens of KB) goes to the host's m5out/ by m5
	 * writefile, which copies it outside simulated time: through the UART
	 * it cost a 2-core run 50 ms of simulated time per case, a character
	 * and an interrupt at a time.  The console gets one line naming it.
	 */
	if (m5_mode() != M5_OFF && cid && *cid && strlen(cid) < 16) {
		char name[48];

		fclose(o);
		snprintf(name, sizeof(name), "physmap-%s.txt", cid);
		if (m5_write_file(buf, len, 0, name) == len) {
			char *line;
			size_t ll;
			FILE *l = out_buffer(&line, &ll);

			fprintf(l, "VMSCALE-PHYSMAP-FILE %s %zu\n", name, len);
			emit(l, &line, &ll);
			free(buf);
			return;
		}
		{			/* not written: the console after all */
			char *again;
			size_t al;
			FILE *a = out_buffer(&again, &al);

			fwrite(buf, 1, len, a);
			free(buf);
			emit(a, &again, &al);
			return;
		}
	}
	emit(o, &buf, &len);
}

static long children_minflt;	/* faults of worker processes (psearchy processes=1) */

static void print_result(long long *before, long long *after, struct rusage *ru0,
			 struct rusage *ru1)
{
	uint64_t ops = 0, errors = 0, extra = 0, max_cycles = 0, mmaps = 0, munmaps = 0, roi_minflt = 0;
	uint64_t first_start = UINT64_MAX, last_start = 0;
	double cpo_sum = 0;
	int first = 1;
	char *buf;
	size_t len;
	FILE *o = out_buffer(&buf, &len);

	for (int i = 0; i < nthreads; i++) {
		ops += workers[i].ops;
		errors += workers[i].errors;
		extra += workers[i].extra;
		mmaps += workers[i].mmaps;
		munmaps += workers[i].munmaps;
		roi_minflt += workers[i].roi_minflt;
		if (workers[i].cycles > max_cycles)
			max_cycles = workers[i].cycles;
		if (workers[i].start < first_start)
			first_start = workers[i].start;
		if (workers[i].start > last_start)
			last_start = workers[i].start;
		if (workers[i].ops)
			cpo_sum += (double)workers[i].cycles / workers[i].ops;
	}
	fprintf(o, "VMSCALE-RESULT {\"workload\":\"%s\",\"ok\":%s,\"errors\":%llu,"
	       "\"threads\":%d,\"online_cpus\":%d,\"m5\":\"%s\",\"ops_unit\":\"%s\","
	       "\"ops\":%llu,\"cycles\":%llu,\"cycles_per_op\":%.1f,"
	       "\"ops_per_mcycle\":%.3f,\"start_skew_cycles\":%llu,",
	       workload.name, errors ? "false" : "true", (unsigned long long)errors,
	       nthreads, ncpus, m5_mode_name(m5_mode()), workload.ops_unit,
	       (unsigned long long)ops, (unsigned long long)max_cycles,
	       cpo_sum / nthreads, max_cycles ? ops * 1e6 / max_cycles : 0.0,
	       (unsigned long long)(last_start - first_start));
	{
		/* empty when a thread finished before the last one started */
		uint64_t wc = window_close > window_open ? window_close - window_open : 0;
		uint64_t wo = wc && ops_close > ops_open ? ops_close - ops_open : 0;

		fprintf(o, "\"window_ops\":%llu,\"window_cycles\":%llu,\"window_ops_per_cycle\":%.6g,"
		       "\"window_open_scan_cycles\":%llu,\"window_close_scan_cycles\":%llu,",
		       (unsigned long long)wo, (unsigned long long)wc, wc ? (double)wo / wc : 0.0,
		       (unsigned long long)scan_open, (unsigned long long)scan_close);
	}
	if (workload.extra_name)
		fprintf(o, "\"%s\":%llu,", workload.extra_name, (unsigned long long)extra);
	if (mmaps || munmaps)
		fprintf(o, "\"mmaps\":%llu,\"munmaps\":%llu,", (unsigned long long)mmaps, (unsigned long long)munmaps);
	/* the threads wait, alive, until the result is printed (park): no exit is in the counts */
	fprintf(o, "\"threads_end\":\"parked\",");
	if (quiesce_asked)	/* -1: the totals did not balance in time */
		fprintf(o, "\"quiesced_ms\":%lld,", quiesced_ms);
	fprintf(o, "\"minflt\":%ld,\"roi_minflt\":%llu,\"params\":{", ru1->ru_minflt - ru0->ru_minflt + children_minflt,
		(unsigned long long)roi_minflt);
	for (const struct param *p = workload.params; p && p->name; p++, first = 0)
		fprintf(o, "%s\"%s\":\"%s\"", first ? "" : ",", p->name, param_str(p->name));
	fprintf(o, "},\"vmstat\":{");
	first = 1;
	for (size_t i = 0; i < NKEYS; i++)
		if (before[i] >= 0 && after[i] >= 0) {
			fprintf(o, "%s\"%s\":%lld", first ? "" : ",", vmstat_keys[i],
			       after[i] - before[i]);
			first = 0;
		}
	/*
	 * Running totals: at quiescence Refcache's queued == freed + revived, and the
	 * RadixVM region's allocated == freed for every object kind (nothing leaked).
	 */
	print_totals(o, "refcache", after);
	print_totals(o, "radix", after);
	/* PARSEC at rest: queued == 0, rcu_done == rcu_fallback; its benchmark: allocated == freed + live */
	print_totals(o, "parsec", after);
	print_totals(o, "parsecbench", after);
	fprintf(o, "},\"thread_cycles\":[");
	for (int i = 0; i < nthreads; i++)
		fprintf(o, "%s%llu", i ? "," : "", (unsigned long long)workers[i].cycles);
	fprintf(o, "]}\n");
	{
		/*
		 * With a recap file (under gem5) the whole line (2-3 KB with the
		 * vmstat deltas) goes there only and leaves by m5 writefile; the
		 * UART, a character and an interrupt at a time, cost ~14 ms of
		 * simulated time per case for it.  The console gets a short line.
		 */
		char live[128];

		snprintf(live, sizeof(live), "VMSCALE-RESULT-IN-RECAP ok=%s ops=%llu\n",
			 errors ? "false" : "true", (unsigned long long)ops);
		emit_to(o, &buf, &len, live);
	}
}

int main(int argc, char **argv)
{
	pthread_t tids[MAX_THREADS];
	long long after[NKEYS];
	struct rusage ru1;

	parse_args(argc, argv);
	if (m5_init() < 0)
		return 2;
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	nthreads = param_int("threads") ? param_int("threads") : ncpus;
	if (nthreads < 1 || nthreads > MAX_THREADS)
		die("threads=%d: must be 1..%d", nthreads, MAX_THREADS);
	atomic_store(&inject_pending, param_int("inject") != 0);
	if (workload.setup && workload.setup(nthreads))
		die("setup failed");
	for (int i = 0; i < nthreads; i++) {
		workers[i].tid = i;
		workers[i].cpu = i % ncpus;
		workers[i].rng = 0x9E3779B97F4A7C15ULL * (param_int("seed") + i + 1);
	}
	/*
	 * Console output still queued (the run script's marker lines) would be sent
	 * during the ROI, a UART interrupt per character on the measured CPUs: a
	 * 2-core refcount ROI ran twice its instructions per op that way.  Wait
	 * until it is sent (not a tty: nothing to wait for).
	 */
	tcdrain(STDOUT_FILENO);
	tcdrain(STDERR_FILENO);
	prefault_data();
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker_main, &workers[i]))
			die("cannot start thread %d", i);
	worker_main(&workers[0]);
	wait_parked();
	getrusage(RUSAGE_SELF, &ru1);
	{
		struct rusage rc;

		getrusage(RUSAGE_CHILDREN, &rc);
		children_minflt = rc.ru_minflt;
	}
	if (param_int("physmap"))
		print_physmap();
	if (workload.settle)
		workers[0].errors += workload.settle(&workers[0]);
	quiesced_ms = quiesce(after);
	if (workload.verify)
		workers[0].errors += workload.verify();
	if (workload.teardown)
		workload.teardown();
	print_result(vm_before, after, &ru_before, &ru1);
	exit_in_turn();
	for (int i = 0; i < nthreads; i++)
		if (workers[i].errors)
			return 1;
	return 0;
}
