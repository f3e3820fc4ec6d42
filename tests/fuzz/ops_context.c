/* Fuzz operations on status names, the context accessors, the device
 * listing and selector, and making and wrapping contexts. */
#include "harness.h"

#define CREATES_PER_INPUT 2
#define STALE_PLATFORM ((cl_platform_id)(void *)&not_a_handle)
#define STALE_DEVICE ((cl_device_id)(void *)&not_a_handle)
#define STALE_CONTEXT ((clgpu_context *)(void *)&not_a_handle)

/* ---- dictionaries ---- */

static const char *const selector_words[] = {
    "",           " ",
    "0",          "0:0",
    " 0:0\n",     "1",
    "0:1",        "1:0",
    "1:",         ":0",
    ":",          "0::0",
    "0:0:0",      "00000000000000000",
    "999999999",  "0:999999999",
    "4294967296", "1234567890",
    "-1",         "+0",
    "0x0",        "pocl",
    "POCL",       "cpu",
    "Portable",   "nvidia",
    "%s%s%n%x",   "\t\r\n\v\f",
    "\xff\xfe",   long_identifier,
    huge_text,
};

static const clgpu_status select_statuses[] = {CLGPU_SUCCESS, CLGPU_NO_PLATFORM, CLGPU_NO_DEVICE,
                                               CLGPU_INVALID_DEVICE_SELECTOR,
                                               CLGPU_INVALID_ARGUMENT};
static const clgpu_status create_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                               CLGPU_NO_PLATFORM, CLGPU_NO_DEVICE,
                                               CLGPU_INVALID_DEVICE_SELECTOR};
static const clgpu_status wrap_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                             CLGPU_MISMATCHED_OBJECTS};
static const clgpu_status list_statuses[] = {CLGPU_SUCCESS, CLGPU_NO_PLATFORM,
                                             CLGPU_INVALID_ARGUMENT};

static const char *take_cache_dir(byte_reader *in) {
  return world.cache_paths[take_byte(in) % CACHE_PATH_CHOICES];
}

/* ---- OpenCL facts, asked directly ---- */

