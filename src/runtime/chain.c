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
  chain->joined = 0;
  chain->extra = NULL;
  chain->join.list = NULL;
  chain->join.count = 0;
}

clgpu_status clgpu__chain_after(clgpu__chain *chain, cl_event event) {
  if (!event || chain->started || chain->joined) return CLGPU_SUCCESS;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__wait_join_make(&chain->join, chain->num_events, chain->wait_list, event));
  clRetainEvent(event);
  chain->extra = event;
  chain->joined = 1;
  return CLGPU_SUCCESS;
}

/* The joined list and its own event, let go once the chain no longer needs
 * them. */
static void chain_unjoin(clgpu__chain *chain) {
  if (!chain->joined) return;
  clReleaseEvent(chain->extra);
  chain->extra = NULL;
  clgpu__wait_join_free(&chain->join);
  chain->joined = 0;
}

cl_uint clgpu__chain_wait_count(const clgpu__chain *chain) {
  return chain->started ? 1 : chain->joined ? chain->join.count : chain->num_events;
}

const cl_event *clgpu__chain_wait_list(const clgpu__chain *chain) {
  return chain->started  ? &chain->last
         : chain->joined ? clgpu__wait_join_list(&chain->join)
                         : chain->wait_list;
}

void clgpu__chain_push(clgpu__chain *chain, cl_event event) {
  if (chain->last) clReleaseEvent(chain->last);
  chain->last = event;
  chain->started = 1;
  chain_unjoin(chain); /* the first command waits for it now */
}

clgpu_status clgpu__chain_kernel(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                 size_t global, size_t local, const char *what) {
  cl_event made = NULL;
  cl_int err = clgpu__cl_enqueue_kernel(clgpu__queue_of(context), kernel, global, local,
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
    cl_int err = clgpu__cl_enqueue_marker(clgpu__queue_of(context), clgpu__chain_wait_count(chain),
                                          clgpu__chain_wait_list(chain), &made);
    chain_unjoin(chain);
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
  chain_unjoin(chain);
}

/* ---- the queue of a call ---- */

static _Thread_local const clgpu_context *call_context;
static _Thread_local cl_command_queue call_queue;

clgpu_status clgpu__queue_check(const clgpu_context *context, cl_command_queue queue,
                                const char *who, const char *field) {
  if (!queue || queue == context->queue) return CLGPU_SUCCESS;
  cl_context owner = NULL;
  cl_device_id device = NULL;
  cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS) {
    err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL);
  }
  if (err != CL_SUCCESS) {
    clgpu__fail_cl(err, "clGetCommandQueueInfo");
    clgpu__append_error(" (%s: %s is not a command queue)", who, field);
    return (clgpu_status)err;
  }
  CLGPU__RETURN_ERROR_IF(owner != context->cl_context, CLGPU_INVALID_ARGUMENT,
                         "%s: %s belongs to another OpenCL context than the clgpu "
                         "context's; make the queue in clgpu_context_cl_context(context)",
                         who, field);
  CLGPU__RETURN_ERROR_IF(device != context->device, CLGPU_INVALID_ARGUMENT,
                         "%s: %s is a queue of another device than the clgpu "
                         "context's; make it for clgpu_context_device(context)",
                         who, field);
  return CLGPU_SUCCESS;
}

void clgpu__queue_use(const clgpu_context *context, cl_command_queue queue,
                      clgpu__queue_scope *previous) {
  previous->context = call_context;
  previous->queue = call_queue;
  if (!queue || queue == context->queue) {
    /* The context's own queue: a call of another context's in progress
     * (none today) keeps its queue. */
    if (call_context == context) call_queue = context->queue;
    return;
  }
  call_context = context;
  call_queue = queue;
}

clgpu_status clgpu__queue_enter(const clgpu_context *context, cl_command_queue queue,
                                const char *who, clgpu__queue_scope *previous) {
  /* Filled before the check too: a caller leaves with it whatever the
   * check says. */
  previous->context = call_context;
  previous->queue = call_queue;
  CLGPU__FORWARD_IF_ERROR(clgpu__queue_check(context, queue, who, "options->queue"));
  clgpu__queue_use(context, queue, previous);
  return CLGPU_SUCCESS;
}

void clgpu__queue_leave(const clgpu__queue_scope *previous) {
  call_context = previous->context;
  call_queue = previous->queue;
}

cl_command_queue clgpu__queue_of(const clgpu_context *context) {
  return call_context == context && call_queue ? call_queue : context->queue;
}

int clgpu__queue_in_order(cl_command_queue queue) {
  cl_command_queue_properties properties = 0;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL) !=
      CL_SUCCESS) {
    return 0;
  }
  return (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

clgpu_status clgpu__check_reserved(const uint64_t *reserved, size_t count, const char *who,
                                   const char *options) {
  for (size_t k = 0; k < count; k++) {
    CLGPU__RETURN_ERROR_IF(reserved[k] != 0, CLGPU_INVALID_ARGUMENT,
                           "%s: %s->reserved[%zu] is not zero: zero the whole options struct "
                           "(= {0} or memset) before setting its fields; a field this version "
                           "of clgpu does not know is set",
                           who, options, k);
  }
  return CLGPU_SUCCESS;
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
