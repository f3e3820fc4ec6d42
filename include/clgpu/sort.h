/** @file
 * Sorting: stable sorts of keys, with or without values carried along
 * (clgpu_sort), the permutation that sorts keys (clgpu_sort_permutation), and
 * applying a permutation to another array (clgpu_gather).
 *
 * Key concepts:
 * - Every sort is stable, descending ones too. Integers sort by value, floats
 *   by their bits: -inf < ... < -0 < +0 < ... < +inf < NaN (every NaN last).
 * - Algorithms (clgpu_sort_options.algorithm): RADIX for built-in key types in
 *   their natural order; MERGE for any key type, custom OpenCL C key types and
 *   comparator expressions; AUTO picks RADIX when it can. The shape (CHUNKED,
 *   the CPU shape, or TILED, the GPU shape; AUTO by device type) never changes
 *   the result.
 * - Keys of a built-in type and values are 1-D views of any stride; a view
 *   that cannot be sorted where it is goes through the workspace
 *   (workspace.h) and is written back. Custom keys (spec->key_type) are a
 *   contiguous view.
 * - Calls only enqueue: every pass goes on the context's queue behind the wait
 *   list, and nothing is read back to decide anything. A call that fails its
 *   checks has enqueued nothing and changed nothing.
 * docs/sort.md has the details: the exact float order, how the algorithms run,
 * custom keys, the rules for the OpenCL C texts and the workspace's buffers.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     cl_uint host[] = {3, 1, 2, 1};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array keys;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 4, &keys);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &keys, host, sizeof host, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_sort(context, NULL, &keys, NULL, NULL, 0, NULL, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_read(context, host, sizeof host, &keys, 0, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%u %u %u %u\n", host[0], host[1], host[2], host[3]);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_SORT_H
#define CLGPU_SORT_H

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

/** What order a sort produces. Zeroed: ascending, natural order, all bits. */
typedef struct clgpu_sort_spec {
  int descending; /**< nonzero: largest first (still stable) */
  /** Merge sort only; NULL for the natural order of a built-in type. */
  /** OpenCL C expression over a and b: a sorts before b. It must be a strict
   * weak order (as C++'s operator<); "a < b" over floats that may hold NaNs
   * is not one. Under such a comparator the order is not defined and, past
   * one block of the merge sort (docs/sort.md), the keys that come back need
   * not even be the keys given. */
  const char *compare;
  const char *key_type;     /**< OpenCL C type of custom keys, or NULL */
  const char *declarations; /**< OpenCL C text declaring key_type and helpers, or NULL */
  size_t key_size;          /**< the device's sizeof(key_type); required with key_type */
  /** Radix sort only: sort by bits [begin_bit, end_bit) of the ordered image
   * of the key (bit 0 the lowest); 0 and 0 mean every bit. Keys equal in
   * those bits keep their order. */
  unsigned begin_bit, end_bit;
} clgpu_sort_spec;

/** How a sort runs; NULL (or a zeroed struct) means AUTO, AUTO, no
 * workspace, the context's queue. Zero the whole struct before setting
 * fields, as clgpu_call_options. */
