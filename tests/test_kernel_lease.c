/* Kernel leases: after any call returns, no kernel object the library keeps
 * holds one of the caller's cl_mem as an argument (implementations that
 * retain kernel-argument memory objects would otherwise keep the caller's
 * buffers alive inside the cache). POCL does not retain them, so the test
 * sees the arguments themselves: it interposes clSetKernelArg (this
 * executable's definition is the one libclgpu's calls bind to), records the
 * value every kernel argument holds last, and after each call checks that
 * none is a caller's buffer. Results are checked against the host so the
 * kernels run for real, twice, the second time on the cleared kernels. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "support.h"

/* ---- the interposed clSetKernelArg ---- */

enum { MAX_RECORDS = 4096 };

typedef struct arg_record {
  cl_kernel kernel;
  cl_uint index;
  cl_mem value; /* the argument's value read as a cl_mem; NULL otherwise */
} arg_record;

static arg_record records[MAX_RECORDS];
static size_t record_count;
static int record_overflow;
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;

typedef cl_int (*set_kernel_arg_fn)(cl_kernel, cl_uint, size_t, const void *);

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                               const void *value) CL_API_SUFFIX__VERSION_1_0 {
  static set_kernel_arg_fn real;
  if (!real) {
    void *found = dlsym(RTLD_NEXT, "clSetKernelArg");
    memcpy(&real, &found, sizeof real);
  }
  cl_int err = real(kernel, index, size, value);
  if (err != CL_SUCCESS) return err;
  cl_mem held = NULL;
  if (size == sizeof(cl_mem) && value) memcpy(&held, value, sizeof held);
  pthread_mutex_lock(&records_lock);
  size_t at = 0;
  while (at < record_count && (records[at].kernel != kernel || records[at].index != index)) at++;
  if (at == record_count) {
    if (record_count == MAX_RECORDS) {
      record_overflow = 1;
      pthread_mutex_unlock(&records_lock);
      return err;
    }
    record_count++;
  }
  records[at] = (arg_record){kernel, index, held};
  pthread_mutex_unlock(&records_lock);
  return err;
}

/* Fail when a recorded argument still holds one of `buffers`. */
static void check_no_argument_holds(const char *call, const cl_mem *buffers, size_t count) {
  assert_false(record_overflow);
  pthread_mutex_lock(&records_lock);
  for (size_t r = 0; r < record_count; r++) {
    for (size_t b = 0; b < count; b++) {
      if (records[r].value == buffers[b]) {
        pthread_mutex_unlock(&records_lock);
        fail_msg("after %s a cached kernel still holds the caller's buffer %zu as argument %u",
                 call, b, records[r].index);
      }
    }
  }
  pthread_mutex_unlock(&records_lock);
}

/* ---- the calls ---- */

enum { N = 3000 };

typedef struct fixture {
  clgpu_context *context;
  cl_mem buffers[4]; /* input, output, third, count */
  clgpu_array input, output, third, count, output_one, strided_input;
  cl_uint host[N];
} fixture;

static void read_uints(fixture *f, const clgpu_array *view, cl_uint *out, size_t n) {
  assert_status(clgpu_array_read(f->context, out, n * sizeof *out, view, 0, NULL), CLGPU_SUCCESS);
}

static void after(fixture *f, const char *call) {
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
  check_no_argument_holds(call, f->buffers, 4);
}

static void rewrite_input(fixture *f) {
  assert_status(clgpu_array_write(f->context, &f->input, f->host, sizeof f->host, 0, NULL),
                CLGPU_SUCCESS);
}

static int compare_uints(const void *a, const void *b) {
  cl_uint x = *(const cl_uint *)a, y = *(const cl_uint *)b;
  return (x > y) - (x < y);
}

