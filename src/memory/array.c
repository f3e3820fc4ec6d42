/* Array views: construction, derivation, the extent check against the
 * buffer, memory location and alias detection. All arithmetic on sizes and
 * offsets is done in 64 bits with explicit overflow checks. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <clgpu/array.h>

#include "array_internal.h"
#include "overflow.h"
#include "status_internal.h"

size_t clgpu__type_size(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_INT8:
    case CLGPU_TYPE_UINT8:
    case CLGPU_TYPE_OPAQUE:
      return 1;
    case CLGPU_TYPE_INT16:
    case CLGPU_TYPE_UINT16:
    case CLGPU_TYPE_HALF:
      return 2;
    case CLGPU_TYPE_INT32:
    case CLGPU_TYPE_UINT32:
    case CLGPU_TYPE_FLOAT:
      return 4;
    case CLGPU_TYPE_INT64:
    case CLGPU_TYPE_UINT64:
    case CLGPU_TYPE_DOUBLE:
      return 8;
  }
  return 0;
}

size_t clgpu_type_size(clgpu_type type) { return clgpu__type_size(type); }

clgpu_status clgpu__check_arithmetic_type(clgpu_type type, const char *who, const char *what) {
  CLGPU__RETURN_ERROR_IF(type == CLGPU_TYPE_OPAQUE, CLGPU_TYPE_MISMATCH,
                         "%s: %s holds opaque bytes (CLGPU_TYPE_OPAQUE), which are moved but "
                         "never computed on",
                         who, what);
  CLGPU__RETURN_ERROR_IF(clgpu__type_size(type) == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: %s has an unknown element type %d", who, what, (int)type);
  return CLGPU_SUCCESS;
}

const char *clgpu__type_cl_name(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_INT8:
      return "char";
    case CLGPU_TYPE_UINT8:
    case CLGPU_TYPE_OPAQUE:
      return "uchar";
    case CLGPU_TYPE_INT16:
      return "short";
    case CLGPU_TYPE_UINT16:
      return "ushort";
    case CLGPU_TYPE_INT32:
      return "int";
    case CLGPU_TYPE_UINT32:
      return "uint";
    case CLGPU_TYPE_INT64:
      return "long";
    case CLGPU_TYPE_UINT64:
      return "ulong";
    case CLGPU_TYPE_HALF:
      return "half";
    case CLGPU_TYPE_FLOAT:
      return "float";
    case CLGPU_TYPE_DOUBLE:
      return "double";
  }
  return "invalid";
}

const char *clgpu_type_cl_name(clgpu_type type) { return clgpu__type_cl_name(type); }

/* ---- overflow-checked arithmetic ---- */

static int multiply(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return 0;
  *out = a * b;
  return 1;
}

static int add(uint64_t a, uint64_t b, uint64_t *out) {
  if (b > UINT64_MAX - a) return 0;
  *out = a + b;
  return 1;
}

/* The reach of a view around element (0, ..., 0), in bytes: `below` bytes
 * before its offset and `above` bytes from its offset to the end of the last
 * element. 0 on overflow. Empty views reach nothing. */
typedef struct reach {
  int empty;
  uint64_t below;
  uint64_t above;
} reach;

static int compute_reach(const clgpu_array *array, reach *out) {
  uint64_t size = clgpu_type_size(array->type);
  uint64_t below = 0, above = 0, count = 1;
  out->empty = 0;
  for (unsigned d = 0; d < array->rank; d++) {
    if (!multiply(count, array->shape[d], &count)) return 0;
    if (array->shape[d] == 0) out->empty = 1;
  }
  if (count > SIZE_MAX) return 0;
  if (out->empty) {
    out->below = out->above = 0;
    return 1;
  }
  for (unsigned d = 0; d < array->rank; d++) {
    uint64_t span = 0;
    if (!multiply((uint64_t)array->shape[d] - 1u, clgpu__magnitude(array->strides[d]), &span) ||
        !multiply(span, size, &span)) {
      return 0;
    }
    if (!add(array->strides[d] < 0 ? below : above, span,
             array->strides[d] < 0 ? &below : &above)) {
      return 0;
    }
  }
  if (!add(above, size, &above)) return 0;
  out->below = below;
  out->above = above;
  return 1;
}

