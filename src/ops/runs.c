/* Scan and reduce by key, unique, unique by key and run-length encoding
 * (runs.h): checks, plan, enqueueing. The operator is a scan or reduce
 * spec of reduce_program.c (unique_by_key's: the values' bits, kept from
 * each run's head; unique's and run-length encoding's: 1 per element,
 * summed into the lengths); the kernels are cl/runs.cl, built on the
 * operator section of cl/reduce.cl.
 *
 * Both shapes cut the n elements as the scans do (clgpu__split_range):
 * a cut range takes three kernels (each range's pair of heads and open-run
 * value, their exclusive scan in one group, each range walked again from
 * its carry); an uncut one the last kernel alone. Views reach the kernels
 * with their strides, so only an input that an output may overlap is
 * copied to the workspace. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/reduce.h>
#include <clgpu/runs.h>
#include <clgpu/scan.h>
#include <clgpu/workspace.h>

#include "array_internal.h"
#include "call.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "expression.h"
#include "lease.h"
#include "overflow.h"
#include "op_prepare.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "tuning.h"
#include "workspace_internal.h"

#define ARG(x) CLGPU__ARG(x)

enum { RUNS_STAGED_KEYS, RUNS_STAGED_VALUES, RUNS_HEADS, RUNS_TOTALS, RUNS_PACKED, RUNS_COUNTS };

/* What a call writes. */
typedef enum runs_mode {
  RUNS_SCAN,   /* clgpu_scan_by_key: an output per element */
  RUNS_REDUCE, /* clgpu_reduce_by_key: run keys, reduced values, count */
  RUNS_FIRST,  /* clgpu_unique_by_key: run keys, first values, count */
  RUNS_COUNT,  /* clgpu_unique and clgpu_run_length_encode: run keys,
                  lengths, offsets (each optional but for unique's keys),
                  count; no values */
} runs_mode;

/* The views of a call: scan_by_key's output, or the runs' outputs
 * (`second`: the reduced values, the first values or the lengths). */
typedef struct runs_views {
  const clgpu_array *keys, *values;
  const clgpu_array *output;
  const clgpu_array *run_keys, *second, *offsets, *count;
} runs_views;

typedef struct runs_plan {
  clgpu__shape shape;
  clgpu__op_spec spec;
  runs_mode mode;
  int exclusive; /* scan_by_key */
  clgpu_type key_type;
  char *equal; /* the caller's key equality as one line, or NULL */
  uint64_t n;
  int stage_keys, stage_values;
  int encode;             /* RUNS_COUNT: run-length encoding (else unique) */
  clgpu_type values_type; /* the values', where the call has values */
  int wide_offsets;       /* RUNS_COUNT: ulong offsets */
  clgpu__split split;
  /* unique cut into CHUNKED ranges reads its keys once: each range packs
   * its run keys into "packed", and they are moved to the output
   * (cl/runs.cl clgpu_runs_pack, clgpu_runs_move) */
  int pack;
  clgpu_workspace_size report;
} runs_plan;

static void runs_free(runs_plan *plan) {
  clgpu__spec_free(&plan->spec);
  free(plan->equal);
  plan->equal = NULL;
}

/* The key type and equality: any built-in type; an expression is checked
 * by the rules of docs/expressions.md and needs the type's arithmetic
 * (bitwise equality reads only bits, so half and double keys need no
 * extension). */
static clgpu_status check_keys(const clgpu_context *context, clgpu_type key_type,
                               const char *key_equal, const char *who, runs_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(key_type, who, "the keys"));
  plan->key_type = key_type;
  if (!key_equal) return CLGPU_SUCCESS;
  CLGPU__RETURN_ERROR_IF(!key_equal[0], CLGPU_INVALID_ARGUMENT,
                         "%s: key_equal is empty (NULL compares the keys' bits)", who);
  CLGPU__FORWARD_IF_ERROR(
      clgpu__check_user_text(key_equal, CLGPU__TEXT_EXPRESSION, who, "key_equal"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_type_support(context, key_type, who));
  plan->equal = clgpu__expression_line(key_equal);
  CLGPU__RETURN_ERROR_IF(!plan->equal, CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: out of host memory", who);
  return CLGPU_SUCCESS;
}

/* The operator of the mode: the caller's scan op, the caller's reduce op
 * other than ARGMIN and ARGMAX, the values' bits (kept, never combined),
 * or 1 per element summed in `type` (the lengths'). */
static clgpu_status take_op(const clgpu_context *context, runs_mode mode, const void *op,
                            clgpu_type value_type, const char *who, runs_plan *plan) {
  if (mode == RUNS_FIRST || mode == RUNS_COUNT) {
    clgpu_type bits = CLGPU_TYPE_UINT8;
    if (mode == RUNS_FIRST) {
      CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(value_type, who, "the values"));
      bits = clgpu__unsigned_type_of(clgpu__type_size(value_type));
    }
    /* Lengths are counted in ulong whatever their type, so that the
     * workspace does not depend on it. */
    clgpu_reduce_op own = {CLGPU_REDUCE_CUSTOM,
                           NULL,
                           mode == RUNS_FIRST ? bits : CLGPU_TYPE_UINT64,
                           mode == RUNS_FIRST ? "x" : "1",
                           mode == RUNS_FIRST ? "a" : "a + b",
                           "0"};
    CLGPU__FORWARD_IF_ERROR(clgpu__reduce_spec(&own, bits, who, &plan->spec));
    if (mode == RUNS_COUNT) plan->spec.result = value_type;
    return CLGPU_SUCCESS;
  }
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  if (mode == RUNS_SCAN) {
    const clgpu_scan_op *scan_op = op;
    CLGPU__FORWARD_IF_ERROR(clgpu__scan_spec(scan_op, value_type, who, &plan->spec));
    plan->exclusive = scan_op->exclusive != 0;
  } else {
    const clgpu_reduce_op *reduce_op = op;
    CLGPU__RETURN_ERROR_IF(
        reduce_op->kind == CLGPU_REDUCE_ARGMIN || reduce_op->kind == CLGPU_REDUCE_ARGMAX,
        CLGPU_INVALID_ARGUMENT,
        "%s: ARGMIN and ARGMAX are not reductions by key (a run's index is its head's: "
        "reduce the positions with a CUSTOM op instead)",
        who);
    CLGPU__FORWARD_IF_ERROR(clgpu__reduce_spec(reduce_op, value_type, who, &plan->spec));
  }
  /* A device that fails on char MIN and MAX (the quirks table) orders in
   * int: the same order, the values and results still int8. */
  if (context->quirks.widen_char_order && plan->spec.order &&
      plan->spec.accumulator == CLGPU_TYPE_INT8) {
    plan->spec.accumulator = CLGPU_TYPE_INT32;
  }
  return clgpu__check_spec_support(context, &plan->spec, who);
}

