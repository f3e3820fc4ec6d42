/* The harness of the public API's fuzz target (harness.h describes the
 * target): the input reader, the long-lived context and program, the checks
 * every call is held to, setup and teardown, the buffers views are made
 * over, and the opcode dispatch that calls the families' operations. */
#include "harness.h"

static void remove_tree_at(int parent, const char *name, int depth);
static void arrays_setup(void);
static void arrays_teardown(void);

/* The most operations one input runs, to keep it cheap. */
#define MAX_OPS 64

fuzz_world world;

/* Long arguments: an identifier longer than any token buffer, and a text
 * longer than the 16 KiB detail message, so that the messages that quote them
 * are cut. Filled in at setup. */
char long_identifier[LONG_LENGTH + 1];
char huge_text[HUGE_LENGTH + 1];
char long_define_option[LONG_LENGTH + 3];

/* Addresses that are not OpenCL handles: written into out-parameters before a
 * call so that a failed call that leaves them alone is seen. Never passed to
 * OpenCL. */
char not_a_handle;

/* ---- reading the input ---- */

uint8_t take_byte(byte_reader *in) { return in->used < in->size ? in->data[in->used++] : 0; }

uint32_t take_u32(byte_reader *in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; i++) value |= (uint32_t)take_byte(in) << (8 * i);
  return value;
}

uint64_t take_u64(byte_reader *in) {
  uint64_t value = take_u32(in);
  return value | (uint64_t)take_u32(in) << 32;
}

/* A count: mostly small, often at the edges of size_t and int. */
size_t take_count(byte_reader *in) {
  uint8_t kind = take_byte(in) % 8;
  switch (kind) {
    case 0:
      return 0;
    case 1:
      return take_byte(in);
    case 2:
      return SIZE_MAX;
    case 3:
      return SIZE_MAX - take_byte(in);
    case 4:
      return (size_t)1 << (take_byte(in) % (sizeof(size_t) * CHAR_BIT));
    case 5:
      return (size_t)INT_MAX + take_byte(in);
    case 6:
      return (size_t)take_u64(in);
    default:
      return SIZE_MAX / 2 + take_byte(in);
  }
}

/* An int: small values, OpenCL's band, clgpu's band, and both ends. */
int take_int(byte_reader *in) {
  uint8_t kind = take_byte(in) % 8;
  switch (kind) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return INT_MIN;
    case 2:
      return INT_MAX;
    case 3:
      return -2000 - (int)take_byte(in);
    case 4: {
      uint32_t bits = take_u32(in);
      int32_t value;
      memcpy(&value, &bits, sizeof value);
      return value;
    }
    case 5:
      return -(int)take_byte(in);
    case 6:
      return INT_MIN + (int)take_byte(in);
    default:
      return INT_MAX - (int)take_byte(in);
  }
}

/* A string argument: NULL, raw bytes into `buffer`, or a dictionary entry. */
const char *take_text(byte_reader *in, const char *const *dictionary, size_t count,
                      char buffer[MAX_TEXT + 1]) {
  uint8_t head = take_byte(in);
  if (head == 0) return NULL;
  if (head >= 0x80) return dictionary[(size_t)(head - 0x80) % count];
  size_t length = (size_t)head - 1;
  if (length > MAX_TEXT) length = MAX_TEXT;
  for (size_t i = 0; i < length; i++) buffer[i] = (char)take_byte(in);
  buffer[length] = '\0';
  return buffer;
}

/* The fixed valid source: kernel "k", with a value a define may change. */
const char fixed_source[] =
    "#ifndef FUZZ_VALUE\n"
    "#define FUZZ_VALUE 1\n"
    "#endif\n"
    "__kernel void k(__global int *out) { out[get_global_id(0)] = FUZZ_VALUE; }\n";

/* ---- reporting ---- */

/* A string as a report can show it: quoted, escaped, cut. */
const char *quoted(const char *text, char out[128]) {
  if (!text) return "NULL";
  size_t used = 0, length = strlen(text), shown = 0;
  out[used++] = '"';
  for (; shown < length && used < 100; shown++) {
    unsigned char c = (unsigned char)text[shown];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out[used++] = (char)c;
    } else {
      used += (size_t)snprintf(out + used, 128 - used, "\\x%02x", c);
    }
  }
  out[used++] = '"';
  if (shown < length) used += (size_t)snprintf(out + used, 128 - used, "...(%zu bytes)", length);
  out[used < 128 ? used : 127] = '\0';
  return out;
}

void violation(const char *call, const char *format, ...) {
  char detail[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof detail, format, args);
  va_end(args);
  char message[128];
  fprintf(stderr, "fuzz_api: contract violated by %s: %s\n  clgpu_last_error(): %s\n", call, detail,
          quoted(clgpu_last_error(), message));
  fflush(stderr);
  /* abort() skips the atexit handler that removes the scratch folder. */
  if (world.scratch) remove_tree_at(AT_FDCWD, world.scratch, 0);
  abort();
}

/* Setup failures are the environment's, not the library's: no OpenCL device,
 * no temporary folder. They end the process without a crash report. */
