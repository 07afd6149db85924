/*
 * A per-thread bump allocator that maps memory in fixed blocks with mmap and
 * never returns it, as Metis and the other applications do in the papers: the
 * block size decides whether a workload is page-fault heavy (large blocks,
 * e.g. 8 MiB) or mmap heavy (small blocks, e.g. 64 KiB).
 */
#ifndef VMSCALE_BLOCKALLOC_H
#define VMSCALE_BLOCKALLOC_H

#include <stddef.h>
#include <stdint.h>

struct blockalloc {
	char *cur, *end;
	size_t block;		/* bytes per mmap */
	uint64_t *mmaps;	/* where mappings are counted (the worker's) */
};

void blockalloc_init(struct blockalloc *a, size_t block_bytes, uint64_t *mmap_counter);
/* 16-byte aligned; a request larger than a block gets a mapping of its own; dies on ENOMEM. */
void *blockalloc(struct blockalloc *a, size_t bytes);

#endif
