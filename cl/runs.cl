/* Runs of equal adjacent keys: scan_by_key, reduce_by_key, unique,
 * unique_by_key and run-length encoding (runs.h).
 *
 * Built after cl/common.cl and the operator section of cl/reduce.cl
 * (CLGPU_OPERATOR_ONLY), whose defines and functions it uses: T (the
 * values' type), A (the accumulator), R (the output's type), clgpu_map,
 * clgpu_combine, clgpu_store, CLGPU_NEUTRAL, CLGPU_INITIAL
 * (src/ops/runs.c writes them).
 *
 * Defines of its own:
 *   CLGPU_RUN_KB      the unsigned integer type of the key's size: keys are
 *                     read and written as their bits
 *   CLGPU_RUN_EQUAL   optional: the caller's equality, an expression over a
 *                     and b of type CLGPU_RUN_K (CLGPU_RUN_AS turns bits
 *                     into a key); without it keys are equal when their
 *                     bits are
 *   CLGPU_RUN_SCAN    scan_by_key: an output per element. Without it,
 *                     the outputs of runs at each run's index: its first
 *                     key, its reduced value (reduce_by_key, and the
 *                     lengths of run-length encoding), its first index
 *                     (the offsets), and the number of runs
 *   CLGPU_RUN_FIRST   optional, without CLGPU_RUN_SCAN: each run's first
 *                     value instead of its reduced value (unique_by_key;
 *                     T and R are then the values' bits)
 *   CLGPU_RUN_NO_VALUES optional: no values are read; each element's value
 *                     is clgpu_map((T)0, i) (unique and run-length
 *                     encoding, whose map is 1)
 *   CLGPU_RUN_KEYS_ONLY optional, with CLGPU_RUN_NO_VALUES: only the run
 *                     keys and the count are written (unique), by a walk
 *                     that stores without branching on the heads
 *   CLGPU_RUN_OFFSET_T optional: the offsets' type (uint or ulong; ulong
 *                     when not given)
 *   CLGPU_RUN_STRIDED optional: views are read and written with their
 *                     strides (else every view is contiguous)
 *   CLGPU_RUN_SCALAR  optional: keys are compared one at a time, never as
 *                     vectors (a device whose quirks row asks for it)
 *
 * Element i starts a run (is a head) when i is 0 or its key differs from
 * key i - 1. A run's value is the combination of its elements' mapped
 * values from its head. Pairs (h, v), the heads of a stretch of elements
 * and the value of the run open at its end, combine associatively:
 * (h1, v1) then (h2, v2) is (h1 + h2, h2 ? v2 : v1 op v2). The three
 * kernels are those of every scan (docs/portability.md rule 1): each
 * group's range folded to a pair (clgpu_runs_totals), the pairs scanned
 * into carries (clgpu_runs_carries), each range walked again from its carry
 * writing the outputs (clgpu_runs_write). A run that crosses ranges is
 * written by the range where it ends, with what the carry brought.
 *
 * CHUNKED (CLGPU_GROUP 1): a work-item walks its range in order. TILED: a
 * group takes tiles of CLGPU_GROUP * CLGPU_ITEMS elements, each work-item
 * CLGPU_ITEMS consecutive ones; the items' pairs are scanned through local
 * memory by doubling, and the tile's total carried to the next tile. */
#ifndef CLGPU_RUN_KB
#error "runs.cl needs CLGPU_RUN_KB"
#endif

typedef CLGPU_RUN_KB KB;

#ifdef CLGPU_RUN_EQUAL
inline int clgpu_run_equal(KB bits_a, KB bits_b) {
  CLGPU_RUN_K a = CLGPU_RUN_AS(bits_a);
  CLGPU_RUN_K b = CLGPU_RUN_AS(bits_b);
  return (CLGPU_RUN_EQUAL) ? 1 : 0;
}
#else
inline int clgpu_run_equal(KB a, KB b) { return a == b; }
#endif

/* Element i of a view given as (buffer, element offset of element 0,
 * stride); contiguous views ignore the stride. */
#ifdef CLGPU_RUN_STRIDED
#define CLGPU_RUN_AT(at, step, i) ((long)(at) + (long)(i) * (step))
#else
#define CLGPU_RUN_AT(at, step, i) ((at) + (i))
#endif

/* The views every kernel reads, as parameters and as arguments. */
#define CLGPU_RUN_INPUTS                                                    \
  __global const KB *keys, ulong keys_at, long keys_step, __global const T *values, \
      ulong values_at, long values_step
#define CLGPU_RUN_PASS keys, keys_at, keys_step, values, values_at, values_step
#define CLGPU_RUN_KEY(i) keys[CLGPU_RUN_AT(keys_at, keys_step, i)]
#ifdef CLGPU_RUN_NO_VALUES
#define CLGPU_RUN_VALUE(i) clgpu_map((T)0, (i))
#else
#define CLGPU_RUN_VALUE(i) clgpu_map(values[CLGPU_RUN_AT(values_at, values_step, i)], (i))
#endif
#ifndef CLGPU_RUN_OFFSET_T
#define CLGPU_RUN_OFFSET_T ulong
#endif

/* (h, v) then (h2, v2), into (h, v). */
inline void clgpu_run_join(ulong *h, A *v, ulong h2, A v2) {
  *v = h2 ? v2 : clgpu_combine(*v, v2);
  *h += h2;
}

/* Whether element i (> 0) starts a run. */
#define CLGPU_RUN_HEAD_AT(i) (!clgpu_run_equal(CLGPU_RUN_KEY((i) - 1), CLGPU_RUN_KEY(i)))

/* CHUNKED keys that are contiguous and compared by their bits are compared
 * sixteen at a time (KB16), which a CPU compiler turns into vector
 * compares; a strided view or the caller's equality takes the plain loop,
 * and so does a device whose quirks row says no vector compares
 * (CLGPU_RUN_SCALAR, src/runtime/quirks.c). */
