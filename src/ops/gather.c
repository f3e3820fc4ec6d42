/* gather (sort.h): destination[i] = source[permutation[i]], the kernel of
 * cl/sort.cl's program that moves values by a sort's permutation. */
#include <stddef.h>
#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/sort.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "lease.h"
#include "overflow.h"
#include "program_cache.h"
#include "status_internal.h"

#define ARG(x) CLGPU__ARG(x)

clgpu_status clgpu_gather(clgpu_context *context, const clgpu_array *destination,
                          const clgpu_array *source, const clgpu_array *permutation,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_gather";
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(permutation, who, "permutation"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(source, who, "source"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(destination, who, "destination"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(permutation->type, 0, who, "permutation"));
  size_t size = clgpu__type_size(source->type);
  CLGPU__RETURN_ERROR_IF(size != clgpu__type_size(destination->type), CLGPU_TYPE_MISMATCH,
                         "%s: source elements of %zu bytes, destination elements of %zu", who, size,
                         clgpu__type_size(destination->type));
  CLGPU__RETURN_ERROR_IF(destination->shape[0] != permutation->shape[0], CLGPU_SHAPE_MISMATCH,
                         "%s: the destination has %zu elements, the permutation %zu", who,
                         destination->shape[0], permutation->shape[0]);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(destination, who, "destination"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(destination, source, who, "destination", "source"));
  CLGPU__FORWARD_IF_ERROR(
      clgpu__check_apart(destination, permutation, who, "destination", "permutation"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, permutation->buffer, who, "permutation", 0));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, source->buffer, who, "source", 0));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, destination->buffer, who, "destination", 1));

  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  cl_ulong n = destination->shape[0];
  if (n == 0) return clgpu__chain_end(context, &chain, event);
  clgpu_define defines[] = {{"CLGPU_GATHER", NULL},
                            {"CLGPU_ELEMENT_T", clgpu__unsigned_type(size)},
                            {"CLGPU_SORT_GROUP", "1"}};
  clgpu_program *program = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__program_get_named(context, "sort", defines, 3, NULL, &program));
  cl_kernel kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__kernel_acquire(program, "clgpu_gather", &kernel));
  /* The kernel takes byte offsets, as every kernel of the sort program. */
  clgpu__place p = {0}, s = {0}, d = {0};
  clgpu_status status = clgpu__place_of(permutation, &p);
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(source, &s);
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(destination, &d);
  cl_ulong p_byte = p.offset * clgpu__type_size(permutation->type), s_byte = s.offset * size,
           d_byte = d.offset * size;
  cl_long p_stride = permutation->strides[0], s_stride = source->strides[0],
          d_stride = destination->strides[0];
  cl_int wide = permutation->type == CLGPU_TYPE_UINT64;
  cl_ulong source_n = source->shape[0];
  clgpu__kernel_arg args[] = {ARG(p.buffer), ARG(p_byte), ARG(p_stride), ARG(wide),
                              ARG(s.buffer), ARG(s_byte), ARG(s_stride), ARG(source_n),
                              ARG(d.buffer), ARG(d_byte), ARG(d_stride), ARG(n)};
  if (status == CLGPU_SUCCESS) status = clgpu__set_args(kernel, 0, args, 12, "clgpu_gather");
  /* Groups of 64 work-items, or the largest power of two the device takes. */
  size_t limit = clgpu__work_group_limit(context, 64), group = 1;
  while (group * 2 <= limit) group *= 2;
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu__chain_kernel(context, &chain, kernel, (size_t)clgpu__ceil_div_u64(n, group) * group,
                            group, "clEnqueueNDRangeKernel(clgpu_gather)");
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, &chain, event);
  } else {
    clgpu__chain_abandon(&chain);
  }
  clgpu__kernel_clear_buffers(kernel,
                              CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(8));
  clgpu__kernel_release(program, kernel);
  return status;
}
