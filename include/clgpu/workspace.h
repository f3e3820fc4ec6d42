/** @file
 * Workspaces: the scratch memory of an operation, sized by a query, made by
 * the library or carved out of the caller's own buffer, and checked on every
 * call.
 *
 * The contract, the same for every operation that needs scratch memory
 * (docs/workspaces.md has it in full):
 * 1. clgpu_<op>_workspace_size takes the call's arguments and reports the
 *    named buffers the call needs and their total size; it allocates and
 *    enqueues nothing. The "_upto" form covers every call of up to N
 *    elements. A report that cannot be represented in 64 bits is
 *    CLGPU_SIZE_OVERFLOW, never wrapped numbers.
 * 2. clgpu_workspace_create allocates a workspace for a report;
 *    clgpu_workspace_wrap lays one over the caller's cl_mem.
 * 3. Every call given a workspace checks it (device, operation, shape and algorithm,
 *    sizes, overlap with the call's arguments) and refuses a wrong one with
 *    a CLGPU_WORKSPACE_* status and nothing enqueued; a fitting one means
 *    the call makes no device allocation.
 * 4. A call without a workspace allocates what it needs and releases it once
 *    its commands are enqueued.
 * A workspace holds no data between calls, and orders the calls that share
 * it: the next call on the same in-order queue reuses it at once, and a
 * call on another queue (or on an out-of-order queue) waits for the last
 * call that used it (docs/queues.md), so calls on several queues may share
 * one without racing; they then run one after the other.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     clgpu_reduce_op op = {.kind = CLGPU_REDUCE_MAX};
 *     clgpu_context *context = NULL;
 *     clgpu_workspace *workspace = NULL;
 *     clgpu_workspace_size report;
 *     cl_mem buffer = NULL;
 *     clgpu_array input;
 *     cl_int largest = 0;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_reduce_workspace_size_upto(context, &op, CLGPU_TYPE_INT32, 1 << 20, NULL,
 *                                                 &report);
 *     if (status == CLGPU_SUCCESS) status = clgpu_workspace_create(context, &report, &workspace);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 1000 * sizeof(cl_int), &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 1000, &input);
 *     if (status == CLGPU_SUCCESS) {
 *       cl_int start = -500, step = 1;
 *       status = clgpu_iota(context, &input, &start, &step, 0, NULL, NULL);
 *     }
 *     if (status == CLGPU_SUCCESS) {
 *       clgpu_call_options options = {.shape = CLGPU_SHAPE_AUTO, .workspace = workspace};
 *       status = clgpu_reduce_read(context, &op, &largest, sizeof largest, &input, &options);
 *     }
 *     if (status == CLGPU_SUCCESS)
 *       printf("max %d, workspace of %llu bytes\n", largest,
 *              (unsigned long long)report.total_bytes);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_workspace_destroy(workspace);
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_WORKSPACE_H
#define CLGPU_WORKSPACE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Operations that take workspaces. */
typedef enum clgpu_operation {
  CLGPU_OPERATION_REDUCE = 1, /**< clgpu_reduce and clgpu_count_if */
  CLGPU_OPERATION_SCAN = 2,
  CLGPU_OPERATION_FINDALL = 3,
  CLGPU_OPERATION_SORT = 4,              /**< clgpu_sort and clgpu_sort_permutation (sort.h) */
  CLGPU_OPERATION_SEARCH = 5,            /**< clgpu_lower_bound and clgpu_upper_bound (search.h) */
  CLGPU_OPERATION_SCAN_BY_KEY = 6,       /**< clgpu_scan_by_key (runs.h) */
  CLGPU_OPERATION_REDUCE_BY_KEY = 7,     /**< clgpu_reduce_by_key (runs.h) */
  CLGPU_OPERATION_UNIQUE = 8,            /**< clgpu_unique and clgpu_unique_by_key (runs.h) */
  CLGPU_OPERATION_RUN_LENGTH_ENCODE = 9, /**< clgpu_run_length_encode (runs.h) */
  CLGPU_OPERATION_HISTOGRAM = 10,        /**< clgpu_histogram_even and _edges (histogram.h) */
  CLGPU_OPERATION_PARTITION = 11,        /**< clgpu_partition (partition.h) */
  CLGPU_OPERATION_SEGMENTED_SORT = 12,   /**< clgpu_segmented_sort (sort.h) */
  CLGPU_OPERATION_MPI_SORT = 13,         /**< clgpu_mpi_sort (mpi.h, the MPI component) */
} clgpu_operation;

