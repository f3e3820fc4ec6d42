/* The argument checks every entry point shares (check.h): views, output
 * layouts, buffers and wait lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>

#include "array_internal.h"
#include "check.h"
#include "context_internal.h"
#include "overflow.h"
#include "status_internal.h"

clgpu_status clgpu__check_view(const clgpu_array *array, const char *who, const char *name) {
  CLGPU__RETURN_ERROR_IF(!array, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who, name);
  clgpu_status status = clgpu__array_check(array);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (%s: the %s)", who, name);
  return status;
}

/* Whether two indices of the destination can land on one element. A stride
 * of 0 on a dimension longer than 1 is the plain case. Otherwise the test is
 * sufficient, not exact: with the dimensions longer than 1 sorted by the
 * size of their strides, each stride must step past everything the smaller
 * dimensions reach. Every contiguous layout passes, and so does every view
 * sliced, permuted, reshaped or reinterpreted from one; some exotic layouts
 * whose elements never meet are refused too (strides 2 and 3 over extents 3
 * and 2 reach the elements 0, 2, 4, 3, 5 and 7). Dimensions of extent 0 or 1
 * are ignored, so the layout is judged the same whether or not another
 * dimension is empty. The sums cannot overflow: the view was checked to lie
 * inside its buffer. */
clgpu_status clgpu__check_output_layout(const clgpu_array *destination, const char *who,
                                        const char *name) {
  size_t extents[CLGPU_MAX_RANK];
  size_t strides[CLGPU_MAX_RANK];
  unsigned dims[CLGPU_MAX_RANK];
  unsigned count = 0;
  for (unsigned d = 0; d < destination->rank; d++) {
    if (destination->shape[d] <= 1) continue;
    CLGPU__RETURN_ERROR_IF(destination->strides[d] == 0, CLGPU_INVALID_OUTPUT,
                           "%s: the %s has stride 0 on dimension %u of extent "
                           "%zu, so several elements would be written to one place",
                           who, name, d, destination->shape[d]);
    /* Insertion sort by stride size: at most eight entries. */
    unsigned at = count++;
    while (at > 0 && strides[at - 1] > clgpu__magnitude(destination->strides[d])) {
      extents[at] = extents[at - 1];
      strides[at] = strides[at - 1];
      dims[at] = dims[at - 1];
      at--;
    }
    extents[at] = destination->shape[d];
    strides[at] = clgpu__magnitude(destination->strides[d]);
    dims[at] = d;
  }
  size_t reach = 0; /* the farthest element the smaller dimensions reach */
  for (unsigned k = 0; k < count; k++) {
    CLGPU__RETURN_ERROR_IF(strides[k] <= reach, CLGPU_INVALID_OUTPUT,
                           "%s: the %s's elements may overlap each other: "
                           "dimension %u has stride %td, but the dimensions with smaller "
                           "strides reach %zu elements from their start (clgpu only "
                           "writes layouts where each stride steps past that)",
                           who, name, dims[k], destination->strides[dims[k]], reach);
    reach += (extents[k] - 1) * strides[k];
  }
  return CLGPU_SUCCESS;
}

/* The buffer of a view must belong to the context, and must allow what the
 * copy does to it: writing the destination to a CL_MEM_READ_ONLY buffer, or
 * reading the source from a CL_MEM_WRITE_ONLY one, is undefined in a
 * kernel, so both are refused whichever way the copy would run. */
