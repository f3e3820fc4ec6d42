/* Reductions, scans and findall: one family, one program per (element type,
 * operator, algorithm shape).
 *
 * Defines (the host writes every one of them, src/ops/reduce_program.c):
 *   CLGPU_T             the input element type
 *   CLGPU_A             the accumulator type
 *   CLGPU_R             the result type (reduce) or output type (scan)
 *   CLGPU_MAP_EXPR      an expression over x (T) and i (ulong): the mapped element
 *   CLGPU_REDUCE_EXPR   an expression over a and b (A): the operator
 *   CLGPU_NEUTRAL       the operator's neutral element (A)
 *   CLGPU_STORE_EXPR    an expression over a (A) giving R
 *   CLGPU_EMPTY         the result of a reduction over no element (R)
 *   CLGPU_INITIAL       optional: combined once, REDUCE(initial, result)
 *   CLGPU_ARG           optional: argmin/argmax; A is T and an index travels
 *                       with each value; CLGPU_ORDER decides which is better
 *   CLGPU_ORDER         optional: 1 min order, 2 max order (clgpu_before)
 *   CLGPU_KEY_T, CLGPU_KEY_AS, CLGPU_KEY_TOP
 *                       for float types under CLGPU_ORDER: the unsigned type
 *                       of the same size, its as_ function, its top bit
 *   CLGPU_VECTOR_OP     optional, CHUNKED only: 1 sum, 2 product, 3 min,
 *                       4 max: the operator also works lane-wise on A16
 *   CLGPU_VSTORE_EXPR   optional, with CLGPU_VECTOR_OP 1: an expression over
 *                       r (A16) giving the output's 16-vector (scans)
 *   CLGPU_VMASK         with CLGPU_VSTORE_EXPR: the unsigned integer type of
 *                       A's size (shuffle masks)
 *   CLGPU_COUNTS        optional, CHUNKED count_if: the map gives 0 or 1 and
 *                       the operator is +, so a chunk counts in a uint
 *   CLGPU_COMMUTES      optional, scans: the operator commutes, so that
 *                       clgpu_scan_totals may fold a range in the TILED
 *                       reduce's coalesced order
 *   CLGPU_SUBGROUPS     optional, TILED: the device has sub-groups (their
 *                       scans replace the tree in findall's tile scan)
 *   CLGPU_SUBGROUP_ADD  optional, with CLGPU_SUBGROUPS: the operator is +
 *                       over int, uint, long, ulong, float or double (the
 *                       types sub-group scans take): the tile scan of
 *                       clgpu_scan_ranges uses them
 *   CLGPU_SLICES        optional, TILED: each group's range is cut into this
 *                       many slices, and the totals of a scan and the counts
 *                       of findall have one entry per slice (group g's at
 *                       g * CLGPU_SLICES + i). With sub-groups and an add
 *                       (CLGPU_SUBGROUP_ADD, or findall's counts), each
 *                       sub-group walks whole slices alone (clgpu_sliced);
 *                       without them a group's total goes to its first
 *                       entry and the others hold the neutral element
 *   CLGPU_LANE_RUNS     optional, with slices: findall's items take runs of
 *                       ITEMS consecutive elements instead of rows (CPU
 *                       runtimes; rows are what a GPU coalesces)
 *   CLGPU_TILE_STEP     optional, TILED: a barrier after each whole tile of
 *                       a range walk (CPU runtimes, which run a group's
 *                       work-items one after another between barriers)
 *   CLGPU_GROUP         work-items per group (a power of two)
 *   CLGPU_ITEMS         elements per work-item per tile (TILED)
 *   CLGPU_KERNELS       optional: the families of kernels to build, a sum
 *                       of 1 (reduce), 2 (scan) and 4 (findall); without
 *                       it, every one. POCL parses a program's whole
 *                       binary when a process loads it, so fewer kernels
 *                       load faster
 *   CLGPU_OPERATOR_ONLY optional: stop after the operator (the order and
 *                       clgpu_map, clgpu_combine, clgpu_store), for a file
 *                       built after this one (cl/runs.cl)
 *   CLGPU_NEEDS_FP64, CLGPU_NEEDS_FP16 (read by common.cl, built before
 *                       this file; CLGPU_CAT is from there too)
 *
 * Every kernel works on ranges: group g owns elements
 * [g * chunk, min(n, (g + 1) * chunk)). Buffers are passed as (buffer,
 * element offset) (docs/portability.md rule 13). Barriers sit only in loops whose
 * bounds are the same for the whole group (rule 3); partial tiles load the
 * neutral element. No group waits for another (rule 1): multi-pass work is
 * separate kernels. */
#if !defined(CLGPU_T) || !defined(CLGPU_A) || !defined(CLGPU_R) || !defined(CLGPU_GROUP)
#error "reduce.cl needs CLGPU_T, CLGPU_A, CLGPU_R and CLGPU_GROUP"
#endif

/* Whether the program holds a family of kernels (CLGPU_KERNELS). */
#ifdef CLGPU_KERNELS
#define CLGPU_FAMILY(bit) ((CLGPU_KERNELS) & (bit))
#else
#define CLGPU_FAMILY(bit) 1
#endif

typedef CLGPU_T T;
typedef CLGPU_A A;
typedef CLGPU_R R;

/* ---- the order of MIN, MAX, ARGMIN, ARGMAX ---- */

#ifdef CLGPU_ORDER
#ifdef CLGPU_KEY_T
/* Floats: NaNs rank last (so they are ignored until only NaNs are left);
 * other values by their bits as the sorts order them: a negative value has
 * all bits flipped, a positive one its sign bit. Different bits give
 * different keys, so the order is total and ties mean equal bits. */
inline CLGPU_KEY_T clgpu_key(A v) {
  CLGPU_KEY_T u = CLGPU_KEY_AS(v);
  CLGPU_KEY_T top = (CLGPU_KEY_T)1 << CLGPU_KEY_TOP;
  return (u & top) ? (CLGPU_KEY_T)~u : (CLGPU_KEY_T)(u | top);
}
/* Whether a comes strictly before b: in the min order a smaller key first,
 * in the max order a larger key first; NaNs after everything else in both. */
inline int clgpu_before(A a, A b) {
  int a_nan = isnan(a) ? 1 : 0;
  int b_nan = isnan(b) ? 1 : 0;
  if (a_nan != b_nan) return b_nan;
#if CLGPU_ORDER == 1
  return clgpu_key(a) < clgpu_key(b);
#else
  return clgpu_key(a) > clgpu_key(b);
#endif
}
inline int clgpu_same(A a, A b) { return CLGPU_KEY_AS(a) == CLGPU_KEY_AS(b); }
#else
inline int clgpu_before(A a, A b) {
#if CLGPU_ORDER == 1
  return a < b;
#else
  return a > b;
#endif
}
inline int clgpu_same(A a, A b) { return a == b; }
#endif
/* The better of two values; on a tie both are the same bits. */
inline A clgpu_pick(A a, A b) { return clgpu_before(b, a) ? b : a; }
#endif

/* ---- the operator ---- */

inline A clgpu_map(T x, ulong i) { return (A)(CLGPU_MAP_EXPR); }
inline A clgpu_combine(A a, A b) { return (A)(CLGPU_REDUCE_EXPR); }
inline R clgpu_store(A a) { return (R)(CLGPU_STORE_EXPR); }

#ifdef CLGPU_ARG
/* (value, index) pairs: the better value, and on equal bits the smaller
 * index; the neutral pair has index ULONG_MAX, so it loses every tie. The
 * result does not depend on the order of combining. */
inline int clgpu_arg_takes(A value, ulong index, A other, ulong other_index) {
  if (clgpu_same(value, other)) return other_index < index;
  return clgpu_before(other, value);
}
#endif

/* The range of group g: [g * chunk, min(n, (g + 1) * chunk)), empty past
 * n. Kept with the operator, as the programs built on it share it. */
inline void clgpu_range(ulong n, ulong chunk, ulong *begin, ulong *end) {
  ulong b = (ulong)get_group_id(0) * chunk;
  if (b > n) b = n;
  *begin = b;
  *end = n - b < chunk ? n : b + chunk;
}

/* CLGPU_OPERATOR_ONLY: the operator above (and clgpu_range) and nothing
 * more, for programs that build their own kernels on it (cl/runs.cl,
 * cl/partition.cl). */
#ifndef CLGPU_OPERATOR_ONLY

/* ---- combining the work-items of a group (TILED) ---- */

#if CLGPU_GROUP > 1
/* Tree reduction of one value per work-item; the result is returned to
 * every item. Called by every item of the group. */