/** The kernel shape an operation runs with. The plan resolves AUTO from the
 * device type: CPU devices get CHUNKED, every other device TILED. Forcing
 * either one is allowed on every device (the tests run both everywhere); the
 * results are the same except for float rounding, which depends on the
 * combining order and so on the shape. */
typedef enum clgpu_shape {
  CLGPU_SHAPE_AUTO = 0,
  /** The CPU shape: work-groups of one work-item, each a long contiguous
   * chunk walked serially (with 16-wide vectors where the operator allows),
   * about four chunks per compute unit, no barriers. */
  CLGPU_SHAPE_CHUNKED = 1,
  /** The GPU shape: wide work-groups (up to 256 work-items), each a run of
   * tiles of 8 elements per work-item, combined in local memory with
   * barriers. */
  CLGPU_SHAPE_TILED = 2,
} clgpu_shape;

/** Which algorithm a sort runs (sort.h); the other operations have one
 * algorithm each, and their workspace parts say CLGPU_ALGORITHM_AUTO. */
typedef enum clgpu_algorithm {
  CLGPU_ALGORITHM_AUTO = 0,
  CLGPU_ALGORITHM_RADIX = 1,
  CLGPU_ALGORITHM_MERGE = 2,
} clgpu_algorithm;

/** "reduce", "scan", "findall", "sort"; "invalid" otherwise. The string is
 * static. */
CLGPU_API const char *clgpu_operation_name(clgpu_operation operation);

/** "auto", "chunked", "tiled"; "invalid" otherwise. The string is static. */
CLGPU_API const char *clgpu_shape_name(clgpu_shape shape);

/** "auto", "radix", "merge"; "invalid" otherwise. The string is static. */
CLGPU_API const char *clgpu_algorithm_name(clgpu_algorithm algorithm);

#define CLGPU_WORKSPACE_MAX_PARTS 4
#define CLGPU_WORKSPACE_MAX_BUFFERS 16

/** One operation inside a workspace report. */
typedef struct clgpu_workspace_part {
  clgpu_operation operation;
  clgpu_shape shape;         /**< resolved: never AUTO */
  clgpu_algorithm algorithm; /**< a sort's: RADIX or MERGE; AUTO for the other operations */
  int parent;                /**< index of the part that runs this one; -1 for the call itself */
} clgpu_workspace_part;

/** One named buffer of a workspace. */
typedef struct clgpu_workspace_buffer {
  const char *name; /**< static string, e.g. "partials" */
  unsigned part;    /**< the part it belongs to */
  clgpu_type type;  /**< element type */
  uint64_t count;   /**< elements (0: not needed by this call) */
  uint64_t offset;  /**< bytes from the workspace's start; a multiple of `alignment` */
  uint64_t bytes;   /**< count * element size */
} clgpu_workspace_buffer;

/** What a call needs. */
typedef struct clgpu_workspace_size {
  unsigned num_parts;
  clgpu_workspace_part parts[CLGPU_WORKSPACE_MAX_PARTS];
  unsigned num_buffers;
  clgpu_workspace_buffer buffers[CLGPU_WORKSPACE_MAX_BUFFERS];
  uint64_t alignment;   /**< bytes: CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8, at least 16 */
  uint64_t total_bytes; /**< the end of the last buffer with bytes (buffers of count 0
                           may have offsets past it); 0 when nothing is needed */
} clgpu_workspace_size;

typedef struct clgpu_workspace clgpu_workspace;

/** Options every operation of this family takes; NULL (or a zeroed struct)
 * means AUTO, no workspace and the context's queue.
 *
 * Zero the whole struct (`= {0}`, a designated initialiser, or memset)
 * before setting fields: later versions of clgpu give names to the
 * reserved fields, so a program built against this header keeps working
 * with them (the struct's size does not change), and a call refuses
 * reserved fields that are not zero (CLGPU_INVALID_ARGUMENT) rather than
 * guess what a newer program meant (docs/queues.md, "Growing the options"). */
