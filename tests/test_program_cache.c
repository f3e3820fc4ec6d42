/* The program cache: hits and misses, kernel leases, threads racing for one
 * program, build failures with their log, the build-option allow-list, the
 * prelude of defines, and kernel sources (embedded and CLGPU_KERNEL_DIR). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* Contexts here keep the disk cache off so that every miss is a build. */
static clgpu_context *memory_only_context(void) {
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = test_context(&options);
  assert_null(clgpu_context_cache_dir(context));
  return context;
}

static clgpu_cache_stats stats_of(const clgpu_context *context) {
  clgpu_cache_stats stats;
  assert_status(clgpu_program_cache_stats(context, &stats), CLGPU_SUCCESS);
  return stats;
}

static const clgpu_define uint_define[] = {{"CLGPU_T", "uint"}};

static void hit_and_miss(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  clgpu_program *first = NULL, *again = NULL, *other_type = NULL, *other_options = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &first),
                CLGPU_SUCCESS);
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.memory_hits, 0);

  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &again),
                CLGPU_SUCCESS);
  assert_ptr_equal(first, again);
  stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.memory_hits, 1);

  /* Another define value and other options are other programs. */
  const clgpu_define int_define[] = {{"CLGPU_T", "int"}};
  assert_status(clgpu_program_get_named(context, "fill", int_define, 1, NULL, &other_type),
                CLGPU_SUCCESS);
  assert_ptr_not_equal(first, other_type);
  /* (Not -w: the library's own files are built with it already.) */
  assert_status(
      clgpu_program_get_named(context, "fill", uint_define, 1, "-cl-opt-disable", &other_options),
      CLGPU_SUCCESS);
  assert_ptr_not_equal(first, other_options);
  stats = stats_of(context);
  assert_int_equal(stats.builds, 3);
  assert_int_equal(stats.memory_hits, 1);
  assert_non_null(clgpu_program_cl_program(first));
  test_check_iota(context, first, 1000);
  test_check_iota(context, other_options, 1);
  clgpu_context_destroy(context);
}

static void kernel_leases_reuse_objects(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  cl_kernel a = NULL, b = NULL, c = NULL;
  assert_status(clgpu_kernel_acquire(program, "clgpu_iota", &a), CLGPU_SUCCESS);
  assert_status(clgpu_kernel_acquire(program, "clgpu_iota", &b), CLGPU_SUCCESS);
  /* Two leases held at once never share a kernel object. */
  assert_ptr_not_equal(a, b);
  assert_int_equal(stats_of(context).kernels_created, 2);
  clgpu_kernel_release(program, a);
  assert_status(clgpu_kernel_acquire(program, "clgpu_iota", &c), CLGPU_SUCCESS);
  assert_ptr_equal(a, c);
  clgpu_kernel_release(program, b);
  clgpu_kernel_release(program, c);
  /* The steady state creates nothing: many calls, two objects. */
  for (int i = 0; i < 50; i++) test_check_iota(context, program, 17);
  assert_int_equal(stats_of(context).kernels_created, 2);

  cl_kernel missing = (cl_kernel)&missing;
  assert_status(clgpu_kernel_acquire(program, "no_such_kernel", &missing),
                CLGPU_CL_INVALID_KERNEL_NAME);
  assert_null(missing);
  assert_non_null(strstr(clgpu_last_error(), "no_such_kernel"));
  assert_status(clgpu_kernel_acquire(NULL, "clgpu_iota", &a), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_kernel_acquire(program, NULL, &a), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_kernel_acquire(program, "clgpu_iota", NULL), CLGPU_INVALID_ARGUMENT);
  clgpu_kernel_release(NULL, a);
  clgpu_kernel_release(program, NULL);
  clgpu_context_destroy(context);
}

enum { RACERS = 8 };

typedef struct racer {
  clgpu_context *context;
  pthread_barrier_t *start;
  const char *salt;
  clgpu_program *program;
  clgpu_status status;
  cl_kernel kernel;
} racer;