inline A clgpu_group_reduce(A value, __local A *scratch) {
  uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = CLGPU_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] = clgpu_combine(scratch[lid], scratch[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  A result = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return result;
}

#ifdef CLGPU_ARG
inline void clgpu_group_arg(A *value, ulong *index, __local A *values, __local ulong *indices) {
  uint lid = get_local_id(0);
  values[lid] = *value;
  indices[lid] = *index;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = CLGPU_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s && clgpu_arg_takes(values[lid], indices[lid], values[lid + s], indices[lid + s])) {
      values[lid] = values[lid + s];
      indices[lid] = indices[lid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *value = values[0];
  *index = indices[0];
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* Inclusive scan (left to right) of one value per work-item, by doubling
 * (Hillis and Steele). Returns the item's inclusive prefix and leaves every
 * item's prefix in `scratch`; *total receives the group's total. The caller
 * must pass a barrier before writing `scratch` again. */
inline A clgpu_group_scan(A value, __local A *scratch, A *total) {
  uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 1; s < CLGPU_GROUP; s <<= 1) {
    A left = lid >= s ? scratch[lid - s] : value;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= s) {
      value = clgpu_combine(left, value);
      scratch[lid] = value;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  /* The slots keep the inclusive prefixes until the caller's next barrier. */
  *total = scratch[CLGPU_GROUP - 1];
  return value;
}

#ifdef CLGPU_SUBGROUPS
CLGPU_DEFINE_SUBGROUP_ADD(ulong, clgpu_group_count_prefix)
#ifdef CLGPU_SUBGROUP_ADD
CLGPU_DEFINE_SUBGROUP_ADD(A, clgpu_group_sum_prefix)
#endif
#endif
#endif

#ifndef CLGPU_SLICES
#define CLGPU_SLICES 1
#endif
/* Slices walked by sub-groups: scans whose operator is an add over a type
 * sub-group scans take (CLGPU_SLICED_SCAN), findall's counts of ulong
 * (CLGPU_SLICED_COUNTS). */
#if CLGPU_SLICES > 1 && CLGPU_GROUP > 1 && defined(CLGPU_SUBGROUPS)
#define CLGPU_SLICED_COUNTS 1
#ifdef CLGPU_SUBGROUP_ADD
#define CLGPU_SLICED_SCAN 1
#endif
#endif

#ifdef CLGPU_SLICED_COUNTS
/* Slice i of the range [begin, end) cut into CLGPU_SLICES: [*b, *e). Every
 * kernel of a program cuts the same way, whatever its sub-groups' width;
 * each sub-group takes slices i = its id, + the number of sub-groups, ...
 * and reads a slice in rows of its width (consecutive items, consecutive
 * elements), so that its loads and stores are coalesced and no group
 * barrier is needed. */
inline void clgpu_slice(ulong begin, ulong end, uint i, ulong *b, ulong *e) {
  ulong length = (end - begin + CLGPU_SLICES - 1) / CLGPU_SLICES;
  ulong first = begin + (ulong)i * length;
  if (first > end) first = end;
  *b = first;
  *e = end - first < length ? end : first + length;
}
#endif

/* ---- reduce ---- */

#ifndef CLGPU_ARG

/* The mapped elements [begin, end) of in, combined by this work-item (all of
 * them when the group has one item). `base` is subtracted from the index
 * given to the map. */
inline A clgpu_reduce_items(__global const T *in, ulong begin, ulong end, ulong base) {
  A acc = CLGPU_NEUTRAL;
#if CLGPU_GROUP == 1
  ulong k = begin;
#if defined(CLGPU_VECTOR_OP)
  typedef CLGPU_CAT(CLGPU_A, 16) A16;
  typedef CLGPU_CAT(CLGPU_T, 16) T16;
  if (end - begin >= 64) {
    A16 v0 = (A16)(CLGPU_NEUTRAL), v1 = v0, v2 = v0, v3 = v0;
    ulong stop = begin + (end - begin) / 64 * 64;
    for (; k < stop; k += 64) {
      __global const T *p = in + k;
      A16 x0 = CLGPU_CAT(convert_, CLGPU_CAT(CLGPU_A, 16))(CLGPU_VLOAD16(T16, p + 0));
      A16 x1 = CLGPU_CAT(convert_, CLGPU_CAT(CLGPU_A, 16))(CLGPU_VLOAD16(T16, p + 16));
      A16 x2 = CLGPU_CAT(convert_, CLGPU_CAT(CLGPU_A, 16))(CLGPU_VLOAD16(T16, p + 32));
      A16 x3 = CLGPU_CAT(convert_, CLGPU_CAT(CLGPU_A, 16))(CLGPU_VLOAD16(T16, p + 48));
#if CLGPU_VECTOR_OP == 1
      v0 += x0;
      v1 += x1;
      v2 += x2;
      v3 += x3;
#elif CLGPU_VECTOR_OP == 2
      v0 *= x0;
      v1 *= x1;
      v2 *= x2;
      v3 *= x3;
#elif CLGPU_VECTOR_OP == 3
      v0 = min(v0, x0);
      v1 = min(v1, x1);
      v2 = min(v2, x2);
      v3 = min(v3, x3);
#else
      v0 = max(v0, x0);
      v1 = max(v1, x1);
      v2 = max(v2, x2);
      v3 = max(v3, x3);
#endif
    }
    /* Fixed order: the four accumulators pairwise, then the lanes. */
    A16 w;
#if CLGPU_VECTOR_OP == 1
    w = (v0 + v1) + (v2 + v3);
#elif CLGPU_VECTOR_OP == 2
    w = (v0 * v1) * (v2 * v3);
#elif CLGPU_VECTOR_OP == 3
    w = min(min(v0, v1), min(v2, v3));
#else
    w = max(max(v0, v1), max(v2, v3));
#endif
    A lanes[16];
    vstore16(w, 0, lanes);
    for (int j = 0; j < 16; j++) acc = clgpu_combine(acc, lanes[j]);
  }
#endif
#ifdef CLGPU_COUNTS
  /* count_if: the matches in a 32-bit counter, added into the 64-bit count
   * every 2^31 elements; a 64-bit sum of the predicate's 0 or 1 gave the
   * loop vectoriser half as many lanes (docs/reduce.md). */
  while (k < end) {
    ulong part = min(end, k + ((ulong)1 << 31));
    uint c = 0;
    for (; k < part; k++) c += (uint)clgpu_map(in[k], k - base);
    acc += c;
  }
#endif
  for (; k < end; k++) acc = clgpu_combine(acc, clgpu_map(in[k], k - base));
#else
  const ulong tile = (ulong)CLGPU_GROUP * CLGPU_ITEMS;
  ulong whole = begin + (end - begin) / tile * tile;
  ulong k = begin + get_local_id(0);
  for (; k < whole; k += tile) {
    for (ulong j = 0; j < tile; j += CLGPU_GROUP) {
      acc = clgpu_combine(acc, clgpu_map(in[k + j], k + j - base));
    }
#ifdef CLGPU_TILE_STEP
    /* A CPU runtime runs the items of a group one after another between
     * barriers: without this one, each item (or each vector of items)
     * would walk the whole range alone, one element in GROUP, and read
     * every cache line of the range GROUP / vector-width times. */
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
  for (; k < end; k += CLGPU_GROUP) acc = clgpu_combine(acc, clgpu_map(in[k], k - base));
#endif
  return acc;
}

/* The final value of a range: the empty result, or the initial value
 * combined with the range's total. */
inline R clgpu_finish(A total, int empty) {
#ifdef CLGPU_INITIAL
  return clgpu_store(clgpu_combine((A)(CLGPU_INITIAL), total));
#else
  if (empty) return (R)(CLGPU_EMPTY);
  return clgpu_store(total);
#endif
}

#if CLGPU_FAMILY(1)
/* Reduce the range of each group. With `final` 0 the group's total goes to
 * partials[g]; with `final` 1 the group's result (initial value applied) goes
 * to result[g]: the whole array in one group, or one row per group when
 * `row_indices` makes map indices count from the start of the range. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_reduce_ranges(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, int final, int row_indices,
    __global A *partials, ulong partials_offset, __global R *result, ulong result_offset) {
#if CLGPU_GROUP > 1
  __local A scratch[CLGPU_GROUP];
#endif
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  A acc = clgpu_reduce_items(in + in_offset, begin, end, row_indices ? begin : 0);
#if CLGPU_GROUP > 1
  acc = clgpu_group_reduce(acc, scratch);
#endif
  if (get_local_id(0) == 0) {
    ulong g = get_group_id(0);
    if (final) {
      result[result_offset + g] = clgpu_finish(acc, begin == end);
    } else {
      partials[partials_offset + g] = acc;
    }
  }
}

/* Combine `count` partial totals into the result, in one group. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_reduce_partials(
    __global const A *partials, ulong partials_offset, ulong count, __global R *result,
    ulong result_offset) {
#if CLGPU_GROUP > 1
  __local A scratch[CLGPU_GROUP];
#endif
  A acc = CLGPU_NEUTRAL;
  for (ulong k = get_local_id(0); k < count; k += CLGPU_GROUP) {
    acc = clgpu_combine(acc, partials[partials_offset + k]);
  }
#if CLGPU_GROUP > 1
  acc = clgpu_group_reduce(acc, scratch);
#endif
  if (get_local_id(0) == 0) result[result_offset] = clgpu_finish(acc, count == 0);
}

#endif /* CLGPU_FAMILY(1) */
#else /* CLGPU_ARG */

/* argmin / argmax: values travel with their indices. */
inline void clgpu_arg_items(__global const T *in, ulong begin, ulong end, ulong base, A *value,
                            ulong *index) {
  A best = CLGPU_NEUTRAL;
  ulong best_index = ULONG_MAX;
#if CLGPU_GROUP == 1
  for (ulong k = begin; k < end; k++) {
#else
  for (ulong k = begin + get_local_id(0); k < end; k += CLGPU_GROUP) {
#endif
    A v = in[k];
    if (clgpu_arg_takes(best, best_index, v, k - base)) {
      best = v;
      best_index = k - base;
    }
  }
  *value = best;
  *index = best_index;
}

__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_reduce_ranges(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, int final, int row_indices,
    __global A *partials, ulong partials_offset, __global ulong *partial_indices,
    ulong partial_indices_offset, __global ulong *result, ulong result_offset) {
#if CLGPU_GROUP > 1
  __local A values[CLGPU_GROUP];
  __local ulong indices[CLGPU_GROUP];
#endif
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  A value;
  ulong index;
  clgpu_arg_items(in + in_offset, begin, end, row_indices ? begin : 0, &value, &index);
#if CLGPU_GROUP > 1
  clgpu_group_arg(&value, &index, values, indices);
#endif
  if (get_local_id(0) == 0) {
    ulong g = get_group_id(0);
    if (final) {
      result[result_offset + g] = index;
    } else {
      partials[partials_offset + g] = value;
      partial_indices[partial_indices_offset + g] = index;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_reduce_partials(
    __global const A *partials, ulong partials_offset, __global const ulong *partial_indices,
    ulong partial_indices_offset, ulong count, __global ulong *result, ulong result_offset) {
#if CLGPU_GROUP > 1
  __local A values[CLGPU_GROUP];
  __local ulong indices[CLGPU_GROUP];
#endif
  A best = CLGPU_NEUTRAL;
  ulong best_index = ULONG_MAX;
  for (ulong k = get_local_id(0); k < count; k += CLGPU_GROUP) {
    A v = partials[partials_offset + k];
    ulong i = partial_indices[partial_indices_offset + k];
    if (clgpu_arg_takes(best, best_index, v, i)) {
      best = v;
      best_index = i;
    }
  }
#if CLGPU_GROUP > 1
  clgpu_group_arg(&best, &best_index, values, indices);
#endif
  if (get_local_id(0) == 0) result[result_offset] = best_index;
}

#endif /* CLGPU_ARG */

/* ---- scan ---- */

#ifndef CLGPU_ARG
#if CLGPU_FAMILY(2)

#ifdef CLGPU_SLICED_SCAN
/* ITEMS rows of w elements from r (those at or past e skipped when
 * `masked`), scanned by the sub-group from `run`; returns the run after
 * them. Each row: a sub-group scan; the rows' scans are all issued before
 * their totals are carried, so that they do not wait for one another. */
inline A clgpu_scan_rows(__global const T *in, __global R *out, ulong r, ulong e, uint w,
                         uint lane, A run, int exclusive, int masked) {
  if (!exclusive) {
    /* Inclusive scans need neither the elements nor a second scan after
     * the first (a fifth faster on Intel's CPU runtime). */
    A x[CLGPU_ITEMS];
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = r + (ulong)j * w + lane;
      A v = CLGPU_NEUTRAL;
      if (!masked || k < e) v = clgpu_map(in[k], k);
      x[j] = sub_group_scan_inclusive_add(v);
    }
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = r + (ulong)j * w + lane;
      if (!masked || k < e) out[k] = clgpu_store(run + x[j]);
      run += sub_group_broadcast(x[j], w - 1);
    }
    return run;
  }
  A v[CLGPU_ITEMS], before[CLGPU_ITEMS];
  for (int j = 0; j < CLGPU_ITEMS; j++) {
    ulong k = r + (ulong)j * w + lane;
    v[j] = CLGPU_NEUTRAL;
    if (!masked || k < e) v[j] = clgpu_map(in[k], k);
    before[j] = sub_group_scan_exclusive_add(v[j]);
  }
  for (int j = 0; j < CLGPU_ITEMS; j++) {
    ulong k = r + (ulong)j * w + lane;
    if (!masked || k < e) out[k] = clgpu_store(run + before[j]);
    run += sub_group_broadcast(before[j] + v[j], w - 1);
  }
  return run;
}

/* The slice [b, e) scanned by the sub-group from `run` (`exclusive` a
 * constant in each call). */
inline void clgpu_scan_slice(__global const T *in, __global R *out, ulong b, ulong e, uint w,
                             uint lane, A run, int exclusive) {
  ulong rows = (ulong)CLGPU_ITEMS * w;
  ulong r = b;
  for (; r + rows <= e; r += rows) run = clgpu_scan_rows(in, out, r, e, w, lane, run, exclusive, 0);
  if (r < e) run = clgpu_scan_rows(in, out, r, e, w, lane, run, exclusive, 1);
}
#endif

/* Scan the range of each group into out, starting from carries[g] when
 * `use_carries` is 1 (the combined totals of the earlier groups, which
 * clgpu_scan_carries wrote), from the fold of the totals before the group
 * (entries 0 .. g * CLGPU_SLICES - 1, left to right: clgpu_scan_carries'
 * order, so the same bits) when it is 2 (CHUNKED, a few groups: one launch
 * fewer), or from the neutral element. in and out may be the same elements
 * (exact in place): every element is read before it is written, by the same
 * work-item. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_scan_ranges(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, __global const A *carries,
    ulong carries_offset, int use_carries, int exclusive, __global R *out, ulong out_offset,
    int stream) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  /* Every choice between a loaded element and the neutral element is an
   * assignment under `if`, never `c ? load : neutral`: with A char, C's
   * promotion makes that an int chosen between a sign-extended char loaded
   * from global memory and a constant, and rusticl 22.3 (llvmpipe, LLVM 15)
   * gives 0 instead of the constant (minimal: `int v = flag ? in[0] : 77;`
   * stores 0 for flag 0; uchar, short and int loads are right), so int8 MIN
   * and MAX scans started from 0; in the TILED loop and in
   * clgpu_scan_carries the same shape crashed LLVM instead. */
  A carry = CLGPU_NEUTRAL;
  if (use_carries == 1) carry = carries[carries_offset + get_group_id(0) * CLGPU_SLICES];
  in += in_offset;
  out += out_offset;
#if CLGPU_GROUP == 1
  if (use_carries == 2) {
    ulong before = get_group_id(0) * CLGPU_SLICES;
    for (ulong t = 0; t < before; t++) carry = clgpu_combine(carry, carries[carries_offset + t]);
  }
  ulong k = begin;
#if defined(CLGPU_VECTOR_OP) && CLGPU_VECTOR_OP == 1 && defined(CLGPU_VSTORE_EXPR)
  /* Sixteen elements at a time: their prefix sums by doubling inside the
   * vector (shifts of 1, 2, 4 and 8 lanes, filled with the neutral
   * element), then the carry added to every lane. */
  {
    typedef CLGPU_CAT(CLGPU_A, 16) A16;
    typedef CLGPU_CAT(CLGPU_VMASK, 16) M16;
    const M16 lane = (M16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const M16 fill = (M16)(16);
    const M16 shift1 = lane >= (M16)(1) ? lane - (M16)(1) : fill;
    const M16 shift2 = lane >= (M16)(2) ? lane - (M16)(2) : fill;
    const M16 shift4 = lane >= (M16)(4) ? lane - (M16)(4) : fill;
    const M16 shift8 = lane >= (M16)(8) ? lane - (M16)(8) : fill;
    const A16 zero = (A16)(CLGPU_NEUTRAL);
    typedef CLGPU_CAT(CLGPU_R, 16) R16;
    typedef CLGPU_CAT(CLGPU_T, 16) T16;
    /* A streamed scan (`stream`: an output too large to stay in the
     * cache, on devices whose tuning row asks for it) writes each 16
     * elements in one non-temporal store, so that the output's lines are
     * never read first. Such a store needs an address aligned for the
     * 16-vector: where the range's first is not, none is, and the range is
     * stored plainly. The sums are the same either way (a float's bits
     * must not depend on where its output lies). */
    if (((ulong)(out + k)) % sizeof(R16) != 0) stream = 0;
    for (; k + 16 <= end; k += 16) {
      A16 v = CLGPU_CAT(convert_, CLGPU_CAT(CLGPU_A, 16))(CLGPU_VLOAD16(T16, in + k));
      A16 p = v + shuffle2(v, zero, shift1);
      p += shuffle2(p, zero, shift2);
      p += shuffle2(p, zero, shift4);
      p += shuffle2(p, zero, shift8);
      A16 r = (exclusive ? shuffle2(p, zero, shift1) : p) + (A16)(carry);
      if (stream) {
        CLGPU_STREAM_STORE((R16)(CLGPU_VSTORE_EXPR), (__global R16 *)(out + k));
      } else {
        CLGPU_VSTORE16(R16, (R16)(CLGPU_VSTORE_EXPR), out + k);
      }
      carry += p.sf;
    }
  }
#else
  (void)stream;
#endif
  if (exclusive) {
    for (; k < end; k++) {
      A v = clgpu_map(in[k], k);
      out[k] = clgpu_store(carry);
      carry = clgpu_combine(carry, v);
    }
  } else {
    for (; k < end; k++) {
      carry = clgpu_combine(carry, clgpu_map(in[k], k));
      out[k] = clgpu_store(carry);
    }
  }
#else
#ifdef CLGPU_SLICED_SCAN
  /* Each sub-group scans its slices from their carries, ITEMS rows of its
   * width at a time (clgpu_scan_rows), with no group barrier: on Intel's
   * CPU runtime a sub-group walking its slices alone was faster than the
   * sub-groups stepping together with a barrier per block (0.43 of the
   * copy kernel against 0.37). */
  if (use_carries) {
    uint w = get_sub_group_size();
    uint lane = get_sub_group_local_id();
    for (uint i = get_sub_group_id(); i < CLGPU_SLICES; i += get_num_sub_groups()) {
      ulong b, e;
      clgpu_slice(begin, end, i, &b, &e);
      A run = carries[carries_offset + get_group_id(0) * CLGPU_SLICES + i];
      /* Separate loops for the two kinds: a branch on `exclusive` inside
       * them cost a third of the kernel's speed on Intel's CPU runtime. */
      if (exclusive) {
        clgpu_scan_slice(in, out, b, e, w, lane, run, 1);
      } else {
        clgpu_scan_slice(in, out, b, e, w, lane, run, 0);
      }
    }
    return;
  }
#endif
  __local A scratch[CLGPU_GROUP];
  const ulong tile = (ulong)CLGPU_GROUP * CLGPU_ITEMS;
  ulong first = begin + (ulong)get_local_id(0) * CLGPU_ITEMS;
  for (ulong base = begin; base < end; base += tile, first += tile) {
    A v[CLGPU_ITEMS];
    A run = CLGPU_NEUTRAL;
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = first + j;
      v[j] = CLGPU_NEUTRAL;
      if (k < end) v[j] = clgpu_map(in[k], k);
      run = clgpu_combine(run, v[j]);
    }
    A total;
#ifdef CLGPU_SUBGROUP_ADD
    A before = clgpu_combine(carry, clgpu_group_sum_prefix(run, scratch, &total));
#else
    (void)clgpu_group_scan(run, scratch, &total);
    /* clgpu_group_scan leaves each item's inclusive prefix in its slot:
     * what comes before this item is its left neighbour's. */
    A before = get_local_id(0) > 0 ? clgpu_combine(carry, scratch[get_local_id(0) - 1]) : carry;
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = first + j;
      A next = clgpu_combine(before, v[j]);
      if (k < end) out[k] = clgpu_store(exclusive ? before : next);
      before = next;
    }
    carry = clgpu_combine(carry, total);
  }
#endif
}

/* The total of each group's range in element order, for scans (whose
 * operator need not be commutative), one entry per slice:
 * totals[g * CLGPU_SLICES + i]. CHUNKED walks the range serially (16 lanes
 * at a time for sums, which commute); TILED folds each work-item's ITEMS
 * consecutive elements and combines the items of each tile from left to
 * right, or, when the operator commutes (SUM, MIN, MAX), folds the range
 * (each slice, with CLGPU_SLICED_SCAN) as the TILED reduce does, with
 * coalesced loads. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_scan_totals(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, __global A *totals,
    ulong totals_offset) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  in += in_offset;
#if CLGPU_GROUP == 1
  A carry = clgpu_reduce_items(in, begin, end, 0);
#elif defined(CLGPU_SLICED_SCAN)
  /* Each slice's total in the coalesced order of the TILED reduce, then the
   * group's tree (the slices' scans need each slice's total). */
  __local A scratch[CLGPU_GROUP];
  for (uint i = 0; i < CLGPU_SLICES; i++) {
    ulong b, e;
    clgpu_slice(begin, end, i, &b, &e);
    A total = clgpu_group_reduce(clgpu_reduce_items(in, b, e, 0), scratch);
    if (get_local_id(0) == 0) totals[totals_offset + get_group_id(0) * CLGPU_SLICES + i] = total;
  }
#elif defined(CLGPU_COMMUTES)
  /* The operator commutes: the range's total in the coalesced order of the
   * TILED reduce, then the group's tree. */
  __local A scratch[CLGPU_GROUP];
  A carry = clgpu_group_reduce(clgpu_reduce_items(in, begin, end, 0), scratch);
#else
  __local A scratch[CLGPU_GROUP];
  A carry = CLGPU_NEUTRAL;
  const ulong tile = (ulong)CLGPU_GROUP * CLGPU_ITEMS;
  ulong first = begin + (ulong)get_local_id(0) * CLGPU_ITEMS;
  for (ulong base = begin; base < end; base += tile, first += tile) {
    A run = CLGPU_NEUTRAL;
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = first + j;
      if (k < end) run = clgpu_combine(run, clgpu_map(in[k], k));
    }
    A total;
    (void)clgpu_group_scan(run, scratch, &total);
    barrier(CLK_LOCAL_MEM_FENCE);
    carry = clgpu_combine(carry, total);
  }
#endif
#ifndef CLGPU_SLICED_SCAN
  /* One entry per slice: the range's total in the first, the neutral
   * element in the others (CLGPU_SLICES without the sub-groups' walk). */
  for (uint i = get_local_id(0); i < CLGPU_SLICES; i += CLGPU_GROUP) {
    A t = CLGPU_NEUTRAL;
    if (i == 0) t = carry;
    totals[totals_offset + get_group_id(0) * CLGPU_SLICES + i] = t;
  }
#endif
}

/* Exclusive scan, in place, of `count` group totals into carries, in one
 * group: carries[g] becomes the combination of totals 0 .. g-1. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_scan_carries(
    __global A *totals, ulong totals_offset, ulong count) {
  totals += totals_offset;
  A carry = CLGPU_NEUTRAL;
#if CLGPU_GROUP == 1
  for (ulong k = 0; k < count; k++) {
    A v = totals[k];
    totals[k] = carry;
    carry = clgpu_combine(carry, v);
  }
#else
  __local A scratch[CLGPU_GROUP];
  for (ulong base = 0; base < count; base += CLGPU_GROUP) {
    ulong k = base + get_local_id(0);
    A v = CLGPU_NEUTRAL; /* not `k < count ? totals[k] : neutral`: clgpu_scan_ranges says why */
    if (k < count) v = totals[k];
    A total;
    (void)clgpu_group_scan(v, scratch, &total);
    A before = get_local_id(0) > 0 ? clgpu_combine(carry, scratch[get_local_id(0) - 1]) : carry;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k < count) totals[k] = before;
    carry = clgpu_combine(carry, total);
  }
