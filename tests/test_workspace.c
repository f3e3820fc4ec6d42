/* The workspace contract of include/clgpu/workspace.h, row by row, for the
 * three operations that take workspaces (reduce with SUM, scan with an
 * inclusive SUM, findall with the mask predicate) and both algorithms:
 *
 *  1. The size query allocates nothing (an allocation cache scope around it
 *     sees no request), is pure (two queries, and a query on a second context
 *     of the same device, give the same report) and gives a sane report:
 *     parts, the resolved algorithm, findall's nested scan part, aligned
 *     buffers that do not overlap, bytes = count * element size, total_bytes
 *     = the end of the last buffer, and the buffers the headers name.
 *  2. Every buffer grows monotonically with n; the _upto(N) report covers
 *     every exact query of n <= N and a workspace made from it serves those
 *     calls.
 *  3. A region of exactly total_bytes works (the bytes around it untouched);
 *     one byte less, a region past the buffer's end and a misaligned offset
 *     are refused by clgpu_workspace_wrap. A report one element short in one
 *     buffer makes a workspace that the call refuses, naming the buffer.
 *  4. A workspace made for a smaller call is refused by a larger one that
 *     needs more (CLGPU_WORKSPACE_TOO_SMALL).
 *  5. Another operation, algorithm (AUTO included) or context is refused.
 *  6. A workspace overlapping the input or an output is refused; one right
 *     next to them works.
 *  7. A call with a fitting workspace makes no request to an open
 *     allocation cache scope; the same call without one does.
 *  8. One workspace serves 20 calls enqueued back to back.
 *  9. clgpu_workspace_describe / _region / _create with total_bytes 0 /
 *     invalid reports / clgpu_workspace_destroy(NULL).
 * 10. clgpu_operation_name, clgpu_shape_name and clgpu_algorithm_name.
 *
 * After every refusal: the status is the documented one, no event is made,
 * the outputs still hold their fill, the input and the workspace's bytes are
 * unchanged and the guards are intact. Every successful call is compared
 * with a host reference (integer sums bit for bit; the float reduction sums
 * small integers, which is exact in any order).
 *
 * Sizes: the tile quantities of this implementation (CHUNKED splits only
 * above 16384 elements, TILED tiles of 2048 with G = 256, several groups
 * above 4 tiles) at T-1, T, T+1 and 2T+-1, odd sizes, and two seeded random
 * sizes. Queries run no kernel and take every size up to 300000 on every
 * device; calls stop at 65537 elements, and at 4099 on Oclgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

/* One context for the whole file: programs are built once per context. */
static clgpu_context *shared_context;

static int group_setup(void **state) {
  (void)state;
  shared_context = test_context(NULL);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

static const clgpu_shape forced_algorithms[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* Names for messages, independent of clgpu_shape_name (under test). */
static const char *algorithm_text(clgpu_shape algorithm) {
  switch (algorithm) {
    case CLGPU_SHAPE_AUTO:
      return "auto";
    case CLGPU_SHAPE_CHUNKED:
      return "chunked";
    case CLGPU_SHAPE_TILED:
      return "tiled";
  }
  return "(invalid shape)";
}

static const char *operation_text(clgpu_operation operation) {
  switch (operation) {
    case CLGPU_OPERATION_REDUCE:
      return "reduce";
    case CLGPU_OPERATION_SCAN:
      return "scan";
    case CLGPU_OPERATION_FINDALL:
      return "findall";
    case CLGPU_OPERATION_SORT:
      return "sort";
    case CLGPU_OPERATION_SEARCH:
      return "search";
    case CLGPU_OPERATION_SCAN_BY_KEY:
      return "scan_by_key";
    case CLGPU_OPERATION_REDUCE_BY_KEY:
      return "reduce_by_key";
    case CLGPU_OPERATION_UNIQUE:
      return "unique";
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
      return "run_length_encode";
    case CLGPU_OPERATION_HISTOGRAM:
      return "histogram";
    case CLGPU_OPERATION_PARTITION:
      return "partition";
    case CLGPU_OPERATION_SEGMENTED_SORT:
      return "segmented_sort";
    case CLGPU_OPERATION_MPI_SORT:
      return "mpi_sort";
  }
  return "(invalid operation)";
}

static clgpu_shape other_algorithm(clgpu_shape algorithm) {
  return algorithm == CLGPU_SHAPE_CHUNKED ? CLGPU_SHAPE_TILED : CLGPU_SHAPE_CHUNKED;
}

/* What AUTO resolves to (workspace.h): CHUNKED on CPU devices, TILED
 * elsewhere. */
static clgpu_shape resolved_algorithm(const clgpu_context *context, clgpu_shape algorithm) {
  if (algorithm != CLGPU_SHAPE_AUTO) return algorithm;
  return (clgpu_context_device_info(context)->type & CL_DEVICE_TYPE_CPU) ? CLGPU_SHAPE_CHUNKED
                                                                         : CLGPU_SHAPE_TILED;
}

static uint64_t device_alignment(const clgpu_context *context) {
  return clgpu_context_device_info(context)->mem_base_addr_align_bits / 8;
}

static size_t align_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/* ---- sizes ---- */

/* Queries run no kernel: every size on every device. */
static const size_t fixed_query_sizes[] = {
    0,     1,     2,     3,     7,     63,    64,     65,     93,     1000,   2047,   2048,
    2049,  4095,  4096,  4097,  4099,  8191,  8192,   8193,   16383,  16384,  16385,  32767,
    32768, 32769, 65535, 65536, 65537, 99991, 131073, 262143, 262144, 262145, 300000,
};
#define MAX_QUERY_N ((size_t)300000)
#define QUERY_SIZE_SLOTS 40

static int compare_sizes(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The fixed sizes and two seeded random ones, ascending, without repeats. */
static size_t query_sizes(size_t *sizes) {
  size_t count = sizeof fixed_query_sizes / sizeof fixed_query_sizes[0];
  memcpy(sizes, fixed_query_sizes, sizeof fixed_query_sizes);
  test_rng rng;
  test_rng_init(&rng, test_case_seed("workspace query sizes"));
  sizes[count++] = (size_t)test_rng_below(&rng, MAX_QUERY_N + 1);
  sizes[count++] = (size_t)test_rng_below(&rng, MAX_QUERY_N + 1);
  qsort(sizes, count, sizeof sizes[0], compare_sizes);
  size_t unique = 0;
  for (size_t i = 0; i < count; i++) {
    if (unique == 0 || sizes[unique - 1] != sizes[i]) sizes[unique++] = sizes[i];
  }
  return unique;
}

/* Sizes of calls that run kernels. */
static const size_t fixed_run_sizes[] = {0,     1,     2,     3,     7,     93,   1000,
                                         2047,  2048,  2049,  4095,  4097,  8191, 8193,
                                         16383, 16384, 16385, 32767, 32769, 65537};
/* Under Oclgrind: at most 5000 elements, fewer of them. */
static const size_t oclgrind_run_sizes[] = {0, 1, 2, 3, 7, 93, 1000, 2049, 4097};
#define RUN_SIZE_SLOTS 24

/* The largest contiguous call, a strided one, and a middle one. */
static size_t big_n(const clgpu_context *context) { return test_on_oclgrind(context) ? 4099 : 65537; }
static size_t strided_n(const clgpu_context *context) { return test_on_oclgrind(context) ? 1000 : 4099; }

static size_t run_sizes(const clgpu_context *context, size_t *sizes) {
  const size_t *fixed = test_on_oclgrind(context) ? oclgrind_run_sizes : fixed_run_sizes;
  size_t count = test_on_oclgrind(context) ? sizeof oclgrind_run_sizes / sizeof oclgrind_run_sizes[0]
                                      : sizeof fixed_run_sizes / sizeof fixed_run_sizes[0];
  memcpy(sizes, fixed, count * sizeof sizes[0]);
  test_rng rng;
  test_rng_init(&rng, test_case_seed("workspace run sizes"));
  sizes[count++] = (size_t)test_rng_below(&rng, big_n(context) + 1);
  sizes[count++] = (size_t)test_rng_below(&rng, big_n(context) + 1);
  qsort(sizes, count, sizeof sizes[0], compare_sizes);
  return count;
}

/* ---- the operations ---- */

typedef struct op_spec {
  const char *name;
  clgpu_operation operation;
  clgpu_type type; /* the input's element type */
  test_type host_type;
  test_distribution distribution;
  size_t parameter;
} op_spec;

/* Integer sums wrap and compare bit for bit; findall reads a 0/1 mask. */
static const op_spec main_ops[] = {
    {"reduce SUM", CLGPU_OPERATION_REDUCE, CLGPU_TYPE_UINT32, TEST_UINT32, TEST_UNIFORM, 0},
    {"scan inclusive SUM", CLGPU_OPERATION_SCAN, CLGPU_TYPE_INT32, TEST_INT32, TEST_UNIFORM, 0},
    {"findall", CLGPU_OPERATION_FINDALL, CLGPU_TYPE_UINT8, TEST_UINT8, TEST_SMALL_INTEGERS, 2},
};
#define MAIN_OP_COUNT (sizeof main_ops / sizeof main_ops[0])

/* A float sum of integers below 16: at most 65537 * 15 < 2^24, so exact in
 * any order and compared bit for bit. It checks that float sizing (and the
 * float program) follows the same contract. */
static const op_spec float_reduce = {"reduce SUM float", CLGPU_OPERATION_REDUCE, CLGPU_TYPE_FLOAT,
                                     TEST_FLOAT,         TEST_SMALL_INTEGERS,    16};

/* Query one operation for given views (count is findall's). */
static clgpu_status query_views(clgpu_context *context, clgpu_operation operation,
                                const clgpu_array *input, const clgpu_array *output,
                                const clgpu_array *count, const clgpu_call_options *options,
                                clgpu_workspace_size *report) {
  switch (operation) {
    case CLGPU_OPERATION_REDUCE: {
      clgpu_reduce_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_REDUCE_SUM;
      return clgpu_reduce_workspace_size(context, &op, CLGPU_ALL_AXES, output, input, options,
                                         report);
    }
    case CLGPU_OPERATION_SCAN: {
      clgpu_scan_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_SCAN_SUM;
      return clgpu_scan_workspace_size(context, &op, CLGPU_ALL_AXES, output, input, options,
                                       report);
    }
    case CLGPU_OPERATION_FINDALL:
      return clgpu_findall_workspace_size(context, NULL, output, count, input, options, report);
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
  fail_msg("unknown operation %d", (int)operation);
  return CLGPU_INVALID_ARGUMENT;
}

static clgpu_status query_upto(clgpu_context *context, clgpu_operation operation, clgpu_type type,
                               uint64_t max_n, const clgpu_call_options *options,
                               clgpu_workspace_size *report) {
  switch (operation) {
    case CLGPU_OPERATION_REDUCE: {
      clgpu_reduce_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_REDUCE_SUM;
      return clgpu_reduce_workspace_size_upto(context, &op, type, max_n, options, report);
    }
    case CLGPU_OPERATION_SCAN: {
      clgpu_scan_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_SCAN_SUM;
      return clgpu_scan_workspace_size_upto(context, &op, type, max_n, options, report);
    }
    case CLGPU_OPERATION_FINDALL:
      return clgpu_findall_workspace_size_upto(context, type, max_n, options, report);
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
  fail_msg("unknown operation %d", (int)operation);
  return CLGPU_INVALID_ARGUMENT;
}

/* ---- reports ---- */

static void print_report(const char *label, const clgpu_workspace_size *report) {
  print_message("# report of %s: %u part(s), %u buffer(s), alignment %llu, total %llu\n", label,
                report->num_parts, report->num_buffers, (unsigned long long)report->alignment,
                (unsigned long long)report->total_bytes);
  for (unsigned k = 0; k < report->num_parts && k < CLGPU_WORKSPACE_MAX_PARTS; k++) {
    print_message("#   part %u: %s, %s, parent %d\n", k, operation_text(report->parts[k].operation),
                  algorithm_text(report->parts[k].shape), report->parts[k].parent);
  }
  for (unsigned b = 0; b < report->num_buffers && b < CLGPU_WORKSPACE_MAX_BUFFERS; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    print_message("#   buffer %u \"%s\": part %u, %s x %llu at %llu, %llu bytes\n", b,
                  buffer->name ? buffer->name : "(NULL)", buffer->part,
                  clgpu_type_size(buffer->type) ? clgpu_type_cl_name(buffer->type) : "(no type)",
                  (unsigned long long)buffer->count, (unsigned long long)buffer->offset,
                  (unsigned long long)buffer->bytes);
  }
}

#define REPORT_FAIL(report, what, ...) \
  do {                                 \
    print_report((what), (report));    \
    fail_msg("%s: " __VA_ARGS__);      \
  } while (0)

static const clgpu_workspace_buffer *find_buffer(const clgpu_workspace_size *report,
                                                 const char *name) {
  for (unsigned b = 0; b < report->num_buffers && b < CLGPU_WORKSPACE_MAX_BUFFERS; b++) {
    if (report->buffers[b].name && strcmp(report->buffers[b].name, name) == 0) {
      return &report->buffers[b];
    }
  }
  return NULL;
}

/* The structure every report must have (workspace.h), for a call of
 * `operation` whose algorithm resolves to `algorithm`. */
static void check_report(const clgpu_context *context, const clgpu_workspace_size *report,
                         clgpu_operation operation, clgpu_shape algorithm, const char *what) {
  if (report->num_parts < 1 || report->num_parts > CLGPU_WORKSPACE_MAX_PARTS) {
    REPORT_FAIL(report, what, "num_parts %u is not in 1..%d", what, report->num_parts,
                CLGPU_WORKSPACE_MAX_PARTS);
  }
  const clgpu_workspace_part *call = &report->parts[0];
  if (call->operation != operation) {
    REPORT_FAIL(report, what, "part 0 is %s, expected %s", what, operation_text(call->operation),
                operation_text(operation));
  }
  if (call->parent != -1) {
    REPORT_FAIL(report, what, "part 0 has parent %d, expected -1", what, call->parent);
  }
  if (call->shape != algorithm) {
    REPORT_FAIL(report, what, "part 0 has algorithm %s, expected %s (never AUTO)", what,
                algorithm_text(call->shape), algorithm_text(algorithm));
  }
  for (unsigned k = 0; k < report->num_parts; k++) {
    const clgpu_workspace_part *part = &report->parts[k];
    if (part->shape != CLGPU_SHAPE_CHUNKED && part->shape != CLGPU_SHAPE_TILED) {
      REPORT_FAIL(report, what, "part %u has algorithm %d (not resolved)", what, k,
                  (int)part->shape);
    }
    if (part->operation != CLGPU_OPERATION_REDUCE && part->operation != CLGPU_OPERATION_SCAN &&
        part->operation != CLGPU_OPERATION_FINDALL) {
      REPORT_FAIL(report, what, "part %u has operation %d", what, k, (int)part->operation);
    }
    if (k > 0 &&
        (part->parent < 0 || part->parent >= (int)report->num_parts || part->parent == (int)k)) {
      REPORT_FAIL(report, what, "part %u has parent %d", what, k, part->parent);
    }
  }
  if (operation == CLGPU_OPERATION_FINDALL) {
    int nested_scan = 0;
    for (unsigned k = 1; k < report->num_parts; k++) {
      if (report->parts[k].operation == CLGPU_OPERATION_SCAN && report->parts[k].parent == 0) {
        nested_scan = 1;
      }
    }
    if (!nested_scan) {
      REPORT_FAIL(report, what, "findall's report has no scan part whose parent is part 0", what);
    }
  }
  /* workspace.h: "CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8", exactly. */
  uint64_t alignment = device_alignment(context);
  if (report->alignment != alignment) {
    REPORT_FAIL(report, what,
                "alignment %llu, the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8 is %llu", what,
                (unsigned long long)report->alignment, (unsigned long long)alignment);
  }
  if (report->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS) {
    REPORT_FAIL(report, what, "num_buffers %u above %d", what, report->num_buffers,
                CLGPU_WORKSPACE_MAX_BUFFERS);
  }
  uint64_t end = 0;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    if (!buffer->name || !buffer->name[0]) {
      REPORT_FAIL(report, what, "buffer %u has no name", what, b);
    }
    if (buffer->part >= report->num_parts) {
      REPORT_FAIL(report, what, "buffer \"%s\" belongs to part %u of %u", what, buffer->name,
                  buffer->part, report->num_parts);
    }
    size_t size = clgpu_type_size(buffer->type);
    if (size == 0) REPORT_FAIL(report, what, "buffer \"%s\" has no type", what, buffer->name);
    if (buffer->bytes != buffer->count * size) {
      REPORT_FAIL(report, what, "buffer \"%s\": bytes %llu != count %llu * %zu", what, buffer->name,
                  (unsigned long long)buffer->bytes, (unsigned long long)buffer->count, size);
    }
    if (alignment > 0 && buffer->offset % alignment != 0) {
      REPORT_FAIL(report, what, "buffer \"%s\" at offset %llu, not a multiple of %llu", what,
                  buffer->name, (unsigned long long)buffer->offset, (unsigned long long)alignment);
    }
    /* "The end of the last buffer": of those with bytes. A buffer of count
     * 0 may sit at any aligned offset, past the total too. */
    if (buffer->bytes > 0 && buffer->offset + buffer->bytes > end) {
      end = buffer->offset + buffer->bytes;
    }
    for (unsigned c = 0; c < b; c++) {
      const clgpu_workspace_buffer *other = &report->buffers[c];
      if (buffer->bytes == 0 || other->bytes == 0) continue;
      if (buffer->offset < other->offset + other->bytes &&
          other->offset < buffer->offset + buffer->bytes) {
        REPORT_FAIL(report, what, "buffers \"%s\" and \"%s\" overlap", what, other->name,
                    buffer->name);
      }
    }
  }
  if (report->total_bytes != end) {
    REPORT_FAIL(report, what, "total_bytes %llu, the last buffer ends at %llu", what,
                (unsigned long long)report->total_bytes, (unsigned long long)end);
  }
  /* The buffers the headers name: listed whether needed or not. */
  static const char *const reduce_names[] = {"packed_input", NULL};
  static const char *const scan_names[] = {"staged_input", "packed_output", NULL};
  static const char *const findall_names[] = {"packed_input", "count", NULL};
  const char *const *names = operation == CLGPU_OPERATION_REDUCE ? reduce_names
                             : operation == CLGPU_OPERATION_SCAN ? scan_names
                                                                 : findall_names;
  for (size_t i = 0; names[i]; i++) {
    if (!find_buffer(report, names[i])) {
      REPORT_FAIL(report, what, "no buffer \"%s\" listed", what, names[i]);
    }
  }
  if (operation == CLGPU_OPERATION_FINDALL) {
    const clgpu_workspace_buffer *count = find_buffer(report, "count");
    if (count->count != 1 || count->type != CLGPU_TYPE_UINT64) {
      REPORT_FAIL(report, what, "findall's \"count\" buffer is not one uint64", what);
    }
  }
}

/* Field by field (padding and the unused tail of the arrays do not count).
 * On a difference writes what differs into `why` and returns 0. */
static int reports_equal(const clgpu_workspace_size *a, const clgpu_workspace_size *b, char *why,
                         size_t why_size) {
  if (a->num_parts != b->num_parts || a->num_buffers != b->num_buffers) {
    snprintf(why, why_size, "parts %u / %u, buffers %u / %u", a->num_parts, b->num_parts,
             a->num_buffers, b->num_buffers);
    return 0;
  }
  if (a->alignment != b->alignment || a->total_bytes != b->total_bytes) {
    snprintf(why, why_size, "alignment %llu / %llu, total %llu / %llu",
             (unsigned long long)a->alignment, (unsigned long long)b->alignment,
             (unsigned long long)a->total_bytes, (unsigned long long)b->total_bytes);
    return 0;
  }
  for (unsigned k = 0; k < a->num_parts && k < CLGPU_WORKSPACE_MAX_PARTS; k++) {
    if (a->parts[k].operation != b->parts[k].operation || a->parts[k].shape != b->parts[k].shape ||
        a->parts[k].parent != b->parts[k].parent) {
      snprintf(why, why_size, "part %u differs", k);
      return 0;
    }
  }
  for (unsigned i = 0; i < a->num_buffers && i < CLGPU_WORKSPACE_MAX_BUFFERS; i++) {
    const clgpu_workspace_buffer *x = &a->buffers[i], *y = &b->buffers[i];
    int names_equal = (x->name == NULL && y->name == NULL) ||
                      (x->name != NULL && y->name != NULL && strcmp(x->name, y->name) == 0);
    if (!names_equal || x->part != y->part || x->type != y->type || x->count != y->count ||
        x->offset != y->offset || x->bytes != y->bytes) {
      snprintf(why, why_size, "buffer %u (\"%s\" / \"%s\") differs", i,
               x->name ? x->name : "(NULL)", y->name ? y->name : "(NULL)");
      return 0;
    }
  }
  return 1;
}

static void assert_reports_equal(const clgpu_workspace_size *a, const clgpu_workspace_size *b,
                                 const char *what) {
  char why[200];
  if (!reports_equal(a, b, why, sizeof why)) {
    print_report("the first", a);
    print_report("the second", b);
    fail_msg("%s: the reports differ: %s", what, why);
  }
}

/* The same parts and the same buffers (name, part, type), in the same
 * order: "two reports of one operation and algorithm list the same
 * buffers". */
static void assert_same_buffer_list(const clgpu_workspace_size *a, const clgpu_workspace_size *b,
                                    const char *what) {
  int same = a->num_parts == b->num_parts && a->num_buffers == b->num_buffers;
  for (unsigned k = 0; same && k < a->num_parts; k++) {
    same = a->parts[k].operation == b->parts[k].operation &&
           a->parts[k].shape == b->parts[k].shape && a->parts[k].parent == b->parts[k].parent;
  }
  for (unsigned i = 0; same && i < a->num_buffers; i++) {
    same = strcmp(a->buffers[i].name, b->buffers[i].name) == 0 &&
           a->buffers[i].part == b->buffers[i].part && a->buffers[i].type == b->buffers[i].type;
  }
  if (!same) {
    print_report("the first", a);
    print_report("the second", b);
    fail_msg("%s: the two reports do not list the same parts and buffers", what);
  }
}

/* Every buffer of `big` at least as large as in `small`, and the total. */
static void assert_covers(const clgpu_workspace_size *big, const clgpu_workspace_size *small,
                          const char *what) {
  assert_same_buffer_list(big, small, what);
  for (unsigned i = 0; i < big->num_buffers; i++) {
    if (big->buffers[i].bytes < small->buffers[i].bytes) {
      print_report("the larger", big);
      print_report("the smaller", small);
      fail_msg("%s: buffer \"%s\" shrinks: %llu bytes, before %llu", what, big->buffers[i].name,
               (unsigned long long)big->buffers[i].bytes,
               (unsigned long long)small->buffers[i].bytes);
    }
  }
  if (big->total_bytes < small->total_bytes) {
    print_report("the larger", big);
    print_report("the smaller", small);
    fail_msg("%s: total_bytes shrinks: %llu, before %llu", what,
             (unsigned long long)big->total_bytes, (unsigned long long)small->total_bytes);
  }
}

/* Whether some buffer of `big` is larger than in `small`. */
static int needs_more(const clgpu_workspace_size *big, const clgpu_workspace_size *small) {
  for (unsigned i = 0; i < big->num_buffers && i < small->num_buffers; i++) {
    if (big->buffers[i].bytes > small->buffers[i].bytes) return 1;
  }
  return 0;
}

/* ---- device buffers ---- */

static void read_bytes(clgpu_context *context, cl_mem buffer, size_t offset, size_t bytes,
                       void *host) {
  if (bytes == 0) return;
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, offset, bytes,
                                       host, 0, NULL, NULL),
                   CL_SUCCESS);
}

static void write_bytes(clgpu_context *context, cl_mem buffer, size_t offset, size_t bytes,
                        const void *host) {
  if (bytes == 0) return;
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, offset,
                                        bytes, host, 0, NULL, NULL),
                   CL_SUCCESS);
}

