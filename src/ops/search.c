/* Lower and upper bounds (search.h): checks, plan, enqueueing. The order
 * and the program are sort.c's (sort_search.h); the kernels are the search
 * section of cl/sort.cl.
 *
 * CHUNKED: the needles are cut into at most four chunks per compute unit,
 * one per work-item. TILED: a needle per work-item, groups of the order's
 * group size, at most 65536 groups (each work-item then takes every
 * stride-th needle). On a device with a loop cap (quirks.c) the chunks are
 * bounded so that no work-item's loops pass it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/search.h>
#include <clgpu/sort.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "lease.h"
#include "overflow.h"
#include "sort_search.h"
#include "status_internal.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

enum { SEARCH_STAGED_NEEDLES, SEARCH_STAGED_HAYSTACK, SEARCH_PACKED_POSITIONS };

/* The most TILED groups a search launches. */
#define TILED_GROUPS_CAP 65536

typedef struct search_plan {
  clgpu__search_order order;
  uint64_t n; /* haystack keys */
  uint64_t m; /* needles */
  int stage_needles, stage_haystack, pack_positions;
  int wide;       /* 64-bit positions */
  uint64_t chunk; /* CHUNKED: needles per work-item */
  uint64_t groups;
  clgpu_workspace_size report;
} search_plan;

/* Halving steps of a search over n keys, and one more. */
static uint64_t search_levels(uint64_t n) {
  uint64_t levels = 1;
  while (n > 0) {
    levels++;
    n >>= 1;
  }
  return levels;
}

/* Ranges and the report from n, m and the staging decided. */
static clgpu_status lay_out(const clgpu_context *context, search_plan *plan, const char *who) {
  uint64_t n = plan->n, m = plan->m;
  uint64_t cap = context->quirks.loop_iteration_cap;
  uint64_t levels = search_levels(n);
  if (plan->order.shape == CLGPU_SHAPE_CHUNKED) {
    uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
    uint64_t pieces = clgpu__ceil_div_u64(m, 256);
    if (pieces > 4 * units) pieces = 4 * units;
    /* Under a loop cap: per needle, the in-order test, the steps from the
     * previous bound and the halving after them (2 * levels), with room
     * for the lanes' inner loop; half the cap in all. */
    uint64_t per_needle = 2 * levels + 8;
    if (cap && cap / 2 < per_needle) {
      return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                         "%s: a search of a haystack of %llu keys needs %llu loop iterations "
                         "per needle, more than %s allows a work-item (the quirks table's "
                         "loop_iteration_cap %llu)",
                         who, (unsigned long long)n, (unsigned long long)per_needle,
                         context->info.name, (unsigned long long)cap);
    }
    if (cap && pieces < clgpu__ceil_div_u64(m, cap / 2 / per_needle)) {
      pieces = clgpu__ceil_div_u64(m, cap / 2 / per_needle);
    }
    if (pieces < 1) pieces = 1;
    plan->chunk = clgpu__ceil_div_u64(m, pieces);
    if (plan->chunk < 1) plan->chunk = 1;
    plan->groups = clgpu__ceil_div_u64(m, plan->chunk);
  } else {
    uint64_t group = plan->order.group;
    plan->groups = clgpu__ceil_div_u64(m, group);
    if (plan->groups > TILED_GROUPS_CAP) plan->groups = TILED_GROUPS_CAP;
    plan->chunk = 1;
    uint64_t per_item = plan->groups > 0 ? clgpu__ceil_div_u64(m, plan->groups * group) : 0;
    CLGPU__RETURN_ERROR_IF(cap && per_item * (levels + 2) > cap / 2, CLGPU_UNSUPPORTED_FEATURE,
                           "%s: a tiled search of %llu needles in %llu keys needs %llu loop "
                           "iterations per work-item, more than %s allows (the quirks "
                           "table's loop_iteration_cap %llu); the chunked shape cuts finer",
                           who, (unsigned long long)m, (unsigned long long)n,
                           (unsigned long long)(per_item * (levels + 2)), context->info.name,
                           (unsigned long long)cap);
  }
  if (plan->groups < 1) plan->groups = 1;
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_SEARCH, plan->order.shape,
                                     CLGPU_ALGORITHM_AUTO, -1);
  /* Only built-in keys are staged (custom keys must be contiguous). */
  clgpu_type key_type = plan->order.builtin ? plan->order.key_type : CLGPU_TYPE_UINT8;
  clgpu__report_buffer(report, part, "staged_needles", key_type, plan->stage_needles ? m : 0);
  clgpu__report_buffer(report, part, "staged_haystack", key_type, plan->stage_haystack ? n : 0);
  /* Packed positions in bytes (4 or 8 per needle), so that a report does
   * not depend on the positions' type and the _upto query, which has none,
   * agrees with every call it serves. */
  uint64_t position_bytes = 0;
  CLGPU__RETURN_ERROR_IF(
      plan->pack_positions && !clgpu__mul_u64(m, plan->wide ? 8 : 4, &position_bytes),
      CLGPU_SIZE_OVERFLOW, "%s: the positions of %llu needles are more bytes than 64 bits count",
      who, (unsigned long long)m);
  clgpu__report_buffer(report, part, "packed_positions", CLGPU_TYPE_UINT8, position_bytes);
  return clgpu__report_finish(report, context, who);
}

