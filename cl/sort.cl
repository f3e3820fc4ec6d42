/* Sorting: LSD radix sort, merge sort with merge-path partitioning, the
 * segmented sort's merge and radix paths, the index sequence of a sort
 * permutation, and gather. One program per (key type, order, value size,
 * shape, digit width); src/ops/sort.c writes the defines.
 *
 * Defines:
 *   CLGPU_SORT_GROUP    work-items per group: 1 (CHUNKED) or a power of two
 *   CLGPU_SORT_ITEMS    keys per work-item in a tile (TILED radix)
 *   CLGPU_SUBGROUPS     optional, TILED: the device has sub-groups, whose
 *                       scans rank a tile's counts (common.cl)
 *   CLGPU_TILE_STEP     optional, TILED: a barrier after each tile of the
 *                       histogram's walk (CPU runtimes, cl/reduce.cl)
 *   CLGPU_SCAN_GROUP    optional: work-items of clgpu_radix_scan, when not
 *                       CLGPU_SORT_GROUP (a power of two)
 *   CLGPU_VALUE_BYTES   bytes carried with each key: 0, 1, 2, 4, 8 or 16
 *   CLGPU_KEY_T         the key's type (radix and natural merge: the
 *                       unsigned integer of the key's size)
 *   CLGPU_KEY_KIND      0 unsigned, 1 signed, 2 float (natural order)
 *   CLGPU_KEY_INF       floats: the bits of +inf (larger magnitudes are NaNs)
 *   CLGPU_DESCENDING    optional: the reverse order, still stable
 *   CLGPU_RADIX         radix kernels; CLGPU_RADIX_BITS the digit width
 *   CLGPU_RADIX_SINGLE  with CLGPU_RADIX: only the one-kernel sort
 *                       (clgpu_radix_single); without, only the per-pass
 *                       kernels
 *   CLGPU_RADIX_SUMMED  with CLGPU_RADIX, CHUNKED: the scatter is called
 *                       with `summed` set, so no clgpu_radix_scan
 *   CLGPU_SORT_STREAM   with CLGPU_RADIX, CHUNKED: the scatter combines
 *                       each digit's keys into whole lines in local memory;
 *                       CLGPU_SORT_NONTEMPORAL: it writes them with
 *                       non-temporal stores
 *   CLGPU_SORT_PAIRS    with CLGPU_SORT_STREAM, 4-byte keys and 4-byte
 *                       values: between passes each key and its value
 *                       travel as one 8-byte pair (places 1 and 2, below)
 *   CLGPU_SORT_INDEXED  with CLGPU_SORT_PAIRS, a sort permutation: place
 *                       0's keys are only read, each key's value is its
 *                       index, made by the pass that first moves it
 *                       (KEYS_OUT)
 *   CLGPU_MERGE         merge kernels; CLGPU_COMPARE_EXPR optional, an
 *                       expression over a and b (key_t) true when a sorts
 *                       before b; without it the natural order
 *   CLGPU_SEGMENTED     with CLGPU_MERGE: the segmented sort's kernels
 *   CLGPU_SEGMENTED_RADIX the segmented sort's radix path: the kernels
 *                       around its radix sorts (natural order, as
 *                       CLGPU_RADIX's CLGPU_KEY_T, _KIND, _INF, _DESCENDING)
 *   CLGPU_SEARCH        the lower and upper bound kernels (the order of
 *                       CLGPU_MERGE: natural, or CLGPU_COMPARE_EXPR)
 *   CLGPU_GATHER        the gather kernel; CLGPU_ELEMENT_T its element type
 *   CLGPU_KEY_SIZE      custom keys: the caller's key_size; the program does
 *                       not build unless sizeof(CLGPU_KEY_T) equals it
 *   CLGPU_KEY_SIZE_PROBE only the kernel that writes sizeof(CLGPU_KEY_T)
 *   CLGPU_NEEDS_FP64, CLGPU_NEEDS_FP16 (read by common.cl, built before
 *                       this file and before a custom key's declarations)
 *
 * Buffers are (buffer, byte offset) pairs (docs/portability.md rule 13). The
 * keys of a sort live in two places, 0 (where the caller's keys are) and 1
 * (the workspace's alternate); a radix pass moves them from one to the
 * other unless every key has the same digit, which the pass's scan finds
 * on the device and records in `state`: state[p] is the place holding the
 * keys before pass p (place 0 before pass 0, never stored). No group waits
 * for another (rule 1); barriers sit in group-uniform control flow only
 * (rule 3); no atomics but the 32-bit atomic_max of clgpu_segsort_depth
 * (rule 8). */
#define GROUP CLGPU_SORT_GROUP
#define AT(T, buffer, at) ((__global T *)((__global uchar *)(buffer) + (at)))

/* ---- values: bytes that travel with their keys ---- */

#if defined(CLGPU_VALUE_BYTES) && CLGPU_VALUE_BYTES > 0
#define HAS_VALUES 1
#if CLGPU_VALUE_BYTES == 1
typedef uchar value_t;
#elif CLGPU_VALUE_BYTES == 2
typedef ushort value_t;
#elif CLGPU_VALUE_BYTES == 4
typedef uint value_t;
#elif CLGPU_VALUE_BYTES == 8
typedef struct {
  uint word[2];
} value_t;
#elif CLGPU_VALUE_BYTES == 16
typedef struct {
  uint word[4];
} value_t;
#else
#error "CLGPU_VALUE_BYTES must be 0, 1, 2, 4, 8 or 16"
#endif
#else
#define HAS_VALUES 0
typedef uchar value_t;
#endif

/* ---- the order of built-in keys ---- */

#if defined(CLGPU_RADIX) || defined(CLGPU_SEGMENTED_RADIX) || \
    ((defined(CLGPU_MERGE) || defined(CLGPU_SEARCH)) && !defined(CLGPU_COMPARE_EXPR))
typedef CLGPU_KEY_T key_t;
#define KEY_TOP ((key_t)((key_t)1 << (sizeof(key_t) * 8 - 1)))

/* The key's ordered image: an unsigned integer whose order is the sort's.
 * Signed integers flip the sign bit. Floats: a NaN (magnitude above +inf)
 * goes above +inf whatever its sign; otherwise a negative value flips every
 * bit and a positive one its sign bit. Descending inverts it all. */
inline key_t ordered(key_t raw) {
  key_t image = raw;
#if CLGPU_KEY_KIND == 1
  image = (key_t)(raw ^ KEY_TOP);
#elif CLGPU_KEY_KIND == 2
  /* Arithmetic only (a select here halved the radix passes' speed on
   * POCL): positive values and every NaN set the sign bit of their
   * magnitude; negative numbers then have every bit flipped. */
  key_t magnitude = (key_t)(raw & (key_t)~KEY_TOP);
  key_t negative = (key_t)(0 - (key_t)(raw >> (sizeof(key_t) * 8 - 1)));
  key_t nan = (key_t)(0 - (key_t)(magnitude > (key_t)CLGPU_KEY_INF));
  image = (key_t)((key_t)(magnitude | KEY_TOP) ^ (key_t)(negative & (key_t)~nan));
#endif
#ifdef CLGPU_DESCENDING
  image = (key_t)~image;
#endif
  return image;
}
#endif

/* ==== radix sort ==== */

#ifdef CLGPU_RADIX
#define RADIX (1u << CLGPU_RADIX_BITS)
#define ITEMS CLGPU_SORT_ITEMS

inline uint digit_of(key_t key, uint shift, uint mask) {
  return (uint)(ordered(key) >> shift) & mask;
}

/* The place holding the keys before pass `pass`. */
inline uint place_before(__global const uint *state, uint pass) {
  return pass == 0 ? 0u : state[pass];
}

/* The place a pass that moves the keys from `from` writes them to; `last`:
 * the sort's last pass. Two places, 0 and 1, hold keys and values side by
 * side. With CLGPU_SORT_PAIRS (4-byte keys with 4-byte values, CHUNKED)
 * the workspace's places hold each key and its value as one 8-byte pair
 * (the key in the low half): place 1 in the alternate keys' slot, place 2
 * in the alternate values' slot, each 8 n bytes. A pass from place 0
 * writes pairs to place 1; a pass from pairs writes pairs to the other
 * pair place, and the last one writes keys and values back to place 0
 * (clgpu_radix_finish unpacks what a skipped last pass left in pairs). A
 * pass between pair places loads and stores one word per key where the
 * split places take two: it is the cheaper pass on CPUs, whose scatter
 * costs per element moved more than per byte (docs/sort.md). */
inline uint place_after(uint from, uint last) {
#ifdef CLGPU_SORT_PAIRS
  if (from == 0) return 1u;
  return last ? 0u : 3u - from;
#else
  return 1u - from;
#endif
}

/* A sort permutation with pairs (CLGPU_SORT_INDEXED): place 0's keys are
 * the caller's (or their staged copy), which the sort only reads; a pass
 * from place 0 pairs each key with its index, and the passes back to place
 * 0 and clgpu_radix_finish write the values (the indices) alone. Where no
 * pass moves a key, the finish writes the indices in order. The index
 * sequence and the keys' copy the split form needs are then never written,
 * nor read. */
#ifdef CLGPU_SORT_INDEXED
#define KEYS_OUT 0
#else
#define KEYS_OUT 1
#endif

