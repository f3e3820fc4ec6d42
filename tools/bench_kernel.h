/* clgpu-bench kernel: build a user's OpenCL C file and time one of its
 * kernels over buffers made from argument specs (bench_kernel.c). */
#ifndef CLGPU_BENCH_KERNEL_H
#define CLGPU_BENCH_KERNEL_H

/* The subcommand, with the arguments after "kernel". Returns the exit
 * status: 0 when the kernel ran and was timed; 1 when the program does not
 * build (the compiler's log on stderr), has no such kernel, or OpenCL
 * fails; 2 after a usage error (one line on stderr). */
int bench_command_kernel(int argc, char **argv);

#endif