/* The checks of a call's views; the plan's counts, staging and packing. */
static clgpu_status check_views(clgpu_context *context, const clgpu_array *positions,
                                const clgpu_array *needles, const clgpu_array *haystack,
                                const char *who, search_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(needles, who, "needles"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(haystack, who, "haystack"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(positions, who, "positions"));
  const clgpu__search_order *order = &plan->order;
  CLGPU__RETURN_ERROR_IF(order->builtin && needles->type != haystack->type, CLGPU_TYPE_MISMATCH,
                         "%s: the needles hold %s and the haystack %s", who,
                         clgpu__type_cl_name(needles->type), clgpu__type_cl_name(haystack->type));
  CLGPU__FORWARD_IF_ERROR(
      clgpu__search_keys(context, order, needles, who, "needles", &plan->m, &plan->stage_needles));
  CLGPU__FORWARD_IF_ERROR(clgpu__search_keys(context, order, haystack, who, "haystack", &plan->n,
                                             &plan->stage_haystack));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(positions->type, plan->n, who, "positions"));
  CLGPU__RETURN_ERROR_IF(positions->shape[0] != plan->m, CLGPU_SHAPE_MISMATCH,
                         "%s: the positions have %zu elements for %llu needles", who,
                         positions->shape[0], (unsigned long long)plan->m);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(positions, who, "positions"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, positions->buffer, who, "positions", 1));
  plan->wide = positions->type == CLGPU_TYPE_UINT64;
  plan->stage_needles = plan->stage_needles && plan->m > 0;
  plan->stage_haystack = plan->stage_haystack && plan->n > 0 && plan->m > 0;
  plan->pack_positions = plan->m > 0 && (!clgpu__array_is_contiguous(positions) ||
                                         clgpu__may_alias(positions, needles) ||
                                         clgpu__may_alias(positions, haystack));
  return CLGPU_SUCCESS;
}

static clgpu_status plan_search(clgpu_context *context, const clgpu_sort_spec *spec,
                                const clgpu_array *positions, const clgpu_array *needles,
                                const clgpu_array *haystack, const clgpu_call_options *options,
                                const char *who, search_plan *plan) {
  memset(plan, 0, sizeof *plan);
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!positions, CLGPU_INVALID_ARGUMENT, "%s: positions is NULL", who);
  CLGPU__RETURN_ERROR_IF(!needles, CLGPU_INVALID_ARGUMENT, "%s: needles is NULL", who);
  CLGPU__RETURN_ERROR_IF(!haystack, CLGPU_INVALID_ARGUMENT, "%s: haystack is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(needles, who, "needles"));
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
  }
  clgpu_shape shape = options ? options->shape : CLGPU_SHAPE_AUTO;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__search_resolve(context, spec, shape, needles->type, who, &plan->order));
  CLGPU__FORWARD_IF_ERROR(check_views(context, positions, needles, haystack, who, plan));
  return lay_out(context, plan, who);
}

/* A place's element offset in bytes (the search kernels address bytes, as
 * custom keys have no element type of their own). */
static cl_ulong byte_offset(clgpu__place place, const clgpu_array *view) {
  return place.offset * clgpu__type_size(view->type);
}

