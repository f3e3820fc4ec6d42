/* Device work-arounds and per-platform defaults: one table, a reason and a
 * reference per row. Code elsewhere reads clgpu__quirks, never a vendor name.
 * A row matches when each of its non-NULL patterns is a case-sensitive
 * substring of the platform name, device name and driver version. Later rows
 * override earlier ones. */
#include <string.h>

#include <clgpu/context.h>

#include "quirks.h"

typedef enum quirk_kind {
  QUIRK_DISK_CACHE_OFF_BY_DEFAULT,
  QUIRK_WORK_GROUP_CAP,
  QUIRK_FRAGILE_BUILD_OPTIONS,
  QUIRK_LOOP_ITERATION_CAP,
  QUIRK_KERNEL_GROUP_SIZE_UNRELIABLE,
  QUIRK_WIDEN_CHAR_ORDER,
  QUIRK_NO_VECTOR_COMPARE,
  QUIRK_NO_QUIET_BUILDS,
  QUIRK_LOG_IGNORES_LINE_DIRECTIVES,
} quirk_kind;

typedef struct quirk_row {
  const char *platform;
  const char *device;
  const char *driver;
  quirk_kind kind;
  size_t value;
  const char *reason;
  const char *reference;
} quirk_row;

/* The disk cache is on by default everywhere no row turns it off. POCL keeps a
 * kernel cache of its own, and fetching CL_PROGRAM_BINARIES was said to cost
 * an extra compile there (inducer/pyopencl#731), so it was the candidate for
 * such a row. Measured on POCL 3.1 (bash tools/measure-first-call, medians of
 * 5 fresh processes): with clgpu's cache warm the first call takes 6.8 ms
 * against 33.6 ms with POCL's own warm cache alone, and 55 ms against 730 ms
 * when POCL's cache is cold; writing our binary costs about 110 ms once per
 * program and machine (838 ms against 730 ms cold). So POCL has no row. A
 * platform measured the other way gets a QUIRK_DISK_CACHE_OFF_BY_DEFAULT
 * row. */
static const quirk_row quirk_table[] = {
    {"Portable Computing Language", NULL, NULL, QUIRK_WORK_GROUP_CAP, 256,
     "POCL reports 4096 work-items per group but runs a group as a loop on one "
     "thread; wide groups only add compile time and local-memory footprint",
     "docs/portability.md, what the implementations here do"},
    {"rusticl", NULL, "22.3.", QUIRK_FRAGILE_BUILD_OPTIONS, 1,
     "rusticl of Mesa 22.3 ends the process inside clBuildProgram on two kinds of options: a "
     "word of one character (\"-D X\": a Rust panic, range end index 2 out of range for slice "
     "of length 1, in SPIRVBin::from_clc; \"-DX\" builds) and any double quote (\"-DX=\\\"a\\\"\": "
     "SIGSEGV in clang::SourceManager::~SourceManager)",
     "measured on Mesa 22.3.6 llvmpipe; tests/test_program_cache.c "
     "options_the_compiler_cannot_take"},
    {"rusticl", NULL, "22.3.", QUIRK_KERNEL_GROUP_SIZE_UNRELIABLE, 1,
     "rusticl of Mesa 22.3 answers CL_KERNEL_WORK_GROUP_SIZE with 32 for kernels compiled "
     "with reqd_work_group_size(256), which it then runs at 256 work-items per group and "
     "gets right (every TILED test of the suite): the answer is not the kernel's limit",
     "measured on Mesa 22.3.6 llvmpipe; src/runtime/lease.c check_group"},
    {NULL, "llvmpipe", NULL, QUIRK_LOOP_ITERATION_CAP, 65535,
     "Mesa's llvmpipe (gallivm) counts the loop iterations of a work-item in one counter "
     "for the whole kernel, every loop and every pass of an inner loop included, and leaves "
     "every loop once it has counted 65535 (LP_MAX_TGSI_LOOP_ITERATIONS), silently: one "
     "work-item copying 65536 elements in a loop leaves the last one unwritten (rusticl, "
     "Mesa 22.3.6, LLVM 15)",
     "tests/test_sort.c loop_iteration_cap; docs/quirks.md"},
    {NULL, "llvmpipe", NULL, QUIRK_WIDEN_CHAR_ORDER, 1,
     "Mesa's llvmpipe ends the process with a segmentation fault inside the compiled code of "
     "cl/runs.cl's kernels when their accumulator is char under MIN or MAX (a select of two "
     "chars from a comparison); uchar, short and wider types run right (rusticl, Mesa 22.3.6, "
     "LLVM 15)",
     "tests/test_runs.c scan_every_type_and_operator; docs/quirks.md"},
    {"Oclgrind", NULL, NULL, QUIRK_NO_VECTOR_COMPARE, 1,
     "Oclgrind 21.10 with its uninitialized-value checks (OCLGRIND_UNINITIALIZED, which "
     "tools/oclgrind-run turns on) ends the process with SIGSEGV, inside "
     "Uninitialized::instructionExecuted, at any comparison of two 16-element vectors "
     "(uint16 or uchar16, with != or as (x | -x) >> 31, which the compiler turns back into "
     "one); without those checks it runs them right",
     "tests/test_runs.c under the oclgrind setup; docs/quirks.md"},
    {"NVIDIA CUDA", NULL, NULL, QUIRK_LOG_IGNORES_LINE_DIRECTIVES, 1,
     "NVIDIA's OpenCL compiler ignores #line: its build log names every error \"<kernel>:L:C\" "
     "with L counted over the whole assembled source (line 343 for a one-line elementwise "
     "operation), so a message would not say which part (operation, comparator, the caller's "
     "file) holds the error; the library maps L back through the source's own #line "
     "directives (driver 580.159.04, H200)",
     "tests/test_build_log.c; tests/test_elementwise.c build_failures (on NVIDIA); "
     "docs/quirks.md"},
};

