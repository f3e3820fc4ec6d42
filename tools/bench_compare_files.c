/* clgpu-bench compare A.json B.json (bench_compare_files.h): both reports
 * read with the tool's own JSON reader (bench_json.c) and checked to be run
 * reports of one schema version this tool reads (docs/bench-json.md); their
 * rows matched by operation, type, n and shape; per row each side's median
 * wall time and figure (GB/s, or Melem/s for the ops counted in keys), B's
 * throughput over A's, and whether B is slower beyond the threshold. */
#include "bench_compare_files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_json.h"
#include "bench_output.h"
#include "bench_plan.h"
#include "bench_report.h"

/* A run report read from a file. */
typedef struct run_file {
  const char *path;
  json_value *root;
  int schema_version; /* -1: the report has none */
  const json_value *results;
} run_file;

/* Read and check `path` into *f: 0, or 2 after a usage error (printed). */
static int load_run_file(const bench_command *command, const char *path, run_file *f) {
  char error[256];
  f->path = path;
  f->schema_version = -1;
  f->results = NULL;
  int read = bench_json_read_file(path, &f->root, error, sizeof error);
  if (read == -1) return bench_usage_error(command, "cannot read '%s': %s", path, error);
  if (read != 0) return bench_usage_error(command, "'%s' is not JSON: %s", path, error);
  const char *tool = bench_json_as_string(bench_json_member(f->root, "tool"));
  if (!tool || strcmp(tool, "clgpu-bench run") != 0) {
    return bench_usage_error(command, "'%s' is not a report of clgpu-bench run --format json",
                             path);
  }
  double version = bench_json_as_number(bench_json_member(f->root, "schema_version"));
  if (!(version >= 0 && version <= 1e6 && version == floor(version))) {
    return bench_usage_error(
        command, "'%s' has no schema_version (a run report of an older clgpu-bench)", path);
  }
  f->schema_version = (int)version;
  f->results = bench_json_member(f->root, "results");
  return 0;
}

/* Whether the report's rows can be read: its version is this tool's and its
 * rows have what identifies them. 0, or 2 after a usage error (printed). */
static int check_rows(const bench_command *command, const run_file *f) {
  if (f->schema_version != BENCH_RUN_SCHEMA_VERSION) {
    return bench_usage_error(command, "'%s' has schema_version %d; this clgpu-bench reads %d",
                             f->path, f->schema_version, BENCH_RUN_SCHEMA_VERSION);
  }
  if (!f->results || f->results->kind != JSON_ARRAY) {
    return bench_usage_error(command, "'%s' has no results array", f->path);
  }
  for (size_t k = 0; k < f->results->count; k++) {
    const json_value *row = &f->results->items[k];
    if (!bench_json_as_string(bench_json_member(row, "op")) ||
        !bench_json_as_string(bench_json_member(row, "type")) ||
        !isfinite(bench_json_as_number(bench_json_member(row, "n")))) {
      return bench_usage_error(command, "'%s': results[%zu] lacks its op, type or n", f->path, k);
    }
  }
  return 0;
}

/* A row's side: its median wall time and its figure. */
typedef struct side {
  int present;
  double wall_ms, value;
} side;

enum { ROW_WITHIN, ROW_SLOWER, ROW_FASTER, ROW_NO_RATIO, ROW_ONLY_A, ROW_ONLY_B };
static const char *const status_names[] = {"within",   "slower",    "faster",
                                           "no_ratio", "only_in_a", "only_in_b"};

typedef struct compared_row {
  const char *op, *type, *shape;
  double n;
  const char *unit; /* "GB/s" or "Melem/s" */
  side a, b;
  double ratio; /* B's throughput over A's; NaN: none */
  int status;
} compared_row;

/* The unit of an operation's figure: Melem/s for the ops run counts in keys
 * (the sorts, lower_bound), GB/s for the others; for an operation this tool
 * does not know, GB/s where the row has it. */
static const char *unit_of(const char *op, const json_value *row) {
  for (int k = 0; k < NUM_OPS; k++) {
    if (strcmp(bench_op_table[k].name, op) == 0) return bench_op_table[k].keys ? "Melem/s" : "GB/s";
  }
  return isfinite(bench_json_as_number(bench_json_member(row, "gb_per_s"))) ? "GB/s" : "Melem/s";
}

static side side_of(const json_value *row, const char *unit) {
  side s;
  s.present = 1;
  s.wall_ms = bench_json_as_number(bench_json_member(bench_json_member(row, "wall_ms"), "median"));
  s.value = bench_json_as_number(
      bench_json_member(row, strcmp(unit, "GB/s") == 0 ? "gb_per_s" : "melem_per_s"));
  return s;
}

