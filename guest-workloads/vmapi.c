/*
 * vmapi: how the rest of the kernel treats memory at REGION_BASE, checked
 * in whichever address-space design the process was started with.  Thread 0
 * maps a page there, writes it, and then:
 *                          stock                 RadixVM region
 *   /proc/self/maps        no "[radixvm]"        "[radixvm]" line
 *   maps and smaps entry   [p, p + 4096) rw-p    the same (the region's mappings, not its reservation)
 *   pagemap                the page present      the same (from the tree, whatever the page tables)
 *   fork: child reads it   sees the data (COW)   sees the data (copied)
 *   /proc/self/mem         reads and writes it, a page never touched (zeros, then filled),
 *                          a read-only private page (forced), a shmem page; refuses a
 *                          read-only shmem page (EIO)        -- the same in both
 *   ptrace PEEK/POKEDATA   a traced child's copy: read, and the child sees the write -- both
 *   process_vm_readv and   read and write it     the same (GUP takes region pages: kernel 0021)
 *   process_vm_writev      (skipped if the kernel lacks the calls)
 *   FUTEX_WAKE (shared)    0                     0 (keyed by address)
 *   smaps VmFlags, core    no "dd"; a core dump (core_pattern "core") holds a written page's data
 *   dump                   -- both (the region is dumped as its mappings: kernel 0037)
 *   vmsplice, then munmap  the pipe reads the     the same (the pipe's reference keeps the page)
 *                          page's bytes
 *   O_DIRECT read into it  the file's bytes      the same
 *   mremap DONTUNMAP       moves it, the old range reads zeros -- both
 *   mremap of shmem        moves it              fails with EINVAL
 *   MAP_STACK, no address  placed anywhere       placed outside the region
 *   MADV_DONTFORK,         a fork child has no such page (SIGSEGV), zeros in a WIPEONFORK one,
 *   MADV_WIPEONFORK        the parent keeps both; smaps shows "dc"/"wf" on those pages only;
 *                          MADV_DOFORK/KEEPONFORK undo them; WIPEONFORK on shmem: EINVAL -- both
 *   mseal                  a sealed page: munmap (whole call), mprotect, MAP_FIXED, mremap and
 *                          (read-only) MADV_DONTNEED fail with EPERM; its neighbour unmaps -- both
 *   mremap FIXED to 8 TiB  the page moves (grown), then back (shrunk) -- both (the region copies)
 *   with notifier=1 (debug kernel): mprotect, MADV_DONTNEED and munmap of a page tell the mm's MMU
 *                          notifiers over a range holding it -- both
 *   pkey_mprotect          the page gets its key (smaps ProtectionKey); an unallocated key EINVAL;
 *                          a write PKRU denies: SIGSEGV SEGV_PKUERR, reads go on; PROT_EXEC
 *                          alone (mprotect or mmap) gives the execute-only key, a read faults,
 *                          PROT_READ gives key 0 back -- both (kernel 0040)
 *   mlock, mlock2,         mlock faults the range in, counts it in VmLck, smaps "lo"; DONTNEED on
 *   munlock, MAP_LOCKED    it EINVAL; a fork child is not locked; munlock of a page unlocks it
 *                          alone; munmap uncounts; MLOCK_ONFAULT faults nothing in; a fixed
 *                          MAP_LOCKED mapping is locked and faulted in -- the same in both
 *   userfaultfd, in a      UFFDIO_REGISTER works, the memory keeps its data, UFFDIO_COPY fills
 *   one-thread child       a missing page, the next mmap is outside the region, a fork child
 *                          reads the data -- both (the region's process leaves it: kernel 0036)
 *   overcommit (mode 0)    a private writable mapping larger than RAM + swap: ENOMEM; with
 *                          MAP_NORESERVE it maps ("nr"); read-only it maps, uncharged, and
 *                          mprotect(PROT_WRITE) then fails with ENOMEM; Committed_AS grows by a
 *                          writable mapping ("ac"), keeps it through mprotect to read-only and
 *                          back, a MAP_FIXED remap, grows and shrinks with mremap, counts a fork
 *                          child's copy, and drops it at munmap -- both (kernel 0038)
 *   overcommit=1 (mode 2)  sets vm.overcommit_memory=2 for the round: a mapping past CommitLimit,
 *                          with or without MAP_NORESERVE, a fork that would pass it and an
 *                          mprotect(PROT_WRITE) past it fail with ENOMEM -- both
 *   MDWE, in a child       PR_SET_MDWE(REFUSE_EXEC_GAIN): a writable executable mmap, mprotect
 *                          adding PROT_EXEC to data and PROT_WRITE to code fail with EACCES;
 *                          executable memory mapped so stays mappable -- both (kernel 0039)
 *   memcg=1, children in   region pages count in memory.current; a child that touches past
 *   a 16 MiB cgroup        memory.max is OOM-killed (SIGKILL, memory.events oom_kill); the
 *                          group's charge is returned when both have exited -- both
 *   MADV_COLD, PAGEOUT     0                     fail with EINVAL (no LRU pages in the region)
 *   smaps_rollup           64 touched pages add 256 kB to Rss and Anonymous -- both (kernel 0041)
 *   PROCMAP_QUERY          the mapping's range, protection and name as maps shows them (none /
 *                          "[radixvm]"), the next after a hole, ENOENT in one -- both (kernel 0042)
 *   file mapping, fixed    mapped                fails with EINVAL
 *   mremap of the page     moves it              moves it
 *   munmap, then a read    SIGSEGV               SIGSEGV
 * ops = checks passed, errors = checks failed; the other threads idle.
 * `iters` repeats the whole round.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65			/* Debian 12's headers predate these too */
#define PR_GET_MDWE 66
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif
#ifndef SYS_mseal
#define SYS_mseal 462		/* x86-64; Debian 12's headers predate it */
#endif

static const struct param params[] = {
	{ "iters", "1", "rounds of all checks" },
	{ "notifier", "0", "1: also check that MMU notifiers hear of changes (debug kernel's /proc/vmscale_notifier)" },
	{ "overcommit", "0", "1: also check vm.overcommit_memory=2 (set for the round, then restored; root, guests only)" },
	{ "memcg", "0", "1: also check memory cgroups (mounts cgroup2 if needed, makes a group; root, guests only)" },
	{ NULL }
};

static sigjmp_buf jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(jmp, 1);
}

static volatile int segv_code;

static void on_segv_info(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	segv_code = info->si_code;
	siglongjmp(jmp, 1);
}

/* Writes p[0]; 1 if that faulted (segv_code: how). */
static int write_faults(volatile uint64_t *p, uint64_t v)
{
	if (sigsetjmp(jmp, 1))
		return 1;
	p[0] = v;
	return 0;
}

static unsigned int rdpkru(void)
{
	unsigned int eax, edx;

	__asm__ volatile(".byte 0x0f,0x01,0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static void wrpkru(unsigned int pkru)
{
	__asm__ volatile(".byte 0x0f,0x01,0xef" : : "a"(pkru), "c"(0), "d"(0) : "memory");
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

/* 1 if /proc/self/@file has an entry for exactly [addr, addr + len) with @perms. */
static int own_entry(const char *file, void *addr, size_t len, const char *perms)
{
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512], path[64], p[8];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "r");
	if (!f)
		die("vmapi: %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s ", &lo, &hi, p) == 3 && lo == a && hi == a + len &&
		    !strcmp(p, perms))
			found = 1;
	fclose(f);
	return found;
}

