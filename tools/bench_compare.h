/* clgpu-bench compare: `run`'s operations on every device present, each
 * device measured by `clgpu-bench run` in a child process of its own, as one
 * table with a column per device (bench_compare.c). */
#ifndef CLGPU_BENCH_COMPARE_H
#define CLGPU_BENCH_COMPARE_H

/* The subcommand, with the arguments after "compare"; `self` is the tool's
 * argv[0] (the children are this executable, started again). Returns the
 * exit status: 0 when every device measured every operation and every
 * result was right; 1 when a device failed, timed out or gave a wrong result
 * (the table is printed all the same, the failed cells marked); 2 after a
 * usage error (one line on stderr). */
int bench_command_compare(const char *self, int argc, char **argv);

#endif
