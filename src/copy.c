/* Copying between array views on the device: the argument checks, the plan
 * (dimensions merged, contiguous or strided), the temporary that makes
 * overlapping copies behave as if through a fresh buffer, and enqueueing
 * with events chained so that out-of-order queues are right too.
 *
 * A contiguous copy is clEnqueueCopyBuffer; anything else runs
 * clgpu_copy_strided of cl/copy.cl, built once per element size (elements
 * move as unsigned integers of their size, never as their own type).
 *
 * CLGPU_COPY_CHUNK, when set to a positive number, makes every work-item of
 * the strided kernel copy that many elements, and CLGPU_COPY_GROUP sets its
 * work-group size. They exist so that tests can make chunks start in the
 * middle of rows, and run the wide-group shape with its rounded-up global
 * size, on any device, and for tuning; by default both come from the
 * device (see clgpu__strided_launch_shape). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One side of a copy in the kernel's terms. */
typedef struct copy_side {
  cl_mem buffer;
  cl_long offset;                  /* elements from the buffer's start to element (0, ..., 0) */
  cl_long strides[CLGPU_MAX_RANK]; /* in elements */
} copy_side;

/* A copy of `rank` dimensions from `source` to `destination`: the same
 * shape for both, row-major order. */
typedef struct copy_plan {
  unsigned rank;
  cl_ulong shape[CLGPU_MAX_RANK];
  size_t element_size;
  copy_side destination;
  copy_side source;
} copy_plan;

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
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(num_events, wait_list, "clgpu_copy"));
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

/* ---- the plan ---- */

/* A view as the kernel sees it: its root buffer and the element offset from
 * the root's start. Going through the root means that views over
 * sub-buffers of one buffer reach the kernel as one buffer, since OpenCL
 * leaves it undefined to read and write a buffer and its sub-buffers in the
 * same command. A sub-buffer's origin is a multiple of
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 16 longs, so the root offset
 * stays a whole number of elements. */
static clgpu_status side_of(const clgpu_array *array, size_t element_size, copy_side *out) {
  clgpu_location location;
  CLGPU__FORWARD_IF_ERROR(clgpu_array_location(array, &location));
  CLGPU__RETURN_ERROR_IF(location.offset % element_size != 0, CLGPU_MISALIGNED_VIEW,
                         "clgpu_copy: a view at byte %zu of its root buffer is not aligned to "
                         "its element size %zu (a sub-buffer at an unaligned origin)",
                         location.offset, element_size);
  copy_side side = {location.base, (cl_long)(location.offset / element_size), {0}};
  for (unsigned d = 0; d < array->rank; d++) side.strides[d] = (cl_long)array->strides[d];
  *out = side;
  return CLGPU_SUCCESS;
}

/* A contiguous row-major side over `buffer` from its start, for the
 * temporary. */
static copy_side packed_side(cl_mem buffer, unsigned rank, const size_t *shape) {
  copy_side side = {buffer, 0, {0}};
  cl_long stride = 1;
  for (unsigned d = rank; d-- > 0;) {
    side.strides[d] = stride;
    stride *= (cl_long)shape[d];
  }
  return side;
}

static copy_plan plan_of(const copy_side *destination, const copy_side *source, unsigned rank,
                         const size_t *shape, size_t element_size) {
  copy_plan plan = {rank, {0}, element_size, *destination, *source};
  for (unsigned d = 0; d < rank; d++) plan.shape[d] = shape[d];
  return plan;
}

/* Reduce a plan to its fewest dimensions without changing which source
 * element goes to which destination element. The order in which elements
 * are copied may change; that is safe because the destination's elements
 * are distinct and the source never shares bytes with it here. Dimensions of
 * extent 1 go; a dimension whose destination stride is negative and whose
 * source stride is not positive is walked the other way; and a dimension
 * merges into the next slower one when, on both sides, the slower one's
 * stride is the faster one's whole span. A plan left with rank 0, or rank 1
 * and strides 1, is one contiguous range on each side. */
