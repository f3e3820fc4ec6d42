/* Workspaces: the scratch memory of an operation, sized by a query, made by
 * the library or carved out of the caller's own buffer, and checked on every
 * call.
 *
 * The contract, the same for every operation that needs scratch memory:
 *
 * 1. Size query. clgpu_<op>_workspace_size takes the same arguments as the
 *    call and fills a clgpu_workspace_size: the named buffers the call needs
 *    (element type, count, byte offset in the workspace), grouped in parts,
 *    one per operation involved (findall's report holds a part for the scan
 *    it runs, whose parent is findall's part), and the total bytes with each
 *    buffer aligned to the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bytes,
 *    at least 16). The query
 *    allocates nothing, enqueues nothing, and depends only on the arguments
 *    and the device. Each buffer grows monotonically with the element count,
 *    so the "_upto" form (any contiguous call of up to N elements) is the
 *    query at N. A buffer the call does not need has count 0 but is listed,
 *    so two reports of one operation and algorithm list the same buffers.
 *    (A few buffers are always one element: reduce's "result", which
 *    clgpu_reduce_read reads back, and findall's "count", which
 *    clgpu_findall_read uses when given no count view; so every reduce and
 *    findall report needs some bytes.)
 *    Every number of a report is exact: a query whose report cannot be
 *    represented (an element count, a byte count, an offset or the total
 *    past 2^64 - 1, or a plan that cannot address its data with 64-bit
 *    offsets, such as a merge sort of more than 2^63 keys) returns
 *    CLGPU_SIZE_OVERFLOW instead of wrapped numbers, promptly, with *out
 *    unchanged and a message naming the buffer and max_n (or the input's
 *    element count). So does the call itself for such arguments (a
 *    broadcast view of 2^62 elements that must be packed), before anything
 *    is enqueued. Reports that do fit may still be more than a device can
 *    allocate; clgpu_workspace_create then fails as clgpu_buffer_create
 *    does.
 * 2. A workspace is made from a report (clgpu_workspace_create allocates one
 *    buffer through clgpu_buffer_create, so an open cache scope serves it) or
 *    laid over a region of the caller's cl_mem (clgpu_workspace_wrap). It
 *    records the context, the device, the operation, the algorithm the call
 *    resolved to (parts included) and the size of every buffer.
 * 3. Every call given a workspace checks it and refuses, with nothing
 *    enqueued: one made on another OpenCL context or device
 *    (CLGPU_WORKSPACE_WRONG_DEVICE), for another operation
 *    (CLGPU_WORKSPACE_WRONG_OPERATION) or another resolved algorithm
 *    (CLGPU_WORKSPACE_WRONG_ALGORITHM), one with a buffer smaller than this
 *    call needs (CLGPU_WORKSPACE_TOO_SMALL), and one whose bytes (the whole
 *    region it was made or wrapped with) may overlap an argument of the call
 *    (CLGPU_WORKSPACE_ALIASES_ARGUMENT). The message
 *    names the buffer, the sizes or the argument. A call with a fitting
 *    workspace makes no device allocation at all.
 * 4. Without a workspace a call allocates what it needs through
 *    clgpu_buffer_create and releases it when its commands are enqueued
 *    (OpenCL keeps the memory until they finish).
 *
 * A workspace holds no state between calls: the next call may reuse it as
 * soon as it is enqueued on the same in-order queue. Two calls in flight at
 * once (on an out-of-order queue, or on two queues) must not share one: the
 * library cannot see that and the results would be wrong. */
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

/* Operations that take workspaces. */
typedef enum clgpu_operation {
  CLGPU_OPERATION_REDUCE = 1, /* clgpu_reduce and clgpu_count_if */
  CLGPU_OPERATION_SCAN = 2,
  CLGPU_OPERATION_FINDALL = 3,
  CLGPU_OPERATION_SORT = 4, /* clgpu_sort and clgpu_sort_permutation (sort.h) */
} clgpu_operation;

/* How an operation runs. The plan resolves AUTO from the device type: CPU
 * devices get CHUNKED, every other device TILED. Forcing either one is
 * allowed on every device (the tests run both everywhere); the results are
 * the same except for float rounding, which depends on the combining order
 * and so on the algorithm. */
typedef enum clgpu_algorithm {
  CLGPU_ALGORITHM_AUTO = 0,
  /* The CPU shape: work-groups of one work-item, each a long contiguous
   * chunk walked serially (with 16-wide vectors where the operator allows),
   * about four chunks per compute unit, no barriers. */
  CLGPU_ALGORITHM_CHUNKED = 1,
  /* The GPU shape: wide work-groups (up to 256 work-items), each a run of
   * tiles of 8 elements per work-item, combined in local memory with
   * barriers. */
  CLGPU_ALGORITHM_TILED = 2,
  /* Sorts only (sort.h): which sort runs; the shape is one of the two
   * above, chosen separately. */
  CLGPU_ALGORITHM_RADIX = 3,
  CLGPU_ALGORITHM_MERGE = 4,
} clgpu_algorithm;

