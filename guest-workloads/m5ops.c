#include "m5ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static enum m5_mode mode = M5_OFF;
static volatile uint8_t *m5_mem;	/* address form: the mapped 64 KiB window */

/* The function number is an immediate, so each op needs its own asm. */
#define M5_INST(fn, a0, a1, a2, a3) ({					\
	register uint64_t _rdi asm("rdi") = (a0);			\
	register uint64_t _rsi asm("rsi") = (a1);			\
	register uint64_t _rdx asm("rdx") = (a2);			\
	register uint64_t _rcx asm("rcx") = (a3);			\
	uint64_t _rax;							\
	asm volatile(".byte 0x0f, 0x04\n\t.word %c[f]"			\
		     : "=a"(_rax)					\
		     : [f] "i"(fn), "r"(_rdi), "r"(_rsi), "r"(_rdx),	\
		       "r"(_rcx)					\
		     : "memory");					\
	_rax; })

static uint64_t m5_addr_op(unsigned fn, uint64_t a0, uint64_t a1, uint64_t a2,
			   uint64_t a3)
{
	register uint64_t rdi asm("rdi") = a0;
	register uint64_t rsi asm("rsi") = a1;
	register uint64_t rdx asm("rdx") = a2;
	register uint64_t rcx asm("rcx") = a3;
	const volatile void *p = m5_mem + ((uint64_t)fn << 8);
	uint64_t rax;

	asm volatile("movq (%[p]), %%rax"
		     : "=a"(rax)
		     : [p] "r"(p), "r"(rdi), "r"(rsi), "r"(rdx), "r"(rcx)
		     : "memory");
	return rax;
}

#define M5_OP(fn, a0, a1, a2, a3)					\
	(mode == M5_INST ? M5_INST(fn, a0, a1, a2, a3) :		\
	 mode == M5_ADDR ? m5_addr_op(fn, a0, a1, a2, a3) : 0)

const char *m5_mode_name(enum m5_mode m)
{
	return m == M5_INST ? "inst" : m == M5_ADDR ? "addr" : "off";
}

static int parse_mode(const char *s, enum m5_mode *out)
{
	size_t n = strcspn(s, " \t\n");

	if (n == 3 && !strncmp(s, "off", 3))
		*out = M5_OFF;
	else if (n == 4 && !strncmp(s, "inst", 4))
		*out = M5_INST;
	else if (n == 4 && !strncmp(s, "addr", 4))
		*out = M5_ADDR;
	else
		return -1;
	return 0;
}

int m5_set_mode(enum m5_mode m)
{
	if (m == M5_ADDR && !m5_mem) {
		int fd = open("/dev/mem", O_RDWR | O_SYNC);
		void *p;

		if (fd < 0) {
			perror("m5: open /dev/mem (address mode needs CONFIG_DEVMEM)");
			return -1;
		}
		p = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 M5_ADDR_BASE);
		close(fd);
		if (p == MAP_FAILED) {
			perror("m5: mmap /dev/mem at 0xFFFF0000");
			return -1;
		}
		m5_mem = p;
	}
	mode = m;
	return m;
}

enum m5_mode m5_mode(void)
{
	return mode;
}

int m5_init(void)
{
	enum m5_mode m = M5_OFF;
	const char *env = getenv("M5_MODE");
	char cmdline[4096];

	if (env) {
		if (parse_mode(env, &m)) {
			fprintf(stderr, "m5: M5_MODE=%s: use off, inst or addr\n", env);
			return -1;
		}
		return m5_set_mode(m);
	}
	FILE *f = fopen("/proc/cmdline", "r");
	if (f) {
		size_t n = fread(cmdline, 1, sizeof(cmdline) - 1, f);
		char *arg;

		cmdline[n] = 0;
		fclose(f);
		arg = strstr(cmdline, "vmscale.m5=");
		if (arg && parse_mode(arg + strlen("vmscale.m5="), &m)) {
			fprintf(stderr, "m5: bad vmscale.m5= on the kernel command line\n");
			return -1;
		}
	}
	return m5_set_mode(m);
}

void m5_exit(uint64_t d) { M5_OP(M5_FN_EXIT, d, 0, 0, 0); }
void m5_reset_stats(uint64_t d, uint64_t p) { M5_OP(M5_FN_RESET_STATS, d, p, 0, 0); }
void m5_dump_stats(uint64_t d, uint64_t p) { M5_OP(M5_FN_DUMP_STATS, d, p, 0, 0); }
void m5_dump_reset_stats(uint64_t d, uint64_t p)
{
	M5_OP(M5_FN_DUMP_RESET_STATS, d, p, 0, 0);
}
void m5_checkpoint(uint64_t d, uint64_t p) { M5_OP(M5_FN_CHECKPOINT, d, p, 0, 0); }

uint64_t m5_read_file(void *buf, uint64_t len, uint64_t off)
{
	return M5_OP(M5_FN_READ_FILE, (uint64_t)buf, len, off, 0);
}

uint64_t m5_write_file(const void *buf, uint64_t len, uint64_t off,
		       const char *name)
{
	return M5_OP(M5_FN_WRITE_FILE, (uint64_t)buf, len, off, (uint64_t)name);
}

void m5_work_begin(uint64_t w, uint64_t t) { M5_OP(M5_FN_WORK_BEGIN, w, t, 0, 0); }
void m5_work_end(uint64_t w, uint64_t t) { M5_OP(M5_FN_WORK_END, w, t, 0, 0); }
