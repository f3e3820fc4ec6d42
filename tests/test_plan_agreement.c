/* A size query and its call compute one plan: over random arguments (ranks 1
 * to 3, contiguous, permuted, sliced and reversed views, every axis, every
 * kernel shape, several types and operators), the report of each
 * *_workspace_size query equals, field for field, the report the call itself
 * planned (recorded by the library on the calling thread, an internal hook of
 * the static library), for reduce, count_if, scan, findall and sort. For the
 * contiguous 1-D calls the "_upto" query for exactly their n must give that
 * report too: the _upto queries run the call's plan over a contiguous view of
 * max_n elements. The call's results are checked by the operations' own tests;
 * here every call must succeed and record a report.
 *
 * The seed is CLGPU_TEST_SEED or the clock's, printed; CLGPU_PLAN_ROUNDS sets
 * the number of random calls per operation (default 12, 3 on Oclgrind, where
 * 1-D sizes stop at 5000). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <clgpu/clgpu.h>

#include "tuning.h"
#include "workspace_internal.h"

static clgpu_context *context;
static uint64_t state;
static unsigned rounds;
/* The largest 1-D size drawn: smaller on Oclgrind, which simulates every
 * work-item. */
static size_t largest;

static uint64_t next_random(void) {
  /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static size_t below(size_t n) { return (size_t)(next_random() % n); }

#define CHECK(call)                                                                  \
  do {                                                                               \
    clgpu_status status_ = (call);                                                   \
    if (status_ != CLGPU_SUCCESS) {                                                  \
      fail_msg("%s: %s: %s", #call, clgpu_status_name(status_), clgpu_last_error()); \
    }                                                                                \
  } while (0)

static int setup(void **unused) {
  (void)unused;
  const char *seed_text = getenv("CLGPU_TEST_SEED");
  uint64_t seed = seed_text ? strtoull(seed_text, NULL, 0) : (uint64_t)time(NULL);
  printf("# seed %llu (CLGPU_TEST_SEED)\n", (unsigned long long)seed);
  state = seed;
  if (clgpu_context_create(NULL, &context) != CLGPU_SUCCESS) {
    printf("clgpu_context_create: %s\n", clgpu_last_error());
    return -1;
  }
  const clgpu_device_info *info = clgpu_context_device_info(context);
  printf("# device: %s / %s\n", info->platform_name, info->name);
  int oclgrind = strstr(info->platform_name, "Oclgrind") || strstr(info->name, "Oclgrind");
  const char *rounds_text = getenv("CLGPU_PLAN_ROUNDS");
  rounds = rounds_text ? (unsigned)atoi(rounds_text) : oclgrind ? 3 : 12;
  largest = oclgrind ? 5000 : 70001;
  return 0;
}

static int teardown(void **unused) {
  (void)unused;
  clgpu_context_destroy(context);
  return 0;
}

/* ---- random views ---- */

/* A buffer of `bytes` bytes, zeroed (the values do not matter here, but the
 * kernels must read defined memory: written from the host, which Oclgrind's
 * check for uninitialised reads follows). */
static cl_mem zeroed_buffer(size_t bytes) {
  void *zeros = calloc(1, bytes);
  assert_non_null(zeros);
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context),
                                 CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zeros, &err);
  free(zeros);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

/* A random layout of `shape` over a fresh buffer: row-major, then maybe a
 * permutation of the axes, a step of 2 on one axis, or a reversed axis.
 * Elements never overlap (it may serve as an output). */
static clgpu_array random_view(clgpu_type type, unsigned rank, const size_t *shape, int plain,
                               cl_mem *buffer) {
  size_t extent[CLGPU_MAX_RANK];
  ptrdiff_t strides[CLGPU_MAX_RANK];
  unsigned order[CLGPU_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) order[d] = d;
  if (!plain && rank > 1 && below(3) == 0) {
    for (unsigned d = rank - 1; d > 0; d--) {
      unsigned k = (unsigned)below(d + 1);
      unsigned t = order[d];
      order[d] = order[k];
      order[k] = t;
    }
  }
  unsigned stepped = !plain && rank && below(4) == 0 ? (unsigned)below(rank) : CLGPU_MAX_RANK;
  unsigned reversed = !plain && rank && below(4) == 0 ? (unsigned)below(rank) : CLGPU_MAX_RANK;
  /* Memory order: order[rank - 1] is the fastest. */
  ptrdiff_t step = 1;
  size_t span = 1;
  for (unsigned k = rank; k-- > 0;) {
    unsigned d = order[k];
    ptrdiff_t gap = d == stepped ? 2 : 1;
    strides[d] = step * gap;
    extent[d] = shape[d];
    step *= (ptrdiff_t)(shape[d] ? shape[d] * (size_t)gap : 1);
  }
  span = (size_t)step;
  size_t size = clgpu_type_size(type);
  size_t offset = 0;
  if (reversed < rank && shape[reversed] > 0) {
    offset = (shape[reversed] - 1) * (size_t)strides[reversed];
    strides[reversed] = -strides[reversed];
  }
  *buffer = zeroed_buffer((span + 1) * size);
  clgpu_array view;
  CHECK(clgpu_array_strided(*buffer, offset * size, type, rank, extent, strides, &view));
  return view;
}

static unsigned random_shape(size_t *shape) {
  unsigned rank = 1 + (unsigned)below(3);
  if (rank == 1) {
    /* Around the CHUNKED cut (16384) and TILED's several tiles. */
    static const size_t sizes[] = {0, 1, 7, 1000, 4099, 16384, 16385, 40000, 70001};
    shape[0] = below(2) ? sizes[below(sizeof sizes / sizeof *sizes)] : 1 + below(largest);
    if (shape[0] > largest) shape[0] = largest;
  } else {
    for (unsigned d = 0; d < rank; d++) shape[d] = 1 + below(rank == 2 ? 300 : 40);
  }
  return rank;
}

static clgpu_type random_type(void) {
  static const clgpu_type types[] = {CLGPU_TYPE_UINT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT64,
                                     CLGPU_TYPE_UINT8};
  return types[below(sizeof types / sizeof *types)];
}

static clgpu_shape random_shape_choice(void) {
  static const clgpu_shape shapes[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};
  return shapes[below(3)];
}

/* ---- comparing reports ---- */

/* A report on a few lines, for a failure's message. */
static void describe_report(const clgpu_workspace_size *report, char *text, size_t size) {
  int at = snprintf(text, size, "%u parts, %llu bytes:", report->num_parts,
                    (unsigned long long)report->total_bytes);
  for (unsigned b = 0; b < report->num_buffers && at > 0 && (size_t)at < size; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    at += snprintf(text + at, size - (size_t)at, "\n  %s (part %u, %s): %llu at %llu", buffer->name,
                   buffer->part, clgpu_type_cl_name(buffer->type),
                   (unsigned long long)buffer->count, (unsigned long long)buffer->offset);
  }
}

static void assert_same_report(const clgpu_workspace_size *query, const clgpu_workspace_size *call,
                               const char *what) {
  int same = query->num_parts == call->num_parts && query->num_buffers == call->num_buffers &&
             query->alignment == call->alignment && query->total_bytes == call->total_bytes;
  for (unsigned p = 0; same && p < query->num_parts; p++) {
    same = query->parts[p].operation == call->parts[p].operation &&
           query->parts[p].algorithm == call->parts[p].algorithm &&
           query->parts[p].shape == call->parts[p].shape &&
           query->parts[p].parent == call->parts[p].parent;
  }
  for (unsigned b = 0; same && b < query->num_buffers; b++) {
    const clgpu_workspace_buffer *q = &query->buffers[b], *c = &call->buffers[b];
    same = strcmp(q->name, c->name) == 0 && q->part == c->part && q->type == c->type &&
           q->count == c->count && q->offset == c->offset && q->bytes == c->bytes;
  }
  if (!same) {
    char q_text[2048], c_text[2048];
    describe_report(query, q_text, sizeof q_text);
    describe_report(call, c_text, sizeof c_text);
    fail_msg("%s: the query's report\n%s\ndiffers from the call's\n%s", what, q_text, c_text);
  }
}

/* The status of a call (which must succeed), made after forget(), and
 * whether the report it planned is the query's. A call with nothing to do
 * (no element) may return before it reaches its workspace and record none;
 * any other call must record one. */
static void forget(void) { clgpu__forget_last_call_report(); }

static void check_call(clgpu_status status, const clgpu_workspace_size *query, size_t n,
                       const char *what) {
  if (getenv("CLGPU_PLAN_VERBOSE")) printf("# %s\n", what);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
  }
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  const clgpu_workspace_size *report = clgpu__last_call_report();
  if (!report) {
    if (n == 0) return;
    fail_msg("%s: the call recorded no report", what);
  }
  assert_same_report(query, report, what);
}

