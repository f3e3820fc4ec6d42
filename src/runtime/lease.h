/* Kernel leases (lease.c): the kernels one call takes from the program
 * cache, given back together with their buffer arguments cleared. */
#ifndef CLGPU_SRC_LEASE_H
#define CLGPU_SRC_LEASE_H

#include <stdint.h>

#include <clgpu/program.h>

/* Set the kernel's buffer arguments (bit i of `buffer_args`: argument i)
 * to NULL before it goes back to the cache, so that no cached kernel keeps
 * a caller's cl_mem alive. Every family gives its kernels back through
 * this, mostly by clgpu__leases_give_back. */
void clgpu__kernel_clear_buffers(cl_kernel kernel, uint64_t buffer_args);
#define CLGPU__BUFFER_ARG(i) ((uint64_t)1 << (i))

/* The kernels one call leases, given back together. */
#define CLGPU__MAX_LEASES 8
typedef struct clgpu__leases {
  clgpu_program *programs[CLGPU__MAX_LEASES];
  cl_kernel kernels[CLGPU__MAX_LEASES];
  uint64_t buffer_args[CLGPU__MAX_LEASES];
  unsigned count;
} clgpu__leases;

/* Lease kernel `name` of `program` into `held`; `buffer_args` marks its
 * buffer arguments (CLGPU__BUFFER_ARG bits), cleared when given back. */
clgpu_status clgpu__lease(clgpu__leases *held, clgpu_program *program, const char *name,
                          uint64_t buffer_args, cl_kernel *out);
/* Give back every kernel of `held`, its buffer arguments cleared. */
void clgpu__leases_give_back(clgpu__leases *held);

#endif