static clgpu_status buffer_size(cl_mem buffer, size_t *size) {
  cl_int err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *size, size, NULL);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_SIZE) on an array");
  return CLGPU_SUCCESS;
}

/* "float view at byte 64, shape (3, 4), strides (4, 1)" for messages. */
static const char *describe(const clgpu_array *array, char *text, size_t size) {
  size_t used = 0;
  int n = snprintf(text, size, "%s view at byte %zu, shape (", clgpu_type_cl_name(array->type),
                   array->offset);
  for (int part = 0; part < 2; part++) {
    for (unsigned d = 0; n >= 0 && d < array->rank && d < CLGPU_MAX_RANK; d++) {
      used += (size_t)n;
      if (used >= size) return text;
      n = part == 0 ? snprintf(text + used, size - used, "%s%zu", d ? ", " : "", array->shape[d])
                    : snprintf(text + used, size - used, "%s%td", d ? ", " : "", array->strides[d]);
    }
    if (n < 0) return text;
    used += (size_t)n;
    if (used >= size) return text;
    n = snprintf(text + used, size - used, part == 0 ? "), strides (" : ")");
  }
  return text;
}

clgpu_status clgpu__array_check(const clgpu_array *array) {
  CLGPU__RETURN_ERROR_IF(!array, CLGPU_INVALID_ARGUMENT, "array is NULL");
  CLGPU__RETURN_ERROR_IF(!array->buffer, CLGPU_INVALID_ARGUMENT, "array has a NULL buffer");
  size_t element = clgpu_type_size(array->type);
  CLGPU__RETURN_ERROR_IF(element == 0, CLGPU_INVALID_ARGUMENT, "array has unknown type %d",
                         (int)array->type);
  CLGPU__RETURN_ERROR_IF(array->rank > CLGPU_MAX_RANK, CLGPU_INVALID_ARGUMENT,
                         "array rank %u is above %d", array->rank, CLGPU_MAX_RANK);
  char text[256];
  CLGPU__RETURN_ERROR_IF(array->offset % element != 0, CLGPU_MISALIGNED_VIEW,
                         "%s: offset %zu is not a multiple of the element size %zu",
                         describe(array, text, sizeof text), array->offset, element);
  reach extent;
  CLGPU__RETURN_ERROR_IF(!compute_reach(array, &extent), CLGPU_VIEW_OUT_OF_BOUNDS,
                         "%s: its extent overflows", describe(array, text, sizeof text));
  /* Every operation sizes host copies, temporaries and kernel indices as
   * count * element size: a view whose elements would fill more than
   * CLGPU_MAX_VIEW_BYTES (a broadcast view can, while reaching few bytes)
   * would wrap that product, so no such view is valid anywhere. */
  uint64_t elements = clgpu_array_count(array), bytes = 0;
  CLGPU__RETURN_ERROR_IF(!multiply(elements, element, &bytes) || bytes > CLGPU_MAX_VIEW_BYTES,
                         CLGPU_VIEW_OUT_OF_BOUNDS,
                         "%s: its %llu elements of %zu bytes would fill more than 2^63 - 1 "
                         "bytes (CLGPU_MAX_VIEW_BYTES)",
                         describe(array, text, sizeof text), (unsigned long long)elements, element);
  size_t size = 0;
  CLGPU__FORWARD_IF_ERROR(buffer_size(array->buffer, &size));
  CLGPU__RETURN_ERROR_IF(extent.below > array->offset, CLGPU_VIEW_OUT_OF_BOUNDS,
                         "%s: negative strides reach %llu bytes before byte %zu, before the "
                         "buffer's start",
                         describe(array, text, sizeof text), (unsigned long long)extent.below,
                         array->offset);
  uint64_t end = 0;
  CLGPU__RETURN_ERROR_IF(!add(array->offset, extent.empty ? 0 : extent.above, &end) || end > size,
                         CLGPU_VIEW_OUT_OF_BOUNDS,
                         "%s: reaches byte %llu, past the buffer's %zu bytes",
                         describe(array, text, sizeof text), (unsigned long long)end, size);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_array_check(const clgpu_array *array) { return clgpu__array_check(array); }

/* ---- constructors ---- */

clgpu_status clgpu_array_strided(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                                 const size_t *shape, const ptrdiff_t *strides, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__RETURN_ERROR_IF(rank > CLGPU_MAX_RANK, CLGPU_INVALID_ARGUMENT, "rank %u is above %d", rank,
                         CLGPU_MAX_RANK);
  CLGPU__RETURN_ERROR_IF(rank > 0 && (!shape || !strides), CLGPU_INVALID_ARGUMENT,
                         "shape or strides is NULL for rank %u", rank);
  clgpu_array view;
  memset(&view, 0, sizeof view);
  view.buffer = buffer;
  view.offset = offset;
  view.type = type;
  view.rank = rank;
  for (unsigned d = 0; d < rank; d++) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(&view));
  *out = view;
  return CLGPU_SUCCESS;
}