/* 1-D keys, and values of the same length where the call has them. */
static clgpu_status check_inputs(const clgpu_context *context, const runs_views *views,
                                 const char *who) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(views->keys, who, "keys"));
  if (!views->values) return clgpu__check_buffer(context, views->keys->buffer, who, "keys", 0);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(views->values, who, "values"));
  CLGPU__RETURN_ERROR_IF(views->keys->shape[0] != views->values->shape[0], CLGPU_SHAPE_MISMATCH,
                         "%s: %zu keys and %zu values (one value per key)", who,
                         views->keys->shape[0], views->values->shape[0]);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, views->keys->buffer, who, "keys", 0));
  return clgpu__check_buffer(context, views->values->buffer, who, "values", 0);
}

/* A 1-D output of `type`, written by the kernels at any stride. */
static clgpu_status check_output(const clgpu_context *context, const clgpu_array *view,
                                 clgpu_type type, const char *who, const char *name) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(view, who, name));
  CLGPU__RETURN_ERROR_IF(view->type != type, CLGPU_TYPE_MISMATCH, "%s: %s holds %s, not %s", who,
                         name, clgpu__type_cl_name(view->type), clgpu__type_cl_name(type));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(view, who, name));
  return clgpu__check_buffer(context, view->buffer, who, name, 1);
}

static clgpu_status check_scan_views(const clgpu_context *context, const runs_views *views,
                                     const char *who, runs_plan *plan) {
  const clgpu_array *output = views->output;
  CLGPU__FORWARD_IF_ERROR(check_output(context, output, plan->spec.result, who, "output"));
  CLGPU__RETURN_ERROR_IF(output->shape[0] != plan->n, CLGPU_SHAPE_MISMATCH,
                         "%s: the output has %zu elements for %llu values", who, output->shape[0],
                         (unsigned long long)plan->n);
  /* In place over the values reads each value before writing it. */
  int in_place = clgpu__array_same(views->values, output);
  plan->stage_keys = clgpu__may_alias(views->keys, output);
  plan->stage_values = !in_place && clgpu__may_alias(views->values, output);
  return CLGPU_SUCCESS;
}

/* The name of a runs call's second output. */
static const char *second_output(runs_mode mode) {
  return mode == RUNS_REDUCE ? "reduced" : mode == RUNS_FIRST ? "run_values" : "lengths";
}

/* An optional output of the runs: 1-D, of `type` (0: uint or ulong for
 * indices up to n), apart from the outputs checked before it. */
static clgpu_status check_run_output(const clgpu_context *context, const clgpu_array *view,
                                     clgpu_type type, const clgpu_array *const *before,
                                     const char *const *before_names, int num_before,
                                     const runs_plan *plan, const char *who, const char *name) {
  if (!view) return CLGPU_SUCCESS;
  if (!type) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_view_1d(view, who, name));
    CLGPU__FORWARD_IF_ERROR(clgpu__check_index_type(view->type, plan->n, who, name));
    type = view->type;
  }
  CLGPU__FORWARD_IF_ERROR(check_output(context, view, type, who, name));
  for (int k = 0; k < num_before; k++) {
    if (before[k]) {
      CLGPU__FORWARD_IF_ERROR(clgpu__check_apart(view, before[k], who, name, before_names[k]));
    }
  }
  return CLGPU_SUCCESS;
}

static clgpu_status check_run_views(const clgpu_context *context, const runs_views *views,
                                    const char *who, runs_plan *plan) {
  const clgpu_array *count = views->count;
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT, "%s: count is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_view(count, who, "count"));
  CLGPU__RETURN_ERROR_IF(count->type != CLGPU_TYPE_UINT64, CLGPU_TYPE_MISMATCH,
                         "%s: the count must be a ulong (CLGPU_TYPE_UINT64), not %s", who,
                         clgpu__type_cl_name(count->type));
  CLGPU__RETURN_ERROR_IF(clgpu__array_count(count) != 1, CLGPU_SHAPE_MISMATCH,
                         "%s: the count must be one element, not %zu", who,
                         clgpu__array_count(count));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, count->buffer, who, "count", 1));
  /* The second output: the reduced values (the result type), the first
   * values (the values' type) or the lengths (uint or ulong). */
  const char *second_name = second_output(plan->mode);
  clgpu_type second_type = plan->mode == RUNS_REDUCE  ? plan->spec.result
                           : plan->mode == RUNS_FIRST ? views->values->type
                                                      : 0;
  const clgpu_array *outputs[] = {count, views->run_keys, views->second, views->offsets};
  const char *const names[] = {"count", "run_keys", second_name, "offsets"};
  CLGPU__FORWARD_IF_ERROR(check_run_output(context, views->run_keys, plan->key_type, outputs, names,
                                           1, plan, who, "run_keys"));
  CLGPU__FORWARD_IF_ERROR(check_run_output(context, views->second, second_type, outputs, names, 2,
                                           plan, who, second_name));
  CLGPU__FORWARD_IF_ERROR(
      check_run_output(context, views->offsets, 0, outputs, names, 3, plan, who, "offsets"));
  for (int k = 0; k < 4; k++) {
    if (!outputs[k]) continue;
    plan->stage_keys |= clgpu__may_alias(views->keys, outputs[k]);
    if (views->values) plan->stage_values |= clgpu__may_alias(views->values, outputs[k]);
  }
  return CLGPU_SUCCESS;
}