#if CLGPU_GROUP == 1 && !defined(CLGPU_RUN_STRIDED) && !defined(CLGPU_RUN_EQUAL) && \
    !defined(CLGPU_RUN_SCALAR)
#define CLGPU_RUN_VECTOR 1
typedef CLGPU_CAT(CLGPU_RUN_KB, 16) KB16;
/* shuffle2(now, (KB16)(before), CLGPU_RUN_BACK_ONE): the block shifted by
 * one lane, `before` in lane 0 (one permute, where building the vector
 * from its parts took six on POCL). */
#define CLGPU_RUN_BACK_ONE (KB16)(16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
/* The block `now` shifted by one, `previous` first, in the runs' walks:
 * the permute took reduce_by_key of 16M uint32 on POCL from 15-19 to
 * 12.6-15.5 ms (four interleaved runs), while unique's walk, which keeps
 * only keys, was 0-4% slower with it than with the vector built from its
 * parts, so it keeps that. */
#ifdef CLGPU_RUN_KEYS_ONLY
#define CLGPU_RUN_BEFORE(now, previous) \
  ((KB16)((previous), (now).s0123, (now).s456789ab, (now).scde))
#else
#define CLGPU_RUN_BEFORE(now, previous) shuffle2((now), (KB16)(previous), CLGPU_RUN_BACK_ONE)
#endif

/* The heads of a block of sixteen keys as a 16-bit mask, lane l in bit l:
 * where `now` differs from `before` (the block shifted by one). */
inline uint clgpu_run_head_mask(KB16 now, KB16 before) {
  uint16 bits = convert_uint16(now != before) &
                (uint16)(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                         32768);
  uint8 bits8 = bits.lo | bits.hi;
  uint4 bits4 = bits8.lo | bits8.hi;
  uint2 bits2 = bits4.lo | bits4.hi;
  return bits2.x | bits2.y;
}
#endif

/* The heads among the elements [b, e). */
inline ulong clgpu_run_count_heads(CLGPU_RUN_INPUTS, ulong b, ulong e) {
  ulong h = b == 0 && e > 0 ? 1 : 0;
  ulong i = b > 0 ? b : 1;
#ifdef CLGPU_RUN_VECTOR
  __global const KB *k = keys + keys_at;
  while (i + 16 <= e) {
    /* Lane counts in uint, summed every 2^20 blocks so that none wraps. */
    uint16 lanes = (uint16)(0);
    for (uint blocks = 0; blocks < (1u << 20) && i + 16 <= e; blocks++, i += 16) {
      lanes += convert_uint16(CLGPU_VLOAD16(KB16, k + i) != vload16(0, k + i - 1)) & (uint16)(1);
    }
    uint8 eights = lanes.lo + lanes.hi;
    uint4 fours = eights.lo + eights.hi;
    h += (ulong)fours.s0 + fours.s1 + fours.s2 + fours.s3;
  }
#endif
  for (; i < e; i++) h += CLGPU_RUN_HEAD_AT(i) ? 1 : 0;
  return h;
}

/* The pair of the elements [b, e): the heads among them, counted from the
 * keys alone (for a scan 1 when there is one: it needs no count), and the value of the run open at e,
 * from the last head before e, found walking back from e (a run's length
 * on average), or from b when [b, e) has none. So the first pass reads
 * the keys once and few values, and a scan's first pass reads little. */
inline void clgpu_run_fold(CLGPU_RUN_INPUTS, ulong b, ulong e, ulong *heads, A *value) {
  ulong h = 0;
#ifndef CLGPU_RUN_SCAN
  h = clgpu_run_count_heads(CLGPU_RUN_PASS, b, e);
#endif
  /* The last head in [b, e), or b. */
  ulong start = b;
  int found = 0;
  for (ulong j = e; j > b; j--) {
    if (j - 1 == 0 || CLGPU_RUN_HEAD_AT(j - 1)) {
      start = j - 1;
      found = 1;
      break;
    }
  }
  A v = CLGPU_NEUTRAL;
  for (ulong k = start; k < e; k++) {
    A x = CLGPU_RUN_VALUE(k);
    if (k == start && found) {
      v = x;
    } else {
      v = clgpu_combine(v, x);
    }
  }
#ifdef CLGPU_RUN_SCAN
  /* A scan's pairs need only whether a head is there. */
  h = found ? 1 : 0;
#endif
  *heads = h;
  *value = v;
}

/* The outputs: scan_by_key's (one view of n elements) or the runs' (the
 * run keys, the reduced or first values, the count, the offsets; each
 * view with its capacity, 0 for a view the call does not have). */
#ifdef CLGPU_RUN_SCAN
#define CLGPU_RUN_OUTPUTS __global R *out, ulong out_at, long out_step, int exclusive
#define CLGPU_RUN_OUT out, out_at, out_step, exclusive
#else
#define CLGPU_RUN_OUTPUTS                                                               \
  __global KB *run_keys, ulong run_keys_at, long run_keys_step, ulong key_capacity,     \
      __global R *reduced, ulong reduced_at, long reduced_step, ulong value_capacity, \
      __global ulong *count, ulong count_at, __global CLGPU_RUN_OFFSET_T *offsets,       \
      ulong offsets_at, long offsets_step, ulong offset_capacity
#define CLGPU_RUN_OUT                                                                    \
  run_keys, run_keys_at, run_keys_step, key_capacity, reduced, reduced_at, reduced_step, \
      value_capacity, count, count_at, offsets, offsets_at, offsets_step, offset_capacity

/* Run r's reduced value, where the caller has room for it. */
inline void clgpu_run_reduced(CLGPU_RUN_OUTPUTS, ulong r, A v) {
#ifdef CLGPU_INITIAL
  v = clgpu_combine((A)(CLGPU_INITIAL), v);
#endif
  if (r < value_capacity) reduced[CLGPU_RUN_AT(reduced_at, reduced_step, r)] = clgpu_store(v);
}
#endif

