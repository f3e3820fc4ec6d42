/* clgpu-bench tune: sweep the tuning table's values on one device.
 *
 * Each value of a parameter is measured by `clgpu-bench run` started again
 * as a child process with CLGPU_TUNING set (the library reads it when the
 * child makes its context), over the operations the parameter shapes; its
 * score is the geometric mean of their Melem/s, the median over --rounds
 * children. The parameters are swept one after the other, each with the
 * best values found before it in CLGPU_TUNING (coordinate descent, which
 * is what a few minutes allow); the result is printed as a CLGPU_TUNING
 * value to keep and as the fields of a row of src/runtime/tuning.c. Every
 * child checks its results against the host as run always does, so a
 * value that computes wrong fails its child and is never chosen. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/clgpu.h>

#include "bench_child.h"
#include "bench_common.h"
#include "bench_options.h"
#include "bench_tune.h"

/* A parameter: a field of the tuning table (src/runtime/tuning.c), the
 * operations it shapes, the values tried, and whether it is a group size
 * (values above the device's largest group are left out). */
typedef struct tune_param {
  const char *name;
  int shape; /* 1 TILED, 0 CHUNKED */
  const char *ops;
  unsigned values[6];
  size_t count;
  int group_size;
} tune_param;

static const tune_param params[] = {
    {"tile_items", 1, "reduce,scan,findall", {4, 8, 16, 32}, 4, 0},
    {"tiled_group_cap", 1, "reduce,scan,findall", {64, 128, 256, 512, 1024}, 5, 1},
    {"tiled_chunks_per_unit", 1, "reduce,scan,findall,radix_sort", {2, 4, 8, 16, 32}, 5, 0},
    {"tiled_step_barrier", 1, "reduce,scan,findall,radix_sort", {0, 1}, 2, 0},
    {"tiled_slices", 1, "scan,findall", {1, 4, 16, 64}, 4, 0},
    {"tiled_lane_runs", 1, "findall", {0, 1}, 2, 0},
    {"radix_items", 1, "radix_sort,sort_by_key", {4, 8, 16, 24, 32}, 5, 0},
    {"sort_group_cap", 1, "radix_sort,sort_by_key", {64, 128, 256, 512}, 4, 1},
    {"tiled_digit_max", 1, "radix_sort,sort_by_key", {4, 5, 6, 7, 8}, 5, 0},
    {"chunked_chunks_per_unit", 0, "reduce,scan,findall", {1, 2, 4, 8, 16}, 5, 0},
    {"sort_chunked_digit_max", 0, "radix_sort", {8, 9, 10, 11}, 4, 0},
    {"sort_chunked_digit_max_values", 0, "sort_by_key", {8, 9, 10, 11}, 4, 0},
    {"sort_stream_digit_max", 0, "radix_sort", {8, 9, 10, 11}, 4, 0},
    {"sort_pack_pairs", 0, "sort_by_key", {0, 1048576, 8388608}, 3, 0},
    {"sort_lines_floor", 0, "radix_sort,sort_by_key", {0, 4194304, 16777216, 67108864}, 4, 0},
    {"findall_vector_flags", 0, "findall", {0, 1}, 2, 0},
    {"findall_compress", 0, "findall", {0, 1}, 2, 0},
    {"findall_split_stores", 0, "findall", {0, 1}, 2, 0},
    {"aligned_vector_access", 0, "reduce,scan,findall", {0, 1}, 2, 0},
    {"blocked_gather", 0, "strided_copy,elementwise_transposed", {0, 1}, 2, 0},
    {"block", 0, "strided_copy,elementwise_transposed", {8, 16, 32, 64}, 4, 0},
    {"blocked_rows", 0, "strided_copy,elementwise_transposed", {0, 128, 256, 512}, 4, 0},
    {"blocked_columns", 0, "strided_copy,elementwise_transposed", {0, 256, 512, 1024}, 4, 0},
    {"group_bound_check", 0, "elementwise,copy", {0, 1}, 2, 0},
};
enum { NUM_PARAMS = sizeof params / sizeof params[0] };

typedef struct tune_options {
  int shape; /* 1 tiled, 0 chunked */
  const char *sizes;
  const char *types;
  const char *params; /* NULL: every parameter of the shape */
  int rounds;
  const char *repeat;
  double timeout_s;
  const char *device; /* --device, or NULL */
} tune_options;

enum {
  TUNE_SHAPE,
  TUNE_SIZES,
  TUNE_TYPES,
  TUNE_PARAMS,
  TUNE_ROUNDS,
  TUNE_REPEAT,
  TUNE_TIMEOUT,
  TUNE_DEVICE
};