static void describe_view(const clgpu_array *view, char *text, size_t size) {
  int at = snprintf(text, size, "%s [", clgpu_type_cl_name(view->type));
  for (unsigned d = 0; d < view->rank && at > 0 && (size_t)at < size; d++) {
    at += snprintf(text + at, size - (size_t)at, "%s%zu:%td", d ? ", " : "", view->shape[d],
                   view->strides[d]);
  }
  if (at > 0 && (size_t)at < size) snprintf(text + at, size - (size_t)at, "]");
}

/* ---- the operations ---- */

static void reduce_and_count(void **unused) {
  (void)unused;
  for (unsigned round = 0; round < rounds; round++) {
    size_t shape[CLGPU_MAX_RANK];
    unsigned rank = random_shape(shape);
    clgpu_type type = random_type();
    cl_mem in_buffer, out_buffer;
    clgpu_array input = random_view(type, rank, shape, 0, &in_buffer);
    int axis = below(2) ? CLGPU_ALL_AXES : (int)below(rank);
    static const clgpu_reduce_kind kinds[] = {CLGPU_REDUCE_SUM, CLGPU_REDUCE_MAX,
                                              CLGPU_REDUCE_ARGMIN};
    clgpu_reduce_op op = {0};
    op.kind = kinds[below(3)];
    int count_if = below(4) == 0;
    clgpu_type result = count_if ? CLGPU_TYPE_UINT64 : clgpu_reduce_result_type(&op, type);
    if (count_if) axis = CLGPU_ALL_AXES;
    size_t out_shape[CLGPU_MAX_RANK] = {1};
    unsigned out_rank = 1;
    if (axis != CLGPU_ALL_AXES) {
      out_rank = 0;
      for (unsigned d = 0; d < rank; d++) {
        if (d != (unsigned)axis) out_shape[out_rank++] = shape[d];
      }
    }
    clgpu_array output = random_view(result, out_rank, out_shape, 0, &out_buffer);
    clgpu_call_options options = {.shape = random_shape_choice(), .workspace = NULL};
    char text[512], what[700];
    describe_view(&input, text, sizeof text);
    snprintf(what, sizeof what, "%s kind %d axis %d %s, shape %d", count_if ? "count_if" : "reduce",
             (int)op.kind, axis, text, (int)options.shape);
    size_t n = clgpu_array_count(&input);
    clgpu_workspace_size query;
    if (count_if) {
      CHECK(clgpu_count_if_workspace_size(context, "x > 0", &output, &input, &options, &query));
      forget();
      check_call(clgpu_count_if(context, "x > 0", &output, &input, &options, 0, NULL, NULL), &query,
                 n, what);
    } else {
      CHECK(clgpu_reduce_workspace_size(context, &op, axis, &output, &input, &options, &query));
      forget();
      check_call(clgpu_reduce(context, &op, axis, &output, &input, &options, 0, NULL, NULL), &query,
                 n, what);
      if (rank == 1 && clgpu_array_is_contiguous(&input)) {
        clgpu_workspace_size upto;
        CHECK(clgpu_reduce_workspace_size_upto(context, &op, type, n, &options, &upto));
        assert_same_report(&upto, &query, what);
      }
    }
    clReleaseMemObject(in_buffer);
    clReleaseMemObject(out_buffer);
  }
}

