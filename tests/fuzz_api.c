/* A libFuzzer target for the public API's argument checks. The input bytes
 * are decoded into a sequence of calls with hostile arguments, and every call
 * is held to what its header promises: no crash, no sanitizer report, only a
 * status the header documents for that function, a detail message on every
 * failure (and an untouched one on success), and no change to anything the
 * call should leave alone. A violation prints what happened and aborts, which
 * libFuzzer reports as a crash and which makes tests/fuzz_replay.c, the
 * driver that replays the checked-in corpus as an ordinary test, fail.
 *
 * The input format, so that corpus files can be written by hand: a sequence
 * of operations, each an opcode byte (taken modulo OP_COUNT, see the enum
 * below; the byte 0xfe instead escapes to the array, copy and allocation
 * operations and the byte 0xfd to the operations on buffers across memory
 * spaces, and the byte 0xfc to the algorithms, elementwise kernels and
 * workspaces, each escape's sub-opcode byte following) followed by the bytes its
 * arguments take, in the order each op_* function reads them. Running out
 * of bytes reads zeros. A string argument starts with a byte B: 0 is NULL, 1
 * to 127 is B - 1 raw bytes (at most 64) that follow, and 128 and up is entry
 * B - 128 (modulo its size) of that argument's dictionary.
 *
 * One context made on first use serves every input, with one program built
 * from a fixed source, so that most inputs run in microseconds. Calls that
 * could reach the OpenCL compiler are bounded: a handful of fixed requests
 * build once and are then served from memory, and after NOVEL_BUILD_BUDGET
 * builds of other requests the fuzzer spoils every further such request with
 * a refused build option, so that it does not spend its time in POCL's
 * compiler. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

/* The entry points libFuzzer calls, and the device the replay driver prints. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const clgpu_device_info *fuzz_api_device_info(void);
void fuzz_api_teardown(void);

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

/* Bounds that keep one input cheap and its effects small. */
#define MAX_TEXT 64
#define MAX_OPS 64
#define MAX_LEASES 16
#define MAX_STALE 8
#define MAX_DEFINES 4
#define POOL_SIZE 8
#define CREATES_PER_INPUT 2
#define NOVEL_BUILD_BUDGET 20
#define LONG_LENGTH 300
#define HUGE_LENGTH 20000
#define KNOWN_VARIANTS 15
#define CACHE_PATH_CHOICES 12

/* ---- the long-lived state ---- */

/* Everything made once per process. Programs stay valid until their context
 * is destroyed, so pointers to them can be kept across inputs. */
typedef struct fuzz_world {
  int ready;
  char *scratch;           /* the private temporary folder; nothing is written elsewhere */
  clgpu_context *context;  /* the context every program call uses */
  clgpu_context *other;    /* a second context on the same device */
  clgpu_program *program;  /* the fixed source, no defines, no options: has kernel "k" */
  cl_device_id sub_device; /* a sub-device with a context and queue of its own, when */
  cl_context sub_context;  /* the device can be partitioned; NULL otherwise */
  cl_command_queue sub_queue;
  char *listing; /* the full device listing, for clgpu_device_list's prefixes */
  size_t listing_length;
  char sentinel[512]; /* the message the priming failure leaves */
  char *cache_paths[CACHE_PATH_CHOICES];
  clgpu_program *pool[POOL_SIZE]; /* programs the kernel operations lease from */
  size_t pool_count;
  unsigned novel_builds;
  int variant_built[KNOWN_VARIANTS];
  clgpu_cache_stats last_stats;
} fuzz_world;

static fuzz_world world;

/* Long arguments: an identifier longer than any token buffer, and a text
 * longer than the 16 KiB detail message, so that the messages that quote them
 * are cut. Filled in at setup. */
static char long_identifier[LONG_LENGTH + 1];
static char huge_text[HUGE_LENGTH + 1];
static char long_define_option[LONG_LENGTH + 3];

/* Options are assembled from up to three dictionary entries, and a spoiled
 * request appends one more token; both can hold three huge texts. */
static char options_text[3 * (HUGE_LENGTH + 2) + 1];
static char spoiled_options[sizeof options_text + 32];

/* Addresses that are not OpenCL handles: written into out-parameters before a
 * call so that a failed call that leaves them alone is seen. Never passed to
 * OpenCL. */
static char not_a_handle;
#define STALE_PLATFORM ((cl_platform_id)(void *)&not_a_handle)
#define STALE_DEVICE ((cl_device_id)(void *)&not_a_handle)
#define STALE_CONTEXT ((clgpu_context *)(void *)&not_a_handle)
#define STALE_PROGRAM ((clgpu_program *)(void *)&not_a_handle)
#define STALE_KERNEL ((cl_kernel)(void *)&not_a_handle)
#define STALE_TEXT ((char *)&not_a_handle)

/* ---- reading the input ---- */

typedef struct byte_reader {
  const uint8_t *data;
  size_t size;
  size_t used;
} byte_reader;

static uint8_t take_byte(byte_reader *in) { return in->used < in->size ? in->data[in->used++] : 0; }

static uint32_t take_u32(byte_reader *in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; i++) value |= (uint32_t)take_byte(in) << (8 * i);
  return value;
}

static uint64_t take_u64(byte_reader *in) {
  uint64_t value = take_u32(in);
  return value | (uint64_t)take_u32(in) << 32;
}

/* A count: mostly small, often at the edges of size_t and int. */
static size_t take_count(byte_reader *in) {
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
static int take_int(byte_reader *in) {
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
static const char *take_text(byte_reader *in, const char *const *dictionary, size_t count,
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

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#define TAKE_TEXT(in, dictionary, buffer) \
  take_text((in), (dictionary), COUNT_OF(dictionary), (buffer))

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

static const char *const source_name_words[] = {
    "fill", "FILL",           "fill.cl",       "../fill", "/etc/passwd", "",
    "scan", "fill\n",         "fi ll",         "-",       "_",           "fill-",
    "%s%n", "fuzz: sentinel", long_identifier, huge_text,
};

static const char *const kernel_name_words[] = {
    "k",   "",     "K",    " k", "k ",   "clgpu_fill",    "clgpu_iota",
    "k\n", "%s%n", "main", "kk", "\xff", long_identifier, huge_text,
};

static const char *const define_name_words[] = {
    "FUZZ_VALUE",
    "CLGPU_T",
    "_",
    "x1",
    "1x",
    "",
    "a-b",
    "a b",
    "x\n",
    "\xce\xa9",
    "__OPENCL_VERSION__",
    "defined",
    "k",
    "FUZZ_EMPTY",
    long_identifier,
    huge_text,
};

static const char *const define_value_words[] = {
    "",   "1",  "2",    "uint",        "1\n",  "\r",         "a\rb",  "\"",
    "/*", "\\", "1 \\", "#error fuzz", "%s%n", "0x7fffffff", "(1/0)", huge_text,
};

static const char *const option_words[] = {
    "-w",
    "-Werror",
    "-cl-opt-disable",
    "-cl-mad-enable",
    "-cl-kernel-arg-info",
    "-cl-single-precision-constant",
    "-cl-fast-relaxed-math",
    "-cl-finite-math-only",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-denorms-are-zero",
    "-cl-std=CL2.0",
    "-cl-std",
    "-D",
    "-DX",
    "-D X",
    "-DX=1",
    "-D1",
    "-D=",
    "-I/tmp",
    "-o",
    "  ",
    "\t",
    "\v",
    "\n",
    "-DX=\"",
    "-w\v-cl-std=CL2.0",
    long_define_option,
    long_identifier,
    huge_text,
};

static const char *const source_words[] = {
    "__kernel void k(void) {}\n",
    "__kernel void k(",
    "#error fuzz\n",
    "#include <fuzz_missing.h>\n",
    "__kernel void k(__global int *p) { p[0] = FUZZ_VALUE; }\n",
    "",
    "/*",
    "\xff\xfe",
    "__kernel void k(__global double *p) { p[0] = 1.0; }\n",
    huge_text,
};

/* The fixed valid source: kernel "k", with a value a define may change. */
static const char fixed_source[] =
    "#ifndef FUZZ_VALUE\n"
    "#define FUZZ_VALUE 1\n"
    "#endif\n"
    "__kernel void k(__global int *out) { out[get_global_id(0)] = FUZZ_VALUE; }\n";

/* A source that never builds: a failed build is not cached, so every request
 * for it reaches the compiler and counts against the budget. */
static const char broken_source[] =
    "__kernel void k(__global int *out) { out[0] = fuzz_undefined_name; }\n";

/* The fixed define sets and options of the requests that build once. */
static const clgpu_define value_two[] = {{"FUZZ_VALUE", "2"}};
static const clgpu_define element_uint[] = {{"CLGPU_T", "uint"}};
static const clgpu_define value_three_and_bare[] = {{"FUZZ_VALUE", "3"}, {"FUZZ_EMPTY", NULL}};
static const struct {
  const clgpu_define *defines;
  size_t count;
} known_define_sets[] = {
    {NULL, 0},
    {value_two, 1},
    {element_uint, 1},
    {value_three_and_bare, 2},
};
static const char *const known_options[] = {NULL, "-w", "-cl-opt-disable -DFUZZ_FLAG"};

/* ---- reporting ---- */

/* A string as a report can show it: quoted, escaped, cut. */
static const char *quoted(const char *text, char out[128]) {
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

static void remove_tree_at(int parent, const char *name, int depth);

static void violation(const char *call, const char *format, ...) {
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
static void setup_failed(const char *what, clgpu_status status) {
  if (status == CLGPU_SUCCESS) {
    fprintf(stderr, "fuzz_api: setup failed: %s\n", what);
  } else {
    fprintf(stderr, "fuzz_api: setup failed: %s: %s (%d): %s\n", what, clgpu_status_name(status),
            (int)status, clgpu_last_error());
  }
  exit(1);
}

/* ---- the contract every call is held to ---- */

typedef struct status_set {
  const clgpu_status *codes;
  size_t count;
  int opencl_codes; /* the header also allows "OpenCL's codes" */
} status_set;

#define STATUS_SET(array, opencl) ((status_set){(array), COUNT_OF(array), (opencl)})

static const clgpu_status select_statuses[] = {CLGPU_SUCCESS, CLGPU_NO_PLATFORM, CLGPU_NO_DEVICE,
                                               CLGPU_INVALID_DEVICE_SELECTOR,
                                               CLGPU_INVALID_ARGUMENT};
static const clgpu_status create_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                               CLGPU_NO_PLATFORM, CLGPU_NO_DEVICE,
                                               CLGPU_INVALID_DEVICE_SELECTOR};
static const clgpu_status wrap_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                             CLGPU_MISMATCHED_OBJECTS};
static const clgpu_status program_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                CLGPU_FORBIDDEN_BUILD_OPTION,
                                                CLGPU_CL_BUILD_PROGRAM_FAILURE};
/* clgpu_program_get_named adds what clgpu_kernel_source can give. */
static const clgpu_status named_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_FORBIDDEN_BUILD_OPTION,
    CLGPU_CL_BUILD_PROGRAM_FAILURE, CLGPU_KERNEL_SOURCE_NOT_FOUND};
static const clgpu_status acquire_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                CLGPU_CL_INVALID_KERNEL_NAME};
static const clgpu_status source_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                               CLGPU_KERNEL_SOURCE_NOT_FOUND,
                                               CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status list_statuses[] = {CLGPU_SUCCESS, CLGPU_NO_PLATFORM,
                                             CLGPU_INVALID_ARGUMENT};
static const clgpu_status clear_statuses[] = {CLGPU_SUCCESS, CLGPU_IO_ERROR,
                                              CLGPU_INVALID_ARGUMENT};
static const clgpu_status stats_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT};

/* The codes OpenCL itself defines, as <clgpu/status.h> passes them through. */
static int is_opencl_code(clgpu_status status) {
  return (status <= -1 && status >= -19) || (status <= -30 && status >= -72) ||
         status == CLGPU_CL_PLATFORM_NOT_FOUND_KHR;
}

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
static const char sentinel_name[] = "fuzz: sentinel";

static void prime_last_error(void) {
  char *source = NULL;
  (void)clgpu_kernel_source(sentinel_name, &source, NULL);
  free(source);
}

/* `may_repeat` is set when the call was given the sentinel's own argument and
 * may legitimately leave the same text. */
