/* Sorting: argument checks, the plan (algorithm, shape, digit width,
 * ranges, workspace layout), the programs of cl/sort.cl, and enqueueing.
 *
 * A plan is computed from the arguments and the device alone, so the size
 * query, workspace creation and the call agree (workspace.h).
 *
 * Radix sort. The ordered image of a key is sorted by digits from bit
 * begin_bit up, digits of equal width (the bit count divided evenly over
 * the fewest passes at the widest digit; the sizes below are the tuning
 * table's, runtime/tuning.c). CHUNKED: digits up to 11 bits; at
 * most four chunks per compute unit, each walked by one work-item (count,
 * then a stable serial scatter); arrays up to 16384 keys run every
 * pass in one work-item. TILED: digits of 4 bits up to the tuning table's
 * tiled_digit_max, the widest whose per-item count table fits the device's
 * local memory; tiles of GROUP * radix_items keys, each group walking a
 * chunk of whole tiles (coalesced digit counts, then each tile ranked in
 * local memory and moved); up to four tiles run every pass in one group.
 * Each multi-group pass is three kernels (digit counts per group, a
 * one-group scan that also decides on the device whether to skip the pass,
 * the scatter), and one kernel at the end moves the keys back when they
 * ended in the alternate buffer.
 *
 * A device whose loops stop after a number of iterations per work-item
 * (quirks.c's loop_iteration_cap: llvmpipe) gets plans that stay below it
 * (plan_loops bounds each kernel): shorter CHUNKED chunks and merge runs,
 * more work-items, the digit-count scan in a group of its own; a sort that
 * cannot is refused with CLGPU_UNSUPPORTED_FEATURE.
 *
 * Merge sort. Blocks of 16 keys are sorted by insertion, then runs
 * are merged in pairs, each work-item producing an equal share of the
 * output found by a merge-path search. CHUNKED: each work-item first merges
 * within its chunk (a power-of-two multiple of the block), then a few
 * passes across chunks; TILED: every pass is a kernel. The number of passes
 * is known on the host, so the first write goes to whichever buffer makes
 * the last one land in the caller's.
 *
 * Segmented sort. The merge path merges within segments (cl/sort.cl's
 * CLGPU_SEGMENTED). The radix path (CLGPU_SEGMENTED_RADIX) makes words of
 * segment number, image and position (packed form), or images and pairs
 * of segment number and position (split form), runs radix sorts of its
 * own plans over them (phase_plan) through run_radix, and gathers the
 * keys. The path and form are chosen on the host from n and S
 * (lay_out_segmented_radix); the report's algorithm is the plan's family
 * (RADIX where the radix path may run). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/sort.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "elementwise_ops.h"
#include "expression.h"
#include "lease.h"
#include "overflow.h"
#include "program_cache.h"
#include "quirks.h"
#include "sort_prepare.h"
#include "sort_search.h"
#include "status_internal.h"
#include "tuning.h"
#include "workspace_internal.h"

/* The numbers that shape a sort's plan (single-kernel sizes, digit widths,
 * keys per item, group and block sizes) are the tuning table's
 * (runtime/tuning.c), kept in the plan as `tuning`. */

enum {
  SORT_STAGED_KEYS,
  SORT_STAGED_VALUES,
  SORT_KEYS_ALTERNATE,
  SORT_VALUES_ALTERNATE,
  SORT_COUNTS,
  SORT_PASS_STATE,
  /* segmented sorts only: the radix path's */
  SORT_SEGMENT_IMAGES,
  SORT_SEGMENT_PAIRS,
};

typedef struct sort_plan {
  const clgpu__tuning *tuning; /* the device's row of the tuning table */
  int permutation;             /* clgpu_sort_permutation */
  int search;                  /* the order of a search (sort_search.h), no sort */
  clgpu_algorithm algorithm;
  clgpu_shape shape;
  size_t group;
  uint64_t n;
  /* keys */
  int builtin;
  clgpu_type key_type; /* built-in keys */
  size_t key_bytes;
  int key_kind; /* 0 unsigned, 1 signed, 2 float */
  const clgpu_sort_spec *spec;
  int descending;
  unsigned begin_bit, end_bit;
  /* values */
  size_t value_bytes;
  clgpu_type permutation_type;
  /* staging of views that cannot be sorted where they are */
  int stage_keys, stage_values;
  /* radix */
  unsigned digit_bits, passes;
  unsigned state_passes; /* passes the pass states are sized for: >= passes, and
                            those of any smaller count (sort_stream_wide_floor) */
  int single;
  int stream;      /* CHUNKED scatter through write-combined lines (sort_stream) */
  int nontemporal; /* ... whose whole lines go out in non-temporal stores
                      (sort_stream_floor) */
  int pairs;       /* ... moving 4-byte keys and 4-byte values as 8-byte pairs
                      between passes (sort_pack_pairs; cl/sort.cl place_after) */
  int indexed;     /* a sort permutation with pairs: the kernels make the
                      indices and only read the keys (CLGPU_SORT_INDEXED) */
  int keys_readable; /* a sort permutation's keys: contiguous, so that an
                        indexed sort reads them where they are */
  uint64_t groups, chunk;
  uint64_t count_groups; /* groups the digit counts are sized for (>= groups,
                            and growing with n, so _upto reports serve
                            every smaller n) */
  size_t scan_group;     /* work-items of the one-group scan of digit counts */
  unsigned count_bits;   /* CHUNKED: the digit width the counts are sized for
                            (>= digit_bits: that of the smaller counts'
                            plain scatter under sort_lines_floor) */
  int summed;            /* CHUNKED: the scatter adds up the digit counts itself
                            and no scan of them runs (sort_summed_counts) */
  /* merge */
  unsigned inner, merge_passes, first_to;
  uint64_t merge_chunk, merge_groups, per_item;
  /* segmented (clgpu_segmented_sort): merge sort within segments, or the
   * radix path (the merge fields above describe the merge path) */
  int segmented;
  uint64_t segments;      /* S: the offsets hold S + 1 values */
  int offsets_wide;       /* ulong offsets (else uint) */
  uint64_t seg_chunk;     /* block starts per work-item of clgpu_segsort_blocks */
  uint64_t depth_items;   /* work-items of clgpu_segsort_depth */
  clgpu_algorithm family; /* the report's: RADIX where the keys may take the radix path */
  int radix_asked;        /* CLGPU_ALGORITHM_RADIX: the radix path whatever the lengths */
  int radix_path;         /* this plan's path is the radix one (else merging) */
  int upto;               /* an _upto query: the report covers both paths */
  unsigned position_bits; /* of a pair: bits(n - 1) */
  unsigned id_bits;       /* of a pair: bits(S + 1) */
  size_t pair_bytes;      /* 4 or 8 */
  int packed;             /* the key's image packed into its pair: one radix sort */
  uint64_t pair_items;    /* work-items of clgpu_segradix_prepare and _gather */
  uint64_t pair_per_item; /* positions per work-item of those */
  uint64_t radix_counts;  /* digit counts of the radix path (the larger phase's) */
  uint64_t radix_states;  /* pass_state words of the radix path */
  uint64_t radix_loops;   /* loop iterations of the radix path's busiest work-item */
  /* radix: digits of the widest width (the last one narrower), not the
   * bits divided evenly (a segmented sort's second phase) */
  int widest_digit;
  clgpu_workspace_size report;
} sort_plan;

static const clgpu_sort_spec default_spec = {0, NULL, NULL, NULL, 0, 0, 0};

/* ---- small helpers ---- */

static int key_kind_of(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_INT8:
    case CLGPU_TYPE_INT16:
    case CLGPU_TYPE_INT32:
    case CLGPU_TYPE_INT64:
      return 1;
    case CLGPU_TYPE_HALF:
    case CLGPU_TYPE_FLOAT:
    case CLGPU_TYPE_DOUBLE:
      return 2;
    default:
      return 0;
  }
}

static const char *infinity_bits(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_HALF:
      return "0x7c00u";
    case CLGPU_TYPE_FLOAT:
      return "0x7f800000u";
    default:
      return "0x7ff0000000000000ul";
  }
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return clgpu__ceil_div_u64(a, b); }

/* The largest power of two the device allows up to the tuning table's
 * sort_group_cap. */
static size_t device_group(const clgpu_context *context) {
  size_t limit = clgpu__work_group_limit(context, context->tuning->sort_group_cap);
  size_t group = 1;
  while (group * 2 <= limit) group *= 2;
  return group;
}

/* Bytes of local memory the tiled radix kernels need (the single-group
 * kernel, the largest). */
static uint64_t tiled_radix_local(size_t group, unsigned bits) {
  uint64_t radix = (uint64_t)1 << bits;
  uint64_t cells = radix * group;
  /* The count table has a padding slot per 32 entries (cl/sort.cl's SLOT). */
  return (cells + cells / 32) * 4 + group * 8 + radix * 16 + 64;
}

/* ---- loop iterations per work-item ----
 *
 * Upper bounds on the loop iterations one work-item runs in each kernel of
 * cl/sort.cl, every loop of the kernel summed, an inner loop counted each
 * time it runs, and one more per loop entered (the test that ends it). They
 * matter on a device with a loop_iteration_cap (quirks.c): past the cap its
 * loops end early and the sort comes out wrong, so the plan keeps every
 * kernel below it. The bounds follow the kernels' loops; a change of a loop
 * in cl/sort.c must be made here too. */

/* rank_tile: zero the counts, read ITEMS keys, sum a row, the scan steps,
 * the row's scan. */
static uint64_t rank_tile_loops(uint64_t radix, uint64_t group, uint64_t items) {
  uint64_t steps = 0;
  while (((uint64_t)1 << steps) < group) steps++;
  return 3 * (radix + 1) + items + 1 + steps + 1;
}

/* clgpu_radix_scan: two walks over an item's share of the counts, the
 * serial scan of the partial sums by item 0, the skip test over digits. */
static uint64_t radix_scan_loops(uint64_t radix, uint64_t groups, uint64_t scan_group) {
  uint64_t per = ceil_div(radix * groups, scan_group);
  return 2 * (per + 1) + scan_group + 1 + ceil_div(radix, scan_group) + 1;
}

/* merge_part over `count` outputs, besides its `count` steps: under 64
 * outputs one merge-path search (at most 64 steps over 64-bit indices) and
 * the rounds of the branch-free loop; from 64 on four searches (one per
 * merge of the four that step together), their rounds, and each merge's
 * own finish. A pair of runs of `width` has 2 width outputs at most. */
static uint64_t merge_part_loops(uint64_t width) { return 2 * width < 64 ? 80 : 4 * 80; }

/* merge_range over `length` outputs of runs of `width`: one merge_part per
 * pair of runs it overlaps. */
static uint64_t merge_range_loops(uint64_t length, uint64_t width) {
  uint64_t parts = length / (2 * width) + 2;
  return length + parts * (merge_part_loops(width) + 1) + 1;
}

/* clgpu_merge_blocks over a chunk: each block checked for order, then
 * sorted by rank (BLOCK (BLOCK - 1) / 2 steps of the pair loop) and, where
 * ranks collide, by insertion (at most as many steps again), with at most
 * seven loops over the block on the way (the insertion path's: load, order
 * check, ranks zeroed, the pair loop's outer one, collision check, the
 * insertion's outer one, store),
 * then `inner` merge passes over the chunk, widths from the block (tuning
 * merge_block) up. */
static uint64_t merge_blocks_loops(uint64_t chunk, unsigned inner, uint64_t block) {
  uint64_t per_block = 8 * (block + 1) + block * (block + 1) + 1;
  uint64_t loops = ceil_div(chunk, block) * per_block + 1 + inner + 1;
  for (unsigned p = 0; p < inner; p++) loops += merge_range_loops(chunk, block << p);
  return loops;
}

/* The halving steps of a search among the S + 1 offsets. */
static uint64_t offsets_steps(uint64_t segments) {
  uint64_t steps = 1;
  while (steps < 64 && ((uint64_t)1 << steps) <= segments + 1) steps++;
  return steps + 1;
}

/* A segmented sort's kernels at their worst (every position a segment of
 * its own, each found by a search among the offsets): the blocks kernel's
 * chunk, a pass's outputs per item, the depth kernel's segments. */
static uint64_t segmented_loops(const sort_plan *plan) {
  uint64_t block = plan->tuning->merge_block, steps = offsets_steps(plan->segments);
  uint64_t per_block = 2 * (block + 1) + block * (block + 1) / 2 + 1 + steps;
  uint64_t blocks = (plan->seg_chunk + 1) * per_block + steps + 1;
  /* A part of 64 outputs or more spends its four searches over them: per
   * output no more than a part of one output's one search. */
  uint64_t pass = plan->per_item * (steps + merge_part_loops(1) + 2) + 1;
  uint64_t depth = ceil_div(plan->segments, plan->depth_items ? plan->depth_items : 1) * 66 + 1;
  uint64_t most = blocks > pass ? blocks : pass;
  return depth > most ? depth : most;
}

