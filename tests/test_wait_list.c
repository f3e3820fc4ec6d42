/* The wait-list rule shared by every entry point that takes one (clgpu.h):
 * a NULL entry and an event of another OpenCL context are refused before
 * anything is enqueued, with a message naming the entry, no event made and
 * the outputs unchanged. Each call of the table would succeed with a good
 * wait list, which the last test shows against the host. */
#include <string.h>

#include "support.h"

enum { N = 64 };

typedef struct fixture {
  clgpu_context *context;
  cl_mem input;  /* N uint, i * 7 % 31 */
  cl_mem output; /* N uint, a known pattern checked after each refusal */
  cl_mem count;  /* one ulong */
  clgpu_array in, out, out_one, out_ulong, count_view;
  clgpu_membuf *membuf;
  clgpu_elementwise *square;
  cl_context other;   /* a second OpenCL context on the same device */
  cl_event foreign;   /* a user event of `other` */
  cl_event own;       /* a completed user event of the context */
} fixture;

typedef clgpu_status (*call_fn)(fixture *f, cl_uint num_events, const cl_event *wait_list,
                                cl_event *event);

static clgpu_status call_reduce(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
  return clgpu_reduce(f->context, &op, CLGPU_ALL_AXES, &f->out_one, &f->in, NULL, n, list, event);
}
static clgpu_status call_count_if(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  return clgpu_count_if(f->context, "x > 3", &f->out_ulong, &f->in, NULL, n, list, event);
}
static clgpu_status call_scan(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  clgpu_scan_op op = {.kind = CLGPU_SCAN_SUM};
  return clgpu_scan(f->context, &op, CLGPU_ALL_AXES, &f->out, &f->in, NULL, n, list, event);
}
static clgpu_status call_findall(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  return clgpu_findall(f->context, "x > 3", &f->out, &f->count_view, &f->in, NULL, n, list, event);
}
static clgpu_status call_sort(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  return clgpu_sort(f->context, NULL, &f->out, NULL, NULL, n, list, event);
}
static clgpu_status call_merge_sort(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  clgpu_sort_spec spec = {.compare = "a > b"};
  return clgpu_sort(f->context, &spec, &f->out, NULL, NULL, n, list, event);
}
static clgpu_status call_permutation(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  return clgpu_sort_permutation(f->context, NULL, &f->out, &f->in, NULL, n, list, event);
}
static clgpu_status call_gather(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  /* The input's values are all below N: a valid index array. */
  return clgpu_gather(f->context, &f->out, &f->in, &f->in, n, list, event);
}
static clgpu_status call_iota(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  cl_uint start = 5, step = 2;
  return clgpu_iota(f->context, &f->out, &start, &step, n, list, event);
}
static clgpu_status call_elementwise(fixture *f, cl_uint n, const cl_event *list,
                                     cl_event *event) {
  clgpu_elementwise_value values[] = {{&f->out, NULL}, {&f->in, NULL}};
  return clgpu_elementwise_run(f->square, values, n, list, event);
}
static clgpu_status call_axpby(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  cl_uint alpha = 2, beta = 3;
  return clgpu_axpby(f->context, &f->out, &alpha, &f->in, &beta, &f->in, n, list, event);
}
static clgpu_status call_copy(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  return clgpu_copy(f->context, &f->out, &f->in, n, list, event);
}
static clgpu_status call_fill(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  cl_uint value = 9;
  return clgpu_fill(f->context, &f->out, &value, n, list, event);
}
static clgpu_status call_write(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  static cl_uint host[N];
  for (cl_uint i = 0; i < N; i++) host[i] = 1000 + i;
  return clgpu_copy_from_host(f->context, &f->out, host, sizeof host, n, list, event);
}
static clgpu_status call_read(fixture *f, cl_uint n, const cl_event *list, cl_event *event) {
  /* The read's output is host memory: the test checks it separately. */
  static cl_uint host[N];
  return clgpu_copy_to_host(f->context, host, sizeof host, &f->in, n, list, event);
}
static clgpu_status call_membuf_move(fixture *f, cl_uint n, const cl_event *list,
                                     cl_event *event) {
  return clgpu_membuf_move(f->membuf, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, n, list, event);
}

typedef struct entry {
  const char *name;
  call_fn call;
} entry;

