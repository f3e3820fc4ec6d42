/* clgpu-bench compare (bench_compare.h): `run`'s operations on every device
 * present, one column per device. Each device is measured by `clgpu-bench
 * run --format csv` started again as a child process with CLGPU_DEVICE set
 * to the device's "P:D" index, in a process group of its own that is killed
 * when it outlives --timeout, so that one implementation's crash, hang or
 * wrong result shows as failed cells of its column and the other columns are
 * still measured. After a child fails, what it left unmeasured is measured
 * again in new children, so that a failed cell is the operation that failed.
 * The parent opens no device: it only lists them (clgpu_device_list).
 *
 * `run --all-devices` is measured here too (bench_command_run_all_devices):
 * run in a child per device with the options as given, each child's report
 * printed as that device's section, and a summary read from the CSV each
 * child writes beside its report (run's internal --summary-csv), printed as
 * compare prints its table or JSON. */
#include "bench_compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

#include "bench_child.h"
#include "bench_common.h"
#include "bench_compare_files.h"
#include "bench_options.h"
#include "bench_output.h"
#include "bench_plan.h"

static const char compare_usage_text[] =
    "usage: clgpu-bench compare [--sizes LIST] [--ops LIST] [--types LIST] [--repeat N]\n"
    "                           [--warmup N] [--shape A] [--devices LIST]\n"
    "                           [--timeout SECONDS] [--no-first-call]\n"
    "                           [--format table|json] [--output FILE] [--quiet]\n"
    "       clgpu-bench compare A.json B.json [--threshold PCT]\n"
    "                           [--format table|csv|json] [--output FILE]\n"
    "\n"
    "Time run's operations on every OpenCL device present (every implementation\n"
    "the ICD loader sees) and print one table with a column per device: for each\n"
    "operation, type and size its throughput (GB/s; the sorts: Melem/s, keys sorted\n"
    "per second; lower_bound: Melem/s, needles searched per second) and its share of\n"
    "that device's own read or copy bandwidth; and per device its read and copy\n"
    "bandwidth, the first call of one kernel (fill.cl's iota over 1M uints) with an\n"
    "empty program cache, and the time its measurement took.\n"
    "\n"
    "Each device is measured in child processes of its own: this tool started\n"
    "again as `clgpu-bench run --format csv --quiet --no-cpu --no-boost\n"
    "--no-first-call` with CLGPU_DEVICE set to the device's index \"P:D\" (see\n"
    "clgpu-bench devices), so that a crash, a hang or a wrong result of one\n"
    "implementation fails only its own column. Every result is checked against the\n"
    "host by that run; a cell the run could not measure or check says FAILED,\n"
    "TIMEOUT or skipped, with a note under the table saying why. After a child\n"
    "fails, the operations it had not measured are measured again in new\n"
    "children (after an exit: the first operation it had not reported is the one\n"
    "that failed; after a timeout: one child per operation), so that each failed\n"
    "cell is an operation that failed. A device whose children time out twice is\n"
    "not measured further.\n"
    "\n"
    "  --sizes LIST      element counts (suffixes K, M, G); default 1M, about three\n"
    "                    minutes for POCL, Intel's CPU runtime and rusticl together\n"
    "                    on a 2-core machine; every operation runs at every size\n"
    "  --ops LIST        run's operations (default: run's default set)\n"
    "  --types LIST      run's types (default: each operation's default types)\n"
    "  --repeat N, --warmup N, --shape A\n"
    "                    as run takes them (see clgpu-bench run --help)\n"
    "  --devices LIST    the devices to compare, by \"P:D\" index (default: all)\n"
    "  --timeout S       the most seconds one child process may run before its\n"
    "                    process group is killed (default 600; a decimal number)\n"
    "  --no-first-call   skip the first-call row\n"
    "  --format F        table (default) or json (every figure and every cell's\n"
    "                    state and message)\n"
    "  --output FILE     write the table or JSON to FILE instead of stdout (opened\n"
    "                    before measuring: one that cannot be written is a usage\n"
    "                    error at once)\n"
    "  --quiet           no progress line on stderr (it is shown only on a terminal)\n"
    "\n"
    "The first call runs in its own child process with clgpu's disk cache in an\n"
    "empty folder and POCL_CACHE_DIR another (removed afterwards), as\n"
    "`clgpu-bench first-call --cache-dir DIR`: context creation (which includes\n"
    "the ICD loader loading every implementation), then building, running and\n"
    "checking iota. Implementations' own compiler caches (Mesa's, for rusticl) are\n"
    "as they are. CLGPU_DEVICE is ignored here: --devices picks the columns.\n"
    "Exit status: 0 when every cell was measured and\n"
    "checked; 1 when one failed (the table is printed all the same); 2 after a\n"
    "usage error.\n";

/* The comparison of two saved run reports (bench_compare_files.c). */
static const char compare_usage_files[] =
    "\n"
    "With two files, A.json and B.json (\"-\": stdin), saved by `clgpu-bench run\n"
    "--format json` (docs/bench-json.md), compare measures nothing: it matches\n"
    "their rows by operation, type, n and shape and prints per row A's and B's\n"
    "median wall time and figure (GB/s; Melem/s for the sorts and lower_bound),\n"
    "B's throughput over A's (B/A), and SLOWER where B/A is below 1 - PCT/100\n"
    "(faster where above 1 + PCT/100); rows in one file only are listed as such.\n"
    "  --threshold PCT   the percentage (a decimal number from 0 to 100) by which\n"
    "                    B may be slower before a row counts (default 5)\n"
    "  --format F        table (default), csv or json\n"
    "  --output FILE     write it to FILE instead of stdout\n"
    "Exit status: 0 when no row is slower in B beyond the threshold; 1 when one is\n"
    "(or the output could not be written); 2 after a usage error: a file that\n"
    "cannot be read, is not JSON, is not a run report with a schema_version this\n"
    "tool reads, or has another schema version than the other file; one file\n"
    "or three; an option that only measuring devices takes.\n";

/* A cell of the table: one plan entry on one device. */
enum { CELL_PENDING, CELL_OK, CELL_FAILED, CELL_TIMEOUT, CELL_SKIPPED };

static const char *const cell_state_names[] = {"pending", "verified", "failed", "timeout",
                                               "skipped"};

typedef struct cell {
  int state;
  double melems, gbps, share, reference_gbps, wall_ms;
  double limit_share, limit_gbps; /* of run's limit (share_of_limit) */
  char algorithm[32];
  char reference_op[16];
  char message[600]; /* why it failed (CELL_FAILED, CELL_TIMEOUT, CELL_SKIPPED) */
  int note;          /* its note under the table; 0: none */
} cell;

typedef struct device_column {
  char index[16];    /* "P:D" */
  char listing[512]; /* "platform / device (CPU)", as clgpu_device_list writes it */
  cell *cells;       /* one per plan entry */
  cell first_call;   /* gbps unused; wall_ms: the first call, reference_gbps unused */
  double context_ms; /* the first-call child's context creation */
  double seconds;    /* the wall time of all its children */
  int children, timeouts;
} device_column;