/* On a device with a loop cap (quirks.c), ranges small enough that no
 * work-item's loops pass it: a TILED work-item walks its elements up to
 * four times in one kernel (the heads counted, the open run found walking
 * back and folded, the walk), plus the loops of its tiles, where the
 * common split allows for four in all. */
static void fit_loop_cap(const clgpu_context *context, runs_plan *plan) {
  uint64_t cap = context->quirks.loop_iteration_cap;
  if (!cap || plan->n == 0) return;
  int tiled = plan->shape.kind == CLGPU_SHAPE_TILED;
  uint64_t items = tiled ? plan->shape.group : 1;
  uint64_t unit = tiled ? (uint64_t)plan->shape.group * context->tuning->tile_items
                        : context->tuning->chunk_unit;
  uint64_t fits = cap / 6 * items / unit * unit;
  clgpu__split_at_most(plan->n, fits < unit ? unit : fits, &plan->split);
}

/* The ranges and the report. */
static clgpu_status lay_out(const clgpu_context *context, runs_plan *plan, const char *who) {
  plan->stage_keys = plan->stage_keys && plan->n > 0;
  plan->stage_values = plan->stage_values && plan->n > 0;
  plan->split = clgpu__split_range(context, &plan->shape, plan->n);
  fit_loop_cap(context, plan);
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  static const clgpu_operation operations[] = {
      CLGPU_OPERATION_SCAN_BY_KEY, CLGPU_OPERATION_REDUCE_BY_KEY, CLGPU_OPERATION_UNIQUE,
      CLGPU_OPERATION_RUN_LENGTH_ENCODE};
  clgpu_operation operation = operations[plan->mode];
  /* unique and unique_by_key are one operation, run-length encoding
   * another. */
  if (plan->mode == RUNS_COUNT && !plan->encode) operation = CLGPU_OPERATION_UNIQUE;
  unsigned part = clgpu__report_part(report, operation, plan->shape.kind, CLGPU_ALGORITHM_AUTO, -1);
  clgpu__report_buffer(report, part, "staged_keys", plan->key_type, plan->stage_keys ? plan->n : 0);
  clgpu__report_buffer(report, part, "staged_values",
                       plan->values_type ? plan->values_type : plan->spec.input,
                       plan->stage_values ? plan->n : 0);
  clgpu__report_buffer(report, part, "heads", CLGPU_TYPE_UINT64, plan->split.reserved);
  clgpu__report_buffer(report, part, "totals", plan->spec.accumulator, plan->split.reserved);
  plan->pack = plan->mode == RUNS_COUNT && !plan->encode &&
               plan->shape.kind == CLGPU_SHAPE_CHUNKED && plan->split.reserved > 0;
  clgpu__report_buffer(report, part, "packed", plan->key_type, plan->pack ? plan->n : 0);
  clgpu__report_buffer(report, part, "counts", CLGPU_TYPE_UINT64,
                       plan->pack ? plan->split.reserved : 0);
  clgpu_status status = clgpu__report_finish(report, context, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the keys hold %llu elements)", (unsigned long long)plan->n);
    return status;
  }
  return clgpu__fit_partials(context, who, plan->n, &plan->shape, &plan->split);
}

/* Checks and plans a call (views given) or an "_upto" query (views NULL:
 * max_n contiguous keys and values, nothing staged). */
static clgpu_status plan_runs(clgpu_context *context, runs_mode mode, int encode, const void *op,
                              const char *key_equal, const runs_views *views, clgpu_type key_type,
                              clgpu_type value_type, uint64_t n, const clgpu_call_options *options,
                              const char *who, runs_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->mode = mode;
  plan->encode = encode;
  plan->n = n;
  plan->values_type = mode == RUNS_COUNT ? 0 : value_type;
  /* Lengths of the lengths' type; unique (and an encoding without
   * lengths, or its _upto query) counts in ulong. */
  if (mode == RUNS_COUNT && views) {
    value_type = views->second ? views->second->type : CLGPU_TYPE_UINT64;
    plan->wide_offsets = !views->offsets || views->offsets->type == CLGPU_TYPE_UINT64;
  } else if (mode == RUNS_COUNT) {
    /* A query's lengths and offsets: uint where asked for (a prebuild's),
     * else ulong. */
    if (value_type != CLGPU_TYPE_UINT32) value_type = CLGPU_TYPE_UINT64;
    plan->wide_offsets = value_type == CLGPU_TYPE_UINT64;
  }
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__shape_resolve(context, options, who, &plan->shape));
  clgpu_status status = CLGPU_SUCCESS;
  if (mode == RUNS_COUNT && views && views->second) {
    status = clgpu__check_index_type(value_type, n, who, "lengths");
  }
  if (status == CLGPU_SUCCESS) status = take_op(context, mode, op, value_type, who, plan);
  if (status == CLGPU_SUCCESS) status = check_keys(context, key_type, key_equal, who, plan);
  if (status == CLGPU_SUCCESS && views) {
    status = plan->mode == RUNS_SCAN ? check_scan_views(context, views, who, plan)
                                     : check_run_views(context, views, who, plan);
  }
  if (status == CLGPU_SUCCESS) status = lay_out(context, plan, who);
  if (status != CLGPU_SUCCESS) runs_free(plan);
  return status;
}

