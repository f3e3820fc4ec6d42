/* clgpu-bench compare (bench_compare.h): `run`'s operations on every device
 * present, one column per device. Each device is measured by `clgpu-bench
 * run --format csv` started again as a child process with CLGPU_DEVICE set
 * to the device's "P:D" index, in a process group of its own that is killed
 * when it outlives --timeout, so that one implementation's crash, hang or
 * wrong result shows as failed cells of its column and the other columns are
 * still measured. After a child fails, what it left unmeasured is measured
 * again in new children, so that a failed cell is the operation that failed.
 * The parent opens no device: it only lists them (clgpu_device_list). */
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
#include "bench_options.h"
#include "bench_plan.h"

static const char compare_usage_text[] =
    "usage: clgpu-bench compare [--sizes LIST] [--ops LIST] [--types LIST] [--repeat N]\n"
    "                           [--warmup N] [--shape A] [--devices LIST]\n"
    "                           [--timeout SECONDS] [--no-first-call]\n"
    "                           [--format table|json] [--quiet]\n"
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
  COMPARE_FORMAT
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
};

static const char *const compare_help[] = {compare_usage_text, NULL};

static const bench_command compare_command =
    BENCH_SUBCOMMAND("compare", compare_option_table, 1, 0, compare_help);

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

  printf("clgpu %s: clgpu-bench compare, %zu device%s, each measured by clgpu-bench run in\n",
         clgpu_version(), columns, columns == 1 ? "" : "s");
  printf("child processes of its own (--sizes %s%s%s%s%s; timeout %g s per child)\n",
         o->sizes ? o->sizes : COMPARE_DEFAULT_SIZES, o->ops ? " --ops " : "", o->ops ? o->ops : "",
         o->types ? " --types " : "", o->types ? o->types : "", o->timeout_s);
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
  fputs(",\n  \"devices\": [", out);
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
  fputs("\n  ]\n}\n", out);
}

/* ---- the subcommand ---- */

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
  switch (option->id) {
    case COMPARE_QUIET:
      o->quiet = 1;
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
    default: {
      static const char *const names[] = {"table", "json"};
      return bench_option_choice(command, option, value, names, 2, &o->json);
    }
  }
  return 0;
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
  int failed = 0;
  for (size_t d = 0; d < num_columns && !failed; d++) {
    columns[d].cells = calloc(plan_count, sizeof *columns[d].cells);
    failed = !columns[d].cells;
  }
  /* The table's order: by operation (run's order of rows), then by type and
   * size as run measures them. */
  for (size_t k = 0; k < plan_count; k++) {
    size_t j = k;
    while (j > 0 && plan[order[j - 1]].op_index > plan[k].op_index) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
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
    compare_report report = {&options, plan, plan_count, order, columns, num_columns};
    if (options.json) {
      print_json(&report);
    } else {
      print_table(&report);
    }
    fflush(stdout);
    for (size_t d = 0; d < num_columns; d++) {
      for (size_t k = 0; k < plan_count; k++) failed |= columns[d].cells[k].state != CELL_OK;
      if (options.first_call) failed |= columns[d].first_call.state != CELL_OK;
    }
  }
  for (size_t d = 0; d < num_columns; d++) free(columns[d].cells);
  free(columns);
  free(order);
  free(all);
  free(plan);
  return failed ? 1 : 0;
}