static clgpu_status run_search(clgpu_context *context, const search_plan *plan, int upper,
                               const clgpu_array *positions, const clgpu_array *needles,
                               const clgpu_array *haystack, const clgpu_call_options *options,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event,
                               const char *who) {
  clgpu__argument arguments[] = {
      {needles, "needles"}, {haystack, "haystack"}, {positions, "positions"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  /* The program first, whatever the number of needles: building it is what
   * checks custom keys' key_size against the device (as clgpu_sort does
   * for any n), so a call without needles refuses a wrong one too. */
  const char *name = upper ? "clgpu_upper_bound" : "clgpu_lower_bound";
  clgpu_program *program = NULL;
  cl_kernel kernel = NULL;
  clgpu_status status = clgpu__scratch_order(context, &scratch, &chain);
  if (status == CLGPU_SUCCESS) status = clgpu__search_program(context, &plan->order, who, &program);
  if (status == CLGPU_SUCCESS && plan->m == 0) {
    return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
  }
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu__lease(&held, program, name,
                     CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(3) | CLGPU__BUFFER_ARG(6), &kernel);
  }
  clgpu__place from_needles = {0}, from_haystack = {0}, to = {0};
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, SEARCH_STAGED_NEEDLES,
                                plan->stage_needles, needles, &from_needles, who);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, SEARCH_STAGED_HAYSTACK,
                                plan->stage_haystack, haystack, &from_haystack, who);
  }
  clgpu_array packed;
  const clgpu_array *target = positions;
  if (status == CLGPU_SUCCESS && plan->pack_positions) {
    status = clgpu__scratch_view(&scratch, SEARCH_PACKED_POSITIONS, positions->type, 1,
                                 positions->shape, &packed);
    target = &packed;
  }
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(target, &to);
  if (status == CLGPU_SUCCESS) {
    /* An empty haystack is never read: any buffer stands in for it. */
    cl_mem haystack_buffer = plan->n > 0 ? from_haystack.buffer : from_needles.buffer;
    cl_ulong haystack_at = byte_offset(from_haystack, haystack), n = plan->n;
    cl_ulong needles_at = byte_offset(from_needles, needles), m = plan->m;
    cl_ulong positions_at = byte_offset(to, target), chunk = plan->chunk;
    cl_int wide = plan->wide;
    clgpu__kernel_arg args[] = {ARG(haystack_buffer),
                                ARG(haystack_at),
                                ARG(n),
                                ARG(from_needles.buffer),
                                ARG(needles_at),
                                ARG(m),
                                ARG(to.buffer),
                                ARG(positions_at),
                                ARG(wide),
                                ARG(chunk)};
    status = clgpu__set_args(kernel, 0, args, 10, name);
  }
  if (status == CLGPU_SUCCESS) {
    size_t group = plan->order.shape == CLGPU_SHAPE_TILED ? plan->order.group : 1;
    status =
        clgpu__chain_kernel(context, &chain, kernel, clgpu__global_size(plan->groups, group), group,
                            upper ? "clEnqueueNDRangeKernel(clgpu_upper_bound)"
                                  : "clEnqueueNDRangeKernel(clgpu_lower_bound)");
  }
  if (status == CLGPU_SUCCESS && plan->pack_positions) {
    status = clgpu__chain_copy(context, &chain, positions, &packed, who);
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

static clgpu_status search_entry(clgpu_context *context, int upper, const clgpu_sort_spec *spec,
                                 const clgpu_array *positions, const clgpu_array *needles,
                                 const clgpu_array *haystack, const clgpu_call_options *options,
                                 cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                 clgpu_workspace_size *query, const char *who) {
  if (context) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  }
  search_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      plan_search(context, spec, positions, needles, haystack, options, who, &plan));
  if (query) {
    *query = plan.report;
    return CLGPU_SUCCESS;
  }
  clgpu__queue_scope previous;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__queue_enter(context, options ? options->queue : NULL, who, &previous));
  clgpu_status status = run_search(context, &plan, upper, positions, needles, haystack, options,
                                   num_events, wait_list, event, who);
  clgpu__queue_leave(&previous);
  return status;
}

clgpu_status clgpu_lower_bound(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *positions, const clgpu_array *needles,
                               const clgpu_array *haystack, const clgpu_call_options *options,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return search_entry(context, 0, spec, positions, needles, haystack, options, num_events,
                      wait_list, event, NULL, "clgpu_lower_bound");
}

clgpu_status clgpu_upper_bound(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *positions, const clgpu_array *needles,
                               const clgpu_array *haystack, const clgpu_call_options *options,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return search_entry(context, 1, spec, positions, needles, haystack, options, num_events,
                      wait_list, event, NULL, "clgpu_upper_bound");
}

clgpu_status clgpu_search_workspace_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                         const clgpu_array *positions, const clgpu_array *needles,
                                         const clgpu_array *haystack,
                                         const clgpu_call_options *options,
                                         clgpu_workspace_size *out) {
  const char *who = "clgpu_search_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return search_entry(context, 0, spec, positions, needles, haystack, options, 0, NULL, NULL, out,
                      who);
}

clgpu_status clgpu_search_workspace_size_upto(clgpu_context *context, const clgpu_sort_spec *spec,
                                              clgpu_type key_type, uint64_t max_needles,
                                              uint64_t max_haystack,
                                              const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  const char *who = "clgpu_search_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!context || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  search_plan plan;
  memset(&plan, 0, sizeof plan);
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
  }
  clgpu_shape shape = options ? options->shape : CLGPU_SHAPE_AUTO;
  CLGPU__FORWARD_IF_ERROR(clgpu__search_resolve(context, spec, shape, key_type, who, &plan.order));
  plan.m = max_needles;
  plan.n = max_haystack;
  plan.wide = 1;
  CLGPU__FORWARD_IF_ERROR(lay_out(context, &plan, who));
  *out = plan.report;
  return CLGPU_SUCCESS;
}