typedef struct clgpu_sort_options {
  clgpu_algorithm algorithm;  /**< CLGPU_ALGORITHM_AUTO, _RADIX or _MERGE */
  clgpu_shape shape;          /**< CLGPU_SHAPE_AUTO, _CHUNKED or _TILED */
  /** NULL: the call allocates what it needs and releases it, every call
   * anew. On a CPU device the fresh memory's pages are then touched for
   * the first time by each call (a 16M uint32 sort with values: 45-65 ms
   * more, docs/sort.md); repeated sorts keep that off with a workspace
   * (workspace.h) or a cache scope (alloc.h). */
  clgpu_workspace *workspace;
  cl_command_queue queue; /**< NULL: the context's; as clgpu_call_options.queue */
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_sort_options;

/** Sort `keys` in place, stably, carrying `values` (NULL for keys only)
 * along; spec NULL means ascending in the natural order. A values view carries
 * byte_length / n bytes per key (1, 2, 4, 8 or 16), moved with their key and
 * never interpreted. Custom keys (merge sort only): the keys view is read as
 * byte_length / spec->key_size keys of spec->key_type, and key_size must be
 * the device's sizeof(key_type) (a float3 takes 16 bytes there), which every
 * call checks before enqueueing anything. Neither view is retained.
 *
 * Only enqueues; `event` (if not NULL) completes when keys and values are in
 * place. A failing check enqueues nothing; a failure while enqueueing may
 * leave the keys partly permuted.
 * Returns CLGPU_SUCCESS, or: CLGPU_INVALID_ARGUMENT (NULL context or keys, an
 * unknown algorithm or shape, a bit range outside the key, a comparator or
 * custom key type with RADIX, key_type without key_size, a compare, key_type
 * or declarations text that breaks the rules of docs/sort.md, a wait list
 * that does not match its count, a key_size that is not the device's
 * sizeof(key_type): the message gives both), CLGPU_EXPRESSION_TOO_LONG (a
 * text over its length cap), CLGPU_SHAPE_MISMATCH (a view that is not 1-D,
 * values whose byte length is not n times 1, 2, 4, 8 or 16, custom keys that
 * are not contiguous or whose byte length is not a multiple of key_size),
 * CLGPU_TYPE_MISMATCH (keys of CLGPU_TYPE_OPAQUE without spec->key_type:
 * opaque bytes have no order of their own), CLGPU_INVALID_OUTPUT (keys with
 * stride 0, keys and values that may overlap), CLGPU_MISMATCHED_OBJECTS (a
 * buffer of another OpenCL context), CLGPU_MISALIGNED_VIEW (custom keys that
 * do not start at a multiple of the largest power of two, up to 16, dividing
 * key_size), CLGPU_UNSUPPORTED_FEATURE (a comparator over double keys without
 * cl_khr_fp64, or over half keys without cl_khr_fp16; natural orders need
 * neither), the workspace statuses of workspace.h, the errors of
 * clgpu_array_check, and OpenCL's codes (a comparator that does not compile:
 * CL_BUILD_PROGRAM_FAILURE, its log in clgpu_last_error()). */
CLGPU_API clgpu_status clgpu_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const clgpu_sort_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_sort needs for these arguments, written to *out.
 * Builds and enqueues nothing (so key_size is not checked against the
 * device). Errors as clgpu_sort's argument checks, and CLGPU_SIZE_OVERFLOW
 * (workspace.h). */
CLGPU_API clgpu_status clgpu_sort_workspace_size(clgpu_context *context,
                                                 const clgpu_sort_spec *spec,
                                                 const clgpu_array *keys,
                                                 const clgpu_array *values,
                                                 const clgpu_sort_options *options,
                                                 clgpu_workspace_size *out);

/** The workspace that serves any sort of up to max_n contiguous keys of
 * `key_type` (ignored with a custom spec->key_type: spec->key_size counts)
 * with value_size bytes of values per key (0: keys only). Builds and enqueues
 * nothing. Errors: CLGPU_INVALID_ARGUMENT (NULL context or out, a value_size
 * other than 0, 1, 2, 4, 8 or 16, and the spec and options checks of
 * clgpu_sort), CLGPU_UNSUPPORTED_FEATURE, CLGPU_SIZE_OVERFLOW (a report that
 * cannot be represented, workspace.h: max_n keys and values whose bytes, or
 * digit counts, pass 2^64 - 1, or a merge sort of more than 2^63 keys). */
CLGPU_API clgpu_status clgpu_sort_workspace_size_upto(clgpu_context *context,
                                                      const clgpu_sort_spec *spec,
                                                      clgpu_type key_type, size_t value_size,
                                                      uint64_t max_n,
                                                      const clgpu_sort_options *options,
                                                      clgpu_workspace_size *out);

/** Write to `permutation` (CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64, 1-D, n elements,
 * any stride) the stable permutation that sorts `keys`: keys[permutation[0]],
 * keys[permutation[1]], ... are in order, equal keys in increasing index
 * order. The keys are not modified: they are copied into the workspace
 * ("staged_keys") and sorted there with their indices, or, where the sort
 * moves 4-byte keys with uint32 indices as pairs (docs/sort.md) and the
 * keys are contiguous, read where they are by the sort's commands, so that
 * they must not change until the call's event completes (a buffer the
 * kernels may only read, CL_MEM_READ_ONLY, serves). The permutation must
 * not overlap the keys. Only enqueues, as clgpu_sort.
 * Errors as clgpu_sort's, and CLGPU_TYPE_MISMATCH (another permutation type,
 * or CLGPU_TYPE_UINT32 for more than 2^32 - 1 keys), CLGPU_SHAPE_MISMATCH (a
 * permutation of another length). */
CLGPU_API clgpu_status clgpu_sort_permutation(clgpu_context *context, const clgpu_sort_spec *spec,
                                              const clgpu_array *permutation,
                                              const clgpu_array *keys,
                                              const clgpu_sort_options *options, cl_uint num_events,
                                              const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_sort_permutation needs for these arguments, written
 * to *out; builds and enqueues nothing. Its buffers are those of clgpu_sort's
 * report, so one workspace can serve both calls when large enough for both.
 * Errors as clgpu_sort_permutation's argument checks, and
 * CLGPU_SIZE_OVERFLOW. */
CLGPU_API clgpu_status clgpu_sort_permutation_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *permutation,
    const clgpu_array *keys, const clgpu_sort_options *options, clgpu_workspace_size *out);

/** The workspace that serves any permutation of up to max_n keys of
 * `key_type` (or custom keys) into a permutation of `permutation_type`
 * (CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64). Errors as clgpu_sort_workspace_size_upto's
 * (the keys are staged, so their bytes count twice), and
 * CLGPU_TYPE_MISMATCH for another permutation type. */
CLGPU_API clgpu_status clgpu_sort_permutation_workspace_size_upto(
    clgpu_context *context, const clgpu_sort_spec *spec, clgpu_type permutation_type,
    clgpu_type key_type, uint64_t max_n, const clgpu_sort_options *options,
    clgpu_workspace_size *out);

/** Sort `keys` (and `values` with them, as clgpu_sort does) within each
 * segment: `offsets` holds S + 1 positions (a 1-D CLGPU_TYPE_UINT32 or
 * CLGPU_TYPE_UINT64 view of any stride, S >= 0), segment k being the keys
 * [offsets[k], offsets[k + 1]), so offsets[0] = 0 and offsets[S] = n cover
 * every key, and empty segments (equal offsets) are allowed. Keys outside
 * every segment (before offsets[0], from offsets[S] on) stay where they
 * are. Each segment is sorted stably in the order of `spec` (NULL:
 * ascending, natural; every bit of the key, no bit range), by one of two
 * paths that give the same result:
 * - merging: blocks of a few keys from each segment's start are sorted by
 *   insertion, then runs are merged in pairs within their segment, as many
 *   passes as the longest segment needs (found on the device; the host
 *   never waits). Many short segments cost one pass over the keys; one
 *   segment of n keys costs a merge sort of n.
 * - radix, for built-in keys in their natural order: each key's ordered
 *   image, segment number and position are radix sorted, segment number
 *   first, image next, stably, and the keys and values are gathered into
 *   place. Its passes depend on the key's width and on S, not on the
 *   segments' lengths.
 * CLGPU_ALGORITHM_MERGE merges; CLGPU_ALGORITHM_RADIX takes the radix path
 * (built-in keys without a comparator only); AUTO takes the radix path for
 * built-in keys in their natural order when the segments hold at least
 * 4096 keys on average (n / S) and a key's image, segment number and
 * position fit in 64 bits together (keys of up to 4 bytes: 8 times the
 * key's bytes, plus the bits of n - 1 and of S + 1), and merges otherwise.
 * The host chooses from n and S alone. Offsets must be ascending and at most n; offsets that
 * are not give keys in an order that means nothing, but the sort never
 * reads or writes outside the keys, values and offsets. Keys, values, spec,
 * options and workspace are as clgpu_sort's (custom keys and comparators
 * included); the offsets must not overlap the keys or the values, and are
 * not retained. Only enqueues. Errors as clgpu_sort's (a comparator or a
 * custom key type with RADIX included), and CLGPU_INVALID_ARGUMENT (NULL
 * offsets, a bit range in spec), CLGPU_TYPE_MISMATCH (offsets not uint or
 * ulong), CLGPU_SHAPE_MISMATCH (offsets not 1-D or empty),
 * CLGPU_INVALID_OUTPUT (keys or values that may overlap the offsets),
 * CLGPU_SIZE_OVERFLOW (RADIX with more keys and segments than a position
 * and a segment number hold in one 64-bit word: bits of n - 1 and of S + 1
 * together past 64). docs/sort.md has the details. */
CLGPU_API clgpu_status clgpu_segmented_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                            const clgpu_array *keys, const clgpu_array *values,
                                            const clgpu_array *offsets,
                                            const clgpu_sort_options *options, cl_uint num_events,
                                            const cl_event *wait_list, cl_event *event);

