/* Reductions, scans, findall and count_if: argument checks, the plan (kernel
 * shape, ranges, workspace layout), the program of cl/reduce.cl for an
 * operator, and enqueueing.
 *
 * A plan is computed from the arguments and the device alone: the size
 * query, workspace creation and the call all compute the same one, which is
 * what makes the workspace check exact.
 *
 * Ranges. An array of n elements is cut into chunks, one per work-group.
 * CHUNKED (the CPU shape, groups of one work-item): nothing is cut below
 * CHUNK_MINIMUM elements, above it into at most four chunks per compute unit,
 * each a multiple of 64 elements (the vector loop's step). TILED (the GPU
 * shape): tiles of group * TILE_ITEMS elements, nothing cut below four tiles,
 * at most 8 chunks per compute unit and 1024 in all. A cut range needs a
 * second pass (partials, or carries for a scan); an uncut one runs in one
 * group. Along an axis every line is one group's range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK_UNIT 64
#define CHUNK_MINIMUM 16384
#define TILE_ITEMS 8
#define TILED_GROUP_CAP 256
#define TILED_CHUNKS_CAP 1024

/* ---- shapes and ranges ---- */

typedef struct shape {
  clgpu_algorithm algorithm;
  size_t group;
  int automatic; /* the caller asked for CLGPU_ALGORITHM_AUTO */
} kernel_shape;

static clgpu_status resolve_shape(const clgpu_context *context, const clgpu_call_options *options,
                                  const char *who, kernel_shape *out) {
  clgpu_algorithm requested = options ? options->algorithm : CLGPU_ALGORITHM_AUTO;
  CLGPU__RETURN_ERROR_IF(requested != CLGPU_ALGORITHM_AUTO &&
                             requested != CLGPU_ALGORITHM_CHUNKED &&
                             requested != CLGPU_ALGORITHM_TILED,
                         CLGPU_INVALID_ARGUMENT, "%s: unknown algorithm %d", who, (int)requested);
  clgpu_algorithm algorithm = requested;
  if (algorithm == CLGPU_ALGORITHM_AUTO) {
    algorithm =
        (context->info.type & CL_DEVICE_TYPE_CPU) ? CLGPU_ALGORITHM_CHUNKED : CLGPU_ALGORITHM_TILED;
  }
  size_t group = 1;
  if (algorithm == CLGPU_ALGORITHM_TILED) {
    size_t limit = clgpu__work_group_limit(context, TILED_GROUP_CAP);
    /* Local memory: two arrays of `group` 8-byte values at most. */
    while (limit > 1 && (cl_ulong)limit * 16 > context->info.local_mem_size) limit /= 2;
    while (group * 2 <= limit) group *= 2;
  }
  out->algorithm = algorithm;
  out->group = group;
  out->automatic = requested == CLGPU_ALGORITHM_AUTO;
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
static uint64_t per_item(const kernel_shape *shape, uint64_t length) {
  return shape->algorithm == CLGPU_ALGORITHM_CHUNKED ? length
                                                     : clgpu__ceil_div_u64(length, shape->group);
}

/* A line of `length` elements is one group's range (reductions and scans
 * along an axis). On a device with a loop cap, a line too long for one
 * CHUNKED work-item makes an automatic choice TILED (the workspace does not
 * depend on the shape along an axis); a line too long for the shape asked
 * for is refused rather than computed wrong. */
static clgpu_status fit_line(const clgpu_context *context, const char *who, uint64_t length,
                             kernel_shape *shape) {
  /* Half the cap: a line is walked by one loop (an element per iteration,
   * fewer where 16-wide vectors apply), so it needs less margin than the
   * ranges, whose plan can simply be cut finer. Lines of 16411 elements
   * run right in every shape on llvmpipe (test_scan along_axes); 70000 did
   * not. */
  uint64_t limit = context->quirks.loop_iteration_cap / 2;
  if (!limit || per_item(shape, length) <= limit) return CLGPU_SUCCESS;
  if (shape->automatic && shape->algorithm == CLGPU_ALGORITHM_CHUNKED) {
    clgpu_call_options tiled = {0};
    tiled.algorithm = CLGPU_ALGORITHM_TILED;
    CLGPU__FORWARD_IF_ERROR(resolve_shape(context, &tiled, who, shape));
    shape->automatic = 1;
    if (per_item(shape, length) <= limit) return CLGPU_SUCCESS;
  }
  return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                     "%s: a line of %llu elements along the axis would take one work-item %llu "
                     "loop iterations with the %s shape, and this device (%s) silently leaves "
                     "a work-item's loops after %llu (the quirks table's loop_iteration_cap)%s",
                     who, (unsigned long long)length,
                     (unsigned long long)per_item(shape, length),
                     shape->algorithm == CLGPU_ALGORITHM_CHUNKED ? "CHUNKED" : "TILED",
                     context->info.name,
                     (unsigned long long)context->quirks.loop_iteration_cap,
                     shape->algorithm == CLGPU_ALGORITHM_CHUNKED
                         ? "; CLGPU_ALGORITHM_TILED or AUTO splits the line among a group"
                         : "");
}


/* After CLGPU_SIZE_OVERFLOW from an "_upto" query: name the argument. */
static void append_max_n(uint64_t max_n) {
  clgpu__append_error(" (max_n %llu is too large for this query)", (unsigned long long)max_n);
}

typedef struct split {
  uint64_t groups;   /* groups that run */
  uint64_t chunk;    /* elements per group */
  uint64_t reserved; /* second-pass slots: 0 for an uncut range */
} range_split;