void setup_failed(const char *what, clgpu_status status) {
  if (status == CLGPU_SUCCESS) {
    fprintf(stderr, "fuzz_api: setup failed: %s\n", what);
  } else {
    fprintf(stderr, "fuzz_api: setup failed: %s: %s (%d): %s\n", what, clgpu_status_name(status),
            (int)status, clgpu_last_error());
  }
  exit(1);
}

/* The codes OpenCL itself defines, as <clgpu/status.h> passes them through. */
int is_opencl_code(clgpu_status status) {
  return (status <= -1 && status >= -19) || (status <= -30 && status >= -72) ||
         status == CLGPU_CL_PLATFORM_NOT_FOUND_KHR;
}

/* The statuses of a call that can only refuse its arguments. */
const clgpu_status plain_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT};

static int documented(clgpu_status status, status_set set) {
  for (size_t i = 0; i < set.count; i++) {
    if (set.codes[i] == status) return 1;
  }
  return set.opencl_codes && is_opencl_code(status);
}

/* The detail message stays until the next failure, so a failure that sets no
 * message would show an older one. Before each call a deliberate failure
 * leaves a known message (the sentinel); afterwards a failure must have
 * replaced it and a success must have left it alone. */
const char sentinel_name[] = "fuzz: sentinel";

void prime_last_error(void) {
  char *source = NULL;
  (void)clgpu_kernel_source(sentinel_name, &source, NULL);
  free(source);
}

/* `may_repeat` is set when the call was given the sentinel's own argument and
 * may legitimately leave the same text. */
void check_call(const char *call, clgpu_status status, status_set set, int may_repeat) {
  if (!documented(status, set)) {
    violation(call, "returned %s (%d), which its header does not document",
              clgpu_status_name(status), (int)status);
  }
  const char *message = clgpu_last_error();
  if (!message) violation(call, "clgpu_last_error() returned NULL");
  if (status == CLGPU_SUCCESS) {
    if (strcmp(message, world.sentinel) != 0) {
      violation(call, "succeeded but changed clgpu_last_error(), which only a failure may set");
    }
  } else {
    if (!*message) {
      violation(call, "failed with %s and an empty message", clgpu_status_name(status));
    }
    if (!may_repeat && strcmp(message, world.sentinel) == 0) {
      violation(call, "failed with %s without setting a message", clgpu_status_name(status));
    }
  }
}

void expect_status(const char *call, clgpu_status status, clgpu_status expected, const char *why) {
  if (status != expected) {
    violation(call, "returned %s, expected %s (%s)", clgpu_status_name(status),
              clgpu_status_name(expected), why);
  }
}

/* No-op calls (destroying NULL, releasing nothing) must not touch the message. */
void check_message_untouched(const char *call) {
  if (strcmp(clgpu_last_error(), world.sentinel) != 0) {
    violation(call, "changed clgpu_last_error() though it cannot fail");
  }
}

/* ---- files and folders, all under the private temporary folder ---- */

/* Make a folder and its parents; errors surface when the folder is used. */
static void make_folders(const char *path) {
  char *copy = strdup(path);
  if (!copy) return;
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(copy, 0755);
    *p = '/';
  }
  mkdir(copy, 0755);
  free(copy);
}

/* Remove a folder and everything under it. It works from folder handles,
 * because the fuzzer makes paths deeper than PATH_MAX, and it restores
 * permissions first, because one folder is made unreadable on purpose. */
