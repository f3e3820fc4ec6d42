/* Reductions and count_if (reduce.h): checks, plan, enqueueing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/reduce.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "copy.h"
#include "lease.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

typedef struct reduce_plan {
  clgpu__shape shape;
  clgpu__op_spec spec;
  int rows_mode;      /* one group per line along the axis */
  uint64_t rows;      /* lines (rows mode) */
  uint64_t length;    /* elements per line (rows mode) */
  uint64_t n;         /* elements read */
  int pack_input;     /* the input is copied to packed_input first */
  int pack_output;    /* the lines' results go through packed_output */
  clgpu__split split; /* whole-array mode */
  clgpu_array input;  /* the elements in the order they are reduced */
  clgpu_array output; /* one element, or the lines' results in row order */
  clgpu_workspace_size report;
} reduce_plan;

enum {
  REDUCE_PACKED_INPUT,
  REDUCE_PARTIALS,
  REDUCE_PARTIAL_INDICES,
  REDUCE_PACKED_OUTPUT,
  REDUCE_RESULT
};

static clgpu_status reduce_report(const clgpu_context *context, reduce_plan *plan,
                                  const char *who) {
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_REDUCE, plan->shape.kind,
                                     CLGPU_ALGORITHM_AUTO, -1);
  uint64_t reserved = plan->rows_mode ? 0 : plan->split.reserved;
  clgpu__report_buffer(report, part, "packed_input", plan->spec.input,
                       plan->pack_input ? plan->n : 0);
  clgpu__report_buffer(report, part, "partials", plan->spec.accumulator, reserved);
  clgpu__report_buffer(report, part, "partial_indices", CLGPU_TYPE_UINT64,
                       plan->spec.arg ? reserved : 0);
  clgpu__report_buffer(report, part, "packed_output", plan->spec.result,
                       plan->pack_output ? plan->rows : 0);
  /* One element for clgpu_reduce_read, in every report, so that any reduce
   * workspace serves it. */
  clgpu__report_buffer(report, part, "result", plan->spec.result, 1);
  return clgpu__report_finish(report, context, who);
}

/* Checks and plan of clgpu_reduce (and its queries). `output` may be NULL
 * for clgpu_reduce_read. On success the caller frees plan->spec. */