typedef struct compare_options {
  /* Passed on to run; NULL when not given (sizes: compare's default). */
  const char *ops, *types, *sizes, *repeat, *warmup, *shape;
  const char *devices;
  double timeout_s;
  int first_call;
  int json;
  int quiet;
  const char *output; /* --output: the report's file, or NULL (stdout) */
  /* Comparing two saved run reports instead (bench_compare_files.c): the
   * files, --threshold; --format's value, checked once it is known which
   * formats apply; the first option given that only measuring takes. */
  const char *files[2];
  int num_files;
  const char *threshold;
  const char *format;
  const bench_option *format_option;
  const char *measuring_option;
} compare_options;

#define COMPARE_DEFAULT_SIZES "1M"
#define COMPARE_DEFAULT_TIMEOUT 600.0
/* A device whose children time out this many times is not measured further. */
#define MAX_TIMEOUTS 2

enum {
  COMPARE_QUIET,
  COMPARE_NO_FIRST_CALL,
  COMPARE_OPS,
  COMPARE_TYPES,
  COMPARE_SIZES,
  COMPARE_REPEAT,
  COMPARE_WARMUP,
  COMPARE_SHAPE,
  COMPARE_DEVICES,
  COMPARE_TIMEOUT,
  COMPARE_FORMAT,
  COMPARE_OUTPUT,
  COMPARE_THRESHOLD
};

/* The options passed on to run (--ops to --shape) take no empty value:
 * run's own check of them would see none. */
static const bench_option compare_option_table[] = {
    {"--quiet", "-q", NULL, 0, COMPARE_QUIET},
    {"--no-first-call", NULL, NULL, 0, COMPARE_NO_FIRST_CALL},
    {"--ops", NULL, "a value", 1, COMPARE_OPS},
    {"--types", NULL, "a value", 1, COMPARE_TYPES},
    {"--sizes", NULL, "a value", 1, COMPARE_SIZES},
    {"--repeat", NULL, "a value", 1, COMPARE_REPEAT},
    {"--warmup", NULL, "a value", 1, COMPARE_WARMUP},
    {"--shape", NULL, "a value", 1, COMPARE_SHAPE},
    {"--devices", NULL, "a value", 0, COMPARE_DEVICES},
    {"--timeout", NULL, "a value", 0, COMPARE_TIMEOUT},
    {"--format", NULL, "a value", 0, COMPARE_FORMAT},
    {"--output", NULL, "a value", 1, COMPARE_OUTPUT},
    {"--threshold", NULL, "a value", 0, COMPARE_THRESHOLD},
};

static const char *const compare_help[] = {compare_usage_text, compare_usage_files, NULL};

static const bench_command compare_command =
    BENCH_SUBCOMMAND("compare", compare_option_table, 1, 1, compare_help);

/* ---- run's CSV ---- */

/* The columns compare reads from run's CSV. */
enum {
  COL_OP,
  COL_TYPE,
  COL_N,
  COL_ALGORITHM,
  COL_WALL,
  COL_MELEMS,
  COL_GBPS,
  COL_REFERENCE_OP,
  COL_REFERENCE_GBPS,
  COL_SHARE,
  COL_LIMIT_GBPS,
  COL_LIMIT_SHARE,
  NUM_COLS
};
static const char *const csv_columns[NUM_COLS] = {"op",
                                                  "type",
                                                  "n",
                                                  "algorithm",
                                                  "wall_ms_median",
                                                  "melem_per_s",
                                                  "gb_per_s",
                                                  "reference_op",
                                                  "reference_gb_per_s",
                                                  "share_of_reference",
                                                  "limit_gb_per_s",
                                                  "share_of_limit"};

/* Fill the pending cells of `entries` (indices into plan) that run's CSV in
 * `text` reports. Returns how many it filled; -1 when the header lacks a
 * column. */
static int read_run_csv(char *text, const bench_plan_entry *plan, const size_t *entries,
                        size_t count, cell *cells) {
  if (!text) return 0;
  enum { MAX_FIELDS = 160 };
  char *fields[MAX_FIELDS];
  int where[NUM_COLS];
  char *save = NULL;
  char *line = strtok_r(text, "\n", &save);
  if (!line) return 0;
  size_t header = bench_split_csv(line, fields, MAX_FIELDS);
  for (int c = 0; c < NUM_COLS; c++) {
    where[c] = -1;
    for (size_t f = 0; f < header; f++) {
      if (strcmp(fields[f], csv_columns[c]) == 0) where[c] = (int)f;
    }
    if (where[c] < 0) return -1;
  }
  int filled = 0;
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    size_t got = bench_split_csv(line, fields, MAX_FIELDS);
    if (got != header) continue;
    char *end = NULL;
    unsigned long long n = strtoull(fields[where[COL_N]], &end, 10);
    if (!end || *end) continue;
    for (size_t k = 0; k < count; k++) {
      const bench_plan_entry *e = &plan[entries[k]];
      cell *c = &cells[entries[k]];
      if (c->state != CELL_PENDING || e->n != n || strcmp(e->op, fields[where[COL_OP]]) != 0 ||
          strcmp(e->type, fields[where[COL_TYPE]]) != 0) {
        continue;
      }
      c->state = CELL_OK;
      c->wall_ms = bench_csv_value(fields[where[COL_WALL]]);
      c->melems = bench_csv_value(fields[where[COL_MELEMS]]);
      c->gbps = bench_csv_value(fields[where[COL_GBPS]]);
      c->reference_gbps = bench_csv_value(fields[where[COL_REFERENCE_GBPS]]);
      c->share = bench_csv_value(fields[where[COL_SHARE]]);
      c->limit_gbps = bench_csv_value(fields[where[COL_LIMIT_GBPS]]);
      c->limit_share = bench_csv_value(fields[where[COL_LIMIT_SHARE]]);
      snprintf(c->algorithm, sizeof c->algorithm, "%s", fields[where[COL_ALGORITHM]]);
      snprintf(c->reference_op, sizeof c->reference_op, "%s", fields[where[COL_REFERENCE_OP]]);
      filled++;
      break;
    }
  }
  return filled;
}

/* ---- measuring one device ---- */

typedef struct compare_run {
  const compare_options *options;
  const char *self;
  const bench_plan_entry *plan;
  size_t plan_count;
  size_t device_number, device_count; /* for the progress line */
} compare_run;

static void mark(cell *c, int state, const char *message) {
  c->state = state;
  snprintf(c->message, sizeof c->message, "%s", message);
}

/* Measure `entries` (plan indices in run's order) on the device in one
 * child: all of them with the options as given (`whole`), else the ones of
 * one type and size with --ops, --types and --sizes naming them. What the
 * child leaves unmeasured is measured again in new children (see the help). */