/* The program of the plan, with the views' strides or without. */
static clgpu_status runs_program(clgpu_context *context, const runs_plan *plan, int strided,
                                 clgpu_program **out) {
  size_t key_size = clgpu__type_size(plan->key_type);
  const char *key_name = clgpu__type_cl_name(plan->key_type);
  char as_key[32];
  snprintf(as_key, sizeof as_key, "as_%s", key_name);
  clgpu_define extra[CLGPU__SPEC_EXTRA_DEFINES];
  size_t count = 0;
  extra[count++] = (clgpu_define){"CLGPU_RUN_KB", clgpu__unsigned_type(key_size)};
  if (plan->equal) {
    extra[count++] = (clgpu_define){"CLGPU_RUN_K", key_name};
    extra[count++] = (clgpu_define){"CLGPU_RUN_AS", as_key};
    extra[count++] = (clgpu_define){"CLGPU_RUN_EQUAL", plan->equal};
    /* The key's arithmetic, where the operator's types do not bring it. */
    const clgpu__op_spec *s = &plan->spec;
    clgpu_type types[3] = {s->input, s->accumulator, s->result};
    int has = 0;
    for (int k = 0; k < 3; k++) has |= types[k] == plan->key_type;
    if (!has && plan->key_type == CLGPU_TYPE_DOUBLE) {
      extra[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
    }
    if (!has && plan->key_type == CLGPU_TYPE_HALF) {
      extra[count++] = (clgpu_define){"CLGPU_NEEDS_FP16", NULL};
    }
  }
  if (plan->mode == RUNS_SCAN) extra[count++] = (clgpu_define){"CLGPU_RUN_SCAN", NULL};
  if (plan->mode == RUNS_FIRST) extra[count++] = (clgpu_define){"CLGPU_RUN_FIRST", NULL};
  if (plan->mode == RUNS_COUNT) {
    extra[count++] = (clgpu_define){"CLGPU_RUN_NO_VALUES", NULL};
    /* unique writes the run keys and the count alone: a walk without
     * branches on the heads. */
    if (!plan->encode) extra[count++] = (clgpu_define){"CLGPU_RUN_KEYS_ONLY", NULL};
    if (!plan->wide_offsets) extra[count++] = (clgpu_define){"CLGPU_RUN_OFFSET_T", "uint"};
  }
  if (strided) extra[count++] = (clgpu_define){"CLGPU_RUN_STRIDED", NULL};
  /* reduce_by_key with a float or double SUM walks its running values
   * sixteen at a time in the CHUNKED shape (cl/runs.cl), with masks of
   * the accumulator's size (the define's value); an integer sum's
   * addition is too quick to wait on. */
  const clgpu__op_spec *spec = &plan->spec;
  if (plan->mode == RUNS_REDUCE && spec->vector_op == 1 &&
      plan->shape.kind == CLGPU_SHAPE_CHUNKED &&
      (spec->accumulator == CLGPU_TYPE_FLOAT || spec->accumulator == CLGPU_TYPE_DOUBLE)) {
    extra[count++] = (clgpu_define){"CLGPU_RUN_VECTOR_SUM",
                                    clgpu__unsigned_type(clgpu__type_size(spec->accumulator))};
  }
  if (context->quirks.no_vector_compare) {
    extra[count++] = (clgpu_define){"CLGPU_RUN_SCALAR", NULL};
  }
  return clgpu__spec_program_with(context, &plan->spec, &plan->shape, extra, count, "runs", out);
}

/* A view's place and stride as a kernel reads it (a staged copy: 1), and
 * how many elements it has room for (0: a view the call does not have,
 * whose place is a stand-in the kernel never writes). */
typedef struct runs_view_arg {
  clgpu__place place;
  cl_long step;
  cl_ulong capacity;
} runs_view_arg;

static clgpu_status view_arg(const clgpu_array *view, clgpu__place stand_in, runs_view_arg *out) {
  out->step = 1;
  out->capacity = 0;
  out->place = stand_in;
  if (!view) return CLGPU_SUCCESS;
  out->step = view->strides[0];
  out->capacity = view->shape[0];
  return clgpu__place_of(view, &out->place);
}

static clgpu_status staged_arg(clgpu_context *context, clgpu__chain *chain,
                               const clgpu__scratch *scratch, unsigned index, int stage,
                               const clgpu_array *view, const char *who, runs_view_arg *out) {
  out->step = stage ? 1 : view->strides[0];
  out->capacity = view->shape[0];
  return clgpu__input_place(context, chain, scratch, index, stage, view, &out->place, who);
}

/* The kernels' buffer arguments (cleared when a call gives them back). */
#define RUNS_ARG_TOTALS \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(3) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(10))
#define RUNS_ARG_CARRIES (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2))
#define RUNS_ARG_SCAN (RUNS_ARG_TOTALS | CLGPU__BUFFER_ARG(13))
#define RUNS_ARG_RUNS \
  (RUNS_ARG_SCAN | CLGPU__BUFFER_ARG(17) | CLGPU__BUFFER_ARG(21) | CLGPU__BUFFER_ARG(23))

#define RUNS_ARG_PACK                                                                           \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(3) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(10) | \
   CLGPU__BUFFER_ARG(12) | CLGPU__BUFFER_ARG(14))