#if defined(CLGPU_RUN_VECTOR) && defined(CLGPU_RUN_VECTOR_SUM) && !defined(CLGPU_VMASK)
#define CLGPU_VMASK CLGPU_RUN_VECTOR_SUM
#endif
#if defined(CLGPU_RUN_VECTOR) && defined(CLGPU_VMASK) && CLGPU_VECTOR_OP == 1
#define CLGPU_RUN_A16 CLGPU_CAT(CLGPU_A, 16)
#define CLGPU_RUN_T16 CLGPU_CAT(CLGPU_T, 16)
#define CLGPU_RUN_R16 CLGPU_CAT(CLGPU_R, 16)
#define CLGPU_RUN_M16 CLGPU_CAT(CLGPU_VMASK, 16)
/* One step of the doubling scan of a block's pairs (head f, value p) over
 * `shift` (below). */
#define CLGPU_RUN_SCAN_STEP(shift)                                          \
  do {                                                                      \
    CLGPU_RUN_A16 moved_ = shuffle2(p, fill, (shift));                      \
    CLGPU_RUN_M16 flags_ = shuffle2(f, (CLGPU_RUN_M16)(0), (shift));        \
    p = select(p + moved_, p, f);                                           \
    f |= flags_;                                                            \
  } while (0)
/* A block's heads as lanes of all ones in the accumulator's size, from
 * the compare's 0 or 1 per lane: converting the compare's -1 itself from
 * 4-byte lanes to 8-byte ones gave wrong flags on llvmpipe (rusticl 22.3,
 * LLVM 15: scan_by_key of uint64 values by uint32 keys summed across run
 * starts), while every other implementation here was right. */
#define CLGPU_RUN_HEAD_FLAGS(now, before) \
  ((CLGPU_RUN_M16)(0) -                   \
   CLGPU_CAT(convert_, CLGPU_RUN_M16)(convert_uint16((now) != (before)) & (uint16)(1)))
/* The shuffle masks of those shifts (lane k takes lane k - shift, or lane
 * 0 of the second vector below lane `shift`), and what is shifted in: -0,
 * which added to a lane changes nothing (+0 would turn a -0 into +0). */
#define CLGPU_RUN_SHIFTS()                                                                      \
  const CLGPU_RUN_M16 lane_ = (CLGPU_RUN_M16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, \
                                              15);                                              \
  const CLGPU_RUN_M16 past_ = (CLGPU_RUN_M16)(16);                                             \
  const CLGPU_RUN_M16 shift1 = lane_ >= (CLGPU_RUN_M16)(1) ? lane_ - (CLGPU_RUN_M16)(1) : past_; \
  const CLGPU_RUN_M16 shift2 = lane_ >= (CLGPU_RUN_M16)(2) ? lane_ - (CLGPU_RUN_M16)(2) : past_; \
  const CLGPU_RUN_M16 shift4 = lane_ >= (CLGPU_RUN_M16)(4) ? lane_ - (CLGPU_RUN_M16)(4) : past_; \
  const CLGPU_RUN_M16 shift8 = lane_ >= (CLGPU_RUN_M16)(8) ? lane_ - (CLGPU_RUN_M16)(8) : past_; \
  const CLGPU_RUN_A16 fill = (CLGPU_RUN_A16)(-(A)0)
#endif

#if defined(CLGPU_RUN_SCAN) && defined(CLGPU_RUN_VECTOR) && defined(CLGPU_VSTORE_EXPR) && \
    CLGPU_VECTOR_OP == 1
/* A CHUNKED scan_by_key SUM over contiguous keys compared by their bits
 * walks sixteen elements at a time, so that the running value waits on one
 * addition per sixteen elements instead of one per element (a float
 * addition's latency bounded the plain walk at about 4 cycles an element).
 * In a block, the pairs (head, value) of its elements are scanned by
 * doubling over shifts of 1, 2, 4 and 8 lanes with the pairs' operator
 * (f1, p1) then (f2, p2) = (f1 | f2, f2 ? p2 : p1 + p2), the shifted-in
 * lanes (no head, -0) changing nothing; then the lanes with no head up to them add the carry v. The
 * block's sums are added in a fixed tree, so float results stay
 * deterministic for a given n, shape and device. Expects, in the walk:
 * i, e, v, previous (the key before i, unread at i = 0), keys, values,
 * out and their offsets, and `exclusive` a constant. */
#define CLGPU_RUN_SCAN_SIXTEENS(exclusive_)                                                     \
  do {                                                                                          \
    CLGPU_RUN_SHIFTS();                                                                         \
    const CLGPU_RUN_A16 neutral_ = (CLGPU_RUN_A16)(CLGPU_NEUTRAL);                             \
    __global const KB *k_ = keys + keys_at;                                                     \
    __global const T *x_ = values + values_at;                                                  \
    __global R *o_ = out + out_at;                                                              \
    KB before_ = previous;                                                                      \
    if (i == 0 && e >= 16) before_ = (KB)(~k_[0]); /* element 0 is a head */                   \
    for (; i + 16 <= e; i += 16) {                                                              \
      KB16 now_ = CLGPU_VLOAD16(KB16, k_ + i);                                                  \
      KB16 prior_ = shuffle2(now_, (KB16)(before_), CLGPU_RUN_BACK_ONE);                        \
      before_ = now_.sf;                                                                        \
      const CLGPU_RUN_M16 heads_ = CLGPU_RUN_HEAD_FLAGS(now_, prior_);                          \
      CLGPU_RUN_M16 f = heads_;                                                                 \
      CLGPU_RUN_A16 p =                                                                         \
          CLGPU_CAT(convert_, CLGPU_RUN_A16)(CLGPU_VLOAD16(CLGPU_RUN_T16, x_ + i));             \
      CLGPU_RUN_SCAN_STEP(shift1);                                                              \
      CLGPU_RUN_SCAN_STEP(shift2);                                                              \
      CLGPU_RUN_SCAN_STEP(shift4);                                                              \
      CLGPU_RUN_SCAN_STEP(shift8);                                                              \
      const CLGPU_RUN_A16 inclusive_ = select(p + (CLGPU_RUN_A16)(v), p, f);                    \
      CLGPU_RUN_A16 r = inclusive_;                                                             \
      if (exclusive_) {                                                                         \
        r = select(shuffle2(inclusive_, (CLGPU_RUN_A16)(v), shift1), neutral_, heads_);         \
      }                                                                                         \
      CLGPU_VSTORE16(CLGPU_RUN_R16, (CLGPU_RUN_R16)(CLGPU_VSTORE_EXPR), o_ + i);                \
      v = inclusive_.sf;                                                                        \
    }                                                                                           \
    previous = before_;                                                                         \
  } while (0)