#endif
}

#endif /* CLGPU_FAMILY(2) */
/* ---- findall ---- */
/* The two-pass kernels (family 4): clgpu_findall_counts and _write. */
#if CLGPU_FAMILY(4)

/* The number of elements of each group's range whose mapped value is not 0
 * (the map gives 1 or 0), one entry per slice: counts[g * CLGPU_SLICES + i]
 * (TILED). */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_findall_counts(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, __global A *counts,
    ulong counts_offset) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  in += in_offset;
  counts += counts_offset + get_group_id(0) * CLGPU_SLICES;
#ifdef CLGPU_SLICED_COUNTS
  uint w = get_sub_group_size();
  uint lane = get_sub_group_local_id();
  ulong rows = (ulong)CLGPU_ITEMS * w;
  for (uint i = get_sub_group_id(); i < CLGPU_SLICES; i += get_num_sub_groups()) {
    ulong b, e;
    clgpu_slice(begin, end, i, &b, &e);
    /* Counted in a uint per ITEMS rows (at most ITEMS per item), then
     * added to the ulong. */
    A acc = CLGPU_NEUTRAL;
    ulong r = b;
    for (; r + rows <= e; r += rows) {
      uint block = 0;
      for (int j = 0; j < CLGPU_ITEMS; j++) {
        ulong k = r + (ulong)j * w + lane;
        block += clgpu_map(in[k], k) != 0 ? 1u : 0u;
      }
      acc += block;
    }
    for (ulong k = r + lane; k < e; k += w) acc += clgpu_map(in[k], k);
    acc = sub_group_reduce_add(acc);
    if (lane == 0) counts[i] = acc;
  }
