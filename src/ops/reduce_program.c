/* The program of cl/reduce.cl for an operator (reduce_program.h). */
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
#include "context_internal.h"
#include "expression.h"
#include "lease.h"
#include "program_cache.h"
#include "reduce_program.h"
#include "shape.h"
#include "status_internal.h"
#include "text.h"
#include "tuning.h"
#include "vector_predicate.h"
#include "workspace_internal.h"

void clgpu__spec_free(clgpu__op_spec *s) {
  free(s->map);
  free(s->reduce);
  free(s->neutral);
  free(s->store);
  free(s->empty);
  free(s->initial);
  free(s->vector_store);
  free(s->vector_map);
  memset(s, 0, sizeof *s);
}

/* An expression of the caller's, checked by the one validator of
 * expression.c, named as the caller wrote the argument. NULL and empty
 * strings are left to the callers' own messages. */
static clgpu_status check_expression(const char *text, const char *who, const char *name) {
  if (!text || !text[0]) return CLGPU_SUCCESS;
  return clgpu__check_user_text(text, CLGPU__TEXT_EXPRESSION, who, name);
}

/* The largest and lowest value of an integer type, in OpenCL C. */
static const char *integer_limit(clgpu_type type, int largest) {
  switch (type) {
    case CLGPU_TYPE_INT8:
      return largest ? "CHAR_MAX" : "CHAR_MIN";
    case CLGPU_TYPE_UINT8:
      return largest ? "UCHAR_MAX" : "0";
    case CLGPU_TYPE_INT16:
      return largest ? "SHRT_MAX" : "SHRT_MIN";
    case CLGPU_TYPE_UINT16:
      return largest ? "USHRT_MAX" : "0";
    case CLGPU_TYPE_INT32:
      return largest ? "INT_MAX" : "INT_MIN";
    case CLGPU_TYPE_UINT32:
      return largest ? "UINT_MAX" : "0u";
    case CLGPU_TYPE_INT64:
      return largest ? "LONG_MAX" : "LONG_MIN";
    default:
      return largest ? "ULONG_MAX" : "0UL";
  }
}

/* The neutral element of MIN (order 1) or MAX (order 2): for integers the
 * largest (lowest) value; for floats the NaN that ranks last in that order,
 * all bits set but the sign (all bits set). */
static char *order_neutral(clgpu_type type, int order) {
  const char *name = clgpu__type_cl_name(type);
  switch (type) {
    case CLGPU_TYPE_HALF:
      return clgpu__format("as_half((ushort)%s)", order == 1 ? "0x7fffu" : "0xffffu");
    case CLGPU_TYPE_FLOAT:
      return clgpu__format("as_float(%s)", order == 1 ? "0x7fffffffu" : "0xffffffffu");
    case CLGPU_TYPE_DOUBLE:
      return clgpu__format("as_double(%s)",
                           order == 1 ? "0x7fffffffffffffffUL" : "0xffffffffffffffffUL");
    default:
      return clgpu__format("((%s)%s)", name, integer_limit(type, order == 1));
  }
}

/* The result of an empty MIN (MAX): the type's largest (lowest) value, an
 * infinity for floats. */
static char *order_empty(clgpu_type type, int order) {
  if (clgpu__type_is_float(type)) return clgpu__format("%sINFINITY", order == 1 ? "" : "-");
  return clgpu__format("%s", integer_limit(type, order == 1));
}

/* How a wrapping integer accumulator becomes the element type: through the
 * unsigned type of the element's size, then its bits. */
static char *integer_store(clgpu_type type) {
  size_t size = clgpu__type_size(type);
  if (clgpu__type_is_signed(type)) {
    return clgpu__format("as_%s((%s)(a))", clgpu__type_cl_name(type), clgpu__unsigned_type(size));
  }
  return clgpu__format("((%s)(a))", clgpu__type_cl_name(type));
}

/* How a 16-vector of wrapping accumulators `r` becomes 16 elements. */
static char *vector_store(clgpu_type type, clgpu_type accumulator) {
  const char *name = clgpu__type_cl_name(type);
  size_t size = clgpu__type_size(type);
  if (clgpu__type_is_float(type)) return clgpu__format("(r)");
  const char *bits = clgpu__unsigned_type(size);
  if (size == clgpu__type_size(accumulator)) {
    return clgpu__type_is_signed(type) ? clgpu__format("as_%s16(r)", name) : clgpu__format("(r)");
  }
  if (clgpu__type_is_signed(type)) return clgpu__format("as_%s16(convert_%s16(r))", name, bits);
  return clgpu__format("convert_%s16(r)", name);
}

