/** @file
 * Searches in a sorted array: for each of many needles, the position where
 * it would go in a sorted haystack (lower_bound and upper_bound of C++, or
 * NumPy's searchsorted with side "left" and "right").
 *
 * Key concepts:
 * - The haystack must be sorted in the order a clgpu_sort_spec gives: the
 *   natural order of a built-in type (floats by their bits, as clgpu_sort
 *   leaves them: -inf < ... < -0 < +0 < ... < +inf < NaN), a comparator
 *   expression over `a` and `b`, or custom keys with their comparator;
 *   ascending or descending. Pass the spec the haystack was sorted with
 *   (NULL: ascending, natural). A haystack that is not sorted in that order
 *   gives positions in [0, n] that mean nothing, never an out-of-bounds
 *   access. The spec's bit range is for radix sorts only and is refused.
 * - lower bound of x: the number of haystack keys that sort before x, so
 *   the first position where x could be inserted keeping the order; upper
 *   bound: the number of keys that x does not sort before, the last such
 *   position. Keys equal to x (neither before the other) lie between the
 *   two. Under the natural order of floats a NaN needle is equal to a NaN
 *   of the same bits only, and -0 sorts before +0.
 * - Needles need not be sorted. On the CPU shape (CHUNKED) needles that are
 *   in order within a work-item's chunk are found from the previous bound,
 *   which makes sorted needles cheaper; any others are searched 64 at a
 *   time. TILED runs a needle per work-item.
 * - Needles, haystack and positions are 1-D views of any stride (custom
 *   keys: contiguous); a view that is not contiguous is copied to the
 *   workspace first ("staged_needles", "staged_haystack"). Positions are
 *   CLGPU_TYPE_UINT32 (a haystack of at most 2^32 - 1 keys) or
 *   CLGPU_TYPE_UINT64, one per needle. Positions that are not contiguous,
 *   or that may overlap the needles or the haystack, are written to
 *   "packed_positions" (bytes, 4 or 8 per needle) and copied out after
 *   every needle was searched, so the result is as if through a fresh
 *   buffer. Needles and haystack may overlap each other.
 * - Calls only enqueue, with wait lists and events as in reduce.h; nothing
 *   is read back.
 * docs/search.md has the details: the order, how the shapes run, staging.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_int sorted[] = {1, 3, 3, 7};
 *     cl_int wanted[] = {3, 0, 8};
 *     cl_uint found[3];
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array haystack, needles, positions;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 64, &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 4, &haystack);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 16, CLGPU_TYPE_INT32, 3, &needles);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 32, CLGPU_TYPE_UINT32, 3, &positions);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &haystack, sorted, sizeof sorted, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &needles, wanted, sizeof wanted, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_lower_bound(context, NULL, &positions, &needles, &haystack, NULL, 0,
 *                                  NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, found, sizeof found, &positions, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%u %u %u\n", found[0], found[1], found[2]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_SEARCH_H
#define CLGPU_SEARCH_H

#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/sort.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** positions[i] = the lower bound of needles[i] in `haystack` (see above),
 * for every i. Only enqueues; `event` (if not NULL) completes with every
 * position written. A failing check enqueues nothing and changes nothing.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL context, positions, needles or
 * haystack; an unknown shape; a wait list that does not match; the spec
 * errors of clgpu_sort for a merge sort, a bit range included),
 * CLGPU_EXPRESSION_TOO_LONG, CLGPU_TYPE_MISMATCH (needles and haystack of
 * different built-in types, opaque keys without spec->key_type, positions
 * that are not UINT32 or UINT64, UINT32 positions for a haystack of more
 * than 2^32 - 1 keys), CLGPU_SHAPE_MISMATCH (a view that is not 1-D,
 * positions of another length than the needles, custom keys that are not
 * contiguous or not whole keys), CLGPU_MISALIGNED_VIEW (custom keys as in
 * clgpu_sort), CLGPU_INVALID_OUTPUT (positions that are broadcast or
 * overlap themselves), CLGPU_MISMATCHED_OBJECTS, CLGPU_UNSUPPORTED_FEATURE
 * (a comparator over double or half keys without the extension; a search
 * longer than the device's loop cap allows, docs/quirks.md), the workspace
 * statuses of workspace.h, the errors of clgpu_array_check, and OpenCL's
 * codes (a comparator that does not compile: CL_BUILD_PROGRAM_FAILURE, its
 * log in clgpu_last_error()). */
CLGPU_API clgpu_status clgpu_lower_bound(clgpu_context *context, const clgpu_sort_spec *spec,
                                         const clgpu_array *positions, const clgpu_array *needles,
                                         const clgpu_array *haystack,
                                         const clgpu_call_options *options, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);

/** positions[i] = the upper bound of needles[i] in `haystack`. As
 * clgpu_lower_bound in every other way. */
CLGPU_API clgpu_status clgpu_upper_bound(clgpu_context *context, const clgpu_sort_spec *spec,
                                         const clgpu_array *positions, const clgpu_array *needles,
                                         const clgpu_array *haystack,
                                         const clgpu_call_options *options, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_lower_bound and clgpu_upper_bound need for these
 * arguments (the same for both), written to *out. Builds and enqueues
 * nothing. Errors as their argument checks, and CLGPU_SIZE_OVERFLOW. */
CLGPU_API clgpu_status clgpu_search_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *positions,
    const clgpu_array *needles, const clgpu_array *haystack, const clgpu_call_options *options,
    clgpu_workspace_size *out);

/** The workspace that serves any search of up to max_needles needles in a
 * haystack of up to max_haystack keys of `key_type` (ignored with a custom
 * spec->key_type), every view contiguous and the positions apart from the
 * others: such a call stages nothing, so the report holds only empty
 * buffers, and a workspace made from it has no buffer. Errors:
 * CLGPU_INVALID_ARGUMENT (NULL context or out, an unknown type, the spec and
 * options checks), CLGPU_TYPE_MISMATCH (opaque keys without a key type),
 * CLGPU_UNSUPPORTED_FEATURE. */
CLGPU_API clgpu_status clgpu_search_workspace_size_upto(
    clgpu_context *context, const clgpu_sort_spec *spec, clgpu_type key_type, uint64_t max_needles,
    uint64_t max_haystack, const clgpu_call_options *options, clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
