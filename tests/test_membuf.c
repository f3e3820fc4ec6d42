/* Buffers across memory spaces (membuf.h): shallow copies, the three kinds,
 * moves and the record of which side is current, the const-move contract,
 * touch, reallocation in each space, fixed capacity, assignment, move
 * reports word for word, move counts, events, refusals that change
 * nothing, and buffers used and freed after their context's destroy.
 *
 * Data is checked against host copies kept by the test. The device side is
 * modified by a kernel (an elementwise kernel over the buffer's device view,
 * x = x * 3 + 1) or read directly with clEnqueueReadBuffer, so that what the
 * buffer reports is compared with what the memory holds. Sizes shrink to a
 * few thousand elements under Oclgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "views.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ---- captured move reports ---- */

typedef struct captured {
  int calls;
  char lines[16][256];
  uint64_t bytes[16];
  clgpu_space to[16];
  const clgpu_membuf *buffer[16];
} captured;

static void capture(void *user, const clgpu_move_report *report) {
  captured *seen = user;
  if (seen->calls < 16) {
    snprintf(seen->lines[seen->calls], sizeof seen->lines[0], "%s", report->line);
    seen->bytes[seen->calls] = report->bytes;
    seen->to[seen->calls] = report->to;
    seen->buffer[seen->calls] = report->buffer;
  }
  seen->calls++;
}

typedef struct fixture {
  clgpu_context *context;
  clgpu_elementwise *triple; /* x = x * 3 + 1 over uint */
  captured seen;
  int oclgrind; /* sizes shrink on the simulator */
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->context = test_context(NULL);
  f->oclgrind = test_on_oclgrind(f->context);
  clgpu_elementwise_arg arg = {"x", CLGPU_ARG_INOUT, CLGPU_TYPE_UINT32};
  assert_status(clgpu_elementwise_create(f->context, "x = x * 3u + 1u;", 1, &arg, NULL, &f->triple),
                CLGPU_SUCCESS);
  /* Reports go to the test, not to stderr, unless a test says otherwise. */
  assert_status(clgpu_membuf_set_move_report(f->context, capture, &f->seen), CLGPU_SUCCESS);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  clgpu_elementwise_destroy(f->triple);
  clgpu_context_destroy(f->context);
  free(f);
  return 0;
}

static clgpu_membuf_info info_of(const clgpu_membuf *buffer) {
  clgpu_membuf_info info;
  memset(&info, 0, sizeof info);
  assert_status(clgpu_membuf_get_info(buffer, &info), CLGPU_SUCCESS);
  return info;
}

static void assert_same_info(clgpu_membuf_info a, clgpu_membuf_info b) {
  assert_int_equal(a.kind, b.kind);
  assert_int_equal(a.type, b.type);
  assert_int_equal(a.size, b.size);
  assert_int_equal(a.capacity, b.capacity);
  assert_int_equal(a.host_allocated, b.host_allocated);
  assert_int_equal(a.device_allocated, b.device_allocated);
  assert_int_equal(a.host_current, b.host_current);
  assert_int_equal(a.device_current, b.device_current);
  assert_int_equal(a.moves_to_host, b.moves_to_host);
  assert_int_equal(a.moves_to_device, b.moves_to_device);
  assert_int_equal(a.bytes_to_host, b.bytes_to_host);
  assert_int_equal(a.bytes_to_device, b.bytes_to_device);
  assert_string_equal(a.name, b.name);
  assert_string_equal(a.type_name, b.type_name);
}

/* Run x = x * 3 + 1 over the buffer's device side (moved there READ_WRITE
 * or as asked) and wait. */
static void triple_on_device(fixture *f, clgpu_membuf *buffer, clgpu_access access) {
  clgpu_array view;
  assert_status(clgpu_membuf_device_array(buffer, access, 0, NULL, NULL, &view), CLGPU_SUCCESS);
  clgpu_elementwise_value value = {&view, NULL};
  assert_status(clgpu_elementwise_run(f->triple, &value, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
}

/* The device side's first n elements, read directly. */
static uint32_t *read_device(fixture *f, const clgpu_membuf *buffer, size_t n) {
  uint32_t *data = malloc((n ? n : 1) * sizeof *data);
  assert_non_null(data);
  cl_mem memory = clgpu_membuf_device_memory(buffer);
  assert_non_null(memory);
  if (n > 0) {
    assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(f->context), memory, CL_TRUE, 0,
                                         n * sizeof *data, data, 0, NULL, NULL),
                     CL_SUCCESS);
  }
  return data;
}

static void write_device(fixture *f, const clgpu_membuf *buffer, const uint32_t *data, size_t n) {
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(f->context),
                                        clgpu_membuf_device_memory(buffer), CL_TRUE, 0,
                                        n * sizeof *data, data, 0, NULL, NULL),
                   CL_SUCCESS);
}

static void fill_pattern(uint32_t *data, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) data[i] = (uint32_t)(i * 2654435761u) ^ seed;
}

/* A host+device buffer of n uints on the host holding the pattern. */
static clgpu_membuf *patterned(fixture *f, size_t n, uint32_t seed, const char *name) {
  clgpu_membuf_options options = {.name = name};
  clgpu_membuf *buffer = NULL;
  assert_status(
      clgpu_membuf_create(f->context, CLGPU_TYPE_UINT32, n, CLGPU_SPACE_HOST, &options, &buffer),
      CLGPU_SUCCESS);
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_WRITE_ONLY, (void **)&host), CLGPU_SUCCESS);
  fill_pattern(host, n, seed);
  return buffer;
}

