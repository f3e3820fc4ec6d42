/* Fuzz operations on reduce, count_if, scan and findall, each compared
 * with a host model when its arguments are ones the fuzzer knows. */
#include "harness.h"

/* ---- reduce and count_if ---- */

/* Fixed custom reductions: a sum in the input's type, and a count of the
 * elements above 3 into a ulong. */
static const char *const custom_maps[] = {"x", "(x > 3) ? 1 : 0"};
static const char *const custom_reduces[] = {"a + b", "a + b"};
static const char *const custom_neutrals[] = {"0", "0"};
static const char *const initial_values[] = {"3", "0"};
static const char *const predicates[] = {"x > 3", "(i & 1) == 0", "x == 0"};

static int predicate_holds(int fixed, int null_predicate, const uint8_t *p, clgpu_type type,
                           size_t index) {
  double x = element_real(p, type);
  if (null_predicate) return x != 0 || x != x;
  if (fixed == 0) return x > 3;
  if (fixed == 1) return (index & 1) == 0;
  return x == 0;
}

/* The host's reduction of the elements of `view` listed by `offsets`, for
 * the built-in kinds and the fixed custom ones; 0 when it cannot say. */
static int host_reduce(const clgpu_reduce_op *op, int custom, int initial, const algo_view *view,
                       const size_t *offsets, size_t n, clgpu_type result_type, uint8_t *out) {
  clgpu_type type = view->view.type;
  const uint8_t *base = algo_before[view->buffer];
  int real = is_real(type);
  uint64_t sum = 0, product = 1, count = 0;
  double real_sum = 0;
  size_t best_min = SIZE_MAX, best_max = SIZE_MAX;
  for (size_t k = 0; k < n; k++) {
    const uint8_t *p = base + offsets[k];
    sum += (uint64_t)element_int(p, type);
    product *= (uint64_t)element_int(p, type);
    real_sum += element_real(p, type);
    double x = element_real(p, type);
    if (x != 0) count++;
    if (best_min == SIZE_MAX || order_image(p, type) < order_image(base + offsets[best_min], type)) {
      best_min = k;
    }
    if (best_max == SIZE_MAX || order_image(p, type) > order_image(base + offsets[best_max], type)) {
      best_max = k;
    }
  }
  int init = initial == 0 ? 3 : 0; /* initial_values[0] is "3", [1] is "0" */
  int has_initial = initial >= 0;
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
      if (real) store_real(out, type, real_sum + (has_initial ? init : 0));
      else store_int(out, type, sum + (uint64_t)(has_initial ? init : 0));
      return 1;
    case CLGPU_REDUCE_PRODUCT:
      if (real) return 0;
      store_int(out, type, product * (uint64_t)(has_initial ? init : 1));
      return 1;
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX: {
      size_t best = op->kind == CLGPU_REDUCE_MIN ? best_min : best_max;
      if (has_initial) return 0;
      if (best == SIZE_MAX) {
        if (real) return 0;
        /* The type's largest value for MIN, its lowest for MAX. */
        size_t bits = 8 * clgpu_type_size(type);
        uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
        uint64_t high = is_signed_type(type) ? top >> 1 : top;
        store_int(out, type, op->kind == CLGPU_REDUCE_MIN ? high : low);
        return 1;
      }
      memcpy(out, base + offsets[best], clgpu_type_size(type));
      return 1;
    }
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX: {
      size_t best = op->kind == CLGPU_REDUCE_ARGMIN ? best_min : best_max;
      store_int(out, CLGPU_TYPE_UINT64, best == SIZE_MAX ? UINT64_MAX : best);
      return 1;
    }
    case CLGPU_REDUCE_COUNT:
      store_int(out, CLGPU_TYPE_UINT64, count + (uint64_t)(has_initial ? init : 0));
      return 1;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      if (has_initial) return 0;
      store_int(out, CLGPU_TYPE_INT32, op->kind == CLGPU_REDUCE_ANY ? count > 0 : count == n);
      return 1;
    case CLGPU_REDUCE_CUSTOM:
      if (custom == 0 && result_type == type) {
        if (real) store_real(out, type, real_sum + (has_initial ? init : 0));
        else store_int(out, type, sum + (uint64_t)(has_initial ? init : 0));
        return 1;
      }
      if (custom == 1 && !is_real(result_type)) {
        uint64_t above = 0;
        for (size_t k = 0; k < n; k++) above += element_real(base + offsets[k], type) > 3;
        store_int(out, result_type, above + (uint64_t)(has_initial ? init : 0));
        return 1;
      }
      return 0;
    default:
      return 0;
  }
}