/* Integer sums and products accumulate in uint (ulong for 64-bit types),
 * where wrapping is defined; floats in their own type. */
static clgpu_type wrapping_accumulator(clgpu_type type) {
  if (clgpu__type_is_float(type)) return type;
  return clgpu__type_size(type) == 8 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
}

static clgpu_status out_of_memory(const char *who) {
  return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: out of host memory", who);
}

static int spec_complete(const clgpu__op_spec *s) {
  return s->map && s->reduce && s->neutral && s->store && s->empty;
}

/* SUM or PRODUCT over `type`. */
static void arithmetic_spec(clgpu_type type, int product, clgpu__op_spec *s) {
  s->input = type;
  s->accumulator = wrapping_accumulator(type);
  s->result = type;
  s->map = clgpu__format("x");
  s->reduce = clgpu__format(product ? "a * b" : "a + b");
  /* -0.0 is the neutral element of float addition (+0.0 is not: -0 + +0
   * gives +0); for integers -(A)0 is 0. */
  s->neutral = clgpu__format(product ? "((A)1)" : "(-(A)0)");
  s->store = clgpu__type_is_float(type) ? clgpu__format("(a)") : integer_store(type);
  s->empty = clgpu__format(product ? "1" : "0");
  s->vector_op = type == CLGPU_TYPE_HALF ? 0 : (product ? 2 : 1);
}

/* MIN (order 1) or MAX (order 2) over `type`. */
static void order_spec(clgpu_type type, int order, clgpu__op_spec *s) {
  s->input = type;
  s->accumulator = type;
  s->result = type;
  s->map = clgpu__format("x");
  s->reduce = clgpu__format("clgpu_pick(a, b)");
  s->neutral = order_neutral(type, order);
  s->store = clgpu__format("(a)");
  s->empty = order_empty(type, order);
  s->order = order;
  s->vector_op = clgpu__type_is_float(type) ? 0 : (order == 1 ? 3 : 4);
}