/* ---- shallow copies and the uninitialised handle ---- */

static void test_shallow_copy_shares(void **state) {
  fixture *f = *state;
  clgpu_membuf *a = patterned(f, 1000, 5, "shared");
  clgpu_membuf *b = a; /* a copy of the handle */
  assert_status(clgpu_membuf_move(b, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_ptr_equal(clgpu_membuf_host_pointer(a), clgpu_membuf_host_pointer(b));
  assert_ptr_equal(clgpu_membuf_device_memory(a), clgpu_membuf_device_memory(b));
  assert_non_null(clgpu_membuf_device_memory(a));
  /* What one copy does, the other sees: a move through b made the device
   * side the only current one for a too. */
  clgpu_membuf_info info = info_of(a);
  assert_true(info.device_current);
  assert_false(info.host_current);
  assert_int_equal(info.moves_to_device, 1);
  /* Freed once, through either copy (ASan checks that nothing leaks and
   * nothing is freed twice). */
  clgpu_membuf_destroy(b);
}

static void test_uninitialised_handle_refused(void **state) {
  (void)state;
  clgpu_membuf *none = NULL; /* the default buffer */
  void *data = NULL;
  clgpu_array view;
  clgpu_membuf_info info;
  assert_status(clgpu_membuf_move(none, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "uninitialised"));
  assert_status(clgpu_membuf_touch(none, CLGPU_SPACE_HOST), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_reallocate(none, 1, CLGPU_SPACE_HOST, 1), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_host(none, CLGPU_ACCESS_READ_ONLY, &data), CLGPU_INVALID_ARGUMENT);
  assert_null(data);
  assert_status(clgpu_membuf_device_array(none, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL, &view),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_get_info(none, &info), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_set_name(none, "x"), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_assign(none, none), CLGPU_INVALID_ARGUMENT);
  assert_null(clgpu_membuf_host_pointer(none));
  assert_null(clgpu_membuf_device_memory(none));
  clgpu_membuf_destroy(none); /* allowed, does nothing */
}

/* ---- the host kind ---- */

static void test_host_buffer_refuses_device(void **state) {
  fixture *f = *state;
  clgpu_membuf_options options = {.name = "host_only"};
  clgpu_membuf *buffer = NULL;
  assert_status(clgpu_membuf_create_host(CLGPU_TYPE_UINT32, 300, &options, &buffer), CLGPU_SUCCESS);
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_WRITE_ONLY, (void **)&host), CLGPU_SUCCESS);
  fill_pattern(host, 300, 9);
  uint32_t expected[300];
  memcpy(expected, host, sizeof expected);
  clgpu_membuf_info before = info_of(buffer);
  assert_int_equal(before.kind, CLGPU_MEMBUF_HOST);

  cl_event event = (cl_event)&event; /* must come back NULL */
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, &event),
      CLGPU_WRONG_SPACE);
  assert_null(event);
  assert_non_null(strstr(clgpu_last_error(), "host_only"));
  assert_non_null(strstr(clgpu_last_error(), "no device side"));
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_DEVICE), CLGPU_WRONG_SPACE);
  clgpu_array view;
  memset(&view, 0, sizeof view);
  assert_status(clgpu_membuf_device_array(buffer, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL, &view),
                CLGPU_WRONG_SPACE);
  assert_null(view.buffer);
  assert_status(clgpu_membuf_reallocate(buffer, 10, CLGPU_SPACE_DEVICE, 10), CLGPU_WRONG_SPACE);

  assert_same_info(before, info_of(buffer));
  assert_ptr_equal(clgpu_membuf_host_pointer(buffer), host);
  assert_memory_equal(host, expected, sizeof expected);

  /* The host side works as any host memory: reallocation keeps data. */
  assert_status(clgpu_membuf_reallocate(buffer, 300, CLGPU_SPACE_HOST, 5000), CLGPU_SUCCESS);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, sizeof expected);
  assert_int_equal(info_of(buffer).capacity, 5000);
  assert_int_equal(f->seen.calls, 0); /* nothing ever moved */
  clgpu_membuf_destroy(buffer);
}

/* ---- moves ---- */

static void test_kernel_change_seen_on_host(void **state) {
  fixture *f = *state;
  size_t n = f->oclgrind ? 1007 : 10007;
  clgpu_membuf *buffer = patterned(f, n, 17, "data");
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 17);
  for (size_t i = 0; i < n; i++) expected[i] = expected[i] * 3u + 1u;

  triple_on_device(f, buffer, CLGPU_ACCESS_READ_WRITE);
  clgpu_membuf_info info = info_of(buffer);
  assert_true(info.device_current);
  assert_false(info.host_current);

  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_ONLY, (void **)&host), CLGPU_SUCCESS);
  assert_memory_equal(host, expected, n * sizeof *expected);
  info = info_of(buffer);
  assert_true(info.device_current && info.host_current); /* a const move keeps both */
  assert_int_equal(info.moves_to_device, 1);
  assert_int_equal(info.moves_to_host, 1);
  assert_int_equal(info.bytes_to_host, n * sizeof(uint32_t));
  free(expected);
  clgpu_membuf_destroy(buffer);
}