static void scan(void **unused) {
  (void)unused;
  for (unsigned round = 0; round < rounds; round++) {
    size_t shape[CLGPU_MAX_RANK];
    unsigned rank = random_shape(shape);
    clgpu_type type = random_type();
    cl_mem in_buffer, out_buffer = NULL;
    clgpu_array input = random_view(type, rank, shape, 0, &in_buffer);
    int in_place = below(4) == 0;
    clgpu_array output = in_place ? input : random_view(type, rank, shape, 0, &out_buffer);
    int axis = below(2) ? CLGPU_ALL_AXES : (int)below(rank);
    clgpu_scan_op op = {below(2) ? CLGPU_SCAN_SUM : CLGPU_SCAN_MAX, (int)below(2), NULL, NULL};
    clgpu_call_options options = {.shape = random_shape_choice(), .workspace = NULL};
    char text[512], what[700];
    describe_view(&input, text, sizeof text);
    snprintf(what, sizeof what, "scan kind %d axis %d %s%s, shape %d", (int)op.kind, axis, text,
             in_place ? " in place" : "", (int)options.shape);
    clgpu_workspace_size query;
    CHECK(clgpu_scan_workspace_size(context, &op, axis, &output, &input, &options, &query));
    size_t n = clgpu_array_count(&input);
    forget();
    check_call(clgpu_scan(context, &op, axis, &output, &input, &options, 0, NULL, NULL), &query, n,
               what);
    if (in_place && rank == 1 && clgpu_array_is_contiguous(&input)) {
      clgpu_workspace_size upto;
      CHECK(clgpu_scan_workspace_size_upto(context, &op, type, n, &options, &upto));
      assert_same_report(&upto, &query, what);
    }
    clReleaseMemObject(in_buffer);
    if (out_buffer) clReleaseMemObject(out_buffer);
  }
}

