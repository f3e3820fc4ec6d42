/* Histograms (histogram.h): counts of values in bins that are even ranges
 * over [lower, upper) or given by sorted edges.
 *
 * Built after cl/common.cl. Defines (src/ops/histogram.c writes them):
 *   CLGPU_GROUP        work-items per group (1: CHUNKED, a work-item walks
 *                      its range alone; more: TILED, the group's items take
 *                      its range in coalesced rows)
 *   CLGPU_HIST_T       the input's OpenCL C type as stored (half for half,
 *                      read with vload_half)
 *   CLGPU_HIST_V       the type values are compared and binned in (the
 *                      input's, float for half)
 *   CLGPU_HIST_HALF    optional: the input is half
 *   CLGPU_HIST_MODE    how a value finds its bin:
 *                      1 SHIFT   integers, bins of 2^width values: d >> width
 *                      2 DIVIDE  integers, bins of `width` values: d / width
 *                      3 MULDIV  integers: d * bins / range, the product
 *                                within CLGPU_HIST_W
 *                      4 WIDE    integers: d * bins / range through a
 *                                128-bit product (64-bit types only)
 *                      5 SCALE   floats: (V)(x - lower) * scale, the last
 *                                bin taking what rounds to `bins`
 *                      6 EDGES   the last edge <= x, found by bisection
 *                      where d = x - lower (exact, as an unsigned integer)
 *                      and range = upper - lower
 *   CLGPU_HIST_W       the integer modes' arithmetic: uint or ulong (the
 *                      host picks uint when d, width and the products fit)
 *   CLGPU_HIST_GLOBAL  optional: counts go straight to a row in global
 *                      memory with atomics (too many bins for local memory);
 *                      else each group counts in local memory and writes
 *                      its row
 *   CLGPU_HIST_LOCAL_EDGES optional, with EDGES: the edges are copied to
 *                      local memory first
 *   CLGPU_HIST_STRIDED optional: the input is read with its stride (else
 *                      it is contiguous)
 *   CLGPU_HIST_COUNT_T the counts' type, uint or ulong
 *
 * Counts are 32-bit (docs/portability.md rule 8): the host bounds every
 * row's elements below 2^32. clgpu_histogram_sum adds the rows of each
 * bin into the caller's counts. */
#ifndef CLGPU_HIST_MODE
#error "histogram.cl needs CLGPU_HIST_MODE"
#endif

typedef CLGPU_HIST_V V;
typedef CLGPU_HIST_W W;

#ifdef CLGPU_HIST_HALF
#define CLGPU_HIST_LOAD(p, i) vload_half((size_t)(i), (p))
#else
#define CLGPU_HIST_LOAD(p, i) ((p)[i])
#endif

#ifdef CLGPU_HIST_STRIDED
#define CLGPU_HIST_AT(k) (long)(in_offset + (ulong)((long)(k) * step))
#else
#define CLGPU_HIST_AT(k) (in_offset + (k))
#endif

#if CLGPU_GROUP == 1
#define CLGPU_HIST_LOCAL_ADD(p) (*(p) += 1u)
#else
#define CLGPU_HIST_LOCAL_ADD(p) atomic_inc(p)
#endif

#if CLGPU_HIST_MODE == 4
/* floor((hi * 2^64 + lo) / range) where hi < range: the quotient fits in
 * 64 bits. Restoring division, a bit at a time. */
inline ulong clgpu_hist_divide_wide(ulong hi, ulong lo, ulong range) {
  ulong q = 0, r = hi;
  for (int k = 63; k >= 0; k--) {
    ulong top = r >> 63;
    r = (r << 1) | ((lo >> k) & 1ul);
    q <<= 1;
    if (top != 0ul || r >= range) {
      r -= range;
      q |= 1ul;
    }
  }
  return q;
}
#endif

