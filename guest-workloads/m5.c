/* m5: the guest-side command-line tool for gem5 pseudo-ops (see m5ops.h). */
#include "m5ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t num(int argc, char **argv, int i, uint64_t dflt)
{
	return i < argc ? strtoull(argv[i], NULL, 0) : dflt;
}

static int readfile(void)
{
	static char buf[256 * 1024];
	uint64_t off = 0, n;

	if (m5_mode() == M5_OFF)
		return 0;		/* not under gem5: there is no file */
	for (;;) {
		memset(buf, 0, sizeof(buf));	/* fault the buffer in first */
		n = m5_read_file(buf, sizeof(buf), off);
		if (!n)
			return 0;
		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
		off += n;
	}
}

static int writefile(const char *path, const char *host_name)
{
	static char buf[256 * 1024];
	uint64_t off = 0;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "m5 writefile: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		m5_write_file(buf, n, off, host_name);
		off += n;
	}
	fclose(f);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: m5 [--inst|--addr|--off] COMMAND [ARGS]\n"
		"  exit [ns]  resetstats [ns period]  dumpstats [ns period]\n"
		"  dumpresetstats [ns period]  checkpoint [ns period]\n"
		"  readfile  writefile FILE [HOSTNAME]\n"
		"  workbegin ID THREAD  workend ID THREAD  mode\n"
		"The mode defaults to M5_MODE, else vmscale.m5= on the kernel\n"
		"command line, else off (every op is a no-op).\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int i = 1;

	if (m5_init() < 0)
		return 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		enum m5_mode m;

		if (!strcmp(argv[i], "--inst"))
			m = M5_INST;
		else if (!strcmp(argv[i], "--addr"))
			m = M5_ADDR;
		else if (!strcmp(argv[i], "--off"))
			m = M5_OFF;
		else
			usage();
		if (m5_set_mode(m) < 0)
			return 1;
	}
	if (i >= argc)
		usage();
	const char *cmd = argv[i++];

	if (!strcmp(cmd, "exit"))
		m5_exit(num(argc, argv, i, 0));
	else if (!strcmp(cmd, "resetstats"))
		m5_reset_stats(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "dumpstats"))
		m5_dump_stats(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "dumpresetstats"))
		m5_dump_reset_stats(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "checkpoint"))
		m5_checkpoint(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "readfile"))
		return readfile();
	else if (!strcmp(cmd, "writefile") && i < argc)
		return writefile(argv[i], i + 1 < argc ? argv[i + 1] : argv[i]);
	else if (!strcmp(cmd, "workbegin"))
		m5_work_begin(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "workend"))
		m5_work_end(num(argc, argv, i, 0), num(argc, argv, i + 1, 0));
	else if (!strcmp(cmd, "mode"))
		printf("%s\n", m5_mode_name(m5_mode()));
	else
		usage();
	return 0;
}