#define RUNS_ARG_MOVE                                                                          \
  (CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6) | CLGPU__BUFFER_ARG(9) | \
   CLGPU__BUFFER_ARG(13))

/* The exclusive scan of the ranges' pairs, in place, by one group. */
static clgpu_status enqueue_carries(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                    clgpu__place heads, clgpu__place totals, cl_ulong groups,
                                    size_t group) {
  clgpu__kernel_arg args[] = {ARG(heads.buffer), ARG(heads.offset), ARG(totals.buffer),
                              ARG(totals.offset), ARG(groups)};
  clgpu_status status = clgpu__set_args(kernel, 0, args, 5, "clgpu_runs_carries");
  if (status != CLGPU_SUCCESS) return status;
  return clgpu__chain_kernel(context, chain, kernel, group, group,
                             "clEnqueueNDRangeKernel(clgpu_runs_carries)");
}

/* unique's packed path (runs_plan.pack): the ranges packed, their counts
 * scanned, the packed keys moved to the run keys. */
static clgpu_status enqueue_packed(clgpu_context *context, clgpu__chain *chain,
                                   const runs_plan *plan, clgpu_program *program,
                                   clgpu__leases *held, const clgpu__scratch *scratch,
                                   const runs_view_arg *keys, const runs_view_arg *outputs) {
  cl_kernel pack = NULL, carries = NULL, move = NULL;
  clgpu_status status = clgpu__lease(held, program, "clgpu_runs_pack", RUNS_ARG_PACK, &pack);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(held, program, "clgpu_runs_carries", RUNS_ARG_CARRIES, &carries);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(held, program, "clgpu_runs_move", RUNS_ARG_MOVE, &move);
  }
  if (status != CLGPU_SUCCESS) return status;
  cl_ulong n = plan->n, chunk = plan->split.chunk, groups = plan->split.groups;
  clgpu__place packed = clgpu__scratch_place(scratch, RUNS_PACKED);
  clgpu__place heads = clgpu__scratch_place(scratch, RUNS_HEADS);
  clgpu__place totals = clgpu__scratch_place(scratch, RUNS_TOTALS);
  clgpu__place counts = clgpu__scratch_place(scratch, RUNS_COUNTS);
  /* No values: the keys stand in for them, never read. */
  clgpu__kernel_arg pack_args[] = {ARG(keys->place.buffer),
                                   ARG(keys->place.offset),
                                   ARG(keys->step),
                                   ARG(keys->place.buffer),
                                   ARG(keys->place.offset),
                                   ARG(keys->step),
                                   ARG(n),
                                   ARG(chunk),
                                   ARG(packed.buffer),
                                   ARG(packed.offset),
                                   ARG(heads.buffer),
                                   ARG(heads.offset),
                                   ARG(totals.buffer),
                                   ARG(totals.offset),
                                   ARG(counts.buffer),
                                   ARG(counts.offset)};
  status = clgpu__set_args(pack, 0, pack_args, 16, "clgpu_runs_pack");
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_kernel(context, chain, pack, clgpu__global_size(groups, 1), 1,
                                 "clEnqueueNDRangeKernel(clgpu_runs_pack)");
  }
  if (status == CLGPU_SUCCESS) {
    status = enqueue_carries(context, chain, carries, heads, totals, groups, 1);
  }
  const runs_view_arg *run_keys = &outputs[0], *count = &outputs[2];
  clgpu__kernel_arg move_args[] = {ARG(n),
                                   ARG(chunk),
                                   ARG(packed.buffer),
                                   ARG(packed.offset),
                                   ARG(heads.buffer),
                                   ARG(heads.offset),
                                   ARG(counts.buffer),
                                   ARG(counts.offset),
                                   ARG(groups),
                                   ARG(run_keys->place.buffer),
                                   ARG(run_keys->place.offset),
                                   ARG(run_keys->step),
                                   ARG(run_keys->capacity),
                                   ARG(count->place.buffer),
                                   ARG(count->place.offset)};
  if (status == CLGPU_SUCCESS) status = clgpu__set_args(move, 0, move_args, 15, "clgpu_runs_move");
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_kernel(context, chain, move, clgpu__global_size(groups, 1), 1,
                                 "clEnqueueNDRangeKernel(clgpu_runs_move)");
  }
  return status;
}

/* The arguments of clgpu_runs_write from 13 on: the outputs. */
static clgpu_status set_outputs(cl_kernel kernel, const runs_plan *plan,
                                const runs_view_arg *outputs) {
  if (plan->mode == RUNS_SCAN) {
    cl_int exclusive = plan->exclusive;
    const runs_view_arg *out = &outputs[0];
    clgpu__kernel_arg args[] = {ARG(out->place.buffer), ARG(out->place.offset), ARG(out->step),
                                ARG(exclusive)};
    return clgpu__set_args(kernel, 13, args, 4, "clgpu_runs_write");
  }
  const runs_view_arg *keys = &outputs[0], *second = &outputs[1], *count = &outputs[2];
  const runs_view_arg *offsets = &outputs[3];
  clgpu__kernel_arg args[] = {
      ARG(keys->place.buffer),  ARG(keys->place.offset),    ARG(keys->step),
      ARG(keys->capacity),      ARG(second->place.buffer),  ARG(second->place.offset),
      ARG(second->step),        ARG(second->capacity),      ARG(count->place.buffer),
      ARG(count->place.offset), ARG(offsets->place.buffer), ARG(offsets->place.offset),
      ARG(offsets->step),       ARG(offsets->capacity)};
  return clgpu__set_args(kernel, 13, args, 14, "clgpu_runs_write");
}

