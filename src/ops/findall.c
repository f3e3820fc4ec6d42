/* findall (findall.h): checks, plan, enqueueing. Its counts are scanned by
 * the scan kernels of reduce_program.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/findall.h>
#include <clgpu/program.h>
#include <clgpu/scan.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "lease.h"
#include "op_prepare.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

typedef struct findall_plan {
  clgpu__shape shape;
  clgpu__op_spec predicate; /* counts matches per chunk */
  clgpu__op_spec sum;       /* the nested scan of the counts */
  uint64_t n;
  int pack_input;
  clgpu__split split;        /* of the input */
  clgpu__split counts_split; /* of the counts, for the nested scan */
  unsigned slices;           /* counts per chunk (TILED, clgpu__spec_slices) */
  unsigned sum_slices;       /* the nested scan's totals per chunk */
  clgpu_array input;
  int wide;     /* 64-bit indices */
  int self_sum; /* the move kernel sums the counts itself: no nested scan */
  clgpu_workspace_size report;
} findall_plan;

enum { FINDALL_PACKED_INPUT, FINDALL_COUNTS, FINDALL_COUNT, FINDALL_POSITIONS, FINDALL_SCAN_FIRST };

/* CHUNKED findall reads its input once: each chunk compacts the positions
 * of its matches into "positions" (n uint), then they are moved to the
 * output. Positions count from the chunk's start, so they fit in a uint
 * while chunks are shorter than 2^32 elements; longer ones (over 2^34
 * elements in all) take the two-pass path of TILED. */
static int findall_compacts(const findall_plan *plan) {
  return plan->shape.kind == CLGPU_SHAPE_CHUNKED && plan->split.chunk <= UINT32_MAX;
}

/* Whether clgpu_findall_move sums the chunks' counts itself instead of a
 * scan of them (CLGPU__COUNTS_SUMMED_MOST): a CPU device's CHUNKED split
 * makes chunked_chunks_per_unit per compute unit (4 by default), so the
 * scan is left out unless a loop cap or a tuning asks for many chunks. */
static int findall_sums_itself(const findall_plan *plan) {
  return findall_compacts(plan) && plan->split.reserved <= CLGPU__COUNTS_SUMMED_MOST;
}

static clgpu_status findall_report(const clgpu_context *context, findall_plan *plan,
                                   const char *who) {
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_FINDALL, plan->shape.kind,
                                     CLGPU_ALGORITHM_AUTO, -1);
  clgpu__report_buffer(report, part, "packed_input", plan->predicate.input,
                       plan->pack_input ? plan->n : 0);
  uint64_t chunks = plan->split.reserved > 0 ? plan->split.reserved : 1;
  /* Overflow-free: chunks is at most the split's cap (or a loop cap's
   * count, far below 2^57), slices at most 64. */
  chunks *= plan->slices;
  clgpu__report_buffer(report, part, "counts", CLGPU_TYPE_UINT64, chunks);
  clgpu__report_buffer(report, part, "count", CLGPU_TYPE_UINT64, 1);
  clgpu__report_buffer(report, part, "positions", CLGPU_TYPE_UINT32,
                       plan->shape.kind == CLGPU_SHAPE_CHUNKED ? plan->n : 0);
  plan->counts_split = clgpu__split_range(context, &plan->shape, chunks);
  plan->sum_slices = clgpu__spec_slices(context, &plan->sum, &plan->shape);
  clgpu__scan_buffers(report, (int)part, &plan->shape, &plan->sum, 0, 0,
                      plan->self_sum ? 0 : plan->counts_split.reserved * plan->sum_slices);
  return clgpu__report_finish(report, context, who);
}

static clgpu_status findall_specs(clgpu_type type, const char *predicate, const char *who,
                                  findall_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(clgpu__findall_spec(type, predicate, who, &plan->predicate));
  clgpu_scan_op sum = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_status status = clgpu__scan_spec(&sum, CLGPU_TYPE_UINT64, who, &plan->sum);
  if (status != CLGPU_SUCCESS) clgpu__spec_free(&plan->predicate);
  return status;
}

static void findall_free(findall_plan *plan) {
  clgpu__spec_free(&plan->predicate);
  clgpu__spec_free(&plan->sum);
}

/* Whether a findall on `shape` may scan its counts: TILED always; CHUNKED
 * only where its split may make more than CLGPU__COUNTS_SUMMED_MOST chunks
 * (a loop cap, or many compute units). (A CHUNKED call past 2^32 elements
 * per chunk scans too; the prebuild leaves that case to the call.) */