#else
  A total = clgpu_reduce_items(in, begin, end, 0);
#if CLGPU_GROUP > 1
  __local A scratch[CLGPU_GROUP];
  total = clgpu_group_reduce(total, scratch);
#endif
  for (uint i = get_local_id(0); i < CLGPU_SLICES; i += CLGPU_GROUP) {
    A t = CLGPU_NEUTRAL;
    if (i == 0) t = total;
    counts[i] = t;
  }
#endif
}

#ifdef CLGPU_SLICED_COUNTS
/* Index k as the `at_position`th index: kind 0 a uint at stride 1, 1 a
 * uint at out_stride, 2 a ulong at out_stride (a constant in each call). */
inline void clgpu_put_index(__global uint *out32, __global ulong *out64, ulong out_offset,
                            long out_stride, ulong at_position, ulong k, int kind) {
  if (kind == 0) {
    out32[out_offset + at_position] = (uint)k;
  } else {
    long at = (long)out_offset + (long)at_position * out_stride;
    if (kind == 2) {
      out64[at] = k;
    } else {
      out32[at] = (uint)k;
    }
  }
}

/* clgpu_findall_write with slices: each sub-group writes its slices from
 * their offsets, a row of its width at a time: a sub-group scan of the
 * row's hits places them (ITEMS rows at a time, so that their scans do not
 * wait for one another). */