static void measure_entries(const compare_run *run, device_column *col, const size_t *entries,
                            size_t count, int whole) {
  const compare_options *o = run->options;
  const bench_plan_entry *plan = run->plan;
  if (count == 0) return;
  if (col->timeouts >= MAX_TIMEOUTS) {
    char message[160];
    snprintf(message, sizeof message,
             "not measured: the device's children timed out %d times (--timeout %g)", col->timeouts,
             o->timeout_s);
    for (size_t k = 0; k < count; k++) mark(&col->cells[entries[k]], CELL_SKIPPED, message);
    return;
  }
  /* The arguments: at most 6 pairs of options plus the fixed ones. */
  char ops[1024] = "";
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)run->self;
  argv[argc++] = "run";
  argv[argc++] = "--format";
  argv[argc++] = "csv";
  argv[argc++] = "--quiet";
  argv[argc++] = "--no-cpu";
  argv[argc++] = "--no-boost";
  argv[argc++] = "--no-first-call";
  const char *ops_value = o->ops, *types_value = o->types;
  const char *sizes_value = o->sizes ? o->sizes : COMPARE_DEFAULT_SIZES;
  char n_text[32];
  if (!whole) {
    size_t used = 0;
    for (size_t k = 0; k < count; k++) {
      int w = snprintf(ops + used, sizeof ops - used, "%s%s", k ? "," : "", plan[entries[k]].op);
      if (w > 0 && (size_t)w < sizeof ops - used) used += (size_t)w;
    }
    ops_value = ops;
    types_value = plan[entries[0]].type;
    snprintf(n_text, sizeof n_text, "%zu", plan[entries[0]].n);
    sizes_value = n_text;
  }
  const char *pairs[][2] = {{"--ops", ops_value},     {"--types", types_value},
                            {"--sizes", sizes_value}, {"--repeat", o->repeat},
                            {"--warmup", o->warmup},  {"--shape", o->shape}};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    if (!pairs[k][1]) continue;
    argv[argc++] = (char *)pairs[k][0];
    argv[argc++] = (char *)pairs[k][1];
  }
  argv[argc] = NULL;

  if (whole) {
    bench_progress("clgpu-bench compare: [%zu/%zu] %s: run (%zu operations)", run->device_number,
                   run->device_count, col->index, count);
  } else {
    bench_progress("clgpu-bench compare: [%zu/%zu] %s: run %s %s %s", run->device_number,
                   run->device_count, col->index, ops_value, types_value, plan[entries[0]].shape);
  }
  bench_child_result r;
  bench_child_run(run->self, argv, col->index, NULL, o->timeout_s, &r);
  col->children++;
  col->seconds += r.seconds;
  if (r.started && !r.timed_out) {
    if (read_run_csv(r.out.text, plan, entries, count, col->cells) < 0) {
      for (size_t k = 0; k < count; k++) {
        cell *c = &col->cells[entries[k]];
        if (c->state == CELL_PENDING)
          mark(c, CELL_FAILED, "run's CSV lacks a column compare reads");
      }
    }
  }
  size_t *pending = malloc(count * sizeof *pending);
  size_t num_pending = 0;
  for (size_t k = 0; k < count && pending; k++) {
    if (col->cells[entries[k]].state == CELL_PENDING) pending[num_pending++] = entries[k];
  }
  if (!pending) {
    for (size_t k = 0; k < count; k++) {
      cell *c = &col->cells[entries[k]];
      if (c->state == CELL_PENDING) mark(c, CELL_FAILED, "out of host memory");
    }
  } else if (num_pending > 0) {
    char message[600];
    if (bench_child_succeeded(&r)) {
      for (size_t k = 0; k < num_pending; k++) {
        mark(&col->cells[pending[k]], CELL_FAILED, "run exited with status 0 without reporting it");
      }
    } else if (r.timed_out) {
      col->timeouts++;
      bench_child_describe_failure(&r, "run", o->timeout_s, message, sizeof message);
      if (num_pending == 1) {
        mark(&col->cells[pending[0]], CELL_TIMEOUT, message);
      } else {
        /* Nothing says which one hung: one child each. */
        for (size_t k = 0; k < num_pending; k++) {
          measure_entries(run, col, &pending[k], 1, 0);
        }
      }
    } else {
      /* run measures in plan order and stops at the first failure: the
       * first one it did not report failed; the rest go again, by type and
       * size. */
      bench_child_describe_failure(&r, "run", o->timeout_s, message, sizeof message);
      mark(&col->cells[pending[0]], CELL_FAILED, message);
      size_t k = 1;
      while (k < num_pending) {
        size_t j = k;
        while (j < num_pending && plan[pending[j]].n == plan[pending[k]].n &&
               strcmp(plan[pending[j]].type, plan[pending[k]].type) == 0) {
          j++;
        }
        measure_entries(run, col, &pending[k], j - k, 0);
        k = j;
      }
    }
  }
  free(pending);
  bench_child_result_free(&r);
}

/* The first call of fill.cl's iota on the device: `clgpu-bench first-call`
 * in a child, with clgpu's disk cache and POCL_CACHE_DIR in empty folders. */
static void measure_first_call(const compare_run *run, device_column *col) {
  const compare_options *o = run->options;
  cell *c = &col->first_call;
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  size_t size = strlen(base) + 64;
  char *folder = malloc(size), *clgpu_dir = malloc(size), *pocl_dir = malloc(size);
  if (!folder || !clgpu_dir || !pocl_dir) {
    mark(c, CELL_FAILED, "out of host memory");
    free(folder);
    free(clgpu_dir);
    free(pocl_dir);
    return;
  }
  snprintf(folder, size, "%s/clgpu-bench-compare-XXXXXX", base);
  if (!mkdtemp(folder)) {
    char message[300];
    snprintf(message, sizeof message, "cannot make a temporary folder in %s: %s", base,
             strerror(errno));
    mark(c, CELL_FAILED, message);
  } else {
    snprintf(clgpu_dir, size, "%s/clgpu", folder);
    snprintf(pocl_dir, size, "%s/pocl", folder);
    if (mkdir(clgpu_dir, 0700) != 0 || mkdir(pocl_dir, 0700) != 0) {
      char message[300];
      snprintf(message, sizeof message, "cannot make a folder in %s: %s", folder, strerror(errno));
      mark(c, CELL_FAILED, message);
    } else {
      bench_progress("clgpu-bench compare: [%zu/%zu] %s: first call", run->device_number,
                     run->device_count, col->index);
      char *argv[] = {(char *)run->self, "first-call", "--cache-dir", clgpu_dir, NULL};
      bench_child_result r;
      bench_child_run(run->self, argv, col->index, pocl_dir, o->timeout_s, &r);
      col->children++;
      col->seconds += r.seconds;
      double context_ms = NAN, call_ms = NAN;
      if (bench_child_succeeded(&r) && r.out.text &&
          sscanf(r.out.text, "context creation %lf ms; first call %lf ms", &context_ms, &call_ms) ==
              2) {
        c->state = CELL_OK;
        c->wall_ms = call_ms;
        col->context_ms = context_ms;
      } else {
        char message[600];
        if (bench_child_succeeded(&r)) {
          snprintf(message, sizeof message, "first-call: unreadable output '%.200s'",
                   r.out.text ? r.out.text : "");
        } else {
          bench_child_describe_failure(&r, "first-call", o->timeout_s, message, sizeof message);
        }
        mark(c, r.timed_out ? CELL_TIMEOUT : CELL_FAILED, message);
        if (r.timed_out) col->timeouts++;
      }
      bench_child_result_free(&r);
    }
    bench_remove_tree(folder);
  }
  free(folder);
  free(clgpu_dir);
  free(pocl_dir);
}

/* ---- output ---- */