static void check_call(const char *call, clgpu_status status, status_set set, int may_repeat) {
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

static void expect_status(const char *call, clgpu_status status, clgpu_status expected,
                          const char *why) {
  if (status != expected) {
    violation(call, "returned %s, expected %s (%s)", clgpu_status_name(status),
              clgpu_status_name(expected), why);
  }
}

/* No-op calls (destroying NULL, releasing nothing) must not touch the message. */
static void check_message_untouched(const char *call) {
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
static char *join_path(const char *folder, const char *name) {
  size_t size = strlen(folder) + strlen(name) + 2;
  char *path = malloc(size);
  if (!path) setup_failed("out of memory", CLGPU_CL_OUT_OF_HOST_MEMORY);
  snprintf(path, size, "%s/%s", folder, name);
  return path;
}

/* A path under the scratch folder, malloc'd. */
static char *scratch_path(const char *tail) { return join_path(world.scratch, tail); }

static void write_file(const char *path) {
  int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (descriptor < 0) return;
  (void)!write(descriptor, "fuzz\n", 5);
  close(descriptor);
}

static int file_exists(const char *path) {
  struct stat info;
  return stat(path, &info) == 0;
}

static int is_folder(const char *path) {
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

/* Root devices ignore retain and release; a sub-device counts. */
static cl_uint device_references(cl_device_id device) {
  cl_uint count = 0;
  if (device) clGetDeviceInfo(device, CL_DEVICE_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

/* ---- setup and teardown ---- */

/* The pool keeps the fixed program in slot 0 and the most recently returned
 * programs after it, newest first, so that an input can lease from the
 * program its own previous operation got (choice 2 of op_kernel_acquire). */
static void add_to_pool(clgpu_program *program) {
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

static void arrays_teardown(void);
static void membuf_teardown(void);
static void algo_teardown(void);

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

static void arrays_setup(void);
static void membuf_setup(void);
static void algo_setup(void);

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

  if (clgpu_context_cache_stats(world.context, &world.last_stats) != CLGPU_SUCCESS) {
    setup_failed("clgpu_context_cache_stats", 0);
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

/* ---- one input's state ---- */

typedef struct lease {
  clgpu_program *program;
  cl_kernel kernel;
} lease;

typedef struct fuzz_run {
  byte_reader in;
  lease leases[MAX_LEASES]; /* held: every one is released before the input ends */
  size_t lease_count;
  lease stale[MAX_STALE]; /* released, kept to release again */
  size_t stale_count;
  size_t stale_next;
  int creates;
} fuzz_run;

static int holds(const fuzz_run *run, cl_kernel kernel) {
  for (size_t i = 0; i < run->lease_count; i++) {
    if (run->leases[i].kernel == kernel) return 1;
  }
  return 0;
}

static void release_lease(fuzz_run *run, size_t index) {
  lease held = run->leases[index];
  prime_last_error();
  clgpu_kernel_release(held.program, held.kernel);
  check_message_untouched("clgpu_kernel_release");
  run->leases[index] = run->leases[--run->lease_count];
  run->stale[run->stale_next] = held;
  run->stale_next = (run->stale_next + 1) % MAX_STALE;
  if (run->stale_count < MAX_STALE) run->stale_count++;
}

static void release_all_leases(fuzz_run *run) {
  while (run->lease_count > 0) release_lease(run, run->lease_count - 1);
}

/* ---- operations ---- */

/* clgpu_status_name and clgpu_status_string on any int: never NULL, never
 * empty, unknown together, and no change to the detail message. */
static void op_status_names(fuzz_run *run) {
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
static void op_accessors(fuzz_run *run) {
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

/* clgpu_context_cache_stats: INVALID_ARGUMENT exactly when an argument is
 * NULL, stats untouched then, and counters that never go down. */
static void op_cache_stats(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  const clgpu_context *contexts[] = {NULL, world.context, world.other};
  const clgpu_context *context = contexts[(flags & 3) % 3];
  clgpu_cache_stats stats, before;
  memset(&stats, 0xa5, sizeof stats);
  before = stats;
  clgpu_cache_stats *out = flags & 4 ? NULL : &stats;
  char call[96];
  snprintf(call, sizeof call, "clgpu_context_cache_stats(%s, %s)", context ? "ctx" : "NULL",
           out ? "&stats" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_context_cache_stats(context, out);
  check_call(call, status, STATUS_SET(stats_statuses, 0), 0);
  expect_status(call, status, context && out ? CLGPU_SUCCESS : CLGPU_INVALID_ARGUMENT,
                "only a NULL argument is an error");
  if (status != CLGPU_SUCCESS) {
    if (memcmp(&stats, &before, sizeof stats) != 0) violation(call, "wrote stats on failure");
    return;
  }
  if (context != world.context) return;
  const clgpu_cache_stats *last = &world.last_stats;
  if (stats.memory_hits < last->memory_hits || stats.builds < last->builds ||
      stats.disk_hits < last->disk_hits || stats.disk_writes < last->disk_writes ||
      stats.disk_rejects < last->disk_rejects || stats.kernels_created < last->kernels_created ||
      stats.build_ms < last->build_ms) {
    violation(call, "a counter went down");
  }
  if (stats.disk_hits || stats.disk_writes || stats.disk_rejects) {
    violation(call, "the disk cache is off but its counters moved");
  }
  world.last_stats = stats;
}

/* clgpu_kernel_source: the copy is the caller's and as long as *length says;
 * on failure *source is NULL. */
static void op_kernel_source(fuzz_run *run) {
  char buffer[MAX_TEXT + 1];
  const char *name = TAKE_TEXT(&run->in, source_name_words, buffer);
  uint8_t flags = take_byte(&run->in);
  char *source = STALE_TEXT;
  size_t length = SIZE_MAX;
  char **source_out = flags & 1 ? NULL : &source;
  size_t *length_out = flags & 2 ? NULL : &length;
  char shown[128], call[192];
  snprintf(call, sizeof call, "clgpu_kernel_source(%s, %s, %s)", quoted(name, shown),
           source_out ? "&source" : "NULL", length_out ? "&length" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_kernel_source(name, source_out, length_out);
  int may_repeat = name && strcmp(name, sentinel_name) == 0;
  check_call(call, status, STATUS_SET(source_statuses, 0), may_repeat);
  if (!source_out || !name) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "a NULL argument");
  }
  if (!source_out) return;
  if (status != CLGPU_SUCCESS) {
    if (source) violation(call, "left *source non-NULL on failure");
    return;
  }
  if (!source || source == STALE_TEXT) violation(call, "succeeded without a source");
  if (length_out && strlen(source) != length) {
    violation(call, "*length is %zu but the source has %zu bytes", length, strlen(source));
  }
  if (strcmp(name, "fill") == 0 && !strstr(source, "clgpu_fill")) {
    violation(call, "the source of \"fill\" has no clgpu_fill");
  }
  free(source);
}

/* clgpu_device_list: NUL-terminated within `size`, nothing written past it,
 * a prefix of the full listing, and *needed its length plus one. */
static void op_device_list(fuzz_run *run) {
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
static void op_device_select(fuzz_run *run) {
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
  options->device = TAKE_TEXT(in, selector_words, buffer);
  options->disable_profiling = take_int(in);
  /* Any int, in or out of the enum's range. */
  options->disk_cache = (clgpu_disk_cache_mode)take_int(in);
  options->cache_dir = take_cache_dir(in);
}

/* clgpu_context_create: *out is NULL on failure; a made context is checked
 * and destroyed. At most CREATES_PER_INPUT calls that can make one run per
 * input, because making a context takes milliseconds. */
static void op_context_create(fuzz_run *run) {
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
static void op_context_wrap(fuzz_run *run) {
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
  if (context_references(context) != context_before || queue_references(queue) != queue_before ||
      device_references(counted_device) != device_before) {
    violation(call, "reference counts changed: context %u -> %u, queue %u -> %u, device %u -> %u",
              context_before, context_references(context), queue_before, queue_references(queue),
              device_before, device_references(counted_device));
  }
}

/* A decoded clgpu_program_get or clgpu_program_get_named request. */
typedef struct program_request {
  int named;
  clgpu_context *context;
  const char *text; /* the source, or the name */
  const clgpu_define *defines;
  size_t num_defines;
  const char *options;
  int out_null;
  int known;         /* a fixed request: builds once, then comes from memory */
  int variant;       /* which fixed request, when known */
  int null_argument; /* a NULL the header calls invalid */
  clgpu_define storage[MAX_DEFINES];
  /* Room for the raw strings the request is made of. */
  char subject_text[MAX_TEXT + 1];
  char define_texts[2 * MAX_DEFINES][MAX_TEXT + 1];
  char token_text[MAX_TEXT + 1];
} program_request;

static void take_defines(byte_reader *in, program_request *request, int *define_set) {
  uint8_t mode = take_byte(in) % 8;
  *define_set = -1;
  request->defines = NULL;
  request->num_defines = 0;
  if (mode == 0 || (mode >= 3 && mode <= 5)) {
    *define_set = mode == 0 ? 0 : mode - 2;
    request->defines = known_define_sets[*define_set].defines;
    request->num_defines = known_define_sets[*define_set].count;
  } else if (mode == 1) {
    /* A count with no array: the header calls it invalid. */
    request->num_defines = take_count(in);
    if (request->num_defines > 0) request->null_argument = 1;
  } else if (mode == 2) {
    request->defines = request->storage;
  } else {
    request->num_defines = 1 + take_byte(in) % MAX_DEFINES;
    request->defines = request->storage;
    for (size_t i = 0; i < request->num_defines; i++) {
      request->storage[i].name = TAKE_TEXT(in, define_name_words, request->define_texts[2 * i]);
      request->storage[i].value =
          TAKE_TEXT(in, define_value_words, request->define_texts[2 * i + 1]);
    }
  }
}

/* Options: NULL, one of the fixed strings, or up to three dictionary entries
 * or raw strings joined by a separator (possibly none, gluing them). */
static void take_build_options(byte_reader *in, program_request *request, int *option_set) {
  uint8_t mode = take_byte(in) % 8;
  *option_set = -1;
  if (mode < 3) {
    *option_set = mode;
    request->options = known_options[mode];
    return;
  }
  if (mode == 3) {
    request->options = "";
    return;
  }
  static const char *const separators[] = {" ", "\t", "  ", ""};
  const char *separator = separators[take_byte(in) % COUNT_OF(separators)];
  size_t tokens = 1 + take_byte(in) % 3;
  size_t used = 0;
  options_text[0] = '\0';
  for (size_t i = 0; i < tokens; i++) {
    const char *token = TAKE_TEXT(in, option_words, request->token_text);
    if (!token) continue;
    used += (size_t)snprintf(options_text + used, sizeof options_text - used, "%s%s",
                             used ? separator : "", token);
  }
  request->options = options_text;
}

static void describe_request(const program_request *request, char *call, size_t size) {
  char text[128], options[128];
  snprintf(call, size, "%s(%s, %s %s, defines %s (%zu), options %s, %s)",
           request->named ? "clgpu_program_get_named" : "clgpu_program_get",
           request->context ? "ctx" : "NULL", request->named ? "name" : "source",
           quoted(request->text, text), request->defines ? "given" : "NULL", request->num_defines,
           quoted(request->options, options), request->out_null ? "NULL" : "&out");
}

static clgpu_status call_program(const program_request *request, clgpu_program **out) {
  if (request->named) {
    return clgpu_program_get_named(request->context, request->text, request->defines,
                                   request->num_defines, request->options, out);
  }
  return clgpu_program_get(request->context, request->text, request->defines, request->num_defines,
                           request->options, out);
}

static clgpu_cache_stats current_stats(void) {
  clgpu_cache_stats stats;
  memset(&stats, 0, sizeof stats);
  clgpu_context_cache_stats(world.context, &stats);
  return stats;
}

/* Lease a kernel that must exist, check it and give it back. */
static void check_kernel_exists(const char *call, clgpu_program *program, const char *name) {
  cl_kernel kernel = NULL;
  prime_last_error();
  clgpu_status status = clgpu_kernel_acquire(program, name, &kernel);
  if (status != CLGPU_SUCCESS || !kernel) {
    violation(call, "the program it gave has no kernel \"%s\": %s", name,
              clgpu_status_name(status));
  }
  clgpu_kernel_release(program, kernel);
}

/* clgpu_program_get and clgpu_program_get_named on the long-lived context
 * (or NULL). Fixed requests build once; any other request that could reach
 * the compiler is spoiled once the budget is spent. A success must come back
 * from memory when asked again. */
static void op_program(fuzz_run *run, int named) {
  byte_reader *in = &run->in;
  program_request request;
  memset(&request, 0, sizeof request);
  request.named = named;
  uint8_t flags = take_byte(in);
  request.context = flags & 1 ? NULL : world.context;
  request.out_null = (flags & 2) != 0;
  int eligible = 0;
  if (named) {
    request.text = TAKE_TEXT(in, source_name_words, request.subject_text);
    eligible = request.text && strcmp(request.text, "fill") == 0;
  } else {
    uint8_t source = take_byte(in) % 8;
    if (source == 0) {
      request.text = NULL;
    } else if (source <= 3) {
      request.text = fixed_source;
      eligible = 1;
    } else if (source == 4) {
      request.text = broken_source;
    } else if (source == 5) {
      request.text = "";
    } else {
      request.text = TAKE_TEXT(in, source_words, request.subject_text);
    }
  }
  int define_set, option_set;
  take_defines(in, &request, &define_set);
  take_build_options(in, &request, &option_set);
  request.null_argument |= request.out_null || !request.context || !request.text;
  if (eligible && define_set >= 0 && option_set >= 0) {
    /* "fill" builds only with its element type; other sets would fail every
     * time, so they are not fixed requests. */
    if (!named) {
      request.known = 1;
      request.variant = define_set * 3 + option_set;
    } else if (define_set == 2) {
      request.known = 1;
      request.variant = 12 + option_set;
    }
  }
  if (!request.known && world.novel_builds >= NOVEL_BUILD_BUDGET) {
    /* The budget is spent: a refused option keeps this request away from
     * the compiler, whatever its other arguments. */
    snprintf(spoiled_options, sizeof spoiled_options, "%s -fuzz-budget-spent",
             request.options ? request.options : "");
    request.options = spoiled_options;
  }
  char call[512];
  describe_request(&request, call, sizeof call);

  clgpu_cache_stats before = current_stats();
  clgpu_program *program = STALE_PROGRAM;
  prime_last_error();
  clgpu_status status = call_program(&request, request.out_null ? NULL : &program);
  clgpu_cache_stats after = current_stats();
  int may_repeat = named && request.text && strcmp(request.text, sentinel_name) == 0;
  check_call(call, status, named ? STATUS_SET(named_statuses, 1) : STATUS_SET(program_statuses, 1),
             may_repeat);
  uint64_t builds = after.builds - before.builds;
  if (builds > 1) {
    violation(call, "built %llu programs for one request", (unsigned long long)builds);
  }
  if (request.known) {
    if (world.variant_built[request.variant] && builds) {
      violation(call, "built again a program that was already in the cache");
    }
  } else {
    world.novel_builds += (unsigned)builds;
  }
  if (request.null_argument && (status == CLGPU_SUCCESS || is_opencl_code(status) || builds)) {
    violation(call, "a NULL argument reached the compiler (%s)", clgpu_status_name(status));
  }
  if (request.out_null) return;
  if (status != CLGPU_SUCCESS) {
    if (program) violation(call, "left *out non-NULL on failure");
    return;
  }
  if (!program || program == STALE_PROGRAM || !clgpu_program_cl_program(program)) {
    violation(call, "succeeded without a built program");
  }
  if (request.known) world.variant_built[request.variant] = 1;

  clgpu_program *again = STALE_PROGRAM;
  prime_last_error();
  status = call_program(&request, &again);
  clgpu_cache_stats repeated = current_stats();
  check_call(call, status, STATUS_SET(program_statuses, 1), 0);
  if (status != CLGPU_SUCCESS || again != program || repeated.builds != after.builds ||
      repeated.memory_hits != after.memory_hits + 1) {
    violation(call, "asked again, did not come from memory (%s)", clgpu_status_name(status));
  }
  if (request.known) check_kernel_exists(call, program, named ? "clgpu_fill" : "k");
  add_to_pool(program);
}

/* clgpu_kernel_acquire: *kernel NULL on failure; a lease is a kernel of that
 * name and program that no other held lease has. */
static void op_kernel_acquire(fuzz_run *run) {
  uint8_t choice = take_byte(&run->in);
  char buffer[MAX_TEXT + 1];
  const char *name = TAKE_TEXT(&run->in, kernel_name_words, buffer);
  uint8_t flags = take_byte(&run->in);
  clgpu_program *program = choice == 0 ? NULL : world.pool[(choice - 1u) % world.pool_count];
  cl_kernel kernel = STALE_KERNEL;
  cl_kernel *kernel_out = flags & 1 ? NULL : &kernel;
  if (run->lease_count == MAX_LEASES) release_all_leases(run);
  char shown[128], call[256];
  snprintf(call, sizeof call, "clgpu_kernel_acquire(%s, %s, %s)",
           !program                   ? "NULL"
           : program == world.program ? "fixed program"
                                      : "pooled program",
           quoted(name, shown), kernel_out ? "&kernel" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_kernel_acquire(program, name, kernel_out);
  check_call(call, status, STATUS_SET(acquire_statuses, 0), 0);
  if (!program || !name || !kernel_out) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "a NULL argument");
  } else if (program == world.program && strcmp(name, "k") == 0) {
    expect_status(call, status, CLGPU_SUCCESS, "the fixed program has kernel \"k\"");
  }
  if (!kernel_out) return;
  if (status != CLGPU_SUCCESS) {
    if (kernel) violation(call, "left *kernel non-NULL on failure");
    return;
  }
  if (!kernel || kernel == STALE_KERNEL) violation(call, "succeeded without a kernel");
  if (holds(run, kernel)) violation(call, "leased a kernel that is already leased");
  char function[256] = "";
  size_t length = 0;
  clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, NULL, &length);
  if (length <= sizeof function) {
    clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof function, function, NULL);
  }
  if (strcmp(function, name) != 0) violation(call, "leased a kernel named \"%s\"", function);
  cl_program owner = NULL;
  clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL);
  if (owner != clgpu_program_cl_program(program)) {
    violation(call, "leased another program's kernel");
  }
  run->leases[run->lease_count].program = program;
  run->leases[run->lease_count].kernel = kernel;
  run->lease_count++;
}

/* clgpu_kernel_release: a held lease given back; and calls the header says
 * are ignored (NULL arguments, a kernel given to a program it is not leased
 * from, a kernel given back twice), after which later leases must still be
 * exclusive. */
static void op_kernel_release(fuzz_run *run) {
  uint8_t mode = take_byte(&run->in) % 5;
  uint8_t pick = take_byte(&run->in);
  const char *call = "clgpu_kernel_release";
  prime_last_error();
  switch (mode) {
    case 0:
      if (run->lease_count) release_lease(run, pick % run->lease_count);
      break;
    case 1:
      if (run->lease_count) {
        lease held = run->leases[pick % run->lease_count];
        clgpu_program *other = world.pool[(pick / 16u) % world.pool_count];
        if (other != held.program) clgpu_kernel_release(other, held.kernel);
      }
      break;
    case 2:
      if (run->lease_count) {
        lease held = run->leases[pick % run->lease_count];
        clgpu_kernel_release(NULL, held.kernel);
        clgpu_kernel_release(held.program, NULL);
      }
      break;
    case 3:
      /* Only a kernel no held lease has: giving back someone else's current
       * lease would be the caller's error, not a test of the library. */
      if (run->stale_count) {
        lease old = run->stale[pick % run->stale_count];
        if (!holds(run, old.kernel)) clgpu_kernel_release(old.program, old.kernel);
      }
      break;
    default:
      release_all_leases(run);
      break;
  }
  check_message_untouched(call);
}

/* Plant files in the scratch "clear" folder: clgpu's names (which
 * clgpu_disk_cache_clear must remove) and near misses (which it must keep). */
static const char *const planted_names[] = {
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.clgpubin",
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.clgpubin",
    "00000000000000000000000000000000000000000000000000000000000000ff.clgpubin.4242.7.tmp",
};
static const char *const decoy_names[] = {
    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.clgpubin",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde.clgpubin",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0.clgpubin",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.clgpubin.tmp",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.clgpubinx",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.clgpubin.1.tmpx",
    "notes.txt",
};
/* A folder with a cache file's name: it cannot be unlinked. */
static const char cache_named_folder[] =
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.clgpubin";

static void op_disk_cache_clear_planted(fuzz_run *run, size_t *removed_out) {
  uint8_t plant = take_byte(&run->in);
  size_t planted = plant % (COUNT_OF(planted_names) + 1);
  int with_folder = (plant & 0x10) != 0;
  char *folder = scratch_path("clear");
  char *paths[COUNT_OF(planted_names) + COUNT_OF(decoy_names) + 1];
  size_t count = 0;
  for (size_t i = 0; i < planted; i++) {
    paths[count] = join_path(folder, planted_names[i]);
    write_file(paths[count++]);
  }
  for (size_t i = 0; i < COUNT_OF(decoy_names); i++) {
    paths[count] = join_path(folder, decoy_names[i]);
    write_file(paths[count++]);
  }
  char *named_folder = join_path(folder, cache_named_folder);
  if (with_folder) mkdir(named_folder, 0755);

  size_t removed = 12345;
  char call[160];
  snprintf(call, sizeof call, "clgpu_disk_cache_clear(scratch/clear with %zu cache files%s, %s)",
           planted, with_folder ? " and a folder with a cache file's name" : "",
           removed_out ? "&removed" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_disk_cache_clear(folder, removed_out ? &removed : NULL);
  check_call(call, status, STATUS_SET(clear_statuses, 0), 0);
  expect_status(call, status, with_folder ? CLGPU_IO_ERROR : CLGPU_SUCCESS,
                with_folder ? "a folder cannot be removed as a file" : "every file can go");
  if (with_folder && !strstr(clgpu_last_error(), cache_named_folder)) {
    violation(call, "the message does not name what could not be removed");
  }
  if (removed_out && removed != planted) {
    violation(call, "*removed is %zu, %zu files were planted", removed, planted);
  }
  for (size_t i = 0; i < count; i++) {
    int present = file_exists(paths[i]);
    if (i < planted && present) violation(call, "kept its own file %s", paths[i]);
    if (i >= planted && !present) violation(call, "removed a file it does not own: %s", paths[i]);
    unlink(paths[i]);
    free(paths[i]);
  }
  if (with_folder && !is_folder(named_folder)) violation(call, "removed a folder");
  rmdir(named_folder);
  free(named_folder);
  free(folder);
}

/* clgpu_disk_cache_clear on folders under the scratch folder only: NULL would
 * clear the user's real cache, and "" is left out because the context options
 * read "" as "the default folder", a meaning this function might one day
 * share. A missing folder and a path through a regular file are no error. */
static void op_disk_cache_clear(fuzz_run *run) {
  uint8_t choice = take_byte(&run->in);
  size_t removed = 12345;
  size_t *removed_out = choice & 0x80 ? NULL : &removed;
  /* The planted folder, the fixed tails, or a tail from the bytes. */
  static const char *const tails[] = {"missing", "missing/deeper", "file", "file/sub", "locked",
                                      "",        long_identifier,  "clear"};
  size_t kind = (choice & 0x7fu) % (COUNT_OF(tails) + 2);
  if (kind == 0) {
    op_disk_cache_clear_planted(run, removed_out);
    return;
  }
  char raw[MAX_TEXT + 1];
  const char *tail;
  int must_succeed = 1;
  if (kind <= COUNT_OF(tails)) {
    tail = tails[kind - 1];
    /* "locked" is unreadable unless run as root; a name longer than NAME_MAX
     * cannot be opened at all. */
    if (strcmp(tail, "locked") == 0 || tail == long_identifier) must_succeed = 0;
  } else {
    /* A path from the bytes, from letters, digits, '_', '-' and '/' only, so
     * that no ".." leads out of the scratch folder. */
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyz0123456789_-/";
    size_t length = take_byte(&run->in) % (MAX_TEXT + 1);
    for (size_t i = 0; i < length; i++) {
      raw[i] = allowed[take_byte(&run->in) % (sizeof allowed - 1)];
    }
    raw[length] = '\0';
    tail = raw;
    must_succeed = 0;
  }
  char *folder = scratch_path(tail);
  char shown[128], call[224];
  snprintf(call, sizeof call, "clgpu_disk_cache_clear(scratch/%s, %s)", quoted(tail, shown),
           removed_out ? "&removed" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_disk_cache_clear(folder, removed_out);
  free(folder);
  check_call(call, status, STATUS_SET(clear_statuses, 0), 0);
  if (status == CLGPU_INVALID_ARGUMENT) violation(call, "refused a folder that was given");
  if (must_succeed) expect_status(call, status, CLGPU_SUCCESS, "nothing there to fail on");
  if (removed_out && status == CLGPU_SUCCESS && removed != 0) {
    violation(call, "removed %zu files from a folder with none of its files", removed);
  }
}

/* ---- arrays, copies and allocations ----
 *
 * These operations are reached through an escape: the opcode byte 0xfe
 * (OP_ESCAPE_BYTE) followed by a sub-opcode byte (modulo ARRAY_OP_COUNT).
 * No input written before they existed has 0xfe where an opcode is read, so
 * those inputs keep their meaning. They work on a handful of
 * small buffers made once at setup, whose roots are mirrored on the host by
 * the copy operation, and on a per-input pool of views that the operations
 * add to, derive from and corrupt by hand. */

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

#define OP_ESCAPE_BYTE 0xfe
#define MAX_RANK_TAKEN 10
#define MAX_ROOT_BYTES 8192
#define MAX_MODEL_ELEMENTS 4096

/* The buffers views are made over. A sub-buffer's root is its parent. */
enum { BUF_SMALL, BUF_LARGE, BUF_PARENT, BUF_SUB, BUF_READ_ONLY, BUF_FOREIGN, BUF_COUNT };

typedef struct array_world {
  cl_mem buffers[BUF_COUNT];
  size_t sizes[BUF_COUNT];
  int roots[BUF_COUNT];      /* the index of each buffer's root */
  size_t origins[BUF_COUNT]; /* the byte offset of each buffer in its root */
  cl_event done;             /* a completed user event, for wait lists */
  clgpu_alloc_cache *cache;
  cl_ulong max_alloc;
} array_world;

static array_world arrays;

static const clgpu_status view_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                             CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS};
static const clgpu_status reshape_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                CLGPU_RESHAPE_NEEDS_COPY};
static const clgpu_status reinterpret_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                    CLGPU_REINTERPRET_IMPOSSIBLE};
static const clgpu_status broadcast_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                  CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                  CLGPU_BROADCAST_IMPOSSIBLE};
static const clgpu_status copy_statuses[] = {
    CLGPU_SUCCESS,         CLGPU_INVALID_ARGUMENT,   CLGPU_SHAPE_MISMATCH,
    CLGPU_TYPE_MISMATCH,   CLGPU_INVALID_OUTPUT,     CLGPU_MISMATCHED_OBJECTS,
    CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS, CLGPU_CL_BUILD_PROGRAM_FAILURE};
static const clgpu_status buffer_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                               CLGPU_CL_INVALID_BUFFER_SIZE};
static const clgpu_status scope_begin_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status scope_end_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                  CLGPU_ALLOC_SCOPE_MISMATCH};

static cl_mem make_buffer(cl_context context, cl_mem_flags flags, size_t size) {
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

/* ---- taking view arguments ---- */

static cl_mem take_buffer(byte_reader *in) {
  uint8_t choice = take_byte(in) % (BUF_COUNT + 1);
  return choice == BUF_COUNT ? NULL : arrays.buffers[choice];
}

static size_t take_offset(byte_reader *in) {
  switch (take_byte(in) % 7) {
    case 0:
      return take_byte(in);
    case 1:
      return (size_t)take_byte(in) * 8;
    case 2:
      return SIZE_MAX - take_byte(in);
    case 3:
      return take_count(in);
    case 4:
      return (size_t)take_byte(in) | 1u;
    case 5:
      return 1000u - take_byte(in) % 32;
    default:
      return 0;
  }
}

static clgpu_type take_type(byte_reader *in) {
  uint8_t choice = take_byte(in) % 14;
  if (choice == 12) return (clgpu_type)99;
  if (choice == 13) return (clgpu_type)-1;
  return (clgpu_type)choice;
}

static size_t take_extent(byte_reader *in) {
  switch (take_byte(in) % 6) {
    case 0:
      return take_byte(in) % 17;
    case 1:
      return 0;
    case 2:
      return take_count(in);
    case 3:
      return 1;
    case 4:
      return take_byte(in);
    default:
      return 2;
  }
}

static ptrdiff_t take_stride(byte_reader *in) {
  switch (take_byte(in) % 8) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return 0;
    case 2:
      return PTRDIFF_MIN;
    case 3:
      return PTRDIFF_MAX;
    case 4:
      return -(ptrdiff_t)take_byte(in) * 16;
    case 5:
      return 1;
    case 6: {
      uint64_t bits = take_u64(in);
      int64_t value;
      memcpy(&value, &bits, sizeof value);
      return (ptrdiff_t)value;
    }
    default:
      return (ptrdiff_t)(take_byte(in) % 16);
  }
}

static ptrdiff_t take_slice_bound(byte_reader *in) {
  switch (take_byte(in) % 8) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return CLGPU_SLICE_BEGIN;
    case 2:
      return CLGPU_SLICE_END;
    case 3:
      return PTRDIFF_MIN + 1;
    case 4:
      return PTRDIFF_MAX - 1;
    case 5:
      return -(ptrdiff_t)take_byte(in);
    case 6:
      return (ptrdiff_t)(int64_t)take_u64(in);
    default:
      return take_byte(in);
  }
}

static ptrdiff_t take_step(byte_reader *in) {
  switch (take_byte(in) % 7) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return 0;
    case 2:
      return PTRDIFF_MIN;
    case 3:
      return 1;
    case 4:
      return -1;
    case 5:
      return PTRDIFF_MAX;
    default:
      return 2;
  }
}

/* ---- the independent model of a view ---- */

/* What the fuzzer itself computes about a view: whether it is valid (with
 * 128-bit arithmetic, each term saturated far beyond any buffer here), and
 * then its bytes in root coordinates. */
typedef struct view_facts {
  int valid;
  int empty;
  size_t count;
  int root;
  int64_t first; /* bytes from the root's start */
  int64_t end;
  int64_t offset;
} view_facts;

/* 128-bit integers, a GCC and Clang extension, for the model's arithmetic. */
__extension__ typedef __int128 wide;
__extension__ typedef unsigned __int128 unsigned_wide;

#define SATURATION ((wide)1 << 100)

static view_facts facts_of(const clgpu_array *view) {
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

/* A success must have made a view that the model finds valid, that
 * clgpu_array_check passes and whose location is the model's. */
static view_facts check_made_view(const char *call, const clgpu_array *view) {
  view_facts facts = facts_of(view);
  if (!facts.valid) {
    char text[128];
    snprintf(text, sizeof text, "offset %zu, type %d, rank %u", view->offset, (int)view->type,
             view->rank);
    violation(call, "succeeded with a view that reaches outside its buffer or is malformed (%s)",
              text);
  }
  clgpu_status status = clgpu_array_check(view);
  if (status != CLGPU_SUCCESS) {
    violation(call, "made a view that clgpu_array_check refuses with %s",
              clgpu_status_name(status));
  }
  clgpu_location where;
  status = clgpu_array_location(view, &where);
  if (status != CLGPU_SUCCESS) {
    violation(call, "made a view whose location fails with %s", clgpu_status_name(status));
  }
  if (where.base != arrays.buffers[facts.root] || (int64_t)where.offset != facts.offset) {
    violation(call, "made a view located at another root or offset");
  }
  int64_t first = facts.empty ? facts.offset : facts.first;
  int64_t end = facts.empty ? facts.offset : facts.end;
  if ((int64_t)where.first != first || (int64_t)where.end != end) {
    violation(call, "location gives [%zu, %zu), the model [%lld, %lld)", where.first, where.end,
              (long long)first, (long long)end);
  }
  if (where.end > arrays.sizes[facts.root]) violation(call, "location reaches past the root");
  return facts;
}

/* Calls the element visitor with the byte address (in root coordinates) of
 * every element of a view the model found valid, in row-major order. */
static void for_each_element(const clgpu_array *view, const view_facts *facts,
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

/* ---- the per-input pool of views ---- */

#define VIEW_POOL 12

typedef struct held_buffer {
  clgpu_context *context;
  cl_mem buffer;
  int scope; /* the index of the cached scope that owns it, or -1 */
} held_buffer;

#define MAX_HELD_BUFFERS 8
#define MAX_SCOPES 6

typedef struct array_run {
  clgpu_array views[VIEW_POOL];
  size_t view_count;
  size_t view_next;
  held_buffer held[MAX_HELD_BUFFERS];
  size_t held_count;
  clgpu_context *scopes[MAX_SCOPES];
  int scope_cached[MAX_SCOPES];
  size_t scope_count;
} array_run;

static void keep_view(array_run *pool, const clgpu_array *view) {
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
  if (clgpu_array_1d(arrays.buffers[BUF_LARGE], 0, CLGPU_UINT8, 1000, &view) == CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  if (clgpu_array_1d(arrays.buffers[BUF_SMALL], 0, CLGPU_FLOAT, 64, &view) == CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  if (clgpu_array_nd(arrays.buffers[BUF_SUB], 0, CLGPU_INT32, 2, shape, CLGPU_ROW_MAJOR, &view) ==
      CLGPU_SUCCESS) {
    keep_view(pool, &view);
  }
  memset(&view, 0, sizeof view);
  keep_view(pool, &view);
}

/* A view of the pool, or NULL (the index one past the pool). */
static const clgpu_array *take_view(byte_reader *in, const array_run *pool) {
  size_t choice = take_byte(in) % (pool->view_count + 1);
  return choice == pool->view_count ? NULL : &pool->views[choice];
}

static void fill_sentinel(clgpu_array *view) { memset(view, 0x5a, sizeof *view); }

static int still_sentinel(const clgpu_array *view) {
  clgpu_array expected;
  fill_sentinel(&expected);
  return memcmp(view, &expected, sizeof expected) == 0;
}

/* The common ending of every constructor and derivation: the status is
 * documented, a failure left *out alone, a success made a view that holds. */
static void finish_view_call(const char *call, clgpu_status status, status_set set,
                             const clgpu_array *out, int out_given, int out_was_sentinel,
                             const clgpu_array *before, array_run *pool, view_facts *made) {
  check_call(call, status, set, 0);
  if (status != CLGPU_SUCCESS) {
    if (!out_given) return;
    if (out_was_sentinel ? !still_sentinel(out) : memcmp(out, before, sizeof *out) != 0) {
      violation(call, "failed with %s but changed *out", clgpu_status_name(status));
    }
    return;
  }
  if (!out_given) violation(call, "succeeded with a NULL out");
  view_facts facts = check_made_view(call, out);
  if (made) *made = facts;
  keep_view(pool, out);
}

static void op_view_make(byte_reader *in, array_run *pool) {
  uint8_t kind = take_byte(in) % 3;
  uint8_t nulls = take_byte(in) % 8;
  cl_mem buffer = take_buffer(in);
  size_t offset = take_offset(in);
  clgpu_type type = take_type(in);
  unsigned rank = take_byte(in) % MAX_RANK_TAKEN;
  size_t shape[MAX_RANK_TAKEN];
  ptrdiff_t strides[MAX_RANK_TAKEN];
  for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
    shape[d] = d < rank ? take_extent(in) : 0;
    strides[d] = d < rank ? take_stride(in) : 0;
  }
  clgpu_order orders[] = {CLGPU_ROW_MAJOR, CLGPU_COLUMN_MAJOR, (clgpu_order)7};
  clgpu_order order = orders[take_byte(in) % 3];
  clgpu_array out;
  fill_sentinel(&out);
  clgpu_array *out_pointer = nulls == 3 ? NULL : &out;
  const size_t *shape_pointer = nulls == 1 ? NULL : shape;
  const ptrdiff_t *strides_pointer = nulls == 2 ? NULL : strides;
  clgpu_status status;
  const char *call;
  prime_last_error();
  if (kind == 0) {
    call = "clgpu_array_1d";
    status = clgpu_array_1d(buffer, offset, type, shape[0], out_pointer);
  } else if (kind == 1) {
    call = "clgpu_array_nd";
    status = clgpu_array_nd(buffer, offset, type, rank, shape_pointer, order, out_pointer);
  } else {
    call = "clgpu_array_strided";
    status = clgpu_array_strided(buffer, offset, type, rank, shape_pointer, strides_pointer,
                                 out_pointer);
  }
  finish_view_call(call, status, STATUS_SET(view_statuses, 1), &out, out_pointer != NULL, 1, NULL,
                   pool, NULL);
  if (status == CLGPU_SUCCESS && (kind == 0 || (kind == 1 && order == CLGPU_ROW_MAJOR))) {
    if (!clgpu_array_is_contiguous(&out)) {
      violation(call, "made a contiguous constructor's view that is not contiguous");
    }
  }
}

static void op_view_derive(byte_reader *in, array_run *pool) {
  uint8_t kind = take_byte(in) % 6;
  uint8_t flags = take_byte(in);
  const clgpu_array *chosen = take_view(in, pool);
  clgpu_array parent;
  if (chosen) parent = *chosen;
  int in_place = (flags & 1) && chosen; /* out is in */
  int null_out = (flags & 6) == 6;
  int null_argument = (flags & 0x18) == 0x18;
  clgpu_array out;
  fill_sentinel(&out);
  if (in_place) out = parent;
  clgpu_array before = out;
  clgpu_array *out_pointer = null_out ? NULL : &out;
  const clgpu_array *in_pointer = chosen ? (in_place ? &out : &parent) : NULL;
  int parent_valid = chosen && clgpu_array_check(&parent) == CLGPU_SUCCESS;
  view_facts parent_facts = parent_valid ? facts_of(&parent) : (view_facts){0};
  if (parent_valid && !parent_facts.valid) {
    violation("clgpu_array_check", "passed a view that the model finds invalid");
  }
  clgpu_status status;
  const char *call;
  status_set set = STATUS_SET(view_statuses, 1);
  size_t shape[MAX_RANK_TAKEN];
  unsigned rank = 0;
  prime_last_error();
  switch (kind) {
    case 0: {
      clgpu_slice slices[MAX_RANK_TAKEN];
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        slices[d].start = take_slice_bound(in);
        slices[d].stop = take_slice_bound(in);
        slices[d].step = take_step(in);
      }
      call = "clgpu_array_slice";
      prime_last_error();
      status = clgpu_array_slice(in_pointer, null_argument ? NULL : slices, out_pointer);
      break;
    }
    case 1:
    case 5: {
      rank = take_byte(in) % MAX_RANK_TAKEN;
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        uint8_t how = take_byte(in) % 3;
        /* Often the parent's own extents, so that the shapes are compatible. */
        size_t parent_extent = 1;
        if (chosen && parent.rank <= CLGPU_MAX_RANK && d < parent.rank) {
          parent_extent = parent.shape[d];
        }
        shape[d] = how == 0 ? parent_extent : how == 1 ? take_byte(in) % 9 : take_extent(in);
      }
      const size_t *shape_pointer = null_argument ? NULL : shape;
      prime_last_error();
      if (kind == 1) {
        call = "clgpu_array_reshape";
        set = STATUS_SET(reshape_statuses, 1);
        status = clgpu_array_reshape(in_pointer, rank, shape_pointer, out_pointer);
      } else {
        call = "clgpu_array_broadcast";
        set = STATUS_SET(broadcast_statuses, 1);
        status = clgpu_array_broadcast(in_pointer, rank, shape_pointer, out_pointer);
      }
      break;
    }
    case 2: {
      unsigned axes[MAX_RANK_TAKEN];
      uint8_t how = take_byte(in) % 3;
      unsigned parent_rank = chosen && parent.rank <= CLGPU_MAX_RANK ? parent.rank : 1;
      uint8_t turn = take_byte(in);
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        if (how == 0) {
          axes[d] = take_byte(in) % MAX_RANK_TAKEN;
        } else if (how == 1) {
          axes[d] = d < parent_rank ? parent_rank - 1 - d : d;
        } else {
          axes[d] = d < parent_rank ? (d + turn) % parent_rank : d;
        }
      }
      call = "clgpu_array_permute";
      prime_last_error();
      status = clgpu_array_permute(in_pointer, null_argument ? NULL : axes, out_pointer);
      break;
    }
    case 3:
      call = "clgpu_array_transpose";
      status = clgpu_array_transpose(in_pointer, out_pointer);
      break;
    default: {
      clgpu_type type = take_type(in);
      call = "clgpu_array_reinterpret";
      set = STATUS_SET(reinterpret_statuses, 1);
      prime_last_error();
      status = clgpu_array_reinterpret(in_pointer, type, out_pointer);
      break;
    }
  }
  if (status == CLGPU_SUCCESS && !parent_valid) {
    violation(call, "succeeded on an invalid or NULL view");
  }
  view_facts made;
  memset(&made, 0, sizeof made);
  finish_view_call(call, status, set, &out, out_pointer != NULL, !in_place, &before, pool, &made);
  if (status != CLGPU_SUCCESS) return;
  /* A derived view reaches only bytes its parent reaches. */
  if (!made.empty) {
    if (parent_facts.empty || made.root != parent_facts.root || made.first < parent_facts.first ||
        made.end > parent_facts.end) {
      violation(call, "made a view reaching [%lld, %lld) from a parent reaching [%lld, %lld)",
                (long long)made.first, (long long)made.end, (long long)parent_facts.first,
                (long long)parent_facts.end);
    }
  }
  /* Reshaping, permuting and transposing keep the number of elements. */
  if (kind >= 1 && kind <= 3 && made.count != parent_facts.count) {
    violation(call, "changed the element count from %zu to %zu", parent_facts.count, made.count);
  }
}

/* Edit one field of a pool view by hand, keeping the result in the pool. */
static void op_view_corrupt(byte_reader *in, array_run *pool) {
  const clgpu_array *chosen = take_view(in, pool);
  clgpu_array view;
  if (chosen)
    view = *chosen;
  else
    memset(&view, 0, sizeof view);
  uint8_t field = take_byte(in) % 6;
  unsigned d = take_byte(in) % CLGPU_MAX_RANK;
  switch (field) {
    case 0:
      view.offset = take_offset(in);
      break;
    case 1:
      view.type = take_type(in);
      break;
    case 2:
      view.rank = take_byte(in) % 3 == 0 ? take_u32(in) : take_byte(in) % MAX_RANK_TAKEN;
      break;
    case 3:
      view.shape[d] = take_extent(in);
      break;
    case 4:
      view.strides[d] = take_stride(in);
      break;
    default:
      view.buffer = take_buffer(in);
      break;
  }
  prime_last_error();
  clgpu_status status = clgpu_array_check(&view);
  check_call("clgpu_array_check", status, STATUS_SET(view_statuses, 1), 0);
  if (status == CLGPU_SUCCESS) check_made_view("clgpu_array_check", &view);
  keep_view(pool, &view);
}

typedef struct byte_marks {
  uint8_t marks[MAX_ROOT_BYTES];
  int root;
  size_t size;
  int hit;
} byte_marks;

static void mark_bytes(int64_t address, void *state) {
  byte_marks *marks = state;
  for (size_t i = 0; i < marks->size; i++) {
    if (address + (int64_t)i >= 0 && address + (int64_t)i < MAX_ROOT_BYTES) {
      marks->marks[address + (int64_t)i] = 1;
    }
  }
}

static void test_bytes(int64_t address, void *state) {
  byte_marks *marks = state;
  for (size_t i = 0; i < marks->size; i++) {
    if (address + (int64_t)i >= 0 && address + (int64_t)i < MAX_ROOT_BYTES &&
        marks->marks[address + (int64_t)i]) {
      marks->hit = 1;
    }
  }
}

/* Whether two valid views share a byte, by listing their bytes. */
static int views_share_a_byte(const clgpu_array *a, const view_facts *facts_a, const clgpu_array *b,
                              const view_facts *facts_b) {
  if (facts_a->root != facts_b->root || facts_a->empty || facts_b->empty) return 0;
  static byte_marks marks;
  memset(marks.marks, 0, sizeof marks.marks);
  marks.hit = 0;
  marks.size = clgpu_type_size(a->type);
  for_each_element(a, facts_a, mark_bytes, &marks);
  marks.size = clgpu_type_size(b->type);
  for_each_element(b, facts_b, test_bytes, &marks);
  return marks.hit;
}

static void op_alias(byte_reader *in, array_run *pool) {
  const clgpu_array *a = take_view(in, pool);
  const clgpu_array *b = take_view(in, pool);
  if (take_byte(in) % 4 == 0) b = a;
  const char *call = "clgpu_may_alias/clgpu_array_same";
  int ab = clgpu_may_alias(a, b);
  int ba = clgpu_may_alias(b, a);
  int same = clgpu_array_same(a, b);
  if ((ab != 0 && ab != 1) || (ba != 0 && ba != 1) || (same != 0 && same != 1)) {
    violation(call, "gave a value other than 0 and 1");
  }
  if (ab != ba) violation(call, "is not symmetric: %d one way, %d the other", ab, ba);
  int valid_a = a && clgpu_array_check(a) == CLGPU_SUCCESS;
  int valid_b = b && clgpu_array_check(b) == CLGPU_SUCCESS;
  if ((!valid_a || !valid_b) && ab != 1) violation(call, "gave 0 for an invalid view");
  if ((!valid_a || !valid_b) && same) violation(call, "called an invalid view the same");
  if (!valid_a || !valid_b) return;
  view_facts facts_a = facts_of(a), facts_b = facts_of(b);
  if (!facts_a.valid || !facts_b.valid) {
    violation("clgpu_array_check", "passed a view that the model finds invalid");
  }
  if (a == b && !same) violation(call, "a view is not the same as itself");
  if (same && !facts_a.empty && !ab) violation(call, "the same non-empty views do not alias");
  if (facts_a.count <= MAX_MODEL_ELEMENTS && facts_b.count <= MAX_MODEL_ELEMENTS &&
      views_share_a_byte(a, &facts_a, b, &facts_b) && !ab) {
    violation(call, "gave 0 for views that share a byte");
  }
}

/* ---- copies, checked against a host model ---- */

typedef struct mirrors {
  uint8_t bytes[BUF_COUNT][MAX_ROOT_BYTES];
} mirrors;

static mirrors before_copy, after_copy, model_copy;

static int is_root(int index) { return arrays.roots[index] == index; }

static void write_roots(uint8_t seed) {
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

static void read_roots(void) {
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

static void compare_roots(const char *call, const mirrors *expected, const char *what) {
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

typedef struct gather_state {
  const uint8_t *root;
  uint8_t *temporary;
  size_t used;
  size_t size;
} gather_state;

static void gather(int64_t address, void *state) {
  gather_state *g = state;
  memcpy(g->temporary + g->used, g->root + address, g->size);
  g->used += g->size;
}

static void scatter(int64_t address, void *state) {
  gather_state *g = state;
  memcpy((uint8_t *)g->root + address, g->temporary + g->used, g->size);
  g->used += g->size;
}

static void op_copy(byte_reader *in, array_run *pool) {
  uint8_t flags = take_byte(in);
  const clgpu_array *destination = take_view(in, pool);
  const clgpu_array *source = take_view(in, pool);
  if ((flags & 0x30) == 0x30) source = destination;
  clgpu_context *contexts[] = {world.context, world.context, NULL, world.other};
  clgpu_context *context = contexts[flags & 3];
  cl_uint num_events = 0;
  const cl_event *wait_list = NULL;
  switch ((flags >> 2) & 3) {
    case 1:
      num_events = 1;
      wait_list = &arrays.done;
      break;
    case 2:
      num_events = 2;
      break;
    case 3:
      wait_list = &arrays.done;
      break;
    default:
      break;
  }
  /* The event belongs to the main context: OpenCL would refuse it in a wait
   * list on the other one, which is not what is being tested. */
  if (context == world.other && wait_list) {
    wait_list = NULL;
    num_events = 0;
  }
  int want_event = (flags & 0x40) != 0;
  cl_event stale = (cl_event)(void *)&not_a_handle;
  cl_event event = stale;
  write_roots(take_byte(in));
  model_copy = before_copy;
  const char *call = "clgpu_copy";
  prime_last_error();
  clgpu_status status =
      clgpu_copy(context, destination, source, num_events, wait_list, want_event ? &event : NULL);
  check_call(call, status, STATUS_SET(copy_statuses, 1), 0);
  if (status != CLGPU_SUCCESS) {
    if (event != stale && event != NULL) {
      violation(call, "failed with %s but returned an event", clgpu_status_name(status));
    }
    read_roots();
    compare_roots(call, &before_copy, "failed but changed a buffer");
    return;
  }
  if (want_event) {
    if (event == stale || !event) violation(call, "succeeded without returning an event");
    if (clWaitForEvents(1, &event) != CL_SUCCESS) violation(call, "its event did not complete");
    clReleaseEvent(event);
  }
  read_roots();
  view_facts facts_d = facts_of(destination), facts_s = facts_of(source);
  if (!facts_d.valid || !facts_s.valid) {
    violation(call, "succeeded on a view that the model finds invalid");
  }
  if (destination->type != source->type || destination->rank != source->rank ||
      facts_d.count != facts_s.count) {
    violation(call, "succeeded on views of different types or shapes");
  }
  for (unsigned d = 0; d < destination->rank; d++) {
    if (destination->shape[d] != source->shape[d]) {
      violation(call, "succeeded on views of different shapes");
    }
  }
  size_t size = clgpu_type_size(destination->type);
  if (!facts_d.empty && facts_d.count * size > arrays.sizes[facts_d.root]) {
    violation(call, "accepted a destination with more element bytes than its buffer");
  }
  if (!facts_d.empty) {
    static uint8_t temporary[MAX_ROOT_BYTES];
    gather_state g = {before_copy.bytes[facts_s.root], temporary, 0, size};
    for_each_element(source, &facts_s, gather, &g);
    g.root = model_copy.bytes[facts_d.root];
    g.used = 0;
    for_each_element(destination, &facts_d, scatter, &g);
  }
  compare_roots(call, &model_copy, "the result differs from the host model");
}

/* ---- allocation and scopes ---- */

static clgpu_context *take_alloc_context(byte_reader *in) {
  clgpu_context *contexts[] = {world.context, world.context, world.other, NULL};
  return contexts[take_byte(in) % 4];
}

static void release_held(array_run *pool, size_t index) {
  held_buffer held = pool->held[index];
  prime_last_error();
  clgpu_buffer_release(held.context, held.buffer);
  check_message_untouched("clgpu_buffer_release");
  pool->held[index] = pool->held[--pool->held_count];
}

static void op_buffer_create(byte_reader *in, array_run *pool) {
  clgpu_context *context = take_alloc_context(in);
  static const cl_mem_flags flag_choices[] = {
      0,
      CL_MEM_READ_WRITE,
      CL_MEM_READ_ONLY,
      CL_MEM_WRITE_ONLY,
      CL_MEM_USE_HOST_PTR,
      CL_MEM_COPY_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
  };
  uint8_t flag_choice = take_byte(in) % (COUNT_OF(flag_choices) + 1);
  cl_mem_flags flags = flag_choice == COUNT_OF(flag_choices) ? (cl_mem_flags)take_u64(in)
                                                             : flag_choices[flag_choice];
  size_t size;
  switch (take_byte(in) % 6) {
    case 0:
      size = 0;
      break;
    case 1:
      size = SIZE_MAX - take_byte(in);
      break;
    case 2:
      size = (size_t)arrays.max_alloc + 1 + take_byte(in);
      break;
    case 3:
      size = (size_t)1 << (56 + take_byte(in) % 8);
      break;
    case 4:
      size = 1 + (size_t)take_byte(in) * 64;
      break;
    default:
      size = 1 + take_byte(in) % 16;
      break;
  }
  int null_out = take_byte(in) % 8 == 0;
  /* Only plain requests can succeed, so only small ones are made for real. */
  if (size > 65536 && size <= arrays.max_alloc) size = 65536;
  cl_mem stale = (cl_mem)(void *)&not_a_handle;
  cl_mem made = stale;
  const char *call = "clgpu_buffer_create";
  prime_last_error();
  clgpu_status status = clgpu_buffer_create(context, flags, size, null_out ? NULL : &made);
  check_call(call, status, STATUS_SET(buffer_statuses, 1), 0);
  if (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "host-pointer flags are refused");
  }
  if (size == 0 || !context || null_out) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "NULL argument or size 0");
  }
  if (status != CLGPU_SUCCESS) {
    /* The header does not say what a failure leaves in *out; the library
     * clears it first, so NULL and the untouched value are both accepted. */
    if (made != stale && made != NULL) {
      violation(call, "failed with %s but left a buffer in *out", clgpu_status_name(status));
    }
    return;
  }
  if (size > arrays.max_alloc) violation(call, "succeeded above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  size_t real_size = 0;
  if (!made || made == stale ||
      clGetMemObjectInfo(made, CL_MEM_SIZE, sizeof real_size, &real_size, NULL) != CL_SUCCESS ||
      real_size < size) {
    violation(call, "succeeded without a buffer of at least %zu bytes", size);
  }
  held_buffer held = {context, made, -1};
  if (pool->scope_count > 0 && pool->scope_cached[pool->scope_count - 1] &&
      pool->scopes[pool->scope_count - 1] == context) {
    held.scope = (int)pool->scope_count - 1;
  }
  if (pool->held_count == MAX_HELD_BUFFERS) release_held(pool, 0);
  pool->held[pool->held_count++] = held;
  if (take_byte(in) % 2) release_held(pool, pool->held_count - 1);
}

/* Close the innermost scope as the fuzzer expects it to close; the blocks
 * it handed out and that are still held went back to the cache with it. */
static void algo_release_workspaces(void);

static void end_scope(array_run *pool, clgpu_context *context) {
  const char *call = "clgpu_alloc_scope_end";
  /* A workspace made in the scope may outlive it (workspace.h;
   * test_alloc_cache covers that order); the fuzzer destroys all of its
   * workspaces here all the same. */
  algo_release_workspaces();
  prime_last_error();
  clgpu_status status = clgpu_alloc_scope_end(context);
  check_call(call, status, STATUS_SET(scope_end_statuses, 0), 0);
  if (!context) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "context is NULL");
    return;
  }
  if (pool->scope_count == 0) {
    expect_status(call, status, CLGPU_ALLOC_SCOPE_MISMATCH, "no scope is open");
    return;
  }
  if (pool->scopes[pool->scope_count - 1] != context) {
    expect_status(call, status, CLGPU_ALLOC_SCOPE_MISMATCH, "the innermost scope is elsewhere");
    return;
  }
  expect_status(call, status, CLGPU_SUCCESS, "the innermost scope is on this context");
  pool->scope_count--;
  for (size_t i = pool->held_count; i-- > 0;) {
    if (pool->held[i].scope == (int)pool->scope_count) {
      pool->held[i] = pool->held[--pool->held_count];
    }
  }
}

