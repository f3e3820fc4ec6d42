/* What every operation's call does around its kernels (call.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "lease.h"
#include "opencl.h"
#include "shape.h"
#include "status_internal.h"
#include "workspace_internal.h"

clgpu__place clgpu__scratch_place(const clgpu__scratch *scratch, unsigned index) {
  cl_mem buffer = NULL;
  size_t byte_offset = 0;
  clgpu__scratch_slot(scratch, index, &buffer, &byte_offset);
  size_t size = clgpu__type_size(scratch->layout.buffers[index].type);
  return (clgpu__place){buffer, (cl_ulong)(byte_offset / size)};
}

/* A contiguous row-major view over a workspace buffer. */
clgpu_status clgpu__scratch_view(const clgpu__scratch *scratch, unsigned index, clgpu_type type,
                                 unsigned rank, const size_t *shape, clgpu_array *out) {
  cl_mem buffer = NULL;
  size_t byte_offset = 0;
  clgpu__scratch_slot(scratch, index, &buffer, &byte_offset);
  return clgpu__array_nd(buffer, byte_offset, type, rank, shape, CLGPU_ORDER_ROW_MAJOR, out);
}

clgpu_status clgpu__place_of(const clgpu_array *array, clgpu__place *out) {
  return clgpu__array_root(array, &out->buffer, &out->offset);
}

/* Where a kernel reads `view` from: the view itself when contiguous, else
 * the workspace buffer `index`, into which the view is copied first (the
 * chain's next command). */
clgpu_status clgpu__input_place(clgpu_context *context, clgpu__chain *chain,
                                const clgpu__scratch *scratch, unsigned index, int pack,
                                const clgpu_array *view, clgpu__place *out, const char *who) {
  if (!pack) return clgpu__place_of(view, out);
  clgpu_array packed;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__scratch_view(scratch, index, view->type, view->rank, view->shape, &packed));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_copy(context, chain, &packed, view, who));
  return clgpu__place_of(&packed, out);
}

/* Read `size` bytes at `from` into host memory, blocking, after the chain. */
clgpu_status clgpu__read_back(clgpu_context *context, const clgpu__chain *chain, clgpu__place from,
                              size_t size, void *host, const char *what) {
  cl_int err = clgpu__cl_enqueue_transfer(
      clgpu__queue_of(context), 0, from.buffer, CL_TRUE, (size_t)from.offset * size, size, host,
      clgpu__chain_wait_count(chain), clgpu__chain_wait_list(chain), NULL);
  return err == CL_SUCCESS ? CLGPU_SUCCESS : clgpu__fail_cl(err, what);
}

/* The end of every call: the caller's event (or the chain dropped after a
 * failure), the kernels back to their programs, the scratch given back. */
clgpu_status clgpu__finish_call(clgpu_context *context, clgpu_status status, clgpu__chain *chain,
                                cl_event *event, clgpu__leases *held, clgpu__scratch *scratch) {
  clgpu__scratch_record(context, scratch, chain);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, chain, event);
  } else {
    clgpu__chain_abandon(chain);
  }
  clgpu__leases_give_back(held);
  clgpu__scratch_release(context, scratch);
  return status;
}

/* The view with dimension `axis` moved last. */
clgpu_array clgpu__upto_view(clgpu_type type, uint64_t max_n) {
  clgpu_array view;
  memset(&view, 0, sizeof view);
  view.type = type;
  view.rank = 1;
  view.shape[0] = (size_t)max_n;
  view.strides[0] = 1;
  return view;
}

clgpu_status clgpu__axis_last(const clgpu_array *array, unsigned axis, clgpu_array *out) {
  unsigned axes[CLGPU_MAX_RANK];
  unsigned at = 0;
  for (unsigned d = 0; d < array->rank; d++) {
    if (d != axis) axes[at++] = d;
  }
  axes[at] = axis;
  return clgpu__array_permute(array, axes, out);
}

clgpu__call clgpu__call_make(const char *who, const clgpu_array *input, const clgpu_array *output,
                             const clgpu_call_options *options, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event) {
  clgpu__call call = {.who = who,
                      .input = input,
                      .axis = CLGPU_ALL_AXES,
                      .output = output,
                      .options = options,
                      .num_events = num_events,
                      .wait_list = wait_list,
                      .event = event};
  return call;
}

clgpu_status clgpu__query_or_run(clgpu_context *context, const clgpu__family *family,
                                 const clgpu__call *call, void *plan, clgpu_workspace_size *query) {
  const char *who = call->who;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(call->input, who, "input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, call->num_events, call->wait_list, who));
  CLGPU__FORWARD_IF_ERROR(family->plan(context, call, plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    memcpy(query, (const char *)plan + family->report_offset, sizeof *query);
  } else {
    clgpu__queue_scope previous;
    status =
        clgpu__queue_enter(context, call->options ? call->options->queue : NULL, who, &previous);
    if (status == CLGPU_SUCCESS) {
      status = family->run(context, plan, call);
      clgpu__queue_leave(&previous);
    }
  }
  if (family->release) family->release(plan);
  return status;
}

clgpu_status clgpu__query_upto(clgpu_context *context, const clgpu__family *family,
                               clgpu__call *call, clgpu_type type, uint64_t max_n, int in_place,
                               void *plan, clgpu_workspace_size *out) {
  const char *who = call->who;
  CLGPU__RETURN_ERROR_IF(!context || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  CLGPU__RETURN_ERROR_IF(clgpu__type_size(type) == 0, CLGPU_INVALID_ARGUMENT, "%s: unknown type %d",
                         who, (int)type);
  clgpu_array largest = clgpu__upto_view(type, max_n);
  call->input = &largest;
  call->output = in_place ? &largest : NULL;
  call->axis = CLGPU_ALL_AXES;
  clgpu_status status = family->plan(context, call, plan);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_max_n(max_n);
    return status;
  }
  memcpy(out, (const char *)plan + family->report_offset, sizeof *out);
  if (family->release) family->release(plan);
  return CLGPU_SUCCESS;
}