/* The most loop iterations a work-item of any kernel of the plan runs. */
static uint64_t plan_loops(const sort_plan *plan) {
  uint64_t n = plan->n, most = 0;
  if (plan->algorithm == CLGPU_ALGORITHM_RADIX) {
    uint64_t radix = (uint64_t)1 << plan->digit_bits;
    uint64_t passes = plan->passes;
    if (plan->shape == CLGPU_SHAPE_CHUNKED) {
      if (plan->single) {
        /* Per pass: zero, count, scan, scatter; then the copy back. */
        return passes * (3 * (radix + 1) + 2 * (n + 1) + 1) + 1 + n + 1;
      }
      uint64_t histogram = 2 * (radix + 1) + plan->chunk + 2;
      uint64_t scatter = radix + 1 + plan->chunk + 1;
      uint64_t finish = plan->chunk + 1;
      most = histogram > scatter ? histogram : scatter;
      if (finish > most) most = finish;
    } else {
      uint64_t group = plan->group;
      uint64_t items = plan->tuning->radix_items;
      uint64_t rank = rank_tile_loops(radix, group, items);
      uint64_t spread = ceil_div(radix, group) + 1;
      if (plan->single) {
        uint64_t tiles = ceil_div(n, group * items);
        uint64_t pass = spread + tiles * (rank + spread) + 1 + radix + 1 +
                        tiles * (rank + spread + items + 1) + 1;
        return passes * pass + 1 + ceil_div(n, group) + 1;
      }
      uint64_t finish_groups = plan->groups < 1024 ? plan->groups : 1024;
      uint64_t finish = ceil_div(n, finish_groups * group) + 1;
      /* The histogram: zero the column, the chunk's keys, the column sums;
       * the scatter: the chunk's tiles, each ranked, spread and moved. */
      uint64_t histogram = radix + 1 + ceil_div(plan->chunk, group) + 1 + spread * (group + 1);
      uint64_t tiles = ceil_div(plan->chunk, group * items);
      uint64_t scatter = spread + tiles * (rank + spread + items + 1) + 1;
      most = histogram > scatter ? histogram : scatter;
      if (finish > most) most = finish;
    }
    uint64_t scan = radix_scan_loops(radix, plan->groups, plan->scan_group);
    return scan > most ? scan : most;
  }
  if (plan->segmented) return plan->radix_path ? plan->radix_loops : segmented_loops(plan);
  most = merge_blocks_loops(plan->merge_chunk, plan->inner, plan->tuning->merge_block);
  if (plan->merge_passes > 0) {
    uint64_t pass = merge_range_loops(plan->per_item, plan->merge_chunk);
    if (pass > most) most = pass;
  }
  return most;
}

/* ---- checks ---- */

static size_t array_bytes(const clgpu_array *array) {
  return clgpu__array_count(array) * clgpu__type_size(array->type);
}

static size_t byte_offset_alignment(size_t size) {
  size_t alignment = 1;
  while (alignment < 16 && size % (alignment * 2) == 0) alignment *= 2;
  return alignment;
}

/* The spec's order, algorithm and shape, before the views. */
static clgpu_status resolve(clgpu_context *context, const clgpu_sort_spec *spec,
                            const clgpu_sort_options *options, clgpu_type key_type, const char *who,
                            sort_plan *plan) {
  plan->spec = spec;
  plan->tuning = context->tuning;
  plan->descending = spec->descending != 0;
  CLGPU__RETURN_ERROR_IF(spec->key_type && spec->key_size == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: spec->key_type \"%s\" needs spec->key_size (its sizeof in bytes)",
                         who, spec->key_type);
  CLGPU__RETURN_ERROR_IF(!spec->key_type && spec->key_size != 0, CLGPU_INVALID_ARGUMENT,
                         "%s: spec->key_size %zu without spec->key_type", who, spec->key_size);
  CLGPU__RETURN_ERROR_IF(spec->key_type && !spec->compare, CLGPU_INVALID_ARGUMENT,
                         "%s: custom keys (spec->key_type \"%s\") need spec->compare", who,
                         spec->key_type);
  if (spec->compare) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_user_text(spec->compare, CLGPU__TEXT_EXPRESSION, who, "spec->compare"));
  }
  if (spec->key_type) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_user_text(spec->key_type, CLGPU__TEXT_TYPE_NAME, who, "spec->key_type"));
  }
  if (spec->declarations) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_user_text(spec->declarations, CLGPU__TEXT_DECLARATIONS,
                                                   who, "spec->declarations"));
  }
  plan->builtin = spec->key_type == NULL;
  if (plan->builtin) {
    CLGPU__RETURN_ERROR_IF(clgpu__type_size(key_type) == 0, CLGPU_INVALID_ARGUMENT,
                           "%s: unknown key type %d", who, (int)key_type);
    CLGPU__RETURN_ERROR_IF(key_type == CLGPU_TYPE_OPAQUE, CLGPU_TYPE_MISMATCH,
                           "%s: the keys are opaque bytes (CLGPU_TYPE_OPAQUE), which have no "
                           "natural order; give spec->key_type, key_size and compare",
                           who);
    plan->key_type = key_type;
    plan->key_bytes = clgpu__type_size(key_type);
    plan->key_kind = key_kind_of(key_type);
  } else {
    plan->key_bytes = spec->key_size;
  }
  clgpu_algorithm requested = options ? options->algorithm : CLGPU_ALGORITHM_AUTO;
  CLGPU__RETURN_ERROR_IF(requested != CLGPU_ALGORITHM_AUTO && requested != CLGPU_ALGORITHM_RADIX &&
                             requested != CLGPU_ALGORITHM_MERGE,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: unknown sort algorithm %d (AUTO, RADIX or MERGE)", who,
                         (int)requested);
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
  }
  clgpu_shape shape = options ? options->shape : CLGPU_SHAPE_AUTO;
  CLGPU__RETURN_ERROR_IF(
      shape != CLGPU_SHAPE_AUTO && shape != CLGPU_SHAPE_CHUNKED && shape != CLGPU_SHAPE_TILED,
      CLGPU_INVALID_ARGUMENT, "%s: unknown kernel shape %d (AUTO, CHUNKED or TILED)", who,
      (int)shape);
  if (requested == CLGPU_ALGORITHM_AUTO) {
    requested = plan->builtin && !spec->compare ? CLGPU_ALGORITHM_RADIX : CLGPU_ALGORITHM_MERGE;
  }
  CLGPU__RETURN_ERROR_IF(requested == CLGPU_ALGORITHM_RADIX && spec->compare,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: radix sort takes no comparator (spec->compare); use "
                         "CLGPU_ALGORITHM_MERGE or AUTO",
                         who);
  if (shape == CLGPU_SHAPE_AUTO) {
    shape = (context->info.type & CL_DEVICE_TYPE_CPU) ? CLGPU_SHAPE_CHUNKED : CLGPU_SHAPE_TILED;
  }
  plan->algorithm = requested;
  plan->shape = shape;
  unsigned key_bits = (unsigned)(plan->key_bytes * 8);
  if (spec->begin_bit == 0 && spec->end_bit == 0) {
    plan->begin_bit = 0;
    plan->end_bit = key_bits;
  } else {
    CLGPU__RETURN_ERROR_IF(requested != CLGPU_ALGORITHM_RADIX, CLGPU_INVALID_ARGUMENT,
                           "%s: a bit range (spec->begin_bit, end_bit) is for radix sort only",
                           who);
    CLGPU__RETURN_ERROR_IF(spec->begin_bit >= spec->end_bit || spec->end_bit > key_bits,
                           CLGPU_INVALID_ARGUMENT,
                           "%s: the bit range [%u, %u) is empty or reaches past the key's %u bits",
                           who, spec->begin_bit, spec->end_bit, key_bits);
    plan->begin_bit = spec->begin_bit;
    plan->end_bit = spec->end_bit;
  }
  if (spec->compare && plan->builtin) {
    CLGPU__RETURN_ERROR_IF(key_type == CLGPU_TYPE_DOUBLE && !context->info.has_fp64,
                           CLGPU_UNSUPPORTED_FEATURE,
                           "%s: a comparator over double keys needs cl_khr_fp64, which %s does "
                           "not report",
                           who, context->info.name);
    CLGPU__RETURN_ERROR_IF(key_type == CLGPU_TYPE_HALF && !context->info.has_fp16,
                           CLGPU_UNSUPPORTED_FEATURE,
                           "%s: a comparator over half keys needs cl_khr_fp16, which %s does not "
                           "report (sort half keys in their natural order, which needs nothing)",
                           who, context->info.name);
  }
  plan->group = plan->shape == CLGPU_SHAPE_TILED ? device_group(context) : 1;
  return CLGPU_SUCCESS;
}

/* Local memory per digit value of the CHUNKED scatter through
 * write-combined lines: a line of keys and one of their values beside the
 * two ulong counters (offset, pending) of cl/sort.cl's
 * scatter_range_streaming, whose LINE_BYTES is 64. */
static uint64_t stream_digit_bytes(const sort_plan *plan) {
  const uint64_t line_bytes = 64;
  return 2 * sizeof(cl_ulong) + line_bytes + line_bytes / plan->key_bytes * plan->value_bytes;
}

/* A radix plan's digit width, passes, chunks and groups, from n, the bit
 * range and the resolved shape. */
static void lay_out_radix(const clgpu_context *context, sort_plan *plan) {
  uint64_t n = plan->n;
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  unsigned bits = plan->end_bit - plan->begin_bit;
  uint64_t cap = context->quirks.loop_iteration_cap;
  const clgpu__tuning *tuning = context->tuning;
  unsigned widest =
      plan->value_bytes ? tuning->sort_chunked_digit_max_values : tuning->sort_chunked_digit_max;
  if (plan->shape == CLGPU_SHAPE_TILED) {
    cl_ulong local = context->info.local_mem_size ? context->info.local_mem_size : 32768;
    while (plan->group > 32 && tiled_radix_local(plan->group, 4) > local) plan->group /= 2;
    widest = tuning->tiled_digit_max;
    while (widest > 4 && tiled_radix_local(plan->group, widest) > local) widest--;
  }
  plan->scan_group = plan->group;
  plan->passes = (bits + widest - 1) / widest;
  plan->digit_bits = plan->widest_digit ? widest : (bits + plan->passes - 1) / plan->passes;
  plan->state_passes = plan->passes;
  if (plan->shape == CLGPU_SHAPE_CHUNKED) {
    plan->single =
        n <= (plan->value_bytes ? tuning->sort_single_chunk_values : tuning->sort_single_chunk);
    if (plan->single && cap && plan_loops(plan) > cap) plan->single = 0;
    /* Lines where the tuning row asks for them, from sort_lines_floor
     * bytes of keys and values on: below, the plain scatter with the
     * wide digits was faster while the places stay in the cache. Its
     * counts are then sized for those digits (count_bits), so that the
     * report of a count with lines serves the smaller counts without. */
    int lines = tuning->sort_stream &&
                (!tuning->sort_lines_floor ||
                 n >= ceil_div(tuning->sort_lines_floor, plan->key_bytes + plan->value_bytes));
    unsigned plain_bits = widest < bits ? widest : bits;
    /* The per-pass scatter through write-combined lines (below) takes
     * narrower digits where the tuning row says so: their lines then stay
     * in the core's first cache. From sort_stream_wide_floor bytes on it
     * keeps the wide ones where their lines fit in local memory (a pass
     * fewer); the pass states are then sized for the narrow digits'
     * passes, which a smaller count takes, so that a report of this count
     * serves every smaller one (the _upto queries). The one kernel keeps
     * the plain scatter and its width. */
    if (!plan->single && lines && widest > tuning->sort_stream_digit_max) {
      unsigned narrow = tuning->sort_stream_digit_max;
      unsigned narrow_passes = (bits + narrow - 1) / narrow;
      int wide =
          tuning->sort_stream_wide_floor &&
          n >= ceil_div(tuning->sort_stream_wide_floor, plan->key_bytes + plan->value_bytes) &&
          ((uint64_t)1 << widest) * stream_digit_bytes(plan) <= context->info.local_mem_size;
      if (!wide) {
        widest = narrow;
        plan->passes = narrow_passes;
        plan->digit_bits = plan->widest_digit ? widest : (bits + plan->passes - 1) / plan->passes;
      }
      plan->state_passes = narrow_passes;
    }
    uint64_t pieces = ceil_div(n, tuning->sort_chunk_minimum);
    if (pieces > 4 * units) pieces = 4 * units;
    if (pieces < ceil_div(n, (uint64_t)1 << 31)) pieces = ceil_div(n, (uint64_t)1 << 31);
    /* A loop cap bounds the keys one work-item walks (the histogram
     * kernel's loops, the longest: two over the digits, one over its
     * chunk), and the digit counts' scan gets a group of its own. */
    uint64_t radix = (uint64_t)1 << plan->digit_bits;
    if (cap && cap > 2 * radix + 1024 && pieces < ceil_div(n, cap - 2 * radix - 4)) {
      pieces = ceil_div(n, cap - 2 * radix - 4);
    }
    if (cap) plan->scan_group = device_group(context);
    if (pieces < 1) pieces = 1;
    plan->chunk = ceil_div(n, pieces);
    if (plan->chunk == 0) plan->chunk = 1;
    plan->groups = ceil_div(n, plan->chunk);
    /* The scatter sums the digit counts itself while they are few: no
     * scan kernel per pass. Not under a loop cap, whose bounds (plan_loops)
     * count the scan kernel's loops, not these. */
    plan->summed = !plan->single && !cap && radix * plan->groups <= tuning->sort_summed_counts;
    /* Write-combined lines where the tuning row asks for them and local
     * memory holds them (stream_digit_bytes per digit): at every size,
     * since a scatter key by key to 2^k digits whose runs start n / 2^k
     * keys apart puts every run in the same few sets of the core's cache
     * where that distance is a multiple of 4 KiB (n a large power of
     * two). The lines go out in non-temporal stores only from
     * sort_stream_floor: below it the places stay in the cache between
     * passes. */
    plan->stream =
        lines && !plan->single && radix * stream_digit_bytes(plan) <= context->info.local_mem_size;
    plan->count_bits = plan->digit_bits;
    if (tuning->sort_lines_floor && plan->digit_bits < plain_bits) plan->count_bits = plain_bits;
    plan->nontemporal = plan->stream && n >= ceil_div(tuning->sort_stream_floor,
                                                      plan->key_bytes + plan->value_bytes);
  } else {
    /* A group walks a chunk of whole tiles (as many groups as the
     * ranges of cl/reduce.cl get), so that the digit counts are few and
     * their scan short; under a loop cap, chunks of fewer tiles. */
    uint64_t tile = (uint64_t)plan->group * tuning->radix_items;
    plan->single = n <= tuning->sort_single_tiles * tile;
    uint64_t tiles = ceil_div(n, tile);
    uint64_t most = (uint64_t)tuning->tiled_chunks_per_unit * units;
    if (most > tuning->tiled_chunks_cap) most = tuning->tiled_chunks_cap;
    if (most < 1) most = 1;
    uint64_t per = ceil_div(tiles, most);
    if (per < 1) per = 1;
    if (cap) {
      /* The most tiles per chunk under the cap, whatever n: the
       * scatter's loops (per tile: rank, spread, move) and the
       * histogram's (a key per GROUP of the chunk). */
      uint64_t radix = (uint64_t)1 << plan->digit_bits;
      uint64_t group = plan->group, items = tuning->radix_items;
      uint64_t spread = ceil_div(radix, group) + 1;
      uint64_t per_tile = rank_tile_loops(radix, group, items) + spread + items + 1;
      uint64_t fixed = radix + 3 + spread * (group + 1);
      uint64_t fit = cap > spread + 1 ? (cap - spread - 1) / per_tile : 0;
      uint64_t fit_histogram = cap > fixed ? (cap - fixed) / items : 0;
      if (fit > fit_histogram) fit = fit_histogram;
      if (fit < 1) fit = 1;
      if (per > fit) per = fit;
    }
    plan->chunk = per * tile;
    plan->groups = ceil_div(n, plan->chunk);
    plan->count_groups = tiles < most ? tiles : most;
  }
  if (plan->groups < 1) plan->groups = 1;
  if (plan->count_groups < plan->groups) plan->count_groups = plan->groups;
}