#endif

#if CLGPU_GROUP == 1 && !defined(CLGPU_RUN_SCAN)
/* CHUNKED walks of the runs' outputs, without a branch on the heads.
 * Element i, with h heads before it, stores at place h what a run keeps of
 * its head (its key, its first value, its index): a head's place is its own
 * run's, and any other element's is the next run's, which that run's head
 * overwrites later in the same walk. Then it counts itself, folds its value
 * into v (restarting at a head) and stores v at its own run's place
 * (h - 1), so that a run's last element leaves the run's reduced value.
 * These stores run over [b, L), L the range's last head: the head at L and
 * everything after it belong to a run that may go on past the range, whose
 * reduced value the walk that holds its last element writes once it knows
 * that the run ends (at n or before a head); the places this walk stores at
 * are at most L's own run's. */

#if defined(CLGPU_RUN_KEYS_ONLY) || defined(CLGPU_RUN_FIRST)
#define CLGPU_RUN_NO_REDUCED 1
#endif
#if defined(CLGPU_RUN_NO_VALUES) && !defined(CLGPU_RUN_KEYS_ONLY)
#define CLGPU_RUN_OFFSETS 1 /* run-length encoding */
#endif

/* What the head at place r keeps: its key, first value and index. */
inline void clgpu_run_keep(CLGPU_RUN_OUTPUTS, ulong r, KB key, A x, ulong i, int checked) {
  (void)x;
  (void)i;
  if (!checked || r < key_capacity) run_keys[CLGPU_RUN_AT(run_keys_at, run_keys_step, r)] = key;
#ifdef CLGPU_RUN_FIRST
  if (!checked || r < value_capacity) {
    reduced[CLGPU_RUN_AT(reduced_at, reduced_step, r)] = clgpu_store(x);
  }
#endif
#ifdef CLGPU_RUN_OFFSETS
  if (!checked || r < offset_capacity) {
    offsets[CLGPU_RUN_AT(offsets_at, offsets_step, r)] = (CLGPU_RUN_OFFSET_T)i;
  }
#endif
}

/* Run r's reduced value v. */
inline void clgpu_run_put(CLGPU_RUN_OUTPUTS, ulong r, A v, int checked) {
#ifndef CLGPU_RUN_NO_REDUCED
#ifdef CLGPU_INITIAL
  v = clgpu_combine((A)(CLGPU_INITIAL), v);
#endif
  if (!checked || r < value_capacity) reduced[CLGPU_RUN_AT(reduced_at, reduced_step, r)] = clgpu_store(v);
#endif
}

/* Each view's element offset folded into its pointer once, so that no
 * store or load in the loops adds it again (measured on POCL: a store
 * indexed by a pointer and one offset is cheaper than by two offsets). */
#define CLGPU_RUN_BASES_IN() \
  do {                       \
    keys += keys_at;         \
    keys_at = 0;             \
    values += values_at;     \
    values_at = 0;           \
  } while (0)
#define CLGPU_RUN_BASES_OUT()  \
  do {                         \
    run_keys += run_keys_at;   \
    run_keys_at = 0;           \
    reduced += reduced_at;     \
    reduced_at = 0;            \
    offsets += offsets_at;     \
    offsets_at = 0;            \
  } while (0)

/* Element i's value as the walk reads it; unique reads no values, and what
 * it passes instead (v) is never stored. */
#ifdef CLGPU_RUN_KEYS_ONLY
#define CLGPU_RUN_OWN_VALUE(i) v
#else
#define CLGPU_RUN_OWN_VALUE(i) CLGPU_RUN_VALUE(i)
#endif

/* One element of the stores' walk (above): element i, its key, whether it
 * is a head, stores checked against the capacities or not (a constant);
 * h and v, locals of the walk, before it and then after it. */
#ifdef CLGPU_RUN_NO_REDUCED
#define CLGPU_RUN_STEP(key, head, i, checked)                                          \
  do {                                                                                 \
    clgpu_run_keep(CLGPU_RUN_OUT, h, (key), CLGPU_RUN_OWN_VALUE(i), (i), (checked));   \
    h += (head);                                                                       \
  } while (0)
#else
#define CLGPU_RUN_STEP(key, head, i, checked)                     \
  do {                                                            \
    A x_ = CLGPU_RUN_VALUE(i);                                    \
    clgpu_run_keep(CLGPU_RUN_OUT, h, (key), x_, (i), (checked));  \
    h += (head);                                                  \
    v = (head) ? x_ : clgpu_combine(v, x_);                       \
    clgpu_run_put(CLGPU_RUN_OUT, h - 1, v, (checked));            \
  } while (0)
#endif