static void op_scope(byte_reader *in, array_run *pool) {
  uint8_t kind = take_byte(in) % 4;
  clgpu_context *context = take_alloc_context(in);
  if (kind == 0 || kind == 1) {
    if (pool->scope_count == MAX_SCOPES) return;
    int null_cache = kind == 0 && take_byte(in) % 4 == 0;
    const char *call = kind == 0 ? "clgpu_alloc_scope_begin" : "clgpu_alloc_uncached_begin";
    prime_last_error();
    clgpu_status status = kind == 0
                              ? clgpu_alloc_scope_begin(context, null_cache ? NULL : arrays.cache)
                              : clgpu_alloc_uncached_begin(context);
    check_call(call, status, STATUS_SET(scope_begin_statuses, 0), 0);
    if (!context || null_cache) {
      expect_status(call, status, CLGPU_INVALID_ARGUMENT, "a NULL argument");
    }
    if (status == CLGPU_SUCCESS) {
      pool->scopes[pool->scope_count] = context;
      pool->scope_cached[pool->scope_count++] = kind == 0;
    }
    return;
  }
  end_scope(pool, kind == 3 ? NULL : context);
}

/* Everything an input made goes back, and every scope it opened closes. */
static void finish_arrays(array_run *pool) {
  while (pool->held_count > 0) release_held(pool, pool->held_count - 1);
  while (pool->scope_count > 0) end_scope(pool, pool->scopes[pool->scope_count - 1]);
  end_scope(pool, world.context);
}

static void op_escape(fuzz_run *run, array_run *pool) {
  byte_reader *in = &run->in;
  switch (take_byte(in) % ARRAY_OP_COUNT) {
    case AOP_VIEW_MAKE:
      op_view_make(in, pool);
      break;
    case AOP_VIEW_DERIVE:
      op_view_derive(in, pool);
      break;
    case AOP_VIEW_CORRUPT:
      op_view_corrupt(in, pool);
      break;
    case AOP_ALIAS:
      op_alias(in, pool);
      break;
    case AOP_COPY:
      op_copy(in, pool);
      break;
    case AOP_BUFFER_CREATE:
      op_buffer_create(in, pool);
      break;
    default:
      op_scope(in, pool);
      break;
  }
}

/* ---- buffers across memory spaces ----
 *
 * These operations are reached through a second escape: the opcode byte 0xfd
 * (OP_MEMBUF_BYTE) followed by a sub-opcode byte (modulo MEMBUF_OP_COUNT). No
 * input written before they existed has 0xfd where an opcode is read, so
 * those inputs keep their meaning. They work on a per-input pool of up to
 * MEMBUF_SLOTS buffers of the three kinds, of at most MEMBUF_MAX_COUNT
 * elements each (larger requests are made only where the header promises a
 * refusal before anything is allocated), all freed when the input ends. A
 * fixed buffer's storage is the fuzzer's, one block per slot, with canary
 * bytes around the capacity it was given.
 *
 * For each buffer the fuzzer keeps a shadow of its contents: the leading
 * `known` elements, which it wrote through the host pointer (or which a fixed
 * buffer's storage held when it was made). Moves, reallocations and
 * assignments carry the shadow along as the header says they carry the data,
 * and after every call each side that is current is compared with it (the
 * host side in place, the device side read back with clEnqueueReadBuffer).
 * After every call each buffer is also held to clgpu_membuf_get_info's
 * invariants and its move counts to the move reports, which go to a callback
 * of the fuzzer's (never to stderr); after a refusal, nothing about the
 * buffer may change. Once a buffer is freed, the fuzzer's own reference must
 * be the last to every cl_mem it showed: LeakSanitizer cannot see an OpenCL
 * object the library forgets to release. */

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

#define OP_MEMBUF_BYTE 0xfd
#define MEMBUF_SLOTS 4
#define MEMBUF_MAX_COUNT 4096
#define MEMBUF_MAX_BYTES (MEMBUF_MAX_COUNT * 8)
#define FIXED_SLACK 16 /* storage past the largest capacity: canaries, a misaligned start */
#define CANARY 0xa5
#define FORMAT_ROOM (2 * HUGE_LENGTH + 256)
#define FORMAT_GUARD 16
#define SEEN_MEMORIES 16

#define STALE_MEMBUF ((clgpu_membuf *)(void *)&not_a_handle)
#define STALE_EVENT ((cl_event)(void *)&not_a_handle)
#define STALE_DATA ((void *)&not_a_handle)

typedef struct membuf_slot {
  clgpu_membuf *buffer; /* NULL: the slot is free (and its handle a zeroed one) */
  clgpu_membuf_kind kind;
  clgpu_context *context; /* NULL: host only */
  clgpu_type type;
  size_t element_size;
  uint8_t *storage; /* a fixed buffer's storage, inside fixed_storage[slot] */
  size_t fixed_capacity;
  size_t known;      /* leading elements whose contents the shadow holds */
  int named_type;    /* a type name was given; otherwise the element type's */
  uint64_t moves[2]; /* the counts as last seen: [0] to the host, [1] to the device */
  uint64_t bytes[2];
  uint64_t reported_moves[2]; /* reports since then */
  uint64_t reported_bytes[2];
  /* Every cl_mem the buffer has shown, retained by the fuzzer: once the
   * buffer has let go of one, the fuzzer's must be its only reference. */
  cl_mem seen[SEEN_MEMORIES];
  size_t seen_count;
} membuf_slot;

static membuf_slot membufs[MEMBUF_SLOTS];
static uint8_t membuf_shadow[MEMBUF_SLOTS][MEMBUF_MAX_BYTES];
static char membuf_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
static char membuf_type_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
static _Alignas(16) uint8_t fixed_storage[MEMBUF_SLOTS][MEMBUF_MAX_BYTES + FIXED_SLACK];
static uint8_t fixed_before[MEMBUF_MAX_BYTES + FIXED_SLACK];
static uint8_t device_copy[MEMBUF_MAX_BYTES];
static char format_text[FORMAT_ROOM + FORMAT_GUARD];
static char format_full[FORMAT_ROOM];
static char format_expected[FORMAT_ROOM];

/* Where each context's move reports go: the fuzzer's callback, with the
 * address of its entry as the user pointer, or nowhere. */
typedef struct report_target {
  clgpu_context *context;
  int on;
} report_target;

static report_target report_targets[2];
static cl_event done_on_other; /* a completed user event on the second context */

static const clgpu_status membuf_create_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                      CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status membuf_create_device_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                             CLGPU_CL_OUT_OF_HOST_MEMORY,
                                                             CLGPU_CL_INVALID_BUFFER_SIZE};
static const clgpu_status membuf_move_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_WRONG_SPACE};
static const clgpu_status membuf_touch_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                     CLGPU_WRONG_SPACE};
static const clgpu_status membuf_reallocate_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_WRONG_SPACE, CLGPU_CAPACITY_EXCEEDED,
    CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status membuf_assign_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                      CLGPU_TYPE_MISMATCH, CLGPU_CAPACITY_EXCEEDED};
static const clgpu_status membuf_plain_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT};
static const clgpu_status membuf_name_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_CL_OUT_OF_HOST_MEMORY};

/* The refusals a call's arguments call for; any one of them may be the one
 * given when several apply, and none means the call must succeed. */
enum {
  REFUSE_INVALID = 1,
  REFUSE_WRONG_SPACE = 2,
  REFUSE_CAPACITY = 4,
  REFUSE_TYPE = 8,
  REFUSE_BUFFER_SIZE = 16
};

static void expect_refusals(const char *call, clgpu_status status, unsigned refusals) {
  static const struct {
    unsigned bit;
    clgpu_status status;
  } codes[] = {
      {REFUSE_INVALID, CLGPU_INVALID_ARGUMENT},           {REFUSE_WRONG_SPACE, CLGPU_WRONG_SPACE},
      {REFUSE_CAPACITY, CLGPU_CAPACITY_EXCEEDED},         {REFUSE_TYPE, CLGPU_TYPE_MISMATCH},
      {REFUSE_BUFFER_SIZE, CLGPU_CL_INVALID_BUFFER_SIZE},
  };
  if (!refusals) {
    expect_status(call, status, CLGPU_SUCCESS, "every argument is valid");
    return;
  }
  char expected[160] = "";
  size_t used = 0;
  for (size_t i = 0; i < COUNT_OF(codes); i++) {
    if (!(refusals & codes[i].bit)) continue;
    if (status == codes[i].status) return;
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s", used ? " or " : "",
                             clgpu_status_name(codes[i].status));
    if (used >= sizeof expected) used = sizeof expected - 1;
  }
  violation(call, "returned %s, expected %s", clgpu_status_name(status), expected);
}

/* ---- decoding membuf arguments ---- */

static const char *const membuf_name_words[] = {
    "", "keys", "values", "a b", "%s%n%x", "\n", "\xff\xfe", "Moved ", long_identifier, huge_text,
};

static const char *const membuf_type_name_words[] = {
    "int", "uint", "float4", "", "my_type", "%n%n", "\t", long_identifier, huge_text,
};

static int valid_space(clgpu_space space) {
  return space == CLGPU_SPACE_HOST || space == CLGPU_SPACE_DEVICE;
}

static int valid_access(clgpu_access access) {
  return access == CLGPU_READ_WRITE || access == CLGPU_READ_ONLY || access == CLGPU_WRITE_ONLY;
}

/* Mostly the two spaces; 0 (not a space), 3, -1 and any int. */
static clgpu_space take_space(byte_reader *in) {
  static const int spaces[] = {
      CLGPU_SPACE_HOST, CLGPU_SPACE_DEVICE, CLGPU_SPACE_HOST, CLGPU_SPACE_DEVICE, 0, 3, -1};
  uint8_t choice = take_byte(in) % (COUNT_OF(spaces) + 1);
  return (clgpu_space)(choice == COUNT_OF(spaces) ? take_int(in) : spaces[choice]);
}

static clgpu_access take_access(byte_reader *in) {
  static const int accesses[] = {CLGPU_READ_WRITE,
                                 CLGPU_READ_ONLY,
                                 CLGPU_WRITE_ONLY,
                                 CLGPU_READ_WRITE,
                                 CLGPU_READ_ONLY,
                                 CLGPU_WRITE_ONLY,
                                 3,
                                 -1};
  uint8_t choice = take_byte(in) % (COUNT_OF(accesses) + 1);
  return (clgpu_access)(choice == COUNT_OF(accesses) ? take_int(in) : accesses[choice]);
}

/* Every element type, and 0, 12, 99 and -1, which are none. */
static clgpu_type take_membuf_type(byte_reader *in) {
  static const int odd[] = {0, 12, 99, -1, CLGPU_UINT32};
  uint8_t choice = take_byte(in) % (CLGPU_DOUBLE + COUNT_OF(odd));
  return (clgpu_type)(choice < CLGPU_DOUBLE ? choice + 1 : odd[choice - CLGPU_DOUBLE]);
}

/* An element count: small ones, the edges around `reference` (a capacity or
 * a size), and huge ones. */
static size_t take_membuf_count(byte_reader *in, size_t reference) {
  switch (take_byte(in) % 10) {
    case 0:
      return 0;
    case 1:
      return 1 + take_byte(in) % 16;
    case 2:
      return take_byte(in);
    case 3: {
      size_t low = take_byte(in);
      return (low | (size_t)take_byte(in) << 8) % (MEMBUF_MAX_COUNT + 1);
    }
    case 4:
      return MEMBUF_MAX_COUNT;
    case 5:
      return reference;
    case 6:
      return reference + 1;
    case 7:
      return reference ? reference - 1 : 0;
    case 8:
      return SIZE_MAX / 3;
    default:
      return take_count(in);
  }
}

static int overflows(clgpu_type type, size_t count) {
  size_t size = clgpu_type_size(type);
  return size && count > SIZE_MAX / size;
}

/* Whether `count` elements are refused by the device's largest allocation:
 * a byte count OpenCL is never asked for. */
static int beyond_device(clgpu_type type, size_t count) {
  size_t size = clgpu_type_size(type);
  return size && !overflows(type, count) && count * size > arrays.max_alloc;
}

/* The slot an argument names, or -1 for a NULL handle. */
static int take_slot(byte_reader *in) {
  uint8_t choice = take_byte(in) % (MEMBUF_SLOTS + 1);
  return choice == MEMBUF_SLOTS ? -1 : choice;
}

static clgpu_membuf *handle_of(int index) { return index < 0 ? NULL : membufs[index].buffer; }

static int host_only(int index) { return membufs[index].context == NULL; }

static const char *slot_word(int index, char text[48]) {
  if (index < 0 || !membufs[index].buffer) {
    snprintf(text, 48, "NULL");
  } else {
    static const char *const kinds[] = {"?", "host", "host+device", "fixed"};
    const membuf_slot *slot = &membufs[index];
    snprintf(text, 48, "#%d (%s%s, %s)", index, kinds[slot->kind % 4],
             slot->kind == CLGPU_MEMBUF_FIXED && !slot->context ? " host-only" : "",
             clgpu_type_cl_name(slot->type));
  }
  return text;
}

typedef struct wait_args {
  cl_uint count;
  const cl_event *list;
  int bad;     /* a count without a list, or a list without a count */
  int foreign; /* an event of the other context, which OpenCL may refuse */
  cl_event events[2];
} wait_args;

/* A wait list of completed events of the buffer's context, one of another
 * context, or a mismatched one (never a count longer than the list). */
static void take_wait(byte_reader *in, clgpu_context *context, wait_args *wait) {
  cl_event done = context == world.other ? done_on_other : arrays.done;
  wait->events[0] = wait->events[1] = done;
  wait->count = 0;
  wait->list = NULL;
  wait->bad = 0;
  wait->foreign = 0;
  switch (take_byte(in) % 8) {
    case 2:
      wait->events[0] = context == world.other ? arrays.done : done_on_other;
      wait->count = 1;
      wait->list = wait->events;
      wait->foreign = 1;
      break;
    case 3:
      wait->count = 1;
      wait->list = wait->events;
      break;
    case 4:
      wait->count = 2;
      wait->list = wait->events;
      break;
    case 5:
      wait->count = 1;
      wait->bad = 1;
      break;
    case 6:
      wait->list = wait->events;
      wait->bad = 1;
      break;
    case 7:
      wait->count = UINT32_MAX - take_byte(in);
      wait->bad = 1;
      break;
    default:
      break;
  }
}

static const char *membuf_options_word(const clgpu_membuf_options *options, char text[300]) {
  char name[128], type_name[128];
  if (!options) return "NULL";
  snprintf(text, 300, "{name %s, type_name %s}", quoted(options->name, name),
           quoted(options->type_name, type_name));
  return text;
}

static const clgpu_membuf_options *take_membuf_options(byte_reader *in,
                                                       clgpu_membuf_options *options,
                                                       char name[MAX_TEXT + 1],
                                                       char type_name[MAX_TEXT + 1]) {
  uint8_t mode = take_byte(in) % 4;
  memset(options, 0, sizeof *options);
  if (mode == 0) return NULL;
  if (mode == 1) return options;
  options->name = TAKE_TEXT(in, membuf_name_words, name);
  if (mode == 3) options->type_name = TAKE_TEXT(in, membuf_type_name_words, type_name);
  return options;
}

static void copy_text(char *destination, const char *text) {
  size_t length = text ? strlen(text) : 0;
  if (length > HUGE_LENGTH) length = HUGE_LENGTH;
  if (length) memcpy(destination, text, length);
  destination[length] = '\0';
}

static const char *expected_type_name(int index) {
  return membufs[index].named_type ? membuf_type_names[index]
                                   : clgpu_type_cl_name(membufs[index].type);
}

static void write_pattern(uint8_t *data, size_t bytes, uint8_t seed, int index) {
  for (size_t i = 0; i < bytes; i++) {
    data[i] = (uint8_t)(seed + i * 13u + (size_t)index * 29u + (i >> 8));
  }
}

/* ---- the move reports ---- */

static void membuf_report(void *user, const clgpu_move_report *report) {
  const char *call = "the move report callback";
  report_target *target = user;
  if (target != &report_targets[0] && target != &report_targets[1]) {
    violation(call, "got a user pointer it was not given");
  }
  if (!target->on) violation(call, "was called while its context's reports were off");
  if (!report) violation(call, "got a NULL report");
  int index = -1;
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer && membufs[i].buffer == report->buffer) index = i;
  }
  if (index < 0) violation(call, "got a report for a buffer the fuzzer does not hold");
  membuf_slot *slot = &membufs[index];
  if (slot->context != target->context) {
    violation(call, "got a report of buffer #%d on the callback of another context", index);
  }
  if (!valid_space(report->to)) violation(call, "got a report to space %d", (int)report->to);
  if (!report->line || !report->type_name || !report->name) {
    violation(call, "got a report with a NULL line, type name or name");
  }
  size_t length = strlen(report->line);
  if (strncmp(report->line, "Moved ", 6) != 0) {
    char shown[128];
    violation(call, "got the line %s, which does not start with \"Moved \"",
              quoted(report->line, shown));
  }
  if (strcmp(report->name, membuf_names[index]) != 0 ||
      strcmp(report->type_name, expected_type_name(index)) != 0) {
    violation(call, "buffer #%d is reported by another name or type name", index);
  }
  /* The line is what clgpu_move_report_format makes of the report, or the
   * start of it when that is long. */
  size_t needed =
      clgpu_move_report_format(report->bytes, report->to, report->type_name, report->name, NULL, 0);
  if (needed < sizeof format_full) {
    clgpu_move_report_format(report->bytes, report->to, report->type_name, report->name,
                             format_full, sizeof format_full);
    if (length > needed || strncmp(format_full, report->line, length) != 0 ||
        (length < needed && length < 255)) {
      char shown[128];
      violation(call, "the line %s is not what clgpu_move_report_format gives",
                quoted(report->line, shown));
    }
  }
  if (report->bytes == 0 || report->bytes % slot->element_size != 0 ||
      report->bytes > (uint64_t)MEMBUF_MAX_COUNT * slot->element_size) {
    violation(call, "reported %llu bytes for buffer #%d of %s", (unsigned long long)report->bytes,
              index, clgpu_type_cl_name(slot->type));
  }
  int to = report->to == CLGPU_SPACE_HOST ? 0 : 1;
  slot->reported_moves[to]++;
  slot->reported_bytes[to] += report->bytes;
}

static report_target *target_of(const clgpu_context *context) {
  for (size_t i = 0; i < COUNT_OF(report_targets); i++) {
    if (report_targets[i].context == context) return &report_targets[i];
  }
  return NULL;
}

/* Reports on for both contexts, so that no report is ever printed. */
static void membuf_reports_on(void) {
  for (size_t i = 0; i < COUNT_OF(report_targets); i++) {
    report_targets[i].on = 1;
    if (clgpu_context_set_move_report(report_targets[i].context, membuf_report,
                                      &report_targets[i]) != CLGPU_SUCCESS) {
      setup_failed("clgpu_context_set_move_report", 0);
    }
  }
}

static void membuf_setup(void) {
  report_targets[0].context = world.context;
  report_targets[1].context = world.other;
  membuf_reports_on();
  cl_int err = CL_SUCCESS;
  done_on_other = clCreateUserEvent(clgpu_context_cl_context(world.other), &err);
  if (err != CL_SUCCESS || clSetUserEventStatus(done_on_other, CL_COMPLETE) != CL_SUCCESS) {
    setup_failed("clCreateUserEvent on the second context", 0);
  }
}

static void membuf_teardown(void) {
  if (done_on_other) clReleaseEvent(done_on_other);
  done_on_other = NULL;
}

/* ---- what every buffer must satisfy after every call ---- */

static clgpu_membuf_info membuf_info(const char *call, int index) {
  clgpu_membuf_info info;
  memset(&info, 0, sizeof info);
  clgpu_status status = clgpu_membuf_get_info(membufs[index].buffer, &info);
  if (status != CLGPU_SUCCESS) {
    violation(call, "afterwards clgpu_membuf_get_info of buffer #%d failed with %s", index,
              clgpu_status_name(status));
  }
  return info;
}

static void check_canaries(const char *call, int index) {
  const membuf_slot *slot = &membufs[index];
  const uint8_t *base = fixed_storage[index];
  size_t start = (size_t)(slot->storage - base);
  size_t end = start + slot->fixed_capacity * slot->element_size;
  for (size_t i = 0; i < sizeof fixed_storage[0]; i++) {
    if ((i < start || i >= end) && base[i] != CANARY) {
      violation(call,
                "wrote byte %zu of fixed buffer #%d's storage, outside its %zu elements "
                "at byte %zu",
                i, index, slot->fixed_capacity, start);
    }
  }
}

static void check_device_contents(const char *call, int index, const clgpu_membuf_info *info) {
  const membuf_slot *slot = &membufs[index];
  cl_mem memory = clgpu_membuf_device_memory(slot->buffer);
  size_t real_size = 0;
  if (clGetMemObjectInfo(memory, CL_MEM_SIZE, sizeof real_size, &real_size, NULL) != CL_SUCCESS ||
      real_size < (info->capacity ? info->capacity : 1) * slot->element_size) {
    violation(call, "buffer #%d's cl_mem has %zu bytes, less than its capacity of %zu elements",
              index, real_size, info->capacity);
  }
  if (!info->device_current || slot->known == 0) return;
  cl_command_queue queue = clgpu_context_queue(slot->context);
  size_t bytes = slot->known * slot->element_size;
  if (clFinish(queue) != CL_SUCCESS ||
      clEnqueueReadBuffer(queue, memory, CL_TRUE, 0, bytes, device_copy, 0, NULL, NULL) !=
          CL_SUCCESS) {
    violation(call, "buffer #%d's cl_mem could not be read", index);
  }
  for (size_t i = 0; i < bytes; i++) {
    if (device_copy[i] != membuf_shadow[index][i]) {
      violation(call, "buffer #%d's device side is current but byte %zu is %u, expected %u", index,
                i, device_copy[i], membuf_shadow[index][i]);
    }
  }
}

static cl_uint memory_references(cl_mem memory) {
  cl_uint count = 0;
  clGetMemObjectInfo(memory, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

/* Once a buffer is freed and its commands are done, the fuzzer's reference
 * is the last one to every cl_mem the buffer has shown. POCL drops a
 * command's references to its buffers on its own thread, around the moment
 * the command completes, so a reference may linger for a moment after
 * clFinish returns: a count above 1 is given a second (a leak stays). */
static void check_released(const char *call, int index) {
  membuf_slot *slot = &membufs[index];
  if (slot->seen_count == 0) return;
  if (clFinish(clgpu_context_queue(slot->context)) != CL_SUCCESS) {
    violation(call, "the queue of buffer #%d could not be finished", index);
  }
  for (size_t i = 0; i < slot->seen_count; i++) {
    cl_uint count = memory_references(slot->seen[i]);
    for (int tries = 0; count != 1 && tries < 1000; tries++) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      count = memory_references(slot->seen[i]);
    }
    if (count != 1) {
      violation(call, "a cl_mem of freed buffer #%d still has %u references besides the fuzzer's",
                index, count - 1);
    }
    clReleaseMemObject(slot->seen[i]);
  }
  slot->seen_count = 0;
}

static void remember_memory(int index, cl_mem memory) {
  membuf_slot *slot = &membufs[index];
  for (size_t i = 0; i < slot->seen_count; i++) {
    if (slot->seen[i] == memory) return;
  }
  /* Only a freed buffer has surely dropped the commands that may still hold
   * an old cl_mem, so the oldest goes unchecked when there are too many. */
  if (slot->seen_count == SEEN_MEMORIES) {
    clReleaseMemObject(slot->seen[0]);
    memmove(&slot->seen[0], &slot->seen[1], (SEEN_MEMORIES - 1) * sizeof slot->seen[0]);
    slot->seen_count--;
  }
  clRetainMemObject(memory);
  slot->seen[slot->seen_count++] = memory;
}

static void check_membuf(const char *call, int index) {
  membuf_slot *slot = &membufs[index];
  clgpu_membuf_info info = membuf_info(call, index);
  if (info.kind != slot->kind || info.type != slot->type) {
    violation(call, "buffer #%d is now of kind %d and type %d, made as %d and %d", index,
              (int)info.kind, (int)info.type, (int)slot->kind, (int)slot->type);
  }
  if (info.size > info.capacity) {
    violation(call, "buffer #%d has size %zu above its capacity %zu", index, info.size,
              info.capacity);
  }
  if (info.capacity > MEMBUF_MAX_COUNT) {
    violation(call, "buffer #%d has capacity %zu, more than any request that was granted", index,
              info.capacity);
  }
  if (!info.host_current && !info.device_current) {
    violation(call, "buffer #%d has no current side", index);
  }
  if ((info.host_current && !info.host_allocated) ||
      (info.device_current && !info.device_allocated)) {
    violation(call,
              "buffer #%d has a current side without an allocation (host %d/%d, device "
              "%d/%d current/allocated)",
              index, info.host_current, info.host_allocated, info.device_current,
              info.device_allocated);
  }
  void *host = clgpu_membuf_host_pointer(slot->buffer);
  cl_mem device = clgpu_membuf_device_memory(slot->buffer);
  if (!info.host_allocated != !host || !info.device_allocated != !device) {
    violation(call, "buffer #%d's allocations and its raw sides disagree", index);
  }
  if (host_only(index) && (info.device_allocated || info.device_current)) {
    violation(call, "host-only buffer #%d has a device side", index);
  }
  if (slot->kind == CLGPU_MEMBUF_FIXED) {
    if (info.capacity != slot->fixed_capacity || host != slot->storage) {
      violation(call, "fixed buffer #%d left its storage or its capacity (%zu, made with %zu)",
                index, info.capacity, slot->fixed_capacity);
    }
    check_canaries(call, index);
  }
  if (!info.name || !info.type_name || strcmp(info.name, membuf_names[index]) != 0 ||
      strcmp(info.type_name, expected_type_name(index)) != 0) {
    char name[128], type_name[128];
    violation(call, "buffer #%d is named %s with type name %s, not as it was named", index,
              quoted(info.name, name), quoted(info.type_name, type_name));
  }
  const uint64_t moves[2] = {info.moves_to_host, info.moves_to_device};
  const uint64_t bytes[2] = {info.bytes_to_host, info.bytes_to_device};
  int reporting = target_of(slot->context) && target_of(slot->context)->on;
  for (int to = 0; to < 2; to++) {
    if (moves[to] < slot->moves[to] || bytes[to] < slot->bytes[to]) {
      violation(call, "buffer #%d's move counts went down", index);
    }
    if (reporting && (moves[to] - slot->moves[to] != slot->reported_moves[to] ||
                      bytes[to] - slot->bytes[to] != slot->reported_bytes[to])) {
      violation(call,
                "buffer #%d counted %llu moves (%llu bytes) to the %s, its reports %llu "
                "(%llu bytes)",
                index, (unsigned long long)(moves[to] - slot->moves[to]),
                (unsigned long long)(bytes[to] - slot->bytes[to]), to ? "device" : "host",
                (unsigned long long)slot->reported_moves[to],
                (unsigned long long)slot->reported_bytes[to]);
    }
    slot->moves[to] = moves[to];
    slot->bytes[to] = bytes[to];
    slot->reported_moves[to] = 0;
    slot->reported_bytes[to] = 0;
  }
  if (info.host_current && slot->known) {
    const uint8_t *data = host;
    for (size_t i = 0; i < slot->known * slot->element_size; i++) {
      if (data[i] != membuf_shadow[index][i]) {
        violation(call, "buffer #%d's host side is current but byte %zu is %u, expected %u", index,
                  i, data[i], membuf_shadow[index][i]);
      }
    }
  }
  if (info.device_allocated) {
    remember_memory(index, device);
    check_device_contents(call, index, &info);
  }
}

static void check_membufs(const char *call) {
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer) check_membuf(call, i);
  }
}