/* The digit width a radix plan's counts are sized for (count_bits). */
static unsigned counted_bits(const sort_plan *plan) {
  return plan->count_bits > plan->digit_bits ? plan->count_bits : plan->digit_bits;
}

/* The bits that hold x (0 for 0). */
static unsigned bits_of(uint64_t x) {
  unsigned bits = 0;
  while (bits < 64 && (x >> bits) != 0) bits++;
  return bits;
}

/* One radix phase of a segmented sort's radix path, laid out as a radix
 * sort of its own: phase 1 sorts the keys' ordered images (unsigned
 * integers of the key's width, every bit) carrying the pairs as values;
 * phase 2 sorts the pairs by their id bits, in digits of the widest width
 * (one program whatever the number of segments). A packed plan has phase 2
 * only, over the image's bits and the id's. */
static void phase_plan(const clgpu_context *context, const sort_plan *plan, int phase,
                       sort_plan *out) {
  memset(out, 0, sizeof *out);
  out->tuning = plan->tuning;
  out->algorithm = CLGPU_ALGORITHM_RADIX;
  out->shape = plan->shape;
  out->group = plan->group;
  out->n = plan->n;
  out->builtin = 1;
  out->spec = &default_spec;
  if (phase == 1) {
    out->key_bytes = plan->key_bytes;
    out->value_bytes = plan->pair_bytes;
    out->end_bit = (unsigned)(8 * plan->key_bytes);
  } else {
    out->key_bytes = plan->pair_bytes;
    out->begin_bit = plan->position_bits;
    out->end_bit =
        plan->position_bits + plan->id_bits + (plan->packed ? (unsigned)(8 * plan->key_bytes) : 0);
    out->widest_digit = 1;
  }
  out->key_type = clgpu__unsigned_type_of(out->key_bytes);
  lay_out_radix(context, out);
}

/* The loop iterations of a search among the offsets (64-bit halving) and
 * of one position of clgpu_segradix_prepare, which may search again. */
#define SEGRADIX_SEARCH_LOOPS 66

/* The radix path of a segmented sort, where the plan's family allows it:
 * whether this plan takes it (CLGPU_ALGORITHM_RADIX where the pairs fit in
 * 64 bits, or AUTO where the packed form fits and the segments hold
 * tuning segmented_radix_mean keys or more on average), its form and the pairs'
 * width, the work of the prepare and gather
 * kernels, and what the path needs: digit counts, pass states, loop
 * iterations. Packed where image, id and position fit in 64 bits (keys of
 * up to 4 bytes): one radix sort of those words, keys alone, which on
 * POCL costs less than sorting the images with pairs as values; split
 * otherwise. An _upto plan lays the path out whenever the family allows
 * it, in the split form with 8-byte pairs, which needs at least what the
 * packed form and narrower pairs do, for a report that covers both paths
 * and forms. */
static clgpu_status lay_out_segmented_radix(const clgpu_context *context, sort_plan *plan,
                                            const char *who) {
  uint64_t n = plan->n;
  plan->radix_path = 0;
  plan->pair_bytes = 0;
  if (plan->family != CLGPU_ALGORITHM_RADIX || n < 2) return CLGPU_SUCCESS;
  plan->position_bits = bits_of(n - 1);
  plan->id_bits = bits_of(plan->segments + 1);
  unsigned image_bits = (unsigned)(8 * plan->key_bytes);
  int fits = plan->position_bits + plan->id_bits <= 64;
  int packs = plan->position_bits + plan->id_bits + image_bits <= 64;
  int chosen = plan->radix_asked || (packs && plan->segments > 0 &&
                                     n / plan->segments >= plan->tuning->segmented_radix_mean);
  if (!chosen && !plan->upto) return CLGPU_SUCCESS;
  CLGPU__RETURN_ERROR_IF(
      plan->radix_asked && !fits && !plan->upto, CLGPU_SIZE_OVERFLOW,
      "%s: the radix path keeps a key's position and segment in one 64-bit word, and %llu keys "
      "(%u bits) in %llu segments (%u bits) do not fit; use CLGPU_ALGORITHM_MERGE or AUTO",
      who, (unsigned long long)n, plan->position_bits, (unsigned long long)plan->segments,
      plan->id_bits);
  if (!fits) {
    if (!plan->upto) return CLGPU_SUCCESS;
    plan->id_bits = 64 - plan->position_bits; /* the widest any call of the range can use */
  }
  plan->packed = !plan->upto && packs;
  plan->pair_bytes =
      !plan->packed && !plan->upto && plan->position_bits + plan->id_bits <= 32 ? 4 : 8;
  sort_plan phases[2];
  phase_plan(context, plan, 1, &phases[0]);
  phase_plan(context, plan, 2, &phases[1]);
  plan->radix_counts = 0;
  plan->radix_states = 0;
  plan->radix_loops = 0;
  for (int p = plan->packed ? 1 : 0; p < 2; p++) {
    const sort_plan *phase = &phases[p];
    uint64_t loops = plan_loops(phase);
    if (loops > plan->radix_loops) plan->radix_loops = loops;
    if (phase->single) continue;
    uint64_t counts = 0;
    CLGPU__RETURN_ERROR_IF(
        !clgpu__mul_u64((uint64_t)1 << counted_bits(phase), phase->count_groups, &counts),
        CLGPU_SIZE_OVERFLOW, "%s: the digit counts of %llu groups do not fit in 64 bits", who,
        (unsigned long long)phase->count_groups);
    if (counts > plan->radix_counts) plan->radix_counts = counts;
    plan->radix_states =
        (plan->packed ? 0 : (uint64_t)phases[0].state_passes) + phases[1].state_passes + 1;
  }
  /* The prepare and gather kernels: CHUNKED, a range of positions per
   * work-item, as many as a radix pass's chunks; TILED, groups striding
   * over the positions, as many as a radix pass's. Under a loop cap, more
   * work-items. */
  const clgpu__tuning *tuning = context->tuning;
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  uint64_t cap = context->quirks.loop_iteration_cap;
  uint64_t group = plan->group, items = 0;
  if (plan->shape == CLGPU_SHAPE_CHUNKED) {
    items = ceil_div(n, tuning->sort_chunk_minimum);
    if (items > 4 * units) items = 4 * units;
  } else {
    uint64_t most = (uint64_t)tuning->tiled_chunks_per_unit * units;
    if (most > tuning->tiled_chunks_cap) most = tuning->tiled_chunks_cap;
    uint64_t groups = ceil_div(n, group);
    items = (groups < most ? groups : most) * group;
  }
  if (items < group) items = group;
  uint64_t per = ceil_div(n, items);
  while (cap && per > 1 && SEGRADIX_SEARCH_LOOPS + per * (SEGRADIX_SEARCH_LOOPS + 1) + 1 > cap) {
    items *= 2;
    per = ceil_div(n, items);
  }
  plan->pair_items = items;
  plan->pair_per_item = per;
  uint64_t prepare = SEGRADIX_SEARCH_LOOPS + per * (SEGRADIX_SEARCH_LOOPS + 1) + 1;
  if (prepare > plan->radix_loops) plan->radix_loops = prepare;
  /* AUTO merges rather than take a path past the loop cap. */
  if (!plan->radix_asked && cap && plan->radix_loops > cap) chosen = 0;
  plan->radix_path = fits && (plan->upto ? plan->radix_asked : chosen);
  return CLGPU_SUCCESS;
}

/* Digit widths, passes, ranges and the report, from n and the resolved
 * choices. CLGPU_SIZE_OVERFLOW when a count, a merge width or a byte count
 * of the plan does not fit in 64 bits. */
