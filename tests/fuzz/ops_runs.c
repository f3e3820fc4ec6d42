/* Fuzz operations on runs of equal adjacent keys (runs.h): scan by key,
 * reduce by key, unique, unique by key, run-length encoding and their
 * workspace queries, compared with a host model
 * when the arguments are ones the fuzzer knows. */
#include "harness.h"

static const char *const key_equalities[] = {"a == b"};
static const char *const runs_initials[] = {"3"};

/* ---- views over other views' bytes ---- */

/* A contiguous 1-D view of `count` elements of `type` from the byte of a
 * made 1-D view's lowest element (rounded down to the type's size), moved
 * down and then shortened until it fits the buffer. */
static void runs_view_over(const algo_view *under, clgpu_type type, size_t count, algo_view *out) {
  size_t size = clgpu_type_size(type);
  int64_t low = (int64_t)under->view.offset;
  if (under->view.rank == 1 && under->view.shape[0] > 0 && under->view.strides[0] < 0) {
    low += (int64_t)(under->view.shape[0] - 1) * under->view.strides[0] *
           (int64_t)clgpu_type_size(under->view.type);
  }
  if (low < 0) low = 0;
  size_t offset = (size_t)low - (size_t)low % size;
  size_t limit = algo.sizes[under->buffer];
  while (count > 0 && offset + count * size > limit) {
    if (offset >= size) {
      size_t moved = limit >= count * size ? limit - count * size : 0;
      offset = moved - moved % size;
    } else {
      count /= 2;
    }
  }
  ptrdiff_t step = 1;
  make_algo_view(under->buffer, offset, type, 1, &count, &step, out);
}

/* An output of the fuzzer's: take_algo_view's, moved to the upper half of
 * its buffer when `high` and it still fits there. */
static void take_output_view(byte_reader *in, const array_run *pool, view_wish wish, int high,
                             algo_view *out) {
  take_algo_view(in, pool, wish, out);
  if (!high || !out->made || out->view.rank != 1 || algo.sizes[out->buffer] < ALGO_BYTES) return;
  size_t size = clgpu_type_size(out->view.type);
  size_t half = ALGO_BYTES / 2;
  int64_t low = (int64_t)out->view.offset, high_end = low;
  int64_t span = out->count ? (int64_t)(out->count - 1) * out->view.strides[0] * (int64_t)size : 0;
  if (span < 0)
    low += span;
  else
    high_end += span;
  if (low < 0 || (size_t)(high_end + (int64_t)size) + half > ALGO_BYTES) return;
  size_t shape = out->view.shape[0];
  ptrdiff_t step = out->view.strides[0];
  clgpu_status status = clgpu_array_strided(algo.buffers[out->buffer], out->view.offset + half,
                                            out->view.type, 1, &shape, &step, &out->view);
  if (status != CLGPU_SUCCESS) {
    violation("clgpu_array_strided", "refused a view inside its buffer: %s (%s)",
              clgpu_status_name(status), clgpu_last_error());
  }
}

/* ---- the host model ---- */

/* A key as a number for "a == b": NaN is not equal to itself, -0 equals
 * +0. Half infinities and NaNs are taken from their bits. */
static int numeric_equal(const uint8_t *a, const uint8_t *b, clgpu_type type) {
  if (!is_real(type)) return element_int(a, type) == element_int(b, type);
  if (type == CLGPU_TYPE_HALF) {
    unsigned x = (unsigned)a[0] | (unsigned)a[1] << 8, y = (unsigned)b[0] | (unsigned)b[1] << 8;
    int x_special = (x & 0x7c00) == 0x7c00, y_special = (y & 0x7c00) == 0x7c00;
    if ((x_special && (x & 0x3ff)) || (y_special && (y & 0x3ff))) return 0;
    if (x_special || y_special) return x == y;
    if (((x | y) & 0x7fff) == 0) return 1;
    return x == y;
  }
  double x = element_real(a, type), y = element_real(b, type);
  return x == y;
}

/* Whether element i of the keys starts a run. */
static int starts_run(const uint8_t *keys, size_t i, clgpu_type type, int bitwise) {
  if (i == 0) return 1;
  size_t size = clgpu_type_size(type);
  const uint8_t *a = keys + (i - 1) * size, *b = keys + i * size;
  return bitwise ? memcmp(a, b, size) != 0 : !numeric_equal(a, b, type);
}

/* MIN and MAX of two values of `type` that hold no NaN: the order of
 * sort.h (-0 below +0); on a tie the left one. */
static const uint8_t *pick(int min, const uint8_t *a, const uint8_t *b, clgpu_type type) {
  uint64_t x = order_image(a, type), y = order_image(b, type);
  return (min ? y < x : y > x) ? b : a;
}

/* The neutral element of a scan's MIN or MAX (scan.h): the type's largest
 * or lowest integer, or the NaN that ranks last. */
static void extreme_neutral(int min, clgpu_type type, uint8_t *out) {
  size_t size = clgpu_type_size(type);
  if (is_real(type)) {
    uint64_t all = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
    store_bits(out, size, min ? all >> 1 : all);
    return;
  }
  size_t bits = 8 * size;
  uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
  uint64_t high = is_signed_type(type) ? top >> 1 : top;
  store_int(out, type, min ? high : low);
}

/* a op b into out, for SUM, MIN and MAX of values without NaNs. */
static void combine(int kind, const uint8_t *a, const uint8_t *b, clgpu_type type, uint8_t *out) {
  size_t size = clgpu_type_size(type);
  uint8_t result[8];
  if (kind == CLGPU_SCAN_SUM) {
    if (is_real(type))
      store_real(result, type, element_real(a, type) + element_real(b, type));
    else
      store_int(result, type, (uint64_t)element_int(a, type) + (uint64_t)element_int(b, type));
  } else {
    memcpy(result, pick(kind == CLGPU_SCAN_MIN, a, b, type), size);
  }
  memcpy(out, result, size);
}

