/* Elementwise kernels: the skeleton of every kind (src/ops/elementwise.c says
 * which program serves which layout). Built after cl/common.cl and the
 * host's generated parts, as
 *   common.cl, arguments, [preamble], elementwise.cl, operation, elementwise.cl
 * The first copy of this file opens the kernel up to the user's operation,
 * which the host places verbatim (with its own #line) in a `do { } while
 * (0)`, so that a `break` or `continue` of the operation ends this element
 * on every layout; the second copy closes it.
 *
 * Defines of the generated "arguments" part:
 *   CLGPU_PARAMS          the arrays (pointer clgpu_a<k> and element offset
 *                         clgpu_o<k> per slot k), clgpu_oi when the operation
 *                         uses `i`, the scalars by their own names, and
 *                         clgpu_count, in that order
 *   CLGPU_EACH_SLOT(X, d) X(k, d) for every slot k: 0, 1, ... and i (the
 *                         index, a virtual array) when the operation uses it
 *   CLGPU_LOADS           the element's variables: loaded inputs, zeroed
 *                         outputs, at CLGPU_AT(k) (defined here per kind)
 *   CLGPU_STORES          the outputs written back at CLGPU_AT(k)
 *   CLGPU_USES_INDEX      optional: the operation uses `i`
 *   CLGPU_CONTIGUOUS      the contiguous kind: one element per work-item
 *   CLGPU_GENERIC         the generic kind: extents and strides are the
 *                         kernel's arguments (rank CLGPU_MAX_RANK)
 *   (neither)             a specialised kind: extents CLGPU_SHAPE_<d> and
 *                         strides CLGPU_STRIDE_<k>_<d> are defines
 *   CLGPU_RANK, CLGPU_INNER  the strided kinds: the rank and the rank - 1
 *                         (the fastest dimension), as plain numbers
 *   CLGPU_TILE            optional, specialised: the blocked walk for CPU
 *                         devices, blocking dimension CLGPU_TILE with the
 *                         fastest one in squares of CLGPU_BLOCK, a
 *                         work-item taking CLGPU_BANDS bands of the last
 *                         dimension over CLGPU_ROWS rows of the tile one
 *                         (a multiple of CLGPU_BLOCK)
 *   CLGPU_SCALAR_RUN      optional: keep the run loop scalar (see below)
 * and CLGPU_NEEDS_FP64 for common.cl when an argument is double. */
#ifndef CLGPU_ELEMENTWISE_TAIL

#ifdef CLGPU_GENERIC
#define CLGPU_EXTENT_(d) clgpu_shape.s##d
#define CLGPU_STEP_(k, d) clgpu_s##k.s##d
#else
#define CLGPU_EXTENT_(d) CLGPU_SHAPE_##d
#define CLGPU_STEP_(k, d) CLGPU_STRIDE_##k##_##d
#endif
/* The extent of dimension d and slot k's stride along it; d may be a macro
 * naming a number (CLGPU_INNER). */
#define CLGPU_EXTENT(d) CLGPU_EXTENT_(d)
#define CLGPU_STEP(k, d) CLGPU_STEP_(k, d)

/* A position's offset over the first n dimensions from the indices
 * clgpu_x<d>: CLGPU_DOT(n, k). */
#define CLGPU_TERM(k, d) + (long)clgpu_x##d * (long)CLGPU_STEP(k, d)
#define CLGPU_DOT1(k) CLGPU_TERM(k, 0)
#define CLGPU_DOT2(k) CLGPU_DOT1(k) CLGPU_TERM(k, 1)
#define CLGPU_DOT3(k) CLGPU_DOT2(k) CLGPU_TERM(k, 2)
#define CLGPU_DOT4(k) CLGPU_DOT3(k) CLGPU_TERM(k, 3)
#define CLGPU_DOT5(k) CLGPU_DOT4(k) CLGPU_TERM(k, 4)
#define CLGPU_DOT6(k) CLGPU_DOT5(k) CLGPU_TERM(k, 5)
#define CLGPU_DOT7(k) CLGPU_DOT6(k) CLGPU_TERM(k, 6)
#define CLGPU_DOT8(k) CLGPU_DOT7(k) CLGPU_TERM(k, 7)
#define CLGPU_DOT(n, k) CLGPU_CAT(CLGPU_DOT, n)(k)

#define CLGPU_STRIDES_PARAM(k, d) , long8 clgpu_s##k

