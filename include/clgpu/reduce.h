/* Reductions: sum, product, min, max, argmin, argmax, count, any, all and
 * user-defined map/reduce expressions, over a whole array or along one axis.
 *
 * Inputs are views of any layout (clgpu_array); elements are visited in
 * row-major order, and a view that is not contiguous is first packed into a
 * workspace buffer ("packed_input"). Calls are asynchronous on the context's
 * queue: they wait for `wait_list` and, when `event` is not NULL, return an
 * event that completes with the result written. Nothing blocks except
 * clgpu_reduce_read, which says so.
 *
 * Result types (clgpu_reduce_result_type):
 *   SUM, PRODUCT, MIN, MAX  the input's type. Integer sums and products
 *                           wrap around like C unsigned arithmetic, for
 *                           signed types too (two's complement bits).
 *   ARGMIN, ARGMAX          CLGPU_UINT64: the index of the first element
 *                           holding the min (max); along an axis, the index
 *                           along that axis. Empty input: UINT64_MAX.
 *   COUNT                   CLGPU_UINT64: elements that are not 0 (NaN
 *                           counts, -0 does not).
 *   ANY, ALL                CLGPU_INT32: 1 when some (every) element is not
 *                           0, else 0. Empty: ANY 0, ALL 1.
 *   CUSTOM                  op->result_type.
 *
 * Order of floats in MIN, MAX, ARGMIN, ARGMAX: NaNs are ignored unless every
 * element is a NaN; other values compare by their bits as the sorts do, so
 * -0 is below +0. Two elements are equal only when their bits are. When every
 * element is a NaN, MIN gives the NaN whose bits rank lowest in that order
 * (negative NaNs first, by payload), MAX the one ranking highest. These rules
 * make MIN and MAX exact whatever the combining order. An empty MIN is the
 * type's largest value (+inf for floats), an empty MAX the lowest (-inf).
 *
 * Float SUM and PRODUCT are deterministic: the same bits on every run for the
 * same element count, algorithm and device. The combining order is fixed by
 * the plan: the elements are split into chunks whose boundaries depend only
 * on n and the device (see clgpu_algorithm); in CHUNKED each chunk is added
 * in four 16-lane vector accumulators (element k of a chunk goes to lane
 * k mod 64), then the accumulators, then the lanes in order, then the tail;
 * in TILED work-item j of a group adds elements j, j + G, j + 2G, ... of its
 * chunk and the group combines its items in a fixed binary tree; partial
 * results of the chunks are then combined in the same way by one group. No
 * floating-point atomics are used anywhere.
 *
 * User-defined (CUSTOM) reductions are OpenCL C expressions, checked by the
 * rules under "Expressions" below:
 *   map      over `x` (the element, of the input's OpenCL C type) and `i`
 *            (its ulong index: row-major over the whole array, or along the
 *            axis), giving a value of result_type; NULL means `x`.
 *   reduce   over `a` and `b` of result_type: must be associative and
 *            commutative (work-items combine strided elements).
 *   neutral  the operator's neutral element (reduce(neutral, v) == v): pads
 *            partial tiles and is the result of an empty reduction.
 *   initial  optional (NULL: none): combined once with the whole result,
 *            reduce(initial, result), and the result of an empty reduction.
 * `initial` is also accepted by SUM, PRODUCT, MIN, MAX, COUNT, ANY and ALL,
 * as an expression of the result type; ARGMIN and ARGMAX refuse it.
 *
 * Expressions. Every OpenCL C expression a caller passes to the library
 * (map, reduce, neutral and initial here, count_if's predicate, scan.h's
 * combine and neutral, findall.h's predicate, sort.h's comparator) follows
 * one set of rules, checked before anything is built or enqueued, so that
 * it can only ever mean what it says on its own:
 * - it is one expression: no ';', no comment of either kind, no '#', no
 *   backslash outside a character or string literal, no trigraph ("??="
 *   and its kin) and no digraph ("<%", "%>", "<:", ":>", "%:");
 * - its brackets (), [] and {} are balanced and properly nested, at most
 *   256 deep, and every character or string literal closes on its line;
 * - it names no identifier that starts with clgpu_ or CLGPU_ (the
 *   library's own);
 * - line breaks and tabs are whitespace: the library joins the lines and
 *   puts the whole expression in parentheses;
 * - it is not blank, and at most 65536 bytes long.
 * An expression over the length cap gives CLGPU_EXPRESSION_TOO_LONG; any
 * other break of the rules gives CLGPU_INVALID_ARGUMENT, with a message
 * naming the argument (op->reduce, predicate, ...), the byte offset and what
 * is there. An expression that follows the rules and still does not compile
 * fails the build: CLGPU_CL_BUILD_PROGRAM_FAILURE with the compiler's log in
 * clgpu_last_error(). */
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
  const char *initial;    /* optional, see above */
  clgpu_type result_type; /* CUSTOM only */
  const char *map;        /* CUSTOM only; NULL: x */
  const char *reduce;     /* CUSTOM only */
  const char *neutral;    /* CUSTOM only */
} clgpu_reduce_op;