static void model_scan(const clgpu_scan_op *op, const uint8_t *keys, clgpu_type key_type,
                       int bitwise, const uint8_t *values, clgpu_type type, size_t n,
                       const algo_view *output) {
  size_t size = clgpu_type_size(type);
  uint8_t carry[8] = {0}, neutral[8] = {0};
  if (op->kind == CLGPU_SCAN_SUM)
    store_int(neutral, type, 0);
  else
    extreme_neutral(op->kind == CLGPU_SCAN_MIN, type, neutral);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *x = values + i * size;
    uint8_t *out = &algo_model[output->buffer][element_offset(&output->view, i)];
    if (starts_run(keys, i, key_type, bitwise)) {
      /* The neutral element combined with x is x (a NaN neutral ranks
       * last, so MIN and MAX ignore it). */
      memcpy(out, op->exclusive ? neutral : x, size);
      memcpy(carry, x, size);
      continue;
    }
    if (op->exclusive) {
      memcpy(out, carry, size);
      combine(op->kind, carry, x, type, carry);
    } else {
      combine(op->kind, carry, x, type, carry);
      memcpy(out, carry, size);
    }
  }
}

/* One run's reduction into out; 0 when the model cannot say. */
static int reduce_run(const clgpu_reduce_op *op, int initial, const uint8_t *values,
                      clgpu_type type, size_t first, size_t end, clgpu_type result_type,
                      uint8_t *out) {
  size_t size = clgpu_type_size(type);
  uint64_t nonzero = 0, sum = 0;
  double real_sum = 0;
  const uint8_t *best = NULL;
  uint8_t three[8];
  store_int(three, type, 3);
  if (initial && (op->kind == CLGPU_REDUCE_MIN || op->kind == CLGPU_REDUCE_MAX)) best = three;
  for (size_t k = first; k < end; k++) {
    const uint8_t *x = values + k * size;
    sum += (uint64_t)element_int(x, type);
    real_sum += element_real(x, type);
    if (element_real(x, type) != 0) nonzero++;
    if (op->kind == CLGPU_REDUCE_MIN || op->kind == CLGPU_REDUCE_MAX) {
      best = best ? pick(op->kind == CLGPU_REDUCE_MIN, best, x, type) : x;
    }
  }
  switch (op->kind) {
    case CLGPU_REDUCE_SUM:
      if (is_real(type))
        store_real(out, type, real_sum + (initial ? 3 : 0));
      else
        store_int(out, type, sum + (initial ? 3u : 0u));
      return 1;
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX:
      memcpy(out, best, size);
      return 1;
    case CLGPU_REDUCE_COUNT:
      store_int(out, result_type, nonzero + (initial ? 3u : 0u));
      return 1;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      if (initial) return 0;
      store_int(out, result_type,
                op->kind == CLGPU_REDUCE_ANY ? nonzero > 0 : nonzero == end - first);
      return 1;
    default:
      return 0;
  }
}

static int model_reduce(const clgpu_reduce_op *op, int initial, const uint8_t *keys,
                        clgpu_type key_type, int bitwise, const uint8_t *values, clgpu_type type,
                        size_t n, clgpu_type result_type, const algo_view *run_keys,
                        const algo_view *reduced, const algo_view *count) {
  size_t key_size = clgpu_type_size(key_type);
  uint64_t runs = 0;
  for (size_t i = 0; i < n;) {
    size_t end = i + 1;
    while (end < n && !starts_run(keys, end, key_type, bitwise)) end++;
    if (runs < run_keys->count) {
      memcpy(&algo_model[run_keys->buffer][element_offset(&run_keys->view, runs)],
             keys + i * key_size, key_size);
    }
    if (runs < reduced->count) {
      uint8_t result[8];
      if (!reduce_run(op, initial, values, type, i, end, result_type, result)) return 0;
      memcpy(&algo_model[reduced->buffer][element_offset(&reduced->view, runs)], result,
             clgpu_type_size(result_type));
    }
    runs++;
    i = end;
  }
  store_int(&algo_model[count->buffer][element_offset(&count->view, 0)], CLGPU_TYPE_UINT64, runs);
  return 1;
}

/* Keys with runs: take write_values' small values, and for float keys
 * some -0s and NaNs among them (equal bits, unequal numbers). */
static void write_keys(const algo_view *keys, uint8_t data, int numeric) {
  /* Any bits only where they are compared as bits or as integers: a
   * device may flush subnormal floats when it compares them as numbers. */
  int any_bits = data % 4 == 0 && !(numeric && keys->made && is_real(keys->view.type));
  write_values(keys, data, any_bits);
  if (!keys->made || data % 3 != 1 || !is_real(keys->view.type)) return;
  clgpu_type type = keys->view.type;
  size_t size = clgpu_type_size(type);
  for (size_t k = 0; k < keys->count; k++) {
    if ((k * 5 + data) % 7 > 2) continue;
    uint8_t *p = &algo_before[keys->buffer][element_offset(&keys->view, k)];
    uint64_t sign = (uint64_t)1 << (8 * size - 1);
    uint64_t nan = type == CLGPU_TYPE_HALF    ? 0x7e00
                   : type == CLGPU_TYPE_FLOAT ? 0x7fc00000
                                              : 0x7ff8000000000000ull;
    store_bits(p, size, (k * 5 + data) % 7 == 0 ? sign : (k * 5 + data) % 7 == 1 ? 0 : nan);
  }
}

/* ---- queries ---- */