static void test_const_move_is_not_tracked(void **state) {
  fixture *f = *state;
  size_t n = 4096;
  clgpu_membuf *buffer = patterned(f, n, 23, "constant");
  uint32_t *original = malloc(n * sizeof *original);
  assert_non_null(original);
  fill_pattern(original, n, 23);

  /* A const move, then a write on the device that breaks the contract. */
  triple_on_device(f, buffer, CLGPU_ACCESS_READ_ONLY);
  uint32_t *device = read_device(f, buffer, n);
  for (size_t i = 0; i < n; i++) assert_int_equal(device[i], original[i] * 3u + 1u);
  free(device);

  /* The write was not tracked: moving back copies nothing and the host keeps
   * its data. */
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_WRITE, (void **)&host), CLGPU_SUCCESS);
  assert_memory_equal(host, original, n * sizeof *original);
  clgpu_membuf_info info = info_of(buffer);
  assert_int_equal(info.moves_to_host, 0);
  assert_int_equal(info.moves_to_device, 1);
  assert_true(info.host_current);
  assert_false(info.device_current); /* the READ_WRITE move to the host */
  free(original);
  clgpu_membuf_destroy(buffer);
}

static void test_touch_forces_copy(void **state) {
  fixture *f = *state;
  size_t n = 777;
  clgpu_membuf *buffer = patterned(f, n, 31, "touched");
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  /* Written behind the buffer's back, then declared with touch. */
  uint32_t *written = malloc(n * sizeof *written);
  assert_non_null(written);
  fill_pattern(written, n, 1234);
  write_device(f, buffer, written, n);
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_DEVICE), CLGPU_SUCCESS);
  clgpu_membuf_info info = info_of(buffer);
  assert_true(info.device_current);
  assert_false(info.host_current);
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_WRITE, (void **)&host), CLGPU_SUCCESS);
  assert_memory_equal(host, written, n * sizeof *written);
  assert_int_equal(info_of(buffer).moves_to_host, 1);

  /* Touching the host marks it modified: the next move to the device
   * copies, and the device gets the host's new data. */
  host[0] = 0xdeadbeefu;
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_HOST), CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(info_of(buffer).moves_to_device, 2);
  uint32_t *device = read_device(f, buffer, n);
  assert_int_equal(device[0], 0xdeadbeefu);
  assert_memory_equal(device + 1, written + 1, (n - 1) * sizeof *written);
  free(device);

  /* A side that does not exist yet cannot be touched. */
  clgpu_membuf *fresh = patterned(f, 10, 1, "fresh");
  assert_status(clgpu_membuf_touch(fresh, CLGPU_SPACE_DEVICE), CLGPU_WRONG_SPACE);
  assert_non_null(strstr(clgpu_last_error(), "no device allocation yet"));
  assert_true(info_of(fresh).host_current);
  clgpu_membuf_destroy(fresh);
  free(written);
  clgpu_membuf_destroy(buffer);
}

static void test_moves_counted(void **state) {
  fixture *f = *state;
  size_t n = 2048;
  clgpu_membuf *buffer = patterned(f, n, 41, "counted");
  for (int round = 0; round < 3; round++) {
    assert_status(
        clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
        CLGPU_SUCCESS);
    assert_status(
        clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
        CLGPU_SUCCESS);
  }
  clgpu_membuf_info info = info_of(buffer);
  assert_int_equal(info.moves_to_device, 1); /* then the device was current */
  assert_int_equal(info.moves_to_host, 0);   /* the host never stopped being current */
  assert_int_equal(info.bytes_to_device, n * sizeof(uint32_t));
  assert_int_equal(f->seen.calls, 1);

  /* WRITE_ONLY copies nothing, and makes that side the only current one. */
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_WRITE_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  info = info_of(buffer);
  assert_int_equal(info.moves_to_device, 1);
  assert_false(info.host_current);
  /* READ_WRITE to the host copies once, and again only after the device
   * became current again. */
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(info_of(buffer).moves_to_host, 1);
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_SUCCESS);
  info = info_of(buffer);
  assert_int_equal(info.moves_to_device, 2);
  assert_int_equal(info.moves_to_host, 2);
  assert_int_equal(f->seen.calls, 4);
  clgpu_membuf_destroy(buffer);
}

/* ---- reallocation ---- */

static void test_reallocate_keeps_contents_in_its_space(void **state) {
  fixture *f = *state;
  size_t n = 3000;
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 55);

  /* Host, growing, from host data: the first n stay. */
  clgpu_membuf *buffer = patterned(f, n, 55, "grown");
  assert_status(clgpu_membuf_reallocate(buffer, n + 500, CLGPU_SPACE_HOST, 10000), CLGPU_SUCCESS);
  clgpu_membuf_info info = info_of(buffer);
  assert_int_equal(info.size, n + 500);
  assert_int_equal(info.capacity, 10000);
  assert_true(info.host_current);
  assert_false(info.device_allocated);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, n * sizeof *expected);

  /* Device, shrinking, from host data: the device holds the first 1000 and
   * the host side is gone. */
  f->seen.calls = 0;
  assert_status(clgpu_membuf_reallocate(buffer, 1000, CLGPU_SPACE_DEVICE, 1200), CLGPU_SUCCESS);
  info = info_of(buffer);
  assert_int_equal(info.size, 1000);
  assert_int_equal(info.capacity, 1200);
  assert_true(info.device_current);
  assert_false(info.host_current);
  assert_false(info.host_allocated);
  assert_int_equal(f->seen.calls, 1); /* the data moved, so it was reported */
  assert_int_equal(f->seen.bytes[0], 1000 * sizeof(uint32_t));
  uint32_t *device = read_device(f, buffer, 1000);
  assert_memory_equal(device, expected, 1000 * sizeof *expected);
  free(device);

  /* Device to device, growing: a copy on the device, no move. */
  triple_on_device(f, buffer, CLGPU_ACCESS_READ_WRITE);
  for (size_t i = 0; i < 1000; i++) expected[i] = expected[i] * 3u + 1u;
  assert_status(clgpu_membuf_reallocate(buffer, 1000, CLGPU_SPACE_DEVICE, 4000), CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 1);
  device = read_device(f, buffer, 1000);
  assert_memory_equal(device, expected, 1000 * sizeof *expected);
  free(device);

  /* Host, shrinking, from device data: read back, device side gone. */
  assert_status(clgpu_membuf_reallocate(buffer, 600, CLGPU_SPACE_HOST, 600), CLGPU_SUCCESS);
  info = info_of(buffer);
  assert_int_equal(info.size, 600);
  assert_true(info.host_current);
  assert_false(info.device_allocated);
  assert_int_equal(info.moves_to_host, 1);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, 600 * sizeof *expected);

  /* Refusals change nothing. */
  assert_status(clgpu_membuf_reallocate(buffer, 700, CLGPU_SPACE_HOST, 600),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_reallocate(buffer, 0, CLGPU_SPACE_HOST, 0), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_reallocate(buffer, 1, (clgpu_space)7, 1), CLGPU_INVALID_ARGUMENT);
  info = info_of(buffer);
  assert_int_equal(info.size, 600);
  assert_int_equal(info.capacity, 600);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, 600 * sizeof *expected);
  free(expected);
  clgpu_membuf_destroy(buffer);
}