static const char *shape_of(const json_value *row) {
  const char *shape = bench_json_as_string(bench_json_member(row, "shape"));
  return shape ? shape : "";
}

/* Whether two rows are the same measurement: operation, type, n, shape. */
static int same_row(const json_value *x, const json_value *y) {
  return strcmp(bench_json_as_string(bench_json_member(x, "op")),
                bench_json_as_string(bench_json_member(y, "op"))) == 0 &&
         strcmp(bench_json_as_string(bench_json_member(x, "type")),
                bench_json_as_string(bench_json_member(y, "type"))) == 0 &&
         bench_json_as_number(bench_json_member(x, "n")) ==
             bench_json_as_number(bench_json_member(y, "n")) &&
         strcmp(shape_of(x), shape_of(y)) == 0;
}

static void fill_row(compared_row *c, const json_value *row) {
  c->op = bench_json_as_string(bench_json_member(row, "op"));
  c->type = bench_json_as_string(bench_json_member(row, "type"));
  c->n = bench_json_as_number(bench_json_member(row, "n"));
  c->shape = shape_of(row);
  c->unit = unit_of(c->op, row);
}

/* B's throughput over A's: of their figures, or where either lacks one, the
 * inverse of their median wall times' ratio; and the row's status. */
static void rate_row(compared_row *c, double threshold) {
  c->ratio = NAN;
  if (isfinite(c->a.value) && isfinite(c->b.value) && c->a.value > 0 && c->b.value > 0) {
    c->ratio = c->b.value / c->a.value;
  } else if (isfinite(c->a.wall_ms) && isfinite(c->b.wall_ms) && c->a.wall_ms > 0 &&
             c->b.wall_ms > 0) {
    c->ratio = c->a.wall_ms / c->b.wall_ms;
  }
  c->status = !isfinite(c->ratio)                ? ROW_NO_RATIO
              : c->ratio < 1 - threshold / 100.0 ? ROW_SLOWER
              : c->ratio > 1 + threshold / 100.0 ? ROW_FASTER
                                                 : ROW_WITHIN;
}

/* "clgpu VERSION on PLATFORM / DEVICE, TIMESTAMP" of a report, as far as it
 * says. */
static const char *describe(const run_file *f, char *buffer, size_t size) {
  const json_value *device = bench_json_member(f->root, "device");
  const char *version = bench_json_as_string(bench_json_member(f->root, "library_version"));
  const char *platform = bench_json_as_string(bench_json_member(device, "platform"));
  const char *name = bench_json_as_string(bench_json_member(device, "name"));
  const char *timestamp = bench_json_as_string(bench_json_member(f->root, "timestamp"));
  snprintf(buffer, size, "clgpu %s on %s / %s, %s", version ? version : "?",
           platform ? platform : "?", name ? name : "?", timestamp ? timestamp : "no timestamp");
  return buffer;
}

typedef struct comparison {
  const run_file *a, *b;
  double threshold;
  compared_row *rows;
  size_t num_rows;
  size_t counts[6]; /* rows per status */
} comparison;

static const char *n_text(const compared_row *r, char *buffer, size_t size) {
  if (r->shape[0]) return r->shape;
  snprintf(buffer, size, "%.0f", r->n);
  return buffer;
}