static int findall_may_scan(const clgpu_context *context, const clgpu__shape *shape) {
  return shape->kind != CLGPU_SHAPE_CHUNKED ||
         clgpu__split_may_pass(context, shape, CLGPU__COUNTS_SUMMED_MOST);
}

clgpu_status clgpu__findall_prepare(clgpu_context *context, const char *predicate, clgpu_type type,
                                    const clgpu_call_options *options, const char *who) {
  findall_plan plan;
  memset(&plan, 0, sizeof plan);
  CLGPU__FORWARD_IF_ERROR(findall_specs(type, predicate, who, &plan));
  clgpu_program *program = NULL;
  clgpu_status status = clgpu__check_spec_support(context, &plan.predicate, who);
  if (status == CLGPU_SUCCESS) status = clgpu__shape_resolve(context, options, who, &plan.shape);
  /* The predicate's compaction and moves (CHUNKED) or counts and writes
   * (TILED), and the scan of the counts where a call may take it. A CHUNKED
   * call past 2^32 elements per chunk (2^34 elements and more), which takes
   * the two-pass kernels and the scan, builds them when it runs. */
  plan.predicate.kernels = plan.shape.kind == CLGPU_SHAPE_CHUNKED ? CLGPU__KERNELS_FINDALL_COMPACT
                                                                  : CLGPU__KERNELS_FINDALL;
  if (status == CLGPU_SUCCESS)
    status = clgpu__spec_program(context, &plan.predicate, &plan.shape, &program);
  if (status == CLGPU_SUCCESS && findall_may_scan(context, &plan.shape))
    status = clgpu__spec_program(context, &plan.sum, &plan.shape, &program);
  findall_free(&plan);
  return status;
}

/* The checks of findall's outputs (and its input's buffer). */
static clgpu_status check_outputs(const clgpu_context *context, const clgpu_array *input,
                                  const clgpu_array *indices, const clgpu_array *count,
                                  const char *who) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(indices, who, "indices"));
  uint64_t n = clgpu__array_count(input);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(indices->type, n, who, "indices"));
  CLGPU__RETURN_ERROR_IF(indices->rank != 1, CLGPU_SHAPE_MISMATCH,
                         "%s: the indices must be a 1-D view, not rank %u", who, indices->rank);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(indices, who, "indices"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(input, indices, who, "indices", "input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, indices->buffer, who, "indices", 1));
  if (count) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_view(count, who, "count"));
    CLGPU__RETURN_ERROR_IF(count->type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
                           "%s: the count must be a ulong (CLGPU_TYPE_UINT64), not %s", who,
                           clgpu__type_cl_name(count->type));
    CLGPU__RETURN_ERROR_IF(clgpu__array_count(count) != 1, CLGPU_SHAPE_MISMATCH,
                           "%s: the count must be one element, not %zu", who,
                           clgpu__array_count(count));
    CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(input, count, who, "count", "input"));
    CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(indices, count, who, "count", "indices"));
    CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, count->buffer, who, "count", 1));
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, input->buffer, who, "input", 0));
  return CLGPU_SUCCESS;
}

static clgpu_status plan_findall(clgpu_context *context, const clgpu_array *input,
                                 const char *predicate, const clgpu_array *indices,
                                 const clgpu_array *count, const clgpu_call_options *options,
                                 const char *who, findall_plan *plan) {
  memset(plan, 0, sizeof *plan);
  CLGPU__FORWARD_IF_ERROR(clgpu__shape_resolve(context, options, who, &plan->shape));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_type_support(context, input->type, who));
  /* An "_upto" query plans for a view with no buffer and no outputs. */
  if (indices) CLGPU__FORWARD_IF_ERROR(check_outputs(context, input, indices, count, who));
  CLGPU__FORWARD_IF_ERROR(findall_specs(input->type, predicate, who, plan));
  uint64_t n = clgpu__array_count(input);
  plan->n = n;
  plan->input = *input;
  plan->wide = !indices || indices->type == CLGPU_TYPE_UINT64;
  plan->pack_input = n > 0 && !clgpu__array_is_contiguous(input);
  plan->split = clgpu__split_range(context, &plan->shape, n);
  plan->slices =
      findall_compacts(plan) ? 1 : clgpu__spec_slices(context, &plan->predicate, &plan->shape);
  plan->self_sum = findall_sums_itself(plan);
  /* The program holds the kernels of one of the two paths. */
  plan->predicate.kernels =
      findall_compacts(plan) ? CLGPU__KERNELS_FINDALL_COMPACT : CLGPU__KERNELS_FINDALL;
  /* The report before the loop cap's second-pass check: a size no report
   * can hold is CLGPU_SIZE_OVERFLOW on every device. */
  clgpu_status status = findall_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)n);
  } else {
    /* The counts are scanned per slice: that many entries per range. */
    clgpu__split entries = plan->split;
    entries.reserved *= plan->slices;
    status = clgpu__fit_partials(context, who, n, &plan->shape, &entries);
  }
  if (status != CLGPU_SUCCESS) findall_free(plan);
  return status;
}

