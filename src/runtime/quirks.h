/* Quirks (quirks.c): what clgpu does differently on a device whose platform
 * or compiler needs it, looked up from the device's facts. */
#ifndef CLGPU_SRC_QUIRKS_H
#define CLGPU_SRC_QUIRKS_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/context.h>

typedef struct clgpu__quirks {
  /* Whether CLGPU_DISK_CACHE_DEFAULT turns the disk cache on. */
  int disk_cache_by_default;
  /* Upper bound on the work-group size clgpu's kernels use on this device. */
  size_t work_group_cap;
  /* Whether the compiler crashes on some build options the allow-list
   * passes: then a "-D" reaches it joined to the name after it ("-D X" as
   * "-DX"), and options holding a double quote are refused. */
  int fragile_build_options;
  /* 0, or the most loop iterations one work-item may run in one kernel,
   * summed over every loop of the kernel (an inner loop's iterations
   * counted each time): past it the device leaves its loops early and the
   * results are wrong. Kernels whose work per item grows with n (the
   * CHUNKED sorts) size that work to stay below it. */
  uint64_t loop_iteration_cap;
  /* Whether CL_KERNEL_WORK_GROUP_SIZE is not a kernel's limit on this
   * device, so a kernel is not refused for it (lease.c). */
  int kernel_group_size_unreliable;
  /* Whether MIN and MAX over int8 in cl/runs.cl's kernels take an int
   * accumulator (the values and results stay int8). */
  int widen_char_order;
  /* Whether the library's own programs are built with -w (their warnings
   * would reach the caller's stderr on implementations that print build
   * diagnostics, POCL's "9 warnings generated."); 0 where a compiler
   * refuses -w. CLGPU_BUILD_WARNINGS=1 turns it off for a context. */
  int quiet_builds;
  /* Whether the compiler's log counts the lines of the whole source it was
   * given, under the name "<kernel>", whatever #line directives say: the
   * library then maps them back to the parts' names and lines. */
  int log_ignores_line_directives;
  /* Whether kernels must not compare whole vectors (the runs kernels then
   * compare their keys one at a time): a checking tool that crashes on
   * vector comparisons. */
  int no_vector_compare;
} clgpu__quirks;

void clgpu__quirks_for(const clgpu_device_info *info, clgpu__quirks *quirks);

#endif
