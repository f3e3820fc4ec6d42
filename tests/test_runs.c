/* clgpu_scan_by_key and clgpu_reduce_by_key (runs.h) against a host
 * reference: every built-in value type with the scan and reduce operators,
 * every key type (bitwise equality, NaN and -0 among float keys, and an
 * equality expression), run lengths that matter (every key distinct, all
 * equal, runs of 1 to 2^20, runs straddling each tile and chunk boundary,
 * alternating runs, equal keys that are not adjacent), sizes from 0 up,
 * strided views, outputs over their own inputs, capacities below the
 * count, both shapes, workspaces, events, and the misuse table. Every call
 * runs on guarded buffers: bytes outside the outputs' views must not
 * change, and inside them only the elements written. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

static clgpu_context *context;

static int setup(void **state) {
  (void)state;
  context = test_context(NULL);
  return context ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  clgpu_context_destroy(context);
  return 0;
}

static const clgpu_shape shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* ---- operators on the host, over values held as their bits ---- */

typedef enum op_kind {
  OP_SUM,
  OP_PRODUCT,
  OP_MIN,
  OP_MAX,
  OP_COUNT,
  OP_ANY,
  OP_ALL,
  OP_CUSTOM, /* scans: a + b with neutral 0; reductions: the sum of x * x as long */
  OP_KIND_COUNT
} op_kind;

static const char *const op_names[] = {"sum",   "product", "min", "max",
                                       "count", "any",     "all", "custom"};

static uint64_t mask_of(test_type type) {
  size_t bits = 8 * test_type_size(type);
  return bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
}

static int64_t signed_of(uint64_t bits, test_type type) {
  size_t width = 8 * test_type_size(type);
  if (width == 64) return (int64_t)bits;
  uint64_t top = (uint64_t)1 << (width - 1);
  return (int64_t)((bits ^ top) - top);
}

static double float_of(uint64_t bits, test_type type) {
  if (type == TEST_DOUBLE) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  uint32_t narrow = (uint32_t)bits;
  float f;
  memcpy(&f, &narrow, 4);
  return f;
}

static uint64_t bits_of(double value, test_type type) {
  if (type == TEST_DOUBLE) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    return bits;
  }
  float f = (float)value;
  uint32_t narrow;
  memcpy(&narrow, &f, 4);
  return narrow;
}

/* Whether a comes before b in the min (max) order of reduce.h: floats by
 * their order key with NaNs after everything in both orders; integers by
 * value. */
static int before(uint64_t a, uint64_t b, test_type type, int max) {
  if (test_type_is_float(type)) {
    unsigned char ea[8], eb[8];
    test_store_bits(ea, 0, type, a);
    test_store_bits(eb, 0, type, b);
    int a_nan = test_is_nan(ea, type), b_nan = test_is_nan(eb, type);
    if (a_nan != b_nan) return b_nan;
    uint64_t ka = test_order_key(ea, type), kb = test_order_key(eb, type);
    return max ? ka > kb : ka < kb;
  }
  if (test_type_is_signed(type)) {
    int64_t sa = signed_of(a, type), sb = signed_of(b, type);
    return max ? sa > sb : sa < sb;
  }
  return max ? a > b : a < b;
}

/* a op b for SUM, PRODUCT, MIN, MAX and the custom scan, in the values'
 * type (integers wrap). */
static uint64_t combine(op_kind op, test_type type, uint64_t a, uint64_t b) {
  switch (op) {
    case OP_SUM:
    case OP_CUSTOM:
      if (test_type_is_float(type)) {
        return type == TEST_FLOAT
                   ? bits_of((float)float_of(a, type) + (float)float_of(b, type), type)
                   : bits_of(float_of(a, type) + float_of(b, type), type);
      }
      return (a + b) & mask_of(type);
    case OP_PRODUCT:
      if (test_type_is_float(type)) {
        return type == TEST_FLOAT
                   ? bits_of((float)float_of(a, type) * (float)float_of(b, type), type)
                   : bits_of(float_of(a, type) * float_of(b, type), type);
      }
      return (a * b) & mask_of(type);
    case OP_MIN:
      return before(b, a, type, 0) ? b : a;
    case OP_MAX:
      return before(b, a, type, 1) ? b : a;
    default:
      fail_msg("combine: operator %d", (int)op);
      return 0;
  }
}

/* The neutral element an exclusive scan starts each run with. */
static uint64_t scan_neutral(op_kind op, test_type type) {
  size_t width = 8 * test_type_size(type);
  switch (op) {
    case OP_SUM:
    case OP_CUSTOM:
      return 0;
    case OP_MIN:
      if (test_type_is_float(type)) return mask_of(type) >> 1; /* NaN, ranks last */
      return test_type_is_signed(type) ? (mask_of(type) >> 1) : mask_of(type);
    case OP_MAX:
      if (test_type_is_float(type)) return mask_of(type);
      return test_type_is_signed(type) ? (uint64_t)1 << (width - 1) : 0;
    default:
      fail_msg("scan_neutral: operator %d", (int)op);
      return 0;
  }
}

/* ---- keys ---- */

/* Key equality: bitwise, numeric ("a == b"), or by tens ("a / 10 == b / 10",
 * integer keys). */
typedef enum equality { EQUAL_BITS, EQUAL_NUMERIC, EQUAL_TENS } equality;

static const char *equality_text(equality e) {
  return e == EQUAL_BITS ? NULL : e == EQUAL_NUMERIC ? "a == b" : "a / 10 == b / 10";
}

static int keys_equal(const void *keys, size_t i, size_t j, test_type type, equality e) {
  uint64_t a = test_load_bits(keys, i, type), b = test_load_bits(keys, j, type);
  if (e == EQUAL_BITS) return a == b;
  if (test_type_is_float(type)) return float_of(a, type) == float_of(b, type);
  if (e == EQUAL_NUMERIC) return a == b;
  if (test_type_is_signed(type)) return signed_of(a, type) / 10 == signed_of(b, type) / 10;
  return a / 10 == b / 10;
}

/* How keys form runs. */
typedef enum run_pattern {
  RUNS_DISTINCT,    /* every key differs from its neighbour */
  RUNS_ALL_EQUAL,   /* one run */
  RUNS_FIXED,       /* runs of `length` */
  RUNS_RANDOM,      /* lengths 1 to 2 * length - 1 */
  RUNS_ALTERNATING, /* lengths 1, 2, 1, 2, ... */
  RUNS_FROM_DATA,   /* test_generate's FEW_UNIQUE: equal keys apart too */
} run_pattern;

static const char *const pattern_names[] = {"distinct", "all equal",   "fixed",
                                            "random",   "alternating", "few unique"};

/* n keys of `type` whose runs follow the pattern. Runs alternate between
 * two key values so that equal keys that are not adjacent occur; for the
 * tens equality, keys within a run differ but share their tens. */