static clgpu_status run_findall(clgpu_context *context, void *planned, const clgpu__call *call) {
  findall_plan *plan = planned;
  const clgpu_array *indices = call->output, *count = call->count;
  const clgpu_call_options *options = call->options;
  cl_event *event = call->event;
  uint64_t *host = call->host;
  const char *who = call->who;
  clgpu__argument arguments[] = {{&plan->input, "input"}, {indices, "indices"}, {count, "count"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  int compact = findall_compacts(plan);
  cl_kernel ranges = NULL, write = NULL;
  clgpu__scan_kernels nested = {NULL, NULL, NULL};
  clgpu_program *program = NULL, *sum_program = NULL;
  uint64_t groups = plan->split.groups;
  uint64_t entries = groups * plan->slices; /* counts, one per slice */
  int scan_needed = entries > 1 && !plan->self_sum;
  clgpu_status status = clgpu__spec_program(context, &plan->predicate, &plan->shape, &program);
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu__lease(&held, program, compact ? "clgpu_findall_compact" : "clgpu_findall_counts",
                     compact ? CLGPU__ARG_FINDALL_COMPACT : CLGPU__ARG_FINDALL_COUNTS, &ranges);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(&held, program, compact ? "clgpu_findall_move" : "clgpu_findall_write",
                          CLGPU__ARG_FINDALL_WRITE, &write);
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    status = clgpu__spec_program(context, &plan->sum, &plan->shape, &sum_program);
    if (status == CLGPU_SUCCESS) {
      status = clgpu__lease_scan(&held, sum_program, plan->counts_split.reserved > 0, &nested);
    }
  }

  clgpu__chain chain;
  clgpu__chain_begin(&chain, call->num_events, call->wait_list);
  clgpu__place in = {0}, counted = {0}, total = {0}, out = {0};
  if (status == CLGPU_SUCCESS) status = clgpu__scratch_order(context, &scratch, &chain);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, FINDALL_PACKED_INPUT, plan->pack_input,
                                &plan->input, &in, who);
  }
  if (status == CLGPU_SUCCESS) {
    counted = clgpu__scratch_place(&scratch, FINDALL_COUNTS);
    if (count) {
      status = clgpu__place_of(count, &total);
    } else {
      total = clgpu__scratch_place(&scratch, FINDALL_COUNT);
    }
  }
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(indices, &out);
  cl_ulong n = plan->n;
  cl_ulong chunk = plan->split.reserved > 0 ? plan->split.chunk : plan->n;
  clgpu__place positions = clgpu__scratch_place(&scratch, FINDALL_POSITIONS);
  if (status == CLGPU_SUCCESS && compact) {
    clgpu__kernel_arg args[] = {ARG(in.buffer),      ARG(in.offset),        ARG(n),
                                ARG(chunk),          ARG(positions.buffer), ARG(positions.offset),
                                ARG(counted.buffer), ARG(counted.offset)};
    status = clgpu__set_args(ranges, 0, args, 8, "clgpu_findall_compact");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, ranges, clgpu__global_size(groups, 1), 1,
                                   "clEnqueueNDRangeKernel(clgpu_findall_compact)");
    }
  } else if (status == CLGPU_SUCCESS) {
    clgpu__kernel_arg args[] = {ARG(in.buffer), ARG(in.offset),      ARG(n),
                                ARG(chunk),     ARG(counted.buffer), ARG(counted.offset)};
    status = clgpu__set_args(ranges, 0, args, 6, "clgpu_findall_counts");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, ranges,
                                   clgpu__global_size(groups, plan->shape.group), plan->shape.group,
                                   "clEnqueueNDRangeKernel(clgpu_findall_counts)");
    }
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    clgpu__place totals =
        plan->counts_split.reserved > 0
            ? clgpu__scratch_place(&scratch, FINDALL_SCAN_FIRST + CLGPU__SCAN_TOTALS)
            : counted;
    status = clgpu__enqueue_scan_contiguous(context, &chain, &nested, &plan->shape, counted,
                                            counted, entries, &plan->counts_split, plan->sum_slices,
                                            0, totals, 0);
  }
  if (status == CLGPU_SUCCESS) {
    cl_ulong groups_arg = entries;
    cl_int wide = plan->wide;
    cl_long stride = indices->rank == 1 ? (cl_long)indices->strides[0] : 1;
    cl_ulong capacity = clgpu__array_count(indices);
    clgpu__place source = compact ? positions : in;
    clgpu__kernel_arg args[] = {ARG(source.buffer), ARG(source.offset),  ARG(n),
                                ARG(chunk),         ARG(counted.buffer), ARG(counted.offset),
                                ARG(groups_arg),    ARG(wide),           ARG(out.buffer),
                                ARG(out.buffer),    ARG(out.offset),     ARG(stride),
                                ARG(capacity),      ARG(total.buffer),   ARG(total.offset)};
    status =
        clgpu__set_args(write, 0, args, 15, compact ? "clgpu_findall_move" : "clgpu_findall_write");
    cl_int scanned = !plan->self_sum;
    clgpu__kernel_arg summing[] = {ARG(scanned)};
    if (status == CLGPU_SUCCESS && compact)
      status = clgpu__set_args(write, 15, summing, 1, "clgpu_findall_move");
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu__chain_kernel(context, &chain, write, clgpu__global_size(groups, plan->shape.group),
                              plan->shape.group, "clEnqueueNDRangeKernel(findall's writes)");
    }
  }
  if (status == CLGPU_SUCCESS && host) {
    cl_ulong value = 0;
    status = clgpu__read_back(context, &chain, total, sizeof value, &value,
                              "clEnqueueReadBuffer(the count)");
    if (status == CLGPU_SUCCESS) *host = value;
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

/* The family of findall: the predicate, the indices (call->output) and the
 * count view, or the host count (call->host) of the _read form. */
static clgpu_status findall_call_plan(clgpu_context *context, const clgpu__call *call, void *out) {
  return plan_findall(context, call->input, call->predicate, call->output, call->count,
                      call->options, call->who, out);
}

static void findall_call_release(void *plan) { findall_free(plan); }

static const clgpu__family findall_family = {findall_call_plan, run_findall, findall_call_release,
                                             offsetof(findall_plan, report)};

clgpu_status clgpu_findall(clgpu_context *context, const char *predicate,
                           const clgpu_array *indices, const clgpu_array *count,
                           const clgpu_array *input, const clgpu_call_options *options,
                           cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_findall";
  CLGPU__RETURN_ERROR_IF(!indices, CLGPU_INVALID_ARGUMENT, "%s: indices is NULL", who);
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT,
                         "%s: count is NULL (clgpu_findall_read takes none)", who);
  clgpu__call call = clgpu__call_make(who, input, indices, options, num_events, wait_list, event);
  call.predicate = predicate;
  call.count = count;
  findall_plan plan;
  return clgpu__query_or_run(context, &findall_family, &call, &plan, NULL);
}

