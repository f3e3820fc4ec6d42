/* Copying between array views on the device: the argument checks shared
 * with the other operations that write views, and clgpu_copy.
 *
 * A copy between two row-major contiguous views that cannot share a byte is
 * one clEnqueueCopyBuffer. Every other copy runs the context's built-in
 * elementwise copy (elementwise_ops.c: "y = x" over the views seen as
 * unsigned integers of their element size), which brings what elementwise
 * kernels do for any layout: dimensions merged and reordered, a kernel
 * specialised per layout (blocked on CPU devices when the two sides are
 * fastest along different dimensions), and a temporary for a source that
 * overlaps the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- argument checks ---- */

/* clgpu_array_check with the argument's name added to its message. */
static clgpu_status check_view(const clgpu_array *array, const char *name) {
  clgpu_status status = clgpu_array_check(array);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (clgpu_copy: the %s)", name);
  return status;
}

static size_t magnitude(ptrdiff_t stride) {
  return stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride;
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
    while (at > 0 && strides[at - 1] > magnitude(destination->strides[d])) {
      extents[at] = extents[at - 1];
      strides[at] = strides[at - 1];
      dims[at] = dims[at - 1];
      at--;
    }
    extents[at] = destination->shape[d];
    strides[at] = magnitude(destination->strides[d]);
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

static clgpu_status check_arguments(const clgpu_context *context, const clgpu_array *destination,
                                    const clgpu_array *source, cl_uint num_events,
                                    const cl_event *wait_list) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "clgpu_copy: context is NULL");
  CLGPU__RETURN_ERROR_IF(!destination, CLGPU_INVALID_ARGUMENT, "clgpu_copy: destination is NULL");
  CLGPU__RETURN_ERROR_IF(!source, CLGPU_INVALID_ARGUMENT, "clgpu_copy: source is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, "clgpu_copy"));
  CLGPU__FORWARD_IF_ERROR(check_view(destination, "destination"));
  CLGPU__FORWARD_IF_ERROR(check_view(source, "source"));
  int same_shape = destination->rank == source->rank;
  for (unsigned d = 0; same_shape && d < destination->rank; d++) {
    same_shape = destination->shape[d] == source->shape[d];
  }
  if (!same_shape) {
    char destination_shape[200], source_shape[200];
    clgpu__describe_shape(destination, destination_shape, sizeof destination_shape);
    clgpu__describe_shape(source, source_shape, sizeof source_shape);
    return clgpu__fail(CLGPU_SHAPE_MISMATCH,
                       "clgpu_copy: the destination's shape %s differs from the source's %s",
                       destination_shape, source_shape);
  }
  CLGPU__RETURN_ERROR_IF(destination->type != source->type, CLGPU_TYPE_MISMATCH,
                         "clgpu_copy: the destination holds %s and the source %s",
                         clgpu_type_cl_name(destination->type), clgpu_type_cl_name(source->type));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(destination, "clgpu_copy", "destination"));
  CLGPU__FORWARD_IF_ERROR(
      clgpu__check_buffer(context, destination->buffer, "clgpu_copy", "destination", 1));
  return clgpu__check_buffer(context, source->buffer, "clgpu_copy", "source", 0);
}

/* ---- the copy ---- */

/* A copy with nothing to move still honours the event contract: the event,
 * when asked for, completes once the wait list has. Without an event nobody
 * can observe the marker, so none is enqueued. */
static clgpu_status enqueue_nothing(clgpu_context *context, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event) {
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  return clgpu__chain_end(context, &chain, event);
}

/* The copy of views known to be good (checked by clgpu_copy, or made by the
 * operation that stages them): nothing, one buffer copy, or the built-in
 * elementwise copy. `who` names the operation in a failure's message. */
static clgpu_status copy_views(clgpu_context *context, const clgpu_array *destination,
                               const clgpu_array *source, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event, const char *who) {
  size_t count = clgpu_array_count(destination);
  if (count == 0 || clgpu_array_same(destination, source)) {
    return enqueue_nothing(context, num_events, wait_list, event);
  }
  if (!clgpu_array_is_contiguous(destination) || !clgpu_array_is_contiguous(source) ||
      clgpu_may_alias(destination, source)) {
    return clgpu__copy_elementwise(context, destination, source, num_events, wait_list, event, who);
  }
  size_t element_size = clgpu_type_size(destination->type);
  cl_mem destination_root = NULL, source_root = NULL;
  cl_ulong destination_offset = 0, source_offset = 0;
  clgpu_status status = clgpu__array_root(destination, &destination_root, &destination_offset);
  if (status == CLGPU_SUCCESS) status = clgpu__array_root(source, &source_root, &source_offset);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%s)", who);
    return status;
  }
  cl_event made = NULL;
  cl_int err =
      clgpu__fault_hit(CLGPU__FAULT_ENQUEUE)
          ? CLGPU__INJECTED_STATUS
          : clEnqueueCopyBuffer(context->queue, source_root, destination_root,
                                (size_t)source_offset * element_size,
                                (size_t)destination_offset * element_size, count * element_size,
                                num_events, wait_list, event ? &made : NULL);
  if (err != CL_SUCCESS) {
    char what[96];
    snprintf(what, sizeof what, "clEnqueueCopyBuffer (in %s)", who);
    return clgpu__fail_cl(err, what);
  }
  if (event) *event = made;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_copy(clgpu_context *context, const clgpu_array *destination,
                        const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event) {
  CLGPU__FORWARD_IF_ERROR(check_arguments(context, destination, source, num_events, wait_list));
  return copy_views(context, destination, source, num_events, wait_list, event, "clgpu_copy");
}

clgpu_status clgpu__chain_copy(clgpu_context *context, clgpu__chain *chain,
                               const clgpu_array *destination, const clgpu_array *source,
                               const char *who) {
  cl_event made = NULL;
  CLGPU__FORWARD_IF_ERROR(copy_views(context, destination, source, clgpu__chain_wait_count(chain),
                                     clgpu__chain_wait_list(chain), &made, who));
  /* A copy of nothing leaves no event (copy_views makes a marker only when
   * asked for one, which the chain always does). */
  clgpu__chain_push(chain, made);
  return CLGPU_SUCCESS;
}
