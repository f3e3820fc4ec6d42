/** @file
 * Arrays over cl_mem: views, their memory location, and alias detection.
 *
 * An array is a view: a cl_mem, the byte offset of element (0, ..., 0), an
 * element type, a rank up to CLGPU_MAX_RANK, a shape, and strides counted in
 * elements (any sign; 0 broadcasts). Views are plain values: copying the
 * struct copies the view, never the memory, and deriving a view (slicing,
 * reshaping, permuting, reinterpreting, broadcasting) makes a new view over
 * the same memory. A view holds no reference to its buffer: the caller keeps
 * the cl_mem alive while views of it are used.
 *
 * Every constructor and derivation checks the result against the buffer
 * (except the two short forms, clgpu_array_of and clgpu_array_of_strided,
 * which return the view by value and leave the check to its first use):
 * every byte the view can reach, negative strides included, lies inside
 * CL_MEM_SIZE (with overflow-checked arithmetic), and the offset is a
 * multiple of the element size. Operations check their views again when
 * called (clgpu_array_check), since a view is a struct the caller can edit.
 * Whether the device supports the element type (half needs cl_khr_fp16,
 * double cl_khr_fp64) is checked by operations, which know the device. No
 * function here enqueues anything or blocks; they only query the buffer.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     size_t shape[2] = {3, 4};
 *     clgpu_slice rows[2] = {{.start = 0, .stop = CLGPU_SLICE_END, .step = 2}, CLGPU_SLICE_ALL};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array matrix, every_other_row, transposed;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 12 * sizeof(cl_float), &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_nd(buffer, 0, CLGPU_TYPE_FLOAT, 2, shape, CLGPU_ORDER_ROW_MAJOR,
 *                               &matrix);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_slice(&matrix, rows, &every_other_row);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_transpose(&matrix, &transposed);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%zu x %zu, contiguous: %d, aliases the matrix: %d\n", transposed.shape[0],
 *              transposed.shape[1], clgpu_array_is_contiguous(&transposed),
 *              clgpu_may_alias(&transposed, &every_other_row));
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_ARRAY_H
#define CLGPU_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLGPU_MAX_RANK 8

/** Element types. 0 is not a type, so a zeroed view is invalid. */
typedef enum clgpu_type {
  CLGPU_TYPE_INT8 = 1,
  CLGPU_TYPE_UINT8,
  CLGPU_TYPE_INT16,
  CLGPU_TYPE_UINT16,
  CLGPU_TYPE_INT32,
  CLGPU_TYPE_UINT32,
  CLGPU_TYPE_INT64,
  CLGPU_TYPE_UINT64,
  CLGPU_TYPE_HALF, /**< storage only (vload_half/vstore_half); needs cl_khr_fp16 for arithmetic */
  CLGPU_TYPE_FLOAT,
  CLGPU_TYPE_DOUBLE, /**< needs cl_khr_fp64 */
  /** Opaque bytes: one byte per element, moved and never interpreted. For
   * data the library has no type for: custom sort keys and values (a view
   * of n keys of 12 bytes is 12 * n elements), records to copy, gather,
   * fill byte-wise or transfer. Copies, fills, transfers, gathers and sorts
   * with a custom key_type take it; every operation that computes on
   * elements (elementwise, convert, axpby, compare, iota, reduce, count_if,
   * scan, findall, a sort in the natural order) refuses it with
   * CLGPU_TYPE_MISMATCH. Its OpenCL C name is "uchar". */
  CLGPU_TYPE_OPAQUE,
} clgpu_type;

/** Bytes per element (1, 2, 4 or 8); 0 for a value that is not a type. */
CLGPU_API size_t clgpu_type_size(clgpu_type type);

/** The OpenCL C name of the type ("char", "uchar", ..., "long", "ulong",
 * "half", "float", "double"); "invalid" for a value that is not a type. */
CLGPU_API const char *clgpu_type_cl_name(clgpu_type type);

/** Layout of the elements of a contiguous N-D array. */
typedef enum clgpu_order {
  CLGPU_ORDER_ROW_MAJOR = 0,    /**< last index varies fastest (C) */
  CLGPU_ORDER_COLUMN_MAJOR = 1, /**< first index varies fastest (Fortran) */
} clgpu_order;

/** A view. Fill it only through the constructors and derivations below; its
 * fields are public so that operations and callers can read them. */
typedef struct clgpu_array {
  cl_mem buffer; /**< not retained */
  size_t offset; /**< bytes from the start of buffer to element (0, ..., 0) */
  clgpu_type type;
  unsigned rank; /**< 0 (one element) to CLGPU_MAX_RANK */
  size_t shape[CLGPU_MAX_RANK];
  ptrdiff_t strides[CLGPU_MAX_RANK]; /**< in elements */
} clgpu_array;