/* ---- fixed capacity ---- */

static void test_fixed_capacity(void **state) {
  fixture *f = *state;
  uint32_t storage[64];
  fill_pattern(storage, 64, 77);
  uint32_t expected[64];
  memcpy(expected, storage, sizeof storage);
  clgpu_membuf_options options = {.name = "stack"};
  clgpu_membuf *fixed = NULL;
  assert_status(
      clgpu_membuf_create_fixed(f->context, CLGPU_TYPE_UINT32, storage, 64, 40, &options, &fixed),
      CLGPU_SUCCESS);
  assert_ptr_equal(clgpu_membuf_host_pointer(fixed), storage);
  clgpu_membuf_info info = info_of(fixed);
  assert_int_equal(info.kind, CLGPU_MEMBUF_FIXED);
  assert_int_equal(info.size, 40);
  assert_int_equal(info.capacity, 64);

  /* Growth is refused, the contents and the record stay. */
  assert_status(clgpu_membuf_reallocate(fixed, 40, CLGPU_SPACE_HOST, 65),
                CLGPU_CAPACITY_EXCEEDED);
  assert_non_null(strstr(clgpu_last_error(), "'stack'"));
  assert_non_null(strstr(clgpu_last_error(), "fixed capacity of 64"));
  assert_memory_equal(storage, expected, sizeof storage);
  assert_same_info(info, info_of(fixed));
  /* Within the capacity only the size changes. */
  assert_status(clgpu_membuf_reallocate(fixed, 64, CLGPU_SPACE_HOST, 64), CLGPU_SUCCESS);
  assert_int_equal(info_of(fixed).size, 64);
  assert_memory_equal(storage, expected, sizeof storage);

  /* Emptied on the device before it has a device side: the side is made,
   * so the record never calls a missing side current (found by the fuzzer). */
  clgpu_membuf *empty = NULL;
  uint32_t small[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  assert_status(clgpu_membuf_create_fixed(f->context, CLGPU_TYPE_UINT32, small, 8, 4, NULL, &empty),
                CLGPU_SUCCESS);
  assert_status(clgpu_membuf_reallocate(empty, 0, CLGPU_SPACE_DEVICE, 8), CLGPU_SUCCESS);
  info = info_of(empty);
  assert_true(info.device_current);
  assert_true(info.device_allocated);
  assert_false(info.host_current);
  assert_status(clgpu_membuf_reallocate(empty, 3, CLGPU_SPACE_DEVICE, 8), CLGPU_SUCCESS);
  uint32_t *back = NULL;
  assert_status(clgpu_membuf_host(empty, CLGPU_ACCESS_READ_WRITE, (void **)&back), CLGPU_SUCCESS);
  assert_ptr_equal(back, small);
  clgpu_membuf_destroy(empty);

  /* It moves like a host+device buffer: the kernel's result lands in the
   * caller's storage. */
  triple_on_device(f, fixed, CLGPU_ACCESS_READ_WRITE);
  assert_memory_equal(storage, expected, sizeof storage); /* not moved back yet */
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(fixed, CLGPU_ACCESS_READ_WRITE, (void **)&host), CLGPU_SUCCESS);
  assert_ptr_equal(host, storage);
  for (size_t i = 0; i < 64; i++) assert_int_equal(storage[i], expected[i] * 3u + 1u);

  /* Copying a fixed buffer copies its contents into other storage. */
  uint32_t other_storage[64];
  memset(other_storage, 0, sizeof other_storage);
  clgpu_membuf *copy = NULL;
  assert_status(
      clgpu_membuf_create_fixed(NULL, CLGPU_TYPE_UINT32, other_storage, 64, 0, NULL, &copy),
      CLGPU_SUCCESS);
  assert_status(clgpu_membuf_assign(copy, fixed), CLGPU_SUCCESS);
  assert_int_equal(info_of(copy).size, 64);
  assert_memory_equal(other_storage, storage, sizeof storage);
  storage[0] ^= 1u; /* independent storage */
  assert_int_not_equal(other_storage[0], storage[0]);

  /* A source larger than the fixed capacity is refused, nothing copied. */
  clgpu_membuf *large = patterned(f, 100, 3, "large");
  uint32_t before[64];
  memcpy(before, other_storage, sizeof before);
  assert_status(clgpu_membuf_assign(copy, large), CLGPU_CAPACITY_EXCEEDED);
  assert_memory_equal(other_storage, before, sizeof before);
  assert_int_equal(info_of(copy).size, 64);
  /* A host-only fixed buffer has no device side. */
  assert_status(clgpu_membuf_move(copy, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
                CLGPU_WRONG_SPACE);

  /* Bad storage is refused. */
  clgpu_membuf *bad = NULL;
  assert_status(clgpu_membuf_create_fixed(NULL, CLGPU_TYPE_UINT32, storage, 64, 65, NULL, &bad),
                CLGPU_INVALID_ARGUMENT);
  assert_status(
      clgpu_membuf_create_fixed(NULL, CLGPU_TYPE_UINT32, (char *)storage + 1, 8, 1, NULL, &bad),
      CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "aligned"));
  assert_status(clgpu_membuf_create_fixed(NULL, CLGPU_TYPE_UINT32, NULL, 8, 1, NULL, &bad),
                CLGPU_INVALID_ARGUMENT);
  assert_null(bad);
  clgpu_membuf_destroy(large);
  clgpu_membuf_destroy(copy);
  clgpu_membuf_destroy(fixed);
}