static void remove_tree_at(int parent, const char *name, int depth) {
  if (depth > 64) return;
  fchmodat(parent, name, 0700, 0);
  int folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (folder < 0) {
    unlinkat(parent, name, 0);
    return;
  }
  DIR *entries = fdopendir(folder);
  if (!entries) {
    close(folder);
    return;
  }
  struct dirent *entry;
  while ((entry = readdir(entries)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    remove_tree_at(folder, entry->d_name, depth + 1);
  }
  closedir(entries);
  unlinkat(parent, name, AT_REMOVEDIR);
}

/* "folder/name", malloc'd. */
char *join_path(const char *folder, const char *name) {
  size_t size = strlen(folder) + strlen(name) + 2;
  char *path = malloc(size);
  if (!path) setup_failed("out of memory", CLGPU_CL_OUT_OF_HOST_MEMORY);
  snprintf(path, size, "%s/%s", folder, name);
  return path;
}

/* A path under the scratch folder, malloc'd. */
char *scratch_path(const char *tail) { return join_path(world.scratch, tail); }

void write_file(const char *path) {
  int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (descriptor < 0) return;
  (void)!write(descriptor, "fuzz\n", 5);
  close(descriptor);
}

int is_folder(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/* The cache folders a context may be given: NULL, "" and "off" (which mean
 * no disk cache here, because setup sets CLGPU_CACHE_DIR=off), and folders
 * under the scratch folder: fresh ones, deep ones, a regular file, a path
 * through a regular file, one below an unreadable folder, a name longer than
 * NAME_MAX, a path longer than PATH_MAX, and odd spellings. Never a folder
 * outside the scratch folder: the fuzzer must not touch the user's cache. */
static void make_cache_paths(void) {
  world.cache_paths[0] = NULL;
  world.cache_paths[1] = strdup("");
  world.cache_paths[2] = strdup("off");
  world.cache_paths[3] = scratch_path("cache");
  world.cache_paths[4] = scratch_path("cache/deep/er");
  world.cache_paths[5] = scratch_path("file");
  world.cache_paths[6] = scratch_path("file/sub");
  world.cache_paths[7] = scratch_path("locked/sub");
  world.cache_paths[8] = scratch_path(long_identifier);
  char deep[5200];
  size_t used = 0;
  while (used + 201 < sizeof deep) {
    memset(deep + used, 'd', 200);
    deep[used + 200] = '/';
    used += 201;
  }
  deep[used] = '\0';
  world.cache_paths[9] = scratch_path(deep);
  world.cache_paths[10] = scratch_path("cache/../cache");
  world.cache_paths[11] = scratch_path("/cache//");
  for (size_t i = 1; i < CACHE_PATH_CHOICES; i++) {
    if (!world.cache_paths[i]) setup_failed("out of memory", CLGPU_CL_OUT_OF_HOST_MEMORY);
  }
}

/* ---- setup and teardown ---- */

/* The pool keeps the fixed program in slot 0 and the most recently returned
 * programs after it, newest first, so that an input can lease from the
 * program its own previous operation got (choice 2 of op_kernel_acquire). */
void add_to_pool(clgpu_program *program) {
  if (world.pool_count == 0 || program == world.pool[0]) {
    if (world.pool_count == 0) world.pool[world.pool_count++] = program;
    return;
  }
  size_t found = 1;
  while (found < world.pool_count && world.pool[found] != program) found++;
  if (found == world.pool_count && world.pool_count < POOL_SIZE) world.pool_count++;
  if (found == POOL_SIZE) found = POOL_SIZE - 1;
  memmove(&world.pool[2], &world.pool[1], (found - 1) * sizeof world.pool[0]);
  world.pool[1] = program;
}

/* A sub-device, a context and a queue on it: objects that do not belong with
 * the main device, for clgpu_context_wrap's mismatch checks. A device that
 * cannot be partitioned leaves them NULL, and the mismatches are then made
 * with the second context only. */
static void make_sub_device(cl_device_id device) {
  /* Only a device that lists CL_DEVICE_PARTITION_EQUALLY is asked to
   * partition: rusticl (Mesa 22.3) lists no partition type, and its
   * clCreateSubDevices is a null entry that the ICD loader jumps to. */
  cl_device_partition_property listed_types[8] = {0};
  size_t listed_size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_PARTITION_PROPERTIES, sizeof listed_types, listed_types,
                      &listed_size) != CL_SUCCESS) {
    return;
  }
  int equal_parts = 0;
  for (size_t i = 0; i < listed_size / sizeof listed_types[0] && listed_types[i]; i++) {
    equal_parts |= listed_types[i] == CL_DEVICE_PARTITION_EQUALLY;
  }
  if (!equal_parts) return;
  cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint count = 0;
  if (clCreateSubDevices(device, equally, 0, NULL, &count) != CL_SUCCESS || count == 0) return;
  cl_device_id *devices = calloc(count, sizeof *devices);
  if (!devices) return;
  if (clCreateSubDevices(device, equally, count, devices, NULL) != CL_SUCCESS) {
    free(devices);
    return;
  }
  for (cl_uint i = 1; i < count; i++) clReleaseDevice(devices[i]);
  world.sub_device = devices[0];
  free(devices);
  cl_int err = CL_SUCCESS;
  world.sub_context = clCreateContext(NULL, 1, &world.sub_device, NULL, NULL, &err);
  if (err == CL_SUCCESS) {
    world.sub_queue = clCreateCommandQueue(world.sub_context, world.sub_device, 0, &err);
  }
  if (err != CL_SUCCESS) {
    if (world.sub_queue) clReleaseCommandQueue(world.sub_queue);
    if (world.sub_context) clReleaseContext(world.sub_context);
    clReleaseDevice(world.sub_device);
    world.sub_queue = NULL;
    world.sub_context = NULL;
    world.sub_device = NULL;
    return;
  }
  /* POCL 3.1 lists the root device, not the sub-device, among the devices of
   * a context made on a sub-device (CL_CONTEXT_DEVICES), so clgpu, which asks
   * OpenCL, and this fuzzer, which knows how the objects were made, would
   * disagree about every call with that context. Where the platform
   * misreports, only the sub-device itself is kept: it belongs to neither
   * main context, whichever way it is asked. */
  cl_device_id listed[4] = {NULL};
  size_t size = 0;
  err = clGetContextInfo(world.sub_context, CL_CONTEXT_DEVICES, sizeof listed, listed, &size);
  if (err != CL_SUCCESS || size != sizeof listed[0] || listed[0] != world.sub_device) {
    clReleaseCommandQueue(world.sub_queue);
    clReleaseContext(world.sub_context);
    world.sub_queue = NULL;
    world.sub_context = NULL;
  }
}

