/* Histograms (histogram.h): checks, plan, enqueueing; the kernels are
 * cl/histogram.cl.
 *
 * The elements are cut into ranges as the reductions cut them
 * (clgpu__split_range), one per group. Each group counts its range in
 * local memory (32-bit counters, bins*4 bytes within half the device's
 * local memory) and writes them as its row of the workspace's "rows"; with
 * more bins the groups add to one row in global memory with 32-bit atomics
 * (a row per group past 2^32 - 1 elements, so that no counter wraps). A
 * last kernel adds each bin's rows into the caller's counts, of their type
 * and at their stride; the counts are written only there, so they may
 * share memory with the input and the edges. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/histogram.h>
#include <clgpu/program.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "half.h"
#include "lease.h"
#include "op_prepare.h"
#include "overflow.h"
#include "program_cache.h"
#include "shape.h"
#include "status_internal.h"
#include "tuning.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

enum { HIST_PACKED_INPUT, HIST_ROWS };

/* How a value finds its bin (cl/histogram.cl's CLGPU_HIST_MODE). */
typedef enum hist_mode {
  HIST_SHIFT = 1,  /* integers, bins of 2^width values */
  HIST_DIVIDE = 2, /* integers, bins of `width` values */
  HIST_MULDIV = 3, /* integers, d * bins / range within W */
  HIST_WIDE = 4,   /* integers, d * bins / range through 128 bits */
  HIST_SCALE = 5,  /* floats */
  HIST_EDGES = 6,
  HIST_MULHI = 7, /* integers, 2^64 values: mul_hi(d, bins) */
} hist_mode;

/* The most groups the sum kernel runs (TILED). */
#define HIST_SUM_GROUPS_CAP 65536

typedef struct hist_plan {
  clgpu__shape shape;
  clgpu_type type;
  uint64_t n, bins;
  hist_mode mode;
  int wide;                                   /* the integer modes compute in ulong (else uint) */
  int all;                                    /* integers: the range is the type's whole range */
  cl_ulong width;                             /* the shift, the bin width or the range */
  unsigned char lower[8], upper[8], scale[8]; /* kernel arguments of type V */
  size_t value_size;                          /* sizeof V */
  int global;                                 /* counts in global rows with atomics */
  int local_edges;                            /* EDGES: the edges copied to local memory */
  int pack;                                   /* the input is copied to "packed_input" first */
  uint64_t groups, chunk, rows, pitch;
  int row_of_group;    /* global: a row per group (else one row) */
  uint64_t sum_groups; /* groups of the sum kernel */
  clgpu_workspace_size report;
} hist_plan;

/* ---- values of the caller's type ---- */

/* An integer value as its 64-bit pattern: sign-extended for signed types
 * (so that differences of two in-order values are exact modulo 2^64). */
static uint64_t integer_bits(clgpu_type type, const void *value) {
  /* Copied out byte-wise: the caller's pointer need not be aligned. */
  int8_t s8;
  int16_t s16;
  int32_t s32;
  int64_t s64;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (type) {
    case CLGPU_TYPE_INT8:
      memcpy(&s8, value, 1);
      return (uint64_t)(int64_t)s8;
    case CLGPU_TYPE_INT16:
      memcpy(&s16, value, 2);
      return (uint64_t)(int64_t)s16;
    case CLGPU_TYPE_INT32:
      memcpy(&s32, value, 4);
      return (uint64_t)(int64_t)s32;
    case CLGPU_TYPE_INT64:
      memcpy(&s64, value, 8);
      return (uint64_t)s64;
    case CLGPU_TYPE_UINT8:
      memcpy(&u8, value, 1);
      return u8;
    case CLGPU_TYPE_UINT16:
      memcpy(&u16, value, 2);
      return u16;
    case CLGPU_TYPE_UINT32:
      memcpy(&u32, value, 4);
      return u32;
    default:
      memcpy(&u64, value, 8);
      return u64;
  }
}

static double float_value(clgpu_type type, const void *value) {
  uint16_t half;
  float single;
  double wide;
  if (type == CLGPU_TYPE_HALF) {
    memcpy(&half, value, 2);
    return clgpu__half_to_double(half);
  }
  if (type == CLGPU_TYPE_FLOAT) {
    memcpy(&single, value, 4);
    return single;
  }
  memcpy(&wide, value, 8);
  return wide;
}

