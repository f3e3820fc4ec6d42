/* clgpu-bench run's memory limits (bench_limit.h): the host's memcpy on one
 * thread and on all, the host's read on all threads, and the device's
 * clEnqueueCopyBuffer, over the bytes of a case; and each row's limit, the
 * fastest of them (and of the read or copy kernel) for its kind of traffic. */
#include "bench_limit.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "bench_reference.h"

/* A thread's share of the host's work: at least this many bytes, so that a
 * small case does not measure the threads' start more than the memory. */
#define SHARE_MIN ((size_t)256 << 10)

/* The timed calls of each figure: --repeat, but at least this many, since a
 * limit measured once per case meets the machine's noise only once; under
 * --max-time this many whatever --repeat says. */
#define LIMIT_CALLS 11

enum { WORK_COPY, WORK_READ, WORK_STOP };

/* The host figures' work over `threads` threads, the caller's one of them.
 * Each call raises `generation`; the other threads spin on it (a sleeping
 * thread's wake-up would be timed with the memory) and count themselves in
 * `finished`. WORK_STOP ends them (pool_threads, one round's threads). */
typedef struct host_pool {
  atomic_uint generation, finished;
  atomic_int work;
  const unsigned char *in;
  unsigned char *out;
  size_t bytes;
  int threads;
  uint64_t sums[64];
} host_pool;

typedef struct host_worker {
  host_pool *pool;
  int index;
  unsigned seen; /* the generation it last ran (the pool's at its start) */
} host_worker;

static volatile uint64_t limit_sink; /* keeps the reads' sums alive */

/* A 64-bit sum of bytes [begin, end) of `in`, four words at a time in
 * independent sums (which the compiler may widen into vectors). */
static uint64_t read_share(const unsigned char *in, size_t begin, size_t end) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t k = begin;
  for (; k + 32 <= end; k += 32) {
    uint64_t w[4];
    memcpy(w, in + k, sizeof w);
    s0 += w[0];
    s1 += w[1];
    s2 += w[2];
    s3 += w[3];
  }
  for (; k < end; k++) s0 += in[k];
  return s0 + s1 + s2 + s3;
}

/* Thread `index`'s share of the pool's work. */
static void do_share(host_pool *pool, int index) {
  size_t share = (pool->bytes + (size_t)pool->threads - 1) / (size_t)pool->threads;
  share = (share + 63) & ~(size_t)63; /* whole cache lines */
  size_t begin = (size_t)index * share < pool->bytes ? (size_t)index * share : pool->bytes;
  size_t end = begin + share < pool->bytes ? begin + share : pool->bytes;
  if (atomic_load(&pool->work) == WORK_COPY) {
    memcpy(pool->out + begin, pool->in + begin, end - begin);
  } else {
    pool->sums[index] = read_share(pool->in, begin, end);
  }
}

static void *pool_worker(void *argument) {
  host_worker *worker = argument;
  host_pool *pool = worker->pool;
  unsigned seen = worker->seen;
  for (;;) {
    unsigned now;
    while ((now = atomic_load(&pool->generation)) == seen) {
    }
    seen = now;
    if (atomic_load(&pool->work) == WORK_STOP) break;
    do_share(pool, worker->index);
    atomic_fetch_add(&pool->finished, 1u);
  }
  return NULL;
}

/* One call of the pool's work over every thread, the caller's included. */
static void pool_run(host_pool *pool) {
  atomic_store(&pool->finished, 0u);
  atomic_fetch_add(&pool->generation, 1u);
  do_share(pool, 0);
  while (atomic_load(&pool->finished) != (unsigned)pool->threads - 1) {
  }
  uint64_t sum = 0;
  for (int k = 0; k < pool->threads; k++) sum += pool->sums[k];
  limit_sink = sum;
}

/* The host's threads of one round (host_pool), started spinning. The pool
 * lives for one round only: between rounds the device's kernels run, and a
 * spinning thread would take a core from them. 0 when a thread could not
 * be made (then none is left running). */
typedef struct pool_threads {
  pthread_t handles[64];
  host_worker workers[64];
  int started;
} pool_threads;