static void fill_bytes(clgpu_context *context, cl_mem buffer, size_t offset, size_t bytes,
                       unsigned char value) {
  if (bytes == 0) return;
  unsigned char *host = malloc(bytes);
  assert_non_null(host);
  memset(host, value, bytes);
  write_bytes(context, buffer, offset, bytes, host);
  free(host);
}

static int all_bytes(const unsigned char *data, size_t bytes, unsigned char value) {
  for (size_t i = 0; i < bytes; i++) {
    if (data[i] != value) return 0;
  }
  return 1;
}

static size_t mem_size(cl_mem buffer) {
  size_t size = 0;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL), CL_SUCCESS);
  return size;
}

static cl_uint mem_references(cl_mem buffer) {
  cl_uint count = 0;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL),
                   CL_SUCCESS);
  return count;
}

static cl_uint mem_references_of(void *buffer) { return mem_references((cl_mem)buffer); }

static cl_mem plain_buffer(clgpu_context *context, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

/* ---- calls: an input, its outputs and the host reference ---- */

typedef struct instance {
  const op_spec *spec;
  size_t n;
  ptrdiff_t stride; /* of the input, in elements (1: contiguous) */
  int in_place;     /* scan: the output is the input's view */
  test_case tc;
  size_t size;             /* bytes of an input element */
  size_t in_span;          /* bytes from the input's first element to the end of its last */
  unsigned char *in_image; /* those bytes as written (gaps of a strided view included) */
  unsigned char *values;   /* the n elements, gathered */
  cl_mem in_buffer;
  size_t in_offset;
  cl_mem out_buffer; /* reduce: one element; scan: n elements; findall: n uint32 indices */
  size_t out_offset;
  size_t out_bytes;
  cl_mem count_buffer; /* findall: one uint64 */
  size_t count_offset;
  test_guarded owned[3];
  size_t owned_count;
  clgpu_array input, output, count;
} instance;

#define COUNT_BYTES sizeof(uint64_t)

static void instance_setup(instance *inst, const op_spec *spec, size_t n, ptrdiff_t stride,
                           int in_place, const char *salt) {
  memset(inst, 0, sizeof *inst);
  inst->spec = spec;
  inst->n = n;
  inst->stride = stride;
  inst->in_place = in_place;
  inst->size = clgpu_type_size(spec->type);
  inst->tc = test_make_case(spec->name, n, spec->host_type, spec->distribution, spec->parameter);
  char label[128];
  snprintf(label, sizeof label, "stride %td%s/%s", stride, in_place ? " in place" : "",
           salt ? salt : "");
  inst->tc.seed = test_derive_seed(inst->tc.seed, label);
  size_t span_elements = n ? (n - 1) * (size_t)stride + 1 : 0;
  inst->in_span = span_elements * inst->size;
  inst->in_image = test_allocate(span_elements, spec->host_type);
  test_generate(inst->in_image, span_elements, spec->host_type, spec->distribution, inst->tc.seed,
                spec->parameter);
  inst->values = test_allocate(n, spec->host_type);
  for (size_t i = 0; i < n; i++) {
    memcpy(inst->values + i * inst->size, inst->in_image + i * (size_t)stride * inst->size,
           inst->size);
  }
  switch (spec->operation) {
    case CLGPU_OPERATION_REDUCE:
      inst->out_bytes = inst->size; /* SUM: the input's type */
      break;
    case CLGPU_OPERATION_SCAN:
      inst->out_bytes = n * inst->size;
      break;
    case CLGPU_OPERATION_FINDALL:
      inst->out_bytes = n * sizeof(uint32_t); /* capacity n: every index fits */
      break;
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
}

static void instance_views(instance *inst) {
  const op_spec *spec = inst->spec;
  if (inst->stride == 1) {
    assert_status(
        clgpu_array_1d(inst->in_buffer, inst->in_offset, spec->type, inst->n, &inst->input),
        CLGPU_SUCCESS);
  } else {
    assert_status(clgpu_array_strided(inst->in_buffer, inst->in_offset, spec->type, 1, &inst->n,
                                      &inst->stride, &inst->input),
                  CLGPU_SUCCESS);
  }
  switch (spec->operation) {
    case CLGPU_OPERATION_REDUCE:
      assert_status(
          clgpu_array_1d(inst->out_buffer, inst->out_offset, spec->type, 1, &inst->output),
          CLGPU_SUCCESS);
      break;
    case CLGPU_OPERATION_SCAN:
      if (inst->in_place) {
        inst->output = inst->input;
      } else {
        assert_status(
            clgpu_array_1d(inst->out_buffer, inst->out_offset, spec->type, inst->n, &inst->output),
            CLGPU_SUCCESS);
      }
      break;
    case CLGPU_OPERATION_FINDALL:
      assert_status(clgpu_array_1d(inst->out_buffer, inst->out_offset, CLGPU_TYPE_UINT32, inst->n,
                                   &inst->output),
                    CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(inst->count_buffer, inst->count_offset, CLGPU_TYPE_UINT64, 1,
                                   &inst->count),
                    CLGPU_SUCCESS);
      break;
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
}

/* A call whose input and outputs have guarded buffers of their own, the
 * outputs filled with TEST_GUARD_REGION_FILL. `salt` makes the inputs of
 * calls of the same size differ. */
static void instance_new(clgpu_context *context, instance *inst, const op_spec *spec, size_t n,
                         ptrdiff_t stride, int in_place, const char *salt) {
  instance_setup(inst, spec, n, stride, in_place, salt);
  inst->owned[inst->owned_count] = test_guarded_create(context, inst->in_span, inst->in_image);
  inst->in_buffer = inst->owned[inst->owned_count].buffer;
  inst->in_offset = inst->owned[inst->owned_count].offset;
  inst->owned_count++;
  if (in_place) {
    inst->out_buffer = inst->in_buffer;
    inst->out_offset = inst->in_offset;
  } else {
    inst->owned[inst->owned_count] = test_guarded_create(context, inst->out_bytes, NULL);
    inst->out_buffer = inst->owned[inst->owned_count].buffer;
    inst->out_offset = inst->owned[inst->owned_count].offset;
    inst->owned_count++;
  }
  if (spec->operation == CLGPU_OPERATION_FINDALL) {
    inst->owned[inst->owned_count] = test_guarded_create(context, COUNT_BYTES, NULL);
    inst->count_buffer = inst->owned[inst->owned_count].buffer;
    inst->count_offset = inst->owned[inst->owned_count].offset;
    inst->owned_count++;
  }
  instance_views(inst);
}

/* A call laid out in a buffer of the test's (the aliasing rows): the input
 * written at in_offset, the outputs filled. */
static void instance_place(clgpu_context *context, instance *inst, cl_mem buffer, size_t in_offset,
                           size_t out_offset, size_t count_offset) {
  inst->in_buffer = inst->out_buffer = inst->count_buffer = buffer;
  inst->in_offset = in_offset;
  inst->out_offset = out_offset;
  inst->count_offset = count_offset;
  write_bytes(context, buffer, in_offset, inst->in_span, inst->in_image);
  fill_bytes(context, buffer, out_offset, inst->out_bytes, TEST_GUARD_REGION_FILL);
  if (inst->spec->operation == CLGPU_OPERATION_FINDALL) {
    fill_bytes(context, buffer, count_offset, COUNT_BYTES, TEST_GUARD_REGION_FILL);
  }
  instance_views(inst);
}

static void instance_free(instance *inst) {
  for (size_t i = 0; i < inst->owned_count; i++) test_guarded_release(&inst->owned[i]);
  inst->owned_count = 0;
  free(inst->values);
  free(inst->in_image);
  inst->values = inst->in_image = NULL;
}

/* Back to the state before a call: outputs filled again (in place: the
 * input written again). */
static void instance_refill(clgpu_context *context, instance *inst) {
  if (inst->in_place) {
    write_bytes(context, inst->in_buffer, inst->in_offset, inst->in_span, inst->in_image);
  } else {
    fill_bytes(context, inst->out_buffer, inst->out_offset, inst->out_bytes,
               TEST_GUARD_REGION_FILL);
  }
  if (inst->spec->operation == CLGPU_OPERATION_FINDALL) {
    fill_bytes(context, inst->count_buffer, inst->count_offset, COUNT_BYTES,
               TEST_GUARD_REGION_FILL);
  }
}

static int nonzero_uint8(const void *element) { return *(const uint8_t *)element != 0; }

/* The host reference: the output's bytes (out_bytes) and findall's count. */
static void instance_expected(const instance *inst, unsigned char *expected, uint64_t *count) {
  const op_spec *spec = inst->spec;
  *count = 0;
  switch (spec->operation) {
    case CLGPU_OPERATION_REDUCE:
      test_reference_reduce_sum(inst->values, inst->n, spec->host_type, expected);
      break;
    case CLGPU_OPERATION_SCAN:
      test_reference_scan(inst->values, expected, inst->n, spec->host_type, 1);
      break;
    case CLGPU_OPERATION_FINDALL: {
      assert_int_equal(spec->host_type, TEST_UINT8);
      uint32_t *indices = malloc((inst->n ? inst->n : 1) * sizeof *indices);
      assert_non_null(indices);
      size_t found =
          test_reference_findall(inst->values, inst->n, spec->host_type, nonzero_uint8, indices);
      /* Capacity n: all of them are written, nothing past them. */
      memset(expected, TEST_GUARD_REGION_FILL, inst->out_bytes);
      memcpy(expected, indices, found * sizeof *indices);
      *count = found;
      free(indices);
      break;
    }
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
}

static void instance_check_guards(clgpu_context *context, const instance *inst, const char *what) {
  for (size_t i = 0; i < inst->owned_count; i++) test_guarded_check(context, &inst->owned[i], what);
}

static void check_input_unchanged(clgpu_context *context, const instance *inst, const char *what) {
  unsigned char *now = malloc(inst->in_span ? inst->in_span : 1);
  assert_non_null(now);
  read_bytes(context, inst->in_buffer, inst->in_offset, inst->in_span, now);
  if (memcmp(now, inst->in_image, inst->in_span) != 0) {
    free(now);
    fail_msg("%s: the input changed", what);
  }
  free(now);
}

/* The call's results equal the host reference; the input is unchanged
 * (unless scanned in place) and the guards intact. */
static void instance_check(clgpu_context *context, const instance *inst, const char *what) {
  const op_spec *spec = inst->spec;
  size_t bytes = inst->out_bytes ? inst->out_bytes : 1;
  unsigned char *actual = malloc(bytes), *expected = malloc(bytes);
  assert_non_null(actual);
  assert_non_null(expected);
  uint64_t expected_count = 0;
  instance_expected(inst, expected, &expected_count);
  read_bytes(context, inst->out_buffer, inst->out_offset, inst->out_bytes, actual);
  switch (spec->operation) {
    case CLGPU_OPERATION_REDUCE:
      if (!test_compare(actual, expected, 1, spec->host_type, 0.0, &inst->tc)) {
        fail_msg("%s: wrong sum", what);
      }
      break;
    case CLGPU_OPERATION_SCAN:
      if (!test_compare(actual, expected, inst->n, spec->host_type, 0.0, &inst->tc)) {
        fail_msg("%s: wrong scan", what);
      }
      break;
    case CLGPU_OPERATION_FINDALL: {
      uint64_t count = 0;
      read_bytes(context, inst->count_buffer, inst->count_offset, COUNT_BYTES, &count);
      if (count != expected_count) {
        char text[256];
        test_describe_case(&inst->tc, text, sizeof text);
        fail_msg("%s (%s): count %llu, expected %llu", what, text, (unsigned long long)count,
                 (unsigned long long)expected_count);
      }
      if (!test_compare(actual, expected, (size_t)expected_count, TEST_UINT32, 0.0, &inst->tc)) {
        fail_msg("%s: wrong indices", what);
      }
      size_t written = (size_t)expected_count * sizeof(uint32_t);
      if (!all_bytes(actual + written, inst->out_bytes - written, TEST_GUARD_REGION_FILL)) {
        fail_msg("%s: indices written past the count", what);
      }
      break;
    }
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
  free(expected);
  free(actual);
  if (!inst->in_place) check_input_unchanged(context, inst, what);
  instance_check_guards(context, inst, what);
}

/* After a refusal: outputs still hold their fill, input unchanged, guards
 * intact. */
static void instance_check_untouched(clgpu_context *context, const instance *inst,
                                     const char *what) {
  if (inst->in_place) {
    check_input_unchanged(context, inst, what);
  } else {
    unsigned char *now = malloc(inst->out_bytes ? inst->out_bytes : 1);
    assert_non_null(now);
    read_bytes(context, inst->out_buffer, inst->out_offset, inst->out_bytes, now);
    int untouched = all_bytes(now, inst->out_bytes, TEST_GUARD_REGION_FILL);
    free(now);
    if (!untouched) fail_msg("%s: the output changed", what);
    check_input_unchanged(context, inst, what);
  }
  if (inst->spec->operation == CLGPU_OPERATION_FINDALL) {
    unsigned char count[COUNT_BYTES];
    read_bytes(context, inst->count_buffer, inst->count_offset, COUNT_BYTES, count);
    if (!all_bytes(count, COUNT_BYTES, TEST_GUARD_REGION_FILL)) {
      fail_msg("%s: the count changed", what);
    }
  }
  instance_check_guards(context, inst, what);
}

static clgpu_status instance_query(clgpu_context *context, const instance *inst,
                                   clgpu_shape algorithm, clgpu_workspace_size *report) {
  clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
  return query_views(context, inst->spec->operation, &inst->input, &inst->output, &inst->count,
                     &options, report);
}

/* The size query for a call, which must succeed and give a sane report. */
static clgpu_workspace_size instance_report(clgpu_context *context, const instance *inst,
                                            clgpu_shape algorithm, const char *what) {
  clgpu_workspace_size report;
  memset(&report, 0, sizeof report);
  clgpu_status status = instance_query(context, inst, algorithm, &report);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: size query: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
  }
  check_report(context, &report, inst->spec->operation, resolved_algorithm(context, algorithm),
               what);
  return report;
}

static clgpu_status instance_call(clgpu_context *context, const instance *inst,
                                  clgpu_shape algorithm, clgpu_workspace *workspace,
                                  cl_event *event) {
  clgpu_call_options options = {.shape = algorithm, .workspace = workspace};
  switch (inst->spec->operation) {
    case CLGPU_OPERATION_REDUCE: {
      clgpu_reduce_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_REDUCE_SUM;
      return clgpu_reduce(context, &op, CLGPU_ALL_AXES, &inst->output, &inst->input, &options, 0,
                          NULL, event);
    }
    case CLGPU_OPERATION_SCAN: {
      clgpu_scan_op op;
      memset(&op, 0, sizeof op);
      op.kind = CLGPU_SCAN_SUM;
      return clgpu_scan(context, &op, CLGPU_ALL_AXES, &inst->output, &inst->input, &options, 0,
                        NULL, event);
    }
    case CLGPU_OPERATION_FINDALL:
      return clgpu_findall(context, NULL, &inst->output, &inst->count, &inst->input, &options, 0,
                           NULL, event);
    case CLGPU_OPERATION_SORT: /* sorts have their own workspace rows in test_sort.c */
    case CLGPU_OPERATION_SEARCH: /* and searches in test_search.c */
    case CLGPU_OPERATION_SCAN_BY_KEY: /* and runs in test_runs.c */
    case CLGPU_OPERATION_REDUCE_BY_KEY:
    case CLGPU_OPERATION_UNIQUE:
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
    case CLGPU_OPERATION_HISTOGRAM:      /* and histograms in test_histogram.c */
    case CLGPU_OPERATION_PARTITION:      /* and partitions in test_partition.c */
    case CLGPU_OPERATION_SEGMENTED_SORT: /* and segmented sorts in test_segmented_sort.c */
    case CLGPU_OPERATION_MPI_SORT:       /* and distributed sorts in test_mpi.c */
      break;
  }
  fail_msg("unknown operation");
  return CLGPU_INVALID_ARGUMENT;
}

/* The call works: it returns an event that completes, and the results are
 * right. */
static void run_ok(clgpu_context *context, const instance *inst, clgpu_shape algorithm,
                   clgpu_workspace *workspace, const char *what) {
  cl_event event = NULL;
  clgpu_status status = instance_call(context, inst, algorithm, workspace, &event);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", what, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  if (event == NULL) fail_msg("%s: no event", what);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  clReleaseEvent(event);
  instance_check(context, inst, what);
}

/* The call is refused with `expected`, makes no event and changes nothing.
 * The detail message is copied into `message` (may be NULL). */
static void run_refused(clgpu_context *context, const instance *inst, clgpu_shape algorithm,
                        clgpu_workspace *workspace, clgpu_status expected, const char *what,
                        char *message, size_t message_size) {
  cl_event event = NULL;
  clgpu_status status = instance_call(context, inst, algorithm, workspace, &event);
  if (status != expected) {
    if (status == CLGPU_SUCCESS && event) clReleaseEvent(event);
    fail_msg("%s: %s (%d), expected %s; detail: %s", what, clgpu_status_name(status), (int)status,
             clgpu_status_name(expected), clgpu_last_error());
  }
  if (message) snprintf(message, message_size, "%s", clgpu_last_error());
  print_message("# %s: %s: %s\n", what, clgpu_status_name(status), clgpu_last_error());
  if (event != NULL) fail_msg("%s: refused, but an event was made", what);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  instance_check_untouched(context, inst, what);
}

/* ---- workspaces ---- */

static clgpu_workspace *workspace_create(clgpu_context *context, const clgpu_workspace_size *report,
                                         const char *what) {
  clgpu_workspace *workspace = NULL;
  clgpu_status status = clgpu_workspace_create(context, report, &workspace);
  if (status != CLGPU_SUCCESS) {
    print_report(what, report);
    fail_msg("%s: clgpu_workspace_create: %s: %s", what, clgpu_status_name(status),
             clgpu_last_error());
  }
  assert_non_null(workspace);
  return workspace;
}

/* A workspace wrapped over exactly total_bytes of the caller's guarded
 * buffer, whose region holds random bytes. */
typedef struct carved {
  test_guarded guarded;
  unsigned char *image;
  clgpu_workspace *workspace;
} carved;

static carved carve(clgpu_context *context, const clgpu_workspace_size *report, const char *what) {
  carved c;
  size_t bytes = (size_t)report->total_bytes;
  c.image = random_bytes(bytes, test_case_seed(what));
  c.guarded = test_guarded_create(context, bytes, c.image);
  c.workspace = NULL;
  assert_int_equal(TEST_GUARD_BYTES % device_alignment(context), 0);
  clgpu_status status = clgpu_workspace_wrap(context, report, c.guarded.buffer, c.guarded.offset,
                                             bytes, &c.workspace);
  if (status != CLGPU_SUCCESS) {
    print_report(what, report);
    fail_msg("%s: clgpu_workspace_wrap of exactly %zu bytes: %s: %s", what, bytes,
             clgpu_status_name(status), clgpu_last_error());
  }
  assert_non_null(c.workspace);
  return c;
}

static void carved_release(carved *c) {
  clgpu_workspace_destroy(c->workspace);
  c->workspace = NULL;
  test_guarded_release(&c->guarded);
  free(c->image);
  c->image = NULL;
}

/* The bytes of a workspace as they are now, through clgpu_workspace_region
 * (read on `owner`, the context it was made on). */
typedef struct snapshot {
  cl_mem buffer;
  size_t offset;
  size_t size;
  unsigned char *bytes;
} snapshot;

static snapshot take_snapshot(clgpu_context *owner, const clgpu_workspace *workspace) {
  snapshot s;
  memset(&s, 0, sizeof s);
  assert_status(clgpu_workspace_region(workspace, &s.buffer, &s.offset, &s.size), CLGPU_SUCCESS);
  s.bytes = malloc(s.size ? s.size : 1);
  assert_non_null(s.bytes);
  if (s.buffer) read_bytes(owner, s.buffer, s.offset, s.size, s.bytes);
  return s;
}

static void check_snapshot(clgpu_context *owner, snapshot *s, const char *what) {
  if (s->buffer && s->size) {
    unsigned char *now = malloc(s->size);
    assert_non_null(now);
    read_bytes(owner, s->buffer, s->offset, s->size, now);
    int same = memcmp(now, s->bytes, s->size) == 0;
    free(now);
    if (!same) fail_msg("%s: the refused call wrote to the workspace", what);
  }
  free(s->bytes);
  s->bytes = NULL;
}

/* A refusal with a workspace whose bytes must stay as they were. */
static void run_refused_keeps_workspace(clgpu_context *context, clgpu_context *owner,
                                        const instance *inst, clgpu_shape algorithm,
                                        clgpu_workspace *workspace, clgpu_status expected,
                                        const char *what) {
  snapshot s = take_snapshot(owner, workspace);
  run_refused(context, inst, algorithm, workspace, expected, what, NULL, 0);
  check_snapshot(owner, &s, what);
}

/* ---- 1. the size query ---- */

/* A fixture for queries: views over buffers large enough for every size. */
typedef struct query_fixture {
  cl_mem input;
  cl_mem output;
  cl_mem count;
} query_fixture;

static query_fixture fixture_new(clgpu_context *context) {
  query_fixture f;
  f.input = plain_buffer(context, 2 * MAX_QUERY_N * sizeof(uint64_t));
  f.output = plain_buffer(context, MAX_QUERY_N * sizeof(uint64_t));
  f.count = plain_buffer(context, COUNT_BYTES);
  return f;
}

static void fixture_free(query_fixture *f) {
  clReleaseMemObject(f->input);
  clReleaseMemObject(f->output);
  clReleaseMemObject(f->count);
}

typedef enum layout { CONTIGUOUS, STRIDED, IN_PLACE } layout;
static const char *const layout_names[] = {"contiguous", "stride 2", "in place"};

/* Query `operation` over n elements of `type` in the given layout. */
static clgpu_status fixture_query(clgpu_context *context, const query_fixture *f,
                                  clgpu_operation operation, clgpu_type type, size_t n, layout kind,
                                  const clgpu_call_options *options, clgpu_workspace_size *report) {
  clgpu_array input, output, count;
  if (kind == STRIDED) {
    const ptrdiff_t stride = 2;
    assert_status(clgpu_array_strided(f->input, 0, type, 1, &n, &stride, &input), CLGPU_SUCCESS);
  } else {
    assert_status(clgpu_array_1d(f->input, 0, type, n, &input), CLGPU_SUCCESS);
  }
  clgpu_type output_type = operation == CLGPU_OPERATION_FINDALL ? CLGPU_TYPE_UINT32 : type;
  size_t output_n = operation == CLGPU_OPERATION_REDUCE ? 1 : n;
  assert_status(clgpu_array_1d(f->output, 0, output_type, output_n, &output), CLGPU_SUCCESS);
  if (kind == IN_PLACE) output = input;
  assert_status(clgpu_array_1d(f->count, 0, CLGPU_TYPE_UINT64, 1, &count), CLGPU_SUCCESS);
  return query_views(context, operation, &input, &output, &count, options, report);
}

static const clgpu_operation all_operations[] = {CLGPU_OPERATION_REDUCE, CLGPU_OPERATION_SCAN,
                                                 CLGPU_OPERATION_FINDALL};
static const clgpu_type query_types[] = {CLGPU_TYPE_UINT8, CLGPU_TYPE_INT16, CLGPU_TYPE_UINT32,
                                         CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT64, CLGPU_TYPE_DOUBLE};

static void query_is_pure_and_well_formed(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const int fp64 = clgpu_context_device_info(context)->has_fp64;
  query_fixture f = fixture_new(context);
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  /* Everything below runs inside a cache scope: a query that allocated
   * through clgpu_buffer_create would show in the stats. */
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  static const size_t sizes[] = {0, 1, 93, 4099, 16385, 65537, MAX_QUERY_N};
  static const clgpu_shape algorithms[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_CHUNKED,
                                           CLGPU_SHAPE_TILED};
  size_t queries = 0;
  for (size_t o = 0; o < 3; o++) {
    clgpu_operation operation = all_operations[o];
    for (size_t t = 0; t < sizeof query_types / sizeof query_types[0]; t++) {
      clgpu_type type = query_types[t];
      for (size_t a = 0; a < 3; a++) {
        clgpu_call_options options = {.shape = algorithms[a], .workspace = NULL};
        clgpu_shape expected = resolved_algorithm(context, algorithms[a]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
          for (int kind = CONTIGUOUS; kind <= IN_PLACE; kind++) {
            if (kind == IN_PLACE && operation != CLGPU_OPERATION_SCAN) continue;
            char what[200];
            snprintf(what, sizeof what, "%s query, %s, %s, n=%zu, %s", operation_text(operation),
                     clgpu_type_cl_name(type), algorithm_text(algorithms[a]), sizes[s],
                     layout_names[kind]);
            clgpu_workspace_size first, second;
            memset(&first, 0x00, sizeof first);
            memset(&second, 0xA5, sizeof second);
            clgpu_status status = fixture_query(context, &f, operation, type, sizes[s],
                                                (layout)kind, &options, &first);
            if (type == CLGPU_TYPE_DOUBLE && !fp64) {
              /* Not skipped silently: the query must say the device cannot. */
              if (status != CLGPU_UNSUPPORTED_FEATURE) {
                fail_msg("%s without cl_khr_fp64: %s, expected CLGPU_UNSUPPORTED_FEATURE", what,
                         clgpu_status_name(status));
              }
              continue;
            }
            if (status != CLGPU_SUCCESS) {
              fail_msg("%s: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
            }
            assert_status(fixture_query(context, &f, operation, type, sizes[s], (layout)kind,
                                        &options, &second),
                          CLGPU_SUCCESS);
            queries += 2;
            check_report(context, &first, operation, expected, what);
            assert_reports_equal(&first, &second, what);
            if (algorithms[a] == CLGPU_SHAPE_AUTO && kind == CONTIGUOUS) {
              /* NULL options mean AUTO. */
              clgpu_workspace_size plain;
              assert_status(
                  fixture_query(context, &f, operation, type, sizes[s], CONTIGUOUS, NULL, &plain),
                  CLGPU_SUCCESS);
              assert_reports_equal(&first, &plain, what);
            }
            if (kind != CONTIGUOUS) continue;
            /* The _upto form twice: the same report, sane too. */
            memset(&first, 0x00, sizeof first);
            memset(&second, 0xA5, sizeof second);
            assert_status(query_upto(context, operation, type, sizes[s], &options, &first),
                          CLGPU_SUCCESS);
            assert_status(query_upto(context, operation, type, sizes[s], &options, &second),
                          CLGPU_SUCCESS);
            queries += 2;
            strncat(what, ", upto", sizeof what - strlen(what) - 1);
            check_report(context, &first, operation, expected, what);
            assert_reports_equal(&first, &second, what);
          }
        }
      }
    }
  }
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  print_message("# %zu queries: cache hits %llu, misses %llu, device allocations %llu\n", queries,
                (unsigned long long)stats.hits, (unsigned long long)stats.misses,
                (unsigned long long)stats.device_allocations);
  if (stats.hits != 0 || stats.misses != 0 || stats.device_allocations != 0 ||
      stats.bytes_in_use != 0) {
    fail_msg("the size queries allocated through the cache");
  }
  clgpu_alloc_cache_destroy(cache);

  /* The report depends only on the arguments and the device: a second
   * context on the same device gives the same one. */
  clgpu_context *other = test_context(NULL);
  query_fixture g = fixture_new(other);
  for (size_t o = 0; o < 3; o++) {
    for (size_t a = 0; a < 2; a++) {
      clgpu_call_options options = {.shape = forced_algorithms[a], .workspace = NULL};
      char what[160];
      snprintf(what, sizeof what, "%s, %s, n=65537, on a second context",
               operation_text(all_operations[o]), algorithm_text(forced_algorithms[a]));
      clgpu_workspace_size here, there;
      assert_status(fixture_query(context, &f, all_operations[o], CLGPU_TYPE_INT32, 65537, STRIDED,
                                  &options, &here),
                    CLGPU_SUCCESS);
      assert_status(fixture_query(other, &g, all_operations[o], CLGPU_TYPE_INT32, 65537, STRIDED,
                                  &options, &there),
                    CLGPU_SUCCESS);
      assert_reports_equal(&here, &there, what);
      assert_status(
          query_upto(context, all_operations[o], CLGPU_TYPE_INT32, 65537, &options, &here),
          CLGPU_SUCCESS);
      assert_status(query_upto(other, all_operations[o], CLGPU_TYPE_INT32, 65537, &options, &there),
                    CLGPU_SUCCESS);
      assert_reports_equal(&here, &there, what);
    }
  }
  fixture_free(&g);
  clgpu_context_destroy(other);
  fixture_free(&f);
}

/* ---- 2. monotone in n; _upto covers the exact queries ---- */

static void query_grows_with_n(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  query_fixture f = fixture_new(context);
  size_t sizes[QUERY_SIZE_SLOTS];
  size_t size_count = query_sizes(sizes);
  /* N values for _upto: sizes of the list (0, chunk and tile boundaries,
   * the largest) and one in between. */
  size_t uptos[] = {0, 1, 2049, 8193, 16384, 16385, 65537, 77777, MAX_QUERY_N};
  clgpu_workspace_size *exact = malloc(size_count * sizeof *exact);
  clgpu_workspace_size *in_place = malloc(size_count * sizeof *in_place);
  assert_non_null(exact);
  assert_non_null(in_place);
  static const clgpu_type types[] = {CLGPU_TYPE_UINT8, CLGPU_TYPE_INT32, CLGPU_TYPE_INT64};
  for (size_t o = 0; o < 3; o++) {
    clgpu_operation operation = all_operations[o];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
      for (size_t a = 0; a < 2; a++) {
        clgpu_call_options options = {.shape = forced_algorithms[a], .workspace = NULL};
        for (int kind = CONTIGUOUS; kind <= IN_PLACE; kind++) {
          if (kind == IN_PLACE && operation != CLGPU_OPERATION_SCAN) continue;
          clgpu_workspace_size previous;
          memset(&previous, 0, sizeof previous);
          for (size_t s = 0; s < size_count; s++) {
            char what[200];
            snprintf(what, sizeof what, "%s, %s, %s, %s, n=%zu", operation_text(operation),
                     clgpu_type_cl_name(types[t]), algorithm_text(forced_algorithms[a]),
                     layout_names[kind], sizes[s]);
            clgpu_workspace_size report;
            clgpu_status status = fixture_query(context, &f, operation, types[t], sizes[s],
                                                (layout)kind, &options, &report);
            if (status != CLGPU_SUCCESS) {
              fail_msg("%s: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
            }
            check_report(context, &report, operation, forced_algorithms[a], what);
            if (s > 0) assert_covers(&report, &previous, what);
            previous = report;
            if (kind == CONTIGUOUS) exact[s] = report;
            if (kind == IN_PLACE) in_place[s] = report;
          }
        }
        for (size_t u = 0; u < sizeof uptos / sizeof uptos[0]; u++) {
          char what[200];
          snprintf(what, sizeof what, "%s, %s, %s, upto(%zu)", operation_text(operation),
                   clgpu_type_cl_name(types[t]), algorithm_text(forced_algorithms[a]), uptos[u]);
          clgpu_workspace_size upto;
          assert_status(query_upto(context, operation, types[t], uptos[u], &options, &upto),
                        CLGPU_SUCCESS);
          check_report(context, &upto, operation, forced_algorithms[a], what);
          for (size_t s = 0; s < size_count && sizes[s] <= uptos[u]; s++) {
            char row[260];
            snprintf(row, sizeof row, "%s against the exact query of n=%zu", what, sizes[s]);
            assert_covers(&upto, &exact[s], row);
            if (operation == CLGPU_OPERATION_SCAN) {
              snprintf(row, sizeof row, "%s against the in-place query of n=%zu", what, sizes[s]);
              assert_covers(&upto, &in_place[s], row);
            }
          }
        }
      }
    }
  }
  free(in_place);
  free(exact);
  fixture_free(&f);
}

/* A workspace made from _upto(N) serves every contiguous call of n <= N
 * (and, for scan, in place). */
static void upto_workspace_serves_every_smaller_call(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  size_t sizes[RUN_SIZE_SLOTS];
  size_t size_count = run_sizes(context, sizes);
  const size_t max_n = big_n(context);
  const op_spec *specs[] = {&main_ops[0], &main_ops[1], &main_ops[2], &float_reduce};
  for (size_t o = 0; o < sizeof specs / sizeof specs[0]; o++) {
    const op_spec *spec = specs[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
      clgpu_workspace_size report;
      assert_status(query_upto(context, spec->operation, spec->type, max_n, &options, &report),
                    CLGPU_SUCCESS);
      char what[200];
      snprintf(what, sizeof what, "%s, %s, upto(%zu)", spec->name, algorithm_text(algorithm),
               max_n);
      check_report(context, &report, spec->operation, algorithm, what);
      clgpu_workspace *workspace = workspace_create(context, &report, what);
      for (size_t s = 0; s < size_count; s++) {
        for (int in_place = 0; in_place <= 1; in_place++) {
          if (in_place && (spec->operation != CLGPU_OPERATION_SCAN || s % 3 != 0)) continue;
          snprintf(what, sizeof what, "%s, %s, n=%zu%s with the upto(%zu) workspace", spec->name,
                   algorithm_text(algorithm), sizes[s], in_place ? " in place" : "", max_n);
          instance inst;
          instance_new(context, &inst, spec, sizes[s], 1, in_place, NULL);
          run_ok(context, &inst, algorithm, workspace, what);
          instance_free(&inst);
        }
      }
      clgpu_workspace_destroy(workspace);
    }
  }
}

/* ---- 3. exactly the queried size works; one byte less does not ---- */

/* A report one element short in buffer `index` (consistent otherwise: the
 * total is the new end of the last buffer). */
static clgpu_workspace_size shrunk_report(const clgpu_workspace_size *report, unsigned index) {
  clgpu_workspace_size shrunk = *report;
  clgpu_workspace_buffer *buffer = &shrunk.buffers[index];
  buffer->count -= 1;
  buffer->bytes = buffer->count * clgpu_type_size(buffer->type);
  uint64_t end = 0;
  for (unsigned b = 0; b < shrunk.num_buffers; b++) {
    uint64_t buffer_end = shrunk.buffers[b].offset + shrunk.buffers[b].bytes;
    if (shrunk.buffers[b].bytes > 0 && buffer_end > end) end = buffer_end;
  }
  shrunk.total_bytes = end;
  return shrunk;
}

/* clgpu_workspace_wrap refuses with `expected`, leaves *out NULL and
 * retains nothing. */
static void wrap_refused(clgpu_context *context, const clgpu_workspace_size *report, cl_mem buffer,
                         size_t offset, size_t size, clgpu_status expected, const char *what) {
  cl_uint references = buffer ? mem_references(buffer) : 0;
  clgpu_workspace *workspace = (clgpu_workspace *)&references; /* not NULL */
  clgpu_status status = clgpu_workspace_wrap(context, report, buffer, offset, size, &workspace);
  if (status != expected) {
    if (status == CLGPU_SUCCESS) clgpu_workspace_destroy(workspace);
    fail_msg("%s: clgpu_workspace_wrap(offset %zu, size %zu): %s, expected %s; detail: %s", what,
             offset, size, clgpu_status_name(status), clgpu_status_name(expected),
             clgpu_last_error());
  }
  print_message("# %s: %s: %s\n", what, clgpu_status_name(status), clgpu_last_error());
  if (workspace != NULL) fail_msg("%s: *out is not NULL after a failed wrap", what);
  if (buffer && mem_references(buffer) != references) {
    fail_msg("%s: the failed wrap kept a reference to the buffer", what);
  }
}

static void exact_size_works_one_byte_less_fails(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const uint64_t alignment = device_alignment(context);
  const op_spec *specs[] = {&main_ops[0], &main_ops[1], &main_ops[2], &float_reduce};
  for (size_t o = 0; o < sizeof specs / sizeof specs[0]; o++) {
    const op_spec *spec = specs[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      for (int kind = CONTIGUOUS; kind <= STRIDED; kind++) {
        size_t n = kind == CONTIGUOUS ? big_n(context) : strided_n(context);
        char what[200];
        snprintf(what, sizeof what, "%s, %s, n=%zu, %s input", spec->name,
                 algorithm_text(algorithm), n, layout_names[kind]);
        instance inst;
        instance_new(context, &inst, spec, n, kind == STRIDED ? 2 : 1, 0, "exact size");
        clgpu_workspace_size report = instance_report(context, &inst, algorithm, what);
        if (report.total_bytes == 0) {
          /* A strided input is always packed first ("packed_input",
           * "staged_input"): it needs room. */
          if (kind == STRIDED) fail_msg("%s: total_bytes is 0 for a strided input", what);
          print_message("# %s needs no workspace; its strided row covers the sizes\n", what);
          instance_free(&inst);
          continue;
        }
        /* Exactly total_bytes, at an aligned offset inside a guarded
         * buffer: works, and the guards around it stay intact. */
        carved c = carve(context, &report, what);
        clgpu_workspace_size described;
        assert_status(clgpu_workspace_describe(c.workspace, &described), CLGPU_SUCCESS);
        assert_reports_equal(&report, &described, what);
        run_ok(context, &inst, algorithm, c.workspace, what);
        test_guarded_check(context, &c.guarded, what);
        instance_refill(context, &inst);

        /* The library's own workspace for the same report works too. */
        clgpu_workspace *made = workspace_create(context, &report, what);
        run_ok(context, &inst, algorithm, made, what);
        clgpu_workspace_destroy(made);
        instance_refill(context, &inst);

        /* Wraps that clgpu_workspace_wrap refuses. */
        const size_t total = (size_t)report.total_bytes;
        const size_t buffer_size = mem_size(c.guarded.buffer);
        char row[300];
        snprintf(row, sizeof row, "%s, wrap of total_bytes - 1", what);
        wrap_refused(context, &report, c.guarded.buffer, c.guarded.offset, total - 1,
                     CLGPU_WORKSPACE_TOO_SMALL, row);
        snprintf(row, sizeof row, "%s, wrap of a region from the region to one byte past the end",
                 what);
        wrap_refused(context, &report, c.guarded.buffer, c.guarded.offset,
                     buffer_size - c.guarded.offset + 1, CLGPU_WORKSPACE_TOO_SMALL, row);
        snprintf(row, sizeof row, "%s, wrap at an aligned offset past the end", what);
        wrap_refused(context, &report, c.guarded.buffer, align_up(buffer_size, alignment), total,
                     CLGPU_WORKSPACE_TOO_SMALL, row);
        if (alignment > 1) {
          snprintf(row, sizeof row, "%s, wrap one byte past an aligned offset", what);
          wrap_refused(context, &report, c.guarded.buffer, c.guarded.offset + 1, total,
                       CLGPU_WORKSPACE_MISALIGNED, row);
          snprintf(row, sizeof row, "%s, wrap half an alignment past an aligned offset", what);
          wrap_refused(context, &report, c.guarded.buffer, c.guarded.offset + (size_t)alignment / 2,
                       total, CLGPU_WORKSPACE_MISALIGNED, row);
        } else {
          print_message("# alignment 1: no offset is misaligned\n");
        }

        /* One element short in any one buffer: the workspace can be made
         * (the report is consistent) but the call refuses it, naming the
         * buffer. */
        for (unsigned b = 0; b < report.num_buffers; b++) {
          if (report.buffers[b].count == 0) continue;
          clgpu_workspace_size shrunk = shrunk_report(&report, b);
          snprintf(row, sizeof row, "%s, \"%s\" one element short", what, report.buffers[b].name);
          carved short_one = carve(context, &shrunk, row);
          char message[1024];
          snapshot s = take_snapshot(context, short_one.workspace);
          run_refused(context, &inst, algorithm, short_one.workspace, CLGPU_WORKSPACE_TOO_SMALL,
                      row, message, sizeof message);
          check_snapshot(context, &s, row);
          test_guarded_check(context, &short_one.guarded, row);
          if (!strstr(message, report.buffers[b].name)) {
            fail_msg("%s: the message does not name the buffer: %s", row, message);
          }
          carved_release(&short_one);
        }
        test_guarded_check(context, &c.guarded, what);
        carved_release(&c);
        instance_free(&inst);
      }
    }
  }
}

/* ---- 4. a workspace for a smaller call ---- */

static void workspace_for_smaller_call_is_refused(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const int grind = test_on_oclgrind(context);
  /* (small, candidates for the larger call): the first candidate whose
   * report needs more than the small one's is used. */
  static const size_t contiguous_larger[] = {16385, 32769, 65537};
  static const size_t oclgrind_larger[] = {2049, 4097};
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      for (int kind = CONTIGUOUS; kind <= STRIDED; kind++) {
        ptrdiff_t stride = kind == STRIDED ? 2 : 1;
        size_t small_n = kind == STRIDED ? 93 : (grind ? 93 : 1000);
        char what[200];
        snprintf(what, sizeof what, "%s, %s, %s, workspace for n=%zu", spec->name,
                 algorithm_text(algorithm), layout_names[kind], small_n);
        instance small;
        instance_new(context, &small, spec, small_n, stride, 0, "smaller");
        clgpu_workspace_size small_report = instance_report(context, &small, algorithm, what);
        instance big;
        memset(&big, 0, sizeof big);
        int found = 0;
        const size_t *larger = kind == STRIDED ? NULL : grind ? oclgrind_larger : contiguous_larger;
        size_t larger_count = kind == STRIDED ? 1
                              : grind         ? sizeof oclgrind_larger / sizeof oclgrind_larger[0]
                                      : sizeof contiguous_larger / sizeof contiguous_larger[0];
        size_t big_count = 0;
        clgpu_workspace_size big_report;
        for (size_t l = 0; l < larger_count && !found; l++) {
          big_count = larger ? larger[l] : strided_n(context);
          instance_new(context, &big, spec, big_count, stride, 0, "larger");
          big_report = instance_report(context, &big, algorithm, what);
          assert_covers(&big_report, &small_report, what);
          if (needs_more(&big_report, &small_report)) {
            found = 1;
          } else {
            instance_free(&big);
          }
        }
        if (!found) {
          /* The strided pair always differs in "packed_input" /
           * "staged_input". */
          if (kind == STRIDED)
            fail_msg("%s: n=%zu needs no more than n=%zu", what, big_count, small_n);
          print_message("# %s: no larger contiguous call needs more here\n", what);
          instance_free(&small);
          continue;
        }
        char row[300];
        snprintf(row, sizeof row, "%s, used for n=%zu (library-made)", what, big_count);
        clgpu_workspace *made = workspace_create(context, &small_report, row);
        /* clgpu_workspace_check says so before any call, and serves the
         * report it was made from. */
        assert_int_equal(clgpu_workspace_check(context, made, &big_report),
                         CLGPU_WORKSPACE_TOO_SMALL);
        assert_non_null(strstr(clgpu_last_error(), "clgpu_workspace_check"));
        assert_int_equal(clgpu_workspace_check(context, made, &small_report), CLGPU_SUCCESS);
        run_refused_keeps_workspace(context, context, &big, algorithm, made,
                                    CLGPU_WORKSPACE_TOO_SMALL, row);
        if (small_report.total_bytes > 0) {
          snprintf(row, sizeof row, "%s, used for n=%zu (wrapped)", what, big_count);
          carved c = carve(context, &small_report, row);
          run_refused_keeps_workspace(context, context, &big, algorithm, c.workspace,
                                      CLGPU_WORKSPACE_TOO_SMALL, row);
          test_guarded_check(context, &c.guarded, row);
          carved_release(&c);
        }
        /* It still serves the call it was made for. */
        snprintf(row, sizeof row, "%s, used for n=%zu", what, small_n);
        run_ok(context, &small, algorithm, made, row);
        clgpu_workspace_destroy(made);
        instance_free(&big);
        instance_free(&small);
      }
    }
  }
}

/* clgpu_workspace_check's refusals of its arguments and of another
 * operation's workspace, and clgpu_reduce_read_workspace_size's report,
 * the same as clgpu_reduce_workspace_size's for that input. */
/* clgpu_workspace_finish: at once for a workspace no call used, then until
 * the last call's work is done, on whichever queue it ran. */
static void finish_waits_for_the_last_call(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  size_t n = 200000;
  cl_mem buffer = NULL;
  assert_int_equal(clgpu_buffer_create(context, CL_MEM_READ_WRITE, (n + 1) * 4, &buffer),
                   CLGPU_SUCCESS);
  clgpu_array input = clgpu_array_of(buffer, CLGPU_TYPE_UINT32, n), output;
  assert_int_equal(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_UINT32, 1, &output), CLGPU_SUCCESS);
  uint32_t one = 1;
  assert_int_equal(clgpu_fill(context, &input, &one, 0, NULL, NULL), CLGPU_SUCCESS);
  clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
  clgpu_workspace_size report;
  assert_int_equal(
      clgpu_reduce_workspace_size(context, &op, CLGPU_ALL_AXES, &output, &input, NULL, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = workspace_create(context, &report, "reduce");
  assert_int_equal(clgpu_workspace_finish(workspace), CLGPU_SUCCESS);
  assert_int_equal(clgpu_workspace_finish(NULL), CLGPU_INVALID_ARGUMENT);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  /* A call on a queue of the caller's: after the finish, its output is
   * there for a read on another queue that does not wait for it. (Not
   * its event's status: rusticl of Mesa 22.3 leaves it CL_QUEUED until
   * someone waits for it.) */
  uint32_t zero = 0, sum = 0;
  assert_int_equal(clgpu_fill(context, &output, &zero, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(clgpu_context_cl_context(context),
                                                clgpu_context_device(context), 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_call_options options = {.workspace = workspace, .queue = queue};
  cl_event done = NULL;
  assert_int_equal(
      clgpu_reduce(context, &op, CLGPU_ALL_AXES, &output, &input, &options, 0, NULL, &done),
      CLGPU_SUCCESS);
  clFlush(queue);
  assert_int_equal(clgpu_workspace_finish(workspace), CLGPU_SUCCESS);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, n * 4,
                                       sizeof sum, &sum, 0, NULL, NULL),
                   CL_SUCCESS);
  assert_int_equal(sum, (uint32_t)n);
  clReleaseEvent(done);
  clgpu_workspace_destroy(workspace);
  clReleaseCommandQueue(queue);
  clgpu_buffer_release(context, buffer);
}

static void check_and_reduce_read_query(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  cl_mem buffer = NULL;
  size_t n = 5000;
  assert_int_equal(clgpu_buffer_create(context, CL_MEM_READ_WRITE, (n + 1) * 4, &buffer),
                   CLGPU_SUCCESS);
  clgpu_array input = clgpu_array_of(buffer, CLGPU_TYPE_FLOAT, n), output;
  assert_int_equal(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_FLOAT, 1, &output), CLGPU_SUCCESS);
  clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
  clgpu_workspace_size read_report, reduce_report, scan_report;
  assert_int_equal(clgpu_reduce_read_workspace_size(context, &op, &input, NULL, &read_report),
                   CLGPU_SUCCESS);
  assert_int_equal(clgpu_reduce_workspace_size(context, &op, CLGPU_ALL_AXES, &output, &input, NULL,
                                               &reduce_report),
                   CLGPU_SUCCESS);
  assert_reports_equal(&read_report, &reduce_report, "reduce_read against reduce");
  assert_int_equal(clgpu_reduce_read_workspace_size(context, &op, NULL, NULL, &read_report),
                   CLGPU_INVALID_ARGUMENT);
  assert_int_equal(clgpu_reduce_read_workspace_size(context, NULL, &input, NULL, &read_report),
                   CLGPU_INVALID_ARGUMENT);
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  assert_int_equal(
      clgpu_scan_workspace_size(context, &scan, CLGPU_ALL_AXES, &input, &input, NULL, &scan_report),
      CLGPU_SUCCESS);
  clgpu_workspace *made = workspace_create(context, &reduce_report, "reduce");
  assert_int_equal(clgpu_workspace_check(context, made, &reduce_report), CLGPU_SUCCESS);
  assert_int_equal(clgpu_workspace_check(context, made, &scan_report),
                   CLGPU_WORKSPACE_WRONG_OPERATION);
  assert_int_equal(clgpu_workspace_check(NULL, made, &scan_report), CLGPU_INVALID_ARGUMENT);
  assert_int_equal(clgpu_workspace_check(context, NULL, &scan_report), CLGPU_INVALID_ARGUMENT);
  assert_int_equal(clgpu_workspace_check(context, made, NULL), CLGPU_INVALID_ARGUMENT);
  clgpu_workspace_size empty;
  memset(&empty, 0, sizeof empty);
  assert_int_equal(clgpu_workspace_check(context, made, &empty), CLGPU_INVALID_ARGUMENT);
  /* The workspace still serves its call. */
  float sum = 0;
  clgpu_call_options options = {.workspace = made};
  assert_int_equal(clgpu_reduce_read(context, &op, &sum, sizeof sum, &input, &options),
                   CLGPU_SUCCESS);
  clgpu_workspace_destroy(made);
  clgpu_buffer_release(context, buffer);
}

/* ---- 5. another operation, algorithm or context ---- */

static void wrong_operation_algorithm_or_context(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  clgpu_context *other = test_context(NULL);
  const size_t max_n = big_n(context);
  const size_t n = test_on_oclgrind(context) ? 1000 : 4099;
  const clgpu_shape automatic = resolved_algorithm(context, CLGPU_SHAPE_AUTO);
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
      instance inst;
      instance_new(context, &inst, spec, n, 1, 0, "wrong");
      char what[300];

      /* Workspaces of the other operations, large enough for anything of
       * this size: only the operation is wrong. */
      for (size_t p = 0; p < MAIN_OP_COUNT; p++) {
        if (main_ops[p].operation == spec->operation) continue;
        clgpu_workspace_size report;
        assert_status(
            query_upto(context, main_ops[p].operation, main_ops[p].type, max_n, &options, &report),
            CLGPU_SUCCESS);
        snprintf(what, sizeof what, "%s, %s, n=%zu, given a %s workspace", spec->name,
                 algorithm_text(algorithm), n, main_ops[p].name);
        clgpu_workspace *made = workspace_create(context, &report, what);
        run_refused_keeps_workspace(context, context, &inst, algorithm, made,
                                    CLGPU_WORKSPACE_WRONG_OPERATION, what);
        clgpu_workspace_destroy(made);
        if (report.total_bytes > 0) {
          strncat(what, " (wrapped)", sizeof what - strlen(what) - 1);
          carved c = carve(context, &report, what);
          run_refused_keeps_workspace(context, context, &inst, algorithm, c.workspace,
                                      CLGPU_WORKSPACE_WRONG_OPERATION, what);
          test_guarded_check(context, &c.guarded, what);
          carved_release(&c);
        }
      }

      /* Made for the other algorithm. */
      clgpu_call_options other_options = {.shape = other_algorithm(algorithm), .workspace = NULL};
      clgpu_workspace_size report;
      assert_status(
          query_upto(context, spec->operation, spec->type, max_n, &other_options, &report),
          CLGPU_SUCCESS);
      snprintf(what, sizeof what, "%s, call forcing %s, workspace made for %s", spec->name,
               algorithm_text(algorithm), algorithm_text(other_algorithm(algorithm)));
      clgpu_workspace *made = workspace_create(context, &report, what);
      run_refused_keeps_workspace(context, context, &inst, algorithm, made,
                                  CLGPU_WORKSPACE_WRONG_ALGORITHM, what);
      /* AUTO resolves before the check: a workspace of the algorithm AUTO
       * resolves to works, the other one is refused. */
      snprintf(what, sizeof what, "%s, call with AUTO (%s here), workspace made for %s", spec->name,
               algorithm_text(automatic), algorithm_text(other_algorithm(algorithm)));
      if (other_algorithm(algorithm) == automatic) {
        run_ok(context, &inst, CLGPU_SHAPE_AUTO, made, what);
        instance_refill(context, &inst);
      } else {
        run_refused_keeps_workspace(context, context, &inst, CLGPU_SHAPE_AUTO, made,
                                    CLGPU_WORKSPACE_WRONG_ALGORITHM, what);
      }
      clgpu_workspace_destroy(made);

      /* Made on a second context of the same device. */
      clgpu_workspace_size other_report;
      assert_status(query_upto(other, spec->operation, spec->type, max_n, &options, &other_report),
                    CLGPU_SUCCESS);
      snprintf(what, sizeof what, "%s, %s, workspace made on another context", spec->name,
               algorithm_text(algorithm));
      clgpu_workspace *foreign = workspace_create(other, &other_report, what);
      run_refused_keeps_workspace(context, other, &inst, algorithm, foreign,
                                  CLGPU_WORKSPACE_WRONG_DEVICE, what);
      clgpu_workspace_destroy(foreign);
      if (other_report.total_bytes > 0) {
        snprintf(what, sizeof what, "%s, %s, workspace wrapped on another context", spec->name,
                 algorithm_text(algorithm));
        carved c = carve(other, &other_report, what);
        run_refused_keeps_workspace(context, other, &inst, algorithm, c.workspace,
                                    CLGPU_WORKSPACE_WRONG_DEVICE, what);
        test_guarded_check(other, &c.guarded, what);
        carved_release(&c);
        /* A buffer of the other OpenCL context cannot be wrapped here. */
        test_guarded foreign_buffer =
            test_guarded_create(other, (size_t)other_report.total_bytes, NULL);
        snprintf(what, sizeof what, "%s, %s, wrap of another context's buffer", spec->name,
                 algorithm_text(algorithm));
        clgpu_workspace_size own_report;
        assert_status(
            query_upto(context, spec->operation, spec->type, max_n, &options, &own_report),
            CLGPU_SUCCESS);
        wrap_refused(context, &own_report, foreign_buffer.buffer, foreign_buffer.offset,
                     (size_t)own_report.total_bytes, CLGPU_MISMATCHED_OBJECTS, what);
        test_guarded_release(&foreign_buffer);
      }

      /* The control: the right workspace works with this very call. */
      assert_status(query_upto(context, spec->operation, spec->type, max_n, &options, &report),
                    CLGPU_SUCCESS);
      snprintf(what, sizeof what, "%s, %s, the right workspace", spec->name,
               algorithm_text(algorithm));
      made = workspace_create(context, &report, what);
      run_ok(context, &inst, algorithm, made, what);
      clgpu_workspace_destroy(made);
      instance_free(&inst);
    }
  }
  clgpu_context_destroy(other);
}

/* ---- 6. aliasing ---- */

typedef enum alias_row {
  OVER_INPUT_START,
  OVER_INPUT_END,
  OVER_OUTPUT,
  OVER_COUNT,
  AFTER_INPUT,
  BEFORE_INPUT,
  AFTER_OUTPUT,
  BEFORE_OUTPUT,
  AFTER_COUNT,
  BEFORE_COUNT,
  ALIAS_ROW_COUNT
} alias_row;

static const char *const alias_row_names[] = {
    "workspace over the input's first bytes",
    "workspace over the input's last bytes",
    "workspace over the output",
    "workspace over the count",
    "workspace right after the input",
    "workspace right before the input",
    "workspace right after the output",
    "workspace right before the output",
    "workspace right after the count",
    "workspace right before the count",
};

static void aliasing(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const size_t alignment = (size_t)device_alignment(context);
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      /* A call that needs a workspace: the large contiguous one, else a
       * strided one (which packs its input). */
      instance inst;
      instance_new(context, &inst, spec, big_n(context), 1, 0, "aliasing");
      char what[300];
      snprintf(what, sizeof what, "%s, %s, aliasing", spec->name, algorithm_text(algorithm));
      clgpu_workspace_size report = instance_report(context, &inst, algorithm, what);
      if (report.total_bytes == 0) {
        instance_free(&inst);
        instance_new(context, &inst, spec, strided_n(context), 2, 0, "aliasing");
        report = instance_report(context, &inst, algorithm, what);
        if (report.total_bytes == 0) fail_msg("%s: total_bytes is 0 for a strided input", what);
      }
      const size_t total = (size_t)report.total_bytes;
      const size_t out_element =
          spec->operation == CLGPU_OPERATION_FINDALL ? sizeof(uint32_t) : inst.size;
      /* Four slots, each room for any one thing and a workspace next to
       * it: input, output, count, workspace. */
      const size_t slot = align_up(inst.in_span, alignment) + align_up(inst.out_bytes, alignment) +
                          align_up(total, alignment) + 4 * alignment;
      const size_t arena_bytes = 4 * slot;
      for (int r = 0; r < ALIAS_ROW_COUNT; r++) {
        int findall = spec->operation == CLGPU_OPERATION_FINDALL;
        if ((r == OVER_COUNT || r == AFTER_COUNT || r == BEFORE_COUNT) && !findall) continue;
        size_t in_offset = 0, out_offset = slot, count_offset = 2 * slot, ws_offset = 3 * slot;
        size_t in_element = inst.size;
        switch ((alias_row)r) {
          case OVER_INPUT_START:
            ws_offset = in_offset;
            break;
          case OVER_INPUT_END:
            ws_offset = inst.in_span ? (inst.in_span - 1) / alignment * alignment : 0;
            break;
          case OVER_OUTPUT:
            ws_offset = out_offset;
            break;
          case OVER_COUNT:
            ws_offset = count_offset;
            break;
          case AFTER_INPUT:
            in_offset = align_up(inst.in_span, alignment) - inst.in_span;
            ws_offset = in_offset + inst.in_span;
            break;
          case BEFORE_INPUT:
            ws_offset = 0;
            in_offset = align_up(total, in_element);
            break;
          case AFTER_OUTPUT:
            out_offset = slot + align_up(inst.out_bytes, alignment) - inst.out_bytes;
            ws_offset = out_offset + inst.out_bytes;
            break;
          case BEFORE_OUTPUT:
            ws_offset = slot;
            out_offset = slot + align_up(total, out_element);
            break;
          case AFTER_COUNT:
            count_offset = 2 * slot + alignment - COUNT_BYTES;
            ws_offset = 2 * slot + alignment;
            break;
          case BEFORE_COUNT:
            ws_offset = 2 * slot;
            count_offset = 2 * slot + align_up(total, COUNT_BYTES);
            break;
          case ALIAS_ROW_COUNT:
            break;
        }
        int overlaps = r <= OVER_COUNT;
        char row[400];
        snprintf(row, sizeof row, "%s, n=%zu, %s: %s", what, inst.n,
                 layout_names[inst.stride == 1 ? CONTIGUOUS : STRIDED], alias_row_names[r]);
        unsigned char *image = random_bytes(arena_bytes, test_case_seed(row));
        test_guarded arena = test_guarded_create(context, arena_bytes, image);
        instance_place(context, &inst, arena.buffer, arena.offset + in_offset,
                       arena.offset + out_offset, arena.offset + count_offset);
        /* The arena as it is before the call. */
        read_bytes(context, arena.buffer, arena.offset, arena_bytes, image);
        clgpu_workspace *workspace = NULL;
        assert_status(clgpu_workspace_wrap(context, &report, arena.buffer, arena.offset + ws_offset,
                                           total, &workspace),
                      CLGPU_SUCCESS);
        unsigned char *after = malloc(arena_bytes);
        assert_non_null(after);
        if (overlaps) {
          run_refused(context, &inst, algorithm, workspace, CLGPU_WORKSPACE_ALIASES_ARGUMENT, row,
                      NULL, 0);
          /* Nothing at all changed, the workspace's bytes included. */
          read_bytes(context, arena.buffer, arena.offset, arena_bytes, after);
          if (memcmp(after, image, arena_bytes) != 0) fail_msg("%s: the buffer changed", row);
        } else {
          run_ok(context, &inst, algorithm, workspace, row);
          /* Outside the outputs and the workspace, nothing changed. */
          read_bytes(context, arena.buffer, arena.offset, arena_bytes, after);
          for (size_t i = 0; i < arena_bytes; i++) {
            int output = i >= out_offset && i < out_offset + inst.out_bytes;
            int count = findall && i >= count_offset && i < count_offset + COUNT_BYTES;
            int scratch = i >= ws_offset && i < ws_offset + total;
            if (!output && !count && !scratch && after[i] != image[i]) {
              fail_msg(
                  "%s: byte %zu of the buffer changed (input at %zu, output at %zu, "
                  "workspace at %zu)",
                  row, i, in_offset, out_offset, ws_offset);
            }
          }
        }
        test_guarded_check(context, &arena, row);
        free(after);
        clgpu_workspace_destroy(workspace);
        test_guarded_release(&arena);
        free(image);
      }
      instance_free(&inst);
    }
  }
}

