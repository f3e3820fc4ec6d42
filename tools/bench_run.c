/* clgpu-bench run (bench_run.h): the measurement loop over the plan's types,
 * sizes and operations, then the first calls, then the report. */
#include "bench_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_boost.h"
#include "bench_case.h"
#include "bench_child.h"
#include "bench_first_call.h"
#include "bench_limit.h"
#include "bench_measure.h"
#include "bench_output.h"
#include "bench_report.h"

/* --summary-csv: the report again, as CSV, into `path`. 0, or 1 after a
 * failure (printed). */
static int write_summary_csv(const run_report *report, const char *path) {
  bench_output file;
  if (bench_output_open(&bench_run_command, "--summary-csv", path, &file) != 0) return 1;
  run_options csv = *report->options;
  csv.format = FORMAT_CSV;
  run_report copy = *report;
  copy.options = &csv;
  int failed = bench_output_begin(&file, "clgpu-bench run: ");
  if (!failed) {
    bench_print_report(&copy);
    failed = bench_output_end(&file, "clgpu-bench run: ");
  }
  bench_output_discard(&file);
  return failed;
}

int bench_command_run(int argc, char **argv) {
  run_options options;
  int parsed = bench_parse_run_options(argc, argv, &options);
  if (parsed < 0) return 0;
  if (parsed > 0) return parsed;
  /* --device: checked, and put in CLGPU_DEVICE for the context below and
   * the first calls' children, before any work. (--all-devices is not run
   * here: bench_command_run_all_devices, bench_compare.c.) */
  int device_status = bench_use_device(&bench_run_command, options.device);
  if (device_status != 0) return device_status;
  const time_t started = time(NULL);
  const double started_ms = bench_now_ms();

  /* The report's and the plot's files, before any work: a path that cannot
   * be written is a usage error now, not after the measuring. */
  bench_output output;
  int unwritable = bench_output_open(&bench_run_command, "--output", options.output, &output);
  if (!unwritable && options.plot)
    unwritable = bench_check_writable(&bench_run_command, "--plot", options.plot);
  if (unwritable) {
    bench_output_discard(&output);
    return unwritable;
  }

  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) {
    bench_output_discard(&output);
    return bench_report_failure("creating a context", status);
  }
  bench_test_change_environment();
  const clgpu_device_info *device = clgpu_context_device_info(context);

  /* What cannot run on this device is a usage error, found before any work. */
  for (size_t t = 0; t < options.num_types; t++) {
    const host_type *type = &bench_host_types[options.types[t]];
    if (type->type == CLGPU_TYPE_DOUBLE && !device->has_fp64) {
      clgpu_context_destroy(context);
      bench_output_discard(&output);
      return bench_usage_error(&bench_run_command,
                               "--types: double needs cl_khr_fp64, which %s lacks", device->name);
    }
    for (size_t s = 0; s < options.num_sizes; s++) {
      if ((cl_ulong)options.sizes[s] * type->size > device->max_mem_alloc_size) {
        char text[160];
        snprintf(text, sizeof text, "%zu elements of %s exceed the device's largest buffer",
                 options.sizes[s], type->name);
        clgpu_context_destroy(context);
        bench_output_discard(&output);
        return bench_usage_error(&bench_run_command, "--sizes: %s", text);
      }
    }
  }

  /* Types an operation does not support are skipped, with a note. */
  for (int op = 0; op < NUM_OPS && options.types_given; op++) {
    if (!options.ops[op]) continue;
    for (size_t t = 0; t < options.num_types; t++) {
      if (!(bench_op_table[op].supported_types & (1u << options.types[t]))) {
        fprintf(stderr, "clgpu-bench run: note: %s runs at float and uint32 only; not at %s\n",
                bench_op_table[op].name, bench_host_types[options.types[t]].name);
      }
    }
  }

  bench_progress_enabled = !options.quiet && isatty(STDERR_FILENO);
  size_t total = bench_count_runs(&options);
  result *rows = calloc(total ? total : 1, sizeof *rows);
  double *samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *events = malloc(sizeof(double) * (size_t)options.repeat);
  double *reference_samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *peer_samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *peer_events = malloc(sizeof(double) * (size_t)options.repeat);
  sample_buffers buffers = {samples, events, reference_samples, peer_samples, peer_events};
  run_report report = {&options, device, rows, 0, 0, NULL, NULL, 0, 0, 0};
