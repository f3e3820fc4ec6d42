/* The Boost.Compute peer of `clgpu-bench run`: Boost.Compute's algorithms
 * on the clgpu context's own cl_context and queue, over the same buffers,
 * timed the way clgpu-bench times clgpu (wall clock around the call and a
 * queue finish). Implemented in bench_boost.cpp, the project's only C++,
 * which the build compiles only when the Meson feature `boost_compute` finds
 * boost/compute.hpp; clgpu_bench.c then sees CLGPU_BENCH_BOOST defined. This
 * header itself needs no Boost. */
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
} bench_boost_op;

/* Boost's version, "1.74.0" for example. */
const char *bench_boost_version(void);

/* Run `op` over the n elements of `type` (CLGPU_INT32, CLGPU_UINT32,
 * CLGPU_UINT64, CLGPU_FLOAT or CLGPU_DOUBLE) at the start of `input`,
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

#ifdef __cplusplus
}
#endif

#endif
