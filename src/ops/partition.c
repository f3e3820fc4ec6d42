/* Stable partition (partition.h): checks, plan, enqueueing. The predicate
 * is findall's (a predicate spec of reduce_program.c); the kernels are
 * cl/partition.cl, built on the operator section of cl/reduce.cl, and the
 * per-range counts are scanned by the scan kernels of reduce_program.c, as
 * findall's are, or added up by the write kernel itself where there are at
 * most CLGPU__COUNTS_SUMMED_MOST ranges. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/partition.h>
#include <clgpu/program.h>
#include <clgpu/scan.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "lease.h"
#include "op_prepare.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

enum { PART_STAGED_INPUT, PART_COUNTS, PART_SCAN_FIRST };

typedef struct part_plan {
  clgpu__shape shape;
  clgpu__op_spec predicate; /* 1 where the predicate holds */
  clgpu__op_spec sum;       /* the nested scan of the counts */
  uint64_t n;
  int stage; /* the input is copied to "staged_input" (the output may overlap it) */
  clgpu__split split;
  clgpu__split counts_split;
  unsigned sum_slices;
  int self_sum; /* the write kernel sums the counts itself: no nested scan */
  clgpu_workspace_size report;
} part_plan;

static void part_free(part_plan *plan) {
  clgpu__spec_free(&plan->predicate);
  clgpu__spec_free(&plan->sum);
}

/* 1-D input and output of one type and length; a ulong count of one
 * element, apart from both; the output, when it may overlap the input,
 * makes the input staged. */
static clgpu_status check_views(const clgpu_context *context, const clgpu_array *output,
                                const clgpu_array *count, const clgpu_array *input, const char *who,
                                part_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(input, who, "input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(output, who, "output"));
  CLGPU__RETURN_ERROR_IF(output->type != input->type, CLGPU_TYPE_MISMATCH,
                         "%s: the output holds %s, the input %s (the same type)", who,
                         clgpu__type_cl_name(output->type), clgpu__type_cl_name(input->type));
  CLGPU__RETURN_ERROR_IF(output->shape[0] != input->shape[0], CLGPU_SHAPE_MISMATCH,
                         "%s: the output has %zu elements for %zu input elements", who,
                         output->shape[0], input->shape[0]);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(output, who, "output"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, input->buffer, who, "input", 0));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, output->buffer, who, "output", 1));
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT, "%s: count is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(count, who, "count"));
  CLGPU__RETURN_ERROR_IF(count->type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
                         "%s: the count must be a ulong (CLGPU_TYPE_UINT64), not %s", who,
                         clgpu__type_cl_name(count->type));
  CLGPU__RETURN_ERROR_IF(clgpu__array_count(count) != 1, CLGPU_SHAPE_MISMATCH,
                         "%s: the count must be one element, not %zu", who,
                         clgpu__array_count(count));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(count, input, who, "count", "input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(count, output, who, "count", "output"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, count->buffer, who, "count", 1));
  plan->stage = input->shape[0] > 0 && clgpu__may_alias(input, output);
  return CLGPU_SUCCESS;
}

/* On a device with a loop cap (quirks.c), ranges short enough that no
 * work-item's loops pass it: a TILED item scans each row of its range by
 * doubling, log2(group) + 1 iterations a row. */
static void fit_loop_cap(const clgpu_context *context, part_plan *plan) {
  uint64_t cap = context->quirks.loop_iteration_cap;
  if (!cap || plan->n == 0 || plan->shape.kind != CLGPU_SHAPE_TILED) return;
  uint64_t group = plan->shape.group, steps = 2;
  while (((uint64_t)1 << (steps - 2)) < group) steps++;
  clgpu__split_at_most(plan->n, (cap - 4) / steps * group, &plan->split);
}

/* Checks and plans a call (views given) or an "_upto" query (views NULL:
 * max_n contiguous elements, nothing staged). */