static void *race_for_program(void *argument) {
  racer *self = argument;
  clgpu_define defines[] = {{"CLGPU_T", "uint"}, {"CLGPU_TEST_SALT", self->salt}};
  pthread_barrier_wait(self->start);
  self->status = clgpu_program_get_named(self->context, "fill", defines, 2, NULL, &self->program);
  if (self->status == CLGPU_SUCCESS) {
    self->status = clgpu_kernel_acquire(self->program, "clgpu_fill", &self->kernel);
  }
  return NULL;
}

static void eight_threads_build_once(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  char salt[64];
  snprintf(salt, sizeof salt, "%llu", (unsigned long long)test_seed());
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, RACERS);
  racer racers[RACERS];
  pthread_t threads[RACERS];
  for (int i = 0; i < RACERS; i++) {
    racers[i] = (racer){context, &start, salt, NULL, CLGPU_INTERNAL_ERROR, NULL};
    assert_int_equal(pthread_create(&threads[i], NULL, race_for_program, &racers[i]), 0);
  }
  for (int i = 0; i < RACERS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < RACERS; i++) {
    assert_status(racers[i].status, CLGPU_SUCCESS);
    assert_ptr_equal(racers[i].program, racers[0].program);
    /* Every thread holds its own lease, so no kernel object is shared. */
    for (int j = 0; j < i; j++) assert_ptr_not_equal(racers[i].kernel, racers[j].kernel);
  }
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.memory_hits, RACERS - 1);
  assert_int_equal(stats.kernels_created, RACERS);
  for (int i = 0; i < RACERS; i++) clgpu_kernel_release(racers[i].program, racers[i].kernel);
  test_check_iota(context, racers[0].program, 4099);
  clgpu_context_destroy(context);
}

static void syntax_error_gives_log(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  static const char broken[] =
      "__kernel void broken(__global int *x) {\n"
      "  x[0] = undefined_name_here;\n"
      "}\n";
  const clgpu_define defines[] = {{"CLGPU_PLANTED", "1"}, {"CLGPU_OTHER", NULL}};
  clgpu_program *program = (clgpu_program *)&program;
  assert_status(clgpu_program_get(context, broken, defines, 2, "-DCLGPU_MARKER=1", &program),
                CLGPU_CL_BUILD_PROGRAM_FAILURE);
  assert_null(program);
  const char *message = clgpu_last_error();
  printf("# planted build failure says:\n%s\n", message);
  assert_non_null(strstr(message, "undefined_name_here"));
  assert_non_null(strstr(message, "-DCLGPU_MARKER=1"));
  /* The prelude is followed by #line 1, so a compiler that honours it (POCL)
   * counts the caller's lines: the error is on line 2. Oclgrind ignores the
   * directive and counts the two defines and the directive too: line 5. */
  assert_true(strstr(message, ":2:") != NULL || strstr(message, ":5:") != NULL);
  assert_int_equal(stats_of(context).builds, 1);
  /* Failures are not cached: asking again builds again. */
  assert_status(clgpu_program_get(context, broken, defines, 2, "-DCLGPU_MARKER=1", &program),
                CLGPU_CL_BUILD_PROGRAM_FAILURE);
  assert_int_equal(stats_of(context).builds, 2);
  assert_int_equal(stats_of(context).memory_hits, 0);
  clgpu_context_destroy(context);
}

static void defines_reach_the_kernel(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  static const char source[] =
      "__kernel void twice(__global int *out) {\n"
      "  out[get_global_id(0)] = VALUE * 2 + (int)sizeof(ELEMENT);\n"
      "}\n";
  /* ELEMENT names a type every device has (long is 8 bytes in OpenCL C): a
   * double here failed to build on rusticl, which has no fp64. */
  const clgpu_define defines[] = {{"VALUE", "(20 + 1)"}, {"ELEMENT", "long"}};
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get(context, source, defines, 2, NULL, &program), CLGPU_SUCCESS);
  cl_kernel kernel = NULL;
  assert_status(clgpu_kernel_acquire(program, "twice", &kernel), CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                 4 * sizeof(cl_int), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), CL_SUCCESS);
  size_t global = 4;
  cl_command_queue queue = clgpu_context_queue(context);
  assert_int_equal(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_kernel_release(program, kernel);
  cl_int host[4] = {0};
  assert_int_equal(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL),
                   CL_SUCCESS);
  clReleaseMemObject(buffer);
  for (int i = 0; i < 4; i++) assert_int_equal(host[i], 42 + 8);
  clgpu_context_destroy(context);
}