/* A refused call changes nothing about the buffer. */
static void check_unchanged(const char *call, clgpu_status status, int index,
                            const clgpu_membuf_info *before) {
  if (index < 0 || !membufs[index].buffer) return;
  clgpu_membuf_info after = membuf_info(call, index);
  if (after.size != before->size || after.capacity != before->capacity ||
      after.host_current != before->host_current ||
      after.device_current != before->device_current ||
      after.host_allocated != before->host_allocated ||
      after.device_allocated != before->device_allocated ||
      after.moves_to_host != before->moves_to_host ||
      after.moves_to_device != before->moves_to_device) {
    violation(call,
              "failed with %s but changed buffer #%d: size %zu -> %zu, capacity %zu -> %zu, "
              "current host %d -> %d, device %d -> %d, allocated host %d -> %d, device %d -> %d, "
              "moves %llu -> %llu",
              clgpu_status_name(status), index, before->size, after.size, before->capacity,
              after.capacity, before->host_current, after.host_current, before->device_current,
              after.device_current, before->host_allocated, after.host_allocated,
              before->device_allocated, after.device_allocated,
              (unsigned long long)(before->moves_to_host + before->moves_to_device),
              (unsigned long long)(after.moves_to_host + after.moves_to_device));
  }
}

static clgpu_membuf_info info_before(int index) {
  clgpu_membuf_info info;
  memset(&info, 0, sizeof info);
  if (index >= 0 && membufs[index].buffer) info = membuf_info("before a call", index);
  return info;
}

/* The move counts a successful call added to one buffer: `expected[to]`
 * copies in each direction (0 to the host, 1 to the device). */
static void check_moves_added(const char *call, int index, const clgpu_membuf_info *before,
                              const int expected[2]) {
  clgpu_membuf_info after = membuf_info(call, index);
  uint64_t host = after.moves_to_host - before->moves_to_host;
  uint64_t device = after.moves_to_device - before->moves_to_device;
  if (host != (uint64_t)expected[0] || device != (uint64_t)expected[1]) {
    violation(call,
              "buffer #%d made %llu copies to the host and %llu to the device, expected "
              "%d and %d",
              index, (unsigned long long)host, (unsigned long long)device, expected[0],
              expected[1]);
  }
}

/* The record of which side is current after a successful move to `to` (0
 * the host, 1 the device) for `access`, and the copy it made. */
static void check_moved(const char *call, int index, const clgpu_membuf_info *before, int to,
                        clgpu_access access) {
  clgpu_membuf_info after = membuf_info(call, index);
  const int current_before[2] = {before->host_current, before->device_current};
  const int current_after[2] = {after.host_current, after.device_current};
  int expected_moves[2] = {0, 0};
  if (host_only(index)) {
    if (current_after[0] != current_before[0] || current_after[1] != current_before[1]) {
      violation(call, "changed which side of host-only buffer #%d is current", index);
    }
  } else {
    int other = current_before[1 - to] && access == CLGPU_READ_ONLY;
    if (!current_after[to] || current_after[1 - to] != other) {
      violation(call, "left buffer #%d current on the host %d and the device %d", index,
                current_after[0], current_after[1]);
    }
    if (access != CLGPU_WRITE_ONLY && !current_before[to] && before->size > 0) {
      expected_moves[to] = 1;
    }
  }
  if (after.size != before->size || after.capacity != before->capacity) {
    violation(call, "a move changed buffer #%d's size or capacity", index);
  }
  check_moves_added(call, index, before, expected_moves);
  uint64_t bytes = to ? after.bytes_to_device - before->bytes_to_device
                      : after.bytes_to_host - before->bytes_to_host;
  if (bytes != (uint64_t)expected_moves[to] * before->size * membufs[index].element_size) {
    violation(call, "buffer #%d counted %llu bytes for a move of %zu elements", index,
              (unsigned long long)bytes, before->size);
  }
  if (access == CLGPU_WRITE_ONLY) membufs[index].known = 0;
}

/* An event a successful move gave: waited for and released. */
static void finish_event(const char *call, int wanted, cl_event event, int index) {
  if (!wanted) return;
  if (event == STALE_EVENT) violation(call, "succeeded without setting *event");
  if (host_only(index)) {
    if (event) violation(call, "gave an event for host-only buffer #%d", index);
    return;
  }
  if (!event) violation(call, "succeeded without an event");
  if (clWaitForEvents(1, &event) != CL_SUCCESS) violation(call, "its event did not complete");
  clReleaseEvent(event);
}

static void check_no_event(const char *call, clgpu_status status, cl_event event) {
  if (event != STALE_EVENT && event != NULL) {
    violation(call, "failed with %s but gave an event", clgpu_status_name(status));
  }
}

/* ---- making and freeing ---- */

static void free_slot(int index) {
  membuf_slot *slot = &membufs[index];
  prime_last_error();
  clgpu_membuf_free(slot->buffer);
  check_message_untouched("clgpu_membuf_free");
  check_released("clgpu_membuf_free", index);
  memset(slot, 0, sizeof *slot);
}

/* What every create function's outcome must be; a success fills the slot. */
static void finish_create(const char *call, clgpu_status status, int index, clgpu_membuf *made,
                          int out_given, clgpu_membuf_kind kind, clgpu_context *context,
                          clgpu_type type, size_t count, size_t capacity, clgpu_space space,
                          const clgpu_membuf_options *options, uint8_t *storage) {
  if (status != CLGPU_SUCCESS) {
    if (out_given && made) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!made || made == STALE_MEMBUF) violation(call, "succeeded without a buffer");
  membuf_slot *slot = &membufs[index];
  memset(slot, 0, sizeof *slot);
  slot->buffer = made;
  slot->kind = kind;
  slot->context = context;
  slot->type = type;
  slot->element_size = clgpu_type_size(type);
  slot->storage = storage;
  slot->fixed_capacity = kind == CLGPU_MEMBUF_FIXED ? capacity : 0;
  copy_text(membuf_names[index], options ? options->name : NULL);
  slot->named_type = options && options->type_name;
  copy_text(membuf_type_names[index], options ? options->type_name : NULL);
  if (storage) {
    memcpy(membuf_shadow[index], storage, count * slot->element_size);
    slot->known = count;
  }
  clgpu_membuf_info info = membuf_info(call, index);
  int on_host = space == CLGPU_SPACE_HOST;
  if (info.size != count || info.capacity != capacity) {
    violation(call, "made a buffer of size %zu and capacity %zu, asked %zu and %zu", info.size,
              info.capacity, count, capacity);
  }
  if (info.host_current != on_host || info.device_current != !on_host ||
      info.host_allocated != on_host || info.device_allocated != !on_host) {
    violation(call, "made a buffer current and allocated on the %s %d/%d, the device %d/%d", "host",
              info.host_current, info.host_allocated, info.device_current, info.device_allocated);
  }
  if (info.moves_to_host || info.moves_to_device || info.bytes_to_host || info.bytes_to_device) {
    violation(call, "made a buffer that has moves already");
  }
}

static void op_membuf_create_host(byte_reader *in) {
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_type type = take_membuf_type(in);
  size_t count = take_membuf_count(in, 16);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  unsigned refusals = 0;
  if (!out_given || !clgpu_type_size(type) || overflows(type, count)) refusals |= REFUSE_INVALID;
  /* A large request that can be granted would allocate for real. */
  if (!refusals && count > MEMBUF_MAX_COUNT) return;
  free_slot(index);
  char call[512];
  snprintf(call, sizeof call, "clgpu_membuf_create_host(type %d, count %zu, options %s, %s)",
           (int)type, count, membuf_options_word(options, shown), out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status = clgpu_membuf_create_host(type, count, options, out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_HOST, NULL, type, count, count,
                CLGPU_SPACE_HOST, options, NULL);
  check_membufs(call);
}

static clgpu_context *take_membuf_context(byte_reader *in) {
  clgpu_context *contexts[] = {world.context, world.context, world.other, NULL};
  return contexts[take_byte(in) % COUNT_OF(contexts)];
}

static void op_membuf_create(byte_reader *in) {
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_context *context = take_membuf_context(in);
  clgpu_type type = take_membuf_type(in);
  size_t count = take_membuf_count(in, 16);
  clgpu_space space = take_space(in);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  unsigned refusals = 0;
  if (!out_given || !context || !valid_space(space) || !clgpu_type_size(type) ||
      overflows(type, count)) {
    refusals |= REFUSE_INVALID;
  }
  if (!refusals && count > MEMBUF_MAX_COUNT) {
    if (space != CLGPU_SPACE_DEVICE || !beyond_device(type, count)) return;
    refusals |= REFUSE_BUFFER_SIZE;
  }
  free_slot(index);
  char call[512];
  snprintf(call, sizeof call,
           "clgpu_membuf_create(%s, type %d, count %zu, space %d, options %s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           (int)type, count, (int)space, membuf_options_word(options, shown),
           out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status =
      clgpu_membuf_create(context, type, count, space, options, out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_device_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_HOST_DEVICE, context, type,
                count, count, space, options, NULL);
  check_membufs(call);
}

static void op_membuf_create_fixed(byte_reader *in) {
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_context *contexts[] = {world.context, world.context, NULL, world.other};
  clgpu_context *context = contexts[take_byte(in) % COUNT_OF(contexts)];
  clgpu_type type = take_membuf_type(in);
  uint8_t storage_mode = take_byte(in) % 8;
  size_t size = clgpu_type_size(type);
  size_t offset = storage_mode == 1 ? 1 : 0;
  size_t room = size ? (sizeof fixed_storage[0] - offset) / size : MEMBUF_MAX_COUNT;
  if (room > MEMBUF_MAX_COUNT) room = MEMBUF_MAX_COUNT;
  size_t capacity;
  switch (take_byte(in) % 8) {
    case 0:
      capacity = room;
      break;
    case 1:
      capacity = 1 + take_byte(in) % room;
      break;
    case 2:
      capacity = take_byte(in) % 33;
      break;
    case 3:
      capacity = 0;
      break;
    case 4:
      capacity = room + 1 + take_byte(in);
      break;
    case 5:
      capacity = SIZE_MAX / 3;
      break;
    case 6:
      capacity = SIZE_MAX;
      break;
    default:
      capacity = take_count(in);
      break;
  }
  size_t count = take_membuf_count(in, capacity);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options options_storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &options_storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  uint8_t seed = take_byte(in);
  uint8_t *storage = storage_mode == 0 ? NULL : fixed_storage[index] + offset;
  unsigned refusals = 0;
  if (!out_given || !storage || !size || overflows(type, capacity) || capacity == 0 ||
      count > capacity || (size && offset % size != 0)) {
    refusals |= REFUSE_INVALID;
  }
  /* A capacity past the storage would be the caller's error. */
  if (!refusals && capacity > room) return;
  free_slot(index);
  memset(fixed_storage[index], CANARY, sizeof fixed_storage[0]);
  size_t filled = (capacity < room ? capacity : room) * (size ? size : 1);
  write_pattern(fixed_storage[index] + offset, filled, seed, index);
  memcpy(fixed_before, fixed_storage[index], sizeof fixed_before);
  char call[512];
  snprintf(call, sizeof call,
           "clgpu_membuf_create_fixed(%s, type %d, storage %s, capacity %zu, count %zu, options "
           "%s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           (int)type,
           !storage ? "NULL"
           : offset ? "misaligned by 1"
                    : "aligned",
           capacity, count, membuf_options_word(options, shown), out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status = clgpu_membuf_create_fixed(context, type, storage, capacity, count, options,
                                                  out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  if (memcmp(fixed_before, fixed_storage[index], sizeof fixed_before) != 0) {
    violation(call, "wrote to the storage it was given");
  }
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_FIXED, context, type, count,
                capacity, CLGPU_SPACE_HOST, options, storage);
  check_membufs(call);
}

static void op_membuf_free(byte_reader *in) {
  int index = take_slot(in);
  if (index < 0) {
    prime_last_error();
    clgpu_membuf_free(NULL);
    check_message_untouched("clgpu_membuf_free(NULL)");
  } else {
    free_slot(index);
  }
  check_membufs("clgpu_membuf_free");
}

/* ---- moving ---- */

static void op_membuf_move(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_access access = take_access(in);
  wait_args wait;
  take_wait(in, buffer ? membufs[index].context : world.context, &wait);
  int want_event = take_byte(in) % 2;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space) || !valid_access(access) || wait.bad) {
    refusals |= REFUSE_INVALID;
  }
  if (buffer && space == CLGPU_SPACE_DEVICE && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  clgpu_membuf_info before = info_before(index);
  char call[256], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_move(%s, space %d, access %d, %u, %s, %s)",
           slot_word(index, shown), (int)space, (int)access, wait.count,
           wait.foreign ? "other context's list"
           : wait.list  ? "list"
                        : "NULL",
           want_event ? "&event" : "NULL");
  cl_event event = STALE_EVENT;
  prime_last_error();
  clgpu_status status =
      clgpu_membuf_move(buffer, space, access, wait.count, wait.list, want_event ? &event : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  if (!(wait.foreign && !refusals && is_opencl_code(status))) {
    expect_refusals(call, status, refusals);
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(call, status, event);
    check_unchanged(call, status, index, &before);
  } else {
    finish_event(call, want_event, event, index);
    check_moved(call, index, &before, space == CLGPU_SPACE_DEVICE, access);
  }
  check_membufs(call);
}

static void op_membuf_touch(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_membuf_info before = info_before(index);
  int side = space == CLGPU_SPACE_DEVICE;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space)) refusals |= REFUSE_INVALID;
  if (buffer && valid_space(space) &&
      ((side && host_only(index)) || !(side ? before.device_allocated : before.host_allocated))) {
    refusals |= REFUSE_WRONG_SPACE;
  }
  char call[128], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_touch(%s, space %d)", slot_word(index, shown),
           (int)space);
  prime_last_error();
  clgpu_status status = clgpu_membuf_touch(buffer, space);
  check_call(call, status, STATUS_SET(membuf_touch_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, index, &before);
  } else {
    clgpu_membuf_info after = membuf_info(call, index);
    if ((side ? !after.device_current || after.host_current
              : !after.host_current || after.device_current) ||
        after.size != before.size || after.capacity != before.capacity) {
      violation(call, "did not make the %s the only current side of buffer #%d",
                side ? "device" : "host", index);
    }
    const int none[2] = {0, 0};
    check_moves_added(call, index, &before, none);
    /* The other side's data becomes the buffer's, and the fuzzer never
     * wrote it there. */
    if (!(side ? before.device_current : before.host_current)) membufs[index].known = 0;
  }
  check_membufs(call);
}

/* ---- reallocation and assignment ---- */

static void op_membuf_reallocate(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_membuf_info before = info_before(index);
  size_t capacity = take_membuf_count(in, buffer ? before.capacity : 16);
  size_t size = take_membuf_count(in, capacity);
  int side = space == CLGPU_SPACE_DEVICE;
  int fixed = buffer && membufs[index].kind == CLGPU_MEMBUF_FIXED;
  clgpu_type type = buffer ? membufs[index].type : CLGPU_UINT8;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space) || capacity == 0 || size > capacity) {
    refusals |= REFUSE_INVALID;
  }
  if (buffer && side && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  if (fixed && capacity > membufs[index].fixed_capacity) refusals |= REFUSE_CAPACITY;
  if (buffer && !fixed && overflows(type, capacity)) refusals |= REFUSE_INVALID;
  if (!refusals && !fixed && capacity > MEMBUF_MAX_COUNT) {
    if (!side || !beyond_device(type, capacity)) return;
    refusals |= REFUSE_BUFFER_SIZE;
  }
  char call[192], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_reallocate(%s, size %zu, space %d, capacity %zu)",
           slot_word(index, shown), size, (int)space, capacity);
  prime_last_error();
  clgpu_status status = clgpu_membuf_reallocate(buffer, size, space, capacity);
  check_call(call, status, STATUS_SET(membuf_reallocate_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  clgpu_membuf_info after = membuf_info(call, index);
  size_t expected_capacity = fixed ? membufs[index].fixed_capacity : capacity;
  if (after.size != size || after.capacity != expected_capacity) {
    violation(call, "left size %zu and capacity %zu, expected %zu and %zu", after.size,
              after.capacity, size, expected_capacity);
  }
  if ((side ? !after.device_current || after.host_current
            : !after.host_current || after.device_current)) {
    violation(call, "did not leave the %s the only current side", side ? "device" : "host");
  }
  if (!fixed && (side ? after.host_allocated : after.device_allocated)) {
    violation(call, "kept the other side's allocation");
  }
  size_t keep = size < before.size ? size : before.size;
  int expected_moves[2] = {0, 0};
  if (keep > 0 && !(side ? before.device_current : before.host_current)) expected_moves[side] = 1;
  check_moves_added(call, index, &before, expected_moves);
  if (membufs[index].known > keep) membufs[index].known = keep;
  check_membufs(call);
}

static void op_membuf_assign(byte_reader *in) {
  int to = take_slot(in);
  int from = take_slot(in);
  if (take_byte(in) % 4 == 0) from = to;
  clgpu_membuf *destination = handle_of(to);
  clgpu_membuf *source = handle_of(from);
  clgpu_membuf_info before_to = info_before(to), before_from = info_before(from);
  unsigned refusals = 0;
  if (!destination || !source || destination == source) {
    refusals |= REFUSE_INVALID;
  } else {
    if (membufs[to].type != membufs[from].type) refusals |= REFUSE_TYPE;
    if (membufs[to].kind == CLGPU_MEMBUF_FIXED && before_from.size > membufs[to].fixed_capacity) {
      refusals |= REFUSE_CAPACITY;
    }
  }
  char call[160], shown_to[48], shown_from[48];
  snprintf(call, sizeof call, "clgpu_membuf_assign(%s, %s)", slot_word(to, shown_to),
           slot_word(from, shown_from));
  prime_last_error();
  clgpu_status status = clgpu_membuf_assign(destination, source);
  check_call(call, status, STATUS_SET(membuf_assign_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, to, &before_to);
    check_unchanged(call, status, from, &before_from);
    check_membufs(call);
    return;
  }
  clgpu_membuf_info after_to = membuf_info(call, to), after_from = membuf_info(call, from);
  size_t expected_capacity = membufs[to].kind == CLGPU_MEMBUF_FIXED  ? membufs[to].fixed_capacity
                             : before_from.size > before_to.capacity ? before_from.size
                                                                     : before_to.capacity;
  if (after_to.size != before_from.size || after_to.capacity != expected_capacity ||
      !after_to.host_current || after_to.device_current) {
    violation(call,
              "left the destination of size %zu, capacity %zu, current host %d device %d; "
              "expected size %zu, capacity %zu, the host only",
              after_to.size, after_to.capacity, after_to.host_current, after_to.device_current,
              before_from.size, expected_capacity);
  }
  if (after_from.size != before_from.size || after_from.capacity != before_from.capacity ||
      after_from.host_current != before_from.host_current ||
      after_from.device_current != before_from.device_current ||
      after_from.host_allocated != before_from.host_allocated ||
      after_from.device_allocated != before_from.device_allocated) {
    violation(call, "changed the source's record");
  }
  const int none[2] = {0, 0};
  const int read_back[2] = {before_from.size > 0 && !before_from.host_current, 0};
  check_moves_added(call, to, &before_to, none);
  check_moves_added(call, from, &before_from, read_back);
  size_t known = membufs[from].known;
  memcpy(membuf_shadow[to], membuf_shadow[from], known * membufs[from].element_size);
  membufs[to].known = known;
  check_membufs(call);
}

/* ---- the data ---- */

static void op_membuf_host(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_access access = take_access(in);
  int data_given = take_byte(in) % 8 != 0;
  uint8_t seed = take_byte(in);
  unsigned refusals = 0;
  if (!buffer || !valid_access(access) || !data_given) refusals |= REFUSE_INVALID;
  clgpu_membuf_info before = info_before(index);
  char call[160], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_host(%s, access %d, %s)", slot_word(index, shown),
           (int)access, data_given ? "&data" : "NULL");
  void *data = STALE_DATA;
  prime_last_error();
  clgpu_status status = clgpu_membuf_host(buffer, access, data_given ? &data : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    if (data != STALE_DATA && data != NULL) violation(call, "failed but gave a pointer");
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  membuf_slot *slot = &membufs[index];
  if (!data || data == STALE_DATA || data != clgpu_membuf_host_pointer(buffer)) {
    violation(call, "gave a pointer that is not the buffer's host side");
  }
  check_moved(call, index, &before, 0, access);
  /* check_moved forgot the contents of a WRITE_ONLY move; the others must
   * have brought back what was written, through the device and back too. */
  check_membufs(call);
  if (access != CLGPU_READ_ONLY) {
    size_t bytes = before.size * slot->element_size;
    write_pattern(data, bytes, seed, index);
    memcpy(membuf_shadow[index], data, bytes);
    slot->known = before.size;
  }
}

static void op_membuf_device_array(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_access access = take_access(in);
  wait_args wait;
  take_wait(in, buffer ? membufs[index].context : world.context, &wait);
  uint8_t flags = take_byte(in);
  int want_event = flags & 1;
  int out_given = (flags & 6) != 6;
  unsigned refusals = 0;
  if (!buffer || !valid_access(access) || wait.bad || !out_given) refusals |= REFUSE_INVALID;
  if (buffer && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  clgpu_membuf_info before = info_before(index);
  char call[256], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_device_array(%s, access %d, %u, %s, %s, %s)",
           slot_word(index, shown), (int)access, wait.count,
           wait.foreign ? "other context's list"
           : wait.list  ? "list"
                        : "NULL",
           want_event ? "&event" : "NULL", out_given ? "&out" : "NULL");
  clgpu_array view;
  fill_sentinel(&view);
  cl_event event = STALE_EVENT;
  prime_last_error();
  clgpu_status status = clgpu_membuf_device_array(
      buffer, access, wait.count, wait.list, want_event ? &event : NULL, out_given ? &view : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  if (!(wait.foreign && !refusals && is_opencl_code(status))) {
    expect_refusals(call, status, refusals);
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(call, status, event);
    if (!still_sentinel(&view)) violation(call, "failed but wrote *out");
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  finish_event(call, want_event, event, index);
  cl_mem memory = clgpu_membuf_device_memory(buffer);
  if (!memory || view.buffer != memory || view.type != membufs[index].type || view.rank != 1 ||
      view.shape[0] != before.size || view.offset != 0 || !clgpu_array_is_contiguous(&view)) {
    violation(call, "gave a view that is not the buffer's %zu elements", before.size);
  }
  clgpu_status checked = clgpu_array_check(&view);
  if (checked != CLGPU_SUCCESS) {
    violation(call, "gave a view that clgpu_array_check refuses with %s",
              clgpu_status_name(checked));
  }
  check_moved(call, index, &before, 1, access);
  check_membufs(call);
}

/* ---- what a buffer is: info, raw sides, names ---- */

static void op_membuf_info(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  int out_given = take_byte(in) % 4 != 0;
  clgpu_membuf_info info, untouched;
  memset(&info, 0x5a, sizeof info);
  untouched = info;
  char call[128], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_get_info(%s, %s)", slot_word(index, shown),
           out_given ? "&out" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_membuf_get_info(buffer, out_given ? &info : NULL);
  check_call(call, status, STATUS_SET(membuf_plain_statuses, 0), 0);
  expect_refusals(call, status, !buffer || !out_given ? REFUSE_INVALID : 0);
  if (status != CLGPU_SUCCESS && memcmp(&info, &untouched, sizeof info) != 0) {
    violation(call, "failed but wrote *out");
  }
  prime_last_error();
  if (!buffer && (clgpu_membuf_host_pointer(NULL) || clgpu_membuf_device_memory(NULL))) {
    violation("clgpu_membuf_host_pointer/clgpu_membuf_device_memory", "gave non-NULL for NULL");
  }
  if (buffer) {
    (void)clgpu_membuf_host_pointer(buffer);
    (void)clgpu_membuf_device_memory(buffer);
  }
  check_message_untouched("clgpu_membuf_host_pointer/clgpu_membuf_device_memory");
  check_membufs(call);
}

static void op_membuf_name(byte_reader *in) {
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  int type_name = take_byte(in) % 2;
  char raw[MAX_TEXT + 1];
  const char *text = type_name ? TAKE_TEXT(in, membuf_type_name_words, raw)
                               : TAKE_TEXT(in, membuf_name_words, raw);
  char call[256], shown[48], text_shown[128];
  snprintf(call, sizeof call, "%s(%s, %s)",
           type_name ? "clgpu_membuf_set_type_name" : "clgpu_membuf_set_name",
           slot_word(index, shown), quoted(text, text_shown));
  prime_last_error();
  clgpu_status status =
      type_name ? clgpu_membuf_set_type_name(buffer, text) : clgpu_membuf_set_name(buffer, text);
  check_call(call, status, STATUS_SET(membuf_name_statuses, 0), 0);
  expect_refusals(call, status, buffer ? 0 : REFUSE_INVALID);
  if (status == CLGPU_SUCCESS) {
    if (type_name) {
      membufs[index].named_type = text != NULL;
      copy_text(membuf_type_names[index], text);
    } else {
      copy_text(membuf_names[index], text);
    }
  }
  check_membufs(call);
}

/* ---- move reports ---- */

static void op_membuf_report_set(byte_reader *in) {
  clgpu_context *contexts[] = {world.context, world.other, NULL};
  clgpu_context *context = contexts[take_byte(in) % COUNT_OF(contexts)];
  uint8_t mode = take_byte(in) % 3;
  report_target *target = target_of(context);
  clgpu_move_report_fn callback = mode == 0 ? membuf_report : NULL;
  void *user = mode == 1 ? NULL : (void *)(target ? target : &report_targets[0]);
  char call[160];
  snprintf(call, sizeof call, "clgpu_context_set_move_report(%s, %s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           callback ? "callback" : "NULL", user ? "&target" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_context_set_move_report(context, callback, user);
  check_call(call, status, STATUS_SET(membuf_plain_statuses, 0), 0);
  expect_refusals(call, status, context ? 0 : REFUSE_INVALID);
  if (status == CLGPU_SUCCESS) target->on = callback != NULL;
  check_membufs(call);
}

/* The line the header describes, built from its words. */
static void expected_line(uint64_t bytes, clgpu_space to, const char *type_name, const char *name,
                          char *out, size_t size) {
  static const char *const units[] = {"B", "KB", "MB", "GB"};
  double value = (double)bytes;
  unsigned unit = 0;
  for (; unit < 3 && value >= 1024.0; unit++) value /= 1024.0;
  size_t used = (size_t)snprintf(out, size, "Moved %6.1f %s to the %s: %s", value, units[unit],
                                 to == CLGPU_SPACE_HOST ? "HOST" : "DEVICE", type_name);
  if (name && *name && used < size) snprintf(out + used, size - used, " %s", name);
}

static void op_membuf_report_format(byte_reader *in) {
  uint64_t bytes;
  switch (take_byte(in) % 8) {
    case 0:
      bytes = take_byte(in);
      break;
    case 1:
      bytes = 1023 + take_byte(in) % 3;
      break;
    case 2:
      bytes = (uint64_t)1 << (take_byte(in) % 64);
      break;
    case 3:
      bytes = UINT64_MAX - take_byte(in);
      break;
    case 4:
      bytes = take_u64(in);
      break;
    case 5:
      bytes = ((uint64_t)1 << 20) * take_byte(in) - take_byte(in) % 2;
      break;
    case 6:
      bytes = 0;
      break;
    default:
      bytes = ((uint64_t)1 << 30) * take_byte(in);
      break;
  }
  clgpu_space to = take_space(in);
  char raw_type[MAX_TEXT + 1], raw_name[MAX_TEXT + 1];
  const char *type_name = TAKE_TEXT(in, membuf_type_name_words, raw_type);
  const char *name = TAKE_TEXT(in, membuf_name_words, raw_name);
  uint8_t size_mode = take_byte(in) % 4;
  size_t size = size_mode == 2 ? take_byte(in) % 80 : size_mode == 3 ? FORMAT_ROOM : 0;
  char *text = size_mode == 0 ? NULL : format_text;
  memset(format_text, CANARY, sizeof format_text);
  char call[320], type_shown[128], name_shown[128];
  snprintf(call, sizeof call, "clgpu_move_report_format(%llu, %d, %s, %s, %s, %zu)",
           (unsigned long long)bytes, (int)to, quoted(type_name, type_shown),
           quoted(name, name_shown), text ? "text" : "NULL", size);
  prime_last_error();
  size_t needed = clgpu_move_report_format(bytes, to, type_name, name, text, size);
  size_t full =
      clgpu_move_report_format(bytes, to, type_name, name, format_full, sizeof format_full);
  check_message_untouched(call);
  if (needed != full || full >= sizeof format_full || strlen(format_full) != full) {
    violation(call, "needs %zu bytes one time and %zu another", needed, full);
  }
  if (strncmp(format_full, "Moved ", 6) != 0) violation(call, "does not start with \"Moved \"");
  if (valid_space(to) && type_name) {
    expected_line(bytes, to, type_name, name, format_expected, sizeof format_expected);
    if (strcmp(format_full, format_expected) != 0) {
      char shown[128], expected[128];
      violation(call, "gave %s, the header describes %s", quoted(format_full, shown),
                quoted(format_expected, expected));
    }
  }
  size_t written = text ? size : 0;
  for (size_t i = written; i < sizeof format_text; i++) {
    if ((unsigned char)format_text[i] != CANARY)
      violation(call, "wrote byte %zu, past the size", i);
  }
  if (written == 0) return;
  size_t kept = full < size - 1 ? full : size - 1;
  if (memchr(format_text, '\0', size) != format_text + kept ||
      memcmp(format_text, format_full, kept) != 0) {
    violation(call, "did not cut the line to its first %zu bytes and a NUL", kept);
  }
}

static void op_membuf(byte_reader *in) {
  switch (take_byte(in) % MEMBUF_OP_COUNT) {
    case MOP_CREATE_HOST:
      op_membuf_create_host(in);
      break;
    case MOP_CREATE:
      op_membuf_create(in);
      break;
    case MOP_CREATE_FIXED:
      op_membuf_create_fixed(in);
      break;
    case MOP_FREE:
      op_membuf_free(in);
      break;
    case MOP_MOVE:
      op_membuf_move(in);
      break;
    case MOP_TOUCH:
      op_membuf_touch(in);
      break;
    case MOP_REALLOCATE:
      op_membuf_reallocate(in);
      break;
    case MOP_ASSIGN:
      op_membuf_assign(in);
      break;
    case MOP_HOST:
      op_membuf_host(in);
      break;
    case MOP_DEVICE_ARRAY:
      op_membuf_device_array(in);
      break;
    case MOP_INFO:
      op_membuf_info(in);
      break;
    case MOP_NAME:
      op_membuf_name(in);
      break;
    case MOP_REPORT_SET:
      op_membuf_report_set(in);
      break;
    default:
      op_membuf_report_format(in);
      break;
  }
}

/* Every buffer an input made is freed, and reports go to the fuzzer again. */
static void finish_membufs(void) {
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer) free_slot(i);
  }
  membuf_reports_on();
}

/* ---- algorithms: reduce, scan, findall, sort, gather, elementwise, workspaces ----
 *
 * These operations are reached through a third escape: the opcode byte 0xfc
 * (OP_ALGORITHM_BYTE) followed by a sub-opcode byte (modulo ALGO_OP_COUNT).
 * No input written before they existed has 0xfc where an opcode is read, so
 * those inputs keep their meaning. They run on three mirrored buffers of the
 * main context (and a small CL_MEM_WRITE_ONLY one), whose bytes are written
 * from a seed before every call and read back after it, and on the views of
 * the array pool (which include invalid, foreign, read-only and broadcast
 * views) for hostile arguments.
 *
 * Every call is held to its header: a documented status, a detail message on
 * failure, no event and no changed byte anywhere after a refusal. A success
 * over views the fuzzer made itself, with built-in operations or with the
 * expressions of a fixed table whose meaning it knows, is compared byte for
 * byte with a host model of every mirrored buffer (outputs hold the host
 * reference, every other byte is unchanged). Hostile expressions, drawn from
 * fragments (unbalanced delimiters, comments, '#', ';', OpenCL keywords,
 * long identifiers) and raw bytes, count against a build budget: each may
 * reach POCL's compiler, which takes about a second, so once
 * ALGO_BUILD_BUDGET builds have been spent only fixed expressions are used,
 * and those build once.
 */

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
  ALGO_OP_COUNT
};

#define OP_ALGORITHM_BYTE 0xfc
#define ALGO_BYTES 4096
#define ALGO_SPACE_BYTES 65536
#define ALGO_MAX_N 300
#define ALGO_BUILD_BUDGET 40
#define ALGO_WORKSPACES 4
#define ALGO_KERNELS 2

/* The mirrored buffers: A, B and C of ALGO_BYTES, and a write-only one. */
enum { ALG_A, ALG_B, ALG_C, ALG_WRITE_ONLY, ALG_COUNT };

typedef struct algo_world {
  cl_mem buffers[ALG_COUNT];
  size_t sizes[ALG_COUNT];
  cl_mem space; /* where workspaces are wrapped; not mirrored */
  unsigned builds;
  int fp64;
  int fp16;
} algo_world;

static algo_world algo;
static uint8_t algo_before[ALG_COUNT][ALGO_BYTES];
static uint8_t algo_after[ALG_COUNT][ALGO_BYTES];
static uint8_t algo_model[ALG_COUNT][ALGO_BYTES];

/* A workspace an input made, and an elementwise kernel object. */
typedef struct algo_workspace {
  clgpu_workspace *workspace;
  clgpu_context *context;
  cl_mem buffer; /* the region's buffer, as clgpu_workspace_region gives it */
  size_t offset;
  size_t size;
} algo_workspace;

typedef struct algo_kernel {
  clgpu_elementwise *kernel;
  clgpu_context *context;
  int config; /* a fixed configuration, or -1 */
  clgpu_type type;
  size_t num_args;
  clgpu_elementwise_arg args[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  int checkable; /* fixed names, operation and options: the model knows the result */
} algo_kernel;

static algo_workspace algo_workspaces[ALGO_WORKSPACES];
static algo_kernel algo_kernels[ALGO_KERNELS];

static const clgpu_status algo_statuses[] = {CLGPU_SUCCESS,
                                             CLGPU_INVALID_ARGUMENT,
                                             CLGPU_TYPE_MISMATCH,
                                             CLGPU_SHAPE_MISMATCH,
                                             CLGPU_INVALID_OUTPUT,
                                             CLGPU_UNSUPPORTED_FEATURE,
                                             CLGPU_MISMATCHED_OBJECTS,
                                             CLGPU_MISALIGNED_VIEW,
                                             CLGPU_VIEW_OUT_OF_BOUNDS,
                                             CLGPU_WORKSPACE_WRONG_DEVICE,
                                             CLGPU_WORKSPACE_WRONG_OPERATION,
                                             CLGPU_WORKSPACE_WRONG_ALGORITHM,
                                             CLGPU_WORKSPACE_TOO_SMALL,
                                             CLGPU_WORKSPACE_ALIASES_ARGUMENT,
                                             CLGPU_CL_BUILD_PROGRAM_FAILURE};
static const clgpu_status elementwise_create_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_UNSUPPORTED_FEATURE, CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status workspace_create_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_CL_INVALID_BUFFER_SIZE,
    CLGPU_CL_MEM_OBJECT_ALLOCATION_FAILURE, CLGPU_CL_OUT_OF_RESOURCES, CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status workspace_wrap_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_MISMATCHED_OBJECTS, CLGPU_WORKSPACE_MISALIGNED,
    CLGPU_WORKSPACE_TOO_SMALL};
static const clgpu_status plain_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT};