static void print_table(const comparison *c) {
  char text[900];
  printf("A: %s\n   %s\n", c->a->path, describe(c->a, text, sizeof text));
  printf("B: %s\n   %s\n", c->b->path, describe(c->b, text, sizeof text));
  int name_width = 12, n_width = 5;
  for (size_t k = 0; k < c->num_rows; k++) {
    char n[32];
    if ((int)strlen(c->rows[k].op) > name_width) name_width = (int)strlen(c->rows[k].op);
    if ((int)strlen(n_text(&c->rows[k], n, sizeof n)) > n_width)
      n_width = (int)strlen(n_text(&c->rows[k], n, sizeof n));
  }
  printf("\n%-*s %-6s %*s %-7s %10s %10s %10s %10s %7s\n", name_width, "op", "type", n_width, "n",
         "unit", "A ms", "B ms", "A", "B", "B/A");
  for (size_t k = 0; k < c->num_rows; k++) {
    const compared_row *r = &c->rows[k];
    char n[32], a_ms[24], b_ms[24], a_value[24], b_value[24], ratio[16];
    const char *missing = "-";
    bench_format_or_na(a_ms, sizeof a_ms, "%.4g", r->a.wall_ms);
    bench_format_or_na(b_ms, sizeof b_ms, "%.4g", r->b.wall_ms);
    bench_format_or_na(a_value, sizeof a_value, "%.2f", r->a.value);
    bench_format_or_na(b_value, sizeof b_value, "%.2f", r->b.value);
    bench_format_or_na(ratio, sizeof ratio, "%.3f", r->ratio);
    const char *flag = r->status == ROW_SLOWER   ? "  SLOWER"
                       : r->status == ROW_FASTER ? "  faster"
                       : r->status == ROW_ONLY_A ? "  only in A"
                       : r->status == ROW_ONLY_B ? "  only in B"
                                                 : "";
    printf("%-*s %-6s %*s %-7s %10s %10s %10s %10s %7s%s\n", name_width, r->op, r->type, n_width,
           n_text(r, n, sizeof n), r->unit, r->a.present ? a_ms : missing,
           r->b.present ? b_ms : missing, r->a.present ? a_value : missing,
           r->b.present ? b_value : missing, r->a.present && r->b.present ? ratio : missing, flag);
  }
  printf(
      "\nA ms, B ms: the median wall time of a call; A, B: the throughput in the unit's\n"
      "terms (GB/s: bytes moved; Melem/s: keys sorted or needles searched per second).\n"
      "B/A: B's throughput over A's (above 1: B is faster); SLOWER: below A's by more than\n"
      "%g%% (--threshold), faster: above it by more. Rows match by op, type, n and shape.\n",
      c->threshold);
  printf("%zu of %zu matched rows slower in B; %zu faster; %zu only in A, %zu only in B.\n",
         c->counts[ROW_SLOWER], c->num_rows - c->counts[ROW_ONLY_A] - c->counts[ROW_ONLY_B],
         c->counts[ROW_FASTER], c->counts[ROW_ONLY_A], c->counts[ROW_ONLY_B]);
}

static void print_csv(const comparison *c) {
  printf(
      "op,type,n,shape,unit,a_wall_ms_median,b_wall_ms_median,a_value,b_value,b_over_a,"
      "status\n");
  for (size_t k = 0; k < c->num_rows; k++) {
    const compared_row *r = &c->rows[k];
    bench_csv_string(stdout, r->op);
    putchar(',');
    bench_csv_string(stdout, r->type);
    printf(",%.0f,", r->n);
    bench_csv_string(stdout, r->shape);
    printf(",%s,", r->unit);
    const double cells[] = {r->a.present ? r->a.wall_ms : NAN, r->b.present ? r->b.wall_ms : NAN,
                            r->a.present ? r->a.value : NAN, r->b.present ? r->b.value : NAN,
                            r->ratio};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
      bench_csv_number(stdout, cells[i]);
      putchar(',');
    }
    printf("%s\n", status_names[r->status]);
  }
}

/* A report's facts in the comparison's JSON: "a" or "b". */
static void print_json_file(FILE *out, const char *name, const run_file *f) {
  const json_value *device = bench_json_member(f->root, "device");
  fprintf(out, ",\n  \"%s\": ", name);
  bench_json_string_member(out, "{", "file", f->path);
  fprintf(out, ", \"schema_version\": %d", f->schema_version);
  const char *strings[][2] = {
      {"library_version", bench_json_as_string(bench_json_member(f->root, "library_version"))},
      {"timestamp", bench_json_as_string(bench_json_member(f->root, "timestamp"))},
      {"platform", bench_json_as_string(bench_json_member(device, "platform"))},
      {"device", bench_json_as_string(bench_json_member(device, "name"))},
  };
  for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
    bench_json_string_member(out, ", ", strings[k][0], strings[k][1]);
  }
  fputc('}', out);
}

static void print_side(FILE *out, const char *name, const side *s) {
  fprintf(out, ", \"%s\": ", name);
  if (!s->present) {
    fputs("null", out);
    return;
  }
  bench_json_number_member(out, "{", "wall_ms_median", s->wall_ms);
  bench_json_number_member(out, ", ", "value", s->value);
  fputc('}', out);
}