/* ---- constructors ---- */

/** A contiguous 1-D view of n elements starting `offset` bytes into `buffer`.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL buffer or out, unknown type),
 * CLGPU_MISALIGNED_VIEW (offset not a multiple of the element size),
 * CLGPU_VIEW_OUT_OF_BOUNDS (the elements reach past CL_MEM_SIZE, or the
 * extent overflows), OpenCL's codes from querying the buffer. On failure *out
 * is unchanged. */
CLGPU_API clgpu_status clgpu_array_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                                      clgpu_array *out);

/** The short forms: a contiguous 1-D view of n elements from the buffer's
 * start (clgpu_array_of), or n elements `stride` elements apart from byte
 * `offset` (clgpu_array_of_strided; a negative stride walks backwards from
 * `offset`, 0 repeats one element), returned by value:
 *
 *   clgpu_array x = clgpu_array_of(buffer, CLGPU_TYPE_FLOAT, n);
 *
 * They check nothing and query nothing, so they cannot fail: a NULL
 * buffer, an unknown type, a misaligned offset or elements past the
 * buffer's end are found where the view is used, since every operation and
 * clgpu_array_check check their views. */
CLGPU_API clgpu_array clgpu_array_of(cl_mem buffer, clgpu_type type, size_t n);
CLGPU_API clgpu_array clgpu_array_of_strided(cl_mem buffer, size_t offset, clgpu_type type,
                                             size_t n, ptrdiff_t stride);

/** A contiguous N-D view (rank 0 to CLGPU_MAX_RANK) in row- or column-major
 * order. Errors as clgpu_array_1d, and CLGPU_INVALID_ARGUMENT for a rank
 * above CLGPU_MAX_RANK or an unknown order. */
CLGPU_API clgpu_status clgpu_array_nd(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                                      const size_t *shape, clgpu_order order, clgpu_array *out);

/** A view with explicit strides in elements (negative and zero allowed):
 * element (i0, ..., ik) is at byte offset + sum(i_d * strides[d]) * size.
 * Errors as clgpu_array_nd; CLGPU_VIEW_OUT_OF_BOUNDS also for a negative
 * stride that reaches before the start of the buffer. */
CLGPU_API clgpu_status clgpu_array_strided(cl_mem buffer, size_t offset, clgpu_type type,
                                           unsigned rank, const size_t *shape,
                                           const ptrdiff_t *strides, clgpu_array *out);

/* ---- derivations (new views over the same memory, no copy) ---- */

/** One dimension of a slice, with Python's rules: negative start and stop
 * count from the end, both are clamped to the dimension, step may be
 * negative but not 0. CLGPU_SLICE_ALL takes the whole dimension. */
typedef struct clgpu_slice {
  ptrdiff_t start;
  ptrdiff_t stop;
  ptrdiff_t step;
} clgpu_slice;

/** start and stop values meaning "from the first element in the step's
 * direction" and "to the end in the step's direction". */
#define CLGPU_SLICE_BEGIN PTRDIFF_MIN
#define CLGPU_SLICE_END PTRDIFF_MAX
#define CLGPU_SLICE_ALL ((clgpu_slice){CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, 1})

/** Slice every dimension of `in` (slices has in->rank entries). A dimension
 * may become empty. Errors: CLGPU_INVALID_ARGUMENT (a step of 0, NULL
 * arguments), and those of clgpu_array_check on `in`. `out` may be `in`. */
CLGPU_API clgpu_status clgpu_array_slice(const clgpu_array *in, const clgpu_slice *slices,
                                         clgpu_array *out);

/** The same elements in a new shape, in row-major element order, when that is
 * possible without a copy (always for a contiguous view; for a strided one
 * when every merged group of dimensions is itself contiguous).
 * Errors: CLGPU_INVALID_ARGUMENT (element counts differ, rank too large),
 * CLGPU_RESHAPE_NEEDS_COPY (the message names the dimensions that cannot be
 * merged). `out` may be `in`. */
CLGPU_API clgpu_status clgpu_array_reshape(const clgpu_array *in, unsigned rank,
                                           const size_t *shape, clgpu_array *out);

/** Reorder the dimensions: dimension d of the result is dimension axes[d] of
 * `in`; axes is a permutation of 0 .. rank-1. `out` may be `in`. Errors:
 * CLGPU_INVALID_ARGUMENT (NULL arguments, axes that are not a permutation),
 * and those of clgpu_array_check on `in`. */