clgpu_status clgpu_findall_workspace_size(clgpu_context *context, const char *predicate,
                                          const clgpu_array *indices, const clgpu_array *count,
                                          const clgpu_array *input,
                                          const clgpu_call_options *options,
                                          clgpu_workspace_size *out) {
  const char *who = "clgpu_findall_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!indices, CLGPU_INVALID_ARGUMENT, "%s: indices is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, indices, options, 0, NULL, NULL);
  call.predicate = predicate;
  call.count = count;
  findall_plan plan;
  return clgpu__query_or_run(context, &findall_family, &call, &plan, out);
}

clgpu_status clgpu_findall_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                               uint64_t max_n, const clgpu_call_options *options,
                                               clgpu_workspace_size *out) {
  clgpu__call call =
      clgpu__call_make("clgpu_findall_workspace_size_upto", NULL, NULL, options, 0, NULL, NULL);
  findall_plan plan;
  return clgpu__query_upto(context, &findall_family, &call, type, max_n, 0, &plan, out);
}

clgpu_status clgpu_findall_read(clgpu_context *context, const char *predicate,
                                const clgpu_array *indices, const clgpu_array *count_view,
                                uint64_t *count, const clgpu_array *input,
                                const clgpu_call_options *options) {
  const char *who = "clgpu_findall_read";
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT, "%s: count is NULL", who);
  CLGPU__RETURN_ERROR_IF(!indices, CLGPU_INVALID_ARGUMENT, "%s: indices is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, indices, options, 0, NULL, NULL);
  call.predicate = predicate;
  call.count = count_view;
  call.host = count;
  findall_plan plan;
  return clgpu__query_or_run(context, &findall_family, &call, &plan, NULL);
}