/* The even bins' mode and arguments from the caller's bounds. */
static clgpu_status plan_even(hist_plan *plan, const void *lower, const void *upper,
                              const char *who) {
  CLGPU__RETURN_ERROR_IF(!lower || !upper, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who,
                         !lower ? "lower" : "upper");
  clgpu_type type = plan->type;
  uint64_t bins = plan->bins;
  if (clgpu__type_is_float(type)) {
    double lo = float_value(type, lower), hi = float_value(type, upper);
    CLGPU__RETURN_ERROR_IF(!isfinite(lo) || !isfinite(hi), CLGPU_INVALID_ARGUMENT,
                           "%s: the bounds must be finite (lower %g, upper %g)", who, lo, hi);
    CLGPU__RETURN_ERROR_IF(!(lo < hi), CLGPU_INVALID_ARGUMENT,
                           "%s: lower (%g) must be below upper (%g)", who, lo, hi);
    double range = hi - lo;
    CLGPU__RETURN_ERROR_IF(!isfinite(range), CLGPU_INVALID_ARGUMENT,
                           "%s: upper - lower (%g - %g) is not finite in double", who, hi, lo);
    plan->mode = HIST_SCALE;
    double scale = (double)bins / range;
    CLGPU__RETURN_ERROR_IF(bins > 0 && !isfinite(scale), CLGPU_INVALID_ARGUMENT,
                           "%s: %llu bins over [%g, %g] have a width whose inverse is not finite",
                           who, (unsigned long long)bins, lo, hi);
    if (type == CLGPU_TYPE_DOUBLE) {
      memcpy(plan->lower, &lo, 8);
      memcpy(plan->upper, &hi, 8);
      memcpy(plan->scale, &scale, 8);
    } else {
      float f_lo = (float)lo, f_hi = (float)hi, f_scale = (float)scale;
      CLGPU__RETURN_ERROR_IF(bins > 0 && !isfinite(f_scale), CLGPU_INVALID_ARGUMENT,
                             "%s: %llu bins over [%g, %g] have a width whose inverse float "
                             "cannot hold",
                             who, (unsigned long long)bins, lo, hi);
      memcpy(plan->lower, &f_lo, 4);
      memcpy(plan->upper, &f_hi, 4);
      memcpy(plan->scale, &f_scale, 4);
    }
    return CLGPU_SUCCESS;
  }
  uint64_t lo = integer_bits(type, lower), hi = integer_bits(type, upper);
  int in_order = clgpu__type_is_signed(type) ? (int64_t)lo <= (int64_t)hi : lo <= hi;
  if (!in_order) {
    if (clgpu__type_is_signed(type)) {
      return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: lower (%lld) is above upper (%lld)", who,
                         (long long)(int64_t)lo, (long long)(int64_t)hi);
    }
    return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: lower (%llu) is above upper (%llu)", who,
                       (unsigned long long)lo, (unsigned long long)hi);
  }
  size_t size = clgpu__type_size(type);
  memcpy(plan->lower, lower, size);
  memcpy(plan->upper, upper, size);
  /* The number of values from lower to upper, less one (so that 2^64
   * fits); the differences d of values in range are at most it. */
  uint64_t last = hi - lo;
  uint64_t product = 0;
  plan->all = size < 8 ? last == ((uint64_t)1 << (8 * size)) - 1 : last == UINT64_MAX;
  if (bins == 0) {
    plan->mode = HIST_DIVIDE; /* nothing is counted */
    plan->width = 1;
    plan->wide = 1;
  } else if (last == UINT64_MAX) {
    plan->mode = HIST_MULHI; /* floor(d * bins / 2^64) */
    plan->wide = 1;
  } else if ((last + 1) % bins == 0) {
    uint64_t range = last + 1, width = range / bins;
    int shift = 0;
    while (shift < 63 && ((uint64_t)1 << shift) < width) shift++;
    if (((uint64_t)1 << shift) == width) {
      plan->mode = HIST_SHIFT;
      plan->width = (cl_ulong)shift;
      plan->wide = last > UINT32_MAX || shift >= 32;
    } else {
      plan->mode = HIST_DIVIDE;
      plan->width = width;
      plan->wide = last > UINT32_MAX;
    }
  } else if (clgpu__mul_u64(last, bins, &product)) {
    plan->mode = HIST_MULDIV;
    plan->width = last + 1;
    plan->wide = product > UINT32_MAX || last + 1 > UINT32_MAX;
  } else {
    plan->mode = HIST_WIDE;
    plan->width = last + 1;
    plan->wide = 1;
  }
  return CLGPU_SUCCESS;
}

