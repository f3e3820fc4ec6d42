/* What clgpu-bench's subcommands share: helpers defined in clgpu_bench.c and
 * used by the subcommands in files of their own (bench_kernel.c). */
#ifndef CLGPU_BENCH_COMMON_H
#define CLGPU_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <clgpu/clgpu.h>

/* A median with its min and max, in ms; valid is 0 when a figure is missing. */
typedef struct bench_timing {
  int valid;
  double median, min, max;
} bench_timing;

/* The monotonic clock, in ms. */
double bench_now_ms(void);

/* Print "clgpu-bench: WHAT: STATUS_NAME (code): description" and clgpu's
 * detail message on stderr; returns 1, the exit status of a failure. */
int bench_report_failure(const char *what, clgpu_status status);

/* "GPU", "accelerator", "CPU" or "other". */
const char *bench_device_type_name(cl_device_type type);

/* "16M" -> 16777216 (suffixes K, M, G of 1024): 0, or -1 when malformed,
 * zero or 4G or more. */
int bench_parse_size(const char *text, size_t *out);

/* A decimal count from `minimum` to 1000000: 0, or -1. */
int bench_parse_count(const char *text, int minimum, int *out);

/* The next number of a SplitMix64 sequence (the tool's random data). */
uint64_t bench_splitmix64(uint64_t *state);

/* The median, min and max of count figures (sorts `values`); not valid when
 * count is 0 or a figure is negative or NaN. */
bench_timing bench_summarize(double *values, int count);

/* A profiling event's time from CL_PROFILING_COMMAND_START to _END in ms,
 * NaN when the event has no profiling information or its device no
 * profiling timer (CL_DEVICE_PROFILING_TIMER_RESOLUTION 0). */
double bench_event_ms(cl_event event);

/* JSON and CSV output: a string, quoted and escaped; a number, or null (JSON)
 * and nothing (CSV) when it is not finite. */
void bench_json_string(FILE *out, const char *text);
void bench_json_number(FILE *out, double value);
void bench_csv_string(FILE *out, const char *text);
void bench_csv_number(FILE *out, double value);

/* "NAME": {"median": ..., "min": ..., "max": ...}, or "NAME": null. */
void bench_json_timing(FILE *out, const char *name, const bench_timing *t);

/* The "device" object of the tool's JSON output (no trailing comma). */
void bench_json_device(FILE *out, const clgpu_device_info *device);

/* The progress line on stderr, shown only when bench_progress_enabled is set
 * (the subcommands set it when stderr is a terminal and --quiet is not
 * given); bench_progress_clear erases it before other output. */
extern int bench_progress_enabled;
void bench_progress(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void bench_progress_clear(void);

/* The device's read bandwidth, measured with `run`'s read kernel (its shape
 * chosen as `run --reference-shape auto` does) over uint32 data of `bytes`
 * bytes (rounded up to 4, capped at the device's largest buffer): `warmup`
 * untimed calls, then `repeat` timed ones. *event: the profiling events'
 * times, *wall: from the call to the end of clFinish, *measured_bytes: the
 * bytes it read. 0, or 1 after a failure (printed on stderr). */
int bench_measure_read(clgpu_context *context, size_t bytes, int repeat, int warmup,
                       bench_timing *event, bench_timing *wall, size_t *measured_bytes);

/* What `clgpu-bench run` with these options (run's own, as it takes them
 * after "run") would measure, without opening a device: one entry per
 * (operation, type, size), in the order run measures them (by type, then
 * size, then operation). */
typedef struct bench_plan_entry {
  const char *op;   /* run's name of the operation, as --ops takes it */
  const char *type; /* as --types takes it */
  size_t n;         /* elements, as --sizes takes it */
  char shape[32];   /* run's "shape" column: "1M", or "1024x1024" for the 2-D ops */
  int op_index;     /* the operation's place in run's table (its order of rows) */
  int reference;    /* a bandwidth reference of run (read, copy_kernel), not clgpu's */
  int sort;         /* a sort: Melem/s are keys sorted per second */
} bench_plan_entry;

/* 0 with *entries (malloc'ed; free it) and *count; -1 after --help (run's
 * help printed); 2 after a usage error (printed on stderr); 1 when out of
 * host memory (printed). */
int bench_run_plan(int argc, char **argv, bench_plan_entry **entries, size_t *count);

/* Remove `path` and everything under it (a folder clgpu-bench made), without
 * following links (clgpu_bench.c). */
void bench_remove_tree(const char *path);

#endif