inline void clgpu_findall_slices(__global const T *in, ulong begin, ulong end, ulong g,
                                 __global const ulong *offsets, __global uint *out32,
                                 __global ulong *out64, ulong out_offset, long out_stride,
                                 ulong capacity, int kind) {
  uint w = get_sub_group_size();
  uint lane = get_sub_group_local_id();
  ulong rows = (ulong)CLGPU_ITEMS * w;
  for (uint i = get_sub_group_id(); i < CLGPU_SLICES; i += get_num_sub_groups()) {
    ulong b, e;
    clgpu_slice(begin, end, i, &b, &e);
    ulong entry = g * CLGPU_SLICES + i;
    ulong run = entry > 0 ? offsets[entry - 1] : 0;
    ulong r = b;
#ifdef CLGPU_LANE_RUNS
    /* Each item takes 32 consecutive elements of a block (CPU runtimes,
     * where loads of consecutive elements by one item are vector loads and
     * one sub-group scan per block replaces one per row): its hits as bits,
     * their count scanned across the sub-group, then its indices in order,
     * lowest bit first, as many store steps as the most hits of an item
     * (not one masked store per element: about 4 instead of 32 at 10%
     * selected). */
    const ulong block = 32ul * w;
    for (; r + block <= e; r += block) {
      ulong mine = r + (ulong)lane * 32u;
      uint flags = 0;
      for (int j = 0; j < 32; j++) {
        flags |= (clgpu_map(in[mine + j], mine + j) != 0 ? 1u : 0u) << j;
      }
      uint found = popcount(flags);
      uint before = sub_group_scan_exclusive_add(found);
      uint most = sub_group_reduce_max(found);
      ulong at_position = run + before;
      for (uint c = 0; c < most; c++) {
        if (flags != 0) {
          /* The lowest set bit's position, OpenCL 1.2's way (no ctz). */
          uint j = popcount((flags & (0u - flags)) - 1u);
          flags &= flags - 1u;
          if (at_position + c < capacity) {
            clgpu_put_index(out32, out64, out_offset, out_stride, at_position + c, mine + j, kind);
          }
        }
      }
      run += sub_group_broadcast(before + found, w - 1);
    }
#endif
    for (; r + rows <= e; r += rows) {
      uint hits[CLGPU_ITEMS], before[CLGPU_ITEMS];
      for (int j = 0; j < CLGPU_ITEMS; j++) {
        ulong k = r + (ulong)j * w + lane;
        hits[j] = clgpu_map(in[k], k) != 0 ? 1u : 0u;
        before[j] = sub_group_scan_exclusive_add(hits[j]);
      }
      for (int j = 0; j < CLGPU_ITEMS; j++) {
        ulong at_position = run + before[j];
        if (hits[j] && at_position < capacity) {
          clgpu_put_index(out32, out64, out_offset, out_stride, at_position,
                          r + (ulong)j * w + lane, kind);
        }
        run += sub_group_broadcast(before[j] + hits[j], w - 1);
      }
    }
    for (; r < e; r += w) {
      ulong k = r + lane;
      uint hit = 0;
      if (k < e && clgpu_map(in[k], k) != 0) hit = 1;
      uint before = sub_group_scan_exclusive_add(hit);
      ulong at_position = run + before;
      if (hit && at_position < capacity) {
        clgpu_put_index(out32, out64, out_offset, out_stride, at_position, k, kind);
      }
      run += sub_group_broadcast(before + hit, w - 1);
    }
  }
}
#endif

/* Write the indices of the elements of each group's range whose mapped
 * value is not 0, from the group's offset: offsets holds the inclusive scan
 * of the `entries` counts of clgpu_findall_counts (one per slice), so slice
 * i of group g starts at offsets[g * CLGPU_SLICES + i - 1]. Indices at or
 * past `capacity` are not written. Group 0 writes the total count. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_findall_write(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, __global const ulong *offsets,
    ulong offsets_offset, ulong entries, int wide, __global uint *out32, __global ulong *out64,
    ulong out_offset, long out_stride, ulong capacity, __global ulong *count,
    ulong count_offset) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  ulong g = get_group_id(0);
  ulong position = g > 0 ? offsets[offsets_offset + g * CLGPU_SLICES - 1] : 0;
  in += in_offset;
#if CLGPU_GROUP == 1
  for (ulong k = begin; k < end; k++) {
    if (clgpu_map(in[k], k) != 0) {
      if (position < capacity) {
        long at = (long)out_offset + (long)position * out_stride;
        if (wide) {
          out64[at] = k;
        } else {
          out32[at] = (uint)k;
        }
      }
      position++;
    }
  }
#elif defined(CLGPU_SLICED_COUNTS)
  /* Three copies of the loops, each with its own way to store an index
   * (a branch inside them cost a third of the kernel's time on Intel's
   * CPU runtime, which vectorised both stores). */
  if (wide) {
    clgpu_findall_slices(in, begin, end, g, offsets + offsets_offset, out32, out64, out_offset,
                         out_stride, capacity, 2);
  } else if (out_stride == 1) {
    clgpu_findall_slices(in, begin, end, g, offsets + offsets_offset, out32, out64, out_offset,
                         out_stride, capacity, 0);
  } else {
    clgpu_findall_slices(in, begin, end, g, offsets + offsets_offset, out32, out64, out_offset,
                         out_stride, capacity, 1);
  }
#else
  __local ulong scratch[CLGPU_GROUP];
  const ulong tile = (ulong)CLGPU_GROUP * CLGPU_ITEMS;
  uint lid = get_local_id(0);
  ulong first = begin + (ulong)lid * CLGPU_ITEMS;
  for (ulong base = begin; base < end; base += tile, first += tile) {
    uint hits = 0;
    uint flags = 0;
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      ulong k = first + j;
      if (k < end && clgpu_map(in[k], k) != 0) {
        flags |= 1u << j;
        hits++;
      }
    }
#ifdef CLGPU_SUBGROUPS
    ulong tile_total;
    ulong at_position = position + clgpu_group_count_prefix(hits, scratch, &tile_total);
#else
    /* Exclusive scan of the items' hit counts (Hillis and Steele). */
    ulong mine = hits;
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < CLGPU_GROUP; s <<= 1) {
      ulong left = lid >= s ? scratch[lid - s] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      mine += left;
      scratch[lid] = mine;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    ulong tile_total = scratch[CLGPU_GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong at_position = position + mine - hits;
#endif
    for (int j = 0; j < CLGPU_ITEMS; j++) {
      if (flags & (1u << j)) {
        if (at_position < capacity) {
          long at = (long)out_offset + (long)at_position * out_stride;
          if (wide) {
            out64[at] = first + j;
          } else {
            out32[at] = (uint)(first + j);
          }
        }
        at_position++;
      }
    }
    position += tile_total;
  }
#endif
  if (g == 0 && get_local_id(0) == 0) {
    count[count_offset] = entries > 0 ? offsets[offsets_offset + entries - 1] : 0;
  }
}

#endif /* CLGPU_FAMILY(4) */

/* findall's CHUNKED compaction (family 8): clgpu_findall_compact and
 * clgpu_findall_move. */
#if CLGPU_FAMILY(8)
#if CLGPU_GROUP == 1
/* The positions of the set bits of an 8-bit mask, lowest first; the lanes
 * past its count are 0, don't-cares (see clgpu_findall_compact). */