/* ---- 7. no device allocation with a workspace ---- */

static clgpu_alloc_stats stats_of(const clgpu_alloc_cache *cache) {
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  return stats;
}

static void assert_no_allocation(clgpu_alloc_stats before, clgpu_alloc_stats after,
                                 const char *what) {
  if (before.hits != after.hits || before.misses != after.misses ||
      before.device_allocations != after.device_allocations) {
    fail_msg(
        "%s: the call allocated: hits %llu -> %llu, misses %llu -> %llu, device "
        "allocations %llu -> %llu",
        what, (unsigned long long)before.hits, (unsigned long long)after.hits,
        (unsigned long long)before.misses, (unsigned long long)after.misses,
        (unsigned long long)before.device_allocations,
        (unsigned long long)after.device_allocations);
  }
}

static void no_device_allocation_with_workspace(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      for (int kind = CONTIGUOUS; kind <= STRIDED; kind++) {
        size_t n = kind == CONTIGUOUS ? big_n(context) : strided_n(context);
        char what[300];
        snprintf(what, sizeof what, "%s, %s, n=%zu, %s input", spec->name,
                 algorithm_text(algorithm), n, layout_names[kind]);
        instance inst;
        instance_new(context, &inst, spec, n, kind == STRIDED ? 2 : 1, 0, "allocation");
        clgpu_workspace_size report = instance_report(context, &inst, algorithm, what);
        if (report.total_bytes == 0) {
          if (kind == STRIDED) fail_msg("%s: total_bytes is 0 for a strided input", what);
          print_message("# %s needs no workspace; its strided row covers allocation\n", what);
          instance_free(&inst);
          continue;
        }
        /* Made before the scope (a plain buffer), and wrapped. */
        clgpu_workspace *made = workspace_create(context, &report, what);
        carved c = carve(context, &report, what);
        clgpu_alloc_cache *cache = NULL;
        assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
        assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
        char row[400];

        clgpu_alloc_stats before = stats_of(cache);
        snprintf(row, sizeof row, "%s, workspace made before the scope", what);
        run_ok(context, &inst, algorithm, made, row);
        assert_no_allocation(before, stats_of(cache), row);
        instance_refill(context, &inst);

        before = stats_of(cache);
        snprintf(row, sizeof row, "%s, wrapped workspace", what);
        run_ok(context, &inst, algorithm, c.workspace, row);
        assert_no_allocation(before, stats_of(cache), row);
        instance_refill(context, &inst);

        /* Made inside the scope: the cache serves the workspace itself,
         * and nothing more. */
        before = stats_of(cache);
        clgpu_workspace *scoped = workspace_create(context, &report, what);
        clgpu_alloc_stats made_stats = stats_of(cache);
        if (made_stats.hits + made_stats.misses != before.hits + before.misses + 1) {
          fail_msg("%s: clgpu_workspace_create inside a scope made %llu cache requests, not 1",
                   what,
                   (unsigned long long)(made_stats.hits + made_stats.misses - before.hits -
                                        before.misses));
        }
        snprintf(row, sizeof row, "%s, workspace made inside the scope", what);
        run_ok(context, &inst, algorithm, scoped, row);
        assert_no_allocation(made_stats, stats_of(cache), row);
        instance_refill(context, &inst);
        clgpu_workspace_destroy(scoped);

        if (spec->operation == CLGPU_OPERATION_FINDALL) {
          /* findall_read without a count view counts into the workspace's
           * "count" buffer: still no allocation. */
          before = stats_of(cache);
          snprintf(row, sizeof row, "%s, clgpu_findall_read without a count view", what);
          clgpu_call_options options = {.shape = algorithm, .workspace = made};
          uint64_t count = UINT64_MAX;
          clgpu_status status =
              clgpu_findall_read(context, NULL, &inst.output, NULL, &count, &inst.input, &options);
          if (status != CLGPU_SUCCESS) {
            fail_msg("%s: %s: %s", row, clgpu_status_name(status), clgpu_last_error());
          }
          assert_no_allocation(before, stats_of(cache), row);
          unsigned char *expected = malloc(inst.out_bytes ? inst.out_bytes : 1);
          unsigned char *actual = malloc(inst.out_bytes ? inst.out_bytes : 1);
          assert_non_null(expected);
          assert_non_null(actual);
          uint64_t expected_count = 0;
          instance_expected(&inst, expected, &expected_count);
          if (count != expected_count) {
            fail_msg("%s: count %llu, expected %llu", row, (unsigned long long)count,
                     (unsigned long long)expected_count);
          }
          read_bytes(context, inst.out_buffer, inst.out_offset, inst.out_bytes, actual);
          if (!test_compare(actual, expected, inst.out_bytes / sizeof(uint32_t), TEST_UINT32, 0.0,
                            &inst.tc)) {
            fail_msg("%s: wrong indices", row);
          }
          /* The count view of the instance was not given: untouched. */
          unsigned char count_bytes[COUNT_BYTES];
          read_bytes(context, inst.count_buffer, inst.count_offset, COUNT_BYTES, count_bytes);
          if (!all_bytes(count_bytes, COUNT_BYTES, TEST_GUARD_REGION_FILL)) {
            fail_msg("%s: wrote to a count view it was not given", row);
          }
          instance_check_guards(context, &inst, row);
          free(actual);
          free(expected);
          instance_refill(context, &inst);
        }

        /* The same call without a workspace allocates: the checks above
         * can fail. */
        before = stats_of(cache);
        snprintf(row, sizeof row, "%s, no workspace", what);
        run_ok(context, &inst, algorithm, NULL, row);
        clgpu_alloc_stats after = stats_of(cache);
        if (after.hits + after.misses <= before.hits + before.misses) {
          fail_msg(
              "%s: the call without a workspace made no cache request, though its report "
              "asks for %llu bytes",
              row, (unsigned long long)report.total_bytes);
        }
        assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
        clgpu_alloc_cache_destroy(cache);
        test_guarded_check(context, &c.guarded, what);
        carved_release(&c);
        clgpu_workspace_destroy(made);
        instance_free(&inst);
      }
    }
  }
}

