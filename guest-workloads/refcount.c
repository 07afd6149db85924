/*
 * refcount (RadixVM Figure 8's counter comparison): every thread takes and
 * drops references on one kernel object shared by all CPUs, through
 * /proc/refcache_bench, with the counter named by `counter`: a shared
 * atomic, Refcache, or the kernel's percpu_ref.  The kernel loops; each
 * write of "COUNTER N" is N get/put pairs, so cycles per op are the
 * kernel's get+put cost plus 1/chunk of a syscall.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "200000", "get/put pairs per thread" },
	{ "chunk", "10000", "pairs per write to /proc/refcache_bench" },
	{ "counter", "atomic", "atomic, refcache or percpu (the runner sets it from the kernel variant)" },
	{ NULL }
};

static const char *counter;
static int *fds;		/* one open file per thread, opened before the ROI */

static int setup(int n)
{
	counter = param_str("counter");
	if (strcmp(counter, "atomic") && strcmp(counter, "refcache") && strcmp(counter, "percpu"))
		die("counter=%s: use atomic, refcache or percpu", counter);
	if (access("/proc/refcache_bench", W_OK))
		die("/proc/refcache_bench: %s (a kernel without CONFIG_REFCACHE_BENCH?)", strerror(errno));
	/*
	 * Open here, not in run(): open() allocates (struct file, the name
	 * buffer), and after a checkpoint restore the per-CPU page lists are
	 * cold, so the refills queue on the zone lock inside the ROI (seen at
	 * 40 cores: 25 cores spent 95% of their ROI in the zone lock's
	 * slowpath).  One file per thread, so fdget's reference on a shared
	 * struct file is not a second hot line beside the counter.
	 */
	fds = calloc(n, sizeof(*fds));
	if (!fds)
		die("%d fds: out of memory", n);
	for (int i = 0; i < n; i++) {
		fds[i] = open("/proc/refcache_bench", O_WRONLY);
		if (fds[i] < 0)
			die("fd %d of %d: /proc/refcache_bench: %s", i, n, strerror(errno));
	}
	return 0;
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), chunk = param_int("chunk");
	int fd = fds[w->tid];
	char cmd[64];

	if (chunk < 1)
		die("chunk=%lld: must be positive", chunk);
	for (long long done = 0; done < iters; done += chunk) {
		long long n = iters - done < chunk ? iters - done : chunk;
		int len = snprintf(cmd, sizeof(cmd), "%s %lld", counter, n);

		if (write(fd, cmd, len) != len)
			die("thread %d: write %s: %s", w->tid, cmd, strerror(errno));
		w->ops += n;
	}
}

const struct workload workload = {
	.name = "refcount",
	.summary = "all CPUs get/put one shared kernel object: atomic vs Refcache vs percpu_ref",
	.ops_unit = "get+put pair",
	.params = params,
	.setup = setup,
	.run = run,
};