static int matches(const char *pattern, const char *text) {
  return pattern == NULL || strstr(text, pattern) != NULL;
}

void clgpu__quirks_for(const clgpu_device_info *info, clgpu__quirks *quirks) {
  quirks->disk_cache_by_default = 1;
  quirks->work_group_cap = 1024;
  quirks->fragile_build_options = 0;
  quirks->loop_iteration_cap = 0;
  quirks->kernel_group_size_unreliable = 0;
  quirks->widen_char_order = 0;
  quirks->quiet_builds = 1;
  quirks->log_ignores_line_directives = 0;
  quirks->no_vector_compare = 0;
  for (size_t i = 0; i < sizeof quirk_table / sizeof quirk_table[0]; i++) {
    const quirk_row *row = &quirk_table[i];
    if (!matches(row->platform, info->platform_name) || !matches(row->device, info->name) ||
        !matches(row->driver, info->driver_version)) {
      continue;
    }
    switch (row->kind) {
      case QUIRK_DISK_CACHE_OFF_BY_DEFAULT:
        quirks->disk_cache_by_default = row->value == 0;
        break;
      case QUIRK_WORK_GROUP_CAP:
        quirks->work_group_cap = row->value;
        break;
      case QUIRK_FRAGILE_BUILD_OPTIONS:
        quirks->fragile_build_options = row->value != 0;
        break;
      case QUIRK_LOOP_ITERATION_CAP:
        quirks->loop_iteration_cap = row->value;
        break;
      case QUIRK_KERNEL_GROUP_SIZE_UNRELIABLE:
        quirks->kernel_group_size_unreliable = row->value != 0;
        break;
      case QUIRK_WIDEN_CHAR_ORDER:
        quirks->widen_char_order = row->value != 0;
        break;
      case QUIRK_NO_QUIET_BUILDS:
        quirks->quiet_builds = row->value == 0;
        break;
      case QUIRK_LOG_IGNORES_LINE_DIRECTIVES:
        quirks->log_ignores_line_directives = row->value != 0;
        break;
      case QUIRK_NO_VECTOR_COMPARE:
        quirks->no_vector_compare = row->value != 0;
        break;
    }
  }
  if (quirks->work_group_cap > info->max_work_group_size && info->max_work_group_size > 0) {
    quirks->work_group_cap = info->max_work_group_size;
  }
}
