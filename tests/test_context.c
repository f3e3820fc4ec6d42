/* Contexts: creating one on a selected device, the device facts it keeps, the
 * selector grammar and its error messages, the device listing, wrapping the
 * caller's OpenCL objects without stealing or leaking references, and running
 * a kernel through a context.
 *
 * Expected values come from OpenCL directly (clGetPlatformIDs,
 * clGetDeviceInfo, the reference counts), never from clgpu itself. */
#include "support.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- what OpenCL says, asked directly ---- */

/* The device "0:0" names: the first device of the first platform, as
 * clGetPlatformIDs and clGetDeviceIDs(CL_DEVICE_TYPE_ALL) order them. */
static void first_device_directly(cl_platform_id *platform, cl_device_id *device) {
  cl_uint num_platforms = 0;
  assert_int_equal(clGetPlatformIDs(0, NULL, &num_platforms), CL_SUCCESS);
  assert_true(num_platforms >= 1);
  cl_platform_id *platforms = calloc(num_platforms, sizeof *platforms);
  assert_non_null(platforms);
  assert_int_equal(clGetPlatformIDs(num_platforms, platforms, NULL), CL_SUCCESS);
  *platform = platforms[0];
  free(platforms);
  cl_uint num_devices = 0;
  assert_int_equal(clGetDeviceIDs(*platform, CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices),
                   CL_SUCCESS);
  assert_true(num_devices >= 1);
  cl_device_id *devices = calloc(num_devices, sizeof *devices);
  assert_non_null(devices);
  assert_int_equal(clGetDeviceIDs(*platform, CL_DEVICE_TYPE_ALL, num_devices, devices, NULL),
                   CL_SUCCESS);
  *device = devices[0];
  free(devices);
}

/* A device string property, whole, malloc'd. */
static char *device_string(cl_device_id device, cl_device_info what) {
  size_t length = 0;
  assert_int_equal(clGetDeviceInfo(device, what, 0, NULL, &length), CL_SUCCESS);
  char *text = calloc(length + 1, 1);
  assert_non_null(text);
  assert_int_equal(clGetDeviceInfo(device, what, length, text, NULL), CL_SUCCESS);
  return text;
}

static char *platform_string(cl_platform_id platform, cl_platform_info what) {
  size_t length = 0;
  assert_int_equal(clGetPlatformInfo(platform, what, 0, NULL, &length), CL_SUCCESS);
  char *text = calloc(length + 1, 1);
  assert_non_null(text);
  assert_int_equal(clGetPlatformInfo(platform, what, length, text, NULL), CL_SUCCESS);
  return text;
}

/* Whether a space-separated extension list names `name` as a whole word, so
 * that "cl_khr_fp64" is not found inside a longer name. */
static int lists_extension(const char *extensions, const char *name) {
  size_t n = strlen(name);
  for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += n) {
    int starts = p == extensions || p[-1] == ' ';
    int ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return 1;
  }
  return 0;
}

static cl_uint context_references(cl_context context) {
  cl_uint count = 0;
  assert_int_equal(
      clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL),
      CL_SUCCESS);
  return count;
}

static cl_uint queue_references(cl_command_queue queue) {
  cl_uint count = 0;
  assert_int_equal(
      clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, NULL),
      CL_SUCCESS);
  return count;
}

static cl_command_queue_properties queue_properties(cl_command_queue queue) {
  cl_command_queue_properties properties = 0;
  assert_int_equal(
      clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL),
      CL_SUCCESS);
  return properties;
}

/* The caller's own OpenCL objects, made the way an application that already
 * uses OpenCL makes them: on the default device, queue without properties. */
typedef struct caller_objects {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
} caller_objects;

static caller_objects make_caller_objects(void) {
  caller_objects own;
  memset(&own, 0, sizeof own);
  assert_status(clgpu_device_select(NULL, &own.platform, &own.device), CLGPU_SUCCESS);
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)own.platform,
                                        0};
  cl_int err = CL_SUCCESS;
  own.context = clCreateContext(properties, 1, &own.device, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  own.queue = clCreateCommandQueue(own.context, own.device, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  return own;
}

static void release_caller_objects(caller_objects *own) {
  if (own->queue) assert_int_equal(clReleaseCommandQueue(own->queue), CL_SUCCESS);
  if (own->context) assert_int_equal(clReleaseContext(own->context), CL_SUCCESS);
  memset(own, 0, sizeof *own);
}

/* A pointer no call returns, so that a failing call that forgets to clear
 * *out is caught rather than passing because the variable started NULL. */
static int sentinel_object;
#define NOT_WRITTEN ((clgpu_context *)(void *)&sentinel_object)

/* ---- the default context ---- */

static void default_context_has_an_in_order_profiling_queue(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  assert_non_null(clgpu_context_cl_context(context));
  assert_non_null(clgpu_context_device(context));
  cl_command_queue queue = clgpu_context_queue(context);
  assert_non_null(queue);
  cl_command_queue_properties properties = queue_properties(queue);
  assert_true(properties & CL_QUEUE_PROFILING_ENABLE);
  assert_false(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  /* The queue must be on the context's own device and OpenCL context. */
  cl_context queue_context = NULL;
  cl_device_id queue_device = NULL;
  assert_int_equal(
      clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, NULL),
      CL_SUCCESS);
  assert_int_equal(
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device, NULL),
      CL_SUCCESS);
  assert_ptr_equal(queue_context, clgpu_context_cl_context(context));
  assert_ptr_equal(queue_device, clgpu_context_device(context));
  clgpu_context_destroy(context);
}

