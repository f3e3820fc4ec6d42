/* Guarded device buffers; see guard.h. */
#include "guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

unsigned char test_guard_canary(size_t position) {
  /* Never equal to the region fill, and not constant. */
  unsigned char value = (unsigned char)((position * 131u + 0x5Au) & 0xFFu);
  return value == TEST_GUARD_REGION_FILL ? 0x3Cu : value;
}

test_guarded test_guarded_create(clgpu_context *context, size_t region_bytes, const void *initial) {
  test_guarded guarded = {NULL, TEST_GUARD_BYTES, region_bytes};
  size_t total = region_bytes + 2 * TEST_GUARD_BYTES;
  unsigned char *image = malloc(total);
  assert_non_null(image);
  for (size_t i = 0; i < TEST_GUARD_BYTES; i++) {
    image[i] = test_guard_canary(i);
    image[total - TEST_GUARD_BYTES + i] = test_guard_canary(total - TEST_GUARD_BYTES + i);
  }
  if (initial) {
    memcpy(image + TEST_GUARD_BYTES, initial, region_bytes);
  } else {
    memset(image + TEST_GUARD_BYTES, TEST_GUARD_REGION_FILL, region_bytes);
  }
  cl_int err = CL_SUCCESS;
  guarded.buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, total, NULL, &err);
  if (err != CL_SUCCESS) {
    free(image);
    fail_msg("guarded buffer of %zu bytes: clCreateBuffer gave %s", total, clgpu_status_name(err));
  }
  err = clEnqueueWriteBuffer(clgpu_context_queue(context), guarded.buffer, CL_TRUE, 0, total, image,
                             0, NULL, NULL);
  free(image);
  assert_int_equal(err, CL_SUCCESS);
  return guarded;
}

int test_guarded_intact(clgpu_context *context, const test_guarded *guarded, char *report,
                        size_t report_size) {
  size_t total = guarded->region_bytes + 2 * TEST_GUARD_BYTES;
  unsigned char *image = malloc(total);
  assert_non_null(image);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), guarded->buffer, CL_TRUE, 0,
                                       total, image, 0, NULL, NULL),
                   CL_SUCCESS);
  size_t damaged = 0, first = 0;
  for (size_t i = 0; i < total; i++) {
    int in_guard = i < TEST_GUARD_BYTES || i >= TEST_GUARD_BYTES + guarded->region_bytes;
    if (in_guard && image[i] != test_guard_canary(i)) {
      if (damaged == 0) first = i;
      damaged++;
    }
  }
  if (damaged > 0 && report) {
    int before = first < TEST_GUARD_BYTES;
    size_t distance =
        before ? TEST_GUARD_BYTES - first : first - (TEST_GUARD_BYTES + guarded->region_bytes) + 1;
    snprintf(report, report_size,
             "guard damaged: %zu byte(s); first %zu byte(s) %s the region of %zu bytes holds "
             "0x%02x, canary 0x%02x",
             damaged, distance, before ? "before" : "after", guarded->region_bytes, image[first],
             test_guard_canary(first));
  }
  free(image);
  return damaged == 0;
}

void test_guarded_check(clgpu_context *context, const test_guarded *guarded, const char *what) {
  char report[256];
  if (!test_guarded_intact(context, guarded, report, sizeof report)) {
    fail_msg("%s: %s", what, report);
  }
}

void test_guarded_read(clgpu_context *context, const test_guarded *guarded, void *host) {
  if (guarded->region_bytes == 0) return;
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), guarded->buffer, CL_TRUE,
                                       guarded->offset, guarded->region_bytes, host, 0, NULL, NULL),
                   CL_SUCCESS);
}

void test_guarded_release(test_guarded *guarded) {
  if (guarded->buffer) clReleaseMemObject(guarded->buffer);
  guarded->buffer = NULL;
}