static clgpu_status run_runs(clgpu_context *context, const runs_plan *plan, const runs_views *views,
                             const clgpu_call_options *options, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event, const char *who) {
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  /* The views the call does not have are NULL, which the check skips. */
  clgpu__argument arguments[] = {{views->keys, "keys"},
                                 {views->values, "values"},
                                 {views->output, "output"},
                                 {views->run_keys, "run_keys"},
                                 {views->second, second_output(plan->mode)},
                                 {views->offsets, "offsets"},
                                 {views->count, "count"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 7, who, &scratch));
  clgpu_status ordered = clgpu__scratch_order(context, &scratch, &chain);
  if (ordered != CLGPU_SUCCESS) {
    clgpu__scratch_release(context, &scratch);
    return ordered;
  }
  /* An empty scan writes nothing (its workspace checked all the same);
   * the runs' calls still write their count of 0. */
  if (plan->mode == RUNS_SCAN && plan->n == 0) {
    clgpu__scratch_release(context, &scratch);
    return clgpu__chain_end(context, &chain, event);
  }
  clgpu__leases held = {{0}, {0}, {0}, 0};
  int multi = plan->split.reserved > 0;
  runs_view_arg keys, values, outputs[4];
  memset(outputs, 0, sizeof outputs);
  clgpu_status status = staged_arg(context, &chain, &scratch, RUNS_STAGED_KEYS, plan->stage_keys,
                                   views->keys, who, &keys);
  if (status == CLGPU_SUCCESS && views->values) {
    status = staged_arg(context, &chain, &scratch, RUNS_STAGED_VALUES, plan->stage_values,
                        views->values, who, &values);
  } else {
    /* No values (unique, run-length encoding): never read. */
    values = keys;
    values.step = 1;
  }
  const clgpu_array *written[4] = {views->output, NULL, NULL, NULL};
  if (plan->mode != RUNS_SCAN) {
    written[0] = views->run_keys;
    written[1] = views->second;
    written[2] = views->count;
    written[3] = views->offsets;
  }
  for (int k = 0; k < 4 && status == CLGPU_SUCCESS; k++) {
    status = view_arg(written[k], keys.place, &outputs[k]);
  }
  int strided = keys.step != 1 || values.step != 1;
  for (int k = 0; k < 4; k++) strided |= outputs[k].step != 1;
  clgpu_program *program = NULL;
  cl_kernel totals_kernel = NULL, carries_kernel = NULL, write_kernel = NULL;
  if (status == CLGPU_SUCCESS) status = runs_program(context, plan, strided, &program);
  if (status == CLGPU_SUCCESS && plan->pack) {
    status = enqueue_packed(context, &chain, plan, program, &held, &scratch, &keys, outputs);
    return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
  }
  if (status == CLGPU_SUCCESS && multi) {
    status = clgpu__lease(&held, program, "clgpu_runs_totals", RUNS_ARG_TOTALS, &totals_kernel);
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu__lease(&held, program, "clgpu_runs_carries", RUNS_ARG_CARRIES, &carries_kernel);
    }
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(&held, program, "clgpu_runs_write",
                          plan->mode == RUNS_SCAN ? RUNS_ARG_SCAN : RUNS_ARG_RUNS, &write_kernel);
  }
  cl_ulong n = plan->n, chunk = multi ? plan->split.chunk : plan->n;
  uint64_t groups = multi ? plan->split.groups : 1;
  size_t group = plan->shape.group;
  /* Without a cut there are no carries: the keys stand in for them. */
  clgpu__place heads = multi ? clgpu__scratch_place(&scratch, RUNS_HEADS) : keys.place;
  clgpu__place totals = multi ? clgpu__scratch_place(&scratch, RUNS_TOTALS) : keys.place;
  if (status == CLGPU_SUCCESS && multi) {
    clgpu__kernel_arg args[] = {ARG(keys.place.buffer),
                                ARG(keys.place.offset),
                                ARG(keys.step),
                                ARG(values.place.buffer),
                                ARG(values.place.offset),
                                ARG(values.step),
                                ARG(n),
                                ARG(chunk),
                                ARG(heads.buffer),
                                ARG(heads.offset),
                                ARG(totals.buffer),
                                ARG(totals.offset)};
    status = clgpu__set_args(totals_kernel, 0, args, 12, "clgpu_runs_totals");
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu__chain_kernel(context, &chain, totals_kernel, clgpu__global_size(groups, group),
                              group, "clEnqueueNDRangeKernel(clgpu_runs_totals)");
    }
    if (status == CLGPU_SUCCESS) {
      status = enqueue_carries(context, &chain, carries_kernel, heads, totals, groups, group);
    }
  }
  if (status == CLGPU_SUCCESS) {
    cl_int use_carries = multi;
    clgpu__kernel_arg args[] = {ARG(keys.place.buffer),
                                ARG(keys.place.offset),
                                ARG(keys.step),
                                ARG(values.place.buffer),
                                ARG(values.place.offset),
                                ARG(values.step),
                                ARG(n),
                                ARG(chunk),
                                ARG(heads.buffer),
                                ARG(heads.offset),
                                ARG(totals.buffer),
                                ARG(totals.offset),
                                ARG(use_carries)};
    status = clgpu__set_args(write_kernel, 0, args, 13, "clgpu_runs_write");
  }
  if (status == CLGPU_SUCCESS) status = set_outputs(write_kernel, plan, outputs);
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_kernel(context, &chain, write_kernel, clgpu__global_size(groups, group),
                                 group, "clEnqueueNDRangeKernel(clgpu_runs_write)");
  }
  return clgpu__finish_call(context, status, &chain, event, &held, &scratch);
}

/* Every entry point: the checks, the plan, then the report into `query`
 * when it is not NULL, else the run. */