static void findall(void **unused) {
  (void)unused;
  for (unsigned round = 0; round < rounds; round++) {
    size_t shape[CLGPU_MAX_RANK];
    unsigned rank = random_shape(shape);
    clgpu_type type = random_type();
    cl_mem in_buffer, indices_buffer, count_buffer;
    clgpu_array input = random_view(type, rank, shape, 0, &in_buffer);
    size_t n = clgpu_array_count(&input);
    size_t indices_shape[1] = {n};
    clgpu_type index_type = below(2) ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64;
    clgpu_array indices = random_view(index_type, 1, indices_shape, 1, &indices_buffer);
    size_t one[1] = {1};
    clgpu_array count = random_view(CLGPU_TYPE_UINT64, 1, one, 1, &count_buffer);
    clgpu_call_options options = {.shape = random_shape_choice(), .workspace = NULL};
    char text[512], what[700];
    describe_view(&input, text, sizeof text);
    snprintf(what, sizeof what, "findall %s, shape %d", text, (int)options.shape);
    clgpu_workspace_size query;
    CHECK(clgpu_findall_workspace_size(context, NULL, &indices, &count, &input, &options, &query));
    forget();
    check_call(clgpu_findall(context, NULL, &indices, &count, &input, &options, 0, NULL, NULL),
               &query, n, what);
    if (rank == 1 && clgpu_array_is_contiguous(&input)) {
      clgpu_workspace_size upto;
      CHECK(clgpu_findall_workspace_size_upto(context, type, n, &options, &upto));
      assert_same_report(&upto, &query, what);
    }
    clReleaseMemObject(in_buffer);
    clReleaseMemObject(indices_buffer);
    clReleaseMemObject(count_buffer);
  }
}

