/*
 * pagecache (Piggin): threads read pages of one shared, cached file, both
 * with pread (a page-cache lookup and copy) and by mapping a page and
 * faulting it in (a page-cache lookup in the fault path).
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "500", "page reads per thread" },
	{ "file_pages", "256", "size of the shared file in pages" },
	{ "pread", "1", "1: read each page with pread" },
	{ "bytes", "4096", "bytes each pread reads from the page's start (8..4096, a multiple of 8): fewer make the lookup a larger share of the read" },
	{ "mmap", "1", "1: also map the page and fault it in" },
	{ "dir", "/var/tmp", "directory for the file (the guest's root is ext2)" },
	{ "evict", "0", "N>0: every N reads thread 0 drops the file's clean pages (races lookups with removal and refill)" },
	{ "own_fd", "0", "1: each thread reads through its own open of the file, so no struct file (its reference "
			 "count, its readahead state) is shared: only the page cache's lines are" },
	{ NULL }
};

#define GEN 0x77
static int fd;
static int fds[MAX_THREADS];	/* the fd each thread reads through */
static int nfds;
static char path[4096];

static int setup(int n)
{
	long long np = param_int("file_pages"), bytes = param_int("bytes");
	static uint64_t buf[WORDS_PER_PAGE];

	(void)n;
	if (np < 1)
		die("file_pages must be >= 1");
	if (bytes < 8 || bytes > (long long)PAGE_SIZE || bytes % 8)
		die("bytes must be a multiple of 8 from 8 to %lu", PAGE_SIZE);
	snprintf(path, sizeof(path), "%s/vmscale-pagecache-%d", param_str("dir"), getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	for (long long pg = 0; pg < np; pg++) {
		fill_page(buf, pg * PAGE_SIZE, GEN);	/* keyed by file offset */
		if (pwrite(fd, buf, PAGE_SIZE, pg * PAGE_SIZE) != (ssize_t)PAGE_SIZE)
			die("write %s: %s", path, strerror(errno));
	}
	fsync(fd);	/* clean pages: later reads are pure lookups */
	/*
	 * Threads share one file table, so every pread takes a reference on
	 * the struct file it reads through and writes its readahead state:
	 * with one fd for all, those lines are the hottest of a lockless
	 * lookup (FINDINGS, session 48).  Opened here, outside the ROI.
	 */
	nfds = n;
	for (int t = 0; t < n; t++) {
		fds[t] = param_int("own_fd") ? open(path, O_RDONLY) : fd;
		if (fds[t] < 0)
			die("%s: %s", path, strerror(errno));
	}
	return 0;
}

static void run(struct worker *w)
{
	long long iters = param_int("iters"), np = param_int("file_pages");
	int use_pread = param_int("pread"), use_mmap = param_int("mmap");
	long long evict = param_int("evict");
	size_t bytes = param_int("bytes");
	int rfd = fds[w->tid];
	static __thread uint64_t buf[WORDS_PER_PAGE];

	for (long long i = 0; i < iters; i++) {
		off_t off = (xorshift(&w->rng) % np) * PAGE_SIZE;

		if (use_pread) {
			if (pread(rfd, buf, bytes, off) != (ssize_t)bytes)
				die("thread %d: pread: %s", w->tid, strerror(errno));
			check_words(w, buf, off, GEN, bytes / 8);
		}
		if (use_mmap) {
			char *p = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, rfd, off);

			if (p == MAP_FAILED)
				die("thread %d: mmap: %s", w->tid, strerror(errno));
			check_page(w, p, off, GEN);
			munmap(p, PAGE_SIZE);
		}
		w->ops++;
		/*
		 * Eviction takes pages out of the cache (their refcount frozen
		 * under the mapping's lock) while the others look them up; the
		 * next read brings them back from disk with the same contents.
		 */
		if (evict > 0 && w->tid == 0 && w->ops % (uint64_t)evict == 0 &&
		    (errno = posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED)))
			die("thread 0: posix_fadvise: %s", strerror(errno));
	}
}

static void teardown(void)
{
	for (int t = 0; t < nfds; t++)
		if (fds[t] != fd)
			close(fds[t]);
	close(fd);
	unlink(path);
}

const struct workload workload = {
	.name = "pagecache",
	.summary = "threads read pages of one cached file with pread and mmap faults",
	.ops_unit = "page read",
	.params = params,
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