static void disabling_profiling_gives_a_queue_without_it(void **state) {
  (void)state;
  clgpu_context_options options = {0};
  options.disable_profiling = 1;
  clgpu_context *context = test_context(&options);
  cl_command_queue_properties properties = queue_properties(clgpu_context_queue(context));
  assert_false(properties & CL_QUEUE_PROFILING_ENABLE);
  assert_false(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  clgpu_context_destroy(context);
}

static void device_facts_match_what_opencl_reports(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_device_id device = clgpu_context_device(context);
  const clgpu_device_info *info = clgpu_context_device_info(context);
  assert_non_null(info);

  char *name = device_string(device, CL_DEVICE_NAME);
  assert_string_equal(info->name, name);
  free(name);
  char *vendor = device_string(device, CL_DEVICE_VENDOR);
  assert_string_equal(info->vendor, vendor);
  free(vendor);
  char *driver = device_string(device, CL_DRIVER_VERSION);
  assert_string_equal(info->driver_version, driver);
  free(driver);
  cl_platform_id platform = NULL;
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL),
                   CL_SUCCESS);
  char *platform_name = platform_string(platform, CL_PLATFORM_NAME);
  assert_string_equal(info->platform_name, platform_name);
  free(platform_name);

  size_t max_work_group_size = 0;
  cl_ulong local_mem_size = 0, max_mem_alloc_size = 0;
  cl_uint align_bits = 0, compute_units = 0;
  cl_device_type type = 0;
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                   sizeof max_work_group_size, &max_work_group_size, NULL),
                   CL_SUCCESS);
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem_size,
                                   &local_mem_size, NULL),
                   CL_SUCCESS);
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_mem_alloc_size,
                                   &max_mem_alloc_size, NULL),
                   CL_SUCCESS);
  assert_int_equal(
      clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL),
      CL_SUCCESS);
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof compute_units,
                                   &compute_units, NULL),
                   CL_SUCCESS);
  assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
  assert_int_equal(info->max_work_group_size, max_work_group_size);
  assert_int_equal(info->local_mem_size, local_mem_size);
  assert_int_equal(info->max_mem_alloc_size, max_mem_alloc_size);
  assert_int_equal(info->mem_base_addr_align_bits, align_bits);
  assert_int_equal(info->compute_units, compute_units);
  assert_int_equal(info->type, type);

  char *extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  assert_non_null(info->extensions);
  assert_string_equal(info->extensions, extensions);
  assert_int_equal(info->has_fp64, lists_extension(extensions, "cl_khr_fp64"));
  assert_int_equal(info->has_fp16, lists_extension(extensions, "cl_khr_fp16"));
  assert_int_equal(info->has_int64_base_atomics,
                   lists_extension(extensions, "cl_khr_int64_base_atomics"));
  free(extensions);
  clgpu_context_destroy(context);
}

/* ---- selecting a device ---- */

/* Create a context with options.device = selector and check it landed on
 * `expected`; also check that clgpu_device_select agrees. */
static void check_selector_picks(const char *selector, cl_device_id expected) {
  cl_platform_id platform = NULL;
  cl_device_id selected = NULL;
  assert_status(clgpu_device_select(selector, &platform, &selected), CLGPU_SUCCESS);
  if (selected != expected) fail_msg("clgpu_device_select(\"%s\") chose another device", selector);
  clgpu_context_options options = {0};
  options.device = selector;
  clgpu_context *context = test_context(&options);
  if (clgpu_context_device(context) != expected) {
    clgpu_context_destroy(context);
    fail_msg("options.device = \"%s\" made a context on another device", selector);
  }
  clgpu_context_destroy(context);
}

static void device_selected_by_platform_and_device_index(void **state) {
  (void)state;
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  first_device_directly(&platform, &device);
  cl_platform_id selected_platform = NULL;
  cl_device_id selected_device = NULL;
  assert_status(clgpu_device_select("0:0", &selected_platform, &selected_device), CLGPU_SUCCESS);
  assert_ptr_equal(selected_platform, platform);
  assert_ptr_equal(selected_device, device);
  check_selector_picks("0:0", device);
  /* Whitespace around a selector and leading zeros are not part of it. */
  check_selector_picks(" 0:0\n", device);
  check_selector_picks("00:000", device);
  check_selector_picks("0000000000", device);
}

static void device_selected_by_flat_index(void **state) {
  (void)state;
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  first_device_directly(&platform, &device);
  check_selector_picks("0", device);
}

static void device_selected_by_part_of_a_name_in_any_case(void **state) {
  (void)state;
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  first_device_directly(&platform, &device);
  /* Parts of the platform name as POCL reports it ("Portable Computing
   * Language"), in the case it has and in others. On another platform these
   * rows do not apply; the first device's own name is checked below. */
  char *platform_name = platform_string(platform, CL_PLATFORM_NAME);
  if (strcmp(platform_name, "Portable Computing Language") == 0) {
    /* "pocl" is in the platform vendor, "The pocl project". */
    static const char *const parts[] = {"Portable", "portable", "PORTABLE", "computing lang",
                                        "pocl",     "POCL",     " pocl\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
      check_selector_picks(parts[i], device);
  }
  free(platform_name);
  /* The whole device name, upper-cased, must find the first device whatever
   * the platform (unless an earlier device has the same name, which the
   * first device cannot have). */
  char *name = device_string(device, CL_DEVICE_NAME);
  for (char *c = name; *c; c++) {
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
  }
  check_selector_picks(name, device);
  free(name);
}

/* The first device of `type` over every platform in order, as plain
 * OpenCL lists them, or NULL. */
static cl_device_id first_of_type(cl_device_type type) {
  cl_uint num_platforms = 0;
  assert_int_equal(clGetPlatformIDs(0, NULL, &num_platforms), CL_SUCCESS);
  cl_platform_id *platforms = calloc(num_platforms, sizeof *platforms);
  assert_non_null(platforms);
  assert_int_equal(clGetPlatformIDs(num_platforms, platforms, NULL), CL_SUCCESS);
  cl_device_id found = NULL;
  for (cl_uint p = 0; p < num_platforms && !found; p++) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &count) != CL_SUCCESS) continue;
    cl_device_id *devices = calloc(count, sizeof *devices);
    assert_non_null(devices);
    assert_int_equal(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, count, devices, NULL),
                     CL_SUCCESS);
    for (cl_uint d = 0; d < count && !found; d++) {
      cl_device_type has = 0;
      assert_int_equal(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof has, &has, NULL),
                       CL_SUCCESS);
      if (has & type) found = devices[d];
    }
    free(devices);
  }
  free(platforms);
  return found;
}

/* "gpu", "cpu" and "accelerator", in any case and with blanks around: the
 * first device of the type; none of it is CLGPU_NO_DEVICE with the
 * listing. */
static void device_selected_by_type(void **state) {
  (void)state;
  static const struct {
    const char *selector;
    cl_device_type type;
  } rows[] = {
      {"gpu", CL_DEVICE_TYPE_GPU},
      {"GPU", CL_DEVICE_TYPE_GPU},
      {"cpu", CL_DEVICE_TYPE_CPU},
      {" Cpu\n", CL_DEVICE_TYPE_CPU},
      {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
      {"ACCELERATOR", CL_DEVICE_TYPE_ACCELERATOR},
  };
  int found_one = 0;
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    cl_device_id expected = first_of_type(rows[r].type);
    if (expected) {
      check_selector_picks(rows[r].selector, expected);
      found_one = 1;
      continue;
    }
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    assert_status(clgpu_device_select(rows[r].selector, &platform, &device), CLGPU_NO_DEVICE);
    assert_null(device);
    assert_non_null(strstr(clgpu_last_error(), "no device of that type"));
  }
  /* The suite's device is one of the three types. */
  assert_true(found_one);
}

