/* Fuzz operations on the program cache (clgpu_program_get and _named, the
 * cache statistics, clgpu_kernel_source), kernel leases, and clearing the disk
 * cache. */
#include "harness.h"

#define MAX_DEFINES 4
#define NOVEL_BUILD_BUDGET 20

/* Options are assembled from up to three dictionary entries, and a spoiled
 * request appends one more token; both can hold three huge texts. */
static char options_text[3 * (HUGE_LENGTH + 2) + 1];
static char spoiled_options[sizeof options_text + 32];
#define STALE_PROGRAM ((clgpu_program *)(void *)&not_a_handle)
#define STALE_KERNEL ((cl_kernel)(void *)&not_a_handle)
#define STALE_TEXT ((char *)&not_a_handle)

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
static const clgpu_status clear_statuses[] = {CLGPU_SUCCESS, CLGPU_IO_ERROR,
                                              CLGPU_INVALID_ARGUMENT};

static int file_exists(const char *path) {
  struct stat info;
  return stat(path, &info) == 0;
}

static int holds(const fuzz_run *run, cl_kernel kernel) {
  for (size_t i = 0; i < run->lease_count; i++) {
    if (run->leases[i].kernel == kernel) return 1;
  }
  return 0;
}

/* clgpu_program_cache_stats: INVALID_ARGUMENT exactly when an argument is
 * NULL, stats untouched then, and counters that never go down. */
void op_cache_stats(fuzz_run *run) {
  uint8_t flags = take_byte(&run->in);
  const clgpu_context *contexts[] = {NULL, world.context, world.other};
  const clgpu_context *context = contexts[(flags & 3) % 3];
  clgpu_cache_stats stats, before;
  memset(&stats, 0xa5, sizeof stats);
  before = stats;
  clgpu_cache_stats *out = flags & 4 ? NULL : &stats;
  char call[96];
  snprintf(call, sizeof call, "clgpu_program_cache_stats(%s, %s)", context ? "ctx" : "NULL",
           out ? "&stats" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_program_cache_stats(context, out);
  check_call(call, status, STATUS_SET(plain_statuses, 0), 0);
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
void op_kernel_source(fuzz_run *run) {
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
static void program_get(fuzz_run *run, int named) {
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

void op_program_get(fuzz_run *run) { program_get(run, 0); }

void op_program_get_named(fuzz_run *run) { program_get(run, 1); }

/* clgpu_kernel_acquire: *kernel NULL on failure; a lease is a kernel of that
 * name and program that no other held lease has. */
void op_kernel_acquire(fuzz_run *run) {
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
void op_kernel_release(fuzz_run *run) {
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
void op_disk_cache_clear(fuzz_run *run) {
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