typedef struct option_row {
  const char *options;
  clgpu_status expected;
} option_row;

static void build_option_allow_list(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  static const option_row rows[] = {
      {"-cl-fast-relaxed-math", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-cl-finite-math-only", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-cl-no-signed-zeros", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-cl-unsafe-math-optimizations", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-cl-denorms-are-zero", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-w -cl-fast-relaxed-math", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-cl-std=CL2.0", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-I/tmp", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"--some-flag", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-D", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-D 1x", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-D=1", CLGPU_FORBIDDEN_BUILD_OPTION},
      {"-w\t-Werror", CLGPU_INVALID_ARGUMENT},
      {"-w\n", CLGPU_INVALID_ARGUMENT},
      {"-w -Werror -cl-mad-enable -DFOO=1 -D BAR", CLGPU_SUCCESS},
      {"  -cl-opt-disable   -cl-kernel-arg-info -cl-single-precision-constant ", CLGPU_SUCCESS},
      {"", CLGPU_SUCCESS},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint64_t builds_before = stats_of(context).builds;
    clgpu_program *program = (clgpu_program *)&program;
    clgpu_status status =
        clgpu_program_get_named(context, "fill", uint_define, 1, rows[i].options, &program);
    if (status != rows[i].expected) {
      fail_msg("options \"%s\": got %s, expected %s (%s)", rows[i].options,
               clgpu_status_name(status), clgpu_status_name(rows[i].expected), clgpu_last_error());
    }
    if (rows[i].expected != CLGPU_SUCCESS) {
      assert_null(program);
      /* Refused before anything is built, with a message naming the option. */
      assert_int_equal(stats_of(context).builds, builds_before);
      assert_true(strlen(clgpu_last_error()) > 0);
    } else {
      test_check_iota(context, program, 65);
    }
  }
  clgpu_context_destroy(context);
}

/* Run the one-work-item kernel "value" of `program` and return what it
 * stored. */
static cl_int run_value_kernel(clgpu_context *context, clgpu_program *program) {
  cl_kernel kernel = NULL;
  assert_status(clgpu_kernel_acquire(program, "value", &kernel), CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), CL_SUCCESS);
  size_t one = 1;
  cl_command_queue queue = clgpu_context_queue(context);
  assert_int_equal(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_kernel_release(program, kernel);
  cl_int host = -1;
  assert_int_equal(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof host, &host, 0, NULL, NULL),
                   CL_SUCCESS);
  clReleaseMemObject(buffer);
  return host;
}

/* Options on the allow-list that rusticl of Mesa 22.3 crashed the process
 * on: "-D X" (a one-character word: a Rust panic in clBuildProgram), which
 * the quirks table's fragile_build_options row joins into "-DX", and a
 * double quote in a value (SIGSEGV in its clang), refused there and built
 * everywhere else. */
static void options_the_compiler_cannot_take(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  static const char source[] =
      "__kernel void value(__global int *out) { out[0] = X * 100 + Y * 10 + (int)sizeof(Q); }\n";
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get(context, source, NULL, 0, "-D X -D  Y=4 -DQ='a'", &program),
                CLGPU_SUCCESS);
  /* X defined bare is 1; 'a' is a character constant, of type int in C. */
  assert_int_equal(run_value_kernel(context, program), 1 * 100 + 4 * 10 + (int)sizeof(int));

  const clgpu_device_info *info = clgpu_context_device_info(context);
  int fragile = strstr(info->platform_name, "rusticl") && strstr(info->driver_version, "22.3.");
  uint64_t builds_before = stats_of(context).builds;
  program = (clgpu_program *)&program;
  clgpu_status status =
      clgpu_program_get(context, source, NULL, 0, "-DX=2 -DY=0 -DQ=\"int\"", &program);
  if (fragile) {
    print_message("# %s %s: a double quote in the options is refused: %s\n", info->platform_name,
                  info->driver_version, clgpu_last_error());
    assert_status(status, CLGPU_FORBIDDEN_BUILD_OPTION);
    assert_null(program);
    assert_non_null(strstr(clgpu_last_error(), "double quote"));
    assert_int_equal(stats_of(context).builds, builds_before);
  } else {
    assert_status(status, CLGPU_SUCCESS);
    /* POCL and Intel's runtime take the quotes away (Q is int); kept, Q
     * would be the literal "int": both are 4 bytes. */
    assert_int_equal(run_value_kernel(context, program), 2 * 100 + 0 * 10 + 4);
  }
  clgpu_context_destroy(context);
}