typedef struct compare_report {
  const compare_options *options;
  const bench_plan_entry *plan;
  size_t plan_count;
  const size_t *order; /* the table's order of the plan: by operation, then run's */
  device_column *columns;
  size_t num_columns;
  /* What the table starts with in place of compare's own lines (run
   * --all-devices' summary); NULL: compare's. */
  const char *heading;
} compare_report;

static const char *unit_of(const bench_plan_entry *e) { return e->keys ? "Melem/s" : "GB/s"; }

static double figure_of(const bench_plan_entry *e, const cell *c) {
  return e->keys ? c->melems : c->gbps;
}

static void format_cell(const bench_plan_entry *e, const cell *c, int with_share, char *out,
                        size_t size) {
  if (c->state == CELL_OK) {
    double value = e ? figure_of(e, c) : c->wall_ms;
    const char *format = value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f";
    int length = snprintf(out, size, format, value);
    if (with_share && length > 0 && (size_t)length < size) {
      if (isfinite(c->share) && isfinite(c->limit_share)) {
        snprintf(out + length, size - (size_t)length, " (%.0f%%, lim %.0f%%)", 100 * c->share,
                 100 * c->limit_share);
      } else if (isfinite(c->share)) {
        snprintf(out + length, size - (size_t)length, " (%.0f%%)", 100 * c->share);
      } else {
        snprintf(out + length, size - (size_t)length, " (n/a)");
      }
    }
    return;
  }
  const char *word = c->state == CELL_TIMEOUT   ? "TIMEOUT"
                     : c->state == CELL_SKIPPED ? "skipped"
                     : c->state == CELL_FAILED  ? "FAILED"
                                                : "?";
  if (c->note) {
    snprintf(out, size, "%s [%d]", word, c->note);
  } else {
    snprintf(out, size, "%s", word);
  }
}

static void print_table(compare_report *report) {
  const compare_options *o = report->options;
  const bench_plan_entry *plan = report->plan;
  size_t columns = report->num_columns;
  /* Notes: numbered in the table's order, one per distinct message of a
   * column (the first call's first). */
  int next_note = 1;
  for (size_t d = 0; d < columns; d++) {
    device_column *col = &report->columns[d];
    int first_note_of_column = next_note;
    for (size_t k = 0; k <= report->plan_count; k++) {
      cell *c = k == 0 ? &col->first_call : &col->cells[report->order[k - 1]];
      if (c->state == CELL_OK || c->state == CELL_PENDING) continue;
      for (size_t j = 0; j < k && !c->note; j++) {
        const cell *p = j == 0 ? &col->first_call : &col->cells[report->order[j - 1]];
        if (p->note >= first_note_of_column && strcmp(p->message, c->message) == 0) {
          c->note = p->note;
        }
      }
      if (!c->note) c->note = next_note++;
    }
  }

  if (report->heading) {
    fputs(report->heading, stdout);
  } else {
    printf("clgpu %s: clgpu-bench compare, %zu device%s, each measured by clgpu-bench run in\n",
           clgpu_version(), columns, columns == 1 ? "" : "s");
    printf("child processes of its own (--sizes %s%s%s%s%s; timeout %g s per child)\n",
           o->sizes ? o->sizes : COMPARE_DEFAULT_SIZES, o->ops ? " --ops " : "",
           o->ops ? o->ops : "", o->types ? " --types " : "", o->types ? o->types : "",
           o->timeout_s);
  }
  for (size_t d = 0; d < columns; d++) {
    printf("  %-5s %s\n", report->columns[d].index, report->columns[d].listing);
  }

  int label_width = 24;
  char label[160];
  for (size_t k = 0; k < report->plan_count; k++) {
    const bench_plan_entry *e = &plan[k];
    int length = snprintf(label, sizeof label, "%s %s %s %s", e->op, e->type, e->shape, unit_of(e));
    if (length > label_width) label_width = length;
  }
  const int width = 22;
  printf("\n%-*s", label_width, "");
  for (size_t d = 0; d < columns; d++) printf(" %*s", width, report->columns[d].index);
  printf("\n%-*s", label_width, "");
  for (size_t d = 0; d < columns; d++) {
    /* The platform's name, cut to the column. */
    char name[64];
    snprintf(name, sizeof name, "%.*s", width, report->columns[d].listing);
    char *slash = strstr(name, " / ");
    if (slash) *slash = '\0';
    printf(" %*s", width, name);
  }
  printf("\n\ndevice\n");
  char text[96];
  for (size_t k = 0; k < report->plan_count; k++) {
    const bench_plan_entry *e = &plan[report->order[k]];
    if (!e->reference) continue;
    snprintf(label, sizeof label, "%s %s %s %s", e->op, e->type, e->shape, unit_of(e));
    printf("%-*s", label_width, label);
    for (size_t d = 0; d < columns; d++) {
      format_cell(e, &report->columns[d].cells[report->order[k]], 0, text, sizeof text);
      printf(" %*s", width, text);
    }
    putchar('\n');
  }
  if (o->first_call) {
    printf("%-*s", label_width, "first call ms (iota 1M)");
    for (size_t d = 0; d < columns; d++) {
      format_cell(NULL, &report->columns[d].first_call, 0, text, sizeof text);
      printf(" %*s", width, text);
    }
    printf("\n%-*s", label_width, "context creation ms");
    for (size_t d = 0; d < columns; d++) {
      const device_column *col = &report->columns[d];
      if (col->first_call.state == CELL_OK) {
        snprintf(text, sizeof text, "%.1f", col->context_ms);
      } else {
        snprintf(text, sizeof text, "-");
      }
      printf(" %*s", width, text);
    }
    putchar('\n');
  }
  printf("%-*s", label_width, "measured in s (children)");
  for (size_t d = 0; d < columns; d++) {
    snprintf(text, sizeof text, "%.1f (%d)", report->columns[d].seconds,
             report->columns[d].children);
    printf(" %*s", width, text);
  }
  printf("\n\noperations (share of the device's read or copy bandwidth, and of its limit)\n");
  for (size_t k = 0; k < report->plan_count; k++) {
    const bench_plan_entry *e = &plan[report->order[k]];
    if (e->reference) continue;
    snprintf(label, sizeof label, "%s %s %s %s", e->op, e->type, e->shape, unit_of(e));
    printf("%-*s", label_width, label);
    for (size_t d = 0; d < columns; d++) {
      format_cell(e, &report->columns[d].cells[report->order[k]], 1, text, sizeof text);
      printf(" %*s", width, text);
    }
    putchar('\n');
  }
  size_t verified = 0, total = 0;
  for (size_t d = 0; d < columns; d++) {
    const device_column *col = &report->columns[d];
    for (size_t k = 0; k < report->plan_count; k++) {
      total++;
      verified += col->cells[k].state == CELL_OK;
    }
  }
  printf(
      "\nGB/s: the bytes an operation must move over its median wall time, as run reports\n"
      "it; Melem/s: keys sorted per second (sorts) or needles searched per second\n"
      "(lower_bound). (%%): the share of the read kernel's GB/s (reduce, count_if,\n"
      "findall, histogram) or the copy kernel's (the others) on the same device, type\n"
      "and size, timed right before each call; lim: the share of run's limit there\n"
      "(%%lim of run's table: the fastest of that kernel, clEnqueueCopyBuffer and, on a\n"
      "CPU device, the host's memcpy and read on all threads). Every result is checked\n"
      "against the host by run (read's value aside: it only keeps the reads alive).\n");
  if (o->first_call) {
    printf(
        "First call: iota over 1M uints in a new process with empty clgpu and POCL caches;\n"
        "context creation there includes the ICD loader loading every implementation.\n");
  }
  printf("%zu of %zu cells measured and checked.\n", verified, total);
  /* The notes, in order. */
  for (int note = 1; note < next_note; note++) {
    int printed = 0;
    for (size_t d = 0; d < columns && !printed; d++) {
      const device_column *col = &report->columns[d];
      const cell *c = NULL;
      const char *what = NULL;
      if (col->first_call.note == note) {
        c = &col->first_call;
        what = "first call";
      }
      for (size_t k = 0; k < report->plan_count && !c; k++) {
        if (col->cells[report->order[k]].note == note) {
          c = &col->cells[report->order[k]];
          const bench_plan_entry *e = &plan[report->order[k]];
          snprintf(label, sizeof label, "%s %s %s", e->op, e->type, e->shape);
          what = label;
        }
      }
      if (!c) continue;
      printf("[%d] %s %s%s: %s\n", note, col->index, what, "", c->message);
      printed = 1;
    }
  }
}