static const bench_option tune_option_table[] = {
    {"--shape", NULL, "a value", 1, TUNE_SHAPE},     {"--sizes", NULL, "a value", 1, TUNE_SIZES},
    {"--types", NULL, "a value", 1, TUNE_TYPES},     {"--params", NULL, "a value", 1, TUNE_PARAMS},
    {"--rounds", NULL, "a value", 1, TUNE_ROUNDS},   {"--repeat", NULL, "a value", 1, TUNE_REPEAT},
    {"--timeout", NULL, "a value", 1, TUNE_TIMEOUT}, BENCH_DEVICE_OPTION(TUNE_DEVICE),
};

static const char *const tune_help[] = {
    "usage: clgpu-bench tune [--shape tiled|chunked] [--sizes N] [--types LIST]\n"
    "                        [--params LIST] [--rounds N] [--repeat N] [--timeout S]\n"
    "                        [--device SELECTOR]\n"
    "\n"
    "Sweep the values of the tuning table (src/runtime/tuning.c) on the default\n"
    "device (or --device's, or CLGPU_DEVICE's) and print the best as a CLGPU_TUNING\n"
    "value to keep (export it, or copy the printed fields into a row of the table).\n"
    "Each value is measured by 'clgpu-bench run --format csv' in a child process of\n"
    "its own with CLGPU_TUNING set, over the operations the parameter shapes; its\n"
    "score is the geometric mean of their Melem/s (median of --rounds children).\n"
    "Parameters are swept in turn, each with the best values found before it;\n"
    "results are checked against the host in every child, so a value that fails is\n"
    "never chosen. A CLGPU_TUNING already set is where the sweep starts.\n"
    "\n"
    "  --shape S     the kernel shape whose parameters are swept (default tiled,\n"
    "                the GPU shape):\n",
    "                  tiled:   tile_items, tiled_group_cap, tiled_chunks_per_unit,\n"
    "                           tiled_step_barrier (reduce, scan, findall; the last\n"
    "                           two also radix_sort), tiled_slices (scan, findall),\n"
    "                           tiled_lane_runs (findall),\n"
    "                           radix_items, sort_group_cap, tiled_digit_max\n"
    "                           (radix_sort, sort_by_key)\n"
    "                  chunked: chunked_chunks_per_unit (reduce, scan, findall),\n"
    "                           sort_chunked_digit_max (radix_sort),\n"
    "                           sort_chunked_digit_max_values (sort_by_key),\n"
    "                           sort_stream_digit_max (radix_sort: the digits\n"
    "                           of a scatter through lines, CPU devices),\n"
    "                           sort_pack_pairs (sort_by_key: the bytes from\n"
    "                           which keys and values move as pairs),\n"
    "                           sort_lines_floor (radix_sort, sort_by_key: the\n"
    "                           bytes from which the scatter goes through lines),\n"
    "                           findall_vector_flags, findall_compress,\n"
    "                           findall_split_stores (findall),\n"
    "                           aligned_vector_access (reduce, scan,\n"
    "                           findall),\n"
    "                           blocked_gather, block, blocked_rows,\n"
    "                           blocked_columns (strided_copy,\n"
    "                           elementwise_transposed),\n"
    "                           group_bound_check (elementwise, copy)\n"
    "  --sizes N     elements per operation, as run takes them (default 16M)\n"
    "  --types LIST  element types, as run takes them (default uint32)\n"
    "  --params LIST comma-separated parameters of the shape (default all of them)\n"
    "  --rounds N    children per value, the median kept (default 1)\n"
    "  --repeat N    timed calls per operation in each child (default 5)\n"
    "  --timeout S   seconds one child may take before it is killed (default 600)\n"
    "  --device SELECTOR\n"
    "                the device, as CLGPU_DEVICE takes it (and in its place, for\n"
    "                this process and its children): \"P:D\", a flat index, gpu,\n"
    "                cpu, accelerator, or part of a platform or device name,\n"
    "                case-insensitive (clgpu-bench devices lists them); one that\n"
    "                matches no device is a usage error\n",
    NULL};

static const bench_command tune_command =
    BENCH_SUBCOMMAND("tune", tune_option_table, 1, 0, tune_help);