static unsigned char *make_keys(test_type type, size_t n, run_pattern pattern, size_t length,
                                equality e, uint64_t seed) {
  unsigned char *keys = test_allocate(n, type);
  if (pattern == RUNS_FROM_DATA) {
    test_generate(keys, n, type, TEST_FEW_UNIQUE, seed, 3);
    return keys;
  }
  test_rng rng;
  test_rng_init(&rng, seed);
  size_t run = 0, left = 0;
  for (size_t i = 0; i < n; i++) {
    if (left == 0) {
      run++;
      switch (pattern) {
        case RUNS_DISTINCT:
          left = 1;
          break;
        case RUNS_ALL_EQUAL:
          left = n;
          break;
        case RUNS_FIXED:
          left = length;
          break;
        case RUNS_RANDOM:
          left = 1 + (size_t)test_rng_below(&rng, 2 * length - 1);
          break;
        default:
          left = run % 2 ? 1 : 2;
          break;
      }
    }
    left--;
    /* Run r's key: 3 or 5 by turns (20 or 40 for tens, plus 0..9). */
    uint64_t value =
        e == EQUAL_TENS ? (run % 2 ? 20 : 40) + test_rng_below(&rng, 10) : (run % 2 ? 3 : 5);
    if (pattern == RUNS_DISTINCT) value = e == EQUAL_TENS ? 10 * (i % 7) + i % 3 : i % 7 + 1;
    if (pattern == RUNS_DISTINCT && e == EQUAL_TENS && i > 0) {
      /* Neighbours in different tens. */
      value = 10 * (i % 2 ? 1 : 3) + test_rng_below(&rng, 10);
    }
    if (test_type_is_float(type)) {
      test_store_bits(keys, i, type, bits_of((double)value, type));
    } else {
      test_store_bits(keys, i, type, value & mask_of(type));
    }
  }
  return keys;
}

/* ---- one case ---- */

typedef struct runs_case {
  int scan; /* scan_by_key; else reduce_by_key */
  test_type key_type, value_type;
  size_t n;
  run_pattern pattern;
  size_t length;
  op_kind op;
  int exclusive;
  equality equal;
  clgpu_shape shape;
  ptrdiff_t key_stride, value_stride, out_stride;
  size_t capacity; /* reduce: the outputs' length (0: n) */
  const char *initial;
} runs_case;

static void describe(const runs_case *c, char *text, size_t size) {
  snprintf(text, size,
           "%s%s %s of %zu %s values by %s keys (%s runs %zu, %s), %s, strides %td/%td/%td, "
           "capacity %zu%s%s",
           c->scan ? (c->exclusive ? "exclusive " : "inclusive ") : "", op_names[c->op],
           c->scan ? "scan_by_key" : "reduce_by_key", c->n, test_type_name(c->value_type),
           test_type_name(c->key_type), pattern_names[c->pattern], c->length,
           c->equal == EQUAL_BITS ? "bitwise" : equality_text(c->equal), clgpu_shape_name(c->shape),
           c->key_stride, c->value_stride, c->out_stride, c->capacity,
           c->initial ? ", initial " : "", c->initial ? c->initial : "");
}

/* The result type of a reduction case. */
static test_type result_type(const runs_case *c) {
  switch (c->op) {
    case OP_COUNT:
      return TEST_UINT64;
    case OP_ANY:
    case OP_ALL:
      return TEST_INT32;
    case OP_CUSTOM:
      return c->scan ? c->value_type : TEST_INT64;
    default:
      return c->value_type;
  }
}

static clgpu_scan_op scan_op_of(const runs_case *c) {
  clgpu_scan_op op = {CLGPU_SCAN_SUM, c->exclusive, NULL, NULL};
  if (c->op == OP_MIN) op.kind = CLGPU_SCAN_MIN;
  if (c->op == OP_MAX) op.kind = CLGPU_SCAN_MAX;
  if (c->op == OP_CUSTOM) {
    op.kind = CLGPU_SCAN_CUSTOM;
    op.combine = "a + b";
    op.neutral = "0";
  }
  return op;
}

static clgpu_reduce_op reduce_op_of(const runs_case *c) {
  static const clgpu_reduce_kind kinds[] = {
      CLGPU_REDUCE_SUM,   CLGPU_REDUCE_PRODUCT, CLGPU_REDUCE_MIN, CLGPU_REDUCE_MAX,
      CLGPU_REDUCE_COUNT, CLGPU_REDUCE_ANY,     CLGPU_REDUCE_ALL, CLGPU_REDUCE_CUSTOM};
  clgpu_reduce_op op;
  memset(&op, 0, sizeof op);
  op.kind = kinds[c->op];
  op.initial = c->initial;
  if (c->op == OP_CUSTOM) {
    op.result_type = CLGPU_TYPE_INT64;
    op.map = "(long)x * (long)x";
    op.reduce = "a + b";
    op.neutral = "0L";
  }
  return op;
}

/* The reference: the scan's n outputs, or the runs' keys and reduced
 * values (returns the number of runs). */
static size_t reference(const runs_case *c, const unsigned char *keys, const unsigned char *values,
                        unsigned char *out, unsigned char *run_keys) {
  test_type vt = c->value_type, rt = result_type(c);
  size_t runs = 0;
  uint64_t acc = 0;
  for (size_t i = 0; i < c->n; i++) {
    int head = i == 0 || !keys_equal(keys, i - 1, i, c->key_type, c->equal);
    uint64_t x = test_load_bits(values, i, vt);
    if (c->scan) {
      uint64_t previous = head ? scan_neutral(c->op, vt) : acc;
      acc = head ? x : combine(c->op, vt, acc, x);
      test_store_bits(out, i, vt, c->exclusive ? previous : acc);
      continue;
    }
    /* Map, then combine, in the result type. */
    uint64_t mapped = x;
    int is_zero = test_type_is_float(vt) ? float_of(x, vt) == 0 : x == 0;
    if (c->op == OP_COUNT || c->op == OP_ANY || c->op == OP_ALL) mapped = !is_zero;
    if (c->op == OP_CUSTOM) {
      int64_t v = test_type_is_float(vt)    ? (int64_t)float_of(x, vt)
                  : test_type_is_signed(vt) ? signed_of(x, vt)
                                            : (int64_t)x;
      mapped = (uint64_t)(v * v);
    }
    if (head) {
      if (runs > 0) test_store_bits(out, runs - 1, rt, acc);
      memcpy(run_keys + runs * test_type_size(c->key_type), keys + i * test_type_size(c->key_type),
             test_type_size(c->key_type));
      runs++;
      acc = mapped;
    } else if (c->op == OP_COUNT || c->op == OP_CUSTOM) {
      acc += mapped;
    } else if (c->op == OP_ANY) {
      acc |= mapped;
    } else if (c->op == OP_ALL) {
      acc &= mapped;
    } else {
      acc = combine(c->op, vt, acc, mapped);
    }
  }
  if (!c->scan && runs > 0) test_store_bits(out, runs - 1, rt, acc);
  if (!c->scan && c->initial) {
    /* The cases' initial value is "100", combined into a SUM. */
    uint64_t hundred = test_type_is_float(rt) ? bits_of(100, rt) : 100;
    for (size_t r = 0; r < runs; r++) {
      test_store_bits(out, r, rt, combine(OP_SUM, rt, hundred, test_load_bits(out, r, rt)));
    }
  }
  return runs;
}