__kernel void clgpu_elementwise(CLGPU_PARAMS
#ifndef CLGPU_CONTIGUOUS
                                , ulong clgpu_chunk
#endif
#ifdef CLGPU_GENERIC
                                , ulong8 clgpu_shape CLGPU_EACH_SLOT(CLGPU_STRIDES_PARAM, 0)
#endif
) {
#if defined(CLGPU_CONTIGUOUS)
  /* ---- contiguous: work-item g takes element g of every array ---- */
#define CLGPU_AT(k) clgpu_o##k + (long)clgpu_g
  const ulong clgpu_g = get_global_id(0);
#ifdef CLGPU_GROUP_BOUND
  /* Only the last group holds work-items past the count, and the test
   * is the group's before it is the work-item's (the tuning table's
   * group_bound_check): POCL's compiler, which runs a group as one
   * loop over its work-items, vectorises that loop only so. */
  if (get_group_id(0) == get_num_groups(0) - 1 && clgpu_g >= clgpu_count) return;
#else
  if (clgpu_g >= clgpu_count) return;
#endif

#elif defined(CLGPU_TILE)
  /* ---- blocked, for CPU devices ----
   * When an array is fastest along another dimension (CLGPU_TILE) than the
   * one the outputs are fastest along (the last): a transposed input, for
   * example. Walking rows of the output would then read that array with a
   * long stride per element, touching a new cache line each time. Instead
   * each work-item takes a band of CLGPU_BLOCK indices of the last
   * dimension (and one index of each other dimension but the tile
   * dimension, decoded once), and walks it down the tile dimension in
   * squares of CLGPU_BLOCK x CLGPU_BLOCK, in which both arrays stay in the
   * cache. Down the tile dimension rather than along the last: the
   * transposed array is then read as CLGPU_BLOCK runs that go on from one
   * square to the next, which the hardware prefetches, and the outputs
   * are written a line per row of a square. POCL, a 4096 x 4096 float
   * transpose in squares of 16, this kernel alone against the walk along
   * the last dimension, alternating in one process (2026-12-06): 0.655 of
   * the time; Intel's CPU runtime 0.94-0.99. Every extent is a constant
   * here. */
#define CLGPU_BAND_DECODE(d)                                                         \
  ulong clgpu_x##d;                                                                  \
  {                                                                                  \
    ulong clgpu_q = clgpu_rest / (ulong)CLGPU_EXTENT(d);                             \
    clgpu_x##d = clgpu_rest - clgpu_q * (ulong)CLGPU_EXTENT(d);                      \
    clgpu_rest = clgpu_q;                                                            \
  }
#define CLGPU_BAND_START(k, d) const long clgpu_b##k = clgpu_o##k CLGPU_DOT(d, k);
#define CLGPU_ROW_START(k, d)                                                        \
  const long clgpu_p##k = clgpu_b##k + (long)clgpu_r * (long)CLGPU_STEP(k, d) +      \
                          (long)clgpu_c0 * (long)CLGPU_STEP(k, CLGPU_INNER);
#define CLGPU_AT(k) clgpu_p##k + (long)clgpu_j * (long)CLGPU_STEP(k, CLGPU_INNER)
  /* A work-item takes CLGPU_BANDS neighbouring bands (the last of them
   * possibly fewer) and CLGPU_ROWS rows of the tile dimension, the bands
   * one after another over the same rows: with more than one band, the
   * rows' pages of the arrays fastest along the last dimension are met
   * again by every band, while the address translations are still held
   * (docs/elementwise.md). The item's index: its bands fastest, then its
   * rows, then the other dimensions. */
  const ulong clgpu_bands = ((ulong)CLGPU_EXTENT(CLGPU_INNER) + CLGPU_BLOCK - 1) / CLGPU_BLOCK;
  const ulong clgpu_band_groups = (clgpu_bands + CLGPU_BANDS - 1) / CLGPU_BANDS;
  const ulong clgpu_row_groups =
      ((ulong)CLGPU_EXTENT(CLGPU_TILE) + CLGPU_ROWS - 1) / CLGPU_ROWS;
  ulong clgpu_rest = (ulong)get_global_id(0) / clgpu_band_groups;
  const ulong clgpu_band_group = (ulong)get_global_id(0) - clgpu_rest * clgpu_band_groups;
  const ulong clgpu_row_group = clgpu_rest % clgpu_row_groups;
  clgpu_rest /= clgpu_row_groups;
#if CLGPU_INNER > 6 && CLGPU_TILE != 6
  CLGPU_BAND_DECODE(6)
#endif
#if CLGPU_INNER > 5 && CLGPU_TILE != 5
  CLGPU_BAND_DECODE(5)
#endif
#if CLGPU_INNER > 4 && CLGPU_TILE != 4
  CLGPU_BAND_DECODE(4)
#endif
#if CLGPU_INNER > 3 && CLGPU_TILE != 3
  CLGPU_BAND_DECODE(3)
#endif
#if CLGPU_INNER > 2 && CLGPU_TILE != 2
  CLGPU_BAND_DECODE(2)
#endif
#if CLGPU_INNER > 1 && CLGPU_TILE != 1
  CLGPU_BAND_DECODE(1)
#endif
#if CLGPU_TILE != 0
  CLGPU_BAND_DECODE(0)
#endif
  if (clgpu_rest != 0) return;
  const ulong CLGPU_CAT(clgpu_x, CLGPU_TILE) = 0;
  CLGPU_EACH_SLOT(CLGPU_BAND_START, CLGPU_INNER)
  /* Where a dimension's extent is a multiple of CLGPU_BLOCK, its loop
   * bound is the constant (the compiler folds the test): Intel's CPU
   * runtime ran a 4096 x 4096 float transpose in 0.66-0.68 of the time
   * so, with the bounds through min(); POCL alike either way. */
  const ulong clgpu_first_row = clgpu_row_group * CLGPU_ROWS;
  const ulong clgpu_end_row = min(clgpu_first_row + CLGPU_ROWS, (ulong)CLGPU_EXTENT(CLGPU_TILE));
  const ulong clgpu_end_band = min(clgpu_band_group * CLGPU_BANDS + CLGPU_BANDS, clgpu_bands);
  /* The band loop's body keeps the indentation of the walk it wraps (the
   * loops close in the tail section below, one brace each). */
  for (ulong clgpu_band = clgpu_band_group * CLGPU_BANDS; clgpu_band < clgpu_end_band;
       clgpu_band++) {
  const ulong clgpu_c0 = clgpu_band * CLGPU_BLOCK;
  const ulong clgpu_run =
      (ulong)CLGPU_EXTENT(CLGPU_INNER) % CLGPU_BLOCK == 0
          ? (ulong)CLGPU_BLOCK
          : min((ulong)CLGPU_BLOCK, (ulong)CLGPU_EXTENT(CLGPU_INNER) - clgpu_c0);
  for (ulong clgpu_t0 = clgpu_first_row; clgpu_t0 < clgpu_end_row; clgpu_t0 += CLGPU_BLOCK) {
    /* CLGPU_ROWS is a multiple of CLGPU_BLOCK (the host rounds it). */
    const ulong clgpu_rows = (ulong)CLGPU_EXTENT(CLGPU_TILE) % CLGPU_BLOCK == 0
                                 ? clgpu_t0 + CLGPU_BLOCK
                                 : min(clgpu_t0 + CLGPU_BLOCK, (ulong)CLGPU_EXTENT(CLGPU_TILE));
    for (ulong clgpu_r = clgpu_t0; clgpu_r < clgpu_rows; clgpu_r++) {
      CLGPU_EACH_SLOT(CLGPU_ROW_START, CLGPU_TILE)
      /* See the strided kind's loop. With CLGPU_GATHER_RUN (the tuning
       * table's blocked_gather: every stride along the run is 0, +-1 or
       * far, and the elements 4 or 8 bytes) the run is vectorised instead:
       * POCL 3.1 gathers a transposed array's elements, 16M floats in
       * 10.9-11.8 ms against 15.8 for the scalar loop. */
#if defined(CLGPU_GATHER_RUN)
#pragma clang loop vectorize(enable)
#elif defined(CLGPU_SCALAR_RUN)
#pragma clang loop vectorize(disable)
#endif
      for (ulong clgpu_j = 0; clgpu_j < clgpu_run; clgpu_j++) {

#else
  /* ---- strided, over CLGPU_RANK dimensions ----
   * Decode the first index with divisions once, then run along the fastest
   * dimension and carry into the slower ones between runs. The outermost
   * extent is never needed: the loop ends at the chunk's end before
   * dimension 0 could wrap. In the generic kernel, dimensions past the
   * layout's rank are padding of extent 1 at the front, which the decode
   * skips once the rest is 0. */
#ifdef CLGPU_GENERIC
#define CLGPU_IF_REST if (clgpu_rest != 0)
#else
#define CLGPU_IF_REST
#endif
#define CLGPU_DECODE(d)                                                              \
  ulong clgpu_x##d = 0;                                                              \
  CLGPU_IF_REST {                                                                    \
    ulong clgpu_q = clgpu_rest / (ulong)CLGPU_EXTENT(d);                             \
    clgpu_x##d = clgpu_rest - clgpu_q * (ulong)CLGPU_EXTENT(d);                      \
    clgpu_rest = clgpu_q;                                                            \
  }
#define CLGPU_START(k, d) long clgpu_p##k = clgpu_o##k CLGPU_DOT(d, k);
#define CLGPU_AT(k) clgpu_p##k + (long)clgpu_j * (long)CLGPU_STEP(k, CLGPU_INNER)
  ulong clgpu_first = (ulong)get_global_id(0) * clgpu_chunk;
  if (clgpu_first >= clgpu_count) return;
  ulong clgpu_last = min(clgpu_first + clgpu_chunk, clgpu_count);
  ulong clgpu_rest = clgpu_first;
#if CLGPU_RANK > 7
  CLGPU_DECODE(7)
#endif
#if CLGPU_RANK > 6
  CLGPU_DECODE(6)
#endif
#if CLGPU_RANK > 5
  CLGPU_DECODE(5)
#endif
#if CLGPU_RANK > 4
  CLGPU_DECODE(4)
#endif
#if CLGPU_RANK > 3
  CLGPU_DECODE(3)
#endif
#if CLGPU_RANK > 2
  CLGPU_DECODE(2)
#endif
#if CLGPU_RANK > 1
  CLGPU_DECODE(1)
#endif
  ulong clgpu_x0 = clgpu_rest;
  CLGPU_EACH_SLOT(CLGPU_START, CLGPU_RANK)
  for (ulong clgpu_linear = clgpu_first;;) {
#if CLGPU_RANK == 1
    ulong clgpu_run = clgpu_last - clgpu_linear;
#else
    ulong clgpu_run = min((ulong)CLGPU_EXTENT(CLGPU_INNER) - CLGPU_CAT(clgpu_x, CLGPU_INNER),
                          clgpu_last - clgpu_linear);
#endif
    /* When an array's stride along the run is a constant other than 0 and
     * +-1, the loop is kept scalar: LLVM (POCL 3.1) vectorises such loops
     * with interleaved loads that ran 2.5 times slower than the scalar loop
     * (a stride-2 copy: 7.6 ms against 2.9 ms for 8M floats). Compilers
     * that do not know the pragma ignore it. */
#ifdef CLGPU_SCALAR_RUN
#pragma clang loop vectorize(disable)
#endif
    for (ulong clgpu_j = 0; clgpu_j < clgpu_run; clgpu_j++) {
#endif

      /* ---- the element ---- */
      {
#ifdef CLGPU_USES_INDEX
        const ulong i = (ulong)(CLGPU_AT(i));
#endif
        CLGPU_LOADS
        do {
#define CLGPU_ELEMENTWISE_TAIL
/* The operation follows, then this file again. */

#else /* CLGPU_ELEMENTWISE_TAIL: after the operation */
        } while (0);
        CLGPU_STORES
      }

#if defined(CLGPU_CONTIGUOUS)
}

#elif defined(CLGPU_TILE)
      }
    }
  }
  }
}

#else
    }
    clgpu_linear += clgpu_run;
    if (clgpu_linear >= clgpu_last) break;
