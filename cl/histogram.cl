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
 *                                bin taking what reaches `bins` (upper
 *                                itself, and what rounds up to it)
 *                      6 EDGES   the last edge <= x below the last one,
 *                                found by bisection
 *                      7 MULHI   integers, 2^64 values: mul_hi(d, bins)
 *                      where d = x - lower (exact, as an unsigned integer)
 *                      and range = upper - lower + 1, the number of values
 *                      (`width` in MULDIV and WIDE). Elements from lower
 *                      to upper are counted, upper included (the last
 *                      edge in EDGES)
 *   CLGPU_HIST_W       the integer modes' arithmetic: uint or ulong (the
 *                      host picks uint when d, width and the products fit)
 *   CLGPU_HIST_D       the integer modes' difference type: uint for types
 *                      of up to 32 bits, ulong for 64-bit ones
 *   CLGPU_HIST_ALL     optional, integer modes: the range is the type's
 *                      whole range, so no element is outside it
 *   CLGPU_HIST_SMALL   optional, SCALE: bins - 1 is exact in V and below
 *                      2^31 (at most 2^24 bins for float, 2^31 for double)
 *   CLGPU_HIST_GLOBAL  optional: counts go straight to a row in global
 *                      memory with atomics (too many bins for a row per
 *                      group, or local memory); else each group counts in
 *                      a row of its own (clgpu_histogram_count)
 *   CLGPU_HIST_LOCAL_EDGES optional, with EDGES: the edges are copied to
 *                      local memory first
 *   CLGPU_HIST_STRIDED optional: the input is read with its stride (else
 *                      it is contiguous)
 *   CLGPU_HIST_WORDS   optional: 4-byte integers in SHIFT, DIVIDE or
 *                      MULDIV with W uint (their bins in uint4 arithmetic)
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
#ifdef CLGPU_HIST_D
typedef CLGPU_HIST_D D;
#endif

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
  if (!(CLGPU_HIST_EDGE(0) <= x) || !(x <= CLGPU_HIST_EDGE(bins))) return bins;
  /* edge[lo] <= x, and x < edge[hi] unless hi is the last edge (the last
   * bin is closed) */
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
  /* The bin is computed for every element and an element outside every
   * bin then selected away: no branch depends on the data. */
#if CLGPU_HIST_MODE == 5
  int in = (x >= lower) & (x <= upper);
#ifdef CLGPU_HIST_SMALL
  /* bins - 1 is exact in V and the clamped value fits an int, whose
   * conversion is one instruction (a float to ulong one is several). */
  V t = min(max((V)(x - lower) * scale, (V)0), (V)(bins - 1ul));
  ulong b = (ulong)(uint)(int)t;
#else
  /* Clamped before the conversion, which is undefined past ulong (x -
   * lower may overflow to +inf over a range wider than V's largest). */
  ulong b = (ulong)min((V)(x - lower) * scale, (V)(bins - 1ul));
  b = b < bins ? b : bins - 1ul;
#endif
  return in ? b : bins;
#else
  /* x - lower modulo 2^32 (2^64): at most upper - lower exactly when x is
   * in range, as any two values of the type differ by less than that. */
  D d = (D)x - (D)lower;
#if CLGPU_HIST_MODE == 1
  ulong b = (ulong)((W)d >> width);
#elif CLGPU_HIST_MODE == 2
  ulong b = (ulong)((W)d / width);
#elif CLGPU_HIST_MODE == 3
  ulong b = (ulong)((W)d * (W)bins / width);
#elif CLGPU_HIST_MODE == 7
  ulong b = mul_hi((ulong)d, bins);
#else
  ulong b = clgpu_hist_divide_wide(mul_hi((ulong)d, bins), (ulong)d * bins, (ulong)width);
#endif
#ifdef CLGPU_HIST_ALL
  return b;
#else
  return d <= (D)upper - (D)lower ? b : bins;
#endif
#endif
}
#endif

/* SCALE over contiguous float or double, bins within an int: the CHUNKED
 * loop bins four values in vector arithmetic. */
#if CLGPU_HIST_MODE == 5 && defined(CLGPU_HIST_SMALL) && !defined(CLGPU_HIST_STRIDED) && \
    !defined(CLGPU_HIST_HALF) && CLGPU_GROUP == 1 && !defined(CLGPU_HIST_GLOBAL)
#define CLGPU_HIST_VECTOR 1
#define CLGPU_HIST_PASTE4_(t) t##4
#define CLGPU_HIST_PASTE4(t) CLGPU_HIST_PASTE4_(t)
#define CLGPU_HIST_V4 CLGPU_HIST_PASTE4(CLGPU_HIST_V)
#endif

/* The same for 4-byte integers, as uint4. */
#if defined(CLGPU_HIST_WORDS) && !defined(CLGPU_HIST_STRIDED) && CLGPU_GROUP == 1 && \
    !defined(CLGPU_HIST_GLOBAL)
#define CLGPU_HIST_IVECTOR 1
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