static void run_case(const runs_case *c) {
  char label[400];
  describe(c, label, sizeof label);
  uint64_t seed = test_case_seed(label);
  size_t n = c->n;
  size_t key_size = test_type_size(c->key_type), value_size = test_type_size(c->value_type);
  test_type rt = result_type(c);
  size_t result_size = test_type_size(rt);
  unsigned char *keys = make_keys(c->key_type, n, c->pattern, c->length, c->equal, seed);
  unsigned char *values = test_allocate(n, c->value_type);
  size_t parameter = c->op == OP_PRODUCT ? 3 : c->op == OP_ANY || c->op == OP_ALL ? 2 : 100;
  /* Float sums stay exact (below 2^24) whatever the order of addition. */
  if (test_type_is_float(c->value_type) && n > 100000) parameter = 4;
  test_generate(values, n, c->value_type, TEST_SMALL_INTEGERS, seed + 1, parameter);
  if (c->op == OP_ALL) {
    /* Mostly ones, so that some runs are all true. */
    for (size_t i = 0; i < n; i++) {
      if (i % 5)
        test_store_bits(values, i, c->value_type,
                        test_type_is_float(c->value_type) ? bits_of(1, c->value_type) : 1);
    }
  }
  size_t capacity = c->scan ? n : (c->capacity ? c->capacity : n);
  unsigned char *expected = test_allocate(n + 1, rt);
  unsigned char *expected_keys = test_allocate(n + 1, c->key_type);
  size_t runs = reference(c, keys, values, expected, expected_keys);

  test_placed k =
      test_place(context, keys, n, key_size, test_cl_type(c->key_type), c->key_stride, seed + 2);
  test_placed v = test_place(context, values, n, value_size, test_cl_type(c->value_type),
                             c->value_stride, seed + 3);
  unsigned char *junk = random_bytes((capacity + 1) * 8, seed + 4);
  test_placed out =
      test_place(context, junk, capacity, result_size, test_cl_type(rt), c->out_stride, seed + 5);
  test_placed out_keys =
      test_place(context, junk, capacity, key_size, test_cl_type(c->key_type), 1, seed + 6);
  test_placed count = test_place(context, junk, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 7);
  clgpu_call_options options = {.shape = c->shape};
  clgpu_status status;
  if (c->scan) {
    clgpu_scan_op op = scan_op_of(c);
    status = clgpu_scan_by_key(context, &op, equality_text(c->equal), &out.view, &v.view, &k.view,
                               &options, 0, NULL, NULL);
  } else {
    clgpu_reduce_op op = reduce_op_of(c);
    status = clgpu_reduce_by_key(context, &op, equality_text(c->equal), &out_keys.view, &out.view,
                                 &count.view, &k.view, &v.view, &options, 0, NULL, NULL);
  }
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s: %s", label, clgpu_status_name(status), clgpu_last_error());
  }
  size_t written = runs < capacity ? runs : capacity;
  test_placed_check(context, &out, result_size, expected, c->scan ? n : written, label,
                    c->scan ? "output" : "reduced");
  if (!c->scan) {
    test_placed_check(context, &out_keys, key_size, expected_keys, written, label, "run_keys");
    uint64_t counted = runs;
    test_placed_check(context, &count, 8, (const unsigned char *)&counted, 1, label, "count");
  }
  /* The inputs are read only. */
  test_placed_check(context, &k, key_size, keys, 0, label, "keys");
  test_placed_check(context, &v, value_size, values, 0, label, "values");
  test_placed_release(&k);
  test_placed_release(&v);
  test_placed_release(&out);
  test_placed_release(&out_keys);
  test_placed_release(&count);
  free(junk);
  free(keys);
  free(values);
  free(expected);
  free(expected_keys);
}

/* ---- unique, unique by key, run-length encoding ---- */

typedef enum unique_form { FORM_UNIQUE, FORM_UNIQUE_BY_KEY, FORM_ENCODE } unique_form;

typedef struct unique_case {
  unique_form form;
  test_type key_type, value_type; /* values: unique_by_key */
  size_t n;
  run_pattern pattern;
  size_t length;
  equality equal;
  clgpu_shape shape;
  ptrdiff_t key_stride, out_stride;
  size_t capacity; /* the outputs' length (0: n) */
  int wide;        /* encode: ulong lengths and offsets (else uint) */
  int without;     /* encode: 1 no run keys, 2 no lengths, 3 no offsets */
} unique_case;

static const char *const form_names[] = {"unique", "unique_by_key", "run_length_encode"};

static void run_unique_case(const unique_case *c) {
  char label[400];
  snprintf(label, sizeof label,
           "%s of %zu %s keys (%s runs %zu, %s)%s%s, %s, strides %td/%td, capacity %zu, %s%s",
           form_names[c->form], c->n, test_type_name(c->key_type), pattern_names[c->pattern],
           c->length, c->equal == EQUAL_BITS ? "bitwise" : equality_text(c->equal),
           c->form == FORM_UNIQUE_BY_KEY ? " with values of " : "",
           c->form == FORM_UNIQUE_BY_KEY ? test_type_name(c->value_type) : "",
           clgpu_shape_name(c->shape), c->key_stride, c->out_stride, c->capacity,
           c->wide ? "ulong" : "uint",
           c->without == 1   ? ", no run keys"
           : c->without == 2 ? ", no lengths"
           : c->without == 3 ? ", no offsets"
                             : "");
  uint64_t seed = test_case_seed(label);
  size_t n = c->n, key_size = test_type_size(c->key_type);
  size_t capacity = c->capacity ? c->capacity : n;
  unsigned char *keys = make_keys(c->key_type, n, c->pattern, c->length, c->equal, seed);
  /* Values: random bits of any type (moved, never computed on). */
  test_type vt = c->form == FORM_UNIQUE_BY_KEY ? c->value_type : TEST_UINT64;
  size_t value_size = test_type_size(vt);
  unsigned char *values = test_allocate(n, vt);
  test_generate(values, n, vt, TEST_UNIFORM, seed + 1, 0);
  test_type index_type = c->wide ? TEST_UINT64 : TEST_UINT32;
  size_t index_size = test_type_size(index_type);
  unsigned char *expected_keys = test_allocate(n + 1, c->key_type);
  unsigned char *expected_values = test_allocate(n + 1, vt);
  unsigned char *expected_lengths = test_allocate(n + 1, index_type);
  unsigned char *expected_offsets = test_allocate(n + 1, index_type);
  size_t runs = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && keys_equal(keys, i - 1, i, c->key_type, c->equal)) {
      test_store_bits(expected_lengths, runs - 1, index_type,
                      test_load_bits(expected_lengths, runs - 1, index_type) + 1);
      continue;
    }
    memcpy(expected_keys + runs * key_size, keys + i * key_size, key_size);
    memcpy(expected_values + runs * value_size, values + i * value_size, value_size);
    test_store_bits(expected_offsets, runs, index_type, i);
    test_store_bits(expected_lengths, runs, index_type, 1);
    runs++;
  }
  test_placed k =
      test_place(context, keys, n, key_size, test_cl_type(c->key_type), c->key_stride, seed + 2);
  test_placed v = test_place(context, values, n, value_size, test_cl_type(vt), 1, seed + 3);
  unsigned char *junk = random_bytes((capacity + 1) * 8, seed + 4);
  test_placed out_keys = test_place(context, junk, capacity, key_size, test_cl_type(c->key_type),
                                    c->out_stride, seed + 5);
  test_placed out_values =
      test_place(context, junk, capacity, value_size, test_cl_type(vt), 1, seed + 6);
  test_placed lengths = test_place(context, junk, capacity, index_size, test_cl_type(index_type),
                                   -c->out_stride, seed + 7);
  test_placed offsets =
      test_place(context, junk, capacity, index_size, test_cl_type(index_type), 2, seed + 8);
  test_placed count = test_place(context, junk, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 9);
  clgpu_call_options options = {.shape = c->shape};
  const char *equal = equality_text(c->equal);
  clgpu_status status;
  if (c->form == FORM_UNIQUE) {
    status =
        clgpu_unique(context, equal, &out_keys.view, &count.view, &k.view, &options, 0, NULL, NULL);
  } else if (c->form == FORM_UNIQUE_BY_KEY) {
    status = clgpu_unique_by_key(context, equal, &out_keys.view, &out_values.view, &count.view,
                                 &k.view, &v.view, &options, 0, NULL, NULL);
  } else {
    status = clgpu_run_length_encode(context, equal, c->without == 1 ? NULL : &out_keys.view,
                                     c->without == 2 ? NULL : &lengths.view,
                                     c->without == 3 ? NULL : &offsets.view, &count.view, &k.view,
                                     &options, 0, NULL, NULL);
  }
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s: %s", label, clgpu_status_name(status), clgpu_last_error());
  }
  size_t written = runs < capacity ? runs : capacity;
  uint64_t counted = runs;
  test_placed_check(context, &count, 8, (const unsigned char *)&counted, 1, label, "count");
  int encode = c->form == FORM_ENCODE;
  test_placed_check(context, &out_keys, key_size, expected_keys,
                    encode && c->without == 1 ? 0 : written, label, "run_keys");
  test_placed_check(context, &out_values, value_size, expected_values,
                    c->form == FORM_UNIQUE_BY_KEY ? written : 0, label, "run_values");
  test_placed_check(context, &lengths, index_size, expected_lengths,
                    encode && c->without != 2 ? written : 0, label, "lengths");
  test_placed_check(context, &offsets, index_size, expected_offsets,
                    encode && c->without != 3 ? written : 0, label, "offsets");
  test_placed_check(context, &k, key_size, keys, 0, label, "keys");
  test_placed *all[] = {&k, &v, &out_keys, &out_values, &lengths, &offsets, &count};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) test_placed_release(all[i]);
  free(junk);
  free(keys);
  free(values);
  free(expected_keys);
  free(expected_values);
  free(expected_lengths);
  free(expected_offsets);
}