/* A kernel name that is not an identifier names no kernel, and is refused
 * before OpenCL sees it (rusticl of Mesa 22.3 ended the process on one that
 * is not UTF-8). */
static void kernel_name_not_an_identifier_is_refused(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  static const char *const names[] = {"", "\x81\x81LG", "clgpu fill", "9fill", "fill()",
                                      "fill\xc3\xa9"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    cl_kernel kernel = (cl_kernel)&kernel;
    assert_status(clgpu_kernel_acquire(program, names[i], &kernel), CLGPU_CL_INVALID_KERNEL_NAME);
    assert_null(kernel);
    assert_non_null(strstr(clgpu_last_error(), "not an OpenCL C identifier"));
  }
  /* A name that is an identifier but no kernel of the program still reaches
   * OpenCL, which says so. */
  cl_kernel kernel = (cl_kernel)&kernel;
  assert_status(clgpu_kernel_acquire(program, "no_such_kernel", &kernel),
                CLGPU_CL_INVALID_KERNEL_NAME);
  assert_null(kernel);
  test_check_iota(context, program, 17);
  clgpu_context_destroy(context);
}

static void bad_defines_are_refused(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  static const clgpu_define rows[][1] = {
      {{"1abc", "1"}},           {{"a b", "1"}},     {{NULL, "1"}},      {{"", "1"}},
      {{"GOOD", "1\n#error x"}}, {{"GOOD", "a\rb"}}, {{"GOOD", "1 \\"}}, /* a trailing backslash
                                                                            would splice the next
                                                                            line */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    clgpu_program *program = (clgpu_program *)&program;
    assert_status(
        clgpu_program_get(context, "__kernel void k(void) {}", rows[i], 1, NULL, &program),
        CLGPU_INVALID_ARGUMENT);
    assert_null(program);
  }
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get(context, "__kernel void k(void) {}", NULL, 1, NULL, &program),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_program_get(NULL, "__kernel void k(void) {}", NULL, 0, NULL, &program),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_program_get(context, NULL, NULL, 0, NULL, &program), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_program_get(context, "__kernel void k(void) {}", NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_int_equal(stats_of(context).builds, 0);
  clgpu_context_destroy(context);
}

static char *read_file(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file) fail_msg("cannot open %s", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)size, file), (size_t)size);
  text[size] = '\0';
  fclose(file);
  *length = (size_t)size;
  return text;
}

