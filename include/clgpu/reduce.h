/** @file
 * Reductions: sum, product, min, max, argmin, argmax, count, any, all and
 * user-defined map/reduce expressions, over a whole array or along one axis,
 * and counting the elements a predicate holds for (clgpu_count_if).
 *
 * Key concepts:
 * - Inputs are views of any layout (clgpu_array), visited in row-major order;
 *   a view that is not contiguous is first packed into the workspace
 *   ("packed_input").
 * - Result types: the input's for SUM, PRODUCT, MIN and MAX (integers wrap
 *   around), CLGPU_TYPE_UINT64 for ARGMIN, ARGMAX and COUNT, CLGPU_TYPE_INT32 for ANY
 *   and ALL; clgpu_reduce_result_type says which.
 * - Float MIN and MAX ignore NaNs (unless every element is one) and order by
 *   bits as the sorts do; float SUM and PRODUCT are deterministic: the same
 *   bits for the same n, shape and device.
 * - CUSTOM reductions and count_if's predicate are OpenCL C expressions,
 *   checked by the rules of docs/expressions.md before anything is built.
 * - Calls only enqueue on the context's queue behind the wait list, except
 *   clgpu_reduce_read, which blocks.
 * docs/reduce.md has the details: result types and empty inputs, the float
 * order, the fixed summation order, and what a CUSTOM operator must provide.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     float host[] = {1.5f, 2.0f, -0.5f, 4.0f};
 *     float sum = 0;
 *     clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array input;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 4, &input);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &input, host, sizeof host, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_reduce_read(context, &op, &sum, sizeof sum, &input, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("sum %g\n", sum);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_REDUCE_H
#define CLGPU_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clgpu_reduce_kind {
  CLGPU_REDUCE_SUM = 1,
  CLGPU_REDUCE_PRODUCT,
  CLGPU_REDUCE_MIN,
  CLGPU_REDUCE_MAX,
  CLGPU_REDUCE_ARGMIN,
  CLGPU_REDUCE_ARGMAX,
  CLGPU_REDUCE_COUNT,
  CLGPU_REDUCE_ANY,
  CLGPU_REDUCE_ALL,
  CLGPU_REDUCE_CUSTOM,
} clgpu_reduce_kind;

typedef struct clgpu_reduce_op {
  clgpu_reduce_kind kind;
  const char *initial;    /**< optional; docs/reduce.md */
  clgpu_type result_type; /**< CUSTOM only */
  const char *map;        /**< CUSTOM only; NULL: x */
  const char *reduce;     /**< CUSTOM only */
  const char *neutral;    /**< CUSTOM only */
} clgpu_reduce_op;

/** Reduce the whole array (all axes) rather than along one axis. */
#define CLGPU_ALL_AXES (-1)

/** The result type of `op` over elements of `input_type` (docs/reduce.md has
 * the table); 0 when the pair is invalid (unknown kind or type, CUSTOM
 * without a valid result type). Pure: touches no device. */
CLGPU_API clgpu_type clgpu_reduce_result_type(const clgpu_reduce_op *op, clgpu_type input_type);

/** Reduce `input` into `output`.
 * axis == CLGPU_ALL_AXES: `output` is one element (any rank, count 1) of the
 * result type. axis == d (0 <= d < rank): `output` has the input's shape
 * without dimension d (or with extent 1 there), any strides, and receives the
 * reduction of each line along d. Only enqueues; `event` (if not NULL)
 * completes with the output written.
 * Errors, with nothing enqueued and the output unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, op or arrays; unknown kind; CUSTOM
 * without reduce or neutral; initial with ARGMIN/ARGMAX; an expression that
 * breaks the rules of docs/expressions.md; an axis out of range; a wait list
 * that does not match num_events; an unknown shape),
 * CLGPU_EXPRESSION_TOO_LONG (an expression over 65536 bytes),
 * CLGPU_TYPE_MISMATCH (the output's type is not the result type),
 * CLGPU_SHAPE_MISMATCH, CLGPU_INVALID_OUTPUT (an output that is broadcast or
 * may overlap the input), CLGPU_UNSUPPORTED_FEATURE (double without
 * cl_khr_fp64, half without cl_khr_fp16), CLGPU_MISMATCHED_OBJECTS, the
 * workspace statuses of workspace.h, CLGPU_SIZE_OVERFLOW (scratch for more
 * bytes than 64 bits count, such as packing a broadcast view of 2^62
 * elements), the errors of clgpu_array_check, and build failures
 * (CL_BUILD_PROGRAM_FAILURE, the log in clgpu_last_error()).
 * OpenCL's codes from enqueueing: the commands already enqueued stay, but
 * they write only scratch memory, so the output is unchanged; no event is
 * returned. */