static void unique_and_encode(void **state) {
  (void)state;
  int small = test_on_oclgrind(context);
  const size_t sizes[] = {0, 1, 2, 17, 1000, 4099, 70001};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    if (small && sizes[z] > 5000) continue;
    for (size_t s = 0; s < 2; s++) {
      for (int form = 0; form < 3; form++) {
        unique_case c = {(unique_form)form,
                         test_types[(z + (size_t)form) % TEST_TYPE_COUNT],
                         test_types[(z * 3 + s) % TEST_TYPE_COUNT],
                         sizes[z],
                         (run_pattern)((z + s) % 6),
                         5,
                         EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         0,
                         (int)((z + s) % 2),
                         0};
        run_unique_case(&c);
      }
    }
  }
  /* Strides, capacities below the count, optional outputs, an equality
   * expression and runs longer than a chunk. */
  const ptrdiff_t strides[][2] = {{2, 1}, {-1, 3}, {1, -2}};
  for (size_t v = 0; v < 3; v++) {
    for (size_t s = 0; s < 2; s++) {
      for (int without = 0; without < 4; without++) {
        unique_case c = {FORM_ENCODE,
                         TEST_INT32,
                         TEST_FLOAT,
                         small ? 3000 : 40000,
                         RUNS_RANDOM,
                         9,
                         without == 2 ? EQUAL_TENS : EQUAL_BITS,
                         shapes[s],
                         strides[v][0],
                         strides[v][1],
                         without == 1 ? 50 : 0,
                         (int)(v % 2),
                         without};
        run_unique_case(&c);
      }
      unique_case c = {FORM_UNIQUE_BY_KEY,
                       TEST_FLOAT,
                       TEST_DOUBLE,
                       small ? 3000 : 300000,
                       RUNS_FIXED,
                       v == 0   ? 1
                       : v == 1 ? 4097
                                : (size_t)1 << 17,
                       v == 2 ? EQUAL_NUMERIC : EQUAL_BITS,
                       shapes[s],
                       strides[v][0],
                       strides[v][1],
                       v == 1 ? 20 : 0,
                       0,
                       0};
      run_unique_case(&c);
      c.form = FORM_UNIQUE;
      run_unique_case(&c);
    }
  }
  /* Contiguous keys (the CHUNKED walk's sixteen-key blocks and unique's
   * packed path), each form with room for every run, for fewer runs than
   * there are, and for none. */
  const size_t rooms[] = {0, 1000, 1};
  for (size_t s = 0; s < 2; s++) {
    for (int form = 0; form < 3; form++) {
      for (size_t r = 0; r < 3; r++) {
        unique_case c = {(unique_form)form,
                         r == 1 ? TEST_UINT8 : TEST_UINT32,
                         TEST_INT32,
                         small ? 3000 : 70001,
                         RUNS_RANDOM,
                         7,
                         EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         rooms[r],
                         form == FORM_ENCODE && r == 2,
                         0};
        run_unique_case(&c);
      }
    }
  }
}

/* ---- the tests ---- */

static int fp64(void) { return clgpu_context_device_info(context)->has_fp64; }

/* Each case builds a program per (value type, operator, key size, shape,
 * strided or not), which costs a second or more on a cold cache: SUM runs
 * over every value type, the other operators over a few types each. */
static const test_type few_types[] = {TEST_INT8, TEST_UINT16, TEST_INT64, TEST_FLOAT, TEST_DOUBLE};

static void scan_every_type_and_operator(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 2, 17, 1000, 4099};
  const op_kind ops[] = {OP_SUM, OP_MIN, OP_MAX, OP_CUSTOM};
  for (size_t o = 0; o < 4; o++) {
    size_t count = o == 0 ? TEST_TYPE_COUNT : 2;
    for (size_t k = 0; k < count; k++) {
      test_type type = o == 0 ? test_types[k] : few_types[(2 * o + k) % 5];
      if (type == TEST_DOUBLE && !fp64()) continue;
      for (size_t s = 0; s < 2; s++) {
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
          runs_case c = {1,
                         test_types[(k + o) % TEST_TYPE_COUNT],
                         type,
                         sizes[z],
                         (run_pattern)((k + o + z) % 6),
                         3,
                         ops[o],
                         (int)((z + s) % 2),
                         EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         1,
                         0,
                         NULL};
          run_case(&c);
        }
      }
    }
  }
}