static const entry entries[] = {
    {"clgpu_reduce", call_reduce},
    {"clgpu_count_if", call_count_if},
    {"clgpu_scan", call_scan},
    {"clgpu_findall", call_findall},
    {"clgpu_sort", call_sort},
    {"clgpu_sort", call_merge_sort},
    {"clgpu_sort_permutation", call_permutation},
    {"clgpu_gather", call_gather},
    {"clgpu_iota", call_iota},
    {"clgpu_elementwise_run", call_elementwise},
    {"clgpu_axpby", call_axpby},
    {"clgpu_copy", call_copy},
    {"clgpu_fill", call_fill},
    {"clgpu_copy_from_host", call_write},
    {"clgpu_copy_to_host", call_read},
    {"clgpu_membuf_move", call_membuf_move},
};

static cl_uint pattern(cl_uint i) { return 0xA5000000u + i; }

static void reset_output(fixture *f) {
  cl_uint host[N];
  for (cl_uint i = 0; i < N; i++) host[i] = pattern(i);
  assert_status(clgpu_array_write(f->context, &f->out, host, sizeof host, 0, NULL), CLGPU_SUCCESS);
  cl_ulong zero = 0x5A5A5A5Au;
  assert_status(clgpu_array_write(f->context, &f->count_view, &zero, sizeof zero, 0, NULL),
                CLGPU_SUCCESS);
}

static void check_output_unchanged(fixture *f, const char *name) {
  cl_command_queue queue = clgpu_context_queue(f->context);
  assert_int_equal(clFinish(queue), CL_SUCCESS);
  cl_uint host[N];
  assert_status(clgpu_array_read(f->context, host, sizeof host, &f->out, 0, NULL), CLGPU_SUCCESS);
  for (cl_uint i = 0; i < N; i++) {
    if (host[i] != pattern(i)) {
      fail_msg("%s: output element %u changed to %u after a refused call", name, i, host[i]);
    }
  }
  cl_ulong count = 0;
  assert_status(clgpu_array_read(f->context, &count, sizeof count, &f->count_view, 0, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(count, 0x5A5A5A5Au);
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->context = test_context(NULL);
  cl_context cl = clgpu_context_cl_context(f->context);
  cl_device_id device = clgpu_context_device(f->context);
  cl_int err = CL_SUCCESS;
  f->input = clCreateBuffer(cl, CL_MEM_READ_WRITE, N * sizeof(cl_uint), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->output = clCreateBuffer(cl, CL_MEM_READ_WRITE, N * sizeof(cl_uint), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->count = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof(cl_ulong), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_status(clgpu_array_1d(f->input, 0, CLGPU_TYPE_UINT32, N, &f->in), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->output, 0, CLGPU_TYPE_UINT32, N, &f->out), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->output, 0, CLGPU_TYPE_UINT32, 1, &f->out_one), CLGPU_SUCCESS);
  /* The count_if result (one ulong) over the output's first 8 bytes. */
  assert_status(clgpu_array_1d(f->output, 0, CLGPU_TYPE_UINT64, 1, &f->out_ulong), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->count, 0, CLGPU_TYPE_UINT64, 1, &f->count_view), CLGPU_SUCCESS);
  cl_uint host[N];
  for (cl_uint i = 0; i < N; i++) host[i] = i * 7 % 31;
  assert_status(clgpu_array_write(f->context, &f->in, host, sizeof host, 0, NULL), CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_create(f->context, CLGPU_TYPE_UINT32, N, CLGPU_SPACE_HOST, NULL, &f->membuf),
      CLGPU_SUCCESS);
  clgpu_membuf_set_move_report(f->context, NULL, NULL);
  clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                  {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}};
  assert_status(clgpu_elementwise_create(f->context, "y = x * x", 2, args, NULL, &f->square),
                CLGPU_SUCCESS);
  f->other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->foreign = clCreateUserEvent(f->other, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->own = clCreateUserEvent(cl, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clSetUserEventStatus(f->own, CL_COMPLETE), CL_SUCCESS);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  clSetUserEventStatus(f->foreign, CL_COMPLETE);
  clReleaseEvent(f->foreign);
  clReleaseEvent(f->own);
  clReleaseContext(f->other);
  clgpu_elementwise_destroy(f->square);
  clgpu_membuf_destroy(f->membuf);
  clReleaseMemObject(f->input);
  clReleaseMemObject(f->output);
  clReleaseMemObject(f->count);
  clgpu_context_destroy(f->context);
  free(f);
  return 0;
}

/* One refused call: its status, the message naming the call and the entry,
 * no event, nothing written. */
static void expect_refused(fixture *f, const entry *e, cl_uint num_events, const cl_event *list,
                           clgpu_status expected, const char *words) {
  reset_output(f);
  cl_event event = NULL;
  clgpu_status status = e->call(f, num_events, list, &event);
  if (status != expected) {
    fail_msg("%s: expected %s, got %s: %s", e->name, clgpu_status_name(expected),
             clgpu_status_name(status), clgpu_last_error());
  }
  const char *message = clgpu_last_error();
  if (!strstr(message, e->name) || !strstr(message, words)) {
    fail_msg("%s: the message \"%s\" does not name the call and \"%s\"", e->name, message, words);
  }
  assert_null(event);
  check_output_unchanged(f, e->name);
}

static void null_entries_are_refused(void **state) {
  fixture *f = *state;
  for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++) {
    cl_event only_null[] = {NULL};
    expect_refused(f, &entries[k], 1, only_null, CLGPU_CL_INVALID_EVENT_WAIT_LIST,
                   "wait_list[0] is NULL");
    cl_event second_null[] = {f->own, NULL};
    expect_refused(f, &entries[k], 2, second_null, CLGPU_CL_INVALID_EVENT_WAIT_LIST,
                   "wait_list[1] is NULL");
  }
}