static void algo_setup(void) {
  cl_context context = clgpu_context_cl_context(world.context);
  const size_t sizes[ALG_COUNT] = {ALGO_BYTES, ALGO_BYTES, ALGO_BYTES, 256};
  for (int i = 0; i < ALG_COUNT; i++) {
    algo.sizes[i] = sizes[i];
    algo.buffers[i] =
        make_buffer(context, i == ALG_WRITE_ONLY ? CL_MEM_WRITE_ONLY : CL_MEM_READ_WRITE, sizes[i]);
  }
  algo.space = make_buffer(context, CL_MEM_READ_WRITE, ALGO_SPACE_BYTES);
  const clgpu_device_info *info = clgpu_context_device_info(world.context);
  algo.fp64 = strstr(info->extensions, "cl_khr_fp64") != NULL;
  algo.fp16 = strstr(info->extensions, "cl_khr_fp16") != NULL;
}

static void algo_teardown(void) {
  for (int i = 0; i < ALG_COUNT; i++) {
    if (algo.buffers[i]) clReleaseMemObject(algo.buffers[i]);
  }
  if (algo.space) clReleaseMemObject(algo.space);
  memset(&algo, 0, sizeof algo);
}

/* ---- elements on the host ---- */

static int is_real(clgpu_type type) {
  return type == CLGPU_HALF || type == CLGPU_FLOAT || type == CLGPU_DOUBLE;
}

static int is_signed_type(clgpu_type type) {
  return type == CLGPU_INT8 || type == CLGPU_INT16 || type == CLGPU_INT32 || type == CLGPU_INT64;
}

static uint64_t load_bits(const uint8_t *p, size_t size) {
  uint64_t bits = 0;
  for (size_t i = 0; i < size; i++) bits |= (uint64_t)p[i] << (8 * i);
  return bits;
}

static void store_bits(uint8_t *p, size_t size, uint64_t bits) {
  for (size_t i = 0; i < size; i++) p[i] = (uint8_t)(bits >> (8 * i));
}

/* Half precision, without libm: exact for the small integers the fuzzer
 * writes, and read back exactly. */
static uint16_t half_from(double value) {
  if (value == 0) return 0;
  uint16_t sign = value < 0 ? 0x8000 : 0;
  double magnitude = value < 0 ? -value : value;
  int exponent = 0;
  while (magnitude >= 2) {
    magnitude /= 2;
    exponent++;
  }
  while (magnitude < 1) {
    magnitude *= 2;
    exponent--;
  }
  if (exponent > 15) return sign | 0x7c00;
  return (uint16_t)(sign | (uint16_t)((exponent + 15) << 10) |
                    (uint16_t)((magnitude - 1) * 1024 + 0.5));
}

static double half_value(uint16_t bits) {
  int exponent = (bits >> 10) & 31;
  double value = bits & 1023;
  if (exponent == 0) {
    value /= 1024;
    exponent = -14;
  } else {
    value = 1 + value / 1024;
    exponent -= 15;
  }
  for (; exponent > 0; exponent--) value *= 2;
  for (; exponent < 0; exponent++) value /= 2;
  return bits & 0x8000 ? -value : value;
}

/* An element as an integer (sign- or zero-extended) or as a real. */
static int64_t element_int(const uint8_t *p, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  uint64_t bits = load_bits(p, size);
  if (is_signed_type(type) && size < 8 && (bits >> (8 * size - 1)) & 1) {
    bits |= ~(uint64_t)0 << (8 * size);
  }
  return (int64_t)bits;
}

static double element_real(const uint8_t *p, clgpu_type type) {
  if (type == CLGPU_HALF) return half_value((uint16_t)load_bits(p, 2));
  if (type == CLGPU_FLOAT) {
    float value;
    memcpy(&value, p, sizeof value);
    return value;
  }
  if (type == CLGPU_DOUBLE) {
    double value;
    memcpy(&value, p, sizeof value);
    return value;
  }
  if (type == CLGPU_UINT64) return (double)(uint64_t)element_int(p, type);
  return (double)element_int(p, type);
}

/* Store a value computed on the host: integers keep their low bits, reals
 * are converted (exactly, for the values the models compute). */
static void store_int(uint8_t *p, clgpu_type type, uint64_t value) {
  if (is_real(type)) {
    double real = (double)(int64_t)value;
    if (type == CLGPU_HALF) {
      store_bits(p, 2, half_from(real));
    } else if (type == CLGPU_FLOAT) {
      float narrow = (float)real;
      memcpy(p, &narrow, sizeof narrow);
    } else {
      memcpy(p, &real, sizeof real);
    }
    return;
  }
  store_bits(p, clgpu_type_size(type), value);
}

static void store_real(uint8_t *p, clgpu_type type, double value) {
  if (!is_real(type)) {
    store_int(p, type, (uint64_t)(int64_t)value);
    return;
  }
  if (type == CLGPU_HALF) {
    store_bits(p, 2, half_from(value));
  } else if (type == CLGPU_FLOAT) {
    float narrow = (float)value;
    memcpy(p, &narrow, sizeof narrow);
  } else {
    memcpy(p, &value, sizeof value);
  }
}

/* The order of sort.h, as an unsigned image of the bits: integers by
 * value, floats -inf < ... < -0 < +0 < ... < +inf < NaN (NaNs by their bits
 * with the sign cleared). */
static uint64_t order_image(const uint8_t *p, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  uint64_t bits = load_bits(p, size);
  uint64_t sign = (uint64_t)1 << (8 * size - 1);
  uint64_t mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
  if (!is_real(type)) return is_signed_type(type) ? bits ^ sign : bits;
  uint64_t infinity = type == CLGPU_HALF    ? 0x7c00
                      : type == CLGPU_FLOAT ? 0x7f800000
                                            : 0x7ff0000000000000ull;
  if ((bits & ~sign) > infinity) bits &= ~sign;
  return bits & sign ? ~bits & mask : bits | sign;
}

/* ---- views over the mirrored buffers ---- */

/* The byte offset of the element with row-major index k. */
static size_t element_offset(const clgpu_array *view, size_t k) {
  int64_t offset = (int64_t)view->offset;
  int64_t size = (int64_t)clgpu_type_size(view->type);
  for (unsigned d = view->rank; d-- > 0;) {
    int64_t index = (int64_t)(k % view->shape[d]);
    k /= view->shape[d];
    offset += index * (int64_t)view->strides[d] * size;
  }
  return (size_t)offset;
}

/* What a view taken for a call is: one the fuzzer made over a mirrored
 * buffer (valid, its elements known), or something else. */
typedef struct algo_view {
  clgpu_array view;
  const clgpu_array *pointer; /* what the call gets: &view, a pool view, or NULL */
  int made;
  int buffer; /* ALG_* when made */
  size_t count;
} algo_view;

/* What a call would like a view to be: a type, a rank and a shape, and the
 * buffer it would best be in. The bytes may ignore any of it. */
typedef struct view_wish {
  clgpu_type type;
  unsigned rank;
  size_t shape[2];
  int buffer;
} view_wish;

static view_wish wish_1d(clgpu_type type, size_t n, int buffer) {
  view_wish wish = {type, 1, {n, 1}, buffer};
  return wish;
}

static clgpu_type take_algo_type(byte_reader *in) {
  return (clgpu_type)(1 + take_byte(in) % CLGPU_DOUBLE);
}

/* A view for a call. Mode 0 is NULL, mode 1 a view of the array pool (any
 * of its hostile views), the rest a view the fuzzer makes over a mirrored
 * buffer: the wish, or another type, length or buffer, with a stride of 1,
 * 2, 3, -1 or 0 along each dimension and an aligned offset. The view is
 * shortened until it fits its buffer. */
static void take_algo_view(byte_reader *in, const array_run *pool, view_wish wish,
                           algo_view *out) {
  memset(out, 0, sizeof *out);
  uint8_t mode = take_byte(in);
  if (mode % 16 == 15) return;
  if (mode % 16 == 14) {
    out->pointer = take_view(in, pool);
    return;
  }
  uint8_t changes = take_byte(in);
  clgpu_type type = changes & 1 ? take_algo_type(in) : wish.type;
  unsigned rank = changes & 2 ? 1u + take_byte(in) % 2u : wish.rank;
  size_t shape[2] = {wish.shape[0], rank == 2 ? wish.shape[1] : 1};
  if (rank != wish.rank) {
    shape[0] = wish.rank == 2 ? wish.shape[0] * wish.shape[1] : wish.shape[0];
    shape[1] = 1;
  }
  if (changes & 4) {
    shape[0] = take_byte(in) % (rank == 2 ? 12 : ALGO_MAX_N + 1);
    if (rank == 2) shape[1] = take_byte(in) % 40;
  }
  int buffer = changes & 8 ? take_byte(in) % ALG_COUNT : wish.buffer;
  static const ptrdiff_t steps[] = {1, 1, 1, 2, -1, 3, 0, -2};
  ptrdiff_t step[2] = {steps[(mode >> 4) % 8], 1};
  if (rank == 2) {
    uint8_t layout = take_byte(in) % 4;
    /* Row-major, column-major, rows reversed, or a stepped row. */
    if (layout == 0) {
      step[0] = (ptrdiff_t)shape[1];
      step[1] = 1;
    } else if (layout == 1) {
      step[0] = 1;
      step[1] = (ptrdiff_t)shape[0];
    } else if (layout == 2) {
      step[0] = -(ptrdiff_t)shape[1];
      step[1] = 1;
    } else {
      step[0] = 2 * (ptrdiff_t)shape[1];
      step[1] = 2;
    }
  }
  size_t size = clgpu_type_size(type);
  size_t base = (take_byte(in) % 16) * size;
  for (;;) {
    /* The lowest and highest element, in elements from element 0. */
    int64_t low = 0, high = 0;
    int empty = shape[0] == 0 || (rank == 2 && shape[1] == 0);
    for (unsigned d = 0; d < rank && !empty; d++) {
      int64_t span = (int64_t)(shape[d] - 1) * step[d];
      if (span < 0) low += span;
      else high += span;
    }
    size_t offset = base + (size_t)(-low) * size;
    if (empty || offset + (size_t)(high + 1) * size <= algo.sizes[buffer]) {
      if (empty) offset = base;
      size_t count = shape[0] * (rank == 2 ? shape[1] : 1);
      clgpu_status status =
          clgpu_array_strided(algo.buffers[buffer], offset, type, rank, shape, step, &out->view);
      if (status != CLGPU_SUCCESS) {
        violation("clgpu_array_strided", "refused a view inside its buffer: %s (%s)",
                  clgpu_status_name(status), clgpu_last_error());
      }
      out->pointer = &out->view;
      out->made = 1;
      out->buffer = buffer;
      out->count = count;
      return;
    }
    if (base > 0) {
      base = 0;
    } else if (rank == 2 && shape[1] > 1) {
      shape[1] /= 2;
    } else {
      shape[0] /= 2;
    }
  }
}

/* Small values that every type holds and every model computes exactly
 * (sums of a few hundred stay integers below 2^11 for half, 2^24 for
 * float), or any bits at all where only the bits matter. */
static void write_values(const algo_view *view, uint8_t seed, int any_bits) {
  if (!view->made) return;
  clgpu_type type = view->view.type;
  size_t size = clgpu_type_size(type);
  uint32_t state = 0x9e3779b9u * (seed + 1u);
  int spread = seed % 4; /* few values, many, all equal, or two */
  for (size_t k = 0; k < view->count; k++) {
    state = state * 1103515245u + 12345u;
    uint8_t *p = &algo_before[view->buffer][element_offset(&view->view, k)];
    if (any_bits) {
      for (size_t b = 0; b < size; b++) p[b] = (uint8_t)(state >> (8 * (b % 3) + 5) ^ (b * 77));
      continue;
    }
    int value = spread == 2 ? 5 : spread == 3 ? (int)(state >> 16) % 2 : (int)(state >> 16) % 16;
    if (spread == 1) value = (int)(state >> 16) % 16 - 8;
    if (type == CLGPU_HALF) value = value % 4 - 2 + (value < 0);
    if (!is_signed_type(type) && !is_real(type) && value < 0) value = -value;
    store_int(p, type, (uint64_t)(int64_t)value);
  }
}

/* Before a call: the pattern into every mirrored buffer and every array
 * root, so that a refused call is seen to change nothing anywhere. */
static void algo_write_buffers(uint8_t seed) {
  for (int b = 0; b < ALG_COUNT; b++) {
    for (size_t i = 0; i < algo.sizes[b]; i++) {
      algo_before[b][i] = (uint8_t)(seed * 7u + i * 13u + (size_t)b * 101u + (i >> 7));
    }
  }
  write_roots(seed);
}

static void algo_upload(void) {
  cl_command_queue queue = clgpu_context_queue(world.context);
  for (int b = 0; b < ALG_COUNT; b++) {
    if (clEnqueueWriteBuffer(queue, algo.buffers[b], CL_TRUE, 0, algo.sizes[b], algo_before[b], 0,
                             NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueWriteBuffer of an algorithm buffer", 0);
    }
  }
  memcpy(algo_model, algo_before, sizeof algo_model);
}

static void algo_read_buffers(void) {
  read_roots();
  cl_command_queue queue = clgpu_context_queue(world.context);
  for (int b = 0; b < ALG_COUNT; b++) {
    if (clEnqueueReadBuffer(queue, algo.buffers[b], CL_TRUE, 0, algo.sizes[b], algo_after[b], 0,
                            NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueReadBuffer of an algorithm buffer", 0);
    }
  }
}

/* ---- wait lists, events, options ---- */

typedef struct algo_wait {
  cl_uint count;
  const cl_event *list;
  int bad;     /* a count without a list or a list without a count */
  int hostile; /* a NULL entry or an event of another context */
  cl_event events[2];
  char word[48];
} algo_wait;

static void take_algo_wait(byte_reader *in, algo_wait *wait) {
  memset(wait, 0, sizeof *wait);
  wait->events[0] = wait->events[1] = arrays.done;
  uint8_t choice = take_byte(in) % 10;
  switch (choice) {
    case 1:
      wait->count = 1;
      break;
    case 2:
      wait->count = 2;
      break;
    case 3:
      wait->count = 1;
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count 1, list NULL");
      return;
    case 4:
      wait->list = wait->events;
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count 0, list given");
      return;
    case 5:
      wait->count = UINT32_MAX - take_byte(in);
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count %u, list NULL", wait->count);
      return;
    case 7:
      wait->events[0] = NULL;
      wait->count = 1;
      wait->hostile = 1;
      break;
    case 8:
      wait->events[0] = done_on_other;
      wait->count = 1;
      wait->hostile = 1;
      break;
    case 9:
      wait->events[1] = NULL;
      wait->count = 2;
      wait->hostile = 1;
      break;
    default:
      break;
  }
  if (wait->count) wait->list = wait->events;
  snprintf(wait->word, sizeof wait->word, "%u events%s", wait->count,
           wait->hostile ? " (a NULL or foreign one)" : "");
}

static clgpu_context *take_algo_context(byte_reader *in) {
  uint8_t choice = take_byte(in) % 16;
  return choice == 15 ? NULL : choice == 14 ? world.other : world.context;
}

static clgpu_workspace *take_algo_workspace(byte_reader *in, int *slot) {
  uint8_t choice = take_byte(in) % (2 * ALGO_WORKSPACES);
  *slot = -1;
  if (choice >= ALGO_WORKSPACES || !algo_workspaces[choice].workspace) return NULL;
  *slot = choice;
  return algo_workspaces[choice].workspace;
}

static clgpu_algorithm take_algorithm(byte_reader *in) {
  static const int algorithms[] = {
      CLGPU_ALGORITHM_AUTO,  CLGPU_ALGORITHM_AUTO,  CLGPU_ALGORITHM_CHUNKED,
      CLGPU_ALGORITHM_TILED, CLGPU_ALGORITHM_RADIX, CLGPU_ALGORITHM_MERGE,
      5,                     -1};
  return (clgpu_algorithm)algorithms[take_byte(in) % COUNT_OF(algorithms)];
}

/* A call's options: NULL, or an algorithm and maybe a workspace of the
 * input's. */
static const clgpu_call_options *take_call_options(byte_reader *in, clgpu_call_options *storage,
                                                   int *slot) {
  *slot = -1;
  uint8_t mode = take_byte(in) % 4;
  if (mode == 0) return NULL;
  storage->algorithm = take_algorithm(in);
  storage->workspace = mode == 3 ? take_algo_workspace(in, slot) : NULL;
  return storage;
}

/* ---- expressions ---- */

/* Fragments of hostile expressions. */
static const char *const nasty_fragments[] = {
    "(", ")", "((", "))", "[", "]", "{", "}", "/*", "*/", "//", "#", "#define x 1\n", ";",
    "\n", "\\\n", "\"", "'", "a", "b", "x", "i", "+", "0", "1", ",", "?", ":", "__kernel",
    "return", "void", "int", "struct", "typedef", "__global", "barrier(0)", "get_global_id(0)",
    "0); return (A)(x", "x > 1000) + (1", "a // c\n + b", "a < b /* open", "#pragma", "?\?=",
    "\\", "@", "$", "`", "\t", "\xff", "clgpu_", "CLGPU_T", long_identifier, "1e999", "0x",
    "sizeof", "(void)0", "a + b", "x != 0", ".x", "->", "&", "*", "ulong", "half", "double",
};

/* Whether an expression breaks a rule that issue 15 item 9 makes the
 * library enforce for every expression-taking call: comments, preprocessor
 * lines and unbalanced delimiters. */
static int breaks_expression_rules(const char *text) {
  if (!text) return 0;
  if (strstr(text, "//") || strstr(text, "/*") || strchr(text, '#')) return 1;
  int depth[3] = {0, 0, 0};
  for (const char *p = text; *p; p++) {
    int kind = *p == '(' || *p == ')' ? 0 : *p == '[' || *p == ']' ? 1 : *p == '{' || *p == '}' ? 2 : -1;
    if (kind < 0) continue;
    if (*p == '(' || *p == '[' || *p == '{') {
      depth[kind]++;
    } else if (--depth[kind] < 0) {
      return 1;
    }
  }
  return depth[0] || depth[1] || depth[2];
}

/* A hostile expression: 1 to 3 fragments, or raw bytes. Once the build
 * budget is spent, NULL (the caller then uses a fixed expression). */
static const char *take_hostile(byte_reader *in, char buffer[3 * (LONG_LENGTH + 2) + MAX_TEXT]) {
  /* The same bytes are read whether or not the budget is spent, so that an
   * input means the same in a fresh process. */
  uint8_t mode = take_byte(in);
  if (mode % 4 == 0) {
    char raw[MAX_TEXT + 1];
    static const char *const none[] = {""};
    const char *text = TAKE_TEXT(in, none, raw);
    snprintf(buffer, MAX_TEXT + 1, "%s", text ? text : "");
  } else {
    size_t used = 0, count = 1 + mode % 3;
    buffer[0] = '\0';
    for (size_t i = 0; i < count; i++) {
      const char *fragment = nasty_fragments[take_byte(in) % COUNT_OF(nasty_fragments)];
      used += (size_t)snprintf(buffer + used, 3 * (LONG_LENGTH + 2) + MAX_TEXT - used, "%s",
                               fragment);
    }
  }
  return algo.builds >= ALGO_BUILD_BUDGET ? NULL : buffer;
}

typedef struct expression {
  const char *text;
  int fixed; /* the index in the fixed table, or -1 for a hostile one */
  char buffer[3 * (LONG_LENGTH + 2) + MAX_TEXT];
} expression;

/* A fixed expression of `table` (`count` entries), or a hostile one. */
static void take_expression(byte_reader *in, const char *const *table, size_t count,
                            expression *out) {
  uint8_t choice = take_byte(in);
  out->fixed = choice % (count + 2);
  if ((size_t)out->fixed >= count) {
    out->text = take_hostile(in, out->buffer);
    if (out->text) {
      out->fixed = -1;
      return;
    }
    out->fixed = 0;
  }
  out->text = table[out->fixed];
}

/* ---- the shared ending of every algorithm call ---- */

typedef struct algo_call {
  char text[384];
  const algo_view *views[6];
  size_t view_count;
  int checkable; /* the model in algo_model is the exact expected result */
  int must_fail; /* the arguments break a rule the header states */
  const expression *expressions[4];
  size_t expression_count;
  algo_wait wait;
  int want_event;
  cl_event event;
  int workspace_slot;
  clgpu_cache_stats stats;
} algo_call;

static void algo_call_init(algo_call *call) {
  memset(call, 0, sizeof *call);
  call->checkable = 1;
  call->event = STALE_EVENT;
  call->workspace_slot = -1;
}

/* An output that repeats an element: a stride of 0 along a dimension of
 * more than one element. Every output of these calls refuses it. */
static int broadcast_output(const algo_view *view) {
  if (!view->made || !view->pointer) return 0;
  for (unsigned d = 0; d < view->view.rank; d++) {
    if (view->view.shape[d] > 1 && view->view.strides[d] == 0) return 1;
  }
  return 0;
}

static void begin_algo_call(algo_call *call, byte_reader *in) {
  take_algo_wait(in, &call->wait);
  call->want_event = take_byte(in) % 3 == 2;
  call->event = STALE_EVENT;
  call->stats = current_stats();
  prime_last_error();
}

static void add_view(algo_call *call, const algo_view *view) {
  call->views[call->view_count++] = view;
  if (!view->made) call->checkable = 0;
}

static void add_expression(algo_call *call, const expression *taken) {
  call->expressions[call->expression_count++] = taken;
  if (taken->fixed < 0) call->checkable = 0;
}

/* Whether a made view and a byte range of a buffer share a byte. */
static int view_touches(const algo_view *view, cl_mem buffer, size_t first, size_t end) {
  clgpu_location where;
  if (!view->pointer || clgpu_array_check(view->pointer) != CLGPU_SUCCESS) return 0;
  if (clgpu_array_location(view->pointer, &where) != CLGPU_SUCCESS) return 0;
  if (where.base != buffer || where.first == where.end) return 0;
  return where.first < end && first < where.end;
}

/* Once a call's commands are done, the fuzzer's reference is the last one
 * to its buffers (see check_released for the lingering references). */
static void check_algo_references(const char *call) {
  for (int b = 0; b < ALG_COUNT; b++) {
    cl_uint count = memory_references(algo.buffers[b]);
    for (int tries = 0; count != 1 && tries < 1000; tries++) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      count = memory_references(algo.buffers[b]);
    }
    if (count != 1) {
      violation(call, "mirrored buffer %d still has %u references besides the fuzzer's", b,
                count - 1);
    }
  }
}

static void finish_algo_call(algo_call *call, clgpu_status status, status_set set) {
  const char *text = call->text;
  /* FUZZ_API_TRACE=1 lists every algorithm call, to see what an input
   * reaches. */
  static int trace = -1;
  if (trace < 0) trace = getenv("FUZZ_API_TRACE") != NULL;
  if (trace) {
    fprintf(stderr, "  %s -> %s%s\n", text, clgpu_status_name(status),
            status == CLGPU_SUCCESS && call->checkable ? " (checked against the model)" : "");
  }
  check_call(text, status, set, 0);
  clgpu_cache_stats stats = current_stats();
  algo.builds += (unsigned)(stats.builds - call->stats.builds);
  if (call->wait.bad && status == CLGPU_SUCCESS) {
    violation(text, "accepted a wait list that does not match its count (%s)", call->wait.word);
  }
  if (call->wait.hostile && status == CLGPU_SUCCESS) {
    violation(text, "accepted a wait list with a NULL or foreign event (%s)", call->wait.word);
  }
  if (call->must_fail && status == CLGPU_SUCCESS) {
    violation(text, "accepted arguments its header refuses");
  }
  if (status == CLGPU_SUCCESS) {
    for (size_t i = 0; i < call->expression_count; i++) {
      char shown[128];
      if (breaks_expression_rules(call->expressions[i]->text)) {
        violation(text, "accepted the expression %s", quoted(call->expressions[i]->text, shown));
      }
    }
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(text, status, call->event);
    algo_read_buffers();
    compare_roots(text, &before_copy, "failed but changed an array buffer");
    for (int b = 0; b < ALG_COUNT; b++) {
      for (size_t i = 0; i < algo.sizes[b]; i++) {
        if (algo_after[b][i] != algo_before[b][i]) {
          violation(text, "failed with %s but changed byte %zu of mirrored buffer %d",
                    clgpu_status_name(status), i, b);
        }
      }
    }
    return;
  }
  if (call->want_event) {
    if (call->event == STALE_EVENT || !call->event) violation(text, "succeeded without an event");
    if (clWaitForEvents(1, &call->event) != CL_SUCCESS) violation(text, "its event failed");
    clReleaseEvent(call->event);
  } else if (call->event != STALE_EVENT) {
    violation(text, "wrote *event though none was asked for");
  }
  /* A workspace wrapped over bytes of an argument must have been refused. */
  const algo_workspace *space =
      call->workspace_slot >= 0 ? &algo_workspaces[call->workspace_slot] : NULL;
  if (space && space->buffer) {
    for (size_t i = 0; i < call->view_count; i++) {
      if (view_touches(call->views[i], space->buffer, space->offset, space->offset + space->size)) {
        violation(text, "used a workspace whose bytes overlap argument %zu", i);
      }
    }
  }
  algo_read_buffers();
  check_algo_references(text);
  if (!call->checkable) return;
  for (int b = 0; b < ALG_COUNT; b++) {
    for (size_t i = 0; i < algo.sizes[b]; i++) {
      if (space && space->buffer == algo.buffers[b] && i >= space->offset &&
          i < space->offset + space->size) {
        continue;
      }
      if (algo_after[b][i] != algo_model[b][i]) {
        violation(text, "mirrored buffer %d byte %zu is %u, the host model says %u (before %u)", b,
                  i, algo_after[b][i], algo_model[b][i], algo_before[b][i]);
      }
    }
  }
}

static void describe_views(algo_call *call, const char *name) {
  size_t used = (size_t)snprintf(call->text, sizeof call->text, "%s(", name);
  for (size_t i = 0; i < call->view_count && used < sizeof call->text; i++) {
    const algo_view *view = call->views[i];
    if (!view->pointer) {
      used += (size_t)snprintf(call->text + used, sizeof call->text - used, "%sNULL",
                               i ? ", " : "");
    } else if (!view->made) {
      used += (size_t)snprintf(call->text + used, sizeof call->text - used, "%spool view",
                               i ? ", " : "");
    } else {
      const clgpu_array *v = &view->view;
      if (v->rank == 2) {
        used += (size_t)snprintf(call->text + used, sizeof call->text - used,
                                 "%s%s[%zux%zu] @%d+%zu step %td,%td", i ? ", " : "",
                                 clgpu_type_cl_name(v->type), v->shape[0], v->shape[1],
                                 view->buffer, v->offset, v->strides[0], v->strides[1]);
      } else {
        used += (size_t)snprintf(call->text + used, sizeof call->text - used,
                                 "%s%s[%zu] @%d+%zu step %td", i ? ", " : "",
                                 clgpu_type_cl_name(v->type), v->shape[0], view->buffer, v->offset,
                                 v->strides[0]);
      }
    }
  }
  for (size_t i = 0; i < call->expression_count && used < sizeof call->text; i++) {
    char shown[128];
    used += (size_t)snprintf(call->text + used, sizeof call->text - used, ", %s",
                             quoted(call->expressions[i]->text, shown));
  }
  if (used < sizeof call->text) {
    snprintf(call->text + used, sizeof call->text - used, ", wait %s%s)", call->wait.word,
             call->want_event ? ", &event" : "");
  }
}

/* ---- reduce and count_if ---- */

/* Fixed custom reductions: a sum in the input's type, and a count of the
 * elements above 3 into a ulong. */
static const char *const custom_maps[] = {"x", "(x > 3) ? 1 : 0"};
static const char *const custom_reduces[] = {"a + b", "a + b"};
static const char *const custom_neutrals[] = {"0", "0"};
static const char *const initial_values[] = {"3", "0"};
static const char *const predicates[] = {"x > 3", "(i & 1) == 0", "x == 0"};

static int predicate_holds(int fixed, int null_predicate, const uint8_t *p, clgpu_type type,
                           size_t index) {
  double x = element_real(p, type);
  if (null_predicate) return x != 0 || x != x;
  if (fixed == 0) return x > 3;
  if (fixed == 1) return (index & 1) == 0;
  return x == 0;
}

/* The host's reduction of the elements of `view` listed by `offsets`, for
 * the built-in kinds and the fixed custom ones; 0 when it cannot say. */
static int host_reduce(const clgpu_reduce_op *op, int custom, int initial, const algo_view *view,
                       const size_t *offsets, size_t n, clgpu_type result_type, uint8_t *out) {
  clgpu_type type = view->view.type;
  const uint8_t *base = algo_before[view->buffer];
  int real = is_real(type);
  uint64_t sum = 0, product = 1, count = 0;
  double real_sum = 0;
  size_t best_min = SIZE_MAX, best_max = SIZE_MAX;
  for (size_t k = 0; k < n; k++) {
    const uint8_t *p = base + offsets[k];
    sum += (uint64_t)element_int(p, type);
    product *= (uint64_t)element_int(p, type);
    real_sum += element_real(p, type);
    double x = element_real(p, type);
    if (x != 0) count++;
    if (best_min == SIZE_MAX || order_image(p, type) < order_image(base + offsets[best_min], type)) {
      best_min = k;
    }
    if (best_max == SIZE_MAX || order_image(p, type) > order_image(base + offsets[best_max], type)) {
      best_max = k;
    }
  }
  int init = initial == 0 ? 3 : 0; /* initial_values[0] is "3", [1] is "0" */
  int has_initial = initial >= 0;
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
      if (real) store_real(out, type, real_sum + (has_initial ? init : 0));
      else store_int(out, type, sum + (uint64_t)(has_initial ? init : 0));
      return 1;
    case CLGPU_REDUCE_PRODUCT:
      if (real) return 0;
      store_int(out, type, product * (uint64_t)(has_initial ? init : 1));
      return 1;
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX: {
      size_t best = op->kind == CLGPU_REDUCE_MIN ? best_min : best_max;
      if (has_initial) return 0;
      if (best == SIZE_MAX) {
        if (real) return 0;
        /* The type's largest value for MIN, its lowest for MAX. */
        size_t bits = 8 * clgpu_type_size(type);
        uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
        uint64_t high = is_signed_type(type) ? top >> 1 : top;
        store_int(out, type, op->kind == CLGPU_REDUCE_MIN ? high : low);
        return 1;
      }
      memcpy(out, base + offsets[best], clgpu_type_size(type));
      return 1;
    }
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX: {
      size_t best = op->kind == CLGPU_REDUCE_ARGMIN ? best_min : best_max;
      store_int(out, CLGPU_UINT64, best == SIZE_MAX ? UINT64_MAX : best);
      return 1;
    }
    case CLGPU_REDUCE_COUNT:
      store_int(out, CLGPU_UINT64, count + (uint64_t)(has_initial ? init : 0));
      return 1;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      if (has_initial) return 0;
      store_int(out, CLGPU_INT32, op->kind == CLGPU_REDUCE_ANY ? count > 0 : count == n);
      return 1;
    case CLGPU_REDUCE_CUSTOM:
      if (custom == 0 && result_type == type) {
        if (real) store_real(out, type, real_sum + (has_initial ? init : 0));
        else store_int(out, type, sum + (uint64_t)(has_initial ? init : 0));
        return 1;
      }
      if (custom == 1 && !is_real(result_type)) {
        uint64_t above = 0;
        for (size_t k = 0; k < n; k++) above += element_real(base + offsets[k], type) > 3;
        store_int(out, result_type, above + (uint64_t)(has_initial ? init : 0));
        return 1;
      }
      return 0;
    default:
      return 0;
  }
}