/* ---- 8. one workspace, many calls in turn ---- */

#define REUSE_CALLS 20

static void reuse_in_turn(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      for (int kind = CONTIGUOUS; kind <= STRIDED; kind++) {
        /* Contiguous calls of n <= N with the _upto(N) workspace; strided
         * ones of n <= N with the exact workspace of N (every buffer grows
         * with n). */
        const size_t max_n = kind == CONTIGUOUS ? big_n(context) : strided_n(context);
        const ptrdiff_t stride = kind == STRIDED ? 2 : 1;
        char what[300];
        snprintf(what, sizeof what, "%s, %s, %s, %d calls with one workspace", spec->name,
                 algorithm_text(algorithm), layout_names[kind], REUSE_CALLS);
        clgpu_workspace_size report;
        instance *calls = calloc(REUSE_CALLS, sizeof *calls);
        assert_non_null(calls);
        if (kind == CONTIGUOUS) {
          clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
          assert_status(query_upto(context, spec->operation, spec->type, max_n, &options, &report),
                        CLGPU_SUCCESS);
        } else {
          instance largest;
          instance_new(context, &largest, spec, max_n, stride, 0, "reuse sizing");
          report = instance_report(context, &largest, algorithm, what);
          instance_free(&largest);
        }
        clgpu_workspace *workspace = workspace_create(context, &report, what);
        test_rng rng;
        test_rng_init(&rng, test_case_seed(what));
        /* Every input first (blocking writes), then the calls back to
         * back on the in-order queue, then the checks. */
        for (int k = 0; k < REUSE_CALLS; k++) {
          size_t n = k == 0 ? max_n : (size_t)test_rng_below(&rng, max_n + 1);
          char salt[32];
          snprintf(salt, sizeof salt, "call %d", k);
          instance_new(context, &calls[k], spec, n, stride, 0, salt);
        }
        for (int k = 0; k < REUSE_CALLS; k++) {
          clgpu_status status = instance_call(context, &calls[k], algorithm, workspace, NULL);
          if (status != CLGPU_SUCCESS) {
            fail_msg("%s: call %d (n=%zu): %s: %s", what, k, calls[k].n, clgpu_status_name(status),
                     clgpu_last_error());
          }
        }
        assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
        for (int k = 0; k < REUSE_CALLS; k++) {
          char row[360];
          snprintf(row, sizeof row, "%s: call %d, n=%zu", what, k, calls[k].n);
          instance_check(context, &calls[k], row);
          instance_free(&calls[k]);
        }
        free(calls);
        clgpu_workspace_destroy(workspace);
      }
    }
  }
}

