/* The library prints nothing on the caller's stderr, its kernels' build
 * warnings included; a failed build's message keeps the warnings.
 *
 * - builds_print_nothing: a fresh process (this binary as "--child") with
 *   cold caches (its own empty POCL cache, clgpu's disk cache off) runs a
 *   float reduce, scan and sort and checks them against the host; its
 *   stderr must stay empty. POCL prints the warnings of every build it
 *   compiles from source ("9 warnings generated."), so on POCL the same
 *   child under CLGPU_BUILD_WARNINGS=1 must print some: that is what the
 *   library's -w keeps away, and it shows the first check can fail. The
 *   child's sort takes a comparator that warns, so that there is a warning
 *   to print on any CPU (POCL's own kernels warn only on CPUs without
 *   AVX-512, about 16-wide vector returns).
 * - a_failed_build_keeps_its_warnings: a sort comparator that both warns
 *   (a division by zero) and fails (an undeclared name): its message holds
 *   the warning as well as the error, by default (the library's programs
 *   are built with -w, so the failed build is built again without it for
 *   its log) and under CLGPU_BUILD_WARNINGS=1.
 * - a_build_log_reaches_the_callback: clgpu_context_options.build_log gets
 *   the log of a build whose source has a #warning exactly when the
 *   implementation's own log of it holds the warning, with the build's
 *   options; not with -w, and not for a program from the disk cache; a
 *   context with reserved fields set is refused.
 * (The variable's values are checked with the others in test_context.) */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

extern char **environ;

enum { N = 4096 };

static int child_fail(const char *what, clgpu_status status) {
  /* stdout: the parent reads stderr for the library's prints. */
  printf("child: %s: %s: %s\n", what, clgpu_status_name(status), clgpu_last_error());
  return 3;
}

/* A float reduce, inclusive scan and sort of N values, checked here. */
static int child_main(void) {
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return child_fail("clgpu_context_create", status);
  static float host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = (float)((i * 37) % 101) * 0.25f;
  cl_mem in = NULL, out = NULL;
  clgpu_array x, y, sum;
  int code = 0;
  if ((status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &in)) != 0 ||
      (status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &out)) != 0 ||
      (status = clgpu_array_1d(in, 0, CLGPU_TYPE_FLOAT, N, &x)) != 0 ||
      (status = clgpu_array_1d(out, 0, CLGPU_TYPE_FLOAT, N, &y)) != 0 ||
      (status = clgpu_array_1d(out, 0, CLGPU_TYPE_FLOAT, 1, &sum)) != 0 ||
      (status = clgpu_array_write(context, &x, host, sizeof host, 0, NULL)) != 0) {
    code = child_fail("setting up", status);
    goto done;
  }
  /* Values of quarters below 26: every sum and prefix is exact in float. */
  clgpu_reduce_op add = {0};
  add.kind = CLGPU_REDUCE_SUM;
  float total = 0, got = 0;
  for (int i = 0; i < N; i++) total += host[i];
  if ((status = clgpu_reduce(context, &add, CLGPU_ALL_AXES, &sum, &x, NULL, 0, NULL, NULL)) != 0 ||
      (status = clgpu_array_read(context, &got, sizeof got, &sum, 0, NULL)) != 0) {
    code = child_fail("clgpu_reduce", status);
    goto done;
  }
  if (got != total) {
    printf("child: the reduce gave %g, not %g\n", got, total);
    code = 4;
    goto done;
  }
  clgpu_scan_op scan = {0};
  scan.kind = CLGPU_SCAN_SUM;
  if ((status = clgpu_scan(context, &scan, CLGPU_ALL_AXES, &y, &x, NULL, 0, NULL, NULL)) != 0 ||
      (status = clgpu_array_read(context, back, sizeof back, &y, 0, NULL)) != 0) {
    code = child_fail("clgpu_scan", status);
    goto done;
  }
  float prefix = 0;
  for (int i = 0; i < N && code == 0; i++) {
    prefix += host[i];
    if (back[i] != prefix) {
      printf("child: scan[%d] is %g, not %g\n", i, back[i], prefix);
      code = 4;
    }
  }
  if (code) goto done;
  /* A comparator the compiler warns about that
   * still means a < b (a logical not beside ==): the warning is the user's text inside the library's
   * program, which -w keeps quiet too, and on a CPU whose vector code warns
   * about nothing (AVX-512 POCL) the loud run still has one to print. */
  clgpu_sort_spec warns = {0};
  warns.compare = "a < b && !4 == 0"; /* (!4) == 0 is 1 */
  if ((status = clgpu_sort(context, &warns, &x, NULL, NULL, 0, NULL, NULL)) != 0 ||
      (status = clgpu_array_read(context, back, sizeof back, &x, 0, NULL)) != 0) {
    code = child_fail("clgpu_sort", status);
    goto done;
  }
  /* Sorted and a permutation: the same multiset of quarters 0..100. */
  int seen[101] = {0};
  for (int i = 0; i < N; i++) seen[(int)(host[i] * 4)]++;
  for (int i = 0; i < N && code == 0; i++) {
    int quarter = (int)(back[i] * 4);
    if ((i > 0 && back[i] < back[i - 1]) || quarter < 0 || quarter > 100 || --seen[quarter] < 0) {
      printf("child: the sort's output is wrong at %d (%g)\n", i, back[i]);
      code = 4;
    }
  }