static void fuzz_teardown(void) {
  if (!world.ready) return; /* never set up, or already torn down */
  algo_teardown();
  membuf_teardown();
  arrays_teardown();
  clgpu_context_destroy(world.context);
  clgpu_context_destroy(world.other);
  world.context = NULL;
  world.other = NULL;
  if (world.sub_queue) clReleaseCommandQueue(world.sub_queue);
  if (world.sub_context) clReleaseContext(world.sub_context);
  if (world.sub_device) clReleaseDevice(world.sub_device);
  if (world.scratch) remove_tree_at(AT_FDCWD, world.scratch, 0);
  free(world.scratch);
  free(world.listing);
  for (size_t i = 0; i < CACHE_PATH_CHOICES; i++) free(world.cache_paths[i]);
  memset(&world, 0, sizeof world);
}

static void make_scratch(void) {
  const char *base = getenv("CLGPU_TEST_TMPDIR");
  if (!base || !*base) base = "/tmp";
  make_folders(base);
  size_t size = strlen(base) + 32;
  world.scratch = malloc(size);
  if (!world.scratch) setup_failed("out of memory", CLGPU_CL_OUT_OF_HOST_MEMORY);
  snprintf(world.scratch, size, "%s/fuzz_api-XXXXXX", base);
  if (!mkdtemp(world.scratch)) setup_failed("mkdtemp under CLGPU_TEST_TMPDIR or /tmp", 0);
  char *file = scratch_path("file");
  write_file(file);
  free(file);
  char *clear = scratch_path("clear");
  mkdir(clear, 0755);
  free(clear);
  /* Unreadable for anyone but root; as root it behaves as a plain folder. */
  char *locked = scratch_path("locked");
  mkdir(locked, 0755);
  chmod(locked, 0);
  free(locked);
}

/* LLVM, which POCL loads for its compiler, installs crash handlers of its own
 * the first time devices are enumerated. When one of them catches abort(), it
 * puts back the handler it found and returns, and abort() then ends the
 * process with the default action: libFuzzer, which installs its handlers
 * after LLVMFuzzerInitialize and leaves foreign ones in place, would never see
 * a violation and would save no reproducer. So the handlers found before the
 * first OpenCL call are put back after setup. */
static const int crash_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL};

static void fuzz_setup(void) {
  if (world.ready) return;
  world.ready = 1;
  struct sigaction crash_handlers[COUNT_OF(crash_signals)];
  for (size_t i = 0; i < COUNT_OF(crash_signals); i++) {
    sigaction(crash_signals[i], NULL, &crash_handlers[i]);
  }
  /* Calls given no cache folder fall back to CLGPU_CACHE_DIR and then to the
   * user's ~/.cache/clgpu; "off" keeps every such call away from it. Set
   * before the first OpenCL call, while the process has one thread. */
  setenv("CLGPU_CACHE_DIR", "off", 1);
  memset(long_identifier, 'a', LONG_LENGTH);
  memset(huge_text, 'x', HUGE_LENGTH);
  snprintf(long_define_option, sizeof long_define_option, "-D%s", long_identifier);
  make_scratch();
  make_cache_paths();

  prime_last_error();
  snprintf(world.sentinel, sizeof world.sentinel, "%s", clgpu_last_error());
  if (!world.sentinel[0]) setup_failed("the priming failure left no message", 0);

  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_status status = clgpu_context_create(&options, &world.context);
  if (status != CLGPU_SUCCESS) setup_failed("clgpu_context_create", status);
  status = clgpu_context_create(&options, &world.other);
  if (status != CLGPU_SUCCESS) setup_failed("clgpu_context_create (second)", status);
  if (clgpu_context_device(world.other) != clgpu_context_device(world.context)) {
    setup_failed("the second context is on another device", 0);
  }
  make_sub_device(clgpu_context_device(world.context));

  status = clgpu_program_get(world.context, fixed_source, NULL, 0, NULL, &world.program);
  if (status != CLGPU_SUCCESS) setup_failed("building the fixed program", status);
  world.variant_built[0] = 1;
  add_to_pool(world.program);

  size_t needed = 0;
  status = clgpu_device_list(NULL, 0, &needed);
  if (status != CLGPU_SUCCESS || needed == 0) setup_failed("clgpu_device_list", status);
  world.listing = malloc(needed);
  if (!world.listing) setup_failed("out of memory", CLGPU_CL_OUT_OF_HOST_MEMORY);
  status = clgpu_device_list(world.listing, needed, NULL);
  if (status != CLGPU_SUCCESS) setup_failed("clgpu_device_list", status);
  world.listing_length = strlen(world.listing);
  if (world.listing_length + 1 != needed) setup_failed("clgpu_device_list's needed size", 0);

  if (clgpu_program_cache_stats(world.context, &world.last_stats) != CLGPU_SUCCESS) {
    setup_failed("clgpu_program_cache_stats", 0);
  }
  arrays_setup();
  membuf_setup();
  algo_setup();
  for (size_t i = 0; i < COUNT_OF(crash_signals); i++) {
    sigaction(crash_signals[i], &crash_handlers[i], NULL);
  }
  atexit(fuzz_teardown);
}