static void check_runs_report(const char *text, const clgpu_workspace_size *report,
                              clgpu_operation operation, uint64_t staged_keys,
                              uint64_t staged_values) {
  if (report->num_parts < 1 || report->parts[0].operation != operation) {
    violation(text, "gave a report whose first part is not operation %d", (int)operation);
  }
  static const char *const names[] = {"staged_keys", "staged_values"};
  uint64_t needed[2] = {staged_keys, staged_values};
  for (size_t i = 0; i < 2; i++) {
    uint64_t held = 0;
    for (unsigned b = 0; b < report->num_buffers && b < CLGPU_WORKSPACE_MAX_BUFFERS; b++) {
      if (report->buffers[b].name && strcmp(report->buffers[b].name, names[i]) == 0) {
        held = report->buffers[b].count;
      }
    }
    if (held < needed[i]) {
      violation(text, "gave \"%s\" %llu elements; these views need %llu", names[i],
                (unsigned long long)held, (unsigned long long)needed[i]);
    }
  }
}

/* ---- unique, unique by key, run-length encoding ---- */

/* An output's length choice: 1 a byte's worth below 8, 2 half the keys, 3
 * five past them, else the keys' length. */
static size_t take_run_length(byte_reader *in, size_t n) {
  static const size_t extra[] = {0, 0, 0, 5};
  uint8_t length = take_byte(in) % 4;
  return length == 1 ? take_byte(in) % 8 : length == 2 ? n / 2 : n + extra[length];
}

/* One run output: the mode (0 over `first`'s bytes, its own view when of
 * `type`; 1 over `second`'s bytes; 2 a view in buffer `near`; 7 NULL; else
 * one in buffer `far`, its upper half when `high`), the length choice and
 * the view. */
static void take_run_output(byte_reader *in, const array_run *pool, clgpu_type type, size_t n,
                            const algo_view *first, const algo_view *second, int near, int far,
                            int high, algo_view *out) {
  memset(out, 0, sizeof *out);
  uint8_t mode = take_byte(in) % 8;
  if (mode == 7) return;
  size_t wanted = take_run_length(in, n);
  if (mode == 0 && first->made && first->view.rank == 1 && first->view.type == type) {
    *out = *first;
    out->pointer = &out->view;
  } else if (mode == 0 && first->made && first->view.rank == 1) {
    runs_view_over(first, type, wanted, out);
  } else if (mode == 1 && second->made && second->view.rank == 1) {
    runs_view_over(second, type, wanted, out);
  } else {
    take_output_view(in, pool, wish_1d(type, wanted, mode == 2 ? near : far), high, out);
  }
}

/* The type of lengths or offsets: uint, ulong, or any type. */
static clgpu_type take_index_type(byte_reader *in) {
  uint8_t choice = take_byte(in) % 4;
  return choice == 3 ? take_algo_type(in) : choice == 1 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
}

static int index_type(clgpu_type type) {
  return type == CLGPU_TYPE_UINT32 || type == CLGPU_TYPE_UINT64;
}

/* The runs of the keys: each run's first key, the value at its head (as
 * bits), its length and its offset, for the runs below each output's
 * length, and the number of runs. NULL outputs are zeroed views. */
static void model_unique(const uint8_t *keys, clgpu_type key_type, int bitwise,
                         const uint8_t *values, clgpu_type value_type, size_t n,
                         const algo_view *run_keys, const algo_view *run_values,
                         const algo_view *lengths, const algo_view *offsets,
                         const algo_view *count) {
  size_t key_size = clgpu_type_size(key_type);
  size_t value_size = values ? clgpu_type_size(value_type) : 0;
  uint64_t runs = 0;
  for (size_t i = 0; i < n;) {
    size_t end = i + 1;
    while (end < n && !starts_run(keys, end, key_type, bitwise)) end++;
    if (run_keys->pointer && runs < run_keys->count) {
      memcpy(&algo_model[run_keys->buffer][element_offset(&run_keys->view, runs)],
             keys + i * key_size, key_size);
    }
    if (values && run_values->pointer && runs < run_values->count) {
      memcpy(&algo_model[run_values->buffer][element_offset(&run_values->view, runs)],
             values + i * value_size, value_size);
    }
    if (lengths->pointer && runs < lengths->count) {
      store_int(&algo_model[lengths->buffer][element_offset(&lengths->view, runs)],
                lengths->view.type, end - i);
    }
    if (offsets->pointer && runs < offsets->count) {
      store_int(&algo_model[offsets->buffer][element_offset(&offsets->view, runs)],
                offsets->view.type, i);
    }
    runs++;
    i = end;
  }
  store_int(&algo_model[count->buffer][element_offset(&count->view, 0)], CLGPU_TYPE_UINT64, runs);
}

/* The extended forms of op_algo_runs (see there): 8 clgpu_unique, 9
 * clgpu_unique_by_key, 10 clgpu_run_length_encode, 11
 * clgpu_unique_workspace_size for clgpu_unique, 12 for
 * clgpu_unique_by_key, 13 clgpu_run_length_encode_workspace_size, 14
 * clgpu_unique_workspace_size_upto, 15
 * clgpu_run_length_encode_workspace_size_upto. */
