/* Copying between array views on the device: the argument checks shared
 * with the other operations that write views, and clgpu_copy.
 *
 * A copy between two row-major contiguous views that cannot share a byte is
 * one clEnqueueCopyBuffer, unless the tuning table's copy_kernel_floor
 * sends copies of its size to the copy kernel (POCL, whose
 * clEnqueueCopyBuffer runs on one thread). Every other copy runs the
 * context's built-in elementwise copy (elementwise_ops.c: "y = x" over the views seen as
 * unsigned integers of their element size), which brings what elementwise
 * kernels do for any layout: dimensions merged and reordered, a kernel
 * specialised per layout (blocked on CPU devices when the two sides are
 * fastest along different dimensions), and a temporary for a source that
 * overlaps the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/copy.h>

#include "array_internal.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "elementwise.h"
#include "opencl.h"
#include "status_internal.h"

/* ---- argument checks ---- */

static clgpu_status check_arguments(const clgpu_context *context, const clgpu_array *destination,
                                    const clgpu_array *source, cl_uint num_events,
                                    const cl_event *wait_list) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "clgpu_copy: context is NULL");
  CLGPU__RETURN_ERROR_IF(!destination, CLGPU_INVALID_ARGUMENT, "clgpu_copy: destination is NULL");
  CLGPU__RETURN_ERROR_IF(!source, CLGPU_INVALID_ARGUMENT, "clgpu_copy: source is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, "clgpu_copy"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(destination, "clgpu_copy", "destination"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(source, "clgpu_copy", "source"));
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
                         clgpu__type_cl_name(destination->type), clgpu__type_cl_name(source->type));
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
  size_t count = clgpu__array_count(destination);
  if (count == 0 || clgpu__array_same(destination, source)) {
    return enqueue_nothing(context, num_events, wait_list, event);
  }
  size_t element_size = clgpu__type_size(destination->type);
  uint64_t floor = context->tuning->copy_kernel_floor;
  if (!clgpu__array_is_contiguous(destination) || !clgpu__array_is_contiguous(source) ||
      clgpu__may_alias(destination, source) || (floor && count * element_size >= floor)) {
    return clgpu__copy_elementwise(context, destination, source, num_events, wait_list, event, who);
  }
  cl_mem destination_root = NULL, source_root = NULL;
  cl_ulong destination_offset = 0, source_offset = 0;
  clgpu_status status = clgpu__array_root(destination, &destination_root, &destination_offset);
  if (status == CLGPU_SUCCESS) status = clgpu__array_root(source, &source_root, &source_offset);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%s)", who);
    return status;
  }
  cl_event made = NULL;
  cl_int err = clgpu__cl_enqueue_copy(
      clgpu__queue_of(context), source_root, destination_root, (size_t)source_offset * element_size,
      (size_t)destination_offset * element_size, count * element_size, num_events, wait_list,
      event ? &made : NULL);
  if (err != CL_SUCCESS) {
    char what[96];
    snprintf(what, sizeof what, "clEnqueueCopyBuffer (in %s)", who);
    return clgpu__fail_cl(err, what);
  }
  if (event) *event = made;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__copy(clgpu_context *context, const clgpu_array *destination,
                         const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event) {
  CLGPU__FORWARD_IF_ERROR(check_arguments(context, destination, source, num_events, wait_list));
  return copy_views(context, destination, source, num_events, wait_list, event, "clgpu_copy");
}

clgpu_status clgpu_copy(clgpu_context *context, const clgpu_array *destination,
                        const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event) {
  return clgpu__copy(context, destination, source, num_events, wait_list, event);
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