static void empty_selector_picks_the_default_device(void **state) {
  (void)state;
  cl_platform_id platform = NULL;
  cl_device_id by_null = NULL, by_empty = NULL;
  assert_status(clgpu_device_select(NULL, &platform, &by_null), CLGPU_SUCCESS);
  assert_status(clgpu_device_select("", &platform, &by_empty), CLGPU_SUCCESS);
  assert_non_null(by_null);
  assert_ptr_equal(by_null, by_empty);
  /* The default prefers a GPU; where the device found is not one, no GPU may
   * exist on any platform. */
  cl_device_type type = 0;
  assert_int_equal(clGetDeviceInfo(by_null, CL_DEVICE_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
  if (!(type & CL_DEVICE_TYPE_GPU) && first_of_type(CL_DEVICE_TYPE_GPU)) {
    fail_msg("the default is not a GPU although a platform has one");
  }
}

/* Tests that set CLGPU_DEVICE save the value the run started with and put it
 * back in their teardown, which runs even when an assertion fails. */
typedef struct saved_environment {
  char *device; /* NULL: CLGPU_DEVICE was not set */
} saved_environment;

static int save_device_variable(void **state) {
  saved_environment *saved = calloc(1, sizeof *saved);
  if (!saved) return -1;
  const char *value = getenv("CLGPU_DEVICE");
  if (value) {
    saved->device = strdup(value);
    if (!saved->device) {
      free(saved);
      return -1;
    }
  }
  *state = saved;
  return 0;
}

static int restore_device_variable(void **state) {
  saved_environment *saved = *state;
  int result = saved->device ? setenv("CLGPU_DEVICE", saved->device, 1) : unsetenv("CLGPU_DEVICE");
  free(saved->device);
  free(saved);
  return result;
}

static void device_selected_through_the_environment(void **state) {
  (void)state;
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  first_device_directly(&platform, &device);
  assert_int_equal(setenv("CLGPU_DEVICE", "0:0", 1), 0);
  clgpu_context *context = NOT_WRITTEN;
  assert_status(clgpu_context_create(NULL, &context), CLGPU_SUCCESS);
  assert_ptr_equal(clgpu_context_device(context), device);
  clgpu_context_destroy(context);

  /* Options without a device fall back to the environment too. */
  clgpu_context_options options = {0};
  options.disable_profiling = 1;
  context = NOT_WRITTEN;
  assert_status(clgpu_context_create(&options, &context), CLGPU_SUCCESS);
  assert_ptr_equal(clgpu_context_device(context), device);
  clgpu_context_destroy(context);
}

static void bad_device_in_the_environment_is_reported(void **state) {
  (void)state;
  assert_int_equal(setenv("CLGPU_DEVICE", "nonexistent-device-xyz", 1), 0);
  clgpu_context *context = NOT_WRITTEN;
  assert_status(clgpu_context_create(NULL, &context), CLGPU_NO_DEVICE);
  assert_null(context);
  assert_non_null(strstr(clgpu_last_error(), "nonexistent-device-xyz"));
  assert_non_null(strstr(clgpu_last_error(), "  0:0  "));

  /* options.device wins over the environment. */
  clgpu_context_options options = {0};
  options.device = "0:0";
  context = NOT_WRITTEN;
  assert_status(clgpu_context_create(&options, &context), CLGPU_SUCCESS);
  assert_non_null(context);
  clgpu_context_destroy(context);
}

/* The full listing clgpu_device_list gives, malloc'd. */
static char *full_device_listing(void) {
  size_t needed = 0;
  assert_status(clgpu_device_list(NULL, 0, &needed), CLGPU_SUCCESS);
  assert_true(needed > 1);
  char *listing = malloc(needed);
  assert_non_null(listing);
  size_t again = 0;
  assert_status(clgpu_device_list(listing, needed, &again), CLGPU_SUCCESS);
  assert_int_equal(again, needed);
  return listing;
}

static void bad_selectors_fail_and_list_the_devices(void **state) {
  (void)state;
  static const struct {
    const char *selector;
    clgpu_status expected;
  } rows[] = {
      {"nonexistent-device-xyz", CLGPU_NO_DEVICE},
      {"9:9", CLGPU_NO_DEVICE},
      {"7", CLGPU_NO_DEVICE},
      {"0:", CLGPU_INVALID_DEVICE_SELECTOR},
      {"0:0:0", CLGPU_INVALID_DEVICE_SELECTOR},
      {"1234567890123", CLGPU_INVALID_DEVICE_SELECTOR},
  };
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  first_device_directly(&platform, &device);
  char *device_name = device_string(device, CL_DEVICE_NAME);
  char *listing = full_device_listing();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const char *selector = rows[i].selector;
    print_message("# selector \"%s\"\n", selector);
    cl_platform_id selected_platform = NULL;
    cl_device_id selected_device = NULL;
    assert_status(clgpu_device_select(selector, &selected_platform, &selected_device),
                  rows[i].expected);

    clgpu_context_options options = {0};
    options.device = selector;
    clgpu_context *context = NOT_WRITTEN;
    assert_status(clgpu_context_create(&options, &context), rows[i].expected);
    assert_null(context);
    const char *message = clgpu_last_error();
    /* The message names the selector and lists every device, so the person
     * who mistyped it sees what to type instead. The listing's "  0:0  " has
     * spaces around it that no selector here supplies. */
    assert_non_null(strstr(message, selector));
    assert_non_null(strstr(message, "  0:0  "));
    assert_non_null(strstr(message, device_name));
    assert_non_null(strstr(message, listing));
  }
  free(listing);
  free(device_name);
}

/* ---- the device listing ---- */

static const char *type_word(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  return "other";
}

/* The listing the header describes, one line per device, from OpenCL. */
static char *expected_listing(void) {
  size_t capacity = 1 << 16, used = 0;
  char *text = calloc(capacity, 1);
  assert_non_null(text);
  cl_uint num_platforms = 0;
  assert_int_equal(clGetPlatformIDs(0, NULL, &num_platforms), CL_SUCCESS);
  cl_platform_id *platforms = calloc(num_platforms, sizeof *platforms);
  assert_non_null(platforms);
  assert_int_equal(clGetPlatformIDs(num_platforms, platforms, NULL), CL_SUCCESS);
  for (cl_uint p = 0; p < num_platforms; p++) {
    cl_uint num_devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices) != CL_SUCCESS) {
      continue;
    }
    cl_device_id *devices = calloc(num_devices, sizeof *devices);
    assert_non_null(devices);
    assert_int_equal(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices, NULL),
                     CL_SUCCESS);
    char *platform_name = platform_string(platforms[p], CL_PLATFORM_NAME);
    for (cl_uint d = 0; d < num_devices; d++) {
      char *name = device_string(devices[d], CL_DEVICE_NAME);
      cl_device_type type = 0;
      assert_int_equal(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL),
                       CL_SUCCESS);
      int n = snprintf(text + used, capacity - used, "  %u:%u  %s / %s (%s)\n", p, d, platform_name,
                       name, type_word(type));
      assert_true(n > 0 && (size_t)n < capacity - used);
      used += (size_t)n;
      free(name);
    }
    free(platform_name);
    free(devices);
  }
  free(platforms);
  return text;
}