static void algo_runs_unique(byte_reader *in, const array_run *pool, clgpu_context *context,
                             uint8_t form, algo_call *call) {
  int by_key = form == 9 || form == 12, encode = form == 10 || form == 13 || form == 15;
  int query = form >= 11 && form <= 13, upto = form >= 14;
  algo_write_buffers(take_byte(in));
  clgpu_type key_type = take_algo_type(in), value_type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  expression equality;
  memset(&equality, 0, sizeof equality);
  const char *key_equal = NULL;
  if (take_byte(in) % 3 != 0) {
    take_expression(in, key_equalities, COUNT_OF(key_equalities), &equality);
    key_equal = equality.text;
    add_expression(call, &equality);
  }
  clgpu_operation operation = encode ? CLGPU_OPERATION_RUN_LENGTH_ENCODE : CLGPU_OPERATION_UNIQUE;

  if (upto) {
    clgpu_call_options options_storage;
    int slot;
    const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
    uint64_t max_n = take_byte(in) % 4 == 3 ? take_u64(in) : n;
    if (!encode && take_byte(in) % 2 == 0) value_type = (clgpu_type)0;
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    snprintf(
        call->text, sizeof call->text, "%s(%s keys, %s values, max_n %llu, key_equal %s)",
        encode ? "clgpu_run_length_encode_workspace_size_upto" : "clgpu_unique_workspace_size_upto",
        clgpu_type_cl_name(key_type), encode || !value_type ? "no" : clgpu_type_cl_name(value_type),
        (unsigned long long)max_n, key_equal ? "given" : "NULL");
    prime_last_error();
    clgpu_status status =
        encode ? clgpu_run_length_encode_workspace_size_upto(context, key_equal, key_type, max_n,
                                                             options, &report)
               : clgpu_unique_workspace_size_upto(context, key_equal, key_type, value_type, max_n,
                                                  options, &report);
    check_query(call->text, status, STATUS_SET(algo_text_query_statuses, 1), 0, !context, &report,
                &before);
    if (status == CLGPU_SUCCESS) check_runs_report(call->text, &report, operation, 0, 0);
    return;
  }

  /* The inputs. */
  algo_view keys, values;
  memset(&values, 0, sizeof values);
  take_algo_view(in, pool, wish_1d(key_type, n, ALG_A), &keys);
  int values_are_keys = 0;
  if (by_key) {
    if (take_byte(in) % 8 == 7 && keys.made) {
      values = keys;
      values.pointer = &values.view;
      values_are_keys = 1;
    } else {
      take_algo_view(in, pool, wish_1d(value_type, n, ALG_B), &values);
    }
  }
  if (keys.made) key_type = keys.view.type;
  if (values.made) value_type = values.view.type;

  /* The outputs: run_keys; run_values or lengths; offsets; count. */
  algo_view run_keys, second, offsets, count;
  memset(&second, 0, sizeof second);
  memset(&offsets, 0, sizeof offsets);
  take_run_output(in, pool, key_type, n, &keys, by_key ? &values : &keys, ALG_A, ALG_C, 0,
                  &run_keys);
  if (by_key) {
    take_run_output(in, pool, value_type, n, &values, &keys, ALG_B, ALG_C, 1, &second);
  } else if (encode) {
    clgpu_type lengths_type = take_index_type(in);
    take_run_output(in, pool, lengths_type, n, &keys, &keys, ALG_A, ALG_C, 1, &second);
    clgpu_type offsets_type = take_index_type(in);
    take_run_output(in, pool, offsets_type, n, &keys, &keys, ALG_A, ALG_B, 0, &offsets);
  }
  uint8_t count_mode = take_byte(in) % 8;
  const algo_view *under = count_mode == 0   ? &keys
                           : count_mode == 1 ? (by_key ? &values : &keys)
                           : count_mode == 2 ? &run_keys
                                             : NULL;
  if (under && under->made && under->view.rank == 1) {
    runs_view_over(under, CLGPU_TYPE_UINT64, 1, &count);
  } else {
    take_output_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, ALG_WRITE_ONLY), 0, &count);
  }

  uint8_t key_data = take_byte(in), value_data = take_byte(in);
  write_keys(&keys, key_data, key_equal != NULL);
  if (by_key && !values_are_keys) write_values(&values, value_data, value_data % 3 == 0);
  clgpu_call_options options_storage;
  const clgpu_call_options *options =
      take_call_options(in, &options_storage, &call->workspace_slot);

  /* NULL optional outputs (run-length encoding's) leave the model valid. */
  int checkable = call->checkable;
  add_view(call, &keys);
  if (by_key) add_view(call, &values);
  add_view(call, &run_keys);
  if (by_key || encode) add_view(call, &second);
  if (encode) add_view(call, &offsets);
  add_view(call, &count);
  const algo_view *outputs[] = {&run_keys, &second, &offsets, &count};
  /* Required: run_keys but for an encoding, run_values by key, the count. */
  int required[] = {!encode, by_key, 0, 1};
  for (int k = 0; k < 4; k++) {
    if (outputs[k]->pointer && !outputs[k]->made) checkable = 0;
    if (!outputs[k]->pointer && required[k]) checkable = 0;
  }
  if (!keys.made || (by_key && !values.made)) checkable = 0;
  call->checkable = checkable;

  /* What the header refuses whatever else the call gets. */
  if (!context || !keys.pointer || (by_key && !values.pointer) || !count.pointer) {
    call->must_fail = 1;
  }
  if (keys.made && keys.view.rank != 1) call->must_fail = 1;
  if (values.made && values.view.rank != 1) call->must_fail = 1;
  if (by_key && keys.made && values.made && keys.view.rank == 1 && values.view.rank == 1 &&
      keys.view.shape[0] != values.view.shape[0]) {
    call->must_fail = 1;
  }
  int any_made = keys.made || values.made;
  for (int k = 0; k < 4; k++) {
    if (!outputs[k]->made) continue;
    any_made = 1;
    if (broadcast_output(outputs[k])) call->must_fail = 1;
    for (int j = 0; j < k; j++) {
      if (views_overlap(outputs[j], outputs[k])) call->must_fail = 1;
    }
  }
  if (run_keys.made && (run_keys.view.rank != 1 || run_keys.view.type != key_type)) {
    call->must_fail = 1;
  }
  if (by_key && second.made && (second.view.rank != 1 || second.view.type != value_type)) {
    call->must_fail = 1;
  }
  const algo_view *indices[] = {&second, &offsets};
  for (int k = 0; k < 2 && encode; k++) {
    if (indices[k]->made && indices[k]->view.rank != 1) call->must_fail = 1;
  }
  if (count.made && (count.view.type != CLGPU_TYPE_UINT64 || count.count != 1)) {
    call->must_fail = 1;
  }
  if (context && context != world.context && any_made) call->must_fail = 1;
  /* The faults the fuzzer holds to one status when the call has no other:
   * a missing run_keys or run_values (CLGPU_INVALID_ARGUMENT), lengths or
   * offsets of another type than uint and ulong (CLGPU_TYPE_MISMATCH). */
  int missing = !encode && (!run_keys.pointer || (by_key && !second.pointer));
  int wrong_index = 0;
  for (int k = 0; k < 2 && encode; k++) {
    if (indices[k]->made && indices[k]->view.rank == 1 && !index_type(indices[k]->view.type)) {
      wrong_index = 1;
    }
  }
  int clean = !call->must_fail && context == world.context && keys.made &&
              keys.buffer != ALG_WRITE_ONLY &&
              (!by_key || (values.made && values.buffer != ALG_WRITE_ONLY)) && count.made &&
              equality.fixed >= 0 && (!run_keys.pointer || run_keys.made) &&
              (!second.pointer || second.made) && (!offsets.pointer || offsets.made) &&
              (!options || (!options->workspace && options->shape >= CLGPU_SHAPE_AUTO &&
                            options->shape <= CLGPU_SHAPE_TILED)) &&
              !(key_equal && key_type == CLGPU_TYPE_HALF && !algo.fp16) &&
              !(key_equal && key_type == CLGPU_TYPE_DOUBLE && !algo.fp64);
  clgpu_status expected = CLGPU_SUCCESS;
  if (clean && missing) expected = CLGPU_INVALID_ARGUMENT;
  if (clean && !missing && wrong_index) expected = CLGPU_TYPE_MISMATCH;
  if (missing || wrong_index) call->must_fail = 1;
  static const char *const names[] = {"clgpu_unique", "clgpu_unique_by_key",
                                      "clgpu_run_length_encode"};
  const char *name = names[by_key ? 1 : encode ? 2 : 0];

  if (query) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    int out_null = take_byte(in) % 8 == 7;
    char label[64];
    snprintf(label, sizeof label, "%s_workspace_size",
             encode   ? "clgpu_run_length_encode"
             : by_key ? "clgpu_unique[by key]"
                      : "clgpu_unique");
    snprintf(call->wait.word, sizeof call->wait.word, "none (a query)");
    describe_views(call, label);
    prime_last_error();
    clgpu_workspace_size *out = out_null ? NULL : &report;
    clgpu_status status =
        encode ? clgpu_run_length_encode_workspace_size(context, key_equal, run_keys.pointer,
                                                        second.pointer, offsets.pointer,
                                                        count.pointer, keys.pointer, options, out)
               : clgpu_unique_workspace_size(
                     context, key_equal, run_keys.pointer, by_key ? second.pointer : NULL,
                     count.pointer, keys.pointer, by_key ? values.pointer : NULL, options, out);
    check_query(call->text, status, STATUS_SET(algo_text_query_statuses, 1), out_null,
                call->must_fail, &report, &before);
    if (expected != CLGPU_SUCCESS && !out_null) {
      expect_status(call->text, status, expected, "the one fault of these arguments");
    }
    if (status == CLGPU_SUCCESS && keys.made && (!by_key || values.made)) {
      uint64_t stage_keys = 0, stage_values = 0;
      for (int k = 0; k < 4; k++) {
        if (!outputs[k]->made) continue;
        if (clgpu_may_alias(outputs[k]->pointer, keys.pointer)) stage_keys = keys.count;
        if (by_key && clgpu_may_alias(outputs[k]->pointer, values.pointer)) {
          stage_values = keys.count;
        }
      }
      check_runs_report(call->text, &report, operation, stage_keys, stage_values);
    }
    return;
  }

  algo_upload();
  if (context != world.context || call->must_fail || keys.buffer == ALG_WRITE_ONLY ||
      (by_key && values.buffer == ALG_WRITE_ONLY)) {
    call->checkable = 0;
  }
  if (call->checkable) {
    static uint8_t key_bytes[ALGO_BYTES], value_bytes[ALGO_BYTES];
    gather_view(&keys, key_bytes);
    if (by_key) gather_view(&values, value_bytes);
    algo_view none;
    memset(&none, 0, sizeof none);
    model_unique(key_bytes, key_type, key_equal == NULL, by_key ? value_bytes : NULL, value_type,
                 keys.count, &run_keys, by_key ? &second : &none, encode ? &second : &none,
                 &offsets, &count);
  }
  begin_algo_call(call, in);
  describe_views(call, name);
  cl_event *event = call->want_event ? &call->event : NULL;
  clgpu_status status =
      by_key   ? clgpu_unique_by_key(context, key_equal, run_keys.pointer, second.pointer,
                                     count.pointer, keys.pointer, values.pointer, options,
                                     call->wait.count, call->wait.list, event)
      : encode ? clgpu_run_length_encode(context, key_equal, run_keys.pointer, second.pointer,
                                         offsets.pointer, count.pointer, keys.pointer, options,
                                         call->wait.count, call->wait.list, event)
               : clgpu_unique(context, key_equal, run_keys.pointer, count.pointer, keys.pointer,
                              options, call->wait.count, call->wait.list, event);
  if (expected != CLGPU_SUCCESS && !call->wait.bad && !call->wait.hostile) {
    expect_status(call->text, status, expected, "the one fault of these arguments");
  }
  finish_algo_call(call, status, STATUS_SET(algo_text_statuses, 1));
}