/* The members "devices" (a column each) and "results" (a plan entry each,
 * with a cell per column) of compare's JSON, without a comma before or
 * after: also run --all-devices' summary. */
static void print_json_columns(FILE *out, const compare_report *report) {
  const compare_options *o = report->options;
  fputs("\"devices\": [", out);
  for (size_t d = 0; d < report->num_columns; d++) {
    const device_column *col = &report->columns[d];
    size_t verified = 0;
    for (size_t k = 0; k < report->plan_count; k++) verified += col->cells[k].state == CELL_OK;
    int ok = verified == report->plan_count && (!o->first_call || col->first_call.state == CELL_OK);
    fprintf(out, "%s\n    ", d ? "," : "");
    bench_json_string_member(out, "{", "index", col->index);
    bench_json_string_member(out, ", ", "listing", col->listing);
    fprintf(out, ", \"status\": \"%s\", \"verified\": %zu, \"cells\": %zu,\n     ",
            ok ? "ok" : "failed", verified, report->plan_count);
    fprintf(out, "\"children\": %d, \"timeouts\": %d", col->children, col->timeouts);
    bench_json_number_member(out, ", ", "seconds", col->seconds);
    fputs(",\n     \"first_call\": ", out);
    if (!o->first_call) {
      fputs("null", out);
    } else {
      int first_ok = col->first_call.state == CELL_OK;
      fprintf(out, "{\"state\": \"%s\"", cell_state_names[col->first_call.state]);
      bench_json_number_member(out, ", ", "ms", first_ok ? col->first_call.wall_ms : NAN);
      bench_json_number_member(out, ", ", "context_ms", first_ok ? col->context_ms : NAN);
      bench_json_string_member(out, ", ", "message", first_ok ? NULL : col->first_call.message);
      fputc('}', out);
    }
    fputc('}', out);
  }
  fputs("\n  ],\n  \"results\": [", out);
  for (size_t k = 0; k < report->plan_count; k++) {
    size_t index = report->order[k];
    const bench_plan_entry *e = &report->plan[index];
    fprintf(out, "%s\n    {\"op\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"shape\": ", k ? "," : "",
            e->op, e->type, e->n);
    bench_json_string(out, e->shape);
    fprintf(out, ", \"bandwidth_reference\": %s, \"unit\": \"%s\", \"devices\": [",
            e->reference ? "true" : "false", unit_of(e));
    for (size_t d = 0; d < report->num_columns; d++) {
      const device_column *col = &report->columns[d];
      const cell *c = &col->cells[index];
      int ok = c->state == CELL_OK;
      fprintf(out, "%s\n      ", d ? "," : "");
      bench_json_string_member(out, "{", "index", col->index);
      fprintf(out, ", \"state\": \"%s\", \"checked_on_host\": %s", cell_state_names[c->state],
              ok && strcmp(e->op, "read") != 0 ? "true" : "false");
      bench_json_number_member(out, ", ", "gb_per_s", ok ? c->gbps : NAN);
      bench_json_number_member(out, ", ", "melem_per_s", ok ? c->melems : NAN);
      bench_json_number_member(out, ", ", "share_of_reference", ok ? c->share : NAN);
      bench_json_number_member(out, ", ", "limit_gb_per_s", ok ? c->limit_gbps : NAN);
      bench_json_number_member(out, ", ", "share_of_limit", ok ? c->limit_share : NAN);
      bench_json_string_member(out, ", ", "reference_op",
                               ok && c->reference_op[0] ? c->reference_op : NULL);
      bench_json_number_member(out, ", ", "reference_gb_per_s", ok ? c->reference_gbps : NAN);
      bench_json_number_member(out, ", ", "wall_ms_median", ok ? c->wall_ms : NAN);
      bench_json_string_member(out, ", ", "algorithm", ok ? c->algorithm : NULL);
      bench_json_string_member(out, ", ", "message", ok ? NULL : c->message);
      fputc('}', out);
    }
    fputs("]}", out);
  }
  fputs("\n  ]", out);
}

static void print_json(const compare_report *report) {
  const compare_options *o = report->options;
  FILE *out = stdout;
  bench_json_report_start(out, "clgpu-bench compare", NULL);
  fputs(",\n  \"run_options\": ", out);
  bench_json_string_member(out, "{", "sizes", o->sizes ? o->sizes : COMPARE_DEFAULT_SIZES);
  const char *named[][2] = {{"ops", o->ops},
                            {"types", o->types},
                            {"repeat", o->repeat},
                            {"warmup", o->warmup},
                            {"shape", o->shape}};
  for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
    bench_json_string_member(out, ", ", named[k][0], named[k][1]);
  }
  bench_json_number_member(out, "},\n  ", "timeout_s", o->timeout_s);
  fputs(",\n  ", out);
  print_json_columns(out, report);
  fputs("\n}\n", out);
}

/* ---- the subcommand ---- */

/* The table's order of the plan into order[0..count): by operation (run's
 * order of rows), then by type and size as run measures them. */