/* ---- the plan ---- */

/* The loop iterations a work-item spends per element it counts. */
static uint64_t count_cost(const hist_plan *plan) {
  if (plan->mode == HIST_WIDE) return 66;
  if (plan->mode != HIST_EDGES) return 1;
  uint64_t steps = 0;
  while (steps < 64 && ((uint64_t)1 << steps) < plan->bins) steps++;
  return 2 + steps;
}

/* Counters past the bins in each CHUNKED row (for elements outside every
 * bin). */
#define HIST_SPARE 16

/* Where a plan counts: rows of their own per group (TILED: counted in
 * local memory, bins * 4 bytes within half the device's; CHUNKED: in
 * global memory) or one shared row with global atomics (*global), and
 * whether EDGES copies the edges to local memory (CHUNKED shares a row
 * once the bins are more than four times the elements). Under a loop cap, the
 * zeroing and writing of a row, and the copy of the edges, take at most a
 * sixteenth of it. Monotone in `bins`: a larger count never leaves the
 * global regime or enters the local edges. */
static void decide(const clgpu_context *context, const clgpu__shape *shape, hist_mode mode,
                   uint64_t n, uint64_t bins, size_t value_size, int *global, int *local_edges) {
  uint64_t cap = context->quirks.loop_iteration_cap;
  int tiled = shape->kind == CLGPU_SHAPE_TILED;
  uint64_t items = tiled ? shape->group : 1;
  uint64_t budget = context->info.local_mem_size / 2;
  uint64_t per_item_bins = clgpu__ceil_div_u64(bins, items);
  /* A CHUNKED row per group costs its zeroing and adding, a few cycles per
   * bin; an atomic, tens of cycles per element. */
  *global =
      (tiled ? bins > budget / 4 : bins / 4 > n) || (cap && per_item_bins + HIST_SPARE > cap / 16);
  *local_edges = mode == HIST_EDGES && !*global &&
                 (bins + 1) * (value_size + (tiled ? 4 : 0)) <= budget &&
                 (!cap || per_item_bins + 2 <= cap / 16);
}