/* ---- 9. describe, region, create with nothing, invalid reports ---- */

static void check_made_region(clgpu_context *context, const clgpu_workspace *workspace,
                              const clgpu_workspace_size *report, const char *what) {
  cl_mem buffer = (cl_mem)&buffer; /* not NULL */
  size_t offset = SIZE_MAX, size = SIZE_MAX;
  assert_status(clgpu_workspace_region(workspace, &buffer, &offset, &size), CLGPU_SUCCESS);
  if (report->total_bytes == 0) {
    if (buffer != NULL) fail_msg("%s: a workspace of 0 bytes has a buffer", what);
    return;
  }
  if (buffer == NULL) fail_msg("%s: no buffer", what);
  cl_context owner = NULL;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
                   CL_SUCCESS);
  if (owner != clgpu_context_cl_context(context)) fail_msg("%s: buffer of another context", what);
  cl_mem_flags flags = 0;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL),
                   CL_SUCCESS);
  if (!(flags & CL_MEM_READ_WRITE)) fail_msg("%s: the buffer is not CL_MEM_READ_WRITE", what);
  if (offset % report->alignment != 0 || size < report->total_bytes ||
      offset + size > mem_size(buffer)) {
    fail_msg("%s: region at %zu, %zu bytes, in a buffer of %zu; total_bytes %llu", what, offset,
             size, mem_size(buffer), (unsigned long long)report->total_bytes);
  }
}

