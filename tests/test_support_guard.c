/* The guard-byte helper catches what it promises: writes just past and just
 * before the region, and a region nobody wrote keeps its fill pattern. The
 * planted writes land inside the allocation (in a guard), so they are safe
 * on every device. */
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "support.h"

static clgpu_program *fill_program(clgpu_context *context) {
  const clgpu_define defines[] = {{"CLGPU_T", "uint"}};
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", defines, 1, NULL, &program),
                CLGPU_SUCCESS);
  return program;
}

/* Fill `n` uints starting `first` uints from the start of the buffer. */
static void fill_uints(clgpu_context *context, clgpu_program *program, cl_mem buffer, size_t first,
                       size_t n, cl_uint value) {
  cl_kernel kernel = NULL;
  assert_status(clgpu_kernel_acquire(program, "clgpu_fill", &kernel), CLGPU_SUCCESS);
  cl_ulong offset = first, count = n;
  assert_int_equal(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 1, sizeof offset, &offset), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 2, sizeof count, &count), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 3, sizeof value, &value), CL_SUCCESS);
  size_t local = 16, global = (n + local - 1) / local * local;
  assert_int_equal(clEnqueueNDRangeKernel(clgpu_context_queue(context), kernel, 1, NULL, &global,
                                          &local, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_kernel_release(program, kernel);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
}

static void in_bounds_write_keeps_guards(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  clgpu_program *program = fill_program(context);
  const size_t n = 1000;
  test_guarded guarded = test_guarded_create(context, n * sizeof(cl_uint), NULL);
  fill_uints(context, program, guarded.buffer, guarded.offset / sizeof(cl_uint), n, 42u);
  test_guarded_check(context, &guarded, "fill of the whole region");
  cl_uint *host = malloc(n * sizeof *host);
  test_guarded_read(context, &guarded, host);
  for (size_t i = 0; i < n; i++) assert_int_equal(host[i], 42u);
  free(host);
  test_guarded_release(&guarded);
  clgpu_context_destroy(context);
}

typedef struct planted_row {
  const char *name;
  long first;       /* in uints, relative to the region's start */
  size_t count;     /* uints written */
  const char *side; /* "before" or "after" */
} planted_row;

static void out_of_bounds_writes_are_caught(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  clgpu_program *program = fill_program(context);
  const size_t n = 93;
  static const planted_row rows[] = {
      {"one element past the end", 93, 1, "after"},
      {"the region and one more", 0, 94, "after"},
      {"one element before the start", -1, 1, "before"},
      {"far past the end", 93 + 500, 1, "after"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    test_guarded guarded = test_guarded_create(context, n * sizeof(cl_uint), NULL);
    long first = (long)(guarded.offset / sizeof(cl_uint)) + rows[i].first;
    /* 0xCDCDCDCD would equal the region fill, not the canary: any value that
     * differs from the canary shows. */
    fill_uints(context, program, guarded.buffer, (size_t)first, rows[i].count, 0u);
    char report[256] = "";
    int intact = test_guarded_intact(context, &guarded, report, sizeof report);
    if (intact) fail_msg("planted write \"%s\" was not caught", rows[i].name);
    print_message("# planted write \"%s\": %s\n", rows[i].name, report);
    assert_non_null(strstr(report, rows[i].side));
    test_guarded_release(&guarded);
  }
  clgpu_context_destroy(context);
}

static void unwritten_region_keeps_its_fill(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  clgpu_program *program = fill_program(context);
  const size_t n = 64;
  test_guarded guarded = test_guarded_create(context, n * sizeof(cl_uint), NULL);
  /* An operation that "forgets" the second half. */
  fill_uints(context, program, guarded.buffer, guarded.offset / sizeof(cl_uint), n / 2, 7u);
  test_guarded_check(context, &guarded, "half fill");
  cl_uint host[64];
  test_guarded_read(context, &guarded, host);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(host[i], i < n / 2 ? 7u : 0xCDCDCDCDu);
  }
  /* Given contents replace the fill. */
  cl_uint initial[64];
  for (size_t i = 0; i < n; i++) initial[i] = (cl_uint)(i * 3u);
  test_guarded given = test_guarded_create(context, sizeof initial, initial);
  test_guarded_read(context, &given, host);
  assert_memory_equal(host, initial, sizeof initial);
  test_guarded_check(context, &given, "untouched");
  test_guarded_release(&given);
  test_guarded_release(&guarded);
  clgpu_context_destroy(context);
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(in_bounds_write_keeps_guards),
      cmocka_unit_test(out_of_bounds_writes_are_caught),
      cmocka_unit_test(unwritten_region_keeps_its_fill),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