static range_split split_range(const clgpu_context *context, const kernel_shape *shape,
                               uint64_t n) {
  uint64_t units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  uint64_t unit, minimum, most;
  if (shape->algorithm == CLGPU_ALGORITHM_CHUNKED) {
    unit = CHUNK_UNIT;
    minimum = CHUNK_MINIMUM;
    most = 4 * units;
  } else {
    unit = (uint64_t)shape->group * TILE_ITEMS;
    minimum = 4 * unit;
    most = 8 * units < TILED_CHUNKS_CAP ? 8 * units : TILED_CHUNKS_CAP;
  }
  if (most < 2) most = 2;
  /* Under a loop cap, no work-item walks more than loop_limit elements:
   * smaller and more pieces (the same for the size query and the call). */
  uint64_t limit = loop_limit(context);
  if (limit) {
    uint64_t items = shape->algorithm == CLGPU_ALGORITHM_CHUNKED ? 1 : shape->group;
    uint64_t per_group = limit * items / unit * unit;
    if (per_group < unit) per_group = unit;
    if (minimum > per_group) minimum = per_group;
    uint64_t needed = clgpu__ceil_div_u64(n, per_group);
    if (most < needed) most = needed;
  }
  range_split result = {1, n, 0};
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
static clgpu_status fit_partials(const clgpu_context *context, const char *who, uint64_t n,
                                 const kernel_shape *shape, const range_split *split) {
  uint64_t limit = loop_limit(context);
  if (!limit || per_item(shape, split->reserved) <= limit) return CLGPU_SUCCESS;
  return clgpu__fail(CLGPU_UNSUPPORTED_FEATURE,
                     "%s: %llu elements cut into %llu ranges would take the second pass's "
                     "work-items past %llu loop iterations, after which this device (%s) "
                     "silently leaves a work-item's loops (the quirks table's "
                     "loop_iteration_cap)%s",
                     who, (unsigned long long)n, (unsigned long long)split->reserved,
                     (unsigned long long)context->quirks.loop_iteration_cap, context->info.name,
                     shape->algorithm == CLGPU_ALGORITHM_CHUNKED
                         ? "; CLGPU_ALGORITHM_TILED takes more elements per range"
                         : "");
}

/* ---- operators ---- */

/* The text of one program: every define of cl/reduce.cl except the shape's.
 * Strings are malloc'd. */
typedef struct spec {
  clgpu_type input, accumulator, result;
  char *map, *reduce, *neutral, *store, *empty, *initial;
  char *vector_store; /* scans: r (A16) as the output's 16-vector, or NULL */
  int order;          /* 0, 1 (min order) or 2 (max order) */
  int arg;            /* argmin / argmax */
  int vector_op;      /* 0, or 1 sum, 2 product, 3 min, 4 max (CHUNKED only) */
} spec;

static void spec_free(spec *s) {
  free(s->map);
  free(s->reduce);
  free(s->neutral);
  free(s->store);
  free(s->empty);
  free(s->initial);
  free(s->vector_store);
  memset(s, 0, sizeof *s);
}

/* An expression of the caller's, checked by the one validator of
 * expression.c, named as the caller wrote the argument. NULL and empty
 * strings are left to the callers' own messages. */
static clgpu_status check_expression(const char *text, const char *who, const char *name) {
  if (!text || !text[0]) return CLGPU_SUCCESS;
  return clgpu__check_user_text(text, CLGPU__TEXT_EXPRESSION, who, name);
}

static char *format_text(const char *format, ...) CLGPU__PRINTF(1, 2);
static char *format_text(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (length < 0) return NULL;
  char *text = malloc((size_t)length + 1);
  if (!text) return NULL;
  va_start(args, format);
  vsnprintf(text, (size_t)length + 1, format, args);
  va_end(args);
  return text;
}

static int is_float_type(clgpu_type type) {
  return type == CLGPU_HALF || type == CLGPU_FLOAT || type == CLGPU_DOUBLE;
}

static int is_signed_integer(clgpu_type type) {
  return type == CLGPU_INT8 || type == CLGPU_INT16 || type == CLGPU_INT32 || type == CLGPU_INT64;
}

/* The largest and lowest value of an integer type, in OpenCL C. */
static const char *integer_limit(clgpu_type type, int largest) {
  switch (type) {
    case CLGPU_INT8:
      return largest ? "CHAR_MAX" : "CHAR_MIN";
    case CLGPU_UINT8:
      return largest ? "UCHAR_MAX" : "0";
    case CLGPU_INT16:
      return largest ? "SHRT_MAX" : "SHRT_MIN";
    case CLGPU_UINT16:
      return largest ? "USHRT_MAX" : "0";
    case CLGPU_INT32:
      return largest ? "INT_MAX" : "INT_MIN";
    case CLGPU_UINT32:
      return largest ? "UINT_MAX" : "0u";
    case CLGPU_INT64:
      return largest ? "LONG_MAX" : "LONG_MIN";
    default:
      return largest ? "ULONG_MAX" : "0UL";
  }
}

/* The neutral element of MIN (order 1) or MAX (order 2): for integers the
 * largest (lowest) value; for floats the NaN that ranks last in that order,
 * all bits set but the sign (all bits set). */
static char *order_neutral(clgpu_type type, int order) {
  const char *name = clgpu_type_cl_name(type);
  switch (type) {
    case CLGPU_HALF:
      return format_text("as_half((ushort)%s)", order == 1 ? "0x7fffu" : "0xffffu");
    case CLGPU_FLOAT:
      return format_text("as_float(%s)", order == 1 ? "0x7fffffffu" : "0xffffffffu");
    case CLGPU_DOUBLE:
      return format_text("as_double(%s)",
                         order == 1 ? "0x7fffffffffffffffUL" : "0xffffffffffffffffUL");
    default:
      return format_text("((%s)%s)", name, integer_limit(type, order == 1));
  }
}

/* The result of an empty MIN (MAX): the type's largest (lowest) value, an
 * infinity for floats. */
static char *order_empty(clgpu_type type, int order) {
  if (is_float_type(type)) return format_text("%sINFINITY", order == 1 ? "" : "-");
  return format_text("%s", integer_limit(type, order == 1));
}

/* How a wrapping integer accumulator becomes the element type: through the
 * unsigned type of the element's size, then its bits. */
static char *integer_store(clgpu_type type) {
  size_t size = clgpu_type_size(type);
  if (is_signed_integer(type)) {
    return format_text("as_%s((%s)(a))", clgpu_type_cl_name(type), clgpu__unsigned_type(size));
  }
  return format_text("((%s)(a))", clgpu_type_cl_name(type));
}

/* How a 16-vector of wrapping accumulators `r` becomes 16 elements. */
static char *vector_store(clgpu_type type, clgpu_type accumulator) {
  const char *name = clgpu_type_cl_name(type);
  size_t size = clgpu_type_size(type);
  if (is_float_type(type)) return format_text("(r)");
  const char *bits = clgpu__unsigned_type(size);
  if (size == clgpu_type_size(accumulator)) {
    return is_signed_integer(type) ? format_text("as_%s16(r)", name) : format_text("(r)");
  }
  if (is_signed_integer(type)) return format_text("as_%s16(convert_%s16(r))", name, bits);
  return format_text("convert_%s16(r)", name);
}

/* Integer sums and products accumulate in uint (ulong for 64-bit types),
 * where wrapping is defined; floats in their own type. */
static clgpu_type wrapping_accumulator(clgpu_type type) {
  if (is_float_type(type)) return type;
  return clgpu_type_size(type) == 8 ? CLGPU_UINT64 : CLGPU_UINT32;
}

static clgpu_status out_of_memory(const char *who) {
  return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: out of host memory", who);
}

static int spec_complete(const spec *s) {
  return s->map && s->reduce && s->neutral && s->store && s->empty;
}

/* SUM or PRODUCT over `type`. */
static void arithmetic_spec(clgpu_type type, int product, spec *s) {
  s->input = type;
  s->accumulator = wrapping_accumulator(type);
  s->result = type;
  s->map = format_text("x");
  s->reduce = format_text(product ? "a * b" : "a + b");
  /* -0.0 is the neutral element of float addition (+0.0 is not: -0 + +0
   * gives +0); for integers -(A)0 is 0. */
  s->neutral = format_text(product ? "((A)1)" : "(-(A)0)");
  s->store = is_float_type(type) ? format_text("(a)") : integer_store(type);
  s->empty = format_text(product ? "1" : "0");
  s->vector_op = type == CLGPU_HALF ? 0 : (product ? 2 : 1);
}

/* MIN (order 1) or MAX (order 2) over `type`. */
static void order_spec(clgpu_type type, int order, spec *s) {
  s->input = type;
  s->accumulator = type;
  s->result = type;
  s->map = format_text("x");
  s->reduce = format_text("clgpu_pick(a, b)");
  s->neutral = order_neutral(type, order);
  s->store = format_text("(a)");
  s->empty = order_empty(type, order);
  s->order = order;
  s->vector_op = is_float_type(type) ? 0 : (order == 1 ? 3 : 4);
}

/* The spec of a reduction. */
static clgpu_status reduce_spec(const clgpu_reduce_op *op, clgpu_type type, const char *who,
                                spec *s) {
  memset(s, 0, sizeof *s);
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
      s->result = CLGPU_UINT64;
      s->vector_op = 0;
      s->arg = 1;
      free(s->store);
      s->store = format_text("((R)0)");
      break;
    case CLGPU_REDUCE_COUNT:
      s->input = type;
      s->accumulator = s->result = CLGPU_UINT64;
      s->map = format_text("((x) != 0 ? 1UL : 0UL)");
      s->reduce = format_text("a + b");
      s->neutral = format_text("0UL");
      s->store = format_text("(a)");
      s->empty = format_text("0");
      break;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      s->input = type;
      s->accumulator = CLGPU_UINT32;
      s->result = CLGPU_INT32;
      s->map = format_text("((x) != 0 ? 1u : 0u)");
      s->reduce = format_text(op->kind == CLGPU_REDUCE_ANY ? "a | b" : "a & b");
      s->neutral = format_text(op->kind == CLGPU_REDUCE_ANY ? "0u" : "1u");
      s->store = format_text("((int)(a))");
      s->empty = format_text(op->kind == CLGPU_REDUCE_ANY ? "0" : "1");
      break;
    case CLGPU_REDUCE_CUSTOM:
      CLGPU__RETURN_ERROR_IF(clgpu_type_size(op->result_type) == 0, CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a valid result_type", who);
      CLGPU__RETURN_ERROR_IF(!op->reduce || !op->reduce[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a reduce expression", who);
      CLGPU__RETURN_ERROR_IF(!op->neutral || !op->neutral[0], CLGPU_INVALID_ARGUMENT,
                             "%s: a CUSTOM reduction needs a neutral element", who);
      s->input = type;
      s->accumulator = s->result = op->result_type;
      s->map = clgpu__expression_line(op->map && op->map[0] ? op->map : "x");
      s->reduce = clgpu__expression_line(op->reduce);
      s->neutral = clgpu__expression_line(op->neutral);
      s->store = format_text("(a)");
      s->empty = clgpu__expression_line(op->neutral);
      break;
    default:
      return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: unknown reduction kind %d", who,
                         (int)op->kind);
  }
  if (op->initial) {
    if (s->arg) {
      spec_free(s);
      return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                         "%s: ARGMIN and ARGMAX take no initial value (an index has none)", who);
    }
    s->initial = clgpu__expression_line(op->initial);
    if (!s->initial) {
      spec_free(s);
      return out_of_memory(who);
    }
  }
  if (!spec_complete(s)) {
    spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

/* The spec of count_if and of findall's counting: 1 for each element where
 * the predicate holds, summed in ulong. */
static clgpu_status predicate_spec(clgpu_type type, const char *predicate, const char *who,
                                   spec *s) {
  memset(s, 0, sizeof *s);
  if (predicate) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_user_text(predicate, CLGPU__TEXT_EXPRESSION, who, "predicate"));
  }
  char *line = clgpu__expression_line(predicate ? predicate : "x != 0");
  if (!line) return out_of_memory(who);
  s->input = type;
  s->accumulator = s->result = CLGPU_UINT64;
  s->map = format_text("((%s) ? 1UL : 0UL)", line);
  free(line);
  s->reduce = format_text("a + b");
  s->neutral = format_text("0UL");
  s->store = format_text("(a)");
  s->empty = format_text("0");
  if (!spec_complete(s)) {
    spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

static clgpu_status scan_spec(const clgpu_scan_op *op, clgpu_type type, const char *who, spec *s) {
  memset(s, 0, sizeof *s);
  switch (op->kind) {
    case CLGPU_SCAN_SUM:
      arithmetic_spec(type, 0, s);
      /* An exclusive sum starts at +0. */
      free(s->neutral);
      s->neutral = format_text("((A)0)");
      if (s->vector_op) {
        s->vector_store = vector_store(type, s->accumulator);
        if (!s->vector_store) {
          spec_free(s);
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
      s->map = format_text("x");
      s->reduce = clgpu__expression_line(op->combine);
      s->neutral = clgpu__expression_line(op->neutral);
      s->store = format_text("(a)");
      s->empty = clgpu__expression_line(op->neutral);
      break;
    default:
      return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: unknown scan kind %d", who, (int)op->kind);
  }
  if (!spec_complete(s)) {
    spec_free(s);
    return out_of_memory(who);
  }
  return CLGPU_SUCCESS;
}

static clgpu_status check_type_support(const clgpu_context *context, clgpu_type type,
                                       const char *who) {
  CLGPU__RETURN_ERROR_IF(type == CLGPU_DOUBLE && !context->info.has_fp64, CLGPU_UNSUPPORTED_FEATURE,
                         "%s: double needs cl_khr_fp64, which %s does not report", who,
                         context->info.name);
  CLGPU__RETURN_ERROR_IF(type == CLGPU_HALF && !context->info.has_fp16, CLGPU_UNSUPPORTED_FEATURE,
                         "%s: arithmetic on half needs cl_khr_fp16, which %s does not report", who,
                         context->info.name);
  return CLGPU_SUCCESS;
}

static clgpu_status check_spec_support(const clgpu_context *context, const spec *s,
                                       const char *who) {
  CLGPU__FORWARD_IF_ERROR(check_type_support(context, s->input, who));
  CLGPU__FORWARD_IF_ERROR(check_type_support(context, s->accumulator, who));
  return check_type_support(context, s->result, who);
}

/* The program of a spec in a shape. */
static clgpu_status get_program(clgpu_context *context, const spec *s, const kernel_shape *shape,
                                clgpu_program **out) {
  char group[32], items[32], order[8], vector_op[8], key_top[8];
  snprintf(group, sizeof group, "%zu", shape->group);
  snprintf(items, sizeof items, "%d", TILE_ITEMS);
  snprintf(order, sizeof order, "%d", s->order);
  snprintf(vector_op, sizeof vector_op, "%d", s->vector_op);
  clgpu_define defines[24];
  size_t count = 0;
  defines[count++] = (clgpu_define){"CLGPU_T", clgpu_type_cl_name(s->input)};
  defines[count++] = (clgpu_define){"CLGPU_A", clgpu_type_cl_name(s->accumulator)};
  defines[count++] = (clgpu_define){"CLGPU_R", clgpu_type_cl_name(s->result)};
  defines[count++] = (clgpu_define){"CLGPU_MAP_EXPR", s->map};
  defines[count++] = (clgpu_define){"CLGPU_REDUCE_EXPR", s->reduce};
  defines[count++] = (clgpu_define){"CLGPU_NEUTRAL", s->neutral};
  defines[count++] = (clgpu_define){"CLGPU_STORE_EXPR", s->store};
  defines[count++] = (clgpu_define){"CLGPU_EMPTY", s->empty};
  if (s->initial) defines[count++] = (clgpu_define){"CLGPU_INITIAL", s->initial};
  if (s->arg) defines[count++] = (clgpu_define){"CLGPU_ARG", NULL};
  if (s->order) {
    defines[count++] = (clgpu_define){"CLGPU_ORDER", order};
    if (is_float_type(s->accumulator)) {
      size_t size = clgpu_type_size(s->accumulator);
      snprintf(key_top, sizeof key_top, "%zu", size * 8 - 1);
      defines[count++] = (clgpu_define){"CLGPU_KEY_T", clgpu__unsigned_type(size)};
      defines[count++] = (clgpu_define){"CLGPU_KEY_AS", size == 2   ? "as_ushort"
                                                        : size == 4 ? "as_uint"
                                                                    : "as_ulong"};
      defines[count++] = (clgpu_define){"CLGPU_KEY_TOP", key_top};
    }
  }
  if (s->vector_op && shape->algorithm == CLGPU_ALGORITHM_CHUNKED) {
    defines[count++] = (clgpu_define){"CLGPU_VECTOR_OP", vector_op};
    if (s->vector_store) {
      defines[count++] = (clgpu_define){"CLGPU_VSTORE_EXPR", s->vector_store};
      defines[count++] =
          (clgpu_define){"CLGPU_VMASK", clgpu__unsigned_type(clgpu_type_size(s->accumulator))};
    }
  }
  defines[count++] = (clgpu_define){"CLGPU_GROUP", group};
  defines[count++] = (clgpu_define){"CLGPU_ITEMS", items};
  clgpu_type types[3] = {s->input, s->accumulator, s->result};
  int fp64 = 0, fp16 = 0;
  for (int i = 0; i < 3; i++) {
    fp64 |= types[i] == CLGPU_DOUBLE;
    fp16 |= types[i] == CLGPU_HALF;
  }
  if (fp64) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP64", NULL};
  if (fp16) defines[count++] = (clgpu_define){"CLGPU_NEEDS_FP16", NULL};
  return clgpu_program_get_named(context, "reduce", defines, count, NULL, out);
}

/* ---- kernels ---- */

/* The buffer arguments of cl/reduce.cl's kernels, cleared when a call
 * gives them back (clgpu__leases_give_back). The argmin/argmax variants of
 * the range kernels take the partial indices as well. */
#define ARG_RANGES (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(6) | CLGPU__BUFFER_ARG(8))
#define ARG_RANGES_INDEXED (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(6) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(10))
#define ARG_PARTIALS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(3))
#define ARG_PARTIALS_INDEXED (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(5))
#define ARG_SCAN_RANGES (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(8))
#define ARG_SCAN_TOTALS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4))
#define ARG_SCAN_CARRIES (CLGPU__BUFFER_ARG(0))
#define ARG_FINDALL_WRITE (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(9) | CLGPU__BUFFER_ARG(13)) /* clgpu_findall_write and clgpu_findall_move */
#define ARG_FINDALL_COMPACT (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6))

#define ARG(x) CLGPU__ARG(x)

/* A place on the device: a buffer and an element offset into it. */
typedef struct place {
  cl_mem buffer;
  cl_ulong offset;
} place;

static place scratch_place(const clgpu__scratch *scratch, unsigned index) {
  cl_mem buffer = NULL;
  size_t byte_offset = 0;
  clgpu__scratch_slot(scratch, index, &buffer, &byte_offset);
  size_t size = clgpu_type_size(scratch->layout.buffers[index].type);
  return (place){buffer, (cl_ulong)(byte_offset / size)};
}

/* A contiguous row-major view over a workspace buffer. */
static clgpu_status scratch_view(const clgpu__scratch *scratch, unsigned index, clgpu_type type,
                                 unsigned rank, const size_t *shape, clgpu_array *out) {
  cl_mem buffer = NULL;
  size_t byte_offset = 0;
  clgpu__scratch_slot(scratch, index, &buffer, &byte_offset);
  return clgpu_array_nd(buffer, byte_offset, type, rank, shape, CLGPU_ROW_MAJOR, out);
}

static clgpu_status place_of(const clgpu_array *array, place *out) {
  return clgpu__array_root(array, &out->buffer, &out->offset);
}

/* Where a kernel reads `view` from: the view itself when contiguous, else
 * the workspace buffer `index`, into which the view is copied first (the
 * chain's next command). */
static clgpu_status input_place(clgpu_context *context, clgpu__chain *chain,
                                const clgpu__scratch *scratch, unsigned index, int pack,
                                const clgpu_array *view, place *out) {
  if (!pack) return place_of(view, out);
  clgpu_array packed;
  CLGPU__FORWARD_IF_ERROR(
      scratch_view(scratch, index, view->type, view->rank, view->shape, &packed));
  CLGPU__FORWARD_IF_ERROR(clgpu__chain_copy(context, chain, &packed, view));
  return place_of(&packed, out);
}

/* Read `size` bytes at `from` into host memory, blocking, after the chain. */
static clgpu_status read_back(clgpu_context *context, const clgpu__chain *chain, place from,
                              size_t size, void *host, const char *what) {
  cl_int err = clgpu__fault_hit(CLGPU__FAULT_ENQUEUE)
                   ? CLGPU__INJECTED_STATUS
                   : clEnqueueReadBuffer(
                         context->queue, from.buffer, CL_TRUE, (size_t)from.offset * size, size,
                         host, clgpu__chain_wait_count(chain), clgpu__chain_wait_list(chain), NULL);
  return err == CL_SUCCESS ? CLGPU_SUCCESS : clgpu__fail_cl(err, what);
}

/* The end of every call: the caller's event (or the chain dropped after a
 * failure), the kernels back to their programs, the scratch given back. */
static clgpu_status finish_call(clgpu_context *context, clgpu_status status, clgpu__chain *chain,
                                cl_event *event, clgpu__leases *held, clgpu__scratch *scratch) {
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, chain, event);
  } else {
    clgpu__chain_abandon(chain);
  }
  clgpu__leases_give_back(held);
  clgpu__scratch_release(context, scratch);
  return status;
}

static size_t global_size(uint64_t groups, size_t group) { return (size_t)groups * group; }

/* clgpu_reduce_ranges of a non-ARG program. */
static clgpu_status enqueue_ranges(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                   const kernel_shape *shape, place in, cl_ulong n, cl_ulong chunk,
                                   uint64_t groups, cl_int final, cl_int row_indices,
                                   place partials, place result) {
  clgpu__kernel_arg args[] = {ARG(in.buffer),       ARG(in.offset),       ARG(n),
                              ARG(chunk),           ARG(final),           ARG(row_indices),
                              ARG(partials.buffer), ARG(partials.offset), ARG(result.buffer),
                              ARG(result.offset)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernel, 0, args, 10, "clgpu_reduce_ranges"));
  return clgpu__chain_kernel(context, chain, kernel, global_size(groups, shape->group),
                             shape->group, "clEnqueueNDRangeKernel(clgpu_reduce_ranges)");
}

/* ---- the workspace checks shared by every entry point ---- */

static clgpu_status check_view(const clgpu_array *array, const char *who, const char *name) {
  CLGPU__RETURN_ERROR_IF(!array, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who, name);
  clgpu_status status = clgpu_array_check(array);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (%s: the %s)", who, name);
  return status;
}

/* The view with dimension `axis` moved last. */
static clgpu_status axis_last(const clgpu_array *array, unsigned axis, clgpu_array *out) {
  unsigned axes[CLGPU_MAX_RANK];
  unsigned at = 0;
  for (unsigned d = 0; d < array->rank; d++) {
    if (d != axis) axes[at++] = d;
  }
  axes[at] = axis;
  return clgpu_array_permute(array, axes, out);
}

/* ---- reduce ---- */

typedef struct reduce_plan {
  kernel_shape shape;
  spec spec;
  int rows_mode;      /* one group per line along the axis */
  uint64_t rows;      /* lines (rows mode) */
  uint64_t length;    /* elements per line (rows mode) */
  uint64_t n;         /* elements read */
  int pack_input;     /* the input is copied to packed_input first */
  int pack_output;    /* the lines' results go through packed_output */
  range_split split;  /* whole-array mode */
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
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_REDUCE, plan->shape.algorithm, -1);
  uint64_t reserved = plan->rows_mode ? 0 : plan->split.reserved;
  clgpu__report_buffer(report, part, "packed_input", plan->spec.input,
                       plan->pack_input ? plan->n : 0);
  clgpu__report_buffer(report, part, "partials", plan->spec.accumulator, reserved);
  clgpu__report_buffer(report, part, "partial_indices", CLGPU_UINT64,
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
static clgpu_status plan_reduce(clgpu_context *context, spec *taken, const clgpu_array *input,
                                int axis, const clgpu_array *output,
                                const clgpu_call_options *options, const char *who,
                                reduce_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->spec = *taken;
  memset(taken, 0, sizeof *taken);
  clgpu_status status = resolve_shape(context, options, who, &plan->shape);
  if (status == CLGPU_SUCCESS) status = check_spec_support(context, &plan->spec, who);
  if (status == CLGPU_SUCCESS && output) {
    status = check_view(output, who, "output");
    if (status == CLGPU_SUCCESS && output->type != plan->spec.result) {
      status =
          clgpu__fail(CLGPU_TYPE_MISMATCH, "%s: the output holds %s, the reduction gives %s", who,
                      clgpu_type_cl_name(output->type), clgpu_type_cl_name(plan->spec.result));
    }
  }
  if (status == CLGPU_SUCCESS && (axis < CLGPU_ALL_AXES || axis >= (int)input->rank)) {
    status =
        clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: axis %d is out of range for an input of rank %u",
                    who, axis, input->rank);
  }
  if (status != CLGPU_SUCCESS) {
    spec_free(&plan->spec);
    return status;
  }

  uint64_t count = clgpu_array_count(input);
  if (axis == CLGPU_ALL_AXES) {
    plan->input = *input;
    plan->n = count;
    plan->rows = 1;
    if (output && clgpu_array_count(output) != 1) {
      char text[200];
      clgpu__describe_shape(output, text, sizeof text);
      spec_free(&plan->spec);
      return clgpu__fail(CLGPU_SHAPE_MISMATCH,
                         "%s: a reduction of the whole array writes one element, the output "
                         "has shape %s",
                         who, text);
    }
    if (output) plan->output = *output;
  } else {
    unsigned a = (unsigned)axis;
    status = axis_last(input, a, &plan->input);
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
      spec_free(&plan->spec);
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
    if (plan->rows_mode) status = fit_line(context, who, plan->length, &plan->shape);
    if (status != CLGPU_SUCCESS) {
      spec_free(&plan->spec);
      return status;
    }
  }
  if (output) {
    status = clgpu__check_output_layout(output, who, "output");
    if (status == CLGPU_SUCCESS && clgpu_may_alias(input, output)) {
      status = clgpu__fail(CLGPU_INVALID_OUTPUT, "%s: the output may overlap the input", who);
    }
    if (status == CLGPU_SUCCESS) {
      status = clgpu__check_buffer(context, output->buffer, who, "output", 1);
    }
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__check_buffer(context, input->buffer, who, "input", 0);
  }
  if (status != CLGPU_SUCCESS) {
    spec_free(&plan->spec);
    return status;
  }
  plan->pack_input = plan->n > 0 && !clgpu_array_is_contiguous(&plan->input);
  plan->pack_output =
      output && plan->rows_mode && plan->rows > 0 && !clgpu_array_is_contiguous(&plan->output);
  if (!plan->rows_mode) {
    plan->split = split_range(context, &plan->shape, plan->n);
    status = fit_partials(context, who, plan->n, &plan->shape, &plan->split);
    if (status != CLGPU_SUCCESS) {
      spec_free(&plan->spec);
      return status;
    }
  }
  status = reduce_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)plan->n);
    spec_free(&plan->spec);
  }
  return status;
}

