/* IEEE half-precision values on the host (half.c): the library's histogram
 * reads half bin edges, and the MPI component combines half partial results.
 * Exported under the internal prefix for that component. */
#ifndef CLGPU_SRC_HALF_H
#define CLGPU_SRC_HALF_H

#include <stdint.h>

#include "status_internal.h" /* CLGPU__COMPONENT_API */

/* The value of half bits, exactly (NaNs as NAN, keeping no payload). */
CLGPU__COMPONENT_API double clgpu__half_to_double(uint16_t bits);

/* The half nearest to x (ties to even), with x's sign; NaN as the quiet
 * NaN 0x7e00 with x's sign, overflow as infinity. */
CLGPU__COMPONENT_API uint16_t clgpu__double_to_half(double x);

#endif
