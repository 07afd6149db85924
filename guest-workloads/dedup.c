/*
 * dedup: a Dedup-style pipeline (PARSEC) of thread pools -- chunk -> hash and
 * deduplicate -> compress -> write -- over an input generated from a seed with
 * repeated content.  Stage buffers are heap allocations large enough that the
 * C library maps and unmaps them (> 128 KiB: mmap/munmap and fresh-page faults,
 * the behaviour Bonsai describes).  The output is decompressed and compared
 * with the input: a kernel bug that loses or mixes pages fails the run.
 *
 * Threads take roles round-robin: chunkers, deduplicators, compressors; the
 * last stage (writing the stream in order) runs on thread 0 after the pools.
 */
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct param params[] = {
	{ "input_kb", "4096", "size of the generated input" },
	{ "segment_kb", "256", "coarse segments handed down the pipeline (heap buffers of this size)" },
	{ "distinct", "64", "distinct 4 KiB patterns the input is built from (fewer: more duplicates)" },
	{ NULL }
};

/* A bounded queue of pointers between two pools. */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void **slot;
	size_t head, tail, cap;
	int producers;		/* queue closes when the last producer is done */
};

static void q_init(struct queue *q, size_t cap, int producers)
{
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->slot = calloc(cap, sizeof(void *));
	q->cap = cap;
	q->producers = producers;
}