static void embedded_sources_match_files(void **state) {
  (void)state;
  size_t file_length = 0, embedded_length = 0;
  char *file = read_file(CLGPU_SOURCE_ROOT "/cl/fill.cl", &file_length);
  char *embedded = NULL;
  assert_status(clgpu_kernel_source("fill", &embedded, &embedded_length), CLGPU_SUCCESS);
  assert_int_equal(embedded_length, file_length);
  assert_memory_equal(embedded, file, file_length);
  assert_int_equal(embedded[embedded_length], '\0');
  free(embedded);
  free(file);

  char *source = (char *)&source;
  assert_status(clgpu_kernel_source("no_such_source", &source, NULL),
                CLGPU_KERNEL_SOURCE_NOT_FOUND);
  assert_null(source);
  assert_non_null(strstr(clgpu_last_error(), "fill"));
  assert_status(clgpu_kernel_source("../etc/passwd", &source, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_kernel_source("", &source, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_kernel_source(NULL, &source, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_kernel_source("fill", NULL, NULL), CLGPU_INVALID_ARGUMENT);
}

/* The digest of an embedded source is computed by the build (Python's
 * hashlib); the digest of a caller's source by the library's SHA-256. Both
 * must agree, or the same text would be two programs. */
static void same_text_is_one_program_however_given(void **state) {
  (void)state;
  clgpu_context *context = memory_only_context();
  size_t length = 0;
  char *text = read_file(CLGPU_SOURCE_ROOT "/cl/fill.cl", &length);
  clgpu_program *named = NULL, *given = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &named),
                CLGPU_SUCCESS);
  /* The library's own file is built with -w (CLGPU_BUILD_WARNINGS off):
   * the same text with the same options. */
  assert_status(clgpu_program_get(context, text, uint_define, 1, "-w", &given), CLGPU_SUCCESS);
  assert_ptr_equal(named, given);
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.memory_hits, 1);
  /* One byte more is another program. */
  char *longer = malloc(length + 2);
  assert_non_null(longer);
  memcpy(longer, text, length);
  memcpy(longer + length, "\n", 2);
  assert_status(clgpu_program_get(context, longer, uint_define, 1, "-w", &given), CLGPU_SUCCESS);
  assert_ptr_not_equal(named, given);
  assert_int_equal(stats_of(context).builds, 2);
  free(longer);
  free(text);
  clgpu_context_destroy(context);
}

static void kernel_dir_overrides_embedded(void **state) {
  (void)state;
  char *folder = test_make_folder("kernel-dir");
  size_t length = 0;
  char *original = read_file(CLGPU_SOURCE_ROOT "/cl/fill.cl", &length);
  static const char marker[] = "/* edited copy for the CLGPU_KERNEL_DIR test */\n";
  size_t path_size = strlen(folder) + 16;
  char *path = malloc(path_size);
  snprintf(path, path_size, "%s/fill.cl", folder);
  FILE *file = fopen(path, "wb");
  assert_non_null(file);
  fputs(marker, file);
  fwrite(original, 1, length, file);
  fclose(file);

  setenv("CLGPU_KERNEL_DIR", folder, 1);
  char *source = NULL;
  assert_status(clgpu_kernel_source("fill", &source, &length), CLGPU_SUCCESS);
  assert_int_equal(strncmp(source, marker, strlen(marker)), 0);
  free(source);
  clgpu_context *context = memory_only_context();
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  test_check_iota(context, program, 300);
  /* A stem with no file in the folder names the path it tried. */
  assert_status(clgpu_program_get_named(context, "scan", uint_define, 1, NULL, &program),
                CLGPU_KERNEL_SOURCE_NOT_FOUND);
  assert_non_null(strstr(clgpu_last_error(), folder));
  unsetenv("CLGPU_KERNEL_DIR");
  clgpu_context_destroy(context);
  free(original);
  free(path);
  test_remove_folder(folder);
}

/* ---- CLGPU_KERNEL_DIR entries that are not regular files ---- */

/* The largest kernel source src/runtime/kernel_source.c reads. */
#define KERNEL_SOURCE_LIMIT ((size_t)4 << 20)
/* Seconds the child of kernel_source_in_child may take: reading a source
 * takes microseconds, so only a hang comes near this. */
#define CHILD_TIME_LIMIT_S 30u

typedef struct child_report {
  clgpu_status status;
  int source_is_null;
  size_t length;
  char message[1024];
} child_report;

/* Cap the child's address space at what it uses now plus 256 MiB, so that a
 * reader without a bound fails fast instead of eating the machine's memory. */
static void cap_address_space(void) {
  FILE *file = fopen("/proc/self/statm", "r");
  if (!file) return;
  unsigned long pages = 0;
  int read_ok = fscanf(file, "%lu", &pages) == 1;
  fclose(file);
  long page_size = sysconf(_SC_PAGESIZE);
  if (!read_ok || page_size <= 0) return;
  struct rlimit limit;
  limit.rlim_cur = limit.rlim_max = (rlim_t)pages * (rlim_t)page_size + ((rlim_t)256 << 20);
  setrlimit(RLIMIT_AS, &limit);
}