static void test_assign_copies_contents(void **state) {
  fixture *f = *state;
  size_t n = 5000;
  clgpu_membuf *source = patterned(f, n, 91, "source");
  triple_on_device(f, source, CLGPU_ACCESS_READ_WRITE); /* the source's data is on the device */
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 91);
  for (size_t i = 0; i < n; i++) expected[i] = expected[i] * 3u + 1u;

  clgpu_membuf *destination = patterned(f, 10, 2, "destination");
  assert_status(
      clgpu_membuf_move(destination, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_status(clgpu_membuf_assign(destination, source), CLGPU_SUCCESS);
  clgpu_membuf_info info = info_of(destination);
  assert_int_equal(info.size, n);
  assert_true(info.host_current);
  assert_false(info.device_current);
  assert_memory_equal(clgpu_membuf_host_pointer(destination), expected, n * sizeof *expected);
  assert_ptr_not_equal(clgpu_membuf_host_pointer(destination), clgpu_membuf_host_pointer(source));
  /* The source's record is unchanged; the copy from its device counts. */
  info = info_of(source);
  assert_true(info.device_current);
  assert_false(info.host_current);
  assert_int_equal(info.moves_to_host, 1);

  clgpu_membuf *floats = NULL;
  assert_status(clgpu_membuf_create_host(CLGPU_TYPE_FLOAT, 4, NULL, &floats), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_assign(floats, source), CLGPU_TYPE_MISMATCH);
  assert_status(clgpu_membuf_assign(source, source), CLGPU_INVALID_ARGUMENT);
  clgpu_membuf_destroy(floats);
  free(expected);
  clgpu_membuf_destroy(destination);
  clgpu_membuf_destroy(source);
}

/* ---- move reports ---- */

static void test_move_report_lines(void **state) {
  fixture *f = *state;
  clgpu_membuf *buffer = patterned(f, 1024, 4, "my_buffer"); /* 4096 bytes of int */
  clgpu_membuf_set_type_name(buffer, "int");
  f->seen.calls = 0;
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 1);
  assert_string_equal(f->seen.lines[0], "Moved    4.0 KB to the DEVICE: int my_buffer");
  assert_int_equal(f->seen.bytes[0], 4096);
  assert_int_equal(f->seen.to[0], CLGPU_SPACE_DEVICE);
  assert_ptr_equal(f->seen.buffer[0], buffer);

  /* Renamed, and the element type's own name restored. */
  assert_status(clgpu_membuf_set_name(buffer, "renamed"), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_set_type_name(buffer, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 2);
  assert_string_equal(f->seen.lines[1], "Moved    4.0 KB to the HOST: uint renamed");

  /* An overridden type name, a size in MB, and an unnamed buffer. */
  clgpu_membuf_options options = {.type_name = "struct particle"};
  clgpu_membuf *particles = NULL;
  assert_status(clgpu_membuf_create(f->context, CLGPU_TYPE_FLOAT, 393216, CLGPU_SPACE_HOST,
                                    &options, &particles),
                CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_move(particles, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 3);
  assert_string_equal(f->seen.lines[2], "Moved    1.5 MB to the DEVICE: struct particle");
  assert_status(clgpu_membuf_set_name(particles, "swarm"), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_touch(particles, CLGPU_SPACE_DEVICE), CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_move(particles, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_string_equal(f->seen.lines[3], "Moved    1.5 MB to the HOST: struct particle swarm");

  /* Switched off: no calls; back on: calls again. */
  assert_status(clgpu_membuf_set_move_report(f->context, NULL, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_HOST), CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 4);
  assert_int_equal(info_of(buffer).moves_to_device, 2); /* the move happened, unreported */
  assert_status(clgpu_membuf_set_move_report(f->context, capture, &f->seen), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_HOST), CLGPU_SUCCESS);
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(f->seen.calls, 5);
  assert_status(clgpu_membuf_set_move_report(NULL, NULL, NULL), CLGPU_INVALID_ARGUMENT);
  clgpu_membuf_destroy(particles);
  clgpu_membuf_destroy(buffer);
}

static void test_move_report_format(void **state) {
  (void)state;
  char line[128];
  struct {
    uint64_t bytes;
    clgpu_space to;
    const char *type, *name, *expected;
  } rows[] = {
      {0, CLGPU_SPACE_DEVICE, "int", "x", "Moved    0.0 B to the DEVICE: int x"},
      {100, CLGPU_SPACE_HOST, "char", "", "Moved  100.0 B to the HOST: char"},
      {1023, CLGPU_SPACE_HOST, "char", NULL, "Moved 1023.0 B to the HOST: char"},
      {1024, CLGPU_SPACE_DEVICE, "int", "a", "Moved    1.0 KB to the DEVICE: int a"},
      {1536, CLGPU_SPACE_DEVICE, "int", "a", "Moved    1.5 KB to the DEVICE: int a"},
      {10485760, CLGPU_SPACE_HOST, "float", "v", "Moved   10.0 MB to the HOST: float v"},
      {3221225472ull, CLGPU_SPACE_DEVICE, "double", "big", "Moved    3.0 GB to the DEVICE: double big"},
      {5497558138880ull, CLGPU_SPACE_DEVICE, "u8", "huge", "Moved 5120.0 GB to the DEVICE: u8 huge"},
  };
  for (size_t r = 0; r < COUNT(rows); r++) {
    size_t length = clgpu_move_report_format(rows[r].bytes, rows[r].to, rows[r].type, rows[r].name,
                                             line, sizeof line);
    assert_string_equal(line, rows[r].expected);
    assert_int_equal(length, strlen(rows[r].expected));
  }
  /* Cut to the size given, and the length still the whole one. */
  size_t length = clgpu_move_report_format(4096, CLGPU_SPACE_DEVICE, "int", "my_buffer", line, 10);
  assert_string_equal(line, "Moved    ");
  assert_int_equal(length, strlen("Moved    4.0 KB to the DEVICE: int my_buffer"));
}

/* The default callback prints the line to stderr. */
static void test_default_report_prints_to_stderr(void **state) {
  fixture *f = *state;
  clgpu_context *context = test_context(NULL); /* the default callback */
  char *folder = test_make_folder("membuf_stderr");
  char path[4096];
  snprintf(path, sizeof path, "%s/stderr.txt", folder);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  assert_true(dup2(fileno(file), 2) >= 0);
  clgpu_membuf_options options = {.name = "my_buffer"};
  clgpu_membuf *buffer = NULL;
  clgpu_status created =
      clgpu_membuf_create(context, CLGPU_TYPE_INT32, 1024, CLGPU_SPACE_HOST, &options, &buffer);
  clgpu_status moved =
      created == CLGPU_SUCCESS
          ? clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL)
          : created;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(file);
  assert_status(moved, CLGPU_SUCCESS);
  FILE *in = fopen(path, "r");
  assert_non_null(in);
  char text[256] = {0};
  size_t got = fread(text, 1, sizeof text - 1, in);
  fclose(in);
  text[got] = '\0';
  assert_string_equal(text, "Moved    4.0 KB to the DEVICE: int my_buffer\n");
  assert_int_equal(f->seen.calls, 0); /* the other context's callback is its own */
  clgpu_membuf_destroy(buffer);
  clgpu_context_destroy(context);
  remove(path);
  test_remove_folder(folder);
}

/* ---- events and views ---- */

static void test_moves_follow_events(void **state) {
  fixture *f = *state;
  size_t n = f->oclgrind ? 5000 : 50000;
  clgpu_membuf *buffer = patterned(f, n, 61, "gated");
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 61);

  /* A move to the device behind a user event returns at once and copies
   * only once the gate opens. */
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(f->context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event moved = NULL;
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 1, &gate, &moved),
      CLGPU_SUCCESS);
  assert_non_null(moved);
  assert_true(test_event_status(moved) > CL_COMPLETE);
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &moved), CL_SUCCESS);
  clReleaseEvent(moved);
  clReleaseEvent(gate);

  /* The kernel, then a move to the host with its event: the data is there
   * when the event completes. */
  triple_on_device(f, buffer, CLGPU_ACCESS_READ_WRITE);
  for (size_t i = 0; i < n; i++) expected[i] = expected[i] * 3u + 1u;
  cl_event back = NULL;
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, &back),
                CLGPU_SUCCESS);
  assert_non_null(back);
  assert_int_equal(clWaitForEvents(1, &back), CL_SUCCESS);
  clReleaseEvent(back);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, n * sizeof *expected);

  /* Nothing to copy: an event is still given (a marker), complete soon. */
  cl_event marker = NULL;
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, &marker),
      CLGPU_SUCCESS);
  assert_non_null(marker);
  assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
  clReleaseEvent(marker);
  assert_int_equal(info_of(buffer).moves_to_host, 1);

  /* A pending asynchronous read is waited for by free (ASan and the data
   * check above cover the rest): free right after a non-blocking move. */
  assert_status(clgpu_membuf_touch(buffer, CLGPU_SPACE_DEVICE), CLGPU_SUCCESS);
  cl_event pending = NULL;
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, &pending),
      CLGPU_SUCCESS);
  clgpu_membuf_destroy(buffer);
  assert_int_equal(test_event_status(pending), CL_COMPLETE);
  clReleaseEvent(pending);
  free(expected);
}