/* Group g counts elements [g * chunk, min(n, (g + 1) * chunk)):
 * - CHUNKED, CLGPU_HIST_GLOBAL not defined: into its own row of `pitch` =
 *   bins + 16 counters in `rows`, which it zeroes first. Elements outside
 *   every bin count in one of the 16 spare counters past the bins (chosen
 *   by position, so that no long chain of increments of one counter
 *   forms), so no branch depends on the data; four elements' bins are
 *   found before their four increments.
 * - TILED, CLGPU_HIST_GLOBAL not defined: in local memory with atomics,
 *   then written to row g (pitch bins).
 * - CLGPU_HIST_GLOBAL: with global atomics into row `row_of_group ? g : 0`,
 *   zeroed before by clgpu_histogram_zero. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_histogram_count(
    __global const CLGPU_HIST_T *input, ulong in_offset, long step, ulong n, ulong chunk,
    V lower, V upper, V scale, W width, __global const CLGPU_HIST_T *edges, ulong edges_offset,
    long edges_step, ulong bins, __global uint *rows, ulong rows_offset, ulong pitch,
    int row_of_group, __local uint *hist, __local V *local_edges) {
  ulong g = get_group_id(0);
  uint lid = (uint)get_local_id(0);
  ulong start = g * chunk;
  ulong end = start + chunk < n ? start + chunk : n;
#ifdef CLGPU_HIST_LOCAL_EDGES
  for (ulong k = lid; k <= bins; k += CLGPU_GROUP) {
    local_edges[k] = CLGPU_HIST_LOAD(edges, (long)(edges_offset + (ulong)((long)k * edges_step)));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
#ifdef CLGPU_HIST_GLOBAL
  __global uint *row = rows + rows_offset + (row_of_group ? g * pitch : 0ul);
  for (ulong k = start + lid; k < end; k += CLGPU_GROUP) {
    ulong b = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)));
    if (b < bins) atomic_inc(&row[b]);
  }
#elif CLGPU_GROUP == 1
  __global uint *row = rows + rows_offset + g * pitch;
  for (ulong k = 0; k < pitch; k++) row[k] = 0u;
  ulong k = start;
#ifdef CLGPU_HIST_VECTOR
  /* Four contiguous floats' bins at once in vector arithmetic (a float's
   * bin is several instructions; the increments stay scalar). */
  uint4 lane = (uint4)(0u, 1u, 2u, 3u);
  for (; k + 4 <= end; k += 4) {
    CLGPU_HIST_V4 v = vload4(0, input + in_offset + k);
    int4 in = convert_int4((v >= lower) & (v <= upper));
    CLGPU_HIST_V4 t = min(max((v - lower) * scale, (CLGPU_HIST_V4)0), (CLGPU_HIST_V4)(bins - 1ul));
    uint4 spare = (uint4)(uint)bins + (((uint4)(uint)(k & 15ul) + lane) & 15u);
    uint4 b = select(spare, as_uint4(convert_int4(t)), in);
    row[b.s0] += 1u;
    row[b.s1] += 1u;
    row[b.s2] += 1u;
    row[b.s3] += 1u;
  }
#endif
#ifdef CLGPU_HIST_IVECTOR
  /* Four contiguous integers' bins at once: d = x - lower modulo 2^32 in
   * each lane, then the mode's formula in uint, as clgpu_hist_bin does. */
  uint4 lane = (uint4)(0u, 1u, 2u, 3u);
  uint4 base = (uint4)(uint)lower;
  for (; k + 4 <= end; k += 4) {
    uint4 d = as_uint4(vload4(0, input + in_offset + k)) - base;
#if CLGPU_HIST_MODE == 1
    uint4 b = d >> (uint4)(uint)width;
#elif CLGPU_HIST_MODE == 2
    uint4 b = d / (uint4)(uint)width;
#else
    uint4 b = d * (uint4)(uint)bins / (uint4)(uint)width;
#endif
#ifndef CLGPU_HIST_ALL
    uint4 spare = (uint4)(uint)bins + (((uint4)(uint)(k & 15ul) + lane) & 15u);
    b = select(spare, b, d <= (uint4)((uint)upper - (uint)lower));
#endif
    row[b.s0] += 1u;
    row[b.s1] += 1u;
    row[b.s2] += 1u;
    row[b.s3] += 1u;
  }
#endif
  for (; k + 4 <= end; k += 4) {
    ulong b0 = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)));
    ulong b1 = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k + 1)));
    ulong b2 = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k + 2)));
    ulong b3 = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k + 3)));
    row[b0 == bins ? bins + (k & 15ul) : b0] += 1u;
    row[b1 == bins ? bins + ((k + 1ul) & 15ul) : b1] += 1u;
    row[b2 == bins ? bins + ((k + 2ul) & 15ul) : b2] += 1u;
    row[b3 == bins ? bins + ((k + 3ul) & 15ul) : b3] += 1u;
  }
  for (; k < end; k++) row[CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)))] += 1u;
#else
  for (ulong k = lid; k < bins; k += CLGPU_GROUP) hist[k] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong k = start + lid; k < end; k += CLGPU_GROUP) {
    ulong b = CLGPU_HIST_BIN((V)CLGPU_HIST_LOAD(input, CLGPU_HIST_AT(k)));
    if (b < bins) atomic_inc(&hist[b]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __global uint *row = rows + rows_offset + g * pitch;
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

/* counts[b] = the sum over the `num_rows` rows (`pitch` apart) of their
 * bin b, for the bins b this work-item takes (every global_size-th from
 * its id). */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_histogram_sum(
    __global const uint *rows, ulong rows_offset, ulong num_rows, ulong pitch, ulong bins,
    __global CLGPU_HIST_COUNT_T *counts, ulong counts_offset, long counts_step) {
  ulong items = get_global_size(0);
  for (ulong b = get_global_id(0); b < bins; b += items) {
    ulong sum = 0;
    for (ulong r = 0; r < num_rows; r++) sum += rows[rows_offset + r * pitch + b];
    counts[(long)(counts_offset + (ulong)((long)b * counts_step))] = (CLGPU_HIST_COUNT_T)sum;
  }
}