/* clgpu_kernel_source(name) in a forked child that an alarm kills after
 * CHILD_TIME_LIMIT_S; fails the test when the child does not report back
 * (it hung, or died). The child touches no OpenCL object. */
static child_report kernel_source_in_child(const char *name) {
  int pipe_ends[2];
  assert_int_equal(pipe(pipe_ends), 0);
  fflush(NULL);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(pipe_ends[0]);
    alarm(CHILD_TIME_LIMIT_S);
    cap_address_space();
    child_report report;
    memset(&report, 0, sizeof report);
    char *source = (char *)&report;
    report.length = 99;
    report.status = clgpu_kernel_source(name, &source, &report.length);
    report.source_is_null = source == NULL;
    snprintf(report.message, sizeof report.message, "%s", clgpu_last_error());
    ssize_t written = write(pipe_ends[1], &report, sizeof report);
    _exit(written == (ssize_t)sizeof report ? 0 : 1);
  }
  close(pipe_ends[1]);
  child_report report;
  size_t used = 0;
  while (used < sizeof report) {
    ssize_t got = read(pipe_ends[0], (char *)&report + used, sizeof report - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += (size_t)got;
  }
  close(pipe_ends[0]);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0) {
    if (errno != EINTR) fail_msg("waitpid: %s", strerror(errno));
  }
  if (WIFSIGNALED(wait_status)) {
    fail_msg("clgpu_kernel_source(\"%s\") did not return: the child was killed by signal %d%s",
             name, WTERMSIG(wait_status),
             WTERMSIG(wait_status) == SIGALRM ? " (the time limit: it hung)" : "");
  }
  if (used != sizeof report || !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    fail_msg("the child reading kernel source \"%s\" failed (wait status 0x%x)", name, wait_status);
  }
  return report;
}

typedef enum kernel_dir_plant {
  KERNEL_DIR_FIFO,
  KERNEL_DIR_LINK_TO_FIFO,
  KERNEL_DIR_LINK_TO_DEV_ZERO,
  KERNEL_DIR_FOLDER,
  KERNEL_DIR_OVERSIZE,
} kernel_dir_plant;

static const struct {
  kernel_dir_plant kind;
  const char *label;
  const char *expected; /* words the message must hold besides the path */
} kernel_dir_plants[] = {
    {KERNEL_DIR_FIFO, "a FIFO", "is a FIFO, not a regular file"},
    {KERNEL_DIR_LINK_TO_FIFO, "a link to a FIFO", "is a FIFO, not a regular file"},
    {KERNEL_DIR_LINK_TO_DEV_ZERO, "a link to /dev/zero",
     "is a character device, not a regular file"},
    {KERNEL_DIR_FOLDER, "a folder", "is a folder, not a regular file"},
    {KERNEL_DIR_OVERSIZE, "a file above the limit", "more than the limit of 4194304 bytes"},
};

/* A FIFO, a device, a folder or an oversize file as CLGPU_KERNEL_DIR/fill.cl
 * gives CLGPU_IO_ERROR promptly with a message naming the file and what it
 * is, for clgpu_kernel_source and clgpu_program_get_named alike; a link to a
 * regular file is followed. */