/* Where the counts go, the ranges and the rows; the report. */
static clgpu_status lay_out(const clgpu_context *context, hist_plan *plan, const char *who) {
  const clgpu__tuning *tuning = context->tuning;
  uint64_t cap = context->quirks.loop_iteration_cap;
  int tiled = plan->shape.kind == CLGPU_SHAPE_TILED;
  uint64_t items = tiled ? plan->shape.group : 1;
  uint64_t unit = tiled ? items * tuning->tile_items : tuning->chunk_unit;
  uint64_t bins = plan->bins, n = plan->n;
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  decide(context, &plan->shape, plan->mode, n, bins, plan->value_size, &plan->global,
         &plan->local_edges);
  uint64_t per_item_bins = clgpu__ceil_div_u64(bins, items);
  uint64_t fixed = 0;
  if (cap) {
    if (!plan->global) fixed += 2 * (per_item_bins + HIST_SPARE);
    if (plan->local_edges) fixed += per_item_bins + 2;
  }
  clgpu__split split = clgpu__split_range(context, &plan->shape, n);
  uint64_t groups = n ? split.groups : 0, chunk = split.chunk;
  /* Local rows: no more of them than keep their bins within a quarter of
   * the elements, but a group per compute unit. */
  if (!plan->global && groups > 1 && bins > 0) {
    uint64_t most = n / 4 / bins;
    if (most < units) most = units;
    if (groups > most) {
      chunk = clgpu__ceil_div_u64(clgpu__ceil_div_u64(n, most), unit) * unit;
      groups = clgpu__ceil_div_u64(n, chunk);
    }
  }
  /* No counter of a row passes 2^32 - 1. */
  uint64_t longest = UINT32_MAX / unit * unit;
  if (chunk > longest) {
    chunk = longest;
    groups = clgpu__ceil_div_u64(n, chunk);
  }
  if (cap && n > 0) {
    uint64_t per_item = cap > fixed + 2 ? (cap - fixed - 2) / count_cost(plan) : 1;
    uint64_t fits = per_item * items;
    if (tiled) fits = fits / items * items;
    if (fits < items) fits = items;
    if (chunk > fits) {
      chunk = fits;
      groups = clgpu__ceil_div_u64(n, chunk);
    }
  }
  plan->groups = groups;
  plan->chunk = chunk;
  plan->pitch = !plan->global && !tiled ? bins + HIST_SPARE : bins;
  if (plan->global) {
    plan->row_of_group = n > UINT32_MAX;
    plan->rows = n == 0 ? 0 : plan->row_of_group ? groups : 1;
  } else {
    plan->rows = groups;
  }
  /* The sum: a group of items per bin on TILED, a few items per compute
   * unit on CHUNKED; under a loop cap, enough items that none adds more
   * than the cap's rows. */
  uint64_t wanted = tiled ? clgpu__ceil_div_u64(bins, items) : units * 2;
  if (wanted > HIST_SUM_GROUPS_CAP) wanted = HIST_SUM_GROUPS_CAP;
  if (!tiled && wanted > bins) wanted = bins;
  if (wanted == 0) wanted = 1;
  if (cap) {
    CLGPU__RETURN_ERROR_IF(plan->rows + 2 > cap, CLGPU_UNSUPPORTED_FEATURE,
                           "%s: %llu rows of counts to add pass the device's loop cap of %llu "
                           "iterations per work-item (docs/quirks.md)",
                           who, (unsigned long long)plan->rows, (unsigned long long)cap);
    uint64_t per_item = cap / (plan->rows + 1);
    uint64_t needed = clgpu__ceil_div_u64(clgpu__ceil_div_u64(bins, per_item), items);
    if (wanted < needed) wanted = needed;
  }
  plan->sum_groups = wanted;
  uint64_t row_counts = 0;
  CLGPU__RETURN_ERROR_IF(!clgpu__mul_u64(plan->rows, plan->pitch, &row_counts), CLGPU_SIZE_OVERFLOW,
                         "%s: %llu rows of %llu bins cannot be counted in 64 bits", who,
                         (unsigned long long)plan->rows, (unsigned long long)bins);
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_HISTOGRAM, plan->shape.kind,
                                     CLGPU_ALGORITHM_AUTO, -1);
  clgpu__report_buffer(report, part, "packed_input", plan->type, plan->pack ? n : 0);
  clgpu__report_buffer(report, part, "rows", CLGPU_TYPE_UINT32, row_counts);
  clgpu_status status = clgpu__report_finish(report, context, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%llu elements, %llu bins)", (unsigned long long)n,
                        (unsigned long long)bins);
  }
  return status;
}

/* The counts: 1-D, uint (at most 2^32 - 1 elements counted) or ulong. */
static clgpu_status check_counts(const clgpu_context *context, const clgpu_array *counts,
                                 uint64_t n, const char *who) {
  CLGPU__RETURN_ERROR_IF(!counts, CLGPU_INVALID_ARGUMENT, "%s: counts is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(counts, who, "counts"));
  CLGPU__RETURN_ERROR_IF(
      counts->type != CLGPU_TYPE_UINT32 && counts->type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
      "%s: the counts must be uint or ulong (CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64), not %s", who,
      clgpu__type_cl_name(counts->type));
  CLGPU__RETURN_ERROR_IF(counts->type == CLGPU_TYPE_UINT32 && n > UINT32_MAX, CLGPU_TYPE_MISMATCH,
                         "%s: uint counts cannot count %llu elements (more than 2^32 - 1): use "
                         "CLGPU_TYPE_UINT64",
                         who, (unsigned long long)n);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(counts, who, "counts"));
  return clgpu__check_buffer(context, counts->buffer, who, "counts", 1);
}

/* The input's type: any built-in type (half as storage, double where the
 * device has fp64). */
static clgpu_status check_type(const clgpu_context *context, clgpu_type type, const char *who) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(type, who, "the input"));
  CLGPU__RETURN_ERROR_IF(
      type == CLGPU_TYPE_DOUBLE && !context->info.has_fp64, CLGPU_UNSUPPORTED_FEATURE,
      "%s: double input needs cl_khr_fp64, which the device does not report", who);
  return CLGPU_SUCCESS;
}

/* Checks and plans a call (input given: even bins from lower and upper,
 * or edges) or an "_upto" query's candidate (input NULL). */