static void device_list_shows_every_device_in_order(void **state) {
  (void)state;
  char *listing = full_device_listing();
  char *expected = expected_listing();
  assert_string_equal(listing, expected);
  assert_non_null(strstr(listing, "  0:0  "));
  free(expected);
  free(listing);
}

static void device_list_reports_the_length_it_needs(void **state) {
  (void)state;
  char *listing = full_device_listing();
  size_t needed = 0;
  /* A buffer that fits exactly gives the same text and the same need. */
  char *exact = malloc(strlen(listing) + 1);
  assert_non_null(exact);
  assert_status(clgpu_device_list(exact, strlen(listing) + 1, &needed), CLGPU_SUCCESS);
  assert_int_equal(needed, strlen(listing) + 1);
  assert_string_equal(exact, listing);
  free(exact);
  /* needed may be NULL. */
  char whole[1 << 14];
  assert_true(strlen(listing) < sizeof whole);
  assert_status(clgpu_device_list(whole, sizeof whole, NULL), CLGPU_SUCCESS);
  assert_string_equal(whole, listing);
  free(listing);
}

static void device_list_cuts_a_small_buffer(void **state) {
  (void)state;
  char *listing = full_device_listing();
  assert_true(strlen(listing) > 9);
  char small[10];
  memset(small, 'x', sizeof small);
  size_t needed = 0;
  assert_status(clgpu_device_list(small, sizeof small, &needed), CLGPU_SUCCESS);
  assert_int_equal(needed, strlen(listing) + 1);
  assert_int_equal(small[sizeof small - 1], '\0');
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_memory_equal(small, listing, sizeof small - 1);
  /* One byte of room holds only the terminator. */
  char one = 'x';
  assert_status(clgpu_device_list(&one, 1, &needed), CLGPU_SUCCESS);
  assert_int_equal(one, '\0');
  assert_int_equal(needed, strlen(listing) + 1);
  free(listing);
}

static void device_list_refuses_a_missing_buffer_with_a_size(void **state) {
  (void)state;
  assert_status(clgpu_device_list(NULL, 10, NULL), CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "buffer"));
}

/* ---- wrapping the caller's objects ---- */

static void wrap_uses_the_callers_objects_and_gives_back_references(void **state) {
  (void)state;
  caller_objects own = make_caller_objects();
  cl_uint context_count = context_references(own.context);
  cl_uint queue_count = queue_references(own.queue);

  clgpu_context *wrapped = NOT_WRITTEN;
  assert_status(clgpu_context_wrap(own.context, own.device, own.queue, NULL, &wrapped),
                CLGPU_SUCCESS);
  assert_non_null(wrapped);
  assert_int_equal(context_references(own.context), context_count + 1);
  assert_int_equal(queue_references(own.queue), queue_count + 1);
  assert_ptr_equal(clgpu_context_cl_context(wrapped), own.context);
  assert_ptr_equal(clgpu_context_device(wrapped), own.device);
  assert_ptr_equal(clgpu_context_queue(wrapped), own.queue);
  /* Used as given: the caller made it without profiling and clgpu must not
   * have swapped in a queue of its own. */
  assert_false(queue_properties(clgpu_context_queue(wrapped)) & CL_QUEUE_PROFILING_ENABLE);
  char *name = device_string(own.device, CL_DEVICE_NAME);
  assert_string_equal(clgpu_context_device_info(wrapped)->name, name);
  free(name);

  clgpu_context_destroy(wrapped);
  assert_int_equal(context_references(own.context), context_count);
  assert_int_equal(queue_references(own.queue), queue_count);
  release_caller_objects(&own);
}

/* How many references one new queue takes on its context. OpenCL leaves this
 * to the implementation (POCL takes one), so it is measured, not assumed. */
