/* clgpu-radix-bound: how fast this host's cores run the radix sort that
 * clgpu's CHUNKED kernels run, written in C, beside the one-thread C LSD
 * radix sort that `clgpu-bench run` takes as its CPU baseline, so that the
 * radix sort's "x radix" column can be judged against what any program of
 * that design reaches on the machine (docs/sort.md, "Speed on CPU devices").
 *
 * Over n random uint32 keys (default 16M; `clgpu-radix-bound [N [THREADS]]`,
 * THREADS by default one per online processor), in
 * rounds of every figure in turn (11 after 2 warm-up rounds), median and
 * fastest of each:
 *   C LSD          clgpu-bench's CPU baseline (bench_radix_sort_host): one
 *                  thread, 11-bit digits, every digit's histogram in one
 *                  pass over the keys
 *   chunked 8      THREADS threads, each a contiguous chunk of the keys;
 *                  per 8-bit digit, each thread counts its chunk's digits
 *                  and then scatters the chunk through write-combined lines
 *                  (each digit's keys wait in a 64-byte line until it
 *                  fills, which then goes out in non-temporal stores): the
 *                  design of clgpu_radix_histogram and clgpu_radix_scatter
 *                  (cl/sort.cl) as the CPU rows of the tuning table take it
 *   chunked 11     the same with 11-bit digits (3 passes, 2048 lines of
 *                  128 KiB a thread)
 *   8-bit loop     chunked 8 with the lines' stores to the output left out:
 *                  what the scatter's loop costs with no output traffic (its
 *                  output is not a sort and is not checked)
 * and each figure's speed-up over C LSD in the same rounds. Every sort's
 * output is compared with glibc qsort's; exit status 1 when one differs. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bench_common.h"
#include "bench_data.h"

#define ROUNDS 11
#define WARMUP 2
#define MAX_THREADS 64
#define LINE_KEYS 16 /* uint32 keys in a 64-byte line */

enum { C_LSD, CHUNKED_8, CHUNKED_11, LOOP_8, FIGURES };
static const char *const names[FIGURES] = {"C LSD", "chunked 8", "chunked 11", "8-bit loop"};
static const unsigned digit_bits[FIGURES] = {11, 8, 11, 8};

/* What the threads of one chunked sort share. */
typedef struct team {
  uint32_t *keys, *tmp; /* 64-byte aligned, n keys each */
  size_t n;
  int threads;
  unsigned bits;
  int store_lines; /* 0: the 8-bit loop figure */
  pthread_barrier_t barrier;
  uint64_t (*counts)[1u << 11]; /* [thread][digit] of the current pass */
} team;

typedef struct member {
  team *team;
  int index;
  uint32_t *lines; /* (1 << bits) lines of LINE_KEYS, 64-byte aligned */
} member;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A whole line of keys to its 64-byte aligned place in the output. */
static inline void store_line(uint32_t *to, const uint32_t *line) {
#if defined(__SSE2__)
  for (int k = 0; k < LINE_KEYS; k += 4) {
    _mm_stream_si128((__m128i *)(to + k), _mm_load_si128((const __m128i *)(line + k)));
  }
#else
  memcpy(to, line, LINE_KEYS * sizeof *to);
#endif
}

/* Positions [first, last) of a digit's line, shared with a neighbouring
 * digit or thread: plain stores of those positions only. */
static inline void store_part(uint32_t *to, const uint32_t *line, size_t first, size_t last) {
  for (size_t at = first; at < last; at++) to[at] = line[at % LINE_KEYS];
}

/* One pass of a thread over its chunk [begin, end) of `from`: the keys of
 * each digit to offset[digit] onwards in `to`, through the lines. */