/* Release everything setup made, now rather than at exit: an OpenCL runtime
 * may have torn down its own state by the time atexit handlers registered
 * before its lazily made statics run. The atexit handler then finds nothing
 * left to do. */
void fuzz_api_teardown(void) { fuzz_teardown(); }

/* The device every input runs on, for the replay driver's first line. */
const clgpu_device_info *fuzz_api_device_info(void) {
  fuzz_setup();
  return clgpu_context_device_info(world.context);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_setup();
  return 0;
}

void release_lease(fuzz_run *run, size_t index) {
  lease held = run->leases[index];
  prime_last_error();
  clgpu_kernel_release(held.program, held.kernel);
  check_message_untouched("clgpu_kernel_release");
  run->leases[index] = run->leases[--run->lease_count];
  run->stale[run->stale_next] = held;
  run->stale_next = (run->stale_next + 1) % MAX_STALE;
  if (run->stale_count < MAX_STALE) run->stale_count++;
}

void release_all_leases(fuzz_run *run) {
  while (run->lease_count > 0) release_lease(run, run->lease_count - 1);
}

clgpu_cache_stats current_stats(void) {
  clgpu_cache_stats stats;
  memset(&stats, 0, sizeof stats);
  clgpu_program_cache_stats(world.context, &stats);
  return stats;
}

/* ---- the buffers views are made over ---- */

array_world arrays;

cl_mem make_buffer(cl_context context, cl_mem_flags flags, size_t size) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, flags, size, NULL, &err);
  if (err != CL_SUCCESS || !buffer) setup_failed("clCreateBuffer for the array buffers", 0);
  return buffer;
}

/* The buffers, the completed event and the allocation cache. The sub-buffer
 * starts at the device's base-address alignment inside its parent. */
static void arrays_setup(void) {
  cl_context context = clgpu_context_cl_context(world.context);
  cl_device_id device = clgpu_context_device(world.context);
  cl_uint align_bits = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                      NULL) != CL_SUCCESS ||
      clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof arrays.max_alloc,
                      &arrays.max_alloc, NULL) != CL_SUCCESS) {
    setup_failed("clGetDeviceInfo for the array buffers", 0);
  }
  size_t align = align_bits / 8 ? align_bits / 8 : 1;
  if (align > MAX_ROOT_BYTES - 256) setup_failed("the base-address alignment is too large", 0);
  const size_t sizes[BUF_COUNT] = {256, 1000, align + 256, 256, 64, 64};
  for (int i = 0; i < BUF_COUNT; i++) {
    arrays.sizes[i] = sizes[i];
    arrays.roots[i] = i;
  }
  arrays.buffers[BUF_SMALL] = make_buffer(context, CL_MEM_READ_WRITE, sizes[BUF_SMALL]);
  arrays.buffers[BUF_LARGE] = make_buffer(context, CL_MEM_READ_WRITE, sizes[BUF_LARGE]);
  arrays.buffers[BUF_PARENT] = make_buffer(context, CL_MEM_READ_WRITE, sizes[BUF_PARENT]);
  cl_buffer_region region = {align, 256};
  cl_int err = CL_SUCCESS;
  arrays.buffers[BUF_SUB] = clCreateSubBuffer(arrays.buffers[BUF_PARENT], CL_MEM_READ_WRITE,
                                              CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  if (err != CL_SUCCESS) setup_failed("clCreateSubBuffer", 0);
  arrays.roots[BUF_SUB] = BUF_PARENT;
  arrays.origins[BUF_SUB] = align;
  arrays.buffers[BUF_READ_ONLY] = make_buffer(context, CL_MEM_READ_ONLY, sizes[BUF_READ_ONLY]);
  arrays.buffers[BUF_FOREIGN] =
      make_buffer(clgpu_context_cl_context(world.other), CL_MEM_READ_WRITE, sizes[BUF_FOREIGN]);
  arrays.done = clCreateUserEvent(context, &err);
  if (err != CL_SUCCESS || clSetUserEventStatus(arrays.done, CL_COMPLETE) != CL_SUCCESS) {
    setup_failed("clCreateUserEvent", 0);
  }
  clgpu_status status = clgpu_alloc_cache_create(&arrays.cache);
  if (status != CLGPU_SUCCESS) setup_failed("clgpu_alloc_cache_create", status);
}

static void arrays_teardown(void) {
  if (arrays.cache) clgpu_alloc_cache_destroy(arrays.cache);
  if (arrays.done) clReleaseEvent(arrays.done);
  for (int i = BUF_COUNT; i-- > 0;) {
    if (arrays.buffers[i]) clReleaseMemObject(arrays.buffers[i]);
  }
  memset(&arrays, 0, sizeof arrays);
}

static int buffer_index(cl_mem buffer) {
  for (int i = 0; i < BUF_COUNT; i++) {
    if (buffer && arrays.buffers[i] == buffer) return i;
  }
  return -1;
}