static cl_uint references_a_queue_takes(const caller_objects *own) {
  cl_uint before = context_references(own->context);
  cl_int err = CL_SUCCESS;
  cl_command_queue probe = clCreateCommandQueue(own->context, own->device, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_uint during = context_references(own->context);
  assert_int_equal(clReleaseCommandQueue(probe), CL_SUCCESS);
  assert_int_equal(context_references(own->context), before);
  return during - before;
}

static void wrap_without_a_queue_makes_an_owned_profiling_queue(void **state) {
  (void)state;
  caller_objects own = make_caller_objects();
  cl_uint per_queue = references_a_queue_takes(&own);
  cl_uint context_count = context_references(own.context);
  cl_uint queue_count = queue_references(own.queue);

  clgpu_context *wrapped = NOT_WRITTEN;
  assert_status(clgpu_context_wrap(own.context, own.device, NULL, NULL, &wrapped), CLGPU_SUCCESS);
  cl_command_queue queue = clgpu_context_queue(wrapped);
  assert_non_null(queue);
  assert_ptr_not_equal(queue, own.queue);
  assert_true(queue_properties(queue) & CL_QUEUE_PROFILING_ENABLE);
  assert_false(queue_properties(queue) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  /* clgpu's own reference, plus whatever its new queue holds. */
  assert_int_equal(context_references(own.context), context_count + 1 + per_queue);
  assert_int_equal(queue_references(own.queue), queue_count);
  clgpu_context_destroy(wrapped);
  assert_int_equal(context_references(own.context), context_count);

  /* disable_profiling applies to the queue clgpu makes for a wrap. */
  clgpu_context_options options = {0};
  options.disable_profiling = 1;
  wrapped = NOT_WRITTEN;
  assert_status(clgpu_context_wrap(own.context, own.device, NULL, &options, &wrapped),
                CLGPU_SUCCESS);
  assert_false(queue_properties(clgpu_context_queue(wrapped)) & CL_QUEUE_PROFILING_ENABLE);
  clgpu_context_destroy(wrapped);
  assert_int_equal(context_references(own.context), context_count);
  release_caller_objects(&own);
}

static void wrap_misuse_is_refused_without_retaining_anything(void **state) {
  (void)state;
  caller_objects own = make_caller_objects();
  /* A second OpenCL context on the same device, whose queue does not belong
   * with the first context. */
  caller_objects other = make_caller_objects();

  enum { NONE, OWN, OTHER };
  static const struct {
    const char *what;
    int pass_out;
    int context;
    int device;
    int queue;
    clgpu_status expected;
  } rows[] = {
      {"out is NULL", 0, OWN, OWN, OWN, CLGPU_INVALID_ARGUMENT},
      {"context is NULL", 1, NONE, OWN, OWN, CLGPU_INVALID_ARGUMENT},
      {"device is NULL", 1, OWN, NONE, OWN, CLGPU_INVALID_ARGUMENT},
      {"context and device are NULL", 1, NONE, NONE, NONE, CLGPU_INVALID_ARGUMENT},
      {"queue of another context", 1, OWN, OWN, OTHER, CLGPU_MISMATCHED_OBJECTS},
      {"second context given the first one's queue", 1, OTHER, OTHER, OWN,
       CLGPU_MISMATCHED_OBJECTS},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    print_message("# wrap misuse: %s\n", rows[i].what);
    cl_uint own_context = context_references(own.context);
    cl_uint own_queue = queue_references(own.queue);
    cl_uint other_context = context_references(other.context);
    cl_uint other_queue = queue_references(other.queue);

    cl_context context = rows[i].context == OWN     ? own.context
                         : rows[i].context == OTHER ? other.context
                                                    : NULL;
    cl_device_id device = rows[i].device == OWN     ? own.device
                          : rows[i].device == OTHER ? other.device
                                                    : NULL;
    cl_command_queue queue = rows[i].queue == OWN     ? own.queue
                             : rows[i].queue == OTHER ? other.queue
                                                      : NULL;
    clgpu_context *wrapped = NOT_WRITTEN;
    assert_status(
        clgpu_context_wrap(context, device, queue, NULL, rows[i].pass_out ? &wrapped : NULL),
        rows[i].expected);
    if (rows[i].pass_out) assert_null(wrapped);
    assert_true(clgpu_last_error()[0] != '\0');

    assert_int_equal(context_references(own.context), own_context);
    assert_int_equal(queue_references(own.queue), own_queue);
    assert_int_equal(context_references(other.context), other_context);
    assert_int_equal(queue_references(other.queue), other_queue);
  }
  release_caller_objects(&other);
  release_caller_objects(&own);
}

static void wrap_refuses_a_device_outside_the_context(void **state) {
  (void)state;
  caller_objects own = make_caller_objects();
  /* A sub-device is a device of the same platform that the context does not
   * hold; partitioning is optional in OpenCL, so this runs where it is
   * supported (POCL supports it). The device says so first: rusticl (Mesa
   * 22.3) reports no partitioning and leaves clCreateSubDevices out of its
   * dispatch table, so calling it there jumps to address 0. */
  cl_uint max_subdevices = 0;
  assert_int_equal(clGetDeviceInfo(own.device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                                   sizeof max_subdevices, &max_subdevices, NULL),
                   CL_SUCCESS);
  if (max_subdevices < 1) {
    print_message("# the device cannot be partitioned: no device outside the context to give\n");
    release_caller_objects(&own);
    skip();
  }
  cl_device_partition_property partition[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint count = 0;
  cl_int err = clCreateSubDevices(own.device, partition, 0, NULL, &count);
  if (err != CL_SUCCESS || count == 0) {
    print_message("# clCreateSubDevices gave %d and %u sub-devices: nothing to test\n", (int)err,
                  (unsigned)count);
    release_caller_objects(&own);
    skip();
  }
  cl_device_id *subdevices = calloc(count, sizeof *subdevices);
  assert_non_null(subdevices);
  assert_int_equal(clCreateSubDevices(own.device, partition, count, subdevices, NULL), CL_SUCCESS);
  cl_uint context_count = context_references(own.context);
  clgpu_context *wrapped = NOT_WRITTEN;
  assert_status(clgpu_context_wrap(own.context, subdevices[0], NULL, NULL, &wrapped),
                CLGPU_MISMATCHED_OBJECTS);
  assert_null(wrapped);
  assert_non_null(strstr(clgpu_last_error(), "device"));
  assert_int_equal(context_references(own.context), context_count);
  for (cl_uint i = 0; i < count; i++) assert_int_equal(clReleaseDevice(subdevices[i]), CL_SUCCESS);
  free(subdevices);
  release_caller_objects(&own);
}

static void null_context_is_accepted_everywhere(void **state) {
  (void)state;
  clgpu_context_destroy(NULL);
  assert_null(clgpu_context_cl_context(NULL));
  assert_null(clgpu_context_device(NULL));
  assert_null(clgpu_context_queue(NULL));
  assert_null(clgpu_context_device_info(NULL));
  assert_null(clgpu_context_cache_dir(NULL));
}

static void create_refuses_a_missing_out(void **state) {
  (void)state;
  assert_status(clgpu_context_create(NULL, NULL), CLGPU_INVALID_ARGUMENT);
  cl_device_id device = NULL;
  cl_platform_id platform = NULL;
  assert_status(clgpu_device_select("0:0", NULL, &device), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_device_select("0:0", &platform, NULL), CLGPU_INVALID_ARGUMENT);
}

/* ---- running work ---- */

static void context_runs_a_kernel(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", &(clgpu_define){"CLGPU_T", "uint"}, 1,
                                        NULL, &program),
                CLGPU_SUCCESS);
  assert_non_null(program);
  test_check_iota(context, program, 1000);
  clgpu_context_destroy(context);
}

static void wrapped_context_runs_a_kernel_on_the_callers_queue(void **state) {
  (void)state;
  caller_objects own = make_caller_objects();
  clgpu_context *wrapped = NOT_WRITTEN;
  assert_status(clgpu_context_wrap(own.context, own.device, own.queue, NULL, &wrapped),
                CLGPU_SUCCESS);
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(wrapped, "fill", &(clgpu_define){"CLGPU_T", "uint"}, 1,
                                        NULL, &program),
                CLGPU_SUCCESS);
  /* Sizes around a work-group multiple, and one below a single group. */
  test_check_iota(wrapped, program, 1);
  test_check_iota(wrapped, program, 64);
  test_check_iota(wrapped, program, 1000);
  clgpu_context_destroy(wrapped);
  release_caller_objects(&own);
}

/* ---- environment variables: parsed strictly when a context is made ---- */

