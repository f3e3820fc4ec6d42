/* clgpu-bench's low layer (bench_common.c), which every other file of the
 * tool may use and which uses none of them: the clock, failure messages,
 * sizes and counts, timings, profiling events, table cells, JSON and CSV
 * output, the progress line. */
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

/* Whether the device of the event's queue has a profiling timer (a
 * resolution above 0 ns): otherwise its events' times are not device times. */
int bench_event_has_device_times(cl_event event);

/* A profiling event's time from CL_PROFILING_COMMAND_START to _END in ms,
 * NaN when the event has no profiling information or its device no
 * profiling timer (CL_DEVICE_PROFILING_TIMER_RESOLUTION 0). */
double bench_event_ms(cl_event event);

/* n as a label: "16M", "64K", or the number when neither divides it;
 * returns buffer. */
const char *bench_size_label(size_t n, char *buffer, size_t size);

/* GB/s: bytes over the timing's median (in ms); NaN when it has none. */
double bench_gbps(double bytes, const bench_timing *t);

/* Table cells: value in printf's `format`, or "n/a" when it is not finite;
 * a timing as "median (min-max)" in ms, with 3 decimals (2 from a max of
 * 10 ms, 1 from 100 ms), or "n/a" when it is not valid. Both return buffer. */
const char *bench_format_or_na(char *buffer, size_t size, const char *format, double value);
const char *bench_timing_text(const bench_timing *t, char *buffer, size_t size);

/* "clgpu VERSION on PLATFORM / DEVICE (TYPE, N compute units)", the first
 * line of a report and the title of a plot (640 bytes hold any); returns
 * buffer. */
const char *bench_device_title(const clgpu_device_info *device, char *buffer, size_t size);

/* JSON and CSV output: a string, quoted and escaped; a number, or null (JSON)
 * and nothing (CSV) when it is not finite. */
void bench_json_string(FILE *out, const char *text);
void bench_json_number(FILE *out, double value);
void bench_csv_string(FILE *out, const char *text);
void bench_csv_number(FILE *out, double value);

/* Reading a CSV (run's output, read back by compare and tune): split a line
 * in place into at most `max` fields (quotes removed, "" unescaped), their
 * count; and a field as a number, NaN when it is empty or not a number. */
size_t bench_split_csv(char *line, char **fields, size_t max);
double bench_csv_value(const char *text);

/* A member of a JSON object: `before` (what comes between it and the member
 * before it, such as ", " or ",\n  "; "{" for the first), then "NAME": and
 * the value. A string member whose text is NULL is null; a timing is
 * {"median": ..., "min": ..., "max": ...}, or null when it is not valid. */
void bench_json_string_member(FILE *out, const char *before, const char *name, const char *text);
void bench_json_number_member(FILE *out, const char *before, const char *name, double value);
void bench_json_timing(FILE *out, const char *before, const char *name, const bench_timing *t);

/* The "device" object of the tool's JSON output (no trailing comma). */
void bench_json_device(FILE *out, const clgpu_device_info *device);

/* The start of a JSON report, a member a line: {"tool": TOOL, the library's
 * version and, unless device is NULL, the "device" object (no trailing
 * comma). */
void bench_json_report_start(FILE *out, const char *tool, const clgpu_device_info *device);

/* The columns every CSV report starts with, and a row's cells in them for
 * the device (no trailing comma). */
#define BENCH_CSV_DEVICE_COLUMNS "library_version,platform,device,device_type,compute_units"
void bench_csv_device(FILE *out, const clgpu_device_info *device);

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

/* Remove `path` and everything under it (a folder clgpu-bench made), without
 * following links. */
void bench_remove_tree(const char *path);

#endif
