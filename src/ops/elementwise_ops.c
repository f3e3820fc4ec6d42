/* The built-in elementwise operations (elementwise.h: clgpu_convert,
 * clgpu_axpby, clgpu_compare, clgpu_iota; and, for copy.h, clgpu_copy and
 * clgpu_fill where one buffer command cannot do them). Each is an
 * elementwise kernel object the context makes on first use, keyed by the
 * operation and its types, and keeps until it is destroyed, so the variant
 * table of each serves every call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/elementwise.h>

#include "array_internal.h"
#include "copy.h"
#include "elementwise.h"
#include "elementwise_ops.h"
#include "status_internal.h"

/* An argument check the built-ins share before they reach their kernel. */
static clgpu_status check_common(clgpu_context *context, const char *who, const void *first,
                                 const char *first_name) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!first, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who, first_name);
  return CLGPU_SUCCESS;
}

/* Run a built-in and name it in a failure's message. */
static clgpu_status run_builtin(clgpu_elementwise *kernel, const clgpu_elementwise_value *values,
                                cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                const char *who) {
  clgpu_status status = clgpu__elementwise_run(kernel, values, num_events, wait_list, event);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (in %s)", who);
  return status;
}

/* ---- fill (strided views; copy.h) ---- */

clgpu_status clgpu__fill_strided(clgpu_context *context, const clgpu_array *destination,
                                 const void *value, cl_uint num_events, const cl_event *wait_list,
                                 cl_event *event) {
  size_t size = clgpu__type_size(destination->type);
  clgpu_type bits = clgpu__unsigned_clgpu_type(size);
  clgpu_array view;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_reinterpret(destination, bits, &view));
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__bits_builtin(context, "fill", bits, CLGPU_ARG_SCALAR, "v", "y = v", &kernel));
  const clgpu_elementwise_value values[] = {{&view, NULL}, {NULL, value}};
  return run_builtin(kernel, values, num_events, wait_list, event, "clgpu_fill");
}

/* ---- convert ---- */

/* The operation converting `s` of type `from` into `d` of type `to`. */
static void convert_operation(clgpu_type to, clgpu_type from, char *text, size_t size) {
  const char *target = clgpu__type_cl_name(to);
  if (to == CLGPU_TYPE_HALF) {
    if (from == CLGPU_TYPE_DOUBLE) {
      /* Round to float toward zero and make it odd when inexact: rounding
       * that to half then rounds as a direct rounding would (round to odd
       * keeps the sticky information for the 11-bit rounding after it). */
      snprintf(text, size,
               "float rounded = convert_float_rtz(s);"
               " if ((double)rounded != s && !isnan(s)) rounded = as_float(as_uint(rounded) | 1u);"
               " d = rounded");
    } else {
      snprintf(text, size, "d = convert_float_rte(s)");
    }
  } else if (clgpu__type_is_float(to)) {
    snprintf(text, size, "d = convert_%s_rte(s)", target);
  } else if (clgpu__type_is_float(from)) {
    /* NaN becomes 0 before the conversion: saturating conversions should
     * give 0 for it, and Oclgrind's give the target's minimum. The choice is
     * made on the float, not on the converted value: rusticl's LLVM 15
     * (llvmpipe) crashed compiling a select between char values under a
     * float comparison (`x != x ? (char)0 : (char)x`); test_transfer's convert_pairs runs
     * float and half to char. */
    const char *source_type = from == CLGPU_TYPE_HALF ? "float" : clgpu__type_cl_name(from);
    snprintf(text, size, "d = convert_%s_sat_rtz(isnan(s) ? (%s)0 : s)", target, source_type);
  } else if (clgpu__type_is_signed(to)) {
    /* Through the unsigned type of the target's size: modular, then the
     * same bits as the signed type. */
    snprintf(text, size, "d = as_%s(convert_%s(s))", target,
             clgpu__type_cl_name(clgpu__unsigned_clgpu_type(clgpu__type_size(to))));
  } else {
    snprintf(text, size, "d = convert_%s(s)", target);
  }
}

