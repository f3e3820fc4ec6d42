/** @file
 * Stable partition: the elements for which a predicate holds, in their
 * order, followed by the others, in their order, and the number of the
 * first (std::stable_partition, or findall's selection with the rest kept).
 *
 * Key concepts:
 * - The predicate is findall's (findall.h): an OpenCL C expression over `x`
 *   (the element) and `i` (its ulong index), true when not 0; NULL means
 *   `x != 0`. It follows the rules of docs/expressions.md.
 * - Input and output are 1-D views of one type and length, any stride; the
 *   output may be the input itself or overlap it (the input is then copied
 *   to the workspace's "staged_input" first, so the result is as if through
 *   a fresh buffer).
 * - The count of selected elements goes to one CLGPU_TYPE_UINT64 element on
 *   the device, which must not overlap the input or the output: the output's
 *   first `count` elements are the selected ones.
 * - It counts the selected elements per range, scans the counts (with at
 *   most 256 ranges the last kernel adds them up itself, and the workspace
 *   report's nested scan part has no bytes), then writes each range's
 *   elements to their places: two readings of the input, one writing of
 *   the output.
 * - Calls only enqueue, with wait lists and events as in reduce.h; nothing
 *   is read back.
 * docs/reduce.md ("Stable partition") has how it runs.
 *
 * The example prints 2 4 6 1 3 5 7 (3 even).
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_int data[] = {1, 2, 3, 4, 5, 6, 7};
 *     cl_int sorted[7];
 *     cl_ulong even = 0;
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array values, count;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 64, &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 7, &values);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 32, CLGPU_TYPE_UINT64, 1, &count);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &values, data, sizeof data, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_partition(context, "x % 2 == 0", &values, &count, &values, NULL, 0, NULL,
 *                                NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, sorted, sizeof sorted, &values, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, &even, sizeof even, &count, 0, NULL);
 *     if (status == CLGPU_SUCCESS) {
 *       for (int k = 0; k < 7; k++) printf("%d ", sorted[k]);
 *       printf("(%llu even)\n", (unsigned long long)even);
 *     } else {
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     }
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_PARTITION_H
#define CLGPU_PARTITION_H

#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Write the elements of `input` for which `predicate` holds, then the
 * others, each in their order, to `output`, and the number of the first to
 * `count` (see above). Only enqueues; `event` (if not NULL) completes with
 * both written.
 * Errors, with nothing enqueued and the outputs unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, output, count or input; a wait list
 * that does not match; a predicate that breaks the rules of
 * docs/expressions.md), CLGPU_EXPRESSION_TOO_LONG, CLGPU_TYPE_MISMATCH (an
 * output of another type, a count not UINT64, an opaque input),
 * CLGPU_SHAPE_MISMATCH (views not 1-D, an output of another length, a
 * count not one element), CLGPU_INVALID_OUTPUT (an output whose elements
 * overlap each other, a count that may overlap the input or the output, a
 * read-only buffer), CLGPU_UNSUPPORTED_FEATURE (half or double without
 * their extension; a device loop cap the ranges cannot meet),
 * CLGPU_MISMATCHED_OBJECTS, the workspace statuses of workspace.h,
 * CLGPU_SIZE_OVERFLOW, the errors of clgpu_array_check, build failures. */
CLGPU_API clgpu_status clgpu_partition(clgpu_context *context, const char *predicate,
                                       const clgpu_array *output, const clgpu_array *count,
                                       const clgpu_array *input, const clgpu_call_options *options,
                                       cl_uint num_events, const cl_event *wait_list,
                                       cl_event *event);

/** The workspace clgpu_partition needs for these arguments, written to
 * *out. Builds and enqueues nothing. Errors as its argument checks. */
CLGPU_API clgpu_status clgpu_partition_workspace_size(clgpu_context *context, const char *predicate,
                                                      const clgpu_array *output,
                                                      const clgpu_array *count,
                                                      const clgpu_array *input,
                                                      const clgpu_call_options *options,
                                                      clgpu_workspace_size *out);

/** The workspace that serves any partition of up to max_n elements of
 * `type` whose output does not overlap its input (such a call stages
 * nothing). Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, an unknown type
 * or shape), CLGPU_TYPE_MISMATCH (an opaque type), CLGPU_UNSUPPORTED_FEATURE,
 * CLGPU_SIZE_OVERFLOW. */
CLGPU_API clgpu_status clgpu_partition_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                           uint64_t max_n,
                                                           const clgpu_call_options *options,
                                                           clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