#ifdef CLGPU_RUN_VECTOR
/* step(key, head, index, 0) for the elements i up to `stop` in blocks of
 * sixteen, `previous` the key before i. One vector compare of the block
 * with itself shifted by one gives the heads, gathered into a mask of
 * sixteen bits; each step takes its key by a plain load and its head from
 * the mask, so that no lane is taken out of a vector per element (on
 * POCL and Intel's runtime 8-12% faster for reduce_by_key than taking
 * the lanes out). */
#define CLGPU_RUN_LANE(step, l) step(CLGPU_RUN_KEY(i + (l)), (mask >> (l)) & 1u, i + (l), 0)
#define CLGPU_RUN_SIXTEENS(stop, step)                                                        \
  for (; i + 16 <= (stop); i += 16) {                                                         \
    KB16 now = CLGPU_VLOAD16(KB16, keys + keys_at + i);                                       \
    KB16 before = CLGPU_RUN_BEFORE(now, previous);                                            \
    uint mask = clgpu_run_head_mask(now, before);                                             \
    previous = now.sf;                                                                        \
    CLGPU_RUN_LANE(step, 0);                                                                  \
    CLGPU_RUN_LANE(step, 1);                                                                  \
    CLGPU_RUN_LANE(step, 2);                                                                  \
    CLGPU_RUN_LANE(step, 3);                                                                  \
    CLGPU_RUN_LANE(step, 4);                                                                  \
    CLGPU_RUN_LANE(step, 5);                                                                  \
    CLGPU_RUN_LANE(step, 6);                                                                  \
    CLGPU_RUN_LANE(step, 7);                                                                  \
    CLGPU_RUN_LANE(step, 8);                                                                  \
    CLGPU_RUN_LANE(step, 9);                                                                  \
    CLGPU_RUN_LANE(step, 10);                                                                 \
    CLGPU_RUN_LANE(step, 11);                                                                 \
    CLGPU_RUN_LANE(step, 12);                                                                 \
    CLGPU_RUN_LANE(step, 13);                                                                 \
    CLGPU_RUN_LANE(step, 14);                                                                 \
    CLGPU_RUN_LANE(step, 15);                                                                 \
  }
#else
#define CLGPU_RUN_SIXTEENS(stop, step)
#endif

#if defined(CLGPU_RUN_VECTOR) && defined(CLGPU_RUN_VECTOR_SUM) && !defined(CLGPU_RUN_NO_REDUCED)
/* reduce_by_key with a float or double SUM (CLGPU_RUN_VECTOR_SUM, the
 * accumulator's unsigned type of its size, src/ops/runs.c):
 * the sixteen-key walk above, but the running values of a block come from
 * the segmented scan of scan_by_key's walk (CLGPU_RUN_SCAN_STEP), stored
 * to a private row, so that the walk waits on one float addition per
 * sixteen elements instead of one per element. Each element then stores
 * its run's key at place h and its own running value at its run's place,
 * as CLGPU_RUN_STEP does. */
#define CLGPU_RUN_SUM_LANE(l)                                                             \
  do {                                                                                    \
    clgpu_run_keep(CLGPU_RUN_OUT, h, CLGPU_RUN_KEY(i + (l)), v, i + (l), 0);              \
    h += (mask >> (l)) & 1u;                                                              \
    clgpu_run_put(CLGPU_RUN_OUT, h - 1, sums[l], 0);                                      \
  } while (0)
#define CLGPU_RUN_SIXTEENS_SUM(stop)                                                            \
  do {                                                                                          \
    CLGPU_RUN_SHIFTS();                                                                         \
    A sums[16];                                                                                 \
    for (; i + 16 <= (stop); i += 16) {                                                         \
      KB16 now = CLGPU_VLOAD16(KB16, keys + keys_at + i);                                       \
      KB16 before = CLGPU_RUN_BEFORE(now, previous);                                            \
      CLGPU_RUN_M16 f = CLGPU_RUN_HEAD_FLAGS(now, before);                                      \
      uint mask = clgpu_run_head_mask(now, before);                                             \
      previous = now.sf;                                                                        \
      CLGPU_RUN_A16 p = CLGPU_CAT(convert_, CLGPU_RUN_A16)(                                     \
          CLGPU_VLOAD16(CLGPU_RUN_T16, values + values_at + i));                                \
      CLGPU_RUN_SCAN_STEP(shift1);                                                              \
      CLGPU_RUN_SCAN_STEP(shift2);                                                              \
      CLGPU_RUN_SCAN_STEP(shift4);                                                              \
      CLGPU_RUN_SCAN_STEP(shift8);                                                              \
      const CLGPU_RUN_A16 running = select(p + (CLGPU_RUN_A16)(v), p, f);                       \
      vstore16(running, 0, sums);                                                               \
      CLGPU_RUN_SUM_LANE(0);                                                                    \
      CLGPU_RUN_SUM_LANE(1);                                                                    \
      CLGPU_RUN_SUM_LANE(2);                                                                    \
      CLGPU_RUN_SUM_LANE(3);                                                                    \
      CLGPU_RUN_SUM_LANE(4);                                                                    \
      CLGPU_RUN_SUM_LANE(5);                                                                    \
      CLGPU_RUN_SUM_LANE(6);                                                                    \
      CLGPU_RUN_SUM_LANE(7);                                                                    \
      CLGPU_RUN_SUM_LANE(8);                                                                    \
      CLGPU_RUN_SUM_LANE(9);                                                                    \
      CLGPU_RUN_SUM_LANE(10);                                                                   \
      CLGPU_RUN_SUM_LANE(11);                                                                   \
      CLGPU_RUN_SUM_LANE(12);                                                                   \
      CLGPU_RUN_SUM_LANE(13);                                                                   \
      CLGPU_RUN_SUM_LANE(14);                                                                   \
      CLGPU_RUN_SUM_LANE(15);                                                                   \
      v = running.sf;                                                                           \
    }                                                                                           \
  } while (0)
#endif