/* The bin of x, or `bins` when x is outside every bin. */
#if CLGPU_HIST_MODE == 6
inline ulong clgpu_hist_bin(V x, ulong bins,
#ifdef CLGPU_HIST_LOCAL_EDGES
                            __local const V *e
#else
                            __global const CLGPU_HIST_T *e, ulong e0, long estep
#endif
) {
#ifdef CLGPU_HIST_LOCAL_EDGES
#define CLGPU_HIST_EDGE(k) e[k]
#else
#define CLGPU_HIST_EDGE(k) CLGPU_HIST_LOAD(e, (long)(e0 + (ulong)((long)(k) * estep)))
#endif
  if (!(CLGPU_HIST_EDGE(0) <= x) || !(x < CLGPU_HIST_EDGE(bins))) return bins;
  /* edge[lo] <= x < edge[hi] */
  ulong lo = 0, hi = bins;
  while (hi - lo > 1ul) {
    ulong mid = lo + (hi - lo) / 2ul;
    if (CLGPU_HIST_EDGE(mid) <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
#undef CLGPU_HIST_EDGE
}
#else
inline ulong clgpu_hist_bin(V x, V lower, V upper, V scale, W width, ulong bins) {
  if (!(x >= lower) || !(x < upper)) return bins;
#if CLGPU_HIST_MODE == 5
  ulong b = (ulong)((V)(x - lower) * scale);
  return b < bins ? b : bins - 1ul;
#else
  W d = (W)((ulong)x - (ulong)lower);
#if CLGPU_HIST_MODE == 1
  return (ulong)(d >> width);
#elif CLGPU_HIST_MODE == 2
  return (ulong)(d / width);
#elif CLGPU_HIST_MODE == 3
  return (ulong)(d * (W)bins / width);
#else
  return clgpu_hist_divide_wide(mul_hi((ulong)d, bins), (ulong)d * bins, (ulong)width);
#endif
#endif
}
#endif

#if CLGPU_HIST_MODE == 6
#ifdef CLGPU_HIST_LOCAL_EDGES
#define CLGPU_HIST_BIN(x) clgpu_hist_bin((x), bins, local_edges)
#else
#define CLGPU_HIST_BIN(x) clgpu_hist_bin((x), bins, edges, edges_offset, edges_step)
#endif
#else
#define CLGPU_HIST_BIN(x) clgpu_hist_bin((x), lower, upper, scale, width, bins)
#endif

/* Group g counts elements [g * chunk, min(n, (g + 1) * chunk)) into row g
 * of `rows` (local counts) or into row `row_of_group ? g : 0` (global
 * atomics, the rows zeroed before). */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_histogram_count(
    __global const CLGPU_HIST_T *input, ulong in_offset, long step, ulong n, ulong chunk,
    V lower, V upper, V scale, W width, __global const CLGPU_HIST_T *edges, ulong edges_offset,
    long edges_step, ulong bins, __global uint *rows, ulong rows_offset, int row_of_group,
    __local uint *hist, __local V *local_edges) {
  ulong g = get_group_id(0);
  uint lid = (uint)get_local_id(0);
  ulong start = g * chunk;
  ulong end = start + chunk < n ? start + chunk : n;
#ifdef CLGPU_HIST_LOCAL_EDGES
  for (ulong k = lid; k <= bins; k += CLGPU_GROUP) {
    local_edges[k] = CLGPU_HIST_LOAD(edges, (long)(edges_offset + (ulong)((long)k * edges_step)));
  }
#endif
#ifdef CLGPU_HIST_GLOBAL
  __global uint *row = rows + rows_offset + (row_of_group ? g * bins : 0ul);
#ifdef CLGPU_HIST_LOCAL_EDGES
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  for (ulong k = start + lid; k < end; k += CLGPU_GROUP) {
    ulong b = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)));
    if (b < bins) atomic_inc(&row[b]);
  }
#else
  for (ulong k = lid; k < bins; k += CLGPU_GROUP) hist[k] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong k = start + lid; k < end; k += CLGPU_GROUP) {
    ulong b = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)));
    if (b < bins) CLGPU_HIST_LOCAL_ADD(&hist[b]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __global uint *row = rows + rows_offset + g * bins;
  for (ulong k = lid; k < bins; k += CLGPU_GROUP) row[k] = hist[k];
#endif
}

/* Zeroes `count` uints of the global rows before clgpu_histogram_count
 * adds to them: one per work-item. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_histogram_zero(
    __global uint *rows, ulong rows_offset, ulong count) {
  ulong k = get_global_id(0);
  if (k < count) rows[rows_offset + k] = 0u;
}

/* counts[b] = the sum over the `num_rows` rows of their bin b, for the
 * bins b this work-item takes (every global_size-th from its id). */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_histogram_sum(
    __global const uint *rows, ulong rows_offset, ulong num_rows, ulong bins,
    __global CLGPU_HIST_COUNT_T *counts, ulong counts_offset, long counts_step) {
  ulong items = get_global_size(0);
  for (ulong b = get_global_id(0); b < bins; b += items) {
    ulong sum = 0;
    for (ulong r = 0; r < num_rows; r++) sum += rows[rows_offset + r * bins + b];
    counts[(long)(counts_offset + (ulong)((long)b * counts_step))] = (CLGPU_HIST_COUNT_T)sum;
  }
}