static int tune_option(const bench_command *command, void *state, const bench_option *option,
                       const char *value) {
  tune_options *o = state;
  if (!option) return bench_usage_error(command, "unexpected argument '%s'", value);
  switch (option->id) {
    case TUNE_SHAPE: {
      static const char *const shapes[] = {"chunked", "tiled"};
      return bench_option_choice(command, option, value, shapes, 2, &o->shape);
    }
    case TUNE_SIZES:
      if (strchr(value, ',')) return bench_usage_error(command, "--sizes: one size only");
      o->sizes = value;
      return 0;
    case TUNE_TYPES:
      o->types = value;
      return 0;
    case TUNE_PARAMS:
      o->params = value;
      return 0;
    case TUNE_ROUNDS:
      return bench_option_count(command, option, value, 1, &o->rounds);
    case TUNE_DEVICE:
      o->device = value;
      return 0;
    case TUNE_REPEAT: {
      int repeat = 0;
      int failed = bench_option_count(command, option, value, 1, &repeat);
      o->repeat = value;
      return failed;
    }
    default: {
      int seconds = 0;
      int failed = bench_option_count(command, option, value, 1, &seconds);
      o->timeout_s = seconds;
      return failed;
    }
  }
}

/* Whether `name` is in the comma-separated `list`. */
static int listed(const char *list, const char *name) {
  size_t length = strlen(name);
  for (const char *at = list; at && *at;) {
    const char *end = strchr(at, ',');
    size_t part = end ? (size_t)(end - at) : strlen(at);
    if (part == length && strncmp(at, name, length) == 0) return 1;
    at = end ? end + 1 : NULL;
  }
  return 0;
}

/* The geometric mean of the melem_per_s column of run's CSV output; NaN
 * when it holds no row or a row without a figure. */
