/* clgpu-bench run (bench_run.c). */
#ifndef CLGPU_BENCH_RUN_H
#define CLGPU_BENCH_RUN_H

/* The run subcommand over its arguments (after "run"): its exit status. */
int bench_command_run(int argc, char **argv);

#endif
