/* The built-in elementwise operations (elementwise_ops.c): what other files
 * of ops/ call of them. */
#ifndef CLGPU_SRC_ELEMENTWISE_OPS_H
#define CLGPU_SRC_ELEMENTWISE_OPS_H

#include <clgpu/array.h>
#include <clgpu/context.h>

/* clgpu_fill over a layout clEnqueueFillBuffer cannot express: the
 * context's built-in fill kernel over the view seen as unsigned integers of
 * its element size. The caller has checked the arguments. */
clgpu_status clgpu__fill_strided(clgpu_context *context, const clgpu_array *destination,
                                 const void *value, cl_uint num_events, const cl_event *wait_list,
                                 cl_event *event);

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__iota(clgpu_context *context, const clgpu_array *out, const void *start,
                         const void *step, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event);

#endif