/* 1 if /proc/self/pagemap says a page is present at addr (bit 63). */
static int pagemap_present(void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		die("vmapi: /proc/self/pagemap: %s", strerror(errno));
	if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)addr / PAGE_SIZE * sizeof(e))) != sizeof(e))
		e = 0;
	close(fd);
	return e >> 63;
}

/* 1 if addr lies in a "[radixvm]" mapping of /proc/self/maps. */
static int in_region(void *addr)
{
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("vmapi: /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[radixvm]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			found |= lo <= a && a < hi;
	fclose(f);
	return found;
}

/* The line starting with @field in the smaps entry holding addr, in @line; 0 if none. */
static int smaps_field(void *addr, const char *field, char *line, size_t size)
{
	unsigned long lo, hi, a = (unsigned long)addr;
	int here = 0, found = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		die("vmapi: /proc/self/smaps: %s", strerror(errno));
	while (!found && fgets(line, size, f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			here = lo <= a && a < hi;
		else if (here && !strncmp(line, field, strlen(field)))
			found = 1;
	}
	fclose(f);
	return found;
}

/* 1 if the smaps entry holding addr has @flag in VmFlags ("dd": VM_DONTDUMP, "lo": VM_LOCKED). */
static int vmflag(void *addr, const char *flag)
{
	char line[512], want[8];

	snprintf(want, sizeof(want), " %s", flag);
	return smaps_field(addr, "VmFlags:", line, sizeof(line)) && strstr(line, want);
}

/* The "ProtectionKey:" of the smaps entry holding addr; -1 if none. */
static int smaps_pkey(void *addr)
{
	char line[512];
	int key;

	return smaps_field(addr, "ProtectionKey:", line, sizeof(line)) &&
	       sscanf(line, "ProtectionKey: %d", &key) == 1 ? key : -1;
}

/* A field of @path (/proc/meminfo, smaps_rollup, status), in kB; -1 if missing. */
static long proc_kb(const char *path, const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kb = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		die("vmapi: %s: %s", path, strerror(errno));
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = atol(line + n + 1);
	fclose(f);
	return kb;
}

/* VmLck of /proc/self/status, in kB: what mm->locked_vm counts. */
static long vmlck_kb(void)
{
	return proc_kb("/proc/self/status", "VmLck");
}

/* A private anonymous mapping at exactly @at, replacing nothing. */
static void *map_at(char *at, size_t len, int prot, int flags)
{
	return mmap(at, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | flags, -1, 0);
}

/* A mapping the region refuses when fixed inside it (EINVAL), and stock makes. */
static int fixed_map_as_designed(int radix, void *at, int flags, int fd, int prot)
{
	void *m = mmap(at, PAGE_SIZE, prot, flags | MAP_FIXED_NOREPLACE, fd, 0);

	if (m != MAP_FAILED)
		munmap(m, PAGE_SIZE);
	return radix ? m == MAP_FAILED && errno == EINVAL : m == at;
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

/*
 * Whether the running kernel has a feature at all, tried on a scratch page outside the region
 * (MAP_STACK mappings stay in the stock address space): run natively, vmapi meets host kernels
 * that lack mseal (before 6.10), protection keys (the CPU's or the kernel's) or take
 * MREMAP_DONTUNMAP differently.  Checks of a feature the kernel lacks are skipped, and said so;
 * vmscale's kernels under QEMU have them all, and the tests count every check there.
 */
enum feature { F_DONTUNMAP, F_MSEAL, F_PKEYS, F_UFFD, F_COREDUMP, F_MDWE, F_PROCMAP, NR_FEATURES };

/*
 * mremap(MREMAP_DONTUNMAP) of a page to anywhere.  Through the system call, not glibc's
 * mremap(): before 2.37 that reads its variadic new_address only for MREMAP_FIXED and passes
 * whatever the register held otherwise, which the kernel takes as a hint and may refuse
 * (EINVAL, unaligned).
 */
static void *dontunmap(void *p)
{
	return (void *)syscall(SYS_mremap, p, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0UL);
}
/* struct procmap_query of <linux/fs.h> (6.11), which Debian 12's headers predate */
struct procmap_q {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY_IOCTL _IOWR('f', 17, struct procmap_q)
#define PQ_READABLE 0x01
#define PQ_WRITABLE 0x02
#define PQ_COVERING_OR_NEXT 0x10

/* PROCMAP_QUERY for @addr with @flags; 0 and *q filled (name in q's buffer), or -errno. */
static int procmap_query(void *addr, uint64_t flags, struct procmap_q *q)
{
	static char name[256];
	struct procmap_q local;
	int fd = open("/proc/self/maps", O_RDONLY), err = 0;

	q = q ?: &local;
	*q = (struct procmap_q){ .size = sizeof(*q), .query_flags = flags, .query_addr = (uintptr_t)addr,
				 .vma_name_size = sizeof(name), .vma_name_addr = (uintptr_t)name };
	name[0] = 0;
	if (fd < 0 || ioctl(fd, PROCMAP_QUERY_IOCTL, q))
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

static const char *const feature_names[NR_FEATURES] = { "MREMAP_DONTUNMAP", "mseal", "protection keys",
							 "userfaultfd", "core dumps to a file named core",
							 "memory-deny-write-execute (PR_SET_MDWE)",
							 "PROCMAP_QUERY on /proc/self/maps" };

static int have(enum feature f)
{
	static int known[NR_FEATURES];		/* 0: not probed, 1: has it, 2: lacks it */
	void *s, *q;
	int ok = 0, key, err;

	if (known[f])
		return known[f] == 1;
	s = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (s == MAP_FAILED)
		die("vmapi: mmap: %s", strerror(errno));
	switch (f) {
	case F_DONTUNMAP:
		q = dontunmap(s);
		ok = q != MAP_FAILED;
		if (ok)
			munmap(q, PAGE_SIZE);
		break;
	case F_MSEAL:		/* the scratch page stays sealed: one page for the process's life */
		ok = syscall(SYS_mseal, s, PAGE_SIZE, 0) == 0;
		break;
	case F_PKEYS:
		key = syscall(SYS_pkey_alloc, 0, 0);
		ok = key > 0;
		if (ok)
			syscall(SYS_pkey_free, key);
		break;
	case F_COREDUMP: {	/* the kernel's default pattern: a file in the crashing process's cwd */
		char pattern[64] = "";
		FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");

		ok = f && fgets(pattern, sizeof(pattern), f) && !strcmp(pattern, "core\n");
		if (f)
			fclose(f);
		errno = ok ? 0 : ENOTSUP;
		break;
	}
	case F_PROCMAP:		/* since 6.11 */
		ok = procmap_query(s, 0, NULL) == 0;
		break;
	case F_MDWE:		/* since 6.3 */
		ok = prctl(PR_GET_MDWE, 0, 0, 0, 0) >= 0;
		break;
	case F_UFFD:		/* natively, an unprivileged user may not have it */
		key = syscall(SYS_userfaultfd, O_CLOEXEC);
		ok = key >= 0;
		if (ok)
			close(key);
		break;
	default:
		break;
	}
	err = errno;
	munmap(s, PAGE_SIZE);
	known[f] = ok ? 1 : 2;
	if (!ok)
		fprintf(stderr, "vmapi: %s fails on plain memory here (%s): its checks are skipped\n", feature_names[f],
			strerror(err));
	return ok;
}

static int mem_rw(int fd, void *at, uint64_t *v, int write)
{
	ssize_t n = write ? pwrite(fd, v, sizeof(*v), (off_t)(uintptr_t)at)
			  : pread(fd, v, sizeof(*v), (off_t)(uintptr_t)at);

	return n == sizeof(*v);
}

/* /proc/self/mem on memory at @p (written with @key): as Linux in every design. */
static void proc_mem(struct worker *w, uint64_t *p, uint64_t key)
{
	uint64_t *fresh = p + 8 * PAGE_SIZE / sizeof(*p), *shm = fresh + PAGE_SIZE / sizeof(*p);
	uint64_t got = 0, v = key + 1;
	int fd = open("/proc/self/mem", O_RDWR), mfd;

	if (fd < 0)
		die("vmapi: /proc/self/mem: %s", strerror(errno));
	check(w, mem_rw(fd, p, &got, 0) && got == key, "/proc/self/mem reads the data");
	check(w, mem_rw(fd, p, &v, 1) && p[0] == key + 1, "/proc/self/mem writes the page");
	p[0] = key;

	if (mmap(fresh, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != fresh)
		die("vmapi: mmap: %s", strerror(errno));
	got = 1;
	check(w, mem_rw(fd, fresh, &got, 0) && got == 0, "/proc/self/mem reads an untouched page as zeros");
	check(w, mem_rw(fd, fresh, &v, 1) && fresh[0] == v, "/proc/self/mem fills an untouched page");
	v++;
	mprotect(fresh, PAGE_SIZE, PROT_READ);
	check(w, mem_rw(fd, fresh, &v, 1) && fresh[0] == v,
	      "/proc/self/mem writes a read-only private page (forced, as ptrace's breakpoints)");
	munmap(fresh, PAGE_SIZE);

	mfd = memfd_create("vmapi-mem", 0);
	if (mfd < 0 || ftruncate(mfd, PAGE_SIZE))
		die("vmapi: memfd: %s", strerror(errno));
	if (mmap(shm, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, mfd, 0) != shm)
		die("vmapi: mmap of a memfd: %s", strerror(errno));
	got = 0;
	check(w, mem_rw(fd, shm, &v, 1) && pread(mfd, &got, sizeof(got), 0) == sizeof(got) && got == v,
	      "/proc/self/mem writes through a shared mapping to the file");
	mprotect(shm, PAGE_SIZE, PROT_READ);
	check(w, !mem_rw(fd, shm, &v, 1) && errno == EIO,
	      "/proc/self/mem refuses a read-only shared mapping (EIO)");
	munmap(shm, PAGE_SIZE);
	close(mfd);
	close(fd);
}

/* ptrace of a child that holds its copy of @p: the tracer reads it and writes it. */
static void ptrace_child(struct worker *w, uint64_t *p, uint64_t key)
{
	int status = 0;
	long peek;
	pid_t child = fork();

	if (child == 0) {
		signal(SIGSEGV, SIG_DFL);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(*(volatile uint64_t *)p == ~key ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		die("vmapi: a traced child did not stop");
	errno = 0;
	peek = ptrace(PTRACE_PEEKDATA, child, p, NULL);
	check(w, errno == 0 && (uint64_t)peek == key, "ptrace reads the child's copy");
	ptrace(PTRACE_POKEDATA, child, p, (void *)~key);
	ptrace(PTRACE_CONT, child, NULL, NULL);
	if (waitpid(child, &status, 0) != child)
		die("vmapi: waitpid: %s", strerror(errno));
	check(w, WIFEXITED(status) && WEXITSTATUS(status) == 0, "the traced child sees ptrace's write");
}

/*
 * vmsplice takes a reference on each page, which must keep the page after
 * its munmap: the pipe still reads what the page held.
 */
static int vmsplice_outlives_munmap(char *spare, uint64_t key)
{
	static uint64_t buf[PAGE_SIZE / sizeof(uint64_t)];
	uint64_t *s = mmap(spare, PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	struct iovec iov = { s, PAGE_SIZE };
	int pipes[2], ok;
	size_t i;

	if (s != (uint64_t *)spare || pipe(pipes))
		die("vmapi: vmsplice set-up: %s", strerror(errno));
	for (i = 0; i < PAGE_SIZE / sizeof(uint64_t); i++)
		s[i] = key ^ i;
	ok = vmsplice(pipes[1], &iov, 1, 0) == PAGE_SIZE;
	munmap(s, PAGE_SIZE);
	ok = ok && read(pipes[0], buf, PAGE_SIZE) == PAGE_SIZE;
	for (i = 0; ok && i < PAGE_SIZE / sizeof(uint64_t); i++)
		ok = buf[i] == (key ^ i);
	close(pipes[0]);
	close(pipes[1]);
	return ok;
}

/* An O_DIRECT read (the block layer pins the page) into a fresh page reads the file. */
static int odirect_reads(char *spare)
{
	static char want[PAGE_SIZE];
	char *s = mmap(spare, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	int fd = open("/proc/self/exe", O_RDONLY), dfd = open("/proc/self/exe", O_RDONLY | O_DIRECT);
	int ok;

	if (s != spare || fd < 0 || pread(fd, want, PAGE_SIZE, 0) != PAGE_SIZE)
		die("vmapi: O_DIRECT set-up: %s", strerror(errno));
	ok = dfd >= 0 && pread(dfd, s, PAGE_SIZE, 0) == PAGE_SIZE && !memcmp(s, want, PAGE_SIZE);
	munmap(s, PAGE_SIZE);
	close(fd);
	if (dfd >= 0)
		close(dfd);
	return ok;
}

/*
 * A core dump of a process with @key at @at: the child writes it, chdirs to /tmp and aborts;
 * the dump (/tmp/core or /tmp/core.PID) must hold the key at @at in one of its PT_LOAD segments.
 */
static int core_holds(char *at, uint64_t key)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	char path[64];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t got = 0;
	int status, fd, found = 0;
	pid_t child = fork();

	if (child == 0) {
		signal(SIGABRT, SIG_DFL);
		if (mmap(at, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != at || setrlimit(RLIMIT_CORE, &unlimited) || chdir("/tmp"))
			_exit(1);
		((uint64_t *)at)[1] = key;
		abort();
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFSIGNALED(status) || !WCOREDUMP(status))
		return 0;
	snprintf(path, sizeof(path), "/tmp/core.%d", child);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/core");
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG))
		for (int i = 0; i < eh.e_phnum && !found; i++) {
			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * eh.e_phentsize) != sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && ph.p_vaddr <= (uintptr_t)at &&
			    (uintptr_t)at + 16 <= ph.p_vaddr + ph.p_filesz)
				found = pread(fd, &got, 8, ph.p_offset + ((uintptr_t)at - ph.p_vaddr) + 8) == 8 &&
					got == key;
		}
	close(fd);
	unlink(path);
	return found;
}

/* Where the region's rules differ from stock's, each design keeps its own (README table). */
static void region_rules(struct worker *w, uint64_t *p, uint64_t key, int radix)
{
	char *spare = (char *)p + 16 * PAGE_SIZE, *shm = spare + 16 * PAGE_SIZE;
	struct iovec iov = { p, PAGE_SIZE };
	int pipes[2], fd;
	ssize_t n;
	void *q;

	check(w, !vmflag(p, "dd"), "anonymous memory is not marked VM_DONTDUMP");
	if (have(F_COREDUMP))
		check(w, core_holds(spare + 8 * PAGE_SIZE, key), "a core dump holds the page's data");
	if (pipe(pipes))
		die("vmapi: pipe: %s", strerror(errno));
	n = vmsplice(pipes[1], &iov, 1, 0);
	check(w, n == PAGE_SIZE, "vmsplice takes the page");
	close(pipes[0]);
	close(pipes[1]);
	check(w, vmsplice_outlives_munmap(spare, key), "a vmspliced page outlives its munmap");
	check(w, odirect_reads(spare), "an O_DIRECT read fills the page");

	if (have(F_DONTUNMAP)) {
		q = dontunmap(p);
		check(w, q != MAP_FAILED && ((uint64_t *)q)[0] == key && !faults(p) && p[0] == 0,
		      "MREMAP_DONTUNMAP moves the page and leaves the mapping empty");
		if (q != MAP_FAILED)
			munmap(q, PAGE_SIZE);
		p[0] = key;
	}

	fd = memfd_create("vmapi", 0);
	if (fd < 0 || ftruncate(fd, PAGE_SIZE))
		die("vmapi: memfd: %s", strerror(errno));
	if (mmap(shm, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0) != shm)
		die("vmapi: mmap of a memfd: %s", strerror(errno));
	q = mremap(shm, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, shm + PAGE_SIZE);
	check(w, radix ? q == MAP_FAILED && errno == EINVAL : q == shm + PAGE_SIZE,
	      radix ? "mremap of shmem must be refused" : "mremap moves shmem");
	munmap(q == MAP_FAILED ? shm : q, PAGE_SIZE);
	close(fd);

	q = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	check(w, q != MAP_FAILED && !in_region(q), "a MAP_STACK mapping is placed outside the region");
	if (q != MAP_FAILED)
		munmap(q, PAGE_SIZE);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		die("vmapi: /proc/self/exe: %s", strerror(errno));
	check(w, fixed_map_as_designed(radix, spare, MAP_PRIVATE, fd, PROT_READ),
	      radix ? "a file mapping in the region must be refused" : "a file maps");
	close(fd);
}

/* A fork child's view of @at's first page; returns its wait status. */
static int child_reads(uint64_t *at, uint64_t want)
{
	int status = 0;
	pid_t child = fork();

	if (child == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(*(volatile uint64_t *)at == want ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		die("vmapi: fork: %s", strerror(errno));
	return status;
}

static int exited_0(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* madvise's fork flags on three pages at @at, and on a shmem page: as Linux in every design. */
static void fork_flags(struct worker *w, char *at, uint64_t key)
{
	uint64_t *a = (uint64_t *)at, *b = (uint64_t *)(at + PAGE_SIZE), *c = (uint64_t *)(at + 2 * PAGE_SIZE);
	int status, fd;

	if (mmap(at, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	a[0] = b[0] = c[0] = key;
	check(w, madvise(a, PAGE_SIZE, MADV_DONTFORK) == 0 && madvise(b, PAGE_SIZE, MADV_WIPEONFORK) == 0,
	      "MADV_DONTFORK and MADV_WIPEONFORK are taken");
	check(w, vmflag(a, "dc") && !vmflag(a, "wf") && vmflag(b, "wf") && !vmflag(b, "dc") &&
		 !vmflag(c, "dc") && !vmflag(c, "wf"), "smaps shows dc and wf on their pages only");
	status = child_reads(a, key);
	check(w, WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "a fork child has no MADV_DONTFORK page");
	check(w, exited_0(child_reads(b, 0)), "a fork child reads zeros from a MADV_WIPEONFORK page");
	check(w, exited_0(child_reads(c, key)) && a[0] == key && b[0] == key,
	      "the child copies the rest and the parent keeps all three");
	check(w, madvise(a, PAGE_SIZE, MADV_DOFORK) == 0 && madvise(b, PAGE_SIZE, MADV_KEEPONFORK) == 0 &&
		 exited_0(child_reads(a, key)) && exited_0(child_reads(b, key)),
	      "MADV_DOFORK and MADV_KEEPONFORK undo them");
	check(w, own_entry("maps", at, 3 * PAGE_SIZE, "rw-p"), "and the three pages are one entry again");
	munmap(at, 3 * PAGE_SIZE);

	fd = memfd_create("vmapi-fork", 0);
	if (fd < 0 || ftruncate(fd, PAGE_SIZE) ||
	    mmap(at, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0) != at)
		die("vmapi: mmap of a memfd: %s", strerror(errno));
	a[0] = key;
	check(w, madvise(a, PAGE_SIZE, MADV_WIPEONFORK) == -1 && errno == EINVAL,
	      "MADV_WIPEONFORK on shmem is EINVAL");
	check(w, madvise(a, PAGE_SIZE, MADV_DONTFORK) == 0 && WIFSIGNALED(child_reads(a, key)),
	      "a fork child has no MADV_DONTFORK shmem page");
	munmap(at, PAGE_SIZE);
	close(fd);
}

/* mlock and its kin on pages at @at: as Linux in every design. */
static void mlock_rules(struct worker *w, char *at)
{
	const long kb = PAGE_SIZE / 1024, before = vmlck_kb();
	int status;

	if (mmap(at, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	check(w, mlock(at, 4 * PAGE_SIZE) == 0 && pagemap_present(at) && pagemap_present(at + 3 * PAGE_SIZE) &&
		 vmlck_kb() == before + 4 * kb && vmflag(at, "lo"),
	      "mlock faults the range in, counts it in VmLck and smaps shows it locked");
	check(w, madvise(at, PAGE_SIZE, MADV_DONTNEED) == -1 && errno == EINVAL,
	      "MADV_DONTNEED on mlocked memory is EINVAL");
	status = 0;
	if (fork() == 0)
		_exit(vmflag(at, "lo") ? 1 : 0);
	check(w, wait(&status) > 0 && exited_0(status), "a fork child does not inherit mlock");
	check(w, munlock(at + PAGE_SIZE, PAGE_SIZE) == 0 && vmlck_kb() == before + 3 * kb &&
		 !vmflag(at + PAGE_SIZE, "lo") && vmflag(at, "lo") && vmflag(at + 2 * PAGE_SIZE, "lo"),
	      "munlock of one page unlocks it alone");
	check(w, munmap(at, 4 * PAGE_SIZE) == 0 && vmlck_kb() == before, "munmap of mlocked memory uncounts it");

	if (mmap(at, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	check(w, syscall(SYS_mlock2, at, 2 * PAGE_SIZE, MLOCK_ONFAULT) == 0 && !pagemap_present(at) &&
		 vmflag(at, "lo") && vmlck_kb() == before + 2 * kb,
	      "mlock2(MLOCK_ONFAULT) locks without faulting in");
	munmap(at, 2 * PAGE_SIZE);
	check(w, mmap(at, PAGE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED | MAP_FIXED_NOREPLACE, -1, 0) == at &&
		 pagemap_present(at) && vmflag(at, "lo") && vmlck_kb() == before + kb,
	      "a fixed MAP_LOCKED mapping is locked and faulted in");
	munmap(at, PAGE_SIZE);
	check(w, vmlck_kb() == before, "and VmLck is back where it was");
}

/* mremap of a page at @at (in the region) to 8 TiB (outside it) and back: as Linux in every design. */
static void move_across(struct worker *w, char *at, uint64_t key)
{
	char *out = (char *)(8UL << 40), *q;

	if (mmap(at, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at ||
	    mprotect(at, PAGE_SIZE, PROT_READ | PROT_WRITE))
		die("vmapi: mmap: %s", strerror(errno));
	((uint64_t *)at)[0] = key;
	q = mremap(at, PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, out);
	check(w, q == out && ((uint64_t *)q)[0] == key && ((uint64_t *)q)[PAGE_SIZE / 8] == 0 &&
		 faults((uint64_t *)at) && !in_region(q), "mremap moves a page out of the region's range, grown");
	q = mremap(out, 2 * PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, at);
	check(w, q == at && ((uint64_t *)q)[0] == key && faults((uint64_t *)out),
	      "and back, shrunk");
	munmap(at, PAGE_SIZE);
}

struct probe {
	long starts, ends;
	unsigned long lo, hi;
};

static struct probe notifier_counts(void)
{
	struct probe p = { -1, -1, 0, 0 };
	FILE *f = fopen("/proc/vmscale_notifier", "r");

	if (!f || fscanf(f, "starts %ld ends %ld last_start %lx last_end %lx", &p.starts, &p.ends, &p.lo, &p.hi) != 4)
		die("vmapi: /proc/vmscale_notifier: %s", f ? "unreadable" : strerror(errno));
	fclose(f);
	return p;
}

/* Whether the MMU notifiers were told of a change over a range holding @at since @before. */
static int notified(struct probe before, char *at)
{
	struct probe now = notifier_counts();

	return now.starts > before.starts && now.starts == now.ends &&
	       now.lo <= (unsigned long)at && (unsigned long)at < now.hi;
}

/*
 * mprotect, MADV_DONTNEED and munmap of a written page at @at tell the mm's MMU notifiers
 * (what KVM or RDMA mirrors rely on), over a range holding it: as Linux in every design.
 */
static void notifier_rules(struct worker *w, char *at)
{
	struct probe before;
	int fd = open("/proc/vmscale_notifier", O_WRONLY);

	if (fd < 0 || write(fd, "1", 1) != 1)
		die("vmapi: notifier=1 needs the debug kernel's /proc/vmscale_notifier: %s", strerror(errno));
	close(fd);
	if (mmap(at, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	at[0] = 1;
	before = notifier_counts();
	check(w, mprotect(at, PAGE_SIZE, PROT_READ) == 0 && notified(before, at), "mprotect tells MMU notifiers");
	before = notifier_counts();
	check(w, madvise(at, PAGE_SIZE, MADV_DONTNEED) == 0 && notified(before, at),
	      "MADV_DONTNEED tells MMU notifiers");
	(void)*(volatile char *)at;
	before = notifier_counts();
	check(w, munmap(at, PAGE_SIZE) == 0 && notified(before, at), "munmap tells MMU notifiers");
}

/* mseal on two read-only pages at @at, the first sealed: as Linux in every design. */
static void mseal_rules(struct worker *w, char *at)
{
	if (!have(F_MSEAL))
		return;
	if (mmap(at, 2 * PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	check(w, syscall(SYS_mseal, at, PAGE_SIZE, 0) == 0 && vmflag(at, "sl") && !vmflag(at + PAGE_SIZE, "sl"),
	      "mseal seals its page alone");
	check(w, munmap(at, 2 * PAGE_SIZE) == -1 && errno == EPERM && !faults((uint64_t *)(at + PAGE_SIZE)),
	      "a munmap over a sealed page fails whole (EPERM)");
	check(w, mprotect(at, PAGE_SIZE, PROT_READ | PROT_WRITE) == -1 && errno == EPERM,
	      "mprotect of a sealed page: EPERM");
	check(w, mmap(at, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED &&
		 errno == EPERM, "MAP_FIXED over a sealed page: EPERM");
	check(w, mremap(at, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, at + 4 * PAGE_SIZE) == MAP_FAILED &&
		 errno == EPERM, "mremap of a sealed page: EPERM");
	check(w, madvise(at, PAGE_SIZE, MADV_DONTNEED) == -1 && errno == EPERM,
	      "MADV_DONTNEED on a sealed read-only page: EPERM");
	check(w, munmap(at + PAGE_SIZE, PAGE_SIZE) == 0 && faults((uint64_t *)(at + PAGE_SIZE)),
	      "the page beside it unmaps");
}

/* Protection keys on a page at @at (QEMU's CPU has them): as Linux in every design. */
/* Reads p[0]; 1 if that faulted (segv_code: how). */
static int read_faults(volatile uint64_t *p)
{
	if (sigsetjmp(jmp, 1))
		return 1;
	(void)p[0];
	return 0;
}

/*
 * The execute-only key (x86 with protection keys): mprotect(PROT_EXEC) or mmap(PROT_EXEC) alone
 * gives memory the mm's execute-only key, whose PKRU bits deny data access, so a read faults
 * (SEGV_PKUERR); another protection takes it back to key 0.  The page at @at holds @key.
 */
static void exec_only_rules(struct worker *w, char *at, uint64_t key)
{
	struct sigaction sa = { .sa_sigaction = on_segv_info, .sa_flags = SA_SIGINFO | SA_NODEFER };
	char *code = at + PAGE_SIZE;
	int xkey, denied;

	((uint64_t *)at)[0] = key;
	sigaction(SIGSEGV, &sa, NULL);
	segv_code = 0;
	xkey = mprotect(at, PAGE_SIZE, PROT_EXEC) ? -1 : smaps_pkey(at);
	denied = xkey > 0 && read_faults((uint64_t *)at) && segv_code == SEGV_PKUERR;
	check(w, denied, "mprotect(PROT_EXEC) alone: the execute-only key, a read faults (SEGV_PKUERR)");
	check(w, mprotect(at, PAGE_SIZE, PROT_READ) == 0 && smaps_pkey(at) == 0 && !read_faults((uint64_t *)at) &&
	      ((uint64_t *)at)[0] == key, "made readable again, it leaves the execute-only key, data intact");
	check(w, map_at(code, PAGE_SIZE, PROT_EXEC, 0) == code && xkey > 0 && smaps_pkey(code) == xkey,
	      "mmap(PROT_EXEC) alone maps execute-only memory under the same key");
	munmap(code, PAGE_SIZE);
	signal(SIGSEGV, on_segv);
}

static void pkey_rules(struct worker *w, char *at, uint64_t key)
{
	struct sigaction sa = { .sa_sigaction = on_segv_info, .sa_flags = SA_SIGINFO | SA_NODEFER };
	unsigned int pkru;
	int denied, pkey;

	if (!have(F_PKEYS))
		return;
	pkey = syscall(SYS_pkey_alloc, 0, 0);
	if (mmap(at, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	((uint64_t *)at)[0] = key;
	check(w, pkey > 0 && syscall(SYS_pkey_mprotect, at, PAGE_SIZE, PROT_READ | PROT_WRITE, pkey) == 0 &&
		 smaps_pkey(at) == pkey, "pkey_mprotect gives the page its key (smaps ProtectionKey)");
	check(w, syscall(SYS_pkey_mprotect, at, PAGE_SIZE, PROT_READ, 15) == -1 && errno == EINVAL,
	      "pkey_mprotect with a key never allocated: EINVAL");
	if (pkey > 0) {
		sigaction(SIGSEGV, &sa, NULL);
		pkru = rdpkru();
		wrpkru(pkru | 2u << (2 * pkey));	/* write-disable the key */
		segv_code = 0;
		denied = write_faults((uint64_t *)at, ~key) && segv_code == SEGV_PKUERR;
		wrpkru(pkru | 2u << (2 * pkey));	/* the handler ran with the default PKRU */
		denied = denied && !faults((uint64_t *)at) && ((uint64_t *)at)[0] == key;
		wrpkru(pkru);
		check(w, denied, "a write the key's PKRU bits deny raises SIGSEGV (SEGV_PKUERR); reads go on");
		signal(SIGSEGV, on_segv);
		check(w, !write_faults((uint64_t *)at, ~key) && ((uint64_t *)at)[0] == ~key,
		      "and the write goes through once PKRU allows it");
		check(w, syscall(SYS_pkey_mprotect, at, PAGE_SIZE, PROT_READ | PROT_WRITE, 0) == 0 &&
			 smaps_pkey(at) == 0 && syscall(SYS_pkey_free, pkey) == 0, "pkey 0 again, and the key freed");
	} else {
		check(w, 0, "pkey_alloc failed where it had worked");
		check(w, 0, "pkey_alloc failed where it had worked");
		check(w, 0, "pkey_alloc failed where it had worked");
	}
	exec_only_rules(w, at, key);
	munmap(at, PAGE_SIZE);
}

/*
 * userfaultfd over region memory, in a fork child (one thread): the registration succeeds
 * (under RadixVM the process leaves the region for VMAs, kernel 0036), the memory keeps its
 * data, UFFDIO_COPY fills a missing page, the next mmap is not placed in the region, and a
 * fork child of the process reads the data.  As Linux does in every design.  Each failed
 * check is a bit of the child's exit status.
 */
enum { UF_REGISTER, UF_DATA, UF_COPY, UF_PLACE, UF_FORK, NR_UF };

static int uffd_child(char *at, uint64_t key)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy;
	static uint64_t src[PAGE_SIZE / 8];
	int uffd, bad = 0, status;
	char *ro = at + 4 * PAGE_SIZE;
	void *next;
	pid_t pid;

	if (mmap(at, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0) != at || mmap(ro, PAGE_SIZE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != ro)
		return (1 << NR_UF) - 1;
	((uint64_t *)at)[0] = key;
	((uint64_t *)(at + 2 * PAGE_SIZE))[7] = ~key;
	((uint64_t *)ro)[1] = key + 1;
	mprotect(ro, PAGE_SIZE, PROT_READ);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	reg.range.start = (uintptr_t)at;
	reg.range.len = 4 * PAGE_SIZE;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg))
		return (1 << NR_UF) - 1;
	if (((uint64_t *)at)[0] != key || ((uint64_t *)(at + 2 * PAGE_SIZE))[7] != ~key ||
	    ((uint64_t *)ro)[1] != key + 1)
		bad |= 1 << UF_DATA;
	src[0] = key + 2;
	copy = (struct uffdio_copy){ .dst = (uintptr_t)(at + PAGE_SIZE), .src = (uintptr_t)src,
				     .len = PAGE_SIZE };
	if (ioctl(uffd, UFFDIO_COPY, &copy) || copy.copy != PAGE_SIZE ||
	    ((uint64_t *)(at + PAGE_SIZE))[0] != key + 2)
		bad |= 1 << UF_COPY;
	next = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED || in_region(next))
		bad |= 1 << UF_PLACE;
	pid = fork();
	if (pid == 0)
		_exit(((uint64_t *)at)[0] == key && ((uint64_t *)ro)[1] == key + 1 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		bad |= 1 << UF_FORK;
	return bad;
}

/*
 * Checks run in a child of one thread (a state the process could not undo, or that
 * needs it alone): @fn returns a bit for each of the @n checks that failed.
 */
static void child_checks(struct worker *w, int (*fn)(char *, uint64_t), char *at, uint64_t key,
			 const char *const *what, int n)
{
	int status, bad = (1 << n) - 1;
	pid_t child = fork();

	if (child == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(fn(at, key));
	}
	if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status))
		bad = WEXITSTATUS(status);
	for (int i = 0; i < n; i++)
		check(w, !(bad & 1 << i), what[i]);
}

static void uffd_rules(struct worker *w, char *at, uint64_t key)
{
	static const char *const what[NR_UF] = {
		"UFFDIO_REGISTER over the memory, from a process of one thread",
		"the registered memory (written, untouched, read-only) keeps its data",
		"UFFDIO_COPY fills a missing page of it",
		"the process's next mmap(NULL) is placed outside the region",
		"a fork child of it reads the data",
	};

	if (have(F_UFFD))
		child_checks(w, uffd_child, at, key, what, NR_UF);
}

static long meminfo_kb(const char *field)
{
	return proc_kb("/proc/meminfo", field);
}

/*
 * PROCMAP_QUERY (the maps file's ioctl, which profilers use) finds the mapping itself: its range,
 * protection and name as maps lists them ("[radixvm]" for anonymous memory in the region, none
 * for a stock VMA), the next one after a hole, and none where nothing is mapped.
 */
static void procmap_rules(struct worker *w, char *at, int radix)
{
	struct procmap_q q;
	int r;

	if (!have(F_PROCMAP))
		return;
	if (map_at(at, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, 0) != at ||
	    map_at(at + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ, 0) != at + 2 * PAGE_SIZE)
		die("vmapi: mmap: %s", strerror(errno));
	check(w, procmap_query(at + PAGE_SIZE, 0, &q) == 0 && q.vma_start == (uintptr_t)at &&
	      q.vma_end == (uintptr_t)at + 2 * PAGE_SIZE && q.vma_flags == (PQ_READABLE | PQ_WRITABLE) &&
	      (radix ? q.vma_name_size && !strcmp((const char *)(uintptr_t)q.vma_name_addr, "[radixvm]") :
	       q.vma_name_size == 0), "PROCMAP_QUERY finds the mapping: range, protection, name as in maps");
	check(w, procmap_query(at - PAGE_SIZE, PQ_COVERING_OR_NEXT, &q) == 0 && q.vma_start == (uintptr_t)at,
	      "PROCMAP_QUERY for the next mapping after a hole finds it");
	r = procmap_query(at + 2 * PAGE_SIZE, PQ_COVERING_OR_NEXT | PQ_WRITABLE, &q);
	check(w, (r == -ENOENT || (r == 0 && q.vma_start > (uintptr_t)at + 2 * PAGE_SIZE)) &&
	      procmap_query(at + 3 * PAGE_SIZE, 0, &q) == -ENOENT,
	      "PROCMAP_QUERY: none where nothing is mapped; a read-only mapping fails a writable query");
	munmap(at, 3 * PAGE_SIZE);
}

/* smaps_rollup adds up every mapping, the region's too: 64 touched pages show in Rss and Anonymous. */
static void rollup_rules(struct worker *w, char *at)
{
	const long kb = 64 * PAGE_SIZE >> 10, slack = 64;
	long rss = proc_kb("/proc/self/smaps_rollup", "Rss"), anon = proc_kb("/proc/self/smaps_rollup", "Anonymous");
	long drss, danon;

	if (map_at(at, 64 * PAGE_SIZE, PROT_READ | PROT_WRITE, 0) != at)
		die("vmapi: mmap: %s", strerror(errno));
	for (int i = 0; i < 64; i++)
		at[i * PAGE_SIZE] = 1;
	drss = proc_kb("/proc/self/smaps_rollup", "Rss") - rss;
	danon = proc_kb("/proc/self/smaps_rollup", "Anonymous") - anon;
	munmap(at, 64 * PAGE_SIZE);
	check(w, drss >= kb && drss <= kb + slack && danon >= kb && danon <= kb + slack,
	      "smaps_rollup counts the touched pages in Rss and Anonymous");
}

#define OC_SIZE (64UL << 20)		/* the charged mapping */
#define OC_SLACK_KB (4L << 10)		/* Committed_AS moves by others' small mappings */

/* Whether Committed_AS moved by @want kB (give or take the slack) from @base. */
static int committed_moved(long base, long want)
{
	long d = meminfo_kb("Committed_AS") - base - want;

	return d > -OC_SLACK_KB && d < OC_SLACK_KB;
}

/*
 * What a fork charges for its child (dup_mmap()): the VM_ACCOUNT memory the
 * child gets, from smaps ("ac" and not "dc"), in kB.
 */
static long accounted_kb(void)
{
	char line[512];
	long size = 0, total = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		die("vmapi: /proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Size: %ld kB", &size) == 1)
			continue;
		if (!strncmp(line, "VmFlags:", 8) && strstr(line, " ac") && !strstr(line, " dc"))
			total += size;
	}
	fclose(f);
	return total;
}

/* A fork child finds Committed_AS moved by @want kB from @base: 1 if so. */
static int child_charged(long base, long want)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(committed_moved(base, want) ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_0(status);
}

/*
 * Overcommit accounting under the default heuristic (mode 0): what mmap_region(),
 * mprotect_fixup(), mremap and dup_mmap() charge to vm_committed_as, read back as
 * /proc/meminfo's Committed_AS (an exact sum).  Only this thread maps meanwhile.
 */
static void overcommit_rules(struct worker *w, char *at)
{
	const long x_kb = OC_SIZE >> 10;
	struct sysinfo si;
	size_t big;
	long c0;
	char *q;

	if (sysinfo(&si))
		die("vmapi: sysinfo: %s", strerror(errno));
	/* __vm_enough_memory(): more pages than RAM and swap is refused outright */
	big = ((size_t)si.totalram + si.totalswap) * si.mem_unit + OC_SIZE;
	q = map_at(at, big, PROT_READ | PROT_WRITE, 0);
	check(w, q == MAP_FAILED && errno == ENOMEM, "a writable mapping larger than RAM + swap: ENOMEM");
	if (q != MAP_FAILED)
		munmap(q, big);
	q = map_at(at, big, PROT_READ | PROT_WRITE, MAP_NORESERVE);
	check(w, q == at && vmflag(at, "nr") && !vmflag(at, "ac"), "with MAP_NORESERVE it maps, uncharged (\"nr\")");
	if (q != MAP_FAILED)
		munmap(q, big);
	q = map_at(at, big, PROT_READ, 0);
	check(w, q == at && !vmflag(at, "ac") && mprotect(at, big, PROT_READ | PROT_WRITE) == -1 && errno == ENOMEM,
	      "read-only it maps, uncharged; made writable: ENOMEM");
	if (q != MAP_FAILED)
		munmap(q, big);

	c0 = meminfo_kb("Committed_AS");
	q = map_at(at, OC_SIZE, PROT_READ | PROT_WRITE, 0);
	check(w, q == at && vmflag(at, "ac") && committed_moved(c0, x_kb),
	      "a writable mapping is charged to Committed_AS (\"ac\")");
	if (q == MAP_FAILED)
		return;
	at[0] = 1;	/* touched: Linux keeps the charge of memory made read-only */
	check(w, mprotect(at, OC_SIZE, PROT_READ) == 0 && committed_moved(c0, x_kb) &&
	      mprotect(at, OC_SIZE, PROT_READ | PROT_WRITE) == 0 && committed_moved(c0, x_kb),
	      "mprotect to read-only and back keeps one charge");
	check(w, mmap(at, OC_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == at &&
	      committed_moved(c0, x_kb), "a MAP_FIXED mapping over it takes its charge's place");
	check(w, child_charged(meminfo_kb("Committed_AS"), accounted_kb()) && committed_moved(c0, x_kb),
	      "a fork child's copy (smaps' \"ac\" memory) is charged while it lives");
	q = mremap(at, OC_SIZE, 2 * OC_SIZE, 0);
	check(w, q == at && committed_moved(c0, 2 * x_kb), "mremap growing it in place charges the growth");
	q = mremap(at, 2 * OC_SIZE, OC_SIZE, 0);
	check(w, q == at && committed_moved(c0, x_kb), "mremap shrinking it returns the cut");
	check(w, munmap(at, OC_SIZE) == 0 && committed_moved(c0, 0), "munmap returns the charge");
	q = map_at(at, OC_SIZE, PROT_READ, 0);
	check(w, q == at && committed_moved(c0, 0) && mprotect(at, OC_SIZE, PROT_READ | PROT_WRITE) == 0 &&
	      committed_moved(c0, x_kb) && vmflag(at, "ac"), "read-only memory made writable is charged then");
	if (q != MAP_FAILED)
		munmap(q, OC_SIZE);
}

/* Under vm.overcommit_memory=2: nothing may take Committed_AS past CommitLimit. */
static void strict_overcommit_rules(struct worker *w, char *at)
{
	char mode[16] = "";
	long head_kb;
	size_t head, room;
	char *q;
	int ok;
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r+");

	if (!f || !fgets(mode, sizeof(mode), f) || fseek(f, 0, SEEK_SET) || fputs("2\n", f) < 0 || fflush(f))
		die("vmapi: overcommit=1: /proc/sys/vm/overcommit_memory: %s", strerror(errno));
	head_kb = meminfo_kb("CommitLimit") - meminfo_kb("Committed_AS");
	if (head_kb < 4 * OC_SLACK_KB)
		fprintf(stderr, "vmapi: overcommit=1: only %ld kB below CommitLimit\n", head_kb);
	head = (size_t)(head_kb > 4 * OC_SLACK_KB ? head_kb : 4 * OC_SLACK_KB) << 10;
	q = map_at(at, head + OC_SIZE, PROT_READ | PROT_WRITE, 0);
	check(w, q == MAP_FAILED && errno == ENOMEM, "mode 2: a mapping past CommitLimit: ENOMEM");
	if (q != MAP_FAILED)
		munmap(q, head + OC_SIZE);
	q = map_at(at, head + OC_SIZE, PROT_READ | PROT_WRITE, MAP_NORESERVE);
	check(w, q == MAP_FAILED && errno == ENOMEM, "mode 2: MAP_NORESERVE does not exempt it");
	if (q != MAP_FAILED)
		munmap(q, head + OC_SIZE);
	/* three fifths of the room: a fork's copy of it does not fit */
	room = head / 5 * 3 & ~(PAGE_SIZE - 1);
	q = map_at(at, room, PROT_READ | PROT_WRITE, 0);
	ok = q == at;
	if (ok) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		ok = pid == -1 && errno == ENOMEM;
		munmap(q, room);
	}
	check(w, ok, "mode 2: a fork whose copy would pass CommitLimit: ENOMEM");
	q = map_at(at, room, PROT_READ | PROT_WRITE, 0);
	ok = q == at && map_at(at + room, room, PROT_READ, 0) == at + room &&
	     mprotect(at + room, room, PROT_READ | PROT_WRITE) == -1 && errno == ENOMEM;
	munmap(at, 2 * room);
	check(w, ok, "mode 2: mprotect(PROT_WRITE) past CommitLimit: ENOMEM");
	if (fseek(f, 0, SEEK_SET) || fputs(mode, f) < 0 || fclose(f))
		die("vmapi: overcommit=1: restoring overcommit_memory: %s", strerror(errno));
}

#define CG_ROOT "/sys/fs/cgroup"
#define CG_LIMIT (16L << 20)

static int cg_write(const char *dir, const char *file, const char *value)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	ok = fd >= 0 && write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* "@key N" in @dir/@file (memory.events), or a single number (memory.current); -1 if none. */
static long cg_read(const char *dir, const char *file, const char *key)
{
	char path[128], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	while (f && v < 0 && fgets(line, sizeof(line), f))
		if (!key)
			v = atol(line);
		else if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ')
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

/* A child in cgroup @dir that touches @len bytes at @at: exits 0 if memory.current counted them. */
static pid_t cg_child(const char *dir, char *at, size_t len)
{
	char pid[32];
	pid_t c = fork();

	if (c)
		return c;
	signal(SIGSEGV, SIG_DFL);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (!cg_write(dir, "cgroup.procs", pid) || map_at(at, len, PROT_READ | PROT_WRITE, 0) != at)
		_exit(2);
	for (size_t off = 0; off < len; off += PAGE_SIZE)
		at[off] = 1;
	_exit(cg_read(dir, "memory.current", NULL) >= (long)len ? 0 : 1);
}

/*
 * Memory cgroups: region pages are charged to the faulting process's memcg
 * (mem_cgroup_charge()), so memory.max bounds them and OOM-kills past it, and
 * freeing them at exit uncharges them.
 */
static void memcg_rules(struct worker *w, char *at)
{
	static int rounds;
	char dir[64], limit[32];
	int status, ok;
	pid_t c;

	if (access(CG_ROOT "/cgroup.controllers", R_OK) &&
	    ((mkdir(CG_ROOT, 0755) && errno != EEXIST) || mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))) {
		check(w, 0, "memcg=1: cgroup2 mounts at " CG_ROOT);
		return;
	}
	snprintf(dir, sizeof(dir), CG_ROOT "/vmapi-%d-%d", getpid(), rounds++);
	snprintf(limit, sizeof(limit), "%ld\n", CG_LIMIT);
	ok = cg_write(CG_ROOT, "cgroup.subtree_control", "+memory\n") && !mkdir(dir, 0755) &&
	     cg_write(dir, "memory.max", limit);
	cg_write(dir, "memory.swap.max", "0\n");	/* absent without swap accounting */
	if (!ok) {
		check(w, 0, "memcg=1: a memory cgroup with memory.max (CONFIG_MEMCG)");
		return;
	}
	c = cg_child(dir, at, CG_LIMIT / 4);
	check(w, c > 0 && waitpid(c, &status, 0) == c && exited_0(status),
	      "memcg: region pages count in the cgroup's memory.current");
	c = cg_child(dir, at, 4 * CG_LIMIT);
	check(w, c > 0 && waitpid(c, &status, 0) == c && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
	      cg_read(dir, "memory.events", "oom_kill") >= 1,
	      "memcg: touching past memory.max OOM-kills the process (SIGKILL, oom_kill)");
	check(w, cg_read(dir, "memory.current", NULL) < (1L << 20),
	      "memcg: the group's charge is returned when its processes have exited");
	rmdir(dir);
}

/* Advice that works on LRU pages, which the region does not have. */
static int lru_advice_as_designed(int radix, char *at)
{
	int cold, pageout;

	if (map_at(at, PAGE_SIZE, PROT_READ | PROT_WRITE, 0) != at)
		return 0;
	at[0] = 1;
	cold = madvise(at, PAGE_SIZE, MADV_COLD) ? errno : 0;
	pageout = madvise(at, PAGE_SIZE, MADV_PAGEOUT) ? errno : 0;
	munmap(at, PAGE_SIZE);
	return radix ? cold == EINVAL && pageout == EINVAL : !cold && !pageout;
}

enum { MD_WX, MD_GAIN, MD_CODE, MD_EXEC, NR_MD };

/* In a child (MDWE cannot be undone): what the policy refuses at @at. */
static int mdwe_child(char *at, uint64_t key)
{
	int bad = 0;

	(void)key;
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0))
		return (1 << NR_MD) - 1;
	if (map_at(at, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, 0) != MAP_FAILED || errno != EACCES)
		bad |= 1 << MD_WX;
	if (map_at(at, PAGE_SIZE, PROT_READ | PROT_WRITE, 0) != at ||
	    mprotect(at, PAGE_SIZE, PROT_READ | PROT_EXEC) != -1 || errno != EACCES)
		bad |= 1 << MD_GAIN;
	if (map_at(at + PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_EXEC, 0) != at + PAGE_SIZE ||
	    mprotect(at + PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC) != -1 || errno != EACCES)
		bad |= 1 << MD_CODE;
	if (mprotect(at + PAGE_SIZE, PAGE_SIZE, PROT_READ) || mprotect(at + PAGE_SIZE, PAGE_SIZE, PROT_EXEC) != -1 ||
	    mprotect(at, 2 * PAGE_SIZE, PROT_READ))
		bad |= 1 << MD_EXEC;	/* exec once dropped is not regained; dropping is allowed */
	return bad;
}

static void mdwe_rules(struct worker *w, char *at)
{
	static const char *const what[NR_MD] = {
		"MDWE: a writable executable mmap fails with EACCES",
		"MDWE: mprotect adding PROT_EXEC to data fails with EACCES",
		"MDWE: mprotect adding PROT_WRITE to executable memory fails with EACCES",
		"MDWE: executable memory made read-only cannot become executable again",
	};

	if (have(F_MDWE))
		child_checks(w, mdwe_child, at, 0, what, NR_MD);
}

static void round_of_checks(struct worker *w)
{
	static int rounds;
	uint64_t *p = (uint64_t *)REGION_BASE, key = 0x5eed5eed5eedULL, got = 0;
	struct iovec local = { &got, sizeof(got) }, remote = { p, sizeof(got) };
	int radix, status;
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
	check(w, own_entry("maps", p, PAGE_SIZE, "rw-p") && own_entry("smaps", p, PAGE_SIZE, "rw-p"),
	      "/proc/self/maps and smaps show the mapping as its own entry");
	check(w, pagemap_present(p), "/proc/self/pagemap shows the written page present");

	child = fork();
	if (child == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(*(volatile uint64_t *)p == key ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		die("vmapi: fork: %s", strerror(errno));
	check(w, WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork child sees the data");

	proc_mem(w, p, key);
	ptrace_child(w, p, key);

	got = 0;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n >= 0 || errno != ENOSYS) {	/* CONFIG_CROSS_MEMORY_ATTACH */
		check(w, n == sizeof(got) && got == key, "process_vm_readv reads the data");
		got = ~key;
		n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
		check(w, n == sizeof(got) && p[0] == ~key, "process_vm_writev writes it");
		p[0] = key;
	}

	check(w, syscall(SYS_futex, p, FUTEX_WAKE, 1, NULL, NULL, 0) == 0, "shared FUTEX_WAKE");
	region_rules(w, p, key, radix);
	fork_flags(w, (char *)p + 64 * PAGE_SIZE, key);
	mlock_rules(w, (char *)p + 64 * PAGE_SIZE);
	mseal_rules(w, (char *)p + (128 + 8 * rounds++) * PAGE_SIZE);	/* a seal stays: a new place each round */
	pkey_rules(w, (char *)p + 64 * PAGE_SIZE, key);
	move_across(w, (char *)p + 64 * PAGE_SIZE, key);
	uffd_rules(w, (char *)p + 64 * PAGE_SIZE, key);
	overcommit_rules(w, (char *)p + (64UL << 30));
	mdwe_rules(w, (char *)p + 64 * PAGE_SIZE);
	rollup_rules(w, (char *)p + 64 * PAGE_SIZE);
	procmap_rules(w, (char *)p + 64 * PAGE_SIZE, radix);
	check(w, lru_advice_as_designed(radix, (char *)p + 64 * PAGE_SIZE),
	      "MADV_COLD and MADV_PAGEOUT: done (stock), EINVAL (region)");
	if (param_int("memcg"))
		memcg_rules(w, (char *)p + (64UL << 30));
	if (param_int("overcommit"))
		strict_overcommit_rules(w, (char *)p + (64UL << 30));
	if (param_int("notifier"))
		notifier_rules(w, (char *)p + 64 * PAGE_SIZE);

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
	.summary = "fork, /proc/pid/mem, ptrace, process_vm_readv, futex, mremap, core-dump flags, vmsplice and "
		   "refused mappings on memory at REGION_BASE",
	.ops_unit = "check passed",
	.extra_name = "radix_region",
	.params = params,
	.run = run,
};