static void table_order(const bench_plan_entry *plan, size_t count, size_t *order) {
  for (size_t k = 0; k < count; k++) {
    size_t j = k;
    while (j > 0 && plan[order[j - 1]].op_index > plan[k].op_index) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
}

/* Parse the listing of clgpu_device_list ("  P:D  platform / device (CPU)"
 * per line) into columns, keeping those `selection` names (NULL: all).
 * Returns the count, or (size_t)-1 with *unknown set to a selection item
 * that names no device. */
static size_t parse_listing(char *listing, const char *selection, device_column *columns,
                            size_t max, char *unknown, size_t unknown_size) {
  size_t count = 0;
  char *save = NULL;
  for (char *line = strtok_r(listing, "\n", &save); line && count < max;
       line = strtok_r(NULL, "\n", &save)) {
    unsigned platform = 0, device = 0;
    int consumed = 0;
    if (sscanf(line, " %u:%u%n", &platform, &device, &consumed) != 2) continue;
    device_column *col = &columns[count];
    memset(col, 0, sizeof *col);
    snprintf(col->index, sizeof col->index, "%u:%u", platform, device);
    const char *rest = line + consumed;
    while (*rest == ' ') rest++;
    snprintf(col->listing, sizeof col->listing, "%s", rest);
    count++;
  }
  if (!selection) return count;
  /* Keep the selected ones, in the selection's order. */
  char copy[512];
  snprintf(copy, sizeof copy, "%s", selection);
  device_column *kept = calloc(count ? count : 1, sizeof *kept);
  if (!kept) return 0;
  size_t num_kept = 0;
  for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    size_t k = 0;
    while (k < count && strcmp(columns[k].index, item) != 0) k++;
    if (k == count) {
      snprintf(unknown, unknown_size, "%s", item);
      free(kept);
      return (size_t)-1;
    }
    int seen = 0;
    for (size_t j = 0; j < num_kept; j++) seen |= strcmp(kept[j].index, item) == 0;
    if (!seen) kept[num_kept++] = columns[k];
  }
  memcpy(columns, kept, num_kept * sizeof *kept);
  free(kept);
  return num_kept;
}

/* One of compare's options into *state (a compare_options). */
static int compare_option(const bench_command *command, void *state, const bench_option *option,
                          const char *value) {
  compare_options *o = state;
  if (!option) { /* a file to compare */
    if (o->num_files == 2) {
      return bench_usage_error(command, "a third file '%s' (compare takes two: A.json B.json)",
                               value);
    }
    o->files[o->num_files++] = value;
    return 0;
  }
  if (option->id != COMPARE_QUIET && option->id != COMPARE_FORMAT && option->id != COMPARE_OUTPUT &&
      option->id != COMPARE_THRESHOLD && !o->measuring_option) {
    o->measuring_option = option->name;
  }
  switch (option->id) {
    case COMPARE_QUIET:
      o->quiet = 1;
      break;
    case COMPARE_OUTPUT:
      o->output = value;
      break;
    case COMPARE_THRESHOLD:
      o->threshold = value;
      break;
    case COMPARE_NO_FIRST_CALL:
      o->first_call = 0;
      break;
    case COMPARE_OPS:
      o->ops = value;
      break;
    case COMPARE_TYPES:
      o->types = value;
      break;
    case COMPARE_SIZES:
      o->sizes = value;
      break;
    case COMPARE_REPEAT:
      o->repeat = value;
      break;
    case COMPARE_WARMUP:
      o->warmup = value;
      break;
    case COMPARE_SHAPE:
      o->shape = value;
      break;
    case COMPARE_DEVICES:
      if (!value[0] || strlen(value) >= 512) {
        return bench_usage_error(command, "--devices: malformed list '%s'", value);
      }
      o->devices = value;
      break;
    case COMPARE_TIMEOUT: {
      char *end = NULL;
      double seconds = strtod(value, &end);
      if (end == value || *end != '\0' || !(seconds > 0) || seconds > 86400) {
        return bench_usage_error(
            command, "--timeout: '%s' is not a number of seconds above 0 and up to 86400", value);
      }
      o->timeout_s = seconds;
      break;
    }
    default: /* --format: checked by bench_command_compare */
      o->format = value;
      o->format_option = option;
      break;
  }
  return 0;
}

/* compare A.json B.json: its options checked, then bench_compare_files. */
static int compare_saved_runs(const compare_options *o) {
  if (o->num_files != 2) {
    return bench_usage_error(
        &compare_command, "one file '%s': compare takes two (A.json B.json) or none", o->files[0]);
  }
  if (o->measuring_option) {
    return bench_usage_error(&compare_command,
                             "%s is for measuring devices, not for comparing two files",
                             o->measuring_option);
  }
  int format = COMPARE_FILES_TABLE;
  if (o->format) {
    static const char *const names[] = {"table", "csv", "json"};
    int failed =
        bench_option_choice(&compare_command, o->format_option, o->format, names, 3, &format);
    if (failed) return failed;
  }
  double threshold = 5.0;
  if (o->threshold) {
    char *end = NULL;
    threshold = strtod(o->threshold, &end);
    if (end == o->threshold || *end != '\0' || !(threshold >= 0) || threshold > 100) {
      return bench_usage_error(&compare_command,
                               "--threshold: '%s' is not a percentage from 0 to 100", o->threshold);
    }
  }
  return bench_compare_files(&compare_command, o->files[0], o->files[1], threshold, format,
                             o->output);
}

static int parse_compare_options(int argc, char **argv, compare_options *o) {
  memset(o, 0, sizeof *o);
  o->timeout_s = COMPARE_DEFAULT_TIMEOUT;
  o->first_call = 1;
  return bench_parse_options(&compare_command, argc, argv, compare_option, o);
}

