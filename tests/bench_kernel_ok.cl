/* A small kernel for tests/test_bench.py: out[i] = a[i] * k + i over n
 * elements, staged through __local memory so that every kind of argument
 * spec has a parameter to meet (a __global buffer written, one read, two
 * scalars and a __local pointer). OFFSET comes from --define. */
#ifndef OFFSET
#define OFFSET 0.0f
#endif

__kernel void scale_add(__global float *out, __global const float *a, float k, uint n,
                        __local float *stage) {
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  stage[l] = i < n ? a[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) out[i] = stage[l] * k + (float)i + OFFSET;
}

__kernel void fill_index(__global uint *out) { out[get_global_id(0)] = (uint)get_global_id(0); }
