/*
 * reclaim (PARSEC's micro-benchmark, Wang et al. EuroSys 2016, 5.1, in the
 * kernel): every thread runs read sections on a node another CPU publishes
 * and, every `every` iterations, replaces its own node and retires the old
 * one, through /proc/parsec_bench.  `smr` names the reclamation: rcu
 * (call_rcu, what the kernel's lockless structures use) or parsec (TSC
 * quiescence).  With every=1 an op is one read section plus one retired
 * node, so cycles per op are the cost of retiring a node, and of reclaiming
 * it where that happens inline (PARSEC; RCU frees in callbacks after a grace
 * period, mostly after a short ROI).  pending_at_roi_end counts the nodes
 * retired but not yet freed when the last thread finished: the memory each
 * design holds back.  The kernel fails a write with EIO if a reader saw a
 * node already freed.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "100000", "iterations per thread (read sections)" },
	{ "chunk", "10000", "iterations per write to /proc/parsec_bench" },
	{ "every", "1", "retire a node every N iterations (1: every iteration)" },
	{ "smr", "rcu", "rcu or parsec (the runner sets it from the kernel variant)" },
	{ "settle_ms", "5000", "after the ROI (and a warm-up), wait up to this long for every retired node to be freed" },
	{ "warmup", "0", "iterations per thread before the ROI, not counted, then a wait until their nodes are freed" },
	{ NULL }
};

static const char *smr;

static int setup(int n)
{
	smr = param_str("smr");
	if (strcmp(smr, "rcu") && strcmp(smr, "parsec"))
		die("smr=%s: use rcu or parsec", smr);
	if (param_int("chunk") < 1 || param_int("every") < 1)
		die("chunk and every must be positive");
	if (param_int("warmup") < 0)
		die("warmup=%lld: must be 0 or more", param_int("warmup"));
	if (access("/proc/parsec_bench", W_OK))
		die("/proc/parsec_bench: %s (a kernel without CONFIG_PARSEC_BENCH?)", strerror(errno));
	return 0;
}

/* `iters` iterations through /proc/parsec_bench, `chunk` per write; counted as ops if `count`. */
static void iterate(struct worker *w, long long iters, int count)
{
	long long chunk = param_int("chunk"), every = param_int("every");
	int fd = open("/proc/parsec_bench", O_WRONLY);
	char cmd[64];

	if (fd < 0)
		die("thread %d: /proc/parsec_bench: %s", w->tid, strerror(errno));
	for (long long done = 0; done < iters; done += chunk) {
		long long n = iters - done < chunk ? iters - done : chunk;
		int len = snprintf(cmd, sizeof(cmd), "%s %lld %lld", smr, n, every);

		if (write(fd, cmd, len) != len)
			die("thread %d: write %s: %s%s", w->tid, cmd, strerror(errno),
			    errno == EIO ? " (a reader saw a freed node)" : "");
		if (count)
			w->ops += n;
	}
	close(fd);
}

static void run(struct worker *w)
{
	iterate(w, param_int("iters"), 1);
}

/* Reads "name value" lines of a /proc file into the named slots; 0 if all were found. */
static int read_keys(const char *path, const char *const *names, long long *vals, int n)
{
	char name[64];
	long long v;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2)
		for (int i = 0; i < n; i++)
			if (!strcmp(name, names[i])) {
				vals[i] = v;
				found++;
			}
	fclose(f);
	return found == n ? 0 : -1;
}

/* Whether every node retired so far was freed: b = allocated, freed, live; p = PARSEC's queued,
 * rcu_fallback, rcu_done. */
static int drained(long long b[3], long long p[3])
{
	static const char *const bench[] = { "allocated", "freed", "live" };
	static const char *const ps[] = { "queued", "rcu_fallback", "rcu_done" };

	if (read_keys("/proc/parsec_bench", bench, b, 3) || read_keys("/proc/parsec", ps, p, 3))
		die("cannot read /proc/parsec_bench or /proc/parsec");
	return b[0] == b[1] + b[2] && p[0] == 0 && p[1] == p[2];
}

/*
 * Nothing leaks: every node the benchmark allocated is freed or still
 * published, PARSEC's queues are empty, and every object it handed to RCU
 * was freed by RCU.  Polls until that holds or settle_ms passed.
 */
static uint64_t settle(struct worker *w0)
{
	long long b[3], p[3];

	for (long long ms = 0;; ms++) {
		int done = drained(b, p);

		if (ms == 0)	/* retired in the ROI, not yet freed at its end */
			w0->extra = b[0] - b[1] - b[2];
		if (done)
			return 0;
		if (ms >= param_int("settle_ms")) {
			fprintf(stderr, "reclaim: not settled after %lld ms: allocated %lld freed %lld "
				"live %lld; parsec queued %lld, rcu_fallback %lld rcu_done %lld\n",
				ms, b[0], b[1], b[2], p[0], p[1], p[2]);
			return 1;
		}
		usleep(1000);
	}
}

/*
 * Before the ROI: `warmup` iterations a thread, then a wait until every node
 * they retired is freed.  RCU frees a node after a grace period, longer than a
 * short ROI, so a ROI's nodes come from fresh slab pages; a long run takes
 * them from the pages its earlier frees gave back to the CPU's per-CPU page
 * list, where a ROI restored from a boot checkpoint finds that list empty and
 * refills it from the zone under the zone's lock, every CPU at once.  The
 * warm-up's frees fill the lists as a long run's would (FINDINGS, session 59).
 */
static void warmup(struct worker *w)
{
	long long b[3], p[3];

	if (param_int("warmup") <= 0)
		return;
	iterate(w, param_int("warmup"), 0);
	for (long long ms = 0; !drained(b, p); ms++) {
		if (ms >= param_int("settle_ms"))
			die("thread %d: warm-up not settled after %lld ms: allocated %lld freed %lld live %lld",
			    w->tid, ms, b[0], b[1], b[2]);
		usleep(1000);
	}
}

const struct workload workload = {
	.name = "reclaim",
	.summary = "read sections and node retirement on every CPU: RCU vs PARSEC reclamation",
	.ops_unit = "iteration (read section + retire every `every`)",
	.extra_name = "pending_at_roi_end",
	.params = params,
	.setup = setup,
	.warmup = warmup,
	.run = run,
	.settle = settle,
};
