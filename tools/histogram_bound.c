/* clgpu-histogram-bound: how fast this host's cores can count a histogram,
 * beside how fast they read the same bytes, so that a histogram's share of
 * the read kernel (clgpu-bench run --ops histogram) can be judged against
 * what any program reaches on the machine (docs/histogram.md, "Speed").
 *
 * Over n random uint32 (default 16M; `clgpu-histogram-bound [N]`), on one
 * thread per core, each a contiguous share, in rounds of every figure in
 * turn (21 after 2 warm-up rounds), median and fastest of each:
 *   read      a 64-bit sum, four independent sums (vectorised at -O3)
 *   hist x1   256 bins of the top 8 bits, one row of counters per thread
 *   hist x4   the same with four rows per thread, element i in row i % 4,
 *             so that two neighbours never wait on one counter
 * and the histograms' time over the read's. Each histogram's counts are
 * checked against a one-thread count; exit status 1 when they differ. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BINS 256
#define ROUNDS 21
#define WARMUP 2
#define MAX_THREADS 64

enum { READ, HIST1, HIST4, FIGURES };
static const char *const names[FIGURES] = {"read", "hist x1", "hist x4"};

typedef struct share {
  const uint32_t *data;
  size_t begin, end;
  int figure;
  uint64_t sum;
  uint32_t rows[4][BINS];
} share;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *work(void *argument) {
  share *s = argument;
  const uint32_t *d = s->data;
  size_t i = s->begin, end = s->end;
  memset(s->rows, 0, sizeof s->rows);
  if (s->figure == READ) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; i + 4 <= end; i += 4) {
      s0 += d[i];
      s1 += d[i + 1];
      s2 += d[i + 2];
      s3 += d[i + 3];
    }
    for (; i < end; i++) s0 += d[i];
    s->sum = s0 + s1 + s2 + s3;
  } else if (s->figure == HIST1) {
    uint32_t *row = s->rows[0];
    for (; i < end; i++) row[d[i] >> 24]++;
  } else {
    for (; i + 4 <= end; i += 4) {
      uint32_t b0 = d[i] >> 24, b1 = d[i + 1] >> 24, b2 = d[i + 2] >> 24, b3 = d[i + 3] >> 24;
      s->rows[0][b0]++;
      s->rows[1][b1]++;
      s->rows[2][b2]++;
      s->rows[3][b3]++;
    }
    for (; i < end; i++) s->rows[0][d[i] >> 24]++;
  }
  return NULL;
}

/* One timed call of `figure` over every thread (the caller's one of them),
 * in ms; the counts summed into counts[] for the histograms. */
static double run(share *shares, int threads, int figure, uint64_t *counts) {
  pthread_t handles[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  double begin = now_ms();
  for (int t = 0; t < threads; t++) shares[t].figure = figure;
  for (int t = 1; t < threads; t++) {
    started[t] = pthread_create(&handles[t], NULL, work, &shares[t]) == 0;
    if (!started[t]) work(&shares[t]);
  }
  work(&shares[0]);
  for (int t = 1; t < threads; t++) {
    if (started[t]) pthread_join(handles[t], NULL);
  }
  double ms = now_ms() - begin;
  memset(counts, 0, sizeof(uint64_t) * BINS);
  for (int t = 0; t < threads; t++) {
    for (int r = 0; r < 4; r++) {
      for (int b = 0; b < BINS; b++) counts[b] += shares[t].rows[r][b];
    }
  }
  return ms;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  size_t n = (size_t)16 << 20;
  if (argc > 1) {
    char *end = NULL;
    unsigned long long value = strtoull(argv[1], &end, 10);
    if (!end || *end || value == 0) {
      fprintf(stderr, "usage: clgpu-histogram-bound [N]  (N > 0 elements, default 16777216)\n");
      return 2;
    }
    n = (size_t)value;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = online < 1 ? 1 : online > MAX_THREADS ? MAX_THREADS : (int)online;
  uint32_t *data = malloc(n * sizeof *data);
  share *shares = calloc((size_t)threads, sizeof *shares);
  if (!data || !shares) {
    fprintf(stderr, "clgpu-histogram-bound: out of host memory for %zu elements\n", n);
    return 2;
  }
  uint64_t x = 0x9e3779b97f4a7c15ull, expected[BINS] = {0}, got[BINS];
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data[i] = (uint32_t)(x >> 16);
    expected[data[i] >> 24]++;
  }
  size_t each = (n + (size_t)threads - 1) / (size_t)threads;
  for (int t = 0; t < threads; t++) {
    shares[t].data = data;
    shares[t].begin = (size_t)t * each < n ? (size_t)t * each : n;
    shares[t].end = shares[t].begin + each < n ? shares[t].begin + each : n;
  }
  static double ms[FIGURES][ROUNDS];
  int wrong = 0;
  for (int round = 0; round < WARMUP + ROUNDS; round++) {
    for (int f = 0; f < FIGURES; f++) {
      double t = run(shares, threads, f, got);
      if (f != READ && memcmp(got, expected, sizeof got) != 0) wrong = 1;
      if (round >= WARMUP) ms[f][round - WARMUP] = t;
    }
  }
  printf("%zu uint32, %d threads, median (fastest) of %d rounds of every figure in turn\n", n,
         threads, ROUNDS);
  double read_median = 0;
  for (int f = 0; f < FIGURES; f++) {
    qsort(ms[f], ROUNDS, sizeof(double), by_value);
    double median = ms[f][ROUNDS / 2];
    if (f == READ) read_median = median;
    printf("%-8s %9.3f ms (%.3f)  %7.2f GB/s  %5.1f%% of read\n", names[f], median, ms[f][0],
           (double)n * 4 / median * 1e-6, 100.0 * read_median / median);
  }
  if (wrong) fprintf(stderr, "clgpu-histogram-bound: a histogram's counts were wrong\n");
  free(shares);
  free(data);
  return wrong;
}