static clgpu_status runs_entry(clgpu_context *context, runs_mode mode, int encode, const void *op,
                               const char *key_equal, const runs_views *views,
                               const clgpu_call_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event,
                               clgpu_workspace_size *query, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  CLGPU__RETURN_ERROR_IF(!views->keys, CLGPU_INVALID_ARGUMENT, "%s: keys is NULL", who);
  CLGPU__RETURN_ERROR_IF(mode != RUNS_COUNT && !views->values, CLGPU_INVALID_ARGUMENT,
                         "%s: values is NULL", who);
  CLGPU__RETURN_ERROR_IF(mode == RUNS_SCAN && !views->output, CLGPU_INVALID_ARGUMENT,
                         "%s: output is NULL", who);
  /* Run keys are optional in a run-length encoding only. */
  CLGPU__RETURN_ERROR_IF(mode != RUNS_SCAN && !encode && !views->run_keys, CLGPU_INVALID_ARGUMENT,
                         "%s: run_keys is NULL", who);
  CLGPU__RETURN_ERROR_IF((mode == RUNS_REDUCE || mode == RUNS_FIRST) && !views->second,
                         CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who,
                         mode == RUNS_REDUCE ? "reduced" : "run_values");
  CLGPU__FORWARD_IF_ERROR(check_inputs(context, views, who));
  runs_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_runs(context, mode, encode, op, key_equal, views, views->keys->type,
                                    views->values ? views->values->type : CLGPU_TYPE_UINT8,
                                    views->keys->shape[0], options, who, &plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    *query = plan.report;
  } else {
    clgpu__queue_scope previous;
    status = clgpu__queue_enter(context, options ? options->queue : NULL, who, &previous);
    if (status == CLGPU_SUCCESS) {
      status = run_runs(context, &plan, views, options, num_events, wait_list, event, who);
      clgpu__queue_leave(&previous);
    }
  }
  runs_free(&plan);
  return status;
}

static clgpu_status runs_upto(clgpu_context *context, runs_mode mode, int encode, const void *op,
                              const char *key_equal, clgpu_type key_type, clgpu_type value_type,
                              uint64_t max_n, const clgpu_call_options *options,
                              clgpu_workspace_size *out, const char *who) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  runs_plan plan;
  clgpu_status status = plan_runs(context, mode, encode, op, key_equal, NULL, key_type, value_type,
                                  max_n, options, who, &plan);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_max_n(max_n);
    return status;
  }
  *out = plan.report;
  runs_free(&plan);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__runs_prepare(clgpu_context *context, clgpu__runs_kind kind, const void *op,
                                 const char *key_equal, clgpu_type key_type, clgpu_type value_type,
                                 const clgpu_call_options *options, const char *who) {
  static const clgpu_scan_op inclusive = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  static const clgpu_reduce_op sum = {CLGPU_REDUCE_SUM, NULL, (clgpu_type)0, NULL, NULL, NULL};
  runs_mode mode = RUNS_COUNT;
  int encode = kind == CLGPU__RUNS_LENGTH_ENCODE;
  if (kind == CLGPU__RUNS_SCAN_BY_KEY) {
    mode = RUNS_SCAN;
    if (!op) op = &inclusive;
  } else if (kind == CLGPU__RUNS_REDUCE_BY_KEY) {
    mode = RUNS_REDUCE;
    if (!op) op = &sum;
  } else if (kind == CLGPU__RUNS_UNIQUE && value_type) {
    mode = RUNS_FIRST;
  }
  if (encode) {
    CLGPU__RETURN_ERROR_IF(
        value_type && value_type != CLGPU_TYPE_UINT32 && value_type != CLGPU_TYPE_UINT64,
        CLGPU_TYPE_MISMATCH,
        "%s: lengths and offsets of a run-length encoding are uint or ulong, "
        "not %s",
        who, clgpu__type_cl_name(value_type));
  } else if (mode != RUNS_COUNT && !value_type) {
    value_type = key_type; /* the values' type defaults to the keys' */
  }
  runs_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_runs(context, mode, encode, op, key_equal, NULL, key_type,
                                    value_type, 1, options, who, &plan));
  clgpu_program *program = NULL;
  clgpu_status status = runs_program(context, &plan, 0, &program);
  runs_free(&plan);
  return status;
}

/* ---- scan and reduce by key ---- */

clgpu_status clgpu_scan_by_key(clgpu_context *context, const clgpu_scan_op *op,
                               const char *key_equal, const clgpu_array *output,
                               const clgpu_array *values, const clgpu_array *keys,
                               const clgpu_call_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event) {
  runs_views views = {keys, values, output, NULL, NULL, NULL, NULL};
  return runs_entry(context, RUNS_SCAN, 0, op, key_equal, &views, options, num_events, wait_list,
                    event, NULL, "clgpu_scan_by_key");
}

