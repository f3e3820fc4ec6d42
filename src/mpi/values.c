/* Host arithmetic on single elements for the MPI component (values.h). */
#include "values.h"

#include <math.h>

#include "half.h"

void clgpu__value_add(clgpu_type type, clgpu__value *a, const clgpu__value *b) {
  switch (type) {
    case CLGPU_TYPE_INT8:
    case CLGPU_TYPE_UINT8:
      a->u8 = (uint8_t)(a->u8 + b->u8);
      break;
    case CLGPU_TYPE_INT16:
    case CLGPU_TYPE_UINT16:
      a->u16 = (uint16_t)(a->u16 + b->u16);
      break;
    case CLGPU_TYPE_INT32:
    case CLGPU_TYPE_UINT32:
      a->u32 = a->u32 + b->u32;
      break;
    case CLGPU_TYPE_INT64:
    case CLGPU_TYPE_UINT64:
      a->u64 = a->u64 + b->u64;
      break;
    case CLGPU_TYPE_HALF:
      a->u16 = clgpu__double_to_half(clgpu__half_to_double(a->u16) + clgpu__half_to_double(b->u16));
      break;
    case CLGPU_TYPE_FLOAT:
      a->f = a->f + b->f;
      break;
    case CLGPU_TYPE_DOUBLE:
      a->d = a->d + b->d;
      break;
    default:
      break;
  }
}

void clgpu__value_multiply(clgpu_type type, clgpu__value *a, const clgpu__value *b) {
  switch (type) {
    /* Unsigned products of the promoted operands, so that no signed
     * product overflows; the low bits are the wrapped result. */
    case CLGPU_TYPE_INT8:
    case CLGPU_TYPE_UINT8:
      a->u8 = (uint8_t)((unsigned)a->u8 * (unsigned)b->u8);
      break;
    case CLGPU_TYPE_INT16:
    case CLGPU_TYPE_UINT16:
      a->u16 = (uint16_t)((unsigned)a->u16 * (unsigned)b->u16);
      break;
    case CLGPU_TYPE_INT32:
    case CLGPU_TYPE_UINT32:
      a->u32 = (uint32_t)((uint64_t)a->u32 * b->u32);
      break;
    case CLGPU_TYPE_INT64:
    case CLGPU_TYPE_UINT64:
      a->u64 = a->u64 * b->u64;
      break;
    case CLGPU_TYPE_HALF:
      /* Two halves' product has at most 22 significant bits: exact in
       * double, so one rounding to half. */
      a->u16 = clgpu__double_to_half(clgpu__half_to_double(a->u16) * clgpu__half_to_double(b->u16));
      break;
    case CLGPU_TYPE_FLOAT:
      a->f = a->f * b->f;
      break;
    case CLGPU_TYPE_DOUBLE:
      a->d = a->d * b->d;
      break;
    default:
      break;
  }
}

/* A float's place in the sorts' order: a negative value's bits flipped, a
 * positive one's sign bit set (cl/reduce.cl's clgpu_key), and whether it is
 * a NaN. */
static uint64_t float_key(clgpu_type type, const clgpu__value *v, int *nan) {
  uint64_t bits, top;
  if (type == CLGPU_TYPE_HALF) {
    bits = v->u16;
    top = 1u << 15;
    *nan = ((bits >> 10) & 31) == 31 && (bits & 1023) != 0;
  } else if (type == CLGPU_TYPE_FLOAT) {
    bits = v->u32;
    top = 1u << 31;
    *nan = isnan(v->f);
  } else {
    bits = v->u64;
    top = (uint64_t)1 << 63;
    *nan = isnan(v->d);
  }
  return (bits & top) ? ~bits & (top | (top - 1)) : bits | top;
}

int clgpu__value_before(clgpu_type type, int max_order, const clgpu__value *a,
                        const clgpu__value *b) {
  int64_t sa = 0, sb = 0;
  uint64_t ua = 0, ub = 0;
  int is_signed = 1;
  switch (type) {
    case CLGPU_TYPE_INT8:
      sa = a->i8, sb = b->i8;
      break;
    case CLGPU_TYPE_INT16:
      sa = a->i16, sb = b->i16;
      break;
    case CLGPU_TYPE_INT32:
      sa = a->i32, sb = b->i32;
      break;
    case CLGPU_TYPE_INT64:
      sa = a->i64, sb = b->i64;
      break;
    case CLGPU_TYPE_UINT8:
      ua = a->u8, ub = b->u8, is_signed = 0;
      break;
    case CLGPU_TYPE_UINT16:
      ua = a->u16, ub = b->u16, is_signed = 0;
      break;
    case CLGPU_TYPE_UINT32:
      ua = a->u32, ub = b->u32, is_signed = 0;
      break;
    case CLGPU_TYPE_UINT64:
      ua = a->u64, ub = b->u64, is_signed = 0;
      break;
    case CLGPU_TYPE_HALF:
    case CLGPU_TYPE_FLOAT:
    case CLGPU_TYPE_DOUBLE: {
      int a_nan, b_nan;
      uint64_t ka = float_key(type, a, &a_nan), kb = float_key(type, b, &b_nan);
      if (a_nan != b_nan) return b_nan;
      return max_order ? ka > kb : ka < kb;
    }
    default:
      return 0;
  }
  if (is_signed) return max_order ? sa > sb : sa < sb;
  return max_order ? ua > ub : ua < ub;
}