static clgpu_status lay_out(const clgpu_context *context, sort_plan *plan, const char *who) {
  uint64_t n = plan->n;
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  uint64_t cap = context->quirks.loop_iteration_cap;
  if (plan->algorithm == CLGPU_ALGORITHM_RADIX) {
    lay_out_radix(context, plan);
    /* Pairs of 4-byte keys with 4-byte values from sort_pack_pairs bytes
     * of keys and values on (never in a segmented sort's phases, whose
     * places are laid out apart). Their two places hold n pairs each
     * where keys and values alternate in n keys and n values: the report
     * of a larger count still covers every smaller one. 8-byte keys with
     * 8-byte values as 16-byte pairs were slower on POCL (4M uint64 keys
     * and values 1.13 of the time, 1M 1.19; 2026-12-06), so they keep
     * the split places. */
    uint64_t pack_floor = context->tuning->sort_pack_pairs;
    plan->pairs = plan->stream && !plan->segmented && plan->builtin && n > 1 &&
                  plan->key_bytes == 4 && plan->value_bytes == 4 && pack_floor &&
                  n >= ceil_div(pack_floor, 8);
    /* A sort permutation with pairs makes its indices in the pass that
     * first moves the keys and reads contiguous keys where they are: no
     * iota, no copy of the keys (cl/sort.cl KEYS_OUT). An _upto report
     * keeps the staged keys, which the smaller counts' split form needs. */
    plan->indexed = plan->pairs && plan->permutation;
    if (plan->indexed && plan->keys_readable) plan->stage_keys = 0;
  } else {
    uint64_t pieces = 1;
    uint64_t block = context->tuning->merge_block;
    if (plan->shape == CLGPU_SHAPE_CHUNKED) {
      pieces = n > context->tuning->sort_chunk_minimum ? 4 * units : 1;
      uint64_t target = ceil_div(n, pieces);
      plan->inner = 0;
      plan->merge_chunk = block;
      while (plan->merge_chunk < target) {
        /* target <= ceil(n / 4) here, so doubling stays far below 2^64. */
        plan->merge_chunk *= 2;
        plan->inner++;
      }
      plan->per_item = ceil_div(n, pieces);
      /* A loop cap: chunks no longer than the blocks kernel can sort and
       * merge below it, and no more outputs per item of a merge pass than
       * it allows; more passes and work-items do the rest. */
      while (cap && plan->inner > 0 &&
             merge_blocks_loops(plan->merge_chunk, plan->inner, block) > cap) {
        plan->merge_chunk /= 2;
        plan->inner--;
      }
      while (cap && plan->per_item > block &&
             merge_range_loops(plan->per_item, plan->merge_chunk) > cap) {
        plan->per_item = ceil_div(plan->per_item, 2);
      }
    } else {
      plan->inner = 0;
      plan->merge_chunk = block;
      plan->per_item = block;
    }
    if (plan->segmented) {
      /* Blocks from each segment's start, sorted by the work-item whose
       * range holds their start; then passes over every output, as many
       * as n keys could need (those the longest segment does not need
       * return at once). */
      plan->inner = 0;
      plan->merge_chunk = block;
      plan->seg_chunk = plan->shape == CLGPU_SHAPE_CHUNKED ? plan->per_item : 4 * block;
      if (plan->shape == CLGPU_SHAPE_TILED) plan->per_item = 4 * block;
      uint64_t most_items = plan->shape == CLGPU_SHAPE_CHUNKED ? 4 * units : 65536;
      plan->depth_items = plan->segments < most_items ? plan->segments : most_items;
      if (plan->depth_items == 0) plan->depth_items = 1;
      while (cap && plan->seg_chunk > 1 && segmented_loops(plan) > cap) {
        plan->seg_chunk = ceil_div(plan->seg_chunk, 2);
        if (plan->per_item > 1) plan->per_item = ceil_div(plan->per_item, 2);
        if (plan->depth_items < plan->segments) plan->depth_items *= 2;
      }
    }
    if (plan->per_item == 0) plan->per_item = 1;
    plan->merge_groups = ceil_div(n, plan->merge_chunk);
    /* Runs of `width` keys double each pass until one run holds all n; the
     * kernels compute 2 * width, so a width whose double does not fit (n
     * above 2^63) cannot be sorted. */
    plan->merge_passes = 0;
    for (uint64_t width = plan->merge_chunk; width < n; plan->merge_passes++) {
      CLGPU__RETURN_ERROR_IF(!clgpu__mul_u64(width, 2, &width), CLGPU_SIZE_OVERFLOW,
                             "%s: merge sort of %llu keys needs runs of more than 2^63 keys, "
                             "whose offsets do not fit in 64 bits",
                             who, (unsigned long long)n);
    }
    unsigned writes = 1 + plan->inner + plan->merge_passes;
    plan->first_to = writes % 2 == 0 ? 1 : 0;
  }
  if (plan->segmented) CLGPU__FORWARD_IF_ERROR(lay_out_segmented_radix(context, plan, who));
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(
      report, plan->segmented ? CLGPU_OPERATION_SEGMENTED_SORT : CLGPU_OPERATION_SORT, plan->shape,
      plan->segmented ? plan->family : plan->algorithm, -1);
  clgpu_type key_type = plan->builtin ? plan->key_type : CLGPU_TYPE_UINT8;
  uint64_t key_count = n, value_count = 0, counts = 0;
  CLGPU__RETURN_ERROR_IF(!plan->builtin && !clgpu__mul_u64(n, plan->key_bytes, &key_count),
                         CLGPU_SIZE_OVERFLOW,
                         "%s: %llu keys of %zu bytes (spec->key_size) are more bytes than 64 "
                         "bits can count",
                         who, (unsigned long long)n, plan->key_bytes);
  CLGPU__RETURN_ERROR_IF(!clgpu__mul_u64(n, plan->value_bytes, &value_count), CLGPU_SIZE_OVERFLOW,
                         "%s: %llu keys with %zu bytes of values each are more bytes than 64 "
                         "bits can count",
                         who, (unsigned long long)n, plan->value_bytes);
  int moves = n > 1;
  int multi = moves && plan->algorithm == CLGPU_ALGORITHM_RADIX && !plan->single;
  CLGPU__RETURN_ERROR_IF(
      multi && !clgpu__mul_u64((uint64_t)1 << counted_bits(plan), plan->count_groups, &counts),
      CLGPU_SIZE_OVERFLOW, "%s: the digit counts of %llu groups do not fit in 64 bits", who,
      (unsigned long long)plan->count_groups);
  clgpu__report_buffer(report, part, "staged_keys", key_type, plan->stage_keys ? key_count : 0);
  clgpu__report_buffer(report, part, "staged_values", CLGPU_TYPE_UINT8,
                       plan->stage_values ? value_count : 0);
  /* Pairs (plan->pairs) take n pairs of key_bytes + value_bytes in each
   * place: twice the keys, in the keys' type, and the pairs' bytes; the
   * same types as ever, so that reports of several counts compare. */
  uint64_t keys_alternate = moves ? key_count : 0, values_alternate = moves ? value_count : 0;
  if (plan->pairs) {
    CLGPU__RETURN_ERROR_IF(
        !clgpu__mul_u64(n, 2, &keys_alternate) ||
            !clgpu__mul_u64(n, plan->key_bytes + plan->value_bytes, &values_alternate),
        CLGPU_SIZE_OVERFLOW,
        "%s: %llu keys with their values as pairs are more bytes than 64 "
        "bits can count",
        who, (unsigned long long)n);
  }
  clgpu__report_buffer(report, part, "keys_alternate", key_type, keys_alternate);
  clgpu__report_buffer(report, part, "values_alternate", CLGPU_TYPE_UINT8, values_alternate);
  /* A segmented sort's radix path (laid out: pair_bytes set) needs its
   * phases' counts and states, the images' other place and the pairs;
   * the merge path one pass_state word, which every segmented report that
   * moves keys holds, so that a report of the radix path serves the merge
   * path of as many keys too. An _upto report covers both paths. */
  int radix_sized = plan->segmented && plan->pair_bytes != 0;
  if (radix_sized) counts = plan->radix_counts;
  uint64_t states = multi ? plan->state_passes + 1 : plan->segmented && moves ? 1 : 0;
  if (radix_sized && plan->radix_states > states) states = plan->radix_states;
  clgpu__report_buffer(report, part, "counts", CLGPU_TYPE_UINT64, counts);
  clgpu__report_buffer(report, part, "pass_state", CLGPU_TYPE_UINT32, states);
  if (plan->segmented) {
    uint64_t pairs = 0;
    CLGPU__RETURN_ERROR_IF(radix_sized && !clgpu__mul_u64(n, 2, &pairs), CLGPU_SIZE_OVERFLOW,
                           "%s: the pairs of %llu keys (two places of n) do not fit in 64 bits",
                           who, (unsigned long long)n);
    clgpu__report_buffer(
        report, part, "segment_images",
        plan->builtin ? clgpu__unsigned_type_of(plan->key_bytes) : CLGPU_TYPE_UINT8,
        radix_sized && !plan->packed ? n : 0);
    clgpu__report_buffer(report, part, "segment_pairs",
                         plan->pair_bytes == 8 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32, pairs);
  }
  /* Sizes first: a count 64 bits cannot hold is CLGPU_SIZE_OVERFLOW on
   * every device; then the device's loop cap. */
  CLGPU__FORWARD_IF_ERROR(clgpu__report_finish(report, context, who));
  CLGPU__RETURN_ERROR_IF(
      cap && n > 1 && plan_loops(plan) > cap, CLGPU_UNSUPPORTED_FEATURE,
      "%s: sorting %llu keys (%s, %s) needs a work-item to run %llu loop "
      "iterations, and %s leaves a work-item's loops after %llu (the "
      "quirks table's loop_iteration_cap), which would give wrong keys",
      who, (unsigned long long)n,
      plan->algorithm == CLGPU_ALGORITHM_RADIX || plan->radix_path ? "radix" : "merge",
      plan->shape == CLGPU_SHAPE_TILED ? "tiled" : "chunked", (unsigned long long)plan_loops(plan),
      context->info.name, (unsigned long long)cap);
  return CLGPU_SUCCESS;
}

/* How many keys a 1-D view holds in the plan's key type, and whether it
 * must be staged to be read as contiguous keys: built-in keys of any
 * stride (staged when not contiguous); custom keys only contiguous, aligned,
 * whole keys of spec->key_size bytes. */
static clgpu_status key_count(const sort_plan *plan, const clgpu_array *keys, const char *who,
                              const char *name, uint64_t *n, int *stage) {
  if (plan->builtin) {
    *n = keys->shape[0];
    *stage = !clgpu__array_is_contiguous(keys);
    return CLGPU_SUCCESS;
  }
  CLGPU__RETURN_ERROR_IF(!clgpu__array_is_contiguous(keys), CLGPU_SHAPE_MISMATCH,
                         "%s: custom %s (%s) must be a contiguous view", who, name,
                         plan->spec->key_type);
  size_t bytes = array_bytes(keys);
  CLGPU__RETURN_ERROR_IF(bytes % plan->key_bytes != 0, CLGPU_SHAPE_MISMATCH,
                         "%s: the %s hold %zu bytes, not a multiple of key_size %zu", who, name,
                         bytes, plan->key_bytes);
  size_t alignment = byte_offset_alignment(plan->key_bytes);
  clgpu_location location;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_location(keys, &location));
  CLGPU__RETURN_ERROR_IF(location.offset % alignment != 0, CLGPU_MISALIGNED_VIEW,
                         "%s: custom %s of %zu bytes must start at a multiple of %zu bytes "
                         "in their buffer, not at byte %zu",
                         who, name, plan->key_bytes, alignment, location.offset);
  *n = bytes / plan->key_bytes;
  *stage = 0;
  return CLGPU_SUCCESS;
}

/* Keys: a 1-D view of a built-in type or of custom keys. */
static clgpu_status check_keys(clgpu_context *context, const clgpu_array *keys, int written,
                               const char *who, sort_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(key_count(plan, keys, who, "keys", &plan->n, &plan->stage_keys));
  if (written) CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(keys, who, "keys"));
  return clgpu__check_buffer(context, keys->buffer, who, "keys", written);
}

static clgpu_status check_values(clgpu_context *context, const clgpu_array *keys,
                                 const clgpu_array *values, const char *who, sort_plan *plan) {
  uint64_t n = plan->n;
  if (clgpu__array_is_contiguous(values)) {
    size_t bytes = array_bytes(values);
    size_t per = n > 0 ? bytes / n : 0;
    CLGPU__RETURN_ERROR_IF(
        n > 0 ? (bytes % n != 0 || (per != 1 && per != 2 && per != 4 && per != 8 && per != 16))
              : bytes != 0,
        CLGPU_SHAPE_MISMATCH,
        "%s: the values hold %zu bytes for %llu keys (1, 2, 4, 8 or 16 bytes per key)", who, bytes,
        (unsigned long long)n);
    plan->value_bytes = per;
    clgpu_location location;
    CLGPU__FORWARD_IF_ERROR(clgpu__array_location(values, &location));
    size_t alignment = per < 4 ? per : 4;
    plan->stage_values = per > 0 && location.offset % alignment != 0;
  } else {
    CLGPU__RETURN_ERROR_IF(clgpu__array_count(values) != n, CLGPU_SHAPE_MISMATCH,
                           "%s: a strided values view needs one element per key: %zu elements "
                           "for %llu keys",
                           who, clgpu__array_count(values), (unsigned long long)n);
    plan->value_bytes = clgpu__type_size(values->type);
    plan->stage_values = 1;
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(values, who, "values"));
  CLGPU__RETURN_ERROR_IF(clgpu__may_alias(keys, values), CLGPU_INVALID_OUTPUT,
                         "%s: the keys and the values may overlap", who);
  return clgpu__check_buffer(context, values->buffer, who, "values", 1);
}

/* ---- programs and kernels ---- */

/* The sort program for these defines: cl/common.cl and cl/sort.cl, with a
 * custom key's declarations between them (after the fp64 pragma they may
 * need, before the kernels that use them). */
static clgpu_status sort_source_program(clgpu_context *context, const clgpu_sort_spec *spec,
                                        const clgpu_define *defines, size_t count,
                                        clgpu_program **out) {
  if (!spec->declarations) {
    return clgpu__program_get_named(context, "sort", defines, count, NULL, out);
  }
  const clgpu__source_part parts[] = {
      {"common", NULL, NULL}, {NULL, spec->declarations, "declarations"}, {"sort", NULL, NULL}};
  return clgpu__program_get_parts(context, parts, sizeof parts / sizeof parts[0], defines, count,
                                  NULL, out);
}

/* sizeof(spec->key_type) on the device, measured by cl/sort.cl's probe
 * kernel built with the same declarations. It runs on a queue of its own
 * and is waited for, so that nothing the caller enqueued (an event the
 * sort would have waited for) can hold it up, and nothing lands on the
 * context's queue. Used on an error path only. */
static clgpu_status device_key_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                    cl_ulong *size) {
  clgpu_define defines[4];
  size_t count = 0;
  defines[count++] = (clgpu_define){"CLGPU_KEY_T", spec->key_type};
  defines[count++] = (clgpu_define){"CLGPU_KEY_SIZE_PROBE", NULL};
  if (context->info.has_fp64) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
  if (context->info.has_fp16) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP16", NULL};
  clgpu_program *program = NULL;
  CLGPU__FORWARD_IF_ERROR(sort_source_program(context, spec, defines, count, &program));
  cl_kernel kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__kernel_acquire(program, "clgpu_key_size_probe", &kernel));
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(context->cl_context, context->device, 0, &err);
  cl_mem buffer = NULL;
  if (err == CL_SUCCESS) {
    buffer = clCreateBuffer(context->cl_context, CL_MEM_WRITE_ONLY, sizeof *size, NULL, &err);
  }
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  size_t one = 1;
  if (err == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS) {
    err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof *size, size, 0, NULL, NULL);
  }
  clgpu__kernel_clear_buffers(kernel, CLGPU__BUFFER_ARG(0));
  clgpu__kernel_release(program, kernel);
  if (buffer) clReleaseMemObject(buffer);
  if (queue) clReleaseCommandQueue(queue);
  return err == CL_SUCCESS ? CLGPU_SUCCESS : clgpu__fail_cl(err, "measuring sizeof(key_type)");
}

/* The program of custom keys failed to build. cl/sort.cl refuses to build
 * when sizeof(key_type) is not spec->key_size, so measure the device's size:
 * when it differs, that is the caller's error and the message gives both
 * sizes; otherwise the build failure (its log) stands as it was. */