static cl_command_queue queue_of_root(int root) {
  return clgpu_context_queue(root == BUF_FOREIGN ? world.other : world.context);
}

clgpu_type take_type(byte_reader *in) {
  uint8_t choice = take_byte(in) % 14;
  if (choice == 12) return (clgpu_type)99;
  if (choice == 13) return (clgpu_type)-1;
  return (clgpu_type)choice;
}

/* 128-bit integers, a GCC and Clang extension, for the model's arithmetic. */
__extension__ typedef __int128 wide;
__extension__ typedef unsigned __int128 unsigned_wide;

#define SATURATION ((wide)1 << 100)

view_facts facts_of(const clgpu_array *view) {
  view_facts facts;
  memset(&facts, 0, sizeof facts);
  int index = view ? buffer_index(view->buffer) : -1;
  if (index < 0) return facts;
  size_t size = clgpu_type_size(view->type);
  if (size == 0 || view->rank > CLGPU_MAX_RANK || view->offset % size != 0) return facts;
  unsigned_wide count = 1;
  for (unsigned d = 0; d < view->rank; d++) {
    count *= view->shape[d];
    if (count > SIZE_MAX) {
      /* An element count past size_t is refused even with an empty
       * dimension later on; the model calls such a view invalid. */
      return facts;
    }
  }
  facts.count = (size_t)count;
  facts.empty = count == 0;
  facts.root = arrays.roots[index];
  wide origin = (wide)arrays.origins[index];
  wide offset = (wide)view->offset;
  wide below = 0, above = 0;
  if (!facts.empty) {
    for (unsigned d = 0; d < view->rank; d++) {
      wide span = (wide)(view->shape[d] - 1) * (wide)view->strides[d];
      if (span > SATURATION) span = SATURATION;
      if (span < -SATURATION) span = -SATURATION;
      span *= (wide)size;
      if (span < 0)
        below += span;
      else
        above += span;
    }
    above += (wide)size;
  }
  if (offset + below < 0 || offset + above > (wide)arrays.sizes[index]) return facts;
  facts.valid = 1;
  facts.offset = (int64_t)(origin + offset);
  facts.first = (int64_t)(origin + offset + below);
  facts.end = (int64_t)(origin + offset + above);
  return facts;
}

/* Calls the element visitor with the byte address (in root coordinates) of
 * every element of a view the model found valid, in row-major order. */