#ifdef CLGPU_BENCH_BOOST
  report.boost_built = 1;
  report.boost_version = bench_boost_version();
#endif
  report.started = started;
  int failed = !rows || !samples || !events || !reference_samples || !peer_samples || !peer_events;
  if (failed) fprintf(stderr, "clgpu-bench run: out of host memory\n");

  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = device;
  c.options = &options;
  c.cpu_shape = options.shape == SHAPE_CPU ||
                (options.shape == SHAPE_AUTO && (device->type & CL_DEVICE_TYPE_CPU));
  for (size_t t = 0; t < options.num_types && !failed; t++) {
    for (size_t s = 0; s < options.num_sizes && !failed; s++) {
      c.type = &bench_host_types[options.types[t]];
      c.n = options.sizes[s];
      int runs = 0;
      for (int op = 0; op < NUM_OPS; op++)
        runs |= bench_op_runs(&options, op, options.types[t], c.n);
      if (!runs) continue;
      char n_label[32], prefix[96];
      snprintf(prefix, sizeof prefix, "clgpu-bench: [%zu/%zu] %s %s", report.num_rows + 1, total,
               c.type->name, bench_size_label(c.n, n_label, sizeof n_label));
      bench_progress("%s: preparing data", prefix);
      failed = bench_prepare_case(&c);
      if (!failed) {
        bench_progress("%s: measuring the memory limits", prefix);
        failed = bench_measure_limits(&c, &c.limits);
      }
      for (int op = 0; op < NUM_OPS && !failed; op++) {
        if (!bench_op_runs(&options, op, options.types[t], c.n)) continue;
        snprintf(prefix, sizeof prefix, "clgpu-bench: [%zu/%zu] %s %s", report.num_rows + 1, total,
                 c.type->name, bench_size_label(c.n, n_label, sizeof n_label));
        result *row = &rows[report.num_rows];
        c.deadline_ms = options.max_time_s > 0 ? started_ms + options.max_time_s * 1e3 : 0;
        c.rows_left = total - report.num_rows;
        failed = bench_measure_op(&c, op, row, &buffers, prefix);
        if (failed) break;
        report.num_rows++;
      }
      bench_release_case(&c);
    }
  }
  /* Then the first calls, each in a child process of its own. */
  first_call *first_calls = NULL;
  if (!failed && options.first_call != FIRST_CALL_OFF) {
    first_calls = calloc(NUM_OPS * NUM_HOST_TYPES, sizeof *first_calls);
    if (!first_calls) {
      fprintf(stderr, "clgpu-bench run: out of host memory\n");
      failed = 1;
    }
    size_t planned = first_calls ? bench_plan_first_calls(&options, first_calls) : 0;
    for (size_t k = 0; k < planned && !failed; k++) {
      char progress[96];
      snprintf(progress, sizeof progress, "clgpu-bench: first calls [%zu/%zu]", k + 1, planned);
      bench_progress("%s %s %s", progress, bench_op_table[first_calls[k].op].name,
                     first_calls[k].type->name);
      failed = bench_measure_first_call(&options, &first_calls[k], progress);
      if (!failed) report.num_first_calls++;
    }
    report.first_calls = first_calls;
  }
  bench_progress_clear();
  int output_failed = 0;
  if (report.num_rows > 0) {
    report.elapsed_s = (bench_now_ms() - started_ms) * 1e-3;
    output_failed = bench_output_begin(&output, "clgpu-bench run: ");
    if (!output_failed) {
      bench_print_report(&report);
      output_failed = bench_output_end(&output, "clgpu-bench run: ");
    }
  }
  bench_output_discard(&output); /* no report: a file made for it is removed */
  if (report.num_rows > 0 && options.summary_csv)
    output_failed |= write_summary_csv(&report, options.summary_csv);
  /* After the report: a plot that cannot be written (its path was checked
   * before the run) fails the run (status 1). */
  int plot_failed = options.plot && bench_write_plot(&report, options.plot);
  for (size_t k = 0; k < total; k++) {
    free(rows ? rows[k].wall_samples : NULL);
    free(rows ? rows[k].event_samples : NULL);
  }
  free(rows);
  free(samples);
  free(events);
  free(reference_samples);
  free(peer_samples);
  free(peer_events);
  free(first_calls);
  clgpu_context_destroy(context);
  if (failed) fprintf(stderr, "clgpu-bench run: FAILED (see above)\n");
  return failed || plot_failed || output_failed;
}
