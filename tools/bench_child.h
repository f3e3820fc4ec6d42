/* Child processes of clgpu-bench (bench_child.c): this tool started again
 * with its output collected, a timeout, and a process group killed with it
 * (compare's children), and a child's environment. */
#ifndef CLGPU_BENCH_CHILD_H
#define CLGPU_BENCH_CHILD_H

#include <stddef.h>

/* What a child wrote on one stream, NUL-terminated, kept up to `limit`. */
typedef struct bench_child_stream {
  char *text;
  size_t length, capacity, limit;
} bench_child_stream;

typedef struct bench_child_result {
  bench_child_stream out, err;
  int started; /* 0: it could not be started (start_error) */
  int start_error;
  int timed_out; /* killed after the timeout */
  int exited, exit_status, signal;
  int lost; /* waitpid failed: how it ended is unknown */
  double seconds;
} bench_child_result;

/* Keep a copy of the environment as the process found it; call first thing
 * in main. The children's environment (bench_child_environment) takes each
 * variable not named CLGPU_* from this copy: an OpenCL implementation may
 * change the environment of the process that loads it, and POCL 5.0 sets
 * OCL_ICD_FILENAMES=libpocl.so.2, which made the ICD loader of every child
 * load POCL alone (on the H200 machine the tune's and first calls'
 * children found no NVIDIA device). */
void bench_environment_snapshot(void);

/* For the tests: CLGPU_BENCH_TEST_SETENV=NAME=VALUE sets NAME to VALUE in
 * this process, as an OpenCL implementation may do once loaded; called right
 * after `run` and `tune` made their context. The children must not see it
 * (test_bench.py sets OCL_ICD_VENDORS to a folder that does not exist). */
void bench_test_change_environment(void);

/* The environment of a child: the one the process started with (after
 * bench_environment_snapshot; else the current one), with the CLGPU_
 * variables as they are now, CLGPU_DEVICE=device when device is not NULL and
 * POCL_CACHE_DIR=pocl_dir when pocl_dir is not NULL. NULL
 * when out of memory; free the array and its first *owned entries. */
char **bench_child_environment(const char *device, const char *pocl_dir, size_t *owned);

/* Run this tool again with argv (argv[0] included) on `device`, stdin from
 * /dev/null, stdout and stderr collected into *r, in a new process group
 * that is killed (SIGKILL) when it runs longer than timeout_s (or when this
 * process is interrupted, after bench_child_install_signal_handlers). */
void bench_child_run(const char *self, char **argv, const char *device, const char *pocl_dir,
                     double timeout_s, bench_child_result *r);
void bench_child_install_signal_handlers(void);

/* Free what *r holds. */
void bench_child_result_free(bench_child_result *r);

/* Started, ended in time and exited with status 0. */
int bench_child_succeeded(const bench_child_result *r);

/* Why a child failed, in one line into out: what happened, then the first
 * line of its stderr that this tool wrote, with the detail line after it,
 * else its last line. */
void bench_child_describe_failure(const bench_child_result *r, const char *what, double timeout_s,
                                  char *out, size_t size);

#endif
