/* Kernel leases: the one way every family of the library takes cached
 * kernel objects for a call and gives them back. */
#include <stdint.h>

#include <clgpu/program.h>

#include "context_internal.h"
#include "fault.h"
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

/* The largest power of two not above n (n >= 1). */
static size_t power_of_two_floor(size_t n) {
  size_t p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

/* Every kernel of the library is compiled for its group size
 * (reqd_work_group_size), chosen by the plan before the build. A device
 * may still build it for fewer work-items per group than that (short of
 * registers or local memory): enqueueing it would then fail part-way
 * through a call. Checked when the kernel is leased, before the call
 * enqueues anything, so the call changes nothing and says what to do. */
static clgpu_status check_group_once(clgpu_program *program, cl_kernel kernel, const char *name) {
  const clgpu_context *context = clgpu__program_owner(program);
  cl_device_id device = context->device;
  size_t compiled[3] = {0, 0, 0}, allowed = 0;
  if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled,
                               compiled, NULL) != CL_SUCCESS) {
    return CLGPU_SUCCESS; /* nothing known: the enqueue reports what happens */
  }
  size_t needed = compiled[0] * (compiled[1] ? compiled[1] : 1) * (compiled[2] ? compiled[2] : 1);
  if (needed <= 1) return CLGPU_SUCCESS;
  if (clgpu__fault_hit(CLGPU__FAULT_NARROW_GROUP)) {
    allowed = needed / 2;
  } else if (context->quirks.kernel_group_size_unreliable ||
             clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof allowed,
                                      &allowed, NULL) != CL_SUCCESS) {
    return CLGPU_SUCCESS; /* a device whose answer is no limit (quirks.c), or none */
  }
  if (allowed == 0 || allowed >= needed) return CLGPU_SUCCESS;
  size_t narrower = power_of_two_floor(allowed);
  return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                     "%s: this device built the kernel for at most %zu work-items per group "
                     "(CL_KERNEL_WORK_GROUP_SIZE), fewer than the %zu its plan compiled it for; "
                     "nothing was enqueued. Plan narrower groups with the environment variable "
                     "CLGPU_TUNING=tiled_group_cap=%zu,sort_group_cap=%zu (README)",
                     name, allowed, needed, narrower < 2 ? 2 : narrower,
                     narrower < 32 ? 32 : narrower);
}

static clgpu_status check_group(clgpu_program *program, cl_kernel kernel, const char *name) {
  /* Once per pooled kernel: its answer does not change. */
  if (clgpu__kernel_group_checked(program, kernel)) return CLGPU_SUCCESS;
  clgpu_status status = check_group_once(program, kernel, name);
  if (status == CLGPU_SUCCESS) clgpu__kernel_mark_group_checked(program, kernel);
  return status;
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
  /* Held first: the caller gives it back with the others on failure. */
  CLGPU__FORWARD_IF_ERROR(check_group(program, kernel, name));
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