__constant uint8 clgpu_byte_positions[256] = {
    (uint8)(0, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 0, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 0, 0, 0, 0, 0, 0),
    (uint8)(2, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 0, 0, 0, 0, 0),
    (uint8)(3, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 3, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 3, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 3, 0, 0, 0, 0, 0),
    (uint8)(2, 3, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 3, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 3, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 3, 0, 0, 0, 0),
    (uint8)(4, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 4, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 4, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 4, 0, 0, 0, 0, 0),
    (uint8)(2, 4, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 4, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 4, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 4, 0, 0, 0, 0),
    (uint8)(3, 4, 0, 0, 0, 0, 0, 0), (uint8)(0, 3, 4, 0, 0, 0, 0, 0),
    (uint8)(1, 3, 4, 0, 0, 0, 0, 0), (uint8)(0, 1, 3, 4, 0, 0, 0, 0),
    (uint8)(2, 3, 4, 0, 0, 0, 0, 0), (uint8)(0, 2, 3, 4, 0, 0, 0, 0),
    (uint8)(1, 2, 3, 4, 0, 0, 0, 0), (uint8)(0, 1, 2, 3, 4, 0, 0, 0),
    (uint8)(5, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 5, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 5, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 5, 0, 0, 0, 0, 0),
    (uint8)(2, 5, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 5, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 5, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 5, 0, 0, 0, 0),
    (uint8)(3, 5, 0, 0, 0, 0, 0, 0), (uint8)(0, 3, 5, 0, 0, 0, 0, 0),
    (uint8)(1, 3, 5, 0, 0, 0, 0, 0), (uint8)(0, 1, 3, 5, 0, 0, 0, 0),
    (uint8)(2, 3, 5, 0, 0, 0, 0, 0), (uint8)(0, 2, 3, 5, 0, 0, 0, 0),
    (uint8)(1, 2, 3, 5, 0, 0, 0, 0), (uint8)(0, 1, 2, 3, 5, 0, 0, 0),
    (uint8)(4, 5, 0, 0, 0, 0, 0, 0), (uint8)(0, 4, 5, 0, 0, 0, 0, 0),
    (uint8)(1, 4, 5, 0, 0, 0, 0, 0), (uint8)(0, 1, 4, 5, 0, 0, 0, 0),
    (uint8)(2, 4, 5, 0, 0, 0, 0, 0), (uint8)(0, 2, 4, 5, 0, 0, 0, 0),
    (uint8)(1, 2, 4, 5, 0, 0, 0, 0), (uint8)(0, 1, 2, 4, 5, 0, 0, 0),
    (uint8)(3, 4, 5, 0, 0, 0, 0, 0), (uint8)(0, 3, 4, 5, 0, 0, 0, 0),
    (uint8)(1, 3, 4, 5, 0, 0, 0, 0), (uint8)(0, 1, 3, 4, 5, 0, 0, 0),
    (uint8)(2, 3, 4, 5, 0, 0, 0, 0), (uint8)(0, 2, 3, 4, 5, 0, 0, 0),
    (uint8)(1, 2, 3, 4, 5, 0, 0, 0), (uint8)(0, 1, 2, 3, 4, 5, 0, 0),
    (uint8)(6, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 6, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 6, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 6, 0, 0, 0, 0, 0),
    (uint8)(2, 6, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 6, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 6, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 6, 0, 0, 0, 0),
    (uint8)(3, 6, 0, 0, 0, 0, 0, 0), (uint8)(0, 3, 6, 0, 0, 0, 0, 0),
    (uint8)(1, 3, 6, 0, 0, 0, 0, 0), (uint8)(0, 1, 3, 6, 0, 0, 0, 0),
    (uint8)(2, 3, 6, 0, 0, 0, 0, 0), (uint8)(0, 2, 3, 6, 0, 0, 0, 0),
    (uint8)(1, 2, 3, 6, 0, 0, 0, 0), (uint8)(0, 1, 2, 3, 6, 0, 0, 0),
    (uint8)(4, 6, 0, 0, 0, 0, 0, 0), (uint8)(0, 4, 6, 0, 0, 0, 0, 0),
    (uint8)(1, 4, 6, 0, 0, 0, 0, 0), (uint8)(0, 1, 4, 6, 0, 0, 0, 0),
    (uint8)(2, 4, 6, 0, 0, 0, 0, 0), (uint8)(0, 2, 4, 6, 0, 0, 0, 0),
    (uint8)(1, 2, 4, 6, 0, 0, 0, 0), (uint8)(0, 1, 2, 4, 6, 0, 0, 0),
    (uint8)(3, 4, 6, 0, 0, 0, 0, 0), (uint8)(0, 3, 4, 6, 0, 0, 0, 0),
    (uint8)(1, 3, 4, 6, 0, 0, 0, 0), (uint8)(0, 1, 3, 4, 6, 0, 0, 0),
    (uint8)(2, 3, 4, 6, 0, 0, 0, 0), (uint8)(0, 2, 3, 4, 6, 0, 0, 0),
    (uint8)(1, 2, 3, 4, 6, 0, 0, 0), (uint8)(0, 1, 2, 3, 4, 6, 0, 0),
    (uint8)(5, 6, 0, 0, 0, 0, 0, 0), (uint8)(0, 5, 6, 0, 0, 0, 0, 0),
    (uint8)(1, 5, 6, 0, 0, 0, 0, 0), (uint8)(0, 1, 5, 6, 0, 0, 0, 0),
    (uint8)(2, 5, 6, 0, 0, 0, 0, 0), (uint8)(0, 2, 5, 6, 0, 0, 0, 0),
    (uint8)(1, 2, 5, 6, 0, 0, 0, 0), (uint8)(0, 1, 2, 5, 6, 0, 0, 0),
    (uint8)(3, 5, 6, 0, 0, 0, 0, 0), (uint8)(0, 3, 5, 6, 0, 0, 0, 0),
    (uint8)(1, 3, 5, 6, 0, 0, 0, 0), (uint8)(0, 1, 3, 5, 6, 0, 0, 0),
    (uint8)(2, 3, 5, 6, 0, 0, 0, 0), (uint8)(0, 2, 3, 5, 6, 0, 0, 0),
    (uint8)(1, 2, 3, 5, 6, 0, 0, 0), (uint8)(0, 1, 2, 3, 5, 6, 0, 0),
    (uint8)(4, 5, 6, 0, 0, 0, 0, 0), (uint8)(0, 4, 5, 6, 0, 0, 0, 0),
    (uint8)(1, 4, 5, 6, 0, 0, 0, 0), (uint8)(0, 1, 4, 5, 6, 0, 0, 0),
    (uint8)(2, 4, 5, 6, 0, 0, 0, 0), (uint8)(0, 2, 4, 5, 6, 0, 0, 0),
    (uint8)(1, 2, 4, 5, 6, 0, 0, 0), (uint8)(0, 1, 2, 4, 5, 6, 0, 0),
    (uint8)(3, 4, 5, 6, 0, 0, 0, 0), (uint8)(0, 3, 4, 5, 6, 0, 0, 0),
    (uint8)(1, 3, 4, 5, 6, 0, 0, 0), (uint8)(0, 1, 3, 4, 5, 6, 0, 0),
    (uint8)(2, 3, 4, 5, 6, 0, 0, 0), (uint8)(0, 2, 3, 4, 5, 6, 0, 0),
    (uint8)(1, 2, 3, 4, 5, 6, 0, 0), (uint8)(0, 1, 2, 3, 4, 5, 6, 0),
    (uint8)(7, 0, 0, 0, 0, 0, 0, 0), (uint8)(0, 7, 0, 0, 0, 0, 0, 0),
    (uint8)(1, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 1, 7, 0, 0, 0, 0, 0),
    (uint8)(2, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 2, 7, 0, 0, 0, 0, 0),
    (uint8)(1, 2, 7, 0, 0, 0, 0, 0), (uint8)(0, 1, 2, 7, 0, 0, 0, 0),
    (uint8)(3, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 3, 7, 0, 0, 0, 0, 0),
    (uint8)(1, 3, 7, 0, 0, 0, 0, 0), (uint8)(0, 1, 3, 7, 0, 0, 0, 0),
    (uint8)(2, 3, 7, 0, 0, 0, 0, 0), (uint8)(0, 2, 3, 7, 0, 0, 0, 0),
    (uint8)(1, 2, 3, 7, 0, 0, 0, 0), (uint8)(0, 1, 2, 3, 7, 0, 0, 0),
    (uint8)(4, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 4, 7, 0, 0, 0, 0, 0),
    (uint8)(1, 4, 7, 0, 0, 0, 0, 0), (uint8)(0, 1, 4, 7, 0, 0, 0, 0),
    (uint8)(2, 4, 7, 0, 0, 0, 0, 0), (uint8)(0, 2, 4, 7, 0, 0, 0, 0),
    (uint8)(1, 2, 4, 7, 0, 0, 0, 0), (uint8)(0, 1, 2, 4, 7, 0, 0, 0),
    (uint8)(3, 4, 7, 0, 0, 0, 0, 0), (uint8)(0, 3, 4, 7, 0, 0, 0, 0),
    (uint8)(1, 3, 4, 7, 0, 0, 0, 0), (uint8)(0, 1, 3, 4, 7, 0, 0, 0),
    (uint8)(2, 3, 4, 7, 0, 0, 0, 0), (uint8)(0, 2, 3, 4, 7, 0, 0, 0),
    (uint8)(1, 2, 3, 4, 7, 0, 0, 0), (uint8)(0, 1, 2, 3, 4, 7, 0, 0),
    (uint8)(5, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 5, 7, 0, 0, 0, 0, 0),
    (uint8)(1, 5, 7, 0, 0, 0, 0, 0), (uint8)(0, 1, 5, 7, 0, 0, 0, 0),
    (uint8)(2, 5, 7, 0, 0, 0, 0, 0), (uint8)(0, 2, 5, 7, 0, 0, 0, 0),
    (uint8)(1, 2, 5, 7, 0, 0, 0, 0), (uint8)(0, 1, 2, 5, 7, 0, 0, 0),
    (uint8)(3, 5, 7, 0, 0, 0, 0, 0), (uint8)(0, 3, 5, 7, 0, 0, 0, 0),
    (uint8)(1, 3, 5, 7, 0, 0, 0, 0), (uint8)(0, 1, 3, 5, 7, 0, 0, 0),
    (uint8)(2, 3, 5, 7, 0, 0, 0, 0), (uint8)(0, 2, 3, 5, 7, 0, 0, 0),
    (uint8)(1, 2, 3, 5, 7, 0, 0, 0), (uint8)(0, 1, 2, 3, 5, 7, 0, 0),
    (uint8)(4, 5, 7, 0, 0, 0, 0, 0), (uint8)(0, 4, 5, 7, 0, 0, 0, 0),
    (uint8)(1, 4, 5, 7, 0, 0, 0, 0), (uint8)(0, 1, 4, 5, 7, 0, 0, 0),
    (uint8)(2, 4, 5, 7, 0, 0, 0, 0), (uint8)(0, 2, 4, 5, 7, 0, 0, 0),
    (uint8)(1, 2, 4, 5, 7, 0, 0, 0), (uint8)(0, 1, 2, 4, 5, 7, 0, 0),
    (uint8)(3, 4, 5, 7, 0, 0, 0, 0), (uint8)(0, 3, 4, 5, 7, 0, 0, 0),
    (uint8)(1, 3, 4, 5, 7, 0, 0, 0), (uint8)(0, 1, 3, 4, 5, 7, 0, 0),
    (uint8)(2, 3, 4, 5, 7, 0, 0, 0), (uint8)(0, 2, 3, 4, 5, 7, 0, 0),
    (uint8)(1, 2, 3, 4, 5, 7, 0, 0), (uint8)(0, 1, 2, 3, 4, 5, 7, 0),
    (uint8)(6, 7, 0, 0, 0, 0, 0, 0), (uint8)(0, 6, 7, 0, 0, 0, 0, 0),
    (uint8)(1, 6, 7, 0, 0, 0, 0, 0), (uint8)(0, 1, 6, 7, 0, 0, 0, 0),
    (uint8)(2, 6, 7, 0, 0, 0, 0, 0), (uint8)(0, 2, 6, 7, 0, 0, 0, 0),
    (uint8)(1, 2, 6, 7, 0, 0, 0, 0), (uint8)(0, 1, 2, 6, 7, 0, 0, 0),
    (uint8)(3, 6, 7, 0, 0, 0, 0, 0), (uint8)(0, 3, 6, 7, 0, 0, 0, 0),
    (uint8)(1, 3, 6, 7, 0, 0, 0, 0), (uint8)(0, 1, 3, 6, 7, 0, 0, 0),
    (uint8)(2, 3, 6, 7, 0, 0, 0, 0), (uint8)(0, 2, 3, 6, 7, 0, 0, 0),
    (uint8)(1, 2, 3, 6, 7, 0, 0, 0), (uint8)(0, 1, 2, 3, 6, 7, 0, 0),
    (uint8)(4, 6, 7, 0, 0, 0, 0, 0), (uint8)(0, 4, 6, 7, 0, 0, 0, 0),
    (uint8)(1, 4, 6, 7, 0, 0, 0, 0), (uint8)(0, 1, 4, 6, 7, 0, 0, 0),
    (uint8)(2, 4, 6, 7, 0, 0, 0, 0), (uint8)(0, 2, 4, 6, 7, 0, 0, 0),
    (uint8)(1, 2, 4, 6, 7, 0, 0, 0), (uint8)(0, 1, 2, 4, 6, 7, 0, 0),
    (uint8)(3, 4, 6, 7, 0, 0, 0, 0), (uint8)(0, 3, 4, 6, 7, 0, 0, 0),
    (uint8)(1, 3, 4, 6, 7, 0, 0, 0), (uint8)(0, 1, 3, 4, 6, 7, 0, 0),
    (uint8)(2, 3, 4, 6, 7, 0, 0, 0), (uint8)(0, 2, 3, 4, 6, 7, 0, 0),
    (uint8)(1, 2, 3, 4, 6, 7, 0, 0), (uint8)(0, 1, 2, 3, 4, 6, 7, 0),
    (uint8)(5, 6, 7, 0, 0, 0, 0, 0), (uint8)(0, 5, 6, 7, 0, 0, 0, 0),
    (uint8)(1, 5, 6, 7, 0, 0, 0, 0), (uint8)(0, 1, 5, 6, 7, 0, 0, 0),
    (uint8)(2, 5, 6, 7, 0, 0, 0, 0), (uint8)(0, 2, 5, 6, 7, 0, 0, 0),
    (uint8)(1, 2, 5, 6, 7, 0, 0, 0), (uint8)(0, 1, 2, 5, 6, 7, 0, 0),
    (uint8)(3, 5, 6, 7, 0, 0, 0, 0), (uint8)(0, 3, 5, 6, 7, 0, 0, 0),
    (uint8)(1, 3, 5, 6, 7, 0, 0, 0), (uint8)(0, 1, 3, 5, 6, 7, 0, 0),
    (uint8)(2, 3, 5, 6, 7, 0, 0, 0), (uint8)(0, 2, 3, 5, 6, 7, 0, 0),
    (uint8)(1, 2, 3, 5, 6, 7, 0, 0), (uint8)(0, 1, 2, 3, 5, 6, 7, 0),
    (uint8)(4, 5, 6, 7, 0, 0, 0, 0), (uint8)(0, 4, 5, 6, 7, 0, 0, 0),
    (uint8)(1, 4, 5, 6, 7, 0, 0, 0), (uint8)(0, 1, 4, 5, 6, 7, 0, 0),
    (uint8)(2, 4, 5, 6, 7, 0, 0, 0), (uint8)(0, 2, 4, 5, 6, 7, 0, 0),
    (uint8)(1, 2, 4, 5, 6, 7, 0, 0), (uint8)(0, 1, 2, 4, 5, 6, 7, 0),
    (uint8)(3, 4, 5, 6, 7, 0, 0, 0), (uint8)(0, 3, 4, 5, 6, 7, 0, 0),
    (uint8)(1, 3, 4, 5, 6, 7, 0, 0), (uint8)(0, 1, 3, 4, 5, 6, 7, 0),
    (uint8)(2, 3, 4, 5, 6, 7, 0, 0), (uint8)(0, 2, 3, 4, 5, 6, 7, 0),
    (uint8)(1, 2, 3, 4, 5, 6, 7, 0), (uint8)(0, 1, 2, 3, 4, 5, 6, 7)};