/* Contiguous strides for a shape; 0 when the element count overflows. */
static int contiguous_strides(unsigned rank, const size_t *shape, clgpu_order order,
                              ptrdiff_t *strides) {
  uint64_t stride = 1;
  for (unsigned i = 0; i < rank; i++) {
    unsigned d = order == CLGPU_ORDER_ROW_MAJOR ? rank - 1 - i : i;
    if (stride > PTRDIFF_MAX) return 0;
    strides[d] = (ptrdiff_t)stride;
    if (!multiply(stride, shape[d] ? shape[d] : 1, &stride)) return 0;
  }
  return 1;
}

clgpu_status clgpu__array_nd(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                             const size_t *shape, clgpu_order order, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(rank > CLGPU_MAX_RANK, CLGPU_INVALID_ARGUMENT, "rank %u is above %d", rank,
                         CLGPU_MAX_RANK);
  CLGPU__RETURN_ERROR_IF(rank > 0 && !shape, CLGPU_INVALID_ARGUMENT, "shape is NULL");
  CLGPU__RETURN_ERROR_IF(order != CLGPU_ORDER_ROW_MAJOR && order != CLGPU_ORDER_COLUMN_MAJOR,
                         CLGPU_INVALID_ARGUMENT, "unknown order %d", (int)order);
  ptrdiff_t strides[CLGPU_MAX_RANK];
  CLGPU__RETURN_ERROR_IF(!contiguous_strides(rank, shape, order, strides), CLGPU_VIEW_OUT_OF_BOUNDS,
                         "the shape's element count overflows");
  return clgpu_array_strided(buffer, offset, type, rank, shape, strides, out);
}

clgpu_status clgpu_array_nd(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                            const size_t *shape, clgpu_order order, clgpu_array *out) {
  return clgpu__array_nd(buffer, offset, type, rank, shape, order, out);
}

clgpu_status clgpu__array_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                             clgpu_array *out) {
  return clgpu_array_nd(buffer, offset, type, 1, &n, CLGPU_ORDER_ROW_MAJOR, out);
}

clgpu_status clgpu_array_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                            clgpu_array *out) {
  return clgpu__array_1d(buffer, offset, type, n, out);
}

clgpu_array clgpu_array_of(cl_mem buffer, clgpu_type type, size_t n) {
  return clgpu_array_of_strided(buffer, 0, type, n, 1);
}

clgpu_array clgpu_array_of_strided(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                                   ptrdiff_t stride) {
  clgpu_array view;
  memset(&view, 0, sizeof view);
  view.buffer = buffer;
  view.offset = offset;
  view.type = type;
  view.rank = 1;
  view.shape[0] = n;
  view.strides[0] = stride;
  return view;
}

/* ---- derivations ---- */

/* Move the view's offset by `elements` elements (signed); 0 when the result
 * would leave the range of size_t (the check catches everything else). */
static int shift_offset(clgpu_array *view, int64_t elements) {
  uint64_t bytes = 0;
  uint64_t size = clgpu_type_size(view->type);
  if (!multiply(elements < 0 ? (uint64_t)(-(elements + 1)) + 1u : (uint64_t)elements, size,
                &bytes)) {
    return 0;
  }
  if (elements < 0) {
    if (bytes > view->offset) return 0;
    view->offset -= (size_t)bytes;
  } else {
    uint64_t moved = 0;
    if (!add(view->offset, bytes, &moved) || moved > SIZE_MAX) return 0;
    view->offset = (size_t)moved;
  }
  return 1;
}

