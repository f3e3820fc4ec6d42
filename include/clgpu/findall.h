/* findall: the indices of the elements for which a predicate holds, in
 * ascending order, with their count.
 *
 * The predicate is an OpenCL C expression over `x` (the element, of the
 * input's OpenCL C type) and `i` (its ulong row-major index), true when not
 * 0; NULL means `x != 0`, which makes the input a mask. It follows the
 * rules of "Expressions" in reduce.h (one expression, brackets balanced, no
 * ';', comment or '#', at most 65536 bytes), checked before anything is
 * built.
 *
 * Indices are written to `indices`, a 1-D view of CLGPU_UINT32 or
 * CLGPU_UINT64 of any stride (UINT32 is refused when the input has more than
 * 2^32 - 1 elements): the first min(count, capacity) of them, where capacity
 * is the view's length; the rest are not written. The count (which may
 * exceed the capacity: compare to detect it) is written to `count`, one
 * CLGPU_UINT64 element in device memory, and the call returns an event that
 * completes with both. Nothing blocks; clgpu_findall_read is the blocking
 * form that reads the count back.
 *
 * The algorithm counts matches per chunk (a reduction), scans the counts
 * (the scan of scan.h, reported as a nested part of the workspace), then
 * writes each chunk's indices from its offset. A strided input is packed
 * first ("packed_input"). */
#ifndef CLGPU_FINDALL_H
#define CLGPU_FINDALL_H

#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors, with nothing enqueued and the outputs unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, input, indices or count; a wait list
 * that does not match; a predicate that breaks the rules of reduce.h),
 * CLGPU_EXPRESSION_TOO_LONG (a predicate over 65536 bytes), CLGPU_TYPE_MISMATCH (indices not UINT32/UINT64,
 * count not UINT64, UINT32 for more than 2^32 - 1 elements),
 * CLGPU_SHAPE_MISMATCH (indices not 1-D, count not one element),
 * CLGPU_INVALID_OUTPUT (an output that is broadcast, overlaps the input or
 * the other output), CLGPU_UNSUPPORTED_FEATURE, CLGPU_MISMATCHED_OBJECTS,
 * the workspace statuses, the errors of clgpu_array_check, build failures. */
CLGPU_API clgpu_status clgpu_findall(clgpu_context *context, const clgpu_array *input,
                                     const char *predicate, const clgpu_array *indices,
                                     const clgpu_array *count, const clgpu_call_options *options,
                                     cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event);

/* The workspace clgpu_findall needs (`count` may be NULL here and in
 * clgpu_findall_read: the workspace always has a one-element "count" buffer
 * that serves when no count view is given). */
CLGPU_API clgpu_status clgpu_findall_workspace_size(clgpu_context *context,
                                                    const clgpu_array *input,
                                                    const char *predicate,
                                                    const clgpu_array *indices,
                                                    const clgpu_array *count,
                                                    const clgpu_call_options *options,
                                                    clgpu_workspace_size *out);

/* Any findall over a contiguous input of up to max_n elements of `type`. */
CLGPU_API clgpu_status clgpu_findall_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                         uint64_t max_n,
                                                         const clgpu_call_options *options,
                                                         clgpu_workspace_size *out);

/* findall, then wait for it and read the count into *count. `count_view` may
 * be NULL (the workspace's "count" buffer is used). Blocks. */
CLGPU_API clgpu_status clgpu_findall_read(clgpu_context *context, const clgpu_array *input,
                                          const char *predicate, const clgpu_array *indices,
                                          const clgpu_array *count_view,
                                          const clgpu_call_options *options, uint64_t *count);

#ifdef __cplusplus
}
#endif

#endif