/* The stores' walk over elements i up to `stop`, `previous` the key before
 * i, a plain loop (the caller's equality, i = 0 a head whatever it says). */
#define CLGPU_RUN_STORES(stop, step, checked)                             \
  for (; i < (stop); i++) {                                               \
    KB key_ = CLGPU_RUN_KEY(i);                                           \
    uint head_ = i == 0 || !clgpu_run_equal(previous, key_) ? 1 : 0;      \
    step(key_, head_, i, checked);                                        \
    previous = key_;                                                      \
  }

/* Walk [b, e) of n elements from the pair (h, v) of everything before b,
 * writing the outputs of these elements: the stores' walk up to the last
 * head (unchecked while no place it reaches can pass a capacity, sixteen
 * keys compared at a time where they can be), that head's key, first
 * value and index, and the reduced value of the run open at e where it
 * ends there. Everything is inside this one function, so that whether a
 * store is checked is a constant wherever it is compiled. */
inline void clgpu_run_walk(CLGPU_RUN_INPUTS, CLGPU_RUN_OUTPUTS, ulong b, ulong e, ulong n,
                           ulong h, A v) {
  if (b >= e) return;
  CLGPU_RUN_BASES_IN();
  CLGPU_RUN_BASES_OUT();
  ulong last = e; /* the last head in [b, e); e when there is none */
  for (ulong j = e; j > b; j--) {
    if (j - 1 == 0 || CLGPU_RUN_HEAD_AT(j - 1)) {
      last = j - 1;
      break;
    }
  }
  if (last < e) {
    /* Element i's places are at most h + (i - b), below every capacity
     * for i below b + room - h; the outputs a call lacks have none. */
    ulong room = key_capacity;
#if !defined(CLGPU_RUN_KEYS_ONLY)
    room = min(room, value_capacity);
#endif
#ifdef CLGPU_RUN_OFFSETS
    room = min(room, offset_capacity);
#endif
    ulong fast = h >= room ? b : room - h < last - b ? b + (room - h) : last;
    KB previous = b > 0 ? CLGPU_RUN_KEY(b - 1) : (KB)(~CLGPU_RUN_KEY(0));
    ulong i = b;
#if defined(CLGPU_RUN_VECTOR) && defined(CLGPU_RUN_VECTOR_SUM) && !defined(CLGPU_RUN_NO_REDUCED)
    CLGPU_RUN_SIXTEENS_SUM(fast);
#else
    CLGPU_RUN_SIXTEENS(fast, CLGPU_RUN_STEP);
#endif
    CLGPU_RUN_STORES(fast, CLGPU_RUN_STEP, 0)
    CLGPU_RUN_STORES(last, CLGPU_RUN_STEP, 1)
    A x = CLGPU_RUN_OWN_VALUE(last);
    clgpu_run_keep(CLGPU_RUN_OUT, h, CLGPU_RUN_KEY(last), x, last, 1);
    h++;
    v = x;
    b = last + 1;
  }
#ifndef CLGPU_RUN_NO_REDUCED
  /* The run open at e ends here when e is n or a head: its value. */
  if (e == n || CLGPU_RUN_HEAD_AT(e)) {
    for (ulong k = b; k < e; k++) v = clgpu_combine(v, CLGPU_RUN_VALUE(k));
    clgpu_run_put(CLGPU_RUN_OUT, h - 1, v, 1);
  }
#endif
  /* The walk that holds element n - 1 counts the runs. */
  if (e == n) count[count_at] = h;
}
#elif defined(CLGPU_RUN_KEYS_ONLY)
/* unique's walk of [b, e) of n elements, h heads before b. Each element up
 * to the last head in [b, e) stores its key at run h, then h counts it
 * when it is a head: a head's store is its run's key, and the store of an
 * element that is not one lands on the next run's place, which the next
 * head (in this walk, since the walk ends at its last head) overwrites.
 * So a run's first key is never overwritten, no place another walk writes
 * is touched, and no branch depends on where the runs end. */
inline void clgpu_run_walk(CLGPU_RUN_INPUTS, CLGPU_RUN_OUTPUTS, ulong b, ulong e, ulong n,
                           ulong h, A v) {
  (void)v;
  ulong end = b; /* one past the last head in [b, e); b when there is none */
  for (ulong j = e; j > b; j--) {
    if (j - 1 == 0 || CLGPU_RUN_HEAD_AT(j - 1)) {
      end = j;
      break;
    }
  }
  ulong total = h;
  if (end > b) {
    KB previous = b > 0 ? CLGPU_RUN_KEY(b - 1) : (KB)0;
    for (ulong i = b; i < end; i++) {
      KB key = CLGPU_RUN_KEY(i);
      ulong head = i == 0 || !clgpu_run_equal(previous, key) ? 1 : 0;
      if (h < key_capacity) run_keys[CLGPU_RUN_AT(run_keys_at, run_keys_step, h)] = key;
      h += head;
      previous = key;
    }
    total = h;
  }
  /* The walk that holds element n - 1 counts the runs. */
  if (b < e && e == n) count[count_at] = total;
}
#else
/* Walk [b, e) of n elements from the pair (h, v) of everything before b,
 * writing the outputs of these elements. */