clgpu_status clgpu_convert(clgpu_context *context, const clgpu_array *destination,
                           const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                           cl_event *event) {
  const char *who = "clgpu_convert";
  CLGPU__FORWARD_IF_ERROR(check_common(context, who, destination, "destination"));
  CLGPU__RETURN_ERROR_IF(!source, CLGPU_INVALID_ARGUMENT, "%s: source is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(destination->type, who, "the destination"));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(source->type, who, "the source"));
  if (destination->type == source->type) {
    clgpu_status status = clgpu__copy(context, destination, source, num_events, wait_list, event);
    if (status != CLGPU_SUCCESS) clgpu__append_error(" (in %s)", who);
    return status;
  }
  char key[64], operation[256];
  snprintf(key, sizeof key, "convert:%s:%s", clgpu__type_cl_name(destination->type),
           clgpu__type_cl_name(source->type));
  convert_operation(destination->type, source->type, operation, sizeof operation);
  const clgpu_elementwise_arg args[] = {{"d", CLGPU_ARG_OUT, destination->type},
                                        {"s", CLGPU_ARG_IN, source->type}};
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__elementwise_builtin(context, key, 2, args, operation, &kernel));
  const clgpu_elementwise_value values[] = {{destination, NULL}, {source, NULL}};
  return run_builtin(kernel, values, num_events, wait_list, event, who);
}

/* ---- axpby ---- */

/* The arithmetic type of integer operations: unsigned, so that it wraps,
 * and at least 32 bits wide, so that narrow operands never overflow int. */
static const char *wrapping_type(clgpu_type type) {
  return clgpu__type_size(type) == 8 ? "ulong" : "uint";
}

static clgpu_type scalar_type(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? CLGPU_TYPE_FLOAT : type;
}

clgpu_status clgpu_axpby(clgpu_context *context, const clgpu_array *out, const void *alpha,
                         const clgpu_array *x, const void *beta, const clgpu_array *y,
                         cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_axpby";
  CLGPU__FORWARD_IF_ERROR(check_common(context, who, out, "out"));
  CLGPU__RETURN_ERROR_IF(!x || !y, CLGPU_INVALID_ARGUMENT, "%s: x and y must not be NULL", who);
  CLGPU__RETURN_ERROR_IF(!alpha || !beta, CLGPU_INVALID_ARGUMENT,
                         "%s: alpha and beta must not be NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(out->type, who, "out"));
  CLGPU__RETURN_ERROR_IF(x->type != out->type || y->type != out->type, CLGPU_TYPE_MISMATCH,
                         "%s: out holds %s, x %s and y %s; all three must be one type", who,
                         clgpu__type_cl_name(out->type), clgpu__type_cl_name(x->type),
                         clgpu__type_cl_name(y->type));
  clgpu_type type = out->type;
  char key[64], operation[256];
  snprintf(key, sizeof key, "axpby:%s", clgpu__type_cl_name(type));
  if (clgpu__type_is_float(type)) {
    snprintf(operation, sizeof operation, "r = alpha * x + beta * y");
  } else {
    const char *w = wrapping_type(type);
    snprintf(operation, sizeof operation, "r = (%s)((%s)alpha * (%s)x + (%s)beta * (%s)y)",
             clgpu__type_cl_name(type), w, w, w, w);
  }
  const clgpu_elementwise_arg args[] = {{"r", CLGPU_ARG_OUT, type},
                                        {"alpha", CLGPU_ARG_SCALAR, scalar_type(type)},
                                        {"x", CLGPU_ARG_IN, type},
                                        {"beta", CLGPU_ARG_SCALAR, scalar_type(type)},
                                        {"y", CLGPU_ARG_IN, type}};
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__elementwise_builtin(context, key, 5, args, operation, &kernel));
  const clgpu_elementwise_value values[] = {
      {out, NULL}, {NULL, alpha}, {x, NULL}, {NULL, beta}, {y, NULL}};
  return run_builtin(kernel, values, num_events, wait_list, event, who);
}

/* ---- compare ---- */

