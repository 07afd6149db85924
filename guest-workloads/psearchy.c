/*
 * psearchy: Psearchy-style indexers.  Setup generates a synthetic source tree
 * of small files (in a tmpfs directory); each worker indexes its share of the
 * files with stdio (fopen/fgets/fclose: stdio buffers are allocated and freed
 * per file) into its own hash table, zeroed at start (a burst of fresh-page
 * faults).  mode=processes forks one process per worker instead of a thread
 * (Bonsai §7.2 compares the two: separate address spaces share no VM locks).
 * The answer is checked: word counts summed over workers equal the counts
 * recorded when the files were generated.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct param params[] = {
	{ "files", "512", "files in the generated tree" },
	{ "file_kb", "4", "size of each file" },
	{ "vocab", "4096", "distinct words" },
	{ "table_kb", "2048", "per-worker hash table, zeroed at start" },
	{ "processes", "0", "1: one process per worker (fork) instead of threads" },
	{ "dir", "/tmp", "where the tree is generated (tmpfs in the guest)" },
	{ NULL }
};

#define STDIO_BUF (16 * 1024)

struct entry { uint32_t word, count; };
static char root[4096];
static uint64_t *expected;	/* per vocab word, counted at generation */
static uint64_t *found;		/* per vocab word, summed over workers */
static int nfiles;

static void word_text(uint32_t i, char *out)
{
	sprintf(out, "w%x_%c", i, 'a' + i % 26);	/* "_" ends the hex number */
}

static int setup(int n)
{
	uint64_t rng = 0x5ea4c4 + param_int("seed");
	long long vocab = param_int("vocab"), bytes = param_int("file_kb") * 1024;
	char path[4200], w[32];

	(void)n;
	nfiles = param_int("files");
	if (nfiles < 1 || vocab < 1 || bytes < 64)
		die("files, vocab >= 1 and file_kb >= 1 please");
	snprintf(root, sizeof(root), "%s/vmscale-psearchy-%d", param_str("dir"), getpid());
	if (mkdir(root, 0700))
		die("mkdir %s: %s", root, strerror(errno));
	expected = calloc(vocab, sizeof(*expected));
	found = mmap(NULL, vocab * sizeof(*found), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (int f = 0; f < nfiles; f++) {
		snprintf(path, sizeof(path), "%s/f%05d.c", root, f);
		FILE *out = fopen(path, "w");
		long long len = 0;

		if (!out)
			die("%s: %s", path, strerror(errno));
		while (len < bytes) {
			uint32_t k = (uint32_t)(xorshift(&rng) % vocab);

			word_text(k, w);
			len += fprintf(out, "%s%s", w, (xorshift(&rng) & 7) ? " " : "\n");
			expected[k]++;
		}
		fclose(out);
	}
	return 0;
}

static void index_files(struct worker *w)
{
	size_t cap = param_int("table_kb") * 1024 / sizeof(struct entry);
	struct entry *t = malloc(cap * sizeof(*t));
	char path[4200], line[4096];

	memset(t, 0, cap * sizeof(*t));		/* zeroed at start: fresh pages */
	for (int f = w->tid; f < nfiles; f += nthreads) {
		snprintf(path, sizeof(path), "%s/f%05d.c", root, f);
		FILE *in = fopen(path, "r");
		/* The stdio buffer in its own mapping, as the glibc of the papers did. */
		char *buf = mmap(NULL, STDIO_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (!in || buf == MAP_FAILED)
			die("%s: %s", path, strerror(errno));
		w->mmaps++;
		setvbuf(in, buf, _IOFBF, STDIO_BUF);
		while (fgets(line, sizeof(line), in)) {
			char *save;

			for (char *tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
				uint32_t k = (uint32_t)strtoul(tok + 1, NULL, 16);
				size_t i = (k * 2654435761u) % cap;

				if (tok[0] != 'w' || k >= (uint32_t)param_int("vocab"))
					continue;	/* not a word of ours: verification will say so */
				while (t[i].count && t[i].word != k)
					i = (i + 1) % cap;
				t[i].word = k;
				t[i].count++;
				w->ops++;
			}
		}
		fclose(in);
		munmap(buf, STDIO_BUF);
		w->munmaps++;
	}
	for (size_t i = 0; i < cap; i++)
		if (t[i].count)
			__atomic_fetch_add(&found[t[i].word], t[i].count, __ATOMIC_RELAXED);
	free(t);
}

static void run(struct worker *w)
{
	if (!param_int("processes")) {
		index_files(w);
		return;
	}
	int fd[2];
	pid_t pid;

	if (pipe(fd) || (pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {			/* the child indexes in its own address space */
		close(fd[0]);
		index_files(w);
		uint64_t counts[3] = { w->ops, w->mmaps, w->munmaps };

		if (write(fd[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	int status = -1;
	uint64_t counts[3] = { 0 };
	ssize_t got = read(fd[0], counts, sizeof(counts));

	if (waitpid(pid, &status, 0) < 0 || status || got != sizeof(counts))
		die("indexer process %d failed (wait status %d)", w->tid, status);
	close(fd[0]);
	w->ops = counts[0];
	w->mmaps = counts[1];
	w->munmaps = counts[2];
}

static uint64_t verify(void)
{
	uint64_t bad = 0;

	for (long long k = 0; k < param_int("vocab"); k++)
		bad += found[k] != expected[k];
	if (bad)
		fprintf(stderr, "psearchy: %llu words miscounted\n", (unsigned long long)bad);
	return bad;
}

static void teardown(void)
{
	char path[4200];

	for (int f = 0; f < nfiles; f++) {
		snprintf(path, sizeof(path), "%s/f%05d.c", root, f);
		unlink(path);
	}
	rmdir(root);
}

const struct workload workload = {
	.name = "psearchy",
	.summary = "per-worker stdio indexers over a generated tree of small files (threads or processes)",
	.ops_unit = "word indexed",
	.params = params,
	.setup = setup,
	.run = run,
	.verify = verify,
	.teardown = teardown,
};