static void describe_and_region(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      for (int kind = CONTIGUOUS; kind <= STRIDED; kind++) {
        char what[300];
        snprintf(what, sizeof what, "%s, %s, %s", spec->name, algorithm_text(algorithm),
                 layout_names[kind]);
        instance inst;
        instance_new(context, &inst, spec, kind == STRIDED ? strided_n(context) : big_n(context),
                     kind == STRIDED ? 2 : 1, 0, "describe");
        clgpu_workspace_size report = instance_report(context, &inst, algorithm, what);
        clgpu_workspace *made = workspace_create(context, &report, what);
        clgpu_workspace_size described;
        memset(&described, 0xA5, sizeof described);
        assert_status(clgpu_workspace_describe(made, &described), CLGPU_SUCCESS);
        assert_reports_equal(&report, &described, what);
        check_made_region(context, made, &report, what);
        /* The report was copied: changing ours changes nothing. */
        clgpu_workspace_size copy = report;
        report.total_bytes += 1;
        report.num_buffers = 0;
        assert_status(clgpu_workspace_describe(made, &described), CLGPU_SUCCESS);
        assert_reports_equal(&copy, &described, what);
        report = copy;
        assert_status(clgpu_workspace_describe(NULL, &described), CLGPU_INVALID_ARGUMENT);
        assert_status(clgpu_workspace_describe(made, NULL), CLGPU_INVALID_ARGUMENT);
        clgpu_workspace_destroy(made);
        if (report.total_bytes > 0) {
          carved c = carve(context, &report, what);
          assert_status(clgpu_workspace_describe(c.workspace, &described), CLGPU_SUCCESS);
          assert_reports_equal(&report, &described, what);
          cl_mem buffer = NULL;
          size_t offset = 0, size = 0;
          assert_status(clgpu_workspace_region(c.workspace, &buffer, &offset, &size),
                        CLGPU_SUCCESS);
          if (buffer != c.guarded.buffer || offset != c.guarded.offset ||
              size != (size_t)report.total_bytes) {
            fail_msg(
                "%s: region of a wrapped workspace: %p at %zu, %zu bytes; wrapped %p at %zu, "
                "%llu bytes",
                what, (void *)buffer, offset, size, (void *)c.guarded.buffer, c.guarded.offset,
                (unsigned long long)report.total_bytes);
          }
          /* The wrapped buffer is retained while the workspace lives and
           * released with it. */
          if (mem_references(c.guarded.buffer) < 2) {
            fail_msg("%s: the wrapped workspace does not retain its buffer", what);
          }
          clgpu_workspace_destroy(c.workspace);
          c.workspace = NULL;
          assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
          cl_uint left = test_settled_references(mem_references_of, c.guarded.buffer, 1);
          if (left != 1) {
            fail_msg(
                "%s: destroying a wrapped workspace left %u reference(s) to its buffer, "
                "expected only the test's own",
                what, left);
          }
          carved_release(&c);
        }
        instance_free(&inst);
      }
    }
  }
  clgpu_workspace_destroy(NULL);
}