/* Enqueue a planned reduction into `result` (one element or the lines'
 * results), or into the workspace's "result" when `result` is NULL. When
 * `host` is not NULL, read the result there, blocking, before the scratch is
 * given back. */
static clgpu_status run_reduce(clgpu_context *context, reduce_plan *plan, const clgpu_array *input,
                               const clgpu_array *output, const clgpu_call_options *options,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event,
                               void *host, const char *who) {
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  if (plan->rows == 0) return clgpu__chain_end(context, &chain, event);

  clgpu__argument arguments[] = {{input, "input"}, {output, "output"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 2, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  cl_kernel ranges = NULL, partials = NULL;
  clgpu_program *program = NULL;
  int multi = !plan->rows_mode && plan->split.reserved > 0;
  clgpu_status status = get_program(context, &plan->spec, &plan->shape, &program);
  if (status == CLGPU_SUCCESS) status = clgpu__lease(&held, program, "clgpu_reduce_ranges", plan->spec.arg ? ARG_RANGES_INDEXED : ARG_RANGES, &ranges);
  if (status == CLGPU_SUCCESS && multi) {
    status = clgpu__lease(&held, program, "clgpu_reduce_partials", plan->spec.arg ? ARG_PARTIALS_INDEXED : ARG_PARTIALS, &partials);
  }

  place in = {0}, out = {0};
  clgpu_array packed_out;
  if (status == CLGPU_SUCCESS) {
    status = input_place(context, &chain, &scratch, REDUCE_PACKED_INPUT, plan->pack_input,
                         &plan->input, &in);
  }
  if (status == CLGPU_SUCCESS) {
    if (!output) {
      out = scratch_place(&scratch, REDUCE_RESULT);
    } else if (plan->pack_output) {
      status = scratch_view(&scratch, REDUCE_PACKED_OUTPUT, plan->spec.result, plan->output.rank,
                            plan->output.shape, &packed_out);
      if (status == CLGPU_SUCCESS) status = place_of(&packed_out, &out);
    } else {
      status = place_of(&plan->output, &out);
    }
  }

  if (status == CLGPU_SUCCESS) {
    place slots = multi ? scratch_place(&scratch, REDUCE_PARTIALS) : out;
    place index_slots =
        multi && plan->spec.arg ? scratch_place(&scratch, REDUCE_PARTIAL_INDICES) : out;
    cl_ulong n = plan->n;
    cl_ulong chunk = plan->rows_mode ? plan->length : (multi ? plan->split.chunk : plan->n);
    uint64_t groups = plan->rows_mode ? plan->rows : plan->split.groups;
    cl_int final = !multi;
    cl_int row_indices = plan->rows_mode;
    if (!plan->spec.arg) {
      status = enqueue_ranges(context, &chain, ranges, &plan->shape, in, n, chunk, groups, final,
                              row_indices, slots, out);
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
        status =
            clgpu__chain_kernel(context, &chain, ranges, global_size(groups, plan->shape.group),
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
    status = clgpu__chain_copy(context, &chain, &plan->output, &packed_out);
  }
  if (status == CLGPU_SUCCESS && host) {
    status = read_back(context, &chain, out, clgpu_type_size(plan->spec.result), host,
                       "clEnqueueReadBuffer(the result)");
  }
  return finish_call(context, status, &chain, event, &held, &scratch);
}

static clgpu_status check_reduce_entry(const clgpu_context *context, const clgpu_reduce_op *op,
                                       const clgpu_array *input, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  return check_view(input, who, "input");
}

clgpu_type clgpu_reduce_result_type(const clgpu_reduce_op *op, clgpu_type input_type) {
  if (!op || clgpu_type_size(input_type) == 0) return (clgpu_type)0;
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
    case CLGPU_REDUCE_PRODUCT:
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX:
      return input_type;
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX:
    case CLGPU_REDUCE_COUNT:
      return CLGPU_UINT64;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      return CLGPU_INT32;
    case CLGPU_REDUCE_CUSTOM:
      return clgpu_type_size(op->result_type) ? op->result_type : (clgpu_type)0;
  }
  return (clgpu_type)0;
}

static clgpu_status reduce_entry(clgpu_context *context, const clgpu_reduce_op *op,
                                 const char *predicate, const clgpu_array *input, int axis,
                                 const clgpu_array *output, const clgpu_call_options *options,
                                 cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                 clgpu_workspace_size *query, void *host, const char *who) {
  if (op) {
    CLGPU__FORWARD_IF_ERROR(check_reduce_entry(context, op, input, who));
  } else {
    CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
    CLGPU__FORWARD_IF_ERROR(check_view(input, who, "input"));
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  spec s;
  if (op) {
    CLGPU__FORWARD_IF_ERROR(reduce_spec(op, input->type, who, &s));
  } else {
    CLGPU__FORWARD_IF_ERROR(predicate_spec(input->type, predicate, who, &s));
  }
  reduce_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_reduce(context, &s, input, axis, output, options, who, &plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    *query = plan.report;
  } else {
    status =
        run_reduce(context, &plan, input, output, options, num_events, wait_list, event, host, who);
  }
  spec_free(&plan.spec);
  return status;
}

clgpu_status clgpu_reduce(clgpu_context *context, const clgpu_reduce_op *op,
                          const clgpu_array *input, int axis, const clgpu_array *output,
                          const clgpu_call_options *options, cl_uint num_events,
                          const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_reduce";
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  return reduce_entry(context, op, NULL, input, axis, output, options, num_events, wait_list, event,
                      NULL, NULL, who);
}

clgpu_status clgpu_reduce_workspace_size(clgpu_context *context, const clgpu_reduce_op *op,
                                         const clgpu_array *input, int axis,
                                         const clgpu_array *output,
                                         const clgpu_call_options *options,
                                         clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  return reduce_entry(context, op, NULL, input, axis, output, options, 0, NULL, NULL, out, NULL,
                      who);
}

clgpu_status clgpu_reduce_read(clgpu_context *context, const clgpu_reduce_op *op,
                               const clgpu_array *input, const clgpu_call_options *options,
                               void *result, size_t result_size) {
  const char *who = "clgpu_reduce_read";
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!result, CLGPU_INVALID_ARGUMENT, "%s: result is NULL", who);
  CLGPU__FORWARD_IF_ERROR(check_reduce_entry(context, op, input, who));
  clgpu_type type = clgpu_reduce_result_type(op, input->type);
  CLGPU__RETURN_ERROR_IF(type && result_size != clgpu_type_size(type), CLGPU_INVALID_ARGUMENT,
                         "%s: result_size is %zu, the result is a %s of %zu bytes", who,
                         result_size, clgpu_type_cl_name(type), clgpu_type_size(type));
  return reduce_entry(context, op, NULL, input, CLGPU_ALL_AXES, NULL, options, 0, NULL, NULL, NULL,
                      result, who);
}

/* A contiguous 1-D view of n elements over no buffer, for the "up to" queries:
 * only its type, shape and layout matter to the plan. */
static clgpu_status upto_plan_reduce(clgpu_context *context, spec *s, uint64_t max_n,
                                     const clgpu_call_options *options, const char *who,
                                     clgpu_workspace_size *out) {
  reduce_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.spec = *s;
  memset(s, 0, sizeof *s);
  clgpu_status status = resolve_shape(context, options, who, &plan.shape);
  if (status == CLGPU_SUCCESS) status = check_spec_support(context, &plan.spec, who);
  if (status == CLGPU_SUCCESS) {
    plan.n = max_n;
    plan.rows = 1;
    plan.split = split_range(context, &plan.shape, max_n);
    status = reduce_report(context, &plan, who);
    if (status == CLGPU_SUCCESS) {
      *out = plan.report;
    } else {
      append_max_n(max_n);
    }
  }
  spec_free(&plan.spec);
  return status;
}

clgpu_status clgpu_reduce_workspace_size_upto(clgpu_context *context, const clgpu_reduce_op *op,
                                              clgpu_type input_type, uint64_t max_n,
                                              const clgpu_call_options *options,
                                              clgpu_workspace_size *out) {
  const char *who = "clgpu_reduce_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!context || !op || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  CLGPU__RETURN_ERROR_IF(clgpu_type_size(input_type) == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: unknown input type %d", who, (int)input_type);
  spec s;
  CLGPU__FORWARD_IF_ERROR(reduce_spec(op, input_type, who, &s));
  return upto_plan_reduce(context, &s, max_n, options, who, out);
}

clgpu_status clgpu_count_if(clgpu_context *context, const clgpu_array *input, const char *predicate,
                            const clgpu_array *output, const clgpu_call_options *options,
                            cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_count_if";
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  return reduce_entry(context, NULL, predicate, input, CLGPU_ALL_AXES, output, options, num_events,
                      wait_list, event, NULL, NULL, who);
}

clgpu_status clgpu_count_if_workspace_size(clgpu_context *context, const clgpu_array *input,
                                           const char *predicate, const clgpu_array *output,
                                           const clgpu_call_options *options,
                                           clgpu_workspace_size *out) {
  const char *who = "clgpu_count_if_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  return reduce_entry(context, NULL, predicate, input, CLGPU_ALL_AXES, output, options, 0, NULL,
                      NULL, out, NULL, who);
}

/* ---- scan ---- */

typedef struct scan_plan {
  kernel_shape shape;
  spec spec;
  int rows_mode;
  uint64_t rows, length, n;
  int stage_input, pack_output;
  range_split split;
  clgpu_array input, output; /* axis last */
  clgpu_workspace_size report;
} scan_plan;

enum { SCAN_STAGED_INPUT, SCAN_PACKED_OUTPUT, SCAN_TOTALS };

/* The buffers of a scan, as a part of `report` (findall nests one). Returns
 * the index of the first. */
static unsigned scan_buffers(clgpu_workspace_size *report, int parent, const kernel_shape *shape,
                             const spec *s, uint64_t staged, uint64_t packed, uint64_t totals) {
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_SCAN, shape->algorithm, parent);
  unsigned first = clgpu__report_buffer(report, part, "staged_input", s->input, staged);
  clgpu__report_buffer(report, part, "packed_output", s->result, packed);
  clgpu__report_buffer(report, part, "totals", s->accumulator, totals);
  return first;
}