static clgpu_status explain_custom_build_failure(clgpu_context *context, const sort_plan *plan,
                                                 clgpu_status failure, const char *who) {
  char *log = malloc(strlen(clgpu__last_error()) + 1);
  if (!log) return failure;
  strcpy(log, clgpu__last_error());
  cl_ulong device_size = 0;
  clgpu_status status = device_key_size(context, plan->spec, &device_size);
  if (status == CLGPU_SUCCESS && device_size != plan->key_bytes) {
    status =
        clgpu__fail(CLGPU_INVALID_ARGUMENT,
                    "%s: spec->key_size is %zu but sizeof(%s) on this device is %llu "
                    "(spec->key_size must be the device's sizeof of spec->key_type; a "
                    "3-element vector such as float3 takes the space of 4 on the device)",
                    who, plan->key_bytes, plan->spec->key_type, (unsigned long long)device_size);
  } else {
    status = clgpu__fail(failure, "%s", log);
  }
  free(log);
  return status;
}

static clgpu_status sort_program(clgpu_context *context, const sort_plan *plan, const char *who,
                                 clgpu_program **out) {
  char group[24], items[24], value_bytes[24], kind[8], digit[8], block[24], key_size[24];
  char scan_group[24];
  snprintf(group, sizeof group, "%zu", plan->group);
  snprintf(items, sizeof items, "%u", context->tuning->radix_items);
  snprintf(scan_group, sizeof scan_group, "%zu", plan->scan_group);
  snprintf(value_bytes, sizeof value_bytes, "%zu", plan->value_bytes);
  snprintf(kind, sizeof kind, "%d", plan->key_kind);
  snprintf(digit, sizeof digit, "%u", plan->digit_bits);
  snprintf(block, sizeof block, "%u", context->tuning->merge_block);
  snprintf(key_size, sizeof key_size, "%zu", plan->key_bytes);
  clgpu_define defines[20];
  size_t count = 0;
  defines[count++] = (clgpu_define){"CLGPU_SORT_GROUP", group};
  defines[count++] = (clgpu_define){"CLGPU_SORT_ITEMS", items};
  if (plan->algorithm == CLGPU_ALGORITHM_RADIX && plan->scan_group != plan->group) {
    defines[count++] = (clgpu_define){"CLGPU_SCAN_GROUP", scan_group};
  }
  defines[count++] = (clgpu_define){"CLGPU_VALUE_BYTES", value_bytes};
  const clgpu_sort_spec *spec = plan->spec;
  int custom = plan->algorithm == CLGPU_ALGORITHM_MERGE && spec->compare;
  /* The comparator on one line, in parentheses (expression.c). */
  char *compare = custom ? clgpu__expression_line(spec->compare) : NULL;
  CLGPU__RETURN_ERROR_IF(custom && !compare, CLGPU_CL_OUT_OF_HOST_MEMORY,
                         "clgpu_sort: out of host memory");
  if (custom) {
    defines[count++] = (clgpu_define){
        "CLGPU_KEY_T", plan->builtin ? clgpu__type_cl_name(plan->key_type) : spec->key_type};
    defines[count++] = (clgpu_define){"CLGPU_COMPARE_EXPR", compare};
    /* Custom keys: the program builds only where sizeof(key_type) is the
     * caller's key_size (cl/sort.cl checks it at compile time). */
    if (!plan->builtin) defines[count++] = (clgpu_define){"CLGPU_KEY_SIZE", key_size};
    if (context->info.has_fp64) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
    if (context->info.has_fp16) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP16", NULL};
  } else {
    defines[count++] = (clgpu_define){"CLGPU_KEY_T", clgpu__unsigned_type(plan->key_bytes)};
    defines[count++] = (clgpu_define){"CLGPU_KEY_KIND", kind};
    if (plan->key_kind == 2) {
      defines[count++] = (clgpu_define){"CLGPU_KEY_INF", infinity_bits(plan->key_type)};
    }
  }
  if (plan->descending) defines[count++] = (clgpu_define){"CLGPU_DESCENDING", NULL};
  if (plan->algorithm == CLGPU_ALGORITHM_RADIX) {
    defines[count++] = (clgpu_define){"CLGPU_RADIX", NULL};
    defines[count++] = (clgpu_define){"CLGPU_RADIX_BITS", digit};
    /* The one-kernel sort's program holds that kernel alone, the others'
     * the per-pass kernels alone: a first call loads and creates only
     * what it runs (cl/sort.cl). */
    if (plan->single) defines[count++] = (clgpu_define){"CLGPU_RADIX_SINGLE", NULL};
    /* Nor does a program whose scatter sums the counts hold their scan. */
    if (plan->summed) defines[count++] = (clgpu_define){"CLGPU_RADIX_SUMMED", NULL};
    /* Sub-group scans rank the TILED tiles where the device reports
     * sub-groups (docs/portability.md rule 5). */
    if (plan->group > 1 && context->info.has_subgroups) {
      defines[count++] = (clgpu_define){"CLGPU_SUBGROUPS", NULL};
    }
    /* A barrier per tile of the histogram's walk (the tuning table's
     * tiled_step_barrier: CPU runtimes). */
    if (plan->group > 1 && context->tuning->tiled_step_barrier) {
      defines[count++] = (clgpu_define){"CLGPU_TILE_STEP", NULL};
    }
    if (plan->stream) defines[count++] = (clgpu_define){"CLGPU_SORT_STREAM", NULL};
    if (plan->pairs) defines[count++] = (clgpu_define){"CLGPU_SORT_PAIRS", NULL};
    if (plan->indexed) defines[count++] = (clgpu_define){"CLGPU_SORT_INDEXED", NULL};
    if (plan->nontemporal) defines[count++] = (clgpu_define){"CLGPU_SORT_NONTEMPORAL", NULL};
  } else if (plan->radix_path) {
    defines[count++] = (clgpu_define){"CLGPU_SEGMENTED_RADIX", NULL};
  } else if (plan->search) {
    defines[count++] = (clgpu_define){"CLGPU_SEARCH", NULL};
  } else {
    defines[count++] = (clgpu_define){"CLGPU_MERGE", NULL};
    defines[count++] = (clgpu_define){"CLGPU_MERGE_BLOCK", block};
    if (plan->segmented) defines[count++] = (clgpu_define){"CLGPU_SEGMENTED", NULL};
  }
  clgpu_status status = CLGPU_SUCCESS;
  if (!custom) {
    status = clgpu__program_get_named(context, "sort", defines, count, NULL, out);
  } else {
    status = sort_source_program(context, spec, defines, count, out);
    if (!plan->builtin &&
        (status == CLGPU_CL_BUILD_PROGRAM_FAILURE || status == CLGPU_CL_COMPILE_PROGRAM_FAILURE)) {
      status = explain_custom_build_failure(context, plan, status, who);
    }
  }
  free(compare);
  return status;
}

#define ARG(x) CLGPU__ARG(x)

static size_t round_up(uint64_t items, size_t group) {
  return (size_t)(ceil_div(items, group) * group);
}

/* Where a sort's kernels find an array: a buffer and a byte offset into
 * it. Sort kernels address bytes (custom keys of any size and values of 1
 * to 16 bytes go through one uchar pointer), unlike call.h's clgpu__place,
 * which counts elements of the array's type. */
typedef struct byte_place {
  cl_mem buffer;
  cl_ulong byte;
} byte_place;

static byte_place slot(const clgpu__scratch *scratch, unsigned index, cl_mem fallback) {
  cl_mem buffer = NULL;
  size_t at = 0;
  clgpu__scratch_slot(scratch, index, &buffer, &at);
  if (!buffer || scratch->layout.buffers[index].bytes == 0) return (byte_place){fallback, 0};
  return (byte_place){buffer, (cl_ulong)at};
}

static clgpu_status byte_place_of(const clgpu_array *array, byte_place *out) {
  clgpu__place element;
  CLGPU__FORWARD_IF_ERROR(clgpu__place_of(array, &element));
  *out = (byte_place){element.buffer, element.offset * clgpu__type_size(array->type)};
  return CLGPU_SUCCESS;
}

/* A contiguous view of `count` elements of `type` at a place. */
static clgpu_status view_at(byte_place where, clgpu_type type, uint64_t count, clgpu_array *out) {
  return clgpu__array_1d(where.buffer, (size_t)where.byte, type, (size_t)count, out);
}

/* The four places a sort moves data between. */
typedef struct places {
  byte_place keys[2];
  byte_place values[2];
} places;

/* ---- enqueueing a sort over places ---- */

/* A radix sort over places. A multi-group sort numbers its passes from
 * `first_pass` in pass_state (a segmented sort's second phase continues
 * where its first left the keys, state[first_pass]) and, with `finish`,
 * moves the keys back to place 0 at the end; a single-kernel sort starts
 * and ends in place 0. */
static clgpu_status run_radix(clgpu_context *context, const sort_plan *plan, clgpu_program *program,
                              clgpu__leases *held, clgpu__chain *chain, const places *at,
                              const clgpu__scratch *scratch, unsigned first_pass, int finish_keys) {
  cl_ulong n = plan->n;
  size_t group = plan->group;
  clgpu__kernel_arg where[] = {ARG(at->keys[0].buffer),   ARG(at->keys[0].byte),
                               ARG(at->keys[1].buffer),   ARG(at->keys[1].byte),
                               ARG(at->values[0].buffer), ARG(at->values[0].byte),
                               ARG(at->values[1].buffer), ARG(at->values[1].byte)};
  if (plan->single) {
    cl_kernel single = NULL;
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(
        held, program, "clgpu_radix_single",
        CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6),
        &single));
    cl_uint begin = plan->begin_bit, end = plan->end_bit;
    clgpu__kernel_arg rest[] = {ARG(n), ARG(begin), ARG(end)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(single, 0, where, 8, "clgpu_radix_single"));
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(single, 8, rest, 3, "clgpu_radix_single"));
    return clgpu__chain_kernel(context, chain, single, group, group,
                               "clEnqueueNDRangeKernel(clgpu_radix_single)");
  }
  cl_kernel histogram = NULL, scan = NULL, scatter = NULL, finish = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_radix_histogram",
                                       CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) |
                                           CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6) |
                                           CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(15),
                                       &histogram));
  if (!plan->summed) {
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_radix_scan",
                                         CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4), &scan));
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_radix_scatter",
                                       CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) |
                                           CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6) |
                                           CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(15),
                                       &scatter));
  if (finish_keys) {
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_radix_finish",
                                         CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) |
                                             CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6) |
                                             CLGPU__BUFFER_ARG(8),
                                         &finish));
  }
  byte_place counts = slot(scratch, SORT_COUNTS, at->keys[0].buffer);
  byte_place state = slot(scratch, SORT_PASS_STATE, at->keys[0].buffer);
  cl_ulong chunk = plan->chunk, groups = plan->groups;
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(histogram, 0, where, 8, "clgpu_radix_histogram"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(scatter, 0, where, 8, "clgpu_radix_scatter"));
  if (plan->shape == CLGPU_SHAPE_CHUNKED) {
    cl_uint summed = plan->summed ? 1u : 0u;
    clgpu__kernel_arg summed_arg[] = {ARG(summed)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(scatter, 18, summed_arg, 1, "clgpu_radix_scatter"));
  }
  size_t wide = (size_t)groups * group;
  for (unsigned p = 0; p < plan->passes; p++) {
    cl_uint pass = first_pass + p;
    cl_uint shift = plan->begin_bit + p * plan->digit_bits;
    unsigned width =
        plan->end_bit - shift < plan->digit_bits ? plan->end_bit - shift : plan->digit_bits;
    cl_uint mask = (cl_uint)((1u << width) - 1);
    clgpu__kernel_arg pass_args[] = {
        ARG(state.buffer), ARG(state.byte), ARG(pass),          ARG(n),           ARG(chunk),
        ARG(shift),        ARG(mask),       ARG(counts.buffer), ARG(counts.byte), ARG(groups)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(histogram, 8, pass_args, 10, "clgpu_radix_histogram"));
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(scatter, 8, pass_args, 10, "clgpu_radix_scatter"));
    /* The sort's last pass: a pairs sort (cl/sort.cl place_after) writes
     * keys and values back to place 0 there. */
    cl_uint last = p + 1 == plan->passes && finish_keys ? 1u : 0u;
    if (plan->shape == CLGPU_SHAPE_CHUNKED) {
      clgpu__kernel_arg last_arg[] = {ARG(last)};
      CLGPU__FORWARD_IF_ERROR(clgpu__set_args(scatter, 19, last_arg, 1, "clgpu_radix_scatter"));
    }
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, histogram, wide, group,
                                                "clEnqueueNDRangeKernel(clgpu_radix_histogram)"));
    if (scan) {
      clgpu__kernel_arg scan_args[] = {
          ARG(state.buffer),  ARG(state.byte),  ARG(pass),   ARG(n),
          ARG(counts.buffer), ARG(counts.byte), ARG(groups), ARG(last)};
      CLGPU__FORWARD_IF_ERROR(clgpu__set_args(scan, 0, scan_args, 8, "clgpu_radix_scan"));
      CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, scan, plan->scan_group,
                                                  plan->scan_group,
                                                  "clEnqueueNDRangeKernel(clgpu_radix_scan)"));
    }
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, scatter, wide, group,
                                                "clEnqueueNDRangeKernel(clgpu_radix_scatter)"));
  }
  if (!finish_keys) return CLGPU_SUCCESS;
  cl_uint passes = first_pass + plan->passes;
  cl_ulong per_item = chunk;
  clgpu__kernel_arg finish_args[] = {ARG(state.buffer), ARG(state.byte), ARG(passes), ARG(n),
                                     ARG(per_item)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(finish, 0, where, 8, "clgpu_radix_finish"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(finish, 8, finish_args, 5, "clgpu_radix_finish"));
  /* CHUNKED: one work-item per chunk (each copies its chunk); TILED: at
   * most 1024 groups striding over the keys. */
  size_t finish_global = plan->shape == CLGPU_SHAPE_CHUNKED
                             ? (size_t)groups
                             : (size_t)(groups < 1024 ? groups : 1024) * group;
  return clgpu__chain_kernel(context, chain, finish, finish_global, group,
                             "clEnqueueNDRangeKernel(clgpu_radix_finish)");
}