/* The spec of a reduction. */
clgpu_status clgpu__reduce_spec(const clgpu_reduce_op *op, clgpu_type type, const char *who,
                                clgpu__op_spec *s) {
  memset(s, 0, sizeof *s);
  s->kernels = CLGPU__KERNELS_REDUCE;
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(type, who, "the input"));
  if (op->kind == CLGPU_REDUCE_CUSTOM) {
    CLGPU__FORWARD_IF_ERROR(check_expression(op->map, who, "op->map"));
    CLGPU__FORWARD_IF_ERROR(check_expression(op->reduce, who, "op->reduce"));
    CLGPU__FORWARD_IF_ERROR(check_expression(op->neutral, who, "op->neutral"));
  }
  if (op->initial) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_user_text(op->initial, CLGPU__TEXT_EXPRESSION, who, "op->initial"));
  }
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
    case CLGPU_REDUCE_PRODUCT:
      arithmetic_spec(type, op->kind == CLGPU_REDUCE_PRODUCT, s);
      break;
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX:
      order_spec(type, op->kind == CLGPU_REDUCE_MIN ? 1 : 2, s);
      break;
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX:
      order_spec(type, op->kind == CLGPU_REDUCE_ARGMIN ? 1 : 2, s);
      s->result = CLGPU_TYPE_UINT64;
      s->vector_op = 0;
      s->arg = 1;
      free(s->store);
      s->store = clgpu__format("((R)0)");
      break;
    case CLGPU_REDUCE_COUNT:
      s->input = type;
      s->accumulator = s->result = CLGPU_TYPE_UINT64;
      s->map = clgpu__format("((x) != 0 ? 1UL : 0UL)");
      s->reduce = clgpu__format("a + b");
      s->neutral = clgpu__format("0UL");
      s->store = clgpu__format("(a)");
      s->empty = clgpu__format("0");
      break;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      s->input = type;
      s->accumulator = CLGPU_TYPE_UINT32;
      s->result = CLGPU_TYPE_INT32;
      s->map = clgpu__format("((x) != 0 ? 1u : 0u)");
      s->reduce = clgpu__format(op->kind == CLGPU_REDUCE_ANY ? "a | b" : "a & b");
      s->neutral = clgpu__format(op->kind == CLGPU_REDUCE_ANY ? "0u" : "1u");
      s->store = clgpu__format("((int)(a))");
      s->empty = clgpu__format(op->kind == CLGPU_REDUCE_ANY ? "0" : "1");
      break;
    case CLGPU_REDUCE_CUSTOM:
      CLGPU__RETURN_ERROR_IF(clgpu__type_size(op->result_type) == 0, CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a valid result_type", who);
      CLGPU__FORWARD_IF_ERROR(
          clgpu__check_arithmetic_type(op->result_type, who, "op->result_type"));
      CLGPU__RETURN_ERROR_IF(!op->reduce || !op->reduce[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a reduce expression", who);
      CLGPU__RETURN_ERROR_IF(!op->neutral || !op->neutral[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a neutral element", who);
      s->input = type;
      s->accumulator = s->result = op->result_type;
      s->map = clgpu__expression_line(op->map && op->map[0] ? op->map : "x");
      s->reduce = clgpu__expression_line(op->reduce);
      s->neutral = clgpu__expression_line(op->neutral);
      s->store = clgpu__format("(a)");
      s->empty = clgpu__expression_line(op->neutral);
      break;
    default:
      return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: unknown reduction kind %d", who,
                         (int)op->kind);
  }
  if (op->initial) {
    if (s->arg) {
      clgpu__spec_free(s);
      return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                         "%s: ARGMIN and ARGMAX take no initial value (an index has none)", who);
    }
    s->initial = clgpu__expression_line(op->initial);
    if (!s->initial) {
      clgpu__spec_free(s);
      return out_of_memory(who);
    }
  }
  if (!spec_complete(s)) {
    clgpu__spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

/* The spec of count_if and of findall's counting: 1 for each element where
 * the predicate holds, summed in ulong. */
clgpu_status clgpu__predicate_spec(clgpu_type type, const char *predicate, const char *who,
                                   clgpu__op_spec *s) {
  memset(s, 0, sizeof *s);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(type, who, "the input"));
  if (predicate) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_user_text(predicate, CLGPU__TEXT_EXPRESSION, who, "predicate"));
  }
  char *line = clgpu__expression_line(predicate ? predicate : "x != 0");
  if (!line) return out_of_memory(who);
  s->input = type;
  s->accumulator = s->result = CLGPU_TYPE_UINT64;
  s->counts = 1;
  s->kernels = CLGPU__KERNELS_REDUCE;
  s->map = clgpu__format("((%s) ? 1UL : 0UL)", line);
  int vector = clgpu__vector_predicate(line, type, &s->vector_map);
  free(line);
  s->reduce = clgpu__format("a + b");
  s->neutral = clgpu__format("0UL");
  s->store = clgpu__format("(a)");
  s->empty = clgpu__format("0");
  if (!spec_complete(s) || vector < 0) {
    clgpu__spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__findall_spec(clgpu_type type, const char *predicate, const char *who,
                                 clgpu__op_spec *s) {
  CLGPU__FORWARD_IF_ERROR(clgpu__predicate_spec(type, predicate, who, s));
  s->kernels = CLGPU__KERNELS_FINDALL | CLGPU__KERNELS_FINDALL_COMPACT;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__scan_spec(const clgpu_scan_op *op, clgpu_type type, const char *who,
                              clgpu__op_spec *s) {
  memset(s, 0, sizeof *s);
  s->kernels = CLGPU__KERNELS_SCAN;
  CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(type, who, "the input"));
  switch (op->kind) {
    case CLGPU_SCAN_SUM:
      arithmetic_spec(type, 0, s);
      /* An exclusive sum starts at +0. */
      free(s->neutral);
      s->neutral = clgpu__format("((A)0)");
      if (s->vector_op) {
        s->vector_store = vector_store(type, s->accumulator);
        if (!s->vector_store) {
          clgpu__spec_free(s);
          return out_of_memory(who);
        }
      }
      break;
    case CLGPU_SCAN_MIN:
    case CLGPU_SCAN_MAX:
      order_spec(type, op->kind == CLGPU_SCAN_MIN ? 1 : 2, s);
      s->vector_op = 0;
      break;
    case CLGPU_SCAN_CUSTOM:
      CLGPU__RETURN_ERROR_IF(!op->combine || !op->combine[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM scan needs a combine expression", who);
      CLGPU__RETURN_ERROR_IF(!op->neutral || !op->neutral[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM scan needs a neutral element", who);
      CLGPU__FORWARD_IF_ERROR(check_expression(op->combine, who, "op->combine"));
      CLGPU__FORWARD_IF_ERROR(check_expression(op->neutral, who, "op->neutral"));
      s->input = s->accumulator = s->result = type;
      s->map = clgpu__format("x");
      s->reduce = clgpu__expression_line(op->combine);
      s->neutral = clgpu__expression_line(op->neutral);
      s->store = clgpu__format("(a)");
      s->empty = clgpu__expression_line(op->neutral);
      break;
    default:
      return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: unknown scan kind %d", who, (int)op->kind);
  }
  s->commutes = op->kind != CLGPU_SCAN_CUSTOM;
  if (!spec_complete(s)) {
    clgpu__spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_type_support(const clgpu_context *context, clgpu_type type,
                                       const char *who) {
  CLGPU__RETURN_ERROR_IF(
      type == CLGPU_TYPE_DOUBLE && !context->info.has_fp64, CLGPU_UNSUPPORTED_FEATURE,
      "%s: double needs cl_khr_fp64, which %s does not report", who, context->info.name);
  CLGPU__RETURN_ERROR_IF(type == CLGPU_TYPE_HALF && !context->info.has_fp16,
                         CLGPU_UNSUPPORTED_FEATURE,
                         "%s: arithmetic on half needs cl_khr_fp16, which %s does not report", who,
                         context->info.name);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_spec_support(const clgpu_context *context, const clgpu__op_spec *s,
                                       const char *who) {
  CLGPU__FORWARD_IF_ERROR(clgpu__check_type_support(context, s->input, who));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_type_support(context, s->accumulator, who));
  return clgpu__check_type_support(context, s->result, who);
}

/* Whether sub-group scans take the spec's operator: an add over int,
 * uint, long, ulong, float or double. */
static int subgroup_adds(const clgpu__op_spec *s) {
  clgpu_type a = s->accumulator;
  int takes = a == CLGPU_TYPE_INT32 || a == CLGPU_TYPE_UINT32 || a == CLGPU_TYPE_INT64 ||
              a == CLGPU_TYPE_UINT64 || a == CLGPU_TYPE_FLOAT || a == CLGPU_TYPE_DOUBLE;
  return s->commutes && s->vector_op == 1 && takes;
}

static int subgroups_in(const clgpu_context *context, const clgpu__shape *shape) {
  return shape->kind == CLGPU_SHAPE_TILED && shape->group > 1 && context->info.has_subgroups;
}

/* Every TILED device gets the slices' layout (a device without sub-groups
 * writes each chunk's total to its first entry, the neutral element to the
 * others, and reads only those: a few entries more to scan), so that one
 * layout runs, and is tested, everywhere. */
unsigned clgpu__spec_slices(const clgpu_context *context, const clgpu__op_spec *s,
                            const clgpu__shape *shape) {
  if (shape->kind != CLGPU_SHAPE_TILED || shape->group < 2 || s->arg) return 1;
  if (!s->counts && !subgroup_adds(s)) return 1;
  return context->tuning->tiled_slices;
}

/* The program of a spec in a shape. */
clgpu_status clgpu__spec_program(clgpu_context *context, const clgpu__op_spec *s,
                                 const clgpu__shape *shape, clgpu_program **out) {
  return clgpu__spec_program_with(context, s, shape, NULL, 0, NULL, out);
}

clgpu_status clgpu__spec_program_with(clgpu_context *context, const clgpu__op_spec *s,
                                      const clgpu__shape *shape, const clgpu_define *extra,
                                      size_t num_extra, const char *kernels, clgpu_program **out) {
  char group[32], items[32], order[8], vector_op[8], key_top[8], slices[16], vector_type[16],
      families[16];
  snprintf(group, sizeof group, "%zu", shape->group);
  snprintf(items, sizeof items, "%u", context->tuning->tile_items);
  snprintf(order, sizeof order, "%d", s->order);
  snprintf(vector_op, sizeof vector_op, "%d", s->vector_op);
  clgpu_define defines[29 + CLGPU__SPEC_EXTRA_DEFINES];
  size_t count = 0;
  if (num_extra > CLGPU__SPEC_EXTRA_DEFINES) {
    return clgpu__fail(CLGPU_INVALID_ARGUMENT, "clgpu__spec_program_with: %zu defines (at most %d)",
                       num_extra, CLGPU__SPEC_EXTRA_DEFINES);
  }
  defines[count++] = (clgpu_define){"CLGPU_T", clgpu__type_cl_name(s->input)};
  defines[count++] = (clgpu_define){"CLGPU_A", clgpu__type_cl_name(s->accumulator)};
  defines[count++] = (clgpu_define){"CLGPU_R", clgpu__type_cl_name(s->result)};
  defines[count++] = (clgpu_define){"CLGPU_MAP_EXPR", s->map};
  defines[count++] = (clgpu_define){"CLGPU_REDUCE_EXPR", s->reduce};
  defines[count++] = (clgpu_define){"CLGPU_NEUTRAL", s->neutral};
  defines[count++] = (clgpu_define){"CLGPU_STORE_EXPR", s->store};
  defines[count++] = (clgpu_define){"CLGPU_EMPTY", s->empty};
  if (s->initial) defines[count++] = (clgpu_define){"CLGPU_INITIAL", s->initial};
  if (s->arg) defines[count++] = (clgpu_define){"CLGPU_ARG", NULL};
  if (s->order) {
    defines[count++] = (clgpu_define){"CLGPU_ORDER", order};
    if (clgpu__type_is_float(s->accumulator)) {
      size_t size = clgpu__type_size(s->accumulator);
      snprintf(key_top, sizeof key_top, "%zu", size * 8 - 1);
      defines[count++] = (clgpu_define){"CLGPU_KEY_T", clgpu__unsigned_type(size)};
      defines[count++] = (clgpu_define){"CLGPU_KEY_AS", size == 2   ? "as_ushort"
                                                        : size == 4 ? "as_uint"
                                                                    : "as_ulong"};
      defines[count++] = (clgpu_define){"CLGPU_KEY_TOP", key_top};
    }
  }
  if (s->vector_op && shape->kind == CLGPU_SHAPE_CHUNKED) {
    defines[count++] = (clgpu_define){"CLGPU_VECTOR_OP", vector_op};
    if (s->vector_store) {
      defines[count++] = (clgpu_define){"CLGPU_VSTORE_EXPR", s->vector_store};
      defines[count++] =
          (clgpu_define){"CLGPU_VMASK", clgpu__unsigned_type(clgpu__type_size(s->accumulator))};
    }
  }
  int findall_kernels = !s->kernels || (s->kernels & CLGPU__KERNELS_FINDALL_COMPACT);
  if (s->counts && findall_kernels && shape->kind == CLGPU_SHAPE_CHUNKED) {
    /* findall's compaction: the predicate on sixteen elements at once
     * where it means the same there, else the sixteen scalar predicates
     * in the tuning table's form. Both vector forms compare 16-lane
     * vectors, on which Oclgrind's checker fails (no_vector_compare,
     * docs/quirks.md): there the scalar loop runs whatever the tuning. */
    int vectors = !context->quirks.no_vector_compare;
    if (s->vector_map && vectors) {
      snprintf(vector_type, sizeof vector_type, "%s16", clgpu__type_cl_name(s->input));
      defines[count++] = (clgpu_define){"CLGPU_FINDALL_VECTOR_PREDICATE", s->vector_map};
      defines[count++] = (clgpu_define){"CLGPU_T16", vector_type};
    } else if (context->tuning->findall_vector_flags && vectors) {
      defines[count++] = (clgpu_define){"CLGPU_FINDALL_VECTOR_FLAGS", NULL};
    }
    /* AVX-512's compress where the tuning asks for it; the kernel checks
     * that the device's compiler has it and takes the table where not. */
    if (context->tuning->findall_compress) {
      defines[count++] = (clgpu_define){"CLGPU_FINDALL_COMPRESS", NULL};
    }
    if (context->tuning->findall_split_stores) {
      defines[count++] = (clgpu_define){"CLGPU_FINDALL_SPLIT_STORES", NULL};
    }
  }
  /* count_if's CHUNKED chunks count in 32 bits (docs/reduce.md). */
  if (s->counts && s->kernels == CLGPU__KERNELS_REDUCE && shape->kind == CLGPU_SHAPE_CHUNKED) {
    defines[count++] = (clgpu_define){"CLGPU_COUNTS", NULL};
  }
  if (s->commutes && context->tuning->tiled_scan_totals_coalesced) {
    defines[count++] = (clgpu_define){"CLGPU_COMMUTES", NULL};
  }
  if (shape->kind == CLGPU_SHAPE_TILED && shape->group > 1 && context->tuning->tiled_step_barrier) {
    defines[count++] = (clgpu_define){"CLGPU_TILE_STEP", NULL};
  }
  /* Sub-group scans in the TILED tile scans and slices, only where the
   * device reports sub-groups (docs/portability.md rule 2): findall's
   * counts always, scans when the operator is a SUM over a type they
   * take. */
  if (subgroups_in(context, shape)) {
    defines[count++] = (clgpu_define){"CLGPU_SUBGROUPS", NULL};
    if (subgroup_adds(s)) defines[count++] = (clgpu_define){"CLGPU_SUBGROUP_ADD", NULL};
  }
  unsigned sliced = clgpu__spec_slices(context, s, shape);
  if (sliced > 1) {
    snprintf(slices, sizeof slices, "%u", sliced);
    defines[count++] = (clgpu_define){"CLGPU_SLICES", slices};
    if (s->counts && context->tuning->tiled_lane_runs) {
      defines[count++] = (clgpu_define){"CLGPU_LANE_RUNS", NULL};
    }
  }
  defines[count++] = (clgpu_define){"CLGPU_GROUP", group};
  defines[count++] = (clgpu_define){"CLGPU_ITEMS", items};
  clgpu_type types[3] = {s->input, s->accumulator, s->result};
  int fp64 = 0, fp16 = 0;
  for (int i = 0; i < 3; i++) {
    fp64 |= types[i] == CLGPU_TYPE_DOUBLE;
    fp16 |= types[i] == CLGPU_TYPE_HALF;
  }
  if (fp64) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
  if (fp16) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP16", NULL};
  if (shape->kind == CLGPU_SHAPE_CHUNKED && context->tuning->aligned_vector_access) {
    defines[count++] = (clgpu_define){"CLGPU_ALIGNED_VECTORS", NULL};
  }
  if (!kernels) {
    /* Only the spec's kernel families: POCL parses the whole binary of a
     * program when a process loads it, so a scan's program of three
     * kernels loads faster than all of cl/reduce.cl's (docs/program-cache.md). */
    if (s->kernels) {
      snprintf(families, sizeof families, "%u", s->kernels);
      defines[count++] = (clgpu_define){"CLGPU_KERNELS", families};
    }
    return clgpu__program_get_named(context, "reduce", defines, count, NULL, out);
  }
  for (size_t k = 0; k < num_extra; k++) defines[count++] = extra[k];
  defines[count++] = (clgpu_define){"CLGPU_OPERATOR_ONLY", NULL};
  const clgpu__source_part parts[] = {
      {"common", NULL, NULL}, {"reduce", NULL, NULL}, {kernels, NULL, NULL}};
  return clgpu__program_get_parts(context, parts, 3, defines, count, NULL, out);
}

/* clgpu_reduce_ranges of a non-ARG program. */
clgpu_status clgpu__enqueue_ranges(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                   const clgpu__shape *shape, clgpu__place in, cl_ulong n,
                                   cl_ulong chunk, uint64_t groups, cl_int final,
                                   cl_int row_indices, clgpu__place partials, clgpu__place result) {
  clgpu__kernel_arg args[] = {
      CLGPU__ARG(in.buffer),       CLGPU__ARG(in.offset),       CLGPU__ARG(n),
      CLGPU__ARG(chunk),           CLGPU__ARG(final),           CLGPU__ARG(row_indices),
      CLGPU__ARG(partials.buffer), CLGPU__ARG(partials.offset), CLGPU__ARG(result.buffer),
      CLGPU__ARG(result.offset)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernel, 0, args, 10, "clgpu_reduce_ranges"));
  return clgpu__chain_kernel(context, chain, kernel, clgpu__global_size(groups, shape->group),
                             shape->group, "clEnqueueNDRangeKernel(clgpu_reduce_ranges)");
}

/* The buffers of a scan, as a part of `report` (findall nests one). Returns
 * the index of the first. */
unsigned clgpu__scan_buffers(clgpu_workspace_size *report, int parent, const clgpu__shape *shape,
                             const clgpu__op_spec *s, uint64_t staged, uint64_t packed,
                             uint64_t totals) {
  unsigned part =
      clgpu__report_part(report, CLGPU_OPERATION_SCAN, shape->kind, CLGPU_ALGORITHM_AUTO, parent);
  unsigned first = clgpu__report_buffer(report, part, "staged_input", s->input, staged);
  clgpu__report_buffer(report, part, "packed_output", s->result, packed);
  clgpu__report_buffer(report, part, "totals", s->accumulator, totals);
  return first;
}

clgpu_status clgpu__lease_scan(clgpu__leases *held, clgpu_program *program, int multi,
                               clgpu__scan_kernels *out) {
  if (multi) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__lease(held, program, "clgpu_scan_totals", CLGPU__ARG_SCAN_TOTALS, &out->ranges));
    CLGPU__FORWARD_IF_ERROR(
        clgpu__lease(held, program, "clgpu_scan_carries", CLGPU__ARG_SCAN_CARRIES, &out->carries));
  }
  return clgpu__lease(held, program, "clgpu_scan_ranges", CLGPU__ARG_SCAN_RANGES, &out->scan);
}

/* The most totals a CHUNKED work-item folds for its carry (O(groups) each,
 * O(groups^2) in all): beyond them, clgpu_scan_carries scans them once. */
#define CLGPU__SCAN_FOLD_MAX 1024

/* Scan n contiguous elements from `in` to `out` (which may be the same
 * place). A cut range reduces its chunks into `totals` (`slices` entries per
 * chunk, clgpu__spec_slices), scans those into carries, then scans each
 * chunk (or slice) from its carry; with `stream`, through non-temporal
 * stores where the kernel is CHUNKED and vectorised. */
clgpu_status clgpu__enqueue_scan_contiguous(clgpu_context *context, clgpu__chain *chain,
                                            const clgpu__scan_kernels *kernels,
                                            const clgpu__shape *shape, clgpu__place in,
                                            clgpu__place out, cl_ulong n, const clgpu__split *split,
                                            unsigned slices, cl_int exclusive, clgpu__place totals,
                                            cl_int stream) {
  int multi = split->reserved > 0;
  cl_ulong chunk = multi ? split->chunk : n;
  uint64_t groups = multi ? split->groups : 1;
  if (multi) {
    clgpu__kernel_arg totals_args[] = {
        CLGPU__ARG(in.buffer), CLGPU__ARG(in.offset),     CLGPU__ARG(n),
        CLGPU__ARG(chunk),     CLGPU__ARG(totals.buffer), CLGPU__ARG(totals.offset)};
    CLGPU__FORWARD_IF_ERROR(
        clgpu__set_args(kernels->ranges, 0, totals_args, 6, "clgpu_scan_totals"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(
        context, chain, kernels->ranges, clgpu__global_size(groups, shape->group), shape->group,
        "clEnqueueNDRangeKernel(clgpu_scan_totals)"));
  }
  /* CHUNKED with few groups: each work-item folds the totals before its
   * range itself, in clgpu_scan_carries' order, and the launch of that
   * kernel (a third of a 16M-element scan's time on POCL went to launches
   * between the kernels) is saved. */
  cl_ulong count = groups * slices;
  cl_int use_carries = !multi ? 0 : shape->group == 1 && count <= CLGPU__SCAN_FOLD_MAX ? 2 : 1;
  if (use_carries == 1) {
    clgpu__kernel_arg args[] = {CLGPU__ARG(totals.buffer), CLGPU__ARG(totals.offset),
                                CLGPU__ARG(count)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernels->carries, 0, args, 3, "clgpu_scan_carries"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, kernels->carries, shape->group,
                                                shape->group,
                                                "clEnqueueNDRangeKernel(clgpu_scan_carries)"));
  }
  clgpu__place carries = multi ? totals : out;
  clgpu__kernel_arg args[] = {
      CLGPU__ARG(in.buffer),   CLGPU__ARG(in.offset),      CLGPU__ARG(n),
      CLGPU__ARG(chunk),       CLGPU__ARG(carries.buffer), CLGPU__ARG(carries.offset),
      CLGPU__ARG(use_carries), CLGPU__ARG(exclusive),      CLGPU__ARG(out.buffer),
      CLGPU__ARG(out.offset),  CLGPU__ARG(stream)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernels->scan, 0, args, 11, "clgpu_scan_ranges"));
  return clgpu__chain_kernel(context, chain, kernels->scan,
                             clgpu__global_size(groups, shape->group), shape->group,
                             "clEnqueueNDRangeKernel(clgpu_scan_ranges)");
}
