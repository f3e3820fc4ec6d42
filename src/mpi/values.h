/* Host arithmetic on one element of any clgpu type (values.c): what the MPI
 * component needs to combine the ranks' partial results in rank order with
 * the operators' device semantics (integer wrap-around, the float order of
 * MIN and MAX in docs/reduce.md, half rounded once per step). */
#ifndef CLGPU_SRC_MPI_VALUES_H
#define CLGPU_SRC_MPI_VALUES_H

#include <stdint.h>

#include <clgpu/array.h>

/* One element, its bytes as the device stores them (little-endian hosts and
 * devices alike: every OpenCL device clgpu targets is). */
typedef union clgpu__value {
  int8_t i8;
  uint8_t u8;
  int16_t i16;
  uint16_t u16;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float f;
  double d;
  uint64_t u64s[2];
  unsigned char bytes[16];
} clgpu__value;

/* a + b (SUM) or a * b (PRODUCT) into *a: integers wrap around, float and
 * double in their own precision, half exactly in double and rounded once to
 * half (to nearest, ties to even). */
void clgpu__value_add(clgpu_type type, clgpu__value *a, const clgpu__value *b);
void clgpu__value_multiply(clgpu_type type, clgpu__value *a, const clgpu__value *b);

/* Whether a comes strictly before b in the order of MIN (max_order 0) or
 * MAX (1): integers by value; floats with NaNs after everything, other
 * values by their bits as the sorts order them (so -0 before +0 for MIN). */
int clgpu__value_before(clgpu_type type, int max_order, const clgpu__value *a,
                        const clgpu__value *b);

#endif