static clgpu_status plan_reduce(clgpu_context *context, clgpu__op_spec *taken,
                                const clgpu_array *input, int axis, const clgpu_array *output,
                                const clgpu_call_options *options, const char *who,
                                reduce_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->spec = *taken;
  memset(taken, 0, sizeof *taken);
  clgpu_status status = clgpu__shape_resolve(context, options, who, &plan->shape);
  if (status == CLGPU_SUCCESS) status = clgpu__check_spec_support(context, &plan->spec, who);
  if (status == CLGPU_SUCCESS && output) {
    status = clgpu__check_view(output, who, "output");
    if (status == CLGPU_SUCCESS && output->type != plan->spec.result) {
      status =
          clgpu__fail(CLGPU_TYPE_MISMATCH, "%s: the output holds %s, the reduction gives %s", who,
                      clgpu__type_cl_name(output->type), clgpu__type_cl_name(plan->spec.result));
    }
  }
  if (status == CLGPU_SUCCESS && (axis < CLGPU_ALL_AXES || axis >= (int)input->rank)) {
    status =
        clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: axis %d is out of range for an input of rank %u",
                    who, axis, input->rank);
  }
  if (status != CLGPU_SUCCESS) {
    clgpu__spec_free(&plan->spec);
    return status;
  }

  uint64_t count = clgpu__array_count(input);
  if (axis == CLGPU_ALL_AXES) {
    plan->input = *input;
    plan->n = count;
    plan->rows = 1;
    if (output && clgpu__array_count(output) != 1) {
      char text[200];
      clgpu__describe_shape(output, text, sizeof text);
      clgpu__spec_free(&plan->spec);
      return clgpu__fail(CLGPU_SHAPE_MISMATCH,
                         "%s: a reduction of the whole array writes one element, the output "
                         "has shape %s",
                         who, text);
    }
    if (output) plan->output = *output;
  } else {
    unsigned a = (unsigned)axis;
    status = clgpu__axis_last(input, a, &plan->input);
    /* The output: the input's shape without the axis, or with extent 1 there. */
    clgpu_array lines = {0};
    if (status == CLGPU_SUCCESS && output) {
      int fits = 0;
      lines = *output;
      if (output->rank + 1 == input->rank) {
        fits = 1;
        for (unsigned d = 0, o = 0; d < input->rank; d++) {
          if (d == a) continue;
          fits &= output->shape[o++] == input->shape[d];
        }
      } else if (output->rank == input->rank && output->shape[a] == 1) {
        fits = 1;
        for (unsigned d = 0; d < input->rank; d++)
          fits &= d == a || output->shape[d] == input->shape[d];
        for (unsigned d = a; d + 1 < output->rank; d++) {
          lines.shape[d] = output->shape[d + 1];
          lines.strides[d] = output->strides[d + 1];
        }
        lines.rank--;
      }
      if (!fits) {
        char in_text[200], out_text[200];
        clgpu__describe_shape(input, in_text, sizeof in_text);
        clgpu__describe_shape(output, out_text, sizeof out_text);
        status = clgpu__fail(CLGPU_SHAPE_MISMATCH,
                             "%s: reducing shape %s along axis %d needs an output of that shape "
                             "without the axis (or with extent 1 there); it has shape %s",
                             who, in_text, axis, out_text);
      }
    }
    if (status != CLGPU_SUCCESS) {
      clgpu__spec_free(&plan->spec);
      return status;
    }
    plan->length = input->shape[a];
    plan->rows = 1;
    for (unsigned d = 0; d < input->rank; d++) {
      if (d != a) plan->rows *= input->shape[d];
    }
    plan->n = count;
    plan->rows_mode = plan->rows != 1;
    if (output) plan->output = lines;
    if (plan->rows_mode) status = clgpu__fit_line(context, who, plan->length, &plan->shape);
    if (status != CLGPU_SUCCESS) {
      clgpu__spec_free(&plan->spec);
      return status;
    }
  }
  if (output) {
    status = clgpu__check_output_layout(output, who, "output");
    if (status == CLGPU_SUCCESS && clgpu__may_alias(input, output)) {
      status = clgpu__fail(CLGPU_INVALID_OUTPUT, "%s: the output may overlap the input", who);
    }
    if (status == CLGPU_SUCCESS) {
      status = clgpu__check_buffer(context, output->buffer, who, "output", 1);
    }
  }
  if (status == CLGPU_SUCCESS && input->buffer) {
    status = clgpu__check_buffer(context, input->buffer, who, "input", 0);
  }
  if (status != CLGPU_SUCCESS) {
    clgpu__spec_free(&plan->spec);
    return status;
  }
  plan->pack_input = plan->n > 0 && !clgpu__array_is_contiguous(&plan->input);
  plan->pack_output =
      output && plan->rows_mode && plan->rows > 0 && !clgpu__array_is_contiguous(&plan->output);
  if (!plan->rows_mode) plan->split = clgpu__split_range(context, &plan->shape, plan->n);
  /* The report first: a size no report can hold is CLGPU_SIZE_OVERFLOW on
   * every device, before a loop cap has its say. */
  status = reduce_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)plan->n);
  } else if (!plan->rows_mode) {
    status = clgpu__fit_partials(context, who, plan->n, &plan->shape, &plan->split);
  }
  if (status != CLGPU_SUCCESS) clgpu__spec_free(&plan->spec);
  return status;
}

/* Enqueue a planned reduction into `result` (one element or the lines'
 * results), or into the workspace's "result" when `result` is NULL. When
 * `host` is not NULL, read the result there, blocking, before the scratch is
 * given back. */
