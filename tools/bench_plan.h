/* What clgpu-bench run measures and how it is asked (bench_plan.c): its
 * operations, its options and their parser, and the plan of (operation,
 * type, size) entries that those options select. */
#ifndef CLGPU_BENCH_PLAN_H
#define CLGPU_BENCH_PLAN_H

#include <stddef.h>

#include <clgpu/clgpu.h>

#include "bench_boost.h"
#include "bench_options.h"

/* What `run` measures, in the order it measures them: the two bandwidth
 * references first, so every operation's share can be computed. */
enum {
  OP_READ,
  OP_COPY_KERNEL,
  OP_REDUCE,
  OP_COUNT_IF,
  OP_SCAN,
  OP_FINDALL,
  OP_COPY,
  OP_COPY_STRIDED,
  OP_RADIX_SORT,
  OP_SORT_BY_KEY,
  OP_MERGE_SORT,
  OP_ARGSORT,
  /* clgpu_lower_bound of the data in the data sorted (search.h). */
  OP_LOWER_BOUND,
  /* clgpu_histogram_even (histogram.h) of the data into HISTOGRAM_BINS
   * uint32 counts, the bounds the data's whole range. */
  OP_HISTOGRAM,
  /* clgpu_reduce_by_key and clgpu_scan_by_key (runs.h): the data as values
   * beside uint32 keys in runs of 1 to 15 (bench_prepare_by_key). Not in
   * the default run. */
  OP_REDUCE_BY_KEY,
  OP_SCAN_BY_KEY,
  /* clgpu_unique (runs.h) of the by-key ops' uint32 keys: each run's key
   * and the count of runs. uint32 only; not in the default run. */
  OP_UNIQUE,
  /* clgpu_segmented_sort (sort.h) of the data in segments of SEGMENT_KEYS
   * keys, keys only, offsets uint32 on the device (bench_prepare_segmented);
   * clgpu_partition (partition.h) of the data by findall's predicate. Not
   * in the default run. */
  OP_SEGMENTED_SORT,
  OP_PARTITION,
  /* Elementwise kernels (elementwise.h) and strided copies (copy.h), each
   * timed beside a peer in the same run (op_info.peer). */
  OP_ELEMENTWISE,
  OP_ELEMENTWISE_STRIDED,
  OP_ELEMENTWISE_TRANSPOSED,
  OP_STRIDED_COPY,
  OP_STRIDED_COPY_TRANSPOSED,
  NUM_OPS
};

/* Sorts and lower_bound at this many elements or more run fewer calls by
 * default (their slow host baselines, the sorts' qsort and lower_bound's C
 * binary search, take seconds a call): SORT_LARGE_REPEAT timed calls after
 * SORT_LARGE_WARMUP, unless --repeat or --warmup say otherwise. */
#define SORT_LARGE ((size_t)4 << 20)
#define SORT_LARGE_REPEAT 3
#define SORT_LARGE_WARMUP 1

typedef struct op_info {
  const char *name;
  int reference;          /* OP_READ or OP_COPY_KERNEL: the bandwidth it is a share of */
  bench_boost_op boost;   /* Boost.Compute's counterpart, or BENCH_BOOST_NONE */
  const char *cpu_label;  /* what the CPU baseline runs */
  int sort;               /* a sort: refilled before every call, sort baselines */
  unsigned default_types; /* the types it runs at when --types is not given */
  unsigned default_sizes; /* the sizes it runs at when --sizes is not given */
  /* The types it runs at at all: others are skipped even when --types names
   * them (with a note on stderr). */
  unsigned supported_types;
  /* Part of the run when --ops is not given: all but the by-key ops,
   * segmented_sort and partition. */
  int in_default;
  const char *select; /* another --ops name that selects it too; NULL: none */
  int two_d;          /* over an s x s array, s = floor(sqrt(n)) */
  const char *peer;   /* what it is timed beside in the same run; NULL: nothing */
  /* Counted in keys (Melem/s in compare), with the sorts' fewer calls at
   * SORT_LARGE elements and one call of its slow host baseline: the sorts
   * and lower_bound. */
  int keys;
} op_info;

extern const op_info bench_op_table[NUM_OPS];

/* Why lower_bound has no peer (its rows' Boost.Compute note). */
#define LOWER_BOUND_NO_PEER                                                                  \
  "no peer: Boost.Compute's lower_bound searches for one value (no form for many needles), " \
  "PyOpenCL has none"

/* histogram's bins: even over the whole range of each type's data
 * (bench_histogram_bounds), counted into uint32. */
#define HISTOGRAM_BINS 256

/* Why histogram has no peer (its rows' Boost.Compute note). */
#define HISTOGRAM_NO_PEER "no peer: Boost.Compute has no histogram, PyOpenCL has none"

/* What the by-key ops have instead of a PyOpenCL peer, and why scan_by_key
 * has no Boost.Compute one (their rows' Boost.Compute note). */
#define BY_KEY_NO_PYOPENCL "PyOpenCL has no by-key operations"
#define SCAN_BY_KEY_NO_PEER \
  "no peer: Boost.Compute has no inclusive_scan_by_key (reduce_by_key only), " BY_KEY_NO_PYOPENCL