static void reduce_every_type_and_operator(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 2, 17, 1000, 4099};
  for (size_t o = 0; o < OP_KIND_COUNT; o++) {
    size_t count = o == OP_SUM ? TEST_TYPE_COUNT : 2;
    for (size_t k = 0; k < count; k++) {
      test_type type = o == OP_SUM ? test_types[k] : few_types[(2 * o + k) % 5];
      if (type == TEST_DOUBLE && !fp64()) continue;
      for (size_t s = 0; s < 2; s++) {
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
          runs_case c = {0,
                         test_types[(k + o + 3) % TEST_TYPE_COUNT],
                         type,
                         sizes[z],
                         (run_pattern)((k + o + z) % 6),
                         4,
                         (op_kind)o,
                         0,
                         EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         1,
                         0,
                         NULL};
          run_case(&c);
        }
      }
    }
  }
}

/* Sums over every value type by keys of other widths, contiguous, in both
 * shapes: the CHUNKED block walks of scan_by_key and reduce_by_key turn the
 * keys' compares into flags of the values' width (llvmpipe once summed
 * across run starts with uint64 values by uint32 keys). */
static void key_and_value_widths(void **state) {
  (void)state;
  const test_type keys[] = {TEST_UINT8, TEST_UINT32, TEST_UINT64};
  const size_t sizes[] = {1000, 4099};
  for (size_t v = 0; v < TEST_TYPE_COUNT; v++) {
    if (test_types[v] == TEST_DOUBLE && !fp64()) continue;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      if (test_type_size(keys[k]) == test_type_size(test_types[v])) continue;
      for (int scan = 0; scan < 2; scan++) {
        for (size_t s = 0; s < 2; s++) {
          runs_case c = {scan,
                         keys[k],
                         test_types[v],
                         sizes[(v + k + (size_t)scan) % 2],
                         (run_pattern)((v + k) % 6),
                         5,
                         OP_SUM,
                         (int)((v + s) % 2) & scan,
                         EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         1,
                         0,
                         NULL};
          run_case(&c);
        }
      }
    }
  }
}

/* Run lengths around every boundary of both shapes: a TILED tile is the
 * group times the tile's items, CHUNKED chunks are cut at 16384 and up;
 * runs of 1, 2, tile-1, tile, tile+1 and 2^20. */
static void run_lengths(void **state) {
  (void)state;
  int small = test_on_oclgrind(context);
  const size_t lengths[] = {1, 2, 7, 255, 256, 257, 4095, 4096, 4097, (size_t)1 << 20};
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
    if (small && lengths[l] > 4097) continue;
    size_t n = small ? 20000 : lengths[l] > 4097 ? ((size_t)1 << 21) + 4099 : 300000;
    for (size_t s = 0; s < 2; s++) {
      for (int scan = 0; scan < 2; scan++) {
        runs_case c = {scan,
                       TEST_UINT32,
                       scan ? TEST_INT32 : TEST_FLOAT,
                       n + l,
                       RUNS_FIXED,
                       lengths[l],
                       OP_SUM,
                       (int)(l % 2),
                       EQUAL_BITS,
                       shapes[s],
                       1,
                       1,
                       1,
                       0,
                       NULL};
        run_case(&c);
        c.pattern = RUNS_RANDOM;
        c.op = scan ? OP_MAX : OP_MIN;
        run_case(&c);
      }
    }
  }
  const run_pattern patterns[] = {RUNS_DISTINCT, RUNS_ALL_EQUAL, RUNS_ALTERNATING, RUNS_FROM_DATA};
  for (size_t p = 0; p < 4; p++) {
    for (size_t s = 0; s < 2; s++) {
      for (int scan = 0; scan < 2; scan++) {
        runs_case c = {scan,        TEST_INT64, TEST_UINT32, small ? 20000 : 300001,
                       patterns[p], 8,          OP_SUM,      1,
                       EQUAL_BITS,  shapes[s],  1,           1,
                       1,           0,          NULL};
        run_case(&c);
      }
    }
  }
}

/* Float keys: -0 beside +0 and NaNs beside NaNs, bitwise (different bits
 * are different keys, equal NaN bits the same key) and numeric (-0 == +0,
 * a NaN equals nothing); integer keys by tens. */
static void key_equalities(void **state) {
  (void)state;
  const test_type float_keys[] = {TEST_FLOAT, TEST_DOUBLE};
  for (size_t t = 0; t < 2; t++) {
    if (float_keys[t] == TEST_DOUBLE && !fp64()) continue;
    for (size_t s = 0; s < 2; s++) {
      for (int numeric = 0; numeric < 2; numeric++) {
        for (int scan = 0; scan < 2; scan++) {
          size_t n = 3000;
          runs_case c = {scan,
                         float_keys[t],
                         TEST_INT32,
                         n,
                         RUNS_FROM_DATA,
                         0,
                         OP_SUM,
                         0,
                         numeric ? EQUAL_NUMERIC : EQUAL_BITS,
                         shapes[s],
                         1,
                         1,
                         1,
                         0,
                         NULL};
          run_case(&c);
        }
      }
    }
  }
  const test_type integer_keys[] = {TEST_INT8, TEST_UINT16, TEST_INT32, TEST_UINT64};
  for (size_t t = 0; t < 4; t++) {
    for (size_t s = 0; s < 2; s++) {
      for (int scan = 0; scan < 2; scan++) {
        runs_case c = {scan,
                       integer_keys[t],
                       TEST_INT16,
                       2000,
                       (run_pattern)(t % 5),
                       5,
                       OP_SUM,
                       scan,
                       EQUAL_TENS,
                       shapes[s],
                       1,
                       1,
                       1,
                       0,
                       NULL};
        run_case(&c);
      }
    }
  }
}

/* Float keys with -0, +0 and NaNs side by side, by bits and numerically,
 * against the reference's own view of equality. */
static void float_specials_as_keys(void **state) {
  (void)state;
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7fc00000u, 0x7fc00000u, 0xffc00000u,
                               0x7fc00001u, 0x3f800000u, 0x3f800000u, 0x80000000u, 0x80000000u};
  size_t n = 10 * 37;
  float *keys = malloc(n * sizeof *keys);
  int32_t *values = malloc(n * sizeof *values);
  int32_t *out = malloc(n * sizeof *out);
  int32_t *expected = malloc(n * sizeof *expected);
  assert_non_null(keys);
  assert_non_null(values);
  assert_non_null(out);
  assert_non_null(expected);
  for (size_t i = 0; i < n; i++) {
    memcpy(&keys[i], &specials[(i / 3) % 10], 4);
    values[i] = (int32_t)(i % 11);
  }
  for (int numeric = 0; numeric < 2; numeric++) {
    for (size_t s = 0; s < 2; s++) {
      int32_t acc = 0;
      for (size_t i = 0; i < n; i++) {
        uint32_t a = 0, b = 0;
        if (i > 0) memcpy(&a, &keys[i - 1], 4);
        memcpy(&b, &keys[i], 4);
        int same = i > 0 && (numeric ? keys[i - 1] == keys[i] : a == b);
        acc = same ? acc + values[i] : values[i];
        expected[i] = acc;
      }
      test_placed k = test_place(context, keys, n, 4, CLGPU_TYPE_FLOAT, 1, 1);
      test_placed v = test_place(context, values, n, 4, CLGPU_TYPE_INT32, 1, 2);
      test_placed o = test_place(context, values, n, 4, CLGPU_TYPE_INT32, 1, 3);
      clgpu_scan_op op = {CLGPU_SCAN_SUM, 0, NULL, NULL};
      clgpu_call_options options = {.shape = shapes[s]};
      assert_status(clgpu_scan_by_key(context, &op, numeric ? "a == b" : NULL, &o.view, &v.view,
                                      &k.view, &options, 0, NULL, NULL),
                    CLGPU_SUCCESS);
      test_placed_check(context, &o, 4, (const unsigned char *)expected, n,
                        "float specials as keys", "output");
      test_placed_release(&k);
      test_placed_release(&v);
      test_placed_release(&o);
    }
  }
  free(keys);
  free(values);
  free(out);
  free(expected);
}