#define KEYS(place) ((place) ? AT(key_t, keys1, keys1_at) : AT(key_t, keys0, keys0_at))
#define VALUES(place) ((place) ? AT(value_t, values1, values1_at) : AT(value_t, values0, values0_at))
#ifdef CLGPU_SORT_PAIRS
#define WORDS(place) ((place) == 2 ? AT(ulong, values1, values1_at) : AT(ulong, keys1, keys1_at))
#endif

#define PLACES_ARGS                                                                 \
  __global uchar *keys0, ulong keys0_at, __global uchar *keys1, ulong keys1_at,     \
      __global uchar *values0, ulong values0_at, __global uchar *values1,           \
      ulong values1_at

#ifdef CLGPU_SCAN_GROUP
#define SCAN_GROUP CLGPU_SCAN_GROUP
#else
#define SCAN_GROUP GROUP
#endif

/* A sort takes either the kernel that runs every pass in one group
 * (clgpu_radix_single, CLGPU_RADIX_SINGLE) or the per-pass kernels, never
 * both: each program holds only its own, so a first call loads and
 * creates less (src/ops/sort.c sort_program). */
#ifndef CLGPU_RADIX_SINGLE
/* A CHUNKED sort whose scatter adds up the counts itself
 * (CLGPU_RADIX_SUMMED, src/ops/sort.c) has no scan of them: its program
 * is half the size without this kernel (POCL's binary, 64K uint32 pairs:
 * 172 KB with it, 93 KB without). */
#ifndef CLGPU_RADIX_SUMMED
/* The exclusive scan of the digit counts of a pass, counts[d * groups + g]
 * (digit-major, so the scan gives every group its start for each digit),
 * by one group; then whether one digit holds every key (the pass is
 * skipped: state[pass + 1] stays the place before it). */
__kernel void clgpu_radix_scan(__global uint *state_buffer, ulong state_at, uint pass, ulong n,
                               __global ulong *counts_buffer, ulong counts_at, ulong groups,
                               uint last) {
  __global uint *state = AT(uint, state_buffer, state_at);
  __global ulong *counts = AT(ulong, counts_buffer, counts_at);
  __local ulong partial[SCAN_GROUP];
  __local int skip;
  uint lid = get_local_id(0);
  ulong entries = (ulong)RADIX * groups;
  ulong per = (entries + SCAN_GROUP - 1) / SCAN_GROUP;
  ulong begin = min(entries, (ulong)lid * per);
  ulong end = min(entries, begin + per);
  ulong sum = 0;
  for (ulong i = begin; i < end; i++) sum += counts[i];
  partial[lid] = sum;
  if (lid == 0) skip = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong run = 0;
    for (uint j = 0; j < SCAN_GROUP; j++) {
      ulong t = partial[j];
      partial[j] = run;
      run += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  ulong run = partial[lid];
  for (ulong i = begin; i < end; i++) {
    ulong t = counts[i];
    counts[i] = run;
    run += t;
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < RADIX; d += SCAN_GROUP) {
    ulong start = counts[(ulong)d * groups];
    ulong stop = d + 1 < RADIX ? counts[(ulong)(d + 1) * groups] : n;
    if (stop - start == n) skip = 1; /* at most one digit can hold all n keys */
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    uint now = place_before(state, pass);
    state[pass + 1] = skip ? now : place_after(now, last);
  }
}

#endif /* !CLGPU_RADIX_SUMMED */

/* After the last pass: the keys (and values) back to place 0 when they
 * ended in place 1. */
__kernel void clgpu_radix_finish(PLACES_ARGS, __global uint *state_buffer, ulong state_at,
                                 uint passes, ulong n, ulong per_item) {
  __global const uint *state = AT(uint, state_buffer, state_at);
  uint place = place_before(state, passes);
#ifdef CLGPU_SORT_PAIRS
  ulong first = get_global_id(0) * per_item;
  ulong stop = min(n, first + per_item);
#ifdef CLGPU_SORT_INDEXED
  /* In place 0 with place 0 before the last pass: no pass moved a key (a
   * pass from place 0 writes pairs), so the permutation is the identity. */
  if (place == 0 && place_before(state, passes - 1) == 0) {
    for (ulong i = first; i < stop; i++) VALUES(0)[i] = (value_t)i;
  }
#endif
  if (place == 0) return;
  __global const ulong *words = WORDS(place);
  for (ulong i = first; i < stop; i++) {
    ulong word = words[i];
    if (KEYS_OUT) KEYS(0)[i] = (key_t)word;
    VALUES(0)[i] = (value_t)(word >> 32);
  }
  return;
#endif
  if (place == 0) return;
  __global key_t *to = KEYS(0);
  __global const key_t *from = KEYS(1);
#if HAS_VALUES
  __global value_t *values_to = VALUES(0);
  __global const value_t *values_from = VALUES(1);
#endif
#if GROUP == 1
  ulong begin = get_global_id(0) * per_item;
  ulong end = min(n, begin + per_item);
  for (ulong i = begin; i < end; i++) {
    to[i] = from[i];
#if HAS_VALUES
    values_to[i] = values_from[i];
#endif
  }
#else
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    to[i] = from[i];
#if HAS_VALUES
    values_to[i] = values_from[i];
#endif
  }
#endif
}
#endif /* !CLGPU_RADIX_SINGLE */

#if GROUP == 1
/* ---- CHUNKED: one work-item per group walks a chunk ---- */

#ifndef CLGPU_RADIX_SINGLE
__attribute__((reqd_work_group_size(1, 1, 1))) __kernel void clgpu_radix_histogram(
    PLACES_ARGS, __global uint *state_buffer, ulong state_at, uint pass, ulong n, ulong chunk,
    uint shift, uint mask, __global ulong *counts_buffer, ulong counts_at, ulong groups) {
  __global const uint *state = AT(uint, state_buffer, state_at);
  __global ulong *counts = AT(ulong, counts_buffer, counts_at);
  __local uint histogram[RADIX];
  for (uint d = 0; d < RADIX; d++) histogram[d] = 0;
  ulong group = get_group_id(0);
  ulong begin = group * chunk;
  ulong end = min(n, begin + chunk);
  uint from = place_before(state, pass);
#ifdef CLGPU_SORT_PAIRS
  if (from != 0) {
    __global const ulong *words = WORDS(from);
    for (ulong i = begin; i < end; i++) histogram[digit_of((key_t)words[i], shift, mask)]++;
  } else
#endif
  {
    __global const key_t *keys = KEYS(from);
    for (ulong i = begin; i < end; i++) histogram[digit_of(keys[i], shift, mask)]++;
  }
  for (uint d = 0; d <= mask; d++) counts[(ulong)d * groups + group] = histogram[d];
  for (uint d = mask + 1; d < RADIX; d++) counts[(ulong)d * groups + group] = 0;
}
#endif

/* The stable serial scatter of keys [begin, end) from place `from` to the
 * other, offset[d] holding where the next key of digit d goes. */
inline void scatter_range(PLACES_ARGS, uint from, ulong begin, ulong end, uint shift, uint mask,
                          __local ulong *offset) {
  __global const key_t *keys = KEYS(from);
  __global key_t *out = KEYS(1u - from);
#if HAS_VALUES
  __global const value_t *values = VALUES(from);
  __global value_t *values_out = VALUES(1u - from);
#endif
  for (ulong i = begin; i < end; i++) {
    key_t key = keys[i];
    ulong at = offset[digit_of(key, shift, mask)]++;
    out[at] = key;
#if HAS_VALUES
    values_out[at] = values[i];
#endif
  }
}

#define PLACES keys0, keys0_at, keys1, keys1_at, values0, values0_at, values1, values1_at

#ifdef CLGPU_SORT_STREAM
/* The scatter with software write-combining (CLGPU_SORT_STREAM, CPU
 * runtimes where measured faster: src/runtime/tuning.c): the keys of each
 * digit wait in local memory until they fill a 64-byte line of the output,
 * which then goes out whole, in non-temporal stores for a sort too large
 * for the cache (CLGPU_SORT_NONTEMPORAL), so that the output's lines are
 * never read first. Key by key, the stores of a pass go to as many places
 * as there are digits, n / RADIX keys apart: a multiple of 4 KiB where n
 * is a large power of two, which crowds them all into a few sets of the
 * core's cache; the lines in local memory sit side by side instead. A digit's
 * first and last lines, which it shares with its neighbours, go out as
 * plain stores of its own positions only. Keys are 1, 2, 4 or 8 bytes, so
 * a line holds LINE_KEYS whole keys and its first key's position is a
 * multiple of LINE_KEYS from the line-aligned address before it. */
#define LINE_BYTES 64
#define LINE_KEYS (LINE_BYTES / sizeof(key_t))
/* Non-temporal stores (common.cl) under CLGPU_SORT_NONTEMPORAL, plain
 * stores of the same whole lines below it. */
#ifdef CLGPU_SORT_NONTEMPORAL
#define STREAM_STORE(value, to) CLGPU_STREAM_STORE(value, to)
#else
#define STREAM_STORE(value, to) (*(to) = (value))
#endif

inline void put_value_streaming(__global value_t *to, value_t value) {
#if CLGPU_VALUE_BYTES == 4
  STREAM_STORE(value, to);
#elif CLGPU_VALUE_BYTES >= 8
  for (int w = 0; w < CLGPU_VALUE_BYTES / 4; w++) {
    STREAM_STORE(value.word[w], (__global uint *)to + w);
  }
#else
  *to = value;
#endif
}

