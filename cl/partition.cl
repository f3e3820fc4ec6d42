/* Stable partition (partition.h): the elements for which a predicate holds,
 * in order, then the others, in order.
 *
 * Built after cl/common.cl and the operator section of cl/reduce.cl
 * (CLGPU_OPERATOR_ONLY) of a predicate spec: T (the element type), A (the
 * count's type, ulong) and clgpu_map(x, i), 1 where the predicate holds
 * and 0 elsewhere (src/ops/partition.c writes them).
 *
 * Defines of its own:
 *   CLGPU_PART_STRIDED optional: input and output are read and written with
 *                      their strides (else both are contiguous)
 *
 * Three passes, those of findall: each group's range counts its selected
 * elements (clgpu_partition_counts); the counts are scanned by the scan
 * kernels of cl/reduce.cl into inclusive offsets, or, with few ranges
 * (`scanned` 0), the write kernel adds them up itself; each range is walked
 * again (clgpu_partition_write), a selected element going to the next
 * place from its range's offset, any other to the next place from the
 * total plus the others before its range.
 *
 * CHUNKED (CLGPU_GROUP 1): a work-item walks its range; the place of each
 * element is a select, not a branch. TILED: the group takes rows of
 * CLGPU_GROUP elements, one per item, and scans the row's selections in
 * local memory by doubling to find each item's place. */
#ifdef CLGPU_PART_STRIDED
#define CLGPU_PART_AT(offset, k, step) (long)((offset) + (ulong)((long)(k) * (step)))
#else
#define CLGPU_PART_AT(offset, k, step) ((offset) + (k))
#endif

/* counts[g] = the selected elements of group g's range. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_partition_counts(
    __global const T *in, ulong in_offset, long in_step, ulong n, ulong chunk,
    __global ulong *counts, ulong counts_offset) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  uint lid = (uint)get_local_id(0);
  ulong found = 0;
  for (ulong k = begin + lid; k < end; k += CLGPU_GROUP) {
    found += clgpu_map(in[CLGPU_PART_AT(in_offset, k, in_step)], k) != 0 ? 1ul : 0ul;
  }
#if CLGPU_GROUP > 1
  __local ulong sums[CLGPU_GROUP];
  sums[lid] = found;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint width = CLGPU_GROUP / 2; width > 0; width /= 2) {
    if (lid < width) sums[lid] += sums[lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  found = sums[0];
#endif
  if (lid == 0) counts[counts_offset + get_group_id(0)] = found;
}

/* Group g's range written to its places: selected elements from
 * offsets[g - 1] (0 for group 0), the others from the total selected
 * (offsets[groups - 1]) plus the others of the ranges before. Group 0
 * writes the total to count[count_offset]. */
__kernel __attribute__((reqd_work_group_size(CLGPU_GROUP, 1, 1))) void clgpu_partition_write(
    __global const T *in, ulong in_offset, long in_step, ulong n, ulong chunk,
    __global const ulong *offsets, ulong offsets_offset, ulong groups, __global T *out,
    ulong out_offset, long out_step, __global ulong *count, ulong count_offset, int scanned) {
  ulong begin, end;
  clgpu_range(n, chunk, &begin, &end);
  ulong g = get_group_id(0);
  uint lid = (uint)get_local_id(0);
  __global const ulong *counted = offsets + offsets_offset;
  ulong total = 0, selected = 0;
  if (scanned) {
    total = groups > 0 ? counted[groups - 1] : 0ul;
    selected = g > 0 ? counted[g - 1] : 0ul;
  } else {
    /* The counts themselves: the ones before this range, and all. */
    for (ulong k = 0; k < groups; k++) {
      ulong c = counted[k];
      if (k < g) selected += c;
      total += c;
    }
  }
  ulong others = total + (begin - selected);
#if CLGPU_GROUP == 1
  for (ulong k = begin; k < end; k++) {
    T x = in[CLGPU_PART_AT(in_offset, k, in_step)];
    ulong hit = clgpu_map(x, k) != 0 ? 1ul : 0ul;
    ulong at = hit ? selected : others;
    out[CLGPU_PART_AT(out_offset, at, out_step)] = x;
    selected += hit;
    others += 1ul - hit;
  }
#else
  __local uint scan[2][CLGPU_GROUP];
  for (ulong row = begin; row < end; row += CLGPU_GROUP) {
    ulong k = row + lid;
    T x;
    uint hit = 0;
    if (k < end) {
      x = in[CLGPU_PART_AT(in_offset, k, in_step)];
      hit = clgpu_map(x, k) != 0 ? 1u : 0u;
    }
    /* Inclusive scan of the row's hits by doubling, between two buffers. */
    int from = 0;
    scan[0][lid] = hit;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < CLGPU_GROUP; d *= 2) {
      uint v = scan[from][lid];
      if (lid >= d) v += scan[from][lid - d];
      scan[1 - from][lid] = v;
      from = 1 - from;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint before = scan[from][lid] - hit; /* hits before this item in the row */
    uint row_hits = scan[from][CLGPU_GROUP - 1];
    if (k < end) {
      ulong at = hit ? selected + before : others + (ulong)(lid - before);
      out[CLGPU_PART_AT(out_offset, at, out_step)] = x;
    }
    ulong row_length = end - row < CLGPU_GROUP ? end - row : (ulong)CLGPU_GROUP;
    selected += row_hits;
    others += row_length - row_hits;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  if (g == 0 && lid == 0) count[count_offset] = total;
}