/* clgpu_scan_by_key, clgpu_reduce_by_key and their queries. Bytes: the
 * context, the form (modulo 16: 0 inclusive scan, 1 exclusive scan, 2
 * and 3 reduce, 4 the scan's query, 5 the reduce's, 6 the scan's _upto, 7
 * the reduce's; 8 to 15 the forms of algo_runs_unique, whose bytes follow
 * below),
 * the seed of the buffers, the key and value types, n, the key equality
 * (0 NULL, else take_expression over "a == b"), the operator (scan: SUM,
 * MIN, MAX or an unknown kind; reduce: SUM, MIN, MAX, COUNT, ANY, ALL,
 * ARGMIN, ARGMAX, then the initial value's choice, 3 for take_expression
 * over "3"), the keys' view, the values' mode (7: the keys' own view) and
 * view, then the outputs: scan's mode (0 the values' own view, 1 over the
 * keys' bytes, 2 over the values' bytes, 3 a view in the keys' buffer,
 * else one in buffer C); reduce's run_keys mode (0 the keys' own view, 1
 * over the values' bytes, 2 in the keys' buffer, else in buffer C), length
 * choice and view, reduced's mode (0 over the values, 1 over the keys, 2 in
 * the values' buffer, else the upper half of buffer C), length choice and
 * view, count's mode (0 over the keys, 1 over the values, 2 over run_keys,
 * else its own view); then the keys' and the values' data, the options,
 * and the call's wait list and event. A success is compared with the
 * host's runs, every other byte unchanged.
 * Forms 8 to 15 (clgpu_unique, clgpu_unique_by_key,
 * clgpu_run_length_encode, their queries and _upto queries; the corpus
 * before them used forms 0 to 5 only) take: the seed, the key and value
 * types, n, the key equality; for an _upto the options, max_n's choice
 * (3: a u64 follows) and for unique's a byte (even: no values); else the
 * keys' view, by key the values' mode (7: the keys' own view) and view,
 * then run_keys (take_run_output: mode 0 over the keys, 1 over the
 * values, 2 in buffer A, 7 NULL, else buffer C; length choice; view), by
 * key run_values (0 over the values, 1 over the keys, 2 in buffer B, 7
 * NULL, else the upper half of C), for an encoding the lengths' type
 * (take_index_type: 0 and 2 uint, 1 ulong, 3 any type) and output (as
 * run_values, in A or C), the offsets' type and output (in A or B), the
 * count's mode (0 over the keys, 1 over the values, 2 over run_keys, else
 * its own view), the keys' and values' data, the options, then a query's
 * out choice (7: NULL) or the call's wait list and event. */