static cl_uint context_references(cl_context context) {
  cl_uint count = 0;
  if (context) clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

static cl_uint queue_references(cl_command_queue queue) {
  cl_uint count = 0;
  if (queue) clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

/* Bytes of free blocks in the arrays' allocation cache (0 without one). */
static uint64_t cache_bytes_held(void) {
  clgpu_alloc_stats stats = {0};
  if (arrays.cache) clgpu_alloc_cache_stats(arrays.cache, &stats);
  return stats.bytes_held;
}

/* Root devices ignore retain and release; a sub-device counts. */
static cl_uint device_references(cl_device_id device) {
  cl_uint count = 0;
  if (device) clGetDeviceInfo(device, CL_DEVICE_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

/* ---- operations ---- */

/* clgpu_status_name and clgpu_status_string on any int: never NULL, never
 * empty, unknown together, and no change to the detail message. */
void op_status_names(fuzz_run *run) {
  int code = take_int(&run->in);
  char call[96];
  snprintf(call, sizeof call, "clgpu_status_name/clgpu_status_string(%d)", code);
  prime_last_error();
  const char *name = clgpu_status_name(code);
  const char *text = clgpu_status_string(code);
  if (!name || !*name || !text || !*text) violation(call, "gave a NULL or empty string");
  int unknown_name = strcmp(name, "CLGPU_UNKNOWN_STATUS") == 0;
  int unknown_text = strcmp(text, "unknown status code") == 0;
  if (unknown_name != unknown_text) {
    violation(call, "name \"%s\" and text \"%s\" disagree", name, text);
  }
  if (!unknown_name && strncmp(name, "CLGPU_", 6) != 0 && strncmp(name, "CL_", 3) != 0) {
    violation(call, "name \"%s\" is neither CLGPU_ nor CL_", name);
  }
  if (is_opencl_code(code) && unknown_name) violation(call, "an OpenCL code has no name");
  check_message_untouched(call);
}

/* The accessors on NULL give NULL; on the long-lived context they give what
 * they gave at setup; the calls that cannot fail leave the message alone. */
void op_accessors(fuzz_run *run) {
  (void)run;
  const char *call = "the accessors";
  prime_last_error();
  if (clgpu_context_cl_context(NULL) || clgpu_context_device(NULL) || clgpu_context_queue(NULL) ||
      clgpu_context_device_info(NULL) || clgpu_context_cache_dir(NULL) ||
      clgpu_program_cl_program(NULL)) {
    violation(call, "an accessor gave non-NULL for a NULL argument");
  }
  clgpu_context_destroy(NULL);
  clgpu_kernel_release(NULL, NULL);
  clgpu_kernel_release(world.program, NULL);
  const clgpu_device_info *info = clgpu_context_device_info(world.context);
  if (!info || !info->extensions || !clgpu_context_cl_context(world.context) ||
      !clgpu_context_device(world.context) || !clgpu_context_queue(world.context)) {
    violation(call, "the long-lived context lost one of its objects");
  }
  if (clgpu_context_cache_dir(world.context)) {
    violation(call, "the long-lived context, made with the disk cache off, has a cache folder");
  }
  if (!clgpu_program_cl_program(world.program)) {
    violation(call, "the fixed program has no cl_program");
  }
  if (!clgpu_version() || strcmp(clgpu_version(), CLGPU_VERSION_STRING) != 0 ||
      clgpu_version_number() != CLGPU_VERSION_NUMBER) {
    violation(call, "the run-time version is not the headers' version");
  }
  check_message_untouched(call);
}

/* clgpu_device_list: NUL-terminated within `size`, nothing written past it,
 * a prefix of the full listing, and *needed its length plus one. */
void op_device_list(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  enum { ROOM = 64, GUARD = 16 };
  char storage[ROOM + GUARD];
  memset(storage, 0xa5, sizeof storage);
  char *buffer = flags & 1 ? NULL : storage;
  size_t size = buffer ? take_byte(&run->in) % (ROOM + 1) : take_count(&run->in);
  size_t needed = 12345;
  size_t *needed_out = flags & 2 ? NULL : &needed;
  char call[128];
  snprintf(call, sizeof call, "clgpu_device_list(%s, %zu, %s)", buffer ? "buffer" : "NULL", size,
           needed_out ? "&needed" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_device_list(buffer, size, needed_out);
  check_call(call, status, STATUS_SET(list_statuses, 0), 0);
  expect_status(call, status, !buffer && size > 0 ? CLGPU_INVALID_ARGUMENT : CLGPU_SUCCESS,
                "only a NULL buffer with a size is an error");
  size_t written = buffer ? size : 0;
  for (size_t i = written; i < sizeof storage; i++) {
    if ((unsigned char)storage[i] != 0xa5) violation(call, "wrote byte %zu, past the size", i);
  }
  if (status != CLGPU_SUCCESS) return;
  if (needed_out && needed != world.listing_length + 1) {
    violation(call, "*needed is %zu, the listing needs %zu", needed, world.listing_length + 1);
  }
  if (written == 0) return;
  const char *end = memchr(buffer, '\0', size);
  if (!end) violation(call, "the buffer is not NUL-terminated within its %zu bytes", size);
  size_t length = (size_t)(end - buffer);
  size_t expected = world.listing_length < size - 1 ? world.listing_length : size - 1;
  if (length != expected || memcmp(buffer, world.listing, length) != 0) {
    violation(call, "wrote %zu bytes that are not the first %zu of the listing", length, expected);
  }
}

/* What the header fixes for some selectors, whatever the machine: the default
 * and the first device exist (the long-lived context is on one), malformed
 * indexes are malformed, and no device has index 999999999 or a name of 300
 * a's. */
static int selector_expectation(const char *selector, clgpu_status *expected) {
  static const struct {
    const char *text;
    clgpu_status status;
  } rows[] = {
      {"", CLGPU_SUCCESS},
      {" ", CLGPU_SUCCESS},
      {"\t\r\n\v\f", CLGPU_SUCCESS},
      {"0", CLGPU_SUCCESS},
      {"0:0", CLGPU_SUCCESS},
      {" 0:0\n", CLGPU_SUCCESS},
      {"00000000000000000", CLGPU_SUCCESS},
      {"1:", CLGPU_INVALID_DEVICE_SELECTOR},
      {":0", CLGPU_INVALID_DEVICE_SELECTOR},
      {":", CLGPU_INVALID_DEVICE_SELECTOR},
      {"0::0", CLGPU_INVALID_DEVICE_SELECTOR},
      {"0:0:0", CLGPU_INVALID_DEVICE_SELECTOR},
      {"999999999", CLGPU_NO_DEVICE},
      {"0:999999999", CLGPU_NO_DEVICE},
      {"%s%s%n%x", CLGPU_NO_DEVICE},
  };
  if (!selector) {
    *expected = CLGPU_SUCCESS;
    return 1;
  }
  if (selector == long_identifier || selector == huge_text) {
    *expected = CLGPU_NO_DEVICE;
    return 1;
  }
  for (size_t i = 0; i < COUNT_OF(rows); i++) {
    if (strcmp(selector, rows[i].text) == 0) {
      *expected = rows[i].status;
      return 1;
    }
  }
  return 0;
}

/* clgpu_device_select: on success a device of that platform; on failure
 * every out-parameter given holds NULL ("On failure *platform and *device are
 * NULL"). */
void op_device_select(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  char buffer[MAX_TEXT + 1];
  const char *selector = TAKE_TEXT(&run->in, selector_words, buffer);
  cl_platform_id platform = STALE_PLATFORM;
  cl_device_id device = STALE_DEVICE;
  cl_platform_id *platform_out = flags & 1 ? NULL : &platform;
  cl_device_id *device_out = flags & 2 ? NULL : &device;
  char shown[128], call[192];
  snprintf(call, sizeof call, "clgpu_device_select(%s, %s, %s)", quoted(selector, shown),
           platform_out ? "&platform" : "NULL", device_out ? "&device" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_device_select(selector, platform_out, device_out);
  check_call(call, status, STATUS_SET(select_statuses, 0), 0);
  clgpu_status expected;
  if (!platform_out || !device_out) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "an out-parameter is NULL");
  } else if (selector_expectation(selector, &expected)) {
    expect_status(call, status, expected, "the selector's meaning is fixed by the header");
  }
  if (status != CLGPU_SUCCESS) {
    if (platform_out && platform) violation(call, "left *platform non-NULL on failure");
    if (device_out && device) violation(call, "left *device non-NULL on failure");
    return;
  }
  if (!platform || !device || platform == STALE_PLATFORM || device == STALE_DEVICE) {
    violation(call, "succeeded without a platform and a device");
  }
  cl_platform_id owner = NULL;
  clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof owner, &owner, NULL);
  if (owner != platform) violation(call, "the device is not on the platform given with it");
}

/* A context made or wrapped successfully: its objects, its facts, its queue's
 * profiling, and its cache folder (none unless a folder under the scratch
 * folder was asked for with the cache on). */
static void check_new_context(const char *call, clgpu_context *made,
                              const clgpu_context_options *options, cl_context context,
                              cl_device_id device, cl_command_queue queue) {
  if (!made || made == STALE_CONTEXT) violation(call, "succeeded without a context");
  const clgpu_device_info *info = clgpu_context_device_info(made);
  if (!info || !info->extensions) violation(call, "the context has no device facts");
  const char *const strings[] = {
      info->platform_name,  info->platform_version, info->name, info->vendor, info->device_version,
      info->driver_version, info->opencl_c_version};
  for (size_t i = 0; i < COUNT_OF(strings); i++) {
    if (!memchr(strings[i], '\0', sizeof info->name)) violation(call, "a fact is not terminated");
  }
  cl_context made_context = clgpu_context_cl_context(made);
  cl_device_id made_device = clgpu_context_device(made);
  cl_command_queue made_queue = clgpu_context_queue(made);
  if (!made_context || !made_device || !made_queue) violation(call, "an OpenCL object is missing");
  if ((context && made_context != context) || (device && made_device != device)) {
    violation(call, "the context does not hold the objects it was given");
  }
  if (queue && made_queue != queue) violation(call, "the context does not use the queue given");
  if (!queue) {
    cl_command_queue_properties properties = 0;
    cl_context queue_context = NULL;
    clGetCommandQueueInfo(made_queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL);
    clGetCommandQueueInfo(made_queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, NULL);
    int profiling = (properties & CL_QUEUE_PROFILING_ENABLE) != 0;
    if (profiling != !(options && options->disable_profiling)) {
      violation(call, "the queue's profiling is %s, the options asked otherwise",
                profiling ? "on" : "off");
    }
    if (queue_context != made_context) violation(call, "the queue is not on the context");
  }
  const char *folder = clgpu_context_cache_dir(made);
  const char *requested = options ? options->cache_dir : NULL;
  int must_be_off = !options || options->disk_cache == CLGPU_DISK_CACHE_OFF || !requested ||
                    !*requested || strcmp(requested, "off") == 0;
  if (folder && must_be_off) violation(call, "the disk cache is on at \"%s\"", folder);
  if (folder && strcmp(folder, requested) != 0) {
    violation(call, "the cache folder is \"%s\", not the one asked for", folder);
  }
  if (folder && !is_folder(folder)) {
    violation(call, "the cache folder \"%s\" is not a folder", folder);
  }
}

static void take_options(byte_reader *in, clgpu_context_options *options,
                         char buffer[MAX_TEXT + 1]) {
  memset(options, 0, sizeof *options); /* build_log and the reserved fields too */
  options->device = TAKE_TEXT(in, selector_words, buffer);
  options->disable_profiling = take_int(in);
  /* Any int, in or out of the enum's range. */
  options->disk_cache = (clgpu_disk_cache_mode)take_int(in);
  options->cache_dir = take_cache_dir(in);
}

/* clgpu_context_create: *out is NULL on failure; a made context is checked
 * and destroyed. At most CREATES_PER_INPUT calls that can make one run per
 * input, because making a context takes milliseconds. */
void op_context_create(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  char buffer[MAX_TEXT + 1];
  clgpu_context_options storage;
  take_options(&run->in, &storage, buffer);
  const clgpu_context_options *options = flags & 1 ? NULL : &storage;
  clgpu_context *made = STALE_CONTEXT;
  clgpu_context **out = flags & 2 ? NULL : &made;
  if (out && run->creates++ >= CREATES_PER_INPUT) return;
  char shown[128], folder[128], call[384];
  if (options) {
    snprintf(call, sizeof call,
             "clgpu_context_create({device %s, disable_profiling %d, cache_dir %s, disk_cache "
             "%d}, %s)",
             quoted(options->device, shown), options->disable_profiling,
             quoted(options->cache_dir, folder), (int)options->disk_cache, out ? "&out" : "NULL");
  } else {
    snprintf(call, sizeof call, "clgpu_context_create(NULL, %s)", out ? "&out" : "NULL");
  }
  prime_last_error();
  clgpu_status status = clgpu_context_create(options, out);
  check_call(call, status, STATUS_SET(create_statuses, 1), 0);
  clgpu_status expected;
  if (!out) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "out is NULL");
    return;
  }
  /* A selector that names a device may still fail with OpenCL's codes when
   * the context or queue cannot be made; the header allows those. */
  if (options && options->device && selector_expectation(options->device, &expected) &&
      !(expected == CLGPU_SUCCESS && is_opencl_code(status))) {
    expect_status(call, status, expected, "the selector's meaning is fixed by the header");
  }
  if (status != CLGPU_SUCCESS) {
    if (made) violation(call, "left *out non-NULL on failure");
    return;
  }
  check_new_context(call, made, options, NULL, NULL, NULL);
  clgpu_context_destroy(made);
}

/* The objects clgpu_context_wrap is given: always valid handles or NULL.
 * Passing a released OpenCL handle is undefined behaviour in the ICD loader
 * (it reads the dispatch table through the handle), so no call ever gets
 * one. Which objects belong together is known from how they were made, not
 * asked of OpenCL. */
static int device_in_context(cl_device_id device, cl_context context) {
  cl_device_id main_device = clgpu_context_device(world.context);
  if (device == main_device) {
    return context == clgpu_context_cl_context(world.context) ||
           context == clgpu_context_cl_context(world.other);
  }
  return device == world.sub_device && context == world.sub_context;
}

static void queue_owner(cl_command_queue queue, cl_context *context, cl_device_id *device) {
  if (queue == world.sub_queue) {
    *context = world.sub_context;
    *device = world.sub_device;
    return;
  }
  const clgpu_context *owner =
      queue == clgpu_context_queue(world.context) ? world.context : world.other;
  *context = clgpu_context_cl_context(owner);
  *device = clgpu_context_device(owner);
}

/* clgpu_context_wrap: the exact status follows from which objects belong
 * together; on failure nothing is retained, and a wrapped context holds one
 * reference to each object and gives it back when destroyed. */
void op_context_wrap(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  uint8_t extra = take_byte(&run->in);
  cl_context contexts[] = {NULL, clgpu_context_cl_context(world.context),
                           clgpu_context_cl_context(world.other), world.sub_context};
  cl_device_id devices[] = {NULL, clgpu_context_device(world.context), world.sub_device};
  cl_command_queue queues[] = {NULL, clgpu_context_queue(world.context),
                               clgpu_context_queue(world.other), world.sub_queue};
  cl_context context = contexts[flags & 3];
  cl_device_id device = devices[((flags >> 2) & 3) % 3];
  cl_command_queue queue = queues[(flags >> 4) & 3];
  char buffer[MAX_TEXT + 1];
  clgpu_context_options storage;
  take_options(&run->in, &storage, buffer);
  const clgpu_context_options *options = extra & 1 ? NULL : &storage;
  clgpu_context *made = STALE_CONTEXT;
  clgpu_context **out = extra & 2 ? NULL : &made;

  clgpu_status expected = CLGPU_SUCCESS;
  if (!out || !context || !device) {
    expected = CLGPU_INVALID_ARGUMENT;
  } else if (!device_in_context(device, context)) {
    expected = CLGPU_MISMATCHED_OBJECTS;
  } else if (queue) {
    cl_context queue_context = NULL;
    cl_device_id queue_device = NULL;
    queue_owner(queue, &queue_context, &queue_device);
    if (queue_context != context || queue_device != device) expected = CLGPU_MISMATCHED_OBJECTS;
  }
  char folder[128], call[320];
  snprintf(call, sizeof call,
           "clgpu_context_wrap(context #%d, device #%d, queue #%d, options %s (cache_dir %s, "
           "disk_cache %d, disable_profiling %d), %s)",
           flags & 3, ((flags >> 2) & 3) % 3, (flags >> 4) & 3, options ? "given" : "NULL",
           quoted(storage.cache_dir, folder), (int)storage.disk_cache, storage.disable_profiling,
           out ? "&out" : "NULL");

  cl_uint context_before = context_references(context);
  cl_uint queue_before = queue_references(queue);
  cl_device_id counted_device = device == world.sub_device ? device : NULL;
  cl_uint device_before = device_references(counted_device);
  uint64_t held_before = cache_bytes_held();
  prime_last_error();
  clgpu_status status = clgpu_context_wrap(context, device, queue, options, out);
  check_call(call, status, STATUS_SET(wrap_statuses, 1), 0);
  if (status != expected && !(expected == CLGPU_SUCCESS && is_opencl_code(status))) {
    expect_status(call, status, expected, "the objects given decide it");
  }
  if (status == CLGPU_SUCCESS) {
    check_new_context(call, made, options, context, device, queue);
    /* A queue clgpu makes holds a reference to its context too (in POCL at
     * least), so without a queue given the context count may rise by more. */
    cl_uint context_now = context_references(context);
    if ((queue ? context_now != context_before + 1 : context_now < context_before + 1) ||
        (queue && queue_references(queue) != queue_before + 1) ||
        (counted_device && device_references(counted_device) != device_before + 1)) {
      violation(call, "the wrapped context does not hold exactly one reference to each object");
    }
    clgpu_context_destroy(made);
  } else if (out && made) {
    violation(call, "left *out non-NULL on failure");
  }
  /* Destroying the last clgpu context over a cl_context hands the
   * allocation cache's free blocks of that cl_context back to OpenCL
   * (alloc.h), and each held a reference to it: the context's count may then
   * fall, by no more than the blocks given back, and only when the cache
   * held fewer bytes afterwards. Which blocks are free at that moment
   * depends on when earlier commands completed. */
  cl_uint context_after = context_references(context);
  int handed_back = context_after < context_before && cache_bytes_held() < held_before;
  if ((context_after != context_before && !handed_back) ||
      queue_references(queue) != queue_before ||
      device_references(counted_device) != device_before) {
    violation(call, "reference counts changed: context %u -> %u, queue %u -> %u, device %u -> %u",
              context_before, context_after, queue_before, queue_references(queue), device_before,
              device_references(counted_device));
  }
}
