/* Kernel shapes and ranges (shape.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/context.h>
#include <clgpu/workspace.h>

#include "chain.h"
#include "context_internal.h"
#include "overflow.h"
#include "quirks.h"
#include "shape.h"
#include "status_internal.h"
#include "tuning.h"

clgpu_status clgpu__shape_resolve(const clgpu_context *context, const clgpu_call_options *options,
                                  const char *who, clgpu__shape *out) {
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
  }
  clgpu_shape requested = options ? options->shape : CLGPU_SHAPE_AUTO;
  CLGPU__RETURN_ERROR_IF(requested != CLGPU_SHAPE_AUTO && requested != CLGPU_SHAPE_CHUNKED &&
                             requested != CLGPU_SHAPE_TILED,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: unknown shape %d (CLGPU_SHAPE_AUTO, _CHUNKED or _TILED)", who,
                         (int)requested);
  clgpu_shape algorithm = requested;
  if (algorithm == CLGPU_SHAPE_AUTO) {
    algorithm = (context->info.type & CL_DEVICE_TYPE_CPU) ? CLGPU_SHAPE_CHUNKED : CLGPU_SHAPE_TILED;
  }
  size_t group = 1;
  if (algorithm == CLGPU_SHAPE_TILED) {
    size_t limit = clgpu__work_group_limit(context, context->tuning->tiled_group_cap);
    /* Local memory: two arrays of `group` 8-byte values at most. */
    while (limit > 1 && (cl_ulong)limit * 16 > context->info.local_mem_size) limit /= 2;
    while (group * 2 <= limit) group *= 2;
  }
  out->kind = algorithm;
  out->group = group;
  out->automatic = requested == CLGPU_SHAPE_AUTO;
  return CLGPU_SUCCESS;
}

/* Elements one work-item may walk in one kernel on a device that leaves its
 * loops after loop_iteration_cap iterations (quirks.c: llvmpipe): a quarter
 * of the cap, so that a kernel's other loops (a tail, a carry, a vector
 * loop's remainder) stay below it too. 0 where the device has no cap. */
static uint64_t loop_limit(const clgpu_context *context) {
  return context->quirks.loop_iteration_cap / 4;
}

/* Elements one work-item walks when `length` elements are one group's range
 * (a line along an axis, or the second pass over partials). */
static uint64_t per_item(const clgpu__shape *shape, uint64_t length) {
  return shape->kind == CLGPU_SHAPE_CHUNKED ? length : clgpu__ceil_div_u64(length, shape->group);
}

/* A line of `length` elements is one group's range (reductions and scans
 * along an axis). On a device with a loop cap, a line too long for one
 * CHUNKED work-item makes an automatic choice TILED (the workspace does not
 * depend on the shape along an axis); a line too long for the shape asked
 * for is refused rather than computed wrong. */
clgpu_status clgpu__fit_line(const clgpu_context *context, const char *who, uint64_t length,
                             clgpu__shape *shape) {
  /* Half the cap: a line is walked by one loop (an element per iteration,
   * fewer where 16-wide vectors apply), so it needs less margin than the
   * ranges, whose plan can simply be cut finer. Lines of 16411 elements
   * run right in every shape on llvmpipe (test_scan along_axes); 70000 did
   * not. */
  uint64_t limit = context->quirks.loop_iteration_cap / 2;
  if (!limit || per_item(shape, length) <= limit) return CLGPU_SUCCESS;
  if (shape->automatic && shape->kind == CLGPU_SHAPE_CHUNKED) {
    clgpu_call_options tiled = {0};
    tiled.shape = CLGPU_SHAPE_TILED;
    CLGPU__FORWARD_IF_ERROR(clgpu__shape_resolve(context, &tiled, who, shape));
    shape->automatic = 1;
    if (per_item(shape, length) <= limit) return CLGPU_SUCCESS;
  }
  return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                     "%s: a line of %llu elements along the axis would take one work-item %llu "
                     "loop iterations with the %s shape, and this device (%s) silently leaves "
                     "a work-item's loops after %llu (the quirks table's loop_iteration_cap)%s",
                     who, (unsigned long long)length, (unsigned long long)per_item(shape, length),
                     shape->kind == CLGPU_SHAPE_CHUNKED ? "CHUNKED" : "TILED", context->info.name,
                     (unsigned long long)context->quirks.loop_iteration_cap,
                     shape->kind == CLGPU_SHAPE_CHUNKED
                         ? "; CLGPU_SHAPE_TILED or AUTO splits the line among a group"
                         : "");
}

