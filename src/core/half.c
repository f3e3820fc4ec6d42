/* IEEE half-precision values on the host (half.h). */
#include "half.h"

#include <math.h>

double clgpu__half_to_double(uint16_t h) {
  int negative = h >> 15;
  int exponent = (h >> 10) & 31;
  int mantissa = h & 1023;
  double value;
  if (exponent == 0) {
    value = ldexp((double)mantissa, -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = ldexp((double)(mantissa + 1024), exponent - 25);
  }
  return negative ? -value : value;
}

uint16_t clgpu__double_to_half(double x) {
  uint16_t sign = signbit(x) ? 0x8000u : 0;
  double a = fabs(x);
  if (isnan(x)) return (uint16_t)(sign | 0x7e00u);
  if (isinf(a)) return (uint16_t)(sign | 0x7c00u);
  if (a == 0) return sign;
  int e;
  (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): the leading bit is 2^(e - 1) */
  int top = e - 1;
  if (top < -14) {
    /* Subnormal: units of 2^-24, rounded to nearest even (rint in the
     * default rounding mode); 1024 units is the smallest normal, whose
     * bits follow on from the subnormals'. */
    double units = rint(ldexp(a, 24));
    return (uint16_t)(sign | (uint16_t)units);
  }
  double units = rint(ldexp(a, 10 - top)); /* in [1024, 2048] */
  if (units >= 2048) {
    units = 1024;
    top++;
  }
  if (top > 15) return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | (uint16_t)((top + 15) << 10) | (uint16_t)(units - 1024));
}