clgpu_status clgpu_compare(clgpu_context *context, clgpu_comparison comparison,
                           const clgpu_array *mask, const clgpu_array *x, const clgpu_array *y,
                           cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_compare";
  CLGPU__FORWARD_IF_ERROR(check_common(context, who, mask, "mask"));
  CLGPU__RETURN_ERROR_IF(!x || !y, CLGPU_INVALID_ARGUMENT, "%s: x and y must not be NULL", who);
  static const char *const operators[] = {NULL, "<", "<=", "==", "!=", ">", ">="};
  CLGPU__RETURN_ERROR_IF(
      comparison < CLGPU_COMPARE_LESS || comparison > CLGPU_COMPARE_GREATER_EQUAL,
      CLGPU_INVALID_ARGUMENT, "%s: unknown comparison %d", who, (int)comparison);
  CLGPU__RETURN_ERROR_IF(mask->type != CLGPU_TYPE_UINT8, CLGPU_TYPE_MISMATCH,
                         "%s: the mask holds %s; it must be uchar (CLGPU_TYPE_UINT8)", who,
                         clgpu__type_cl_name(mask->type));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(x->type, who, "x"));
  CLGPU__RETURN_ERROR_IF(x->type != y->type, CLGPU_TYPE_MISMATCH, "%s: x holds %s and y %s", who,
                         clgpu__type_cl_name(x->type), clgpu__type_cl_name(y->type));
  char key[64], operation[64];
  snprintf(key, sizeof key, "compare:%s:%d", clgpu__type_cl_name(x->type), (int)comparison);
  snprintf(operation, sizeof operation, "m = (x %s y) ? (uchar)1 : (uchar)0",
           operators[comparison]);
  const clgpu_elementwise_arg args[] = {{"m", CLGPU_ARG_OUT, CLGPU_TYPE_UINT8},
                                        {"x", CLGPU_ARG_IN, x->type},
                                        {"y", CLGPU_ARG_IN, x->type}};
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__elementwise_builtin(context, key, 3, args, operation, &kernel));
  const clgpu_elementwise_value values[] = {{mask, NULL}, {x, NULL}, {y, NULL}};
  return run_builtin(kernel, values, num_events, wait_list, event, who);
}

/* ---- iota ---- */

clgpu_status clgpu__iota(clgpu_context *context, const clgpu_array *out, const void *start,
                         const void *step, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event) {
  const char *who = "clgpu_iota";
  CLGPU__FORWARD_IF_ERROR(check_common(context, who, out, "out"));
  CLGPU__RETURN_ERROR_IF(!start || !step, CLGPU_INVALID_ARGUMENT,
                         "%s: start and step must not be NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(out->type, who, "out"));
  clgpu_type type = out->type;
  char key[64], operation[160];
  snprintf(key, sizeof key, "iota:%s", clgpu__type_cl_name(type));
  if (clgpu__type_is_float(type)) {
    const char *arithmetic = clgpu__type_cl_name(scalar_type(type));
    snprintf(operation, sizeof operation, "r = first + (%s)i * increment", arithmetic);
  } else {
    const char *w = wrapping_type(type);
    snprintf(operation, sizeof operation, "r = (%s)((%s)first + (%s)i * (%s)increment)",
             clgpu__type_cl_name(type), w, w, w);
  }
  /* Not "step": that is an OpenCL C built-in, which argument names may
   * not take (clgpu__check_user_name). */
  const clgpu_elementwise_arg args[] = {{"r", CLGPU_ARG_OUT, type},
                                        {"first", CLGPU_ARG_SCALAR, scalar_type(type)},
                                        {"increment", CLGPU_ARG_SCALAR, scalar_type(type)}};
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__elementwise_builtin(context, key, 3, args, operation, &kernel));
  const clgpu_elementwise_value values[] = {{out, NULL}, {NULL, start}, {NULL, step}};
  return run_builtin(kernel, values, num_events, wait_list, event, who);
}

clgpu_status clgpu_iota(clgpu_context *context, const clgpu_array *out, const void *start,
                        const void *step, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event) {
  return clgpu__iota(context, out, start, step, num_events, wait_list, event);
}