static clgpu_status plan_hist(clgpu_context *context, const clgpu_array *counts,
                              const clgpu_array *input, const void *lower, const void *upper,
                              const clgpu_array *edges, int use_edges, clgpu_type type, uint64_t n,
                              uint64_t bins, const clgpu_call_options *options, const char *who,
                              hist_plan *plan) {
  memset(plan, 0, sizeof *plan);
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__shape_resolve(context, options, who, &plan->shape));
  CLGPU__FORWARD_IF_ERROR(check_type(context, type, who));
  plan->type = type;
  plan->n = n;
  plan->bins = bins;
  plan->value_size = type == CLGPU_TYPE_HALF ? 4 : clgpu__type_size(type);
  if (input) {
    CLGPU__FORWARD_IF_ERROR(check_counts(context, counts, n, who));
    plan->pack = input->rank > 1 && !clgpu__array_is_contiguous(input) && n > 0;
  }
  if (use_edges) {
    plan->mode = HIST_EDGES;
    if (input) {
      CLGPU__RETURN_ERROR_IF(!edges, CLGPU_INVALID_ARGUMENT, "%s: edges is NULL", who);
      CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(edges, who, "edges"));
      CLGPU__RETURN_ERROR_IF(edges->type != type, CLGPU_TYPE_MISMATCH,
                             "%s: the edges hold %s, the input %s (the same type)", who,
                             clgpu__type_cl_name(edges->type), clgpu__type_cl_name(type));
      CLGPU__RETURN_ERROR_IF(edges->shape[0] != bins + 1, CLGPU_SHAPE_MISMATCH,
                             "%s: %llu bins need %llu edges, not %zu", who,
                             (unsigned long long)bins, (unsigned long long)bins + 1,
                             edges->shape[0]);
      CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, edges->buffer, who, "edges", 0));
    }
  } else if (input) {
    CLGPU__FORWARD_IF_ERROR(plan_even(plan, lower, upper, who));
  } else {
    plan->mode = HIST_SHIFT;
  }
  return lay_out(context, plan, who);
}

/* ---- the run ---- */

static clgpu_status hist_program(clgpu_context *context, const hist_plan *plan, int strided,
                                 clgpu_type count_type, clgpu_program **out) {
  char group[24], mode[8];
  snprintf(group, sizeof group, "%zu", plan->shape.group);
  snprintf(mode, sizeof mode, "%d", (int)plan->mode);
  int half = plan->type == CLGPU_TYPE_HALF;
  const char *name = clgpu__type_cl_name(plan->type);
  clgpu_define defines[16];
  size_t count = 0;
  defines[count++] = (clgpu_define){"CLGPU_GROUP", group};
  defines[count++] = (clgpu_define){"CLGPU_HIST_T", name};
  defines[count++] = (clgpu_define){"CLGPU_HIST_V", half ? "float" : name};
  defines[count++] = (clgpu_define){"CLGPU_HIST_MODE", mode};
  defines[count++] = (clgpu_define){"CLGPU_HIST_W", plan->wide ? "ulong" : "uint"};
  defines[count++] = (clgpu_define){"CLGPU_HIST_COUNT_T", clgpu__type_cl_name(count_type)};
  if (half) defines[count++] = (clgpu_define){"CLGPU_HIST_HALF", NULL};
  uint64_t small = plan->type == CLGPU_TYPE_DOUBLE ? (uint64_t)1 << 31 : (uint64_t)1 << 24;
  if (plan->mode == HIST_SCALE && plan->bins <= small) {
    defines[count++] = (clgpu_define){"CLGPU_HIST_SMALL", NULL};
  }
  if (!clgpu__type_is_float(plan->type)) {
    defines[count++] =
        (clgpu_define){"CLGPU_HIST_D", clgpu__type_size(plan->type) == 8 ? "ulong" : "uint"};
    if (plan->all) defines[count++] = (clgpu_define){"CLGPU_HIST_ALL", NULL};
    /* 4-byte integers binned in uint arithmetic: the CHUNKED loop may bin
     * four at once as uint4. */
    if (clgpu__type_size(plan->type) == 4 && !plan->wide &&
        (plan->mode == HIST_SHIFT || plan->mode == HIST_DIVIDE || plan->mode == HIST_MULDIV)) {
      defines[count++] = (clgpu_define){"CLGPU_HIST_WORDS", NULL};
    }
  }
  if (plan->type == CLGPU_TYPE_DOUBLE) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
  if (plan->global) defines[count++] = (clgpu_define){"CLGPU_HIST_GLOBAL", NULL};
  if (plan->local_edges) defines[count++] = (clgpu_define){"CLGPU_HIST_LOCAL_EDGES", NULL};
  if (strided) defines[count++] = (clgpu_define){"CLGPU_HIST_STRIDED", NULL};
  return clgpu__program_get_named(context, "histogram", defines, count, NULL, out);
}