static clgpu_status run_merge(clgpu_context *context, const sort_plan *plan, clgpu_program *program,
                              clgpu__leases *held, clgpu__chain *chain, const places *at) {
  cl_ulong n = plan->n;
  size_t group = plan->group;
  cl_kernel blocks = NULL, pass_kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(
      held, program, "clgpu_merge_blocks",
      CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6),
      &blocks));
  if (plan->merge_passes > 0) {
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(
        held, program, "clgpu_merge_pass",
        CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6),
        &pass_kernel));
  }
  clgpu__kernel_arg where[] = {ARG(at->keys[0].buffer),   ARG(at->keys[0].byte),
                               ARG(at->keys[1].buffer),   ARG(at->keys[1].byte),
                               ARG(at->values[0].buffer), ARG(at->values[0].byte),
                               ARG(at->values[1].buffer), ARG(at->values[1].byte)};
  cl_ulong chunk = plan->merge_chunk;
  cl_uint inner = plan->inner, to = plan->first_to;
  clgpu__kernel_arg block_args[] = {ARG(n), ARG(chunk), ARG(inner), ARG(to)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(blocks, 0, where, 8, "clgpu_merge_blocks"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(blocks, 8, block_args, 4, "clgpu_merge_blocks"));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, blocks,
                                              round_up(plan->merge_groups, group), group,
                                              "clEnqueueNDRangeKernel(clgpu_merge_blocks)"));
  if (plan->merge_passes == 0) return CLGPU_SUCCESS;
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(pass_kernel, 0, where, 8, "clgpu_merge_pass"));
  cl_uint from = (plan->first_to + plan->inner) % 2;
  cl_ulong width = chunk, per_item = plan->per_item;
  size_t global = round_up(ceil_div(n, per_item), group);
  for (unsigned p = 0; p < plan->merge_passes; p++) {
    clgpu__kernel_arg pass_args[] = {ARG(n), ARG(width), ARG(per_item), ARG(from)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(pass_kernel, 8, pass_args, 4, "clgpu_merge_pass"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, pass_kernel, global, group,
                                                "clEnqueueNDRangeKernel(clgpu_merge_pass)"));
    from = 1 - from;
    width *= 2;
  }
  return CLGPU_SUCCESS;
}

/* A segmented sort over places: the depth the longest segment needs into
 * pass_state, the blocks sorted in place 0, every pass a sort of n keys
 * could need (those past the depth return at once), then the keys back
 * in place 0 after an odd number. */
static clgpu_status run_segmented(clgpu_context *context, const sort_plan *plan,
                                  clgpu_program *program, clgpu__leases *held, clgpu__chain *chain,
                                  const places *at, const clgpu__scratch *scratch,
                                  const clgpu_array *offsets) {
  cl_ulong n = plan->n, segments = plan->segments;
  size_t group = plan->group;
  byte_place state = slot(scratch, SORT_PASS_STATE, at->keys[0].buffer);
  byte_place offsets_at;
  CLGPU__FORWARD_IF_ERROR(byte_place_of(offsets, &offsets_at));
  cl_long offsets_step = offsets->strides[0];
  cl_int wide = plan->offsets_wide;
  cl_kernel clear = NULL, depth = NULL, blocks = NULL, pass_kernel = NULL, finish = NULL;
  const uint64_t places_args =
      CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6);
  CLGPU__FORWARD_IF_ERROR(
      clgpu__lease(held, program, "clgpu_segsort_clear", CLGPU__BUFFER_ARG(0), &clear));
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_segsort_depth",
                                       CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(6), &depth));
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_segsort_blocks",
                                       places_args | CLGPU__BUFFER_ARG(8), &blocks));
  if (plan->merge_passes > 0) {
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_segsort_pass",
                                         places_args | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(18),
                                         &pass_kernel));
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_segsort_finish",
                                         places_args | CLGPU__BUFFER_ARG(10), &finish));
  }
  clgpu__kernel_arg where[] = {ARG(at->keys[0].buffer),   ARG(at->keys[0].byte),
                               ARG(at->keys[1].buffer),   ARG(at->keys[1].byte),
                               ARG(at->values[0].buffer), ARG(at->values[0].byte),
                               ARG(at->values[1].buffer), ARG(at->values[1].byte)};
  clgpu__kernel_arg segs[] = {ARG(offsets_at.buffer), ARG(offsets_at.byte), ARG(offsets_step),
                              ARG(wide), ARG(segments)};
  clgpu__kernel_arg state_args[] = {ARG(state.buffer), ARG(state.byte)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(clear, 0, state_args, 2, "clgpu_segsort_clear"));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, clear, group, group,
                                              "clEnqueueNDRangeKernel(clgpu_segsort_clear)"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(depth, 0, segs, 5, "clgpu_segsort_depth"));
  clgpu__kernel_arg depth_args[] = {ARG(n), ARG(state.buffer), ARG(state.byte)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(depth, 5, depth_args, 3, "clgpu_segsort_depth"));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, depth,
                                              round_up(plan->depth_items, group), group,
                                              "clEnqueueNDRangeKernel(clgpu_segsort_depth)"));
  cl_ulong chunk = plan->seg_chunk;
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(blocks, 0, where, 8, "clgpu_segsort_blocks"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(blocks, 8, segs, 5, "clgpu_segsort_blocks"));
  clgpu__kernel_arg block_args[] = {ARG(n), ARG(chunk)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(blocks, 13, block_args, 2, "clgpu_segsort_blocks"));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, blocks,
                                              round_up(ceil_div(n, chunk), group), group,
                                              "clEnqueueNDRangeKernel(clgpu_segsort_blocks)"));
  if (plan->merge_passes == 0) return CLGPU_SUCCESS;
  cl_ulong width = plan->merge_chunk, per_item = plan->per_item;
  size_t global = round_up(ceil_div(n, per_item), group);
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(pass_kernel, 0, where, 8, "clgpu_segsort_pass"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(pass_kernel, 8, segs, 5, "clgpu_segsort_pass"));
  for (unsigned p = 0; p < plan->merge_passes; p++) {
    cl_uint pass = p, from = p % 2;
    clgpu__kernel_arg pass_args[] = {ARG(n),    ARG(width),        ARG(per_item),  ARG(pass),
                                     ARG(from), ARG(state.buffer), ARG(state.byte)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(pass_kernel, 13, pass_args, 7, "clgpu_segsort_pass"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, pass_kernel, global, group,
                                                "clEnqueueNDRangeKernel(clgpu_segsort_pass)"));
    width *= 2;
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(finish, 0, where, 8, "clgpu_segsort_finish"));
  clgpu__kernel_arg finish_args[] = {ARG(n), ARG(per_item), ARG(state.buffer), ARG(state.byte)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(finish, 8, finish_args, 4, "clgpu_segsort_finish"));
  return clgpu__chain_kernel(context, chain, finish, global, group,
                             "clEnqueueNDRangeKernel(clgpu_segsort_finish)");
}

/* A segmented sort's radix path over places: clgpu_segradix_prepare
 * copies the keys and values to place 1 and writes the pairs, and (split
 * form) the keys' ordered images over place 0; phase 1 sorts the images
 * carrying the pairs, phase 2 the pairs by their ids, continuing in
 * pass_state from where phase 1 left them (packed form: phase 2 alone, by
 * image and id); clgpu_segradix_gather then moves each key and value from
 * place 1 to its position in place 0. The phases are radix sorts of
 * programs of their own, whose kernels each phase leases and gives back
 * once enqueued. */
static clgpu_status run_segmented_radix(clgpu_context *context, const sort_plan *plan,
                                        clgpu_program *program, clgpu__leases *held,
                                        clgpu__chain *chain, const places *at,
                                        const clgpu__scratch *scratch, const clgpu_array *offsets,
                                        const char *who) {
  cl_ulong n = plan->n, segments = plan->segments;
  size_t group = plan->group;
  sort_plan phases[2];
  clgpu_program *programs[2] = {NULL, NULL};
  for (int p = plan->packed ? 1 : 0; p < 2; p++) {
    phase_plan(context, plan, p + 1, &phases[p]);
    CLGPU__FORWARD_IF_ERROR(sort_program(context, &phases[p], who, &programs[p]));
  }
  byte_place images = slot(scratch, SORT_SEGMENT_IMAGES, at->keys[0].buffer);
  byte_place pairs0 = slot(scratch, SORT_SEGMENT_PAIRS, at->keys[0].buffer);
  byte_place pairs1 = {pairs0.buffer, pairs0.byte + n * plan->pair_bytes};
  byte_place state = slot(scratch, SORT_PASS_STATE, at->keys[0].buffer);
  byte_place offsets_at;
  CLGPU__FORWARD_IF_ERROR(byte_place_of(offsets, &offsets_at));
  cl_long offsets_step = offsets->strides[0];
  cl_int offsets_wide = plan->offsets_wide, wide = plan->pair_bytes == 8;
  cl_uint position_bits = plan->position_bits;
  cl_uint id_shift = position_bits + (plan->packed ? (cl_uint)(8 * plan->key_bytes) : 0);
  cl_int packed = plan->packed;
  cl_ulong per_item = plan->pair_per_item;
  size_t global = (size_t)plan->pair_items;
  const uint64_t places_args =
      CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6);
  clgpu__kernel_arg where[] = {ARG(at->keys[0].buffer),   ARG(at->keys[0].byte),
                               ARG(at->keys[1].buffer),   ARG(at->keys[1].byte),
                               ARG(at->values[0].buffer), ARG(at->values[0].byte),
                               ARG(at->values[1].buffer), ARG(at->values[1].byte)};

  cl_kernel prepare = NULL, gather = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_segradix_prepare",
                                       places_args | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(13),
                                       &prepare));
  CLGPU__FORWARD_IF_ERROR(clgpu__lease(
      held, program, "clgpu_segradix_gather",
      places_args | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(10) | CLGPU__BUFFER_ARG(12), &gather));
  clgpu__kernel_arg prepare_args[] = {
      ARG(offsets_at.buffer), ARG(offsets_at.byte), ARG(offsets_step), ARG(offsets_wide),
      ARG(segments),          ARG(pairs0.buffer),   ARG(pairs0.byte),  ARG(wide),
      ARG(position_bits),     ARG(id_shift),        ARG(packed),       ARG(n),
      ARG(per_item)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(prepare, 0, where, 8, "clgpu_segradix_prepare"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(prepare, 8, prepare_args, 13, "clgpu_segradix_prepare"));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, prepare, global, group,
                                              "clEnqueueNDRangeKernel(clgpu_segradix_prepare)"));

  /* Phase 1 leaves the keys where its last pass put them when phase 2
   * continues from there (both multi-group); otherwise in place 0. */
  int continues = !plan->packed && !phases[0].single && !phases[1].single;
  const places first = {{at->keys[0], images}, {pairs0, pairs1}};
  const places second = {{pairs0, pairs1}, {pairs0, pairs1}};
  unsigned second_from = continues ? phases[0].passes : 0;
  clgpu__leases phase_held;
  memset(&phase_held, 0, sizeof phase_held);
  clgpu_status status = CLGPU_SUCCESS;
  if (!plan->packed) {
    status = run_radix(context, &phases[0], programs[0], &phase_held, chain, &first, scratch, 0,
                       !continues);
    clgpu__leases_give_back(&phase_held);
    CLGPU__FORWARD_IF_ERROR(status);
  }
  status = run_radix(context, &phases[1], programs[1], &phase_held, chain, &second, scratch,
                     second_from, 0);
  clgpu__leases_give_back(&phase_held);
  CLGPU__FORWARD_IF_ERROR(status);

  /* The pairs are in place 0 after a single-kernel phase 2, else where
   * pass_state says after its last pass. */
  cl_uint state_index = phases[1].single ? 0 : second_from + phases[1].passes;
  clgpu__kernel_arg gather_args[] = {
      ARG(pairs0.buffer), ARG(pairs0.byte), ARG(pairs1.buffer), ARG(pairs1.byte),
      ARG(state.buffer),  ARG(state.byte),  ARG(state_index),   ARG(wide),
      ARG(position_bits), ARG(n),           ARG(per_item)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(gather, 0, where, 8, "clgpu_segradix_gather"));
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(gather, 8, gather_args, 11, "clgpu_segradix_gather"));
  return clgpu__chain_kernel(context, chain, gather, global, group,
                             "clEnqueueNDRangeKernel(clgpu_segradix_gather)");
}

/* The index sequence 0, 1, ... into a permutation's place: the context's
 * built-in iota over a 1-D view of the place. */
static clgpu_status run_iota(clgpu_context *context, const sort_plan *plan, clgpu__chain *chain,
                             byte_place values) {
  int wide = plan->value_bytes == 8;
  clgpu_array view;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_1d(values.buffer, (size_t)values.byte,
                                          wide ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32, plan->n,
                                          &view));
  cl_ulong wide_start = 0, wide_step = 1;
  cl_uint start = 0, step = 1;
  cl_event made = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__iota(context, &view, wide ? (const void *)&wide_start : &start,
                                      wide ? (const void *)&wide_step : &step,
                                      clgpu__chain_wait_count(chain), clgpu__chain_wait_list(chain),
                                      &made));
  clgpu__chain_push(chain, made);
  return CLGPU_SUCCESS;
}

