/*
 * metis: a Metis-style MapReduce computing a word-position inverted index over
 * an in-memory text generated from a seed.  Map: each thread tokenizes its
 * chunk and emits (word, position) into one list per reduce bucket.  Reduce:
 * thread b builds the postings of the words hashed to bucket b and sorts them.
 * Merge: thread 0 merges the sorted buckets into one index.  All memory comes
 * from per-thread block allocators that mmap `block_kb` at a time and never
 * unmap (RadixVM: 8 MiB blocks are fault heavy, 64 KiB blocks mmap heavy).
 * The answer is checked: every word's postings equal a scan of the text.
 */
#include "blockalloc.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct param params[] = {
	{ "text_kb", "2048", "size of the generated text" },
	{ "vocab", "20000", "distinct words in the vocabulary" },
	{ "block_kb", "8192", "allocation unit of the per-thread allocators (mmap size)" },
	{ "checks", "24", "words whose postings are verified against a scan" },
	{ NULL }
};

#define EMITS 255
struct emit { uint64_t hash; uint32_t pos, len; };
struct emit_chunk { struct emit_chunk *next; uint32_t n; struct emit e[EMITS]; };
struct word { uint64_t hash; uint32_t first, len, count, fill; uint32_t *pos; };

static char *text;
static size_t text_len;
static struct emit_chunk **emits;	/* [thread * nthreads + bucket] */
static struct word **tables;		/* per bucket: open-addressed hash table */
static size_t table_cap;
static struct word ***sorted;		/* per bucket: words sorted by text */
static size_t *nsorted;
static struct word **index_;		/* merged, sorted */
static size_t nindex;
static uint64_t total_words;

/* Word i of the vocabulary: 2..11 letters, determined by i. */
static size_t vocab_word(uint64_t i, char *out)
{
	uint64_t h = i * 0x9E3779B97F4A7C15ULL + 7;
	size_t len = 2 + (h >> 60) % 10;

	for (size_t k = 0; k < len; k++) {
		out[k] = 'a' + (i + k * 7 + (h >> (k * 4))) % 26;
	}
	out[len - 1] = 'a' + i % 26;
	out[len - 2] = 'a' + (i / 26) % 26;
	if (len > 2)
		out[len - 3] = 'a' + (i / 676) % 26;
	return len;
}

static int setup(int n)
{
	uint64_t rng = 0x5eed0000 + param_int("seed");
	long long vocab = param_int("vocab");
	size_t cap = param_int("text_kb") * 1024;
	char w[16];

	if (vocab < 1 || cap < 64)
		die("vocab >= 1 and text_kb >= 1 please");
	text = malloc(cap + 16);
	while (text_len + 13 < cap) {
		double u = (double)(xorshift(&rng) >> 11) / (1ULL << 53);
		size_t len = vocab_word((uint64_t)(vocab * u * u * u), w);	/* skewed, Zipf-like */

		memcpy(text + text_len, w, len);
		text_len += len;
		text[text_len++] = ' ';
	}
	emits = calloc((size_t)n * n, sizeof(*emits));
	tables = calloc(n, sizeof(*tables));
	sorted = calloc(n, sizeof(*sorted));
	nsorted = calloc(n, sizeof(*nsorted));
	for (table_cap = 1024; table_cap < 4 * (size_t)vocab / n + 64; table_cap <<= 1)
		;
	return 0;
}