static void scatter(const member *m, const uint32_t *from, uint32_t *to, size_t begin, size_t end,
                    unsigned shift, uint32_t mask, size_t *offset, size_t *pending) {
  uint32_t *lines = m->lines;
  int store = m->team->store_lines;
  for (uint32_t d = 0; d <= mask; d++) pending[d] = offset[d];
  for (size_t i = begin; i < end; i++) {
    uint32_t key = from[i];
    uint32_t d = (key >> shift) & mask;
    size_t at = offset[d]++;
    size_t slot = at % LINE_KEYS;
    lines[d * LINE_KEYS + slot] = key;
    if (slot == LINE_KEYS - 1) {
      if (store) {
        if (at - pending[d] == LINE_KEYS - 1) {
          store_line(to + pending[d], lines + d * LINE_KEYS);
        } else {
          store_part(to, lines + d * LINE_KEYS, pending[d], at + 1);
        }
      }
      pending[d] = at + 1;
    }
  }
  if (store) {
    for (uint32_t d = 0; d <= mask; d++)
      store_part(to, lines + d * LINE_KEYS, pending[d], offset[d]);
  }
}

static void *chunked_sort(void *argument) {
  member *m = argument;
  team *t = m->team;
  size_t each = (t->n + (size_t)t->threads - 1) / (size_t)t->threads;
  size_t begin = (size_t)m->index * each < t->n ? (size_t)m->index * each : t->n;
  size_t end = begin + each < t->n ? begin + each : t->n;
  uint32_t radix = 1u << t->bits, mask = radix - 1;
  size_t offset[1u << 11], pending[1u << 11];
  uint32_t *from = t->keys, *to = t->tmp;
  for (unsigned shift = 0; shift < 32; shift += t->bits) {
    uint64_t *mine = t->counts[m->index];
    memset(mine, 0, radix * sizeof *mine);
    for (size_t i = begin; i < end; i++) mine[(from[i] >> shift) & mask]++;
    pthread_barrier_wait(&t->barrier);
    /* This thread's start for each digit: every key of a smaller digit,
     * then the digit's keys in the chunks before this one. */
    size_t run = 0;
    int skip = 0;
    for (uint32_t d = 0; d < radix; d++) {
      size_t before = 0, total = 0;
      for (int k = 0; k < t->threads; k++) {
        if (k < m->index) before += t->counts[k][d];
        total += t->counts[k][d];
      }
      offset[d] = run + before;
      if (total == t->n) skip = 1;
      run += total;
    }
    if (!skip) scatter(m, from, to, begin, end, shift, mask, offset, pending);
#if defined(__SSE2__)
    _mm_sfence();
#endif
    pthread_barrier_wait(&t->barrier);
    if (!skip) {
      uint32_t *swap = from;
      from = to;
      to = swap;
    }
  }
  /* An odd number of passes leaves the keys in tmp: back, as
   * clgpu_radix_finish does. */
  if (from != t->keys) memcpy(t->keys + begin, from + begin, (end - begin) * sizeof *from);
  return NULL;
}

/* One chunked sort of t->keys on t->threads threads (the caller one of
 * them), in ms. */
static double run_chunked(team *t, member *members) {
  pthread_t handles[MAX_THREADS];
  double begin = now_ms();
  for (int k = 1; k < t->threads; k++) {
    if (pthread_create(&handles[k], NULL, chunked_sort, &members[k]) != 0) {
      /* The barrier waits for every thread: without them all, stop here. */
      fprintf(stderr, "clgpu-radix-bound: cannot start thread %d\n", k);
      exit(2);
    }
  }
  chunked_sort(&members[0]);
  for (int k = 1; k < t->threads; k++) pthread_join(handles[k], NULL);
  return now_ms() - begin;
}

