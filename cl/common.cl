/* The prelude of clgpu's kernel families: the host builds reduce.cl,
 * sort.cl and elementwise.cl after this file (src/runtime/program_cache.c), never
 * alone.
 *
 * Defines:
 *   CLGPU_NEEDS_FP64  optional: the device has cl_khr_fp64 and the program
 *                     may use double
 *   CLGPU_NEEDS_FP16  optional: the same for cl_khr_fp16 and half
 *   CLGPU_SUBGROUPS   optional: the device reports sub-groups; their
 *                     group-wide prefix sums below are used
 *   CLGPU_ALIGNED_VECTORS optional: CLGPU_VLOAD16 and CLGPU_VSTORE16 go
 *                     through a pointer to the vector type where aligned */
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

/* A store that does not bring its line into the cache first (the radix
 * scatter's lines, a large scan's output): Clang's non-temporal builtin,
 * which is not OpenCL C; a compiler without it stores plainly. The
 * address must be aligned to the value's size. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CLGPU_STREAM_STORE(value, to) __builtin_nontemporal_store((value), (to))
#endif
#endif
#ifndef CLGPU_STREAM_STORE
#define CLGPU_STREAM_STORE(value, to) (*(to) = (value))
#endif

/* Sixteen elements of global memory at p (of vector type T16) loaded, or
 * stored. With CLGPU_ALIGNED_VECTORS (the tuning table's
 * aligned_vector_access, POCL's row), as one vector through a pointer to
 * T16 where p is aligned for it, by vload16 and vstore16 elsewhere:
 * POCL 3.1 (LLVM 15) turns a vload16 into eight two-element loads and
 * rebuilds the vector from them with shuffles, which it then cannot merge
 * with the shuffles of a scan after it (docs/quirks.md). Without it,
 * vload16 and vstore16 always: Mesa's llvmpipe runs the aligned form
 * slower. The same elements either way, so a result never depends on the
 * form or the alignment; in a loop that walks by whole vectors the test
 * is the same at every step, which the compilers hoist. */
#ifdef CLGPU_ALIGNED_VECTORS
#define CLGPU_VLOAD16(T16, p) \
  (((ulong)(p)) % sizeof(T16) == 0 ? *(const __global T16 *)(p) : vload16(0, (p)))
#define CLGPU_VSTORE16(T16, value, p)      \
  do {                                     \
    if (((ulong)(p)) % sizeof(T16) == 0) { \
      *(__global T16 *)(p) = (value);      \
    } else {                               \
      vstore16((value), 0, (p));           \
    }                                      \
  } while (0)
#else
#define CLGPU_VLOAD16(T16, p) vload16(0, (p))
#define CLGPU_VSTORE16(T16, value, p) vstore16((value), 0, (p))
#endif

/* The host defines CLGPU_SUBGROUPS only for a device that reports
 * sub-groups. The kernels are OpenCL C 1.2 (docs/portability.md rule 4),
 * where cl_intel_subgroups declares the sub-group functions but
 * cl_khr_subgroups (an OpenCL C 2.0 extension) may not: any other
 * compiler gets the tree. */
#if defined(CLGPU_SUBGROUPS) && !defined(cl_intel_subgroups) && \
    !(defined(cl_khr_subgroups) && __OPENCL_C_VERSION__ >= 200)
#undef CLGPU_SUBGROUPS
#undef CLGPU_SUBGROUP_ADD
#endif
#ifdef CLGPU_SUBGROUPS
/* The exclusive prefix sum of one value of type V per work-item and the
 * group's total, by sub-group scans (only where the device reports
 * sub-groups, and for the types their functions take): a scan inside each
 * sub-group, the sub-groups' totals through local memory, read by every
 * item in a loop of the same length for all. Two barriers instead of the
 * tree's two per doubling step. Called by every item of the group; returns
 * after a barrier, so `scratch` may be written again at once. */
#define CLGPU_DEFINE_SUBGROUP_ADD(V, NAME)                                  \
  inline V NAME(V value, __local V *scratch, V *total) {                  \
    uint sub = get_sub_group_id();                                        \
    uint subs = get_num_sub_groups();                                     \
    V inside = sub_group_scan_exclusive_add(value);                       \
    if (get_sub_group_local_id() + 1 == get_sub_group_size()) {           \
      scratch[sub] = inside + value;                                      \
    }                                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                         \
    V before = (V)0, all = (V)0;                                          \
    for (uint k = 0; k < subs; k++) {                                     \
      V t = scratch[k];                                                   \
      if (k < sub) before += t;                                           \
      all += t;                                                           \
    }                                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                         \
    *total = all;                                                         \
    return before + inside;                                               \
  }
#endif
