/* Scans (prefix sums and friends): inclusive and exclusive, with sum, min,
 * max or a user operator, over a whole array (row-major order) or along one
 * axis, out of place or exactly in place.
 *
 * out[k] = x[0] op x[1] op ... op x[k] (inclusive), or
 * out[0] = neutral, out[k] = x[0] op ... op x[k-1] (exclusive).
 * The output has the input's shape and type. Integer sums wrap around like C
 * unsigned arithmetic, for signed types too (two's complement bits). MIN and
 * MAX order floats as clgpu_reduce does (NaNs ignored until every element so
 * far is a NaN; -0 below +0); their neutral elements are NaNs that rank
 * last, so an exclusive MIN or MAX scan starts with such a NaN (0x7fffffff
 * for float MIN, 0xffffffff for float MAX; the type's largest or lowest
 * value for integers). SUM's neutral is 0.
 *
 * Elements are combined from left to right (the carry of earlier elements is
 * always the left operand), so a CUSTOM operator must be associative but
 * need not be commutative. CUSTOM gives `combine`, an OpenCL C expression
 * over `a` and `b` of the element type, and `neutral`; both follow the
 * rules of "Expressions" in reduce.h (one expression each, brackets
 * balanced, no ';', comment or '#', at most 65536 bytes), checked before
 * anything is built.
 * Float sums are deterministic for a given n, algorithm and device; the
 * order is that of reduce.h (chunks, then within a chunk from left to right,
 * in TILED by tiles of 8 elements per work-item whose totals are scanned in
 * a fixed tree).
 *
 * In place: an output that is exactly the input (clgpu_array_same) is
 * scanned in place with no copy; an output that overlaps the input in any
 * other way gets the input copied to a workspace buffer first
 * ("staged_input"), so the result is as if through a fresh buffer. A view
 * that is not contiguous (after moving the axis last) is packed into
 * "staged_input", and a non-contiguous output is written through
 * "packed_output". Asynchronous, with wait lists and events as in
 * reduce.h. */
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
  int exclusive;           /* 0: inclusive */
  const char *combine;     /* CUSTOM only: over a and b */
  const char *neutral;     /* CUSTOM only */
} clgpu_scan_op;

/* Scan `input` into `output` (same shape and type; may be the same view).
 * axis: CLGPU_ALL_AXES for the whole array in row-major order, or d for
 * independent scans along dimension d. Errors as clgpu_reduce's (an
 * expression that breaks the rules of reduce.h is CLGPU_INVALID_ARGUMENT,
 * one over 65536 bytes CLGPU_EXPRESSION_TOO_LONG), and CLGPU_INVALID_OUTPUT
 * for an output that is broadcast or overlaps itself. */
CLGPU_API clgpu_status clgpu_scan(clgpu_context *context, const clgpu_scan_op *op,
                                  const clgpu_array *input, int axis, const clgpu_array *output,
                                  const clgpu_call_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

CLGPU_API clgpu_status clgpu_scan_workspace_size(clgpu_context *context, const clgpu_scan_op *op,
                                                 const clgpu_array *input, int axis,
                                                 const clgpu_array *output,
                                                 const clgpu_call_options *options,
                                                 clgpu_workspace_size *out);

/* Any whole-array scan of up to max_n elements, input and output contiguous
 * and either the same view or not overlapping. */
CLGPU_API clgpu_status clgpu_scan_workspace_size_upto(clgpu_context *context,
                                                      const clgpu_scan_op *op, clgpu_type type,
                                                      uint64_t max_n,
                                                      const clgpu_call_options *options,
                                                      clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