static clgpu_status run_reduce(clgpu_context *context, void *planned, const clgpu__call *call) {
  reduce_plan *plan = planned;
  const clgpu_array *input = call->input, *output = call->output;
  const clgpu_call_options *options = call->options;
  cl_event *event = call->event;
  void *host = call->host;
  const char *who = call->who;
  clgpu__chain chain;
  clgpu__chain_begin(&chain, call->num_events, call->wait_list);
  if (plan->rows == 0) return clgpu__chain_end(context, &chain, event);

  clgpu__argument arguments[] = {{input, "input"}, {output, "output"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 2, who, &scratch));
  clgpu_status ordered = clgpu__scratch_order(context, &scratch, &chain);
  if (ordered != CLGPU_SUCCESS) {
    clgpu__scratch_release(context, &scratch);
    return ordered;
  }
  clgpu__leases held = {{0}, {0}, {0}, 0};
  cl_kernel ranges = NULL, partials = NULL;
  clgpu_program *program = NULL;
  int multi = !plan->rows_mode && plan->split.reserved > 0;
  clgpu_status status = clgpu__spec_program(context, &plan->spec, &plan->shape, &program);
  if (status == CLGPU_SUCCESS)
    status = clgpu__lease(&held, program, "clgpu_reduce_ranges",
                          plan->spec.arg ? CLGPU__ARG_RANGES_INDEXED : CLGPU__ARG_RANGES, &ranges);
  if (status == CLGPU_SUCCESS && multi) {
    status =
        clgpu__lease(&held, program, "clgpu_reduce_partials",
                     plan->spec.arg ? CLGPU__ARG_PARTIALS_INDEXED : CLGPU__ARG_PARTIALS, &partials);
  }

  clgpu__place in = {0}, out = {0};
  clgpu_array packed_out;
  if (status == CLGPU_SUCCESS) {
    status = clgpu__input_place(context, &chain, &scratch, REDUCE_PACKED_INPUT, plan->pack_input,
                                &plan->input, &in, who);
  }
  if (status == CLGPU_SUCCESS) {
    if (!output) {
      out = clgpu__scratch_place(&scratch, REDUCE_RESULT);
    } else if (plan->pack_output) {
      status = clgpu__scratch_view(&scratch, REDUCE_PACKED_OUTPUT, plan->spec.result,
                                   plan->output.rank, plan->output.shape, &packed_out);
      if (status == CLGPU_SUCCESS) status = clgpu__place_of(&packed_out, &out);
    } else {
      status = clgpu__place_of(&plan->output, &out);
    }
  }

  if (status == CLGPU_SUCCESS) {
    clgpu__place slots = multi ? clgpu__scratch_place(&scratch, REDUCE_PARTIALS) : out;
    clgpu__place index_slots =
        multi && plan->spec.arg ? clgpu__scratch_place(&scratch, REDUCE_PARTIAL_INDICES) : out;
    cl_ulong n = plan->n;
    cl_ulong chunk = plan->rows_mode ? plan->length : (multi ? plan->split.chunk : plan->n);
    uint64_t groups = plan->rows_mode ? plan->rows : plan->split.groups;
    cl_int final = !multi;
    cl_int row_indices = plan->rows_mode;
    if (!plan->spec.arg) {
      status = clgpu__enqueue_ranges(context, &chain, ranges, &plan->shape, in, n, chunk, groups,
                                     final, row_indices, slots, out);
    } else {
      clgpu__kernel_arg args[] = {ARG(in.buffer),
                                  ARG(in.offset),
                                  ARG(n),
                                  ARG(chunk),
                                  ARG(final),
                                  ARG(row_indices),
                                  ARG(slots.buffer),
                                  ARG(slots.offset),
                                  ARG(index_slots.buffer),
                                  ARG(index_slots.offset),
                                  ARG(out.buffer),
                                  ARG(out.offset)};
      status = clgpu__set_args(ranges, 0, args, 12, "clgpu_reduce_ranges");
      if (status == CLGPU_SUCCESS) {
        status = clgpu__chain_kernel(
            context, &chain, ranges, clgpu__global_size(groups, plan->shape.group),
            plan->shape.group, "clEnqueueNDRangeKernel(clgpu_reduce_ranges)");
      }
    }
    if (status == CLGPU_SUCCESS && multi) {
      cl_ulong count = plan->split.groups;
      if (!plan->spec.arg) {
        clgpu__kernel_arg args[] = {ARG(slots.buffer), ARG(slots.offset), ARG(count),
                                    ARG(out.buffer), ARG(out.offset)};
        status = clgpu__set_args(partials, 0, args, 5, "clgpu_reduce_partials");
      } else {
        clgpu__kernel_arg args[] = {
            ARG(slots.buffer), ARG(slots.offset), ARG(index_slots.buffer), ARG(index_slots.offset),
            ARG(count),        ARG(out.buffer),   ARG(out.offset)};
        status = clgpu__set_args(partials, 0, args, 7, "clgpu_reduce_partials");
      }
      if (status == CLGPU_SUCCESS) {
        status =
            clgpu__chain_kernel(context, &chain, partials, plan->shape.group, plan->shape.group,
                                "clEnqueueNDRangeKernel(clgpu_reduce_partials)");
      }
    }
  }
  if (status == CLGPU_SUCCESS && output && plan->pack_output) {
    status = clgpu__chain_copy(context, &chain, &plan->output, &packed_out, who);
  }
  if (status == CLGPU_SUCCESS && host) {
    status = clgpu__read_back(context, &chain, out, clgpu__type_size(plan->spec.result), host,
                              "clEnqueueReadBuffer(the result)");
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

clgpu_type clgpu_reduce_result_type(const clgpu_reduce_op *op, clgpu_type input_type) {
  if (!op || clgpu__type_size(input_type) == 0 || input_type == CLGPU_TYPE_OPAQUE)
    return (clgpu_type)0;
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
    case CLGPU_REDUCE_PRODUCT:
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX:
      return input_type;
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX:
    case CLGPU_REDUCE_COUNT:
      return CLGPU_TYPE_UINT64;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      return CLGPU_TYPE_INT32;
    case CLGPU_REDUCE_CUSTOM:
      return clgpu__type_size(op->result_type) ? op->result_type : (clgpu_type)0;
  }
  return (clgpu_type)0;
}

/* The family of clgpu_reduce and count_if: a reduce op (call->op) or a
 * predicate (call->predicate, count_if), and the output (NULL for the
 * _read form and the _upto query). */
static clgpu_status reduce_call_plan(clgpu_context *context, const clgpu__call *call, void *out) {
  clgpu__op_spec s;
  if (call->op) {
    CLGPU__FORWARD_IF_ERROR(clgpu__reduce_spec(call->op, call->input->type, call->who, &s));
  } else {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__predicate_spec(call->input->type, call->predicate, call->who, &s));
  }
  if (call->host && call->host_size != clgpu__type_size(s.result)) {
    clgpu_status status = clgpu__fail(
        CLGPU_INVALID_ARGUMENT, "%s: result_size is %zu, the result is a %s of %zu bytes",
        call->who, call->host_size, clgpu__type_cl_name(s.result), clgpu__type_size(s.result));
    clgpu__spec_free(&s);
    return status;
  }
  return plan_reduce(context, &s, call->input, call->axis, call->output, call->options, call->who,
                     out);
}

