/* Kernel leases: the one way every family of the library takes cached
 * kernel objects for a call and gives them back. */
#include "internal.h"

void clgpu__kernel_clear_arguments(cl_kernel kernel) {
  cl_uint count = 0;
  if (clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL) != CL_SUCCESS) {
    return;
  }
  /* Every argument that takes a pointer-sized value gets zeros: a buffer
   * argument becomes NULL, so a kernel kept in the cache keeps no caller's
   * cl_mem alive on implementations that retain the memory objects of
   * kernel arguments; a scalar of that size becomes 0, which no call relies
   * on (each sets every argument before it enqueues). Arguments of other
   * sizes refuse the value, which is ignored. */
  cl_mem none = NULL;
  for (cl_uint index = 0; index < count; index++) {
    clSetKernelArg(kernel, index, sizeof none, &none);
  }
}

clgpu_status clgpu__lease(clgpu__leases *held, clgpu_program *program, const char *name,
                          cl_kernel *out) {
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(held->count == CLGPU__MAX_LEASES, CLGPU_INTERNAL_ERROR,
                         "internal: more than %d kernels leased by one call (%s)",
                         CLGPU__MAX_LEASES, name);
  cl_kernel kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu_kernel_acquire(program, name, &kernel));
  held->programs[held->count] = program;
  held->kernels[held->count] = kernel;
  held->count++;
  *out = kernel;
  return CLGPU_SUCCESS;
}

void clgpu__leases_give_back(clgpu__leases *held) {
  for (unsigned i = 0; i < held->count; i++) {
    clgpu_kernel_release(held->programs[i], held->kernels[i]);
  }
  held->count = 0;
}
