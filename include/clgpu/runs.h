/** @file
 * Operations over runs of equal adjacent keys: scan by key (a scan that
 * restarts at each run), reduce by key (one value per run), unique (the
 * first key of each run), unique by key (with its value) and run-length
 * encoding (each run's length and offset), as Thrust's and
 * Boost.Compute's inclusive_scan_by_key, exclusive_scan_by_key,
 * reduce_by_key, unique, unique_by_key and CUB's RunLengthEncode.
 *
 * Key concepts:
 * - Keys and values are 1-D views of the same length, of any stride.
 *   Element i starts a run when i is 0 or keys[i] is not equal to
 *   keys[i - 1]. Keys need not be sorted: equal keys that are not adjacent
 *   form separate runs (sort first, clgpu_sort_by_key, to group them).
 * - Key equality: NULL compares the keys' bits, so any built-in key type
 *   works (for floats -0 and +0 differ and a NaN equals a NaN of the same
 *   bits); or an OpenCL C expression over `a` and `b` of the key type, true
 *   when not 0 (for example "a == b" for numeric float equality, or
 *   "a / 10 == b / 10"), under the rules of docs/expressions.md. Adjacent
 *   keys only are compared, so the expression need not be an equivalence.
 * - Values are combined in element order (earlier elements are the left
 *   operand) by the operators of scan.h and reduce.h, which keep their
 *   result types, neutral elements and float rules. Float results are
 *   deterministic for a given n, shape and device.
 * - Counts and results stay on the device; calls only enqueue, with wait
 *   lists and events as in reduce.h.
 * docs/runs.md has the details: how the runs are cut into ranges, the
 *   workspace, the aliasing rules.
 *
 * The example sums values per run of keys.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_int keys[] = {7, 7, 2, 2, 2, 7};
 *     cl_float values[] = {1, 2, 3, 4, 5, 6};
 *     cl_int run_keys[6];
 *     cl_float sums[6];
 *     cl_ulong runs = 0;
 *     clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array k, v, out_keys, out_sums, count;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 128, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 6, &k);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 24, CLGPU_TYPE_FLOAT, 6, &v);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 48, CLGPU_TYPE_INT32, 6, &out_keys);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 72, CLGPU_TYPE_FLOAT, 6, &out_sums);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_1d(buffer, 96, CLGPU_TYPE_UINT64, 1, &count);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &k, keys, sizeof keys, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &v, values, sizeof values, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_reduce_by_key(context, &op, NULL, &out_keys, &out_sums, &count, &k, &v,
 *                                    NULL, 0, NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, &runs, sizeof runs, &count, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, run_keys, sizeof run_keys, &out_keys, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, sums, sizeof sums, &out_sums, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       for (cl_ulong r = 0; r < runs; r++) printf("%d: %g\n", run_keys[r], sums[r]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_RUNS_H
#define CLGPU_RUNS_H

#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Scan `values` into `output` within each run of equal adjacent `keys`
 * (key_equal: NULL for bitwise equality, or an expression over a and b).
 * op is any scan operator of scan.h: inclusive, output[i] is the
 * combination of the values from the head of i's run to i; exclusive,
 * output[i] is op's neutral element at a head and the combination up to
 * i - 1 elsewhere. The output has the values' type and length. An output
 * that is exactly the values view (clgpu_array_same) is scanned in place;
 * an input that the output may overlap in any other way is copied to the
 * workspace first ("staged_keys", "staged_values"), so the result is as if
 * through a fresh buffer. Only enqueues.
 * Errors, with nothing enqueued and the output unchanged: those of
 * clgpu_scan (an op or key_equal that breaks the rules of
 * docs/expressions.md is CLGPU_INVALID_ARGUMENT, over 65536 bytes
 * CLGPU_EXPRESSION_TOO_LONG), CLGPU_SHAPE_MISMATCH (keys, values or output
 * not 1-D, or of different lengths), CLGPU_TYPE_MISMATCH (an output not of
 * the values' type), CLGPU_UNSUPPORTED_FEATURE (double or half values
 * without the device's extension, or a key_equal over half keys without
 * cl_khr_fp16). */