static clgpu_status scan_report(const clgpu_context *context, scan_plan *plan, const char *who) {
  clgpu__report_init(&plan->report);
  scan_buffers(&plan->report, -1, &plan->shape, &plan->spec, plan->stage_input ? plan->n : 0,
               plan->pack_output ? plan->n : 0, plan->rows_mode ? 0 : plan->split.reserved);
  return clgpu__report_finish(&plan->report, context, who);
}

static clgpu_status plan_scan(clgpu_context *context, spec *taken, const clgpu_array *input,
                              int axis, const clgpu_array *output,
                              const clgpu_call_options *options, const char *who, scan_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->spec = *taken;
  memset(taken, 0, sizeof *taken);
  clgpu_status status = resolve_shape(context, options, who, &plan->shape);
  if (status == CLGPU_SUCCESS) status = check_spec_support(context, &plan->spec, who);
  if (status == CLGPU_SUCCESS) status = check_view(output, who, "output");
  if (status == CLGPU_SUCCESS && output->type != input->type) {
    status = clgpu__fail(CLGPU_TYPE_MISMATCH, "%s: the output holds %s and the input %s", who,
                         clgpu_type_cl_name(output->type), clgpu_type_cl_name(input->type));
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
  if (status == CLGPU_SUCCESS)
    status = clgpu__check_buffer(context, output->buffer, who, "output", 1);
  if (status == CLGPU_SUCCESS)
    status = clgpu__check_buffer(context, input->buffer, who, "input", 0);
  if (status == CLGPU_SUCCESS && axis != CLGPU_ALL_AXES) {
    status = axis_last(input, (unsigned)axis, &plan->input);
    if (status == CLGPU_SUCCESS) status = axis_last(output, (unsigned)axis, &plan->output);
  } else {
    plan->input = *input;
    plan->output = *output;
  }
  if (status != CLGPU_SUCCESS) {
    spec_free(&plan->spec);
    return status;
  }
  plan->n = clgpu_array_count(input);
  if (axis != CLGPU_ALL_AXES) {
    plan->length = input->shape[axis];
    plan->rows = plan->length ? plan->n / plan->length : 0;
    plan->rows_mode = plan->rows > 1;
  }
  int same = clgpu_array_same(input, output);
  plan->stage_input = plan->n > 0 && (!clgpu_array_is_contiguous(&plan->input) ||
                                      (!same && clgpu_may_alias(input, output)));
  plan->pack_output = plan->n > 0 && !clgpu_array_is_contiguous(&plan->output);
  if (plan->rows_mode) {
    status = fit_line(context, who, plan->length, &plan->shape);
  } else {
    plan->split = split_range(context, &plan->shape, plan->n);
    status = fit_partials(context, who, plan->n, &plan->shape, &plan->split);
  }
  if (status != CLGPU_SUCCESS) {
    spec_free(&plan->spec);
    return status;
  }
  status = scan_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)plan->n);
    spec_free(&plan->spec);
  }
  return status;
}

