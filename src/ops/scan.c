/* Scans (scan.h): checks, plan, enqueueing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "lease.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "tuning.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

typedef struct scan_plan {
  clgpu__shape shape;
  clgpu__op_spec spec;
  int rows_mode;
  uint64_t rows, length, n;
  int stage_input, pack_output;
  clgpu__split split;
  unsigned slices;           /* totals per chunk (clgpu__spec_slices) */
  cl_int stream;             /* non-temporal stores of the output (scan_stream_floor) */
  clgpu_array input, output; /* axis last */
  clgpu_workspace_size report;
} scan_plan;

static clgpu_status scan_report(const clgpu_context *context, scan_plan *plan, const char *who) {
  clgpu__report_init(&plan->report);
  clgpu__scan_buffers(&plan->report, -1, &plan->shape, &plan->spec, plan->stage_input ? plan->n : 0,
                      plan->pack_output ? plan->n : 0,
                      plan->rows_mode ? 0 : plan->split.reserved * plan->slices);
  return clgpu__report_finish(&plan->report, context, who);
}

static clgpu_status plan_scan(clgpu_context *context, clgpu__op_spec *taken,
                              const clgpu_array *input, int axis, const clgpu_array *output,
                              const clgpu_call_options *options, const char *who, scan_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->spec = *taken;
  memset(taken, 0, sizeof *taken);
  clgpu_status status = clgpu__shape_resolve(context, options, who, &plan->shape);
  if (status == CLGPU_SUCCESS) status = clgpu__check_spec_support(context, &plan->spec, who);
  if (status == CLGPU_SUCCESS && output->buffer) {
    status = clgpu__check_view(output, who, "output");
  }
  if (status == CLGPU_SUCCESS && output->type != input->type) {
    status = clgpu__fail(CLGPU_TYPE_MISMATCH, "%s: the output holds %s and the input %s", who,
                         clgpu__type_cl_name(output->type), clgpu__type_cl_name(input->type));
  }
  if (status == CLGPU_SUCCESS) {
    int same = output->rank == input->rank;
    for (unsigned d = 0; same && d < input->rank; d++) same = output->shape[d] == input->shape[d];
    if (!same) {
      char in_text[200], out_text[200];
      clgpu__describe_shape(input, in_text, sizeof in_text);
      clgpu__describe_shape(output, out_text, sizeof out_text);
      status =
          clgpu__fail(CLGPU_SHAPE_MISMATCH, "%s: the output's shape %s differs from the input's %s",
                      who, out_text, in_text);
    }
  }
  if (status == CLGPU_SUCCESS && (axis < CLGPU_ALL_AXES || axis >= (int)input->rank)) {
    status =
        clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: axis %d is out of range for an input of rank %u",
                    who, axis, input->rank);
  }
  if (status == CLGPU_SUCCESS) status = clgpu__check_output_layout(output, who, "output");
  if (status == CLGPU_SUCCESS && output->buffer)
    status = clgpu__check_buffer(context, output->buffer, who, "output", 1);
  if (status == CLGPU_SUCCESS && input->buffer)
    status = clgpu__check_buffer(context, input->buffer, who, "input", 0);
  if (status == CLGPU_SUCCESS && axis != CLGPU_ALL_AXES) {
    status = clgpu__axis_last(input, (unsigned)axis, &plan->input);
    if (status == CLGPU_SUCCESS) status = clgpu__axis_last(output, (unsigned)axis, &plan->output);
  } else {
    plan->input = *input;
    plan->output = *output;
  }
  if (status != CLGPU_SUCCESS) {
    clgpu__spec_free(&plan->spec);
    return status;
  }
  plan->n = clgpu__array_count(input);
  if (axis != CLGPU_ALL_AXES) {
    plan->length = input->shape[axis];
    plan->rows = plan->length ? plan->n / plan->length : 0;
    plan->rows_mode = plan->rows > 1;
  }
  /* One pointer for both: an in-place call, or the view of an "_upto" query
   * (which has no buffer for clgpu_array_same to compare). */
  int same = input == output || clgpu__array_same(input, output);
  plan->stage_input = plan->n > 0 && (!clgpu__array_is_contiguous(&plan->input) ||
                                      (!same && clgpu__may_alias(input, output)));
  plan->pack_output = plan->n > 0 && !clgpu__array_is_contiguous(&plan->output);
  if (plan->rows_mode) {
    status = clgpu__fit_line(context, who, plan->length, &plan->shape);
  } else {
    plan->split = clgpu__split_range(context, &plan->shape, plan->n);
    plan->slices = clgpu__spec_slices(context, &plan->spec, &plan->shape);
    /* Non-temporal stores for an output too large to stay in the cache
     * for its reader, where the tuning row measured them faster. */
    uint64_t floor = context->tuning->scan_stream_floor;
    plan->stream = floor > 0 && plan->n >= floor / clgpu__type_size(plan->spec.result);
  }
  if (status != CLGPU_SUCCESS) {
    clgpu__spec_free(&plan->spec);
    return status;
  }
  /* The report before the loop cap's second-pass check: a size no report
   * can hold is CLGPU_SIZE_OVERFLOW on every device. */
  status = scan_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)plan->n);
  } else if (!plan->rows_mode) {
    /* The carries are scanned per slice: that many entries per range. */
    clgpu__split entries = plan->split;
    entries.reserved *= plan->slices;
    status = clgpu__fit_partials(context, who, plan->n, &plan->shape, &entries);
  }
  if (status != CLGPU_SUCCESS) clgpu__spec_free(&plan->spec);
  return status;
}