/* On an out-of-order queue the buffer orders its own commands (each waits
 * for its previous one) and the caller orders a kernel with the events. */
static void test_moves_on_an_out_of_order_queue(void **state) {
  fixture *f = *state;
  cl_device_id device = clgpu_context_device(f->context);
  cl_command_queue queue = test_out_of_order_queue(f->context);
  if (!queue) skip();
  clgpu_context *context = NULL;
  assert_status(clgpu_context_wrap(clgpu_context_cl_context(f->context), device, queue, NULL,
                                   &context),
                CLGPU_SUCCESS);
  assert_status(clgpu_membuf_set_move_report(context, NULL, NULL), CLGPU_SUCCESS);
  clgpu_elementwise_arg arg = {"x", CLGPU_ARG_INOUT, CLGPU_TYPE_UINT32};
  clgpu_elementwise *triple = NULL;
  assert_status(clgpu_elementwise_create(context, "x = x * 3u + 1u;", 1, &arg, NULL, &triple),
                CLGPU_SUCCESS);
  size_t n = f->oclgrind ? 3000 : 300000;
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 99);
  clgpu_membuf *buffer = NULL;
  assert_status(clgpu_membuf_create(context, CLGPU_TYPE_UINT32, n, CLGPU_SPACE_HOST, NULL, &buffer),
                CLGPU_SUCCESS);
  memcpy(clgpu_membuf_host_pointer(buffer), expected, n * sizeof *expected);
  /* Write, grow on the device (a copy), then the kernel after the view's
   * event, then the read after the kernel's. */
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_status(clgpu_membuf_reallocate(buffer, n, CLGPU_SPACE_DEVICE, 2 * n), CLGPU_SUCCESS);
  clgpu_array view;
  cl_event ready = NULL, ran = NULL;
  assert_status(clgpu_membuf_device_array(buffer, CLGPU_ACCESS_READ_WRITE, 0, NULL, &ready, &view),
                CLGPU_SUCCESS);
  clgpu_elementwise_value value = {&view, NULL};
  assert_status(clgpu_elementwise_run(triple, &value, 1, &ready, &ran), CLGPU_SUCCESS);
  /* The move only enqueues (no event asked for); clgpu_membuf_host waits
   * for it. */
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 1, &ran, NULL),
                CLGPU_SUCCESS);
  void *data = NULL;
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_ONLY, &data), CLGPU_SUCCESS);
  assert_ptr_equal(data, clgpu_membuf_host_pointer(buffer));
  for (size_t i = 0; i < n; i++) expected[i] = expected[i] * 3u + 1u;
  assert_memory_equal(data, expected, n * sizeof *expected);
  clReleaseEvent(ready);
  clReleaseEvent(ran);
  clgpu_membuf_destroy(buffer);
  clgpu_elementwise_destroy(triple);
  clgpu_context_destroy(context);
  clReleaseCommandQueue(queue);
  free(expected);
}