static void strided_views_and_capacity(void **state) {
  (void)state;
  const ptrdiff_t strides[][3] = {{2, 1, 1},   {1, -3, 1}, {1, 1, 2},
                                  {-1, 2, -2}, {3, -1, 5}, {1, 1, 1}};
  for (size_t v = 0; v < sizeof strides / sizeof strides[0]; v++) {
    for (size_t s = 0; s < 2; s++) {
      for (int scan = 0; scan < 2; scan++) {
        runs_case c = {scan,          v % 2 ? TEST_FLOAT : TEST_INT16,
                       TEST_INT32,    test_on_oclgrind(context) ? 700 : 7000,
                       RUNS_RANDOM,   6,
                       OP_SUM,        (int)(v % 2),
                       EQUAL_BITS,    shapes[s],
                       strides[v][0], strides[v][1],
                       strides[v][2], 0,
                       NULL};
        run_case(&c);
        if (!scan) {
          /* Room for fewer runs than there are, and an initial value. */
          c.capacity = 100;
          c.initial = "100";
          run_case(&c);
        }
      }
    }
  }
}

/* Outputs over their own inputs: a scan in place over its values, a scan
 * over its keys, a reduction whose run keys land on its keys and whose
 * reduced values land on its values; each must give what a fresh buffer
 * gives. */
static void outputs_over_inputs(void **state) {
  (void)state;
  size_t n = test_on_oclgrind(context) ? 900 : 9000;
  int32_t *keys = malloc(n * 4), *values = malloc(n * 4), *expected = malloc(n * 4);
  int32_t *expected_keys = malloc(n * 4), *image = malloc(3 * n * 4), *back = malloc(3 * n * 4);
  assert_non_null(keys);
  assert_non_null(values);
  assert_non_null(expected);
  assert_non_null(expected_keys);
  assert_non_null(image);
  assert_non_null(back);
  test_rng rng;
  test_rng_init(&rng, test_case_seed("outputs_over_inputs"));
  for (size_t i = 0; i < n; i++) {
    keys[i] = (int32_t)(i / (1 + test_rng_below(&rng, 9)) % 4);
    values[i] = (int32_t)test_rng_below(&rng, 1000);
  }
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s]};
    for (int target = 0; target < 3; target++) {
      memcpy(image, keys, n * 4);
      memcpy(image + n, values, n * 4);
      memset(image + 2 * n, 0, n * 4);
      cl_mem buffer = NULL;
      assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, 3 * n * 4, &buffer),
                    CLGPU_SUCCESS);
      assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0,
                                            3 * n * 4, image, 0, NULL, NULL),
                       CL_SUCCESS);
      clgpu_array k, v, count;
      assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, n, &k), CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_INT32, n, &v), CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(buffer, 2 * n * 4, CLGPU_TYPE_UINT64, 1, &count), CLGPU_SUCCESS);
      size_t runs = 0;
      if (target < 2) {
        /* Inclusive sums in place over the values, then over the keys. */
        int32_t acc = 0;
        for (size_t i = 0; i < n; i++) {
          acc = i > 0 && keys[i] == keys[i - 1] ? acc + values[i] : values[i];
          expected[i] = acc;
        }
        clgpu_scan_op op = {CLGPU_SCAN_SUM, 0, NULL, NULL};
        clgpu_workspace_size report;
        const clgpu_array *output = target ? &k : &v;
        assert_status(
            clgpu_scan_by_key_workspace_size(context, &op, NULL, output, &v, &k, &options, &report),
            CLGPU_SUCCESS);
        assert_string_equal(report.buffers[0].name, "staged_keys");
        assert_int_equal(report.buffers[0].bytes, target ? n * 4 : 0);
        assert_int_equal(report.buffers[1].bytes, 0);
        assert_status(
            clgpu_scan_by_key(context, &op, NULL, output, &v, &k, &options, 0, NULL, NULL),
            CLGPU_SUCCESS);
      } else {
        /* Run keys over the keys, sums over the values. */
        int32_t acc = 0;
        for (size_t i = 0; i < n; i++) {
          if (i == 0 || keys[i] != keys[i - 1]) {
            if (i > 0) expected[runs - 1] = acc;
            expected_keys[runs++] = keys[i];
            acc = values[i];
          } else {
            acc += values[i];
          }
        }
        expected[runs - 1] = acc;
        clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
        clgpu_workspace_size report;
        assert_status(clgpu_reduce_by_key_workspace_size(context, &op, NULL, &k, &v, &count, &k, &v,
                                                         &options, &report),
                      CLGPU_SUCCESS);
        assert_int_equal(report.buffers[0].bytes, n * 4);
        assert_int_equal(report.buffers[1].bytes, n * 4);
        assert_status(clgpu_reduce_by_key(context, &op, NULL, &k, &v, &count, &k, &v, &options, 0,
                                          NULL, NULL),
                      CLGPU_SUCCESS);
      }
      assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0,
                                           3 * n * 4, back, 0, NULL, NULL),
                       CL_SUCCESS);
      if (target == 0) {
        assert_memory_equal(back, keys, n * 4);
        assert_memory_equal(back + n, expected, n * 4);
      } else if (target == 1) {
        assert_memory_equal(back, expected, n * 4);
        assert_memory_equal(back + n, values, n * 4);
      } else {
        uint64_t counted;
        memcpy(&counted, back + 2 * n, 8);
        assert_int_equal(counted, runs);
        assert_memory_equal(back, expected_keys, runs * 4);
        assert_memory_equal(back + runs, keys + runs, (n - runs) * 4);
        assert_memory_equal(back + n, expected, runs * 4);
        assert_memory_equal(back + n + runs, values + runs, (n - runs) * 4);
      }
      clgpu_buffer_release(context, buffer);
    }
  }
  free(keys);
  free(values);
  free(expected);
  free(expected_keys);
  free(image);
  free(back);
}

/* The size queries: the buffers by name, _upto serving the calls it
 * covers, and workspaces refused when too small or of another operation. */