static void print_json(const comparison *c) {
  FILE *out = stdout;
  bench_json_report_start(out, "clgpu-bench compare", NULL);
  fprintf(out, ",\n  \"compared\": \"files\", \"schema_version\": %d", BENCH_RUN_SCHEMA_VERSION);
  print_json_file(out, "a", c->a);
  print_json_file(out, "b", c->b);
  bench_json_number_member(out, ",\n  ", "threshold_percent", c->threshold);
  fprintf(out,
          ",\n  \"counts\": {\"rows\": %zu, \"slower\": %zu, \"faster\": %zu, \"within\": %zu, "
          "\"no_ratio\": %zu, \"only_in_a\": %zu, \"only_in_b\": %zu}",
          c->num_rows, c->counts[ROW_SLOWER], c->counts[ROW_FASTER], c->counts[ROW_WITHIN],
          c->counts[ROW_NO_RATIO], c->counts[ROW_ONLY_A], c->counts[ROW_ONLY_B]);
  fputs(",\n  \"rows\": [", out);
  for (size_t k = 0; k < c->num_rows; k++) {
    const compared_row *r = &c->rows[k];
    fprintf(out, "%s\n    ", k ? "," : "");
    bench_json_string_member(out, "{", "op", r->op);
    bench_json_string_member(out, ", ", "type", r->type);
    bench_json_number_member(out, ", ", "n", r->n);
    bench_json_string_member(out, ", ", "shape", r->shape);
    bench_json_string_member(out, ", ", "unit", r->unit);
    print_side(out, "a", &r->a);
    print_side(out, "b", &r->b);
    bench_json_number_member(out, ", ", "b_over_a", r->ratio);
    fprintf(out, ", \"status\": \"%s\"}", status_names[r->status]);
  }
  fputs("\n  ]\n}\n", out);
}

int bench_compare_files(const bench_command *command, const char *a, const char *b,
                        double threshold_percent, int format, const char *output) {
  run_file files[2];
  memset(files, 0, sizeof files);
  int status = load_run_file(command, a, &files[0]);
  if (status == 0) status = load_run_file(command, b, &files[1]);
  if (status == 0 && files[0].schema_version != files[1].schema_version) {
    status = bench_usage_error(command,
                               "'%s' has schema_version %d and '%s' %d: different schema versions",
                               a, files[0].schema_version, b, files[1].schema_version);
  }
  if (status == 0) status = check_rows(command, &files[0]);
  if (status == 0) status = check_rows(command, &files[1]);
  bench_output out;
  if (status == 0) status = bench_output_open(command, "--output", output, &out);
  size_t count_a = status == 0 ? files[0].results->count : 0;
  size_t count_b = status == 0 ? files[1].results->count : 0;
  compared_row *rows = NULL;
  char *matched = NULL;
  if (status == 0) {
    rows = calloc(count_a + count_b + 1, sizeof *rows);
    matched = calloc(count_b + 1, 1);
    if (!rows || !matched) {
      fprintf(stderr, "%sout of host memory\n", command->prefix);
      bench_output_discard(&out);
      status = 1;
    }
  }
  if (status == 0) {
    comparison c = {&files[0], &files[1], threshold_percent, rows, 0, {0}};
    /* A's rows in A's order, each beside B's same row; then B's others. */
    for (size_t k = 0; k < count_a; k++) {
      const json_value *x = &files[0].results->items[k];
      compared_row *r = &rows[c.num_rows++];
      fill_row(r, x);
      r->a = side_of(x, r->unit);
      for (size_t j = 0; j < count_b; j++) {
        const json_value *y = &files[1].results->items[j];
        if (matched[j] || !same_row(x, y)) continue;
        matched[j] = 1;
        r->b = side_of(y, r->unit);
        break;
      }
      if (r->b.present) {
        rate_row(r, threshold_percent);
      } else {
        r->ratio = NAN;
        r->status = ROW_ONLY_A;
      }
    }
    for (size_t j = 0; j < count_b; j++) {
      if (matched[j]) continue;
      const json_value *y = &files[1].results->items[j];
      compared_row *r = &rows[c.num_rows++];
      fill_row(r, y);
      r->b = side_of(y, r->unit);
      r->ratio = NAN;
      r->status = ROW_ONLY_B;
    }
    for (size_t k = 0; k < c.num_rows; k++) c.counts[rows[k].status]++;
    status = bench_output_begin(&out, command->prefix);
    if (status == 0) {
      if (format == COMPARE_FILES_JSON) {
        print_json(&c);
      } else if (format == COMPARE_FILES_CSV) {
        print_csv(&c);
      } else {
        print_table(&c);
      }
      fflush(stdout);
      status = bench_output_end(&out, command->prefix);
    }
    bench_output_discard(&out);
    if (status == 0 && c.counts[ROW_SLOWER] > 0) status = 1;
  }
  free(rows);
  free(matched);
  bench_json_free(files[0].root);
  bench_json_free(files[1].root);
  return status;
}