/* The kernels of a scan program. */
typedef struct scan_kernels {
  cl_kernel ranges, carries, scan;
} scan_kernels;

static clgpu_status lease_scan(clgpu__leases *held, clgpu_program *program, int multi, scan_kernels *out) {
  if (multi) {
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_scan_totals", ARG_SCAN_TOTALS, &out->ranges));
    CLGPU__FORWARD_IF_ERROR(clgpu__lease(held, program, "clgpu_scan_carries", ARG_SCAN_CARRIES, &out->carries));
  }
  return clgpu__lease(held, program, "clgpu_scan_ranges", ARG_SCAN_RANGES, &out->scan);
}

/* Scan n contiguous elements from `in` to `out` (which may be the same
 * place). A cut range reduces its chunks into `totals`, scans those into
 * carries, then scans each chunk from its carry. */
static clgpu_status enqueue_scan_contiguous(clgpu_context *context, clgpu__chain *chain,
                                            const scan_kernels *kernels, const kernel_shape *shape,
                                            place in, place out, cl_ulong n,
                                            const range_split *split, cl_int exclusive,
                                            place totals) {
  int multi = split->reserved > 0;
  cl_ulong chunk = multi ? split->chunk : n;
  uint64_t groups = multi ? split->groups : 1;
  if (multi) {
    clgpu__kernel_arg totals_args[] = {ARG(in.buffer), ARG(in.offset),     ARG(n),
                                       ARG(chunk),     ARG(totals.buffer), ARG(totals.offset)};
    CLGPU__FORWARD_IF_ERROR(
        clgpu__set_args(kernels->ranges, 0, totals_args, 6, "clgpu_scan_totals"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, kernels->ranges,
                                                global_size(groups, shape->group), shape->group,
                                                "clEnqueueNDRangeKernel(clgpu_scan_totals)"));
    cl_ulong count = groups;
    clgpu__kernel_arg args[] = {ARG(totals.buffer), ARG(totals.offset), ARG(count)};
    CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernels->carries, 0, args, 3, "clgpu_scan_carries"));
    CLGPU__FORWARD_IF_ERROR(clgpu__chain_kernel(context, chain, kernels->carries, shape->group,
                                                shape->group,
                                                "clEnqueueNDRangeKernel(clgpu_scan_carries)"));
  }
  cl_int use_carries = multi;
  place carries = multi ? totals : out;
  clgpu__kernel_arg args[] = {
      ARG(in.buffer),      ARG(in.offset),   ARG(n),         ARG(chunk),      ARG(carries.buffer),
      ARG(carries.offset), ARG(use_carries), ARG(exclusive), ARG(out.buffer), ARG(out.offset)};
  CLGPU__FORWARD_IF_ERROR(clgpu__set_args(kernels->scan, 0, args, 10, "clgpu_scan_ranges"));
  return clgpu__chain_kernel(context, chain, kernels->scan, global_size(groups, shape->group),
                             shape->group, "clEnqueueNDRangeKernel(clgpu_scan_ranges)");
}