/* After CLGPU_SIZE_OVERFLOW from an "_upto" query: name the argument. */
void clgpu__append_max_n(uint64_t max_n) {
  clgpu__append_error(" (max_n %llu is too large for this query)", (unsigned long long)max_n);
}

/* The most ranges clgpu__split_range cuts any length into in `shape`
 * before a loop cap asks for more: the tuning's chunks per compute unit
 * (TILED: up to its cap), at least 2. */
static uint64_t most_pieces(const clgpu_context *context, const clgpu__shape *shape) {
  const clgpu__tuning *tuning = context->tuning;
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  uint64_t most;
  if (shape->kind == CLGPU_SHAPE_CHUNKED) {
    most = tuning->chunked_chunks_per_unit * units;
  } else {
    most = tuning->tiled_chunks_per_unit * units;
    if (most > tuning->tiled_chunks_cap) most = tuning->tiled_chunks_cap;
  }
  return most < 2 ? 2 : most;
}

clgpu__split clgpu__split_range(const clgpu_context *context, const clgpu__shape *shape,
                                uint64_t n) {
  const clgpu__tuning *tuning = context->tuning;
  uint64_t unit, minimum, most = most_pieces(context, shape);
  if (shape->kind == CLGPU_SHAPE_CHUNKED) {
    unit = tuning->chunk_unit;
    minimum = tuning->chunk_minimum;
  } else {
    unit = (uint64_t)shape->group * tuning->tile_items;
    minimum = tuning->tiled_minimum_tiles * unit;
  }
  /* Under a loop cap, no work-item walks more than clgpu__loop_limit elements:
   * smaller and more pieces (the same for the size query and the call). */
  uint64_t limit = loop_limit(context);
  if (limit) {
    uint64_t items = shape->kind == CLGPU_SHAPE_CHUNKED ? 1 : shape->group;
    uint64_t per_group = limit * items / unit * unit;
    if (per_group < unit) per_group = unit;
    if (minimum > per_group) minimum = per_group;
    uint64_t needed = clgpu__ceil_div_u64(n, per_group);
    if (most < needed) most = needed;
  }
  clgpu__split result = {1, n, 0};
  if (n <= minimum) return result;
  /* Ceilings that cannot wrap, whatever n. n > minimum makes pieces at
   * least 2, so chunk is at most ceil(n / 2) <= 2^63 and rounding it up to
   * a multiple of the unit (a few thousand at most) cannot wrap either. */
  uint64_t pieces = clgpu__ceil_div_u64(n, minimum);
  if (pieces > most) pieces = most;
  uint64_t chunk = clgpu__ceil_div_u64(n, pieces);
  chunk = clgpu__ceil_div_u64(chunk, unit) * unit;
  result.groups = clgpu__ceil_div_u64(n, chunk);
  result.chunk = chunk;
  result.reserved = pieces;
  return result;
}

/* A cut range's second pass walks its partials in one group. */
clgpu_status clgpu__fit_partials(const clgpu_context *context, const char *who, uint64_t n,
                                 const clgpu__shape *shape, const clgpu__split *split) {
  uint64_t limit = loop_limit(context);
  if (!limit || per_item(shape, split->reserved) <= limit) return CLGPU_SUCCESS;
  return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                     "%s: %llu elements cut into %llu ranges would take the second pass's "
                     "work-items past %llu loop iterations, after which this device (%s) "
                     "silently leaves a work-item's loops (the quirks table's "
                     "loop_iteration_cap)%s",
                     who, (unsigned long long)n, (unsigned long long)split->reserved,
                     (unsigned long long)context->quirks.loop_iteration_cap, context->info.name,
                     shape->kind == CLGPU_SHAPE_CHUNKED
                         ? "; CLGPU_SHAPE_TILED takes more elements per range"
                         : "");
}

int clgpu__split_may_pass(const clgpu_context *context, const clgpu__shape *shape, uint64_t most) {
  return loop_limit(context) || most_pieces(context, shape) > most;
}

void clgpu__split_at_most(uint64_t n, uint64_t most, clgpu__split *split) {
  uint64_t chunk = split->reserved > 0 ? split->chunk : n;
  if (n == 0 || most == 0 || chunk <= most) return;
  split->chunk = most;
  split->groups = clgpu__ceil_div_u64(n, most);
  split->reserved = split->groups;
}