void for_each_element(const clgpu_array *view, const view_facts *facts,
                      void (*visit)(int64_t address, void *state), void *state) {
  if (facts->empty) return;
  size_t index[CLGPU_MAX_RANK] = {0};
  int64_t size = (int64_t)clgpu_type_size(view->type);
  for (;;) {
    int64_t address = facts->offset;
    for (unsigned d = 0; d < view->rank; d++) {
      address += (int64_t)index[d] * (int64_t)view->strides[d] * size;
    }
    visit(address, state);
    unsigned d = view->rank;
    while (d > 0) {
      d--;
      if (++index[d] < view->shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (view->rank == 0) return;
  }
}

void keep_view(array_run *pool, const clgpu_array *view) {
  if (pool->view_count < VIEW_POOL) {
    pool->views[pool->view_count++] = *view;
    return;
  }
  pool->views[pool->view_next] = *view;
  pool->view_next = (pool->view_next + 1) % VIEW_POOL;
}

static void seed_views(array_run *pool) {
  clgpu_array view;
  size_t shape[2] = {8, 8};
  if (clgpu_array_1d(arrays.buffers[BUF_LARGE], 0, CLGPU_TYPE_UINT8, 1000, &view) ==
      CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  if (clgpu_array_1d(arrays.buffers[BUF_SMALL], 0, CLGPU_TYPE_FLOAT, 64, &view) == CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  if (clgpu_array_nd(arrays.buffers[BUF_SUB], 0, CLGPU_TYPE_INT32, 2, shape, CLGPU_ORDER_ROW_MAJOR,
                     &view) == CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  memset(&view, 0, sizeof view);
  keep_view(pool, &view);
}

/* A view of the pool, or NULL (the index one past the pool). */
const clgpu_array *take_view(byte_reader *in, const array_run *pool) {
  size_t choice = take_byte(in) % (pool->view_count + 1);
  return choice == pool->view_count ? NULL : &pool->views[choice];
}

void fill_sentinel(clgpu_array *view) { memset(view, 0x5a, sizeof *view); }

int still_sentinel(const clgpu_array *view) {
  clgpu_array expected;
  fill_sentinel(&expected);
  return memcmp(view, &expected, sizeof expected) == 0;
}

mirrors before_copy, after_copy, model_copy;

static int is_root(int index) { return arrays.roots[index] == index; }

void write_roots(uint8_t seed) {
  for (int r = 0; r < BUF_COUNT; r++) {
    if (!is_root(r)) continue;
    for (size_t i = 0; i < arrays.sizes[r]; i++) {
      before_copy.bytes[r][i] = (uint8_t)(seed + i * 31u + (size_t)r * 77u + (i >> 8));
    }
    if (clEnqueueWriteBuffer(queue_of_root(r), arrays.buffers[r], CL_TRUE, 0, arrays.sizes[r],
                             before_copy.bytes[r], 0, NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueWriteBuffer of a root", 0);
    }
  }
}

void read_roots(void) {
  clFinish(clgpu_context_queue(world.context));
  clFinish(clgpu_context_queue(world.other));
  for (int r = 0; r < BUF_COUNT; r++) {
    if (!is_root(r)) continue;
    if (clEnqueueReadBuffer(queue_of_root(r), arrays.buffers[r], CL_TRUE, 0, arrays.sizes[r],
                            after_copy.bytes[r], 0, NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueReadBuffer of a root", 0);
    }
  }
}

void compare_roots(const char *call, const mirrors *expected, const char *what) {
  for (int r = 0; r < BUF_COUNT; r++) {
    if (!is_root(r)) continue;
    for (size_t i = 0; i < arrays.sizes[r]; i++) {
      if (after_copy.bytes[r][i] != expected->bytes[r][i]) {
        violation(call, "%s: buffer %d byte %zu is %u, expected %u", what, r, i,
                  after_copy.bytes[r][i], expected->bytes[r][i]);
      }
    }
  }
}

/* ---- the input format: opcodes and their dispatch ----
 *
 * An opcode byte is taken modulo OP_COUNT, except the three escape bytes,
 * each followed by a sub-opcode byte taken modulo its table's count. The
 * numbering is the input format, which the checked-in corpus depends on: no
 * entry is ever renumbered or removed. A new operation goes at the end of its
 * enum, before the count; as bytes are taken modulo the count, that changes
 * what the bytes at or past the old count mean (the escapes were added
 * instead of entries for that reason), so the corpus is replayed and checked
 * for it. The checked-in corpus writes every sub-opcode below its table's
 * count, which keeps its meaning when entries are appended. Each entry is an
 * op_* function of a family file (ops_*.c). */

enum {
  OP_STATUS_NAMES,
  OP_ACCESSORS,
  OP_CACHE_STATS,
  OP_KERNEL_SOURCE,
  OP_DEVICE_LIST,
  OP_DEVICE_SELECT,
  OP_PROGRAM_GET,
  OP_PROGRAM_GET_NAMED,
  OP_KERNEL_ACQUIRE,
  OP_KERNEL_RELEASE,
  OP_DISK_CACHE_CLEAR,
  OP_CONTEXT_WRAP,
  OP_CONTEXT_CREATE,
  OP_COUNT
};

typedef void (*fuzz_op)(fuzz_run *run);

static const fuzz_op ops[OP_COUNT] = {
    [OP_STATUS_NAMES] = op_status_names,
    [OP_ACCESSORS] = op_accessors,
    [OP_CACHE_STATS] = op_cache_stats,
    [OP_KERNEL_SOURCE] = op_kernel_source,
    [OP_DEVICE_LIST] = op_device_list,
    [OP_DEVICE_SELECT] = op_device_select,
    [OP_PROGRAM_GET] = op_program_get,
    [OP_PROGRAM_GET_NAMED] = op_program_get_named,
    [OP_KERNEL_ACQUIRE] = op_kernel_acquire,
    [OP_KERNEL_RELEASE] = op_kernel_release,
    [OP_DISK_CACHE_CLEAR] = op_disk_cache_clear,
    [OP_CONTEXT_WRAP] = op_context_wrap,
    [OP_CONTEXT_CREATE] = op_context_create,
};

/* Arrays, copies and allocations, reached through the escape byte 0xfe
 * (OP_ESCAPE_BYTE). No input written before they existed has 0xfe where an
 * opcode is read, so those inputs keep their meaning. They work on a handful
 * of small buffers made once at setup, whose roots are mirrored on the host
 * by the copy operation, and on a per-input pool of views that the
 * operations add to, derive from and corrupt by hand. */
#define OP_ESCAPE_BYTE 0xfe

enum {
  AOP_VIEW_MAKE,
  AOP_VIEW_DERIVE,
  AOP_VIEW_CORRUPT,
  AOP_ALIAS,
  AOP_COPY,
  AOP_BUFFER_CREATE,
  AOP_SCOPE,
  ARRAY_OP_COUNT
};

static const fuzz_op array_ops[ARRAY_OP_COUNT] = {
    [AOP_VIEW_MAKE] = op_view_make,
    [AOP_VIEW_DERIVE] = op_view_derive,
    [AOP_VIEW_CORRUPT] = op_view_corrupt,
    [AOP_ALIAS] = op_alias,
    [AOP_COPY] = op_copy,
    [AOP_BUFFER_CREATE] = op_buffer_create,
    [AOP_SCOPE] = op_scope,
};

/* Buffers across memory spaces, reached through the escape byte 0xfd
 * (OP_MEMBUF_BYTE); again no earlier input has it where an opcode is read.
 * harness_membuf.c describes the model they are checked against. */
#define OP_MEMBUF_BYTE 0xfd

enum {
  MOP_CREATE_HOST,
  MOP_CREATE,
  MOP_CREATE_FIXED,
  MOP_FREE,
  MOP_MOVE,
  MOP_TOUCH,
  MOP_REALLOCATE,
  MOP_ASSIGN,
  MOP_HOST,
  MOP_DEVICE_ARRAY,
  MOP_INFO,
  MOP_NAME,
  MOP_REPORT_SET,
  MOP_REPORT_FORMAT,
  MEMBUF_OP_COUNT
};

static const fuzz_op membuf_ops[MEMBUF_OP_COUNT] = {
    [MOP_CREATE_HOST] = op_membuf_create_host,
    [MOP_CREATE] = op_membuf_create,
    [MOP_CREATE_FIXED] = op_membuf_create_fixed,
    [MOP_FREE] = op_membuf_free,
    [MOP_MOVE] = op_membuf_move,
    [MOP_TOUCH] = op_membuf_touch,
    [MOP_REALLOCATE] = op_membuf_reallocate,
    [MOP_ASSIGN] = op_membuf_assign,
    [MOP_HOST] = op_membuf_host,
    [MOP_DEVICE_ARRAY] = op_membuf_device_array,
    [MOP_INFO] = op_membuf_info,
    [MOP_NAME] = op_membuf_name,
    [MOP_REPORT_SET] = op_membuf_report_set,
    [MOP_REPORT_FORMAT] = op_membuf_report_format,
};

/* Algorithms, elementwise kernels and workspaces, reached through the escape
 * byte 0xfc (OP_ALGORITHM_BYTE); again no earlier input has it where an
 * opcode is read. harness_algo.c describes how their calls are checked. */
#define OP_ALGORITHM_BYTE 0xfc

enum {
  GOP_REDUCE,
  GOP_COUNT_IF,
  GOP_SCAN,
  GOP_FINDALL,
  GOP_SORT,
  GOP_PERMUTATION,
  GOP_GATHER,
  GOP_ELEMENTWISE_CREATE,
  GOP_ELEMENTWISE_RUN,
  GOP_BUILTIN,
  GOP_TRANSFER,
  GOP_QUERY_UPTO,
  GOP_WORKSPACE,
  GOP_WORKSPACE_DESTROY,
  GOP_NAMES,
  GOP_OPAQUE,
  GOP_SEARCH,
  GOP_RUNS,
  GOP_HISTOGRAM,
  GOP_PARTITION,
  ALGO_OP_COUNT
};

static const fuzz_op algorithm_ops[ALGO_OP_COUNT] = {
    [GOP_REDUCE] = op_algo_reduce,
    [GOP_COUNT_IF] = op_algo_count_if,
    [GOP_SCAN] = op_algo_scan,
    [GOP_FINDALL] = op_algo_findall,
    [GOP_SORT] = op_algo_sort,
    [GOP_PERMUTATION] = op_algo_permutation,
    [GOP_GATHER] = op_algo_gather,
    [GOP_ELEMENTWISE_CREATE] = op_algo_elementwise_create,
    [GOP_ELEMENTWISE_RUN] = op_algo_elementwise_run,
    [GOP_BUILTIN] = op_algo_builtin,
    [GOP_TRANSFER] = op_algo_transfer,
    [GOP_QUERY_UPTO] = op_algo_query_upto,
    [GOP_WORKSPACE] = op_algo_workspace,
    [GOP_WORKSPACE_DESTROY] = op_algo_workspace_destroy,
    [GOP_NAMES] = op_algo_names,
    [GOP_OPAQUE] = op_algo_opaque,
    [GOP_SEARCH] = op_algo_search,
    [GOP_RUNS] = op_algo_runs,
    [GOP_HISTOGRAM] = op_algo_histogram,
    [GOP_PARTITION] = op_algo_partition,
};

/* The operation an opcode names, its escape's sub-opcode taken first. */
static fuzz_op take_op(byte_reader *in) {
  uint8_t opcode = take_byte(in);
  switch (opcode) {
    case OP_MEMBUF_BYTE:
      return membuf_ops[take_byte(in) % MEMBUF_OP_COUNT];
    case OP_ESCAPE_BYTE:
      return array_ops[take_byte(in) % ARRAY_OP_COUNT];
    case OP_ALGORITHM_BYTE:
      return algorithm_ops[take_byte(in) % ALGO_OP_COUNT];
    default:
      return ops[opcode % OP_COUNT];
  }
}

/* Every workspace and kernel object an input made is destroyed. */
static void finish_algorithms(void) {
  algo_release_workspaces();
  for (int i = 0; i < ALGO_KERNELS; i++) destroy_kernel(i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_setup();
  /* Static: the view pool makes it too large for a comfortable stack frame. */
  static fuzz_run run;
  memset(&run, 0, sizeof run);
  run.in.data = data;
  run.in.size = size;
  seed_views(&run.pool);
  for (int count = 0; run.in.used < run.in.size && count < MAX_OPS; count++) {
    take_op(&run.in)(&run);
  }
  release_all_leases(&run);
  finish_algorithms();
  finish_arrays(&run.pool);
  finish_membufs();
  return 0;
}