inline void clgpu_run_walk(CLGPU_RUN_INPUTS, CLGPU_RUN_OUTPUTS, ulong b, ulong e, ulong n,
                           ulong h, A v) {
  KB previous = b > 0 && b < e ? CLGPU_RUN_KEY(b - 1) : (KB)0;
  ulong i = b;
#if defined(CLGPU_RUN_SCAN) && defined(CLGPU_RUN_VECTOR) && defined(CLGPU_VSTORE_EXPR) && \
    CLGPU_VECTOR_OP == 1
  /* One loop per kind, so that neither branches on it. */
  if (exclusive) {
    CLGPU_RUN_SCAN_SIXTEENS(1);
  } else {
    CLGPU_RUN_SCAN_SIXTEENS(0);
  }
#endif
  for (; i < e; i++) {
    KB key = CLGPU_RUN_KEY(i);
    A x = CLGPU_RUN_VALUE(i);
    int head = i == 0 || !clgpu_run_equal(previous, key);
#ifdef CLGPU_RUN_SCAN
    A before = head ? (A)(CLGPU_NEUTRAL) : v;
    v = head ? x : clgpu_combine(v, x);
    out[CLGPU_RUN_AT(out_at, out_step, i)] = clgpu_store(exclusive ? before : v);
#else
    if (head) {
#ifdef CLGPU_RUN_FIRST
      if (h < value_capacity) reduced[CLGPU_RUN_AT(reduced_at, reduced_step, h)] = clgpu_store(x);
#else
      if (h > 0) clgpu_run_reduced(CLGPU_RUN_OUT, h - 1, v);
#endif
      if (h < key_capacity) run_keys[CLGPU_RUN_AT(run_keys_at, run_keys_step, h)] = key;
      if (h < offset_capacity) {
        offsets[CLGPU_RUN_AT(offsets_at, offsets_step, h)] = (CLGPU_RUN_OFFSET_T)i;
      }
      h++;
      v = x;
    } else {
      v = clgpu_combine(v, x);
    }
#endif
    previous = key;
  }
#ifndef CLGPU_RUN_SCAN
  /* The walk that holds element n - 1 ends the last run and counts them. */
  if (b < e && e == n) {
#ifndef CLGPU_RUN_FIRST
    clgpu_run_reduced(CLGPU_RUN_OUT, h - 1, v);
#endif
    count[count_at] = h;
  }
#endif
}
#endif

/* The walk of [b, e) from (h, v), in the kernels: a scan's walk is
 * inlined once per value of `exclusive`, so that no branch on it is left
 * inside the loop (docs/portability.md rule 5a). */
#ifdef CLGPU_RUN_SCAN
#define CLGPU_RUN_WALK(b, e, h, v)                                                               \
  do {                                                                                          \
    if (exclusive) {                                                                            \
      clgpu_run_walk(CLGPU_RUN_PASS, out, out_at, out_step, 1, (b), (e), n, (h), (v));           \
    } else {                                                                                    \
      clgpu_run_walk(CLGPU_RUN_PASS, out, out_at, out_step, 0, (b), (e), n, (h), (v));           \
    }                                                                                           \
  } while (0)
#else
#define CLGPU_RUN_WALK(b, e, h, v) clgpu_run_walk(CLGPU_RUN_PASS, CLGPU_RUN_OUT, (b), (e), n, (h), (v))
#endif

#if CLGPU_GROUP > 1
/* The exclusive scan of one pair per work-item, by doubling through local
 * memory (Hillis and Steele), and the group's total. Called by every item
 * of the group; returns after a barrier, so the scratch may be written
 * again at once. */
