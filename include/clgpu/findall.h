/** @file
 * findall: the indices of the elements for which a predicate holds, in
 * ascending order, with their count (stream compaction).
 *
 * Key concepts:
 * - The predicate is an OpenCL C expression over `x` (the element, of the
 *   input's OpenCL C type) and `i` (its ulong row-major index), true when not
 *   0; NULL means `x != 0`, which makes the input a mask. It follows the
 *   rules of docs/expressions.md.
 * - Indices go to a 1-D CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64 view of any stride: the
 *   first min(count, capacity) of them, capacity being the view's length. The
 *   count, which may exceed the capacity (compare to detect it), goes to one
 *   CLGPU_TYPE_UINT64 element in device memory.
 * - It counts matches per chunk (a reduction), scans the counts (the scan of
 *   scan.h, a nested part of the workspace), then writes each chunk's indices
 *   from its offset; a strided input is packed first ("packed_input"). On
 *   CLGPU_SHAPE_CHUNKED it compacts each chunk's positions as it counts them
 *   ("positions"), and with at most 256 chunks the last kernel adds up the
 *   counts before each chunk itself: the nested scan part is then reported
 *   with no bytes and runs no kernel.
 * - clgpu_findall only enqueues; clgpu_findall_read blocks and reads the
 *   count back.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_uchar mask[] = {0, 1, 1, 0, 1};
 *     cl_ulong found[5];
 *     uint64_t count = 0;
 *     clgpu_context *context = NULL;
 *     cl_mem input_buffer = NULL, indices_buffer = NULL;
 *     clgpu_array input, indices;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof mask, &input_buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof found, &indices_buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(input_buffer, 0, CLGPU_TYPE_UINT8, 5, &input);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(indices_buffer, 0, CLGPU_TYPE_UINT64, 5, &indices);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &input, mask, sizeof mask, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_findall_read(context, NULL, &indices, NULL, &count, &input, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, found, sizeof found, &indices, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       for (uint64_t k = 0; k < count; k++) printf("%llu\n", (unsigned long long)found[k]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, indices_buffer);
 *     clgpu_buffer_release(context, input_buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
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

/** Write the indices of the elements of `input` for which `predicate` holds
 * to `indices`, and their number to `count` (see above). Only enqueues;
 * `event` (if not NULL) completes with both written.
 * Errors, with nothing enqueued and the outputs unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, input, indices or count; a wait list
 * that does not match; a predicate that breaks the rules of
 * docs/expressions.md), CLGPU_EXPRESSION_TOO_LONG (a predicate over 65536
 * bytes), CLGPU_TYPE_MISMATCH (indices not UINT32/UINT64, count not UINT64,
 * UINT32 for more than 2^32 - 1 elements), CLGPU_SHAPE_MISMATCH (indices not
 * 1-D, count not one element), CLGPU_INVALID_OUTPUT (an output that is
 * broadcast, overlaps the input or the other output),
 * CLGPU_UNSUPPORTED_FEATURE, CLGPU_MISMATCHED_OBJECTS, the workspace statuses
 * of workspace.h, CLGPU_SIZE_OVERFLOW (scratch for more bytes than 64 bits
 * count, such as packing a broadcast view of 2^62 elements), the errors of
 * clgpu_array_check, build failures. */
CLGPU_API clgpu_status clgpu_findall(clgpu_context *context, const char *predicate,
                                     const clgpu_array *indices, const clgpu_array *count,
                                     const clgpu_array *input, const clgpu_call_options *options,
                                     cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event);

/** The workspace clgpu_findall needs for these arguments, written to *out;
 * allocates and enqueues nothing. `count` may be NULL here and in
 * clgpu_findall_read: the workspace always has a one-element "count" buffer
 * that serves when no count view is given. Errors as clgpu_findall's
 * argument checks. */
CLGPU_API clgpu_status clgpu_findall_workspace_size(clgpu_context *context, const char *predicate,
                                                    const clgpu_array *indices,
                                                    const clgpu_array *count,
                                                    const clgpu_array *input,
                                                    const clgpu_call_options *options,
                                                    clgpu_workspace_size *out);

/** The workspace that serves any findall over a contiguous input of up to
 * max_n elements of `type`. Errors: CLGPU_INVALID_ARGUMENT (NULL arguments,
 * an unknown type or shape), CLGPU_UNSUPPORTED_FEATURE,
 * CLGPU_SIZE_OVERFLOW (a report that cannot be represented, workspace.h:
 * CHUNKED keeps a 4-byte position per element, so max_n above
 * (2^64 - 1) / 4 does not fit). */
CLGPU_API clgpu_status clgpu_findall_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                         uint64_t max_n,
                                                         const clgpu_call_options *options,
                                                         clgpu_workspace_size *out);

/** clgpu_findall, then wait for it and read the count into *count. Blocks.
 * `count_view` may be NULL (the workspace's "count" buffer is used). Errors
 * as clgpu_findall's, and CLGPU_INVALID_ARGUMENT for a NULL count. */
CLGPU_API clgpu_status clgpu_findall_read(clgpu_context *context, const char *predicate,
                                          const clgpu_array *indices, const clgpu_array *count_view,
                                          uint64_t *count, const clgpu_array *input,
                                          const clgpu_call_options *options);

#ifdef __cplusplus
}
#endif

#endif
