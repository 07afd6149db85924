/*
 * vmapi: how the rest of the kernel treats memory at REGION_BASE, checked
 * in whichever address-space design the process was started with.  Thread 0
 * maps a page there, writes it, and then:
 *                          stock                 RadixVM region
 *   /proc/self/maps        no "[radixvm]"        "[radixvm]" line
 *   fork: child reads it   sees the data (COW)   sees the data (copied)
 *   /proc/self/mem pread   the data              fails (GUP refused)
 *   process_vm_readv       the data              fails with EFAULT
 *                          (skipped if the kernel lacks the call)
 *   mremap of the page     moves it              fails with EINVAL
 *   FUTEX_WAKE (shared)    0                     0 (keyed by address)
 *   munmap, then a read    SIGSEGV               SIGSEGV
 * ops = checks passed, errors = checks failed; the other threads idle.
 * `iters` repeats the whole round.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct param params[] = {
	{ "iters", "1", "rounds of all checks" },
	{ NULL }
};

static sigjmp_buf jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(jmp, 1);
}

/* Reads p[0]; 1 if that faulted. */
static int faults(volatile uint64_t *p)
{
	uint64_t v;

	if (sigsetjmp(jmp, 1))
		return 1;
	v = p[0];
	(void)v;
	return 0;
}

static int in_maps(const char *what)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("vmapi: /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void check(struct worker *w, int ok, const char *what)
{
	if (ok) {
		w->ops++;
		return;
	}
	fprintf(stderr, "vmapi: failed: %s\n", what);
	w->errors++;
}

static void round_of_checks(struct worker *w)
{
	uint64_t *p = (uint64_t *)REGION_BASE, key = 0x5eed5eed5eedULL, got = 0;
	struct iovec local = { &got, sizeof(got) }, remote = { p, sizeof(got) };
	int radix, status, fd;
	ssize_t n;
	pid_t child;
	void *q;

	if (w->tid)
		return;
	signal(SIGSEGV, on_segv);
	if (mmap(p, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != p)
		die("vmapi: mmap: %s", strerror(errno));
	p[0] = key;
	radix = in_maps("[radixvm]");
	w->extra = radix;

	child = fork();
	if (child == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(*(volatile uint64_t *)p == key ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		die("vmapi: fork: %s", strerror(errno));
	check(w, WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork child sees the data");

	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0)
		die("vmapi: /proc/self/mem: %s", strerror(errno));
	got = 0;
	check(w, radix ? pread(fd, &got, sizeof(got), (off_t)(uintptr_t)p) < 0
		       : pread(fd, &got, sizeof(got), (off_t)(uintptr_t)p) == sizeof(got) && got == key,
	      radix ? "/proc/self/mem must refuse the region" : "/proc/self/mem reads the data");
	close(fd);

	got = 0;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n >= 0 || errno != ENOSYS)	/* CONFIG_CROSS_MEMORY_ATTACH */
		check(w, radix ? n < 0 && errno == EFAULT : n == sizeof(got) && got == key,
		      radix ? "process_vm_readv must refuse the region"
			    : "process_vm_readv reads the data");

	check(w, syscall(SYS_futex, p, FUTEX_WAKE, 1, NULL, NULL, 0) == 0, "shared FUTEX_WAKE");

	q = mremap(p, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)p + THREAD_STRIDE);
	check(w, q == (char *)p + THREAD_STRIDE && ((uint64_t *)q)[0] == key, "mremap moves the page");
	if (q != MAP_FAILED)
		p = q;
	check(w, !faults(p) && p[0] == key, "the data is still there");
	check(w, munmap(p, PAGE_SIZE) == 0 && faults(p), "an access after munmap faults");
	signal(SIGSEGV, SIG_DFL);
}

static void run(struct worker *w)
{
	for (long long i = param_int("iters"); i > 0; i--)
		round_of_checks(w);
}

const struct workload workload = {
	.name = "vmapi",
	.summary = "fork, /proc/pid/mem, process_vm_readv, futex, mremap on memory at REGION_BASE",
	.ops_unit = "check passed",
	.extra_name = "radix_region",
	.params = params,
	.run = run,
};