/* A digit's line, whole: its keys in one 64-byte non-temporal store (the
 * output line is 64-byte aligned), its values one by one. */
inline void flush_whole(__global key_t *out, __global value_t *values_out, __local ulong8 *line,
                        __local value_t *line_values, ulong first) {
  if (KEYS_OUT) STREAM_STORE(*line, (__global ulong8 *)(out + first));
#if HAS_VALUES
  /* The values' line is whole 64-byte lines too where the values' place
   * sits at the same distance from a line as the keys' place. */
  const uint value_line = LINE_KEYS * sizeof(value_t);
  __global value_t *to = values_out + first;
  if (value_line % LINE_BYTES == 0 && (ulong)to % LINE_BYTES == 0) {
    for (uint k = 0; k < value_line / LINE_BYTES; k++) {
      STREAM_STORE(((__local ulong8 *)line_values)[k], (__global ulong8 *)to + k);
    }
  } else {
    for (uint slot = 0; slot < LINE_KEYS; slot++) put_value_streaming(to + slot, line_values[slot]);
  }
#endif
}

/* Positions [first, last] of a digit's line, shared with a neighbour, go
 * out as plain stores. */
inline void flush_part(__global key_t *out, __global value_t *values_out, __local ulong8 *line,
                       __local value_t *line_values, ulong first, ulong last) {
  __local key_t *keys = (__local key_t *)line;
  for (ulong at = first; at <= last; at++) {
    uint slot = (uint)(((ulong)(out + at) / sizeof(key_t)) % LINE_KEYS);
    if (KEYS_OUT) out[at] = keys[slot];
#if HAS_VALUES
    values_out[at] = line_values[slot];
#endif
  }
}

/* Digit d's line, filled up to position `at`: out whole where the digit's
 * keys cover it, else (shared with a neighbour) its own positions; the
 * digit's next line starts after it. */
inline void flush_filled(__global key_t *out, __global value_t *values_out, __local ulong8 *lines,
                         __local value_t *line_values, __local ulong *pending, uint d, ulong at) {
  ulong first = pending[d];
  if (at - first == LINE_KEYS - 1) {
    flush_whole(out, values_out, lines + d, line_values + d * LINE_KEYS, first);
  } else {
    flush_part(out, values_out, lines + d, line_values + d * LINE_KEYS, first, at);
  }
  pending[d] = at + 1;
}

inline void scatter_range_streaming(PLACES_ARGS, uint from, ulong begin, ulong end, uint shift,
                                    uint mask, __local ulong *offset, __local ulong *pending,
                                    __local ulong8 *lines, __local value_t *line_values) {
  __global const key_t *keys = KEYS(from);
  __global key_t *out = KEYS(1u - from);
  __global const value_t *values = VALUES(from);
  __global value_t *values_out = VALUES(1u - from);
  __local key_t *line_keys = (__local key_t *)lines;
  for (uint d = 0; d <= mask; d++) pending[d] = offset[d];
  for (ulong i = begin; i < end; i++) {
    key_t key = keys[i];
    uint d = digit_of(key, shift, mask);
    ulong at = offset[d]++;
    uint slot = (uint)(((ulong)(out + at) / sizeof(key_t)) % LINE_KEYS);
    line_keys[d * LINE_KEYS + slot] = key;
#if HAS_VALUES
    line_values[d * LINE_KEYS + slot] = values[i];
#endif
    if (slot == LINE_KEYS - 1) flush_filled(out, values_out, lines, line_values, pending, d, at);
  }
  for (uint d = 0; d <= mask; d++) {
    if (pending[d] < offset[d]) {
      flush_part(out, values_out, lines + d, line_values + d * LINE_KEYS, pending[d],
                 offset[d] - 1);
    }
  }
}

#ifdef CLGPU_SORT_PAIRS
#define PAIR_LINE (LINE_BYTES / sizeof(ulong))

/* Pairs [first, last] of a digit's line, shared with a neighbour, as plain
 * stores. */
inline void flush_pairs_part(__global ulong *out, __local ulong8 *line, ulong first, ulong last) {
  __local const ulong *words = (__local const ulong *)line;
  for (ulong at = first; at <= last; at++) {
    out[at] = words[(uint)(((ulong)(out + at) / sizeof(ulong)) % PAIR_LINE)];
  }
}

/* scatter_range_streaming for CLGPU_SORT_PAIRS (place_after): from keys
 * and values (split_in) or pairs, to pairs or keys and values
 * (split_out). The kernel calls it with constant flags, one loop each. */
inline void scatter_pairs(PLACES_ARGS, uint from, uint to, const int split_in, const int split_out,
                          ulong begin, ulong end, uint shift, uint mask, __local ulong *offset,
                          __local ulong *pending, __local ulong8 *lines,
                          __local value_t *line_values) {
  __global const key_t *keys = KEYS(0);
  __global const value_t *values = VALUES(0);
  __global const ulong *words = WORDS(from);
  __global key_t *out = KEYS(0);
  __global value_t *values_out = VALUES(0);
  __global ulong *words_out = WORDS(to);
  __local key_t *line_keys = (__local key_t *)lines;
  __local ulong *line_words = (__local ulong *)lines;
  for (uint d = 0; d <= mask; d++) pending[d] = offset[d];
  for (ulong i = begin; i < end; i++) {
#ifdef CLGPU_SORT_INDEXED
    ulong word = split_in ? ((ulong)keys[i] | i << 32) : words[i];
#else
    ulong word = split_in ? ((ulong)keys[i] | (ulong)values[i] << 32) : words[i];
#endif
    uint d = digit_of((key_t)word, shift, mask);
    ulong at = offset[d]++;
    if (split_out) {
      uint slot = (uint)(((ulong)(out + at) / sizeof(key_t)) % LINE_KEYS);
      if (KEYS_OUT) line_keys[d * LINE_KEYS + slot] = (key_t)word;
      line_values[d * LINE_KEYS + slot] = (value_t)(word >> 32);
      if (slot == LINE_KEYS - 1) flush_filled(out, values_out, lines, line_values, pending, d, at);
    } else {
      uint slot = (uint)(((ulong)(words_out + at) / sizeof(ulong)) % PAIR_LINE);
      line_words[d * PAIR_LINE + slot] = word;
      if (slot == PAIR_LINE - 1) {
        ulong first = pending[d];
        if (at - first == PAIR_LINE - 1) {
          STREAM_STORE(lines[d], (__global ulong8 *)(words_out + first));
        } else {
          flush_pairs_part(words_out, lines + d, first, at);
        }
        pending[d] = at + 1;
      }
    }
  }
  for (uint d = 0; d <= mask; d++) {
    if (pending[d] >= offset[d]) continue;
    if (split_out) {
      flush_part(out, values_out, lines + d, line_values + d * LINE_KEYS, pending[d],
                 offset[d] - 1);
    } else {
      flush_pairs_part(words_out, lines + d, pending[d], offset[d] - 1);
    }
  }
}
#endif /* CLGPU_SORT_PAIRS */
#endif /* CLGPU_SORT_STREAM */

#ifndef CLGPU_RADIX_SINGLE
/* With `summed`, the counts are the histogram's own (no clgpu_radix_scan
 * ran): each work-item adds up, per digit, the counts of the chunks before
 * its own and of all of them, which gives its start for each digit and
 * whether one digit holds every key (the pass is skipped), and work-item
 * 0 records the pass's place in state[pass + 1] as the scan would have.
 * That is the digits times the chunks in additions per work-item, which
 * src/ops/sort.c allows only while they are few (the tuning table's
 * sort_summed_counts): a kernel less per pass. Without, the counts hold
 * the scan's starts and state[pass + 1] its verdict. `last`: the sort's
 * last pass (place_after). */
__attribute__((reqd_work_group_size(1, 1, 1))) __kernel void clgpu_radix_scatter(
    PLACES_ARGS, __global uint *state_buffer, ulong state_at, uint pass, ulong n, ulong chunk,
    uint shift, uint mask, __global ulong *counts_buffer, ulong counts_at, ulong groups,
    uint summed, uint last) {
  __global uint *state = AT(uint, state_buffer, state_at);
  __global const ulong *counts = AT(ulong, counts_buffer, counts_at);
  uint from = place_before(state, pass);
  __local ulong offset[RADIX];
  ulong group = get_group_id(0);
  if (summed) {
    ulong run = 0;
    uint skip = 0;
    for (uint d = 0; d <= mask; d++) {
      __global const ulong *row = counts + (ulong)d * groups;
      ulong before = 0, total = 0;
      for (ulong g = 0; g < group; g++) before += row[g];
      total = before;
      for (ulong g = group; g < groups; g++) total += row[g];
      offset[d] = run + before;
      if (total == n) skip = 1; /* at most one digit can hold all n keys */
      run += total;
    }
    if (group == 0) state[pass + 1] = skip ? from : place_after(from, last);
    if (skip) return;
  } else {
    if (state[pass + 1] == from) return; /* the pass is skipped */
    for (uint d = 0; d <= mask; d++) offset[d] = counts[(ulong)d * groups + group];
  }
#ifdef CLGPU_SORT_PAIRS
  uint to = place_after(from, last);
#endif
  ulong begin = group * chunk;
#ifdef CLGPU_SORT_STREAM
  __local ulong pending[RADIX];
  __local ulong8 lines[RADIX];
#if HAS_VALUES
  /* 64-byte aligned, so that whole lines of values load as ulong8. */
  __local ulong8 line_values[(RADIX * LINE_KEYS * sizeof(value_t) + LINE_BYTES - 1) / LINE_BYTES];
#else
  __local ulong8 line_values[1];
#endif
  ulong end = min(n, begin + chunk);
  __local value_t *values_lines = (__local value_t *)line_values;
#ifdef CLGPU_SORT_PAIRS
  if (from == 0) {
    scatter_pairs(PLACES, from, to, 1, 0, begin, end, shift, mask, offset, pending, lines,
                  values_lines);
  } else if (to == 0) {
    scatter_pairs(PLACES, from, to, 0, 1, begin, end, shift, mask, offset, pending, lines,
                  values_lines);
  } else {
    scatter_pairs(PLACES, from, to, 0, 0, begin, end, shift, mask, offset, pending, lines,
                  values_lines);
  }
#else
  scatter_range_streaming(PLACES, from, begin, end, shift, mask, offset, pending, lines,
                          values_lines);
#endif
#else
  scatter_range(PLACES, from, begin, min(n, begin + chunk), shift, mask, offset);
#endif
}