/* "reduce", "scan", "findall", "sort"; "invalid" otherwise. */
CLGPU_API const char *clgpu_operation_name(clgpu_operation operation);

/* "auto", "chunked", "tiled", "radix", "merge"; "invalid" otherwise. */
CLGPU_API const char *clgpu_algorithm_name(clgpu_algorithm algorithm);

#define CLGPU_WORKSPACE_MAX_PARTS 4
#define CLGPU_WORKSPACE_MAX_BUFFERS 16

/* One operation inside a workspace report. */
typedef struct clgpu_workspace_part {
  clgpu_operation operation;
  clgpu_algorithm algorithm; /* resolved: never AUTO */
  int parent;                /* index of the part that runs this one; -1 for the call itself */
} clgpu_workspace_part;

/* One named buffer of a workspace. */
typedef struct clgpu_workspace_buffer {
  const char *name; /* static string, e.g. "partials" */
  unsigned part;    /* the part it belongs to */
  clgpu_type type;  /* element type */
  uint64_t count;   /* elements (0: not needed by this call) */
  uint64_t offset;  /* bytes from the workspace's start; a multiple of `alignment` */
  uint64_t bytes;   /* count * element size */
} clgpu_workspace_buffer;

/* What a call needs. */
typedef struct clgpu_workspace_size {
  unsigned num_parts;
  clgpu_workspace_part parts[CLGPU_WORKSPACE_MAX_PARTS];
  unsigned num_buffers;
  clgpu_workspace_buffer buffers[CLGPU_WORKSPACE_MAX_BUFFERS];
  uint64_t alignment;   /* bytes: CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8, at least 16 */
  uint64_t total_bytes; /* the end of the last buffer with bytes (buffers of count 0
                           may have offsets past it); 0 when nothing is needed */
} clgpu_workspace_size;

typedef struct clgpu_workspace clgpu_workspace;

/* Options every operation of this family takes; NULL (or a zeroed struct)
 * means AUTO and no workspace. */
typedef struct clgpu_call_options {
  clgpu_algorithm algorithm;
  clgpu_workspace *workspace; /* NULL: the call allocates what it needs */
} clgpu_call_options;

/* Make a workspace for a report: one buffer of report->total_bytes
 * (CL_MEM_READ_WRITE) through clgpu_buffer_create, so an open cache scope
 * serves it. The block is the workspace's until it is destroyed, even past
 * the end of that scope or of its cache (alloc.h, "Lifetimes"): no other
 * request is given that memory meanwhile. A report with total_bytes 0 makes a workspace
 * without a buffer. The report is copied. Errors: CLGPU_INVALID_ARGUMENT (NULL
 * arguments, a report that is not one the queries make: parts, buffers or
 * offsets inconsistent), and those of clgpu_buffer_create. On failure *out is
 * NULL. The workspace holds no reference to `context` (see
 * clgpu_workspace_destroy); calls with it take a live context of the same
 * OpenCL context and device. */
CLGPU_API clgpu_status clgpu_workspace_create(clgpu_context *context,
                                              const clgpu_workspace_size *report,
                                              clgpu_workspace **out);

/* Lay a workspace over bytes [offset, offset + size) of the caller's
 * `buffer`, which stays the caller's (retained while the workspace lives).
 * `offset` must be a multiple of the report's alignment and `size` at least
 * its total_bytes. Errors: CLGPU_INVALID_ARGUMENT, CLGPU_MISMATCHED_OBJECTS
 * (a buffer of another OpenCL context), CLGPU_WORKSPACE_MISALIGNED,
 * CLGPU_WORKSPACE_TOO_SMALL (size below total_bytes, or the region reaches
 * past the buffer's end). On failure *out is NULL and nothing is retained. */
CLGPU_API clgpu_status clgpu_workspace_wrap(clgpu_context *context,
                                            const clgpu_workspace_size *report, cl_mem buffer,
                                            size_t offset, size_t size, clgpu_workspace **out);

/* Free a workspace: a buffer the library made is given back through
 * clgpu_buffer_release (behind the work enqueued on the queue it was handed
 * out on), a wrapped one is released. NULL does nothing. Work already
 * enqueued with it is unaffected (OpenCL keeps the memory). Safe before or
 * after clgpu_context_destroy of the workspace's context: it never touches
 * the context (a scope still open on that context keeps it, and the
 * workspace's own buffer keeps its OpenCL context). Made in a cache scope,
 * it may be used and destroyed after that scope has ended and after its
 * cache has been destroyed: its block goes back to the cache's pool, or,
 * with the cache gone, is released. */
CLGPU_API void clgpu_workspace_destroy(clgpu_workspace *workspace);

/* The report a workspace was made from, with the algorithm and sizes it
 * records. Errors: CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_workspace_describe(const clgpu_workspace *workspace,
                                                clgpu_workspace_size *out);

/* The buffer and byte range of a workspace (NULL buffer when it has none),
 * for callers that want to check it against their own arrays. */
CLGPU_API clgpu_status clgpu_workspace_region(const clgpu_workspace *workspace, cl_mem *buffer,
                                              size_t *offset, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