static void kernel_dir_refuses_what_is_not_a_regular_file(void **state) {
  (void)state;
  char *folder = test_make_folder("kernel-dir-plants");
  char path[512], fifo[512], elsewhere[512];
  snprintf(path, sizeof path, "%s/fill.cl", folder);
  snprintf(fifo, sizeof fifo, "%s/pipe", folder);
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.txt", folder);
  assert_int_equal(setenv("CLGPU_KERNEL_DIR", folder, 1), 0);
  clgpu_context *context = memory_only_context();

  for (size_t i = 0; i < sizeof kernel_dir_plants / sizeof kernel_dir_plants[0]; i++) {
    printf("# fill.cl is %s\n", kernel_dir_plants[i].label);
    switch (kernel_dir_plants[i].kind) {
      case KERNEL_DIR_FIFO:
        if (mkfifo(path, 0644) != 0) fail_msg("mkfifo(%s): %s", path, strerror(errno));
        break;
      case KERNEL_DIR_LINK_TO_FIFO:
        if (mkfifo(fifo, 0644) != 0) fail_msg("mkfifo(%s): %s", fifo, strerror(errno));
        assert_int_equal(symlink(fifo, path), 0);
        break;
      case KERNEL_DIR_LINK_TO_DEV_ZERO:
        assert_int_equal(symlink("/dev/zero", path), 0);
        break;
      case KERNEL_DIR_FOLDER:
        assert_int_equal(mkdir(path, 0755), 0);
        break;
      case KERNEL_DIR_OVERSIZE: {
        /* Sparse, and valid OpenCL C as far as it goes: only its size is
         * wrong. */
        FILE *file = fopen(path, "wb");
        assert_non_null(file);
        fputs("/* padding */\n", file);
        assert_int_equal(fclose(file), 0);
        assert_int_equal(truncate(path, (off_t)KERNEL_SOURCE_LIMIT + 1), 0);
        break;
      }
    }
    child_report report = kernel_source_in_child("fill");
    printf("# %s: %s\n", clgpu_status_name(report.status), report.message);
    assert_status(report.status, CLGPU_IO_ERROR);
    assert_true(report.source_is_null);
    assert_int_equal(report.length, 0);
    assert_non_null(strstr(report.message, path));
    assert_non_null(strstr(report.message, "CLGPU_KERNEL_DIR"));
    assert_non_null(strstr(report.message, kernel_dir_plants[i].expected));

    /* The child showed the read returns, so the same through the program
     * cache cannot hang this process: the same status, nothing built. */
    clgpu_program *program = (clgpu_program *)&program;
    uint64_t builds = stats_of(context).builds;
    assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program),
                  CLGPU_IO_ERROR);
    assert_null(program);
    assert_non_null(strstr(clgpu_last_error(), path));
    assert_non_null(strstr(clgpu_last_error(), kernel_dir_plants[i].expected));
    assert_int_equal(stats_of(context).builds, builds);

    if (kernel_dir_plants[i].kind == KERNEL_DIR_FOLDER) {
      assert_int_equal(rmdir(path), 0);
    } else {
      assert_int_equal(unlink(path), 0);
    }
    unlink(fifo);
  }

  /* A link to a regular file is followed: kernel folders of links into a
   * source tree work. */
  size_t length = 0;
  char *original = read_file(CLGPU_SOURCE_ROOT "/cl/fill.cl", &length);
  FILE *file = fopen(elsewhere, "wb");
  assert_non_null(file);
  assert_int_equal(fwrite(original, 1, length, file), length);
  assert_int_equal(fclose(file), 0);
  assert_int_equal(symlink(elsewhere, path), 0);
  child_report report = kernel_source_in_child("fill");
  assert_status(report.status, CLGPU_SUCCESS);
  assert_int_equal(report.length, length);
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  test_check_iota(context, program, 100);
  free(original);

  unsetenv("CLGPU_KERNEL_DIR");
  clgpu_context_destroy(context);
  test_remove_folder(folder);
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hit_and_miss),
      cmocka_unit_test(kernel_leases_reuse_objects),
      cmocka_unit_test(eight_threads_build_once),
      cmocka_unit_test(syntax_error_gives_log),
      cmocka_unit_test(defines_reach_the_kernel),
      cmocka_unit_test(build_option_allow_list),
      cmocka_unit_test(options_the_compiler_cannot_take),
      cmocka_unit_test(kernel_name_not_an_identifier_is_refused),
      cmocka_unit_test(bad_defines_are_refused),
      cmocka_unit_test(embedded_sources_match_files),
      cmocka_unit_test(same_text_is_one_program_however_given),
      cmocka_unit_test(kernel_dir_overrides_embedded),
      cmocka_unit_test(kernel_dir_refuses_what_is_not_a_regular_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
