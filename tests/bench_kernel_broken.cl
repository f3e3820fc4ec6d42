/* A kernel that does not compile, for tests/test_bench.py: the build log
 * must reach stderr. */
__kernel void broken(__global float *out) {
  out[get_global_id(0)] = undeclared_name * 2.0f;
}