static void simplify(copy_plan *plan) {
  copy_plan result = *plan;
  unsigned kept = 0;
  for (unsigned d = 0; d < plan->rank; d++) {
    cl_ulong extent = plan->shape[d];
    if (extent == 1) continue;
    cl_long destination_stride = plan->destination.strides[d];
    cl_long source_stride = plan->source.strides[d];
    if (destination_stride < 0 && source_stride <= 0) {
      result.destination.offset += (cl_long)(extent - 1) * destination_stride;
      result.source.offset += (cl_long)(extent - 1) * source_stride;
      destination_stride = -destination_stride;
      source_stride = -source_stride;
    }
    if (kept > 0) {
      unsigned slower = kept - 1;
      if (result.destination.strides[slower] == destination_stride * (cl_long)extent &&
          result.source.strides[slower] == source_stride * (cl_long)extent) {
        result.shape[slower] *= extent;
        result.destination.strides[slower] = destination_stride;
        result.source.strides[slower] = source_stride;
        continue;
      }
    }
    result.shape[kept] = extent;
    result.destination.strides[kept] = destination_stride;
    result.source.strides[kept] = source_stride;
    kept++;
  }
  result.rank = kept;
  *plan = result;
}

static int plan_is_contiguous(const copy_plan *plan) {
  return plan->rank == 0 ||
         (plan->rank == 1 && plan->destination.strides[0] == 1 && plan->source.strides[0] == 1);
}

static cl_ulong plan_count(const copy_plan *plan) {
  cl_ulong count = 1;
  for (unsigned d = 0; d < plan->rank; d++) count *= plan->shape[d];
  return count;
}

/* ---- enqueueing ---- */

/* How the strided kernel runs on this device. A CPU device (POCL) runs a
 * work-group as a loop on one thread, so it gets groups of one work-item,
 * each a long chunk, about four per compute unit (PORTABILITY.md, speed on
 * CPU devices); a chunk is at least 4096 elements so that small copies are
 * not spread thinly. Other devices get wide groups (at most 256: enough to
 * hide memory latency on every vendor, and what AMD allows) and short
 * chunks: one element per work-item until the device has about eight
 * groups' worth per compute unit, then up to 8, which amortises the
 * divisions of the first index while neighbouring work-items stay close in
 * memory. CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP override the chunk and the
 * group size (the group size within what the kernel allows), so that tests
 * run every shape on any device; they are read when the context is made, not
 * on every call. */
clgpu_status clgpu__strided_launch_shape(const clgpu_context *context, cl_kernel kernel,
                                         cl_ulong count, cl_ulong *chunk, size_t *local,
                                         size_t *global) {
  const clgpu_device_info *info = &context->info;
  cl_ulong units = info->compute_units > 0 ? info->compute_units : 1;
  cl_ulong forced_chunk = context->copy_chunk;
  cl_ulong forced_group = context->copy_group;
  int cpu = (info->type & CL_DEVICE_TYPE_CPU) != 0;
  size_t group = 1;
  if (!cpu || forced_group) {
    size_t kernel_group_size = 0;
    cl_int err = clGetKernelWorkGroupInfo(kernel, context->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof kernel_group_size, &kernel_group_size, NULL);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetKernelWorkGroupInfo(copy)");
    group = forced_group ? (size_t)forced_group : context->quirks.work_group_cap;
    if (!forced_group && group > 256) group = 256;
    if (kernel_group_size > 0 && group > kernel_group_size) group = kernel_group_size;
    if (group == 0) group = 1;
  }
  *local = group;
  if (cpu) {
    cl_ulong pieces = 4 * units;
    *chunk = (count + pieces - 1) / pieces;
    if (*chunk < 4096) *chunk = 4096;
  } else {
    cl_ulong items = units * group * 8;
    *chunk = (count + items - 1) / items;
    if (*chunk > 8) *chunk = 8;
    if (*chunk < 1) *chunk = 1;
  }
  if (forced_chunk) *chunk = forced_chunk;
  cl_ulong items = (count + *chunk - 1) / *chunk;
  *global = (size_t)((items + *local - 1) / *local * *local);
  return CLGPU_SUCCESS;
}

