/*
 * gem5 x86 pseudo-ops, written by vmscale from the ABI:
 *  - instruction form: bytes 0F 04 followed by a 16-bit function number,
 *    arguments in rdi, rsi, rdx, rcx, result in rax;
 *  - address form: a load from physical 0xFFFF0000 + (func << 8), reached by
 *    mapping /dev/mem, arguments in the same registers at the time of the load.
 * Outside gem5 both forms would fault (#UD, or a load from a hole), so the
 * mode is chosen at run time and defaults to OFF, where every op is a no-op.
 */
#ifndef VMSCALE_M5OPS_H
#define VMSCALE_M5OPS_H

#include <stdint.h>

enum m5_mode { M5_OFF, M5_INST, M5_ADDR };

/* Function numbers (gem5 include/gem5/asm/generic/m5ops.h). */
#define M5_FN_EXIT		0x21
#define M5_FN_RESET_STATS	0x40
#define M5_FN_DUMP_STATS	0x41
#define M5_FN_DUMP_RESET_STATS	0x42
#define M5_FN_CHECKPOINT	0x43
#define M5_FN_WRITE_FILE	0x4f
#define M5_FN_READ_FILE		0x50
#define M5_FN_WORK_BEGIN	0x5a
#define M5_FN_WORK_END		0x5b

#define M5_ADDR_BASE		0xFFFF0000UL

/*
 * Selects the mode: the M5_MODE environment variable (off|inst|addr) wins,
 * then "vmscale.m5=" on the kernel command line, else OFF.  Returns the mode,
 * or -1 after printing why (address mode without a usable /dev/mem).
 */
int m5_init(void);
int m5_set_mode(enum m5_mode mode);
enum m5_mode m5_mode(void);
const char *m5_mode_name(enum m5_mode mode);

void m5_exit(uint64_t ns_delay);
void m5_reset_stats(uint64_t ns_delay, uint64_t ns_period);
void m5_dump_stats(uint64_t ns_delay, uint64_t ns_period);
void m5_dump_reset_stats(uint64_t ns_delay, uint64_t ns_period);
void m5_checkpoint(uint64_t ns_delay, uint64_t ns_period);
uint64_t m5_read_file(void *buf, uint64_t len, uint64_t offset);
uint64_t m5_write_file(const void *buf, uint64_t len, uint64_t offset,
		       const char *filename);
void m5_work_begin(uint64_t workid, uint64_t threadid);
void m5_work_end(uint64_t workid, uint64_t threadid);

#endif
