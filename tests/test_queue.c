/* The per-call queue of clgpu_call_options and clgpu_sort_options
 * (workspace.h, sort.h; docs/queues.md), and the queue of an elementwise
 * object's and a membuf's options: every operation enqueues on the
 * queue its options name, which a test shows by blocking the context's own
 * queue behind a closed user event while the calls run and are read back
 * on a second queue; a queue of another OpenCL context and reserved fields
 * that are not zero are refused before anything is enqueued; and a
 * workspace orders the calls that share it across two queues and on an
 * out-of-order queue, so the second call never starts before the first has
 * finished. Every result is checked against the host. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { N = 3000, BINS = 10, SEGMENT = 100 };

static clgpu_context *context;

static int setup(void **state) {
  (void)state;
  context = test_context(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  clgpu_context_destroy(context);
  return 0;
}

static cl_mem buffer_of(size_t bytes, const void *host) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context),
                                 CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                                 (void *)host, &err);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

static clgpu_array view_of(cl_mem buffer, clgpu_type type, size_t n) {
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, 0, type, n, &view), CLGPU_SUCCESS);
  return view;
}

static cl_command_queue second_queue(void) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(clgpu_context_cl_context(context), clgpu_context_device(context),
                           CL_QUEUE_PROFILING_ENABLE, &err);
  assert_int_equal(err, CL_SUCCESS);
  return queue;
}

/* Read `bytes` of `buffer` through `queue`, blocking. */
static void read_on(cl_command_queue queue, cl_mem buffer, size_t bytes, void *host) {
  assert_int_equal(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
                   CL_SUCCESS);
}

/* A queue of another OpenCL context on the context's device, that context
 * in *other (both released by the caller). */
static cl_command_queue foreign_queue(cl_context *other) {
  cl_device_id device = clgpu_context_device(context);
  cl_int err = CL_SUCCESS;
  *other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue foreign = clCreateCommandQueue(*other, device, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  return foreign;
}

/* Hold the context's queue behind a closed user event (returned), with a
 * marker after it in *held: a call that put any command there could not
 * finish. */
static cl_event hold_context_queue(cl_event *held) {
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clEnqueueMarkerWithWaitList(clgpu_context_queue(context), 1, &gate, held),
                   CL_SUCCESS);
  return gate;
}

/* Check that the held queue did not run, then open its gate, finish it and
 * release both events. */
static void release_context_queue(cl_event gate, cl_event held) {
  if (test_event_status(held) == CL_COMPLETE) fail_msg("the context's queue ran past its gate");
  clSetUserEventStatus(gate, CL_COMPLETE);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  clReleaseEvent(held);
  clReleaseEvent(gate);
}

/* Every element, last first: a stride of -1. */
static const clgpu_slice backwards = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};

static int compare_uint(const void *a, const void *b) {
  cl_uint x = *(const cl_uint *)a, y = *(const cl_uint *)b;
  return x < y ? -1 : x > y;
}

/* The data: values below 1000 in no order. */
static void make_data(cl_uint *data) {
  for (size_t i = 0; i < N; i++) data[i] = (cl_uint)((i * 7919u + 13u) % 1000u);
}

/* Every operation family through options naming `queue` (no workspace, or
 * one made for each call when `with_workspace`), each result read back
 * through `queue` and checked. */