/* Sort or argsort, after the checks: stage, sort, unstage. */
static clgpu_status run_sort(clgpu_context *context, const sort_plan *plan, const clgpu_array *keys,
                             const clgpu_array *values, const clgpu_array *offsets,
                             const clgpu_sort_options *options, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event, const char *who) {
  clgpu__argument arguments[] = {
      {keys, "keys"}, {values, plan->permutation ? "permutation" : "values"}, {offsets, "offsets"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu__leases held;
  memset(&held, 0, sizeof held);
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  clgpu_status status = clgpu__scratch_order(context, &scratch, &chain);
  clgpu_program *program = NULL;
  /* Custom keys build their program whatever n, so that a key_size that
   * is not the device's sizeof is refused by every call, not only by those
   * with keys to move. */
  if (status == CLGPU_SUCCESS && (plan->n > 1 || plan->permutation || !plan->builtin)) {
    status = sort_program(context, plan, who, &program);
  }

  places at;
  memset(&at, 0, sizeof at);
  clgpu_type key_type = plan->builtin ? plan->key_type : CLGPU_TYPE_UINT8;
  uint64_t key_count = plan->builtin ? plan->n : plan->n * plan->key_bytes;
  clgpu_array staged_keys, staged_values;
  int keys_staged = plan->stage_keys && plan->n > 0;
  int values_staged = plan->stage_values && plan->n > 0;
  if (status == CLGPU_SUCCESS && keys_staged) {
    at.keys[0] = slot(&scratch, SORT_STAGED_KEYS, NULL);
    status = view_at(at.keys[0], key_type, key_count, &staged_keys);
    if (status == CLGPU_SUCCESS) {
      clgpu_array from = *keys;
      if (!plan->builtin)
        status =
            clgpu__array_1d(keys->buffer, keys->offset, CLGPU_TYPE_UINT8, (size_t)key_count, &from);
      if (status == CLGPU_SUCCESS)
        status = clgpu__chain_copy(context, &chain, &staged_keys, &from, who);
    }
  } else if (status == CLGPU_SUCCESS) {
    status = byte_place_of(keys, &at.keys[0]);
  }
  if (status == CLGPU_SUCCESS && values) {
    if (values_staged) {
      at.values[0] = slot(&scratch, SORT_STAGED_VALUES, NULL);
      /* A strided view has one element per key; a contiguous one is
       * staged only for its alignment, as bytes. */
      clgpu_type type = values->type;
      uint64_t count = plan->n;
      if (clgpu__array_is_contiguous(values)) {
        type = CLGPU_TYPE_UINT8;
        count = plan->n * plan->value_bytes;
      }
      status = view_at(at.values[0], type, count, &staged_values);
      if (status == CLGPU_SUCCESS && !plan->permutation) {
        clgpu_array from = *values;
        if (type == CLGPU_TYPE_UINT8 && values->type != CLGPU_TYPE_UINT8) {
          status = clgpu__array_1d(values->buffer, values->offset, CLGPU_TYPE_UINT8, (size_t)count,
                                   &from);
        }
        if (status == CLGPU_SUCCESS) {
          status = clgpu__chain_copy(context, &chain, &staged_values, &from, who);
        }
      }
    } else {
      status = byte_place_of(values, &at.values[0]);
    }
  } else if (status == CLGPU_SUCCESS) {
    at.values[0] = at.keys[0];
  }
  if (status == CLGPU_SUCCESS) {
    at.keys[1] = slot(&scratch, SORT_KEYS_ALTERNATE, at.keys[0].buffer);
    at.values[1] = values ? slot(&scratch, SORT_VALUES_ALTERNATE, at.values[0].buffer) : at.keys[1];
  }
  if (status == CLGPU_SUCCESS && plan->permutation && plan->n > 0 && !plan->indexed) {
    status = run_iota(context, plan, &chain, at.values[0]);
  }
  if (status == CLGPU_SUCCESS && plan->n > 1) {
    if (plan->segmented && plan->radix_path) {
      status =
          run_segmented_radix(context, plan, program, &held, &chain, &at, &scratch, offsets, who);
    } else if (plan->segmented) {
      status = run_segmented(context, plan, program, &held, &chain, &at, &scratch, offsets);
    } else if (plan->algorithm == CLGPU_ALGORITHM_RADIX) {
      status = run_radix(context, plan, program, &held, &chain, &at, &scratch, 0, 1);
    } else {
      status = run_merge(context, plan, program, &held, &chain, &at);
    }
  }
  if (status == CLGPU_SUCCESS && keys_staged && !plan->permutation) {
    status = clgpu__chain_copy(context, &chain, keys, &staged_keys, who);
  }
  if (status == CLGPU_SUCCESS && values_staged) {
    clgpu_array to = *values;
    if (staged_values.type == CLGPU_TYPE_UINT8 && values->type != CLGPU_TYPE_UINT8) {
      status = clgpu__array_1d(values->buffer, values->offset, CLGPU_TYPE_UINT8,
                               clgpu__array_count(&staged_values), &to);
    }
    if (status == CLGPU_SUCCESS)
      status = clgpu__chain_copy(context, &chain, &to, &staged_values, who);
  }
  clgpu__scratch_record(context, &scratch, &chain);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, &chain, event);
  } else {
    clgpu__chain_abandon(&chain);
  }
  clgpu__leases_give_back(&held);
  clgpu__scratch_release(context, &scratch);
  return status;
}

/* ---- entry points ---- */

/* The start of every sort entry point: the checks of the context, the keys
 * and the second view (the values, when given, or the permutation), the
 * wait list, then the spec resolved into a fresh plan. */
static clgpu_status begin_entry(clgpu_context *context, const clgpu_sort_spec *spec,
                                const clgpu_array *keys, const clgpu_array *second, int permutation,
                                const clgpu_sort_options *options, cl_uint num_events,
                                const cl_event *wait_list, const char *who, sort_plan *plan) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(keys, who, "keys"));
  /* Values are optional, a permutation is not. */
  const char *second_name = permutation ? "permutation" : "values";
  if (second || permutation)
    CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(second, who, second_name));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  memset(plan, 0, sizeof *plan);
  plan->permutation = permutation;
  return resolve(context, spec ? spec : &default_spec, options, keys->type, who, plan);
}

/* The end of every sort entry point, once the plan knows n and what is
 * staged: the layout, then its report into `query`, or the sort. */
static clgpu_status query_or_sort(clgpu_context *context, sort_plan *plan, const clgpu_array *keys,
                                  const clgpu_array *values, const clgpu_array *offsets,
                                  const clgpu_sort_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event,
                                  clgpu_workspace_size *query, const char *who) {
  CLGPU__FORWARD_IF_ERROR(lay_out(context, plan, who));
  if (query) {
    *query = plan->report;
    return CLGPU_SUCCESS;
  }
  clgpu__queue_scope previous;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__queue_enter(context, options ? options->queue : NULL, who, &previous));
  clgpu_status status =
      run_sort(context, plan, keys, values, offsets, options, num_events, wait_list, event, who);
  clgpu__queue_leave(&previous);
  return status;
}

/* An "_upto" query's plan: the spec resolved for keys of `key_type` (bytes
 * for custom keys), max_n keys in place, each with `value_bytes` of values;
 * then the layout and its report. */
static clgpu_status query_upto(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_sort_options *options, clgpu_type key_type,
                               uint64_t max_n, sort_plan *plan, clgpu_workspace_size *out,
                               const char *who) {
  CLGPU__RETURN_ERROR_IF(!context || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  spec = spec ? spec : &default_spec;
  if (spec->key_type) key_type = CLGPU_TYPE_UINT8;
  CLGPU__FORWARD_IF_ERROR(resolve(context, spec, options, key_type, who, plan));
  plan->n = max_n;
  clgpu_status status = lay_out(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (max_n %llu is too large for this query)", (unsigned long long)max_n);
    return status;
  }
  *out = plan->report;
  return CLGPU_SUCCESS;
}

static clgpu_status sort_entry(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *keys, const clgpu_array *values,
                               const clgpu_sort_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event,
                               clgpu_workspace_size *query, const char *who) {
  sort_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      begin_entry(context, spec, keys, values, 0, options, num_events, wait_list, who, &plan));
  CLGPU__FORWARD_IF_ERROR(check_keys(context, keys, 1, who, &plan));
  if (values) CLGPU__FORWARD_IF_ERROR(check_values(context, keys, values, who, &plan));
  return query_or_sort(context, &plan, keys, values, NULL, options, num_events, wait_list, event,
                       query, who);
}

/* Lays out a prebuild's plan of a count up to max_n and asks for its
 * program. */
static clgpu_status prepare_plan(clgpu_context *context, sort_plan *plan, uint64_t max_n,
                                 const char *who) {
  clgpu_status status = lay_out(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (max_n %llu is too large)", (unsigned long long)max_n);
    return status;
  }
  clgpu_program *program = NULL;
  return sort_program(context, plan, who, &program);
}

clgpu_status clgpu__sort_prepare(clgpu_context *context, const clgpu_sort_spec *spec,
                                 const clgpu_sort_options *options, clgpu_type key_type,
                                 size_t value_bytes, uint64_t max_n, const char *who) {
  spec = spec ? spec : &default_spec;
  if (spec->key_type) key_type = CLGPU_TYPE_UINT8;
  CLGPU__RETURN_ERROR_IF(value_bytes != 0 && value_bytes != 1 && value_bytes != 2 &&
                             value_bytes != 4 && value_bytes != 8 && value_bytes != 16,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: value_bytes is %zu (0 for keys only, or 1, 2, 4, 8 or 16)", who,
                         value_bytes);
  if (max_n == 0) max_n = (uint64_t)1 << 32;
  sort_plan resolved;
  memset(&resolved, 0, sizeof resolved);
  CLGPU__FORWARD_IF_ERROR(resolve(context, spec, options, key_type, who, &resolved));
  /* A plan depends on the count through thresholds that only switch one
   * way as the count grows (one chunk or many, streaming scatter or not):
   * counts at every power of two and max_n meet every program. */
  for (uint64_t n = 2;; n = n < max_n / 2 ? n * 2 : max_n) {
    sort_plan plan = resolved;
    plan.n = n;
    plan.value_bytes = value_bytes;
    CLGPU__FORWARD_IF_ERROR(prepare_plan(context, &plan, max_n, who));
    /* clgpu_sort_permutation's sort with pairs makes its indices itself
     * (plan.indexed): a program of its own. */
    if (value_bytes == 4 && plan.pairs) {
      sort_plan indexed = resolved;
      indexed.n = n;
      indexed.value_bytes = value_bytes;
      indexed.permutation = 1;
      indexed.stage_keys = 1;
      indexed.keys_readable = 1;
      CLGPU__FORWARD_IF_ERROR(prepare_plan(context, &indexed, max_n, who));
    }
    if (n >= max_n) break;
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                        const clgpu_array *keys, const clgpu_array *values,
                        const clgpu_sort_options *options, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event) {
  return sort_entry(context, spec, keys, values, options, num_events, wait_list, event, NULL,
                    "clgpu_sort");
}

clgpu_status clgpu_sort_workspace_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                       const clgpu_array *keys, const clgpu_array *values,
                                       const clgpu_sort_options *options,
                                       clgpu_workspace_size *out) {
  const char *who = "clgpu_sort_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return sort_entry(context, spec, keys, values, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu_sort_workspace_size_upto(clgpu_context *context, const clgpu_sort_spec *spec,
                                            clgpu_type key_type, size_t value_size, uint64_t max_n,
                                            const clgpu_sort_options *options,
                                            clgpu_workspace_size *out) {
  const char *who = "clgpu_sort_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(value_size != 0 && value_size != 1 && value_size != 2 && value_size != 4 &&
                             value_size != 8 && value_size != 16,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: value_size %zu is not 0, 1, 2, 4, 8 or 16 bytes", who, value_size);
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.value_bytes = value_size;
  return query_upto(context, spec, options, key_type, max_n, &plan, out, who);
}

static clgpu_status permutation_entry(clgpu_context *context, const clgpu_sort_spec *spec,
                                      const clgpu_array *keys, const clgpu_array *permutation,
                                      const clgpu_sort_options *options, cl_uint num_events,
                                      const cl_event *wait_list, cl_event *event,
                                      clgpu_workspace_size *query, const char *who) {
  sort_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      begin_entry(context, spec, keys, permutation, 1, options, num_events, wait_list, who, &plan));
  CLGPU__FORWARD_IF_ERROR(check_keys(context, keys, 0, who, &plan));
  /* The keys are sorted in a copy, or read where they are by an indexed
   * sort (lay_out). */
  plan.keys_readable = !plan.stage_keys;
  plan.stage_keys = 1;
  CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(permutation->type, plan.n, who, "permutation"));
  CLGPU__RETURN_ERROR_IF(permutation->shape[0] != plan.n, CLGPU_SHAPE_MISMATCH,
                         "%s: the permutation has %zu elements for %llu keys", who,
                         permutation->shape[0], (unsigned long long)plan.n);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(permutation, who, "permutation"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(keys, permutation, who, "permutation", "keys"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, permutation->buffer, who, "permutation", 1));
  plan.permutation_type = permutation->type;
  plan.value_bytes = clgpu__type_size(permutation->type);
  plan.stage_values = !clgpu__array_is_contiguous(permutation);
  return query_or_sort(context, &plan, keys, permutation, NULL, options, num_events, wait_list,
                       event, query, who);
}