/** The workspace clgpu_segmented_sort needs for these arguments, written to
 * *out: that of the path the call takes. Its part's algorithm is RADIX
 * where the keys may take the radix path (built-in keys in their natural
 * order, with AUTO or RADIX), whichever path this call takes, and MERGE
 * where they are only merged; a workspace of one is refused by a call of
 * the other (CLGPU_WORKSPACE_WRONG_ALGORITHM). Builds and enqueues
 * nothing. Errors as its argument checks. */
CLGPU_API clgpu_status clgpu_segmented_sort_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *keys,
    const clgpu_array *values, const clgpu_array *offsets, const clgpu_sort_options *options,
    clgpu_workspace_size *out);

/** The workspace that serves any segmented sort of up to max_n keys of
 * `key_type` (or custom keys), each with value_size bytes of values (0:
 * none), in up to max_segments segments, keys and values contiguous, on
 * whichever path it takes. Errors as clgpu_sort_workspace_size_upto's,
 * and CLGPU_INVALID_ARGUMENT for a bit range. */
CLGPU_API clgpu_status clgpu_segmented_sort_workspace_size_upto(
    clgpu_context *context, const clgpu_sort_spec *spec, clgpu_type key_type, size_t value_size,
    uint64_t max_n, uint64_t max_segments, const clgpu_sort_options *options,
    clgpu_workspace_size *out);

/** destination[i] = source[permutation[i]] for every i: applies a sort
 * permutation to another array. All three are 1-D views of any strides;
 * source and destination have the same element size (the bytes are copied),
 * destination has the permutation's length, source any length. An index at
 * or past the source's length reads nothing and leaves destination[i] as it
 * was (the device cannot report it without a host wait). The destination must
 * not overlap the source or the permutation. No workspace. Only enqueues.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_TYPE_MISMATCH (a permutation that is
 * not CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64, element sizes that differ),
 * CLGPU_SHAPE_MISMATCH, CLGPU_INVALID_OUTPUT (overlap, a broadcast
 * destination), CLGPU_MISMATCHED_OBJECTS, the errors of clgpu_array_check,
 * OpenCL's codes. */
CLGPU_API clgpu_status clgpu_gather(clgpu_context *context, const clgpu_array *destination,
                                    const clgpu_array *source, const clgpu_array *permutation,
                                    cl_uint num_events, const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
