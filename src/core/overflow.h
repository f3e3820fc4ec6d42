/* Overflow-checked size arithmetic (static inline, no .c): sums, products
 * and roundings of sizes that never wrap. */
#ifndef CLGPU_SRC_OVERFLOW_H
#define CLGPU_SRC_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

/* Every size, count and byte computation of a plan or a workspace report
 * goes through these, so that a size that cannot be represented becomes
 * CLGPU_SIZE_OVERFLOW instead of a wrapped number. Each returns 1 and
 * writes *out, or returns 0 and leaves *out alone when the result does not
 * fit in 64 bits. */
static inline int clgpu__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a > UINT64_MAX - b) return 0;
  *out = a + b;
  return 1;
}

static inline int clgpu__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (b != 0 && a > UINT64_MAX / b) return 0;
  *out = a * b;
  return 1;
}

/* a rounded up to a multiple of `multiple` (nonzero). */
static inline int clgpu__round_up_u64(uint64_t a, uint64_t multiple, uint64_t *out) {
  uint64_t remainder = a % multiple;
  if (remainder == 0) {
    *out = a;
    return 1;
  }
  return clgpu__add_u64(a, multiple - remainder, out);
}

/* |value| as an unsigned number, right for the most negative value too: the
 * size of a stride in elements. */
static inline uint64_t clgpu__magnitude(ptrdiff_t value) {
  return value >= 0 ? (uint64_t)value : (uint64_t)(-(value + 1)) + 1u;
}

/* The ceiling of a / b (b nonzero); never wraps, unlike (a + b - 1) / b. */
static inline uint64_t clgpu__ceil_div_u64(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

#endif
