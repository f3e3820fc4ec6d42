/* Event chains: enqueueing a sequence of commands of one operation so that
 * each waits for the one before, whatever the queue's ordering, with the
 * caller's wait list at the front and the caller's event at the end. */
#include <stdlib.h>

#include <clgpu/context.h>

#include "chain.h"
#include "context_internal.h"
#include "opencl.h"
#include "quirks.h"
#include "status_internal.h"

void clgpu__chain_begin(clgpu__chain *chain, cl_uint num_events, const cl_event *wait_list) {
  chain->num_events = num_events;
  chain->wait_list = wait_list;
  chain->last = NULL;
  chain->started = 0;
}

cl_uint clgpu__chain_wait_count(const clgpu__chain *chain) {
  return chain->started ? 1 : chain->num_events;
}

const cl_event *clgpu__chain_wait_list(const clgpu__chain *chain) {
  return chain->started ? &chain->last : chain->wait_list;
}

void clgpu__chain_push(clgpu__chain *chain, cl_event event) {
  if (chain->last) clReleaseEvent(chain->last);
  chain->last = event;
  chain->started = 1;
}

clgpu_status clgpu__chain_kernel(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                 size_t global, size_t local, const char *what) {
  cl_event made = NULL;
  cl_int err = clgpu__cl_enqueue_kernel(context->queue, kernel, global, local,
                                        clgpu__chain_wait_count(chain),
                                        clgpu__chain_wait_list(chain), &made);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, what);
  clgpu__chain_push(chain, made);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__chain_end(clgpu_context *context, clgpu__chain *chain, cl_event *event) {
  if (!event) {
    clgpu__chain_abandon(chain);
    return CLGPU_SUCCESS;
  }
  if (!chain->started) {
    cl_event made = NULL;
    cl_int err =
        clgpu__cl_enqueue_marker(context->queue, chain->num_events, chain->wait_list, &made);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clEnqueueMarkerWithWaitList");
    *event = made;
    return CLGPU_SUCCESS;
  }
  *event = chain->last;
  chain->last = NULL;
  return CLGPU_SUCCESS;
}

void clgpu__chain_abandon(clgpu__chain *chain) {
  if (chain->last) clReleaseEvent(chain->last);
  chain->last = NULL;
}

clgpu_status clgpu__set_args(cl_kernel kernel, cl_uint first, const clgpu__kernel_arg *args,
                             cl_uint count, const char *what) {
  for (cl_uint i = 0; i < count; i++) {
    cl_int err = clSetKernelArg(kernel, first + i, args[i].size, args[i].value);
    if (err != CL_SUCCESS) {
      clgpu__fail_cl(err, "clSetKernelArg");
      clgpu__append_error(" (%s, argument %u)", what, first + i);
      return (clgpu_status)err;
    }
  }
  return CLGPU_SUCCESS;
}

const char *clgpu__unsigned_type(size_t size) {
  switch (size) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    default:
      return "ulong";
  }
}

clgpu_type clgpu__unsigned_type_of(size_t size) {
  switch (size) {
    case 1:
      return CLGPU_TYPE_UINT8;
    case 2:
      return CLGPU_TYPE_UINT16;
    case 4:
      return CLGPU_TYPE_UINT32;
    default:
      return CLGPU_TYPE_UINT64;
  }
}

size_t clgpu__work_group_limit(const clgpu_context *context, size_t cap) {
  size_t limit = cap;
  if (context->quirks.work_group_cap && limit > context->quirks.work_group_cap) {
    limit = context->quirks.work_group_cap;
  }
  if (context->info.max_work_group_size && limit > context->info.max_work_group_size) {
    limit = context->info.max_work_group_size;
  }
  if (context->info.max_work_item_sizes[0] && limit > context->info.max_work_item_sizes[0]) {
    limit = context->info.max_work_item_sizes[0];
  }
  return limit;
}

clgpu_status clgpu__wait_join_make(clgpu__wait_join *join, cl_uint num_events,
                                   const cl_event *wait_list, cl_event extra) {
  size_t total = (size_t)num_events + (extra ? 1 : 0);
  join->list = total <= 8 ? join->small : malloc(total * sizeof *join->list);
  join->count = 0;
  CLGPU__RETURN_ERROR_IF(!join->list, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  for (cl_uint e = 0; e < num_events; e++) join->list[e] = wait_list[e];
  if (extra) join->list[num_events] = extra;
  join->count = (cl_uint)total;
  return CLGPU_SUCCESS;
}

const cl_event *clgpu__wait_join_list(const clgpu__wait_join *join) {
  return join->count ? join->list : NULL;
}

void clgpu__wait_join_free(clgpu__wait_join *join) {
  if (join->list != join->small) free(join->list);
  join->list = NULL;
}