/* Reduce the whole array (all axes) rather than along one axis. */
#define CLGPU_ALL_AXES (-1)

/* The result type of `op` over elements of `input_type`; 0 when the pair is
 * invalid (unknown kind or type, CUSTOM without a valid result type). */
CLGPU_API clgpu_type clgpu_reduce_result_type(const clgpu_reduce_op *op, clgpu_type input_type);

/* Reduce `input`.
 * axis == CLGPU_ALL_AXES: `output` is one element (any rank, count 1) of the
 * result type.
 * axis == d (0 <= d < rank): `output` has the input's shape without
 * dimension d (or with extent 1 there), any strides, and receives the
 * reduction of each line along d.
 * Errors, with nothing enqueued and the output unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, op or arrays; unknown kind; CUSTOM
 * without reduce or neutral; initial with ARGMIN/ARGMAX; an expression that
 * breaks the rules above; an axis out of range; a wait list that does not
 * match num_events; an unknown algorithm), CLGPU_EXPRESSION_TOO_LONG (an
 * expression over 65536 bytes),
 * CLGPU_TYPE_MISMATCH (the output's type is not the result type),
 * CLGPU_SHAPE_MISMATCH, CLGPU_INVALID_OUTPUT (an output that is broadcast or
 * may overlap the input), CLGPU_UNSUPPORTED_FEATURE (double without
 * cl_khr_fp64, half without cl_khr_fp16), CLGPU_MISMATCHED_OBJECTS, the
 * workspace statuses of workspace.h, the errors of clgpu_array_check, and
 * build failures. OpenCL's codes from enqueueing: the commands enqueued
 * before the one that failed stay enqueued, but they write only scratch
 * memory (every operation of this family writes its outputs in its last
 * command), so the outputs are unchanged; no event is returned. */
CLGPU_API clgpu_status clgpu_reduce(clgpu_context *context, const clgpu_reduce_op *op,
                                    const clgpu_array *input, int axis, const clgpu_array *output,
                                    const clgpu_call_options *options, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event);

/* The workspace clgpu_reduce needs for these arguments (same checks). */
CLGPU_API clgpu_status clgpu_reduce_workspace_size(clgpu_context *context,
                                                   const clgpu_reduce_op *op,
                                                   const clgpu_array *input, int axis,
                                                   const clgpu_array *output,
                                                   const clgpu_call_options *options,
                                                   clgpu_workspace_size *out);

/* The workspace any whole-array reduction of a contiguous input of up to
 * `max_n` elements of `input_type` needs. */
CLGPU_API clgpu_status clgpu_reduce_workspace_size_upto(clgpu_context *context,
                                                        const clgpu_reduce_op *op,
                                                        clgpu_type input_type, uint64_t max_n,
                                                        const clgpu_call_options *options,
                                                        clgpu_workspace_size *out);

/* Reduce the whole array and read the result into host memory `result`
 * (result_size bytes, exactly the result type's size). Blocks until the
 * result is read; uses the workspace of `options` or allocates. */
CLGPU_API clgpu_status clgpu_reduce_read(clgpu_context *context, const clgpu_reduce_op *op,
                                         const clgpu_array *input,
                                         const clgpu_call_options *options, void *result,
                                         size_t result_size);

/* Count the elements for which `predicate` holds: an OpenCL C expression
 * over `x` and `i` as in findall.h (NULL: x != 0), under the rules of
 * "Expressions" above. `output` is one
 * CLGPU_UINT64 element. A REDUCE operation for workspaces; the size query is
 * clgpu_count_if_workspace_size. Errors as clgpu_reduce. */
CLGPU_API clgpu_status clgpu_count_if(clgpu_context *context, const clgpu_array *input,
                                      const char *predicate, const clgpu_array *output,
                                      const clgpu_call_options *options, cl_uint num_events,
                                      const cl_event *wait_list, cl_event *event);

CLGPU_API clgpu_status clgpu_count_if_workspace_size(clgpu_context *context,
                                                     const clgpu_array *input,
                                                     const char *predicate,
                                                     const clgpu_array *output,
                                                     const clgpu_call_options *options,
                                                     clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
