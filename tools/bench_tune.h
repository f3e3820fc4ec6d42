/* clgpu-bench tune (bench_tune.c). */
#ifndef CLGPU_BENCH_TUNE_H
#define CLGPU_BENCH_TUNE_H

/* The tune subcommand over its arguments (after "tune"), `self` the path
 * this tool was started by (its children run it again): its exit status. */
int bench_command_tune(const char *self, int argc, char **argv);

#endif
