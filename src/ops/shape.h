/* Kernel shapes and ranges, for every operation built on cl/reduce.cl.
 *
 * A shape is CHUNKED (the CPU shape: groups of one work-item, each walking a
 * long range) or TILED (the GPU shape: groups of up to 256 work-items that
 * cooperate through local memory); AUTO picks by device type.
 *
 * Ranges. An array of n elements is cut into chunks, one per work-group,
 * by the numbers of the tuning table (runtime/tuning.c): CHUNKED chunks are
 * multiples of chunk_unit elements, nothing is cut below chunk_minimum, and
 * a cut range gets at most chunked_chunks_per_unit chunks per compute unit;
 * TILED tiles are group * tile_items elements, nothing is cut below
 * tiled_minimum_tiles tiles, and there are at most tiled_chunks_per_unit
 * chunks per compute unit and tiled_chunks_cap in all.
 * A cut range needs a second pass (partials, or carries for a scan); an
 * uncut one runs in one group. Along an axis every line is one group's
 * range. On a device with a loop cap (quirks.c) every figure is bounded so
 * that no work-item's loop passes it. */
#ifndef CLGPU_SRC_SHAPE_H
#define CLGPU_SRC_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/context.h>
#include <clgpu/workspace.h>

typedef struct clgpu__shape {
  clgpu_shape kind;
  size_t group;
  int automatic; /* the caller asked for CLGPU_SHAPE_AUTO */
} clgpu__shape;

typedef struct clgpu__split {
  uint64_t groups;   /* groups that run */
  uint64_t chunk;    /* elements per group */
  uint64_t reserved; /* second-pass slots: 0 for an uncut range */
} clgpu__split;

/* The shape `options` asks for (NULL: AUTO), with its group size on this
 * device. CLGPU_INVALID_ARGUMENT for an unknown shape. */
clgpu_status clgpu__shape_resolve(const clgpu_context *context, const clgpu_call_options *options,
                                  const char *who, clgpu__shape *out);

/* Fits a line of `length` elements (one group's range) to the device's loop
 * cap: an AUTO CHUNKED shape may become TILED; otherwise
 * CLGPU_UNSUPPORTED_FEATURE. */
clgpu_status clgpu__fit_line(const clgpu_context *context, const char *who, uint64_t length,
                             clgpu__shape *shape);

/* How n elements are cut into ranges in `shape`. */
clgpu__split clgpu__split_range(const clgpu_context *context, const clgpu__shape *shape,
                                uint64_t n);

/* The most per-range counts (findall's, partition's) that their last
 * kernel adds up itself, each work-item those before its range, instead of
 * a scan of them: O(ranges^2) additions in all, but a kernel and a program
 * fewer (on a first call in a process, a binary fewer to load). */
#define CLGPU__COUNTS_SUMMED_MOST 256

/* Whether clgpu__split_range may cut some length into more than `most`
 * ranges in `shape`: under a loop cap, or where the device's compute units
 * times the tuning's chunks per unit pass it. */
int clgpu__split_may_pass(const clgpu_context *context, const clgpu__shape *shape, uint64_t most);

/* Cuts `split` of n elements further, where needed, so that no range holds
 * more than `most` elements (at least 1): for a loop cap that bounds a
 * work-item's walk. */
void clgpu__split_at_most(uint64_t n, uint64_t most, clgpu__split *split);

/* CLGPU_UNSUPPORTED_FEATURE when the second pass over a split's partials
 * would pass the device's loop cap. */
clgpu_status clgpu__fit_partials(const clgpu_context *context, const char *who, uint64_t n,
                                 const clgpu__shape *shape, const clgpu__split *split);

/* After CLGPU_SIZE_OVERFLOW from an "_upto" query: names the argument. */
void clgpu__append_max_n(uint64_t max_n);

#endif
