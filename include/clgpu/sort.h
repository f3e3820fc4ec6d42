/* Sorting: stable radix sort and merge sort of keys, with or without values
 * carried along, the sort permutation (argsort), and applying a permutation
 * to further arrays (gather).
 *
 * Every sort is stable: keys that compare equal keep their original order,
 * in descending sorts too (a descending sort orders by an inverted key, it
 * does not reverse an ascending result).
 *
 * Order of the built-in types. Integers sort by value. Floats (half, float,
 * double) sort by an order-preserving transform of their bits, the same in
 * radix and merge sort: -inf < negative numbers < -0 < +0 < positive
 * numbers < +inf < NaN. -0 sorts before +0 (they are not equal here), and
 * every NaN, whatever its sign bit, sorts after +inf, NaNs among themselves
 * by their bits with the sign bit cleared (so a NaN and the same NaN with
 * the sign bit set are equal and keep their order). A descending sort is
 * the exact reverse order: NaNs first, then +inf, ..., +0, -0, ..., -inf.
 *
 * Algorithms (clgpu_sort_options.algorithm):
 * - CLGPU_ALGORITHM_RADIX: LSD radix sort of the built-in key types in their
 *   natural order. Passes over digits of the key's ordered image; a pass in
 *   which every key has the same digit is found on the device and skipped
 *   (no data moves in it). Optionally only bits [begin_bit, end_bit) of the
 *   ordered image take part. Half keys sort by their 16 bits as above (no
 *   cl_khr_fp16 needed).
 * - CLGPU_ALGORITHM_MERGE: merge sort with merge-path partitioning (every
 *   work-item merges the same number of elements whatever the data), for
 *   the built-in types or for any key type declared in OpenCL C, with the
 *   natural order or a comparator expression.
 * - CLGPU_ALGORITHM_AUTO: RADIX for a built-in key type with no comparator,
 *   MERGE otherwise.
 * The kernel shape (clgpu_sort_options.shape) is CHUNKED (the CPU shape:
 * work-groups of one work-item over long chunks) or TILED (the GPU shape:
 * wide work-groups and local memory); AUTO picks CHUNKED on CPU devices.
 * Both shapes give the same, bit-identical results everywhere. The tiled
 * radix sort uses no atomics at all, so it runs where local atomics are
 * missing or slow; its digit width and work-group size follow from the
 * device's work-group and local-memory limits.
 *
 * Views. Keys (and values) are 1-D views. A contiguous view is sorted where
 * it is; a strided one (any stride, negative too) is packed into the
 * workspace buffer "staged_keys" ("staged_values"), sorted there and
 * written back. Keys and values must not overlap, and a key view with
 * stride 0 (broadcast) is refused.
 *
 * Values. A values view carries byte_length / n bytes per key, where
 * byte_length is its element count times its element size: 1, 2, 4, 8 or
 * 16 bytes (a CLGPU_UINT64 view of 2n elements carries 16-byte values). The
 * bytes move with their key and are never interpreted.
 *
 * Custom keys (merge sort only). `key_type` names an OpenCL C type, which
 * `declarations` may declare (a struct typedef, helper functions), and
 * `key_size` gives its size in bytes on the device (sizeof). The keys view
 * may then be of any element type: it is read as byte_length / key_size
 * keys, and byte_length must be a multiple of key_size. `compare` is an
 * OpenCL C expression over two keys `a` and `b` of that type, true when `a`
 * must come before `b` (a strict weak order, like C++'s operator<); with a
 * built-in key type and no comparator the order above is used.
 *
 * The texts are checked before anything is built. `compare` follows the
 * rules of "Expressions" in reduce.h (one expression, brackets balanced, no
 * ';', comment or '#', no identifier starting with clgpu_ or CLGPU_, line
 * breaks as whitespace, at most 65536 bytes). `key_type` is a type name:
 * words of letters, digits and '_' separated by blanks ("point", "float4",
 * "unsigned int"), at most 65536 bytes. `declarations` is file-scope OpenCL
 * C: brackets balanced, literals and comments closed, ';' allowed, no
 * preprocessor line but #pragma (no #include, #define or #if), no trigraph,
 * digraph or backslash at the end of a line, no identifier starting with
 * clgpu_ or CLGPU_, at most 1048576 bytes. A text over its cap gives
 * CLGPU_EXPRESSION_TOO_LONG, any other break CLGPU_INVALID_ARGUMENT naming
 * the field, the byte offset and what is there. A comparator that passes
 * and does not compile gives CL_BUILD_PROGRAM_FAILURE with the compiler's
 * log in clgpu_last_error().
 *
 * Workspaces follow workspace.h. A sort's report has two parts: part 0 is
 * (CLGPU_OPERATION_SORT, RADIX or MERGE), part 1 is (CLGPU_OPERATION_SORT,
 * CHUNKED or TILED, parent 0), so a workspace made for one algorithm or
 * shape is refused by a call that resolves to the other with
 * CLGPU_WORKSPACE_WRONG_ALGORITHM. Its buffers, always listed in this
 * order: "staged_keys" and "staged_values" (copies of views that cannot be
 * sorted where they are, and the keys' copy of a sort permutation),
 * "keys_alternate" and "values_alternate" (the other half of the
 * ping-pong: n * (k + v) bytes for k-byte keys and v-byte values),
 * "counts" (digit counts per group and pass, radix sorts past the
 * single-group size only) and "pass_state" (where the keys are after each
 * radix pass). A sort permutation's report has the same buffers, so one
 * workspace can serve clgpu_sort and clgpu_sort_permutation when it is
 * large enough for both.
 *
 * Asynchronous: every pass is enqueued on the context's queue behind the
 * wait list; nothing is read back to the host to decide anything. The
 * caller's event, when asked for, completes when the sorted keys (and
 * values) are in place. A failing call has enqueued nothing and changed
 * nothing; a failure while enqueueing (the device refusing a command) may
 * leave the keys partly permuted, as reduce.h says for its calls. */
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