#define HIST_ARG_COUNT (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(9) | CLGPU__BUFFER_ARG(13))
#define HIST_ARG_ZERO CLGPU__BUFFER_ARG(0)
#define HIST_ARG_SUM (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(5))

static clgpu_status run_hist(clgpu_context *context, const hist_plan *plan,
                             const clgpu_array *counts, const clgpu_array *input,
                             const clgpu_array *edges, const clgpu_call_options *options,
                             cl_uint num_events, const cl_event *wait_list, cl_event *event,
                             const char *who) {
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  /* The workspace is checked even when there is nothing to count. */
  clgpu__argument arguments[] = {{counts, "counts"}, {input, "input"}, {edges, "edges"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu_status ordered = clgpu__scratch_order(context, &scratch, &chain);
  if (ordered != CLGPU_SUCCESS) {
    clgpu__scratch_release(context, &scratch);
    return ordered;
  }
  if (plan->bins == 0) {
    clgpu__scratch_release(context, &scratch);
    return clgpu__chain_end(context, &chain, event);
  }
  clgpu__leases held = {{0}, {0}, {0}, 0};
  clgpu__place in_place, counts_place, edges_place;
  cl_long step = 1, edges_step = 1, counts_step = counts->strides[0];
  clgpu_status status = clgpu__input_place(context, &chain, &scratch, HIST_PACKED_INPUT, plan->pack,
                                           input, &in_place, who);
  if (status == CLGPU_SUCCESS && !plan->pack && input->rank == 1) step = input->strides[0];
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(counts, &counts_place);
  edges_place = in_place;
  if (status == CLGPU_SUCCESS && edges) {
    status = clgpu__place_of(edges, &edges_place);
    edges_step = edges->strides[0];
  }
  clgpu_program *program = NULL;
  cl_kernel count_kernel = NULL, zero_kernel = NULL, sum_kernel = NULL;
  if (status == CLGPU_SUCCESS)
    status = hist_program(context, plan, step != 1, counts->type, &program);
  if (status == CLGPU_SUCCESS && plan->groups > 0) {
    status = clgpu__lease(&held, program, "clgpu_histogram_count", HIST_ARG_COUNT, &count_kernel);
  }
  if (status == CLGPU_SUCCESS && plan->global && plan->groups > 0) {
    status = clgpu__lease(&held, program, "clgpu_histogram_zero", HIST_ARG_ZERO, &zero_kernel);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(&held, program, "clgpu_histogram_sum", HIST_ARG_SUM, &sum_kernel);
  }
  clgpu__place rows = plan->rows > 0 ? clgpu__scratch_place(&scratch, HIST_ROWS) : counts_place;
  size_t group = plan->shape.group;
  cl_ulong bins = plan->bins, pitch = plan->pitch, row_counts = plan->rows * plan->pitch;
  if (status == CLGPU_SUCCESS && zero_kernel) {
    clgpu__kernel_arg args[] = {ARG(rows.buffer), ARG(rows.offset), ARG(row_counts)};
    status = clgpu__set_args(zero_kernel, 0, args, 3, "clgpu_histogram_zero");
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu__chain_kernel(context, &chain, zero_kernel,
                              clgpu__global_size(clgpu__ceil_div_u64(row_counts, group), group),
                              group, "clEnqueueNDRangeKernel(clgpu_histogram_zero)");
    }
  }
  if (status == CLGPU_SUCCESS && count_kernel) {
    cl_ulong n = plan->n, chunk = plan->chunk, width = plan->width;
    cl_uint narrow = (cl_uint)plan->width;
    cl_int row_of_group = plan->row_of_group;
    int tiled_local = !plan->global && plan->shape.kind == CLGPU_SHAPE_TILED;
    size_t v = plan->value_size;
    clgpu__kernel_arg args[] = {
        ARG(in_place.buffer),
        ARG(in_place.offset),
        ARG(step),
        ARG(n),
        ARG(chunk),
        {v, plan->lower},
        {v, plan->upper},
        {v, plan->scale},
        plan->wide ? (clgpu__kernel_arg)ARG(width) : (clgpu__kernel_arg)ARG(narrow),
        ARG(edges_place.buffer),
        ARG(edges_place.offset),
        ARG(edges_step),
        ARG(bins),
        ARG(rows.buffer),
        ARG(rows.offset),
        ARG(pitch),
        ARG(row_of_group),
        {tiled_local ? (size_t)bins * 4 : 4, NULL},
        {plan->local_edges ? (size_t)(bins + 1) * v : v, NULL}};
    status = clgpu__set_args(count_kernel, 0, args, 19, "clgpu_histogram_count");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, count_kernel,
                                   clgpu__global_size(plan->groups, group), group,
                                   "clEnqueueNDRangeKernel(clgpu_histogram_count)");
    }
  }
  if (status == CLGPU_SUCCESS) {
    cl_ulong num_rows = plan->rows;
    clgpu__kernel_arg args[] = {
        ARG(rows.buffer),         ARG(rows.offset),         ARG(num_rows),   ARG(pitch), ARG(bins),
        ARG(counts_place.buffer), ARG(counts_place.offset), ARG(counts_step)};
    status = clgpu__set_args(sum_kernel, 0, args, 8, "clgpu_histogram_sum");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, sum_kernel,
                                   clgpu__global_size(plan->sum_groups, group), group,
                                   "clEnqueueNDRangeKernel(clgpu_histogram_sum)");
    }
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