done:
  clgpu_buffer_release(context, in);
  clgpu_buffer_release(context, out);
  clgpu_context_destroy(context);
  if (code == 0) printf("child: done\n");
  return code;
}

/* A fresh empty folder under the test's own temporary folder. */
static void fresh_folder(char *path, size_t size, const char *tag) {
  const char *base = getenv("CLGPU_TEST_TMPDIR");
  if (!base || !*base) base = "/tmp";
  mkdir(base, 0700);
  snprintf(path, size, "%s/quiet-%s-XXXXXX", base, tag);
  assert_non_null(mkdtemp(path));
}

/* Read a pipe to its end into a malloc'd string. */
static char *read_all(int fd) {
  size_t used = 0, capacity = 4096;
  char *text = malloc(capacity);
  assert_non_null(text);
  for (;;) {
    if (used + 1 == capacity) {
      capacity *= 2;
      text = realloc(text, capacity);
      assert_non_null(text);
    }
    ssize_t got = read(fd, text + used, capacity - 1 - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += (size_t)got;
  }
  text[used] = '\0';
  return text;
}

/* Run "--child" with cold caches, CLGPU_BUILD_WARNINGS as given (NULL:
 * unset); its stdout into *out, its stderr returned (both malloc'd). The
 * child must succeed. */
static char *run_child(const char *warnings, char **out) {
  char pocl_cache[512];
  fresh_folder(pocl_cache, sizeof pocl_cache, "pocl");
  assert_int_equal(setenv("POCL_CACHE_DIR", pocl_cache, 1), 0);
  assert_int_equal(setenv("CLGPU_CACHE_DIR", "off", 1), 0);
  assert_int_equal(setenv("CLGPU_PROGRAM_RECORD", "off", 1), 0);
  /* Under the asan setup the child's leak check is left to the other
   * tests, which make the same calls: LeakSanitizer's own reports (a
   * tracer that crashes at exit, google/sanitizers#1353) go to stderr,
   * which here must hold only what the library printed. */
  const char *asan = getenv("ASAN_OPTIONS");
  char *asan_before = asan ? strdup(asan) : NULL;
  if (asan) {
    static char child_asan[4096];
    int written = snprintf(child_asan, sizeof child_asan, "%s:detect_leaks=0", asan);
    assert_true(written > 0 && (size_t)written < sizeof child_asan);
    assert_int_equal(setenv("ASAN_OPTIONS", child_asan, 1), 0);
  }
  if (warnings) {
    assert_int_equal(setenv("CLGPU_BUILD_WARNINGS", warnings, 1), 0);
  } else {
    unsetenv("CLGPU_BUILD_WARNINGS");
  }
  int out_pipe[2], err_pipe[2];
  assert_int_equal(pipe(out_pipe), 0);
  assert_int_equal(pipe(err_pipe), 0);
  posix_spawn_file_actions_t actions;
  assert_int_equal(posix_spawn_file_actions_init(&actions), 0);
  assert_int_equal(posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO), 0);
  assert_int_equal(posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(posix_spawn_file_actions_addclose(&actions, out_pipe[i]), 0);
    assert_int_equal(posix_spawn_file_actions_addclose(&actions, err_pipe[i]), 0);
  }
  char *argv[] = {"test_quiet", "--child", NULL};
  pid_t child = 0;
  int spawned = posix_spawn(&child, "/proc/self/exe", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  unsetenv("CLGPU_BUILD_WARNINGS");
  if (asan_before) {
    setenv("ASAN_OPTIONS", asan_before, 1);
    free(asan_before);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) fail_msg("posix_spawn(/proc/self/exe): %s", strerror(spawned));
  /* The child's stderr is small (a build's warnings): read stdout to its
   * end, then stderr, without blocking the child on a full pipe. */
  *out = read_all(out_pipe[0]);
  char *err = read_all(err_pipe[0]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0) {
    if (errno != EINTR) fail_msg("waitpid: %s", strerror(errno));
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0 || !strstr(*out, "child: done")) {
    fail_msg("the child failed (wait status 0x%x); stdout:\n%s\nstderr:\n%s", wait_status, *out,
             err);
  }
  return err;
}

static int on_pocl(void) {
  clgpu_context *context = test_context(NULL);
  int pocl = strstr(clgpu_context_device_info(context)->platform_name,
                    "Portable Computing Language") != NULL;
  clgpu_context_destroy(context);
  return pocl;
}

static void builds_print_nothing(void **state) {
  (void)state;
  char *out = NULL;
  char *err = run_child(NULL, &out);
  if (err[0] != '\0') fail_msg("the library's calls printed on stderr:\n%s", err);
  free(out);
  free(err);
  if (on_pocl()) {
    err = run_child("1", &out);
    if (!strstr(err, "warning")) {
      fail_msg("with CLGPU_BUILD_WARNINGS=1, POCL printed no build warnings; stderr:\n%s", err);
    }
    free(out);
    free(err);
  }
}

/* The message of a sort with a comparator that warns and fails to build,
 * in a context made with CLGPU_BUILD_WARNINGS as given (NULL: unset). */
static char *failed_build_message(const char *warnings) {
  if (warnings) assert_int_equal(setenv("CLGPU_BUILD_WARNINGS", warnings, 1), 0);
  clgpu_context *context = NULL;
  clgpu_status made = clgpu_context_create(NULL, &context);
  unsetenv("CLGPU_BUILD_WARNINGS");
  assert_int_equal(made, CLGPU_SUCCESS);
  cl_mem buffer = NULL;
  assert_int_equal(clgpu_buffer_create(context, CL_MEM_READ_WRITE, 64 * sizeof(cl_uint), &buffer),
                   CLGPU_SUCCESS);
  clgpu_array keys;
  assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 64, &keys), CLGPU_SUCCESS);
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.compare = "a < b + 1 / 0 && undeclared_in_test";
  clgpu_status status = clgpu_sort(context, &spec, &keys, NULL, NULL, 0, NULL, NULL);
  if (status != CLGPU_CL_BUILD_PROGRAM_FAILURE) {
    fail_msg("the sort gave %s: %s", clgpu_status_name(status), clgpu_last_error());
  }
  char *message = strdup(clgpu_last_error());
  assert_non_null(message);
  clgpu_buffer_release(context, buffer);
  clgpu_context_destroy(context);
  return message;
}