#endif

#ifdef CLGPU_RADIX_SINGLE
/* Every pass in one work-item, for short arrays: no state, no counts. */
__attribute__((reqd_work_group_size(1, 1, 1))) __kernel void clgpu_radix_single(
    PLACES_ARGS, ulong n, uint begin_bit, uint end_bit) {
  __local ulong offset[RADIX];
  uint from = 0;
  for (uint shift = begin_bit; shift < end_bit; shift += CLGPU_RADIX_BITS) {
    uint width = min((uint)CLGPU_RADIX_BITS, end_bit - shift);
    uint mask = (uint)((1ul << width) - 1);
    __global const key_t *keys = KEYS(from);
    for (uint d = 0; d <= mask; d++) offset[d] = 0;
    for (ulong i = 0; i < n; i++) offset[digit_of(keys[i], shift, mask)]++;
    ulong run = 0;
    uint skip = 0;
    for (uint d = 0; d <= mask; d++) {
      ulong t = offset[d];
      if (t == n) skip = 1;
      offset[d] = run;
      run += t;
    }
    if (skip) continue;
    scatter_range(PLACES, from, 0, n, shift, mask, offset);
    from = 1u - from;
  }
  if (from == 1) {
    for (ulong i = 0; i < n; i++) {
      KEYS(0)[i] = KEYS(1)[i];
#if HAS_VALUES
      VALUES(0)[i] = VALUES(1)[i];
#endif
    }
  }
}

#endif /* CLGPU_RADIX_SINGLE */

#else
/* ---- TILED: a group ranks a tile of GROUP * ITEMS keys in local memory ---- */

#define TILE (GROUP * ITEMS)

/* The digit-count table of a tile, count[d * GROUP + l] in digit-major
 * order, is stored with one padding slot after every 32 entries: the scan
 * over it has item l read entries l * RADIX + r, which would all fall in
 * one of a GPU's 32 local-memory banks without the padding (RADIX is a
 * multiple of 32 from 5 bits up), and consecutive items still touch
 * consecutive slots where they walk a digit's row. src/ops/sort.c sizes
 * local memory the same way. */
#define SLOT(e) ((e) + ((e) >> 5))
#define CELL(d, l) SLOT((d) * GROUP + (l))

#ifdef CLGPU_SUBGROUPS
/* The prefix of the items' key counts by sub-group scans (common.cl). */
CLGPU_DEFINE_SUBGROUP_ADD(uint, clgpu_tile_prefix)
#endif

/* Rank the keys [begin, begin + TILE) ∩ [0, n): item l holds keys
 * begin + l * ITEMS + j, j < ITEMS (so item order is key order). Afterwards
 * count[CELL(d, l)] is the number of the tile's keys whose digit is
 * below d, plus those with digit d held by items below l: the stable
 * position of item l's first key of digit d inside the tile. No atomics:
 * every item counts into its own column, then one scan over the
 * digit-major table. */
