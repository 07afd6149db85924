/*
 * footprint (RadixVM Table 2's comparison): the kernel memory that describes
 * an address space.  Each thread maps `iters` private anonymous mappings of
 * `pages` pages, one page apart so that Linux cannot merge them into one VMA,
 * and touches every page.  At the peak thread 0 measures the growth of the
 * address-space metadata since before the first mmap, system-wide:
 *   stock:   vm_area_struct and maple_node slab bytes (/proc/slabinfo)
 *   radixvm: radix nodes, per-page records and mapping descriptors
 *            (/proc/vmscale_radix: live objects times object size)
 * and reports it as `metadata_bytes`.  Page tables are the same in both
 * designs and are not counted.  The guest must be otherwise idle.  SLUB
 * reports slab usage in whole slabs, including free objects cached per CPU,
 * so use thousands of mappings (iters=2000 pages=1) for a figure within a
 * few percent.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const struct param params[] = {
	{ "iters", "64", "mappings per thread" },
	{ "pages", "16", "pages per mapping (all touched)" },
	{ NULL }
};

static long long before;

/* Value of `name` in a "name value" file, or -1. */
static long long kv(const char *path, const char *name)
{
	char key[64];
	long long v, found = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/*
 * active_objs * objsize of a slab cache; 0 if it is merged into another
 * (boot with slab_nomerge), absent, or /proc/slabinfo is unreadable.
 */
static long long slab_bytes(const char *cache)
{
	char line[512], name[64];
	long long active, total, size;
	long long bytes = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld %lld %lld", name, &active, &total, &size) == 4 &&
		    !strcmp(name, cache))
			bytes = active * size;
	fclose(f);
	return bytes;
}

/* Address-space metadata in use now, in bytes. */
static long long metadata(void)
{
	const char *r = "/proc/vmscale_radix";
	long long radix = 0;

	if (kv(r, "nodes_allocated") >= 0)
		radix = (kv(r, "nodes_allocated") - kv(r, "nodes_freed")) * kv(r, "node_bytes") +
			(kv(r, "pages_mapped") - kv(r, "pages_unmapped")) * kv(r, "page_bytes") +
			(kv(r, "descs_allocated") - kv(r, "descs_freed")) * kv(r, "desc_bytes");
	return radix + slab_bytes("vm_area_struct") + slab_bytes("maple_node");
}

static int setup(int n)
{
	(void)n;
	if (param_int("iters") < 1 || param_int("pages") < 1 ||
	    (param_int("iters") * (param_int("pages") + 1) * PAGE_SIZE) > THREAD_STRIDE)
		die("footprint: iters * (pages + 1) pages must fit in 1 GiB per thread");
	before = metadata();
	return 0;
}

static void run(struct worker *w)
{
	long long maps = param_int("iters"), pages = param_int("pages");
	size_t len = pages * PAGE_SIZE, step = len + PAGE_SIZE;
	char *base = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);

	for (long long m = 0; m < maps; m++) {
		char *p = base + m * step;

		if (mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != p)
			die("thread %d: mmap: %s", w->tid, strerror(errno));
		for (long long pg = 0; pg < pages; pg++)
			fill_page(p + pg * PAGE_SIZE, (uintptr_t)p + pg * PAGE_SIZE, m);
		w->ops++;
	}
	barrier_wait();
	if (w->tid == 0)
		w->extra = metadata() - before;
	barrier_wait();
	for (long long m = 0; m < maps; m++) {
		char *p = base + m * step;

		for (long long pg = 0; pg < pages; pg++)
			check_page(w, p + pg * PAGE_SIZE, (uintptr_t)p + pg * PAGE_SIZE, m);
		if (munmap(p, len))
			die("thread %d: munmap: %s", w->tid, strerror(errno));
	}
}

const struct workload workload = {
	.name = "footprint",
	.summary = "address-space metadata bytes at the peak of many small touched mappings",
	.ops_unit = "mapping",
	.extra_name = "metadata_bytes",
	.params = params,
	.setup = setup,
	.run = run,
};