static int by_key(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  size_t n = (size_t)16 << 20;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = online < 1 ? 1 : online > MAX_THREADS ? MAX_THREADS : (int)online;
  for (int a = 1; a < argc; a++) {
    char *end = NULL;
    unsigned long long value = strtoull(argv[a], &end, 10);
    if (a > 2 || !end || *end || value == 0 || value > (a == 1 ? UINT32_MAX : MAX_THREADS)) {
      fprintf(stderr,
              "usage: clgpu-radix-bound [N [THREADS]]  (0 < N < 2^32 keys, default "
              "16777216; 1 to %d threads, default one per online processor)\n",
              MAX_THREADS);
      return 2;
    }
    if (a == 1) n = (size_t)value;
    if (a == 2) threads = (int)value;
  }
  size_t bytes = (n * sizeof(uint32_t) + 63) / 64 * 64;
  uint32_t *input = malloc(n * sizeof *input), *expected = malloc(n * sizeof *expected);
  uint32_t *keys = aligned_alloc(64, bytes), *tmp = aligned_alloc(64, bytes);
  member *members = calloc((size_t)threads, sizeof *members);
  uint64_t(*counts)[1u << 11] = calloc((size_t)threads, sizeof *counts);
  int no_memory = !input || !expected || !keys || !tmp || !members || !counts;
  for (int k = 0; k < threads && !no_memory; k++) {
    members[k].lines = aligned_alloc(64, ((size_t)1 << 11) * LINE_KEYS * sizeof(uint32_t));
    no_memory = members[k].lines == NULL;
  }
  if (no_memory) {
    fprintf(stderr, "clgpu-radix-bound: out of host memory for %zu keys\n", n);
    return 2;
  }
  const host_type *uint32_type = &bench_host_types[0];
  uint32_type->generate(input, n, 1);
  memcpy(expected, input, n * sizeof *input);
  qsort(expected, n, sizeof *expected, by_key);

  team t = {.keys = keys, .tmp = tmp, .n = n, .threads = threads, .counts = counts};
  if (pthread_barrier_init(&t.barrier, NULL, (unsigned)threads) != 0) {
    fprintf(stderr, "clgpu-radix-bound: cannot make a barrier for %d threads\n", threads);
    return 2;
  }
  for (int k = 0; k < threads; k++) {
    members[k].team = &t;
    members[k].index = k;
  }
  static double ms[FIGURES][ROUNDS];
  int wrong[FIGURES] = {0};
  for (int round = 0; round < WARMUP + ROUNDS; round++) {
    for (int f = 0; f < FIGURES; f++) {
      memcpy(keys, input, n * sizeof *input);
      double took;
      if (f == C_LSD) {
        double begin = now_ms();
        bench_radix_sort_host(uint32_type, keys, NULL, tmp, NULL, n);
        took = now_ms() - begin;
      } else {
        t.bits = digit_bits[f];
        t.store_lines = f != LOOP_8;
        took = run_chunked(&t, members);
      }
      if (f != LOOP_8 && memcmp(keys, expected, n * sizeof *keys) != 0) wrong[f] = 1;
      if (round >= WARMUP) ms[f][round - WARMUP] = took;
    }
  }
  printf("%zu uint32 keys, %d threads, median (fastest) of %d rounds of every figure in turn\n", n,
         threads, ROUNDS);
  double baseline = 0;
  int failed = 0;
  for (int f = 0; f < FIGURES; f++) {
    qsort(ms[f], ROUNDS, sizeof(double), by_value);
    double median = ms[f][ROUNDS / 2];
    if (f == C_LSD) baseline = median;
    printf("%-11s %2u-bit digits, %d thread%s %9.2f ms (%.2f)  %7.1f Mkeys/s  %5.2fx C LSD%s\n",
           names[f], digit_bits[f], f == C_LSD ? 1 : threads,
           (f == C_LSD ? 1 : threads) == 1 ? ", " : "s,", median, ms[f][0],
           (double)n / median * 1e-3, baseline / median, f == LOOP_8 ? "  (no output)" : "");
    if (wrong[f]) {
      fprintf(stderr, "clgpu-radix-bound: %s's keys differ from qsort's\n", names[f]);
      failed = 1;
    }
  }
  pthread_barrier_destroy(&t.barrier);
  for (int k = 0; k < threads; k++) free(members[k].lines);
  free(counts);
  free(members);
  free(tmp);
  free(keys);
  free(expected);
  free(input);
  return failed;
}