static clgpu_status run_scan(clgpu_context *context, scan_plan *plan, const clgpu_scan_op *op,
                             const clgpu_array *input, const clgpu_array *output,
                             const clgpu_call_options *options, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event, const char *who) {
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  if (plan->n == 0) return clgpu__chain_end(context, &chain, event);

  clgpu__argument arguments[] = {{input, "input"}, {output, "output"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 2, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  scan_kernels kernels = {NULL, NULL, NULL};
  clgpu_program *program = NULL;
  int multi = !plan->rows_mode && plan->split.reserved > 0;
  clgpu_status status = get_program(context, &plan->spec, &plan->shape, &program);
  if (status == CLGPU_SUCCESS) status = lease_scan(&held, program, multi, &kernels);

  place in = {0}, out = {0};
  clgpu_array packed;
  if (status == CLGPU_SUCCESS) {
    status = input_place(context, &chain, &scratch, SCAN_STAGED_INPUT, plan->stage_input,
                         &plan->input, &in);
  }
  if (status == CLGPU_SUCCESS && plan->pack_output) {
    status = scratch_view(&scratch, SCAN_PACKED_OUTPUT, plan->spec.result, plan->output.rank,
                          plan->output.shape, &packed);
    if (status == CLGPU_SUCCESS) status = place_of(&packed, &out);
  } else if (status == CLGPU_SUCCESS) {
    status = place_of(&plan->output, &out);
  }
  cl_int exclusive = op->exclusive != 0;
  if (status == CLGPU_SUCCESS && plan->rows_mode) {
    cl_ulong n = plan->n, chunk = plan->length;
    cl_int use_carries = 0;
    clgpu__kernel_arg args[] = {ARG(in.buffer),  ARG(in.offset),  ARG(n),           ARG(chunk),
                                ARG(out.buffer), ARG(out.offset), ARG(use_carries), ARG(exclusive),
                                ARG(out.buffer), ARG(out.offset)};
    status = clgpu__set_args(kernels.scan, 0, args, 10, "clgpu_scan_ranges");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, kernels.scan,
                                   global_size(plan->rows, plan->shape.group), plan->shape.group,
                                   "clEnqueueNDRangeKernel(clgpu_scan_ranges)");
    }
  } else if (status == CLGPU_SUCCESS) {
    place totals = multi ? scratch_place(&scratch, SCAN_TOTALS) : out;
    status = enqueue_scan_contiguous(context, &chain, &kernels, &plan->shape, in, out, plan->n,
                                     &plan->split, exclusive, totals);
  }
  if (status == CLGPU_SUCCESS && plan->pack_output) {
    status = clgpu__chain_copy(context, &chain, &plan->output, &packed);
  }
  return finish_call(context, status, &chain, event, &held, &scratch);
}