/* The ops over the by-key ops' keys (bench_prepare_by_key): reduce_by_key,
 * scan_by_key and unique. */
static inline int bench_op_by_key(int op) {
  return op == OP_REDUCE_BY_KEY || op == OP_SCAN_BY_KEY || op == OP_UNIQUE;
}

/* The by-key ops' keys: uint32 runs of 1 to BY_KEY_MAX_RUN equal keys
 * (uniformly, so 8 on average), each run's key unlike the one before. */
#define BY_KEY_MAX_RUN 15

/* segmented_sort's segments: SEGMENT_KEYS keys each, n / SEGMENT_KEYS of
 * them (rounded up: the last one shorter where n is not a multiple). */
#define SEGMENT_KEYS 16

/* What segmented_sort's Boost.Compute peer sorts (its rows' note, with
 * Boost's algorithm after it), and why 64-bit keys have none; what
 * partition's peer runs. */
#define SEGMENTED_SORT_PEER "sort of packed uint64 (segment << 32 | key's order image)"
#define SEGMENTED_SORT_NO_PEER                                                              \
  "no peer: Boost.Compute has no segmented sort, and its sort of (segment, key) packed in " \
  "a uint64 needs 32-bit keys"
#define PARTITION_PEER "stable_partition, in place on a copy made before each call (not timed)"

/* What the sorts compare with (merge_sort goes through clgpu's comparator
 * path with it; Boost.Compute's merge_sort peer gets the same expression). */
#define SORT_COMPARE "a < b"

typedef enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } output_format;
typedef enum reference_shape { SHAPE_AUTO, SHAPE_CPU, SHAPE_GPU } reference_shape;
/* Which (operation, type) pairs get their first calls timed: each operation
 * at the first of its types in the run (the default without --types), at
 * every type (--first-call all; the default with --types), or none. */
typedef enum first_call_mode {
  FIRST_CALL_DEFAULT,
  FIRST_CALL_FIRST,
  FIRST_CALL_ALL,
  FIRST_CALL_OFF
} first_call_mode;

#define MAX_LIST 32

typedef struct run_options {
  int ops[NUM_OPS]; /* requested */
  size_t types[MAX_LIST];
  size_t num_types;
  size_t sizes[MAX_LIST];
  size_t num_sizes;
  int repeat;
  int warmup;
  clgpu_shape call_shape; /* --shape: the library calls' kernel shape */
  output_format format;
  reference_shape shape;
  int quiet;
  int no_boost;
  int no_cpu;
  const char *plot;   /* --plot: the SVG file to write, or NULL */
  const char *output; /* --output: the report's file, or NULL (stdout) */
  /* --max-time: the run's budget in seconds for its timed calls (0: none);
   * each row's calls then fit its share (bench_measure.c). */
  double max_time_s;
  const char *device; /* --device: the selector, or NULL (bench_use_device) */
  int all_devices;    /* --all-devices (bench_compare.c runs it) */
  /* --summary-csv: run's CSV report written to this file too, after the
   * report (internal: how run --all-devices reads its children's figures,
   * whatever their --format); NULL: none. */
  const char *summary_csv;
  first_call_mode first_call; /* resolved by bench_parse_run_options: never DEFAULT */
  /* Given on the command line: otherwise each operation runs at its own
   * default types and sizes (op_info), and sorts at SORT_LARGE elements and
   * more run fewer calls. */
  int types_given, sizes_given, repeat_given, warmup_given;
} run_options;

/* run's options, for its usage errors ("clgpu-bench run: ..."). */
extern const bench_command bench_run_command;

/* Parse `run`'s arguments: 0, 2 after a usage error (printed), or -1 after
 * --help (printed). */
int bench_parse_run_options(int argc, char **argv, run_options *options);

/* The side of the 2-D ops' square array at n elements: floor(sqrt(n)). */
size_t bench_square_side(size_t n);

/* Whether `op` runs at bench_host_types[type_index] and n elements: requested, and
 * at a type and size it defaults to unless --types and --sizes were given. */
int bench_op_runs(const run_options *o, int op, size_t type_index, size_t n);

/* The (operation, type, size) entries that bench_op_runs admits: run's rows. */
size_t bench_count_runs(const run_options *o);

/* The calls of `op` at n elements: --repeat and --warmup, or for the sorts
 * and lower_bound at SORT_LARGE elements and more fewer unless given;
 * *baseline_repeat: the timed calls of the slow host baselines, the sorts'
 * qsort and lower_bound's C binary search (seconds each at 16M). */
void bench_op_calls(const run_options *o, int op, size_t n, int *repeat, int *warmup,
                    int *baseline_repeat);

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
  /* Its figure is Melem/s rather than GB/s: keys sorted per second (the
   * sorts) or needles searched per second (lower_bound). */
  int keys;
} bench_plan_entry;

/* 0 with *entries (malloc'ed; free it) and *count; -1 after --help (run's
 * help printed); 2 after a usage error (printed on stderr); 1 when out of
 * host memory (printed). */
int bench_run_plan(int argc, char **argv, bench_plan_entry **entries, size_t *count);

#endif
