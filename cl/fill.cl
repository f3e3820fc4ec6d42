/* Fill: every element of a contiguous range takes one value.
 *
 * Defines:
 *   CLGPU_T  the element type (for example int, float, ulong).
 *
 * The range is (offset, n) in elements of `out`, passed as a buffer and an
 * element offset (docs/portability.md rule 13). The global size is n rounded up to
 * a multiple of the local size; items past n do nothing. */
#ifndef CLGPU_T
#error "fill.cl needs CLGPU_T, the element type"
#endif

__kernel void clgpu_fill(__global CLGPU_T *out, ulong offset, ulong n, CLGPU_T value) {
  ulong i = get_global_id(0);
  if (i < n) out[offset + i] = value;
}

/* iota: out[offset + i] = start + i * step, in the element type. */
__kernel void clgpu_iota(__global CLGPU_T *out, ulong offset, ulong n, CLGPU_T start,
                         CLGPU_T step) {
  ulong i = get_global_id(0);
  if (i < n) out[offset + i] = start + (CLGPU_T)i * step;
}
