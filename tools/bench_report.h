/* clgpu-bench run's output (bench_report.c): table, CSV, JSON and plot. */
#ifndef CLGPU_BENCH_REPORT_H
#define CLGPU_BENCH_REPORT_H

#include <time.h>

#include "bench_case.h"

typedef struct run_report {
  const run_options *options;
  const clgpu_device_info *device;
  result *rows;
  size_t num_rows;
  int boost_built;
  const char *boost_version;
  first_call *first_calls; /* measured, in bench_op_table's order */
  size_t num_first_calls;
  time_t started;   /* when the run started (the JSON's timestamp) */
  double elapsed_s; /* from then to the report */
} run_report;

/* The schema_version of run's JSON (docs/bench-json.md): raised only when a
 * field is removed or changes its meaning; fields may be added within it. */
#define BENCH_RUN_SCHEMA_VERSION 1

/* The report in --format's form on stdout. */
void bench_print_report(const run_report *report);

/* --plot: GB/s against n as SVG into path. 0, or 1 after a failure
 * (printed). */
int bench_write_plot(const run_report *report, const char *path);

#endif