static void workspaces(void **state) {
  (void)state;
  size_t n = test_on_oclgrind(context) ? 5000 : 100000;
  cl_mem buffer = NULL;
  size_t bytes = 4 * n * 4 + 64;
  unsigned char *zeros = calloc(1, bytes);
  assert_non_null(zeros);
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &buffer), CLGPU_SUCCESS);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes,
                                        zeros, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_array k, v, out, out_keys, count;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, n, &k), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_FLOAT, n, &v), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 2 * n * 4, CLGPU_TYPE_FLOAT, n, &out), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 3 * n * 4, CLGPU_TYPE_UINT32, n, &out_keys), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 4 * n * 4, CLGPU_TYPE_UINT64, 1, &count), CLGPU_SUCCESS);
  clgpu_scan_op scan = {CLGPU_SCAN_SUM, 1, NULL, NULL};
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s]};
    clgpu_workspace_size scan_report, reduce_report, upto;
    assert_status(clgpu_scan_by_key_workspace_size(context, &scan, NULL, &out, &v, &k, &options,
                                                   &scan_report),
                  CLGPU_SUCCESS);
    assert_int_equal(scan_report.num_parts, 1);
    assert_int_equal(scan_report.parts[0].operation, CLGPU_OPERATION_SCAN_BY_KEY);
    assert_int_equal(scan_report.num_buffers, 6);
    assert_string_equal(scan_report.buffers[0].name, "staged_keys");
    assert_string_equal(scan_report.buffers[1].name, "staged_values");
    assert_string_equal(scan_report.buffers[2].name, "heads");
    assert_string_equal(scan_report.buffers[3].name, "totals");
    assert_string_equal(scan_report.buffers[4].name, "packed");
    assert_string_equal(scan_report.buffers[5].name, "counts");
    assert_int_equal(scan_report.buffers[0].bytes + scan_report.buffers[1].bytes, 0);
    /* Only unique packs. */
    assert_int_equal(scan_report.buffers[4].bytes + scan_report.buffers[5].bytes, 0);
    /* 100000 keys are cut into ranges with carries (5000 on Oclgrind may
     * not be). */
    if (!test_on_oclgrind(context)) assert_true(scan_report.buffers[2].bytes > 0);
    assert_status(clgpu_scan_by_key_workspace_size_upto(context, &scan, NULL, CLGPU_TYPE_UINT32,
                                                        CLGPU_TYPE_FLOAT, n, &options, &upto),
                  CLGPU_SUCCESS);
    assert_true(upto.total_bytes >= scan_report.total_bytes);
    assert_status(clgpu_reduce_by_key_workspace_size(context, &sum, NULL, &out_keys, &out, &count,
                                                     &k, &v, &options, &reduce_report),
                  CLGPU_SUCCESS);
    assert_int_equal(reduce_report.parts[0].operation, CLGPU_OPERATION_REDUCE_BY_KEY);
    assert_int_equal(reduce_report.buffers[4].bytes + reduce_report.buffers[5].bytes, 0);

    /* unique cut into CHUNKED ranges packs each range's run keys into n
     * keys of the workspace (and counts them); TILED does not. A
     * workspace sized for a tenth of the keys is refused, and one of the
     * _upto size serves the call. */
    clgpu_workspace_size unique_report, unique_small, unique_upto;
    assert_status(clgpu_unique_workspace_size(context, NULL, &out_keys, NULL, &count, &k, NULL,
                                              &options, &unique_report),
                  CLGPU_SUCCESS);
    assert_string_equal(unique_report.buffers[4].name, "packed");
    int packs = shapes[s] == CLGPU_SHAPE_CHUNKED && unique_report.buffers[2].bytes > 0;
    assert_int_equal(unique_report.buffers[4].bytes, packs ? n * 4 : 0);
    assert_int_equal(unique_report.buffers[5].bytes > 0, packs);
    assert_status(clgpu_unique_workspace_size_upto(context, NULL, CLGPU_TYPE_UINT32, 0, n / 10,
                                                   &options, &unique_small),
                  CLGPU_SUCCESS);
    assert_status(clgpu_unique_workspace_size_upto(context, NULL, CLGPU_TYPE_UINT32, 0, n, &options,
                                                   &unique_upto),
                  CLGPU_SUCCESS);
    assert_int_equal(unique_upto.total_bytes, unique_report.total_bytes);
    clgpu_workspace *unique_workspace = NULL;
    if (unique_small.total_bytes < unique_report.total_bytes) {
      assert_status(clgpu_workspace_create(context, &unique_small, &unique_workspace),
                    CLGPU_SUCCESS);
      clgpu_call_options small = {.shape = shapes[s], .workspace = unique_workspace};
      assert_status(clgpu_unique(context, NULL, &out_keys, &count, &k, &small, 0, NULL, NULL),
                    CLGPU_WORKSPACE_TOO_SMALL);
      clgpu_workspace_destroy(unique_workspace);
    }
    assert_status(clgpu_workspace_create(context, &unique_upto, &unique_workspace), CLGPU_SUCCESS);
    clgpu_call_options fits = {.shape = shapes[s], .workspace = unique_workspace};
    assert_status(clgpu_unique(context, NULL, &out_keys, &count, &k, &fits, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    uint64_t runs = 0;
    assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 4 * n * 4,
                                         8, &runs, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(runs, 1); /* the keys are all 0 */
    clgpu_workspace_destroy(unique_workspace);

    /* A workspace of the _upto size serves the scan; one of the scan's
     * operation is refused by the reduction. */
    clgpu_workspace *workspace = NULL;
    assert_status(clgpu_workspace_create(context, &upto, &workspace), CLGPU_SUCCESS);
    options.workspace = workspace;
    assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, &v, &k, &options, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    assert_status(clgpu_reduce_by_key(context, &sum, NULL, &out_keys, &out, &count, &k, &v,
                                      &options, 0, NULL, NULL),
                  CLGPU_WORKSPACE_WRONG_OPERATION);
    /* An empty scan by key writes nothing but checks its workspace all
     * the same: the reduction's is refused. */
    clgpu_workspace *reduce_workspace = NULL;
    assert_status(clgpu_workspace_create(context, &reduce_report, &reduce_workspace),
                  CLGPU_SUCCESS);
    clgpu_array empty_k, empty_v, empty_out;
    assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 0, &empty_k), CLGPU_SUCCESS);
    assert_status(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_FLOAT, 0, &empty_v), CLGPU_SUCCESS);
    assert_status(clgpu_array_1d(buffer, 2 * n * 4, CLGPU_TYPE_FLOAT, 0, &empty_out),
                  CLGPU_SUCCESS);
    clgpu_call_options wrong = {.shape = shapes[s], .workspace = reduce_workspace};
    assert_status(clgpu_scan_by_key(context, &scan, NULL, &empty_out, &empty_v, &empty_k, &wrong, 0,
                                    NULL, NULL),
                  CLGPU_WORKSPACE_WRONG_OPERATION);
    assert_status(clgpu_scan_by_key(context, &scan, NULL, &empty_out, &empty_v, &empty_k, &options,
                                    0, NULL, NULL),
                  CLGPU_SUCCESS);
    clgpu_workspace_destroy(reduce_workspace);
    clgpu_workspace_destroy(workspace);
    /* Too small: sized for a tenth of the keys. */
    clgpu_workspace_size small_report;
    assert_status(
        clgpu_reduce_by_key_workspace_size_upto(context, &sum, NULL, CLGPU_TYPE_UINT32,
                                                CLGPU_TYPE_FLOAT, n / 10, &options, &small_report),
        CLGPU_SUCCESS);
    if (small_report.total_bytes < reduce_report.total_bytes) {
      assert_status(clgpu_workspace_create(context, &small_report, &workspace), CLGPU_SUCCESS);
      options.workspace = workspace;
      assert_status(clgpu_reduce_by_key(context, &sum, NULL, &out_keys, &out, &count, &k, &v,
                                        &options, 0, NULL, NULL),
                    CLGPU_WORKSPACE_TOO_SMALL);
      clgpu_workspace_destroy(workspace);
    }
  }
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  clgpu_buffer_release(context, buffer);
  free(zeros);
}