/* The lines of a reduction or scan along `axis` (or the whole view): for
 * line l, the row-major indices of its elements. */
typedef struct lines {
  size_t count;  /* lines */
  size_t length; /* elements per line */
  size_t rows, columns;
  int axis;
} lines;

static lines lines_of(const clgpu_array *view, size_t count, int axis) {
  lines result = {1, count, 1, count, axis};
  if (axis < 0 || view->rank != 2) return result;
  result.rows = view->shape[0];
  result.columns = view->shape[1];
  result.count = axis == 0 ? view->shape[1] : view->shape[0];
  result.length = axis == 0 ? view->shape[0] : view->shape[1];
  return result;
}

static size_t line_element(const lines *l, size_t line, size_t k) {
  if (l->axis < 0 || l->rows == 1) return l->axis < 0 ? k : line * l->length + k;
  return l->axis == 0 ? k * l->columns + line : line * l->columns + k;
}

static void take_reduce_op(byte_reader *in, clgpu_reduce_op *op, expression expressions[4],
                           int *custom, int *initial, clgpu_type input_type) {
  memset(op, 0, sizeof *op);
  /* 1 to 10 are the kinds, 0 and 11 none. */
  uint8_t kind = take_byte(in) % 12;
  op->kind = (clgpu_reduce_kind)(kind < 10 ? kind + 1 : kind == 10 ? 0 : 11);
  *custom = -1;
  *initial = -1;
  uint8_t initial_choice = take_byte(in) % 4;
  if (initial_choice == 1 || initial_choice == 2) {
    take_expression(in, initial_values, COUNT_OF(initial_values), &expressions[3]);
    op->initial = expressions[3].text;
    *initial = expressions[3].fixed;
  }
  if (op->kind != CLGPU_REDUCE_CUSTOM) return;
  *custom = take_byte(in) % 2;
  op->result_type = *custom == 0 ? input_type : CLGPU_UINT64;
  if (take_byte(in) % 8 == 7) op->result_type = take_type(in);
  take_expression(in, custom_maps, COUNT_OF(custom_maps), &expressions[0]);
  take_expression(in, custom_reduces, COUNT_OF(custom_reduces), &expressions[1]);
  take_expression(in, custom_neutrals, COUNT_OF(custom_neutrals), &expressions[2]);
  op->map = take_byte(in) % 8 == 7 ? NULL : expressions[0].text;
  op->reduce = take_byte(in) % 16 == 15 ? NULL : expressions[1].text;
  op->neutral = take_byte(in) % 16 == 15 ? NULL : expressions[2].text;
  /* A custom reduction the table knows: every piece from the same row. */
  if (expressions[0].fixed != *custom || expressions[1].fixed != *custom ||
      expressions[2].fixed != *custom || !op->map || !op->reduce || !op->neutral) {
    *custom = -2;
  }
}

/* Whether an output view is one whose model can be written: made, and not
 * sharing a byte with the input (such a call is refused). */
static void model_reduce(algo_call *call, const clgpu_reduce_op *op, int custom, int initial,
                         const algo_view *input, int axis, const algo_view *output,
                         clgpu_type result_type) {
  if (!call->checkable || custom == -2) {
    call->checkable = 0;
    return;
  }
  lines l = lines_of(&input->view, input->count, axis);
  if (output->count != (axis < 0 ? 1 : l.count) || output->view.type != result_type) {
    call->checkable = 0;
    return;
  }
  static size_t offsets[ALGO_BYTES];
  for (size_t line = 0; line < (axis < 0 ? 1 : l.count); line++) {
    for (size_t k = 0; k < l.length; k++) {
      offsets[k] = element_offset(&input->view, line_element(&l, line, k));
    }
    uint8_t *out = &algo_model[output->buffer][element_offset(&output->view, line)];
    if (!host_reduce(op, custom, initial, input, offsets, l.length, result_type, out)) {
      call->checkable = 0;
      return;
    }
  }
}