/* The strided kernel's program and a leased kernel, made before anything is
 * enqueued so that a build failure leaves the queue untouched. */
typedef struct copy_kernel {
  clgpu_program *program;
  cl_kernel kernel;
} copy_kernel;

static clgpu_status acquire_kernel(clgpu_context *context, size_t element_size, copy_kernel *out) {
  const clgpu_define defines[] = {{"CLGPU_T", clgpu__unsigned_type(element_size)}};
  CLGPU__FORWARD_IF_ERROR(
      clgpu_program_get_named(context, "copy", defines, 1, NULL, &out->program));
  return clgpu_kernel_acquire(out->program, "clgpu_copy_strided", &out->kernel);
}

static clgpu_status enqueue_strided(clgpu_context *context, cl_kernel kernel, const copy_plan *plan,
                                    cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event) {
  /* The kernel's shape is padded at the front with extent 1: those
   * dimensions are only carried into after the last element. */
  cl_ulong8 shape;
  cl_long8 destination_strides, source_strides;
  unsigned padding = CLGPU_MAX_RANK - plan->rank;
  for (unsigned d = 0; d < CLGPU_MAX_RANK; d++) {
    int used = d >= padding;
    shape.s[d] = used ? plan->shape[d - padding] : 1;
    destination_strides.s[d] = used ? plan->destination.strides[d - padding] : 0;
    source_strides.s[d] = used ? plan->source.strides[d - padding] : 0;
  }
  cl_ulong count = plan_count(plan);
  cl_ulong chunk = 1;
  size_t local = 1, global = 1;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__strided_launch_shape(context, kernel, count, &chunk, &local, &global));

  cl_int err =
      clSetKernelArg(kernel, 0, sizeof plan->destination.buffer, &plan->destination.buffer);
  if (err == CL_SUCCESS) {
    err = clSetKernelArg(kernel, 1, sizeof plan->destination.offset, &plan->destination.offset);
  }
  if (err == CL_SUCCESS) {
    err = clSetKernelArg(kernel, 2, sizeof destination_strides, &destination_strides);
  }
  if (err == CL_SUCCESS) {
    err = clSetKernelArg(kernel, 3, sizeof plan->source.buffer, &plan->source.buffer);
  }
  if (err == CL_SUCCESS) {
    err = clSetKernelArg(kernel, 4, sizeof plan->source.offset, &plan->source.offset);
  }
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 5, sizeof source_strides, &source_strides);
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 6, sizeof shape, &shape);
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 7, sizeof count, &count);
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 8, sizeof chunk, &chunk);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clSetKernelArg(clgpu_copy_strided)");
  err = clgpu__fault_hit(CLGPU__FAULT_ENQUEUE)
            ? CLGPU__INJECTED_STATUS
            : clEnqueueNDRangeKernel(context->queue, kernel, 1, NULL, &global, &local, num_events,
                                     wait_list, event);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clEnqueueNDRangeKernel(clgpu_copy_strided)");
  return CLGPU_SUCCESS;
}

/* Enqueue one simplified plan: a buffer copy when it is contiguous, the
 * strided kernel otherwise. */
static clgpu_status enqueue_plan(clgpu_context *context, cl_kernel kernel, const copy_plan *plan,
                                 cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (!plan_is_contiguous(plan)) {
    return enqueue_strided(context, kernel, plan, num_events, wait_list, event);
  }
  size_t bytes = (size_t)plan_count(plan) * plan->element_size;
  size_t source_offset = (size_t)plan->source.offset * plan->element_size;
  size_t destination_offset = (size_t)plan->destination.offset * plan->element_size;
  cl_int err = clgpu__fault_hit(CLGPU__FAULT_ENQUEUE)
                   ? CLGPU__INJECTED_STATUS
                   : clEnqueueCopyBuffer(context->queue, plan->source.buffer,
                                         plan->destination.buffer, source_offset,
                                         destination_offset, bytes, num_events, wait_list, event);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clEnqueueCopyBuffer");
  return CLGPU_SUCCESS;
}

/* A copy with nothing to move still honours the event contract: the event,
 * when asked for, completes once the wait list has. Without an event nobody
 * can observe the marker, so none is enqueued. */
