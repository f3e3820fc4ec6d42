/* clgpu-bench run's first calls, each side in a child process of its own
 * (bench_first_call.c). */
#ifndef CLGPU_BENCH_FIRST_CALL_H
#define CLGPU_BENCH_FIRST_CALL_H

#include "bench_case.h"

/* The internal subcommand that `run` starts twice per (operation, type). */
#define FIRST_CALL_CHILD "run-first-call"

/* The tool itself, for the child processes (main sets it). */
extern const char *bench_self;

/* The child: argv after FIRST_CALL_CHILD; its exit status. */
int bench_command_first_call_child(int argc, char **argv);

/* The first calls run measures with these options (at most NUM_OPS *
 * NUM_HOST_TYPES) into out: their count. */
size_t bench_plan_first_calls(const run_options *o, first_call *out);

/* Measure fc's cold and warm sides, each in a child process: 0, or 1 after
 * a failure (printed). */
int bench_measure_first_call(const run_options *o, first_call *fc, const char *progress);

#endif