static int compare_uint(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void test_device_view_for_operations(void **state) {
  fixture *f = *state;
  size_t n = f->oclgrind ? 3001 : 100003;
  clgpu_membuf *keys = patterned(f, n, 71, "keys");
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(expected);
  fill_pattern(expected, n, 71);
  qsort(expected, n, sizeof *expected, compare_uint);

  clgpu_array view;
  assert_status(clgpu_membuf_device_array(keys, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL, &view),
                CLGPU_SUCCESS);
  assert_ptr_equal(view.buffer, clgpu_membuf_device_memory(keys));
  assert_int_equal(view.rank, 1);
  assert_int_equal(view.shape[0], n);
  assert_int_equal(view.type, CLGPU_TYPE_UINT32);
  assert_status(clgpu_sort(f->context, NULL, &view, NULL, NULL, 0, NULL, NULL), CLGPU_SUCCESS);
  uint32_t *host = NULL;
  assert_status(clgpu_membuf_host(keys, CLGPU_ACCESS_READ_ONLY, (void **)&host), CLGPU_SUCCESS);
  assert_memory_equal(host, expected, n * sizeof *expected);

  /* A buffer of size 0 gives an empty view. */
  assert_status(clgpu_membuf_reallocate(keys, 0, CLGPU_SPACE_DEVICE, 16), CLGPU_SUCCESS);
  assert_status(clgpu_membuf_device_array(keys, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL, &view),
                CLGPU_SUCCESS);
  assert_int_equal(view.shape[0], 0);
  free(expected);
  clgpu_membuf_destroy(keys);
}

/* ---- refusals ---- */

static void test_bad_arguments_change_nothing(void **state) {
  fixture *f = *state;
  clgpu_membuf *buffer = patterned(f, 64, 81, "checked");
  clgpu_membuf_info before = info_of(buffer);
  cl_event event = NULL;
  assert_status(clgpu_membuf_move(buffer, (clgpu_space)0, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "space 0"));
  assert_status(clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, (clgpu_access)9, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "access 9"));
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 2, NULL, &event),
      CLGPU_INVALID_ARGUMENT);
  assert_null(event);
  assert_status(
      clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, &event, NULL),
      CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_touch(buffer, (clgpu_space)3), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_ONLY, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_device_array(buffer, CLGPU_ACCESS_READ_ONLY, 0, NULL, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_same_info(before, info_of(buffer));
  assert_false(info_of(buffer).device_allocated);

  clgpu_membuf *made = (clgpu_membuf *)&made;
  assert_status(clgpu_membuf_create(NULL, CLGPU_TYPE_UINT32, 4, CLGPU_SPACE_HOST, NULL, &made),
                CLGPU_INVALID_ARGUMENT);
  assert_null(made);
  assert_status(clgpu_membuf_create(f->context, (clgpu_type)0, 4, CLGPU_SPACE_HOST, NULL, &made),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_create(f->context, CLGPU_TYPE_UINT32, 4, (clgpu_space)5, NULL, &made),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_membuf_create(f->context, CLGPU_TYPE_UINT64, SIZE_MAX / 4, CLGPU_SPACE_HOST,
                                    NULL, &made),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "overflow"));
  const clgpu_device_info *device = clgpu_context_device_info(f->context);
  size_t too_many = (size_t)(device->max_mem_alloc_size / 4) + 1;
  assert_status(
      clgpu_membuf_create(f->context, CLGPU_TYPE_UINT32, too_many, CLGPU_SPACE_DEVICE, NULL, &made),
      CLGPU_CL_INVALID_BUFFER_SIZE);
  assert_null(made);
  assert_status(clgpu_membuf_create_host(CLGPU_TYPE_UINT32, 4, NULL, NULL), CLGPU_INVALID_ARGUMENT);
  /* A refused device reallocation keeps the host data and record. */
  assert_status(clgpu_membuf_reallocate(buffer, 64, CLGPU_SPACE_DEVICE, too_many),
                CLGPU_CL_INVALID_BUFFER_SIZE);
  assert_same_info(before, info_of(buffer));
  uint32_t expected[64];
  fill_pattern(expected, 64, 81);
  assert_memory_equal(clgpu_membuf_host_pointer(buffer), expected, sizeof expected);
  clgpu_membuf_destroy(buffer);
}