static void a_failed_build_keeps_its_warnings(void **state) {
  (void)state;
  /* The logs name temporary files and are not equal text: both must hold
   * the error and the warning (a -w build's log holds no warning). */
  char *quiet = failed_build_message(NULL);
  char *loud = failed_build_message("1");
  const char *messages[] = {loud, quiet};
  for (int i = 0; i < 2; i++) {
    if (!strstr(messages[i], "undeclared_in_test") || !strstr(messages[i], "warning")) {
      fail_msg("%s: the build log names no error or no warning:\n%s",
               i ? "by default" : "with CLGPU_BUILD_WARNINGS=1", messages[i]);
    }
  }
  free(quiet);
  free(loud);
}

/* What build_log saw: the calls, and whether a log held the marker. */
typedef struct seen_logs {
  int calls, marked;
  char options[256];
} seen_logs;

static void collect_log(void *user_data, const char *options, const char *log) {
  seen_logs *seen = user_data;
  seen->calls++;
  if (strstr(log, "clgpu_log_marker")) {
    seen->marked++;
    snprintf(seen->options, sizeof seen->options, "%s", options);
  }
}

static const char marked_source[] =
    "#warning clgpu_log_marker\n"
    "__kernel void marked(__global int *x) { x[get_global_id(0)] = 1; }\n";