/* What order a sort produces. Zeroed: ascending, natural order, all bits. */
typedef struct clgpu_sort_spec {
  int descending; /* nonzero: largest first (still stable) */
  /* Merge sort only; NULL for the natural order of a built-in type. */
  const char *compare;      /* OpenCL C expression over a and b: a sorts before b */
  const char *key_type;     /* OpenCL C type of custom keys, or NULL */
  const char *declarations; /* OpenCL C text declaring key_type and helpers, or NULL */
  size_t key_size;          /* bytes of one custom key; required with key_type */
  /* Radix sort only: sort by bits [begin_bit, end_bit) of the ordered image
   * of the key (bit 0 the lowest); 0 and 0 mean every bit. Keys equal in
   * those bits keep their order. */
  unsigned begin_bit, end_bit;
} clgpu_sort_spec;

/* How a sort runs; NULL (or a zeroed struct) means AUTO, AUTO, no
 * workspace. */
typedef struct clgpu_sort_options {
  clgpu_algorithm algorithm;  /* AUTO, CLGPU_ALGORITHM_RADIX or CLGPU_ALGORITHM_MERGE */
  clgpu_algorithm shape;      /* AUTO, CLGPU_ALGORITHM_CHUNKED or CLGPU_ALGORITHM_TILED */
  clgpu_workspace *workspace; /* NULL: the call allocates what it needs */
} clgpu_sort_options;

/* Sort `keys` in place, stably, carrying `values` (NULL for keys only)
 * along. spec NULL means ascending in the natural order. Errors:
 * CLGPU_INVALID_ARGUMENT (NULL context or keys, an unknown algorithm or
 * shape, a bit range outside the key, a comparator or custom key type with
 * RADIX, key_type without key_size, a compare, key_type or declarations
 * text that breaks the rules above, a wait list that does not match its
 * count), CLGPU_EXPRESSION_TOO_LONG (a text over its length cap),
 * CLGPU_SHAPE_MISMATCH (a view that is not 1-D, values whose byte
 * length is not n times 1, 2, 4, 8 or 16, custom keys whose byte length is
 * not a multiple of key_size), CLGPU_INVALID_OUTPUT (keys with stride 0,
 * keys and values that may overlap), CLGPU_MISMATCHED_OBJECTS (a buffer of
 * another OpenCL context), CLGPU_MISALIGNED_VIEW (custom keys that do not
 * start at a multiple of the largest power of two, up to 16, dividing
 * key_size), CLGPU_UNSUPPORTED_FEATURE (a comparator over double keys
 * without cl_khr_fp64, or over half keys without cl_khr_fp16; the natural
 * order of every built-in type needs neither, it works on the bits), the
 * workspace errors of workspace.h, the checks of clgpu_array_check,
 * OpenCL's errors (a comparator's build log). A values view whose offset is
 * not aligned to its value size (up to 4 bytes) is staged through
 * "staged_values" like a strided one. */