/* The lines of a reduction or scan along `axis` (or the whole view): for
 * line l, the row-major indices of its elements. */
typedef struct lines {
  size_t count;  /* lines */
  size_t length; /* elements per line */
  size_t rows, columns;
  int axis;
} lines;

static lines lines_of(const clgpu_array *view, size_t count, int axis) {
  lines result = {1, count, 1, count, axis};
  if (axis < 0 || view->rank != 2) return result;
  result.rows = view->shape[0];
  result.columns = view->shape[1];
  result.count = axis == 0 ? view->shape[1] : view->shape[0];
  result.length = axis == 0 ? view->shape[0] : view->shape[1];
  return result;
}

static size_t line_element(const lines *l, size_t line, size_t k) {
  if (l->axis < 0 || l->rows == 1) return l->axis < 0 ? k : line * l->length + k;
  return l->axis == 0 ? k * l->columns + line : line * l->columns + k;
}

static void take_reduce_op(byte_reader *in, clgpu_reduce_op *op, expression expressions[4],
                           int *custom, int *initial, clgpu_type input_type) {
  memset(op, 0, sizeof *op);
  /* 1 to 10 are the kinds, 0 and 11 none. */
  uint8_t kind = take_byte(in) % 12;
  op->kind = (clgpu_reduce_kind)(kind < 10 ? kind + 1 : kind == 10 ? 0 : 11);
  *custom = -1;
  *initial = -1;
  uint8_t initial_choice = take_byte(in) % 4;
  if (initial_choice == 1 || initial_choice == 2) {
    take_expression(in, initial_values, COUNT_OF(initial_values), &expressions[3]);
    op->initial = expressions[3].text;
    *initial = expressions[3].fixed;
  }
  if (op->kind != CLGPU_REDUCE_CUSTOM) return;
  *custom = take_byte(in) % 2;
  op->result_type = *custom == 0 ? input_type : CLGPU_TYPE_UINT64;
  if (take_byte(in) % 8 == 7) op->result_type = take_type(in);
  take_expression(in, custom_maps, COUNT_OF(custom_maps), &expressions[0]);
  take_expression(in, custom_reduces, COUNT_OF(custom_reduces), &expressions[1]);
  take_expression(in, custom_neutrals, COUNT_OF(custom_neutrals), &expressions[2]);
  op->map = take_byte(in) % 8 == 7 ? NULL : expressions[0].text;
  op->reduce = take_byte(in) % 16 == 15 ? NULL : expressions[1].text;
  op->neutral = take_byte(in) % 16 == 15 ? NULL : expressions[2].text;
  /* A custom reduction the table knows: every piece from the same row. */
  if (expressions[0].fixed != *custom || expressions[1].fixed != *custom ||
      expressions[2].fixed != *custom || !op->map || !op->reduce || !op->neutral) {
    *custom = -2;
  }
}

/* Whether an output view is one whose model can be written: made, and not
 * sharing a byte with the input (such a call is refused). */
static void model_reduce(algo_call *call, const clgpu_reduce_op *op, int custom, int initial,
                         const algo_view *input, int axis, const algo_view *output,
                         clgpu_type result_type) {
  if (!call->checkable || custom == -2) {
    call->checkable = 0;
    return;
  }
  lines l = lines_of(&input->view, input->count, axis);
  if (output->count != (axis < 0 ? 1 : l.count) || output->view.type != result_type) {
    call->checkable = 0;
    return;
  }
  static size_t offsets[ALGO_BYTES];
  for (size_t line = 0; line < (axis < 0 ? 1 : l.count); line++) {
    for (size_t k = 0; k < l.length; k++) {
      offsets[k] = element_offset(&input->view, line_element(&l, line, k));
    }
    uint8_t *out = &algo_model[output->buffer][element_offset(&output->view, line)];
    if (!host_reduce(op, custom, initial, input, offsets, l.length, result_type, out)) {
      call->checkable = 0;
      return;
    }
  }
}