CLGPU_API clgpu_status clgpu_scan_by_key(clgpu_context *context, const clgpu_scan_op *op,
                                         const char *key_equal, const clgpu_array *output,
                                         const clgpu_array *values, const clgpu_array *keys,
                                         const clgpu_call_options *options, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_scan_by_key needs for these arguments, written to
 * *out. Allocates and enqueues nothing. Errors as clgpu_scan_by_key's
 * argument checks. */
CLGPU_API clgpu_status clgpu_scan_by_key_workspace_size(
    clgpu_context *context, const clgpu_scan_op *op, const char *key_equal,
    const clgpu_array *output, const clgpu_array *values, const clgpu_array *keys,
    const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace that serves any clgpu_scan_by_key of up to max_n keys of
 * key_type and values of value_type whose inputs need no copy (out of
 * place without overlap, or in place over the values). Errors as
 * clgpu_scan_workspace_size_upto's. */
CLGPU_API clgpu_status clgpu_scan_by_key_workspace_size_upto(
    clgpu_context *context, const clgpu_scan_op *op, const char *key_equal, clgpu_type key_type,
    clgpu_type value_type, uint64_t max_n, const clgpu_call_options *options,
    clgpu_workspace_size *out);

/** Reduce `values` per run of equal adjacent `keys` (key_equal as in
 * clgpu_scan_by_key): run r's first key goes to run_keys[r] (the keys'
 * type), the reduction of its values by `op` to reduced[r] (op's result
 * type, clgpu_reduce_result_type), and the number of runs to `count` (one
 * CLGPU_TYPE_UINT64 element), which stays on the device. run_keys and
 * reduced are 1-D views of any stride and any length: runs past a view's
 * length are not written there (compare the count to the length to detect
 * it), and elements past the count are left as they were. op is any
 * reduction of reduce.h but ARGMIN and ARGMAX; an `initial` value is
 * combined once into every run's result. An input that an output may
 * overlap is copied to the workspace first ("staged_keys",
 * "staged_values"). Only enqueues; `event` completes with the three
 * outputs written.
 * Errors, with nothing enqueued and the outputs unchanged: those of
 * clgpu_reduce, CLGPU_INVALID_ARGUMENT (a NULL output; ARGMIN or ARGMAX),
 * CLGPU_SHAPE_MISMATCH (views not 1-D, keys and values of different
 * lengths, a count that is not one element), CLGPU_TYPE_MISMATCH (run_keys
 * not of the keys' type, reduced not of the result type, count not
 * UINT64), CLGPU_INVALID_OUTPUT (outputs that overlap each other or
 * themselves, or are broadcast). */
CLGPU_API clgpu_status clgpu_reduce_by_key(clgpu_context *context, const clgpu_reduce_op *op,
                                           const char *key_equal, const clgpu_array *run_keys,
                                           const clgpu_array *reduced, const clgpu_array *count,
                                           const clgpu_array *keys, const clgpu_array *values,
                                           const clgpu_call_options *options, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_reduce_by_key needs for these arguments, written to
 * *out. Allocates and enqueues nothing. Errors as clgpu_reduce_by_key's
 * argument checks. */
CLGPU_API clgpu_status clgpu_reduce_by_key_workspace_size(
    clgpu_context *context, const clgpu_reduce_op *op, const char *key_equal,
    const clgpu_array *run_keys, const clgpu_array *reduced, const clgpu_array *count,
    const clgpu_array *keys, const clgpu_array *values, const clgpu_call_options *options,
    clgpu_workspace_size *out);

/** The workspace that serves any clgpu_reduce_by_key of up to max_n keys of
 * key_type and values of value_type whose outputs overlap neither input.
 * Errors as clgpu_reduce_workspace_size_upto's. */
CLGPU_API clgpu_status clgpu_reduce_by_key_workspace_size_upto(
    clgpu_context *context, const clgpu_reduce_op *op, const char *key_equal, clgpu_type key_type,
    clgpu_type value_type, uint64_t max_n, const clgpu_call_options *options,
    clgpu_workspace_size *out);

/** The first key of each run of equal adjacent `keys` (key_equal as in
 * clgpu_scan_by_key) to run_keys[r], and the number of runs to `count`
 * (one CLGPU_TYPE_UINT64 element, on the device). run_keys is a 1-D view
 * of the keys' type, any stride and any length: runs past its length are
 * not written, elements past the count are left as they were. Any
 * built-in key type. An input an output overlaps is copied to the
 * workspace first. Only enqueues.
 * Errors, with nothing enqueued and the outputs unchanged:
 * CLGPU_INVALID_ARGUMENT (NULL context, keys, run_keys or count; a
 * key_equal that breaks the rules of docs/expressions.md; a wait list that
 * does not match), CLGPU_EXPRESSION_TOO_LONG, CLGPU_SHAPE_MISMATCH (views
 * not 1-D, a count that is not one element), CLGPU_TYPE_MISMATCH (run_keys
 * not of the keys' type, count not UINT64), CLGPU_INVALID_OUTPUT (outputs
 * that overlap each other or themselves, or are broadcast),
 * CLGPU_UNSUPPORTED_FEATURE (a key_equal over half or double keys without
 * the device's extension), CLGPU_MISMATCHED_OBJECTS, the workspace
 * statuses of workspace.h, the errors of clgpu_array_check, build
 * failures. */
CLGPU_API clgpu_status clgpu_unique(clgpu_context *context, const char *key_equal,
                                    const clgpu_array *run_keys, const clgpu_array *count,
                                    const clgpu_array *keys, const clgpu_call_options *options,
                                    cl_uint num_events, const cl_event *wait_list, cl_event *event);

/** clgpu_unique, and the value at each run's first key to run_values[r] (a
 * 1-D view of the values' type, any stride and length, as run_keys).
 * Values are moved as bits: any built-in type, half and double without
 * their extensions. Errors as clgpu_unique's, and CLGPU_INVALID_ARGUMENT
 * for NULL values or run_values, CLGPU_SHAPE_MISMATCH for keys and values
 * of different lengths, CLGPU_TYPE_MISMATCH for run_values not of the
 * values' type. */
CLGPU_API clgpu_status clgpu_unique_by_key(clgpu_context *context, const char *key_equal,
                                           const clgpu_array *run_keys,
                                           const clgpu_array *run_values, const clgpu_array *count,
                                           const clgpu_array *keys, const clgpu_array *values,
                                           const clgpu_call_options *options, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event);

/** Run-length encoding of `keys`: run r's first key to run_keys[r], its
 * number of elements to lengths[r], the index of its first element to
 * offsets[r], and the number of runs to `count` (as clgpu_unique). Any of
 * run_keys, lengths and offsets may be NULL (not written); lengths and
 * offsets are 1-D views of CLGPU_TYPE_UINT32 (keys of at most 2^32 - 1
 * elements) or CLGPU_TYPE_UINT64, any stride and length. Errors as
 * clgpu_unique's, and CLGPU_TYPE_MISMATCH for lengths or offsets of
 * another type, or uint for more keys than it counts. */
CLGPU_API clgpu_status clgpu_run_length_encode(
    clgpu_context *context, const char *key_equal, const clgpu_array *run_keys,
    const clgpu_array *lengths, const clgpu_array *offsets, const clgpu_array *count,
    const clgpu_array *keys, const clgpu_call_options *options, cl_uint num_events,
    const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_unique (values and run_values NULL) or
 * clgpu_unique_by_key needs for these arguments, written to *out.
 * Allocates and enqueues nothing. Errors as the call's argument checks.
 * clgpu_unique in the CHUNKED shape (CPU devices) over keys cut into
 * ranges needs n keys more ("packed": each range's run keys before they
 * are moved to run_keys, so that the keys are read once); otherwise the
 * workspace is a few values per range plus any staged copies. */
CLGPU_API clgpu_status clgpu_unique_workspace_size(
    clgpu_context *context, const char *key_equal, const clgpu_array *run_keys,
    const clgpu_array *run_values, const clgpu_array *count, const clgpu_array *keys,
    const clgpu_array *values, const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace clgpu_run_length_encode needs for these arguments. */
CLGPU_API clgpu_status clgpu_run_length_encode_workspace_size(
    clgpu_context *context, const char *key_equal, const clgpu_array *run_keys,
    const clgpu_array *lengths, const clgpu_array *offsets, const clgpu_array *count,
    const clgpu_array *keys, const clgpu_call_options *options, clgpu_workspace_size *out);

/** The workspace that serves any clgpu_unique (value_type 0) or
 * clgpu_unique_by_key (values of value_type) of up to max_n keys of
 * key_type whose outputs overlap no input. Errors as
 * clgpu_scan_workspace_size_upto's. */
CLGPU_API clgpu_status clgpu_unique_workspace_size_upto(clgpu_context *context,
                                                        const char *key_equal, clgpu_type key_type,
                                                        clgpu_type value_type, uint64_t max_n,
                                                        const clgpu_call_options *options,
                                                        clgpu_workspace_size *out);

/** The workspace that serves any clgpu_run_length_encode of up to max_n
 * keys of key_type whose outputs overlap the keys nowhere, whatever the
 * lengths' and offsets' types. */
CLGPU_API clgpu_status clgpu_run_length_encode_workspace_size_upto(
    clgpu_context *context, const char *key_equal, clgpu_type key_type, uint64_t max_n,
    const clgpu_call_options *options, clgpu_workspace_size *out);

#ifdef __cplusplus
}
#endif

#endif