typedef struct environment_row {
  const char *name;
  const char *value;
  int accepted;
} environment_row;

static void environment_variables_are_parsed_strictly(void **state) {
  (void)state;
  static const environment_row rows[] = {
      /* CLGPU_COPY_CHUNK=-1 used to wrap to 2^64 - 1 and made every strided
       * copy succeed while copying nothing. */
      {"CLGPU_COPY_CHUNK", "-1", 0},
      {"CLGPU_COPY_CHUNK", "18446744073709551615", 0},
      {"CLGPU_COPY_CHUNK", "18446744073709551616", 0},
      {"CLGPU_COPY_CHUNK", "2147483649", 0},
      {"CLGPU_COPY_CHUNK", "7x", 0},
      {"CLGPU_COPY_CHUNK", " 7", 0},
      {"CLGPU_COPY_CHUNK", "+7", 0},
      {"CLGPU_COPY_CHUNK", "0x10", 0},
      {"CLGPU_COPY_GROUP", "65537", 0},
      {"CLGPU_COPY_GROUP", "-64", 0},
      {"CLGPU_COPY_GROUP", "sixty", 0},
      {"CLGPU_DISK_CACHE", "yes", 0},
      {"CLGPU_DISK_CACHE", "ON", 0},
      {"CLGPU_COPY_CHUNK", "", 1},
      {"CLGPU_COPY_CHUNK", "0", 1},
      {"CLGPU_COPY_CHUNK", "2147483648", 1},
      {"CLGPU_COPY_GROUP", "65536", 1},
      {"CLGPU_COPY_GROUP", "3", 1},
      {"CLGPU_DISK_CACHE", "off", 1},
      {"CLGPU_DISK_CACHE", "", 1},
      {"CLGPU_BUILD_WARNINGS", "yes", 0},
      {"CLGPU_BUILD_WARNINGS", "2", 0},
      {"CLGPU_BUILD_WARNINGS", " 1", 0},
      {"CLGPU_BUILD_WARNINGS", "on ", 0},
      {"CLGPU_BUILD_WARNINGS", "on", 1},
      {"CLGPU_BUILD_WARNINGS", "0", 1},
      {"CLGPU_BUILD_WARNINGS", "", 1},
      {"CLGPU_TUNING", "tile_items=0", 0},
      {"CLGPU_TUNING", "tile_items=33", 0},
      {"CLGPU_TUNING", "tile_items=-1", 0},
      {"CLGPU_TUNING", "tile_items=+8", 0},
      {"CLGPU_TUNING", "tile_items", 0},
      {"CLGPU_TUNING", "tile_items=8,", 0},
      {"CLGPU_TUNING", "tile_items=99999999999999999999", 0},
      {"CLGPU_TUNING", "tiled_group_cap=100", 0},
      {"CLGPU_TUNING", "chunk_unit=65", 0},
      {"CLGPU_TUNING", "no_such_field=4", 0},
      {"CLGPU_TUNING", "radix_items=8;tile_items=8", 0},
      {"CLGPU_TUNING", "", 1},
      {"CLGPU_TUNING", "tile_items=4", 1},
      {"CLGPU_TUNING", "tile_items=32,radix_items=4,tiled_group_cap=64", 1},
      {"CLGPU_PROGRAM_RECORD", "two\nlines", 0},
      {"CLGPU_PROGRAM_RECORD", "cr\r", 0},
      {"CLGPU_PROGRAM_RECORD", "my program", 1},
      {"CLGPU_PROGRAM_RECORD", "off", 1},
      {"CLGPU_PROGRAM_RECORD", "", 1},
  };
  caller_objects own = make_caller_objects();
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    const environment_row *row = &rows[r];
    assert_int_equal(setenv(row->name, row->value, 1), 0);
    clgpu_context *made = NOT_WRITTEN, *wrapped = NOT_WRITTEN;
    clgpu_status created = clgpu_context_create(NULL, &made);
    char message[512];
    snprintf(message, sizeof message, "%s", clgpu_last_error());
    clgpu_status wrap = clgpu_context_wrap(own.context, own.device, own.queue, NULL, &wrapped);
    unsetenv(row->name);
    if (row->accepted) {
      if (created != CLGPU_SUCCESS || wrap != CLGPU_SUCCESS) {
        fail_msg("%s=\"%s\" was refused: %s", row->name, row->value, message);
      }
      clgpu_context_destroy(made);
      clgpu_context_destroy(wrapped);
      continue;
    }
    if (created != CLGPU_INVALID_ARGUMENT || wrap != CLGPU_INVALID_ARGUMENT) {
      fail_msg("%s=\"%s\": create gave %s, wrap %s", row->name, row->value,
               clgpu_status_name(created), clgpu_status_name(wrap));
    }
    assert_null(made);
    assert_null(wrapped);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", row->value);
    if (!strstr(message, "clgpu_context_create") || !strstr(message, row->name) ||
        !strstr(message, quoted)) {
      fail_msg("%s=\"%s\": the message \"%s\" does not name the variable and its value", row->name,
               row->value, message);
    }
  }
  /* A record name of 255 bytes is taken, one of 256 refused (the message
   * shows its first 40 bytes and its length). */
  char name[257];
  memset(name, 'r', sizeof name - 1);
  name[256] = '\0';
  for (size_t length = 255; length <= 256; length++) {
    name[length] = '\0';
    assert_int_equal(setenv("CLGPU_PROGRAM_RECORD", name, 1), 0);
    clgpu_context *made = NOT_WRITTEN;
    clgpu_status created = clgpu_context_create(NULL, &made);
    unsetenv("CLGPU_PROGRAM_RECORD");
    if (length == 255) {
      assert_status(created, CLGPU_SUCCESS);
      clgpu_context_destroy(made);
    } else {
      assert_status(created, CLGPU_INVALID_ARGUMENT);
      assert_null(made);
      assert_non_null(strstr(clgpu_last_error(), "CLGPU_PROGRAM_RECORD"));
      assert_non_null(strstr(clgpu_last_error(), "(256 bytes)"));
    }
    name[length] = 'r';
  }
  /* The caller's objects gained no reference from the refused wraps. */
  release_caller_objects(&own);
}

/* The largest accepted chunk still copies every element of a strided view:
 * the launch shape is one work-item. */
