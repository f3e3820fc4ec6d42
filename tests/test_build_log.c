/* Build logs of compilers that ignore #line (NVIDIA's: "<kernel>:343:5"),
 * mapped back to the parts' names and lines, and the quirk that turns the
 * mapping on. Host only: no device is needed, so the mapping is checked on
 * every machine, not only where NVIDIA's OpenCL runs. Links the static
 * library for its internal functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <clgpu/clgpu.h>

#include "build_log.h"
#include "quirks.h"

/* A source assembled as the program cache assembles one: defines, a bare
 * "#line 1" before the first part, "#line 1 \"label\"" before each later
 * one (physical lines in the comments on the right). */
static const char source[] =
    "#define CLGPU_T uint\n"       /* 1 */
    "#define CLGPU_N 4\n"          /* 2 */
    "#line 1\n"                    /* 3 */
    "int first(int a) {\n"         /* 4: first part, line 1 */
    "  return a;\n"                /* 5: line 2 */
    "}\n"                          /* 6: line 3 */
    "#line 1 \"operation\"\n"      /* 7 */
    "y = undefined_thing\n"        /* 8: operation:1 */
    "#line 1 \"elementwise.cl\"\n" /* 9 */
    "  ;\n"                        /* 10: elementwise.cl:1 */
    "}\n"                          /* 11: elementwise.cl:2 */
    "#line 40 \"tail part.cl\"\n"  /* 12 */
    "x\n"                          /* 13: tail part.cl:40 */
    "z";                           /* 14: tail part.cl:41, no final line break */

static void expect_mapped(const char *log, const char *expected) {
  char *mapped = clgpu__build_log_map_lines(source, strlen(source), log);
  if (!expected) {
    if (mapped) fail_msg("log \"%s\" was mapped to \"%s\", expected no change", log, mapped);
    return;
  }
  if (!mapped) fail_msg("log \"%s\" was not mapped, expected \"%s\"", log, expected);
  if (strcmp(mapped, expected) != 0) {
    fail_msg("log \"%s\" mapped to\n\"%s\", expected\n\"%s\"", log, mapped, expected);
  }
  free(mapped);
}

/* Each part's lines, under its own name, as POCL, Intel's runtime and
 * rusticl print them; what is not a "<kernel>:LINE:" stays as it was. */
static void lines_map_to_their_parts(void **state) {
  (void)state;
  expect_mapped(
      "<kernel>:8:5: error: use of undeclared identifier 'undefined_thing'\n"
      "y = undefined_thing\n    ^\n",
      "operation:1:5: error: use of undeclared identifier 'undefined_thing'\n"
      "y = undefined_thing\n    ^\n");
  expect_mapped(
      "<kernel>:5:3: warning: a\n<kernel>:10:3: error: b\n<kernel>:14:1: note: c\n",
      "<kernel>:2:3: warning: a\nelementwise.cl:1:3: error: b\ntail part.cl:41:1: note: c\n");
  expect_mapped("<kernel>:13:1: error", "tail part.cl:40:1: error");
  /* Lines before the first directive (the defines), a line past the end
   * (the last directive's count goes on), and texts that only look like
   * a place. */
  expect_mapped("<kernel>:2:9: error: x", "<kernel>:2:9: error: x");
  expect_mapped("<kernel>:20:1: error", "tail part.cl:47:1: error");
  expect_mapped("<kernel>:x:1 <kernel>:8 <kernel>: <kernel>:0:1: <kernel>:8:",
                "<kernel>:x:1 <kernel>:8 <kernel>: <kernel>:0:1: operation:1:");
  /* A log without the name: no new text. */
  expect_mapped("operation:1:5: error: use of undeclared identifier\n", NULL);
  expect_mapped("", NULL);
  assert_null(clgpu__build_log_map_lines(NULL, 0, "<kernel>:1:1:"));
  assert_null(clgpu__build_log_map_lines(source, strlen(source), NULL));
}

/* The quirks table turns the mapping on for NVIDIA's platform alone. */
static void only_nvidia_maps(void **state) {
  (void)state;
  static const struct {
    const char *platform, *device;
    int maps;
  } rows[] = {
      {"NVIDIA CUDA", "NVIDIA H200", 1},
      {"Portable Computing Language", "cpu-haswell-Intel(R) Xeon(R)", 0},
      {"rusticl", "llvmpipe (LLVM 15.0.6, 256 bits)", 0},
      {"Intel(R) OpenCL", "Intel(R) Xeon(R) Processor", 0},
      {"AMD Accelerated Parallel Processing", "gfx1100", 0},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    clgpu_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.platform_name, sizeof info.platform_name, "%s", rows[i].platform);
    snprintf(info.name, sizeof info.name, "%s", rows[i].device);
    info.max_work_group_size = 1024;
    clgpu__quirks quirks;
    clgpu__quirks_for(&info, &quirks);
    if (quirks.log_ignores_line_directives != rows[i].maps) {
      fail_msg("%s: log_ignores_line_directives is %d, expected %d", rows[i].platform,
               quirks.log_ignores_line_directives, rows[i].maps);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lines_map_to_their_parts),
      cmocka_unit_test(only_nvidia_maps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