/* Every entry point: the checks, the plan, then the report into `query`
 * when it is not NULL, else the run. */
static clgpu_status hist_entry(clgpu_context *context, const clgpu_array *counts,
                               const clgpu_array *input, const void *lower, const void *upper,
                               const clgpu_array *edges, int use_edges,
                               const clgpu_call_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event,
                               clgpu_workspace_size *query, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  CLGPU__RETURN_ERROR_IF(!input, CLGPU_INVALID_ARGUMENT, "%s: input is NULL", who);
  CLGPU__RETURN_ERROR_IF(!counts, CLGPU_INVALID_ARGUMENT, "%s: counts is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(input, who, "input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, input->buffer, who, "input", 0));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(counts, who, "counts"));
  hist_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_hist(context, counts, input, lower, upper, edges, use_edges,
                                    input->type, clgpu__array_count(input), counts->shape[0],
                                    options, who, &plan));
  if (query) {
    *query = plan.report;
    return CLGPU_SUCCESS;
  }
  clgpu__queue_scope previous;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__queue_enter(context, options ? options->queue : NULL, who, &previous));
  clgpu_status status = run_hist(context, &plan, counts, input, use_edges ? edges : NULL, options,
                                 num_events, wait_list, event, who);
  clgpu__queue_leave(&previous);
  return status;
}

clgpu_status clgpu_histogram_even(clgpu_context *context, const void *lower, const void *upper,
                                  const clgpu_array *counts, const clgpu_array *input,
                                  const clgpu_call_options *options, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event) {
  return hist_entry(context, counts, input, lower, upper, NULL, 0, options, num_events, wait_list,
                    event, NULL, "clgpu_histogram_even");
}

clgpu_status clgpu_histogram_edges(clgpu_context *context, const clgpu_array *counts,
                                   const clgpu_array *input, const clgpu_array *edges,
                                   const clgpu_call_options *options, cl_uint num_events,
                                   const cl_event *wait_list, cl_event *event) {
  return hist_entry(context, counts, input, NULL, NULL, edges, 1, options, num_events, wait_list,
                    event, NULL, "clgpu_histogram_edges");
}

clgpu_status clgpu_histogram_even_workspace_size(clgpu_context *context, const void *lower,
                                                 const void *upper, const clgpu_array *counts,
                                                 const clgpu_array *input,
                                                 const clgpu_call_options *options,
                                                 clgpu_workspace_size *out) {
  const char *who = "clgpu_histogram_even_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return hist_entry(context, counts, input, lower, upper, NULL, 0, options, 0, NULL, NULL, out,
                    who);
}