static void run_every_operation_on(cl_command_queue queue, int with_workspace) {
  cl_uint data[N], expected[N], got[N];
  make_data(data);
  cl_mem input = buffer_of(sizeof data, data);
  cl_mem output = buffer_of(sizeof data, NULL);
  cl_mem second = buffer_of(sizeof data, NULL);
  cl_mem count = buffer_of(sizeof(cl_ulong), NULL);
  clgpu_array in = view_of(input, CLGPU_TYPE_UINT32, N),
              out = view_of(output, CLGPU_TYPE_UINT32, N);
  clgpu_array other = view_of(second, CLGPU_TYPE_UINT32, N);
  clgpu_array count_view = view_of(count, CLGPU_TYPE_UINT64, 1);
  clgpu_array one = view_of(output, CLGPU_TYPE_UINT32, 1);
  clgpu_array reversed; /* stride -1: staged through the workspace */
  assert_status(clgpu_array_slice(&in, &backwards, &reversed), CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  clgpu_call_options options = {.queue = queue};
  clgpu_sort_options sort_options = {.queue = queue};
  clgpu_workspace_size report;
  const char *label = with_workspace ? "with a workspace" : "without a workspace";
#define WITH_WORKSPACE(query)                                                             \
  do {                                                                                    \
    clgpu_workspace_destroy(workspace);                                                   \
    workspace = NULL;                                                                     \
    if (with_workspace) {                                                                 \
      assert_status((query), CLGPU_SUCCESS);                                              \
      assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS); \
    }                                                                                     \
    options.workspace = workspace;                                                        \
    sort_options.workspace = workspace;                                                   \
  } while (0)

  /* reduce, and its blocking read-back form. */
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  cl_uint total = 0;
  for (size_t i = 0; i < N; i++) total += data[i];
  WITH_WORKSPACE(
      clgpu_reduce_workspace_size(context, &sum, CLGPU_ALL_AXES, &one, &in, &options, &report));
  assert_status(clgpu_reduce(context, &sum, CLGPU_ALL_AXES, &one, &in, &options, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_on(queue, output, sizeof got[0], got);
  if (got[0] != total) fail_msg("reduce %s: %u, the host's %u", label, got[0], total);
  cl_uint read_back = 0;
  assert_status(clgpu_reduce_read(context, &sum, &read_back, sizeof read_back, &in, &options),
                CLGPU_SUCCESS);
  if (read_back != total) fail_msg("reduce_read %s: %u, the host's %u", label, read_back, total);

  /* scan of the reversed view (a staging copy first). */
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  WITH_WORKSPACE(clgpu_scan_workspace_size(context, &scan, CLGPU_ALL_AXES, &out, &reversed,
                                           &options, &report));
  assert_status(
      clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out, &reversed, &options, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_on(queue, output, sizeof got, got);
  cl_uint running = 0;
  for (size_t i = 0; i < N; i++) {
    running += data[N - 1 - i];
    if (got[i] != running)
      fail_msg("scan %s: out[%zu] %u, the host's %u", label, i, got[i], running);
  }

  /* findall and its count. */
  WITH_WORKSPACE(
      clgpu_findall_workspace_size(context, "x < 100", &out, &count_view, &in, &options, &report));
  assert_status(clgpu_findall(context, "x < 100", &out, &count_view, &in, &options, 0, NULL, NULL),
                CLGPU_SUCCESS);
  cl_ulong found = 0;
  read_on(queue, count, sizeof found, &found);
  read_on(queue, output, sizeof got, got);
  size_t selected = 0;
  for (size_t i = 0; i < N; i++) {
    if (data[i] >= 100) continue;
    if (selected < found && got[selected] != i)
      fail_msg("findall %s: index %zu is %u, the host's %zu", label, selected, got[selected], i);
    selected++;
  }
  if (found != selected)
    fail_msg("findall %s: %llu found, the host's %zu", label, (unsigned long long)found, selected);

  /* radix and merge sorts of a copy of the data. */
  memcpy(expected, data, sizeof data);
  qsort(expected, N, sizeof expected[0], compare_uint);
  for (int merge = 0; merge < 2; merge++) {
    assert_int_equal(
        clEnqueueWriteBuffer(queue, output, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL),
        CL_SUCCESS);
    sort_options.algorithm = merge ? CLGPU_ALGORITHM_MERGE : CLGPU_ALGORITHM_RADIX;
    WITH_WORKSPACE(clgpu_sort_workspace_size(context, NULL, &out, NULL, &sort_options, &report));
    assert_status(clgpu_sort(context, NULL, &out, NULL, &sort_options, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    read_on(queue, output, sizeof got, got);
    if (memcmp(got, expected, sizeof got) != 0)
      fail_msg("%s sort %s: not sorted", merge ? "merge" : "radix", label);
  }
  sort_options.algorithm = CLGPU_ALGORITHM_AUTO;

  /* segmented sort of segments of SEGMENT keys. */
  cl_uint offsets[N / SEGMENT + 1];
  for (size_t k = 0; k <= N / SEGMENT; k++) offsets[k] = (cl_uint)(k * SEGMENT);
  cl_mem offsets_buffer = buffer_of(sizeof offsets, offsets);
  clgpu_array offsets_view = view_of(offsets_buffer, CLGPU_TYPE_UINT32, N / SEGMENT + 1);
  assert_int_equal(
      clEnqueueWriteBuffer(queue, output, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL),
      CL_SUCCESS);
  WITH_WORKSPACE(clgpu_segmented_sort_workspace_size(context, NULL, &out, NULL, &offsets_view,
                                                     &sort_options, &report));
  assert_status(
      clgpu_segmented_sort(context, NULL, &out, NULL, &offsets_view, &sort_options, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_on(queue, output, sizeof got, got);
  memcpy(expected, data, sizeof data);
  for (size_t k = 0; k < N / SEGMENT; k++)
    qsort(expected + k * SEGMENT, SEGMENT, sizeof expected[0], compare_uint);
  if (memcmp(got, expected, sizeof got) != 0) fail_msg("segmented sort %s: wrong", label);
  clReleaseMemObject(offsets_buffer);

  /* unique of keys in runs of three. */
  cl_uint keys[N];
  for (size_t i = 0; i < N; i++) keys[i] = (cl_uint)(i / 3 * 5);
  cl_mem keys_buffer = buffer_of(sizeof keys, keys);
  clgpu_array keys_view = view_of(keys_buffer, CLGPU_TYPE_UINT32, N);
  WITH_WORKSPACE(clgpu_unique_workspace_size(context, NULL, &out, NULL, &count_view, &keys_view,
                                             NULL, &options, &report));
  assert_status(clgpu_unique(context, NULL, &out, &count_view, &keys_view, &options, 0, NULL, NULL),
                CLGPU_SUCCESS);
  cl_ulong runs = 0;
  read_on(queue, count, sizeof runs, &runs);
  read_on(queue, output, sizeof got, got);
  if (runs != N / 3)
    fail_msg("unique %s: %llu runs, the host's %d", label, (unsigned long long)runs, N / 3);
  for (size_t r = 0; r < N / 3; r++) {
    if (got[r] != r * 5)
      fail_msg("unique %s: run %zu's key %u, the host's %zu", label, r, got[r], r * 5);
  }
  clReleaseMemObject(keys_buffer);

  /* histogram of BINS even bins over [0, 999]. */
  cl_uint lower = 0, upper = 999, bins[BINS] = {0}, counted[BINS]; /* upper inclusive */
  for (size_t i = 0; i < N; i++) bins[data[i] / 100]++;
  clgpu_array counts = view_of(output, CLGPU_TYPE_UINT32, BINS);
  WITH_WORKSPACE(clgpu_histogram_even_workspace_size(context, &lower, &upper, &counts, &in,
                                                     &options, &report));
  assert_status(
      clgpu_histogram_even(context, &lower, &upper, &counts, &in, &options, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_on(queue, output, sizeof counted, counted);
  for (int b = 0; b < BINS; b++) {
    if (counted[b] != bins[b])
      fail_msg("histogram %s: bin %d counts %u, the host %u", label, b, counted[b], bins[b]);
  }

  /* lower_bound of the data in the data sorted. */
  memcpy(expected, data, sizeof data);
  qsort(expected, N, sizeof expected[0], compare_uint);
  cl_mem haystack_buffer = buffer_of(sizeof expected, expected);
  clgpu_array haystack = view_of(haystack_buffer, CLGPU_TYPE_UINT32, N);
  WITH_WORKSPACE(
      clgpu_search_workspace_size(context, NULL, &out, &in, &haystack, &options, &report));
  assert_status(clgpu_lower_bound(context, NULL, &out, &in, &haystack, &options, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_on(queue, output, sizeof got, got);
  for (size_t i = 0; i < N; i++) {
    size_t at = 0;
    while (at < N && expected[at] < data[i]) at++;
    if (got[i] != at)
      fail_msg("lower_bound %s: needle %zu at %u, the host's %zu", label, i, got[i], at);
  }
  clReleaseMemObject(haystack_buffer);

  /* partition by x < 100. */
  WITH_WORKSPACE(clgpu_partition_workspace_size(context, "x < 100", &other, &count_view, &in,
                                                &options, &report));
  assert_status(
      clgpu_partition(context, "x < 100", &other, &count_view, &in, &options, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_on(queue, second, sizeof got, got);
  size_t front = 0, back = selected;
  for (size_t i = 0; i < N; i++) {
    size_t at = data[i] < 100 ? front++ : back++;
    if (got[at] != data[i])
      fail_msg("partition %s: out[%zu] %u, the host's %u", label, at, got[at], data[i]);
  }
#undef WITH_WORKSPACE
  clgpu_workspace_destroy(workspace);
  clReleaseMemObject(input);
  clReleaseMemObject(output);
  clReleaseMemObject(second);
  clReleaseMemObject(count);
}

/* The context's queue held behind a closed user event: a call that put
 * any command there could not finish, and its results would not be read
 * back right through the other queue. */
static void calls_run_on_the_queue_their_options_name(void **state) {
  (void)state;
  cl_event held = NULL;
  cl_event gate = hold_context_queue(&held);
  cl_command_queue queue = second_queue();
  /* Calls without a workspace inside an allocation-cache scope: their
   * scratch must not come from the cache, whose reuse follows the
   * context's queue. */
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  run_every_operation_on(queue, 0);
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.hits + stats.misses, 0);
  run_every_operation_on(queue, 1);
  release_context_queue(gate, held);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  clgpu_alloc_cache_destroy(cache);
  clReleaseCommandQueue(queue);
}

/* A queue of another OpenCL context (on the same device) and reserved
 * fields that are not zero: refused with a message, no event made, the
 * output unchanged. */
static void a_foreign_queue_and_reserved_fields_are_refused(void **state) {
  (void)state;
  cl_context other = NULL;
  cl_command_queue foreign = foreign_queue(&other);
  cl_uint data[N], got[N], marker[N];
  make_data(data);
  for (size_t i = 0; i < N; i++) marker[i] = 0xabcdu;
  cl_mem input = buffer_of(sizeof data, data), output = buffer_of(sizeof marker, marker);
  clgpu_array in = view_of(input, CLGPU_TYPE_UINT32, N),
              out = view_of(output, CLGPU_TYPE_UINT32, N);
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  clgpu_call_options options = {.queue = foreign};
  clgpu_sort_options sort_options = {.queue = foreign};
  cl_event event = NULL;
  assert_status(clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out, &in, &options, 0, NULL, &event),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "another OpenCL context"));
  assert_null(event);
  assert_status(clgpu_sort(context, NULL, &out, NULL, &sort_options, 0, NULL, &event),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_sort"));
  assert_null(event);
  /* Reserved fields, in the calls and in the size queries. */
  clgpu_call_options reserved = {.reserved = {0, 0, 1, 0}};
  clgpu_sort_options sort_reserved = {.reserved = {7}};
  clgpu_workspace_size report;
  assert_status(clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out, &in, &reserved, 0, NULL, &event),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "options->reserved[2] is not zero"));
  assert_null(event);
  assert_status(
      clgpu_scan_workspace_size(context, &scan, CLGPU_ALL_AXES, &out, &in, &reserved, &report),
      CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_sort(context, NULL, &out, NULL, &sort_reserved, 0, NULL, &event),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "options->reserved[0] is not zero"));
  assert_null(event);
  assert_status(clgpu_lower_bound(context, NULL, &out, &in, &in, &reserved, 0, NULL, &event),
                CLGPU_INVALID_ARGUMENT);
  assert_null(event);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), output, CL_TRUE, 0, sizeof got,
                                       got, 0, NULL, NULL),
                   CL_SUCCESS);
  assert_memory_equal(got, marker, sizeof got);
  clReleaseMemObject(input);
  clReleaseMemObject(output);
  clReleaseCommandQueue(foreign);
  clReleaseContext(other);
}

/* Count the moves a buffer reports (instead of printing them). */
static void count_moves(void *user, const clgpu_move_report *report) {
  (void)report;
  (*(int *)user)++;
}

/* An elementwise object and a membuf made with options naming a second
 * queue: with the context's queue held behind a closed user event, a run
 * (whose input overlaps its output, so a temporary's copy is enqueued too)
 * and the buffer's moves both ways complete on the second queue alone, and
 * their results are right. */
static void elementwise_and_membuf_objects_use_their_queue(void **state) {
  (void)state;
  cl_event held = NULL;
  cl_event gate = hold_context_queue(&held);
  cl_command_queue queue = second_queue();
  int moves = 0;
  assert_status(clgpu_membuf_set_move_report(context, count_moves, &moves), CLGPU_SUCCESS);

  /* The elementwise run: y = x + 1 with x the same buffer backwards. */
  cl_uint data[N], got[N];
  make_data(data);
  cl_mem buffer = buffer_of(sizeof data, data);
  clgpu_array y = view_of(buffer, CLGPU_TYPE_UINT32, N), x;
  assert_status(clgpu_array_slice(&y, &backwards, &x), CLGPU_SUCCESS);
  const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                        {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}};
  clgpu_elementwise_options options = {.queue = queue};
  clgpu_elementwise *kernel = NULL;
  assert_status(clgpu_elementwise_create(context, "y = x + 1", 2, args, &options, &kernel),
                CLGPU_SUCCESS);
  const clgpu_elementwise_value values[] = {{&y, NULL}, {&x, NULL}};
  cl_event ran = NULL;
  assert_status(clgpu_elementwise_run(kernel, values, 0, NULL, &ran), CLGPU_SUCCESS);
  assert_int_equal(clFinish(queue), CL_SUCCESS);
  if (test_event_status(ran) != CL_COMPLETE)
    fail_msg("the elementwise run did not complete on its object's queue");
  clgpu_elementwise_stats stats;
  assert_status(clgpu_elementwise_get_stats(kernel, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.staged_inputs, 1);
  read_on(queue, buffer, sizeof got, got);
  for (size_t i = 0; i < N; i++) {
    if (got[i] != data[N - 1 - i] + 1)
      fail_msg("elementwise on a second queue: y[%zu] %u, the host's %u", i, got[i],
               data[N - 1 - i] + 1);
  }
  clReleaseEvent(ran);

  /* The membuf: made on the host, moved to the device (the event must
   * complete on the second queue), doubled there by the elementwise
   * object, read back by a blocking move to the host. */
  clgpu_membuf_options named = {.name = "on_a_second_queue", .queue = queue};
  clgpu_membuf *membuf = NULL;
  assert_status(
      clgpu_membuf_create(context, CLGPU_TYPE_UINT32, N, CLGPU_SPACE_HOST, &named, &membuf),
      CLGPU_SUCCESS);
  void *host = NULL;
  assert_status(clgpu_membuf_host(membuf, CLGPU_ACCESS_WRITE_ONLY, &host), CLGPU_SUCCESS);
  memcpy(host, data, sizeof data);
  cl_event moved = NULL;
  clgpu_array device;
  assert_status(
      clgpu_membuf_device_array(membuf, CLGPU_ACCESS_READ_WRITE, 0, NULL, &moved, &device),
      CLGPU_SUCCESS);
  assert_int_equal(clFinish(queue), CL_SUCCESS);
  if (test_event_status(moved) != CL_COMPLETE)
    fail_msg("the membuf's move to the device did not complete on its queue");
  const clgpu_elementwise_value in_place[] = {{&device, NULL}, {&device, NULL}};
  assert_status(clgpu_elementwise_run(kernel, in_place, 1, &moved, NULL), CLGPU_SUCCESS);
  clReleaseEvent(moved);
  /* Blocking: it would never return if it enqueued on the gated queue. */
  assert_status(clgpu_membuf_host(membuf, CLGPU_ACCESS_READ_ONLY, &host), CLGPU_SUCCESS);
  const cl_uint *back = host;
  for (size_t i = 0; i < N; i++) {
    if (back[i] != data[i] + 1)
      fail_msg("membuf on a second queue: element %zu is %u, the host's %u", i, back[i],
               data[i] + 1);
  }
  assert_int_equal(moves, 2);
  release_context_queue(gate, held);
  clgpu_membuf_destroy(membuf);
  clgpu_elementwise_destroy(kernel);
  assert_status(clgpu_membuf_set_move_report(context, NULL, NULL), CLGPU_SUCCESS);
  clReleaseMemObject(buffer);
  clReleaseCommandQueue(queue);
}

/* The objects' options: a queue of another OpenCL context, a queue for a
 * host-only buffer and reserved fields that are not zero are refused, with
 * nothing made. */
static void object_options_are_checked(void **state) {
  (void)state;
  cl_context other = NULL;
  cl_command_queue foreign = foreign_queue(&other);
  const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}};
  const struct {
    const char *what;
    clgpu_elementwise_options options;
    const char *message;
  } kernels[] = {
      {"a foreign queue", {.queue = foreign}, "options->queue belongs to another OpenCL context"},
      {"reserved[3]", {.reserved = {0, 0, 0, 1}}, "options->reserved[3] is not zero"},
  };
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    clgpu_elementwise *kernel = (clgpu_elementwise *)&kernels[k];
    assert_status(clgpu_elementwise_create(context, "y = 1", 1, args, &kernels[k].options, &kernel),
                  CLGPU_INVALID_ARGUMENT);
    assert_null(kernel);
    if (!strstr(clgpu_last_error(), kernels[k].message))
      fail_msg("elementwise options with %s: \"%s\"", kernels[k].what, clgpu_last_error());
  }
  const struct {
    const char *what;
    int host_only;
    clgpu_membuf_options options;
    const char *message;
  } buffers[] = {
      {"a foreign queue",
       0,
       {.queue = foreign},
       "options->queue belongs to another OpenCL context"},
      {"a queue for a host-only buffer", 1, {.queue = foreign}, "a host-only buffer enqueues"},
      {"reserved[0]", 0, {.reserved = {1}}, "options->reserved[0] is not zero"},
      {"reserved[1] of a host-only buffer",
       1,
       {.reserved = {0, 2}},
       "options->reserved[1] is not zero"},
  };
  for (size_t b = 0; b < sizeof buffers / sizeof buffers[0]; b++) {
    clgpu_membuf *membuf = (clgpu_membuf *)&buffers[b];
    clgpu_status status =
        buffers[b].host_only
            ? clgpu_membuf_create_host(CLGPU_TYPE_UINT32, 4, &buffers[b].options, &membuf)
            : clgpu_membuf_create(context, CLGPU_TYPE_UINT32, 4, CLGPU_SPACE_DEVICE,
                                  &buffers[b].options, &membuf);
    assert_status(status, CLGPU_INVALID_ARGUMENT);
    assert_null(membuf);
    if (!strstr(clgpu_last_error(), buffers[b].message))
      fail_msg("membuf options with %s: \"%s\"", buffers[b].what, clgpu_last_error());
  }
  clgpu_prebuild_options prebuild_options = {.skip_record = 1, .reserved = {0, 5}};
  clgpu_prebuild *prebuild = (clgpu_prebuild *)&prebuild_options;
  assert_status(clgpu_prebuild_start(context, &prebuild_options, &prebuild),
                CLGPU_INVALID_ARGUMENT);
  assert_null(prebuild);
  assert_non_null(strstr(clgpu_last_error(), "options->reserved[1] is not zero"));
  clReleaseCommandQueue(foreign);
  clReleaseContext(other);
}

/* Two scans with one workspace: the first on `first` behind a closed user
 * event, the second on `then` with no wait list. The second must not
 * finish before the gate opens (it waits for the first through the
 * workspace), and both must be right. */
static void check_workspace_order(cl_command_queue first, cl_command_queue then) {
  cl_uint data[N], got[N];
  make_data(data);
  cl_mem input = buffer_of(sizeof data, data);
  cl_mem output_a = buffer_of(sizeof data, NULL), output_b = buffer_of(sizeof data, NULL);
  clgpu_array in = view_of(input, CLGPU_TYPE_UINT32, N);
  clgpu_array out_a = view_of(output_a, CLGPU_TYPE_UINT32, N);
  clgpu_array out_b = view_of(output_b, CLGPU_TYPE_UINT32, N);
  clgpu_array reversed;
  assert_status(clgpu_array_slice(&in, &backwards, &reversed), CLGPU_SUCCESS);
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  clgpu_workspace_size report;
  clgpu_call_options options = {.queue = first};
  assert_status(clgpu_scan_workspace_size(context, &scan, CLGPU_ALL_AXES, &out_a, &reversed,
                                          &options, &report),
                CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  options.workspace = workspace;
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event done_a = NULL, done_b = NULL;
  /* The reversed input is staged into the workspace by both calls: run
   * together, the second's staging would overwrite the first's. */
  assert_status(
      clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out_a, &reversed, &options, 1, &gate, &done_a),
      CLGPU_SUCCESS);
  options.queue = then;
  assert_status(
      clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out_b, &reversed, &options, 0, NULL, &done_b),
      CLGPU_SUCCESS);
  test_gate_opener opener = {gate, done_b, CL_QUEUED};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
  clFlush(first);
  clFlush(then);
  assert_int_equal(clWaitForEvents(1, &done_b), CL_SUCCESS);
  assert_int_equal(pthread_join(thread, NULL), 0);
  if (opener.call_status_before_opening == CL_COMPLETE)
    fail_msg("the second call finished before the first could start");
  assert_int_equal(clWaitForEvents(1, &done_a), CL_SUCCESS);
  cl_mem outputs[2] = {output_a, output_b};
  for (int k = 0; k < 2; k++) {
    read_on(then, outputs[k], sizeof got, got);
    cl_uint running = 0;
    for (size_t i = 0; i < N; i++) {
      running += data[N - 1 - i];
      if (got[i] != running)
        fail_msg("scan %c: out[%zu] %u, the host's %u", 'a' + k, i, got[i], running);
    }
  }
  clReleaseEvent(done_a);
  clReleaseEvent(done_b);
  clReleaseEvent(gate);
  clgpu_workspace_destroy(workspace);
  clReleaseMemObject(input);
  clReleaseMemObject(output_a);
  clReleaseMemObject(output_b);
}

static void a_workspace_orders_calls_on_two_queues(void **state) {
  (void)state;
  cl_command_queue queue = second_queue();
  check_workspace_order(clgpu_context_queue(context), queue);
  check_workspace_order(queue, clgpu_context_queue(context));
  clReleaseCommandQueue(queue);
}

static void a_workspace_orders_calls_on_an_out_of_order_queue(void **state) {
  (void)state;
  cl_command_queue queue = test_out_of_order_queue(context);
  if (!queue) {
    print_message("# the device makes no out-of-order queue: checked on two queues only\n");
    return;
  }
  check_workspace_order(queue, queue);
  clReleaseCommandQueue(queue);
}

/* A workspace made in a cache scope, used on another queue behind a closed
 * gate, then destroyed: its block goes back to the pool, and a buffer the
 * pool hands out again (the same block) is written on the context's queue
 * only after the call on the other queue has finished with it. */
static void a_workspace_block_is_reused_after_its_last_call(void **state) {
  (void)state;
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_uint data[N], got[N];
  make_data(data);
  cl_mem input = buffer_of(sizeof data, data), output = buffer_of(sizeof data, NULL);
  clgpu_array in = view_of(input, CLGPU_TYPE_UINT32, N),
              out = view_of(output, CLGPU_TYPE_UINT32, N);
  clgpu_array reversed;
  assert_status(clgpu_array_slice(&in, &backwards, &reversed), CLGPU_SUCCESS);
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  cl_command_queue queue = second_queue();
  clgpu_call_options options = {.queue = queue};
  clgpu_workspace_size report;
  assert_status(
      clgpu_scan_workspace_size(context, &scan, CLGPU_ALL_AXES, &out, &reversed, &options, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  cl_mem block = NULL;
  size_t offset = 0, size = 0;
  assert_status(clgpu_workspace_region(workspace, &block, &offset, &size), CLGPU_SUCCESS);
  options.workspace = workspace;
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event scanned = NULL;
  assert_status(
      clgpu_scan(context, &scan, CLGPU_ALL_AXES, &out, &reversed, &options, 1, &gate, &scanned),
      CLGPU_SUCCESS);
  clgpu_workspace_destroy(workspace);
  cl_mem again = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, (size_t)report.total_bytes, &again),
                CLGPU_SUCCESS);
  assert_ptr_equal(again, block); /* else the check below would prove nothing */
  cl_uint junk = 0xdeadbeefu;
  cl_event filled = NULL;
  assert_int_equal(clEnqueueFillBuffer(clgpu_context_queue(context), again, &junk, sizeof junk, 0,
                                       (size_t)report.total_bytes, 0, NULL, &filled),
                   CL_SUCCESS);
  test_gate_opener opener = {gate, filled, CL_QUEUED};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
  clFlush(queue);
  clFlush(clgpu_context_queue(context));
  assert_int_equal(clWaitForEvents(1, &filled), CL_SUCCESS);
  assert_int_equal(pthread_join(thread, NULL), 0);
  if (opener.call_status_before_opening == CL_COMPLETE)
    fail_msg("the block was written again before the call on the other queue ran");
  assert_int_equal(clWaitForEvents(1, &scanned), CL_SUCCESS);
  read_on(queue, output, sizeof got, got);
  cl_uint running = 0;
  for (size_t i = 0; i < N; i++) {
    running += data[N - 1 - i];
    if (got[i] != running) fail_msg("scan: out[%zu] %u, the host's %u", i, got[i], running);
  }
  clgpu_buffer_release(context, again);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  clgpu_alloc_cache_destroy(cache);
  clReleaseEvent(filled);
  clReleaseEvent(scanned);
  clReleaseEvent(gate);
  clReleaseCommandQueue(queue);
  clReleaseMemObject(input);
  clReleaseMemObject(output);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(calls_run_on_the_queue_their_options_name),
      cmocka_unit_test(a_foreign_queue_and_reserved_fields_are_refused),
      cmocka_unit_test(elementwise_and_membuf_objects_use_their_queue),
      cmocka_unit_test(object_options_are_checked),
      cmocka_unit_test(a_workspace_orders_calls_on_two_queues),
      cmocka_unit_test(a_workspace_orders_calls_on_an_out_of_order_queue),
      cmocka_unit_test(a_workspace_block_is_reused_after_its_last_call),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