static clgpu_status enqueue_nothing(clgpu_context *context, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event) {
  if (!event) return CLGPU_SUCCESS;
  cl_event made = NULL;
  cl_int err = clgpu__fault_hit(CLGPU__FAULT_ENQUEUE)
                   ? CLGPU__INJECTED_STATUS
                   : clEnqueueMarkerWithWaitList(context->queue, num_events, wait_list, &made);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clEnqueueMarkerWithWaitList");
  *event = made;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_copy(clgpu_context *context, const clgpu_array *destination,
                        const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event) {
  CLGPU__FORWARD_IF_ERROR(check_arguments(context, destination, source, num_events, wait_list));
  size_t count = clgpu_array_count(destination);
  if (count == 0 || clgpu_array_same(destination, source)) {
    return enqueue_nothing(context, num_events, wait_list, event);
  }

  size_t element_size = clgpu_type_size(destination->type);
  copy_side destination_side, source_side;
  CLGPU__FORWARD_IF_ERROR(side_of(destination, element_size, &destination_side));
  CLGPU__FORWARD_IF_ERROR(side_of(source, element_size, &source_side));
  /* When the views may share bytes, the source goes to a temporary first,
   * then the temporary to the destination, so the result is what a copy
   * through a fresh buffer gives, whatever the overlap. */
  int staged = clgpu_may_alias(destination, source);
  copy_plan steps[2];
  unsigned step_count = 1;
  cl_mem temporary = NULL;
  if (staged) {
    copy_side packed = packed_side(NULL, destination->rank, destination->shape);
    steps[0] = plan_of(&packed, &source_side, destination->rank, destination->shape, element_size);
    steps[1] =
        plan_of(&destination_side, &packed, destination->rank, destination->shape, element_size);
    step_count = 2;
  } else {
    steps[0] = plan_of(&destination_side, &source_side, destination->rank, destination->shape,
                       element_size);
  }
  int needs_kernel = 0;
  for (unsigned i = 0; i < step_count; i++) {
    simplify(&steps[i]);
    needs_kernel |= !plan_is_contiguous(&steps[i]);
  }

  /* Everything that can fail without touching the queue comes first. */
  copy_kernel strided = {NULL, NULL};
  if (needs_kernel) CLGPU__FORWARD_IF_ERROR(acquire_kernel(context, element_size, &strided));
  if (staged) {
    clgpu_status status =
        clgpu_buffer_create(context, CL_MEM_READ_WRITE, count * element_size, &temporary);
    if (status != CLGPU_SUCCESS) {
      clgpu__append_error(" (clgpu_copy: the temporary of %zu bytes for overlapping views)",
                          count * element_size);
      clgpu_kernel_release(strided.program, strided.kernel);
      return status;
    }
    steps[0].destination.buffer = temporary;
    steps[1].source.buffer = temporary;
  }

  /* The first step waits for the caller's events, each later one for the
   * step before it; the caller's event is the last step's. */
  clgpu_status status = CLGPU_SUCCESS;
  cl_event previous = NULL;
  cl_event made = NULL;
  for (unsigned i = 0; i < step_count && status == CLGPU_SUCCESS; i++) {
    int last = i + 1 == step_count;
    cl_event *out = last ? (event ? &made : NULL) : &made;
    made = NULL;
    if (i == 0) {
      status = enqueue_plan(context, strided.kernel, &steps[i], num_events, wait_list, out);
    } else {
      status = enqueue_plan(context, strided.kernel, &steps[i], 1, &previous, out);
      clReleaseEvent(previous);
      previous = NULL;
    }
    if (status == CLGPU_SUCCESS && !last) previous = made;
  }
  if (previous) clReleaseEvent(previous);
  clgpu_kernel_release(strided.program, strided.kernel);
  /* OpenCL keeps the temporary's memory until the commands that use it have
   * finished, and the allocation cache reuses it only when that is safe. */
  if (temporary) clgpu_buffer_release(context, temporary);
  if (status == CLGPU_SUCCESS && event) *event = made;
  return status;
}