/* clgpu_context_options.build_log: the log of a build that warns reaches
 * it with the build's options; the same source built with -w gives no
 * marked log; a program loaded from the disk cache is not built and gives
 * none; reserved fields that are not zero refuse the context. */
static void a_build_log_reaches_the_callback(void **state) {
  (void)state;
  char *folder = test_make_folder("build_log");
  seen_logs seen;
  memset(&seen, 0, sizeof seen);
  clgpu_context_options options = {
      .cache_dir = folder, .build_log = collect_log, .build_log_data = &seen};
  clgpu_context *context = NULL;
  assert_status(clgpu_context_create(&options, &context), CLGPU_SUCCESS);
  clgpu_program *program = NULL;
  clgpu_define define = {"CLGPU_LOG_TEST", "1"};
  assert_status(clgpu_program_get(context, marked_source, &define, 1, "-cl-mad-enable", &program),
                CLGPU_SUCCESS);
  /* The implementation's own log of that build: build_log must have had
   * it exactly when it holds the warning (rusticl's logs hold none). */
  char log[8192] = "";
  assert_int_equal(
      clGetProgramBuildInfo(clgpu_program_cl_program(program), clgpu_context_device(context),
                            CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL),
      CL_SUCCESS);
  int warned = strstr(log, "clgpu_log_marker") != NULL;
  if (seen.marked != warned) {
    fail_msg("the build's log %s the warning, and reached build_log %d times",
             warned ? "holds" : "does not hold", seen.marked);
  }
  if (warned) {
    assert_non_null(strstr(seen.options, "-cl-mad-enable"));
  } else {
    print_message("# this implementation's build log holds no #warning: nothing to hand over\n");
  }
  int before = seen.marked;
  assert_status(clgpu_program_get(context, marked_source, NULL, 0, "-w", &program), CLGPU_SUCCESS);
  assert_int_equal(seen.marked, before); /* -w: no warning in the log */
  clgpu_context_destroy(context);
  /* A second context over the same folder loads the binary: no build, no log. */
  memset(&seen, 0, sizeof seen);
  assert_status(clgpu_context_create(&options, &context), CLGPU_SUCCESS);
  assert_status(clgpu_program_get(context, marked_source, &define, 1, "-cl-mad-enable", &program),
                CLGPU_SUCCESS);
  clgpu_cache_stats stats;
  assert_status(clgpu_program_cache_stats(context, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.disk_hits, 1); /* else the check below says nothing */
  clgpu_context_destroy(context);
  if (seen.calls != 0) fail_msg("a program from the disk cache gave %d logs", seen.calls);
  test_remove_folder(folder);
  clgpu_context_options reserved = {.reserved = {0, 0, 0, 5}};
  context = NULL;
  assert_status(clgpu_context_create(&reserved, &context), CLGPU_INVALID_ARGUMENT);
  assert_null(context);
  assert_non_null(strstr(clgpu_last_error(), "options->reserved[3] is not zero"));
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--child") == 0) return child_main();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(builds_print_nothing),
      cmocka_unit_test(a_failed_build_keeps_its_warnings),
      cmocka_unit_test(a_build_log_reaches_the_callback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
