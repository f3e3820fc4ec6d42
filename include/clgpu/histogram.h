/** @file
 * Histograms: how many elements of an array fall into each of a number of
 * bins, the bins even ranges over [lower, upper] or given by sorted edges.
 *
 * Key concepts:
 * - The input is a view of any shape and strides, of any built-in type
 *   (half read as storage, so no cl_khr_fp16 is needed; double needs
 *   cl_khr_fp64). Order does not matter: a 1-D view is read with its
 *   stride, a view of more dimensions that is not contiguous is copied to
 *   the workspace first ("packed_input").
 * - The counts are a 1-D view of any stride, CLGPU_TYPE_UINT32 (for inputs
 *   of at most 2^32 - 1 elements) or CLGPU_TYPE_UINT64; their length is
 *   the number of bins (0 bins: nothing is written). Every count is
 *   written, 0 for an empty bin: the counts are not added to. Elements
 *   outside every bin are not counted. The counts are written after every
 *   element was read, so they may share memory with the input or the
 *   edges.
 * - Elements from the lowest bound to the highest are counted, both
 *   included (NumPy's convention: every bin is closed below and open
 *   above but the last, which is closed), so the full range of a type is
 *   a histogram like any other; elements outside are not counted.
 * - Even bins (clgpu_histogram_even): `lower` and `upper` point to values
 *   of the input's type (a half is its 16 bits); for integers lower <=
 *   upper, for floats lower < upper, both finite. With B bins, an element
 *   x with lower <= x <= upper goes to
 *     integers: bin floor((x - lower) * B / N), exactly, where N = upper -
 *               lower + 1 is the number of values in the range (so uint8
 *               over [0, 255] in 16 bins takes 16 values per bin);
 *     floats:   bin min(B - 1, (uint64_t)((V)(x - lower) * scale)), where V
 *               is float for half and float and double for double, x -
 *               lower is computed in V, and scale is
 *               (V)(B / ((double)upper - (double)lower)).
 *   So a float x that lies within rounding of a bin's edge may be counted
 *   in the bin on either side of it (as with CUB's HistogramEven), the same
 *   way on every device that keeps denormals: the formula is the
 *   definition. (OpenCL lets a device flush float denormals to zero, as
 *   rusticl's llvmpipe reports it does; there an x - lower that is a
 *   denormal counts as 0.)
 * - Bins by edges (clgpu_histogram_edges): a 1-D view of B + 1 edges of the
 *   input's type, any stride, in ascending order by `<`; bin b holds the
 *   x with edges[b] <= x < edges[b + 1], and the last bin also x equal to
 *   edges[B]. Edges out of order give counts that mean nothing, never an
 *   access out of bounds.
 * - Floats compare by value: -0 and +0 are equal, NaN is in no bin.
 * - Groups count in local memory with 32-bit counters (bins * 4 bytes
 *   within half the device's local memory); with more bins they add to one
 *   row in global memory with 32-bit atomics. The rows are the
 *   workspace's "rows"; a last kernel adds them into the counts.
 * - Calls only enqueue, with wait lists and events as in reduce.h; nothing
 *   is read back.
 * docs/histogram.md has the details.
 *
 * The example prints 1 2 0 2 (4.0 is in the last bin, -1.0 in none).
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_float data[] = {0.5f, 1.5f, 1.7f, 3.9f, 4.0f, -1.0f};
 *     cl_float lower = 0.0f, upper = 4.0f;
 *     cl_uint counts[4];
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array input, bins;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 64, &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 6, &input);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 32, CLGPU_TYPE_UINT32, 4, &bins);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &input, data, sizeof data, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_histogram_even(context, &lower, &upper, &bins, &input, NULL, 0, NULL,
 *                                     NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, counts, sizeof counts, &bins, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%u %u %u %u\n", counts[0], counts[1], counts[2], counts[3]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_HISTOGRAM_H
#define CLGPU_HISTOGRAM_H

#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** counts[b] = the number of elements of `input` in even bin b of
 * [*lower, *upper] (see above); the bins are counts' length. `lower` and
 * `upper` are read during the call only. Only enqueues.
 * Errors, with nothing enqueued and the counts unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, counts, input, lower or upper; a
 * wait list that does not match; lower above upper, or for floats not
 * below it; a float bound that is not finite, or a range or bin width
 * whose inverse is not finite),
 * CLGPU_TYPE_MISMATCH (counts not UINT32/UINT64, UINT32 counts for more
 * than 2^32 - 1 elements, an opaque input), CLGPU_SHAPE_MISMATCH (counts
 * not 1-D), CLGPU_INVALID_OUTPUT (counts whose elements overlap each other,
 * or a read-only buffer), CLGPU_UNSUPPORTED_FEATURE (double input without
 * cl_khr_fp64; on a device with a loop cap, more rows than it allows),
 * CLGPU_MISMATCHED_OBJECTS, the workspace statuses of workspace.h,
 * CLGPU_SIZE_OVERFLOW, the errors of clgpu_array_check, build failures. */
CLGPU_API clgpu_status clgpu_histogram_even(clgpu_context *context, const void *lower,
                                            const void *upper, const clgpu_array *counts,
                                            const clgpu_array *input,
                                            const clgpu_call_options *options, cl_uint num_events,
                                            const cl_event *wait_list, cl_event *event);

/** counts[b] = the number of elements x of `input` with edges[b] <= x <
 * edges[b + 1], or x == edges[B] for the last bin (see above); `edges`
 * holds counts' length + 1 values of the input's type. Errors as
 * clgpu_histogram_even's (without those of the bounds), and
 * CLGPU_INVALID_ARGUMENT for NULL edges, CLGPU_TYPE_MISMATCH for edges of
 * another type, CLGPU_SHAPE_MISMATCH for edges that are not 1-D or not one
 * more than the counts. */
CLGPU_API clgpu_status clgpu_histogram_edges(clgpu_context *context, const clgpu_array *counts,
                                             const clgpu_array *input, const clgpu_array *edges,
                                             const clgpu_call_options *options, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_histogram_even needs for these arguments, written to
 * *out. Builds and enqueues nothing. Errors as its argument checks. */
CLGPU_API clgpu_status clgpu_histogram_even_workspace_size(
    clgpu_context *context, const void *lower, const void *upper, const clgpu_array *counts,
    const clgpu_array *input, const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace clgpu_histogram_edges needs for these arguments. */
CLGPU_API clgpu_status clgpu_histogram_edges_workspace_size(
    clgpu_context *context, const clgpu_array *counts, const clgpu_array *input,
    const clgpu_array *edges, const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace that serves any histogram, even or by edges, of up to
 * max_n elements of `type` in up to max_bins bins, the input 1-D or
 * contiguous (such a call packs nothing). Errors: CLGPU_INVALID_ARGUMENT
 * (NULL arguments, an unknown type or shape), CLGPU_TYPE_MISMATCH (an
 * opaque type), CLGPU_UNSUPPORTED_FEATURE, CLGPU_SIZE_OVERFLOW. */
CLGPU_API clgpu_status clgpu_histogram_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                           uint64_t max_n, uint64_t max_bins,
                                                           const clgpu_call_options *options,
                                                           clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