clgpu_status clgpu_array_slice(const clgpu_array *in, const clgpu_slice *slices, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(in));
  CLGPU__RETURN_ERROR_IF(in->rank > 0 && !slices, CLGPU_INVALID_ARGUMENT, "slices is NULL");
  clgpu_array view = *in;
  int64_t first = 0; /* element offset of the new element (0, ..., 0) */
  int empty = 0;
  for (unsigned d = 0; d < in->rank; d++) {
    clgpu_slice slice = slices[d];
    CLGPU__RETURN_ERROR_IF(slice.step == 0, CLGPU_INVALID_ARGUMENT,
                           "slice of dimension %u has step 0", d);
    CLGPU__RETURN_ERROR_IF(slice.step == PTRDIFF_MIN, CLGPU_INVALID_ARGUMENT,
                           "slice of dimension %u has step PTRDIFF_MIN", d);
    /* Python's rules, computed in 64-bit signed arithmetic: the extent is at
     * most SIZE_MAX elements of a valid view, which fits. */
    int64_t n = (int64_t)in->shape[d];
    int64_t start, stop, length;
    if (slice.step > 0) {
      start = slice.start == CLGPU_SLICE_BEGIN ? 0 : (int64_t)slice.start;
      stop = slice.stop == CLGPU_SLICE_END ? n : (int64_t)slice.stop;
      if (start < 0) start = start + n < 0 ? 0 : start + n;
      if (stop < 0) stop = stop + n < 0 ? 0 : stop + n;
      if (start > n) start = n;
      if (stop > n) stop = n;
      length = stop > start ? (stop - start - 1) / slice.step + 1 : 0;
    } else {
      start = slice.start == CLGPU_SLICE_BEGIN ? n - 1 : (int64_t)slice.start;
      stop = slice.stop == CLGPU_SLICE_END ? -1 : (int64_t)slice.stop;
      if (slice.start != CLGPU_SLICE_BEGIN && start < 0) start = start + n < 0 ? -1 : start + n;
      if (slice.stop != CLGPU_SLICE_END && stop < 0) stop = stop + n < 0 ? -1 : stop + n;
      if (start > n - 1) start = n - 1;
      if (stop > n - 1) stop = n - 1;
      length = start > stop ? (start - stop - 1) / (-(int64_t)slice.step) + 1 : 0;
    }
    view.shape[d] = (size_t)length;
    if (length == 0) {
      empty = 1;
      continue;
    }
    /* |stride * step| and start * stride stay within the original view's
     * reach for the first, and are checked for the second. */
    int64_t stride = (int64_t)in->strides[d];
    /* With one element left the stride no longer matters; keeping it avoids
     * a spurious overflow on a dimension that had one element already. */
    if (length > 1) {
      uint64_t product = 0;
      CLGPU__RETURN_ERROR_IF(
          !multiply(clgpu__magnitude(in->strides[d]), clgpu__magnitude(slice.step), &product) ||
              product > PTRDIFF_MAX,
          CLGPU_VIEW_OUT_OF_BOUNDS, "slice of dimension %u: stride overflows", d);
      int negative = (in->strides[d] < 0) != (slice.step < 0);
      view.strides[d] = negative ? -(ptrdiff_t)product : (ptrdiff_t)product;
    }
    first += start * stride; /* start < n, |stride * (n - 1)| fits: the view was valid */
  }
  if (!empty) {
    CLGPU__RETURN_ERROR_IF(!shift_offset(&view, first), CLGPU_VIEW_OUT_OF_BOUNDS,
                           "slice moves the offset out of range");
  }
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(&view));
  *out = view;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_array_reshape(const clgpu_array *in, unsigned rank, const size_t *shape,
                                 clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(in));
  CLGPU__RETURN_ERROR_IF(rank > CLGPU_MAX_RANK, CLGPU_INVALID_ARGUMENT, "rank %u is above %d", rank,
                         CLGPU_MAX_RANK);
  CLGPU__RETURN_ERROR_IF(rank > 0 && !shape, CLGPU_INVALID_ARGUMENT, "shape is NULL");
  uint64_t count = 1;
  for (unsigned d = 0; d < rank; d++) {
    CLGPU__RETURN_ERROR_IF(!multiply(count, shape[d], &count), CLGPU_INVALID_ARGUMENT,
                           "the new shape's element count overflows");
  }
  CLGPU__RETURN_ERROR_IF(count != clgpu_array_count(in), CLGPU_INVALID_ARGUMENT,
                         "reshape from %zu elements to %llu", clgpu_array_count(in),
                         (unsigned long long)count);
  clgpu_array view = *in;
  view.rank = rank;
  for (unsigned d = 0; d < rank; d++) view.shape[d] = shape[d];
  if (count == 0 || clgpu_array_is_contiguous(in)) {
    CLGPU__RETURN_ERROR_IF(!contiguous_strides(rank, shape, CLGPU_ORDER_ROW_MAJOR, view.strides),
                           CLGPU_INVALID_ARGUMENT, "the new shape's element count overflows");
    *out = view;
    return CLGPU_SUCCESS;
  }
  /* The old dimensions of extent > 1, matched to the new ones in groups of
   * equal element count. A group of old dimensions can be seen as the new
   * ones only when it is itself contiguous (each stride is the next one
   * times the next extent); the new strides then subdivide its last
   * stride. */
  size_t old_shape[CLGPU_MAX_RANK];
  ptrdiff_t old_strides[CLGPU_MAX_RANK];
  unsigned old_rank = 0;
  for (unsigned d = 0; d < in->rank; d++) {
    if (in->shape[d] == 1) continue;
    old_shape[old_rank] = in->shape[d];
    old_strides[old_rank++] = in->strides[d];
  }
  unsigned i = 0, j = 0;
  while (i < old_rank && j < rank) {
    if (shape[j] == 1) {
      view.strides[j++] = 0; /* fixed below */
      continue;
    }
    uint64_t old_product = old_shape[i], new_product = shape[j];
    unsigned i_end = i + 1, j_end = j + 1;
    while (old_product != new_product) {
      if (old_product < new_product) {
        old_product *= old_shape[i_end++];
      } else {
        new_product *= shape[j_end++];
      }
    }
    for (unsigned k = i; k + 1 < i_end; k++) {
      uint64_t expected = 0;
      int contiguous =
          multiply(clgpu__magnitude(old_strides[k + 1]), old_shape[k + 1], &expected) &&
          (old_strides[k] < 0) == (old_strides[k + 1] < 0) &&
          clgpu__magnitude(old_strides[k]) == expected;
      CLGPU__RETURN_ERROR_IF(!contiguous, CLGPU_RESHAPE_NEEDS_COPY,
                             "reshape needs a copy: dimensions of extents %zu and %zu (strides "
                             "%td and %td) cannot be merged into the new shape",
                             old_shape[k], old_shape[k + 1], old_strides[k], old_strides[k + 1]);
    }
    view.strides[j_end - 1] = old_strides[i_end - 1];
    for (unsigned k = j_end - 1; k-- > j;) {
      view.strides[k] = view.strides[k + 1] * (ptrdiff_t)shape[k + 1];
    }
    i = i_end;
    j = j_end;
  }
  /* Dimensions of extent 1 (where the strides do not matter) get the stride
   * a row-major layout would give them next to their neighbour. */
  for (unsigned k = rank; k-- > 0;) {
    if (shape[k] != 1) continue;
    uint64_t next = 0;
    int fits = k + 1 < rank &&
               multiply(clgpu__magnitude(view.strides[k + 1]), shape[k + 1], &next) &&
               next <= PTRDIFF_MAX;
    view.strides[k] = fits ? (ptrdiff_t)next : 1;
  }
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(&view));
  *out = view;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__array_permute(const clgpu_array *in, const unsigned *axes, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(in));
  CLGPU__RETURN_ERROR_IF(in->rank > 0 && !axes, CLGPU_INVALID_ARGUMENT, "axes is NULL");
  unsigned seen = 0;
  clgpu_array view = *in;
  for (unsigned d = 0; d < in->rank; d++) {
    CLGPU__RETURN_ERROR_IF(axes[d] >= in->rank || (seen >> axes[d]) & 1u, CLGPU_INVALID_ARGUMENT,
                           "axes is not a permutation of 0..%u: axes[%u] = %u", in->rank - 1, d,
                           axes[d]);
    seen |= 1u << axes[d];
    view.shape[d] = in->shape[axes[d]];
    view.strides[d] = in->strides[axes[d]];
  }
  *out = view;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_array_permute(const clgpu_array *in, const unsigned *axes, clgpu_array *out) {
  return clgpu__array_permute(in, axes, out);
}