static clgpu_status scan_entry(clgpu_context *context, const clgpu_scan_op *op,
                               const clgpu_array *input, int axis, const clgpu_array *output,
                               const clgpu_call_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event,
                               clgpu_workspace_size *query, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__FORWARD_IF_ERROR(check_view(input, who, "input"));
  CLGPU__RETURN_ERROR_IF(!output, CLGPU_INVALID_ARGUMENT, "%s: output is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  spec s;
  CLGPU__FORWARD_IF_ERROR(scan_spec(op, input->type, who, &s));
  scan_plan plan;
  CLGPU__FORWARD_IF_ERROR(plan_scan(context, &s, input, axis, output, options, who, &plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    *query = plan.report;
  } else {
    status =
        run_scan(context, &plan, op, input, output, options, num_events, wait_list, event, who);
  }
  spec_free(&plan.spec);
  return status;
}

clgpu_status clgpu_scan(clgpu_context *context, const clgpu_scan_op *op, const clgpu_array *input,
                        int axis, const clgpu_array *output, const clgpu_call_options *options,
                        cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return scan_entry(context, op, input, axis, output, options, num_events, wait_list, event, NULL,
                    "clgpu_scan");
}

clgpu_status clgpu_scan_workspace_size(clgpu_context *context, const clgpu_scan_op *op,
                                       const clgpu_array *input, int axis,
                                       const clgpu_array *output, const clgpu_call_options *options,
                                       clgpu_workspace_size *out) {
  const char *who = "clgpu_scan_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return scan_entry(context, op, input, axis, output, options, 0, NULL, NULL, out, who);
}

clgpu_status clgpu_scan_workspace_size_upto(clgpu_context *context, const clgpu_scan_op *op,
                                            clgpu_type type, uint64_t max_n,
                                            const clgpu_call_options *options,
                                            clgpu_workspace_size *out) {
  const char *who = "clgpu_scan_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!context || !op || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  CLGPU__RETURN_ERROR_IF(clgpu_type_size(type) == 0, CLGPU_INVALID_ARGUMENT, "%s: unknown type %d",
                         who, (int)type);
  scan_plan plan;
  memset(&plan, 0, sizeof plan);
  CLGPU__FORWARD_IF_ERROR(scan_spec(op, type, who, &plan.spec));
  clgpu_status status = resolve_shape(context, options, who, &plan.shape);
  if (status == CLGPU_SUCCESS) status = check_spec_support(context, &plan.spec, who);
  if (status == CLGPU_SUCCESS) {
    plan.n = max_n;
    plan.split = split_range(context, &plan.shape, max_n);
    status = scan_report(context, &plan, who);
    if (status == CLGPU_SUCCESS) {
      *out = plan.report;
    } else {
      append_max_n(max_n);
    }
  }
  spec_free(&plan.spec);
  return status;
}

/* ---- findall ---- */

typedef struct findall_plan {
  kernel_shape shape;
  spec predicate; /* counts matches per chunk */
  spec sum;       /* the nested scan of the counts */
  uint64_t n;
  int pack_input;
  range_split split;        /* of the input */
  range_split counts_split; /* of the counts, for the nested scan */
  clgpu_array input;
  int wide; /* 64-bit indices */
  clgpu_workspace_size report;
} findall_plan;

enum { FINDALL_PACKED_INPUT, FINDALL_COUNTS, FINDALL_COUNT, FINDALL_POSITIONS, FINDALL_SCAN_FIRST };

/* CHUNKED findall reads its input once: each chunk compacts the positions
 * of its matches into "positions" (n uint), then they are moved to the
 * output. Positions count from the chunk's start, so they fit in a uint
 * while chunks are shorter than 2^32 elements; longer ones (over 2^34
 * elements in all) take the two-pass path of TILED. */
static int findall_compacts(const findall_plan *plan) {
  return plan->shape.algorithm == CLGPU_ALGORITHM_CHUNKED && plan->split.chunk <= UINT32_MAX;
}

static clgpu_status findall_report(const clgpu_context *context, findall_plan *plan,
                                   const char *who) {
  clgpu_workspace_size *report = &plan->report;
  clgpu__report_init(report);
  unsigned part = clgpu__report_part(report, CLGPU_OPERATION_FINDALL, plan->shape.algorithm, -1);
  clgpu__report_buffer(report, part, "packed_input", plan->predicate.input,
                       plan->pack_input ? plan->n : 0);
  uint64_t chunks = plan->split.reserved > 0 ? plan->split.reserved : 1;
  clgpu__report_buffer(report, part, "counts", CLGPU_UINT64, chunks);
  clgpu__report_buffer(report, part, "count", CLGPU_UINT64, 1);
  clgpu__report_buffer(report, part, "positions", CLGPU_UINT32,
                       plan->shape.algorithm == CLGPU_ALGORITHM_CHUNKED ? plan->n : 0);
  plan->counts_split = split_range(context, &plan->shape, chunks);
  scan_buffers(report, (int)part, &plan->shape, &plan->sum, 0, 0, plan->counts_split.reserved);
  return clgpu__report_finish(report, context, who);
}

static clgpu_status findall_specs(clgpu_type type, const char *predicate, const char *who,
                                  findall_plan *plan) {
  CLGPU__FORWARD_IF_ERROR(predicate_spec(type, predicate, who, &plan->predicate));
  clgpu_scan_op sum = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_status status = scan_spec(&sum, CLGPU_UINT64, who, &plan->sum);
  if (status != CLGPU_SUCCESS) spec_free(&plan->predicate);
  return status;
}

static void findall_free(findall_plan *plan) {
  spec_free(&plan->predicate);
  spec_free(&plan->sum);
}

static clgpu_status plan_findall(clgpu_context *context, const clgpu_array *input,
                                 const char *predicate, const clgpu_array *indices,
                                 const clgpu_array *count, const clgpu_call_options *options,
                                 const char *who, findall_plan *plan) {
  memset(plan, 0, sizeof *plan);
  CLGPU__FORWARD_IF_ERROR(resolve_shape(context, options, who, &plan->shape));
  CLGPU__FORWARD_IF_ERROR(check_type_support(context, input->type, who));
  CLGPU__FORWARD_IF_ERROR(check_view(indices, who, "indices"));
  CLGPU__RETURN_ERROR_IF(indices->type != CLGPU_UINT32 && indices->type != CLGPU_UINT64,
                         CLGPU_TYPE_MISMATCH,
                         "%s: the indices must be uint (CLGPU_UINT32) or ulong (CLGPU_UINT64), "
                         "not %s",
                         who, clgpu_type_cl_name(indices->type));
  CLGPU__RETURN_ERROR_IF(indices->rank != 1, CLGPU_SHAPE_MISMATCH,
                         "%s: the indices must be a 1-D view, not rank %u", who, indices->rank);
  uint64_t n = clgpu_array_count(input);
  CLGPU__RETURN_ERROR_IF(indices->type == CLGPU_UINT32 && n > UINT32_MAX, CLGPU_TYPE_MISMATCH,
                         "%s: %llu elements need 64-bit indices (CLGPU_UINT64)", who,
                         (unsigned long long)n);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(indices, who, "indices"));
  CLGPU__RETURN_ERROR_IF(clgpu_may_alias(input, indices), CLGPU_INVALID_OUTPUT,
                         "%s: the indices may overlap the input", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, indices->buffer, who, "indices", 1));
  if (count) {
    CLGPU__FORWARD_IF_ERROR(check_view(count, who, "count"));
    CLGPU__RETURN_ERROR_IF(count->type != CLGPU_UINT64, CLGPU_TYPE_MISMATCH,
                           "%s: the count must be a ulong (CLGPU_UINT64), not %s", who,
                           clgpu_type_cl_name(count->type));
    CLGPU__RETURN_ERROR_IF(clgpu_array_count(count) != 1, CLGPU_SHAPE_MISMATCH,
                           "%s: the count must be one element, not %zu", who,
                           clgpu_array_count(count));
    CLGPU__RETURN_ERROR_IF(clgpu_may_alias(input, count), CLGPU_INVALID_OUTPUT,
                           "%s: the count may overlap the input", who);
    CLGPU__RETURN_ERROR_IF(clgpu_may_alias(indices, count), CLGPU_INVALID_OUTPUT,
                           "%s: the count may overlap the indices", who);
    CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, count->buffer, who, "count", 1));
  }
  CLGPU__FORWARD_IF_ERROR(clgpu__check_buffer(context, input->buffer, who, "input", 0));
  CLGPU__FORWARD_IF_ERROR(findall_specs(input->type, predicate, who, plan));
  plan->n = n;
  plan->input = *input;
  plan->wide = indices->type == CLGPU_UINT64;
  plan->pack_input = n > 0 && !clgpu_array_is_contiguous(input);
  plan->split = split_range(context, &plan->shape, n);
  CLGPU__FORWARD_IF_ERROR(fit_partials(context, who, n, &plan->shape, &plan->split));
  clgpu_status status = findall_report(context, plan, who);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (the input holds %llu elements)", (unsigned long long)n);
    findall_free(plan);
  }
  return status;
}