/* ---- lifetimes ---- */

/* A host+device buffer, a fixed one and the elementwise kernel that runs on
 * them, all made on a context that is destroyed before any of them is used:
 * each holds a reference of its own, so moves, runs and move reports still
 * work (results checked against the host), and the context is freed by the
 * last of them to go (LeakSanitizer sees it otherwise; AddressSanitizer sees
 * a context freed too early). */
static void test_used_and_freed_after_context_destroy(void **state) {
  (void)state;
  fixture own = {0};
  own.context = test_context(NULL);
  size_t n = test_on_oclgrind(own.context) ? 1007 : 10007;
  clgpu_elementwise_arg arg = {"x", CLGPU_ARG_INOUT, CLGPU_TYPE_UINT32};
  assert_status(
      clgpu_elementwise_create(own.context, "x = x * 3u + 1u;", 1, &arg, NULL, &own.triple),
      CLGPU_SUCCESS);
  assert_status(clgpu_membuf_set_move_report(own.context, capture, &own.seen), CLGPU_SUCCESS);
  cl_command_queue queue = clgpu_context_queue(own.context);
  clRetainCommandQueue(queue);
  clgpu_membuf *buffer = patterned(&own, n, 41, "outlives");
  uint32_t *storage = malloc(n * sizeof *storage);
  uint32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(storage);
  assert_non_null(expected);
  fill_pattern(storage, n, 43);
  clgpu_membuf *fixed = NULL;
  assert_status(
      clgpu_membuf_create_fixed(own.context, CLGPU_TYPE_UINT32, storage, n, n, NULL, &fixed),
      CLGPU_SUCCESS);

  clgpu_context_destroy(own.context);

  clgpu_membuf *both[2] = {buffer, fixed};
  const uint32_t seeds[2] = {41, 43};
  for (int b = 0; b < 2; b++) {
    clgpu_array view;
    assert_status(clgpu_membuf_device_array(both[b], CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL, &view),
                  CLGPU_SUCCESS);
    clgpu_elementwise_value value = {&view, NULL};
    assert_status(clgpu_elementwise_run(own.triple, &value, 0, NULL, NULL), CLGPU_SUCCESS);
    assert_int_equal(clFinish(queue), CL_SUCCESS);
    uint32_t *host = NULL;
    assert_status(clgpu_membuf_host(both[b], CLGPU_ACCESS_READ_ONLY, (void **)&host),
                  CLGPU_SUCCESS);
    fill_pattern(expected, n, seeds[b]);
    for (size_t i = 0; i < n; i++) expected[i] = expected[i] * 3u + 1u;
    assert_memory_equal(host, expected, n * sizeof *expected);
  }
  /* The context's move report still hears of every move: two per buffer. */
  assert_int_equal(own.seen.calls, 4);
  assert_int_equal(own.seen.to[0], CLGPU_SPACE_DEVICE);
  assert_int_equal(own.seen.to[3], CLGPU_SPACE_HOST);

  clgpu_membuf_destroy(buffer);
  clgpu_elementwise_destroy(own.triple);
  /* The fixed buffer holds the last reference: freeing it frees the
   * context, whose queue this test still holds. */
  clgpu_membuf_destroy(fixed);
  clReleaseCommandQueue(queue);
  free(storage);
  free(expected);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shallow_copy_shares, setup, teardown),
      cmocka_unit_test_setup_teardown(test_uninitialised_handle_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_buffer_refuses_device, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_change_seen_on_host, setup, teardown),
      cmocka_unit_test_setup_teardown(test_const_move_is_not_tracked, setup, teardown),
      cmocka_unit_test_setup_teardown(test_touch_forces_copy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_moves_counted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reallocate_keeps_contents_in_its_space, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fixed_capacity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assign_copies_contents, setup, teardown),
      cmocka_unit_test_setup_teardown(test_move_report_lines, setup, teardown),
      cmocka_unit_test(test_move_report_format),
      cmocka_unit_test_setup_teardown(test_default_report_prints_to_stderr, setup, teardown),
      cmocka_unit_test_setup_teardown(test_moves_follow_events, setup, teardown),
      cmocka_unit_test_setup_teardown(test_moves_on_an_out_of_order_queue, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_view_for_operations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_arguments_change_nothing, setup, teardown),
      cmocka_unit_test(test_used_and_freed_after_context_destroy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
