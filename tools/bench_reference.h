/* The device's own read and copy bandwidth, measured with plain kernels
 * (bench_reference.c): run's references, and the read bandwidth alone for
 * the other subcommands. */
#ifndef CLGPU_BENCH_REFERENCE_H
#define CLGPU_BENCH_REFERENCE_H

#include <stddef.h>

#include <clgpu/clgpu.h>

#include "bench_common.h"

struct bench_case;

/* Enqueue the case's read kernel (copy 0) or copy kernel (copy 1) over its
 * d_in, in the case's shape (bench_case.cpu_shape). */
clgpu_status bench_enqueue_reference(struct bench_case *c, int copy, cl_event *event);

/* The device's read bandwidth, measured with `run`'s read kernel (its shape
 * chosen as `run --reference-shape auto` does) over uint32 data of `bytes`
 * bytes (rounded up to 4, capped at the device's largest buffer): `warmup`
 * untimed calls, then `repeat` timed ones. *event: the profiling events'
 * times, *wall: from the call to the end of clFinish, *measured_bytes: the
 * bytes it read. 0, or 1 after a failure (printed on stderr). */
int bench_measure_read(clgpu_context *context, size_t bytes, int repeat, int warmup,
                       bench_timing *event, bench_timing *wall, size_t *measured_bytes);

#endif