inline void clgpu_run_scan_group(__local ulong *hs, __local A *vs, ulong *h, A *v, ulong *total_h,
                                 A *total_v) {
  uint lid = get_local_id(0);
  ulong mine_h = *h;
  A mine_v = *v;
  hs[lid] = mine_h;
  vs[lid] = mine_v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 1; s < CLGPU_GROUP; s <<= 1) {
    ulong left_h = 0;
    A left_v = CLGPU_NEUTRAL;
    if (lid >= s) {
      left_h = hs[lid - s];
      left_v = vs[lid - s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= s) {
      clgpu_run_join(&left_h, &left_v, mine_h, mine_v);
      mine_h = left_h;
      mine_v = left_v;
      hs[lid] = mine_h;
      vs[lid] = mine_v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *h = lid > 0 ? hs[lid - 1] : 0;
  *v = lid > 0 ? vs[lid - 1] : (A)(CLGPU_NEUTRAL);
  *total_h = hs[CLGPU_GROUP - 1];
  *total_v = vs[CLGPU_GROUP - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The elements of item lid in the tile at t of the range ending at e. */
inline void clgpu_run_items(ulong t, ulong e, ulong *b, ulong *end) {
  ulong first = t + (ulong)get_local_id(0) * CLGPU_ITEMS;
  if (first > e) first = e;
  *b = first;
  *end = e - first < CLGPU_ITEMS ? e : first + CLGPU_ITEMS;
}
#endif

/* The pair of each group's range, to heads[g] and totals[g]. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_runs_totals(
    CLGPU_RUN_INPUTS, ulong n, ulong chunk, __global ulong *heads, ulong heads_at,
    __global A *totals, ulong totals_at) {
  ulong b, e;
  clgpu_range(n, chunk, &b, &e);
  ulong h = 0;
  A v = CLGPU_NEUTRAL;
#if CLGPU_GROUP == 1
  clgpu_run_fold(CLGPU_RUN_PASS, b, e, &h, &v);
#else
  __local ulong hs[CLGPU_GROUP];
  __local A vs[CLGPU_GROUP];
  for (ulong t = b; t < e; t += CLGPU_GROUP * CLGPU_ITEMS) {
    ulong mb, me, ph, th;
    A pv, tv;
    clgpu_run_items(t, e, &mb, &me);
    clgpu_run_fold(CLGPU_RUN_PASS, mb, me, &ph, &pv);
    clgpu_run_scan_group(hs, vs, &ph, &pv, &th, &tv);
    clgpu_run_join(&h, &v, th, tv);
  }
  if (get_local_id(0) != 0) return;
#endif
  ulong g = get_group_id(0);
  heads[heads_at + g] = h;
  totals[totals_at + g] = v;
}

/* The exclusive scan, in place, of `count` pairs (heads[k], totals[k]), in
 * one group: each item folds a stretch of consecutive pairs, the items'
 * folds are scanned, then each item rewrites its stretch from its carry. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_runs_carries(
    __global ulong *heads, ulong heads_at, __global A *totals, ulong totals_at, ulong count) {
  ulong per = (count + CLGPU_GROUP - 1) / CLGPU_GROUP;
  ulong b = (ulong)get_local_id(0) * per;
  if (b > count) b = count;
  ulong e = count - b < per ? count : b + per;
  ulong h = 0;
  A v = CLGPU_NEUTRAL;
  for (ulong k = b; k < e; k++) clgpu_run_join(&h, &v, heads[heads_at + k], totals[totals_at + k]);
#if CLGPU_GROUP > 1
  __local ulong hs[CLGPU_GROUP];
  __local A vs[CLGPU_GROUP];
  ulong th;
  A tv;
  clgpu_run_scan_group(hs, vs, &h, &v, &th, &tv);
#else
  h = 0;
  v = CLGPU_NEUTRAL;
#endif
  for (ulong k = b; k < e; k++) {
    ulong next_h = heads[heads_at + k];
    A next_v = totals[totals_at + k];
    heads[heads_at + k] = h;
    totals[totals_at + k] = v;
    clgpu_run_join(&h, &v, next_h, next_v);
  }
}

/* Walk each group's range from its carry (heads[g], totals[g]; nothing
 * before it when use_carries is 0), writing the outputs. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_runs_write(
    CLGPU_RUN_INPUTS, ulong n, ulong chunk, __global const ulong *heads, ulong heads_at,
    __global const A *totals, ulong totals_at, int use_carries, CLGPU_RUN_OUTPUTS) {
  ulong b, e;
  clgpu_range(n, chunk, &b, &e);
  ulong g = get_group_id(0);
  ulong h = use_carries ? heads[heads_at + g] : 0;
  A v = use_carries ? totals[totals_at + g] : (A)(CLGPU_NEUTRAL);
#ifndef CLGPU_RUN_SCAN
  /* No element: no run, and no walk to count them. */
  if (n == 0 && g == 0 && get_local_id(0) == 0) count[count_at] = 0;
#endif
#if CLGPU_GROUP == 1
  CLGPU_RUN_WALK(b, e, h, v);
#else
  __local ulong hs[CLGPU_GROUP];
  __local A vs[CLGPU_GROUP];
  for (ulong t = b; t < e; t += CLGPU_GROUP * CLGPU_ITEMS) {
    ulong mb, me, ph, th;
    A pv, tv;
    clgpu_run_items(t, e, &mb, &me);
    clgpu_run_fold(CLGPU_RUN_PASS, mb, me, &ph, &pv);
    clgpu_run_scan_group(hs, vs, &ph, &pv, &th, &tv);
    ulong mine_h = h;
    A mine_v = v;
    clgpu_run_join(&mine_h, &mine_v, ph, pv);
    CLGPU_RUN_WALK(mb, me, mine_h, mine_v);
    clgpu_run_join(&h, &v, th, tv);
  }
#endif
}

#if CLGPU_GROUP == 1 && defined(CLGPU_RUN_KEYS_ONLY)
/* unique's CHUNKED path, which reads the keys once: each range packs its
 * run keys (the keys of its heads, element b a head when it differs from
 * b - 1) at the start of its own stretch of `packed`, [b, e), and counts
 * them into heads[g] and counts[g] (totals[g], unused, gets 0); the heads
 * are scanned into each range's first run (clgpu_runs_carries), and
 * clgpu_runs_move copies the packed keys there. Element i stores its key
 * at place b + (heads in [b, i)), which is at most i: inside the stretch,
 * and a head's store is never overwritten. */
#define CLGPU_RUN_PACK(key, head, i, checked) \
  do {                                        \
    to[h] = (key);                            \
    h += (head);                              \
  } while (0)

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void clgpu_runs_pack(
    CLGPU_RUN_INPUTS, ulong n, ulong chunk, __global KB *packed, ulong packed_at,
    __global ulong *heads, ulong heads_at, __global A *totals, ulong totals_at,
    __global ulong *counts, ulong counts_at) {
  ulong b, e;
  clgpu_range(n, chunk, &b, &e);
  ulong h = 0;
  CLGPU_RUN_BASES_IN();
  /* The stretch's start as a pointer of its own: measured faster on POCL
   * than an index with two offsets in each store. */
  __global KB *to = packed + packed_at + b;
  if (b < e) {
    KB previous = b > 0 ? CLGPU_RUN_KEY(b - 1) : (KB)(~CLGPU_RUN_KEY(0));
    ulong i = b;
    CLGPU_RUN_SIXTEENS(e, CLGPU_RUN_PACK);
    CLGPU_RUN_STORES(e, CLGPU_RUN_PACK, 0)
  }
  ulong g = get_group_id(0);
  heads[heads_at + g] = h;
  totals[totals_at + g] = (A)(0);
  counts[counts_at + g] = h;
}

/* Each range's packed keys to the run keys from its first run (heads[g],
 * after the scan), those past the capacity left out; the last range
 * writes the count. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void clgpu_runs_move(
    ulong n, ulong chunk, __global const KB *packed, ulong packed_at,
    __global const ulong *heads, ulong heads_at, __global const ulong *counts, ulong counts_at,
    ulong groups, __global KB *run_keys, ulong run_keys_at, long run_keys_step,
    ulong key_capacity, __global ulong *count, ulong count_at) {
  ulong b, e;
  clgpu_range(n, chunk, &b, &e);
  ulong g = get_group_id(0);
  ulong start = heads[heads_at + g];
  ulong mine = counts[counts_at + g];
  ulong stop = start >= key_capacity ? start : min(start + mine, key_capacity);
  __global const KB *from = packed + packed_at + b - start;
  for (ulong r = start; r < stop; r++) {
    run_keys[CLGPU_RUN_AT(run_keys_at, run_keys_step, r)] = from[r];
  }
  if (g + 1 == groups) count[count_at] = start + mine;
}
#endif