static void every_family_gives_its_kernels_back_clear(void **state) {
  fixture *f = *state;
  static cl_uint out[N], expected[N];
  for (int round = 0; round < 2; round++) {
    /* Reductions: sum (whole array), count_if, scan, findall. */
    clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
    assert_status(clgpu_reduce(f->context, &sum, CLGPU_ALL_AXES, &f->output_one, &f->input, NULL, 0,
                               NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_reduce");
    cl_uint total = 0, expected_total = 0;
    for (size_t i = 0; i < N; i++) expected_total += f->host[i];
    read_uints(f, &f->output_one, &total, 1);
    assert_int_equal(total, expected_total);

    clgpu_reduce_op custom = {.kind = CLGPU_REDUCE_CUSTOM,
                              .result_type = CLGPU_TYPE_UINT32,
                              .map = "x & 7",
                              .reduce = "a + b",
                              .neutral = "0"};
    assert_status(clgpu_reduce(f->context, &custom, CLGPU_ALL_AXES, &f->output_one, &f->input, NULL,
                               0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_reduce (custom)");

    clgpu_reduce_op argmax = {.kind = CLGPU_REDUCE_ARGMAX};
    assert_status(clgpu_reduce(f->context, &argmax, CLGPU_ALL_AXES, &f->count, &f->input, NULL, 0,
                               NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_reduce (argmax)");

    assert_status(
        clgpu_count_if(f->context, "x % 3 == 0", &f->count, &f->input, NULL, 0, NULL, NULL),
        CLGPU_SUCCESS);
    after(f, "clgpu_count_if");

    clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM, .exclusive = 1};
    assert_status(
        clgpu_scan(f->context, &scan, CLGPU_ALL_AXES, &f->output, &f->input, NULL, 0, NULL, NULL),
        CLGPU_SUCCESS);
    after(f, "clgpu_scan");
    read_uints(f, &f->output, out, N);
    cl_uint running = 0;
    for (size_t i = 0; i < N; i++) {
      assert_int_equal(out[i], running);
      running += f->host[i];
    }

    assert_status(clgpu_findall(f->context, "x % 5 == 1", &f->output, &f->count, &f->input, NULL, 0,
                                NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_findall");

    /* Sorts: radix (keys, key-value), merge with a comparator, permutation,
     * gather. */
    assert_status(clgpu_copy(f->context, &f->output, &f->input, 0, NULL, NULL), CLGPU_SUCCESS);
    assert_status(clgpu_sort(f->context, NULL, &f->output, &f->third, NULL, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_sort (radix, by key)");
    memcpy(expected, f->host, sizeof expected);
    qsort(expected, N, sizeof expected[0], compare_uints);
    read_uints(f, &f->output, out, N);
    assert_memory_equal(out, expected, sizeof out);

    clgpu_sort_spec descending = {.compare = "a > b"};
    assert_status(clgpu_sort(f->context, &descending, &f->output, NULL, NULL, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_sort (merge)");
    read_uints(f, &f->output, out, N);
    for (size_t i = 0; i < N; i++) assert_int_equal(out[i], expected[N - 1 - i]);

    assert_status(
        clgpu_sort_permutation(f->context, NULL, &f->third, &f->input, NULL, 0, NULL, NULL),
        CLGPU_SUCCESS);
    after(f, "clgpu_sort_permutation");
    assert_status(clgpu_gather(f->context, &f->output, &f->input, &f->third, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_gather");
    read_uints(f, &f->output, out, N);
    assert_memory_equal(out, expected, sizeof out);

    /* Elementwise: a user kernel over a strided view, the built-in copy,
     * fill and iota. */
    clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                    {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}};
    clgpu_elementwise *twice = NULL;
    assert_status(clgpu_elementwise_create(f->context, "y = 2 * x", 2, args, NULL, &twice),
                  CLGPU_SUCCESS);
    clgpu_array half_output = f->output;
    half_output.shape[0] = N / 2;
    clgpu_elementwise_value values[] = {{&half_output, NULL}, {&f->strided_input, NULL}};
    assert_status(clgpu_elementwise_run(twice, values, 0, NULL, NULL), CLGPU_SUCCESS);
    after(f, "clgpu_elementwise_run");
    read_uints(f, &half_output, out, N / 2);
    for (size_t i = 0; i < N / 2; i++) assert_int_equal(out[i], 2 * f->host[2 * i]);
    clgpu_elementwise_destroy(twice);

    assert_status(clgpu_copy(f->context, &half_output, &f->strided_input, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_copy (strided)");
    cl_uint value = 77;
    assert_status(clgpu_fill(f->context, &f->strided_input, &value, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_fill (strided)");
    cl_uint start = 1, step = 2;
    assert_status(clgpu_iota(f->context, &f->output, &start, &step, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    after(f, "clgpu_iota");
    read_uints(f, &f->output, out, N);
    for (size_t i = 0; i < N; i++) assert_int_equal(out[i], 1 + 2 * i);
    rewrite_input(f);
  }
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->context = test_context(NULL);
  cl_context cl = clgpu_context_cl_context(f->context);
  cl_int err = CL_SUCCESS;
  for (int b = 0; b < 4; b++) {
    f->buffers[b] = clCreateBuffer(cl, CL_MEM_READ_WRITE, N * sizeof(cl_ulong), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
  }
  assert_status(clgpu_array_1d(f->buffers[0], 0, CLGPU_TYPE_UINT32, N, &f->input), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffers[1], 0, CLGPU_TYPE_UINT32, N, &f->output), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffers[2], 0, CLGPU_TYPE_UINT32, N, &f->third), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffers[3], 0, CLGPU_TYPE_UINT64, 1, &f->count), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffers[1], 0, CLGPU_TYPE_UINT32, 1, &f->output_one),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(f->buffers[0], 0, CLGPU_TYPE_UINT32, 1, (size_t[]){N / 2},
                                    (ptrdiff_t[]){2}, &f->strided_input),
                CLGPU_SUCCESS);
  uint64_t state64 = test_seed() | 1;
  for (size_t i = 0; i < N; i++) {
    state64 ^= state64 << 13;
    state64 ^= state64 >> 7;
    state64 ^= state64 << 17;
    f->host[i] = (cl_uint)(state64 % 100000);
  }
  rewrite_input(f);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  for (int b = 0; b < 4; b++) clReleaseMemObject(f->buffers[b]);
  clgpu_context_destroy(f->context);
  free(f);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_family_gives_its_kernels_back_clear),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