static void reduce_call_release(void *plan) { clgpu__spec_free(&((reduce_plan *)plan)->spec); }

static const clgpu__family reduce_family = {reduce_call_plan, run_reduce, reduce_call_release,
                                            offsetof(reduce_plan, report)};

clgpu_status clgpu_reduce(clgpu_context *context, const clgpu_reduce_op *op, int axis,
                          const clgpu_array *output, const clgpu_array *input,
                          const clgpu_call_options *options, cl_uint num_events,
                          const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_reduce";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, num_events, wait_list, event);
  call.op = op;
  call.axis = axis;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, NULL);
}

clgpu_status clgpu_reduce_workspace_size(clgpu_context *context, const clgpu_reduce_op *op,
                                         int axis, const clgpu_array *output,
                                         const clgpu_array *input,
                                         const clgpu_call_options *options,
                                         clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, 0, NULL, NULL);
  call.op = op;
  call.axis = axis;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, out);
}

clgpu_status clgpu_reduce_read_workspace_size(clgpu_context *context, const clgpu_reduce_op *op,
                                              const clgpu_array *input,
                                              const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_read_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, NULL, options, 0, NULL, NULL);
  call.op = op;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, out);
}

clgpu_status clgpu_reduce_read(clgpu_context *context, const clgpu_reduce_op *op, void *result,
                               size_t result_size, const clgpu_array *input,
                               const clgpu_call_options *options) {
  const char *who = "clgpu_reduce_read";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!result, CLGPU_INVALID_ARGUMENT, "%s: result is NULL", who);
  /* The skeleton checks the context and the input once; the plan checks
   * result_size against the operator's result type. */
  clgpu__call call = clgpu__call_make(who, input, NULL, options, 0, NULL, NULL);
  call.op = op;
  call.host = result;
  call.host_size = result_size;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, NULL);
}

clgpu_status clgpu_reduce_workspace_size_upto(clgpu_context *context, const clgpu_reduce_op *op,
                                              clgpu_type input_type, uint64_t max_n,
                                              const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  clgpu__call call = clgpu__call_make(who, NULL, NULL, options, 0, NULL, NULL);
  call.op = op;
  reduce_plan plan;
  return clgpu__query_upto(context, &reduce_family, &call, input_type, max_n, 0, &plan, out);
}

clgpu_status clgpu_count_if(clgpu_context *context, const char *predicate,
                            const clgpu_array *output, const clgpu_array *input,
                            const clgpu_call_options *options, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_count_if";
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, num_events, wait_list, event);
  call.predicate = predicate;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, NULL);
}

clgpu_status clgpu_count_if_workspace_size(clgpu_context *context, const char *predicate,
                                           const clgpu_array *output, const clgpu_array *input,
                                           const clgpu_call_options *options,
                                           clgpu_workspace_size *out) {
  const char *who = "clgpu_count_if_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  clgpu__call call = clgpu__call_make(who, input, output, options, 0, NULL, NULL);
  call.predicate = predicate;
  reduce_plan plan;
  return clgpu__query_or_run(context, &reduce_family, &call, &plan, out);
}