static int pool_start(host_pool *pool, pool_threads *t) {
  atomic_store(&pool->work, WORK_COPY);
  t->started = 1;
  for (; t->started < pool->threads; t->started++) {
    t->workers[t->started].pool = pool;
    t->workers[t->started].index = t->started;
    /* The pool outlives its threads (one round each): a thread made in a
     * later round must not take the last round's generation for a new
     * call, or its extra run would count in `finished` past the others. */
    t->workers[t->started].seen = atomic_load(&pool->generation);
    if (pthread_create(&t->handles[t->started], NULL, pool_worker, &t->workers[t->started]) != 0)
      break;
  }
  if (t->started == pool->threads) return 1;
  atomic_store(&pool->work, WORK_STOP);
  atomic_fetch_add(&pool->generation, 1u);
  for (int k = 1; k < t->started; k++) pthread_join(t->handles[k], NULL);
  return 0;
}

static void pool_stop(host_pool *pool, pool_threads *t) {
  atomic_store(&pool->work, WORK_STOP);
  atomic_fetch_add(&pool->generation, 1u);
  for (int k = 1; k < t->started; k++) pthread_join(t->handles[k], NULL);
}

/* One timed call of the pool's `work`, in ms. */
static double pool_time(host_pool *pool, int work) {
  atomic_store(&pool->work, work);
  double begin = bench_now_ms();
  pool_run(pool);
  return bench_now_ms() - begin;
}

/* The figures of a round, in bench_limits' order. */
enum { F_MEMCPY, F_COPY, F_READ, F_COPY_BUFFER, F_READ_KERNEL, F_COPY_KERNEL, NUM_FIGURES };

/* One device command (clEnqueueCopyBuffer, or the read or copy kernel) to
 * clFinish, timed into *ms. 0, or 1 after a failure (printed). */
static int time_device(bench_case *c, int figure, double *ms) {
  size_t bytes = c->n * c->type->size;
  double begin = bench_now_ms();
  if (figure == F_COPY_BUFFER) {
    cl_int err = clEnqueueCopyBuffer(c->queue, c->d_in, c->d_out, 0, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(c->queue);
    if (err != CL_SUCCESS) return bench_op_failure(c, OP_COPY_KERNEL, "clEnqueueCopyBuffer", err);
  } else {
    int copy = figure == F_COPY_KERNEL;
    clgpu_status status = bench_enqueue_reference(c, copy, NULL);
    if (status == CLGPU_SUCCESS) status = (clgpu_status)clFinish(c->queue);
    if (status != CLGPU_SUCCESS)
      return bench_op_failure(c, copy ? OP_COPY_KERNEL : OP_READ, "reference kernel", status);
  }
  *ms = bench_now_ms() - begin;
  return 0;
}

int bench_measure_limits(bench_case *c, bench_limits *out) {
  const run_options *o = c->options;
  size_t bytes = c->n * c->type->size;
  memset(out, 0, sizeof *out);
  out->calls = o->repeat > LIMIT_CALLS && !(o->max_time_s > 0) ? o->repeat : LIMIT_CALLS;
  out->warmup = o->warmup < 1 ? 1 : o->warmup; /* at least one: page in the output */
  double *samples = malloc(sizeof(double) * (size_t)out->calls * NUM_FIGURES);
  if (!samples) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }
  size_t most = (bytes + SHARE_MIN - 1) / SHARE_MIN;
  out->threads = (size_t)bench_cpu_threads() < most ? bench_cpu_threads() : (int)most;
  if (out->threads < 1) out->threads = 1;
  out->host_counts = (c->device->type & CL_DEVICE_TYPE_CPU) != 0;

  host_pool pool;
  memset(&pool, 0, sizeof pool);
  atomic_init(&pool.generation, 0u);
  atomic_init(&pool.finished, 0u);
  atomic_init(&pool.work, WORK_COPY);
  pool.in = c->host_in;
  pool.out = c->cpu_out;
  pool.bytes = bytes;
  pool.threads = out->threads;
  int host_ok = 1;
  /* Rounds of every figure in turn, so that the machine's drift meets each
   * figure alike and the ratios between them hold (bench_row_limit). */
  for (int call = 0; call < out->warmup + out->calls; call++) {
    double ms[NUM_FIGURES] = {0};
    double begin = bench_now_ms();
    memcpy(c->cpu_out, c->host_in, bytes);
    ms[F_MEMCPY] = bench_now_ms() - begin;
    pool_threads threads;
    if (host_ok && pool_start(&pool, &threads)) {
      ms[F_COPY] = pool_time(&pool, WORK_COPY);
      ms[F_READ] = pool_time(&pool, WORK_READ);
      pool_stop(&pool, &threads);
    } else {
      host_ok = 0; /* no figure: NaN makes the summaries invalid */
      ms[F_COPY] = ms[F_READ] = NAN;
    }
    for (int f = F_COPY_BUFFER; f < NUM_FIGURES; f++) {
      if (time_device(c, f, &ms[f]) != 0) {
        free(samples);
        return 1;
      }
    }
    if (call < out->warmup) continue;
    for (int f = 0; f < NUM_FIGURES; f++)
      samples[(size_t)f * (size_t)out->calls + (size_t)(call - out->warmup)] = ms[f];
  }
  timing *figures[NUM_FIGURES] = {&out->host_memcpy, &out->host_copy,   &out->host_read,
                                  &out->copy_buffer, &out->read_kernel, &out->copy_kernel};
  for (int f = 0; f < NUM_FIGURES; f++) {
    *figures[f] = bench_summarize(samples + (size_t)f * (size_t)out->calls, out->calls);
  }
  free(samples);

  out->host_memcpy_gbps = bench_gbps(2.0 * (double)bytes, &out->host_memcpy);
  out->host_copy_gbps = bench_gbps(2.0 * (double)bytes, &out->host_copy);
  out->host_read_gbps = bench_gbps((double)bytes, &out->host_read);
  out->copy_buffer_gbps = bench_gbps(2.0 * (double)bytes, &out->copy_buffer);
  out->read_kernel_gbps = bench_gbps((double)bytes, &out->read_kernel);
  out->copy_kernel_gbps = bench_gbps(2.0 * (double)bytes, &out->copy_kernel);
  out->measured = 1;
  return 0;
}