clgpu_status clgpu_array_transpose(const clgpu_array *in, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!in, CLGPU_INVALID_ARGUMENT, "array is NULL");
  unsigned axes[CLGPU_MAX_RANK];
  unsigned rank = in->rank <= CLGPU_MAX_RANK ? in->rank : CLGPU_MAX_RANK;
  for (unsigned d = 0; d < rank; d++) axes[d] = rank - 1 - d;
  return clgpu_array_permute(in, axes, out);
}

clgpu_status clgpu__array_reinterpret(const clgpu_array *in, clgpu_type type, clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(in));
  size_t old_size = clgpu_type_size(in->type), new_size = clgpu_type_size(type);
  CLGPU__RETURN_ERROR_IF(new_size == 0, CLGPU_INVALID_ARGUMENT, "unknown type %d", (int)type);
  clgpu_array view = *in;
  view.type = type;
  if (old_size != new_size) {
    CLGPU__RETURN_ERROR_IF(in->rank == 0, CLGPU_REINTERPRET_IMPOSSIBLE,
                           "a rank-0 view of %s cannot be seen as %s: sizes differ",
                           clgpu_type_cl_name(in->type), clgpu_type_cl_name(type));
    unsigned last = in->rank - 1;
    CLGPU__RETURN_ERROR_IF(in->strides[last] != 1 && in->shape[last] > 1,
                           CLGPU_REINTERPRET_IMPOSSIBLE,
                           "the last dimension has stride %td, not 1: its elements are not "
                           "adjacent bytes",
                           in->strides[last]);
    CLGPU__RETURN_ERROR_IF(in->offset % new_size != 0, CLGPU_REINTERPRET_IMPOSSIBLE,
                           "offset %zu is not a multiple of %zu, the size of %s", in->offset,
                           new_size, clgpu_type_cl_name(type));
    uint64_t bytes = (uint64_t)in->shape[last] * old_size; /* fits: the view is valid */
    CLGPU__RETURN_ERROR_IF(bytes % new_size != 0, CLGPU_REINTERPRET_IMPOSSIBLE,
                           "the last dimension holds %llu bytes, not a multiple of %zu",
                           (unsigned long long)bytes, new_size);
    view.shape[last] = (size_t)(bytes / new_size);
    view.strides[last] = 1;
    for (unsigned d = 0; d < last; d++) {
      uint64_t stride_bytes = clgpu__magnitude(in->strides[d]) * old_size;
      if (in->shape[d] <= 1) {
        view.strides[d] = (ptrdiff_t)(stride_bytes / new_size) * (in->strides[d] < 0 ? -1 : 1);
        continue;
      }
      CLGPU__RETURN_ERROR_IF(stride_bytes % new_size != 0, CLGPU_REINTERPRET_IMPOSSIBLE,
                             "dimension %u's stride of %llu bytes is not a multiple of %zu", d,
                             (unsigned long long)stride_bytes, new_size);
      ptrdiff_t stride = (ptrdiff_t)(stride_bytes / new_size);
      view.strides[d] = in->strides[d] < 0 ? -stride : stride;
    }
  }
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(&view));
  *out = view;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_array_reinterpret(const clgpu_array *in, clgpu_type type, clgpu_array *out) {
  return clgpu__array_reinterpret(in, type, out);
}

