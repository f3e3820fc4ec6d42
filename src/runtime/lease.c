/* Kernel leases: the one way every family of the library takes cached
 * kernel objects for a call and gives them back. */
#include <stdint.h>

#include <clgpu/program.h>

#include "lease.h"
#include "program_cache.h"
#include "status_internal.h"

void clgpu__kernel_clear_buffers(cl_kernel kernel, uint64_t buffer_args) {
  /* A buffer argument set to NULL keeps no caller's cl_mem alive inside a
   * cached kernel on implementations that retain the memory objects of
   * kernel arguments. Only the buffer arguments are touched: setting an
   * argument of another size would be an error (Oclgrind reports it). */
  cl_mem none = NULL;
  for (cl_uint index = 0; index < 64; index++) {
    if ((buffer_args >> index) & 1u) clSetKernelArg(kernel, index, sizeof none, &none);
  }
}

clgpu_status clgpu__lease(clgpu__leases *held, clgpu_program *program, const char *name,
                          uint64_t buffer_args, cl_kernel *out) {
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(held->count == CLGPU__MAX_LEASES, CLGPU_INTERNAL_ERROR,
                         "internal: more than %d kernels leased by one call (%s)",
                         CLGPU__MAX_LEASES, name);
  cl_kernel kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__kernel_acquire(program, name, &kernel));
  held->programs[held->count] = program;
  held->kernels[held->count] = kernel;
  held->buffer_args[held->count] = buffer_args;
  held->count++;
  *out = kernel;
  return CLGPU_SUCCESS;
}

void clgpu__leases_give_back(clgpu__leases *held) {
  for (unsigned i = 0; i < held->count; i++) {
    clgpu__kernel_clear_buffers(held->kernels[i], held->buffer_args[i]);
    clgpu__kernel_release(held->programs[i], held->kernels[i]);
  }
  held->count = 0;
}
