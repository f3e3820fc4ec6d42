/* Shared helpers of the test suite; see support.h. */
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* CLGPU_TEST_FILTER=PATTERN runs only the cases whose names match (cmocka's
 * wildcards * and ?), to replay one failing case without its whole program. */
__attribute__((constructor)) static void test_filter_from_environment(void) {
  const char *pattern = getenv("CLGPU_TEST_FILTER");
  if (pattern && *pattern) cmocka_set_test_filter(pattern);
}

void test_print_device(const clgpu_context *context) {
  const clgpu_device_info *info = clgpu_context_device_info(context);
  printf("# device: %s / %s (driver %s)\n", info->platform_name, info->name, info->driver_version);
  fflush(stdout);
}

clgpu_context *test_context(const clgpu_context_options *options) {
  static int printed;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(options, &context);
  if (status != CLGPU_SUCCESS) {
    fail_msg("clgpu_context_create: %s (%d): %s", clgpu_status_name(status), (int)status,
             clgpu_last_error());
  }
  if (!printed) {
    test_print_device(context);
    printed = 1;
  }
  return context;
}

clgpu_context *test_context_without_disk_cache(void) {
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  return test_context(&options);
}

clgpu_context *test_context_tuned(const char *tuning) {
  assert_int_equal(setenv("CLGPU_TUNING", tuning, 1), 0);
  clgpu_context *context = test_context_without_disk_cache();
  unsetenv("CLGPU_TUNING");
  return context;
}

uint64_t test_seed(void) {
  static uint64_t seed;
  static int chosen;
  if (!chosen) {
    const char *text = getenv("CLGPU_TEST_SEED");
    seed = text ? strtoull(text, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    printf("# seed: %llu (set CLGPU_TEST_SEED to replay)\n", (unsigned long long)seed);
    chosen = 1;
  }
  return seed;
}

char *test_make_folder(const char *label) {
  const char *base = getenv("CLGPU_TEST_TMPDIR");
  if (!base || !*base) base = "/tmp";
  size_t size = strlen(base) + strlen(label) + 32;
  char *folder = malloc(size);
  assert_non_null(folder);
  snprintf(folder, size, "%s/%s-XXXXXX", base, label);
  /* The base may be several levels below an existing folder (a fresh build
   * tree): make each level. */
  char *level = strdup(base);
  assert_non_null(level);
  for (char *p = level + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(level, 0755);
    *p = '/';
  }
  mkdir(level, 0755);
  free(level);
  if (!mkdtemp(folder)) fail_msg("mkdtemp(%s) failed", folder);
  return folder;
}

void test_remove_folder(char *folder) {
  if (!folder) return;
  DIR *directory = opendir(folder);
  if (directory) {
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      size_t size = strlen(folder) + strlen(entry->d_name) + 2;
      char *path = malloc(size);
      snprintf(path, size, "%s/%s", folder, entry->d_name);
      unlink(path);
      free(path);
    }
    closedir(directory);
  }
  rmdir(folder);
  free(folder);
}

void test_check_iota(clgpu_context *context, clgpu_program *program, size_t n) {
  cl_kernel kernel = NULL;
  assert_status(clgpu_kernel_acquire(program, "clgpu_iota", &kernel), CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  size_t bytes = (n ? n : 1) * sizeof(cl_uint);
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_ulong offset = 0, count = n;
  cl_uint start = 7, step = 3;
  assert_int_equal(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 1, sizeof offset, &offset), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 2, sizeof count, &count), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 3, sizeof start, &start), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 4, sizeof step, &step), CL_SUCCESS);
  size_t local = 64, global = (n + local - 1) / local * local;
  if (global == 0) global = local;
  cl_command_queue queue = clgpu_context_queue(context);
  assert_int_equal(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_kernel_release(program, kernel);
  cl_uint *host = malloc(bytes);
  assert_non_null(host);
  assert_int_equal(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
                   CL_SUCCESS);
  clReleaseMemObject(buffer);
  for (size_t i = 0; i < n; i++) {
    cl_uint expected = start + (cl_uint)i * step;
    if (host[i] != expected) {
      cl_uint got = host[i];
      free(host);
      fail_msg("iota, n=%zu, type uint: element %zu is %u, expected %u", n, i, got, expected);
    }
  }
  free(host);
}

void test_assert_status(cl_int actual, cl_int expected, const char *expression, const char *file,
                        int line) {
  if (actual == expected) return;
  fail_msg("%s:%d: %s gave %s (%d), expected %s (%d)\n  detail: %s", file, line, expression,
           clgpu_status_name(actual), (int)actual, clgpu_status_name(expected), (int)expected,
           clgpu_last_error());
}

cl_int test_event_status(cl_event event) {
  cl_int status = CL_QUEUED;
  assert_int_equal(
      clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
      CL_SUCCESS);
  return status;
}

cl_command_queue test_out_of_order_queue(const clgpu_context *context) {
  cl_device_id device = clgpu_context_device(context);
  cl_command_queue_properties supported = 0;
  assert_int_equal(
      clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL),
      CL_SUCCESS);
  if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return NULL;
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(clgpu_context_cl_context(context), device,
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  assert_int_equal(err, CL_SUCCESS);
  return queue;
}

cl_uint test_settled_references(cl_uint (*references)(void *), void *object, cl_uint expected) {
  cl_uint count = references(object);
  for (int waited_ms = 0; count != expected && waited_ms < 2000; waited_ms++) {
    nanosleep(&(struct timespec){0, 1000000}, NULL);
    count = references(object);
  }
  return count;
}

void *test_open_gate_later(void *argument) {
  test_gate_opener *opener = argument;
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  opener->call_status_before_opening = CL_COMPLETE;
  clGetEventInfo(opener->call, CL_EVENT_COMMAND_EXECUTION_STATUS,
                 sizeof opener->call_status_before_opening, &opener->call_status_before_opening,
                 NULL);
  clSetUserEventStatus(opener->gate, CL_COMPLETE);
  return NULL;
}
