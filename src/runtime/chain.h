/* Event chains (chain.c): commands enqueued one after another, the kernel
 * arguments they are given, and the work-group size they may use. */
#ifndef CLGPU_SRC_CHAIN_H
#define CLGPU_SRC_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>

/* A sequence of commands each waiting for the one before: the first waits
 * for the caller's wait list, the caller's event is the last one's. Right on
 * out-of-order queues too. */
typedef struct clgpu__wait_join {
  cl_event small[8];
  cl_event *list;
  cl_uint count;
} clgpu__wait_join;

typedef struct clgpu__chain {
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event last; /* NULL before the first command */
  int started;
  /* The caller's wait list joined with one more event (clgpu__chain_after),
   * the list the first command waits for when `joined`. */
  clgpu__wait_join join;
  cl_event extra;
  int joined;
} clgpu__chain;

void clgpu__chain_begin(clgpu__chain *chain, cl_uint num_events, const cl_event *wait_list);
/* Make the chain's first command wait for `event` too (retained while the
 * chain holds it), besides the caller's wait list: before the first
 * command, at most once. CLGPU_CL_OUT_OF_HOST_MEMORY when the joined list
 * cannot be allocated. */
clgpu_status clgpu__chain_after(clgpu__chain *chain, cl_event event);
/* What the next command waits for. */
cl_uint clgpu__chain_wait_count(const clgpu__chain *chain);
const cl_event *clgpu__chain_wait_list(const clgpu__chain *chain);
/* Record the event of the command just enqueued (takes ownership). */
void clgpu__chain_push(clgpu__chain *chain, cl_event event);
/* Enqueue a kernel as the chain's next command (a fault point). */
clgpu_status clgpu__chain_kernel(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                 size_t global, size_t local, const char *what);
/* Hand the last event to the caller (a marker when nothing was enqueued
 * and an event is wanted), or release it. */
clgpu_status clgpu__chain_end(clgpu_context *context, clgpu__chain *chain, cl_event *event);
/* Drop the chain after a failure. */
void clgpu__chain_abandon(clgpu__chain *chain);

/* A wait list joined with one more event (`extra`, when not NULL): what a
 * command waits for when it must follow both the caller's list and the last
 * command on the same object (membuf.c's buffers). Up to 8 events need no
 * allocation. */
/* CLGPU_CL_OUT_OF_HOST_MEMORY when the joined list cannot be allocated. */
clgpu_status clgpu__wait_join_make(clgpu__wait_join *join, cl_uint num_events,
                                   const cl_event *wait_list, cl_event extra);
/* The joined list, NULL when it is empty (as OpenCL wants). */
const cl_event *clgpu__wait_join_list(const clgpu__wait_join *join);
void clgpu__wait_join_free(clgpu__wait_join *join);

/* ---- the queue of a call ----
 *
 * An operation runs on its context's queue, or on the queue its options
 * name (docs/queues.md). The queue a call runs on is set for the thread
 * while the call enqueues (clgpu__queue_enter, clgpu__queue_leave around
 * it), so that everything the call enqueues, through whatever internal
 * path (staging copies, the elementwise engine, read-backs), asks
 * clgpu__queue_of for it. Outside such a call, and for another context,
 * clgpu__queue_of is the context's queue. */
typedef struct clgpu__queue_scope {
  const clgpu_context *context;
  cl_command_queue queue;
} clgpu__queue_scope;

/* Check `queue` (NULL: the context's) against the context: CLGPU_INVALID_
 * ARGUMENT, naming `who`, when it belongs to another OpenCL context or
 * device; the status of clGetCommandQueueInfo when it is not a queue. On
 * success the thread's call runs on it until clgpu__queue_leave(previous). */
clgpu_status clgpu__queue_enter(const clgpu_context *context, cl_command_queue queue,
                                const char *who, clgpu__queue_scope *previous);
/* The two halves of clgpu__queue_enter, for objects that check their queue
 * once when made (`field` names it in the message) and use it at each run
 * (clgpu__queue_use cannot fail; clgpu__queue_leave(previous) after). */
clgpu_status clgpu__queue_check(const clgpu_context *context, cl_command_queue queue,
                                const char *who, const char *field);
void clgpu__queue_use(const clgpu_context *context, cl_command_queue queue,
                      clgpu__queue_scope *previous);
void clgpu__queue_leave(const clgpu__queue_scope *previous);
cl_command_queue clgpu__queue_of(const clgpu_context *context);
/* Whether commands on `queue` run in the order enqueued (a queue whose
 * properties cannot be read counts as out of order). */
int clgpu__queue_in_order(cl_command_queue queue);

/* The options' reserved fields (room for later ones) are zero: else
 * CLGPU_INVALID_ARGUMENT naming `who` and the field. */
clgpu_status clgpu__check_reserved(const uint64_t *reserved, size_t count, const char *who,
                                   const char *options);

/* Kernel arguments from index `first` on, naming `what` in the message of
 * a failure. */
typedef struct clgpu__kernel_arg {
  size_t size;
  const void *value;
} clgpu__kernel_arg;
#define CLGPU__ARG(x) \
  { sizeof(x), &(x) }
clgpu_status clgpu__set_args(cl_kernel kernel, cl_uint first, const clgpu__kernel_arg *args,
                             cl_uint count, const char *what);

/* "uchar", "ushort", "uint" or "ulong": the OpenCL C unsigned integer of
 * 1, 2, 4 or 8 bytes (ulong for any other size). */
const char *clgpu__unsigned_type(size_t size);

/* The same as a clgpu_type: CLGPU_TYPE_UINT8, _UINT16, _UINT32 or _UINT64. */
clgpu_type clgpu__unsigned_type_of(size_t size);

/* The work-group size the wide (TILED) kernels may use on the context's
 * device: `cap`, lowered to the quirks table's cap, the device's maximum
 * work-group size and its first work-item dimension. */
size_t clgpu__work_group_limit(const clgpu_context *context, size_t cap);

#endif
