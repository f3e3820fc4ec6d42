/* Copying between array views on the device. */
#ifndef CLGPU_COPY_H
#define CLGPU_COPY_H

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copy `source` into `destination`, element by element in index order: two
 * views of the same shape and type, each with any strides (negative and
 * broadcast sources included). Asynchronous on the context's queue: waits
 * for the `num_events` events of `wait_list`, and when `event` is not NULL
 * returns an event that completes with the copy. Nothing blocks.
 *
 * Overlap: when the destination may alias the source (clgpu_may_alias) and
 * is not exactly the same view (clgpu_array_same), the source is first copied
 * to a temporary (allocated through clgpu_buffer_create, so a cache scope
 * serves it), so the result equals a copy through a fresh buffer. Copying a
 * view onto itself enqueues nothing but a marker.
 *
 * When `event` is NULL and there is nothing to move (no elements, or the
 * same view), nothing is enqueued at all.
 *
 * Errors of the argument checks, with nothing enqueued and no event made:
 * CLGPU_INVALID_ARGUMENT (NULL context or arrays, a wait list that does not
 * match num_events, a source in a CL_MEM_WRITE_ONLY buffer),
 * CLGPU_SHAPE_MISMATCH, CLGPU_TYPE_MISMATCH, CLGPU_INVALID_OUTPUT (a
 * destination with a stride 0 on a dimension longer than 1, in a
 * CL_MEM_READ_ONLY buffer, or whose elements may overlap each other: the
 * test sorts the dimensions by stride and requires each stride to clear the
 * extent of the smaller ones, which also refuses a few interleaved layouts
 * that do not overlap, such as strides 2 and 3 over extents 3 and 2),
 * CLGPU_MISMATCHED_OBJECTS (a buffer of another OpenCL context), and the
 * errors of clgpu_array_check for either view. OpenCL's codes from
 * enqueueing: an overlapping copy that fails at its second command leaves the
 * first (into the temporary) enqueued; no event is returned.
 *
 * How it runs: two row-major contiguous views that cannot overlap are one
 * clEnqueueCopyBuffer; anything else is the context's built-in elementwise
 * copy (elementwise.h), so a layout gets its specialised kernel from its
 * second copy on (the first runs the generic one and builds nothing of its
 * own), and on CPU devices a transpose is walked in blocks. Elements are
 * moved as unsigned integers of their size, so half and double copy on
 * devices without fp16 or fp64.
 *
 * Launch shape: CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP override the elements
 * per work-item and the work-group size of every strided elementwise kernel
 * (for tests and tuning); they are read when a context is made. */
CLGPU_API clgpu_status clgpu_copy(clgpu_context *context, const clgpu_array *destination,
                                  const clgpu_array *source, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

/* ---- transfers between host memory and views ----
 *
 * Host memory is always contiguous, in the view's row-major element order:
 * count * element-size bytes (clgpu_array_count), and host_size must be at
 * least that. Views may have any strides (a read also accepts stride 0 and
 * overlapping layouts; a write refuses them as clgpu_copy refuses such a
 * destination).
 *
 * How they move: a contiguous view is one clEnqueueReadBuffer or
 * WriteBuffer; a layout that rectangular transfers express (after the
 * dimensions of extent 1 are dropped and contiguous ones merged: at most
 * three dimensions, the fastest with stride 1, the others positive and
 * nested) is one clEnqueueReadBufferRect or WriteBufferRect; any other is
 * packed on the device into a temporary (clgpu_buffer_create) by a strided
 * copy and read from there, or written to a temporary and unpacked. Either
 * way only the view's elements are written: bytes between them are left as
 * they were.
 *
 * Blocking. With `blocking` CL_TRUE the call returns when the host memory
 * may be reused (a read's data is there; a write's was taken). With
 * CL_FALSE the call only enqueues: the host memory must stay valid (and,
 * for a write, unchanged) until the event completes, so ask for the event
 * or finish the queue. Wait lists and events as everywhere: the event
 * completes with the last command.
 *
 * Errors, with nothing enqueued and no event: CLGPU_INVALID_ARGUMENT (NULL
 * context, view or host pointer with elements to move, host_size too small,
 * a wait list that does not match num_events, a read from a
 * CL_MEM_WRITE_ONLY buffer), CLGPU_INVALID_OUTPUT (a write to a view that
 * clgpu_copy refuses as a destination, or to a CL_MEM_READ_ONLY buffer),
 * CLGPU_MISMATCHED_OBJECTS, the errors of clgpu_array_check; OpenCL's codes
 * from enqueueing (after a packing copy was enqueued, that copy stays
 * enqueued; it writes only the temporary). An empty view moves nothing. */
CLGPU_API clgpu_status clgpu_array_read(clgpu_context *context, const clgpu_array *source,
                                        void *host, size_t host_size, cl_bool blocking,
                                        cl_uint num_events, const cl_event *wait_list,
                                        cl_event *event);

CLGPU_API clgpu_status clgpu_array_write(clgpu_context *context, const clgpu_array *destination,
                                         const void *host, size_t host_size, cl_bool blocking,
                                         cl_uint num_events, const cl_event *wait_list,
                                         cl_event *event);

/* Set every element of a view to the value `value` points to (element-size
 * bytes, copied at the call, so the call never blocks; a half value is its
 * 16 bits). A contiguous view is one clEnqueueFillBuffer; any other layout
 * an elementwise kernel. Errors as clgpu_array_write (value NULL is
 * CLGPU_INVALID_ARGUMENT). */
CLGPU_API clgpu_status clgpu_fill(clgpu_context *context, const clgpu_array *destination,
                                  const void *value, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