#if CLGPU_RANK > 1
/* The run ended at its row's end: back to the row's start, then carry. */
#define CLGPU_ROW_BACK(k, d) clgpu_p##k -= (long)clgpu_x##d * (long)CLGPU_STEP(k, d);
#define CLGPU_ADVANCE(k, d) clgpu_p##k += CLGPU_STEP(k, d);
#define CLGPU_REWIND(k, d) clgpu_p##k -= ((long)CLGPU_EXTENT(d) - 1) * (long)CLGPU_STEP(k, d);
#define CLGPU_CARRY(d)                                                               \
  if (++clgpu_x##d < (ulong)CLGPU_EXTENT(d)) {                                       \
    CLGPU_EACH_SLOT(CLGPU_ADVANCE, d)                                                \
    continue;                                                                        \
  }                                                                                  \
  clgpu_x##d = 0;                                                                    \
  CLGPU_EACH_SLOT(CLGPU_REWIND, d)
    CLGPU_EACH_SLOT(CLGPU_ROW_BACK, CLGPU_INNER)
    CLGPU_CAT(clgpu_x, CLGPU_INNER) = 0;
#if CLGPU_INNER > 6
    CLGPU_CARRY(6)
#endif
#if CLGPU_INNER > 5
    CLGPU_CARRY(5)
#endif
#if CLGPU_INNER > 4
    CLGPU_CARRY(4)
#endif
#if CLGPU_INNER > 3
    CLGPU_CARRY(3)
#endif
#if CLGPU_INNER > 2
    CLGPU_CARRY(2)
#endif
#if CLGPU_INNER > 1
    CLGPU_CARRY(1)
#endif
    {
      clgpu_x0++;
      CLGPU_EACH_SLOT(CLGPU_ADVANCE, 0)
      continue;
    }
#endif
  }
}
#endif

#endif /* CLGPU_ELEMENTWISE_TAIL */