static void op_algo_reduce(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* reduce, reduce_read, the query, reduce again */
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, output;
  take_algo_view(in, pool, wish, &input);
  write_values(&input, take_byte(in), 0);
  int axis = CLGPU_ALL_AXES;
  uint8_t axis_choice = take_byte(in) % 6;
  if (axis_choice == 1 || axis_choice == 2) axis = axis_choice - 1;
  if (axis_choice == 3) axis = take_int(in);
  clgpu_reduce_op op;
  expression expressions[4];
  int custom, initial;
  clgpu_type in_type = input.made ? input.view.type : wish.type;
  take_reduce_op(in, &op, expressions, &custom, &initial, in_type);
  clgpu_type result_type = clgpu_reduce_result_type(&op, in_type);
  size_t out_n = 1;
  if (axis >= 0 && input.made && (unsigned)axis < input.view.rank && input.view.rank == 2) {
    out_n = input.view.shape[axis == 0 ? 1 : 0];
  } else if (axis >= 0 && input.made && input.view.rank == 1 && axis == 0) {
    out_n = 1;
  }
  take_algo_view(in, pool, wish_1d(result_type ? result_type : CLGPU_UINT64, out_n, ALG_B),
                 &output);
  clgpu_call_options options_storage;
  int slot;
  const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
  call.workspace_slot = slot;
  add_view(&call, &input);
  add_view(&call, &output);
  for (int e = 0; e < 4; e++) {
    if ((e < 3 && op.kind == CLGPU_REDUCE_CUSTOM) || (e == 3 && op.initial)) {
      add_expression(&call, &expressions[e]);
    }
  }
  if (form == 2) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    int out_null = take_byte(in) % 8 == 7;
    describe_views(&call, "clgpu_reduce_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_reduce_workspace_size(context, &op, input.pointer, axis,
                                                      output.pointer, options,
                                                      out_null ? NULL : &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (out_null && status == CLGPU_SUCCESS) violation(call.text, "succeeded with out NULL");
    if (status != CLGPU_SUCCESS && memcmp(&report, &before, sizeof report) != 0) {
      violation(call.text, "failed but wrote the report");
    }
    return;
  }
  if (form == 1) {
    /* clgpu_reduce_read: whole array, into host memory of result_size. */
    uint8_t result[32];
    memset(result, 0xa5, sizeof result);
    size_t result_size = clgpu_type_size(result_type);
    uint8_t size_choice = take_byte(in) % 6;
    if (size_choice == 1) result_size += 1;
    if (size_choice == 2) result_size = result_size ? result_size - 1 : 0;
    if (size_choice == 3) result_size = 16;
    int result_null = size_choice == 4;
    algo_upload();
    describe_views(&call, "clgpu_reduce_read");
    call.wait.bad = call.wait.hostile = 0;
    call.stats = current_stats();
    prime_last_error();
    clgpu_status status = clgpu_reduce_read(context, &op, input.pointer, options,
                                            result_null ? NULL : result, result_size);
    if (status == CLGPU_SUCCESS &&
        (result_null || result_size != clgpu_type_size(result_type) || !result_type)) {
      violation(call.text, "succeeded with result %s of %zu bytes for a %zu-byte result",
                result_null ? "NULL" : "given", result_size, clgpu_type_size(result_type));
    }
    uint8_t expected[16];
    if (status == CLGPU_SUCCESS && call.checkable && custom != -2 && context == world.context) {
      static size_t offsets[ALGO_BYTES];
      for (size_t k = 0; k < input.count; k++) offsets[k] = element_offset(&input.view, k);
      if (host_reduce(&op, custom, initial, &input, offsets, input.count, result_type, expected) &&
          memcmp(expected, result, result_size) != 0) {
        violation(call.text, "read a result that differs from the host's (first byte %u, %u)",
                  result[0], expected[0]);
      }
    }
    for (size_t i = result_size; i < sizeof result; i++) {
      if (!result_null && result[i] != 0xa5) violation(call.text, "wrote past result_size");
    }
    if (status != CLGPU_SUCCESS) {
      for (size_t i = 0; i < sizeof result; i++) {
        if (result[i] != 0xa5) violation(call.text, "failed but wrote the result");
      }
    }
    call.checkable = 0; /* the buffers' bytes: only that nothing outside changed */
    call.want_event = 0;
    finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
    return;
  }
  if (context != world.context) call.checkable = 0;
  if (output.made && input.made && clgpu_may_alias(output.pointer, input.pointer)) {
    call.checkable = 0;
  }
  algo_upload();
  model_reduce(&call, &op, custom, initial, &input, axis, &output, result_type);
  if (broadcast_output(&output)) call.must_fail = 1;
  if (op.kind == CLGPU_REDUCE_CUSTOM && (!op.reduce || !op.neutral)) call.must_fail = 1;
  if ((op.kind == CLGPU_REDUCE_ARGMIN || op.kind == CLGPU_REDUCE_ARGMAX) && op.initial) {
    call.must_fail = 1;
  }
  if (op.kind < CLGPU_REDUCE_SUM || op.kind > CLGPU_REDUCE_CUSTOM) call.must_fail = 1;
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_reduce");
  clgpu_status status =
      clgpu_reduce(context, &op, input.pointer, axis, output.pointer, options, call.wait.count,
                   call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

static void op_algo_count_if(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 3;
  algo_write_buffers(take_byte(in));
  algo_view input, output;
  take_algo_view(in, pool, wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A),
                 &input);
  write_values(&input, take_byte(in), 0);
  take_algo_view(in, pool, wish_1d(CLGPU_UINT64, 1, ALG_B), &output);
  expression predicate;
  take_expression(in, predicates, COUNT_OF(predicates), &predicate);
  int null_predicate = take_byte(in) % 4 == 3;
  clgpu_call_options options_storage;
  int slot;
  const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
  call.workspace_slot = slot;
  add_view(&call, &input);
  add_view(&call, &output);
  if (!null_predicate) add_expression(&call, &predicate);
  const char *text = null_predicate ? NULL : predicate.text;
  if (form == 2) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_count_if_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_count_if_workspace_size(context, input.pointer, text,
                                                        output.pointer, options, &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    return;
  }
  if (context != world.context || output.view.type != CLGPU_UINT64 || output.count != 1 ||
      (input.made && output.made && clgpu_may_alias(input.pointer, output.pointer))) {
    call.checkable = 0;
  }
  algo_upload();
  if (call.checkable) {
    uint64_t count = 0;
    for (size_t k = 0; k < input.count; k++) {
      count += (uint64_t)predicate_holds(predicate.fixed, null_predicate,
                                         &algo_before[input.buffer][element_offset(&input.view, k)],
                                         input.view.type, k);
    }
    store_int(&algo_model[output.buffer][output.view.offset], CLGPU_UINT64, count);
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_count_if");
  clgpu_status status = clgpu_count_if(context, input.pointer, text, output.pointer, options,
                                       call.wait.count, call.wait.list,
                                       call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- scan ---- */

static const char *const scan_combines[] = {"a + b", "a * b"};
static const char *const scan_neutrals[] = {"0", "1"};

/* The host's scan of one line into the model; 0 when it cannot say. */
static int host_scan(const clgpu_scan_op *op, int custom, const algo_view *input,
                     const algo_view *output, const lines *l, size_t line) {
  clgpu_type type = input->view.type;
  size_t size = clgpu_type_size(type);
  int real = is_real(type);
  uint8_t carry[8], next[8];
  int have = 0;
  if (op->kind == CLGPU_SCAN_CUSTOM && (custom < 0 || (custom == 1 && real))) return 0;
  if (op->exclusive) {
    /* The neutral element. */
    if (op->kind == CLGPU_SCAN_SUM || (op->kind == CLGPU_SCAN_CUSTOM && custom == 0)) {
      store_int(carry, type, 0);
    } else if (op->kind == CLGPU_SCAN_CUSTOM) {
      store_int(carry, type, 1);
    } else if (type == CLGPU_FLOAT) {
      store_bits(carry, 4, op->kind == CLGPU_SCAN_MIN ? 0x7fffffff : 0xffffffff);
    } else if (real) {
      return 0;
    } else {
      size_t bits = 8 * size;
      uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
      uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
      uint64_t high = is_signed_type(type) ? top >> 1 : top;
      store_int(carry, type, op->kind == CLGPU_SCAN_MIN ? high : low);
    }
  }
  for (size_t k = 0; k < l->length; k++) {
    size_t index = line_element(l, line, k);
    const uint8_t *x = &algo_before[input->buffer][element_offset(&input->view, index)];
    /* next = carry op x, or x for the first inclusive element. */
    if (!have && !op->exclusive) {
      memcpy(next, x, size);
    } else if (op->kind == CLGPU_SCAN_SUM || (op->kind == CLGPU_SCAN_CUSTOM && custom == 0)) {
      if (real) store_real(next, type, element_real(carry, type) + element_real(x, type));
      else store_int(next, type, (uint64_t)element_int(carry, type) + (uint64_t)element_int(x, type));
    } else if (op->kind == CLGPU_SCAN_CUSTOM) {
      store_int(next, type, (uint64_t)element_int(carry, type) * (uint64_t)element_int(x, type));
    } else {
      uint64_t a = order_image(carry, type), b = order_image(x, type);
      int carry_nan = real && element_real(carry, type) != element_real(carry, type);
      int take_x = carry_nan || (op->kind == CLGPU_SCAN_MIN ? b < a : b > a);
      memcpy(next, take_x ? x : carry, size);
    }
    uint8_t *out = &algo_model[output->buffer][element_offset(&output->view, index)];
    memcpy(out, op->exclusive ? carry : next, size);
    memcpy(carry, next, size);
    have = 1;
  }
  return 1;
}

static void op_algo_scan(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4;
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, output_storage;
  const algo_view *output = &output_storage;
  take_algo_view(in, pool, wish, &input);
  write_values(&input, take_byte(in), 0);
  uint8_t place = take_byte(in) % 4;
  if (place == 0 && input.pointer) {
    output = &input; /* exactly in place */
  } else {
    view_wish out_wish = wish;
    if (input.made) {
      out_wish.type = input.view.type;
      out_wish.rank = input.view.rank;
      out_wish.shape[0] = input.view.shape[0];
      out_wish.shape[1] = input.view.rank == 2 ? input.view.shape[1] : 1;
    }
    out_wish.buffer = place == 1 ? ALG_A : ALG_B; /* place 1: may overlap the input */
    take_algo_view(in, pool, out_wish, &output_storage);
  }
  int axis = CLGPU_ALL_AXES;
  uint8_t axis_choice = take_byte(in) % 6;
  if (axis_choice == 1 || axis_choice == 2) axis = axis_choice - 1;
  if (axis_choice == 3) axis = take_int(in);
  clgpu_scan_op op;
  memset(&op, 0, sizeof op);
  uint8_t kind = take_byte(in) % 6;
  op.kind = (clgpu_scan_kind)(kind < 4 ? kind + 1 : kind == 4 ? 0 : 5);
  op.exclusive = take_byte(in) % 2 ? 0 : take_int(in);
  expression combine, neutral;
  take_expression(in, scan_combines, COUNT_OF(scan_combines), &combine);
  take_expression(in, scan_neutrals, COUNT_OF(scan_neutrals), &neutral);
  int custom = -1;
  if (op.kind == CLGPU_SCAN_CUSTOM) {
    op.combine = take_byte(in) % 16 == 15 ? NULL : combine.text;
    op.neutral = take_byte(in) % 16 == 15 ? NULL : neutral.text;
    add_expression(&call, &combine);
    add_expression(&call, &neutral);
    if (!op.combine || !op.neutral) call.must_fail = 1;
    custom = combine.fixed == neutral.fixed && op.combine && op.neutral ? combine.fixed : -1;
  }
  if (op.kind < CLGPU_SCAN_SUM || op.kind > CLGPU_SCAN_CUSTOM) call.must_fail = 1;
  clgpu_call_options options_storage;
  int slot;
  const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
  call.workspace_slot = slot;
  add_view(&call, &input);
  add_view(&call, output);
  if (form == 2 || form == 3) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_scan_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_scan_workspace_size(context, &op, input.pointer, axis,
                                                    output->pointer, options,
                                                    form == 3 ? NULL : &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (form == 3) expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "out is NULL");
    return;
  }
  algo_upload();
  if (broadcast_output(output)) call.must_fail = 1;
  if (context != world.context || !input.made || !output->made ||
      output->view.type != input.view.type || output->count != input.count ||
      output->view.rank != input.view.rank || output->view.shape[0] != input.view.shape[0]) {
    call.checkable = 0;
  }
  if (call.checkable) {
    lines l = lines_of(&input.view, input.count, axis);
    for (size_t line = 0; line < l.count && call.checkable; line++) {
      if (!host_scan(&op, custom, &input, output, &l, line)) call.checkable = 0;
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_scan");
  clgpu_status status =
      clgpu_scan(context, &op, input.pointer, axis, output->pointer, options, call.wait.count,
                 call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- findall ---- */

static void op_algo_findall(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* findall, findall_read, the query, findall */
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 4 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, indices, count;
  take_algo_view(in, pool, wish, &input);
  uint8_t data = take_byte(in);
  write_values(&input, data, data % 5 == 0);
  clgpu_type index_type = take_byte(in) % 2 ? CLGPU_UINT32 : CLGPU_UINT64;
  size_t capacity = input.count;
  uint8_t capacity_choice = take_byte(in) % 4;
  if (capacity_choice == 1) capacity = take_byte(in) % 8;
  if (capacity_choice == 2) capacity = input.count / 2;
  take_algo_view(in, pool, wish_1d(index_type, capacity, ALG_B), &indices);
  int count_null = take_byte(in) % 6 == 5;
  take_algo_view(in, pool, wish_1d(CLGPU_UINT64, 1, ALG_C), &count);
  if (count_null) count.pointer = NULL, count.made = 1;
  expression predicate;
  take_expression(in, predicates, COUNT_OF(predicates), &predicate);
  int null_predicate = take_byte(in) % 3 == 0;
  clgpu_call_options options_storage;
  int slot;
  const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
  call.workspace_slot = slot;
  add_view(&call, &input);
  add_view(&call, &indices);
  add_view(&call, &count);
  if (!null_predicate) add_expression(&call, &predicate);
  const char *text = null_predicate ? NULL : predicate.text;
  if (form == 2) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_findall_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_findall_workspace_size(context, input.pointer, text,
                                                       indices.pointer, count.pointer, options,
                                                       &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    return;
  }
  algo_upload();
  if (broadcast_output(&indices)) call.must_fail = 1;
  uint64_t matches = 0;
  if (context != world.context || !indices.made || !input.made ||
      (indices.pointer && indices.view.rank != 1) ||
      (indices.pointer && indices.view.type != CLGPU_UINT32 &&
       indices.view.type != CLGPU_UINT64) ||
      (count.pointer && (count.view.type != CLGPU_UINT64 || count.count != 1))) {
    call.checkable = 0;
  }
  if (call.checkable) {
    for (size_t k = 0; k < input.count; k++) {
      if (!predicate_holds(predicate.fixed, null_predicate,
                           &algo_before[input.buffer][element_offset(&input.view, k)],
                           input.view.type, k)) {
        continue;
      }
      if (matches < indices.count) {
        store_int(&algo_model[indices.buffer][element_offset(&indices.view, matches)],
                  indices.view.type, k);
      }
      matches++;
    }
    if (count.pointer) {
      store_int(&algo_model[count.buffer][count.view.offset], CLGPU_UINT64, matches);
    }
  }
  if (form == 1) {
    uint64_t read = 0x5a5a5a5a5a5a5a5aull;
    int read_null = take_byte(in) % 8 == 7;
    describe_views(&call, "clgpu_findall_read");
    call.stats = current_stats();
    prime_last_error();
    clgpu_status status = clgpu_findall_read(context, input.pointer, text, indices.pointer,
                                             count.pointer, options, read_null ? NULL : &read);
    if (read_null && status == CLGPU_SUCCESS) violation(call.text, "succeeded with count NULL");
    if (status != CLGPU_SUCCESS && read != 0x5a5a5a5a5a5a5a5aull) {
      violation(call.text, "failed but wrote *count");
    }
    if (status == CLGPU_SUCCESS && call.checkable && !read_null && read != matches) {
      violation(call.text, "read a count of %llu, the host counts %llu", (unsigned long long)read,
                (unsigned long long)matches);
    }
    finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
    return;
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_findall");
  clgpu_status status = clgpu_findall(context, input.pointer, text, indices.pointer, count.pointer,
                                      options, call.wait.count, call.wait.list,
                                      call.want_event ? &call.event : NULL);
  if (!count.pointer && status == CLGPU_SUCCESS) violation(call.text, "succeeded with count NULL");
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- sort, sort permutation, gather ---- */

/* Fixed comparators over built-in keys, with the rank the host sorts by. */
static const char *const comparators[] = {"a < b", "a > b", "(a & 7) < (b & 7)"};

/* Custom key types: the name, its declarations, its size on the device,
 * the comparator, and where the int or float it sorts by lies. */
typedef struct custom_key {
  const char *type;
  const char *declarations;
  size_t size;
  const char *compare;
  int real; /* the sort field is a float, else an int */
} custom_key;

static const custom_key custom_keys[] = {
    {"int2", NULL, 8, "a.x < b.x", 0},
    {"fuzz_pair", "typedef struct { int k; int pad; } fuzz_pair;", 8, "a.k < b.k", 0},
    {"float4", NULL, 16, "a.x < b.x", 1},
    {"int", NULL, 4, "b < a", 0},
    {"float3", NULL, 16, "a.x < b.x", 1},
    {"fuzz_wide", "typedef struct { long k; } fuzz_wide;", 8, "a.k < b.k", 0},
};

/* Key types and declarations that never compile, whatever key_size says. */
static const char *const broken_key_types[] = {
    "", " ", "fuzz_missing", "struct fuzz_nothing", "int int", "void", "int)", "a;b",
    "#error fuzz", long_identifier,
};
static const char *const broken_declarations[] = {
    "typedef struct {", "}", "#error fuzz\n", "int x = ;", "typedef int int2;", "/*",
    "__kernel void fuzz(void) {}", long_identifier,
};

/* A sort's order on the host: a signed or unsigned rank per key. */
typedef struct host_order {
  int kind; /* 0 the image of sort.h, 1 a comparator rank, 2 a custom key field */
  int comparator;
  int descending;
  unsigned begin_bit, end_bit;
  const custom_key *custom;
  clgpu_type type;
  size_t key_size;
} host_order;

static int64_t key_rank(const host_order *order, const uint8_t *key, int *unsigned_rank,
                        uint64_t *image) {
  *unsigned_rank = 0;
  if (order->kind == 0) {
    uint64_t bits = order_image(key, order->type);
    if (order->begin_bit || order->end_bit) {
      bits >>= order->begin_bit;
      unsigned width = order->end_bit - order->begin_bit;
      if (width < 64) bits &= ((uint64_t)1 << width) - 1;
    }
    *unsigned_rank = 1;
    *image = bits;
    return 0;
  }
  if (order->kind == 1) {
    int64_t value = element_int(key, order->type);
    if (order->comparator == 0) return value;
    if (order->comparator == 1) return -value;
    return value & 7;
  }
  if (order->custom->real) return (int64_t)element_real(key, CLGPU_FLOAT);
  int64_t value = order->custom->size == 8 && strcmp(order->custom->type, "fuzz_wide") == 0
                      ? element_int(key, CLGPU_INT64)
                      : element_int(key, CLGPU_INT32);
  return order->custom->compare[0] == 'b' ? -value : value;
}

/* Whether key a sorts strictly before key b. */
static int sorts_before(const host_order *order, const uint8_t *a, const uint8_t *b) {
  int unsigned_a, unsigned_b;
  uint64_t image_a = 0, image_b = 0;
  int64_t rank_a = key_rank(order, a, &unsigned_a, &image_a);
  int64_t rank_b = key_rank(order, b, &unsigned_b, &image_b);
  if (unsigned_a) return order->descending ? image_b < image_a : image_a < image_b;
  return order->descending ? rank_b < rank_a : rank_a < rank_b;
}

/* The stable order of n keys of key_size bytes (gathered into `keys`):
 * permutation[0..n) by insertion sort, which is stable. */
static void host_sort(const host_order *order, const uint8_t *keys, size_t n, uint32_t *perm) {
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    uint32_t moving = (uint32_t)i;
    while (j > 0 && sorts_before(order, keys + moving * order->key_size,
                                 keys + perm[j - 1] * order->key_size)) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = moving;
  }
}

/* Gather the bytes of a made 1-D view (n keys of key_size bytes, over its
 * elements in order) into `out`. */
static void gather_view(const algo_view *view, uint8_t *out) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) {
    memcpy(out + k * size, &algo_before[view->buffer][element_offset(&view->view, k)], size);
  }
}

static void scatter_view(const algo_view *view, const uint8_t *in) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) {
    memcpy(&algo_model[view->buffer][element_offset(&view->view, k)], in + k * size, size);
  }
}

typedef struct sort_request {
  clgpu_sort_spec spec;
  const clgpu_sort_spec *spec_pointer;
  clgpu_sort_options options;
  const clgpu_sort_options *options_pointer;
  host_order order;
  int orderable; /* the host knows the order */
  int key_size_wrong;
  expression compare;
  char key_type_text[MAX_TEXT + 1];
} sort_request;

static void take_sort_request(byte_reader *in, sort_request *request, clgpu_type key_type,
                              algo_call *call, int *slot) {
  memset(request, 0, sizeof *request);
  clgpu_sort_spec *spec = &request->spec;
  host_order *order = &request->order;
  order->type = key_type;
  order->key_size = clgpu_type_size(key_type);
  request->orderable = 1;
  uint8_t mode = take_byte(in) % 8;
  request->spec_pointer = mode == 0 ? NULL : spec;
  spec->descending = take_byte(in) % 3 == 2 ? take_int(in) : 0;
  order->descending = request->spec_pointer && spec->descending != 0;
  if (mode == 2 || mode == 3) {
    /* A comparator over built-in keys. */
    take_expression(in, comparators, COUNT_OF(comparators), &request->compare);
    spec->compare = request->compare.text;
    add_expression(call, &request->compare);
    order->kind = 1;
    order->comparator = request->compare.fixed;
    if (is_real(key_type) || request->compare.fixed < 0) request->orderable = 0;
  } else if (mode == 4 || mode == 5) {
    /* A custom key type: one of the table, or one that never compiles. */
    uint8_t which = take_byte(in);
    const custom_key *custom = &custom_keys[which % COUNT_OF(custom_keys)];
    spec->key_type = custom->type;
    spec->declarations = custom->declarations;
    spec->compare = custom->compare;
    spec->key_size = custom->size;
    uint8_t size_choice = take_byte(in) % 8;
    if (size_choice == 1) spec->key_size = 0;
    if (size_choice >= 6) {
      static const size_t sizes[] = {4, 8, 12, 16, 32};
      spec->key_size = sizes[take_byte(in) % COUNT_OF(sizes)];
    }
    request->key_size_wrong = spec->key_size != custom->size;
    order->kind = 2;
    order->custom = custom;
    order->key_size = spec->key_size;
    int budget_left = algo.builds < ALGO_BUILD_BUDGET;
    if (size_choice == 2) {
      char buffer[MAX_TEXT + 1];
      const char *type = TAKE_TEXT(in, broken_key_types, buffer);
      size_t size = take_byte(in) % 20;
      if (budget_left) {
        snprintf(request->key_type_text, sizeof request->key_type_text, "%s", type ? type : "");
        spec->key_type = type ? request->key_type_text : NULL;
        spec->key_size = size;
        request->orderable = 0;
        request->key_size_wrong = 0;
      }
    } else if (size_choice == 3) {
      const char *declarations = broken_declarations[take_byte(in) % COUNT_OF(broken_declarations)];
      if (budget_left) {
        spec->declarations = declarations;
        request->orderable = 0;
      }
    } else if (size_choice == 4) {
      take_expression(in, comparators, COUNT_OF(comparators), &request->compare);
      if (request->compare.fixed < 0) {
        spec->compare = request->compare.text;
        add_expression(call, &request->compare);
        request->orderable = 0;
      }
    }
    if (!spec->key_size) request->orderable = 0;
  }
  if (mode == 6) {
    spec->begin_bit = take_byte(in) % 70;
    spec->end_bit = take_byte(in) % 70;
    order->begin_bit = spec->begin_bit;
    order->end_bit = spec->end_bit;
    if ((spec->begin_bit || spec->end_bit) &&
        (spec->begin_bit >= spec->end_bit || spec->end_bit > 8 * clgpu_type_size(key_type))) {
      request->orderable = 0;
    }
  }
  request->options_pointer = NULL;
  uint8_t options_mode = take_byte(in) % 4;
  *slot = -1;
  if (options_mode) {
    request->options.algorithm = take_algorithm(in);
    request->options.shape = take_algorithm(in);
    if (options_mode == 3) request->options.workspace = take_algo_workspace(in, slot);
    request->options_pointer = &request->options;
  }
  if (!request->spec_pointer) {
    memset(order, 0, sizeof *order);
    order->type = key_type;
    order->key_size = clgpu_type_size(key_type);
    request->orderable = 1;
    return;
  }
  if (request->key_size_wrong) call->must_fail = 1;
  if (spec->key_type && !spec->key_size) call->must_fail = 1;
  int radix = request->options_pointer && request->options.algorithm == CLGPU_ALGORITHM_RADIX;
  if (radix && (spec->compare || spec->key_type)) call->must_fail = 1;
  /* A bit range is for radix sorts: what a merge sort makes of it is not
   * modelled. */
  if ((spec->begin_bit || spec->end_bit) && !radix) request->orderable = 0;
}

static void op_algo_sort(byte_reader *in, const array_run *pool, int permutation) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* the call, the query, the call, the call */
  algo_write_buffers(take_byte(in));
  clgpu_type key_type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  sort_request request;
  int slot;
  take_sort_request(in, &request, key_type, &call, &slot);
  call.workspace_slot = slot;
  /* Custom keys: a view of 32-bit (or 64-bit) elements, key_size bytes per
   * key; built-in keys: a view of key_type. */
  algo_view keys, values;
  const custom_key *custom = request.order.kind == 2 ? request.order.custom : NULL;
  view_wish wish = wish_1d(key_type, n, ALG_A);
  if (custom) {
    wish.type = custom->real ? CLGPU_FLOAT
                : strcmp(custom->type, "fuzz_wide") == 0 ? CLGPU_INT64
                                                          : CLGPU_INT32;
    wish.shape[0] = n * (custom->size / clgpu_type_size(wish.type));
  }
  take_algo_view(in, pool, wish, &keys);
  uint8_t data = take_byte(in);
  write_values(&keys, data, request.order.kind == 0 && data % 3 == 0);
  size_t key_count = keys.made ? keys.count : 0;
  size_t key_size = request.order.key_size;
  if (custom && keys.made) {
    size_t bytes = keys.count * clgpu_type_size(keys.view.type);
    key_count = key_size ? bytes / key_size : 0;
    if (!key_size || bytes % key_size != 0 || keys.view.type != wish.type) request.orderable = 0;
  } else if (keys.made && keys.view.type != key_type) {
    request.order.type = keys.view.type;
    request.order.key_size = key_size = clgpu_type_size(keys.view.type);
    if (request.order.kind == 1 && is_real(keys.view.type)) request.orderable = 0;
  }
  /* Values: none, or indices 0, 1, ... of 4 bytes (or other widths) in B. */
  uint8_t values_mode = take_byte(in) % 4;
  clgpu_type value_type = values_mode == 3 ? take_algo_type(in) : CLGPU_UINT32;
  if (permutation) value_type = take_byte(in) % 2 ? CLGPU_UINT32 : CLGPU_UINT64;
  if (values_mode == 0 && !permutation) {
    memset(&values, 0, sizeof values);
    values.made = 1;
  } else {
    take_algo_view(in, pool, wish_1d(value_type, key_count, ALG_B), &values);
    if (values.made && !permutation) {
      for (size_t k = 0; k < values.count; k++) {
        store_int(&algo_before[values.buffer][element_offset(&values.view, k)], values.view.type,
                  k);
      }
    }
  }
  add_view(&call, &keys);
  if (values.pointer || permutation) add_view(&call, &values);
  if ((!permutation && broadcast_output(&keys)) || broadcast_output(&values)) call.must_fail = 1;
  algo_upload();
  if (!request.orderable || context != world.context || !keys.made || !values.made ||
      (keys.made && keys.view.rank != 1) || (values.pointer && values.view.rank != 1)) {
    call.checkable = 0;
  }
  if (call.checkable && request.spec_pointer == NULL) request.order.descending = 0;
  if (call.checkable) {
    static uint8_t gathered[ALGO_BYTES], sorted[ALGO_BYTES], moved[ALGO_BYTES];
    static uint32_t order[ALGO_BYTES];
    gather_view(&keys, gathered);
    host_sort(&request.order, gathered, key_count, order);
    if (permutation) {
      if (values.count != key_count) call.checkable = 0;
      for (size_t k = 0; k < key_count && call.checkable; k++) {
        store_int(&algo_model[values.buffer][element_offset(&values.view, k)], values.view.type,
                  order[k]);
      }
    } else {
      for (size_t k = 0; k < key_count; k++) {
        memcpy(sorted + k * key_size, gathered + order[k] * key_size, key_size);
      }
      scatter_view(&keys, sorted);
      if (values.pointer) {
        size_t bytes = values.count * clgpu_type_size(values.view.type);
        size_t per_key = key_count ? bytes / key_count : 0;
        /* Values go by bytes per key; only the simple layouts are modelled. */
        if (!key_count || bytes % key_count ||
            (values.view.strides[0] != 1 && per_key != clgpu_type_size(values.view.type))) {
          call.checkable = 0;
        } else {
          gather_view(&values, gathered);
          for (size_t k = 0; k < key_count; k++) {
            memcpy(moved + k * per_key, gathered + order[k] * per_key, per_key);
          }
          scatter_view(&values, moved);
        }
      }
    }
  }
  if (form == 1) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    describe_views(&call, permutation ? "clgpu_sort_permutation_workspace_size"
                                      : "clgpu_sort_workspace_size");
    prime_last_error();
    clgpu_status status =
        permutation ? clgpu_sort_permutation_workspace_size(context, request.spec_pointer,
                                                            keys.pointer, values.pointer,
                                                            request.options_pointer, &report)
                    : clgpu_sort_workspace_size(context, request.spec_pointer, keys.pointer,
                                                values.pointer, request.options_pointer, &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (status != CLGPU_SUCCESS && memcmp(&report, &before, sizeof report) != 0) {
      violation(call.text, "failed but wrote the report");
    }
    if (status == CLGPU_SUCCESS && request.key_size_wrong) {
      violation(call.text, "accepted a key_size that is not the key type's");
    }
    return;
  }
  begin_algo_call(&call, in);
  char name[64];
  snprintf(name, sizeof name, "%s[%s%s%s]", permutation ? "clgpu_sort_permutation" : "clgpu_sort",
           request.spec.key_type ? request.spec.key_type : "",
           request.spec.key_type ? " " : "", request.spec.descending ? "desc" : "asc");
  describe_views(&call, name);
  clgpu_status status =
      permutation
          ? clgpu_sort_permutation(context, request.spec_pointer, keys.pointer, values.pointer,
                                   request.options_pointer, call.wait.count, call.wait.list,
                                   call.want_event ? &call.event : NULL)
          : clgpu_sort(context, request.spec_pointer, keys.pointer, values.pointer,
                       request.options_pointer, call.wait.count, call.wait.list,
                       call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

static void op_algo_gather(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  algo_write_buffers(take_byte(in));
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  size_t source_n = take_byte(in) % (ALGO_MAX_N + 1);
  clgpu_type type = take_algo_type(in);
  algo_view permutation, source, destination;
  take_algo_view(in, pool, wish_1d(take_byte(in) % 2 ? CLGPU_UINT32 : CLGPU_UINT64, n, ALG_A),
                 &permutation);
  take_algo_view(in, pool, wish_1d(type, source_n, ALG_B), &source);
  take_algo_view(in, pool, wish_1d(type, n, take_byte(in) % 4 ? ALG_C : ALG_B), &destination);
  write_values(&source, take_byte(in), 1);
  uint8_t spread = take_byte(in);
  if (permutation.made && (permutation.view.type == CLGPU_UINT32 ||
                           permutation.view.type == CLGPU_UINT64)) {
    uint32_t state = spread * 2654435761u + 1;
    for (size_t k = 0; k < permutation.count; k++) {
      state = state * 1103515245u + 12345u;
      /* Mostly inside the source, sometimes just past it, now and then huge. */
      uint64_t index = (state >> 8) % (source.count + 3);
      if ((state >> 4) % 64 == 0) index = ~(uint64_t)0 - (state % 5);
      store_int(&algo_before[permutation.buffer][element_offset(&permutation.view, k)],
                permutation.view.type, index);
    }
  } else {
    write_values(&permutation, spread, 1);
  }
  add_view(&call, &permutation);
  add_view(&call, &source);
  add_view(&call, &destination);
  if (broadcast_output(&destination)) call.must_fail = 1;
  algo_upload();
  if (context != world.context || !call.checkable || permutation.view.rank != 1 ||
      source.view.rank != 1 || destination.view.rank != 1 ||
      (permutation.view.type != CLGPU_UINT32 && permutation.view.type != CLGPU_UINT64) ||
      clgpu_type_size(source.view.type) != clgpu_type_size(destination.view.type) ||
      destination.count != permutation.count) {
    call.checkable = 0;
  }
  if (call.checkable) {
    size_t size = clgpu_type_size(source.view.type);
    for (size_t k = 0; k < permutation.count; k++) {
      uint64_t index = (uint64_t)element_int(
          &algo_before[permutation.buffer][element_offset(&permutation.view, k)],
          permutation.view.type);
      if (permutation.view.type == CLGPU_UINT32) index &= 0xffffffffu;
      if (index >= source.count) continue;
      memcpy(&algo_model[destination.buffer][element_offset(&destination.view, k)],
             &algo_before[source.buffer][element_offset(&source.view, (size_t)index)], size);
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_gather");
  clgpu_status status = clgpu_gather(context, permutation.pointer, source.pointer,
                                     destination.pointer, call.wait.count, call.wait.list,
                                     call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- elementwise kernels ---- */

/* The fixed configurations: argument kinds, the names, and the operation as
 * a format over the names (each used in order, %1$s style by position). */
typedef struct elementwise_config {
  size_t num_args;
  clgpu_elementwise_kind kinds[3];
  const char *names[3];
} elementwise_config;

static const elementwise_config elementwise_configs[] = {
    {3, {CLGPU_OUT, CLGPU_IN, CLGPU_SCALAR}, {"y", "x", "a"}},
    {2, {CLGPU_INOUT, CLGPU_IN, 0}, {"z", "w", NULL}},
    {1, {CLGPU_OUT, 0, 0}, {"y", NULL, NULL}},
};

/* Names the header refuses, and names that shadow what OpenCL C or the
 * generated kernel uses (issue 15 item 3: refused at create, or working). */
static const char *const refused_names[] = {
    "i", "clgpu_x", "CLGPU_T", "1x", "", "x y", "x-y", "\xce\xa9", long_identifier, "y\n",
};
static const char *const shadowing_names[] = {
    "min", "max", "int", "kernel", "global", "get_global_id", "float", "if", "return", "clamp",
};

static const char *const preambles[] = {
    "float fuzz_helper(float v) { return v; }\n", "}", "#error fuzz\n", "/*", "#define y 0\n",
    "__kernel void fuzz_other(void) {}\n", "typedef int int;", huge_text,
};

/* The operation of a configuration over its names. */
static void elementwise_operation(int config, const char *const names[3], char *out,
                                  size_t size) {
  if (config == 0) {
    snprintf(out, size, "%s = %s * %s + %s", names[0], names[2], names[1], names[1]);
  } else if (config == 1) {
    snprintf(out, size, "%s = %s - %s; /* a comment */\n", names[0], names[0], names[1]);
  } else {
    snprintf(out, size, "%s = i", names[0]);
  }
}

static void destroy_kernel(int slot) {
  if (!algo_kernels[slot].kernel) return;
  prime_last_error();
  clgpu_elementwise_destroy(algo_kernels[slot].kernel);
  check_message_untouched("clgpu_elementwise_destroy");
  memset(&algo_kernels[slot], 0, sizeof algo_kernels[slot]);
}

static void op_algo_elementwise_create(byte_reader *in) {
  int slot = take_byte(in) % ALGO_KERNELS;
  destroy_kernel(slot);
  algo_kernel *made = &algo_kernels[slot];
  clgpu_context *context = take_algo_context(in);
  int config = take_byte(in) % COUNT_OF(elementwise_configs);
  const elementwise_config *fixed = &elementwise_configs[config];
  static const clgpu_type types[] = {CLGPU_INT32, CLGPU_FLOAT, CLGPU_UINT8, CLGPU_INT64,
                                     CLGPU_HALF,  CLGPU_UINT16};
  clgpu_type type = types[take_byte(in) % COUNT_OF(types)];
  clgpu_elementwise_arg args[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  const char *names[3] = {fixed->names[0], fixed->names[1], fixed->names[2]};
  size_t num_args = fixed->num_args;
  int checkable = 1, must_fail = 0, shadowing = 0;
  uint8_t hostility = take_byte(in);
  char raw[MAX_TEXT + 1];
  if (hostility % 8 == 1) {
    /* A name the header refuses. */
    size_t which = take_byte(in) % num_args;
    names[which] = refused_names[take_byte(in) % COUNT_OF(refused_names)];
    must_fail = 1;
  } else if (hostility % 8 == 2 && num_args > 1) {
    names[1] = names[0]; /* repeated */
    must_fail = 1;
  } else if (hostility % 8 == 3) {
    size_t which = take_byte(in) % num_args;
    names[which] = shadowing_names[take_byte(in) % COUNT_OF(shadowing_names)];
    shadowing = 1;
  } else if (hostility % 8 == 4) {
    size_t which = take_byte(in) % num_args;
    const char *name = TAKE_TEXT(in, refused_names, raw);
    if (algo.builds < ALGO_BUILD_BUDGET) {
      names[which] = name;
      checkable = 0;
    }
  }
  for (size_t a = 0; a < num_args; a++) {
    args[a].name = names[a];
    args[a].kind = fixed->kinds[a];
    args[a].type = type;
  }
  if (type == CLGPU_HALF && config == 0) {
    args[2].type = CLGPU_FLOAT; /* half scalars are declared float */
  }
  uint8_t argument_change = take_byte(in) % 10;
  if (argument_change == 1) {
    args[0].kind = (clgpu_elementwise_kind)(take_byte(in) % 7);
    checkable = 0;
    if (args[0].kind < CLGPU_IN || args[0].kind > CLGPU_SCALAR) must_fail = 1;
  } else if (argument_change == 2) {
    args[take_byte(in) % num_args].type = take_type(in);
    checkable = 0;
  } else if (argument_change == 3) {
    args[0].kind = CLGPU_IN; /* no output left */
    if (num_args == 1 || fixed->kinds[1] != CLGPU_OUT) must_fail = 1;
    checkable = 0;
  } else if (argument_change == 4) {
    num_args = 0;
    must_fail = 1;
  } else if (argument_change == 5) {
    /* Too many arguments: 17 scalars after the output. */
    for (size_t a = num_args; a < CLGPU_ELEMENTWISE_MAX_ARGS + 2; a++) {
      static char extra[CLGPU_ELEMENTWISE_MAX_ARGS + 2][8];
      snprintf(extra[a], sizeof extra[a], "s%zu", a);
      args[a].name = extra[a];
      args[a].kind = CLGPU_SCALAR;
      args[a].type = CLGPU_INT32;
    }
    num_args = CLGPU_ELEMENTWISE_MAX_ARGS + 2;
    must_fail = 1;
  } else if (argument_change == 6 && type != CLGPU_HALF && config == 0) {
    args[2].type = CLGPU_HALF; /* a half scalar */
    must_fail = 1;
  }
  char operation[3 * (LONG_LENGTH + 2) + MAX_TEXT + 256];
  elementwise_operation(config, names, operation, sizeof operation);
  const char *operation_pointer = operation;
  uint8_t operation_change = take_byte(in) % 8;
  expression hostile;
  if (operation_change == 1) {
    operation_pointer = take_byte(in) % 2 ? NULL : "";
    must_fail = 1;
  } else if (operation_change == 2) {
    take_expression(in, (const char *const[]){"y = x"}, 1, &hostile);
    if (hostile.fixed < 0) {
      operation_pointer = hostile.text;
      checkable = 0;
    }
  }
  clgpu_elementwise_options options;
  memset(&options, 0, sizeof options);
  const clgpu_elementwise_options *options_pointer = NULL;
  uint8_t options_mode = take_byte(in) % 6;
  if (options_mode >= 3) {
    options_pointer = &options;
    options.specialise_after = take_byte(in) % 4;
    options.promote_after = take_byte(in) % 4;
    options.variant_cap = options_mode == 5 ? 257 + take_byte(in) : take_byte(in) % 3;
    if (options_mode == 5) must_fail = 1;
    if (options_mode == 4) {
      uint8_t preamble = take_byte(in) % COUNT_OF(preambles);
      if (preamble == 0 || algo.builds < ALGO_BUILD_BUDGET) {
        options.preamble = preambles[preamble];
        if (preamble != 0) checkable = 0;
      }
    }
  }
  clgpu_elementwise *kernel = (clgpu_elementwise *)STALE_DATA;
  int out_null = take_byte(in) % 16 == 15;
  int args_null = take_byte(in) % 16 == 15;
  char shown[128], call[384];
  snprintf(call, sizeof call,
           "clgpu_elementwise_create(%s, %zu args (config %d, %s, first named %s), %s, "
           "preamble %s, cap %u)",
           context == world.context ? "ctx" : context ? "other ctx" : "NULL", num_args, config,
           clgpu_type_cl_name(type), num_args ? quoted(args[0].name, shown) : "-",
           operation_pointer ? "an operation" : "NULL",
           options.preamble ? "given" : "none", options.variant_cap);
  prime_last_error();
  clgpu_status status =
      clgpu_elementwise_create(context, num_args, args_null ? NULL : args, operation_pointer,
                               options_pointer, out_null ? NULL : &kernel);
  check_call(call, status, STATUS_SET(elementwise_create_statuses, 0), 0);
  if ((must_fail || out_null || args_null || !context) && status == CLGPU_SUCCESS) {
    violation(call, "accepted arguments its header refuses");
  }
  if (out_null) return;
  if (status != CLGPU_SUCCESS) {
    if (kernel) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!kernel || kernel == (clgpu_elementwise *)STALE_DATA) violation(call, "made no kernel");
  clgpu_elementwise_stats stats;
  memset(&stats, 0xff, sizeof stats);
  if (clgpu_elementwise_get_stats(kernel, &stats) != CLGPU_SUCCESS || stats.contiguous_runs ||
      stats.specialised_runs || stats.generic_runs || stats.empty_runs || stats.variants_held) {
    violation(call, "a new kernel object's statistics are not zero");
  }
  made->kernel = kernel;
  made->context = context;
  made->config = config;
  made->type = type;
  made->num_args = num_args;
  memcpy(made->args, args, num_args * sizeof args[0]);
  /* A shadowing name that create accepted must work (item 3). */
  made->checkable = (checkable || shadowing) && config >= 0;
}

static void op_algo_elementwise_run(byte_reader *in, const array_run *pool) {
  int slot = take_byte(in) % ALGO_KERNELS;
  algo_kernel *made = &algo_kernels[slot];
  algo_call call;
  algo_call_init(&call);
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  clgpu_type type = made->kernel ? made->type : CLGPU_INT32;
  view_wish wish = wish_1d(type, take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 2 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  static algo_view views[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  clgpu_elementwise_value values[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  static uint8_t scalars[CLGPU_ELEMENTWISE_MAX_ARGS + 2][8];
  size_t num_args = made->kernel ? made->num_args : 1;
  memset(values, 0, sizeof values);
  for (size_t a = 0; a < num_args; a++) {
    const clgpu_elementwise_arg *arg = made->kernel ? &made->args[a] : NULL;
    int scalar = arg && arg->kind == CLGPU_SCALAR;
    uint8_t swap = take_byte(in) % 16;
    memset(&views[a], 0, sizeof views[a]);
    views[a].made = 1;
    if (scalar != (swap == 1)) {
      store_int(scalars[a], arg && arg->type ? arg->type : CLGPU_INT32,
                (uint64_t)(take_byte(in) % 7) - 3);
      values[a].scalar = swap == 2 ? NULL : scalars[a];
      if (swap == 2) call.must_fail = 1;
      if (swap == 1 && made->kernel) call.must_fail = 1;
    } else {
      /* Outputs in B and C, inputs in A, or anywhere. */
      view_wish own = wish;
      own.buffer = arg && arg->kind != CLGPU_IN ? ALG_B + (int)(a % 2) : ALG_A;
      if (arg) own.type = arg->type;
      take_algo_view(in, pool, own, &views[a]);
      write_values(&views[a], take_byte(in), 0);
      values[a].array = views[a].pointer;
      if (!views[a].pointer || (swap == 1 && made->kernel)) call.must_fail = 1;
      if (arg && arg->kind != CLGPU_IN && broadcast_output(&views[a])) call.must_fail = 1;
      add_view(&call, &views[a]);
      if (swap == 3) {
        values[a].scalar = scalars[a]; /* both given */
        call.checkable = 0;
      }
    }
  }
  int values_null = take_byte(in) % 16 == 15;
  if (values_null || !made->kernel) call.must_fail = 1;
  algo_upload();
  /* The model: every output element from the inputs' elements before. */
  if (!made->kernel || !made->checkable || made->context != world.context) call.checkable = 0;
  size_t count = 0;
  for (size_t a = 0; a < num_args && call.checkable; a++) {
    if (made->args[a].kind == CLGPU_SCALAR) continue;
    if (!views[a].made || !views[a].pointer) {
      call.checkable = 0;
      break;
    }
    const clgpu_array *v = &views[a].view;
    if (v->type != made->args[a].type || v->rank != wish.rank || v->shape[0] != wish.shape[0] ||
        (wish.rank == 2 && v->shape[1] != wish.shape[1])) {
      call.checkable = 0;
    }
    count = views[a].count;
  }
  if (call.checkable) {
    for (size_t k = 0; k < count; k++) {
      const algo_view *out = &views[0];
      uint8_t *target = &algo_model[out->buffer][element_offset(&out->view, k)];
      if (made->config == 0) {
        double x = element_real(&algo_before[views[1].buffer][element_offset(&views[1].view, k)],
                                type);
        double a = made->args[2].type == CLGPU_FLOAT && type != CLGPU_FLOAT
                       ? 0
                       : element_real(scalars[2], made->args[2].type);
        if (made->args[2].type == CLGPU_FLOAT) {
          float f;
          memcpy(&f, scalars[2], sizeof f);
          a = f;
        }
        if (is_real(type)) {
          store_real(target, type, a * x + x);
        } else {
          int64_t xi = element_int(&algo_before[views[1].buffer][element_offset(&views[1].view, k)],
                                   type);
          store_int(target, type, (uint64_t)element_int(scalars[2], type) * (uint64_t)xi +
                                      (uint64_t)xi);
        }
      } else if (made->config == 1) {
        const uint8_t *z = &algo_before[out->buffer][element_offset(&out->view, k)];
        const uint8_t *w = &algo_before[views[1].buffer][element_offset(&views[1].view, k)];
        if (is_real(type)) store_real(target, type, element_real(z, type) - element_real(w, type));
        else store_int(target, type, (uint64_t)element_int(z, type) - (uint64_t)element_int(w, type));
      } else {
        store_int(target, type, k);
      }
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_elementwise_run");
  clgpu_status status =
      clgpu_elementwise_run(made->kernel, values_null ? NULL : values, call.wait.count,
                            call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
  if (made->kernel) {
    clgpu_elementwise_stats stats;
    prime_last_error();
    clgpu_status stats_status = clgpu_elementwise_get_stats(made->kernel, &stats);
    check_call("clgpu_elementwise_get_stats", stats_status, STATUS_SET(plain_statuses, 0), 0);
    if (stats.variants_held > 256) violation("clgpu_elementwise_get_stats", "holds > 256");
  }
  prime_last_error();
  clgpu_status null_status = clgpu_elementwise_get_stats(NULL, NULL);
  check_call("clgpu_elementwise_get_stats(NULL)", null_status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_elementwise_get_stats(NULL)", null_status, CLGPU_INVALID_ARGUMENT, "NULL");
}

/* ---- the built-in elementwise operations and transfers ---- */

static void op_algo_builtin(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t which = take_byte(in) % 5; /* convert, axpby, compare, iota, fill */
  algo_write_buffers(take_byte(in));
  clgpu_type type = take_algo_type(in);
  view_wish wish = wish_1d(type, take_byte(in) % (ALGO_MAX_N + 1), ALG_B);
  if (take_byte(in) % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view out, x, y;
  view_wish out_wish = wish;
  if (which == 2) out_wish.type = CLGPU_UINT8;
  if (which == 0) out_wish.type = take_algo_type(in);
  take_algo_view(in, pool, out_wish, &out);
  view_wish in_wish = wish;
  in_wish.buffer = ALG_A;
  take_algo_view(in, pool, in_wish, &x);
  in_wish.buffer = take_byte(in) % 2 ? ALG_C : ALG_A;
  take_algo_view(in, pool, in_wish, &y);
  write_values(&x, take_byte(in), 0);
  write_values(&y, take_byte(in), 0);
  add_view(&call, &out);
  if (which <= 2) add_view(&call, &x);
  if (which == 1 || which == 2) add_view(&call, &y);
  if (broadcast_output(&out)) call.must_fail = 1;
  uint8_t alpha[8], beta[8];
  clgpu_type scalar_type = type == CLGPU_HALF ? CLGPU_FLOAT : type;
  if (which == 3 && out.made) scalar_type = out.view.type == CLGPU_HALF ? CLGPU_FLOAT : out.view.type;
  if (which == 4 && out.made) scalar_type = out.view.type;
  int alpha_value = take_byte(in) % 7 - 3, beta_value = take_byte(in) % 7 - 3;
  if (!is_signed_type(scalar_type) && !is_real(scalar_type)) {
    alpha_value = alpha_value < 0 ? -alpha_value : alpha_value;
    beta_value = beta_value < 0 ? -beta_value : beta_value;
  }
  store_int(alpha, scalar_type, (uint64_t)(int64_t)alpha_value);
  store_int(beta, scalar_type, (uint64_t)(int64_t)beta_value);
  int scalar_null = take_byte(in) % 16 == 15;
  clgpu_comparison comparison = (clgpu_comparison)(take_byte(in) % 8);
  if (scalar_null && which != 0 && which != 2) call.must_fail = 1;
  algo_upload();
  if (context != world.context || !out.made) call.checkable = 0;
  /* Shapes and types that a call refuses are not modelled. */
  const algo_view *inputs[2] = {which <= 2 ? &x : NULL, which == 1 || which == 2 ? &y : NULL};
  for (int i = 0; i < 2 && call.checkable; i++) {
    if (!inputs[i]) continue;
    if (!inputs[i]->made || inputs[i]->view.rank != out.view.rank ||
        inputs[i]->count != out.count || inputs[i]->view.shape[0] != out.view.shape[0] ||
        (which != 0 && inputs[i]->view.type != (which == 2 ? x.view.type : out.view.type))) {
      call.checkable = 0;
    }
  }
  if (which == 2 && out.view.type != CLGPU_UINT8) call.checkable = 0;
  if (which == 2 && (comparison < CLGPU_LESS || comparison > CLGPU_GREATER_EQUAL)) {
    call.checkable = 0;
    call.must_fail = 1;
  }
  for (size_t k = 0; k < out.count && call.checkable; k++) {
    uint8_t *target = &algo_model[out.buffer][element_offset(&out.view, k)];
    clgpu_type t = out.view.type;
    const uint8_t *px = which <= 2 ? &algo_before[x.buffer][element_offset(&x.view, k)] : NULL;
    const uint8_t *py =
        which == 1 || which == 2 ? &algo_before[y.buffer][element_offset(&y.view, k)] : NULL;
    if (which == 0) {
      if (is_real(x.view.type) && !is_real(t)) {
        /* Toward zero, saturated to the target's range. */
        double value = element_real(px, x.view.type);
        size_t bits = 8 * clgpu_type_size(t);
        double low = is_signed_type(t) ? -(double)((uint64_t)1 << (bits - 1)) : 0;
        if (value < low) value = low;
        if (bits < 64 && value > (double)(((uint64_t)1 << (bits - (is_signed_type(t) ? 1 : 0))) - 1)) {
          value = (double)(((uint64_t)1 << (bits - (is_signed_type(t) ? 1 : 0))) - 1);
        }
        store_int(target, t, (uint64_t)(int64_t)value);
      } else if (is_real(x.view.type)) {
        store_real(target, t, element_real(px, x.view.type));
      } else {
        store_int(target, t, (uint64_t)element_int(px, x.view.type));
      }
    } else if (which == 1) {
      if (is_real(t)) {
        store_real(target, t, element_real(alpha, scalar_type) * element_real(px, t) +
                                  element_real(beta, scalar_type) * element_real(py, t));
      } else {
        store_int(target, t, (uint64_t)element_int(alpha, t) * (uint64_t)element_int(px, t) +
                                 (uint64_t)element_int(beta, t) * (uint64_t)element_int(py, t));
      }
    } else if (which == 2) {
      double a = element_real(px, x.view.type), b = element_real(py, x.view.type);
      int result = comparison == CLGPU_LESS            ? a < b
                   : comparison == CLGPU_LESS_EQUAL    ? a <= b
                   : comparison == CLGPU_EQUAL         ? a == b
                   : comparison == CLGPU_NOT_EQUAL     ? a != b
                   : comparison == CLGPU_GREATER       ? a > b
                                                       : a >= b;
      store_int(target, CLGPU_UINT8, (uint64_t)result);
    } else if (which == 3) {
      if (is_real(t)) {
        store_real(target, t, element_real(alpha, scalar_type) +
                                  (double)k * element_real(beta, scalar_type));
        if (k * 4 > 2048 && t == CLGPU_HALF) call.checkable = 0;
      } else {
        store_int(target, t, (uint64_t)element_int(alpha, t) + k * (uint64_t)element_int(beta, t));
      }
    } else {
      memcpy(target, alpha, clgpu_type_size(t));
    }
  }
  begin_algo_call(&call, in);
  static const char *const names[] = {"clgpu_convert", "clgpu_axpby", "clgpu_compare",
                                      "clgpu_iota", "clgpu_fill"};
  describe_views(&call, names[which]);
  cl_event *event = call.want_event ? &call.event : NULL;
  const void *a = scalar_null ? NULL : alpha, *b = scalar_null ? NULL : beta;
  clgpu_status status;
  switch (which) {
    case 0:
      status = clgpu_convert(context, out.pointer, x.pointer, call.wait.count, call.wait.list,
                             event);
      break;
    case 1:
      status = clgpu_axpby(context, out.pointer, a, x.pointer, b, y.pointer, call.wait.count,
                           call.wait.list, event);
      break;
    case 2:
      status = clgpu_compare(context, out.pointer, x.pointer, comparison, y.pointer,
                             call.wait.count, call.wait.list, event);
      break;
    case 3:
      status = clgpu_iota(context, out.pointer, a, b, call.wait.count, call.wait.list, event);
      break;
    default:
      status = clgpu_fill(context, out.pointer, a, call.wait.count, call.wait.list, event);
      break;
  }
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* clgpu_array_read and clgpu_array_write with a host block of guard bytes
 * around the room the call is given. */
static void op_algo_transfer(byte_reader *in, const array_run *pool) {
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  int write = take_byte(in) % 2;
  algo_write_buffers(take_byte(in));
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (take_byte(in) % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view view;
  take_algo_view(in, pool, wish, &view);
  enum { GUARD_BYTES = 32 };
  static uint8_t host[ALGO_BYTES + 2 * GUARD_BYTES], host_before[ALGO_BYTES + 2 * GUARD_BYTES];
  for (size_t i = 0; i < sizeof host; i++) host[i] = (uint8_t)(i * 29u + 3);
  size_t needed = 0;
  if (view.pointer && clgpu_array_check(view.pointer) == CLGPU_SUCCESS) {
    size_t count = clgpu_array_count(view.pointer);
    size_t size = clgpu_type_size(view.pointer->type);
    needed = count > SIZE_MAX / size ? SIZE_MAX : count * size;
  }
  /* A view of more than SIZE_MAX bytes (a broadcast one) used to be read
   * as if it had few; such views are refused now (issue 15, item 8). */
  size_t host_size = needed;
  uint8_t size_choice = take_byte(in) % 6;
  if (size_choice == 1) host_size = needed ? needed - 1 : 0;
  if (size_choice == 2) host_size = needed + 1;
  if (size_choice == 3) host_size = 16;
  if (host_size > ALGO_BYTES) host_size = ALGO_BYTES;
  int host_null = take_byte(in) % 16 == 15;
  if (!host_null && needed > host_size) call.must_fail = 1;
  if (host_null && needed > 0) call.must_fail = 1;
  cl_bool blocking = take_byte(in) % 2 ? CL_TRUE : CL_FALSE;
  add_view(&call, &view);
  if (write && broadcast_output(&view)) call.must_fail = 1;
  algo_upload();
  memcpy(host_before, host, sizeof host);
  if (context != world.context) call.checkable = 0;
  if (write && call.checkable && view.made) {
    size_t size = clgpu_type_size(view.view.type);
    for (size_t k = 0; k < view.count; k++) {
      memcpy(&algo_model[view.buffer][element_offset(&view.view, k)],
             host + GUARD_BYTES + k * size, size);
    }
  }
  begin_algo_call(&call, in);
  if (!blocking) call.want_event = 1; /* a non-blocking read is waited for through its event */
  describe_views(&call, write ? "clgpu_array_write" : "clgpu_array_read");
  clgpu_status status =
      write ? clgpu_array_write(context, view.pointer, host_null ? NULL : host + GUARD_BYTES,
                                host_size, blocking, call.wait.count, call.wait.list,
                                call.want_event ? &call.event : NULL)
            : clgpu_array_read(context, view.pointer, host_null ? NULL : host + GUARD_BYTES,
                               host_size, blocking, call.wait.count, call.wait.list,
                               call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
  size_t written = status == CLGPU_SUCCESS && !write ? needed : 0;
  for (size_t i = 0; i < sizeof host; i++) {
    if (i >= GUARD_BYTES && i < GUARD_BYTES + written) continue;
    if (host[i] != host_before[i]) {
      violation(call.text, "changed host byte %zu outside the %zu bytes it %s", i, written,
                status == CLGPU_SUCCESS ? "reads" : "may touch (it failed)");
    }
  }
  if (status == CLGPU_SUCCESS && !write && view.made && context == world.context) {
    size_t size = clgpu_type_size(view.view.type);
    for (size_t k = 0; k < view.count; k++) {
      if (memcmp(host + GUARD_BYTES + k * size,
                 &algo_before[view.buffer][element_offset(&view.view, k)], size) != 0) {
        violation(call.text, "read element %zu wrong", k);
      }
    }
  }
}

/* ---- size queries up to n ---- */

static uint64_t take_max_n(byte_reader *in) {
  uint8_t choice = take_byte(in) % 8;
  uint64_t n;
  switch (choice) {
    case 0:
      n = 0;
      break;
    case 1:
      n = take_byte(in);
      break;
    case 2:
      n = (uint64_t)take_u32(in);
      break;
    case 3:
      n = (uint64_t)1 << (take_byte(in) % 64);
      break;
    case 4:
      n = UINT64_MAX - take_byte(in);
      break;
    case 5:
      n = ((uint64_t)1 << 63) + take_byte(in);
      break;
    default:
      n = take_u64(in);
      break;
  }
  /* Item 6: past 2^40 the queries' arithmetic wraps, divides by zero or
   * never ends. */
  return n;
}

/* A report a query gave: consistent, as workspace.h describes it. */
static void check_report(const char *call, const clgpu_workspace_size *report, uint64_t max_n,
                         clgpu_type type) {
  if (report->num_parts == 0 || report->num_parts > CLGPU_WORKSPACE_MAX_PARTS ||
      report->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS || report->alignment < 16 ||
      (report->alignment & (report->alignment - 1))) {
    violation(call, "gave a malformed report (%u parts, %u buffers, alignment %llu)",
              report->num_parts, report->num_buffers, (unsigned long long)report->alignment);
  }
  uint64_t end = 0;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    size_t size = clgpu_type_size(buffer->type);
    if (!buffer->name || buffer->part >= report->num_parts || !size ||
        buffer->offset % report->alignment || (buffer->count && buffer->count > UINT64_MAX / size) ||
        buffer->bytes != buffer->count * size) {
      violation(call, "gave a report with a malformed buffer %u", b);
    }
    if (buffer->count && buffer->offset + buffer->bytes > end) end = buffer->offset + buffer->bytes;
    if (buffer->count && buffer->offset + buffer->bytes < buffer->offset) {
      violation(call, "gave a buffer whose end wraps past 2^64");
    }
  }
  if (report->total_bytes != end) {
    violation(call, "total_bytes is %llu, the buffers end at %llu",
              (unsigned long long)report->total_bytes, (unsigned long long)end);
  }
  (void)max_n;
  (void)type;
}

static void op_algo_query_upto(byte_reader *in) {
  clgpu_context *context = take_algo_context(in);
  uint8_t which = take_byte(in) % 5;
  clgpu_type type = take_type(in);
  uint64_t max_n = take_max_n(in);
  clgpu_call_options call_options = {take_algorithm(in), NULL};
  clgpu_sort_options sort_options = {take_algorithm(in), take_algorithm(in), NULL};
  int options_null = take_byte(in) % 4 == 3;
  clgpu_reduce_op reduce_op = {(clgpu_reduce_kind)(1 + take_byte(in) % 9), NULL, 0, NULL, NULL,
                               NULL};
  clgpu_scan_op scan_op = {(clgpu_scan_kind)(1 + take_byte(in) % 3), take_byte(in) % 2, NULL,
                           NULL};
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  if (take_byte(in) % 4 == 0) {
    const custom_key *custom = &custom_keys[take_byte(in) % COUNT_OF(custom_keys)];
    spec.key_type = custom->type;
    spec.declarations = custom->declarations;
    spec.compare = custom->compare;
    spec.key_size = take_byte(in) % 3 ? custom->size : take_count(in);
  }
  size_t value_size = take_byte(in) % 4 ? (size_t)1 << (take_byte(in) % 5) : take_count(in);
  clgpu_type permutation_type = take_byte(in) % 4 ? CLGPU_UINT32 : take_type(in);
  clgpu_workspace_size report;
  memset(&report, 0x5a, sizeof report);
  clgpu_workspace_size before = report;
  int out_null = take_byte(in) % 16 == 15;
  clgpu_workspace_size *out = out_null ? NULL : &report;
  static const char *const names[] = {
      "clgpu_reduce_workspace_size_upto", "clgpu_scan_workspace_size_upto",
      "clgpu_findall_workspace_size_upto", "clgpu_sort_workspace_size_upto",
      "clgpu_sort_permutation_workspace_size_upto"};
  char call[256];
  snprintf(call, sizeof call, "%s(type %d, max_n %llu)", names[which], (int)type,
           (unsigned long long)max_n);
  prime_last_error();
  clgpu_status status;
  const clgpu_call_options *options = options_null ? NULL : &call_options;
  const clgpu_sort_options *sorting = options_null ? NULL : &sort_options;
  switch (which) {
    case 0:
      status = clgpu_reduce_workspace_size_upto(context, &reduce_op, type, max_n, options, out);
      break;
    case 1:
      status = clgpu_scan_workspace_size_upto(context, &scan_op, type, max_n, options, out);
      break;
    case 2:
      status = clgpu_findall_workspace_size_upto(context, type, max_n, options, out);
      break;
    case 3:
      status = clgpu_sort_workspace_size_upto(context, &spec, type, value_size, max_n, sorting,
                                              out);
      break;
    default:
      status = clgpu_sort_permutation_workspace_size_upto(context, &spec, type, permutation_type,
                                                          max_n, sorting, out);
      break;
  }
  check_call(call, status, STATUS_SET(algo_statuses, 1), 0);
  if ((out_null || !context) && status == CLGPU_SUCCESS) {
    violation(call, "succeeded with a NULL argument");
  }
  if (status != CLGPU_SUCCESS) {
    if (memcmp(&report, &before, sizeof report) != 0) violation(call, "failed but wrote *out");
    return;
  }
  check_report(call, &report, max_n, type);
  /* The query is the call's at max_n: a larger n never needs less. */
  if (max_n > 0 && max_n < ((uint64_t)1 << 40)) {
    clgpu_workspace_size smaller;
    clgpu_status again;
    switch (which) {
      case 0:
        again = clgpu_reduce_workspace_size_upto(context, &reduce_op, type, max_n - 1, options,
                                                 &smaller);
        break;
      case 1:
        again = clgpu_scan_workspace_size_upto(context, &scan_op, type, max_n - 1, options,
                                               &smaller);
        break;
      case 2:
        again = clgpu_findall_workspace_size_upto(context, type, max_n - 1, options, &smaller);
        break;
      case 3:
        again = clgpu_sort_workspace_size_upto(context, &spec, type, value_size, max_n - 1,
                                               sorting, &smaller);
        break;
      default:
        again = clgpu_sort_permutation_workspace_size_upto(context, &spec, type, permutation_type,
                                                           max_n - 1, sorting, &smaller);
        break;
    }
    if (again != CLGPU_SUCCESS) violation(call, "works at n but not at n - 1");
    for (unsigned b = 0; b < report.num_buffers && b < smaller.num_buffers; b++) {
      if (smaller.buffers[b].count > report.buffers[b].count) {
        violation(call, "buffer \"%s\" needs %llu at n - 1 but %llu at n", report.buffers[b].name,
                  (unsigned long long)smaller.buffers[b].count,
                  (unsigned long long)report.buffers[b].count);
      }
    }
  }
}

/* ---- workspaces ---- */

static void destroy_workspace(int slot) {
  if (!algo_workspaces[slot].workspace) return;
  prime_last_error();
  clgpu_workspace_destroy(algo_workspaces[slot].workspace);
  check_message_untouched("clgpu_workspace_destroy");
  memset(&algo_workspaces[slot], 0, sizeof algo_workspaces[slot]);
}

/* Every workspace an input holds, before an allocation scope closes (its
 * block goes back with the scope) and when the input ends. */
static void algo_release_workspaces(void) {
  for (int i = 0; i < ALGO_WORKSPACES; i++) destroy_workspace(i);
}

static void op_algo_workspace(byte_reader *in) {
  int slot = take_byte(in) % ALGO_WORKSPACES;
  destroy_workspace(slot);
  clgpu_context *context = take_algo_context(in);
  /* A report from a query: a small whole-array call of some operation. */
  uint8_t which = take_byte(in) % 5;
  clgpu_type type = (clgpu_type)(1 + take_byte(in) % CLGPU_FLOAT);
  uint64_t n = take_byte(in) % (ALGO_MAX_N + 1);
  clgpu_call_options call_options = {take_algorithm(in), NULL};
  clgpu_sort_options sort_options = {take_algorithm(in), take_algorithm(in), NULL};
  clgpu_reduce_op reduce_op = {CLGPU_REDUCE_SUM, NULL, 0, NULL, NULL, NULL};
  clgpu_scan_op scan_op = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_workspace_size report;
  memset(&report, 0, sizeof report);
  clgpu_status status;
  switch (which) {
    case 0:
      status = clgpu_reduce_workspace_size_upto(world.context, &reduce_op, type, n, &call_options,
                                                &report);
      break;
    case 1:
      status = clgpu_scan_workspace_size_upto(world.context, &scan_op, type, n, &call_options,
                                              &report);
      break;
    case 2:
      status = clgpu_findall_workspace_size_upto(world.context, type, n, &call_options, &report);
      break;
    case 3:
      status = clgpu_sort_workspace_size_upto(world.context, NULL, type, take_byte(in) % 2 ? 4 : 0,
                                              n, &sort_options, &report);
      break;
    default:
      status = clgpu_sort_permutation_workspace_size_upto(world.context, NULL, type, CLGPU_UINT32,
                                                          n, &sort_options, &report);
      break;
  }
  if (status != CLGPU_SUCCESS) return;
  check_report("a workspace query", &report, n, type);
  /* Hostile edits of the report: some make it inconsistent (refused), some
   * keep it consistent but smaller than the calls need. */
  int inconsistent = 0;
  uint8_t edit = take_byte(in) % 10;
  unsigned b = report.num_buffers ? take_byte(in) % report.num_buffers : 0;
  clgpu_workspace_buffer *buffer = &report.buffers[b];
  switch (edit) {
    case 1:
      report.num_parts = CLGPU_WORKSPACE_MAX_PARTS + 1 + take_byte(in) % 4;
      inconsistent = 1;
      break;
    case 2:
      report.num_buffers = CLGPU_WORKSPACE_MAX_BUFFERS + 1 + take_byte(in);
      inconsistent = 1;
      break;
    case 3:
      if (report.num_buffers && buffer->count) {
        buffer->bytes += 1;
        inconsistent = 1;
      }
      break;
    case 4:
      if (report.num_buffers && buffer->count) {
        buffer->offset += 1;
        inconsistent = 1;
      }
      break;
    case 5:
      if (report.total_bytes) {
        report.total_bytes -= 1;
        inconsistent = 1;
      }
      break;
    case 6:
      /* Consistently smaller: one buffer loses an element. */
      if (report.num_buffers && buffer->count) {
        buffer->count -= 1;
        buffer->bytes -= clgpu_type_size(buffer->type);
        uint64_t end = 0;
        for (unsigned i = 0; i < report.num_buffers; i++) {
          const clgpu_workspace_buffer *other = &report.buffers[i];
          if (other->count && other->offset + other->bytes > end) {
            end = other->offset + other->bytes;
          }
        }
        report.total_bytes = end;
      }
      break;
    case 7:
      report.parts[0].operation = (clgpu_operation)(take_byte(in) % 7);
      if (report.parts[0].operation < CLGPU_OPERATION_REDUCE ||
          report.parts[0].operation > CLGPU_OPERATION_SORT) {
        inconsistent = 1;
      }
      break;
    case 8:
      report.parts[0].algorithm = take_algorithm(in);
      if (report.parts[0].algorithm == CLGPU_ALGORITHM_AUTO ||
          (int)report.parts[0].algorithm > CLGPU_ALGORITHM_MERGE ||
          (int)report.parts[0].algorithm < 0) {
        inconsistent = 1;
      }
      break;
    case 9:
      report.alignment = take_byte(in) % 2 ? 3 : 0;
      inconsistent = 1;
      break;
    default:
      break;
  }
  uint8_t how = take_byte(in) % 4; /* create, create, wrap, wrap over an argument buffer */
  clgpu_workspace *made = (clgpu_workspace *)STALE_DATA;
  int out_null = take_byte(in) % 16 == 15;
  int report_null = take_byte(in) % 16 == 15;
  cl_mem target = NULL;
  size_t offset = 0, size = 0;
  char call[256];
  prime_last_error();
  if (how < 2) {
    snprintf(call, sizeof call, "clgpu_workspace_create(%s, report of op %u edited %u)",
             context == world.context ? "ctx" : context ? "other" : "NULL", which, edit);
    status = clgpu_workspace_create(context, report_null ? NULL : &report,
                                    out_null ? NULL : &made);
    check_call(call, status, STATUS_SET(workspace_create_statuses, 1), 0);
  } else {
    static const cl_mem *const none = NULL;
    (void)none;
    uint8_t where = take_byte(in) % 6;
    target = where == 0   ? arrays.buffers[BUF_FOREIGN]
             : where == 1 ? NULL
             : how == 3   ? algo.buffers[take_byte(in) % 3]
                          : algo.space;
    size_t target_size = target == algo.space            ? ALGO_SPACE_BYTES
                         : target == arrays.buffers[BUF_FOREIGN] ? arrays.sizes[BUF_FOREIGN]
                                                                 : ALGO_BYTES;
    uint8_t offset_choice = take_byte(in) % 4;
    offset = offset_choice == 0   ? 0
             : offset_choice == 1 ? (size_t)report.alignment * (take_byte(in) % 4)
             : offset_choice == 2 ? 1u + take_byte(in) % 15u
                                  : take_count(in);
    uint8_t size_choice = take_byte(in) % 4;
    size = size_choice == 0   ? (size_t)report.total_bytes
           : size_choice == 1 ? (size_t)report.total_bytes + take_byte(in)
           : size_choice == 2 ? (report.total_bytes ? (size_t)report.total_bytes - 1 : 0)
                              : take_count(in);
    snprintf(call, sizeof call,
             "clgpu_workspace_wrap(%s, report of op %u edited %u, buffer %s, offset %zu, size %zu)",
             context == world.context ? "ctx" : context ? "other" : "NULL", which, edit,
             target == algo.space ? "space" : target ? "other buffer" : "NULL", offset, size);
    cl_uint references = target ? memory_references(target) : 0;
    status = clgpu_workspace_wrap(context, report_null ? NULL : &report, target, offset, size,
                                  out_null ? NULL : &made);
    check_call(call, status, STATUS_SET(workspace_wrap_statuses, 1), 0);
    int fits = target && (offset <= target_size && size <= target_size - offset);
    if (status == CLGPU_SUCCESS &&
        (!fits || size < report.total_bytes ||
         (report.alignment && offset % report.alignment))) {
      violation(call, "wrapped a region that does not fit, is too small or misaligned");
    }
    if (status != CLGPU_SUCCESS && target && memory_references(target) > references) {
      violation(call, "failed but kept a reference to the buffer");
    }
  }
  if ((out_null || report_null || !context || inconsistent) && status == CLGPU_SUCCESS) {
    violation(call, "accepted %s", inconsistent ? "an inconsistent report" : "a NULL argument");
  }
  if (out_null) return;
  if (status != CLGPU_SUCCESS) {
    if (made) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!made || made == (clgpu_workspace *)STALE_DATA) violation(call, "made no workspace");
  clgpu_workspace_size described;
  if (clgpu_workspace_describe(made, &described) != CLGPU_SUCCESS ||
      described.total_bytes != report.total_bytes || described.num_buffers != report.num_buffers ||
      described.num_parts != report.num_parts) {
    violation(call, "describes another report than the one it was made from");
  }
  for (unsigned i = 0; i < report.num_buffers; i++) {
    if (described.buffers[i].count != report.buffers[i].count ||
        described.buffers[i].offset != report.buffers[i].offset) {
      violation(call, "describes buffer %u otherwise", i);
    }
  }
  cl_mem region = STALE_DATA;
  size_t region_offset = 1, region_size = 1;
  if (clgpu_workspace_region(made, &region, &region_offset, &region_size) != CLGPU_SUCCESS) {
    violation(call, "has no region");
  }
  if (how >= 2 && (region != target || region_offset != offset || region_size != size)) {
    violation(call, "gives a region other than the one it was wrapped over");
  }
  if (how < 2 && (report.total_bytes ? !region || region_size < report.total_bytes : 0)) {
    violation(call, "made a region smaller than the report's total");
  }
  algo_workspaces[slot].workspace = made;
  algo_workspaces[slot].context = context;
  algo_workspaces[slot].buffer = region;
  algo_workspaces[slot].offset = region_offset;
  algo_workspaces[slot].size = region_size;
}

static void op_algo_workspace_destroy(byte_reader *in) {
  uint8_t choice = take_byte(in) % (ALGO_WORKSPACES + 2);
  if (choice < ALGO_WORKSPACES) {
    destroy_workspace(choice);
    return;
  }
  prime_last_error();
  clgpu_workspace_destroy(NULL);
  check_message_untouched("clgpu_workspace_destroy(NULL)");
  clgpu_workspace_size report;
  clgpu_status status = clgpu_workspace_describe(NULL, &report);
  check_call("clgpu_workspace_describe(NULL)", status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_workspace_describe(NULL)", status, CLGPU_INVALID_ARGUMENT, "NULL");
  prime_last_error();
  cl_mem buffer;
  size_t offset, size;
  status = clgpu_workspace_region(NULL, &buffer, &offset, &size);
  check_call("clgpu_workspace_region(NULL)", status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_workspace_region(NULL)", status, CLGPU_INVALID_ARGUMENT, "NULL");
}

/* ---- names and small queries ---- */

static void op_algo_names(byte_reader *in) {
  int value = take_int(in);
  prime_last_error();
  const char *operation = clgpu_operation_name((clgpu_operation)value);
  const char *algorithm = clgpu_algorithm_name((clgpu_algorithm)value);
  if (!operation || !algorithm || !*operation || !*algorithm) {
    violation("clgpu_operation_name/clgpu_algorithm_name", "gave NULL or empty for %d", value);
  }
  if ((value < CLGPU_OPERATION_REDUCE || value > CLGPU_OPERATION_SORT) !=
      (strcmp(operation, "invalid") == 0)) {
    violation("clgpu_operation_name", "is wrong about %d: %s", value, operation);
  }
  if ((value < CLGPU_ALGORITHM_AUTO || value > CLGPU_ALGORITHM_MERGE) !=
      (strcmp(algorithm, "invalid") == 0)) {
    violation("clgpu_algorithm_name", "is wrong about %d: %s", value, algorithm);
  }
  clgpu_reduce_op op = {(clgpu_reduce_kind)take_int(in), NULL, take_type(in), NULL, NULL, NULL};
  if (take_byte(in) % 2) op.kind = (clgpu_reduce_kind)(1 + take_byte(in) % 10);
  clgpu_type input = take_type(in);
  clgpu_type result = clgpu_reduce_result_type(take_byte(in) % 8 ? &op : NULL, input);
  if (result && !clgpu_type_size(result)) violation("clgpu_reduce_result_type", "gave a non-type");
  if (result && !clgpu_type_size(input)) violation("clgpu_reduce_result_type", "took a non-type");
  clgpu_alloc_stats stats;
  clgpu_alloc_cache *cache = take_byte(in) % 4 ? arrays.cache : NULL;
  prime_last_error();
  clgpu_status status = clgpu_alloc_cache_stats(cache, &stats);
  check_call("clgpu_alloc_cache_stats", status, STATUS_SET(plain_statuses, 0), 0);
  if (!cache) expect_status("clgpu_alloc_cache_stats", status, CLGPU_INVALID_ARGUMENT, "NULL");
  size_t released = 0;
  prime_last_error();
  status = clgpu_alloc_cache_trim(cache, take_count(in), take_byte(in) % 2 ? &released : NULL);
  check_call("clgpu_alloc_cache_trim", status, STATUS_SET(plain_statuses, 0), 0);
  if (!cache) expect_status("clgpu_alloc_cache_trim", status, CLGPU_INVALID_ARGUMENT, "NULL");
}

static void op_algorithm(byte_reader *in, const array_run *pool) {
  switch (take_byte(in) % ALGO_OP_COUNT) {
    case GOP_REDUCE:
      op_algo_reduce(in, pool);
      break;
    case GOP_COUNT_IF:
      op_algo_count_if(in, pool);
      break;
    case GOP_SCAN:
      op_algo_scan(in, pool);
      break;
    case GOP_FINDALL:
      op_algo_findall(in, pool);
      break;
    case GOP_SORT:
      op_algo_sort(in, pool, 0);
      break;
    case GOP_PERMUTATION:
      op_algo_sort(in, pool, 1);
      break;
    case GOP_GATHER:
      op_algo_gather(in, pool);
      break;
    case GOP_ELEMENTWISE_CREATE:
      op_algo_elementwise_create(in);
      break;
    case GOP_ELEMENTWISE_RUN:
      op_algo_elementwise_run(in, pool);
      break;
    case GOP_BUILTIN:
      op_algo_builtin(in, pool);
      break;
    case GOP_TRANSFER:
      op_algo_transfer(in, pool);
      break;
    case GOP_QUERY_UPTO:
      op_algo_query_upto(in);
      break;
    case GOP_WORKSPACE:
      op_algo_workspace(in);
      break;
    case GOP_WORKSPACE_DESTROY:
      op_algo_workspace_destroy(in);
      break;
    default:
      op_algo_names(in);
      break;
  }
}

/* Every workspace and kernel object an input made is destroyed. */
static void finish_algorithms(void) {
  algo_release_workspaces();
  for (int i = 0; i < ALGO_KERNELS; i++) destroy_kernel(i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_setup();
  fuzz_run run;
  memset(&run, 0, sizeof run);
  run.in.data = data;
  run.in.size = size;
  static array_run pool;
  memset(&pool, 0, sizeof pool);
  seed_views(&pool);
  for (int count = 0; run.in.used < run.in.size && count < MAX_OPS; count++) {
    uint8_t opcode = take_byte(&run.in);
    if (opcode == OP_MEMBUF_BYTE) {
      op_membuf(&run.in);
      continue;
    }
    if (opcode == OP_ESCAPE_BYTE) {
      op_escape(&run, &pool);
      continue;
    }
    if (opcode == OP_ALGORITHM_BYTE) {
      op_algorithm(&run.in, &pool);
      continue;
    }
    switch (opcode % OP_COUNT) {
      case OP_STATUS_NAMES:
        op_status_names(&run);
        break;
      case OP_ACCESSORS:
        op_accessors(&run);
        break;
      case OP_CACHE_STATS:
        op_cache_stats(&run);
        break;
      case OP_KERNEL_SOURCE:
        op_kernel_source(&run);
        break;
      case OP_DEVICE_LIST:
        op_device_list(&run);
        break;
      case OP_DEVICE_SELECT:
        op_device_select(&run);
        break;
      case OP_PROGRAM_GET:
        op_program(&run, 0);
        break;
      case OP_PROGRAM_GET_NAMED:
        op_program(&run, 1);
        break;
      case OP_KERNEL_ACQUIRE:
        op_kernel_acquire(&run);
        break;
      case OP_KERNEL_RELEASE:
        op_kernel_release(&run);
        break;
      case OP_DISK_CACHE_CLEAR:
        op_disk_cache_clear(&run);
        break;
      case OP_CONTEXT_WRAP:
        op_context_wrap(&run);
        break;
      default:
        op_context_create(&run);
        break;
    }
  }
  release_all_leases(&run);
  finish_algorithms();
  finish_arrays(&pool);
  finish_membufs();
  return 0;
}