/* A report of the same buffers, none needed: what a query gives for a call
 * that needs nothing. */
static clgpu_workspace_size empty_report(const clgpu_workspace_size *report) {
  clgpu_workspace_size empty = *report;
  for (unsigned b = 0; b < empty.num_buffers; b++) {
    empty.buffers[b].count = 0;
    empty.buffers[b].bytes = 0;
    empty.buffers[b].offset = 0;
  }
  empty.total_bytes = 0;
  return empty;
}

static void create_with_nothing(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  static const size_t sizes[] = {0, 1, 2, 3, 7, 93, 2049};
  size_t served = 0, refused = 0;
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
      clgpu_workspace_size report;
      assert_status(query_upto(context, spec->operation, spec->type, 1000, &options, &report),
                    CLGPU_SUCCESS);
      clgpu_workspace_size empty = empty_report(&report);
      char what[300];
      snprintf(what, sizeof what, "%s, %s, workspace of total_bytes 0", spec->name,
               algorithm_text(algorithm));
      clgpu_workspace *workspace = workspace_create(context, &empty, what);
      clgpu_workspace_size described;
      assert_status(clgpu_workspace_describe(workspace, &described), CLGPU_SUCCESS);
      assert_reports_equal(&empty, &described, what);
      check_made_region(context, workspace, &empty, what);
      /* It serves exactly the calls that need nothing. */
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        instance inst;
        instance_new(context, &inst, spec, sizes[s], 1, 0, "nothing");
        char row[360];
        snprintf(row, sizeof row, "%s, call of n=%zu", what, sizes[s]);
        clgpu_workspace_size needed = instance_report(context, &inst, algorithm, row);
        if (needed.total_bytes == 0) {
          run_ok(context, &inst, algorithm, workspace, row);
          served++;
        } else {
          run_refused(context, &inst, algorithm, workspace, CLGPU_WORKSPACE_TOO_SMALL, row, NULL,
                      0);
          refused++;
        }
        instance_free(&inst);
      }
      clgpu_workspace_destroy(workspace);
    }
  }
  print_message("# the empty workspaces served %zu call(s) and refused %zu\n", served, refused);
}

/* Invalid reports: the edit returns 0 where the report has nothing to edit
 * that way. */
typedef struct report_edit {
  const char *name;
  int (*edit)(clgpu_workspace_size *report);
} report_edit;

/* The buffer that ends last, among those with bytes. */
static int last_buffer(const clgpu_workspace_size *report) {
  int last = -1;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    if (report->buffers[b].bytes == 0) continue;
    if (last < 0 || report->buffers[b].offset + report->buffers[b].bytes >
                        report->buffers[last].offset + report->buffers[last].bytes) {
      last = (int)b;
    }
  }
  return last;
}

static int edit_too_many_buffers(clgpu_workspace_size *r) {
  r->num_buffers = CLGPU_WORKSPACE_MAX_BUFFERS + 1;
  return 1;
}
static int edit_no_parts(clgpu_workspace_size *r) {
  r->num_parts = 0;
  return 1;
}
static int edit_too_many_parts(clgpu_workspace_size *r) {
  r->num_parts = CLGPU_WORKSPACE_MAX_PARTS + 1;
  return 1;
}
static int edit_misaligned_offset(clgpu_workspace_size *r) {
  int last = last_buffer(r);
  if (last < 0) return 0;
  /* The last buffer one byte further on, the total following it: only the
   * alignment is wrong. */
  r->buffers[last].offset += 1;
  r->total_bytes += 1;
  return 1;
}
static int edit_alignment_zero(clgpu_workspace_size *r) {
  r->alignment = 0;
  return 1;
}
static int edit_bytes_not_count_times_size(clgpu_workspace_size *r) {
  int last = last_buffer(r);
  if (last < 0) return 0;
  r->buffers[last].count += 1;
  return 1;
}
static int edit_total_below_end(clgpu_workspace_size *r) {
  if (r->total_bytes == 0) return 0;
  r->total_bytes -= 1;
  return 1;
}
static int edit_buffer_of_missing_part(clgpu_workspace_size *r) {
  if (r->num_buffers == 0) return 0;
  r->buffers[0].part = r->num_parts;
  return 1;
}
static int edit_call_part_with_parent(clgpu_workspace_size *r) {
  r->parts[0].parent = 0;
  return 1;
}
static int edit_auto_algorithm(clgpu_workspace_size *r) {
  r->parts[0].shape = CLGPU_SHAPE_AUTO;
  return 1;
}
static int edit_unknown_algorithm(clgpu_workspace_size *r) {
  r->parts[0].shape = (clgpu_shape)7;
  return 1;
}
static int edit_algorithm_of_another_operation(clgpu_workspace_size *r) {
  r->parts[0].algorithm =
      r->parts[0].operation == CLGPU_OPERATION_SORT ? CLGPU_ALGORITHM_AUTO : CLGPU_ALGORITHM_RADIX;
  return 1;
}
static int edit_unknown_operation(clgpu_workspace_size *r) {
  r->parts[0].operation = (clgpu_operation)0;
  return 1;
}
static int edit_nested_part_own_parent(clgpu_workspace_size *r) {
  if (r->num_parts < 2) return 0;
  r->parts[1].parent = 1;
  return 1;
}
static int edit_unknown_type(clgpu_workspace_size *r) {
  int last = last_buffer(r);
  if (last < 0) return 0;
  r->buffers[last].type = (clgpu_type)0;
  return 1;
}
static int edit_overlapping_buffers(clgpu_workspace_size *r) {
  /* Two buffers with bytes, the second moved onto the first; the total
   * still the end of the last one. */
  int first = -1, second = -1;
  for (unsigned b = 0; b < r->num_buffers; b++) {
    if (r->buffers[b].bytes == 0) continue;
    if (first < 0) {
      first = (int)b;
    } else if (second < 0) {
      second = (int)b;
    }
  }
  if (second < 0) return 0;
  r->buffers[second].offset = r->buffers[first].offset;
  uint64_t end = 0;
  for (unsigned b = 0; b < r->num_buffers; b++) {
    if (r->buffers[b].bytes > 0 && r->buffers[b].offset + r->buffers[b].bytes > end) {
      end = r->buffers[b].offset + r->buffers[b].bytes;
    }
  }
  r->total_bytes = end;
  return 1;
}

static const report_edit report_edits[] = {
    {"num_buffers above CLGPU_WORKSPACE_MAX_BUFFERS", edit_too_many_buffers},
    {"num_parts 0", edit_no_parts},
    {"num_parts above CLGPU_WORKSPACE_MAX_PARTS", edit_too_many_parts},
    {"a buffer offset not a multiple of the alignment", edit_misaligned_offset},
    {"alignment 0", edit_alignment_zero},
    {"bytes not count times the element size", edit_bytes_not_count_times_size},
    {"total_bytes below the end of the last buffer", edit_total_below_end},
    {"a buffer of a part that does not exist", edit_buffer_of_missing_part},
    {"the call's part with a parent", edit_call_part_with_parent},
    {"a part of shape AUTO", edit_auto_algorithm},
    {"a part of an unknown shape", edit_unknown_algorithm},
    {"a part with an algorithm its operation does not have", edit_algorithm_of_another_operation},
    {"a part of an unknown operation", edit_unknown_operation},
    {"a nested part that is its own parent", edit_nested_part_own_parent},
    {"a buffer of no type", edit_unknown_type},
    {"two buffers overlapping", edit_overlapping_buffers},
};

static void create_refused(clgpu_context *context, const clgpu_workspace_size *report,
                           clgpu_workspace **out, const char *what) {
  clgpu_workspace *workspace = (clgpu_workspace *)&workspace; /* not NULL */
  if (out == NULL) {
    clgpu_status status = clgpu_workspace_create(context, report, NULL);
    if (status != CLGPU_INVALID_ARGUMENT) {
      fail_msg("%s: clgpu_workspace_create: %s, expected CLGPU_INVALID_ARGUMENT", what,
               clgpu_status_name(status));
    }
    return;
  }
  *out = workspace;
  clgpu_status status = clgpu_workspace_create(context, report, out);
  if (status != CLGPU_INVALID_ARGUMENT) {
    if (status == CLGPU_SUCCESS) clgpu_workspace_destroy(*out);
    fail_msg("%s: clgpu_workspace_create: %s, expected CLGPU_INVALID_ARGUMENT; detail: %s", what,
             clgpu_status_name(status), clgpu_last_error());
  }
  print_message("# %s: %s\n", what, clgpu_last_error());
  if (*out != NULL) fail_msg("%s: *out is not NULL after a failed create", what);
}

static void invalid_reports(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  clgpu_context *other = test_context(NULL);
  size_t applied = 0;
  for (size_t o = 0; o < MAIN_OP_COUNT; o++) {
    const op_spec *spec = &main_ops[o];
    for (size_t a = 0; a < 2; a++) {
      clgpu_shape algorithm = forced_algorithms[a];
      /* A strided input: packed_input and the rest have bytes. */
      instance inst;
      instance_new(context, &inst, spec, big_n(context), 2, 0, "invalid");
      char what[300];
      snprintf(what, sizeof what, "%s, %s", spec->name, algorithm_text(algorithm));
      clgpu_workspace_size report = instance_report(context, &inst, algorithm, what);
      /* Room for any of the edited reports. */
      const size_t room = (size_t)report.total_bytes + 2 * (size_t)report.alignment;
      test_guarded region = test_guarded_create(context, room, NULL);
      clgpu_workspace *out = NULL;

      /* The control: the unedited report is accepted both ways. */
      out = workspace_create(context, &report, what);
      clgpu_workspace_destroy(out);
      assert_status(
          clgpu_workspace_wrap(context, &report, region.buffer, region.offset, room, &out),
          CLGPU_SUCCESS);
      clgpu_workspace_destroy(out);

      for (size_t e = 0; e < sizeof report_edits / sizeof report_edits[0]; e++) {
        clgpu_workspace_size edited = report;
        char row[400];
        snprintf(row, sizeof row, "%s, report with %s", what, report_edits[e].name);
        if (!report_edits[e].edit(&edited)) {
          print_message("# %s: not applicable to this report\n", row);
          continue;
        }
        applied++;
        create_refused(context, &edited, &out, row);
        wrap_refused(context, &edited, region.buffer, region.offset, room, CLGPU_INVALID_ARGUMENT,
                     row);
      }

      /* NULL arguments. */
      snprintf(what, sizeof what, "%s, %s, NULL arguments", spec->name, algorithm_text(algorithm));
      create_refused(NULL, &report, &out, what);
      create_refused(context, NULL, &out, what);
      create_refused(context, &report, NULL, what);
      wrap_refused(NULL, &report, region.buffer, region.offset, room, CLGPU_INVALID_ARGUMENT, what);
      wrap_refused(context, NULL, region.buffer, region.offset, room, CLGPU_INVALID_ARGUMENT, what);
      wrap_refused(context, &report, NULL, 0, room, CLGPU_INVALID_ARGUMENT, what);
      assert_status(
          clgpu_workspace_wrap(context, &report, region.buffer, region.offset, room, NULL),
          CLGPU_INVALID_ARGUMENT);
      /* A buffer of another OpenCL context. */
      test_guarded foreign = test_guarded_create(other, room, NULL);
      snprintf(what, sizeof what, "%s, %s, wrap of another context's buffer", spec->name,
               algorithm_text(algorithm));
      wrap_refused(context, &report, foreign.buffer, foreign.offset, room, CLGPU_MISMATCHED_OBJECTS,
                   what);
      test_guarded_release(&foreign);
      test_guarded_check(context, &region, what);
      test_guarded_release(&region);
      instance_free(&inst);
    }
  }
  print_message("# %zu invalid reports refused by create and wrap\n", applied);
  clgpu_context_destroy(other);
}

/* ---- 10. names ---- */

static void names(void **state) {
  (void)state;
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_REDUCE), "reduce");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_SCAN), "scan");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_FINDALL), "findall");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_SORT), "sort");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_SEARCH), "search");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_SCAN_BY_KEY), "scan_by_key");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_REDUCE_BY_KEY), "reduce_by_key");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_UNIQUE), "unique");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_RUN_LENGTH_ENCODE), "run_length_encode");
  assert_string_equal(clgpu_operation_name((clgpu_operation)0), "invalid");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_HISTOGRAM), "histogram");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_PARTITION), "partition");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_SEGMENTED_SORT), "segmented_sort");
  assert_string_equal(clgpu_operation_name(CLGPU_OPERATION_MPI_SORT), "mpi_sort");
  assert_string_equal(clgpu_operation_name((clgpu_operation)14), "invalid");
  assert_string_equal(clgpu_operation_name((clgpu_operation)-1), "invalid");
  assert_string_equal(clgpu_shape_name(CLGPU_SHAPE_AUTO), "auto");
  assert_string_equal(clgpu_shape_name(CLGPU_SHAPE_CHUNKED), "chunked");
  assert_string_equal(clgpu_shape_name(CLGPU_SHAPE_TILED), "tiled");
  assert_string_equal(clgpu_shape_name((clgpu_shape)3), "invalid");
  assert_string_equal(clgpu_shape_name((clgpu_shape)-1), "invalid");
  assert_string_equal(clgpu_algorithm_name(CLGPU_ALGORITHM_AUTO), "auto");
  assert_string_equal(clgpu_algorithm_name(CLGPU_ALGORITHM_RADIX), "radix");
  assert_string_equal(clgpu_algorithm_name(CLGPU_ALGORITHM_MERGE), "merge");
  assert_string_equal(clgpu_algorithm_name((clgpu_algorithm)3), "invalid");
  assert_string_equal(clgpu_algorithm_name((clgpu_algorithm)-1), "invalid");
}