clgpu_status clgpu_array_broadcast(const clgpu_array *in, unsigned rank, const size_t *shape,
                                   clgpu_array *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(in));
  CLGPU__RETURN_ERROR_IF(rank > CLGPU_MAX_RANK || rank < in->rank, CLGPU_INVALID_ARGUMENT,
                         "broadcast from rank %u to rank %u", in->rank, rank);
  CLGPU__RETURN_ERROR_IF(rank > 0 && !shape, CLGPU_INVALID_ARGUMENT, "shape is NULL");
  clgpu_array view = *in;
  view.rank = rank;
  unsigned lead = rank - in->rank;
  for (unsigned k = 0; k < rank; k++) {
    view.shape[k] = shape[k];
    if (k < lead) {
      view.strides[k] = 0;
      continue;
    }
    unsigned d = k - lead;
    if (in->shape[d] == shape[k]) {
      view.strides[k] = in->strides[d];
    } else {
      CLGPU__RETURN_ERROR_IF(in->shape[d] != 1, CLGPU_BROADCAST_IMPOSSIBLE,
                             "dimension %u of extent %zu cannot be broadcast to %zu", d,
                             in->shape[d], shape[k]);
      view.strides[k] = 0;
    }
  }
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(&view));
  *out = view;
  return CLGPU_SUCCESS;
}

