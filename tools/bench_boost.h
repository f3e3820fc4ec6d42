/* The Boost.Compute peer of `clgpu-bench run`: Boost.Compute's algorithms
 * on the clgpu context's own cl_context and queue, over the same buffers,
 * timed the way clgpu-bench times clgpu (wall clock around the call and a
 * queue finish). Implemented in bench_boost.cpp, the project's only C++,
 * which the build compiles only when the Meson feature `boost_compute` finds
 * boost/compute.hpp; bench_measure.c and bench_run.c then see
 * CLGPU_BENCH_BOOST defined. This header itself needs no Boost. */
#ifndef CLGPU_BENCH_BOOST_H
#define CLGPU_BENCH_BOOST_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Boost.Compute's counterparts of the benchmarked operations. */
typedef enum bench_boost_op {
  BENCH_BOOST_NONE = 0,
  BENCH_BOOST_REDUCE,         /* reduce(plus) into output[0] */
  BENCH_BOOST_INCLUSIVE_SCAN, /* inclusive_scan(plus) into output[0..n) */
  BENCH_BOOST_COPY_IF,        /* copy_if(predicate): the selected values (not their
                                 indices) into output, their number into *count */
  BENCH_BOOST_COUNT_IF,       /* count_if(predicate) into *count */
  BENCH_BOOST_COPY,           /* copy into output[0..n) */
  BENCH_BOOST_REVERSE_COPY,   /* reverse_copy into output[0..n) */
  /* Sorts (bench_boost_sort): */
  BENCH_BOOST_SORT,         /* sort(keys) in the natural order (less<T>) */
  BENCH_BOOST_SORT_BY_KEY,  /* sort_by_key(keys, uint values) */
  BENCH_BOOST_SORT_COMPARE, /* sort(keys, comparator): an OpenCL C function "a < b" */
  BENCH_BOOST_ARGSORT,      /* copy the keys, iota the values, sort_by_key: argsort */
  /* sort of uint64 keys (segment << 32 | a 32-bit key's order image), what
   * a Boost.Compute user writes for a segmented sort: bench_boost_sort with
   * key_type CLGPU_TYPE_UINT64 */
  BENCH_BOOST_SEGMENTED_SORT,
  /* By key (bench_boost_by_key): */
  BENCH_BOOST_REDUCE_BY_KEY, /* reduce_by_key(uint keys, values), plus and equal_to */
  BENCH_BOOST_UNIQUE,        /* unique_copy(uint keys): the run keys, their number */
  /* Partition (bench_boost_partition): */
  BENCH_BOOST_STABLE_PARTITION, /* stable_partition(predicate), in place */
} bench_boost_op;

/* Boost's version, "1.74.0" for example. */
const char *bench_boost_version(void);

/* Run `op` over the n elements of `type` (CLGPU_TYPE_INT32, CLGPU_TYPE_UINT32,
 * CLGPU_TYPE_UINT64, CLGPU_TYPE_FLOAT or CLGPU_TYPE_DOUBLE) at the start of `input`,
 * writing to `output` (n elements) where the operation writes an array:
 * `warmup` untimed calls (they build Boost's kernels), then `repeat` timed
 * ones; wall_ms[k] receives the wall time of timed call k, from before the
 * call to after clFinish-equivalent queue.finish(). `predicate` is an
 * OpenCL C expression over `x` (copy_if, count_if). *count receives the last
 * call's count (copy_if, count_if; 0 otherwise). Returns 0, or 1 with what
 * went wrong (Boost's exception) in `error`. */
int bench_boost_run(cl_command_queue queue, bench_boost_op op, clgpu_type type,
                    const char *predicate, cl_mem input, cl_mem output, size_t n, int warmup,
                    int repeat, double *wall_ms, uint64_t *count, char *error, size_t error_size);

/* Run the sort `op` over the n keys of `key_type` (as bench_boost_run's
 * types): `warmup` untimed calls, then `repeat` timed ones, each after a
 * refill that is not timed: keys_source's n keys are copied into `keys` and,
 * for BENCH_BOOST_SORT_BY_KEY, values_source's n uints into `values`, and
 * the queue finished. wall_ms[k] receives the wall time of timed call k,
 * from before the call to after queue.finish(). BENCH_BOOST_ARGSORT is what
 * a Boost.Compute user writes for clgpu_sort_permutation and is all timed:
 * copy keys_source into `keys`, iota into `values`, sort_by_key(keys,
 * values); `values` then holds the permutation. After the last call `keys`
 * holds the sorted keys (and `values` the values or permutation). Which
 * algorithm Boost.Compute picks is its own choice: radix_sort (and
 * radix_sort_by_key) for the natural order on GPUs, merge_sort_on_gpu for a
 * comparator on GPUs, merge_sort_on_cpu (merge_sort_by_key_on_cpu) on any
 * other device. BENCH_BOOST_SEGMENTED_SORT is BENCH_BOOST_SORT over the
 * packed uint64 keys (key_type CLGPU_TYPE_UINT64). Returns 0, or 1 with
 * what went wrong in `error`. */
int bench_boost_sort(cl_command_queue queue, bench_boost_op op, clgpu_type key_type,
                     cl_mem keys_source, cl_mem keys, cl_mem values_source, cl_mem values, size_t n,
                     int warmup, int repeat, double *wall_ms, char *error, size_t error_size);

/* Run the by-key `op` over n uint32 `keys` and n `values` of `value_type`
 * (as bench_boost_run's types): `warmup` untimed calls, then `repeat` timed
 * ones, wall_ms[k] as bench_boost_run's. BENCH_BOOST_REDUCE_BY_KEY writes
 * each run's key to `out_keys` and its sum (plus) to `out_values`, n
 * elements of room each, and *count receives the number of runs the last
 * call wrote. BENCH_BOOST_UNIQUE writes each run's key to `out_keys` and
 * reads no values (value_type still picks the instantiation). Returns 0, or 1 with what went wrong
 * in `error`. */
int bench_boost_by_key(cl_command_queue queue, bench_boost_op op, clgpu_type value_type,
                       cl_mem keys, cl_mem values, cl_mem out_keys, cl_mem out_values, size_t n,
                       int warmup, int repeat, double *wall_ms, uint64_t *count, char *error,
                       size_t error_size);

/* Boost.Compute's stable_partition by `predicate` (an OpenCL C expression
 * over `x`, as bench_boost_run's) over the n elements of `type` (as
 * bench_boost_run's types) in `work`: `warmup` untimed calls, then `repeat`
 * timed ones, each after a refill that is not timed (source's n elements
 * copied into `work` and the queue finished); wall_ms[k] as
 * bench_boost_run's. After the last call `work` holds the partition and
 * *count the number of selected elements. Returns 0, or 1 with what went
 * wrong in `error`. */
int bench_boost_partition(cl_command_queue queue, clgpu_type type, const char *predicate,
                          cl_mem source, cl_mem work, size_t n, int warmup, int repeat,
                          double *wall_ms, uint64_t *count, char *error, size_t error_size);

/* The Boost.Compute routine that `op` (a sort) runs on a device of `type`
 * (CL_DEVICE_TYPE_*), for the notes: "radix_sort", "merge_sort_on_cpu", ... */
const char *bench_boost_sort_algorithm(bench_boost_op op, cl_device_type type);

#ifdef __cplusplus
}
#endif

#endif