static int word_cmp(const void *a, const void *b)
{
	const struct word *x = *(struct word *const *)a, *y = *(struct word *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(text + x->first, text + y->first, n);

	return c ? c : (int)x->len - (int)y->len;
}

static struct word *lookup(struct word *t, uint64_t hash, uint32_t first, uint32_t len, int insert)
{
	for (size_t i = hash & (table_cap - 1);; i = (i + 1) & (table_cap - 1)) {
		if (!t[i].hash) {
			if (!insert)
				return NULL;
			t[i] = (struct word){ .hash = hash, .first = first, .len = len };
			return &t[i];
		}
		if (t[i].hash == hash && t[i].len == len && !memcmp(text + t[i].first, text + first, len))
			return &t[i];
	}
}

static void run(struct worker *w)
{
	struct blockalloc a;
	size_t lo = text_len * w->tid / nthreads, hi = text_len * (w->tid + 1) / nthreads;
	struct emit_chunk **mine = &emits[(size_t)w->tid * nthreads];

	blockalloc_init(&a, param_int("block_kb") * 1024, &w->mmaps);
	/* Map: whole words starting in [lo, hi). */
	while (lo > 0 && lo < text_len && text[lo - 1] != ' ')
		lo++;
	for (size_t p = lo; p < hi && p < text_len;) {
		size_t q = p;

		while (text[q] != ' ')
			q++;
		uint64_t h = hash_bytes(text + p, q - p);
		struct emit_chunk **c = &mine[h % nthreads];

		if (!*c || (*c)->n == EMITS) {
			struct emit_chunk *nc = blockalloc(&a, sizeof(*nc));

			nc->n = 0;
			nc->next = *c;
			*c = nc;
		}
		(*c)->e[(*c)->n++] = (struct emit){ h, (uint32_t)p, (uint32_t)(q - p) };
		w->ops++;
		p = q + 1;
	}
	barrier_wait();

	/* Reduce bucket tid: count, then place positions in text order. */
	struct word *t = blockalloc(&a, table_cap * sizeof(*t));
	size_t distinct = 0;

	memset(t, 0, table_cap * sizeof(*t));
	for (int src = 0; src < nthreads; src++)
		for (struct emit_chunk *c = emits[(size_t)src * nthreads + w->tid]; c; c = c->next)
			for (uint32_t i = 0; i < c->n; i++) {
				struct word *x = lookup(t, c->e[i].hash, c->e[i].pos, c->e[i].len, 1);

				distinct += !x->count++;
			}
	struct word **list = blockalloc(&a, (distinct + 1) * sizeof(*list));
	size_t k = 0;

	for (size_t i = 0; i < table_cap; i++)
		if (t[i].hash) {
			t[i].pos = blockalloc(&a, t[i].count * sizeof(uint32_t));
			list[k++] = &t[i];
		}
	/* Chunks are newest first: walk sources in order, each source's chunks reversed. */
	for (int src = 0; src < nthreads; src++) {
		struct emit_chunk *rev = NULL, *c = emits[(size_t)src * nthreads + w->tid];

		while (c) {
			struct emit_chunk *next = c->next;

			c->next = rev;
			rev = c;
			c = next;
		}
		for (c = rev; c; c = c->next)
			for (uint32_t i = 0; i < c->n; i++) {
				struct word *x = lookup(t, c->e[i].hash, c->e[i].pos, c->e[i].len, 0);

				x->pos[x->fill++] = c->e[i].pos;
			}
	}
	qsort(list, distinct, sizeof(*list), word_cmp);
	tables[w->tid] = t;
	sorted[w->tid] = list;
	nsorted[w->tid] = distinct;
	barrier_wait();

	/* Merge: thread 0 merges the sorted buckets. */
	if (w->tid == 0) {
		size_t total = 0, *at = blockalloc(&a, nthreads * sizeof(size_t));

		for (int b = 0; b < nthreads; b++)
			total += nsorted[b], at[b] = 0;
		index_ = blockalloc(&a, (total + 1) * sizeof(*index_));
		for (nindex = 0; nindex < total; nindex++) {
			int best = -1;

			for (int b = 0; b < nthreads; b++)
				if (at[b] < nsorted[b] &&
				    (best < 0 || word_cmp(&sorted[b][at[b]], &sorted[best][at[best]]) < 0))
					best = b;
			index_[nindex] = sorted[best][at[best]++];
		}
	}
	__atomic_fetch_add(&total_words, w->ops, __ATOMIC_RELAXED);
}

static uint64_t verify(void)
{
	uint64_t bad = 0, postings = 0, rng = 0x1234 + param_int("seed");

	for (size_t i = 0; i < nindex; i++) {
		postings += index_[i]->count;
		if (index_[i]->fill != index_[i]->count)
			bad++;
		if (i && word_cmp(&index_[i - 1], &index_[i]) >= 0)
			bad++;
	}
	if (postings != total_words) {
		fprintf(stderr, "metis: index holds %llu postings for %llu words\n",
			(unsigned long long)postings, (unsigned long long)total_words);
		bad++;
	}
	for (long long c = 0; c < param_int("checks") && nindex; c++) {
		struct word *x = index_[xorshift(&rng) % nindex];
		uint32_t k = 0;

		for (size_t p = 0; p < text_len;) {
			size_t q = p;

			while (text[q] != ' ')
				q++;
			if (q - p == x->len && !memcmp(text + p, text + x->first, x->len)) {
				if (k >= x->count || x->pos[k] != p)
					bad++;
				k++;
			}
			p = q + 1;
		}
		if (k != x->count)
			bad++;
	}
	if (bad)
		fprintf(stderr, "metis: %llu wrong answers in the index\n", (unsigned long long)bad);
	return bad;
}

const struct workload workload = {
	.name = "metis",
	.summary = "MapReduce word-position inverted index with per-thread mmap block allocators",
	.ops_unit = "word indexed",
	.params = params,
	.setup = setup,
	.run = run,
	.verify = verify,
};