static clgpu_status plan_partition(clgpu_context *context, const char *predicate,
                                   const clgpu_array *output, const clgpu_array *count,
                                   const clgpu_array *input, clgpu_type type, uint64_t n,
                                   const clgpu_call_options *options, const char *who,
                                   part_plan *plan) {
  memset(plan, 0, sizeof *plan);
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__shape_resolve(context, options, who, &plan->shape));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(type, who, "the input"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_type_support(context, type, who));
  if (input) CLGPU__FORWARD_IF_ERROR(check_views(context, output, count, input, who, plan));
  CLGPU__FORWARD_IF_ERROR(clgpu__predicate_spec(type, predicate, who, &plan->predicate));
  clgpu_scan_op sum = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_status status = clgpu__scan_spec(&sum, CLGPU_TYPE_UINT64, who, &plan->sum);
  if (status != CLGPU_SUCCESS) {
    clgpu__spec_free(&plan->predicate);
    return status;
  }
  plan->n = n;
  plan->split = clgpu__split_range(context, &plan->shape, n);
  fit_loop_cap(context, plan);
  uint64_t groups = plan->split.reserved > 0 ? plan->split.groups : 1;
  plan->self_sum = plan->split.reserved <= CLGPU__COUNTS_SUMMED_MOST;
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_PARTITION, plan->shape.kind,
                                     CLGPU_ALGORITHM_AUTO, -1);
  clgpu__report_buffer(report, part, "staged_input", type, plan->stage ? n : 0);
  clgpu__report_buffer(report, part, "counts", CLGPU_TYPE_UINT64,
                       plan->split.reserved > 0 ? plan->split.reserved : 1);
  plan->counts_split = clgpu__split_range(context, &plan->shape, groups);
  plan->sum_slices = clgpu__spec_slices(context, &plan->sum, &plan->shape);
  clgpu__scan_buffers(report, (int)part, &plan->shape, &plan->sum, 0, 0,
                      plan->self_sum ? 0 : plan->counts_split.reserved * plan->sum_slices);
  status = clgpu__report_finish(report, context, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)n);
  } else {
    status = clgpu__fit_partials(context, who, n, &plan->shape, &plan->split);
  }
  if (status != CLGPU_SUCCESS) part_free(plan);
  return status;
}

#define PART_ARG_COUNTS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(5))
#define PART_ARG_WRITE \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(5) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(11))

static clgpu_status run_partition(clgpu_context *context, const part_plan *plan,
                                  const clgpu_array *output, const clgpu_array *count,
                                  const clgpu_array *input, const clgpu_call_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                  const char *who) {
  clgpu__argument arguments[] = {{input, "input"}, {output, "output"}, {count, "count"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  uint64_t groups = plan->split.reserved > 0 ? plan->split.groups : 1;
  int scan_needed = groups > 1 && !plan->self_sum;
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  clgpu__place in = {0}, out = {0}, total = {0};
  cl_long in_step = plan->stage ? 1 : input->strides[0], out_step = output->strides[0];
  clgpu_status status = clgpu__scratch_order(context, &scratch, &chain);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, PART_STAGED_INPUT, plan->stage, input,
                                &in, who);
  }
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(output, &out);
  if (status == CLGPU_SUCCESS) status = clgpu__place_of(count, &total);
  clgpu_define extra[1] = {{"CLGPU_PART_STRIDED", NULL}};
  int strided = in_step != 1 || out_step != 1;
  clgpu_program *program = NULL, *sum_program = NULL;
  cl_kernel counts_kernel = NULL, write_kernel = NULL;
  clgpu__scan_kernels nested = {NULL, NULL, NULL};
  if (status == CLGPU_SUCCESS) {
    status = clgpu__spec_program_with(context, &plan->predicate, &plan->shape, extra,
                                      strided ? 1 : 0, "partition", &program);
  }
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu__lease(&held, program, "clgpu_partition_counts", PART_ARG_COUNTS, &counts_kernel);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(&held, program, "clgpu_partition_write", PART_ARG_WRITE, &write_kernel);
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    status = clgpu__spec_program(context, &plan->sum, &plan->shape, &sum_program);
    if (status == CLGPU_SUCCESS) {
      status = clgpu__lease_scan(&held, sum_program, plan->counts_split.reserved > 0, &nested);
    }
  }
  clgpu__place counted = clgpu__scratch_place(&scratch, PART_COUNTS);
  cl_ulong n = plan->n, chunk = plan->split.reserved > 0 ? plan->split.chunk : plan->n;
  size_t group = plan->shape.group;
  if (status == CLGPU_SUCCESS) {
    clgpu__kernel_arg args[] = {ARG(in.buffer), ARG(in.offset),      ARG(in_step),       ARG(n),
                                ARG(chunk),     ARG(counted.buffer), ARG(counted.offset)};
    status = clgpu__set_args(counts_kernel, 0, args, 7, "clgpu_partition_counts");
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu__chain_kernel(context, &chain, counts_kernel, clgpu__global_size(groups, group),
                              group, "clEnqueueNDRangeKernel(clgpu_partition_counts)");
    }
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    clgpu__place totals = plan->counts_split.reserved > 0
                              ? clgpu__scratch_place(&scratch, PART_SCAN_FIRST + CLGPU__SCAN_TOTALS)
                              : counted;
    status =
        clgpu__enqueue_scan_contiguous(context, &chain, &nested, &plan->shape, counted, counted,
                                       groups, &plan->counts_split, plan->sum_slices, 0, totals, 0);
  }
  if (status == CLGPU_SUCCESS) {
    cl_ulong groups_arg = groups;
    clgpu__kernel_arg args[] = {
        ARG(in.buffer),   ARG(in.offset),      ARG(in_step),        ARG(n),
        ARG(chunk),       ARG(counted.buffer), ARG(counted.offset), ARG(groups_arg),
        ARG(out.buffer),  ARG(out.offset),     ARG(out_step),       ARG(total.buffer),
        ARG(total.offset)};
    cl_int scanned = !plan->self_sum;
    clgpu__kernel_arg summing[] = {ARG(scanned)};
    status = clgpu__set_args(write_kernel, 0, args, 13, "clgpu_partition_write");
    if (status == CLGPU_SUCCESS)
      status = clgpu__set_args(write_kernel, 13, summing, 1, "clgpu_partition_write");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, write_kernel, clgpu__global_size(groups, group),
                                   group, "clEnqueueNDRangeKernel(clgpu_partition_write)");
    }
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