static void events_of_another_context_are_refused(void **state) {
  fixture *f = *state;
  for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++) {
    cl_event foreign[] = {f->foreign};
    expect_refused(f, &entries[k], 1, foreign, CLGPU_CL_INVALID_CONTEXT,
                   "wait_list[0] is an event of another OpenCL context");
    cl_event mixed[] = {f->own, f->own, f->foreign};
    expect_refused(f, &entries[k], 3, mixed, CLGPU_CL_INVALID_CONTEXT,
                   "wait_list[2] is an event of another OpenCL context");
  }
}

static void counts_that_do_not_match_are_refused(void **state) {
  fixture *f = *state;
  for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++) {
    expect_refused(f, &entries[k], 2, NULL, CLGPU_INVALID_ARGUMENT,
                   "wait_list is NULL but num_events is 2");
    cl_event own[] = {f->own};
    expect_refused(f, &entries[k], 0, own, CLGPU_INVALID_ARGUMENT,
                   "wait_list is not NULL but num_events is 0");
  }
}

/* The same calls with a good wait list (the context's own completed event)
 * run; spot-check the results of a few against the host. */
static void own_events_are_accepted(void **state) {
  fixture *f = *state;
  cl_event own[] = {f->own};
  for (size_t k = 0; k < sizeof entries / sizeof entries[0]; k++) {
    reset_output(f);
    cl_event event = NULL;
    clgpu_status status = entries[k].call(f, 1, own, &event);
    if (status != CLGPU_SUCCESS) {
      fail_msg("%s with a good wait list: %s: %s", entries[k].name, clgpu_status_name(status),
               clgpu_last_error());
    }
    assert_non_null(event);
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    clReleaseEvent(event);
  }
  /* The last array call of the table that writes `out` was clgpu_array_write
   * (1000 + i); run iota again and check it. */
  reset_output(f);
  assert_status(call_iota(f, 1, own, NULL), CLGPU_SUCCESS);
  cl_uint host[N];
  assert_status(clgpu_array_read(f->context, host, sizeof host, &f->out, 0, NULL), CLGPU_SUCCESS);
  for (cl_uint i = 0; i < N; i++) assert_int_equal(host[i], 5 + 2 * i);
  reset_output(f);
  assert_status(call_reduce(f, 1, own, NULL), CLGPU_SUCCESS);
  cl_uint sum = 0, expected = 0;
  for (cl_uint i = 0; i < N; i++) expected += i * 7 % 31;
  assert_status(clgpu_array_read(f->context, &sum, sizeof sum, &f->out_one, 0, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(sum, expected);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(null_entries_are_refused),
      cmocka_unit_test(events_of_another_context_are_refused),
      cmocka_unit_test(counts_that_do_not_match_are_refused),
      cmocka_unit_test(own_events_are_accepted),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