int bench_command_compare(const char *self, int argc, char **argv) {
  compare_options options;
  int parsed = parse_compare_options(argc, argv, &options);
  if (parsed < 0) return 0;
  if (parsed > 0) return parsed;
  if (options.num_files > 0) return compare_saved_runs(&options);
  if (options.threshold) {
    return bench_usage_error(&compare_command,
                             "--threshold is for comparing two files (A.json B.json)");
  }
  if (options.format) {
    static const char *const names[] = {"table", "json"};
    int failed = bench_option_choice(&compare_command, options.format_option, options.format, names,
                                     2, &options.json);
    if (failed) return failed;
  }

  /* The device rows need read and copy_kernel: --ops gets them added. */
  char ops_with_references[1100];
  if (options.ops && strcmp(options.ops, "all") != 0) {
    if (strlen(options.ops) > 1024)
      return bench_usage_error(&compare_command, "--ops: too long a list");
    snprintf(ops_with_references, sizeof ops_with_references, "read,copy_kernel,%s", options.ops);
    options.ops = ops_with_references;
  }
  /* What run would measure with these options, checked as run checks them
   * (its usage errors are compare's). */
  char *run_argv[16];
  int run_argc = 0;
  const char *pairs[][2] = {{"--ops", options.ops},
                            {"--types", options.types},
                            {"--sizes", options.sizes ? options.sizes : COMPARE_DEFAULT_SIZES},
                            {"--repeat", options.repeat},
                            {"--warmup", options.warmup},
                            {"--shape", options.shape}};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    if (!pairs[k][1]) continue;
    run_argv[run_argc++] = (char *)pairs[k][0];
    run_argv[run_argc++] = (char *)pairs[k][1];
  }
  run_argv[run_argc] = NULL;
  bench_plan_entry *plan = NULL;
  size_t plan_count = 0;
  int planned = bench_run_plan(run_argc, run_argv, &plan, &plan_count);
  if (planned != 0) return planned < 0 ? 0 : planned;
  if (plan_count == 0) {
    free(plan);
    return bench_usage_error(&compare_command,
                             "nothing to measure: no operation runs at these types and sizes");
  }

  size_t needed = 0;
  clgpu_status status = clgpu_device_list(NULL, 0, &needed);
  if (status != CLGPU_SUCCESS) {
    free(plan);
    return bench_report_failure("listing devices", status);
  }
  char *listing = malloc(needed);
  size_t max_columns = needed / 8 + 1;
  device_column *columns = calloc(max_columns, sizeof *columns);
  size_t *order = malloc(plan_count * sizeof *order);
  if (!listing || !columns || !order) {
    free(listing);
    free(columns);
    free(order);
    free(plan);
    fprintf(stderr, "clgpu-bench compare: out of host memory\n");
    return 1;
  }
  clgpu_device_list(listing, needed, NULL);
  char unknown[64] = "";
  size_t num_columns =
      parse_listing(listing, options.devices, columns, max_columns, unknown, sizeof unknown);
  free(listing);
  if (num_columns == (size_t)-1 || num_columns == 0) {
    free(columns);
    free(order);
    free(plan);
    if (num_columns == 0) {
      fprintf(stderr, "clgpu-bench compare: no device to compare\n");
      return 1;
    }
    return bench_usage_error(&compare_command,
                             "--devices: no device '%s' (see clgpu-bench devices)", unknown);
  }
  /* The report's file, before any measuring. */
  bench_output output;
  int unwritable = bench_output_open(&compare_command, "--output", options.output, &output);
  if (unwritable) {
    free(columns);
    free(order);
    free(plan);
    return unwritable;
  }
  int failed = 0;
  for (size_t d = 0; d < num_columns && !failed; d++) {
    columns[d].cells = calloc(plan_count, sizeof *columns[d].cells);
    failed = !columns[d].cells;
  }
  table_order(plan, plan_count, order);
  size_t *all = malloc(plan_count * sizeof *all);
  failed |= !all;
  if (failed) {
    fprintf(stderr, "clgpu-bench compare: out of host memory\n");
  } else {
    for (size_t k = 0; k < plan_count; k++) all[k] = k;
    bench_child_install_signal_handlers();
    bench_progress_enabled = !options.quiet && isatty(STDERR_FILENO);
    for (size_t d = 0; d < num_columns; d++) {
      compare_run run = {&options, self, plan, plan_count, d + 1, num_columns};
      if (options.first_call) measure_first_call(&run, &columns[d]);
      measure_entries(&run, &columns[d], all, plan_count, 1);
    }
    bench_progress_clear();
    compare_report report = {&options, plan, plan_count, order, columns, num_columns, NULL};
    failed = bench_output_begin(&output, "clgpu-bench compare: ");
    if (!failed) {
      if (options.json) {
        print_json(&report);
      } else {
        print_table(&report);
      }
      fflush(stdout);
      failed = bench_output_end(&output, "clgpu-bench compare: ");
    }
    for (size_t d = 0; d < num_columns; d++) {
      for (size_t k = 0; k < plan_count; k++) failed |= columns[d].cells[k].state != CELL_OK;
      if (options.first_call) failed |= columns[d].first_call.state != CELL_OK;
    }
  }
  bench_output_discard(&output);
  for (size_t d = 0; d < num_columns; d++) free(columns[d].cells);
  free(columns);
  free(order);
  free(all);
  free(plan);
  return failed ? 1 : 0;
}

/* ---- run --all-devices ---- */

/* The children of run --all-devices have no timeout of their own: this
 * long (a day) at most. */
#define ALL_DEVICES_TIMEOUT 86400.0

/* Whether `arg` is run's option `name` and, when it takes a value, where
 * that value is: *inline_value past "=" (--NAME=VALUE), else NULL (the next
 * argument). */
static const bench_option *run_option_named(const char *arg, const char **inline_value) {
  *inline_value = NULL;
  for (size_t k = 0; k < bench_run_command.num_options; k++) {
    const bench_option *option = &bench_run_command.options[k];
    if (strcmp(arg, option->name) == 0 || (option->alias && strcmp(arg, option->alias) == 0))
      return option;
    size_t length = strlen(option->name);
    if (option->value && strncmp(arg, option->name, length) == 0 && arg[length] == '=') {
      *inline_value = arg + length + 1;
      return option;
    }
  }
  return NULL;
}

/* Whether run's option `name` stays with the parent of run --all-devices
 * rather than going to its children. */
static int parent_option(const char *name) {
  return strcmp(name, "--all-devices") == 0 || strcmp(name, "--output") == 0 ||
         strcmp(name, "--summary-csv") == 0;
}

/* The whole of a small file, NUL-terminated (malloc'ed); NULL when it
 * cannot be read. */
static char *read_text_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  size_t length = 0, capacity = 4096;
  char *text = malloc(capacity);
  while (text) {
    if (length + 1 >= capacity) {
      char *grown = realloc(text, capacity * 2);
      if (!grown) {
        free(text);
        text = NULL;
        break;
      }
      text = grown;
      capacity *= 2;
    }
    size_t got = fread(text + length, 1, capacity - 1 - length, file);
    length += got;
    if (got == 0) break;
  }
  if (text) text[length] = '\0';
  if (ferror(file)) {
    free(text);
    text = NULL;
  }
  fclose(file);
  return text;
}

/* One device's section of run --all-devices in `format`: its child's
 * report (stdout), under a line naming the device (table), as the member
 * "report" of its entry (json), or as rows after its index (csv; the
 * header only once, *csv_header set after it). */
static void print_device_section(output_format format, const device_column *col, size_t number,
                                 size_t count, const bench_child_result *r, int ok,
                                 const char *message, int *csv_header) {
  const char *text = r->out.text ? r->out.text : "";
  if (format == FORMAT_CSV) {
    char *copy = strdup(text);
    char *save = NULL;
    int first = 1;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save), first = 0) {
      if (first && !*csv_header) {
        printf("device_index,%s\n", line);
        *csv_header = 1;
      } else if (!first) {
        printf("%s,%s\n", col->index, line);
      }
    }
    free(copy);
    return;
  }
  if (format == FORMAT_JSON) {
    printf("%s\n    ", number > 1 ? "," : "");
    bench_json_string_member(stdout, "{", "index", col->index);
    bench_json_string_member(stdout, ", ", "listing", col->listing);
    printf(", \"status\": \"%s\", \"exit_status\": ", ok ? "ok" : "failed");
    if (r->started && r->exited) {
      printf("%d", r->exit_status);
    } else {
      fputs("null", stdout);
    }
    bench_json_number_member(stdout, ", ", "seconds", r->seconds);
    bench_json_string_member(stdout, ", ", "message", ok ? NULL : message);
    /* run's own document, as it wrote it, where it ended normally (after a
     * signal or a timeout it may be cut short). */
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' ')) length--;
    fputs(",\n     \"report\": ", stdout);
    if (r->started && r->exited && !r->timed_out && text[0] == '{') {
      fwrite(text, 1, length, stdout);
    } else {
      fputs("null", stdout);
    }
    fputc('}', stdout);
    return;
  }
  printf("%s=== device %s (%zu of %zu): %s ===\n\n", number > 1 ? "\n" : "", col->index, number,
         count, col->listing);
  fputs(text, stdout);
  if (!ok) printf("%sclgpu-bench run on %s FAILED: %s\n", text[0] ? "\n" : "", col->index, message);
}