clgpu_status clgpu__partition_prepare(clgpu_context *context, const char *predicate,
                                      clgpu_type type, const clgpu_call_options *options,
                                      const char *who) {
  part_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      plan_partition(context, predicate, NULL, NULL, NULL, type, 1, options, who, &plan));
  /* The predicate's counts and writes, and the scan of the counts where a
   * call may cut its input into more ranges than the write kernel sums
   * (CLGPU__COUNTS_SUMMED_MOST). */
  clgpu_program *program = NULL;
  clgpu_status status = clgpu__spec_program_with(context, &plan.predicate, &plan.shape, NULL, 0,
                                                 "partition", &program);
  if (status == CLGPU_SUCCESS &&
      clgpu__split_may_pass(context, &plan.shape, CLGPU__COUNTS_SUMMED_MOST))
    status = clgpu__spec_program(context, &plan.sum, &plan.shape, &program);
  part_free(&plan);
  return status;
}

static clgpu_status part_entry(clgpu_context *context, const char *predicate,
                               const clgpu_array *output, const clgpu_array *count,
                               const clgpu_array *input, const clgpu_call_options *options,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event,
                               clgpu_workspace_size *query, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  CLGPU__RETURN_ERROR_IF(!input, CLGPU_INVALID_ARGUMENT, "%s: input is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT, "%s: count is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(input, who, "input"));
  part_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_partition(context, predicate, output, count, input, input->type,
                                         clgpu__array_count(input), options, who, &plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    *query = plan.report;
  } else {
    clgpu__queue_scope previous;
    status = clgpu__queue_enter(context, options ? options->queue : NULL, who, &previous);
    if (status == CLGPU_SUCCESS) {
      status = run_partition(context, &plan, output, count, input, options, num_events, wait_list,
                             event, who);
      clgpu__queue_leave(&previous);
    }
  }
  part_free(&plan);
  return status;
}

clgpu_status clgpu_partition(clgpu_context *context, const char *predicate,
                             const clgpu_array *output, const clgpu_array *count,
                             const clgpu_array *input, const clgpu_call_options *options,
                             cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return part_entry(context, predicate, output, count, input, options, num_events, wait_list, event,
                    NULL, "clgpu_partition");
}

clgpu_status clgpu_partition_workspace_size(clgpu_context *context, const char *predicate,
                                            const clgpu_array *output, const clgpu_array *count,
                                            const clgpu_array *input,
                                            const clgpu_call_options *options,
                                            clgpu_workspace_size *out) {
  const char *who = "clgpu_partition_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return part_entry(context, predicate, output, count, input, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu_partition_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                                 uint64_t max_n, const clgpu_call_options *options,
                                                 clgpu_workspace_size *out) {
  const char *who = "clgpu_partition_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  part_plan plan;
  clgpu_status status =
      plan_partition(context, NULL, NULL, NULL, NULL, type, max_n, options, who, &plan);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_max_n(max_n);
    return status;
  }
  *out = plan.report;
  part_free(&plan);
  return CLGPU_SUCCESS;
}