static clgpu_status run_scan(clgpu_context *context, void *planned, const clgpu__call *call) {
  scan_plan *plan = planned;
  const clgpu_scan_op *op = call->op;
  const clgpu_array *input = call->input, *output = call->output;
  const clgpu_call_options *options = call->options;
  cl_event *event = call->event;
  const char *who = call->who;
  clgpu__chain chain;
  clgpu__chain_begin(&chain, call->num_events, call->wait_list);
  clgpu__argument arguments[] = {{input, "input"}, {output, "output"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 2, who, &scratch));
  clgpu_status ordered = clgpu__scratch_order(context, &scratch, &chain);
  if (ordered != CLGPU_SUCCESS) {
    clgpu__scratch_release(context, &scratch);
    return ordered;
  }
  /* Nothing to scan; the workspace was checked all the same. */
  if (plan->n == 0) {
    clgpu__scratch_release(context, &scratch);
    return clgpu__chain_end(context, &chain, event);
  }
  clgpu__leases held = {{0}, {0}, {0}, 0};
  clgpu__scan_kernels kernels = {NULL, NULL, NULL};
  clgpu_program *program = NULL;
  int multi = !plan->rows_mode && plan->split.reserved > 0;
  clgpu_status status = clgpu__spec_program(context, &plan->spec, &plan->shape, &program);
  if (status == CLGPU_SUCCESS) status = clgpu__lease_scan(&held, program, multi, &kernels);

  clgpu__place in = {0}, out = {0};
  clgpu_array packed;
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, CLGPU__SCAN_STAGED_INPUT,
                                plan->stage_input, &plan->input, &in, who);
  }
  if (status == CLGPU_SUCCESS && plan->pack_output) {
    status = clgpu__scratch_view(&scratch, CLGPU__SCAN_PACKED_OUTPUT, plan->spec.result,
                                 plan->output.rank, plan->output.shape, &packed);
    if (status == CLGPU_SUCCESS) status = clgpu__place_of(&packed, &out);
  } else if (status == CLGPU_SUCCESS) {
    status = clgpu__place_of(&plan->output, &out);
  }
  cl_int exclusive = op->exclusive != 0;
  if (status == CLGPU_SUCCESS && plan->rows_mode) {
    cl_ulong n = plan->n, chunk = plan->length;
    cl_int use_carries = 0, stream = 0;
    clgpu__kernel_arg args[] = {ARG(in.buffer),  ARG(in.offset),  ARG(n),           ARG(chunk),
                                ARG(out.buffer), ARG(out.offset), ARG(use_carries), ARG(exclusive),
                                ARG(out.buffer), ARG(out.offset), ARG(stream)};
    status = clgpu__set_args(kernels.scan, 0, args, 11, "clgpu_scan_ranges");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, kernels.scan,
                                   clgpu__global_size(plan->rows, plan->shape.group),
                                   plan->shape.group, "clEnqueueNDRangeKernel(clgpu_scan_ranges)");
    }
  } else if (status == CLGPU_SUCCESS) {
    clgpu__place totals = multi ? clgpu__scratch_place(&scratch, CLGPU__SCAN_TOTALS) : out;
    status =
        clgpu__enqueue_scan_contiguous(context, &chain, &kernels, &plan->shape, in, out, plan->n,
                                       &plan->split, plan->slices, exclusive, totals, plan->stream);
  }
  if (status == CLGPU_SUCCESS && plan->pack_output) {
    status = clgpu__chain_copy(context, &chain, &plan->output, &packed, who);
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

/* The family of clgpu_scan: the scan op is call->op. */
static clgpu_status scan_call_plan(clgpu_context *context, const clgpu__call *call, void *out) {
  const char *who = call->who;
  CLGPU__RETURN_ERROR_IF(!call->output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  clgpu__op_spec s;
  CLGPU__FORWARD_IF_ERROR(clgpu__scan_spec(call->op, call->input->type, who, &s));
  return plan_scan(context, &s, call->input, call->axis, call->output, call->options, who, out);
}

static void scan_call_release(void *plan) { clgpu__spec_free(&((scan_plan *)plan)->spec); }

static const clgpu__family scan_family = {scan_call_plan, run_scan, scan_call_release,
                                          offsetof(scan_plan, report)};

clgpu_status clgpu_scan(clgpu_context *context, const clgpu_scan_op *op, int axis,
                        const clgpu_array *output, const clgpu_array *input,
                        const clgpu_call_options *options, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_scan";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, num_events, wait_list, event);
  call.op = op;
  call.axis = axis;
  scan_plan plan;
  return clgpu__query_or_run(context, &scan_family, &call, &plan, NULL);
}

clgpu_status clgpu_scan_workspace_size(clgpu_context *context, const clgpu_scan_op *op, int axis,
                                       const clgpu_array *output, const clgpu_array *input,
                                       const clgpu_call_options *options,
                                       clgpu_workspace_size *out) {
  const char *who = "clgpu_scan_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, 0, NULL, NULL);
  call.op = op;
  call.axis = axis;
  scan_plan plan;
  return clgpu__query_or_run(context, &scan_family, &call, &plan, out);
}

clgpu_status clgpu_scan_workspace_size_upto(clgpu_context *context, const clgpu_scan_op *op,
                                            clgpu_type type, uint64_t max_n,
                                            const clgpu_call_options *options,
                                            clgpu_workspace_size *out) {
  const char *who = "clgpu_scan_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  clgpu__call call = clgpu__call_make(who, NULL, NULL, options, 0, NULL, NULL);
  call.op = op;
  scan_plan plan;
  /* In place: the largest call's input and output are one view. */
  return clgpu__query_upto(context, &scan_family, &call, type, max_n, 1, &plan, out);
}