/* Whether the op's traffic is a read (reduce, count_if, findall, read) rather
 * than a read and a write. */
static int reads_only(int op) { return op == OP_READ || bench_op_table[op].reference == OP_READ; }

double bench_row_limit(const result *row, double kernel_gbps, const char **source) {
  const bench_limits *l = &row->limits;
  *source = "";
  int reads = reads_only(row->op);
  const char *kernel_name = reads ? "read kernel" : "copy kernel";
  /* The case's figures beside its kernel's, measured in the same rounds (all
   * 0 when the case measured none: then the row's kernel alone). */
  struct {
    const char *name;
    double gbps;
  } candidates[4];
  int count = 0;
  double kernel_then = reads ? l->read_kernel_gbps : l->copy_kernel_gbps;
  candidates[count].name = kernel_name;
  candidates[count++].gbps = kernel_then;
  if (reads && l->host_counts) {
    candidates[count].name = "host read";
    candidates[count++].gbps = l->host_read_gbps;
  }
  if (!reads) {
    candidates[count].name = "CopyBuffer";
    candidates[count++].gbps = l->copy_buffer_gbps;
    if (l->host_counts) {
      candidates[count].name = "host memcpy";
      candidates[count++].gbps = l->host_memcpy_gbps;
      candidates[count].name = "host copy";
      candidates[count++].gbps = l->host_copy_gbps;
    }
  }
  double best = NAN;
  for (int k = 0; k < count; k++) {
    if (isfinite(candidates[k].gbps) && !(candidates[k].gbps <= best)) {
      best = candidates[k].gbps;
      *source = candidates[k].name;
    }
  }
  /* The row's own kernel figure (timed beside its calls) scaled by how far
   * the best figure was above the kernel in the case's rounds: the
   * machine's drift between the case's start and the row cancels. */
  if (isfinite(kernel_gbps) && kernel_then > 0 && isfinite(best)) {
    return kernel_gbps * (best / kernel_then);
  }
  *source = isfinite(kernel_gbps) ? kernel_name : "";
  return kernel_gbps;
}
