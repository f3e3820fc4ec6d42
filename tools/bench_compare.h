/* clgpu-bench compare: `run`'s operations on every device present, each
 * device measured by `clgpu-bench run` in a child process of its own, as one
 * table with a column per device (bench_compare.c). */
#ifndef CLGPU_BENCH_COMPARE_H
#define CLGPU_BENCH_COMPARE_H

#include "bench_plan.h"

/* The subcommand, with the arguments after "compare"; `self` is the tool's
 * argv[0] (the children are this executable, started again). Returns the
 * exit status: 0 when every device measured every operation and every
 * result was right; 1 when a device failed, timed out or gave a wrong result
 * (the table is printed all the same, the failed cells marked); 2 after a
 * usage error (one line on stderr). */
int bench_command_compare(const char *self, int argc, char **argv);

/* `clgpu-bench run --all-devices`: argv holds run's arguments (after
 * "run"), `options` them parsed (bench_parse_run_options). Run on every
 * device in turn, each in a child process (this tool, started again as
 * `run` with the same options but --all-devices and --output, on
 * CLGPU_DEVICE=P:D); each child's report in --format's form as that
 * device's section, then a summary with a column per device as compare's
 * table (or JSON) has it; with --output all of it in the file. Returns the
 * exit status: 0 when every device measured and checked every row; 1 when
 * one failed (the others are still run); 2 after a usage error (--device or
 * --plot with --all-devices, and run's own). */
int bench_command_run_all_devices(const char *self, int argc, char **argv,
                                  const run_options *options);

#endif
