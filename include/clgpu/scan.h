/** @file
 * Scans (prefix sums and friends): inclusive and exclusive, with sum, min,
 * max or a user operator, over a whole array (row-major order) or along one
 * axis, out of place or exactly in place.
 *
 *   inclusive: out[k] = x[0] op x[1] op ... op x[k]
 *   exclusive: out[0] = neutral, out[k] = x[0] op ... op x[k-1]
 *
 * Key concepts:
 * - The output has the input's shape and type. Integer sums wrap around like
 *   C unsigned arithmetic. MIN and MAX order floats as clgpu_reduce does (NaNs
 *   ignored until every element so far is a NaN; -0 below +0).
 * - Neutral elements: 0 for SUM; for MIN and MAX a NaN that ranks last
 *   (0x7fffffff for float MIN, 0xffffffff for float MAX) or the type's
 *   largest or lowest value for integers, which is what an exclusive scan
 *   starts with.
 * - Elements are combined from left to right (earlier elements are always the
 *   left operand), so a CUSTOM `combine` must be associative but need not be
 *   commutative. `combine` (over `a` and `b` of the element type) and
 *   `neutral` follow the rules of docs/expressions.md.
 * - Float sums are deterministic for a given n, shape and device (the
 *   order of docs/reduce.md; in TILED, a cut range's chunks are cut into
 *   slices: where the device reports sub-groups each slice is scanned by
 *   one sub-group a row of its width at a time, elsewhere each chunk in
 *   tiles of 16 elements per work-item whose totals are scanned in a fixed
 *   tree; the slices' totals are folded in the TILED reduce's order).
 * - Calls only enqueue, with wait lists and events as in reduce.h.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_int host[] = {1, 2, 3, 4};
 *     clgpu_scan_op op = {.kind = CLGPU_SCAN_SUM};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array x;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 4, &x);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &x, host, sizeof host, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_scan(context, &op, CLGPU_ALL_AXES, &x, &x, NULL, 0, NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, host, sizeof host, &x, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%d %d %d %d\n", host[0], host[1], host[2], host[3]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_SCAN_H
#define CLGPU_SCAN_H

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clgpu_scan_kind {
  CLGPU_SCAN_SUM = 1,
  CLGPU_SCAN_MIN,
  CLGPU_SCAN_MAX,
  CLGPU_SCAN_CUSTOM,
} clgpu_scan_kind;

typedef struct clgpu_scan_op {
  clgpu_scan_kind kind;
  int exclusive;       /**< 0: inclusive */
  const char *combine; /**< CUSTOM only: over a and b */
  const char *neutral; /**< CUSTOM only */
} clgpu_scan_op;

/** Scan `input` into `output` (same shape and type). axis: CLGPU_ALL_AXES for
 * the whole array in row-major order, or d for independent scans along
 * dimension d. An output that is exactly the input (clgpu_array_same) is
 * scanned in place with no copy; one that overlaps it in any other way gets
 * the input copied to the workspace first ("staged_input"), so the result is
 * as if through a fresh buffer. A view that is not contiguous (after moving
 * the axis last) is packed into "staged_input", and a non-contiguous output
 * is written through "packed_output". Only enqueues.
 * Errors as clgpu_reduce's (an expression that breaks the rules is
 * CLGPU_INVALID_ARGUMENT, one over 65536 bytes CLGPU_EXPRESSION_TOO_LONG;
 * sizes past 64 bits CLGPU_SIZE_OVERFLOW), and CLGPU_INVALID_OUTPUT for an
 * output that is broadcast or overlaps itself. */
CLGPU_API clgpu_status clgpu_scan(clgpu_context *context, const clgpu_scan_op *op, int axis,
                                  const clgpu_array *output, const clgpu_array *input,
                                  const clgpu_call_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_scan needs for these arguments, written to *out.
 * Allocates and enqueues nothing. Errors as clgpu_scan's argument checks. */
CLGPU_API clgpu_status clgpu_scan_workspace_size(clgpu_context *context, const clgpu_scan_op *op,
                                                 int axis, const clgpu_array *output,
                                                 const clgpu_array *input,
                                                 const clgpu_call_options *options,
                                                 clgpu_workspace_size *out);

/** The workspace that serves any whole-array scan of up to max_n elements of
 * `type`, input and output contiguous and either the same view or not
 * overlapping. Errors as clgpu_reduce_workspace_size_upto's,
 * CLGPU_SIZE_OVERFLOW included. */
CLGPU_API clgpu_status clgpu_scan_workspace_size_upto(clgpu_context *context,
                                                      const clgpu_scan_op *op, clgpu_type type,
                                                      uint64_t max_n,
                                                      const clgpu_call_options *options,
                                                      clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