/* AVX-512's compress (CLGPU_FINDALL_COMPRESS, the tuning table's
 * findall_compress): where the device's compiler targets AVX-512F and DQ
 * and offers Clang's builtins for them (POCL on such a CPU), a block's
 * mask comes from its sixteen comparisons in one instruction and its hits'
 * positions are packed into the low lanes of one vector in another. These
 * builtins are not OpenCL C; every other compiler takes the table below. */
#if defined(CLGPU_FINDALL_COMPRESS) && defined(__AVX512F__) && defined(__AVX512DQ__) && \
    defined(__has_builtin)
#if __has_builtin(__builtin_ia32_compresssi512_mask) && __has_builtin(__builtin_ia32_cvtd2mask512)
#define CLGPU_FINDALL_AVX512 1
#endif
#endif

#ifdef CLGPU_FINDALL_VECTOR_PREDICATE
/* The predicate over sixteen elements: each lane -1 where it holds, else 0. */
inline int16 clgpu_findall_vector_hits(CLGPU_T16 x) {
  return convert_int16(CLGPU_FINDALL_VECTOR_PREDICATE);
}
/* The same text over one element (the chunk's last few): the host proved
 * it matches where the caller's text does, and its literals, cast to the
 * element type, keep the comparison in that type. Mesa's llvmpipe (rusticl,
 * Mesa 22.3) compares an int with a long constant wrongly (docs/quirks.md),
 * which the caller's x > -2147483648 asks for and this text does not. */
