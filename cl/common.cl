/* The prelude of clgpu's kernel families: the host builds reduce.cl,
 * sort.cl and elementwise.cl after this file (src/runtime/program_cache.c), never
 * alone.
 *
 * Defines:
 *   CLGPU_NEEDS_FP64  optional: the device has cl_khr_fp64 and the program
 *                     may use double
 *   CLGPU_NEEDS_FP16  optional: the same for cl_khr_fp16 and half */
#ifdef CLGPU_NEEDS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef CLGPU_NEEDS_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

/* Token pasting after the arguments' own expansion: CLGPU_CAT(x, N) with N
 * a macro naming a number gives x3, not xN. */
#define CLGPU_CAT_(a, b) a##b
#define CLGPU_CAT(a, b) CLGPU_CAT_(a, b)