clgpu_status clgpu_histogram_edges_workspace_size(clgpu_context *context, const clgpu_array *counts,
                                                  const clgpu_array *input,
                                                  const clgpu_array *edges,
                                                  const clgpu_call_options *options,
                                                  clgpu_workspace_size *out) {
  const char *who = "clgpu_histogram_edges_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return hist_entry(context, counts, input, NULL, NULL, edges, 1, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu__histogram_prepare(clgpu_context *context, clgpu_type type, const void *lower,
                                      const void *upper, uint64_t bins, clgpu_type count_type,
                                      uint64_t max_n, const clgpu_call_options *options,
                                      const char *who) {
  CLGPU__RETURN_ERROR_IF(count_type != CLGPU_TYPE_UINT32 && count_type != CLGPU_TYPE_UINT64,
                         CLGPU_TYPE_MISMATCH, "%s: counts are uint or ulong, not %s", who,
                         clgpu__type_cl_name(count_type));
  CLGPU__RETURN_ERROR_IF(bins == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: no bins (a call with none runs no kernel)", who);
  CLGPU__RETURN_ERROR_IF(!lower != !upper, CLGPU_INVALID_ARGUMENT,
                         "%s: lower and upper are both given (even bins) or both NULL (edges)",
                         who);
  if (max_n == 0) max_n = (uint64_t)1 << 32;
  hist_plan plan;
  int use_edges = !lower;
  CLGPU__FORWARD_IF_ERROR(plan_hist(context, NULL, NULL, NULL, NULL, NULL, use_edges, type, 1, bins,
                                    options, who, &plan));
  if (!use_edges) CLGPU__FORWARD_IF_ERROR(plan_even(&plan, lower, upper, who));
  /* The program depends on the count only through where it counts
   * (decide(): small inputs take the shared row), so the choices at 0, 1
   * and max_n elements meet every program; the rows a count needs (which a
   * loop cap may refuse at the call) do not matter here. */
  const uint64_t counts[3] = {0, 1, max_n};
  clgpu_status status = CLGPU_SUCCESS;
  for (int c = 0; c < 3 && status == CLGPU_SUCCESS; c++) {
    decide(context, &plan.shape, plan.mode, counts[c], bins, plan.value_size, &plan.global,
           &plan.local_edges);
    clgpu_program *program = NULL;
    status = hist_program(context, &plan, 0, count_type, &program);
  }
  return status;
}

/* The largest bin count up to max_bins of each regime of decide() (own
 * rows with local edges, own rows, one shared row): within a regime the
 * rows grow with the bins, so the largest of each bounds it. decide() is
 * monotone in the bins, so each boundary is found by bisection. */
static uint64_t regime_end(const clgpu_context *context, const clgpu__shape *shape, hist_mode mode,
                           size_t value_size, uint64_t n, uint64_t max_bins, int which) {
  uint64_t lo = 0, hi = max_bins; /* the largest in the regime is in [lo, hi] */
  int global = 0, local_edges = 0;
  decide(context, shape, mode, n, 0, value_size, &global, &local_edges);
  if ((which == 0 && !local_edges) || (which == 1 && global)) return 0;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    decide(context, shape, mode, n, mid, value_size, &global, &local_edges);
    int inside = which == 0 ? local_edges : !global;
    if (inside) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

clgpu_status clgpu_histogram_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                 uint64_t max_n, uint64_t max_bins,
                                                 const clgpu_call_options *options,
                                                 clgpu_workspace_size *out) {
  const char *who = "clgpu_histogram_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  /* Every mode's plan at each regime's largest bin count; the report
   * takes each buffer's largest. */
  static const hist_mode modes[] = {HIST_SHIFT, HIST_WIDE, HIST_EDGES};
  clgpu_workspace_size best;
  int have = 0;
  for (int m = 0; m < 3; m++) {
    hist_plan plan;
    clgpu_status status = plan_hist(context, NULL, NULL, NULL, NULL, NULL, modes[m] == HIST_EDGES,
                                    type, max_n, max_bins, options, who, &plan);
    if (status != CLGPU_SUCCESS) {
      clgpu__append_max_n(max_n);
      return status;
    }
    uint64_t candidates[3] = {
        max_bins, regime_end(context, &plan.shape, modes[m], plan.value_size, max_n, max_bins, 1),
        regime_end(context, &plan.shape, modes[m], plan.value_size, max_n, max_bins, 0)};
    for (int c = 0; c < 3; c++) {
      memset(&plan.report, 0, sizeof plan.report);
      plan.bins = candidates[c];
      plan.mode = modes[m];
      status = lay_out(context, &plan, who);
      if (status != CLGPU_SUCCESS) {
        clgpu__append_max_n(max_n);
        return status;
      }
      if (!have || plan.report.total_bytes > best.total_bytes) best = plan.report;
      have = 1;
    }
  }
  *out = best;
  return CLGPU_SUCCESS;
}