inline uint clgpu_findall_scalar_hit(T x) {
  return (CLGPU_FINDALL_VECTOR_PREDICATE) != 0 ? 1u : 0u;
}
#endif

/* findall in one reading of the input (CHUNKED): each chunk writes the
 * positions (from its start) of its matches into its own stretch of
 * `positions`, and its count into counts[g]. Eight elements at a time go out
 * in one eight-lane store of their hits' positions (from the table above)
 * at the running count, which then advances by the number of hits: a store
 * per eight elements rather than one per element, and no branch on the
 * data. A store's lanes past its hits stay inside the stretch (the count
 * never passes the element being read), and the next store overwrites them
 * or they lie past the final count. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void clgpu_findall_compact(
    __global const T *in, ulong in_offset, ulong n, ulong chunk, __global uint *positions,
    ulong positions_offset, __global ulong *counts, ulong counts_offset) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  __global const T *restrict from = in + in_offset + begin;
  __global uint *restrict at = positions + positions_offset + begin;
  uint found = 0;
  uint length = (uint)(end - begin);
  uint j = 0;
  /* Sixteen predicates at a time into a mask, then its stores: the
   * predicates do not wait for the stores. Every block stores, hits or
   * not: a branch on an empty block (a sixth of them at 10% selected)
   * mispredicted more than the two stores cost. 16M uint32, 10% selected,
   * a throw-away harness of this loop, median of 21 (2026-12-05): Intel's
   * CPU runtime 10.3-10.7 ms with the branch, 8.4-8.6 without; POCL 8.1-8.4
   * against 6.6-6.9. */
  for (; j + 16 <= length; j += 16) {
#if defined(CLGPU_FINDALL_VECTOR_PREDICATE)
    /* The predicate on sixteen elements at once, where the host found it
     * means the same there (src/ops/vector_predicate.c): a comparison's
     * true lanes are -1. Intel's CPU runtime, the harness above: 5.6-6.4
     * ms against 8.3-8.6 for the loop below; POCL as fast as the next
     * form. */
    int16 hits = clgpu_findall_vector_hits(CLGPU_VLOAD16(CLGPU_CAT(CLGPU_T, 16), from + j));
#elif defined(CLGPU_FINDALL_VECTOR_FLAGS)
    /* The sixteen predicates as the lanes of one vector, whose bits are
     * then folded into the mask: POCL turns the sixteen loads and compares
     * of a plain predicate into vector ones (5.5-6.1 ms in the harness
     * above, against 6.6-6.9 for the loop below); Intel's runtime does not
     * (10.2-11.5 ms), so it is a tuning row's choice (findall_vector_flags). */
#define CLGPU_FINDALL_HIT(l) (clgpu_map(from[j + (l)], begin + j + (l)) != 0)
    int16 hits = (int16)(CLGPU_FINDALL_HIT(0), CLGPU_FINDALL_HIT(1), CLGPU_FINDALL_HIT(2),
                         CLGPU_FINDALL_HIT(3), CLGPU_FINDALL_HIT(4), CLGPU_FINDALL_HIT(5),
                         CLGPU_FINDALL_HIT(6), CLGPU_FINDALL_HIT(7), CLGPU_FINDALL_HIT(8),
                         CLGPU_FINDALL_HIT(9), CLGPU_FINDALL_HIT(10), CLGPU_FINDALL_HIT(11),
                         CLGPU_FINDALL_HIT(12), CLGPU_FINDALL_HIT(13), CLGPU_FINDALL_HIT(14),
                         CLGPU_FINDALL_HIT(15));
#undef CLGPU_FINDALL_HIT
#endif
#if (defined(CLGPU_FINDALL_VECTOR_PREDICATE) || defined(CLGPU_FINDALL_VECTOR_FLAGS)) && \
    defined(CLGPU_FINDALL_AVX512)
    /* The lanes' sign bits (-1 where a lane holds) are the mask. */
    uint mask = (ushort)__builtin_ia32_cvtd2mask512(hits != 0);
#elif defined(CLGPU_FINDALL_VECTOR_PREDICATE) || defined(CLGPU_FINDALL_VECTOR_FLAGS)
    int16 bits = (hits != 0) & (int16)(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                       8192, 16384, 32768);
    int8 bits8 = bits.lo | bits.hi;
    int4 bits4 = bits8.lo | bits8.hi;
    int2 bits2 = bits4.lo | bits4.hi;
    uint mask = (uint)(bits2.x | bits2.y);
#else
    uint mask = 0;
    for (int l = 0; l < 16; l++) {
      ulong i = begin + j + l;
      mask |= (clgpu_map(from[j + l], i) != 0 ? 1u : 0u) << l;
    }
#endif
#ifdef CLGPU_FINDALL_AVX512
    /* The hits' positions packed lowest first, the lanes past them 0, in
     * one sixteen-lane store: as with the table's stores, its lanes past
     * the hits stay inside the stretch (found <= j) and are overwritten
     * or lie past the final count. 16M uint32, 10% selected, POCL, this
     * kernel timed beside the read kernel in the same process, three
     * rounds alternating (2026-12-05): 1.89-2.99 times the read kernel's
     * time with the table, 1.34-2.34 with the compress; whole calls
     * 0.79-0.82 of the table's time (docs/reduce.md). */
    int16 packed = __builtin_ia32_compresssi512_mask(
        as_int16((uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + j), (int16)0,
        (ushort)mask);
    vstore16(as_uint16(packed), 0, at + found);
    found += popcount(mask);
#elif defined(CLGPU_FINDALL_SPLIT_STORES)
    /* The two stores one after the other (the tuning table's
     * findall_split_stores): POCL does not unroll the loop below. */
    uint low = mask & 255u, high = mask >> 8;
    vstore8(clgpu_byte_positions[low] + (uint8)(j), 0, at + found);
    found += popcount(low);
    vstore8(clgpu_byte_positions[high] + (uint8)(j + 8), 0, at + found);
    found += popcount(high);
#else
    for (int q = 0; q < 2; q++) {
      uint byte = (mask >> (8 * q)) & 255u;
      vstore8(clgpu_byte_positions[byte] + (uint8)(j + 8 * q), 0, at + found);
      found += popcount(byte);
    }
#endif
  }
  for (; j < length; j++) {
#ifdef CLGPU_FINDALL_VECTOR_PREDICATE
    uint hit = clgpu_findall_scalar_hit(from[j]);
#else
    uint hit = clgpu_map(from[j], begin + j) != 0 ? 1u : 0u;
#endif
    at[found] = j;
    found += hit;
  }
  counts[counts_offset + get_group_id(0)] = found;
}

/* Move each chunk's positions to the output as indices, from the chunk's
 * offset; indices at or past `capacity` are not written. Group 0 writes
 * the total count. `offsets` holds the inclusive scan of the counts where
 * `scanned`, else the counts themselves, which each work-item then sums
 * up to its own (src/ops/findall.c leaves the scan out while the chunks
 * are few: a kernel and, on a first call, a second program fewer). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void clgpu_findall_move(
    __global const uint *positions, ulong positions_offset, ulong n, ulong chunk,
    __global const ulong *offsets, ulong offsets_offset, ulong groups, int wide,
    __global uint *out32, __global ulong *out64, ulong out_offset, long out_stride,
    ulong capacity, __global ulong *count, ulong count_offset, int scanned) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  ulong g = get_group_id(0);
  __global const ulong *counted = offsets + offsets_offset;
  ulong start = 0, stop = 0;
  if (scanned) {
    start = g > 0 ? counted[g - 1] : 0;
    stop = counted[g];
  } else {
    for (ulong k = 0; k < g; k++) start += counted[k];
    stop = start + counted[g];
  }
  ulong total = 0;
  if (g == 0 && scanned) total = groups > 0 ? counted[groups - 1] : 0;
  if (g == 0 && !scanned) {
    for (ulong k = 0; k < groups; k++) total += counted[k];
  }
  if (stop > capacity) stop = capacity;
  __global const uint *from = positions + positions_offset + begin;
  if (wide) {
    for (ulong p = start; p < stop; p++) {
      out64[(long)out_offset + (long)p * out_stride] = begin + from[p - start];
    }
  } else {
    for (ulong p = start; p < stop; p++) {
      out32[(long)out_offset + (long)p * out_stride] = (uint)(begin + from[p - start]);
    }
  }
  if (g == 0) count[count_offset] = total;
}
#endif /* CLGPU_GROUP == 1 */

#endif /* CLGPU_FAMILY(8) */
#endif /* !CLGPU_ARG */

#endif /* !CLGPU_OPERATOR_ONLY */