void op_algo_reduce(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* reduce, reduce_read, the query, reduce again */
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, output;
  take_algo_view(in, pool, wish, &input);
  write_values(&input, take_byte(in), 0);
  int axis = CLGPU_ALL_AXES;
  uint8_t axis_choice = take_byte(in) % 6;
  if (axis_choice == 1 || axis_choice == 2) axis = axis_choice - 1;
  if (axis_choice == 3) axis = take_int(in);
  clgpu_reduce_op op;
  expression expressions[4];
  int custom, initial;
  clgpu_type in_type = input.made ? input.view.type : wish.type;
  take_reduce_op(in, &op, expressions, &custom, &initial, in_type);
  clgpu_type result_type = clgpu_reduce_result_type(&op, in_type);
  size_t out_n = 1;
  if (axis >= 0 && input.made && (unsigned)axis < input.view.rank && input.view.rank == 2) {
    out_n = input.view.shape[axis == 0 ? 1 : 0];
  } else if (axis >= 0 && input.made && input.view.rank == 1 && axis == 0) {
    out_n = 1;
  }
  take_algo_view(in, pool, wish_1d(result_type ? result_type : CLGPU_TYPE_UINT64, out_n, ALG_B),
                 &output);
  clgpu_call_options options_storage;
  const clgpu_call_options *options =
      take_call_options(in, &options_storage, &call.workspace_slot);
  add_view(&call, &input);
  add_view(&call, &output);
  for (int e = 0; e < 4; e++) {
    if ((e < 3 && op.kind == CLGPU_REDUCE_CUSTOM) || (e == 3 && op.initial)) {
      add_expression(&call, &expressions[e]);
    }
  }
  if (form == 2) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    int out_null = take_byte(in) % 8 == 7;
    describe_views(&call, "clgpu_reduce_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_reduce_workspace_size(
        context, &op, axis, output.pointer, input.pointer, options, out_null ? NULL : &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (out_null && status == CLGPU_SUCCESS) violation(call.text, "succeeded with out NULL");
    if (status != CLGPU_SUCCESS && memcmp(&report, &before, sizeof report) != 0) {
      violation(call.text, "failed but wrote the report");
    }
    return;
  }
  if (form == 1) {
    /* clgpu_reduce_read: whole array, into host memory of result_size. */
    uint8_t result[32];
    memset(result, 0xa5, sizeof result);
    size_t result_size = clgpu_type_size(result_type);
    uint8_t size_choice = take_byte(in) % 6;
    if (size_choice == 1) result_size += 1;
    if (size_choice == 2) result_size = result_size ? result_size - 1 : 0;
    if (size_choice == 3) result_size = 16;
    int result_null = size_choice == 4;
    algo_upload();
    describe_views(&call, "clgpu_reduce_read");
    call.wait.bad = call.wait.hostile = 0;
    call.stats = current_stats();
    prime_last_error();
    clgpu_status status = clgpu_reduce_read(context, &op, result_null ? NULL : result, result_size,
                                            input.pointer, options);
    if (status == CLGPU_SUCCESS &&
        (result_null || result_size != clgpu_type_size(result_type) || !result_type)) {
      violation(call.text, "succeeded with result %s of %zu bytes for a %zu-byte result",
                result_null ? "NULL" : "given", result_size, clgpu_type_size(result_type));
    }
    uint8_t expected[16];
    if (status == CLGPU_SUCCESS && call.checkable && custom != -2 && context == world.context) {
      static size_t offsets[ALGO_BYTES];
      for (size_t k = 0; k < input.count; k++) offsets[k] = element_offset(&input.view, k);
      if (host_reduce(&op, custom, initial, &input, offsets, input.count, result_type, expected) &&
          memcmp(expected, result, result_size) != 0) {
        violation(call.text, "read a result that differs from the host's (first byte %u, %u)",
                  result[0], expected[0]);
      }
    }
    for (size_t i = result_size; i < sizeof result; i++) {
      if (!result_null && result[i] != 0xa5) violation(call.text, "wrote past result_size");
    }
    if (status != CLGPU_SUCCESS) {
      for (size_t i = 0; i < sizeof result; i++) {
        if (result[i] != 0xa5) violation(call.text, "failed but wrote the result");
      }
    }
    call.checkable = 0; /* the buffers' bytes: only that nothing outside changed */
    call.want_event = 0;
    finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
    return;
  }
  if (context != world.context) call.checkable = 0;
  if (output.made && input.made && clgpu_may_alias(output.pointer, input.pointer)) {
    call.checkable = 0;
  }
  algo_upload();
  model_reduce(&call, &op, custom, initial, &input, axis, &output, result_type);
  if (broadcast_output(&output)) call.must_fail = 1;
  if (op.kind == CLGPU_REDUCE_CUSTOM && (!op.reduce || !op.neutral)) call.must_fail = 1;
  if ((op.kind == CLGPU_REDUCE_ARGMIN || op.kind == CLGPU_REDUCE_ARGMAX) && op.initial) {
    call.must_fail = 1;
  }
  if (op.kind < CLGPU_REDUCE_SUM || op.kind > CLGPU_REDUCE_CUSTOM) call.must_fail = 1;
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_reduce");
  clgpu_status status =
      clgpu_reduce(context, &op, axis, output.pointer, input.pointer, options, call.wait.count,
                   call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

void op_algo_count_if(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 3;
  algo_write_buffers(take_byte(in));
  algo_view input, output;
  take_algo_view(in, pool, wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A),
                 &input);
  write_values(&input, take_byte(in), 0);
  take_algo_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, ALG_B), &output);
  expression predicate;
  take_expression(in, predicates, COUNT_OF(predicates), &predicate);
  int null_predicate = take_byte(in) % 4 == 3;
  clgpu_call_options options_storage;
  const clgpu_call_options *options =
      take_call_options(in, &options_storage, &call.workspace_slot);
  add_view(&call, &input);
  add_view(&call, &output);
  if (!null_predicate) add_expression(&call, &predicate);
  const char *text = null_predicate ? NULL : predicate.text;
  if (form == 2) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_count_if_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_count_if_workspace_size(context, text, output.pointer,
                                                        input.pointer, options, &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    return;
  }
  if (context != world.context || output.view.type != CLGPU_TYPE_UINT64 || output.count != 1 ||
      (input.made && output.made && clgpu_may_alias(input.pointer, output.pointer))) {
    call.checkable = 0;
  }
  algo_upload();
  if (call.checkable) {
    uint64_t count = 0;
    for (size_t k = 0; k < input.count; k++) {
      count += (uint64_t)predicate_holds(predicate.fixed, null_predicate,
                                         &algo_before[input.buffer][element_offset(&input.view, k)],
                                         input.view.type, k);
    }
    store_int(&algo_model[output.buffer][output.view.offset], CLGPU_TYPE_UINT64, count);
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_count_if");
  clgpu_status status =
      clgpu_count_if(context, text, output.pointer, input.pointer, options, call.wait.count,
                     call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- scan ---- */

static const char *const scan_combines[] = {"a + b", "a * b"};
static const char *const scan_neutrals[] = {"0", "1"};

/* The host's scan of one line into the model; 0 when it cannot say. */
static int host_scan(const clgpu_scan_op *op, int custom, const algo_view *input,
                     const algo_view *output, const lines *l, size_t line) {
  clgpu_type type = input->view.type;
  size_t size = clgpu_type_size(type);
  int real = is_real(type);
  uint8_t carry[8], next[8];
  int have = 0;
  if (op->kind == CLGPU_SCAN_CUSTOM && (custom < 0 || (custom == 1 && real))) return 0;
  if (op->exclusive) {
    /* The neutral element. */
    if (op->kind == CLGPU_SCAN_SUM || (op->kind == CLGPU_SCAN_CUSTOM && custom == 0)) {
      store_int(carry, type, 0);
    } else if (op->kind == CLGPU_SCAN_CUSTOM) {
      store_int(carry, type, 1);
    } else if (type == CLGPU_TYPE_FLOAT) {
      store_bits(carry, 4, op->kind == CLGPU_SCAN_MIN ? 0x7fffffff : 0xffffffff);
    } else if (real) {
      return 0;
    } else {
      size_t bits = 8 * size;
      uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
      uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
      uint64_t high = is_signed_type(type) ? top >> 1 : top;
      store_int(carry, type, op->kind == CLGPU_SCAN_MIN ? high : low);
    }
  }
  for (size_t k = 0; k < l->length; k++) {
    size_t index = line_element(l, line, k);
    const uint8_t *x = &algo_before[input->buffer][element_offset(&input->view, index)];
    /* next = carry op x, or x for the first inclusive element. */
    if (!have && !op->exclusive) {
      memcpy(next, x, size);
    } else if (op->kind == CLGPU_SCAN_SUM || (op->kind == CLGPU_SCAN_CUSTOM && custom == 0)) {
      if (real) store_real(next, type, element_real(carry, type) + element_real(x, type));
      else store_int(next, type, (uint64_t)element_int(carry, type) + (uint64_t)element_int(x, type));
    } else if (op->kind == CLGPU_SCAN_CUSTOM) {
      store_int(next, type, (uint64_t)element_int(carry, type) * (uint64_t)element_int(x, type));
    } else {
      uint64_t a = order_image(carry, type), b = order_image(x, type);
      int carry_nan = real && element_real(carry, type) != element_real(carry, type);
      int take_x = carry_nan || (op->kind == CLGPU_SCAN_MIN ? b < a : b > a);
      memcpy(next, take_x ? x : carry, size);
    }
    uint8_t *out = &algo_model[output->buffer][element_offset(&output->view, index)];
    memcpy(out, op->exclusive ? carry : next, size);
    memcpy(carry, next, size);
    have = 1;
  }
  return 1;
}

void op_algo_scan(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4;
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, output_storage;
  const algo_view *output = &output_storage;
  take_algo_view(in, pool, wish, &input);
  write_values(&input, take_byte(in), 0);
  uint8_t place = take_byte(in) % 4;
  if (place == 0 && input.pointer) {
    output = &input; /* exactly in place */
  } else {
    view_wish out_wish = wish;
    if (input.made) {
      out_wish.type = input.view.type;
      out_wish.rank = input.view.rank;
      out_wish.shape[0] = input.view.shape[0];
      out_wish.shape[1] = input.view.rank == 2 ? input.view.shape[1] : 1;
    }
    out_wish.buffer = place == 1 ? ALG_A : ALG_B; /* place 1: may overlap the input */
    take_algo_view(in, pool, out_wish, &output_storage);
  }
  int axis = CLGPU_ALL_AXES;
  uint8_t axis_choice = take_byte(in) % 6;
  if (axis_choice == 1 || axis_choice == 2) axis = axis_choice - 1;
  if (axis_choice == 3) axis = take_int(in);
  clgpu_scan_op op;
  memset(&op, 0, sizeof op);
  uint8_t kind = take_byte(in) % 6;
  op.kind = (clgpu_scan_kind)(kind < 4 ? kind + 1 : kind == 4 ? 0 : 5);
  op.exclusive = take_byte(in) % 2 ? 0 : take_int(in);
  expression combine, neutral;
  take_expression(in, scan_combines, COUNT_OF(scan_combines), &combine);
  take_expression(in, scan_neutrals, COUNT_OF(scan_neutrals), &neutral);
  int custom = -1;
  if (op.kind == CLGPU_SCAN_CUSTOM) {
    op.combine = take_byte(in) % 16 == 15 ? NULL : combine.text;
    op.neutral = take_byte(in) % 16 == 15 ? NULL : neutral.text;
    add_expression(&call, &combine);
    add_expression(&call, &neutral);
    if (!op.combine || !op.neutral) call.must_fail = 1;
    custom = combine.fixed == neutral.fixed && op.combine && op.neutral ? combine.fixed : -1;
  }
  if (op.kind < CLGPU_SCAN_SUM || op.kind > CLGPU_SCAN_CUSTOM) call.must_fail = 1;
  clgpu_call_options options_storage;
  const clgpu_call_options *options =
      take_call_options(in, &options_storage, &call.workspace_slot);
  add_view(&call, &input);
  add_view(&call, output);
  if (form == 2 || form == 3) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_scan_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_scan_workspace_size(
        context, &op, axis, output->pointer, input.pointer, options, form == 3 ? NULL : &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (form == 3) expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "out is NULL");
    return;
  }
  algo_upload();
  if (broadcast_output(output)) call.must_fail = 1;
  if (context != world.context || !input.made || !output->made ||
      output->view.type != input.view.type || output->count != input.count ||
      output->view.rank != input.view.rank || output->view.shape[0] != input.view.shape[0]) {
    call.checkable = 0;
  }
  if (call.checkable) {
    lines l = lines_of(&input.view, input.count, axis);
    for (size_t line = 0; line < l.count && call.checkable; line++) {
      if (!host_scan(&op, custom, &input, output, &l, line)) call.checkable = 0;
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_scan");
  clgpu_status status =
      clgpu_scan(context, &op, axis, output->pointer, input.pointer, options, call.wait.count,
                 call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- findall ---- */

void op_algo_findall(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* findall, findall_read, the query, findall */
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 4 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view input, indices, count;
  take_algo_view(in, pool, wish, &input);
  uint8_t data = take_byte(in);
  write_values(&input, data, data % 5 == 0);
  clgpu_type index_type = take_byte(in) % 2 ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64;
  size_t capacity = input.count;
  uint8_t capacity_choice = take_byte(in) % 4;
  if (capacity_choice == 1) capacity = take_byte(in) % 8;
  if (capacity_choice == 2) capacity = input.count / 2;
  take_algo_view(in, pool, wish_1d(index_type, capacity, ALG_B), &indices);
  int count_null = take_byte(in) % 6 == 5;
  take_algo_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, ALG_C), &count);
  if (count_null) count.pointer = NULL, count.made = 1;
  expression predicate;
  take_expression(in, predicates, COUNT_OF(predicates), &predicate);
  int null_predicate = take_byte(in) % 3 == 0;
  clgpu_call_options options_storage;
  const clgpu_call_options *options =
      take_call_options(in, &options_storage, &call.workspace_slot);
  add_view(&call, &input);
  add_view(&call, &indices);
  add_view(&call, &count);
  if (!null_predicate) add_expression(&call, &predicate);
  const char *text = null_predicate ? NULL : predicate.text;
  if (form == 2) {
    clgpu_workspace_size report;
    describe_views(&call, "clgpu_findall_workspace_size");
    prime_last_error();
    clgpu_status status = clgpu_findall_workspace_size(
        context, text, indices.pointer, count.pointer, input.pointer, options, &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    return;
  }
  algo_upload();
  if (broadcast_output(&indices)) call.must_fail = 1;
  uint64_t matches = 0;
  if (context != world.context || !indices.made || !input.made ||
      (indices.pointer && indices.view.rank != 1) ||
      (indices.pointer && indices.view.type != CLGPU_TYPE_UINT32 &&
       indices.view.type != CLGPU_TYPE_UINT64) ||
      (count.pointer && (count.view.type != CLGPU_TYPE_UINT64 || count.count != 1))) {
    call.checkable = 0;
  }
  if (call.checkable) {
    for (size_t k = 0; k < input.count; k++) {
      if (!predicate_holds(predicate.fixed, null_predicate,
                           &algo_before[input.buffer][element_offset(&input.view, k)],
                           input.view.type, k)) {
        continue;
      }
      if (matches < indices.count) {
        store_int(&algo_model[indices.buffer][element_offset(&indices.view, matches)],
                  indices.view.type, k);
      }
      matches++;
    }
    if (count.pointer) {
      store_int(&algo_model[count.buffer][count.view.offset], CLGPU_TYPE_UINT64, matches);
    }
  }
  if (form == 1) {
    uint64_t read = 0x5a5a5a5a5a5a5a5aull;
    int read_null = take_byte(in) % 8 == 7;
    describe_views(&call, "clgpu_findall_read");
    call.stats = current_stats();
    prime_last_error();
    clgpu_status status = clgpu_findall_read(context, text, indices.pointer, count.pointer,
                                             read_null ? NULL : &read, input.pointer, options);
    if (read_null && status == CLGPU_SUCCESS) violation(call.text, "succeeded with count NULL");
    if (status != CLGPU_SUCCESS && read != 0x5a5a5a5a5a5a5a5aull) {
      violation(call.text, "failed but wrote *count");
    }
    if (status == CLGPU_SUCCESS && call.checkable && !read_null && read != matches) {
      violation(call.text, "read a count of %llu, the host counts %llu", (unsigned long long)read,
                (unsigned long long)matches);
    }
    finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
    return;
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_findall");
  clgpu_status status =
      clgpu_findall(context, text, indices.pointer, count.pointer, input.pointer, options,
                    call.wait.count, call.wait.list, call.want_event ? &call.event : NULL);
  if (!count.pointer && status == CLGPU_SUCCESS) violation(call.text, "succeeded with count NULL");
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}