typedef struct clgpu_call_options {
  clgpu_shape shape;
  clgpu_workspace *workspace; /**< NULL: the call allocates what it needs */
  /** The queue the call enqueues on: NULL for the context's queue
   * (clgpu_context_queue), or another queue of the context's OpenCL context
   * and device (else the call fails with CLGPU_INVALID_ARGUMENT), in order
   * or out of order; not retained. The wait list and event work across
   * queues as OpenCL's do. A call without a workspace on another queue
   * allocates its scratch outside any allocation cache scope. A workspace
   * orders its calls: a call that follows one on another queue (or on an
   * out-of-order queue) waits for that call's last command, so passing one
   * workspace to calls on several queues never races (docs/queues.md). */
  cl_command_queue queue;
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_call_options;

/** Make a workspace for a report, written to *out: one buffer of
 * report->total_bytes (CL_MEM_READ_WRITE) through clgpu_buffer_create, so an
 * open cache scope serves it. The block is the workspace's until
 * clgpu_workspace_destroy, even past the end of that scope or of its cache
 * (docs/lifetimes.md). A report with total_bytes 0 makes a workspace without
 * a buffer. The report is copied. The workspace holds no reference to
 * `context`; calls with it take a live context of the same OpenCL context and
 * device. Enqueues nothing.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, a report that is not one
 * the queries make: parts, buffers or offsets inconsistent), and those of
 * clgpu_buffer_create. On failure *out is NULL. */
CLGPU_API clgpu_status clgpu_workspace_create(clgpu_context *context,
                                              const clgpu_workspace_size *report,
                                              clgpu_workspace **out);

/** Lay a workspace over bytes [offset, offset + size) of the caller's
 * `buffer`, written to *out. The buffer stays the caller's; the workspace
 * retains it while it lives. `offset` must be a multiple of the report's
 * alignment and `size` at least its total_bytes. The report is copied.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_MISMATCHED_OBJECTS (a buffer of
 * another OpenCL context), CLGPU_WORKSPACE_MISALIGNED,
 * CLGPU_WORKSPACE_TOO_SMALL (size below total_bytes, or the region reaches
 * past the buffer's end). On failure *out is NULL and nothing is
 * retained. */
CLGPU_API clgpu_status clgpu_workspace_wrap(clgpu_context *context,
                                            const clgpu_workspace_size *report, cl_mem buffer,
                                            size_t offset, size_t size, clgpu_workspace **out);

/** Free a workspace: a buffer the library made is given back through
 * clgpu_buffer_release (behind the work enqueued on the queue it was handed
 * out on), a wrapped one is released. NULL does nothing. Work already
 * enqueued with it is unaffected (OpenCL keeps the memory). Safe
 * before or after clgpu_context_destroy of its context, which it never
 * touches, and after the end of the cache scope it was made in and the
 * destruction of that cache (its block then goes back to the pool, or, with
 * the cache gone, is released). */
CLGPU_API void clgpu_workspace_destroy(clgpu_workspace *workspace);

/** Copy the report a workspace was made from (with the algorithm and sizes
 * it records) into *out. Errors: CLGPU_INVALID_ARGUMENT (NULL workspace or
 * out). */
CLGPU_API clgpu_status clgpu_workspace_describe(const clgpu_workspace *workspace,
                                                clgpu_workspace_size *out);

/** The buffer and byte range of a workspace (NULL buffer when it has none),
 * for callers that want to check it against their own arrays. Each output
 * may be NULL; the buffer is not retained for the caller. Errors:
 * CLGPU_INVALID_ARGUMENT (workspace is NULL). */
CLGPU_API clgpu_status clgpu_workspace_region(const clgpu_workspace *workspace, cl_mem *buffer,
                                              size_t *offset, size_t *size);

/** Wait on the host until the work of the calls made with `workspace` is
 * done: a marker enqueued on the queue of its last call, waited for (so
 * every command enqueued on that queue before it, not only the
 * workspace's). For code that lays
 * views of its own over the workspace's bytes (clgpu_workspace_region) or
 * hands them to another library, which the workspace's ordering of calls
 * (clgpu_call_options.queue) does not cover. Returns at once for a
 * workspace that no call has used.
 * Errors: CLGPU_INVALID_ARGUMENT (workspace is NULL), OpenCL's codes from
 * enqueueing the marker and waiting for it. */
CLGPU_API clgpu_status clgpu_workspace_finish(clgpu_workspace *workspace);

/** Whether a call whose size query reported `needed` can take `workspace`:
 * CLGPU_SUCCESS, or the status and message that call would give for it
 * (CLGPU_WORKSPACE_WRONG_DEVICE, _WRONG_OPERATION, _WRONG_ALGORITHM,
 * _TOO_SMALL). The one check a call adds, whether the workspace's bytes
 * overlap its arrays (CLGPU_WORKSPACE_ALIASES_ARGUMENT), needs those arrays
 * and is the call's alone. For code that must know before it starts work,
 * such as the collective calls of mpi.h. Enqueues nothing.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, a report with no parts or
 * more parts or buffers than a report holds). */
CLGPU_API clgpu_status clgpu_workspace_check(clgpu_context *context,
                                             const clgpu_workspace *workspace,
                                             const clgpu_workspace_size *needed);

#ifdef __cplusplus
}
#endif

#endif
