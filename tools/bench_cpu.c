/* clgpu-bench run's CPU baselines (bench_cpu.h): each operation's loop on
 * the host, over all threads or one, the sorts' LSD radix and qsort,
 * lower_bound's binary search, histogram's loop, the by-key ops' loops,
 * segmented_sort's insertion sort and partition's loop. */
#include "bench_cpu.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- CPU baselines ---- */

typedef struct cpu_task {
  const bench_case *c;
  int count;
  size_t begin, end;
  unsigned char sum[8];
  size_t counted;
} cpu_task;

static volatile uint64_t cpu_sink; /* keeps the baselines' results alive */

static void *cpu_worker(void *argument) {
  cpu_task *task = argument;
  if (task->count) {
    task->counted = task->c->type->count(task->c->host_in, task->begin, task->end);
  } else {
    task->c->type->sum(task->c->host_in, task->begin, task->end, task->sum);
  }
  return NULL;
}

int bench_cpu_threads(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 1) return 1;
  return online > 64 ? 64 : (int)online;
}

/* Sum (or count) over all threads, each a contiguous share. */
static void cpu_parallel(const bench_case *c, int count) {
  cpu_task tasks[64];
  pthread_t threads[64];
  /* A thread per core, but none for less than 64K elements. */
  size_t most = (c->n + 65535) / 65536;
  int num = (size_t)bench_cpu_threads() < most ? bench_cpu_threads() : (int)most;
  size_t share = (c->n + (size_t)num - 1) / (size_t)num;
  for (int k = 0; k < num; k++) {
    tasks[k].c = c;
    tasks[k].count = count;
    tasks[k].begin = (size_t)k * share < c->n ? (size_t)k * share : c->n;
    tasks[k].end = tasks[k].begin + share < c->n ? tasks[k].begin + share : c->n;
  }
  int started[64] = {0};
  for (int k = 1; k < num; k++) {
    started[k] = pthread_create(&threads[k], NULL, cpu_worker, &tasks[k]) == 0;
    if (!started[k]) cpu_worker(&tasks[k]);
  }
  cpu_worker(&tasks[0]);
  uint64_t sink = 0;
  for (int k = 0; k < num; k++) {
    if (k > 0 && started[k]) pthread_join(threads[k], NULL);
    uint64_t bits = 0;
    memcpy(&bits, tasks[k].sum, sizeof bits < c->type->size ? sizeof bits : c->type->size);
    sink += count ? tasks[k].counted : bits;
  }
  cpu_sink = sink;
}

static void cpu_run(bench_case *c, int op) {
  const host_type *t = c->type;
  switch (op) {
    case OP_READ:
    case OP_REDUCE:
      cpu_parallel(c, 0);
      break;
    case OP_COUNT_IF:
      cpu_parallel(c, 1);
      break;
    case OP_SCAN:
      t->scan(c->host_in, c->cpu_out, c->n);
      break;
    case OP_FINDALL:
      cpu_sink = t->findall(c->host_in, c->cpu_index, c->n);
      break;
    case OP_LOWER_BOUND: /* the sorted data, the data as needles: bench_prepare_search */
      bench_lower_bound_host(t, c->host_haystack, c->n, c->host_in, c->n, c->search_positions,
                             c->search_wide);
      break;
    case OP_HISTOGRAM: /* the bounds of bench_prepare_histogram */
      bench_histogram_host(t, c->host_in, c->n, c->histogram_lower, c->histogram_upper,
                           c->histogram_cpu, HISTOGRAM_BINS);
      break;
    case OP_REDUCE_BY_KEY: /* the keys of bench_prepare_by_key, the data as values */
      c->cpu_runs =
          bench_reduce_by_key_host(t, c->host_keys, c->host_in, c->n, c->cpu_index, c->cpu_out);
      break;
    case OP_SCAN_BY_KEY:
      bench_scan_by_key_host(t, c->host_keys, c->host_in, c->n, c->cpu_out);
      break;
    case OP_UNIQUE: /* the keys of bench_prepare_by_key alone */
      c->cpu_runs = bench_unique_host(c->host_keys, c->n, c->cpu_index);
      break;
    case OP_SEGMENTED_SORT: /* the offsets of bench_prepare_segmented, out of place */
      bench_segmented_sort_host(t, c->host_in, c->cpu_out, c->segment_offsets, c->num_segments);
      break;
    case OP_PARTITION:
      c->partition_cpu_count = t->partition(c->host_in, c->cpu_out, c->n);
      break;
    case OP_COPY:
      t->copy(c->host_in, c->cpu_out, c->n);
      break;
    case OP_COPY_STRIDED:
      t->copy_reversed(c->host_in, c->cpu_out, c->n);
      break;
    case OP_ELEMENTWISE:
      t->axpy(c->scalar_a, c->host_in, c->host_z, c->cpu_out, c->n);
      break;
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED:
      t->square(c->host_in, &c->layout, c->cpu_out);
      break;
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      bench_copy_layout(t->size, c->host_in, &c->layout, c->cpu_out);
      break;
    default: /* OP_COPY_KERNEL */
      memcpy(c->cpu_out, c->host_in, c->n * t->size);
      break;
  }
}

timing bench_time_cpu(bench_case *c, int op, int repeat, int warmup, double *samples) {
  if (warmup < 1) warmup = 1; /* at least one: page in the output */
  for (int call = 0; call < warmup + repeat; call++) {
    double start = bench_now_ms();
    cpu_run(c, op);
    double ms = bench_now_ms() - start;
    if (call >= warmup) samples[call - warmup] = ms;
  }
  return bench_summarize(samples, repeat);
}

/* One timed call of a sort baseline; its refill (the unsorted keys, the
 * values 0, 1, ..., n-1, qsort's pairs) is not timed. */
static double cpu_sort_once(bench_case *c, int base) {
  const host_type *t = c->type;
  memcpy(c->sort_keys, c->host_in, c->n * t->size);
  if (base == BASE_RADIX_PAIRS) memcpy(c->sort_values, c->iota, c->n * sizeof(uint32_t));
  if (base == BASE_QSORT_PAIRS) t->make_pairs(c->host_in, c->iota, c->pairs, c->n);
  double start = bench_now_ms();
  switch (base) {
    case BASE_RADIX_KEYS:
      bench_radix_sort_host(t, c->sort_keys, NULL, c->sort_tmp_keys, NULL, c->n);
      break;
    case BASE_RADIX_PAIRS:
      bench_radix_sort_host(t, c->sort_keys, c->sort_values, c->sort_tmp_keys, c->sort_tmp_values,
                            c->n);
      break;
    case BASE_QSORT_KEYS:
      qsort(c->sort_keys, c->n, t->size, t->compare);
      break;
    default:
      qsort(c->pairs, c->n, t->pair_size, t->compare_pair);
      break;
  }
  double ms = bench_now_ms() - start;
  cpu_sink = bench_element_bits(t, base == BASE_QSORT_PAIRS ? c->pairs : c->sort_keys, 0);
  return ms;
}

/* A sort baseline over `repeat` calls, timed once per case. */
timing bench_time_cpu_sort(bench_case *c, int base, int repeat, double *samples) {
  if (!c->baseline_done[base]) {
    for (int k = 0; k < repeat; k++) samples[k] = cpu_sort_once(c, base);
    c->baseline[base] = bench_summarize(samples, repeat);
    c->baseline_done[base] = 1;
  }
  return c->baseline[base];
}