void op_algo_runs(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 16;
  if (form >= 8) {
    algo_runs_unique(in, pool, context, form, &call);
    return;
  }
  int scan = form <= 1 || form == 4 || form == 6;
  int query = form >= 4 && form <= 5, upto = form >= 6;
  algo_write_buffers(take_byte(in));
  clgpu_type key_type = take_algo_type(in), value_type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  expression equality, initial_text;
  memset(&equality, 0, sizeof equality);
  memset(&initial_text, 0, sizeof initial_text);
  const char *key_equal = NULL;
  if (take_byte(in) % 3 != 0) {
    take_expression(in, key_equalities, COUNT_OF(key_equalities), &equality);
    key_equal = equality.text;
    add_expression(&call, &equality);
  }
  clgpu_scan_op scan_op;
  clgpu_reduce_op reduce_op;
  memset(&scan_op, 0, sizeof scan_op);
  memset(&reduce_op, 0, sizeof reduce_op);
  int initial = 0, argument_kind = 0;
  if (scan) {
    static const clgpu_scan_kind kinds[] = {CLGPU_SCAN_SUM, CLGPU_SCAN_MIN, CLGPU_SCAN_MAX,
                                            (clgpu_scan_kind)0};
    scan_op.kind = kinds[take_byte(in) % COUNT_OF(kinds)];
    scan_op.exclusive = form == 1 ? 1 + take_byte(in) % 2 : 0;
    if (scan_op.kind == 0) call.must_fail = 1;
  } else {
    static const clgpu_reduce_kind kinds[] = {
        CLGPU_REDUCE_SUM, CLGPU_REDUCE_MIN, CLGPU_REDUCE_MAX,    CLGPU_REDUCE_COUNT,
        CLGPU_REDUCE_ANY, CLGPU_REDUCE_ALL, CLGPU_REDUCE_ARGMIN, CLGPU_REDUCE_ARGMAX};
    reduce_op.kind = kinds[take_byte(in) % COUNT_OF(kinds)];
    argument_kind = reduce_op.kind == CLGPU_REDUCE_ARGMIN || reduce_op.kind == CLGPU_REDUCE_ARGMAX;
    if (take_byte(in) % 4 == 3) {
      take_expression(in, runs_initials, COUNT_OF(runs_initials), &initial_text);
      reduce_op.initial = initial_text.text;
      add_expression(&call, &initial_text);
      initial = 1;
    }
  }
  clgpu_type result_type = scan ? value_type : clgpu_reduce_result_type(&reduce_op, value_type);

  if (upto) {
    clgpu_call_options options_storage;
    int slot;
    const clgpu_call_options *options = take_call_options(in, &options_storage, &slot);
    uint64_t max_n = take_byte(in) % 4 == 3 ? take_u64(in) : n;
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    snprintf(
        call.text, sizeof call.text, "%s(%s keys, %s values, max_n %llu, key_equal %s)",
        scan ? "clgpu_scan_by_key_workspace_size_upto" : "clgpu_reduce_by_key_workspace_size_upto",
        clgpu_type_cl_name(key_type), clgpu_type_cl_name(value_type), (unsigned long long)max_n,
        key_equal ? "given" : "NULL");
    prime_last_error();
    clgpu_status status =
        scan ? clgpu_scan_by_key_workspace_size_upto(context, &scan_op, key_equal, key_type,
                                                     value_type, max_n, options, &report)
             : clgpu_reduce_by_key_workspace_size_upto(context, &reduce_op, key_equal, key_type,
                                                       value_type, max_n, options, &report);
    check_query(call.text, status, STATUS_SET(algo_text_query_statuses, 1), 0,
                call.must_fail || argument_kind || !context, &report, &before);
    if (status == CLGPU_SUCCESS) {
      check_runs_report(call.text, &report,
                        scan ? CLGPU_OPERATION_SCAN_BY_KEY : CLGPU_OPERATION_REDUCE_BY_KEY, 0, 0);
    }
    return;
  }

  /* The inputs. */
  algo_view keys, values;
  take_algo_view(in, pool, wish_1d(key_type, n, ALG_A), &keys);
  if (take_byte(in) % 8 == 7 && keys.made) {
    values = keys;
    values.pointer = &values.view;
  } else {
    take_algo_view(in, pool, wish_1d(value_type, n, ALG_B), &values);
  }
  if (keys.made) key_type = keys.view.type;
  if (values.made) value_type = values.view.type;
  result_type = scan ? value_type : clgpu_reduce_result_type(&reduce_op, value_type);

  /* The outputs. */
  algo_view output_storage, run_keys, reduced, count;
  const algo_view *output = &output_storage;
  memset(&output_storage, 0, sizeof output_storage);
  memset(&run_keys, 0, sizeof run_keys);
  memset(&reduced, 0, sizeof reduced);
  memset(&count, 0, sizeof count);
  size_t value_n = values.made ? values.count : n;
  if (scan) {
    uint8_t mode = take_byte(in) % 8;
    if (mode == 0 && values.pointer) {
      output = &values;
    } else if (mode == 1 && keys.made && keys.view.rank == 1) {
      runs_view_over(&keys, value_type, value_n, &output_storage);
    } else if (mode == 2 && values.made && values.view.rank == 1) {
      runs_view_over(&values, value_type, value_n, &output_storage);
    } else {
      take_output_view(in, pool, wish_1d(value_type, value_n, mode == 3 ? ALG_A : ALG_C), 0,
                       &output_storage);
    }
  } else {
    static const size_t extra[] = {0, 0, 0, 5};
    uint8_t mode = take_byte(in) % 8;
    uint8_t length = take_byte(in) % 4;
    size_t wanted = length == 1 ? take_byte(in) % 8 : length == 2 ? n / 2 : n + extra[length];
    if (mode == 0 && keys.made) {
      run_keys = keys;
      run_keys.pointer = &run_keys.view;
    } else if (mode == 1 && values.made && values.view.rank == 1) {
      runs_view_over(&values, key_type, wanted, &run_keys);
    } else {
      take_output_view(in, pool, wish_1d(key_type, wanted, mode == 2 ? ALG_A : ALG_C), 0,
                       &run_keys);
    }
    mode = take_byte(in) % 8;
    length = take_byte(in) % 4;
    wanted = length == 1 ? take_byte(in) % 8 : length == 2 ? n / 2 : n + extra[length];
    clgpu_type reduced_type = result_type ? result_type : value_type;
    if (mode == 0 && values.made && values.view.type == reduced_type) {
      reduced = values;
      reduced.pointer = &reduced.view;
    } else if (mode == 0 && values.made && values.view.rank == 1) {
      runs_view_over(&values, reduced_type, wanted, &reduced);
    } else if (mode == 1 && keys.made && keys.view.rank == 1) {
      runs_view_over(&keys, reduced_type, wanted, &reduced);
    } else {
      take_output_view(in, pool, wish_1d(reduced_type, wanted, mode == 2 ? ALG_B : ALG_C),
                       mode != 2, &reduced);
    }
    mode = take_byte(in) % 8;
    const algo_view *under = mode == 0 ? &keys : mode == 1 ? &values : mode == 2 ? &run_keys : NULL;
    if (under && under->made && under->view.rank == 1) {
      runs_view_over(under, CLGPU_TYPE_UINT64, 1, &count);
    } else {
      take_output_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, ALG_WRITE_ONLY), 0, &count);
    }
  }

  uint8_t key_data = take_byte(in), value_data = take_byte(in);
  write_keys(&keys, key_data, key_equal != NULL);
  if (values.pointer != &keys.view) write_values(&values, value_data, 0);
  clgpu_call_options options_storage;
  const clgpu_call_options *options = take_call_options(in, &options_storage, &call.workspace_slot);

  add_view(&call, &keys);
  add_view(&call, &values);
  if (scan) {
    add_view(&call, output);
  } else {
    add_view(&call, &run_keys);
    add_view(&call, &reduced);
    add_view(&call, &count);
  }

  /* What the header refuses whatever else the call gets. */
  if (!context || !keys.pointer || !values.pointer) call.must_fail = 1;
  if (keys.made && keys.view.rank != 1) call.must_fail = 1;
  if (values.made && values.view.rank != 1) call.must_fail = 1;
  if (keys.made && values.made && keys.view.rank == 1 && values.view.rank == 1 &&
      keys.view.shape[0] != values.view.shape[0]) {
    call.must_fail = 1;
  }
  int any_made = keys.made || values.made;
  if (scan) {
    if (!output->pointer) call.must_fail = 1;
    if (output->made) {
      any_made = 1;
      if (output->view.rank != 1 || output->view.type != value_type) call.must_fail = 1;
      if (values.made && output->view.rank == 1 && output->view.shape[0] != values.count) {
        call.must_fail = 1;
      }
      if (broadcast_output(output)) call.must_fail = 1;
    }
  } else {
    const algo_view *outputs[] = {&run_keys, &reduced, &count};
    for (int k = 0; k < 3; k++) {
      if (!outputs[k]->pointer) call.must_fail = 1;
      if (!outputs[k]->made) continue;
      any_made = 1;
      if (broadcast_output(outputs[k])) call.must_fail = 1;
      for (int j = 0; j < k; j++) {
        if (views_overlap(outputs[j], outputs[k])) call.must_fail = 1;
      }
    }
    if (run_keys.made && (run_keys.view.rank != 1 || run_keys.view.type != key_type)) {
      call.must_fail = 1;
    }
    if (reduced.made && (reduced.view.rank != 1 || reduced.view.type != result_type)) {
      call.must_fail = 1;
    }
    if (count.made && (count.view.type != CLGPU_TYPE_UINT64 || count.count != 1)) {
      call.must_fail = 1;
    }
  }
  if (context && context != world.context && any_made) call.must_fail = 1;
  /* ARGMIN and ARGMAX are refused with CLGPU_INVALID_ARGUMENT; where the
   * call has another fault that may be found first, with any status. */
  int argument_only = argument_kind && !call.must_fail && context == world.context && keys.made &&
                      values.made && run_keys.made && reduced.made && count.made &&
                      equality.fixed >= 0 && initial_text.fixed >= 0 &&
                      keys.buffer != ALG_WRITE_ONLY && values.buffer != ALG_WRITE_ONLY &&
                      (!options || (!options->workspace && options->shape >= CLGPU_SHAPE_AUTO &&
                                    options->shape <= CLGPU_SHAPE_TILED)) &&
                      !(value_type == CLGPU_TYPE_DOUBLE && !algo.fp64) &&
                      !(value_type == CLGPU_TYPE_HALF && !algo.fp16) &&
                      !(key_type == CLGPU_TYPE_HALF && key_equal && !algo.fp16);
  if (argument_kind) call.must_fail = 1;

  const char *name =
      scan ? (scan_op.exclusive ? "clgpu_scan_by_key[exclusive]" : "clgpu_scan_by_key[inclusive]")
           : "clgpu_reduce_by_key";
  if (query) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    int out_null = take_byte(in) % 8 == 7;
    char label[64];
    snprintf(label, sizeof label, "%s_workspace_size", scan ? "clgpu_scan_by_key" : name);
    snprintf(call.wait.word, sizeof call.wait.word, "none (a query)");
    describe_views(&call, label);
    prime_last_error();
    clgpu_workspace_size *out = out_null ? NULL : &report;
    clgpu_status status =
        scan ? clgpu_scan_by_key_workspace_size(context, &scan_op, key_equal, output->pointer,
                                                values.pointer, keys.pointer, options, out)
             : clgpu_reduce_by_key_workspace_size(context, &reduce_op, key_equal, run_keys.pointer,
                                                  reduced.pointer, count.pointer, keys.pointer,
                                                  values.pointer, options, out);
    check_query(call.text, status, STATUS_SET(algo_text_query_statuses, 1), out_null,
                call.must_fail, &report, &before);
    if (argument_only && !out_null) {
      expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "ARGMIN and ARGMAX are refused");
    }
    if (status == CLGPU_SUCCESS && keys.made && values.made) {
      uint64_t stage_keys = 0, stage_values = 0, count_n = keys.count;
      const algo_view *outputs[3] = {output, &run_keys, &reduced};
      size_t output_count = 1;
      if (!scan) {
        outputs[0] = &run_keys;
        outputs[1] = &reduced;
        outputs[2] = &count;
        output_count = 3;
      }
      for (size_t k = 0; k < output_count; k++) {
        if (!outputs[k]->made) continue;
        if (clgpu_may_alias(outputs[k]->pointer, keys.pointer)) stage_keys = count_n;
        if (clgpu_may_alias(outputs[k]->pointer, values.pointer) &&
            !(scan && clgpu_array_same(outputs[k]->pointer, values.pointer))) {
          stage_values = count_n;
        }
      }
      check_runs_report(call.text, &report,
                        scan ? CLGPU_OPERATION_SCAN_BY_KEY : CLGPU_OPERATION_REDUCE_BY_KEY,
                        stage_keys, stage_values);
    }
    return;
  }

  algo_upload();
  /* The model: every view the fuzzer's own, 1-D, of the types and lengths
   * the header asks for, built-in operators and a fixed key equality. */
  if (context != world.context || call.must_fail || !keys.made || !values.made ||
      keys.buffer == ALG_WRITE_ONLY || values.buffer == ALG_WRITE_ONLY) {
    call.checkable = 0;
  }
  if (call.checkable) {
    static uint8_t key_bytes[ALGO_BYTES], value_bytes[ALGO_BYTES];
    gather_view(&keys, key_bytes);
    gather_view(&values, value_bytes);
    int bitwise = key_equal == NULL;
    if (scan) {
      model_scan(&scan_op, key_bytes, key_type, bitwise, value_bytes, value_type, keys.count,
                 output);
    } else if (!model_reduce(&reduce_op, initial, key_bytes, key_type, bitwise, value_bytes,
                             value_type, keys.count, result_type, &run_keys, &reduced, &count)) {
      call.checkable = 0;
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, name);
  clgpu_status status =
      scan ? clgpu_scan_by_key(context, &scan_op, key_equal, output->pointer, values.pointer,
                               keys.pointer, options, call.wait.count, call.wait.list,
                               call.want_event ? &call.event : NULL)
           : clgpu_reduce_by_key(context, &reduce_op, key_equal, run_keys.pointer, reduced.pointer,
                                 count.pointer, keys.pointer, values.pointer, options,
                                 call.wait.count, call.wait.list,
                                 call.want_event ? &call.event : NULL);
  if (argument_only && !call.wait.bad && !call.wait.hostile) {
    expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "ARGMIN and ARGMAX are refused");
  }
  finish_algo_call(&call, status, STATUS_SET(algo_text_statuses, 1));
}