clgpu_status clgpu_scan_by_key_workspace_size(clgpu_context *context, const clgpu_scan_op *op,
                                              const char *key_equal, const clgpu_array *output,
                                              const clgpu_array *values, const clgpu_array *keys,
                                              const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  const char *who = "clgpu_scan_by_key_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  runs_views views = {keys, values, output, NULL, NULL, NULL, NULL};
  return runs_entry(context, RUNS_SCAN, 0, op, key_equal, &views, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu_scan_by_key_workspace_size_upto(clgpu_context *context, const clgpu_scan_op *op,
                                                   const char *key_equal, clgpu_type key_type,
                                                   clgpu_type value_type, uint64_t max_n,
                                                   const clgpu_call_options *options,
                                                   clgpu_workspace_size *out) {
  return runs_upto(context, RUNS_SCAN, 0, op, key_equal, key_type, value_type, max_n, options, out,
                   "clgpu_scan_by_key_workspace_size_upto");
}

clgpu_status clgpu_reduce_by_key(clgpu_context *context, const clgpu_reduce_op *op,
                                 const char *key_equal, const clgpu_array *run_keys,
                                 const clgpu_array *reduced, const clgpu_array *count,
                                 const clgpu_array *keys, const clgpu_array *values,
                                 const clgpu_call_options *options, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *event) {
  runs_views views = {keys, values, NULL, run_keys, reduced, NULL, count};
  return runs_entry(context, RUNS_REDUCE, 0, op, key_equal, &views, options, num_events, wait_list,
                    event, NULL, "clgpu_reduce_by_key");
}

clgpu_status clgpu_reduce_by_key_workspace_size(clgpu_context *context, const clgpu_reduce_op *op,
                                                const char *key_equal, const clgpu_array *run_keys,
                                                const clgpu_array *reduced,
                                                const clgpu_array *count, const clgpu_array *keys,
                                                const clgpu_array *values,
                                                const clgpu_call_options *options,
                                                clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_by_key_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  runs_views views = {keys, values, NULL, run_keys, reduced, NULL, count};
  return runs_entry(context, RUNS_REDUCE, 0, op, key_equal, &views, options, 0, NULL, NULL, out,
                    who);
}

clgpu_status clgpu_reduce_by_key_workspace_size_upto(clgpu_context *context,
                                                     const clgpu_reduce_op *op,
                                                     const char *key_equal, clgpu_type key_type,
                                                     clgpu_type value_type, uint64_t max_n,
                                                     const clgpu_call_options *options,
                                                     clgpu_workspace_size *out) {
  return runs_upto(context, RUNS_REDUCE, 0, op, key_equal, key_type, value_type, max_n, options,
                   out, "clgpu_reduce_by_key_workspace_size_upto");
}

/* ---- unique, unique by key, run-length encoding ---- */

clgpu_status clgpu_unique(clgpu_context *context, const char *key_equal,
                          const clgpu_array *run_keys, const clgpu_array *count,
                          const clgpu_array *keys, const clgpu_call_options *options,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  runs_views views = {keys, NULL, NULL, run_keys, NULL, NULL, count};
  return runs_entry(context, RUNS_COUNT, 0, NULL, key_equal, &views, options, num_events, wait_list,
                    event, NULL, "clgpu_unique");
}

clgpu_status clgpu_unique_by_key(clgpu_context *context, const char *key_equal,
                                 const clgpu_array *run_keys, const clgpu_array *run_values,
                                 const clgpu_array *count, const clgpu_array *keys,
                                 const clgpu_array *values, const clgpu_call_options *options,
                                 cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  runs_views views = {keys, values, NULL, run_keys, run_values, NULL, count};
  return runs_entry(context, RUNS_FIRST, 0, NULL, key_equal, &views, options, num_events, wait_list,
                    event, NULL, "clgpu_unique_by_key");
}

clgpu_status clgpu_run_length_encode(clgpu_context *context, const char *key_equal,
                                     const clgpu_array *run_keys, const clgpu_array *lengths,
                                     const clgpu_array *offsets, const clgpu_array *count,
                                     const clgpu_array *keys, const clgpu_call_options *options,
                                     cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event) {
  runs_views views = {keys, NULL, NULL, run_keys, lengths, offsets, count};
  return runs_entry(context, RUNS_COUNT, 1, NULL, key_equal, &views, options, num_events, wait_list,
                    event, NULL, "clgpu_run_length_encode");
}

clgpu_status clgpu_unique_workspace_size(clgpu_context *context, const char *key_equal,
                                         const clgpu_array *run_keys, const clgpu_array *run_values,
                                         const clgpu_array *count, const clgpu_array *keys,
                                         const clgpu_array *values,
                                         const clgpu_call_options *options,
                                         clgpu_workspace_size *out) {
  const char *who = "clgpu_unique_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  runs_views views = {keys, values, NULL, run_keys, run_values, NULL, count};
  return runs_entry(context, values ? RUNS_FIRST : RUNS_COUNT, 0, NULL, key_equal, &views, options,
                    0, NULL, NULL, out, who);
}

clgpu_status clgpu_run_length_encode_workspace_size(
    clgpu_context *context, const char *key_equal, const clgpu_array *run_keys,
    const clgpu_array *lengths, const clgpu_array *offsets, const clgpu_array *count,
    const clgpu_array *keys, const clgpu_call_options *options, clgpu_workspace_size *out) {
  const char *who = "clgpu_run_length_encode_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  runs_views views = {keys, NULL, NULL, run_keys, lengths, offsets, count};
  return runs_entry(context, RUNS_COUNT, 1, NULL, key_equal, &views, options, 0, NULL, NULL, out,
                    who);
}

clgpu_status clgpu_unique_workspace_size_upto(clgpu_context *context, const char *key_equal,
                                              clgpu_type key_type, clgpu_type value_type,
                                              uint64_t max_n, const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  return runs_upto(context, value_type ? RUNS_FIRST : RUNS_COUNT, 0, NULL, key_equal, key_type,
                   value_type, max_n, options, out, "clgpu_unique_workspace_size_upto");
}

clgpu_status clgpu_run_length_encode_workspace_size_upto(clgpu_context *context,
                                                         const char *key_equal, clgpu_type key_type,
                                                         uint64_t max_n,
                                                         const clgpu_call_options *options,
                                                         clgpu_workspace_size *out) {
  return runs_upto(context, RUNS_COUNT, 1, NULL, key_equal, key_type, CLGPU_TYPE_UINT64, max_n,
                   options, out, "clgpu_run_length_encode_workspace_size_upto");
}