static void the_largest_copy_chunk_copies_everything(void **state) {
  (void)state;
  assert_int_equal(setenv("CLGPU_COPY_CHUNK", "2147483648", 1), 0);
  clgpu_context *context = test_context(NULL);
  unsetenv("CLGPU_COPY_CHUNK");
  enum { N = 1000 };
  cl_int err = CL_SUCCESS;
  cl_mem source = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                 2 * N * sizeof(cl_uint), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem destination = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                      N * sizeof(cl_uint), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  static cl_uint host[2 * N], out[N];
  for (cl_uint i = 0; i < 2 * N; i++) host[i] = i * 2654435761u;
  clgpu_array all, every_other, packed;
  assert_status(clgpu_array_1d(source, 0, CLGPU_TYPE_UINT32, 2 * N, &all), CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(source, 0, CLGPU_TYPE_UINT32, 1, (size_t[]){N},
                                    (ptrdiff_t[]){2}, &every_other),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(destination, 0, CLGPU_TYPE_UINT32, N, &packed), CLGPU_SUCCESS);
  assert_status(clgpu_array_write(context, &all, host, sizeof host, 0, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_copy(context, &packed, &every_other, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, out, sizeof out, &packed, 0, NULL), CLGPU_SUCCESS);
  for (cl_uint i = 0; i < N; i++) assert_int_equal(out[i], host[2 * i]);
  clReleaseMemObject(source);
  clReleaseMemObject(destination);
  clgpu_context_destroy(context);
}

/* ---- first contexts made by many threads at once ---- */

enum { RACE_THREADS = 8 };

typedef struct race {
  pthread_barrier_t start;
  clgpu_status status[RACE_THREADS];
} race;

typedef struct racer {
  race *shared;
  int index;
} racer;

/* CLGPU_TUNING reaches the plans and kernels: odd tile sizes (3 elements and
 * 5 keys per work-item), narrow groups and few chunks (several tiles per
 * chunk, partial last tiles) still give the host's results in the TILED
 * shape: reduce, scan, findall and radix sort. */
static int compare_uint(const void *a, const void *b) {
  cl_uint x = *(const cl_uint *)a, y = *(const cl_uint *)b;
  return (x > y) - (x < y);
}

/* TILED reduce, scan (inclusive and exclusive), findall and radix sort
 * under a CLGPU_TUNING text, against the host. */
static void check_tiled_under(const char *tuning) {
  assert_int_equal(setenv("CLGPU_TUNING", tuning, 1), 0);
  clgpu_context *context = test_context(NULL);
  unsetenv("CLGPU_TUNING");
  enum { N = 100003 };
  static cl_uint host[N], scanned[N], sorted[N], expected[N];
  static cl_uint indices[N];
  uint64_t seed = 12345;
  for (size_t i = 0; i < N; i++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    host[i] = (cl_uint)(seed >> 40) % 10000u;
  }
  cl_mem in = NULL, out = NULL, found = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &in), CLGPU_SUCCESS);
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &out), CLGPU_SUCCESS);
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &found),
                CLGPU_SUCCESS);
  clgpu_array x, y, z;
  assert_status(clgpu_array_1d(in, 0, CLGPU_TYPE_UINT32, N, &x), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, 0, CLGPU_TYPE_UINT32, N, &y), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(found, 0, CLGPU_TYPE_UINT32, N, &z), CLGPU_SUCCESS);
  assert_status(clgpu_array_write(context, &x, host, sizeof host, 0, NULL), CLGPU_SUCCESS);
  clgpu_call_options tiled = {.shape = CLGPU_SHAPE_TILED, .workspace = NULL};

  clgpu_reduce_op sum = {0};
  sum.kind = CLGPU_REDUCE_SUM;
  cl_uint total = 0, expected_total = 0;
  for (size_t i = 0; i < N; i++) expected_total += host[i];
  assert_status(clgpu_reduce_read(context, &sum, &total, sizeof total, &x, &tiled), CLGPU_SUCCESS);
  assert_int_equal(total, expected_total);

  clgpu_scan_op scan = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  assert_status(clgpu_scan(context, &scan, CLGPU_ALL_AXES, &y, &x, &tiled, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, scanned, sizeof scanned, &y, 0, NULL), CLGPU_SUCCESS);
  cl_uint run = 0;
  for (size_t i = 0; i < N; i++) {
    run += host[i];
    if (scanned[i] != run) {
      fail_msg("%s: scan: element %zu is %u, not %u", tuning, i, scanned[i], run);
    }
  }
  clgpu_scan_op exclusive = {CLGPU_SCAN_SUM, 1, NULL, NULL};
  assert_status(clgpu_scan(context, &exclusive, CLGPU_ALL_AXES, &y, &x, &tiled, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, scanned, sizeof scanned, &y, 0, NULL), CLGPU_SUCCESS);
  run = 0;
  for (size_t i = 0; i < N; i++) {
    if (scanned[i] != run) {
      fail_msg("%s: exclusive scan: element %zu is %u, not %u", tuning, i, scanned[i], run);
    }
    run += host[i];
  }

  uint64_t count = 0, expected_count = 0;
  assert_status(clgpu_findall_read(context, "x < 1000u", &z, NULL, &count, &x, &tiled),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, indices, sizeof indices, &z, 0, NULL), CLGPU_SUCCESS);
  for (size_t i = 0; i < N; i++) {
    if (host[i] >= 1000u) continue;
    if (expected_count >= count || indices[expected_count] != (cl_uint)i) {
      fail_msg("%s: findall: index %llu is not %zu", tuning, (unsigned long long)expected_count, i);
    }
    expected_count++;
  }
  assert_int_equal(count, expected_count);
  /* A view shorter than the count: its first indices, nothing past it. */
  enum { SHORT = 3001 };
  static cl_uint guard[N];
  for (size_t i = 0; i < N; i++) guard[i] = 0xdeadbeefu;
  assert_status(clgpu_array_write(context, &z, guard, sizeof guard, 0, NULL), CLGPU_SUCCESS);
  clgpu_array short_view;
  assert_status(clgpu_array_1d(found, 0, CLGPU_TYPE_UINT32, SHORT, &short_view), CLGPU_SUCCESS);
  uint64_t short_count = 0;
  assert_status(
      clgpu_findall_read(context, "x < 1000u", &short_view, NULL, &short_count, &x, &tiled),
      CLGPU_SUCCESS);
  assert_int_equal(short_count, expected_count);
  assert_status(clgpu_array_read(context, guard, sizeof guard, &z, 0, NULL), CLGPU_SUCCESS);
  assert_true(expected_count > SHORT);
  assert_memory_equal(guard, indices, SHORT * sizeof indices[0]);
  for (size_t i = SHORT; i < N; i++) {
    if (guard[i] != 0xdeadbeefu) fail_msg("%s: findall wrote past its view at %zu", tuning, i);
  }

  clgpu_sort_options radix = {
      .algorithm = CLGPU_ALGORITHM_RADIX, .shape = CLGPU_SHAPE_TILED, .workspace = NULL};
  assert_status(clgpu_sort(context, NULL, &x, NULL, &radix, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, sorted, sizeof sorted, &x, 0, NULL), CLGPU_SUCCESS);
  memcpy(expected, host, sizeof host);
  qsort(expected, N, sizeof expected[0], compare_uint);
  assert_memory_equal(sorted, expected, sizeof sorted);

  clgpu_buffer_release(context, in);
  clgpu_buffer_release(context, out);
  clgpu_buffer_release(context, found);
  clgpu_context_destroy(context);
}

