/* clgpu-bench run's memory limits (bench_limit.c): how fast the host and the
 * device move the bytes of a case by the plainest means there are, so that
 * each row can show how far it is from the limit and not only from clgpu's
 * own read and copy kernels. */
#ifndef CLGPU_BENCH_LIMIT_H
#define CLGPU_BENCH_LIMIT_H

#include "bench_case.h"

/* Measure the case's limits into *out: 0, or 1 after a failure (printed). */
int bench_measure_limits(bench_case *c, bench_limits *out);

/* A row's limit: the fastest measured way to move its kind of bytes (reads:
 * the read kernel, and the host's read on a CPU device; the others: the copy
 * kernel, clEnqueueCopyBuffer, and the host's memcpy on one thread and on
 * all on a CPU device), as a multiple of the read or copy kernel in the
 * case's rounds, applied to `kernel_gbps`, the kernel's figure timed beside
 * the row's own calls. Sets *source to the fastest one's name ("" when there
 * is none) and returns the limit's GB/s, or NaN. */
double bench_row_limit(const result *row, double kernel_gbps, const char **source);

#endif