CLGPU_API clgpu_status clgpu_reduce(clgpu_context *context, const clgpu_reduce_op *op, int axis,
                                    const clgpu_array *output, const clgpu_array *input,
                                    const clgpu_call_options *options, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_reduce needs for these arguments, written to *out.
 * Allocates and enqueues nothing. Errors as clgpu_reduce's argument
 * checks. */
CLGPU_API clgpu_status clgpu_reduce_workspace_size(
    clgpu_context *context, const clgpu_reduce_op *op, int axis, const clgpu_array *output,
    const clgpu_array *input, const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace that serves any whole-array reduction of a contiguous input
 * of up to `max_n` elements of `input_type`. Allocates and enqueues nothing.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, an unknown type, kind or
 * shape, an op that clgpu_reduce refuses), CLGPU_EXPRESSION_TOO_LONG,
 * CLGPU_UNSUPPORTED_FEATURE,
 * CLGPU_SIZE_OVERFLOW (a report that cannot be represented, workspace.h; any
 * max_n up to 2^64 - 1 fits today, as the report holds per-chunk partials
 * only). */
CLGPU_API clgpu_status clgpu_reduce_workspace_size_upto(clgpu_context *context,
                                                        const clgpu_reduce_op *op,
                                                        clgpu_type input_type, uint64_t max_n,
                                                        const clgpu_call_options *options,
                                                        clgpu_workspace_size *out);

/** Reduce the whole array and read the result into host memory `result`
 * (result_size bytes, exactly the result type's size). Blocks until the
 * result is on the host. Uses the workspace of `options`, or allocates what
 * it needs as every call does (workspace.h).
 * Errors as clgpu_reduce's, and CLGPU_INVALID_ARGUMENT for a NULL result or a
 * result_size that is not the result type's size. */
CLGPU_API clgpu_status clgpu_reduce_read(clgpu_context *context, const clgpu_reduce_op *op,
                                         void *result, size_t result_size, const clgpu_array *input,
                                         const clgpu_call_options *options);

/** The workspace clgpu_reduce_read needs for these arguments, written to
 * *out (the same report as clgpu_reduce_workspace_size's for a whole-array
 * reduction of `input`). Allocates and enqueues nothing. Errors as
 * clgpu_reduce_read's argument checks. */
CLGPU_API clgpu_status clgpu_reduce_read_workspace_size(clgpu_context *context,
                                                        const clgpu_reduce_op *op,
                                                        const clgpu_array *input,
                                                        const clgpu_call_options *options,
                                                        clgpu_workspace_size *out);

/** Count the elements for which `predicate` holds, into `output` (one
 * CLGPU_TYPE_UINT64 element). The predicate is an OpenCL C expression over `x`
 * and `i` as in findall.h (NULL: x != 0), under the rules of
 * docs/expressions.md. Only enqueues, as clgpu_reduce. It is a REDUCE
 * operation for workspaces; the size query is clgpu_count_if_workspace_size.
 * Errors as clgpu_reduce's. */
CLGPU_API clgpu_status clgpu_count_if(clgpu_context *context, const char *predicate,
                                      const clgpu_array *output, const clgpu_array *input,
                                      const clgpu_call_options *options, cl_uint num_events,
                                      const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_count_if needs for these arguments, written to *out.
 * Allocates and enqueues nothing. Errors as clgpu_count_if's argument
 * checks. */
CLGPU_API clgpu_status clgpu_count_if_workspace_size(clgpu_context *context, const char *predicate,
                                                     const clgpu_array *output,
                                                     const clgpu_array *input,
                                                     const clgpu_call_options *options,
                                                     clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
