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
#include <string.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "200000", "get/put pairs per thread" },
	{ "chunk", "10000", "pairs per write to /proc/refcache_bench" },
	{ "counter", "atomic", "atomic, refcache or percpu (the runner sets it from the kernel variant)" },
	{ NULL }
};

static const char *counter;

static int setup(int n)
{
	counter = param_str("counter");
	if (strcmp(counter, "atomic") && strcmp(counter, "refcache") && strcmp(counter, "percpu"))
		die("counter=%s: use atomic, refcache or percpu", counter);
	if (access("/proc/refcache_bench", W_OK))
		die("/proc/refcache_bench: %s (a kernel without CONFIG_REFCACHE_BENCH?)", strerror(errno));
	return 0;
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), chunk = param_int("chunk");
	int fd = open("/proc/refcache_bench", O_WRONLY);
	char cmd[64];

	if (fd < 0)
		die("thread %d: /proc/refcache_bench: %s", w->tid, strerror(errno));
	if (chunk < 1)
		die("chunk=%lld: must be positive", chunk);
	for (long long done = 0; done < iters; done += chunk) {
		long long n = iters - done < chunk ? iters - done : chunk;
		int len = snprintf(cmd, sizeof(cmd), "%s %lld", counter, n);

		if (write(fd, cmd, len) != len)
			die("thread %d: write %s: %s", w->tid, cmd, strerror(errno));
		w->ops += n;
	}
	close(fd);
}

const struct workload workload = {
	.name = "refcount",
	.summary = "all CPUs get/put one shared kernel object: atomic vs Refcache vs percpu_ref",
	.ops_unit = "get+put pair",
	.params = params,
	.setup = setup,
	.run = run,
};