static void sort(void **unused) {
  (void)unused;
  for (unsigned round = 0; round < rounds; round++) {
    size_t shape[1] = {1 + below(below(2) ? 5000 : largest)};
    static const clgpu_type types[] = {CLGPU_TYPE_UINT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT64};
    clgpu_type type = types[below(3)];
    cl_mem key_buffer, value_buffer = NULL;
    clgpu_array keys = random_view(type, 1, shape, 0, &key_buffer);
    int with_values = below(2) == 0;
    clgpu_array values;
    if (with_values) values = random_view(CLGPU_TYPE_UINT32, 1, shape, 0, &value_buffer);
    static const clgpu_algorithm algorithms[] = {CLGPU_ALGORITHM_AUTO, CLGPU_ALGORITHM_RADIX,
                                                 CLGPU_ALGORITHM_MERGE};
    clgpu_sort_options options = {0};
    options.algorithm = algorithms[below(3)];
    options.shape = random_shape_choice();
    char text[512], what[700];
    describe_view(&keys, text, sizeof text);
    snprintf(what, sizeof what, "sort %s%s, algorithm %d, shape %d", text,
             with_values ? " with values" : "", (int)options.algorithm, (int)options.shape);
    clgpu_workspace_size query;
    CHECK(clgpu_sort_workspace_size(context, NULL, &keys, with_values ? &values : NULL, &options,
                                    &query));
    forget();
    check_call(
        clgpu_sort(context, NULL, &keys, with_values ? &values : NULL, &options, 0, NULL, NULL),
        &query, shape[0], what);
    clReleaseMemObject(key_buffer);
    if (value_buffer) clReleaseMemObject(value_buffer);
  }
}

/* Lower and upper bounds over random layouts (strided views staged,
 * positions packed), and the _upto query of contiguous views. */
static void search(void **unused) {
  (void)unused;
  for (unsigned round = 0; round < rounds; round++) {
    size_t needles_shape[1] = {below(below(2) ? 3000 : largest)};
    size_t haystack_shape[1] = {below(below(2) ? 3000 : largest)};
    static const clgpu_type types[] = {CLGPU_TYPE_UINT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT64};
    clgpu_type type = types[below(3)];
    cl_mem needles_buffer, haystack_buffer, positions_buffer;
    clgpu_array needles = random_view(type, 1, needles_shape, 0, &needles_buffer);
    clgpu_array haystack = random_view(type, 1, haystack_shape, 0, &haystack_buffer);
    clgpu_type position_type = below(2) ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64;
    clgpu_array positions = random_view(position_type, 1, needles_shape, 0, &positions_buffer);
    int upper = (int)below(2);
    clgpu_call_options options = {.shape = random_shape_choice(), .workspace = NULL};
    char text[512], other[512], what[1200];
    describe_view(&needles, text, sizeof text);
    describe_view(&haystack, other, sizeof other);
    snprintf(what, sizeof what, "%s bound of %s in %s, shape %d", upper ? "upper" : "lower", text,
             other, (int)options.shape);
    clgpu_workspace_size query;
    CHECK(clgpu_search_workspace_size(context, NULL, &positions, &needles, &haystack, &options,
                                      &query));
    forget();
    check_call(upper ? clgpu_upper_bound(context, NULL, &positions, &needles, &haystack, &options,
                                         0, NULL, NULL)
                     : clgpu_lower_bound(context, NULL, &positions, &needles, &haystack, &options,
                                         0, NULL, NULL),
               &query, needles_shape[0], what);
    if (clgpu_array_is_contiguous(&needles) && clgpu_array_is_contiguous(&haystack) &&
        clgpu_array_is_contiguous(&positions)) {
      clgpu_workspace_size upto;
      CHECK(clgpu_search_workspace_size_upto(context, NULL, type, needles_shape[0],
                                             haystack_shape[0], &options, &upto));
      assert_same_report(&upto, &query, what);
    }
    clReleaseMemObject(needles_buffer);
    clReleaseMemObject(haystack_buffer);
    clReleaseMemObject(positions_buffer);
  }
}

/* The tuning table's device classes and host overlays are written in
 * CLGPU_TUNING's syntax and applied at every context creation: each must
 * parse (a class that did not would leave its devices on the base row, an
 * overlay its processors on the class row, without a word). */
static void tuning_classes_parse(void **unused) {
  (void)unused;
  if (!clgpu__tuning_classes_parse()) fail_msg("a tuning class is refused: %s", clgpu_last_error());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reduce_and_count), cmocka_unit_test(scan),
      cmocka_unit_test(findall),          cmocka_unit_test(sort),
      cmocka_unit_test(search),           cmocka_unit_test(tuning_classes_parse),
  };
  const char *filter = getenv("CLGPU_TEST_FILTER");
  if (filter) cmocka_set_test_filter(filter);
  return cmocka_run_group_tests(tests, setup, teardown);
}