/* Each call orders itself after its wait list and returns an event that
 * completes with its outputs. */
static void wait_list_and_event(void **state) {
  (void)state;
  size_t n = 5000;
  int32_t *host = malloc(n * 4 * 2);
  assert_non_null(host);
  for (size_t i = 0; i < n; i++) {
    host[i] = (int32_t)(i / 10);
    host[n + i] = 1;
  }
  cl_mem buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, n * 4 * 3 + 8, &buffer),
                CLGPU_SUCCESS);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, n * 4 * 2,
                                        host, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_array k, v, out;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, n, &k), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_INT32, n, &v), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 2 * n * 4, CLGPU_TYPE_INT32, n, &out), CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event done = NULL;
  clgpu_scan_op op = {CLGPU_SCAN_SUM, 1, NULL, NULL};
  assert_status(clgpu_scan_by_key(context, &op, NULL, &out, &v, &k, NULL, 1, &gate, &done),
                CLGPU_SUCCESS);
  assert_non_null(done);
  test_gate_opener opener = {gate, done, CL_COMPLETE};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
  clFlush(clgpu_context_queue(context));
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_true(opener.call_status_before_opening != CL_COMPLETE);
  int32_t *back = malloc(n * 4);
  assert_non_null(back);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 2 * n * 4,
                                       n * 4, back, 0, NULL, NULL),
                   CL_SUCCESS);
  for (size_t i = 0; i < n; i++) assert_int_equal(back[i], (int32_t)(i % 10));
  clReleaseEvent(done);
  clReleaseEvent(gate);
  clgpu_buffer_release(context, buffer);
  free(host);
  free(back);
}

/* Bad arguments: a status, a message naming what is wrong, nothing
 * written. */
static void misuse(void **state) {
  (void)state;
  size_t n = 64;
  cl_mem buffer = NULL;
  unsigned char *zeros = calloc(1, 4096);
  assert_non_null(zeros);
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, 4096, &buffer), CLGPU_SUCCESS);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, 4096,
                                        zeros, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_array k, v, out, out_keys, count, short_v, wide, count32, two_d;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, n, &k), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 256, CLGPU_TYPE_FLOAT, n, &v), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 512, CLGPU_TYPE_FLOAT, n, &out), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 768, CLGPU_TYPE_INT32, n, &out_keys), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 1024, CLGPU_TYPE_UINT64, 1, &count), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 256, CLGPU_TYPE_FLOAT, n - 1, &short_v), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 1536, CLGPU_TYPE_DOUBLE, n, &wide), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 1024, CLGPU_TYPE_UINT32, 1, &count32), CLGPU_SUCCESS);
  size_t shape[2] = {8, 8};
  assert_status(
      clgpu_array_nd(buffer, 512, CLGPU_TYPE_FLOAT, 2, shape, CLGPU_ORDER_ROW_MAJOR, &two_d),
      CLGPU_SUCCESS);
  clgpu_scan_op scan = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_reduce_op argmin = {.kind = CLGPU_REDUCE_ARGMIN};
  clgpu_scan_op bad_kind = {(clgpu_scan_kind)99, 0, NULL, NULL};

  assert_status(clgpu_scan_by_key(NULL, &scan, NULL, &out, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, NULL, NULL, &out, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, NULL, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, NULL, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, &v, NULL, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &bad_kind, NULL, &out, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, &short_v, &k, NULL, 0, NULL, NULL),
                CLGPU_SHAPE_MISMATCH);
  assert_non_null(strstr(clgpu_last_error(), "keys"));
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out_keys, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_TYPE_MISMATCH);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &two_d, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_SHAPE_MISMATCH);
  assert_status(clgpu_scan_by_key(context, &scan, "", &out, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_scan_by_key(context, &scan, "a == b; }", &out, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "key_equal"));
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, &v, &k, NULL, 1, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  clgpu_call_options bad_shape = {.shape = (clgpu_shape)42};
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &out, &v, &k, &bad_shape, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);

  assert_status(
      clgpu_reduce_by_key(context, &sum, NULL, NULL, &out, &count, &k, &v, NULL, 0, NULL, NULL),
      CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "run_keys"));
  assert_status(
      clgpu_reduce_by_key(context, &sum, NULL, &out_keys, &out, NULL, &k, &v, NULL, 0, NULL, NULL),
      CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_reduce_by_key(context, &argmin, NULL, &out_keys, &out, &count, &k, &v, NULL,
                                    0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "ARGMIN"));
  assert_status(clgpu_reduce_by_key(context, &sum, NULL, &out_keys, &out, &count32, &k, &v, NULL, 0,
                                    NULL, NULL),
                CLGPU_TYPE_MISMATCH);
  assert_status(
      clgpu_reduce_by_key(context, &sum, NULL, &out, &out, &count, &k, &v, NULL, 0, NULL, NULL),
      CLGPU_TYPE_MISMATCH);
  assert_status(clgpu_reduce_by_key(context, &sum, NULL, &out_keys, &out_keys, &count, &k, &v, NULL,
                                    0, NULL, NULL),
                CLGPU_TYPE_MISMATCH);
  /* Outputs over each other. */
  clgpu_array keys_over_sums;
  assert_status(clgpu_array_1d(buffer, 512, CLGPU_TYPE_INT32, n, &keys_over_sums), CLGPU_SUCCESS);
  assert_status(clgpu_reduce_by_key(context, &sum, NULL, &keys_over_sums, &out, &count, &k, &v,
                                    NULL, 0, NULL, NULL),
                CLGPU_INVALID_OUTPUT);
  clgpu_array broadcast = clgpu_array_of_strided(buffer, 512, CLGPU_TYPE_FLOAT, n, 0);
  assert_status(clgpu_scan_by_key(context, &scan, NULL, &broadcast, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_INVALID_OUTPUT);
  if (!fp64()) {
    assert_status(clgpu_scan_by_key(context, &scan, NULL, &wide, &wide, &k, NULL, 0, NULL, NULL),
                  CLGPU_UNSUPPORTED_FEATURE);
  }
  /* Nothing was written: the buffer is still all zeros. */
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  unsigned char *back = malloc(4096);
  assert_non_null(back);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, 4096, back,
                                       0, NULL, NULL),
                   CL_SUCCESS);
  assert_memory_equal(back, zeros, 4096);
  free(back);
  free(zeros);
  clgpu_buffer_release(context, buffer);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scan_every_type_and_operator),
      cmocka_unit_test(reduce_every_type_and_operator),
      cmocka_unit_test(key_and_value_widths),
      cmocka_unit_test(run_lengths),
      cmocka_unit_test(key_equalities),
      cmocka_unit_test(float_specials_as_keys),
      cmocka_unit_test(strided_views_and_capacity),
      cmocka_unit_test(unique_and_encode),
      cmocka_unit_test(outputs_over_inputs),
      cmocka_unit_test(workspaces),
      cmocka_unit_test(wait_list_and_event),
      cmocka_unit_test(misuse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