static clgpu_status run_findall(clgpu_context *context, findall_plan *plan,
                                const clgpu_array *indices, const clgpu_array *count,
                                const clgpu_call_options *options, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event, uint64_t *host,
                                const char *who) {
  clgpu__argument arguments[] = {{&plan->input, "input"}, {indices, "indices"}, {count, "count"}};
  clgpu__scratch scratch;
  CLGPU__FORWARD_IF_ERROR(clgpu__scratch_acquire(
      context, &plan->report, options ? options->workspace : NULL, arguments, 3, who, &scratch));
  clgpu__leases held = {{0}, {0}, {0}, 0};
  int compact = findall_compacts(plan);
  cl_kernel ranges = NULL, write = NULL;
  scan_kernels nested = {NULL, NULL, NULL};
  clgpu_program *program = NULL, *sum_program = NULL;
  uint64_t groups = plan->split.groups;
  int scan_needed = groups > 1;
  clgpu_status status = get_program(context, &plan->predicate, &plan->shape, &program);
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu__lease(&held, program, compact ? "clgpu_findall_compact" : "clgpu_reduce_ranges",
                     compact ? ARG_FINDALL_COMPACT : ARG_RANGES, &ranges);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__lease(&held, program, compact ? "clgpu_findall_move" : "clgpu_findall_write",
                          ARG_FINDALL_WRITE, &write);
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    status = get_program(context, &plan->sum, &plan->shape, &sum_program);
    if (status == CLGPU_SUCCESS) {
      status = lease_scan(&held, sum_program, plan->counts_split.reserved > 0, &nested);
    }
  }

  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  place in = {0}, counted = {0}, total = {0}, out = {0};
  if (status == CLGPU_SUCCESS) {
    status = input_place(context, &chain, &scratch, FINDALL_PACKED_INPUT, plan->pack_input,
                         &plan->input, &in);
  }
  if (status == CLGPU_SUCCESS) {
    counted = scratch_place(&scratch, FINDALL_COUNTS);
    if (count) {
      status = place_of(count, &total);
    } else {
      total = scratch_place(&scratch, FINDALL_COUNT);
    }
  }
  if (status == CLGPU_SUCCESS) status = place_of(indices, &out);
  cl_ulong n = plan->n;
  cl_ulong chunk = plan->split.reserved > 0 ? plan->split.chunk : plan->n;
  place positions = scratch_place(&scratch, FINDALL_POSITIONS);
  if (status == CLGPU_SUCCESS && compact) {
    clgpu__kernel_arg args[] = {ARG(in.buffer),      ARG(in.offset),        ARG(n),
                                ARG(chunk),          ARG(positions.buffer), ARG(positions.offset),
                                ARG(counted.buffer), ARG(counted.offset)};
    status = clgpu__set_args(ranges, 0, args, 8, "clgpu_findall_compact");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, ranges, global_size(groups, 1), 1,
                                   "clEnqueueNDRangeKernel(clgpu_findall_compact)");
    }
  } else if (status == CLGPU_SUCCESS) {
    status = enqueue_ranges(context, &chain, ranges, &plan->shape, in, n, chunk, groups, 0, 0,
                            counted, counted);
  }
  if (status == CLGPU_SUCCESS && scan_needed) {
    place totals = plan->counts_split.reserved > 0
                       ? scratch_place(&scratch, FINDALL_SCAN_FIRST + SCAN_TOTALS)
                       : counted;
    status = enqueue_scan_contiguous(context, &chain, &nested, &plan->shape, counted, counted,
                                     groups, &plan->counts_split, 0, totals);
  }
  if (status == CLGPU_SUCCESS) {
    cl_ulong groups_arg = groups;
    cl_int wide = plan->wide;
    cl_long stride = indices->rank == 1 ? (cl_long)indices->strides[0] : 1;
    cl_ulong capacity = clgpu_array_count(indices);
    place source = compact ? positions : in;
    clgpu__kernel_arg args[] = {ARG(source.buffer), ARG(source.offset),  ARG(n),
                                ARG(chunk),         ARG(counted.buffer), ARG(counted.offset),
                                ARG(groups_arg),    ARG(wide),           ARG(out.buffer),
                                ARG(out.buffer),    ARG(out.offset),     ARG(stride),
                                ARG(capacity),      ARG(total.buffer),   ARG(total.offset)};
    status =
        clgpu__set_args(write, 0, args, 15, compact ? "clgpu_findall_move" : "clgpu_findall_write");
    if (status == CLGPU_SUCCESS) {
      status = clgpu__chain_kernel(context, &chain, write, global_size(groups, plan->shape.group),
                                   plan->shape.group, "clEnqueueNDRangeKernel(findall's writes)");
    }
  }
  if (status == CLGPU_SUCCESS && host) {
    cl_ulong value = 0;
    status =
        read_back(context, &chain, total, sizeof value, &value, "clEnqueueReadBuffer(the count)");
    if (status == CLGPU_SUCCESS) *host = value;
  }
  return finish_call(context, status, &chain, event, &held, &scratch);
}

static clgpu_status findall_entry(clgpu_context *context, const clgpu_array *input,
                                  const char *predicate, const clgpu_array *indices,
                                  const clgpu_array *count, const clgpu_call_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                  clgpu_workspace_size *query, uint64_t *host, const char *who) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__FORWARD_IF_ERROR(check_view(input, who, "input"));
  CLGPU__RETURN_ERROR_IF(!indices, CLGPU_INVALID_ARGUMENT, "%s: indices is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  findall_plan plan;
  CLGPU__FORWARD_IF_ERROR(
      plan_findall(context, input, predicate, indices, count, options, who, &plan));
  clgpu_status status = CLGPU_SUCCESS;
  if (query) {
    *query = plan.report;
  } else {
    status = run_findall(context, &plan, indices, count, options, num_events, wait_list, event,
                         host, who);
  }
  findall_free(&plan);
  return status;
}

clgpu_status clgpu_findall(clgpu_context *context, const clgpu_array *input, const char *predicate,
                           const clgpu_array *indices, const clgpu_array *count,
                           const clgpu_call_options *options, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_findall";
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT,
                         "%s: count is NULL (clgpu_findall_read takes none)", who);
  return findall_entry(context, input, predicate, indices, count, options, num_events, wait_list,
                       event, NULL, NULL, who);
}

clgpu_status clgpu_findall_workspace_size(clgpu_context *context, const clgpu_array *input,
                                          const char *predicate, const clgpu_array *indices,
                                          const clgpu_array *count,
                                          const clgpu_call_options *options,
                                          clgpu_workspace_size *out) {
  const char *who = "clgpu_findall_workspace_size";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  return findall_entry(context, input, predicate, indices, count, options, 0, NULL, NULL, out, NULL,
                       who);
}

clgpu_status clgpu_findall_workspace_size_upto(clgpu_context *context, clgpu_type type,
                                               uint64_t max_n, const clgpu_call_options *options,
                                               clgpu_workspace_size *out) {
  const char *who = "clgpu_findall_workspace_size_upto";
  CLGPU__RETURN_ERROR_IF(!context || !out, CLGPU_INVALID_ARGUMENT, "%s: NULL argument", who);
  CLGPU__RETURN_ERROR_IF(clgpu_type_size(type) == 0, CLGPU_INVALID_ARGUMENT, "%s: unknown type %d",
                         who, (int)type);
  findall_plan plan;
  memset(&plan, 0, sizeof plan);
  CLGPU__FORWARD_IF_ERROR(resolve_shape(context, options, who, &plan.shape));
  CLGPU__FORWARD_IF_ERROR(check_type_support(context, type, who));
  CLGPU__FORWARD_IF_ERROR(findall_specs(type, NULL, who, &plan));
  plan.n = max_n;
  plan.split = split_range(context, &plan.shape, max_n);
  clgpu_status status = findall_report(context, &plan, who);
  if (status == CLGPU_SUCCESS) {
    *out = plan.report;
  } else {
    append_max_n(max_n);
  }
  findall_free(&plan);
  return status;
}

clgpu_status clgpu_findall_read(clgpu_context *context, const clgpu_array *input,
                                const char *predicate, const clgpu_array *indices,
                                const clgpu_array *count_view, const clgpu_call_options *options,
                                uint64_t *count) {
  const char *who = "clgpu_findall_read";
  CLGPU__RETURN_ERROR_IF(!count, CLGPU_INVALID_ARGUMENT, "%s: count is NULL", who);
  return findall_entry(context, input, predicate, indices, count_view, options, 0, NULL, NULL, NULL,
                       count, who);
}
