/* Fault injection for tests (fault.c): the fault points of the OpenCL calls
 * (opencl.h), armed to make one of them fail. */
#ifndef CLGPU_SRC_FAULT_H
#define CLGPU_SRC_FAULT_H

#include <clgpu/api.h> /* <CL/cl.h> at the OpenCL version clgpu targets */

/* Kinds of fault point: creating an OpenCL object (context, queue, buffer,
 * program, kernel), building a program, enqueueing a command. */
enum {
  CLGPU__FAULT_CREATE = 1u,
  CLGPU__FAULT_BUILD = 2u,
  CLGPU__FAULT_ENQUEUE = 4u,
  CLGPU__FAULT_ALL = 7u,
  /* Not in ALL: a leased kernel reports half the work-group size it was
   * compiled for (lease.c), as a device short of registers may. */
  CLGPU__FAULT_NARROW_GROUP = 8u,
};

/* The status an injected fault reports. */
#define CLGPU__INJECTED_STATUS CL_OUT_OF_RESOURCES

/* The arming functions are exported from the shared library too (under the
 * internal prefix, in no public header), for the tests of programs that
 * link it rather than the static library: tests/test_mpi.c arms a fault on
 * one rank. */
#include "status_internal.h" /* CLGPU__COMPONENT_API */

/* Make the n-th fault point (1-based) of the given kinds fail, once. */
CLGPU__COMPONENT_API void clgpu__fault_arm(unsigned kinds, long n);
CLGPU__COMPONENT_API void clgpu__fault_disarm(void);
/* Fault points of the armed kinds passed since arming. */
CLGPU__COMPONENT_API long clgpu__fault_points_seen(void);
/* At a fault point: 1 when this call must fail. */
int clgpu__fault_hit(unsigned kind);

#endif