clgpu_status clgpu__check_buffer(const clgpu_context *context, cl_mem buffer, const char *who,
                                 const char *name, int written) {
  cl_context owner = NULL;
  cl_int err = clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err != CL_SUCCESS) {
    clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_CONTEXT)");
    clgpu__append_error(" (%s: the %s's buffer)", who, name);
    return (clgpu_status)err;
  }
  CLGPU__RETURN_ERROR_IF(owner != context->cl_context, CLGPU_MISMATCHED_OBJECTS,
                         "%s: the %s's buffer belongs to another cl_context than the "
                         "clgpu context's",
                         who, name);
  cl_mem_flags flags = 0;
  err = clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
  if (err != CL_SUCCESS) {
    clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_FLAGS)");
    clgpu__append_error(" (%s: the %s's buffer)", who, name);
    return (clgpu_status)err;
  }
  CLGPU__RETURN_ERROR_IF(written && (flags & CL_MEM_READ_ONLY), CLGPU_INVALID_OUTPUT,
                         "%s: the %s's buffer is CL_MEM_READ_ONLY", who, name);
  CLGPU__RETURN_ERROR_IF(!written && (flags & CL_MEM_WRITE_ONLY), CLGPU_INVALID_ARGUMENT,
                         "%s: the %s's buffer is CL_MEM_WRITE_ONLY", who, name);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_wait_list(const clgpu_context *context, cl_uint num_events,
                                    const cl_event *wait_list, const char *who) {
  CLGPU__RETURN_ERROR_IF(num_events > 0 && !wait_list, CLGPU_INVALID_ARGUMENT,
                         "%s: wait_list is NULL but num_events is %u", who, num_events);
  CLGPU__RETURN_ERROR_IF(num_events == 0 && wait_list, CLGPU_INVALID_ARGUMENT,
                         "%s: wait_list is not NULL but num_events is 0", who);
  for (cl_uint e = 0; e < num_events; e++) {
    CLGPU__RETURN_ERROR_IF(!wait_list[e], CLGPU_CL_INVALID_EVENT_WAIT_LIST,
                           "%s: wait_list[%u] is NULL", who, e);
    if (!context) continue;
    /* OpenCL refuses a wait list whose events belong to another context
     * only at enqueue, and some implementations not at all: a command that
     * silently ignores a dependency is a race, so every entry is checked
     * here, before anything is enqueued. */
    cl_context owner = NULL;
    cl_int err = clGetEventInfo(wait_list[e], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL);
    if (err != CL_SUCCESS) {
      return clgpu__fail(CLGPU_CL_INVALID_EVENT_WAIT_LIST,
                         "%s: wait_list[%u] is not a valid event: clGetEventInfo(CL_EVENT_CONTEXT) "
                         "failed with %s (%d)",
                         who, e, clgpu__status_name(err), (int)err);
    }
    CLGPU__RETURN_ERROR_IF(owner != context->cl_context, CLGPU_CL_INVALID_CONTEXT,
                           "%s: wait_list[%u] is an event of another OpenCL context", who, e);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_index_type(clgpu_type type, uint64_t n, const char *who,
                                     const char *name) {
  CLGPU__RETURN_ERROR_IF(
      type != CLGPU_TYPE_UINT32 && type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
      "%s: the %s must be uint (CLGPU_TYPE_UINT32) or ulong (CLGPU_TYPE_UINT64), not %s", who, name,
      clgpu__type_cl_name(type));
  CLGPU__RETURN_ERROR_IF(type == CLGPU_TYPE_UINT32 && n > UINT32_MAX, CLGPU_TYPE_MISMATCH,
                         "%s: %llu elements need 64-bit %s (CLGPU_TYPE_UINT64)", who,
                         (unsigned long long)n, name);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_apart(const clgpu_array *output, const clgpu_array *other,
                                const char *who, const char *output_name, const char *name) {
  CLGPU__RETURN_ERROR_IF(clgpu__may_alias(output, other), CLGPU_INVALID_OUTPUT,
                         "%s: the %s may overlap the %s", who, output_name, name);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_view_1d(const clgpu_array *array, const char *who, const char *name) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(array, who, name));
  CLGPU__RETURN_ERROR_IF(array->rank != 1, CLGPU_SHAPE_MISMATCH,
                         "%s: %s must be a 1-D view, not rank %u (reshape it first)", who, name,
                         array->rank);
  return CLGPU_SUCCESS;
}