clgpu_status clgpu_sort_permutation(clgpu_context *context, const clgpu_sort_spec *spec,
                                    const clgpu_array *permutation, const clgpu_array *keys,
                                    const clgpu_sort_options *options, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event) {
  return permutation_entry(context, spec, keys, permutation, options, num_events, wait_list, event,
                           NULL, "clgpu_sort_permutation");
}

clgpu_status clgpu_sort_permutation_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *permutation,
    const clgpu_array *keys, const clgpu_sort_options *options, clgpu_workspace_size *out) {
  const char *who = "clgpu_sort_permutation_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return permutation_entry(context, spec, keys, permutation, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu_sort_permutation_workspace_size_upto(clgpu_context *context,
                                                        const clgpu_sort_spec *spec,
                                                        clgpu_type permutation_type,
                                                        clgpu_type key_type, uint64_t max_n,
                                                        const clgpu_sort_options *options,
                                                        clgpu_workspace_size *out) {
  const char *who = "clgpu_sort_permutation_workspace_size_upto";
  CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(permutation_type, 0, who, "permutation"));
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.permutation = 1;
  plan.stage_keys = 1;
  plan.permutation_type = permutation_type;
  plan.value_bytes = clgpu__type_size(permutation_type);
  return query_upto(context, spec, options, key_type, max_n, &plan, out, who);
}

/* ---- segmented sort ---- */

/* The offsets of a segmented sort: a 1-D uint or ulong view of S + 1
 * values (S >= 0), apart from the keys and values the sort writes. */
static clgpu_status check_offsets(clgpu_context *context, const clgpu_array *offsets,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const char *who, sort_plan *plan) {
  CLGPU__RETURN_ERROR_IF(!offsets, CLGPU_INVALID_ARGUMENT, "%s: offsets is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(offsets, who, "offsets"));
  CLGPU__RETURN_ERROR_IF(
      offsets->type != CLGPU_TYPE_UINT32 && offsets->type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
      "%s: the offsets must be uint or ulong (CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64), not %s", who,
      clgpu__type_cl_name(offsets->type));
  CLGPU__RETURN_ERROR_IF(offsets->shape[0] == 0, CLGPU_SHAPE_MISMATCH,
                         "%s: the offsets are empty (S segments take S + 1 offsets; no segment "
                         "takes one)",
                         who);
  CLGPU__RETURN_ERROR_IF(clgpu__may_alias(keys, offsets), CLGPU_INVALID_OUTPUT,
                         "%s: the keys may overlap the offsets", who);
  CLGPU__RETURN_ERROR_IF(values && clgpu__may_alias(values, offsets), CLGPU_INVALID_OUTPUT,
                         "%s: the values may overlap the offsets", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, offsets->buffer, who, "offsets", 0));
  plan->segmented = 1;
  plan->segments = offsets->shape[0] - 1;
  plan->offsets_wide = offsets->type == CLGPU_TYPE_UINT64;
  return CLGPU_SUCCESS;
}

/* The checks of a segmented sort's options and spec before the views: an
 * unknown algorithm, and a bit range (the segments are sorted by every bit
 * of the key, on either path). */
static clgpu_status check_segmented_options(const clgpu_sort_spec *spec,
                                            const clgpu_sort_options *options, const char *who) {
  CLGPU__RETURN_ERROR_IF(options && options->algorithm != CLGPU_ALGORITHM_AUTO &&
                             options->algorithm != CLGPU_ALGORITHM_RADIX &&
                             options->algorithm != CLGPU_ALGORITHM_MERGE,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: unknown sort algorithm %d (AUTO, RADIX or MERGE)", who,
                         (int)options->algorithm);
  CLGPU__RETURN_ERROR_IF(spec && (spec->begin_bit != 0 || spec->end_bit != 0),
                         CLGPU_INVALID_ARGUMENT,
                         "%s: a segmented sort orders by every bit of the keys; spec->begin_bit "
                         "and end_bit must be 0, not %u and %u",
                         who, spec->begin_bit, spec->end_bit);
  return CLGPU_SUCCESS;
}

/* A resolved plan made segmented: the family the spec and options resolved
 * to (RADIX: built-in keys in their natural order, AUTO or RADIX; MERGE
 * otherwise) goes to the report, and the plan itself is the merge path's,
 * which lay_out completes with the radix path where the family allows. */
static void make_segmented(sort_plan *plan, const clgpu_sort_options *options) {
  plan->segmented = 1;
  plan->family = plan->algorithm;
  plan->radix_asked = options && options->algorithm == CLGPU_ALGORITHM_RADIX;
  plan->algorithm = CLGPU_ALGORITHM_MERGE;
}

static clgpu_status segmented_entry(clgpu_context *context, const clgpu_sort_spec *spec,
                                    const clgpu_array *keys, const clgpu_array *values,
                                    const clgpu_array *offsets, const clgpu_sort_options *options,
                                    cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                    clgpu_workspace_size *query, const char *who) {
  CLGPU__FORWARD_IF_ERROR(check_segmented_options(spec, options, who));
  sort_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      begin_entry(context, spec, keys, values, 0, options, num_events, wait_list, who, &plan));
  make_segmented(&plan, options);
  CLGPU__FORWARD_IF_ERROR(check_keys(context, keys, 1, who, &plan));
  if (values) CLGPU__FORWARD_IF_ERROR(check_values(context, keys, values, who, &plan));
  CLGPU__FORWARD_IF_ERROR(check_offsets(context, offsets, keys, values, who, &plan));
  return query_or_sort(context, &plan, keys, values, offsets, options, num_events, wait_list, event,
                       query, who);
}

clgpu_status clgpu_segmented_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const clgpu_array *offsets, const clgpu_sort_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return segmented_entry(context, spec, keys, values, offsets, options, num_events, wait_list,
                         event, NULL, "clgpu_segmented_sort");
}

clgpu_status clgpu_segmented_sort_workspace_size(clgpu_context *context,
                                                 const clgpu_sort_spec *spec,
                                                 const clgpu_array *keys, const clgpu_array *values,
                                                 const clgpu_array *offsets,
                                                 const clgpu_sort_options *options,
                                                 clgpu_workspace_size *out) {
  const char *who = "clgpu_segmented_sort_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return segmented_entry(context, spec, keys, values, offsets, options, 0, NULL, NULL, out, who);
}

/* The checks of a segmented sort's _upto query and prepare: value bytes,
 * options and spec. */
static clgpu_status check_segmented_upto(const clgpu_sort_spec *spec,
                                         const clgpu_sort_options *options, size_t value_bytes,
                                         const char *who) {
  CLGPU__FORWARD_IF_ERROR(check_segmented_options(spec, options, who));
  CLGPU__RETURN_ERROR_IF(value_bytes != 0 && value_bytes != 1 && value_bytes != 2 &&
                             value_bytes != 4 && value_bytes != 8 && value_bytes != 16,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: value_size is %zu (0 for keys only, or 1, 2, 4, 8 or 16)", who,
                         value_bytes);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_segmented_sort_workspace_size_upto(clgpu_context *context,
                                                      const clgpu_sort_spec *spec,
                                                      clgpu_type key_type, size_t value_size,
                                                      uint64_t max_n, uint64_t max_segments,
                                                      const clgpu_sort_options *options,
                                                      clgpu_workspace_size *out) {
  const char *who = "clgpu_segmented_sort_workspace_size_upto";
  CLGPU__FORWARD_IF_ERROR(check_segmented_upto(spec, options, value_size, who));
  CLGPU__RETURN_ERROR_IF(!context || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  spec = spec ? spec : &default_spec;
  if (spec->key_type) key_type = CLGPU_TYPE_UINT8;
  /* Both paths at (max_n, max_segments): every buffer of either grows with
   * the keys and the segments, so the larger of the two serves every
   * smaller call, whichever path it takes. */
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  CLGPU__FORWARD_IF_ERROR(resolve(context, spec, options, key_type, who, &plan));
  make_segmented(&plan, options);
  plan.value_bytes = value_size;
  plan.segments = max_segments;
  plan.upto = 1;
  plan.n = max_n;
  clgpu_status status = lay_out(context, &plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (max_n %llu is too large for this query)", (unsigned long long)max_n);
    return status;
  }
  *out = plan.report;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__segmented_sort_prepare(clgpu_context *context, const clgpu_sort_spec *spec,
                                           const clgpu_sort_options *options, clgpu_type key_type,
                                           size_t value_bytes, uint64_t max_n, const char *who) {
  CLGPU__FORWARD_IF_ERROR(check_segmented_upto(spec, options, value_bytes, who));
  spec = spec ? spec : &default_spec;
  if (spec->key_type) key_type = CLGPU_TYPE_UINT8;
  if (max_n == 0) max_n = (uint64_t)1 << 32;
  sort_plan resolved;
  memset(&resolved, 0, sizeof resolved);
  CLGPU__FORWARD_IF_ERROR(resolve(context, spec, options, key_type, who, &resolved));
  make_segmented(&resolved, options);
  resolved.value_bytes = value_bytes;
  /* The merge path's program depends on neither the count nor the
   * segments; the radix path's programs on the count (thresholds that
   * switch one way as it grows, met at every power of two and max_n) and,
   * through the form and the pairs' width, on the segments: their id bits
   * change the form where image, id and position stop fitting in 64 bits,
   * and the width where id and position stop fitting in 32, so one count
   * of id bits below, between and above those meets every program. */
  if (!resolved.radix_asked) {
    sort_plan plan = resolved;
    plan.n = max_n;
    plan.family = CLGPU_ALGORITHM_MERGE;
    CLGPU__FORWARD_IF_ERROR(prepare_plan(context, &plan, max_n, who));
  }
  if (resolved.family != CLGPU_ALGORITHM_RADIX) return CLGPU_SUCCESS;
  unsigned image_bits = (unsigned)(8 * resolved.key_bytes);
  for (uint64_t n = 2;; n = n < max_n / 2 ? n * 2 : max_n) {
    unsigned position_bits = bits_of(n - 1);
    const unsigned id_bits[] = {1, 33 - position_bits, 65 - image_bits - position_bits};
    for (int b = 0; b < 3; b++) {
      /* Ids of id_bits[b] bits: S + 1 = 2^(bits - 1) segments' worth. */
      if (id_bits[b] < 1 || id_bits[b] > 64 - position_bits) continue;
      sort_plan plan = resolved;
      plan.n = n;
      plan.radix_asked = 1;
      plan.segments = ((uint64_t)1 << (id_bits[b] - 1)) - 1;
      CLGPU__FORWARD_IF_ERROR(prepare_plan(context, &plan, max_n, who));
      sort_plan phases[2];
      clgpu_program *program = NULL;
      for (int p = plan.packed ? 1 : 0; p < 2; p++) {
        phase_plan(context, &plan, p + 1, &phases[p]);
        CLGPU__FORWARD_IF_ERROR(sort_program(context, &phases[p], who, &program));
      }
    }
    if (n >= max_n) break;
  }
  return CLGPU_SUCCESS;
}

/* ---- the order of a search (sort_search.h) ---- */

/* The order of a merge sort in `shape` with `spec`: clgpu_sort's checks. */
clgpu_status clgpu__search_resolve(clgpu_context *context, const clgpu_sort_spec *spec,
                                   clgpu_shape shape, clgpu_type key_type, const char *who,
                                   clgpu__search_order *out) {
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  clgpu_sort_options options = {
      .algorithm = CLGPU_ALGORITHM_MERGE, .shape = shape, .workspace = NULL};
  CLGPU__FORWARD_IF_ERROR(
      resolve(context, spec ? spec : &default_spec, &options, key_type, who, &plan));
  out->spec = plan.spec;
  out->shape = plan.shape;
  out->group = plan.group;
  out->builtin = plan.builtin;
  out->key_type = plan.key_type;
  out->key_bytes = plan.key_bytes;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__search_keys(clgpu_context *context, const clgpu__search_order *order,
                                const clgpu_array *keys, const char *who, const char *name,
                                uint64_t *n, int *stage) {
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.spec = order->spec;
  plan.builtin = order->builtin;
  plan.key_bytes = order->key_bytes;
  CLGPU__FORWARD_IF_ERROR(key_count(&plan, keys, who, name, n, stage));
  return keys->buffer ? clgpu__check_buffer(context, keys->buffer, who, name, 0) : CLGPU_SUCCESS;
}

clgpu_status clgpu__search_program(clgpu_context *context, const clgpu__search_order *order,
                                   const char *who, clgpu_program **out) {
  /* The resolved order as the merge plan sort_program reads (its spec was
   * checked when the order was resolved, so it is not checked again). */
  sort_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.tuning = context->tuning;
  plan.search = 1;
  plan.algorithm = CLGPU_ALGORITHM_MERGE;
  plan.shape = order->shape;
  plan.group = order->group;
  plan.spec = order->spec;
  plan.descending = order->spec->descending != 0;
  plan.builtin = order->builtin;
  plan.key_type = order->key_type;
  plan.key_bytes = order->key_bytes;
  plan.key_kind = order->builtin ? key_kind_of(order->key_type) : 0;
  return sort_program(context, &plan, who, out);
}