static double csv_score(char *text, int *rows) {
  enum { MAX_FIELDS = 160 };
  char *fields[MAX_FIELDS];
  *rows = 0;
  char *line = strtok(text, "\n");
  if (!line) return NAN;
  size_t header = bench_split_csv(line, fields, MAX_FIELDS);
  int column = -1;
  for (size_t f = 0; f < header; f++) {
    if (strcmp(fields[f], "melem_per_s") == 0) column = (int)f;
  }
  if (column < 0) return NAN;
  double sum_of_logs = 0;
  while ((line = strtok(NULL, "\n")) != NULL) {
    size_t got = bench_split_csv(line, fields, MAX_FIELDS);
    if ((int)got <= column) return NAN;
    double value = bench_csv_value(fields[column]);
    if (!(value > 0)) return NAN;
    sum_of_logs += log(value);
    (*rows)++;
  }
  return *rows ? exp(sum_of_logs / *rows) : NAN;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The score of one CLGPU_TUNING value: the median over the rounds, NaN when
 * a child failed (its reason printed). */
static double measure(const char *self, const tune_options *o, const tune_param *p,
                      const char *tuning) {
  if (setenv("CLGPU_TUNING", tuning, 1) != 0) return NAN;
  const char *argv[] = {
      self,       "run",        "--format",        "csv",      "--quiet",
      "--no-cpu", "--no-boost", "--no-first-call", "--shape",  o->shape ? "tiled" : "chunked",
      "--ops",    p->ops,       "--types",         o->types,   "--sizes",
      o->sizes,   "--repeat",   o->repeat,         "--warmup", "1",
      NULL};
  double scores[64];
  int kept = 0;
  for (int r = 0; r < o->rounds && kept < 64; r++) {
    bench_child_result result;
    bench_child_run(self, (char **)argv, NULL, NULL, o->timeout_s, &result);
    int rows = 0;
    double score = NAN;
    if (bench_child_succeeded(&result) && result.out.text)
      score = csv_score(result.out.text, &rows);
    if (!(score > 0)) {
      char message[1024];
      if (bench_child_succeeded(&result)) {
        snprintf(message, sizeof message, "run gave no Melem/s figures");
      } else {
        bench_child_describe_failure(&result, "run", o->timeout_s, message, sizeof message);
      }
      printf("    CLGPU_TUNING=%s: %s\n", tuning, message);
      bench_child_result_free(&result);
      return NAN;
    }
    bench_child_result_free(&result);
    scores[kept++] = score;
  }
  qsort(scores, (size_t)kept, sizeof scores[0], compare_doubles);
  return kept ? scores[kept / 2] : NAN;
}

/* `base` with "name=value" appended (or put in place of an earlier value
 * of the same name), into out. */
static void with_value(const char *base, const char *name, unsigned value, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  size_t length = strlen(name);
  for (const char *at = base; at && *at;) {
    const char *end = strchr(at, ',');
    size_t part = end ? (size_t)(end - at) : strlen(at);
    int same = part > length && strncmp(at, name, length) == 0 && at[length] == '=';
    if (!same && part > 0) {
      int wrote = snprintf(out + used, size - used, "%s%.*s", used ? "," : "", (int)part, at);
      if (wrote > 0 && (size_t)wrote < size - used) used += (size_t)wrote;
    }
    at = end ? end + 1 : NULL;
  }
  snprintf(out + used, size - used, "%s%s=%u", used ? "," : "", name, value);
}

int bench_command_tune(const char *self, int argc, char **argv) {
  tune_options o = {1, "16M", "uint32", NULL, 1, "5", 600, NULL};
  int parsed = bench_parse_options(&tune_command, argc, argv, tune_option, &o);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  parsed = bench_use_device(&tune_command, o.device);
  if (parsed != 0) return parsed;
  if (o.params) {
    for (const char *at = o.params; *at;) {
      const char *end = strchr(at, ',');
      size_t part = end ? (size_t)(end - at) : strlen(at);
      int known = 0;
      for (size_t k = 0; k < NUM_PARAMS; k++) {
        known |= params[k].shape == o.shape && strlen(params[k].name) == part &&
                 strncmp(params[k].name, at, part) == 0;
      }
      if (!known) {
        return bench_usage_error(&tune_command,
                                 "--params: '%.*s' is not a parameter of the %s shape", (int)part,
                                 at, o.shape ? "tiled" : "chunked");
      }
      if (!end) break;
      at = end + 1;
    }
  }
  const char *started = getenv("CLGPU_TUNING");
  char best[1100];
  snprintf(best, sizeof best, "%s", started ? started : "");
  /* The device, as the children will see it; its largest group bounds the
   * group sizes tried. A CLGPU_TUNING the library refuses stops here. */
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("choosing the default device", status);
  bench_test_change_environment();
  char title[512];
  const clgpu_device_info *info = clgpu_context_device_info(context);
  size_t largest_group = info->max_work_group_size;
  printf("tune: %s\n", bench_device_title(info, title, sizeof title));
  clgpu_context_destroy(context);
  printf(
      "shape %s, %s elements of %s, %d round%s per value, %s calls each; score: the\n"
      "geometric mean of the operations' Melem/s\n",
      o.shape ? "tiled" : "chunked", o.sizes, o.types, o.rounds, o.rounds == 1 ? "" : "s",
      o.repeat);
  bench_child_install_signal_handlers();
  int failures = 0, swept = 0;
  for (size_t k = 0; k < NUM_PARAMS; k++) {
    const tune_param *p = &params[k];
    if (p->shape != o.shape || (o.params && !listed(o.params, p->name))) continue;
    printf("\n%s (%s):\n", p->name, p->ops);
    fflush(stdout);
    double best_score = NAN;
    unsigned best_value = 0;
    for (size_t v = 0; v < p->count; v++) {
      if (p->group_size && largest_group && p->values[v] > largest_group) continue;
      char tuning[1100];
      with_value(best, p->name, p->values[v], tuning, sizeof tuning);
      double score = measure(self, &o, p, tuning);
      if (!(score > 0)) {
        failures++;
        continue;
      }
      printf("  %s=%-6u %12.1f Melem/s\n", p->name, p->values[v], score);
      fflush(stdout);
      if (!(best_score >= score)) {
        best_score = score;
        best_value = p->values[v];
      }
    }
    if (best_score > 0) {
      char next[1100];
      with_value(best, p->name, best_value, next, sizeof next);
      snprintf(best, sizeof best, "%s", next);
      printf("  best: %s=%u\n", p->name, best_value);
      swept++;
    } else {
      printf("  no value of %s could be measured\n", p->name);
    }
  }
  if (started) {
    setenv("CLGPU_TUNING", started, 1);
  } else {
    unsetenv("CLGPU_TUNING");
  }
  printf("\nkeep: CLGPU_TUNING=%s\n", best);
  printf("or, in a row of src/runtime/tuning.c:\n");
  for (const char *at = best; *at;) {
    const char *end = strchr(at, ',');
    size_t part = end ? (size_t)(end - at) : strlen(at);
    const char *equals = memchr(at, '=', part);
    if (equals) {
      printf("    .%.*s = %.*s,\n", (int)(equals - at), at, (int)(part - (size_t)(equals + 1 - at)),
             equals + 1);
    }
    if (!end) break;
    at = end + 1;
  }
  if (failures)
    printf("%d value%s could not be measured (above)\n", failures, failures == 1 ? "" : "s");
  return swept > 0 && failures == 0 ? 0 : 1;
}