CLGPU_API clgpu_status clgpu_array_permute(const clgpu_array *in, const unsigned *axes,
                                           clgpu_array *out);

/** Reverse the order of the dimensions (a matrix transpose for rank 2). Errors
 * as clgpu_array_permute. */
CLGPU_API clgpu_status clgpu_array_transpose(const clgpu_array *in, clgpu_array *out);

/** The same bytes seen as another element type. With equal sizes the shape
 * and strides stay. Otherwise the last dimension must have stride 1 (or
 * extent 1), the view's offset must be aligned to the new size, and the last
 * dimension's byte length must divide into the new size; it is rescaled and
 * the other strides are converted (they must be whole multiples of the new
 * size). Errors: CLGPU_REINTERPRET_IMPOSSIBLE (the message says which rule),
 * CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_array_reinterpret(const clgpu_array *in, clgpu_type type,
                                               clgpu_array *out);

/** Broadcast to `shape` (rank >= in->rank) with NumPy's rules: dimensions are
 * matched from the last; a dimension of extent 1 (or a missing leading one)
 * gets stride 0 and the new extent; others must be equal.
 * Errors: CLGPU_BROADCAST_IMPOSSIBLE (the message names the dimension),
 * CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_array_broadcast(const clgpu_array *in, unsigned rank,
                                             const size_t *shape, clgpu_array *out);

/* ---- facts ---- */

/** The most bytes a view's elements may fill (element count times element
 * size, whatever the strides): 2^63 - 1. A broadcast view reaching a few
 * bytes of its buffer may stand for more elements than memory could hold;
 * every operation sizes host copies, temporaries and indices by count times
 * size, so a view past this bound is refused everywhere, including by the
 * constructors. */
#define CLGPU_MAX_VIEW_BYTES ((uint64_t)INT64_MAX)

/** Check a view as operations do: known type, rank, offset alignment, every
 * reachable byte inside CL_MEM_SIZE (overflow-checked), and at most
 * CLGPU_MAX_VIEW_BYTES in its elements. Does not block.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_MISALIGNED_VIEW,
 * CLGPU_VIEW_OUT_OF_BOUNDS, OpenCL's codes from querying the buffer. */
CLGPU_API clgpu_status clgpu_array_check(const clgpu_array *array);

/** Number of elements (the product of the shape; 1 for rank 0). A view whose
 * element count overflows size_t cannot be made. */
CLGPU_API size_t clgpu_array_count(const clgpu_array *array);

/** Whether the view is contiguous in row-major order (its elements fill
 * [offset, offset + count * size) in row-major order). Empty views are. */
CLGPU_API int clgpu_array_is_contiguous(const clgpu_array *array);

/** Where a view's memory is: `base` identifies the allocation (the root
 * cl_mem: a sub-buffer resolves to its parent, recursively), `offset` is the
 * byte offset of element (0, ..., 0) from the root's start, and [first, end)
 * is the byte range the view can touch, also from the root's start (empty
 * when the view has no elements: first == end == offset). */
typedef struct clgpu_location {
  cl_mem base;
  size_t offset;
  size_t first;
  size_t end;
} clgpu_location;

/** The location of a view. Does not block and has no side effects; fails only
 * on an invalid view (the errors of clgpu_array_check). */
CLGPU_API clgpu_status clgpu_array_location(const clgpu_array *array, clgpu_location *out);

/** Whether two views may share a byte: 1 when they may, 0 when they cannot.
 * Two views alias when their byte ranges overlap on the same root buffer,
 * except that two 1-D views with the same stride whose elements interleave
 * without meeting (x[0::2] and x[1::2]) do not. Buffers created with
 * CL_MEM_USE_HOST_PTR over overlapping host memory alias each other even
 * though their roots differ. Empty views alias nothing.
 * What it cannot see: memory shared outside OpenCL's knowledge (two
 * cl_mem created from the same SVM or external memory, buffers the
 * implementation places over the same host memory for CL_MEM_ALLOC_HOST_PTR
 * and a mapping), and N-D views that interleave without meeting (treated as
 * aliasing: safe, maybe a needless copy). An invalid view gives 1 (safe),
 * and clgpu_last_error() says what was wrong with it. */
CLGPU_API int clgpu_may_alias(const clgpu_array *a, const clgpu_array *b);

/** Whether two views are exactly the same elements in the same order: same
 * root, offset, type, shape and strides (the in-place case that needs no
 * temporary). */
CLGPU_API int clgpu_array_same(const clgpu_array *a, const clgpu_array *b);

#ifdef __cplusplus
}
#endif

#endif
