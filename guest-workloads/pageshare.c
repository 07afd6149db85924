/*
 * pageshare (RadixVM Figure 8): n threads repeatedly mmap the same shared
 * physical page (one memfd page), read it and munmap it.  Every map and
 * unmap takes and drops a reference on that one page.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "500", "map/read/unmap rounds per thread" },
	{ NULL }
};

#define GEN 0x5A5

static int fd;

static int setup(int n)
{
	char *p;

	(void)n;
	fd = memfd_create("vmscale-pageshare", 0);
	if (fd < 0 || ftruncate(fd, PAGE_SIZE))
		die("memfd: %s", strerror(errno));
	p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap memfd: %s", strerror(errno));
	fill_page(p, 0, GEN);	/* keyed by file offset, not address */
	munmap(p, PAGE_SIZE);
	return 0;
}

static void run(struct worker *w)
{
	long long iters = param_int("iters");
	char *want = (char *)(REGION_BASE + w->tid * THREAD_STRIDE);

	for (long long i = 0; i < iters; i++) {
		char *p = mmap(want, PAGE_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
			       fd, 0);

		if (p != want)
			die("thread %d: mmap: %s", w->tid, strerror(errno));
		check_page(w, p, 0, GEN);
		if (munmap(p, PAGE_SIZE))
			die("thread %d: munmap: %s", w->tid, strerror(errno));
		w->ops++;
	}
}

static void teardown(void)
{
	close(fd);
}

const struct workload workload = {
	.name = "pageshare",
	.summary = "threads repeatedly map, read and unmap one shared memfd page",
	.ops_unit = "mmap+read+munmap",
	.params = params,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
