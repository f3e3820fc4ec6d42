/* clgpu-bench run's CPU baselines (bench_cpu.c). */
#ifndef CLGPU_BENCH_CPU_H
#define CLGPU_BENCH_CPU_H

#include "bench_case.h"

/* The threads of the CPU baselines that run on all threads: one per core,
 * at most 64. */
int bench_cpu_threads(void);

/* The CPU baseline of `op` on the case over `repeat` timed calls (samples:
 * as many entries) after `warmup` untimed, at least one. */
timing bench_time_cpu(bench_case *c, int op, int repeat, int warmup, double *samples);

/* A sort baseline (BASE_*) over `repeat` calls, timed once per case. */
timing bench_time_cpu_sort(bench_case *c, int base, int repeat, double *samples);

#endif