CLGPU_API clgpu_status clgpu_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const clgpu_sort_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

/* The workspace clgpu_sort needs for these arguments (nothing is enqueued).
 * Errors as clgpu_sort's argument checks. */
CLGPU_API clgpu_status clgpu_sort_workspace_size(clgpu_context *context,
                                                 const clgpu_sort_spec *spec,
                                                 const clgpu_array *keys,
                                                 const clgpu_array *values,
                                                 const clgpu_sort_options *options,
                                                 clgpu_workspace_size *out);

/* Any sort of up to max_n contiguous keys of `key_type` (ignored with a
 * custom spec->key_type: spec->key_size counts) with value_size bytes of
 * values per key (0: keys only). */
CLGPU_API clgpu_status clgpu_sort_workspace_size_upto(clgpu_context *context,
                                                      const clgpu_sort_spec *spec,
                                                      clgpu_type key_type, size_t value_size,
                                                      uint64_t max_n,
                                                      const clgpu_sort_options *options,
                                                      clgpu_workspace_size *out);

/* The stable permutation that sorts `keys`, written to `permutation`
 * (CLGPU_UINT32 or CLGPU_UINT64, 1-D, n elements, any stride): keys
 * [permutation[0]], keys[permutation[1]], ... are in sorted order, and equal
 * keys appear in increasing index order. The keys are not modified: they
 * are copied into the workspace ("staged_keys") and sorted there with their
 * indices. The permutation must not overlap the keys. Errors as
 * clgpu_sort's, and CLGPU_TYPE_MISMATCH (another permutation type, or
 * CLGPU_UINT32 for more than 2^32 - 1 keys), CLGPU_SHAPE_MISMATCH (a
 * permutation of another length). */
CLGPU_API clgpu_status clgpu_sort_permutation(clgpu_context *context, const clgpu_sort_spec *spec,
                                              const clgpu_array *keys,
                                              const clgpu_array *permutation,
                                              const clgpu_sort_options *options,
                                              cl_uint num_events, const cl_event *wait_list,
                                              cl_event *event);

CLGPU_API clgpu_status clgpu_sort_permutation_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *keys,
    const clgpu_array *permutation, const clgpu_sort_options *options, clgpu_workspace_size *out);

/* Any permutation of up to max_n keys of `key_type` (or custom keys) into a
 * permutation of `permutation_type` (CLGPU_UINT32 or CLGPU_UINT64). */
CLGPU_API clgpu_status clgpu_sort_permutation_workspace_size_upto(
    clgpu_context *context, const clgpu_sort_spec *spec, clgpu_type key_type,
    clgpu_type permutation_type, uint64_t max_n, const clgpu_sort_options *options,
    clgpu_workspace_size *out);

/* destination[i] = source[permutation[i]] for every i of the permutation:
 * applies a sort permutation to another array. All three are 1-D views of
 * any strides; source and destination have the same element type (or the
 * same element size: the bytes are copied), destination has the
 * permutation's length, and source may be of any length. An index at or
 * past the source's length reads nothing and leaves destination[i] as it
 * was (the device cannot report it without a host wait). The destination
 * must not overlap the source or the permutation. No workspace is needed.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_TYPE_MISMATCH (a permutation that
 * is not CLGPU_UINT32 or CLGPU_UINT64, element sizes that differ),
 * CLGPU_SHAPE_MISMATCH, CLGPU_INVALID_OUTPUT (overlap, a broadcast
 * destination), CLGPU_MISMATCHED_OBJECTS, the checks of clgpu_array_check,
 * OpenCL's errors. */
CLGPU_API clgpu_status clgpu_gather(clgpu_context *context, const clgpu_array *permutation,
                                    const clgpu_array *source, const clgpu_array *destination,
                                    cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
