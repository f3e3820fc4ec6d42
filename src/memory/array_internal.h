/* Array views (array.c): the internal twins of include/clgpu/array.h, and
 * what the library needs besides about a view. */
#ifndef CLGPU_SRC_ARRAY_INTERNAL_H
#define CLGPU_SRC_ARRAY_INTERNAL_H

#include <stddef.h>

#include <clgpu/array.h>

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
size_t clgpu__type_size(clgpu_type type);
/* CLGPU_SUCCESS for a type operations compute on; CLGPU_TYPE_MISMATCH for
 * CLGPU_TYPE_OPAQUE and CLGPU_INVALID_ARGUMENT for an unknown type, the
 * message naming `what` (such as "the input"). */
clgpu_status clgpu__check_arithmetic_type(clgpu_type type, const char *who, const char *what);
const char *clgpu__type_cl_name(clgpu_type type);
/* The kinds of element type: half, float and double; int8 to int64;
 * uint8 to uint64. */
static inline int clgpu__type_is_float(clgpu_type type) {
  return type == CLGPU_TYPE_HALF || type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
}
static inline int clgpu__type_is_signed(clgpu_type type) {
  return type == CLGPU_TYPE_INT8 || type == CLGPU_TYPE_INT16 || type == CLGPU_TYPE_INT32 ||
         type == CLGPU_TYPE_INT64;
}
static inline int clgpu__type_is_unsigned(clgpu_type type) {
  return type == CLGPU_TYPE_UINT8 || type == CLGPU_TYPE_UINT16 || type == CLGPU_TYPE_UINT32 ||
         type == CLGPU_TYPE_UINT64;
}
size_t clgpu__array_count(const clgpu_array *array);
int clgpu__array_is_contiguous(const clgpu_array *array);
int clgpu__array_same(const clgpu_array *a, const clgpu_array *b);
int clgpu__may_alias(const clgpu_array *a, const clgpu_array *b);
clgpu_status clgpu__array_check(const clgpu_array *array);
clgpu_status clgpu__array_nd(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                             const size_t *shape, clgpu_order order, clgpu_array *out);
clgpu_status clgpu__array_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                             clgpu_array *out);
clgpu_status clgpu__array_reinterpret(const clgpu_array *in, clgpu_type type, clgpu_array *out);
clgpu_status clgpu__array_permute(const clgpu_array *in, const unsigned *axes, clgpu_array *out);
clgpu_status clgpu__array_location(const clgpu_array *array, clgpu_location *out);

/* "(3, 4, 5)" for messages; "()" for rank 0. */
void clgpu__describe_shape(const clgpu_array *array, char *text, size_t size);

/* The root buffer of a view and the element offset of its element (0, ...)
 * from the root's start. */
clgpu_status clgpu__array_root(const clgpu_array *array, cl_mem *root, cl_ulong *element_offset);

#endif
