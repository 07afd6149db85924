#include "blockalloc.h"
#include "harness.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

void blockalloc_init(struct blockalloc *a, size_t block_bytes, uint64_t *mmap_counter)
{
	a->cur = a->end = NULL;
	a->block = block_bytes < PAGE_SIZE ? PAGE_SIZE : block_bytes;
	a->mmaps = mmap_counter;
}

void *blockalloc(struct blockalloc *a, size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes > a->block) {		/* larger than a block: a mapping of its own */
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("blockalloc: mmap %zu bytes: %s", bytes, strerror(errno));
		(*a->mmaps)++;
		return p;
	}
	if ((size_t)(a->end - a->cur) < bytes) {
		char *p = mmap(NULL, a->block, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("blockalloc: mmap %zu bytes: %s", a->block, strerror(errno));
		a->cur = p;
		a->end = p + a->block;
		(*a->mmaps)++;
	}
	a->cur += bytes;
	return a->cur - bytes;
}