inline void rank_tile(__global const key_t *keys, ulong begin, ulong n, uint shift, uint mask,
                      __local uint *count, __local uint *partial, key_t *held, uint *digits) {
  uint lid = get_local_id(0);
  for (uint d = 0; d < RADIX; d++) count[CELL(d, lid)] = 0;
  for (uint j = 0; j < ITEMS; j++) {
    ulong i = begin + (ulong)lid * ITEMS + j;
    if (i < n) {
      key_t key = keys[i];
      uint d = digit_of(key, shift, mask);
      held[j] = key;
      digits[j] = d;
      count[CELL(d, lid)]++;
    } else {
      digits[j] = RADIX;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint r = 0; r < RADIX; r++) sum += count[SLOT(lid * RADIX + r)];
#ifdef CLGPU_SUBGROUPS
  uint all;
  uint run = clgpu_tile_prefix(sum, partial, &all);
#else
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = 1; step < GROUP; step <<= 1) {
    uint add = lid >= step ? partial[lid - step] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    partial[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint run = partial[lid] - sum;
#endif
  for (uint r = 0; r < RADIX; r++) {
    uint t = count[SLOT(lid * RADIX + r)];
    count[SLOT(lid * RADIX + r)] = run;
    run += t;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* How many of the tile's keys have digit d. */
inline uint tile_digit_total(__local const uint *count, uint d, uint valid) {
  uint stop = d + 1 < RADIX ? count[CELL(d + 1, 0)] : valid;
  return stop - count[CELL(d, 0)];
}

/* Move the ranked tile's keys (and values) to out: key j of item l with
 * digit d goes to base[d] plus its stable rank in the tile. */
inline void move_tile(__global key_t *out, __global const value_t *values,
                      __global value_t *values_out, ulong begin, __local uint *count,
                      __local const ulong *base, const key_t *held, const uint *digits) {
  uint lid = get_local_id(0);
  for (uint j = 0; j < ITEMS; j++) {
    uint d = digits[j];
    if (d < RADIX) {
      ulong at = base[d] + count[CELL(d, lid)]++;
      out[at] = held[j];
#if HAS_VALUES
      values_out[at] = values[begin + (ulong)lid * ITEMS + j];
#endif
    }
  }
}

#ifndef CLGPU_RADIX_SINGLE
/* The digit counts of each group's chunk [g * chunk, min(n, (g + 1) *
 * chunk)): every item counts the keys g * chunk + lid, + GROUP, ...
 * (consecutive items read consecutive keys) into its own column of a
 * digit-major table, then the columns are summed per digit. */
__attribute__((reqd_work_group_size(GROUP, 1, 1))) __kernel void clgpu_radix_histogram(
    PLACES_ARGS, __global uint *state_buffer, ulong state_at, uint pass, ulong n, ulong chunk,
    uint shift, uint mask, __global ulong *counts_buffer, ulong counts_at, ulong groups) {
  __global const uint *state = AT(uint, state_buffer, state_at);
  __global ulong *counts = AT(ulong, counts_buffer, counts_at);
  __local uint count[SLOT(RADIX * GROUP)];
  uint lid = get_local_id(0);
  for (uint d = 0; d < RADIX; d++) count[CELL(d, lid)] = 0;
  ulong g = get_group_id(0);
  ulong begin = min(n, g * chunk);
  ulong end = min(n, begin + chunk);
  __global const key_t *keys = KEYS(place_before(state, pass));
  for (ulong t = begin; t < end; t += TILE) {
    for (uint j = 0; j < ITEMS; j++) {
      ulong i = t + (ulong)j * GROUP + lid;
      if (i < end) count[CELL(digit_of(keys[i], shift, mask), lid)]++;
    }
#ifdef CLGPU_TILE_STEP
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < RADIX; d += GROUP) {
    ulong sum = 0;
    for (uint l = 0; l < GROUP; l++) sum += count[CELL(d, l)];
    counts[(ulong)d * groups + g] = sum;
  }
}

/* Each group moves its chunk tile by tile: a tile is ranked in local
 * memory (stable), its keys go to the running start of their digit, which
 * then advances by the tile's count of that digit. The tile loop's bounds
 * are the group's own (uniform). */
__attribute__((reqd_work_group_size(GROUP, 1, 1))) __kernel void clgpu_radix_scatter(
    PLACES_ARGS, __global uint *state_buffer, ulong state_at, uint pass, ulong n, ulong chunk,
    uint shift, uint mask, __global ulong *counts_buffer, ulong counts_at, ulong groups) {
  __global const uint *state = AT(uint, state_buffer, state_at);
  __global const ulong *counts = AT(ulong, counts_buffer, counts_at);
  __local uint count[SLOT(RADIX * GROUP)];
  __local uint partial[GROUP];
  __local ulong base[RADIX];
  __local ulong run[RADIX];
  key_t held[ITEMS];
  uint digits[ITEMS];
  uint lid = get_local_id(0);
  uint from = place_before(state, pass);
  /* The same for every item of every group: uniform control flow. */
  if (state[pass + 1] != from) {
    ulong g = get_group_id(0);
    ulong begin = min(n, g * chunk);
    ulong end = min(n, begin + chunk);
    for (uint d = lid; d < RADIX; d += GROUP) run[d] = counts[(ulong)d * groups + g];
    for (ulong t = begin; t < end; t += TILE) {
      rank_tile(KEYS(from), t, end, shift, mask, count, partial, held, digits);
      uint valid = (uint)min((ulong)TILE, end - t);
      for (uint d = lid; d < RADIX; d += GROUP) {
        base[d] = run[d] - count[CELL(d, 0)];
        run[d] += tile_digit_total(count, d, valid);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      move_tile(KEYS(1u - from), VALUES(from), VALUES(1u - from), t, count, base, held, digits);
      /* The next tile's ranking rewrites count and base. */
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}

#else
/* Every pass in one group, for short arrays: the group walks the tiles
 * twice per pass (totals, then moves), keeping the running start of every
 * digit in local memory. */
__attribute__((reqd_work_group_size(GROUP, 1, 1))) __kernel void clgpu_radix_single(
    PLACES_ARGS, ulong n, uint begin_bit, uint end_bit) {
  __local uint count[SLOT(RADIX * GROUP)];
  __local uint partial[GROUP];
  __local ulong start[RADIX];
  __local ulong base[RADIX];
  __local int skip;
  key_t held[ITEMS];
  uint digits[ITEMS];
  uint lid = get_local_id(0);
  uint from = 0;
  ulong tiles = (n + TILE - 1) / TILE;
  for (uint shift = begin_bit; shift < end_bit; shift += CLGPU_RADIX_BITS) {
    uint width = min((uint)CLGPU_RADIX_BITS, end_bit - shift);
    uint mask = (uint)((1ul << width) - 1);
    __global const key_t *keys = KEYS(from);
    for (uint d = lid; d < RADIX; d += GROUP) start[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong tile = 0; tile < tiles; tile++) {
      ulong begin = tile * TILE;
      rank_tile(keys, begin, n, shift, mask, count, partial, held, digits);
      uint valid = (uint)min((ulong)TILE, n - begin);
      for (uint d = lid; d < RADIX; d += GROUP) start[d] += tile_digit_total(count, d, valid);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
      ulong run = 0;
      skip = 0;
      for (uint d = 0; d < RADIX; d++) {
        ulong t = start[d];
        if (t == n) skip = 1;
        start[d] = run;
        run += t;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!skip) {
      for (ulong tile = 0; tile < tiles; tile++) {
        ulong begin = tile * TILE;
        rank_tile(keys, begin, n, shift, mask, count, partial, held, digits);
        uint valid = (uint)min((ulong)TILE, n - begin);
        for (uint d = lid; d < RADIX; d += GROUP) {
          base[d] = start[d] - count[CELL(d, 0)];
          start[d] += tile_digit_total(count, d, valid);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        move_tile(KEYS(1u - from), VALUES(from), VALUES(1u - from), begin, count, base, held,
                  digits);
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      from = 1u - from;
    }
    /* The next pass (or the copy back) reads keys other items of the
     * group wrote in this one: a global fence too. */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  }
  if (from == 1) {
    for (ulong i = lid; i < n; i += GROUP) {
      KEYS(0)[i] = KEYS(1)[i];
#if HAS_VALUES
      VALUES(0)[i] = VALUES(1)[i];
#endif
    }
  }
}
#endif /* CLGPU_RADIX_SINGLE */
#endif
#endif

/* ==== the order of merge sort and search ==== */

#if defined(CLGPU_MERGE) || defined(CLGPU_SEARCH)
#ifdef CLGPU_COMPARE_EXPR
typedef CLGPU_KEY_T key_t;
#ifdef CLGPU_KEY_SIZE
/* Custom keys are addressed as key_t here and as key_size-byte records by
 * the host (the view's length, the workspace). If the two disagree the
 * kernels would read and write past the caller's keys, so the program must
 * not build: an array of negative size when they differ. src/ops/sort.c then
 * measures sizeof with clgpu_key_size_probe to say so. */
typedef char clgpu_key_size_is_not_sizeof_key_type[sizeof(key_t) == CLGPU_KEY_SIZE ? 1 : -1];
#endif
inline int user_precedes(key_t a, key_t b) { return (CLGPU_COMPARE_EXPR) ? 1 : 0; }
#ifdef CLGPU_DESCENDING
#define PRECEDES(a, b) user_precedes((b), (a))
#else
#define PRECEDES(a, b) user_precedes((a), (b))
#endif
#else
#define PRECEDES(a, b) (ordered(a) < ordered(b))
#endif
#endif

/* ==== the offsets of a segmented sort ==== */

/* S + 1 offsets, uint or ulong, of any stride (in elements): segment k
 * holds positions [offsets[k], offsets[k + 1]). */
#if defined(CLGPU_SEGMENTED) || defined(CLGPU_SEGMENTED_RADIX)
#define SEG_ARGS                                                                        \
  __global const uchar *offsets, ulong offsets_at, long offsets_step, int offsets_wide, \
      ulong segments

inline ulong seg_offset(__global const uchar *offsets, ulong offsets_at, long offsets_step,
                        int offsets_wide, ulong k) {
  long at = (long)k * offsets_step;
  if (offsets_wide) return AT(ulong, offsets, offsets_at)[at];
  return (ulong)AT(uint, offsets, offsets_at)[at];
}
#define SEG_OFFSET(k) seg_offset(offsets, offsets_at, offsets_step, offsets_wide, (k))

/* The first k in [low, high) whose offset is above i, or high (the last
 * offset at or below i is then k - 1), by halving. */
inline ulong offsets_above(SEG_ARGS, ulong low, ulong high, ulong i) {
  while (low < high) {
    ulong middle = low + (high - low) / 2;
    if (SEG_OFFSET(middle) <= i) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}
#endif

/* ==== merge sort ==== */

#ifdef CLGPU_MERGE
#define MERGE_ARGS                                                                  \
  __global uchar *keys0, ulong keys0_at, __global uchar *keys1, ulong keys1_at,     \
      __global uchar *values0, ulong values0_at, __global uchar *values1,           \
      ulong values1_at
#define MKEYS(place) ((place) ? AT(key_t, keys1, keys1_at) : AT(key_t, keys0, keys0_at))
#define MVALUES(place) \
  ((place) ? AT(value_t, values1, values1_at) : AT(value_t, values0, values0_at))
#define BLOCK CLGPU_MERGE_BLOCK

/* Where output position `diagonal` of the merge of a[0, la) and b[0, lb)
 * takes its element from: i from a, diagonal - i from b before it (the
 * merge-path search). The search starts at 0 rather than at
 * diagonal - lb: that clamp compiles to llvm.usub.sat, which Oclgrind
 * cannot run. A probe past b's end means more must come from a. */
inline ulong merge_path(__global const key_t *a, ulong la, __global const key_t *b, ulong lb,
                        ulong diagonal) {
  ulong low = 0;
  ulong high = min(diagonal, la);
  while (low < high) {
    ulong middle = (low + high) / 2;
    ulong other = diagonal - 1 - middle;
    if (other < lb && PRECEDES(b[other], a[middle])) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
}

/* The arguments of a merge's steps: the runs, the output (and the values'). */
#if HAS_VALUES
#define MERGE_RUNS_ARGS                                                                     \
  __global const key_t *a, ulong la, __global const key_t *b, ulong lb, __global key_t *out, \
      __global const value_t *va, __global const value_t *vb, __global value_t *vout
#define MERGE_RUNS a, la, b, lb, out, va, vb, vout
#else
#define MERGE_RUNS_ARGS                                                                     \
  __global const key_t *a, ulong la, __global const key_t *b, ulong lb, __global key_t *out
#define MERGE_RUNS a, la, b, lb, out
#endif

/* One branch-free step of a merge at (i, j), writing output k: both heads
 * are read, the store selects one, the indices step by the comparison.
 * Only where neither run has run out. Ties take a's element (stability: a
 * holds the earlier keys). */
#if HAS_VALUES
#define MERGE_STEP(i, j, k)                      \
  do {                                           \
    key_t x_ = a[i], y_ = b[j];                  \
    int take_b_ = PRECEDES(y_, x_) ? 1 : 0;      \
    out[k] = take_b_ ? y_ : x_;                  \
    vout[k] = take_b_ ? vb[j] : va[i];           \
    i += 1 - take_b_;                            \
    j += take_b_;                                \
  } while (0)
#else
#define MERGE_STEP(i, j, k)                      \
  do {                                           \
    key_t x_ = a[i], y_ = b[j];                  \
    int take_b_ = PRECEDES(y_, x_) ? 1 : 0;      \
    out[k] = take_b_ ? y_ : x_;                  \
    i += 1 - take_b_;                            \
    j += take_b_;                                \
  } while (0)
#endif

/* The merge's outputs [k, stop) from (i, j): branch-free steps while
 * neither run can run out (m at a time, m at most what is left of either
 * run), then the rest from the run left. */
inline void merge_steps(MERGE_RUNS_ARGS, ulong i, ulong j, ulong k, ulong stop) {
  while (k < stop) {
    ulong m = min(stop - k, min(la - i, lb - j));
    if (m == 0) break;
    for (ulong t = 0; t < m; t++, k++) MERGE_STEP(i, j, k);
  }
  for (; k < stop; k++) {
    if (i < la) {
      out[k] = a[i];
#if HAS_VALUES
      vout[k] = va[i];
#endif
      i++;
    } else {
      out[k] = b[j];
#if HAS_VALUES
      vout[k] = vb[j];
#endif
      j++;
    }
  }
}

/* The four merges' (i, j, k) of MERGE_CHAINS, and their ends. */
#define MERGE_CHAIN_START(q)                                              \
  ulong k##q = count * q / 4, stop##q = count * (q + 1) / 4;              \
  ulong i##q = merge_path(a, la, b, lb, skip + k##q), j##q = skip + k##q - i##q
#define MERGE_CHAIN_ROOM(q) min(stop##q - k##q, min(la - i##q, lb - j##q))

/* Merge a[0, la) and b[0, lb) from output position `skip` on, writing
 * `count` elements to out. The outputs are cut into four stretches, each
 * started by a merge-path search, so the cost does not depend on how the
 * runs interleave; the four merges step together, so that a CPU overlaps
 * their chains of load, compare and index (a lone merge waits on each
 * step's loads before the next), then each finishes alone. */
inline void merge_part(__global const key_t *a, ulong la, __global const key_t *b, ulong lb,
                       ulong skip, ulong count, __global key_t *out
#if HAS_VALUES
                       ,
                       __global const value_t *va, __global const value_t *vb,
                       __global value_t *vout
#endif
) {
  if (count < 64) {
    ulong i = merge_path(a, la, b, lb, skip);
    merge_steps(MERGE_RUNS, i, skip - i, 0, count);
    return;
  }
  MERGE_CHAIN_START(0);
  MERGE_CHAIN_START(1);
  MERGE_CHAIN_START(2);
  MERGE_CHAIN_START(3);
  for (;;) {
    ulong m = min(min(MERGE_CHAIN_ROOM(0), MERGE_CHAIN_ROOM(1)),
                  min(MERGE_CHAIN_ROOM(2), MERGE_CHAIN_ROOM(3)));
    if (m == 0) break;
    for (ulong t = 0; t < m; t++) {
      MERGE_STEP(i0, j0, k0);
      MERGE_STEP(i1, j1, k1);
      MERGE_STEP(i2, j2, k2);
      MERGE_STEP(i3, j3, k3);
      k0++;
      k1++;
      k2++;
      k3++;
    }
  }
  merge_steps(MERGE_RUNS, i0, j0, k0, stop0);
  merge_steps(MERGE_RUNS, i1, j1, k1, stop1);
  merge_steps(MERGE_RUNS, i2, j2, k2, stop2);
  merge_steps(MERGE_RUNS, i3, j3, k3, stop3);
}

/* Merge every pair of runs of `width` overlapping the output range
 * [begin, end) from place `from` to the other. */
inline void merge_range(MERGE_ARGS, uint from, ulong n, ulong width, ulong begin, ulong end) {
  __global const key_t *in = MKEYS(from);
  __global key_t *out = MKEYS(1u - from);
#if HAS_VALUES
  __global const value_t *vin = MVALUES(from);
  __global value_t *vout = MVALUES(1u - from);
#endif
  ulong position = begin;
  while (position < end) {
    ulong pair = position / (2 * width) * (2 * width);
    ulong middle = min(n, pair + width);
    ulong stop = min(n, pair + 2 * width);
    ulong count = min(end, stop) - position;
    merge_part(in + pair, middle - pair, in + middle, stop - middle, position - pair, count,
               out + position
#if HAS_VALUES
               ,
               vin + pair, vin + middle, vout + position
#endif
    );
    position += count;
  }
}

/* Sort in[0, count) (count <= BLOCK) stably into out[0, count), which may
 * be `in` itself: every key is read before any is written. A block in
 * order is copied; otherwise, where BLOCK is at most 32, it is sorted by
 * rank: a key goes where the keys that come before it end,
 * the earlier ones it does not precede and the later ones that precede it,
 * one comparison per pair and no branch on the data (insertion's branches
 * mispredict: 16M floats, POCL, the blocks of 16 took 157-160 ms of the
 * sort's 450 by insertion). A comparator that is not a strict weak order
 * can give two keys one rank; such a block is sorted by insertion, which
 * moves the keys as a permutation whatever the comparator says. */
inline void sort_block(__global const key_t *in, __global key_t *out, uint count
#if HAS_VALUES
                       ,
                       __global const value_t *vin, __global value_t *vout
#endif
) {
  key_t keys[BLOCK];
#if HAS_VALUES
  value_t values[BLOCK];
#endif
  for (uint k = 0; k < count; k++) {
    keys[k] = in[k];
#if HAS_VALUES
    values[k] = vin[k];
#endif
  }
  /* A block already in order (sorted input, runs) goes out as it is, for
   * count - 1 comparisons where ranking would take count (count - 1) / 2. */
  uint in_order = 1;
  for (uint k = 1; k < count; k++) in_order &= PRECEDES(keys[k], keys[k - 1]) ? 0u : 1u;
  if (in_order) {
    for (uint k = 0; k < count; k++) {
      out[k] = keys[k];
#if HAS_VALUES
      vout[k] = values[k];
#endif
    }
    return;
  }
#if BLOCK <= 32
  uint rank[BLOCK];
  for (uint k = 0; k < count; k++) rank[k] = 0;
  for (uint k = 1; k < count; k++) {
    key_t key = keys[k];
    uint before = 0;
    for (uint m = 0; m < k; m++) {
      uint ahead = PRECEDES(key, keys[m]) ? 1u : 0u;
      before += 1u - ahead;
      rank[m] += ahead;
    }
    rank[k] += before;
  }
  uint used = 0;
  for (uint k = 0; k < count; k++) used |= 1u << rank[k];
  if (used == (0xffffffffu >> (32 - count))) {
    for (uint k = 0; k < count; k++) {
      out[rank[k]] = keys[k];
#if HAS_VALUES
      vout[rank[k]] = values[k];
#endif
    }
    return;
  }
#endif
  for (uint k = 1; k < count; k++) {
    key_t key = keys[k];
#if HAS_VALUES
    value_t value = values[k];
#endif
    uint place = k;
    while (place > 0 && PRECEDES(key, keys[place - 1])) {
      keys[place] = keys[place - 1];
#if HAS_VALUES
      values[place] = values[place - 1];
#endif
      place--;
    }
    keys[place] = key;
#if HAS_VALUES
    values[place] = value;
#endif
  }
  for (uint k = 0; k < count; k++) {
    out[k] = keys[k];
#if HAS_VALUES
    vout[k] = values[k];
#endif
  }
}

/* Sort every block of BLOCK keys by insertion (stable), from place 0 into
 * place `to`, then, within the range of `chunk` keys of this work-item,
 * `inner` merge passes of widths BLOCK, 2 BLOCK, ... alternating places. */
__kernel void clgpu_merge_blocks(MERGE_ARGS, ulong n, ulong chunk, uint inner, uint to) {
  ulong begin = get_global_id(0) * chunk;
  if (begin >= n) return;
  ulong end = min(n, begin + chunk);
  __global const key_t *in = MKEYS(0);
  __global key_t *out = MKEYS(to);
#if HAS_VALUES
  __global const value_t *vin = MVALUES(0);
  __global value_t *vout = MVALUES(to);
#endif
  for (ulong block = begin; block < end; block += BLOCK) {
    sort_block(in + block, out + block, (uint)min((ulong)BLOCK, end - block)
#if HAS_VALUES
                                            ,
               vin + block, vout + block
#endif
    );
  }
  uint from = to;
  ulong width = BLOCK;
  for (uint p = 0; p < inner; p++) {
    merge_range(keys0, keys0_at, keys1, keys1_at, values0, values0_at, values1, values1_at, from,
                end, width, begin, end);
    /* Runs are counted from the range's start, which is a multiple of
     * every width used here, so `end` may stand for n. */
    from = 1u - from;
    width *= 2;
  }
}

/* One merge pass over the whole array: runs of `width` are merged in pairs
 * from place `from`; work-item i writes outputs [i * per_item, ...). */
__kernel void clgpu_merge_pass(MERGE_ARGS, ulong n, ulong width, ulong per_item, uint from) {
  ulong begin = get_global_id(0) * per_item;
  if (begin >= n) return;
  merge_range(keys0, keys0_at, keys1, keys1_at, values0, values0_at, values1, values1_at, from, n,
              width, begin, min(n, begin + per_item));
}

/* ==== segmented merge sort ==== */

/* CLGPU_SEGMENTED (with CLGPU_MERGE): keys sorted within segments given by
 * S + 1 offsets (uint or ulong, any stride): segment k holds positions
 * [offsets[k], offsets[k + 1]). Runs are counted from each segment's
 * start, so a segment of L keys takes the passes its own length needs:
 * blocks of BLOCK keys sorted by insertion, then merge passes of widths
 * BLOCK, 2 BLOCK, ... each merging pairs of runs inside a segment. The
 * passes the longest segment needs are found on the device
 * (clgpu_segsort_depth into state[0]); a pass past them returns at once,
 * and clgpu_segsort_finish moves the keys back to place 0 when an odd
 * number of passes left them in place 1. Positions outside every segment
 * (before offsets[0], from offsets[S] on) stay where they are. Offsets out
 * of order give keys in an order that means nothing, but every access
 * stays inside [0, n). */
#ifdef CLGPU_SEGMENTED
/* The segment [*s, *e) holding position i (i < n): the last offset at or
 * below i found by halving; a position outside every segment (or offsets
 * that do not hold it) is a segment of its own, [i, i + 1). */
inline void seg_bounds(SEG_ARGS, ulong n, ulong i, ulong *s, ulong *e) {
  ulong low = offsets_above(offsets, offsets_at, offsets_step, offsets_wide, segments, 0,
                            segments + 1, i);
  *s = i;
  *e = i + 1;
  if (low == 0 || low > segments) return;
  ulong start = SEG_OFFSET(low - 1), stop = min(SEG_OFFSET(low), n);
  if (start <= i && i < stop) {
    *s = start;
    *e = stop;
  }
}

__kernel void clgpu_segsort_clear(__global uchar *state, ulong state_at) {
  if (get_global_id(0) == 0) AT(uint, state, state_at)[0] = 0u;
}

/* state[0] = the merge passes the longest segment needs: the doublings of
 * BLOCK until a run holds it. */
__kernel void clgpu_segsort_depth(SEG_ARGS, ulong n, __global uchar *state, ulong state_at) {
  uint most = 0;
  for (ulong k = get_global_id(0); k < segments; k += get_global_size(0)) {
    ulong start = min(SEG_OFFSET(k), n), stop = min(SEG_OFFSET(k + 1), n);
    uint passes = 0;
    /* start + width < stop, not width < stop - start: the difference's
     * clamp compiles to llvm.usub.sat, which Oclgrind cannot run. */
    for (ulong width = BLOCK; start + width < stop && passes < 64u; width *= 2) passes++;
    most = max(most, passes);
  }
  if (most > 0u) atomic_max(AT(uint, state, state_at), most);
}

/* Every block (BLOCK keys from a segment's start, the last one shorter)
 * that starts in [i * chunk, (i + 1) * chunk) sorted by insertion in place
 * 0 (stable). */
__kernel void clgpu_segsort_blocks(MERGE_ARGS, SEG_ARGS, ulong n, ulong chunk) {
  ulong begin = get_global_id(0) * chunk;
  if (begin >= n) return;
  ulong end = min(n, begin + chunk);
  __global key_t *keys = MKEYS(0);
#if HAS_VALUES
  __global value_t *vals = MVALUES(0);
#endif
  ulong s, e;
  seg_bounds(offsets, offsets_at, offsets_step, offsets_wide, segments, n, begin, &s, &e);
  /* The first block that starts at or after begin. */
  ulong p = s + (begin - s + BLOCK - 1) / BLOCK * BLOCK;
  /* Past its segment's end, it is the next segment's start (which may
   * still lie before `end`). */
  if (p > e) p = e;
  while (p < end) {
    if (p >= e) {
      /* The next segment starts where this one ends (p = e, never back). */
      p = e;
      seg_bounds(offsets, offsets_at, offsets_step, offsets_wide, segments, n, p, &s, &e);
      continue;
    }
    uint count = (uint)min((ulong)BLOCK, e - p);
    sort_block(keys + p, keys + p, count
#if HAS_VALUES
               ,
               vals + p, vals + p
#endif
    );
    p += count;
  }
}

/* Merge pass `pass` (runs of `width` from each segment's start merged in
 * pairs, from place `from` to the other) over the outputs [i * per_item,
 * (i + 1) * per_item); nothing when the longest segment needs fewer
 * passes. */
__kernel void clgpu_segsort_pass(MERGE_ARGS, SEG_ARGS, ulong n, ulong width, ulong per_item,
                                 uint pass, uint from, __global const uchar *state,
                                 ulong state_at) {
  if (pass >= AT(const uint, state, state_at)[0]) return;
  ulong begin = get_global_id(0) * per_item;
  if (begin >= n) return;
  ulong end = min(n, begin + per_item);
  __global const key_t *in = MKEYS(from);
  __global key_t *out = MKEYS(1u - from);
#if HAS_VALUES
  __global const value_t *vin = MVALUES(from);
  __global value_t *vout = MVALUES(1u - from);
#endif
  ulong position = begin;
  while (position < end) {
    ulong s, e;
    seg_bounds(offsets, offsets_at, offsets_step, offsets_wide, segments, n, position, &s, &e);
    ulong pair = s + (position - s) / (2 * width) * (2 * width);
    ulong middle = min(e, pair + width);
    ulong stop = min(e, pair + 2 * width);
    ulong count = min(end, stop) - position;
    merge_part(in + pair, middle - pair, in + middle, stop - middle, position - pair, count,
               out + position
#if HAS_VALUES
               ,
               vin + pair, vin + middle, vout + position
#endif
    );
    position += count;
  }
}

/* After an odd number of passes, the keys (and values) of place 1 moved
 * back to place 0, outputs [i * per_item, (i + 1) * per_item). */
__kernel void clgpu_segsort_finish(MERGE_ARGS, ulong n, ulong per_item,
                                   __global const uchar *state, ulong state_at) {
  if ((AT(const uint, state, state_at)[0] & 1u) == 0u) return;
  ulong begin = get_global_id(0) * per_item;
  ulong end = min(n, begin + per_item);
  __global const key_t *in = MKEYS(1);
  __global key_t *out = MKEYS(0);
#if HAS_VALUES
  __global const value_t *vin = MVALUES(1);
  __global value_t *vout = MVALUES(0);
#endif
  for (ulong k = begin; k < end; k++) {
    out[k] = in[k];
#if HAS_VALUES
    vout[k] = vin[k];
#endif
  }
}
#endif
#endif

/* ==== segmented radix sort ==== */

/* CLGPU_SEGMENTED_RADIX: the radix path of a segmented sort of built-in
 * keys (src/ops/sort.c runs it). Every position i gets an id, the number
 * of offsets at or below i: 0 before offsets[0], k + 1 in segment k, S + 1
 * from offsets[S] on (ascending offsets; others give ids that mean
 * nothing, each at most S + 1). The key's image is its ordered image, or 0
 * outside every segment, so that those keys keep their order.
 * clgpu_segradix_prepare copies the key and its value to place 1 and
 * writes, split, the image over place 0 and the pair (id << position_bits)
 * | i; packed, the word (id << id_shift) | (image << position_bits) | i.
 * Split, the images are then radix sorted carrying the pairs, and the
 * pairs radix sorted by their id bits; packed, the words are radix sorted
 * by their image and id bits: all stably, by the radix kernels of
 * programs of their own. Every segment's positions end up in their own
 * range, in the order of their keys, and every position outside the
 * segments where it was. clgpu_segradix_gather moves key and value i of
 * place 1 to where its pair went, in place 0. Pairs are uint (wide 0) or
 * ulong (wide 1; packed words too). CHUNKED work-items take a range of
 * per_item positions each; TILED ones stride over all n. */
#ifdef CLGPU_SEGMENTED_RADIX
#define PAIR_PLACES_ARGS                                                        \
  __global uchar *keys0, ulong keys0_at, __global uchar *keys1, ulong keys1_at, \
      __global uchar *values0, ulong values0_at, __global uchar *values1, ulong values1_at

/* The first position, the end and the step of this work-item's. */
#if GROUP == 1
#define PAIR_RANGE(first, end, step)         \
  ulong first = get_global_id(0) * per_item; \
  ulong end = min(n, first + per_item);      \
  ulong step = 1
#else
#define PAIR_RANGE(first, end, step) \
  ulong first = get_global_id(0);    \
  ulong end = n;                     \
  ulong step = get_global_size(0)
#endif

__kernel void clgpu_segradix_prepare(PAIR_PLACES_ARGS, SEG_ARGS, __global uchar *pairs,
                                     ulong pairs_at, int wide, uint position_bits, uint id_shift,
                                     int packed, ulong n, ulong per_item) {
  PAIR_RANGE(i, end, step);
  if (i >= end) return;
  __global key_t *keys = AT(key_t, keys0, keys0_at);
  __global key_t *copy = AT(key_t, keys1, keys1_at);
  ulong id =
      offsets_above(offsets, offsets_at, offsets_step, offsets_wide, segments, 0, segments + 1, i);
  /* The offset that ends this id's positions (none past offsets[S]). */
  ulong next = id <= segments ? SEG_OFFSET(id) : ~(ulong)0;
  for (; i < end; i += step) {
    /* Past it: search on from there (positions only grow). */
    if (i >= next) {
      id = offsets_above(offsets, offsets_at, offsets_step, offsets_wide, segments, id + 1,
                         segments + 1, i);
      next = id <= segments ? SEG_OFFSET(id) : ~(ulong)0;
    }
    key_t key = keys[i];
    copy[i] = key;
#if HAS_VALUES
    AT(value_t, values1, values1_at)[i] = AT(const value_t, values0, values0_at)[i];
#endif
    key_t inside = (key_t)0 - (key_t)(id != 0 && id <= segments);
    key_t image = (key_t)(ordered(key) & inside);
    ulong pair = (id << id_shift) | i;
    if (packed) {
      pair |= (ulong)image << position_bits;
    } else {
      keys[i] = image;
    }
    if (wide) {
      AT(ulong, pairs, pairs_at)[i] = pair;
    } else {
      AT(uint, pairs, pairs_at)[i] = (uint)pair;
    }
  }
}

/* Key and value p of place 1 to position j of place 0, p being the
 * position in the pair at j: the pairs in place 0 (pairs0) when
 * state_index is 0, else in the place state[state_index] names. */
__kernel void clgpu_segradix_gather(PAIR_PLACES_ARGS, __global const uchar *pairs0, ulong pairs0_at,
                                    __global const uchar *pairs1, ulong pairs1_at,
                                    __global const uchar *state, ulong state_at, uint state_index,
                                    int wide, uint position_bits, ulong n, ulong per_item) {
  PAIR_RANGE(j, end, step);
  if (j >= end) return;
  uint place = state_index == 0u ? 0u : AT(const uint, state, state_at)[state_index];
  __global const uchar *pairs = place ? pairs1 : pairs0;
  ulong pairs_at = place ? pairs1_at : pairs0_at;
  ulong mask = ((ulong)1 << position_bits) - 1;
  __global key_t *keys = AT(key_t, keys0, keys0_at);
  __global const key_t *copy = AT(const key_t, keys1, keys1_at);
  for (; j < end; j += step) {
    ulong pair =
        wide ? AT(const ulong, pairs, pairs_at)[j] : (ulong)AT(const uint, pairs, pairs_at)[j];
    ulong p = pair & mask;
    keys[j] = copy[p];
#if HAS_VALUES
    AT(value_t, values0, values0_at)[j] = AT(const value_t, values1, values1_at)[p];
#endif
  }
}
#endif

/* ==== lower and upper bounds ==== */

/* For each needle x, its bound in a haystack sorted in the order above: the
 * lower bound is the number of haystack keys that precede x, the upper bound
 * the number that x does not precede. Over a sorted haystack each is the
 * length of the prefix for which BEFORE holds, found by halving. Needles are
 * compared through their probe: the ordered image of a built-in key (an
 * integer compare per step), or the key itself under a comparator. */
#ifdef CLGPU_SEARCH
#ifdef CLGPU_COMPARE_EXPR
#define PROBE(k) (k)
#define PROBE_LESS(a, b) PRECEDES(a, b)
#else
#define PROBE(k) ordered(k)
#define PROBE_LESS(a, b) ((a) < (b))
#endif
#define BEFORE_LOWER(h, px) PROBE_LESS(PROBE(h), (px))
#define BEFORE_UPPER(h, px) (!PROBE_LESS((px), PROBE(h)))

/* Needles per CHUNKED batch searched in step: their loads are independent,
 * so a core has many misses in flight instead of one. 16M needles in 16M
 * uint keys on 2 cores, as a multiple of one thread's branching binary
 * search: POCL 2.1-2.5x with 8 lanes, 3.9-5.1x with 16, 6.7-7.0x with 32
 * or 64; Intel's CPU runtime 2.1x with 8 or 32, 3.6x with 64. */
#define LANES 64

#define SEARCH_ARGS                                                                     \
  __global const uchar *haystack, ulong haystack_at, ulong n, __global const uchar *needles, \
      ulong needles_at, ulong m, __global uchar *positions, ulong positions_at, int wide,    \
      ulong chunk

inline void put_position(__global uchar *positions, ulong positions_at, int wide, ulong i,
                         ulong position) {
  if (wide) {
    AT(ulong, positions, positions_at)[i] = position;
  } else {
    AT(uint, positions, positions_at)[i] = (uint)position;
  }
}

/* The functions and kernel of one bound (NAME: lower or upper):
 * NAME_all, over the whole haystack, halving with a trip count that depends
 * on n alone (the answer lies in [base, base + len]; a probe at
 * base + half moves base or not, then len loses half);
 * NAME_between, the classic halving of [low, high];
 * NAME_from, a needle not below the previous one, whose bound is at or
 * after `from`: steps of 1, 2, 4, ... from there bracket it, then halving.
 * The kernel, CHUNKED (GROUP 1): a chunk of needles per work-item, each
 * from the previous bound when the chunk's needles are in order, else
 * LANES at a time; TILED: a needle per work-item, the rest in strides of
 * the global size. */
#define DEFINE_BOUND(NAME, BEFORE)                                                             \
  inline ulong NAME##_all(__global const key_t *h, ulong n, key_t px) {                       \
    if (n == 0) return 0;                                                                      \
    ulong base = 0, len = n;                                                                   \
    while (len > 1) {                                                                          \
      ulong part = len / 2;                                                                    \
      base = BEFORE(h[base + part], px) ? base + part : base;                                  \
      len -= part;                                                                             \
    }                                                                                          \
    return base + (BEFORE(h[base], px) ? 1 : 0);                                               \
  }                                                                                            \
  inline ulong NAME##_between(__global const key_t *h, ulong low, ulong high, key_t px) {     \
    while (low < high) {                                                                       \
      ulong middle = low + (high - low) / 2;                                                   \
      if (BEFORE(h[middle], px)) {                                                             \
        low = middle + 1;                                                                      \
      } else {                                                                                 \
        high = middle;                                                                         \
      }                                                                                        \
    }                                                                                          \
    return low;                                                                                \
  }                                                                                            \
  inline ulong NAME##_from(__global const key_t *h, ulong n, ulong from, key_t px) {          \
    ulong low = from, step = 1;                                                                \
    for (;;) {                                                                                 \
      if (step > n - low) return NAME##_between(h, low, n, px);                                \
      ulong probe = low + step - 1;                                                            \
      if (!BEFORE(h[probe], px)) return NAME##_between(h, low, probe, px);                     \
      low = probe + 1;                                                                         \
      step *= 2;                                                                               \
    }                                                                                          \
  }                                                                                            \
  SEARCH_KERNEL(NAME, BEFORE)

#if GROUP == 1
#define SEARCH_KERNEL(NAME, BEFORE)                                                            \
  __attribute__((reqd_work_group_size(1, 1, 1))) __kernel void clgpu_##NAME##_bound(          \
      SEARCH_ARGS) {                                                                           \
    ulong begin = get_global_id(0) * chunk;                                                    \
    if (begin >= m) return;                                                                    \
    ulong end = min(begin + chunk, m);                                                         \
    __global const key_t *h = AT(const key_t, haystack, haystack_at);                         \
    __global const key_t *x = AT(const key_t, needles, needles_at);                           \
    int in_order = 1;                                                                          \
    for (ulong i = begin + 1; i < end; i++) in_order &= PRECEDES(x[i], x[i - 1]) ? 0 : 1;     \
    if (in_order) {                                                                            \
      ulong at = NAME##_all(h, n, PROBE(x[begin]));                                            \
      put_position(positions, positions_at, wide, begin, at);                                  \
      for (ulong i = begin + 1; i < end; i++) {                                                \
        at = NAME##_from(h, n, at, PROBE(x[i]));                                               \
        put_position(positions, positions_at, wide, i, at);                                    \
      }                                                                                        \
      return;                                                                                  \
    }                                                                                          \
    ulong i = begin;                                                                           \
    if (n > 0) {                                                                               \
      for (; i + LANES <= end; i += LANES) {                                                   \
        key_t px[LANES];                                                                       \
        ulong base[LANES];                                                                     \
        for (int j = 0; j < LANES; j++) {                                                      \
          px[j] = PROBE(x[i + j]);                                                             \
          base[j] = 0;                                                                         \
        }                                                                                      \
        for (ulong len = n; len > 1;) {                                                        \
          ulong part = len / 2;                                                                \
          for (int j = 0; j < LANES; j++) {                                                    \
            base[j] = BEFORE(h[base[j] + part], px[j]) ? base[j] + part : base[j];             \
          }                                                                                    \
          len -= part;                                                                         \
        }                                                                                      \
        for (int j = 0; j < LANES; j++) {                                                      \
          ulong at = base[j] + (BEFORE(h[base[j]], px[j]) ? 1 : 0);                            \
          put_position(positions, positions_at, wide, i + j, at);                              \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    for (; i < end; i++) {                                                                     \
      put_position(positions, positions_at, wide, i, NAME##_all(h, n, PROBE(x[i])));           \
    }                                                                                          \
  }
#else
#define SEARCH_KERNEL(NAME, BEFORE)                                                            \
  __attribute__((reqd_work_group_size(GROUP, 1, 1))) __kernel void clgpu_##NAME##_bound(      \
      SEARCH_ARGS) {                                                                           \
    __global const key_t *h = AT(const key_t, haystack, haystack_at);                         \
    __global const key_t *x = AT(const key_t, needles, needles_at);                           \
    ulong stride = get_global_size(0);                                                         \
    for (ulong i = get_global_id(0); i < m; i += stride) {                                     \
      put_position(positions, positions_at, wide, i, NAME##_all(h, n, PROBE(x[i])));           \
    }                                                                                          \
  }
#endif

DEFINE_BOUND(lower, BEFORE_LOWER)
DEFINE_BOUND(upper, BEFORE_UPPER)
#endif

/* ==== gather ==== */

#ifdef CLGPU_GATHER
typedef CLGPU_ELEMENT_T element_t;
__kernel void clgpu_gather(__global const uchar *permutation, ulong permutation_at,
                           long permutation_stride, int wide, __global const uchar *source,
                           ulong source_at, long source_stride, ulong source_n,
                           __global uchar *destination, ulong destination_at,
                           long destination_stride, ulong n) {
  ulong i = get_global_id(0);
  if (i >= n) return;
  long step = (long)i * permutation_stride;
  ulong index = wide ? AT(ulong, permutation, permutation_at)[step]
                     : (ulong)AT(uint, permutation, permutation_at)[step];
  if (index >= source_n) return;
  AT(element_t, destination, destination_at)[(long)i * destination_stride] =
      AT(const element_t, source, source_at)[(long)index * source_stride];
}
#endif

/* ==== the device's size of a custom key type ==== */

#ifdef CLGPU_KEY_SIZE_PROBE
__kernel void clgpu_key_size_probe(__global ulong *size) { size[0] = sizeof(CLGPU_KEY_T); }
#endif