int bench_command_run_all_devices(const char *self, int argc, char **argv,
                                  const run_options *options) {
  if (options->device) {
    return bench_usage_error(&bench_run_command,
                             "--device and --all-devices: give one of them, not both");
  }
  if (options->plot) {
    return bench_usage_error(&bench_run_command,
                             "--plot draws one device: not with --all-devices (give --device)");
  }
  /* The children's arguments: run's own but those the parent keeps. */
  char **child_argv = calloc((size_t)argc + 6, sizeof *child_argv);
  if (!child_argv) {
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }
  int child_argc = 0;
  child_argv[child_argc++] = (char *)self;
  child_argv[child_argc++] = "run";
  for (int i = 0; i < argc; i++) {
    const char *inline_value = NULL;
    const bench_option *option = run_option_named(argv[i], &inline_value);
    int takes_next = option && option->value && !inline_value && i + 1 < argc;
    if (option && parent_option(option->name)) {
      i += takes_next;
      continue;
    }
    child_argv[child_argc++] = argv[i];
    if (takes_next) child_argv[child_argc++] = argv[++i];
  }
  int plan_argc = child_argc - 2;
  bench_plan_entry *plan = NULL;
  size_t plan_count = 0;
  int planned = bench_run_plan(plan_argc, child_argv + 2, &plan, &plan_count);
  if (planned != 0) {
    free(child_argv);
    return planned < 0 ? 0 : planned;
  }
  bench_output output;
  int unwritable = bench_output_open(&bench_run_command, "--output", options->output, &output);
  if (unwritable) {
    free(plan);
    free(child_argv);
    return unwritable;
  }

  size_t needed = 0;
  clgpu_status status = clgpu_device_list(NULL, 0, &needed);
  if (status != CLGPU_SUCCESS) {
    bench_output_discard(&output);
    free(plan);
    free(child_argv);
    return bench_report_failure("listing devices", status);
  }
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  size_t folder_size = strlen(base) + 64;
  char *listing = malloc(needed);
  size_t max_columns = needed / 8 + 1;
  device_column *columns = calloc(max_columns, sizeof *columns);
  size_t *order = malloc((plan_count ? plan_count : 1) * sizeof *order);
  size_t *all = malloc((plan_count ? plan_count : 1) * sizeof *all);
  char *folder = malloc(folder_size), *summary = malloc(folder_size);
  if (folder) folder[0] = '\0';
  size_t num_columns = 0;
  int failed = !listing || !columns || !order || !all || !folder || !summary;
  if (!failed) {
    clgpu_device_list(listing, needed, NULL);
    char unknown[8];
    num_columns = parse_listing(listing, NULL, columns, max_columns, unknown, sizeof unknown);
    for (size_t d = 0; d < num_columns && !failed; d++) {
      columns[d].cells = calloc(plan_count ? plan_count : 1, sizeof *columns[d].cells);
      failed = !columns[d].cells;
    }
  }
  if (failed) fprintf(stderr, "clgpu-bench run: out of host memory\n");
  if (!failed) {
    snprintf(folder, folder_size, "%s/clgpu-bench-run-XXXXXX", base);
    if (!mkdtemp(folder)) {
      fprintf(stderr, "clgpu-bench run: cannot make a temporary folder in %s: %s\n", base,
              strerror(errno));
      folder[0] = '\0';
      failed = 1;
    }
    snprintf(summary, folder_size, "%s/summary.csv", folder);
  }
  child_argv[child_argc++] = "--summary-csv";
  child_argv[child_argc++] = summary;
  child_argv[child_argc] = NULL;
  if (!failed) failed = bench_output_begin(&output, "clgpu-bench run: ");

  if (!failed) {
    for (size_t k = 0; k < plan_count; k++) all[k] = k;
    table_order(plan, plan_count, order);
    bench_child_install_signal_handlers();
    bench_progress_enabled = !options->quiet && isatty(STDERR_FILENO);
    if (options->format == FORMAT_JSON) {
      bench_json_report_start(stdout, "clgpu-bench run --all-devices", NULL);
      bench_json_command_line(stdout, ",\n  ");
      fputs(",\n  \"devices\": [", stdout);
    }
    int csv_header = 0;
    for (size_t d = 0; d < num_columns; d++) {
      device_column *col = &columns[d];
      bench_progress("clgpu-bench run: [%zu/%zu] %s: %s", d + 1, num_columns, col->index,
                     col->listing);
      unlink(summary);
      bench_child_result r;
      bench_child_run(self, child_argv, col->index, NULL, ALL_DEVICES_TIMEOUT, &r);
      col->children = 1;
      col->seconds = r.seconds;
      col->timeouts = r.timed_out;
      char *figures = read_text_file(summary);
      if (figures && read_run_csv(figures, plan, all, plan_count, col->cells) < 0) {
        for (size_t k = 0; k < plan_count; k++) {
          mark(&col->cells[k], CELL_FAILED, "run's CSV lacks a column this summary reads");
        }
      }
      free(figures);
      char message[600] = "";
      if (bench_child_succeeded(&r)) {
        snprintf(message, sizeof message, "run exited with status 0 without reporting it");
      } else {
        bench_child_describe_failure(&r, "run", ALL_DEVICES_TIMEOUT, message, sizeof message);
      }
      int ok = bench_child_succeeded(&r);
      for (size_t k = 0; k < plan_count; k++) {
        cell *c = &col->cells[k];
        if (c->state == CELL_PENDING) mark(c, r.timed_out ? CELL_TIMEOUT : CELL_FAILED, message);
        ok &= c->state == CELL_OK;
      }
      failed |= !ok;
      bench_progress_clear();
      /* The child's notes and errors, as run would have shown them. */
      if (r.err.text) fputs(r.err.text, stderr);
      if (!ok) fprintf(stderr, "clgpu-bench run: %s: FAILED: %s\n", col->index, message);
      print_device_section(options->format, col, d + 1, num_columns, &r, ok, message, &csv_header);
      fflush(stdout);
      bench_child_result_free(&r);
    }
    bench_progress_clear();
    compare_options summary_options;
    memset(&summary_options, 0, sizeof summary_options);
    summary_options.timeout_s = ALL_DEVICES_TIMEOUT;
    char heading[200];
    snprintf(heading, sizeof heading,
             "clgpu %s: clgpu-bench run --all-devices, %zu device%s, each measured by\n"
             "clgpu-bench run in a child process of its own (its report above)\n",
             clgpu_version(), num_columns, num_columns == 1 ? "" : "s");
    compare_report report = {&summary_options, plan,        plan_count, order,
                             columns,          num_columns, heading};
    if (options->format == FORMAT_JSON) {
      fputs("\n  ],\n  \"summary\": {", stdout);
      print_json_columns(stdout, &report);
      fputs("}\n}\n", stdout);
    } else if (options->format == FORMAT_TABLE) {
      printf("\n=== summary: a column per device ===\n\n");
      print_table(&report);
    }
    failed |= bench_output_end(&output, "clgpu-bench run: ");
  }
  bench_output_discard(&output);
  if (folder && folder[0]) bench_remove_tree(folder);
  for (size_t d = 0; d < num_columns; d++) free(columns[d].cells);
  free(columns);
  free(order);
  free(all);
  free(listing);
  free(folder);
  free(summary);
  free(plan);
  free(child_argv);
  return failed ? 1 : 0;
}