static void q_put(struct queue *q, void *p)
{
	pthread_mutex_lock(&q->mu);
	while (q->tail - q->head == q->cap)
		pthread_cond_wait(&q->cv, &q->mu);
	q->slot[q->tail++ % q->cap] = p;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void q_done(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->producers--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void *q_get(struct queue *q)	/* NULL once closed and empty */
{
	void *p = NULL;

	pthread_mutex_lock(&q->mu);
	while (q->head == q->tail && q->producers > 0)
		pthread_cond_wait(&q->cv, &q->mu);
	if (q->head != q->tail) {
		p = q->slot[q->head++ % q->cap];
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return p;
}

#define MAXCHUNKS 4096
struct chunk { uint32_t off, len; uint64_t hash; int dup_of; };	/* dup_of: global id or -1 */
struct segment {
	int id;
	size_t off, len;
	int nchunks;
	struct chunk c[MAXCHUNKS];
	unsigned char *out;		/* compressed stream of this segment (mmap'd) */
	size_t outlen, outcap;
	int first_id;			/* global id of chunk 0 */
};

static unsigned char *input;
static size_t input_len, seg_len;
static int nseg, roles[3];
static struct segment **segs;
static struct queue q_chunked, q_deduped;
static int next_seg;
static uint64_t dup_chunks;
static unsigned char *stream;	/* the written output */

/* The dedup table: chunk hash -> first global chunk id, lock-striped. */
#define TABLE (1 << 16)
static struct { uint64_t hash; int id; } table[TABLE];
static pthread_mutex_t stripes[64];
static int next_id;
static struct { struct segment *s; int idx; } *chunk_at;	/* global id -> where */

static int setup(int n)
{
	uint64_t rng = 0xdedc0de + param_int("seed");
	int distinct = param_int("distinct");

	input_len = param_int("input_kb") * 1024;
	seg_len = param_int("segment_kb") * 1024;
	if (distinct < 1 || input_len < 4096 || seg_len < 4096)
		die("distinct >= 1, input_kb >= 4, segment_kb >= 4 please");
	input = malloc(input_len);
	unsigned char *pat = malloc((size_t)distinct * 4096);
	for (size_t i = 0; i < (size_t)distinct * 4096;) {	/* runs of letters: compressible */
		size_t run = 1 + (xorshift(&rng) >> 40) % 12;
		unsigned char c = 'a' + (xorshift(&rng) >> 40) % 26;

		while (run-- && i < (size_t)distinct * 4096)
			pat[i++] = c;
	}
	for (size_t at = 0; at < input_len;) {	/* patterns at random lengths and offsets */
		size_t p = xorshift(&rng) % distinct, len = 1024 + xorshift(&rng) % 3072;

		if (len > input_len - at)
			len = input_len - at;
		memcpy(input + at, pat + p * 4096, len);
		at += len;
	}
	free(pat);
	nseg = (input_len + seg_len - 1) / seg_len;
	segs = calloc(nseg, sizeof(*segs));
	chunk_at = calloc((size_t)nseg * MAXCHUNKS, sizeof(*chunk_at));
	for (int r = 0; r < 3; r++)
		roles[r] = 0;
	for (int t = 0; t < n; t++)
		roles[t % 3]++;
	q_init(&q_chunked, 64, roles[0]);
	q_init(&q_deduped, 64, roles[1] ? roles[1] : roles[0]);
	for (int i = 0; i < 64; i++)
		pthread_mutex_init(&stripes[i], NULL);
	return 0;
}

/* Content-defined chunking: cut where a rolling hash of the last bytes hits a mask. */
static void chunk_segment(struct segment *s)
{
	const unsigned char *p = input + s->off;
	uint32_t start = 0, roll = 0;

	for (uint32_t i = 0; i < s->len; i++) {
		roll = (roll << 1) + p[i];
		if ((((roll & 0x3ff) == 0x3ff) && i - start >= 256) || i - start >= 8191 || i + 1 == s->len) {
			if (s->nchunks == MAXCHUNKS - 1 && i + 1 != s->len)
				continue;
			s->c[s->nchunks++] = (struct chunk){ start, i + 1 - start, hash_bytes(p + start, i + 1 - start), -1 };
			start = i + 1;
		}
	}
}

static void dedup_segment(struct segment *s)
{
	s->first_id = __atomic_fetch_add(&next_id, s->nchunks, __ATOMIC_RELAXED);
	for (int i = 0; i < s->nchunks; i++) {
		struct chunk *c = &s->c[i];
		pthread_mutex_t *m = &stripes[c->hash % 64];

		chunk_at[s->first_id + i].s = s;
		chunk_at[s->first_id + i].idx = i;
		pthread_mutex_lock(m);
		for (size_t k = c->hash % TABLE;; k = (k + 64) % TABLE) {	/* stays in this stripe */
			if (!table[k].hash) {
				table[k].hash = c->hash;
				table[k].id = s->first_id + i;
				break;
			}
			if (table[k].hash == c->hash) {
				struct chunk *o = &chunk_at[table[k].id].s->c[chunk_at[table[k].id].idx];

				if (o->len == c->len)		/* same content (64-bit hash, same length) */
					c->dup_of = table[k].id;
				break;
			}
		}
		pthread_mutex_unlock(m);
	}
}

/* Compression: run-length encoding of unique chunks; duplicates become references. */
static void compress_segment(struct worker *w, struct segment *s)
{
	/* A large heap buffer, mapped as the C library maps big allocations. */
	size_t cap = 2 * s->len + 16 * s->nchunks;
	unsigned char *o = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (o == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	w->mmaps++;
	s->outcap = cap;
	size_t n = 0;

	for (int i = 0; i < s->nchunks; i++) {
		struct chunk *c = &s->c[i];

		if (c->dup_of >= 0) {
			o[n++] = 'D';
			memcpy(o + n, &c->dup_of, 4), n += 4;
			continue;
		}
		o[n++] = 'U';
		memcpy(o + n, &c->len, 4), n += 4;
		const unsigned char *p = input + s->off + c->off;
		for (uint32_t k = 0; k < c->len;) {
			uint32_t run = 1;

			while (k + run < c->len && p[k + run] == p[k] && run < 255)
				run++;
			o[n++] = run;
			o[n++] = p[k];
			k += run;
		}
	}
	s->out = o;
	s->outlen = n;
}

static void run(struct worker *w)
{
	int role = w->tid % 3;

	if (role == 0) {			/* chunkers take segments in order */
		for (int i; (i = __atomic_fetch_add(&next_seg, 1, __ATOMIC_RELAXED)) < nseg;) {
			struct segment *s = calloc(1, sizeof(*s));

			s->id = i;
			s->off = (size_t)i * seg_len;
			s->len = s->off + seg_len > input_len ? input_len - s->off : seg_len;
			chunk_segment(s);
			w->ops += s->nchunks;
			q_put(&q_chunked, s);
		}
		q_done(&q_chunked);
		if (!roles[1]) {		/* one thread: do every stage here */
			for (struct segment *s; (s = q_get(&q_chunked));) {
				dedup_segment(s);
				compress_segment(w, s);
				segs[s->id] = s;
			}
			q_done(&q_deduped);
		}
	} else if (role == 1) {
		for (struct segment *s; (s = q_get(&q_chunked));) {
			dedup_segment(s);
			w->ops += s->nchunks;
			if (roles[2])
				q_put(&q_deduped, s);
			else {
				compress_segment(w, s);
				segs[s->id] = s;
			}
		}
		q_done(&q_deduped);
	} else {
		for (struct segment *s; (s = q_get(&q_deduped));) {
			compress_segment(w, s);
			w->ops += s->nchunks;
			segs[s->id] = s;
		}
	}
	barrier_wait();
	if (w->tid == 0) {		/* write stage: the stream in order, stage buffers released */
		size_t total = 0;

		for (int i = 0; i < nseg; i++)
			total += segs[i]->outlen;
		stream = malloc(total + 1);
		for (int i = 0; i < nseg; i++) {
			struct segment *s = segs[i];

			memcpy(stream + w->extra, s->out, s->outlen);
			munmap(s->out, s->outcap);
			w->munmaps++;
			s->out = stream + w->extra;
			w->extra += s->outlen;
		}
	}
}

/* Decompress the stream and compare it with the input. */
static uint64_t verify(void)
{
	unsigned char *back = malloc(input_len);
	size_t at = 0;
	uint64_t bad = 0, unique = 0;

	for (int i = 0; i < nseg && !bad; i++) {
		struct segment *s = segs[i];

		for (size_t n = 0; n < s->outlen && !bad;) {
			if (s->out[n] == 'D') {
				int id;

				memcpy(&id, s->out + n + 1, 4);
				n += 5;
				struct chunk *o = &chunk_at[id].s->c[chunk_at[id].idx];
				memcpy(back + at, input + chunk_at[id].s->off + o->off, o->len);	/* ref by id */
				bad += memcmp(back + at, input + at, o->len) != 0;
				at += o->len;
			} else {
				uint32_t len;

				memcpy(&len, s->out + n + 1, 4);
				n += 5;
				unique++;
				for (uint32_t k = 0; k < len; n += 2) {
					memset(back + at + k, s->out[n + 1], s->out[n]);
					k += s->out[n];
				}
				bad += memcmp(back + at, input + at, len) != 0;
				at += len;
			}
		}
	}
	if (at != input_len)
		bad++;
	dup_chunks = next_id - unique;
	fprintf(stderr, "dedup: %llu of %d chunks were duplicates\n", (unsigned long long)dup_chunks, next_id);
	if (bad)
		fprintf(stderr, "dedup: the stream does not decompress to the input\n");
	else if (unique == 0)
		fprintf(stderr, "dedup: no unique chunks?\n"), bad++;
	free(back);
	return bad;
}

const struct workload workload = {
	.name = "dedup",
	.summary = "pipeline of thread pools: chunk, hash+dedup, compress, write; round trip verified",
	.ops_unit = "chunk through a stage",
	.extra_name = "output_bytes",
	.params = params,
	.setup = setup,
	.run = run,
	.verify = verify,
};
