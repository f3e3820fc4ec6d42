/** @file
 * Moving elements: copies between array views on the device (clgpu_copy),
 * transfers between host memory and views (clgpu_copy_to_host and
 * clgpu_copy_from_host, which enqueue; clgpu_array_read and
 * clgpu_array_write, which wait), and filling a view with one value
 * (clgpu_fill).
 *
 * Views may have any strides on either side; overlap between source and
 * destination is handled as if through a fresh buffer. Every call only
 * enqueues on the context's queue, except clgpu_array_read and
 * clgpu_array_write, which wait and take no event.
 * docs/copy.md says which OpenCL commands each layout turns into.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_int host[6] = {0, 1, 2, 3, 4, 5};
 *     cl_int zero = 0;
 *     clgpu_slice reverse = {.start = CLGPU_SLICE_BEGIN, .stop = CLGPU_SLICE_END, .step = -1};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array all, reversed;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 6, &all);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_slice(&all, &reverse, &reversed);
 *     if (status == CLGPU_SUCCESS) status = clgpu_fill(context, &all, &zero, 0, NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &reversed, host, sizeof host, 0, NULL);
 *     if (status == CLGPU_SUCCESS) status = clgpu_copy(context, &all, &reversed, 0, NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, host, sizeof host, &all, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%d %d %d\n", host[0], host[1], host[5]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_COPY_H
#define CLGPU_COPY_H

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Copy `source` into `destination`, element by element in index order: two
 * views of the same shape and type, each with any strides (negative and
 * broadcast sources included). When the destination may alias the source
 * and is not exactly the same view, the source goes through a temporary
 * first, so the result equals a copy through a fresh buffer. Only enqueues:
 * waits for the wait list, and `event` (if not NULL) completes with the
 * copy. A copy with nothing to move (no elements, or a view onto itself)
 * enqueues only a marker when `event` is asked for, and nothing otherwise.
 *
 * Errors of the argument checks, with nothing enqueued and no event made:
 * CLGPU_INVALID_ARGUMENT (NULL context or arrays, a wait list that does not
 * match num_events, a source in a CL_MEM_WRITE_ONLY buffer),
 * CLGPU_SHAPE_MISMATCH, CLGPU_TYPE_MISMATCH, CLGPU_INVALID_OUTPUT (a
 * destination with a stride 0 on a dimension longer than 1, in a
 * CL_MEM_READ_ONLY buffer, or whose elements may overlap each other; the
 * test is conservative, docs/copy.md), CLGPU_MISMATCHED_OBJECTS (a buffer of
 * another OpenCL context), and the errors of clgpu_array_check for either
 * view. OpenCL's codes from enqueueing: an overlapping copy that fails at its
 * second command leaves the first (into the temporary) enqueued; no event is
 * returned. */
CLGPU_API clgpu_status clgpu_copy(clgpu_context *context, const clgpu_array *destination,
                                  const clgpu_array *source, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

/* ---- transfers between host memory and views ---- */

/** Copy a view into host memory (clgpu_copy_to_host), or host memory into a
 * view (clgpu_copy_from_host). The view may have any strides (a copy to the
 * host also accepts stride 0 and overlapping layouts; a copy from the host
 * refuses them as clgpu_copy refuses such a destination). Host memory is
 * contiguous, in the view's row-major element order: count * element-size
 * bytes (clgpu_array_count), and host_size must be at least that. Only the
 * view's elements are written; bytes between them are left as they were.
 *
 * Only enqueues, as every function with an event does: the host memory must
 * stay valid (and, for a copy from the host, unchanged) until the event
 * completes, so ask for the event or finish the queue. The event completes
 * with the last command. An empty view moves nothing.
 *
 * Errors, with nothing enqueued and no event: CLGPU_INVALID_ARGUMENT (NULL
 * context, view or host pointer with elements to move, host_size too small,
 * a wait list that does not match num_events, a read from a
 * CL_MEM_WRITE_ONLY buffer), CLGPU_INVALID_OUTPUT (a write to a view that
 * clgpu_copy refuses as a destination, or to a CL_MEM_READ_ONLY buffer),
 * CLGPU_MISMATCHED_OBJECTS, the errors of clgpu_array_check; OpenCL's codes
 * from enqueueing (a packing copy already enqueued stays; it writes only a
 * temporary). */
CLGPU_API clgpu_status clgpu_copy_to_host(clgpu_context *context, void *host, size_t host_size,
                                          const clgpu_array *source, cl_uint num_events,
                                          const cl_event *wait_list, cl_event *event);

CLGPU_API clgpu_status clgpu_copy_from_host(clgpu_context *context, const clgpu_array *destination,
                                            const void *host, size_t host_size,
                                            cl_uint num_events, const cl_event *wait_list,
                                            cl_event *event);

/** The waiting forms: clgpu_array_read returns when the view's elements are
 * in host memory, clgpu_array_write when they are in the view (so the host
 * memory may be reused at once). Like every function of the library whose
 * name ends in _read or _write, they wait on the host and take no event; a
 * wait list holding an event that completes only after the call returns
 * (a user event the caller sets later) never completes. Arguments and
 * errors as clgpu_copy_to_host and clgpu_copy_from_host, and OpenCL's codes
 * from waiting. */
CLGPU_API clgpu_status clgpu_array_read(clgpu_context *context, void *host, size_t host_size,
                                        const clgpu_array *source, cl_uint num_events,
                                        const cl_event *wait_list);

CLGPU_API clgpu_status clgpu_array_write(clgpu_context *context, const clgpu_array *destination,
                                         const void *host, size_t host_size, cl_uint num_events,
                                         const cl_event *wait_list);

/** Set every element of a view to the value `value` points to (element-size
 * bytes, copied at the call, so the call never blocks; a half value is its
 * 16 bits). Only enqueues. Errors as clgpu_copy_from_host (value NULL is
 * CLGPU_INVALID_ARGUMENT). */
CLGPU_API clgpu_status clgpu_fill(clgpu_context *context, const clgpu_array *destination,
                                  const void *value, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