/* ---- 11. size queries that cannot be represented ---- */

/* Every "_upto" query (and the exact queries over views whose element
 * count is only bounded by size_t, i.e. broadcasts) at sizes near 2^64:
 * a report whose counts, bytes, offsets or total would not fit in 64 bits
 * is refused promptly with CLGPU_SIZE_OVERFLOW and a message naming max_n
 * (or the input's count); sizes that fit give a report whose numbers are
 * exact (bytes = count * size without wrapping, buffers in order within
 * the total), and grow with n. Before the fix these hung (merge sort's
 * width loop), divided by zero (the ranges of reduce, scan, findall) or
 * returned wrapped byte counts (findall, radix sort, permutation). */

enum { QUERY_REDUCE, QUERY_SCAN, QUERY_FINDALL, QUERY_SORT, QUERY_PERMUTATION };
enum { MUST_FIT, MUST_OVERFLOW };

typedef struct size_row {
  const char *name;
  int query;
  clgpu_type type;           /* input type, or the sort's key type */
  clgpu_algorithm algorithm; /* sorts: RADIX or MERGE */
  size_t key_size;           /* sorts: custom float4 keys of this size, or 0 */
  size_t value_size;         /* sorts: bytes of values; permutations: index bytes */
  uint64_t max_n;
  int expected[2]; /* with CHUNKED, with TILED */
} size_row;

#define TWO_TO(p) ((uint64_t)1 << (p))
#define BOTH_FIT \
  { MUST_FIT, MUST_FIT }
#define BOTH_OVERFLOW \
  { MUST_OVERFLOW, MUST_OVERFLOW }
#define CHUNKED_OVERFLOWS \
  { MUST_OVERFLOW, MUST_FIT }

static const size_row size_rows[] = {
    /* Reduce and scan need a few partials whatever n: every size fits
     * (near 2^64 these divided by zero in the range split). */
    {"reduce sum int", QUERY_REDUCE, CLGPU_TYPE_INT32, 0, 0, 0, TWO_TO(63) + 1, BOTH_FIT},
    {"reduce sum int", QUERY_REDUCE, CLGPU_TYPE_INT32, 0, 0, 0, UINT64_MAX, BOTH_FIT},
    {"reduce sum float", QUERY_REDUCE, CLGPU_TYPE_FLOAT, 0, 0, 0, UINT64_MAX - 1, BOTH_FIT},
    {"reduce sum long", QUERY_REDUCE, CLGPU_TYPE_INT64, 0, 0, 0, SIZE_MAX / 8 + 1, BOTH_FIT},
    {"scan sum int", QUERY_SCAN, CLGPU_TYPE_INT32, 0, 0, 0, TWO_TO(63) + 1, BOTH_FIT},
    {"scan sum int", QUERY_SCAN, CLGPU_TYPE_INT32, 0, 0, 0, UINT64_MAX, BOTH_FIT},
    {"scan sum uchar", QUERY_SCAN, CLGPU_TYPE_UINT8, 0, 0, 0, UINT64_MAX - 1, BOTH_FIT},
    /* Findall: CHUNKED keeps n uint positions (4n bytes), TILED none. */
    {"findall int", QUERY_FINDALL, CLGPU_TYPE_INT32, 0, 0, 0, TWO_TO(61), BOTH_FIT},
    {"findall int", QUERY_FINDALL, CLGPU_TYPE_INT32, 0, 0, 0, SIZE_MAX / 4 + 1, CHUNKED_OVERFLOWS},
    {"findall int", QUERY_FINDALL, CLGPU_TYPE_INT32, 0, 0, 0, TWO_TO(63) + 1, CHUNKED_OVERFLOWS},
    {"findall int", QUERY_FINDALL, CLGPU_TYPE_INT32, 0, 0, 0, UINT64_MAX, CHUNKED_OVERFLOWS},
    /* Radix sort: n keys (and values) in the alternate buffer. */
    {"radix sort uchar", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_RADIX, 0, 0, TWO_TO(63) + 1,
     BOTH_FIT},
    {"radix sort uchar", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_RADIX, 0, 0, UINT64_MAX,
     BOTH_OVERFLOW},
    {"radix sort uint", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0, 0, TWO_TO(61),
     BOTH_FIT},
    {"radix sort uint", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0, 0,
     SIZE_MAX / 4 + 1, BOTH_OVERFLOW},
    /* uint keys with 4-byte values: keys and values side by side (8n
     * bytes) or, on CPU devices, as pairs (16n bytes; the tuning table's
     * sort_pack_pairs): 2^59 fits either way, past 2^61 neither. */
    {"radix sort uint with 4-byte values", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0,
     4, TWO_TO(59), BOTH_FIT},
    {"radix sort uint with 4-byte values", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0,
     4, TWO_TO(61) + 1, BOTH_OVERFLOW},
    {"radix sort uint with 4-byte values", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0,
     4, TWO_TO(62) + 1, BOTH_OVERFLOW},
    {"radix sort uint with 16-byte values", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0,
     16, TWO_TO(58), BOTH_FIT},
    {"radix sort uint with 16-byte values", QUERY_SORT, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, 0,
     16, SIZE_MAX / 16 + 1, BOTH_OVERFLOW},
    /* Merge sort: runs double until one holds n, which cannot pass 2^63
     * (the width loop wrapped to 0 and never ended). */
    {"merge sort uchar", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_MERGE, 0, 0, TWO_TO(63),
     BOTH_FIT},
    {"merge sort uchar", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_MERGE, 0, 0, TWO_TO(63) + 1,
     BOTH_OVERFLOW},
    {"merge sort uchar", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_MERGE, 0, 0, UINT64_MAX,
     BOTH_OVERFLOW},
    {"merge sort of 16-byte custom keys", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_MERGE, 16,
     0, TWO_TO(59), BOTH_FIT},
    {"merge sort of 16-byte custom keys", QUERY_SORT, CLGPU_TYPE_UINT8, CLGPU_ALGORITHM_MERGE, 16,
     0, SIZE_MAX / 16 + 1, BOTH_OVERFLOW},
    /* Sort permutations: staged keys, alternate keys and indices. */
    {"radix permutation of uint keys, ulong", QUERY_PERMUTATION, CLGPU_TYPE_UINT32,
     CLGPU_ALGORITHM_RADIX, 0, 8, TWO_TO(59), BOTH_FIT},
    {"radix permutation of uint keys, ulong", QUERY_PERMUTATION, CLGPU_TYPE_UINT32,
     CLGPU_ALGORITHM_RADIX, 0, 8, SIZE_MAX / 8 + 1, BOTH_OVERFLOW},
    {"radix permutation of uint keys, ulong", QUERY_PERMUTATION, CLGPU_TYPE_UINT32,
     CLGPU_ALGORITHM_RADIX, 0, 8, UINT64_MAX, BOTH_OVERFLOW},
    {"merge permutation of uchar keys, ulong", QUERY_PERMUTATION, CLGPU_TYPE_UINT8,
     CLGPU_ALGORITHM_MERGE, 0, 8, TWO_TO(63) + 1, BOTH_OVERFLOW},
};

static clgpu_status size_row_query(const size_row *row, clgpu_shape shape, uint64_t max_n,
                                   clgpu_workspace_size *report) {
  clgpu_context *context = shared_context;
  clgpu_call_options options = {.shape = shape, .workspace = NULL};
  clgpu_sort_options sort_options = {
      .algorithm = row->algorithm, .shape = shape, .workspace = NULL};
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  if (row->key_size) {
    spec.key_type = "float4";
    spec.key_size = row->key_size;
    spec.compare = "a.x < b.x";
  }
  switch (row->query) {
    case QUERY_REDUCE:
    case QUERY_SCAN:
    case QUERY_FINDALL:
      return query_upto(context,
                        row->query == QUERY_REDUCE  ? CLGPU_OPERATION_REDUCE
                        : row->query == QUERY_SCAN ? CLGPU_OPERATION_SCAN
                                                    : CLGPU_OPERATION_FINDALL,
                        row->type, max_n, &options, report);
    case QUERY_SORT:
      return clgpu_sort_workspace_size_upto(context, &spec, row->type, row->value_size, max_n,
                                            &sort_options, report);
    case QUERY_PERMUTATION:
      return clgpu_sort_permutation_workspace_size_upto(
          context, &spec, row->value_size == 8 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32, row->type,
          max_n, &sort_options, report);
  }
  fail_msg("unknown query %d", row->query);
  return CLGPU_INVALID_ARGUMENT;
}

/* The numbers of a report that fits, checked without trusting its
 * arithmetic: no byte count wrapped, buffers lie in order inside the
 * total. */
static void expect_exact_report(const clgpu_workspace_size *report, const char *what) {
  uint64_t end = 0;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    uint64_t size = clgpu_type_size(buffer->type);
    if (size == 0 || buffer->count > UINT64_MAX / size || buffer->bytes != buffer->count * size) {
      REPORT_FAIL(report, what, "buffer \"%s\" has %llu bytes for %llu elements (wrapped)", what,
                  buffer->name, (unsigned long long)buffer->bytes,
                  (unsigned long long)buffer->count);
    }
    if (buffer->bytes == 0) continue;
    if (buffer->offset < end || buffer->offset > UINT64_MAX - buffer->bytes ||
        buffer->offset + buffer->bytes > report->total_bytes) {
      REPORT_FAIL(report, what, "buffer \"%s\" at %llu does not lie in order inside the total",
                  what, buffer->name, (unsigned long long)buffer->offset);
    }
    end = buffer->offset + buffer->bytes;
  }
  if (report->total_bytes != end) {
    REPORT_FAIL(report, what, "total_bytes %llu is not the end of the last buffer, %llu", what,
                (unsigned long long)report->total_bytes, (unsigned long long)end);
  }
}

static void unrepresentable_sizes_are_refused(void **state) {
  (void)state;
  for (size_t r = 0; r < sizeof size_rows / sizeof size_rows[0]; r++) {
    const size_row *row = &size_rows[r];
    for (size_t a = 0; a < 2; a++) {
      char what[300];
      snprintf(what, sizeof what, "%s, %s, max_n %llu", row->name,
               algorithm_text(forced_algorithms[a]), (unsigned long long)row->max_n);
      clgpu_workspace_size report, smaller;
      memset(&report, 0xA5, sizeof report);
      clgpu_workspace_size untouched = report;
      /* The merge-width loop used to wrap and never return for max_n above
       * 2^63: a hang here is caught by the test's time limit (meson's), not
       * by timing the call, which a shared machine makes noisy. */
      clgpu_status status = size_row_query(row, forced_algorithms[a], row->max_n, &report);
      if (row->expected[a] == MUST_OVERFLOW) {
        if (status != CLGPU_SIZE_OVERFLOW) {
          if (status == CLGPU_SUCCESS) print_report(what, &report);
          fail_msg("%s: %s, expected CLGPU_SIZE_OVERFLOW; detail: %s", what,
                   clgpu_status_name(status), clgpu_last_error());
        }
        char value[64];
        snprintf(value, sizeof value, "max_n %llu", (unsigned long long)row->max_n);
        const char *detail = clgpu_last_error();
        if (!strstr(detail, value) || !strstr(detail, "64 bits") || !strstr(detail, "_upto")) {
          fail_msg("%s: the message does not name the query, \"%s\" and \"64 bits\": %s", what,
                   value, detail);
        }
        if (memcmp(&report, &untouched, sizeof report) != 0) {
          fail_msg("%s: a refused query wrote its out argument", what);
        }
        continue;
      }
      if (status == CLGPU_UNSUPPORTED_FEATURE &&
          strstr(clgpu_last_error(), "loop_iteration_cap") != NULL) {
        /* A device that leaves a work-item's loops after a fixed count
         * (llvmpipe, docs/quirks.md) cannot sort this many keys in this
         * shape: the query refuses as the call would, and writes nothing. */
        printf("# %s: refused on this device: %s\n", what, clgpu_last_error());
        if (memcmp(&report, &untouched, sizeof report) != 0) {
          fail_msg("%s: a refused query wrote its out argument", what);
        }
        continue;
      }
      if (status != CLGPU_SUCCESS) {
        fail_msg("%s: %s, expected a report; detail: %s", what, clgpu_status_name(status),
                 clgpu_last_error());
      }
      expect_exact_report(&report, what);
      /* Monotone: the query at a smaller n needs no more in any buffer. */
      assert_status(size_row_query(row, forced_algorithms[a], row->max_n / 3, &smaller),
                    CLGPU_SUCCESS);
      assert_covers(&report, &smaller, what);
    }
  }

  /* Exact queries over a broadcast view. A view of 2^62 longs (2^65
   * bytes) cannot be made at all (CLGPU_MAX_VIEW_BYTES, array.h), so the
   * largest one that can, 2^60 - 1 longs, must give an exact report whose
   * packed input takes its whole 2^63 - 8 bytes, nothing wrapped. */
  cl_int err = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(shared_context), CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  size_t shape[1] = {(size_t)TWO_TO(62)};
  ptrdiff_t strides[1] = {0};
  clgpu_array input, output, indices;
  assert_status(clgpu_array_strided(buffer, 0, CLGPU_TYPE_INT64, 1, shape, strides, &input),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  shape[0] = (size_t)TWO_TO(60) - 1;
  assert_status(clgpu_array_strided(buffer, 0, CLGPU_TYPE_INT64, 1, shape, strides, &input),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 8, CLGPU_TYPE_INT64, 1, &output), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 16, CLGPU_TYPE_UINT64, 4, &indices), CLGPU_SUCCESS);
  for (size_t a = 0; a < 2; a++) {
    clgpu_call_options options = {.shape = forced_algorithms[a], .workspace = NULL};
    clgpu_reduce_op op;
    memset(&op, 0, sizeof op);
    op.kind = CLGPU_REDUCE_SUM;
    clgpu_workspace_size report;
    clgpu_status status = clgpu_reduce_workspace_size(shared_context, &op, CLGPU_ALL_AXES, &output,
                                                      &input, &options, &report);
    if (status == CLGPU_UNSUPPORTED_FEATURE &&
        strstr(clgpu_last_error(), "loop_iteration_cap") != NULL) {
      /* A device with a loop cap (llvmpipe, docs/quirks.md): 2^60 elements
       * need more ranges than one second-pass work-item may walk. */
      printf("# reduce over 2^60 - 1 broadcast longs refused on this device: %s\n",
             clgpu_last_error());
      continue;
    }
    assert_status(status, CLGPU_SUCCESS);
    expect_exact_report(&report, "reduce over 2^60 - 1 broadcast longs");
    assert_true(report.total_bytes >= (TWO_TO(60) - 1) * 8);
    assert_status(clgpu_findall_workspace_size(shared_context, NULL, &indices, NULL, &input,
                                               &options, &report),
                  CLGPU_SUCCESS);
    expect_exact_report(&report, "findall over 2^60 - 1 broadcast longs");
  }
  clReleaseMemObject(buffer);
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names),
      cmocka_unit_test(query_is_pure_and_well_formed),
      cmocka_unit_test(query_grows_with_n),
      cmocka_unit_test(upto_workspace_serves_every_smaller_call),
      cmocka_unit_test(exact_size_works_one_byte_less_fails),
      cmocka_unit_test(workspace_for_smaller_call_is_refused),
      cmocka_unit_test(wrong_operation_algorithm_or_context),
      cmocka_unit_test(aliasing),
      cmocka_unit_test(no_device_allocation_with_workspace),
      cmocka_unit_test(reuse_in_turn),
      cmocka_unit_test(describe_and_region),
      cmocka_unit_test(check_and_reduce_read_query),
      cmocka_unit_test(finish_waits_for_the_last_call),
      cmocka_unit_test(create_with_nothing),
      cmocka_unit_test(invalid_reports),
      cmocka_unit_test(unrepresentable_sizes_are_refused),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