/* ---- facts ---- */

size_t clgpu__array_count(const clgpu_array *array) {
  if (!array || array->rank > CLGPU_MAX_RANK) return 0;
  uint64_t count = 1;
  for (unsigned d = 0; d < array->rank; d++) {
    if (!multiply(count, array->shape[d], &count)) return 0;
  }
  return count > SIZE_MAX ? 0 : (size_t)count;
}

size_t clgpu_array_count(const clgpu_array *array) { return clgpu__array_count(array); }

int clgpu__array_is_contiguous(const clgpu_array *array) {
  if (!array || array->rank > CLGPU_MAX_RANK) return 0;
  if (clgpu_array_count(array) == 0) return 1;
  uint64_t expected = 1;
  for (unsigned k = array->rank; k-- > 0;) {
    if (array->shape[k] == 1) continue;
    if (array->strides[k] < 0 || (uint64_t)array->strides[k] != expected) return 0;
    expected *= array->shape[k];
  }
  return 1;
}

int clgpu_array_is_contiguous(const clgpu_array *array) {
  return clgpu__array_is_contiguous(array);
}

clgpu_status clgpu__array_location(const clgpu_array *array, clgpu_location *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "out is NULL");
  CLGPU__FORWARD_IF_ERROR(clgpu_array_check(array));
  cl_mem base = array->buffer;
  size_t offset = array->offset;
  /* OpenCL forbids sub-buffers of sub-buffers, but following the chain costs
   * nothing and stays right should an implementation allow them. */
  for (unsigned depth = 0; depth < 16; depth++) {
    cl_mem parent = NULL;
    cl_int err =
        clGetMemObjectInfo(base, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetMemObjectInfo(ASSOCIATED_MEMOBJECT)");
    if (!parent) break;
    size_t origin = 0;
    err = clGetMemObjectInfo(base, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_OFFSET)");
    offset += origin;
    base = parent;
  }
  reach extent;
  compute_reach(array, &extent); /* cannot fail: the view was checked */
  out->base = base;
  out->offset = offset;
  out->first = extent.empty ? offset : offset - (size_t)extent.below;
  out->end = extent.empty ? offset : offset + (size_t)extent.above;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_array_location(const clgpu_array *array, clgpu_location *out) {
  return clgpu__array_location(array, out);
}

/* For a view with at most one dimension of extent > 1: the distance in bytes
 * between its consecutive elements (0 for a single element). -1 otherwise. */
static int64_t lattice_step(const clgpu_array *array) {
  int64_t step = 0;
  int dimensions = 0;
  for (unsigned d = 0; d < array->rank; d++) {
    if (array->shape[d] <= 1) continue;
    if (++dimensions > 1) return -1;
    step = (int64_t)(clgpu__magnitude(array->strides[d]) * clgpu_type_size(array->type));
  }
  return step;
}

/* Whether the host memory behind two USE_HOST_PTR roots overlaps over the
 * views' byte ranges. */
static int host_memory_overlaps(const clgpu_location *a, const clgpu_location *b) {
  cl_mem_flags flags_a = 0, flags_b = 0;
  void *host_a = NULL, *host_b = NULL;
  if (clGetMemObjectInfo(a->base, CL_MEM_FLAGS, sizeof flags_a, &flags_a, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(b->base, CL_MEM_FLAGS, sizeof flags_b, &flags_b, NULL) != CL_SUCCESS) {
    return 1;
  }
  if (!(flags_a & CL_MEM_USE_HOST_PTR) || !(flags_b & CL_MEM_USE_HOST_PTR)) return 0;
  if (clGetMemObjectInfo(a->base, CL_MEM_HOST_PTR, sizeof host_a, &host_a, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(b->base, CL_MEM_HOST_PTR, sizeof host_b, &host_b, NULL) != CL_SUCCESS) {
    return 1;
  }
  uintptr_t first_a = (uintptr_t)host_a + a->first, end_a = (uintptr_t)host_a + a->end;
  uintptr_t first_b = (uintptr_t)host_b + b->first, end_b = (uintptr_t)host_b + b->end;
  return first_a < end_b && first_b < end_a;
}

int clgpu__may_alias(const clgpu_array *a, const clgpu_array *b) {
  clgpu_location where_a, where_b;
  if (clgpu_array_location(a, &where_a) != CLGPU_SUCCESS ||
      clgpu_array_location(b, &where_b) != CLGPU_SUCCESS) {
    return 1;
  }
  if (where_a.first == where_a.end || where_b.first == where_b.end) return 0;
  if (where_a.base != where_b.base) return host_memory_overlaps(&where_a, &where_b);
  if (where_a.first >= where_b.end || where_b.first >= where_a.end) return 0;
  /* Two progressions of elements with the same step S, a's starting at A and
   * b's at B: within each period a covers [0, size_a) and b covers
   * [d, d + size_b) with d = (B - A) mod S. They never meet when those two
   * intervals are disjoint. */
  int64_t step_a = lattice_step(a), step_b = lattice_step(b);
  if (step_a < 0 || step_b < 0) return 1;
  if (step_a != 0 && step_b != 0 && step_a != step_b) return 1;
  int64_t step = step_a ? step_a : step_b;
  if (step == 0) return 1;
  int64_t d = ((int64_t)where_b.first - (int64_t)where_a.first) % step;
  if (d < 0) d += step;
  int64_t size_a = (int64_t)clgpu_type_size(a->type), size_b = (int64_t)clgpu_type_size(b->type);
  return !(d >= size_a && step - d >= size_b);
}

int clgpu_may_alias(const clgpu_array *a, const clgpu_array *b) { return clgpu__may_alias(a, b); }

int clgpu__array_same(const clgpu_array *a, const clgpu_array *b) {
  clgpu_location where_a, where_b;
  if (clgpu_array_location(a, &where_a) != CLGPU_SUCCESS ||
      clgpu_array_location(b, &where_b) != CLGPU_SUCCESS) {
    return 0;
  }
  if (where_a.base != where_b.base || where_a.offset != where_b.offset || a->type != b->type ||
      a->rank != b->rank) {
    return 0;
  }
  for (unsigned d = 0; d < a->rank; d++) {
    if (a->shape[d] != b->shape[d]) return 0;
    if (a->shape[d] > 1 && a->strides[d] != b->strides[d]) return 0;
  }
  return 1;
}

int clgpu_array_same(const clgpu_array *a, const clgpu_array *b) { return clgpu__array_same(a, b); }

clgpu_status clgpu__array_root(const clgpu_array *array, cl_mem *root, cl_ulong *element_offset) {
  clgpu_location location;
  CLGPU__FORWARD_IF_ERROR(clgpu_array_location(array, &location));
  size_t size = clgpu_type_size(array->type);
  CLGPU__RETURN_ERROR_IF(location.offset % size != 0, CLGPU_MISALIGNED_VIEW,
                         "a view at byte %zu of its root buffer is not aligned to its element "
                         "size %zu (a sub-buffer at an unaligned origin)",
                         location.offset, size);
  *root = location.base;
  *element_offset = (cl_ulong)(location.offset / size);
  return CLGPU_SUCCESS;
}

void clgpu__describe_shape(const clgpu_array *array, char *text, size_t size) {
  size_t used = (size_t)snprintf(text, size, "(");
  for (unsigned d = 0; d < array->rank && used < size; d++) {
    used += (size_t)snprintf(text + used, size - used, d ? ", %zu" : "%zu", array->shape[d]);
  }
  if (used < size) snprintf(text + used, size - used, ")");
}