static void tuning_overrides_keep_tiled_results_right(void **state) {
  (void)state;
  /* Small tiles and groups: many ranges, partial tiles everywhere. */
  check_tiled_under(
      "tile_items=3,radix_items=5,tiled_group_cap=32,sort_group_cap=32,"
      "tiled_chunks_per_unit=1,tiled_minimum_tiles=1,sort_single_tiles=1");
  /* Slices that end inside a row of every sub-group width, with and
   * without the barrier per tile (the slices matter where the device has
   * sub-groups; elsewhere the layout of one entry per slice is tested). */
  check_tiled_under("tiled_slices=3,tiled_step_barrier=1,tile_items=5,tiled_minimum_tiles=1");
  check_tiled_under(
      "tiled_slices=64,tiled_step_barrier=0,tiled_chunks_per_unit=3,"
      "tiled_lane_runs=0");
  check_tiled_under("tiled_slices=5,tiled_lane_runs=1,tile_items=7");
  check_tiled_under("tiled_slices=1,tiled_step_barrier=1");
}

static void *make_first_context(void *argument) {
  racer *me = argument;
  pthread_barrier_wait(&me->shared->start);
  clgpu_context *context = NULL;
  me->shared->status[me->index] = clgpu_context_create(NULL, &context);
  clgpu_context_destroy(context);
  return NULL;
}

/* Run in a fresh process (the first OpenCL calls of the process): eight
 * threads create their first contexts at the same moment. Exit 0 when all
 * succeeded. */
static int first_contexts_race(void) {
  race shared;
  racer racers[RACE_THREADS];
  pthread_t threads[RACE_THREADS];
  pthread_barrier_init(&shared.start, NULL, RACE_THREADS);
  for (int t = 0; t < RACE_THREADS; t++) {
    racers[t] = (racer){&shared, t};
    if (pthread_create(&threads[t], NULL, make_first_context, &racers[t]) != 0) return 2;
  }
  int failed = 0;
  for (int t = 0; t < RACE_THREADS; t++) {
    pthread_join(threads[t], NULL);
    if (shared.status[t] != CLGPU_SUCCESS) {
      printf("# thread %d: %s\n", t, clgpu_status_name(shared.status[t]));
      failed = 1;
    }
  }
  pthread_barrier_destroy(&shared.start);
  return failed;
}

static const char race_flag[] = "--first-contexts-race";

/* Each run is a new process started from this test's own executable, with
 * a time limit: a crash or a hang fails the test instead of the suite. */
static void first_contexts_from_eight_threads_at_once(void **state) {
  (void)state;
  for (int run = 0; run < 4; run++) {
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
      /* Under AddressSanitizer: the first OpenCL calls of the process run
       * on these threads, and POCL's LLVM replaces a thread's alternate
       * signal stack with one from malloc, which ASan then fails to unmap
       * when the thread exits ("unable to unmap"). The child keeps ASan's
       * checks but not its alternate stacks. */
      const char *asan = getenv("ASAN_OPTIONS");
      if (asan) {
        char options[1024];
        snprintf(options, sizeof options, "%s:use_sigaltstack=0", asan);
        setenv("ASAN_OPTIONS", options, 1);
      }
      execl("/proc/self/exe", "test_context", race_flag, (char *)NULL);
      _exit(127);
    }
    int status = 0;
    time_t deadline = time(NULL) + 120;
    pid_t done = 0;
    while ((done = waitpid(child, &status, WNOHANG)) == 0 && time(NULL) < deadline) {
      nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    if (done == 0) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      fail_msg("run %d: eight first contexts did not finish within 120 s", run);
    }
    if (WIFSIGNALED(status)) fail_msg("run %d: killed by signal %d", run, WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], race_flag) == 0) return first_contexts_race();
  /* Print the device first, whichever tests a filter leaves to run. */
  clgpu_context_destroy(test_context(NULL));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(default_context_has_an_in_order_profiling_queue),
      cmocka_unit_test(disabling_profiling_gives_a_queue_without_it),
      cmocka_unit_test(device_facts_match_what_opencl_reports),
      cmocka_unit_test(device_selected_by_platform_and_device_index),
      cmocka_unit_test(device_selected_by_flat_index),
      cmocka_unit_test(device_selected_by_type),
      cmocka_unit_test(device_selected_by_part_of_a_name_in_any_case),
      cmocka_unit_test(empty_selector_picks_the_default_device),
      cmocka_unit_test_setup_teardown(device_selected_through_the_environment, save_device_variable,
                                      restore_device_variable),
      cmocka_unit_test_setup_teardown(bad_device_in_the_environment_is_reported,
                                      save_device_variable, restore_device_variable),
      cmocka_unit_test(bad_selectors_fail_and_list_the_devices),
      cmocka_unit_test(device_list_shows_every_device_in_order),
      cmocka_unit_test(device_list_reports_the_length_it_needs),
      cmocka_unit_test(device_list_cuts_a_small_buffer),
      cmocka_unit_test(device_list_refuses_a_missing_buffer_with_a_size),
      cmocka_unit_test(wrap_uses_the_callers_objects_and_gives_back_references),
      cmocka_unit_test(wrap_without_a_queue_makes_an_owned_profiling_queue),
      cmocka_unit_test(wrap_misuse_is_refused_without_retaining_anything),
      cmocka_unit_test(wrap_refuses_a_device_outside_the_context),
      cmocka_unit_test(null_context_is_accepted_everywhere),
      cmocka_unit_test(create_refuses_a_missing_out),
      cmocka_unit_test(context_runs_a_kernel),
      cmocka_unit_test(wrapped_context_runs_a_kernel_on_the_callers_queue),
      cmocka_unit_test(environment_variables_are_parsed_strictly),
      cmocka_unit_test(the_largest_copy_chunk_copies_everything),
      cmocka_unit_test(tuning_overrides_keep_tiled_results_right),
      cmocka_unit_test(first_contexts_from_eight_threads_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
